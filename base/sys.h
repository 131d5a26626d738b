/* sys.h - allocation that ends the process on exhaustion, and the monotonic clock. */
#ifndef UG_SYS_H
#define UG_SYS_H

#include <stddef.h>
#include <stdlib.h>

/* malloc/calloc/realloc, or exit(2) with "ulpgate: out of memory (N bytes)" on stderr. */
void *ug_xmalloc(size_t n);
void *ug_xcalloc(size_t n, size_t size);
void *ug_xrealloc(void *p, size_t n);
char *ug_xstrdup(const char *s);
/* Monotonic seconds (CLOCK_MONOTONIC). */
double ug_now_s(void);

/* Write len bytes to path atomically: a temporary file beside it, fsync'ed, renamed over path
 * (a reader never sees half a file; nothing is left behind on failure).  A path that is not a
 * regular file is not replaced: a symlink is written through to its target (atomically there),
 * a device or FIFO directly (`/dev/full`: "No space left on device").  0, or -1 with
 * "cannot write PATH: why" in err. */
int ug_write_atomic(const char *path, const char *text, size_t len, char *err, size_t errlen);

/* An exclusive advisory lock (flock) on directory dir, held until ug_dir_unlock or the process
 * ends (a crash releases it too).  wait: block until it is free; else fail at once if another
 * process holds it.  Returns the descriptor, or -1 with "why" in err (errno EWOULDBLOCK when it
 * is held and !wait).  Who writes into one folder at a time: `run --report DIR`, `baseline
 * update` (its baseline folder). */
int ug_dir_lock(const char *dir, int wait, char *err, size_t errlen);
void ug_dir_unlock(int fd);

#endif

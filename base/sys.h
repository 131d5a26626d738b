/* sys.h - allocation that ends the process on exhaustion, and the monotonic clock. */
#ifndef UG_SYS_H
#define UG_SYS_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* malloc/calloc/realloc, or exit(2) with "ulpgate: out of memory (N bytes)" on stderr, or,
 * under a trap on this thread (below), a jump to it. */
void *ug_xmalloc(size_t n);
void *ug_xcalloc(size_t n, size_t size);
void *ug_xrealloc(void *p, size_t n);
char *ug_xstrdup(const char *s);
/* Ask for 2 MiB pages on the whole pages of [p, p + n) when n >= 4 MiB, where transparent huge
 * pages are "madvise": a large block's first touch faults 512 times less (ug_xmalloc's and
 * ug_xrealloc's blocks, the fenced buffers: the inputs of 2^25 terms, sort buffers; 4 s of the
 * default CPU run's system time on a virtual machine).  Advice: a failure changes nothing.
 * Returns p. */
void *ug_advise_huge(void *p, size_t n);
/* What ug_x* do when memory is refused: jump to this thread's innermost trap, else exit(2). */
_Noreturn void ug_out_of_memory(size_t n);

/* A trap for memory refused, for a caller that can answer "out of memory" instead of ending the
 * process (ulpgate.check raises MemoryError; a Python process must survive its call).  While one
 * is pushed on a thread, ug_x* that cannot allocate pop it and longjmp to it (setjmp returns 1;
 * ug_oom_refused() says how many bytes were asked), and ug_par_run's workers started from that
 * thread report theirs to it once all have joined.  What was allocated between the push and the
 * jump is leaked and state the callee changed is the caller's to restore, so a trap encloses
 * only code whose state the caller knows.  MPFR's own allocations (GMP's) come here too where
 * the process asked for it (ug_oracle_trap_allocations, oracle.h: the Python extension does;
 * `ulpgate` keeps GMP's abort), and the trap's owner then calls ug_oracle_after_refusal.  Push
 * and pop in the function that called setjmp, the pop before it returns; variables it changes
 * after setjmp are not read after the jump. */
typedef struct ug_oom_trap {
    jmp_buf at;
    struct ug_oom_trap *prev;
} ug_oom_trap;
void ug_oom_trap_push(ug_oom_trap *t);
void ug_oom_trap_pop(ug_oom_trap *t);
bool ug_oom_trapped(void);
size_t ug_oom_refused(void);
/* Tests only: the n-th ug_x* allocation from now, on any thread, is refused as if memory had run
 * out (0: none; negative: none).  How the trap's paths, the workers' included, are reached
 * without exhausting memory: at each n a different allocation of the oracle fails. */
void ug_oom_inject_testing(long n);
/* Monotonic seconds (CLOCK_MONOTONIC). */
double ug_now_s(void);

/* The whole of file path ("-": stdin) into a malloc'ed buffer, NUL-terminated, *len its length:
 * at most limit bytes, read no further (a FIFO, /dev/zero or a file that grows is not read until
 * memory runs out: a regular file larger than limit is refused before its first byte, anything
 * else once limit + 1 bytes have come).  text: a NUL byte is refused where it is read ("NUL byte
 * at byte N: not a text file"), so /dev/zero fails at once.  limit_name says where the limit
 * comes from, for the message.  NULL with "PATH: why" in err ("PATH: larger than 128 MiB, the
 * limit of ... (NAME)"); nothing stays allocated then.  A FIFO
 * no one writes to within 5 s is refused ("a FIFO that no one wrote to"), not waited for.  Cost: one pass over at most limit bytes. */
/* fopen(path, "rb") ("-": stdin) that does not wait for ever on a FIFO no one writes to: one
 * that has no bytes within 5 s is refused.  NULL with the reason (no path) in why. */
FILE *ug_fopen_bounded(const char *path, char *why, size_t whylen);

char *ug_read_bounded(const char *path, size_t limit, const char *limit_name, bool text,
                      size_t *len, char *err, size_t errlen);

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

/* Remove path and, for a directory, everything under it (symlinks removed, never followed).
 * 0 (also when path does not exist), or -1 with errno set.  Cost: one pass over the tree. */
int ug_remove_tree(const char *path);
/* Put the directory fresh (complete, written by the caller) in the place of directory path, so
 * that a reader of path sees either the old folder or the new one, never a mix: on Linux one
 * renameat2(RENAME_EXCHANGE), after which the old folder (now at fresh) is removed; where that
 * is not supported, path is renamed aside to .NAME.old.PID beside it and fresh renamed to path (a
 * crash between the two leaves no path but the complete old folder beside it).  A path that does not
 * exist is just renamed into.  0, or -1 with "cannot replace PATH: why" in err (fresh is left
 * for the caller to remove). */
int ug_dir_replace(const char *fresh, const char *path, char *err, size_t errlen);

/* What the bits of a kernel that uses approximate instructions or run-time dispatched libraries
 * depend on (UG_VP_CPU_MODEL): the CPU's vendor, family and the x86-64 feature level the
 * dispatchers choose by ("AuthenticAMD family 25, x86-64-v4"); "" where it cannot be read (not
 * x86).  name: the CPU's own brand string ("AMD EPYC 9554 64-Core Processor"), for people. */
void ug_cpu_model(char *key, size_t keylen, char *name, size_t namelen);

#endif

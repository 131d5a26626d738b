/* sys.c - see sys.h. */
#include "base/sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static _Thread_local ug_oom_trap *ug_trap;
static _Thread_local size_t ug_trap_refused;

void ug_oom_trap_push(ug_oom_trap *t)
{
    t->prev = ug_trap;
    ug_trap = t;
}

void ug_oom_trap_pop(ug_oom_trap *t) { ug_trap = t->prev; }
bool ug_oom_trapped(void) { return ug_trap != NULL; }
size_t ug_oom_refused(void) { return ug_trap_refused; }

_Noreturn void ug_out_of_memory(size_t n)
{
    ug_oom_trap *t = ug_trap;
    if (t) {
        ug_trap = t->prev;
        ug_trap_refused = n;
        longjmp(t->at, 1);
    }
    fprintf(stderr, "ulpgate: out of memory (%zu bytes)\n", n);
    exit(2);
}

static atomic_long ug_inject; /* tests: allocations left before one is refused, 0: none */

void ug_oom_inject_testing(long n) { atomic_store(&ug_inject, n > 0 ? n : 0); }

/* Whether this allocation is the one ug_oom_inject_testing asked to refuse: one relaxed load
 * when none is asked. */
static bool ug_injected(void)
{
    long v = atomic_load_explicit(&ug_inject, memory_order_relaxed);
    while (v > 0 && !atomic_compare_exchange_weak(&ug_inject, &v, v - 1)) {
    }
    return v == 1;
}

void *ug_advise_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    enum { UG_HUGE_MIN = 4 << 20, UG_PAGE = 4096 };
    if (p && n >= UG_HUGE_MIN) {
        uintptr_t a = ((uintptr_t)p + UG_PAGE - 1) & ~(uintptr_t)(UG_PAGE - 1);
        uintptr_t e = ((uintptr_t)p + n) & ~(uintptr_t)(UG_PAGE - 1);
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
    }
#endif
    return p;
}

void *ug_xmalloc(size_t n)
{
    void *p = ug_injected() ? NULL : malloc(n ? n : 1);
    if (!p) ug_out_of_memory(n);
    return ug_advise_huge(p, n);
}

void *ug_xcalloc(size_t n, size_t size)
{
    void *p = ug_injected() ? NULL : calloc(n ? n : 1, size ? size : 1);
    if (!p) ug_out_of_memory(n * size);
    return p;
}

void *ug_xrealloc(void *p, size_t n)
{
    void *q = ug_injected() ? NULL : realloc(p, n ? n : 1);
    if (!q) ug_out_of_memory(n);
    return ug_advise_huge(q, n);
}

char *ug_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(ug_xmalloc(n), s, n);
}

double ug_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* bytes as "128 MiB" (a whole number of MiB) or "N bytes", for the limit's message. */
static void ug_limit_text(size_t limit, char *buf, size_t len)
{
    if (limit >= (1u << 20) && limit % (1u << 20) == 0)
        snprintf(buf, len, "%zu MiB", limit >> 20);
    else
        snprintf(buf, len, "%zu bytes", limit);
}

/* How long a FIFO opened by ug_fopen_bounded may wait for its first bytes. */
#define UG_FIFO_WAIT_MS 5000

FILE *ug_fopen_bounded(const char *path, char *why, size_t whylen)
{
    if (strcmp(path, "-") == 0) return stdin;
    struct stat pst;
    FILE *f;
    if (stat(path, &pst) == 0 && S_ISFIFO(pst.st_mode)) {
        /* a FIFO's open waits for a writer, for ever when none comes: the wait is bounded */
        int fd = open(path, O_RDONLY | O_NONBLOCK);
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int ready = fd < 0 ? -1 : poll(&p, 1, UG_FIFO_WAIT_MS);
        if (ready <= 0) {
            if (ready == 0)
                snprintf(why, whylen, "a FIFO that no one wrote to within %d s: not read",
                         UG_FIFO_WAIT_MS / 1000);
            else
                snprintf(why, whylen, "%s", strerror(errno));
            if (fd >= 0) close(fd);
            return NULL;
        }
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        if (!(f = fdopen(fd, "rb"))) close(fd);
    } else {
        f = fopen(path, "rb");
    }
    if (!f) snprintf(why, whylen, "%s", strerror(errno));
    return f;
}

char *ug_read_bounded(const char *path, size_t limit, const char *limit_name, bool text,
                      size_t *len, char *err, size_t errlen)
{
    char lim[64], opened[128];
    ug_limit_text(limit, lim, sizeof lim);
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *f = ug_fopen_bounded(path, opened, sizeof opened);
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, opened);
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (uintmax_t)st.st_size > limit) {
        snprintf(err, errlen, "%s: %jd bytes, larger than %s, the limit of %s: not read", path,
                 (intmax_t)st.st_size, lim, limit_name);
        if (!is_stdin) fclose(f);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = ug_xmalloc(cap + 1);
    const char *why = NULL;
    for (size_t got; !why && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        if (text && memchr(buf + n, 0, got)) {
            snprintf(err, errlen, "%s: NUL byte at byte %zu: not a text file", path,
                     (size_t)((char *)memchr(buf + n, 0, got) - buf) + 1);
            why = err;
            break;
        }
        n += got;
        if (n > limit) {
            snprintf(err, errlen, "%s: larger than %s, the limit of %s: not read (a device, a "
                                  "FIFO or a file still growing is read no further)",
                     path, lim, limit_name);
            why = err;
        } else if (n == cap) {
            cap = cap > limit / 2 ? limit + 1 : 2 * cap; /* limit + 1: the byte that tells */
            buf = ug_xrealloc(buf, cap + 1);
        }
    }
    if (!why && ferror(f)) snprintf(err, errlen, "%s: read error: %s", path, strerror(errno ? errno : EIO)), why = err;
    if (!is_stdin) fclose(f);
    if (why) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

/* Write straight into path (a device, a FIFO, a dangling symlink): no temporary file to rename.
 * A full device is ENOSPC at the write or the flush; fsync is not asked of what cannot do it. */
static int ug_write_through(const char *path, const char *text, size_t len, char *err,
                            size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) goto err;
    if (fwrite(text, 1, len, f) != len || fflush(f) != 0) {
        int e = errno;
        fclose(f);
        errno = e;
        goto err;
    }
    if (fclose(f) != 0) goto err;
    return 0;
err:
    snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return -1;
}

int ug_write_atomic(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
    /* The rename would replace whatever path is with a regular file: a symlink is written
     * through to its target (atomically there), a device or FIFO directly (`--out /dev/full`
     * reports ENOSPC instead of turning /dev/full into a file). */
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        char *real = realpath(path, NULL);
        if (!real) return ug_write_through(path, text, len, err, errlen); /* dangling */
        int rc = ug_write_atomic(real, text, len, err, errlen);
        free(real);
        return rc;
    }
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return ug_write_through(path, text, len, err, errlen);
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp) {
        snprintf(err, errlen, "%s: path too long", path);
        return -1;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) goto err;
    if (fwrite(text, 1, len, f) != len || fflush(f) != 0 || fsync(fileno(f)) != 0) {
        fclose(f);
        goto err;
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) goto err;
    return 0;
err:
    snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    unlink(tmp);
    return -1;
}


int ug_dir_lock(const char *dir, int wait, char *err, size_t errlen)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", dir, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0) {
        int e = errno;
        snprintf(err, errlen, "%s", e == EWOULDBLOCK ? "another ulpgate process is writing there"
                                                     : strerror(e));
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

void ug_dir_unlock(int fd)
{
    if (fd >= 0) close(fd); /* closing the last descriptor releases the flock */
}

int ug_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode)) return unlink(path);
    DIR *d = opendir(path);
    if (!d) return -1;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char sub[PATH_MAX];
        if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) >= (int)sizeof sub) {
            errno = ENAMETOOLONG;
            rc = -1;
            continue;
        }
        if (ug_remove_tree(sub) != 0) rc = -1;
    }
    closedir(d);
    return rc == 0 ? rmdir(path) : -1;
}

int ug_dir_replace(const char *fresh, const char *path, char *err, size_t errlen)
{
    char old[PATH_MAX];
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT && rename(fresh, path) == 0) return 0;
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: not a directory", path);
        return -1;
    }
#ifdef SYS_renameat2
    /* RENAME_EXCHANGE (linux/fs.h): both names stay, their targets swap in one step */
    if (syscall(SYS_renameat2, AT_FDCWD, fresh, AT_FDCWD, path, 1 << 1) == 0) {
        if (ug_remove_tree(fresh) != 0)
            fprintf(stderr, "ulpgate: warning: cannot remove %s (the previous %s): %s\n", fresh,
                    path, strerror(errno));
        return 0;
    }
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) {
        snprintf(err, errlen, "cannot replace %s: %s", path, strerror(errno));
        return -1;
    }
#endif
    /* no exchange here (another kernel or file system): two renames, the old folder kept
     * beside as .NAME.old.PID until the new one is in place */
    const char *slash = strrchr(path, '/');
    snprintf(old, sizeof old, "%.*s.%s.old.%ld", slash ? (int)(slash - path) + 1 : 0, path,
             slash ? slash + 1 : path, (long)getpid());
    if (rename(path, old) != 0) {
        snprintf(err, errlen, "cannot replace %s: %s", path, strerror(errno));
        return -1;
    }
    if (rename(fresh, path) != 0) {
        int e = errno;
        if (rename(old, path) != 0)
            fprintf(stderr, "ulpgate: %s is now %s: rename it back\n", path, old);
        snprintf(err, errlen, "cannot replace %s: %s", path, strerror(e));
        return -1;
    }
    if (ug_remove_tree(old) != 0)
        fprintf(stderr, "ulpgate: warning: cannot remove %s: %s\n", old, strerror(errno));
    return 0;
}

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* The x86-64 microarchitecture level (the psABI's v1..v4) from CPUID: what glibc's dispatchers
 * choose their code by. */
static int ug_x86_level(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 1;
    bool v2 = (c & bit_SSE3) && (c & bit_SSSE3) && (c & bit_SSE4_1) && (c & bit_SSE4_2) &&
              (c & bit_POPCNT) && (c & bit_CMPXCHG16B);
    bool fma = (c & bit_FMA) != 0, avx = (c & bit_AVX) != 0, f16c = (c & bit_F16C) != 0;
    unsigned b7 = 0, c7 = 0, d7 = 0, a7 = 0;
    __get_cpuid_count(7, 0, &a7, &b7, &c7, &d7);
    bool v3 = v2 && fma && avx && f16c && (b7 & bit_AVX2) && (b7 & bit_BMI) && (b7 & bit_BMI2);
    bool v4 = v3 && (b7 & bit_AVX512F) && (b7 & bit_AVX512BW) && (b7 & bit_AVX512CD) &&
              (b7 & bit_AVX512DQ) && (b7 & bit_AVX512VL);
    return v4 ? 4 : v3 ? 3 : v2 ? 2 : 1;
}

void ug_cpu_model(char *key, size_t keylen, char *name, size_t namelen)
{
    unsigned a, b, c, d, regs[12];
    char vendor[13] = "";
    key[0] = name[0] = 0;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return;
    memcpy(vendor, &b, 4);
    memcpy(vendor + 4, &d, 4);
    memcpy(vendor + 8, &c, 4);
    unsigned family = 0;
    if (__get_cpuid(1, &a, &b, &c, &d)) {
        family = (a >> 8) & 0xf;
        if (family == 0xf) family += (a >> 20) & 0xff;
    }
    snprintf(key, keylen, "%s family %u, x86-64-v%d", vendor, family, ug_x86_level());
    if (__get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x80000004u) {
        for (unsigned i = 0; i < 3; i++)
            __get_cpuid(0x80000002u + i, &regs[4 * i], &regs[4 * i + 1], &regs[4 * i + 2],
                        &regs[4 * i + 3]);
        char brand[49];
        memcpy(brand, regs, 48);
        brand[48] = 0;
        const char *p = brand;
        while (*p == ' ') p++;
        snprintf(name, namelen, "%s", p);
        for (size_t n = strlen(name); n && name[n - 1] == ' ';) name[--n] = 0;
    }
}
#else
void ug_cpu_model(char *key, size_t keylen, char *name, size_t namelen)
{
    if (keylen) key[0] = 0;
    if (namelen) name[0] = 0;
}
#endif

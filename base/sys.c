/* sys.c - see sys.h. */
#include "sys.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static void ug_oom(size_t n)
{
    fprintf(stderr, "ulpgate: out of memory (%zu bytes)\n", n);
    exit(2);
}

void *ug_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) ug_oom(n);
    return p;
}

void *ug_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) ug_oom(n * size);
    return p;
}

void *ug_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) ug_oom(n);
    return q;
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

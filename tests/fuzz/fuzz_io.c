/* fuzz_io.c - see fuzz_io.h. */
#define _GNU_SOURCE /* memfd_create */
#include "tests/fuzz/fuzz_io.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness/inputs/values.h"

int ug_fuzz_memfd(const uint8_t *data, size_t size, char path[64])
{
    int fd = memfd_create("ulpgate-fuzz", MFD_CLOEXEC);
    if (fd < 0) ug_fuzz_fail("memfd_create failed");
    for (size_t done = 0; done < size;) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0) ug_fuzz_fail("write to the memfd failed");
        done += (size_t)w;
    }
    snprintf(path, 64, "/proc/self/fd/%d", fd);
    return fd;
}

int ug_fuzz_parse_buffer(const uint8_t *data, size_t size, int dot, float **x, float **y,
                         size_t *n, char *err, size_t errlen)
{
    char path[64];
    int fd = ug_fuzz_memfd(data, size, path);
    int rc = ug_oracle_parse_file(path, dot, x, y, n, err, errlen);
    close(fd);
    return rc;
}

void ug_fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz finding: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

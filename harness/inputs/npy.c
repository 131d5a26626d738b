/*
 * npy.c - NumPy .npy files, memory-mapped (npy.h says what is read and what is refused).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/inputs/npy.h"

static int npy_fail(char *err, size_t errlen, const char *path, const char *what, const char *arg)
{
    char buf[256];
    snprintf(buf, sizeof buf, what, arg);
    snprintf(err, errlen, "%s: %s", path, buf);
    return 2;
}

/* The value after "'key':" in the header dict; NULL if the key is missing. */
static const char *npy_key(const char *h, const char *key)
{
    char pat[32];
    snprintf(pat, sizeof pat, "'%s'", key);
    const char *p = strstr(h, pat);
    if (!p) {
        snprintf(pat, sizeof pat, "\"%s\"", key);
        if (!(p = strstr(h, pat))) return NULL;
    }
    p += strlen(pat);
    while (*p == ' ') p++;
    if (*p != ':') return NULL;
    p++;
    while (*p == ' ') p++;
    return p;
}

/* descr -> format and byte order; 0, or -1 when the dtype is not one the format table knows
 * (why says which and what to do). */
static int npy_dtype(const char *d, ug_fmt bits_fmt, ug_fmt *f, bool *big, char *why, size_t wl)
{
    char order = d[0];
    if (order != '<' && order != '>' && order != '=' && order != '|') {
        snprintf(why, wl, "dtype '%s' is not one of '<f2', '<f4', '<f8', '<u2', '|u1'", d);
        return -1;
    }
    *big = order == '>';
    const char *t = d + 1;
    if (!strcmp(t, "f2")) *f = UG_F16;
    else if (!strcmp(t, "f4")) *f = UG_F32;
    else if (!strcmp(t, "f8")) *f = UG_F64;
    else if (!strcmp(t, "u2") || !strcmp(t, "u1")) {
        int bytes = t[1] - '0';
        if (bits_fmt == UG_FMT_COUNT) {
            snprintf(why, wl, "dtype '%s' holds bit patterns: name their format with --dtype %s",
                     d, bytes == 2 ? "bf16" : "e4m3|e5m2");
            return -1;
        }
        if (ug_fmt_bytes(bits_fmt) != (size_t)bytes) {
            snprintf(why, wl, "dtype '%s' has %d-byte elements, but --dtype %s has %zu", d, bytes,
                     ug_fmt_name(bits_fmt), ug_fmt_bytes(bits_fmt));
            return -1;
        }
        *f = bits_fmt;
    } else {
        snprintf(why, wl, "dtype '%s' is not one the format table knows (float16/32/64, or "
                          "bfloat16/fp8 bit patterns as uint16/uint8 with --dtype)", d);
        return -1;
    }
    if (order == '|' && ug_fmt_bytes(*f) != 1) {
        snprintf(why, wl, "dtype '%s' has no byte order", d);
        return -1;
    }
    return 0;
}

/* Parse the header dict h into a; 0, or 2 with err set. */
static int npy_header(ug_npy *a, const char *h, ug_fmt bits_fmt, char *err, size_t errlen)
{
    const char *p = npy_key(h, "descr");
    if (!p || (*p != '\'' && *p != '"'))
        return npy_fail(err, errlen, a->path, "%s", p ? "dtype is not a simple type (structured "
                        "arrays are not read)" : "malformed header: no 'descr'");
    char q = *p++;
    size_t len = 0;
    while (p[len] && p[len] != q && len < sizeof a->descr - 1) len++;
    if (p[len] != q) return npy_fail(err, errlen, a->path, "%s", "malformed header: 'descr'");
    memcpy(a->descr, p, len);
    a->descr[len] = '\0';
    char why[200];
    if (npy_dtype(a->descr, bits_fmt, &a->fmt, &a->big_endian, why, sizeof why) != 0)
        return npy_fail(err, errlen, a->path, "%s", why);

    if (!(p = npy_key(h, "fortran_order")))
        return npy_fail(err, errlen, a->path, "%s", "malformed header: no 'fortran_order'");
    if (!strncmp(p, "True", 4))
        return npy_fail(err, errlen, a->path, "%s", "Fortran order is not read: save a "
                        "C-order array (numpy.ascontiguousarray)");
    if (strncmp(p, "False", 5))
        return npy_fail(err, errlen, a->path, "%s", "malformed header: 'fortran_order'");

    if (!(p = npy_key(h, "shape")) || *p != '(')
        return npy_fail(err, errlen, a->path, "%s", "malformed header: no 'shape'");
    p++;
    a->ndim = 0;
    a->count = 1;
    for (;;) {
        while (*p == ' ' || *p == ',') p++;
        if (*p == ')') break;
        if (*p < '0' || *p > '9')
            return npy_fail(err, errlen, a->path, "%s", "malformed header: 'shape'");
        if (a->ndim == UG_NPY_MAX_DIMS)
            return npy_fail(err, errlen, a->path, "more than %s dimensions", "8");
        errno = 0;
        char *end;
        unsigned long long d = strtoull(p, &end, 10);
        if (errno || d > SIZE_MAX / 8 || (d && a->count > SIZE_MAX / 8 / d))
            return npy_fail(err, errlen, a->path, "%s", "shape too large");
        a->shape[a->ndim++] = (size_t)d;
        a->count *= (size_t)d;
        p = end;
        if (*p != ',' && *p != ')' && *p != ' ')
            return npy_fail(err, errlen, a->path, "%s", "malformed header: 'shape'");
    }
    return 0;
}

int ug_npy_open(ug_npy *a, const char *path, ug_fmt bits_fmt, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    a->path = path;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return npy_fail(err, errlen, path, "%s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return npy_fail(err, errlen, path, "%s", "not a regular file");
    }
    size_t flen = (size_t)st.st_size;
    void *map = flen ? mmap(NULL, flen, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    close(fd);
    if (flen && map == MAP_FAILED) return npy_fail(err, errlen, path, "mmap: %s", strerror(errno));
    a->map = map;
    a->map_len = flen;
    const unsigned char *b = map;
    int rc = 2;
    if (flen < 10 || memcmp(b, "\x93NUMPY", 6) != 0) {
        npy_fail(err, errlen, path, "%s", "not a .npy file (no \\x93NUMPY magic)");
        goto fail;
    }
    int major = b[6];
    size_t hlen, hoff;
    if (major == 1) {
        hlen = (size_t)b[8] | (size_t)b[9] << 8;
        hoff = 10;
    } else if (major == 2 || major == 3) {
        if (flen < 12) {
            npy_fail(err, errlen, path, "%s", "truncated header");
            goto fail;
        }
        hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
        hoff = 12;
    } else {
        char v[8];
        snprintf(v, sizeof v, "%d", major);
        npy_fail(err, errlen, path, "format version %s.x is not read (1.0, 2.0, 3.0 are)", v);
        goto fail;
    }
    if (hlen > flen - hoff) {
        npy_fail(err, errlen, path, "%s", "truncated header");
        goto fail;
    }
    char *h = malloc(hlen + 1);
    if (!h) {
        npy_fail(err, errlen, path, "%s", "out of memory");
        goto fail;
    }
    memcpy(h, b + hoff, hlen);
    h[hlen] = '\0';
    if (!strchr(h, '{')) {
        free(h);
        npy_fail(err, errlen, path, "%s", "malformed header: no dict");
        goto fail;
    }
    rc = npy_header(a, h, bits_fmt, err, errlen);
    free(h);
    if (rc) goto fail;
    rc = 2;
    size_t need = a->count * ug_fmt_bytes(a->fmt), have = flen - hoff - hlen;
    if (have < need) {
        char msg[128];
        snprintf(msg, sizeof msg, "%zu data bytes, the shape needs %zu", have, need);
        npy_fail(err, errlen, path, "truncated: %s", msg);
        goto fail;
    }
    a->data = b + hoff + hlen;
    return 0;
fail:
    ug_npy_close(a);
    return rc;
}

void ug_npy_close(ug_npy *a)
{
    if (a->map) munmap(a->map, a->map_len);
    a->map = NULL;
    a->data = NULL;
}

double ug_npy_load(const ug_npy *a, size_t i)
{
    if (!a->big_endian) return ug_fmt_load(a->fmt, a->data, i);
    size_t w = ug_fmt_bytes(a->fmt);
    unsigned char tmp[8];
    for (size_t k = 0; k < w; k++) tmp[k] = a->data[i * w + w - 1 - k];
    return ug_fmt_load(a->fmt, tmp, 0);
}

static bool npy_native(const ug_npy *a, ug_fmt f, size_t align)
{
    static const uint16_t one = 1;
    bool little = *(const unsigned char *)&one == 1;
    return a->fmt == f && a->big_endian != little && ((uintptr_t)a->data % align) == 0;
}

const float *ug_npy_f32(const ug_npy *a)
{
    return npy_native(a, UG_F32, _Alignof(float)) ? (const float *)(const void *)a->data : NULL;
}

const double *ug_npy_f64(const ug_npy *a)
{
    return npy_native(a, UG_F64, _Alignof(double)) ? (const double *)(const void *)a->data : NULL;
}

const char *ug_npy_shape_text(const ug_npy *a, char *buf, size_t len)
{
    size_t o = 0;
    o += (size_t)snprintf(buf, len, "(");
    for (int d = 0; d < a->ndim && o < len; d++)
        o += (size_t)snprintf(buf + o, len - o, "%s%zu", d ? ", " : "", a->shape[d]);
    if (o < len) snprintf(buf + o, len - o, a->ndim == 1 ? ",)" : ")");
    return buf;
}

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

/* ---- the header: a Python dict literal, read strictly ----------------------------------------
 *
 * NumPy writes {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } padded with spaces
 * to its alignment and ended by '\n'.  Read: exactly those three keys, each once, in any order,
 * quoted either way; descr a string; fortran_order True or False; shape a tuple of
 * nonnegative integers ((), (n,), (m, n) or (m, n,)); nothing but spaces between '}' and the
 * final '\n'.  Anything else (a key missing, twice or unknown, a header whose length ends
 * inside the dict or runs into the data) is refused, naming what is wrong. */

typedef struct npy_text {
    const char *p, *end;
} npy_text;

static void npy_ws(npy_text *t)
{
    while (t->p < t->end && (*t->p == ' ' || *t->p == '\t')) t->p++;
}

static bool npy_eat(npy_text *t, char c)
{
    npy_ws(t);
    if (t->p < t->end && *t->p == c) {
        t->p++;
        return true;
    }
    return false;
}

/* A quoted string ('x' or "x", no escapes) into out (at most len - 1 characters); false when
 * there is none or it is longer. */
static bool npy_string(npy_text *t, char *out, size_t len)
{
    npy_ws(t);
    if (t->p >= t->end || (*t->p != '\'' && *t->p != '"')) return false;
    char q = *t->p++;
    size_t n = 0;
    while (t->p < t->end && *t->p != q) {
        if (*t->p == '\\' || (unsigned char)*t->p < 0x20 || n + 1 >= len) return false;
        out[n++] = *t->p++;
    }
    if (t->p >= t->end) return false;
    t->p++;
    out[n] = '\0';
    return true;
}

static bool npy_word(npy_text *t, const char *w)
{
    size_t n = strlen(w);
    npy_ws(t);
    if ((size_t)(t->end - t->p) < n || memcmp(t->p, w, n)) return false;
    t->p += n;
    return true;
}

/* The shape tuple into a's array (ndim, shape; the count's overflow refused); 0, or 2 with err
 * set. */
static int npy_shape(npy_text *t, ug_npy *a, char *err, size_t errlen)
{
    const char *path = a->array.name;
    if (!npy_eat(t, '('))
        return npy_fail(err, errlen, path, "%s", "malformed header: 'shape' is not a tuple");
    a->array.ndim = 0;
    size_t count = 1;
    bool comma = false; /* a comma after the last integer */
    for (;;) {
        npy_ws(t);
        if (npy_eat(t, ')')) break;
        if (a->array.ndim && !comma)
            return npy_fail(err, errlen, path, "%s", "malformed header: 'shape'");
        if (t->p >= t->end || *t->p < '0' || *t->p > '9')
            return npy_fail(err, errlen, path, "%s", "malformed header: 'shape' holds a "
                            "value that is not a nonnegative integer");
        if (a->array.ndim == UG_ARRAY_MAX_DIMS)
            return npy_fail(err, errlen, path, "more than %s dimensions", "8");
        unsigned long long d = 0;
        while (t->p < t->end && *t->p >= '0' && *t->p <= '9') {
            if (d > (SIZE_MAX / 8 - 9) / 10)
                return npy_fail(err, errlen, path, "%s", "shape too large");
            d = d * 10 + (unsigned long long)(*t->p++ - '0');
        }
        if (d && count > SIZE_MAX / 8 / d)
            return npy_fail(err, errlen, path, "%s", "shape too large");
        a->array.shape[a->array.ndim++] = (size_t)d;
        count *= (size_t)d;
        comma = npy_eat(t, ',');
    }
    if (a->array.ndim == 1 && !comma) /* (3) is the integer 3 in Python, not a tuple */
        return npy_fail(err, errlen, path, "%s", "malformed header: 'shape' (n) is not a "
                        "tuple: (n,)");
    return 0;
}

/* Parse the header dict h[0 .. len) into a; 0, or 2 with err set. */
static int npy_header(ug_npy *a, const char *h, size_t len, ug_fmt bits_fmt, char *err,
                      size_t errlen)
{
    const char *path = a->array.name;
    npy_text t = {h, h + len};
    bool seen[3] = {false, false, false};
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};
    if (!npy_eat(&t, '{'))
        return npy_fail(err, errlen, path, "%s", "malformed header: not a dict ('{')");
    for (;;) {
        if (npy_eat(&t, '}')) break;
        char key[32];
        if (!npy_string(&t, key, sizeof key))
            return npy_fail(err, errlen, path, "%s", t.p >= t.end
                            ? "malformed header: it ends inside the dict (the header length "
                              "is too short, or the dict is not closed)"
                            : "malformed header: a key is not a short quoted string");
        int k = 0;
        while (k < 3 && strcmp(key, keys[k])) k++;
        if (k == 3) return npy_fail(err, errlen, path, "header: unknown key '%s'", key);
        if (seen[k]) return npy_fail(err, errlen, path, "header: key '%s' given twice", key);
        seen[k] = true;
        if (!npy_eat(&t, ':'))
            return npy_fail(err, errlen, path, "malformed header: no ':' after '%s'", key);
        if (k == 0) {
            npy_ws(&t);
            if (t.p < t.end && (*t.p == '[' || *t.p == '{'))
                return npy_fail(err, errlen, path, "%s", "dtype is not a simple type "
                                "(structured arrays are not read)");
            if (!npy_string(&t, a->descr, sizeof a->descr))
                return npy_fail(err, errlen, path, "%s", "malformed header: 'descr'");
        } else if (k == 1) {
            if (npy_word(&t, "True"))
                return npy_fail(err, errlen, path, "%s", "Fortran order is not read: save a "
                                "C-order array (numpy.ascontiguousarray)");
            if (!npy_word(&t, "False"))
                return npy_fail(err, errlen, path, "%s", "malformed header: 'fortran_order'");
        } else {
            int rc = npy_shape(&t, a, err, errlen);
            if (rc) return rc;
        }
        if (npy_eat(&t, ',')) continue;
        if (npy_eat(&t, '}')) break;
        return npy_fail(err, errlen, path, "malformed header: no ',' or '}' after '%s'", key);
    }
    for (int k = 0; k < 3; k++)
        if (!seen[k]) return npy_fail(err, errlen, path, "malformed header: no '%s'", keys[k]);
    npy_ws(&t);
    if (t.p + 1 != t.end || *t.p != '\n')
        return npy_fail(err, errlen, path, "%s", "malformed header: something other than "
                        "spaces and one final newline after the dict (the header length is "
                        "wrong)");
    char why[200];
    if (npy_dtype(a->descr, bits_fmt, &a->array.fmt, &a->array.big_endian, why, sizeof why) != 0)
        return npy_fail(err, errlen, path, "%s", why);
    return 0;
}

int ug_npy_parse(ug_npy *a, const char *path, const unsigned char *b, size_t flen,
                 ug_fmt bits_fmt, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    a->array.name = path;
    if (flen < 10 || memcmp(b, "\x93NUMPY", 6) != 0)
        return npy_fail(err, errlen, path, "%s", "not a .npy file (no \\x93NUMPY magic)");
    int major = b[6];
    size_t hlen, hoff;
    if (major == 1) {
        hlen = (size_t)b[8] | (size_t)b[9] << 8;
        hoff = 10;
    } else if (major == 2 || major == 3) {
        if (flen < 12) return npy_fail(err, errlen, path, "%s", "truncated header");
        hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
        hoff = 12;
    } else {
        char v[8];
        snprintf(v, sizeof v, "%d", major);
        return npy_fail(err, errlen, path, "format version %s.x is not read (1.0, 2.0, 3.0 are)",
                        v);
    }
    if (b[7] != 0) {
        char v[16];
        snprintf(v, sizeof v, "%d.%d", major, b[7]);
        return npy_fail(err, errlen, path, "format version %s is not read (1.0, 2.0, 3.0 are)",
                        v);
    }
    if (hlen > flen - hoff) {
        char msg[128];
        snprintf(msg, sizeof msg, "the header length says %zu bytes, the file has %zu after it",
                 hlen, flen - hoff);
        return npy_fail(err, errlen, path, "truncated header: %s", msg);
    }
    int rc = npy_header(a, (const char *)b + hoff, hlen, bits_fmt, err, errlen);
    if (rc) return rc;
    size_t need = ug_array_count(&a->array) * ug_fmt_bytes(a->array.fmt);
    size_t have = flen - hoff - hlen;
    if (have != need) {
        char msg[160];
        snprintf(msg, sizeof msg, "%zu data bytes, the shape needs %zu", have, need);
        return npy_fail(err, errlen, path, have < need ? "truncated: %s"
                                                       : "%s (bytes after the data: the header's "
                                                         "length or shape is wrong)", msg);
    }
    a->array.data = b + hoff + hlen;
    ug_array_c_strides(&a->array);
    return 0;
}

int ug_npy_open(ug_npy *a, const char *path, ug_fmt bits_fmt, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    a->array.name = path;
    /* O_NONBLOCK: a FIFO's open would wait for a writer, for ever when none comes; it is
     * refused below like every file that is not regular (a regular file's reads ignore it) */
    int fd = open(path, O_RDONLY | O_NONBLOCK);
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
    static const unsigned char none[1] = {0};
    int rc = ug_npy_parse(a, path, map ? map : none, flen, bits_fmt, err, errlen);
    a->map = map;
    a->map_len = flen;
    if (rc) ug_npy_close(a);
    return rc;
}

void ug_npy_close(ug_npy *a)
{
    if (a->map) munmap(a->map, a->map_len);
    a->map = NULL;
    a->array.data = NULL;
}

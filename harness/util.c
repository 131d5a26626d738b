/* util.c - see util.h. */
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void ug_buf_vprintf(ug_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int need = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (need < 0) return;
    if (b->len + (size_t)need + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + (size_t)need + 1) cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            fprintf(stderr, "ulpgate: out of memory\n");
            exit(2);
        }
        b->s = s;
        b->cap = cap;
    }
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    b->len += (size_t)need;
}

void ug_buf_printf(ug_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ug_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void ug_buf_json_str(ug_buf *b, const char *s)
{
    ug_buf_printf(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            ug_buf_printf(b, "\\%c", *p);
        else if (*p < 0x20)
            ug_buf_printf(b, "\\u%04x", *p);
        else
            ug_buf_printf(b, "%c", *p);
    }
    ug_buf_printf(b, "\"");
}

void ug_buf_json_num(ug_buf *b, double v)
{
    /* JSON has no inf/NaN: 1e999 parses as +inf in Python and JavaScript, null marks NaN. */
    if (isnan(v))
        ug_buf_printf(b, "null");
    else if (isinf(v))
        ug_buf_printf(b, v > 0 ? "1e999" : "-1e999");
    else if (v == floor(v) && fabs(v) < 1e15)
        ug_buf_printf(b, "%.0f", v);
    else
        ug_buf_printf(b, "%.17g", v);
}

void ug_buf_free(ug_buf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

const char *ug_hex(double v, char buf[64])
{
    if (isnan(v))
        snprintf(buf, 64, "nan");
    else if (isinf(v))
        snprintf(buf, 64, v > 0 ? "inf" : "-inf");
    else
        snprintf(buf, 64, "%a", v);
    return buf;
}

const char *ug_hexf(float v, char buf[64]) { return ug_hex((double)v, buf); }

bool ug_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+') return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end) return false;
    *out = (uint64_t)v;
    return true;
}

bool ug_parse_size(const char *s, size_t *out)
{
    uint64_t v;
    if (!s || !*s) return false;
    if (s[0] == '2' && s[1] == '^') {
        long k;
        if (!ug_parse_int(s + 2, 0, 62, &k)) return false;
        *out = (size_t)1 << k;
        return true;
    }
    if (strchr(s, 'e') && strncmp(s, "0x", 2) != 0) {
        char *end;
        errno = 0;
        double d = strtod(s, &end);
        if (errno || *end || !(d >= 0) || d > 9e15 || d != floor(d)) return false;
        *out = (size_t)d;
        return true;
    }
    if (!ug_parse_u64(s, &v)) return false;
    *out = (size_t)v;
    return true;
}

bool ug_parse_int(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s) return false;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 0);
    if (errno || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

double ug_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void *ug_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "ulpgate: out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

void *ug_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "ulpgate: out of memory (%zu x %zu bytes)\n", n, size);
        exit(2);
    }
    return p;
}

bool ug_same_f32(float a, float b)
{
    uint32_t x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    return x == y || (a != a && b != b);
}

/* buf.c - see buf.h. */
#include "base/buf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"

static void ug_buf_reserve(ug_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    b->s = ug_xrealloc(b->s, cap);
    b->cap = cap;
}

void ug_buf_vprintf(ug_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int need = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (need < 0) return;
    ug_buf_reserve(b, (size_t)need);
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

void ug_buf_put(ug_buf *b, const char *s, size_t len)
{
    ug_buf_reserve(b, len);
    memcpy(b->s + b->len, s, len);
    b->len += len;
    b->s[b->len] = 0;
}

void ug_buf_clear(ug_buf *b)
{
    b->len = 0;
    if (b->s) b->s[0] = 0;
}

void ug_buf_free(ug_buf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

const char *ug_buf_str(const ug_buf *b) { return b->s ? b->s : ""; }

void ug_buf_json_str(ug_buf *b, const char *s)
{
    ug_buf_put(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            ug_buf_printf(b, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            ug_buf_printf(b, "\\u%04x", *p);
        else
            ug_buf_put(b, (const char *)p, 1);
    }
    ug_buf_put(b, "\"", 1);
}

void ug_buf_json_num(ug_buf *b, double v)
{
    if (isnan(v))
        ug_buf_printf(b, "\"nan\"");
    else if (isinf(v))
        ug_buf_printf(b, v > 0 ? "\"inf\"" : "\"-inf\"");
    else if (v == floor(v) && fabs(v) < 1e15)
        ug_buf_printf(b, "%.0f", v);
    else {
        /* the shortest of %.15g, %.16g, %.17g that reads back to the same bits (%.17g always
         * does): a value with k <= 15 significant digits prints as those k digits under %.15g
         * (%g drops the trailing zeros), so this is the shortest round trip, at most 3 tries */
        char t[40];
        for (int p = 15; p <= 17; p++) {
            snprintf(t, sizeof t, "%.*g", p, v);
            if (p == 17 || strtod(t, NULL) == v) break;
        }
        ug_buf_printf(b, "%s", t);
    }
}

const char *ug_fmt_double(double v, const char *fmt, char *buf, size_t size)
{
    if (isnan(v))
        snprintf(buf, size, "nan"); /* never "-nan": a NaN's sign is not a figure */
    else if (isinf(v))
        snprintf(buf, size, v > 0 ? "inf" : "-inf");
    else
        snprintf(buf, size, fmt, v);
    return buf;
}

const char *ug_hex(double v, char buf[64]) { return ug_fmt_double(v, "%a", buf, 64); }

const char *ug_hexf(float v, char buf[64]) { return ug_hex((double)v, buf); }

/*
 * buf.h - growable strings, JSON text output, hex-float formatting.
 *
 * JSON numbers: finite values as %.17g (integers below 1e15 without a fraction); the non-finite
 * ones as the strings "inf", "-inf" and "nan", which every JSON reader keeps (a bare 1e999 would
 * be read as 1.797e308 by some) and which ug_json_num_of (base/json.h) reads back.
 */
#ifndef UG_BUF_H
#define UG_BUF_H

#include <stdarg.h>
#include <stddef.h>

/* A growable NUL-terminated string.  Zero-initialise; ug_buf_free() when done.  Out of memory
 * ends the process with exit 2 and a message (nothing useful can go on without it). */
typedef struct ug_buf {
    char *s;
    size_t len, cap;
} ug_buf;

void ug_buf_printf(ug_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ug_buf_vprintf(ug_buf *b, const char *fmt, va_list ap);
void ug_buf_put(ug_buf *b, const char *s, size_t len);
void ug_buf_clear(ug_buf *b);
void ug_buf_free(ug_buf *b);
/* The text, "" when nothing was written. */
const char *ug_buf_str(const ug_buf *b);

void ug_buf_json_str(ug_buf *b, const char *s); /* "s" with JSON escapes */
void ug_buf_json_num(ug_buf *b, double v);      /* see above: "inf", "-inf", "nan" */

/* Hex-float of v ("0x1.8p+0", "inf", "-inf", "nan"), and of a binary32 value. */
/* v printed with fmt (one double conversion), NaN as "nan" and infinities as "inf"/"-inf". */
const char *ug_fmt_double(double v, const char *fmt, char *buf, size_t size);
const char *ug_hex(double v, char buf[64]);
const char *ug_hexf(float v, char buf[64]);

#endif

/* util.h - small shared helpers: growable strings, number formatting and parsing, clocks. */
#ifndef UG_UTIL_H
#define UG_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable NUL-terminated string.  Zero-initialise; ug_buf_free() when done. */
typedef struct ug_buf {
    char *s;
    size_t len, cap;
} ug_buf;

void ug_buf_printf(ug_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ug_buf_vprintf(ug_buf *b, const char *fmt, va_list ap);
void ug_buf_json_str(ug_buf *b, const char *s); /* "s" with JSON escapes */
void ug_buf_json_num(ug_buf *b, double v);      /* %.17g; +-1e999 for +-inf, null for NaN */
void ug_buf_free(ug_buf *b);

/* Hex-float of v ("0x1.8p+0", "inf", "-inf", "nan"), and of a binary32 value. */
const char *ug_hex(double v, char buf[64]);
const char *ug_hexf(float v, char buf[64]);

/* Whole-string parses: decimal or 0x-hex unsigned, and signed/unsigned with range checks.
 * Return false on anything malformed. */
bool ug_parse_u64(const char *s, uint64_t *out);
bool ug_parse_size(const char *s, size_t *out); /* also accepts 2^k and 1e6 forms */
bool ug_parse_int(const char *s, long lo, long hi, long *out);

/* Bitwise equal binary32 values, or both NaN. */
bool ug_same_f32(float a, float b);

double ug_now_s(void); /* monotonic seconds */
void *ug_xmalloc(size_t n);          /* malloc or exit(2) with a message: out of memory */
void *ug_xcalloc(size_t n, size_t size);

#endif

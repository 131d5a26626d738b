/*
 * parse.h - whole-string number parsing for command lines and files.  Each returns false on
 * anything malformed (empty, trailing characters, out of range) and leaves *out unchanged.
 */
#ifndef UG_PARSE_H
#define UG_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

bool ug_parse_u64(const char *s, uint64_t *out);           /* decimal or 0x hex, no sign */
bool ug_parse_size(const char *s, size_t *out);            /* also 2^k and 1e6 forms */
bool ug_parse_int(const char *s, long lo, long hi, long *out);
bool ug_parse_double(const char *s, double *out);          /* strtod: decimal, hex, inf, nan */
/* A memory size: a number >= 0 (decimal, with a fraction if wanted) and an optional unit, case
 * aside: B; K, M, G, T or KiB, MiB, GiB, TiB (powers of 1024); KB, MB, GB, TB (powers of
 * 1000).  "1GB", "512MiB", "2G", "1.5g", "4096".  Blanks, signs and other units are refused. */
bool ug_parse_bytes(const char *s, double *out);

/* Levenshtein distance (insertions, deletions, substitutions), for "did you mean" messages;
 * strings longer than 255 give the longer length. */
size_t ug_edit_distance(const char *a, const char *b);

#endif

/*
 * values.h - reading binary32 values from text: the input files of `ulpgate oracle` (and, later,
 * of the corpus).
 *
 * File format (text; the path "-" reads stdin):
 *   - one record per line: one value (sum files) or two (dot files: x and y), separated by
 *     blanks (space, tab, CR, VT, FF) or by one comma with optional blanks around it;
 *   - '#' starts a comment that runs to the end of the line; lines with no value (blank, or a
 *     comment alone) are skipped; an empty file holds zero records;
 *   - a value is what strtof reads in the C locale, as a whole token: decimal or C99 hex-float
 *     with an optional sign, "inf", "infinity" or "nan" in any case.  A decimal that is not a
 *     binary32 number is rounded to nearest, ties to even (0.1 -> 0x1.99999ap-4); underflow
 *     gives a subnormal or a zero.
 * Limits: binary32 values only; a finite decimal beyond the binary32 range (1e39) is an error,
 * not an infinity.  Lines may be any length and files hold as many records as memory allows.
 * Errors: the file functions return 2 with one line of text, "FILE:LINE: what is wrong" for a
 * malformed line (a wrong number of values, a misplaced or trailing comma, a token that is not
 * a number, a value that overflows binary32, a NUL byte; or out of memory) or "FILE: why" when
 * the file cannot be opened or read; nothing stays allocated then.
 */
#ifndef UG_VALUES_H
#define UG_VALUES_H

#include <stddef.h>

/* One value: blanks (space, tab) before it and blanks or a line end after it are allowed.
 * Returns 0 with *out set, or -1 with why ("empty value", "'abc' is not a number", "'1.5x' is
 * not a number (unexpected 'x')", "'1e39' overflows binary32 (largest finite: ...)"),
 * leaving *out unchanged. */
int ug_oracle_parse_value(const char *text, float *out, char *why, size_t whylen);

/* A whole file in the format above (dot != 0: two values per record).  Returns 0 with *x (and
 * *y for a dot; else *y = NULL) malloc'ed, NULL when *n == 0, and *n the number of records; or
 * 2 with the message in err (see Errors above).  Cost: one pass over the file. */
int ug_oracle_parse_file(const char *path, int dot, float **x, float **y, size_t *n, char *err,
                         size_t errlen);

#endif

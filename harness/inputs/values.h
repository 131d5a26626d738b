/*
 * values.h - reading binary32 values from text: the input files of `ulpgate oracle` and of the
 * corpus (harness/inputs/corpus.h gives meaning to the header lines; `ulpgate oracle` ignores them).
 *
 * File format (text; the path "-" reads stdin):
 *   - lines end at LF, CR LF or a lone CR; a UTF-8 byte order mark before the first line is
 *     skipped; a line holds at most UG_VALUES_LINE_MAX bytes and no control byte but tab, VT and
 *     FF (a NUL or another control byte is an error at once: binary input is not read through);
 *   - one record per line: one value (sum files), two (dot files: x and y) or three (a
 *     LayerNorm's x, w and b: the third kept in z), separated by
 *     blanks (space, tab, CR, VT, FF) or by one comma with optional blanks around it;
 *   - '#' starts a comment that runs to the end of the line; lines with no value (blank, or a
 *     comment alone) are skipped; an empty file holds zero records;
 *   - header lines: before the first record, a line "# key: value" (blanks allowed before and
 *     after '#'; key = a lowercase letter, then lowercase letters, digits, '_' or '-', directly
 *     followed by ':') is a header: its key and its value (blanks trimmed) are kept with its
 *     line number, in file order.  Every other '#' line is a comment, and so is any line after
 *     the first record ("## note: x" is a comment: its key would start with '#');
 *   - a value is what strtof reads in the C locale, as a whole token: decimal or C99 hex-float
 *     with an optional sign, "inf", "infinity" or "nan" in any case.  A decimal that is not a
 *     binary32 number is rounded to nearest, ties to even (0.1 -> 0x1.99999ap-4); underflow
 *     gives a subnormal or a zero.
 * Binary64 files: a file whose headers hold "# format: f64" (the corpus's key, corpus.h) is
 * read in binary64: a value is what strtod reads (a decimal rounded to nearest binary64), kept
 * in x64 (and y64), and x (y) hold it rounded to binary32 (an infinity beyond its range); a
 * finite decimal beyond binary64's range (1e309) is the error there.
 * Limits: binary32 values only (but for binary64 files); a finite decimal beyond the binary32
 * range (1e39) is an error, not an infinity.  A header's key is at most UG_VALUES_KEY_MAX - 1 characters and its value at
 * most UG_VALUES_HEADER_MAX - 1 (longer: an error); a line at most UG_VALUES_LINE_MAX bytes
 * ("FILE:LINE: line too long"); files hold as many records and headers as memory allows.
 * Errors: the file functions return 2 with one line of text, "FILE:LINE: what is wrong" for a
 * malformed line (a wrong number of values, a misplaced or trailing comma, a token that is not
 * a number, a value that overflows binary32, a NUL or other control byte, a line too long; or
 * out of memory; text from the file is shown with its control bytes escaped) or "FILE: why" when
 * the file cannot be opened or read; nothing stays allocated then.
 */
#ifndef UG_VALUES_H
#define UG_VALUES_H

#include <stddef.h>

enum { UG_VALUES_KEY_MAX = 32, UG_VALUES_HEADER_MAX = 1024, UG_VALUES_LINE_MAX = 4096 };

/* One value: blanks (space, tab) before it and blanks or a line end after it are allowed.
 * Returns 0 with *out set, or -1 with why ("empty value", "'abc' is not a number", "'1.5x' is
 * not a number (unexpected 'x')", "'1e39' overflows binary32 (largest finite: ...)", a
 * hexadecimal value with more bits than binary32 holds: "'0x1.000001p+0' is not a binary32
 * value ..."),
 * leaving *out unchanged. */
int ug_oracle_parse_value(const char *text, float *out, char *why, size_t whylen);

/* A whole file in the format above (dot != 0: two values per record).  Returns 0 with *x (and
 * *y for a dot; else *y = NULL) malloc'ed, NULL when *n == 0, and *n the number of records; or
 * 2 with the message in err (see Errors above).  Cost: one pass over the file. */
int ug_oracle_parse_file(const char *path, int dot, float **x, float **y, size_t *n, char *err,
                         size_t errlen);

/* A header line "# key: value" (see the format above). */
typedef struct ug_values_header {
    char key[UG_VALUES_KEY_MAX];
    char value[UG_VALUES_HEADER_MAX];
    size_t line;
} ug_values_header;

/* A whole file: its records and header lines. */
typedef struct ug_values {
    float *x, *y, *z;           /* x[n]; y[n] when arity is 2 or 3, z[n] when 3, else NULL
                                   (NULL when n == 0) */
    double *x64, *y64, *z64;    /* a binary64 file (above): the values as read; else NULL */
    size_t n;
    int arity;                  /* values per record: 1, 2 or 3 (0: no record) */
    size_t first_record_line;   /* line of the first record (0: none) */
    ug_values_header *headers;  /* n_headers of them, in file order (NULL when none) */
    size_t n_headers;
} ug_values;

/* Read path ("-": stdin) into *v.  arity 1 or 2: every record has that many values (the
 * messages of ug_oracle_parse_file); arity 0: as many as the first record has (1 to 3), and
 * every record the same ("FILE:LINE: expected 1 value as on line 4, found 2").  Returns 0, or 2
 * with "FILE:LINE: what is wrong" / "FILE: why" in err and *v empty.  ug_values_free releases.
 * Cost: one pass over the file. */
int ug_values_read(const char *path, int arity, ug_values *v, char *err, size_t errlen);
/* The same, its arrays sized for `records` records up front (0: grown by doubling): a caller
 * that counted them (ug_values_head's reader, a lint pass) allocates once, never twice n. */
int ug_values_read_sized(const char *path, int arity, size_t records, ug_values *v, char *err,
                         size_t errlen);
void ug_values_free(ug_values *v);

/* A line before the first record: its text (comment included, the byte order mark taken off),
 * and the header it is (NULL for a comment or a blank line). */
typedef int (*ug_values_head_fn)(void *ctx, size_t line, const char *text,
                                 const ug_values_header *h);
/* The head of path (no "-"): each line before its first record, in order, through fn, which
 * stops the reading by returning nonzero.  Reads no further than the first record, whose line
 * goes to *first_record (0: the file holds none), and keeps nothing: O(head) time, O(1)
 * memory, however long the file (a corpus file is judged by its head before its values are
 * read, harness/inputs/corpus.h).  Returns 0, fn's nonzero value, or 2 with "FILE:LINE: what"
 * / "FILE: why" in err for a malformed line of the head (as ug_values_read says it). */
int ug_values_head(const char *path, ug_values_head_fn fn, void *ctx, size_t *first_record,
                   char *err, size_t errlen);

#endif

/*
 * values.c - reading binary32 values from text (values.h: the format, its limits, its errors).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "base/escape.h"
#include "base/sys.h"
#include "harness/inputs/values.h"

/* Whether text (blanks skipped) is a hexadecimal literal: [+-]0x... */
static bool ug_is_hex_literal(const char *text)
{
    if (*text == '+' || *text == '-') text++;
    return text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
}

/* One binary32 value; exact_hex: a hexadecimal literal must be a binary32 value as written (a
 * decimal one is rounded to nearest, as a C compiler rounds 0.1f; a hexadecimal one is how a
 * file writes a value exactly, and 0x1.000001p+0 rounded silently would test another input). */
static int ug_parse_value32(const char *text, float *out, bool exact_hex, char *why, size_t whylen)
{
    while (*text == ' ' || *text == '\t')
        text++;
    if (!*text) {
        snprintf(why, whylen, "empty value");
        return -1;
    }
    char *end, shown[96], shown_end[96];
    errno = 0;
    float v = strtof(text, &end);
    if (end == text) {
        snprintf(why, whylen, "'%s' is not a number", ug_escape(text, shown, sizeof shown));
        return -1;
    }
    const char *rest = end;
    while (*rest == ' ' || *rest == '\t' || *rest == '\r' || *rest == '\n')
        rest++;
    if (*rest) {
        snprintf(why, whylen, "'%s' is not a number (unexpected '%s')",
                 ug_escape(text, shown, sizeof shown), ug_escape(end, shown_end, sizeof shown_end));
        return -1;
    }
    if (errno == ERANGE && isinf(v)) {
        snprintf(why, whylen, "'%.*s' overflows binary32 (largest finite: 0x1.fffffep+127)",
                 (int)(end - text), text);
        return -1;
    }
    if (exact_hex && ug_is_hex_literal(text)) {
        long double wide = strtold(text, NULL);
        if (!isnan(v) && (long double)v != wide) {
            snprintf(why, whylen, "'%.*s' is not a binary32 value: a hexadecimal value is read "
                     "exactly, and this one has more significant bits than binary32 holds "
                     "(nearest binary32 value %a); write that, or the value in decimal",
                     (int)(end - text), text, (double)v);
            return -1;
        }
    }
    *out = v;
    return 0;
}

int ug_oracle_parse_value(const char *text, float *out, char *why, size_t whylen)
{
    return ug_parse_value32(text, out, true, why, whylen);
}

/* The same in binary64 (a "# format: f64" file, values.h): strtod, overflow past DBL_MAX. */
static int parse_value64(const char *text, double *out, char *why, size_t whylen)
{
    while (*text == ' ' || *text == '\t')
        text++;
    float probe;
    char shown[96];
    errno = 0;
    char *end;
    double v = strtod(text, &end);
    if (errno == ERANGE && isinf(v)) {
        snprintf(why, whylen, "'%s' overflows binary64 (largest finite: 0x1.fffffffffffffp+1023)",
                 ug_escape(text, shown, sizeof shown));
        return -1;
    }
    /* the syntax checks and their messages are binary32's (a binary32 overflow is no error) */
    if (ug_parse_value32(text, &probe, false, why, whylen) != 0 && !strstr(why, "overflows"))
        return -1;
    *out = v;
    return 0;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Splits a comment-free line into at most 3 value tokens (NUL-terminated in place), separated
 * by blanks or one comma.  Returns the count, or -1 with why for a misplaced comma. */
static int split_values(char *line, char *tok[3], char *why, size_t whylen)
{
    int ntok = 0, comma = 0;
    char *p = line;
    for (;;) {
        while (is_blank(*p))
            p++;
        if (!*p)
            break;
        if (*p == ',') {
            if (ntok == 0 || comma) {
                snprintf(why, whylen, "misplaced comma");
                return -1;
            }
            comma = 1;
            p++;
            continue;
        }
        char *start = p;
        while (*p && !is_blank(*p) && *p != ',')
            p++;
        if (ntok < 3)
            tok[ntok] = start;
        ntok++;
        comma = 0;
        if (*p == ',') {
            *p = '\0';
            comma = 1;
            p++;
        } else if (*p) {
            *p++ = '\0';
        }
    }
    if (comma) {
        snprintf(why, whylen, "trailing comma");
        return -1;
    }
    return ntok;
}

static int push_value64(double **v, size_t *cap, size_t n, double value, size_t first)
{
    if (n == *cap) {
        size_t nc = *cap ? 2 * *cap : first ? first : 1024;
        double *nv = realloc(*v, nc * sizeof *nv);
        if (!nv)
            return -1;
        *v = nv;
        *cap = nc;
    }
    (*v)[n] = value;
    return 0;
}

static int push_value(float **v, size_t *cap, size_t n, float value, size_t first)
{
    if (n == *cap) {
        size_t nc = *cap ? 2 * *cap : first ? first : 1024;
        float *nv = realloc(*v, nc * sizeof *nv);
        if (!nv)
            return -1;
        *v = nv;
        *cap = nc;
    }
    (*v)[n] = value;
    return 0;
}

/* A header line "# key: value" (values.h), or 0 when line is not one.  On a header, fills h
 * (line number aside) and returns 1; returns -1 with why when the key or value is too long. */
static int parse_header(const char *line, ug_values_header *h, char *why, size_t whylen)
{
    const char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p++ != '#')
        return 0;
    while (*p == ' ' || *p == '\t')
        p++;
    const char *key = p;
    if (!(*p >= 'a' && *p <= 'z'))
        return 0;
    while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-')
        p++;
    if (*p != ':')
        return 0;
    size_t klen = (size_t)(p - key);
    if (klen >= UG_VALUES_KEY_MAX) {
        snprintf(why, whylen, "header key '%.*s...' longer than %d characters", 16, key,
                 UG_VALUES_KEY_MAX - 1);
        return -1;
    }
    p++;
    while (is_blank(*p))
        p++;
    size_t vlen = strlen(p);
    while (vlen && is_blank(p[vlen - 1]))
        vlen--;
    if (vlen >= UG_VALUES_HEADER_MAX) {
        snprintf(why, whylen, "header '%.*s' has a value longer than %d characters", (int)klen,
                 key, UG_VALUES_HEADER_MAX - 1);
        return -1;
    }
    memcpy(h->key, key, klen);
    h->key[klen] = '\0';
    memcpy(h->value, p, vlen);
    h->value[vlen] = '\0';
    return 1;
}

static int push_header(ug_values *v, size_t *cap, const ug_values_header *h)
{
    if (v->n_headers == *cap) {
        size_t nc = *cap ? 2 * *cap : 8;
        ug_values_header *nh = realloc(v->headers, nc * sizeof *nh);
        if (!nh)
            return -1;
        v->headers = nh;
        *cap = nc;
    }
    v->headers[v->n_headers++] = *h;
    return 0;
}

/* The next line of f into buf (NUL-terminated, without its line end), lineno counted: a line
 * ends at LF, CR LF or a lone CR.  Returns its length, -1 at the end of the file, or -2 with why
 * for a line that is too long or holds a control byte (read no further: /dev/zero fails on its
 * first byte, a file with no line end after UG_VALUES_LINE_MAX bytes), -3 on a read error.
 * Cost: one getc per byte. */
static long ug_read_line(FILE *f, char *buf, char *why, size_t whylen)
{
    size_t len = 0;
    int c = getc(f);
    if (c == EOF) return ferror(f) ? -3 : -1;
    for (; c != EOF; c = getc(f)) {
        if (c == '\n') break;
        if (c == '\r') {
            int d = getc(f);
            if (d != '\n' && d != EOF) ungetc(d, f);
            break;
        }
        if ((c < 0x20 && c != '\t' && c != '\v' && c != '\f') || c == 0x7f) {
            if (c == 0)
                snprintf(why, whylen, "NUL byte (not a text file?)");
            else
                snprintf(why, whylen, "control byte 0x%02x at column %zu (not a text file?)", c,
                         len + 1);
            return -2;
        }
        if (len == UG_VALUES_LINE_MAX) {
            snprintf(why, whylen, "line too long (more than %d bytes)", UG_VALUES_LINE_MAX);
            return -2;
        }
        buf[len++] = (char)c;
    }
    if (c == EOF && ferror(f)) return -3;
    buf[len] = '\0';
    return (long)len;
}

void ug_values_free(ug_values *v)
{
    free(v->x);
    free(v->y);
    free(v->z);
    free(v->x64);
    free(v->y64);
    free(v->z64);
    free(v->headers);
    memset(v, 0, sizeof *v);
}

/* Whether a comment-free line holds a value token (a record), as split_values would see it. */
static int holds_value(const char *line)
{
    for (; *line; line++)
        if (!is_blank(*line))
            return 1;
    return 0;
}

int ug_values_head(const char *path, ug_values_head_fn fn, void *ctx, size_t *first_record,
                   char *err, size_t errlen)
{
    *first_record = 0;
    char opened[128];
    FILE *f = ug_fopen_bounded(path, opened, sizeof opened);
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, opened);
        return 2;
    }
    char line[UG_VALUES_LINE_MAX + 1], why[160];
    size_t lineno = 0;
    int rc = 0;
    while (rc == 0) {
        errno = 0;
        long len = ug_read_line(f, line, why, sizeof why);
        if (len == -1)
            break;
        if (len == -3) {
            snprintf(err, errlen, "%s: read error: %s", path, strerror(errno ? errno : EIO));
            rc = 2;
            break;
        }
        lineno++;
        if (len == -2) {
            snprintf(err, errlen, "%s:%zu: %s", path, lineno, why);
            rc = 2;
            break;
        }
        if (lineno == 1 && len >= 3 && memcmp(line, "\xef\xbb\xbf", 3) == 0) memmove(line, line + 3, (size_t)len - 2);
        ug_values_header h;
        int hr = parse_header(line, &h, why, sizeof why);
        if (hr < 0) {
            snprintf(err, errlen, "%s:%zu: %s", path, lineno, why);
            rc = 2;
            break;
        }
        if (hr == 0) {
            char *hash = strchr(line, '#'), keep = 0;
            if (hash)
                keep = *hash, *hash = '\0';
            int record = holds_value(line);
            if (hash)
                *hash = keep;
            if (record) {
                *first_record = lineno;
                break;
            }
        }
        h.line = lineno;
        rc = fn(ctx, lineno, line, hr > 0 ? &h : NULL);
    }
    if (f != stdin) fclose(f);
    return rc;
}

int ug_values_read(const char *path, int arity, ug_values *v, char *err, size_t errlen)
{
    return ug_values_read_sized(path, arity, 0, v, err, errlen);
}

int ug_values_read_sized(const char *path, int arity, size_t records, ug_values *v, char *err,
                         size_t errlen)
{
    int is_stdin = strcmp(path, "-") == 0;
    char opened[128];
    FILE *f = ug_fopen_bounded(path, opened, sizeof opened); /* "-": stdin */
    char *line = malloc(UG_VALUES_LINE_MAX + 1);
    size_t cap = 0, ycap = 0, zcap = 0, cap64 = 0, ycap64 = 0, zcap64 = 0, hcap = 0, lineno = 0;
    int rc = 2, wide = 0; /* wide: a binary64 file (values.h), known at its first record */
    memset(v, 0, sizeof *v);
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, opened);
        free(line);
        return 2;
    }
    if (!line) {
        snprintf(err, errlen, "%s: out of memory", path);
        goto out;
    }
    for (;;) {
        char *tok[3], why[160];
        errno = 0;
        long len = ug_read_line(f, line, why, sizeof why);
        if (len == -1) break;
        if (len == -3) {
            snprintf(err, errlen, "%s: read error: %s", path, strerror(errno ? errno : EIO));
            goto out;
        }
        lineno++;
        if (len == -2) {
            snprintf(err, errlen, "%s:%zu: %s", path, lineno, why);
            goto out;
        }
        /* a UTF-8 byte order mark before the first line is not part of it */
        if (lineno == 1 && len >= 3 && memcmp(line, "\xef\xbb\xbf", 3) == 0) memmove(line, line + 3, (size_t)len - 2);
        if (v->n == 0) {
            ug_values_header h;
            int hr = parse_header(line, &h, why, sizeof why);
            if (hr < 0) {
                snprintf(err, errlen, "%s:%zu: %s", path, lineno, why);
                goto out;
            }
            h.line = lineno;
            if (hr > 0 && push_header(v, &hcap, &h) != 0) {
                snprintf(err, errlen, "%s:%zu: out of memory", path, lineno);
                goto out;
            }
            if (hr > 0)
                continue;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        int ntok = split_values(line, tok, why, sizeof why);
        if (ntok == 0)
            continue;
        if (ntok < 0) {
            snprintf(err, errlen, "%s:%zu: %s", path, lineno, why);
            goto out;
        }
        if (arity == 0 && v->n == 0 && ntok >= 1 && ntok <= 3) {
            v->arity = ntok;
            v->first_record_line = lineno;
        }
        int want = arity ? arity : v->arity ? v->arity : 1;
        if (ntok != want) {
            if (arity)
                snprintf(err, errlen, "%s:%zu: expected %s, found %d values", path, lineno,
                         arity == 2 ? "2 values (x y) for --op dot" : "1 value for --op sum",
                         ntok);
            else if (v->n == 0)
                snprintf(err, errlen, "%s:%zu: expected 1 to 3 values, found %d", path, lineno,
                         ntok);
            else
                snprintf(err, errlen, "%s:%zu: expected %d value%s as on line %zu, found %d",
                         path, lineno, want, want == 1 ? "" : "s", v->first_record_line, ntok);
            goto out;
        }
        if (arity && v->n == 0) {
            v->arity = arity;
            v->first_record_line = lineno;
        }
        if (v->n == 0)
            for (size_t i = 0; i < v->n_headers; i++)
                wide |= !strcmp(v->headers[i].key, "format") && !strcmp(v->headers[i].value, "f64");
        float val[3];
        double val64[3];
        for (int t = 0; t < ntok; t++) {
            int bad = wide ? parse_value64(tok[t], &val64[t], why, sizeof why)
                           : ug_oracle_parse_value(tok[t], &val[t], why, sizeof why);
            if (bad != 0) {
                snprintf(err, errlen, "%s:%zu: %s", path, lineno, why);
                goto out;
            }
            if (wide)
                val[t] = (float)val64[t];
        }
        if ((wide && (push_value64(&v->x64, &cap64, v->n, val64[0], records) != 0 ||
                      (want >= 2 && push_value64(&v->y64, &ycap64, v->n, val64[1], records) != 0) ||
                      (want == 3 && push_value64(&v->z64, &zcap64, v->n, val64[2], records) != 0))) ||
            push_value(&v->x, &cap, v->n, val[0], records) != 0 ||
            (want >= 2 && push_value(&v->y, &ycap, v->n, val[1], records) != 0) ||
            (want == 3 && push_value(&v->z, &zcap, v->n, val[2], records) != 0)) {
            snprintf(err, errlen, "%s:%zu: out of memory", path, lineno);
            goto out;
        }
        v->n++;
    }
    rc = 0;
out:
    free(line);
    if (rc != 0)
        ug_values_free(v);
    if (!is_stdin)
        fclose(f);
    return rc;
}

int ug_oracle_parse_file(const char *path, int dot, float **x, float **y, size_t *n, char *err,
                         size_t errlen)
{
    ug_values v;
    if (ug_values_read(path, dot ? 2 : 1, &v, err, errlen) != 0)
        return 2;
    if (v.x64) { /* its binary32 copies would be rounded: refused, not read wrong */
        snprintf(err, errlen, "%s: a binary64 file (# format: f64): this reads binary32 values",
                 path);
        ug_values_free(&v);
        return 2;
    }
    *x = v.x;
    *y = dot ? v.y : NULL;
    *n = v.n;
    free(v.headers);
    return 0;
}

/*
 * values.c - reading binary32 values from text (values.h: the format, its limits, its errors).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "values.h"

int ug_oracle_parse_value(const char *text, float *out, char *why, size_t whylen)
{
    while (*text == ' ' || *text == '\t')
        text++;
    if (!*text) {
        snprintf(why, whylen, "empty value");
        return -1;
    }
    char *end;
    errno = 0;
    float v = strtof(text, &end);
    if (end == text) {
        snprintf(why, whylen, "'%s' is not a number", text);
        return -1;
    }
    const char *rest = end;
    while (*rest == ' ' || *rest == '\t' || *rest == '\r' || *rest == '\n')
        rest++;
    if (*rest) {
        snprintf(why, whylen, "'%s' is not a number (unexpected '%s')", text, end);
        return -1;
    }
    if (errno == ERANGE && isinf(v)) {
        snprintf(why, whylen, "'%.*s' overflows binary32 (largest finite: 0x1.fffffep+127)",
                 (int)(end - text), text);
        return -1;
    }
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

static int push_value(float **v, size_t *cap, size_t n, float value)
{
    if (n == *cap) {
        size_t nc = *cap ? 2 * *cap : 1024;
        float *nv = realloc(*v, nc * sizeof *nv);
        if (!nv)
            return -1;
        *v = nv;
        *cap = nc;
    }
    (*v)[n] = value;
    return 0;
}

int ug_oracle_parse_file(const char *path, int dot, float **x, float **y, size_t *n, char *err,
                         size_t errlen)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "r");
    char *line = NULL;
    size_t linecap = 0, cap = 0, count = 0, lineno = 0;
    float *xs = NULL, *ys = NULL;
    size_t ycap = 0;
    int rc = 2;
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return 2;
    }
    for (;;) {
        errno = 0;
        ssize_t len = getline(&line, &linecap, f);
        if (len < 0) {
            if (ferror(f)) {
                snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
                goto out;
            }
            break;
        }
        lineno++;
        if (memchr(line, '\0', (size_t)len)) {
            snprintf(err, errlen, "%s:%zu: NUL byte (not a text file?)", path, lineno);
            goto out;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *tok[3], why[160];
        int ntok = split_values(line, tok, why, sizeof why);
        if (ntok == 0)
            continue;
        if (ntok < 0) {
            snprintf(err, errlen, "%s:%zu: %s", path, lineno, why);
            goto out;
        }
        if (ntok != (dot ? 2 : 1)) {
            snprintf(err, errlen, "%s:%zu: expected %s, found %d values", path, lineno,
                     dot ? "2 values (x y) for --op dot" : "1 value for --op sum", ntok);
            goto out;
        }
        float v[2];
        for (int t = 0; t < ntok; t++)
            if (ug_oracle_parse_value(tok[t], &v[t], why, sizeof why) != 0) {
                snprintf(err, errlen, "%s:%zu: %s", path, lineno, why);
                goto out;
            }
        if (push_value(&xs, &cap, count, v[0]) != 0 ||
            (dot && push_value(&ys, &ycap, count, v[1]) != 0)) {
            snprintf(err, errlen, "%s:%zu: out of memory", path, lineno);
            goto out;
        }
        count++;
    }
    *x = xs;
    *y = dot ? ys : NULL;
    *n = count;
    xs = ys = NULL;
    rc = 0;
out:
    free(line);
    free(xs);
    free(ys);
    if (!is_stdin)
        fclose(f);
    return rc;
}

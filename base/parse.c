/* parse.c - see parse.h. */
#include "base/parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool ug_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ') return false;
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

bool ug_parse_bytes(const char *s, double *out)
{
    if (!s || !(*s >= '0' && *s <= '9')) return false;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || !isfinite(v) || strpbrk(s, "xX")) return false; /* no hex-float sizes */
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"", 1},         {"b", 1},          {"k", 0x1p10},     {"m", 0x1p20},
                 {"g", 0x1p30},   {"t", 0x1p40},     {"kib", 0x1p10},   {"mib", 0x1p20},
                 {"gib", 0x1p30}, {"tib", 0x1p40},   {"kb", 1e3},       {"mb", 1e6},
                 {"gb", 1e9},     {"tb", 1e12}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcasecmp(end, units[i].unit) == 0) {
            *out = v * units[i].scale;
            return true;
        }
    return false;
}

bool ug_parse_int(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s || *s == ' ') return false;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 0);
    if (errno || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

bool ug_parse_double(const char *s, double *out)
{
    if (!s || !*s || *s == ' ') return false;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (*end || (errno == ERANGE && isinf(v))) return false;
    *out = v;
    return true;
}

size_t ug_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 255 || lb > 255) return la > lb ? la : lb;
    size_t row[256];
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

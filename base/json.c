/* json.c - see json.h.  A recursive-descent parser over the whole text. */
#include "base/json.h"

#include "base/escape.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/sys.h"
#include "base/parse.h"

enum { UG_JSON_MAX_DEPTH = 64 };

typedef struct {
    const char *s, *end;
    const char *start;
    char *err;
    size_t errlen;
    bool failed;
} ug_jp;

static void ug_jp_fail(ug_jp *p, const char *what)
{
    if (p->failed) return;
    p->failed = true;
    int line = 1, col = 1;
    for (const char *c = p->start; c < p->s && c < p->end; c++) {
        if (*c == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    snprintf(p->err, p->errlen, "line %d, column %d: %s", line, col, what);
}

static void ug_jp_ws(ug_jp *p)
{
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
        p->s++;
}

static ug_json *ug_json_new(ug_json_type t)
{
    ug_json *v = ug_xcalloc(1, sizeof *v);
    v->type = t;
    return v;
}

static void ug_json_push(ug_json *parent, ug_json *child)
{
    if ((parent->count & (parent->count - 1)) == 0) /* 0, 1, 2, 4, ...: grow to the next power */
        parent->items = ug_xrealloc(parent->items, (parent->count ? 2 * parent->count : 1) * sizeof *parent->items);
    parent->items[parent->count++] = child;
}

static void ug_utf8_put(char **o, unsigned cp)
{
    if (cp < 0x80) {
        *(*o)++ = (char)cp;
    } else if (cp < 0x800) {
        *(*o)++ = (char)(0xc0 | (cp >> 6));
        *(*o)++ = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        *(*o)++ = (char)(0xe0 | (cp >> 12));
        *(*o)++ = (char)(0x80 | ((cp >> 6) & 0x3f));
        *(*o)++ = (char)(0x80 | (cp & 0x3f));
    } else {
        *(*o)++ = (char)(0xf0 | (cp >> 18));
        *(*o)++ = (char)(0x80 | ((cp >> 12) & 0x3f));
        *(*o)++ = (char)(0x80 | ((cp >> 6) & 0x3f));
        *(*o)++ = (char)(0x80 | (cp & 0x3f));
    }
}

static int ug_hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

/* A string at p->s (on the opening quote); returns it malloc'ed, decoded. */
static char *ug_jp_string(ug_jp *p)
{
    p->s++;
    const char *q = p->s;
    while (q < p->end && *q != '"') q += *q == '\\' && q + 1 < p->end ? 2 : 1;
    if (q >= p->end) {
        ug_jp_fail(p, "unterminated string");
        return NULL;
    }
    char *out = ug_xmalloc((size_t)(q - p->s) + 1), *o = out;
    while (p->s < q) {
        unsigned char c = (unsigned char)*p->s;
        if (c < 0x20) {
            ug_jp_fail(p, "control character in a string");
            free(out);
            return NULL;
        }
        if (c != '\\') {
            *o++ = (char)c;
            p->s++;
            continue;
        }
        char e = p->s[1];
        p->s += 2;
        switch (e) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned cp;
            if (q - p->s < 4 || ug_hex4(p->s, &cp) != 0) {
                ug_jp_fail(p, "bad \\u escape");
                free(out);
                return NULL;
            }
            p->s += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && q - p->s >= 6 && p->s[0] == '\\' && p->s[1] == 'u') {
                unsigned lo;
                if (ug_hex4(p->s + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    p->s += 6;
                }
            }
            ug_utf8_put(&o, cp); /* 6 escaped bytes always hold its 4 UTF-8 bytes */
            break;
        }
        default:
            ug_jp_fail(p, "bad escape in a string");
            free(out);
            return NULL;
        }
    }
    *o = 0;
    p->s = q + 1;
    return out;
}

static ug_json *ug_jp_value(ug_jp *p, int depth);

static ug_json *ug_jp_container(ug_jp *p, int depth, bool object)
{
    ug_json *v = ug_json_new(object ? UG_JSON_OBJ : UG_JSON_ARR);
    char close = object ? '}' : ']';
    p->s++;
    ug_jp_ws(p);
    if (p->s < p->end && *p->s == close) {
        p->s++;
        return v;
    }
    for (;;) {
        char *key = NULL;
        if (object) {
            ug_jp_ws(p);
            if (p->s >= p->end || *p->s != '"') {
                ug_jp_fail(p, "expected a member name");
                break;
            }
            const char *key_at = p->s;
            key = ug_jp_string(p);
            if (!key) break;
            /* a duplicate name: readers take the first, a hand edit or a generator bug the
             * last; which figure is "the" figure must not depend on that.  Cost: a scan of the
             * object's names so far (objects here are small: a row has ~60) */
            bool dup = false;
            for (size_t i = 0; i < v->count && !dup; i++) dup = strcmp(v->items[i]->key, key) == 0;
            if (dup) {
                char what[200], shown[120];
                snprintf(what, sizeof what, "duplicate member name \"%s\"",
                         ug_escape(key, shown, sizeof shown));
                p->s = key_at;
                free(key);
                ug_jp_fail(p, what);
                break;
            }
            ug_jp_ws(p);
            if (p->s >= p->end || *p->s != ':') {
                free(key);
                ug_jp_fail(p, "expected ':'");
                break;
            }
            p->s++;
        }
        ug_json *item = ug_jp_value(p, depth + 1);
        if (!item) {
            free(key);
            break;
        }
        item->key = key;
        ug_json_push(v, item);
        ug_jp_ws(p);
        if (p->s < p->end && *p->s == ',') {
            p->s++;
            continue;
        }
        if (p->s < p->end && *p->s == close) {
            p->s++;
            return v;
        }
        ug_jp_fail(p, object ? "expected ',' or '}'" : "expected ',' or ']'");
        break;
    }
    ug_json_free(v);
    return NULL;
}

static ug_json *ug_jp_value(ug_jp *p, int depth)
{
    if (depth > UG_JSON_MAX_DEPTH) {
        ug_jp_fail(p, "nested too deeply");
        return NULL;
    }
    ug_jp_ws(p);
    if (p->s >= p->end) {
        ug_jp_fail(p, "unexpected end of text");
        return NULL;
    }
    char c = *p->s;
    if (c == '{' || c == '[') return ug_jp_container(p, depth, c == '{');
    if (c == '"') {
        char *s = ug_jp_string(p);
        if (!s) return NULL;
        ug_json *v = ug_json_new(UG_JSON_STR);
        v->str = s;
        return v;
    }
    static const struct { const char *word; ug_json_type t; bool b; } words[] = {
        {"true", UG_JSON_BOOL, true}, {"false", UG_JSON_BOOL, false}, {"null", UG_JSON_NULL, false}};
    for (size_t i = 0; i < 3; i++) {
        size_t l = strlen(words[i].word);
        if ((size_t)(p->end - p->s) >= l && memcmp(p->s, words[i].word, l) == 0) {
            p->s += l;
            ug_json *v = ug_json_new(words[i].t);
            v->b = words[i].b;
            return v;
        }
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        char buf[64];
        size_t l = 0;
        while (p->s + l < p->end && l < sizeof buf - 1 && strchr("+-0123456789.eE", p->s[l])) l++;
        memcpy(buf, p->s, l);
        buf[l] = 0;
        char *end;
        errno = 0;
        double d = strtod(buf, &end);
        if (end != buf + l || l == 0) {
            ug_jp_fail(p, "bad number");
            return NULL;
        }
        p->s += l;
        ug_json *v = ug_json_new(UG_JSON_NUM);
        v->num = d; /* 1e999 reads as inf, as an older writer of this project wrote it */
        return v;
    }
    ug_jp_fail(p, "unexpected character");
    return NULL;
}

ug_json *ug_json_parse(const char *text, size_t len, char *err, size_t errlen)
{
    ug_jp p = {text, text + len, text, err, errlen, false};
    ug_json *v = ug_jp_value(&p, 0);
    if (v) {
        ug_jp_ws(&p);
        if (p.s != p.end) {
            ug_jp_fail(&p, "text after the value");
            ug_json_free(v);
            v = NULL;
        }
    }
    return v;
}

size_t ug_json_file_limit(char *err, size_t errlen)
{
    const char *env = getenv("ULPGATE_JSON_LIMIT");
    double v;
    if (!env || !*env) return UG_JSON_FILE_LIMIT;
    if (!ug_parse_bytes(env, &v) || v < 1 || v > 0x1p62) {
        snprintf(err, errlen, "ULPGATE_JSON_LIMIT='%.40s' is not a size (bytes, or 512M, 1GiB, "
                              "2GB)", env);
        return 0;
    }
    return (size_t)v;
}

ug_json *ug_json_parse_file(const char *path, char *err, size_t errlen)
{
    size_t len, limit = ug_json_file_limit(err, errlen);
    if (!limit) return NULL;
    const char *name = getenv("ULPGATE_JSON_LIMIT") ? "a JSON file ulpgate reads (ULPGATE_JSON_LIMIT)"
                                                    : "a JSON file ulpgate reads (ULPGATE_JSON_LIMIT "
                                                      "raises it)";
    char *buf = ug_read_bounded(path, limit, name, true, &len, err, errlen);
    if (!buf) return NULL;
    char why[256];
    ug_json *v = ug_json_parse(buf, len, why, sizeof why);
    if (!v) snprintf(err, errlen, "%s: %s", path, why);
    free(buf);
    return v;
}

void ug_json_free(ug_json *v)
{
    if (!v) return;
    for (size_t i = 0; i < v->count; i++) ug_json_free(v->items[i]);
    free(v->items);
    free(v->str);
    free(v->key);
    free(v);
}

const ug_json *ug_json_get(const ug_json *v, const char *key)
{
    if (!v || v->type != UG_JSON_OBJ) return NULL;
    for (size_t i = 0; i < v->count; i++)
        if (strcmp(v->items[i]->key, key) == 0) return v->items[i];
    return NULL;
}

double ug_json_num_of(const ug_json *v, double dflt)
{
    if (!v) return dflt;
    if (v->type == UG_JSON_NUM) return v->num;
    if (v->type == UG_JSON_STR) {
        if (strcmp(v->str, "inf") == 0) return INFINITY;
        if (strcmp(v->str, "-inf") == 0) return -INFINITY;
        if (strcmp(v->str, "nan") == 0) return NAN;
    }
    return dflt;
}

const char *ug_json_str_of(const ug_json *v, const char *dflt)
{
    return v && v->type == UG_JSON_STR ? v->str : dflt;
}

bool ug_json_bool_of(const ug_json *v, bool dflt) { return v && v->type == UG_JSON_BOOL ? v->b : dflt; }

/* ---- writing a tree back ---------------------------------------------------------------------- */

#include "base/buf.h"

void ug_json_write(ug_buf *b, const ug_json *v)
{
    switch (v->type) {
    case UG_JSON_NULL: ug_buf_printf(b, "null"); break;
    case UG_JSON_BOOL: ug_buf_printf(b, v->b ? "true" : "false"); break;
    case UG_JSON_NUM: ug_buf_json_num(b, v->num); break;
    case UG_JSON_STR: ug_buf_json_str(b, v->str); break;
    case UG_JSON_ARR:
    case UG_JSON_OBJ:
        ug_buf_printf(b, v->type == UG_JSON_ARR ? "[" : "{");
        for (size_t i = 0; i < v->count; i++) {
            if (i) ug_buf_printf(b, ",");
            if (v->type == UG_JSON_OBJ) {
                ug_buf_json_str(b, v->items[i]->key);
                ug_buf_printf(b, ":");
            }
            ug_json_write(b, v->items[i]);
        }
        ug_buf_printf(b, v->type == UG_JSON_ARR ? "]" : "}");
        break;
    }
}

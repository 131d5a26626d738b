/*
 * corpus.c - corpus files (corpus.h): a file read in steps when its unit runs, its head (the
 * header keys), a lint-and-count pass, its values.  Discovery is corpus_find.c's, running them
 * corpus_run.c's.
 */
#include "harness/inputs/corpus.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/parse.h"
#include "base/sys.h"
#include "ug_config.h"
#include "harness/inputs/values.h"

/* ---- header keys -------------------------------------------------------------------------- */

static const char *const ug_corpus_keys[] = {"op",    "why",   "source", "kernels",
                                             "check", "xfail", "format"};
enum { UG_N_CORPUS_KEYS = sizeof ug_corpus_keys / sizeof ug_corpus_keys[0] };

static int ug_corpus_fail(ug_corpus_file *f, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int ug_corpus_fail(ug_corpus_file *f, size_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->error, sizeof f->error, fmt, ap);
    va_end(ap);
    f->bad = true;
    f->error_line = line;
    return -1;
}

/* The first blank-separated word of *s (at most len - 1 characters) into word; *s moves past it
 * and the blanks after it.  Returns its length (0 at the end). */
static size_t ug_word(const char **s, char *word, size_t len)
{
    const char *p = *s;
    while (*p == ' ' || *p == '\t') p++;
    size_t n = 0;
    while (p[n] && p[n] != ' ' && p[n] != '\t') n++;
    snprintf(word, len, "%.*s", (int)n, p);
    p += n;
    while (*p == ' ' || *p == '\t') p++;
    *s = p;
    return n;
}

/* An operation's name (ops/op.h: "sum", "dot"; its length is the file's record count), or a
 * three-size operation's name and shape ("gemm MxNxK"). */
static int ug_corpus_op(ug_corpus_file *f, const ug_values_header *h)
{
    const char *v = h->value;
    char word[64];
    ug_word(&v, word, sizeof word);
    const ug_op_desc *d = ug_op_find(word);
    if (!d) {
        char list[256] = "";
        size_t used = 0, n = ug_op_count();
        for (size_t i = 0; i < n && used < sizeof list; i++) {
            const ug_op_desc *o = ug_op_at(i);
            char dims[64];
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s%s%s",
                                     i == 0 ? "" : i + 1 == n ? " or " : ", ", o->shape->name,
                                     ug_opshape_ndims(o->shape) > 1 ? " " : "", ug_opshape_ndims(o->shape) > 1 ? ug_opshape_dims_text(o->shape, dims, sizeof dims) : "");
        }
        return ug_corpus_fail(f, h->line, "op '%s' is not %s", word, list);
    }
    if (!d->exact) /* attention: three inputs (ops/op.h's exact_in) */
        return ug_corpus_fail(f, h->line, "op %s has %d inputs: a corpus file holds two at most",
                              word, d->shape->arity);
    f->op = d->shape->id;
    if (ug_opshape_ndims(d->shape) == 1) {
        if (*v) return ug_corpus_fail(f, h->line, "op %s takes no shape (found '%s')", word, v);
        return 0;
    }
    unsigned long long m, n, k;
    char end, dims[64];
    if (sscanf(v, "%llux%llux%llu%c", &m, &n, &k, &end) != 3 || !m || !n || !k ||
        m > (1u << 20) || n > (1u << 20) || k > (1u << 20))
        return ug_corpus_fail(f, h->line, "op %s needs its shape %s, each 1 .. 2^20 "
                                          "(found '%s')", d->shape->name,
                              ug_opshape_dims_text(d->shape, dims, sizeof dims), v);
    f->m = (size_t)m, f->n = (size_t)n, f->k = (size_t)k;
    return 0;
}

ug_shape ug_corpus_shape(const ug_corpus_file *f)
{
    const ug_op_desc *d = ug_op_get(f->op);
    if (d && ug_opshape_ndims(d->shape) > 1) return (ug_shape){{f->m, f->n, f->k}};
    return ug_shape_square(f->n);
}

static const struct {
    const char *name;
    ug_metric metric;
} ug_corpus_metrics[] = {
    {"ulp_max", UG_M_ULP_MAX},   {"ulp_mean", UG_M_ULP_MEAN},
    {"rel_max", UG_M_REL_MAX},   {"rel_mean", UG_M_REL_MEAN},
    {"abs_max", UG_M_ABS_MAX},   {"bound_ratio_max", UG_M_RATIO_MAX},
};

/* "METRIC LIMIT [reason]" or "correctly_rounded [reason]". */
static int ug_corpus_check_line(ug_corpus_file *f, const ug_values_header *h)
{
    if (f->n_checks == UG_CORPUS_MAX_CHECKS)
        return ug_corpus_fail(f, h->line, "more than %d check lines", UG_CORPUS_MAX_CHECKS);
    ug_corpus_check *c = &f->checks[f->n_checks];
    memset(c, 0, sizeof *c);
    c->line = h->line;
    const char *v = h->value;
    char name[64], limit[64];
    ug_word(&v, name, sizeof name);
    if (strcmp(name, "correctly_rounded") == 0) {
        c->is_cr = true;
        snprintf(c->text, sizeof c->text, "correctly_rounded");
    } else {
        size_t i = 0, count = sizeof ug_corpus_metrics / sizeof ug_corpus_metrics[0];
        while (i < count && strcmp(ug_corpus_metrics[i].name, name) != 0) i++;
        if (i == count)
            return ug_corpus_fail(f, h->line, "check '%s' is not one of ulp_max, ulp_mean, "
                                              "rel_max, rel_mean, abs_max, bound_ratio_max, "
                                              "correctly_rounded", name);
        c->metric = ug_corpus_metrics[i].metric;
        ug_word(&v, limit, sizeof limit);
        if (!ug_parse_double(limit, &c->limit) || !(c->limit >= 0) || !isfinite(c->limit))
            return ug_corpus_fail(f, h->line, "check %s needs a finite limit >= 0 (found '%s')",
                                  name, limit);
        snprintf(c->text, sizeof c->text, "%s %s", name, limit);
    }
    if (strncmp(v, "for=", 4) == 0) { /* the kernels or classes it is for */
        char globs[256];
        ug_word(&v, globs, sizeof globs);
        if (!globs[4])
            return ug_corpus_fail(f, h->line, "check %s: for= names no kernel or class", c->text);
        snprintf(c->for_globs, sizeof c->for_globs, "%s", globs + 4);
    }
    snprintf(c->reason, sizeof c->reason, "%s", v);
    f->n_checks++;
    return 0;
}

/* "GLOB REASON": the reason is required (an expected failure says why). */
static int ug_corpus_xfail_line(ug_corpus_file *f, const ug_values_header *h)
{
    if (f->n_xfails == UG_CORPUS_MAX_XFAILS)
        return ug_corpus_fail(f, h->line, "more than %d xfail lines", UG_CORPUS_MAX_XFAILS);
    ug_corpus_xfail *x = &f->xfails[f->n_xfails];
    const char *v = h->value;
    if (ug_word(&v, x->glob, sizeof x->glob) >= sizeof x->glob)
        return ug_corpus_fail(f, h->line, "xfail: kernel glob longer than %zu characters",
                              sizeof x->glob - 1);
    if (!x->glob[0] || !*v)
        return ug_corpus_fail(f, h->line, "xfail needs a kernel (glob) and the reason it fails, "
                                          "e.g. 'xfail: serial_f32 absorbs the small terms'");
    snprintf(x->reason, sizeof x->reason, "%s", v);
    x->line = h->line;
    f->n_xfails++;
    return 0;
}

/* The nearest known key to an unknown one, for the message. */
static const char *ug_corpus_nearest_key(const char *key)
{
    const char *best = ug_corpus_keys[0];
    size_t bd = (size_t)-1;
    for (int i = 0; i < UG_N_CORPUS_KEYS; i++) {
        size_t d = ug_edit_distance(key, ug_corpus_keys[i]);
        if (d < bd) bd = d, best = ug_corpus_keys[i];
    }
    return best;
}

/* "# format: bf16": the format the file's values are in: f32, f16, bf16, e4m3,
 * e5m2 (embedded in binary32: the values are read as binary32), or f64 (read in binary64,
 * values.h; for the operations with a binary64 oracle, checked in ug_corpus_parse). */
static int ug_corpus_format(ug_corpus_file *f, const ug_values_header *h)
{
    ug_fmt fmt = ug_fmt_parse(h->value);
    const ug_format *F = ug_format_of(fmt);
    if (!F || F->bits == 0 || F->bits > 64)
        return ug_corpus_fail(f, h->line, "format: '%s' is not a format of corpus values (f32, "
                                          "f64, f16, bf16, e4m3, e5m2)", h->value);
    f->fmt = fmt;
    f->fmt_line = h->line;
    return 0;
}

/* The line of record i of the file at path (its first record on line `first`): the i-th line
 * from there holding anything but blanks and a comment.  0 when it cannot be found. */
static size_t ug_corpus_record_line(const char *path, size_t first, size_t i)
{
    FILE *in = fopen(path, "r");
    if (!in) return 0;
    char buf[UG_VALUES_LINE_MAX + 2];
    size_t line = 0, rec = 0, found = 0;
    while (!found && fgets(buf, sizeof buf, in)) {
        if (++line < first) continue;
        char *hash = strchr(buf, '#');
        if (hash) *hash = 0;
        bool value = false;
        for (const char *p = buf; *p && !value; p++) value = !strchr(" \t\v\f\r\n", *p);
        if (value && rec++ == i) found = line;
    }
    fclose(in);
    return found;
}

/* Every value a value of the file's format (NaN in any; an infinity only where the format has
 * one): 0, or -1 with the first that is not, at its FILE:LINE. */
static int ug_corpus_check_format(ug_corpus_file *f, const ug_values *v, const char *path)
{
    /* binary32: read as such; binary64: every value strtod gives is one (overflow: values.c) */
    if (f->fmt == UG_F32 || f->fmt == UG_F64) return 0;
    const ug_format *F = ug_format_of(f->fmt);
    for (size_t i = 0; i < v->n; i++)
        for (int a = 0; a < (v->z ? 3 : v->y ? 2 : 1); a++) {
            double x = a == 2 ? v->z[i] : a ? v->y[i] : v->x[i];
            bool ok = isnan(x)   ? F->nan != UG_NAN_NONE /* FP6/FP4 have no NaN */
                      : isinf(x) ? F->inf
                                 : ug_fmt_round(f->fmt, x, UG_RN) == x;
            if (ok) continue;
            size_t line = ug_corpus_record_line(path, v->first_record_line, i);
            return ug_corpus_fail(f, line, "value %.9g is not a %s value (# format: %s on line "
                                           "%zu; nearest %s value %.9g)", x, F->name, F->name,
                                  f->fmt_line, F->name, ug_fmt_round(f->fmt, x, UG_RN));
        }
    return 0;
}

static int ug_corpus_header(ug_corpus_file *f, const ug_values_header *h, unsigned *seen)
{
    int i = 0;
    while (i < UG_N_CORPUS_KEYS && strcmp(ug_corpus_keys[i], h->key) != 0) i++;
    if (i == UG_N_CORPUS_KEYS)
        return ug_corpus_fail(f, h->line, "unknown header key '%s' (did you mean '%s'? keys: op, "
                                          "why, source, kernels, check, xfail, format; write '## %s:' "
                                          "for a comment)", h->key, ug_corpus_nearest_key(h->key),
                              h->key);
    bool repeatable = strcmp(h->key, "check") == 0 || strcmp(h->key, "xfail") == 0;
    if (!repeatable && (*seen & (1u << i)))
        return ug_corpus_fail(f, h->line, "header '%s' given twice", h->key);
    *seen |= 1u << i;
    if (strcmp(h->key, "op") == 0) return ug_corpus_op(f, h);
    if (strcmp(h->key, "check") == 0) return ug_corpus_check_line(f, h);
    if (strcmp(h->key, "xfail") == 0) return ug_corpus_xfail_line(f, h);
    if (!h->value[0]) return ug_corpus_fail(f, h->line, "header '%s' has no value", h->key);
    if (strcmp(h->key, "why") == 0) snprintf(f->why, sizeof f->why, "%s", h->value);
    if (strcmp(h->key, "source") == 0) snprintf(f->source, sizeof f->source, "%s", h->value);
    if (strcmp(h->key, "format") == 0) return ug_corpus_format(f, h);
    if (strcmp(h->key, "kernels") == 0) {
        if (strlen(h->value) >= sizeof f->kernels)
            return ug_corpus_fail(f, h->line, "kernels: longer than %zu characters",
                                  sizeof f->kernels - 1);
        snprintf(f->kernels, sizeof f->kernels, "%s", h->value);
        f->kernels_line = h->line;
    }
    return 0;
}

/* ---- directives nobody reads --------------------------------------------------------------- */

static bool ug_is_key_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

static bool ug_corpus_known_key(const char *word, bool any_case)
{
    for (int i = 0; i < UG_N_CORPUS_KEYS; i++)
        if ((any_case ? strcasecmp : strcmp)(word, ug_corpus_keys[i]) == 0) return true;
    return false;
}

/* One line's comment (the text after its first '#'), judged: 0, or -1 with f's error when it is
 * shaped like a directive that nothing would read.  A comment is a directive when its first word
 * is followed by ':' (blanks allowed before it) or is a key in any case ("# Check ulp_max 1");
 * "##" always starts a plain comment.  A directive is read only when it is a whole line, spelled
 * "# key:" with a known lowercase key, before the first value (values.h): anything else would be
 * a check, an xfail or a kernel selection silently dropped. */
static int ug_corpus_lint_comment(ug_corpus_file *f, size_t line, const char *text, bool whole,
                                  size_t first_value)
{
    const char *p = text + 1; /* past the '#' */
    if (*p == '#') return 0;
    while (*p == ' ' || *p == '\t') p++;
    char word[UG_VALUES_KEY_MAX];
    size_t n = 0;
    while (ug_is_key_char(p[n])) n++;
    if (n == 0 || n >= sizeof word) return 0;
    snprintf(word, sizeof word, "%.*s", (int)n, p);
    char lower[UG_VALUES_KEY_MAX];
    for (size_t i = 0; i <= n; i++) lower[i] = (char)tolower((unsigned char)word[i]);
    const char *q = p + n;
    while (*q == ' ' || *q == '\t') q++;
    bool colon = *q == ':';
    if (!colon && !ug_corpus_known_key(word, true)) return 0;
    if (!colon)
        return ug_corpus_fail(f, line, "'# %s' without its colon: write '# %s:' for the directive, "
                                       "'## %s' for a comment", word, word, word);
    if (p[n] != ':' || !ug_corpus_known_key(word, false)) {
        if (ug_corpus_known_key(word, true) && p[n] == ':')
            return ug_corpus_fail(f, line, "'# %s:' is not a directive: keys are lowercase "
                                           "(write '# %s:'; '## %s:' for a comment)", word,
                                  ug_corpus_nearest_key(word), word);
        if (ug_corpus_known_key(word, true))
            return ug_corpus_fail(f, line, "'# %.*s:' is not a directive: write '# %s:' (no blank "
                                           "before the colon; '## ...' for a comment)",
                                  (int)(q - p), p, lower);
        return ug_corpus_fail(f, line, "'# %s:' is not a directive (keys: op, why, source, "
                                       "kernels, check, xfail, format; write '## %s:' for a "
                                       "comment)",
                              word, word);
    }
    if (!whole || first_value)
        return ug_corpus_fail(f, line, "'# %s:' after the values (line %zu): directives come "
                                       "before the first value; it would not be read",
                              word, first_value ? first_value : line);
    return 0;
}

/* Every line of the file through ug_corpus_lint_comment, and its records (the lines holding
 * anything but blanks and a comment) counted into f->records.  Lines are split as values.c
 * splits them (LF, CR LF, a lone CR; a line longer than values.c takes is cut here, and the
 * values pass says so at its line).  0, or -1 with f's error at the first bad line.  Cost: one
 * pass, a getc a byte, nothing allocated. */
static int ug_corpus_lint(ug_corpus_file *f, const char *path)
{
    FILE *in = fopen(path, "r");
    if (!in) return ug_corpus_fail(f, 0, "cannot open: %s", strerror(errno));
    char buf[UG_VALUES_LINE_MAX + 2];
    size_t line = 0, first_value = 0, len = 0;
    int rc = 0;
    f->records = 0;
    /* getc_unlocked: the stream is this function's alone (a locked getc a byte costs ~3x) */
    for (int c = getc_unlocked(in); rc == 0;) {
        if (c != EOF && c != '\n' && c != '\r') {
            if (len < UG_VALUES_LINE_MAX) buf[len++] = (char)c;
            c = getc_unlocked(in);
            continue;
        }
        if (c == EOF && len == 0) break;
        if (c == '\r') {
            int d = getc_unlocked(in);
            if (d != '\n' && d != EOF) ungetc(d, in);
        }
        buf[len] = 0;
        line++;
        char *text = buf;
        if (line == 1 && strncmp(text, "\xef\xbb\xbf", 3) == 0) text += 3;
        char *hash = strchr(text, '#');
        const char *v = text;
        while (*v == ' ' || *v == '\t') v++;
        bool whole = v == hash;
        if (hash) rc = ug_corpus_lint_comment(f, line, hash, whole, first_value);
        if (!whole) {
            if (hash) *hash = 0;
            bool value = false;
            for (const char *p = text; *p && !value; p++)
                value = *p != ' ' && *p != '\t' && *p != '\v' && *p != '\f';
            if (value && !first_value) first_value = line;
            f->records += value;
        }
        len = 0;
        if (c == EOF) break;
        c = getc_unlocked(in);
    }
    fclose(in);
    return rc;
}

/* ---- one file ----------------------------------------------------------------------------- */

/* A values.c error ("FILE:LINE: what" or "FILE: why") as f's: the line kept apart, so that
 * the failure reads FILE:LINE once. */
static int ug_corpus_read_fail(ug_corpus_file *f, const char *err)
{
    size_t plen = strlen(f->path);
    const char *rest = strncmp(err, f->path, plen) == 0 ? err + plen : err;
    char *end;
    size_t line = rest[0] == ':' ? strtoul(rest + 1, &end, 10) : 0;
    if (line && *end == ':') rest = end + 1;
    else if (rest[0] == ':') rest++;
    while (*rest == ' ') rest++;
    return ug_corpus_fail(f, line, "%s", rest);
}

typedef struct {
    ug_corpus_file *f;
    unsigned seen;
} ug_head_ctx;

/* One line of the head (values.h: ug_values_head): a header is read, any other comment linted
 * (a '# Check:' among the headers is an error at its line, as after them). */
static int ug_corpus_head_line(void *ctx, size_t line, const char *text, const ug_values_header *h)
{
    ug_head_ctx *c = ctx;
    if (h) return ug_corpus_header(c->f, h, &c->seen);
    const char *hash = strchr(text, '#');
    return hash ? ug_corpus_lint_comment(c->f, line, hash, true, 0) : 0;
}

int ug_corpus_parse_head(const char *path, ug_corpus_file *f)
{
    char name[sizeof f->name];
    const char *dir_arg = f->dir_arg;
    snprintf(name, sizeof name, "%s", f->name);
    ug_corpus_file_free(f);
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    f->dir_arg = dir_arg;
    snprintf(f->path, sizeof f->path, "%s", path);
    f->op = UG_OP_SUM;
    snprintf(f->kernels, sizeof f->kernels, "*");
    snprintf(f->source, sizeof f->source, "hand-made");
    ug_head_ctx ctx = {f, 0};
    char err[UG_CORPUS_TEXT];
    int rc = ug_values_head(path, ug_corpus_head_line, &ctx, &f->first_record_line, err, sizeof err);
    if (rc != 0 && f->bad) return -1; /* a header's own error */
    if (rc != 0) return ug_corpus_read_fail(f, err);
    if (!f->why[0])
        return ug_corpus_fail(f, 1, "no '# why:' header (one line saying what makes this input "
                                    "adversarial)");
    const ug_op_desc *d = ug_op_get(f->op);
    if (f->fmt == UG_F64 && (d->shape->layout != UG_LAYOUT_VECTORS || !d->exact64))
        return ug_corpus_fail(f, f->fmt_line, "format: f64: op %s has no binary64 oracle (ops/op.h: "
                              "exact64); binary64 files are read for sum and dot", d->shape->name);
    return 0;
}

int ug_corpus_scan(ug_corpus_file *f)
{
    if (ug_corpus_lint(f, f->path) != 0) return -1;
    /* a vector operation: its inputs side by side, ug_op_width values a line, n = the records;
     * a matrix one: one value a line, its inputs one after the other (A then B) */
    const ug_op_desc *d = ug_op_get(f->op);
    ug_shape sh = ug_corpus_shape(f);
    if (d->shape->layout == UG_LAYOUT_VECTORS) {
        if (f->records == 0)
            return ug_corpus_fail(f, 1, "no values (an empty sum has nothing to test)");
        f->n = f->records;
        return 0;
    }
    size_t need = (size_t)ug_op_elements_in(d, &sh);
    if (f->records != need)
        return ug_corpus_fail(f, f->records ? f->first_record_line : 1,
                              "op %s %zux%zux%zu needs M*K + K*N = %zu values (A then B, "
                              "row-major), found %zu", d->shape->name, f->m, f->n, f->k, need,
                              f->records);
    return 0;
}

int ug_corpus_read_values(ug_corpus_file *f)
{
    ug_values v;
    char err[UG_CORPUS_TEXT];
    const char *path = f->path;
    if (ug_values_read_sized(path, 0, f->records, &v, err, sizeof err) != 0)
        return ug_corpus_read_fail(f, err);
    const ug_op_desc *d = ug_op_get(f->op);
    bool vectors = d->shape->layout == UG_LAYOUT_VECTORS;
    ug_shape sh = ug_corpus_shape(f);
    /* a vector operation: one value of each vector a line (x; x y; a LayerNorm's x w b:
     * ops/op.h's ug_op_width) */
    int want = vectors ? ug_op_width(d) : 1, rc = 0;
    if (v.n && v.arity != want)
        rc = ug_corpus_fail(f, v.first_record_line, "op %s takes %d value%s a line, found %d",
                            d->shape->name, want, want == 1 ? "" : "s", v.arity);
    if (rc == 0 && v.n != f->records)
        rc = ug_corpus_fail(f, 0, "%zu values read, %zu counted a moment before: the file "
                                  "changed while it was read", v.n, f->records);
    if (rc == 0) rc = ug_corpus_check_format(f, &v, path);
    if (rc != 0) {
        ug_values_free(&v);
        return -1;
    }
    if (!vectors) {
        size_t a = ug_op_in_len(d, &sh, 0), b = ug_op_in_len(d, &sh, 1);
        f->x = ug_xmalloc(a * sizeof(float));
        f->y = ug_xmalloc(b * sizeof(float));
        memcpy(f->x, v.x, a * sizeof(float));
        memcpy(f->y, v.x + a, b * sizeof(float));
        ug_values_free(&v);
    } else if (v.z) { /* input 1 of two vectors (x w b): [w | b], as the operation lays it out */
        f->n = v.n;
        f->x = v.x;
        v.x = NULL;
        f->y = ug_xmalloc(2 * v.n * sizeof(float));
        memcpy(f->y, v.y, v.n * sizeof(float));
        memcpy(f->y + v.n, v.z, v.n * sizeof(float));
        ug_values_free(&v); /* a binary64 file of three values was refused above (no exact64) */
    } else {
        f->x = v.x;
        f->y = v.y;
        f->x64 = v.x64;
        f->y64 = v.y64;
        free(v.headers);
    }
    return 0;
}

int ug_corpus_parse(const char *path, ug_corpus_file *f)
{
    if (ug_corpus_parse_head(path, f) != 0 || ug_corpus_scan(f) != 0) return -1;
    return ug_corpus_read_values(f);
}

void ug_corpus_file_free(ug_corpus_file *f)
{
    free(f->x);
    free(f->y);
    free(f->x64);
    free(f->y64);
    f->x = f->y = NULL;
    f->x64 = f->y64 = NULL;
}

bool ug_corpus_selects(const ug_corpus_file *f, const ug_kernel *k)
{
    bool in = false, out = false;
    const char *p = f->kernels;
    char glob[128];
    while (ug_word(&p, glob, sizeof glob)) {
        if (glob[0] == '!') out |= ug_kernel_matches(k, glob + 1);
        else in |= ug_kernel_matches(k, glob);
    }
    return in && !out;
}

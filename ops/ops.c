/*
 * ops.c - the registry of operations: the tree's descriptors (ops/meson.build lists them, in id
 * order) and those registered at run time (ug_op_register), with the helpers every caller of
 * a descriptor shares (shape parsing and naming, the bound through the descriptor's term kind).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/parse.h"
#include "ops/op.h"
#include "ops/ug_ops.h"

#define UG_OP_ADDRESS(sym) &sym,
static const ug_op_desc *const ug_ops_tree[] = {UG_OPS(UG_OP_ADDRESS)};
enum { UG_N_TREE = sizeof ug_ops_tree / sizeof ug_ops_tree[0], UG_MAX_REGISTERED = 32 };

static const ug_op_desc *ug_ops_extra[UG_MAX_REGISTERED];
static size_t ug_n_extra;

const ug_op_desc *ug_op_at(size_t i)
{
    if (i < UG_N_TREE) return ug_ops_tree[i];
    return i - UG_N_TREE < ug_n_extra ? ug_ops_extra[i - UG_N_TREE] : NULL;
}

size_t ug_op_count(void) { return UG_N_TREE + ug_n_extra; }

/* Every descriptor of the tree sits at its id (one list, in ops/meson.build, gives both): a
 * descriptor listed out of order would answer for another operation's kernels. */
const ug_op_desc *ug_op_get(ug_op id)
{
    if (id < 0) return NULL;
    const ug_op_desc *d = ug_op_at((size_t)id);
    return d && d->id == id ? d : NULL;
}

bool ug_op_known(ug_op op) { return ug_op_get(op) != NULL; }

const ug_op_desc *ug_op_find(const char *name)
{
    for (size_t i = 0; name && i < ug_op_count(); i++)
        if (strcmp(ug_op_at(i)->name, name) == 0) return ug_op_at(i);
    return NULL;
}

ug_op ug_op_register(ug_op_desc *d)
{
    const char *why = NULL;
    if (!d || !d->name || !d->name[0]) why = "no name";
    else if (ug_op_find(d->name)) why = "the name is taken";
    else if (d->arity < 1 || d->arity > 2) why = "arity is not 1 or 2";
    else if (d->nsizes != 1 && d->nsizes != 3) why = "nsizes is not 1 or 3";
    else if (!d->in_len || !d->outputs || !d->terms || !d->work || !d->exact || !d->exact_fast ||
             !d->exact_one_fast)
        why = "a required function (in_len, outputs, terms, work, exact, exact_fast, "
              "exact_one_fast) is missing";
    else if (d->rate == UG_RATE_GFLOPS ? !d->flops : !d->bytes) why = "no flops/bytes for its rate";
    else if (d->layout == UG_LAYOUT_VECTORS && (ug_op_in_width(d, 0) != 1 || ug_op_width(d) > 3))
        why = "input 0 is not one vector of n, or the inputs hold more than 3 vectors of n (a "
              "corpus line holds at most 3 values)";
    else if (ug_n_extra == UG_MAX_REGISTERED) why = "the table is full";
    if (why) {
        fprintf(stderr, "ulpgate: ug_op_register(%s): %s\n", d && d->name ? d->name : "?", why);
        return -1;
    }
    d->id = (ug_op)(UG_N_TREE + ug_n_extra);
    ug_ops_extra[ug_n_extra++] = d;
    return d->id;
}

const char *ug_op_name(ug_op op)
{
    static char unknown[32][16];
    static unsigned next;
    const ug_op_desc *d = ug_op_get(op);
    if (d) return d->name;
    char *b = unknown[next++ % 32]; /* an error message's: never a table's */
    snprintf(b, sizeof unknown[0], "op#%d", op);
    return b;
}

const char *ug_op_names(char *buf, size_t len)
{
    size_t used = 0, n = ug_op_count();
    if (len) buf[0] = 0;
    for (size_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 i == 0 ? "" : i + 1 == n ? " or " : ", ", ug_op_at(i)->name);
    return buf;
}

/* ---- shapes ------------------------------------------------------------------------------- */

ug_shape ug_shape_square(size_t n)
{
    ug_shape s = {{n, n, n}, 1};
    return s;
}

int ug_op_parse_shape(const ug_op_desc *d, const char *text, size_t max, ug_shape *s, char *err,
                      size_t errlen)
{
    unsigned long long a, b, c;
    char end;
    size_t v;
    if (d->nsizes == 3 && sscanf(text, "%llux%llux%llu%c", &a, &b, &c, &end) == 3) {
        if (!a || !b || !c || a > max || b > max || c > max) goto bad;
        *s = (ug_shape){{(size_t)a, (size_t)b, (size_t)c}, 1};
        return 0;
    }
    if (!ug_parse_size(text, &v) || v == 0 || v > max) goto bad;
    *s = ug_shape_square(v);
    return 0;
bad:
    if (d->nsizes == 3)
        snprintf(err, errlen, "'%s' is not N or %s (each 1 .. %zu)", text, d->size_names, max);
    else
        snprintf(err, errlen, "'%s' is not a length in 1 .. %zu", text, max);
    return -1;
}

const char *ug_op_shape_text(const ug_op_desc *d, const ug_shape *s, bool compact, char *buf,
                             size_t len)
{
    bool square = s->dim[0] == s->dim[1] && s->dim[1] == s->dim[2];
    if (d->nsizes == 1 || (compact && square))
        snprintf(buf, len, "%zu", s->dim[0]);
    else
        snprintf(buf, len, "%zux%zux%zu", s->dim[0], s->dim[1], s->dim[2]);
    return buf;
}

double ug_op_elements_in(const ug_op_desc *d, const ug_shape *s)
{
    double e = 0;
    for (int i = 0; i < d->arity; i++) e += (double)d->in_len(s, i);
    return e;
}

int ug_op_in_width(const ug_op_desc *d, int i)
{
    if (!d || i < 0 || i >= d->arity) return 0;
    if (d->layout != UG_LAYOUT_VECTORS) return 1;
    ug_shape one = {{1, 1, 1}, 1};
    return (int)d->in_len(&one, i);
}

int ug_op_width(const ug_op_desc *d)
{
    int w = 0;
    for (int i = 0; d && i < d->arity; i++) w += ug_op_in_width(d, i);
    return w;
}

/* ---- bounds ------------------------------------------------------------------------------- */

/* An unknown operation's terms count as values (a kernel of an unregistered id never runs: the
 * harness refuses it first). */
static ug_terms ug_terms_of(const ug_kernel *k)
{
    const ug_op_desc *d = ug_op_get(k->op);
    return d ? d->terms_kind : UG_TERMS_VALUES;
}

double ug_kernel_bound(const ug_kernel *k, size_t n, double S, double s_abs)
{
    const ug_op_desc *d = ug_op_get(k->op);
    if (d && d->bound) return d->bound(k, n, S, s_abs, 0);
    return ug_bound_terms(k, ug_terms_of(k), n, S, s_abs);
}

double ug_kernel_bound_prob(const ug_kernel *k, size_t n, double S, double s_abs, double lambda)
{
    const ug_op_desc *d = ug_op_get(k->op);
    if (d && d->bound) return lambda > 0 ? d->bound(k, n, S, s_abs, lambda) : INFINITY;
    return ug_bound_prob_terms(k, ug_terms_of(k), n, S, s_abs, lambda);
}

size_t ug_op_terms_at(const ug_op_desc *d, const ug_shape *s, size_t e)
{
    return d->terms_at ? d->terms_at(s, e) : d->terms(s);
}

/* ---- a call's buffers ------------------------------------------------------------------------ */

ug_shape ug_call_shape(const ug_call *c)
{
    const ug_op_desc *d = ug_op_get(c->op);
    ug_shape s = {{c->n, c->n, c->n}, 1};
    if (d && d->nsizes > 1) s.dim[1] = c->gemm_n;
    if (d && d->nsizes > 2) s.dim[2] = c->gemm_k;
    return s;
}

size_t ug_call_in_count(const ug_call *c, int i)
{
    const ug_op_desc *d = ug_op_get(c->op);
    if (!d || i < 0 || i >= d->arity) return 0;
    ug_shape s = ug_call_shape(c);
    return d->in_len(&s, i);
}

size_t ug_call_out_count(const ug_call *c)
{
    const ug_op_desc *d = ug_op_get(c->op);
    if (!d) return 0;
    ug_shape s = ug_call_shape(c);
    return d->outputs(&s);
}

void ug_call_set_f32(ug_call *c, const float *x, const float *y, float *out)
{
    const float *xs[UG_MAX_INPUTS] = {x, y};
    for (int i = 0; i < UG_MAX_INPUTS; i++) {
        size_t count = ug_call_in_count(c, i);
        c->in[i].data = count ? xs[i] : NULL;
        c->in[i].fmt = UG_F32;
        c->in[i].count = count;
    }
    c->out.data = out;
    c->out.fmt = UG_F32;
    c->out.count = ug_call_out_count(c);
}

bool ug_kernel_is_f32(const ug_kernel *k)
{
    const ug_op_desc *d = ug_op_get(k->op);
    int arity = d ? d->arity : 1;
    bool all = k->out_fmt == UG_F32;
    for (int i = 0; i < arity && i < UG_MAX_INPUTS; i++) all = all && k->in_store[i] == UG_F32;
    return all;
}

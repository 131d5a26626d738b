/*
 * opshape.c - the operations' shape table and its rules (opshape.h).  A built-in row states
 * what differs from the defaults; the rules below are the defaults.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/opshape.h"
#include "base/parse.h"

// ---------------------------------------------------------------------------------------------
// the built-in rows

static size_t ug_gemm_in_len(const ug_shape *s, int input)
{
    return input == 0 ? s->dim[0] * s->dim[2] : input == 1 ? s->dim[2] * s->dim[1] : 0;
}
static size_t ug_scan_terms_at(const ug_shape *s, size_t e) { (void)s; return e + 1; }
static size_t ug_exscan_terms_at(const ug_shape *s, size_t e) { (void)s; return e; }

size_t ug_shape_problems(const ug_shape *s, bool kv)
{
    size_t b = s->batch ? s->batch : 1, h = s->heads ? s->heads : 1;
    size_t kh = s->kv_heads ? s->kv_heads : h;
    return b * (kv ? kh : h);
}

size_t ug_shape_kv_problem(const ug_shape *s, size_t p)
{
    size_t h = s->heads ? s->heads : 1, kh = s->kv_heads ? s->kv_heads : h;
    return (p / h) * kh + (p % h) / (h / kh);
}

/* Attention: dims L S d dv, laid out as heads (ug_shape_problems). */
static size_t ug_attn_in_len(const ug_shape *s, int input)
{
    const size_t *d = s->dim;
    return input == 0 ? ug_shape_problems(s, false) * d[0] * d[2]
         : input == 1 ? ug_shape_problems(s, true) * d[1] * d[2]
         : input == 2 ? ug_shape_problems(s, true) * d[1] * d[3] : 0;
}
static size_t ug_attn_out_len(const ug_shape *s, int output)
{
    return output == 0 ? ug_shape_problems(s, false) * s->dim[0] * s->dim[3]
         : output == 1 ? ug_shape_problems(s, false) * s->dim[0] : 0;
}
/* Q K^T and P V: 2 L S (d + dv) per problem (the causal mask not subtracted). */
static double ug_attn_flops(const ug_shape *s)
{
    return 2.0 * (double)ug_shape_problems(s, false) * (double)s->dim[0] * (double)s->dim[1] *
           (double)(s->dim[2] + s->dim[3]);
}

const ug_opshape ug_opshapes[UG_OP_BUILTIN] = {
    [UG_OP_SUM] = {UG_OP_SUM, "sum", 1, {"x"}},
    [UG_OP_DOT] = {UG_OP_DOT, "dot", 2, {"x", "y"}, .term_noun = "pairs"},
    [UG_OP_GEMM] = {UG_OP_GEMM, "gemm", 2, {"A", "B"}, .term_noun = "products",
                    .dims = {"M", "N", "K"}, .layout = UG_LAYOUT_MATMUL,
                    .out_kind = UG_OUT_MATRIX, .terms_dim = 2, .rate = UG_RATE_GFLOPS,
                    .in_len = ug_gemm_in_len},
    [UG_OP_SCAN] = {UG_OP_SCAN, "scan", 1, {"x"}, .out_kind = UG_OUT_VECTOR,
                    .terms_at = ug_scan_terms_at},
    [UG_OP_EXSCAN] = {UG_OP_EXSCAN, "exscan", 1, {"x"}, .out_kind = UG_OUT_VECTOR,
                      .terms_at = ug_exscan_terms_at},
    [UG_OP_NRM2] = {UG_OP_NRM2, "nrm2", 1, {"x"}},
    [UG_OP_ASUM] = {UG_OP_ASUM, "asum", 1, {"x"}},
    [UG_OP_SOFTMAX] = {UG_OP_SOFTMAX, "softmax", 1, {"x"}, .term_noun = "logits",
                       .out_kind = UG_OUT_VECTOR},
    [UG_OP_LOGSUMEXP] = {UG_OP_LOGSUMEXP, "logsumexp", 1, {"x"}, .term_noun = "logits"},
    [UG_OP_RMSNORM] = {UG_OP_RMSNORM, "rmsnorm", 2, {"x", "w"}, .out_kind = UG_OUT_VECTOR},
    [UG_OP_LAYERNORM] = {UG_OP_LAYERNORM, "layernorm", 2, {"x", "w b"}, .in_width = {1, 2},
                         .out_kind = UG_OUT_VECTOR},
    [UG_OP_ATTENTION] = {UG_OP_ATTENTION, "attention", 3, {"Q", "K", "V"}, .term_noun = "keys",
                         .dims = {"L", "S", "d", "dv"}, .layout = UG_LAYOUT_HEADS,
                         .out_kind = UG_OUT_MATRIX, .outs = {"O", "lse"}, .terms_dim = 1,
                         .rate = UG_RATE_GFLOPS, .in_len = ug_attn_in_len,
                         .out_len = ug_attn_out_len, .flops = ug_attn_flops},
    [UG_OP_GEMM_BS] = {UG_OP_GEMM_BS, "gemm_bs", 2, {"A", "B"}, .term_noun = "products",
                       .dims = {"M", "N", "K"}, .layout = UG_LAYOUT_MATMUL,
                       .out_kind = UG_OUT_MATRIX, .terms_dim = 2, .rate = UG_RATE_GFLOPS,
                       .in_len = ug_gemm_in_len},
};

// ---------------------------------------------------------------------------------------------
// the table

enum { UG_MAX_REGISTERED_SHAPES = 32 };
static const ug_opshape *ug_opshapes_extra[UG_MAX_REGISTERED_SHAPES];
static size_t ug_n_opshapes_extra;

size_t ug_opshape_count(void) { return UG_OP_BUILTIN + ug_n_opshapes_extra; }

const ug_opshape *ug_opshape_of(ug_op id)
{
    if (id < 0) return NULL;
    if (id < UG_OP_BUILTIN) return ug_opshapes[id].name ? &ug_opshapes[id] : NULL;
    size_t i = (size_t)id - UG_OP_BUILTIN;
    return i < ug_n_opshapes_extra ? ug_opshapes_extra[i] : NULL;
}

const ug_opshape *ug_opshape_find(const char *name)
{
    for (size_t i = 0; name && i < ug_opshape_count(); i++) {
        const ug_opshape *sh = ug_opshape_of((ug_op)i);
        if (sh && strcmp(sh->name, name) == 0) return sh;
    }
    return NULL;
}

const char *ug_opshape_name(ug_op id)
{
    static _Thread_local char unknown[8][16];
    static _Thread_local unsigned next;
    const ug_opshape *sh = ug_opshape_of(id);
    if (sh) return sh->name;
    char *b = unknown[next++ % 8];
    snprintf(b, sizeof unknown[0], "op#%d", id);
    return b;
}

ug_op ug_opshape_register(ug_opshape *sh)
{
    const char *why = NULL;
    if (!sh || !sh->name || !sh->name[0]) why = "no name";
    else if (strlen(sh->name) >= UG_OPNAME_MAX) why = "the name is longer than UG_OPNAME_MAX - 1";
    else if (ug_opshape_find(sh->name)) why = "the name is taken";
    else if (sh->arity < 1 || sh->arity > UG_MAX_INPUTS) why = "arity is not 1 .. UG_MAX_INPUTS";
    else if (sh->layout == UG_LAYOUT_MATMUL && (ug_opshape_ndims(sh) != 3 || sh->arity != 2))
        why = "a matmul layout has two inputs and three dims";
    else if (ug_n_opshapes_extra == UG_MAX_REGISTERED_SHAPES) why = "the table is full";
    if (why) {
        fprintf(stderr, "ulpgate: ug_opshape_register(%s): %s\n", sh && sh->name ? sh->name : "?",
                why);
        return -1;
    }
    sh->id = (ug_op)(UG_OP_BUILTIN + ug_n_opshapes_extra);
    ug_opshapes_extra[ug_n_opshapes_extra++] = sh;
    return sh->id;
}

// ---------------------------------------------------------------------------------------------
// the rules

int ug_opshape_ndims(const ug_opshape *sh)
{
    int n = 0;
    while (n < UG_MAX_DIMS && sh->dims[n]) n++;
    return n ? n : 1;
}

const char *ug_opshape_dim_name(const ug_opshape *sh, int i)
{
    if (i < 0 || i >= ug_opshape_ndims(sh)) return "?";
    return sh->dims[i] ? sh->dims[i] : "n";
}

const char *ug_opshape_dims_text(const ug_opshape *sh, char *buf, size_t len)
{
    size_t used = 0;
    if (len) buf[0] = 0;
    for (int i = 0; i < ug_opshape_ndims(sh) && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "x" : "",
                                 ug_opshape_dim_name(sh, i));
    return buf;
}

const char *ug_opshape_term_noun(const ug_opshape *sh)
{
    return sh->term_noun ? sh->term_noun : "values";
}

int ug_opshape_noutputs(const ug_opshape *sh)
{
    int n = 0;
    while (n < UG_MAX_OUTPUTS && sh->outs[n]) n++;
    return n ? n : 1;
}

int ug_opshape_in_width(const ug_opshape *sh, int i)
{
    if (!sh || i < 0 || i >= sh->arity || i >= UG_MAX_INPUTS) return 0;
    if (sh->layout != UG_LAYOUT_VECTORS) return 1;
    return sh->in_width[i] ? sh->in_width[i] : 1;
}

int ug_opshape_width(const ug_opshape *sh)
{
    int w = 0;
    for (int i = 0; sh && i < sh->arity; i++) w += ug_opshape_in_width(sh, i);
    return w;
}

size_t ug_opshape_in_len(const ug_opshape *sh, const ug_shape *s, int i)
{
    if (!sh || i < 0 || i >= sh->arity || i >= UG_MAX_INPUTS) return 0;
    if (sh->in_len) return sh->in_len(s, i);
    return (size_t)ug_opshape_in_width(sh, i) * s->dim[0];
}

size_t ug_opshape_out_len(const ug_opshape *sh, const ug_shape *s, int j)
{
    if (!sh || j < 0 || j >= ug_opshape_noutputs(sh)) return 0;
    if (sh->out_len) return sh->out_len(s, j);
    switch (sh->out_kind) {
    case UG_OUT_VECTOR: return s->dim[0];
    case UG_OUT_MATRIX: return s->dim[0] * s->dim[1];
    default: return 1;
    }
}

size_t ug_opshape_outputs(const ug_opshape *sh, const ug_shape *s)
{
    size_t n = 0;
    for (int j = 0; sh && j < ug_opshape_noutputs(sh); j++) n += ug_opshape_out_len(sh, s, j);
    return n;
}

size_t ug_opshape_terms(const ug_opshape *sh, const ug_shape *s)
{
    return s->dim[sh->terms_dim >= 0 && sh->terms_dim < UG_MAX_DIMS ? sh->terms_dim : 0];
}

size_t ug_opshape_terms_at(const ug_opshape *sh, const ug_shape *s, size_t e)
{
    return sh->terms_at ? sh->terms_at(s, e) : ug_opshape_terms(sh, s);
}

double ug_opshape_work(const ug_opshape *sh, const ug_shape *s)
{
    if (sh->work) return sh->work(s);
    double w = 1;
    for (int i = 0; i < ug_opshape_ndims(sh); i++) w *= (double)s->dim[i];
    return w;
}

double ug_opshape_flops(const ug_opshape *sh, const ug_shape *s)
{
    return sh->flops ? sh->flops(s) : 2.0 * ug_opshape_work(sh, s);
}

double ug_opshape_elements_in(const ug_opshape *sh, const ug_shape *s)
{
    double e = 0;
    for (int i = 0; sh && i < sh->arity; i++) e += (double)ug_opshape_in_len(sh, s, i);
    return e;
}

double ug_opshape_device_elements(const ug_opshape *sh, const ug_shape *s)
{
    double e = ug_opshape_elements_in(sh, s) + (double)ug_opshape_outputs(sh, s);
    if (sh->layout == UG_LAYOUT_VECTORS) {
        double x = (double)ug_opshape_in_len(sh, s, 0);
        e += x + x / 512;
    }
    return e;
}

/* Every value read or written once, 4 bytes each; an output of one value is not counted (a
 * reduction's traffic is its input). */
double ug_opshape_bytes(const ug_opshape *sh, const ug_shape *s)
{
    if (sh->bytes) return sh->bytes(s);
    size_t out = ug_opshape_outputs(sh, s);
    return 4.0 * (ug_opshape_elements_in(sh, s) + (out > 1 ? (double)out : 0));
}

// ---------------------------------------------------------------------------------------------
// shapes

ug_shape ug_shape_square(size_t n)
{
    ug_shape s = {{0}, 0, 0, 0};
    for (int i = 0; i < 3; i++) s.dim[i] = n;
    return s;
}

ug_shape ug_opshape_canon(const ug_opshape *sh, const ug_shape *s)
{
    ug_shape c = *s;
    for (int i = sh ? ug_opshape_ndims(sh) : UG_MAX_DIMS; i < UG_MAX_DIMS; i++) c.dim[i] = 0;
    return c;
}

static size_t ug_one(size_t v) { return v ? v : 1; }

bool ug_shape_equal(const ug_shape *a, const ug_shape *b)
{
    for (int i = 0; i < UG_MAX_DIMS; i++)
        if (a->dim[i] != b->dim[i]) return false;
    return ug_one(a->batch) == ug_one(b->batch) && ug_one(a->heads) == ug_one(b->heads) &&
           (a->kv_heads ? a->kv_heads : ug_one(a->heads)) ==
               (b->kv_heads ? b->kv_heads : ug_one(b->heads));
}

int ug_opshape_parse(const ug_opshape *sh, const char *text, size_t max, ug_shape *s, char *err,
                     size_t errlen)
{
    int nd = ug_opshape_ndims(sh);
    size_t v;
    ug_shape r = ug_shape_square(0);
    if (nd > 1 && strchr(text, 'x')) {
        const char *p = text;
        for (int i = 0; i < nd; i++) {
            char part[32];
            size_t len = strcspn(p, "x");
            if (len == 0 || len >= sizeof part || (i + 1 < nd) != (p[len] == 'x')) goto bad;
            memcpy(part, p, len);
            part[len] = 0;
            if (!ug_parse_size(part, &v) || v == 0 || v > max) goto bad;
            r.dim[i] = v;
            p += len + (p[len] == 'x');
        }
        *s = r;
        return 0;
    }
    if (!ug_parse_size(text, &v) || v == 0 || v > max) goto bad;
    *s = ug_shape_square(v);
    for (int i = 3; i < nd; i++) s->dim[i] = v;
    return 0;
bad:
    if (nd > 1) {
        char names[64];
        ug_opshape_dims_text(sh, names, sizeof names);
        snprintf(err, errlen, "'%s' is not N or %s (each 1 .. %zu)", text, names, max);
    } else {
        snprintf(err, errlen, "'%s' is not a length in 1 .. %zu", text, max);
    }
    return -1;
}

const char *ug_opshape_text(const ug_opshape *sh, const ug_shape *s, bool compact, char *buf,
                            size_t len)
{
    int nd = ug_opshape_ndims(sh);
    bool square = true;
    for (int i = 1; i < nd; i++) square = square && s->dim[i] == s->dim[0];
    if (nd == 1 || (compact && square)) {
        snprintf(buf, len, "%zu", s->dim[0]);
        return buf;
    }
    size_t used = 0;
    if (len) buf[0] = 0;
    for (int i = 0; i < nd && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%zu", i ? "x" : "", s->dim[i]);
    return buf;
}

// ---------------------------------------------------------------------------------------------
// a call's buffers

size_t ug_call_in_count(const ug_call *c, int i)
{
    return ug_opshape_in_len(ug_opshape_of(c->op), &c->shape, i);
}

size_t ug_call_out_count_at(const ug_call *c, int j)
{
    return ug_opshape_out_len(ug_opshape_of(c->op), &c->shape, j);
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
    c->out[0].data = out;
    c->out[0].fmt = UG_F32;
    c->out[0].count = ug_call_out_count(c);
}

bool ug_kernel_is_f32(const ug_kernel *k)
{
    const ug_opshape *sh = ug_opshape_of(k->op);
    int arity = sh ? sh->arity : 1, nout = sh ? ug_opshape_noutputs(sh) : 1;
    bool all = k->out_fmt == UG_F32;
    for (int i = 0; i < arity && i < UG_MAX_INPUTS; i++) all = all && k->in_store[i] == UG_F32;
    for (int j = 1; j < nout; j++) all = all && k->out_more_fmt[j - 1] == UG_F32;
    return all;
}

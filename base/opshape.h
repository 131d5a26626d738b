/*
 * opshape.h - the shape half of every operation, in one table beside the format table
 * (base/format.h): its name, its inputs (how many, their roles, how they lie in memory, how
 * long each is), its named dimensions, its outputs (how many buffers, how long each) and the
 * terms behind each output.  The bottom layer: kernels (the sizes of a call), the oracle, the
 * operation descriptors (ops/: the exact result, the bound and the GPU hooks) and every layer
 * of the harness read the same row, found once by the op id and passed on.
 *
 * A row states only what differs from the defaults: zero (or NULL) means the default, which
 * is a vector operation of one dimension "n", each input one vector of n values, one output,
 * n terms behind it, GB/s.  A GEMM states its dims, its layout, its output kind and which dim
 * is the terms; an operation of several outputs (attention's O and its row log-sum-exp) names
 * each output and gives out_len.
 *
 * The built-in rows sit at their ids (ulpgate.h's UG_OP_SUM ...); an operation defined outside
 * the tree (a test's, a plugin's) registers its row with ug_opshape_register (ops/ops.c's
 * ug_op_register does it for a descriptor).  O(1) per lookup.
 */
#ifndef UG_OPSHAPE_H
#define UG_OPSHAPE_H

#include <stdbool.h>
#include <stddef.h>

#include "include/ulpgate/ulpgate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How an operation's inputs lie in memory, which is what input generation, the corpus files and
 * the hunt's mutation and shrinking need to know:
 *   UG_LAYOUT_VECTORS  every input is a vector of dim[0] elements, index-aligned (x[i], y[i]
 *                      form term i): a distribution fills x alone (arity 1: a sum's fill) or
 *                      the pair (arity 2: a dot's fill); a corpus file holds `arity` values a line.
 *                      An input may hold several such vectors one after the other (a LayerNorm's
 *                      parameters [w | b]: in_width 2): a corpus line then holds one value of
 *                      each (x w b), the hunt's shrink keeps index i of each, `ulpgate check`
 *                      takes one file each
 *   UG_LAYOUT_MATMUL   A is dim[0] x dim[2] (M x K), B dim[2] x dim[1] (K x N), row-major: the
 *                      GEMM fill; a corpus file holds one value a line, A then B
 *   UG_LAYOUT_HEADS    attention's Q (L x d), K (S x d), V (S x dv) a head, row-major, the heads
 *                      after the batch (batch x heads x L x d; K and V of kv_heads): each
 *                      input drawn on a stream of its own (harness/run/ug.h's
 *                      ug_input_make_heads), the hunt's values every input one after the
 *                      other; no corpus line (a line holds two inputs at most) */
typedef enum { UG_LAYOUT_VECTORS, UG_LAYOUT_MATMUL, UG_LAYOUT_HEADS } ug_layout;

/* What an operation's output 0 forms: one value, a vector of dim[0], a row-major dim[0] x
 * dim[1] matrix. */
typedef enum { UG_OUT_SCALAR, UG_OUT_VECTOR, UG_OUT_MATRIX } ug_out_kind;

/* Which speed a point reports: GB/s of input read (memory-bound operations) or GFLOP/s. */
typedef enum { UG_RATE_GBPS, UG_RATE_GFLOPS } ug_rate;

/* The longest name an operation may have, its terminating NUL included: a result row holds the
 * name whole (ug_opshape_register refuses a longer one). */
enum { UG_OPNAME_MAX = 32 };

typedef struct ug_opshape {
    ug_op id;                         /* its row: UG_OP_SUM ...; set by ug_opshape_register */
    const char *name;                 /* "sum": results rows, `--op`, "# op: sum"; never cut */
    int arity;                        /* inputs, 1 .. UG_MAX_INPUTS */
    const char *roles[UG_MAX_INPUTS]; /* each input's name: "x", "y"; "A", "B"; an input of
                                         several vectors names each, space-separated ("w b") */
    const char *term_noun;            /* what one term is, plural; NULL: "values" */
    const char *dims[UG_MAX_DIMS];    /* the named dimensions, in order ("M", "N", "K"): a
                                         call's shape.dim[i]; NULL: the one dimension "n" */
    ug_layout layout;
    int in_width[UG_MAX_INPUTS];      /* UG_LAYOUT_VECTORS: vectors of dim[0] values input i
                                         holds, one after the other; 0: 1 */
    ug_out_kind out_kind;             /* output 0's form when out_len is NULL */
    const char *outs[UG_MAX_OUTPUTS]; /* each output's name ("O", "lse"); NULL: one output */
    int terms_dim;                    /* the dim whose length is the terms behind each output
                                         (the bound's n): 0 (n), 2 for a GEMM (K) */
    ug_rate rate;
    /* ---- hooks where a rule above does not say it (NULL: the rule) ----------------------- */
    size_t (*in_len)(const ug_shape *s, int input);   /* layout's rule */
    size_t (*out_len)(const ug_shape *s, int output); /* out_kind's, one output */
    size_t (*terms_at)(const ug_shape *s, size_t e);  /* terms of output e (a scan's e + 1) */
    double (*work)(const ug_shape *s);                /* product of the dims */
    double (*flops)(const ug_shape *s);               /* 2 work (multiply-adds) */
    double (*bytes)(const ug_shape *s);               /* 4 bytes a value in, and out unless
                                                         one value */
} ug_opshape;

/* The built-in rows, at their ids (a descriptor's .shape = UG_OPSHAPE(UG_OP_SUM)). */
extern const ug_opshape ug_opshapes[UG_OP_BUILTIN];
#define UG_OPSHAPE(op) (&ug_opshapes[op])

/* ---- the table ------------------------------------------------------------------------------- */

/* The row of id; NULL for an id no one registered. */
const ug_opshape *ug_opshape_of(ug_op id);
/* By name ("sum"); NULL if none. */
const ug_opshape *ug_opshape_find(const char *name);
/* The name of id: "sum"; "op#7" for an id no one registered (an error message's). */
const char *ug_opshape_name(ug_op id);
/* Every row: built-in first, then in registration order. */
size_t ug_opshape_count(void);
/* Register a row defined outside the tree: sets sh->id (the next free id) and returns it; -1
 * with a message on stderr for a missing or taken name, an arity or dimension count out of
 * range, or a full table. */
ug_op ug_opshape_register(ug_opshape *sh);

/* ---- the row's rules --------------------------------------------------------------------------- */

int ug_opshape_ndims(const ug_opshape *sh);
const char *ug_opshape_dim_name(const ug_opshape *sh, int i);
const char *ug_opshape_term_noun(const ug_opshape *sh);
/* The dims' names joined by 'x' ("n"; "MxNxK": `--shape MxNxK`, "# op: gemm MxNxK"). */
const char *ug_opshape_dims_text(const ug_opshape *sh, char *buf, size_t len);
/* Output buffers (1 .. UG_MAX_OUTPUTS) and output j's name ("out" for one). */
int ug_opshape_noutputs(const ug_opshape *sh);
/* A shape laid out as heads (UG_LAYOUT_HEADS: attention): its problems, batch x heads query
 * heads (kv: batch x kv_heads key/value heads; batch, heads 0 are one, kv_heads 0 is heads),
 * and the key/value problem query problem p reads: query head h of a batch reads key/value
 * head h / (heads / kv_heads).  The one definition of the count: the shape table's lengths,
 * the descriptor and the kernels ask these. */
size_t ug_shape_problems(const ug_shape *s, bool kv);
size_t ug_shape_kv_problem(const ug_shape *s, size_t p);
/* Elements of input i (0 for one it does not read) and of output j (0 out of range). */
size_t ug_opshape_in_len(const ug_opshape *sh, const ug_shape *s, int i);
size_t ug_opshape_out_len(const ug_opshape *sh, const ug_shape *s, int j);
/* Every output of one trial: the out_len of each buffer, one after the other (the order of
 * the exact records). */
size_t ug_opshape_outputs(const ug_opshape *sh, const ug_shape *s);
/* Terms behind each output (the bound's n), and behind output e. */
size_t ug_opshape_terms(const ug_opshape *sh, const ug_shape *s);
size_t ug_opshape_terms_at(const ug_opshape *sh, const ug_shape *s, size_t e);
double ug_opshape_work(const ug_opshape *sh, const ug_shape *s);
double ug_opshape_flops(const ug_opshape *sh, const ug_shape *s);
double ug_opshape_bytes(const ug_opshape *sh, const ug_shape *s);
/* The elements a GPU launcher holds on the device for one call (kernels/cuda/device.cu checks
 * them against the free memory): every input and output, and for index-aligned vectors a
 * working copy of input 0 and its partial sums (1/512 of it: a multi-pass tree). */
double ug_opshape_device_elements(const ug_opshape *sh, const ug_shape *s);
/* The elements of every input of one trial. */
double ug_opshape_elements_in(const ug_opshape *sh, const ug_shape *s);
/* UG_LAYOUT_VECTORS: how many vectors of dim[0] input i holds (0 for an input it does not
 * read; 1 for every input of another layout); their sum over the inputs (a corpus line's
 * values, `ulpgate check`'s files). */
int ug_opshape_in_width(const ug_opshape *sh, int i);
int ug_opshape_width(const ug_opshape *sh);

/* ---- shapes ------------------------------------------------------------------------------------ */

/* The shape of n in every dimension (a vector operation's length; a square GEMM). */
ug_shape ug_shape_square(size_t n);
/* s with the dims past sh's own zeroed (a vector operation's n alone): the shape a result row
 * holds, written and read back the same.  NULL sh: s unchanged. */
ug_shape ug_opshape_canon(const ug_opshape *sh, const ug_shape *s);
/* Whether a and b are the same sizes (batch, heads: 0 and 1 alike). */
bool ug_shape_equal(const ug_shape *a, const ug_shape *b);
/* Parse text as sh's size: "1000" (every dimension), or "MxNxK", one size a named dimension,
 * each 1 .. max.  0, or -1 with err saying what is wrong. */
int ug_opshape_parse(const ug_opshape *sh, const char *text, size_t max, ug_shape *s, char *err,
                     size_t errlen);
/* The size as a run names it: "1000"; "MxNxK", or "N" when every dimension is N and compact. */
const char *ug_opshape_text(const ug_opshape *sh, const ug_shape *s, bool compact, char *buf,
                            size_t len);

/* ---- a call's buffers, sized by its operation's row ------------------------------------------ */

/* Elements of input i of c and of its output j (0 for one its operation does not have). */
size_t ug_call_in_count(const ug_call *c, int i);
size_t ug_call_out_count_at(const ug_call *c, int j);
static inline size_t ug_call_out_count(const ug_call *c) { return ug_call_out_count_at(c, 0); }
/* Hand c (op and shape set) binary32 buffers: x (and y: NULL for an operation of one input)
 * in, out for output 0, with their counts: how a test or case fills a call by hand. */
void ug_call_set_f32(ug_call *c, const float *x, const float *y, float *out);
/* Whether k takes binary32 buffers: its inputs (of the op's arity) and its outputs stored in
 * binary32, whatever it accumulates or rounds its operands to.  O(1). */
bool ug_kernel_is_f32(const ug_kernel *k);

#ifdef __cplusplus
}
#endif
#endif

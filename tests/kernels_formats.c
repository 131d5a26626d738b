/*
 * kernels_formats.c - the number-format kernels (kernels/cpu/reduce_f64.c,
 * reduce_half.c, kernels/cuda/reduce_f64.cu, reduce_half.cu) checked directly, before the
 * harness can feed them: typed ug_call buffers built by hand (binary64, binary16 and bfloat16
 * bit patterns), each kernel run on them, its output compared with the exact result (MPFR,
 * exact: the sum or dot of the widened values, no rounding anywhere) within the a-priori bound
 * of its registry row (kernels/bounds.c).
 *
 *   kernels_formats/cpu_within_bounds      every CPU format kernel, every input set below
 *   kernels_formats/cpu_findings           what the formats do, bit for bit: a binary16
 *                                          accumulator stagnates at 2048; Kahan in binary64 keeps
 *                                          what serial loses; binary32 accumulation of 16-bit
 *                                          data is exact where the data are
 *   kernels_formats_gpu/within_bounds      every CUDA format kernel, the same inputs (skips
 *                                          without a device: its own meson test, suite gpu)
 *   kernels_formats_gpu/findings           rowsum_bf16 rounds once; the fp16 hadd2 sum keeps
 *                                          binary16 partial sums
 *
 * The kernels are found by their rows: every kernel whose input or output is not binary32.
 * While kernels/meson.build does not register the format families (format_families_registered),
 * this program adds them itself, as fixture families (the -D flags of tests/meson.build).
 */
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/ug.h"
#include "kernels/registry_testing.h"

#if !UG_FORMAT_FAMILIES_REGISTERED
extern const ug_family UG_FAMILY_SYMBOL(cpu_reduce_f64, default);
extern const ug_family UG_FAMILY_SYMBOL(cpu_reduce_half, default);
#if UG_KF_CUDA
extern const ug_family UG_FAMILY_SYMBOL(reduce_f64, default);
extern const ug_family UG_FAMILY_SYMBOL(reduce_half, default);
#endif
__attribute__((constructor)) static void ug_kf_register(void)
{
    ug_registry_add_family(&UG_FAMILY_SYMBOL(cpu_reduce_f64, default));
    ug_registry_add_family(&UG_FAMILY_SYMBOL(cpu_reduce_half, default));
#if UG_KF_CUDA
    ug_registry_add_family(&UG_FAMILY_SYMBOL(reduce_f64, default));
    ug_registry_add_family(&UG_FAMILY_SYMBOL(reduce_half, default));
#endif
}
#endif

/* ---- inputs ------------------------------------------------------------------------------------- */

/* splitmix64: a fixed, seeded stream (the same inputs every run). */
static uint64_t ug_kf_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The input sets.  Each fills n elements of format f as raw bit patterns. */
typedef enum {
    UG_KF_RANDOM,    /* random sign, fraction and exponent (a band of +-16 binades about 1; for
                        binary16 every exponent field but inf/NaN's, subnormals included) */
    UG_KF_SMALL,     /* values in (-1, 1): what a binary16 accumulator can hold for long */
    UG_KF_CANCEL,    /* pairs +-M of large M (2^8 for 16-bit formats, 2^60 binary64) among
                        random values: the exact sum is small beside S */
    UG_KF_ONE_TINY,  /* 1, then n - 1 copies of a quarter ulp of 1 (2^-54, 2^-9, 2^-12): what
                        a serial sum in the input's format drops entirely */
    UG_KF_SETS
} ug_kf_set;

static const char *const ug_kf_set_names[] = {"random", "small", "cancel", "one_tiny"};

/* A quarter ulp of 1 in f: 1 + it rounds back to 1 in f (the tiny term). */
static double ug_kf_tiny(ug_fmt f)
{
    return f == UG_F64 ? 0x1p-54 : f == UG_BF16 ? 0x1p-9 : 0x1p-12;
}

/* Element i of a set in format f, as a bit pattern; *s is the set's stream, base its seed. */
static uint64_t ug_kf_bits(ug_fmt f, ug_kf_set set, size_t i, uint64_t *s, uint64_t base)
{
    uint64_t r = ug_kf_next(s), sign = r >> 63;
    switch (set) {
    case UG_KF_RANDOM:
        if (f == UG_F16) { /* exponent field 0..30: subnormals, every normal binade */
            uint64_t e = (r >> 10) % 31;
            return sign << 15 | e << 10 | (r & 0x3ff);
        }
        if (f == UG_BF16) { /* 2^-16 .. 2^16 */
            uint64_t e = 127 - 16 + (r >> 7) % 33;
            return sign << 15 | e << 7 | (r & 0x7f);
        }
        return ug_fmt_encode(f, ldexp((double)(r >> 11) * 0x1p-53 + 0.5, (int)((r >> 3) % 33) - 16)
                                    * (sign ? -1 : 1));
    case UG_KF_SMALL:
        return ug_fmt_encode(f, ((double)(r >> 11) * 0x1p-52 - 1) * 0.999);
    case UG_KF_CANCEL:
        if (i % 4 < 2) { /* elements 4j and 4j+1: +M_j and -M_j */
            uint64_t h = base ^ (uint64_t)(i / 4) * 0xd1b54a32d192ed03ull;
            double m = (f == UG_F64 ? 0x1p60 : 0x1p8) * (1 + (double)(ug_kf_next(&h) >> 40) * 0x1p-24);
            return ug_fmt_encode(f, i % 4 ? -m : m);
        }
        return ug_kf_bits(f, UG_KF_RANDOM, i, s, base);
    case UG_KF_ONE_TINY:
        return ug_fmt_encode(f, i == 0 ? 1.0 : ug_kf_tiny(f));
    case UG_KF_SETS: break;
    }
    return 0;
}

static void *ug_kf_make(ug_fmt f, ug_kf_set set, size_t n, uint64_t seed)
{
    size_t b = ug_fmt_bytes(f);
    unsigned char *p = calloc(n ? n : 1, b);
    uint64_t stream = seed;
    if (!p) return NULL;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = ug_kf_bits(f, set, i, &stream, seed);
        memcpy(p + i * b, &v, b); /* little-endian: the low bytes are the pattern */
    }
    return p;
}

/* ---- the exact result and the check ------------------------------------------------------------ */

/* Binary64 values have exponents in [-1074, 1023]; products [-2148, 2047]: 4400 bits hold any
 * sum of up to 2^100 of them exactly. */
enum { UG_KF_PREC = 4400 };

typedef struct {
    double got, exact, err, bound;
    bool ran;
} ug_kf_outcome;

/* Run k on x (and y for a dot), n elements in k's input formats; compare with the exact sum or
 * dot of the widened values within k's a-priori bound (an assertion on the test point).
 * Returns what it saw. */
static ug_kf_outcome ug_kf_check(ug_t *t, const ug_kernel *k, const void *x, const void *y,
                                 size_t n, const char *what)
{
    ug_kf_outcome o = {0};
    bool dot = k->op == UG_OP_DOT;
    unsigned char out[8];
    ug_call c;
    memset(&c, 0, sizeof c);
    memset(out, 0xff, sizeof out); /* the poison: a kernel that never writes is caught */
    c.op = k->op;
    c.shape.dim[0] = n;
    c.in[0] = (ug_arg){x, k->in_store[0], n};
    if (dot) c.in[1] = (ug_arg){y, k->in_store[1], n};
    c.out[0] = (ug_arg_out){out, k->out_fmt, 1};
    int rc = ug_kernel_run(k, &c);
    UG_EXPECT_MSG(rc == 0, "%s on %s n=%zu: %s", k->id, what, n, c.err);
    if (rc != 0) return o;
    o.ran = true;
    o.got = ug_fmt_load(k->out_fmt, out, 0);

    mpfr_t s, S, p;
    mpfr_inits2(UG_KF_PREC, s, S, p, (mpfr_ptr)0);
    mpfr_set_zero(s, 1);
    mpfr_set_zero(S, 1);
    for (size_t i = 0; i < n; i++) {
        mpfr_set_d(p, ug_fmt_load(k->in_store[0], x, i), MPFR_RNDN); /* exact */
        if (dot) mpfr_mul_d(p, p, ug_fmt_load(k->in_store[1], y, i), MPFR_RNDN); /* exact */
        mpfr_add(s, s, p, MPFR_RNDN);                                        /* exact */
        mpfr_abs(p, p, MPFR_RNDN);
        mpfr_add(S, S, p, MPFR_RNDN);
    }
    o.exact = mpfr_get_d(s, MPFR_RNDN);
    double Sup = mpfr_get_d(S, MPFR_RNDU), sabs = fabs(mpfr_get_d(s, MPFR_RNDA));
    o.bound = ug_bound_terms(k, dot ? UG_TERMS_PRODUCTS : UG_TERMS_VALUES, n, Sup, sabs);
    if (isfinite(o.got)) {
        mpfr_sub_d(p, s, o.got, MPFR_RNDN); /* exact */
        mpfr_abs(p, p, MPFR_RNDN);
        o.err = mpfr_get_d(p, MPFR_RNDU);
    } else {
        o.err = INFINITY;
    }
    UG_EXPECT_MSG(o.err <= o.bound, "%s on %s n=%zu: got %a, exact %a: error %.3g above its %s "
                  "bound %.3g", k->id, what, n, o.got, o.exact, o.err,
                  ug_bound_class_name(k->bound), o.bound);
    mpfr_clears(s, S, p, (mpfr_ptr)0);
    return o;
}

/* The sizes: tiny, about a warp, about a block, and past a grid's first wave. */
static const size_t ug_kf_sizes[] = {1, 2, 3, 31, 33, 255, 257, 1000, 2047, 4097, 70001, 300007};

/* Whether k is one of the format kernels (an input or the output not binary32). */
static bool ug_kf_is_format_kernel(const ug_kernel *k)
{
    /* sums and dots only: one output each (the row operations' bfloat16-output kernels write n) */
    if (k->op != UG_OP_SUM && k->op != UG_OP_DOT) return false;
    return k->in_store[0] != UG_F32 || k->in_store[1] != UG_F32 || k->out_fmt != UG_F32;
}

/* Whether the set can be graded on k at n: a binary16 accumulator's class is vacuous from depth
 * 2048 on, and the sets that reach binary16's range (random: up to 65504; cancel: 2^8 pairs
 * among them) leave it no bound at all: only small and one_tiny, below depth 2048. */
static bool ug_kf_gradable(const ug_kernel *k, ug_kf_set set, size_t n)
{
    if (k->bound != UG_BOUND_F16_ACC) return true;
    return (set == UG_KF_SMALL || set == UG_KF_ONE_TINY) && ug_kernel_depth(k, n) < 2048;
}

static void ug_kf_all(ug_t *t, ug_backend backend)
{
    size_t kernels = 0, checks = 0, vacuous = 0;
    for (size_t i = 0; i < ug_kernel_count(); i++) {
        const ug_kernel *k = ug_kernel_at(i);
        if (k->backend != backend || !ug_kf_is_format_kernel(k)) continue;
        kernels++;
        for (int set = 0; set < UG_KF_SETS; set++)
            for (size_t si = 0; si < sizeof ug_kf_sizes / sizeof ug_kf_sizes[0]; si++) {
                size_t n = ug_kf_sizes[si];
                if (!ug_kf_gradable(k, (ug_kf_set)set, n)) continue;
                if (backend == UG_CPU && n > 70001) continue; /* the CPU suite's time */
                uint64_t seed = 0x5eed0000u + 131 * (uint64_t)set + n;
                void *x = ug_kf_make(k->in_store[0], (ug_kf_set)set, n, seed);
                void *y = k->op == UG_OP_DOT ? ug_kf_make(k->in_store[1], (ug_kf_set)set, n, ~seed)
                                             : NULL;
                UG_ASSERT_MSG(x && (y || k->op != UG_OP_DOT), "out of memory (n=%zu)", n);
                char what[64];
                snprintf(what, sizeof what, "%s %s", ug_kf_set_names[set],
                         ug_fmt_name(k->in_store[0]));
                ug_kf_outcome o = ug_kf_check(t, k, x, y, n, what);
                free(x);
                free(y);
                checks++;
                vacuous += o.ran && isinf(o.bound);
            }
    }
    ug_note(t, "%zu %s format kernels, %zu runs checked against the exact result (%zu of them "
            "with no finite bound: partial sums that may leave binary16's range)", kernels,
            ug_backend_name(backend), checks, vacuous);
    UG_EXPECT_MSG(kernels >= (backend == UG_CPU ? 9u : 10u), "only %zu %s format kernels found",
                  kernels, ug_backend_name(backend));
}

static const ug_kernel *ug_kf_kernel(ug_t *t, const char *name)
{
    const ug_kernel *k = ug_kernel_find(name);
    UG_ASSERT_MSG(k != NULL, "kernel %s is not registered", name);
    return k;
}

/* n copies of the value v in format f. */
static void *ug_kf_const(ug_fmt f, double v, size_t n)
{
    size_t b = ug_fmt_bytes(f);
    unsigned char *p = malloc(n * b);
    if (!p) return NULL;
    for (size_t i = 0; i < n; i++) ug_fmt_store(f, p, i, v);
    return p;
}

UG_CASE(kernels_formats, cpu_within_bounds) { ug_kf_all(t, UG_CPU); }

UG_CASE(kernels_formats, cpu_findings)
{
    /* 4096 ones: a binary16 accumulator stops at 2048 (2048 + 1 is a tie, rounded to even
     * 2048), a binary32 one reaches 4096 exactly. */
    void *ones = ug_kf_const(UG_F16, 1.0, 4096);
    UG_ASSERT_MSG(ones, "out of memory");
    ug_kf_outcome a = ug_kf_check(t, ug_kf_kernel(t, "serial_f16acc"), ones, NULL, 4096, "ones");
    ug_kf_outcome b = ug_kf_check(t, ug_kf_kernel(t, "serial_f16_f32acc"), ones, NULL, 4096, "ones");
    UG_EXPECT_MSG(a.got == 2048 && isinf(a.bound), "serial_f16acc on 4096 ones: %g (want 2048, "
                  "its class vacuous: bound %g)", a.got, a.bound);
    UG_EXPECT_MSG(b.got == 4096, "serial_f16_f32acc on 4096 ones: %g (want 4096)", b.got);
    free(ones);

    /* 1 and 1000 quarter ulps: serial binary64 keeps 1; Kahan gets the exact sum (1 + 250
     * 2^-52, a binary64 number); pairwise loses the first few to 1 and stays in its bound. */
    void *x = ug_kf_make(UG_F64, UG_KF_ONE_TINY, 1001, 1);
    UG_ASSERT_MSG(x, "out of memory");
    ug_kf_outcome se = ug_kf_check(t, ug_kf_kernel(t, "serial_f64"), x, NULL, 1001, "one_tiny");
    ug_kf_outcome ka = ug_kf_check(t, ug_kf_kernel(t, "kahan_f64"), x, NULL, 1001, "one_tiny");
    ug_kf_outcome pw = ug_kf_check(t, ug_kf_kernel(t, "pairwise_f64"), x, NULL, 1001, "one_tiny");
    UG_EXPECT_MSG(se.got == 1.0, "serial_f64: %a (want 1: every tiny term lost)", se.got);
    UG_EXPECT_MSG(ka.got == se.exact, "kahan_f64: %a, want the rounded exact sum %a", ka.got, se.exact);
    UG_EXPECT_MSG(pw.got > 1.0, "pairwise_f64: %a, want more than 1 (most tiny terms kept)", pw.got);
    free(x);

    /* the same for 16-bit data: a binary32 accumulator holds 1 + k 2^-9 (bf16) and
     * 1 + k 2^-12 (f16) exactly */
    static const ug_fmt half[] = {UG_BF16, UG_F16};
    static const char *const names[] = {"serial_bf16_f32acc", "serial_f16_f32acc"};
    for (int h = 0; h < 2; h++) {
        void *v = ug_kf_make(half[h], UG_KF_ONE_TINY, 1001, 1);
        UG_ASSERT_MSG(v, "out of memory");
        ug_kf_outcome r = ug_kf_check(t, ug_kf_kernel(t, names[h]), v, NULL, 1001, "one_tiny");
        UG_EXPECT_MSG(r.got == r.exact, "%s: %a, want exactly %a", names[h], r.got, r.exact);
        free(v);
    }
}

UG_CASE_EX(kernels_formats_gpu, within_bounds, UG_CASE_GPU) { ug_kf_all(t, UG_CUDA); }

UG_CASE_EX(kernels_formats_gpu, findings, UG_CASE_GPU)
{
    /* rowsum_bf16 accumulates in binary32 and rounds once: 1 and 1000 copies of 2^-9 (each
     * lost by a bfloat16 accumulator) sum exactly to 1 + 1000 2^-9 in binary32, so the output
     * is that rounded once to bfloat16 (2.953125 = 0x1.7ap1), bit for bit. */
    void *v = ug_kf_make(UG_BF16, UG_KF_ONE_TINY, 1001, 1);
    UG_ASSERT_MSG(v, "out of memory");
    ug_kf_outcome r = ug_kf_check(t, ug_kf_kernel(t, "rowsum_bf16"), v, NULL, 1001, "one_tiny");
    double want = ug_fmt_round(UG_BF16, r.exact, UG_RN);
    UG_EXPECT_MSG(!r.ran || r.got == want, "rowsum_bf16: %a, want %a (the exact sum rounded once)",
                  r.got, want);
    free(v);

    /* the binary16 accumulator of reduce_f16_hadd2 keeps binary16 partial sums: 1 and 2^-12
     * copies lose them where the binary32 one keeps them */
    void *w = ug_kf_make(UG_F16, UG_KF_ONE_TINY, 1001, 1);
    UG_ASSERT_MSG(w, "out of memory");
    ug_kf_outcome h = ug_kf_check(t, ug_kf_kernel(t, "reduce_f16_hadd2"), w, NULL, 1001, "one_tiny");
    ug_kf_outcome f = ug_kf_check(t, ug_kf_kernel(t, "reduce_f16_f32acc_shuffle"), w, NULL, 1001,
                                  "one_tiny");
    UG_EXPECT_MSG(!f.ran || f.got == f.exact, "reduce_f16_f32acc_shuffle: %a, want exactly %a",
                  f.got, f.exact);
    ug_note(t, "one_tiny f16, n=1001: reduce_f16_hadd2 %a, f32 accumulation %a, exact %a", h.got,
            f.got, f.exact);
    free(w);
}

/* ---- the bound classes of the format kernels, by hand (tests/bounds.c's way) -------------------- */

static void ug_kf_expect_bound(ug_t *t, const char *what, double got, double want)
{
    UG_EXPECT_MSG(got >= want && got <= want * (1 + 0x1p-39), "%s: bound %.17g, by hand %.17g",
                  what, got, want);
}

static size_t ug_kf_depth5(size_t n) { return n ? 5 : 0; }

static ug_kernel ug_kf_row(ug_bound_class b, ug_op op)
{
    ug_kernel k;
    memset(&k, 0, sizeof k);
    k.name = "hand";
    k.op = op;
    k.bound = b;
    k.depth = ug_kf_depth5;
    return k;
}

UG_CASE(kernels_formats, bound_classes)
{
    /* n = 100 terms, D = 5, S = 3, |s| = 2; gamma_k(u) = k u / (1 - k u). */
    const double u = 0x1p-24, u64 = 0x1p-53, u16 = 0x1p-11, ubf = 0x1p-8, S = 3, s = 2;
    const ug_terms V = UG_TERMS_VALUES, P = UG_TERMS_PRODUCTS;
#define G(k, uu) ((k) * (uu) / (1 - (k) * (uu)))
    ug_kernel k = ug_kf_row(UG_BOUND_F64_TREE, UG_OP_SUM);
    ug_kf_expect_bound(t, "f64_tree sum: gamma_D(u64) S", ug_bound_terms(&k, V, 100, S, s), G(5, u64) * S);
    ug_kf_expect_bound(t, "f64_tree dot: gamma_{D+1}(u64) S", ug_bound_terms(&k, P, 100, S, s),
                       G(6, u64) * S);
    k = ug_kf_row(UG_BOUND_F64_KAHAN, UG_OP_SUM);
    ug_kf_expect_bound(t, "f64_kahan sum: (2 u64 + 4 n u64^2) S", ug_bound_terms(&k, V, 100, S, s),
                       (2 * u64 + 400 * u64 * u64) * S);
    ug_kf_expect_bound(t, "f64_kahan dot: (3 u64 + 4 n u64^2) S", ug_bound_terms(&k, P, 100, S, s),
                       (3 * u64 + 400 * u64 * u64) * S);
    k = ug_kf_row(UG_BOUND_F16_ACC, UG_OP_SUM);
    ug_kf_expect_bound(t, "f16_acc sum: gamma_D(u16) S", ug_bound_terms(&k, V, 100, S, s), G(5, u16) * S);
    UG_EXPECT_MSG(isinf(ug_bound_terms(&k, P, 100, S, s)), "f16_acc: no bound for products");
    UG_EXPECT_MSG(isinf(ug_bound_terms(&k, V, 100, 65504, s)), "f16_acc: S (1 + gamma) > 65504: no bound");
    ug_kf_expect_bound(t, "f16_acc: largest S in range", ug_bound_terms(&k, V, 100, 65000, s),
                       G(5, u16) * 65000);
    UG_EXPECT_MSG(ug_kernel_operand_limit(&k) == 65504.0, "f16_acc: operands up to 65504");
    k.depth = NULL; /* serial: D = n - 1; vacuous from D = 2048 on */
    ug_kf_expect_bound(t, "f16_acc serial n = 2048", ug_bound_terms(&k, V, 2048, S, s), G(2047, u16) * S);
    UG_EXPECT_MSG(isinf(ug_bound_terms(&k, V, 2049, S, s)), "f16_acc: vacuous at D = 2048");
    k = ug_kf_row(UG_BOUND_F16_ACC, UG_OP_SUM);
    ug_kf_expect_bound(t, "f16_acc probabilistic: gamma~_D(lambda, u16) S",
                       ug_bound_prob_terms(&k, V, 100, S, s, 4.0),
                       expm1(4.0 * sqrt(5.0) * u16 + 5 * u16 * u16 / (1 - u16)) * S);
    k = ug_kf_row(UG_BOUND_BF16_OUT, UG_OP_SUM);
    ug_kf_expect_bound(t, "bf16_out sum: ubf|s| + (1 + ubf) gamma_D(u) S + 2^-134",
                       ug_bound_terms(&k, V, 100, S, s), ubf * s + (1 + ubf) * G(5, u) * S + 0x1p-134);
    ug_kf_expect_bound(t, "bf16_out dot: gamma_{D+1}(u)", ug_bound_terms(&k, P, 100, S, s),
                       ubf * s + (1 + ubf) * G(6, u) * S + 0x1p-134);
    UG_EXPECT_MSG(isinf(ug_bound_terms(&k, V, 100, 0x1.fep127, 0x1.fep127)),
                  "bf16_out: a result that may round past bfloat16's largest value: no bound");
    UG_EXPECT_MSG(ug_bound_terms(&k, V, 100, 0, 0) == 0x1p-134 * (1 + 0x1p-40),
                  "bf16_out: S = 0 leaves the output's underflow term alone");
#undef G
    static const struct {
        ug_bound_class b;
        const char *name;
    } names[] = {{UG_BOUND_F64_TREE, "f64_tree"}, {UG_BOUND_F64_KAHAN, "f64_kahan"},
                 {UG_BOUND_F16_ACC, "f16_acc"}, {UG_BOUND_BF16_OUT, "bf16_out"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        UG_EXPECT_MSG(strcmp(ug_bound_class_name(names[i].b), names[i].name) == 0,
                      "class %d is named %s, want %s", (int)names[i].b,
                      ug_bound_class_name(names[i].b), names[i].name);
}

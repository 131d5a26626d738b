/*
 * dist.h - input distributions: reproducible from (seed, stream id, trial, n) on any machine.
 *
 * A ug_dist is a plain value: a base distribution with its parameters, plus transforms (order,
 * alternating signs, injected special values).  Filling is deterministic and independent of the
 * thread count (the fills run on base/par.h's threads, ug_par_set_threads): element i depends
 * only on (seed, stream id, trial, i) -- except for the sequential constructions (GenSum/GenDot
 * second halves, sorting), which are deterministic functions of the whole vector.
 */
#ifndef UG_DIST_H
#define UG_DIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops/op.h"

typedef enum {
    UG_D_UNIFORM,    /* uniform(a, b): p1 = a, p2 = b; RN32(a + (b-a) u), u in [0,1) 53 bits,
                        clamped to [RN32(a), RN32(b)] (b only by rounding) */
    UG_D_NORMAL,     /* normal(mu, sigma): p1 = mu, p2 = sigma; Box-Muller, RN32 of binary64 */
    UG_D_LOGNORMAL,  /* exp(normal(mu, sigma)): p1 = mu, p2 = sigma of the underlying normal */
    UG_D_EXPUNIFORM, /* +-2^e, e uniform real in [p1, p2], random sign: log2|x| uniform, i.e.
                        m * 2^floor(e) with m = 2^frac(e) in [1,2) (log-uniform mantissa); for
                        integer p1, p2 every |x| is in [2^p1, 2^p2]; -149 <= p1 <= p2 <= 127 */
    UG_D_CONSTANT,   /* every element (float)p1 */
    UG_D_MSVC_RAND01, /* the Kahan-matmul post's generator: (float)rand()/RAND_MAX +
                         (float)rand()/(RAND_MAX*RAND_MAX), MSVC rand, srand(trial); the
                         global seed does not enter */
    UG_D_GENSUM,     /* Ogita-Rump-Oishi GenSum: condition number p1 (1 .. 1e30) */
    UG_D_GENDOT,     /* Ogita-Rump-Oishi GenDot: condition number p1 (1 .. 1e30); dot/gemm only.
                        Condition number = sum|terms| / |sum| (half of ORO's 2|x'||y|/|x'y|);
                        achieved: within 3e-6 relative of p1 for n >= 64 (measured; tests
                        assert 1e-3); small n: see harness/inputs/gen.c */
} ug_dist_kind;

typedef enum {
    UG_ORDER_NONE,
    UG_ORDER_ASC,      /* by value, ascending */
    UG_ORDER_DESC,     /* by value, descending (exactly ASC reversed) */
    UG_ORDER_ABS_ASC,  /* by magnitude, ascending (ties: by value) */
    UG_ORDER_ABS_DESC, /* by magnitude, descending (exactly ABS_ASC reversed) */
} ug_order;

enum {
    UG_SP_NAN = 1u << 0,
    UG_SP_POSINF = 1u << 1,
    UG_SP_NEGINF = 1u << 2,
    UG_SP_ZERO = 1u << 3,      /* +0 or -0 */
    UG_SP_SUBNORMAL = 1u << 4, /* a random binary32 subnormal of random sign */
    UG_SP_ALL = 0x1f,
    /* a distribution in a format (ug_in_format, harness/inputs/fmt_dist.c) only; there
     * UG_SP_SUBNORMAL is a random subnormal of that format, and NaN and the infinities are its
     * own (fp8 e4m3 has no infinity: a mask asking for one is refused) */
    UG_SP_MAX = 1u << 5,       /* +-the format's largest finite value (e4m3: 448) */
    UG_SP_TINY = 1u << 6,      /* +-a random value of the format's smallest normal binade */
    UG_SP_FMT_ALL = 0x7f,
};

typedef struct ug_dist {
    ug_dist_kind kind;
    double p1, p2;
    ug_order order;
    int alternate;       /* after ordering: x_i = (-1)^i |x_i| (dot: and y_i = |y_i|) */
    double special_rate; /* in [0,1]: each element replaced with this probability */
    unsigned specials;   /* UG_SP_* mask drawn from (uniformly among the set bits) */
    ug_fmt fmt;          /* the format every value is drawn in (ug_in_format); UG_F32 (0), the
                            default, is the binary32 generators above, bit for bit */
} ug_dist;

/* Constructors (plain values, so a case writes ug_sorted(ug_normal(0, 1), UG_ORDER_ASC)). */
ug_dist ug_uniform(double a, double b);
ug_dist ug_normal(double mu, double sigma);
ug_dist ug_lognormal(double mu, double sigma);
ug_dist ug_expuniform(double lo, double hi);
ug_dist ug_constant(double c);
ug_dist ug_msvc_rand01(void);
ug_dist ug_gensum(double kappa);
ug_dist ug_gendot(double kappa);
ug_dist ug_sorted(ug_dist d, ug_order order);
ug_dist ug_alternating(ug_dist d);
ug_dist ug_with_specials(ug_dist d, double rate, unsigned mask);
/* d drawn in format f (binary64, binary16, bfloat16, e4m3, e5m2): every value, special values
 * and GenSum/GenDot terms included, is a value of f, drawn as harness/inputs/fmt_dist.c says;
 * its description gains "|in(f)" (a new stream: no binary32 input changes).  Fill it with
 * ug_dist_fill_fmt. */
ug_dist ug_in_format(ug_dist d, ug_fmt f);

/* The same as constant initialisers, for static tables (a case's parameter rows); transforms
 * as designated fields after the parameters:
 *   UG_NORMAL(0, 1, .order = UG_ORDER_ASC)      = ug_sorted(ug_normal(0, 1), UG_ORDER_ASC)
 *   UG_UNIFORM(0, 1, .alternate = 1)            = ug_alternating(ug_uniform(0, 1))
 *   UG_NORMAL(0, 1, .special_rate = 0.001, .specials = UG_SP_ALL)  = ug_with_specials(...) */
#define UG_DIST_INIT(k, a, b, ...) {.kind = (k), .p1 = (a), .p2 = (b), __VA_ARGS__}
#define UG_UNIFORM(a, b, ...) UG_DIST_INIT(UG_D_UNIFORM, a, b, __VA_ARGS__)
#define UG_NORMAL(mu, sigma, ...) UG_DIST_INIT(UG_D_NORMAL, mu, sigma, __VA_ARGS__)
#define UG_LOGNORMAL(mu, sigma, ...) UG_DIST_INIT(UG_D_LOGNORMAL, mu, sigma, __VA_ARGS__)
#define UG_EXPUNIFORM(lo, hi, ...) UG_DIST_INIT(UG_D_EXPUNIFORM, lo, hi, __VA_ARGS__)
#define UG_CONSTANT(c, ...) UG_DIST_INIT(UG_D_CONSTANT, c, 0, __VA_ARGS__)
#define UG_GENSUM(kappa, ...) UG_DIST_INIT(UG_D_GENSUM, kappa, 0, __VA_ARGS__)
#define UG_GENDOT(kappa, ...) UG_DIST_INIT(UG_D_GENDOT, kappa, 0, __VA_ARGS__)

/* True when every finite value d can produce has one sign (zeros of either sign allowed), so
 * that the exact sum of any finite subset of its values has condition number 1 (sum |x_i| =
 * |sum x_i|) and an ULP error is meaningful.  The same answer holds for dot and GEMM inputs:
 * their two factors come from d on independent streams, and one-signed factors give one-signed
 * products.  d must be valid (ug_dist_validate).
 *   base kinds: uniform(a,b) with RN32(a) >= 0 or RN32(b) <= 0; normal(mu,sigma) with
 *     |mu| >= 8.5717 sigma (the generator's largest |z|: sigma = 0 and normal(3,0.25) are
 *     one-signed); lognormal; constant; msvc_rand01.  Not: expuniform (random signs), gensum,
 *     gendot (cancellation is their purpose).
 *   transforms: ordering keeps it; alternating signs make it false unless every value is 0
 *     (dot: x alternates, y >= 0, so the products do); specials keep it unless they can be
 *     subnormals (random signs): NaN and infinities never leave a finite sum. */
bool ug_dist_one_signed(const ug_dist *d);

/* A short, stable, human-readable name, e.g. "normal(0,1)", "gensum(1e+08)|sorted(abs_asc)".
 * Also part of the stream id of an input, so two distributions never share random numbers. */
const char *ug_dist_describe(const ug_dist *d, char *buf, size_t len);

/* Fill x[0..n) (op sum), or x[0..n) and y[0..n) (op dot: independent streams, except GenDot
 * which makes the pair).  Returns 0, or -1 with a message in err (bad parameters, e.g. kappa < 1,
 * b < a, rate outside [0,1]; gendot as a sum input).  Transforms in this order: ordering (dot:
 * the pairs by their product x_i*y_i, ties in index order), alternating signs, specials (x and y
 * independently).  n < 2^32. */
int ug_dist_fill_sum(const ug_dist *d, uint64_t seed, uint64_t stream_id, uint32_t trial,
                     float *x, size_t n, char *err, size_t errlen);
int ug_dist_fill_dot(const ug_dist *d, uint64_t seed, uint64_t stream_id, uint32_t trial,
                     float *x, float *y, size_t n, char *err, size_t errlen);
/* 0, or -1 with a message naming the distribution (the checks every fill makes first). */
int ug_dist_validate(const ug_dist *d, char *err, size_t errlen);
/* Element `element` of msvc_rand01 after srand(trial): rand() calls 2*element, 2*element+1. */
float ug_msvc_rand01_at(uint32_t trial, uint64_t element);

/* A (M x K) and B (K x N), row-major.  For UG_D_MSVC_RAND01, A then B are consecutive in one
 * rand() stream exactly as the Kahan-matmul post's matgen(a); matgen(b).  For GenDot, row i of
 * A and column i of B (i < min(M,N)) form a GenDot pair of condition kappa; other rows/columns
 * are further independent GenDot vectors, so off-diagonal elements pair unrelated vectors of
 * the same exponent profile.  GenSum: every row of A and column of B its own GenSum vector.
 * Ordering sorts each row of A and each column of B by its own values (this breaks GenDot
 * pairs); alternate: A[r][k] = (-1)^k |A[r][k]|, B = |B|. */
int ug_dist_fill_gemm(const ug_dist *d, uint64_t seed, uint64_t stream_id, uint32_t trial,
                      float *A, float *B, size_t M, size_t N, size_t K, char *err,
                      size_t errlen);

/* The inputs of one trial of operation op, shape s, by the layout its descriptor declares:
 * vectors of arity 1 as a sum's fill, of arity 2 as a dot's, matmul as a GEMM's.  x (and y
 * for arity 2) hold op->in_len(s, i) values.  0, or -1 with a message in err. */
int ug_dist_fill_op(const ug_dist *d, const ug_op_desc *op, uint64_t seed, uint64_t stream_id,
                    uint32_t trial, float *x, float *y, const ug_shape *s, char *err,
                    size_t errlen);

/* The inputs of one trial of a vector operation op (arity 1 or 2, UG_LAYOUT_VECTORS), every
 * value drawn in d->fmt and stored as a double (exact: every format is a subset of binary64):
 * x (and y) hold s->dim[0] values.  Reproducible from (seed, stream id, trial) as the binary32
 * fills are.  0, or -1 with a message in err naming the distribution (a parameter outside the
 * format's range, a kappa the format cannot reach, a GEMM, e4m3 infinities).
 * (harness/inputs/fmt_dist.c) */
int ug_dist_fill_fmt(const ug_dist *d, const ug_op_desc *op, uint64_t seed, uint64_t stream_id,
                     uint32_t trial, double *x, double *y, const ug_shape *s, char *err,
                     size_t errlen);

#endif

/*
 * elementwise.c - the elementwise base distributions: element i a function of (seed, stream id,
 * trial, i) only -- not n, not the thread count, not the chunking.
 *
 * The base distributions (element i; "RN32" is round-to-nearest-even to binary32):
 *   uniform(a,b)      u in [0,1) with 53 random bits (= ug_rng_unit(s, i) for x),
 *                     x = RN32(a + (b-a)*u) clamped to [RN32(a), RN32(b)].  Both ends can occur:
 *                     RN32(a) when u = 0 or by rounding, RN32(b) only by rounding.
 *   normal(mu,sigma)  Box-Muller on two 53-bit uniforms u1 in (0,1], u2 in [0,1) from one
 *                     Philox block: elements 2j and 2j+1 are r*cos(2 pi u2) and r*sin(2 pi u2),
 *                     r = sqrt(-2 ln u1) <= sqrt(106 ln 2) = 8.5716; x = RN32(mu + sigma*z)
 *                     with the arithmetic in binary64.
 *   lognormal(mu,s)   x = RN32(exp(mu + s*z)), z the normal above.
 *   expuniform(lo,hi) x = +-RN32(2^e), e uniform real in [lo, hi] (53-bit u), random sign:
 *                     log2|x| is uniform, so |x| = m*2^floor(e) with m = 2^frac(e) in [1,2)
 *                     (a log-uniform, Benford-like mantissa).  For integer lo, hi every |x| lies
 *                     in [2^lo, 2^hi] and its binade exponent in [lo, hi]; -149 <= lo <= hi <= 127
 *                     keeps every value finite and nonzero (normal when lo >= -126).
 *   constant(c)       x = RN32(c).
 *   msvc_rand01       (float)rand()/RAND_MAX + (float)rand()/(RAND_MAX*RAND_MAX) with MSVC's
 *                     rand() after srand(trial), the Kahan-matmul post's generator: see
 *                     ug_msvc_rand01_value.
 */
#include <math.h>
#include <string.h>

#include "base/par.h"
#include "harness/inputs/detmath.h"
#include "harness/inputs/dist_int.h"

/* Elements 2j, 2j+1 (j = 0..cnt) of a base distribution into v[2j], v[2j+1], from Philox
 * blocks w[j]: one loop per kind, so the inner loops are straight-line code. */
static void ug_base_batch(const ug_dist *d, const uint32_t (*w)[4], size_t cnt, float *v)
{
    const double p1 = d->p1, p2 = d->p2, width = d->p2 - d->p1;
    switch (d->kind) {
    case UG_D_UNIFORM: {
        const float lo = (float)p1, hi = (float)p2;
        for (size_t l = 0; l < 2 * cnt; l++) {
            const uint32_t *q = &w[l / 2][2 * (l % 2)];
            float x = (float)(p1 + width * ug_unit53(q[0], q[1]));
            v[l] = x < lo ? lo : x > hi ? hi : x;
        }
        break;
    }
    case UG_D_NORMAL:
    case UG_D_LOGNORMAL:
        for (size_t l = 0; l < cnt; l++) {
            double u1 = (double)((((uint64_t)w[l][1] << 32 | w[l][0]) >> 11) + 1) * 0x1p-53;
            double u2 = ug_unit53(w[l][2], w[l][3]);
            double r = sqrt(-2 * ug_fast_log(u1)), c, s;
            ug_fast_sincos2pi(u2, &c, &s);
            double z0 = p1 + p2 * (r * c), z1 = p1 + p2 * (r * s);
            if (d->kind == UG_D_LOGNORMAL) {
                z0 = ug_fast_exp(z0);
                z1 = ug_fast_exp(z1);
            }
            v[2 * l] = (float)z0;
            v[2 * l + 1] = (float)z1;
        }
        break;
    case UG_D_EXPUNIFORM:
        for (size_t l = 0; l < 2 * cnt; l++) {
            const uint32_t *q = &w[l / 2][2 * (l % 2)];
            float m = (float)ug_fast_exp2(p1 + width * ug_unit53(q[0], q[1]));
            v[l] = (q[0] & 1) ? -m : m; /* bit 0: below the 53 bits of u */
        }
        break;
    default: /* UG_D_CONSTANT */
        for (size_t l = 0; l < 2 * cnt; l++) v[l] = (float)p1;
        break;
    }
}

typedef struct {
    const ug_dist *d;
    const ug_stream *s;
    unsigned purpose;
    float *x;
} ug_base_job;

static void ug_base_range(void *ctx, size_t lo, size_t hi)
{
    enum { BATCH = 64 };
    const ug_base_job *job = ctx;
    uint32_t w[BATCH][4];
    float v[2 * BATCH];
    size_t j_end = (hi + 1) / 2;
    for (size_t j0 = lo / 2; j0 < j_end; j0 += BATCH) {
        size_t cnt = j_end - j0 < BATCH ? j_end - j0 : BATCH;
        ug_philox_blocks(job->s, (uint64_t)job->purpose << 56 | j0, cnt, w);
        ug_base_batch(job->d, (const uint32_t(*)[4])w, cnt, v);
        size_t from = 2 * j0 < lo ? lo : 2 * j0, to = 2 * (j0 + cnt) > hi ? hi : 2 * (j0 + cnt);
        memcpy(job->x + from, v + (from - 2 * j0), (to - from) * sizeof *v);
    }
}

void ug_fill_base(const ug_dist *d, const ug_stream *s, unsigned purpose, float *x, size_t n)
{
    ug_base_job job = {d, s, purpose, x};
    ug_det_init();
    ug_par_range(n, 1 << 15, 0, ug_base_range, &job);
}

/* Every value +-0: the largest magnitude the kind can make rounds to 0 in binary32 (for the
 * lognormal with sigma = 0, the value itself, computed as the fill does). */
bool ug_base_all_zero(const ug_dist *d)
{
    switch (d->kind) {
    case UG_D_UNIFORM: return (float)d->p1 == 0 && (float)d->p2 == 0;
    case UG_D_NORMAL: return (float)(fabs(d->p1) + UG_NORMAL_ZMAX * d->p2) == 0;
    case UG_D_LOGNORMAL:
        ug_det_init();
        return (float)ug_fast_exp(d->p1 + UG_NORMAL_ZMAX * d->p2) == 0;
    case UG_D_CONSTANT: return (float)d->p1 == 0;
    default: return false; /* expuniform: |x| >= 2^-149; msvc_rand01, gensum, gendot: not all 0 */
    }
}

/* ---- msvc_rand01: the Kahan-matmul post's generator ------------------------------------- */

/* a[i] = (float)rand() / RAND_MAX + (float)rand() / (RAND_MAX * RAND_MAX), evaluated as the C
 * expression is on MSVC x64 (SSE, FLT_EVAL_METHOD 0): RAND_MAX (int) converts to 32767.0f,
 * RAND_MAX * RAND_MAX is the int 1073676289, which converts to the float 1073676288.0f; two
 * binary32 divisions, then a binary32 addition.  The two rand() calls are taken left to right
 * (C leaves the order unspecified; MSVC evaluates them in this order).  The casts round each
 * step to binary32 even where FLT_EVAL_METHOD != 0, and a binary64 or x87 intermediate rounded
 * to binary32 gives the same value (double rounding is innocuous for +, / at 53 >= 2*24+2). */
static float ug_msvc_rand01_value(uint32_t r1, uint32_t r2)
{
    const float rmax = (float)UG_MSVC_RAND_MAX;
    const float rmax2 = (float)(UG_MSVC_RAND_MAX * UG_MSVC_RAND_MAX);
    float q1 = (float)((float)r1 / rmax);
    float q2 = (float)((float)r2 / rmax2);
    return (float)(q1 + q2);
}

float ug_msvc_rand01_at(uint32_t trial, uint64_t element)
{
    return ug_msvc_rand01_value(ug_msvc_rand_at(trial, 2 * element),
                                ug_msvc_rand_at(trial, 2 * element + 1));
}

typedef struct {
    uint32_t trial;
    uint64_t first_call; /* rand() call index of x[0]'s first call */
    float *x;
} ug_msvc_rand01_job;

static void ug_msvc_rand01_range(void *ctx, size_t lo, size_t hi)
{
    const ug_msvc_rand01_job *job = ctx;
    uint32_t x = ug_msvc_state_after(job->trial, job->first_call + 2 * (uint64_t)lo);
    for (size_t i = lo; i < hi; i++) {
        x = x * 214013u + 2531011u;
        uint32_t r1 = (x >> 16) & 0x7fffu;
        x = x * 214013u + 2531011u;
        uint32_t r2 = (x >> 16) & 0x7fffu;
        job->x[i] = ug_msvc_rand01_value(r1, r2);
    }
}

void ug_fill_msvc_rand01(uint32_t trial, uint64_t first_call, float *x, size_t n)
{
    ug_msvc_rand01_job job = {trial, first_call, x};
    ug_par_range(n, 1 << 16, 0, ug_msvc_rand01_range, &job);
}

/* tcfamily.c - the input families of the tensor-core model checks (tcfamily.h). */
#include <math.h>

#include "oracle/tc/tcfamily.h"

static uint64_t ug_tcf_rng(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double ug_tcf_unif(uint64_t *s) { return (double)(ug_tcf_rng(s) >> 11) * 0x1p-53; }

static const char *const ug_tcf_names[UG_TC_FAMILIES] = {
    "uniform [0,1)", "normal(0,1)", "signed, exponents -8..8", "cancelling pairs",
    "one large term per 16", "near-ties at the grid", "tiny (2^-60 scale)"};

const char *ug_tc_family_name(int f)
{
    return f >= 0 && f < UG_TC_FAMILIES ? ug_tcf_names[f] : "?";
}

/* One element of family f; kk its index along K (A's column, B's row), b: of B. */
static double ug_tcf_value(int f, bool b, size_t kk, ug_fmt fmt, uint64_t *s)
{
    double v, u = ug_tcf_unif(s), sg = ug_tcf_rng(s) & 1 ? -1 : 1;
    switch (f) {
    case 0: v = u; break;
    case 1: v = sqrt(-2 * log(u + 0x1p-60)) * cos(6.283185307179586 * ug_tcf_unif(s)); break;
    case 2: v = sg * ldexp(1 + u, (int)(ug_tcf_rng(s) % 17) - 8); break;
    case 3: /* A: x, x' alternating in pairs; B: +1, -1: each pair cancels to a few low bits */
        v = b ? (kk & 1 ? -1.0 : 1.0) : 1 + floor(u * 8) / 8 + (kk & 1 ? ldexp(sg, -7) : 0);
        break;
    case 4: v = kk % 16 == 0 ? sg * ldexp(1 + u, 6) : sg * ldexp(1 + u, -10); break;
    case 5: v = 1 + ldexp(floor(u * 128), -7) + (kk % 3 == 0 ? ldexp(1.0, -7) : 0); break;
    default: v = sg * ldexp(1 + u, -30 - (int)(ug_tcf_rng(s) % 8)); break;
    }
    const ug_format *F = ug_format_of(fmt);
    if (f == 6 && fmt != UG_BF16 && fmt != UG_TF32) v = ldexp(v, 24); /* narrow formats: in range */
    v = ug_fmt_round(fmt, v, UG_RN);
    if (!(fabs(v) <= F->max)) v = copysign(F->max, v);
    return v;
}

void ug_tc_family_fill(int f, uint64_t seed, ug_fmt fmt, double *A, double *B, size_t M, size_t N,
                       size_t K)
{
    uint64_t s = seed;
    for (size_t e = 0; e < M * K; e++) A[e] = ug_tcf_value(f, false, e % K, fmt, &s);
    for (size_t e = 0; e < K * N; e++) B[e] = ug_tcf_value(f, true, e / N, fmt, &s);
}

/*
 * oracle_xacc.c - the exact accumulator (oracle/xacc.h) on its own, against the MPFR oracle.
 *
 * Addition sequences that the sums of the other tests do not produce: thousands of additions
 * into one chunk (the signed top chunk outgrowing 2^31, carries beyond the touched range), an
 * exact negative power of 2^32 (two's complement of all-zero digits), merges of partial
 * accumulators, under several normalisation intervals.  Each result (hi, lo, rn, rd read by
 * ug_xacc_fill) must equal the MPFR oracle's for the sum of the same binary64 values.
 * (oracle_diff/normalisation runs whole sums with short normalisation intervals.)
 * The large accumulator (ug_xbig) on the same scenarios: bins spilled after 2048 additions of
 * one value (scenarios 0-2), every sign and exponent field (3, 5), the lowest binades (6).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"
#include "harness/run/ug.h"
#include "oracle/xacc.h"

enum { NV = 9000 };

/* The values of scenario scen (deterministic: its own LCG). */
static void scenario_values(int scen, double *v)
{
    uint64_t st = 0x9e3779b97f4a7c15ULL * (uint64_t)(scen + 1);
    for (size_t n = 0; n < NV; n++) {
        st = st * 6364136223846793005ULL + 1442695040888963407ULL;
        double r = (double)(st >> 11) * 0x1p-53;
        switch (scen) {
        case 0: /* one value many times; shifted by 31 bits into its 3 chunks, it adds ~2^20 to
                 * the top one each time: past 2^31, and past 2^32 */
            v[n] = 0x1.fffffffffffffp+513;
            break;
        case 1: /* the same, negative, with a tiny positive every 100th term */
            v[n] = n % 100 ? -0x1.fffffffffffffp+513 : 0x1p-1074;
            break;
        case 2: /* 2^83 * 2^(32*7 - 1074): 2^19 in one chunk, zero below; 2^13 of them negative
                 * make the chunk exactly -2^32 */
            v[n] = n < 8192 ? -0x1p-767 : 0.0;
            break;
        case 3: /* random magnitudes over the whole range, random signs */
            v[n] = ldexp(1.0 + r, (int)(st % 2000) - 1000) * ((st >> 7) & 1 ? -1 : 1);
            break;
        case 4: /* pairs cancelling to a negative remainder */
            v[n] = n % 2 ? -(0x1p+700 + 0x1p-300) : 0x1p+700;
            break;
        case 6: /* the lowest binades: subnormals (field 0) and fields 1 and 2, either sign */
            v[n] = ldexp(r, -1021 - (int)(st % 3)) * ((st >> 7) & 1 ? -1 : 1);
            break;
        default: /* huge values near DBL_MAX and subnormals */
            v[n] = n % 3 ? ((st >> 9) & 1 ? DBL_MAX : -DBL_MAX / 3) : 0x1p-1060 * r;
            break;
        }
    }
}

UG_CASE(oracle, xacc)
{
    static const uint32_t intervals[] = {UG_XACC_NORM_EVERY, 1, 3, 1000};
    double *v = ug_xmalloc(NV * sizeof *v);
    ug_xacc *a = ug_xmalloc(sizeof *a), *b = ug_xmalloc(sizeof *b);
    for (int scen = 0; scen < 6; scen++) {
        scenario_values(scen, v);
        for (size_t iv = 0; iv < sizeof intervals / sizeof intervals[0]; iv++) {
            ug_xacc_set_norm_interval(intervals[iv]);
            ug_xacc_init(a);
            ug_xacc_init(b);
            for (size_t i = 0; i < NV; i++) /* a third apart, merged (scenarios 0-2: one piece,
                                               * so the digits see the unnormalised chunks) */
                ug_xacc_add(i < NV / 3 && scen > 2 ? b : a, v[i]);
            ug_xacc_merge(a, b);
            ug_xacc_set_norm_interval(0);
            ug_exact got, ref;
            ug_exact_sum_f64_mpfr(v, NV, &ref);
            memset(&got, 0, sizeof got);
            int nonzero = ug_xacc_fill(a, &got);
            got.sum_abs = ref.sum_abs;
            UG_EXPECT_MSG(nonzero ? ug_exact_equal(&got, &ref) : ref.hi == 0,
                          "xacc self-test: scenario %d, interval %u: hi=%a lo=%a rn=%a rd=%a, "
                          "MPFR hi=%a lo=%a rn=%a rd=%a",
                          scen, intervals[iv], got.hi, got.lo, (double)got.rn, (double)got.rd,
                          ref.hi, ref.lo, (double)ref.rn, (double)ref.rd);
        }
    }
    ug_xacc_set_norm_interval(0);
    free(b);
    free(a);
    free(v);
}

UG_CASE(oracle, xbig)
{
    double *v = ug_xmalloc(NV * sizeof *v);
    ug_xacc *a = ug_xmalloc(sizeof *a);
    ug_xbig *g = ug_xmalloc(sizeof *g);
    ug_xbig_init(g);
    for (int scen = 0; scen < 7; scen++) {
        scenario_values(scen, v);
        for (int split = 0; split < 2; split++) { /* one call, or calls of 1000 values */
            ug_xacc_init(a);
            for (size_t i = 0; i < NV; i += split ? 1000 : NV)
                ug_xbig_add_n(g, a, v + i, NV - i < (split ? 1000 : NV) ? NV - i
                                                                      : (split ? 1000 : NV));
            ug_xbig_flush(g, a);
            ug_exact got, ref;
            ug_exact_sum_f64_mpfr(v, NV, &ref);
            memset(&got, 0, sizeof got);
            int nonzero = ug_xacc_fill(a, &got);
            got.sum_abs = ref.sum_abs;
            UG_EXPECT_MSG(nonzero ? ug_exact_equal(&got, &ref) : ref.hi == 0,
                          "xbig: scenario %d, split %d: hi=%a lo=%a rn=%a rd=%a, MPFR hi=%a "
                          "lo=%a rn=%a rd=%a", scen, split, got.hi, got.lo, (double)got.rn,
                          (double)got.rd, ref.hi, ref.lo, (double)ref.rn, (double)ref.rd);
        }
    }
    free(g);
    free(a);
    free(v);
}

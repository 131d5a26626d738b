/*
 * scan.c - every CPU prefix-sum kernel (scan and exscan: serial, Hillis-Steele, Blelloch, the
 * decoupled look-back's order) on the reductions' distributions, GenSum prefixes to kappa =
 * 1e16, wide magnitudes with alternating signs and injected specials, at sizes on every tile
 * and power-of-two boundary.
 *
 * What is asserted, and why: bound ratio <= 1 for every output of every kernel (output i held
 * to its own a-priori bound: a sum of its own i + 1 (exscan: i) terms at the kernel's depth for
 * that many, gamma_D(m) S_i, kernels/cpu/scan.c derives each D; a special output must be that
 * special).  GenSum's inputs cancel in the whole sum, so their long prefixes climb and fall:
 * the late outputs are ill-conditioned, the early ones not, and each meets its own bound.
 */
#include "cases/scan_profile.h"
#include "harness/run/ug.h"

static const size_t ug_scan_sizes[] = {1, 2, 3, 17, 255, 256, 257, 1000, 1024, 1025, 4097};
static const size_t ug_scan_sizes_gen[] = {64, 257, 1000, 4097};
static const size_t ug_scan_sizes_specials[] = {1, 3, 1000};

enum { UG_SCAN_TRIALS = 3 };

static const ug_param ug_scan_dists[] = {
    {"uniform01", UG_UNIFORM(0, 1)},
    {"normal", UG_NORMAL(0, 1)},
    {"lognormal_alternating", UG_LOGNORMAL(0, 3, .alternate = 1)},
    {"gensum_1e8", UG_GENSUM(1e8), UG_SIZES(ug_scan_sizes_gen)},
    {"gensum_1e16", UG_GENSUM(1e16), UG_SIZES(ug_scan_sizes_gen)},
    {"gensum_1e8_abs_desc", UG_GENSUM(1e8, .order = UG_ORDER_ABS_DESC), UG_SIZES(ug_scan_sizes_gen)},
    {"specials", UG_NORMAL(0, 1, .special_rate = 0.01, .specials = UG_SP_ALL),
     UG_SIZES(ug_scan_sizes_specials)},
};

UG_CASE_OVER(scan, ug_scan_dists, 0)
{
    const ug_param *p = ug_param_of(t);
    static const ug_op ops[] = {UG_OP_SCAN, UG_OP_EXSCAN};
    for (int o = 0; o < 2; o++) {
        UG_FOR_SIZES(t, n, ug_scan_sizes) {
            ug_input *in = ug_input_make(t, ops[o], &p->dist, n, UG_SCAN_TRIALS);
            UG_FOR_KERNELS(t, k, ops[o], UG_CPU, "*") {
                ug_result *r = ug_measure(t, k, in);
                ug_along_profile(r, in); /* the report's error along the prefix */
                UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* per output: kernels/cpu/scan.c */
            }
            ug_input_free(t, in);
        }
    }
}

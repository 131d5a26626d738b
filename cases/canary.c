/*
 * canary.c - a case that must fail, so that the failure path (TAP "not ok", file:line, the worst
 * element in hex, the rerun line, exit code 1) is exercised by every test run.  meson runs it
 * with should_fail: true; a plain `ulpgate run` leaves it out, `--filter 'canary/fails'` runs it.
 */
#include "harness/run/ug.h"

UG_CASE_EX(canary, fails, UG_CASE_SHOULD_FAIL)
{
    /* 10^4 copies of 0.1f summed serially in binary32 drift by hundreds of ULPs (the error grows
     * like n u): asking for correct rounding (0.5 ULP) must fail. */
    static const size_t ns[] = {10000};
    ug_dist d = ug_constant(0.1);
    UG_FOR_N(t, n, ns) {
        ug_input *in = ug_input_make(t, UG_OP_SUM, &d, n, 1);
        UG_FOR_KERNELS(t, k, UG_OP_SUM, UG_CPU, "serial_f32@default") {
            ug_result *r = ug_measure(t, k, in);
            UG_EXPECT_ULP_MAX(r, 0.5);
        }
    }
}

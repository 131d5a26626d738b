/*
 * quantize_canary.c - the wrong quantizers (kernels/cpu/quantize.c's canaries), each on normal
 * and maxima data (cases/quantize_cases.h): every case must fail, naming the block and both
 * scale bytes.  A plain `ulpgate run` leaves them out; a --filter that names one runs it, and
 * meson's `quantize_canary` test (tests/quantize_canary_test.sh) checks how they fail.
 *
 *   quantize_canary/scale_up    ceil(log2 amax) where OCP takes floor: the E8M0 byte one high
 *   quantize_canary/nosat       elements beyond 448 not saturated: NaN where 448 is due
 *   quantize_canary/no_tensor   NVFP4 with its tensor scale dropped: the E4M3 bytes too large
 */
#include "cases/quantize_cases.h"

UG_CASE_EX(quantize_canary, scale_up, UG_CASE_SHOULD_FAIL)
{
    q_each(t, true, false, Q_NORMAL, "scale_up");
    q_each(t, true, false, Q_MAXIMA, "scale_up");
}

UG_CASE_EX(quantize_canary, nosat, UG_CASE_SHOULD_FAIL)
{
    q_each(t, true, false, Q_NORMAL, "nosat");
    q_each(t, true, false, Q_MAXIMA, "nosat");
}

UG_CASE_EX(quantize_canary, no_tensor, UG_CASE_SHOULD_FAIL)
{
    q_each(t, true, false, Q_NORMAL, "no_tensor");
    q_each(t, true, false, Q_MAXIMA, "no_tensor");
}

/*
 * quantize.c - quantizers graded exactly against their scale rules (kernels/quantize.h, graded
 * by ops/quantize.h): scales bit for bit, elements RN given the quantizer's scales; the data
 * sets and the grading in cases/quantize_cases.h.  The wrong quantizers' cases, which must
 * fail, are cases/quantize_canary.c's.
 *
 *   quantize/maxima     every correct CPU quantizer on the blocks whose maxima decide the scale
 *   quantize/specials   ... on blocks of zeros, subnormals, NaN, +-inf
 *   quantize/normal     ... on normal data over 41 binades
 *   quantize/cuda       the CUDA quantizers on the three data sets (skips without a device)
 */
#include "cases/quantize_cases.h"

UG_CASE(quantize, maxima) { q_each(t, false, false, Q_MAXIMA, NULL); }
UG_CASE(quantize, specials) { q_each(t, false, false, Q_SPECIALS, NULL); }
UG_CASE(quantize, normal) { q_each(t, false, false, Q_NORMAL, NULL); }

UG_CASE_EX(quantize, cuda, UG_CASE_GPU)
{
    for (q_data d = Q_MAXIMA; d <= Q_NORMAL; d++) q_each(t, false, true, d, NULL);
}

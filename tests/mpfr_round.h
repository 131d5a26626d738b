/*
 * mpfr_round.h - the tests' own RN32 / RD32 of an MPFR value, with binary32's subnormals and
 * overflow: the expected records of tests/oracle_rows.c and tests/oracle_hardround.c, written
 * apart from the oracle's ug_mpfr_round_f32 so that a test does not grade the oracle with the
 * oracle's own rounding.
 */
#ifndef UG_TESTS_MPFR_ROUND_H
#define UG_TESTS_MPFR_ROUND_H

#include <mpfr.h>

static inline float round32(mpfr_srcptr v, mpfr_rnd_t rnd)
{
    mpfr_t f;
    mpfr_init2(f, 24);
    int tern = mpfr_set(f, v, rnd);
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_set_emin(-148);
    mpfr_set_emax(128);
    tern = mpfr_check_range(f, tern, rnd);
    mpfr_subnormalize(f, tern, rnd);
    float r = mpfr_get_flt(f, rnd);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_clear(f);
    return r;
}

#endif

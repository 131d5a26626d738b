/*
 * oracle_hardround.c - the softmax and log-sum-exp references (oracle/rows/transcend*.c) correctly
 * rounded on the hard-to-round cases of exp and log from the literature.
 *
 * A case is hard when the exact result has a long run of identical bits after the round bit of
 * its format (binary32: bit 25 of the significand; binary64: bit 54): it lies that close to a
 * rounding boundary (a midpoint for RN, a representable number for RD), and a reference that
 * rounds an approximation less accurate than that distance rounds it wrongly.  Each value below
 * is cited with its source and checked here with MPFR at 1000 bits: the run is counted and must
 * be >= 24 bits (binary32) or >= 44 (binary64), i.e. the result lies within 2^-49 (2^-98)
 * relative of a boundary; the counts are printed (TAP notes).  A value whose run fell short was
 * left out: LLVM libc's logf case x = 0x1.fe9adep-1 has only 19.
 *
 * What goes through those evaluations, and why it is the references' own rounding:
 *  - the rows: every output of softmax([0, h]) and logsumexp([0, h]) is computed from e^h (d =
 *    h - 0 is exact; the fast path's fexp(h), MPFR's exp enclosure of h), for the binary32 exp
 *    cases with h < 0 (a row only ever evaluates e^(x_j - max) <= 1).  The outputs are 1/(1+e^h),
 *    e^h/(1+e^h) and log1p(e^h): for h = -45.7 the second is e^h (1 - 2^-65.7..) and keeps the
 *    hardness of e^h (printed); for h near 0 they are ordinary values.  No row can evaluate log
 *    at a chosen point: the sum S of a row is 1 + (transcendental terms), or an integer n (n
 *    equal logits), and the one integer case, ln 58037908 (LLVM's logf 0x1.bacb4ap+25), would
 *    need a row of 58 million logits.
 *  - so every case also goes through ug_exact_fn_{fast,mpfr}_testing: the fast path's own exp
 *    (fexp, the e^(x_j - m) of every row) and log (lse_decide, the log-sum-exp's ln S with m = 0)
 *    decided by the same ug_fx_decide at the same bound, and the MPFR path's Ziv loop over the
 *    same enclosures and ug_decide; binary64 arguments reach the code paths rows cannot.
 * Asserted: every record (RN64, the residual's RN64, RN32, RD32) equals the 1000-bit one; the
 * fast path decided it or returned "not decided" (the row then goes to MPFR), never a wrong
 * record; with its decision bound forced wider than the case's distance to the boundary it must
 * return "not decided" (it falls back, it does not guess); for the binary64 cases near a
 * representable number, whose residual lo needs the value to 2^-(107+run), the MPFR path must
 * raise its precision past the first 128 bits and still decide them (and the fast path, at
 * 2^-160, passes those with run >= 54 on: its notes say which).
 * Mutants checked by hand (each fails this test; restored): RN32 taken from RN64 (double
 * rounding) in the fast path's rec_of or in transcend.c's ug_decide; the fast path's decision
 * not comparing RN32 at both ends; the Ziv loop never raising (p <= prec0).  The fast path's
 * error bound halved (2^-161) does not fail it and cannot: its approximation is within 2^-174,
 * and these cases lie 2^-49 .. 2^-119 from a boundary; only results within 2^-160 of one
 * (the exact ones) test the bound's value, and tests/oracle_diff_rows.c's 2^-230 mutant does.
 */
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness/run/ug.h"
#include "oracle/rows/transcend.h"
#include "oracle/special.h"
#include "tests/mpfr_round.h"

enum { REF_PREC = 1000 };

typedef struct {
    int log;     /* 0: exp, 1: log */
    int fmt;     /* 32: a binary32 argument, hard for RN32/RD32; 64: binary64, for RN64 */
    double a;    /* the argument (binary32 cases: exactly a float) */
    const char *src;
} hr_case;

/* Sources:
 *  [go]   a Go software-float package, exp_test.go, TestFloat32_Exp, "hard-to-round cases, found
 *         by checking all Float32 values with math.Exp in float64" (found by code search; the
 *         index did not name its repository).
 *  [llvm] LLVM libc: libc/test/src/math/expf_test.cpp (test_borderline, 0xc236bd8c) and the
 *         "Hard-to-round cases" switch of libc/src/math/generic/logf.cpp.
 *  [tmd]  J.-M. Muller, V. Lefevre, "Some worst cases for the Table Maker's Dilemma",
 *         http://perso.ens-lyon.fr/jean-michel.muller/TMD.html (binary64; exp: inputs in
 *         [-16, -8], [-8, -4], [-4, -2]; log: the worst case on [1.648, 2980.957], 61 ones
 *         after bit 53), the tables of Lefevre & Muller, "Worst cases for correct rounding of
 *         the elementary functions in double precision", ARITH 15 (2001).
 *  [cm]   CORE-MATH, src/binary64/exp/exp.wc ("at least 45 identical bits after the round
 *         bit") and src/binary64/log/log.wc (from Lefevre's hrcases-explog list).
 * The identical-bit counts measured here (round bit, then the run) are in each case's note. */
static const hr_case cases[] = {
    /* binary32 (the bits as the sources give them) */
    {0, 32, 0x1.fdff02p-17, "go 0x377eff81"},   {0, 32, 0x1.cd3982p-14, "go 0x38e69cc1"},
    {0, 32, 0x1.8d7cb6p-12, "go 0x39c6be5b"},   {0, 32, -0x1.c1c4b8p-10, "go 0xbae0e25c"},
    {0, 32, -0x1.e1dbe2p-8, "go 0xbbf0edf1"},   {0, 32, -0x1.d2259ap+3, "go 0xc16912cd"},
    {0, 32, -0x1.6d7b18p+5, "llvm 0xc236bd8c"}, {1, 32, 0x1.2f1fd6p+3, "llvm 0x41178feb"},
    {1, 32, 0x1.108a5ap-66, "llvm 0x1e88452d"}, {1, 32, 0x1.bacb4ap+25, "llvm 0x4c5d65a5"},
    {1, 32, 0x1.b121a6p+76, "llvm 0x65d890d3"}, {1, 32, 0x1.6351d8p+95, "llvm 0x6f31a8ec"},
    {1, 32, 0x1.2fe614p+117, "llvm 0x7a17f30a"}, {1, 32, 0x1.1ff606p+33, "llvm 0x500ffb03"},
    {1, 32, 0x1.ad3d1p+58, "llvm 0x5cd69e88"},  {1, 32, 0x1.d1309cp+62, "llvm 0x5ee8984e"},
    /* [tmd] exp -1.1110100010111101101111111100110110010001010001001110 E3 and the next two */
    {0, 64, -0x1.e8bdbfcd9144ep+3, "tmd"},
    {0, 64, -0x1.71e0b869b5e79p+2, "tmd"},
    {0, 64, -0x1.02393d5976769p+1, "tmd"},
    /* [tmd] log of 110101100.01010000101101000000100111001000101011101110b */
    {1, 64, 0x1.ac50b409c8aeep+8, "tmd"},
    {0, 64, 0x1.0122ef37212ebp-1, "cm"}, {0, 64, 0x1.00d48a707b93ep-1, "cm"},
    {0, 64, 0x1.008eb56314daap+0, "cm"}, {0, 64, 0x1.0138c96e1a075p+0, "cm"},
    {1, 64, 0x1.a6ae5142326b5p+0, "cm"}, {1, 64, 0x1.a6ba95b1520f9p+0, "cm"},
    {1, 64, 0x1.1e852e6951306p+1, "cm"}, {1, 64, 0x1.967e2d739876bp+1, "cm"},
    {1, 64, 0x1.ada8efe03f7ecp+40, "cm"}, {1, 64, 0x1.0f33837882a6p+57, "cm"},
    {1, 64, 0x1.e5ddfb3b41f29p+64, "cm"}, {1, 64, 0x1.bcc715a6c1dc8p+47, "cm"},
};

/* The record of a 1000-bit value (its error, 2^-999 relative, is far below every run here). */
static ug_exact ref_record(mpfr_srcptr y)
{
    ug_exact e;
    mpfr_t d;
    mpfr_init2(d, REF_PREC + 64);
    ug_exact_set_zero(&e, 0);
    e.cls = UG_X_FINITE;
    e.hi = mpfr_get_d(y, MPFR_RNDN);
    mpfr_sub_d(d, y, e.hi, MPFR_RNDN);
    e.lo = mpfr_get_d(d, MPFR_RNDN);
    e.rn = round32(y, MPFR_RNDN);
    e.rd = round32(y, MPFR_RNDD);
    mpfr_clear(d);
    return e;
}

static bool same_record(const ug_exact *a, const ug_exact *b)
{
    return a->cls == b->cls && a->hi == b->hi && a->lo == b->lo && a->rn == b->rn && a->rd == b->rd;
}

/* The bits of |y| after its first p significant bits: the round bit and how many bits after it
 * equal each other (*near_mid: they are its complement, y lies that close to a midpoint). */
static int hard_run(mpfr_srcptr y, int p, int *round_bit, bool *near_mid)
{
    mpfr_t f;
    mpfr_init2(f, REF_PREC + 64);
    mpfr_abs(f, y, MPFR_RNDN);
    mpfr_mul_2si(f, f, p - mpfr_get_exp(f), MPFR_RNDN); /* p integer bits (exact) */
    mpfr_frac(f, f, MPFR_RNDN);
    mpfr_mul_2ui(f, f, 1, MPFR_RNDN); /* the round bit is now the unit */
    *round_bit = mpfr_cmp_ui(f, 1) >= 0;
    int first = -1, run = 0;
    for (mpfr_frac(f, f, MPFR_RNDN); run < 300; run++) {
        mpfr_mul_2ui(f, f, 1, MPFR_RNDN);
        int b = mpfr_cmp_ui(f, 1) >= 0;
        mpfr_frac(f, f, MPFR_RNDN);
        if (first < 0) first = b;
        if (b != first) break;
    }
    *near_mid = first != *round_bit;
    mpfr_clear(f);
    return run;
}

static void fn_ref(int log, double a, mpfr_t y)
{
    mpfr_t x;
    mpfr_init2(x, 64);
    mpfr_set_d(x, a, MPFR_RNDN); /* exact */
    if (log) mpfr_log(y, x, MPFR_RNDN);
    else mpfr_exp(y, x, MPFR_RNDN);
    mpfr_clear(x);
}

/* The fast path with its decision bound forced to 2^e relative (exp) or 2^(e-2) absolute
 * (log): true when it still decided. */
static bool fast_decides_at(int log, double a, int e)
{
    ug_exact r;
    ug_transcend_fast_set_eps_testing(e);
    bool ok = ug_exact_fn_fast_testing(log, a, &r);
    ug_transcend_fast_set_eps_testing(0);
    return ok;
}

UG_CASE(oracle_rows, hardround_fn)
{
    mpfr_t y;
    mpfr_init2(y, REF_PREC);
    size_t fast = 0, raised = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const hr_case *c = &cases[i];
        const char *fn = c->log ? "log" : "exp";
        fn_ref(c->log, c->a, y);
        ug_exact want = ref_record(y), m, f;
        int rb;
        bool mid;
        int p = c->fmt == 32 ? 24 : 53, run = hard_run(y, p, &rb, &mid);
        UG_EXPECT_MSG(c->fmt == 64 || (double)(float)c->a == c->a, "%a: not a binary32 value", c->a);
        ug_note(t, "%s(%a) [%s] = %.17g: binary%d round bit %d, then %d identical bits (near a %s)",
                fn, c->a, c->src, want.hi, c->fmt, rb, run, mid ? "midpoint" : "representable number");
        UG_EXPECT_MSG(run >= (c->fmt == 32 ? 24 : 44), "%s(%a) [%s]: only %d identical bits: not a "
                      "hard case", fn, c->a, c->src, run);
        ug_exact_fn_mpfr_testing(c->log, c->a, &m);
        UG_EXPECT_MSG(same_record(&m, &want), "%s(%a) MPFR path: hi %a lo %a rn %a rd %a, 1000 bits "
                      "%a %a %a %a", fn, c->a, m.hi, m.lo, (double)m.rn, (double)m.rd, want.hi,
                      want.lo, (double)want.rn, (double)want.rd);
        if (ug_exact_fn_fast_testing(c->log, c->a, &f)) {
            fast++;
            UG_EXPECT_MSG(same_record(&f, &want), "%s(%a) fast path decided a wrong record: hi %a lo "
                          "%a rn %a rd %a, 1000 bits %a %a %a %a", fn, c->a, f.hi, f.lo, (double)f.rn,
                          (double)f.rd, want.hi, want.lo, (double)want.rn, (double)want.rd);
        } else {
            ug_note(t, "%s(%a): the fast path did not decide it (a row would go to MPFR)", fn, c->a);
        }
        /* binary64 cases: the bound forced wider than the distance to the RN64 boundary (<
         * 2^-(53+run) relative; log: absolute, |y| < 2^ey), yet below what the residual needs
         * elsewhere: the fast path must not decide.  (For the binary32 cases a bound that wide,
         * >= 2^-56, leaves the residual lo = RN64(s - hi) undecided anyway: no test there.) */
        int e = -(p + run) + 4 + (c->log ? (int)mpfr_get_exp(y) : 0);
        if (c->fmt == 64)
            UG_EXPECT_MSG(!fast_decides_at(c->log, c->a, e), "%s(%a): the fast path decided with "
                          "its bound forced to 2^%d, wider than the distance to the rounding "
                          "boundary", fn, c->a, e);
        /* binary64 near a representable number H: s = H + tiny, tiny ~ 2^-(54+run) s, and the
         * residual lo = RN64(tiny) needs s to 2^-(107+run): beyond the fast path's 2^-160 for
         * run >= 54 (it passes the row on), and beyond the MPFR path's first 128 bits for run
         * >= 22: the Ziv loop must raise the precision and still decide. */
        if (c->fmt == 64 && !mid) {
            ug_ziv_stats_reset();
            ug_exact_fn_mpfr_testing(c->log, c->a, &m);
            ug_ziv_stats s = ug_ziv_stats_get();
            raised++;
            ug_note(t, "%s(%a): the MPFR path decided it at %ld bits", fn, c->a, s.prec_max);
            UG_EXPECT_MSG(s.raised == 1 && s.prec_max > UG_ZIV_PREC0 && same_record(&m, &want),
                          "%s(%a): raised %zu, prec_max %ld, record %s", fn, c->a, s.raised,
                          s.prec_max, same_record(&m, &want) ? "right" : "wrong");
        }
    }
    ug_note(t, "%zu cases: the fast path decided %zu (the others would go to MPFR); %zu checked "
            "for the Ziv raise", sizeof cases / sizeof cases[0], fast, raised);
    UG_EXPECT_MSG(raised >= 4, "%zu binary64 cases near a representable number, want >= 4", raised);
    mpfr_clear(y);
}

/* softmax([0, h]) and logsumexp([0, h]) for the binary32 exp cases with h < 0: both paths'
 * records against the 1000-bit values 1/(1+e^h), e^h/(1+e^h), log1p(e^h). */
UG_CASE(oracle_rows, hardround_rows)
{
    mpfr_t eh, s, y[3];
    mpfr_inits2(REF_PREC, eh, s, y[0], y[1], y[2], (mpfr_ptr)0);
    size_t rows = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const hr_case *c = &cases[i];
        if (c->log || c->fmt != 32 || !(c->a < 0)) continue;
        float x[2] = {0, (float)c->a};
        fn_ref(0, c->a, eh);
        mpfr_add_ui(s, eh, 1, MPFR_RNDN);
        mpfr_ui_div(y[0], 1, s, MPFR_RNDN);
        mpfr_div(y[1], eh, s, MPFR_RNDN);
        mpfr_log1p(y[2], eh, MPFR_RNDN);
        ug_exact fs[2], ms[2], fl, ml;
        ug_ziv_stats_reset();
        ug_exact_softmax_row_fast(x, 2, fs);
        ug_exact_logsumexp_row_fast(x, 2, &fl);
        ug_ziv_stats st = ug_ziv_stats_get();
        ug_exact_softmax_row_mpfr(x, 2, ms);
        ug_exact_logsumexp_row_mpfr(x, 2, &ml);
        const ug_exact *got[3][2] = {{&fs[0], &ms[0]}, {&fs[1], &ms[1]}, {&fl, &ml}};
        static const char *what[3] = {"softmax output 0", "softmax output 1", "logsumexp"};
        for (int o = 0; o < 3; o++) {
            ug_exact want = ref_record(y[o]);
            int rb;
            bool mid;
            int run = hard_run(y[o], 24, &rb, &mid);
            if (o == 1)
                ug_note(t, "[0, %a]: %s = %a, binary32 round bit %d then %d identical bits", c->a,
                        what[o], want.hi, rb, run);
            for (int path = 0; path < 2; path++)
                UG_EXPECT_MSG(same_record(got[o][path], &want), "[0, %a] %s, %s path: hi %a lo %a "
                              "rn %a rd %a, 1000 bits %a %a %a %a", c->a, what[o],
                              path ? "MPFR" : "fast", got[o][path]->hi, got[o][path]->lo,
                              (double)got[o][path]->rn, (double)got[o][path]->rd, want.hi, want.lo,
                              (double)want.rn, (double)want.rd);
        }
        ug_note(t, "[0, %a]: fast path decided %zu of 3 outputs, %zu rows to MPFR", c->a, st.fast,
                st.fallback_rows);
        rows++;
    }
    UG_EXPECT_MSG(rows == 4, "%zu rows of negative binary32 exp cases, want 4", rows);
    mpfr_clears(eh, s, y[0], y[1], y[2], (mpfr_ptr)0);
}

/*
 * e3m1_case.c - the cases of FP5 E3M1 (tests/toy_fmt/toy_fmt.h).
 *
 *   toy_fmt/conversions  base/format.c on the registered row against the test's reference
 *                        (e3m1_format.c), exhaustively: every one of the 32 codes decodes to the
 *                        reference's value and encodes back to itself; every multiple of 2^-7
 *                        in [-40, 40] (every E3M1 value, every midpoint, values past the
 *                        saturation) rounds (RN) and encodes as the reference converts it; the
 *                        name, the bytes, the ULP of each binade; and the hook's refusals (a
 *                        name taken, a row whose max or exponents its bits do not hold).
 *   toy_fmt/sum          every CPU kernel of E3M1 input on E3M1 terms drawn uniform(-1/2, 1/2)
 *                        (the sums stay far below 24: the sum of 256 such terms has sd ~4.6),
 *                        graded in E3M1's ULP: the kernel is correctly rounded, so <= 0.5 ulp
 *                        on every output is the assertion.
 */
#include <math.h>
#include <string.h>

#include "harness/run/ug.h"
#include "tests/toy_fmt/toy_fmt.h"

UG_CASE(toy_fmt, conversions)
{
    ug_fmt f = ug_toy_e3m1();
    ug_point(t, "e3m1: 32 codes, 2^-7 grid in [-40, 40]");
    UG_ASSERT_MSG(ug_format_of(f) != NULL, "e3m1 (id %d) has no table row", (int)f);
    UG_EXPECT(ug_fmt_parse("e3m1") == f && strcmp(ug_fmt_name(f), "e3m1") == 0);
    UG_EXPECT(ug_fmt_bytes(f) == 1 && ug_format_of(f)->max == 24.0);
    int bad = 0;
    for (unsigned c = 0; c < 32; c++) {
        double want = ug_toy_e3m1_value(c), got = ug_fmt_decode(f, c);
        unsigned back = (unsigned)ug_fmt_encode(f, got);
        if ((got != want || signbit(got) != signbit(want) || back != c) && bad++ < 4)
            UG_EXPECT_MSG(0, "code 0x%02x: decode %a (want %a), encodes back to 0x%02x", c, got,
                          want, back);
    }
    UG_EXPECT_MSG(ug_fmt_decode(f, 32) != ug_fmt_decode(f, 32), "a 6-bit pattern decodes");
    for (int k = -40 * 128; k <= 40 * 128; k++) {
        double v = ldexp(k, -7);
        unsigned want = ug_toy_e3m1_code(v), code = (unsigned)ug_fmt_encode(f, v);
        double r = ug_fmt_round(f, v, UG_RN);
        if ((code != want || r != ug_toy_e3m1_value(want)) && bad++ < 8)
            UG_EXPECT_MSG(0, "%a: encode 0x%02x, round %a; the reference: 0x%02x (%a)", v, code,
                          r, want, ug_toy_e3m1_value(want));
    }
    UG_EXPECT_MSG(ug_fmt_encode(f, INFINITY) == 0xf && ug_fmt_encode(f, -1e300) == 0x1f,
                  "beyond max does not saturate");
    for (int e = -2; e <= 4; e++) /* the quantum of binade 2^e: 2^(e-1); subnormals 2^-3 */
        UG_EXPECT_MSG(ug_fmt_ulp(f, ldexp(1.5, e)) == ldexp(1.0, e - 1), "ulp at 2^%d", e);
    UG_EXPECT(ug_fmt_ulp(f, 0x1p-6) == 0x1p-3);
    UG_EXPECT_MSG(bad == 0, "%d conversions differ from the reference", bad);

    char err[200] = "";
    ug_format row = *ug_format_of(f);
    UG_EXPECT_MSG(ug_fmt_register(&row, err, sizeof err) == UG_FMT_COUNT && strstr(err, "taken"),
                  "a second e3m1 registered: %s", err);
    row.name = "e3m1_bad_max";
    row.max = 26.0;
    UG_EXPECT_MSG(ug_fmt_register(&row, err, sizeof err) == UG_FMT_COUNT && strstr(err, "max"),
                  "a row with max 26 registered: %s", err);
    row.max = 24.0;
    row.emax = 5; /* 3 exponent bits hold 7 binades, not 8 */
    UG_EXPECT_MSG(ug_fmt_register(&row, err, sizeof err) == UG_FMT_COUNT && strstr(err, "emin"),
                  "a row with emax 5 registered: %s", err);
    UG_EXPECT(ug_fmt_parse("e3m1_bad_max") == UG_FMT_COUNT);
}

static const size_t ug_toy_fmt_sizes[] = {1, 2, 16, 256};

UG_CASE(toy_fmt, sum)
{
    ug_dist d = ug_in_format(ug_uniform(-0.5, 0.5), ug_toy_e3m1());
    UG_FOR_SIZES(t, n, ug_toy_fmt_sizes) {
        ug_input *in = ug_input_make(t, UG_OP_SUM, &d, n, 10);
        UG_FOR_FMT_KERNELS(t, k, UG_OP_SUM, UG_CPU, "*", ug_toy_e3m1()) {
            ug_result *r = ug_measure(t, k, in);
            UG_EXPECT_ULP_MAX(r, 0.5); /* one correct rounding of an exact sum */
        }
        ug_input_free(t, in);
    }
}

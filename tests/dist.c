/*
 * dist.c - unit tests of the random numbers and input distributions (harness/inputs/rng.c, dist.c,
 * elementwise.c): the generator against published answers, each base distribution against its
 * defining property, reproducibility (same bits for any thread count, chunking, length), and
 * parameters and names.  GenSum/GenDot and the transforms: tests/dist_gen.c.
 *
 * Statistical checks use 6 standard errors (two-sided): for a statistic that is normal by the
 * central limit theorem (n = 10^6 here) a false alarm has probability 2e-9 per check, and
 * the data are a fixed function of the seed anyway, so a failure reproduces exactly.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/par.h"
#include "tests/dist_test.h"

/* ---- generator ------------------------------------------------------------------------------ */

/* Random123's known-answer vectors for philox4x32-10 (kat_vectors in the Random123
 * distribution): counter, key -> output. */
UG_CASE(dist, philox_kat)
{
    static const struct {
        uint32_t ctr[4], key[2], out[4];
    } kat[] = {
        {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
        {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
         {0xffffffff, 0xffffffff},
         {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
        {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
         {0xa4093822, 0x299f31d0},
         {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
    };
    for (size_t k = 0; k < sizeof kat / sizeof kat[0]; k++) {
        uint32_t out[4];
        ug_philox_raw(kat[k].ctr, kat[k].key, out);
        for (int l = 0; l < 4; l++)
            UG_EXPECT_MSG(out[l] == kat[k].out[l], "vector %zu word %d: %08x, expected %08x", k, l,
                          out[l], kat[k].out[l]);
    }
    /* The batched generator and the word/u64/unit accessors are views of the same blocks. */
    ug_stream s = ug_stream_make(ug_seed(t), ug_d_stream("dist/philox_kat"), 7);
    enum { NB = 100 };
    uint32_t batch[NB][4];
    ug_philox_blocks(&s, 1000, NB, batch);
    for (uint64_t b = 0; b < NB; b++) {
        uint32_t one[4];
        ug_philox_block(&s, 1000 + b, one);
        UG_EXPECT_MSG(memcmp(one, batch[b], sizeof one) == 0, "batched block %llu differs",
                      (unsigned long long)(1000 + b));
    }
    for (uint64_t i = 0; i < 64; i++) {
        uint32_t w[4];
        ug_philox_block(&s, i / 4, w);
        UG_EXPECT_MSG(ug_rng_u32(&s, i) == w[i % 4], "word %llu", (unsigned long long)i);
        ug_philox_block(&s, i / 2, w);
        uint64_t u = (uint64_t)w[2 * (i % 2)] | (uint64_t)w[2 * (i % 2) + 1] << 32;
        UG_EXPECT_MSG(ug_rng_u64(&s, i) == u, "u64 %llu", (unsigned long long)i);
        double unit = ug_rng_unit(&s, i);
        UG_EXPECT_MSG(unit >= 0 && unit < 1 && unit == (double)(u >> 11) * 0x1p-53, "unit %llu",
                      (unsigned long long)i);
    }
}

/* FNV-1a 64 reference values (Fowler/Noll/Vo test suite) and key separation. */
UG_CASE(dist, hash_and_keys)
{
    UG_EXPECT(ug_hash64("", UG_HASH64_INIT) == 0xcbf29ce484222325ull);
    UG_EXPECT(ug_hash64("a", UG_HASH64_INIT) == 0xaf63dc4c8601ec8cull);
    UG_EXPECT(ug_hash64("foobar", UG_HASH64_INIT) == 0x85944171f73967e8ull);
    /* neighbouring seeds / ids / trials give different first blocks */
    ug_stream base = ug_stream_make(1, 1, 0);
    ug_stream others[3] = {ug_stream_make(2, 1, 0), ug_stream_make(1, 2, 0),
                           ug_stream_make(1, 1, 1)};
    uint32_t w0[4];
    ug_philox_block(&base, 0, w0);
    for (int k = 0; k < 3; k++) {
        uint32_t w[4];
        ug_philox_block(&others[k], 0, w);
        UG_EXPECT_MSG(memcmp(w, w0, sizeof w) != 0, "stream variant %d repeats the base stream", k);
    }
}

/* MSVC rand(): the first outputs after srand(0), by hand from x <- 214013 x + 2531011 mod 2^32,
 * output (x >> 16) & 0x7fff:
 *   x1 = 2531011 = 0x00269ec3             -> 0x0026 = 38
 *   x2 = 505908858 = 0x1e278e7a           -> 0x1e27 = 7719
 *   x3 = 3539360597 = 0xd2f65b55          -> 0xd2f6 & 0x7fff = 0x52f6 = 21238
 *   x4 = 159719620 = 0x098520c4           -> 0x0985 = 2437
 * (and srand(1) gives the well-known 41, 18467, 6334).  The jump-ahead must equal stepping. */
UG_CASE(dist, msvc_rand)
{
    static const uint32_t seed0[] = {38, 7719, 21238, 2437};
    static const uint32_t seed1[] = {41, 18467, 6334};
    for (int k = 0; k < 4; k++)
        UG_EXPECT_MSG(ug_msvc_rand_at(0, (uint64_t)k) == seed0[k],
                      "srand(0) call %d: %u, expected %u", k, ug_msvc_rand_at(0, (uint64_t)k),
                      seed0[k]);
    for (int k = 0; k < 3; k++)
        UG_EXPECT_MSG(ug_msvc_rand_at(1, (uint64_t)k) == seed1[k],
                      "srand(1) call %d: %u, expected %u", k, ug_msvc_rand_at(1, (uint64_t)k),
                      seed1[k]);
    static const uint32_t seeds[] = {0, 1, 12345, 0xffffffffu};
    for (size_t si = 0; si < sizeof seeds / sizeof seeds[0]; si++) {
        uint32_t x = seeds[si];
        int bad = 0;
        for (uint64_t k = 0; k < 200000; k++) {
            x = x * 214013u + 2531011u;
            uint32_t step = (x >> 16) & 0x7fffu;
            if (ug_msvc_rand_at(seeds[si], k) != step && bad++ < 3)
                UG_EXPECT_MSG(false, "seed %u call %llu: jump-ahead %u, stepping %u", seeds[si],
                              (unsigned long long)k, ug_msvc_rand_at(seeds[si], k), step);
            if (ug_msvc_state_after(seeds[si], k + 1) != x && bad++ < 3)
                UG_EXPECT_MSG(false, "seed %u: state after %llu steps differs", seeds[si],
                              (unsigned long long)(k + 1));
        }
        /* full period 2^32 (c odd, a - 1 divisible by 4: Hull-Dobell) */
        for (uint64_t k = 0; k < 5; k++)
            UG_EXPECT_MSG(ug_msvc_state_after(seeds[si], (1ull << 32) + k) ==
                              ug_msvc_state_after(seeds[si], k),
                          "seed %u: period is not 2^32 at offset %llu", seeds[si],
                          (unsigned long long)k);
    }
}

/* msvc_rand01, the Kahan-matmul post's a[i] = (float)rand()/RAND_MAX +
 * (float)rand()/(RAND_MAX*RAND_MAX) with the rand() values above, in binary32; sum, dot (y
 * continues x) and gemm (B continues A) layouts. */
UG_CASE(dist, msvc_rand01_values)
{
    const float rmax = 32767.0f, rmax2 = 1073676288.0f; /* (float)1073676289 */
    UG_EXPECT_MSG((float)(32767 * 32767) == rmax2, "(float)(RAND_MAX*RAND_MAX) = %.1f",
                  (double)(float)(32767 * 32767));
    float want0 = (float)((float)((float)38 / rmax) + (float)((float)7719 / rmax2));
    float want1 = (float)((float)((float)21238 / rmax) + (float)((float)2437 / rmax2));
    enum { N = 6 };
    float x[2 * N * N], y[2 * N * N];
    ug_d_fill(t, ug_msvc_rand01(), 0, 0, x, N);
    UG_EXPECT_MSG(ug_f32_bits(x[0]) == ug_f32_bits(want0), "a[0] = %a, expected %a", (double)x[0],
                  (double)want0);
    UG_EXPECT_MSG(ug_f32_bits(x[1]) == ug_f32_bits(want1), "a[1] = %a, expected %a", (double)x[1],
                  (double)want1);
    for (int i = 0; i < N; i++)
        UG_EXPECT_MSG(ug_f32_bits(x[i]) == ug_f32_bits(ug_msvc_rand01_at(0, (uint64_t)i)),
                      "sum element %d", i);
    /* the global seed and the stream id do not enter; the trial is srand's argument */
    float other[N];
    char err[256];
    ug_dist d = ug_msvc_rand01();
    UG_ASSERT_MSG(ug_dist_fill_sum(&d, 999, 12345, 0, other, N, err, sizeof err) == 0, "%s", err);
    UG_EXPECT_MSG(memcmp(other, x, sizeof other) == 0,
                  "msvc_rand01 depends on the seed or stream id");
    UG_ASSERT_MSG(ug_dist_fill_sum(&d, 999, 12345, 1, other, N, err, sizeof err) == 0, "%s", err);
    UG_EXPECT_MSG(ug_f32_bits(other[0]) ==
                      ug_f32_bits((float)((float)(41.0f / rmax) + (float)(18467.0f / rmax2))),
                  "trial 1 = srand(1): %a", (double)other[0]);
    ug_d_fill_dot(t, d, 0, 0, x, y, N);
    for (int i = 0; i < N; i++) {
        UG_EXPECT_MSG(ug_f32_bits(x[i]) == ug_f32_bits(ug_msvc_rand01_at(0, (uint64_t)i)),
                      "dot x[%d]", i);
        UG_EXPECT_MSG(ug_f32_bits(y[i]) == ug_f32_bits(ug_msvc_rand01_at(0, (uint64_t)(N + i))),
                      "dot y[%d]", i);
    }
    /* matgen(a); matgen(b) for n x n: A takes calls 0 .. 2n^2-1, B the next 2n^2 */
    UG_ASSERT_MSG(ug_dist_fill_gemm(&d, 0, 0, 0, x, y, N, N, N, err, sizeof err) == 0, "%s", err);
    for (int i = 0; i < N * N; i++) {
        UG_EXPECT_MSG(ug_f32_bits(x[i]) == ug_f32_bits(ug_msvc_rand01_at(0, (uint64_t)i)),
                      "gemm A[%d]", i);
        UG_EXPECT_MSG(ug_f32_bits(y[i]) ==
                          ug_f32_bits(ug_msvc_rand01_at(0, (uint64_t)(N * N + i))),
                      "gemm B[%d]", i);
    }
}

/* ---- base distributions --------------------------------------------------------------------- */

/* uniform(a,b): every value in [RN32(a), RN32(b)] (a, b exact binary32 here); mean and variance
 * within 6 SE (SE(mean) = sd/sqrt(n), SE(var) ~ var sqrt(4/5 / n) for a uniform: its excess
 * kurtosis is -6/5, Var(s^2) = var^2 (2/(n-1) + k/n)); 16-bin chi-square below 15 + 6 sqrt(30). */
UG_CASE(dist, uniform)
{
    static const double ab[][2] = {{0, 1}, {-1, 1}, {-3.5, 2.25}, {0.125, 0.125}};
    size_t n = UG_NSTAT;
    float *x = ug_d_alloc(t, n);
    for (size_t c = 0; c < sizeof ab / sizeof ab[0]; c++) {
        double a = ab[c][0], b = ab[c][1];
        ug_d_fill(t, ug_uniform(a, b), ug_d_stream("dist/uniform"), (uint32_t)c, x, n);
        double s1 = 0, s2 = 0;
        size_t out = 0, bins[16] = {0};
        for (size_t i = 0; i < n; i++) {
            double v = x[i];
            if (!(v >= a && v <= b)) out++;
            s1 += v;
            s2 += v * v;
            if (b > a) {
                int k = (int)((v - a) / (b - a) * 16);
                bins[k > 15 ? 15 : k < 0 ? 0 : k]++;
            }
        }
        UG_EXPECT_MSG(out == 0, "uniform(%g,%g): %zu values outside [a,b]", a, b, out);
        double mean = s1 / (double)n, var = s2 / (double)n - mean * mean;
        double w = b - a, m0 = (a + b) / 2, v0 = w * w / 12;
        double se_mean = sqrt(v0 / (double)n), se_var = v0 * sqrt(0.8 / (double)n);
        UG_EXPECT_MSG(fabs(mean - m0) <= 6 * se_mean + 1e-12,
                      "uniform(%g,%g): mean %.6g, expected %.6g +- %.2g", a, b, mean, m0,
                      6 * se_mean);
        UG_EXPECT_MSG(fabs(var - v0) <= 6 * se_var + 1e-12,
                      "uniform(%g,%g): variance %.6g, expected %.6g +- %.2g", a, b, var, v0,
                      6 * se_var);
        if (b > a) {
            double chi2 = 0, e = (double)n / 16;
            for (int k = 0; k < 16; k++) chi2 += ((double)bins[k] - e) * ((double)bins[k] - e) / e;
            UG_EXPECT_MSG(chi2 <= 15 + 6 * sqrt(30.0), "uniform(%g,%g): chi2 %.1f over 16 bins", a,
                          b, chi2);
        }
    }
    free(x);
}

/* normal(mu, sigma), n = 10^6: mean +- 6 sigma/sqrt(n); variance +- 6 sigma^2 sqrt(2/(n-1));
 * excess kurtosis +- 6 sqrt(24/n); P(|z| < 1) = 0.682689 and P(|z| > 3) = 0.0026998 +- 6
 * binomial SE; correlation of the Box-Muller partners (elements 2j, 2j+1) +- 6/sqrt(n/2); no
 * |z| above the generator's maximum sqrt(106 ln 2) = 8.5716. */
UG_CASE(dist, normal)
{
    static const double ms[][2] = {{0, 1}, {3, 0.25}};
    size_t n = UG_NSTAT;
    float *x = ug_d_alloc(t, n);
    for (size_t c = 0; c < 2; c++) {
        double mu = ms[c][0], sg = ms[c][1];
        ug_d_fill(t, ug_normal(mu, sg), ug_d_stream("dist/normal"), (uint32_t)c, x, n);
        double s1 = 0, s2 = 0, s4 = 0, pair = 0, zmax = 0;
        size_t in1 = 0, out3 = 0;
        for (size_t i = 0; i < n; i++) {
            double z = (x[i] - mu) / sg;
            s1 += z;
            s2 += z * z;
            s4 += z * z * z * z;
            in1 += fabs(z) < 1;
            out3 += fabs(z) > 3;
            if (fabs(z) > zmax) zmax = fabs(z);
            if (i % 2) pair += z * ((x[i - 1] - mu) / sg);
        }
        double dn = (double)n, mean = s1 / dn, var = s2 / dn - mean * mean;
        double kurt = s4 / dn / (var * var) - 3, corr = pair / (dn / 2);
        const double p1 = 0.682689492137086, p3 = 0.002699796063260;
        UG_EXPECT_MSG(fabs(mean) <= 6 / sqrt(dn), "normal(%g,%g): mean of z %.3g", mu, sg, mean);
        UG_EXPECT_MSG(fabs(var - 1) <= 6 * sqrt(2 / (dn - 1)), "normal(%g,%g): var of z %.5f", mu,
                      sg, var);
        UG_EXPECT_MSG(fabs(kurt) <= 6 * sqrt(24 / dn), "normal(%g,%g): excess kurtosis %.4f", mu,
                      sg, kurt);
        UG_EXPECT_MSG(fabs((double)in1 / dn - p1) <= 6 * sqrt(p1 * (1 - p1) / dn),
                      "normal(%g,%g): P(|z|<1) = %.5f", mu, sg, (double)in1 / dn);
        UG_EXPECT_MSG(fabs((double)out3 / dn - p3) <= 6 * sqrt(p3 * (1 - p3) / dn),
                      "normal(%g,%g): P(|z|>3) = %.6f", mu, sg, (double)out3 / dn);
        UG_EXPECT_MSG(fabs(corr) <= 6 / sqrt(dn / 2), "normal(%g,%g): partner correlation %.4f", mu,
                      sg, corr);
        /* 8.5716 plus the binary32 rounding of mu + sigma z, relative to sigma */
        UG_EXPECT_MSG(zmax <= 8.5717 + 1e-6 * (fabs(mu) / sg + 9), "normal(%g,%g): |z| max %.4f",
                      mu, sg, zmax);
    }
    free(x);
}

/* lognormal(mu, sigma): ln x is normal(mu, sigma) up to binary32 rounding (<= 2^-24 relative in
 * x, 6e-8 absolute in ln x, far below the tolerances): mean and variance of ln x as for the
 * normal, and the mean of x itself, exp(mu + sigma^2/2), within 6 SE = 6 sqrt(Var x / n),
 * Var x = (e^(sigma^2) - 1) e^(2 mu + sigma^2); every value positive and finite. */
UG_CASE(dist, lognormal)
{
    const double mu = 0.5, sg = 0.75;
    size_t n = UG_NSTAT;
    float *x = ug_d_alloc(t, n);
    ug_d_fill(t, ug_lognormal(mu, sg), ug_d_stream("dist/lognormal"), 0, x, n);
    double l1 = 0, l2 = 0, s1 = 0;
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(x[i] > 0 && isfinite(x[i]))) {
            bad++;
            continue;
        }
        double l = log(x[i]);
        l1 += l;
        l2 += l * l;
        s1 += x[i];
    }
    double dn = (double)n, lm = l1 / dn, lv = l2 / dn - lm * lm;
    UG_EXPECT_MSG(bad == 0, "%zu values not positive and finite", bad);
    UG_EXPECT_MSG(fabs(lm - mu) <= 6 * sg / sqrt(dn), "mean of ln x %.5f, expected %.5f", lm, mu);
    UG_EXPECT_MSG(fabs(lv - sg * sg) <= 6 * sg * sg * sqrt(2 / (dn - 1)),
                  "var of ln x %.5f, expected %.5f", lv, sg * sg);
    double m0 = exp(mu + sg * sg / 2), v0 = (exp(sg * sg) - 1) * exp(2 * mu + sg * sg);
    UG_EXPECT_MSG(fabs(s1 / dn - m0) <= 6 * sqrt(v0 / dn), "mean of x %.5f, expected %.5f", s1 / dn,
                  m0);
    free(x);
}

/* expuniform(lo, hi), integer lo, hi: every |x| in [2^lo, 2^hi], so its binade exponent is in
 * [lo, hi]; with lo = -60, hi = 60 every value is a finite normal number; log2|x| uniform:
 * mean (lo+hi)/2 +- 6 (hi-lo)/sqrt(12 n); signs balanced within 6 binomial SE.  The subnormal
 * range (-149, -127) gives nonzero subnormals, lo = hi gives +-2^lo exactly. */
UG_CASE(dist, expuniform)
{
    static const int lohi[][2] = {{-60, 60}, {-149, -127}, {3, 3}, {-10, 20}};
    size_t n = UG_NSTAT;
    float *x = ug_d_alloc(t, n);
    for (size_t c = 0; c < sizeof lohi / sizeof lohi[0]; c++) {
        int lo = lohi[c][0], hi = lohi[c][1];
        ug_d_fill(t, ug_expuniform(lo, hi), ug_d_stream("dist/expuniform"), (uint32_t)c, x, n);
        size_t out = 0, not_normal = 0, neg = 0;
        double l1 = 0;
        for (size_t i = 0; i < n; i++) {
            double a = fabs(x[i]);
            int e;
            frexp(a, &e); /* a = f 2^e, f in [0.5,1): binade exponent e-1 */
            if (!(a >= ldexp(1, lo) && a <= ldexp(1, hi) && e - 1 >= lo && e - 1 <= hi)) out++;
            if (!isnormal(x[i])) not_normal++;
            neg += signbit(x[i]) != 0;
            l1 += log2(a);
        }
        double dn = (double)n, mean = l1 / dn;
        UG_EXPECT_MSG(out == 0, "expuniform(%d,%d): %zu magnitudes outside [2^lo, 2^hi]", lo, hi,
                      out);
        if (lo >= -126)
            UG_EXPECT_MSG(not_normal == 0, "expuniform(%d,%d): %zu values not normal", lo, hi,
                          not_normal);
        UG_EXPECT_MSG(fabs(mean - (lo + hi) / 2.0) <= 6 * (hi - lo) / sqrt(12 * dn) + 1e-9,
                      "expuniform(%d,%d): mean log2|x| %.4f", lo, hi, mean);
        UG_EXPECT_MSG(fabs((double)neg / dn - 0.5) <= 6 * 0.5 / sqrt(dn),
                      "expuniform(%d,%d): %.4f negative", lo, hi, (double)neg / dn);
    }
    free(x);
}

UG_CASE(dist, constant)
{
    static const double cs[] = {0.1, -3, 0, 1e-40 /* subnormal in binary32 */, 3.4e38};
    float x[1001];
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
        ug_d_fill(t, ug_constant(cs[c]), ug_d_stream("dist/constant"), 0, x, 1001);
        size_t bad = 0;
        for (size_t i = 0; i < 1001; i++) bad += ug_f32_bits(x[i]) != ug_f32_bits((float)cs[c]);
        UG_EXPECT_MSG(bad == 0, "constant(%g): %zu elements differ from RN32(c)", cs[c], bad);
    }
}

/* ---- reproducibility ------------------------------------------------------------------------ */

/* Bit-for-bit: the same fill with 1, 2, 3 and 5 threads (different chunk borders, odd n), the
 * same fill twice; elementwise distributions also give the same first elements for any n
 * (element i depends on i only); another trial, stream or seed changes the data (msvc_rand01
 * takes the trial only). */
UG_CASE(dist, determinism)
{
    const size_t n = 200003, n_short = 1001;
    ug_dist ds[] = {
        ug_uniform(-1, 1),
        ug_normal(0, 1),
        ug_lognormal(0, 1),
        ug_expuniform(-60, 60),
        ug_constant(0.1),
        ug_msvc_rand01(),
        ug_gensum(1e8),
        ug_with_specials(ug_alternating(ug_sorted(ug_normal(0, 1), UG_ORDER_ABS_ASC)), 0.01,
                         UG_SP_ALL),
        ug_with_specials(ug_uniform(0, 1), 0.5, UG_SP_NAN | UG_SP_ZERO),
    };
    const size_t nd = sizeof ds / sizeof ds[0];
    float *ref = ug_d_alloc(t, n), *x = ug_d_alloc(t, n), *y = ug_d_alloc(t, n),
          *ry = ug_d_alloc(t, n);
    uint64_t id = ug_d_stream("dist/determinism");
    int saved = ug_par_threads();
    static const int threads[] = {1, 2, 3, 5};
    char name[96];
    for (size_t k = 0; k < nd; k++) {
        ug_dist d = ds[k];
        ug_dist_describe(&d, name, sizeof name);
        ug_par_set_threads(1);
        ug_d_fill(t, d, id, 3, ref, n);
        for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++) {
            ug_par_set_threads(threads[ti]);
            ug_d_fill(t, d, id, 3, x, n);
            UG_EXPECT_MSG(memcmp(x, ref, n * sizeof *x) == 0, "%s: %d threads differ from 1", name,
                          threads[ti]);
        }
        bool elementwise =
            d.order == UG_ORDER_NONE && d.kind != UG_D_GENSUM && d.kind != UG_D_GENDOT;
        if (elementwise) {
            ug_d_fill(t, d, id, 3, x, n_short);
            UG_EXPECT_MSG(memcmp(x, ref, n_short * sizeof *x) == 0,
                          "%s: n=%zu is not a prefix of n=%zu", name, n_short, n);
        }
        if (d.kind != UG_D_CONSTANT) {
            ug_d_fill(t, d, id, 4, x, n);
            UG_EXPECT_MSG(memcmp(x, ref, n * sizeof *x) != 0, "%s: trial 4 repeats trial 3", name);
            ug_d_fill(t, d, id + 1, 3, x, n);
            UG_EXPECT_MSG((memcmp(x, ref, n * sizeof *x) != 0) == (d.kind != UG_D_MSVC_RAND01),
                          "%s: the stream id %s", name,
                          d.kind == UG_D_MSVC_RAND01 ? "entered" : "did not change the data");
        }
    }
    /* dot and gemm with the parallel GenDot rows */
    ug_dist gd = ug_gendot(1e16);
    ug_par_set_threads(1);
    ug_d_fill_dot(t, gd, id, 0, ref, ry, 5001);
    ug_par_set_threads(3);
    ug_d_fill_dot(t, gd, id, 0, x, y, 5001);
    UG_EXPECT_MSG(memcmp(x, ref, 5001 * sizeof *x) == 0 && memcmp(y, ry, 5001 * sizeof *y) == 0,
                  "gendot: 3 threads differ from 1");
    char err[256];
    for (int th = 1; th <= 4; th += 3) {
        ug_par_set_threads(th);
        int rc = ug_dist_fill_gemm(&gd, ug_seed(t), id, 0, th == 1 ? ref : x, th == 1 ? ry : y, 40,
                                   50, 60, err, sizeof err);
        UG_ASSERT_MSG(rc == 0, "%s", err);
    }
    UG_EXPECT_MSG(memcmp(x, ref, 40 * 60 * sizeof *x) == 0 &&
                      memcmp(y, ry, 60 * 50 * sizeof *y) == 0,
                  "gemm gendot: 4 threads differ from 1");
    ug_par_set_threads(saved);
    free(ref);
    free(x);
    free(y);
    free(ry);
}

/* Cross-machine reproducibility: the first values of each kind for seed 1, stream 2, trial 3,
 * recorded on the development machine (x86-64, gcc 12) and checked identical on the GPU host.
 * They are not "expected results" of any numerics, only a tripwire: any change here means
 * every recorded input in reports/ changes too. */
UG_CASE(dist, golden)
{
    static const struct {
        ug_dist_kind kind;
        double p1, p2;
        uint32_t bits[4];
    } gold[] = {
        {UG_D_UNIFORM, 0, 1, {0x3e521d0d, 0x3de8c38e, 0x3f3d4b9d, 0x3ef853d5}},
        {UG_D_UNIFORM, -3.5, 2.25, {0xc0147d8f, 0xc0362cdd, 0x3f4072c4, 0xbf360efc}},
        {UG_D_NORMAL, 0, 1, {0x3fac271e, 0x3f953481, 0xbf46084a, 0x3d959c30}},
        {UG_D_NORMAL, -2, 3, {0x40023aac, 0x3fbf9d84, 0xc08a431c, 0xbfe3f2b7}},
        {UG_D_LOGNORMAL, 0, 1, {0x4075a14f, 0x404d50c6, 0x3eec3824, 0x3f89b35d}},
        {UG_D_LOGNORMAL, -1, 2, {0x40ad6763, 0x40724f0a, 0x3da05f06, 0x3ed9fc45}},
        {UG_D_EXPUNIFORM, -60, 60, {0xadc515bd, 0x28474291, 0xcdd4a130, 0x3e93363c}},
        {UG_D_EXPUNIFORM, -149, 127, {0x91466235, 0x04a541d9, 0xdb07adea, 0x37e8f958}},
        {UG_D_CONSTANT, 0.1, 0, {0x3dcccccd, 0x3dcccccd, 0x3dcccccd, 0x3dcccccd}},
        {UG_D_MSVC_RAND01, 0, 0, {0x3ac0e264, 0x3e913a3e, 0x3e5bbf79, 0x3f0a4e84}},
        {UG_D_GENSUM, 1e16, 0, {0xcd164410, 0x4c9936c0, 0x599169f2, 0xd99169f2}},
        {UG_D_GENSUM, 1, 0, {0xb2164410, 0x3146a6d0, 0x3e9169f2, 0x3dca86ad}},
    };
    for (size_t g = 0; g < sizeof gold / sizeof gold[0]; g++) {
        ug_dist d = {gold[g].kind, gold[g].p1, gold[g].p2, UG_ORDER_NONE, 0, 0, 0};
        float x[4];
        char err[256], name[96];
        UG_ASSERT_MSG(ug_dist_fill_sum(&d, 1, 2, 3, x, 4, err, sizeof err) == 0, "%s", err);
        ug_dist_describe(&d, name, sizeof name);
        for (int i = 0; i < 4; i++)
            UG_EXPECT_MSG(ug_f32_bits(x[i]) == gold[g].bits[i],
                          "%s element %d: %08x, recorded %08x", name, i, ug_f32_bits(x[i]),
                          gold[g].bits[i]);
    }
}

/* ---- parameters and names ------------------------------------------------------------------- */

UG_CASE(dist, errors)
{
    static const struct {
        ug_dist d;
        const char *what;
    } bad[] = {
        {{UG_D_UNIFORM, 1, 0, 0, 0, 0, 0}, "b < a"},
        {{UG_D_UNIFORM, 0, 1e39, 0, 0, 0, 0}, "finite binary32"},
        {{UG_D_NORMAL, 0, -1, 0, 0, 0, 0}, "sigma < 0"},
        {{UG_D_NORMAL, NAN, 1, 0, 0, 0, 0}, "finite"},
        {{UG_D_LOGNORMAL, 80, 2, 0, 0, 0, 0}, "overflows"},
        {{UG_D_EXPUNIFORM, -200, 0, 0, 0, 0, 0}, "-149"},
        {{UG_D_EXPUNIFORM, 0, 128, 0, 0, 0, 0}, "127"},
        {{UG_D_EXPUNIFORM, 5, 1, 0, 0, 0, 0}, "hi < lo"},
        {{UG_D_GENSUM, 0.5, 0, 0, 0, 0, 0}, "kappa < 1"},
        {{UG_D_GENDOT, NAN, 0, 0, 0, 0, 0}, "kappa < 1"},
        {{UG_D_GENSUM, 1e31, 0, 0, 0, 0, 0}, "not supported"},
        {{UG_D_NORMAL, 0, 1, 0, 0, 1.5, UG_SP_NAN}, "outside [0,1]"},
        {{UG_D_NORMAL, 0, 1, 0, 0, NAN, UG_SP_NAN}, "outside [0,1]"},
        {{UG_D_NORMAL, 0, 1, 0, 0, 0.1, 0}, "mask"},
        {{UG_D_NORMAL, 0, 1, 0, 0, 0.1, 0x20}, "mask"},
        {{UG_D_NORMAL, 0, 1, (ug_order)9, 0, 0, 0}, "order"},
        {{(ug_dist_kind)42, 0, 1, 0, 0, 0, 0}, "unknown kind"},
    };
    float x[4], y[4];
    char err[256];
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        err[0] = 0;
        int rc = ug_dist_fill_sum(&bad[k].d, 1, 2, 3, x, 4, err, sizeof err);
        UG_EXPECT_MSG(rc == -1 && strstr(err, bad[k].what), "case %zu (%s): rc %d, message \"%s\"",
                      k, bad[k].what, rc, err);
        err[0] = 0;
        rc = ug_dist_fill_dot(&bad[k].d, 1, 2, 3, x, y, 4, err, sizeof err);
        UG_EXPECT_MSG(rc == -1 && err[0], "dot case %zu (%s): rc %d", k, bad[k].what, rc);
    }
    ug_dist gd = ug_gendot(10);
    err[0] = 0;
    UG_EXPECT_MSG(ug_dist_fill_sum(&gd, 1, 2, 3, x, 4, err, sizeof err) == -1 &&
                      strstr(err, "gensum"),
                  "gendot as a sum input: \"%s\"", err);
    /* and the good corner cases pass */
    ug_dist ok[] = {ug_uniform(2, 2),         ug_normal(0, 0),
                    ug_expuniform(-149, 127), ug_gensum(1),
                    ug_gendot(1e30),          ug_with_specials(ug_normal(0, 1), 1, UG_SP_ALL)};
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++)
        UG_EXPECT_MSG(ug_dist_fill_dot(&ok[k], 1, 2, 3, x, y, 4, err, sizeof err) == 0,
                      "corner %zu: %s", k, err);
}

UG_CASE(dist, describe)
{
    static const struct {
        ug_dist d;
        const char *name;
    } names[] = {
        {{UG_D_UNIFORM, 0, 1, 0, 0, 0, 0}, "uniform(0,1)"},
        {{UG_D_UNIFORM, -0.5, 0.25, 0, 0, 0, 0}, "uniform(-0.5,0.25)"},
        {{UG_D_NORMAL, 0, 1, 0, 0, 0, 0}, "normal(0,1)"},
        {{UG_D_LOGNORMAL, 0, 1, 0, 0, 0, 0}, "lognormal(0,1)"},
        {{UG_D_EXPUNIFORM, -60, 60, 0, 0, 0, 0}, "expuniform(-60,60)"},
        {{UG_D_CONSTANT, 0.1, 0, 0, 0, 0, 0}, "constant(0.1)"},
        {{UG_D_MSVC_RAND01, 0, 0, 0, 0, 0, 0}, "msvc_rand01"},
        {{UG_D_GENSUM, 1e8, 0, 0, 0, 0, 0}, "gensum(1e+08)"},
        {{UG_D_GENDOT, 1e30, 0, 0, 0, 0, 0}, "gendot(1e+30)"},
        {{UG_D_GENSUM, 1000, 0, 0, 0, 0, 0}, "gensum(1000)"},
        {{UG_D_NORMAL, 0, 1, UG_ORDER_ABS_ASC, 1, 0.01, 0x1f},
         "normal(0,1)|sorted(abs_asc)|alt|specials(0.01,0x1f)"},
        {{UG_D_UNIFORM, 0, 1, UG_ORDER_DESC, 0, 0, 0}, "uniform(0,1)|sorted(desc)"},
        {{UG_D_UNIFORM, 0.1, 0.30000000000000004, 0, 0, 0, 0}, "uniform(0.1,0.30000000000000004)"},
    };
    char buf[96];
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        UG_EXPECT_MSG(strcmp(ug_dist_describe(&names[k].d, buf, sizeof buf), names[k].name) == 0,
                      "\"%s\", expected \"%s\"", buf, names[k].name);
    /* the constructors build the same values */
    ug_dist c = ug_with_specials(ug_alternating(ug_sorted(ug_normal(0, 1), UG_ORDER_ABS_ASC)), 0.01,
                                 UG_SP_ALL);
    UG_EXPECT(strcmp(ug_dist_describe(&c, buf, sizeof buf), names[10].name) == 0);
    /* a short buffer is truncated, never overrun */
    char small[8];
    memset(small, 'x', sizeof small);
    ug_dist_describe(&c, small, 6);
    UG_EXPECT_MSG(strlen(small) == 5 && small[6] == 'x', "truncation: \"%s\"", small);
}

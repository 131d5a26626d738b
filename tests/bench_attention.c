/*
 * bench_attention.c - `ulpgate-bench-attention [--L L] [--S S] [--d D] [--mpfr-rows M]
 * [--threads T] [--causal]` | `--golden [ROWS] [--plugin LIB]`: how fast the attention reference is (oracle/attention/
 * attention_fast.c) beside MPFR alone (attention_mpfr.c), in one run.
 *
 * One head, Q (L x d), K (S x d), V (S x d) normal(0, 1) binary32 from a fixed seed, the
 * default scale RN32(1/sqrt(d)) (default L = S = 2048, d = 128: issue 35's target, <= 10 s on
 * 2 cores).  The fast path over every row on T threads (0: every core), timed whole (wall and
 * the process's CPU seconds: on a shared host CPU s / T is what idle cores take); MPFR alone
 * over the last M rows (default 4) on the same threads, scaled by the keys every row sees to
 * the keys those rows see (a row costs its keys at 128 bits), and those rows' records compared
 * with the fast path's bit for bit.  Exit 1 if a record differs, 2 on a usage error.
 * --golden --plugin LIB adds the first bf16 attention row of the plugin LIB as a third column
 * (FlashAttention-2's own kernel on the GPU: examples/flash_attn2_plugin).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/par.h"
#include "base/sys.h"
#include "harness/inputs/rng.h"
#include "kernels/cpu/attention.h"
#include "kernels/kernel.h"
#include "kernels/plugin.h"
#include "oracle/attention/attention.h"

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fill_normal(float *x, size_t n, uint64_t stream)
{
    ug_stream s = ug_stream_make(0x5eed, stream, 0);
    for (size_t i = 0; i < n; i++) {
        double u = ug_rng_unit(&s, 2 * i), v = ug_rng_unit(&s, 2 * i + 1);
        x[i] = (float)(sqrt(-2 * log(u + 0x1p-60)) * cos(2 * M_PI * v));
    }
}

static float to_bf16(float x)
{
    uint32_t b;
    memcpy(&b, &x, 4);
    b = (b + 0x7fff + ((b >> 16) & 1)) & 0xffff0000u;
    memcpy(&x, &b, 4);
    return x;
}

/* One call of the plugin row gk on bf16 Q K V (binary32 values, exactly bf16) of one head:
 * O into go as binary32 values, lse into gl; 0, or nonzero with why filled. */
static int golden_gpu(const ug_kernel *gk, const float *Q, const float *K, const float *V,
                      const ug_attn_dims *dm, float *go, float *gl, char *why, size_t len)
{
    size_t nq = dm->L * dm->d, nk = dm->S * dm->d;
    unsigned short *b[4] = {ug_xmalloc(nq * 2), ug_xmalloc(nk * 2), ug_xmalloc(nk * 2),
                            ug_xmalloc(nq * 2)};
    const float *src[3] = {Q, K, V};
    size_t n[3] = {nq, nk, nk};
    for (int a = 0; a < 3; a++)
        for (size_t e = 0; e < n[a]; e++) {
            uint32_t u;
            memcpy(&u, &src[a][e], 4);
            b[a][e] = (unsigned short)(u >> 16);
        }
    ug_call c;
    memset(&c, 0, sizeof c);
    c.op = UG_OP_ATTENTION;
    c.shape = (ug_shape){{dm->L, dm->S, dm->d, dm->dv}, 1, 1, 1};
    c.opts = (ug_opts){dm->scale, 0};
    for (int a = 0; a < 3; a++) c.in[a] = (ug_arg){b[a], UG_BF16, n[a]};
    c.out[0] = (ug_arg_out){b[3], UG_BF16, nq};
    c.out[1] = (ug_arg_out){gl, UG_F32, dm->L};
    int rc = ug_kernel_run(gk, &c);
    if (rc != 0) snprintf(why, len, "%s: %s", gk->id, c.err);
    for (size_t e = 0; rc == 0 && e < nq; e++) {
        uint32_t u = (uint32_t)b[3][e] << 16;
        memcpy(&go[e], &u, 4);
    }
    for (int a = 0; a < 4; a++) free(b[a]);
    return rc;
}

/* --golden: the deviation of Golden et al., "Is Flash Attention Stable?" (2024), measured
 * exactly: bf16 Q, K, V normal(0, 1), S = 512 .. 16384 keys, d = 64 and 128, the last `rows`
 * query rows of a causal-free head; PyTorch's bf16 math attention (ug_attn_naive_bf16_cpu) and
 * FlashAttention-2's arithmetic (ug_attn_fa2_bf16_cpu) against the correctly rounded O: the
 * mean and max error in bf16 ULPs, the RMS of the absolute error, and its ratio FA2 / baseline
 * beside the paper's ~10x (which compares two inexact results).  With gk (a plugin's bf16
 * attention row, FlashAttention-2's own kernel), the same figures of its O on the same inputs
 * ("GPU": a kernel that answers unsupported or fails prints its reason and the row ends). */
static int golden(size_t rows, const ug_kernel *gk)
{
    printf("ulpgate-bench-attention --golden: bf16 normal(0,1) Q K V, %zu query rows a head, O's "
           "exact error (bf16 ULP; RMS absolute)%s%s\n", rows, gk ? "; GPU: " : "",
           gk ? gk->id : "");
    printf("  %6s %4s | %9s %9s %11s | %9s %9s %11s | %9s", "S", "d", "base mean", "base max",
           "base RMS", "FA2 mean", "FA2 max", "FA2 RMS", "FA2/base");
    if (gk)
        printf(" | %9s %9s %11s %9s | %9s", "GPU mean", "GPU max", "GPU RMS", "lse max",
               "GPU/base");
    printf("\n");
    int status = 0;
    static const size_t Ss[] = {512, 1024, 2048, 4096, 8192, 16384}, ds[] = {64, 128};
    for (size_t a = 0; a < 6; a++)
        for (size_t b = 0; b < 2; b++) {
            size_t S = Ss[a], d = ds[b];
            ug_attn_dims dm = {rows, S, d, d, ug_attn_scale_default(d), false};
            float *Q = ug_xmalloc(rows * d * 4), *K = ug_xmalloc(S * d * 4), *V = ug_xmalloc(S * d * 4);
            fill_normal(Q, rows * d, 10 + a * 2 + b);
            fill_normal(K, S * d, 30 + a * 2 + b);
            fill_normal(V, S * d, 50 + a * 2 + b);
            for (size_t i = 0; i < rows * d; i++) Q[i] = to_bf16(Q[i]);
            for (size_t i = 0; i < S * d; i++) K[i] = to_bf16(K[i]), V[i] = to_bf16(V[i]);
            ug_exact *O = ug_xmalloc(rows * d * sizeof *O), *lse = ug_xmalloc(rows * sizeof *lse);
            ug_exact_attention(Q, K, V, &dm, O, lse);
            ug_attn_kshape ks = {rows, S, d, d, dm.scale, false};
            float *go = ug_xmalloc(rows * d * 4), *gl = ug_xmalloc(rows * 4);
            double mean[3], mx[3], rms[3], lmx = 0;
            char why[600] = "";
            for (int k = 0; k < (gk ? 3 : 2); k++) {
                if (k == 2 && golden_gpu(gk, Q, K, V, &dm, go, gl, why, sizeof why) != 0) break;
                if (k == 1) ug_attn_fa2_bf16_cpu(Q, K, V, &ks, 128, go, gl);
                if (k == 0) ug_attn_naive_bf16_cpu(Q, K, V, &ks, go, gl);
                if (k == 2)
                    for (size_t i = 0; i < rows; i++) {
                        double le = ug_error_fmt(&lse[i], UG_F32, gl[i]).ulp;
                        lmx = le > lmx ? le : lmx;
                    }
                double sum = 0, sq = 0, m = 0;
                for (size_t e = 0; e < rows * d; e++) {
                    ug_error er = ug_error_fmt(&O[e], UG_BF16, go[e]);
                    sum += er.ulp;
                    m = er.ulp > m ? er.ulp : m;
                    sq += er.abs * er.abs;
                }
                mean[k] = sum / (double)(rows * d);
                mx[k] = m;
                rms[k] = sqrt(sq / (double)(rows * d));
            }
            printf("  %6zu %4zu | %9.3f %9.3g %11.3g | %9.3f %9.3g %11.3g | %8.2fx", S, d,
                   mean[0], mx[0], rms[0], mean[1], mx[1], rms[1], rms[1] / rms[0]);
            if (gk && why[0]) {
                printf(" | %s", why);
                status = 1;
            } else if (gk) {
                printf(" | %9.3f %9.3g %11.3g %9.3g | %8.2fx", mean[2], mx[2], rms[2], lmx,
                       rms[2] / rms[0]);
            }
            printf("\n");
            free(Q);
            free(K);
            free(V);
            free(O);
            free(lse);
            free(go);
            free(gl);
        }
    return status;
}

static int usage(const char *why, const char *arg)
{
    fprintf(stderr, "ulpgate-bench-attention: %s '%s'\nusage: ulpgate-bench-attention [--L L] "
                    "[--S S] [--d D] [--mpfr-rows M] [--threads T] [--causal] | --golden [ROWS] [--plugin LIB]\n", why, arg);
    return 2;
}

int main(int argc, char **argv)
{
    long L = 2048, S = 2048, d = 128, mrows = 4, threads = 0;
    bool causal = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--golden")) {
            ug_par_set_threads(0);
            size_t rows = 32;
            const ug_kernel *gk = NULL;
            for (int j = i + 1; j < argc; j++) {
                if (!strcmp(argv[j], "--plugin") && j + 1 < argc) {
                    if (ug_plugin_load(argv[++j]) != 0) return 2;
                    for (size_t r = 0; !gk && r < ug_kernel_count(); r++) {
                        const ug_kernel *k = ug_kernel_at(r);
                        if (ug_kernel_is_plugin(k) && k->op == UG_OP_ATTENTION &&
                            k->in_store[0] == UG_BF16 && k->out_fmt == UG_BF16)
                            gk = k;
                    }
                    if (!gk) return usage("no bf16 attention row in the plugin", argv[j]);
                } else {
                    char *end;
                    long v = strtol(argv[j], &end, 10);
                    if (*end || v < 1 || v > 4096) return usage("--golden ROWS: 1 .. 4096, not", argv[j]);
                    rows = (size_t)v;
                }
            }
            return golden(rows, gk);
        }
        if (!strcmp(argv[i], "--causal")) {
            causal = true;
            continue;
        }
        long *v = !strcmp(argv[i], "--L") ? &L : !strcmp(argv[i], "--S") ? &S
                  : !strcmp(argv[i], "--d") ? &d : !strcmp(argv[i], "--mpfr-rows") ? &mrows
                  : !strcmp(argv[i], "--threads") ? &threads : NULL;
        if (!v || i + 1 >= argc) return usage("unknown option", argv[i]);
        char *end;
        *v = strtol(argv[++i], &end, 10);
        if (*end || *v < (v == &threads ? 0 : 1) || *v > (1L << 16))
            return usage("not a count in 1 .. 65536:", argv[i]);
    }
    if (mrows > L) mrows = L;
    ug_par_set_threads((int)threads);
    ug_attn_dims dm = {(size_t)L, (size_t)S, (size_t)d, (size_t)d, 0, causal};
    dm.scale = ug_attn_scale_default(dm.d);
    float *Q = ug_xmalloc(dm.L * dm.d * 4), *K = ug_xmalloc(dm.S * dm.d * 4), *V = ug_xmalloc(dm.S * dm.d * 4);
    fill_normal(Q, dm.L * dm.d, 1);
    fill_normal(K, dm.S * dm.d, 2);
    fill_normal(V, dm.S * dm.d, 3);
    size_t no = dm.L * dm.dv;
    ug_exact *O = ug_xmalloc(no * sizeof *O), *lse = ug_xmalloc(dm.L * sizeof *lse);
    printf("ulpgate-bench-attention: one head, L %ld, S %ld, d = dv = %ld%s, normal(0,1) binary32, "
           "scale %a, %d threads; MPFR alone timed on %ld rows and scaled to %ld\n",
           L, S, d, causal ? ", causal" : "", (double)dm.scale, ug_par_threads(), mrows, L);
    size_t f0, m0, f1, m1;
    ug_attn_stats(&f0, &m0);
    double t0 = ug_now_s(), c0 = cpu_s();
    ug_exact_attention_fast(Q, K, V, &dm, O, lse);
    double tf = ug_now_s() - t0, cf = cpu_s() - c0;
    ug_attn_stats(&f1, &m1);
    /* MPFR alone on the last rows (causal: those that see the most keys), as a head of
     * mrows query rows with the same keys in view; scaled by the keys all rows see */
    size_t first = dm.L - (size_t)mrows;
    ug_attn_dims dmm = dm;
    dmm.L = (size_t)mrows;
    double keys_all = 0, keys_timed = 0;
    for (size_t i = 0; i < dm.L; i++) {
        keys_all += (double)ug_attn_keys(&dm, i);
        if (i >= first) keys_timed += (double)ug_attn_keys(&dm, i);
    }
    ug_exact *Om = ug_xmalloc((size_t)mrows * dm.dv * sizeof *Om), *lm = ug_xmalloc((size_t)mrows * sizeof *lm);
    t0 = ug_now_s();
    ug_exact_attention_mpfr(Q + first * dm.d, K, V, &dmm, Om, lm);
    double tm = (ug_now_s() - t0) * (keys_timed > 0 ? keys_all / keys_timed : 0);
    size_t bad = 0;
    for (size_t i = 0; i < (size_t)mrows; i++) {
        for (size_t j = 0; j < dm.dv; j++)
            bad += !ug_exact_equal(&O[(first + i) * dm.dv + j], &Om[i * dm.dv + j]);
        bad += !ug_exact_equal(&lse[first + i], &lm[i]);
    }
    printf("  %10s %9s %11s %14s %9s %12s %7s\n", "outputs", "fast s", "fast CPU s",
           "MPFR alone s", "speedup", "fast->MPFR", "equal");
    printf("  %10zu %9.2f %11.2f %14.1f %8.0fx %7zu rows %7s\n", no + dm.L, tf, cf, tm, tm / tf,
           m1 - m0, bad ? "NO" : "yes");
    free(Q);
    free(K);
    free(V);
    free(O);
    free(lse);
    free(Om);
    free(lm);
    return bad != 0;
}

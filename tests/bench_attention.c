/*
 * bench_attention.c - `ulpgate-bench-attention [--L L] [--S S] [--d D] [--mpfr-rows M]
 * [--threads T] [--causal]` | `--golden [ROWS] [--plugin LIB]`: how fast the attention reference is (oracle/attention/
 * attention_fast.c) beside MPFR alone (attention_mpfr.c), in one run; --golden: the exact
 * error of bf16 attention, CPU arithmetic and (with a device) the CUDA kernels.
 *
 * One head, Q (L x d), K (S x d), V (S x d) normal(0, 1) binary32 from a fixed seed, the
 * default scale RN32(1/sqrt(d)) (default L = S = 2048, d = 128: the target, <= 10 s on
 * 2 cores).  The fast path over every row on T threads (0: every core), timed whole (wall and
 * the process's CPU seconds: on a shared host CPU s / T is what idle cores take); MPFR alone
 * over the last M rows (default 4) on the same threads, scaled by the keys every row sees to
 * the keys those rows see (a row costs its keys at 128 bits), and those rows' records compared
 * with the fast path's bit for bit.  Exit 1 if a record differs, 2 on a usage error.
 * --golden --plugin LIB adds the first bf16 attention row of the plugin LIB as a third GPU
 * column (FlashAttention-2's own kernel: examples/flash_attn2_plugin).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/par.h"
#include "base/sys.h"
#include "harness/inputs/rng.h"
#include "kernels/cpu/attention.h"
#include "kernels/device.h"
#include "kernels/kernel.h"
#include "kernels/plugin.h"
#include "oracle/attention/exact_attention.h"

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

/* The top half of a binary32 holding a bfloat16 value: its bits, exactly. */
static void bf16_bits(const float *x, size_t n, unsigned short *b)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &x[i], 4);
        b[i] = (unsigned short)(u >> 16);
    }
}

/* CUDA attention kernel `name` (kernels/cuda/attention.cu) on one head of bf16 Q (rows x d),
 * K, V (S x d), through the registry and ug_kernel_run as the cases call it: O (bf16 values in
 * binary32) into go.  0, or -1 with the reason printed. */
static int golden_gpu(const char *name, const float *Q, const float *K, const float *V,
                      size_t rows, size_t S, size_t d, float scale, float *go)
{
    const ug_kernel *k = ug_kernel_find(name);
    if (!k) {
        printf("  %s: not in this build\n", name);
        return -1;
    }
    unsigned short *qb = ug_xmalloc(rows * d * 2), *kb = ug_xmalloc(S * d * 2),
                   *vb = ug_xmalloc(S * d * 2), *ob = ug_xmalloc(rows * d * 2);
    float *lse = ug_xmalloc(rows * 4);
    bf16_bits(Q, rows * d, qb);
    bf16_bits(K, S * d, kb);
    bf16_bits(V, S * d, vb);
    ug_call c;
    memset(&c, 0, sizeof c);
    c.op = UG_OP_ATTENTION;
    c.shape.dim[0] = rows, c.shape.dim[1] = S, c.shape.dim[2] = d, c.shape.dim[3] = d;
    c.opts.scale = scale;
    c.in[0] = (ug_arg){qb, UG_BF16, rows * d};
    c.in[1] = (ug_arg){kb, UG_BF16, S * d};
    c.in[2] = (ug_arg){vb, UG_BF16, S * d};
    c.out[0] = (ug_arg_out){ob, UG_BF16, rows * d};
    c.out[1] = (ug_arg_out){lse, UG_F32, rows};
    int rc = ug_kernel_run(k, &c);
    if (rc) printf("  %s: %s\n", name, c.err);
    for (size_t i = 0; !rc && i < rows * d; i++) {
        uint32_t u = (uint32_t)ob[i] << 16;
        memcpy(&go[i], &u, 4);
    }
    free(qb);
    free(kb);
    free(vb);
    free(ob);
    free(lse);
    return rc ? -1 : 0;
}

/* O's exact error over n outputs: mean and max in bf16 ULPs, RMS of the absolute error. */
static void golden_error(const ug_exact *O, const float *go, size_t n, double *mean, double *mx,
                         double *rms)
{
    double sum = 0, sq = 0, m = 0;
    for (size_t e = 0; e < n; e++) {
        ug_error er = ug_error_fmt(&O[e], UG_BF16, go[e]);
        sum += er.ulp;
        m = er.ulp > m ? er.ulp : m;
        sq += er.abs * er.abs;
    }
    *mean = sum / (double)n;
    *mx = m;
    *rms = sqrt(sq / (double)n);
}

/* --golden: the deviation of Golden et al., "Is Flash Attention Stable?" (2024), measured
 * exactly: bf16 Q, K, V normal(0, 1), S = 512 .. 16384 keys, d = 64 and 128, the last `rows`
 * query rows of a causal-free head; PyTorch's bf16 math attention (ug_attn_naive_bf16_cpu) and
 * FlashAttention-2's arithmetic (ug_attn_fa2_bf16_cpu) against the correctly rounded O: the
 * mean and max error in bf16 ULPs, the RMS of the absolute error, and its ratio FA2 / baseline
 * beside the paper's ~10x (which compares two inexact results).  With a CUDA device, a second
 * table: the same heads through the GPU kernels (kernels/cuda/attention.cu), PyTorch's bf16
 * math attention (attn_naive_bf16_cuda) and FlashAttention-2's tiled kernel on the tensor cores
 * (attn_fa2_bf16_mma: the tensor cores' own summation of S = Q K^T and P V), and `plugin`'s
 * bf16 attention row when one was loaded (FlashAttention-2's own kernel). */
static int golden(size_t rows, const char *plugin)
{
    int nk = plugin ? 3 : 2;
    char why[256];
    bool gpu = ug_device_probe(why, sizeof why) != 0;
    enum { NS = 12 };
    double gm[NS][3][3]; /* per shape, kernel: mean, max, RMS */
    bool gok[NS];
    printf("ulpgate-bench-attention --golden: bf16 normal(0,1) Q K V, %zu query rows a head, O's "
           "exact error (bf16 ULP; RMS absolute)\n", rows);
    printf("CPU arithmetic (kernels/cpu/attention.c: attn_naive_bf16_cpu, attn_fa2_bf16_cpu)\n");
    printf("  %6s %4s | %9s %9s %11s | %9s %9s %11s | %9s\n", "S", "d", "base mean", "base max",
           "base RMS", "FA2 mean", "FA2 max", "FA2 RMS", "FA2/base");
    static const size_t Ss[] = {512, 1024, 2048, 4096, 8192, 16384}, ds[] = {64, 128};
    for (size_t a = 0; a < 6; a++)
        for (size_t b = 0; b < 2; b++) {
            size_t S = Ss[a], d = ds[b];
            ug_shape shp = {{rows, S, d, d}, 1, 1, 1};
            ug_opts opt = {ug_attn_scale_default(d), 0u};
            float *Q = ug_xmalloc(rows * d * 4), *K = ug_xmalloc(S * d * 4), *V = ug_xmalloc(S * d * 4);
            fill_normal(Q, rows * d, 10 + a * 2 + b);
            fill_normal(K, S * d, 30 + a * 2 + b);
            fill_normal(V, S * d, 50 + a * 2 + b);
            for (size_t i = 0; i < rows * d; i++) Q[i] = to_bf16(Q[i]);
            for (size_t i = 0; i < S * d; i++) K[i] = to_bf16(K[i]), V[i] = to_bf16(V[i]);
            ug_exact *O = ug_xmalloc(rows * d * sizeof *O), *lse = ug_xmalloc(rows * sizeof *lse);
            ug_exact_attention(Q, K, V, &shp, &opt, O, lse);
            ug_shape kshp = {{rows, S, d, d}, 1, 1, 1};
            ug_opts kopt = {ug_attn_scale(&shp, &opt), 0u};
            float *go = ug_xmalloc(rows * d * 4), *gl = ug_xmalloc(rows * 4);
            double mean[2], mx[2], rms[2];
            for (int k = 0; k < 2; k++) {
                if (k) ug_attn_fa2_bf16_cpu(Q, K, V, &kshp, &kopt, 128, go, gl);
                else ug_attn_naive_bf16_cpu(Q, K, V, &kshp, &kopt, go, gl);
                golden_error(O, go, rows * d, &mean[k], &mx[k], &rms[k]);
            }
            printf("  %6zu %4zu | %9.3f %9.3g %11.3g | %9.3f %9.3g %11.3g | %8.2fx\n", S, d,
                   mean[0], mx[0], rms[0], mean[1], mx[1], rms[1], rms[1] / rms[0]);
            fflush(stdout);
            size_t sh = a * 2 + b;
            gok[sh] = gpu;
            for (int k = 0; gpu && k < nk; k++) {
                const char *name = k == 2 ? plugin : k ? "attn_fa2_bf16_mma"
                                                       : "attn_naive_bf16_cuda";
                if (golden_gpu(name, Q, K, V, rows, S, d, ug_attn_scale(&shp, &opt), go) != 0) {
                    gok[sh] = false;
                    break;
                }
                golden_error(O, go, rows * d, &gm[sh][k][0], &gm[sh][k][1], &gm[sh][k][2]);
            }
            free(Q);
            free(K);
            free(V);
            free(O);
            free(lse);
            free(go);
            free(gl);
        }
    if (!gpu) {
        printf("GPU kernels: not measured (%s)\n", why);
        return 0;
    }
    ug_gpu_info info;
    if (ug_device_info(&info) != 0) snprintf(info.name, sizeof info.name, "?");
    printf("GPU kernels on %s (kernels/cuda/attention.cu: attn_naive_bf16_cuda, "
           "attn_fa2_bf16_mma on tensor cores%s%s)\n", info.name, plugin ? "; plugin: " : "",
           plugin ? plugin : "");
    printf("  %6s %4s | %9s %9s %11s | %9s %9s %11s | %9s", "S", "d", "base mean", "base max",
           "base RMS", "mma mean", "mma max", "mma RMS", "mma/base");
    if (plugin)
        printf(" | %9s %9s %11s | %9s", "plug mean", "plug max", "plug RMS", "plug/base");
    printf("\n");
    int failed = 0;
    for (size_t sh = 0; sh < NS; sh++) {
        if (!gok[sh]) {
            printf("  %6zu %4zu | not run\n", Ss[sh / 2], ds[sh % 2]);
            failed = 1;
            continue;
        }
        printf("  %6zu %4zu | %9.3f %9.3g %11.3g | %9.3f %9.3g %11.3g | %8.2fx", Ss[sh / 2],
               ds[sh % 2], gm[sh][0][0], gm[sh][0][1], gm[sh][0][2], gm[sh][1][0], gm[sh][1][1],
               gm[sh][1][2], gm[sh][1][2] / gm[sh][0][2]);
        if (plugin)
            printf(" | %9.3f %9.3g %11.3g | %8.2fx", gm[sh][2][0], gm[sh][2][1], gm[sh][2][2],
                   gm[sh][2][2] / gm[sh][0][2]);
        printf("\n");
    }
    return failed;
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
            size_t rows = 32;
            const char *plugin = NULL;
            for (int j = i + 1; j < argc; j++) {
                if (!strcmp(argv[j], "--plugin") && j + 1 < argc) {
                    if (ug_plugin_load(argv[++j]) != 0) return 2;
                    for (size_t x = 0; x < ug_kernel_count(); x++) {
                        const ug_kernel *k = ug_kernel_at(x);
                        if (ug_kernel_is_plugin(k) && k->op == UG_OP_ATTENTION &&
                            k->in_store[0] == UG_BF16 && !plugin)
                            plugin = k->name;
                    }
                    if (!plugin) return usage("no bf16 attention row in the plugin", argv[j]);
                } else {
                    char *end;
                    long r = strtol(argv[j], &end, 10);
                    if (*end || r < 1 || r > 4096) return usage("not a row count in 1 .. 4096:", argv[j]);
                    rows = (size_t)r;
                }
            }
            ug_par_set_threads(0);
            return golden(rows, plugin);
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
    ug_shape shp = {{(size_t)L, (size_t)S, (size_t)d, (size_t)d}, 1, 1, 1};
    ug_opts opt = {0, (causal) ? UG_OPT_CAUSAL : 0u};
    opt.scale = ug_attn_scale_default(shp.dim[2]);
    float *Q = ug_xmalloc(shp.dim[0] * shp.dim[2] * 4), *K = ug_xmalloc(shp.dim[1] * shp.dim[2] * 4), *V = ug_xmalloc(shp.dim[1] * shp.dim[2] * 4);
    fill_normal(Q, shp.dim[0] * shp.dim[2], 1);
    fill_normal(K, shp.dim[1] * shp.dim[2], 2);
    fill_normal(V, shp.dim[1] * shp.dim[2], 3);
    size_t no = shp.dim[0] * shp.dim[3];
    ug_exact *O = ug_xmalloc(no * sizeof *O), *lse = ug_xmalloc(shp.dim[0] * sizeof *lse);
    printf("ulpgate-bench-attention: one head, L %ld, S %ld, d = dv = %ld%s, normal(0,1) binary32, "
           "scale %a, %d threads; MPFR alone timed on %ld rows and scaled to %ld\n",
           L, S, d, causal ? ", causal" : "", (double)ug_attn_scale(&shp,
                                               &opt), ug_par_threads(), mrows, L);
    size_t f0, m0, f1, m1;
    ug_attn_stats(&f0, &m0);
    double t0 = ug_now_s(), c0 = cpu_s();
    ug_exact_attention_fast(Q, K, V, &shp, &opt, O, lse);
    double tf = ug_now_s() - t0, cf = cpu_s() - c0;
    ug_attn_stats(&f1, &m1);
    /* MPFR alone on the last rows (causal: those that see the most keys), as a head of
     * mrows query rows with the same keys in view; scaled by the keys all rows see */
    size_t first = shp.dim[0] - (size_t)mrows;
    ug_shape mshp = shp;
    mshp.dim[0] = (size_t)mrows;
    double keys_all = 0, keys_timed = 0;
    for (size_t i = 0; i < shp.dim[0]; i++) {
        keys_all += (double)ug_attn_keys(&shp, &opt, i);
        if (i >= first) keys_timed += (double)ug_attn_keys(&shp, &opt, i);
    }
    ug_exact *Om = ug_xmalloc((size_t)mrows * shp.dim[3] * sizeof *Om), *lm = ug_xmalloc((size_t)mrows * sizeof *lm);
    t0 = ug_now_s();
    ug_exact_attention_mpfr(Q + first * shp.dim[2], K, V, &mshp, &opt, Om, lm);
    double tm = (ug_now_s() - t0) * (keys_timed > 0 ? keys_all / keys_timed : 0);
    size_t bad = 0;
    for (size_t i = 0; i < (size_t)mrows; i++) {
        for (size_t j = 0; j < shp.dim[3]; j++)
            bad += !ug_exact_equal(&O[(first + i) * shp.dim[3] + j], &Om[i * shp.dim[3] + j]);
        bad += !ug_exact_equal(&lse[first + i], &lm[i]);
    }
    printf("  %10s %9s %11s %14s %9s %12s %7s\n", "outputs", "fast s", "fast CPU s",
           "MPFR alone s", "speedup", "fast->MPFR", "equal");
    printf("  %10zu %9.2f %11.2f %14.1f %8.0fx %7zu rows %7s\n", no + shp.dim[0], tf, cf, tm,
           tm / tf,
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

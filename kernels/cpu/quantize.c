/*
 * quantize.c - the quantizers (kernels/quantize.h): the CPU references, one per scale rule, the
 * canaries (wrong on purpose: their cases must fail), and the CUDA row.
 *
 *   <fmt>_ocp_cpu         OCP MX v1.0 on each MX format: X = 2^(floor(log2 amax) - emax_elem),
 *                         floor(log2) read off the binary32's exponent field (integer code);
 *                         elements RN of x / X, saturating (x / X is exact: X a power of two)
 *   mxfp4_ceil_cpu        the round-up rule: the least power of two X with amax / X <= 6
 *   nvfp4_cpu             NVFP4: tensor scale RN_f32(amax_tensor / 2688), block scale
 *                         RN_e4m3(amax / (6 T)), elements RN_e2m1(x / (s T)), saturating
 *   fp8_1x128_cpu, fp8_128x128_cpu
 *                         DeepSeek-V3: scale RN_f32(amax / 448), elements RN_e4m3(x / s),
 *                         saturating
 *   mxfp8_e4m3_scale_up_cpu  canary: ceil(log2 amax) where OCP takes floor (the E8M0 scale one
 *                         too large on every block whose amax is not a power of two)
 *   mxfp8_e4m3_nosat_cpu  canary: OCP's scale, elements converted without saturating (beyond 448:
 *                         NaN, as e4m3's non-saturating conversion gives)
 *   nvfp4_no_tensor_cpu   canary: NVFP4 with the tensor scale dropped (T = 1)
 *   mxfp8_e4m3_ocp_cuda, mxfp4_ocp_cuda   the CUDA quantizer (kernels/cuda/quantize.cu)
 *
 * Special blocks (every rule): an amax NaN or infinite gives the scale format's NaN; amax 0 gives
 * E8M0's least code (2^-127) or a zero scale, and zero elements.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/bits.h"
#include "kernels/quantize.h"

enum { Q_OCP, Q_CEIL, Q_NVFP4, Q_AMAX, Q_SCALE_UP, Q_NOSAT, Q_NO_TENSOR };

size_t ug_quantize_blocks(const ug_blockfmt *B, size_t rows, size_t cols)
{
    size_t br = (size_t)B->block_rows, bc = (size_t)B->block_cols;
    return ((rows + br - 1) / br) * ((cols + bc - 1) / bc);
}

// --- the scale's exponent, by integer arithmetic on the binary32 ------------------------------

/* floor(log2 |v|) of a finite nonzero binary32, from its exponent field (subnormals: the
 * position of the leading significand bit). */
static int q_floor_log2(float v)
{
    uint32_t u = ug_f32_bits(v) & 0x7fffffffu, E = u >> 23;
    if (E) return (int)E - 127;
    int top = 31;
    while (!(u >> top & 1)) top--;
    return top - 149;
}

static bool q_pow2(float v) /* |v| a power of two */
{
    uint32_t u = ug_f32_bits(v) & 0x7fffffffu;
    return u >> 23 ? (u & 0x7fffffu) == 0 : (u & (u - 1)) == 0;
}

/* The E8M0 code of 2^e: clamped to 0 below 2^-127, NaN (0xFF) above 2^127. */
static uint8_t q_e8m0(int e)
{
    return e > 127 ? UG_E8M0_NAN : e < -127 ? 0 : (uint8_t)(e + UG_E8M0_BIAS);
}

// --- one block at a time --------------------------------------------------------------------

typedef struct q_block {
    size_t r0, r1, c0, c1; /* rows r0..r1, columns c0..c1 (exclusive ends) */
} q_block;

static q_block q_block_at(const ug_blockfmt *B, const ug_quantize_call *c, size_t b)
{
    size_t bc = (size_t)B->block_cols, br = (size_t)B->block_rows;
    size_t gc = (c->cols + bc - 1) / bc, i = b / gc, j = b % gc;
    q_block k = {i * br, (i + 1) * br, j * bc, (j + 1) * bc};
    if (k.r1 > c->rows) k.r1 = c->rows;
    if (k.c1 > c->cols) k.c1 = c->cols;
    return k;
}

/* The block's largest magnitude; NaN if one is NaN (an infinity gives +inf). */
static float q_amax(const ug_quantize_call *c, q_block k)
{
    float m = 0;
    for (size_t r = k.r0; r < k.r1; r++)
        for (size_t j = k.c0; j < k.c1; j++) {
            float a = fabsf(c->x[r * c->cols + j]);
            if (isnan(a)) return NAN;
            if (a > m) m = a;
        }
    return m;
}

/* The E8M0 code a power-of-two rule gives amax (version: Q_OCP, Q_CEIL or Q_SCALE_UP). */
static uint8_t q_e8m0_scale(int version, const ug_format *E, float amax)
{
    if (!(amax < INFINITY)) return UG_E8M0_NAN;
    if (amax == 0) return 0;
    int e = q_floor_log2(amax) - E->emax;
    if (version == Q_SCALE_UP && !q_pow2(amax)) e++;
    if (version == Q_CEIL && (double)amax > ldexp(E->max, e)) e++; /* exact: a power-of-two step */
    return q_e8m0(e);
}

/* Store the elements of block k: RN of x / s (saturating unless nosat); s = 0: zeros; NaN s:
 * the element format's NaN pattern (e4m3, e5m2) or its max (FP6/FP4 have no NaN). */
static void q_store(ug_fmt elem, const ug_quantize_call *c, q_block k, double s, bool nosat)
{
    for (size_t r = k.r0; r < k.r1; r++)
        for (size_t j = k.c0; j < k.c1; j++) {
            size_t i = r * c->cols + j;
            double x = c->x[i], v;
            if (isnan(s) || isnan(x)) v = NAN;
            else if (s == 0) v = 0.0;
            else v = nosat ? ug_div_round(elem, x, s, false) : ug_div_round(elem, x, s, true);
            c->elems[i] = (uint8_t)ug_fmt_encode(elem, v);
        }
}

static int ug_quantize_cpu_run(const ug_quantizer *q, const ug_blockfmt *B, ug_quantize_call *c)
{
    const ug_format *E = ug_format_of(B->elem);
    size_t nb = ug_quantize_blocks(B, c->rows, c->cols);
    c->tensor = 1.0f;
    if (q->version == Q_NVFP4 || q->version == Q_NO_TENSOR) {
        float amax_t = 0;
        for (size_t i = 0; i < c->rows * c->cols; i++) {
            float a = fabsf(c->x[i]);
            amax_t = isnan(a) || isnan(amax_t) ? NAN : a > amax_t ? a : amax_t;
        }
        c->tensor = q->version == Q_NO_TENSOR ? 1.0f : (float)ug_nvfp4_tensor_scale(amax_t);
    }
    for (size_t b = 0; b < nb; b++) {
        q_block k = q_block_at(B, c, b);
        float amax = q_amax(c, k);
        switch (q->version) {
        case Q_OCP:
        case Q_CEIL:
        case Q_SCALE_UP:
        case Q_NOSAT: {
            uint8_t code = q_e8m0_scale(q->version == Q_NOSAT ? Q_OCP : q->version, E, amax);
            c->scales[b] = code;
            q_store(B->elem, c, k, ug_e8m0_decode(code), q->version == Q_NOSAT);
            break;
        }
        case Q_NVFP4:
        case Q_NO_TENSOR: {
            double T = c->tensor, s;
            if (!(amax < INFINITY) || isnan(T)) s = NAN;
            else if (amax == 0 || T == 0) s = 0.0;
            else s = ug_div_round(UG_E4M3, amax, 6.0 * T, true);
            c->scales[b] = (uint8_t)ug_fmt_encode(UG_E4M3, s);
            q_store(B->elem, c, k, s * T, false);
            break;
        }
        case Q_AMAX: {
            float s = !(amax < INFINITY) ? NAN : (float)ug_div_round(UG_F32, amax, 448.0, false);
            uint32_t u = ug_f32_bits(s);
            memcpy(c->scales + 4 * b, &u, 4);
            q_store(B->elem, c, k, s, false);
            break;
        }
        default:
            snprintf(c->err, sizeof c->err, "%s: unknown version %d", q->name, q->version);
            return 1;
        }
    }
    return 0;
}

// --- the rows ---------------------------------------------------------------------------------

#define Q_CPU(nm, fmt, rl, ver, fail, d) {nm, fmt, rl, false, fail, ver, d, ug_quantize_cpu_run}
static const ug_quantizer ug_quantizers[] = {
    Q_CPU("mxfp8_e4m3_ocp_cpu", "mxfp8_e4m3", UG_SRULE_OCP, Q_OCP, false,
          "OCP MX scale, RN saturating e4m3"),
    Q_CPU("mxfp8_e5m2_ocp_cpu", "mxfp8_e5m2", UG_SRULE_OCP, Q_OCP, false,
          "OCP MX scale, RN saturating e5m2"),
    Q_CPU("mxfp6_e3m2_ocp_cpu", "mxfp6_e3m2", UG_SRULE_OCP, Q_OCP, false,
          "OCP MX scale, RN saturating e3m2"),
    Q_CPU("mxfp6_e2m3_ocp_cpu", "mxfp6_e2m3", UG_SRULE_OCP, Q_OCP, false,
          "OCP MX scale, RN saturating e2m3"),
    Q_CPU("mxfp4_ocp_cpu", "mxfp4", UG_SRULE_OCP, Q_OCP, false, "OCP MX scale, RN saturating e2m1"),
    Q_CPU("mxfp4_ceil_cpu", "mxfp4", UG_SRULE_CEIL, Q_CEIL, false,
          "round-up E8M0 scale: no element saturates"),
    Q_CPU("nvfp4_cpu", "nvfp4", UG_SRULE_NVFP4, Q_NVFP4, false,
          "tensor scale amax/2688, e4m3 block scales"),
    Q_CPU("fp8_1x128_cpu", "fp8_1x128", UG_SRULE_AMAX, Q_AMAX, false,
          "DeepSeek-V3 activations: amax/448 per 1x128"),
    Q_CPU("fp8_128x128_cpu", "fp8_128x128", UG_SRULE_AMAX, Q_AMAX, false,
          "DeepSeek-V3 weights: amax/448 per 128x128"),
    Q_CPU("mxfp8_e4m3_scale_up_cpu", "mxfp8_e4m3", UG_SRULE_OCP, Q_SCALE_UP, true,
          "ceil(log2 amax) where OCP floors"),
    Q_CPU("mxfp8_e4m3_nosat_cpu", "mxfp8_e4m3", UG_SRULE_OCP, Q_NOSAT, true,
          "elements beyond 448 not saturated (NaN)"),
    Q_CPU("nvfp4_no_tensor_cpu", "nvfp4", UG_SRULE_NVFP4, Q_NO_TENSOR, true,
          "the tensor scale dropped (T = 1)"),
    {"mxfp8_e4m3_ocp_cuda", "mxfp8_e4m3", UG_SRULE_OCP, true, false, 0,
     "CUDA: OCP MX scale, __nv_cvt_float_to_fp8 satfinite", ug_quantize_cuda},
    {"mxfp4_ocp_cuda", "mxfp4", UG_SRULE_OCP, true, false, 0,
     "CUDA: OCP MX scale, __nv_cvt_float_to_fp4 (e2m1)", ug_quantize_cuda},
};

enum { Q_BUILTIN = sizeof ug_quantizers / sizeof ug_quantizers[0] };
static ug_quantizer ug_quantizers_registered[UG_QUANTIZER_REGISTERED_MAX];
static size_t ug_quantizers_nregistered;

size_t ug_quantizer_count(void) { return Q_BUILTIN + ug_quantizers_nregistered; }

const ug_quantizer *ug_quantizer_at(size_t i)
{
    if (i < Q_BUILTIN) return &ug_quantizers[i];
    i -= Q_BUILTIN;
    return i < ug_quantizers_nregistered ? &ug_quantizers_registered[i] : NULL;
}

int ug_quantizer_register(const ug_quantizer *row, char *err, size_t errlen)
{
    const ug_blockfmt *B = row && row->blockfmt ? ug_blockfmt_by_name(row->blockfmt) : NULL;
    bool taken = false;
    for (size_t i = 0; row && row->name && i < ug_quantizer_count(); i++)
        taken |= strcmp(ug_quantizer_at(i)->name, row->name) == 0;
    const char *why = !row                              ? "no row"
                      : !row->name || !row->name[0]     ? "no name"
                      : !row->run                       ? "no run function"
                      : taken                           ? "name taken"
                      : !B                              ? "block format not in the table"
                      : !ug_scale_rule_fits(row->rule, B->scale, B->tensor_scale)
                          ? "the rule does not fit the block format's scale"
                      : ug_quantizers_nregistered == UG_QUANTIZER_REGISTERED_MAX ? "table full"
                                                                                 : NULL;
    if (why) {
        if (err && errlen)
            snprintf(err, errlen, "ug_quantizer_register: quantizer '%s': %s",
                     row && row->name ? row->name : "?", why);
        return -1;
    }
    ug_quantizers_registered[ug_quantizers_nregistered] = *row;
    return (int)(Q_BUILTIN + ug_quantizers_nregistered++);
}

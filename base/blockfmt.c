/*
 * blockfmt.c - the block-scaled format table, the scale rules and the exact element value
 * (blockfmt.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/blockfmt.h"

static const ug_blockfmt ug_blockfmts[] = {
    {"mxfp8_e4m3", UG_E4M3, UG_SCALE_E8M0, 1, 32, false, UG_SRULE_OCP,
     "OCP MX v1.0 MXFP8: e4m3 elements, an E8M0 scale per 32"},
    {"mxfp8_e5m2", UG_E5M2, UG_SCALE_E8M0, 1, 32, false, UG_SRULE_OCP,
     "OCP MX v1.0 MXFP8: e5m2 elements, an E8M0 scale per 32"},
    {"mxfp6_e3m2", UG_E3M2, UG_SCALE_E8M0, 1, 32, false, UG_SRULE_OCP,
     "OCP MX v1.0 MXFP6: e3m2 elements, an E8M0 scale per 32"},
    {"mxfp6_e2m3", UG_E2M3, UG_SCALE_E8M0, 1, 32, false, UG_SRULE_OCP,
     "OCP MX v1.0 MXFP6: e2m3 elements, an E8M0 scale per 32"},
    {"mxfp4", UG_E2M1, UG_SCALE_E8M0, 1, 32, false, UG_SRULE_OCP,
     "OCP MX v1.0 MXFP4: e2m1 elements, an E8M0 scale per 32"},
    {"nvfp4", UG_E2M1, UG_SCALE_E4M3, 1, 16, true, UG_SRULE_NVFP4,
     "NVFP4: e2m1 elements, an e4m3 scale per 16, a binary32 tensor scale"},
    {"fp8_1x128", UG_E4M3, UG_SCALE_F32, 1, 128, false, UG_SRULE_AMAX,
     "DeepSeek-V3 activations: e4m3 elements, a binary32 scale per 1x128 tile"},
    {"fp8_128x128", UG_E4M3, UG_SCALE_F32, 128, 128, false, UG_SRULE_AMAX,
     "DeepSeek-V3 weights: e4m3 elements, a binary32 scale per 128x128 block"},
};
enum { UG_BLOCKFMT_BUILTIN = sizeof ug_blockfmts / sizeof ug_blockfmts[0] };

static ug_blockfmt ug_blockfmt_registered[UG_BLOCKFMT_REGISTERED_MAX];
static size_t ug_blockfmt_nregistered;

size_t ug_blockfmt_count(void) { return UG_BLOCKFMT_BUILTIN + ug_blockfmt_nregistered; }

const ug_blockfmt *ug_blockfmt_at(size_t i)
{
    if (i < UG_BLOCKFMT_BUILTIN) return &ug_blockfmts[i];
    i -= UG_BLOCKFMT_BUILTIN;
    return i < ug_blockfmt_nregistered ? &ug_blockfmt_registered[i] : NULL;
}

const ug_blockfmt *ug_blockfmt_by_name(const char *name)
{
    for (size_t i = 0; name && i < ug_blockfmt_count(); i++)
        if (strcmp(ug_blockfmt_at(i)->name, name) == 0) return ug_blockfmt_at(i);
    return NULL;
}

static const char *const ug_scale_kind_names[UG_SCALE_KIND_COUNT] = {"e8m0", "e4m3", "f32"};
static const char *const ug_scale_rule_names[UG_SRULE_COUNT] = {"ocp", "ceil", "nvfp4", "amax"};

const char *ug_scale_kind_name(ug_scale_kind k)
{
    return (unsigned)k < UG_SCALE_KIND_COUNT ? ug_scale_kind_names[k] : "?";
}

const char *ug_scale_rule_name(ug_scale_rule r)
{
    return (unsigned)r < UG_SRULE_COUNT ? ug_scale_rule_names[r] : "?";
}

ug_scale_rule ug_scale_rule_parse(const char *name)
{
    for (int r = 0; name && r < UG_SRULE_COUNT; r++)
        if (strcmp(name, ug_scale_rule_names[r]) == 0) return (ug_scale_rule)r;
    return UG_SRULE_COUNT;
}

size_t ug_scale_bytes(ug_scale_kind k) { return k == UG_SCALE_F32 ? 4 : 1; }

bool ug_scale_rule_fits(ug_scale_rule r, ug_scale_kind k, bool tensor_scale)
{
    switch (r) {
    case UG_SRULE_OCP:
    case UG_SRULE_CEIL: return k == UG_SCALE_E8M0 && !tensor_scale;
    case UG_SRULE_NVFP4: return k == UG_SCALE_E4M3 && tensor_scale;
    case UG_SRULE_AMAX: return k == UG_SCALE_F32 && !tensor_scale;
    default: return false;
    }
}

int ug_blockfmt_register(const ug_blockfmt *row, char *err, size_t errlen)
{
    const ug_format *E = row ? ug_format_of(row->elem) : NULL;
    const char *why = !row                                    ? "no row"
                      : !row->name || !row->name[0]           ? "no name"
                      : ug_blockfmt_by_name(row->name)        ? "name taken"
                      : !E || E->bits == 0 || E->bits > 8     ? "element format not stored in a byte"
                      : row->block_rows < 1 || row->block_cols < 1 ? "a block of no element"
                      : !ug_scale_rule_fits(row->rule, row->scale, row->tensor_scale)
                          ? "the rule does not fit the scale format"
                      : ug_blockfmt_nregistered == UG_BLOCKFMT_REGISTERED_MAX ? "table full"
                                                                              : NULL;
    if (why) {
        if (err && errlen)
            snprintf(err, errlen, "ug_blockfmt_register: block format '%s': %s",
                     row && row->name ? row->name : "?", why);
        return -1;
    }
    ug_blockfmt_registered[ug_blockfmt_nregistered] = *row;
    return (int)(UG_BLOCKFMT_BUILTIN + ug_blockfmt_nregistered++);
}

// --- E8M0 and the scale values ---------------------------------------------------------------

double ug_e8m0_decode(uint8_t c)
{
    return c == UG_E8M0_NAN ? NAN : ldexp(1.0, (int)c - UG_E8M0_BIAS);
}

double ug_scale_decode(ug_scale_kind k, uint32_t c)
{
    switch (k) {
    case UG_SCALE_E8M0: return c > 0xff ? NAN : ug_e8m0_decode((uint8_t)c);
    case UG_SCALE_E4M3: return ug_fmt_decode(UG_E4M3, c);
    case UG_SCALE_F32: return ug_fmt_decode(UG_F32, c);
    default: return NAN;
    }
}

/* The scale of value v (a number of kind k, or NaN) with its code. */
static ug_scale ug_scale_make(ug_scale_kind k, double v)
{
    if (k == UG_SCALE_E8M0) {
        if (isnan(v)) return (ug_scale){UG_E8M0_NAN, NAN};
        return (ug_scale){(uint32_t)(ilogb(v) + UG_E8M0_BIAS), v};
    }
    ug_fmt f = k == UG_SCALE_E4M3 ? UG_E4M3 : UG_F32;
    uint32_t code = (uint32_t)ug_fmt_encode(f, v);
    return (ug_scale){code, ug_fmt_decode(f, code)};
}

/* 2^e as an E8M0 scale: clamped to code 0 below 2^-127, NaN above 2^127. */
static ug_scale ug_e8m0_pow2(int e)
{
    if (e > 127) return ug_scale_make(UG_SCALE_E8M0, NAN);
    return ug_scale_make(UG_SCALE_E8M0, ldexp(1.0, e < -127 ? -127 : e));
}

double ug_div_round(ug_fmt f, double x, double d, bool sat)
{
    double hi = x / d, r = fma(-hi, d, x); /* r = x - hi d exactly: the remainder's sign */
    double lo = d > 0 ? r : -r;            /* the sign of x/d - hi */
    double v = ug_fmt_round2(f, hi, lo, UG_RN);
    const ug_format *F = ug_format_of(f);
    if (sat && F && !isnan(hi) && !(fabs(v) <= F->max)) return copysign(F->max, hi);
    return v;
}

double ug_nvfp4_tensor_scale(double amax_tensor)
{
    if (!(amax_tensor < INFINITY)) return NAN;
    return ug_div_round(UG_F32, amax_tensor, 448.0 * 6.0, false);
}

ug_scale ug_scale_of(ug_scale_rule r, ug_fmt elem, ug_scale_kind k, double amax, double tensor)
{
    const ug_format *E = ug_format_of(elem);
    if (!E || !ug_scale_rule_fits(r, k, r == UG_SRULE_NVFP4)) return ug_scale_make(k, NAN);
    if (!(amax < INFINITY)) return ug_scale_make(k, NAN); /* NaN or +inf */
    switch (r) {
    case UG_SRULE_OCP:
        return amax == 0 ? ug_e8m0_pow2(-127) : ug_e8m0_pow2(ilogb(amax) - E->emax);
    case UG_SRULE_CEIL: {
        if (amax == 0) return ug_e8m0_pow2(-127);
        /* the least e with amax <= max_elem * 2^e: ilogb(amax) - emax_elem or one above it
         * (max_elem lies in [2^emax, 2^(emax+1))); both products exact */
        int e = ilogb(amax) - E->emax - 1;
        while (amax > ldexp(E->max, e)) e++;
        return ug_e8m0_pow2(e);
    }
    case UG_SRULE_NVFP4:
        if (isnan(tensor)) return ug_scale_make(k, NAN);
        if (tensor == 0 || amax == 0) return ug_scale_make(k, 0.0);
        return ug_scale_make(k, ug_div_round(UG_E4M3, amax, 6.0 * tensor, true));
    case UG_SRULE_AMAX:
        return ug_scale_make(k, ug_div_round(UG_F32, amax, 448.0, false));
    default:
        return ug_scale_make(k, NAN);
    }
}

double ug_blockfmt_elem_of(ug_fmt elem, double x, double s)
{
    if (isnan(x) || isnan(s)) return NAN;
    if (s == 0) return 0.0;
    return ug_div_round(elem, x, s, true);
}

double ug_blockfmt_value(const ug_blockfmt *B, uint32_t elem_code, uint32_t scale_code,
                         double tensor)
{
    if (!B) return NAN;
    double v = ug_fmt_decode(B->elem, elem_code) * ug_scale_decode(B->scale, scale_code);
    return B->tensor_scale ? v * tensor : v;
}

/*
 * array.c - the typed array's element access and its shape as text (array.h).
 */
#include <stdio.h>

#include "base/array.h"

size_t ug_array_count(const ug_array *a)
{
    size_t c = 1;
    for (int d = 0; d < a->ndim; d++) c *= a->shape[d];
    return c;
}

void ug_array_c_strides(ug_array *a)
{
    ptrdiff_t s = 1;
    for (int d = a->ndim - 1; d >= 0; d--) {
        a->strides[d] = s;
        s *= (ptrdiff_t)a->shape[d];
    }
}

bool ug_array_contiguous(const ug_array *a)
{
    bool given = false;
    for (int d = 0; d < a->ndim; d++) given |= a->strides[d] != 0;
    if (!given) return true;
    ptrdiff_t s = 1;
    for (int d = a->ndim - 1; d >= 0; d--) {
        if (a->shape[d] > 1 && a->strides[d] != s) return false;
        s *= (ptrdiff_t)a->shape[d];
    }
    return true;
}

int ug_array_require_c_order(const ug_array *a, char *err, size_t errlen)
{
    if (a->ndim < 0 || a->ndim > UG_ARRAY_MAX_DIMS) {
        snprintf(err, errlen, "%s: %d dimensions (at most %d)", a->name, a->ndim,
                 UG_ARRAY_MAX_DIMS);
        return 2;
    }
    if (ug_array_contiguous(a)) return 0;
    char st[192], sh[128];
    snprintf(err, errlen, "%s: strides %s (elements) of shape %s: not C-contiguous (copy it "
             "into C order first)", a->name, ug_array_strides_text(a, st, sizeof st),
             ug_array_shape_text(a, sh, sizeof sh));
    return 2;
}

int ug_array_check_codes(const ug_array *a, char *err, size_t errlen)
{
    const ug_format *F = ug_format_of(a->fmt);
    size_t w = ug_fmt_bytes(a->fmt);
    if (!F || F->bits <= 0 || (size_t)F->bits >= 8 * w || w > 8) return 0;
    uint64_t high = ~0ull << F->bits;
    size_t n = ug_array_count(a);
    for (size_t i = 0; i < n; i++) {
        uint64_t b = ug_array_bits(a, i);
        if (!(b & high)) continue;
        snprintf(err, errlen, "%s: element %zu holds 0x%llx, not a code of %s (%d bits, one code "
                 "a byte in its low bits: two packed in a byte are not read)", a->name, i,
                 (unsigned long long)b, F->name, F->bits);
        return 2;
    }
    return 0;
}

double ug_array_load(const ug_array *a, size_t i)
{
    const unsigned char *data = a->data;
    if (!a->big_endian) return ug_fmt_load(a->fmt, data, i);
    size_t w = ug_fmt_bytes(a->fmt);
    unsigned char tmp[8];
    for (size_t k = 0; k < w; k++) tmp[k] = data[i * w + w - 1 - k];
    return ug_fmt_load(a->fmt, tmp, 0);
}

uint64_t ug_array_bits(const ug_array *a, size_t i)
{
    size_t w = ug_fmt_bytes(a->fmt);
    const unsigned char *p = (const unsigned char *)a->data + i * w;
    uint64_t v = 0;
    for (size_t k = 0; k < w; k++) /* little-endian storage; big_endian: the other way round */
        v |= (uint64_t)p[a->big_endian ? w - 1 - k : k] << (8 * k);
    return v;
}

const void *ug_array_native(const ug_array *a, ug_fmt f)
{
    static const uint16_t one = 1;
    bool little = *(const unsigned char *)&one == 1;
    size_t align = f == UG_F64 ? _Alignof(double) : _Alignof(float);
    bool native = a->fmt == f && a->big_endian != little && ((uintptr_t)a->data % align) == 0;
    return native ? a->data : NULL;
}

/* n values as Python writes a tuple: "(4, 1000)", "(3,)", "()". */
static const char *tuple_text(const size_t *u, const ptrdiff_t *sgn, int n, char *buf, size_t len)
{
    size_t o = (size_t)snprintf(buf, len, "(");
    for (int d = 0; d < n && o < len; d++)
        o += u ? (size_t)snprintf(buf + o, len - o, "%s%zu", d ? ", " : "", u[d])
               : (size_t)snprintf(buf + o, len - o, "%s%td", d ? ", " : "", sgn[d]);
    if (o < len) snprintf(buf + o, len - o, n == 1 ? ",)" : ")");
    return buf;
}

const char *ug_array_shape_text(const ug_array *a, char *buf, size_t len)
{
    return tuple_text(a->shape, NULL, a->ndim, buf, len);
}

const char *ug_array_strides_text(const ug_array *a, char *buf, size_t len)
{
    return tuple_text(NULL, a->strides, a->ndim, buf, len);
}

/*
 * order.c - the ordering transforms of the input distributions: a vector sorted by value or
 * magnitude, and dot pairs sorted by their product, by stable LSD radix sorts on total-order keys
 * (O(n), and deterministic: ties cannot reorder differently anywhere).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "harness/inputs/dist_int.h"

/* Total-order keys: ascending unsigned keys = ascending values (-NaN < -inf < ... < -0 < +0 <
 * ... < +inf < +NaN); the magnitude keys order by |x| and then by value (negative first). */
static inline uint32_t ug_key_val32(float f)
{
    uint32_t b = ug_f32_bits(f);
    return (b & 0x80000000u) ? ~b : b | 0x80000000u;
}
static inline float ug_unkey_val32(uint32_t k)
{
    return ug_bits_f32((k & 0x80000000u) ? k & 0x7fffffffu : ~k);
}
static inline uint32_t ug_key_abs32(float f)
{
    uint32_t b = ug_f32_bits(f);
    return (b & 0x7fffffffu) << 1 | (b >> 31 ^ 1u);
}
static inline float ug_unkey_abs32(uint32_t k)
{
    return ug_bits_f32((k >> 1) | ((k & 1u) ? 0u : 0x80000000u));
}
static inline uint64_t ug_key_val64(double d)
{
    uint64_t b = ug_f64_bits(d);
    return (b >> 63) ? ~b : b | 0x8000000000000000ull;
}
static inline uint64_t ug_key_abs64(double d)
{
    uint64_t b = ug_f64_bits(d);
    return (b & 0x7fffffffffffffffull) << 1 | (b >> 63 ^ 1u);
}

#define UG_RADIX_BITS 11
#define UG_RADIX_SIZE (1u << UG_RADIX_BITS)

/* Digit counts into the digits' first output positions (exclusive prefix sum); false, and
 * nothing to do for this pass, when every key has the first key's digit. */
static bool ug_radix_offsets(size_t *cnt, size_t first_digit, size_t n)
{
    if (cnt[first_digit] == n) return false;
    size_t sum = 0;
    for (size_t d = 0; d < UG_RADIX_SIZE; d++) {
        size_t c = cnt[d];
        cnt[d] = sum;
        sum += c;
    }
    return true;
}

/* Stable LSD radix sort of 32-bit keys (3 passes of 11 bits, a pass skipped when every key
 * shares the digit).  tmp: n words.  O(n). */
static void ug_radix32(uint32_t *k, uint32_t *tmp, size_t n)
{
    size_t *cnt = calloc(UG_RADIX_SIZE, sizeof *cnt);
    if (!cnt) abort(); /* 16 KiB: out of memory here is hopeless anyway */
    for (unsigned shift = 0; shift < 32; shift += UG_RADIX_BITS) {
        memset(cnt, 0, UG_RADIX_SIZE * sizeof *cnt);
        for (size_t i = 0; i < n; i++) cnt[(k[i] >> shift) & (UG_RADIX_SIZE - 1)]++;
        if (!ug_radix_offsets(cnt, (k[0] >> shift) & (UG_RADIX_SIZE - 1), n)) continue;
        for (size_t i = 0; i < n; i++) tmp[cnt[(k[i] >> shift) & (UG_RADIX_SIZE - 1)]++] = k[i];
        memcpy(k, tmp, n * sizeof *k);
    }
    free(cnt);
}

/* Stable LSD radix sort of (64-bit key, 32-bit index) pairs: ties keep index order. */
static void ug_radix64(uint64_t *k, uint32_t *idx, uint64_t *ktmp, uint32_t *itmp, size_t n)
{
    size_t *cnt = calloc(UG_RADIX_SIZE, sizeof *cnt);
    if (!cnt) abort();
    for (unsigned shift = 0; shift < 64; shift += UG_RADIX_BITS) {
        memset(cnt, 0, UG_RADIX_SIZE * sizeof *cnt);
        for (size_t i = 0; i < n; i++) cnt[(k[i] >> shift) & (UG_RADIX_SIZE - 1)]++;
        if (!ug_radix_offsets(cnt, (k[0] >> shift) & (UG_RADIX_SIZE - 1), n)) continue;
        for (size_t i = 0; i < n; i++) {
            size_t at = cnt[(k[i] >> shift) & (UG_RADIX_SIZE - 1)]++;
            ktmp[at] = k[i];
            itmp[at] = idx[i];
        }
        memcpy(k, ktmp, n * sizeof *k);
        memcpy(idx, itmp, n * sizeof *idx);
    }
    free(cnt);
}

/* Sort x[0..n) (stride `stride`) in place by `order`; desc is exactly asc reversed (equal keys
 * are identical values, so ties cannot be told apart).  tmp: 2n words. */
void ug_order_f32(float *x, size_t n, size_t stride, ug_order order, uint32_t *tmp)
{
    if (order == UG_ORDER_NONE || n < 2) return;
    bool by_abs = order == UG_ORDER_ABS_ASC || order == UG_ORDER_ABS_DESC;
    bool desc = order == UG_ORDER_DESC || order == UG_ORDER_ABS_DESC;
    uint32_t *k = tmp, *t2 = tmp + n;
    for (size_t i = 0; i < n; i++)
        k[i] = by_abs ? ug_key_abs32(x[i * stride]) : ug_key_val32(x[i * stride]);
    ug_radix32(k, t2, n);
    for (size_t i = 0; i < n; i++) {
        uint32_t key = k[desc ? n - 1 - i : i];
        x[i * stride] = by_abs ? ug_unkey_abs32(key) : ug_unkey_val32(key);
    }
}

/* Dot inputs: the pairs (x_i, y_i) are ordered together by the exact product x_i*y_i (binary64),
 * ties by index; desc is asc reversed.  The dot product's terms are unchanged, only reordered. */
int ug_order_pairs(float *x, float *y, size_t n, ug_order order)
{
    if (order == UG_ORDER_NONE || n < 2) return 0;
    bool by_abs = order == UG_ORDER_ABS_ASC || order == UG_ORDER_ABS_DESC;
    bool desc = order == UG_ORDER_DESC || order == UG_ORDER_ABS_DESC;
    uint64_t *k = malloc(2 * n * sizeof *k);
    uint32_t *idx = malloc(2 * n * sizeof *idx);
    float *cp = malloc(2 * n * sizeof *cp);
    if (!k || !idx || !cp) goto err;
    for (size_t i = 0; i < n; i++) {
        double p = (double)x[i] * (double)y[i];
        k[i] = by_abs ? ug_key_abs64(p) : ug_key_val64(p);
        idx[i] = (uint32_t)i;
    }
    ug_radix64(k, idx, k + n, idx + n, n);
    memcpy(cp, x, n * sizeof *x);
    memcpy(cp + n, y, n * sizeof *y);
    for (size_t i = 0; i < n; i++) {
        uint32_t from = idx[desc ? n - 1 - i : i];
        x[i] = cp[from];
        y[i] = cp[n + from];
    }
    free(k);
    free(idx);
    free(cp);
    return 0;
err:
    free(k);
    free(idx);
    free(cp);
    return -1;
}

/*
 * array.h - the one typed array of the project: elements of one number format (base/format.h)
 * somewhere in memory, with their byte order, shape and strides.  What `check` grades
 * (harness/check/check.h), what the .npy reader maps (harness/inputs/npy.h: a ug_npy holds one)
 * and what the Python extension reads an argument into (python/ulpgate/_ext/arrays.h: a
 * ug_py_array holds one).  The array owns nothing: whoever filled it keeps data alive.
 *
 *   ug_array x = {.name = "x", .data = p, .fmt = UG_F32, .ndim = 2, .shape = {B, n}};
 *
 * strides: in elements (not bytes), signed, one per dimension; all 0 (a zero-initialised
 * array's) means C order, the canonical strides (shape[d+1] * ... * shape[ndim-1]), which
 * ug_array_c_strides writes out.  A stride of a dimension of extent 0 or 1 is never read.  The
 * loads below read storage order; for a contiguous array (ug_array_contiguous) that is C order.
 */
#ifndef UG_ARRAY_H
#define UG_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/format.h"

enum { UG_ARRAY_MAX_DIMS = 8 };

/* data may be NULL only when a dimension is 0.  big_endian: the elements' bytes are stored most
 * significant first (a '>f4' .npy file; the loads assume a little-endian host, as the formats of
 * base/format.h do).  ndim 0 is a scalar (one element).  name: for messages ("x.npy: shape
 * (3,): ..."). */
typedef struct ug_array {
    const char *name;
    const void *data;
    ug_fmt fmt;
    bool big_endian;
    int ndim;
    size_t shape[UG_ARRAY_MAX_DIMS];
    ptrdiff_t strides[UG_ARRAY_MAX_DIMS];
} ug_array;

/* The elements: the product of the shape (1 for ndim 0).  O(ndim). */
size_t ug_array_count(const ug_array *a);
/* Write the canonical C-order strides of a's shape into a->strides.  O(ndim). */
void ug_array_c_strides(ug_array *a);
/* Whether the elements lie in C order with no gaps: every stride 0 (not given) or, for every
 * dimension of extent above 1, the canonical one.  O(ndim). */
bool ug_array_contiguous(const ug_array *a);

/* What a reader of C-order elements accepts: 0 when a has 0 to UG_ARRAY_MAX_DIMS axes and is
 * contiguous; else 2 with err naming the array: "x: 9 dimensions (at most 8)", "x: strides
 * (1, 3) (elements) of shape (3, 4): not C-contiguous (copy it into C order first)".  O(ndim). */
int ug_array_require_c_order(const ug_array *a, char *err, size_t errlen);
/* 0, or 2 with "NAME: element I holds 0x.., not a code of F ..." in err when an element of a
 * format narrower than its storage (e2m1 in a byte, e3m2, e2m3) has a bit set above the
 * format's width (a packed pair of FP4 codes, a byte of something else): such a code decodes to
 * nothing the format has.  O(elements). */
int ug_array_check_codes(const ug_array *a, char *err, size_t errlen);

/* Element i (storage order) as a double: exact (every format here is a subset of binary64).
 * O(1). */
double ug_array_load(const ug_array *a, size_t i);
/* The encoding of element i as stored (a NaN's payload kept), in the low bytes.  O(1). */
uint64_t ug_array_bits(const ug_array *a, size_t i);
/* The elements in place when they are of format f (UG_F32 or UG_F64), in the host's byte order
 * and aligned to their size; else NULL (then read through ug_array_load).  O(1). */
const void *ug_array_native(const ug_array *a, ug_fmt f);

/* The shape as Python writes a tuple, "(4, 1000)", "(3,)", "()", into buf.  O(ndim). */
const char *ug_array_shape_text(const ug_array *a, char *buf, size_t len);
/* The strides as such a tuple, "(1, 3)", into buf.  O(ndim). */
const char *ug_array_strides_text(const ug_array *a, char *buf, size_t len);

#endif

/*
 * npy.h - reading NumPy .npy files (format versions 1.0, 2.0 and 3.0), memory-mapped: the input
 * files of `ulpgate check` (harness/cli/cli_check.c).
 *
 * A .npy file is the magic "\x93NUMPY", a major and minor version byte, the header's length
 * (2 bytes little-endian in 1.0; 4 bytes in 2.0 and 3.0), the header (a Python dict literal,
 * ASCII in 1.0/2.0, UTF-8 in 3.0: {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }),
 * then the array's elements, C order, nothing between them.  Read here:
 *   descr  '<f2' '<f4' '<f8' (and '>': big-endian; '=': native) -> binary16/32/64;
 *          '<u2' '>u2' and '|u1' (bit patterns of a format NumPy has no dtype for: bfloat16, fp8)
 *          -> the format the caller names for them (bits_fmt: UG_BF16 for u2; UG_E4M3 or UG_E5M2
 *          for u1); every other descr (structured, complex, integers without bits_fmt) is an
 *          error naming it;
 *   fortran_order  must be False (a transposed array: an error, not silently the transpose);
 *   shape  up to UG_ARRAY_MAX_DIMS dimensions; () is a scalar (one element).
 * The array is a ug_array (base/array.h: named by the path, C-order strides written out): the
 * data is mapped (mmap, read-only), never read into memory; an element is decoded where it lies
 * (ug_array_load) or, native binary32/64 aligned to its size, read in place (ug_array_native).
 * Errors ("FILE: what is wrong", into err): cannot open; not a .npy file (magic); an unknown
 * version; a malformed header (a key missing, given twice or unknown, a header length that ends
 * inside the dict or runs past it into the data); a dtype not known; Fortran order; more
 * dimensions than allowed; a data size other than the shape's (truncated, or bytes after the
 * data: the byte counts are named).
 */
#ifndef UG_NPY_H
#define UG_NPY_H

#include <stdbool.h>
#include <stddef.h>

#include "base/array.h"
#include "base/format.h"

typedef struct ug_npy {
    ug_array array;              /* name: the path; data: the first element, in the mapping */
    char descr[16];              /* the header's descr, for messages */
    void *map;                   /* the mapping (NULL for an empty file's data) */
    size_t map_len;
} ug_npy;

/* Open and map path; bits_fmt: the format that integer bit-pattern dtypes hold (UG_BF16,
 * UG_E4M3, UG_E5M2) or UG_FMT_COUNT when none was named.  0, or 2 with err set (nothing stays
 * mapped).  Cost: reading the header; the data is paged in as it is read. */
int ug_npy_open(ug_npy *a, const char *path, ug_fmt bits_fmt, char *err, size_t errlen);
void ug_npy_close(ug_npy *a);
/* The same on a file's bytes already in memory (b[0 .. len), which must outlive a; nothing is
 * mapped, ug_npy_close is not needed): what ug_npy_open does after mapping, and what the
 * fuzzer (tests/fuzz/fuzz_npy.c) drives.  Every byte read lies in b[0 .. len). */
int ug_npy_parse(ug_npy *a, const char *path, const unsigned char *b, size_t len,
                 ug_fmt bits_fmt, char *err, size_t errlen);

#endif

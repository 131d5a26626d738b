/*
 * arrays.h - Python objects in and out of the extension ulpgate._ulpgate: what an argument
 * holds (its format, shape and elements), read in place wherever it can be.
 *
 * In (ug_py_array_get), first that applies:
 *   1. a dtype whose name says bfloat16 or fp8 (ml_dtypes' "bfloat16", "float8_e4m3fn",
 *      "float8_e5m2"; PyTorch's "torch.bfloat16", ...): its bit patterns, through __dlpack__
 *      (PyTorch) or .view("uint16") / .view("uint8") (NumPy with ml_dtypes);
 *   2. the buffer protocol (NumPy, array.array, memoryview): float64 'd', float32 'f',
 *      float16 'e'; uint16 'H' / uint8 'B' with bits = "bf16" / "e4m3" / "e5m2";
 *   3. __dlpack__ (PyTorch, JAX, CuPy): a CPU tensor of float64/32/16, bfloat16, or uint16 /
 *      uint8 bit patterns as above; an array on a device (__dlpack_device__ says so, or
 *      __cuda_array_interface__) is copied to the host by its producer: __dlpack__(dl_device=
 *      CPU, copy=True), else .cpu() (PyTorch), .get() (CuPy), .copy_to_host() (Numba), and
 *      ug_py_array.device says so;
 *   4. __array__: what it returns, by 2.
 * The argument's elements become a ug_array (base/array.h), what check grades: a C-contiguous
 * array is read in place, never copied; a strided one is gathered once into a contiguous copy.
 * Errors raise TypeError / ValueError naming the argument ("got: ...").
 *
 * Out (ug_py_new_array): a NumPy array when NumPy imports, else a memoryview of that shape.
 */
#ifndef UG_PY_ARRAYS_H
#define UG_PY_ARRAYS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/array.h"
#include "base/format.h"

typedef struct ug_py_array {
    ug_array array;            /* name: the argument, for messages ("got", "input 1"); data: the
                                  first element, native byte order, C order (strides written
                                  out) */
    /* what keeps data alive */
    Py_buffer view;            /* view.obj NULL: none held */
    PyObject *keep;            /* a DLPack capsule, an __array__ result, a .view() */
    void *copy;                /* the contiguous copy of a strided buffer (PyMem), or NULL */
    PyObject *host;            /* the host copy of a device array (its producer's), or NULL */
    int device;                /* the device type (DLPack's: 2 CUDA, 10 ROCm, ...) the array was
                                  copied from to the host; 0: it was on the host */
} ug_py_array;

/* The format named by a dtype= argument ("bf16", "e4m3", "e5m2"; NULL or None: none), or
 * UG_FMT_COUNT; -1 with ValueError set for another name. */
int ug_py_bits_arg(PyObject *dtype, ug_fmt *bits);

/* obj into a (zeroed first); bits: the format that uint16 / uint8 elements hold, UG_FMT_COUNT
 * when none was named.  0, or -1 with an exception set (nothing held).  Cost: O(1) for a
 * contiguous array; one copy of a strided one. */
int ug_py_array_get(PyObject *obj, ug_fmt bits, const char *name, ug_py_array *a);
void ug_py_array_release(ug_py_array *a);

/* A new array of format f (bfloat16 and fp8 as uint16 / uint8 bit patterns) and this shape,
 * its elements uninitialised; *data points at them (count elements, C order).  A NumPy array
 * when NumPy imports, else a memoryview.  NULL with an exception set. */
PyObject *ug_py_new_array(ug_fmt f, int ndim, const size_t *shape, void **data);

#endif

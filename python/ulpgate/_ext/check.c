/*
 * check.c - ulpgate.check, assert_exact and exact: `ulpgate check`'s grading on arrays in
 * memory (the library's check API), no file, no copy of a contiguous array.
 */
#include "python/ulpgate/_ext/ext.h"

PyObject *ug_py_check(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self, (void)args, (void)kw;
    return PyErr_Format(PyExc_NotImplementedError, "check: not yet");
}

PyObject *ug_py_exact(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self, (void)args, (void)kw;
    return PyErr_Format(PyExc_NotImplementedError, "exact: not yet");
}

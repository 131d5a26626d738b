/*
 * ext.h - the extension module ulpgate._ulpgate: what its files share.  The module is a thin
 * layer over the library: arrays in and out (arrays.c), the harness's inputs (inputs.c), the
 * grading of `ulpgate check` (check.c), the results.json of a pytest session (report.c).  No
 * bound, oracle or format logic lives here or in the Python package: it calls the library's.
 */
#ifndef UG_PY_EXT_H
#define UG_PY_EXT_H

#include "python/ulpgate/_ext/arrays.h"
#include "ops/op.h"

/* inputs.c */
PyObject *ug_py_draw(PyObject *self, PyObject *args, PyObject *kw);
PyObject *ug_py_corpus(PyObject *self, PyObject *args);
PyObject *ug_py_corpus_load(PyObject *self, PyObject *args);

/* report.c: the type ulpgate._ulpgate.Report */
extern PyTypeObject ug_py_report_type;

/* check.c */
PyObject *ug_py_check(PyObject *self, PyObject *args, PyObject *kw);
PyObject *ug_py_exact(PyObject *self, PyObject *args, PyObject *kw);

#endif

/*
 * module.c - the extension module ulpgate._ulpgate: its functions and types, and where it finds
 * ulpgate's data (the corpus): <package>/share/ulpgate in an installed package, the source tree
 * in a build tree (the build root's ulpgate-data-dir file), unless ULPGATE_DATA_DIR says.
 */
#define _GNU_SOURCE
#include "python/ulpgate/_ext/ext.h"
#include "oracle/oracle.h"

#include <dlfcn.h>
#include <fenv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fenv.h"
#include "base/sys.h"
#include "harness/check/check.h"
#include "ug_config.h"

// --- the data folder ------------------------------------------------------------------------

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ULPGATE_DATA_DIR for base/datadir.h, from where this module's file lies, when not set. */
static void find_data_dir(void)
{
    Dl_info info;
    if (getenv("ULPGATE_DATA_DIR") || !dladdr((void *)find_data_dir, &info) || !info.dli_fname)
        return;
    char dir[4096], p[4200];
    snprintf(dir, sizeof dir, "%s", info.dli_fname);
    char *slash = strrchr(dir, '/');
    if (!slash) return;
    *slash = 0;
    snprintf(p, sizeof p, "%s/share/ulpgate", dir); /* installed: <package>/share/ulpgate */
    if (is_dir(p)) {
        setenv("ULPGATE_DATA_DIR", p, 0);
        return;
    }
    snprintf(p, sizeof p, "%s/../../ulpgate-data-dir", dir); /* build/python/ulpgate/ */
    FILE *f = fopen(p, "r");
    if (!f) return;
    char src[4096];
    if (fgets(src, sizeof src, f)) {
        src[strcspn(src, "\n")] = 0;
        if (is_dir(src)) setenv("ULPGATE_DATA_DIR", src, 0);
    }
    fclose(f);
}

// --- the operation table ----------------------------------------------------------------------

/* ops() -> list of dicts, one per operation: name, doc, inputs (the arrays check takes),
 * roles, layout ("vectors" / "matmul" / "heads"), out ("scalar", "vector", "matrix"), sum (its exact
 * result is a correctly rounded sum of terms: a tree bound applies), classes (the bound
 * classes check grades it under, "tree, kahan, ...", harness/check's list). */
static PyObject *py_ops(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    PyObject *out = PyList_New(0);
    for (size_t i = 0; out && i < ug_op_count(); i++) {
        const ug_op_desc *d = ug_op_at(i);
        static const char *kinds[] = {"scalar", "vector", "matrix"};
        int inputs = d->shape->arity == 1 ? 1 : 1 + ug_op_in_width(d, 1);
        char classes[512];
        ug_check_class_names(d, classes, sizeof classes);
        PyObject *o = Py_BuildValue("{s:s,s:s,s:i,s:s,s:s,s:s,s:s,s:O,s:s}", "name", d->shape->name, "doc",
                                    d->doc ? d->doc : "", "inputs", inputs, "roles",
                                    d->shape->roles[1] ? d->shape->roles[1] : "", "x", d->shape->roles[0],
                                    "layout", d->shape->layout == UG_LAYOUT_MATMUL ? "matmul"
                                              : d->shape->layout == UG_LAYOUT_HEADS ? "heads"
                                                                                    : "vectors",
                                    "out", kinds[d->shape->out_kind], "sum",
                                    d->exact_is_sum ? Py_True : Py_False, "classes", classes);
        if (!o || PyList_Append(out, o)) Py_CLEAR(out);
        Py_XDECREF(o);
    }
    return out;
}

/* describe(obj, dtype=None) -> (format name, shape): how an argument is read (arrays.h). */
static PyObject *py_describe(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"obj", "dtype", NULL};
    PyObject *obj, *dtype = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", kwlist, &obj, &dtype)) return NULL;
    ug_fmt bits;
    ug_py_array a;
    if (ug_py_bits_arg(dtype, &bits) || ug_py_array_get(obj, bits, "obj", &a)) return NULL;
    PyObject *shape = PyTuple_New(a.array.ndim);
    for (int i = 0; shape && i < a.array.ndim; i++)
        PyTuple_SET_ITEM(shape, i, PyLong_FromSize_t(a.array.shape[i]));
    PyObject *res = shape ? Py_BuildValue("(sNO)", ug_fmt_name(a.array.fmt), shape,
                                          a.copy ? Py_True : Py_False)
                          : NULL;
    ug_py_array_release(&a);
    return res;
}

// --- the floating-point environment ----------------------------------------------------------

/* Every entry point computes under the known environment (base/fenv.h: round to nearest, no
 * FTZ/DAZ, the x87 word's default, every exception masked), whatever the caller's process has
 * set (a -ffast-math extension loaded earlier sets FTZ and DAZ; a test may change the rounding
 * mode or unmask an exception, feenableexcept), and leaves the caller's environment as it was,
 * its exception flags included: the flags the call raised are not the caller's, and left pending
 * under an unmasked exception they trapped (SIGFPE) at the caller's next x87 instruction, inside
 * the restore itself.  The exact values and the grades cannot depend on it, as
 * `ulpgate run` computes around its kernels.  The library's worker threads set it themselves
 * (base/par.c).  Memory refused in the call is MemoryError (trapped_call). */
typedef PyObject *(*ug_py_entry)(PyObject *self, PyObject *args, PyObject *kw);

/* fn under a trap for memory refused (base/sys.h), so that no allocation of the library that
 * fails ends the interpreter: MemoryError instead.  The grading's own traps (harness/check)
 * answer first and free what they hold; one that reaches this net (a small buffer of the
 * result's text) leaves what the call held allocated.  The fast oracle is selected again. */
static PyObject *trapped_call(ug_py_entry fn, PyObject *self, PyObject *args, PyObject *kw)
{
    ug_oom_trap trap;
    if (setjmp(trap.at)) {
        ug_oracle_after_refusal();
        ug_oracle_select(UG_ORACLE_FAST);
        return PyErr_Format(PyExc_MemoryError, "out of memory: the library was refused %zu "
                            "bytes", ug_oom_refused());
    }
    ug_oom_trap_push(&trap);
    PyObject *res = fn(self, args, kw);
    ug_oom_trap_pop(&trap);
    return res;
}

#define UG_PY_FENV_KW(name, fn)                                                                   \
    static PyObject *name(PyObject *self, PyObject *args, PyObject *kw)                           \
    {                                                                                             \
        fenv_t caller; /* all of it, the exception flags and the traps too (fesetenv) */      \
        fegetenv(&caller);                                                                        \
        ug_fenv_set_known();                                                                      \
        PyObject *res = trapped_call(fn, self, args, kw);                                         \
        fesetenv(&caller);                                                                        \
        return res;                                                                               \
    }
#define UG_PY_FENV(name, fn)                                                                      \
    static PyObject *name##_pos(PyObject *self, PyObject *args, PyObject *kw)                     \
    {                                                                                             \
        if (kw && PyDict_Size(kw))                                                                \
            return PyErr_Format(PyExc_TypeError, "%s takes no keyword arguments", #fn + 6);       \
        return fn(self, args);                                                                    \
    }                                                                                             \
    UG_PY_FENV_KW(name, name##_pos)

UG_PY_FENV_KW(fenv_draw, ug_py_draw)
UG_PY_FENV_KW(fenv_check, ug_py_check)
UG_PY_FENV_KW(fenv_exact, ug_py_exact)
UG_PY_FENV_KW(fenv_describe, py_describe)
UG_PY_FENV(fenv_corpus, ug_py_corpus)
UG_PY_FENV(fenv_corpus_load, ug_py_corpus_load)

static const struct {
    const char *name;
    int mode;
} round_modes[] = {{"nearest", FE_TONEAREST}, {"upward", FE_UPWARD},
                   {"downward", FE_DOWNWARD}, {"towardzero", FE_TOWARDZERO}};

/* _fenv() -> (rounding mode name, MXCSR less its flags, x87 control word): the calling thread's
 * environment now (the tests' view of what a call leaves behind). */
static PyObject *py_fenv(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    ug_fenv e;
    ug_fenv_get(&e);
    const char *name = "?";
    for (size_t i = 0; i < sizeof round_modes / sizeof round_modes[0]; i++)
        if (round_modes[i].mode == e.round) name = round_modes[i].name;
    return Py_BuildValue("(sII)", name, (unsigned)e.mxcsr, (unsigned)e.x87_cw);
}

/* _set_fenv(round="nearest", ftz=False, daz=False, x87_cw=None): set the calling thread's
 * environment, as a -ffast-math library or a conftest would: the tests' hook (x86-64's MXCSR
 * bits 15 FTZ and 6 DAZ; elsewhere only the rounding mode). */
static PyObject *py_set_fenv(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"round", "ftz", "daz", "x87_cw", NULL};
    const char *round = "nearest";
    int ftz = 0, daz = 0, cw = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|sppi", kwlist, &round, &ftz, &daz, &cw))
        return NULL;
    ug_fenv e = *ug_fenv_known();
    e.round = -1;
    for (size_t i = 0; i < sizeof round_modes / sizeof round_modes[0]; i++)
        if (!strcmp(round_modes[i].name, round)) e.round = round_modes[i].mode;
    if (e.round == -1)
        return PyErr_Format(PyExc_ValueError, "round='%s': nearest, upward, downward or "
                            "towardzero", round);
#if defined(__x86_64__) || defined(__i386__)
    e.mxcsr = (e.mxcsr & ~(3u << 13)) | (ftz ? 1u << 15 : 0) | (daz ? 1u << 6 : 0);
    e.mxcsr |= e.round == FE_UPWARD ? 2u << 13 : e.round == FE_DOWNWARD ? 1u << 13
             : e.round == FE_TOWARDZERO ? 3u << 13 : 0;
    if (cw >= 0) e.x87_cw = (uint16_t)cw;
#else
    if (ftz || daz || cw >= 0)
        return PyErr_Format(PyExc_ValueError, "ftz, daz, x87_cw: x86 only");
#endif
    ug_fenv_set(&e);
    if (cw >= 0) { /* ug_fenv_set's fesetround rewrote the x87 word's rounding field */
#if defined(__x86_64__) || defined(__i386__)
        uint16_t w = (uint16_t)cw;
        __asm__ volatile("fldcw %0" : : "m"(w));
#endif
    }
    Py_RETURN_NONE;
}

/* _fail_alloc(n): the library's n-th allocation from now is refused (0: none), the tests' hook
 * for memory that runs out inside the oracle (base/sys.h, ug_oom_inject_testing); n > 0 also
 * frees this thread's MPFR caches, so that the refusal may land in a constant's computation. */
static PyObject *py_fail_alloc(PyObject *self, PyObject *args)
{
    (void)self;
    long n;
    if (!PyArg_ParseTuple(args, "l", &n)) return NULL;
    /* MPFR's constants computed again by the next call: a refusal may land inside one */
    if (n > 0) ug_oracle_free_caches_testing();
    ug_oom_inject_testing(n);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"ops", py_ops, METH_NOARGS, "ops() -> the operations, as dicts"},
    {"describe", (PyCFunction)(void (*)(void))fenv_describe, METH_VARARGS | METH_KEYWORDS,
     "describe(obj, dtype=None) -> (format, shape, copied): how an array argument is read"},
    {"draw", (PyCFunction)(void (*)(void))fenv_draw, METH_VARARGS | METH_KEYWORDS,
     "draw(op, kind, p1=0, p2=1, n=, m=, k=, batch=0, order=None, alternate=False, "
     "special_rate=0, specials=None, fmt='f32', seed=0x5eed, trial=0, label='python') -> arrays"},
    {"corpus", (PyCFunction)(void (*)(void))fenv_corpus, METH_VARARGS | METH_KEYWORDS,
     "corpus(dirs=()) -> [(unit name, path)]"},
    {"corpus_load", (PyCFunction)(void (*)(void))fenv_corpus_load, METH_VARARGS | METH_KEYWORDS,
     "corpus_load(path, name=\"\") -> (info, arrays)"},
    {"check", (PyCFunction)(void (*)(void))fenv_check, METH_VARARGS | METH_KEYWORDS,
     "check(op, inputs, got, ...) -> dict of the figures of `ulpgate check --json`"},
    {"exact", (PyCFunction)(void (*)(void))fenv_exact, METH_VARARGS | METH_KEYWORDS,
     "exact(op, inputs, fmt=None, ...) -> (rounded, hi, lo)"},
    {"_fail_alloc", py_fail_alloc, METH_VARARGS, "_fail_alloc(n): the tests' hook"},
    {"_fenv", py_fenv, METH_NOARGS, "_fenv() -> (round, mxcsr, x87_cw): the tests' hook"},
    {"_set_fenv", (PyCFunction)(void (*)(void))py_set_fenv, METH_VARARGS | METH_KEYWORDS,
     "_set_fenv(round='nearest', ftz=False, daz=False, x87_cw=None): the tests' hook"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "ulpgate._ulpgate",
    "ulpgate's C library for Python: grading (check, exact), inputs (draw, corpus), reports "
    "(Report).  Use the package ulpgate (docs/python.md).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__ulpgate(void)
{
    find_data_dir();
    /* MPFR's numbers under the calls' trap: memory refused inside MPFR is MemoryError, not
     * GMP's abort of the interpreter (kept off where another module set GMP's functions) */
    (void)ug_oracle_trap_allocations();
    if (PyType_Ready(&ug_py_report_type) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&ug_py_report_type);
    if (PyModule_AddObject(m, "Report", (PyObject *)&ug_py_report_type) < 0 ||
        PyModule_AddStringConstant(m, "version", UG_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

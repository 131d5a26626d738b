/*
 * report.c - ulpgate._ulpgate.Report: the results.json of a Python test session (the pytest
 * plugin's --ulpgate-report DIR), written by the library's own writer (harness/run/
 * report_write.c: the meta block, then harness/results/results_write.c's format), so that
 * `ulpgate compare` and `ulpgate baseline` read it as they read a run's.
 *
 * A row per check: case = the test's node id (spaces as '_'), kernel = "<label>@python" (the
 * label: the check's name=, else its operation), dist "data", n = the terms behind an output
 * (a GEMM's M, N, K), one trial, the check's figures (ulp_max, ulp_mean, rel_max, the ratio to
 * the a-priori bound, the correctly rounded count), status pass or fail.  The check's outputs
 * are its inputs' business: the row says "deterministic" (the same data gives the same bits),
 * so the gate judges every figure exactly.
 *
 * The folder is `run --report`'s (harness/run/report_write.c, ug_report_prepare): created, refused
 * when it holds files ulpgate did not write, locked for the session (one writer at a time: a
 * second session, or a `run`, into it is refused at its start), marked in progress from the
 * session's start until results.json is written, so that a session killed on the way leaves a
 * folder no reader takes for a finished one; a session cut short (Ctrl-C) writes its rows marked
 * interrupted.  Every test that ran or was skipped is a unit of the run (unit()), so that a row of
 * the baseline whose test is skipped now is gone from a unit that ran: a regression at the gate.
 * Two checks whose rows would have one id are an error naming both (add()).
 */
#include "python/ulpgate/_ext/ext.h"

#include <math.h>
#include <string.h>

#include "base/sys.h"
#include "base/fenv.h"
#include "harness/results/results.h"
#include "harness/run/run.h"

typedef struct {
    PyObject_HEAD
    ug_results res;
    char dir[4096];
    int lock;          /* the folder's lock (ug_dir_lock), -1 when not held */
    PyObject *origin;  /* row id -> "check 'LABEL' of TEST": who made each row */
} ug_py_report;

static PyObject *report_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *self = PyType_GenericNew(type, args, kw);
    if (self) ((ug_py_report *)self)->lock = -1;
    return self;
}

/* Report(dir, command="pytest"): the folder prepared as `run --report` prepares it; OSError
 * naming dir and why (another session holds it, files ulpgate did not write, not writable). */
static int report_init(PyObject *self, PyObject *args, PyObject *kw)
{
    ug_py_report *r = (ug_py_report *)self;
    static char *kwlist[] = {"dir", "command", NULL};
    const char *dir, *command = "pytest";
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s|s", kwlist, &dir, &command)) return -1;
    if (strlen(dir) + 64 >= sizeof r->dir) {
        PyErr_Format(PyExc_ValueError, "report dir: path too long");
        return -1;
    }
    if (r->lock >= 0) {
        PyErr_Format(PyExc_RuntimeError, "Report: already initialised");
        return -1;
    }
    ug_results_free(&r->res);
    memset(&r->res, 0, sizeof r->res);
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    Py_XSETREF(r->origin, PyDict_New());
    if (!r->origin) return -1;
    char err[4400];
    char *argv[] = {(char *)command, NULL};
    if (ug_report_prepare(dir, 1, argv, &r->lock, err, sizeof err) != 0) {
        PyErr_Format(PyExc_OSError, "ulpgate report %s: %s", dir, err);
        return -1;
    }
    return 0;
}

static void report_dealloc(PyObject *self)
{
    ug_py_report *r = (ug_py_report *)self;
    ug_results_free(&r->res);
    if (r->lock >= 0) ug_dir_unlock(r->lock);
    Py_XDECREF(r->origin);
    Py_TYPE(self)->tp_free(self);
}

/* A number of the figures dict; none: its value for the JSON's null (an infinite error is
 * null there); -1 with an error.  "bound.ratio_max": a member of the nested dict, which is
 * null for an operation with no bound (that row's none too). */
static int fig(PyObject *d, const char *key, double none, double *v)
{
    const char *dot = strchr(key, '.');
    if (dot) {
        char outer[32];
        snprintf(outer, sizeof outer, "%.*s", (int)(dot - key), key);
        d = PyDict_GetItemString(d, outer);
        key = dot + 1;
        if (d == Py_None) {
            *v = none;
            return 0;
        }
        if (!d || !PyDict_Check(d)) {
            PyErr_Format(PyExc_KeyError, "Report.add: the figures have no '%s' dict", outer);
            return -1;
        }
    }
    PyObject *o = PyDict_GetItemString(d, key);
    if (!o) {
        PyErr_Format(PyExc_KeyError, "Report.add: the figures have no '%s'", key);
        return -1;
    }
    *v = o == Py_None ? none : PyFloat_AsDouble(o);
    return *v == -1 && PyErr_Occurred() ? -1 : 0;
}

/* add(case, label, figures, passed, note="", seconds=0.0) -> the row's id: one row.  figures:
 * the dict of a Result (op, n, m, gemm_n, k, outputs, ulp_max, ulp_mean, rel_max,
 * bound.ratio_max, correctly_rounded).  ValueError, nothing added, when the row's id is an
 * earlier row's (names a space and an underscore tell apart, a label given as another's
 * "#2"): the gate would read the two as one, and a baseline of both is refused by every
 * reader. */
static PyObject *report_add(PyObject *self, PyObject *args, PyObject *kw)
{
    ug_py_report *r = (ug_py_report *)self;
    static char *kwlist[] = {"case", "label", "figures", "passed", "note", "seconds", NULL};
    const char *cs, *label, *note = "";
    PyObject *figs;
    int passed;
    double secs = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "ssO!p|sd", kwlist, &cs, &label, &PyDict_Type,
                                     &figs, &passed, &note, &secs))
        return NULL;
    ug_row *row = PyMem_Calloc(1, sizeof *row);
    if (!row) return PyErr_NoMemory();
    double op_n = 0, m = 0, gn = 0, k = 0, outs = 0, cr = 0;
    PyObject *op = PyDict_GetItemString(figs, "op");
    if (!op || !PyUnicode_Check(op)) {
        PyMem_Free(row);
        return PyErr_Format(PyExc_KeyError, "Report.add: the figures have no 'op'");
    }
    /* null errors are infinite (a NaN for a number; no outputs); a null ratio is no bound
     * checked (none, or vacuous): 0, as a run's row of a kernel with no bound */
    if (fig(figs, "n", 0, &op_n) || fig(figs, "outputs", 0, &outs) ||
        fig(figs, "ulp_max", INFINITY, &row->ulp_max) ||
        fig(figs, "ulp_mean", INFINITY, &row->ulp_mean) ||
        fig(figs, "rel_max", INFINITY, &row->rel_max) ||
        fig(figs, "bound.ratio_max", 0, &row->bound_ratio_max) ||
        fig(figs, "correctly_rounded", 0, &cr) || fig(figs, "m", 0, &m) ||
        fig(figs, "gemm_n", 0, &gn) || fig(figs, "k", 0, &k)) {
        PyMem_Free(row);
        return NULL;
    }
    snprintf(row->case_name, sizeof row->case_name, "%s", cs);
    for (char *p = row->case_name; *p; p++)
        if (*p == ' ' || *p == '\t' || *p == '\n') *p = '_';
    snprintf(row->kernel_name, sizeof row->kernel_name, "%s", label);
    for (char *p = row->kernel_name; *p; p++)
        if (*p == ' ' || *p == '@') *p = '_';
    snprintf(row->variant, sizeof row->variant, "python");
    snprintf(row->kernel, sizeof row->kernel, "%s@python", row->kernel_name);
    snprintf(row->op, sizeof row->op, "%s", PyUnicode_AsUTF8(op));
    snprintf(row->backend, sizeof row->backend, "cpu");
    snprintf(row->device, sizeof row->device, "cpu");
    snprintf(row->dist, sizeof row->dist, "data");
    snprintf(row->bound_class, sizeof row->bound_class, "tree");
    snprintf(row->note, sizeof row->note, "%s", note);
    row->status = passed ? UG_ST_PASS : UG_ST_FAIL;
    row->failures = !passed;
    row->measured = true;
    row->deterministic = true;
    row->seed = 0x5eed;
    row->trials = 1;
    /* the row's shape (row_fields.h): dim 0 the length n, or a GEMM's M, N, K */
    if (m) {
        row->shape.dim[0] = (size_t)m;
        row->shape.dim[1] = (size_t)gn;
        row->shape.dim[2] = (size_t)k;
    } else {
        row->shape.dim[0] = (size_t)op_n;
    }
    row->elements = row->count = (size_t)outs;
    row->correctly_rounded = (size_t)cr;
    ug_row_make_id(row);
    snprintf(row->point, sizeof row->point, "%.*s", (int)sizeof row->point - 1, row->id);
    PyObject *id = PyUnicode_FromString(row->id), *res = NULL;
    PyObject *who = PyUnicode_FromFormat("check '%s' of %s", label, cs);
    PyObject *was = id && who ? PyDict_GetItemWithError(r->origin, id) : NULL;
    if (!id || !who || PyErr_Occurred()) goto out;
    if (was) {
        PyErr_Format(PyExc_ValueError, "ulpgate report: %U has the row id '%U' of %U: the gate "
                     "would take them for one row; give one of them another name=", who, id, was);
        goto out;
    }
    if (PyDict_SetItem(r->origin, id, who)) goto out;
    ug_results_add(&r->res, row);
    ug_results_add_unit(&r->res, row->case_name, secs);
    Py_INCREF(id);
    res = id;
out:
    Py_XDECREF(id);
    Py_XDECREF(who);
    PyMem_Free(row);
    return res;
}

/* unit(case, seconds=0.0): a test that ran or was skipped, with or without checks: a unit of the
 * run, so that a baseline row of it that is missing now is gone (a regression), not outside the
 * run. */
static PyObject *report_unit(PyObject *self, PyObject *args)
{
    ug_py_report *r = (ug_py_report *)self;
    const char *cs;
    double secs = 0;
    if (!PyArg_ParseTuple(args, "s|d", &cs, &secs)) return NULL;
    char name[sizeof ((ug_row *)0)->case_name];
    snprintf(name, sizeof name, "%s", cs);
    for (char *p = name; *p; p++)
        if (*p == ' ' || *p == '\t' || *p == '\n') *p = '_';
    ug_results_add_unit(&r->res, name, secs);
    Py_RETURN_NONE;
}

/* write(command="pytest", interrupted=None) -> path of DIR/results.json, written atomically;
 * interrupted: why the session was cut short ("KeyboardInterrupt"), marked in the report so that
 * no gate takes part of a session for the whole.  The folder's in-progress mark goes and its
 * lock is released. */
static PyObject *report_write(PyObject *self, PyObject *args, PyObject *kw)
{
    ug_py_report *r = (ug_py_report *)self;
    static char *kwlist[] = {"command", "interrupted", NULL};
    const char *command = "pytest", *stop = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|sz", kwlist, &command, &stop)) return NULL;
    if (r->lock < 0)
        return PyErr_Format(PyExc_RuntimeError, "Report: %s: not prepared, or written already",
                            r->dir);
    ug_options opt;
    memset(&opt, 0, sizeof opt);
    opt.report_dir = r->dir;
    opt.seed = 0x5eed;
    opt.oracle = UG_ORACLE_FAST;
    opt.trial = -1;
    opt.stop_reason = stop;
    char *argv[] = {(char *)command, NULL};
    /* the known environment (module.c): glibc's printf of the figures honours the rounding mode */
    ug_fenv caller;
    ug_fenv_get(&caller);
    ug_fenv_set_known();
    int rc = ug_report_write(&opt, &r->res, 1, argv); /* the GIL held: add() may not race */
    ug_fenv_set(&caller);
    if (rc != 0) return PyErr_Format(PyExc_OSError, "cannot write %s/results.json", r->dir);
    ug_dir_unlock(r->lock);
    r->lock = -1;
    return PyUnicode_FromFormat("%s/results.json", r->dir);
}

static PyObject *report_len(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromSize_t(((ug_py_report *)self)->res.count);
}

static PyMethodDef report_methods[] = {
    {"add", (PyCFunction)(void (*)(void))report_add, METH_VARARGS | METH_KEYWORDS,
     "add(case, label, figures, passed, note='', seconds=0.0) -> id: one row of a check"},
    {"unit", report_unit, METH_VARARGS, "unit(case, seconds=0.0): a test that ran or skipped"},
    {"write", (PyCFunction)(void (*)(void))report_write, METH_VARARGS | METH_KEYWORDS,
     "write(command='pytest', interrupted=None) -> DIR/results.json"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef report_getset[] = {
    {"rows", report_len, NULL, "rows added", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject ug_py_report_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ulpgate._ulpgate.Report",
    .tp_basicsize = sizeof(ug_py_report),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Report(dir): the rows of a Python test session, written as DIR/results.json",
    .tp_new = report_new,
    .tp_init = report_init,
    .tp_dealloc = report_dealloc,
    .tp_methods = report_methods,
    .tp_getset = report_getset,
};

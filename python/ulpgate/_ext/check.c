/*
 * check.c - ulpgate.check / assert_exact / exact: `ulpgate check`'s grading (harness/check/
 * check.h, the library under the CLI) on arrays in memory.  The arrays are handed over in
 * place (arrays.c: no copy of a contiguous one); the figures come back as the CLI's own JSON
 * object (ug_check_json, read by Python's json module: the same keys, the same digits) plus
 * the correctly rounded count, the sizes, the CLI's table and its failure lines.
 */
#include "python/ulpgate/_ext/ext.h"

#include <math.h>
#include <string.h>

#include "base/buf.h"
#include "harness/check/check.h"

// --- arguments --------------------------------------------------------------------------------

/* A nonnegative number, or None: -1 ("not given"); -2 with an exception. */
static double limit_arg(PyObject *o, const char *name)
{
    if (!o || o == Py_None) return -1;
    double v = PyFloat_AsDouble(o);
    if (v == -1 && PyErr_Occurred()) return -2;
    if (!(v >= 0)) {
        PyErr_Format(PyExc_ValueError, "%s=%R: not a nonnegative number", name, o);
        return -2;
    }
    return v;
}

/* The options common to check and exact; 0, or -1 with an exception. */
static int opts_args(ug_check_opts *o, const char *op, PyObject *axis, PyObject *depth,
                     PyObject *eps, const char *oracle)
{
    ug_check_opts_init(o);
    o->op = op;
    if (axis && axis != Py_None) {
        long a = PyLong_AsLong(axis);
        if (a == -1 && PyErr_Occurred()) return -1;
        o->axis = (int)a;
    }
    if ((o->depth = limit_arg(depth, "depth")) == -2) return -1;
    if (eps && eps != Py_None && (o->eps = PyFloat_AsDouble(eps)) == -1 && PyErr_Occurred())
        return -1;
    if (oracle && strcmp(oracle, "fast") && strcmp(oracle, "mpfr")) {
        PyErr_Format(PyExc_ValueError, "oracle='%s': neither 'fast' nor 'mpfr'", oracle);
        return -1;
    }
    o->mpfr = oracle && !strcmp(oracle, "mpfr");
    return 0;
}

/* A format keyword (acc=, op_fmt=): its name; 0, or -1 with ValueError naming the argument. */
static int fmt_kwarg(const char *name, const char *v, ug_fmt *f)
{
    if (!v) return 0;
    *f = ug_fmt_parse(v);
    if (*f != UG_FMT_COUNT) return 0;
    PyErr_Format(PyExc_ValueError, "%s='%s': not a number format (f64, f32, tf32, f16, bf16, "
                 "e4m3, e5m2, e3m2, e2m3, e2m1)", name, v);
    return -1;
}

/* The input arguments (a: what keeps them alive) and their arrays side by side (c: a copy of
 * each a[i].array), as ug_check_run takes them. */
typedef struct py_inputs {
    ug_py_array a[UG_CHECK_MAX_INPUTS];
    ug_array c[UG_CHECK_MAX_INPUTS];
    int n;
} py_inputs;

static const char *const input_names[] = {"input 1", "input 2", "input 3"};

static void inputs_release(py_inputs *in)
{
    for (int i = 0; i < in->n; i++) ug_py_array_release(&in->a[i]);
    in->n = 0;
}

/* The input arrays of a tuple; 0, or -1 with an exception (nothing held). */
static int inputs_get(PyObject *tuple, ug_fmt bits, py_inputs *in)
{
    in->n = 0;
    Py_ssize_t n = PyTuple_Size(tuple);
    if (n < 0) return -1;
    if (n == 0 || n > UG_CHECK_MAX_INPUTS) {
        PyErr_Format(PyExc_TypeError, "%zd input arrays: an operation takes 1 to %d", n,
                     UG_CHECK_MAX_INPUTS);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (ug_py_array_get(PyTuple_GET_ITEM(tuple, i), bits, input_names[i], &in->a[i])) {
            inputs_release(in);
            return -1;
        }
        in->c[i] = in->a[i].array;
        in->n++;
    }
    return 0;
}

/* ug_check_run with the GIL held: the library keeps per-process state (the selected oracle;
 * the depth of the stand-in kernel of an operation's own bound, check_out.c), so two Python
 * threads must not grade at once.  oracle="mpfr" selects MPFR for this call only: the fast
 * oracle is selected again after it (both are exact; the figures are the same). */
static int run_check(const ug_check_opts *o, const ug_array *in, int nin,
                     const ug_array *got, ug_check_result *r, char *err, size_t errlen)
{
    int rc = ug_check_run(o, in, nin, got, r, err, errlen);
    if (o->mpfr) ug_oracle_select(UG_ORACLE_FAST);
    return rc;
}

/* The library's message in Python's words: its command-line options ("--ulp-max", "--op gemm")
 * named as this module's arguments ("ulp_max", "op gemm"), so that a message names what the
 * caller wrote.  Into out. */
static void python_words(const char *msg, char *out, size_t len)
{
    static const char *const map[][2] = {
        {"--op-fmt", "op_fmt"}, {"--ulp-max", "ulp_max"}, {"--rel-max", "rel_max"},
        {"--correctly-rounded", "correctly_rounded"}, {"--bound", "bound"}, {"--acc", "acc"},
        {"--depth", "depth"}, {"--axis", "axis"}, {"--dtype", "dtype"}, {"--oracle", "oracle"},
        {"--tc-model", "tc_model"}, {"--scale", "scale"}, {"--causal", "causal"},
        {"--op", "op"}};
    size_t o = 0;
    while (*msg && o + 1 < len) {
        size_t i = 0, n = sizeof map / sizeof map[0];
        for (; i < n; i++)
            if (!strncmp(msg, map[i][0], strlen(map[i][0]))) break;
        if (i < n) {
            o += (size_t)snprintf(out + o, len - o, "%s", map[i][1]);
            msg += strlen(map[i][0]);
        } else {
            out[o++] = *msg++;
        }
    }
    out[o < len ? o : len - 1] = '\0';
}

static void set_error(int rc, const char *err)
{
    char words[1100];
    python_words(err, words, sizeof words);
    PyErr_SetString(rc == 3 ? PyExc_MemoryError : PyExc_ValueError, words);
}

/* d["host_copies"]: the arguments that were on a device and were copied to the host to be
 * graded ("got (device type 2)"); [] when all were on the host.  0, or -1 with an exception. */
static int host_copies(PyObject *d, const ug_py_array *const *a, int n)
{
    PyObject *l = PyList_New(0);
    for (int i = 0; l && i < n; i++) {
        if (!a[i] || !a[i]->device) continue;
        PyObject *s = PyUnicode_FromFormat("%s (device type %d)", a[i]->array.name, a[i]->device);
        if (!s || PyList_Append(l, s)) Py_CLEAR(l);
        Py_XDECREF(s);
    }
    int rc = l ? PyDict_SetItemString(d, "host_copies", l) : -1;
    Py_XDECREF(l);
    return rc;
}

// --- check ------------------------------------------------------------------------------------

/* The result as a dict: the CLI's JSON object, and what only the library's struct holds. */
static PyObject *result_dict(const ug_check_result *r)
{
    ug_buf b = {0};
    ug_check_json(&b, r);
    PyObject *json = PyImport_ImportModule("json"), *d = NULL;
    if (json) d = PyObject_CallMethod(json, "loads", "s", ug_buf_str(&b));
    Py_XDECREF(json);
    if (!d) goto out;
    PyObject *jtext = PyUnicode_FromString(ug_buf_str(&b));
    b.len = 0;
    ug_check_table(&b, r);
    PyObject *text = PyUnicode_FromString(ug_buf_str(&b));
    b.len = 0;
    ug_check_failure_text(&b, r);
    PyObject *fail = PyUnicode_FromString(ug_buf_str(&b));
    bool gemm = r->op->shape->layout == UG_LAYOUT_MATMUL;
    PyObject *extra = Py_BuildValue("{s:n,s:n,s:n,s:n,s:O,s:N,s:N,s:N}",
        "correctly_rounded", (Py_ssize_t)r->correctly_rounded, "m", (Py_ssize_t)(gemm ? r->M : 0),
        "gemm_n", (Py_ssize_t)(gemm ? r->N : 0), "k", (Py_ssize_t)(gemm ? r->K : 0),
        "has_bound", r->has_bound ? Py_True : Py_False, "json", jtext, "text", text,
        "failure", fail);
    if (!extra || PyDict_Update(d, extra)) Py_CLEAR(d);
    Py_XDECREF(extra);
out:
    ug_buf_free(&b);
    return d;
}

/* Attention (an operation of the heads layout): got is O or (O, lse); the dict of O's figures
 * with "lse": lse's, or None.  The grading is harness/check's (ug_check_attention), as
 * `ulpgate check --op attention`'s. */
static PyObject *check_attention(ug_check_opts *o, PyObject *inputs, PyObject *got, ug_fmt bits)
{
    static const char *const qkv[] = {"q", "k", "v"};
    PyObject *og = got, *lg = NULL;
    if (PyTuple_Check(got)) {
        Py_ssize_t n = PyTuple_Size(got);
        if (n < 1 || n > 2)
            return PyErr_Format(PyExc_TypeError, "got: O, or (O, lse): a tuple of %zd", n);
        og = PyTuple_GET_ITEM(got, 0);
        lg = n == 2 && PyTuple_GET_ITEM(got, 1) != Py_None ? PyTuple_GET_ITEM(got, 1) : NULL;
    }
    if (PyTuple_Size(inputs) != 3)
        return PyErr_Format(PyExc_TypeError, "op='%s' takes three arrays: q, k, v (%zd given)",
                            o->op, PyTuple_Size(inputs));
    py_inputs in;
    ug_py_array g, l;
    if (inputs_get(inputs, bits, &in)) return NULL;
    for (int i = 0; i < 3; i++) in.c[i].name = in.a[i].array.name = qkv[i];
    if (ug_py_array_get(og, bits, lg ? "got[0] (O)" : "got", &g)) {
        inputs_release(&in);
        return NULL;
    }
    if (lg && ug_py_array_get(lg, bits, "got[1] (lse)", &l)) {
        ug_py_array_release(&g);
        inputs_release(&in);
        return NULL;
    }
    ug_check_result *r = PyMem_Malloc(2 * sizeof *r);
    PyObject *res = NULL, *dl = NULL;
    char err[1024];
    if (!r) {
        PyErr_NoMemory();
        goto out;
    }
    int rc = ug_check_attention(o, in.c, &g.array, lg ? &l.array : NULL, &r[0], &r[1], err,
                                sizeof err);
    if (rc != 0) {
        set_error(rc, err);
        goto out;
    }
    res = result_dict(&r[0]);
    dl = res && lg ? result_dict(&r[1]) : (Py_INCREF(Py_None), Py_None);
    const ug_py_array *all[5] = {&in.a[0], &in.a[1], &in.a[2], &g, lg ? &l : NULL};
    if (!dl || !res || PyDict_SetItemString(res, "lse", dl) || host_copies(res, all, 5))
        Py_CLEAR(res);
out:
    Py_XDECREF(dl);
    PyMem_Free(r);
    if (lg) ug_py_array_release(&l);
    ug_py_array_release(&g);
    inputs_release(&in);
    return res;
}

/* check(op, inputs, got, axis=None, bound=None, ulp_max=None, rel_max=None, depth=None,
 *       dtype=None, oracle=None, eps=None, correctly_rounded=False, acc=None, op_fmt=None,
 *       causal=False, scale=None) -> dict
 * ValueError for what `ulpgate check` exits 2 on (its message, naming the array); TypeError
 * for an argument that is not an array of a format it reads. */
PyObject *ug_py_check(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"op", "inputs", "got", "axis", "bound", "ulp_max", "rel_max",
                             "depth", "dtype", "oracle", "eps", "correctly_rounded", "acc",
                             "op_fmt", "causal", "scale", "tc_model", NULL};
    const char *op, *bound = NULL, *oracle = NULL, *acc = NULL, *opf = NULL, *tcm = NULL;
    PyObject *inputs, *got, *axis = NULL, *ulp = NULL, *rel = NULL, *depth = NULL,
             *dtype = NULL, *eps = NULL, *scale = NULL;
    int cr = 0, causal = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sO!O|OzOOOOzOpzzpOz", kwlist, &op, &PyTuple_Type,
                                     &inputs, &got, &axis, &bound, &ulp, &rel, &depth, &dtype,
                                     &oracle, &eps, &cr, &acc, &opf, &causal, &scale, &tcm))
        return NULL;
    ug_check_opts o;
    ug_fmt bits;
    if (opts_args(&o, op, axis, depth, eps, oracle) || ug_py_bits_arg(dtype, &bits)) return NULL;
    o.bound = bound;
    o.tc_model = tcm;
    if (fmt_kwarg("acc", acc, &o.acc_fmt) || fmt_kwarg("op_fmt", opf, &o.op_fmt)) return NULL;
    o.correctly_rounded = cr;
    if ((o.ulp_max = limit_arg(ulp, "ulp_max")) == -2) return NULL;
    if ((o.rel_max = limit_arg(rel, "rel_max")) == -2) return NULL;
    const ug_op_desc *d = ug_op_find(op);
    bool heads = d && d->shape->layout == UG_LAYOUT_HEADS;
    if ((causal || (scale && scale != Py_None)) && !heads)
        return PyErr_Format(PyExc_ValueError, "causal=, scale=: attention's options (op='%s' "
                            "takes neither)", op);
    if ((o.scale = limit_arg(scale, "scale")) == -2) return NULL;
    if (o.scale < 0) o.scale = 0;
    else if (o.scale == 0) return PyErr_Format(PyExc_ValueError, "scale=0: not a positive number");
    o.causal = causal;
    if (heads) {
        PyObject *res = check_attention(&o, inputs, got, bits);
        if (o.mpfr) ug_oracle_select(UG_ORACLE_FAST);
        return res;
    }
    py_inputs in;
    ug_py_array g;
    if (inputs_get(inputs, bits, &in)) return NULL;
    if (ug_py_array_get(got, bits, "got", &g)) {
        inputs_release(&in);
        return NULL;
    }
    ug_check_result *r = PyMem_Malloc(sizeof *r);
    PyObject *res = NULL;
    char err[1024];
    int rc;
    if (!r) {
        PyErr_NoMemory();
        goto out;
    }
    rc = run_check(&o, in.c, in.n, &g.array, r, err, sizeof err);
    if (rc != 0) {
        set_error(rc, err);
    } else if ((res = result_dict(r))) {
        const ug_py_array *all[4] = {&g, in.n > 0 ? &in.a[0] : NULL, in.n > 1 ? &in.a[1] : NULL,
                                     in.n > 2 ? &in.a[2] : NULL};
        if (host_copies(res, all, 4)) Py_CLEAR(res);
    }
out:
    PyMem_Free(r);
    ug_py_array_release(&g);
    inputs_release(&in);
    return res;
}

// --- exact -------------------------------------------------------------------------------------

typedef struct exact_out {
    ug_fmt fmt;
    void *rounded;
    double *hi, *lo;
} exact_out;

static void exact_each(void *ctx, size_t i, const ug_exact *e)
{
    exact_out *x = ctx;
    ug_fmt_store(x->fmt, x->rounded, i, ug_exact_rn(e, x->fmt));
    x->hi[i] = e->hi;
    x->lo[i] = e->lo;
}

/* The outputs' shape of op on these inputs, as check's GOT: a matrix product (batch, M, N); a
 * vector output the first input's shape; one output per problem () or (batch,). */
static int out_shape(const ug_op_desc *op, const py_inputs *in, size_t *shape)
{
    const ug_array *x = &in->c[0];
    if (op->shape->layout == UG_LAYOUT_MATMUL) {
        const ug_array *y = &in->c[in->n > 1 ? 1 : 0];
        if (x->ndim < 2 || y->ndim != x->ndim) return 0; /* check names what is wrong */
        for (int d = 0; d < x->ndim - 1; d++) shape[d] = x->shape[d];
        shape[x->ndim - 1] = y->shape[y->ndim - 1];
        return x->ndim;
    }
    if (op->shape->out_kind != UG_OUT_SCALAR) {
        memcpy(shape, x->shape, sizeof(size_t) * (size_t)x->ndim);
        return x->ndim;
    }
    if (x->ndim >= 2) shape[0] = x->shape[0];
    return x->ndim >= 2 ? 1 : 0;
}

/* exact(op, inputs, fmt="f32", axis=None, dtype=None, oracle=None, eps=None)
 *   -> (rounded, hi, lo): every output's exact record from the oracle (through ug_check_run's
 * each_exact), rounded to nearest in fmt (ug_exact_rn), and hi, lo as float64 arrays. */
PyObject *ug_py_exact(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"op", "inputs", "fmt", "axis", "dtype", "oracle", "eps", NULL};
    const char *op, *fmt = "f32", *oracle = NULL;
    PyObject *inputs, *axis = NULL, *dtype = NULL, *eps = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sO!|sOOzO", kwlist, &op, &PyTuple_Type, &inputs,
                                     &fmt, &axis, &dtype, &oracle, &eps))
        return NULL;
    ug_check_opts o;
    ug_fmt bits, f = ug_fmt_parse(fmt);
    if (f == UG_FMT_COUNT || !ug_fmt_bytes(f))
        return PyErr_Format(PyExc_ValueError, "fmt='%s': not f64, f32, f16, bf16, e4m3, e5m2, e3m2, e2m3 or e2m1",
                            fmt);
    if (opts_args(&o, op, axis, NULL, eps, oracle) || ug_py_bits_arg(dtype, &bits)) return NULL;
    const ug_op_desc *d;
    int nin;
    char err[1024];
    if (ug_check_prepare(&o, &d, &nin, err, sizeof err)) {
        set_error(2, err);
        return NULL;
    }
    py_inputs in;
    if (inputs_get(inputs, bits, &in)) return NULL;
    size_t shape[UG_ARRAY_MAX_DIMS];
    int nd = out_shape(d, &in, shape);
    exact_out x = {.fmt = f};
    void *hi, *lo;
    PyObject *rounded = ug_py_new_array(f, nd, shape, &x.rounded);
    PyObject *ahi = rounded ? ug_py_new_array(UG_F64, nd, shape, &hi) : NULL;
    PyObject *alo = ahi ? ug_py_new_array(UG_F64, nd, shape, &lo) : NULL;
    PyObject *res = NULL;
    ug_check_result *r = PyMem_Malloc(sizeof *r);
    size_t count = 1;
    for (int i = 0; i < nd; i++) count *= shape[i];
    /* GOT: zeros in a format the operation grades (nrm2's bound is binary32's) */
    double *got = PyMem_Calloc(count ? count : 1, sizeof(double));
    if (!alo || !r || !got) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto out;
    }
    x.hi = hi;
    x.lo = lo;
    o.each_exact = exact_each;
    o.each_ctx = &x;
    ug_array gc = {.name = "the outputs", .data = got,
                .fmt = d->bound ? UG_F32 : UG_F64, .ndim = nd};
    memcpy(gc.shape, shape, sizeof(size_t) * (size_t)nd);
    int rc = run_check(&o, in.c, in.n, &gc, r, err, sizeof err);
    if (rc != 0) set_error(rc, err);
    else res = PyTuple_Pack(3, rounded, ahi, alo);
out:
    PyMem_Free(got);
    PyMem_Free(r);
    Py_XDECREF(rounded);
    Py_XDECREF(ahi);
    Py_XDECREF(alo);
    inputs_release(&in);
    return res;
}

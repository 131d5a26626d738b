/*
 * inputs.c - the harness's inputs for Python (ulpgate.strategies): arrays drawn from its
 * distributions (harness/inputs/dist.h), reproducible from (seed, label, trial) as a case's
 * are, and the files of its corpus of adversarial inputs (harness/inputs/corpus.h).
 */
#include "python/ulpgate/_ext/ext.h"

#include <stdlib.h>
#include <string.h>

#include "harness/inputs/corpus.h"
#include "harness/inputs/dist.h"
#include "harness/inputs/rng.h"

// --- distributions --------------------------------------------------------------------------

static const struct { const char *name; ug_dist_kind kind; } dist_kinds[] = {
    {"uniform", UG_D_UNIFORM}, {"normal", UG_D_NORMAL}, {"lognormal", UG_D_LOGNORMAL},
    {"expuniform", UG_D_EXPUNIFORM}, {"constant", UG_D_CONSTANT},
    {"msvc_rand01", UG_D_MSVC_RAND01}, {"gensum", UG_D_GENSUM}, {"gendot", UG_D_GENDOT},
};
static const struct { const char *name; ug_order order; } orders[] = {
    {"none", UG_ORDER_NONE}, {"asc", UG_ORDER_ASC}, {"desc", UG_ORDER_DESC},
    {"abs_asc", UG_ORDER_ABS_ASC}, {"abs_desc", UG_ORDER_ABS_DESC},
};
static const struct { const char *name; unsigned bit; } special_names[] = {
    {"nan", UG_SP_NAN}, {"inf", UG_SP_POSINF}, {"-inf", UG_SP_NEGINF}, {"zero", UG_SP_ZERO},
    {"subnormal", UG_SP_SUBNORMAL}, {"max", UG_SP_MAX}, {"tiny", UG_SP_TINY},
};

/* The specials mask from a sequence of names; 0, or -1 with ValueError. */
static int specials_arg(PyObject *seq, unsigned *mask)
{
    *mask = 0;
    if (!seq || seq == Py_None) return 0;
    PyObject *fast = PySequence_Fast(seq, "specials: a sequence of names");
    if (!fast) return -1;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
        const char *s = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(fast, i));
        size_t k = 0;
        while (s && k < sizeof special_names / sizeof special_names[0] &&
               strcmp(s, special_names[k].name))
            k++;
        if (!s || k == sizeof special_names / sizeof special_names[0]) {
            Py_DECREF(fast);
            if (s) PyErr_Format(PyExc_ValueError, "specials: '%s' is not nan, inf, -inf, zero, "
                                "subnormal, max or tiny", s);
            return -1;
        }
        *mask |= special_names[k].bit;
    }
    Py_DECREF(fast);
    return 0;
}

/* The distribution of the keyword arguments; 0, or -1 with ValueError naming what is wrong. */
static int dist_args(const char *kind, double p1, double p2, const char *order, int alternate,
                     double rate, PyObject *specials, const char *fmt, ug_dist *d)
{
    size_t k = 0;
    while (k < sizeof dist_kinds / sizeof dist_kinds[0] && strcmp(kind, dist_kinds[k].name)) k++;
    if (k == sizeof dist_kinds / sizeof dist_kinds[0]) {
        PyErr_Format(PyExc_ValueError, "distribution '%s': not uniform, normal, lognormal, "
                     "expuniform, constant, msvc_rand01, gensum or gendot", kind);
        return -1;
    }
    memset(d, 0, sizeof *d);
    d->kind = dist_kinds[k].kind;
    d->p1 = p1;
    d->p2 = p2;
    if (order) {
        size_t o = 0;
        while (o < sizeof orders / sizeof orders[0] && strcmp(order, orders[o].name)) o++;
        if (o == sizeof orders / sizeof orders[0]) {
            PyErr_Format(PyExc_ValueError, "order '%s': not none, asc, desc, abs_asc or "
                         "abs_desc", order);
            return -1;
        }
        d->order = orders[o].order;
    }
    d->alternate = alternate;
    d->special_rate = rate;
    if (specials_arg(specials, &d->specials)) return -1;
    if (rate > 0 && !d->specials) d->specials = UG_SP_ALL;
    ug_fmt f = ug_fmt_parse(fmt ? fmt : "f32");
    if (f == UG_FMT_COUNT || !ug_fmt_bytes(f)) {
        PyErr_Format(PyExc_ValueError, "fmt '%s': not f64, f32, f16, bf16, e4m3, e5m2, e3m2, e2m3 or e2m1", fmt);
        return -1;
    }
    if (f != UG_F32) *d = ug_in_format(*d, f);
    char err[256];
    if (ug_dist_validate(d, err, sizeof err) != 0) {
        PyErr_SetString(PyExc_ValueError, err);
        return -1;
    }
    return 0;
}

/* The Python arrays of one problem's input a of op: its shape (batch rows in front). */
static int input_shape(const ug_op_desc *op, const ug_shape *s, int a, size_t batch, bool param,
                       size_t *shape)
{
    int nd = 0;
    if (batch && !param) shape[nd++] = batch;
    if (op->shape->layout == UG_LAYOUT_MATMUL) {
        shape[nd++] = a == 0 ? s->dim[0] : s->dim[2];
        shape[nd++] = a == 0 ? s->dim[2] : s->dim[1];
    } else {
        shape[nd++] = s->dim[0];
    }
    return nd;
}

/* draw(op, kind, p1, p2, n=, m=, k=, batch=, order=, alternate=, special_rate=, specials=,
 *      fmt=, seed=, trial=, label=) -> tuple of arrays
 * One problem (batch 0) or `batch` problems of trials trial, trial + 1, ... of the
 * distribution, the stream named by label as a case's input is by its unit and label.  The
 * arrays are op's inputs as `ulpgate.check` takes them: x; x, y; A (M, K), B (K, N); a row
 * operation's x (rows), then its parameters (the weight; the weight and the bias), which
 * ops/ fills itself (layer parameters are not data).  Values of fmt: float64, float32,
 * float16; bfloat16 / fp8 as uint16 / uint8 bit patterns.  Cost: the fill, O(elements). */
PyObject *ug_py_draw(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"op", "kind", "p1", "p2", "n", "m", "k", "batch", "order",
                             "alternate", "special_rate", "specials", "fmt", "seed", "trial",
                             "label", NULL};
    const char *opname, *kind, *order = NULL, *fmt = "f32", *label = "python";
    double p1 = 0, p2 = 1, rate = 0;
    Py_ssize_t n = 0, m = 0, kk = 0, batch = 0;
    int alternate = 0;
    unsigned long long seed = 0x5eed, trial = 0;
    PyObject *specials = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "ss|ddnnnnzpdOzKKs", kwlist, &opname, &kind, &p1,
                                     &p2, &n, &m, &kk, &batch, &order, &alternate, &rate,
                                     &specials, &fmt, &seed, &trial, &label))
        return NULL;
    const ug_op_desc *op = ug_op_find(opname);
    if (!op) return PyErr_Format(PyExc_ValueError, "op '%s': not an operation", opname);
    /* one or two input vectors (or matrices) a problem, what the buffers below hold: an
     * operation of more inputs or of heads (attention's Q, K, V) is drawn by its own cases */
    if (op->shape->arity > 2 || op->shape->layout == UG_LAYOUT_HEADS)
        return PyErr_Format(PyExc_ValueError, "draw: op '%s' is not drawn here (its inputs are "
                            "drawn by its cases: `ulpgate list`); draw takes the operations of "
                            "one or two inputs", opname);
    ug_dist d;
    if (dist_args(kind, p1, p2, order, alternate, rate, specials, fmt, &d)) return NULL;
    if (n < 1 || batch < 0 || (op->shape->layout == UG_LAYOUT_MATMUL && (m < 1 || kk < 1)))
        return PyErr_Format(PyExc_ValueError, "draw: sizes must be >= 1 (n%s)",
                            op->shape->layout == UG_LAYOUT_MATMUL ? ", m, k" : "");
    if (d.fmt != UG_F32 && op->shape->layout == UG_LAYOUT_MATMUL)
        return PyErr_Format(PyExc_ValueError, "draw: %s inputs in %s: only binary32 (the "
                            "harness draws matrices in binary32)", op->shape->name, fmt);
    ug_shape s = {{(size_t)n, (size_t)n, (size_t)n}, 1};
    if (op->shape->layout == UG_LAYOUT_MATMUL) s = (ug_shape){{(size_t)m, (size_t)n, (size_t)kk}, 1};
    uint64_t stream = ug_hash64(label, ug_hash64(op->shape->name, UG_HASH64_INIT));
    size_t rows = batch ? (size_t)batch : 1;
    int arity = op->shape->arity;
    bool layer = op->shape->arity == 2 && op->fill_params;
    int outs = arity == 2 && layer ? 1 + ug_op_in_width(op, 1) : arity;
    size_t len[2] = {ug_op_in_len(op, &s, 0), arity > 1 ? ug_op_in_len(op, &s, 1) : 0};
    double *v[2] = {NULL, NULL};
    float *f[2] = {NULL, NULL};
    PyObject *res = PyTuple_New(outs);
    void *dst[3] = {NULL, NULL, NULL};
    if (!res) return NULL;
    for (int a = 0; a < outs; a++) { /* the arrays: x (rows); y or the parameters */
        size_t shape[4];
        int nd = input_shape(op, &s, a == 0 ? 0 : 1, batch, layer && a > 0, shape);
        PyObject *arr = ug_py_new_array(d.fmt, nd, shape, &dst[a]);
        if (!arr) goto fail;
        PyTuple_SET_ITEM(res, a, arr);
    }
    for (int a = 0; a < arity; a++) {
        v[a] = PyMem_Malloc((len[a] ? len[a] : 1) * sizeof(double));
        f[a] = PyMem_Malloc((len[a] ? len[a] : 1) * sizeof(float));
        if (!v[a] || !f[a]) {
            PyErr_NoMemory();
            goto fail;
        }
    }
    char err[512];
    for (size_t r = 0; r < rows; r++) {
        int rc; /* the GIL held: the fills share the library's thread pool (base/par.h) */
        if (d.fmt == UG_F32) {
            rc = ug_dist_fill_op(&d, op, seed, stream, (uint32_t)(trial + r), f[0], f[1], &s,
                                 err, sizeof err);
            for (int a = 0; a < arity && rc == 0; a++)
                for (size_t i = 0; i < len[a]; i++) v[a][i] = f[a][i];
        } else {
            rc = ug_dist_fill_fmt(&d, op, seed, stream, (uint32_t)(trial + r), v[0], v[1], &s,
                                  err, sizeof err);
        }
        if (rc != 0) {
            PyErr_SetString(PyExc_ValueError, err);
            goto fail;
        }
        for (size_t i = 0; i < len[0]; i++) ug_fmt_store(d.fmt, dst[0], r * len[0] + i, v[0][i]);
        if (arity < 2) continue;
        if (!layer) {
            for (size_t i = 0; i < len[1]; i++)
                ug_fmt_store(d.fmt, dst[1], r * len[1] + i, v[1][i]);
        } else if (r == 0) { /* the parameters: one set, [w | b] split into their arrays */
            for (int p = 0; p < outs - 1; p++)
                for (size_t i = 0; i < (size_t)n; i++)
                    ug_fmt_store(d.fmt, dst[1 + p], i, v[1][(size_t)p * (size_t)n + i]);
        }
    }
    for (int a = 0; a < 2; a++) {
        PyMem_Free(v[a]);
        PyMem_Free(f[a]);
    }
    return res;
fail:
    for (int a = 0; a < 2; a++) {
        PyMem_Free(v[a]);
        PyMem_Free(f[a]);
    }
    Py_DECREF(res);
    return NULL;
}

// --- the corpus ------------------------------------------------------------------------------

/* corpus(dirs=()) -> list of (name, path) of every corpus file: the data folder's
 * cases/corpus and each directory given, in unit-name order; none is read. */
PyObject *ug_py_corpus(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *dirs = NULL;
    if (!PyArg_ParseTuple(args, "|O", &dirs)) return NULL;
    const char *d[16];
    size_t nd = 0;
    PyObject *fast = NULL;
    if (dirs && dirs != Py_None) {
        if (!(fast = PySequence_Fast(dirs, "corpus: a sequence of directories"))) return NULL;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast) && nd < 16; i++)
            if (!(d[nd++] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(fast, i)))) {
                Py_DECREF(fast);
                return NULL;
            }
    }
    ug_corpus_entry *files = NULL;
    size_t count = 0;
    char err[1024];
    int rc = ug_corpus_discover(d, nd, &files, &count, err, sizeof err);
    Py_XDECREF(fast);
    if (rc != 0) return PyErr_Format(PyExc_OSError, "%s", err);
    PyObject *out = PyList_New(0);
    for (size_t i = 0; out && i < count; i++) {
        PyObject *t = files[i].error ? NULL : Py_BuildValue("(ss)", files[i].name, files[i].path);
        if (files[i].error) continue; /* a file named twice: `ulpgate run` reports it */
        if (!t || PyList_Append(out, t)) Py_CLEAR(out);
        Py_XDECREF(t);
    }
    free(files); /* the entries' paths live for the process (corpus.h) */
    return out;
}

/* corpus_load(path, name="") -> (info, arrays): info a dict (name, op, fmt, why, source, m, n, k), the
 * arrays op's inputs as draw() gives them (a GEMM's A (M, K) and B (K, N); a LayerNorm's x,
 * w, b), in the file's format.  ValueError naming the file and line for a malformed one. */
PyObject *ug_py_corpus_load(PyObject *self, PyObject *args)
{
    (void)self;
    const char *path, *name = "";
    if (!PyArg_ParseTuple(args, "s|s", &path, &name)) return NULL;
    ug_corpus_file *f = PyMem_Calloc(1, sizeof *f);
    if (!f) return PyErr_NoMemory();
    snprintf(f->name, sizeof f->name, "%s", name);
    PyObject *res = NULL, *arrays = NULL;
    if (ug_corpus_parse(path, f) != 0) {
        if (f->error_line)
            PyErr_Format(PyExc_ValueError, "%s:%zu: %s", path, f->error_line, f->error);
        else
            PyErr_Format(PyExc_ValueError, "%s: %s", path, f->error);
        goto out;
    }
    const ug_op_desc *op = ug_op_get(f->op);
    ug_shape s = ug_corpus_shape(f);
    bool layer = op->shape->arity == 2 && op->fill_params;
    int outs = op->shape->arity == 2 && layer ? 1 + ug_op_in_width(op, 1) : op->shape->arity;
    const float *src32[2] = {f->x, f->y};
    const double *src64[2] = {f->x64, f->y64};
    if (!(arrays = PyTuple_New(outs))) goto out;
    for (int a = 0; a < outs; a++) {
        int in = a ? 1 : 0;
        size_t shape[4], off = layer && a > 1 ? (size_t)(a - 1) * s.dim[0] : 0;
        int nd = input_shape(op, &s, in, 0, false, shape);
        size_t cnt = 1;
        for (int i = 0; i < nd; i++) cnt *= shape[i];
        void *dst;
        PyObject *arr = ug_py_new_array(f->fmt, nd, shape, &dst);
        if (!arr) goto out;
        PyTuple_SET_ITEM(arrays, a, arr);
        for (size_t i = 0; i < cnt; i++)
            ug_fmt_store(f->fmt, dst, i, src64[in] ? src64[in][off + i] : src32[in][off + i]);
    }
    res = Py_BuildValue("({s:s,s:s,s:s,s:s,s:s,s:n,s:n,s:n}O)", "name", f->name, "op", op->shape->name,
                        "fmt", ug_fmt_name(f->fmt), "why", f->why, "source", f->source, "m",
                        (Py_ssize_t)f->m, "n", (Py_ssize_t)f->n, "k", (Py_ssize_t)f->k, arrays);
out:
    Py_XDECREF(arrays);
    ug_corpus_file_free(f);
    PyMem_Free(f);
    return res;
}

/*
 * arrays.c - Python objects in and out of ulpgate._ulpgate (arrays.h): the buffer protocol,
 * DLPack, __array__, and the dtype names of bfloat16 and fp8.
 */
#include "python/ulpgate/_ext/arrays.h"

#include <stdint.h>
#include <string.h>

// --- DLPack (dlpack.h, the ABI every producer shares: the legacy "dltensor" capsule) ---------

typedef struct { int32_t device_type, device_id; } ug_dl_device;
typedef struct { uint8_t code, bits; uint16_t lanes; } ug_dl_dtype;
typedef struct {
    void *data;
    ug_dl_device device;
    int32_t ndim;
    ug_dl_dtype dtype;
    int64_t *shape, *strides; /* strides in elements; NULL: C-contiguous */
    uint64_t byte_offset;
} ug_dl_tensor;
typedef struct ug_dl_managed {
    ug_dl_tensor t;
    void *manager_ctx;
    void (*deleter)(struct ug_dl_managed *self);
} ug_dl_managed;

enum { UG_DL_UINT = 1, UG_DL_FLOAT = 2, UG_DL_BFLOAT = 4, UG_DL_F8_E4M3FN = 10,
       UG_DL_F8_E5M2 = 12 };
enum { UG_DL_CPU = 1, UG_DL_CUDA_HOST = 3 };

// --- helpers --------------------------------------------------------------------------------

int ug_py_bits_arg(PyObject *dtype, ug_fmt *bits)
{
    *bits = UG_FMT_COUNT;
    if (!dtype || dtype == Py_None) return 0;
    const char *s = PyUnicode_Check(dtype) ? PyUnicode_AsUTF8(dtype) : NULL;
    ug_fmt f = s ? ug_fmt_parse(s) : UG_FMT_COUNT;
    if (f != UG_BF16 && ug_fmt_bytes(f) != 1) { /* the one-byte formats: fp8, FP6, FP4 */
        PyErr_Format(PyExc_ValueError, "dtype=%R: not 'bf16', 'e4m3', 'e5m2', 'e3m2', 'e2m3' or "
                     "'e2m1' (the format that uint16 / uint8 bit patterns hold)", dtype);
        return -1;
    }
    *bits = f;
    return 0;
}

void ug_py_array_release(ug_py_array *a)
{
    if (a->view.obj) PyBuffer_Release(&a->view);
    Py_CLEAR(a->keep);
    Py_CLEAR(a->host);
    PyMem_Free(a->copy);
    a->copy = NULL;
    a->array.data = NULL;
}

static int set_shape(ug_py_array *a, int ndim, const void *shape, bool i64)
{
    if (ndim > UG_ARRAY_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "%s: %d dimensions (at most %d)", a->array.name, ndim,
                     UG_ARRAY_MAX_DIMS);
        return -1;
    }
    a->array.ndim = ndim;
    for (int i = 0; i < ndim; i++)
        a->array.shape[i] = i64 ? (size_t)((const int64_t *)shape)[i]
                                : (size_t)((const Py_ssize_t *)shape)[i];
    ug_array_c_strides(&a->array); /* what data will be: in place when C order, else a copy */
    return 0;
}

/* The element format of integer bit patterns of `bytes` bytes, given bits (dtype=). */
static int bits_format(ug_py_array *a, size_t bytes, ug_fmt bits, const char *what)
{
    if (bits == UG_FMT_COUNT || ug_fmt_bytes(bits) != bytes) {
        PyErr_Format(PyExc_TypeError, "%s: %s elements: name their format with dtype=%s (bit "
                     "patterns of %s)", a->array.name, what,
                     bytes == 2 ? "'bf16'" : "'e4m3', 'e5m2', 'e3m2', 'e2m3' or 'e2m1'",
                     bytes == 2 ? "bfloat16" : "fp8 E4M3FN / E5M2, FP6, FP4");
        return -1;
    }
    a->array.fmt = bits;
    return 0;
}

/* A float array of format f, whatever dtype= says: dtype names what the uint16 / uint8 arrays
 * of the call hold (as `ulpgate check --dtype` does for every u2 / u1 file), so a float array
 * is read as it is (bfloat16 inputs with a binary32 GOT). */
static int float_with_bits(ug_py_array *a, ug_fmt f, ug_fmt bits)
{
    (void)bits;
    a->array.fmt = f;
    return 0;
}

// --- the buffer protocol --------------------------------------------------------------------

/* The dtype's name of a buffer's element format, as NumPy spells it ("int32", "complex64"):
 * the object's own dtype when it has one, else the struct code's; what a message says. */
static void dtype_name(PyObject *obj, const char *code, size_t item, char *buf, size_t len)
{
    PyObject *dt = PyObject_GetAttrString(obj, "dtype"), *s = dt ? PyObject_Str(dt) : NULL;
    const char *n = s ? PyUnicode_AsUTF8(s) : NULL;
    if (n) {
        snprintf(buf, len, "%s", n);
    } else {
        PyErr_Clear();
        static const struct { const char *code, *sign; } k[] = {
            {"b", "int"}, {"h", "int"}, {"i", "int"}, {"l", "int"}, {"q", "int"}, {"n", "int"},
            {"B", "uint"}, {"H", "uint"}, {"I", "uint"}, {"L", "uint"}, {"Q", "uint"},
            {"N", "uint"}, {"?", "bool"}, {"g", "float"}, {"Zf", "complex"}, {"Zd", "complex"},
            {"Zg", "complex"}, {"O", "object"}};
        const char *sign = NULL;
        for (size_t i = 0; i < sizeof k / sizeof k[0] && !sign; i++)
            if (!strcmp(code, k[i].code)) sign = k[i].sign;
        if (!sign) snprintf(buf, len, "format '%s'", code);
        else if (!strcmp(sign, "bool") || !strcmp(sign, "object")) snprintf(buf, len, "%s", sign);
        else snprintf(buf, len, "%s%zu", sign, 8 * item);
    }
    Py_XDECREF(s);
    Py_XDECREF(dt);
}

static int from_buffer(PyObject *obj, ug_fmt bits, ug_py_array *a)
{
    if (PyObject_GetBuffer(obj, &a->view, PyBUF_RECORDS_RO) != 0) return -1;
    const char *f = a->view.format ? a->view.format : "B";
    if (*f == '>' || *f == '!') {
        PyErr_Format(PyExc_ValueError, "%s: big-endian elements (format '%s'): convert to the "
                     "native byte order first", a->array.name, f);
        return -1;
    }
    if (*f == '@' || *f == '=' || *f == '<') f++;
    size_t item = (size_t)a->view.itemsize;
    int rc = 0;
    if (!strcmp(f, "d") && item == 8) rc = float_with_bits(a, UG_F64, bits);
    else if (!strcmp(f, "f") && item == 4) rc = float_with_bits(a, UG_F32, bits);
    else if (!strcmp(f, "e") && item == 2) rc = float_with_bits(a, UG_F16, bits);
    else if (!strcmp(f, "H") && item == 2) rc = bits_format(a, 2, bits, "uint16");
    else if ((!strcmp(f, "B") || !strcmp(f, "b")) && item == 1)
        rc = bits_format(a, 1, bits, *f == 'b' ? "int8" : "uint8");
    else {
        char dt[64];
        dtype_name(obj, f, item, dt, sizeof dt);
        PyErr_Format(PyExc_TypeError, "%s: dtype %s is not float64, float32, float16, bfloat16, "
                     "float8, or uint16 / uint8 bit patterns", a->array.name, dt);
        return -1;
    }
    if (rc) return -1;
    if (set_shape(a, a->view.ndim, a->view.shape, false)) return -1;
    if (PyBuffer_IsContiguous(&a->view, 'C')) {
        a->array.data = a->view.buf;
        return 0;
    }
    a->copy = PyMem_Malloc(a->view.len ? (size_t)a->view.len : 1);
    if (!a->copy) {
        PyErr_Format(PyExc_MemoryError, "%s: its C-order copy (%zd bytes, the array is strided) "
                     "cannot be allocated", a->array.name, a->view.len);
        return -1;
    }
    if (PyBuffer_ToContiguous(a->copy, &a->view, a->view.len, 'C') != 0) return -1;
    a->array.data = a->copy;
    return 0;
}

// --- DLPack ---------------------------------------------------------------------------------

static int from_dlpack(PyObject *obj, ug_fmt bits, ug_py_array *a)
{
    PyObject *cap = NULL;
    if (a->device) { /* the producer's own copy to the host: the array API's cross-device
                        __dlpack__ (PyTorch 2.4+, CuPy 13+, JAX) */
        PyObject *noargs = PyTuple_New(0), *kw = Py_BuildValue("{s:(ii),s:O}", "dl_device",
                                                               UG_DL_CPU, 0, "copy", Py_True);
        PyObject *f = PyObject_GetAttrString(obj, "__dlpack__");
        if (noargs && kw && f) cap = PyObject_Call(f, noargs, kw);
        Py_XDECREF(f);
        Py_XDECREF(kw);
        Py_XDECREF(noargs);
    } else {
        cap = PyObject_CallMethod(obj, "__dlpack__", NULL);
    }
    if (!cap) return -1;
    a->keep = cap; /* the producer's capsule frees the tensor when released unconsumed */
    if (!PyCapsule_IsValid(cap, "dltensor")) {
        PyErr_Format(PyExc_TypeError, "%s: its __dlpack__() returned %s, not an unconsumed "
                     "\"dltensor\" capsule", a->array.name, Py_TYPE(cap)->tp_name);
        return -1;
    }
    ug_dl_managed *m = PyCapsule_GetPointer(cap, "dltensor");
    if (!m) return -1;
    const ug_dl_tensor *t = &m->t;
    if (t->device.device_type != UG_DL_CPU && t->device.device_type != UG_DL_CUDA_HOST) {
        PyErr_Format(PyExc_ValueError, "%s: a tensor on device type %d: move it to the host "
                     "first (.cpu(), cupy.asnumpy, jax.device_get)", a->array.name,
                     (int)t->device.device_type);
        return -1;
    }
    const ug_dl_dtype d = t->dtype;
    int rc = 0;
    if (d.lanes != 1) {
        PyErr_Format(PyExc_TypeError, "%s: a vector dtype (%d lanes)", a->array.name, d.lanes);
        return -1;
    }
    if (d.code == UG_DL_FLOAT && d.bits == 64) rc = float_with_bits(a, UG_F64, bits);
    else if (d.code == UG_DL_FLOAT && d.bits == 32) rc = float_with_bits(a, UG_F32, bits);
    else if (d.code == UG_DL_FLOAT && d.bits == 16) rc = float_with_bits(a, UG_F16, bits);
    else if (d.code == UG_DL_BFLOAT && d.bits == 16) rc = float_with_bits(a, UG_BF16, bits);
    else if (d.code == UG_DL_F8_E4M3FN && d.bits == 8) rc = float_with_bits(a, UG_E4M3, bits);
    else if (d.code == UG_DL_F8_E5M2 && d.bits == 8) rc = float_with_bits(a, UG_E5M2, bits);
    else if (d.code == UG_DL_UINT && d.bits == 16) rc = bits_format(a, 2, bits, "uint16");
    else if (d.code == UG_DL_UINT && d.bits == 8) rc = bits_format(a, 1, bits, "uint8");
    else {
        PyErr_Format(PyExc_TypeError, "%s: DLPack dtype code %d, %d bits: not float64, "
                     "float32, float16, bfloat16, fp8, or uint16 / uint8 bit patterns",
                     a->array.name, d.code, d.bits);
        return -1;
    }
    if (rc || set_shape(a, t->ndim, t->shape, true)) return -1;
    const unsigned char *base = (const unsigned char *)t->data + t->byte_offset;
    size_t w = ug_fmt_bytes(a->array.fmt);
    bool contiguous = true;
    if (t->strides) {
        int64_t want = 1;
        for (int i = t->ndim - 1; i >= 0; i--) {
            if (t->shape[i] != 1 && t->strides[i] != want) contiguous = false;
            want *= t->shape[i];
        }
    }
    size_t count = ug_array_count(&a->array);
    if (contiguous || count == 0) {
        a->array.data = base;
        return 0;
    }
    unsigned char *dst = a->copy = PyMem_Malloc(count * w);
    if (!dst) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t e = 0; e < count; e++) { /* gather: e's index, digit by digit */
        size_t rest = e;
        int64_t off = 0;
        for (int i = t->ndim - 1; i >= 0; i--) {
            off += (int64_t)(rest % a->array.shape[i]) * t->strides[i];
            rest /= a->array.shape[i];
        }
        memcpy(dst + e * w, base + off * (int64_t)w, w);
    }
    a->array.data = dst;
    return 0;
}

// --- dtype names ----------------------------------------------------------------------------

/* The format a dtype's name says (ml_dtypes, PyTorch), or UG_FMT_COUNT. */
static ug_fmt named_format(PyObject *obj)
{
    PyObject *dt = PyObject_GetAttrString(obj, "dtype");
    if (!dt) {
        PyErr_Clear();
        return UG_FMT_COUNT;
    }
    PyObject *s = PyObject_Str(dt);
    Py_DECREF(dt);
    if (!s) {
        PyErr_Clear();
        return UG_FMT_COUNT;
    }
    const char *n = PyUnicode_AsUTF8(s);
    ug_fmt f = UG_FMT_COUNT;
    if (n) {
        if (!strncmp(n, "torch.", 6)) n += 6;
        if (!strcmp(n, "bfloat16")) f = UG_BF16;
        else if (!strcmp(n, "float8_e4m3fn")) f = UG_E4M3;
        else if (!strcmp(n, "float8_e5m2")) f = UG_E5M2;
        else if (!strcmp(n, "float6_e3m2fn")) f = UG_E3M2; /* ml_dtypes: one code a byte */
        else if (!strcmp(n, "float6_e2m3fn")) f = UG_E2M3;
        else if (!strcmp(n, "float4_e2m1fn")) f = UG_E2M1;
    }
    PyErr_Clear();
    Py_DECREF(s);
    return f;
}

/* The DLPack device type an object says it is on: __dlpack_device__(), else CUDA for an object
 * with __cuda_array_interface__ (Numba, older CuPy), else the host. */
static int device_of(PyObject *obj)
{
    int type = UG_DL_CPU;
    if (PyObject_HasAttrString(obj, "__dlpack_device__")) {
        PyObject *d = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
        PyObject *t = d && PyTuple_Check(d) && PyTuple_Size(d) >= 1 ? PyTuple_GET_ITEM(d, 0) : NULL;
        long v = t ? PyLong_AsLong(t) : -1;
        if (v >= 0) type = (int)v;
        Py_XDECREF(d);
        PyErr_Clear();
    } else if (PyObject_HasAttrString(obj, "__cuda_array_interface__")) {
        type = 2; /* kDLCUDA */
    }
    return type;
}

/* A device array into a, copied to the host by its producer (arrays.h); 0, or -1 with an
 * exception naming the argument. */
static int from_device(PyObject *obj, ug_fmt bits, const char *name, int dev, ug_py_array *a)
{
    static const char *const methods[] = {"cpu", "get", "copy_to_host"};
    a->device = dev;
    if (PyObject_HasAttrString(obj, "__dlpack__") && named_format(obj) == UG_FMT_COUNT &&
        from_dlpack(obj, bits, a) == 0)
        return 0;
    ug_py_array_release(a);
    PyErr_Clear();
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
        if (!PyObject_HasAttrString(obj, methods[i])) continue;
        PyObject *h = PyObject_CallMethod(obj, methods[i], NULL);
        if (!h) return -1;
        if (device_of(h) != UG_DL_CPU && device_of(h) != UG_DL_CUDA_HOST) {
            Py_DECREF(h);
            continue;
        }
        int rc = ug_py_array_get(h, bits, name, a);
        if (rc == 0) {
            a->host = h;
            a->device = dev;
        } else {
            Py_DECREF(h);
        }
        return rc;
    }
    PyErr_Format(PyExc_ValueError, "%s: an array on device type %d that does not copy itself "
                 "to the host (no __dlpack__(dl_device=, copy=), .cpu(), .get() or "
                 ".copy_to_host()): copy it first", name, dev);
    return -1;
}

int ug_py_array_get(PyObject *obj, ug_fmt bits, const char *name, ug_py_array *a)
{
    memset(a, 0, sizeof *a);
    a->array.name = name;
    int rc, dev = device_of(obj);
    if (dev != UG_DL_CPU && dev != UG_DL_CUDA_HOST) return from_device(obj, bits, name, dev, a);
    ug_fmt named = named_format(obj);
    if (named != UG_FMT_COUNT) { /* bfloat16 / fp8 by name: their bit patterns */
        if (bits != UG_FMT_COUNT && bits != named) {
            PyErr_Format(PyExc_TypeError, "%s: its dtype is %s, but dtype=%s was given", name,
                         ug_fmt_name(named), ug_fmt_name(bits));
            return -1;
        }
        if (PyObject_HasAttrString(obj, "__dlpack__") && !PyObject_CheckBuffer(obj)) {
            rc = from_dlpack(obj, named, a); /* PyTorch: bfloat16 is a DLPack type */
            if (rc == 0) return 0;
            ug_py_array_release(a);
            memset(a, 0, sizeof *a);
            a->array.name = name;
            PyErr_Clear();
        }
        const char *u = ug_fmt_bytes(named) == 2 ? "uint16" : "uint8";
        PyObject *v = PyObject_CallMethod(obj, "view", "s", u); /* NumPy (ml_dtypes) */
        if (!v) { /* PyTorch's view takes its own dtype: torch.uint16 / torch.uint8 */
            PyObject *torch = PyImport_ImportModule("torch");
            PyObject *dt = torch ? PyObject_GetAttrString(torch, u) : NULL;
            PyObject *name = PyUnicode_FromString("view");
            if (dt && name) {
                PyErr_Clear();
                v = PyObject_CallMethodObjArgs(obj, name, dt, NULL);
            }
            Py_XDECREF(name);
            Py_XDECREF(dt);
            Py_XDECREF(torch);
        }
        if (v && !PyObject_CheckBuffer(v) && PyObject_HasAttrString(v, "__dlpack__")) {
            rc = from_dlpack(v, named, a); /* a tensor of the bits */
            if (a->keep) { /* the capsule keeps the tensor's memory; v is kept with it */
                PyObject *pair = PyTuple_Pack(2, a->keep, v);
                Py_DECREF(a->keep);
                a->keep = pair;
            }
            Py_DECREF(v);
            if (rc) goto fail;
            return 0;
        }
        if (!v) goto fail;
        rc = from_buffer(v, named, a);
        a->keep = v;
        if (rc) goto fail;
        return 0;
    }
    if (PyObject_CheckBuffer(obj)) {
        if (from_buffer(obj, bits, a)) goto fail;
        return 0;
    }
    if (PyObject_HasAttrString(obj, "__dlpack__")) {
        if (from_dlpack(obj, bits, a)) goto fail;
        return 0;
    }
    if (PyObject_HasAttrString(obj, "__array__")) {
        PyObject *arr = PyObject_CallMethod(obj, "__array__", NULL);
        if (!arr) goto fail;
        if (!PyObject_CheckBuffer(arr)) {
            Py_DECREF(arr);
            PyErr_Format(PyExc_TypeError, "%s: its __array__ gives no buffer", name);
            goto fail;
        }
        rc = from_buffer(arr, bits, a);
        a->keep = arr;
        if (rc) goto fail;
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "%s: a %.200s is not an array (no buffer protocol, "
                 "__dlpack__ or __array__)", name, Py_TYPE(obj)->tp_name);
fail:
    ug_py_array_release(a);
    return -1;
}

// --- out ------------------------------------------------------------------------------------

PyObject *ug_py_new_array(ug_fmt f, int ndim, const size_t *shape, void **data)
{
    size_t count = 1, w = ug_fmt_bytes(f);
    for (int i = 0; i < ndim; i++) count *= shape[i];
    PyObject *bytes = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(count * w));
    if (!bytes) return NULL;
    *data = PyByteArray_AS_STRING(bytes);
    const char *dtype = f == UG_F64 ? "float64" : f == UG_F32 ? "float32" : f == UG_F16 ? "float16"
                        : w == 2 ? "uint16" : "uint8";
    PyObject *shp = PyTuple_New(ndim), *out = NULL;
    if (!shp) goto out;
    for (int i = 0; i < ndim; i++) PyTuple_SET_ITEM(shp, i, PyLong_FromSize_t(shape[i]));
    PyObject *np = PyImport_ImportModule("numpy");
    if (np) { /* numpy.frombuffer(bytes, dtype).reshape(shape): the bytearray stays its base */
        PyObject *flat = PyObject_CallMethod(np, "frombuffer", "Os", bytes, dtype);
        Py_DECREF(np);
        PyObject *name = PyUnicode_FromString("reshape"); /* not CallMethod "O": a tuple
                                                              would be taken as the args */
        if (flat && name) out = PyObject_CallMethodObjArgs(flat, name, shp, NULL);
        Py_XDECREF(name);
        Py_XDECREF(flat);
        goto out;
    }
    PyErr_Clear();
    PyObject *mv = PyMemoryView_FromObject(bytes);
    if (mv) {
        const char *code = f == UG_F64 ? "d" : f == UG_F32 ? "f" : f == UG_F16 ? "e"
                           : w == 2 ? "H" : "B";
        out = PyObject_CallMethod(mv, "cast", "sO", code, shp);
        Py_DECREF(mv);
    }
out:
    Py_XDECREF(shp);
    Py_DECREF(bytes);
    return out;
}

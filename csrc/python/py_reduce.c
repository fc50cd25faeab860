#include "binding.h"
#include <float.h>
#include <math.h>
#include <stdio.h>

/* Binding of the reduction kernels: ACL's metric and the error of a
   candidate segment, declared and served by acpy_call; compressed clips,
   whose layout is validated and opened by the core (the context of the
   sampling kernel is the opened clip). */

static ac_status rotation_loop(const acpy_context *ctx, const double *const *in,
                               const size_t *steps, double *const *out, size_t n,
                               ac_error *err)
{
    (void)ctx;
    return ac_reduce_rotation_error(in[0], in[1], in[2], in[3], in[4], in[5], steps, out[0],
                                    n, err);
}

static const acpy_kernel rotation_error = {
    "_reduce_rotation_error",
    "_reduce_rotation_error(func, t, target, t0, t1, start, end, out, workers) -> angle", 6, 1,
    {{"t", 1}, {"target", 4}, {"t0", 1}, {"t1", 1}, {"start", 4}, {"end", 4}},
    {{"angle", 1}}, rotation_loop, ACPY_SHARED, NULL,
};

static ac_status shell_loop(const acpy_context *ctx, const double *const *in,
                            const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    (void)ctx;
    return ac_reduce_shell_error(in[0], in[1], in[2], steps, out[0], n, err);
}

static const acpy_kernel shell_error = {
    "_reduce_shell_error", "_reduce_shell_error(func, a, b, shell, out, workers) -> error", 3,
    1, {{"a", ACPY_4X4}, {"b", ACPY_4X4}, {"shell", 1}}, {{"error", 1}}, shell_loop,
    ACPY_SHARED, NULL,
};

/* Context: (kind, channels). */
static int segment_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    long kind, channels;
    if (!PyArg_ParseTuple(arg, "ll", &kind, &channels))
        return 0;
    if (kind != AC_CURVE_STEP && kind != AC_CURVE_LINEAR && kind != AC_CURVE_CUBIC) {
        PyErr_Format(PyExc_ValueError, "%s: the context's kind %ld is none of step (%d), "
                     "linear (%d) and cubic (%d)", func, kind, AC_CURVE_STEP, AC_CURVE_LINEAR,
                     AC_CURVE_CUBIC);
        return 0;
    }
    if (channels < 1 || channels > 1L << 20) {
        PyErr_Format(PyExc_ValueError, "%s: the context's channel count %ld is out of range",
                     func, channels);
        return 0;
    }
    ctx->option[0] = kind;
    ctx->channels = (npy_intp)channels;
    return 1;
}

static ac_status segment_loop(const acpy_context *ctx, const double *const *in,
                              const size_t *steps, double *const *out, size_t n,
                              ac_error *err)
{
    return ac_reduce_segment_error((ac_curve_interpolation)ctx->option[0],
                                   (size_t)ctx->channels, in[0], in[1], in[2], in[3], in[4],
                                   in[5], in[6], in[7], steps, out[0], n, err);
}

static const acpy_kernel segment_error = {
    "_reduce_segment_error",
    "_reduce_segment_error(func, (kind, channels), t, target, t0, t1, start, end, "
    "start_velocity, end_velocity, out, workers) -> error",
    8, 1,
    {{"t", 1}, {"target", ACPY_CHANNELS}, {"t0", 1}, {"t1", 1}, {"start", ACPY_CHANNELS},
     {"end", ACPY_CHANNELS}, {"start_velocity", ACPY_CHANNELS},
     {"end_velocity", ACPY_CHANNELS}},
    {{"error", 1}}, segment_loop, ACPY_SHARED, segment_context,
};

static int bytes_of(const char *func, PyObject *arg, const uint8_t **data, size_t *size)
{
    if (!PyBytes_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "%s: compressed data must be bytes", func);
        return 0;
    }
    *data = (const uint8_t *)PyBytes_AS_STRING(arg);
    *size = (size_t)PyBytes_GET_SIZE(arg);
    return 1;
}

/* A layout's refusal as a ValueError naming the byte. */
static PyObject *refused(const char *func, const ac_error *err)
{
    char value[32];
    snprintf(value, sizeof value, "%.17g", err->value);
    return PyErr_Format(PyExc_ValueError, "%s: data at byte %zu is %s (%s)", func, err->index,
                        value, err->detail);
}

#define CLIP_NAME "animcore.ac_compressed_clip"

/* An opened clip with the storage it reads (its tracks, then its rest
   pose, in the same block) and the bytes object it reads from, kept alive. */
typedef struct opened {
    ac_compressed_clip clip;
    PyObject *bytes;
} opened;

static void opened_destroy(PyObject *capsule)
{
    opened *o = PyCapsule_GetPointer(capsule, CLIP_NAME);
    Py_XDECREF(o->bytes);
    PyMem_Free(o);
}

/* _compressed_open(func, data) -> (clip, nodes, samples, start, rate): the
   layout checked whole and opened for decoding. */
static PyObject *compressed_open(PyObject *self, PyObject *args)
{
    const char *func;
    PyObject *bytes, *capsule;
    const uint8_t *data;
    size_t size, nodes;
    ac_compressed_info info;
    ac_compressed_track *tracks;
    ac_status st;
    ac_error err;
    opened *o;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO:_compressed_open", &func, &bytes) ||
        !bytes_of(func, bytes, &data, &size))
        return NULL;
    Py_BEGIN_ALLOW_THREADS /* (bytes do not change) */
    st = ac_reduce_compressed_info(data, size, &info, &err);
    Py_END_ALLOW_THREADS
    if (st)
        return refused(func, &err);
    /* nodes <= 2^20, animated <= 3 * 2^20: the size cannot overflow; it is
       proportionate to the layout's (animated tracks take 32 bytes of it at
       least) and to a decoded pose (the rest pose) */
    nodes = info.nodes;
    o = PyMem_Malloc(sizeof *o + info.animated * sizeof *tracks + 10 * nodes * sizeof(double));
    if (!o)
        return PyErr_NoMemory();
    tracks = (ac_compressed_track *)(o + 1);
    Py_BEGIN_ALLOW_THREADS
    st = ac_reduce_compressed_open(data, size, tracks, (double *)(tracks + info.animated),
                                   &o->clip, &err);
    Py_END_ALLOW_THREADS
    if (st) { /* (not after ac_reduce_compressed_info passed) */
        PyMem_Free(o);
        return refused(func, &err);
    }
    Py_INCREF(bytes);
    o->bytes = bytes;
    capsule = PyCapsule_New(o, CLIP_NAME, opened_destroy);
    if (!capsule) {
        Py_DECREF(bytes);
        PyMem_Free(o);
        return NULL;
    }
    return Py_BuildValue("(NIIdd)", capsule, info.nodes, info.samples, info.start, info.rate);
}

static int sample_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    const ac_compressed_clip *clip = PyCapsule_GetPointer(arg, CLIP_NAME);
    (void)func;
    if (!clip)
        return 0;
    ctx->object = clip;
    ctx->channels = (npy_intp)clip->info.nodes;
    ctx->work = (npy_intp)clip->info.nodes * 3;
    return 1;
}

static ac_status sample_loop(const acpy_context *ctx, const double *const *in,
                             const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    (void)steps;
    if (!out) { /* the validation pass: only a time can fail */
        for (size_t i = 0; i < n; i++)
            if (!(fabs(in[0][i]) <= DBL_MAX))
                return acpy_unchecked(err);
        return AC_OK;
    }
    return ac_reduce_compressed_decode(ctx->object, in[0], n, out[0], out[1], out[2], err);
}

static const acpy_kernel sample = {
    "_compressed_sample", "_compressed_sample(func, clip, t, out, workers) -> (translation, "
    "rotation, scale)", 1, 3, {{"t", 1}},
    {{"translation", ACPY_C3}, {"rotation", ACPY_C4}, {"scale", ACPY_C3}}, sample_loop,
    ACPY_CHECKS, sample_context,
};

/* _compressed_pose(clip, t, cls) -> cls(translation, rotation, scale): the
   pose at one finite float t, with none of a kernel's array handling (an
   engine's per-frame call); None for any other t, which _compressed_sample
   takes (its errors name the argument). cls is a tuple type (Transforms). */
static PyObject *compressed_pose(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    const ac_compressed_clip *clip;
    PyTypeObject *cls;
    PyObject *arrays[3] = {NULL, NULL, NULL}, *pose;
    double t;
    ac_error err;
    (void)self;
    if (nargs != 3)
        return PyErr_Format(PyExc_TypeError, "_compressed_pose takes 3 arguments");
    if (!(clip = PyCapsule_GetPointer(args[0], CLIP_NAME)))
        return NULL;
    if (!PyType_Check(args[2]) || !PyType_IsSubtype((PyTypeObject *)args[2], &PyTuple_Type))
        return PyErr_Format(PyExc_TypeError, "_compressed_pose: cls must be a tuple type");
    cls = (PyTypeObject *)args[2];
    if (!PyFloat_Check(args[1]) || !isfinite(t = PyFloat_AS_DOUBLE(args[1])))
        Py_RETURN_NONE;
    for (int k = 0; k < 3; k++) {
        npy_intp dims[2] = {(npy_intp)clip->info.nodes, k == 1 ? 4 : 3};
        if (!(arrays[k] = PyArray_SimpleNew(2, dims, NPY_FLOAT64)))
            goto fail;
    }
    (void)ac_reduce_compressed_decode(clip, &t, 1, PyArray_DATA((PyArrayObject *)arrays[0]),
                                      PyArray_DATA((PyArrayObject *)arrays[1]),
                                      PyArray_DATA((PyArrayObject *)arrays[2]), &err);
    if (!(pose = cls->tp_alloc(cls, 3))) /* as tuple.__new__(cls, arrays) makes it */
        goto fail;
    for (int k = 0; k < 3; k++)
        PyTuple_SET_ITEM(pose, k, arrays[k]);
    return pose;
fail:
    for (int k = 0; k < 3; k++)
        Py_XDECREF(arrays[k]);
    return NULL;
}

static const acpy_kernel *const kernels[] = {&shell_error, &segment_error, &rotation_error,
                                             &sample};

static PyMethodDef methods[] = {
    {"_compressed_open", compressed_open, METH_VARARGS,
     "_compressed_open(func, data) -> (clip, nodes, samples, start, rate)"},
    {"_compressed_pose", (PyCFunction)(void (*)(void))compressed_pose, METH_FASTCALL,
     "_compressed_pose(clip, t, cls) -> cls(translation, rotation, scale) or None"},
    {NULL, NULL, 0, NULL},
};

int acpy_reduce_init(PyObject *module)
{
    if (acpy_add_kernels(module, kernels, sizeof kernels / sizeof *kernels) < 0)
        return -1;
    return PyModule_AddFunctions(module, methods);
}

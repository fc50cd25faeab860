#include "binding.h"
#include <float.h>
#include <math.h>
#include <stdio.h>

/* Binding of the reduction kernels: ACL's metric and the error of a
   candidate segment, declared and served by acpy_call; compressed clips,
   whose layout is read and validated by the core (the context of the
   sampling kernel is the clip's bytes). */

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

/* The whole layout checked (whole) or only what sampling checks before it
   reads a segment (the segments it reads are checked as it reads them). */
static int check(const char *func, const uint8_t *data, size_t size, ac_compressed_info *info,
                 int whole)
{
    ac_error err;
    if ((whole ? ac_reduce_compressed_info : ac_reduce_compressed_header)(data, size, info,
                                                                           &err) == AC_OK)
        return 1;
    char value[32];
    snprintf(value, sizeof value, "%.17g", err.value);
    PyErr_Format(PyExc_ValueError, "%s: data at byte %zu is %s (%s)", func, err.index, value,
                 err.detail);
    return 0;
}

/* _compressed_info(func, data) -> (nodes, samples, start, rate) */
static PyObject *compressed_info(PyObject *self, PyObject *args)
{
    const char *func;
    PyObject *bytes;
    const uint8_t *data;
    size_t size;
    ac_compressed_info info;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO:_compressed_info", &func, &bytes) ||
        !bytes_of(func, bytes, &data, &size) || !check(func, data, size, &info, 1))
        return NULL;
    return Py_BuildValue("(IIdd)", info.nodes, info.samples, info.start, info.rate);
}

static int sample_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    const uint8_t *data;
    size_t size;
    ac_compressed_info info;
    /* (CompressedClip checked the whole layout when it was made) */
    if (!bytes_of(func, arg, &data, &size) || !check(func, data, size, &info, 0))
        return 0;
    ctx->object = data;
    ctx->option[0] = (long)size;
    ctx->channels = (npy_intp)info.nodes;
    ctx->work = (npy_intp)info.nodes * 3;
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
    return ac_reduce_compressed_sample(ctx->object, (size_t)ctx->option[0], in[0], n, out[0],
                                       out[1], out[2], err);
}

static const acpy_kernel sample = {
    "_compressed_sample", "_compressed_sample(func, data, t, out, workers) -> (translation, "
    "rotation, scale)", 1, 3, {{"t", 1}},
    {{"translation", ACPY_C3}, {"rotation", ACPY_C4}, {"scale", ACPY_C3}}, sample_loop,
    ACPY_CHECKS, sample_context,
};

static const acpy_kernel *const kernels[] = {&shell_error, &segment_error, &rotation_error,
                                             &sample};

static PyMethodDef methods[] = {
    {"_compressed_info", compressed_info, METH_VARARGS,
     "_compressed_info(func, data) -> (nodes, samples, start, rate)"},
    {NULL, NULL, 0, NULL},
};

int acpy_reduce_init(PyObject *module)
{
    if (acpy_add_kernels(module, kernels, sizeof kernels / sizeof *kernels) < 0)
        return -1;
    return PyModule_AddFunctions(module, methods);
}

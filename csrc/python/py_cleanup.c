#include "binding.h"

/* Cleanup kernels over time series: an item is a whole series of `frames`
   samples (core shape (M, C)); errors name the item and the frame. */

static int series_context(const char *func, PyObject *arg, acpy_context *ctx, long width)
{
    long v[2];
    if (!PyTuple_Check(arg) || PyTuple_GET_SIZE(arg) != 2) {
        PyErr_Format(PyExc_TypeError, "%s: the context is (option, frames)", func);
        return 0;
    }
    for (int i = 0; i < 2; i++)
        if ((v[i] = PyLong_AsLong(PyTuple_GET_ITEM(arg, i))) == -1 && PyErr_Occurred())
            return 0;
    if (v[1] < 0) {
        PyErr_Format(PyExc_ValueError, "%s: the frame count %ld is negative", func, v[1]);
        return 0;
    }
    ctx->option[0] = v[0];
    ctx->channels = width;
    ctx->count = v[1];
    ctx->error_items = v[1] > 1 ? v[1] : 1;
    return 1;
}

static int euler_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    return series_context(func, arg, ctx, 3);
}

static int quat_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    return series_context(func, arg, ctx, 4);
}

/* One series per item: the Euler filter (3 channels) or quaternion
   continuity (4), its errors' frame index counted across the items. */
static ac_status series_loop(const acpy_context *ctx, const double *const *in,
                             const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    const size_t frames = (size_t)ctx->count, width = (size_t)ctx->channels * frames;
    for (size_t i = 0; i < n; i++) {
        const double *x = in[0] + steps[0] * i * width;
        ac_status st = ctx->channels == 3
                           ? ac_cleanup_euler_filter(x, (int)ctx->option[0], out[0] + i * width,
                                                     frames, err)
                           : ac_cleanup_quat_continuous(x, out[0] + i * width, frames, err);
        if (st) {
            err->index += i * (frames > 1 ? frames : 1);
            return st;
        }
    }
    return AC_OK;
}

static const acpy_kernel euler_filter = {
    "_euler_filter", "_euler_filter(func, (proper, frames), angles, out, workers)", 1, 1,
    {{"angles", ACPY_MC}}, {{"angles", ACPY_MC}}, series_loop, ACPY_SHARED, euler_context,
};
static const acpy_kernel quat_continuous = {
    "_quat_continuous", "_quat_continuous(func, (0, frames), q, out, workers)", 1, 1,
    {{"q", ACPY_MC}}, {{"q", ACPY_MC}}, series_loop, ACPY_SHARED, quat_context,
};

static const acpy_kernel *const kernels[] = {&euler_filter, &quat_continuous};

int acpy_cleanup_init(PyObject *module)
{
    return acpy_add_kernels(module, kernels, sizeof kernels / sizeof *kernels);
}

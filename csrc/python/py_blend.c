#include "binding.h"

/* Declared pose-blending kernels. Every operand's loop axes are (..., J): a
   joint pose is one item, so errors name the frame and the joint. The
   context is the additive mode (an int, ac_blend_scale_mode; 0 for blend_poses). */

#define POSE_ERRORS(a, b)                                                        \
    {                                                                            \
        {AC_ARG_A_TRANSLATION, ACPY_ITEMS, a ".translation", 0},                 \
        {AC_ARG_A_ROTATION, ACPY_ITEMS, a ".rotation", 0},                       \
        {AC_ARG_A_SCALE, ACPY_ITEMS, a ".scale", 0},                             \
        {AC_ARG_B_TRANSLATION, ACPY_ITEMS, b ".translation", 0},                 \
        {AC_ARG_B_ROTATION, ACPY_ITEMS, b ".rotation", 0},                       \
        {AC_ARG_B_SCALE, ACPY_ITEMS, b ".scale", 0},                             \
        {AC_ARG_WEIGHT, ACPY_ITEMS, "weight", 0},                                \
        {AC_ARG_MASK, ACPY_ITEMS, "mask", 0},                                    \
    }

static const acpy_arg_error blend_errors[] = POSE_ERRORS("a", "b");
static const acpy_arg_error make_errors[] = POSE_ERRORS("pose", "reference");
static const acpy_arg_error apply_errors[] = POSE_ERRORS("base", "delta");

static int mode_context(const char *func, PyObject *arg, acpy_context *ctx,
                        const acpy_arg_error *errors, size_t count)
{
    long mode = PyLong_AsLong(arg);
    if (mode == -1 && PyErr_Occurred())
        return 0;
    if (mode != AC_BLEND_SCALE_MULTIPLY && mode != AC_BLEND_SCALE_ADD &&
        mode != AC_BLEND_COMBINE) {
        PyErr_Format(PyExc_ValueError, "%s: additive mode %ld is not 0, 1 or 2", func, mode);
        return 0;
    }
    ctx->option[0] = mode;
    ctx->errors = errors;
    ctx->nerrors = count;
    return 1;
}

static int blend_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    return mode_context(func, arg, ctx, blend_errors, 8);
}
static int make_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    return mode_context(func, arg, ctx, make_errors, 8);
}
static int apply_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    return mode_context(func, arg, ctx, apply_errors, 8);
}

static ac_status blend_loop(const acpy_context *ctx, const double *const *in,
                            const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    (void)ctx;
    return ac_blend_poses(in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], steps, out[0],
                          out[1], out[2], n, err);
}

static ac_status make_loop(const acpy_context *ctx, const double *const *in,
                           const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    return ac_blend_make_additive(in[0], in[1], in[2], in[3], in[4], in[5], steps,
                                  (ac_blend_scale_mode)ctx->option[0], out[0], out[1], out[2],
                                  n, err);
}

static ac_status apply_loop(const acpy_context *ctx, const double *const *in,
                            const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    return ac_blend_apply_additive(in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], steps,
                                   (ac_blend_scale_mode)ctx->option[0], out[0], out[1], out[2],
                                   n, err);
}

#define POSE_IN(a, b) {a "_translation", 3}, {a "_rotation", 4}, {a "_scale", 3},              \
                      {b "_translation", 3}, {b "_rotation", 4}, {b "_scale", 3}
#define POSE_OUT {{"translation", 3}, {"rotation", 4}, {"scale", 3}}

static const acpy_kernel blend = {
    "_blend_poses",
    "_blend_poses(func, 0, at, ar, as, bt, br, bs, weight, mask, out, workers)", 8, 3,
    {POSE_IN("a", "b"), {"weight", 1}, {"mask", 1}}, POSE_OUT, blend_loop, ACPY_SHARED,
    blend_context,
};
static const acpy_kernel make = {
    "_blend_make_additive",
    "_blend_make_additive(func, mode, pt, pr, ps, rt, rr, rs, out, workers)", 6, 3,
    {POSE_IN("pose", "reference")}, POSE_OUT, make_loop, ACPY_SHARED, make_context,
};
static const acpy_kernel apply = {
    "_blend_apply_additive",
    "_blend_apply_additive(func, mode, bt, br, bs, dt, dr, ds, weight, mask, out, workers)", 8,
    3, {POSE_IN("base", "delta"), {"weight", 1}, {"mask", 1}}, POSE_OUT, apply_loop,
    ACPY_SHARED, apply_context,
};

static const acpy_kernel *const kernels[] = {&blend, &make, &apply};

int acpy_blend_init(PyObject *module)
{
    return acpy_add_kernels(module, kernels, sizeof kernels / sizeof kernels[0]);
}

/* Binding of the IK kernels: declared once, served by acpy_call. */
#include "binding.h"

#define U8(p) ((uint8_t *)(void *)(p))

static ac_status two_bone_loop(const acpy_context *ctx, const double *const *in,
                               const size_t *steps, double *const *out, size_t n,
                               ac_error *err)
{
    (void)ctx;
    return ac_ik_two_bone(in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], steps,
                          out[0], out[1], U8(out[2]), n, err);
}

/* Inputs: joint_world, forward, up, target, weight[, pole]. */
static ac_status aim_loop(const acpy_context *ctx, const double *const *in,
                          const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    const int pole = ctx->option[0] != 0;
    const size_t st[6] = {steps[0], steps[1], steps[2], steps[3], pole ? steps[5] : 0,
                          steps[4]};
    return ac_ik_aim(in[0], in[1], in[2], in[3], pole ? in[5] : NULL, in[4], st, out[0], n,
                     err);
}

static int aim_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    int pole = PyObject_IsTrue(arg);
    (void)func;
    if (pole < 0)
        return 0;
    ctx->option[0] = pole;
    return 1;
}

static const acpy_arg_error chain_errors[] = {
    {AC_ARG_METHOD, ACPY_NO_INDEX, NULL, 1},
    {AC_ARG_MAX_ITERATIONS, ACPY_NO_INDEX, NULL, 1},
    {AC_ARG_TOLERANCE, ACPY_NO_INDEX, NULL, 0},
    {AC_ARG_TARGET, ACPY_ITEMS, NULL, 0}, /* (positions and limits: the chain's joint) */
};

/* Context: (joints, method, max_iterations, tolerance, limited). */
static int chain_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    long v[3], limited;
    double tolerance;
    if (!PyTuple_Check(arg) || PyTuple_GET_SIZE(arg) != 5) {
        PyErr_Format(PyExc_TypeError,
                     "%s: the context is (joints, method, max_iterations, tolerance, limited)",
                     func);
        return 0;
    }
    for (int i = 0; i < 3; i++)
        if ((v[i] = PyLong_AsLong(PyTuple_GET_ITEM(arg, i))) == -1 && PyErr_Occurred())
            return 0;
    tolerance = PyFloat_AsDouble(PyTuple_GET_ITEM(arg, 3));
    if (tolerance == -1.0 && PyErr_Occurred())
        return 0;
    if ((limited = PyObject_IsTrue(PyTuple_GET_ITEM(arg, 4))) < 0)
        return 0;
    if (v[0] < 1 || v[2] > INT32_MAX || v[2] < INT32_MIN) {
        PyErr_Format(PyExc_ValueError, "%s: the context (%ld joints, %ld iterations) is out of "
                     "range", func, v[0], v[2]);
        return 0;
    }
    ctx->channels = 3;
    ctx->error_items = v[0];
    ctx->slots = v[0];
    ctx->option[0] = v[1];
    ctx->option[1] = v[2];
    ctx->value[0] = tolerance;
    ctx->value[1] = (double)limited;
    ctx->errors = chain_errors;
    ctx->nerrors = sizeof chain_errors / sizeof *chain_errors;
    ctx->work = (npy_intp)v[0] * (v[2] > 0 ? (npy_intp)v[2] : 1);
    return 1;
}

static ac_status chain_loop(const acpy_context *ctx, const double *const *in,
                            const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    const int limited = ctx->value[1] != 0.0;
    const size_t st[3] = {steps[0], steps[1], limited ? steps[2] : 0};
    return ac_ik_chain(in[0], in[1], limited ? in[2] : NULL, (size_t)ctx->slots,
                       (ac_ik_method)ctx->option[0], (int)ctx->option[1], ctx->value[0], st,
                       out[0], U8(out[1]), n, err);
}

static const acpy_kernel two_bone = {
    "_ik_two_bone",
    "_ik_two_bone(func, start, mid, end, target, pole, weight, soften, twist, out, workers)"
    " -> (rotation_start, rotation_mid, reached)",
    8, 3,
    {{"start", 3}, {"mid", 3}, {"end", 3}, {"target", 3}, {"pole", 3}, {"weight", 1},
     {"soften", 1}, {"twist", 1}},
    {{"rotation_start", 4}, {"rotation_mid", 4}, {"reached", ACPY_U8}},
    two_bone_loop, ACPY_SHARED, NULL,
};
static const acpy_kernel aim = {
    "_ik_aim", "_ik_aim(func, False, joint_world, forward, up, target, weight, out, workers)",
    5, 1,
    {{"joint_world", ACPY_4X4}, {"forward", 3}, {"up", 3}, {"target", 3}, {"weight", 1}},
    {{"rotation", 4}}, aim_loop, ACPY_SHARED, aim_context,
};
static const acpy_kernel aim_pole = {
    "_ik_aim_pole",
    "_ik_aim_pole(func, True, joint_world, forward, up, target, weight, pole, out, workers)",
    6, 1,
    {{"joint_world", ACPY_4X4}, {"forward", 3}, {"up", 3}, {"target", 3}, {"weight", 1},
     {"pole", 3}},
    {{"rotation", 4}}, aim_loop, ACPY_SHARED, aim_context,
};
static const acpy_kernel chain = {
    "_ik_chain",
    "_ik_chain(func, (joints, method, max_iterations, tolerance, False), positions, target,"
    " out, workers) -> (positions, converged)",
    2, 2, {{"positions", ACPY_KC}, {"target", 3}},
    {{"positions", ACPY_KC}, {"converged", ACPY_U8}}, chain_loop, ACPY_SHARED, chain_context,
};
static const acpy_kernel chain_limited = {
    "_ik_chain_limited",
    "_ik_chain_limited(func, (joints, method, max_iterations, tolerance, True), positions,"
    " target, limits, out, workers) -> (positions, converged)",
    3, 2, {{"positions", ACPY_KC}, {"target", 3}, {"limits", ACPY_K}},
    {{"positions", ACPY_KC}, {"converged", ACPY_U8}}, chain_loop, ACPY_SHARED, chain_context,
};

static const acpy_kernel *const kernels[] = {&two_bone, &aim, &aim_pole, &chain,
                                             &chain_limited};

int acpy_ik_init(PyObject *module)
{
    return acpy_add_kernels(module, kernels, sizeof kernels / sizeof kernels[0]);
}

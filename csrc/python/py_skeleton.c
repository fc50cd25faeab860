/* Binding of the skeleton kernels: a capsule owns the validated hierarchy. */
#include "binding.h"

#define SKELETON_CAPSULE "animcore.ac_skeleton"

static void skeleton_free(PyObject *capsule)
{
    ac_skeleton_destroy((ac_skeleton *)PyCapsule_GetPointer(capsule, SKELETON_CAPSULE));
}

static ac_skeleton *get_skeleton(PyObject *capsule)
{
    return (ac_skeleton *)PyCapsule_GetPointer(capsule, SKELETON_CAPSULE);
}

/* _skeleton_create(func, parents int64 (J,)) -> capsule */
static PyObject *skeleton_create(PyObject *self, PyObject *args)
{
    const char *func;
    PyArrayObject *parents;
    ac_skeleton *skeleton = NULL;
    npy_intp j;
    ac_error err;
    ac_status st;
    PyObject *capsule;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&:_skeleton_create", &func, acpy_i64, &parents))
        return NULL;
    j = PyArray_SIZE(parents);
    ACPY_RUN(j, st = ac_skeleton_create((const int64_t *)PyArray_DATA(parents), (size_t)j,
                                        &skeleton, NULL, &err));
    if (st)
        return acpy_raise(func, &err, 1, &j);
    capsule = PyCapsule_New(skeleton, SKELETON_CAPSULE, skeleton_free);
    if (!capsule)
        ac_skeleton_destroy(skeleton);
    return capsule;
}

/* _skeleton_order(capsule, out int64 (J,)) */
static PyObject *skeleton_order(PyObject *self, PyObject *args)
{
    PyObject *capsule;
    PyArrayObject *out;
    ac_skeleton *skeleton;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO&:_skeleton_order", &capsule, acpy_i64_out, &out))
        return NULL;
    if (!(skeleton = get_skeleton(capsule)))
        return NULL;
    if (PyArray_SIZE(out) != (npy_intp)ac_skeleton_joints(skeleton)) {
        PyErr_SetString(PyExc_ValueError, "_skeleton_order: out must hold one value per joint");
        return NULL;
    }
    ac_skeleton_order(skeleton, (int64_t *)PyArray_DATA(out));
    Py_RETURN_NONE;
}

/* ------------------------------------------------------- declared kernels
   Poses of a skeleton are items of J joints: the context is the skeleton's
   capsule, (C) is J, and an error's index names the pose and the joint. */

static int skeleton_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    const ac_skeleton *skeleton = get_skeleton(arg);
    (void)func;
    if (!skeleton)
        return 0;
    ctx->object = skeleton;
    ctx->channels = ctx->error_items = (npy_intp)ac_skeleton_joints(skeleton);
    return 1;
}

static ac_status world_loop(const acpy_context *ctx, const double *const *in,
                            const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    return ac_skeleton_world(ctx->object, in[0], in[1], in[2], steps, out[0], n, err);
}

static ac_status skin_loop(const acpy_context *ctx, const double *const *in,
                           const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    return ac_skeleton_skin(ctx->object, in[0], in[1], in[2], in[3], steps, out[0], n, err);
}

static ac_status local_loop(const acpy_context *ctx, const double *const *in,
                            const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    (void)steps;
    return ac_skeleton_local(ctx->object, in[0], out[0], n, err);
}

static ac_status decompose_loop(const acpy_context *ctx, const double *const *in,
                                const size_t *steps, double *const *out, size_t n,
                                ac_error *err)
{
    (void)ctx, (void)steps;
    return ac_skeleton_decompose(in[0], out[0], out[1], out[2], n, err);
}

static ac_status multiply_loop(const acpy_context *ctx, const double *const *in,
                               const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    (void)ctx;
    if (!out)
        return ac_skeleton_multiply_check(in[0], in[1], steps, n) ? AC_OK
                                                                       : acpy_unchecked(err);
    return ac_skeleton_multiply(in[0], in[1], steps, out[0], n, err);
}

static const acpy_kernel world = {
    "_skeleton_world",
    "_skeleton_world(func, skeleton, translation, rotation, scale, out, workers) -> world",
    3, 1, {{"translation", ACPY_C3}, {"rotation", ACPY_C4}, {"scale", ACPY_C3}},
    {{"world", ACPY_C4X4}}, world_loop, ACPY_SHARED, skeleton_context,
};
static const acpy_kernel skin = {
    "_skeleton_skin",
    "_skeleton_skin(func, skeleton, translation, rotation, scale, bind, out, workers) -> skin",
    4, 1,
    {{"translation", ACPY_C3}, {"rotation", ACPY_C4}, {"scale", ACPY_C3}, {"bind", ACPY_C4X4}},
    {{"skin", ACPY_C4X4}}, skin_loop, ACPY_SHARED, skeleton_context,
};
static const acpy_kernel local = {
    "_skeleton_local", "_skeleton_local(func, skeleton, world, out, workers) -> local", 1, 1,
    {{"world", ACPY_C4X4}}, {{"local", ACPY_C4X4}}, local_loop, 0, skeleton_context,
};
static const acpy_kernel decompose = {
    "_skeleton_decompose",
    "_skeleton_decompose(func, matrices, out, workers) -> (translation, rotation, scale)", 1, 3,
    {{"matrices", ACPY_4X4}}, {{"translation", 3}, {"rotation", 4}, {"scale", 3}},
    decompose_loop, 0, NULL,
};

static const acpy_kernel multiply = {
    "_skeleton_multiply", "_skeleton_multiply(func, a, b, out, workers) -> product", 2, 1,
    {{"a", ACPY_4X4}, {"b", ACPY_4X4}}, {{"product", ACPY_4X4}}, multiply_loop,
    ACPY_SHARED | ACPY_CHECKS | ACPY_IN_PLACE, NULL,
};

static const acpy_kernel *const kernels[] = {&world, &skin, &local, &decompose, &multiply};

static PyMethodDef methods[] = {
    {"_skeleton_create", skeleton_create, METH_VARARGS, "_skeleton_create(func, parents)"},
    {"_skeleton_order", skeleton_order, METH_VARARGS, "_skeleton_order(skeleton, out)"},
    {NULL, NULL, 0, NULL},
};

int acpy_skeleton_init(PyObject *module)
{
    if (acpy_add_kernels(module, kernels, sizeof kernels / sizeof kernels[0]) < 0)
        return -1;
    return PyModule_AddFunctions(module, methods);
}

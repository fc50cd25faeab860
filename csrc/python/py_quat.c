#include "binding.h"

/* Declared batch kernels: the loops adapt each C signature to acpy_loop;
   called without outputs (ACPY_CHECKS), they answer the kernel's check. */

#define BINARY_LOOP(name, kernel, check)                                         \
    static ac_status name(const acpy_context *ctx, const double *const *in,      \
                          const size_t *steps, double *const *out, size_t n,     \
                          ac_error *err)                                         \
    {                                                                            \
        (void)ctx;                                                               \
        if (!out)                                                                \
            return check(in[0], in[1], steps, n) ? AC_OK : acpy_unchecked(err);  \
        return kernel(in[0], in[1], steps, out[0], n, err);                      \
    }

#define UNARY_LOOP(name, kernel, check)                                          \
    static ac_status name(const acpy_context *ctx, const double *const *in,      \
                          const size_t *steps, double *const *out, size_t n,     \
                          ac_error *err)                                         \
    {                                                                            \
        (void)ctx, (void)steps;                                                  \
        if (!out)                                                                \
            return check(in[0], n) ? AC_OK : acpy_unchecked(err);                \
        return kernel(in[0], out[0], n, err);                                    \
    }

#define LERP_LOOP(name, kernel)                                                  \
    static ac_status name(const acpy_context *ctx, const double *const *in,      \
                          const size_t *steps, double *const *out, size_t n,     \
                          ac_error *err)                                         \
    {                                                                            \
        (void)ctx;                                                               \
        if (!out)                                                                \
            return ac_quat_batch_lerp_check(in[0], in[1], in[2], steps, n)       \
                       ? AC_OK                                                   \
                       : acpy_unchecked(err);                                    \
        return kernel(in[0], in[1], in[2], steps, out[0], n, err);               \
    }

BINARY_LOOP(multiply_loop, ac_quat_batch_multiply, ac_quat_batch_multiply_check)
BINARY_LOOP(from_axis_angle_loop, ac_quat_batch_from_axis_angle,
            ac_quat_batch_from_axis_angle_check)
BINARY_LOOP(rotate_loop, ac_quat_batch_rotate, ac_quat_batch_rotate_check)
UNARY_LOOP(conjugate_loop, ac_quat_batch_conjugate, ac_quat_batch_unit_check)
UNARY_LOOP(normalize_loop, ac_quat_batch_normalize, ac_quat_batch_unit_check)
LERP_LOOP(slerp_loop, ac_quat_batch_slerp)
LERP_LOOP(nlerp_loop, ac_quat_batch_nlerp)

static const acpy_kernel multiply = {
    "_quat_multiply", "_quat_multiply(func, a, b, out, workers)", 2, 1,
    {{"a", 4}, {"b", 4}}, {{"product", 4}}, multiply_loop,
    ACPY_SHARED | ACPY_CHECKS | ACPY_LONG_RUNS, NULL,
};
static const acpy_kernel conjugate = {
    "_quat_conjugate", "_quat_conjugate(func, q, out, workers)", 1, 1,
    {{"q", 4}}, {{"conjugate", 4}}, conjugate_loop, ACPY_CHECKS, NULL,
};
static const acpy_kernel normalize = {
    "_quat_normalize", "_quat_normalize(func, q, out, workers)", 1, 1,
    {{"q", 4}}, {{"unit", 4}}, normalize_loop, ACPY_CHECKS, NULL,
};
static const acpy_kernel from_axis_angle = {
    "_quat_from_axis_angle", "_quat_from_axis_angle(func, axis, angle, out, workers)", 2, 1,
    {{"axis", 3}, {"angle", 1}}, {{"rotation", 4}}, from_axis_angle_loop,
    ACPY_SHARED | ACPY_CHECKS, NULL,
};
static const acpy_kernel rotate = {
    "_quat_rotate", "_quat_rotate(func, q, v, out, workers)", 2, 1,
    {{"q", 4}, {"v", 3}}, {{"rotated", 3}}, rotate_loop, ACPY_SHARED | ACPY_CHECKS, NULL,
};
static const acpy_kernel slerp = {
    "_quat_slerp", "_quat_slerp(func, q0, q1, t, out, workers)", 3, 1,
    {{"q0", 4}, {"q1", 4}, {"t", 1}}, {{"rotation", 4}}, slerp_loop,
    ACPY_SHARED | ACPY_CHECKS, NULL,
};
static const acpy_kernel nlerp = {
    "_quat_nlerp", "_quat_nlerp(func, q0, q1, t, out, workers)", 3, 1,
    {{"q0", 4}, {"q1", 4}, {"t", 1}}, {{"rotation", 4}}, nlerp_loop,
    ACPY_SHARED | ACPY_CHECKS, NULL,
};

/* ------------------------------------------------------ rotation curves */

#define CURVE_CAPSULE "animcore.ac_quat_curve"

const ac_quat_curve *acpy_quat_curve_of(PyObject *capsule)
{
    return PyCapsule_IsValid(capsule, CURVE_CAPSULE)
               ? (const ac_quat_curve *)PyCapsule_GetPointer(capsule, CURVE_CAPSULE)
               : NULL;
}

/* The capsule's context: NULL, or the arrays the curve borrows (released
   with it). */
static void curve_free(PyObject *capsule)
{
    ac_quat_curve_destroy((ac_quat_curve *)PyCapsule_GetPointer(capsule, CURVE_CAPSULE));
    Py_XDECREF((PyObject *)PyCapsule_GetContext(capsule));
}

/* The arguments of _quat_curve_create and _quat_curve_validate. */
typedef struct curve_args {
    const char *func;
    PyArrayObject *times, *quats, *tin, *tout;
    int interp, before, after, borrow;
    npy_intp k;
} curve_args;

static int parse_curve_args(PyObject *args, const char *format, curve_args *a)
{
    a->borrow = 0;
    if (!PyArg_ParseTuple(args, format, &a->func, acpy_f64, &a->times, acpy_f64, &a->quats,
                          acpy_f64_or_none, &a->tin, acpy_f64_or_none, &a->tout, &a->interp,
                          &a->before, &a->after, &a->borrow))
        return 0;
    a->k = PyArray_SIZE(a->times);
    if (PyArray_SIZE(a->quats) != 4 * a->k || (a->tin && PyArray_SIZE(a->tin) != 4 * a->k) ||
        (a->tout && PyArray_SIZE(a->tout) != 4 * a->k)) {
        PyErr_Format(PyExc_ValueError, "%s: quaternions and tangents must hold 4 values per key",
                     a->func);
        return 0;
    }
    return 1;
}

/* _quat_curve_validate(func, times (K,), quats (K, 4), in_or_None,
   out_or_None, interp, before, after) -> None: ac_quat_curve_validate,
   raising the error _quat_curve_create would. */
static PyObject *quat_curve_validate(PyObject *self, PyObject *args)
{
    curve_args a;
    ac_error err;
    ac_status st;
    (void)self;
    if (!parse_curve_args(args, "sO&O&O&O&iii:_quat_curve_validate", &a))
        return NULL;
    ACPY_RUN(a.k, st = ac_quat_curve_validate(
                      ACPY_F64(a.times), ACPY_F64(a.quats), a.tin ? ACPY_F64(a.tin) : NULL,
                      a.tout ? ACPY_F64(a.tout) : NULL, (size_t)a.k,
                      (ac_curve_interpolation)a.interp, (ac_curve_extrapolation)a.before,
                      (ac_curve_extrapolation)a.after, &err));
    if (st)
        return acpy_raise(a.func, &err, 1, &a.k);
    Py_RETURN_NONE;
}

/* _quat_curve_create(func, times (K,), quats (K, 4), in_or_None, out_or_None,
   interp, before, after[, borrow]) -> capsule owning the C curve. With borrow
   true the curve reads times and quats in place (both read-only arrays,
   which the capsule keeps) instead of copying them. */
static PyObject *quat_curve_create(PyObject *self, PyObject *args)
{
    curve_args a;
    ac_quat_curve *curve = NULL;
    ac_error err;
    ac_status st;
    PyObject *capsule, *kept;
    (void)self;
    if (!parse_curve_args(args, "sO&O&O&O&iii|p:_quat_curve_create", &a))
        return NULL;
    if (a.borrow && (PyArray_ISWRITEABLE(a.times) || PyArray_ISWRITEABLE(a.quats))) {
        PyErr_Format(PyExc_ValueError, "%s: borrowed times and quaternions must be read-only",
                     a.func);
        return NULL;
    }
    ACPY_RUN(a.k, st = (a.borrow ? ac_quat_curve_borrow : ac_quat_curve_create)(
                      ACPY_F64(a.times), ACPY_F64(a.quats), a.tin ? ACPY_F64(a.tin) : NULL,
                      a.tout ? ACPY_F64(a.tout) : NULL, (size_t)a.k,
                      (ac_curve_interpolation)a.interp, (ac_curve_extrapolation)a.before,
                      (ac_curve_extrapolation)a.after, &curve, NULL, &err));
    if (st)
        return acpy_raise(a.func, &err, 1, &a.k);
    capsule = PyCapsule_New(curve, CURVE_CAPSULE, curve_free);
    if (!capsule) {
        ac_quat_curve_destroy(curve);
        return NULL;
    }
    if (a.borrow) {
        if (!(kept = Py_BuildValue("(OO)", a.times, a.quats)) ||
            PyCapsule_SetContext(capsule, kept) < 0) {
            Py_XDECREF(kept);
            Py_DECREF(capsule); /* (frees the curve, which has read nothing yet) */
            return NULL;
        }
    }
    return capsule;
}

/* Rotation-curve evaluation: the context is the curve's capsule, or a tuple
   (capsule, side) with side 0 (right) or 1 (left) of keys and cycle seams. */
static int curve_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    long side = 0;
    if (PyTuple_Check(arg)) {
        if (PyTuple_GET_SIZE(arg) != 2) {
            PyErr_Format(PyExc_TypeError, "%s: a rotation curve context is (curve, side)", func);
            return 0;
        }
        side = PyLong_AsLong(PyTuple_GET_ITEM(arg, 1));
        if (side == -1 && PyErr_Occurred())
            return 0;
        arg = PyTuple_GET_ITEM(arg, 0);
    }
    ctx->object = PyCapsule_GetPointer(arg, CURVE_CAPSULE);
    ctx->option[0] = side;
    return ctx->object != NULL;
}

static ac_status curve_rotation_loop(const acpy_context *ctx, const double *const *in,
                                     const size_t *steps, double *const *out, size_t n,
                                     ac_error *err)
{
    ac_curve_cursor cursor = {0};
    (void)steps;
    if (!out) /* ACPY_CHECKS */
        return ac_quat_curve_eval_check(ctx->object, in[0], n, (int)ctx->option[0], false)
                   ? AC_OK
                   : acpy_unchecked(err);
    return ac_quat_curve_eval(ctx->object, &cursor, in[0], n, (int)ctx->option[0], out[0], NULL,
                              err);
}

static ac_status curve_omega_loop(const acpy_context *ctx, const double *const *in,
                                  const size_t *steps, double *const *out, size_t n,
                                  ac_error *err)
{
    ac_curve_cursor cursor = {0};
    (void)steps;
    if (!out) /* ACPY_CHECKS */
        return ac_quat_curve_eval_check(ctx->object, in[0], n, (int)ctx->option[0], true)
                   ? AC_OK
                   : acpy_unchecked(err);
    return ac_quat_curve_eval(ctx->object, &cursor, in[0], n, (int)ctx->option[0], NULL, out[0],
                              err);
}

static const acpy_kernel curve_rotation = {
    "_quat_curve_rotation", "_quat_curve_rotation(func, curve, t, out, workers)", 1, 1,
    {{"t", 1}}, {{"rotation", 4}}, curve_rotation_loop, ACPY_CHECKS, curve_context,
};
static const acpy_kernel curve_omega = {
    "_quat_curve_omega", "_quat_curve_omega(func, curve, t, out, workers)", 1, 1,
    {{"t", 1}}, {{"angular_velocity", 3}}, curve_omega_loop, ACPY_CHECKS,
    curve_context,
};

static PyMethodDef methods[] = {
    {"_quat_curve_validate", quat_curve_validate, METH_VARARGS,
     "_quat_curve_validate(func, times, quats, in_tangents, out_tangents, interp, before, "
     "after) -> None"},
    {"_quat_curve_create", quat_curve_create, METH_VARARGS,
     "_quat_curve_create(func, times, quats, in_tangents, out_tangents, interp, before, "
     "after) -> capsule"},
    {NULL, NULL, 0, NULL},
};

/* ------------------------------------------------------- conversions */

UNARY_LOOP(to_matrix_loop, ac_quat_batch_to_matrix, ac_quat_batch_unit_check)
UNARY_LOOP(from_matrix_loop, ac_quat_batch_from_matrix, ac_quat_batch_from_matrix_check)
UNARY_LOOP(to_rotvec_loop, ac_quat_batch_to_rotvec, ac_quat_batch_unit_check)
UNARY_LOOP(from_rotvec_loop, ac_quat_batch_from_rotvec, ac_quat_batch_from_rotvec_check)

/* Euler sequences: the context is (axis0, axis1, axis2, extrinsic), axes
   0-2 packed in option[0], extrinsic in option[1]. */
static int euler_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    long v[4];
    if (!PyTuple_Check(arg) || PyTuple_GET_SIZE(arg) != 4) {
        PyErr_Format(PyExc_TypeError, "%s: the Euler context is (axis0, axis1, axis2, extrinsic)",
                     func);
        return 0;
    }
    for (int i = 0; i < 4; i++) {
        v[i] = PyLong_AsLong(PyTuple_GET_ITEM(arg, i));
        if (v[i] == -1 && PyErr_Occurred())
            return 0;
    }
    ctx->option[0] = v[0] | v[1] << 4 | v[2] << 8;
    ctx->option[1] = v[3] != 0;
    return 1;
}

static void euler_axes(const acpy_context *ctx, int axes[3])
{
    for (int i = 0; i < 3; i++)
        axes[i] = (int)(ctx->option[0] >> (4 * i) & 15);
}

static ac_status to_euler_loop(const acpy_context *ctx, const double *const *in,
                               const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    int axes[3];
    (void)steps;
    euler_axes(ctx, axes);
    if (!out) /* ACPY_CHECKS */
        return ac_quat_batch_to_euler_check(in[0], axes, n) ? AC_OK : acpy_unchecked(err);
    return ac_quat_batch_to_euler(in[0], axes, (int)ctx->option[1], out[0], n, err);
}

static ac_status from_euler_loop(const acpy_context *ctx, const double *const *in,
                                 const size_t *steps, double *const *out, size_t n,
                                 ac_error *err)
{
    int axes[3];
    (void)steps;
    euler_axes(ctx, axes);
    if (!out) /* ACPY_CHECKS */
        return ac_quat_batch_from_euler_check(in[0], axes, n) ? AC_OK : acpy_unchecked(err);
    return ac_quat_batch_from_euler(in[0], axes, (int)ctx->option[1], out[0], n, err);
}

static const acpy_kernel to_matrix = {
    "_quat_to_matrix", "_quat_to_matrix(func, q, out, workers) -> matrix", 1, 1,
    {{"q", 4}}, {{"matrix", ACPY_3X3}}, to_matrix_loop, ACPY_CHECKS, NULL,
};
static const acpy_kernel from_matrix = {
    "_quat_from_matrix", "_quat_from_matrix(func, matrix, out, workers) -> rotation", 1, 1,
    {{"matrix", ACPY_3X3}}, {{"rotation", 4}}, from_matrix_loop, ACPY_CHECKS, NULL,
};
static const acpy_kernel to_rotvec = {
    "_quat_to_rotvec", "_quat_to_rotvec(func, q, out, workers) -> rotvec", 1, 1,
    {{"q", 4}}, {{"rotvec", 3}}, to_rotvec_loop, ACPY_CHECKS, NULL,
};
static const acpy_kernel from_rotvec = {
    "_quat_from_rotvec", "_quat_from_rotvec(func, rotvec, out, workers) -> rotation", 1, 1,
    {{"rotvec", 3}}, {{"rotation", 4}}, from_rotvec_loop, ACPY_CHECKS, NULL,
};
static const acpy_kernel to_euler = {
    "_quat_to_euler",
    "_quat_to_euler(func, (axis0, axis1, axis2, extrinsic), q, out, workers) -> angles", 1, 1,
    {{"q", 4}}, {{"angles", ACPY_ANGLES}}, to_euler_loop, ACPY_CHECKS, euler_context,
};
static const acpy_kernel from_euler = {
    "_quat_from_euler",
    "_quat_from_euler(func, (axis0, axis1, axis2, extrinsic), angles, out, workers) -> rotation",
    1, 1, {{"angles", ACPY_ANGLES}}, {{"rotation", 4}}, from_euler_loop, ACPY_CHECKS,
    euler_context,
};

static const acpy_kernel *const kernels[] = {
    &multiply, &conjugate, &normalize, &from_axis_angle, &rotate, &slerp, &nlerp,
    &curve_rotation, &curve_omega, &to_matrix, &from_matrix, &to_rotvec, &from_rotvec,
    &to_euler, &from_euler,
};

int acpy_quat_init(PyObject *module)
{
    if (acpy_add_kernels(module, kernels, sizeof kernels / sizeof kernels[0]) < 0)
        return -1;
    return PyModule_AddFunctions(module, methods);
}

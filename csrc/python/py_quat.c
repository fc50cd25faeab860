#include "binding.h"

/* Items of the output: its size over `width`, which must divide it. */
static int out_items(const char *func, PyArrayObject *out, npy_intp width, npy_intp *n)
{
    int nd = PyArray_NDIM(out);
    if (nd < 1 || PyArray_DIMS(out)[nd - 1] != width) {
        PyErr_Format(PyExc_ValueError, "%s: the output's last axis must have %zd values", func,
                     width);
        return -1;
    }
    *n = PyArray_SIZE(out) / width;
    return 0;
}

#define RAISE_LEAD(func, err, out)                                              \
    acpy_raise(func, err, PyArray_NDIM(out) - 1, PyArray_DIMS(out))

typedef ac_status (*binary_fn)(const double *, const double *, const size_t[2], double *,
                               size_t, ac_error *);

/* func(a (wa), b (wb)) -> out (wo): multiply, from_axis_angle, rotate. */
static PyObject *binary(PyObject *args, const char *fmt, const char *na, npy_intp wa,
                        const char *nb, npy_intp wb, npy_intp wo, binary_fn kernel)
{
    const char *func;
    PyArrayObject *a, *b, *out;
    size_t steps[2];
    npy_intp n;
    ac_error err;
    ac_status st;
    if (!PyArg_ParseTuple(args, fmt, &func, acpy_f64, &a, acpy_f64, &b, acpy_f64_out, &out))
        return NULL;
    if (out_items(func, out, wo, &n) < 0 || acpy_item_step(func, na, a, n, wa, &steps[0]) < 0 ||
        acpy_item_step(func, nb, b, n, wb, &steps[1]) < 0)
        return NULL;
    ACPY_RUN(n, st = kernel(ACPY_F64(a), ACPY_F64(b), steps, ACPY_F64(out), (size_t)n, &err));
    if (st)
        return RAISE_LEAD(func, &err, out);
    Py_RETURN_NONE;
}

static PyObject *quat_multiply(PyObject *self, PyObject *args)
{
    (void)self;
    return binary(args, "sO&O&O&:_quat_multiply", "a", 4, "b", 4, 4, ac_quat_batch_multiply);
}

static PyObject *quat_from_axis_angle(PyObject *self, PyObject *args)
{
    (void)self;
    return binary(args, "sO&O&O&:_quat_from_axis_angle", "axis", 3, "angle", 1, 4,
                  ac_quat_batch_from_axis_angle);
}

static PyObject *quat_rotate(PyObject *self, PyObject *args)
{
    (void)self;
    return binary(args, "sO&O&O&:_quat_rotate", "q", 4, "v", 3, 3, ac_quat_batch_rotate);
}

typedef ac_status (*unary_fn)(const double *, double *, size_t, ac_error *);

static PyObject *unary(PyObject *args, const char *fmt, unary_fn kernel)
{
    const char *func;
    PyArrayObject *q, *out;
    npy_intp n;
    ac_error err;
    ac_status st;
    if (!PyArg_ParseTuple(args, fmt, &func, acpy_f64, &q, acpy_f64_out, &out))
        return NULL;
    if (out_items(func, out, 4, &n) < 0)
        return NULL;
    if (PyArray_SIZE(q) != PyArray_SIZE(out)) {
        PyErr_Format(PyExc_ValueError, "%s: q does not have the size of the result", func);
        return NULL;
    }
    ACPY_RUN(n, st = kernel(ACPY_F64(q), ACPY_F64(out), (size_t)n, &err));
    if (st)
        return RAISE_LEAD(func, &err, out);
    Py_RETURN_NONE;
}

static PyObject *quat_conjugate(PyObject *self, PyObject *args)
{
    (void)self;
    return unary(args, "sO&O&:_quat_conjugate", ac_quat_batch_conjugate);
}

static PyObject *quat_normalize(PyObject *self, PyObject *args)
{
    (void)self;
    return unary(args, "sO&O&:_quat_normalize", ac_quat_batch_normalize);
}

typedef ac_status (*lerp_fn)(const double *, const double *, const double *, const size_t[3],
                             double *, size_t, ac_error *);

static PyObject *lerp(PyObject *args, const char *fmt, lerp_fn kernel)
{
    const char *func;
    PyArrayObject *q0, *q1, *t, *out;
    size_t steps[3];
    npy_intp n;
    ac_error err;
    ac_status st;
    if (!PyArg_ParseTuple(args, fmt, &func, acpy_f64, &q0, acpy_f64, &q1, acpy_f64, &t,
                          acpy_f64_out, &out))
        return NULL;
    if (out_items(func, out, 4, &n) < 0 || acpy_item_step(func, "q0", q0, n, 4, &steps[0]) < 0 ||
        acpy_item_step(func, "q1", q1, n, 4, &steps[1]) < 0 ||
        acpy_item_step(func, "t", t, n, 1, &steps[2]) < 0)
        return NULL;
    ACPY_RUN(n, st = kernel(ACPY_F64(q0), ACPY_F64(q1), ACPY_F64(t), steps, ACPY_F64(out),
                            (size_t)n, &err));
    if (st)
        return RAISE_LEAD(func, &err, out);
    Py_RETURN_NONE;
}

static PyObject *quat_slerp(PyObject *self, PyObject *args)
{
    (void)self;
    return lerp(args, "sO&O&O&O&:_quat_slerp", ac_quat_batch_slerp);
}

static PyObject *quat_nlerp(PyObject *self, PyObject *args)
{
    (void)self;
    return lerp(args, "sO&O&O&O&:_quat_nlerp", ac_quat_batch_nlerp);
}

/* ------------------------------------------------------ rotation curves */

#define CURVE_CAPSULE "animcore.ac_quat_curve"

static void curve_free(PyObject *capsule)
{
    ac_quat_curve_destroy((ac_quat_curve *)PyCapsule_GetPointer(capsule, CURVE_CAPSULE));
}

/* _quat_curve_create(func, times (K,), quats (K, 4), in_or_None, out_or_None,
   interp, before, after) -> capsule owning the C curve. */
static PyObject *quat_curve_create(PyObject *self, PyObject *args)
{
    const char *func;
    PyArrayObject *times, *quats, *tin, *tout;
    int interp, before, after;
    ac_quat_curve *curve = NULL;
    npy_intp k;
    ac_error err;
    ac_status st;
    PyObject *capsule;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&O&O&iii:_quat_curve_create", &func, acpy_f64, &times,
                          acpy_f64, &quats, acpy_f64_or_none, &tin, acpy_f64_or_none,
                          &tout, &interp, &before, &after))
        return NULL;
    k = PyArray_SIZE(times);
    if (PyArray_SIZE(quats) != 4 * k || (tin && PyArray_SIZE(tin) != 4 * k) ||
        (tout && PyArray_SIZE(tout) != 4 * k)) {
        PyErr_Format(PyExc_ValueError, "%s: quaternions and tangents must hold 4 values per key",
                     func);
        return NULL;
    }
    ACPY_RUN(k, st = ac_quat_curve_create(ACPY_F64(times), ACPY_F64(quats),
                                          tin ? ACPY_F64(tin) : NULL,
                                          tout ? ACPY_F64(tout) : NULL, (size_t)k,
                                          (ac_quat_interp)interp, (ac_quat_extrap)before,
                                          (ac_quat_extrap)after, &curve, &err));
    if (st)
        return acpy_raise(func, &err, 1, &k);
    capsule = PyCapsule_New(curve, CURVE_CAPSULE, curve_free);
    if (!capsule)
        ac_quat_curve_destroy(curve);
    return capsule;
}

/* _quat_curve_eval(func, capsule, t, q_or_None, omega_or_None) */
static PyObject *quat_curve_eval(PyObject *self, PyObject *args)
{
    const char *func;
    PyObject *capsule;
    PyArrayObject *t, *q, *omega;
    ac_quat_curve *curve;
    npy_intp n;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sOO&O&O&:_quat_curve_eval", &func, &capsule, acpy_f64, &t,
                          acpy_f64_out_or_none, &q, acpy_f64_out_or_none, &omega))
        return NULL;
    curve = (ac_quat_curve *)PyCapsule_GetPointer(capsule, CURVE_CAPSULE);
    if (!curve)
        return NULL;
    n = PyArray_SIZE(t);
    if ((q && PyArray_SIZE(q) != 4 * n) || (omega && PyArray_SIZE(omega) != 3 * n)) {
        PyErr_Format(PyExc_ValueError, "%s: outputs must hold 4 and 3 values per time", func);
        return NULL;
    }
    ACPY_RUN(n, st = ac_quat_curve_eval(curve, ACPY_F64(t), (size_t)n, NULL,
                                        q ? ACPY_F64(q) : NULL, omega ? ACPY_F64(omega) : NULL,
                                        &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(t), PyArray_DIMS(t));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"_quat_multiply", quat_multiply, METH_VARARGS, "_quat_multiply(func, a, b, out)"},
    {"_quat_conjugate", quat_conjugate, METH_VARARGS, "_quat_conjugate(func, q, out)"},
    {"_quat_normalize", quat_normalize, METH_VARARGS, "_quat_normalize(func, q, out)"},
    {"_quat_from_axis_angle", quat_from_axis_angle, METH_VARARGS,
     "_quat_from_axis_angle(func, axis, angle, out)"},
    {"_quat_rotate", quat_rotate, METH_VARARGS, "_quat_rotate(func, q, v, out)"},
    {"_quat_slerp", quat_slerp, METH_VARARGS, "_quat_slerp(func, q0, q1, t, out)"},
    {"_quat_nlerp", quat_nlerp, METH_VARARGS, "_quat_nlerp(func, q0, q1, t, out)"},
    {"_quat_curve_create", quat_curve_create, METH_VARARGS,
     "_quat_curve_create(func, times, quats, in_tangents, out_tangents, interp, before, "
     "after) -> capsule"},
    {"_quat_curve_eval", quat_curve_eval, METH_VARARGS,
     "_quat_curve_eval(func, curve, t, q_or_None, omega_or_None)"},
    {NULL, NULL, 0, NULL},
};

/* ------------------------------------------------------- conversions */

typedef ac_status (*convert_fn)(const double *, double *, size_t, ac_error *);

/* func(x (n items of win values)) -> out (n items of wout values); errors are
   indexed over the leading axes of out, which has `trail` item axes. */
static PyObject *convert(PyObject *args, const char *fmt, npy_intp win, npy_intp wout,
                         int trail, convert_fn kernel)
{
    const char *func;
    PyArrayObject *x, *out;
    npy_intp n;
    ac_error err;
    ac_status st;
    if (!PyArg_ParseTuple(args, fmt, &func, acpy_f64, &x, acpy_f64_out, &out))
        return NULL;
    n = PyArray_SIZE(out) / wout;
    if (PyArray_NDIM(out) < trail || PyArray_SIZE(x) != n * win) {
        PyErr_Format(PyExc_ValueError, "%s: input and output sizes do not match", func);
        return NULL;
    }
    ACPY_RUN(n, st = kernel(ACPY_F64(x), ACPY_F64(out), (size_t)n, &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(out) - trail, PyArray_DIMS(out));
    Py_RETURN_NONE;
}

static PyObject *quat_to_matrix(PyObject *self, PyObject *args)
{
    (void)self;
    return convert(args, "sO&O&:_quat_to_matrix", 4, 9, 2, ac_quat_batch_to_matrix);
}

static PyObject *quat_from_matrix(PyObject *self, PyObject *args)
{
    (void)self;
    return convert(args, "sO&O&:_quat_from_matrix", 9, 4, 1, ac_quat_batch_from_matrix);
}

static PyObject *quat_to_rotvec(PyObject *self, PyObject *args)
{
    (void)self;
    return convert(args, "sO&O&:_quat_to_rotvec", 4, 3, 1, ac_quat_batch_to_rotvec);
}

static PyObject *quat_from_rotvec(PyObject *self, PyObject *args)
{
    (void)self;
    return convert(args, "sO&O&:_quat_from_rotvec", 3, 4, 1, ac_quat_batch_from_rotvec);
}

/* _quat_euler(func, x, out, a0, a1, a2, extrinsic, to_euler) */
static PyObject *quat_euler(PyObject *self, PyObject *args)
{
    const char *func;
    PyArrayObject *x, *out;
    int axes[3], extrinsic, to_euler;
    npy_intp n, win, wout;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&iiipp:_quat_euler", &func, acpy_f64, &x, acpy_f64_out,
                          &out, &axes[0], &axes[1], &axes[2], &extrinsic, &to_euler))
        return NULL;
    win = to_euler ? 4 : 3, wout = to_euler ? 3 : 4;
    n = PyArray_SIZE(out) / wout;
    if (PyArray_NDIM(out) < 1 || PyArray_SIZE(x) != n * win) {
        PyErr_Format(PyExc_ValueError, "%s: input and output sizes do not match", func);
        return NULL;
    }
    if (to_euler)
        ACPY_RUN(n, st = ac_quat_batch_to_euler(ACPY_F64(x), axes, extrinsic, ACPY_F64(out),
                                                (size_t)n, &err));
    else
        ACPY_RUN(n, st = ac_quat_batch_from_euler(ACPY_F64(x), axes, extrinsic, ACPY_F64(out),
                                                  (size_t)n, &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(out) - 1, PyArray_DIMS(out));
    Py_RETURN_NONE;
}

static PyMethodDef convert_methods[] = {
    {"_quat_to_matrix", quat_to_matrix, METH_VARARGS, "_quat_to_matrix(func, q, out)"},
    {"_quat_from_matrix", quat_from_matrix, METH_VARARGS, "_quat_from_matrix(func, m, out)"},
    {"_quat_to_rotvec", quat_to_rotvec, METH_VARARGS, "_quat_to_rotvec(func, q, out)"},
    {"_quat_from_rotvec", quat_from_rotvec, METH_VARARGS, "_quat_from_rotvec(func, v, out)"},
    {"_quat_euler", quat_euler, METH_VARARGS,
     "_quat_euler(func, x, out, axis0, axis1, axis2, extrinsic, to_euler)"},
    {NULL, NULL, 0, NULL},
};

int acpy_quat_init(PyObject *module)
{
    if (PyModule_AddFunctions(module, convert_methods) < 0)
        return -1;
    return PyModule_AddFunctions(module, methods);
}

#include "binding.h"

static PyObject *hermite_eval(PyObject *self, PyObject *args)
{
    static const char *const names[6] = {"start",        "end",      "start_velocity",
                                         "end_velocity", "duration", "elapsed"};
    const char *func;
    PyArrayObject *in[6], *position, *velocity;
    size_t steps[6];
    npy_intp n;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&O&O&O&O&O&O&:_hermite_eval", &func, acpy_f64, &in[0],
                          acpy_f64, &in[1], acpy_f64, &in[2], acpy_f64, &in[3], acpy_f64,
                          &in[4], acpy_f64, &in[5], acpy_f64_out, &position,
                          acpy_f64_out_or_none, &velocity))
        return NULL;
    n = PyArray_SIZE(position);
    if (velocity && !acpy_same_shape(func, "velocity", velocity, position))
        return NULL;
    for (int k = 0; k < 6; k++)
        if (acpy_step(func, names[k], in[k], n, &steps[k]) < 0)
            return NULL;
    ACPY_RUN(n, st = ac_hermite_eval(ACPY_F64(in[0]), ACPY_F64(in[1]), ACPY_F64(in[2]),
                                     ACPY_F64(in[3]), ACPY_F64(in[4]), ACPY_F64(in[5]),
                                     steps, ACPY_F64(position),
                                     velocity ? ACPY_F64(velocity) : NULL, (size_t)n,
                                     &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(position), PyArray_DIMS(position));
    Py_RETURN_NONE;
}

/* Shared by velocity_to_tangent and tangent_to_velocity. */
typedef ac_status (*convert_fn)(const double *, const double *, const size_t[2], double *,
                                size_t, ac_error *);

static PyObject *convert(PyObject *args, const char *func, const char *arg,
                         convert_fn kernel)
{
    PyArrayObject *x, *duration, *result;
    size_t steps[2];
    npy_intp n;
    ac_error err;
    ac_status st;
    if (!PyArg_ParseTuple(args, "O&O&O&", acpy_f64, &x, acpy_f64, &duration, acpy_f64_out,
                          &result))
        return NULL;
    n = PyArray_SIZE(result);
    if (acpy_step(func, arg, x, n, &steps[0]) < 0 ||
        acpy_step(func, "duration", duration, n, &steps[1]) < 0)
        return NULL;
    ACPY_RUN(n, st = kernel(ACPY_F64(x), ACPY_F64(duration), steps, ACPY_F64(result),
                            (size_t)n, &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(result), PyArray_DIMS(result));
    Py_RETURN_NONE;
}

static PyObject *velocity_to_tangent(PyObject *self, PyObject *args)
{
    (void)self;
    return convert(args, "velocity_to_tangent", "velocity", ac_hermite_velocity_to_tangent);
}

static PyObject *tangent_to_velocity(PyObject *self, PyObject *args)
{
    (void)self;
    return convert(args, "tangent_to_velocity", "tangent", ac_hermite_tangent_to_velocity);
}

static PyObject *hermite_init(PyObject *self, PyObject *args)
{
    double start, end, v0, v1, duration;
    ac_hermite seg;
    ac_error err;
    (void)self;
    if (!PyArg_ParseTuple(args, "ddddd:_hermite_init", &start, &end, &v0, &v1, &duration))
        return NULL;
    if (ac_hermite_init(&seg, start, end, v0, v1, duration, &err))
        return acpy_raise("HermiteSegment", &err, 0, NULL);
    return Py_BuildValue("dd", seg.start_tangent, seg.end_tangent);
}

static PyMethodDef methods[] = {
    {"_hermite_eval", hermite_eval, METH_VARARGS,
     "_hermite_eval(func, start, end, start_velocity, end_velocity, duration, elapsed, "
     "position, velocity_or_None); func names the caller in error messages"},
    {"_velocity_to_tangent", velocity_to_tangent, METH_VARARGS,
     "_velocity_to_tangent(velocity, duration, tangent)"},
    {"_tangent_to_velocity", tangent_to_velocity, METH_VARARGS,
     "_tangent_to_velocity(tangent, duration, velocity)"},
    {"_hermite_init", hermite_init, METH_VARARGS,
     "_hermite_init(start, end, start_velocity, end_velocity, duration) -> tangents"},
    {NULL, NULL, 0, NULL},
};

int acpy_hermite_init(PyObject *module)
{
    return PyModule_AddFunctions(module, methods);
}

#include "binding.h"

#define CAPSULE_NAME "animcore.ac_curve"

/* The curve of a capsule made by _curve_create; NULL with an exception if
   `capsule` is anything else. */
static ac_curve *get_curve(PyObject *capsule)
{
    return (ac_curve *)PyCapsule_GetPointer(capsule, CAPSULE_NAME);
}

static void capsule_destroy(PyObject *capsule)
{
    ac_curve_destroy(get_curve(capsule));
}

/* _curve_create(func, times, values, interpolation, tangents, in_velocities,
   out_velocities, before, after, jumps) -> capsule. values is (K,) or (K, C);
   the velocities are None or arrays of the shape of values. */
static PyObject *curve_create(PyObject *self, PyObject *args)
{
    const char *func;
    PyArrayObject *times, *values, *vin = NULL, *vout = NULL;
    int interp, tangents, before, after, jumps;
    ac_curve_spec spec;
    ac_curve *curve = NULL;
    ac_error err;
    ac_status st;
    PyObject *capsule;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&iiO&O&iip:_curve_create", &func, acpy_f64, &times,
                          acpy_f64, &values, &interp, &tangents, acpy_f64_or_none, &vin,
                          acpy_f64_or_none, &vout, &before, &after, &jumps))
        return NULL;
    if (PyArray_NDIM(times) != 1 || PyArray_NDIM(values) < 1 || PyArray_NDIM(values) > 2 ||
        PyArray_DIM(values, 0) != PyArray_DIM(times, 0)) {
        PyErr_Format(PyExc_ValueError, "%s: times must be (K,) and values (K,) or (K, C)",
                     func);
        return NULL;
    }
    if ((vin && !acpy_same_shape(func, "in_velocities", vin, values)) ||
        (vout && !acpy_same_shape(func, "out_velocities", vout, values)))
        return NULL;
    memset(&spec, 0, sizeof spec);
    spec.keys = (size_t)PyArray_DIM(times, 0);
    spec.channels = PyArray_NDIM(values) == 2 ? (size_t)PyArray_DIM(values, 1) : 1;
    spec.times = ACPY_F64(times);
    spec.values = ACPY_F64(values);
    spec.interpolation = (ac_curve_interpolation)interp;
    spec.tangents = (ac_curve_tangents)tangents;
    spec.in_velocities = vin ? ACPY_F64(vin) : NULL;
    spec.out_velocities = vout ? ACPY_F64(vout) : NULL;
    spec.before = (ac_curve_extrapolation)before;
    spec.after = (ac_curve_extrapolation)after;
    spec.jumps = jumps;
    ACPY_RUN(spec.keys * spec.channels, st = ac_curve_create(&curve, &spec, &err));
    if (st) {
        PyArrayObject *shape_of = strcmp(err.arg, "times") == 0 ? times : values;
        return acpy_raise(func, &err, PyArray_NDIM(shape_of), PyArray_DIMS(shape_of));
    }
    capsule = PyCapsule_New(curve, CAPSULE_NAME, capsule_destroy);
    if (!capsule)
        ac_curve_destroy(curve);
    return capsule;
}

/* _curve_eval(func, capsule, t, derivative, out): t any shape, out holds
   t.size * C values. Error indices are unravelled over t's shape. */
static PyObject *curve_eval(PyObject *self, PyObject *args)
{
    const char *func;
    PyObject *capsule;
    PyArrayObject *t, *out;
    int derivative;
    ac_curve *curve;
    ac_error err;
    ac_status st;
    npy_intp n;
    (void)self;
    if (!PyArg_ParseTuple(args, "sOO&iO&:_curve_eval", &func, &capsule, acpy_f64, &t,
                          &derivative, acpy_f64_out, &out))
        return NULL;
    if (!(curve = get_curve(capsule)))
        return NULL;
    n = PyArray_SIZE(t);
    if ((size_t)PyArray_SIZE(out) != (size_t)n * ac_curve_channels(curve)) {
        PyErr_Format(PyExc_ValueError, "%s: out has the wrong size", func);
        return NULL;
    }
    ACPY_RUN((size_t)n * ac_curve_channels(curve),
             st = ac_curve_eval(curve, ACPY_F64(t), (size_t)n, derivative, ACPY_F64(out),
                                &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(t), PyArray_DIMS(t));
    Py_RETURN_NONE;
}

/* _curve_key_velocities(capsule, in_velocities, out_velocities): fills both. */
static PyObject *curve_key_velocities(PyObject *self, PyObject *args)
{
    PyObject *capsule;
    PyArrayObject *vin, *vout;
    ac_curve *curve;
    size_t kc;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO&O&:_curve_key_velocities", &capsule, acpy_f64_out,
                          &vin, acpy_f64_out, &vout))
        return NULL;
    if (!(curve = get_curve(capsule)))
        return NULL;
    kc = ac_curve_keys(curve) * ac_curve_channels(curve);
    if ((size_t)PyArray_SIZE(vin) != kc || (size_t)PyArray_SIZE(vout) != kc) {
        PyErr_SetString(PyExc_ValueError, "_curve_key_velocities: wrong output size");
        return NULL;
    }
    ac_curve_key_velocities(curve, ACPY_F64(vin), ACPY_F64(vout));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"_curve_create", curve_create, METH_VARARGS,
     "_curve_create(func, times, values, interpolation, tangents, in_velocities, "
     "out_velocities, before, after, jumps) -> capsule owning an ac_curve"},
    {"_curve_eval", curve_eval, METH_VARARGS,
     "_curve_eval(func, curve, t, derivative, out); func names the caller in errors"},
    {"_curve_key_velocities", curve_key_velocities, METH_VARARGS,
     "_curve_key_velocities(curve, in_velocities, out_velocities)"},
    {NULL, NULL, 0, NULL},
};

int acpy_curve_init(PyObject *module)
{
    return PyModule_AddFunctions(module, methods);
}

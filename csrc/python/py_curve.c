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
    /* 1-D values give results without a channel axis. */
    else if (PyArray_NDIM(values) == 1 && PyCapsule_SetContext(capsule, capsule) < 0)
        Py_CLEAR(capsule);
    return capsule;
}

/* Curve evaluation: the context is the curve's capsule. */
static int curve_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    (void)func;
    if (!(ctx->object = get_curve(arg)))
        return 0;
    ctx->channels = (npy_intp)ac_curve_channels(ctx->object);
    ctx->bare = PyCapsule_GetContext(arg) != NULL;
    return 1;
}

#define DERIVATIVE_LOOP(name, order)                                             \
    static ac_status name(const acpy_context *ctx, const double *const *in,      \
                          const size_t *steps, double *const *out, size_t n,     \
                          ac_error *err)                                         \
    {                                                                            \
        (void)steps;                                                             \
        return ac_curve_eval(ctx->object, in[0], n, order, out[0], err);         \
    }

DERIVATIVE_LOOP(value_loop, 0)
DERIVATIVE_LOOP(velocity_loop, 1)
DERIVATIVE_LOOP(acceleration_loop, 2)

static ac_status sample_loop(const acpy_context *ctx, const double *const *in,
                             const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    ac_status st = ac_curve_eval(ctx->object, in[0], n, 0, out[0], err);
    (void)steps;
    return st ? st : ac_curve_eval(ctx->object, in[0], n, 1, out[1], err);
}

static const acpy_kernel curve_value = {
    "_curve_value", "_curve_value(func, curve, t, out, workers) -> value", 1, 1,
    {{"t", 1}}, {{"value", ACPY_CHANNELS}}, value_loop, 0, curve_context,
};
static const acpy_kernel curve_velocity = {
    "_curve_velocity", "_curve_velocity(func, curve, t, out, workers) -> velocity", 1, 1,
    {{"t", 1}}, {{"velocity", ACPY_CHANNELS}}, velocity_loop, 0, curve_context,
};
static const acpy_kernel curve_acceleration = {
    "_curve_acceleration", "_curve_acceleration(func, curve, t, out, workers)", 1, 1,
    {{"t", 1}}, {{"acceleration", ACPY_CHANNELS}}, acceleration_loop, 0, curve_context,
};
static const acpy_kernel curve_sample = {
    "_curve_sample", "_curve_sample(func, curve, t, out, workers) -> (value, velocity)", 1, 2,
    {{"t", 1}}, {{"value", ACPY_CHANNELS}, {"velocity", ACPY_CHANNELS}}, sample_loop, 0,
    curve_context,
};

static const acpy_kernel *const kernels[] = {&curve_value, &curve_velocity,
                                             &curve_acceleration, &curve_sample};

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
    {"_curve_key_velocities", curve_key_velocities, METH_VARARGS,
     "_curve_key_velocities(curve, in_velocities, out_velocities)"},
    {NULL, NULL, 0, NULL},
};

int acpy_curve_init(PyObject *module)
{
    if (acpy_add_kernels(module, kernels, sizeof kernels / sizeof kernels[0]) < 0)
        return -1;
    return PyModule_AddFunctions(module, methods);
}

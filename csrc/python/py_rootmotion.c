#include "binding.h"

#define CAPSULE_NAME "animcore._core.looptrack"

static void capsule_destroy(PyObject *capsule)
{
    ac_rootmotion_destroy((ac_looptrack *)PyCapsule_GetPointer(capsule, CAPSULE_NAME));
}

static int track_converter(PyObject *obj, void *result)
{
    ac_looptrack *tr = (ac_looptrack *)PyCapsule_GetPointer(obj, CAPSULE_NAME);
    if (!tr)
        return 0;
    *(ac_looptrack **)result = tr;
    return 1;
}

static size_t rotation_size(const ac_looptrack *tr)
{
    switch (ac_rootmotion_rotation(tr)) {
    case AC_ROOT_YAW: return 1;
    case AC_ROOT_QUAT: return 4;
    default: return 0;
    }
}

/* The rotation output must be given exactly for turning tracks. */
static int check_rotation(const char *func, const ac_looptrack *tr, PyArrayObject *rotation,
                          npy_intp n)
{
    size_t rs = rotation_size(tr);
    if (rs && (!rotation || PyArray_SIZE(rotation) != n * (npy_intp)rs)) {
        PyErr_Format(PyExc_ValueError, "%s: rotation output must hold %zd values", func,
                     n * (npy_intp)rs);
        return 0;
    }
    if (!rs && rotation) {
        PyErr_Format(PyExc_ValueError, "%s: this track has no rotations", func);
        return 0;
    }
    return 1;
}

static PyObject *create(PyObject *self, PyObject *args)
{
    const char *func;
    PyArrayObject *times, *positions, *rotations;
    int interpolation, kind, up_axis;
    double max_cycles;
    npy_intp k, channels;
    ac_looptrack *tr = NULL;
    ac_error err;
    ac_status st;
    PyObject *capsule;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&iiO&id:_rootmotion_create", &func, acpy_f64, &times,
                          acpy_f64, &positions, &interpolation, &kind, acpy_f64_or_none,
                          &rotations, &up_axis, &max_cycles))
        return NULL;
    k = PyArray_SIZE(times);
    if (PyArray_NDIM(times) != 1 || PyArray_NDIM(positions) < 1 ||
        PyArray_NDIM(positions) > 2 || PyArray_DIM(positions, 0) != k) {
        PyErr_Format(PyExc_ValueError, "%s: expected times (K,) and positions (K,) or (K, C)",
                     func);
        return NULL;
    }
    channels = PyArray_NDIM(positions) == 2 ? PyArray_DIM(positions, 1) : 1;
    if (kind != AC_ROOT_NO_ROTATION &&
        (!rotations || PyArray_SIZE(rotations) != k * (kind == AC_ROOT_QUAT ? 4 : 1))) {
        PyErr_Format(PyExc_ValueError, "%s: rotations do not match the keys", func);
        return NULL;
    }
    st = ac_rootmotion_create(&tr, ACPY_F64(times), ACPY_F64(positions), (size_t)k,
                              (size_t)channels, (ac_curve_interpolation)interpolation,
                              (ac_root_rotation)kind, rotations ? ACPY_F64(rotations) : NULL,
                              up_axis, max_cycles, NULL, &err);
    if (st) {
        /* the index counts keys, position values or rotation values; options have none */
        static const acpy_arg_error errors[] = {{AC_ARG_TIMES, 1, NULL, 0},
                                                {AC_ARG_POSITIONS, 2, NULL, 0},
                                                {AC_ARG_ROTATIONS, 3, NULL, 0}};
        acpy_space spaces[4] = {{0, NULL},
                                {PyArray_NDIM(times), PyArray_DIMS(times)},
                                {PyArray_NDIM(positions), PyArray_DIMS(positions)},
                                {rotations ? PyArray_NDIM(rotations) : 0,
                                 rotations ? PyArray_DIMS(rotations) : NULL}};
        return acpy_raise_as(func, &err, errors, 3, spaces);
    }
    capsule = PyCapsule_New(tr, CAPSULE_NAME, capsule_destroy);
    if (!capsule)
        ac_rootmotion_destroy(tr);
    /* Positions of shape (K,) give results without a channel axis. */
    else if (PyArray_NDIM(positions) == 1 && PyCapsule_SetContext(capsule, capsule) < 0)
        Py_CLEAR(capsule);
    return capsule;
}

static PyObject *split(PyObject *self, PyObject *args)
{
    const char *func, *arg;
    ac_looptrack *tr;
    PyArrayObject *t, *cycle, *phase;
    npy_intp n;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "ssO&O&O&O&:_rootmotion_split", &func, &arg, track_converter,
                          &tr, acpy_f64, &t, acpy_f64_out, &cycle, acpy_f64_out, &phase))
        return NULL;
    if (!acpy_same_shape(func, "cycle", cycle, t) || !acpy_same_shape(func, "phase", phase, t))
        return NULL;
    n = PyArray_SIZE(t);
    ACPY_RUN(n, st = ac_rootmotion_split(tr, ACPY_F64(t), ACPY_F64(cycle), ACPY_F64(phase),
                                         (size_t)n, &err));
    if (st) { /* t is the caller's argument */
        const acpy_arg_error as_caller[] = {{AC_ARG_T, 0, arg, 0}};
        acpy_space space = {PyArray_NDIM(t), PyArray_DIMS(t)};
        return acpy_raise_as(func, &err, as_caller, 1, &space);
    }
    Py_RETURN_NONE;
}

/* n motions into translation (shape S + (C,)); the error index is unravelled
   over S. */
static int motion_outputs(const char *func, const ac_looptrack *tr, PyArrayObject *translation,
                          PyArrayObject *rotation, npy_intp *n)
{
    npy_intp ch = (npy_intp)ac_rootmotion_channels(tr);
    int nd = PyArray_NDIM(translation);
    if (nd < 1 || PyArray_DIM(translation, nd - 1) != ch) {
        PyErr_Format(PyExc_ValueError, "%s: translation output must end with %zd channels",
                     func, ch);
        return 0;
    }
    *n = PyArray_SIZE(translation) / ch;
    return check_rotation(func, tr, rotation, *n);
}

static PyObject *advance(PyObject *self, PyObject *args)
{
    const char *func;
    ac_looptrack *tr;
    PyArrayObject *cycle, *phase, *value, *new_cycle, *new_phase, *translation, *rotation;
    int absolute;
    npy_intp n;
    size_t steps[3];
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&O&O&pO&O&O&O&:_rootmotion_advance", &func,
                          track_converter, &tr, acpy_i64, &cycle, acpy_f64, &phase,
                          acpy_f64, &value, &absolute, acpy_i64_out, &new_cycle,
                          acpy_f64_out, &new_phase, acpy_f64_out, &translation,
                          acpy_f64_out_or_none, &rotation))
        return NULL;
    if (!motion_outputs(func, tr, translation, rotation, &n))
        return NULL;
    if (PyArray_SIZE(new_cycle) != n || PyArray_SIZE(new_phase) != n) {
        PyErr_Format(PyExc_ValueError, "%s: state outputs must hold %zd values", func, n);
        return NULL;
    }
    if (acpy_step(func, "cycle", cycle, n, &steps[0]) < 0 ||
        acpy_step(func, "phase", phase, n, &steps[1]) < 0 ||
        acpy_step(func, absolute ? "t" : "dt", value, n, &steps[2]) < 0)
        return NULL;
    ACPY_RUN(n, st = ac_rootmotion_advance(tr, (const int64_t *)PyArray_DATA(cycle),
                                           ACPY_F64(phase), ACPY_F64(value), steps, absolute,
                                           (int64_t *)PyArray_DATA(new_cycle),
                                           ACPY_F64(new_phase), ACPY_F64(translation),
                                           rotation ? ACPY_F64(rotation) : NULL, (size_t)n,
                                           &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(translation) - 1, PyArray_DIMS(translation));
    Py_RETURN_NONE;
}

/* ---------------------------------------------------- declared kernels
   Sampling and deltas, one declaration per rotation kind: none (translation
   only), yaw (an angle) and quaternion. The context is the track capsule. */

static int track_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    const ac_looptrack *tr = PyCapsule_GetPointer(arg, CAPSULE_NAME);
    (void)func;
    if (!tr)
        return 0;
    ctx->object = tr;
    ctx->channels = (npy_intp)ac_rootmotion_channels(tr);
    ctx->bare = PyCapsule_GetContext(arg) != NULL;
    return 1;
}

static ac_status sample_loop(const acpy_context *ctx, const double *const *in,
                             const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    (void)steps;
    return ac_rootmotion_sample(ctx->object, in[0], out[0], NULL, n, err);
}

static ac_status sample_turn_loop(const acpy_context *ctx, const double *const *in,
                                  const size_t *steps, double *const *out, size_t n,
                                  ac_error *err)
{
    (void)steps;
    return ac_rootmotion_sample(ctx->object, in[0], out[0], out[1], n, err);
}

static ac_status delta_loop(const acpy_context *ctx, const double *const *in,
                            const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    return ac_rootmotion_delta(ctx->object, in[0], in[1], steps, out[0], NULL, n, err);
}

static ac_status delta_turn_loop(const acpy_context *ctx, const double *const *in,
                                 const size_t *steps, double *const *out, size_t n,
                                 ac_error *err)
{
    return ac_rootmotion_delta(ctx->object, in[0], in[1], steps, out[0], out[1], n, err);
}

#define SAMPLE_DOC(name) "_" name "(func, track, phase, out, workers)"
#define DELTA_DOC(name) "_" name "(func, track, t0, t1, out, workers)"

static const acpy_kernel sample_none = {
    "_rootmotion_sample", SAMPLE_DOC("rootmotion_sample"), 1, 1,
    {{"phase", 1}}, {{"position", ACPY_CHANNELS}}, sample_loop, 0, track_context,
};
static const acpy_kernel sample_yaw = {
    "_rootmotion_sample_yaw", SAMPLE_DOC("rootmotion_sample_yaw"), 1, 2,
    {{"phase", 1}}, {{"position", ACPY_CHANNELS}, {"rotation", 1}}, sample_turn_loop, 0,
    track_context,
};
static const acpy_kernel sample_quat = {
    "_rootmotion_sample_quat", SAMPLE_DOC("rootmotion_sample_quat"), 1, 2,
    {{"phase", 1}}, {{"position", ACPY_CHANNELS}, {"rotation", 4}}, sample_turn_loop, 0,
    track_context,
};
static const acpy_kernel delta_none = {
    "_rootmotion_delta", DELTA_DOC("rootmotion_delta"), 2, 1,
    {{"t0", 1}, {"t1", 1}}, {{"translation", ACPY_CHANNELS}}, delta_loop, 1, track_context,
};
static const acpy_kernel delta_yaw = {
    "_rootmotion_delta_yaw", DELTA_DOC("rootmotion_delta_yaw"), 2, 2,
    {{"t0", 1}, {"t1", 1}}, {{"translation", ACPY_CHANNELS}, {"rotation", 1}}, delta_turn_loop,
    1, track_context,
};
static const acpy_kernel delta_quat = {
    "_rootmotion_delta_quat", DELTA_DOC("rootmotion_delta_quat"), 2, 2,
    {{"t0", 1}, {"t1", 1}}, {{"translation", ACPY_CHANNELS}, {"rotation", 4}},
    delta_turn_loop, 1, track_context,
};

static const acpy_kernel *const kernels[] = {&sample_none, &sample_yaw, &sample_quat,
                                             &delta_none,  &delta_yaw,  &delta_quat};

static PyMethodDef methods[] = {
    {"_rootmotion_create", create, METH_VARARGS,
     "_rootmotion_create(func, times, positions, interpolation, kind, rotations_or_None, "
     "up_axis, max_cycles) -> track capsule"},
    {"_rootmotion_split", split, METH_VARARGS, "_rootmotion_split(func, arg, track, t, cycle, phase); arg names t in errors"},
    {"_rootmotion_advance", advance, METH_VARARGS,
     "_rootmotion_advance(func, track, cycle, phase, value, absolute, new_cycle, new_phase, "
     "translation, rotation_or_None)"},
    {NULL, NULL, 0, NULL},
};

int acpy_rootmotion_init(PyObject *module)
{
    if (acpy_add_kernels(module, kernels, sizeof kernels / sizeof kernels[0]) < 0)
        return -1;
    return PyModule_AddFunctions(module, methods);
}

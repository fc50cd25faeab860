#include "binding.h"

#define CAPSULE_NAME "animcore._core.looptrack"

static void capsule_destroy(PyObject *capsule)
{
    ac_rootmotion_destroy((ac_looptrack *)PyCapsule_GetPointer(capsule, CAPSULE_NAME));
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
    if (!out) /* ACPY_CHECKS */
        return ac_rootmotion_sample_check(ctx->object, in[0], n) ? AC_OK : acpy_unchecked(err);
    return ac_rootmotion_sample(ctx->object, in[0], out[0], NULL, n, err);
}

static ac_status sample_turn_loop(const acpy_context *ctx, const double *const *in,
                                  const size_t *steps, double *const *out, size_t n,
                                  ac_error *err)
{
    (void)steps;
    if (!out) /* ACPY_CHECKS */
        return ac_rootmotion_sample_check(ctx->object, in[0], n) ? AC_OK : acpy_unchecked(err);
    return ac_rootmotion_sample(ctx->object, in[0], out[0], out[1], n, err);
}

static ac_status delta_loop(const acpy_context *ctx, const double *const *in,
                            const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    if (!out) /* ACPY_CHECKS */
        return ac_rootmotion_delta_check(ctx->object, in[0], in[1], steps, n)
                   ? AC_OK
                   : acpy_unchecked(err);
    return ac_rootmotion_delta(ctx->object, in[0], in[1], steps, out[0], NULL, n, err);
}

static ac_status delta_turn_loop(const acpy_context *ctx, const double *const *in,
                                 const size_t *steps, double *const *out, size_t n,
                                 ac_error *err)
{
    return ac_rootmotion_delta(ctx->object, in[0], in[1], steps, out[0], out[1], n, err);
}

/* Playback cursors: the context is (track, absolute); the cycle counts come
   and go as float64 (exact: the core bounds them by 2^53) and are handed to
   the core as int64 in pieces of ADVANCE_PIECE. */
#define ADVANCE_PIECE 256

static int advance_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    int absolute;
    if (!PyTuple_Check(arg) || PyTuple_GET_SIZE(arg) != 2) {
        PyErr_Format(PyExc_TypeError, "%s: the cursor context is (track, absolute)", func);
        return 0;
    }
    if (!track_context(func, PyTuple_GET_ITEM(arg, 0), ctx) ||
        (absolute = PyObject_IsTrue(PyTuple_GET_ITEM(arg, 1))) < 0)
        return 0;
    ctx->option[0] = absolute;
    return 1;
}

static ac_status advance_loop(const acpy_context *ctx, const double *const *in,
                              const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    const ac_looptrack *tr = ctx->object;
    const size_t channels = ac_rootmotion_channels(tr);
    const size_t turn = ac_rootmotion_rotation(tr) == AC_ROOT_QUAT ? 4 : 1;
    int64_t cycle[ADVANCE_PIECE], next[ADVANCE_PIECE];
    for (size_t i0 = 0; !out && i0 < n; i0 += ADVANCE_PIECE) { /* ACPY_CHECKS */
        size_t m = n - i0 < ADVANCE_PIECE ? n - i0 : ADVANCE_PIECE;
        for (size_t j = 0; j < (steps[0] ? m : 1); j++)
            cycle[j] = (int64_t)in[0][(i0 + j) * steps[0]];
        if (!ac_rootmotion_advance_check(tr, cycle, in[1] + i0 * steps[1], in[2] + i0 * steps[2],
                                         steps, ctx->option[0] != 0, m))
            return acpy_unchecked(err);
    }
    if (!out)
        return AC_OK;
    for (size_t i0 = 0; i0 < n; i0 += ADVANCE_PIECE) {
        size_t m = n - i0 < ADVANCE_PIECE ? n - i0 : ADVANCE_PIECE;
        ac_status st;
        for (size_t j = 0; j < (steps[0] ? m : 1); j++)
            cycle[j] = (int64_t)in[0][(i0 + j) * steps[0]];
        st = ac_rootmotion_advance(tr, cycle, in[1] + i0 * steps[1], in[2] + i0 * steps[2],
                                   steps, ctx->option[0] != 0, next, out[1] + i0,
                                   out[2] + i0 * channels,
                                   ac_rootmotion_rotation(tr) == AC_ROOT_NO_ROTATION
                                       ? NULL
                                       : out[3] + i0 * turn,
                                   m, err);
        if (st) {
            err->index += i0;
            return st;
        }
        for (size_t j = 0; j < m; j++)
            out[0][i0 + j] = (double)next[j];
    }
    return AC_OK;
}

#define SAMPLE_DOC(name) "_" name "(func, track, phase, out, workers)"
#define DELTA_DOC(name) "_" name "(func, track, t0, t1, out, workers)"

static const acpy_kernel sample_none = {
    "_rootmotion_sample", SAMPLE_DOC("rootmotion_sample"), 1, 1,
    {{"phase", 1}}, {{"position", ACPY_CHANNELS}}, sample_loop, ACPY_CHECKS, track_context,
};
static const acpy_kernel sample_yaw = {
    "_rootmotion_sample_yaw", SAMPLE_DOC("rootmotion_sample_yaw"), 1, 2,
    {{"phase", 1}}, {{"position", ACPY_CHANNELS}, {"rotation", 1}}, sample_turn_loop,
    ACPY_CHECKS, track_context,
};
static const acpy_kernel sample_quat = {
    "_rootmotion_sample_quat", SAMPLE_DOC("rootmotion_sample_quat"), 1, 2,
    {{"phase", 1}}, {{"position", ACPY_CHANNELS}, {"rotation", 4}}, sample_turn_loop,
    ACPY_CHECKS, track_context,
};
static const acpy_kernel delta_none = {
    "_rootmotion_delta", DELTA_DOC("rootmotion_delta"), 2, 1,
    {{"t0", 1}, {"t1", 1}}, {{"translation", ACPY_CHANNELS}}, delta_loop,
    ACPY_SHARED | ACPY_CHECKS, track_context,
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

/* Times into (cycle, phase): the context is (track, the caller's name of t). */
static int split_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    if (!PyTuple_Check(arg) || PyTuple_GET_SIZE(arg) != 2) {
        PyErr_Format(PyExc_TypeError, "%s: the split context is (track, name)", func);
        return 0;
    }
    if (!track_context(func, PyTuple_GET_ITEM(arg, 0), ctx) ||
        !(ctx->renamed_as = PyUnicode_AsUTF8(PyTuple_GET_ITEM(arg, 1))))
        return 0;
    ctx->renamed = AC_ARG_T;
    return 1;
}

static ac_status split_loop(const acpy_context *ctx, const double *const *in,
                            const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    (void)steps;
    return ac_rootmotion_split(ctx->object, in[0], out[0], out[1], n, err);
}

static const acpy_kernel split = {
    "_rootmotion_split", "_rootmotion_split(func, (track, name), t, out, workers) -> (cycle, phase)",
    1, 2, {{"t", 1}}, {{"cycle", 1}, {"phase", 1}}, split_loop, 0, split_context,
};

#define ADVANCE_DOC(name)                                                                \
    "_" name "(func, (track, absolute), cycle, phase, dt_or_t, out, workers) -> (cycle, "  \
    "phase, translation[, rotation])"

static const acpy_kernel advance_none = {
    "_rootmotion_advance", ADVANCE_DOC("rootmotion_advance"), 3, 3,
    {{"cycle", 1}, {"phase", 1}, {"time", 1}},
    {{"cycle", 1}, {"phase", 1}, {"translation", ACPY_CHANNELS}}, advance_loop,
    ACPY_SHARED | ACPY_CHECKS, advance_context,
};
static const acpy_kernel advance_yaw = {
    "_rootmotion_advance_yaw", ADVANCE_DOC("rootmotion_advance_yaw"), 3, 4,
    {{"cycle", 1}, {"phase", 1}, {"time", 1}},
    {{"cycle", 1}, {"phase", 1}, {"translation", ACPY_CHANNELS}, {"rotation", 1}},
    advance_loop, 1, advance_context,
};
static const acpy_kernel advance_quat = {
    "_rootmotion_advance_quat", ADVANCE_DOC("rootmotion_advance_quat"), 3, 4,
    {{"cycle", 1}, {"phase", 1}, {"time", 1}},
    {{"cycle", 1}, {"phase", 1}, {"translation", ACPY_CHANNELS}, {"rotation", 4}},
    advance_loop, 1, advance_context,
};

static const acpy_kernel *const kernels[] = {&sample_none,  &sample_yaw,   &sample_quat,
                                             &delta_none,   &delta_yaw,    &delta_quat,
                                             &advance_none, &advance_yaw,  &advance_quat,
                                             &split};

static PyMethodDef methods[] = {
    {"_rootmotion_create", create, METH_VARARGS,
     "_rootmotion_create(func, times, positions, interpolation, kind, rotations_or_None, "
     "up_axis, max_cycles) -> track capsule"},
    {NULL, NULL, 0, NULL},
};

int acpy_rootmotion_init(PyObject *module)
{
    if (acpy_add_kernels(module, kernels, sizeof kernels / sizeof kernels[0]) < 0)
        return -1;
    return PyModule_AddFunctions(module, methods);
}

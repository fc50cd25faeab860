#include "binding.h"

#ifndef __STDC_NO_ATOMICS__
#include <stdatomic.h>
typedef atomic_int guard_int;
#else /* only where the GIL serializes every call (free-threaded builds need C11 atomics) */
typedef int guard_int;
#define atomic_compare_exchange_strong(p, expected, desired)                            \
    (*(p) == *(expected) ? (*(p) = (desired), 1) : (*(expected) = *(p), 0))
#define atomic_fetch_sub(p, v) ((*(p) -= (v)) + (v))
#define atomic_load(p) (*(p))
#endif

/* A capsule owns one C object: a buffer or a timeline. `users` is the
   number of samples running (they may run without the GIL, and at once), or
   WRITING while a push or flush changes the object: a push during a sample,
   or a sample during a push, is refused with RuntimeError instead of racing.
   Atomic, so that this holds on free-threaded builds as well. */
#define WRITING (-1)
typedef struct snapshot_ctx {
    ac_snapshot_buffer *buffer;     /* NULL for a timeline */
    ac_snapshot_timeline *timeline; /* NULL for a buffer */
    guard_int users;
} snapshot_ctx;

static const char *busy(int users)
{
    return users == WRITING ? "another thread is pushing to this object"
                            : "another thread is sampling this object";
}

/* Takes the object for a push or flush; 0 with RuntimeError if it is in use. */
static int begin_write(const char *func, snapshot_ctx *ctx)
{
    int idle = 0;
    if (atomic_compare_exchange_strong(&ctx->users, &idle, WRITING))
        return 1;
    PyErr_Format(PyExc_RuntimeError, "%s: %s", func, busy(idle));
    return 0;
}

static void end_write(snapshot_ctx *ctx)
{
    int writing = WRITING;
    atomic_compare_exchange_strong(&ctx->users, &writing, 0);
}

/* Joins the samples running; 0 with RuntimeError during a push. */
static int begin_read(const char *func, snapshot_ctx *ctx)
{
    int users = atomic_load(&ctx->users);
    while (users != WRITING)
        if (atomic_compare_exchange_strong(&ctx->users, &users, users + 1))
            return 1;
    PyErr_Format(PyExc_RuntimeError, "%s: %s", func, busy(users));
    return 0;
}

static void end_read(snapshot_ctx *ctx) { atomic_fetch_sub(&ctx->users, 1); }

static const char CAPSULE[] = "animcore._core.snapshot";

static void ctx_destroy(PyObject *capsule)
{
    snapshot_ctx *ctx = PyCapsule_GetPointer(capsule, CAPSULE);
    if (!ctx)
        return;
    ac_snapshot_buffer_destroy(ctx->buffer);
    ac_snapshot_timeline_destroy(ctx->timeline);
    PyMem_Free(ctx);
}

static int get_ctx(PyObject *obj, void *result)
{
    snapshot_ctx *ctx = PyCapsule_GetPointer(obj, CAPSULE);
    if (!ctx)
        return 0;
    *(snapshot_ctx **)result = ctx;
    return 1;
}

static const ac_snapshot_buffer *ctx_buffer(const snapshot_ctx *ctx)
{
    return ctx->buffer ? ctx->buffer : ac_snapshot_timeline_buffer(ctx->timeline);
}

static PyObject *wrap(snapshot_ctx *ctx)
{
    PyObject *capsule = PyCapsule_New(ctx, CAPSULE, ctx_destroy);
    if (!capsule) {
        ac_snapshot_buffer_destroy(ctx->buffer);
        ac_snapshot_timeline_destroy(ctx->timeline);
        PyMem_Free(ctx);
    }
    return capsule;
}

static int i64_or_none(PyObject *obj, void *result)
{
    if (obj == Py_None) {
        *(PyArrayObject **)result = NULL;
        return 1;
    }
    return acpy_i64(obj, result);
}

/* Size checks of the binding's contract with animcore/snapshot.py. */
static int check_size(const char *func, const char *name, PyArrayObject *a, npy_intp size)
{
    if (!a || PyArray_SIZE(a) == size)
        return 1;
    PyErr_Format(PyExc_ValueError, "%s: %s has %zd elements, expected %zd", func, name,
                 PyArray_SIZE(a), size);
    return 0;
}


/* Arguments whose values are integers, shown as such in messages. */
static const acpy_arg_error integer_args[] = {
    {AC_ARG_ENTITIES, 0, NULL, 1}, {AC_ARG_DIM, 0, NULL, 1},  {AC_ARG_CAPACITY, 0, NULL, 1},
    {AC_ARG_REORDER_WINDOW, 0, NULL, 1}, {AC_ARG_TICK, 0, NULL, 1}, {AC_ARG_ENTITY, 0, NULL, 1}};

/* The exception for a snapshot error indexed over `shape`. */
static PyObject *raise_ints(const char *func, const ac_error *err, int ndim,
                            const npy_intp *shape)
{
    acpy_space space = {ndim, shape};
    return acpy_raise_as(func, err, integer_args, sizeof integer_args / sizeof *integer_args,
                         &space);
}

/* ------------------------------------------------------------------ create */

static PyObject *buffer_new(PyObject *self, PyObject *args)
{
    Py_ssize_t entities, dim, capacity;
    int rotations;
    double extrapolation;
    snapshot_ctx *ctx;
    ac_error err;
    (void)self;
    if (!PyArg_ParseTuple(args, "nnnpd:_snapshot_buffer_new", &entities, &dim, &capacity,
                          &rotations, &extrapolation))
        return NULL;
    if (entities < 0 || dim < 0 || capacity < 0) {
        PyErr_SetString(PyExc_ValueError, "SnapshotBuffer: sizes must be >= 0");
        return NULL;
    }
    ctx = PyMem_Calloc(1, sizeof *ctx);
    if (!ctx)
        return PyErr_NoMemory();
    if (ac_snapshot_buffer_create(&ctx->buffer, (size_t)entities, (size_t)dim,
                                  (size_t)capacity, rotations, extrapolation, NULL, &err)) {
        PyMem_Free(ctx);
        return raise_ints("SnapshotBuffer", &err, 0, NULL);
    }
    return wrap(ctx);
}

static PyObject *timeline_new(PyObject *self, PyObject *args)
{
    Py_ssize_t dim, capacity, window;
    int rotations;
    double extrapolation;
    snapshot_ctx *ctx;
    ac_error err;
    (void)self;
    if (!PyArg_ParseTuple(args, "nnpdn:_snapshot_timeline_new", &dim, &capacity, &rotations,
                          &extrapolation, &window))
        return NULL;
    if (dim < 0 || capacity < 0 || window < 0) {
        PyErr_SetString(PyExc_ValueError, "SnapshotTimeline: sizes must be >= 0");
        return NULL;
    }
    ctx = PyMem_Calloc(1, sizeof *ctx);
    if (!ctx)
        return PyErr_NoMemory();
    if (ac_snapshot_timeline_create(&ctx->timeline, (size_t)dim, (size_t)capacity,
                                    rotations, extrapolation, (size_t)window, NULL, &err)) {
        PyMem_Free(ctx);
        return raise_ints("SnapshotTimeline", &err, 0, NULL);
    }
    return wrap(ctx);
}

/* -------------------------------------------------------------------- push */

/* _snapshot_push(func, ctx, entity|None, tick, segment, position, rotation|None,
   generation|None, result): errors are indexed over the shape of `tick`. */
static PyObject *push(PyObject *self, PyObject *args)
{
    const char *func;
    snapshot_ctx *ctx;
    PyArrayObject *entity, *tick, *segment, *position, *rotation, *generation, *result;
    const ac_snapshot_buffer *b;
    npy_intp n;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&O&O&O&O&O&O&:_snapshot_push", &func, get_ctx, &ctx,
                          i64_or_none, &entity, acpy_i64, &tick, acpy_i64, &segment, acpy_f64,
                          &position, acpy_f64_or_none, &rotation, i64_or_none, &generation,
                          acpy_u8_out, &result))
        return NULL;
    b = ctx_buffer(ctx);
    n = PyArray_SIZE(tick);
    if (!(check_size(func, "segment", segment, n) && check_size(func, "result", result, n) &&
          check_size(func, "generation", generation, n) &&
          check_size(func, "position", position, n * (npy_intp)ac_snapshot_buffer_dim(b)) &&
          check_size(func, "rotation", rotation, 4 * n) &&
          check_size(func, "entity", entity, n)))
        return NULL;
    if ((ctx->buffer != NULL) != (entity != NULL) ||
        (ac_snapshot_buffer_rotations(b) != 0) != (rotation != NULL)) {
        PyErr_Format(PyExc_ValueError, "%s: entity or rotation given where not expected",
                     func);
        return NULL;
    }
    if (!begin_write(func, ctx))
        return NULL;
    if (ctx->buffer)
        st = ac_snapshot_buffer_push(ctx->buffer, (const int64_t *)PyArray_DATA(entity),
                                     (const int64_t *)PyArray_DATA(tick),
                                     (const int64_t *)PyArray_DATA(segment),
                                     ACPY_F64(position), rotation ? ACPY_F64(rotation) : NULL,
                                     generation ? (const int64_t *)PyArray_DATA(generation)
                                                : NULL,
                                     (size_t)n, (unsigned char *)PyArray_DATA(result), &err);
    else
        st = ac_snapshot_timeline_push(ctx->timeline, (const int64_t *)PyArray_DATA(tick),
                                       (const int64_t *)PyArray_DATA(segment),
                                       ACPY_F64(position),
                                       rotation ? ACPY_F64(rotation) : NULL, (size_t)n,
                                       (unsigned char *)PyArray_DATA(result), &err);
    end_write(ctx);
    if (st)
        return raise_ints(func, &err, PyArray_NDIM(tick), PyArray_DIMS(tick));
    Py_RETURN_NONE;
}

/* _snapshot_push_one(func, timeline, tick, segment, position, rotation|None) ->
   result: one push without array set-up; position is a float (dim 1) or a
   float64 array of dim values, rotation a float64 array of 4. */
static PyObject *push_one(PyObject *self, PyObject *args)
{
    const char *func;
    snapshot_ctx *ctx;
    long long tick, segment;
    PyObject *position_obj;
    PyArrayObject *position = NULL, *rotation;
    const ac_snapshot_buffer *b;
    double scalar;
    const double *pos = &scalar;
    int64_t t, s;
    unsigned char result;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&LLOO&:_snapshot_push_one", &func, get_ctx, &ctx, &tick,
                          &segment, &position_obj, acpy_f64_or_none, &rotation))
        return NULL;
    if (!ctx->timeline) {
        PyErr_SetString(PyExc_TypeError, "_snapshot_push_one needs a timeline");
        return NULL;
    }
    b = ctx_buffer(ctx);
    if (PyFloat_Check(position_obj)) {
        scalar = PyFloat_AS_DOUBLE(position_obj);
        if (ac_snapshot_buffer_dim(b) != 1) {
            PyErr_Format(PyExc_ValueError, "%s: position must have %zu values", func,
                         ac_snapshot_buffer_dim(b));
            return NULL;
        }
    } else {
        if (!acpy_f64(position_obj, &position) ||
            !check_size(func, "position", position, (npy_intp)ac_snapshot_buffer_dim(b)))
            return NULL;
        pos = ACPY_F64(position);
    }
    if (!check_size(func, "rotation", rotation, 4))
        return NULL;
    if ((ac_snapshot_buffer_rotations(b) != 0) != (rotation != NULL)) {
        PyErr_Format(PyExc_ValueError, "%s: rotation given where not expected", func);
        return NULL;
    }
    t = (int64_t)tick;
    s = (int64_t)segment;
    if (!begin_write(func, ctx))
        return NULL;
    st = ac_snapshot_timeline_push(ctx->timeline, &t, &s, pos,
                                   rotation ? ACPY_F64(rotation) : NULL, 1, &result, &err);
    end_write(ctx);
    if (st)
        return raise_ints(func, &err, 0, NULL);
    return PyLong_FromLong(result);
}

/* _snapshot_sample_one(func, timeline, render_tick) -> (position, rotation|None,
   mode, left_tick, right_tick): position a float for dim 1, else an array. */
static PyObject *sample_one(PyObject *self, PyObject *args)
{
    const char *func;
    snapshot_ctx *ctx;
    double t, pos1, *pos = &pos1, rot[4];
    const ac_snapshot_buffer *b;
    PyArrayObject *position = NULL, *rotation = NULL;
    unsigned char mode;
    int64_t left, right;
    ac_error err;
    ac_status st;
    npy_intp dims[1];
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&d:_snapshot_sample_one", &func, get_ctx, &ctx, &t))
        return NULL;
    if (!ctx->timeline) {
        PyErr_SetString(PyExc_TypeError, "_snapshot_sample_one needs a timeline");
        return NULL;
    }
    b = ctx_buffer(ctx);
    dims[0] = (npy_intp)ac_snapshot_buffer_dim(b);
    if (dims[0] != 1) {
        position = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_DOUBLE);
        if (!position)
            return NULL;
        pos = ACPY_F64(position);
    }
    if (!begin_read(func, ctx)) {
        Py_XDECREF(position);
        return NULL;
    }
    st = ac_snapshot_timeline_sample(ctx->timeline, &t, 1, pos, rot, &mode, &left, &right,
                                     &err);
    end_read(ctx);
    if (st) {
        Py_XDECREF(position);
        return raise_ints(func, &err, 0, NULL);
    }
    if (ac_snapshot_buffer_rotations(b)) {
        dims[0] = 4;
        rotation = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_DOUBLE);
        if (!rotation) {
            Py_XDECREF(position);
            return NULL;
        }
        memcpy(PyArray_DATA(rotation), rot, sizeof rot);
    }
    if (!rotation) {
        Py_INCREF(Py_None);
        rotation = (PyArrayObject *)Py_None;
    }
    if (position)
        return Py_BuildValue("NNiLL", position, rotation, (int)mode, (long long)left,
                             (long long)right);
    return Py_BuildValue("dNiLL", pos1, rotation, (int)mode, (long long)left,
                         (long long)right);
}

/* ------------------------------------------------------------------ sample */

/* _snapshot_sample(func, ctx, render_tick, position, rotation|None, mode, left,
   right). A buffer takes one render tick (a 0-d array) and fills one row per
   entity; a timeline fills one row per render tick. Errors are indexed over
   the shape of `render_tick`. */
static PyObject *sample(PyObject *self, PyObject *args)
{
    const char *func;
    snapshot_ctx *ctx;
    PyArrayObject *ticks, *position, *rotation, *mode, *left, *right;
    const ac_snapshot_buffer *b;
    npy_intp rows;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO&O&O&O&O&O&O&:_snapshot_sample", &func, get_ctx, &ctx,
                          acpy_f64, &ticks, acpy_f64_out, &position, acpy_f64_out_or_none,
                          &rotation, acpy_u8_out, &mode, acpy_i64_out, &left, acpy_i64_out, &right))
        return NULL;
    b = ctx_buffer(ctx);
    if (ctx->buffer) {
        rows = (npy_intp)ac_snapshot_buffer_entities(b);
        if (!check_size(func, "render_tick", ticks, 1))
            return NULL;
    } else {
        rows = PyArray_SIZE(ticks);
    }
    if (!(check_size(func, "position", position, rows * (npy_intp)ac_snapshot_buffer_dim(b)) &&
          check_size(func, "rotation", rotation, 4 * rows) &&
          check_size(func, "mode", mode, rows) && check_size(func, "left_tick", left, rows) &&
          check_size(func, "right_tick", right, rows)))
        return NULL;
    if ((ac_snapshot_buffer_rotations(b) != 0) != (rotation != NULL)) {
        PyErr_Format(PyExc_ValueError, "%s: rotation output given where not expected", func);
        return NULL;
    }
    if (!begin_read(func, ctx))
        return NULL;
    if (ctx->buffer)
        ACPY_RUN(rows, st = ac_snapshot_buffer_sample(
                           ctx->buffer, ACPY_F64(ticks)[0], ACPY_F64(position),
                           rotation ? ACPY_F64(rotation) : NULL,
                           (unsigned char *)PyArray_DATA(mode), (int64_t *)PyArray_DATA(left),
                           (int64_t *)PyArray_DATA(right), &err));
    else
        ACPY_RUN(rows, st = ac_snapshot_timeline_sample(
                           ctx->timeline, ACPY_F64(ticks), (size_t)rows, ACPY_F64(position),
                           rotation ? ACPY_F64(rotation) : NULL,
                           (unsigned char *)PyArray_DATA(mode), (int64_t *)PyArray_DATA(left),
                           (int64_t *)PyArray_DATA(right), &err));
    end_read(ctx);
    if (st)
        return raise_ints(func, &err, PyArray_NDIM(ticks), PyArray_DIMS(ticks));
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------ state access */

static PyObject *flush(PyObject *self, PyObject *args)
{
    snapshot_ctx *ctx;
    (void)self;
    if (!PyArg_ParseTuple(args, "O&:_snapshot_flush", get_ctx, &ctx))
        return NULL;
    if (!ctx->timeline) {
        PyErr_SetString(PyExc_TypeError, "flush needs a timeline");
        return NULL;
    }
    size_t released;
    if (!begin_write("SnapshotTimeline.flush", ctx))
        return NULL;
    released = ac_snapshot_timeline_flush(ctx->timeline);
    end_write(ctx);
    return PyLong_FromSize_t(released);
}

/* _snapshot_read(ctx, entity) -> (ticks, segments, positions, rotations|None,
   generation, pending): the retained snapshots of one entity, oldest first. */
static PyObject *read_entity(PyObject *self, PyObject *args)
{
    snapshot_ctx *ctx;
    Py_ssize_t entity;
    const ac_snapshot_buffer *b;
    npy_intp count, dims[2];
    PyArrayObject *ticks = NULL, *segments = NULL, *positions = NULL, *rotations = NULL;
    PyObject *result = NULL;
    (void)self;
    if (!PyArg_ParseTuple(args, "O&n:_snapshot_read", get_ctx, &ctx, &entity))
        return NULL;
    b = ctx_buffer(ctx);
    if (entity < 0 || (size_t)entity >= ac_snapshot_buffer_entities(b)) {
        PyErr_Format(PyExc_IndexError, "entity %zd is out of range", entity);
        return NULL;
    }
    count = (npy_intp)ac_snapshot_buffer_count(b, (size_t)entity);
    dims[0] = count;
    dims[1] = (npy_intp)ac_snapshot_buffer_dim(b);
    ticks = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_INT64);
    segments = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_INT64);
    positions = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    if (ac_snapshot_buffer_rotations(b)) {
        dims[1] = 4;
        rotations = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    }
    if (ticks && segments && positions && (rotations || !ac_snapshot_buffer_rotations(b)) &&
        begin_read("snapshots", ctx)) {
        ac_snapshot_buffer_read(b, (size_t)entity, (int64_t *)PyArray_DATA(ticks),
                                (int64_t *)PyArray_DATA(segments), ACPY_F64(positions),
                                rotations ? ACPY_F64(rotations) : NULL);
        result = Py_BuildValue(
            "OOOOLn", ticks, segments, positions, rotations ? (PyObject *)rotations : Py_None,
            (long long)ac_snapshot_buffer_generation(b, (size_t)entity),
            ctx->timeline ? (Py_ssize_t)ac_snapshot_timeline_pending(ctx->timeline) : 0);
        end_read(ctx);
    }
    Py_XDECREF(ticks);
    Py_XDECREF(segments);
    Py_XDECREF(positions);
    Py_XDECREF(rotations);
    return result;
}

/* _snapshot_counts(ctx, out) writes every entity's snapshot count (int64). */
static PyObject *counts(PyObject *self, PyObject *args)
{
    snapshot_ctx *ctx;
    PyArrayObject *out;
    const ac_snapshot_buffer *b;
    size_t n;
    (void)self;
    if (!PyArg_ParseTuple(args, "O&O&:_snapshot_counts", get_ctx, &ctx, acpy_i64_out, &out))
        return NULL;
    b = ctx_buffer(ctx);
    n = ac_snapshot_buffer_entities(b);
    if (!check_size("_snapshot_counts", "out", out, (npy_intp)n) ||
        !begin_read("SnapshotBuffer.counts", ctx))
        return NULL;
    for (size_t e = 0; e < n; e++)
        ((int64_t *)PyArray_DATA(out))[e] = (int64_t)ac_snapshot_buffer_count(b, e);
    end_read(ctx);
    Py_RETURN_NONE;
}

/* For the other binding files (state export): the C objects behind a handle,
   one of them NULL, held for reading (as a sample is) or writing (as a push
   is) until acpy_snapshot_release. */
int acpy_snapshot_acquire(const char *func, PyObject *handle, int write,
                          ac_snapshot_buffer **buffer, ac_snapshot_timeline **timeline)
{
    snapshot_ctx *ctx;
    if (!get_ctx(handle, &ctx))
        return 0;
    if (write ? !begin_write(func, ctx) : !begin_read(func, ctx))
        return 0;
    *buffer = ctx->buffer;
    *timeline = ctx->timeline;
    return 1;
}

void acpy_snapshot_release(PyObject *handle, int write)
{
    snapshot_ctx *ctx = PyCapsule_GetPointer(handle, CAPSULE);
    if (!ctx)
        return;
    if (write)
        end_write(ctx);
    else
        end_read(ctx);
}

static PyMethodDef methods[] = {
    {"_snapshot_buffer_new", buffer_new, METH_VARARGS,
     "_snapshot_buffer_new(entities, dim, capacity, rotations, max_extrapolation) -> handle"},
    {"_snapshot_timeline_new", timeline_new, METH_VARARGS,
     "_snapshot_timeline_new(dim, capacity, rotations, max_extrapolation, reorder_window) "
     "-> handle"},
    {"_snapshot_push", push, METH_VARARGS,
     "_snapshot_push(func, handle, entity|None, tick, segment, position, rotation|None, "
     "generation|None, result)"},
    {"_snapshot_sample", sample, METH_VARARGS,
     "_snapshot_sample(func, handle, render_tick, position, rotation|None, mode, left_tick, "
     "right_tick)"},
    {"_snapshot_push_one", push_one, METH_VARARGS,
     "_snapshot_push_one(func, timeline, tick, segment, position, rotation|None) -> result"},
    {"_snapshot_sample_one", sample_one, METH_VARARGS,
     "_snapshot_sample_one(func, timeline, render_tick) -> (position, rotation, mode, "
     "left_tick, right_tick)"},
    {"_snapshot_flush", flush, METH_VARARGS, "_snapshot_flush(timeline) -> released count"},
    {"_snapshot_read", read_entity, METH_VARARGS,
     "_snapshot_read(handle, entity) -> (ticks, segments, positions, rotations, generation, "
     "pending)"},
    {"_snapshot_counts", counts, METH_VARARGS, "_snapshot_counts(handle, out)"},
    {NULL, NULL, 0, NULL},
};

int acpy_snapshot_init(PyObject *module)
{
    return PyModule_AddFunctions(module, methods);
}

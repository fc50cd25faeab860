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

/* The exception for a failed create: its sizes are integers in messages. */
static PyObject *raise_create(const char *func, const ac_error *err)
{
    static const acpy_arg_error sizes[] = {{AC_ARG_ENTITIES, ACPY_NO_INDEX, NULL, 1},
                                           {AC_ARG_DIM, ACPY_NO_INDEX, NULL, 1},
                                           {AC_ARG_CAPACITY, ACPY_NO_INDEX, NULL, 1},
                                           {AC_ARG_REORDER_WINDOW, ACPY_NO_INDEX, NULL, 1}};
    acpy_space none = {0, NULL};
    return acpy_raise_as(func, err, sizes, sizeof sizes / sizeof *sizes, &none);
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
        return raise_create("SnapshotBuffer", &err);
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
        return raise_create("SnapshotTimeline", &err);
    }
    return wrap(ctx);
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
    /* The count is read under the read guard, which stays held until the copy:
       a push from another thread (free-threaded builds) in between would make
       the copy longer than the arrays. */
    if (!begin_read("snapshots", ctx))
        return NULL;
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
    if (ticks && segments && positions && (rotations || !ac_snapshot_buffer_rotations(b))) {
        ac_snapshot_buffer_read(b, (size_t)entity, (int64_t *)PyArray_DATA(ticks),
                                (int64_t *)PyArray_DATA(segments), ACPY_F64(positions),
                                rotations ? ACPY_F64(rotations) : NULL);
        result = Py_BuildValue(
            "OOOOLn", ticks, segments, positions, rotations ? (PyObject *)rotations : Py_None,
            (long long)ac_snapshot_buffer_generation(b, (size_t)entity),
            ctx->timeline ? (Py_ssize_t)ac_snapshot_timeline_pending(ctx->timeline) : 0);
    }
    end_read(ctx);
    Py_XDECREF(ticks);
    Py_XDECREF(segments);
    Py_XDECREF(positions);
    Py_XDECREF(rotations);
    return result;
}

/* _snapshot_counts(ctx) -> every entity's snapshot count (int64). */
static PyObject *counts(PyObject *self, PyObject *handle)
{
    snapshot_ctx *ctx;
    PyArrayObject *out;
    const ac_snapshot_buffer *b;
    npy_intp n;
    (void)self;
    if (!get_ctx(handle, &ctx))
        return NULL;
    b = ctx_buffer(ctx);
    n = (npy_intp)ac_snapshot_buffer_entities(b);
    out = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_INT64);
    if (!out || !begin_read("SnapshotBuffer.counts", ctx)) {
        Py_XDECREF(out);
        return NULL;
    }
    for (npy_intp e = 0; e < n; e++)
        ((int64_t *)PyArray_DATA(out))[e] = (int64_t)ac_snapshot_buffer_count(b, (size_t)e);
    end_read(ctx);
    return (PyObject *)out;
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
    {"_snapshot_flush", flush, METH_VARARGS, "_snapshot_flush(timeline) -> released count"},
    {"_snapshot_read", read_entity, METH_VARARGS,
     "_snapshot_read(handle, entity) -> (ticks, segments, positions, rotations, generation, "
     "pending)"},
    {"_snapshot_counts", counts, METH_O, "_snapshot_counts(handle) -> int64 counts"},
    {NULL, NULL, 0, NULL},
};

/* ---------------------------------------------------- declared kernels
   Pushes and samples of a handle, held for writing (a push) or reading while
   the core runs, once the binding has read every argument. (C) is dim, with
   no axis for dim 1 positions given without one. One declaration per kind of
   object and with or without rotations; the context parser checks that the
   handle is of that kind. Without rotations a sample has an empty (0)
   rotation output in its place, so that out= is the same five arrays. */

static int acquire_read(const char *func, const acpy_context *ctx)
{
    return begin_read(func, (snapshot_ctx *)(void *)ctx->detail);
}

static int acquire_write(const char *func, const acpy_context *ctx)
{
    return begin_write(func, (snapshot_ctx *)(void *)ctx->detail);
}

static void release_read(const acpy_context *ctx)
{
    end_read((snapshot_ctx *)(void *)ctx->detail);
}

static void release_write(const acpy_context *ctx)
{
    end_write((snapshot_ctx *)(void *)ctx->detail);
}

/* Entities and ticks are integers in messages; a buffer's single render tick
   has no index. */
static const acpy_arg_error push_errors[] = {{AC_ARG_ENTITY, ACPY_ITEMS, NULL, 1},
                                             {AC_ARG_TICK, ACPY_ITEMS, NULL, 1}};
static const acpy_arg_error sample_errors[] = {{AC_ARG_RENDER_TICK, ACPY_NO_INDEX, NULL, 0}};

/* arg: the handle, or for a push (handle, channel_axis, one_snapshot);
   `timeline_wanted` and `rotations` say which object (a timeline or a buffer,
   with or without rotations) is expected. What is read here (kind, dim, rotations) is fixed
   when the object is created, so it needs no hold. */
static int snapshot_context(const char *func, PyObject *arg, int write, int timeline_wanted,
                            int rotations, acpy_context *ctx)
{
    snapshot_ctx *sc;
    const ac_snapshot_buffer *b;
    PyObject *handle = arg;
    int channel_axis = !timeline_wanted; /* a buffer's positions always have it */
    if (write) {
        if (!PyTuple_Check(arg) || PyTuple_GET_SIZE(arg) != 3) {
            PyErr_Format(PyExc_TypeError,
                         "%s: the push context is (handle, channel_axis, one_snapshot)", func);
            return 0;
        }
        handle = PyTuple_GET_ITEM(arg, 0);
        if ((channel_axis = PyObject_IsTrue(PyTuple_GET_ITEM(arg, 1))) < 0 ||
            (ctx->one_item = PyObject_IsTrue(PyTuple_GET_ITEM(arg, 2))) < 0)
            return 0;
    }
    if (!get_ctx(handle, &sc))
        return 0;
    b = ctx_buffer(sc);
    if ((sc->timeline != NULL) != timeline_wanted || ac_snapshot_buffer_rotations(b) != rotations) {
        PyErr_Format(PyExc_TypeError, "%s: expected a %s %s rotations", func,
                     timeline_wanted ? "timeline" : "buffer", rotations ? "with" : "without");
        return 0;
    }
    ctx->object = sc->timeline ? (const void *)sc->timeline : (const void *)sc->buffer;
    ctx->detail = sc; /* the caller holds the handle for the call */
    ctx->channels = (npy_intp)ac_snapshot_buffer_dim(b);
    ctx->bare = ctx->channels == 1 && !channel_axis;
    ctx->errors = write ? push_errors : sc->timeline ? NULL : sample_errors;
    ctx->nerrors = write ? sizeof push_errors / sizeof *push_errors
                   : sc->timeline ? 0
                                  : sizeof sample_errors / sizeof *sample_errors;
    ctx->acquire = write ? acquire_write : acquire_read;
    ctx->release = write ? release_write : release_read;
    return 1;
}

#define CONTEXT(name, write, timeline, rotations)                                \
    static int name(const char *func, PyObject *arg, acpy_context *ctx)         \
    {                                                                            \
        return snapshot_context(func, arg, write, timeline, rotations, ctx);     \
    }
CONTEXT(timeline_sample_context, 0, 1, 0)
CONTEXT(timeline_sample_rotations_context, 0, 1, 1)
CONTEXT(buffer_sample_context, 0, 0, 0)
CONTEXT(buffer_sample_rotations_context, 0, 0, 1)
CONTEXT(timeline_push_context, 1, 1, 0)
CONTEXT(timeline_push_rotations_context, 1, 1, 1)
CONTEXT(buffer_push_context, 1, 0, 0)
CONTEXT(buffer_push_rotations_context, 1, 0, 1)

/* The loop buffers of integer operands hold int64_t, uint8 or int. */
#define I64(p) ((const int64_t *)(const void *)(p))
#define I64_OUT(p) ((int64_t *)(void *)(p))
#define U8_OUT(p) ((unsigned char *)(void *)(p))

/* Render ticks -> (position, rotation, mode, left_tick, right_tick); with
   out NULL, the check that they are finite. */
static ac_status timeline_sample_loop(const acpy_context *ctx, const double *const *in,
                                      const size_t *steps, double *const *out, size_t n,
                                      ac_error *err)
{
    const ac_snapshot_timeline *timeline = ctx->object;
    const int turn = ac_snapshot_buffer_rotations(ac_snapshot_timeline_buffer(timeline));
    (void)steps;
    if (!out)
        return ac_snapshot_timeline_sample(timeline, in[0], n, NULL, NULL, NULL, NULL, NULL,
                                           err);
    return ac_snapshot_timeline_sample(timeline, in[0], n, out[0], turn ? out[1] : NULL,
                                       U8_OUT(out[2]), I64_OUT(out[3]), I64_OUT(out[4]), err);
}

/* (entity, render_tick shared by all) -> the same outputs; with out NULL,
   the checks alone. */
static ac_status buffer_sample_loop(const acpy_context *ctx, const double *const *in,
                                    const size_t *steps, double *const *out, size_t n,
                                    ac_error *err)
{
    const ac_snapshot_buffer *b = ctx->object;
    const int turn = ac_snapshot_buffer_rotations(b);
    const size_t dim = (size_t)ctx->channels;
    /* one call per item when the entity is shared (then n is 1 unless the
       render tick varies, which the Python API never passes) */
    const size_t per = steps[0] && !steps[1] ? n : 1;
    for (size_t i = 0; i < n; i += per) {
        ac_status st = out ? ac_snapshot_buffer_sample_entities(
                                 b, in[1][steps[1] * i], I64(in[0]) + steps[0] * i, per,
                                 out[0] + i * dim, turn ? out[1] + i * 4 : NULL,
                                 U8_OUT(out[2]) + i, I64_OUT(out[3]) + i, I64_OUT(out[4]) + i,
                                 err)
                           : ac_snapshot_buffer_sample_entities( /* the checks alone */
                                 b, in[1][steps[1] * i], I64(in[0]) + steps[0] * i, per, NULL,
                                 NULL, NULL, NULL, NULL, err);
        if (st) {
            err->index += i;
            return st;
        }
    }
    return AC_OK;
}

/* (tick, segment, position[, rotation]) -> result codes. Called with out ==
   NULL first, for the checks alone. */
static ac_status timeline_push_loop(const acpy_context *ctx, const double *const *in,
                                    const size_t *steps, double *const *out, size_t n,
                                    ac_error *err)
{
    ac_snapshot_timeline *timeline = (ac_snapshot_timeline *)(void *)ctx->object;
    const double *rotation =
        ac_snapshot_buffer_rotations(ac_snapshot_timeline_buffer(timeline)) ? in[3] : NULL;
    (void)steps;
    if (!out)
        return ac_snapshot_timeline_push_check(timeline, I64(in[0]), rotation, n, err);
    return ac_snapshot_timeline_push(timeline, I64(in[0]), I64(in[1]), in[2], rotation, n,
                                     U8_OUT(out[0]), err);
}

/* (entity, tick, segment, generation, position[, rotation]) -> result codes. */
static ac_status buffer_push_loop(const acpy_context *ctx, const double *const *in,
                                  const size_t *steps, double *const *out, size_t n,
                                  ac_error *err)
{
    ac_snapshot_buffer *b = (ac_snapshot_buffer *)(void *)ctx->object;
    const double *rotation = ac_snapshot_buffer_rotations(b) ? in[5] : NULL;
    (void)steps;
    if (!out)
        return ac_snapshot_buffer_push_check(b, I64(in[0]), I64(in[1]), rotation, n, err);
    return ac_snapshot_buffer_push(b, I64(in[0]), I64(in[1]), I64(in[2]), in[4], rotation,
                                   I64(in[3]), n, U8_OUT(out[0]), err);
}

/* rotation: (4), or (0) without rotations */
#define SAMPLE_OUTS(rotation)                                                    \
    {{"position", ACPY_CHANNELS}, {"rotation", rotation}, {"mode", ACPY_U8},     \
     {"left_tick", ACPY_I64}, {"right_tick", ACPY_I64}}
#define SAMPLE_DOC(name, args)                                                   \
    "_" name "(func, handle, " args ", out, workers) -> (position, rotation, mode, " \
    "left_tick, right_tick)"
#define PUSH_DOC(name, args)                                                     \
    "_" name "(func, (handle, channel_axis, one_snapshot), " args ", out, workers) -> "    \
    "result codes"

static const acpy_kernel timeline_sample = {
    "_snapshot_timeline_sample", SAMPLE_DOC("snapshot_timeline_sample", "render_tick"), 1, 5,
    {{"render_tick", 1}}, SAMPLE_OUTS(0), timeline_sample_loop, ACPY_CHECKS,
    timeline_sample_context,
};
static const acpy_kernel timeline_sample_rotations = {
    "_snapshot_timeline_sample_rotations",
    SAMPLE_DOC("snapshot_timeline_sample_rotations", "render_tick"), 1, 5,
    {{"render_tick", 1}}, SAMPLE_OUTS(4), timeline_sample_loop, ACPY_CHECKS,
    timeline_sample_rotations_context,
};
static const acpy_kernel buffer_sample = {
    "_snapshot_buffer_sample", SAMPLE_DOC("snapshot_buffer_sample", "entity, render_tick"), 2,
    5, {{"entity", ACPY_I64}, {"render_tick", 1}}, SAMPLE_OUTS(0), buffer_sample_loop,
    ACPY_SHARED | ACPY_CHECKS, buffer_sample_context,
};
static const acpy_kernel buffer_sample_rotations = {
    "_snapshot_buffer_sample_rotations",
    SAMPLE_DOC("snapshot_buffer_sample_rotations", "entity, render_tick"), 2, 5,
    {{"entity", ACPY_I64}, {"render_tick", 1}}, SAMPLE_OUTS(4),
    buffer_sample_loop, ACPY_SHARED | ACPY_CHECKS, buffer_sample_rotations_context,
};
static const acpy_kernel timeline_push = {
    "_snapshot_timeline_push", PUSH_DOC("snapshot_timeline_push", "tick, segment, position"),
    3, 1, {{"tick", ACPY_I64}, {"segment", ACPY_I64}, {"position", ACPY_CHANNELS}},
    {{"result", ACPY_U8}}, timeline_push_loop, ACPY_MUTATES, timeline_push_context,
};
static const acpy_kernel timeline_push_rotations = {
    "_snapshot_timeline_push_rotations",
    PUSH_DOC("snapshot_timeline_push_rotations", "tick, segment, position, rotation"), 4, 1,
    {{"tick", ACPY_I64}, {"segment", ACPY_I64}, {"position", ACPY_CHANNELS}, {"rotation", 4}},
    {{"result", ACPY_U8}}, timeline_push_loop, ACPY_MUTATES, timeline_push_rotations_context,
};
static const acpy_kernel buffer_push = {
    "_snapshot_buffer_push",
    PUSH_DOC("snapshot_buffer_push", "entity, tick, segment, generation, position"), 5, 1,
    {{"entity", ACPY_I64}, {"tick", ACPY_I64}, {"segment", ACPY_I64},
     {"generation", ACPY_I64}, {"position", ACPY_CHANNELS}},
    {{"result", ACPY_U8}}, buffer_push_loop, ACPY_MUTATES, buffer_push_context,
};
static const acpy_kernel buffer_push_rotations = {
    "_snapshot_buffer_push_rotations",
    PUSH_DOC("snapshot_buffer_push_rotations",
             "entity, tick, segment, generation, position, rotation"), 6, 1,
    {{"entity", ACPY_I64}, {"tick", ACPY_I64}, {"segment", ACPY_I64},
     {"generation", ACPY_I64}, {"position", ACPY_CHANNELS}, {"rotation", 4}},
    {{"result", ACPY_U8}}, buffer_push_loop, ACPY_MUTATES, buffer_push_rotations_context,
};

static const acpy_kernel *const kernels[] = {
    &timeline_sample, &timeline_sample_rotations, &buffer_sample, &buffer_sample_rotations,
    &timeline_push, &timeline_push_rotations, &buffer_push, &buffer_push_rotations};

int acpy_snapshot_init(PyObject *module)
{
    if (acpy_add_kernels(module, kernels, sizeof kernels / sizeof kernels[0]) < 0)
        return -1;
    return PyModule_AddFunctions(module, methods);
}

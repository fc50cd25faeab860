/* Binding of the one-call pose sampler (ac_pose_sample): the
   Python layer hands the clip's curves (their capsules), where each one's
   values go, and the pose arrays, which it has made C-contiguous and fresh. */
#include "binding.h"

#define MAX_OUTPUTS 8

/* The tracks of curves (a tuple of curve capsules) and slots (int64 (count,
   2): each curve's output and node), writing into outputs o (base[o], nodes[o]
   nodes of width[o] values per time): NULL with a ValueError when a curve is
   not one, or does not fit its output. PyMem_Free the result. */
static ac_pose_track *make_tracks(const char *func, PyObject *curves, PyArrayObject *slots,
                                  npy_intp nout, double *const *base, const npy_intp *nodes,
                                  const npy_intp *width)
{
    const npy_intp count = PyTuple_GET_SIZE(curves);
    const int64_t *slot = (const int64_t *)PyArray_DATA(slots);
    ac_pose_track *tracks;
    if (PyArray_NDIM(slots) != 2 || PyArray_DIM(slots, 0) != count ||
        PyArray_DIM(slots, 1) != 2) {
        PyErr_Format(PyExc_ValueError, "%s: slots must be (%zd, 2)", func, count);
        return NULL;
    }
    if (!(tracks = PyMem_Calloc(count ? (size_t)count : 1, sizeof *tracks))) {
        PyErr_NoMemory();
        return NULL;
    }
    for (npy_intp i = 0; i < count; i++) {
        PyObject *capsule = PyTuple_GET_ITEM(curves, i);
        ac_pose_track *tr = &tracks[i];
        int64_t o = slot[2 * i], node = slot[2 * i + 1];
        npy_intp w;
        tr->curve = acpy_curve_of(capsule);
        tr->rotation = tr->curve ? NULL : acpy_quat_curve_of(capsule);
        w = tr->curve ? (npy_intp)ac_curve_channels(tr->curve) : 4;
        if ((!tr->curve && !tr->rotation) || o < 0 || o >= nout || node < 0 ||
            node >= nodes[o] || w != width[o]) {
            PyMem_Free(tracks);
            PyErr_Format(PyExc_ValueError, "%s: curve %zd is not a curve of width %zd for "
                         "a node of output %lld", func, i, o >= 0 && o < nout ? width[o] : 0,
                         (long long)o);
            return NULL;
        }
        tr->out = base[o] + node * w;
        tr->stride = (size_t)(nodes[o] * w);
    }
    return tracks;
}

/* The times a thread takes at a time: ac_pose_sample goes over every track
   for each call, and locates the times of each block of 256 on each set of
   key times once. */
#define MIN_CHUNK 256

/* A pose sampling shared by threads, each taking a range of the times. */
typedef struct pose_job {
    const ac_pose_track *tracks;
    size_t count;
    const double *t;
} pose_job;

/* Times [begin, end) of the job: its tracks, their outputs moved on to
   `begin`, in the thread's scratch. */
static ac_status sample_range(const void *ctx, void *scratch, npy_intp begin, npy_intp end,
                              ac_error *err, npy_intp *err_flat)
{
    const pose_job *job = ctx;
    ac_pose_track *tracks = scratch;
    for (size_t i = 0; i < job->count; i++) {
        tracks[i] = job->tracks[i];
        tracks[i].out += (size_t)begin * tracks[i].stride;
    }
    *err_flat = begin; /* (the caller evaluates again to name a failure) */
    return ac_pose_sample(tracks, job->count, job->t + begin, (size_t)(end - begin), err);
}

/* _pose_sample(func, curves, slots, t, outputs, workers) -> bool. curves: a tuple of
   curve capsules (_curve_create's or _quat_curve_create's); slots: int64
   (count, 2), each curve's output and node; t: float64 (n,); outputs: a
   tuple of float64 arrays, output o of shape (n, N_o, W_o) (any leading
   shape of n items), written where a curve's node is, W_o the curve's
   width; workers as every kernel's (threads share the times). Returns
   True, or False when a curve's own evaluation fails (a time outside keys
   with 'error' extrapolation, an overflow): the caller then evaluates the
   curves one by one, which raises that error. */
static PyObject *pose_sample(PyObject *self, PyObject *args)
{
    const char *func;
    PyObject *curves, *outputs, *workers_arg;
    PyArrayObject *slots, *times, *out[MAX_OUTPUTS];
    npy_intp nodes[MAX_OUTPUTS], width[MAX_OUTPUTS], n, nout, err_flat;
    double *base[MAX_OUTPUTS];
    ac_pose_track *tracks;
    pose_job job;
    acpy_job threads;
    int workers;
    ac_status st;
    ac_error err;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO!O&O&O!O:_pose_sample", &func, &PyTuple_Type, &curves,
                          acpy_i64, &slots, acpy_f64, &times, &PyTuple_Type, &outputs,
                          &workers_arg) ||
        !acpy_workers(func, workers_arg, &workers))
        return NULL;
    n = PyArray_SIZE(times);
    nout = PyTuple_GET_SIZE(outputs);
    if (nout > MAX_OUTPUTS) {
        PyErr_Format(PyExc_ValueError, "%s: at most %d outputs", func, MAX_OUTPUTS);
        return NULL;
    }
    for (npy_intp o = 0; o < nout; o++) {
        int nd;
        if (!acpy_array(PyTuple_GET_ITEM(outputs, o), &out[o], NPY_DOUBLE, 1))
            return NULL;
        nd = PyArray_NDIM(out[o]);
        nodes[o] = nd >= 2 ? PyArray_DIM(out[o], nd - 2) : 0;
        width[o] = nd >= 2 ? PyArray_DIM(out[o], nd - 1) : 0;
        base[o] = ACPY_F64(out[o]);
        if (nd < 2 || PyArray_SIZE(out[o]) != n * nodes[o] * width[o]) {
            PyErr_Format(PyExc_ValueError, "%s: output %zd must be (n, N, W) for n = %zd "
                         "times", func, o, n);
            return NULL;
        }
    }
    if (!(tracks = make_tracks(func, curves, slots, nout, base, nodes, width)))
        return NULL;
    job.tracks = tracks;
    job.count = (size_t)PyTuple_GET_SIZE(curves);
    job.t = ACPY_F64(times);
    threads.run = sample_range;
    threads.ctx = &job;
    threads.scratch = (job.count ? job.count : 1) * sizeof *tracks;
    threads.work = 4 * (npy_intp)job.count; /* (values a time: at most 4 a track) */
    threads.min_chunk = MIN_CHUNK;
    ACPY_RUN(n * (npy_intp)job.count, st = acpy_run_job(&threads, n, workers, &err, &err_flat));
    PyMem_Free(tracks);
    if (st)
        Py_RETURN_FALSE;
    Py_RETURN_TRUE;
}

static PyMethodDef methods[] = {
    {"_pose_sample", pose_sample, METH_VARARGS,
     "_pose_sample(func, curves, slots, t, outputs, workers) -> bool: every curve of a clip "
     "sampled into pose arrays in one call"},
    {NULL, NULL, 0, NULL},
};

int acpy_pose_init(PyObject *module) { return PyModule_AddFunctions(module, methods); }

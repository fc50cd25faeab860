/* Shared helpers of the CPython/NumPy binding: the only headers that include
   Python.h and NumPy. Kernels are declared once and served by one generic
   entry point (acpy_call, below) that converts, broadcasts and walks any
   array-like by strides; the few other entry points (constructors, object
   state) take the C-contiguous arrays the Python layer prepares and check
   that contract with the converters here. All but the kernels that change
   an object (ACPY_MUTATES) release the GIL around the core on large inputs,
   and all map ac_error to exceptions. */
#ifndef ACPY_BINDING_H
#define ACPY_BINDING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_23_API_VERSION
#define NPY_TARGET_VERSION NPY_1_23_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL animcore_ARRAY_API
#ifndef ACPY_IMPORT_ARRAY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "../animcore.h"

/* Kernels on fewer elements than this keep the GIL: releasing it costs more. */
#define ACPY_GIL_THRESHOLD 512

/* Runs the statement `call` (a core kernel on n elements), releasing the GIL
   when n is large enough to pay for it. */
#define ACPY_RUN(n, call)                                                       \
    do {                                                                        \
        if ((n) > ACPY_GIL_THRESHOLD) {                                         \
            Py_BEGIN_ALLOW_THREADS call;                                        \
            Py_END_ALLOW_THREADS                                                \
        } else {                                                                \
            call;                                                               \
        }                                                                       \
    } while (0)

/* The data of a float64 array checked by the converters below. */
#define ACPY_F64(a) ((double *)PyArray_DATA(a))

/* Checks that obj is a C-contiguous, aligned, native array of NumPy type
   `type` (and writeable when asked); 0 with a TypeError or ValueError if not. */
int acpy_array(PyObject *obj, PyArrayObject **result, int type, int writeable);

/* PyArg_ParseTuple "O&" converters to a borrowed PyArrayObject* built on
   acpy_array: float64 inputs (acpy_f64), writeable outputs (acpy_f64_out),
   either or None giving NULL (acpy_f64_or_none, acpy_f64_out_or_none); int64
   the same way. */
int acpy_f64(PyObject *obj, void *result);
int acpy_f64_or_none(PyObject *obj, void *result);
int acpy_f64_out(PyObject *obj, void *result);
int acpy_f64_out_or_none(PyObject *obj, void *result);
int acpy_i64(PyObject *obj, void *result);
int acpy_i64_out(PyObject *obj, void *result);

/* A read-only float64 view of n (c == 0) or n x c doubles at data, owned by
   the object `owner` (a capsule), which the view keeps alive; NULL with an
   exception set on failure. */
PyObject *acpy_f64_view(PyObject *owner, const double *data, npy_intp n, npy_intp c);

/* True when `a` has exactly the shape of `like`; else a ValueError naming it. */
int acpy_same_shape(const char *func, const char *name, PyArrayObject *a,
                    PyArrayObject *like);

/* Raises the exception for a failed kernel call: ValueError, OverflowError or
   MemoryError with "func: arg at index (i, j) is value (detail)", the flat
   index unravelled over `shape` ("func: arg is value (detail)" when ndim is
   0). Returns NULL for `return acpy_raise(...)`. */
PyObject *acpy_raise(const char *func, const ac_error *err, int ndim,
                     const npy_intp *shape);

/* How one entry point reports the core's errors on one argument id: the
   index space its flat index unravels over (an index into the spaces given
   to acpy_raise_as, or ACPY_NO_INDEX), the Python name (NULL: the C name,
   ac_arg_name) and whether its values are integers (counts, ticks, ids). */
#define ACPY_NO_INDEX (-1)
typedef struct acpy_arg_error {
    ac_arg arg;
    int space;
    const char *name;
    int integer;
} acpy_arg_error;

/* A shape an error index unravels over. */
typedef struct acpy_space {
    int ndim;
    const npy_intp *dims;
} acpy_space;

/* acpy_raise with the error's argument looked up in `args` (count entries):
   ids not listed unravel over spaces[0] under their C name. */
PyObject *acpy_raise_as(const char *func, const ac_error *err, const acpy_arg_error *args,
                        size_t count, const acpy_space *spaces);

/* ------------------------------------------------------ declared kernels
   A kernel is declared once (its operands' names and core shapes, its loop)
   and served by one generic entry point, acpy_call:

       _core.<name>(func, [context,] input_0, ..., input_k, out, workers)

   which accepts any array-like inputs (bool, integer, float32 and float64 are
   read in place and converted block by block; other dtypes are converted
   once), broadcasts their loop axes like a ufunc and walks every operand by
   byte stride in blocks of about a thousand items: an operand that is
   contiguous over a block, or the same value across it, is handed to the loop
   as is, anything else is gathered into a block-sized scratch buffer. Core
   shapes have up to three axes, walked by their own strides. Errors name the
   index in the broadcast shape (and within an item, see error_items). `out`
   is None (fresh float64 arrays, or of the declared integer type, are
   returned; NumPy scalars for a scalar call) or the output arrays (one, or a
   tuple whose None entries get fresh arrays): any float dtype (any integer
   dtype for integer results), any strides; they are written only after a first pass has shown that the call
   succeeds, so an error leaves them untouched. `workers` (None, or an int
   with scipy.fft's meaning) has threads take chunks of items with the GIL
   released; every element is computed by the same code whatever the split,
   so results are identical. */

#define ACPY_MAX_IN 15
#define ACPY_MAX_OUT 8
#define ACPY_CHANNELS (-1) /* core shape (C): the context's channel count */
#define ACPY_ANGLES (-2)   /* core shape (3): three angles (not a vector) */
#define ACPY_3X3 (-3)      /* core shape (3, 3): matrices */
#define ACPY_4X4 (-4)      /* core shape (4, 4): affine matrices */
#define ACPY_C3 (-5)       /* core shape (C, 3): a vector per channel (joint) */
#define ACPY_C4 (-6)       /* core shape (C, 4): a quaternion per channel */
#define ACPY_C4X4 (-7)     /* core shape (C, 4, 4): a matrix per channel */
#define ACPY_U8 (-8)       /* () of uint8 (a code) */
#define ACPY_I64 (-9)      /* () of int64 (ticks, ids, counts) */
#define ACPY_SPIN (-10)    /* an angular velocity: () when C is 2, (3) when C is 3 */
#define ACPY_M (-11)       /* core shape (M): one value per the context's `count` (planes) */
#define ACPY_MC (-12)      /* core shape (M, C): a vector per the context's `count` */
#define ACPY_K (-13)       /* core shape (K): one value per the context's `slots` */
#define ACPY_KC (-14)      /* core shape (K, C): a vector per the context's `slots` */
#define ACPY_INTC (-15)    /* () of C int (counts) */
#define ACPY_K_INTC (-16)  /* (K) of C int (indices) */
/* An input's (M) axis may be missing or of length 1: one value for all M,
   as a broadcast axis.
   The loop buffers of the integer kinds (U8, I64, INTC, K_INTC) hold that C
   type, the type the core takes; all others hold float64. Integer inputs are
   read exactly from any integer or bool array (floats holding integers are
   converted once, with a named error for any other value), never through
   float64; integer outputs are fresh arrays of that type or the caller's
   arrays of any integer dtype that holds every value of that type (a
   safe cast: a narrower one would wrap). */

/* One operand: its name in messages and its core shape, the number of values
   per element (1 for (), 3 for (3), 4 for (4)) or one of the ACPY_ kinds
   above. */
typedef struct acpy_operand {
    const char *name;
    int width;
} acpy_operand;

/* What a kernel's context argument gives its loop: an object (a track), small
   options (easing kind, step count), parameters (control points), further
   data the object's loops read (a curve's time remaps) and the channel count
   of (C); `bare` makes (C) operands carry no axis at all (1-D curve values).
   The parser may also set how errors read (outside, error_items) and how
   the object is held while the loop runs (acquire, release). */
typedef struct acpy_context {
    const void *object;
    const void *detail;
    long option[2];
    double value[4];
    npy_intp channels;
    npy_intp count; /* the length of (M) core axes */
    npy_intp slots; /* the length of (K) core axes */
    npy_intp work;  /* the work of an item when more than its values (0: that) */
    int bare;
    int one_item; /* the caller expects one item: arrays of more are refused first */
    const char *outside; /* NULL, or the words of t outside an 'error' side (see below) */
    npy_intp error_items; /* > 1: the parts of an item errors can name (joints, planes) */
    ac_arg renamed;         /* an argument the caller names otherwise ... */
    const char *renamed_as; /* ... and that name (NULL: none) */
    /* arguments whose errors read otherwise (NULL: none): a name, integer
       values, and the space of the index (ACPY_ITEMS, ACPY_PARTS, ACPY_OWN or
       ACPY_NO_INDEX; see acpy_error_space) */
    const acpy_arg_error *errors;
    size_t nerrors;
    /* An object held for the call, when set: acquire runs once the arguments
       are converted and checked, just before the loop first runs (0 with an
       exception when the object is in use), and release once the loop is done,
       only after an acquire that succeeded; so that a bad or slow argument
       never holds the object. */
    int (*acquire)(const char *func, const struct acpy_context *ctx);
    void (*release)(const struct acpy_context *ctx);
} acpy_context;

/* The index space of the errors on one argument, as ctx->errors declares it
   (else ACPY_PARTS when error_items > 1, ACPY_ITEMS otherwise), and what the
   index a loop's core reports counts in each:
     ACPY_ITEMS     the item, from the loop call's first;
     ACPY_PARTS     item * error_items + part (a joint of a pose, the (sphere,
                    plane) pair), items from the loop call's first;
     ACPY_OWN       the part alone, an index into the context's own data (a
                    plane), the same in every call;
     ACPY_NO_INDEX  nothing (an option's value). */
#define ACPY_ITEMS 0
#define ACPY_PARTS 1
#define ACPY_OWN 2
int acpy_error_space(const acpy_context *ctx, ac_arg arg);

/* The item, from the loop call's first, of a failure its core reported,
   leaving in err->index what counts within the item (the part, or an
   ACPY_OWN index); 0 for ACPY_OWN and ACPY_NO_INDEX. */
npy_intp acpy_error_item(const acpy_context *ctx, ac_error *err);

/* Recounts the index of a failure of a core call on the loop's items from
   `first` on as the loop call's own (for a loop that calls its core on parts
   of its items). */
void acpy_error_after(const acpy_context *ctx, ac_error *err, size_t first);

/* The exception for a declared kernel's failure at flat item `item` of the
   loop shape (nd, dims), err->index counting within the item (as
   acpy_error_item leaves it). The index reported is, by the argument's
   space: the item's (ACPY_ITEMS), the item's and the part's within it
   (ACPY_PARTS), the part's alone (ACPY_OWN) or none (ACPY_NO_INDEX). A t
   outside the keys of an 'error' side reads "must lie in [lo, hi]
   (side='error')", or ctx->outside when set: a printf format of (lo, hi,
   side). */
PyObject *acpy_raise_item(const char *func, const ac_error *err, npy_intp item, int nd,
                          const npy_intp *dims, const acpy_context *ctx);

/* The loop over n elements: in[i] holds n items (steps[i] == 1) or one item
   shared by all (steps[i] == 0), out[j] n contiguous items. */
typedef ac_status (*acpy_loop)(const acpy_context *ctx, const double *const *in,
                               const size_t *steps, double *const *out, size_t n,
                               ac_error *err);

/* Parses the context argument into *ctx; 0 with an exception set on failure. */
typedef int (*acpy_context_parse)(const char *func, PyObject *arg, acpy_context *ctx);

/* ACPY_SHARED: the loop takes steps[i] == 0 for a shared input.
   ACPY_MUTATES: the loop changes the context's object (a push). The call runs
   on one thread, in order, in two passes over the whole call: the loop is
   called with out == NULL first and must then change nothing and report any
   failure of its arguments, and only when every block passes is it called to
   apply them. So an error leaves the object as it was. It keeps the GIL, so
   that changes to one object from several threads take turns.
   ACPY_IN_PLACE: the loop reads an item of input j before it writes that item
   of output j, so output j may be the input j array itself (the same elements;
   any other overlap of an output and an input is read from a copy).
   ACPY_CHECKS: called with out == NULL, the loop writes nothing and returns
   AC_OK only when it is certain to succeed on these inputs (else a failure
   with err->index set, as any failure has). When the caller's
   arrays are written and that check passes, it replaces the validation pass
   (a second evaluation); when it fails, that pass runs and finds the error. */
#define ACPY_SHARED 1
#define ACPY_CHECKS 2

/* What an ACPY_CHECKS loop returns when its check cannot vouch for the
   inputs: the call then runs its validation pass, which finds the error (if
   any) and its index. */
static inline ac_status acpy_unchecked(ac_error *err)
{
    err->status = AC_ERR_VALUE;
    err->index = 0;
    return AC_ERR_VALUE;
}

#define ACPY_MUTATES 4
#define ACPY_IN_PLACE 8
/* ACPY_LONG_RUNS: when every operand is read and written in place
   (contiguous float64, or a shared input), the loop gets each thread's whole
   run of items in one call rather than blocks: for a kernel that streams
   long runs past the caches (see ac_stream in ac_internal.h). */
#define ACPY_LONG_RUNS 16

typedef struct acpy_kernel {
    const char *name; /* entry point in animcore._core */
    const char *doc;
    int nin, nout;
    acpy_operand in[ACPY_MAX_IN];
    acpy_operand out[ACPY_MAX_OUT];
    acpy_loop loop;
    int flags;                  /* ACPY_SHARED, ACPY_CHECKS, ... (or 0) */
    acpy_context_parse context; /* NULL: the kernel takes no context argument */
} acpy_kernel;

/* Adds one entry point per declaration to the module. */
int acpy_add_kernels(PyObject *module, const acpy_kernel *const *kernels, size_t count);

/* Work on `total` items that threads can share (acpy_run_job, which
   partitions the items and hands out chunks of them): `run` does items
   [begin, end) in `scratch` (bytes of its own per thread, NULL when 0); on
   a failure it sets *err and *err_flat, the flat index of the failing item,
   and the call returns the failure with the lowest index, as one thread
   would have found it. */
typedef struct acpy_job {
    ac_status (*run)(const void *ctx, void *scratch, npy_intp begin, npy_intp end,
                     ac_error *err, npy_intp *err_flat);
    const void *ctx;
    size_t scratch;     /* bytes of scratch per thread (0: none) */
    npy_intp work;      /* the work of one item, in values: a thread is started
                           for each 65536 values of the whole job, up to workers */
    npy_intp min_chunk; /* fewest items a thread takes at a time */
} acpy_job;

/* Runs `job` on `total` items with up to `workers` threads, this one
   included. Called without the GIL. */
ac_status acpy_run_job(const acpy_job *job, npy_intp total, int workers, ac_error *err,
                       npy_intp *err_flat);

/* The worker count of a `workers` argument: None -> 1, n > 0 -> n, -1 -> every
   core, -k -> all but k - 1; 0 with a ValueError naming func otherwise. */
int acpy_workers(const char *func, PyObject *arg, int *workers);

/* Per-domain parts of the module: each adds its functions and types. */
int acpy_hermite_init(PyObject *module);
int acpy_curve_init(PyObject *module);
int acpy_snapshot_init(PyObject *module);
int acpy_rootmotion_init(PyObject *module);
int acpy_ease_init(PyObject *module);
int acpy_quat_init(PyObject *module);
int acpy_contact_init(PyObject *module);
int acpy_collide_init(PyObject *module);
int acpy_skeleton_init(PyObject *module);
int acpy_state_init(PyObject *module);
int acpy_tangents_init(PyObject *module);
int acpy_fbx_init(PyObject *module);
int acpy_blend_init(PyObject *module);
int acpy_ik_init(PyObject *module);
int acpy_cleanup_init(PyObject *module);
int acpy_reduce_init(PyObject *module);
int acpy_pose_init(PyObject *module);

/* The C curve of a capsule made by _curve_create (or _curve_create_keyed),
   or of one made by _quat_curve_create; NULL, with no exception set, for
   any other object. */
const ac_curve *acpy_curve_of(PyObject *capsule);
const ac_quat_curve *acpy_quat_curve_of(PyObject *capsule);

/* The C objects behind a snapshot handle (py_snapshot.c), one of them NULL,
   held for reading or (`write`) for writing as its own samples and pushes
   hold it: 0 with an exception naming `func` if it is not a handle or is in
   use the other way. Every successful acquire is followed by one release. */
int acpy_snapshot_acquire(const char *func, PyObject *handle, int write,
                          ac_snapshot_buffer **buffer, ac_snapshot_timeline **timeline);
void acpy_snapshot_release(PyObject *handle, int write);

#endif /* ACPY_BINDING_H */

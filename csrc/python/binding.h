/* Shared helpers of the CPython/NumPy binding: the only headers that include
   Python.h and NumPy. The public API in animcore/ normalizes arguments
   (dtype, broadcasting, contiguity); the binding only checks that contract,
   releases the GIL around the core kernels and maps ac_error to exceptions. */
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
   and uint8 the same way. */
int acpy_f64(PyObject *obj, void *result);
int acpy_f64_or_none(PyObject *obj, void *result);
int acpy_f64_out(PyObject *obj, void *result);
int acpy_f64_out_or_none(PyObject *obj, void *result);
int acpy_i64(PyObject *obj, void *result);
int acpy_i64_out(PyObject *obj, void *result);
int acpy_u8_out(PyObject *obj, void *result);

/* Broadcast step of an input for a kernel over n elements: 0 for a single
   value, 1 for n values; -1 with a ValueError for any other size. */
int acpy_step(const char *func, const char *name, PyArrayObject *a, npy_intp n,
              size_t *step);

/* The same for inputs made of items of `width` values (vectors, quaternions):
   0 for one item, 1 for n items. */
int acpy_item_step(const char *func, const char *name, PyArrayObject *a, npy_intp n,
                   npy_intp width, size_t *step);

/* True when `a` has exactly the shape of `like`; else a ValueError naming it. */
int acpy_same_shape(const char *func, const char *name, PyArrayObject *a,
                    PyArrayObject *like);

/* Raises the exception for a failed kernel call: ValueError, OverflowError or
   MemoryError with "func: arg at index (i, j) is value (detail)", the flat
   index unravelled over `shape`. Returns NULL for `return acpy_raise(...)`. */
PyObject *acpy_raise(const char *func, const ac_error *err, int ndim,
                     const npy_intp *shape);

/* Per-domain parts of the module: each adds its functions and types. */
int acpy_hermite_init(PyObject *module);
int acpy_curve_init(PyObject *module);
int acpy_snapshot_init(PyObject *module);
int acpy_rootmotion_init(PyObject *module);
int acpy_ease_init(PyObject *module);
int acpy_quat_init(PyObject *module);
int acpy_contact_init(PyObject *module);
int acpy_collide_init(PyObject *module);
int acpy_state_init(PyObject *module);

/* The C objects behind a snapshot handle (py_snapshot.c), one of them NULL,
   held for reading or (`write`) for writing as its own samples and pushes
   hold it: 0 with an exception naming `func` if it is not a handle or is in
   use the other way. Every successful acquire is followed by one release. */
int acpy_snapshot_acquire(const char *func, PyObject *handle, int write,
                          ac_snapshot_buffer **buffer, ac_snapshot_timeline **timeline);
void acpy_snapshot_release(PyObject *handle, int write);

#endif /* ACPY_BINDING_H */

/* State export and import of the stateful C objects, so that they pickle and
   copy with their exact state: the bytes of ac_snapshot_*_state_get/set. */
#include "binding.h"

/* _snapshot_state_get(func, handle) -> uint8 array: the exact state of a
   snapshot buffer or timeline. */
static PyObject *snapshot_state_get(PyObject *self, PyObject *args)
{
    const char *func;
    PyObject *handle;
    ac_snapshot_buffer *buffer;
    ac_snapshot_timeline *timeline;
    PyArrayObject *state;
    npy_intp size;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO:_snapshot_state_get", &func, &handle) ||
        !acpy_snapshot_acquire(func, handle, 0, &buffer, &timeline))
        return NULL;
    size = (npy_intp)(buffer ? ac_snapshot_buffer_state_size(buffer)
                             : ac_snapshot_timeline_state_size(timeline));
    state = (PyArrayObject *)PyArray_SimpleNew(1, &size, NPY_UINT8);
    if (state) { /* a copy of a few bytes per snapshot: the GIL stays held */
        if (buffer)
            ac_snapshot_buffer_state_get(buffer, PyArray_DATA(state));
        else
            ac_snapshot_timeline_state_get(timeline, PyArray_DATA(state));
    }
    acpy_snapshot_release(handle, 0);
    return (PyObject *)state;
}

/* _snapshot_state_set(func, handle, state): replaces the content of a handle
   created with the state's config by `state` (any contiguous bytes-like
   object); a ValueError naming `func` if the state is not valid for it. */
static PyObject *snapshot_state_set(PyObject *self, PyObject *args)
{
    const char *func;
    PyObject *handle;
    Py_buffer view;
    ac_snapshot_buffer *buffer;
    ac_snapshot_timeline *timeline;
    ac_error err;
    ac_status st;
    npy_intp entities;
    (void)self;
    if (!PyArg_ParseTuple(args, "sOy*:_snapshot_state_set", &func, &handle, &view))
        return NULL;
    if (!acpy_snapshot_acquire(func, handle, 1, &buffer, &timeline)) {
        PyBuffer_Release(&view);
        return NULL;
    }
    if (buffer)
        st = ac_snapshot_buffer_state_set(buffer, view.buf, (size_t)view.len, &err);
    else
        st = ac_snapshot_timeline_state_set(timeline, view.buf, (size_t)view.len, &err);
    acpy_snapshot_release(handle, 1);
    PyBuffer_Release(&view);
    if (st) {
        entities = (npy_intp)(buffer ? ac_snapshot_buffer_entities(buffer) : 0);
        return acpy_raise(func, &err, buffer ? 1 : 0, &entities);
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"_snapshot_state_get", snapshot_state_get, METH_VARARGS,
     "_snapshot_state_get(func, handle) -> uint8 array"},
    {"_snapshot_state_set", snapshot_state_set, METH_VARARGS,
     "_snapshot_state_set(func, handle, state)"},
    {NULL, NULL, 0, NULL},
};

int acpy_state_init(PyObject *module)
{
    return PyModule_AddFunctions(module, methods);
}

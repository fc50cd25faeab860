/* The extension module animcore._core: assembles the per-domain bindings. */
#define ACPY_IMPORT_ARRAY
#include "binding.h"

/* _workers(func, workers) -> int: the thread count, as every kernel reads
   workers= (for the callers that check it before a kernel reads it). */
static PyObject *workers_count(PyObject *self, PyObject *args)
{
    const char *func;
    PyObject *arg;
    int workers;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO:_workers", &func, &arg) ||
        !acpy_workers(func, arg, &workers))
        return NULL;
    return PyLong_FromLong(workers);
}

static PyMethodDef methods[] = {
    {"_workers", workers_count, METH_VARARGS,
     "_workers(func, workers) -> int: the thread count of workers=, as every kernel reads it"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "animcore._core",
    .m_doc = "Private binding of the animcore C core; use the animcore package.",
    .m_size = -1,
    .m_methods = methods,
};

/* Each domain's binding adds its functions and types to the module. */
static int (*const domains[])(PyObject *) = {
    acpy_hermite_init,
    acpy_curve_init,
    acpy_snapshot_init,
    acpy_rootmotion_init,
    acpy_ease_init,
    acpy_quat_init,
    acpy_contact_init,
    acpy_collide_init,
    acpy_skeleton_init,
    acpy_state_init,
    acpy_tangents_init,
    acpy_fbx_init,
    acpy_blend_init,
    acpy_ik_init,
    acpy_cleanup_init,
    acpy_reduce_init,
    acpy_pose_init,
};

PyMODINIT_FUNC PyInit__core(void);

PyMODINIT_FUNC PyInit__core(void)
{
    PyObject *module;
    if (PyArray_ImportNumPyAPI() < 0)
        return NULL;
    module = PyModule_Create(&core_module);
    if (!module)
        return NULL;
    for (size_t i = 0; i < sizeof domains / sizeof domains[0]; i++) {
        if (domains[i](module) < 0) {
            Py_DECREF(module);
            return NULL;
        }
    }
    return module;
}

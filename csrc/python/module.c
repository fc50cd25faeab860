/* The extension module animcore._core: assembles the per-domain bindings. */
#define ACPY_IMPORT_ARRAY
#include "binding.h"

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "animcore._core",
    .m_doc = "Private binding of the animcore C core; use the animcore package.",
    .m_size = -1,
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
    if (acpy_hermite_init(module) < 0 || acpy_curve_init(module) < 0 ||
        acpy_ease_init(module) < 0 || acpy_quat_init(module) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}

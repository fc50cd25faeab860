/* Binding of the contact between two moving rigid bodies (ac_contact_collide). */
#include "binding.h"

/* Steps of one body's inputs over n contacts. */
static int body_steps(const char *func, const char *const names[5], PyArrayObject *in[5],
                      npy_intp n, npy_intp dim, int tensor, size_t steps[5])
{
    const npy_intp widths[5] = {dim, dim == 2 ? 1 : 3, 1, tensor ? 9 : 1, dim};
    for (int k = 0; k < 5; k++)
        if (acpy_item_step(func, names[k], in[k], n, widths[k], &steps[k]) < 0)
            return -1;
    return 0;
}

static PyObject *collide(PyObject *self, PyObject *args)
{
    static const char *const names_a[5] = {"a.velocity", "a.angular_velocity",
                                           "a.inverse_mass", "a.inverse_inertia", "a.center"};
    static const char *const names_b[5] = {"b.velocity", "b.angular_velocity",
                                           "b.inverse_mass", "b.inverse_inertia", "b.center"};
    static const char *const names_c[5] = {"normal", "point", "restitution", "friction",
                                           "threshold"};
    const char *func;
    PyArrayObject *a[5], *b[5], *c[5], *o[6];
    int tensor_a, tensor_b, nd;
    size_t steps[5];
    npy_intp n, dim;
    ac_body body_a, body_b;
    ac_body_update new_a, new_b;
    ac_error err;
    ac_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "s(O&O&O&O&O&)p(O&O&O&O&O&)p(O&O&O&O&O&)(O&O&O&O&O&O&):_collide",
                          &func, acpy_f64, &a[0], acpy_f64, &a[1], acpy_f64, &a[2], acpy_f64,
                          &a[3], acpy_f64, &a[4], &tensor_a, acpy_f64, &b[0], acpy_f64, &b[1],
                          acpy_f64, &b[2], acpy_f64, &b[3], acpy_f64, &b[4], &tensor_b,
                          acpy_f64, &c[0], acpy_f64, &c[1], acpy_f64, &c[2], acpy_f64, &c[3],
                          acpy_f64, &c[4], acpy_f64_out, &o[0], acpy_f64_out, &o[1],
                          acpy_f64_out, &o[2], acpy_f64_out, &o[3], acpy_f64_out, &o[4],
                          acpy_f64_out, &o[5]))
        return NULL;
    nd = PyArray_NDIM(o[0]);
    dim = nd ? PyArray_DIM(o[0], nd - 1) : 0;
    n = PyArray_SIZE(o[4]);
    if ((dim != 2 && dim != 3) || PyArray_SIZE(o[0]) != n * dim ||
        PyArray_SIZE(o[2]) != n * dim || PyArray_SIZE(o[5]) != n * dim ||
        PyArray_SIZE(o[1]) != n * (dim == 2 ? 1 : 3) || PyArray_SIZE(o[3]) != PyArray_SIZE(o[1])) {
        PyErr_Format(PyExc_ValueError, "%s: results must hold n vectors of 2 or 3 components",
                     func);
        return NULL;
    }
    if (body_steps(func, names_a, a, n, dim, tensor_a, body_a.steps) < 0 ||
        body_steps(func, names_b, b, n, dim, tensor_b, body_b.steps) < 0)
        return NULL;
    for (int k = 0; k < 5; k++)
        if (acpy_item_step(func, names_c[k], c[k], n, k < 2 ? dim : 1, &steps[k]) < 0)
            return NULL;
    body_a.velocity = ACPY_F64(a[0]);
    body_a.angular_velocity = ACPY_F64(a[1]);
    body_a.inverse_mass = ACPY_F64(a[2]);
    body_a.inverse_inertia = ACPY_F64(a[3]);
    body_a.center = ACPY_F64(a[4]);
    body_a.inertia_tensor = tensor_a;
    body_b.velocity = ACPY_F64(b[0]);
    body_b.angular_velocity = ACPY_F64(b[1]);
    body_b.inverse_mass = ACPY_F64(b[2]);
    body_b.inverse_inertia = ACPY_F64(b[3]);
    body_b.center = ACPY_F64(b[4]);
    body_b.inertia_tensor = tensor_b;
    new_a.velocity = ACPY_F64(o[0]);
    new_a.angular_velocity = ACPY_F64(o[1]);
    new_b.velocity = ACPY_F64(o[2]);
    new_b.angular_velocity = ACPY_F64(o[3]);
    ACPY_RUN(n, st = ac_contact_collide(&body_a, &body_b, ACPY_F64(c[0]), ACPY_F64(c[1]),
                                        ACPY_F64(c[2]), ACPY_F64(c[3]), ACPY_F64(c[4]), steps,
                                        (size_t)dim, &new_a, &new_b, ACPY_F64(o[4]),
                                        ACPY_F64(o[5]), (size_t)n, &err));
    if (st)
        return acpy_raise(func, &err, PyArray_NDIM(o[4]), PyArray_DIMS(o[4]));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"_collide", collide, METH_VARARGS,
     "_collide(func, (a's velocity, angular_velocity, inverse_mass, inverse_inertia, center), "
     "a_tensor, (b's ...), b_tensor, (normal, point, restitution, friction, threshold), "
     "(velocity_a, angular_velocity_a, velocity_b, angular_velocity_b, normal_impulse, "
     "tangent_impulse)); func names the caller in error messages"},
    {NULL, NULL, 0, NULL},
};

int acpy_collide_init(PyObject *module)
{
    return PyModule_AddFunctions(module, methods);
}

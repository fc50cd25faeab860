#include "binding.h"

static ac_status hermite_loop(const acpy_context *ctx, const double *const *in,
                              const size_t *steps, double *const *out, size_t n,
                              ac_error *err)
{
    (void)ctx;
    if (!out) /* ACPY_CHECKS */
        return ac_hermite_check(in[0], in[1], in[2], in[3], in[4], in[5], steps, n)
                   ? AC_OK
                   : acpy_unchecked(err);
    return ac_hermite_eval(in[0], in[1], in[2], in[3], in[4], in[5], steps, out[0], out[1], n,
                           err);
}

static ac_status to_tangent_loop(const acpy_context *ctx, const double *const *in,
                                 const size_t *steps, double *const *out, size_t n,
                                 ac_error *err)
{
    (void)ctx;
    return ac_hermite_velocity_to_tangent(in[0], in[1], steps, out[0], n, err);
}

static ac_status to_velocity_loop(const acpy_context *ctx, const double *const *in,
                                  const size_t *steps, double *const *out, size_t n,
                                  ac_error *err)
{
    (void)ctx;
    return ac_hermite_tangent_to_velocity(in[0], in[1], steps, out[0], n, err);
}

static const acpy_kernel hermite_eval = {
    "_hermite_eval",
    "_hermite_eval(func, start, end, start_velocity, end_velocity, duration, elapsed, out, "
    "workers) -> (position, velocity)",
    6, 2,
    {{"start", 1}, {"end", 1}, {"start_velocity", 1}, {"end_velocity", 1}, {"duration", 1},
     {"elapsed", 1}},
    {{"position", 1}, {"velocity", 1}},
    hermite_loop, ACPY_SHARED | ACPY_CHECKS, NULL,
};

static const acpy_kernel velocity_to_tangent = {
    "_velocity_to_tangent",
    "_velocity_to_tangent(func, velocity, duration, out, workers) -> tangent",
    2, 1, {{"velocity", 1}, {"duration", 1}}, {{"tangent", 1}},
    to_tangent_loop, 1, NULL,
};

static const acpy_kernel tangent_to_velocity = {
    "_tangent_to_velocity",
    "_tangent_to_velocity(func, tangent, duration, out, workers) -> velocity",
    2, 1, {{"tangent", 1}, {"duration", 1}}, {{"velocity", 1}},
    to_velocity_loop, 1, NULL,
};

static PyObject *hermite_init(PyObject *self, PyObject *args)
{
    double start, end, v0, v1, duration;
    ac_hermite seg;
    ac_error err;
    (void)self;
    if (!PyArg_ParseTuple(args, "ddddd:_hermite_init", &start, &end, &v0, &v1, &duration))
        return NULL;
    if (ac_hermite_init(&seg, start, end, v0, v1, duration, &err))
        return acpy_raise("HermiteSegment", &err, 0, NULL);
    return Py_BuildValue("dd", seg.start_tangent, seg.end_tangent);
}

static PyMethodDef methods[] = {
    {"_hermite_init", hermite_init, METH_VARARGS,
     "_hermite_init(start, end, start_velocity, end_velocity, duration) -> tangents"},
    {NULL, NULL, 0, NULL},
};

static const acpy_kernel *const kernels[] = {&hermite_eval, &velocity_to_tangent,
                                             &tangent_to_velocity};

int acpy_hermite_init(PyObject *module)
{
    if (acpy_add_kernels(module, kernels, sizeof kernels / sizeof kernels[0]) < 0)
        return -1;
    return PyModule_AddFunctions(module, methods);
}

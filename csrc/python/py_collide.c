/* Binding of the contact between two moving rigid bodies (ac_contact_collide). */
#include "binding.h"

#include <string.h>

/* ------------------------------------------------------- declared kernels
   The contact of two bodies: the context is (dim, a's inertia is a tensor,
   b's is), (C) is dim; one declaration per kind of the two inertias. */

static int collide_context(const char *func, PyObject *arg, acpy_context *ctx)
{
    long v[3];
    if (!PyTuple_Check(arg) || PyTuple_GET_SIZE(arg) != 3) {
        PyErr_Format(PyExc_TypeError, "%s: the contact context is (dim, tensor_a, tensor_b)",
                     func);
        return 0;
    }
    for (int i = 0; i < 3; i++)
        if ((v[i] = PyLong_AsLong(PyTuple_GET_ITEM(arg, i))) == -1 && PyErr_Occurred())
            return 0;
    ctx->channels = v[0];
    ctx->option[0] = (v[1] != 0) | (v[2] != 0) << 1;
    return 1;
}

static void load_body(ac_body *body, const double *const *in, const size_t *steps, int tensor)
{
    body->velocity = in[0];
    body->angular_velocity = in[1];
    body->inverse_mass = in[2];
    body->inverse_inertia = in[3];
    body->center = in[4];
    memcpy(body->steps, steps, sizeof body->steps);
    body->inertia_tensor = tensor;
}

static ac_status collide_loop(const acpy_context *ctx, const double *const *in,
                              const size_t *steps, double *const *out, size_t n, ac_error *err)
{
    ac_body a, b;
    ac_body_update new_a = {out[0], out[1]}, new_b = {out[2], out[3]};
    load_body(&a, in, steps, (int)(ctx->option[0] & 1));
    load_body(&b, in + 5, steps + 5, (int)(ctx->option[0] >> 1 & 1));
    return ac_contact_collide(&a, &b, in[10], in[11], in[12], in[13], in[14], steps + 10,
                              (size_t)ctx->channels, &new_a, &new_b, out[4], out[5], n, err);
}

#define COLLIDE_KERNEL(var, name, inertia_a, inertia_b)                                      \
    static const acpy_kernel var = {                                                         \
        name,                                                                                \
        name "(func, (dim, tensor_a, tensor_b), a's velocity, angular_velocity, "            \
             "inverse_mass, inverse_inertia, center, b's ..., normal, point, restitution, "  \
             "friction, threshold, out, workers) -> (velocity_a, angular_velocity_a, "       \
             "velocity_b, angular_velocity_b, normal_impulse, tangent_impulse)",             \
        15,                                                                                  \
        6,                                                                                   \
        {{"a.velocity", ACPY_CHANNELS}, {"a.angular_velocity", ACPY_SPIN},                   \
         {"a.inverse_mass", 1}, {"a.inverse_inertia", inertia_a}, {"a.center", ACPY_CHANNELS},\
         {"b.velocity", ACPY_CHANNELS}, {"b.angular_velocity", ACPY_SPIN},                   \
         {"b.inverse_mass", 1}, {"b.inverse_inertia", inertia_b}, {"b.center", ACPY_CHANNELS},\
         {"normal", ACPY_CHANNELS}, {"point", ACPY_CHANNELS}, {"restitution", 1},            \
         {"friction", 1}, {"threshold", 1}},                                                 \
        {{"velocity_a", ACPY_CHANNELS}, {"angular_velocity_a", ACPY_SPIN},                   \
         {"velocity_b", ACPY_CHANNELS}, {"angular_velocity_b", ACPY_SPIN},                   \
         {"normal_impulse", 1}, {"tangent_impulse", ACPY_CHANNELS}},                         \
        collide_loop,                                                                        \
        1,                                                                                   \
        collide_context,                                                                     \
    }

COLLIDE_KERNEL(collide_scalar, "_collide", 1, 1);
COLLIDE_KERNEL(collide_tensor_a, "_collide_tensor_a", ACPY_3X3, 1);
COLLIDE_KERNEL(collide_tensor_b, "_collide_tensor_b", 1, ACPY_3X3);
COLLIDE_KERNEL(collide_tensors, "_collide_tensors", ACPY_3X3, ACPY_3X3);

static const acpy_kernel *const kernels[] = {&collide_scalar, &collide_tensor_a,
                                             &collide_tensor_b, &collide_tensors};

int acpy_collide_init(PyObject *module)
{
    return acpy_add_kernels(module, kernels, sizeof kernels / sizeof kernels[0]);
}

/* The core's contact kernels: article 002's figures, the restitution law and
   frame invariance over rotated normals, friction, threshold, contact-point
   velocity, continuous stepping of spheres, and every error branch. */
#include <float.h>
#include <string.h>

#include "ac_test.h"

static const size_t one_wall[6] = {1, 0, 0, 0, 0, 0};

static ac_status bounce2(const double v[2], const double u[2], const double n[2], double e,
                         double mu, double threshold, double out[2], ac_error *err)
{
    return ac_contact_bounce(v, u, n, &e, &mu, &threshold, NULL, 2, out, 1, err);
}

static void article_figures(void)
{
    const double wall[2] = {2, 0}, n[2] = {1, 0};
    double v[2][2] = {{-3, 4}, {1, 4}}, out[2][2], again[2];
    double e = 0.5, zero = 0.0;
    ac_error err;
    CHECK(ac_contact_bounce(&v[0][0], wall, n, &e, &zero, &zero, one_wall, 2, &out[0][0], 2,
                            &err) == AC_OK);
    CHECK_NEAR(out[0][0], 4.5, 1e-15);
    CHECK_NEAR(out[0][1], 4.0, 0.0);
    CHECK_NEAR(out[1][0], 2.5, 1e-15); /* moving right, yet approaching */
    CHECK_NEAR(out[1][1], 4.0, 0.0);
    /* separating now: unchanged, idempotent */
    CHECK(bounce2(out[0], wall, n, 0.5, 0, 0, again, &err) == AC_OK);
    CHECK(again[0] == out[0][0] && again[1] == out[0][1]);
    /* world kinetic energy rises: 12.5 J -> 18.125 J per kg */
    CHECK_NEAR(0.5 * (out[0][0] * out[0][0] + out[0][1] * out[0][1]), 18.125, 1e-12);
    /* e = 0 matches the wall's normal speed, keeps the tangent */
    CHECK(bounce2(v[0], wall, n, 0.0, 0, 0, again, &err) == AC_OK);
    CHECK_NEAR(again[0], 2.0, 1e-15);
    CHECK(again[1] == 4.0);
}

/* Rotated normals in 2-D and 3-D: the restitution law, the kept tangent, and
   invariance under adding a common velocity to v and u. */
static void law_and_frame_boost(void)
{
    enum { N = 2000 };
    static double v[N * 3], u[N * 3], n[N * 3], e[N], out[N * 3], vb[N * 3], ub[N * 3],
        outb[N * 3];
    const double boost[3] = {17, -23, 5.5};
    size_t steps[6] = {1, 1, 1, 1, 0, 0};
    double zero = 0.0, worst = 0.0;
    unsigned seed = 12345;
    for (int dim = 2; dim <= 3; dim++) {
        for (size_t i = 0; i < N; i++) {
            double a = 0.001 * (double)i * 6.283, b = 0.37 * (double)i;
            double nn[3] = {cos(a) * cos(b), sin(a) * cos(b), dim == 3 ? sin(b) : 0.0};
            double len;
            if (dim == 2)
                nn[0] = cos(a), nn[1] = sin(a);
            len = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
            for (int k = 0; k < dim; k++) {
                seed = seed * 1103515245u + 12345u;
                u[i * dim + k] = (double)(seed >> 8) / (1 << 24) * 30 - 15;
                seed = seed * 1103515245u + 12345u;
                v[i * dim + k] = (double)(seed >> 8) / (1 << 24) * 40 - 20;
                n[i * dim + k] = nn[k] / len;
                vb[i * dim + k] = v[i * dim + k] + boost[k];
                ub[i * dim + k] = u[i * dim + k] + boost[k];
            }
            e[i] = (double)(i % 101) / 100.0;
        }
        CHECK(ac_contact_bounce(v, u, n, e, &zero, &zero, steps, (size_t)dim, out, N, NULL) ==
              AC_OK);
        CHECK(ac_contact_bounce(vb, ub, n, e, &zero, &zero, steps, (size_t)dim, outb, N,
                                NULL) == AC_OK);
        for (size_t i = 0; i < N; i++) {
            double s = 0, s2 = 0, scale = 60, wt[3], wt2[3];
            for (int k = 0; k < dim; k++) {
                s += (v[i * dim + k] - u[i * dim + k]) * n[i * dim + k];
                s2 += (out[i * dim + k] - u[i * dim + k]) * n[i * dim + k];
            }
            for (int k = 0; k < dim; k++) {
                wt[k] = v[i * dim + k] - u[i * dim + k] - s * n[i * dim + k];
                wt2[k] = out[i * dim + k] - u[i * dim + k] - s2 * n[i * dim + k];
                CHECK_NEAR(wt2[k], wt[k], 1e-12 * scale);
                CHECK_NEAR(outb[i * dim + k] - boost[k], out[i * dim + k], 1e-12 * scale);
                worst = fmax(worst, fabs(outb[i * dim + k] - boost[k] - out[i * dim + k]));
            }
            if (s < 0)
                CHECK_NEAR(s2, -e[i] * s, 1e-12 * scale);
            else
                for (int k = 0; k < dim; k++)
                    CHECK(out[i * dim + k] == v[i * dim + k]);
        }
    }
    CHECK(worst < 1e-12 * 60);
}

/* The batch layout with one restitution and threshold has its own vector
   code: it must agree bit for bit with the general loop, tail included, and
   find the same first failure. */
static void layouts_agree(void)
{
    enum { N = 1003 };
    static double v[N * 3], u[N * 3], n[N * 3], e[N], th[N], mu[N], fast[N * 3], slow[N * 3];
    const size_t fast_steps[6] = {1, 1, 1, 0, 0, 0}, slow_steps[6] = {1, 1, 1, 1, 1, 1};
    double e0 = 0.7, th0 = 2.0, zero = 0.0;
    ac_error err;
    for (size_t i = 0; i < N; i++) {
        double a = 0.01 * (double)i, b = 0.3 * (double)i;
        double nn[3] = {cos(a) * cos(b), sin(a) * cos(b), sin(b)};
        for (int k = 0; k < 3; k++) {
            n[i * 3 + k] = nn[k];
            v[i * 3 + k] = 10.0 * sin(1.7 * (double)i + k);
            u[i * 3 + k] = 3.0 * cos(0.9 * (double)i - k);
        }
        e[i] = e0, th[i] = th0, mu[i] = 0.0;
    }
    CHECK(ac_contact_bounce(v, u, n, &e0, &zero, &th0, fast_steps, 3, fast, N, &err) == AC_OK);
    CHECK(ac_contact_bounce(v, u, n, e, mu, th, slow_steps, 3, slow, N, &err) == AC_OK);
    CHECK(memcmp(fast, slow, sizeof fast) == 0);
    for (size_t skip = 1; skip < 4; skip++) { /* other alignments of the result */
        memset(fast, 0, sizeof fast);
        CHECK(ac_contact_bounce(v + 3 * skip, u + 3 * skip, n + 3 * skip, &e0, &zero, &th0,
                                fast_steps, 3, fast + 3 * skip, N - skip, &err) == AC_OK);
        CHECK(memcmp(fast + 3 * skip, slow + 3 * skip, (N - skip) * 3 * sizeof *fast) == 0);
    }
    n[7 * 3] *= 1.5; /* the first bad normal, then a bad one in the tail */
    n[1001 * 3] = NAN;
    CHECK(ac_contact_bounce(v, u, n, &e0, &zero, &th0, fast_steps, 3, fast, N, &err) ==
          AC_ERR_VALUE);
    CHECK(err.index == 7 && err.arg == AC_ARG_NORMAL_LENGTH2);
    n[7 * 3] /= 1.5;
    CHECK(ac_contact_bounce(v, u, n, &e0, &zero, &th0, fast_steps, 3, fast, N, &err) ==
          AC_ERR_VALUE);
    CHECK(err.index == 1001 && err.arg == AC_ARG_NORMAL);
    n[1001 * 3] = 1.0;
    for (int k = 0; k < 3; k++) { /* an approach whose result overflows: 2.4 DBL_MAX n */
        v[500 * 3 + k] = -DBL_MAX * n[500 * 3 + k];
        u[500 * 3 + k] = DBL_MAX * n[500 * 3 + k];
    }
    CHECK(ac_contact_bounce(v, u, n, &e0, &zero, &th0, fast_steps, 3, fast, N, &err) ==
          AC_ERR_OVERFLOW);
    CHECK(err.index == 500);
}

static void friction_and_threshold(void)
{
    const double still[2] = {0, 0}, belt[2] = {0, 5}, n[2] = {1, 0}, v[2] = {-3, 4};
    const double wall[2] = {2, 0};
    double out[2];
    ac_error err;
    CHECK(bounce2(v, still, n, 0.5, 0.1, 0, out, &err) == AC_OK);
    CHECK_NEAR(out[0], 1.5, 1e-15);
    CHECK_NEAR(out[1], 3.55, 1e-15);
    CHECK(bounce2(v, still, n, 0.5, 10, 0, out, &err) == AC_OK); /* stops, not reversed */
    CHECK(out[1] == 0.0);
    CHECK(bounce2(v, belt, n, 0.5, 10, 0, out, &err) == AC_OK); /* carried by the belt */
    CHECK_NEAR(out[1], 5.0, 1e-15);
    CHECK(bounce2(v, still, n, 0.5, DBL_MAX, 0, out, &err) == AC_OK); /* jt = inf */
    CHECK(out[1] == 0.0);
    /* threshold: approach speed 5 against the wall */
    CHECK(bounce2(v, wall, n, 0.5, 0, 4.0, out, &err) == AC_OK);
    CHECK_NEAR(out[0], 4.5, 1e-15);
    CHECK(bounce2(v, wall, n, 0.5, 0, 5.0, out, &err) == AC_OK);
    CHECK_NEAR(out[0], 2.0, 1e-15);
    /* 3-D friction keeps the tangent's direction */
    {
        const double v3[3] = {3, -4, -2}, u3[3] = {0, 0, 0}, n3[3] = {0, 0, 1};
        double e = 1, mu = 0.5, th = 0, o[3];
        CHECK(ac_contact_bounce(v3, u3, n3, &e, &mu, &th, NULL, 3, o, 1, &err) == AC_OK);
        CHECK_NEAR(o[2], 2.0, 1e-15);
        CHECK_NEAR(o[0], 3.0 * (1 - 2.0 / 5.0), 1e-15); /* |wt| 5 loses 0.5 * 2 * 2 = 2 */
        CHECK_NEAR(o[1], -4.0 * (1 - 2.0 / 5.0), 1e-15);
    }
    /* a tangent whose square overflows */
    {
        const double big[2] = {-1e199, 1e200};
        CHECK(bounce2(big, still, n, 1.0, 0.5, 0, out, &err) == AC_OK);
        CHECK_NEAR(out[0], 1e199, 1e185);
        CHECK_NEAR(out[1], 1e200 - 1e199, 1e186);
    }
}

/* ac_contact_bounce_check never accepts what the bounce rejects, and
   accepts ordinary contacts: random approaching and separating velocities,
   unit normals, coefficients in range; half the trials with one extreme
   value (a huge or non-finite component, a normal off unit length, a
   coefficient out of range), in 2-D and 3-D, inputs shared or not, with
   friction or without. */
static void bounce_check(void)
{
    enum { N = 12 };
    static const double extremes[] = {0x1p500, -0x1.0000000000001p500, 1e300, -DBL_MAX,
                                      INFINITY, NAN, -1e-300, 1.0 + 1e-15};
    unsigned state = 4242u;
    int accepted = 0;
    for (int trial = 0; trial < 6000; trial++) {
        double v[3 * N], u[3 * N], nrm[3 * N], e[N], mu[N], th[N], out[3 * N];
        double *inputs[6] = {v, u, nrm, e, mu, th};
        size_t dim = 2 + (size_t)(trial % 2), steps[6] = {1, (size_t)(trial % 3 != 0), 1,
                                                          (size_t)(trial % 5 != 0),
                                                          (size_t)(trial % 7 != 0), 1};
        int check;
        for (int i = 0; i < N; i++) {
            double len = 0.0;
            for (size_t k = 0; k < 3; k++) {
                state = state * 1103515245u + 12345u;
                v[3 * i + k] = (double)(state >> 8) / 16777216.0 * 4.0 - 2.0;
                state = state * 1103515245u + 12345u;
                u[3 * i + k] = (double)(state >> 8) / 16777216.0 - 0.5;
                state = state * 1103515245u + 12345u;
                nrm[3 * i + k] = k < dim ? (double)(state >> 8) / 16777216.0 - 0.5 : 0.0;
                len += nrm[3 * i + k] * nrm[3 * i + k];
            }
            for (size_t k = 0; k < dim; k++)
                nrm[dim * i + k] = nrm[3 * i + k] / sqrt(len);
            state = state * 1103515245u + 12345u;
            e[i] = (double)(state >> 8) / 16777216.0;
            mu[i] = trial % 4 < 2 ? 0.0 : e[i] * 3.0, th[i] = e[i] * 0.5;
        }
        for (int i = 0; i < 3 * N; i++) /* packed to dim per contact */
            if ((size_t)(i % 3) < dim)
                v[dim * (i / 3) + i % 3] = v[i], u[dim * (i / 3) + i % 3] = u[i];
        if (trial % 4 == 1 || trial % 4 == 3) {
            int which;
            state = state * 1103515245u + 12345u;
            which = (int)((state >> 4) % 6);
            if (which == 2 && (state >> 12) % 2) /* a normal just off unit length */
                for (size_t k = 0, i = (state >> 8) % N; k < dim; k++)
                    nrm[dim * i + k] *= (state >> 13) % 2 ? 1.0 + 7.5e-13 : 1.0 - 7.5e-13;
            else
                inputs[which][(state >> 8) % (which < 3 ? dim * N : N)] =
                    extremes[(state >> 16) % 8];
        }
        check = ac_contact_bounce_check(v, u, nrm, e, mu, th, steps, dim, N);
        if (check)
            CHECK(ac_contact_bounce(v, u, nrm, e, mu, th, steps, dim, out, N, NULL) == AC_OK);
        if (trial % 2 == 0)
            CHECK(check);
        accepted += check;
    }
    CHECK(accepted > 3000 && accepted < 5900);
    {
        const double zero[3] = {0.0, 0.0, 1.0};
        CHECK(!ac_contact_bounce_check(zero, zero, zero, zero, zero, zero, NULL, 4, 1));
        CHECK(ac_contact_bounce_check(zero, zero, zero + 1, zero, zero, zero, NULL, 2, 1));
    }
}

/* The check never accepts what the kernel rejects, and accepts ordinary
   inputs: random vectors, half the trials with one extreme component, in 2-D
   and 3-D, inputs shared (step 0) or not. */
static void point_velocity_check(void)
{
    enum { N = 12 };
    static const double extremes[] = {0x1p510, -0x1.0000000000001p510, 1e200, 1e300, -DBL_MAX,
                                      INFINITY, NAN, 0.0};
    unsigned state = 99u;
    int accepted = 0;
    for (int trial = 0; trial < 4000; trial++) {
        double v[3 * N], w[3 * N], r[3 * N], out[3 * N], *inputs[3] = {v, w, r};
        size_t dim = 2 + (size_t)(trial % 2), steps[3] = {(size_t)(trial % 3 != 0), 1,
                                                          (size_t)(trial % 5 != 0)};
        int check;
        for (int i = 0; i < 3 * N; i++)
            for (int k = 0; k < 3; k++) {
                state = state * 1103515245u + 12345u;
                inputs[k][i] = (double)(state >> 8) / 16777216.0 * 4.0 - 2.0;
            }
        if (trial % 4 >= 2) {
            state = state * 1103515245u + 12345u;
            inputs[(state >> 4) % 3][(state >> 8) % (3 * N)] = extremes[(state >> 12) % 8];
            if (trial % 8 >= 6) /* a second one: a large offset under a large spin */
                inputs[1 + (state >> 20) % 2][(state >> 16) % (3 * N)] = 1e300;
        }
        check = ac_contact_point_velocity_check(v, w, r, steps, dim, N);
        if (check)
            CHECK(ac_contact_point_velocity(v, w, r, steps, dim, out, N, NULL) == AC_OK);
        if (trial % 4 < 2)
            CHECK(check);
        accepted += check;
    }
    CHECK(accepted > 2000 && accepted < 3900);
}

static void point_velocity(void)
{
    const double lin2[2] = {1, 0}, off2[2] = {0, 1}, w2 = 1, lin3[3] = {0, 0, 0},
                 w3[3] = {0, 0, 2}, off3[3] = {1, 0, 0};
    double out[3];
    ac_error err;
    CHECK(ac_contact_point_velocity(lin2, &w2, off2, NULL, 2, out, 1, &err) == AC_OK);
    CHECK(out[0] == 0.0 && out[1] == 0.0);
    CHECK(ac_contact_point_velocity(lin3, w3, off3, NULL, 3, out, 1, &err) == AC_OK);
    CHECK(out[0] == 0.0 && out[1] == 2.0 && out[2] == 0.0);
    {
        const double bad[3] = {0, NAN, 0}, huge = 1e308, far[2] = {1e10, 0};
        CHECK(ac_contact_point_velocity(lin3, bad, off3, NULL, 3, out, 1, &err) ==
              AC_ERR_VALUE);
        CHECK(err.arg == AC_ARG_ANGULAR_VELOCITY);
        CHECK(ac_contact_point_velocity(lin2, &huge, far, NULL, 2, out, 1, &err) ==
              AC_ERR_OVERFLOW);
        CHECK(err.arg == AC_ARG_RESULT);
        CHECK(ac_contact_point_velocity(lin2, &w2, off2, NULL, 4, out, 1, &err) ==
              AC_ERR_VALUE);
        CHECK(err.arg == AC_ARG_DIM);
        CHECK(!ac_contact_point_velocity_check(lin2, &w2, off2, NULL, 4, 1));
        CHECK(!ac_contact_point_velocity_check(lin2, &huge, far, NULL, 2, 1));
    }
    point_velocity_check();
    bounce_check();
}

static void expect_bounce_error(const double v[2], const double u[2], const double n[2],
                                double e, double mu, double th, ac_status status,
                                const char *arg)
{
    double out[2];
    ac_error err;
    memset(&err, 0, sizeof err);
    CHECK(bounce2(v, u, n, e, mu, th, out, &err) == status);
    CHECK(err.status == status);
    CHECK(strcmp(ac_arg_name(err.arg), arg) == 0);
}

static void bounce_errors(void)
{
    const double ok[2] = {-3, 4}, u[2] = {2, 0}, n[2] = {1, 0}, nan2[2] = {NAN, 0};
    const double inf2[2] = {0, INFINITY}, long_n[2] = {1, 1e-5}, big[2] = {1e308, 0};
    const double nbig[2] = {-1e308, 0}, diag[2] = {1.5e308, 1.5e308};
    const double s = sqrt(0.5), dn[2] = {s, s}, zero[2] = {0, 0}, huge[2] = {-1.7e308, 0};
    ac_error err;
    expect_bounce_error(nan2, u, n, 0.5, 0, 0, AC_ERR_VALUE, "velocity");
    expect_bounce_error(ok, inf2, n, 0.5, 0, 0, AC_ERR_VALUE, "surface_velocity");
    expect_bounce_error(ok, u, nan2, 0.5, 0, 0, AC_ERR_VALUE, "normal");
    expect_bounce_error(ok, u, n, NAN, 0, 0, AC_ERR_VALUE, "restitution");
    expect_bounce_error(ok, u, n, -0.1, 0, 0, AC_ERR_VALUE, "restitution");
    expect_bounce_error(ok, u, n, 1.1, 0, 0, AC_ERR_VALUE, "restitution");
    expect_bounce_error(ok, u, long_n, 0.5, 0, 0, AC_ERR_VALUE, "normal . normal");
    expect_bounce_error(ok, u, n, 0.5, -1, 0, AC_ERR_VALUE, "friction");
    expect_bounce_error(ok, u, n, 0.5, INFINITY, 0, AC_ERR_VALUE, "friction");
    expect_bounce_error(ok, u, n, 0.5, 0, -1, AC_ERR_VALUE, "threshold");
    expect_bounce_error(ok, u, n, 0.5, 0, NAN, AC_ERR_VALUE, "threshold");
    /* results that exist although v - u, its normal speed or the impulse overflow */
    {
        double out[2];
        CHECK(bounce2(big, nbig, n, 0.5, 0, 0, out, &err) == AC_OK); /* separating */
        CHECK(out[0] == 1e308 && out[1] == 0.0);
        CHECK(bounce2(diag, zero, dn, 0.5, 0.3, 0, out, &err) == AC_OK);
        CHECK(out[0] == 1.5e308 && out[1] == 1.5e308);
        CHECK(bounce2(huge, zero, n, 1.0, 0, 0, out, &err) == AC_OK); /* impulse 3.4e308 */
        CHECK(out[0] == 1.7e308 && out[1] == 0.0);
        CHECK(bounce2(huge, zero, n, 1.0, 0.5, 0, out, &err) == AC_OK);
        CHECK(out[0] == 1.7e308 && out[1] == 0.0);
    }
    expect_bounce_error(nbig, big, n, 1.0, 0, 0, AC_ERR_OVERFLOW, "result"); /* 3e308 */
    expect_bounce_error(nbig, big, n, 1.0, 0.5, 0, AC_ERR_OVERFLOW, "result");
    /* the first failing element, by flat index */
    {
        double v[3][2] = {{-3, 4}, {-3, 4}, {-3, 4}}, e[3] = {0.5, 2, -1}, zero1 = 0, o[3][2];
        size_t steps[6] = {1, 0, 0, 1, 0, 0};
        CHECK(ac_contact_bounce(&v[0][0], u, n, e, &zero1, &zero1, steps, 2, &o[0][0], 3,
                                &err) == AC_ERR_VALUE);
        CHECK(err.index == 1 && err.value == 2.0);
        CHECK(strcmp(err.detail, "must lie in [0, 1]") == 0);
    }
    CHECK(ac_contact_bounce(ok, u, n, ok, ok, ok, NULL, 1, NULL, 1, &err) == AC_ERR_VALUE);
    CHECK(ac_contact_bounce(ok, u, n, ok, ok, ok, NULL, 2, NULL, 0, NULL) == AC_OK);
}

/* ---------------------------------------------------------- stepping */

static ac_status advance(double *p, double *v, size_t n, const ac_planes *pl, double r,
                         double dt, double e, double mu, int max_bounces, int *bounces,
                         ac_error *err)
{
    ac_projectile_params pr;
    memset(&pr, 0, sizeof pr);
    pr.radius = &r;
    pr.dt = &dt;
    pr.restitution = &e;
    pr.friction = &mu;
    pr.max_bounces = max_bounces;
    return ac_contact_advance(p, v, pl, &pr, bounces, n, err);
}

static void stepping(void)
{
    /* walls x = -1 (normal +x) and x = +1 (normal -x) */
    double point[4] = {-1, 0, 1, 0}, normal[4] = {1, 0, -1, 0}, vel[4] = {0, 0, 0, 0};
    ac_planes pl = {point, normal, vel, 2, 2};
    ac_error err;
    int b;
    {   /* analytic single bounce off a moving wall */
        double p[2] = {0, 0}, v[2] = {-10, 0};
        double wp[2] = {-3, 0}, wn[2] = {1, 0}, wv[2] = {2, 0};
        ac_planes one = {wp, wn, wv, 1, 2};
        double t_hit = 2.5 / 12.0;
        CHECK(advance(p, v, 1, &one, 0.5, 1.0, 0.5, 0, 8, &b, &err) == AC_OK);
        CHECK(b == 1);
        CHECK_NEAR(v[0], 8.0, 1e-12);
        CHECK_NEAR(p[0], -10.0 * t_hit + 8.0 * (1 - t_hit), 1e-12);
    }
    {   /* out of bounces: stops at the 4th contact, unresolved */
        double p[2] = {0, 0}, v[2] = {1000, 0};
        CHECK(advance(p, v, 1, &pl, 0, 1.0, 1.0, 0, 3, &b, &err) == AC_OK);
        CHECK(b == 3);
        CHECK_NEAR(p[0], -1.0, 1e-12);
        CHECK(v[0] == -1000.0);
    }
    {   /* very fast: never outside the box */
        double p[2] = {0.3, 0}, v[2] = {-1e12, 0};
        CHECK(advance(p, v, 1, &pl, 0.1, 1.0, 1.0, 0, 8, &b, &err) == AC_OK);
        CHECK(p[0] >= -0.9 - 1e-9 && p[0] <= 0.9 + 1e-9);
    }
    {   /* touching and approaching at dt = 0: bounced, not moved */
        double p[2] = {-0.5, 0}, v[2] = {-2, 1};
        CHECK(advance(p, v, 1, &pl, 0.5, 0.0, 1.0, 0, 8, &b, &err) == AC_OK);
        CHECK(b == 1 && v[0] == 2.0 && p[0] == -0.5);
    }
    {   /* corner: two planes in one step */
        double cp[4] = {-1, 0, 0, -2}, cn[4] = {1, 0, 0, 1}, cv[4] = {0, 0, 0, 0};
        ac_planes corner = {cp, cn, cv, 2, 2};
        double p[2] = {0, 0}, v[2] = {-10, -10};
        CHECK(advance(p, v, 1, &corner, 0, 1.0, 1.0, 0, 8, &b, &err) == AC_OK);
        CHECK(b == 2);
        CHECK_NEAR(p[0], 8.0, 1e-12);
        CHECK_NEAR(p[1], 6.0, 1e-12);
    }
    {   /* errors, each naming its argument */
        double p[2] = {0, 0}, v[2] = {1, 0};
        double bad_n[4] = {1, 0, -1, 1};
        ac_planes badpl = {point, bad_n, vel, 2, 2};
        CHECK(advance(p, v, 1, &badpl, 0.1, 1, 0.5, 0, 8, &b, &err) == AC_ERR_VALUE);
        CHECK(err.arg == AC_ARG_PLANE_NORMAL_LENGTH2 && err.index == 1);
        CHECK(advance(p, v, 1, &pl, -0.1, 1, 0.5, 0, 8, &b, &err) == AC_ERR_VALUE);
        CHECK(err.arg == AC_ARG_RADIUS);
        CHECK(advance(p, v, 1, &pl, 0.1, -1, 0.5, 0, 8, &b, &err) == AC_ERR_VALUE);
        CHECK(err.arg == AC_ARG_DT);
        CHECK(advance(p, v, 1, &pl, 0.1, 1, 1.5, 0, 8, &b, &err) == AC_ERR_VALUE);
        CHECK(err.arg == AC_ARG_RESTITUTION);
        CHECK(advance(p, v, 1, &pl, 0.1, 1, 0.5, -1, 8, &b, &err) == AC_ERR_VALUE);
        CHECK(err.arg == AC_ARG_FRICTION);
        CHECK(advance(p, v, 1, &pl, 0.1, 1, 0.5, 0, -1, &b, &err) == AC_ERR_VALUE);
        CHECK(err.arg == AC_ARG_MAX_BOUNCES);
        CHECK(advance(p, v, 1, &pl, 0.1, 1, 0.5, 0, AC_CONTACT_MAX_BOUNCES + 1, &b, &err) ==
              AC_ERR_VALUE);
        CHECK(err.arg == AC_ARG_MAX_BOUNCES);
        CHECK(advance(p, v, 1, &pl, 0.1, 1, 0.5, 0, AC_CONTACT_MAX_BOUNCES, &b, &err) == AC_OK);
        p[0] = NAN;
        CHECK(advance(p, v, 1, &pl, 0.1, 1, 0.5, 0, 8, &b, &err) == AC_ERR_VALUE);
        CHECK(err.arg == AC_ARG_POSITION);
        p[0] = 1e308;
        v[0] = 1e308;
        point[0] = -1e308;
        CHECK(advance(p, v, 1, &pl, 0.1, 1, 0.5, 0, 8, &b, &err) == AC_ERR_OVERFLOW);
        CHECK(err.arg == AC_ARG_POSITION);
    }
}

/* One contact between bodies a and b (3-D unless dim says otherwise). */
typedef struct pair_result {
    double va[3], wa[3], vb[3], wb[3], jn, jt[3];
} pair_result;

static ac_status collide1(size_t dim, const ac_body *a, const ac_body *b, const double *n,
                          const double *p, double e, double mu, pair_result *r, ac_error *err)
{
    ac_body_update ua = {r->va, r->wa}, ub = {r->vb, r->wb};
    double th = 0.0;
    return ac_contact_collide(a, b, n, p, &e, &mu, &th, NULL, dim, &ua, &ub, &r->jn, r->jt, 1,
                              err);
}

static ac_body body(const double *v, const double *w, const double *im, const double *ii,
                    const double *c, int tensor)
{
    ac_body b;
    b.velocity = v, b.angular_velocity = w, b.inverse_mass = im, b.inverse_inertia = ii;
    b.center = c, b.inertia_tensor = tensor;
    for (int k = 0; k < 5; k++)
        b.steps[k] = 1;
    return b;
}

static void collide_cases(void)
{
    const double zero[3] = {0, 0, 0}, one = 1.0, none = 0.0;
    pair_result r;
    ac_error err;
    /* equal discs head on, e = 1: velocities exchanged, impulse 2 */
    {
        const double va[2] = {-1, 0}, vb[2] = {1, 0}, ca[2] = {0.5, 0}, cb[2] = {-0.5, 0};
        const double n[2] = {1, 0}, w = 0.0;
        ac_body a = body(va, &w, &one, &one, ca, 0), b = body(vb, &w, &one, &one, cb, 0);
        CHECK(collide1(2, &a, &b, n, zero, 1.0, 0.0, &r, &err) == AC_OK);
        CHECK(r.va[0] == 1.0 && r.vb[0] == -1.0 && r.jn == 2.0 && r.wa[0] == 0.0);
    }
    /* a solid sphere lands sliding and rolls at 5/7 of the slide, with a
       scalar inverse inertia or the same as a tensor */
    for (int tensor = 0; tensor < 2; tensor++) {
        const double v[3] = {3, -1, 0}, c[3] = {0, 1, 0}, n[3] = {0, 1, 0};
        const double ii[9] = {2.5, 0, 0, 0, 2.5, 0, 0, 0, 2.5};
        ac_body a = body(v, zero, &one, ii, c, tensor), b = body(zero, zero, &none, &none, zero, 0);
        CHECK(collide1(3, &a, &b, n, zero, 0.0, 1.0, &r, &err) == AC_OK);
        CHECK_NEAR(r.va[0], 15.0 / 7.0, 1e-14);
        CHECK_NEAR(r.va[1], 0.0, 1e-15);
        CHECK_NEAR(r.wa[2], -15.0 / 7.0, 1e-14);
        CHECK_NEAR(r.jn, 1.0, 1e-15);
        CHECK_NEAR(r.jt[0], 15.0 / 7.0 - 3.0, 1e-14);
    }
    /* a point mass against a spinning kinematic body: ac_contact_bounce with
       the body's contact-point velocity, bit for bit */
    {
        const double v[3] = {-3, 4, 0.5}, wb[3] = {0.3, -2, 1}, cb[3] = {0.2, -1, 0.1};
        const double n[3] = {0.6, 0.8, 0}, p[3] = {0.4, 0.3, -0.2}, ca[3] = {5, 5, 5};
        const double ub[3] = {1, 0.5, -0.25}, im = 2.0, mu = 0.3, e = 0.6, th = 0.0;
        double off[3], u[3], out[3];
        ac_body a = body(v, zero, &im, &none, ca, 0), b = body(ub, wb, &none, &none, cb, 0);
        for (int k = 0; k < 3; k++)
            off[k] = p[k] - cb[k];
        CHECK(ac_contact_point_velocity(ub, wb, off, NULL, 3, u, 1, &err) == AC_OK);
        CHECK(ac_contact_bounce(v, u, n, &e, &mu, &th, NULL, 3, out, 1, &err) == AC_OK);
        CHECK(collide1(3, &a, &b, n, p, e, mu, &r, &err) == AC_OK);
        CHECK(memcmp(out, r.va, sizeof out) == 0);
        CHECK(memcmp(ub, r.vb, sizeof ub) == 0 && memcmp(wb, r.wb, sizeof wb) == 0);
    }
    /* two dynamic bodies, off-centre, a world tensor, friction: linear
       momentum and the restitution law at the contact point */
    {
        const double va[3] = {1, -2, 0.5}, wa[3] = {0.5, 1, -1}, ca[3] = {0.3, 0.8, -0.2};
        const double vb[3] = {-1, 1, 0}, wb[3] = {0, -0.5, 2}, cb[3] = {-0.4, -0.6, 0.3};
        const double ia[9] = {2, 0.3, -0.1, 0.3, 1.5, 0.2, -0.1, 0.2, 1}, ib = 0.7;
        const double ma = 0.5, mb = 0.25, n[3] = {0, 1, 0}, p[3] = {0.1, 0, 0.05};
        double s0 = 0.0, s1 = 0.0, ra[3], rb[3], before[3], after[3];
        ac_body a = body(va, wa, &ma, ia, ca, 1), b = body(vb, wb, &mb, &ib, cb, 0);
        CHECK(collide1(3, &a, &b, n, p, 0.5, 0.1, &r, &err) == AC_OK);
        for (int k = 0; k < 3; k++) {
            CHECK_NEAR(va[k] / ma + vb[k] / mb, r.va[k] / ma + r.vb[k] / mb, 1e-13);
            ra[k] = p[k] - ca[k];
            rb[k] = p[k] - cb[k];
        }
        CHECK(ac_contact_point_velocity(va, wa, ra, NULL, 3, before, 1, &err) == AC_OK);
        CHECK(ac_contact_point_velocity(r.va, r.wa, ra, NULL, 3, after, 1, &err) == AC_OK);
        s0 += before[1], s1 += after[1];
        CHECK(ac_contact_point_velocity(vb, wb, rb, NULL, 3, before, 1, &err) == AC_OK);
        CHECK(ac_contact_point_velocity(r.vb, r.wb, rb, NULL, 3, after, 1, &err) == AC_OK);
        s0 -= before[1], s1 -= after[1];
        CHECK(s0 < 0.0);
        CHECK_NEAR(s1, -0.5 * s0, 1e-13);
        CHECK(r.jn > 0.0);
        /* slipping: friction at its bound, exactly opposite the remaining
           slip (the tangential part of the relative velocity after) */
        {
            double slip[3], sa[3], sb[3], dot = 0.0, ls = 0.0, lj = 0.0;
            CHECK(ac_contact_point_velocity(r.va, r.wa, ra, NULL, 3, sa, 1, &err) == AC_OK);
            CHECK(ac_contact_point_velocity(r.vb, r.wb, rb, NULL, 3, sb, 1, &err) == AC_OK);
            for (int k = 0; k < 3; k++) {
                slip[k] = k == 1 ? 0.0 : sa[k] - sb[k];
                dot += slip[k] * r.jt[k];
                ls += slip[k] * slip[k];
                lj += r.jt[k] * r.jt[k];
            }
            CHECK(ls > 1e-6);
            CHECK_NEAR(sqrt(lj), 0.1 * r.jn, 1e-13);
            CHECK_NEAR(dot / sqrt(ls * lj), -1.0, 1e-12);
        }
    }
}

/* A body that turns far more easily than it translates (inverse inertia
   1e308 per unit inverse mass) hit off its arm r = (1, 1, 0): K is stiff
   across the arm and soft along it, and the results are of order 1. Sticking
   (mu = 2), j -> (0.75, 0.75, 0): v' = (0.75, -0.25, 0), spin 0.75, and the
   contact point leaves at -e s = 0.5 along n; frictionless, j n with
   j = 1.5 / (1 + i) and spin i (r x n) j -> 1.5. */
static void collide_easily_turned(void)
{
    const double zero[3] = {0, 0, 0}, none = 0.0, one = 1.0, huge = 1e308;
    const double v[3] = {0, -1, 0}, c[3] = {-1, -1, 0}, n[3] = {0, 1, 0};
    pair_result r;
    ac_error err;
    ac_body a = body(v, zero, &one, &huge, c, 0), b = body(zero, zero, &none, &none, zero, 0);
    CHECK(collide1(3, &a, &b, n, zero, 0.5, 2.0, &r, &err) == AC_OK);
    CHECK_NEAR(r.va[0], 0.75, 1e-15);
    CHECK_NEAR(r.va[1], -0.25, 1e-15);
    CHECK(r.va[2] == 0.0 && r.wa[0] == 0.0 && r.wa[1] == 0.0);
    CHECK_NEAR(r.wa[2], 0.75, 1e-15);
    CHECK_NEAR(r.jn, 0.75, 1e-15);
    CHECK(collide1(3, &a, &b, n, zero, 0.5, 0.0, &r, &err) == AC_OK);
    CHECK(r.va[0] == 0.0 && r.va[1] == -1.0 && r.va[2] == 0.0);
    CHECK_NEAR(r.wa[2], 1.5, 1e-15);
    CHECK_NEAR(r.jn / 1.5e-308, 1.0, 1e-15);
}

static void collide_errors(void)
{
    const double zero[3] = {0, 0, 0}, v[3] = {-1, 0, 0}, c[3] = {1, 0, 0}, n[3] = {1, 0, 0};
    const double one = 1.0, negative = -1.0, not_psd[9] = {1, 2, 0, 2, 1, 0, 0, 0, 1};
    const double skew[9] = {1, 0.5, 0, 0, 1, 0, 0, 0, 1}, long_n[3] = {1, 1e-5, 0};
    pair_result r;
    ac_error err;
    ac_body a = body(v, zero, &negative, &one, c, 0), b = body(zero, zero, &one, &one, zero, 0);
    CHECK(collide1(3, &a, &b, n, zero, 0.5, 0.0, &r, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_A_INVERSE_MASS && err.index == 0 && err.value == -1.0);
    a = body(v, zero, &one, not_psd, c, 1);
    CHECK(collide1(3, &a, &b, n, zero, 0.5, 0.0, &r, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_A_INVERSE_INERTIA && err.value == -3.0);
    b = body(zero, zero, &one, skew, zero, 1);
    a = body(v, zero, &one, &one, c, 0);
    CHECK(collide1(3, &a, &b, n, zero, 0.5, 0.0, &r, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_B_INVERSE_INERTIA && err.value == 0.5);
    b = body(zero, zero, &one, &one, zero, 0);
    CHECK(collide1(3, &a, &b, long_n, zero, 0.5, 0.0, &r, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_NORMAL_LENGTH2);
    CHECK(collide1(3, &a, &b, n, zero, 1.5, 0.0, &r, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_RESTITUTION);
    a = body(v, zero, &one, not_psd, c, 1);
    CHECK(collide1(2, &a, &b, n, zero, 0.5, 0.0, &r, &err) == AC_ERR_VALUE); /* no 2-D tensors */
    CHECK(collide1(4, &a, &b, n, zero, 0.5, 0.0, &r, &err) == AC_ERR_VALUE);
}

/* A ball lands on a rough floor during a step and leaves rolling; the
   contact is recorded. */
static void stepping_with_spin(void)
{
    double p[3] = {0, 1, 0}, v[3] = {3, -2, 0}, w[3] = {0, 0, 0};
    const double q[3] = {0, 0, 0}, up[3] = {0, 1, 0}, still[3] = {0, 0, 0};
    const double radius = 0.5, dt = 1.0, e = 0.0, mu = 1.0, inertia = 2.5 / (0.5 * 0.5);
    int plane[2], count;
    double time[2], jn[2], jt[6];
    ac_planes pl = {q, up, still, 1, 3};
    ac_projectile_params pr = {&radius, &dt, &e, &mu, 0, 0, {0, 0}, {0, 0}, 2};
    ac_projectile_spin spin = {w, &inertia, 0};
    ac_projectile_events ev = {plane, time, jn, jt, 2};
    ac_error err;
    CHECK(ac_contact_advance_spin(p, v, &pl, &pr, &spin, &ev, &count, 1, &err) == AC_OK);
    CHECK(count == 1);
    CHECK_NEAR(v[0], 15.0 / 7.0, 1e-14);
    CHECK_NEAR(w[2], -15.0 / 7.0 / radius, 1e-13);
    CHECK(plane[0] == 0 && plane[1] == -1);
    CHECK_NEAR(time[0], 0.25, 1e-15);
    CHECK_NEAR(jn[0], 2.0, 1e-15);
    CHECK_NEAR(jt[0], 15.0 / 7.0 - 3.0, 1e-14);
    CHECK(time[1] == 0.0 && jn[1] == 0.0);
    {
        const double bad = -1.0;
        ac_projectile_spin wrong = {w, &bad, 0};
        CHECK(ac_contact_advance_spin(p, v, &pl, &pr, &wrong, NULL, &count, 1, &err) ==
              AC_ERR_VALUE);
        CHECK(err.arg == AC_ARG_INVERSE_INERTIA);
    }
}

int main(void)
{
    article_figures();
    law_and_frame_boost();
    layouts_agree();
    friction_and_threshold();
    point_velocity();
    bounce_errors();
    stepping();
    collide_cases();
    collide_easily_turned();
    collide_errors();
    stepping_with_spin();
    TEST_DONE("test_contact");
}

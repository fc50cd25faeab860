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
    CHECK(err.index == 7 && strcmp(err.arg, "normal . normal") == 0);
    n[7 * 3] /= 1.5;
    CHECK(ac_contact_bounce(v, u, n, &e0, &zero, &th0, fast_steps, 3, fast, N, &err) ==
          AC_ERR_VALUE);
    CHECK(err.index == 1001 && strcmp(err.arg, "normal") == 0);
    n[1001 * 3] = 1.0;
    v[500 * 3 + 1] = -DBL_MAX; /* overflow inside the vector part */
    u[500 * 3 + 1] = DBL_MAX;
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
        CHECK(strcmp(err.arg, "angular_velocity") == 0);
        CHECK(ac_contact_point_velocity(lin2, &huge, far, NULL, 2, out, 1, &err) ==
              AC_ERR_OVERFLOW);
        CHECK(strcmp(err.arg, "result") == 0);
        CHECK(ac_contact_point_velocity(lin2, &w2, off2, NULL, 4, out, 1, &err) ==
              AC_ERR_VALUE);
        CHECK(strcmp(err.arg, "dim") == 0);
    }
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
    CHECK(strcmp(err.arg, arg) == 0);
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
    expect_bounce_error(big, nbig, n, 0.5, 0, 0, AC_ERR_OVERFLOW, "velocity - surface_velocity");
    expect_bounce_error(diag, zero, dn, 0.5, 0, 0, AC_ERR_OVERFLOW,
                        "(velocity - surface_velocity) . normal");
    expect_bounce_error(huge, zero, n, 1.0, 0, 0, AC_ERR_OVERFLOW, "result");
    expect_bounce_error(huge, zero, n, 1.0, 0.5, 0, AC_ERR_OVERFLOW, "result");
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
        CHECK(strcmp(err.arg, "plane_normal . plane_normal") == 0 && err.index == 1);
        CHECK(advance(p, v, 1, &pl, -0.1, 1, 0.5, 0, 8, &b, &err) == AC_ERR_VALUE);
        CHECK(strcmp(err.arg, "radius") == 0);
        CHECK(advance(p, v, 1, &pl, 0.1, -1, 0.5, 0, 8, &b, &err) == AC_ERR_VALUE);
        CHECK(strcmp(err.arg, "dt") == 0);
        CHECK(advance(p, v, 1, &pl, 0.1, 1, 1.5, 0, 8, &b, &err) == AC_ERR_VALUE);
        CHECK(strcmp(err.arg, "restitution") == 0);
        CHECK(advance(p, v, 1, &pl, 0.1, 1, 0.5, -1, 8, &b, &err) == AC_ERR_VALUE);
        CHECK(strcmp(err.arg, "friction") == 0);
        CHECK(advance(p, v, 1, &pl, 0.1, 1, 0.5, 0, -1, &b, &err) == AC_ERR_VALUE);
        CHECK(strcmp(err.arg, "max_bounces") == 0);
        CHECK(advance(p, v, 1, &pl, 0.1, 1, 0.5, 0, AC_CONTACT_MAX_BOUNCES + 1, &b, &err) ==
              AC_ERR_VALUE);
        CHECK(strcmp(err.arg, "max_bounces") == 0);
        CHECK(advance(p, v, 1, &pl, 0.1, 1, 0.5, 0, AC_CONTACT_MAX_BOUNCES, &b, &err) == AC_OK);
        p[0] = NAN;
        CHECK(advance(p, v, 1, &pl, 0.1, 1, 0.5, 0, 8, &b, &err) == AC_ERR_VALUE);
        CHECK(strcmp(err.arg, "position") == 0);
        p[0] = 1e308;
        v[0] = 1e308;
        point[0] = -1e308;
        CHECK(advance(p, v, 1, &pl, 0.1, 1, 0.5, 0, 8, &b, &err) == AC_ERR_OVERFLOW);
        CHECK(strcmp(err.arg, "position") == 0);
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
    TEST_DONE("test_contact");
}

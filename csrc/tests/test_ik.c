/* IK solvers: reach, lengths, pole side, weight 0, degenerate chains,
   chain solvers and every error branch. */
#include <string.h>

#include "ac_internal.h"
#include "ac_test.h"

static void rot(const double q[4], const double v[3], double out[3])
{
    ac_quat_rotate(q, v, out);
}

/* The end and mid after the corrections. */
static void apply(const double *s, const double *m, const double *e, const double qs[4],
                  const double qm[4], double mf[3], double ef[3])
{
    double sm[3], me[3], a[3], b[3];
    for (int k = 0; k < 3; k++)
        sm[k] = m[k] - s[k], me[k] = e[k] - m[k];
    rot(qs, sm, a);
    rot(qs, me, b);
    rot(qm, b, b);
    for (int k = 0; k < 3; k++)
        mf[k] = s[k] + a[k], ef[k] = mf[k] + b[k];
}

static double dist(const double *a, const double *b)
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                (a[2] - b[2]) * (a[2] - b[2]));
}

static void two_bone(void)
{
    double s[3] = {0, 0, 0}, m[3] = {0, 1, 0}, e[3] = {1, 1, 0}, t[3] = {1, 0.5, 0.3};
    double p[3] = {0, 0, 1}, w = 1, sf = 1, tw = 0, qs[4], qm[4], mf[3], ef[3];
    uint8_t reached;
    ac_error err;
    CHECK(ac_ik_two_bone(s, m, e, t, p, &w, &sf, &tw, NULL, qs, qm, &reached, 1, &err) == AC_OK);
    apply(s, m, e, qs, qm, mf, ef);
    CHECK(reached);
    CHECK_NEAR(dist(ef, t), 0.0, 1e-12);
    CHECK_NEAR(dist(s, mf), 1.0, 1e-12);
    CHECK_NEAR(dist(mf, ef), 1.0, 1e-12);
    CHECK(mf[2] > 0.0); /* toward the pole (+z side of the start-target line) */
    /* weight 0: identity */
    w = 0;
    CHECK(ac_ik_two_bone(s, m, e, t, p, &w, &sf, &tw, NULL, qs, qm, &reached, 1, &err) == AC_OK);
    CHECK(qs[3] == 1.0 && qs[0] == 0.0 && qm[3] == 1.0);
    /* unreachable: straight toward the target */
    w = 1;
    t[0] = 5, t[1] = 0, t[2] = 0;
    CHECK(ac_ik_two_bone(s, m, e, t, p, &w, &sf, &tw, NULL, qs, qm, &reached, 1, &err) == AC_OK);
    apply(s, m, e, qs, qm, mf, ef);
    CHECK(!reached);
    CHECK_NEAR(ef[0], 2.0, 1e-12);
    CHECK_NEAR(mf[0], 1.0, 1e-12);
    /* degenerate: target at the start, pole on the line, zero-length bone */
    t[0] = t[1] = t[2] = 0;
    p[0] = 0, p[1] = 0, p[2] = 0;
    CHECK(ac_ik_two_bone(s, m, e, t, p, &w, &sf, &tw, NULL, qs, qm, &reached, 1, &err) == AC_OK);
    for (int k = 0; k < 4; k++)
        CHECK(isfinite(qs[k]) && isfinite(qm[k]));
    CHECK(ac_ik_two_bone(s, s, e, t, p, &w, &sf, &tw, NULL, qs, qm, &reached, 1, &err) == AC_OK);
    CHECK(qs[3] == 1.0 && qm[3] == 1.0);
    /* straight chain, pole on the line */
    {
        double m2[3] = {1, 0, 0}, e2[3] = {2, 0, 0}, t2[3] = {1, 0, 0}, p2[3] = {3, 0, 0};
        CHECK(ac_ik_two_bone(s, m2, e2, t2, p2, &w, &sf, &tw, NULL, qs, qm, &reached, 1,
                             &err) == AC_OK);
        apply(s, m2, e2, qs, qm, mf, ef);
        CHECK(reached);
        CHECK_NEAR(dist(ef, t2), 0.0, 1e-12);
    }
    /* errors */
    w = 1.5;
    CHECK(ac_ik_two_bone(s, m, e, t, p, &w, &sf, &tw, NULL, qs, qm, &reached, 1, &err) ==
          AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_WEIGHT);
    w = 1, sf = -0.1;
    CHECK(ac_ik_two_bone(s, m, e, t, p, &w, &sf, &tw, NULL, qs, qm, &reached, 1, &err) ==
          AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_SOFTEN);
    sf = 1, t[1] = NAN;
    CHECK(ac_ik_two_bone(s, m, e, t, p, &w, &sf, &tw, NULL, qs, qm, &reached, 1, &err) ==
          AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_TARGET);
}

static void aim(void)
{
    double mw[16] = {1, 0, 0, 1, 0, 1, 0, 2, 0, 0, 1, 3, 0, 0, 0, 1};
    double f[3] = {1, 0, 0}, up[3] = {0, 1, 0}, t[3] = {1, 2, 10}, pole[3] = {1, 0, 3};
    double w = 1, q[4], r[3], u[3], zero[3] = {0, 0, 0};
    ac_error err;
    CHECK(ac_ik_aim(mw, f, up, t, pole, &w, NULL, q, 1, &err) == AC_OK);
    rot(q, f, r);
    CHECK_NEAR(r[2], 1.0, 1e-12);
    rot(q, up, u);
    CHECK_NEAR(u[1], -1.0, 1e-12); /* up toward the pole at -y */
    CHECK(ac_ik_aim(mw, zero, up, t, NULL, &w, NULL, q, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_FORWARD);
}

static void chain(void)
{
    double pos[12] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0}, t[3] = {1, 1.5, 0.5}, out[12];
    double lim[4] = {0, 0.5, 0.5, 0};
    uint8_t ok;
    ac_error err;
    for (int method = 0; method < 2; method++) {
        CHECK(ac_ik_chain(pos, t, NULL, 4, (ac_ik_method)method, 200, 1e-9, NULL, out, &ok, 1,
                          &err) == AC_OK);
        CHECK(ok);
        CHECK_NEAR(dist(out + 9, t), 0.0, 1e-9);
        for (int j = 0; j < 3; j++)
            CHECK_NEAR(dist(out + 3 * j, out + 3 * j + 3), 1.0, 1e-12);
        CHECK(ac_ik_chain(pos, t, lim, 4, (ac_ik_method)method, 50, 1e-9, NULL, out, &ok, 1,
                          &err) == AC_OK);
        for (int j = 0; j < 3; j++)
            CHECK_NEAR(dist(out + 3 * j, out + 3 * j + 3), 1.0, 1e-12);
    }
    CHECK(ac_ik_chain(pos, t, NULL, 4, AC_IK_FABRIK, 10, 0.0, NULL, out, &ok, 1, &err) ==
          AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_TOLERANCE);
    lim[1] = 4;
    CHECK(ac_ik_chain(pos, t, lim, 4, AC_IK_FABRIK, 10, 1e-6, NULL, out, &ok, 1, &err) ==
          AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_LIMITS);
}

int main(void)
{
    two_bone();
    aim();
    chain();
    TEST_DONE("test_ik");
}

/* Pose blending: hand-computed blends, the additive identities, weight 0 bit
   for bit, broadcasting by steps, and every error branch. */
#include <stdint.h>
#include <string.h>

#include "ac_test.h"

static const size_t all8[8] = {1, 1, 1, 1, 1, 1, 1, 1};

static void blend(void)
{
    double h = sqrt(0.5);
    double at[3] = {0, 0, 0}, ar[4] = {0, 0, 0, 1}, as[3] = {1, 1, 1};
    double bt[3] = {2, 4, -6}, br[4] = {0, 0, h, h}, bs[3] = {3, 1, 2};
    double w = 0.5, m = 1.0, t[3], r[4], s[3];
    ac_error err;
    CHECK(ac_blend_poses(at, ar, as, bt, br, bs, &w, &m, all8, t, r, s, 1, &err) == AC_OK);
    CHECK_NEAR(t[0], 1.0, 1e-15);
    CHECK_NEAR(t[2], -3.0, 1e-15);
    CHECK_NEAR(s[0], 2.0, 1e-15);
    /* halfway to a quarter turn about z: an eighth turn */
    CHECK_NEAR(r[2], sin(0.39269908169872414), 1e-15);
    CHECK_NEAR(r[3], cos(0.39269908169872414), 1e-15);
    /* weight 0 (or mask 0): a, bit for bit, even -0.0 */
    at[1] = -0.0;
    w = 0.0;
    CHECK(ac_blend_poses(at, ar, as, bt, br, bs, &w, NULL, all8, t, r, s, 1, &err) == AC_OK);
    CHECK(memcmp(t, at, sizeof t) == 0 && memcmp(r, ar, sizeof r) == 0);
    w = 1.0, m = 0.0;
    CHECK(ac_blend_poses(at, ar, as, bt, br, bs, &w, &m, all8, t, r, s, 1, &err) == AC_OK);
    CHECK(memcmp(s, as, sizeof s) == 0);
    /* shortest arc: -b is the same rotation */
    {
        double nb[4] = {0, 0, -h, -h};
        w = 0.5;
        CHECK(ac_blend_poses(at, ar, as, bt, nb, bs, &w, NULL, all8, t, r, s, 1, &err) ==
              AC_OK);
        CHECK_NEAR(fabs(r[3]), cos(0.39269908169872414), 1e-15);
    }
}

static void additive(void)
{
    double pt[6] = {1, 2, 3, -1, 0, 5}, pr[8] = {0.1, 0.2, 0.3, 0, 0, 0, 0, 1};
    double ps[6] = {2, 2, 2, 1, 0.5, 4}, rt[3] = {0.5, 0.5, 0.5};
    double rr[4] = {0, 0.6, 0, 0.8}, rs[3] = {1, 2, 4};
    double dt[6], dr[8], ds[6], t[6], r[8], s[6], w = 1.0;
    size_t steps6[6] = {1, 1, 1, 0, 0, 0}, steps8[8] = {0, 0, 0, 1, 1, 1, 0, 1};
    ac_error err;
    pr[3] = sqrt(1.0 - 0.14); /* unit */
    CHECK(ac_blend_make_additive(pt, pr, ps, rt, rr, rs, steps6, AC_BLEND_SCALE_MULTIPLY, dt, dr,
                                 ds, 2, &err) == AC_OK);
    CHECK_NEAR(dt[3], -1.5, 1e-15);
    CHECK_NEAR(ds[4], 0.25, 1e-15);
    /* the reference plus the delta is the pose again */
    {
        double m[2] = {1.0, 1.0};
        CHECK(ac_blend_apply_additive(rt, rr, rs, dt, dr, ds, &w, m, steps8,
                                      AC_BLEND_SCALE_MULTIPLY, t, r, s, 2, &err) == AC_OK);
    }
    for (int k = 0; k < 6; k++) {
        CHECK_NEAR(t[k], pt[k], 1e-14);
        CHECK_NEAR(s[k], ps[k], 1e-14);
    }
    for (int k = 0; k < 8; k++)
        CHECK_NEAR(r[k], pr[k], 1e-14);
    /* half the delta of a scale 4 is a scale 2 */
    w = 0.5;
    CHECK(ac_blend_apply_additive(rt, rr, rs, dt, dr, ds, &w, NULL, steps8,
                                  AC_BLEND_SCALE_MULTIPLY, t, r, s, 2, &err) == AC_OK);
    CHECK_NEAR(s[5], 4.0 * 1.0, 1e-14);
    /* additive scale */
    CHECK(ac_blend_make_additive(pt, pr, ps, rt, rr, rs, steps6, AC_BLEND_SCALE_ADD, dt, dr, ds,
                                 2, &err) == AC_OK);
    CHECK_NEAR(ds[4], -1.5, 1e-15);
    /* exaggeration: weight 2 doubles the translation */
    w = 2.0;
    CHECK(ac_blend_apply_additive(rt, rr, rs, dt, dr, ds, &w, NULL, steps8, AC_BLEND_SCALE_ADD,
                                  t, r, s, 2, &err) == AC_OK);
    CHECK_NEAR(t[0], 0.5 + 2 * 0.5, 1e-15);
    /* Combine: half of a turn of 1.5 pi about z is 0.75 pi, the long way
       (the slerp would take the short one, -0.25 pi) */
    {
        double id_t[3] = {0, 0, 0}, id_r[4] = {0, 0, 0, 1}, one[3] = {1, 1, 1};
        const double pi = acos(-1.0);
        double turn[4] = {0, 0, sin(0.75 * pi), cos(0.75 * pi)};
        size_t each[8] = {1, 1, 1, 1, 1, 1, 1, 1};
        w = 0.5;
        CHECK(ac_blend_apply_additive(id_t, id_r, one, id_t, turn, one, &w, NULL, each,
                                      AC_BLEND_COMBINE, t, r, s, 1, &err) == AC_OK);
        CHECK_NEAR(r[2], sin(0.375 * pi), 1e-15);
        CHECK_NEAR(r[3], cos(0.375 * pi), 1e-15);
        CHECK_NEAR(s[0], 1.0, 1e-15);
    }
}

static void errors(void)
{
    double at[3] = {0, 0, 0}, ar[4] = {0, 0, 0, 1}, as[3] = {1, 1, 1};
    double bad[4] = {0, 0, 0, 2}, w = 0.5, m = 1.0, t[3], r[4], s[3];
    size_t steps6[6] = {1, 1, 1, 1, 1, 1};
    ac_error err;
    CHECK(ac_blend_poses(at, bad, as, at, ar, as, &w, &m, all8, t, r, s, 1, &err) ==
          AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_A_ROTATION && err.index == 0);
    at[1] = NAN;
    CHECK(ac_blend_poses(at, ar, as, at, ar, as, &w, &m, all8, t, r, s, 1, &err) ==
          AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_A_TRANSLATION);
    at[1] = 0.0;
    w = 1.5;
    CHECK(ac_blend_poses(at, ar, as, at, ar, as, &w, &m, all8, t, r, s, 1, &err) ==
          AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_WEIGHT && err.value == 1.5);
    w = 0.5, m = -0.1;
    CHECK(ac_blend_poses(at, ar, as, at, ar, as, &w, &m, all8, t, r, s, 1, &err) ==
          AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_MASK);
    as[2] = 0.0;
    CHECK(ac_blend_make_additive(at, ar, as, at, ar, as, steps6, AC_BLEND_SCALE_MULTIPLY, t, r,
                                 s, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_B_SCALE);
    as[2] = -1.0, m = 1.0;
    CHECK(ac_blend_apply_additive(at, ar, as, at, ar, as, &w, &m, all8,
                                  AC_BLEND_SCALE_MULTIPLY, t, r, s, 1, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_B_SCALE && err.value == -1.0);
    w = 1e308, as[2] = 1.0, at[0] = 1e308;
    CHECK(ac_blend_apply_additive(at, ar, as, at, ar, as, &w, &m, all8, AC_BLEND_SCALE_ADD, t,
                                  r, s, 1, &err) == AC_ERR_OVERFLOW);
}

/* Many items at once (vector lanes where the CPU has them, from 8 items on)
   give the bits of one item at a time (the scalar path). */
static double uniform(uint64_t *state, double lo, double hi)
{
    *state ^= *state << 13, *state ^= *state >> 7, *state ^= *state << 17;
    return lo + (hi - lo) * (double)(*state >> 11) / 9007199254740992.0;
}

static void lanes_match_items(void)
{
    enum { N = 45 };
    static double in[6][4 * N], w[N], ones[3 * N], t[3 * N], r[4 * N], s[3 * N];
    double t1[3], r1[4], s1[3];
    uint64_t state = 88172645463325252u;
    ac_error err;
    for (int k = 0; k < 6; k++)
        for (int i = 0; i < N; i++) {
            double *x = in[k] + (k % 3 == 1 ? 4 : 3) * i, n2 = 0.0;
            for (int c = 0; c < (k % 3 == 1 ? 4 : 3); c++) {
                x[c] = k % 3 == 2 ? uniform(&state, 0.5, 2.0) : uniform(&state, -1.0, 1.0);
                n2 += x[c] * x[c];
            }
            for (int c = 0; k % 3 == 1 && c < 4; c++)
                x[c] /= sqrt(n2);
        }
    for (int i = 0; i < N; i++) {
        w[i] = i % 9 == 0 ? 0.0 : i % 10 == 0 ? 1.0 : uniform(&state, 0.0, 1.0);
        ones[3 * i] = ones[3 * i + 1] = ones[3 * i + 2] = 1.0;
    }
    in[0][4] = -0.0; /* a, bit for bit, at weight 0 */
    CHECK(ac_blend_poses(in[0], in[1], in[2], in[3], in[4], in[5], w, NULL, all8, t, r, s, N,
                         &err) == AC_OK);
    for (int i = 0; i < N; i++) {
        CHECK(ac_blend_poses(in[0] + 3 * i, in[1] + 4 * i, in[2] + 3 * i, in[3] + 3 * i,
                             in[4] + 4 * i, in[5] + 3 * i, w + i, NULL, all8, t1, r1, s1, 1,
                             &err) == AC_OK);
        CHECK(memcmp(t1, t + 3 * i, sizeof t1) == 0 && memcmp(r1, r + 4 * i, sizeof r1) == 0 &&
              memcmp(s1, s + 3 * i, sizeof s1) == 0);
    }
    for (int mode = 0; mode < 3; mode++) {
        CHECK(ac_blend_make_additive(in[0], in[1], in[2], in[3], in[4], in[5], all8,
                                     (ac_blend_scale_mode)mode, t, r, s, N, &err) == AC_OK);
        for (int i = 0; i < N; i++) {
            CHECK(ac_blend_make_additive(in[0] + 3 * i, in[1] + 4 * i, in[2] + 3 * i,
                                         in[3] + 3 * i, in[4] + 4 * i, in[5] + 3 * i, all8,
                                         (ac_blend_scale_mode)mode, t1, r1, s1, 1, &err) == AC_OK);
            CHECK(memcmp(t1, t + 3 * i, sizeof t1) == 0 &&
                  memcmp(r1, r + 4 * i, sizeof r1) == 0 && memcmp(s1, s + 3 * i, sizeof s1) == 0);
        }
        /* scale deltas of 1: no power to raise, so the lanes take every weight in [0, 1] */
        CHECK(ac_blend_apply_additive(in[3], in[4], in[5], in[0], in[1], ones, w, NULL, all8,
                                      (ac_blend_scale_mode)mode, t, r, s, N, &err) == AC_OK);
        for (int i = 0; i < N; i++) {
            CHECK(ac_blend_apply_additive(in[3] + 3 * i, in[4] + 4 * i, in[5] + 3 * i,
                                          in[0] + 3 * i, in[1] + 4 * i, ones + 3 * i, w + i,
                                          NULL, all8, (ac_blend_scale_mode)mode, t1, r1, s1, 1,
                                          &err) == AC_OK);
            CHECK(memcmp(t1, t + 3 * i, sizeof t1) == 0 &&
                  memcmp(r1, r + 4 * i, sizeof r1) == 0 && memcmp(s1, s + 3 * i, sizeof s1) == 0);
        }
    }
    /* the first bad item is the one reported, after a run of good groups */
    in[3][3 * 37 + 1] = INFINITY;
    CHECK(ac_blend_poses(in[0], in[1], in[2], in[3], in[4], in[5], w, NULL, all8, t, r, s, N,
                         &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_B_TRANSLATION && err.index == 37);
}

/* steps NULL: every input holds n values, as with steps all 1 (the
   header's convention), for each kernel. */
static void null_steps(void)
{
    enum { N = 11 }; /* lanes and a scalar tail */
    double at[3 * N], ar[4 * N], as[3 * N], bt[3 * N], br[4 * N], bs[3 * N], w[N];
    double t[2][3 * N], r[2][4 * N], s[2][3 * N];
    ac_error err;
    for (int i = 0; i < N; i++) {
        const double c = cos(0.1 * i), sn = sin(0.1 * i);
        const double pa[10] = {i, 1, 2, 0, 0, sn, c, 1, 2, 1};
        const double pb[10] = {3, -i, 1, sn, 0, 0, c, 2, 1, 3};
        memcpy(at + 3 * i, pa, 24), memcpy(bt + 3 * i, pb, 24);
        memcpy(ar + 4 * i, pa + 3, 32), memcpy(br + 4 * i, pb + 3, 32);
        memcpy(as + 3 * i, pa + 7, 24), memcpy(bs + 3 * i, pb + 7, 24);
        w[i] = 0.1 * i;
    }
    for (int kernel = 0; kernel < 3; kernel++) {
        for (int k = 0; k < 2; k++) {
            const size_t *steps = k ? NULL : all8;
            ac_status st =
                kernel == 0 ? ac_blend_poses(at, ar, as, bt, br, bs, w, NULL, steps, t[k], r[k],
                                             s[k], N, &err)
                : kernel == 1 ? ac_blend_make_additive(at, ar, as, bt, br, bs, steps,
                                                       AC_BLEND_SCALE_MULTIPLY, t[k], r[k], s[k],
                                                       N, &err)
                              : ac_blend_apply_additive(at, ar, as, bt, br, bs, w, NULL, steps,
                                                        AC_BLEND_SCALE_MULTIPLY, t[k], r[k], s[k],
                                                        N, &err);
            CHECK(st == AC_OK);
        }
        CHECK(!memcmp(t[0], t[1], sizeof t[0]) && !memcmp(r[0], r[1], sizeof r[0]));
        CHECK(!memcmp(s[0], s[1], sizeof s[0]));
    }
}

int main(void)
{
    blend();
    additive();
    errors();
    lanes_match_items();
    null_steps();
    TEST_DONE("test_blend");
}

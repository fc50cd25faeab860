/* The private helpers shared by the domains: key search and quaternions. */
#include "ac_internal.h"
#include "ac_test.h"

/* Plain reference: last i in [0, k-2] with times[i] <= t. */
static size_t linear_find(const double *times, size_t k, double t)
{
    size_t i = 0;
    while (i + 1 < k - 1 && times[i + 1] <= t)
        i++;
    return i;
}

static void segment_find(void)
{
    const double times[7] = {0, 1, 1, 2.5, 3, 7, 7.5}; /* a jump at t = 1 */
    const size_t k = 7;
    size_t hint = 0;
    for (int j = -20; j <= 100; j++) {
        double t = j * 0.1;
        size_t expect = linear_find(times, k, t);
        hint = ac_segment_find(times, k, t, hint); /* sorted sweep */
        CHECK(hint == expect);
        for (size_t h = 0; h < k + 2; h++) /* any hint, even a bad one */
            CHECK(ac_segment_find(times, k, t, h) == expect);
    }
    CHECK(ac_segment_find(times, k, 1.0, 0) == 2); /* at a jump, the right segment */
    {
        const double two[2] = {0, 1};
        CHECK(ac_segment_find(two, 2, -5, 0) == 0 && ac_segment_find(two, 2, 5, 0) == 0);
    }
}

static void quaternions(void)
{
    const double id[4] = {0, 0, 0, 1};
    const double h = 0.5 * acos(-1.0) / 2; /* half of a quarter turn */
    const double qz[4] = {0, 0, sin(h), cos(h)}, neg[4] = {0, 0, -sin(h), -cos(h)};
    double out[4], v[3] = {1, 0, 0}, r[3];
    ac_quat_mul(qz, qz, out); /* half turn about z */
    CHECK_NEAR(out[2], 1.0, 1e-15);
    CHECK_NEAR(out[3], 0.0, 1e-15);
    ac_quat_rotate(qz, v, r);
    CHECK_NEAR(r[0], 0.0, 1e-15);
    CHECK_NEAR(r[1], 1.0, 1e-15);
    ac_quat_slerp(id, qz, 0.5, out);
    CHECK_NEAR(out[2], sin(h / 2), 1e-15);
    ac_quat_slerp(id, neg, 0.5, out); /* -q is the same rotation: same arc */
    CHECK_NEAR(out[2], sin(h / 2), 1e-15);
    CHECK_NEAR(out[3], cos(h / 2), 1e-15);
    ac_quat_slerp(id, qz, 0.0, out);
    CHECK_NEAR(out[3], 1.0, 1e-15);
    ac_quat_slerp(id, qz, 1.0, out);
    CHECK_NEAR(out[2], qz[2], 1e-15);
    {
        const double tiny[4] = {0, 0, 1e-13, 1};
        ac_quat_slerp(id, tiny, 0.5, out);
        CHECK_NEAR(out[2], 0.5e-13, 1e-27);
    }
    ac_quat_conj(qz, out);
    ac_quat_mul(qz, out, out);
    CHECK_NEAR(out[3], 1.0, 1e-15);
}

/* Normalization by the largest component: any finite magnitude, zeros for 0. */
static void normalize(void)
{
    const double scales[5] = {1e-310, 1e-170, 1.0, 1e200, 1.7e308};
    for (int s = 0; s < 5; s++) {
        double q[4] = {scales[s], scales[s], scales[s], scales[s]}, out[4];
        CHECK(ac_quat_normalize(q, out));
        for (int k = 0; k < 4; k++)
            CHECK(out[k] == 0.5);
    }
    {
        double v[3] = {3e300, 0, -4e300}, out[3], zero[4] = {0, 0, 0, 0}, z[4] = {9, 9, 9, 9};
        CHECK(ac_normalize(v, 3, out));
        CHECK_NEAR(out[0], 0.6, 1e-15);
        CHECK_NEAR(out[2], -0.8, 1e-15);
        CHECK(!ac_quat_normalize(zero, z) && z[0] == 0.0 && z[3] == 0.0);
    }
}

/* The cycle fold against fmod, at ordinary and extreme times and spans. */
static void fold(void)
{
    double cycles, sign, t;
    t = ac_cycle_fold(2.75, 0.0, 1.0, 0, &cycles, &sign);
    CHECK(t == 0.75 && cycles == 2.0 && sign == 1.0);
    t = ac_cycle_fold(3.25, 0.0, 1.0, 1, &cycles, &sign);
    CHECK(t == 0.75 && cycles == 3.0 && sign == -1.0); /* mirrored */
    t = ac_cycle_fold(-0.25, 0.0, 1.0, 1, &cycles, &sign);
    CHECK(t == 0.25 && cycles == -1.0 && sign == -1.0);
    t = ac_cycle_fold(1.7e308, 0.0, 0.3, 1, &cycles, &sign);
    CHECK(sign == (fmod(1.7e308, 0.6) >= 0.3 ? -1.0 : 1.0));
    CHECK(t == (sign < 0 ? 0.3 - fmod(1.7e308, 0.3) : fmod(1.7e308, 0.3)));
    CHECK(!ac_finite(cycles) || cycles > 1e307);
    t = ac_cycle_fold(1.5e308, -1e308, 1e308, 0, &cycles, &sign); /* span beyond DBL_MAX */
    CHECK(fabs(t - -0.5e308) <= 1e293); /* 1.5e308 is 2.5e308 past -1e308: 0.5e308 into cycle 1 */
    CHECK(cycles == 1.0 && sign == 1.0);
    t = ac_cycle_fold(1.5e308, -1e308, 1e308, 1, &cycles, &sign);
    CHECK(fabs(t - 0.5e308) <= 1e293 && sign == -1.0);
}

int main(void)
{
    segment_find();
    quaternions();
    normalize();
    fold();
    TEST_DONE("test_internal");
}

/* The tools' automatic tangents: Blender's handles and OpenUSD's AutoEase on
   keys worked by hand, and every error branch. */
#include <string.h>

#include "ac_test.h"

#define A AC_HANDLE_AUTO
#define AC AC_HANDLE_AUTO_CLAMPED
#define VEC AC_HANDLE_VECTOR

static void *failing_alloc(size_t size, void *user)
{
    (void)size;
    (void)user;
    return NULL;
}

static void failing_release(void *p, void *user)
{
    (void)p;
    (void)user;
}

static void blender_auto(void)
{
    /* two auto keys: each end mirrors its neighbour, handles 2 / 5.1228 of
       the interval along the segment */
    double keys[4] = {0, 0, 10, 10}, left[4], right[4], h = 10.0 * 2.0 / (2.0 * 2.5614);
    unsigned char t[2] = {A, A};
    memcpy(left, keys, sizeof keys);
    memcpy(right, keys, sizeof keys);
    CHECK(ac_tangents_blender(keys, t, t, 2, 0, left, right, NULL, NULL) == AC_OK);
    CHECK_NEAR(left[0], -h, 1e-13);
    CHECK_NEAR(left[1], -h, 1e-13);
    CHECK_NEAR(right[0], h, 1e-13);
    CHECK_NEAR(right[1], h, 1e-13);
    CHECK_NEAR(left[2], 10 - h, 1e-13);
    CHECK_NEAR(right[3], 10 + h, 1e-13);
    /* constant extrapolation flattens the first key only */
    memcpy(left, keys, sizeof keys);
    memcpy(right, keys, sizeof keys);
    CHECK(ac_tangents_blender(keys, t, t, 2, AC_HANDLES_FLAT_FIRST, left, right, NULL, NULL) ==
          AC_OK);
    CHECK(left[1] == 0.0 && right[1] == 0.0 && right[3] > 10.0);
    CHECK_NEAR(right[0], h, 1e-13);
}

static void blender_vector_and_clamped(void)
{
    double keys[6] = {0, 0, 3, 6, 6, 0}, left[6], right[6];
    unsigned char vec[3] = {VEC, VEC, VEC}, clamped[3] = {AC, AC, AC};
    memcpy(left, keys, sizeof keys);
    memcpy(right, keys, sizeof keys);
    CHECK(ac_tangents_blender(keys, vec, vec, 3, 0, left, right, NULL, NULL) == AC_OK);
    CHECK_NEAR(left[2], 2.0, 1e-15); /* a third of the way to each neighbour */
    CHECK_NEAR(left[3], 4.0, 1e-15);
    CHECK_NEAR(right[2], 4.0, 1e-15);
    CHECK_NEAR(right[3], 4.0, 1e-15);
    memcpy(left, keys, sizeof keys);
    memcpy(right, keys, sizeof keys);
    CHECK(ac_tangents_blender(keys, clamped, clamped, 3, 0, left, right, NULL, NULL) == AC_OK);
    /* a maximum: flat, time length from the slope sum (2, 0) */
    CHECK(left[3] == 6.0 && right[3] == 6.0);
    CHECK_NEAR(left[2], 3.0 - 3.0 / 2.5614, 1e-14);
    CHECK_NEAR(right[2], 3.0 + 3.0 / 2.5614, 1e-14);
    /* free handles are kept (and never cross their key in time) */
    {
        unsigned char free_[3] = {AC_HANDLE_FREE, AC_HANDLE_FREE, AC_HANDLE_FREE};
        double l2[6] = {-1, 1, 4, 5, 5, 1}, r2[6] = {1, -1, 4, 7, 7, -1};
        CHECK(ac_tangents_blender(keys, free_, free_, 3, 0, l2, r2, NULL, NULL) == AC_OK);
        CHECK(l2[0] == -1 && l2[1] == 1 && r2[5] == -1 && l2[2] == 3.0 && l2[3] == 5.0);
    }
}

static void blender_aligned(void)
{
    /* an aligned left handle (given at (1, 6): length 2, out of line) turns
       opposite the vector right one, (4, 4) = a third of the way to (6, 0),
       and keeps its length: (3, 6) + 2 / sqrt(5) (-1, 2) */
    double keys[6] = {0, 0, 3, 6, 6, 0}, left[6], right[6];
    unsigned char lt[3] = {VEC, AC_HANDLE_ALIGNED, VEC}, rt[3] = {VEC, VEC, VEC};
    memcpy(left, keys, sizeof keys);
    memcpy(right, keys, sizeof keys);
    left[2] = 1.0;
    CHECK(ac_tangents_blender(keys, lt, rt, 3, 0, left, right, NULL, NULL) == AC_OK);
    CHECK_NEAR(right[2], 4.0, 1e-15);
    CHECK_NEAR(right[3], 4.0, 1e-15);
    CHECK_NEAR(left[2], 3.0 - 2.0 / sqrt(5.0), 1e-15);
    CHECK_NEAR(left[3], 6.0 + 4.0 / sqrt(5.0), 1e-15);
    /* beside a free handle nothing turns */
    lt[1] = AC_HANDLE_ALIGNED;
    rt[1] = AC_HANDLE_FREE;
    memcpy(left, keys, sizeof keys);
    memcpy(right, keys, sizeof keys);
    left[2] = 1.0;
    right[2] = 5.0;
    right[3] = 9.0;
    CHECK(ac_tangents_blender(keys, lt, rt, 3, 0, left, right, NULL, NULL) == AC_OK);
    CHECK(left[2] == 1.0 && left[3] == 6.0 && right[2] == 5.0 && right[3] == 9.0);
}

static void blender_cyclic(void)
{
    /* across the seam key 0 sees (1, 1) - (2, 0): slopes +1 and -1 cancel */
    double keys[6] = {0, 0, 1, 1, 2, 0}, left[6], right[6], h = 2.0 / (2.0 * 2.5614);
    unsigned char t[3] = {A, A, A};
    memcpy(left, keys, sizeof keys);
    memcpy(right, keys, sizeof keys);
    CHECK(ac_tangents_blender(keys, t, t, 3, AC_HANDLES_CYCLIC | AC_HANDLES_FLAT_FIRST, left,
                              right, NULL, NULL) == AC_OK);
    CHECK_NEAR(left[0], -h, 1e-14);
    CHECK_NEAR(left[1], 0.0, 1e-15);
    CHECK_NEAR(right[0], h, 1e-14);
    CHECK_NEAR(right[1], 0.0, 1e-15);
}

static void blender_cont_accel(void)
{
    /* continuous acceleration with free ends is the natural cubic spline of
       the keys: for (0,0) (1,1) (3,0) its slopes are 1.25, 0.5 and -1 */
    double keys[6] = {0, 0, 1, 1, 3, 0}, left[6], right[6];
    unsigned char t[3] = {A, A, A};
    memcpy(left, keys, sizeof keys);
    memcpy(right, keys, sizeof keys);
    CHECK(ac_tangents_blender(keys, t, t, 3, AC_HANDLES_CONT_ACCEL, left, right, NULL, NULL) ==
          AC_OK);
    CHECK_NEAR(right[0], 1.0 / 3.0, 1e-15);
    CHECK_NEAR(right[1], 1.25 / 3.0, 1e-15);
    CHECK_NEAR(left[2], 1.0 - 1.0 / 3.0, 1e-15);
    CHECK_NEAR(left[3], 1.0 - 0.5 / 3.0, 1e-15);
    CHECK_NEAR(right[2], 1.0 + 2.0 / 3.0, 1e-15);
    CHECK_NEAR(right[3], 1.0 + 0.5 * 2.0 / 3.0, 1e-15);
    CHECK_NEAR(left[4], 3.0 - 2.0 / 3.0, 1e-15);
    CHECK_NEAR(left[5], 0.0 + 1.0 * 2.0 / 3.0, 1e-15);
}

static void blender_errors(void)
{
    double keys[4] = {0, 0, 1, 1}, left[4] = {0, 0, 1, 1}, right[4] = {0, 0, 1, 1};
    unsigned char t[2] = {A, A}, bad[2] = {A, 9};
    ac_allocator none = {failing_alloc, failing_release, NULL};
    ac_error err;
    keys[3] = NAN;
    CHECK(ac_tangents_blender(keys, t, t, 2, 0, left, right, NULL, &err) == AC_ERR_VALUE);
    CHECK(err.index == 3 && err.arg == AC_ARG_KEYS);
    keys[3] = 1;
    keys[2] = 0;
    CHECK(ac_tangents_blender(keys, t, t, 2, 0, left, right, NULL, &err) == AC_ERR_VALUE);
    CHECK(err.index == 2 && strstr(err.detail, "previous time 0") != NULL);
    keys[2] = 1;
    right[2] = INFINITY;
    CHECK(ac_tangents_blender(keys, t, t, 2, 0, left, right, NULL, &err) == AC_ERR_VALUE);
    CHECK(err.index == 2 && err.arg == AC_ARG_RIGHT);
    right[2] = 1;
    left[0] = NAN;
    CHECK(ac_tangents_blender(keys, t, t, 2, 0, left, right, NULL, &err) == AC_ERR_VALUE);
    CHECK(err.index == 0 && err.arg == AC_ARG_LEFT);
    left[0] = 0;
    CHECK(ac_tangents_blender(keys, bad, t, 2, 0, left, right, NULL, &err) == AC_ERR_VALUE);
    CHECK(err.index == 1 && err.value == 9 && err.arg == AC_ARG_LEFT_TYPES);
    CHECK(ac_tangents_blender(keys, t, bad, 2, 0, left, right, NULL, &err) == AC_ERR_VALUE);
    CHECK(err.arg == AC_ARG_RIGHT_TYPES);
    CHECK(ac_tangents_blender(keys, t, t, 2, AC_HANDLES_CONT_ACCEL, left, right, &none, &err) ==
          AC_ERR_NOMEM);
    CHECK(err.arg == AC_ARG_SCRATCH);
    /* nothing written on failure, and one key is left as given */
    CHECK(left[0] == 0 && left[1] == 0 && right[2] == 1 && right[3] == 1);
    CHECK(ac_tangents_blender(keys, t, t, 1, AC_HANDLES_CONT_ACCEL, left, right, NULL, &err) ==
          AC_OK);
    CHECK(left[0] == 0 && right[0] == 0);
}

static void auto_ease(void)
{
    /* (0,0) (1,2) (3,3) (4,1) (6,5): key 1 blends slopes 2 and 0.5 with
       g(1/3) = 11/27 -> 25/18; key 2 is a maximum, key 3 a minimum */
    double t[5] = {0, 1, 3, 4, 6}, v[5] = {0, 2, 3, 1, 5}, s[5];
    CHECK(ac_tangents_auto_ease(t, v, 5, 1, s, NULL) == AC_OK);
    CHECK(s[0] == 0.0 && s[2] == 0.0 && s[3] == 0.0 && s[4] == 0.0);
    CHECK_NEAR(s[1], 25.0 / 18.0, 1e-15);
    /* limited to 3 times the smaller slope */
    {
        double t2[3] = {0, 1, 1.1}, v2[6] = {0, 0, 0.1, -0.1, 5, -5}, s2[6];
        CHECK(ac_tangents_auto_ease(t2, v2, 3, 2, s2, NULL) == AC_OK);
        CHECK_NEAR(s2[2], 0.3, 1e-15);
        CHECK_NEAR(s2[3], -0.3, 1e-15);
    }
    /* a jump (two keys at t = 1) is flat on both keys; its neighbours see the
       near value of the jump */
    {
        double t3[5] = {0, 1, 1, 2, 4}, v3[5] = {0, 1, 5, 6, 8}, s3[5];
        CHECK(ac_tangents_auto_ease(t3, v3, 5, 1, s3, NULL) == AC_OK);
        CHECK(s3[1] == 0.0 && s3[2] == 0.0);
        /* key 3: slopes 1 (from (1,5)) and 1 (to (4,8)): 1 */
        CHECK_NEAR(s3[3], 1.0, 1e-15);
    }
}

static void fbx_slopes(void)
{
    /* curve 1: linear keys (0,0) (1,2) (3,2); curve 2: auto keys (0,0) (1,1)
       (2,0) (the middle one flat at the peak, the ends along their chord;
       the last clamped progressive: flat), then one user key's stored slopes
       after a third curve's first key */
    double t[7] = {0, 1, 3, 0, 1, 2, 5}, v[7] = {0, 2, 2, 0, 1, 0, 7};
    int64_t f[7] = {0x4, 0x4, 0x4, 0x108, 0x108, 0x4108, 0x408};
    double data[21] = {0}, w[7], in[7], out[7];
    unsigned char first[7] = {1, 0, 0, 1, 0, 0, 1};
    for (int i = 0; i < 7; i++)
        w[i] = 1.0 / 3.0;
    data[18] = 0.25;
    data[19] = -0.5;
    CHECK(ac_tangents_fbx(t, v, f, data, w, w, first, 7, in, out, NULL) == AC_OK);
    CHECK(in[0] == 0.0 && out[0] == 2.0 && in[1] == 2.0 && out[1] == 0.0);
    CHECK(in[2] == 0.0 && out[2] == 0.0);
    CHECK(in[3] == 1.0 && out[3] == 1.0);
    CHECK(in[4] == 0.0 && out[4] == 0.0);
    CHECK(in[5] == 0.0 && out[5] == 0.0);
    CHECK(in[6] == 0.0 && out[6] == 0.25); /* a first key's in-slope: none stored */
    /* a TCB key between chords 1 and 3 with tension, continuity and bias 0:
       the mean chord on both sides */
    {
        double tt[3] = {0, 1, 2}, tv[3] = {0, 1, 4}, td[9] = {0}, ti[3], to[3];
        int64_t tf[3] = {0x4, 0x208, 0x4};
        unsigned char tfirst[3] = {1, 0, 0};
        CHECK(ac_tangents_fbx(tt, tv, tf, td, w, w, tfirst, 3, ti, to, NULL) == AC_OK);
        CHECK(ti[1] == 2.0 && to[1] == 2.0);
    }
}

static void auto_ease_errors(void)
{
    double t[3] = {0, 1, 2}, v[3] = {0, 1, 2}, s[3] = {7, 7, 7};
    ac_error err;
    t[1] = NAN;
    CHECK(ac_tangents_auto_ease(t, v, 3, 1, s, &err) == AC_ERR_VALUE);
    CHECK(err.index == 1 && err.arg == AC_ARG_TIMES);
    t[1] = 1;
    v[2] = INFINITY;
    CHECK(ac_tangents_auto_ease(t, v, 3, 1, s, &err) == AC_ERR_VALUE);
    CHECK(err.index == 2 && err.arg == AC_ARG_VALUES);
    v[2] = 2;
    t[2] = 0.5;
    CHECK(ac_tangents_auto_ease(t, v, 3, 1, s, &err) == AC_ERR_VALUE);
    CHECK(err.index == 2 && strstr(err.detail, "previous time 1") != NULL);
    t[1] = t[2] = 0;
    CHECK(ac_tangents_auto_ease(t, v, 3, 1, s, &err) == AC_ERR_VALUE);
    CHECK(err.index == 2 && strstr(err.detail, "third equal time") != NULL);
    CHECK(s[0] == 7 && s[1] == 7 && s[2] == 7);
    {
        double t2[3] = {0, 1e-300, 1}, v2[3] = {0, 1e300, 2e300};
        CHECK(ac_tangents_auto_ease(t2, v2, 3, 1, s, &err) == AC_ERR_OVERFLOW);
        CHECK(err.index == 1 && err.arg == AC_ARG_SLOPES);
    }
    CHECK(ac_tangents_auto_ease(t, v, 0, 1, s, &err) == AC_OK);
}

static void blender_selection_length_float32(void)
{
    /* one key with two aligned handles: left (-2, -1) from it, right (3, 0.5) */
    double ll = sqrt(5.0), lr = sqrt(9.25);
    unsigned char al = AC_HANDLE_ALIGNED, unsel = AC_HANDLE_ALIGNED | AC_HANDLE_UNSELECTED;
    double keys2[4] = {10, 1, 20, 0}, l2[4], r2[4];
    unsigned char lt[2] = {AC_HANDLE_FREE, AC_HANDLE_FREE};
    /* left selected: the right handle turns opposite the left, keeping its length */
    l2[0] = 8, l2[1] = 0, r2[0] = 13, r2[1] = 1.5, l2[2] = 19, l2[3] = 0, r2[2] = 21, r2[3] = 0;
    lt[0] = al;
    {
        unsigned char rt[2] = {AC_HANDLE_ALIGNED, AC_HANDLE_FREE};
        CHECK(ac_tangents_blender(keys2, lt, rt, 2, 0, l2, r2, NULL, NULL) == AC_OK);
        CHECK_NEAR(r2[0], 10 + 2 * lr / ll, 1e-12);
        CHECK_NEAR(r2[1], 1 + 1 * lr / ll, 1e-12);
        CHECK_NEAR(l2[0], 8, 1e-12);
        CHECK_NEAR(l2[1], 0, 1e-12);
        /* unselected left handle: the left one turns opposite the right */
        l2[0] = 8, l2[1] = 0, r2[0] = 13, r2[1] = 1.5;
        lt[0] = unsel;
        CHECK(ac_tangents_blender(keys2, lt, rt, 2, 0, l2, r2, NULL, NULL) == AC_OK);
        CHECK_NEAR(l2[0], 10 - 3 * ll / lr, 1e-12);
        CHECK_NEAR(l2[1], 1 - 0.5 * ll / lr, 1e-12);
        CHECK_NEAR(r2[0], 13, 1e-12);
        CHECK_NEAR(r2[1], 1.5, 1e-12);
        /* Blender 5's shortest handle: 0.001 frame, one float32 step beyond */
        lt[0] = AC_HANDLE_FREE;
        rt[0] = AC_HANDLE_FREE;
        l2[0] = 10, l2[1] = 0.5, r2[0] = 10.0002, r2[1] = 1.5;
        CHECK(ac_tangents_blender(keys2, lt, rt, 2, AC_HANDLES_MIN_LENGTH, l2, r2, NULL,
                                  NULL) == AC_OK);
        CHECK_NEAR(l2[0], 9.999, 1e-12);
        CHECK_NEAR(r2[0], 10.001, 1e-12);
        CHECK(l2[1] == 0.5 && r2[1] == 1.5);
        l2[0] = 10, r2[0] = 10;
        CHECK(ac_tangents_blender(keys2, lt, rt, 2, AC_HANDLES_MIN_LENGTH | AC_HANDLES_FLOAT32,
                                  l2, r2, NULL, NULL) == AC_OK);
        CHECK(l2[0] == (double)nextafterf(10.0f - 0.001f, -INFINITY));
        CHECK(r2[0] == (double)nextafterf(10.0f + 0.001f, INFINITY));
    }
    /* float32: the results are float32 values, the keys read as float32 */
    {
        double k3[6] = {0, 0.1, 0.02734375, 1, 0.0546875, -0.5}, l3[6], r3[6];
        unsigned char t3[3] = {A, A, A};
        memcpy(l3, k3, sizeof k3);
        memcpy(r3, k3, sizeof k3);
        CHECK(ac_tangents_blender(k3, t3, t3, 3, AC_HANDLES_FLOAT32, l3, r3, NULL, NULL) == AC_OK);
        for (int i = 0; i < 6; i++)
            CHECK(l3[i] == (double)(float)l3[i] && r3[i] == (double)(float)r3[i]);
        CHECK(l3[1] != k3[1] || r3[1] != k3[1]);
        k3[0] = 1.0, k3[2] = 1.0 + 1e-12, k3[4] = 2.0;
        CHECK(ac_tangents_blender(k3, t3, t3, 3, AC_HANDLES_FLOAT32, l3, r3, NULL, NULL) ==
              AC_ERR_VALUE);
    }
}

int main(void)
{
    blender_selection_length_float32();
    blender_auto();
    blender_vector_and_clamped();
    blender_aligned();
    blender_cyclic();
    blender_cont_accel();
    blender_errors();
    auto_ease();
    auto_ease_errors();
    fbx_slopes();
    TEST_DONE("test_tangents");
}

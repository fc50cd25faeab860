/* Compressed clip layouts: hand-built buffers of versions 1 and 2 read
   back, and hostile bytes (every truncation, bad fields) refused with the
   byte offset. */
#include <stdlib.h>
#include <string.h>

#include "ac_internal.h"
#include "ac_test.h"

static void put_f64(uint8_t *p, double x)
{
    uint64_t b;
    memcpy(&b, &x, 8);
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(b >> (8 * i));
}

static void put_f32(uint8_t *p, float x)
{
    uint32_t b;
    memcpy(&b, &x, 4);
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(b >> (8 * i));
}

static void put_u32(uint8_t *p, uint32_t x)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(x >> (8 * i));
}

/* Version 2: one node, 3 samples at 1 Hz in segments of 2: translation
   constant (1, 2, 3), rotation animated (x rebuilt; y, z, w stored with
   clip ranges (0, 1), (0, 0.5), (0, 0.1)), scale default. Segment 0: bits
   (3, 0, 2), ranges (0, 255), (10, 20), (0, 255); segment 1: 1 bit each,
   ranges (0, 255). */
#define V2_SIZE (32 + 3 + 12 + 24 + 8 + 10 + 9)
static void version2(uint8_t *buf)
{
    static const uint8_t first[10] = {3 | 0 << 5, 2 << 2, 0, 255, 10, 20, 0, 255,
                                      0xB9, 0x02}; /* q: (1, -, 3), (5, -, 2) */
    static const uint8_t second[9] = {1 | 1 << 5, 1 << 2, 0, 255, 0, 255, 0, 255, 0x05};
    const float clip[9] = {1, 2, 3, 0, 1, 0, 0.5f, 0, 0.1f};
    memset(buf, 0, V2_SIZE);
    memcpy(buf, "ACCC", 4);
    buf[4] = 2;
    buf[6] = 2; /* samples per segment */
    buf[8] = 1;
    buf[12] = 3;
    put_f64(buf + 16, 0.0);
    put_f64(buf + 24, 1.0);
    buf[32] = AC_TRACK_CONSTANT;
    buf[33] = AC_TRACK_ANIMATED | 1 << 2;
    buf[34] = AC_TRACK_DEFAULT;
    for (int c = 0; c < 9; c++)
        put_f32(buf + 35 + 4 * c, clip[c]);
    put_u32(buf + 71, 0);
    put_u32(buf + 75, 10);
    memcpy(buf + 79, first, sizeof first);
    memcpy(buf + 89, second, sizeof second);
}

/* The rotation of sample 0 of version2, re-derived from the layout's formula. */
static void version2_sample0(double q[4])
{
    q[1] = 0.0 + 1.0 * ((0.0 + 255.0 * (1.5 / 8.0)) / 255.0);
    q[2] = 0.0 + (double)0.5f * ((10.0 + 20.0 * 0.5) / 255.0);
    q[3] = 0.0 + (double)0.1f * ((0.0 + 255.0 * (3.5 / 4.0)) / 255.0);
    q[0] = sqrt(1.0 - q[1] * q[1] - q[2] * q[2] - q[3] * q[3]);
}

static void test_version2(void)
{
    uint8_t buf[V2_SIZE];
    double t[4] = {0.0, 0.5, 2.0, 9.0}, tr[12], rot[16], sc[12], q0[4], q1[4];
    ac_compressed_info info;
    ac_error err;
    version2(buf);
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_OK);
    CHECK(info.nodes == 1 && info.samples == 3 && info.rate == 1.0);
    CHECK(ac_reduce_compressed_sample(buf, sizeof buf, t, 4, tr, rot, sc, &err) == AC_OK);
    version2_sample0(q0);
    for (int c = 0; c < 4; c++)
        CHECK_NEAR(rot[c], q0[c], 1e-15);
    CHECK(tr[0] == 1.0 && tr[1] == 2.0 && tr[2] == 3.0 && sc[3] == 1.0 && sc[5] == 1.0);
    /* sample 2 (segment 1, 1 bit each, q = 1, 0, 1) */
    q1[1] = 1.0 * (255.0 * 0.75 / 255.0);
    q1[2] = (double)0.5f * (255.0 * 0.25 / 255.0);
    q1[3] = (double)0.1f * (255.0 * 0.75 / 255.0);
    q1[0] = sqrt(1.0 - q1[1] * q1[1] - q1[2] * q1[2] - q1[3] * q1[3]);
    for (int c = 0; c < 4; c++) {
        CHECK_NEAR(rot[8 + c], q1[c], 1e-15);
        CHECK_NEAR(rot[12 + c], q1[c], 1e-15); /* clamped after the last sample */
    }
    CHECK_NEAR(rot[4] * rot[4] + rot[5] * rot[5] + rot[6] * rot[6] + rot[7] * rot[7], 1.0,
               1e-15);
    for (size_t n = 0; n < sizeof buf; n++) /* every truncation is refused */
        CHECK(ac_reduce_compressed_info(buf, n, &info, &err) == AC_ERR_VALUE);
    buf[4] = 3;
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 4);
    buf[4] = 2;
    buf[6] = 0;
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 6);
    buf[6] = 2;
    buf[33] |= 1 << 4;
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 33);
    buf[33] = AC_TRACK_ANIMATED | 1 << 2;
    buf[34] = 1 << 2; /* a rebuilt component on a default track */
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 34);
    buf[34] = AC_TRACK_DEFAULT;
    buf[71] = 1; /* the first offset */
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 71);
    buf[71] = 0;
    buf[75] = 11; /* the second segment's offset: not the first's end */
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 75);
    buf[75] = 10;
    /* bits 25 in segment 1: the layout is refused at that byte, and sampling
       fails in segment 1 only (it checks the segments it reads) */
    buf[89] = 25;
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 89);
    CHECK(ac_reduce_compressed_sample(buf, sizeof buf, t, 1, tr, rot, sc, &err) == AC_OK);
    CHECK(ac_reduce_compressed_sample(buf, sizeof buf, t + 2, 1, tr, rot, sc, &err) ==
              AC_ERR_VALUE && err.index == 89);
    buf[89] = 1 | 1 << 5;
    buf[90] = 1 << 2 | 0x80; /* bit 15 of the bit counts */
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 89);
    buf[90] = 1 << 2;
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_OK);
}

int main(void)
{
    /* one node, two samples at 1 Hz: translation animated (x 0 -> 1, 1 bit),
       rotation default, scale constant (2, 2, 2) */
    uint8_t buf[32 + 12 + 24 + 1 + 12];
    double t[3] = {-1.0, 0.25, 5.0}, tr[9], rot[12], sc[9];
    ac_compressed_info info;
    ac_error err;
    memset(buf, 0, sizeof buf);
    memcpy(buf, "ACCC", 4);
    buf[4] = 1;
    buf[8] = 1;
    buf[12] = 2;
    put_f64(buf + 16, 0.0);
    put_f64(buf + 24, 1.0);
    buf[32] = AC_TRACK_ANIMATED;
    buf[33] = 1;
    buf[36] = AC_TRACK_DEFAULT;
    buf[40] = AC_TRACK_CONSTANT;
    put_f32(buf + 44, 0.0f); /* x: min 0, extent 1 */
    put_f32(buf + 48, 1.0f);
    buf[68] = 0x08; /* sample 0: x 0, y 0, z 0; sample 1: x 1 (bit 3) */
    for (int c = 0; c < 3; c++)
        put_f32(buf + 69 + 4 * c, 2.0f);
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_OK);
    CHECK(info.nodes == 1 && info.samples == 2);
    CHECK(ac_reduce_compressed_sample(buf, sizeof buf, t, 3, tr, rot, sc, &err) == AC_OK);
    CHECK(tr[0] == 0.0 && tr[3] == 0.25 && tr[6] == 1.0);
    CHECK(rot[3] == 1.0 && sc[4] == 2.0);
    for (size_t n = 0; n < sizeof buf; n++) /* every truncation is refused */
        CHECK(ac_reduce_compressed_info(buf, n, &info, &err) == AC_ERR_VALUE);
    buf[0] = 'X';
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 0);
    buf[0] = 'A';
    buf[33] = 25;
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 33);
    buf[33] = 1;
    put_f32(buf + 48, -1.0f);
    CHECK(ac_reduce_compressed_info(buf, sizeof buf, &info, &err) == AC_ERR_VALUE &&
          err.index == 48);
    put_f32(buf + 48, 1.0f);
    t[1] = NAN;
    CHECK(ac_reduce_compressed_sample(buf, sizeof buf, t, 3, tr, rot, sc, &err) ==
              AC_ERR_VALUE && err.index == 1 && err.arg == AC_ARG_T);
    test_version2();
    TEST_DONE("test_reduce");
}

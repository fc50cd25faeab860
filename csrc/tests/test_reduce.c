/* Compressed clip layout: a hand-built buffer read back, and hostile bytes
   (every truncation, bad fields) refused with the byte offset. */
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
    TEST_DONE("test_reduce");
}

/* A minimal test harness for the core's C tests: no dependencies, one
   executable per test file, non-zero exit on the first failed check. */
#ifndef AC_TEST_H
#define AC_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "animcore.h"

static int ac_test_checks;

#define CHECK(cond)                                                              \
    do {                                                                         \
        ac_test_checks++;                                                        \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                    \
    do {                                                                         \
        double ac_a_ = (a), ac_b_ = (b);                                         \
        ac_test_checks++;                                                        \
        if (!(fabs(ac_a_ - ac_b_) <= (tol))) {                                   \
            fprintf(stderr, "%s:%d: %s = %.17g, expected %.17g (tol %g)\n",     \
                    __FILE__, __LINE__, #a, ac_a_, ac_b_, (double)(tol));        \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

#define TEST_DONE(name)                                                          \
    do {                                                                         \
        printf("%s: %d checks passed\n", name, ac_test_checks);                  \
        return 0;                                                                \
    } while (0)

#endif

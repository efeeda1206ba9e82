/* The headers cmocka needs before it, in the order it needs them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* cmocka's assert_float_equal compares in float precision (about 7 digits)
 * and casts only the first token of an expression argument; the times the
 * tests compare need double.  This one compares |a - b| <= epsilon in
 * double, each argument evaluated once, and prints both on failure. */
#include <math.h>
#include <stdio.h>
#undef assert_float_equal
#define assert_float_equal(a, b, epsilon)                                                          \
    do {                                                                                           \
        double sb_a_ = (a), sb_b_ = (b), sb_e_ = (epsilon);                                        \
        if (!(fabs(sb_a_ - sb_b_) <= sb_e_)) {                                                     \
            print_error("%.17g != %.17g (|difference| %.3g > %.3g)\n", sb_a_, sb_b_,               \
                        fabs(sb_a_ - sb_b_), sb_e_);                                               \
            _fail(__FILE__, __LINE__);                                                             \
        }                                                                                          \
    } while (0)

/* The command line. */
#include "cmocka_prelude.h"
#include "../src/args.h"

#include <string.h>

static int parse(struct args *a, struct sb_msg *m, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    return parse_args(argc, argv, a, m);
}

static void test_full_command_line(void **state)
{
    (void)state;
    struct args a;
    struct sb_msg m;
    char *argv[] = {"shiftbox",     "exchange",         "-c",    "f.ini", "-s",
                    "exchange.k=2", "--set=run.seed=5", "--out", "dir",   NULL};
    assert_int_equal(parse(&a, &m, argv), SB_OK);
    assert_string_equal(a.command, "exchange");
    assert_string_equal(a.config_file, "f.ini");
    assert_int_equal(a.noverrides, 2);
    assert_string_equal(a.overrides[1], "run.seed=5");
    assert_string_equal(a.out_dir, "dir");
    assert_false(a.help);
}

static void test_help_and_version(void **state)
{
    (void)state;
    struct args a;
    struct sb_msg m;
    assert_int_equal(parse(&a, &m, (char *[]){"shiftbox", "--help", NULL}), SB_OK);
    assert_true(a.help);
    assert_null(a.command);
    assert_int_equal(parse(&a, &m, (char *[]){"shiftbox", "exchange", "-h", NULL}), SB_OK);
    assert_true(a.help);
    assert_string_equal(a.command, "exchange");
    assert_int_equal(parse(&a, &m, (char *[]){"shiftbox", "-V", NULL}), SB_OK);
    assert_true(a.version);
}

static void test_mistakes(void **state)
{
    (void)state;
    struct args a;
    struct sb_msg m;
    assert_int_equal(parse(&a, &m, (char *[]){"shiftbox", "exchange", "-s", NULL}), SB_EUSAGE);
    assert_non_null(strstr(m.text, "needs a value"));
    assert_int_equal(parse(&a, &m, (char *[]){"shiftbox", "exchange", "--bogus", NULL}), SB_EUSAGE);
    assert_non_null(strstr(m.text, "--bogus"));
    assert_int_equal(parse(&a, &m, (char *[]){"shiftbox", "exchange", "k=1", NULL}), SB_EUSAGE);
    assert_non_null(strstr(m.text, "-s section.key=value"));
    assert_int_equal(parse(&a, &m, (char *[]){"shiftbox", "exchange", "-c", "a", "-c", "b", NULL}),
                     SB_EUSAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_command_line),
        cmocka_unit_test(test_help_and_version),
        cmocka_unit_test(test_mistakes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

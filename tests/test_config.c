/* Configuration: lists and ranges, typed keys, files, overrides, and the
 * messages a user sees for each kind of mistake. */
#include "cmocka_prelude.h"
#include "../src/config.h"

#include <stdlib.h>
#include <string.h>

static void test_every_default_is_valid(void **state)
{
    (void)state;
    for (int i = 0; config_keys[i].section; i++) {
        struct sb_msg m = {""};
        const struct key_spec *k = &config_keys[i];
        if (key_validate(k, k->fallback, &m) != SB_OK)
            fail_msg("default of %s.%s is invalid: %s", k->section, k->name, m.text);
        assert_true(strlen(k->help) > 10);
        bool listed = false;
        for (int s = 0; config_sections[s]; s++)
            listed |= !strcmp(config_sections[s], k->section);
        assert_true(listed);
    }
}

static void test_int_lists_and_ranges(void **state)
{
    (void)state;
    long long v[64];
    const char *why;
    assert_int_equal(parse_int_list("1-4,8", v, 64, &why), 5);
    assert_int_equal(v[0], 1);
    assert_int_equal(v[3], 4);
    assert_int_equal(v[4], 8);
    assert_int_equal(parse_int_list(" 10 , 100,1000 ", v, 64, &why), 3);
    assert_int_equal(v[2], 1000);
    assert_int_equal(parse_int_list("-1", v, 64, &why), 1);
    assert_int_equal(v[0], -1);
    assert_int_equal(parse_int_list("-3--1", v, 64, &why), 3);
    assert_int_equal(v[0], -3);
    assert_int_equal(parse_int_list("3-1", v, 64, &why), -1);
    assert_non_null(strstr(why, "upwards"));
    assert_int_equal(parse_int_list("", v, 64, &why), -1);
    assert_int_equal(parse_int_list("1,,2", v, 64, &why), -1);
    assert_int_equal(parse_int_list("1;2", v, 64, &why), -1);
    assert_int_equal(parse_int_list("abc", v, 64, &why), -1);
    assert_int_equal(parse_int_list("1-100", v, 64, &why), -1);
    assert_non_null(strstr(why, "too long"));
    /* a range wider than a long long holds: refused, not written past v */
    assert_int_equal(parse_int_list("-9000000000000000000-9000000000000000000", v, 64, &why), -1);
    assert_non_null(strstr(why, "too long"));
    assert_int_equal(parse_int_list("1,-9223372036854775807-9223372036854775807", v, 64, &why), -1);
    assert_non_null(strstr(why, "too long"));
}

static void test_defaults_and_getters(void **state)
{
    (void)state;
    struct config c;
    config_init(&c);
    assert_int_equal(cfg_int(&c, "exchange.repetitions"), 100);
    char item[64];
    assert_true(cfg_choice_item(&c, "exchange.module", 0, item, sizeof item));
    assert_string_equal(item, "shift");
    assert_false(cfg_choice_item(&c, "exchange.module", 1, item, sizeof item));
    assert_true(cfg_real(&c, "stats.cut_coef") == 2.0);
    long long k[CONFIG_MAX_LIST];
    assert_int_equal(cfg_int_list(&c, "exchange.k", k), 4);
    int dims[3] = {9, 9, 9};
    cfg_dims(&c, "decomp.dims", dims);
    assert_int_equal(dims[0] + dims[1] + dims[2], 0);
    config_free(&c);
}

static void test_file_sets_values_and_origin(void **state)
{
    (void)state;
    struct config c;
    struct sb_msg m = {""};
    config_init(&c);
    const char *text = "; a comment\n[exchange]\nk = 2-3   ; inline comment\nbytes=7\n"
                       "[decomp]\ndims = 2, 1, 1\n";
    assert_int_equal(config_parse_text(&c, text, "t.ini", &m), SB_OK);
    long long k[CONFIG_MAX_LIST];
    assert_int_equal(cfg_int_list(&c, "exchange.k", k), 2);
    assert_int_equal(k[1], 3);
    int dims[3];
    cfg_dims(&c, "decomp.dims", dims);
    assert_int_equal(dims[0], 2);
    assert_int_equal(dims[1], 1);
    assert_int_equal(config_override(&c, "exchange.k=4", &m), SB_OK);
    assert_int_equal(cfg_int_list(&c, "exchange.k", k), 1);
    assert_int_equal(k[0], 4);
    config_free(&c);
}

/* Each mistake exits 2 with a message naming the place, the key and what is accepted. */
static void expect_file_error(const char *text, const char *const *needles)
{
    struct config c;
    struct sb_msg m = {""};
    config_init(&c);
    assert_int_equal(config_parse_text(&c, text, "f.ini", &m), SB_EUSAGE);
    for (int i = 0; needles[i]; i++)
        if (!strstr(m.text, needles[i])) fail_msg("message '%s' lacks '%s'", m.text, needles[i]);
    config_free(&c);
}

static void test_file_errors_name_the_problem(void **state)
{
    (void)state;
    expect_file_error("[exchange]\nk = 1\nkk = 2\n",
                      (const char *[]){"f.ini:3", "exchange.kk", "unknown key",
                                       "did you mean 'exchange.k'", NULL});
    expect_file_error("[exchang]\nk = 1\n", (const char *[]){"f.ini:2", "unknown section [exchang]",
                                                             "did you mean 'exchange.k'", NULL});
    expect_file_error("[exchange]\nrepetitions = many\n",
                      (const char *[]){"f.ini:2", "exchange.repetitions", "accepted", NULL});
    expect_file_error("k = 1\n", (const char *[]){"f.ini:1", "before any [section]", NULL});
    expect_file_error("[exchange]\nthis line has no equals sign\n",
                      (const char *[]){"f.ini:2", "key = value", NULL});
    expect_file_error("[exchange]\npayload = sometimes\n",
                      (const char *[]){"exchange.payload", "uniform|varied", NULL});
    expect_file_error("[stats]\ncut_coef = 0.5\n",
                      (const char *[]){"stats.cut_coef", "accepted", NULL});
    expect_file_error("[decomp]\ndims = 2,2\n", (const char *[]){"decomp.dims", "nx,ny,nz", NULL});
}

static void test_override_errors(void **state)
{
    (void)state;
    struct config c;
    struct sb_msg m = {""};
    config_init(&c);
    assert_int_equal(config_override(&c, "exchange.k=-1", &m), SB_EUSAGE);
    assert_non_null(strstr(m.text, "exchange.k"));
    assert_non_null(strstr(m.text, "accepted"));
    assert_int_equal(config_override(&c, "exchange.nosuchkey=1", &m), SB_EUSAGE);
    assert_non_null(strstr(m.text, "exchange.nosuchkey"));
    assert_null(strstr(m.text, "did you mean")); /* nothing is near enough */
    assert_int_equal(config_override(&c, "exchange.k", &m), SB_EUSAGE);
    assert_non_null(strstr(m.text, "section.key=value"));
    assert_int_equal(config_override(&c, "k=1", &m), SB_EUSAGE);
    /* A failed override leaves the value as it was. */
    long long k[CONFIG_MAX_LIST];
    assert_int_equal(cfg_int_list(&c, "exchange.k", k), 4);
    assert_int_equal(k[3], 4);
    config_free(&c);
}

static void test_nearest_key(void **state)
{
    (void)state;
    assert_int_equal(edit_distance("kitten", "sitting"), 3);
    assert_int_equal(edit_distance("", "abc"), 3);
    assert_int_equal(edit_distance("same", "same"), 0);
    const struct key_spec *k = key_nearest("exchange", "repetition");
    assert_non_null(k);
    assert_string_equal(k->name, "repetitions");
    assert_null(key_nearest("exchange", "zzzzzzzz"));
    k = key_nearest("exchnage", "bytes");
    assert_non_null(k);
    assert_string_equal(k->section, "exchange");
}

static void test_typed_validation(void **state)
{
    (void)state;
    struct sb_msg m;
    struct key_spec flag = {"t", "flag", KEY_BOOL, "0", 0, 0, 0, 0, NULL, "a test flag"};
    assert_int_equal(key_validate(&flag, "yes", &m), SB_OK);
    assert_int_equal(key_validate(&flag, "Off", &m), SB_OK);
    assert_int_equal(key_validate(&flag, "2", &m), SB_EUSAGE);
    struct key_spec real = {"t", "x", KEY_REAL, "1", 0, 0, -1.0, 1.0, NULL, "a test real"};
    assert_int_equal(key_validate(&real, "0.5", &m), SB_OK);
    assert_int_equal(key_validate(&real, "1e3", &m), SB_EUSAGE);
    assert_int_equal(key_validate(&real, "nan", &m), SB_EUSAGE);
    assert_int_equal(key_validate(&real, "0.5x", &m), SB_EUSAGE);
    struct key_spec one = {"t", "n", KEY_INT, "1", 1, 10, 0, 0, NULL, "a test int"};
    assert_int_equal(key_validate(&one, "10", &m), SB_OK);
    assert_int_equal(key_validate(&one, "11", &m), SB_EUSAGE);
    assert_int_equal(key_validate(&one, "99999999999999999999999", &m), SB_EUSAGE);
    assert_int_equal(key_validate(&one, "1.5", &m), SB_EUSAGE);
}

/* A configuration with no -s given yet (each -s key may be given once). */
static void restart_config(struct config *c)
{
    config_free(c);
    config_init(c);
}

static void test_choice_lists_and_all(void **state)
{
    (void)state;
    struct config c;
    struct sb_msg m = {""};
    char item[64];
    config_init(&c);
    assert_int_equal(config_override(&c, "exchange.module=direct, teamshift", &m), SB_OK);
    assert_true(cfg_choice_item(&c, "exchange.module", 1, item, sizeof item));
    assert_string_equal(item, "teamshift");
    /* one -s per key: a second is refused, whatever its value */
    assert_int_equal(config_override(&c, "exchange.module=all", &m), SB_EUSAGE);
    assert_non_null(strstr(m.text, "given twice"));
    restart_config(&c);
    assert_int_equal(config_override(&c, "exchange.module=all", &m), SB_OK);
    int n = 0;
    while (cfg_choice_item(&c, "exchange.module", n, item, sizeof item))
        n++;
    assert_int_equal(n, 4);
    assert_string_equal(item, "direct");
    restart_config(&c);
    assert_int_equal(config_override(&c, "exchange.module=shift,nosuch", &m), SB_EUSAGE);
    assert_non_null(strstr(m.text, "'nosuch' is not one of them"));
    assert_int_equal(config_override(&c, "exchange.module=shift,,direct", &m), SB_EUSAGE);
    /* team sizes take a list or all; plain lists take no "all" */
    assert_int_equal(config_override(&c, "exchange.team_size=all", &m), SB_OK);
    assert_true(cfg_all(&c, "exchange.team_size"));
    assert_int_equal(config_override(&c, "exchange.k=all", &m), SB_EUSAGE);
    assert_int_equal(config_override(&c, "decomp.dims=all", &m), SB_OK);
    assert_true(cfg_all(&c, "decomp.dims"));
    config_free(&c);
}

/* Lists of reals (stencil.weights) and the word that stands for them. */
static void test_real_lists(void **state)
{
    (void)state;
    struct config c;
    struct sb_msg m = {""};
    double w[64];
    config_init(&c);
    assert_true(cfg_all(&c, "stencil.weights")); /* "auto" */
    assert_int_equal(cfg_real_list(&c, "stencil.weights", w, 64), 0);
    assert_int_equal(config_override(&c, "stencil.weights=0.25, -1e-3,2", &m), SB_OK);
    assert_false(cfg_all(&c, "stencil.weights"));
    assert_int_equal(cfg_real_list(&c, "stencil.weights", w, 64), 3);
    assert_true(w[1] == -1e-3 && w[2] == 2.0);
    restart_config(&c);
    assert_int_equal(config_override(&c, "stencil.weights=0.1,x", &m), SB_EUSAGE);
    assert_non_null(strstr(m.text, "stencil.weights"));
    assert_non_null(strstr(m.text, "or auto"));
    restart_config(&c);
    assert_int_equal(config_override(&c, "stencil.weights=1e7", &m), SB_EUSAGE);
    restart_config(&c);
    assert_int_equal(config_override(&c, "stencil.weights=", &m), SB_EUSAGE);
    /* an integer list whose word is "auto" */
    assert_true(cfg_all(&c, "stencil.size"));
    assert_int_equal(config_override(&c, "stencil.size=all", &m), SB_EUSAGE);
    config_free(&c);
}

static void test_ini_round_trip(void **state)
{
    (void)state;
    struct config a, b;
    struct sb_msg m = {""};
    config_init(&a);
    config_init(&b);
    assert_int_equal(config_override(&a, "exchange.bytes=1,2,3", &m), SB_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    config_write_ini(&a, NULL, f);
    fclose(f);
    /* What rank 0 prints at start reads back as the same configuration. */
    assert_int_equal(config_parse_text(&b, text, "printed", &m), SB_OK);
    for (int i = 0; i < a.nkeys; i++)
        assert_string_equal(a.value[i], b.value[i]);
    free(text);
    config_free(&a);
    config_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_default_is_valid),
        cmocka_unit_test(test_int_lists_and_ranges),
        cmocka_unit_test(test_defaults_and_getters),
        cmocka_unit_test(test_file_sets_values_and_origin),
        cmocka_unit_test(test_file_errors_name_the_problem),
        cmocka_unit_test(test_override_errors),
        cmocka_unit_test(test_nearest_key),
        cmocka_unit_test(test_typed_validation),
        cmocka_unit_test(test_choice_lists_and_all),
        cmocka_unit_test(test_real_lists),
        cmocka_unit_test(test_ini_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

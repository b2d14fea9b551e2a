/* SPDX-License-Identifier: Apache-2.0 */
/* The mapping of gvariant-mapping.c, on its own (no prefsd): every type class round trips exactly, is stored in the
 * shape docs/GSETTINGS.md gives, and every stored value of the wrong type reads as NULL with the reason. */
#include <math.h>
#include <string.h>

#include "gvariant-mapping.h"

static GVariant *parse(const char *type, const char *text) {
    GError *error = NULL;
    GVariant *value = g_variant_parse(type != NULL ? G_VARIANT_TYPE(type) : NULL, text, NULL, NULL, &error);
    g_assert_no_error(error);
    return value;
}

/* Writes `text` (of `type`), reads it back as `type`, and returns the stored plist for the caller to inspect. */
static prefs_value *round_trip(const char *type, const char *text) {
    GVariant *value = parse(type, text);
    GError *error = NULL;
    prefs_value *stored = pgs_variant_to_plist(value, &error);
    g_assert_no_error(error);
    g_assert_nonnull(stored);
    GVariant *back = pgs_plist_to_variant(stored, G_VARIANT_TYPE(type), &error);
    g_assert_no_error(error);
    g_assert_nonnull(back);
    if (back != NULL && !g_variant_equal(value, back)) {
        char *expected = g_variant_print(value, TRUE), *got = g_variant_print(back, TRUE);
        g_test_message("%s %s read back as %s", type, expected, got);
        g_test_fail();
        g_free(expected);
        g_free(got);
    }
    g_assert_false(back != NULL && g_variant_is_floating(back));
    if (back != NULL) g_variant_unref(back);
    g_variant_unref(value);
    return stored;
}

static void assert_tagged(const prefs_value *stored, const char *text) {
    g_assert_true(pgs_plist_is_tagged(stored));
    if (text != NULL && pgs_plist_is_tagged(stored))
        g_assert_cmpstr(prefs_value_get_string(prefs_value_dictionary_get(stored, PGS_TAG_KEY)), ==, text);
}

static void test_natural_scalars(void) {
    struct {
        const char *type, *text;
        prefs_type stored;
    } cases[] = {
        {"b", "true", PREFS_TYPE_BOOLEAN},
        {"b", "false", PREFS_TYPE_BOOLEAN},
        {"y", "byte 0xff", PREFS_TYPE_INTEGER},
        {"y", "byte 0", PREFS_TYPE_INTEGER},
        {"n", "int16 -32768", PREFS_TYPE_INTEGER},
        {"n", "int16 32767", PREFS_TYPE_INTEGER},
        {"q", "uint16 65535", PREFS_TYPE_INTEGER},
        {"i", "-2147483648", PREFS_TYPE_INTEGER},
        {"i", "2147483647", PREFS_TYPE_INTEGER},
        {"u", "uint32 4294967295", PREFS_TYPE_INTEGER},
        {"x", "int64 -9223372036854775808", PREFS_TYPE_INTEGER},
        {"x", "int64 9223372036854775807", PREFS_TYPE_INTEGER},
        {"t", "uint64 0", PREFS_TYPE_INTEGER},
        {"t", "uint64 9223372036854775808", PREFS_TYPE_INTEGER},
        {"t", "uint64 18446744073709551615", PREFS_TYPE_INTEGER},
        {"d", "0.1", PREFS_TYPE_REAL},
        {"d", "-0.0", PREFS_TYPE_REAL},
        {"d", "1.7976931348623157e308", PREFS_TYPE_REAL},
        {"d", "2.2250738585072014e-308", PREFS_TYPE_REAL},
        {"s", "''", PREFS_TYPE_STRING},
        {"s", "'caf\u00e9 \\'quoted\\' \\n'", PREFS_TYPE_STRING},
        {"as", "@as []", PREFS_TYPE_ARRAY},
        {"as", "['a', '', 'b c']", PREFS_TYPE_ARRAY},
        {"ay", "@ay []", PREFS_TYPE_DATA},
        {"ay", "b'bytes'", PREFS_TYPE_DATA},
        {"ay", "[byte 0x00, 0xff]", PREFS_TYPE_DATA},
        {"a{ss}", "@a{ss} {}", PREFS_TYPE_DICTIONARY},
        {"a{ss}", "{'a': 'x', 'b': 'y'}", PREFS_TYPE_DICTIONARY},
        {"a{sv}", "@a{sv} {}", PREFS_TYPE_DICTIONARY},
    };
    for (size_t index = 0; index < G_N_ELEMENTS(cases); index++) {
        prefs_value *stored = round_trip(cases[index].type, cases[index].text);
        g_assert_cmpint(prefs_value_get_type(stored), ==, cases[index].stored);
        g_assert_false(pgs_plist_is_tagged(stored));
        prefs_value_free(stored);
    }
    /* The natural values themselves. */
    prefs_value *stored = round_trip("t", "uint64 18446744073709551615");
    g_assert_true(prefs_value_is_unsigned(stored));
    g_assert_cmpuint(prefs_value_get_unsigned(stored), ==, G_MAXUINT64);
    prefs_value_free(stored);
    stored = round_trip("y", "byte 200");
    g_assert_cmpint(prefs_value_get_integer(stored), ==, 200);
    prefs_value_free(stored);
    stored = round_trip("ay", "b'ab'");
    size_t length = 0;
    const char *bytes = prefs_value_get_data(stored, &length);
    g_assert_cmpuint(length, ==, 3); /* a bytestring literal ends with its NUL */
    g_assert_cmpmem(bytes, length, "ab", 3);
    prefs_value_free(stored);
    stored = round_trip("a{ss}", "{'a': 'x'}");
    g_assert_cmpstr(prefs_value_get_string(prefs_value_dictionary_get(stored, "a")), ==, "x");
    prefs_value_free(stored);
}

static void test_tagged_types(void) {
    struct {
        const char *type, *text, *stored;
    } cases[] = {
        {"h", "handle 3", "handle 3"},
        {"o", "'/org/example'", "objectpath '/org/example'"},
        {"g", "'a{sv}'", "signature 'a{sv}'"},
        {"v", "<42>", "<42>"},
        {"v", "<<int64 1>>", "<<int64 1>>"},
        {"(ii)", "(1, -2)", "(1, -2)"},
        {"()", "()", "()"},
        {"m(s)", "nothing", "@m(s) nothing"},
        {"m(s)", "just ('x',)", "@m(s) ('x',)"},
        {"mmb", "just nothing", "@mmb just nothing"},
        {"ms", "'x'", "@ms 'x'"},
        {"a(si)", "[('a', 1), ('b', 2)]", "[('a', 1), ('b', 2)]"},
        {"ai", "@ai []", "@ai []"},
        {"ax", "[1, 2]", "[int64 1, 2]"},
        {"ad", "[1.5, -0.0]", "[1.5, -0.0]"},
        {"aay", "[b'a', b'']", "[b'a', b'']"},
        {"aas", "[['a'], []]", "[['a'], []]"},
        {"av", "[<1>, <'s'>]", "[<1>, <'s'>]"},
        {"a{is}", "{1: 'one'}", "{1: 'one'}"},
        {"a{sa{sv}}", "{'a': {'b': <1>}}", "{'a': {'b': <1>}}"},
        {"a{sas}", "{'a': ['x']}", "{'a': ['x']}"},
        {"(sbdv)", "('s', true, 1.25, <'v'>)", "('s', true, 1.25, <'v'>)"},
        {"(dd)", "(inf, -inf)", NULL},
        {"ab", "[true, false]", "[true, false]"},
    };
    for (size_t index = 0; index < G_N_ELEMENTS(cases); index++) {
        prefs_value *stored = round_trip(cases[index].type, cases[index].text);
        assert_tagged(stored, cases[index].stored);
        prefs_value_free(stored);
    }
}

/* The values of an a{sv}: natural where the plist type reads back as the same GVariant type, tagged elsewhere. */
static void test_inside_variants(void) {
    struct {
        const char *value;
        prefs_type stored; /* 0: the tagged form */
    } cases[] = {
        {"<true>", PREFS_TYPE_BOOLEAN},
        {"<'s'>", PREFS_TYPE_STRING},
        {"<2.5>", PREFS_TYPE_REAL},
        {"<-7>", PREFS_TYPE_INTEGER},
        {"<int64 5>", 0},
        {"<int64 2147483648>", PREFS_TYPE_INTEGER},
        {"<int64 -2147483649>", PREFS_TYPE_INTEGER},
        {"<uint64 5>", 0},
        {"<uint64 9223372036854775808>", PREFS_TYPE_INTEGER},
        {"<byte 1>", 0},
        {"<int16 1>", 0},
        {"<uint16 1>", 0},
        {"<uint32 1>", 0},
        {"<handle 1>", 0},
        {"<objectpath '/p'>", 0},
        {"<signature 'i'>", 0},
        {"<['a']>", PREFS_TYPE_ARRAY},
        {"<@as []>", PREFS_TYPE_ARRAY},
        {"<b'z'>", PREFS_TYPE_DATA},
        {"<{'k': <'v'>}>", PREFS_TYPE_DICTIONARY},
        {"<@a{sv} {}>", PREFS_TYPE_DICTIONARY},
        {"<{'$gvariant': <'x'>}>", 0},
        {"<{'$gvariant': <5>}>", PREFS_TYPE_DICTIONARY},
        {"<<1>>", 0},
        {"<[<1>]>", 0},
        {"<@av []>", 0},
        {"<[1, 2]>", 0},
        {"<(1, 'a')>", 0},
        {"<@ms nothing>", 0},
        {"<{'a': 'b'}>", 0},
    };
    for (size_t index = 0; index < G_N_ELEMENTS(cases); index++) {
        char *text = g_strdup_printf("{'key': %s}", cases[index].value);
        prefs_value *stored = round_trip("a{sv}", text);
        g_assert_false(pgs_plist_is_tagged(stored));
        const prefs_value *inner = prefs_value_dictionary_get(stored, "key");
        if (cases[index].stored == 0) {
            if (!pgs_plist_is_tagged(inner)) {
                g_test_message("%s is not tagged inside a variant", cases[index].value);
                g_test_fail();
            }
        } else {
            g_assert_cmpint(prefs_value_get_type(inner), ==, cases[index].stored);
            g_assert_false(pgs_plist_is_tagged(inner));
        }
        prefs_value_free(stored);
        g_free(text);
    }
    /* Every case in one dictionary, nested one level deeper too. */
    GString *all = g_string_new("{");
    for (size_t index = 0; index < G_N_ELEMENTS(cases); index++)
        g_string_append_printf(all, "%s'k%02zu': %s", index > 0 ? ", " : "", index, cases[index].value);
    g_string_append(all, "}");
    prefs_value_free(round_trip("a{sv}", all->str));
    char *nested = g_strdup_printf("{'outer': <%s>}", all->str);
    prefs_value_free(round_trip("a{sv}", nested));
    g_free(nested);
    g_string_free(all, TRUE);
}

/* Shapes a dictionary cannot hold exactly are tagged, so that they round trip. */
static void test_ambiguous_dictionaries(void) {
    prefs_value *stored = round_trip("a{sv}", "{'$gvariant': <'x'>}");
    assert_tagged(stored, "{'$gvariant': <'x'>}");
    prefs_value_free(stored);
    stored = round_trip("a{ss}", "{'$gvariant': 'x'}");
    assert_tagged(stored, "{'$gvariant': 'x'}");
    prefs_value_free(stored);
    stored = round_trip("a{sv}", "{'$gvariant': <5>}"); /* not a string: no ambiguity */
    g_assert_false(pgs_plist_is_tagged(stored));
    prefs_value_free(stored);
    stored = round_trip("a{ss}", "{'$gvariant': 'x', 'other': 'y'}");
    g_assert_false(pgs_plist_is_tagged(stored));
    prefs_value_free(stored);
    stored = round_trip("a{ss}", "{'a': 'x', 'a': 'y'}"); /* a GVariant dictionary may repeat a key */
    assert_tagged(stored, "{'a': 'x', 'a': 'y'}");
    prefs_value_free(stored);
    stored = round_trip("a{sv}", "{'a': <1>, 'a': <2>}");
    assert_tagged(stored, NULL);
    prefs_value_free(stored);
    stored = round_trip("a{sv}", "{'v': <{'a': <1>, 'a': <2>}>}");
    g_assert_true(pgs_plist_is_tagged(prefs_value_dictionary_get(stored, "v")));
    prefs_value_free(stored);
}

/* The store keeps a dictionary's keys in byte order; a dictionary reads back in that order, whatever it arrived in. */
static void test_dictionary_order(void) {
    prefs_value *stored = prefs_value_new_dictionary();
    prefs_value_dictionary_set(stored, "b", prefs_value_new_string("2"));
    prefs_value_dictionary_set(stored, "a", prefs_value_new_string("1"));
    prefs_value_dictionary_set(stored, "B", prefs_value_new_string("0"));
    GError *error = NULL;
    GVariant *value = pgs_plist_to_variant(stored, G_VARIANT_TYPE("a{ss}"), &error);
    g_assert_no_error(error);
    GVariant *expected = parse("a{ss}", "{'B': '0', 'a': '1', 'b': '2'}");
    g_assert_true(g_variant_equal(value, expected));
    g_variant_unref(expected);
    g_variant_unref(value);
    value = pgs_plist_to_variant(stored, G_VARIANT_TYPE_VARDICT, &error);
    g_assert_no_error(error);
    expected = parse("a{sv}", "{'B': <'0'>, 'a': <'1'>, 'b': <'2'>}");
    g_assert_true(g_variant_equal(value, expected));
    g_variant_unref(expected);
    g_variant_unref(value);
    prefs_value_free(stored);
}

/* Plists another program wrote, read inside a variant: what each plist type becomes. */
static void test_reading_foreign_values(void) {
    prefs_value *stored = prefs_value_new_dictionary();
    prefs_value *numbers = prefs_value_new_array();
    prefs_value_array_append(numbers, prefs_value_new_integer(1));
    prefs_value_array_append(numbers, prefs_value_new_string("x"));
    prefs_value_dictionary_set(stored, "mixed", numbers);
    prefs_value_dictionary_set(stored, "empty", prefs_value_new_array());
    prefs_value_dictionary_set(stored, "big", prefs_value_new_integer(G_MAXINT64));
    prefs_value_dictionary_set(stored, "huge", prefs_value_new_unsigned(G_MAXUINT64));
    prefs_value_dictionary_set(stored, "small", prefs_value_new_integer(-5));
    prefs_value_dictionary_set(stored, "dictionary", prefs_value_new_dictionary());
    prefs_value_dictionary_set(stored, "data", prefs_value_new_data("\x01", 1));
    GError *error = NULL;
    GVariant *value = pgs_plist_to_variant(stored, G_VARIANT_TYPE_VARDICT, &error);
    g_assert_no_error(error);
    GVariant *expected = parse("a{sv}", "{'big': <int64 9223372036854775807>, 'data': <[byte 0x01]>, "
                                        "'dictionary': <@a{sv} {}>, 'empty': <@as []>, "
                                        "'huge': <uint64 18446744073709551615>, 'mixed': <[<1>, <'x'>]>, "
                                        "'small': <-5>}");
    if (!g_variant_equal(value, expected)) {
        char *got = g_variant_print(value, TRUE);
        g_test_message("read %s", got);
        g_test_fail();
        g_free(got);
    }
    g_variant_unref(expected);
    g_variant_unref(value);
    /* A date or a uid has no GVariant inside a variant: the whole value is unreadable. */
    prefs_value_dictionary_set(stored, "when", prefs_value_new_date(0));
    value = pgs_plist_to_variant(stored, G_VARIANT_TYPE_VARDICT, &error);
    g_assert_null(value);
    g_assert_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_UNREPRESENTABLE);
    g_assert_nonnull(strstr(error->message, "'when'"));
    g_clear_error(&error);
    prefs_value_dictionary_set(stored, "when", prefs_value_new_uid(1));
    g_assert_null(pgs_plist_to_variant(stored, G_VARIANT_TYPE_VARDICT, &error));
    g_assert_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_UNREPRESENTABLE);
    g_clear_error(&error);
    prefs_value_free(stored);
    /* An integer is accepted for a double. */
    stored = prefs_value_new_integer(3);
    value = pgs_plist_to_variant(stored, G_VARIANT_TYPE_DOUBLE, &error);
    g_assert_no_error(error);
    g_assert_cmpfloat(g_variant_get_double(value), ==, 3.0);
    g_variant_unref(value);
    prefs_value_free(stored);
    /* The tagged form is accepted for a natural type too. */
    stored = prefs_value_new_dictionary();
    prefs_value_dictionary_set(stored, PGS_TAG_KEY, prefs_value_new_string("int32 12"));
    value = pgs_plist_to_variant(stored, G_VARIANT_TYPE_INT32, &error);
    g_assert_no_error(error);
    g_assert_cmpint(g_variant_get_int32(value), ==, 12);
    g_variant_unref(value);
    prefs_value_free(stored);
}

static void expect_refused(prefs_value *stored, const char *type, PgsMappingError code, const char *words) {
    GError *error = NULL;
    GVariant *value = pgs_plist_to_variant(stored, G_VARIANT_TYPE(type), &error);
    if (value != NULL) {
        char *got = g_variant_print(value, TRUE);
        g_test_message("a wrong value read as %s %s", type, got);
        g_test_fail();
        g_free(got);
        g_variant_unref(value);
    }
    g_assert_error(error, PGS_MAPPING_ERROR, (gint)code);
    if (error != NULL && words != NULL && strstr(error->message, words) == NULL) {
        g_test_message("'%s' does not say '%s'", error->message, words);
        g_test_fail();
    }
    g_clear_error(&error);
    prefs_value_free(stored);
}

static prefs_value *tag(const char *text) {
    prefs_value *dictionary = prefs_value_new_dictionary();
    prefs_value_dictionary_set(dictionary, PGS_TAG_KEY, prefs_value_new_string(text));
    return dictionary;
}

static prefs_value *array_of(prefs_value *first, prefs_value *second) {
    prefs_value *array = prefs_value_new_array();
    prefs_value_array_append(array, first);
    prefs_value_array_append(array, second);
    return array;
}

static void test_wrong_types(void) {
    expect_refused(prefs_value_new_string("hello"), "i", PGS_MAPPING_ERROR_WRONG_TYPE, "a string is stored");
    expect_refused(prefs_value_new_integer(300), "y", PGS_MAPPING_ERROR_OUT_OF_RANGE, "300");
    expect_refused(prefs_value_new_integer(-1), "y", PGS_MAPPING_ERROR_OUT_OF_RANGE, NULL);
    expect_refused(prefs_value_new_integer(32768), "n", PGS_MAPPING_ERROR_OUT_OF_RANGE, NULL);
    expect_refused(prefs_value_new_integer(-32769), "n", PGS_MAPPING_ERROR_OUT_OF_RANGE, NULL);
    expect_refused(prefs_value_new_integer(65536), "q", PGS_MAPPING_ERROR_OUT_OF_RANGE, NULL);
    expect_refused(prefs_value_new_integer(2147483648), "i", PGS_MAPPING_ERROR_OUT_OF_RANGE, NULL);
    expect_refused(prefs_value_new_integer(-1), "u", PGS_MAPPING_ERROR_OUT_OF_RANGE, NULL);
    expect_refused(prefs_value_new_integer(4294967296), "u", PGS_MAPPING_ERROR_OUT_OF_RANGE, NULL);
    expect_refused(prefs_value_new_unsigned(G_MAXUINT64), "x", PGS_MAPPING_ERROR_OUT_OF_RANGE, NULL);
    expect_refused(prefs_value_new_integer(-1), "t", PGS_MAPPING_ERROR_OUT_OF_RANGE, NULL);
    expect_refused(prefs_value_new_real(1.0), "i", PGS_MAPPING_ERROR_WRONG_TYPE, "a real");
    expect_refused(prefs_value_new_integer(1), "b", PGS_MAPPING_ERROR_WRONG_TYPE, NULL);
    expect_refused(prefs_value_new_string("1.5"), "d", PGS_MAPPING_ERROR_WRONG_TYPE, NULL);
    expect_refused(prefs_value_new_date(0), "s", PGS_MAPPING_ERROR_WRONG_TYPE, "a date");
    expect_refused(prefs_value_new_string("abc"), "ay", PGS_MAPPING_ERROR_WRONG_TYPE, NULL);
    expect_refused(prefs_value_new_string("a"), "as", PGS_MAPPING_ERROR_WRONG_TYPE, NULL);
    expect_refused(array_of(prefs_value_new_string("a"), prefs_value_new_integer(1)), "as",
                   PGS_MAPPING_ERROR_WRONG_TYPE, "element 1");
    prefs_value *dictionary = prefs_value_new_dictionary();
    prefs_value_dictionary_set(dictionary, "k", prefs_value_new_integer(1));
    expect_refused(dictionary, "a{ss}", PGS_MAPPING_ERROR_WRONG_TYPE, "'k'");
    expect_refused(prefs_value_new_array(), "a{sv}", PGS_MAPPING_ERROR_WRONG_TYPE, NULL);
    /* A type stored only in the tagged form: its natural-looking values are refused. */
    expect_refused(prefs_value_new_integer(3), "h", PGS_MAPPING_ERROR_WRONG_TYPE, "tagged form of h");
    expect_refused(prefs_value_new_string("/a"), "o", PGS_MAPPING_ERROR_WRONG_TYPE, NULL);
    expect_refused(array_of(prefs_value_new_integer(1), prefs_value_new_integer(2)), "(ii)",
                   PGS_MAPPING_ERROR_WRONG_TYPE, NULL);
    expect_refused(array_of(prefs_value_new_integer(1), prefs_value_new_integer(2)), "ai",
                   PGS_MAPPING_ERROR_WRONG_TYPE, NULL);
    expect_refused(prefs_value_new_dictionary(), "(ii)", PGS_MAPPING_ERROR_WRONG_TYPE, NULL);
    /* Tagged values that are not text of the expected type. */
    expect_refused(tag("(1,"), "(ii)", PGS_MAPPING_ERROR_UNPARSABLE, "(1,");
    expect_refused(tag("('a', 'b')"), "(ii)", PGS_MAPPING_ERROR_UNPARSABLE, NULL);
    expect_refused(tag("5"), "s", PGS_MAPPING_ERROR_UNPARSABLE, NULL);
    expect_refused(tag("(1, 2) trailing"), "(ii)", PGS_MAPPING_ERROR_UNPARSABLE, NULL);
    expect_refused(tag("300"), "y", PGS_MAPPING_ERROR_UNPARSABLE, NULL);
    prefs_value *inner = prefs_value_new_dictionary();
    prefs_value_dictionary_set(inner, "k", tag("<<"));
    expect_refused(inner, "a{sv}", PGS_MAPPING_ERROR_UNPARSABLE, "'k'");
}

static void test_paths(void) {
    struct {
        const char *path, *domain;
    } valid[] = {
        {"/org/gnome/desktop/interface/", "org.gnome.desktop.interface"},
        {"/org/example/profiles/p1/", "org.example.profiles.p1"},
        {"/a/", "a"},
        {"/Org_X/with-dash/0/", "Org_X.with-dash.0"},
    };
    for (size_t index = 0; index < G_N_ELEMENTS(valid); index++) {
        GError *error = NULL;
        char *domain = pgs_path_to_domain(valid[index].path, &error);
        g_assert_no_error(error);
        g_assert_cmpstr(domain, ==, valid[index].domain);
        g_free(domain);
    }
    const char *invalid[] = {
        "/",
        "",
        "org/gnome/",
        "/org/gnome",
        "/org//gnome/",
        "/org/gnome.desktop/",
        "/org/.hidden/",
        "/org/terminal/legacy/profiles:/:b1dcc9dd/",
        "/org/with space/",
        "/org/caf\u00e9/",
    };
    for (size_t index = 0; index < G_N_ELEMENTS(invalid); index++) {
        GError *error = NULL;
        g_assert_null(pgs_path_to_domain(invalid[index], &error));
        g_assert_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_INVALID_PATH);
        g_clear_error(&error);
    }
    GError *error = NULL;
    char *component = g_strnfill(PGS_MAX_DOMAIN_BYTES, 'a');
    char *longest = g_strdup_printf("/%s/", component);
    char *domain = pgs_path_to_domain(longest, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(strlen(domain), ==, PGS_MAX_DOMAIN_BYTES);
    g_free(domain);
    char *too_long = g_strdup_printf("/%s/b/", component);
    g_assert_null(pgs_path_to_domain(too_long, &error));
    g_assert_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_INVALID_PATH);
    g_clear_error(&error);
    g_free(too_long);
    g_free(longest);
    g_free(component);

    char *key = NULL;
    g_assert_true(pgs_split_key("/org/gnome/desktop/interface/gtk-theme", &domain, &key, &error));
    g_assert_cmpstr(domain, ==, "org.gnome.desktop.interface");
    g_assert_cmpstr(key, ==, "gtk-theme");
    g_free(domain);
    g_free(key);
    const char *bad_keys[] = {"/org/gnome/", "gtk-theme", "/gtk-theme", "/org/a.b/key"};
    for (size_t index = 0; index < G_N_ELEMENTS(bad_keys); index++) {
        g_assert_false(pgs_split_key(bad_keys[index], &domain, &key, &error));
        g_assert_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_INVALID_PATH);
        g_clear_error(&error);
    }
}

/* Doubles GVariant's text does not spell plainly keep their bits through the tagged form. */
static void test_special_doubles(void) {
    GVariant *value = g_variant_ref_sink(g_variant_new("(dd)", NAN, -0.0));
    GError *error = NULL;
    prefs_value *stored = pgs_variant_to_plist(value, &error);
    g_assert_no_error(error);
    GVariant *back = pgs_plist_to_variant(stored, G_VARIANT_TYPE("(dd)"), &error);
    g_assert_no_error(error);
    double first = 0, second = 1;
    g_variant_get(back, "(dd)", &first, &second);
    g_assert_true(isnan(first));
    g_assert_true(second == 0.0 && signbit(second));
    g_variant_unref(back);
    g_variant_unref(value);
    prefs_value_free(stored);
    value = g_variant_ref_sink(g_variant_new_double(NAN));
    stored = pgs_variant_to_plist(value, &error);
    g_assert_cmpint(prefs_value_get_type(stored), ==, PREFS_TYPE_REAL);
    back = pgs_plist_to_variant(stored, G_VARIANT_TYPE_DOUBLE, &error);
    g_assert_true(isnan(g_variant_get_double(back)));
    g_variant_unref(back);
    g_variant_unref(value);
    prefs_value_free(stored);
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    g_test_set_nonfatal_assertions();
    g_test_add_func("/mapping/natural-scalars", test_natural_scalars);
    g_test_add_func("/mapping/tagged-types", test_tagged_types);
    g_test_add_func("/mapping/inside-variants", test_inside_variants);
    g_test_add_func("/mapping/ambiguous-dictionaries", test_ambiguous_dictionaries);
    g_test_add_func("/mapping/dictionary-order", test_dictionary_order);
    g_test_add_func("/mapping/reading-foreign-values", test_reading_foreign_values);
    g_test_add_func("/mapping/wrong-types", test_wrong_types);
    g_test_add_func("/mapping/paths", test_paths);
    g_test_add_func("/mapping/special-doubles", test_special_doubles);
    return g_test_run();
}

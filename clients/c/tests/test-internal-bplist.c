/* SPDX-License-Identifier: Apache-2.0 */
/* The binary property-list codec alone (built from the library's sources with AddressSanitizer): every type round
 * trips, and hostile documents (truncated, mutated, cyclic, exponential, out of bounds) fail cleanly. */
#include "internal.h"
#include "test-support.h"

static const prefs_bplist_limits limits = {.max_objects = 1u << 20, .max_depth = 67};

static prefs_value *sample(void) {
    prefs_value *root = prefs_value_new_dictionary();
    prefs_value *array = prefs_value_new_array();
    prefs_value_array_append(array, prefs_value_new_integer(-1));
    prefs_value_array_append(array, prefs_value_new_integer(255));
    prefs_value_array_append(array, prefs_value_new_integer(65536));
    prefs_value_array_append(array, prefs_value_new_integer(INT64_MAX));
    prefs_value_array_append(array, prefs_value_new_unsigned(UINT64_MAX));
    prefs_value_array_append(array, prefs_value_new_real(3.5));
    prefs_value_array_append(array, prefs_value_new_date(0));
    prefs_value_array_append(array, prefs_value_new_uid(7));
    prefs_value_array_append(array, prefs_value_new_boolean(true));
    prefs_value_array_append(array, prefs_value_new_data("abc", 3));
    prefs_value_array_append(array, prefs_value_new_string("a string longer than fifteen bytes"));
    prefs_value_array_append(array, prefs_value_new_string("\xf0\x9f\x98\x80 \xc3\xa9"));
    prefs_value_dictionary_set(root, "array", array);
    prefs_value_dictionary_set(root, "empty", prefs_value_new_dictionary());
    return root;
}

static void test_round_trip(void) {
    prefs_value *value = sample();
    uint8_t *bytes;
    size_t length;
    CHECK_OK(prefs_bplist_encode(value, &bytes, &length, &check_error));
    prefs_error *error = NULL;
    prefs_value *decoded = prefs_bplist_decode(bytes, length, &limits, &error);
    CHECK(decoded != NULL && prefs_value_equal(decoded, value));
    prefs_value_free(decoded);
    prefs_error_free(error);

    /* Every truncation and every single-byte change either decodes or fails with an error; never more. */
    for (size_t cut = 0; cut < length; cut++) {
        error = NULL;
        decoded = prefs_bplist_decode(bytes, cut, &limits, &error);
        CHECK(decoded == NULL && error != NULL);
        prefs_error_free(error);
    }
    uint8_t *mutated = malloc(length);
    for (size_t index = 0; index < length; index++) {
        for (int bit = 0; bit < 8; bit++) {
            memcpy(mutated, bytes, length);
            mutated[index] ^= (uint8_t)(1u << bit);
            error = NULL;
            decoded = prefs_bplist_decode(mutated, length, &limits, &error);
            CHECK((decoded == NULL) == (error != NULL));
            prefs_value_free(decoded);
            prefs_error_free(error);
        }
    }
    free(mutated);
    free(bytes);
    prefs_value_free(value);
}

/* A document of `objects` (each given as bytes) with 1-byte offsets and references, the top object first. */
static size_t make_document(uint8_t *out, const uint8_t *objects, size_t objects_length, const uint8_t *offsets,
                            size_t count) {
    memcpy(out, "bplist00", 8);
    memcpy(out + 8, objects, objects_length);
    size_t table = 8 + objects_length;
    for (size_t index = 0; index < count; index++) out[table + index] = offsets[index];
    uint8_t *trailer = out + table + count;
    memset(trailer, 0, 32);
    trailer[6] = 1;
    trailer[7] = 1;
    trailer[15] = (uint8_t)count;
    trailer[31] = (uint8_t)table;
    return table + count + 32;
}

static void expect_failure(const uint8_t *document, size_t length, prefs_error_code code, const char *text) {
    prefs_error *error = NULL;
    prefs_value *value = prefs_bplist_decode(document, length, &limits, &error);
    CHECK(value == NULL);
    if (prefs_error_get_code(error) != code || strstr(prefs_error_get_message(error), text) == NULL) {
        fprintf(stderr, "expected code %d and '%s'; got %d '%s'\n", code, text, prefs_error_get_code(error),
                prefs_error_get_message(error));
        test_failures++;
    }
    prefs_value_free(value);
    prefs_error_free(error);
}

static void test_hostile(void) {
    uint8_t document[256];
    /* An array holding itself. */
    const uint8_t cycle[] = {0xA1, 0x00};
    const uint8_t cycle_offsets[] = {8};
    expect_failure(document, make_document(document, cycle, sizeof cycle, cycle_offsets, 1),
                   PREFS_ERROR_LIMIT_EXCEEDED, "deeper");
    /* Each array holds the next twice: 2^40 references to follow. */
    uint8_t bomb[120], bomb_offsets[40];
    size_t length = 0;
    for (int index = 0; index < 40; index++) {
        bomb_offsets[index] = (uint8_t)(8 + length);
        bomb[length++] = 0xA2;
        bomb[length++] = (uint8_t)(index + 1 < 40 ? index + 1 : 39);
        bomb[length++] = (uint8_t)(index + 1 < 40 ? index + 1 : 39);
    }
    bomb[length - 3] = 0xA0; /* the last is empty */
    length -= 2;
    expect_failure(document, make_document(document, bomb, length, bomb_offsets, 40), PREFS_ERROR_LIMIT_EXCEEDED,
                   "objects");
    /* A reference past the table, an offset into the trailer, a 16-byte integer over 64 bits. */
    const uint8_t past[] = {0xA1, 0x05};
    const uint8_t past_offsets[] = {8};
    expect_failure(document, make_document(document, past, sizeof past, past_offsets, 1), PREFS_ERROR_PROTOCOL,
                   "reference");
    const uint8_t scalar[] = {0x09};
    const uint8_t wild_offsets[] = {200};
    expect_failure(document, make_document(document, scalar, sizeof scalar, wild_offsets, 1), PREFS_ERROR_PROTOCOL,
                   "offset");
    const uint8_t huge[] = {0x14, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    const uint8_t huge_offsets[] = {8};
    expect_failure(document, make_document(document, huge, sizeof huge, huge_offsets, 1), PREFS_ERROR_PROTOCOL,
                   "64 bits");
    /* A lone surrogate, a key that is not a string, a string longer than the document, a null. */
    const uint8_t surrogate[] = {0x61, 0xD8, 0x00};
    expect_failure(document, make_document(document, surrogate, sizeof surrogate, huge_offsets, 1),
                   PREFS_ERROR_PROTOCOL, "surrogate");
    const uint8_t bad_key[] = {0xD1, 0x01, 0x01, 0x10, 0x05};
    const uint8_t bad_key_offsets[] = {8, 11};
    expect_failure(document, make_document(document, bad_key, sizeof bad_key, bad_key_offsets, 2),
                   PREFS_ERROR_PROTOCOL, "key");
    const uint8_t long_string[] = {0x5F, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    expect_failure(document, make_document(document, long_string, sizeof long_string, huge_offsets, 1),
                   PREFS_ERROR_PROTOCOL, "past the end");
    const uint8_t null[] = {0x00};
    expect_failure(document, make_document(document, null, sizeof null, huge_offsets, 1), PREFS_ERROR_PROTOCOL,
                   "null");
    expect_failure((const uint8_t *)"bplist00", 8, PREFS_ERROR_PROTOCOL, "not a bplist00");
    expect_failure((const uint8_t *)"<?xml version=\"1.0\"?><plist><dict/></plist>", 43, PREFS_ERROR_PROTOCOL,
                   "not a bplist00");
}

int main(void) {
    test_round_trip();
    test_hostile();
    return test_finish("test-internal-bplist");
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * GSettings paths and values in Preferences' terms (docs/GSETTINGS.md, "Mapping").
 *
 * Values: the types a property list holds naturally are stored as themselves, so that `defaults read` shows them
 * and `defaults write` can set them; every other type is the tagged form, a dictionary holding only PGS_TAG_KEY and
 * the value's text with type annotations, which g_variant_parse() reads back to the same value. A value inside a
 * variant (an a{sv} entry) has no schema type to read it back by, so it is stored naturally only where reading the
 * plist type gives the same GVariant type again.
 */
#include "gvariant-mapping.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK(pgs-mapping-error-quark, pgs_mapping_error)

/* ---- Paths -------------------------------------------------------------------------------------------------- */

static gboolean is_name_part_byte(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

char *pgs_path_to_domain(const char *path, GError **error) {
    size_t length = path != NULL ? strlen(path) : 0;
    if (length == 0 || path[0] != '/' || path[length - 1] != '/') {
        g_set_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_INVALID_PATH,
                    "'%s' is not a GSettings path (one starts and ends with '/')", path != NULL ? path : "(null)");
        return NULL;
    }
    if (length == 1) {
        g_set_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_INVALID_PATH,
                    "the path '/' names no domain; a schema's path has at least one component");
        return NULL;
    }
    if (strstr(path, "//") != NULL) {
        g_set_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_INVALID_PATH, "path %s has an empty component", path);
        return NULL;
    }
    /* The domain is the path without its outer slashes, each inner slash a dot; so a component may not hold a dot
     * itself, or two paths would name one domain. */
    const char *component = path + 1;
    for (const char *cursor = path + 1; cursor < path + length; cursor++) {
        if (*cursor == '/') {
            component = cursor + 1;
            continue;
        }
        if (is_name_part_byte(*cursor)) continue;
        int width = (int)(strchr(cursor, '/') - component);
        if (*cursor == '.')
            g_set_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_INVALID_PATH,
                        "path %s: component '%.*s' contains '.', which would be ambiguous in a domain name (each '/' "
                        "becomes a '.')",
                        path, width, component);
        else if ((unsigned char)*cursor >= 0x80 || (unsigned char)*cursor < 0x20)
            g_set_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_INVALID_PATH,
                        "path %s: a component has byte 0x%02x; domain names are [A-Za-z0-9._-]", path,
                        (unsigned char)*cursor);
        else
            g_set_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_INVALID_PATH,
                        "path %s: component '%.*s' has '%c'; domain names are [A-Za-z0-9._-]", path, width, component,
                        *cursor);
        return NULL;
    }
    if (length - 2 > PGS_MAX_DOMAIN_BYTES) {
        g_set_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_INVALID_PATH,
                    "path %s names a domain of %zu bytes, longer than the store's %d", path, length - 2,
                    PGS_MAX_DOMAIN_BYTES);
        return NULL;
    }
    char *domain = g_strndup(path + 1, length - 2);
    g_strdelimit(domain, "/", '.');
    return domain;
}

gboolean pgs_split_key(const char *path, char **domain, char **key, GError **error) {
    const char *slash = path != NULL ? strrchr(path, '/') : NULL;
    if (slash == NULL || path[0] != '/' || slash[1] == '\0') {
        g_set_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_INVALID_PATH,
                    "'%s' is not a GSettings key (a path followed by a name)", path != NULL ? path : "(null)");
        return FALSE;
    }
    char *directory = g_strndup(path, (gsize)(slash - path) + 1);
    char *name = pgs_path_to_domain(directory, error);
    g_free(directory);
    if (name == NULL) return FALSE;
    *domain = name;
    *key = g_strdup(slash + 1);
    return TRUE;
}

/* ---- GVariant to plist ---------------------------------------------------------------------------------------- */

/* libpreferences returns NULL only when memory runs out here (GVariant strings are valid UTF-8): abort, as
 * g_malloc() does. */
static prefs_value *must(prefs_value *value) {
    if (value == NULL) g_error("out of memory building a property-list value");
    return value;
}

static void must_append(prefs_value *array, prefs_value *item) {
    if (!prefs_value_array_append(array, item)) g_error("out of memory building a property-list array");
}

static void must_set(prefs_value *dictionary, const char *key, prefs_value *item) {
    if (!prefs_value_dictionary_set(dictionary, key, item))
        g_error("out of memory building a property-list dictionary");
}

static prefs_value *tagged(GVariant *value) {
    char *text = g_variant_print(value, TRUE);
    prefs_value *dictionary = must(prefs_value_new_dictionary());
    must_set(dictionary, PGS_TAG_KEY, must(prefs_value_new_string(text)));
    g_free(text);
    return dictionary;
}

static prefs_value *string_value(GVariant *value, GError **error) {
    prefs_value *result = prefs_value_new_string(g_variant_get_string(value, NULL));
    if (result == NULL)
        g_set_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_UNREPRESENTABLE, "a string that is not valid UTF-8");
    return result;
}

static prefs_value *strings_value(GVariant *value, GError **error) {
    prefs_value *array = must(prefs_value_new_array());
    gsize count = g_variant_n_children(value);
    for (gsize index = 0; index < count; index++) {
        GVariant *child = g_variant_get_child_value(value, index);
        prefs_value *item = string_value(child, error);
        g_variant_unref(child);
        if (item == NULL) {
            prefs_value_free(array);
            return NULL;
        }
        must_append(array, item);
    }
    return array;
}

static prefs_value *bytes_value(GVariant *value) {
    gsize length = 0;
    const void *bytes = g_variant_get_fixed_array(value, &length, 1);
    return must(prefs_value_new_data(length > 0 ? bytes : NULL, length));
}

static prefs_value *inner_to_plist(GVariant *content, GError **error);

/*
 * An a{ss} or a{sv} as a dictionary; NULL without an error when a dictionary cannot hold it exactly, so that the
 * caller tags it: a key that appears twice (a GVariant dictionary is a list of entries), or the tagged shape itself
 * (one entry, PGS_TAG_KEY, a string), which would read back as a tagged value.
 */
static prefs_value *dictionary_value(GVariant *value, gboolean variant_values, GError **error) {
    gsize count = g_variant_n_children(value);
    prefs_value *dictionary = must(prefs_value_new_dictionary());
    for (gsize index = 0; index < count; index++) {
        GVariant *entry = g_variant_get_child_value(value, index);
        GVariant *key = g_variant_get_child_value(entry, 0);
        GVariant *item = g_variant_get_child_value(entry, 1);
        const char *name = g_variant_get_string(key, NULL);
        prefs_value *mapped = NULL;
        gboolean duplicate = prefs_value_dictionary_get(dictionary, name) != NULL;
        if (!duplicate) {
            if (variant_values) {
                GVariant *content = g_variant_get_variant(item);
                mapped = inner_to_plist(content, error);
                g_variant_unref(content);
            } else {
                mapped = string_value(item, error);
            }
        }
        gboolean keyed = mapped != NULL && prefs_value_dictionary_set(dictionary, name, mapped);
        if (mapped != NULL && !keyed) {
            prefs_value_free(mapped);
            g_set_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_UNREPRESENTABLE,
                        "a dictionary key that is not valid UTF-8");
        }
        g_variant_unref(item);
        g_variant_unref(key);
        g_variant_unref(entry);
        if (!keyed) {
            prefs_value_free(dictionary);
            return NULL;
        }
    }
    if (pgs_plist_is_tagged(dictionary)) {
        prefs_value_free(dictionary);
        return NULL;
    }
    return dictionary;
}

/* A value inside a variant: natural only where reading the plist type back (inner_from_plist) gives this type. */
static prefs_value *inner_to_plist(GVariant *content, GError **error) {
    const char *type = g_variant_get_type_string(content);
    if (strcmp(type, "b") == 0) return must(prefs_value_new_boolean(g_variant_get_boolean(content)));
    if (strcmp(type, "s") == 0) return string_value(content, error);
    if (strcmp(type, "d") == 0) return must(prefs_value_new_real(g_variant_get_double(content)));
    if (strcmp(type, "i") == 0) return must(prefs_value_new_integer(g_variant_get_int32(content)));
    if (strcmp(type, "x") == 0) {
        gint64 number = g_variant_get_int64(content);
        if (number < INT32_MIN || number > INT32_MAX) return must(prefs_value_new_integer(number));
        return tagged(content); /* an integer in the int32 range reads back as i */
    }
    if (strcmp(type, "t") == 0) {
        guint64 number = g_variant_get_uint64(content);
        if (number > (guint64)INT64_MAX) return must(prefs_value_new_unsigned(number));
        return tagged(content); /* an integer below 2^63 reads back as i or x */
    }
    if (strcmp(type, "as") == 0) return strings_value(content, error);
    if (strcmp(type, "ay") == 0) return bytes_value(content);
    if (strcmp(type, "a{sv}") == 0) {
        GError *failure = NULL;
        prefs_value *dictionary = dictionary_value(content, TRUE, &failure);
        if (dictionary != NULL) return dictionary;
        if (failure != NULL) {
            g_propagate_error(error, failure);
            return NULL;
        }
    }
    return tagged(content);
}

prefs_value *pgs_variant_to_plist(GVariant *value, GError **error) {
    g_return_val_if_fail(value != NULL, NULL);
    const char *type = g_variant_get_type_string(value);
    if (type[0] != '\0' && type[1] == '\0') {
        switch (type[0]) {
        case 'b': return must(prefs_value_new_boolean(g_variant_get_boolean(value)));
        case 'y': return must(prefs_value_new_integer(g_variant_get_byte(value)));
        case 'n': return must(prefs_value_new_integer(g_variant_get_int16(value)));
        case 'q': return must(prefs_value_new_integer(g_variant_get_uint16(value)));
        case 'i': return must(prefs_value_new_integer(g_variant_get_int32(value)));
        case 'u': return must(prefs_value_new_integer(g_variant_get_uint32(value)));
        case 'x': return must(prefs_value_new_integer(g_variant_get_int64(value)));
        case 't': return must(prefs_value_new_unsigned(g_variant_get_uint64(value)));
        case 'd': return must(prefs_value_new_real(g_variant_get_double(value)));
        case 's': return string_value(value, error);
        default: return tagged(value);
        }
    }
    if (strcmp(type, "as") == 0) return strings_value(value, error);
    if (strcmp(type, "ay") == 0) return bytes_value(value);
    if (strcmp(type, "a{ss}") == 0 || strcmp(type, "a{sv}") == 0) {
        GError *failure = NULL;
        prefs_value *dictionary = dictionary_value(value, type[3] == 'v', &failure);
        if (dictionary != NULL) return dictionary;
        if (failure != NULL) {
            g_propagate_error(error, failure);
            return NULL;
        }
    }
    return tagged(value);
}

/* ---- Plist to GVariant ---------------------------------------------------------------------------------------- */

gboolean pgs_plist_is_tagged(const prefs_value *value) {
    return prefs_value_get_type(value) == PREFS_TYPE_DICTIONARY && prefs_value_dictionary_count(value) == 1 &&
           strcmp(prefs_value_dictionary_key_at(value, 0), PGS_TAG_KEY) == 0 &&
           prefs_value_get_type(prefs_value_dictionary_value_at(value, 0)) == PREFS_TYPE_STRING;
}

static const char *plist_type_name(const prefs_value *value) {
    switch (prefs_value_get_type(value)) {
    case PREFS_TYPE_BOOLEAN: return "a boolean";
    case PREFS_TYPE_INTEGER: return "an integer";
    case PREFS_TYPE_REAL: return "a real";
    case PREFS_TYPE_STRING: return "a string";
    case PREFS_TYPE_DATA: return "data";
    case PREFS_TYPE_DATE: return "a date";
    case PREFS_TYPE_ARRAY: return "an array";
    case PREFS_TYPE_DICTIONARY: return pgs_plist_is_tagged(value) ? "a tagged value" : "a dictionary";
    case PREFS_TYPE_UID: return "a uid";
    }
    return "an unknown value";
}

static gboolean wrong_type(GError **error, const prefs_value *value, const char *expected) {
    g_set_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_WRONG_TYPE, "%s is stored where %s is expected",
                plist_type_name(value), expected);
    return FALSE;
}

/* A string without NUL characters, which GVariant strings cannot hold. */
static const char *plain_string(const prefs_value *value, GError **error) {
    const char *text = prefs_value_get_string(value);
    if (strlen(text) != prefs_value_get_string_length(value)) {
        g_set_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_UNREPRESENTABLE,
                    "the stored string contains a NUL character, which a GVariant string cannot hold");
        return NULL;
    }
    return text;
}

static GVariant *parse_tagged(const prefs_value *value, const GVariantType *type, GError **error) {
    const char *text = plain_string(prefs_value_dictionary_value_at(value, 0), error);
    if (text == NULL) return NULL;
    GError *failure = NULL;
    GVariant *parsed = g_variant_parse(type, text, NULL, NULL, &failure);
    if (parsed == NULL) {
        char *expected = type != NULL ? g_variant_type_dup_string(type) : g_strdup("any type");
        g_set_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_UNPARSABLE, "the tagged value '%s' is not a %s: %s",
                    text, expected, failure->message);
        g_free(expected);
        g_error_free(failure);
    }
    return parsed;
}

/* A dictionary's entries in the byte order of their keys, the order the store writes them in, so that a dictionary
 * reads back the same whichever order it arrived in. */
typedef struct {
    const char *key;
    const prefs_value *value;
} entry;

static int compare_entries(const void *a, const void *b) {
    return strcmp(((const entry *)a)->key, ((const entry *)b)->key);
}

static entry *sorted_entries(const prefs_value *dictionary) {
    gsize count = prefs_value_dictionary_count(dictionary);
    entry *entries = g_new(entry, count + 1);
    for (gsize index = 0; index < count; index++) {
        entries[index].key = prefs_value_dictionary_key_at(dictionary, index);
        entries[index].value = prefs_value_dictionary_value_at(dictionary, index);
    }
    qsort(entries, count, sizeof *entries, compare_entries);
    return entries;
}

static GVariant *inner_from_plist(const prefs_value *value, GError **error);

static GVariant *strings_from_plist(const prefs_value *array, GError **error) {
    GVariantBuilder builder;
    g_variant_builder_init(&builder, G_VARIANT_TYPE_STRING_ARRAY);
    for (size_t index = 0; index < prefs_value_array_count(array); index++) {
        const prefs_value *item = prefs_value_array_get(array, index);
        const char *text = prefs_value_get_type(item) == PREFS_TYPE_STRING ? plain_string(item, error) : NULL;
        if (text == NULL) {
            if (prefs_value_get_type(item) != PREFS_TYPE_STRING)
                g_set_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_WRONG_TYPE,
                            "element %zu of the stored array is %s where a string is expected", index,
                            plist_type_name(item));
            g_variant_builder_clear(&builder);
            return NULL;
        }
        g_variant_builder_add(&builder, "s", text);
    }
    return g_variant_builder_end(&builder);
}

/* A dictionary as a{ss} (string_values) or a{sv}, its entries sorted by key. */
static GVariant *dictionary_from_plist(const prefs_value *dictionary, gboolean string_values, GError **error) {
    GVariantBuilder builder;
    g_variant_builder_init(&builder, string_values ? G_VARIANT_TYPE("a{ss}") : G_VARIANT_TYPE_VARDICT);
    entry *entries = sorted_entries(dictionary);
    gboolean ok = TRUE;
    for (gsize position = 0; ok && position < prefs_value_dictionary_count(dictionary); position++) {
        const char *key = entries[position].key;
        const prefs_value *item = entries[position].value;
        if (string_values) {
            const char *text = prefs_value_get_type(item) == PREFS_TYPE_STRING ? plain_string(item, error) : NULL;
            if (text == NULL && prefs_value_get_type(item) != PREFS_TYPE_STRING)
                g_set_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_WRONG_TYPE,
                            "entry '%s' of the stored dictionary is %s where a string is expected", key,
                            plist_type_name(item));
            ok = text != NULL;
            if (ok) g_variant_builder_add(&builder, "{ss}", key, text);
        } else {
            GError *failure = NULL;
            GVariant *content = inner_from_plist(item, &failure);
            ok = content != NULL;
            if (ok) {
                g_variant_builder_add(&builder, "{sv}", key, content);
                g_variant_unref(content);
            } else {
                g_set_error(error, PGS_MAPPING_ERROR, failure->code, "entry '%s': %s", key, failure->message);
                g_error_free(failure);
            }
        }
    }
    g_free(entries);
    if (!ok) {
        g_variant_builder_clear(&builder);
        return NULL;
    }
    return g_variant_builder_end(&builder);
}

static gboolean is_all_strings(const prefs_value *array) {
    for (size_t index = 0; index < prefs_value_array_count(array); index++)
        if (prefs_value_get_type(prefs_value_array_get(array, index)) != PREFS_TYPE_STRING) return FALSE;
    return TRUE;
}

static GVariant *data_from_plist(const prefs_value *value) {
    size_t length = 0;
    const void *bytes = prefs_value_get_data(value, &length);
    GBytes *buffer = g_bytes_new(bytes, length);
    GVariant *result = g_variant_new_from_bytes(G_VARIANT_TYPE_BYTESTRING, buffer, TRUE);
    g_bytes_unref(buffer);
    return result;
}

/* A value inside a variant, its GVariant type chosen by its plist type (the inverse of inner_to_plist); a full
 * reference. An array of anything but strings becomes av, whose elements are read the same way; inner_to_plist tags
 * every av, so that reading an array never has to choose between as and av for a value this module wrote. */
static GVariant *inner_from_plist(const prefs_value *value, GError **error) {
    GVariant *result = NULL;
    switch (prefs_value_get_type(value)) {
    case PREFS_TYPE_BOOLEAN: result = g_variant_new_boolean(prefs_value_get_boolean(value)); break;
    case PREFS_TYPE_INTEGER:
        if (prefs_value_is_unsigned(value))
            result = g_variant_new_uint64(prefs_value_get_unsigned(value));
        else if (prefs_value_get_integer(value) >= INT32_MIN && prefs_value_get_integer(value) <= INT32_MAX)
            result = g_variant_new_int32((gint32)prefs_value_get_integer(value));
        else
            result = g_variant_new_int64(prefs_value_get_integer(value));
        break;
    case PREFS_TYPE_REAL: result = g_variant_new_double(prefs_value_get_real(value)); break;
    case PREFS_TYPE_STRING: {
        const char *text = plain_string(value, error);
        if (text != NULL) result = g_variant_new_string(text);
        break;
    }
    case PREFS_TYPE_DATA: result = data_from_plist(value); break;
    case PREFS_TYPE_ARRAY: {
        if (is_all_strings(value)) {
            result = strings_from_plist(value, error);
            break;
        }
        GVariantBuilder builder;
        g_variant_builder_init(&builder, G_VARIANT_TYPE("av"));
        for (size_t index = 0; index < prefs_value_array_count(value); index++) {
            GError *failure = NULL;
            GVariant *item = inner_from_plist(prefs_value_array_get(value, index), &failure);
            if (item == NULL) {
                g_set_error(error, PGS_MAPPING_ERROR, failure->code, "element %zu: %s", index, failure->message);
                g_error_free(failure);
                g_variant_builder_clear(&builder);
                return NULL;
            }
            g_variant_builder_add(&builder, "v", item);
            g_variant_unref(item);
        }
        result = g_variant_builder_end(&builder);
        break;
    }
    case PREFS_TYPE_DICTIONARY:
        if (pgs_plist_is_tagged(value)) return parse_tagged(value, NULL, error); /* already a full reference */
        result = dictionary_from_plist(value, FALSE, error);
        break;
    case PREFS_TYPE_DATE:
    case PREFS_TYPE_UID:
        g_set_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_UNREPRESENTABLE,
                    "%s is stored inside a dictionary or array, which no GVariant inside a variant maps to",
                    plist_type_name(value));
        return NULL;
    }
    return result != NULL ? g_variant_ref_sink(result) : NULL;
}

typedef struct {
    char code;
    const char *name;
    gint64 minimum;
    guint64 maximum;
} integer_type;

static const integer_type integer_types[] = {
    {'y', "a byte (y)", 0, UINT8_MAX},
    {'n', "an int16 (n)", INT16_MIN, INT16_MAX},
    {'q', "a uint16 (q)", 0, UINT16_MAX},
    {'i', "an int32 (i)", INT32_MIN, INT32_MAX},
    {'u', "a uint32 (u)", 0, UINT32_MAX},
    {'x', "an int64 (x)", INT64_MIN, INT64_MAX},
    {'t', "a uint64 (t)", 0, UINT64_MAX},
};

static GVariant *integer_from_plist(const prefs_value *value, const integer_type *type, GError **error) {
    if (prefs_value_get_type(value) != PREFS_TYPE_INTEGER) {
        wrong_type(error, value, type->name);
        return NULL;
    }
    gboolean is_unsigned = prefs_value_is_unsigned(value);
    gint64 signed_number = prefs_value_get_integer(value);
    guint64 unsigned_number = prefs_value_get_unsigned(value);
    gboolean in_range = is_unsigned ? unsigned_number <= type->maximum
                                    : signed_number >= type->minimum &&
                                          (signed_number < 0 || (guint64)signed_number <= type->maximum);
    if (!in_range) {
        if (is_unsigned)
            g_set_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_OUT_OF_RANGE,
                        "the stored %" G_GUINT64_FORMAT " is outside the range of %s", unsigned_number, type->name);
        else
            g_set_error(error, PGS_MAPPING_ERROR, PGS_MAPPING_ERROR_OUT_OF_RANGE,
                        "the stored %" G_GINT64_FORMAT " is outside the range of %s", signed_number, type->name);
        return NULL;
    }
    switch (type->code) {
    case 'y': return g_variant_new_byte((guint8)signed_number);
    case 'n': return g_variant_new_int16((gint16)signed_number);
    case 'q': return g_variant_new_uint16((guint16)signed_number);
    case 'i': return g_variant_new_int32((gint32)signed_number);
    case 'u': return g_variant_new_uint32((guint32)signed_number);
    case 'x': return g_variant_new_int64(signed_number);
    default: return g_variant_new_uint64(is_unsigned ? unsigned_number : (guint64)signed_number);
    }
}

/* The natural reading for `type`, or NULL with an error. A floating reference. */
static GVariant *natural_from_plist(const prefs_value *value, const char *type, GError **error) {
    prefs_type stored = prefs_value_get_type(value);
    if (type[0] != '\0' && type[1] == '\0') {
        for (size_t index = 0; index < G_N_ELEMENTS(integer_types); index++)
            if (integer_types[index].code == type[0]) return integer_from_plist(value, &integer_types[index], error);
        switch (type[0]) {
        case 'b':
            if (stored == PREFS_TYPE_BOOLEAN) return g_variant_new_boolean(prefs_value_get_boolean(value));
            wrong_type(error, value, "a boolean (b)");
            return NULL;
        case 'd':
            if (stored == PREFS_TYPE_REAL) return g_variant_new_double(prefs_value_get_real(value));
            if (stored == PREFS_TYPE_INTEGER)
                return g_variant_new_double(prefs_value_is_unsigned(value) ? (double)prefs_value_get_unsigned(value)
                                                                           : (double)prefs_value_get_integer(value));
            wrong_type(error, value, "a double (d)");
            return NULL;
        case 's':
            if (stored == PREFS_TYPE_STRING) {
                const char *text = plain_string(value, error);
                return text != NULL ? g_variant_new_string(text) : NULL;
            }
            wrong_type(error, value, "a string (s)");
            return NULL;
        default: break;
        }
    } else if (strcmp(type, "as") == 0) {
        if (stored == PREFS_TYPE_ARRAY) return strings_from_plist(value, error);
        wrong_type(error, value, "an array of strings (as)");
        return NULL;
    } else if (strcmp(type, "ay") == 0) {
        if (stored == PREFS_TYPE_DATA) return data_from_plist(value);
        wrong_type(error, value, "data (ay)");
        return NULL;
    } else if (strcmp(type, "a{ss}") == 0 || strcmp(type, "a{sv}") == 0) {
        if (stored == PREFS_TYPE_DICTIONARY) return dictionary_from_plist(value, type[3] == 's', error);
        wrong_type(error, value, type[3] == 's' ? "a dictionary of strings (a{ss})" : "a dictionary (a{sv})");
        return NULL;
    }
    char *expected = g_strdup_printf("the tagged form of %s ({\"" PGS_TAG_KEY "\": text})", type);
    wrong_type(error, value, expected);
    g_free(expected);
    return NULL;
}

GVariant *pgs_plist_to_variant(const prefs_value *value, const GVariantType *expected_type, GError **error) {
    g_return_val_if_fail(value != NULL && expected_type != NULL, NULL);
    if (pgs_plist_is_tagged(value)) return parse_tagged(value, expected_type, error);
    char *type = g_variant_type_dup_string(expected_type);
    GVariant *result = natural_from_plist(value, type, error);
    g_free(type);
    return result != NULL ? g_variant_ref_sink(result) : NULL;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* prefs_value: property-list values built, read, copied, compared and freed without recursion limits of the C
 * stack where a caller's value may be deep (freeing walks a work list). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

bool prefs_utf8_valid(const char *text, size_t length) {
    const unsigned char *bytes = (const unsigned char *)text;
    size_t index = 0;
    while (index < length) {
        unsigned char lead = bytes[index];
        if (lead < 0x80) {
            index += 1;
            continue;
        }
        size_t extra;
        uint32_t scalar;
        if (lead >= 0xC2 && lead <= 0xDF) {
            extra = 1;
            scalar = lead & 0x1F;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            extra = 2;
            scalar = lead & 0x0F;
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            extra = 3;
            scalar = lead & 0x07;
        } else {
            return false;
        }
        if (length - index <= extra) return false;
        for (size_t k = 1; k <= extra; k++) {
            unsigned char next = bytes[index + k];
            if ((next & 0xC0) != 0x80) return false;
            scalar = (scalar << 6) | (next & 0x3F);
        }
        /* Overlong forms, surrogates and scalars past U+10FFFF. */
        if ((extra == 2 && scalar < 0x800) || (extra == 3 && scalar < 0x10000) || scalar > 0x10FFFF ||
            (scalar >= 0xD800 && scalar <= 0xDFFF))
            return false;
        index += extra + 1;
    }
    return true;
}

static prefs_value *value_new(prefs_type type) {
    prefs_value *value = calloc(1, sizeof *value);
    if (value != NULL) value->type = type;
    return value;
}

PREFS_EXPORT prefs_value *prefs_value_new_boolean(bool boolean) {
    prefs_value *value = value_new(PREFS_TYPE_BOOLEAN);
    if (value != NULL) value->as.boolean = boolean;
    return value;
}

PREFS_EXPORT prefs_value *prefs_value_new_integer(int64_t integer) {
    prefs_value *value = value_new(PREFS_TYPE_INTEGER);
    if (value != NULL) value->as.integer.bits = (uint64_t)integer;
    return value;
}

PREFS_EXPORT prefs_value *prefs_value_new_unsigned(uint64_t integer) {
    prefs_value *value = value_new(PREFS_TYPE_INTEGER);
    if (value != NULL) {
        value->as.integer.bits = integer;
        value->as.integer.is_unsigned = integer > (uint64_t)INT64_MAX;
    }
    return value;
}

PREFS_EXPORT prefs_value *prefs_value_new_real(double real) {
    prefs_value *value = value_new(PREFS_TYPE_REAL);
    if (value != NULL) value->as.real = real;
    return value;
}

prefs_value *prefs_value_new_string_owned(char *bytes, size_t length) {
    prefs_value *value = value_new(PREFS_TYPE_STRING);
    if (value == NULL) {
        free(bytes);
        return NULL;
    }
    value->as.string.bytes = bytes;
    value->as.string.length = length;
    return value;
}

PREFS_EXPORT prefs_value *prefs_value_new_string(const char *string) {
    if (string == NULL) return NULL;
    size_t length = strlen(string);
    if (!prefs_utf8_valid(string, length)) return NULL;
    char *copy = malloc(length + 1);
    if (copy == NULL) return NULL;
    memcpy(copy, string, length + 1);
    return prefs_value_new_string_owned(copy, length);
}

PREFS_EXPORT prefs_value *prefs_value_new_data(const void *bytes, size_t length) {
    if (bytes == NULL && length > 0) return NULL;
    prefs_value *value = value_new(PREFS_TYPE_DATA);
    if (value == NULL) return NULL;
    value->as.data.bytes = malloc(length > 0 ? length : 1);
    if (value->as.data.bytes == NULL) {
        free(value);
        return NULL;
    }
    if (length > 0) memcpy(value->as.data.bytes, bytes, length);
    value->as.data.length = length;
    return value;
}

PREFS_EXPORT prefs_value *prefs_value_new_date(double seconds_since_1970) {
    prefs_value *value = value_new(PREFS_TYPE_DATE);
    if (value != NULL) value->as.date = seconds_since_1970;
    return value;
}

PREFS_EXPORT prefs_value *prefs_value_new_uid(uint64_t uid) {
    prefs_value *value = value_new(PREFS_TYPE_UID);
    if (value != NULL) value->as.uid = uid;
    return value;
}

PREFS_EXPORT prefs_value *prefs_value_new_array(void) { return value_new(PREFS_TYPE_ARRAY); }

PREFS_EXPORT prefs_value *prefs_value_new_dictionary(void) { return value_new(PREFS_TYPE_DICTIONARY); }

/* Frees one value's own storage, moving its children onto the work list instead of recursing. */
static void release_node(prefs_value *value, prefs_value ***work, size_t *count, size_t *capacity) {
    prefs_value **children = NULL;
    size_t child_count = 0;
    if (value->type == PREFS_TYPE_ARRAY) {
        children = value->as.array.items;
        child_count = value->as.array.count;
    } else if (value->type == PREFS_TYPE_DICTIONARY) {
        children = value->as.dictionary.values;
        child_count = value->as.dictionary.count;
        for (size_t index = 0; index < child_count; index++) free(value->as.dictionary.keys[index]);
        free(value->as.dictionary.keys);
    } else if (value->type == PREFS_TYPE_STRING) {
        free(value->as.string.bytes);
    } else if (value->type == PREFS_TYPE_DATA) {
        free(value->as.data.bytes);
    }
    for (size_t index = 0; index < child_count; index++) {
        if (*count == *capacity) {
            size_t grown = *capacity == 0 ? 64 : *capacity * 2;
            prefs_value **larger = realloc(*work, grown * sizeof *larger);
            if (larger == NULL) {
                /* Out of memory while freeing: recurse for this child rather than leak it. */
                prefs_value *child = children[index];
                child->parent = NULL;
                prefs_value_free(child);
                continue;
            }
            *work = larger;
            *capacity = grown;
        }
        (*work)[(*count)++] = children[index];
    }
    free(children);
    free(value);
}

PREFS_EXPORT void prefs_value_free(prefs_value *value) {
    if (value == NULL) return;
    prefs_value **work = NULL;
    size_t count = 0, capacity = 0;
    release_node(value, &work, &count, &capacity);
    while (count > 0) release_node(work[--count], &work, &count, &capacity);
    free(work);
}

static prefs_value *copy_node(const prefs_value *value, size_t depth) {
    /* Values the library hands out are bounded by prefsd's depth limit; a caller's deeper value fails to copy. */
    if (depth > 4096) return NULL;
    switch (value->type) {
    case PREFS_TYPE_STRING: {
        char *bytes = malloc(value->as.string.length + 1);
        if (bytes == NULL) return NULL;
        memcpy(bytes, value->as.string.bytes, value->as.string.length + 1);
        return prefs_value_new_string_owned(bytes, value->as.string.length);
    }
    case PREFS_TYPE_DATA:
        return prefs_value_new_data(value->as.data.bytes, value->as.data.length);
    case PREFS_TYPE_ARRAY: {
        prefs_value *copy = prefs_value_new_array();
        for (size_t index = 0; copy != NULL && index < value->as.array.count; index++) {
            prefs_value *item = copy_node(value->as.array.items[index], depth + 1);
            if (item == NULL || !prefs_value_array_append(copy, item)) {
                prefs_value_free(item);
                prefs_value_free(copy);
                copy = NULL;
            }
        }
        return copy;
    }
    case PREFS_TYPE_DICTIONARY: {
        prefs_value *copy = prefs_value_new_dictionary();
        for (size_t index = 0; copy != NULL && index < value->as.dictionary.count; index++) {
            prefs_value *item = copy_node(value->as.dictionary.values[index], depth + 1);
            if (item == NULL || !prefs_value_dictionary_set(copy, value->as.dictionary.keys[index], item)) {
                prefs_value_free(item);
                prefs_value_free(copy);
                copy = NULL;
            }
        }
        return copy;
    }
    default: {
        prefs_value *copy = value_new(value->type);
        if (copy != NULL) copy->as = value->as;
        return copy;
    }
    }
}

PREFS_EXPORT prefs_value *prefs_value_copy(const prefs_value *value) {
    return value == NULL ? NULL : copy_node(value, 0);
}

static bool equal_node(const prefs_value *a, const prefs_value *b, size_t depth) {
    if (a->type != b->type || depth > 4096) return false;
    switch (a->type) {
    case PREFS_TYPE_BOOLEAN:
        return a->as.boolean == b->as.boolean;
    case PREFS_TYPE_INTEGER:
        return a->as.integer.bits == b->as.integer.bits && a->as.integer.is_unsigned == b->as.integer.is_unsigned;
    case PREFS_TYPE_REAL:
        return a->as.real == b->as.real;
    case PREFS_TYPE_DATE:
        return a->as.date == b->as.date;
    case PREFS_TYPE_UID:
        return a->as.uid == b->as.uid;
    case PREFS_TYPE_STRING:
        return a->as.string.length == b->as.string.length &&
               memcmp(a->as.string.bytes, b->as.string.bytes, a->as.string.length) == 0;
    case PREFS_TYPE_DATA:
        return a->as.data.length == b->as.data.length &&
               memcmp(a->as.data.bytes, b->as.data.bytes, a->as.data.length) == 0;
    case PREFS_TYPE_ARRAY:
        if (a->as.array.count != b->as.array.count) return false;
        for (size_t index = 0; index < a->as.array.count; index++)
            if (!equal_node(a->as.array.items[index], b->as.array.items[index], depth + 1)) return false;
        return true;
    case PREFS_TYPE_DICTIONARY:
        if (a->as.dictionary.count != b->as.dictionary.count) return false;
        for (size_t index = 0; index < a->as.dictionary.count; index++) {
            const prefs_value *other = prefs_value_dictionary_get(b, a->as.dictionary.keys[index]);
            if (other == NULL || !equal_node(a->as.dictionary.values[index], other, depth + 1)) return false;
        }
        return true;
    }
    return false;
}

PREFS_EXPORT bool prefs_value_equal(const prefs_value *a, const prefs_value *b) {
    if (a == NULL || b == NULL) return a == b;
    return equal_node(a, b, 0);
}

size_t prefs_value_depth(const prefs_value *value, size_t limit) {
    if (value->type != PREFS_TYPE_ARRAY && value->type != PREFS_TYPE_DICTIONARY) return 0;
    if (limit == 0) return 1;
    size_t deepest = 0;
    size_t count = value->type == PREFS_TYPE_ARRAY ? value->as.array.count : value->as.dictionary.count;
    prefs_value **children = value->type == PREFS_TYPE_ARRAY ? value->as.array.items : value->as.dictionary.values;
    for (size_t index = 0; index < count && deepest < limit; index++) {
        size_t depth = prefs_value_depth(children[index], limit - 1);
        if (depth > deepest) deepest = depth;
    }
    return deepest + 1;
}

PREFS_EXPORT prefs_type prefs_value_get_type(const prefs_value *value) { return value == NULL ? 0 : value->type; }

PREFS_EXPORT bool prefs_value_get_boolean(const prefs_value *value) {
    return value != NULL && value->type == PREFS_TYPE_BOOLEAN && value->as.boolean;
}

PREFS_EXPORT int64_t prefs_value_get_integer(const prefs_value *value) {
    if (value == NULL || value->type != PREFS_TYPE_INTEGER || value->as.integer.is_unsigned) return 0;
    return (int64_t)value->as.integer.bits;
}

PREFS_EXPORT bool prefs_value_is_unsigned(const prefs_value *value) {
    return value != NULL && value->type == PREFS_TYPE_INTEGER && value->as.integer.is_unsigned;
}

PREFS_EXPORT uint64_t prefs_value_get_unsigned(const prefs_value *value) {
    if (value == NULL || value->type != PREFS_TYPE_INTEGER) return 0;
    return value->as.integer.bits;
}

PREFS_EXPORT double prefs_value_get_real(const prefs_value *value) {
    return value != NULL && value->type == PREFS_TYPE_REAL ? value->as.real : 0;
}

PREFS_EXPORT const char *prefs_value_get_string(const prefs_value *value) {
    return value != NULL && value->type == PREFS_TYPE_STRING ? value->as.string.bytes : NULL;
}

PREFS_EXPORT size_t prefs_value_get_string_length(const prefs_value *value) {
    return value != NULL && value->type == PREFS_TYPE_STRING ? value->as.string.length : 0;
}

PREFS_EXPORT const void *prefs_value_get_data(const prefs_value *value, size_t *length) {
    bool is_data = value != NULL && value->type == PREFS_TYPE_DATA;
    if (length != NULL) *length = is_data ? value->as.data.length : 0;
    return is_data ? value->as.data.bytes : NULL;
}

PREFS_EXPORT double prefs_value_get_date(const prefs_value *value) {
    return value != NULL && value->type == PREFS_TYPE_DATE ? value->as.date : 0;
}

PREFS_EXPORT uint64_t prefs_value_get_uid(const prefs_value *value) {
    return value != NULL && value->type == PREFS_TYPE_UID ? value->as.uid : 0;
}

/* Whether `item` may go into `container`: it is in no container, and it is not `container` or an ancestor of it. */
static bool can_adopt(const prefs_value *container, const prefs_value *item) {
    if (item == NULL || item->parent != NULL || item == container) return false;
    /* Only a container with children can hold `container`: the walk up is skipped for scalars and empty ones. */
    if (prefs_value_array_count(item) == 0 && prefs_value_dictionary_count(item) == 0) return true;
    for (const prefs_value *ancestor = container; ancestor != NULL; ancestor = ancestor->parent)
        if (ancestor == item) return false;
    return true;
}

PREFS_EXPORT size_t prefs_value_array_count(const prefs_value *array) {
    return array != NULL && array->type == PREFS_TYPE_ARRAY ? array->as.array.count : 0;
}

PREFS_EXPORT const prefs_value *prefs_value_array_get(const prefs_value *array, size_t index) {
    if (array == NULL || array->type != PREFS_TYPE_ARRAY || index >= array->as.array.count) return NULL;
    return array->as.array.items[index];
}

PREFS_EXPORT bool prefs_value_array_append(prefs_value *array, prefs_value *item) {
    if (array == NULL || array->type != PREFS_TYPE_ARRAY || !can_adopt(array, item)) return false;
    if (array->as.array.count == array->as.array.capacity) {
        size_t grown = array->as.array.capacity == 0 ? 4 : array->as.array.capacity * 2;
        prefs_value **larger = realloc(array->as.array.items, grown * sizeof *larger);
        if (larger == NULL) return false;
        array->as.array.items = larger;
        array->as.array.capacity = grown;
    }
    array->as.array.items[array->as.array.count++] = item;
    item->parent = array;
    return true;
}

PREFS_EXPORT size_t prefs_value_dictionary_count(const prefs_value *dictionary) {
    return dictionary != NULL && dictionary->type == PREFS_TYPE_DICTIONARY ? dictionary->as.dictionary.count : 0;
}

static size_t dictionary_index(const prefs_value *dictionary, const char *key) {
    for (size_t index = 0; index < dictionary->as.dictionary.count; index++)
        if (strcmp(dictionary->as.dictionary.keys[index], key) == 0) return index;
    return SIZE_MAX;
}

PREFS_EXPORT const prefs_value *prefs_value_dictionary_get(const prefs_value *dictionary, const char *key) {
    if (dictionary == NULL || dictionary->type != PREFS_TYPE_DICTIONARY || key == NULL) return NULL;
    size_t index = dictionary_index(dictionary, key);
    return index == SIZE_MAX ? NULL : dictionary->as.dictionary.values[index];
}

PREFS_EXPORT const char *prefs_value_dictionary_key_at(const prefs_value *dictionary, size_t index) {
    if (dictionary == NULL || dictionary->type != PREFS_TYPE_DICTIONARY || index >= dictionary->as.dictionary.count)
        return NULL;
    return dictionary->as.dictionary.keys[index];
}

PREFS_EXPORT const prefs_value *prefs_value_dictionary_value_at(const prefs_value *dictionary, size_t index) {
    if (dictionary == NULL || dictionary->type != PREFS_TYPE_DICTIONARY || index >= dictionary->as.dictionary.count)
        return NULL;
    return dictionary->as.dictionary.values[index];
}

bool prefs_value_dictionary_set_owned(prefs_value *dictionary, char *key, prefs_value *item) {
    size_t existing = dictionary_index(dictionary, key);
    if (existing != SIZE_MAX) {
        prefs_value *old = dictionary->as.dictionary.values[existing];
        old->parent = NULL;
        prefs_value_free(old);
        dictionary->as.dictionary.values[existing] = item;
        item->parent = dictionary;
        free(key);
        return true;
    }
    if (dictionary->as.dictionary.count == dictionary->as.dictionary.capacity) {
        size_t grown = dictionary->as.dictionary.capacity == 0 ? 4 : dictionary->as.dictionary.capacity * 2;
        char **keys = realloc(dictionary->as.dictionary.keys, grown * sizeof *keys);
        if (keys == NULL) return false;
        dictionary->as.dictionary.keys = keys;
        prefs_value **values = realloc(dictionary->as.dictionary.values, grown * sizeof *values);
        if (values == NULL) return false;
        dictionary->as.dictionary.values = values;
        dictionary->as.dictionary.capacity = grown;
    }
    dictionary->as.dictionary.keys[dictionary->as.dictionary.count] = key;
    dictionary->as.dictionary.values[dictionary->as.dictionary.count] = item;
    dictionary->as.dictionary.count++;
    item->parent = dictionary;
    return true;
}

PREFS_EXPORT bool prefs_value_dictionary_set(prefs_value *dictionary, const char *key, prefs_value *item) {
    if (dictionary == NULL || dictionary->type != PREFS_TYPE_DICTIONARY || key == NULL ||
        !can_adopt(dictionary, item))
        return false;
    size_t length = strlen(key);
    if (!prefs_utf8_valid(key, length)) return false;
    char *copy = malloc(length + 1);
    if (copy == NULL) return false;
    memcpy(copy, key, length + 1);
    if (!prefs_value_dictionary_set_owned(dictionary, copy, item)) {
        free(copy);
        return false;
    }
    return true;
}

prefs_value *prefs_value_dictionary_take(prefs_value *dictionary, const char *key) {
    if (dictionary == NULL || dictionary->type != PREFS_TYPE_DICTIONARY || key == NULL) return NULL;
    size_t index = dictionary_index(dictionary, key);
    if (index == SIZE_MAX) return NULL;
    prefs_value *taken = dictionary->as.dictionary.values[index];
    taken->parent = NULL;
    free(dictionary->as.dictionary.keys[index]);
    size_t tail = dictionary->as.dictionary.count - index - 1;
    memmove(&dictionary->as.dictionary.keys[index], &dictionary->as.dictionary.keys[index + 1],
            tail * sizeof(char *));
    memmove(&dictionary->as.dictionary.values[index], &dictionary->as.dictionary.values[index + 1],
            tail * sizeof(prefs_value *));
    dictionary->as.dictionary.count--;
    return taken;
}

PREFS_EXPORT bool prefs_value_dictionary_remove(prefs_value *dictionary, const char *key) {
    prefs_value *taken = prefs_value_dictionary_take(dictionary, key);
    bool removed = taken != NULL;
    prefs_value_free(taken);
    return removed;
}

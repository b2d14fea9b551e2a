/* SPDX-License-Identifier: Apache-2.0 */
/* Binary property lists (bplist00), the payload of every frame: an encoder that writes each object once, in the
 * order its container needs it, and a decoder that checks every offset, length and reference, and bounds depth
 * and the references it follows, so that a hostile document fails instead of looping or reading out of bounds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Seconds from 1970-01-01 to 2001-01-01, the epoch of property-list dates. */
#define PREFS_DATE_EPOCH_OFFSET 978307200.0
/* Deeper values are refused when encoding: prefsd's frames nest at most maxDepth + 3 (67 by default). */
#define PREFS_ENCODE_MAX_DEPTH 512

typedef struct encoder {
    uint8_t *bytes;
    size_t length, capacity;
    uint64_t *offsets;
    size_t object_count, offsets_capacity;
    unsigned ref_size;
    prefs_error **error;
} encoder;

static bool reserve(encoder *out, size_t more) {
    if (out->capacity - out->length >= more) return true;
    size_t grown = out->capacity == 0 ? 256 : out->capacity;
    while (grown - out->length < more) grown *= 2;
    uint8_t *larger = realloc(out->bytes, grown);
    if (larger == NULL) return prefs_fail(out->error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory encoding a frame");
    out->bytes = larger;
    out->capacity = grown;
    return true;
}

static void put_be(encoder *out, uint64_t value, unsigned size) {
    for (unsigned index = 0; index < size; index++)
        out->bytes[out->length++] = (uint8_t)(value >> (8 * (size - 1 - index)));
}

/* Starts an object: records its offset and returns its reference. */
static bool begin_object(encoder *out, uint64_t *ref) {
    if (out->object_count == out->offsets_capacity) {
        size_t grown = out->offsets_capacity == 0 ? 64 : out->offsets_capacity * 2;
        uint64_t *larger = realloc(out->offsets, grown * sizeof *larger);
        if (larger == NULL) return prefs_fail(out->error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory encoding a frame");
        out->offsets = larger;
        out->offsets_capacity = grown;
    }
    out->offsets[out->object_count] = out->length;
    *ref = out->object_count++;
    return true;
}

static bool put_marker_with_length(encoder *out, uint8_t marker, uint64_t count) {
    if (!reserve(out, 10)) return false;
    if (count < 15) {
        out->bytes[out->length++] = (uint8_t)(marker | count);
        return true;
    }
    out->bytes[out->length++] = (uint8_t)(marker | 0x0F);
    if (count <= 0xFF) {
        out->bytes[out->length++] = 0x10;
        put_be(out, count, 1);
    } else if (count <= 0xFFFF) {
        out->bytes[out->length++] = 0x11;
        put_be(out, count, 2);
    } else if (count <= 0xFFFFFFFFu) {
        out->bytes[out->length++] = 0x12;
        put_be(out, count, 4);
    } else {
        out->bytes[out->length++] = 0x13;
        put_be(out, count, 8);
    }
    return true;
}

static bool encode_string(encoder *out, const char *text, size_t length) {
    bool ascii = true;
    for (size_t index = 0; index < length; index++)
        if ((unsigned char)text[index] >= 0x80) {
            ascii = false;
            break;
        }
    if (ascii) {
        if (!put_marker_with_length(out, 0x50, length) || !reserve(out, length)) return false;
        memcpy(out->bytes + out->length, text, length);
        out->length += length;
        return true;
    }
    /* UTF-16BE: count the units first (text is valid UTF-8: values are checked when made). */
    size_t units = 0;
    for (size_t index = 0; index < length;) {
        unsigned char lead = (unsigned char)text[index];
        size_t width = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
        units += width == 4 ? 2 : 1;
        index += width;
    }
    if (!put_marker_with_length(out, 0x60, units) || !reserve(out, units * 2)) return false;
    for (size_t index = 0; index < length;) {
        unsigned char lead = (unsigned char)text[index];
        uint32_t scalar;
        size_t width;
        if (lead < 0x80) {
            scalar = lead;
            width = 1;
        } else if (lead < 0xE0) {
            scalar = lead & 0x1F;
            width = 2;
        } else if (lead < 0xF0) {
            scalar = lead & 0x0F;
            width = 3;
        } else {
            scalar = lead & 0x07;
            width = 4;
        }
        for (size_t k = 1; k < width; k++) scalar = (scalar << 6) | ((unsigned char)text[index + k] & 0x3F);
        index += width;
        if (scalar >= 0x10000) {
            scalar -= 0x10000;
            put_be(out, 0xD800 + (scalar >> 10), 2);
            put_be(out, 0xDC00 + (scalar & 0x3FF), 2);
        } else {
            put_be(out, scalar, 2);
        }
    }
    return true;
}

static bool encode_value(encoder *out, const prefs_value *value, size_t depth, uint64_t *ref);

/* A container's children first, then the container with their references. */
static bool encode_container(encoder *out, const prefs_value *value, size_t depth, uint64_t *ref) {
    bool is_array = value->type == PREFS_TYPE_ARRAY;
    size_t count = is_array ? value->as.array.count : value->as.dictionary.count;
    size_t ref_count = is_array ? count : count * 2;
    uint64_t *refs = malloc((ref_count > 0 ? ref_count : 1) * sizeof *refs);
    if (refs == NULL) return prefs_fail(out->error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory encoding a frame");
    bool ok = true;
    for (size_t index = 0; ok && index < count; index++) {
        if (is_array) {
            ok = encode_value(out, value->as.array.items[index], depth + 1, &refs[index]);
        } else {
            const char *key = value->as.dictionary.keys[index];
            ok = begin_object(out, &refs[index]) && encode_string(out, key, strlen(key)) &&
                 encode_value(out, value->as.dictionary.values[index], depth + 1, &refs[count + index]);
        }
    }
    ok = ok && begin_object(out, ref) && put_marker_with_length(out, is_array ? 0xA0 : 0xD0, count) &&
         reserve(out, ref_count * out->ref_size);
    for (size_t index = 0; ok && index < ref_count; index++) put_be(out, refs[index], out->ref_size);
    free(refs);
    return ok;
}

static bool encode_value(encoder *out, const prefs_value *value, size_t depth, uint64_t *ref) {
    if (depth > PREFS_ENCODE_MAX_DEPTH)
        return prefs_fail(out->error, PREFS_ERROR_LIMIT_EXCEEDED, "the value nests deeper than %d levels",
                          PREFS_ENCODE_MAX_DEPTH);
    if (value->type == PREFS_TYPE_ARRAY || value->type == PREFS_TYPE_DICTIONARY)
        return encode_container(out, value, depth, ref);
    if (!begin_object(out, ref) || !reserve(out, 17)) return false;
    switch (value->type) {
    case PREFS_TYPE_BOOLEAN:
        out->bytes[out->length++] = value->as.boolean ? 0x09 : 0x08;
        return true;
    case PREFS_TYPE_INTEGER: {
        uint64_t bits = value->as.integer.bits;
        if (value->as.integer.is_unsigned) {
            out->bytes[out->length++] = 0x14;
            put_be(out, 0, 8);
            put_be(out, bits, 8);
        } else if ((int64_t)bits < 0 || bits > 0xFFFFFFFFu) {
            out->bytes[out->length++] = 0x13;
            put_be(out, bits, 8);
        } else if (bits <= 0xFF) {
            out->bytes[out->length++] = 0x10;
            put_be(out, bits, 1);
        } else if (bits <= 0xFFFF) {
            out->bytes[out->length++] = 0x11;
            put_be(out, bits, 2);
        } else {
            out->bytes[out->length++] = 0x12;
            put_be(out, bits, 4);
        }
        return true;
    }
    case PREFS_TYPE_REAL:
    case PREFS_TYPE_DATE: {
        double real = value->type == PREFS_TYPE_REAL ? value->as.real : value->as.date - PREFS_DATE_EPOCH_OFFSET;
        uint64_t bits;
        memcpy(&bits, &real, sizeof bits);
        out->bytes[out->length++] = value->type == PREFS_TYPE_REAL ? 0x23 : 0x33;
        put_be(out, bits, 8);
        return true;
    }
    case PREFS_TYPE_UID:
        out->bytes[out->length++] = 0x87;
        put_be(out, value->as.uid, 8);
        return true;
    case PREFS_TYPE_DATA:
        if (!put_marker_with_length(out, 0x40, value->as.data.length) || !reserve(out, value->as.data.length))
            return false;
        if (value->as.data.length > 0) memcpy(out->bytes + out->length, value->as.data.bytes, value->as.data.length);
        out->length += value->as.data.length;
        return true;
    case PREFS_TYPE_STRING:
        return encode_string(out, value->as.string.bytes, value->as.string.length);
    default:
        return prefs_fail(out->error, PREFS_ERROR_INVALID_ARGUMENT, "a value of unknown type %d", (int)value->type);
    }
}

/* Objects the document will hold: each scalar and container once, and each dictionary key. */
static bool count_objects(const prefs_value *value, size_t depth, uint64_t *count) {
    if (depth > PREFS_ENCODE_MAX_DEPTH) return false;
    *count += 1;
    if (value->type == PREFS_TYPE_ARRAY) {
        for (size_t index = 0; index < value->as.array.count; index++)
            if (!count_objects(value->as.array.items[index], depth + 1, count)) return false;
    } else if (value->type == PREFS_TYPE_DICTIONARY) {
        *count += value->as.dictionary.count;
        for (size_t index = 0; index < value->as.dictionary.count; index++)
            if (!count_objects(value->as.dictionary.values[index], depth + 1, count)) return false;
    }
    return true;
}

static unsigned size_for(uint64_t maximum) {
    return maximum <= 0xFF ? 1 : maximum <= 0xFFFF ? 2 : maximum <= 0xFFFFFFFFu ? 4 : 8;
}

bool prefs_bplist_encode(const prefs_value *value, uint8_t **bytes, size_t *length, prefs_error **error) {
    uint64_t count = 0;
    if (!count_objects(value, 0, &count))
        return prefs_fail(error, PREFS_ERROR_LIMIT_EXCEEDED, "the value nests deeper than %d levels",
                          PREFS_ENCODE_MAX_DEPTH);
    encoder out = {.ref_size = size_for(count), .error = error};
    uint64_t top;
    bool ok = reserve(&out, 8);
    if (ok) {
        memcpy(out.bytes, "bplist00", 8);
        out.length = 8;
        ok = encode_value(&out, value, 0, &top);
    }
    if (ok) {
        uint64_t table = out.length;
        unsigned offset_size = size_for(table);
        ok = reserve(&out, out.object_count * offset_size + 32);
        if (ok) {
            for (size_t index = 0; index < out.object_count; index++) put_be(&out, out.offsets[index], offset_size);
            put_be(&out, 0, 6);
            put_be(&out, offset_size, 1);
            put_be(&out, out.ref_size, 1);
            put_be(&out, out.object_count, 8);
            put_be(&out, top, 8);
            put_be(&out, table, 8);
        }
    }
    free(out.offsets);
    if (!ok) {
        free(out.bytes);
        return false;
    }
    *bytes = out.bytes;
    *length = out.length;
    return true;
}

/* ---- Decoding ------------------------------------------------------------------------------------------- */

typedef struct decoder {
    const uint8_t *bytes;
    uint64_t length;
    uint64_t table_offset;
    uint64_t object_count;
    unsigned offset_size, ref_size;
    size_t followed;
    const prefs_bplist_limits *limits;
    prefs_error **error;
} decoder;

static uint64_t get_be(const uint8_t *bytes, unsigned size) {
    uint64_t value = 0;
    for (unsigned index = 0; index < size; index++) value = (value << 8) | bytes[index];
    return value;
}

static bool malformed(decoder *in, const char *what) {
    return prefs_fail(in->error, PREFS_ERROR_PROTOCOL, "prefsd sent a malformed binary property list: %s", what);
}

/* The object data area is [8, table_offset): every read stays inside it. */
static bool readable(const decoder *in, uint64_t offset, uint64_t count) {
    return offset >= 8 && offset <= in->table_offset && count <= in->table_offset - offset;
}

/* A marker's count: its low nibble, or the integer object after it when the nibble is 15. */
static bool read_count(decoder *in, uint64_t *offset, uint8_t marker, uint64_t *count) {
    if ((marker & 0x0F) != 0x0F) {
        *count = marker & 0x0F;
        return true;
    }
    if (!readable(in, *offset, 1)) return malformed(in, "a length past the end");
    uint8_t int_marker = in->bytes[*offset];
    if ((int_marker & 0xF0) != 0x10 || (int_marker & 0x0F) > 3) return malformed(in, "a length that is not an integer");
    unsigned size = 1u << (int_marker & 0x0F);
    if (!readable(in, *offset + 1, size)) return malformed(in, "a length past the end");
    *count = get_be(in->bytes + *offset + 1, size);
    *offset += 1 + size;
    return true;
}

static bool read_ref(decoder *in, uint64_t offset, uint64_t *ref) {
    *ref = get_be(in->bytes + offset, in->ref_size);
    if (*ref >= in->object_count) return malformed(in, "a reference past the object table");
    return true;
}

static prefs_value *decode_utf16(decoder *in, uint64_t offset, uint64_t units) {
    if (units > in->table_offset / 2 || !readable(in, offset, units * 2)) {
        malformed(in, "a string past the end");
        return NULL;
    }
    char *text = malloc(units * 3 + 1);
    if (text == NULL) {
        prefs_fail(in->error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory decoding a frame");
        return NULL;
    }
    size_t length = 0;
    for (uint64_t index = 0; index < units; index++) {
        uint32_t scalar = (uint32_t)get_be(in->bytes + offset + index * 2, 2);
        if (scalar >= 0xD800 && scalar <= 0xDBFF && index + 1 < units) {
            uint32_t low = (uint32_t)get_be(in->bytes + offset + (index + 1) * 2, 2);
            if (low >= 0xDC00 && low <= 0xDFFF) {
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00);
                index++;
            }
        }
        if (scalar >= 0xD800 && scalar <= 0xDFFF) {
            free(text);
            malformed(in, "a string with a lone UTF-16 surrogate");
            return NULL;
        }
        if (scalar < 0x80) {
            text[length++] = (char)scalar;
        } else if (scalar < 0x800) {
            text[length++] = (char)(0xC0 | (scalar >> 6));
            text[length++] = (char)(0x80 | (scalar & 0x3F));
        } else if (scalar < 0x10000) {
            text[length++] = (char)(0xE0 | (scalar >> 12));
            text[length++] = (char)(0x80 | ((scalar >> 6) & 0x3F));
            text[length++] = (char)(0x80 | (scalar & 0x3F));
        } else {
            text[length++] = (char)(0xF0 | (scalar >> 18));
            text[length++] = (char)(0x80 | ((scalar >> 12) & 0x3F));
            text[length++] = (char)(0x80 | ((scalar >> 6) & 0x3F));
            text[length++] = (char)(0x80 | (scalar & 0x3F));
        }
    }
    text[length] = '\0';
    return prefs_value_new_string_owned(text, length);
}

static prefs_value *decode_object(decoder *in, uint64_t ref, size_t depth) {
    if (++in->followed > in->limits->max_objects) {
        prefs_fail(in->error, PREFS_ERROR_LIMIT_EXCEEDED, "prefsd sent a frame of more than %zu objects",
                   in->limits->max_objects);
        return NULL;
    }
    uint64_t offset = get_be(in->bytes + in->table_offset + ref * in->offset_size, in->offset_size);
    if (!readable(in, offset, 1)) {
        malformed(in, "an object offset out of bounds");
        return NULL;
    }
    uint8_t marker = in->bytes[offset++];
    uint8_t kind = marker & 0xF0;
    prefs_value *value = NULL;
    switch (kind) {
    case 0x00:
        if (marker == 0x08 || marker == 0x09) return prefs_value_new_boolean(marker == 0x09);
        malformed(in, "a null or fill object, which the protocol never sends");
        return NULL;
    case 0x10: {
        unsigned power = marker & 0x0F;
        if (power > 4) break;
        unsigned size = 1u << power;
        if (!readable(in, offset, size)) break;
        if (size == 16) {
            uint64_t high = get_be(in->bytes + offset, 8), low = get_be(in->bytes + offset + 8, 8);
            if (high == 0) return prefs_value_new_unsigned(low);
            if (high == UINT64_MAX && (int64_t)low < 0) return prefs_value_new_integer((int64_t)low);
            malformed(in, "an integer that does not fit in 64 bits");
            return NULL;
        }
        uint64_t bits = get_be(in->bytes + offset, size);
        return size == 8 ? prefs_value_new_integer((int64_t)bits) : prefs_value_new_unsigned(bits);
    }
    case 0x20: {
        unsigned power = marker & 0x0F;
        if (power == 2 && readable(in, offset, 4)) {
            uint32_t bits = (uint32_t)get_be(in->bytes + offset, 4);
            float real;
            memcpy(&real, &bits, sizeof real);
            return prefs_value_new_real(real);
        }
        if (power == 3 && readable(in, offset, 8)) {
            uint64_t bits = get_be(in->bytes + offset, 8);
            double real;
            memcpy(&real, &bits, sizeof real);
            return prefs_value_new_real(real);
        }
        break;
    }
    case 0x30:
        if (marker == 0x33 && readable(in, offset, 8)) {
            uint64_t bits = get_be(in->bytes + offset, 8);
            double seconds;
            memcpy(&seconds, &bits, sizeof seconds);
            return prefs_value_new_date(seconds + PREFS_DATE_EPOCH_OFFSET);
        }
        break;
    case 0x40:
    case 0x50: {
        uint64_t count;
        if (!read_count(in, &offset, marker, &count)) return NULL;
        if (!readable(in, offset, count)) break;
        if (kind == 0x40) return prefs_value_new_data(in->bytes + offset, count);
        for (uint64_t index = 0; index < count; index++)
            if (in->bytes[offset + index] >= 0x80) {
                malformed(in, "an ASCII string with a byte above 127");
                return NULL;
            }
        char *text = malloc(count + 1);
        if (text == NULL) break;
        memcpy(text, in->bytes + offset, count);
        text[count] = '\0';
        return prefs_value_new_string_owned(text, count);
    }
    case 0x60: {
        uint64_t count;
        if (!read_count(in, &offset, marker, &count)) return NULL;
        return decode_utf16(in, offset, count);
    }
    case 0x80: {
        unsigned size = (marker & 0x0F) + 1;
        if (size > 8 || !readable(in, offset, size)) break;
        return prefs_value_new_uid(get_be(in->bytes + offset, size));
    }
    case 0xA0:
    case 0xD0: {
        if (depth >= in->limits->max_depth) {
            prefs_fail(in->error, PREFS_ERROR_LIMIT_EXCEEDED, "prefsd sent a frame nested deeper than %zu levels",
                       in->limits->max_depth);
            return NULL;
        }
        uint64_t count;
        if (!read_count(in, &offset, marker, &count)) return NULL;
        uint64_t refs = kind == 0xA0 ? count : count * 2;
        if (count > in->table_offset || !readable(in, offset, refs * in->ref_size)) break;
        value = kind == 0xA0 ? prefs_value_new_array() : prefs_value_new_dictionary();
        if (value == NULL) break;
        for (uint64_t index = 0; index < count; index++) {
            uint64_t item_ref, key_ref = 0;
            uint64_t item_offset = offset + (kind == 0xA0 ? index : count + index) * in->ref_size;
            if (!read_ref(in, item_offset, &item_ref) ||
                (kind == 0xD0 && !read_ref(in, offset + index * in->ref_size, &key_ref))) {
                prefs_value_free(value);
                return NULL;
            }
            prefs_value *key = NULL;
            if (kind == 0xD0) {
                key = decode_object(in, key_ref, depth + 1);
                if (key == NULL || key->type != PREFS_TYPE_STRING) {
                    if (key != NULL) malformed(in, "a dictionary key that is not a string");
                    prefs_value_free(key);
                    prefs_value_free(value);
                    return NULL;
                }
            }
            prefs_value *item = decode_object(in, item_ref, depth + 1);
            bool stored = false;
            if (item != NULL) {
                if (kind == 0xA0) {
                    stored = prefs_value_array_append(value, item);
                } else {
                    /* The key's bytes move into the dictionary. */
                    stored = prefs_value_dictionary_set_owned(value, key->as.string.bytes, item);
                    if (stored) key->as.string.bytes = NULL;
                }
                if (!stored) {
                    prefs_value_free(item);
                    prefs_fail(in->error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory decoding a frame");
                }
            }
            prefs_value_free(key);
            if (!stored) {
                prefs_value_free(value);
                return NULL;
            }
        }
        return value;
    }
    default:
        break;
    }
    malformed(in, "an object of unknown type or past the end");
    return NULL;
}

prefs_value *prefs_bplist_decode(const uint8_t *bytes, size_t length, const prefs_bplist_limits *limits,
                                 prefs_error **error) {
    decoder in = {.bytes = bytes, .length = length, .limits = limits, .error = error};
    if (length < 8 + 32 || memcmp(bytes, "bplist00", 8) != 0) {
        malformed(&in, "not a bplist00 document");
        return NULL;
    }
    const uint8_t *trailer = bytes + length - 32;
    in.offset_size = trailer[6];
    in.ref_size = trailer[7];
    in.object_count = get_be(trailer + 8, 8);
    uint64_t top = get_be(trailer + 16, 8);
    in.table_offset = get_be(trailer + 24, 8);
    if (in.offset_size < 1 || in.offset_size > 8 || in.ref_size < 1 || in.ref_size > 8 || in.object_count == 0 ||
        top >= in.object_count || in.table_offset < 9 || in.table_offset > length - 32 ||
        in.object_count > (length - 32 - in.table_offset) / in.offset_size) {
        malformed(&in, "a trailer out of bounds");
        return NULL;
    }
    return decode_object(&in, top, 0);
}

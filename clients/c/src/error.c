/* SPDX-License-Identifier: Apache-2.0 */
/* prefs_error: a code, a message naming what failed, and what prefsd said (its code and the file concerned). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct prefs_error {
    prefs_error_code code;
    char *message;
    char *path;
    char *protocol_code;
};

/* Returned when even the error cannot be allocated. */
static prefs_error out_of_memory = {PREFS_ERROR_OUT_OF_MEMORY, "out of memory", NULL, NULL};

static void set_error(prefs_error **error, prefs_error_code code, char *message, const char *path,
                      const char *protocol_code) {
    if (error == NULL || *error != NULL) {
        free(message);
        return;
    }
    prefs_error *made = calloc(1, sizeof *made);
    if (made == NULL || message == NULL) {
        free(made);
        free(message);
        *error = &out_of_memory;
        return;
    }
    made->code = code;
    made->message = message;
    made->path = path != NULL ? strdup(path) : NULL;
    made->protocol_code = protocol_code != NULL ? strdup(protocol_code) : NULL;
    *error = made;
}

static char *format_message(const char *format, va_list arguments) {
    va_list copy;
    va_copy(copy, arguments);
    int length = vsnprintf(NULL, 0, format, copy);
    va_end(copy);
    if (length < 0) return NULL;
    char *message = malloc((size_t)length + 1);
    if (message != NULL) vsnprintf(message, (size_t)length + 1, format, arguments);
    return message;
}

bool prefs_fail(prefs_error **error, prefs_error_code code, const char *format, ...) {
    if (error == NULL || *error != NULL) return false;
    va_list arguments;
    va_start(arguments, format);
    char *message = format_message(format, arguments);
    va_end(arguments);
    set_error(error, code, message, NULL, NULL);
    return false;
}

bool prefs_fail_errno(prefs_error **error, prefs_error_code code, int number, const char *format, ...) {
    if (error == NULL || *error != NULL) return false;
    va_list arguments;
    va_start(arguments, format);
    char *message = format_message(format, arguments);
    va_end(arguments);
    if (message != NULL) {
        const char *reason = strerror(number);
        size_t length = strlen(message) + strlen(reason) + 3;
        char *joined = malloc(length);
        if (joined != NULL) snprintf(joined, length, "%s: %s", message, reason);
        free(message);
        message = joined;
    }
    set_error(error, code, message, NULL, NULL);
    return false;
}

static const struct {
    const char *name;
    prefs_error_code code;
} protocol_codes[] = {
    {"badRequest", PREFS_ERROR_INVALID_ARGUMENT},    {"unknownOperation", PREFS_ERROR_PROTOCOL},
    {"unsupportedVersion", PREFS_ERROR_PROTOCOL},    {"notFound", PREFS_ERROR_NOT_FOUND},
    {"invalidName", PREFS_ERROR_INVALID_NAME},       {"limitExceeded", PREFS_ERROR_LIMIT_EXCEEDED},
    {"permissionDenied", PREFS_ERROR_PERMISSION_DENIED}, {"readOnly", PREFS_ERROR_READ_ONLY},
    {"versionConflict", PREFS_ERROR_VERSION_CONFLICT}, {"storeUnavailable", PREFS_ERROR_STORE_UNAVAILABLE},
    {"corruptDomain", PREFS_ERROR_CORRUPT_DOMAIN},   {"malformedFrame", PREFS_ERROR_PROTOCOL},
    {"shuttingDown", PREFS_ERROR_DAEMON_UNAVAILABLE}, {"timedOut", PREFS_ERROR_DAEMON_UNAVAILABLE},
    {"internal", PREFS_ERROR_INTERNAL},
};

bool prefs_fail_with_reply(prefs_error **error, const prefs_value *reply_error) {
    const char *code_name = prefs_value_get_string(prefs_value_dictionary_get(reply_error, "code"));
    const char *message = prefs_value_get_string(prefs_value_dictionary_get(reply_error, "message"));
    const char *path = prefs_value_get_string(prefs_value_dictionary_get(reply_error, "path"));
    prefs_error_code code = PREFS_ERROR_INTERNAL;
    for (size_t index = 0; code_name != NULL && index < sizeof protocol_codes / sizeof protocol_codes[0]; index++)
        if (strcmp(protocol_codes[index].name, code_name) == 0) code = protocol_codes[index].code;
    if (error == NULL || *error != NULL) return false;
    char *text = strdup(message != NULL ? message : "prefsd reported an error without a message");
    set_error(error, code, text, path, code_name);
    return false;
}

PREFS_EXPORT prefs_error_code prefs_error_get_code(const prefs_error *error) {
    return error == NULL ? 0 : error->code;
}

PREFS_EXPORT const char *prefs_error_get_message(const prefs_error *error) {
    return error == NULL ? NULL : error->message;
}

PREFS_EXPORT const char *prefs_error_get_path(const prefs_error *error) { return error == NULL ? NULL : error->path; }

PREFS_EXPORT const char *prefs_error_get_protocol_code(const prefs_error *error) {
    return error == NULL ? NULL : error->protocol_code;
}

PREFS_EXPORT void prefs_error_free(prefs_error *error) {
    if (error == NULL || error == &out_of_memory) return;
    free(error->message);
    free(error->path);
    free(error->protocol_code);
    free(error);
}

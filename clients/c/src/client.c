/* SPDX-License-Identifier: Apache-2.0 */
/* prefs_client and prefs_domain: the requests of docs/PROTOCOL.md behind typed calls. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* How often an update reads and tries again when other programs keep changing the domain. */
#define PREFS_UPDATE_ATTEMPTS 1000
/* The store's longest domain name (docs/PROTOCOL.md, "Addressing domains"). */
#define PREFS_MAX_NAME_BYTES 216

PREFS_EXPORT const char *prefs_version(void) { return "1.0.0"; }

bool prefs_check_domain_name(const char *name, prefs_error **error) {
    if (name == NULL) return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the domain name is NULL");
    size_t length = strlen(name);
    if (length == 0) return prefs_fail(error, PREFS_ERROR_INVALID_NAME, "a domain name cannot be empty");
    if (length > PREFS_MAX_NAME_BYTES)
        return prefs_fail(error, PREFS_ERROR_INVALID_NAME, "the domain name is %zu bytes, longer than %d", length,
                          PREFS_MAX_NAME_BYTES);
    if (name[0] == '.')
        return prefs_fail(error, PREFS_ERROR_INVALID_NAME, "the domain name '%s' starts with '.'", name);
    for (size_t index = 0; index < length; index++) {
        char c = name[index];
        bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                       c == '_' || c == '-';
        if (!allowed) {
            if ((unsigned char)c >= 0x80 || c < 0x20)
                return prefs_fail(error, PREFS_ERROR_INVALID_NAME,
                                  "the domain name has byte 0x%02x at %zu; names are [A-Za-z0-9._-]",
                                  (unsigned char)c, index);
            return prefs_fail(error, PREFS_ERROR_INVALID_NAME,
                              "the domain name '%s' has '%c' at %zu; names are [A-Za-z0-9._-]", name, c, index);
        }
    }
    return true;
}

bool prefs_check_key(const char *key, prefs_error **error) {
    if (key == NULL) return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the key is NULL");
    if (!prefs_utf8_valid(key, strlen(key)))
        return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the key is not valid UTF-8");
    return true;
}

/* ---- Clients -------------------------------------------------------------------------------------------- */

PREFS_EXPORT prefs_client *prefs_client_new(const char *socket_path, prefs_error **error) {
    prefs_client *client = calloc(1, sizeof *client);
    if (client == NULL) {
        prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    client->socket_path = socket_path != NULL ? strdup(socket_path) : prefs_default_socket_path();
    client->connection.fd = -1;
    if (client->socket_path == NULL || pthread_mutex_init(&client->lock, NULL) != 0) {
        free(client->socket_path);
        free(client);
        prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    if (!prefs_connection_open(&client->connection, client->socket_path, error)) {
        pthread_mutex_destroy(&client->lock);
        free(client->socket_path);
        free(client);
        return NULL;
    }
    return client;
}

PREFS_EXPORT void prefs_client_free(prefs_client *client) {
    if (client == NULL) return;
    prefs_connection_release(&client->connection);
    pthread_mutex_destroy(&client->lock);
    free(client->socket_path);
    free(client);
}

PREFS_EXPORT const char *prefs_client_get_socket_path(const prefs_client *client) {
    return client == NULL ? NULL : client->socket_path;
}

prefs_value *prefs_client_call(prefs_client *client, prefs_value *request, prefs_error **error) {
    pthread_mutex_lock(&client->lock);
    prefs_value *reply = NULL;
    for (int attempt = 0; attempt < 2 && reply == NULL; attempt++) {
        bool reused = client->connection.fd >= 0;
        if (!reused) {
            prefs_connection_release(&client->connection);
            if (!prefs_connection_open(&client->connection, client->socket_path, error)) break;
        }
        prefs_error *failure = NULL;
        reply = prefs_connection_call(&client->connection, request, NULL, NULL, &failure);
        if (reply != NULL) break;
        /* A connection prefsd closed (it restarted, or timed the connection out) is made again, once. */
        bool lost = prefs_error_get_code(failure) == PREFS_ERROR_DAEMON_UNAVAILABLE && client->connection.fd < 0;
        if (!(lost && reused) || attempt == 1) {
            if (error != NULL && *error == NULL)
                *error = failure;
            else
                prefs_error_free(failure);
            break;
        }
        prefs_error_free(failure);
    }
    pthread_mutex_unlock(&client->lock);
    return reply;
}

PREFS_EXPORT bool prefs_client_synchronize(prefs_client *client, prefs_error **error) {
    if (client == NULL) return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the client is NULL");
    prefs_value *request = prefs_request_new("synchronize");
    if (request == NULL) return prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory");
    prefs_value *reply = prefs_client_call(client, request, error);
    prefs_value_free(request);
    prefs_value_free(reply);
    return reply != NULL;
}

/* ---- Domains -------------------------------------------------------------------------------------------- */

PREFS_EXPORT prefs_domain *prefs_domain_open(prefs_client *client, const char *name, unsigned flags,
                                             prefs_error **error) {
    if (client == NULL) {
        prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the client is NULL");
        return NULL;
    }
    if (!prefs_check_domain_name(name, error)) return NULL;
    if ((flags & ~(unsigned)PREFS_DOMAIN_BY_HOST) != 0) {
        prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "unknown flags 0x%x opening domain %s", flags, name);
        return NULL;
    }
    prefs_domain *domain = calloc(1, sizeof *domain);
    if (domain == NULL || (domain->name = strdup(name)) == NULL) {
        free(domain);
        prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    domain->client = client;
    domain->flags = flags;
    return domain;
}

PREFS_EXPORT void prefs_domain_free(prefs_domain *domain) {
    if (domain == NULL) return;
    for (size_t index = 0; index < domain->suite_count; index++) free(domain->suites[index]);
    free(domain->suites);
    free(domain->name);
    free(domain);
}

PREFS_EXPORT const char *prefs_domain_get_name(const prefs_domain *domain) {
    return domain == NULL ? NULL : domain->name;
}

PREFS_EXPORT bool prefs_domain_add_suite(prefs_domain *domain, const char *suite, prefs_error **error) {
    if (domain == NULL) return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the domain is NULL");
    if (!prefs_check_domain_name(suite, error)) return false;
    char **larger = realloc(domain->suites, (domain->suite_count + 1) * sizeof *larger);
    if (larger == NULL) return prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory");
    domain->suites = larger;
    if ((domain->suites[domain->suite_count] = strdup(suite)) == NULL)
        return prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory");
    domain->suite_count++;
    return true;
}

static bool put(prefs_value *dictionary, const char *key, prefs_value *item) {
    if (item != NULL && prefs_value_dictionary_set(dictionary, key, item)) return true;
    prefs_value_free(item);
    return false;
}

/* A request for `op` on the domain: its domain fields, or its search list (`app`, `suites`). */
prefs_value *prefs_domain_request(const prefs_domain *domain, const char *op, bool search_list) {
    prefs_value *request = prefs_request_new(op);
    if (request == NULL) return NULL;
    bool ok;
    if (search_list) {
        ok = put(request, "app", prefs_value_new_string(domain->name));
        if (ok && domain->suite_count > 0) {
            prefs_value *suites = prefs_value_new_array();
            for (size_t index = 0; suites != NULL && index < domain->suite_count; index++) {
                prefs_value *suite = prefs_value_new_string(domain->suites[index]);
                if (suite == NULL || !prefs_value_array_append(suites, suite)) {
                    prefs_value_free(suite);
                    prefs_value_free(suites);
                    suites = NULL;
                }
            }
            ok = put(request, "suites", suites);
        }
    } else {
        ok = put(request, "domain", prefs_value_new_string(domain->name));
        if (ok && (domain->flags & PREFS_DOMAIN_BY_HOST)) ok = put(request, "byHost", prefs_value_new_boolean(true));
    }
    if (!ok) {
        prefs_value_free(request);
        return NULL;
    }
    return request;
}

prefs_value *prefs_domain_call(prefs_domain *domain, prefs_value *request, const char *key, prefs_error **error) {
    if (request == NULL || (key != NULL && !put(request, "key", prefs_value_new_string(key)))) {
        prefs_value_free(request);
        prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    prefs_value *reply = prefs_client_call(domain->client, request, error);
    prefs_value_free(request);
    return reply;
}

static bool check_domain_and_key(prefs_domain *domain, const char *key, prefs_error **error) {
    if (domain == NULL) return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the domain is NULL");
    if (!prefs_check_key(key, error)) return false;
    size_t limit = domain->client->connection.max_key_bytes;
    if (strlen(key) > limit)
        return prefs_fail(error, PREFS_ERROR_LIMIT_EXCEEDED,
                          "the key of domain %s is %zu bytes, over prefsd's limit maxKeyBytes (%zu)", domain->name,
                          strlen(key), limit);
    return true;
}

PREFS_EXPORT prefs_value *prefs_domain_copy_value(prefs_domain *domain, const char *key, prefs_error **error) {
    if (!check_domain_and_key(domain, key, error)) return NULL;
    prefs_value *reply = prefs_domain_call(domain, prefs_domain_request(domain, "getEffective", true), key, error);
    if (reply == NULL) return NULL;
    prefs_value *value = prefs_value_dictionary_take(reply, "value");
    prefs_value_free(reply);
    if (value == NULL) prefs_fail(error, PREFS_ERROR_NOT_FOUND, "domain %s has no value for key %s", domain->name, key);
    return value;
}

/* The domain's own value of `key` and its version (`get`). */
static prefs_value *get_stored(prefs_domain *domain, const char *key, uint64_t *version, bool *found,
                               prefs_error **error) {
    prefs_value *reply = prefs_domain_call(domain, prefs_domain_request(domain, "get", false), key, error);
    if (reply == NULL) return NULL;
    *version = prefs_value_get_unsigned(prefs_value_dictionary_get(reply, "version"));
    prefs_value *value = prefs_value_dictionary_take(reply, "value");
    prefs_value_free(reply);
    *found = true;
    return value;
}

PREFS_EXPORT prefs_value *prefs_domain_copy_stored_value(prefs_domain *domain, const char *key, prefs_error **error) {
    if (!check_domain_and_key(domain, key, error)) return NULL;
    uint64_t version;
    bool answered = false;
    prefs_value *value = get_stored(domain, key, &version, &answered, error);
    if (value == NULL && answered)
        prefs_fail(error, PREFS_ERROR_NOT_FOUND, "domain %s does not hold key %s", domain->name, key);
    return value;
}

PREFS_EXPORT prefs_value *prefs_domain_copy_stored_values(prefs_domain *domain, prefs_error **error) {
    if (domain == NULL) {
        prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the domain is NULL");
        return NULL;
    }
    prefs_error *failure = NULL;
    prefs_value *reply = prefs_domain_call(domain, prefs_domain_request(domain, "readDomain", false), NULL, &failure);
    if (reply == NULL) {
        if (prefs_error_get_code(failure) == PREFS_ERROR_NOT_FOUND) {
            prefs_error_free(failure);
            return prefs_value_new_dictionary();
        }
        if (error != NULL && *error == NULL) *error = failure;
        else prefs_error_free(failure);
        return NULL;
    }
    prefs_value *values = prefs_value_dictionary_take(reply, "values");
    prefs_value_free(reply);
    if (prefs_value_get_type(values) != PREFS_TYPE_DICTIONARY) {
        prefs_value_free(values);
        prefs_fail(error, PREFS_ERROR_PROTOCOL, "prefsd's readDomain of %s has no values", domain->name);
        return NULL;
    }
    return values;
}

/* The effective value of `key`, which must be of `type`. */
static prefs_value *typed(prefs_domain *domain, const char *key, void *out, prefs_type type, const char *type_name,
                          prefs_error **error) {
    if (out == NULL) {
        prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the result pointer is NULL");
        return NULL;
    }
    prefs_value *value = prefs_domain_copy_value(domain, key, error);
    if (value == NULL) return NULL;
    bool convertible = value->type == type || (type == PREFS_TYPE_REAL && value->type == PREFS_TYPE_INTEGER) ||
                       (type == PREFS_TYPE_INTEGER && value->type == PREFS_TYPE_REAL &&
                        value->as.real == floor(value->as.real) && value->as.real >= -9223372036854775808.0 &&
                        value->as.real < 9223372036854775808.0);
    if (!convertible) {
        prefs_fail(error, PREFS_ERROR_WRONG_TYPE, "key %s of domain %s is not %s", key, domain->name, type_name);
        prefs_value_free(value);
        return NULL;
    }
    return value;
}

PREFS_EXPORT bool prefs_domain_get_boolean(prefs_domain *domain, const char *key, bool *out, prefs_error **error) {
    prefs_value *value = typed(domain, key, out, PREFS_TYPE_BOOLEAN, "a boolean", error);
    if (value == NULL) return false;
    *out = value->as.boolean;
    prefs_value_free(value);
    return true;
}

PREFS_EXPORT bool prefs_domain_get_int64(prefs_domain *domain, const char *key, int64_t *out, prefs_error **error) {
    prefs_value *value = typed(domain, key, out, PREFS_TYPE_INTEGER, "an integer", error);
    if (value == NULL) return false;
    bool ok = true;
    if (value->type == PREFS_TYPE_REAL)
        *out = (int64_t)value->as.real;
    else if (value->as.integer.is_unsigned)
        ok = prefs_fail(error, PREFS_ERROR_WRONG_TYPE, "key %s of domain %s is above INT64_MAX", key, domain->name);
    else
        *out = (int64_t)value->as.integer.bits;
    prefs_value_free(value);
    return ok;
}

PREFS_EXPORT bool prefs_domain_get_double(prefs_domain *domain, const char *key, double *out, prefs_error **error) {
    prefs_value *value = typed(domain, key, out, PREFS_TYPE_REAL, "a number", error);
    if (value == NULL) return false;
    if (value->type == PREFS_TYPE_REAL)
        *out = value->as.real;
    else
        *out = value->as.integer.is_unsigned ? (double)value->as.integer.bits : (double)(int64_t)value->as.integer.bits;
    prefs_value_free(value);
    return true;
}

PREFS_EXPORT bool prefs_domain_get_string(prefs_domain *domain, const char *key, char **out, prefs_error **error) {
    prefs_value *value = typed(domain, key, out, PREFS_TYPE_STRING, "a string", error);
    if (value == NULL) return false;
    *out = value->as.string.bytes;
    value->as.string.bytes = NULL;
    prefs_value_free(value);
    return true;
}

PREFS_EXPORT bool prefs_domain_get_data(prefs_domain *domain, const char *key, void **bytes, size_t *length,
                                        prefs_error **error) {
    if (length == NULL) return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the length pointer is NULL");
    prefs_value *value = typed(domain, key, bytes, PREFS_TYPE_DATA, "data", error);
    if (value == NULL) return false;
    *bytes = value->as.data.bytes;
    *length = value->as.data.length;
    value->as.data.bytes = NULL;
    prefs_value_free(value);
    return true;
}

PREFS_EXPORT bool prefs_domain_get_date(prefs_domain *domain, const char *key, double *out, prefs_error **error) {
    prefs_value *value = typed(domain, key, out, PREFS_TYPE_DATE, "a date", error);
    if (value == NULL) return false;
    *out = value->as.date;
    prefs_value_free(value);
    return true;
}

/* Values prefsd would refuse for their depth fail here with the limit's name, before anything is sent. */
static bool check_value(prefs_domain *domain, const char *key, const prefs_value *value, prefs_error **error) {
    if (value == NULL) return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the value of key %s is NULL", key);
    size_t limit = domain->client->connection.max_depth;
    if (prefs_value_depth(value, limit + 1) > limit)
        return prefs_fail(error, PREFS_ERROR_LIMIT_EXCEEDED,
                          "the value of key %s of domain %s nests deeper than prefsd's limit maxDepth (%zu)", key,
                          domain->name, limit);
    return true;
}

/* A write of the domain: `request` gets the domain fields' siblings from the caller; takes `request`. */
static bool write_call(prefs_domain *domain, prefs_value *request, prefs_error **error) {
    prefs_value *reply = prefs_domain_call(domain, request, NULL, error);
    prefs_value_free(reply);
    return reply != NULL;
}

static bool set_with_version(prefs_domain *domain, const char *key, const prefs_value *value, const uint64_t *version,
                             prefs_error **error) {
    prefs_value *request = prefs_domain_request(domain, value != NULL ? "set" : "remove", false);
    bool ok = request != NULL && put(request, "key", prefs_value_new_string(key)) &&
              (value == NULL || put(request, "value", prefs_value_copy(value))) &&
              (version == NULL || put(request, "expectedVersion", prefs_value_new_unsigned(*version)));
    if (!ok) {
        prefs_value_free(request);
        return prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    return write_call(domain, request, error);
}

PREFS_EXPORT bool prefs_domain_set_value(prefs_domain *domain, const char *key, const prefs_value *value,
                                         prefs_error **error) {
    if (!check_domain_and_key(domain, key, error) || !check_value(domain, key, value, error)) return false;
    return set_with_version(domain, key, value, NULL, error);
}

/* Sets a scalar made for the call. */
static bool set_made(prefs_domain *domain, const char *key, prefs_value *value, prefs_error **error) {
    if (value == NULL) return prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory");
    bool ok = prefs_domain_set_value(domain, key, value, error);
    prefs_value_free(value);
    return ok;
}

PREFS_EXPORT bool prefs_domain_set_boolean(prefs_domain *domain, const char *key, bool value, prefs_error **error) {
    return set_made(domain, key, prefs_value_new_boolean(value), error);
}

PREFS_EXPORT bool prefs_domain_set_int64(prefs_domain *domain, const char *key, int64_t value, prefs_error **error) {
    return set_made(domain, key, prefs_value_new_integer(value), error);
}

PREFS_EXPORT bool prefs_domain_set_double(prefs_domain *domain, const char *key, double value, prefs_error **error) {
    return set_made(domain, key, prefs_value_new_real(value), error);
}

PREFS_EXPORT bool prefs_domain_set_string(prefs_domain *domain, const char *key, const char *value,
                                          prefs_error **error) {
    if (value == NULL) return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the string for key %s is NULL", key);
    if (!prefs_utf8_valid(value, strlen(value)))
        return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the string for key %s is not valid UTF-8",
                          key != NULL ? key : "(NULL)");
    return set_made(domain, key, prefs_value_new_string(value), error);
}

PREFS_EXPORT bool prefs_domain_set_data(prefs_domain *domain, const char *key, const void *bytes, size_t length,
                                        prefs_error **error) {
    if (bytes == NULL && length > 0)
        return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the data for key %s is NULL", key);
    return set_made(domain, key, prefs_value_new_data(bytes, length), error);
}

PREFS_EXPORT bool prefs_domain_set_date(prefs_domain *domain, const char *key, double seconds, prefs_error **error) {
    if (!isfinite(seconds))
        return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the date for key %s is not finite", key);
    return set_made(domain, key, prefs_value_new_date(seconds), error);
}

PREFS_EXPORT bool prefs_domain_remove(prefs_domain *domain, const char *key, prefs_error **error) {
    if (!check_domain_and_key(domain, key, error)) return false;
    return set_with_version(domain, key, NULL, NULL, error);
}

PREFS_EXPORT bool prefs_domain_remove_all(prefs_domain *domain, prefs_error **error) {
    if (domain == NULL) return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the domain is NULL");
    prefs_error *failure = NULL;
    prefs_value *reply = prefs_domain_call(domain, prefs_domain_request(domain, "removeDomain", false), NULL, &failure);
    prefs_value_free(reply);
    if (reply != NULL || prefs_error_get_code(failure) == PREFS_ERROR_NOT_FOUND) {
        prefs_error_free(failure);
        return true;
    }
    if (error != NULL && *error == NULL) *error = failure;
    else prefs_error_free(failure);
    return false;
}

/* ---- Batches -------------------------------------------------------------------------------------------- */

struct prefs_batch {
    prefs_value *values;  /* key -> value */
    prefs_value *removed; /* key -> true */
};

PREFS_EXPORT prefs_batch *prefs_batch_new(void) {
    prefs_batch *batch = calloc(1, sizeof *batch);
    if (batch == NULL) return NULL;
    batch->values = prefs_value_new_dictionary();
    batch->removed = prefs_value_new_dictionary();
    if (batch->values == NULL || batch->removed == NULL) {
        prefs_batch_free(batch);
        return NULL;
    }
    return batch;
}

PREFS_EXPORT void prefs_batch_free(prefs_batch *batch) {
    if (batch == NULL) return;
    prefs_value_free(batch->values);
    prefs_value_free(batch->removed);
    free(batch);
}

PREFS_EXPORT bool prefs_batch_set(prefs_batch *batch, const char *key, const prefs_value *value, prefs_error **error) {
    if (batch == NULL || value == NULL)
        return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the batch or the value is NULL");
    if (!prefs_check_key(key, error)) return false;
    if (prefs_value_depth(value, 4097) > 4096)
        return prefs_fail(error, PREFS_ERROR_LIMIT_EXCEEDED, "the value of key %s nests too deep", key);
    prefs_value_dictionary_remove(batch->removed, key);
    if (!put(batch->values, key, prefs_value_copy(value)))
        return prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory");
    return true;
}

PREFS_EXPORT bool prefs_batch_remove(prefs_batch *batch, const char *key, prefs_error **error) {
    if (batch == NULL) return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the batch is NULL");
    if (!prefs_check_key(key, error)) return false;
    prefs_value_dictionary_remove(batch->values, key);
    if (!put(batch->removed, key, prefs_value_new_boolean(true)))
        return prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory");
    return true;
}

PREFS_EXPORT bool prefs_domain_apply(prefs_domain *domain, const prefs_batch *batch, prefs_error **error) {
    if (domain == NULL || batch == NULL)
        return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the domain or the batch is NULL");
    size_t sets = prefs_value_dictionary_count(batch->values), removals = prefs_value_dictionary_count(batch->removed);
    if (sets + removals == 0) return true;
    for (size_t index = 0; index < sets; index++) {
        const char *key = prefs_value_dictionary_key_at(batch->values, index);
        if (!check_domain_and_key(domain, key, error) ||
            !check_value(domain, key, prefs_value_dictionary_value_at(batch->values, index), error))
            return false;
    }
    prefs_value *request = prefs_domain_request(domain, "setMany", false);
    bool ok = request != NULL && (sets == 0 || put(request, "values", prefs_value_copy(batch->values)));
    if (ok && removals > 0) {
        prefs_value *keys = prefs_value_new_array();
        for (size_t index = 0; keys != NULL && index < removals; index++) {
            prefs_value *key = prefs_value_new_string(prefs_value_dictionary_key_at(batch->removed, index));
            if (key == NULL || !prefs_value_array_append(keys, key)) {
                prefs_value_free(key);
                prefs_value_free(keys);
                keys = NULL;
            }
        }
        ok = put(request, "removeKeys", keys);
    }
    if (!ok) {
        prefs_value_free(request);
        return prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    return write_call(domain, request, error);
}

/* ---- Updates -------------------------------------------------------------------------------------------- */

PREFS_EXPORT bool prefs_domain_update(prefs_domain *domain, const char *key, prefs_update_fn update, void *context,
                                      prefs_error **error) {
    if (update == NULL) return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the update callback is NULL");
    if (!check_domain_and_key(domain, key, error)) return false;
    for (int attempt = 0; attempt < PREFS_UPDATE_ATTEMPTS; attempt++) {
        uint64_t version = 0;
        bool answered = false;
        prefs_error *failure = NULL;
        prefs_value *current = get_stored(domain, key, &version, &answered, &failure);
        /* A corrupt file is an empty domain for an edit: the write sets it aside (docs/PROTOCOL.md, "Errors"). */
        if (!answered && prefs_error_get_code(failure) != PREFS_ERROR_CORRUPT_DOMAIN) {
            if (error != NULL && *error == NULL) *error = failure;
            else prefs_error_free(failure);
            return false;
        }
        prefs_error_free(failure);
        prefs_value *replacement = NULL;
        prefs_update_result result = update(current, &replacement, context);
        prefs_value_free(current);
        if (result == PREFS_UPDATE_KEEP) {
            prefs_value_free(replacement);
            return true;
        }
        if (result == PREFS_UPDATE_SET && replacement == NULL)
            return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT,
                              "the update of key %s of domain %s chose to set but gave no value", key, domain->name);
        if (result != PREFS_UPDATE_SET && result != PREFS_UPDATE_REMOVE) {
            prefs_value_free(replacement);
            return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the update of key %s returned %d", key,
                              (int)result);
        }
        if (result == PREFS_UPDATE_REMOVE) {
            prefs_value_free(replacement);
            replacement = NULL;
        } else if (!check_value(domain, key, replacement, error)) {
            prefs_value_free(replacement);
            return false;
        }
        bool ok = set_with_version(domain, key, replacement, &version, &failure);
        prefs_value_free(replacement);
        if (ok) return true;
        if (prefs_error_get_code(failure) != PREFS_ERROR_VERSION_CONFLICT) {
            if (error != NULL && *error == NULL) *error = failure;
            else prefs_error_free(failure);
            return false;
        }
        prefs_error_free(failure);
    }
    return prefs_fail(error, PREFS_ERROR_VERSION_CONFLICT,
                      "key %s of domain %s kept changing: the update gave up after %d attempts", key, domain->name,
                      PREFS_UPDATE_ATTEMPTS);
}

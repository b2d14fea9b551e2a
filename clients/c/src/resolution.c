/* SPDX-License-Identifier: Apache-2.0 */
/* prefs_resolution: where a key's effective value comes from (`getEffective`), what `defaults explain` prints. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct resolution_entry {
    prefs_layer layer;
    const prefs_value *value;
    const char *domain;
    const char *path;
    bool by_host;
} resolution_entry;

struct prefs_resolution {
    prefs_value *reply; /* owns what the entries point into */
    resolution_entry *entries;
    size_t count;
};

static const char *const layer_names[] = {
    [PREFS_LAYER_FORCED] = "forced",         [PREFS_LAYER_FLEET_FORCED] = "fleetForced",
    [PREFS_LAYER_ARGUMENT] = "argument",     [PREFS_LAYER_APP] = "app",
    [PREFS_LAYER_SUITE] = "suite",           [PREFS_LAYER_GLOBAL] = "global",
    [PREFS_LAYER_SYSTEM] = "system",         [PREFS_LAYER_FLEET_DEFAULT] = "fleetDefault",
    [PREFS_LAYER_REGISTRATION] = "registration",
};

PREFS_EXPORT const char *prefs_layer_name(prefs_layer layer) {
    if (layer < PREFS_LAYER_FORCED || layer > PREFS_LAYER_REGISTRATION) return NULL;
    return layer_names[layer];
}

static bool read_source(const prefs_value *source, const prefs_value *value, resolution_entry *entry) {
    const char *layer = prefs_value_get_string(prefs_value_dictionary_get(source, "layer"));
    const char *domain = prefs_value_get_string(prefs_value_dictionary_get(source, "domain"));
    if (layer == NULL || domain == NULL || value == NULL) return false;
    entry->layer = 0;
    for (int index = PREFS_LAYER_FORCED; index <= PREFS_LAYER_REGISTRATION; index++)
        if (strcmp(layer_names[index], layer) == 0) entry->layer = (prefs_layer)index;
    if (entry->layer == 0) return false;
    entry->value = value;
    entry->domain = domain;
    entry->path = prefs_value_get_string(prefs_value_dictionary_get(source, "path"));
    entry->by_host = prefs_value_get_boolean(prefs_value_dictionary_get(source, "byHost"));
    return true;
}

PREFS_EXPORT prefs_resolution *prefs_domain_explain(prefs_domain *domain, const char *key, prefs_error **error) {
    if (domain == NULL) {
        prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the domain is NULL");
        return NULL;
    }
    if (!prefs_check_key(key, error)) return NULL;
    prefs_value *reply = prefs_domain_call(domain, prefs_domain_request(domain, "getEffective", true), key, error);
    if (reply == NULL) return NULL;
    const prefs_value *shadowed = prefs_value_dictionary_get(reply, "shadowed");
    size_t capacity = 1 + prefs_value_array_count(shadowed);
    prefs_resolution *resolution = calloc(1, sizeof *resolution);
    if (resolution == NULL || (resolution->entries = calloc(capacity, sizeof *resolution->entries)) == NULL) {
        free(resolution);
        prefs_value_free(reply);
        prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    resolution->reply = reply;
    const prefs_value *value = prefs_value_dictionary_get(reply, "value");
    bool ok = true;
    if (value != NULL) {
        ok = read_source(prefs_value_dictionary_get(reply, "source"), value, &resolution->entries[0]);
        resolution->count = ok ? 1 : 0;
        for (size_t index = 0; ok && index < prefs_value_array_count(shadowed); index++) {
            const prefs_value *entry = prefs_value_array_get(shadowed, index);
            ok = read_source(prefs_value_dictionary_get(entry, "source"), prefs_value_dictionary_get(entry, "value"),
                             &resolution->entries[resolution->count]);
            if (ok) resolution->count++;
        }
    }
    if (!ok) {
        prefs_resolution_free(resolution);
        prefs_fail(error, PREFS_ERROR_PROTOCOL,
                   "prefsd's resolution of key %s of domain %s has a source it cannot read",
                   key, domain->name);
        return NULL;
    }
    return resolution;
}

PREFS_EXPORT void prefs_resolution_free(prefs_resolution *resolution) {
    if (resolution == NULL) return;
    prefs_value_free(resolution->reply);
    free(resolution->entries);
    free(resolution);
}

PREFS_EXPORT const prefs_value *prefs_resolution_get_value(const prefs_resolution *resolution) {
    return resolution == NULL || resolution->count == 0 ? NULL : resolution->entries[0].value;
}

PREFS_EXPORT size_t prefs_resolution_count(const prefs_resolution *resolution) {
    return resolution == NULL ? 0 : resolution->count;
}

static const resolution_entry *entry_at(const prefs_resolution *resolution, size_t index) {
    return resolution == NULL || index >= resolution->count ? NULL : &resolution->entries[index];
}

PREFS_EXPORT prefs_layer prefs_resolution_get_layer(const prefs_resolution *resolution, size_t index) {
    const resolution_entry *entry = entry_at(resolution, index);
    return entry == NULL ? 0 : entry->layer;
}

PREFS_EXPORT const prefs_value *prefs_resolution_get_layer_value(const prefs_resolution *resolution, size_t index) {
    const resolution_entry *entry = entry_at(resolution, index);
    return entry == NULL ? NULL : entry->value;
}

PREFS_EXPORT const char *prefs_resolution_get_domain(const prefs_resolution *resolution, size_t index) {
    const resolution_entry *entry = entry_at(resolution, index);
    return entry == NULL ? NULL : entry->domain;
}

PREFS_EXPORT const char *prefs_resolution_get_path(const prefs_resolution *resolution, size_t index) {
    const resolution_entry *entry = entry_at(resolution, index);
    return entry == NULL ? NULL : entry->path;
}

PREFS_EXPORT bool prefs_resolution_get_by_host(const prefs_resolution *resolution, size_t index) {
    const resolution_entry *entry = entry_at(resolution, index);
    return entry != NULL && entry->by_host;
}

PREFS_EXPORT bool prefs_resolution_is_forced(const prefs_resolution *resolution) {
    prefs_layer layer = prefs_resolution_get_layer(resolution, 0);
    return layer == PREFS_LAYER_FORCED || layer == PREFS_LAYER_FLEET_FORCED;
}

PREFS_EXPORT bool prefs_domain_is_forced(prefs_domain *domain, const char *key, bool *forced, prefs_error **error) {
    if (forced == NULL) return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the result pointer is NULL");
    prefs_resolution *resolution = prefs_domain_explain(domain, key, error);
    if (resolution == NULL) return false;
    *forced = prefs_resolution_is_forced(resolution);
    prefs_resolution_free(resolution);
    return true;
}

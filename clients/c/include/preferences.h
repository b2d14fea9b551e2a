/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libpreferences: the C API of Preferences for Linux.
 *
 * A client of prefsd's protocol (docs/PROTOCOL.md) for programs in C and in any language with a C foreign function
 * interface. It mirrors the Swift `Preferences` API: domains, typed values, atomic changes of several keys,
 * compare-and-set updates, the effective value with the layer that supplies it, and subscriptions whose file
 * descriptor a program puts in its own poll loop or GLib main loop. docs/C-API.md describes it as a whole.
 *
 * Conventions, for every function:
 *
 * - Errors. A function that can fail takes `prefs_error **error` last and returns false or NULL on failure. When
 *   `error` is not NULL, `*error` (which must be NULL on entry) is then set to a new error that the caller frees with
 *   prefs_error_free(). Pass NULL to ignore the details. Arguments that break a rule stated here (NULL where a value
 *   is required, a string that is not UTF-8) fail with PREFS_ERROR_INVALID_ARGUMENT; they never crash.
 * - Ownership. `prefs_*_new` and `prefs_*_copy*` results belong to the caller, who frees them with the matching
 *   `_free`. Functions named `_get_` return borrowed pointers, valid as long as the object they came from. Strings
 *   and bytes a caller receives through an out parameter of `prefs_domain_get_string` and `prefs_domain_get_data`
 *   are the caller's, to free with free(). Arguments are copied: nothing keeps a pointer the caller passed, except
 *   where a function says it takes ownership.
 * - Threads. A prefs_client and the domains opened on it may be used from several threads at once: requests on one
 *   client are serialised on its connection. A prefs_value, a prefs_batch, a prefs_watcher and its subscriptions are
 *   used by one thread at a time (a const prefs_value may be read by several). Callbacks run on the thread that
 *   called the function that runs them (prefs_domain_update, prefs_watcher_dispatch).
 * - Strings are UTF-8 and NUL-terminated. Dates are seconds since 1970-01-01 00:00:00 UTC.
 */
#ifndef PREFERENCES_H
#define PREFERENCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PREFS_VERSION_MAJOR 1
#define PREFS_VERSION_MINOR 0
#define PREFS_VERSION_PATCH 0

/* The library's version, "1.0.0". */
const char *prefs_version(void);

/* ---- Errors ------------------------------------------------------------------------------------------------- */

typedef enum prefs_error_code {
    PREFS_ERROR_INVALID_ARGUMENT = 1, /* NULL, not UTF-8, a value the protocol cannot carry, a cycle */
    PREFS_ERROR_NOT_FOUND,            /* the key (or domain) is absent */
    PREFS_ERROR_WRONG_TYPE,           /* a typed get found a value of another type */
    PREFS_ERROR_INVALID_NAME,         /* a domain name the store refuses */
    PREFS_ERROR_LIMIT_EXCEEDED,       /* a key, value, depth or domain over prefsd's limits */
    PREFS_ERROR_PERMISSION_DENIED,    /* prefsd does not serve this user, or a file refused access */
    PREFS_ERROR_READ_ONLY,            /* a write to a read-only layer */
    PREFS_ERROR_VERSION_CONFLICT,     /* compare-and-set: the domain changed; or an update kept conflicting */
    PREFS_ERROR_STORE_UNAVAILABLE,    /* prefsd cannot read or write its files (disk full, I/O error) */
    PREFS_ERROR_CORRUPT_DOMAIN,       /* the domain's file is not a property list; a write sets it aside */
    PREFS_ERROR_DAEMON_UNAVAILABLE,   /* prefsd cannot be reached, or the connection was lost */
    PREFS_ERROR_PROTOCOL,             /* prefsd sent something this library does not understand */
    PREFS_ERROR_OUT_OF_MEMORY,
    PREFS_ERROR_INTERNAL              /* prefsd failed unexpectedly, or answered a code this library does not know */
} prefs_error_code;

typedef struct prefs_error prefs_error;

/* The error's code. */
prefs_error_code prefs_error_get_code(const prefs_error *error);
/* A sentence for people naming the domain, key, file or limit concerned. Borrowed. */
const char *prefs_error_get_message(const prefs_error *error);
/* The file concerned, when prefsd named one; NULL otherwise. Borrowed. */
const char *prefs_error_get_path(const prefs_error *error);
/* The stable protocol code ("versionConflict", "corruptDomain", ...) when prefsd sent one; NULL otherwise. */
const char *prefs_error_get_protocol_code(const prefs_error *error);
/* Frees an error; NULL is ignored. */
void prefs_error_free(prefs_error *error);

/* ---- Values ------------------------------------------------------------------------------------------------- */

typedef enum prefs_type {
    PREFS_TYPE_BOOLEAN = 1,
    PREFS_TYPE_INTEGER, /* -2^63 ... 2^64-1: see prefs_value_is_unsigned */
    PREFS_TYPE_REAL,
    PREFS_TYPE_STRING,
    PREFS_TYPE_DATA,
    PREFS_TYPE_DATE,
    PREFS_TYPE_ARRAY,
    PREFS_TYPE_DICTIONARY,
    PREFS_TYPE_UID
} prefs_type;

/* A property-list value: a scalar, an array, or a dictionary with string keys (in insertion order). */
typedef struct prefs_value prefs_value;

prefs_value *prefs_value_new_boolean(bool value);
prefs_value *prefs_value_new_integer(int64_t value);
/* An integer above INT64_MAX (as binary property lists can hold); smaller values are plain integers. */
prefs_value *prefs_value_new_unsigned(uint64_t value);
prefs_value *prefs_value_new_real(double value);
/* NULL when `value` is NULL or not UTF-8. */
prefs_value *prefs_value_new_string(const char *value);
/* `bytes` may be NULL when `length` is 0. */
prefs_value *prefs_value_new_data(const void *bytes, size_t length);
prefs_value *prefs_value_new_date(double seconds_since_1970);
prefs_value *prefs_value_new_uid(uint64_t value);
prefs_value *prefs_value_new_array(void);
prefs_value *prefs_value_new_dictionary(void);
/* A deep copy; NULL for NULL. */
prefs_value *prefs_value_copy(const prefs_value *value);
/* Frees a value and everything it contains; NULL is ignored. A value inside a container belongs to the container
 * and must not be freed on its own. */
void prefs_value_free(prefs_value *value);
/* Whether two values are equal: same type, same contents (reals compared with ==, dictionaries regardless of
 * order). */
bool prefs_value_equal(const prefs_value *a, const prefs_value *b);

prefs_type prefs_value_get_type(const prefs_value *value);
/* The scalar accessors return 0, false or NULL when the value has another type. */
bool prefs_value_get_boolean(const prefs_value *value);
int64_t prefs_value_get_integer(const prefs_value *value);
/* Whether an integer is above INT64_MAX; its value is then prefs_value_get_unsigned(). */
bool prefs_value_is_unsigned(const prefs_value *value);
uint64_t prefs_value_get_unsigned(const prefs_value *value);
double prefs_value_get_real(const prefs_value *value);
/* Borrowed; NUL-terminated. The string may contain NUL characters: prefs_value_get_string_length says how long. */
const char *prefs_value_get_string(const prefs_value *value);
size_t prefs_value_get_string_length(const prefs_value *value);
/* Borrowed; `length` receives the byte count (it may be NULL). */
const void *prefs_value_get_data(const prefs_value *value, size_t *length);
double prefs_value_get_date(const prefs_value *value);
uint64_t prefs_value_get_uid(const prefs_value *value);

/* Arrays. `_get` borrows. `_append` takes ownership of `item`, which must not be inside a container yet and must
 * not contain `array`; it fails (false, and `item` stays the caller's) otherwise. */
size_t prefs_value_array_count(const prefs_value *array);
const prefs_value *prefs_value_array_get(const prefs_value *array, size_t index);
bool prefs_value_array_append(prefs_value *array, prefs_value *item);

/* Dictionaries. `_get` borrows (NULL when absent); `_key_at` and `_value_at` walk the entries in order. `_set`
 * takes ownership of `item` as `_append` does and replaces an existing entry of that key. */
size_t prefs_value_dictionary_count(const prefs_value *dictionary);
const prefs_value *prefs_value_dictionary_get(const prefs_value *dictionary, const char *key);
const char *prefs_value_dictionary_key_at(const prefs_value *dictionary, size_t index);
const prefs_value *prefs_value_dictionary_value_at(const prefs_value *dictionary, size_t index);
bool prefs_value_dictionary_set(prefs_value *dictionary, const char *key, prefs_value *item);
bool prefs_value_dictionary_remove(prefs_value *dictionary, const char *key);

/* ---- Clients and domains ------------------------------------------------------------------------------------ */

/* A connection to prefsd, made when the first request needs it and made again after prefsd restarts. */
typedef struct prefs_client prefs_client;

/*
 * A client of the prefsd serving `socket_path`, or, for NULL, the one the environment names as docs/PROTOCOL.md
 * says: $PREFSD_SOCKET, else $XDG_RUNTIME_DIR/prefsd/socket, else /run/user/<uid>/prefsd/socket, else
 * /tmp/prefsd-<uid>/socket. Connects at once, so that an unreachable prefsd is reported here
 * (PREFS_ERROR_DAEMON_UNAVAILABLE, naming the socket); the protocol's hello goes with the first request.
 */
prefs_client *prefs_client_new(const char *socket_path, prefs_error **error);
/* Frees the client; its domains must be freed first. */
void prefs_client_free(prefs_client *client);
/* The socket the client uses. Borrowed. */
const char *prefs_client_get_socket_path(const prefs_client *client);
/* Returns once every change is durably on disk and changes made outside prefsd have been read in. */
bool prefs_client_synchronize(prefs_client *client, prefs_error **error);

/* Flags of prefs_domain_open. */
enum {
    PREFS_DOMAIN_BY_HOST = 1 << 0 /* the by-host variant (defaults -currentHost), stored per machine */
};

/* The global domain's name: keys every application sees below its own. */
#define PREFS_GLOBAL_DOMAIN "NSGlobalDomain"

/*
 * A domain of the user's Preferences: an application's, a suite's, or PREFS_GLOBAL_DOMAIN. Reads resolve a key
 * through the domain's search list (forced, fleet-forced, the domain, its suites, the global domain, system,
 * fleet defaults, shipped defaults: docs/PROTOCOL.md); writes go to the domain itself. Fails with
 * PREFS_ERROR_INVALID_NAME for a name the store refuses, before any request.
 */
typedef struct prefs_domain prefs_domain;

prefs_domain *prefs_domain_open(prefs_client *client, const char *name, unsigned flags, prefs_error **error);
void prefs_domain_free(prefs_domain *domain);
/* The domain's name. Borrowed. */
const char *prefs_domain_get_name(const prefs_domain *domain);
/* Adds a suite to the domain's search list, searched after the domain itself, in the order added. Not to be
 * called while another thread uses the domain. */
bool prefs_domain_add_suite(prefs_domain *domain, const char *suite, prefs_error **error);

/* The effective value of `key`, a copy the caller frees; NULL with PREFS_ERROR_NOT_FOUND when no layer holds it. */
prefs_value *prefs_domain_copy_value(prefs_domain *domain, const char *key, prefs_error **error);
/* Typed reads of the effective value: PREFS_ERROR_NOT_FOUND when absent, PREFS_ERROR_WRONG_TYPE when another type
 * is stored (an integer is read as a double, and a real that is a whole number in range as an integer). */
bool prefs_domain_get_boolean(prefs_domain *domain, const char *key, bool *value, prefs_error **error);
bool prefs_domain_get_int64(prefs_domain *domain, const char *key, int64_t *value, prefs_error **error);
bool prefs_domain_get_double(prefs_domain *domain, const char *key, double *value, prefs_error **error);
/* `*value` receives a new string, the caller's to free(). */
bool prefs_domain_get_string(prefs_domain *domain, const char *key, char **value, prefs_error **error);
/* `*bytes` receives a new buffer (the caller's to free(); non-NULL even when empty) and `*length` its size. */
bool prefs_domain_get_data(prefs_domain *domain, const char *key, void **bytes, size_t *length, prefs_error **error);
bool prefs_domain_get_date(prefs_domain *domain, const char *key, double *seconds_since_1970, prefs_error **error);

/* The value the domain's own file holds for `key` (no search list): what the user set. NULL with
 * PREFS_ERROR_NOT_FOUND when the domain does not hold it. */
prefs_value *prefs_domain_copy_stored_value(prefs_domain *domain, const char *key, prefs_error **error);
/* Every key the domain's own file holds, as a dictionary; an empty one when the domain does not exist. */
prefs_value *prefs_domain_copy_stored_values(prefs_domain *domain, prefs_error **error);

/* Writes one key of the domain. */
bool prefs_domain_set_value(prefs_domain *domain, const char *key, const prefs_value *value, prefs_error **error);
bool prefs_domain_set_boolean(prefs_domain *domain, const char *key, bool value, prefs_error **error);
bool prefs_domain_set_int64(prefs_domain *domain, const char *key, int64_t value, prefs_error **error);
bool prefs_domain_set_double(prefs_domain *domain, const char *key, double value, prefs_error **error);
bool prefs_domain_set_string(prefs_domain *domain, const char *key, const char *value, prefs_error **error);
bool prefs_domain_set_data(prefs_domain *domain, const char *key, const void *bytes, size_t length,
                           prefs_error **error);
bool prefs_domain_set_date(prefs_domain *domain, const char *key, double seconds_since_1970, prefs_error **error);
/* Removes one key; removing an absent key succeeds. */
bool prefs_domain_remove(prefs_domain *domain, const char *key, prefs_error **error);
/* Removes the whole domain (every key of its own file); succeeds when it does not exist. */
bool prefs_domain_remove_all(prefs_domain *domain, prefs_error **error);

/* Several keys set and removed in one atomic change: other programs see all of it or none. */
typedef struct prefs_batch prefs_batch;

prefs_batch *prefs_batch_new(void);
void prefs_batch_free(prefs_batch *batch);
/* Sets `key` to a copy of `value` in the batch (the last set or remove of a key wins). */
bool prefs_batch_set(prefs_batch *batch, const char *key, const prefs_value *value, prefs_error **error);
bool prefs_batch_remove(prefs_batch *batch, const char *key, prefs_error **error);
/* Applies the batch to the domain; an empty batch changes nothing. The batch can be applied again or freed. */
bool prefs_domain_apply(prefs_domain *domain, const prefs_batch *batch, prefs_error **error);

/* What an update callback decided. */
typedef enum prefs_update_result {
    PREFS_UPDATE_SET = 1, /* store *replacement (the callback set it; the library takes ownership) */
    PREFS_UPDATE_REMOVE,  /* remove the key */
    PREFS_UPDATE_KEEP     /* change nothing */
} prefs_update_result;

/* `current` is the domain's own value of the key (NULL when absent), borrowed for the call. */
typedef prefs_update_result (*prefs_update_fn)(const prefs_value *current, prefs_value **replacement, void *context);

/*
 * Read, compute, write with compare-and-set: the callback sees the domain's current value and decides; when another
 * program changed the domain in between, the callback runs again on the new value, so no concurrent update is lost
 * (up to 1,000 attempts, then PREFS_ERROR_VERSION_CONFLICT). The callback may run several times and must not call
 * the library on the same client.
 */
bool prefs_domain_update(prefs_domain *domain, const char *key, prefs_update_fn update, void *context,
                         prefs_error **error);

/* ---- Where a value comes from ------------------------------------------------------------------------------- */

typedef enum prefs_layer {
    PREFS_LAYER_FORCED = 1,   /* /etc/preferences/forced: an administrator's, not writable by the user */
    PREFS_LAYER_FLEET_FORCED, /* a fleet's forced policy */
    PREFS_LAYER_ARGUMENT,     /* a process's arguments (never reported by prefsd) */
    PREFS_LAYER_APP,          /* the domain itself */
    PREFS_LAYER_SUITE,
    PREFS_LAYER_GLOBAL,
    PREFS_LAYER_SYSTEM,        /* /etc/preferences */
    PREFS_LAYER_FLEET_DEFAULT, /* a fleet's defaults */
    PREFS_LAYER_REGISTRATION   /* shipped defaults */
} prefs_layer;

/* The layer's name as the protocol and `defaults explain` spell it ("forced", "app", ...). */
const char *prefs_layer_name(prefs_layer layer);

/* The resolution of one key: the effective value, the layer it comes from, and what the lower layers hold. */
typedef struct prefs_resolution prefs_resolution;

prefs_resolution *prefs_domain_explain(prefs_domain *domain, const char *key, prefs_error **error);
void prefs_resolution_free(prefs_resolution *resolution);
/* The effective value (NULL when no layer holds the key). Borrowed. */
const prefs_value *prefs_resolution_get_value(const prefs_resolution *resolution);
/* How many layers hold the key: 0 when none; entry 0 is the effective one, then the shadowed ones, highest
 * first. */
size_t prefs_resolution_count(const prefs_resolution *resolution);
prefs_layer prefs_resolution_get_layer(const prefs_resolution *resolution, size_t index);
const prefs_value *prefs_resolution_get_layer_value(const prefs_resolution *resolution, size_t index);
/* The domain of the layer and its file (NULL when it has none). Borrowed. */
const char *prefs_resolution_get_domain(const prefs_resolution *resolution, size_t index);
const char *prefs_resolution_get_path(const prefs_resolution *resolution, size_t index);
bool prefs_resolution_get_by_host(const prefs_resolution *resolution, size_t index);
/* Whether the effective value is forced (an administrator's or a fleet's), which the user cannot change. */
bool prefs_resolution_is_forced(const prefs_resolution *resolution);

/* Whether `key` is forced for this domain; `*forced` receives the answer. */
bool prefs_domain_is_forced(prefs_domain *domain, const char *key, bool *forced, prefs_error **error);

/* ---- Subscriptions ------------------------------------------------------------------------------------------ */

typedef enum prefs_event_kind {
    PREFS_EVENT_CHANGE = 1, /* one key changed */
    PREFS_EVENT_RESYNC      /* the watched values were replaced: prefsd restarted, or the reader fell behind */
} prefs_event_kind;

typedef struct prefs_event prefs_event;

/* Every accessor borrows; an event and what it holds are valid during the callback only. */
prefs_event_kind prefs_event_get_kind(const prefs_event *event);
/* A change: the key, its value before and after (NULL when added or removed), and the domain and layer whose
 * change moved it. */
const char *prefs_event_get_key(const prefs_event *event);
const prefs_value *prefs_event_get_old_value(const prefs_event *event);
const prefs_value *prefs_event_get_new_value(const prefs_event *event);
const char *prefs_event_get_domain(const prefs_event *event);
bool prefs_event_get_by_host(const prefs_event *event);
/* The layer's scope: "user" (the domain, a suite, the global domain), "system", "forced", "fleetForced" or
 * "fleetDefault". A change of a forced scope may also change whether the key can be written. */
const char *prefs_event_get_scope(const prefs_event *event);
/* The process that made the change (0 when unknown, or when it was found on disk: a hand edit, another program). */
int64_t prefs_event_get_pid(const prefs_event *event);
/* Whether prefsd found the change on disk rather than receiving it as a request. */
bool prefs_event_is_from_file(const prefs_event *event);
/* A resync: every watched key and its value now, as a dictionary. */
const prefs_value *prefs_event_get_values(const prefs_event *event);

typedef void (*prefs_event_fn)(const prefs_event *event, void *context);

/* Flags of prefs_domain_subscribe. */
enum {
    PREFS_SUBSCRIBE_PREFIX = 1 << 0,     /* `key` is a prefix: watch the keys that start with it */
    PREFS_SUBSCRIBE_DOMAIN_ONLY = 1 << 1 /* watch the domain's own file, not the effective values */
};

/*
 * A watcher: one connection to prefsd carrying any number of subscriptions (up to prefsd's maxSubscriptions, 256
 * by default), and one descriptor for all of them, so that a program watching many domains holds one connection.
 * Nothing is delivered until prefs_watcher_dispatch() is called: put prefs_watcher_get_fd() in a poll loop
 * (POLLIN) and dispatch when it is readable. When prefsd restarts, dispatch connects again, subscribes every
 * subscription again and delivers a PREFS_EVENT_RESYNC to each; while prefsd is unreachable the descriptor becomes
 * readable when it is time to try again. Used by one thread at a time; the callbacks of its subscriptions run on
 * that thread, in dispatch and also in prefs_watcher_subscribe() and prefs_subscription_free(), which deliver the
 * events that arrive while they wait for prefsd (the new subscription's first ones included). A callback must not
 * subscribe or free a subscription of its own watcher.
 */
typedef struct prefs_watcher prefs_watcher;

/* Connects at once (PREFS_ERROR_DAEMON_UNAVAILABLE when prefsd cannot be reached). */
prefs_watcher *prefs_watcher_new(prefs_client *client, prefs_error **error);
/* Frees the watcher and the subscriptions still on it (their pointers are then invalid), without a callback. */
void prefs_watcher_free(prefs_watcher *watcher);
/* The descriptor to poll for reading; the same number for the watcher's whole life. */
int prefs_watcher_get_fd(const prefs_watcher *watcher);
/* Reads what has arrived and runs the callbacks; never blocks. False only for a failure the watcher cannot recover
 * from (the error says which); an unreachable prefsd is not one. */
bool prefs_watcher_dispatch(prefs_watcher *watcher, prefs_error **error);
/* Waits up to `timeout_ms` (-1: forever) for something to dispatch, then dispatches it. */
bool prefs_watcher_wait(prefs_watcher *watcher, int timeout_ms, prefs_error **error);

/*
 * A subscription: events for `key` (NULL: every key), the effective values by default. Fails with
 * PREFS_ERROR_DAEMON_UNAVAILABLE when prefsd cannot be reached now.
 */
typedef struct prefs_subscription prefs_subscription;

prefs_subscription *prefs_watcher_subscribe(prefs_watcher *watcher, prefs_domain *domain, const char *key,
                                            unsigned flags, prefs_event_fn callback, void *context,
                                            prefs_error **error);
/* A subscription on a watcher of its own, freed with it: for a program that watches one thing. */
prefs_subscription *prefs_domain_subscribe(prefs_domain *domain, const char *key, unsigned flags,
                                           prefs_event_fn callback, void *context, prefs_error **error);
/* Its watcher's descriptor (see prefs_watcher_get_fd). */
int prefs_subscription_get_fd(const prefs_subscription *subscription);
/* The watched values when the subscription started (or at the last resync), kept current as events arrive, as a
 * dictionary. Borrowed. */
const prefs_value *prefs_subscription_get_values(const prefs_subscription *subscription);
/* Dispatches its watcher (see prefs_watcher_dispatch), which runs the callbacks of every subscription on it. */
bool prefs_subscription_dispatch(prefs_subscription *subscription, prefs_error **error);
/* Waits up to `timeout_ms` (-1: forever) for something to dispatch, then dispatches it. */
bool prefs_subscription_wait(prefs_subscription *subscription, int timeout_ms, prefs_error **error);
/* Ends the subscription (and closes the watcher of prefs_domain_subscribe's). No callback of it runs afterwards. */
void prefs_subscription_free(prefs_subscription *subscription);

#ifdef __cplusplus
}
#endif

#endif /* PREFERENCES_H */

/* SPDX-License-Identifier: Apache-2.0 */
/* What the library's files share: the value's layout, errors, the binary property-list codec, the connection. */
#ifndef PREFS_INTERNAL_H
#define PREFS_INTERNAL_H

#include <pthread.h>

#include "preferences.h"

#define PREFS_EXPORT __attribute__((visibility("default")))

struct prefs_value {
    prefs_type type;
    prefs_value *parent; /* the container holding it, so that a value is never in two or in itself */
    union {
        bool boolean;
        struct {
            uint64_t bits; /* two's complement, or the unsigned value when is_unsigned */
            bool is_unsigned;
        } integer;
        double real;
        double date;
        uint64_t uid;
        struct {
            char *bytes; /* NUL-terminated */
            size_t length;
        } string;
        struct {
            uint8_t *bytes;
            size_t length;
        } data;
        struct {
            prefs_value **items;
            size_t count, capacity;
        } array;
        struct {
            char **keys;
            prefs_value **values;
            size_t count, capacity;
        } dictionary;
    } as;
};

/* Errors (error.c). Each returns false so that `return prefs_fail(...)` reads as the failure it is. */
bool prefs_fail(prefs_error **error, prefs_error_code code, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* A failed reply's error dictionary, mapped to a code. */
bool prefs_fail_with_reply(prefs_error **error, const prefs_value *reply_error);
bool prefs_fail_errno(prefs_error **error, prefs_error_code code, int number, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/* UTF-8 (value.c). */
bool prefs_utf8_valid(const char *bytes, size_t length);
/* Nesting depth: 0 for a scalar; stops counting past `limit` (so that a hostile depth costs nothing). */
size_t prefs_value_depth(const prefs_value *value, size_t limit);
/* A dictionary entry that takes ownership of `key`'s copy; used by the decoder. */
bool prefs_value_dictionary_set_owned(prefs_value *dictionary, char *key, prefs_value *item);
prefs_value *prefs_value_new_string_owned(char *bytes, size_t length);
/* Removes `key`'s entry and returns its value, now the caller's; NULL when absent. */
prefs_value *prefs_value_dictionary_take(prefs_value *dictionary, const char *key);

/* Binary property lists (bplist.c). */
typedef struct prefs_bplist_limits {
    size_t max_objects; /* references counted as they are followed */
    size_t max_depth;
} prefs_bplist_limits;

/* Encodes `value` as bplist00; the result is malloc'ed. */
bool prefs_bplist_encode(const prefs_value *value, uint8_t **bytes, size_t *length, prefs_error **error);
/* Decodes bplist00; a hostile document fails with PREFS_ERROR_PROTOCOL. */
prefs_value *prefs_bplist_decode(const uint8_t *bytes, size_t length, const prefs_bplist_limits *limits,
                                 prefs_error **error);

/* A connection speaking the protocol (connection.c). Not thread-safe: the client serialises. */
typedef struct prefs_connection {
    int fd;
    char *socket_path;
    uint64_t next_id;
    uint64_t hello_id;
    bool hello_pending; /* the hello's reply is read before the first request's */
    uint8_t *buffer; /* bytes read and not yet decoded */
    size_t buffered, capacity;
    size_t max_frame_bytes;
    size_t max_depth;
    size_t max_key_bytes;
} prefs_connection;

bool prefs_connection_open(prefs_connection *connection, const char *socket_path, prefs_error **error);
/* Closes the socket; the connection can be opened again. */
void prefs_connection_close(prefs_connection *connection);
/* Closes and frees what the connection holds. */
void prefs_connection_release(prefs_connection *connection);
bool prefs_connection_send(prefs_connection *connection, const prefs_value *message, prefs_error **error);
/* The next message; blocks when `blocking`, else NULL with *would_block set when no whole frame is there. */
prefs_value *prefs_connection_receive(prefs_connection *connection, bool blocking, bool *would_block,
                                      prefs_error **error);
/* Sends `request` (its "id" is filled in) and returns the reply's result dictionary, or fails with the reply's error.
 * Events arriving before the reply are passed to `on_event` (may be NULL: dropped). */
prefs_value *prefs_connection_call(prefs_connection *connection, prefs_value *request,
                                   void (*on_event)(prefs_value *event, void *context), void *context,
                                   prefs_error **error);
/* The socket path the environment names (docs/PROTOCOL.md, "Connecting"); malloc'ed. */
char *prefs_default_socket_path(void);

/* A request dictionary for `op` with the domain fields of `domain`. */
prefs_value *prefs_request_new(const char *op);
prefs_value *prefs_domain_request(const prefs_domain *domain, const char *op, bool search_list);

struct prefs_client {
    pthread_mutex_t lock;
    prefs_connection connection;
    char *socket_path;
};

struct prefs_domain {
    prefs_client *client;
    char *name;
    unsigned flags;
    char **suites;
    size_t suite_count;
};

/* Runs a request on the client's connection, connecting again once when the connection was lost (prefsd
 * restarted): every operation of the protocol is safe to repeat. */
prefs_value *prefs_client_call(prefs_client *client, prefs_value *request, prefs_error **error);

/* Sends a request made from the domain, with `key` when not NULL, and returns the reply. Takes `request` (NULL:
 * out of memory). */
prefs_value *prefs_domain_call(prefs_domain *domain, prefs_value *request, const char *key, prefs_error **error);

/* Names and keys checked before a request: the store's rules (docs/PROTOCOL.md, "Addressing domains"). */
bool prefs_check_domain_name(const char *name, prefs_error **error);
bool prefs_check_key(const char *key, prefs_error **error);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* prefs_subscription: a `subscribe` on a connection of its own, read without blocking from the caller's poll loop.
 *
 * The descriptor handed out keeps its number for the subscription's life, so that a caller registers it once: it is a
 * duplicate of the connection's socket and, while prefsd cannot be reached, of a timer that says when to try again
 * (dup3 puts each in its place atomically). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "internal.h"

#define PREFS_RECONNECT_FIRST_MS 50
#define PREFS_RECONNECT_LONGEST_MS 2000

struct prefs_event {
    prefs_event_kind kind;
    const char *key;
    const prefs_value *old_value, *new_value;
    const char *domain;
    bool by_host;
    const char *scope;
    int64_t pid;
    bool from_file;
    const prefs_value *values;
};

struct prefs_watcher {
    prefs_connection connection;
    char *socket_path;
    int stable_fd;
    bool waiting; /* stable_fd is the reconnect timer */
    unsigned backoff_ms;
    prefs_subscription **subscriptions;
    size_t count, capacity;
};

struct prefs_subscription {
    prefs_watcher *watcher;
    bool owns_watcher;    /* made by prefs_domain_subscribe */
    prefs_value *request; /* the subscribe request, sent again after a reconnect */
    prefs_value *values;  /* the watched values, kept current as events arrive */
    uint64_t id;          /* prefsd's identifier on the current connection */
    bool active;          /* subscribed on the current connection */
    prefs_event_fn callback;
    void *context;
};

PREFS_EXPORT prefs_event_kind prefs_event_get_kind(const prefs_event *event) { return event == NULL ? 0 : event->kind; }
PREFS_EXPORT const char *prefs_event_get_key(const prefs_event *event) { return event == NULL ? NULL : event->key; }
PREFS_EXPORT const prefs_value *prefs_event_get_old_value(const prefs_event *event) {
    return event == NULL ? NULL : event->old_value;
}
PREFS_EXPORT const prefs_value *prefs_event_get_new_value(const prefs_event *event) {
    return event == NULL ? NULL : event->new_value;
}
PREFS_EXPORT const char *prefs_event_get_domain(const prefs_event *event) {
    return event == NULL ? NULL : event->domain;
}
PREFS_EXPORT bool prefs_event_get_by_host(const prefs_event *event) { return event != NULL && event->by_host; }
PREFS_EXPORT const char *prefs_event_get_scope(const prefs_event *event) {
    return event == NULL ? NULL : event->scope != NULL ? event->scope : "user";
}
PREFS_EXPORT int64_t prefs_event_get_pid(const prefs_event *event) { return event == NULL ? 0 : event->pid; }
PREFS_EXPORT bool prefs_event_is_from_file(const prefs_event *event) { return event != NULL && event->from_file; }
PREFS_EXPORT const prefs_value *prefs_event_get_values(const prefs_event *event) {
    return event == NULL ? NULL : event->values;
}

static void route(prefs_value *message, void *context);

/* Sends one subscription's subscribe request on the watcher's connection and takes its snapshot; events of the
 * other subscriptions that arrive meanwhile are delivered. */
static bool subscribe_one(prefs_watcher *watcher, prefs_subscription *subscription, prefs_error **error) {
    prefs_value *reply = prefs_connection_call(&watcher->connection, subscription->request, route, watcher, error);
    if (reply == NULL) return false;
    const prefs_value *id = prefs_value_dictionary_get(reply, "subscription");
    prefs_value *values = prefs_value_dictionary_take(reply, "values");
    bool ok = prefs_value_get_type(id) == PREFS_TYPE_INTEGER && prefs_value_get_type(values) == PREFS_TYPE_DICTIONARY;
    if (ok) {
        subscription->id = prefs_value_get_unsigned(id);
        subscription->active = true;
        prefs_value_free(subscription->values);
        subscription->values = values;
    } else {
        prefs_value_free(values);
        prefs_fail(error, PREFS_ERROR_PROTOCOL, "prefsd's subscribe reply has no subscription or values");
    }
    prefs_value_free(reply);
    return ok;
}

/* Puts `fd` in the stable descriptor's place (or makes the stable descriptor the first time). */
static bool place(prefs_watcher *watcher, int fd, prefs_error **error) {
    if (watcher->stable_fd < 0) {
        watcher->stable_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
        if (watcher->stable_fd < 0)
            return prefs_fail_errno(error, PREFS_ERROR_INTERNAL, errno, "cannot duplicate the watcher's socket");
        return true;
    }
    int status;
    do status = dup3(fd, watcher->stable_fd, O_CLOEXEC);
    while (status < 0 && errno == EINTR);
    if (status < 0)
        return prefs_fail_errno(error, PREFS_ERROR_INTERNAL, errno, "cannot replace the watcher's descriptor");
    return true;
}

static void arm_timer(prefs_watcher *watcher) {
    struct itimerspec when = {.it_value = {.tv_sec = watcher->backoff_ms / 1000,
                                           .tv_nsec = (long)(watcher->backoff_ms % 1000) * 1000000L}};
    timerfd_settime(watcher->stable_fd, 0, &when, NULL);
    watcher->backoff_ms *= 2;
    if (watcher->backoff_ms > PREFS_RECONNECT_LONGEST_MS) watcher->backoff_ms = PREFS_RECONNECT_LONGEST_MS;
}

static void deliver_resync(prefs_subscription *subscription) {
    prefs_event event = {.kind = PREFS_EVENT_RESYNC, .values = subscription->values};
    subscription->callback(&event, subscription->context);
}

/* After the connection was lost: connect and subscribe everything again at once, or wait on the timer. False only
 * when even the timer cannot be made. */
static bool reconnect(prefs_watcher *watcher, prefs_error **error) {
    for (size_t index = 0; index < watcher->count; index++) watcher->subscriptions[index]->active = false;
    prefs_connection_release(&watcher->connection);
    prefs_error *failure = NULL;
    bool connected = prefs_connection_open(&watcher->connection, watcher->socket_path, &failure) &&
                     place(watcher, watcher->connection.fd, &failure);
    for (size_t index = 0; connected && index < watcher->count; index++)
        connected = subscribe_one(watcher, watcher->subscriptions[index], &failure);
    prefs_error_free(failure);
    if (connected) {
        watcher->waiting = false;
        watcher->backoff_ms = PREFS_RECONNECT_FIRST_MS;
        for (size_t index = 0; index < watcher->count; index++) deliver_resync(watcher->subscriptions[index]);
        return true;
    }
    for (size_t index = 0; index < watcher->count; index++) watcher->subscriptions[index]->active = false;
    prefs_connection_close(&watcher->connection);
    if (!watcher->waiting) {
        int timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        if (timer < 0) return prefs_fail_errno(error, PREFS_ERROR_INTERNAL, errno, "cannot make the watcher's timer");
        bool placed = place(watcher, timer, error);
        close(timer);
        if (!placed) return false;
        watcher->waiting = true;
    }
    arm_timer(watcher);
    return true;
}

static void apply(prefs_subscription *subscription, const char *key, const prefs_value *new_value) {
    if (new_value == NULL) {
        prefs_value_dictionary_remove(subscription->values, key);
        return;
    }
    prefs_value *copy = prefs_value_copy(new_value);
    if (copy != NULL && !prefs_value_dictionary_set(subscription->values, key, copy)) prefs_value_free(copy);
}

/* One change of a `change` event or of a `batch`'s list, delivered. False when it is malformed. */
static bool deliver_change(prefs_subscription *subscription, const prefs_value *change, const prefs_value *origin) {
    const char *key = prefs_value_get_string(prefs_value_dictionary_get(change, "key"));
    const char *domain = prefs_value_get_string(prefs_value_dictionary_get(change, "domain"));
    if (key == NULL || domain == NULL) return false;
    const char *kind = prefs_value_get_string(prefs_value_dictionary_get(origin, "kind"));
    const prefs_value *pid = prefs_value_dictionary_get(origin, "pid");
    prefs_event event = {
        .kind = PREFS_EVENT_CHANGE,
        .key = key,
        .old_value = prefs_value_dictionary_get(change, "old"),
        .new_value = prefs_value_dictionary_get(change, "new"),
        .domain = domain,
        .by_host = prefs_value_get_boolean(prefs_value_dictionary_get(change, "byHost")),
        .scope = prefs_value_get_string(prefs_value_dictionary_get(change, "scope")),
        .pid = prefs_value_get_integer(pid),
        .from_file = kind != NULL && strcmp(kind, "file") == 0,
    };
    apply(subscription, key, event.new_value);
    subscription->callback(&event, subscription->context);
    return true;
}

/* The active subscription an event names; NULL for one ended meanwhile. */
static prefs_subscription *addressee(prefs_watcher *watcher, const prefs_value *message) {
    const prefs_value *id = prefs_value_dictionary_get(message, "subscription");
    if (prefs_value_get_type(id) != PREFS_TYPE_INTEGER) return NULL;
    for (size_t index = 0; index < watcher->count; index++) {
        prefs_subscription *subscription = watcher->subscriptions[index];
        if (subscription->active && subscription->id == prefs_value_get_unsigned(id)) return subscription;
    }
    return NULL;
}

/* One message from prefsd: false when the connection must be made again. */
static bool handle(prefs_watcher *watcher, prefs_value *message) {
    const char *event = prefs_value_get_string(prefs_value_dictionary_get(message, "event"));
    if (event == NULL) return true; /* a reply to a request that gave up waiting */
    if (strcmp(event, "closing") == 0) return false;
    prefs_subscription *subscription = addressee(watcher, message);
    if (subscription == NULL) return true;
    if (strcmp(event, "change") == 0)
        return deliver_change(subscription, message, prefs_value_dictionary_get(message, "origin"));
    if (strcmp(event, "batch") == 0) {
        const prefs_value *changes = prefs_value_dictionary_get(message, "changes");
        const prefs_value *origin = prefs_value_dictionary_get(message, "origin");
        for (size_t index = 0; index < prefs_value_array_count(changes); index++)
            if (!deliver_change(subscription, prefs_value_array_get(changes, index), origin)) return false;
        return true;
    }
    if (strcmp(event, "resync") == 0) {
        prefs_value *values = prefs_value_dictionary_take(message, "values");
        if (prefs_value_get_type(values) != PREFS_TYPE_DICTIONARY) {
            prefs_value_free(values);
            return false;
        }
        prefs_value_free(subscription->values);
        subscription->values = values;
        deliver_resync(subscription);
        return true;
    }
    return true; /* an event this version does not know */
}

/* An event that arrived while a request waited for its reply: delivered at once (the request's caller is the
 * watcher's thread). A `closing` one ends the request's wait by itself. */
static void route(prefs_value *message, void *context) {
    handle(context, message);
    prefs_value_free(message);
}

PREFS_EXPORT prefs_watcher *prefs_watcher_new(prefs_client *client, prefs_error **error) {
    if (client == NULL) {
        prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the client is NULL");
        return NULL;
    }
    prefs_watcher *watcher = calloc(1, sizeof *watcher);
    if (watcher == NULL || (watcher->socket_path = strdup(client->socket_path)) == NULL) {
        free(watcher);
        prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    watcher->stable_fd = -1;
    watcher->connection.fd = -1;
    watcher->backoff_ms = PREFS_RECONNECT_FIRST_MS;
    if (!prefs_connection_open(&watcher->connection, watcher->socket_path, error) ||
        !place(watcher, watcher->connection.fd, error)) {
        prefs_watcher_free(watcher);
        return NULL;
    }
    return watcher;
}

PREFS_EXPORT void prefs_watcher_free(prefs_watcher *watcher) {
    if (watcher == NULL) return;
    /* Subscriptions still on it end with the connection: no unsubscribe, no callback. */
    for (size_t index = 0; index < watcher->count; index++) {
        prefs_subscription *subscription = watcher->subscriptions[index];
        prefs_value_free(subscription->request);
        prefs_value_free(subscription->values);
        free(subscription);
    }
    prefs_connection_release(&watcher->connection);
    if (watcher->stable_fd >= 0) close(watcher->stable_fd);
    free(watcher->subscriptions);
    free(watcher->socket_path);
    free(watcher);
}

PREFS_EXPORT int prefs_watcher_get_fd(const prefs_watcher *watcher) {
    return watcher == NULL ? -1 : watcher->stable_fd;
}

/* Delivers every whole message that has arrived, buffered or on the socket, without blocking. */
static bool drain(prefs_watcher *watcher, prefs_error **error) {
    for (;;) {
        bool would_block = false;
        prefs_error *failure = NULL;
        prefs_value *message = prefs_connection_receive(&watcher->connection, false, &would_block, &failure);
        prefs_error_free(failure);
        if (message == NULL) {
            if (would_block) return true;
            return reconnect(watcher, error);
        }
        bool kept = handle(watcher, message);
        prefs_value_free(message);
        if (!kept) return reconnect(watcher, error);
    }
}

PREFS_EXPORT bool prefs_watcher_dispatch(prefs_watcher *watcher, prefs_error **error) {
    if (watcher == NULL) return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the watcher is NULL");
    if (watcher->waiting) {
        uint64_t expirations;
        ssize_t drained;
        do drained = read(watcher->stable_fd, &expirations, sizeof expirations);
        while (drained < 0 && errno == EINTR);
        if (drained < 0) return true; /* not yet time */
        return reconnect(watcher, error);
    }
    return drain(watcher, error);
}

PREFS_EXPORT bool prefs_watcher_wait(prefs_watcher *watcher, int timeout_ms, prefs_error **error) {
    if (watcher == NULL) return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the watcher is NULL");
    struct pollfd poller = {.fd = watcher->stable_fd, .events = POLLIN};
    int ready;
    do ready = poll(&poller, 1, timeout_ms);
    while (ready < 0 && errno == EINTR);
    if (ready < 0) return prefs_fail_errno(error, PREFS_ERROR_INTERNAL, errno, "cannot wait for the watcher");
    if (ready == 0) return true;
    return prefs_watcher_dispatch(watcher, error);
}

PREFS_EXPORT prefs_subscription *prefs_watcher_subscribe(prefs_watcher *watcher, prefs_domain *domain,
                                                         const char *key, unsigned flags, prefs_event_fn callback,
                                                         void *context, prefs_error **error) {
    if (watcher == NULL || domain == NULL || callback == NULL) {
        prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the watcher, the domain or the callback is NULL");
        return NULL;
    }
    if (key != NULL && !prefs_check_key(key, error)) return NULL;
    if ((flags & ~(unsigned)(PREFS_SUBSCRIBE_PREFIX | PREFS_SUBSCRIBE_DOMAIN_ONLY)) != 0) {
        prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "unknown subscription flags 0x%x for domain %s", flags,
                   domain->name);
        return NULL;
    }
    prefs_subscription *subscription = calloc(1, sizeof *subscription);
    prefs_value *filter = key != NULL ? prefs_value_new_string(key) : NULL;
    bool ok = subscription != NULL && (key == NULL || filter != NULL) &&
              (subscription->request = prefs_domain_request(domain, "subscribe",
                                                            !(flags & PREFS_SUBSCRIBE_DOMAIN_ONLY))) != NULL &&
              (filter == NULL ||
               prefs_value_dictionary_set(subscription->request, flags & PREFS_SUBSCRIBE_PREFIX ? "keyPrefix" : "key",
                                          filter));
    if (ok) filter = NULL;
    if (ok && watcher->count == watcher->capacity) {
        size_t grown = watcher->capacity == 0 ? 4 : watcher->capacity * 2;
        prefs_subscription **larger = realloc(watcher->subscriptions, grown * sizeof *larger);
        ok = larger != NULL;
        if (ok) {
            watcher->subscriptions = larger;
            watcher->capacity = grown;
        }
    }
    prefs_value_free(filter);
    if (!ok) {
        if (subscription != NULL) prefs_value_free(subscription->request);
        free(subscription);
        prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    subscription->watcher = watcher;
    subscription->callback = callback;
    subscription->context = context;
    if (watcher->waiting || watcher->connection.fd < 0) {
        prefs_value_free(subscription->request);
        free(subscription);
        prefs_fail(error, PREFS_ERROR_DAEMON_UNAVAILABLE, "prefsd at %s cannot be reached now; the watcher tries again",
                   watcher->socket_path);
        return NULL;
    }
    prefs_error *failure = NULL;
    if (!subscribe_one(watcher, subscription, &failure)) {
        bool lost = watcher->connection.fd < 0;
        prefs_value_free(subscription->request);
        prefs_value_free(subscription->values);
        free(subscription);
        if (error != NULL && *error == NULL) *error = failure;
        else prefs_error_free(failure);
        /* The connection went away under the request: the others are subscribed again by the next dispatch. */
        if (lost && watcher->count > 0) reconnect(watcher, NULL);
        return NULL;
    }
    watcher->subscriptions[watcher->count++] = subscription;
    /* Events read with the reply would wait in the buffer for a readiness that never comes: delivered now. */
    drain(watcher, NULL);
    return subscription;
}
PREFS_EXPORT prefs_subscription *prefs_domain_subscribe(prefs_domain *domain, const char *key, unsigned flags,
                                                        prefs_event_fn callback, void *context, prefs_error **error) {
    if (domain == NULL) {
        prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the domain is NULL");
        return NULL;
    }
    prefs_watcher *watcher = prefs_watcher_new(domain->client, error);
    if (watcher == NULL) return NULL;
    prefs_subscription *subscription = prefs_watcher_subscribe(watcher, domain, key, flags, callback, context, error);
    if (subscription == NULL) {
        prefs_watcher_free(watcher);
        return NULL;
    }
    subscription->owns_watcher = true;
    return subscription;
}

PREFS_EXPORT int prefs_subscription_get_fd(const prefs_subscription *subscription) {
    return subscription == NULL ? -1 : prefs_watcher_get_fd(subscription->watcher);
}

PREFS_EXPORT const prefs_value *prefs_subscription_get_values(const prefs_subscription *subscription) {
    return subscription == NULL ? NULL : subscription->values;
}

PREFS_EXPORT bool prefs_subscription_dispatch(prefs_subscription *subscription, prefs_error **error) {
    if (subscription == NULL) return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the subscription is NULL");
    return prefs_watcher_dispatch(subscription->watcher, error);
}

PREFS_EXPORT bool prefs_subscription_wait(prefs_subscription *subscription, int timeout_ms, prefs_error **error) {
    if (subscription == NULL) return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the subscription is NULL");
    return prefs_watcher_wait(subscription->watcher, timeout_ms, error);
}

PREFS_EXPORT void prefs_subscription_free(prefs_subscription *subscription) {
    if (subscription == NULL) return;
    prefs_watcher *watcher = subscription->watcher;
    /* Out of the list first, so that no event of it is delivered while prefsd answers the unsubscribe. */
    for (size_t index = 0; index < watcher->count; index++) {
        if (watcher->subscriptions[index] != subscription) continue;
        memmove(&watcher->subscriptions[index], &watcher->subscriptions[index + 1],
                (watcher->count - index - 1) * sizeof *watcher->subscriptions);
        watcher->count--;
        break;
    }
    if (subscription->owns_watcher) {
        prefs_watcher_free(watcher);
    } else if (subscription->active && watcher->connection.fd >= 0) {
        prefs_value *request = prefs_request_new("unsubscribe");
        prefs_value *id = prefs_value_new_unsigned(subscription->id);
        if (request != NULL && id != NULL && prefs_value_dictionary_set(request, "subscription", id)) {
            id = NULL;
            /* A failure leaves the connection closed; the next dispatch connects again without this subscription. */
            prefs_value_free(prefs_connection_call(&watcher->connection, request, route, watcher, NULL));
            if (watcher->connection.fd >= 0) drain(watcher, NULL);
        }
        prefs_value_free(id);
        prefs_value_free(request);
    }
    prefs_value_free(subscription->request);
    prefs_value_free(subscription->values);
    free(subscription);
}

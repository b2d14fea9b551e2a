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
    int64_t pid;
    bool from_file;
    const prefs_value *values;
};

struct prefs_subscription {
    prefs_connection connection;
    char *socket_path;
    prefs_value *request; /* the subscribe request, sent again after a reconnect */
    prefs_value *values;  /* the watched values, kept current as events arrive */
    int stable_fd;
    bool waiting;         /* stable_fd is the reconnect timer */
    unsigned backoff_ms;
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
PREFS_EXPORT int64_t prefs_event_get_pid(const prefs_event *event) { return event == NULL ? 0 : event->pid; }
PREFS_EXPORT bool prefs_event_is_from_file(const prefs_event *event) { return event != NULL && event->from_file; }
PREFS_EXPORT const prefs_value *prefs_event_get_values(const prefs_event *event) {
    return event == NULL ? NULL : event->values;
}

/* Connects, subscribes, and takes the snapshot. */
static bool subscribe_now(prefs_subscription *subscription, prefs_error **error) {
    prefs_connection_release(&subscription->connection);
    if (!prefs_connection_open(&subscription->connection, subscription->socket_path, error)) return false;
    prefs_value_dictionary_remove(subscription->request, "id");
    prefs_value *reply = prefs_connection_call(&subscription->connection, subscription->request, NULL, NULL, error);
    if (reply == NULL) {
        prefs_connection_close(&subscription->connection);
        return false;
    }
    prefs_value *values = prefs_value_dictionary_take(reply, "values");
    prefs_value_free(reply);
    if (prefs_value_get_type(values) != PREFS_TYPE_DICTIONARY) {
        prefs_value_free(values);
        prefs_connection_close(&subscription->connection);
        return prefs_fail(error, PREFS_ERROR_PROTOCOL, "prefsd's subscribe reply has no values");
    }
    prefs_value_free(subscription->values);
    subscription->values = values;
    return true;
}

/* Puts `fd` in the stable descriptor's place (or makes the stable descriptor the first time) and closes `fd`. */
static bool place(prefs_subscription *subscription, int fd, prefs_error **error) {
    if (subscription->stable_fd < 0) {
        subscription->stable_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
        if (subscription->stable_fd < 0)
            return prefs_fail_errno(error, PREFS_ERROR_INTERNAL, errno, "cannot duplicate the subscription's socket");
        return true;
    }
    int status;
    do status = dup3(fd, subscription->stable_fd, O_CLOEXEC);
    while (status < 0 && errno == EINTR);
    if (status < 0)
        return prefs_fail_errno(error, PREFS_ERROR_INTERNAL, errno, "cannot replace the subscription's descriptor");
    return true;
}

static void arm_timer(prefs_subscription *subscription) {
    struct itimerspec when = {.it_value = {.tv_sec = subscription->backoff_ms / 1000,
                                           .tv_nsec = (long)(subscription->backoff_ms % 1000) * 1000000L}};
    timerfd_settime(subscription->stable_fd, 0, &when, NULL);
    subscription->backoff_ms *= 2;
    if (subscription->backoff_ms > PREFS_RECONNECT_LONGEST_MS) subscription->backoff_ms = PREFS_RECONNECT_LONGEST_MS;
}

static void deliver_resync(prefs_subscription *subscription) {
    prefs_event event = {.kind = PREFS_EVENT_RESYNC, .values = subscription->values};
    subscription->callback(&event, subscription->context);
}

/* After the connection was lost: subscribe again at once, or wait on the timer. False only when even the timer
 * cannot be made. */
static bool reconnect(prefs_subscription *subscription, prefs_error **error) {
    prefs_error *failure = NULL;
    if (subscribe_now(subscription, &failure) && place(subscription, subscription->connection.fd, &failure)) {
        subscription->waiting = false;
        subscription->backoff_ms = PREFS_RECONNECT_FIRST_MS;
        prefs_error_free(failure);
        deliver_resync(subscription);
        return true;
    }
    prefs_error_free(failure);
    prefs_connection_close(&subscription->connection);
    if (!subscription->waiting) {
        int timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        if (timer < 0)
            return prefs_fail_errno(error, PREFS_ERROR_INTERNAL, errno, "cannot make the subscription's timer");
        bool placed = place(subscription, timer, error);
        close(timer);
        if (!placed) return false;
        subscription->waiting = true;
    }
    arm_timer(subscription);
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
        .pid = prefs_value_get_integer(pid),
        .from_file = kind != NULL && strcmp(kind, "file") == 0,
    };
    apply(subscription, key, event.new_value);
    subscription->callback(&event, subscription->context);
    return true;
}

/* One message from prefsd: false when the connection must be made again. */
static bool handle(prefs_subscription *subscription, prefs_value *message) {
    const char *event = prefs_value_get_string(prefs_value_dictionary_get(message, "event"));
    if (event == NULL) return true; /* a reply: the subscription sends no request after subscribing */
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
    /* `closing` (prefsd stops, or timed out), or an event this version does not know: subscribe again. */
    return false;
}

PREFS_EXPORT prefs_subscription *prefs_domain_subscribe(prefs_domain *domain, const char *key, unsigned flags,
                                                        prefs_event_fn callback, void *context, prefs_error **error) {
    if (domain == NULL || callback == NULL) {
        prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the domain or the callback is NULL");
        return NULL;
    }
    if (key != NULL && !prefs_check_key(key, error)) return NULL;
    if ((flags & ~(unsigned)(PREFS_SUBSCRIBE_PREFIX | PREFS_SUBSCRIBE_DOMAIN_ONLY)) != 0) {
        prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "unknown subscription flags 0x%x for domain %s", flags,
                   domain->name);
        return NULL;
    }
    prefs_subscription *subscription = calloc(1, sizeof *subscription);
    if (subscription == NULL) {
        prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    subscription->stable_fd = -1;
    subscription->connection.fd = -1;
    subscription->callback = callback;
    subscription->context = context;
    subscription->backoff_ms = PREFS_RECONNECT_FIRST_MS;
    size_t path_length = strlen(domain->client->socket_path);
    subscription->socket_path = malloc(path_length + 1);
    subscription->request = prefs_domain_request(domain, "subscribe", !(flags & PREFS_SUBSCRIBE_DOMAIN_ONLY));
    prefs_value *filter = key != NULL ? prefs_value_new_string(key) : NULL;
    bool ok = subscription->socket_path != NULL && subscription->request != NULL && (key == NULL || filter != NULL);
    if (ok) {
        memcpy(subscription->socket_path, domain->client->socket_path, path_length + 1);
        if (filter != NULL) {
            ok = prefs_value_dictionary_set(subscription->request, flags & PREFS_SUBSCRIBE_PREFIX ? "keyPrefix" : "key",
                                            filter);
            if (ok) filter = NULL;
        }
    }
    prefs_value_free(filter);
    if (!ok) {
        prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory");
        prefs_subscription_free(subscription);
        return NULL;
    }
    if (!subscribe_now(subscription, error) || !place(subscription, subscription->connection.fd, error)) {
        prefs_subscription_free(subscription);
        return NULL;
    }
    return subscription;
}

PREFS_EXPORT int prefs_subscription_get_fd(const prefs_subscription *subscription) {
    return subscription == NULL ? -1 : subscription->stable_fd;
}

PREFS_EXPORT const prefs_value *prefs_subscription_get_values(const prefs_subscription *subscription) {
    return subscription == NULL ? NULL : subscription->values;
}

PREFS_EXPORT bool prefs_subscription_dispatch(prefs_subscription *subscription, prefs_error **error) {
    if (subscription == NULL) return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the subscription is NULL");
    if (subscription->waiting) {
        uint64_t expirations;
        ssize_t drained;
        do drained = read(subscription->stable_fd, &expirations, sizeof expirations);
        while (drained < 0 && errno == EINTR);
        if (drained < 0) return true; /* not yet time */
        return reconnect(subscription, error);
    }
    for (;;) {
        bool would_block = false;
        prefs_error *failure = NULL;
        prefs_value *message = prefs_connection_receive(&subscription->connection, false, &would_block, &failure);
        prefs_error_free(failure);
        if (message == NULL) {
            if (would_block) return true;
            return reconnect(subscription, error);
        }
        bool kept = handle(subscription, message);
        prefs_value_free(message);
        if (!kept) return reconnect(subscription, error);
    }
}

PREFS_EXPORT bool prefs_subscription_wait(prefs_subscription *subscription, int timeout_ms, prefs_error **error) {
    if (subscription == NULL) return prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the subscription is NULL");
    struct pollfd poller = {.fd = subscription->stable_fd, .events = POLLIN};
    int ready;
    do ready = poll(&poller, 1, timeout_ms);
    while (ready < 0 && errno == EINTR);
    if (ready < 0) return prefs_fail_errno(error, PREFS_ERROR_INTERNAL, errno, "cannot wait for the subscription");
    if (ready == 0) return true;
    return prefs_subscription_dispatch(subscription, error);
}

PREFS_EXPORT void prefs_subscription_free(prefs_subscription *subscription) {
    if (subscription == NULL) return;
    prefs_connection_release(&subscription->connection);
    if (subscription->stable_fd >= 0) close(subscription->stable_fd);
    prefs_value_free(subscription->request);
    prefs_value_free(subscription->values);
    free(subscription->socket_path);
    free(subscription);
}

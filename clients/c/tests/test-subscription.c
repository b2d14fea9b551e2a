/* SPDX-License-Identifier: Apache-2.0 */
/* Subscriptions against the real prefsd: changes by another client, by `defaults`, by a hand edit; a batch; a key
 * prefix; and a prefsd restart under the subscription, on a descriptor that keeps its number. */
#include <poll.h>

#include "test-support.h"

typedef struct seen {
    int changes, resyncs;
    char last_key[128];
    int64_t last_value;
    bool last_removed, last_from_file;
    int64_t last_pid;
} seen;

static void record(const prefs_event *event, void *context) {
    seen *events = context;
    if (prefs_event_get_kind(event) == PREFS_EVENT_RESYNC) {
        events->resyncs++;
        return;
    }
    events->changes++;
    snprintf(events->last_key, sizeof events->last_key, "%s", prefs_event_get_key(event));
    events->last_removed = prefs_event_get_new_value(event) == NULL;
    events->last_value = prefs_value_get_integer(prefs_event_get_new_value(event));
    events->last_from_file = prefs_event_is_from_file(event);
    events->last_pid = prefs_event_get_pid(event);
}

/* Dispatches until `events` has `changes` changes and `resyncs` resyncs, for up to 10 s. */
static bool wait_for(prefs_subscription *subscription, seen *events, int changes, int resyncs) {
    double deadline = test_now() + 10;
    while (events->changes < changes || events->resyncs < resyncs) {
        if (test_now() > deadline) {
            fprintf(stderr, "waited for %d changes and %d resyncs; have %d and %d\n", changes, resyncs,
                    events->changes, events->resyncs);
            return false;
        }
        prefs_error *error = NULL;
        if (!prefs_subscription_wait(subscription, 100, &error)) {
            fprintf(stderr, "dispatch failed: %s\n", prefs_error_get_message(error));
            prefs_error_free(error);
            return false;
        }
    }
    return true;
}

int main(void) {
    test_daemon daemon;
    test_daemon_make(&daemon);
    prefs_client *client = prefs_client_new(daemon.socket_path, NULL);
    prefs_domain *domain = prefs_domain_open(client, "com.example.watch", 0, NULL);
    CHECK_OK(prefs_domain_set_int64(domain, "start", 1, &check_error));

    seen events = {0};
    prefs_error *error = NULL;
    prefs_subscription *subscription = prefs_domain_subscribe(domain, NULL, 0, record, &events, &error);
    CHECK(subscription != NULL);
    int fd = prefs_subscription_get_fd(subscription);
    CHECK(fd >= 0);
    CHECK(prefs_value_get_integer(prefs_value_dictionary_get(prefs_subscription_get_values(subscription), "start")) ==
          1);

    /* Another client's write. */
    prefs_client *other = prefs_client_new(daemon.socket_path, NULL);
    prefs_domain *other_domain = prefs_domain_open(other, "com.example.watch", 0, NULL);
    CHECK_OK(prefs_domain_set_int64(other_domain, "a", 5, &check_error));
    CHECK(wait_for(subscription, &events, 1, 0));
    CHECK(strcmp(events.last_key, "a") == 0 && events.last_value == 5 && !events.last_from_file);
    CHECK(events.last_pid == getpid());

    /* `defaults write`, and a removal. */
    CHECK(test_defaults("write com.example.watch b -int 6", NULL, 0) == 0);
    CHECK(wait_for(subscription, &events, 2, 0));
    CHECK(strcmp(events.last_key, "b") == 0 && events.last_value == 6 && events.last_pid != getpid());
    CHECK(test_defaults("delete com.example.watch b", NULL, 0) == 0);
    CHECK(wait_for(subscription, &events, 3, 0));
    CHECK(strcmp(events.last_key, "b") == 0 && events.last_removed);

    /* A batch arrives as one change per key. */
    prefs_batch *batch = prefs_batch_new();
    prefs_value *seven = prefs_value_new_integer(7);
    prefs_batch_set(batch, "c", seven, NULL);
    prefs_batch_set(batch, "d", seven, NULL);
    prefs_value_free(seven);
    CHECK_OK(prefs_domain_apply(other_domain, batch, &check_error));
    prefs_batch_free(batch);
    CHECK(wait_for(subscription, &events, 5, 0));
    CHECK(prefs_value_get_integer(prefs_value_dictionary_get(prefs_subscription_get_values(subscription), "d")) == 7);

    /* A hand edit of the file, which prefsd finds on disk. */
    CHECK_OK(prefs_client_synchronize(client, &check_error));
    char path[512];
    snprintf(path, sizeof path, "%s/com.example.watch.plist", daemon.preferences);
    char temporary[520];
    snprintf(temporary, sizeof temporary, "%s.edit", path);
    test_write_file(temporary, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict>"
                               "<key>start</key><integer>1</integer><key>a</key><integer>50</integer>"
                               "<key>c</key><integer>7</integer><key>d</key><integer>7</integer></dict></plist>\n");
    rename(temporary, path);
    CHECK(wait_for(subscription, &events, 6, 0));
    CHECK(strcmp(events.last_key, "a") == 0 && events.last_value == 50 && events.last_from_file);

    /* prefsd killed under the subscription, then started again: a resync, then changes as before, on the same
     * descriptor number. */
    test_daemon_stop(&daemon, SIGKILL);
    CHECK_OK(prefs_subscription_wait(subscription, 1000, &check_error));
    CHECK(prefs_subscription_get_fd(subscription) == fd);
    test_daemon_start(&daemon);
    CHECK(wait_for(subscription, &events, 6, 1));
    CHECK(prefs_subscription_get_fd(subscription) == fd);
    CHECK(prefs_value_get_integer(prefs_value_dictionary_get(prefs_subscription_get_values(subscription), "a")) == 50);
    CHECK(test_defaults("write com.example.watch e -int 8", NULL, 0) == 0);
    CHECK(wait_for(subscription, &events, 7, 1));
    CHECK(strcmp(events.last_key, "e") == 0 && events.last_value == 8);
    prefs_subscription_free(subscription);

    /* A key prefix, on the domain's own file. */
    seen prefixed = {0};
    subscription = prefs_domain_subscribe(domain, "ui.", PREFS_SUBSCRIBE_PREFIX | PREFS_SUBSCRIBE_DOMAIN_ONLY,
                                          record, &prefixed, &error);
    CHECK(subscription != NULL);
    CHECK_OK(prefs_domain_set_int64(other_domain, "other", 1, &check_error));
    CHECK_OK(prefs_domain_set_int64(other_domain, "ui.size", 3, &check_error));
    CHECK(wait_for(subscription, &prefixed, 1, 0));
    CHECK(strcmp(prefixed.last_key, "ui.size") == 0 && prefixed.changes == 1);
    prefs_subscription_free(subscription);

    CHECK(prefs_domain_subscribe(domain, NULL, 0, NULL, NULL, &error) == NULL &&
          prefs_error_get_code(error) == PREFS_ERROR_INVALID_ARGUMENT);
    prefs_error_free(error);

    prefs_domain_free(other_domain);
    prefs_client_free(other);
    prefs_domain_free(domain);
    prefs_client_free(client);
    test_daemon_remove(&daemon);
    return test_finish("test-subscription");
}

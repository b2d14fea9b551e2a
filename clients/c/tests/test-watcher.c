/* SPDX-License-Identifier: Apache-2.0 */
/* Many subscriptions on one watcher: one connection and one descriptor for all, events routed to each, a
 * subscription ended among others, a layer's scope on events, and a prefsd restart under all of them. */
#include <dirent.h>
#include <poll.h>

#include "test-support.h"

#define DOMAINS 40

typedef struct counter {
    int changes, resyncs;
    char scope[32];
    int64_t last;
} counter;

static void count(const prefs_event *event, void *context) {
    counter *seen = context;
    if (prefs_event_get_kind(event) == PREFS_EVENT_RESYNC) {
        seen->resyncs++;
        return;
    }
    seen->changes++;
    seen->last = prefs_value_get_integer(prefs_event_get_new_value(event));
    snprintf(seen->scope, sizeof seen->scope, "%s", prefs_event_get_scope(event));
}

static int open_descriptors(void) {
    int total = 0;
    DIR *directory = opendir("/proc/self/fd");
    while (directory != NULL && readdir(directory) != NULL) total++;
    if (directory != NULL) closedir(directory);
    return total;
}

/* Dispatches until every counter from `first` to `last` has `changes` and `resyncs`, for up to 10 s. */
static bool wait_all(prefs_watcher *watcher, counter *counters, int first, int last, int changes, int resyncs) {
    double deadline = test_now() + 10;
    for (;;) {
        bool done = true;
        for (int index = first; index <= last; index++)
            if (counters[index].changes < changes || counters[index].resyncs < resyncs) done = false;
        if (done) return true;
        if (test_now() > deadline) {
            fprintf(stderr, "waited for %d changes and %d resyncs on %d..%d\n", changes, resyncs, first, last);
            return false;
        }
        if (!prefs_watcher_wait(watcher, 100, NULL)) return false;
    }
}

int main(void) {
    test_daemon daemon;
    test_daemon_make(&daemon);
    prefs_client *client = prefs_client_new(daemon.socket_path, NULL);
    prefs_error *error = NULL;
    int before = open_descriptors();
    prefs_watcher *watcher = prefs_watcher_new(client, &error);
    CHECK(watcher != NULL);
    int fd = prefs_watcher_get_fd(watcher);

    prefs_domain *domains[DOMAINS];
    prefs_subscription *subscriptions[DOMAINS];
    counter counters[DOMAINS] = {{0}};
    for (int index = 0; index < DOMAINS; index++) {
        char name[64];
        snprintf(name, sizeof name, "com.example.watched%d", index);
        domains[index] = prefs_domain_open(client, name, 0, NULL);
        subscriptions[index] = prefs_watcher_subscribe(watcher, domains[index], "value", 0, count, &counters[index],
                                                       &error);
        CHECK(subscriptions[index] != NULL);
        CHECK(prefs_subscription_get_fd(subscriptions[index]) == fd);
    }
    /* One connection and its stable duplicate for all forty. */
    CHECK(open_descriptors() - before <= 2);

    for (int index = 0; index < DOMAINS; index++)
        CHECK_OK(prefs_domain_set_int64(domains[index], "value", index, &check_error));
    CHECK(wait_all(watcher, counters, 0, DOMAINS - 1, 1, 0));
    for (int index = 0; index < DOMAINS; index++) CHECK(counters[index].last == index);
    CHECK(strcmp(counters[0].scope, "user") == 0);

    /* One ended among the others: no event for it, the rest unaffected. */
    prefs_subscription_free(subscriptions[5]);
    subscriptions[5] = NULL;
    CHECK_OK(prefs_domain_set_int64(domains[5], "value", 500, &check_error));
    CHECK_OK(prefs_domain_set_int64(domains[6], "value", 600, &check_error));
    CHECK(wait_all(watcher, counters, 6, 6, 2, 0));
    CHECK(counters[5].changes == 1 && counters[6].last == 600);

    /* A forced file's change arrives with its scope. */
    char path[512];
    snprintf(path, sizeof path, "%s/system/forced/com.example.watched7.plist", daemon.home);
    test_write_file(path, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict>"
                          "<key>value</key><integer>70</integer></dict></plist>\n");
    CHECK(wait_all(watcher, counters, 7, 7, 2, 0));
    CHECK(counters[7].last == 70 && strcmp(counters[7].scope, "forced") == 0);

    /* prefsd killed and started again: every subscription resyncs on the same descriptor, then changes flow. */
    test_daemon_stop(&daemon, SIGKILL);
    CHECK_OK(prefs_watcher_wait(watcher, 1000, &check_error));
    CHECK(prefs_subscription_get_fd(subscriptions[0]) == fd);
    /* A subscription asked for while prefsd is away fails now, and the watcher keeps trying for the others. */
    CHECK_FAILS(prefs_watcher_subscribe(watcher, domains[5], NULL, 0, count, &counters[5], &check_error) != NULL,
                PREFS_ERROR_DAEMON_UNAVAILABLE, "cannot be reached");
    test_daemon_start(&daemon);
    CHECK(wait_all(watcher, counters, 0, 4, 1, 1));
    CHECK(wait_all(watcher, counters, 6, DOMAINS - 1, 1, 1));
    CHECK(counters[5].resyncs == 0);
    CHECK(prefs_watcher_get_fd(watcher) == fd);
    CHECK_OK(prefs_domain_set_int64(domains[DOMAINS - 1], "value", 1000, &check_error));
    CHECK(wait_all(watcher, counters, DOMAINS - 1, DOMAINS - 1, 2, 1));
    CHECK(counters[DOMAINS - 1].last == 1000);

    for (int index = 0; index < DOMAINS; index++) {
        prefs_subscription_free(subscriptions[index]);
        prefs_domain_free(domains[index]);
    }
    prefs_watcher_free(watcher);
    CHECK(prefs_watcher_new(NULL, &error) == NULL && prefs_error_get_code(error) == PREFS_ERROR_INVALID_ARGUMENT);
    prefs_error_free(error);
    prefs_client_free(client);
    test_daemon_remove(&daemon);
    return test_finish("test-watcher");
}

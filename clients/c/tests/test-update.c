/* SPDX-License-Identifier: Apache-2.0 */
/* Concurrent compare-and-set updates from several processes, and from several threads sharing one client, lose no
 * increment; an update may keep or remove. */
#include <pthread.h>

#include "test-support.h"

#define THREADS 4

#define PROCESSES 8
#define INCREMENTS 100

static prefs_update_result increment(const prefs_value *current, prefs_value **replacement, void *context) {
    int *calls = context;
    (*calls)++;
    *replacement = prefs_value_new_integer(prefs_value_get_integer(current) + 1);
    return PREFS_UPDATE_SET;
}

static prefs_update_result remove_key(const prefs_value *current, prefs_value **replacement, void *context) {
    (void)current, (void)replacement, (void)context;
    return PREFS_UPDATE_REMOVE;
}

static prefs_update_result keep(const prefs_value *current, prefs_value **replacement, void *context) {
    (void)replacement;
    *(bool *)context = current != NULL;
    return PREFS_UPDATE_KEEP;
}

static void *update_from_thread(void *domain) {
    int calls = 0;
    for (int step = 0; step < INCREMENTS; step++) {
        prefs_error *error = NULL;
        if (!prefs_domain_update(domain, "threads", increment, &calls, &error)) {
            fprintf(stderr, "update failed: %s\n", prefs_error_get_message(error));
            test_failures++;
        }
        prefs_error_free(error);
    }
    return NULL;
}

int main(void) {
    test_daemon daemon;
    test_daemon_make(&daemon);
    pid_t children[PROCESSES];
    for (int index = 0; index < PROCESSES; index++) {
        children[index] = fork();
        if (children[index] == 0) {
            prefs_client *client = prefs_client_new(daemon.socket_path, NULL);
            prefs_domain *domain = prefs_domain_open(client, "com.example.counter", 0, NULL);
            int calls = 0, failures = 0;
            for (int step = 0; step < INCREMENTS; step++) {
                prefs_error *error = NULL;
                if (!prefs_domain_update(domain, "count", increment, &calls, &error)) {
                    fprintf(stderr, "update failed: %s\n", prefs_error_get_message(error));
                    failures++;
                }
                prefs_error_free(error);
            }
            prefs_domain_free(domain);
            prefs_client_free(client);
            _exit(failures == 0 ? 0 : 1);
        }
    }
    for (int index = 0; index < PROCESSES; index++) {
        int status;
        waitpid(children[index], &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    prefs_client *client = prefs_client_new(daemon.socket_path, NULL);
    prefs_domain *domain = prefs_domain_open(client, "com.example.counter", 0, NULL);
    int64_t count = 0;
    CHECK_OK(prefs_domain_get_int64(domain, "count", &count, &check_error));
    CHECK(count == PROCESSES * INCREMENTS);
    char output[64];
    CHECK(test_defaults("read com.example.counter count", output, sizeof output) == 0 && atoi(output) == count);

    /* Threads sharing the client: requests are serialised on its connection. */
    pthread_t threads[THREADS];
    for (int index = 0; index < THREADS; index++) pthread_create(&threads[index], NULL, update_from_thread, domain);
    for (int index = 0; index < THREADS; index++) pthread_join(threads[index], NULL);
    CHECK_OK(prefs_domain_get_int64(domain, "threads", &count, &check_error));
    CHECK(count == THREADS * INCREMENTS);

    bool existed = false;
    CHECK_OK(prefs_domain_update(domain, "count", keep, &existed, &check_error));
    CHECK(existed);
    CHECK_OK(prefs_domain_update(domain, "count", remove_key, NULL, &check_error));
    CHECK_FAILS(prefs_domain_get_int64(domain, "count", &count, &check_error), PREFS_ERROR_NOT_FOUND, "count");
    CHECK_OK(prefs_domain_update(domain, "count", keep, &existed, &check_error));
    CHECK(!existed);
    CHECK_FAILS(prefs_domain_update(domain, "count", NULL, NULL, &check_error), PREFS_ERROR_INVALID_ARGUMENT,
                "callback");
    prefs_domain_free(domain);
    prefs_client_free(client);
    test_daemon_remove(&daemon);
    return test_finish("test-update");
}

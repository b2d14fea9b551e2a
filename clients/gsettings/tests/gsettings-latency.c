/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Notification latency through whichever GSettings backend the environment selects (Benchmarks/gsettings.sh): starts
 * `gsettings monitor SCHEMA KEY` as another process, then writes COUNT values of the integer KEY through GSettings,
 * one at a time, each timed from just before g_settings_set_int() to the moment the monitor's line for that value
 * arrives on its standard output.
 *
 *   gsettings-latency SCHEMA KEY COUNT     prints: samples=N p50_us=... p99_us=... mean_us=... max_us=...
 */
#include <gio/gio.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define READY_ATTEMPTS 100
#define READY_WAIT_MS 100
#define SAMPLE_TIMEOUT_MS 5000

typedef struct {
    int fd;
    GString *pending; /* bytes read after the last whole line */
} line_reader;

/* The next whole line within `timeout_ms`, newly allocated without its newline; NULL on timeout or end. */
static char *read_line(line_reader *reader, int timeout_ms) {
    gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
    for (;;) {
        char *newline = memchr(reader->pending->str, '\n', reader->pending->len);
        if (newline != NULL) {
            char *line = g_strndup(reader->pending->str, (gsize)(newline - reader->pending->str));
            g_string_erase(reader->pending, 0, newline - reader->pending->str + 1);
            return line;
        }
        gint64 left = (deadline - g_get_monotonic_time()) / 1000;
        if (left <= 0) return NULL;
        struct pollfd poller = {.fd = reader->fd, .events = POLLIN};
        if (poll(&poller, 1, (int)left) <= 0) continue;
        char buffer[4096];
        ssize_t count = read(reader->fd, buffer, sizeof buffer);
        if (count <= 0) return NULL;
        g_string_append_len(reader->pending, buffer, count);
    }
}

/* Waits for the monitor's line saying KEY has `value`; other lines (earlier values) are skipped. */
static gboolean wait_for(line_reader *reader, const char *expected, int timeout_ms) {
    gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
    for (;;) {
        gint64 left = (deadline - g_get_monotonic_time()) / 1000;
        if (left <= 0) return FALSE;
        char *line = read_line(reader, (int)left);
        if (line == NULL) return FALSE;
        gboolean found = strcmp(line, expected) == 0;
        g_free(line);
        if (found) return TRUE;
    }
}

static int compare_samples(const void *a, const void *b) {
    gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;
    return (x > y) - (x < y);
}

/* Lets the writer's own notifications run, so that they do not pile up between samples. */
static void drain_main_context(void) {
    while (g_main_context_iteration(NULL, FALSE)) continue;
}

int main(int argc, char **argv) {
    if (argc != 4 || atoi(argv[3]) <= 0) {
        fprintf(stderr, "usage: gsettings-latency SCHEMA KEY COUNT\n");
        return 2;
    }
    const char *schema = argv[1], *key = argv[2];
    int count = atoi(argv[3]);
    GSettings *settings = g_settings_new(schema);
    int value = g_settings_get_int(settings, key);

    char *monitor[] = {"gsettings", "monitor", (char *)schema, (char *)key, NULL};
    GPid child;
    int output;
    GError *error = NULL;
    if (!g_spawn_async_with_pipes(NULL, monitor, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                  &child, NULL, &output, NULL, &error)) {
        fprintf(stderr, "gsettings-latency: cannot start gsettings monitor: %s\n", error->message);
        return 1;
    }
    line_reader reader = {.fd = output, .pending = g_string_new(NULL)};
    int status = 0;

    /* The monitor is ready once it reports a write; until then a write may come before it subscribed. */
    gboolean ready = FALSE;
    for (int attempt = 0; attempt < READY_ATTEMPTS && !ready; attempt++) {
        char *expected = g_strdup_printf("%s: %d", key, ++value);
        g_settings_set_int(settings, key, value);
        ready = wait_for(&reader, expected, READY_WAIT_MS);
        g_free(expected);
        drain_main_context();
    }
    if (!ready) {
        fprintf(stderr, "gsettings-latency: gsettings monitor reported no change within %d ms\n",
                READY_ATTEMPTS * READY_WAIT_MS);
        status = 1;
    }

    gint64 *samples = g_new0(gint64, count);
    int taken = 0;
    for (; status == 0 && taken < count; taken++) {
        char *expected = g_strdup_printf("%s: %d", key, ++value);
        gint64 start = g_get_monotonic_time();
        g_settings_set_int(settings, key, value);
        gboolean seen = wait_for(&reader, expected, SAMPLE_TIMEOUT_MS);
        samples[taken] = g_get_monotonic_time() - start;
        g_free(expected);
        if (!seen) {
            fprintf(stderr, "gsettings-latency: the monitor did not report %s = %d within %d ms\n", key, value,
                    SAMPLE_TIMEOUT_MS);
            status = 1;
        }
        drain_main_context();
    }
    kill(child, SIGTERM);
    waitpid(child, NULL, 0);
    g_spawn_close_pid(child);
    if (status == 0) {
        qsort(samples, (size_t)taken, sizeof *samples, compare_samples);
        gint64 total = 0;
        for (int index = 0; index < taken; index++) total += samples[index];
        printf("samples=%d p50_us=%" G_GINT64_FORMAT " p99_us=%" G_GINT64_FORMAT " mean_us=%" G_GINT64_FORMAT
               " max_us=%" G_GINT64_FORMAT "\n",
               taken, samples[taken / 2], samples[(taken * 99) / 100 < taken ? (taken * 99) / 100 : taken - 1],
               total / taken, samples[taken - 1]);
    }
    g_settings_sync();
    g_free(samples);
    g_string_free(reader.pending, TRUE);
    close(output);
    g_object_unref(settings);
    return status;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the `gsettings` tool does not show, for run-tests.sh: a key's default value as the backend gives it (the
 * layers below the user's), its user value, a delayed apply of several keys (the backend's write_tree), and how many
 * change notifications one write brings its writer.
 *
 *   settings-probe describe SCHEMA[:PATH] KEY           value=... user=... default=... writable=...
 *   settings-probe apply SCHEMA[:PATH] KEY VALUE...     sets the keys in delay mode, then applies them at once
 *   settings-probe notify-count SCHEMA[:PATH] KEY VALUE sets KEY and prints how many "changed" signals followed
 *   settings-probe early-change SCHEMA[:PATH] KEY COMMAND...
 *       reads KEY right after making the GSettings object, runs COMMAND (which changes KEY elsewhere) and prints
 *       "notified VALUE" when a "changed" signal for KEY followed within 5 s, else "missed"; 100 other relocatable
 *       objects are made first, so that the key's subscription is still being made while COMMAND runs
 */
#include <gio/gio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static GSettings *open_settings(const char *argument) {
    char *schema_id = g_strdup(argument);
    char *path = strchr(schema_id, ':');
    if (path != NULL) *path++ = '\0';
    GSettingsSchema *schema = g_settings_schema_source_lookup(g_settings_schema_source_get_default(), schema_id, TRUE);
    if (schema == NULL) {
        fprintf(stderr, "settings-probe: no schema %s\n", schema_id);
        exit(2);
    }
    GSettings *settings = g_settings_new_full(schema, NULL, path);
    g_settings_schema_unref(schema);
    g_free(schema_id);
    return settings;
}

static GVariant *parse_for(GSettings *settings, const char *key, const char *text) {
    GSettingsSchema *schema = NULL;
    g_object_get(settings, "settings-schema", &schema, NULL);
    GSettingsSchemaKey *schema_key = g_settings_schema_get_key(schema, key);
    GError *error = NULL;
    GVariant *value = g_variant_parse(g_settings_schema_key_get_value_type(schema_key), text, NULL, NULL, &error);
    if (value == NULL) {
        fprintf(stderr, "settings-probe: %s is not a value of %s: %s\n", text, key, error->message);
        exit(2);
    }
    g_settings_schema_key_unref(schema_key);
    g_settings_schema_unref(schema);
    return value;
}

static char *printed(GVariant *value) {
    if (value == NULL) return g_strdup("none");
    char *text = g_variant_print(value, TRUE);
    g_variant_unref(value);
    return text;
}

static int describe(GSettings *settings, const char *key) {
    char *value = printed(g_settings_get_value(settings, key));
    char *user = printed(g_settings_get_user_value(settings, key));
    char *fallback = printed(g_settings_get_default_value(settings, key));
    printf("value=%s user=%s default=%s writable=%s\n", value, user, fallback,
           g_settings_is_writable(settings, key) ? "true" : "false");
    g_free(value);
    g_free(user);
    g_free(fallback);
    return 0;
}

static int apply(GSettings *settings, int count, char **pairs) {
    if (count % 2 != 0) {
        fprintf(stderr, "settings-probe: apply takes KEY VALUE pairs\n");
        return 2;
    }
    GVariant **values = g_new0(GVariant *, count / 2 + 1);
    g_settings_delay(settings);
    for (int index = 0; index < count; index += 2) {
        values[index / 2] = parse_for(settings, pairs[index], pairs[index + 1]);
        g_settings_set_value(settings, pairs[index], values[index / 2]);
    }
    g_settings_apply(settings);
    g_settings_sync();
    /* A refused apply drops the delayed changes, so the keys read as before: compare. */
    int status = 0;
    for (int index = 0; index < count; index += 2) {
        GVariant *now = g_settings_get_value(settings, pairs[index]);
        if (!g_variant_equal(now, values[index / 2])) {
            fprintf(stderr, "settings-probe: %s was not applied\n", pairs[index]);
            status = 1;
        }
        g_variant_unref(now);
        g_variant_unref(values[index / 2]);
    }
    g_free(values);
    return status;
}

typedef struct {
    const char *key;
    int count;
} counter;

static void on_changed(GSettings *settings, const char *key, gpointer data) {
    (void)settings;
    counter *seen = data;
    if (strcmp(key, seen->key) == 0) seen->count++;
}

static gboolean stop(gpointer loop) {
    g_main_loop_quit(loop);
    return G_SOURCE_REMOVE;
}

/* Waits a second after the write, long enough for the subscription's echo to arrive and be dropped. */
static int notify_count(GSettings *settings, const char *key, const char *text) {
    counter seen = {.key = key, .count = 0};
    g_signal_connect(settings, "changed", G_CALLBACK(on_changed), &seen);
    GVariant *value = parse_for(settings, key, text);
    gboolean written = g_settings_set_value(settings, key, value);
    g_variant_unref(value);
    if (!written) {
        fprintf(stderr, "settings-probe: %s is not writable\n", key);
        return 1;
    }
    GMainLoop *loop = g_main_loop_new(NULL, FALSE);
    g_timeout_add(1000, stop, loop);
    g_main_loop_run(loop);
    g_main_loop_unref(loop);
    printf("%d\n", seen.count);
    return 0;
}

#define EARLY_OTHERS 100

/* A change made before the key's subscription exists must still be notified (the backend compares the reads made
 * before with the subscription's snapshot). */
static int early_change(const char *schema_argument, const char *key, char **command) {
    GSettings *others[EARLY_OTHERS];
    for (int index = 0; index < EARLY_OTHERS; index++) {
        char *path = g_strdup_printf("org.example.preferences.profile:/org/example/queue/p%d/", index);
        others[index] = open_settings(path);
        g_free(path);
    }
    GSettings *settings = open_settings(schema_argument);
    counter seen = {.key = key, .count = 0};
    g_signal_connect(settings, "changed", G_CALLBACK(on_changed), &seen);
    g_variant_unref(g_settings_get_value(settings, key));
    int status = 0;
    GError *error = NULL;
    if (!g_spawn_sync(NULL, command, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error) ||
        !g_spawn_check_wait_status(status, &error)) {
        fprintf(stderr, "settings-probe: %s failed: %s\n", command[0], error->message);
        return 2;
    }
    gint64 deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
    while (seen.count == 0 && g_get_monotonic_time() < deadline) {
        g_main_context_iteration(NULL, FALSE);
        g_usleep(1000);
    }
    if (seen.count > 0) {
        char *value = printed(g_settings_get_value(settings, key));
        printf("notified %s\n", value);
        g_free(value);
    } else {
        printf("missed\n");
    }
    g_object_unref(settings);
    for (int index = 0; index < EARLY_OTHERS; index++) g_object_unref(others[index]);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: settings-probe describe|apply|notify-count|early-change SCHEMA[:PATH] KEY "
                        "[VALUE|COMMAND]...\n");
        return 2;
    }
    if (strcmp(argv[1], "early-change") == 0 && argc >= 5) return early_change(argv[2], argv[3], argv + 4);
    GSettings *settings = open_settings(argv[2]);
    int status = 2;
    if (strcmp(argv[1], "describe") == 0 && argc == 4)
        status = describe(settings, argv[3]);
    else if (strcmp(argv[1], "apply") == 0)
        status = apply(settings, argc - 3, argv + 3);
    else if (strcmp(argv[1], "notify-count") == 0 && argc == 5)
        status = notify_count(settings, argv[3], argv[4]);

    else
        fprintf(stderr, "settings-probe: unknown command or wrong arguments: %s\n", argv[1]);
    g_object_unref(settings);
    return status;
}

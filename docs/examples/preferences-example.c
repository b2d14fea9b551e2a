/* SPDX-License-Identifier: Apache-2.0 */
/* A small libpreferences program: write, read with its source layer, update atomically, and watch a key.
 * Build: cc preferences-example.c $(pkg-config --cflags --libs preferences) -o preferences-example
 * Run:   ./preferences-example com.example.demo   (prefsd must be running; `make run` starts one) */
#include <preferences.h>
#include <stdio.h>
#include <stdlib.h>

static prefs_update_result add_one(const prefs_value *current, prefs_value **replacement, void *context) {
    (void)context;
    *replacement = prefs_value_new_integer(prefs_value_get_integer(current) + 1);
    return PREFS_UPDATE_SET;
}

static void print_change(const prefs_event *event, void *context) {
    (void)context;
    if (prefs_event_get_kind(event) == PREFS_EVENT_CHANGE)
        printf("changed: %s = %lld\n", prefs_event_get_key(event),
               (long long)prefs_value_get_integer(prefs_event_get_new_value(event)));
}

static int fail(prefs_error *error) {
    fprintf(stderr, "preferences-example: %s\n", prefs_error_get_message(error));
    prefs_error_free(error);
    return 1;
}

int main(int argc, char **argv) {
    const char *name = argc > 1 ? argv[1] : "com.example.demo";
    prefs_error *error = NULL;
    prefs_client *client = prefs_client_new(NULL, &error);
    if (client == NULL) return fail(error);
    prefs_domain *domain = prefs_domain_open(client, name, 0, &error);
    if (domain == NULL) return fail(error);

    if (!prefs_domain_set_string(domain, "greeting", "hello", &error)) return fail(error);
    prefs_resolution *resolution = prefs_domain_explain(domain, "greeting", &error);
    if (resolution == NULL) return fail(error);
    printf("greeting = %s (from the %s layer)\n", prefs_value_get_string(prefs_resolution_get_value(resolution)),
           prefs_layer_name(prefs_resolution_get_layer(resolution, 0)));
    prefs_resolution_free(resolution);

    prefs_subscription *subscription = prefs_domain_subscribe(domain, "launches", 0, print_change, NULL, &error);
    if (subscription == NULL) return fail(error);
    if (!prefs_domain_update(domain, "launches", add_one, NULL, &error)) return fail(error);
    /* In a real program the descriptor goes into the program's poll loop or GLib main loop. */
    if (!prefs_subscription_wait(subscription, 2000, &error)) return fail(error);

    prefs_subscription_free(subscription);
    prefs_domain_free(domain);
    prefs_client_free(client);
    return 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* libpreferences against the real prefsd: typed reads and writes, values of every type, batches, explain and the
 * forced layer, and bad input of every kind refused with a clear error. */
#include <math.h>

#include "test-support.h"

static void test_typed_values(prefs_domain *domain) {
    CHECK_OK(prefs_domain_set_boolean(domain, "flag", true, &check_error));
    CHECK_OK(prefs_domain_set_int64(domain, "count", -42, &check_error));
    CHECK_OK(prefs_domain_set_double(domain, "ratio", 0.25, &check_error));
    CHECK_OK(prefs_domain_set_string(domain, "name",
                                     "gr\xc3\xbc\xc3\x9f dich \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80",
                                     &check_error));
    CHECK_OK(prefs_domain_set_data(domain, "blob", "\x00\x01\xff", 3, &check_error));
    CHECK_OK(prefs_domain_set_date(domain, "when", 1700000000.5, &check_error));

    bool flag = false;
    int64_t count = 0;
    double ratio = 0, when = 0;
    char *name = NULL;
    void *blob = NULL;
    size_t blob_length = 0;
    CHECK_OK(prefs_domain_get_boolean(domain, "flag", &flag, &check_error));
    CHECK(flag);
    CHECK_OK(prefs_domain_get_int64(domain, "count", &count, &check_error));
    CHECK(count == -42);
    CHECK_OK(prefs_domain_get_double(domain, "ratio", &ratio, &check_error));
    CHECK(ratio == 0.25);
    CHECK_OK(prefs_domain_get_string(domain, "name", &name, &check_error));
    CHECK(name != NULL && strcmp(name, "gr\xc3\xbc\xc3\x9f dich \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80") == 0);
    free(name);
    CHECK_OK(prefs_domain_get_data(domain, "blob", &blob, &blob_length, &check_error));
    CHECK(blob_length == 3 && memcmp(blob, "\x00\x01\xff", 3) == 0);
    free(blob);
    CHECK_OK(prefs_domain_get_date(domain, "when", &when, &check_error));
    CHECK(fabs(when - 1700000000.5) < 1e-6);
    /* An integer reads as a double, a whole real as an integer. */
    CHECK_OK(prefs_domain_get_double(domain, "count", &ratio, &check_error));
    CHECK(ratio == -42.0);

    CHECK_FAILS(prefs_domain_get_int64(domain, "name", &count, &check_error), PREFS_ERROR_WRONG_TYPE, "not an integer");
    CHECK_FAILS(prefs_domain_get_boolean(domain, "absent", &flag, &check_error), PREFS_ERROR_NOT_FOUND, "absent");

    /* `defaults` sees what the library wrote. */
    char output[512];
    CHECK(test_defaults("read com.example.c count", output, sizeof output) == 0 && strcmp(output, "-42\n") == 0);
    CHECK(test_defaults("write com.example.c fromDefaults -int 7", NULL, 0) == 0);
    CHECK_OK(prefs_domain_get_int64(domain, "fromDefaults", &count, &check_error));
    CHECK(count == 7);
}

static void test_containers(prefs_domain *domain) {
    prefs_value *dictionary = prefs_value_new_dictionary();
    prefs_value *array = prefs_value_new_array();
    CHECK(prefs_value_array_append(array, prefs_value_new_string("one")));
    CHECK(prefs_value_array_append(array, prefs_value_new_integer(2)));
    CHECK(prefs_value_array_append(array, prefs_value_new_unsigned(UINT64_MAX)));
    CHECK(prefs_value_array_append(array, prefs_value_new_integer(INT64_MIN)));
    CHECK(prefs_value_array_append(array, prefs_value_new_real(-1.5e300)));
    CHECK(prefs_value_array_append(array, prefs_value_new_uid(12)));
    CHECK(prefs_value_dictionary_set(dictionary, "list", array));
    CHECK(prefs_value_dictionary_set(dictionary, "\xe3\x82\xad\xe3\x83\xbc", prefs_value_new_boolean(false)));
    CHECK(prefs_value_dictionary_set(dictionary, "empty", prefs_value_new_data(NULL, 0)));
    /* A value in a container cannot go into another, nor a container into itself. */
    CHECK(!prefs_value_array_append(array, array));
    CHECK(!prefs_value_array_append(array, dictionary));
    CHECK_OK(prefs_domain_set_value(domain, "tree", dictionary, &check_error));

    prefs_error *error = NULL;
    prefs_value *read_back = prefs_domain_copy_stored_value(domain, "tree", &error);
    CHECK(read_back != NULL && prefs_value_equal(read_back, dictionary));
    const prefs_value *list = prefs_value_dictionary_get(read_back, "list");
    CHECK(prefs_value_array_count(list) == 6);
    CHECK(prefs_value_is_unsigned(prefs_value_array_get(list, 2)) &&
          prefs_value_get_unsigned(prefs_value_array_get(list, 2)) == UINT64_MAX);
    CHECK(prefs_value_get_integer(prefs_value_array_get(list, 3)) == INT64_MIN);
    prefs_value_free(read_back);
    prefs_error_free(error);
    prefs_value_free(dictionary);

    /* Deeper than prefsd's maxDepth (64): refused before sending, naming the limit. */
    prefs_value *deep = prefs_value_new_array();
    prefs_value *inner = deep;
    for (int level = 0; level < 70; level++) {
        prefs_value *next = prefs_value_new_array();
        prefs_value_array_append(inner, next);
        inner = next;
    }
    CHECK_FAILS(prefs_domain_set_value(domain, "deep", deep, &check_error), PREFS_ERROR_LIMIT_EXCEEDED, "maxDepth");
    prefs_value_free(deep);
    /* A million levels are freed without exhausting the stack. */
    prefs_value *very_deep = prefs_value_new_array();
    inner = very_deep;
    for (int level = 0; level < 1000000; level++) {
        prefs_value *next = prefs_value_new_array();
        prefs_value_array_append(inner, next);
        inner = next;
    }
    CHECK_FAILS(prefs_domain_set_value(domain, "deep", very_deep, &check_error), PREFS_ERROR_LIMIT_EXCEEDED,
                "maxDepth");
    prefs_value_free(very_deep);
}

static void test_batches(prefs_domain *domain) {
    prefs_batch *batch = prefs_batch_new();
    prefs_value *one = prefs_value_new_integer(1);
    CHECK_OK(prefs_batch_set(batch, "a", one, &check_error));
    CHECK_OK(prefs_batch_set(batch, "b", one, &check_error));
    CHECK_OK(prefs_batch_remove(batch, "count", &check_error));
    CHECK_OK(prefs_domain_apply(domain, batch, &check_error));
    prefs_value_free(one);
    prefs_batch_free(batch);
    prefs_error *error = NULL;
    prefs_value *values = prefs_domain_copy_stored_values(domain, &error);
    CHECK(prefs_value_get_integer(prefs_value_dictionary_get(values, "a")) == 1);
    CHECK(prefs_value_get_integer(prefs_value_dictionary_get(values, "b")) == 1);
    CHECK(prefs_value_dictionary_get(values, "count") == NULL);
    prefs_value_free(values);
    prefs_error_free(error);
    CHECK_OK(prefs_domain_remove(domain, "a", &check_error));
    CHECK_OK(prefs_domain_remove(domain, "a", &check_error)); /* absent: still succeeds */
}

static void test_layers(test_daemon *daemon, prefs_client *client) {
    char path[512];
    snprintf(path, sizeof path, "%s/system/forced/com.example.locked.plist", daemon->home);
    test_write_file(path, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict>"
                          "<key>theme</key><string>corporate</string></dict></plist>\n");
    snprintf(path, sizeof path, "%s/system/com.example.locked.plist", daemon->home);
    test_write_file(path, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict>"
                          "<key>size</key><integer>12</integer><key>theme</key><string>plain</string>"
                          "</dict></plist>\n");
    CHECK_OK(prefs_client_synchronize(client, &check_error));
    prefs_domain *domain = prefs_domain_open(client, "com.example.locked", 0, NULL);
    CHECK_OK(prefs_domain_set_string(domain, "theme", "mine", &check_error));
    bool forced = false;
    CHECK_OK(prefs_domain_is_forced(domain, "theme", &forced, &check_error));
    CHECK(forced);
    CHECK_OK(prefs_domain_is_forced(domain, "size", &forced, &check_error));
    CHECK(!forced);

    prefs_error *error = NULL;
    prefs_resolution *resolution = prefs_domain_explain(domain, "theme", &error);
    CHECK(resolution != NULL);
    CHECK(prefs_resolution_is_forced(resolution));
    CHECK(prefs_resolution_count(resolution) == 3);
    CHECK(prefs_resolution_get_layer(resolution, 0) == PREFS_LAYER_FORCED);
    CHECK(strcmp(prefs_value_get_string(prefs_resolution_get_value(resolution)), "corporate") == 0);
    CHECK(prefs_resolution_get_layer(resolution, 1) == PREFS_LAYER_APP);
    CHECK(strcmp(prefs_value_get_string(prefs_resolution_get_layer_value(resolution, 1)), "mine") == 0);
    CHECK(prefs_resolution_get_layer(resolution, 2) == PREFS_LAYER_SYSTEM);
    CHECK(prefs_resolution_get_path(resolution, 2) != NULL &&
          strstr(prefs_resolution_get_path(resolution, 2), "system/com.example.locked.plist") != NULL);
    CHECK(strcmp(prefs_layer_name(prefs_resolution_get_layer(resolution, 2)), "system") == 0);
    prefs_resolution_free(resolution);

    /* The effective value comes from the system layer below an absent user value. */
    int64_t size = 0;
    CHECK_OK(prefs_domain_get_int64(domain, "size", &size, &check_error));
    CHECK(size == 12);
    resolution = prefs_domain_explain(domain, "nothing", &error);
    CHECK(resolution != NULL && prefs_resolution_count(resolution) == 0 &&
          prefs_resolution_get_value(resolution) == NULL);
    prefs_resolution_free(resolution);
    prefs_error_free(error);

    /* A suite is searched after the domain. */
    prefs_domain *suite = prefs_domain_open(client, "com.example.suite", 0, NULL);
    CHECK_OK(prefs_domain_set_string(suite, "shared", "from the suite", &check_error));
    CHECK_OK(prefs_domain_add_suite(domain, "com.example.suite", &check_error));
    char *shared = NULL;
    CHECK_OK(prefs_domain_get_string(domain, "shared", &shared, &check_error));
    CHECK(shared != NULL && strcmp(shared, "from the suite") == 0);
    free(shared);
    prefs_domain_free(suite);

    /* A by-host domain is another file. */
    prefs_domain *by_host = prefs_domain_open(client, "com.example.locked", PREFS_DOMAIN_BY_HOST, NULL);
    CHECK_OK(prefs_domain_set_int64(by_host, "size", 99, &check_error));
    CHECK_OK(prefs_domain_get_int64(domain, "size", &size, &check_error));
    CHECK(size == 99);
    CHECK_OK(prefs_domain_remove_all(by_host, &check_error));
    CHECK_OK(prefs_domain_remove_all(by_host, &check_error));
    prefs_domain_free(by_host);
    prefs_domain_free(domain);
}

static void test_bad_input(test_daemon *daemon, prefs_client *client, prefs_domain *domain) {
    prefs_error *error = NULL;
    CHECK(prefs_domain_open(client, "etc/passwd", 0, &error) == NULL);
    CHECK(prefs_error_get_code(error) == PREFS_ERROR_INVALID_NAME && strstr(prefs_error_get_message(error), "'/'"));
    prefs_error_free(error);
    error = NULL;
    CHECK(prefs_domain_open(client, "", 0, &error) == NULL && prefs_error_get_code(error) == PREFS_ERROR_INVALID_NAME);
    prefs_error_free(error);
    error = NULL;
    CHECK(prefs_domain_open(client, ".hidden", 0, &error) == NULL);
    prefs_error_free(error);
    error = NULL;
    char long_name[300];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    CHECK(prefs_domain_open(client, long_name, 0, &error) == NULL && strstr(prefs_error_get_message(error), "216"));
    prefs_error_free(error);
    error = NULL;
    CHECK(prefs_domain_open(NULL, "com.example", 0, &error) == NULL &&
          prefs_error_get_code(error) == PREFS_ERROR_INVALID_ARGUMENT);
    prefs_error_free(error);
    CHECK(prefs_domain_open(client, NULL, 0, NULL) == NULL);

    CHECK_FAILS(prefs_domain_set_string(domain, "bad", "\xff\xfe", &check_error), PREFS_ERROR_INVALID_ARGUMENT,
                "UTF-8");
    CHECK_FAILS(prefs_domain_set_string(domain, "\xc0\x80", "overlong", &check_error), PREFS_ERROR_INVALID_ARGUMENT,
                "UTF-8");
    CHECK_FAILS(prefs_domain_set_string(domain, NULL, "x", &check_error), PREFS_ERROR_INVALID_ARGUMENT, "NULL");
    CHECK_FAILS(prefs_domain_set_string(domain, "k", NULL, &check_error), PREFS_ERROR_INVALID_ARGUMENT, "NULL");
    CHECK_FAILS(prefs_domain_set_value(domain, "k", NULL, &check_error), PREFS_ERROR_INVALID_ARGUMENT, "NULL");
    CHECK_FAILS(prefs_domain_set_date(domain, "k", NAN, &check_error), PREFS_ERROR_INVALID_ARGUMENT, "finite");
    CHECK(prefs_value_new_string("\xed\xa0\x80") == NULL); /* a surrogate */
    CHECK(prefs_value_new_string(NULL) == NULL);
    char long_key[2000];
    memset(long_key, 'k', sizeof long_key - 1);
    long_key[sizeof long_key - 1] = '\0';
    CHECK_FAILS(prefs_domain_set_int64(domain, long_key, 1, &check_error), PREFS_ERROR_LIMIT_EXCEEDED, "maxKeyBytes");
    CHECK_FAILS(prefs_domain_get_int64(domain, "count", NULL, &check_error), PREFS_ERROR_INVALID_ARGUMENT, "NULL");
    CHECK_FAILS(prefs_client_synchronize(NULL, &check_error), PREFS_ERROR_INVALID_ARGUMENT, "NULL");
    /* Accessors of NULL and of the wrong type answer 0 or NULL. */
    CHECK(prefs_value_get_string(NULL) == NULL && prefs_value_array_count(NULL) == 0);
    prefs_value *number = prefs_value_new_integer(3);
    CHECK(prefs_value_get_string(number) == NULL && prefs_value_dictionary_get(number, "x") == NULL);
    prefs_value_free(number);
    prefs_error_free(NULL);
    prefs_value_free(NULL);

    /* A corrupt file is reported with its path; a write sets it aside. */
    char path[512];
    snprintf(path, sizeof path, "%s/com.example.corrupt.plist", daemon->preferences);
    test_write_file(path, "<?xml version=\"1.0\"?><plist><dict><key>a</key>");
    CHECK_OK(prefs_client_synchronize(client, &check_error));
    prefs_domain *corrupt = prefs_domain_open(client, "com.example.corrupt", 0, NULL);
    error = NULL;
    CHECK(prefs_domain_copy_stored_value(corrupt, "a", &error) == NULL);
    CHECK(prefs_error_get_code(error) == PREFS_ERROR_CORRUPT_DOMAIN);
    CHECK(prefs_error_get_path(error) != NULL && strstr(prefs_error_get_path(error), "com.example.corrupt.plist"));
    CHECK(prefs_error_get_protocol_code(error) != NULL &&
          strcmp(prefs_error_get_protocol_code(error), "corruptDomain") == 0);
    prefs_error_free(error);
    CHECK_OK(prefs_domain_set_int64(corrupt, "a", 1, &check_error));
    int64_t a = 0;
    CHECK_OK(prefs_domain_get_int64(corrupt, "a", &a, &check_error));
    CHECK(a == 1);
    prefs_domain_free(corrupt);

    /* No prefsd on a socket: the error names it. */
    error = NULL;
    CHECK(prefs_client_new("/nonexistent/prefsd.socket", &error) == NULL);
    CHECK(prefs_error_get_code(error) == PREFS_ERROR_DAEMON_UNAVAILABLE &&
          strstr(prefs_error_get_message(error), "/nonexistent/prefsd.socket"));
    prefs_error_free(error);
}

/* A prefsd restart between two requests of one client: the next request connects again. */
static void test_restart(test_daemon *daemon, prefs_client *client, prefs_domain *domain) {
    CHECK_OK(prefs_domain_set_int64(domain, "beforeRestart", 1, &check_error));
    test_daemon_stop(daemon, SIGTERM);
    test_daemon_start(daemon);
    int64_t value = 0;
    CHECK_OK(prefs_domain_get_int64(domain, "beforeRestart", &value, &check_error));
    CHECK(value == 1);
    test_daemon_stop(daemon, SIGKILL);
    CHECK_FAILS(prefs_domain_set_int64(domain, "whileDown", 1, &check_error), PREFS_ERROR_DAEMON_UNAVAILABLE,
                daemon->socket_path);
    test_daemon_start(daemon);
    CHECK_OK(prefs_domain_set_int64(domain, "afterRestart", 2, &check_error));
    CHECK_OK(prefs_client_synchronize(client, &check_error));
}

int main(void) {
    test_daemon daemon;
    test_daemon_make(&daemon);
    prefs_error *error = NULL;
    prefs_client *client = prefs_client_new(NULL, &error); /* the socket from $PREFSD_SOCKET */
    if (client == NULL) {
        fprintf(stderr, "cannot connect: %s\n", prefs_error_get_message(error));
        return 1;
    }
    CHECK(strcmp(prefs_client_get_socket_path(client), daemon.socket_path) == 0);
    CHECK(strcmp(prefs_version(), "1.0.0") == 0);
    prefs_domain *domain = prefs_domain_open(client, "com.example.c", 0, &error);
    test_typed_values(domain);
    test_containers(domain);
    test_batches(domain);
    test_layers(&daemon, client);
    test_bad_input(&daemon, client, domain);
    test_restart(&daemon, client, domain);
    prefs_domain_free(domain);
    prefs_client_free(client);
    test_daemon_remove(&daemon);
    return test_finish("test-client");
}

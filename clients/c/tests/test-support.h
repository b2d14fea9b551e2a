/* SPDX-License-Identifier: Apache-2.0 */
/* What the C tests share: checks that report the line and go on, and the real prefsd of a build, started in a
 * temporary home on a temporary socket (PREFSD_BIN_DIR names the directory holding prefsd and defaults). */
#ifndef PREFS_TEST_SUPPORT_H
#define PREFS_TEST_SUPPORT_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "preferences.h"

static int test_failures = 0;

#define CHECK(condition)                                                                                           \
    do {                                                                                                           \
        if (!(condition)) {                                                                                        \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #condition);                          \
            test_failures++;                                                                                       \
        }                                                                                                          \
    } while (0)

/* A call that must succeed: prints the library's error when it does not. */
#define CHECK_OK(call)                                                                                             \
    do {                                                                                                           \
        prefs_error *check_error = NULL;                                                                           \
        if (!(call)) {                                                                                             \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                                   \
                    check_error != NULL ? prefs_error_get_message(check_error) : "(no error)");                    \
            test_failures++;                                                                                       \
        }                                                                                                          \
        prefs_error_free(check_error);                                                                             \
    } while (0)

/* A call that must fail with `expected_code`, and whose message must contain `expected_text`. */
#define CHECK_FAILS(call, expected_code, expected_text)                                                            \
    do {                                                                                                           \
        prefs_error *check_error = NULL;                                                                           \
        if (call) {                                                                                                \
            fprintf(stderr, "%s:%d: %s succeeded; expected code %d\n", __FILE__, __LINE__, #call, expected_code);  \
            test_failures++;                                                                                       \
        } else if (prefs_error_get_code(check_error) != (expected_code) ||                                         \
                   strstr(prefs_error_get_message(check_error), expected_text) == NULL) {                          \
            fprintf(stderr, "%s:%d: %s failed with code %d, '%s'; expected code %d and '%s'\n", __FILE__,          \
                    __LINE__, #call, prefs_error_get_code(check_error), prefs_error_get_message(check_error),      \
                    expected_code, expected_text);                                                                 \
            test_failures++;                                                                                       \
        }                                                                                                          \
        prefs_error_free(check_error);                                                                             \
    } while (0)

static inline int test_finish(const char *name) {
    if (test_failures == 0) {
        printf("%s: passed\n", name);
        return 0;
    }
    printf("%s: %d checks failed\n", name, test_failures);
    return 1;
}

typedef struct test_daemon {
    char home[256];
    char preferences[320];
    char socket_path[320];
    char log_path[320];
    pid_t pid;
} test_daemon;

static inline void test_write_file(const char *path, const char *text) {
    FILE *file = fopen(path, "w");
    if (file == NULL) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        exit(2);
    }
    fputs(text, file);
    fclose(file);
}

static inline const char *test_bin_dir(void) {
    const char *bin_dir = getenv("PREFSD_BIN_DIR");
    if (bin_dir == NULL) {
        fprintf(stderr, "PREFSD_BIN_DIR must name the directory of the built prefsd and defaults\n");
        exit(2);
    }
    return bin_dir;
}

static inline bool test_socket_accepts(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path) return false;
    memcpy(address.sun_path, path, strlen(path) + 1);
    bool accepted = connect(fd, (struct sockaddr *)&address, sizeof address) == 0;
    close(fd);
    return accepted;
}

/* Starts prefsd and returns once its socket accepts connections. The environment it is given is also the test's,
 * so that `defaults` run by a test sees the same home. */
static inline void test_daemon_start(test_daemon *daemon) {
    char command[700];
    snprintf(command, sizeof command, "%s/prefsd", test_bin_dir());
    daemon->pid = fork();
    if (daemon->pid == 0) {
        int log = open(daemon->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        dup2(log, 1);
        dup2(log, 2);
        execl(command, "prefsd", (char *)NULL);
        _exit(127);
    }
    for (int attempt = 0; attempt < 1000; attempt++) {
        if (test_socket_accepts(daemon->socket_path)) return;
        int status;
        if (waitpid(daemon->pid, &status, WNOHANG) == daemon->pid) {
            fprintf(stderr, "prefsd exited (status %d); its log is %s\n", status, daemon->log_path);
            exit(2);
        }
        usleep(10000);
    }
    fprintf(stderr, "prefsd did not listen on %s within 10 s\n", daemon->socket_path);
    exit(2);
}

static inline void test_daemon_make(test_daemon *daemon) {
    snprintf(daemon->home, sizeof daemon->home, "%s/prefs-c-test.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(daemon->home) == NULL) {
        fprintf(stderr, "cannot make a temporary directory: %s\n", strerror(errno));
        exit(2);
    }
    char path[400];
    snprintf(daemon->preferences, sizeof daemon->preferences, "%s/preferences", daemon->home);
    mkdir(daemon->preferences, 0700);
    snprintf(path, sizeof path, "%s/system", daemon->home);
    mkdir(path, 0755);
    setenv("PREFERENCES_SYSTEM_DIR", path, 1);
    snprintf(path, sizeof path, "%s/system/forced", daemon->home);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/runtime", daemon->home);
    mkdir(path, 0700);
    setenv("XDG_RUNTIME_DIR", path, 1);
    snprintf(path, sizeof path, "%s/config", daemon->home);
    setenv("XDG_CONFIG_HOME", path, 1);
    setenv("HOME", daemon->home, 1);
    setenv("PREFERENCES_HOME", daemon->preferences, 1);
    setenv("PREFERENCES_DAEMON", "on", 1);
    if (getenv("PREFSD_REPOSITORY") != NULL) {
        snprintf(path, sizeof path, "%s/Domains", getenv("PREFSD_REPOSITORY"));
        setenv("PREFERENCES_DOMAINS_DIR", path, 1);
    }
    snprintf(daemon->socket_path, sizeof daemon->socket_path, "%s/runtime/socket", daemon->home);
    setenv("PREFSD_SOCKET", daemon->socket_path, 1);
    snprintf(daemon->log_path, sizeof daemon->log_path, "%s/prefsd.log", daemon->home);
    unsetenv("LISTEN_FDS");
    unsetenv("LISTEN_PID");
    unsetenv("NOTIFY_SOCKET");
    test_daemon_start(daemon);
}

/* SIGTERM (prefsd flushes and exits) or SIGKILL, and reaps it. */
static inline void test_daemon_stop(test_daemon *daemon, int signal_number) {
    if (daemon->pid <= 0) return;
    kill(daemon->pid, signal_number);
    int status;
    waitpid(daemon->pid, &status, 0);
    daemon->pid = 0;
}

static inline void test_daemon_remove(test_daemon *daemon) {
    test_daemon_stop(daemon, SIGKILL);
    char command[400];
    snprintf(command, sizeof command, "rm -rf '%s'", daemon->home);
    if (test_failures == 0 && system(command) != 0) fprintf(stderr, "could not remove %s\n", daemon->home);
}

/* Runs the built `defaults` with `arguments` (a shell word list) and returns its exit status; its stdout goes to
 * `output` when not NULL. */
static inline int test_defaults(const char *arguments, char *output, size_t size) {
    char command[1200];
    snprintf(command, sizeof command, "'%s/defaults' %s 2>&1", test_bin_dir(), arguments);
    FILE *pipe = popen(command, "r");
    if (pipe == NULL) return -1;
    size_t length = 0;
    char buffer[512];
    size_t got;
    while ((got = fread(buffer, 1, sizeof buffer, pipe)) > 0) {
        if (output != NULL && length + got < size) {
            memcpy(output + length, buffer, got);
            length += got;
        }
    }
    if (output != NULL) output[length < size ? length : size - 1] = '\0';
    int status = pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static inline double test_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

#endif

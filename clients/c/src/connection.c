/* SPDX-License-Identifier: Apache-2.0 */
/* One connection to prefsd: connect and say hello, frames out and in (a 4-byte big-endian length, then a binary
 * property list), a request matched with its reply. Every system call retries EINTR and reads errno at once. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "internal.h"

/* How long a request may wait for its reply before the connection is given up: prefsd answers in microseconds,
 * and a synchronize waits for the disk, but a peer that stopped answering must not hang the caller. */
#define PREFS_REPLY_TIMEOUT_MS 60000
#define PREFS_DEFAULT_MAX_FRAME_BYTES (16u << 20)
#define PREFS_DEFAULT_MAX_DEPTH 64
#define PREFS_DEFAULT_MAX_KEY_BYTES 1024
#define PREFS_MAX_FRAME_OBJECTS (1u << 20)

char *prefs_default_socket_path(void) {
    const char *explicit_path = getenv("PREFSD_SOCKET");
    char buffer[sizeof(((struct sockaddr_un *)0)->sun_path) + 64];
    if (explicit_path != NULL && explicit_path[0] != '\0') {
        snprintf(buffer, sizeof buffer, "%s", explicit_path);
    } else {
        const char *runtime = getenv("XDG_RUNTIME_DIR");
        struct stat status;
        char user_run[64];
        snprintf(user_run, sizeof user_run, "/run/user/%u", (unsigned)getuid());
        if (runtime != NULL && runtime[0] != '\0')
            snprintf(buffer, sizeof buffer, "%s/prefsd/socket", runtime);
        else if (stat(user_run, &status) == 0 && S_ISDIR(status.st_mode))
            snprintf(buffer, sizeof buffer, "%s/prefsd/socket", user_run);
        else
            snprintf(buffer, sizeof buffer, "/tmp/prefsd-%u/socket", (unsigned)getuid());
    }
    return strdup(buffer);
}

static bool send_all(prefs_connection *connection, const uint8_t *bytes, size_t length, prefs_error **error) {
    while (length > 0) {
        ssize_t sent = send(connection->fd, bytes, length, MSG_NOSIGNAL);
        if (sent < 0) {
            int number = errno;
            if (number == EINTR) continue;
            prefs_connection_close(connection);
            return prefs_fail_errno(error, PREFS_ERROR_DAEMON_UNAVAILABLE, number, "cannot send to prefsd at %s",
                                    connection->socket_path);
        }
        bytes += sent;
        length -= (size_t)sent;
    }
    return true;
}

bool prefs_connection_send(prefs_connection *connection, const prefs_value *message, prefs_error **error) {
    if (connection->fd < 0)
        return prefs_fail(error, PREFS_ERROR_DAEMON_UNAVAILABLE, "the connection to prefsd at %s is closed",
                          connection->socket_path);
    uint8_t *payload;
    size_t length;
    if (!prefs_bplist_encode(message, &payload, &length, error)) return false;
    if (length > connection->max_frame_bytes) {
        free(payload);
        return prefs_fail(error, PREFS_ERROR_LIMIT_EXCEEDED,
                          "the request is %zu bytes, over prefsd's limit maxFrameBytes (%zu)", length,
                          connection->max_frame_bytes);
    }
    /* The length and the payload in one write: one wake-up of prefsd per request. */
    uint8_t *frame = realloc(payload, length + 4);
    if (frame == NULL) {
        free(payload);
        return prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory sending a request");
    }
    memmove(frame + 4, frame, length);
    frame[0] = (uint8_t)(length >> 24);
    frame[1] = (uint8_t)(length >> 16);
    frame[2] = (uint8_t)(length >> 8);
    frame[3] = (uint8_t)length;
    bool ok = send_all(connection, frame, length + 4, error);
    free(frame);
    return ok;
}

/* A whole frame in the buffer, decoded and removed from it; NULL with no error when there is none yet. */
static prefs_value *take_frame(prefs_connection *connection, bool *complete, prefs_error **error) {
    *complete = false;
    if (connection->buffered < 4) return NULL;
    const uint8_t *bytes = connection->buffer;
    size_t length = ((size_t)bytes[0] << 24) | ((size_t)bytes[1] << 16) | ((size_t)bytes[2] << 8) | bytes[3];
    if (length == 0 || length > connection->max_frame_bytes) {
        prefs_connection_close(connection);
        prefs_fail(error, PREFS_ERROR_PROTOCOL, "prefsd sent a frame of %zu bytes (the limit is %zu)", length,
                   connection->max_frame_bytes);
        *complete = true;
        return NULL;
    }
    if (connection->buffered - 4 < length) return NULL;
    *complete = true;
    prefs_bplist_limits limits = {.max_objects = PREFS_MAX_FRAME_OBJECTS, .max_depth = connection->max_depth + 3};
    prefs_value *message = prefs_bplist_decode(bytes + 4, length, &limits, error);
    memmove(connection->buffer, bytes + 4 + length, connection->buffered - 4 - length);
    connection->buffered -= 4 + length;
    if (message != NULL && message->type != PREFS_TYPE_DICTIONARY) {
        prefs_value_free(message);
        prefs_fail(error, PREFS_ERROR_PROTOCOL, "prefsd sent a message that is not a dictionary");
        message = NULL;
    }
    if (message == NULL) prefs_connection_close(connection);
    return message;
}

prefs_value *prefs_connection_receive(prefs_connection *connection, bool blocking, bool *would_block,
                                      prefs_error **error) {
    if (would_block != NULL) *would_block = false;
    for (;;) {
        bool complete;
        prefs_value *message = take_frame(connection, &complete, error);
        if (complete) return message;
        if (connection->fd < 0) {
            prefs_fail(error, PREFS_ERROR_DAEMON_UNAVAILABLE, "the connection to prefsd at %s is closed",
                       connection->socket_path);
            return NULL;
        }
        if (blocking) {
            struct pollfd poller = {.fd = connection->fd, .events = POLLIN};
            int ready = poll(&poller, 1, PREFS_REPLY_TIMEOUT_MS);
            if (ready < 0 && errno == EINTR) continue;
            if (ready == 0) {
                prefs_connection_close(connection);
                prefs_fail(error, PREFS_ERROR_DAEMON_UNAVAILABLE, "prefsd at %s did not answer within %d s",
                           connection->socket_path, PREFS_REPLY_TIMEOUT_MS / 1000);
                return NULL;
            }
        }
        if (connection->capacity - connection->buffered < 65536) {
            size_t grown = connection->capacity == 0 ? 65536 : connection->capacity * 2;
            uint8_t *larger = realloc(connection->buffer, grown);
            if (larger == NULL) {
                prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory reading from prefsd");
                return NULL;
            }
            connection->buffer = larger;
            connection->capacity = grown;
        }
        ssize_t received = recv(connection->fd, connection->buffer + connection->buffered,
                                connection->capacity - connection->buffered, MSG_DONTWAIT);
        if (received < 0) {
            int number = errno;
            if (number == EINTR) continue;
            if (number == EAGAIN || number == EWOULDBLOCK) {
                if (blocking) continue;
                if (would_block != NULL) *would_block = true;
                return NULL;
            }
            prefs_connection_close(connection);
            prefs_fail_errno(error, PREFS_ERROR_DAEMON_UNAVAILABLE, number, "cannot read from prefsd at %s",
                             connection->socket_path);
            return NULL;
        }
        if (received == 0) {
            bool partial = connection->buffered > 0;
            prefs_connection_close(connection);
            prefs_fail(error, PREFS_ERROR_DAEMON_UNAVAILABLE, "prefsd at %s closed the connection%s",
                       connection->socket_path, partial ? " in the middle of a frame" : "");
            return NULL;
        }
        connection->buffered += (size_t)received;
    }
}

/* A `closing` event: the reason prefsd gives, as the error of whatever was waiting. */
static void fail_closing(prefs_connection *connection, const prefs_value *event, prefs_error **error) {
    const prefs_value *reason = prefs_value_dictionary_get(event, "error");
    const char *code = prefs_value_get_string(prefs_value_dictionary_get(reason, "code"));
    prefs_connection_close(connection);
    if (code != NULL && (strcmp(code, "shuttingDown") == 0 || strcmp(code, "timedOut") == 0)) {
        const char *message = prefs_value_get_string(prefs_value_dictionary_get(reason, "message"));
        prefs_fail(error, PREFS_ERROR_DAEMON_UNAVAILABLE, "prefsd closed the connection: %s",
                   message != NULL ? message : code);
    } else if (reason != NULL) {
        prefs_fail_with_reply(error, reason);
    } else {
        prefs_fail(error, PREFS_ERROR_PROTOCOL, "prefsd closed the connection without a reason");
    }
}

static size_t limit_of(const prefs_value *limits, const char *name, size_t fallback);
static prefs_value *await_reply(prefs_connection *connection, uint64_t id,
                                void (*on_event)(prefs_value *event, void *context), void *context,
                                prefs_error **error);

/* The reply to the `hello` sent when the connection was made, read before the first request's: its limits. */
static bool finish_hello(prefs_connection *connection, prefs_error **error) {
    connection->hello_pending = false;
    prefs_value *reply = await_reply(connection, connection->hello_id, NULL, NULL, error);
    if (reply == NULL) {
        prefs_connection_close(connection);
        return false;
    }
    const prefs_value *limits = prefs_value_dictionary_get(reply, "limits");
    connection->max_frame_bytes = limit_of(limits, "maxFrameBytes", PREFS_DEFAULT_MAX_FRAME_BYTES);
    connection->max_depth = limit_of(limits, "maxDepth", PREFS_DEFAULT_MAX_DEPTH);
    connection->max_key_bytes = limit_of(limits, "maxKeyBytes", PREFS_DEFAULT_MAX_KEY_BYTES);
    prefs_value_free(reply);
    return true;
}

prefs_value *prefs_connection_call(prefs_connection *connection, prefs_value *request,
                                   void (*on_event)(prefs_value *event, void *context), void *context,
                                   prefs_error **error) {
    uint64_t id = connection->next_id++;
    prefs_value *id_value = prefs_value_new_unsigned(id);
    if (id_value == NULL || !prefs_value_dictionary_set(request, "id", id_value)) {
        prefs_value_free(id_value);
        prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory making a request");
        return NULL;
    }
    if (!prefs_connection_send(connection, request, error)) return NULL;
    /* The request went out behind the hello (pipelining, docs/PROTOCOL.md): one round trip for both. */
    if (connection->hello_pending && !finish_hello(connection, error)) return NULL;
    return await_reply(connection, id, on_event, context, error);
}

/* Reads until the reply to request `id`; events before it go to `on_event`. */
static prefs_value *await_reply(prefs_connection *connection, uint64_t id,
                                void (*on_event)(prefs_value *event, void *context), void *context,
                                prefs_error **error) {
    for (;;) {
        prefs_value *message = prefs_connection_receive(connection, true, NULL, error);
        if (message == NULL) return NULL;
        const prefs_value *event = prefs_value_dictionary_get(message, "event");
        if (event != NULL) {
            if (prefs_value_get_type(event) == PREFS_TYPE_STRING &&
                strcmp(prefs_value_get_string(event), "closing") == 0) {
                fail_closing(connection, message, error);
                prefs_value_free(message);
                return NULL;
            }
            if (on_event != NULL)
                on_event(message, context);
            else
                prefs_value_free(message);
            continue;
        }
        const prefs_value *reply_id = prefs_value_dictionary_get(message, "id");
        if (prefs_value_get_type(reply_id) != PREFS_TYPE_INTEGER || prefs_value_get_unsigned(reply_id) != id) {
            prefs_value_free(message);
            prefs_connection_close(connection);
            prefs_fail(error, PREFS_ERROR_PROTOCOL, "prefsd answered a request it was not sent");
            return NULL;
        }
        const prefs_value *failure = prefs_value_dictionary_get(message, "error");
        if (failure != NULL) {
            if (prefs_value_get_type(failure) == PREFS_TYPE_DICTIONARY)
                prefs_fail_with_reply(error, failure);
            else
                prefs_fail(error, PREFS_ERROR_PROTOCOL, "prefsd sent an error that is not a dictionary");
            prefs_value_free(message);
            return NULL;
        }
        return message;
    }
}

static bool set_string(prefs_value *dictionary, const char *key, const char *text) {
    prefs_value *value = prefs_value_new_string(text);
    if (value == NULL || !prefs_value_dictionary_set(dictionary, key, value)) {
        prefs_value_free(value);
        return false;
    }
    return true;
}

prefs_value *prefs_request_new(const char *op) {
    prefs_value *request = prefs_value_new_dictionary();
    if (request != NULL && !set_string(request, "op", op)) {
        prefs_value_free(request);
        return NULL;
    }
    return request;
}

static size_t limit_of(const prefs_value *limits, const char *name, size_t fallback) {
    const prefs_value *value = prefs_value_dictionary_get(limits, name);
    if (prefs_value_get_type(value) != PREFS_TYPE_INTEGER || prefs_value_is_unsigned(value)) return fallback;
    int64_t number = prefs_value_get_integer(value);
    return number > 0 ? (size_t)number : fallback;
}

bool prefs_connection_open(prefs_connection *connection, const char *socket_path, prefs_error **error) {
    memset(connection, 0, sizeof *connection);
    connection->fd = -1;
    connection->max_frame_bytes = PREFS_DEFAULT_MAX_FRAME_BYTES;
    connection->max_depth = PREFS_DEFAULT_MAX_DEPTH;
    connection->max_key_bytes = PREFS_DEFAULT_MAX_KEY_BYTES;
    connection->next_id = 1;
    size_t path_length = strlen(socket_path);
    connection->socket_path = strdup(socket_path);
    if (connection->socket_path == NULL) return prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory");
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (path_length >= sizeof address.sun_path) {
        prefs_fail(error, PREFS_ERROR_INVALID_ARGUMENT, "the socket path %s is longer than %zu bytes", socket_path,
                   sizeof address.sun_path - 1);
        prefs_connection_release(connection);
        return false;
    }
    memcpy(address.sun_path, socket_path, path_length + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        int number = errno;
        prefs_connection_release(connection);
        return prefs_fail_errno(error, PREFS_ERROR_DAEMON_UNAVAILABLE, number, "cannot make a socket");
    }
    int status;
    do status = connect(fd, (struct sockaddr *)&address, sizeof address);
    while (status < 0 && errno == EINTR);
    if (status < 0) {
        int number = errno;
        close(fd);
        prefs_fail_errno(error, PREFS_ERROR_DAEMON_UNAVAILABLE, number, "cannot connect to prefsd at %s",
                         socket_path);
        prefs_connection_release(connection);
        return false;
    }
    connection->fd = fd;
    /* The hello is sent now and its reply read with the first request's (finish_hello), which keeps the defaults'
     * limits for that request's own checks; prefsd checks its limits itself. */
    prefs_value *hello = prefs_request_new("hello");
    prefs_value *version = prefs_value_new_integer(1);
    prefs_value *id = prefs_value_new_unsigned(connection->next_id);
    bool made = hello != NULL && version != NULL && id != NULL && prefs_value_dictionary_set(hello, "version", version);
    if (made) version = NULL;
    made = made && prefs_value_dictionary_set(hello, "id", id);
    if (made) id = NULL;
    made = made && set_string(hello, "client", "libpreferences " "1.0.0");
    prefs_value_free(version);
    prefs_value_free(id);
    if (!made) {
        prefs_value_free(hello);
        prefs_connection_release(connection);
        return prefs_fail(error, PREFS_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    connection->hello_id = connection->next_id++;
    bool sent = prefs_connection_send(connection, hello, error);
    prefs_value_free(hello);
    if (!sent) {
        prefs_connection_release(connection);
        return false;
    }
    connection->hello_pending = true;
    return true;
}

void prefs_connection_close(prefs_connection *connection) {
    if (connection->fd >= 0) close(connection->fd);
    connection->fd = -1;
    connection->buffered = 0;
    connection->hello_pending = false;
}

void prefs_connection_release(prefs_connection *connection) {
    prefs_connection_close(connection);
    free(connection->buffer);
    free(connection->socket_path);
    connection->buffer = NULL;
    connection->socket_path = NULL;
    connection->capacity = 0;
}

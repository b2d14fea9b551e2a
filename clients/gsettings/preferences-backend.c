/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The GSettings backend "preferences": GSettings values kept by prefsd, read and written through libpreferences
 * (docs/GSETTINGS.md). A GIO module implementing the gsettings-backend extension point, chosen with
 * GSETTINGS_BACKEND=preferences; its priority is below dconf's, so it is never the default by accident.
 *
 * Reads and writes are requests on one prefs_client, made when first needed. Change notification is one
 * subscription per subscribed path, made and dispatched on a thread of the backend's own (as dconf's engine receives
 * its signals on GDBus's worker thread), so that notifications arrive whatever main context the program iterates;
 * g_settings_backend_changed() hands each one to the main context of the GSettings objects concerned.
 *
 * A subscription is made asynchronously, as dconf's watch_fast() makes its match rule, so that a program making
 * GSettings objects at start-up does not wait for one subscription round trip per path. What the program reads of a
 * path before its subscription exists is remembered and compared with the subscription's first snapshot: a key that
 * changed in between is notified then (dconf compares its state counter for the same purpose).
 */
#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gio.h>
#include <gio/gsettingsbackend.h>
#include <glib-unix.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "gvariant-mapping.h"
#include "preferences.h"

#define EXTENSION_NAME "preferences"
#define EXTENSION_PRIORITY 50 /* dconf's is 100 */
#define RETRY_SECONDS 1
/* Writes of one key whose echo has not arrived; the oldest are forgotten beyond this (a write that changed nothing
 * has no echo). */
#define MAX_PENDING_ECHOES 64
/* Distinct warnings remembered so that each is given once; beyond this they are given every time. */
#define MAX_REMEMBERED_WARNINGS 1024

typedef GSettingsBackendClass PreferencesSettingsBackendClass;

typedef struct watch watch;

typedef struct {
    GSettingsBackend parent;
    GMutex lock;          /* guards every field below */
    prefs_client *client; /* made when first needed; NULL until prefsd answers */
    gboolean unreachable; /* the outage is reported; cleared when prefsd answers again */
    GHashTable *warned;   /* warnings given, so that a key read in a loop warns once */
    GHashTable *watches;  /* the name GSettings subscribed (a path, or a key) -> watch */
    GHashTable *echoes;   /* "domain\nkey" -> GQueue of echo: this process's writes not yet seen as events */
    GMainContext *context; /* the notification thread's; NULL until the first subscription */
    GMainLoop *loop;
    GThread *thread;
    GSource *retry; /* a timer while some watch waits for prefsd */
    /* One connection for every watch (libpreferences' watcher), and its descriptor's source: made, dispatched and
     * freed on the notification thread only. */
    prefs_watcher *watcher;
    GSource *watcher_source;
} PreferencesSettingsBackend;

/*
 * One subscribed name. It is subscribed, dispatched and freed on the notification thread only, so that the watcher
 * and its subscriptions are never used by two threads; the other fields are guarded by the backend's lock.
 */
struct watch {
    PreferencesSettingsBackend *backend;
    char *name;   /* "/org/gnome/desktop/interface/", or a key */
    char *domain; /* "org.gnome.desktop.interface" */
    char *key;    /* NULL: every key of the domain */
    guint references;     /* subscribe() calls not yet undone */
    gboolean connecting;  /* the notification thread is to subscribe it, or is subscribing it */
    gboolean established; /* subscribed, and the reads made before compared with its snapshot */
    GHashTable *seen;     /* until established: key -> the effective value a read gave (a prefs_value, or NULL) */
    prefs_subscription *subscription; /* on the backend's watcher; NULL until subscribed, and while prefsd cannot
                                       * be reached */
};

/* A write of this process: the value written (NULL: a removal, whose effective value is unknown). */
typedef struct {
    prefs_value *value;
} echo;

static GType preferences_settings_backend_get_type(void);
G_DEFINE_TYPE(PreferencesSettingsBackend, preferences_settings_backend, G_TYPE_SETTINGS_BACKEND)

#define BACKEND(object) ((PreferencesSettingsBackend *)(object))

/* ---- Reporting ------------------------------------------------------------------------------------------------ */

static void warn_once(PreferencesSettingsBackend *self, const char *format, ...) G_GNUC_PRINTF(2, 3);

static void warn_once(PreferencesSettingsBackend *self, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    char *message = g_strdup_vprintf(format, arguments);
    va_end(arguments);
    g_mutex_lock(&self->lock);
    gboolean first = !g_hash_table_contains(self->warned, message);
    if (first && g_hash_table_size(self->warned) < MAX_REMEMBERED_WARNINGS)
        g_hash_table_add(self->warned, g_strdup(message));
    g_mutex_unlock(&self->lock);
    if (first) g_warning("%s", message);
    g_free(message);
}

/* A failed request: an outage is reported once until prefsd answers again, anything else once per message. */
static void note_failure(PreferencesSettingsBackend *self, const char *action, const char *name,
                         const prefs_error *error) {
    const char *message = error != NULL ? prefs_error_get_message(error) : "unknown error";
    if (prefs_error_get_code(error) == PREFS_ERROR_DAEMON_UNAVAILABLE) {
        g_mutex_lock(&self->lock);
        gboolean first = !self->unreachable;
        self->unreachable = TRUE;
        g_mutex_unlock(&self->lock);
        if (first)
            g_warning("prefsd cannot be reached (%s): GSettings keys read as their schemas' defaults and cannot be "
                      "written until it answers",
                      message);
        return;
    }
    warn_once(self, "%s %s: %s", action, name, message);
}

static void note_success(PreferencesSettingsBackend *self) {
    g_mutex_lock(&self->lock);
    self->unreachable = FALSE;
    g_mutex_unlock(&self->lock);
}

/* ---- Keys and domains ----------------------------------------------------------------------------------------- */

static prefs_client *get_client(PreferencesSettingsBackend *self) {
    g_mutex_lock(&self->lock);
    prefs_client *client = self->client;
    prefs_error *error = NULL;
    if (client == NULL) client = self->client = prefs_client_new(NULL, &error);
    g_mutex_unlock(&self->lock);
    if (client == NULL) note_failure(self, "connecting to", "prefsd", error);
    prefs_error_free(error);
    return client;
}

/* A GSettings key resolved to its domain, opened on the client. */
typedef struct {
    char *domain_name;
    char *key;
    prefs_domain *domain;
} key_target;

static void target_clear(key_target *target) {
    prefs_domain_free(target->domain);
    g_free(target->domain_name);
    g_free(target->key);
    memset(target, 0, sizeof *target);
}

/* False (warned) for a path that names no domain, or when prefsd cannot be reached. */
static gboolean target_open(PreferencesSettingsBackend *self, const char *path, key_target *target) {
    memset(target, 0, sizeof *target);
    GError *invalid = NULL;
    if (!pgs_split_key(path, &target->domain_name, &target->key, &invalid)) {
        warn_once(self, "key %s is not stored in Preferences, so it reads as its default and cannot be written: %s",
                  path, invalid->message);
        g_error_free(invalid);
        return FALSE;
    }
    prefs_client *client = get_client(self);
    prefs_error *error = NULL;
    if (client != NULL) target->domain = prefs_domain_open(client, target->domain_name, 0, &error);
    if (client != NULL && target->domain == NULL) note_failure(self, "opening the domain of", path, error);
    prefs_error_free(error);
    if (target->domain == NULL) {
        target_clear(target);
        return FALSE;
    }
    return TRUE;
}

/*
 * The entry of `resolution` a GSettings read takes: the first that belongs to the key's own domain, skipping the
 * user's own layer for a default value. Layers of other domains (the global domain) are left out: a GSettings key
 * belongs to its schema, and a key of NSGlobalDomain must not appear in every schema that has a key of that name.
 */
static ssize_t own_entry(const prefs_resolution *resolution, const char *domain, gboolean default_value) {
    for (size_t index = 0; index < prefs_resolution_count(resolution); index++) {
        const char *source = prefs_resolution_get_domain(resolution, index);
        if (source == NULL || strcmp(source, domain) != 0) continue;
        prefs_layer layer = prefs_resolution_get_layer(resolution, index);
        if (default_value && (layer == PREFS_LAYER_APP || layer == PREFS_LAYER_ARGUMENT)) continue;
        return (ssize_t)index;
    }
    return -1;
}

/* The forced entry of the key's own domain, or -1. */
static ssize_t forced_entry(const prefs_resolution *resolution, const char *domain) {
    ssize_t index = own_entry(resolution, domain, FALSE);
    if (index < 0) return -1;
    prefs_layer layer = prefs_resolution_get_layer(resolution, (size_t)index);
    return layer == PREFS_LAYER_FORCED || layer == PREFS_LAYER_FLEET_FORCED ? index : -1;
}

static GVariant *to_variant(PreferencesSettingsBackend *self, const char *path, const prefs_value *value,
                            const GVariantType *expected_type) {
    GError *error = NULL;
    GVariant *result = pgs_plist_to_variant(value, expected_type, &error);
    if (result == NULL) {
        char *type = g_variant_type_dup_string(expected_type);
        warn_once(self, "key %s (type %s) reads as its schema's default: %s", path, type, error->message);
        g_free(type);
        g_error_free(error);
    }
    return result;
}

/* ---- Echoes --------------------------------------------------------------------------------------------------- */

/*
 * A write notifies its GSettings objects itself, during the call and with its origin tag, as GLib requires; the
 * subscription then brings the same change back as an event. Each write is remembered until its event arrives, and
 * that event is not notified a second time, so that one write is one notification, as with dconf.
 */

static char *echo_key(const char *domain, const char *key) { return g_strconcat(domain, "\n", key, NULL); }

static void echo_free(gpointer data) {
    echo *item = data;
    prefs_value_free(item->value);
    g_free(item);
}

static void echo_queue_free(gpointer data) { g_queue_free_full(data, echo_free); }

static echo *remember_write(PreferencesSettingsBackend *self, const char *domain, const char *key,
                            const prefs_value *value) {
    echo *item = g_new0(echo, 1);
    item->value = value != NULL ? prefs_value_copy(value) : NULL;
    char *name = echo_key(domain, key);
    g_mutex_lock(&self->lock);
    GQueue *queue = g_hash_table_lookup(self->echoes, name);
    if (queue == NULL) {
        queue = g_queue_new();
        g_hash_table_insert(self->echoes, name, queue);
        name = NULL;
    }
    g_queue_push_tail(queue, item);
    if (g_queue_get_length(queue) > MAX_PENDING_ECHOES) echo_free(g_queue_pop_head(queue));
    g_mutex_unlock(&self->lock);
    g_free(name);
    return item;
}

/* A write that failed has no echo to wait for. */
static void forget_write(PreferencesSettingsBackend *self, const char *domain, const char *key, echo *item) {
    char *name = echo_key(domain, key);
    g_mutex_lock(&self->lock);
    GQueue *queue = g_hash_table_lookup(self->echoes, name);
    if (queue != NULL && g_queue_remove(queue, item)) echo_free(item);
    if (queue != NULL && g_queue_is_empty(queue)) g_hash_table_remove(self->echoes, name);
    g_mutex_unlock(&self->lock);
    g_free(name);
}

/* With the lock: whether a write of this process to the key still waits for its echo. Its notification was given
 * by the write, and its event may still come: what was read of the key before the subscription is not compared. */
static gboolean echo_pending_locked(PreferencesSettingsBackend *self, const char *domain, const char *key) {
    char *name = echo_key(domain, key);
    gboolean pending = g_hash_table_contains(self->echoes, name);
    g_free(name);
    return pending;
}

/*
 * Whether `event` is the echo of a write of this process: made by this process through prefsd, to the plain domain,
 * with the value a remembered write stored. The newest matching write is taken, with every older one of the key (the
 * events of one key arrive in order, and prefsd may coalesce several into the last).
 */
static gboolean is_own_echo(PreferencesSettingsBackend *self, const char *domain, const prefs_event *event) {
    if (prefs_event_is_from_file(event) || prefs_event_get_by_host(event) || prefs_event_get_pid(event) != getpid())
        return FALSE;
    const prefs_value *value = prefs_event_get_new_value(event);
    char *name = echo_key(domain, prefs_event_get_key(event));
    gboolean found = FALSE;
    g_mutex_lock(&self->lock);
    GQueue *queue = g_hash_table_lookup(self->echoes, name);
    for (GList *link = queue != NULL ? queue->tail : NULL; link != NULL && !found; link = link->prev) {
        echo *item = link->data;
        found = item->value == NULL || (value != NULL && prefs_value_equal(item->value, value));
        if (found) {
            while (queue->head != link) echo_free(g_queue_pop_head(queue));
            echo_free(g_queue_pop_head(queue));
        }
    }
    if (queue != NULL && g_queue_is_empty(queue)) g_hash_table_remove(self->echoes, name);
    g_mutex_unlock(&self->lock);
    g_free(name);
    return found;
}

/* ---- Reads before a subscription ------------------------------------------------------------------------------ */

static gboolean same_value(const prefs_value *a, const prefs_value *b) {
    return a == NULL ? b == NULL : b != NULL && prefs_value_equal(a, b);
}

/* With the lock: the watch of a GSettings key (its path's, or the key's own), or NULL. */
static watch *watch_of_locked(PreferencesSettingsBackend *self, const char *path) {
    const char *slash = strrchr(path, '/');
    char *directory = g_strndup(path, (gsize)(slash - path) + 1);
    watch *item = g_hash_table_lookup(self->watches, directory);
    g_free(directory);
    return item != NULL ? item : g_hash_table_lookup(self->watches, path);
}

/* Whether the key's watch is not subscribed yet: what a request begun now reads must be remembered. */
static gboolean before_subscribed(PreferencesSettingsBackend *self, const char *path) {
    g_mutex_lock(&self->lock);
    watch *item = watch_of_locked(self, path);
    gboolean before = item != NULL && !item->established;
    g_mutex_unlock(&self->lock);
    return before;
}

/* A read that began before its watch was subscribed and ended after: compared with the values now. */
typedef struct {
    PreferencesSettingsBackend *self;
    char *name; /* the watch's */
    char *key;
    prefs_value *value;
} late_read;

static gboolean check_late_read(gpointer data) {
    late_read *read = data;
    PreferencesSettingsBackend *self = read->self;
    char *path = NULL;
    g_mutex_lock(&self->lock);
    watch *item = g_hash_table_lookup(self->watches, read->name);
    if (item != NULL && item->established && item->subscription != NULL &&
        !echo_pending_locked(self, item->domain, read->key) &&
        !same_value(read->value, prefs_value_dictionary_get(prefs_subscription_get_values(item->subscription),
                                                            read->key)))
        path = item->key != NULL ? g_strdup(item->name) : g_strconcat(item->name, read->key, NULL);
    g_mutex_unlock(&self->lock);
    if (path != NULL) g_settings_backend_changed(G_SETTINGS_BACKEND(self), path, NULL);
    g_free(path);
    prefs_value_free(read->value);
    g_free(read->name);
    g_free(read->key);
    g_free(read);
    return G_SOURCE_REMOVE;
}

/*
 * The program was told that `path` has the effective `value` (NULL: no layer holds it) by a request that began
 * before the key's watch was subscribed (`before`, from before_subscribed()): remembered until the subscription's
 * snapshot arrives, or compared with the values now when it arrived meanwhile.
 */
static void note_seen(PreferencesSettingsBackend *self, const char *path, gboolean before, const prefs_value *value) {
    if (!before) return;
    const char *key = strrchr(path, '/') + 1;
    g_mutex_lock(&self->lock);
    watch *item = watch_of_locked(self, path);
    if (item != NULL && !item->established) {
        g_hash_table_replace(item->seen, g_strdup(key), value != NULL ? prefs_value_copy(value) : NULL);
    } else if (item != NULL) {
        late_read *read = g_new0(late_read, 1);
        read->self = self;
        read->name = g_strdup(item->name);
        read->key = g_strdup(key);
        read->value = value != NULL ? prefs_value_copy(value) : NULL;
        GSource *idle = g_idle_source_new();
        g_source_set_callback(idle, check_late_read, read, NULL);
        g_source_attach(idle, self->context);
        g_source_unref(idle);
    }
    g_mutex_unlock(&self->lock);
}

/* ---- Reading -------------------------------------------------------------------------------------------------- */

static GVariant *backend_read(GSettingsBackend *backend, const char *path, const GVariantType *expected_type,
                              gboolean default_value) {
    PreferencesSettingsBackend *self = BACKEND(backend);
    key_target target;
    if (!target_open(self, path, &target)) return NULL;
    gboolean before = before_subscribed(self, path);
    prefs_error *error = NULL;
    prefs_resolution *resolution = prefs_domain_explain(target.domain, target.key, &error);
    GVariant *result = NULL;
    if (resolution == NULL) {
        note_failure(self, "reading", path, error);
    } else {
        note_success(self);
        note_seen(self, path, before, prefs_resolution_get_value(resolution));
        ssize_t index = own_entry(resolution, target.domain_name, default_value);
        if (index >= 0)
            result = to_variant(self, path, prefs_resolution_get_layer_value(resolution, (size_t)index),
                                expected_type);
        prefs_resolution_free(resolution);
    }
    prefs_error_free(error);
    target_clear(&target);
    return result;
}

static GVariant *backend_read_user_value(GSettingsBackend *backend, const char *path,
                                         const GVariantType *expected_type) {
    PreferencesSettingsBackend *self = BACKEND(backend);
    key_target target;
    if (!target_open(self, path, &target)) return NULL;
    prefs_error *error = NULL;
    prefs_value *value = prefs_domain_copy_stored_value(target.domain, target.key, &error);
    GVariant *result = NULL;
    if (value != NULL) {
        note_success(self);
        result = to_variant(self, path, value, expected_type);
        prefs_value_free(value);
    } else if (prefs_error_get_code(error) == PREFS_ERROR_NOT_FOUND) {
        note_success(self);
    } else {
        note_failure(self, "reading the user's value of", path, error);
    }
    prefs_error_free(error);
    target_clear(&target);
    return result;
}

/* Whether the user may set the key: false when a forced layer of its domain holds it. `report`: warn when not. */
static gboolean is_writable(PreferencesSettingsBackend *self, const char *path, key_target *target, gboolean report) {
    prefs_error *error = NULL;
    prefs_resolution *resolution = prefs_domain_explain(target->domain, target->key, &error);
    if (resolution == NULL) {
        note_failure(self, "checking whether prefsd lets the user write", path, error);
        prefs_error_free(error);
        return FALSE;
    }
    note_success(self);
    ssize_t index = forced_entry(resolution, target->domain_name);
    if (index >= 0 && report) {
        const char *file = prefs_resolution_get_path(resolution, (size_t)index);
        g_warning("key %s is locked: the %s layer of domain %s sets it%s%s%s, so it cannot be written (defaults "
                  "explain %s %s)",
                  path, prefs_layer_name(prefs_resolution_get_layer(resolution, (size_t)index)), target->domain_name,
                  file != NULL ? " (" : "", file != NULL ? file : "", file != NULL ? ")" : "", target->domain_name,
                  target->key);
    }
    prefs_resolution_free(resolution);
    return index < 0;
}

static gboolean backend_get_writable(GSettingsBackend *backend, const char *path) {
    PreferencesSettingsBackend *self = BACKEND(backend);
    key_target target;
    if (!target_open(self, path, &target)) return FALSE;
    gboolean writable = is_writable(self, path, &target, FALSE);
    target_clear(&target);
    return writable;
}

static GPermission *backend_get_permission(GSettingsBackend *backend, const char *path) {
    (void)backend;
    (void)path;
    return g_simple_permission_new(TRUE);
}

/* ---- Writing -------------------------------------------------------------------------------------------------- */

static prefs_value *to_plist(PreferencesSettingsBackend *self, const char *path, GVariant *value) {
    GError *error = NULL;
    prefs_value *result = pgs_variant_to_plist(value, &error);
    if (result == NULL) {
        warn_once(self, "key %s cannot be stored: %s", path, error->message);
        g_error_free(error);
    }
    return result;
}

static gboolean backend_write(GSettingsBackend *backend, const char *path, GVariant *value, gpointer origin_tag) {
    PreferencesSettingsBackend *self = BACKEND(backend);
    key_target target;
    if (!target_open(self, path, &target)) return FALSE;
    prefs_value *plist = to_plist(self, path, value);
    gboolean written = FALSE;
    if (plist != NULL && is_writable(self, path, &target, TRUE)) {
        echo *item = remember_write(self, target.domain_name, target.key, plist);
        prefs_error *error = NULL;
        written = prefs_domain_set_value(target.domain, target.key, plist, &error);
        if (!written) {
            forget_write(self, target.domain_name, target.key, item);
            note_failure(self, "writing", path, error);
        }
        prefs_error_free(error);
    }
    prefs_value_free(plist);
    target_clear(&target);
    if (written) g_settings_backend_changed(backend, path, origin_tag);
    return written;
}

/* The changes of a tree to one domain: one batch, so that they apply atomically. */
typedef struct {
    prefs_domain *domain;
    char *name;
    prefs_batch *batch;
    GPtrArray *keys;  /* the keys within the domain */
    GPtrArray *paths; /* the same, as GSettings names them */
    GPtrArray *values; /* the plist values, NULL for a reset */
} domain_change;

static void domain_change_free(gpointer data) {
    domain_change *change = data;
    prefs_domain_free(change->domain);
    prefs_batch_free(change->batch);
    g_free(change->name);
    g_ptr_array_unref(change->keys);
    g_ptr_array_unref(change->paths);
    g_ptr_array_unref(change->values);
    g_free(change);
}

typedef struct {
    PreferencesSettingsBackend *self;
    GPtrArray *changes; /* domain_change, in the order first seen */
    gboolean ok;
} tree_plan;

static void plist_free(gpointer value) { prefs_value_free(value); }

static domain_change *change_for(tree_plan *plan, key_target *target) {
    for (guint index = 0; index < plan->changes->len; index++) {
        domain_change *change = g_ptr_array_index(plan->changes, index);
        if (strcmp(change->name, target->domain_name) == 0) return change;
    }
    domain_change *change = g_new0(domain_change, 1);
    change->domain = target->domain;
    change->name = target->domain_name;
    target->domain = NULL;
    target->domain_name = NULL;
    change->batch = prefs_batch_new();
    change->keys = g_ptr_array_new_with_free_func(g_free);
    change->paths = g_ptr_array_new_with_free_func(g_free);
    change->values = g_ptr_array_new_with_free_func(plist_free);
    g_ptr_array_add(plan->changes, change);
    return change;
}

/* Adds one key of the tree to its domain's batch; stops the walk at the first key that cannot be written. */
static gboolean plan_key(gpointer key, gpointer value, gpointer data) {
    tree_plan *plan = data;
    const char *path = key;
    key_target target;
    if (!target_open(plan->self, path, &target)) {
        plan->ok = FALSE;
        return TRUE;
    }
    prefs_value *plist = NULL;
    if (value != NULL) {
        plist = to_plist(plan->self, path, value);
        plan->ok = plist != NULL && is_writable(plan->self, path, &target, TRUE);
    }
    if (plan->ok) {
        char *name = g_strdup(target.key);
        domain_change *change = change_for(plan, &target);
        prefs_error *error = NULL;
        plan->ok = plist != NULL ? prefs_batch_set(change->batch, name, plist, &error)
                                 : prefs_batch_remove(change->batch, name, &error);
        if (plan->ok) {
            g_ptr_array_add(change->keys, name);
            g_ptr_array_add(change->paths, g_strdup(path));
            g_ptr_array_add(change->values, plist);
            plist = NULL;
        } else {
            note_failure(plan->self, "writing", path, error);
            g_free(name);
        }
        prefs_error_free(error);
    }
    prefs_value_free(plist);
    target_clear(&target);
    return !plan->ok;
}

/* Applies every domain's batch; a tree is atomic within each domain (prefsd has no change across domains). */
static gboolean backend_write_tree(GSettingsBackend *backend, GTree *tree, gpointer origin_tag) {
    PreferencesSettingsBackend *self = BACKEND(backend);
    if (g_tree_nnodes(tree) == 0) return TRUE;
    tree_plan plan = {.self = self, .changes = g_ptr_array_new_with_free_func(domain_change_free), .ok = TRUE};
    g_tree_foreach(tree, plan_key, &plan);
    gboolean all = plan.ok;
    GPtrArray *applied = g_ptr_array_new();
    for (guint index = 0; plan.ok && index < plan.changes->len; index++) {
        domain_change *change = g_ptr_array_index(plan.changes, index);
        GPtrArray *echoes = g_ptr_array_new();
        for (guint key = 0; key < change->keys->len; key++)
            g_ptr_array_add(echoes, remember_write(self, change->name, g_ptr_array_index(change->keys, key),
                                                   g_ptr_array_index(change->values, key)));
        prefs_error *error = NULL;
        if (prefs_domain_apply(change->domain, change->batch, &error)) {
            g_ptr_array_add(applied, change);
        } else {
            all = FALSE;
            for (guint key = 0; key < change->keys->len; key++)
                forget_write(self, change->name, g_ptr_array_index(change->keys, key), g_ptr_array_index(echoes, key));
            note_failure(self, "writing the changes to domain", change->name, error);
        }
        prefs_error_free(error);
        g_ptr_array_unref(echoes);
    }
    if (all) {
        g_settings_backend_changed_tree(backend, tree, origin_tag);
    } else {
        for (guint index = 0; index < applied->len; index++) {
            domain_change *change = g_ptr_array_index(applied, index);
            for (guint key = 0; key < change->paths->len; key++)
                g_settings_backend_changed(backend, g_ptr_array_index(change->paths, key), origin_tag);
        }
    }
    g_ptr_array_unref(applied);
    g_ptr_array_unref(plan.changes);
    return all;
}

static void backend_reset(GSettingsBackend *backend, const char *path, gpointer origin_tag) {
    PreferencesSettingsBackend *self = BACKEND(backend);
    key_target target;
    if (!target_open(self, path, &target)) return;
    echo *item = remember_write(self, target.domain_name, target.key, NULL);
    prefs_error *error = NULL;
    gboolean removed = prefs_domain_remove(target.domain, target.key, &error);
    if (!removed) {
        forget_write(self, target.domain_name, target.key, item);
        note_failure(self, "resetting", path, error);
    }
    prefs_error_free(error);
    target_clear(&target);
    if (removed) g_settings_backend_changed(backend, path, origin_tag);
}

static void backend_sync(GSettingsBackend *backend) {
    PreferencesSettingsBackend *self = BACKEND(backend);
    g_mutex_lock(&self->lock);
    prefs_client *client = self->client; /* nothing was written without one */
    g_mutex_unlock(&self->lock);
    if (client == NULL) return;
    prefs_error *error = NULL;
    if (!prefs_client_synchronize(client, &error))
        note_failure(self, "synchronizing", "the written keys", error);
    else
        note_success(self);
    prefs_error_free(error);
}

/* ---- Notification --------------------------------------------------------------------------------------------- */

static void watch_free(watch *item) {
    prefs_subscription_free(item->subscription);
    g_hash_table_destroy(item->seen);
    g_free(item->name);
    g_free(item->domain);
    g_free(item->key);
    g_free(item);
}

static char *path_of(const watch *item, const char *key) {
    return item->key != NULL ? g_strdup(item->name) : g_strconcat(item->name, key, NULL);
}

/* Every key of the watch may have changed, and its writability too: a resync, or a subscription made after prefsd
 * could not be reached (reads gave the schemas' defaults meanwhile). */
static void notify_everything(watch *item) {
    GSettingsBackend *backend = G_SETTINGS_BACKEND(item->backend);
    if (item->key == NULL) {
        g_settings_backend_path_writable_changed(backend, item->name);
        g_settings_backend_path_changed(backend, item->name, NULL);
    } else {
        g_settings_backend_writable_changed(backend, item->name);
        g_settings_backend_changed(backend, item->name, NULL);
    }
}

static void notify_paths(PreferencesSettingsBackend *self, GPtrArray *paths) {
    for (guint index = 0; index < paths->len; index++)
        g_settings_backend_changed(G_SETTINGS_BACKEND(self), g_ptr_array_index(paths, index), NULL);
}

/* Runs on the notification thread, from prefs_subscription_dispatch(). */
static void on_event(const prefs_event *event, void *context) {
    watch *item = context;
    PreferencesSettingsBackend *self = item->backend;
    if (prefs_event_get_kind(event) == PREFS_EVENT_RESYNC) {
        notify_everything(item);
        return;
    }
    const char *key = prefs_event_get_key(event);
    const char *domain = prefs_event_get_domain(event);
    /* A change of another domain of the search list (the global domain), which GSettings reads leave out; a key
     * with a '/' names no key of this path. */
    if (domain == NULL || strcmp(domain, item->domain) != 0 || key == NULL || key[0] == '\0' ||
        strchr(key, '/') != NULL)
        return;
    if (item->key != NULL && strcmp(key, item->key) != 0) return;
    if (is_own_echo(self, item->domain, event)) return;
    char *path = path_of(item, key);
    /* A change of a forced layer also changes whether the key can be written. */
    const char *scope = prefs_event_get_scope(event);
    if (strcmp(scope, "forced") == 0 || strcmp(scope, "fleetForced") == 0)
        g_settings_backend_writable_changed(G_SETTINGS_BACKEND(self), path);
    g_settings_backend_changed(G_SETTINGS_BACKEND(self), path, NULL);
    g_free(path);
}

static void schedule_retry_locked(PreferencesSettingsBackend *self);

/* On the notification thread: the watcher's descriptor is readable. */
static gboolean on_ready(gint fd, GIOCondition condition, gpointer data) {
    (void)fd;
    (void)condition;
    PreferencesSettingsBackend *self = data;
    prefs_error *error = NULL;
    if (prefs_watcher_dispatch(self->watcher, &error)) return G_SOURCE_CONTINUE;
    g_warning("watching prefsd stopped (%s); subscribing again when prefsd answers", prefs_error_get_message(error));
    prefs_error_free(error);
    /* Every watch loses its subscription; retry_watches makes a new watcher and subscribes them again. */
    GPtrArray *lost = g_ptr_array_new();
    g_mutex_lock(&self->lock);
    GHashTableIter iterator;
    gpointer value;
    g_hash_table_iter_init(&iterator, self->watches);
    while (g_hash_table_iter_next(&iterator, NULL, &value)) {
        watch *item = value;
        if (item->subscription == NULL) continue;
        g_ptr_array_add(lost, item->subscription);
        item->subscription = NULL;
        item->established = FALSE;
    }
    schedule_retry_locked(self);
    g_mutex_unlock(&self->lock);
    /* Freed without the lock: freeing may deliver other events, whose callbacks take it. */
    for (guint index = 0; index < lost->len; index++) prefs_subscription_free(g_ptr_array_index(lost, index));
    g_ptr_array_unref(lost);
    prefs_watcher_free(self->watcher);
    self->watcher = NULL;
    g_source_unref(self->watcher_source);
    self->watcher_source = NULL;
    return G_SOURCE_REMOVE;
}

/* On the notification thread: the watcher, made (and its descriptor put in the thread's context) when first
 * needed; NULL while prefsd cannot be reached. */
static prefs_watcher *get_watcher(PreferencesSettingsBackend *self, prefs_client *client, prefs_error **error) {
    if (self->watcher != NULL) return self->watcher;
    self->watcher = prefs_watcher_new(client, error);
    if (self->watcher == NULL) return NULL;
    self->watcher_source = g_unix_fd_source_new(prefs_watcher_get_fd(self->watcher), G_IO_IN);
    g_source_set_callback(self->watcher_source, G_SOURCE_FUNC(on_ready), self, NULL);
    g_source_attach(self->watcher_source, self->context);
    return self->watcher;
}

/* Subscribes a watch, on the notification thread, without the lock (it waits for prefsd). */
static prefs_subscription *subscribe_watch(PreferencesSettingsBackend *self, watch *item) {
    prefs_client *client = get_client(self);
    if (client == NULL) return NULL;
    prefs_error *error = NULL;
    prefs_watcher *watcher = get_watcher(self, client, &error);
    prefs_domain *domain = watcher != NULL ? prefs_domain_open(client, item->domain, 0, &error) : NULL;
    /* Flags 0: the effective values, so that forced, system and shipped changes notify too. */
    prefs_subscription *subscription =
        domain != NULL ? prefs_watcher_subscribe(watcher, domain, item->key, 0, on_event, item, &error) : NULL;
    prefs_domain_free(domain);
    if (subscription == NULL)
        note_failure(self, "watching", item->name, error);
    else
        note_success(self);
    prefs_error_free(error);
    return subscription;
}

/*
 * With the lock, once `item` is subscribed: compares what was read before with the snapshot. `everything`: prefsd
 * could not be reached before, so every key is notified.
 * Adds the keys to notify to `paths`.
 */
static void establish_locked(PreferencesSettingsBackend *self, watch *item, gboolean everything, GPtrArray *paths) {
    if (!everything) {
        const prefs_value *values = prefs_subscription_get_values(item->subscription);
        GHashTableIter iterator;
        gpointer key, value;
        g_hash_table_iter_init(&iterator, item->seen);
        while (g_hash_table_iter_next(&iterator, &key, &value))
            if (!echo_pending_locked(self, item->domain, key) &&
                !same_value(value, prefs_value_dictionary_get(values, key)))
                g_ptr_array_add(paths, path_of(item, key));
    }
    g_hash_table_remove_all(item->seen);
    item->established = TRUE;
}

static void free_watch_locked(PreferencesSettingsBackend *self, watch *item);

/* On the notification thread: the first subscription of a watch, which subscribe() asked for. */
static gboolean connect_watch(gpointer data) {
    watch *item = data;
    PreferencesSettingsBackend *self = item->backend;
    g_mutex_lock(&self->lock);
    gboolean wanted = item->references > 0;
    g_mutex_unlock(&self->lock);
    prefs_subscription *subscription = wanted ? subscribe_watch(self, item) : NULL;
    GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
    gboolean dropped = FALSE;
    g_mutex_lock(&self->lock);
    item->connecting = FALSE;
    item->subscription = subscription;
    if (item->references == 0) {
        dropped = TRUE; /* unsubscribed meanwhile; unsubscribe() left it to this */
    } else if (subscription != NULL) {
        establish_locked(self, item, FALSE, paths);
    } else {
        schedule_retry_locked(self);
    }
    g_mutex_unlock(&self->lock);
    if (dropped) watch_free(item);
    notify_paths(self, paths);
    g_ptr_array_unref(paths);
    return G_SOURCE_REMOVE;
}

static gboolean free_watch_later(gpointer data) {
    watch_free(data);
    return G_SOURCE_REMOVE;
}

/* With the lock: frees an unsubscribed watch on the notification thread, where its subscription is used. */
static void free_watch_locked(PreferencesSettingsBackend *self, watch *item) {
    GSource *idle = g_idle_source_new();
    g_source_set_callback(idle, free_watch_later, item, NULL);
    g_source_attach(idle, self->context);
    g_source_unref(idle);
}

/* On the notification thread: subscribes the watches that wait for prefsd. */
static gboolean retry_watches(gpointer data) {
    PreferencesSettingsBackend *self = data;
    GPtrArray *pending = g_ptr_array_new();
    g_mutex_lock(&self->lock);
    GHashTableIter iterator;
    gpointer value;
    g_hash_table_iter_init(&iterator, self->watches);
    while (g_hash_table_iter_next(&iterator, NULL, &value)) {
        watch *item = value;
        if (item->subscription == NULL && !item->connecting) {
            item->connecting = TRUE;
            g_ptr_array_add(pending, item);
        }
    }
    g_mutex_unlock(&self->lock);
    GPtrArray *subscriptions = g_ptr_array_new();
    for (guint index = 0; index < pending->len; index++)
        g_ptr_array_add(subscriptions, subscribe_watch(self, g_ptr_array_index(pending, index)));
    GPtrArray *connected = g_ptr_array_new();
    GPtrArray *dropped = g_ptr_array_new();
    GPtrArray *unused = g_ptr_array_new_with_free_func(g_free);
    gboolean waiting = FALSE;
    g_mutex_lock(&self->lock);
    for (guint index = 0; index < pending->len; index++) {
        watch *item = g_ptr_array_index(pending, index);
        item->connecting = FALSE;
        item->subscription = g_ptr_array_index(subscriptions, index);
        if (item->references == 0) {
            g_ptr_array_add(dropped, item);
        } else if (item->subscription != NULL) {
            establish_locked(self, item, TRUE, unused);
            g_ptr_array_add(connected, item);
        } else {
            waiting = TRUE;
        }
    }
    /* A watch that lost its subscription meanwhile waits too; one still to be connected does not. */
    g_hash_table_iter_init(&iterator, self->watches);
    while (g_hash_table_iter_next(&iterator, NULL, &value))
        if (((watch *)value)->subscription == NULL && !((watch *)value)->connecting) waiting = TRUE;
    if (!waiting) {
        g_source_unref(self->retry);
        self->retry = NULL;
    }
    g_mutex_unlock(&self->lock);
    for (guint index = 0; index < dropped->len; index++) watch_free(g_ptr_array_index(dropped, index));
    for (guint index = 0; index < connected->len; index++) notify_everything(g_ptr_array_index(connected, index));
    g_ptr_array_unref(unused);
    g_ptr_array_unref(dropped);
    g_ptr_array_unref(connected);
    g_ptr_array_unref(subscriptions);
    g_ptr_array_unref(pending);
    return waiting ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static void schedule_retry_locked(PreferencesSettingsBackend *self) {
    if (self->retry != NULL) return;
    self->retry = g_timeout_source_new_seconds(RETRY_SECONDS);
    g_source_set_callback(self->retry, retry_watches, self, NULL);
    g_source_attach(self->retry, self->context);
}

static gpointer notification_thread(gpointer data) {
    PreferencesSettingsBackend *self = data;
    g_main_context_push_thread_default(self->context);
    g_main_loop_run(self->loop);
    g_main_context_pop_thread_default(self->context);
    return NULL;
}

static void start_thread_locked(PreferencesSettingsBackend *self) {
    if (self->thread != NULL) return;
    self->context = g_main_context_new();
    self->loop = g_main_loop_new(self->context, FALSE);
    self->thread = g_thread_new("gsettings-prefs", notification_thread, self);
}

/* The domain and key a subscribed name stands for: a path watches its whole domain, a key only itself. */
static gboolean parse_name(const char *name, char **domain, char **key, GError **error) {
    if (g_str_has_suffix(name, "/")) {
        *key = NULL;
        return (*domain = pgs_path_to_domain(name, error)) != NULL;
    }
    return pgs_split_key(name, domain, key, error);
}

static void seen_value_free(gpointer value) { prefs_value_free(value); }

static void backend_subscribe(GSettingsBackend *backend, const char *name) {
    PreferencesSettingsBackend *self = BACKEND(backend);
    g_mutex_lock(&self->lock);
    watch *existing = g_hash_table_lookup(self->watches, name);
    if (existing != NULL) existing->references++;
    g_mutex_unlock(&self->lock);
    if (existing != NULL) return;
    char *domain = NULL, *key = NULL;
    GError *invalid = NULL;
    if (!parse_name(name, &domain, &key, &invalid)) {
        warn_once(self, "changes to %s cannot be watched: %s", name, invalid->message);
        g_error_free(invalid);
        return;
    }
    watch *item = g_new0(watch, 1);
    item->backend = self;
    item->name = g_strdup(name);
    item->domain = domain;
    item->key = key;
    item->references = 1;
    item->connecting = TRUE;
    item->seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, seen_value_free);
    g_mutex_lock(&self->lock);
    existing = g_hash_table_lookup(self->watches, name);
    if (existing != NULL) { /* another thread made it meanwhile */
        existing->references++;
        g_mutex_unlock(&self->lock);
        watch_free(item);
        return;
    }
    g_hash_table_insert(self->watches, item->name, item);
    start_thread_locked(self);
    GSource *idle = g_idle_source_new();
    g_source_set_callback(idle, connect_watch, item, NULL);
    g_source_attach(idle, self->context);
    g_source_unref(idle);
    g_mutex_unlock(&self->lock);
}

static void backend_unsubscribe(GSettingsBackend *backend, const char *name) {
    PreferencesSettingsBackend *self = BACKEND(backend);
    g_mutex_lock(&self->lock);
    watch *item = g_hash_table_lookup(self->watches, name);
    if (item != NULL && --item->references == 0) {
        g_hash_table_steal(self->watches, name);
        /* A watch still to be subscribed is freed by whoever subscribes it, when that finishes. */
        if (!item->connecting) free_watch_locked(self, item);
    }
    g_mutex_unlock(&self->lock);
}

/* ---- The object ----------------------------------------------------------------------------------------------- */

static void preferences_settings_backend_init(PreferencesSettingsBackend *self) {
    g_mutex_init(&self->lock);
    self->warned = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    self->watches = g_hash_table_new(g_str_hash, g_str_equal);
    self->echoes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, echo_queue_free);
}

static void preferences_settings_backend_finalize(GObject *object) {
    PreferencesSettingsBackend *self = BACKEND(object);
    if (self->thread != NULL) {
        g_main_loop_quit(self->loop);
        g_thread_join(self->thread);
        /* The thread is gone: this one runs what it left (watches to free). */
        while (g_main_context_iteration(self->context, FALSE)) continue;
    }
    /* The watcher first, which ends every subscription on it without a callback into this half-freed object. */
    if (self->watcher_source != NULL) {
        g_source_destroy(self->watcher_source);
        g_source_unref(self->watcher_source);
    }
    prefs_watcher_free(self->watcher);
    GHashTableIter iterator;
    gpointer value;
    g_hash_table_iter_init(&iterator, self->watches);
    while (g_hash_table_iter_next(&iterator, NULL, &value)) {
        ((watch *)value)->subscription = NULL;
        watch_free(value);
    }
    g_hash_table_destroy(self->watches);
    if (self->retry != NULL) {
        g_source_destroy(self->retry);
        g_source_unref(self->retry);
    }
    if (self->thread != NULL) {
        g_main_loop_unref(self->loop);
        g_main_context_unref(self->context);
    }
    g_hash_table_destroy(self->echoes);
    g_hash_table_destroy(self->warned);
    prefs_client_free(self->client);
    g_mutex_clear(&self->lock);
    G_OBJECT_CLASS(preferences_settings_backend_parent_class)->finalize(object);
}

static void preferences_settings_backend_class_init(PreferencesSettingsBackendClass *class) {
    G_OBJECT_CLASS(class)->finalize = preferences_settings_backend_finalize;
    class->read = backend_read;
    class->read_user_value = backend_read_user_value;
    class->get_writable = backend_get_writable;
    class->get_permission = backend_get_permission;
    class->write = backend_write;
    class->write_tree = backend_write_tree;
    class->reset = backend_reset;
    class->subscribe = backend_subscribe;
    class->unsubscribe = backend_unsubscribe;
    class->sync = backend_sync;
}

/* ---- The module ----------------------------------------------------------------------------------------------- */

G_MODULE_EXPORT void g_io_module_load(GIOModule *module) {
    /* Never unloaded: the backend's type is registered statically, as dconf's is. */
    g_type_module_use(G_TYPE_MODULE(module));
    g_io_extension_point_implement(G_SETTINGS_BACKEND_EXTENSION_POINT_NAME, preferences_settings_backend_get_type(),
                                   EXTENSION_NAME, EXTENSION_PRIORITY);
}

G_MODULE_EXPORT void g_io_module_unload(GIOModule *module) {
    /* Nothing to undo: g_io_module_load() keeps the module in use, so GIO never unloads it. */
    (void)module;
}

G_MODULE_EXPORT char **g_io_module_query(void) {
    return g_strsplit(G_SETTINGS_BACKEND_EXTENSION_POINT_NAME, "!", 0);
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The mapping between GSettings and Preferences (docs/GSETTINGS.md): a schema path is a domain, a GSettings key a
 * key of it, and a GVariant a property-list value, natural where a plist type fits and tagged otherwise. Kept apart
 * from the backend so that a unit test runs it without prefsd.
 */
#ifndef PREFERENCES_GVARIANT_MAPPING_H
#define PREFERENCES_GVARIANT_MAPPING_H

#include <glib.h>

#include "preferences.h"

/* The one key of the tagged form: {"$gvariant": g_variant_print(value, TRUE)}. */
#define PGS_TAG_KEY "$gvariant"

/* The store's longest domain name (docs/PROTOCOL.md, "Addressing domains"). */
#define PGS_MAX_DOMAIN_BYTES 216

#define PGS_MAPPING_ERROR (pgs_mapping_error_quark())
GQuark pgs_mapping_error_quark(void);

typedef enum {
    PGS_MAPPING_ERROR_INVALID_PATH,   /* a path with no domain name, or a component that is not a name part */
    PGS_MAPPING_ERROR_WRONG_TYPE,     /* the stored plist type does not fit the expected GVariant type */
    PGS_MAPPING_ERROR_OUT_OF_RANGE,   /* an integer outside the range of the expected type */
    PGS_MAPPING_ERROR_UNPARSABLE,     /* a tagged value that does not parse as the expected type */
    PGS_MAPPING_ERROR_UNREPRESENTABLE /* a value one side cannot hold (a date, a string with a NUL) */
} PgsMappingError;

/* The domain a GSettings path ("/org/gnome/desktop/interface/") names ("org.gnome.desktop.interface"). */
char *pgs_path_to_domain(const char *path, GError **error);

/* Splits a GSettings key ("/org/gnome/desktop/interface/gtk-theme") into its domain and its key ("gtk-theme"),
 * both newly allocated. */
gboolean pgs_split_key(const char *path, char **domain, char **key, GError **error);

/* The plist value that stores `value` (any GVariant; its type is the schema's). */
prefs_value *pgs_variant_to_plist(GVariant *value, GError **error);

/* The GVariant of `expected_type` that `value` stores; NULL with an error when it does not fit, so that GSettings
 * uses the schema's default. The result is a new, non-floating reference. */
GVariant *pgs_plist_to_variant(const prefs_value *value, const GVariantType *expected_type, GError **error);

/* Whether `value` has the tagged shape: a dictionary with exactly one key, PGS_TAG_KEY, whose value is a string. */
gboolean pgs_plist_is_tagged(const prefs_value *value);

#endif

// SPDX-License-Identifier: Apache-2.0
#ifndef CPREFS_XML2_SHIM_H
#define CPREFS_XML2_SHIM_H

#include <libxml/xmlversion.h>

/* Debian builds libxml2 with ICU, so <libxml/encoding.h> would pull in the system's ICU headers. Foundation's
 * modules carry their own copy of ICU, and a Swift module that sees both fails to build ("'UErrorCode' has
 * different definitions in different modules"), depending on which module the compiler happens to load first.
 * Nothing here uses libxml2's ICU-dependent API: xmlCharEncodingHandler, the only struct whose layout ICU
 * changes (two trailing pointers), is never allocated or read from Swift. So the ICU part is hidden. */
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>

#endif

#ifndef CPREFS_XML2_SHIM_H
#define CPREFS_XML2_SHIM_H

#include <libxml/xmlreader.h>
#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#endif

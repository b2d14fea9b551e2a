// SPDX-License-Identifier: Apache-2.0
#ifndef CPREFS_CXX_RUNTIME_H
#define CPREFS_CXX_RUNTIME_H

/* Nothing to call: this target only provides, to the executables linked with it, the C++ runtime functions that
 * the static Swift runtime needs (cxx_runtime.c). The header exists because SwiftPM gives every C target one. */

#endif

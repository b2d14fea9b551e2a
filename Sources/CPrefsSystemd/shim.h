// SPDX-License-Identifier: Apache-2.0
#ifndef CPREFS_SYSTEMD_SHIM_H
#define CPREFS_SYSTEMD_SHIM_H

#include <systemd/sd-daemon.h>
#include <systemd/sd-id128.h>
#include <systemd/sd-journal.h>

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Choosing a transport by name: the one place that knows every
 * transport (tp_sock.h, tp_raw.h).  The runner and the tests create
 * transports through it; the transports themselves never use it.
 */
#ifndef MPA_INJECT_TP_PICK_H
#define MPA_INJECT_TP_PICK_H

#include "tp.h"

/* Create a transport: name "socket" (or NULL) or "raw".  NULL + err
 * when the name is unknown or the transport cannot be created. */
tp *tp_new(const char *name, const tp_cfg *cfg, inj_trace *trace, char *err, size_t errlen);

#endif

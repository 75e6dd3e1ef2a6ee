/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The socket transport (tp_sock.c): kernel TCP, connect() or
 * listen()+accept(), TCP_NODELAY, one send() per segment asked for.
 */
#ifndef MPA_INJECT_TP_SOCK_H
#define MPA_INJECT_TP_SOCK_H

#include "tp.h"

/* A socket transport for cfg, reporting to trace (may be NULL).  NULL +
 * err when it cannot be created; release with t->ops->destroy. */
tp *tp_sock_new(const tp_cfg *cfg, inj_trace *trace, char *err, size_t errlen);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The raw transport (tp_raw.c): libnet out, libpcap in, the userspace
 * TCP of utcp.h in between; see docs/mpa-inject-raw.md.
 */
#ifndef MPA_INJECT_TP_RAW_H
#define MPA_INJECT_TP_RAW_H

#include "tp.h"

/* A raw transport for cfg (iface and src_addr are needed), reporting to
 * trace (may be NULL).  NULL + err when it cannot be created; release
 * with t->ops->destroy. */
tp *tp_raw_new(const tp_cfg *cfg, inj_trace *trace, char *err, size_t errlen);

/* A test hook (tests/inject/test_raw.c; scenarios cannot ask for it):
 * the next n first transmissions of data pieces are "lost" (neither
 * sent nor traced), so the retransmission timer has to recover them.
 * t must come from tp_raw_new. */
void tp_raw_test_drop(tp *t, unsigned n);

#endif

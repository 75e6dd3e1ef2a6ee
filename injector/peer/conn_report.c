/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The line mpa-peer prints about a connection (see peer.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn_priv.h"

const char *peer_end_str(peer_end e)
{
    switch (e) {
    case END_NONE:
        return "open";
    case END_OK:
        return "ok";
    case END_REJECTED:
        return "rejected";
    case END_BAD_FRAME:
        return "bad-frame";
    case END_STARTUP:
        return "startup-failed";
    case END_TERM_SENT:
        return "terminated";
    case END_TERM_RCVD:
        return "peer-terminated";
    case END_PEER_CLOSED:
        return "peer-closed";
    case END_TIMEOUT:
        return "timeout";
    case END_RESET:
        return "reset";
    case END_ERROR:
        return "error";
    case END_FAULT:
        return "fault";
    }
    return "?";
}

void fset_add(uint64_t *set, unsigned id)
{
    if (id < MPA_F__COUNT)
        set[id / 64] |= 1ull << (id % 64);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void fset_str(const uint64_t *set, char *buf, size_t cap)
{
    const char *ids[MPA_F__COUNT];
    size_t k = 0;
    for (unsigned id = 0; id < MPA_F__COUNT; id++)
        if (set[id / 64] >> (id % 64) & 1u)
            ids[k++] = mpa_rule_get((mpa_finding_id)id)->id;
    qsort(ids, k, sizeof ids[0], cmp_str);
    size_t n = 0;
    buf[0] = 0;
    for (size_t i = 0; i < k && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? "," : "", ids[i]);
    if (!k)
        snprintf(buf, cap, "-");
}

void conn_report(conn *c, char *buf, size_t cap)
{
    const mpa_frame *pf = c->peer_frame_seen ? &c->pf : NULL;
    char peer_ids[1024], self_ids[1024], term[16], neg[96];
    mpa_feeder_finish(c->feed);
    fset_str(c->f_peer, peer_ids, sizeof peer_ids);
    fset_str(c->f_self, self_ids, sizeof self_ids);
    snprintf(term, sizeof term, "%u/%u", c->term_sent, c->term_rcvd);
    if (c->enh)
        snprintf(neg, sizeof neg, " ird=%u ord=%u rtr=%s", c->ird, c->ord, c->a && c->rtr != MPA_RTR_NONE ? mpa_rtr_str((mpa_rtr_kind)c->rtr) : "-");
    else
        neg[0] = 0;
    size_t n = (size_t)snprintf(buf, cap,
                                "peer=%s role=%s end=%s m=%u/%u c=%u rev=%u/%u s=%u%s fpdus=%llu/%llu "
                                "term=%s findings=%s",
                                c->name, mpa_role_str(c->role), peer_end_str((peer_end)c->end), c->m_tx, c->m_rx,
                                c->crc, c->rev_tx, pf ? pf->rev : 0, c->sent_s, neg,
                                (unsigned long long)c->fpdus_tx, (unsigned long long)c->fpdus_rx, term, peer_ids);
    if (n < cap && strcmp(self_ids, "-") != 0)
        n += (size_t)snprintf(buf + n, cap - n, " own=%s", self_ids);
    if (n < cap && c->bad_echo)
        n += (size_t)snprintf(buf + n, cap - n, " bad-echoes=%lu", c->bad_echo);
    if (n < cap && c->cfg->fault != FAULT_NONE)
        snprintf(buf + n, cap - n, " fault=%s%s", fault_get(c->cfg->fault)->name,
                 c->fault_done ? "" : c->fault_na ? "(n/a)" : "(unused)");
}

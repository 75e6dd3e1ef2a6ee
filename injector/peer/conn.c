/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One MPA endpoint, either role, free of sockets.
 *
 * RFC 5044 7.1.1 (frames), 7.1.2 (startup rules 1-10), 4 (FPDUs,
 * markers, CRC), 8 (TERMINATE codes 1-4); RFC 6581 6 (S bit, Rev 2),
 * 9.1 (IRD/ORD), 9.2 (A, B, C, D and the RTR), 9.3 (TERMINATE codes 5-7).
 *
 * Every octet this end sends is built with libmpa (mpa_frame_encode,
 * mpa_ddp_encode, mpa_fpdu_encode); every octet it receives is judged by
 * the libmpa stream engine, and the connection reacts to the engine's
 * events.  The engine is fed the peer's octets as they are read
 * (conn_input) and this end's as they are queued (feed_self), so it
 * sees both directions in causal order.  The parts (conn_priv.h):
 *
 *   conn.c         feeding the engine, the step after each event, the
 *                  public side (conn_init ... conn_done)
 *   conn_out.c     the frames and FPDUs this end queues
 *   conn_in.c      the engine's events: the reactions to findings about
 *                  the peer (the table is there), its FPDUs (echoes,
 *                  Read Responses)
 *   startup.c      the startup: Request, Reply, the RTR
 *   faults.c       the fault modes (--fault NAME)
 *   conn_report.c  the line about a connection
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn_priv.h"

#define RX_HELD_MAX (1u << 20)   /* octets the engine may leave unconsumed */
#define TX_HIGH (32u << 10)      /* produce Sends while less is unwritten */

/* ---- small helpers --------------------------------------------------- */

static void pbuf_free(pbuf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* ---- driving --------------------------------------------------------- */

static void react_now(conn *c)
{
    if (c->reacted || c->react == RE_NONE)
        return;
    if (c->react_seg && faulty(c, FAULT_NO_DROP_AFTER_ERROR))
        return; /* the fault waits for the next Send, to deliver it */
    c->reacted = 1;
    if (c->phase == PH_CLOSING)
        return; /* already on the way out: nothing more is sent */
    switch (c->react) {
    case RE_TERM:
        /* A TERMINATE is an FPDU: only in Full Operation, and a
         * Responder only after an FPDU arrived (rule 4). */
        if (c->react_seg && faulty(c, FAULT_CLOSE_NO_TERMINATE)) {
            c->fault_done = 1; /* RFC 5040 6.2.1 wants the TERMINATE first */
            close_with(c, END_FAULT);
        } else if (c->phase == PH_FULL && (c->role == MPA_ROLE_INITIATOR || c->fpdus_rx)) {
            if (c->react_seg)
                queue_term_seg(c);
            else
                queue_term(c, c->react_code);
            close_with(c, END_TERM_SENT);
        } else {
            close_with(c, c->phase == PH_FULL ? END_TERM_SENT : END_STARTUP);
        }
        break;
    case RE_BADFRAME:
        close_with(c, END_BAD_FRAME);
        break;
    case RE_CLOSE:
        close_with(c, c->term_rcvd ? END_TERM_RCVD : END_STARTUP);
        break;
    }
}

/* What this end does next in Full Operation. */
static void work(conn *c)
{
    const peer_cfg *g = c->cfg;
    if (c->phase != PH_FULL || c->react != RE_NONE)
        return;
    if (c->role == MPA_ROLE_RESPONDER) {
        if (!c->got_fpdu)
            return; /* rule 4 */
        if (faulty(c, FAULT_TERM_5)) {
            queue_term(c, 5);
            c->fault_done = 1;
            close_with(c, END_TERM_SENT);
            return;
        }
        return; /* it echoes and answers */
    }
    while (c->sends_left && c->tx.len - c->tx_wr < TX_HIGH && c->phase == PH_FULL) {
        queue_send(c, NULL, g->size, 0, 1, g->send_n - c->sends_left);
        c->sends_left--;
    }
    if (c->role == MPA_ROLE_INITIATOR && !c->sends_left && !c->echoes_left && !c->reads_left)
        close_with(c, END_OK);
}

/* This end's queued octets to the engine, through the feeder (it holds
 * what the engine cannot take yet: our FPDUs before the peer's Reply). */
static void feed_self(conn *c)
{
    if (c->tx_fed < c->tx.len) {
        if (mpa_feeder_data(c->feed, SELF, c->tx.p + c->tx_fed, c->tx.len - c->tx_fed, 1) != MPA_FEED_OK)
            local_error(c);
        c->tx_fed = c->tx.len;
    }
}

static void tx_compact(conn *c)
{
    size_t lo = c->tx_wr < c->tx_fed ? c->tx_wr : c->tx_fed;
    if (!lo || (lo < c->tx.len && lo < 4096))
        return;
    memmove(c->tx.p, c->tx.p + lo, c->tx.len - lo);
    c->tx.len -= lo;
    c->tx_wr -= lo;
    c->tx_fed -= lo;
    unsigned k = 0;
    for (unsigned i = 0; i < c->n_bnd; i++)
        if (c->bnd[i] > lo)
            c->bnd[k++] = c->bnd[i] - lo;
    c->n_bnd = (uint8_t)k;
    if (!c->tx.len && c->tx.cap > (256u << 10))
        pbuf_free(&c->tx);
}

static void step(conn *c)
{
    for (int round = 0; round < 4; round++) {
        if (c->peer_frame_seen && !c->peer_frame_done) {
            c->peer_frame_done = 1;
            if (c->phase == PH_STARTUP) {
                if (c->role == MPA_ROLE_INITIATOR)
                    init_frame(c);
                else
                    resp_frame(c);
            }
        }
        react_now(c);
        work(c);
        uint8_t had = c->react;
        feed_self(c);
        if (c->react == had)
            break;
    }
    tx_compact(c);
}

/* ---- the public side --------------------------------------------------- */

int conn_init(conn *c, const peer_cfg *cfg, mpa_role role, const char *name, int fd)
{
    memset(c, 0, sizeof *c);
    c->cfg = cfg;
    c->role = role;
    c->fd = fd;
    c->msn[0] = c->msn[1] = c->msn[2] = c->msn[3] = 1; /* RFC 5041 5: MSNs start at 1 */
    for (unsigned q = 0; q < 4; q++)
        c->rx_msn[q] = 1; /* ... on the peer's queues too (RFC 5041 4.3) */
    snprintf(c->name, sizeof c->name, "%s", name);
    /* What the peer sends may wait (before our Reply) up to RX_HELD_MAX. */
    mpa_feeder_limits lim = {mpa_feeder_cost(1, RX_HELD_MAX), NULL, 0};
    c->s = malloc(mpa_stream_size());
    c->feed = mpa_feeder_new(&lim);
    if (!c->s || !c->feed)
        return -1;
    mpa_stream_init(c->s, NULL, on_event, c);
    mpa_feeder_bind(c->feed, c->s);
    if (role == MPA_ROLE_INITIATOR)
        init_start(c); /* rule 1: the Initiator sends first */
    step(c);
    return 0;
}

void conn_free(conn *c)
{
    pbuf_free(&c->tx);
    pbuf_free(&c->rx);
    pbuf_free(&c->msg);
    pbuf_free(&c->held);
    free(c->mem);
    mpa_feeder_free(c->feed);
    free(c->s);
    c->feed = NULL;
    c->s = NULL;
}

void conn_input(conn *c, const uint8_t *p, size_t n)
{
    if (!n)
        return;
    if (c->rx.len) {
        if (pbuf_reserve(&c->rx, n)) {
            local_error(c);
            return;
        }
        memcpy(c->rx.p + c->rx.len, p, n);
        c->rx.len += n;
        c->rv = c->rx.p;
        c->rv_off = c->rx_off;
        c->rv_len = c->rx.len;
    } else {
        c->rv = p;
        c->rv_off = c->rx_end;
        c->rv_len = n;
    }
    c->rx_read_off = c->rx_end;
    c->rx_end += n;
    if (mpa_feeder_data(c->feed, PEER, p, n, 1) != MPA_FEED_OK)
        local_error(c); /* more than RX_HELD_MAX waiting */
    /* What we queue in answer (our Reply) lets the engine take more of
     * the peer's octets, which may call for more answers: step until the
     * feeder holds no fewer. */
    for (;;) {
        uint64_t held = mpa_feeder_octets(c->feed, PEER);
        step(c);
        if (mpa_feeder_octets(c->feed, PEER) == held)
            break;
    }
    /* Keep what is still needed: octets the engine did not take, and
     * (for an echo) the start of the FPDU being received. */
    uint64_t end = c->rx_end, keep = end - mpa_feeder_octets(c->feed, PEER);
    if (c->role == MPA_ROLE_RESPONDER && c->rx_in_fpdu && c->rx_fpdu_start < keep &&
        c->rx_fpdu_start >= c->rv_off && keep - c->rx_fpdu_start <= MPA_FPDU_WIRE_MAX)
        keep = c->rx_fpdu_start;
    size_t k = (size_t)(end - keep);
    if (c->rv == c->rx.p) {
        memmove(c->rx.p, c->rx.p + (size_t)(keep - c->rx_off), k);
    } else if (k) {
        c->rx.len = 0;
        if (pbuf_reserve(&c->rx, k)) {
            local_error(c);
            k = 0, keep = end;
        } else {
            memcpy(c->rx.p, c->rv + (size_t)(keep - c->rv_off), k);
        }
    }
    c->rx.len = k;
    c->rx_off = keep;
    if (!k && c->rx.cap > (256u << 10))
        pbuf_free(&c->rx);
    /* Held octets may be fed later (after our next octets): their events
     * find them in rx. */
    c->rv = c->rx.p;
    c->rv_off = c->rx_off;
    c->rv_len = c->rx.len;
}

size_t conn_tx_next(conn *c, const uint8_t **p)
{
    size_t avail = c->tx.len - c->tx_wr;
    *p = c->tx.p + c->tx_wr;
    if (!avail)
        return 0;
    /* Up to the last record boundary within one segment's worth (EMSS),
     * or the first boundary when a record is larger. */
    if (avail <= 536)
        return avail; /* within any MSS */
    size_t lim = emss(c), best = 0;
    for (unsigned i = 0; i < c->n_bnd; i++) {
        if (c->bnd[i] <= c->tx_wr)
            continue;
        size_t n = c->bnd[i] - c->tx_wr;
        if (n <= lim || !best)
            best = n;
        if (n > lim)
            break;
    }
    return best ? best : avail;
}

void conn_written(conn *c, size_t n)
{
    c->tx_wr += n;
    if (n)
        c->progress = 1;
    step(c);
}

void conn_shut(conn *c)
{
    if (c->shut)
        return;
    feed_self(c);
    c->shut = 1;
    mpa_feeder_end(c->feed, SELF, MPA_END_FIN);
}

void conn_peer_end(conn *c, int rst)
{
    if (c->peer_eof)
        return;
    c->peer_eof = 1;
    mpa_feeder_end(c->feed, PEER, rst ? MPA_END_RST : MPA_END_FIN);
    if (c->read_held) {
        /* --fault eof-drops-reads: the Read Response still owed is
         * dropped; RFC 5041 6.2.1 wants it sent after a half-close */
        c->read_held = 0;
        c->fault_done = 1;
    }
    if (rst) {
        if (!c->end)
            c->end = END_RESET;
        c->phase = PH_CLOSING;
        c->shut = 1; /* nothing more can go out */
        c->tx_wr = c->tx.len;
        return;
    }
    if (!c->end) {
        if (c->react == RE_BADFRAME && c->cfg->fault != FAULT_NEVER_CLOSE)
            c->end = END_BAD_FRAME; /* e.g. a FIN inside the private data */
        else if (c->phase == PH_FULL && c->role == MPA_ROLE_RESPONDER && c->react == RE_NONE)
            c->end = END_OK; /* the Initiator finished */
        else
            c->end = END_PEER_CLOSED;
    }
    c->phase = PH_CLOSING;
    c->want_shut = 1;
    step(c);
}

void conn_timeout(conn *c)
{
    if (c->phase == PH_CLOSING) {
        /* The peer did not close in time either: give up. */
        c->shut = c->peer_eof = 1;
        return;
    }
    close_with(c, END_TIMEOUT);
}

void conn_error(conn *c)
{
    if (!c->end)
        c->end = END_ERROR;
    c->phase = PH_CLOSING;
    c->shut = c->peer_eof = 1;
}

int conn_done(const conn *c) { return c->shut && c->peer_eof; }

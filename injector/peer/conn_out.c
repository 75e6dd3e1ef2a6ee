/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What this end sends (see conn_priv.h): startup frames and FPDUs, each
 * built with libmpa (mpa_frame_encode, mpa_ddp_encode, mpa_fpdu_encode)
 * and queued in c->tx as one record, so that every write, and so every
 * TCP segment, starts with an FPDU (RFC 5044 5.1).  Send messages and
 * Read Responses are cut to MULPDU (RFC 5044 4.5).  Closing is queued
 * here too: the reason is recorded and our FIN follows what is queued.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "conn_priv.h"

/* Scratch for the ULPDU being built; this program has one thread. */
static uint8_t ulp_out[MPA_ULPDU_MAX + 64];

#define READ_MAX PEER_SRC_LEN /* largest RDMA Read this end answers */

/* ---- the queue and the end ------------------------------------------- */

int pbuf_reserve(pbuf *b, size_t more)
{
    if (b->len + more <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

/* Record why the connection ends (the first reason wins) and close:
 * flush what is queued, send FIN, wait for the peer's FIN. */
void close_with(conn *c, peer_end why)
{
    if (!c->end)
        c->end = (uint8_t)why;
    c->phase = PH_CLOSING;
    c->want_shut = 1;
}

void local_error(conn *c)
{
    close_with(c, END_ERROR);
}

/* ---- output: frames and FPDUs ---------------------------------------- */

/* Append n octets to tx as one record (a frame or an FPDU, or several
 * that must leave together); NULL when memory runs out. */
static uint8_t *tx_room(conn *c, size_t n)
{
    if (pbuf_reserve(&c->tx, n)) {
        local_error(c);
        return NULL;
    }
    return c->tx.p + c->tx.len;
}

static void tx_commit(conn *c, size_t n)
{
    c->tx.len += n;
    c->tx_off += n;
    /* Record boundaries let the writer end each write on one, so TCP
     * segments start with an FPDU (RFC 5044 5.1, MPA-FPD-ALIGN). */
    if (c->n_bnd == PEER_BND_MAX)
        c->n_bnd--; /* merge with the previous record */
    c->bnd[c->n_bnd++] = c->tx.len;
}

void queue_frame(conn *c, const mpa_frame_enc *e)
{
    size_t need = MPA_FRAME_HDR_LEN + (e->enh_present ? MPA_ENH_LEN : 0) + e->pd_len;
    uint8_t *o = tx_room(c, need);
    size_t w = 0;
    if (!o)
        return;
    if (mpa_frame_encode(e, o, need, &w) != MPA_OK) {
        local_error(c);
        return;
    }
    c->rev_tx = e->rev;
    tx_commit(c, w);
}

/* One FPDU carrying the DDP/RDMAP headers of d and plen payload octets
 * (payload NULL: a pattern). */
static void queue_fpdu(conn *c, const mpa_ddp *d, const uint8_t *payload, size_t plen)
{
    size_t hl = 0;
    if (mpa_ddp_encode(d, ulp_out, sizeof ulp_out, &hl) != MPA_OK || hl + plen > MPA_ULPDU_MAX) {
        local_error(c);
        return;
    }
    if (payload)
        memcpy(ulp_out + hl, payload, plen);
    else
        for (size_t i = 0; i < plen; i++)
            ulp_out[hl + i] = (uint8_t)(i * 7u + c->fpdus_tx);
    size_t ulen = hl + plen;
    uint32_t seq = (uint32_t)c->tx_off;
    mpa_fpdu_cfg fc = {c->m_tx, c->crc, (uint32_t)c->tx_mode_off};
    size_t wl = mpa_fpdu_wire_len((uint16_t)ulen, seq, &fc);
    mpa_fpdu_faults fl;
    memset(&fl, 0, sizeof fl);
    fl.len_override = -1;
    const mpa_fpdu_faults *use = NULL;
    if (faulty(c, FAULT_BAD_CRC)) {
        if (c->crc) {
            fl.crc_mode = 2;
            fl.crc_xor = 0x5A5A5A5Au;
            use = &fl;
            c->fault_done = 1;
        } else {
            fault_not_here(c, "CRCs are off on this connection");
        }
    }
    if (faulty(c, FAULT_BAD_MARKER)) {
        if (!c->m_tx) {
            fault_not_here(c, "the peer asked for no markers (M=0)");
        } else {
            int nth = marker_victim(seq, wl, (uint32_t)c->tx_mode_off);
            if (nth >= 0) {
                fl.marker_ptr_delta = 4;
                fl.marker_nth = (unsigned)nth;
                use = &fl;
                c->fault_done = 1;
            }
        }
    }
    uint8_t *o = tx_room(c, wl);
    size_t w = 0;
    if (!o)
        return;
    if (mpa_fpdu_encode(ulp_out, ulen, seq, &fc, use, o, wl, &w) != MPA_OK) {
        local_error(c);
        return;
    }
    tx_commit(c, w);
    c->fpdus_tx++;
}

static void ddp_untagged(mpa_ddp *d, unsigned op, uint32_t qn, uint32_t msn, uint32_t mo, int last)
{
    memset(d, 0, sizeof *d);
    d->hdr.last = (uint8_t)(last ? 1 : 0);
    d->hdr.dv = 1;
    d->hdr.rv = 1;
    d->hdr.opcode = (uint8_t)op;
    d->hdr.qn = qn;
    d->hdr.msn = msn;
    d->hdr.mo = mo;
}

static void ddp_tagged(mpa_ddp *d, unsigned op, uint32_t stag, uint64_t to, int last)
{
    memset(d, 0, sizeof *d);
    d->hdr.tagged = 1;
    d->hdr.last = (uint8_t)(last ? 1 : 0);
    d->hdr.dv = 1;
    d->hdr.rv = 1;
    d->hdr.opcode = (uint8_t)op;
    d->hdr.stag = stag;
    d->hdr.to = to;
}

/* The connection's EMSS, asked once, when first needed. */
unsigned emss(conn *c)
{
    if (!c->emss) {
        int mss = 0;
        socklen_t l = sizeof mss;
        if (c->fd < 0 || getsockopt(c->fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &l) || mss < 64)
            mss = 536; /* RFC 9293 3.7.1: the default */
        c->emss = (unsigned)mss;
    }
    return c->emss;
}

/* ULPDU octets per FPDU this end may send (RFC 5044 4.5: MULPDU). */
static size_t mulpdu(conn *c)
{
    unsigned m = mpa_mulpdu(emss(c), c->m_tx);
    return m > MPA_ULPDU_MAX ? MPA_ULPDU_MAX : m;
}

/* The octet at offset o of this end's k-th data Send: the Initiator
 * checks the echoes against it. */
uint8_t pattern(unsigned long k, uint64_t o) { return (uint8_t)(o * 7u + k * 13u + 1u); }

/* A Send message of plen octets, cut into DDP segments that fit MULPDU;
 * mo is the first segment's Message Offset, last the L bit of the
 * message's last segment.  payload NULL: data Send number k, the
 * pattern. */
void queue_send(conn *c, const uint8_t *payload, size_t plen, uint32_t mo, int last, unsigned long k)
{
    static uint8_t seg[MPA_ULPDU_MAX];
    /* Within MULPDU for any MSS (536, markers): no need to ask the MSS. */
    size_t room = plen <= 500 ? 500 : mulpdu(c) - MPA_DDP_UNTAGGED_HDR_LEN;
    if (c->echo_seg && room > c->echo_seg && c->echo_seg >= 500)
        room = c->echo_seg; /* an echo keeps the sender's larger segments */
    size_t off = 0;
    do {
        size_t n = plen - off < room ? plen - off : room;
        int l = off + n == plen ? last : 0;
        mpa_ddp d;
        ddp_untagged(&d, MPA_RDMAP_SEND, MPA_QN_SEND, c->msn[0], mo + (uint32_t)off, l);
        if (!payload)
            for (size_t i = 0; i < n; i++)
                seg[i] = pattern(k, mo + off + i);
        queue_fpdu(c, &d, payload ? payload + off : seg, n);
        off += n;
        if (!l && faulty(c, FAULT_MSN_PER_SEGMENT))
            c->msn[0]++; /* RFC 5041 4.3: a message keeps one MSN; not here */
    } while (off < plen);
    if (last)
        c->msn[0]++;
}

void queue_term(conn *c, unsigned code)
{
    mpa_ddp d;
    ddp_untagged(&d, MPA_RDMAP_TERMINATE, MPA_QN_TERMINATE, c->msn[2]++, 0, 1);
    d.u.term.layer = MPA_TERM_LAYER_LLP;
    d.u.term.etype = 0; /* MPA */
    /* Codes 5-7 are RFC 6581's (section 8): a peer that knows only
     * RFC 5044 is told of a local error the RFC 5040 7 way, as an RDMAP
     * Remote Operation Error localized to the stream. */
    int rfc6581 = c->sent_s || (c->rev_tx >= 2 && c->peer_frame_seen && c->pf.rev >= 2);
    if (code >= 5 && !rfc6581) {
        d.u.term.layer = MPA_TERM_LAYER_RDMAP;
        d.u.term.etype = 2;
        code = 0x07;
    }
    d.u.term.code = (uint8_t)code;
    queue_fpdu(c, &d, NULL, 0);
    c->term_sent = (uint8_t)code;
}

void queue_term_seg(conn *c)
{
    mpa_ddp d;
    ddp_untagged(&d, MPA_RDMAP_TERMINATE, MPA_QN_TERMINATE, c->msn[2]++, 0, 1);
    d.u.term.layer = c->react_layer;
    d.u.term.etype = c->react_etype;
    d.u.term.code = c->react_code;
    /* RFC 5040 4.8 figure 10: a DDP error, or an RDMAP error on an
     * incoming message, carries the segment's length and DDP header. */
    if (faulty(c, FAULT_TERM_NO_HDR)) {
        c->fault_done = 1; /* M=0, D=0: nothing copied */
    } else {
        d.u.term.m = 1;
        d.u.term.d = 1;
        d.u.term.seglen = c->react_seglen;
        d.u.term.ddp_hdr = c->react_hdr;
        d.u.term.r = c->react_r;
        d.u.term.rreq = c->react_rreq;
    }
    queue_fpdu(c, &d, NULL, 0);
    c->term_sent = c->react_code ? c->react_code : 0xFF;
}

void queue_rtr(conn *c, unsigned kind)
{
    mpa_ddp d;
    switch (kind) {
    case MPA_RTR_SEND:
        ddp_untagged(&d, MPA_RDMAP_SEND, MPA_QN_SEND, c->msn[0]++, 0, 1);
        break;
    case MPA_RTR_WRITE:
        ddp_tagged(&d, MPA_RDMAP_RDMA_WRITE, 0, 0, 1);
        break;
    default: /* MPA_RTR_READ: a zero-length RDMA Read Request */
        ddp_untagged(&d, MPA_RDMAP_READ_REQUEST, MPA_QN_READ_REQUEST, c->msn[1]++, 0, 1);
        /* STags 1, not 0: some hardware fails any tagged message with
         * STag 0, this one's Read Response too (MPA-QRK-RTR-STAG0). */
        d.u.rreq.sink_stag = 1;
        d.u.rreq.src_stag = 1;
        c->reads_left++;
        break;
    }
    queue_fpdu(c, &d, NULL, 0);
    c->rtr = (uint8_t)kind;
}

/* RDMA Read Response to a Read Request (RFC 5040 4.5): tagged to the
 * Data Sink STag/TO, cut to MULPDU, L on the last segment. */
void answer_read(conn *c, const mpa_rdma_read_req *rq)
{
    if (rq->size > READ_MAX) {
        c->react = RE_TERM;
        c->react_code = 5;
        return;
    }
    /* RFC 5040 5.5 rule 17: the source as it is now, after what the
     * Writes before the Request placed (zeros where none wrote); the
     * fault answers as if none had. */
    static const uint8_t zeros[MPA_ULPDU_MAX];
    const uint8_t *src = c->mem && rq->src_stag == PEER_SRC_STAG && rq->src_to < PEER_SRC_LEN &&
                                 rq->size <= PEER_SRC_LEN - rq->src_to
                             ? c->mem + rq->src_to
                             : NULL;
    if (src && rq->size && faulty(c, FAULT_READ_STALE)) {
        c->fault_done = 1;
        src = NULL;
    }
    size_t room = rq->size <= 500 ? 500 : mulpdu(c) - MPA_DDP_TAGGED_HDR_LEN;
    size_t off = 0;
    do {
        size_t n = rq->size - off < room ? rq->size - off : room;
        mpa_ddp d;
        ddp_tagged(&d, MPA_RDMAP_READ_RESPONSE, rq->sink_stag, rq->sink_to + off, off + n == rq->size);
        queue_fpdu(c, &d, src ? src + off : zeros, n);
        off += n;
    } while (off < rq->size);
}

/* Atomic Response to an Atomic Request (RFC 7306 5.2.2): queue 3, the
 * Request's identifier and the original value of the target. */
void answer_atomic(conn *c, uint32_t req_id, uint64_t orig)
{
    mpa_ddp d;
    ddp_untagged(&d, MPA_RDMAP_ATOMIC_RESPONSE, MPA_QN_ATOMIC_RESP, c->msn[3]++, 0, 1);
    d.u.atomic_resp.orig_req_id = req_id;
    d.u.atomic_resp.orig_value = orig;
    queue_fpdu(c, &d, NULL, 0);
}

/*
 * One MPA endpoint, either role, free of sockets.
 *
 * RFC 5044 7.1.1 (frames), 7.1.2 (startup rules 1-10), 4 (FPDUs,
 * markers, CRC), 8 (TERMINATE codes 1-4); RFC 6581 6 (S bit, Rev 2),
 * 9.1 (IRD/ORD), 9.2 (A, B, C, D and the RTR), 9.3 (TERMINATE codes 5-7).
 *
 * Every octet this end sends is built with libmpa (mpa_frame_encode,
 * mpa_ddp_encode, mpa_fpdu_encode); every octet it receives is judged by
 * the libmpa stream engine, and this file reacts to the engine's events:
 *
 *   peer's finding            reaction
 *   improper startup frame    close, no Reply / no FPDU (rules 2, 3, 5, 9)
 *   bad CRC                   TERMINATE LLP/MPA code 2, then close
 *   marker error              TERMINATE code 3, then close
 *   ORD > our IRD, read RTR   TERMINATE code 6
 *     with IRD 0
 *   A not echoed, no RTR      TERMINATE code 7
 *     option, RTR not offered
 *   other enhanced or         TERMINATE code 5 (RFC 6581 9.3)
 *     startup errors in FPDU mode
 *
 * A TERMINATE is an FPDU, so it is only sent in Full Operation, and by a
 * Responder only after it received an FPDU (rule 4); otherwise the
 * reaction is to close.  CRC and marker errors do not close TCP inside
 * MPA (MPA-ERR-KEEP-TCP): the ULP here closes after its TERMINATE.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "mpa/describe.h"
#include "peer.h"

#define SELF PEER_DIR_SELF
#define PEER PEER_DIR_PEER

/* Scratch for the ULPDU being built and the one being echoed; this
 * program has one thread. */
static uint8_t ulp_out[MPA_ULPDU_MAX + 64];
static uint8_t ulp_in[MPA_ULPDU_MAX + 64];
static mpa_fpdu fpdu_tmp;

#define RX_HELD_MAX (1u << 20)   /* octets the engine may leave unconsumed */
#define READ_MAX (1u << 20)      /* largest RDMA Read this end answers */
#define TX_HIGH (32u << 10)      /* produce Sends while less is unwritten */

static const uint8_t rtr_bit[4] = {0, 1, 2, 4}; /* MPA_RTR_SEND/WRITE/READ */

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

/* ---- small helpers --------------------------------------------------- */

static int pbuf_reserve(pbuf *b, size_t more)
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

static void pbuf_free(pbuf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

static void fset_add(uint64_t *set, unsigned id)
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

static void note(const conn *c, const char *fmt, const char *what)
{
    if (c->cfg->quiet)
        return;
    fprintf(stderr, "mpa-peer: %s: ", c->name);
    fprintf(stderr, fmt, what);
    fputc('\n', stderr);
}

/* Record why the connection ends (the first reason wins) and close:
 * flush what is queued, send FIN, wait for the peer's FIN. */
static void close_with(conn *c, peer_end why)
{
    if (!c->end)
        c->end = (uint8_t)why;
    c->phase = PH_CLOSING;
    c->want_shut = 1;
}

static void local_error(conn *c)
{
    close_with(c, END_ERROR);
}

/* The fault could not apply here: say so once and behave correctly. */
static void fault_not_here(conn *c, const char *why)
{
    if (c->fault_na || c->fault_done)
        return;
    c->fault_na = 1;
    if (!c->cfg->quiet)
        fprintf(stderr, "mpa-peer: %s: --fault %s does not apply to this connection (%s)\n", c->name,
                fault_get(c->cfg->fault)->name, why);
}

static int faulty(const conn *c, peer_fault f)
{
    return c->cfg->fault == f && !c->fault_done && !c->fault_na;
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

static void queue_frame(conn *c, const mpa_frame_enc *e)
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

/* Which markers of an FPDU of wire length wl at seq to corrupt so that
 * only MPA-MRK-LEN-AGREE is broken: every marker when none stands at its
 * first octet (they then agree with each other), or the one inner marker
 * behind a leading one.  Returns mpa_fpdu_faults.marker_nth, or -1 when
 * this FPDU cannot do it. */
static int marker_victim(uint32_t seq, size_t wl, uint32_t base)
{
    uint32_t ph = (seq - base) & (MPA_MARKER_INTERVAL - 1);
    if (ph) /* no leading marker: the first one is MPA_MARKER_INTERVAL - ph in */
        return MPA_MARKER_INTERVAL - ph < wl ? 0 : -1;
    /* a leading marker: exactly one more inside */
    return wl > MPA_MARKER_INTERVAL && wl <= 2 * MPA_MARKER_INTERVAL ? 2 : -1;
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
static unsigned emss(conn *c)
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
static uint8_t pattern(unsigned long k, uint64_t o) { return (uint8_t)(o * 7u + k * 13u + 1u); }

/* A Send message of plen octets, cut into DDP segments that fit MULPDU;
 * mo is the first segment's Message Offset, last the L bit of the
 * message's last segment.  payload NULL: data Send number k, the
 * pattern. */
static void queue_send(conn *c, const uint8_t *payload, size_t plen, uint32_t mo, int last, unsigned long k)
{
    static uint8_t seg[MPA_ULPDU_MAX];
    /* Within MULPDU for any MSS (536, markers): no need to ask the MSS. */
    size_t room = plen <= 500 ? 500 : mulpdu(c) - MPA_DDP_UNTAGGED_HDR_LEN;
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
    } while (off < plen);
    if (last)
        c->msn[0]++;
}

static void queue_term(conn *c, unsigned code)
{
    mpa_ddp d;
    ddp_untagged(&d, MPA_RDMAP_TERMINATE, MPA_QN_TERMINATE, c->msn[2]++, 0, 1);
    d.u.term.layer = MPA_TERM_LAYER_LLP;
    d.u.term.etype = 0; /* MPA */
    d.u.term.code = (uint8_t)code;
    queue_fpdu(c, &d, NULL, 0);
    c->term_sent = (uint8_t)code;
}

static void queue_rtr(conn *c, unsigned kind)
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
        c->reads_left++;
        break;
    }
    queue_fpdu(c, &d, NULL, 0);
    c->rtr = (uint8_t)kind;
}

/* RDMA Read Response to a Read Request (RFC 5040 4.5): tagged to the
 * Data Sink STag/TO, cut to MULPDU, L on the last segment. */
static void answer_read(conn *c, const mpa_rdma_read_req *rq)
{
    if (rq->size > READ_MAX) {
        c->react = RE_TERM;
        c->react_code = 5;
        return;
    }
    size_t room = rq->size <= 500 ? 500 : mulpdu(c) - MPA_DDP_TAGGED_HDR_LEN;
    size_t off = 0;
    do {
        size_t n = rq->size - off < room ? rq->size - off : room;
        mpa_ddp d;
        ddp_tagged(&d, MPA_RDMAP_READ_RESPONSE, rq->sink_stag, rq->sink_to + off, off + n == rq->size);
        queue_fpdu(c, &d, NULL, n);
        off += n;
    } while (off < rq->size);
}

/* ---- reactions to findings about the peer ---------------------------- */

static void reaction(conn *c, mpa_finding_id id)
{
    unsigned re = RE_NONE, code = 0;
    switch (id) {
    /* Improperly formatted frames: close (RFC 5044 7.1.2 rules 2, 3, 5, 9). */
    case MPA_F_FRM_KEY_REQ:
    case MPA_F_FRM_KEY_REP:
    case MPA_F_STA_REQ_FIRST:
    case MPA_F_FRM_REV:
    case MPA_F_FRM_REV_ENH:
    case MPA_F_FRM_PDLEN_MAX:
    case MPA_F_FRM_PDLEN_MATCH:
    case MPA_F_FRM_WHOLE:
    case MPA_F_FRM_S_PDLEN:
        re = RE_BADFRAME;
        break;
    /* R in a Request is sent as zero but not checked on receipt
     * (RFC 5044 7.1.1): the sender broke the rule, the Request stands. */
    case MPA_F_FRM_R_REQ:
        break;
    /* Startups that cannot work: Initiator/Initiator (rule 8), octets
     * that cannot be framed yet, a peer that did not close after our
     * frame, FPDUs after a reject, a TERMINATE's own problems. */
    case MPA_F_STA_INIT_INIT:
    case MPA_F_STA_RESP_WAIT:
    case MPA_F_STA_INIT_FPDU_WAIT:
    case MPA_F_STA_BAD_REQ_CLOSE:
    case MPA_F_STA_BAD_REP_CLOSE:
    case MPA_F_FRM_KEY_CHECK:
    case MPA_F_STA_NO_FPDU_AFTER_REJECT:
    case MPA_F_TRM_FORMAT:
    case MPA_F_TRM_CODE:
    case MPA_F_TRM_LAST:
        re = RE_CLOSE;
        break;
    case MPA_F_CRC_VALID:
    case MPA_F_CRC_NEGOTIATE:
        re = RE_TERM, code = 2;
        break;
    case MPA_F_MRK_PRESENT:
    case MPA_F_MRK_PTR:
    case MPA_F_MRK_SAME_FPDU:
    case MPA_F_MRK_LEN_AGREE:
    case MPA_F_STA_FIRST_MARKER:
        re = RE_TERM, code = 3;
        break;
    case MPA_F_ENH_ORD_LE_IRD:
    case MPA_F_ENH_RTR_READ_IRD:
        re = RE_TERM, code = 6;
        break;
    case MPA_F_ENH_A_ECHO:
    case MPA_F_ENH_RESP_OPT:
    case MPA_F_ENH_RTR_MATCH:
        re = RE_TERM, code = 7;
        break;
    case MPA_F_ENH_REPLY_ENH:
    case MPA_F_ENH_REPLY_PLAIN:
    case MPA_F_ENH_UNSUPPORTED:
    case MPA_F_ENH_3FFF:
    case MPA_F_ENH_RTR_SEND:
    case MPA_F_ENH_RTR_FIRST:
    case MPA_F_STA_RESP_FPDU_WAIT:
    case MPA_F_FPD_ULPDU_MAX:
    case MPA_F_DDP_VERSION:
    case MPA_F_RDMAP_VERSION:
    case MPA_F_DDP_RSVD:
    case MPA_F_RDMAP_RSVD:
    case MPA_F_RDMAP_OPCODE:
    case MPA_F_RDMAP_TAGGED:
    case MPA_F_DDP_QN:
    case MPA_F_RDMAP_ONE_SEG:
    case MPA_F_RDMAP_ATOMIC:
        re = RE_TERM, code = 5;
        break;
    default:
        /* Sent-as-zero fields the receiver ignores (Res, marker
         * reserved bits, pad, B/C/D with A=0), SHOULDs, notes. */
        break;
    }
    if (re != RE_NONE && c->react == RE_NONE) {
        c->react = (uint8_t)re;
        c->react_code = (uint8_t)code;
    }
}

/* ---- input: what the peer sends ---------------------------------------- */

/* The ULPDU of a received FPDU, markers removed, copied to dst; SIZE_MAX
 * when its octets are not at hand. */
static size_t fpdu_ulpdu(const conn *c, const mpa_event *ev, uint8_t *dst, size_t cap)
{
    const mpa_ev_fpdu *f = &ev->u.fpdu;
    if (!c->rv || ev->off < c->rv_off || ev->off + f->wire_len > c->rv_off + c->rv_len)
        return SIZE_MAX;
    const uint8_t *p = c->rv + (size_t)(ev->off - c->rv_off);
    mpa_fpdu_cfg fc = {c->m_rx, 0, ev->seq - f->marker_phase};
    size_t need;
    if (mpa_fpdu_layout(p, f->wire_len, ev->seq, &fc, &fpdu_tmp, &need) != MPA_OK)
        return SIZE_MAX;
    return mpa_fpdu_ulpdu_copy(p, &fpdu_tmp, dst, cap);
}

static void on_peer_fpdu(conn *c, const mpa_event *ev)
{
    const mpa_ev_fpdu *f = &ev->u.fpdu;
    const mpa_ddp *dd = &f->ddp;
    c->fpdus_rx++;
    c->progress = 1;
    if (c->phase != PH_FULL || c->reacted)
        return; /* on the way out, or octets after a reject */
    if (f->crc == MPA_CRC_BAD || f->ddp_status != MPA_OK)
        return; /* the finding set the reaction; a note-level runt is dropped */
    if (dd->hdr.opcode == MPA_RDMAP_TERMINATE) {
        /* The peer ends the connection: close, whatever else it broke
         * on the way (no TERMINATE answers a TERMINATE). */
        c->term_rcvd = dd->u.term.code ? dd->u.term.code : 0xFF;
        c->react = RE_CLOSE;
        return;
    }
    if (c->react != RE_NONE)
        return;
    int first = !c->got_fpdu;
    c->got_fpdu = 1;
    if (c->role == MPA_ROLE_RESPONDER && first && c->a) {
        /* The negotiated RTR (anything else was a finding): the provider
         * consumes it; a read RTR gets its zero-length Read Response. */
        c->rtr = (uint8_t)f->rtr;
        if (f->rtr == MPA_RTR_READ)
            answer_read(c, &dd->u.rreq);
        return;
    }
    switch (dd->hdr.opcode) {
    case MPA_RDMAP_SEND:
    case MPA_RDMAP_SEND_INVALIDATE:
    case MPA_RDMAP_SEND_SE:
    case MPA_RDMAP_SEND_SE_INVALIDATE:
        if (c->role == MPA_ROLE_RESPONDER) {
            size_t got = fpdu_ulpdu(c, ev, ulp_in, sizeof ulp_in);
            const uint8_t *pl = got == f->ulpdu_len ? ulp_in + dd->need_len : NULL;
            queue_send(c, pl, dd->payload_len, dd->hdr.mo, dd->hdr.last, 0);
        } else {
            /* An echo of our Send number echoes_done: check the octets
             * the engine kept (the first 128 of the ULPDU). */
            size_t hl = dd->need_len;
            for (size_t i = hl; i < f->ulpdu_avail; i++)
                if (f->ulpdu[i] != pattern(c->echoes_done, dd->hdr.mo + (i - hl))) {
                    c->bad_echo++;
                    break;
                }
            if (dd->hdr.last) {
                c->echoes_done++;
                if (c->echoes_left)
                    c->echoes_left--;
            }
        }
        break;
    case MPA_RDMAP_READ_REQUEST:
        answer_read(c, &dd->u.rreq);
        break;
    case MPA_RDMAP_READ_RESPONSE:
        if (dd->hdr.last && c->reads_left)
            c->reads_left--;
        break;
    default: /* RDMA Write (placed), atomics and immediates (not used here) */
        break;
    }
}

static void on_event(void *user, const mpa_event *ev)
{
    conn *c = user;
    if (c->cfg->verbose >= 2) {
        char line[512];
        mpa_event_format(ev, line, sizeof line);
        fprintf(stderr, "mpa-peer: %s: %s %s\n", c->name, ev->dir == SELF ? "sent" : "recv", line);
    }
    switch (ev->type) {
    case MPA_EV_FRAME:
        if (ev->dir == PEER && !c->peer_frame_seen) {
            c->peer_frame_seen = 1;
            c->pf = ev->u.frame.frame;
            c->pf.pd = NULL;
            c->progress = 1;
        }
        break;
    case MPA_EV_MODE:
        if (ev->dir == PEER) {
            c->rx_in_fpdu = ev->u.mode.mode == MPA_MODE_FPDU;
            if (c->rx_in_fpdu) {
                c->m_rx = (uint8_t)ev->u.mode.markers;
                c->rx_fpdu_start = ev->off;
            }
        }
        break;
    case MPA_EV_MARKER:
        break;
    case MPA_EV_FPDU:
        if (ev->dir == PEER) {
            c->rx_fpdu_start = ev->off + ev->u.fpdu.wire_len;
            on_peer_fpdu(c, ev);
        }
        break;
    case MPA_EV_FINDING:
        if (ev->dir == SELF) {
            fset_add(c->f_self, ev->u.finding.id);
        } else {
            fset_add(c->f_peer, ev->u.finding.id);
            /* C=0 both ways after our own --crc 0 is what this end's
             * administrator asked for (RFC 5044 4.4 (2a)), not the
             * peer's fault. */
            int asked = ev->u.finding.id == MPA_F_CRC_DEFAULT && !c->cfg->crc;
            if (ev->u.finding.rule->severity == MPA_SEV_ERROR && !asked)
                c->peer_err = 1;
            reaction(c, ev->u.finding.id);
        }
        if (c->cfg->verbose == 1 && !c->cfg->quiet) /* -vv: in the event log */
            fprintf(stderr, "mpa-peer: %s: %s %s %s: %s\n", c->name, ev->dir == SELF ? "this end" : "peer",
                    mpa_severity_str(ev->u.finding.rule->severity), ev->u.finding.rule->id,
                    ev->u.finding.msg);
        break;
    case MPA_EV_DATA:
        break;
    }
}

/* ---- the startup ------------------------------------------------------- */

static void frame_pd(const conn *c, mpa_frame_enc *e)
{
    static uint8_t big[600];
    e->pd = c->cfg->pd;
    e->pd_len = c->cfg->pd_len;
    e->pd_len_override = -1;
    if (c->cfg->fault == FAULT_PDLEN_OVER_512) {
        /* 600 octets of private data in all, the enhanced field included */
        size_t want = 600 - (e->enh_present ? MPA_ENH_LEN : 0);
        memset(big, 0, sizeof big);
        memcpy(big, c->cfg->pd, c->cfg->pd_len);
        e->pd = big;
        e->pd_len = want;
    }
    if (c->cfg->fault == FAULT_PDLEN_LIE)
        e->pd_len_override = (int)((e->enh_present ? MPA_ENH_LEN : 0) + e->pd_len + 16);
}

/* Faults that change the frame's header. */
static void frame_faults(conn *c, mpa_frame_enc *e, uint8_t *key)
{
    switch (c->cfg->fault) {
    case FAULT_BAD_KEY:
        memcpy(key, mpa_key_bytes(e->kind), MPA_KEY_LEN);
        key[MPA_KEY_LEN - 1] = 'x';
        e->raw_key = key;
        c->fault_done = 1;
        break;
    case FAULT_WRONG_REV:
        e->rev = 3;
        c->fault_done = 1;
        break;
    case FAULT_PDLEN_OVER_512:
    case FAULT_PDLEN_LIE:
        c->fault_done = 1;
        break;
    default:
        break;
    }
}

static void init_start(conn *c)
{
    const peer_cfg *g = c->cfg;
    mpa_frame_enc e;
    uint8_t key[MPA_KEY_LEN];
    memset(&e, 0, sizeof e);
    e.kind = MPA_KEY_REQ;
    e.m = g->markers;
    e.c = g->crc;
    e.rev = g->rev;
    if (g->enhanced) {
        e.s = 1;
        e.enh_present = 1;
        e.enh.ird = g->ird;
        e.enh.ord = g->ord;
        if (g->p2p) {
            e.enh.a = 1;
            for (unsigned i = 0; i < g->n_rtr; i++) {
                e.enh.b |= g->rtr[i] == MPA_RTR_SEND;
                e.enh.c |= g->rtr[i] == MPA_RTR_WRITE;
                e.enh.d |= g->rtr[i] == MPA_RTR_READ;
            }
        }
        if (g->fault == FAULT_BCD_WITHOUT_A) {
            e.enh.a = 0;
            e.enh.b = e.enh.c = e.enh.d = 0;
            for (unsigned i = 0; i < g->n_rtr; i++) {
                e.enh.b |= g->rtr[i] == MPA_RTR_SEND;
                e.enh.c |= g->rtr[i] == MPA_RTR_WRITE;
                e.enh.d |= g->rtr[i] == MPA_RTR_READ;
            }
            c->fault_done = 1;
        }
        if (g->fault == FAULT_NO_RTR_OPTION) {
            e.enh.a = 1;
            e.enh.b = e.enh.c = e.enh.d = 0;
            c->fault_done = 1;
        }
    }
    frame_pd(c, &e);
    frame_faults(c, &e, key);
    queue_frame(c, &e);
    c->sent_s = e.s;
    c->sent_a = e.enh.a;
    if (g->fault == FAULT_PDLEN_LIE)
        close_with(c, END_FAULT); /* FIN inside the private data */
}

static int rtr_offered(unsigned bits, unsigned kind) { return (bits & rtr_bit[kind & 3]) != 0; }

/* A frame the engine found improperly formatted: closes (1), unless
 * this end's fault is never-close-on-bad-frame (nc), which goes on. */
static int bad_frame_closes(conn *c, int nc)
{
    if (c->react == RE_BADFRAME && nc) {
        c->react = RE_NONE;
        c->fault_done = 1;
    }
    if (c->react == RE_BADFRAME) {
        close_with(c, END_BAD_FRAME);
        return 1;
    }
    return 0;
}

/* The Responder got a whole Request. */
static void resp_frame(conn *c)
{
    const peer_cfg *g = c->cfg;
    const mpa_frame *q = &c->pf;
    int nc = g->fault == FAULT_NEVER_CLOSE;
    if (bad_frame_closes(c, nc))
        return;
    if (c->react != RE_NONE || (q->kind != MPA_KEY_REQ && !nc)) {
        close_with(c, END_STARTUP);
        return;
    }
    if (q->s && !g->enhanced) {
        /* RFC 6581 10: a responder without enhanced support closes. */
        note(c, "%s", "S=1 Request, no --enhanced: closing (RFC 6581 10)");
        close_with(c, END_STARTUP);
        return;
    }
    if (g->fault == FAULT_NO_REPLY) {
        c->phase = PH_SILENT;
        c->fault_done = 1;
        return;
    }

    mpa_frame_enc e;
    uint8_t key[MPA_KEY_LEN];
    memset(&e, 0, sizeof e);
    e.kind = MPA_KEY_REP;
    e.m = g->markers;
    e.c = g->crc;
    /* Answer a Rev 1 Request in Rev 1: a Rev 1 Initiator may not
     * interoperate with anything else (RFC 5044 7.1.1 Rev). */
    e.rev = q->rev >= 1 && q->rev < g->rev ? q->rev : g->rev;
    int reject = g->reject;
    int enh_req = q->s && q->has_enh;
    if (enh_req && g->fault == FAULT_IGNORES_S) {
        e.rev = 2;
        c->fault_done = 1;
        enh_req = 0; /* answered plain */
    } else if (g->fault == FAULT_IGNORES_S) {
        fault_not_here(c, "the Request has S=0");
    }
    unsigned offered = 0;
    if (enh_req) {
        const mpa_enh *qe = &q->enh;
        unsigned sup = 0, req = (qe->b ? 1u : 0) | (qe->c ? 2u : 0) | (qe->d ? 4u : 0);
        for (unsigned i = 0; i < g->n_rtr; i++)
            sup |= rtr_bit[g->rtr[i]];
        e.s = 1;
        e.rev = 2;
        e.enh_present = 1;
        e.enh.a = qe->a;
        /* RFC 6581 9.2: set each requested type we support; if none,
         * every type we support. */
        if (qe->a)
            offered = (sup & req) ? (sup & req) : sup;
        if (g->fault == FAULT_A_NOT_ECHOED) {
            e.enh.a = !qe->a;
            offered = e.enh.a ? sup : 0;
            c->fault_done = 1;
        }
        if (g->fault == FAULT_BCD_WITHOUT_A) {
            if (!qe->a) {
                offered = sup;
                c->fault_done = 1;
            } else {
                fault_not_here(c, "the Request has A=1, so A=0 would also break MPA-ENH-A-ECHO");
            }
        }
        if (g->fault == FAULT_NO_RTR_OPTION) {
            if (qe->a) {
                offered = 0;
                c->fault_done = 1;
            } else {
                fault_not_here(c, "the Request has A=0");
            }
        }
        /* IRD (RFC 6581 9.1): 0x3FFF answers 0x3FFF; below the
         * Initiator's ORD the negotiation fails: reject. */
        uint16_t ird = g->ird;
        if (qe->ord == MPA_IRD_ORD_MAX)
            ird = MPA_IRD_ORD_MAX;
        else if (ird != MPA_IRD_ORD_MAX && ird < qe->ord)
            reject = 1;
        if ((offered & 4u) && ird == 0)
            ird = 1; /* a read RTR needs IRD >= 1 (RFC 6581 9.1) */
        /* ORD: at most the Initiator's IRD; 0x3FFF answers 0x3FFF. */
        uint16_t ord = g->ord;
        if (qe->ird == MPA_IRD_ORD_MAX)
            ord = MPA_IRD_ORD_MAX;
        else if (ord != MPA_IRD_ORD_MAX && ord > qe->ird)
            ord = qe->ird;
        if (g->fault == FAULT_ORD_GT_PEER_IRD) {
            if (qe->ird < MPA_IRD_ORD_MAX - 1) {
                ord = (uint16_t)(qe->ird + 1);
                c->fault_done = 1;
            } else {
                fault_not_here(c, "the Initiator's IRD is 0x3FFF (no negotiation)");
            }
        }
        e.enh.ird = ird;
        e.enh.ord = ord;
        e.enh.b = (offered & 1u) != 0;
        e.enh.c = (offered & 2u) != 0;
        e.enh.d = (offered & 4u) != 0;
        c->ird = ird;
        c->ord = ord;
    } else {
        switch (g->fault) {
        case FAULT_A_NOT_ECHOED:
        case FAULT_BCD_WITHOUT_A:
        case FAULT_NO_RTR_OPTION:
        case FAULT_ORD_GT_PEER_IRD:
            fault_not_here(c, "the Request is not enhanced");
            break;
        default:
            break;
        }
    }
    e.r = (uint8_t)reject;
    frame_pd(c, &e);
    frame_faults(c, &e, key);
    queue_frame(c, &e);
    c->sent_s = e.s;
    c->sent_a = e.enh.a;
    c->enh = e.s && enh_req;
    c->offered = (uint8_t)offered;
    c->a = !reject && c->enh && e.enh.a && q->enh.a;
    c->m_tx = q->m;
    c->crc = q->c || g->crc;
    if (g->fault == FAULT_PDLEN_LIE) {
        close_with(c, END_FAULT);
        return;
    }
    if (reject) {
        /* RFC 5044 7.1.2 rule 2: leave MPA; this ULP then closes. */
        close_with(c, END_REJECTED);
        return;
    }
    c->tx_mode_off = c->tx_off;
    c->phase = PH_FULL;
    if (g->fault == FAULT_RESPONDER_FPDU_FIRST) {
        /* Queued right behind the Reply, as one record: one write, one
         * segment, so it is on the wire before any FPDU could arrive. */
        unsigned reply_end = c->n_bnd - 1u;
        queue_send(c, NULL, g->size ? g->size : 64, 0, 1, 0);
        memmove(c->bnd + reply_end, c->bnd + reply_end + 1, (c->n_bnd - reply_end - 1u) * sizeof c->bnd[0]);
        c->n_bnd--;
        c->fault_done = 1;
    }
}

/* The Initiator got a whole Reply. */
static void init_frame(conn *c)
{
    const peer_cfg *g = c->cfg;
    const mpa_frame *p = &c->pf;
    int nc = g->fault == FAULT_NEVER_CLOSE;
    if (bad_frame_closes(c, nc))
        return;
    if (c->react == RE_CLOSE || (p->kind != MPA_KEY_REP && !nc)) {
        close_with(c, END_STARTUP);
        return;
    }
    c->m_tx = p->m;
    c->crc = p->c || g->crc;
    if (p->r) {
        if (p->has_enh && c->sent_s) { /* RFC 6581 9.1: passed to the ULP */
            c->enh = 1;
            c->ird = p->enh.ird;
            c->ord = p->enh.ord;
        }
        close_with(c, END_REJECTED); /* rule 3: leave MPA; this ULP closes */
        return;
    }
    c->tx_mode_off = c->tx_off;
    c->phase = PH_FULL;
    c->sends_left = g->send_n;
    c->echoes_left = g->send_n;
    c->ird = g->ird;
    c->ord = g->ord;
    unsigned pick = 0;
    unsigned re = RE_NONE, code = 0;
    if (c->sent_s != (p->s && p->has_enh)) {
        re = RE_TERM, code = 5; /* S not answered in kind (RFC 6581 10) */
    } else if (c->sent_s) {
        const mpa_enh *pe = &p->enh;
        c->enh = 1;
        if (pe->ord != MPA_IRD_ORD_MAX && g->ird != MPA_IRD_ORD_MAX && pe->ord > g->ird)
            re = RE_TERM, code = 6; /* RFC 6581 9.1: not enough IRD */
        if (pe->ird != MPA_IRD_ORD_MAX && g->ord != MPA_IRD_ORD_MAX && g->ord > pe->ird)
            c->ord = pe->ird; /* RFC 6581 9.1: ORD at most the responder's IRD */
        if (pe->a != c->sent_a) {
            if (re == RE_NONE)
                re = RE_TERM, code = 7;
        } else if (pe->a) {
            unsigned bits = (pe->b ? 1u : 0) | (pe->c ? 2u : 0) | (pe->d ? 4u : 0);
            c->offered = (uint8_t)bits;
            for (unsigned i = 0; i < g->n_rtr && !pick; i++)
                if (rtr_offered(bits, g->rtr[i]) && !(g->rtr[i] == MPA_RTR_READ && pe->ird == 0))
                    pick = g->rtr[i];
            c->a = 1;
            if (!pick && re == RE_NONE) /* RFC 6581 9.2: no RTR we can send */
                re = RE_TERM, code = 7;
        }
    }
    if (c->react == RE_NONE && re != RE_NONE)
        c->react = (uint8_t)re, c->react_code = (uint8_t)code;
    if (c->react != RE_NONE)
        return;
    /* Faults in the first FPDU. */
    if (g->fault == FAULT_TERM_5 || g->fault == FAULT_TERM_6 ||
        (g->fault == FAULT_TERM_7 && c->a)) {
        queue_term(c, g->fault == FAULT_TERM_5 ? 5 : g->fault == FAULT_TERM_6 ? 6 : 7);
        c->fault_done = 1;
        close_with(c, END_TERM_SENT);
        return;
    }
    if (g->fault == FAULT_TERM_7)
        fault_not_here(c, "no RTR is due (A=0)");
    if (c->a) {
        if (faulty(c, FAULT_WRONG_RTR_TYPE)) {
            const mpa_enh *pe = &p->enh;
            unsigned other = !pe->b ? MPA_RTR_SEND : !pe->c ? MPA_RTR_WRITE : (!pe->d && pe->ird) ? MPA_RTR_READ : 0;
            if (other) {
                pick = other;
                c->fault_done = 1;
            } else {
                fault_not_here(c, "the Reply offered every RTR type");
            }
        }
        if (faulty(c, FAULT_FPDU_BEFORE_RTR)) {
            queue_send(c, NULL, g->size ? g->size : 64, 0, 1, 0);
            c->fault_done = 1;
        }
        queue_rtr(c, pick);
    } else if (g->fault == FAULT_WRONG_RTR_TYPE || g->fault == FAULT_FPDU_BEFORE_RTR) {
        fault_not_here(c, "no RTR is due (A=0 or not enhanced)");
    }
}

/* ---- driving --------------------------------------------------------- */

static void react_now(conn *c)
{
    if (c->reacted || c->react == RE_NONE)
        return;
    c->reacted = 1;
    if (c->phase == PH_CLOSING)
        return; /* already on the way out: nothing more is sent */
    switch (c->react) {
    case RE_TERM:
        /* A TERMINATE is an FPDU: only in Full Operation, and a
         * Responder only after an FPDU arrived (rule 4). */
        if (c->phase == PH_FULL && (c->role == MPA_ROLE_INITIATOR || c->fpdus_rx)) {
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

static void feed_self(conn *c)
{
    if (c->tx_fed < c->tx.len)
        c->tx_fed += mpa_stream_feed(&c->s, SELF, c->tx.p + c->tx_fed, c->tx.len - c->tx_fed);
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

void conn_init(conn *c, const peer_cfg *cfg, mpa_role role, const char *name, int fd)
{
    memset(c, 0, offsetof(conn, s));
    c->cfg = cfg;
    c->role = role;
    c->fd = fd;
    c->msn[0] = c->msn[1] = c->msn[2] = 1; /* RFC 5041 5: MSNs start at 1 */
    snprintf(c->name, sizeof c->name, "%s", name);
    mpa_stream_init(&c->s, NULL, on_event, c);
    if (role == MPA_ROLE_INITIATOR)
        init_start(c); /* rule 1: the Initiator sends first */
    step(c);
}

void conn_free(conn *c)
{
    pbuf_free(&c->tx);
    pbuf_free(&c->rx);
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
        c->rv_off = c->rx_fed;
        c->rv_len = n;
    }
    for (;;) {
        size_t at = (size_t)(c->rx_fed - c->rv_off);
        if (at >= c->rv_len)
            break;
        size_t used = mpa_stream_feed(&c->s, PEER, c->rv + at, c->rv_len - at);
        c->rx_fed += used;
        size_t fed = c->tx_fed, len = c->tx.len;
        step(c);
        /* The engine holds the peer's octets until ours say how to
         * frame them; go on only when something of ours was added. */
        if (used == 0 && c->tx.len == len && c->tx_fed == fed)
            break;
    }
    /* Keep what is still needed: octets the engine did not take, and
     * (for an echo) the start of the FPDU being received. */
    uint64_t end = c->rv_off + c->rv_len, keep = c->rx_fed;
    if (c->role == MPA_ROLE_RESPONDER && c->rx_in_fpdu && c->rx_fpdu_start < keep &&
        c->rx_fpdu_start >= c->rv_off && keep - c->rx_fpdu_start <= MPA_FPDU_WIRE_MAX)
        keep = c->rx_fpdu_start;
    size_t k = (size_t)(end - keep);
    if (end - c->rx_fed > RX_HELD_MAX) {
        local_error(c);
        k = 0, keep = end;
    }
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
    c->rv = NULL;
    if (!k && c->rx.cap > (256u << 10))
        pbuf_free(&c->rx);
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
    mpa_stream_end(&c->s, SELF, MPA_END_FIN);
}

void conn_peer_end(conn *c, int rst)
{
    if (c->peer_eof)
        return;
    c->peer_eof = 1;
    mpa_stream_end(&c->s, PEER, rst ? MPA_END_RST : MPA_END_FIN);
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

void conn_report(conn *c, char *buf, size_t cap)
{
    const mpa_frame *pf = c->peer_frame_seen ? &c->pf : NULL;
    char peer_ids[1024], self_ids[1024], term[16], neg[96];
    mpa_stream_finish(&c->s);
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

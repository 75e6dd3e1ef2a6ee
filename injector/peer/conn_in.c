/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the peer sends, as the engine's events tell it (see
 * conn_priv.h): its startup frame, the mode of its direction, its FPDUs
 * (echoed, answered, checked), and the findings about it, each of which
 * sets this end's reaction:
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn_priv.h"
#include "mpa/describe.h"

/* Scratch for the ULPDU being echoed; this program has one thread. */
static uint8_t ulp_in[MPA_ULPDU_MAX + 64];
static mpa_fpdu fpdu_tmp;

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
        /* --fault a1-ignored: an A=1 we did not ask for goes unanswered */
        if (c->cfg->fault == FAULT_A1_IGNORED && !c->sent_a)
            break;
        re = RE_TERM, code = 7;
        break;
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
    case MPA_F_RDMAP_VERSION_SAME:
    case MPA_F_QRK_DDP_VERSION: /* DDP version 0 is not delivered either */
    case MPA_F_RDMAP_OPCODE:
    case MPA_F_RDMAP_TAGGED:
    case MPA_F_RDMAP_ATOMIC:
        re = RE_TERM, code = 5;
        break;
    /* A Read Request that is not one segment is not acted on (RFC 5040
     * 5.5 rule 12): refused with a TERMINATE, unless the fault answers it. */
    case MPA_F_RDMAP_ONE_SEG:
        if (faulty(c, FAULT_READ_NOT_LAST))
            c->fault_done = 1;
        else
            re = RE_TERM, code = 5;
        break;
    /* Reserved bits of the DDP and RDMAP control fields are not checked
     * on receipt (RFC 5041 4.1, RFC 5040 4.1): the message is taken. */
    case MPA_F_DDP_RSVD:
    case MPA_F_RDMAP_RSVD:
        if (faulty(c, FAULT_TERM_RSVD)) {
            c->fault_done = 1;
            re = RE_TERM, code = 5;
        }
        break;
    /* A message on the wrong queue: judged with the header at hand
     * (ddp_checks: an undefined QN is a DDP error, a defined one that
     * does not suit the opcode is refused with code 5 as above). */
    case MPA_F_DDP_QN:
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
    mpa_marker_form mf = {f->marker_order, f->marker_nocrc};
    size_t need;
    if (mpa_fpdu_layout_mf(p, f->wire_len, ev->seq, &fc, &mf, &fpdu_tmp, &need) != MPA_OK)
        return SIZE_MAX;
    return mpa_fpdu_ulpdu_copy(p, &fpdu_tmp, dst, cap);
}

/* A Responder's echo of a received Send segment: same payload, MO, L. */
static void echo_send(conn *c, const mpa_event *ev)
{
    const mpa_ev_fpdu *f = &ev->u.fpdu;
    size_t got = fpdu_ulpdu(c, ev, ulp_in, sizeof ulp_in);
    const uint8_t *pl = got == f->ulpdu_len ? ulp_in + f->ddp.need_len : NULL;
    queue_send(c, pl, f->ddp.payload_len, f->ddp.hdr.mo, f->ddp.hdr.last, 0);
}

/* ---- receiver duties: DDP (RFC 5041 7.1) and RDMAP (RFC 5040 5.3) ---- */

/* The largest message one of this end's untagged buffers holds. */
#define RX_BUF_MAX (1u << 20)

/* The application's echo of one delivered Send message of n octets
 * (RFC 5041 5.3, 5.4: each message once, in sending order), as the
 * delivery faults change it. */
static void echo_message(conn *c, const uint8_t *p, size_t n, uint32_t seg)
{
    c->delivered++;
    if (c->cfg->fault == FAULT_ECHO_REORDERED && !c->fault_done && !c->fault_na) {
        if (!c->holding) { /* the first message waits behind the second */
            c->held.len = 0;
            if (pbuf_reserve(&c->held, n ? n : 1)) {
                local_error(c);
                return;
            }
            memcpy(c->held.p, p, n);
            c->held.len = n;
            c->held_seg = seg;
            c->holding = 1;
            return;
        }
        c->echo_seg = seg;
        queue_send(c, p, n, 0, 1, 0);
        c->echo_seg = c->held_seg;
        queue_send(c, c->held.p, c->held.len, 0, 1, 0);
        c->echo_seg = 0;
        c->holding = 0;
        c->fault_done = 1;
        return;
    }
    c->echo_seg = seg;
    queue_send(c, p, n, 0, 1, 0);
    if (faulty(c, FAULT_ECHO_TWICE)) {
        queue_send(c, p, n, 0, 1, 0); /* delivered a second time */
        c->fault_done = 1;
    }
    c->echo_seg = 0;
}

/* A Send segment that passed the checks: placed at its MO in the
 * message buffer; the message is delivered (echoed whole) when its L=1
 * segment came (RFC 5041 5.4, RFC 5040 5.5 rule 16).  Segments sent
 * twice land on the same octets. */
static void deliver_send(conn *c, const mpa_event *ev)
{
    const mpa_ev_fpdu *f = &ev->u.fpdu;
    const mpa_ddp_hdr *h = &f->ddp.hdr;
    size_t n = f->ddp.payload_len;
    int early = c->cfg->fault == FAULT_ECHO_EARLY && !c->fault_na;
    if (early || (uint64_t)h->mo + n > RX_BUF_MAX) {
        /* the fault hands every segment up as it comes (a past-the-buffer
         * one only comes with ddp-unchecked: echoed alone too) */
        if (early && !h->last)
            c->fault_done = 1;
        echo_send(c, ev);
        return;
    }
    size_t end = (size_t)h->mo + n;
    if (end > c->msg.len) {
        if (pbuf_reserve(&c->msg, end - c->msg.len)) {
            local_error(c);
            return;
        }
        memset(c->msg.p + c->msg.len, 0, end - c->msg.len);
        c->msg.len = end;
    }
    if (n > c->msg_seg)
        c->msg_seg = (uint32_t)n;
    if (h->mo <= c->msg_have && end > c->msg_have)
        c->msg_have = (uint32_t)end;
    size_t got = fpdu_ulpdu(c, ev, ulp_in, sizeof ulp_in);
    if (got == f->ulpdu_len && n)
        memcpy(c->msg.p + h->mo, ulp_in + f->ddp.need_len, n);
    if (!h->last)
        return;
    /* a message with a hole (a segment this end did not take: only
     * with drop-first-fpdu) is never complete, so never delivered */
    if (c->msg_have >= end)
        echo_message(c, c->msg.p ? c->msg.p : ulp_in, end, c->msg_seg);
    c->msg.len = 0;
    c->msg_seg = 0;
    c->msg_have = 0;
    if (c->msg.cap > (256u << 10)) { /* a large message: give its room back */
        free(c->msg.p);
        memset(&c->msg, 0, sizeof c->msg);
    }
}

/* The TERMINATE for an error in segment f (RFC 5040 7.1 rule 2): sent
 * once the events of this input are handled; whatever the peer sends
 * after it is dropped (RFC 5041 7.1), as on_peer_fpdu returns once a
 * reaction is set. */
static void seg_error(conn *c, const mpa_ev_fpdu *f, unsigned layer, unsigned etype, unsigned code)
{
    c->react = RE_TERM;
    c->react_seg = 1;
    c->react_layer = (uint8_t)layer;
    c->react_etype = (uint8_t)etype;
    c->react_code = (uint8_t)code;
    c->react_seglen = (uint16_t)f->ulpdu_len;
    c->react_hdr = f->ddp.hdr;
    c->react_r = 0;
}

/* DDP error types and codes (RFC 5041 7.2) and the RDMAP one used here
 * (RFC 5040 4.8 figure 9). */
enum {
    DDP_ET_TAGGED = 1, DDP_ET_UNTAGGED = 2,
    DDP_TC_INVALID_STAG = 0x00, DDP_TC_BOUNDS = 0x01, DDP_TC_TO_WRAP = 0x03,
    DDP_UC_INVALID_QN = 0x01, DDP_UC_NO_BUFFER = 0x02, DDP_UC_MSN_RANGE = 0x03, DDP_UC_INVALID_MO = 0x04,
    DDP_UC_TOO_LONG = 0x05,
    RDMAP_ET_PROTECTION = 1, RDMAP_C_CANNOT_INVALIDATE = 0x09,
    RDMAP_C_INVALID_STAG = 0x00, RDMAP_C_BOUNDS = 0x01, RDMAP_C_TO_WRAP = 0x04,
    RDMAP_ET_OPERATION = 2, RDMAP_C_CATASTROPHIC_STREAM = 0x07, RDMAP_C_UNSPECIFIED = 0xFF,
    RDMAP_C_UNEXPECTED_OP = 0x06,
};

/* RFC 7306 6.3: an Immediate Data message holds exactly 8 octets after
 * its DDP header; one of another size is refused with a TERMINATE
 * (RFC 7306 names no code: Remote Operation Error, Unspecified).  1 when
 * the reaction is set. */
static int imm_len_check(conn *c, const mpa_ev_fpdu *f)
{
    const mpa_ddp_hdr *h = &f->ddp.hdr;
    if (h->tagged || (h->opcode != MPA_RDMAP_IMMEDIATE && h->opcode != MPA_RDMAP_IMMEDIATE_SE) ||
        f->ulpdu_len < MPA_DDP_UNTAGGED_HDR_LEN || f->ulpdu_len - MPA_DDP_UNTAGGED_HDR_LEN == 8)
        return 0;
    if (faulty(c, FAULT_IMM_UNCHECKED)) {
        c->fault_done = 1; /* taken whatever its size: it used its buffer */
        if (f->ddp_status != MPA_OK && h->qn == 0 && h->msn == c->rx_msn[0] && h->last)
            c->rx_msn[0]++;
        return 0;
    }
    seg_error(c, f, MPA_TERM_LAYER_RDMAP, RDMAP_ET_OPERATION, RDMAP_C_UNSPECIFIED);
    return 1;
}

/* RFC 5040 5.2.1, 7.2: a non-empty Read Request names this end's one
 * readable buffer (STag PEER_SRC_STAG, offsets 0 to PEER_SRC_LEN - 1),
 * its range and no wrap; a zero-size one is not checked (unless
 * zero_too: a fault).  -1 when it passes, else the Remote Protection
 * Error code. */
static int read_src_code(const mpa_rdma_read_req *rq, int zero_too)
{
    if (!rq->size && !zero_too)
        return -1;
    if (rq->src_stag != PEER_SRC_STAG)
        return RDMAP_C_INVALID_STAG;
    if (rq->src_to >= PEER_SRC_LEN)
        return RDMAP_C_BOUNDS;
    if (rq->src_to + rq->size < rq->src_to)
        return RDMAP_C_TO_WRAP;
    if (rq->src_to + rq->size > PEER_SRC_LEN)
        return RDMAP_C_BOUNDS;
    return -1;
}

/* The checks a segment passes before it is placed or delivered (DDP's,
 * RFC 5041 7.1, then RDMAP's, RFC 5040 7.2); 1 when it failed one (the
 * reaction is set).  This end has one buffer, STag PEER_SRC_STAG: a
 * tagged segment with data to another STag has an invalid STag, and the
 * STag of a Send with Invalidate cannot be invalidated.  Its untagged queues hold one buffer each, of RX_BUF_MAX
 * octets, posted again as soon as a message completes: the only MSN in
 * range is the next one. */
static int ddp_checks(conn *c, const mpa_ev_fpdu *f)
{
    const mpa_ddp_hdr *h = &f->ddp.hdr;
    /* the DDP segment's payload: what follows the DDP header */
    size_t plen = f->ulpdu_len - f->ddp.hdr_len;
    if (faulty(c, FAULT_DDP_UNCHECKED))
        return 0; /* the fault places and delivers whatever comes */
    if (h->tagged) {
        /* RFC 5041 7.1, tagged check 1 (zero-length segments, such as
         * the write RTR, are not checked). */
        if (!plen && h->opcode == MPA_RDMAP_RDMA_WRITE && h->stag != PEER_SRC_STAG &&
            faulty(c, FAULT_ZERO_WRITE_CHECKED)) {
            c->fault_done = 1; /* RFC 5041 5.2 has it go unchecked */
            seg_error(c, f, MPA_TERM_LAYER_DDP, DDP_ET_TAGGED, DDP_TC_INVALID_STAG);
            return 1;
        }
        if (!plen || h->opcode != MPA_RDMAP_RDMA_WRITE)
            return 0;
        if (h->stag != PEER_SRC_STAG) {
            seg_error(c, f, MPA_TERM_LAYER_DDP, DDP_ET_TAGGED, DDP_TC_INVALID_STAG);
            return 1;
        }
        /* RFC 5041 7.1 tagged checks 2 to 4: TO and TO plus the payload
         * inside the buffer, no wrap */
        int code = h->to >= PEER_SRC_LEN          ? DDP_TC_BOUNDS
                   : h->to + plen < h->to         ? DDP_TC_TO_WRAP
                   : h->to + plen > PEER_SRC_LEN ? DDP_TC_BOUNDS
                                                  : -1;
        if (code >= 0 && faulty(c, FAULT_WRITE_UNBOUNDED)) {
            c->fault_done = 1; /* placed, past the end */
        } else if (code >= 0 && faulty(c, FAULT_TO_WRAP_UNCHECKED) && h->to + plen < h->to &&
                   h->to + plen <= PEER_SRC_LEN) {
            /* only the end, TO plus the payload, compared with the
             * buffer's length, in 64-bit arithmetic that wrapped: taken
             * (place_write() puts nothing past the buffer) */
            c->fault_done = 1;
        } else if (code >= 0) {
            seg_error(c, f, MPA_TERM_LAYER_DDP, DDP_ET_TAGGED, (unsigned)code);
            return 1;
        }
        return 0;
    }
    if (h->qn > 3 && plen) { /* RFC 5040 4.1, RFC 7306 4.1: queues 0 to 3 */
        seg_error(c, f, MPA_TERM_LAYER_DDP, DDP_ET_UNTAGGED, DDP_UC_INVALID_QN);
        return 1;
    }
    if (f->ddp_anomalies & MPA_DDP_AN_QN) {
        /* a defined queue that does not suit the opcode (MPA-DDP-QN) */
        c->react = RE_TERM;
        c->react_code = 5;
        return 1;
    }
    if (h->qn > 3)
        return 0; /* zero-length: not checked, nothing delivered */
    uint32_t want = c->rx_msn[h->qn];
    if (h->msn != want && plen) {
        /* below the next MSN: a message already taken (out of range);
         * above it: no buffer is posted for it yet */
        int ahead = (int32_t)(h->msn - want) > 0;
        seg_error(c, f, MPA_TERM_LAYER_DDP, DDP_ET_UNTAGGED, ahead ? DDP_UC_NO_BUFFER : DDP_UC_MSN_RANGE);
        return 1;
    }
    if (plen && h->mo >= RX_BUF_MAX) {
        seg_error(c, f, MPA_TERM_LAYER_DDP, DDP_ET_UNTAGGED, DDP_UC_INVALID_MO);
        return 1;
    }
    if ((uint64_t)h->mo + plen > RX_BUF_MAX) {
        seg_error(c, f, MPA_TERM_LAYER_DDP, DDP_ET_UNTAGGED, DDP_UC_TOO_LONG);
        return 1;
    }
    if (h->msn == want && h->last)
        c->rx_msn[h->qn]++;
    return 0;
}

static int seg_checks(conn *c, const mpa_ev_fpdu *f)
{
    const mpa_ddp_hdr *h = &f->ddp.hdr;
    if (ddp_checks(c, f) || imm_len_check(c, f))
        return 1;
    /* RFC 5040 5.3: the STag of a Send with Invalidate must be one this
     * end associated with the stream; it has none. */
    if ((h->opcode == MPA_RDMAP_SEND_INVALIDATE || h->opcode == MPA_RDMAP_SEND_SE_INVALIDATE) &&
        !faulty(c, FAULT_INV_UNCHECKED)) {
        seg_error(c, f, MPA_TERM_LAYER_RDMAP, RDMAP_ET_PROTECTION, RDMAP_C_CANNOT_INVALIDATE);
        return 1;
    }
    if (h->opcode == MPA_RDMAP_ATOMIC_REQUEST && !h->tagged && f->ddp.complete &&
        (f->ddp.u.atomic_req.to & 7u) != 0) {
        /* RFC 7306 5.1.1, 5.1.2, 8.2: not performed; a TERMINATE of
         * Remote Operation Error, catastrophic error localized to the
         * stream (this end performs no Atomic Operation anyway). */
        if (faulty(c, FAULT_ATOMIC_UNALIGNED)) {
            c->fault_done = 1;
        } else {
            seg_error(c, f, MPA_TERM_LAYER_RDMAP, RDMAP_ET_OPERATION, RDMAP_C_CATASTROPHIC_STREAM);
            return 1;
        }
    }
    if (h->opcode == MPA_RDMAP_READ_REQUEST && !h->tagged && ++c->reads_rx > 2 &&
        faulty(c, FAULT_IRD_SHORT)) {
        /* RFC 5040 5.2.2, 6.1: room for the IRD it advertised; the fault
         * has room for two Read Requests in all: no buffer on queue 1 */
        c->fault_done = 1;
        seg_error(c, f, MPA_TERM_LAYER_DDP, DDP_ET_UNTAGGED, DDP_UC_NO_BUFFER);
        return 1;
    }
    if (h->opcode == MPA_RDMAP_READ_REQUEST && !h->tagged && f->ddp.complete) {
        int zero = faulty(c, FAULT_READ_ZERO_CHECKED) && !f->ddp.u.rreq.size;
        int code = read_src_code(&f->ddp.u.rreq, zero);
        if (zero && code >= 0)
            c->fault_done = 1;
        if (code >= 0 && faulty(c, FAULT_READ_UNCHECKED)) {
            c->fault_done = 1; /* answered as if the source were good */
        } else if (code >= 0) {
            /* RFC 5040 4.8 figure 10: a Remote Protection Error about a
             * Read Request copies its RDMA header too */
            seg_error(c, f, MPA_TERM_LAYER_RDMAP, RDMAP_ET_PROTECTION, (unsigned)code);
            c->react_r = 1;
            c->react_rreq = f->ddp.u.rreq;
            return 1;
        }
    }
    return 0;
}

/* An Atomic Request that passed the checks (RFC 7306 5.1): performed on
 * this end's one buffer, whose 8-octet words are big-endian, and answered
 * with the original value.  A Remote STag or TO outside that buffer gets
 * a Remote Protection Error (RFC 5040 7.2 codes). */
static void do_atomic(conn *c, const mpa_ev_fpdu *f)
{
    const mpa_atomic_req *a = &f->ddp.u.atomic_req;
    int code = a->stag != PEER_SRC_STAG ? RDMAP_C_INVALID_STAG
               : a->to > PEER_SRC_LEN - 8u ? RDMAP_C_BOUNDS
                                            : -1;
    if (code >= 0) {
        seg_error(c, f, MPA_TERM_LAYER_RDMAP, RDMAP_ET_PROTECTION, (unsigned)code);
        return;
    }
    if (a->aop == MPA_ATOMIC_CMP_SWAP && faulty(c, FAULT_CMPSWAP_MISSING)) {
        /* the fault implements FetchAdd only (RFC 7306 5 wants both) */
        c->fault_done = 1;
        seg_error(c, f, MPA_TERM_LAYER_RDMAP, RDMAP_ET_OPERATION, RDMAP_C_UNEXPECTED_OP);
        return;
    }
    if (!c->mem && !(c->mem = calloc(1, PEER_SRC_LEN))) {
        local_error(c);
        return;
    }
    uint8_t *w = c->mem + a->to;
    uint64_t orig = 0, val;
    for (int i = 0; i < 8; i++)
        orig = orig << 8 | w[i];
    if (a->aop == MPA_ATOMIC_FETCH_ADD) {
        /* RFC 7306 5.1.1: a set bit of the Add Mask ends a field, no
         * carry goes past it */
        unsigned carry = 0;
        val = 0;
        for (unsigned i = 0; i < 64; i++) {
            unsigned x = (unsigned)(orig >> i) & 1u, y = (unsigned)(a->add_swap_data >> i) & 1u;
            val |= (uint64_t)(x ^ y ^ carry) << i;
            carry = ((x & y) | (x & carry) | (y & carry)) && !((a->add_swap_mask >> i) & 1u);
        }
    } else if (faulty(c, FAULT_CMPSWAP_NO_WRITE)) {
        c->fault_done = 1; /* answered, the target left as it was */
        val = orig;
    } else if (((orig ^ a->compare_data) & a->compare_mask) == 0) {
        val = (orig & ~a->add_swap_mask) | (a->add_swap_data & a->add_swap_mask);
    } else {
        val = orig; /* the compare failed: the target keeps its value */
    }
    for (int i = 7; i >= 0; i--, val >>= 8)
        w[i] = (uint8_t)val;
    answer_atomic(c, a->req_id, orig);
}

/* An RDMA Write segment that passed the tagged checks: its payload
 * placed in this end's buffer at its TO (RFC 5041 4.1, 7.1), where a
 * later Atomic Request or Read finds it.  One past the buffer (only
 * with write-unbounded) goes nowhere. */
static void place_write(conn *c, const mpa_event *ev)
{
    const mpa_ev_fpdu *f = &ev->u.fpdu;
    const mpa_ddp_hdr *h = &f->ddp.hdr;
    size_t n = f->ddp.payload_len;
    if (!n || h->stag != PEER_SRC_STAG || h->to >= PEER_SRC_LEN || n > PEER_SRC_LEN - h->to)
        return;
    if (faulty(c, FAULT_WRITE_NOT_PLACED)) {
        c->fault_done = 1; /* checked, acknowledged by TCP, never placed */
        return;
    }
    size_t got = fpdu_ulpdu(c, ev, ulp_in, sizeof ulp_in);
    if (got != f->ulpdu_len)
        return;
    if (!c->mem && !(c->mem = calloc(1, PEER_SRC_LEN))) {
        local_error(c);
        return;
    }
    memcpy(c->mem + h->to, ulp_in + f->ddp.need_len, n);
}

static void on_peer_fpdu(conn *c, const mpa_event *ev)
{
    const mpa_ev_fpdu *f = &ev->u.fpdu;
    const mpa_ddp *dd = &f->ddp;
    c->fpdus_rx++;
    c->progress = 1;
    if (c->read_held) { /* --fault eof-drops-reads: owed since the last FPDU */
        c->read_held = 0;
        answer_read(c, &c->held_rreq);
    }
    if (c->phase != PH_FULL || c->reacted)
        return; /* on the way out, or octets after a reject */
    if (c->react_seg && c->role == MPA_ROLE_RESPONDER && faulty(c, FAULT_NO_DROP_AFTER_ERROR) &&
        f->crc != MPA_CRC_BAD && f->ddp_status == MPA_OK &&
        (dd->hdr.opcode == MPA_RDMAP_SEND || dd->hdr.opcode == MPA_RDMAP_SEND_SE)) {
        /* RFC 5041 7.1 drops what follows a bad segment: the fault held
         * its TERMINATE back (react_now) and delivers the next Send */
        echo_send(c, ev);
        c->fault_done = 1;
        return;
    }
    if (f->crc != MPA_CRC_BAD && f->ddp_status != MPA_OK && c->react == RE_NONE &&
        f->ulpdu_len >= MPA_DDP_UNTAGGED_HDR_LEN && imm_len_check(c, f))
        return; /* Immediate Data too short for its 8 octets */
    if (f->crc == MPA_CRC_BAD || f->ddp_status != MPA_OK)
        return; /* the finding set the reaction; a note-level runt is dropped */
    if (faulty(c, FAULT_ALIGNED_ONLY) && ev->off < c->rx_read_off) {
        /* RFC 5044 A.4: a receiver may not depend on FPDU alignment; the
         * fault drops an FPDU that began in an earlier read */
        c->fault_done = 1;
        return;
    }
    if (dd->hdr.opcode == MPA_RDMAP_TERMINATE) {
        /* The peer ends the connection: close, whatever else it broke
         * on the way (no TERMINATE answers a TERMINATE). */
        c->term_rcvd = dd->u.term.code ? dd->u.term.code : 0xFF;
        c->react = RE_CLOSE;
        return;
    }
    if (faulty(c, FAULT_TERM_RV0) && dd->hdr.rv == 0) {
        /* RDMAP version 00b is valid (RFC 5040 4.1): the fault refuses it. */
        c->fault_done = 1;
        if (c->react == RE_NONE) {
            c->react = RE_TERM;
            c->react_code = 5;
        }
    }
    if (c->react != RE_NONE && c->react_seg && faulty(c, FAULT_TERM_LAST_ERROR)) {
        /* RFC 5040 7.1 rule 3 reports the first error: the fault checks
         * the segments behind it in this input too, and a later error
         * replaces the first in the TERMINATE; nothing is delivered. */
        if (seg_checks(c, f))
            c->fault_done = 1;
        return;
    }
    if (c->react != RE_NONE || seg_checks(c, f))
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
    if (c->role == MPA_ROLE_RESPONDER && faulty(c, FAULT_DROP_FIRST_FPDU)) {
        c->fault_done = 1; /* not taken as an FPDU: nothing is delivered */
        return;
    }
    switch (dd->hdr.opcode) {
    case MPA_RDMAP_SEND:
    case MPA_RDMAP_SEND_INVALIDATE:
    case MPA_RDMAP_SEND_SE:
    case MPA_RDMAP_SEND_SE_INVALIDATE:
        if (c->role == MPA_ROLE_RESPONDER) {
            deliver_send(c, ev);
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
        if (faulty(c, FAULT_EOF_DROPS_READS)) {
            /* answered when the peer's next FPDU comes (conn_peer_end
             * drops it at the peer's FIN) */
            c->held_rreq = dd->u.rreq;
            c->read_held = 1;
        } else {
            answer_read(c, &dd->u.rreq);
        }
        break;
    case MPA_RDMAP_ATOMIC_REQUEST:
        if (c->role == MPA_ROLE_RESPONDER && !dd->hdr.tagged && dd->complete)
            do_atomic(c, f);
        break;
    case MPA_RDMAP_READ_RESPONSE:
        if (dd->hdr.last && c->reads_left)
            c->reads_left--;
        break;
    case MPA_RDMAP_RDMA_WRITE:
        if (c->role == MPA_ROLE_RESPONDER && dd->hdr.tagged)
            place_write(c, ev);
        break;
    default: /* Immediate Data (taken) */
        break;
    }
}

void on_event(void *user, const mpa_event *ev)
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
        /* --fault fpduptr-low-bits: the low bits counted, the marker
         * points elsewhere than the lengths say (a marker error). */
        if (ev->dir == PEER && (ev->u.marker.fpduptr & 3u) && faulty(c, FAULT_FPDUPTR_LOWBITS) &&
            c->react == RE_NONE) {
            c->fault_done = 1;
            c->react = RE_TERM;
            c->react_code = 3;
        }
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

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * DDP (RFC 5041) and RDMAP (RFC 5040, RFC 7306) header decoding and
 * encoding.  See include/mpa/ddp.h for the layouts.
 *
 * Every wire octet is read through the bounds-checked reader in rd.h.
 * The decoder walks the structure in wire order and keeps `total`, the
 * least length the structure can have given the octets read so far; when
 * a read falls past the prefix, `total` is already past it, so it is a
 * correct lower bound for MPA_NEED_MORE.
 */
#include "mpa/ddp.h"

#include <string.h>

#include "rd.h"

/* ---- opcode table ------------------------------------------------------ */

enum { QN_NONE = -1 };

typedef struct opinfo {
    const char *name;
    unsigned char known;
    unsigned char tagged;      /* required T bit                        */
    signed char qn;            /* required QN for untagged, or QN_NONE  */
    unsigned char single_seg;  /* L=1 and MO=0 required                 */
    unsigned char body;        /* fixed body length (Terminate: minimum) */
} opinfo;

static const opinfo ops[16] = {
    /* 0x0 */ {"RDMA Write", 1, 1, QN_NONE, 0, 0},
    /* 0x1 */ {"RDMA Read Request", 1, 0, MPA_QN_READ_REQUEST, 1, MPA_RDMAP_RREQ_LEN},
    /* 0x2 */ {"RDMA Read Response", 1, 1, QN_NONE, 0, 0},
    /* 0x3 */ {"Send", 1, 0, MPA_QN_SEND, 0, 0},
    /* 0x4 */ {"Send with Invalidate", 1, 0, MPA_QN_SEND, 0, 0},
    /* 0x5 */ {"Send with SE", 1, 0, MPA_QN_SEND, 0, 0},
    /* 0x6 */ {"Send with SE and Invalidate", 1, 0, MPA_QN_SEND, 0, 0},
    /* 0x7 */ {"Terminate", 1, 0, MPA_QN_TERMINATE, 1, MPA_RDMAP_TERM_MIN_LEN},
    /* 0x8 */ {"Immediate Data", 1, 0, MPA_QN_SEND, 0, MPA_RDMAP_IMMEDIATE_LEN},
    /* 0x9 */ {"Immediate Data with SE", 1, 0, MPA_QN_SEND, 0, MPA_RDMAP_IMMEDIATE_LEN},
    /* 0xA */ {"Atomic Request", 1, 0, MPA_QN_READ_REQUEST, 0, MPA_RDMAP_ATOMIC_REQ_LEN},
    /* 0xB */ {"Atomic Response", 1, 0, MPA_QN_ATOMIC_RESP, 0, MPA_RDMAP_ATOMIC_RESP_LEN},
    /* 0xC */ {"unknown opcode", 0, 0, QN_NONE, 0, 0},
    /* 0xD */ {"unknown opcode", 0, 0, QN_NONE, 0, 0},
    /* 0xE */ {"unknown opcode", 0, 0, QN_NONE, 0, 0},
    /* 0xF */ {"unknown opcode", 0, 0, QN_NONE, 0, 0},
};

const char *mpa_rdmap_opcode_name(unsigned op)
{
    return op < 16 ? ops[op].name : "unknown opcode";
}

int mpa_rdmap_opcode_known(unsigned op) { return op < 16 && ops[op].known; }

int mpa_rdmap_opcode_rfc7306(unsigned op)
{
    return op == MPA_RDMAP_IMMEDIATE || op == MPA_RDMAP_IMMEDIATE_SE || op == MPA_RDMAP_ATOMIC_REQUEST ||
           op == MPA_RDMAP_ATOMIC_RESPONSE;
}

const char *mpa_atomic_opcode_name(unsigned aop)
{
    switch (aop) {
    case MPA_ATOMIC_FETCH_ADD: return "FetchAdd";
    case MPA_ATOMIC_RESERVED_1: return "Reserved"; /* RFC 7306 10.1 */
    case MPA_ATOMIC_CMP_SWAP: return "CmpSwap";
    default: return "unknown";
    }
}

/* ---- TERMINATE names ------------------------------------------------- */

const char *mpa_term_layer_name(unsigned layer)
{
    switch (layer) {
    case MPA_TERM_LAYER_RDMAP: return "RDMAP";
    case MPA_TERM_LAYER_DDP: return "DDP";
    case MPA_TERM_LAYER_LLP: return "LLP";
    default: return "unknown";
    }
}

const char *mpa_term_etype_name(unsigned layer, unsigned etype)
{
    switch (layer) {
    case MPA_TERM_LAYER_RDMAP:
        switch (etype) {
        case 0x0: return "Local Catastrophic Error";
        case 0x1: return "Remote Protection Error";
        case 0x2: return "Remote Operation Error";
        default: return "unknown";
        }
    case MPA_TERM_LAYER_DDP:
        switch (etype) {
        case 0x0: return "Local Catastrophic Error";
        case 0x1: return "Tagged Buffer Error";
        case 0x2: return "Untagged Buffer Error";
        case 0x3: return "Reserved for the use by the LLP";
        default: return "unknown";
        }
    case MPA_TERM_LAYER_LLP:
        return etype == 0x0 ? "MPA" : "unknown";
    default:
        return "unknown";
    }
}

/* NULL when undefined. */
static const char *code_name(unsigned layer, unsigned etype, unsigned code)
{
    if (layer == MPA_TERM_LAYER_RDMAP) {
        if (etype == 0x0)
            return code <= 0xFF ? "Local Catastrophic Error" : NULL;
        if (etype == 0x1) { /* Remote Protection Error */
            switch (code) {
            case 0x00: return "Invalid STag";
            case 0x01: return "Base or bounds violation";
            case 0x02: return "Access rights violation";
            case 0x03: return "STag not associated with RDMAP Stream";
            case 0x04: return "TO wrap";
            case 0x09: return "STag cannot be Invalidated";
            case 0xFF: return "Unspecified Error";
            default: return NULL;
            }
        }
        if (etype == 0x2) { /* Remote Operation Error */
            switch (code) {
            case 0x05: return "Invalid RDMAP version";
            case 0x06: return "Unexpected OpCode";
            case 0x07: return "Catastrophic error, localized to RDMAP Stream";
            case 0x08: return "Catastrophic error, global";
            case 0x09: return "STag cannot be Invalidated";
            case 0xFF: return "Unspecified Error";
            default: return NULL;
            }
        }
        return NULL;
    }
    if (layer == MPA_TERM_LAYER_DDP) {
        if (etype == 0x0)
            return code <= 0xFF ? "Local Catastrophic Error" : NULL;
        if (etype == 0x1) { /* Tagged Buffer Error */
            switch (code) {
            case 0x00: return "Invalid STag";
            case 0x01: return "Base or bounds violation";
            case 0x02: return "STag not associated with DDP Stream";
            case 0x03: return "TO wrap";
            case 0x04: return "Invalid DDP version";
            default: return NULL;
            }
        }
        if (etype == 0x2) { /* Untagged Buffer Error */
            switch (code) {
            case 0x01: return "Invalid QN";
            case 0x02: return "Invalid MSN - no buffer available";
            case 0x03: return "Invalid MSN - MSN range is not valid";
            case 0x04: return "Invalid MO";
            case 0x05: return "DDP Message too long for available buffer";
            case 0x06: return "Invalid DDP version";
            default: return NULL;
            }
        }
        return NULL; /* 0x3 is reserved for the LLP: no codes defined */
    }
    if (layer == MPA_TERM_LAYER_LLP && etype == 0x0) { /* MPA */
        switch (code) {
        /* RFC 5044 section 8 */
        case 0x01: return "TCP connection closed, terminated or lost";
        case 0x02: return "MPA CRC error";
        case 0x03: return "MPA marker and ULPDU length fields mismatch";
        case 0x04: return "Invalid MPA Request Frame or MPA Response Frame";
        /* RFC 6581 section 8 */
        case 0x05: return "Local catastrophic";
        case 0x06: return "Insufficient IRD resources";
        case 0x07: return "No matching RTR option";
        default: return NULL;
        }
    }
    return NULL;
}

const char *mpa_term_code_name(unsigned layer, unsigned etype, unsigned code)
{
    const char *n = code_name(layer, etype, code);
    return n ? n : "unknown";
}

int mpa_term_code_known(unsigned layer, unsigned etype, unsigned code)
{
    return code_name(layer, etype, code) != NULL;
}

/* ---- decoding -------------------------------------------------------- */

static size_t hdr_len_for(unsigned tagged)
{
    return tagged ? MPA_DDP_TAGGED_HDR_LEN : MPA_DDP_UNTAGGED_HDR_LEN;
}

static void split_ctrl(mpa_ddp_hdr *h, uint8_t c0, uint8_t c1)
{
    h->tagged = (uint8_t)(c0 >> 7);
    h->last = (uint8_t)((c0 >> 6) & 1u);
    h->ddp_rsvd = (uint8_t)((c0 >> 2) & 0xFu);
    h->dv = (uint8_t)(c0 & 3u);
    h->rv = (uint8_t)(c1 >> 6);
    h->rdmap_rsvd = (uint8_t)((c1 >> 4) & 3u);
    h->opcode = (uint8_t)(c1 & 0xFu);
}

/* Octets 2.. of a DDP header whose control octets were already read. */
static void read_hdr_rest(rd_t *r, mpa_ddp_hdr *h)
{
    if (h->tagged) {
        h->stag = rd_be32(r);
        h->to = rd_be64(r);
    } else {
        h->rsvdulp = rd_be32(r);
        h->qn = rd_be32(r);
        h->msn = rd_be32(r);
        h->mo = rd_be32(r);
    }
}

static void read_rreq(rd_t *r, mpa_rdma_read_req *q)
{
    q->sink_stag = rd_be32(r);
    q->sink_to = rd_be64(r);
    q->size = rd_be32(r);
    q->src_stag = rd_be32(r);
    q->src_to = rd_be64(r);
}

static mpa_status finish(mpa_ddp *out, size_t total, size_t avail,
                         size_t *need)
{
    out->need_len = total;
    out->seen_len = total < avail ? total : avail;
    if (total > out->ulpdu_len) {
        if (need)
            *need = 0;
        return MPA_E_INVALID;
    }
    if (total > avail) {
        if (need)
            *need = total - avail;
        return MPA_NEED_MORE;
    }
    if (need)
        *need = 0;
    out->complete = 1;
    out->payload_len = out->ulpdu_len - total;
    return MPA_OK;
}

/* The Terminate header; `base` is the DDP header length, *total is
 * updated as the layout becomes known.  Returns 0 when a read fell short. */
static int read_term(rd_t *r, size_t base, mpa_term *t, size_t *total)
{
    uint32_t w = rd_be32(r);
    if (!rd_ok(r))
        return 0;
    t->layer = (uint8_t)(w >> 28);
    t->etype = (uint8_t)((w >> 24) & 0xFu);
    t->code = (uint8_t)((w >> 16) & 0xFFu);
    t->m = (uint8_t)((w >> 15) & 1u);
    t->d = (uint8_t)((w >> 14) & 1u);
    t->r = (uint8_t)((w >> 13) & 1u);
    t->rsvd = (uint16_t)(w & 0x1FFFu);
    t->seglen_present = (uint8_t)(t->m || t->d);
    t->has_ddp_hdr = t->d;
    t->rdma_hdr_len = t->r ? MPA_RDMAP_RREQ_LEN : 0;

    size_t body = MPA_RDMAP_TERM_MIN_LEN;
    if (t->seglen_present)
        body += 2;
    if (t->d)
        body += MPA_DDP_TAGGED_HDR_LEN; /* least; fixed below */
    body += t->rdma_hdr_len;
    *total = base + body;

    if (t->seglen_present) {
        t->seglen = rd_be16(r);
        if (!rd_ok(r))
            return 0;
    }
    if (t->d) {
        uint8_t c0 = rd_u8(r);
        if (!rd_ok(r))
            return 0;
        t->ddp_hdr_len = hdr_len_for(c0 >> 7);
        *total += t->ddp_hdr_len - MPA_DDP_TAGGED_HDR_LEN;
        uint8_t c1 = rd_u8(r);
        if (!rd_ok(r))
            return 0;
        split_ctrl(&t->ddp_hdr, c0, c1);
        read_hdr_rest(r, &t->ddp_hdr);
        if (!rd_ok(r))
            return 0;
    }
    if (t->r) {
        const uint8_t *s = rd_bytes(r, MPA_RDMAP_RREQ_LEN);
        if (!s)
            return 0;
        t->rdma_hdr = s;
        rd_t sub = rd_init(s, MPA_RDMAP_RREQ_LEN);
        read_rreq(&sub, &t->rreq);
        t->rdma_hdr_is_rreq =
            (uint8_t)(!t->d || t->ddp_hdr.opcode == MPA_RDMAP_READ_REQUEST);
    }
    return 1;
}

mpa_status mpa_ddp_decode(const uint8_t *p, size_t avail, size_t ulpdu_len,
                          mpa_ddp *out, size_t *need)
{
    if (need)
        *need = 0;
    if (!out || (!p && avail) || avail > ulpdu_len)
        return MPA_E_ARG;
    memset(out, 0, sizeof *out);
    out->ulpdu_len = ulpdu_len;

    rd_t r = rd_init(p, avail);
    size_t total = MPA_DDP_TAGGED_HDR_LEN; /* least possible */

    uint8_t c0 = rd_u8(&r);
    if (!rd_ok(&r))
        return finish(out, total, avail, need);
    out->hdr_len = hdr_len_for(c0 >> 7);
    total = out->hdr_len;

    uint8_t c1 = rd_u8(&r);
    if (!rd_ok(&r)) {
        /* Only T is known: the other control fields stay 0. */
        out->hdr.tagged = (uint8_t)(c0 >> 7);
        out->hdr.last = (uint8_t)((c0 >> 6) & 1u);
        out->hdr.ddp_rsvd = (uint8_t)((c0 >> 2) & 0xFu);
        out->hdr.dv = (uint8_t)(c0 & 3u);
        return finish(out, total, avail, need);
    }
    split_ctrl(&out->hdr, c0, c1);
    const opinfo *oi = &ops[out->hdr.opcode];
    out->opcode_known = oi->known;
    out->body_len = oi->body;
    total = out->hdr_len + out->body_len;

    read_hdr_rest(&r, &out->hdr);
    if (!rd_ok(&r))
        return finish(out, total, avail, need);

    switch (out->hdr.opcode) {
    case MPA_RDMAP_READ_REQUEST:
        read_rreq(&r, &out->u.rreq);
        break;
    case MPA_RDMAP_TERMINATE:
        if (!read_term(&r, out->hdr_len, &out->u.term, &total)) {
            out->body_len = total - out->hdr_len;
            return finish(out, total, avail, need);
        }
        out->body_len = total - out->hdr_len;
        break;
    case MPA_RDMAP_ATOMIC_REQUEST: {
        mpa_atomic_req *a = &out->u.atomic_req;
        uint32_t w = rd_be32(&r);
        a->rsvd = w >> 4;
        a->aop = (uint8_t)(w & 0xFu);
        a->req_id = rd_be32(&r);
        a->stag = rd_be32(&r);
        a->to = rd_be64(&r);
        a->add_swap_data = rd_be64(&r);
        a->add_swap_mask = rd_be64(&r);
        a->compare_data = rd_be64(&r);
        a->compare_mask = rd_be64(&r);
        break;
    }
    case MPA_RDMAP_ATOMIC_RESPONSE:
        out->u.atomic_resp.orig_req_id = rd_be32(&r);
        out->u.atomic_resp.orig_value = rd_be64(&r);
        break;
    case MPA_RDMAP_IMMEDIATE:
    case MPA_RDMAP_IMMEDIATE_SE:
        out->u.imm.data = rd_be64(&r);
        break;
    default:
        break;
    }
    return finish(out, total, avail, need);
}

/* ---- encoding -------------------------------------------------------- */

static size_t term_len(const mpa_term *t)
{
    size_t n = MPA_RDMAP_TERM_MIN_LEN;
    if (t->m || t->d)
        n += 2;
    if (t->d)
        n += hdr_len_for(t->ddp_hdr.tagged & 1u);
    if (t->r)
        n += MPA_RDMAP_RREQ_LEN;
    return n;
}

static size_t body_len_for(const mpa_ddp *d)
{
    unsigned op = d->hdr.opcode & 0xFu;
    if (op == MPA_RDMAP_TERMINATE)
        return term_len(&d->u.term);
    return ops[op].body;
}

static uint8_t *put_hdr(uint8_t *o, const mpa_ddp_hdr *h)
{
    o[0] = (uint8_t)(((h->tagged & 1u) << 7) | ((h->last & 1u) << 6) |
                     ((h->ddp_rsvd & 0xFu) << 2) | (h->dv & 3u));
    o[1] = (uint8_t)(((h->rv & 3u) << 6) | ((h->rdmap_rsvd & 3u) << 4) |
                     (h->opcode & 0xFu));
    if (h->tagged & 1u) {
        wr_be32(o + 2, h->stag);
        wr_be64(o + 6, h->to);
        return o + MPA_DDP_TAGGED_HDR_LEN;
    }
    wr_be32(o + 2, h->rsvdulp);
    wr_be32(o + 6, h->qn);
    wr_be32(o + 10, h->msn);
    wr_be32(o + 14, h->mo);
    return o + MPA_DDP_UNTAGGED_HDR_LEN;
}

static uint8_t *put_rreq(uint8_t *o, const mpa_rdma_read_req *q)
{
    wr_be32(o, q->sink_stag);
    wr_be64(o + 4, q->sink_to);
    wr_be32(o + 12, q->size);
    wr_be32(o + 16, q->src_stag);
    wr_be64(o + 20, q->src_to);
    return o + MPA_RDMAP_RREQ_LEN;
}

mpa_status mpa_ddp_encode(const mpa_ddp *d, uint8_t *out, size_t cap,
                          size_t *written)
{
    if (written)
        *written = 0;
    if (!d || (!out && cap))
        return MPA_E_ARG;
    size_t n = hdr_len_for(d->hdr.tagged & 1u) + body_len_for(d);
    if (written)
        *written = n;
    if (cap < n || !out)
        return MPA_E_NOSPACE;

    uint8_t *o = put_hdr(out, &d->hdr);
    switch (d->hdr.opcode & 0xFu) {
    case MPA_RDMAP_READ_REQUEST:
        o = put_rreq(o, &d->u.rreq);
        break;
    case MPA_RDMAP_TERMINATE: {
        const mpa_term *t = &d->u.term;
        uint32_t w = ((uint32_t)(t->layer & 0xFu) << 28) |
                     ((uint32_t)(t->etype & 0xFu) << 24) |
                     ((uint32_t)t->code << 16) | ((uint32_t)(t->m & 1u) << 15) |
                     ((uint32_t)(t->d & 1u) << 14) |
                     ((uint32_t)(t->r & 1u) << 13) | (t->rsvd & 0x1FFFu);
        wr_be32(o, w);
        o += 4;
        if ((t->m & 1u) || (t->d & 1u)) {
            wr_be16(o, t->seglen);
            o += 2;
        }
        if (t->d & 1u)
            o = put_hdr(o, &t->ddp_hdr);
        if (t->r & 1u)
            o = put_rreq(o, &t->rreq);
        break;
    }
    case MPA_RDMAP_ATOMIC_REQUEST: {
        const mpa_atomic_req *a = &d->u.atomic_req;
        wr_be32(o, (a->rsvd << 4) | (a->aop & 0xFu));
        wr_be32(o + 4, a->req_id);
        wr_be32(o + 8, a->stag);
        wr_be64(o + 12, a->to);
        wr_be64(o + 20, a->add_swap_data);
        wr_be64(o + 28, a->add_swap_mask);
        wr_be64(o + 36, a->compare_data);
        wr_be64(o + 44, a->compare_mask);
        o += MPA_RDMAP_ATOMIC_REQ_LEN;
        break;
    }
    case MPA_RDMAP_ATOMIC_RESPONSE:
        wr_be32(o, d->u.atomic_resp.orig_req_id);
        wr_be64(o + 4, d->u.atomic_resp.orig_value);
        o += MPA_RDMAP_ATOMIC_RESP_LEN;
        break;
    case MPA_RDMAP_IMMEDIATE:
    case MPA_RDMAP_IMMEDIATE_SE:
        wr_be64(o, d->u.imm.data);
        o += MPA_RDMAP_IMMEDIATE_LEN;
        break;
    default:
        break;
    }
    (void)o;
    return MPA_OK;
}

/* ---- conformance ----------------------------------------------------- */

uint32_t mpa_ddp_anomalies(const mpa_ddp *d)
{
    if (!d || d->seen_len < 1)
        return 0;
    const mpa_ddp_hdr *h = &d->hdr;
    uint32_t a = 0;

    /* Octet 0: DDP control. */
    if (h->dv != 1)
        a |= MPA_DDP_AN_DV;
    if (h->ddp_rsvd != 0)
        a |= MPA_DDP_AN_DDP_RSVD;
    if (d->seen_len < 2)
        return a;

    /* Octet 1: RDMAP control.  RV 01b and the RDMA Consortium's 00b are
     * both valid (RFC 5040 4.1); RFC 7306's messages carry 01b (RFC 7306
     * 4.1). */
    if (h->rv > 1 || (h->rv == 0 && mpa_rdmap_opcode_rfc7306(h->opcode)))
        a |= MPA_DDP_AN_RV;
    if (h->rdmap_rsvd != 0)
        a |= MPA_DDP_AN_RDMAP_RSVD;
    const opinfo *oi = &ops[h->opcode & 0xFu];
    if (!oi->known)
        return a | MPA_DDP_AN_OPCODE_UNKNOWN;
    if (h->tagged != oi->tagged)
        a |= MPA_DDP_AN_TAGGED_MISMATCH;
    if (oi->single_seg && !h->last)
        a |= MPA_DDP_AN_NOT_LAST;
    if (d->seen_len < d->hdr_len)
        return a;

    /* Rest of the DDP header.  QN, MO and RsvdULP exist only untagged. */
    if (!h->tagged) {
        if (oi->qn != QN_NONE && h->qn != (uint32_t)oi->qn)
            a |= MPA_DDP_AN_QN;
        if (oi->single_seg && h->mo != 0)
            a |= MPA_DDP_AN_MO_NONZERO;
        if (h->opcode != MPA_RDMAP_SEND_INVALIDATE &&
            h->opcode != MPA_RDMAP_SEND_SE_INVALIDATE && h->rsvdulp != 0)
            a |= MPA_DDP_AN_RSVDULP_NONZERO;
    }

    /* Opcode bodies. */
    size_t body_seen = d->seen_len - d->hdr_len;
    switch (h->opcode) {
    case MPA_RDMAP_READ_REQUEST:
        if (d->complete && d->payload_len != 0)
            a |= MPA_DDP_AN_TRAILING;
        break;
    case MPA_RDMAP_TERMINATE: {
        const mpa_term *t = &d->u.term;
        if (body_seen < MPA_RDMAP_TERM_MIN_LEN)
            break;
        if (!mpa_term_code_known(t->layer, t->etype, t->code))
            a |= MPA_DDP_AN_TERM_CODE;
        if (t->rsvd != 0)
            a |= MPA_DDP_AN_TERM_RSVD;
        break;
    }
    case MPA_RDMAP_ATOMIC_REQUEST:
        if (body_seen < 4)
            break;
        /* RFC 7306 Figure 5 and 10.1 assign FetchAdd (0x0) and CmpSwap
         * (0x2); 0x1 is Reserved (the field texts mention a Swap that has
         * no code). */
        if (d->u.atomic_req.aop != MPA_ATOMIC_FETCH_ADD && d->u.atomic_req.aop != MPA_ATOMIC_CMP_SWAP)
            a |= MPA_DDP_AN_ATOMIC_OP;
        if (d->u.atomic_req.rsvd != 0)
            a |= MPA_DDP_AN_ATOMIC_RSVD;
        if (d->u.atomic_req.aop == MPA_ATOMIC_FETCH_ADD && body_seen >= MPA_RDMAP_ATOMIC_REQ_LEN &&
            (d->u.atomic_req.compare_data != 0 || d->u.atomic_req.compare_mask != UINT64_MAX))
            a |= MPA_DDP_AN_ATOMIC_UNUSED;
        break;
    default:
        break;
    }
    /* RFC 7306 messages are their header alone (RFC 7306 4.2, 6.3). */
    if (mpa_rdmap_opcode_rfc7306(h->opcode)) {
        if (!h->tagged && (!h->last || h->mo != 0))
            a |= MPA_DDP_AN_EXT_LEN;
        if (d->complete && d->payload_len != 0)
            a |= MPA_DDP_AN_EXT_LEN;
    }
    return a;
}

const char *mpa_ddp_anomaly_name(uint32_t bit)
{
    switch (bit) {
    case MPA_DDP_AN_DV: return "DDP version is not 1";
    case MPA_DDP_AN_RV: return "RDMAP version not valid for the opcode";
    case MPA_DDP_AN_DDP_RSVD: return "DDP control reserved bits set";
    case MPA_DDP_AN_RDMAP_RSVD: return "RDMAP control reserved bits set";
    case MPA_DDP_AN_OPCODE_UNKNOWN: return "reserved RDMAP opcode";
    case MPA_DDP_AN_TAGGED_MISMATCH: return "T bit wrong for the opcode";
    case MPA_DDP_AN_QN: return "queue number wrong for the opcode";
    case MPA_DDP_AN_NOT_LAST: return "single-segment message with L=0";
    case MPA_DDP_AN_MO_NONZERO: return "single-segment message with MO != 0";
    case MPA_DDP_AN_TERM_CODE: return "undefined Terminate Layer/EType/Error Code";
    case MPA_DDP_AN_TERM_RSVD: return "Terminate reserved bits set";
    case MPA_DDP_AN_RSVDULP_NONZERO: return "reserved RsvdULP octets set";
    case MPA_DDP_AN_ATOMIC_OP: return "undefined atomic opcode";
    case MPA_DDP_AN_ATOMIC_RSVD: return "atomic request reserved bits set";
    case MPA_DDP_AN_TRAILING: return "payload after an RDMA Read Request";
    case MPA_DDP_AN_EXT_LEN: return "RFC 7306 message not its header alone";
    case MPA_DDP_AN_ATOMIC_UNUSED: return "unused atomic request fields not as sent by RFC 7306";
    default: return "unknown";
    }
}

/* ---- RTR (RFC 6581 9.2) ---------------------------------------------- */

const char *mpa_rtr_str(mpa_rtr_kind k)
{
    switch (k) {
    case MPA_RTR_SEND:
        return "send";
    case MPA_RTR_WRITE:
        return "write";
    case MPA_RTR_READ:
        return "read";
    case MPA_RTR_NONE:
        break;
    }
    return "none";
}

mpa_rtr_kind mpa_ddp_rtr_kind(const mpa_ddp *d)
{
    if (!d || !d->complete)
        return MPA_RTR_NONE;
    const mpa_ddp_hdr *h = &d->hdr;
    switch (h->opcode) {
    case MPA_RDMAP_SEND:
        if (!h->tagged && h->last && d->payload_len == 0)
            return MPA_RTR_SEND;
        break;
    case MPA_RDMAP_RDMA_WRITE:
        if (h->tagged && h->last && d->payload_len == 0)
            return MPA_RTR_WRITE;
        break;
    case MPA_RDMAP_READ_REQUEST:
        if (!h->tagged && d->u.rreq.size == 0)
            return MPA_RTR_READ;
        break;
    default:
        break;
    }
    return MPA_RTR_NONE;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the injector sends (see runner.h): startup frames (RFC 5044
 * 7.1.1, RFC 6581 6) and FPDUs (RFC 5044 4; DDP RFC 5041, RDMAP RFC
 * 5040) built with libmpa's encoders from a send step's values, each
 * field as the script says or, when it says nothing, as a correct
 * endpoint would send it: the MSNs counted per queue, markers and CRC
 * as negotiated.  What was built is described in the script's syntax.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runner.h"

/* The value of v, def when absent.  A variable that was not captured
 * (an any_of took another branch) is an error at run time. */
static int64_t val(runner *R, const sc_val *v, int64_t def, int *bad, char *err, size_t errlen)
{
    if (!v->set)
        return def;
    if (!v->is_var)
        return v->v;
    int64_t x;
    if (rn_var_get(R, v->var, &x)) {
        if (!*bad)
            snprintf(err, errlen, "variable $%s has no value (the step that captures it did not match)", v->var);
        *bad = 1;
        return def;
    }
    return x;
}

/* ---- startup frames ------------------------------------------------------ */

/* A startup frame; the key, when the script gives none, is the one of
 * our role (a Reply when the device is the Initiator). */
int rn_build_frame(runner *R, const sc_frame *f, pbuf *out, char *desc, size_t dl, char *err, size_t errlen)
{
    int bad = 0;
    mpa_frame_enc e;
    memset(&e, 0, sizeof e);
    e.kind = f->kind != MPA_KEY_UNKNOWN ? f->kind : R->s->device_initiator ? MPA_KEY_REP : MPA_KEY_REQ;
    if (f->raw_key_set)
        e.raw_key = f->raw_key;
    e.enh_present = f->enh_present;
    e.m = (uint8_t)val(R, &f->m, 0, &bad, err, errlen);
    e.c = (uint8_t)val(R, &f->c, 1, &bad, err, errlen);
    e.r = (uint8_t)val(R, &f->r, 0, &bad, err, errlen);
    e.s = (uint8_t)val(R, &f->s, f->enh_present, &bad, err, errlen);
    e.res = (uint8_t)val(R, &f->res, 0, &bad, err, errlen);
    e.rev = (uint8_t)val(R, &f->rev, f->enh_present ? 2 : 1, &bad, err, errlen);
    e.enh.a = (uint8_t)val(R, &f->a, 0, &bad, err, errlen);
    e.enh.b = (uint8_t)val(R, &f->b, 0, &bad, err, errlen);
    e.enh.c = (uint8_t)val(R, &f->ec, 0, &bad, err, errlen);
    e.enh.d = (uint8_t)val(R, &f->ed, 0, &bad, err, errlen);
    e.enh.ird = (uint16_t)val(R, &f->ird, 0x3FFF, &bad, err, errlen);
    e.enh.ord = (uint16_t)val(R, &f->ord, 0x3FFF, &bad, err, errlen);
    e.pd = f->pd.p;
    e.pd_len = f->pd.len;
    e.pd_len_override = f->pd_length.set ? (int)val(R, &f->pd_length, 0, &bad, err, errlen) : -1;
    if (bad)
        return -1;
    uint8_t buf[MPA_FRAME_HDR_LEN + MPA_ENH_LEN + 65536];
    size_t n;
    if (mpa_frame_encode(&e, buf, sizeof buf, &n) != MPA_OK) {
        snprintf(err, errlen, "the frame cannot be encoded");
        return -1;
    }
    if (rn_pbuf_add(out, buf, n)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    R->our_c = e.c;
    sbuf b = {desc, dl, 0};
    rn_sb(&b, "frame {\"key\":");
    if (f->raw_key_set)
        rn_hex_or_text(&b, f->raw_key, MPA_KEY_LEN);
    else
        rn_sb(&b, "\"%s\"", rn_key_word(e.kind));
    if (e.kind == MPA_KEY_STARTKEY && !f->raw_key_set)
        rn_sb(&b, ",\"m\":%u,\"c\":%u,\"res\":%u,\"rev\":%u", e.m, e.c, e.res, e.rev);
    else
        rn_sb(&b, ",\"m\":%u,\"c\":%u,\"r\":%u,\"s\":%u,\"res\":%u,\"rev\":%u", e.m, e.c, e.r, e.s, e.res, e.rev);
    if (e.enh_present)
        rn_sb(&b, ",\"enhanced\":{\"a\":%u,\"b\":%u,\"c\":%u,\"d\":%u,\"ird\":%u,\"ord\":%u}", e.enh.a, e.enh.b,
              e.enh.c, e.enh.d, e.enh.ird, e.enh.ord);
    if (e.pd_len_override >= 0)
        rn_sb(&b, ",\"pd_length\":%d", e.pd_len_override);
    if (e.pd_len) {
        rn_sb(&b, ",\"private_data\":");
        rn_hex_or_text(&b, e.pd, e.pd_len);
    }
    rn_sb(&b, "}");
    return 0;
}

static unsigned default_qn(unsigned op)
{
    switch (op) {
    case MPA_RDMAP_READ_REQUEST:
    case MPA_RDMAP_ATOMIC_REQUEST:
        return MPA_QN_READ_REQUEST;
    case MPA_RDMAP_TERMINATE:
        return MPA_QN_TERMINATE;
    case MPA_RDMAP_ATOMIC_RESPONSE:
        return MPA_QN_ATOMIC_RESP;
    default:
        return MPA_QN_SEND;
    }
}

/* ---- FPDUs ---------------------------------------------------------------- */

/* The RDMAP opcode of an FPDU built from fields: the RTR shorthand's,
 * else the script's (Send when it gives none). */
static unsigned fpdu_opcode(runner *R, const sc_fpdu *f, int *bad, char *err, size_t errlen)
{
    if (f->rtr)
        return f->rtr == MPA_RTR_WRITE  ? MPA_RDMAP_RDMA_WRITE
               : f->rtr == MPA_RTR_SEND ? MPA_RDMAP_SEND
                                        : MPA_RDMAP_READ_REQUEST;
    return (unsigned)val(R, &f->opcode, MPA_RDMAP_SEND, bad, err, errlen) & 15u;
}

/* The DDP header (RFC 5041 4.2, 4.3) and the RDMAP control fields:
 * tagged for a Write and a Read Response unless the script says
 * otherwise; untagged ones take the next MSN of their queue, which a
 * last segment moves on. */
static void ddp_header(runner *R, const sc_fpdu *f, unsigned op, mpa_ddp_hdr *h, int *bad, char *err,
                       size_t errlen)
{
    int tagged_def = op == MPA_RDMAP_RDMA_WRITE || op == MPA_RDMAP_READ_RESPONSE;
    h->opcode = (uint8_t)op;
    h->tagged = (uint8_t)val(R, &f->tagged, tagged_def, bad, err, errlen);
    h->last = (uint8_t)val(R, &f->last, 1, bad, err, errlen);
    h->dv = (uint8_t)val(R, &f->dv, 1, bad, err, errlen);
    h->rv = (uint8_t)val(R, &f->rv, 1, bad, err, errlen);
    h->ddp_rsvd = (uint8_t)val(R, &f->ddp_rsvd, 0, bad, err, errlen);
    h->rdmap_rsvd = (uint8_t)val(R, &f->rdmap_rsvd, 0, bad, err, errlen);
    if (h->tagged) {
        h->stag = (uint32_t)val(R, &f->stag, 0, bad, err, errlen);
        h->to = (uint64_t)val(R, &f->to, 0, bad, err, errlen);
    } else {
        h->rsvdulp = (uint32_t)val(R, &f->inv_stag, 0, bad, err, errlen);
        h->qn = (uint32_t)val(R, &f->qn, default_qn(op), bad, err, errlen);
        unsigned q = h->qn < 4 ? h->qn : 0;
        h->msn = (uint32_t)val(R, &f->msn, R->msn[q], bad, err, errlen);
        h->mo = (uint32_t)val(R, &f->mo, 0, bad, err, errlen);
        if (h->last && h->qn < 4)
            R->msn[h->qn] = h->msn + 1;
    }
}

/* The header of a TERMINATE (RFC 5040 4.8) and, when the script gives
 * one, the DDP header it copies. */
static void term_fields(runner *R, const sc_fpdu *f, mpa_term *tm, int *bad, char *err, size_t errlen)
{
    tm->layer = (uint8_t)val(R, &f->layer, 0, bad, err, errlen);
    tm->etype = (uint8_t)val(R, &f->etype, 0, bad, err, errlen);
    tm->code = (uint8_t)val(R, &f->code, 0, bad, err, errlen);
    tm->m = (uint8_t)val(R, &f->tm, 0, bad, err, errlen);
    tm->d = (uint8_t)val(R, &f->td, f->term_copy, bad, err, errlen);
    tm->r = (uint8_t)val(R, &f->tr, 0, bad, err, errlen);
    tm->seglen = (uint16_t)val(R, &f->seglen, 0, bad, err, errlen);
    if (f->term_copy) {
        mpa_ddp_hdr *c = &tm->ddp_hdr;
        unsigned cop = (unsigned)val(R, &f->ct_opcode, MPA_RDMAP_SEND, bad, err, errlen) & 15u;
        c->opcode = (uint8_t)cop;
        c->tagged = (uint8_t)val(R, &f->ct_tagged, cop == MPA_RDMAP_RDMA_WRITE || cop == MPA_RDMAP_READ_RESPONSE,
                                 bad, err, errlen);
        c->last = (uint8_t)val(R, &f->ct_last, 1, bad, err, errlen);
        c->dv = 1;
        c->rv = 1;
        c->stag = (uint32_t)val(R, &f->ct_stag, 0, bad, err, errlen);
        c->to = (uint64_t)val(R, &f->ct_to, 0, bad, err, errlen);
        c->qn = (uint32_t)val(R, &f->ct_qn, default_qn(cop), bad, err, errlen);
        c->msn = (uint32_t)val(R, &f->ct_msn, 1, bad, err, errlen);
        c->mo = (uint32_t)val(R, &f->ct_mo, 0, bad, err, errlen);
    }
}

/* The fields of the RDMAP message after the headers: a Read Request's
 * (RFC 5040 4.4), a TERMINATE's, Immediate Data. */
static void rdmap_fields(runner *R, const sc_fpdu *f, unsigned op, mpa_ddp *d, int *bad, char *err, size_t errlen)
{
    switch (op) {
    case MPA_RDMAP_READ_REQUEST:
        d->u.rreq.sink_stag = (uint32_t)val(R, &f->sink_stag, 0, bad, err, errlen);
        d->u.rreq.sink_to = (uint64_t)val(R, &f->sink_to, 0, bad, err, errlen);
        d->u.rreq.size = (uint32_t)val(R, &f->size, 0, bad, err, errlen);
        d->u.rreq.src_stag = (uint32_t)val(R, &f->src_stag, 0, bad, err, errlen);
        d->u.rreq.src_to = (uint64_t)val(R, &f->src_to, 0, bad, err, errlen);
        break;
    case MPA_RDMAP_TERMINATE:
        term_fields(R, f, &d->u.term, bad, err, errlen);
        break;
    case MPA_RDMAP_IMMEDIATE:
    case MPA_RDMAP_IMMEDIATE_SE:
        d->u.imm.data = (uint64_t)val(R, &f->imm, 0, bad, err, errlen);
        break;
    case MPA_RDMAP_ATOMIC_REQUEST: {
        /* RFC 7306 5.2.1: by default a FetchAdd; the fields an operation
         * does not use as RFC 7306 sets them (Compare Data 0, the masks a
         * FetchAdd or CmpSwap does not give all ones; -1 is all ones). */
        mpa_atomic_req *a = &d->u.atomic_req;
        a->aop = (uint8_t)val(R, &f->at_aop, MPA_ATOMIC_FETCH_ADD, bad, err, errlen);
        a->req_id = (uint32_t)val(R, &f->at_req_id, 0, bad, err, errlen);
        a->stag = (uint32_t)val(R, &f->at_stag, 0, bad, err, errlen);
        a->to = (uint64_t)val(R, &f->at_to, 0, bad, err, errlen);
        a->add_swap_data = (uint64_t)val(R, &f->at_asd, 0, bad, err, errlen);
        a->add_swap_mask =
            (uint64_t)val(R, &f->at_asm, a->aop == MPA_ATOMIC_FETCH_ADD ? 0 : -1, bad, err, errlen);
        a->compare_data = (uint64_t)val(R, &f->at_cd, 0, bad, err, errlen);
        a->compare_mask = (uint64_t)val(R, &f->at_cm, -1, bad, err, errlen);
        break;
    }
    case MPA_RDMAP_ATOMIC_RESPONSE:
        d->u.atomic_resp.orig_req_id = (uint32_t)val(R, &f->ar_req_id, 0, bad, err, errlen);
        d->u.atomic_resp.orig_value = (uint64_t)val(R, &f->ar_value, 0, bad, err, errlen);
        break;
    default:
        break;
    }
}

/* What a ULPDU built from fields holds, in the script's syntax. */
static void ddp_describe(sbuf *b, const sc_fpdu *f, unsigned op, const mpa_ddp *d)
{
    const mpa_ddp_hdr *h = &d->hdr;
    const char *w = rn_opcode_word(op);
    if (f->rtr)
        rn_sb(b, "\"rtr\":\"%s\"", mpa_rtr_str((mpa_rtr_kind)f->rtr));
    else if (w)
        rn_sb(b, "\"rdmap\":\"%s\"", w);
    else
        rn_sb(b, "\"opcode\":%u", op);
    rn_sb(b, ",\"tagged\":%u,\"last\":%u", h->tagged, h->last);
    if (h->dv != 1 || h->rv != 1)
        rn_sb(b, ",\"dv\":%u,\"rv\":%u", h->dv, h->rv);
    if (h->tagged)
        rn_sb(b, ",\"stag\":%" PRIu32 ",\"to\":%" PRIu64, h->stag, h->to);
    else
        rn_sb(b, ",\"qn\":%" PRIu32 ",\"msn\":%" PRIu32 ",\"mo\":%" PRIu32, h->qn, h->msn, h->mo);
    if (op == MPA_RDMAP_TERMINATE)
        rn_sb(b, ",\"terminate\":{\"layer\":%u,\"etype\":%u,\"code\":%u}", d->u.term.layer, d->u.term.etype,
              d->u.term.code);
    if (op == MPA_RDMAP_READ_REQUEST)
        rn_sb(b, ",\"read_request\":{\"size\":%" PRIu32 "}", d->u.rreq.size);
    if (op == MPA_RDMAP_ATOMIC_REQUEST)
        rn_sb(b, ",\"atomic\":{\"aop\":%u,\"req_id\":%" PRIu32 "}", d->u.atomic_req.aop, d->u.atomic_req.req_id);
    if (op == MPA_RDMAP_ATOMIC_RESPONSE)
        rn_sb(b, ",\"atomic_response\":{\"orig_req_id\":%" PRIu32 "}", d->u.atomic_resp.orig_req_id);
    if (f->payload.len)
        rn_sb(b, ",\"payload_length\":%zu", f->payload.len);
}

/* The ULPDU from the DDP/RDMAP fields and the payload, into ulpdu (cap
 * octets), its length in *ul; described in b.  0, or -1 + err. */
static int ulpdu_from_fields(runner *R, const sc_fpdu *f, uint8_t *ulpdu, size_t cap, size_t *ul, sbuf *b,
                             char *err, size_t errlen)
{
    int bad = 0;
    mpa_ddp d;
    memset(&d, 0, sizeof d);
    unsigned op = fpdu_opcode(R, f, &bad, err, errlen);
    ddp_header(R, f, op, &d.hdr, &bad, err, errlen);
    rdmap_fields(R, f, op, &d, &bad, err, errlen);
    if (bad)
        return -1;
    if (mpa_ddp_encode(&d, ulpdu, cap, ul) != MPA_OK) {
        snprintf(err, errlen, "the DDP/RDMAP headers cannot be encoded");
        return -1;
    }
    if (*ul + f->payload.len > 65535) {
        snprintf(err, errlen, "headers and payload (%zu octets) do not fit one ULPDU", *ul + f->payload.len);
        return -1;
    }
    if (f->payload.len)
        memcpy(ulpdu + *ul, f->payload.p, f->payload.len);
    *ul += f->payload.len;
    ddp_describe(b, f, op, &d);
    return 0;
}

/* Framing: markers and CRC as negotiated (what the engine saw of our
 * direction, else what the startup frames said) unless the script says
 * otherwise, and the deliberate faults it asks for.  0, or -1 + err. */
static int fpdu_framing(runner *R, const sc_fpdu *f, mpa_fpdu_cfg *cfg, mpa_fpdu_faults *fl, char *err,
                        size_t errlen)
{
    int bad = 0;
    int neg_markers = R->mode_fpdu[TP_OUT] ? R->markers[TP_OUT] : R->have_dev_frame ? R->dev_m : 0;
    int neg_crc = R->mode_fpdu[TP_OUT] ? R->crc[TP_OUT] : (R->our_c || (R->have_dev_frame && R->dev_c));
    cfg->markers = f->markers == SC_ON ? 1 : f->markers == SC_OFF ? 0 : neg_markers;
    cfg->crc = 1;
    uint64_t base = R->mode_fpdu[TP_OUT] ? R->mode_off[TP_OUT] : R->frame_end_out;
    cfg->mark_base = (uint32_t)base;
    memset(fl, 0, sizeof *fl);
    fl->len_override = -1;
    if (f->crc == SC_OFF || (f->crc == SC_AUTO && !neg_crc)) {
        /* no CRC generated: the field is zero */
        fl->crc_mode = 1;
        fl->crc_value = 0;
    }
    if (f->crc_value.set) {
        fl->crc_mode = 1;
        fl->crc_value = (uint32_t)val(R, &f->crc_value, 0, &bad, err, errlen);
    }
    if (f->crc_xor.set) {
        fl->crc_mode = 2;
        fl->crc_xor = (uint32_t)val(R, &f->crc_xor, 0, &bad, err, errlen);
    }
    fl->marker_ptr_delta = (int32_t)val(R, &f->marker_ptr_delta, 0, &bad, err, errlen);
    fl->marker_nth = (unsigned)val(R, &f->marker_nth, 0, &bad, err, errlen);
    fl->marker_reserved = (uint16_t)val(R, &f->marker_reserved, 0, &bad, err, errlen);
    fl->pad_byte = (uint8_t)val(R, &f->pad_byte, 0, &bad, err, errlen);
    if (f->ulpdu_length.set)
        fl->len_override = (int)val(R, &f->ulpdu_length, 0, &bad, err, errlen);
    return bad ? -1 : 0;
}

/* The framing as sent, in the script's syntax. */
static void framing_describe(sbuf *b, const sc_fpdu *f, const mpa_fpdu_cfg *cfg, const mpa_fpdu_faults *fl)
{
    rn_sb(b, ",\"markers\":%s,\"crc\":", cfg->markers ? "true" : "false");
    if (fl->crc_mode == 1)
        rn_sb(b, "%s", f->crc_value.set ? "\"wrong\"" : "false");
    else if (fl->crc_mode == 2)
        rn_sb(b, "\"wrong\"");
    else
        rn_sb(b, "true");
    if (fl->marker_ptr_delta || fl->marker_reserved)
        rn_sb(b, ",\"marker\":\"wrong\"");
    if (fl->len_override >= 0)
        rn_sb(b, ",\"ulpdu_length\":%d", fl->len_override);
    rn_sb(b, "}");
}

/* One FPDU at our stream offset off, appended to out. */
int rn_build_fpdu(runner *R, const sc_fpdu *f, uint64_t off, pbuf *out, char *desc, size_t dl, char *err,
                  size_t errlen)
{
    static uint8_t ulpdu[65536 + 128];
    size_t ul = 0;
    sbuf b = {desc, dl, 0};
    rn_sb(&b, "fpdu {");
    if (f->ulpdu_raw) {
        memcpy(ulpdu, f->ulpdu.p, f->ulpdu.len);
        ul = f->ulpdu.len;
        rn_sb(&b, "\"ulpdu\":");
        rn_hex_or_text(&b, f->ulpdu.p, f->ulpdu.len);
    } else if (ulpdu_from_fields(R, f, ulpdu, sizeof ulpdu, &ul, &b, err, errlen)) {
        return -1;
    }
    mpa_fpdu_cfg cfg;
    mpa_fpdu_faults fl;
    if (fpdu_framing(R, f, &cfg, &fl, err, errlen))
        return -1;
    static uint8_t wire[MPA_FPDU_WIRE_MAX + 16];
    size_t n;
    if (mpa_fpdu_encode(ulpdu, ul, (uint32_t)off, &cfg, &fl, wire, sizeof wire, &n) != MPA_OK) {
        snprintf(err, errlen, "the FPDU cannot be encoded (ULPDU %zu octets)", ul);
        return -1;
    }
    if (rn_pbuf_add(out, wire, n)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    framing_describe(&b, f, &cfg, &fl);
    return 0;
}

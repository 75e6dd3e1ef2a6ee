/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Human-readable one-liners for frames (RFC 5044 7.1.1, RFC 6581 9),
 * DDP/RDMAP segments (RFC 5040, 5041, 7306) and stream events.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mpa/describe.h"

/* Appending writer that never overflows and remembers the wanted size. */
typedef struct out {
    char *buf;
    size_t cap, n;
} out_t;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(out_t *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = o->n < o->cap ? o->cap - o->n : 0;
    int k = vsnprintf(room ? o->buf + o->n : NULL, room, fmt, ap);
    va_end(ap);
    if (k > 0)
        o->n += (size_t)k;
}

static size_t done(out_t *o)
{
    if (o->cap)
        o->buf[o->n < o->cap ? o->n : o->cap - 1] = 0;
    return o->n;
}

static void put_irdord(out_t *o, const char *name, unsigned v)
{
    if (v == MPA_IRD_ORD_MAX)
        put(o, " %s 0x3FFF", name);
    else
        put(o, " %s %u", name, v);
}

static void frame_into(out_t *o, const mpa_frame *f)
{
    switch (f->kind) {
    case MPA_KEY_STARTKEY:
        put(o, "MPA Start Key (draft-03) Rev %u M=%u C=%u", f->rev, f->m, f->c);
        return;
    case MPA_KEY_UNKNOWN:
        put(o, "MPA unknown key (nearest %s, octet %d differs)", mpa_key_kind_name(f->nearest),
            f->first_diff);
        return;
    case MPA_KEY_RTR2007:
        put(o, "MPA RtR frame (2007)");
        break;
    case MPA_KEY_REQ:
        put(o, "MPA Request");
        break;
    case MPA_KEY_REP:
        put(o, "MPA Reply");
        break;
    }
    put(o, " Rev%u M=%u C=%u", f->rev, f->m, f->c);
    if (f->r)
        put(o, f->kind == MPA_KEY_REP ? " R=1 (reject)" : " R=1 (reserved)");
    if (f->s)
        put(o, " S=1");
    if (f->res)
        put(o, " Res=0x%x", f->res);
    if (f->has_enh) {
        put(o, " %s", f->enh.a ? "p2p" : "client-server");
        put_irdord(o, "IRD", f->enh.ird);
        put_irdord(o, "ORD", f->enh.ord);
        if (f->enh.b | f->enh.c | f->enh.d)
            put(o, " RTR %s%s%s%s%s", f->enh.b ? "send" : "", f->enh.b && (f->enh.c | f->enh.d) ? "," : "",
                f->enh.c ? "write" : "", f->enh.c && f->enh.d ? "," : "", f->enh.d ? "read" : "");
    }
    if (f->leg.order != MPA_LEG_NONE)
        put(o, " legacy IRD %u ORD %u%s", (unsigned)f->leg.ird, (unsigned)f->leg.ord,
            f->leg.order == MPA_LEG_LE ? " (byte-swapped)" : "");
    put(o, " PD %u", f->pd_len);
}

size_t mpa_frame_summary(const mpa_frame *f, char *buf, size_t cap)
{
    out_t o = {buf, cap, 0};
    frame_into(&o, f);
    return done(&o);
}

static void ddp_into(out_t *o, const mpa_ddp *d, mpa_status st)
{
    const mpa_ddp_hdr *h = &d->hdr;
    if (st == MPA_E_INVALID) {
        put(o, "ULPDU too short for a DDP header (%zu octets, %zu needed)", d->ulpdu_len, d->need_len);
        return;
    }
    if (st != MPA_OK) {
        put(o, "DDP header not decoded (%s)", mpa_status_str(st));
        return;
    }
    if (h->opcode == MPA_RDMAP_TERMINATE) {
        const mpa_term *t = &d->u.term;
        put(o, "TERMINATE %s/%s %s", mpa_term_layer_name(t->layer), mpa_term_etype_name(t->layer, t->etype),
            mpa_term_code_name(t->layer, t->etype, t->code));
        put(o, " (layer %u etype %u code %u%s%s%s)", t->layer, t->etype, t->code, t->m ? " M" : "",
            t->d ? " D" : "", t->r ? " R" : "");
        return;
    }
    put(o, "%s", mpa_rdmap_opcode_name(h->opcode));
    if (h->tagged)
        put(o, " STag 0x%08x TO 0x%llx", h->stag, (unsigned long long)h->to);
    else
        put(o, " QN %u MSN %u MO %u", h->qn, h->msn, h->mo);
    if (h->opcode == MPA_RDMAP_READ_REQUEST)
        put(o, " sink 0x%08x/0x%llx size %u source 0x%08x/0x%llx", d->u.rreq.sink_stag,
            (unsigned long long)d->u.rreq.sink_to, d->u.rreq.size, d->u.rreq.src_stag,
            (unsigned long long)d->u.rreq.src_to);
    else if (h->opcode == MPA_RDMAP_ATOMIC_REQUEST)
        put(o, " AOpCode %u %s id %u STag 0x%08x TO 0x%llx", d->u.atomic_req.aop,
            mpa_atomic_opcode_name(d->u.atomic_req.aop), d->u.atomic_req.req_id, d->u.atomic_req.stag,
            (unsigned long long)d->u.atomic_req.to);
    else if (h->opcode == MPA_RDMAP_ATOMIC_RESPONSE)
        put(o, " id %u value 0x%llx", d->u.atomic_resp.orig_req_id, (unsigned long long)d->u.atomic_resp.orig_value);
    else if (h->opcode == MPA_RDMAP_IMMEDIATE || h->opcode == MPA_RDMAP_IMMEDIATE_SE)
        put(o, " data 0x%016llx", (unsigned long long)d->u.imm.data);
    if (h->opcode != MPA_RDMAP_READ_REQUEST)
        put(o, " %zu bytes", d->payload_len);
    if (!h->last)
        put(o, " (not last)");
    mpa_rtr_kind k = mpa_ddp_rtr_kind(d);
    if (k != MPA_RTR_NONE)
        put(o, " [RTR]");
}

size_t mpa_ddp_summary(const mpa_ddp *d, mpa_status st, char *buf, size_t cap)
{
    out_t o = {buf, cap, 0};
    ddp_into(&o, d, st);
    return done(&o);
}

size_t mpa_event_format(const mpa_event *ev, char *buf, size_t cap)
{
    out_t o = {buf, cap, 0};
    put(&o, "d%d @%llu ", ev->dir, (unsigned long long)ev->off);
    switch (ev->type) {
    case MPA_EV_FRAME:
        put(&o, "FRAME %s: ", mpa_role_str(ev->u.frame.role));
        frame_into(&o, &ev->u.frame.frame);
        break;
    case MPA_EV_MODE:
        put(&o, "MODE %s", mpa_dir_mode_str(ev->u.mode.mode));
        if (ev->u.mode.mode == MPA_MODE_FPDU)
            put(&o, " markers %s crc %s", ev->u.mode.markers ? "on" : "off", ev->u.mode.crc ? "on" : "off");
        put(&o, " (%s)", ev->u.mode.why ? ev->u.mode.why : "");
        break;
    case MPA_EV_MARKER:
        put(&o, "MARKER ptr %u%s%s", ev->u.marker.fpduptr, ev->u.marker.leading ? " leading" : "",
            ev->u.marker.reserved ? " reserved!=0" : "");
        break;
    case MPA_EV_FPDU: {
        const mpa_ev_fpdu *f = &ev->u.fpdu;
        put(&o, "FPDU #%llu len %u wire %u crc %s markers %u | ", (unsigned long long)f->index, f->ulpdu_len,
            f->wire_len, mpa_crc_status_str(f->crc), f->n_markers);
        ddp_into(&o, &f->ddp, f->ddp_status);
        if (f->negotiated_rtr)
            put(&o, " (negotiated RTR)");
        break;
    }
    case MPA_EV_FINDING: {
        const mpa_rule *r = ev->u.finding.rule;
        put(&o, "FINDING %s %s: %s", r ? r->id : "?", r ? mpa_severity_str(r->severity) : "?",
            ev->u.finding.msg ? ev->u.finding.msg : "");
        break;
    }
    case MPA_EV_DATA:
        put(&o, "DATA %llu octets (%s)", (unsigned long long)ev->u.data.len, ev->u.data.why);
        break;
    }
    return done(&o);
}

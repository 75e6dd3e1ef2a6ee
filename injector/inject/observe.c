/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the device sends, as the runner sees it (see runner.h).
 *
 * libmpa's stream engine is fed both directions in causal order: our
 * octets when they are sent, the device's when they arrive (rn_feed;
 * the engine may hold octets of one direction until the other says how
 * to frame them, hence the queues it drains from).  Its events about
 * the device become observations (a startup frame, an FPDU, a FIN, a
 * RST, octets that are not MPA) in a queue that expect steps read in
 * order; its findings are recorded in the run's result.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runner.h"

/* Set by the signal handlers (run.h); every wait of the run looks at it,
 * the waits for the device here first. */
volatile int run_interrupted;

/* ---- observations ------------------------------------------------------ */

double rn_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

double rn_rel(const runner *R)
{
    return rn_now_ms() - R->t0;
}

static obs *q_push(runner *R)
{
    if (R->qlen == OBQ_MAX) {
        /* The device sent more than any script looks at: the oldest
         * is dropped and counted (the report says so). */
        R->qhead = (R->qhead + 1) % OBQ_MAX;
        R->qlen--;
        R->qdropped++;
    }
    obs *o = &R->q[(R->qhead + R->qlen) % OBQ_MAX];
    R->qlen++;
    memset(o->has, 0, sizeof o->has);
    o->pd_len = 0;
    o->pl_len = 0;
    o->off = o->end = R->fed_off[TP_IN];
    o->t_ms = rn_rel(R);
    return o;
}

obs *rn_q_front(runner *R)
{
    return R->qlen ? &R->q[R->qhead] : NULL;
}

void rn_q_pop(runner *R)
{
    if (R->qlen) {
        R->qhead = (R->qhead + 1) % OBQ_MAX;
        R->qlen--;
    }
}

static void put(obs *o, sc_field f, int64_t v)
{
    o->has[f] = 1;
    o->f[f] = v;
}

static void obs_frame(runner *R, const mpa_event *ev)
{
    const mpa_frame *fr = &ev->u.frame.frame;
    obs *o = q_push(R);
    o->kind = OB_FRAME;
    o->off = ev->off;
    o->end = ev->off + MPA_FRAME_HDR_LEN + fr->pd_len;
    put(o, F_KEY, fr->kind);
    put(o, F_M, fr->m);
    put(o, F_C, fr->c);
    put(o, F_REV, fr->rev);
    put(o, F_RES, fr->res);
    if (fr->kind != MPA_KEY_STARTKEY) {
        put(o, F_R, fr->r);
        put(o, F_S, fr->s);
        put(o, F_PD_LENGTH, fr->pd_len);
    }
    put(o, F_ENHANCED, fr->has_enh ? 1 : 0);
    size_t skip = 0;
    if (fr->has_enh) {
        put(o, F_A, fr->enh.a);
        put(o, F_B, fr->enh.b);
        put(o, F_ENH_C, fr->enh.c);
        put(o, F_ENH_D, fr->enh.d);
        put(o, F_IRD, fr->enh.ird);
        put(o, F_ORD, fr->enh.ord);
        skip = MPA_ENH_LEN;
    }
    put(o, F_PD_USER_LEN, fr->pd_len > skip ? fr->pd_len - (int64_t)skip : 0);
    if (fr->pd && fr->pd_avail > skip) {
        o->pd_len = fr->pd_avail - skip;
        if (o->pd_len > sizeof o->pd)
            o->pd_len = sizeof o->pd;
        memcpy(o->pd, fr->pd + skip, o->pd_len);
    }
    R->have_dev_frame = 1;
    R->dev_m = fr->m;
    R->dev_c = fr->c;
}

static void obs_fpdu(runner *R, const mpa_event *ev)
{
    const mpa_ev_fpdu *f = &ev->u.fpdu;
    obs *o = q_push(R);
    o->kind = OB_FPDU;
    o->off = ev->off;
    o->end = ev->off + f->wire_len;
    put(o, F_ULPDU_LENGTH, f->ulpdu_len);
    put(o, F_CRC, f->crc);
    put(o, F_MARKERS, f->n_markers);
    put(o, F_RTR, f->rtr);
    const mpa_ddp *d = &f->ddp;
    if (d->seen_len >= 2) {
        put(o, F_TAGGED, d->hdr.tagged);
        put(o, F_LAST, d->hdr.last);
        put(o, F_DV, d->hdr.dv);
        put(o, F_RV, d->hdr.rv);
        put(o, F_OPCODE, d->hdr.opcode);
    }
    if (d->hdr_len && d->seen_len >= d->hdr_len) {
        if (d->hdr.tagged) {
            put(o, F_STAG, d->hdr.stag);
            put(o, F_TO, (int64_t)(d->hdr.to & INT64_MAX));
        } else {
            put(o, F_QN, d->hdr.qn);
            put(o, F_MSN, d->hdr.msn);
            put(o, F_MO, d->hdr.mo);
        }
    }
    if (d->complete) {
        put(o, F_PAYLOAD_LEN, (int64_t)d->payload_len);
        /* the engine shows the first octets of the ULPDU only */
        size_t shown = f->ulpdu && f->ulpdu_avail > d->need_len ? f->ulpdu_avail - d->need_len : 0;
        o->pl_len = d->payload_len < shown ? d->payload_len : shown;
        if (o->pl_len > sizeof o->pl)
            o->pl_len = sizeof o->pl;
        if (o->pl_len)
            memcpy(o->pl, f->ulpdu + d->need_len, o->pl_len);
        if (d->hdr.opcode == MPA_RDMAP_READ_REQUEST)
            put(o, F_READ_SIZE, d->u.rreq.size);
        if (d->hdr.opcode == MPA_RDMAP_ATOMIC_RESPONSE && !d->hdr.tagged) {
            put(o, F_ARESP_REQ_ID, d->u.atomic_resp.orig_req_id);
            put(o, F_ARESP_VALUE, (int64_t)(d->u.atomic_resp.orig_value & INT64_MAX));
        }
    }
    if (d->hdr.opcode == MPA_RDMAP_TERMINATE && d->seen_len >= d->hdr_len + 4) {
        put(o, F_LAYER, d->u.term.layer);
        put(o, F_ETYPE, d->u.term.etype);
        put(o, F_CODE, d->u.term.code);
        const mpa_term *t = &d->u.term;
        if (d->complete) {
            put(o, F_TERM_M, t->m);
            put(o, F_TERM_D, t->d);
            put(o, F_TERM_R, t->r);
            if (t->seglen_present)
                put(o, F_TERM_SEGLEN, t->seglen);
            if (t->has_ddp_hdr && t->ddp_hdr.tagged) {
                put(o, F_TERM_STAG, t->ddp_hdr.stag);
            } else if (t->has_ddp_hdr) {
                put(o, F_TERM_QN, t->ddp_hdr.qn);
                put(o, F_TERM_MSN, t->ddp_hdr.msn);
                put(o, F_TERM_MO, t->ddp_hdr.mo);
            }
        }
    }
}

static void record_finding(runner *R, const mpa_event *ev)
{
    run_result *r = R->r;
    const mpa_ev_finding *f = &ev->u.finding;
    int dev = ev->dir == TP_IN;
    int expected = 0;
    for (unsigned i = 0; dev && f->rule && i < R->s->nexpected; i++)
        if (!strcmp(R->s->expected_findings[i], f->rule->id))
            expected = 1;
    if (dev && !expected && f->rule && f->rule->severity == MPA_SEV_ERROR)
        r->device_errors++;
    if (r->nfindings >= RUN_MAX_FINDINGS) {
        r->findings_dropped++;
        return;
    }
    run_finding *x = &r->findings[r->nfindings++];
    x->id = f->id;
    x->from_device = dev;
    x->error = f->rule && f->rule->severity == MPA_SEV_ERROR;
    x->expected = expected;
    x->off = ev->off;
    x->t_ms = rn_rel(R);
    snprintf(x->msg, sizeof x->msg, "%s", f->msg ? f->msg : "");
    if (R->o->progress && R->o->verbose)
        fprintf(R->o->progress, "      %s finding %s: %s\n", dev ? "device" : "injector", f->rule ? f->rule->id : "?",
                x->msg);
}

void rn_on_event(void *user, const mpa_event *ev)
{
    runner *R = user;
    switch (ev->type) {
    case MPA_EV_FRAME:
        if (ev->dir == TP_IN)
            obs_frame(R, ev);
        break;
    case MPA_EV_MODE:
        if (ev->u.mode.mode == MPA_MODE_FPDU) {
            R->mode_fpdu[ev->dir] = 1;
            R->markers[ev->dir] = ev->u.mode.markers;
            R->crc[ev->dir] = ev->u.mode.crc;
            R->mode_off[ev->dir] = ev->off;
        }
        break;
    case MPA_EV_FPDU:
        if (ev->dir == TP_IN)
            obs_fpdu(R, ev);
        break;
    case MPA_EV_FINDING:
        record_finding(R, ev);
        break;
    case MPA_EV_DATA:
        if (ev->dir == TP_IN) {
            obs *o = q_push(R);
            o->kind = OB_DATA;
            o->off = ev->off;
            o->end = ev->off + ev->u.data.len;
            o->data_len = ev->u.data.len;
            snprintf(o->why, sizeof o->why, "%s", ev->u.data.why ? ev->u.data.why : "");
        }
        break;
    case MPA_EV_MARKER:
        break;
    }
}

/* ---- feeding the engine ----------------------------------------------- */

/* An octet buffer that grows (0, or -1 out of memory). */
int rn_pbuf_add(pbuf *b, const uint8_t *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *np = realloc(b->p, cap);
        if (!np)
            return -1;
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    return 0;
}

/* Octets of dir (ours: as they are sent; the device's: as they arrive)
 * to the engine, through libmpa's feeder: what the engine cannot take
 * yet (the Initiator's octets before the Reply) waits there. */
void rn_feed(runner *R, int dir, const uint8_t *p, size_t n)
{
    if (!n || R->pend_overflow)
        return;
    if (mpa_feeder_data(R->feed, dir, p, n, 1) != MPA_FEED_OK) {
        R->pend_overflow = 1;
        return;
    }
    R->fed_off[dir] += n;
}

/* dir's sender closed, after what dir holds. */
void rn_end(runner *R, int dir, mpa_end_kind kind) { mpa_feeder_end(R->feed, dir, kind); }

/* ---- the device's side -------------------------------------------------- */

static void trace_flow_note(runner *R, const char *fmt, ...)
{
    if (!R->o->progress || !R->o->verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(R->o->progress, "      ");
    vfprintf(R->o->progress, fmt, ap);
    fprintf(R->o->progress, "\n");
    va_end(ap);
}

/* Receive until deadline (absolute, ms of tp_now_ms) or until something
 * was queued.  Returns -1 on a transport error (err set), else 0. */
int rn_pump(runner *R, int64_t deadline, int stop_on_event, char *err, size_t errlen)
{
    unsigned before = R->qlen + R->qdropped;
    while (R->open && !R->dev_rst && !R->dev_fin && !R->reset_sent) {
        if (run_interrupted) {
            snprintf(err, errlen, "interrupted");
            return -1;
        }
        size_t got = 0;
        tp_rx_kind k = R->t->ops->recv(R->t, R->rxbuf, sizeof R->rxbuf, &got, deadline, err, errlen);
        switch (k) {
        case TP_RX_DATA:
            R->r->recv_octets += got;
            trace_flow_note(R, "received %zu octets", got);
            rn_feed(R, TP_IN, R->rxbuf, got);
            break;
        case TP_RX_FIN:
            R->dev_fin = 1;
            rn_end(R, TP_IN, MPA_END_FIN);
            q_push(R)->kind = OB_FIN;
            break;
        case TP_RX_RST:
            R->dev_rst = 1;
            rn_end(R, TP_IN, MPA_END_RST);
            q_push(R)->kind = OB_RST;
            break;
        case TP_RX_TIMEOUT:
            return 0;
        case TP_RX_ERROR:
            return -1;
        }
        if (stop_on_event && R->qlen + R->qdropped != before)
            return 0;
        if (tp_now_ms() >= deadline)
            return 0;
    }
    /* Closed: nothing more can come; wait out the deadline only when
     * asked to (silence). */
    return 0;
}

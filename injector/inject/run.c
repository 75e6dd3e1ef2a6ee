/*
 * mpa-inject's runner (see run.h).
 *
 * What the device sends becomes a queue of observations (a startup
 * frame, an FPDU, a FIN, a RST, octets that are not MPA), decoded by the
 * libmpa stream engine.  An expect step looks at the queue in order: the
 * first observation either matches one of its alternatives (pass) or
 * does not (fail, with both sides printed in the script's own syntax);
 * with skip_fpdus, FPDUs that do not match are passed over.  Nothing is
 * ever waited for without a deadline.
 */
#include "run.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpa/crc32c.h"
#include "mpa/stream.h"

volatile int run_interrupted;

const char *run_verdict_str(run_verdict v)
{
    switch (v) {
    case V_NOT_RUN: return "not run";
    case V_DONE: return "done";
    case V_PASS: return "pass";
    case V_FAIL: return "fail";
    case V_ERROR: return "error";
    }
    return "?";
}

/* ---- observations ------------------------------------------------------ */

typedef enum ob_kind { OB_FRAME = 1, OB_FPDU, OB_FIN, OB_RST, OB_DATA } ob_kind;

typedef struct obs {
    uint8_t kind;
    uint8_t has[F__COUNT];
    int64_t f[F__COUNT];
    uint64_t off, end;       /* the stream octets [off, end) it stands for */
    double t_ms;
    uint8_t pd[MPA_PD_MAX];  /* frame: private data after the enhanced field */
    size_t pd_len;
    uint64_t data_len;       /* OB_DATA */
    char why[64];
} obs;

#define OBQ_MAX 512

typedef struct pbuf {
    uint8_t *p;
    size_t len, cap;
} pbuf;

#define PEND_MAX (16u << 20)

typedef struct runner {
    const scenario *s;
    const run_opts *o;
    run_result *r;
    tp *t;
    inj_trace *trace;
    int open, fin_sent, reset_sent, dev_fin, dev_rst;
    double t0;
    mpa_stream *eng;
    pbuf pend[2];         /* octets the engine has not taken yet */
    int pend_overflow;
    uint64_t fed_off[2];  /* octets given to pend (stream offsets) */
    /* the observation queue (ring) */
    obs *q;
    unsigned qhead, qlen;
    unsigned qdropped;
    /* what the engine told about our direction */
    int mode_fpdu[2], markers[2], crc[2];
    uint64_t mode_off[2];
    uint64_t frame_end_out;   /* stream offset after our last startup frame */
    int our_c, dev_m, dev_c, have_dev_frame;
    uint32_t msn[4];          /* next MSN per QN */
    uint64_t out_off;         /* our stream offset (octets sent) */
    uint8_t rxbuf[65536];
} runner;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double rel(const runner *R)
{
    return now_ms() - R->t0;
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
    o->off = o->end = R->fed_off[TP_IN];
    o->t_ms = rel(R);
    return o;
}

static obs *q_front(runner *R)
{
    return R->qlen ? &R->q[R->qhead] : NULL;
}

static void q_pop(runner *R)
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
        if (d->hdr.opcode == MPA_RDMAP_READ_REQUEST)
            put(o, F_READ_SIZE, d->u.rreq.size);
    }
    if (d->hdr.opcode == MPA_RDMAP_TERMINATE && d->seen_len >= d->hdr_len + 4) {
        put(o, F_LAYER, d->u.term.layer);
        put(o, F_ETYPE, d->u.term.etype);
        put(o, F_CODE, d->u.term.code);
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
    x->t_ms = rel(R);
    snprintf(x->msg, sizeof x->msg, "%s", f->msg ? f->msg : "");
    if (R->o->progress && R->o->verbose)
        fprintf(R->o->progress, "      %s finding %s: %s\n", dev ? "device" : "injector", f->rule ? f->rule->id : "?",
                x->msg);
}

static void on_event(void *user, const mpa_event *ev)
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

static int pbuf_add(pbuf *b, const uint8_t *p, size_t n)
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

static void drain(runner *R)
{
    int progress = 1;
    while (progress) {
        progress = 0;
        for (int d = 0; d < 2; d++) {
            pbuf *b = &R->pend[d];
            if (!b->len)
                continue;
            size_t k = mpa_stream_feed(R->eng, d, b->p, b->len);
            if (k) {
                memmove(b->p, b->p + k, b->len - k);
                b->len -= k;
                progress = 1;
            }
        }
    }
}

static void feed(runner *R, int dir, const uint8_t *p, size_t n)
{
    if (!n)
        return;
    if (R->pend_overflow)
        return;
    if (!R->pend[dir].len)
        mpa_stream_segment(R->eng, dir);
    if (R->pend[dir].len + n > PEND_MAX || pbuf_add(&R->pend[dir], p, n)) {
        R->pend_overflow = 1;
        return;
    }
    R->fed_off[dir] += n;
    drain(R);
}

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
static int pump(runner *R, int64_t deadline, int stop_on_event, char *err, size_t errlen)
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
            feed(R, TP_IN, R->rxbuf, got);
            break;
        case TP_RX_FIN:
            R->dev_fin = 1;
            drain(R);
            mpa_stream_end(R->eng, TP_IN, MPA_END_FIN);
            drain(R);
            q_push(R)->kind = OB_FIN;
            break;
        case TP_RX_RST:
            R->dev_rst = 1;
            drain(R);
            mpa_stream_end(R->eng, TP_IN, MPA_END_RST);
            drain(R);
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

/* ---- values ----------------------------------------------------------- */

static int var_get(const runner *R, const char *name, int64_t *v)
{
    const run_result *r = R->r;
    for (unsigned i = 0; i < r->nvars; i++)
        if (!strcmp(r->vars[i], name)) {
            *v = r->var_val[i];
            return 0;
        }
    return -1;
}

static void var_set(runner *R, const char *name, int64_t v)
{
    run_result *r = R->r;
    for (unsigned i = 0; i < r->nvars; i++)
        if (!strcmp(r->vars[i], name)) {
            r->var_val[i] = v;
            return;
        }
    if (r->nvars < SC_MAX_VARS) {
        snprintf(r->vars[r->nvars], SC_VAR_LEN, "%s", name);
        r->var_val[r->nvars++] = v;
    }
}

/* The value of v, def when absent.  A variable that was not captured
 * (an any_of took another branch) is an error at run time. */
static int64_t val(runner *R, const sc_val *v, int64_t def, int *bad, char *err, size_t errlen)
{
    if (!v->set)
        return def;
    if (!v->is_var)
        return v->v;
    int64_t x;
    if (var_get(R, v->var, &x)) {
        if (!*bad)
            snprintf(err, errlen, "variable $%s has no value (the step that captures it did not match)", v->var);
        *bad = 1;
        return def;
    }
    return x;
}

/* ---- building what we send ---------------------------------------------- */

typedef struct sbuf {
    char *p;
    size_t n, len;
} sbuf;

static void sb(sbuf *b, const char *fmt, ...)
{
    if (b->len >= b->n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->p + b->len, b->n - b->len, fmt, ap);
    va_end(ap);
    if (k > 0)
        b->len += (size_t)k < b->n - b->len ? (size_t)k : b->n - b->len - 1;
}

static const char *key_word(mpa_key_kind k)
{
    switch (k) {
    case MPA_KEY_REQ: return "request";
    case MPA_KEY_REP: return "reply";
    case MPA_KEY_RTR2007: return "rtr2007";
    case MPA_KEY_STARTKEY: return "startkey";
    case MPA_KEY_UNKNOWN: return "unknown";
    }
    return "unknown";
}

static const char *opcode_word(unsigned op)
{
    static const char *const w[16] = {"write", "read_request", "read_response", "send", "send_inv", "send_se",
                                      "send_se_inv", "terminate", "immediate", "immediate_se", "atomic_request",
                                      "atomic_response", NULL, NULL, NULL, NULL};
    return op < 16 ? w[op] : NULL;
}

static void hex_or_text(sbuf *b, const uint8_t *p, size_t n)
{
    int text = 1;
    for (size_t i = 0; i < n; i++)
        if (p[i] < 0x20 || p[i] > 0x7E || p[i] == '"' || p[i] == '\\')
            text = 0;
    if (text) {
        sb(b, "\"%.*s\"", (int)(n > 64 ? 64 : n), (const char *)p);
        if (n > 64)
            sb(b, "...");
        return;
    }
    sb(b, "{\"hex\":\"");
    for (size_t i = 0; i < n && i < 32; i++)
        sb(b, "%02x", p[i]);
    sb(b, "%s\"}", n > 32 ? "..." : "");
}

static int build_frame(runner *R, const sc_frame *f, pbuf *out, char *desc, size_t dl, char *err, size_t errlen)
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
    if (pbuf_add(out, buf, n)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    R->our_c = e.c;
    sbuf b = {desc, dl, 0};
    sb(&b, "frame {\"key\":");
    if (f->raw_key_set)
        hex_or_text(&b, f->raw_key, MPA_KEY_LEN);
    else
        sb(&b, "\"%s\"", key_word(e.kind));
    if (e.kind == MPA_KEY_STARTKEY && !f->raw_key_set)
        sb(&b, ",\"m\":%u,\"c\":%u,\"res\":%u,\"rev\":%u", e.m, e.c, e.res, e.rev);
    else
        sb(&b, ",\"m\":%u,\"c\":%u,\"r\":%u,\"s\":%u,\"res\":%u,\"rev\":%u", e.m, e.c, e.r, e.s, e.res, e.rev);
    if (e.enh_present)
        sb(&b, ",\"enhanced\":{\"a\":%u,\"b\":%u,\"c\":%u,\"d\":%u,\"ird\":%u,\"ord\":%u}", e.enh.a, e.enh.b,
           e.enh.c, e.enh.d, e.enh.ird, e.enh.ord);
    if (e.pd_len_override >= 0)
        sb(&b, ",\"pd_length\":%d", e.pd_len_override);
    if (e.pd_len) {
        sb(&b, ",\"private_data\":");
        hex_or_text(&b, e.pd, e.pd_len);
    }
    sb(&b, "}");
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

/* One FPDU at our stream offset off, appended to out. */
static int build_fpdu(runner *R, const sc_fpdu *f, uint64_t off, pbuf *out, char *desc, size_t dl, char *err,
                      size_t errlen)
{
    int bad = 0;
    static uint8_t ulpdu[65536 + 128];
    size_t ul = 0;
    mpa_ddp d;
    memset(&d, 0, sizeof d);
    sbuf b = {desc, dl, 0};
    sb(&b, "fpdu {");
    if (f->ulpdu_raw) {
        memcpy(ulpdu, f->ulpdu.p, f->ulpdu.len);
        ul = f->ulpdu.len;
        sb(&b, "\"ulpdu\":");
        hex_or_text(&b, f->ulpdu.p, f->ulpdu.len);
    } else {
        unsigned op;
        if (f->rtr) {
            op = f->rtr == MPA_RTR_WRITE ? MPA_RDMAP_RDMA_WRITE
                 : f->rtr == MPA_RTR_SEND ? MPA_RDMAP_SEND
                                          : MPA_RDMAP_READ_REQUEST;
        } else {
            op = (unsigned)val(R, &f->opcode, MPA_RDMAP_SEND, &bad, err, errlen) & 15u;
        }
        mpa_ddp_hdr *h = &d.hdr;
        int tagged_def = op == MPA_RDMAP_RDMA_WRITE || op == MPA_RDMAP_READ_RESPONSE;
        h->opcode = (uint8_t)op;
        h->tagged = (uint8_t)val(R, &f->tagged, tagged_def, &bad, err, errlen);
        h->last = (uint8_t)val(R, &f->last, 1, &bad, err, errlen);
        h->dv = (uint8_t)val(R, &f->dv, 1, &bad, err, errlen);
        h->rv = (uint8_t)val(R, &f->rv, 1, &bad, err, errlen);
        h->ddp_rsvd = (uint8_t)val(R, &f->ddp_rsvd, 0, &bad, err, errlen);
        h->rdmap_rsvd = (uint8_t)val(R, &f->rdmap_rsvd, 0, &bad, err, errlen);
        if (h->tagged) {
            h->stag = (uint32_t)val(R, &f->stag, 0, &bad, err, errlen);
            h->to = (uint64_t)val(R, &f->to, 0, &bad, err, errlen);
        } else {
            h->rsvdulp = (uint32_t)val(R, &f->inv_stag, 0, &bad, err, errlen);
            h->qn = (uint32_t)val(R, &f->qn, default_qn(op), &bad, err, errlen);
            unsigned q = h->qn < 4 ? h->qn : 0;
            h->msn = (uint32_t)val(R, &f->msn, R->msn[q], &bad, err, errlen);
            h->mo = (uint32_t)val(R, &f->mo, 0, &bad, err, errlen);
            if (h->last && h->qn < 4)
                R->msn[h->qn] = h->msn + 1;
        }
        switch (op) {
        case MPA_RDMAP_READ_REQUEST:
            d.u.rreq.sink_stag = (uint32_t)val(R, &f->sink_stag, 0, &bad, err, errlen);
            d.u.rreq.sink_to = (uint64_t)val(R, &f->sink_to, 0, &bad, err, errlen);
            d.u.rreq.size = (uint32_t)val(R, &f->size, 0, &bad, err, errlen);
            d.u.rreq.src_stag = (uint32_t)val(R, &f->src_stag, 0, &bad, err, errlen);
            d.u.rreq.src_to = (uint64_t)val(R, &f->src_to, 0, &bad, err, errlen);
            break;
        case MPA_RDMAP_TERMINATE: {
            mpa_term *tm = &d.u.term;
            tm->layer = (uint8_t)val(R, &f->layer, 0, &bad, err, errlen);
            tm->etype = (uint8_t)val(R, &f->etype, 0, &bad, err, errlen);
            tm->code = (uint8_t)val(R, &f->code, 0, &bad, err, errlen);
            tm->m = (uint8_t)val(R, &f->tm, 0, &bad, err, errlen);
            tm->d = (uint8_t)val(R, &f->td, f->term_copy, &bad, err, errlen);
            tm->r = (uint8_t)val(R, &f->tr, 0, &bad, err, errlen);
            tm->seglen = (uint16_t)val(R, &f->seglen, 0, &bad, err, errlen);
            if (f->term_copy) {
                mpa_ddp_hdr *c = &tm->ddp_hdr;
                unsigned cop = (unsigned)val(R, &f->ct_opcode, MPA_RDMAP_SEND, &bad, err, errlen) & 15u;
                c->opcode = (uint8_t)cop;
                c->tagged = (uint8_t)val(R, &f->ct_tagged,
                                         cop == MPA_RDMAP_RDMA_WRITE || cop == MPA_RDMAP_READ_RESPONSE, &bad, err,
                                         errlen);
                c->last = (uint8_t)val(R, &f->ct_last, 1, &bad, err, errlen);
                c->dv = 1;
                c->rv = 1;
                c->stag = (uint32_t)val(R, &f->ct_stag, 0, &bad, err, errlen);
                c->to = (uint64_t)val(R, &f->ct_to, 0, &bad, err, errlen);
                c->qn = (uint32_t)val(R, &f->ct_qn, default_qn(cop), &bad, err, errlen);
                c->msn = (uint32_t)val(R, &f->ct_msn, 1, &bad, err, errlen);
                c->mo = (uint32_t)val(R, &f->ct_mo, 0, &bad, err, errlen);
            }
            break;
        }
        case MPA_RDMAP_IMMEDIATE:
        case MPA_RDMAP_IMMEDIATE_SE:
            d.u.imm.data = (uint64_t)val(R, &f->imm, 0, &bad, err, errlen);
            break;
        default:
            break;
        }
        if (bad)
            return -1;
        if (mpa_ddp_encode(&d, ulpdu, sizeof ulpdu, &ul) != MPA_OK) {
            snprintf(err, errlen, "the DDP/RDMAP headers cannot be encoded");
            return -1;
        }
        if (ul + f->payload.len > 65535) {
            snprintf(err, errlen, "headers and payload (%zu octets) do not fit one ULPDU", ul + f->payload.len);
            return -1;
        }
        if (f->payload.len)
            memcpy(ulpdu + ul, f->payload.p, f->payload.len);
        ul += f->payload.len;
        const char *w = opcode_word(op);
        if (f->rtr)
            sb(&b, "\"rtr\":\"%s\"", mpa_rtr_str((mpa_rtr_kind)f->rtr));
        else if (w)
            sb(&b, "\"rdmap\":\"%s\"", w);
        else
            sb(&b, "\"opcode\":%u", op);
        sb(&b, ",\"tagged\":%u,\"last\":%u", h->tagged, h->last);
        if (h->dv != 1 || h->rv != 1)
            sb(&b, ",\"dv\":%u,\"rv\":%u", h->dv, h->rv);
        if (h->tagged)
            sb(&b, ",\"stag\":%" PRIu32 ",\"to\":%" PRIu64, h->stag, h->to);
        else
            sb(&b, ",\"qn\":%" PRIu32 ",\"msn\":%" PRIu32 ",\"mo\":%" PRIu32, h->qn, h->msn, h->mo);
        if (op == MPA_RDMAP_TERMINATE)
            sb(&b, ",\"terminate\":{\"layer\":%u,\"etype\":%u,\"code\":%u}", d.u.term.layer, d.u.term.etype,
               d.u.term.code);
        if (op == MPA_RDMAP_READ_REQUEST)
            sb(&b, ",\"read_request\":{\"size\":%" PRIu32 "}", d.u.rreq.size);
        if (f->payload.len)
            sb(&b, ",\"payload_length\":%zu", f->payload.len);
    }
    /* framing: as negotiated unless the script says otherwise */
    int neg_markers = R->mode_fpdu[TP_OUT] ? R->markers[TP_OUT] : R->have_dev_frame ? R->dev_m : 0;
    int neg_crc = R->mode_fpdu[TP_OUT] ? R->crc[TP_OUT] : (R->our_c || (R->have_dev_frame && R->dev_c));
    mpa_fpdu_cfg cfg;
    cfg.markers = f->markers == SC_ON ? 1 : f->markers == SC_OFF ? 0 : neg_markers;
    cfg.crc = 1;
    uint64_t base = R->mode_fpdu[TP_OUT] ? R->mode_off[TP_OUT] : R->frame_end_out;
    cfg.mark_base = (uint32_t)base;
    mpa_fpdu_faults fl;
    memset(&fl, 0, sizeof fl);
    fl.len_override = -1;
    if (f->crc == SC_OFF || (f->crc == SC_AUTO && !neg_crc)) {
        /* no CRC generated: the field is zero */
        fl.crc_mode = 1;
        fl.crc_value = 0;
    }
    if (f->crc_value.set) {
        fl.crc_mode = 1;
        fl.crc_value = (uint32_t)val(R, &f->crc_value, 0, &bad, err, errlen);
    }
    if (f->crc_xor.set) {
        fl.crc_mode = 2;
        fl.crc_xor = (uint32_t)val(R, &f->crc_xor, 0, &bad, err, errlen);
    }
    fl.marker_ptr_delta = (int32_t)val(R, &f->marker_ptr_delta, 0, &bad, err, errlen);
    fl.marker_nth = (unsigned)val(R, &f->marker_nth, 0, &bad, err, errlen);
    fl.marker_reserved = (uint16_t)val(R, &f->marker_reserved, 0, &bad, err, errlen);
    fl.pad_byte = (uint8_t)val(R, &f->pad_byte, 0, &bad, err, errlen);
    if (f->ulpdu_length.set)
        fl.len_override = (int)val(R, &f->ulpdu_length, 0, &bad, err, errlen);
    if (bad)
        return -1;
    static uint8_t wire[MPA_FPDU_WIRE_MAX + 16];
    size_t n;
    if (mpa_fpdu_encode(ulpdu, ul, (uint32_t)off, &cfg, &fl, wire, sizeof wire, &n) != MPA_OK) {
        snprintf(err, errlen, "the FPDU cannot be encoded (ULPDU %zu octets)", ul);
        return -1;
    }
    if (pbuf_add(out, wire, n)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    sb(&b, ",\"markers\":%s,\"crc\":", cfg.markers ? "true" : "false");
    if (fl.crc_mode == 1)
        sb(&b, "%s", f->crc_value.set ? "\"wrong\"" : "false");
    else if (fl.crc_mode == 2)
        sb(&b, "\"wrong\"");
    else
        sb(&b, "true");
    if (fl.marker_ptr_delta || fl.marker_reserved)
        sb(&b, ",\"marker\":\"wrong\"");
    if (fl.len_override >= 0)
        sb(&b, ",\"ulpdu_length\":%d", fl.len_override);
    sb(&b, "}");
    return 0;
}

/* ---- matching ---------------------------------------------------------- */

static const char *const kind_word[] = {"", "frame", "fpdu", "terminate", "fin", "rst", "close", "silence"};

static void field_str(sbuf *b, sc_field f, int64_t v)
{
    if (f == F_KEY)
        sb(b, "\"%s\"", key_word((mpa_key_kind)v));
    else if (f == F_OPCODE && opcode_word((unsigned)v))
        sb(b, "\"%s\"", opcode_word((unsigned)v));
    else if (f == F_RTR)
        sb(b, "\"%s\"", mpa_rtr_str((mpa_rtr_kind)v));
    else if (f == F_CRC)
        sb(b, "\"%s\"", v == 1 ? "good" : v == 2 ? "bad" : "not_checked");
    else
        sb(b, "%" PRId64, v);
}

/* An observation in the script's syntax. */
static void obs_str(sbuf *b, const obs *o)
{
    switch ((ob_kind)o->kind) {
    case OB_FIN:
        sb(b, "fin");
        return;
    case OB_RST:
        sb(b, "rst");
        return;
    case OB_DATA:
        sb(b, "octets that are not MPA {\"length\":%" PRIu64 ",\"why\":\"%s\"}", o->data_len, o->why);
        return;
    case OB_FRAME:
    case OB_FPDU: {
        int term = o->kind == OB_FPDU && o->has[F_LAYER];
        sb(b, "%s {", o->kind == OB_FRAME ? "frame" : term ? "terminate" : "fpdu");
        int first = 1;
        int in_enh = 0;
        for (int f = 1; f < F__COUNT; f++) {
            if (!o->has[f])
                continue;
            if (f == F_ENHANCED)
                continue;
            const char *name = sc_field_name((sc_field)f);
            if (f >= F_A && f <= F_ORD && !in_enh) {
                sb(b, "%s\"enhanced\":{", first ? "" : ",");
                in_enh = 1;
                first = 1;
            }
            if (in_enh && !(f >= F_A && f <= F_ORD)) {
                sb(b, "}");
                in_enh = 0;
                first = 0;
            }
            if (in_enh)
                name = f == F_ENH_C ? "c" : f == F_ENH_D ? "d" : name;
            sb(b, "%s\"%s\":", first ? "" : ",", name);
            field_str(b, (sc_field)f, o->f[f]);
            first = 0;
        }
        if (in_enh)
            sb(b, "}");
        if (o->kind == OB_FRAME && o->pd_len) {
            sb(b, ",\"private_data\":");
            hex_or_text(b, o->pd, o->pd_len);
        }
        sb(b, "}");
        return;
    }
    }
}

static void cons_str(sbuf *b, const sc_cons *k)
{
    sc_field f = (sc_field)k->field;
    sb(b, "\"%s\":", sc_field_name(f));
    switch ((sc_cons_kind)k->kind) {
    case SC_C_EQ:
        if (k->is_var)
            sb(b, "\"$%s\"", k->var);
        else
            field_str(b, f, k->a);
        break;
    case SC_C_NOT:
        sb(b, "{\"not\":");
        if (k->is_var)
            sb(b, "\"$%s\"", k->var);
        else
            field_str(b, f, k->a);
        sb(b, "}");
        break;
    case SC_C_RANGE:
        sb(b, "{\"min\":%" PRId64 ",\"max\":%" PRId64 "}", k->a, k->b);
        break;
    case SC_C_SET:
        sb(b, "[");
        for (unsigned i = 0; i < k->nset; i++) {
            if (i)
                sb(b, ",");
            field_str(b, f, k->set[i]);
        }
        sb(b, "]");
        break;
    }
}

static void alt_str(sbuf *b, const sc_alt *a)
{
    sb(b, "%s", kind_word[a->kind]);
    if (a->kind == SE_FRAME || a->kind == SE_FPDU || a->kind == SE_TERMINATE) {
        sb(b, " {");
        for (unsigned i = 0; i < a->ncons; i++) {
            if (i)
                sb(b, ",");
            cons_str(b, &a->cons[i]);
        }
        if (a->pd_set) {
            sb(b, "%s\"private_data\":", a->ncons ? "," : "");
            hex_or_text(b, a->pd.p, a->pd.len);
        }
        sb(b, "}");
    }
}

/* 1 when o satisfies a; else 0 and why (one line) in b. */
static int match_alt(runner *R, const sc_alt *a, const obs *o, sbuf *why)
{
    switch ((sc_exp_kind)a->kind) {
    case SE_FIN:
        return o->kind == OB_FIN;
    case SE_RST:
        return o->kind == OB_RST;
    case SE_CLOSE:
        return o->kind == OB_FIN || o->kind == OB_RST;
    case SE_SILENCE:
        return 0;
    case SE_FRAME:
        if (o->kind != OB_FRAME)
            return 0;
        break;
    case SE_FPDU:
        if (o->kind != OB_FPDU)
            return 0;
        break;
    case SE_TERMINATE:
        if (o->kind != OB_FPDU || !o->has[F_OPCODE] || o->f[F_OPCODE] != MPA_RDMAP_TERMINATE) {
            if (o->kind == OB_FPDU)
                sb(why, "not a TERMINATE");
            return 0;
        }
        break;
    }
    for (unsigned i = 0; i < a->ncons; i++) {
        const sc_cons *k = &a->cons[i];
        sc_field f = (sc_field)k->field;
        const char *name = sc_field_name(f);
        if (!o->has[f]) {
            sb(why, "%s: not present", name);
            return 0;
        }
        int64_t x = o->f[f], want = k->a;
        if ((k->kind == SC_C_EQ || k->kind == SC_C_NOT) && k->is_var && var_get(R, k->var, &want)) {
            sb(why, "%s: $%s has no value", name, k->var);
            return 0;
        }
        int ok = 1;
        switch ((sc_cons_kind)k->kind) {
        case SC_C_EQ:
            ok = x == want;
            break;
        case SC_C_NOT:
            ok = x != want;
            break;
        case SC_C_RANGE:
            ok = x >= k->a && x <= k->b;
            break;
        case SC_C_SET:
            ok = 0;
            for (unsigned s = 0; s < k->nset; s++)
                ok |= x == k->set[s];
            break;
        }
        if (!ok) {
            sb(why, "%s is ", name);
            field_str(why, f, x);
            sb(why, ", expected ");
            switch ((sc_cons_kind)k->kind) {
            case SC_C_EQ:
                field_str(why, f, want);
                if (k->is_var)
                    sb(why, " ($%s)", k->var);
                break;
            case SC_C_NOT:
                sb(why, "anything but ");
                field_str(why, f, want);
                break;
            case SC_C_RANGE:
                sb(why, "%" PRId64 "..%" PRId64, k->a, k->b);
                break;
            case SC_C_SET:
                sb(why, "one of [");
                for (unsigned s = 0; s < k->nset; s++) {
                    if (s)
                        sb(why, ",");
                    field_str(why, f, k->set[s]);
                }
                sb(why, "]");
                break;
            }
            return 0;
        }
    }
    if (a->pd_set && (o->pd_len != a->pd.len || memcmp(o->pd, a->pd.p, a->pd.len))) {
        sb(why, "private_data differs");
        return 0;
    }
    return 1;
}

static void do_captures(runner *R, const sc_alt *a, const obs *o, sbuf *b)
{
    for (unsigned i = 0; i < a->ncapt; i++) {
        sc_field f = (sc_field)a->capt[i].field;
        if (!o->has[f]) {
            sb(b, "; $%s not captured (%s absent)", a->capt[i].var, sc_field_name(f));
            continue;
        }
        var_set(R, a->capt[i].var, o->f[f]);
        sb(b, "; $%s = ", a->capt[i].var);
        field_str(b, f, o->f[f]);
    }
}

/* ---- the steps ----------------------------------------------------------- */

static void label(runner *R, unsigned i, const sc_step *st)
{
    static const char *const verbs[] = {"", "open", "send", "expect", "sleep", "close", "abort"};
    char l[320];
    snprintf(l, sizeof l, "%.60s step %u (%s)%s%.200s", R->s->name, i + 1, verbs[st->verb], st->note[0] ? ": " : "",
             st->note);
    trace_label(R->trace, l);
}

static void listen_hook(void *user)
{
    runner *R = user;
    const char *at = R->t && R->t->local[0] ? R->t->local : NULL;
    const char *port = at ? strrchr(at, ':') : NULL;
    port = port ? port + 1 : R->o->tp.port ? R->o->tp.port : "";
    if (R->o->progress)
        fprintf(R->o->progress, "      listening on %s\n", at ? at : port);
    if (R->o->on_listen)
        R->o->on_listen(R->o->on_listen_user, port);
}

static run_verdict step_open(runner *R, const sc_step *st, run_step *rs)
{
    tp_cfg cfg = R->o->tp;
    cfg.open = st->open_listen ? TP_LISTEN : TP_CONNECT;
    cfg.on_listen = listen_hook;
    cfg.on_listen_user = R;
    char err[400];
    snprintf(rs->what, sizeof rs->what, "open {\"tcp\":\"%s\"} (%s transport)", st->open_listen ? "listen" : "connect",
             R->o->transport);
    R->t = tp_new(R->o->transport, &cfg, R->trace, err, sizeof err);
    if (!R->t) {
        snprintf(rs->detail, sizeof rs->detail, "%s", err);
        return V_ERROR;
    }
    if (st->open_listen)
        snprintf(rs->what, sizeof rs->what, "open {\"tcp\":\"listen\"} on %s:%s", cfg.host ? cfg.host : "*",
                 cfg.port ? cfg.port : "?");
    else
        snprintf(rs->what, sizeof rs->what, "open {\"tcp\":\"connect\"} to %s:%s", cfg.host ? cfg.host : "?",
                 cfg.port ? cfg.port : "?");
    int64_t deadline = tp_now_ms() + (int64_t)R->s->timeout_ms * 3;
    if (R->t->ops->open(R->t, deadline, err, sizeof err)) {
        snprintf(rs->detail, sizeof rs->detail, "%s", err);
        return V_ERROR;
    }
    R->open = 1;
    snprintf(R->r->local, sizeof R->r->local, "%s", R->t->local);
    snprintf(R->r->remote, sizeof R->r->remote, "%s", R->t->remote);
    snprintf(rs->detail, sizeof rs->detail, "%s <-> %s (device)", R->t->local, R->t->remote);
    return V_DONE;
}

static run_verdict step_send(runner *R, const sc_step *st, run_step *rs)
{
    const sc_send *s = &st->send;
    char err[400] = "";
    pbuf out = {0};
    size_t cuts[SC_MAX_SPLIT + 2];
    unsigned ncut = 0;
    char desc[400] = "";
    if (R->fin_sent || R->reset_sent || !R->open) {
        snprintf(rs->what, sizeof rs->what, "send");
        snprintf(rs->detail, sizeof rs->detail, "the connection is %s: nothing can be sent",
                 R->reset_sent ? "reset" : R->fin_sent ? "closed on our side (FIN sent)" : "not open");
        return V_ERROR;
    }
    /* what arrived before this send was sent before the device saw it */
    pump(R, tp_now_ms(), 0, err, sizeof err);
    switch ((sc_send_kind)s->kind) {
    case SS_FRAME:
        if (build_frame(R, &s->frame, &out, desc, sizeof desc, err, sizeof err))
            goto bad;
        break;
    case SS_FPDU:
        for (uint32_t k = 0; k < s->count; k++) {
            size_t before = out.len;
            char d1[400];
            if (build_fpdu(R, &s->fpdu, R->out_off + out.len, &out, d1, sizeof d1, err, sizeof err))
                goto bad;
            if (k == 0)
                snprintf(desc, sizeof desc, "%s", d1);
            if (!s->nsplit && !s->chunk && k + 1 < s->count && ncut < SC_MAX_SPLIT)
                cuts[ncut++] = out.len; /* one FPDU per segment */
            (void)before;
            if (out.len > (64u << 20)) {
                snprintf(err, sizeof err, "more than 64 MiB in one send step");
                goto bad;
            }
        }
        if (s->count > 1) {
            size_t l = strlen(desc);
            snprintf(desc + l, sizeof desc - l, " x%" PRIu32, s->count);
        }
        break;
    case SS_RAW:
        if (pbuf_add(&out, s->raw.p, s->raw.len)) {
            snprintf(err, sizeof err, "out of memory");
            goto bad;
        }
        {
            sbuf b = {desc, sizeof desc, 0};
            sb(&b, "raw ");
            hex_or_text(&b, s->raw.p, s->raw.len);
        }
        break;
    }
    /* segmentation */
    if (s->nsplit) {
        ncut = 0;
        for (unsigned i = 0; i < s->nsplit; i++) {
            if (s->split[i] >= out.len) {
                snprintf(err, sizeof err, "split offset %" PRIu32 " is not inside the %zu octets sent", s->split[i],
                         out.len);
                goto bad;
            }
            cuts[ncut++] = s->split[i];
        }
    }
    size_t nseg = 0;
    {
        size_t at = 0, ci = 0;
        uint32_t chunk = s->chunk;
        tp_delivery dl = {s->reorder, s->duplicate, s->reseg};
        const tp_delivery *dlp = (s->reorder || s->duplicate || s->reseg) ? &dl : NULL;
        /* FPDU count > 1 without split: cuts[] holds FPDU ends; with
         * many FPDUs beyond SC_MAX_SPLIT the rest go together. */
        while (at < out.len) {
            size_t end;
            if (chunk)
                end = at + chunk < out.len ? at + chunk : out.len;
            else if (ci < ncut)
                end = cuts[ci++];
            else
                end = out.len;
            if (end <= at)
                continue;
            if (nseg && s->delay_ms) {
                if (pump(R, tp_now_ms() + s->delay_ms, 0, err, sizeof err))
                    goto bad;
            }
            feed(R, TP_OUT, out.p + at, end - at);
            if (R->t->ops->send(R->t, out.p + at, end - at, dlp, tp_now_ms() + (int64_t)R->s->timeout_ms * 3, err,
                                sizeof err))
                goto bad;
            R->r->sent_octets += end - at;
            R->out_off += end - at;
            at = end;
            nseg++;
            if (run_interrupted) {
                snprintf(err, sizeof err, "interrupted");
                goto bad;
            }
        }
    }
    if (s->kind == SS_FRAME)
        R->frame_end_out = R->out_off;
    snprintf(rs->what, sizeof rs->what, "send %.390s", desc);
    snprintf(rs->detail, sizeof rs->detail, "%zu octets in %zu segment%s%s", out.len, nseg, nseg == 1 ? "" : "s",
             s->delay_ms && nseg > 1 ? " (delayed)" : "");
    free(out.p);
    return V_DONE;
bad:
    if (!rs->what[0])
        snprintf(rs->what, sizeof rs->what, "send %.390s", desc[0] ? desc : "");
    snprintf(rs->detail, sizeof rs->detail, "%s", err);
    free(out.p);
    return V_ERROR;
}

/* Error-level findings in the device's octets [o->off, o->end) (none
 * for FIN and RST): appended to the detail; 1 if any. */
static int bad_octets(runner *R, const obs *o, sbuf *d)
{
    const run_result *r = R->r;
    unsigned n = 0;
    for (unsigned i = 0; i < r->nfindings; i++) {
        const run_finding *x = &r->findings[i];
        if (!x->from_device || !x->error || x->expected)
            continue;
        if (x->off < o->off || x->off >= o->end)
            continue;
        const mpa_rule *ru = mpa_rule_get(x->id);
        sb(d, "%s %s: %s", n ? ";" : ", but libmpa found", ru ? ru->id : "?", x->msg);
        n++;
    }
    return n > 0;
}

static run_verdict step_expect(runner *R, const sc_step *st, run_step *rs)
{
    const sc_expect *e = &st->expect;
    sbuf w = {rs->what, sizeof rs->what, 0};
    sbuf d = {rs->detail, sizeof rs->detail, 0};
    char err[400] = "";
    rs->alt = -1;
    sb(&w, "expect ");
    if (e->any_of) {
        sb(&w, "any_of [");
        for (unsigned a = 0; a < e->nalt; a++) {
            if (a)
                sb(&w, ", ");
            alt_str(&w, &e->alt[a]);
        }
        sb(&w, "]");
    } else {
        alt_str(&w, &e->alt[0]);
    }
    int silence = e->alt[0].kind == SE_SILENCE;
    sb(&w, silence ? " for %" PRIu32 " ms" : " within %" PRIu32 " ms", e->within_ms);
    double t_start = rel(R);
    int64_t deadline = tp_now_ms() + e->within_ms;
    unsigned skipped = 0;
    for (;;) {
        obs *o = q_front(R);
        if (o) {
            if (silence) {
                sb(&d, "got ");
                obs_str(&d, o);
                sb(&d, " after %.1f ms", o->t_ms - t_start > 0 ? o->t_ms - t_start : 0.0);
                q_pop(R);
                return V_FAIL;
            }
            char whybuf[4][300];
            int hit = -1;
            for (unsigned a = 0; a < e->nalt && hit < 0; a++) {
                sbuf why = {whybuf[a % 4], sizeof whybuf[0], 0};
                whybuf[a % 4][0] = 0;
                if (match_alt(R, &e->alt[a], o, &why))
                    hit = (int)a;
            }
            if (hit >= 0) {
                rs->alt = hit;
                sb(&d, "got ");
                obs_str(&d, o);
                double after = o->t_ms - t_start;
                sb(&d, after > 0 ? " after %.1f ms" : " (already received)", after);
                if (e->any_of)
                    sb(&d, " [alternative %d]", hit + 1);
                if (skipped)
                    sb(&d, " (%u FPDU%s skipped)", skipped, skipped == 1 ? "" : "s");
                do_captures(R, &e->alt[hit], o, &d);
                q_pop(R);
                /* What matched is still judged by libmpa: with
                 * fail_on_findings, an error-level finding in its
                 * octets fails the step. */
                if (R->s->fail_on_findings && bad_octets(R, o, &d))
                    return V_FAIL;
                return V_PASS;
            }
            if (e->skip_fpdus && o->kind == OB_FPDU) {
                skipped++;
                q_pop(R);
                continue;
            }
            sb(&d, "got ");
            obs_str(&d, o);
            double after = o->t_ms - t_start;
            sb(&d, after > 0 ? " after %.1f ms" : " (already received)", after);
            if (e->nalt == 1 && whybuf[0][0])
                sb(&d, ": %s", whybuf[0]);
            q_pop(R);
            return V_FAIL;
        }
        int64_t now = tp_now_ms();
        /* nothing more can come once the device closed or we reset */
        int over = !R->open || R->dev_rst || R->dev_fin || R->reset_sent;
        if (silence && (now >= deadline || over)) {
            if (now >= deadline)
                sb(&d, "nothing received in %" PRIu32 " ms", e->within_ms);
            else
                sb(&d, "nothing received (the connection is over)");
            return V_PASS;
        }
        if (over) {
            sb(&d, "got nothing: the connection was already over (%s)",
               R->dev_rst ? "the device reset it" : R->dev_fin ? "the device closed it" : "we reset it");
            return V_FAIL;
        }
        if (now >= deadline) {
            sb(&d, "got nothing within %" PRIu32 " ms", e->within_ms);
            size_t held = R->pend[TP_IN].len;
            if (mpa_stream_waiting(R->eng, TP_IN) || held)
                sb(&d, " (%zu octets held, not yet decodable)", held);
            return V_FAIL;
        }
        if (pump(R, deadline, 1, err, sizeof err)) {
            sb(&d, "%s", err);
            return V_ERROR;
        }
    }
}

static run_verdict step_sleep(runner *R, const sc_step *st, run_step *rs)
{
    char err[400] = "";
    snprintf(rs->what, sizeof rs->what, "sleep %" PRIu32 " ms", st->ms);
    int64_t until = tp_now_ms() + st->ms;
    while (tp_now_ms() < until) {
        if (R->open && !R->dev_rst && !R->dev_fin) {
            if (pump(R, until, 0, err, sizeof err)) {
                snprintf(rs->detail, sizeof rs->detail, "%s", err);
                return V_ERROR;
            }
        } else {
            struct timespec ts = {0, 5 * 1000000};
            nanosleep(&ts, NULL);
        }
        if (run_interrupted) {
            snprintf(rs->detail, sizeof rs->detail, "interrupted");
            return V_ERROR;
        }
    }
    return V_DONE;
}

static run_verdict step_close(runner *R, int abort_it, run_step *rs)
{
    char err[400] = "";
    snprintf(rs->what, sizeof rs->what, abort_it ? "abort (RST)" : "close (FIN)");
    if (!R->open || R->reset_sent) {
        snprintf(rs->detail, sizeof rs->detail, "the connection is not open");
        return V_ERROR;
    }
    pump(R, tp_now_ms(), 0, err, sizeof err);
    int rc = abort_it ? R->t->ops->abort(R->t, err, sizeof err) : R->t->ops->fin(R->t, err, sizeof err);
    if (rc) {
        snprintf(rs->detail, sizeof rs->detail, "%s", err);
        return V_ERROR;
    }
    if (abort_it) {
        R->reset_sent = 1;
        mpa_stream_end(R->eng, TP_OUT, MPA_END_RST);
    } else {
        R->fin_sent = 1;
        mpa_stream_end(R->eng, TP_OUT, MPA_END_FIN);
    }
    drain(R);
    return V_DONE;
}

/* ---- the run -------------------------------------------------------------- */

run_verdict run_scenario(const scenario *s, const run_opts *o, run_result *r)
{
    memset(r, 0, sizeof *r);
    r->decided_at = -1;
    r->verdict = V_PASS;
    runner *R = calloc(1, sizeof *R);
    r->steps = calloc(s->nsteps ? s->nsteps : 1, sizeof *r->steps);
    if (!R || !r->steps) {
        free(R);
        r->verdict = V_ERROR;
        snprintf(r->error, sizeof r->error, "out of memory");
        return r->verdict;
    }
    r->nsteps = s->nsteps;
    R->s = s;
    R->o = o;
    R->r = r;
    R->q = calloc(OBQ_MAX, sizeof *R->q);
    R->eng = calloc(1, mpa_stream_size());
    if (!R->q || !R->eng) {
        r->verdict = V_ERROR;
        snprintf(r->error, sizeof r->error, "out of memory");
        goto done;
    }
    for (int q = 0; q < 4; q++)
        R->msn[q] = 1;
    mpa_stream_init(R->eng, NULL, on_event, R);
    for (unsigned i = 0; i < s->nvars; i++)
        var_set(R, s->vars[i].name, s->vars[i].v);
    if (o->trace_path) {
        char err[400];
        R->trace = trace_open(o->trace_path, err, sizeof err);
        if (!R->trace) {
            r->verdict = V_ERROR;
            snprintf(r->error, sizeof r->error, "trace: %.380s", err);
            goto done;
        }
        snprintf(r->trace, sizeof r->trace, "%s", o->trace_path);
    }
    R->t0 = now_ms();
    for (unsigned i = 0; i < s->nsteps; i++) {
        const sc_step *st = &s->steps[i];
        run_step *rs = &r->steps[i];
        rs->t_ms = rel(R);
        label(R, i, st);
        run_verdict v = V_ERROR;
        if (run_interrupted) {
            snprintf(rs->what, sizeof rs->what, "(interrupted)");
            snprintf(rs->detail, sizeof rs->detail, "interrupted by a signal");
        } else {
            switch ((sc_verb)st->verb) {
            case SV_OPEN: v = step_open(R, st, rs); break;
            case SV_SEND: v = step_send(R, st, rs); break;
            case SV_EXPECT: v = step_expect(R, st, rs); break;
            case SV_SLEEP: v = step_sleep(R, st, rs); break;
            case SV_CLOSE: v = step_close(R, 0, rs); break;
            case SV_ABORT: v = step_close(R, 1, rs); break;
            }
        }
        rs->verdict = (uint8_t)v;
        rs->took_ms = rel(R) - rs->t_ms;
        if (o->progress) {
            fprintf(o->progress, "  %3u %-6s %s\n", i + 1, run_verdict_str(v), rs->what);
            if (rs->detail[0])
                fprintf(o->progress, "             %s\n", rs->detail);
        }
        if (v == V_FAIL || v == V_ERROR) {
            r->verdict = v;
            r->decided_at = (int)i;
            if (v == V_ERROR)
                snprintf(r->error, sizeof r->error, "step %u: %.300s", i + 1, rs->detail);
            break;
        }
    }
    /* Wind down: close our side, give the device a moment to close its,
     * so the trace ends cleanly; never more than a second. */
    trace_label(R->trace, NULL);
    if (R->open && R->t) {
        char err[400];
        if (!R->fin_sent && !R->reset_sent && !R->dev_rst) {
            if (r->verdict == V_PASS) {
                if (R->t->ops->fin(R->t, err, sizeof err) == 0) {
                    R->fin_sent = 1;
                    mpa_stream_end(R->eng, TP_OUT, MPA_END_FIN);
                }
            } else if (R->t->ops->abort(R->t, err, sizeof err) == 0) {
                R->reset_sent = 1;
                mpa_stream_end(R->eng, TP_OUT, MPA_END_RST);
            }
        }
        if (!R->reset_sent) {
            int64_t until = tp_now_ms() + 1000;
            while (!R->dev_fin && !R->dev_rst && tp_now_ms() < until && !run_interrupted)
                if (pump(R, until, 0, err, sizeof err))
                    break;
        }
    }
    drain(R);
    mpa_stream_finish(R->eng);
    r->unexamined = R->qlen + R->qdropped;
    if (R->qlen) {
        sbuf b = {r->unexamined_first, sizeof r->unexamined_first, 0};
        obs_str(&b, q_front(R));
    }
    if (s->fail_on_findings && r->device_errors && r->verdict == V_PASS) {
        r->verdict = V_FAIL;
        snprintf(r->error, sizeof r->error, "%u error-level finding%s in the device's octets (fail_on_findings)",
                 r->device_errors, r->device_errors == 1 ? "" : "s");
    }
done:
    r->total_ms = R->t0 ? rel(R) : 0;
    if (R->t)
        R->t->ops->destroy(R->t);
    if (R->trace) {
        char err[400];
        r->trace_packets = trace_packets(R->trace);
        if (trace_close(R->trace, err, sizeof err) && r->verdict != V_ERROR) {
            r->verdict = V_ERROR;
            snprintf(r->error, sizeof r->error, "trace: %.380s", err);
        }
    }
    free(R->pend[0].p);
    free(R->pend[1].p);
    free(R->q);
    free(R->eng);
    run_verdict v = r->verdict;
    free(R);
    return v;
}

void run_result_free(run_result *r)
{
    free(r->steps);
    r->steps = NULL;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-inject's runner (see run.h): the loop over a scenario's steps and
 * the actions among them (open, send, sleep, close, abort).  What the
 * device sends is observed in observe.c, what we send is built in
 * build.c, expect steps are judged in match.c (runner.h has the map).
 */
#include "run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runner.h"
#include "tp_pick.h"

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

/* The octets of a send step into out, described in desc (dl octets);
 * with several FPDUs and no segmentation asked for, cuts[] gets the end
 * of each but the last (one FPDU per segment).  0, or -1 + err. */
static int send_octets(runner *R, const sc_send *s, pbuf *out, size_t *cuts, unsigned *ncut, char *desc, size_t dl,
                       char *err, size_t errlen)
{
    switch ((sc_send_kind)s->kind) {
    case SS_FRAME:
        return rn_build_frame(R, &s->frame, out, desc, dl, err, errlen);
    case SS_FPDU:
        for (uint32_t k = 0; k < s->count; k++) {
            char d1[400];
            if (rn_build_fpdu(R, &s->fpdu, R->out_off + out->len, out, d1, sizeof d1, err, errlen))
                return -1;
            if (k == 0)
                snprintf(desc, dl, "%s", d1);
            if (!s->nsplit && !s->chunk && k + 1 < s->count && *ncut < SC_MAX_SPLIT)
                cuts[(*ncut)++] = out->len; /* one FPDU per segment */
            if (out->len > (64u << 20)) {
                snprintf(err, errlen, "more than 64 MiB in one send step");
                return -1;
            }
        }
        if (s->count > 1) {
            size_t l = strlen(desc);
            snprintf(desc + l, dl - l, " x%" PRIu32, s->count);
        }
        return 0;
    case SS_RAW:
        if (rn_pbuf_add(out, s->raw.p, s->raw.len)) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        {
            sbuf b = {desc, dl, 0};
            rn_sb(&b, "raw ");
            rn_hex_or_text(&b, s->raw.p, s->raw.len);
        }
        return 0;
    }
    return 0;
}

/* The script's split offsets, which must lie inside the len octets,
 * replace the FPDU ends in cuts[].  0, or -1 + err. */
static int split_cuts(const sc_send *s, size_t len, size_t *cuts, unsigned *ncut, char *err, size_t errlen)
{
    if (!s->nsplit)
        return 0;
    *ncut = 0;
    for (unsigned i = 0; i < s->nsplit; i++) {
        if (s->split[i] >= len) {
            snprintf(err, errlen, "split offset %" PRIu32 " is not inside the %zu octets sent", s->split[i], len);
            return -1;
        }
        cuts[(*ncut)++] = s->split[i];
    }
    return 0;
}

/* The octets cut into segments (every chunk octets, else at cuts[],
 * else whole), each fed to the engine and then sent, delay_ms apart
 * (waiting for the device meanwhile); how many in *nseg.  0, or -1 +
 * err. */
static int send_segments(runner *R, const sc_send *s, const pbuf *out, const size_t *cuts, unsigned ncut,
                         size_t *nseg, char *err, size_t errlen)
{
    size_t at = 0, ci = 0;
    uint32_t chunk = s->chunk;
    tp_delivery dl = {s->reorder, s->duplicate, s->reseg};
    const tp_delivery *dlp = (s->reorder || s->duplicate || s->reseg) ? &dl : NULL;
    /* FPDU count > 1 without split: cuts[] holds FPDU ends; with
     * many FPDUs beyond SC_MAX_SPLIT the rest go together. */
    while (at < out->len) {
        size_t end;
        if (chunk)
            end = at + chunk < out->len ? at + chunk : out->len;
        else if (ci < ncut)
            end = cuts[ci++];
        else
            end = out->len;
        if (end <= at)
            continue;
        if (*nseg && s->delay_ms) {
            if (rn_pump(R, tp_now_ms() + s->delay_ms, 0, err, errlen))
                return -1;
        }
        rn_feed(R, TP_OUT, out->p + at, end - at);
        if (R->t->ops->send(R->t, out->p + at, end - at, dlp, tp_now_ms() + (int64_t)R->s->timeout_ms * 3, err,
                            errlen))
            return -1;
        R->r->sent_octets += end - at;
        R->out_off += end - at;
        at = end;
        (*nseg)++;
        if (run_interrupted) {
            snprintf(err, errlen, "interrupted");
            return -1;
        }
    }
    return 0;
}

static run_verdict step_send(runner *R, const sc_step *st, run_step *rs)
{
    const sc_send *s = &st->send;
    char err[400] = "";
    pbuf out = {0};
    size_t cuts[SC_MAX_SPLIT + 2];
    unsigned ncut = 0;
    char desc[400] = "";
    size_t nseg = 0;
    if (R->fin_sent || R->reset_sent || !R->open) {
        snprintf(rs->what, sizeof rs->what, "send");
        snprintf(rs->detail, sizeof rs->detail, "the connection is %s: nothing can be sent",
                 R->reset_sent ? "reset" : R->fin_sent ? "closed on our side (FIN sent)" : "not open");
        return V_ERROR;
    }
    /* what arrived before this send was sent before the device saw it */
    rn_pump(R, tp_now_ms(), 0, err, sizeof err);
    /* octets held by the step before start this step's first segment */
    size_t held = R->held.len;
    out = R->held;
    memset(&R->held, 0, sizeof R->held);
    if (send_octets(R, s, &out, cuts, &ncut, desc, sizeof desc, err, sizeof err) ||
        (!s->hold && split_cuts(s, out.len, cuts, &ncut, err, sizeof err)) ||
        (!s->hold && send_segments(R, s, &out, cuts, ncut, &nseg, err, sizeof err))) {
        if (!rs->what[0])
            snprintf(rs->what, sizeof rs->what, "send %.390s", desc[0] ? desc : "");
        snprintf(rs->detail, sizeof rs->detail, "%s", err);
        free(out.p);
        return V_ERROR;
    }
    if (s->hold) {
        R->held = out;
        snprintf(rs->what, sizeof rs->what, "send %.390s", desc);
        snprintf(rs->detail, sizeof rs->detail, "%zu octets held for the next send step", out.len);
        return V_DONE;
    }
    if (s->kind == SS_FRAME)
        R->frame_end_out = R->out_off;
    snprintf(rs->what, sizeof rs->what, "send %.390s", desc);
    snprintf(rs->detail, sizeof rs->detail, "%zu octets in %zu segment%s%s", out.len, nseg, nseg == 1 ? "" : "s",
             s->delay_ms && nseg > 1 ? " (delayed)" : "");
    if (held) {
        size_t l = strlen(rs->detail);
        snprintf(rs->detail + l, sizeof rs->detail - l, ", the first %zu held from the step before", held);
    }
    free(out.p);
    return V_DONE;
}

static run_verdict step_sleep(runner *R, const sc_step *st, run_step *rs)
{
    char err[400] = "";
    snprintf(rs->what, sizeof rs->what, "sleep %" PRIu32 " ms", st->ms);
    int64_t until = tp_now_ms() + st->ms;
    while (tp_now_ms() < until) {
        if (R->open && !R->dev_rst && !R->dev_fin) {
            if (rn_pump(R, until, 0, err, sizeof err)) {
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
    rn_pump(R, tp_now_ms(), 0, err, sizeof err);
    int rc = abort_it ? R->t->ops->abort(R->t, err, sizeof err) : R->t->ops->fin(R->t, err, sizeof err);
    if (rc) {
        snprintf(rs->detail, sizeof rs->detail, "%s", err);
        return V_ERROR;
    }
    if (abort_it) {
        R->reset_sent = 1;
        rn_end(R, TP_OUT, MPA_END_RST);
    } else {
        R->fin_sent = 1;
        rn_end(R, TP_OUT, MPA_END_FIN);
    }
    return V_DONE;
}

/* ---- the run -------------------------------------------------------------- */

/* Everything a run needs before its first step: the observation queue,
 * the engine, the variables, the trace.  0, or -1 with r->error set. */
static int run_setup(runner *R)
{
    const scenario *s = R->s;
    run_result *r = R->r;
    R->q = calloc(OBQ_MAX, sizeof *R->q);
    R->eng = calloc(1, mpa_stream_size());
    mpa_feeder_limits lim = {PEND_MAX, NULL, 0};
    R->feed = mpa_feeder_new(&lim);
    if (!R->q || !R->eng || !R->feed) {
        r->verdict = V_ERROR;
        snprintf(r->error, sizeof r->error, "out of memory");
        return -1;
    }
    for (int q = 0; q < 4; q++)
        R->msn[q] = 1;
    mpa_stream_init(R->eng, NULL, rn_on_event, R);
    mpa_feeder_bind(R->feed, R->eng);
    for (unsigned i = 0; i < s->nvars; i++)
        rn_var_set(R, s->vars[i].name, s->vars[i].v);
    if (R->o->trace_path) {
        char err[400];
        R->trace = trace_open(R->o->trace_path, err, sizeof err);
        if (!R->trace) {
            r->verdict = V_ERROR;
            snprintf(r->error, sizeof r->error, "trace: %.380s", err);
            return -1;
        }
        snprintf(r->trace, sizeof r->trace, "%s", R->o->trace_path);
    }
    return 0;
}

/* The steps in order, each one's line on the progress output, until
 * one fails or cannot be carried out. */
static void run_steps(runner *R)
{
    const scenario *s = R->s;
    const run_opts *o = R->o;
    run_result *r = R->r;
    for (unsigned i = 0; i < s->nsteps; i++) {
        const sc_step *st = &s->steps[i];
        run_step *rs = &r->steps[i];
        rs->t_ms = rn_rel(R);
        label(R, i, st);
        run_verdict v = V_ERROR;
        if (run_interrupted) {
            snprintf(rs->what, sizeof rs->what, "(interrupted)");
            snprintf(rs->detail, sizeof rs->detail, "interrupted by a signal");
        } else {
            switch ((sc_verb)st->verb) {
            case SV_OPEN: v = step_open(R, st, rs); break;
            case SV_SEND: v = step_send(R, st, rs); break;
            case SV_EXPECT: v = rn_step_expect(R, st, rs); break;
            case SV_SLEEP: v = step_sleep(R, st, rs); break;
            case SV_CLOSE: v = step_close(R, 0, rs); break;
            case SV_ABORT: v = step_close(R, 1, rs); break;
            }
        }
        rs->verdict = (uint8_t)v;
        rs->took_ms = rn_rel(R) - rs->t_ms;
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
}

/* Wind down: close our side, give the device a moment to close its,
 * so the trace ends cleanly; never more than a second. */
static void wind_down(runner *R)
{
    trace_label(R->trace, NULL);
    if (R->open && R->t) {
        char err[400];
        if (!R->fin_sent && !R->reset_sent && !R->dev_rst) {
            if (R->r->verdict == V_PASS) {
                if (R->t->ops->fin(R->t, err, sizeof err) == 0) {
                    R->fin_sent = 1;
                    rn_end(R, TP_OUT, MPA_END_FIN);
                }
            } else if (R->t->ops->abort(R->t, err, sizeof err) == 0) {
                R->reset_sent = 1;
                rn_end(R, TP_OUT, MPA_END_RST);
            }
        }
        if (!R->reset_sent) {
            int64_t until = tp_now_ms() + 1000;
            while (!R->dev_fin && !R->dev_rst && tp_now_ms() < until && !run_interrupted)
                if (rn_pump(R, until, 0, err, sizeof err))
                    break;
        }
    }
    mpa_feeder_finish(R->feed);
}

/* The last word on a run that got through its steps: what the device
 * sent that no step looked at, and fail_on_findings over all of it. */
static void run_judge(runner *R)
{
    run_result *r = R->r;
    r->unexamined = R->qlen + R->qdropped;
    if (R->qlen) {
        sbuf b = {r->unexamined_first, sizeof r->unexamined_first, 0};
        rn_obs_str(&b, rn_q_front(R));
    }
    if (R->s->fail_on_findings && r->device_errors && r->verdict == V_PASS) {
        r->verdict = V_FAIL;
        snprintf(r->error, sizeof r->error, "%u error-level finding%s in the device's octets (fail_on_findings)",
                 r->device_errors, r->device_errors == 1 ? "" : "s");
    }
}

/* Release the transport and the trace (a trace that cannot be written
 * makes the run an error), then the runner itself. */
static run_verdict run_end(runner *R)
{
    run_result *r = R->r;
    r->total_ms = R->t0 ? rn_rel(R) : 0;
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
    mpa_feeder_free(R->feed);
    free(R->held.p);
    free(R->q);
    free(R->eng);
    run_verdict v = r->verdict;
    free(R);
    return v;
}

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
    if (run_setup(R) == 0) {
        R->t0 = rn_now_ms();
        run_steps(R);
        wind_down(R);
        run_judge(R);
    }
    return run_end(R);
}

void run_result_free(run_result *r)
{
    free(r->steps);
    r->steps = NULL;
}

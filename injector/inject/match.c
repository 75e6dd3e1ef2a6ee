/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Expect steps (see runner.h): the observations the device caused, in
 * order, against the step's alternatives.  The first observation either
 * matches one of them (pass; its captures set variables) or does not
 * (fail, with both sides printed in the script's own syntax); with
 * skip_fpdus, FPDUs that do not match are passed over.  What matched is
 * still judged by libmpa: with fail_on_findings, an error-level finding
 * in its octets fails the step.  Nothing is waited for without a
 * deadline.
 */
#include <inttypes.h>
#include <string.h>

#include "runner.h"

/* 1 when the FPDU o carries exactly a's payload octets; else 0 and why. */
static int payload_matches(const sc_alt *a, const obs *o, sbuf *why)
{
    size_t want = a->payload.len;
    if (!o->has[F_PAYLOAD_LEN]) {
        rn_sb(why, "payload: not present (the FPDU is not complete)");
        return 0;
    }
    if ((uint64_t)o->f[F_PAYLOAD_LEN] != want) {
        rn_sb(why, "payload is %" PRId64 " octets, want %zu", o->f[F_PAYLOAD_LEN], want);
        return 0;
    }
    if (o->pl_len < want) {
        rn_sb(why, "payload: only %zu of its %zu octets seen", o->pl_len, want);
        return 0;
    }
    for (size_t i = 0; i < want; i++)
        if (o->pl[i] != a->payload.p[i]) {
            rn_sb(why, "payload differs at octet %zu: got %02x, want %02x", i, o->pl[i], a->payload.p[i]);
            return 0;
        }
    return 1;
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
                rn_sb(why, "not a TERMINATE");
            return 0;
        }
        break;
    }
    for (unsigned i = 0; i < a->ncons; i++) {
        const sc_cons *k = &a->cons[i];
        sc_field f = (sc_field)k->field;
        const char *name = sc_field_name(f);
        if (!o->has[f]) {
            rn_sb(why, "%s: not present", name);
            return 0;
        }
        int64_t x = o->f[f], want = k->a;
        if ((k->kind == SC_C_EQ || k->kind == SC_C_NOT) && k->is_var && rn_var_get(R, k->var, &want)) {
            rn_sb(why, "%s: $%s has no value", name, k->var);
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
            rn_sb(why, "%s is ", name);
            rn_field_str(why, f, x);
            rn_sb(why, ", expected ");
            switch ((sc_cons_kind)k->kind) {
            case SC_C_EQ:
                rn_field_str(why, f, want);
                if (k->is_var)
                    rn_sb(why, " ($%s)", k->var);
                break;
            case SC_C_NOT:
                rn_sb(why, "anything but ");
                rn_field_str(why, f, want);
                break;
            case SC_C_RANGE:
                rn_sb(why, "%" PRId64 "..%" PRId64, k->a, k->b);
                break;
            case SC_C_SET:
                rn_sb(why, "one of [");
                for (unsigned s = 0; s < k->nset; s++) {
                    if (s)
                        rn_sb(why, ",");
                    rn_field_str(why, f, k->set[s]);
                }
                rn_sb(why, "]");
                break;
            }
            return 0;
        }
    }
    if (a->pd_set && (o->pd_len != a->pd.len || memcmp(o->pd, a->pd.p, a->pd.len))) {
        rn_sb(why, "private_data differs");
        return 0;
    }
    if (a->payload_set && !payload_matches(a, o, why))
        return 0;
    return 1;
}

static void do_captures(runner *R, const sc_alt *a, const obs *o, sbuf *b)
{
    for (unsigned i = 0; i < a->ncapt; i++) {
        sc_field f = (sc_field)a->capt[i].field;
        if (!o->has[f]) {
            rn_sb(b, "; $%s not captured (%s absent)", a->capt[i].var, sc_field_name(f));
            continue;
        }
        rn_var_set(R, a->capt[i].var, o->f[f]);
        rn_sb(b, "; $%s = ", a->capt[i].var);
        rn_field_str(b, f, o->f[f]);
    }
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
        rn_sb(d, "%s %s: %s", n ? ";" : ", but libmpa found", ru ? ru->id : "?", x->msg);
        n++;
    }
    return n > 0;
}

run_verdict rn_step_expect(runner *R, const sc_step *st, run_step *rs)
{
    const sc_expect *e = &st->expect;
    sbuf w = {rs->what, sizeof rs->what, 0};
    sbuf d = {rs->detail, sizeof rs->detail, 0};
    char err[400] = "";
    rs->alt = -1;
    rn_sb(&w, "expect ");
    if (e->any_of) {
        rn_sb(&w, "any_of [");
        for (unsigned a = 0; a < e->nalt; a++) {
            if (a)
                rn_sb(&w, ", ");
            rn_alt_str(&w, &e->alt[a]);
        }
        rn_sb(&w, "]");
    } else {
        rn_alt_str(&w, &e->alt[0]);
    }
    int silence = e->alt[0].kind == SE_SILENCE;
    rn_sb(&w, silence ? " for %" PRIu32 " ms" : " within %" PRIu32 " ms", e->within_ms);
    double t_start = rn_rel(R);
    int64_t deadline = tp_now_ms() + e->within_ms;
    unsigned skipped = 0;
    for (;;) {
        obs *o = rn_q_front(R);
        if (o) {
            if (silence) {
                rn_sb(&d, "got ");
                rn_obs_str(&d, o);
                rn_sb(&d, " after %.1f ms", o->t_ms - t_start > 0 ? o->t_ms - t_start : 0.0);
                rn_q_pop(R);
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
                rn_sb(&d, "got ");
                rn_obs_str(&d, o);
                double after = o->t_ms - t_start;
                rn_sb(&d, after > 0 ? " after %.1f ms" : " (already received)", after);
                if (e->any_of)
                    rn_sb(&d, " [alternative %d]", hit + 1);
                if (skipped)
                    rn_sb(&d, " (%u FPDU%s skipped)", skipped, skipped == 1 ? "" : "s");
                do_captures(R, &e->alt[hit], o, &d);
                rn_q_pop(R);
                /* What matched is still judged by libmpa: with
                 * fail_on_findings, an error-level finding in its
                 * octets fails the step. */
                if (R->s->fail_on_findings && bad_octets(R, o, &d))
                    return V_FAIL;
                return V_PASS;
            }
            if (e->skip_fpdus && o->kind == OB_FPDU) {
                skipped++;
                rn_q_pop(R);
                continue;
            }
            rn_sb(&d, "got ");
            rn_obs_str(&d, o);
            double after = o->t_ms - t_start;
            rn_sb(&d, after > 0 ? " after %.1f ms" : " (already received)", after);
            if (e->nalt == 1 && whybuf[0][0])
                rn_sb(&d, ": %s", whybuf[0]);
            rn_q_pop(R);
            return V_FAIL;
        }
        int64_t now = tp_now_ms();
        /* nothing more can come once the device closed or we reset */
        int over = !R->open || R->dev_rst || R->dev_fin || R->reset_sent;
        if (silence && (now >= deadline || over)) {
            if (now >= deadline)
                rn_sb(&d, "nothing received in %" PRIu32 " ms", e->within_ms);
            else
                rn_sb(&d, "nothing received (the connection is over)");
            return V_PASS;
        }
        if (over) {
            rn_sb(&d, "got nothing: the connection was already over (%s)",
                  R->dev_rst ? "the device reset it" : R->dev_fin ? "the device closed it" : "we reset it");
            return V_FAIL;
        }
        if (now >= deadline) {
            rn_sb(&d, "got nothing within %" PRIu32 " ms", e->within_ms);
            uint64_t held = mpa_feeder_octets(R->feed, TP_IN);
            if (mpa_stream_waiting(R->eng, TP_IN) || held)
                rn_sb(&d, " (%" PRIu64 " octets held, not yet decodable)", held);
            return V_FAIL;
        }
        if (rn_pump(R, deadline, 1, err, sizeof err)) {
            rn_sb(&d, "%s", err);
            return V_ERROR;
        }
    }
}

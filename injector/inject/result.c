/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report of a run (see result.h): the verdict line and what decided
 * it, the run's particulars and libmpa's findings as text; the same as
 * a JSON object.
 */
#include "result.h"

#include "mpa/findings.h"

static const char *verdict_upper(run_verdict v)
{
    return v == V_PASS ? "PASS" : v == V_FAIL ? "FAIL" : v == V_ERROR ? "ERROR" : "?";
}

void play_print_result(FILE *f, const scenario *s, const run_result *r, const char *transport, int quiet)
{
    fprintf(f, "%s %s (%s): %.1f ms", verdict_upper(r->verdict), s->name, s->file, r->total_ms);
    if (r->verdict == V_FAIL && r->decided_at >= 0) {
        const sc_step *st = &s->steps[r->decided_at];
        fprintf(f, ", step %d", r->decided_at + 1);
        if (st->nreq) {
            fprintf(f, " [");
            for (unsigned k = 0; k < st->nreq; k++)
                fprintf(f, "%s%s", k ? " " : "", st->req[k]);
            fprintf(f, "]");
        }
    }
    fprintf(f, "\n");
    if (r->verdict == V_FAIL && r->decided_at >= 0) {
        const run_step *rs = &r->steps[r->decided_at];
        fprintf(f, "  %s\n  %s\n", rs->what, rs->detail);
    }
    if (r->error[0])
        fprintf(f, "  %s\n", r->error);
    if (quiet)
        return;
    if (r->remote[0])
        fprintf(f, "  device %s (%s), us %s, %s transport\n", r->remote, s->device_initiator ? "initiator" : "responder",
                r->local, transport);
    fprintf(f, "  %llu octets sent, %llu received", (unsigned long long)r->sent_octets,
            (unsigned long long)r->recv_octets);
    if (r->trace[0])
        fprintf(f, "; trace %s (%llu packets)", r->trace, (unsigned long long)r->trace_packets);
    fprintf(f, "\n");
    for (int dev = 1; dev >= 0; dev--) {
        unsigned n = 0;
        for (unsigned i = 0; i < r->nfindings; i++)
            if (r->findings[i].from_device == dev)
                n++;
        if (!n)
            continue;
        fprintf(f, "  libmpa findings in %s octets%s:\n", dev ? "the device's" : "our", dev ? "" : " (deliberate?)");
        for (unsigned i = 0; i < r->nfindings; i++) {
            const run_finding *x = &r->findings[i];
            if (x->from_device != dev)
                continue;
            const mpa_rule *ru = mpa_rule_get(x->id);
            fprintf(f, "    %-7s %-24s @%-6llu %s%s\n", ru ? mpa_severity_str(ru->severity) : "?", ru ? ru->id : "?",
                    (unsigned long long)x->off, x->msg, x->expected ? " (expected by the scenario)" : "");
        }
    }
    if (r->findings_dropped)
        fprintf(f, "  (%u more findings not kept)\n", r->findings_dropped);
    if (r->unexamined)
        fprintf(f, "  %u thing%s the device sent that no step looked at, first: %s\n", r->unexamined,
                r->unexamined == 1 ? "" : "s", r->unexamined_first);
}

cJSON *play_json_result(const scenario *s, const run_result *r, const char *transport)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "scenario", s->name);
    cJSON_AddStringToObject(o, "file", s->file);
    cJSON_AddStringToObject(o, "description", s->description);
    cJSON_AddStringToObject(o, "device_role", s->device_initiator ? "initiator" : "responder");
    cJSON_AddStringToObject(o, "transport", transport);
    cJSON_AddStringToObject(o, "verdict", run_verdict_str(r->verdict));
    if (r->error[0])
        cJSON_AddStringToObject(o, "error", r->error);
    if (r->decided_at >= 0)
        cJSON_AddNumberToObject(o, "decided_at_step", r->decided_at + 1);
    cJSON *rq = cJSON_AddArrayToObject(o, "requirements");
    for (unsigned k = 0; k < s->nreq; k++)
        cJSON_AddItemToArray(rq, cJSON_CreateString(s->req[k]));
    cJSON_AddStringToObject(o, "device", r->remote);
    cJSON_AddStringToObject(o, "local", r->local);
    cJSON_AddNumberToObject(o, "duration_ms", r->total_ms);
    cJSON *st = cJSON_AddArrayToObject(o, "steps");
    static const char *const verbs[] = {"", "open", "send", "expect", "sleep", "close", "abort"};
    for (unsigned i = 0; i < r->nsteps; i++) {
        const run_step *rs = &r->steps[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "index", i + 1);
        cJSON_AddStringToObject(j, "verb", verbs[s->steps[i].verb]);
        cJSON_AddStringToObject(j, "verdict", run_verdict_str((run_verdict)rs->verdict));
        cJSON_AddStringToObject(j, "what", rs->what);
        cJSON_AddStringToObject(j, "detail", rs->detail);
        if (s->steps[i].note[0])
            cJSON_AddStringToObject(j, "note", s->steps[i].note);
        cJSON *sr = cJSON_AddArrayToObject(j, "requirements");
        for (unsigned k = 0; k < s->steps[i].nreq; k++)
            cJSON_AddItemToArray(sr, cJSON_CreateString(s->steps[i].req[k]));
        if (rs->verdict != V_NOT_RUN) {
            cJSON_AddNumberToObject(j, "t_ms", rs->t_ms);
            cJSON_AddNumberToObject(j, "took_ms", rs->took_ms);
        }
        if (s->steps[i].verb == SV_EXPECT && rs->alt >= 0)
            cJSON_AddNumberToObject(j, "matched_alternative", rs->alt + 1);
        cJSON_AddItemToArray(st, j);
    }
    cJSON *fa = cJSON_AddArrayToObject(o, "findings");
    for (unsigned i = 0; i < r->nfindings; i++) {
        const run_finding *x = &r->findings[i];
        const mpa_rule *ru = mpa_rule_get(x->id);
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "id", ru ? ru->id : "?");
        cJSON_AddStringToObject(j, "severity", ru ? mpa_severity_str(ru->severity) : "?");
        cJSON_AddStringToObject(j, "from", x->from_device ? "device" : "injector");
        if (x->expected)
            cJSON_AddTrueToObject(j, "expected");
        cJSON_AddNumberToObject(j, "stream_offset", (double)x->off);
        cJSON_AddNumberToObject(j, "t_ms", x->t_ms);
        /* The rule's fixed text (reports group by it); the values in detail. */
        cJSON_AddStringToObject(j, "message", ru ? ru->text : "");
        cJSON_AddStringToObject(j, "detail", x->msg);
        cJSON_AddItemToArray(fa, j);
    }
    cJSON *cv = cJSON_AddObjectToObject(o, "variables");
    for (unsigned i = 0; i < r->nvars; i++)
        cJSON_AddNumberToObject(cv, r->vars[i], (double)r->var_val[i]);
    cJSON_AddNumberToObject(o, "octets_sent", (double)r->sent_octets);
    cJSON_AddNumberToObject(o, "octets_received", (double)r->recv_octets);
    cJSON_AddNumberToObject(o, "unexamined", r->unexamined);
    if (r->trace[0])
        cJSON_AddStringToObject(o, "trace", r->trace);
    return o;
}

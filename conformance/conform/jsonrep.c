/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mpa-conform's JSON report (jsonrep.h). */
#include "jsonrep.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "jget.h"
#include "mpa/common.h"
#include "words.h"
#include "mpa/findings.h"
#include "sha256.h"

void jrep_add_req(cJSON *arr, const char *id)
{
    cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        const char *x = jget_str(it, "id");
        if (x && !strcmp(x, id))
            return;
    }
    const mpa_rule *ru = mpa_rule_get(mpa_rule_find(id));
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", id);
    cJSON_AddStringToObject(o, "level", ru ? ru->level : "?");
    cJSON_AddStringToObject(o, "clause", ru && ru->clause ? ru->clause : "");
    cJSON_AddStringToObject(o, "text", ru && ru->text ? ru->text : "");
    cJSON_AddItemToArray(arr, o);
}

/* The device: where it listens, where it connects to us, how. */
static void add_device(cJSON *doc, const play_cfg *pc, const player *P, const char *caps, const jrep_ident *id)
{
    cJSON *dev = cJSON_AddObjectToObject(doc, "device");
    if (id->device_name)
        cJSON_AddStringToObject(dev, "name", id->device_name);
    else
        cJSON_AddNullToObject(dev, "name");
    cJSON *roles = cJSON_AddArrayToObject(dev, "roles");
    if (id->want_resp)
        cJSON_AddItemToArray(roles, cJSON_CreateString("responder"));
    if (id->want_init)
        cJSON_AddItemToArray(roles, cJSON_CreateString("initiator"));
    char hp[300];
    const char *lo_addr = pc->family == 6 ? "::1" : "127.0.0.1";
    if (pc->target) {
        const char *h = P->thost[0] ? P->thost : lo_addr;
        snprintf(hp, sizeof hp, strchr(h, ':') ? "[%s]:%s" : "%s:%s", h, P->tport);
        cJSON_AddStringToObject(dev, "address", hp);
    } else {
        cJSON_AddNullToObject(dev, "address");
    }
    if (pc->listen_at) {
        const char *h = P->lhost[0] ? P->lhost : pc->spawn_cmd ? lo_addr : "*";
        snprintf(hp, sizeof hp, strchr(h, ':') ? "[%s]:%s" : "%s:%s", h, P->lport);
        cJSON_AddStringToObject(dev, "listen", hp);
    } else {
        cJSON_AddNullToObject(dev, "listen");
    }
    cJSON_AddStringToObject(dev, "transport", pc->transport);
    cJSON *cj = cJSON_AddArrayToObject(dev, "caps");
    for (unsigned k = 0; sc_need_words[k]; k++)
        if (suite_has_cap(caps, sc_need_words[k]))
            cJSON_AddItemToArray(cj, cJSON_CreateString(sc_need_words[k]));
    if (pc->spawn_cmd || pc->lab_cmd)
        cJSON_AddStringToObject(dev, "command", pc->spawn_cmd ? pc->spawn_cmd : pc->lab_cmd);
    else
        cJSON_AddNullToObject(dev, "command");
}

/* What the toolkit covers of each document (docs/spec-coverage.md):
 * the figures compiled in from the coverage tables. */
static void add_spec_coverage(cJSON *doc)
{
    cJSON *a = cJSON_AddArrayToObject(doc, "spec_coverage");
#define SPEC_COVERAGE(name, sections, statements, observable, with_id, audit, tested, observable_no_id)          \
    do {                                                                                                       \
        cJSON *o = cJSON_CreateObject();                                                                       \
        cJSON_AddStringToObject(o, "document", name);                                                          \
        cJSON_AddStringToObject(o, "sections", sections);                                                      \
        cJSON_AddNumberToObject(o, "statements", statements);                                                  \
        cJSON_AddNumberToObject(o, "observable", observable);                                                  \
        cJSON_AddNumberToObject(o, "with_id", with_id);                                                        \
        cJSON_AddNumberToObject(o, "checked_by_audit", audit);                                                 \
        cJSON_AddNumberToObject(o, "tested", tested);                                                          \
        cJSON_AddNumberToObject(o, "observable_without_id", observable_no_id);                                 \
        cJSON_AddItemToArray(a, o);                                                                            \
    } while (0);
#include "spec-coverage.inc"
#undef SPEC_COVERAGE
}

cJSON *jrep_begin(const play_cfg *pc, const player *P, const char *caps, const char *const *selection,
                  unsigned nselection, time_t t0, const jrep_ident *id)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "tool", "mpa-conform");
    cJSON_AddStringToObject(doc, "version", mpa_version());
    cJSON_AddNumberToObject(doc, "schema_version", JREP_SCHEMA_VERSION);
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t0));
    cJSON_AddStringToObject(doc, "started", when);
    if (id->notes)
        cJSON_AddStringToObject(doc, "notes", id->notes);
    else
        cJSON_AddNullToObject(doc, "notes");
    cJSON_AddObjectToObject(doc, "overview");
    add_device(doc, pc, P, caps, id);
    cJSON *sel = cJSON_AddArrayToObject(doc, "selection");
    for (unsigned i = 0; i < nselection; i++)
        cJSON_AddItemToArray(sel, cJSON_CreateString(selection[i]));
    cJSON_AddArrayToObject(doc, "suites");
    add_spec_coverage(doc);
    cJSON_AddArrayToObject(doc, "tests");
    return doc;
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The SHA-256 of the files of the suite named suite in T, in the order
 * of their paths (bytes): what "cat $(ls FILES | LC_ALL=C sort) |
 * sha256sum" says. */
static void suite_hash(const conf_tests *T, const char *suite, char *hex)
{
    const char **paths = calloc(T->n ? T->n : 1, sizeof *paths);
    size_t n = 0;
    for (size_t j = 0; paths && j < T->n; j++)
        if (!strcmp(T->v[j].suite, suite))
            paths[n++] = T->v[j].s.file;
    if (n)
        qsort(paths, n, sizeof *paths, cmp_path);
    sha256 c;
    sha256_init(&c);
    for (size_t j = 0; j < n; j++) {
        FILE *f = fopen(paths[j], "rb");
        char buf[4096];
        size_t k;
        while (f && (k = fread(buf, 1, sizeof buf, f)) > 0)
            sha256_add(&c, buf, k);
        if (f)
            fclose(f);
    }
    free(paths);
    sha256_hex(&c, hex);
}

void jrep_add_suite(cJSON *doc, const conf_tests *T, size_t i)
{
    const conf_test *t = &T->v[i];
    cJSON *so = cJSON_CreateObject();
    cJSON_AddStringToObject(so, "name", t->suite);
    char d[PATH_MAX];
    snprintf(d, sizeof d, "%s", t->s.file);
    char *sl = strrchr(d, '/');
    if (sl)
        *sl = 0;
    cJSON_AddStringToObject(so, "path", d);
    cJSON_AddStringToObject(so, "version", mpa_version());
    char hex[65];
    suite_hash(T, t->suite, hex);
    cJSON_AddStringToObject(so, "sha256", hex);
    unsigned cnt = 0;
    for (size_t j = i; j < T->n; j++)
        cnt += T->v[j].selected && !strcmp(T->v[j].suite, t->suite);
    cJSON_AddNumberToObject(so, "tests", cnt);
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(doc, "suites"), so);
}

/* What the script says about the test, run or not. */
static cJSON *test_head(const conf_test *t)
{
    const scenario *s = &t->s;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", s->test_id);
    cJSON_AddStringToObject(o, "suite", t->suite);
    cJSON_AddStringToObject(o, "file", s->file);
    cJSON_AddStringToObject(o, "name", s->name);
    cJSON_AddStringToObject(o, "class", s->mandatory ? "M" : "FYI");
    cJSON_AddStringToObject(o, "description", s->description);
    cJSON_AddStringToObject(o, "device_role", s->device_initiator ? "initiator" : "responder");
    cJSON *nd = cJSON_AddArrayToObject(o, "needs");
    for (unsigned i = 0; i < s->nneeds; i++)
        cJSON_AddItemToArray(nd, cJSON_CreateString(s->needs[i]));
    cJSON *rq = cJSON_AddArrayToObject(o, "requirements");
    for (unsigned i = 0; i < s->nreq; i++)
        jrep_add_req(rq, s->req[i]);
    for (unsigned k = 0; k < s->nsteps; k++)
        for (unsigned i = 0; i < s->steps[k].nreq; i++)
            jrep_add_req(rq, s->steps[k].req[i]);
    cJSON *qs = cJSON_AddArrayToObject(o, "quirks");
    for (unsigned i = 0; i < s->nquirks; i++) {
        cJSON *q = cJSON_CreateObject();
        cJSON_AddStringToObject(q, "id", s->quirks[i].id);
        cJSON_AddStringToObject(q, "text", s->quirks[i].text);
        cJSON_AddItemToArray(qs, q);
    }
    cJSON_AddStringToObject(o, "setup", s->setup);
    cJSON_AddStringToObject(o, "problems", s->problems);
    return o;
}

/* A skipped test: the reason, and its steps, none run. */
static void test_skipped(cJSON *o, const scenario *s, const char *skip_why)
{
    cJSON_AddStringToObject(o, "verdict", "skip");
    cJSON_AddStringToObject(o, "reason", skip_why);
    cJSON_AddNumberToObject(o, "duration_ms", 0);
    cJSON *st = cJSON_AddArrayToObject(o, "steps");
    static const char *const verbs[] = {"", "open", "send", "expect", "sleep", "close", "abort"};
    for (unsigned k = 0; k < s->nsteps; k++) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "index", k + 1);
        cJSON_AddStringToObject(j, "verb", verbs[s->steps[k].verb]);
        cJSON_AddStringToObject(j, "verdict", "not run");
        cJSON_AddStringToObject(j, "what", "");
        cJSON_AddStringToObject(j, "detail", "");
        cJSON *sr = cJSON_AddArrayToObject(j, "requirements");
        for (unsigned i = 0; i < s->steps[k].nreq; i++)
            cJSON_AddItemToArray(sr, cJSON_CreateString(s->steps[k].req[i]));
        cJSON_AddItemToArray(st, j);
    }
    cJSON_AddArrayToObject(o, "findings");
    cJSON_AddArrayToObject(o, "broken");
}

/* The step of s that was under way at t_ms (1-based; 0 before the first). */
static int step_at(const run_result *r, double t_ms)
{
    int k = 0;
    for (unsigned i = 0; i < r->nsteps; i++)
        if (r->steps[i].verdict != V_NOT_RUN && r->steps[i].t_ms <= t_ms)
            k = (int)i + 1;
    return k;
}

/* Requirement id into the "broken" array b: once, the first evidence
 * kept, later ones counted. */
static void broken_add(cJSON *b, const char *id, const char *how, int step, const char *evidence)
{
    cJSON *it;
    cJSON_ArrayForEach(it, b)
    {
        const char *x = jget_str(it, "id");
        if (x && !strcmp(x, id)) {
            cJSON *n = cJSON_GetObjectItemCaseSensitive(it, "times");
            cJSON_SetNumberValue(n, n->valuedouble + 1);
            return;
        }
    }
    const mpa_rule *ru = mpa_rule_get(mpa_rule_find(id));
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", id);
    cJSON_AddStringToObject(o, "level", ru ? ru->level : "?");
    cJSON_AddStringToObject(o, "how", how);
    cJSON_AddNumberToObject(o, "step", step);
    cJSON_AddStringToObject(o, "evidence", evidence);
    cJSON_AddNumberToObject(o, "times", 1);
    cJSON_AddItemToArray(b, o);
}

/* Whether a finding in the device's octets names a requirement broken:
 * an error or a warning that the scenario does not expect. */
static int finding_breaks(const run_finding *x)
{
    const mpa_rule *ru = mpa_rule_get(x->id);
    return x->from_device && !x->expected && ru && ru->severity != MPA_SEV_NOTE;
}

/* The requirements the run shows broken: every requirement a finding in
 * the device's octets names; and when the test failed on an expectation
 * that no error-level finding up to that step explains (what was
 * expected did not come), the step's own requirements, else the test's. */
static void add_broken(cJSON *o, const scenario *s, const run_result *r, const char *step_words)
{
    cJSON *b = cJSON_AddArrayToObject(o, "broken");
    int k = r->decided_at, explained = 0;
    for (unsigned i = 0; i < r->nfindings; i++)
        explained |= finding_breaks(&r->findings[i]) && r->findings[i].error &&
                     step_at(r, r->findings[i].t_ms) <= k + 1;
    if (r->verdict == V_FAIL && !explained) {
        const sc_step *st = k >= 0 ? &s->steps[k] : NULL;
        unsigned n = st && st->nreq ? st->nreq : s->nreq;
        for (unsigned i = 0; i < n; i++)
            broken_add(b, st && st->nreq ? st->req[i] : s->req[i], "expectation", k + 1, step_words);
    }
    for (unsigned i = 0; i < r->nfindings; i++)
        if (finding_breaks(&r->findings[i]))
            broken_add(b, mpa_rule_get(r->findings[i].id)->id, "finding", step_at(r, r->findings[i].t_ms),
                       r->findings[i].msg);
}

/* A failed test's reason in words: the step, what was expected and what
 * came, the requirements broken ("Reply A=0, Request A=1:
 * MPA-ENH-A-ECHO"). */
static void add_reason(cJSON *o, const run_result *r, char *step_words, size_t n)
{
    char why[1600];
    int k = r->decided_at;
    step_words[0] = 0;
    if (k < 0) {
        snprintf(why, sizeof why, "%s", r->error);
    } else {
        words_step(r->steps[k].what, r->steps[k].detail, step_words, n);
        snprintf(why, sizeof why, "step %d: %s", k + 1, step_words);
    }
    cJSON_AddStringToObject(o, "reason", why);
    if (k >= 0)
        cJSON_AddNumberToObject(o, "decided_at_step", k + 1);
}

/* A test that ran: the run as mpa-inject reports it, then reshaped. */
static void test_run(cJSON *o, const scenario *s, const run_result *r, const char *transport,
                     const char *trace_rel)
{
    cJSON *run = play_json_result(s, r, transport);
    cJSON_AddStringToObject(o, "verdict", run_verdict_str(r->verdict));
    char step_words[1000] = "";
    if (r->verdict == V_FAIL)
        add_reason(o, r, step_words, sizeof step_words);
    else if (r->verdict == V_ERROR)
        cJSON_AddStringToObject(o, "reason", r->error);
    add_broken(o, s, r, step_words);
    cJSON_AddNumberToObject(o, "duration_ms", r->total_ms);
    cJSON_AddStringToObject(o, "device_address", r->remote);
    cJSON_AddStringToObject(o, "local_address", r->local);
    static const char *const moved[] = {"steps", "findings", "variables", "octets_sent", "octets_received",
                                        "unexamined", NULL};
    for (unsigned i = 0; moved[i]; i++) {
        cJSON *x = cJSON_DetachItemFromObjectCaseSensitive(run, moved[i]);
        if (x)
            cJSON_AddItemToObject(o, moved[i], x);
    }
    cJSON_Delete(run);
    if (trace_rel)
        cJSON_AddStringToObject(o, "trace", trace_rel);
}

cJSON *jrep_test(const conf_test *t, const run_result *r, const char *transport, const char *skip_why,
                 const char *trace_rel)
{
    cJSON *o = test_head(t);
    if (skip_why)
        test_skipped(o, &t->s, skip_why);
    else
        test_run(o, &t->s, r, transport, trace_rel);
    return o;
}

void jrep_harmed(cJSON *to, const char *evidence)
{
    const char *v = jget_str(to, "verdict");
    char why[1600];
    const char *old = jget_str(to, "reason");
    if (old)
        snprintf(why, sizeof why, "%.1000s; after the test: %.500s", old, evidence);
    else
        snprintf(why, sizeof why, "after the test: %.500s", evidence);
    if (cJSON_GetObjectItemCaseSensitive(to, "reason"))
        cJSON_ReplaceItemInObjectCaseSensitive(to, "reason", cJSON_CreateString(why));
    else
        cJSON_AddStringToObject(to, "reason", why);
    if (v && !strcmp(v, "pass"))
        cJSON_ReplaceItemInObjectCaseSensitive(to, "verdict", cJSON_CreateString("fail"));
    cJSON *b = cJSON_GetObjectItemCaseSensitive(to, "broken");
    if (!b)
        b = cJSON_AddArrayToObject(to, "broken");
    broken_add(b, "MPA-ROBUST-NO-CRASH", "health", cJSON_GetArraySize(jget(to, "steps")), evidence);
}

void jrep_after_error(cJSON *to, const char *why)
{
    cJSON_ReplaceItemInObjectCaseSensitive(to, "verdict", cJSON_CreateString("error"));
    if (cJSON_GetObjectItemCaseSensitive(to, "reason"))
        cJSON_ReplaceItemInObjectCaseSensitive(to, "reason", cJSON_CreateString(why));
    else
        cJSON_AddStringToObject(to, "reason", why);
    cJSON_DeleteItemFromObjectCaseSensitive(to, "decided_at_step");
}

/* device.announced: per role, the first Request (the device as the
 * Initiator) or Reply (as the Responder) it sent in the run, as the
 * steps show it, and the test it came from. */
static void add_announced(cJSON *doc)
{
    cJSON *dev = cJSON_GetObjectItemCaseSensitive(doc, "device");
    cJSON *an = cJSON_AddObjectToObject(dev, "announced");
    static const char *const role[] = {"responder", "initiator"}, *const key[] = {"reply", "request"};
    for (int k = 0; k < 2; k++) {
        cJSON *fr = NULL;
        const cJSON *t, *st;
        cJSON_ArrayForEach(t, jget(doc, "tests"))
        {
            const char *r = jget_str(t, "device_role");
            if (fr || !r || strcmp(r, role[k]))
                continue;
            cJSON_ArrayForEach(st, jget(t, "steps"))
                if (!fr && (fr = words_frame(jget_str(st, "detail"), key[k]))) {
                    cJSON *o = cJSON_CreateObject();
                    cJSON_AddStringToObject(o, "test", jget_str_or(t, "id", "?"));
                    cJSON_AddItemToObject(o, "frame", fr);
                    cJSON_AddItemToObject(an, role[k], o);
                }
        }
        if (!fr)
            cJSON_AddNullToObject(an, role[k]);
    }
    /* only the Initiator side ran: the device is where it connected from */
    cJSON *addr = cJSON_GetObjectItemCaseSensitive(dev, "address");
    const cJSON *t;
    cJSON_ArrayForEach(t, jget(doc, "tests"))
        if (cJSON_IsNull(addr) && jget_text(t, "device_address")) {
            cJSON_ReplaceItemInObjectCaseSensitive(dev, "address", cJSON_CreateString(jget_text(t, "device_address")));
            addr = cJSON_GetObjectItemCaseSensitive(dev, "address");
        }
}

void jrep_end(cJSON *doc, const conf_tally *c, double total_ms, int exit_status)
{
    add_announced(doc);
    cJSON_AddNumberToObject(doc, "duration_ms", total_ms);
    cJSON *sum = cJSON_AddObjectToObject(doc, "summary");
    static const char *const keys[] = {"pass", "fail", "error", "skip"};
    cJSON_AddNumberToObject(sum, "total", c->n[TALLY_TOTAL]);
    for (int k = 0; k < 4; k++)
        cJSON_AddNumberToObject(sum, keys[k], c->n[k]);
    cJSON *ms = cJSON_AddObjectToObject(sum, "mandatory");
    cJSON_AddNumberToObject(ms, "total", c->m[TALLY_TOTAL]);
    for (int k = 0; k < 4; k++)
        cJSON_AddNumberToObject(ms, keys[k], c->m[k]);
    cJSON_AddObjectToObject(sum, "unreachable");
    cJSON_AddNumberToObject(sum, "exit_status", exit_status);
    cov_build(doc);
}

void jrep_unreachable(cJSON *doc, const char *role, const char *why)
{
    cJSON *sum = cJSON_GetObjectItemCaseSensitive(doc, "summary");
    cJSON *u = cJSON_GetObjectItemCaseSensitive(sum, "unreachable");
    if (!u)
        u = cJSON_AddObjectToObject(sum, "unreachable");
    cJSON_AddStringToObject(u, role, why);
}

int jrep_write(const cJSON *doc, const char *path, char *err, size_t errlen)
{
    char *txt = cJSON_Print(doc);
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    int bad = !f || !txt || fputs(txt, f) < 0 || fputc('\n', f) < 0;
    if (f && f != stdout && fclose(f))
        bad = 1;
    free(txt);
    if (bad) {
        snprintf(err, errlen, "%.300s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-inject scenario parser (see scen.h and docs/mpa-inject-scenarios.md).
 *
 * Everything a run will need is checked here, before the first octet is
 * sent: unknown keys (a typo would otherwise silently do nothing), value
 * ranges, variables used before anything defines them, requirement ids
 * that are not in the catalogue.  Every error is reported (the first of
 * each step and top-level key, at most SC_MAX_ERRORS, the rest counted)
 * as file:line:column and the JSON path of the value.  This file reads the
 * document and its steps; the steps' bodies are read in scen_send.c and
 * scen_expect.c, the values in scen_json.c (scen_priv.h).
 */
#include "scen.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scen_priv.h"

static int parse_reqs(pctx *c, const cJSON *j, const char *path, char (*req)[SC_ID_LEN], uint8_t *n)
{
    if (!cJSON_IsArray(j))
        return sp_fail(c, path, "expected an array of requirement ids, got %s", sp_jtype(j));
    int i = 0;
    for (const cJSON *e = j->child; e; e = e->next, i++) {
        char ip[160];
        sp_idx(ip, sizeof ip, path, i);
        if (!cJSON_IsString(e))
            return sp_fail(c, ip, "expected a requirement id, got %s", sp_jtype(e));
        if (!sc_known_req(e->valuestring))
            return sp_fail(c, ip, "\"%s\" is not a requirement id of the catalogue (mpa-audit --list-rules)",
                           e->valuestring);
        if (*n >= SC_MAX_REQ)
            return sp_fail(c, ip, "at most %d requirement ids", SC_MAX_REQ);
        snprintf(req[(*n)++], SC_ID_LEN, "%s", e->valuestring);
    }
    return 0;
}

static int parse_test(pctx *c, const cJSON *j, scenario *s)
{
    static const char *const keys[] = {"id", "class", "needs", "setup", "problems", "quirks", NULL};
    if (!cJSON_IsObject(j))
        return sp_fail(c, "$.test", "expected an object, got %s", sp_jtype(j));
    if (sp_only_keys(c, j, "$.test", keys))
        return -1;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "id");
    if (!id)
        return sp_fail(c, "$.test.id", "a test needs an id (\"startup.key.request-octet-0\")");
    if (sp_get_text(c, id, "$.test.id", s->test_id, sizeof s->test_id))
        return -1;
    for (const char *p = s->test_id; *p; p++)
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '.' || *p == '-' || *p == '_') ||
            (p == s->test_id && !isalnum((unsigned char)*p)))
            return sp_fail(c, "$.test.id", "\"%s\": lower-case letters, digits, '.', '-' and '_' only", s->test_id);
    if (!s->test_id[0])
        return sp_fail(c, "$.test.id", "empty");
    const cJSON *cl = cJSON_GetObjectItemCaseSensitive(j, "class");
    if (!cl || !cJSON_IsString(cl) || (strcmp(cl->valuestring, "M") && strcmp(cl->valuestring, "FYI")))
        return sp_fail(c, "$.test.class", "\"M\" (mandatory) or \"FYI\" (informative)");
    s->mandatory = !strcmp(cl->valuestring, "M");
    const cJSON *nd = cJSON_GetObjectItemCaseSensitive(j, "needs");
    if (nd) {
        if (!cJSON_IsArray(nd))
            return sp_fail(c, "$.test.needs", "expected an array of capabilities, got %s", sp_jtype(nd));
        int i = 0;
        for (const cJSON *e = nd->child; e; e = e->next, i++) {
            char ip[64];
            snprintf(ip, sizeof ip, "$.test.needs[%d]", i);
            int known = 0;
            for (unsigned k = 0; cJSON_IsString(e) && sc_need_words[k]; k++)
                known |= !strcmp(e->valuestring, sc_need_words[k]);
            if (!known)
                return sp_fail(c, ip, "not a capability (enhanced, p2p, markers, reject)");
            if (s->nneeds >= SC_MAX_NEEDS)
                return sp_fail(c, ip, "at most %d", SC_MAX_NEEDS);
            snprintf(s->needs[s->nneeds++], sizeof s->needs[0], "%s", e->valuestring);
        }
    }
    const cJSON *su = cJSON_GetObjectItemCaseSensitive(j, "setup");
    if (su && sp_get_text(c, su, "$.test.setup", s->setup, sizeof s->setup))
        return -1;
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(j, "problems");
    if (pr && sp_get_text(c, pr, "$.test.problems", s->problems, sizeof s->problems))
        return -1;
    const cJSON *qs = cJSON_GetObjectItemCaseSensitive(j, "quirks");
    if (qs) {
        if (!cJSON_IsArray(qs))
            return sp_fail(c, "$.test.quirks", "expected an array of {\"id\", \"text\"}, got %s", sp_jtype(qs));
        int i = 0;
        for (const cJSON *e = qs->child; e; e = e->next, i++) {
            static const char *const qkeys[] = {"id", "text", NULL};
            char ip[64], kp[80];
            snprintf(ip, sizeof ip, "$.test.quirks[%d]", i);
            if (!cJSON_IsObject(e))
                return sp_fail(c, ip, "expected {\"id\", \"text\"}, got %s", sp_jtype(e));
            if (sp_only_keys(c, e, ip, qkeys))
                return -1;
            if (s->nquirks >= SC_MAX_QUIRKS)
                return sp_fail(c, ip, "at most %d quirks", SC_MAX_QUIRKS);
            const cJSON *qi = cJSON_GetObjectItemCaseSensitive(e, "id");
            const cJSON *qt = cJSON_GetObjectItemCaseSensitive(e, "text");
            snprintf(kp, sizeof kp, "%s.id", ip);
            if (!qi || sp_get_text(c, qi, kp, s->quirks[s->nquirks].id, sizeof s->quirks[0].id))
                return c->bad ? -1 : sp_fail(c, kp, "a quirk needs an id");
            snprintf(kp, sizeof kp, "%s.text", ip);
            if (!qt || sp_get_text(c, qt, kp, s->quirks[s->nquirks].text, sizeof s->quirks[0].text))
                return c->bad ? -1 : sp_fail(c, kp, "a quirk needs a text");
            s->nquirks++;
        }
    }
    s->is_test = 1;
    return 0;
}

static int parse_step(pctx *c, const cJSON *j, const char *path, sc_step *st)
{
    static const char *const keys[] = {"open", "send", "expect", "sleep", "close", "abort",
                                       "requirements", "note", NULL};
    static const char *const verbs[] = {"", "open", "send", "expect", "sleep", "close", "abort"};
    char p[160];
    memset(st, 0, sizeof *st);
    sp_sapp(st->path, sizeof st->path, 0, path);
    if (sp_only_keys(c, j, path, keys))
        return -1;
    const cJSON *body = NULL;
    for (int v = SV_OPEN; v <= SV_ABORT; v++) {
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(j, verbs[v]);
        if (!b)
            continue;
        if (body)
            return sp_fail(c, path, "one verb per step (\"%s\" and \"%s\")", verbs[st->verb], verbs[v]);
        body = b;
        st->verb = (uint8_t)v;
    }
    if (!body)
        return sp_fail(c, path, "a step needs a verb: open, send, expect, sleep, close or abort");
    const char *bp0 = sp_sub(p, sizeof p, path, verbs[st->verb]);
    char bp[160];
    sp_sapp(bp, sizeof bp, 0, bp0);
    switch ((sc_verb)st->verb) {
    case SV_OPEN: {
        static const char *const okeys[] = {"tcp", NULL};
        st->open_listen = c->s->device_initiator;
        if (cJSON_IsTrue(body))
            break;
        if (sp_only_keys(c, body, bp, okeys))
            return -1;
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(body, "tcp");
        if (t) {
            if (!cJSON_IsString(t) || (strcmp(t->valuestring, "connect") && strcmp(t->valuestring, "listen")))
                return sp_fail(c, sp_sub(p, sizeof p, bp, "tcp"), "expected \"connect\" or \"listen\"");
            st->open_listen = !strcmp(t->valuestring, "listen");
        }
        break;
    }
    case SV_SEND:
        if (sp_parse_send(c, body, bp, &st->send))
            return -1;
        break;
    case SV_EXPECT:
        if (sp_parse_expect(c, body, bp, &st->expect, c->s->timeout_ms))
            return -1;
        break;
    case SV_SLEEP: {
        static const char *const skeys[] = {"ms", NULL};
        int64_t v;
        if (cJSON_IsNumber(body)) {
            if (sp_get_int(c, body, bp, 0, 3600000, &v))
                return -1;
        } else {
            if (sp_only_keys(c, body, bp, skeys))
                return -1;
            const cJSON *ms = cJSON_GetObjectItemCaseSensitive(body, "ms");
            if (!ms)
                return sp_fail(c, bp, "how long? (\"sleep\": {\"ms\": N})");
            if (sp_get_int(c, ms, sp_sub(p, sizeof p, bp, "ms"), 0, 3600000, &v))
                return -1;
        }
        st->ms = (uint32_t)v;
        break;
    }
    case SV_CLOSE:
    case SV_ABORT: {
        static const char *const none[] = {NULL};
        if (!cJSON_IsTrue(body) && sp_only_keys(c, body, bp, none))
            return -1;
        break;
    }
    }
    const cJSON *rq = cJSON_GetObjectItemCaseSensitive(j, "requirements");
    if (rq && parse_reqs(c, rq, sp_sub(p, sizeof p, path, "requirements"), st->req, &st->nreq))
        return -1;
    const cJSON *nt = cJSON_GetObjectItemCaseSensitive(j, "note");
    if (nt) {
        if (!cJSON_IsString(nt))
            return sp_fail(c, sp_sub(p, sizeof p, path, "note"), "expected a string, got %s", sp_jtype(nt));
        snprintf(st->note, sizeof st->note, "%s", nt->valuestring);
    }
    return 0;
}

/* ---- the scenario ----------------------------------------------------- */

/* JSON parse errors: cJSON gives a pointer; turn it into line:column. */
static void where(const char *text, const char *at, unsigned *line, unsigned *col)
{
    *line = 1;
    *col = 1;
    for (const char *q = text; q < at && *q; q++) {
        if (*q == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

/* The part read is done: its error (if any) is said; on to the next. */
static void next_part(pctx *c) { c->bad = 0; }

int sc_parse(const char *file, const char *text, size_t len, const char *const *defines, unsigned n_defines,
             scenario *out, char *err, size_t errlen)
{
    pctx c;
    memset(&c, 0, sizeof c);
    memset(out, 0, sizeof *out);
    c.file = file;
    c.err = err;
    c.errlen = errlen;
    c.s = out;
    if (errlen)
        err[0] = 0;
    snprintf(out->file, sizeof out->file, "%s", file);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root) {
        unsigned line, col;
        const char *at = end ? end : cJSON_GetErrorPtr();
        where(text, at ? at : text, &line, &col);
        snprintf(err, errlen, "%s:%u:%u: not valid JSON", file, line, col);
        return -1;
    }
    c.text = text;
    c.len = len;
    /* Each top-level key, each variable and each step is read on after an
     * error in an earlier one: every error is said (the first of each
     * part), up to SC_MAX_ERRORS. */
    static const char *const keys[] = {"name", "description", "device", "timeout_ms", "requirements", "vars",
                                       "fail_on_findings", "expected_findings", "test", "steps", NULL};
    char p[160];
    sp_only_keys(&c, root, "$", keys);
    next_part(&c);
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(root, "name");
    if (!nm || !cJSON_IsString(nm) || !*nm->valuestring)
        sp_fail(&c, "$.name", "a scenario needs a name (a non-empty string)");
    else
        snprintf(out->name, sizeof out->name, "%s", nm->valuestring);
    next_part(&c);
    const cJSON *ds = cJSON_GetObjectItemCaseSensitive(root, "description");
    if (ds) {
        if (!cJSON_IsString(ds))
            sp_fail(&c, "$.description", "expected a string, got %s", sp_jtype(ds));
        else
            snprintf(out->description, sizeof out->description, "%s", ds->valuestring);
    }
    next_part(&c);
    const cJSON *dv = cJSON_GetObjectItemCaseSensitive(root, "device");
    if (!dv || !cJSON_IsString(dv) || (strcmp(dv->valuestring, "responder") && strcmp(dv->valuestring, "initiator")))
        sp_fail(&c, "$.device",
                "say which MPA role the device under test plays: \"responder\" (mpa-inject "
                "connects) or \"initiator\" (mpa-inject listens)");
    else
        out->device_initiator = !strcmp(dv->valuestring, "initiator");
    next_part(&c);
    out->timeout_ms = 3000;
    out->fail_on_findings = 1;
    const cJSON *to = cJSON_GetObjectItemCaseSensitive(root, "timeout_ms");
    int64_t v;
    if (to && sp_get_int(&c, to, "$.timeout_ms", 1, 3600000, &v) == 0)
        out->timeout_ms = (uint32_t)v;
    next_part(&c);
    const cJSON *ff = cJSON_GetObjectItemCaseSensitive(root, "fail_on_findings");
    if (ff) {
        if (!cJSON_IsBool(ff))
            sp_fail(&c, "$.fail_on_findings", "expected true or false, got %s", sp_jtype(ff));
        else
            out->fail_on_findings = (uint8_t)cJSON_IsTrue(ff);
    }
    next_part(&c);
    const cJSON *rq = cJSON_GetObjectItemCaseSensitive(root, "requirements");
    if (rq)
        parse_reqs(&c, rq, "$.requirements", out->req, &out->nreq);
    next_part(&c);
    const cJSON *ef = cJSON_GetObjectItemCaseSensitive(root, "expected_findings");
    if (ef)
        parse_reqs(&c, ef, "$.expected_findings", out->expected_findings, &out->nexpected);
    next_part(&c);
    const cJSON *tm = cJSON_GetObjectItemCaseSensitive(root, "test");
    if (tm)
        parse_test(&c, tm, out);
    next_part(&c);
    /* variables: the script's, then the command line's (which win) */
    const cJSON *vs = cJSON_GetObjectItemCaseSensitive(root, "vars");
    if (vs && !cJSON_IsObject(vs)) {
        sp_fail(&c, "$.vars", "expected an object {\"name\": number}, got %s", sp_jtype(vs));
        c.lost_vars = 1;
    } else if (vs) {
        for (const cJSON *m = vs->child; m; m = m->next, next_part(&c)) {
            sp_sub(p, sizeof p, "$.vars", m->string);
            if (sp_define_var(&c, p, m->string) || sp_get_int(&c, m, p, 0, INT64_MAX, &v))
                continue;
            if (out->nvars >= SC_MAX_VARS) {
                sp_fail(&c, p, "too many variables");
                break;
            }
            snprintf(out->vars[out->nvars].name, SC_VAR_LEN, "%s", m->string);
            out->vars[out->nvars++].v = v;
        }
    }
    next_part(&c);
    for (unsigned i = 0; i < n_defines; i++, next_part(&c)) {
        const char *eq = strchr(defines[i], '=');
        char name[SC_VAR_LEN];
        size_t nl = eq ? (size_t)(eq - defines[i]) : 0;
        if (!eq || nl == 0 || nl >= SC_VAR_LEN || sp_str_num(eq + 1, &v)) {
            /* the command line's, not the script's: said alone */
            snprintf(err, errlen, "--set %s: expected NAME=NUMBER", defines[i]);
            cJSON_Delete(root);
            sc_free(out);
            return -1;
        }
        memcpy(name, defines[i], nl);
        name[nl] = 0;
        if (sp_define_var(&c, "--set", name))
            continue;
        unsigned k;
        for (k = 0; k < out->nvars && strcmp(out->vars[k].name, name); k++)
            ;
        if (k == out->nvars) {
            if (out->nvars >= SC_MAX_VARS) {
                sp_fail(&c, "--set", "too many variables");
                break;
            }
            snprintf(out->vars[out->nvars++].name, SC_VAR_LEN, "%s", name);
        }
        out->vars[k].v = v;
    }
    next_part(&c);
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(root, "steps");
    int n = steps && cJSON_IsArray(steps) ? cJSON_GetArraySize(steps) : 0;
    if (!n)
        sp_fail(&c, "$.steps", "a scenario needs a non-empty array of steps");
    else if (n > 100000)
        sp_fail(&c, "$.steps", "%d steps is too many (at most 100000)", n);
    else if (!(out->steps = calloc((size_t)n, sizeof *out->steps)))
        sp_fail(&c, "$.steps", "out of memory");
    if (out->steps) {
        int i = 0, opened = 0, order = 1; /* order: the open/sleep order can still be judged */
        for (const cJSON *e = steps->child; e; e = e->next, i++, next_part(&c)) {
            sp_idx(p, sizeof p, "$.steps", i);
            out->nsteps = (unsigned)i + 1;
            unsigned before = c.nerr;
            parse_step(&c, e, p, &out->steps[i]);
            if (c.nerr != before)
                c.lost_vars = 1; /* it may have captured a variable */
            const sc_step *st = &out->steps[i];
            if (!st->verb) {
                order = 0; /* which verb it meant is unknown */
                continue;
            }
            next_part(&c);
            if (i && out->steps[i - 1].verb == SV_SEND && out->steps[i - 1].send.hold && st->verb != SV_SEND) {
                char hp[160];
                sp_fail(&c, sp_idx(hp, sizeof hp, "$.steps", i - 1),
                        "\"hold\" keeps the octets for the next step, which must be a send step");
            }
            if (st->verb == SV_OPEN) {
                if (opened && order)
                    sp_fail(&c, p, "the connection is already open (one connection per scenario)");
                opened = 1;
            } else if (!opened && st->verb != SV_SLEEP && order) {
                sp_fail(&c, p, "the first steps must open the connection (\"open\": {})");
                order = 0; /* said once */
            }
        }
        if (!opened && order)
            sp_fail(&c, "$.steps", "no step opens the connection (\"open\": {})");
        if (i && out->steps[i - 1].verb == SV_SEND && out->steps[i - 1].send.hold)
            sp_fail(&c, sp_idx(p, sizeof p, "$.steps", i - 1),
                    "\"hold\" keeps the octets for the next step, and there is none");
    }
    next_part(&c);
    if (c.nerr > c.shown) {
        size_t used = strlen(err);
        char more[120];
        snprintf(more, sizeof more, "%s%s: %u more error%s not shown", used ? "\n" : "", file, c.nerr - c.shown,
                 c.nerr - c.shown == 1 ? "" : "s");
        if (used + strlen(more) < errlen)
            memcpy(err + used, more, strlen(more) + 1);
    }
    cJSON_Delete(root);
    if (c.nerr) {
        sc_free(out);
        return -1;
    }
    return 0;
}

int sc_load(const char *file, const char *const *defines, unsigned n_defines, scenario *out, char *err,
            size_t errlen)
{
    FILE *f = strcmp(file, "-") ? fopen(file, "rb") : stdin;
    if (!f) {
        snprintf(err, errlen, "%s: %s", file, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 14, len = 0;
    char *buf = malloc(cap);
    size_t k;
    const size_t max = 16u << 20;
    while (buf && (k = fread(buf + len, 1, cap - len, f)) > 0) {
        len += k;
        if (len == cap) {
            if (cap >= max) {
                snprintf(err, errlen, "%s: larger than %zu MiB: not a scenario", file, max >> 20);
                free(buf);
                if (f != stdin)
                    fclose(f);
                return -1;
            }
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    int rerr = ferror(f);
    if (f != stdin)
        fclose(f);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory", file);
        return -1;
    }
    if (rerr) {
        snprintf(err, errlen, "%s: read error", file);
        free(buf);
        return -1;
    }
    int rc = sc_parse(file, buf, len, defines, n_defines, out, err, errlen);
    free(buf);
    return rc;
}

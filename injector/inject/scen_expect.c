/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Expect steps (see scen_priv.h): one alternative or "any_of" several,
 * each a kind (frame, fpdu, terminate, fin, rst, close, silence) with
 * constraints on the fields of what arrives and captures of them into
 * variables; the deadline; skip_fpdus.
 */
#include <stdio.h>
#include <string.h>

#include "scen_priv.h"

/* Constraint on one field from a JSON value. */
static int parse_cons(pctx *c, const cJSON *j, const char *path, sc_field fld, sc_cons *k)
{
    const field_info *fi = sp_field(fld);
    memset(k, 0, sizeof *k);
    k->field = (uint8_t)fld;
    if (cJSON_IsArray(j)) {
        k->kind = SC_C_SET;
        int i = 0;
        for (const cJSON *e = j->child; e; e = e->next, i++) {
            char ip[160];
            sc_val v;
            if (i >= SC_SET_MAX)
                return sp_fail(c, path, "at most %d alternatives", SC_SET_MAX);
            if (sp_get_val(c, e, sp_idx(ip, sizeof ip, path, i), fi->min, fi->max, fi->names, &v))
                return -1;
            if (v.is_var)
                return sp_fail(c, ip, "a variable cannot be one of a set; use \"any_of\"");
            k->set[k->nset++] = v.v;
        }
        if (!k->nset)
            return sp_fail(c, path, "an empty set matches nothing");
        return 0;
    }
    if (cJSON_IsObject(j)) {
        static const char *const keys[] = {"min", "max", "not", NULL};
        if (sp_only_keys(c, j, path, keys))
            return -1;
        const cJSON *mn = cJSON_GetObjectItemCaseSensitive(j, "min");
        const cJSON *mx = cJSON_GetObjectItemCaseSensitive(j, "max");
        const cJSON *nt = cJSON_GetObjectItemCaseSensitive(j, "not");
        char p[160];
        if (nt) {
            if (mn || mx)
                return sp_fail(c, path, "\"not\" goes alone");
            sc_val v;
            if (sp_get_val(c, nt, sp_sub(p, sizeof p, path, "not"), fi->min, fi->max, fi->names, &v))
                return -1;
            k->kind = SC_C_NOT;
            k->a = v.v;
            k->is_var = v.is_var;
            memcpy(k->var, v.var, sizeof k->var);
            return 0;
        }
        if (!mn && !mx)
            return sp_fail(c, path, "give \"min\", \"max\" or both");
        k->kind = SC_C_RANGE;
        k->a = fi->min;
        k->b = fi->max;
        if (mn && sp_get_int(c, mn, sp_sub(p, sizeof p, path, "min"), fi->min, fi->max, &k->a))
            return -1;
        if (mx && sp_get_int(c, mx, sp_sub(p, sizeof p, path, "max"), fi->min, fi->max, &k->b))
            return -1;
        if (k->a > k->b)
            return sp_fail(c, path, "min %lld is above max %lld", (long long)k->a, (long long)k->b);
        return 0;
    }
    sc_val v;
    if (sp_get_val(c, j, path, fi->min, fi->max, fi->names, &v))
        return -1;
    k->kind = SC_C_EQ;
    k->a = v.v;
    k->is_var = v.is_var;
    memcpy(k->var, v.var, sizeof k->var);
    return 0;
}

static int add_cons(pctx *c, sc_alt *a, const cJSON *j, const char *path, sc_field f)
{
    if (a->ncons >= SC_MAX_CONS)
        return sp_fail(c, path, "too many constraints (at most %d)", SC_MAX_CONS);
    return parse_cons(c, j, path, f, &a->cons[a->ncons++]);
}

/* The constraints of a frame / fpdu / terminate expectation. */
static int parse_alt_body(pctx *c, const cJSON *j, const char *path, sc_alt *a)
{
    char p[160];
    if (a->kind == SE_FIN || a->kind == SE_RST || a->kind == SE_CLOSE || a->kind == SE_SILENCE) {
        static const char *const none[] = {NULL};
        if (cJSON_IsTrue(j))
            return 0;
        return sp_only_keys(c, j, path, none);
    }
    if (cJSON_IsTrue(j))
        return 0; /* any frame / FPDU / TERMINATE */
    if (!cJSON_IsObject(j))
        return sp_fail(c, path, "expected an object of constraints (or true), got %s", sp_jtype(j));
    int scope = a->kind == SE_FRAME ? 1 : 2;
    for (const cJSON *m = j->child; m; m = m->next) {
        const char *mp = sp_sub(p, sizeof p, path, m->string);
        char mpath[160];
        sp_sapp(mpath, sizeof mpath, 0, mp);
        if (scope == 1 && !strcmp(m->string, "enhanced") && cJSON_IsObject(m)) {
            /* nested: "enhanced": {"a": 1, "ird": {"min": 1}} */
            static const char *const ekeys[] = {"a", "b", "c", "d", "ird", "ord", NULL};
            if (sp_only_keys(c, m, mpath, ekeys))
                return -1;
            cJSON one;
            memset(&one, 0, sizeof one);
            one.type = cJSON_True;
            if (add_cons(c, a, &one, mpath, F_ENHANCED))
                return -1;
            for (const cJSON *e = m->child; e; e = e->next) {
                char ep[160];
                sc_field f = !strcmp(e->string, "c")   ? F_ENH_C
                             : !strcmp(e->string, "d") ? F_ENH_D
                                                       : sp_field_by_name(e->string, 1);
                if (add_cons(c, a, e, sp_sub(ep, sizeof ep, mpath, e->string), f))
                    return -1;
            }
            continue;
        }
        if (scope == 1 && !strcmp(m->string, "private_data")) {
            if (a->pd_set)
                return sp_fail(c, mpath, "given twice");
            if (sp_get_bytes(c, m, mpath, &a->pd))
                return -1;
            a->pd_set = 1;
            continue;
        }
        if (a->kind == SE_FPDU && !strcmp(m->string, "payload")) {
            if (a->payload_set)
                return sp_fail(c, mpath, "given twice");
            if (sp_get_bytes(c, m, mpath, &a->payload))
                return -1;
            if (a->payload.len > SC_PAYLOAD_MAX)
                return sp_fail(c, mpath, "at most %d octets are compared, this is %zu", SC_PAYLOAD_MAX,
                               a->payload.len);
            a->payload_set = 1;
            continue;
        }
        sc_field f = sp_field_by_name(m->string, scope);
        if (f == F_NONE || (a->kind == SE_FPDU && f >= F_LAYER)) {
            char list[600] = "";
            for (int k = 1; k < F__COUNT; k++) {
                if (sp_field((sc_field)k)->scope != scope)
                    continue;
                if (a->kind == SE_FPDU && k >= F_LAYER)
                    continue;
                strncat(list, sp_field((sc_field)k)->name, sizeof list - strlen(list) - 3);
                strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            if (scope == 1)
                strncat(list, "private_data", sizeof list - strlen(list) - 1);
            else if (a->kind == SE_FPDU)
                strncat(list, "payload", sizeof list - strlen(list) - 1);
            else
                list[strlen(list) - 2] = 0;
            return sp_fail(c, mpath, "unknown field \"%s\" (known here: %s)", m->string, list);
        }
        if (add_cons(c, a, m, mpath, f))
            return -1;
    }
    return 0;
}

static const char *const alt_kinds[] = {"", "frame", "fpdu", "terminate", "fin", "rst", "close", "silence"};

/* One alternative: {"frame": {...}, "capture": {...}} (and, at the top
 * of an expect step, within_ms and skip_fpdus besides). */
static int parse_alt(pctx *c, const cJSON *j, const char *path, sc_alt *a, int top)
{
    static const char *const keys_top[] = {"frame", "fpdu", "terminate", "fin", "rst", "close", "silence",
                                           "capture", "within_ms", "skip_fpdus", NULL};
    static const char *const keys_alt[] = {"frame", "fpdu", "terminate", "fin", "rst", "close", "capture", NULL};
    char p[160];
    memset(a, 0, sizeof *a);
    sp_sapp(a->path, sizeof a->path, 0, path);
    if (sp_only_keys(c, j, path, top ? keys_top : keys_alt))
        return -1;
    const cJSON *body = NULL;
    for (int k = SE_FRAME; k <= SE_SILENCE; k++) {
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(j, alt_kinds[k]);
        if (!b)
            continue;
        if (body)
            return sp_fail(c, path, "give one of frame, fpdu, terminate, fin, rst, close%s (or \"any_of\")",
                           top ? ", silence" : "");
        body = b;
        a->kind = (uint8_t)k;
    }
    if (!body)
        return sp_fail(c, path, "say what to expect: frame, fpdu, terminate, fin, rst, close%s%s",
                       top ? ", silence" : "", top ? " or any_of" : "");
    if (a->kind == SE_SILENCE) {
        /* "silence": {"ms": N} is the deadline itself */
        static const char *const skeys[] = {"ms", NULL};
        if (cJSON_IsObject(body) && sp_only_keys(c, body, sp_sub(p, sizeof p, path, "silence"), skeys))
            return -1;
    } else if (parse_alt_body(c, body, sp_sub(p, sizeof p, path, alt_kinds[a->kind]), a)) {
        return -1;
    }
    const cJSON *cap = cJSON_GetObjectItemCaseSensitive(j, "capture");
    if (cap) {
        const char *cp0 = sp_sub(p, sizeof p, path, "capture");
        char cp[160];
        sp_sapp(cp, sizeof cp, 0, cp0);
        if (!cJSON_IsObject(cap))
            return sp_fail(c, cp, "expected an object {\"variable\": \"field\"}, got %s", sp_jtype(cap));
        if (a->kind != SE_FRAME && a->kind != SE_FPDU && a->kind != SE_TERMINATE)
            return sp_fail(c, cp, "only a frame, an FPDU or a TERMINATE has fields to capture");
        for (const cJSON *m = cap->child; m; m = m->next) {
            char vp[200];
            sp_sub(vp, sizeof vp, cp, m->string);
            if (!cJSON_IsString(m))
                return sp_fail(c, vp, "expected a field name, got %s", sp_jtype(m));
            int scope = a->kind == SE_FRAME ? 1 : 2;
            const char *fname = m->valuestring;
            sc_field f = sp_field_by_name(fname, scope);
            if (f == F_NONE)
                return sp_fail(c, vp, "\"%s\" is not a field of %s", fname, scope == 1 ? "a frame" : "an FPDU");
            if (a->ncapt >= SC_MAX_CAPT)
                return sp_fail(c, vp, "at most %d captures", SC_MAX_CAPT);
            if (!sp_valid_var_name(m->string))
                return sp_fail(c, vp, "\"%s\" is not a variable name", m->string);
            snprintf(a->capt[a->ncapt].var, SC_VAR_LEN, "%s", m->string);
            a->capt[a->ncapt++].field = (uint8_t)f;
        }
    }
    return 0;
}

int sp_parse_expect(pctx *c, const cJSON *j, const char *path, sc_expect *e, uint32_t def_ms)
{
    char p[160];
    memset(e, 0, sizeof *e);
    e->within_ms = def_ms;
    const cJSON *any = cJSON_GetObjectItemCaseSensitive(j, "any_of");
    if (any) {
        static const char *const keys[] = {"any_of", "within_ms", "skip_fpdus", NULL};
        if (sp_only_keys(c, j, path, keys))
            return -1;
        const char *ap0 = sp_sub(p, sizeof p, path, "any_of");
        char ap[160];
        sp_sapp(ap, sizeof ap, 0, ap0);
        if (!cJSON_IsArray(any) || cJSON_GetArraySize(any) < 1)
            return sp_fail(c, ap, "expected a non-empty array of alternatives");
        int i = 0;
        for (const cJSON *a = any->child; a; a = a->next, i++) {
            char ip[160];
            if (i >= SC_MAX_ALT)
                return sp_fail(c, ap, "at most %d alternatives", SC_MAX_ALT);
            if (parse_alt(c, a, sp_idx(ip, sizeof ip, ap, i), &e->alt[i], 0))
                return -1;
        }
        e->nalt = (uint8_t)i;
        e->any_of = 1;
    } else {
        if (parse_alt(c, j, path, &e->alt[0], 1))
            return -1;
        e->nalt = 1;
    }
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(j, "within_ms");
    int64_t v;
    if (w) {
        if (sp_get_int(c, w, sp_sub(p, sizeof p, path, "within_ms"), 0, 3600000, &v))
            return -1;
        e->within_ms = (uint32_t)v;
    }
    if (e->alt[0].kind == SE_SILENCE) {
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "silence");
        const cJSON *ms = cJSON_IsObject(s) ? cJSON_GetObjectItemCaseSensitive(s, "ms") : NULL;
        if (ms && w)
            return sp_fail(c, path, "give the silence's length once (\"silence\": {\"ms\"} or \"within_ms\")");
        if (ms) {
            if (sp_get_int(c, ms, sp_sub(p, sizeof p, path, "silence.ms"), 0, 3600000, &v))
                return -1;
            e->within_ms = (uint32_t)v;
        } else if (!w) {
            return sp_fail(c, path, "how long is the silence? (\"silence\": {\"ms\": N})");
        }
    }
    const cJSON *sk = cJSON_GetObjectItemCaseSensitive(j, "skip_fpdus");
    if (sk) {
        if (!cJSON_IsBool(sk))
            return sp_fail(c, sp_sub(p, sizeof p, path, "skip_fpdus"), "expected true or false, got %s", sp_jtype(sk));
        e->skip_fpdus = (uint8_t)cJSON_IsTrue(sk);
    }
    /* Captures define variables for the steps after this one; with
     * any_of, only the alternative that matched defines its own, so a
     * later use must be defined by every alternative to be safe. */
    if (e->nalt == 1) {
        for (unsigned k = 0; k < e->alt[0].ncapt; k++)
            if (sp_define_var(c, path, e->alt[0].capt[k].var))
                return -1;
    } else {
        for (unsigned k = 0; k < e->alt[0].ncapt; k++) {
            int all = 1;
            for (unsigned a = 1; a < e->nalt; a++) {
                int has = 0;
                for (unsigned q = 0; q < e->alt[a].ncapt; q++)
                    if (!strcmp(e->alt[a].capt[q].var, e->alt[0].capt[k].var))
                        has = 1;
                all &= has;
            }
            if (all && sp_define_var(c, path, e->alt[0].capt[k].var))
                return -1;
        }
    }
    return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Short forms of the step texts (brief.h). */
#include "brief.h"

#include <string.h>

#include "jget.h"

static void gen_members(sb *s, const cJSON *v, int depth)
{
    const cJSON *m;
    int first = 1;
    cJSON_ArrayForEach(m, v)
    {
        if (!first)
            sb_add(s, " ");
        first = 0;
        if (cJSON_IsObject(v) && m->string)
            sb_add(s, "%s=", m->string);
        brief_val(s, m, depth + 1);
    }
}

/* A JSON value without the quotes: {"a":1,"b":"x"} is {a=1 b=x}. */
void brief_val(sb *s, const cJSON *v, int depth)
{
    double d;
    if (depth > 4) {
        sb_add(s, "\xE2\x80\xA6");
    } else if (jget_num_ok(v, &d)) {
        sb_num(s, d);
    } else if (cJSON_IsString(v)) {
        sb_add(s, "%s", v->valuestring);
    } else if (cJSON_IsBool(v)) {
        sb_add(s, "%s", cJSON_IsTrue(v) ? "true" : "false");
    } else if (cJSON_IsArray(v)) {
        sb_add(s, "[");
        gen_members(s, v, depth);
        sb_add(s, "]");
    } else if (cJSON_IsObject(v)) {
        sb_add(s, "{");
        gen_members(s, v, depth);
        sb_add(s, "}");
    } else {
        sb_add(s, "null");
    }
}

/* The members of o not in skip, as k=v, each after sep. */
static void gen_rest(sb *s, const cJSON *o, const char *const *skip, const char *sep)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, o)
    {
        if (!m->string || jget_one_of(m->string, skip))
            continue;
        sb_add(s, "%s%s=", sep, m->string);
        brief_val(s, m, 1);
    }
}

static void flag(sb *s, const cJSON *o, const char *k, const char *name)
{
    double d;
    if (jget_num(o, k, &d)) {
        sb_sep(s);
        sb_add(s, "%s=", name);
        sb_num(s, d);
    }
}

/* The frame's key as a word: "Request", "Reply", ... */
static void frame_key(sb *s, const cJSON *k)
{
    const char *ks = cJSON_IsString(k) ? k->valuestring : NULL;
    if (ks && !strcmp(ks, "request"))
        sb_add(s, "Request");
    else if (ks && !strcmp(ks, "reply"))
        sb_add(s, "Reply");
    else if (ks && !strcmp(ks, "rtr2007"))
        sb_add(s, "RtR frame (2007)");
    else if (ks && !strcmp(ks, "startkey"))
        sb_add(s, "Start Key");
    else if (ks)
        sb_add(s, "frame key \"%s\"", ks);
    else if (k) {
        sb_add(s, "frame key=");
        brief_val(s, k, 1);
    } else
        sb_add(s, "frame");
}

/* The Enhanced MPA fields (RFC 6581, section 5): ", A=1 B=0 C=1 D=0
 * IRD=16 ORD=16". */
static void frame_enhanced(sb *s, const cJSON *e)
{
    if (cJSON_IsObject(e)) {
        static const char *const eknown[] = {"a", "b", "c", "d", "ird", "ord", NULL};
        sb_add(s, ",");
        flag(s, e, "a", "A");
        flag(s, e, "b", "B");
        flag(s, e, "c", "C");
        flag(s, e, "d", "D");
        flag(s, e, "ird", "IRD");
        flag(s, e, "ord", "ORD");
        gen_rest(s, e, eknown, " ");
    } else if (e) {
        sb_sep(s);
        sb_add(s, "enhanced=");
        brief_val(s, e, 1);
    }
}

/* The private data: its first characters, or its length. */
static void frame_pd(sb *s, const cJSON *pd)
{
    if (cJSON_IsString(pd)) {
        sb_add(s, ", PD \"%.24s%s\"", pd->valuestring, strlen(pd->valuestring) > 24 ? "\xE2\x80\xA6" : "");
    } else if (jget_str(pd, "hex")) {
        sb_add(s, ", PD %zu octets", strlen(jget_str(pd, "hex")) / 2);
    } else if (pd) {
        sb_add(s, ", PD ");
        brief_val(s, pd, 1);
    }
}

/* A startup frame as sent or received: "Request Rev 2 M=0 C=1 R=0 S=1,
 * A=1 B=0 C=1 D=0 IRD=16 ORD=16, PD_Length 4". */
static void sum_frame(sb *s, const cJSON *f)
{
    static const char *const known[] = {"key", "rev", "m", "c", "r", "s", "res", "enhanced", "pd_length",
                                        "pd_user_length", "private_data", NULL};
    frame_key(s, jget(f, "key"));
    double d;
    if (jget_num(f, "rev", &d)) {
        sb_add(s, " Rev ");
        sb_num(s, d);
    }
    if (jget(f, "rev") && !cJSON_IsNumber(jget(f, "rev"))) {
        sb_add(s, " Rev ");
        brief_val(s, jget(f, "rev"), 1);
    }
    flag(s, f, "m", "M");
    flag(s, f, "c", "C");
    flag(s, f, "r", "R");
    flag(s, f, "s", "S");
    if (jget_num(f, "res", &d) && d != 0)
        flag(s, f, "res", "Res");
    frame_enhanced(s, jget(f, "enhanced"));
    if (jget_num(f, "pd_length", &d) && d != 0) {
        sb_add(s, ", PD_Length ");
        sb_num(s, d);
    }
    frame_pd(s, jget(f, "private_data"));
    gen_rest(s, f, known, ", ");
}

/* What the FPDU carries: "TERMINATE layer 2, etype 0, code 2", "RTR
 * (write)", "FPDU send MSN 1". */
static void fpdu_head(sb *s, const char *kind, const cJSON *f)
{
    const char *rdmap = jget_str(f, "rdmap");
    const char *rtr = jget_str(f, "rtr");
    double d;
    if ((rdmap && !strcmp(rdmap, "terminate")) || !strcmp(kind, "terminate")) {
        sb_add(s, "TERMINATE");
        static const char *const tk[] = {"layer", "etype", "code"};
        for (int i = 0; i < 3; i++)
            if (jget_num(f, tk[i], &d)) {
                sb_add(s, "%s%s ", i ? ", " : " ", tk[i]);
                sb_num(s, d);
            }
    } else if (rtr && strcmp(rtr, "none")) {
        sb_add(s, "RTR (%s)", rtr);
    } else if (rdmap) {
        sb_add(s, "FPDU %s", rdmap);
        if (jget_num(f, "tagged", &d) && d == 0 && jget_num(f, "msn", &d)) {
            sb_add(s, " MSN ");
            sb_num(s, d);
        }
    } else {
        sb_add(s, "FPDU");
    }
}

/* An FPDU: "Send MSN 1, 100 octets, ULPDU 118, CRC good", "RTR (write)",
 * "TERMINATE layer 2 etype 0 code 2". */
static void sum_fpdu(sb *s, const char *kind, const cJSON *f)
{
    static const char *const known[] = {"rdmap", "rtr", "tagged", "last", "qn", "msn", "mo", "stag", "to",
                                        "dv", "rv", "payload_length", "ulpdu_length", "crc", "markers",
                                        "layer", "etype", "code", "payload", NULL};
    double d;
    fpdu_head(s, kind, f);
    if (jget_num(f, "payload_length", &d) && d != 0) {
        sb_add(s, ", ");
        sb_num(s, d);
        sb_add(s, " octets");
    }
    if (jget_num(f, "ulpdu_length", &d)) {
        sb_add(s, ", ULPDU ");
        sb_num(s, d);
    }
    const cJSON *crc = jget(f, "crc");
    if (cJSON_IsString(crc))
        sb_add(s, ", CRC %s", crc->valuestring);
    else if (cJSON_IsTrue(crc))
        sb_add(s, ", CRC");
    else if (cJSON_IsFalse(crc))
        sb_add(s, ", no CRC");
    const cJSON *mk = jget(f, "markers");
    if (cJSON_IsTrue(mk) || (jget_num(f, "markers", &d) && d != 0))
        sb_add(s, ", markers");
    gen_rest(s, f, known, ", ");
}

/* "KIND {json}..." at t: the kind word, the parsed JSON (to be deleted)
 * when one follows, and where the text goes on. */
static cJSON *split_obj(const char *t, char *kind, size_t kn, const char **rest)
{
    size_t i = 0;
    while (t[i] && t[i] != ' ' && t[i] != '{' && t[i] != '[' && i + 1 < kn) {
        kind[i] = t[i];
        i++;
    }
    kind[i] = 0;
    while (t[i] && t[i] != ' ' && t[i] != '{' && t[i] != '[')
        i++;
    const char *p = t + i;
    while (*p == ' ')
        p++;
    *rest = p;
    if (*p == '{' || *p == '[') {
        const char *end = NULL;
        cJSON *j = cJSON_ParseWithOpts(p, &end, 0);
        if (j) {
            *rest = end;
            return j;
        }
    }
    return NULL;
}

/* The text of a thing sent or received (after "send " or "got "), short. */
void brief_thing(sb *s, const char *t)
{
    char kind[32];
    const char *rest;
    cJSON *j = split_obj(t, kind, sizeof kind, &rest);
    if (!strcmp(kind, "frame") && cJSON_IsObject(j)) {
        sum_frame(s, j);
    } else if ((!strcmp(kind, "fpdu") || !strcmp(kind, "terminate")) && cJSON_IsObject(j)) {
        sum_fpdu(s, kind, j);
    } else if (!strcmp(kind, "fin") || !strcmp(kind, "rst")) {
        sb_add(s, "%s", kind[0] == 'f' ? "FIN" : "RST");
    } else if (j) {
        sb_add(s, "%s ", kind);
        brief_val(s, j, 0);
    } else {
        /* no JSON: the text as it is, up to " after " */
        const char *a = strstr(t, " after ");
        size_t n = a ? (size_t)(a - t) : strlen(t);
        sb_add(s, "%.*s", (int)(n > 200 ? 200 : n), t);
    }
    cJSON_Delete(j);
}

/* An expectation (after "expect "), its JSON without quotes. */
void brief_expect(sb *s, const char *t)
{
    char kind[32];
    const char *rest;
    cJSON *j = split_obj(t, kind, sizeof kind, &rest);
    if (j) {
        sb_add(s, "%s ", kind);
        brief_val(s, j, 0);
        sb_add(s, "%s", rest);
        cJSON_Delete(j);
    } else {
        sb_add(s, "%s", t);
    }
}

const char *brief_after(const char *s, const char *w)
{
    size_t n = strlen(w);
    return s && !strncmp(s, w, n) ? s + n : NULL;
}

/* What went wrong in a step, in a few words: mpa-inject's details end
 * in "after N ms: WHY"; else the kinds expected and received. */
void brief_headline(char *b, size_t n, const char *what, const char *detail, vd v)
{
    const char *why = detail ? strstr(detail, " ms: ") : NULL;
    const char *got = brief_after(detail, "got ");
    const char *exp = brief_after(what, "expect ");
    if (why) {
        snprintf(b, n, "%s", why + 5);
    } else if (v == VD_ERROR) {
        snprintf(b, n, "%s", detail && *detail ? detail : "the step could not be done");
    } else if (got && exp) {
        char ek[32], gk[32];
        const char *rest;
        cJSON_Delete(split_obj(exp, ek, sizeof ek, &rest));
        cJSON_Delete(split_obj(got, gk, sizeof gk, &rest));
        if (!strcmp(gk, "nothing"))
            snprintf(b, n, "expected %s, %s", ek, detail);
        else
            snprintf(b, n, "expected %s, got %s", ek, gk);
    } else {
        snprintf(b, n, "the device deviated here");
    }
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A failing step in words (words.h). */
#include "words.h"

#include <stdio.h>
#include <string.h>

#include "jget.h"
#include "sb.h"

/* A key as the RFCs name the frame. */
static const char *key_words(const char *k)
{
    return !k                       ? "an MPA frame"
           : !strcmp(k, "request")  ? "a Request"
           : !strcmp(k, "reply")    ? "a Reply"
           : !strcmp(k, "rtr2007")  ? "a frame with the 2007 draft's key"
                                    : "an MPA frame with an unknown key";
}

/* o's number k into s as " NAME=V" (sep before it), when it is there. */
static void field(sb *s, const cJSON *o, const char *k, const char *name, const char *sep)
{
    double d;
    if (!jget_num(o, k, &d))
        return;
    sb_add(s, "%s%s", s->n && s->b[s->n - 1] != '(' ? sep : "", name);
    sb_num(s, d);
}

/* A run of fields of o into s: keys k, names nm; sep before the first. */
static void fields(sb *s, const cJSON *o, const char *const *k, const char *const *nm, unsigned n, const char *sep)
{
    for (unsigned i = 0; i < n; i++)
        field(s, o, k[i], nm[i], i ? " " : sep);
}

static void frame_words(sb *s, const cJSON *o)
{
    static const char *const k1[] = {"m", "c", "r", "s", "res"}, *const n1[] = {"M=", "C=", "R=", "S=", "Res="};
    static const char *const k2[] = {"a", "b", "c", "d"}, *const n2[] = {"A=", "B=", "C=", "D="};
    sb_add(s, "%s (", key_words(jget_str(o, "key")));
    field(s, o, "rev", "Rev ", ", ");
    fields(s, o, k1, n1, 5, ", ");
    const cJSON *e = jget(o, "enhanced");
    if (cJSON_IsObject(e)) {
        field(s, e, "ird", "IRD ", ", ");
        field(s, e, "ord", "ORD ", " ");
        fields(s, e, k2, n2, 4, ", ");
    }
    double pd;
    if (jget_num(o, "pd_length", &pd)) {
        sb_add(s, ", ");
        sb_num(s, pd);
        sb_add(s, " octets of private data");
    }
    sb_add(s, ")");
}

static void fpdu_words(sb *s, const cJSON *o, int term)
{
    if (term) {
        sb_add(s, "a TERMINATE (");
        field(s, o, "layer", "layer ", ", ");
        field(s, o, "etype", "type ", ", ");
        field(s, o, "code", "code ", ", ");
        sb_add(s, ")");
        return;
    }
    const char *op = jget_str(o, "rdmap");
    sb_add(s, "an FPDU (");
    if (op)
        sb_add(s, "%s", op);
    field(s, o, "ulpdu_length", "ULPDU length ", ", ");
    const char *crc = jget_str(o, "crc");
    if (crc)
        sb_add(s, ", CRC %s", crc);
    field(s, o, "markers", "markers ", ", ");
    sb_add(s, ")");
}

void words_frame_text(const cJSON *frame, char *out, size_t n)
{
    sb b = {.n = 0};
    b.b[0] = 0;
    frame_words(&b, frame);
    snprintf(out, n, "%s", b.b);
}

int words_obs(const char *s, const char **rest, char *out, size_t n)
{
    static const struct {
        const char *word, *text;
    } plain[] = {{"fin", "a FIN (the device closed the connection)"}, {"rst", "a RST (the device reset the connection)"}};
    *rest = s;
    for (unsigned i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        size_t l = strlen(plain[i].word);
        if (!strncmp(s, plain[i].word, l) && (s[l] == 0 || s[l] == ' ' || s[l] == ',' || s[l] == ':')) {
            snprintf(out, n, "%s", plain[i].text);
            *rest = s + l;
            return 0;
        }
    }
    static const char *const kinds[] = {"frame {", "fpdu {", "terminate {", "octets that are not MPA {"};
    for (unsigned i = 0; i < 4; i++) {
        size_t l = strlen(kinds[i]);
        if (strncmp(s, kinds[i], l))
            continue;
        const char *end = NULL;
        cJSON *o = cJSON_ParseWithOpts(s + l - 1, &end, 0);
        if (!o)
            break;
        sb b = {.n = 0};
        b.b[0] = 0;
        if (i == 0)
            frame_words(&b, o);
        else if (i < 3)
            fpdu_words(&b, o, i == 2);
        else {
            sb_add(&b, "octets that are not MPA (");
            field(&b, o, "length", "", "");
            sb_add(&b, " octets: %s)", jget_str_or(o, "why", "?"));
        }
        cJSON_Delete(o);
        snprintf(out, n, "%s", b.b);
        *rest = end;
        return 0;
    }
    snprintf(out, n, "%s", s);
    return -1;
}

cJSON *words_frame(const char *detail, const char *key)
{
    const char *p = detail ? strstr(detail, "got frame {") : NULL;
    if (!p)
        return NULL;
    cJSON *o = cJSON_ParseWithOpts(p + strlen("got frame "), NULL, 0);
    const char *k = jget_str(o, "key");
    if (k && !strcmp(k, key))
        return o;
    cJSON_Delete(o);
    return NULL;
}

/* What the step expected, from its "what": "expect frame {...} within
 * 2000 ms" becomes "a Reply". */
static void expected_words(const char *what, char *out, size_t n)
{
    out[0] = 0;
    if (!what || strncmp(what, "expect ", 7))
        return;
    const char *p = what + 7, *rest;
    if (!strncmp(p, "any_of [", 8)) {
        snprintf(out, n, "one of several answers");
        return;
    }
    if (!strncmp(p, "silence", 7)) {
        snprintf(out, n, "nothing (silence)");
        return;
    }
    char w[300];
    if (words_obs(p, &rest, w, sizeof w))
        return;
    /* the constraints are what the frame was to meet, not what it had:
     * name the kind only */
    char *paren = strstr(w, " (");
    if (paren)
        *paren = 0;
    snprintf(out, n, "%s", w);
}

/* "ID: text; ID2: text2" (libmpa's findings as the runner lists them)
 * into s as "text (ID); text2 (ID2)". */
static void findings_words(sb *s, const char *f)
{
    while (*f) {
        const char *colon = strstr(f, ": "), *semi;
        if (!colon) {
            sb_add(s, "%s", f);
            return;
        }
        semi = strstr(colon, "; ");
        size_t tl = semi ? (size_t)(semi - colon - 2) : strlen(colon + 2);
        sb_add(s, "%.*s (%.*s)", (int)tl, colon + 2, (int)(colon - f), f);
        if (!semi)
            return;
        sb_add(s, "; ");
        f = semi + 2;
    }
}

void words_step(const char *what, const char *detail, char *out, size_t n)
{
    char exp[300], got[400];
    expected_words(what, exp, sizeof exp);
    const char *d = detail ? detail : "";
    sb s = {.n = 0};
    s.b[0] = 0;
    if (!strncmp(d, "got ", 4) && strncmp(d, "got nothing", 11)) {
        const char *rest;
        words_obs(d + 4, &rest, got, sizeof got);
        /* " after 0.1 ms: a is 0, expected 1" or ", but libmpa found ..." */
        const char *why = strstr(rest, " ms: ");
        const char *found = strstr(rest, ", but libmpa found ");
        if (!why)
            why = strstr(rest, "(already received): ");
        if (why && (!found || why < found)) {
            const char *w = strchr(why, ':') + 2;
            sb_add(&s, "%.*s; ", (int)(found ? (size_t)(found - w) : strlen(w)), w);
        } else if (found) {
            findings_words(&s, found + strlen(", but libmpa found "));
            sb_add(&s, "; ");
        } else if (exp[0]) {
            sb_add(&s, "expected %s; ", exp);
        }
        sb_add(&s, "the device sent %s", got);
    } else {
        if (exp[0])
            sb_add(&s, "expected %s; ", exp);
        sb_add(&s, "%s", d);
    }
    snprintf(out, n, "%s", s.b);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report's shape, checked against docs/mpa-conform-json.md (check.h). */
#include "check.h"

#include <stdarg.h>
#include <string.h>

#include "esc.h"
#include "jget.h"
#include "verdict.h"

void notes_add(notes *ns, const char *fmt, ...)
{
    if (ns->n == NOTES_MAX) {
        ns->more++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ns->t[ns->n++], sizeof ns->t[0], fmt, ap);
    va_end(ap);
}

void notes_put(FILE *o, const notes *ns, const char *what)
{
    if (!ns->n)
        return;
    html_printf(o, "<div class=\"problems\"><b>%s</b><ul>", what);
    for (unsigned i = 0; i < ns->n; i++) {
        fputs("<li>", o);
        html_esc(o, ns->t[i]);
        fputs("</li>", o);
    }
    if (ns->more)
        html_printf(o, "<li>and %u more</li>", ns->more);
    fputs("</ul></div>\n", o);
}

enum { T_STR = 1, T_NUM = 2, T_ARR = 4, T_OBJ = 8, T_NULL = 16, T_BOOL = 32 };

static int type_ok(const cJSON *v, int types)
{
    return ((types & T_STR) && cJSON_IsString(v)) || ((types & T_NUM) && cJSON_IsNumber(v)) ||
           ((types & T_ARR) && cJSON_IsArray(v)) || ((types & T_OBJ) && cJSON_IsObject(v)) ||
           ((types & T_NULL) && cJSON_IsNull(v)) || ((types & T_BOOL) && cJSON_IsBool(v));
}

static const char *type_words(int types)
{
    switch (types & ~T_NULL) {
    case T_STR: return "a string";
    case T_NUM: return "a number";
    case T_ARR: return "an array";
    case T_OBJ: return "an object";
    case T_BOOL: return "a boolean";
    default: return "another type";
    }
}

/* Notes key k of o when it is missing (and required) or of another type. */
static void want(notes *ns, const cJSON *o, const char *where, const char *k, int types, int required)
{
    const cJSON *v = jget(o, k);
    if (!v) {
        if (required)
            notes_add(ns, "%s\"%s\" is missing", where, k);
        return;
    }
    if (!type_ok(v, types))
        notes_add(ns, "%s\"%s\" is %s, not %s", where, k, jget_type(v), type_words(types));
}

void check_report(notes *ns, const cJSON *rep)
{
    if (!cJSON_IsObject(rep))
        notes_add(ns, "the report is %s, not a JSON object", jget_type(rep));
    want(ns, rep, "", "tool", T_STR, 1);
    want(ns, rep, "", "version", T_STR, 1);
    want(ns, rep, "", "started", T_STR, 1);
    want(ns, rep, "", "duration_ms", T_NUM, 0);
    want(ns, rep, "", "device", T_OBJ, 1);
    want(ns, rep, "", "selection", T_ARR, 0);
    want(ns, rep, "", "suites", T_ARR, 0);
    want(ns, rep, "", "tests", T_ARR, 1);
    want(ns, rep, "", "summary", T_OBJ, 0);
    const cJSON *dev = jget(rep, "device");
    if (cJSON_IsObject(dev)) {
        want(ns, dev, "device: ", "address", T_STR | T_NULL, 0);
        want(ns, dev, "device: ", "listen", T_STR | T_NULL, 0);
        want(ns, dev, "device: ", "transport", T_STR, 1);
        want(ns, dev, "device: ", "caps", T_ARR, 0);
        want(ns, dev, "device: ", "command", T_STR | T_NULL, 0);
    }
}

static void check_step(notes *ns, const cJSON *st, int i)
{
    char where[32];
    snprintf(where, sizeof where, "step %d: ", i);
    if (!cJSON_IsObject(st)) {
        notes_add(ns, "step %d is %s, not an object", i, jget_type(st));
        return;
    }
    want(ns, st, where, "verb", T_STR, 1);
    want(ns, st, where, "verdict", T_STR, 1);
    want(ns, st, where, "what", T_STR, 0);
    want(ns, st, where, "detail", T_STR, 0);
    want(ns, st, where, "t_ms", T_NUM, 0);
    want(ns, st, where, "took_ms", T_NUM, 0);
    const char *sv = jget_str(st, "verdict");
    vd svd = vd_of(sv);
    if (sv && (svd == VD_UNKNOWN || svd == VD_SKIP))
        notes_add(ns, "step %d: \"verdict\" is \"%.40s\", not one of done, pass, fail, error, not run", i, sv);
    static const char *const verbs[] = {"open", "send", "expect", "sleep", "close", "abort", NULL};
    const char *verb = jget_str(st, "verb");
    if (verb && !jget_one_of(verb, verbs))
        notes_add(ns, "step %d: unknown verb \"%.40s\"", i, verb);
}

void check_test(notes *ns, const cJSON *t)
{
    if (!cJSON_IsObject(t)) {
        notes_add(ns, "the test is %s, not an object", jget_type(t));
        return;
    }
    want(ns, t, "", "id", T_STR, 1);
    want(ns, t, "", "class", T_STR, 1);
    want(ns, t, "", "verdict", T_STR, 1);
    want(ns, t, "", "description", T_STR, 0);
    want(ns, t, "", "device_role", T_STR, 0);
    want(ns, t, "", "requirements", T_ARR, 0);
    want(ns, t, "", "quirks", T_ARR, 0);
    want(ns, t, "", "steps", T_ARR, 1);
    want(ns, t, "", "findings", T_ARR, 0);
    want(ns, t, "", "duration_ms", T_NUM, 0);
    want(ns, t, "", "reason", T_STR, 0);
    want(ns, t, "", "decided_at_step", T_NUM, 0);
    want(ns, t, "", "trace", T_STR | T_NULL, 0);
    const char *c = jget_str(t, "class");
    if (c && strcmp(c, "M") && strcmp(c, "FYI"))
        notes_add(ns, "\"class\" is \"%.40s\", neither \"M\" nor \"FYI\": counted as FYI", c);
    const char *vs = jget_str(t, "verdict");
    vd v = vd_of(vs);
    if (vs && (v == VD_UNKNOWN || v == VD_DONE || v == VD_NOTRUN))
        notes_add(ns, "\"verdict\" is \"%.40s\", not one of pass, fail, error, skip", vs);
    if ((v == VD_FAIL || v == VD_ERROR || v == VD_SKIP) && !jget_text(t, "reason"))
        notes_add(ns, "a %s without a \"reason\"", vd_tab[v].json);
    const cJSON *st;
    int i = 0;
    cJSON_ArrayForEach(st, jget(t, "steps"))
        check_step(ns, st, ++i);
}

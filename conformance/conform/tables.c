/* The tables of a test's section (tables.h). */
#include "tables.h"

#include <string.h>

#include "brief.h"
#include "esc.h"
#include "jget.h"
#include "sb.h"
#include "verdict.h"

/* A list of strings, comma-separated; other members shown as JSON. */
void tables_list(FILE *o, const cJSON *a, const char *empty)
{
    if (!cJSON_IsArray(a) || !cJSON_GetArraySize(a)) {
        fputs("<span class=\"mute\">", o);
        fputs(empty, o);
        fputs("</span>", o);
        return;
    }
    const cJSON *m;
    int first = 1;
    cJSON_ArrayForEach(m, a)
    {
        if (!first)
            fputs(", ", o);
        first = 0;
        if (cJSON_IsString(m)) {
            html_esc(o, m->valuestring);
        } else {
            sb s = {.n = 0};
            brief_val(&s, m, 0);
            html_esc(o, s.b);
        }
    }
}

/* Requirement ids of a test: objects with "id", or plain strings. */
void tables_req_ids(FILE *o, const cJSON *reqs)
{
    const cJSON *r;
    int first = 1;
    cJSON_ArrayForEach(r, reqs)
    {
        const char *id = cJSON_IsString(r) ? r->valuestring : jget_str(r, "id");
        if (!id)
            continue;
        if (!first)
            fputs(" ", o);
        first = 0;
        fputs("<span class=\"rid\">", o);
        html_esc(o, id);
        fputs("</span>", o);
    }
    if (first)
        fputs("&ndash;", o);
}

void tables_requirements(FILE *o, const cJSON *reqs)
{
    if (!cJSON_IsArray(reqs) || !cJSON_GetArraySize(reqs)) {
        fputs("<p class=\"mute\">The test names no requirement.</p>\n", o);
        return;
    }
    fputs("<table class=\"reqt\"><tr><th>Requirement</th><th>Level</th><th>Source</th><th>Text</th></tr>\n", o);
    const cJSON *r;
    cJSON_ArrayForEach(r, reqs)
    {
        const char *id = cJSON_IsString(r) ? r->valuestring : jget_str(r, "id");
        const char *lv = jget_str(r, "level");
        fputs("<tr><td><code>", o);
        html_esc(o, id ? id : "?");
        fputs("</code></td><td>", o);
        if (lv) {
            const char *lc = !strcmp(lv, "MUST") ? "MUST" : !strcmp(lv, "SHOULD") ? "SHOULD" : "other";
            html_printf(o, "<span class=\"lvl lvl-%s\">", lc);
            html_esc(o, lv);
            fputs("</span>", o);
        } else {
            fputs("&ndash;", o);
        }
        fputs("</td><td class=\"mute\">", o);
        html_esc(o, jget_text(r, "clause") ? jget_text(r, "clause") : "");
        fputs("</td><td>", o);
        if (jget_text(r, "text"))
            html_esc(o, jget_text(r, "text"));
        else
            fputs("<span class=\"mute\">(no text in the report)</span>", o);
        fputs("</td></tr>\n", o);
    }
    fputs("</table>\n", o);
}

void tables_quirks(FILE *o, const cJSON *qs)
{
    if (!cJSON_IsArray(qs) || !cJSON_GetArraySize(qs))
        return;
    fputs("<h3>Quirks</h3>\n", o);
    const cJSON *q;
    cJSON_ArrayForEach(q, qs)
    {
        fputs("<div class=\"quirk\"><span class=\"ql\">QUIRK</span><code>", o);
        html_esc(o, jget_text(q, "id") ? jget_text(q, "id") : cJSON_IsString(q) ? q->valuestring : "?");
        fputs("</code> ", o);
        if (jget_text(q, "text"))
            html_esc(o, jget_text(q, "text"));
        fputs("</div>\n", o);
    }
}

/* Row i (counted from 1) of the steps table. */
static void step_tr(FILE *o, const cJSON *st, int i)
{
    double d;
    int idx = jget_int(st, "index", i);
    const char *vs = jget_str(st, "verdict");
    vd v = vd_of(vs);
    html_printf(o, "<tr class=\"r-%s\"><td class=\"n\">%d</td><td>", vd_tab[v].cls, idx);
    html_esc(o, jget_text(st, "verb") ? jget_text(st, "verb") : "?");
    fputs("</td><td>", o);
    vd_badge(o, v, vs);
    fputs("</td><td class=\"t\">", o);
    html_esc(o, jget_text(st, "what") ? jget_text(st, "what") : "");
    const char *nt = jget_text(st, "note");
    if (nt) {
        fputs("<span class=\"note\">", o);
        html_esc(o, nt);
        fputs("</span>", o);
    }
    fputs("</td><td class=\"d\">", o);
    html_esc(o, jget_text(st, "detail") ? jget_text(st, "detail") : "");
    const cJSON *rq = jget(st, "requirements");
    if (cJSON_IsArray(rq) && cJSON_GetArraySize(rq)) {
        fputs("<span class=\"note reqs\">", o);
        tables_req_ids(o, rq);
        fputs("</span>", o);
    }
    fputs("</td><td class=\"n mute\">", o);
    if (jget_num(st, "t_ms", &d)) {
        char tb[32];
        sb_fmt_ms(tb, sizeof tb, d);
        fputs(tb, o);
    }
    fputs("</td></tr>\n", o);
}

void tables_steps(FILE *o, const cJSON *steps)
{
    if (!cJSON_IsArray(steps) || !cJSON_GetArraySize(steps)) {
        fputs("<p class=\"mute\">No steps.</p>\n", o);
        return;
    }
    fputs("<table class=\"steps\"><tr><th class=\"n\">#</th><th>Verb</th><th>Verdict</th><th>What</th>"
          "<th>Detail</th><th class=\"n\">At</th></tr>\n",
          o);
    const cJSON *st;
    int i = 0;
    cJSON_ArrayForEach(st, steps)
        step_tr(o, st, ++i);
    fputs("</table>\n", o);
}

/* One row of the findings table. */
static void finding_tr(FILE *o, const cJSON *f)
{
    const char *sev = jget_str(f, "severity");
    const char *sc = sev && !strcmp(sev, "error") ? "fail" : sev && !strcmp(sev, "warning") ? "error" : "skip";
    html_printf(o, "<tr><td><span class=\"v v-%s\">", sc);
    html_esc(o, sev ? sev : "?");
    fputs("</span></td><td><code>", o);
    html_esc(o, jget_text(f, "id") ? jget_text(f, "id") : "?");
    fputs("</code></td><td>", o);
    const char *from = jget_str(f, "from");
    html_esc(o, from && !strcmp(from, "injector") ? "mpa-conform"
                : from && !strcmp(from, "device") ? "the device"
                : from                            ? from
                                                  : "?");
    if (cJSON_IsTrue(jget(f, "expected")))
        fputs(" <span class=\"mute\">(deliberate: the test sends it)</span>", o);
    double d;
    fputs("</td><td class=\"n\">", o);
    if (jget_num(f, "stream_offset", &d))
        html_printf(o, "%.0f", d);
    fputs("</td><td class=\"n\">", o);
    if (jget_num(f, "t_ms", &d)) {
        char tb[32];
        sb_fmt_ms(tb, sizeof tb, d);
        fputs(tb, o);
    }
    fputs("</td><td>", o);
    html_esc(o, jget_text(f, "message") ? jget_text(f, "message") : "");
    fputs("</td></tr>\n", o);
}

void tables_findings(FILE *o, const cJSON *fs)
{
    if (!cJSON_IsArray(fs) || !cJSON_GetArraySize(fs)) {
        fputs("<p class=\"mute\">libmpa found nothing to report in either direction.</p>\n", o);
        return;
    }
    fputs("<table class=\"findings\"><tr><th>Severity</th><th>Finding</th><th>In octets of</th>"
          "<th class=\"n\">Offset</th><th class=\"n\">At</th><th>Message</th></tr>\n",
          o);
    const cJSON *f;
    cJSON_ArrayForEach(f, fs)
        finding_tr(o, f);
    fputs("</table>\n", o);
}

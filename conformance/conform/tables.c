/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tables of a test's section (tables.h). */
#include "tables.h"

#include <string.h>

#include "brief.h"
#include "esc.h"
#include "jget.h"
#include "sb.h"
#include "verdict.h"

/* A list of strings, comma-separated; other members shown as JSON. */
/* A row of a table: member m of the array, the i-th (from 1). */
typedef void row_fn(FILE *o, const cJSON *m, int i);

/* A table: its header row (our markup, opening the table), how a row is
 * written, and what is said instead when there is no row. */
typedef struct table_def {
    const char *head;
    row_fn *row;
    const char *none;
} table_def;

/* The table of the members of a; td->none when a is not a non-empty
 * array. */
static void put_table(FILE *o, const cJSON *a, const table_def *td)
{
    if (!cJSON_IsArray(a) || !cJSON_GetArraySize(a)) {
        fputs(td->none, o);
        return;
    }
    fputs(td->head, o);
    const cJSON *m;
    int i = 0;
    cJSON_ArrayForEach(m, a)
        td->row(o, m, ++i);
    fputs("</table>\n", o);
}

int tables_ms(FILE *o, const cJSON *obj, const char *k)
{
    double d;
    if (!jget_num(obj, k, &d))
        return 0;
    char tb[32];
    sb_fmt_ms(tb, sizeof tb, d);
    fputs(tb, o);
    return 1;
}

void tables_text(FILE *o, const cJSON *obj, const char *k, const char *missing)
{
    if (jget_text(obj, k))
        html_esc(o, jget_text(obj, k));
    else
        fputs(missing, o);
}

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

/* A requirement: an object with "id", "level", "clause", "text", or
 * only its id as a string. */
static void req_tr(FILE *o, const cJSON *r, int i)
{
    (void)i;
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
    tables_text(o, r, "clause", "");
    fputs("</td><td>", o);
    tables_text(o, r, "text", "<span class=\"mute\">(no text in the report)</span>");
    fputs("</td></tr>\n", o);
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
        tables_text(o, q, "text", "");
        fputs("</div>\n", o);
    }
}

/* Row i (counted from 1) of the steps table. */
static void step_tr(FILE *o, const cJSON *st, int i)
{
    int idx = jget_int(st, "index", i);
    const char *vs = jget_str(st, "verdict");
    vd v = vd_of(vs);
    html_printf(o, "<tr class=\"r-%s\"><td class=\"n\">%d</td><td>", vd_tab[v].cls, idx);
    tables_text(o, st, "verb", "?");
    fputs("</td><td>", o);
    vd_badge(o, v, vs);
    fputs("</td><td class=\"t\">", o);
    tables_text(o, st, "what", "");
    const char *nt = jget_text(st, "note");
    if (nt) {
        fputs("<span class=\"note\">", o);
        html_esc(o, nt);
        fputs("</span>", o);
    }
    fputs("</td><td class=\"d\">", o);
    tables_text(o, st, "detail", "");
    const cJSON *rq = jget(st, "requirements");
    if (cJSON_IsArray(rq) && cJSON_GetArraySize(rq)) {
        fputs("<span class=\"note reqs\">", o);
        tables_req_ids(o, rq);
        fputs("</span>", o);
    }
    fputs("</td><td class=\"n mute\">", o);
    tables_ms(o, st, "t_ms");
    fputs("</td></tr>\n", o);
}

/* One row of the findings table. */
static void finding_tr(FILE *o, const cJSON *f, int i)
{
    (void)i;
    const char *sev = jget_str(f, "severity");
    const char *sc = sev && !strcmp(sev, "error") ? "fail" : sev && !strcmp(sev, "warning") ? "error" : "skip";
    html_printf(o, "<tr><td><span class=\"v v-%s\">", sc);
    html_esc(o, sev ? sev : "?");
    fputs("</span></td><td><code>", o);
    tables_text(o, f, "id", "?");
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
    tables_ms(o, f, "t_ms");
    /* The values of this instance, the rule's text as its title (reports
     * of mpa-inject before "detail" had the values in "message"). */
    fputs("</td><td", o);
    if (jget_text(f, "detail")) {
        fputs(" title=\"", o);
        tables_text(o, f, "message", "");
        fputs("\">", o);
        tables_text(o, f, "detail", "");
    } else {
        fputs(">", o);
        tables_text(o, f, "message", "");
    }
    fputs("</td></tr>\n", o);
}

static const table_def tables[] = {
    [TABLE_REQUIREMENTS] = {
        "<table class=\"reqt\"><tr><th>Requirement</th><th>Level</th><th>Source</th><th>Text</th></tr>\n",
        req_tr,
        "<p class=\"mute\">The test names no requirement.</p>\n",
    },
    [TABLE_STEPS] = {
        "<table class=\"steps\"><tr><th class=\"n\">#</th><th>Verb</th><th>Verdict</th><th>What</th>"
        "<th>Detail</th><th class=\"n\">At</th></tr>\n",
        step_tr,
        "<p class=\"mute\">No steps.</p>\n",
    },
    [TABLE_FINDINGS] = {
        "<table class=\"findings\"><tr><th>Severity</th><th>Finding</th><th>In octets of</th>"
        "<th class=\"n\">Offset</th><th class=\"n\">At</th><th>Detail</th></tr>\n",
        finding_tr,
        "<p class=\"mute\">libmpa found nothing to report in either direction.</p>\n",
    },
};

void tables_put(FILE *o, table_kind k, const cJSON *a)
{
    put_table(o, a, &tables[k]);
}

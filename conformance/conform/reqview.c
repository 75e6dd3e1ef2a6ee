/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The HTML report's requirement views (reqview.h). */
#include "reqview.h"

#include <string.h>

#include "esc.h"
#include "jget.h"
#include "sb.h"
#include "tables.h"
#include "verdict.h"
#include "words.h"

/* The ids of a string array as a list of links to their coverage rows. */
static void id_links(FILE *o, const cJSON *arr, const char *none)
{
    const cJSON *x;
    int n = 0;
    cJSON_ArrayForEach(x, arr)
    {
        if (!cJSON_IsString(x))
            continue;
        fputs(n++ ? ", " : "", o);
        fputs("<a class=\"rid\" href=\"#req-", o);
        html_esc(o, x->valuestring);
        fputs("\">", o);
        html_esc(o, x->valuestring);
        fputs("</a>", o);
    }
    if (!n)
        html_esc(o, none);
}

/* The device's frame as it announced itself, and the test it came from. */
static void put_frame(FILE *o, const cJSON *an)
{
    char w[600];
    words_frame_text(jget(an, "frame"), w, sizeof w);
    html_esc(o, w);
    fputs(" <span class=\"mute\">(in test <code>", o);
    tables_text(o, an, "test", "?");
    fputs("</code>)</span>", o);
}

static void put_announced(FILE *o, const cJSON *dev)
{
    static const char *const role[] = {"responder", "initiator"}, *const what[] = {"Reply", "Request"};
    const cJSON *an = jget(dev, "announced");
    for (int k = 0; k < 2; k++) {
        const cJSON *a = jget(an, role[k]);
        if (!cJSON_IsObject(a))
            continue;
        html_printf(o, "<dt>Its first %s</dt><dd>", what[k]);
        put_frame(o, a);
        fputs("</dd>", o);
    }
}

/* The toolkit's coverage of each document (the report's "spec_coverage",
 * docs/spec-coverage.md's figures); nothing when the report has none. */
static void put_spec_coverage(FILE *o, const cJSON *sc)
{
    if (!cJSON_IsArray(sc) || !cJSON_GetArraySize(sc))
        return;
    fputs("<table class=\"counts\"><tr><th>Specification coverage of this toolkit</th><th>Rows in sections</th>"
          "<th class=\"n\">Statements</th><th class=\"n\">Observable</th><th class=\"n\">With an id</th>"
          "<th class=\"n\">Checked by mpa-audit</th><th class=\"n\">In a suite test</th></tr>\n",
          o);
    const cJSON *d;
    cJSON_ArrayForEach(d, sc)
    {
        fputs("<tr><th>", o);
        tables_text(o, d, "document", "?");
        fputs("</th><td>", o);
        tables_text(o, d, "sections", "");
        html_printf(o, "</td><td class=\"n\">%d</td><td class=\"n\">%d</td><td class=\"n\">%d</td>"
                       "<td class=\"n\">%d</td><td class=\"n\">%d</td></tr>\n",
                    jget_int(d, "statements", 0), jget_int(d, "observable", 0), jget_int(d, "with_id", 0),
                    jget_int(d, "checked_by_audit", 0), jget_int(d, "tested", 0));
    }
    fputs("</table>\n<p class=\"mute\">One statement per normative sentence of each document; the matrix is "
          "docs/spec-coverage.md in the toolkit's sources.</p>\n",
          o);
}

void reqview_glance(FILE *o, const cJSON *rep)
{
    const cJSON *ov = jget(rep, "overview"), *dev = jget(rep, "device");
    fputs("<section id=\"glance\">\n<h2>At a glance</h2>\n", o);
    if (!cJSON_IsObject(ov) || !jget(ov, "must_failed")) {
        fputs("<p class=\"mute\">The report has no overview (it was made by an older mpa-conform).</p>\n"
              "</section>\n",
              o);
        return;
    }
    fputs("<dl class=\"kv\">", o);
    fputs("<dt>Device</dt><dd>", o);
    if (jget_text(dev, "name")) {
        fputs("<b>", o);
        html_esc(o, jget_text(dev, "name"));
        fputs("</b> ", o);
    }
    tables_text(o, dev, "address", "(address not in the report)");
    fputs("</dd><dt>Roles tested</dt><dd>", o);
    tables_list(o, jget(dev, "roles"), "none");
    fputs("</dd>", o);
    put_announced(o, dev);
    fputs("<dt>MUST failures</dt><dd class=\"g-must\">", o);
    id_links(o, jget(ov, "must_failed"), "none");
    fputs("</dd><dt>SHOULD failures</dt><dd class=\"g-should\">", o);
    id_links(o, jget(ov, "should_failed"), "none");
    fputs("</dd><dt>FYI tests failed</dt><dd class=\"g-fyi\">", o);
    tables_list(o, jget(ov, "fyi_tests_failed"), "none");
    fputs("</dd>", o);
    if (jget_text(rep, "notes")) {
        fputs("<dt>Notes</dt><dd>", o);
        html_esc(o, jget_text(rep, "notes"));
        fputs("</dd>", o);
    }
    fputs("</dl>\n", o);
    const cJSON *rq = jget(ov, "requirements");
    static const char *const lv[] = {"MUST", "SHOULD", "other"};
    fputs("<table class=\"counts\"><tr><th>Requirements</th><th class=\"n\">Fail</th><th class=\"n\">Pass</th>"
          "<th class=\"n\">Not tested</th></tr>\n",
          o);
    for (int l = 0; l < 3; l++) {
        const cJSON *x = jget(rq, lv[l]);
        int f = jget_int(x, "fail", 0);
        html_printf(o, "<tr><th>%s</th><td class=\"n%s\">%d</td><td class=\"n\">%d</td><td class=\"n\">%d</td></tr>\n",
                    lv[l], f ? " hot c-fail" : "", f, jget_int(x, "pass", 0), jget_int(x, "not_tested", 0));
    }
    fputs("</table>\n", o);
    put_spec_coverage(o, jget(rep, "spec_coverage"));
    fputs("</section>\n", o);
}

/* A requirement verdict's badge class: pass, fail, else skip. */
static vd req_vd(const char *v)
{
    return v && !strcmp(v, "pass") ? VD_PASS : v && !strcmp(v, "fail") ? VD_FAIL : VD_SKIP;
}

void reqview_coverage(FILE *o, const cJSON *rep)
{
    const cJSON *cov = jget(rep, "coverage"), *r;
    fputs("<section id=\"coverage\">\n<h2>Requirement coverage</h2>\n", o);
    if (!cJSON_IsArray(cov)) {
        fputs("<p class=\"mute\">The report has no coverage section (it was made by an older mpa-conform).</p>\n"
              "</section>\n",
              o);
        return;
    }
    fputs("<p class=\"mute\">Each requirement the selected tests exercise or the device was seen to break: "
          "fail when a test showed it broken, pass when a test that exercises it passed, else not tested "
          "(and why). MUSTs first, failures first.</p>\n"
          "<table class=\"cov\"><tr><th>Requirement</th><th>Level</th><th>Verdict</th><th>Tests</th>"
          "<th>Why</th></tr>\n",
          o);
    cJSON_ArrayForEach(r, cov)
    {
        const char *v = jget_str(r, "verdict");
        vd d = req_vd(v);
        html_printf(o, "<tr class=\"r-%s\" id=\"req-", vd_tab[d].cls);
        html_esc(o, jget_str_or(r, "id", "?"));
        fputs("\"><td><span class=\"rid\">", o);
        tables_text(o, r, "id", "?");
        fputs("</span><div class=\"why1\">", o);
        tables_text(o, r, "text", "");
        fputs("</div></td><td>", o);
        tables_text(o, r, "level", "?");
        html_printf(o, "</td><td><span class=\"v v-%s\">", vd_tab[d].cls);
        html_esc(o, v ? v : "?");
        fputs("</span></td><td class=\"reqs\">", o);
        const cJSON *fi = jget(r, "failed_in");
        if (cJSON_GetArraySize(fi)) {
            fputs("failed in: ", o);
            tables_list(o, fi, "");
            fputs("<br>", o);
        }
        int nt = cJSON_GetArraySize(jget(r, "tests"));
        html_printf(o, "exercised by %d test%s", nt, nt == 1 ? "" : "s");
        fputs("</td><td>", o);
        tables_text(o, r, "why", "");
        fputs("</td></tr>\n", o);
    }
    if (!cJSON_GetArraySize(cov))
        fputs("<tr><td colspan=\"5\" class=\"mute\">No requirement was exercised.</td></tr>\n", o);
    fputs("</table>\n</section>\n", o);
}

void reqview_broken(FILE *o, const cJSON *t, int in_table)
{
    const cJSON *b = jget(t, "broken"), *x;
    if (!cJSON_GetArraySize(b))
        return;
    fputs(in_table ? "<div class=\"broken\">" : "<ul class=\"broken\">", o);
    int n = 0;
    cJSON_ArrayForEach(x, b)
    {
        fputs(in_table ? (n++ ? "; " : "") : "<li>", o);
        const char *how = jget_str(x, "how");
        if (how && !strcmp(how, "finding") && jget_text(x, "evidence")) {
            html_esc(o, jget_text(x, "evidence"));
            fputs(": ", o);
        } else if (!in_table) {
            fputs("the expectation failed: ", o);
        }
        fputs("<b class=\"rid\">", o);
        tables_text(o, x, "id", "?");
        fputs("</b>", o);
        if (!in_table) {
            fputs(" (", o);
            tables_text(o, x, "level", "?");
            fputs(")</li>", o);
        }
    }
    fputs(in_table ? "</div>" : "</ul>", o);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-conform's HTML report (html.h), made from the JSON report of
 * docs/mpa-conform-json.md.
 *
 * The page is for a lab engineer who prints it and hands it to the
 * vendor, so it says the result first (a banner, the counts), then one
 * row per test, then one section per test that starts a printed page:
 * purpose, verdict and reason, requirements with their text, quirks,
 * setup, a ladder diagram of the exchange with the deviation marked in
 * red, the steps, libmpa's findings, and the pcapng trace as a download.
 *
 * Nothing in the report is trusted: every string is escaped (and its
 * bytes made valid UTF-8) where it is written (esc.h), and every key is
 * read through a typed getter (jget.h); what is missing or of the wrong
 * type is listed in a "problems" box instead of being guessed (check.h).
 * Verdicts and verbs from the report only ever select one of our own
 * class names (verdict.h).
 *
 * This file puts the page together and writes each test's section; the
 * parts are in overview.c (header, banner, counts, tests table),
 * tables.c, ladder.c, embed.c (the trace) and assets.c (CSS, script).
 */
#include "html.h"

#include <string.h>

#include "anchor.h"
#include "assets.h"
#include "check.h"
#include "embed.h"
#include "esc.h"
#include "jget.h"
#include "ladder.h"
#include "overview.h"
#include "reqview.h"
#include "sb.h"
#include "tables.h"
#include "verdict.h"

/* A role as the page says it. */
static const char *role_words(const char *role)
{
    return role && !strcmp(role, "responder") ? "MPA Responder"
           : role && !strcmp(role, "initiator") ? "MPA Initiator"
           : role                               ? role
                                                : "(role not given)";
}

/* The scenario the test comes from and the addresses it ran between. */
static void put_origin(FILE *o, const cJSON *t)
{
    if (jget_text(t, "file") || jget_text(t, "name")) {
        fputs("<br>", o);
        if (jget_text(t, "name")) {
            fputs("scenario <i>", o);
            html_esc(o, jget_text(t, "name"));
            fputs("</i> ", o);
        }
        if (jget_text(t, "file")) {
            fputs("<code>", o);
            html_esc(o, jget_text(t, "file"));
            fputs("</code>", o);
        }
    }
    if (jget_text(t, "device_address") || jget_text(t, "local_address")) {
        fputs("<br>device ", o);
        tables_text(o, t, "device_address", "?");
        fputs(", mpa-conform ", o);
        tables_text(o, t, "local_address", "?");
    }
}

/* The line under a test's heading: class, role, duration, suite, needs;
 * the scenario and its file; the addresses. */
static void put_meta(FILE *o, const cJSON *t)
{
    fputs("<p class=\"meta\">", o);
    const char *cl = jget_str(t, "class");
    if (cl && !strcmp(cl, "M"))
        fputs("Mandatory (M)", o);
    else if (cl && !strcmp(cl, "FYI"))
        fputs("For information (FYI)", o);
    else {
        fputs("class ", o);
        html_esc(o, cl ? cl : "?");
    }
    fputs(" &middot; the device is the ", o);
    html_esc(o, role_words(jget_str(t, "device_role")));
    double d;
    if (jget_num(t, "duration_ms", &d)) {
        char tb[32];
        sb_fmt_ms(tb, sizeof tb, d);
        html_printf(o, " &middot; %s", tb);
    }
    if (jget_text(t, "suite")) {
        fputs(" &middot; suite ", o);
        html_esc(o, jget_text(t, "suite"));
    }
    const cJSON *needs = jget(t, "needs");
    if (cJSON_IsArray(needs) && cJSON_GetArraySize(needs)) {
        fputs(" &middot; needs ", o);
        tables_list(o, needs, "");
    }
    put_origin(o, t);
    fputs("</p>\n", o);
}

/* The verdict in a sentence, with the report's reason under it. */
static void put_verdict(FILE *o, vd v, const char *vs, int decided, const char *reason)
{
    html_printf(o, "<div class=\"verdict t-%s\">", vd_tab[v].cls);
    vd_badge(o, v, vs);
    switch (v) {
    case VD_PASS: fputs(" every step went as the test expects.", o); break;
    case VD_FAIL:
        if (decided)
            html_printf(o, " the device deviated at step %d.", decided);
        else
            fputs(" the device deviated (a finding about what it sent).", o);
        break;
    case VD_ERROR: fputs(" the test could not be run to a verdict; this says nothing about conformance.", o); break;
    case VD_SKIP: fputs(" the test was not run; it says nothing about conformance.", o); break;
    case VD_DONE:
    case VD_NOTRUN:
    case VD_UNKNOWN: fputs(" the report gives no known verdict.", o); break;
    }
    if (reason) {
        fputs("<div class=\"why\">", o);
        html_esc(o, reason);
        fputs("</div>", o);
    }
    fputs("</div>\n", o);
}

/* A heading and a paragraph of the test's text k, when it has one. */
static void put_para(FILE *o, const cJSON *t, const char *k, const char *heading)
{
    if (!jget_text(t, k))
        return;
    html_printf(o, "<h3>%s</h3>\n<p>", heading);
    html_esc(o, jget_text(t, k));
    fputs("</p>\n", o);
}

/* What was done and seen: the ladder (unless skipped), the steps, the
 * findings, the trace. */
static void put_exchange(FILE *o, const cJSON *t, vd v, int decided, const char *base_dir, const char *anchor)
{
    const cJSON *steps = jget(t, "steps");
    int nsteps = cJSON_IsArray(steps) ? cJSON_GetArraySize(steps) : 0;
    if (v != VD_SKIP) {
        fputs("<h3>Ladder diagram</h3>\n", o);
        ladder_put(o, t, steps, nsteps, jget_text(t, "reason"), decided);
    }
    fputs("<h3>Steps</h3>\n", o);
    if (v == VD_SKIP && !nsteps)
        fputs("<p class=\"mute\">Skipped: no step was run.</p>\n", o);
    else
        tables_put(o, TABLE_STEPS, steps);
    fputs("<h3>Findings</h3>\n", o);
    tables_put(o, TABLE_FINDINGS, jget(t, "findings"));
    fputs("<h3>Trace</h3>\n", o);
    embed_trace(o, t, base_dir, anchor);
}

/* The section of test i: it starts a printed page. */
static void put_test(FILE *o, const cJSON *tests, int i, const char *base_dir)
{
    const cJSON *t = cJSON_GetArrayItem(tests, i);
    char anchor[160];
    anchor_of(anchor, sizeof anchor, tests, i);
    const char *vs = jget_str(t, "verdict");
    vd v = vd_of_test(vs);
    const char *id = jget_text(t, "id");
    notes ns = {.n = 0};
    check_test(&ns, t);

    fputs("<section class=\"test t-", o);
    fputs(vd_tab[v].cls, o);
    fputs("\" id=\"", o);
    html_esc(o, anchor);
    html_printf(o, "\" data-verdict=\"%s\">\n<h2>", vd_tab[v].cls);
    vd_badge(o, v, vs);
    fputs(" <code>", o);
    html_esc(o, id ? id : "(no id)");
    fputs("</code></h2>\n", o);
    put_meta(o, t);
    notes_put(o, &ns, "The report lacks, or has in another form than documented:");

    fputs("<p><b>Purpose.</b> ", o);
    tables_text(o, t, "description", "<span class=\"mute\">(no description in the report)</span>");
    fputs("</p>\n", o);
    int decided = jget_int(t, "decided_at_step", 0);
    put_verdict(o, v, vs, decided, jget_text(t, "reason"));
    if (cJSON_GetArraySize(jget(t, "broken"))) {
        fputs("<h3>Requirements broken</h3>\n", o);
        reqview_broken(o, t, 0);
    }

    fputs("<h3>Requirements</h3>\n", o);
    tables_put(o, TABLE_REQUIREMENTS, jget(t, "requirements"));
    tables_quirks(o, jget(t, "quirks"));
    put_para(o, t, "setup", "Setup");
    put_para(o, t, "problems", "Known problems");
    put_exchange(o, t, v, decided, base_dir, anchor);
    fputs("<p class=\"noprint mute\"><a href=\"#tests\">&uarr; all tests</a></p>\n</section>\n", o);
}

/* <head>: the title names the device and the date; the style sheet. */
static void put_head(FILE *o, const cJSON *report)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          o);
    fputs("MPA conformance: ", o);
    html_esc(o, overview_device(report, "device"));
    fputs(", ", o);
    tables_text(o, report, "started", "date unknown");
    fputs("</title>\n<style>\n", o);
    assets_style(o);
    fputs("</style>\n</head>\n<body>\n", o);
}

static void put_footer(FILE *o, const cJSON *report)
{
    fputs("<footer>Made by ", o);
    tables_text(o, report, "tool", "mpa-conform");
    fputs(" ", o);
    tables_text(o, report, "version", "");
    fputs(" from its JSON report (docs/mpa-conform-json.md). This page is self-contained: styles, diagrams and "
          "traces are inside it, and it reads the same without its script. Requirement ids are those of the "
          "toolkit's catalogue (docs/requirements.md).</footer>\n",
          o);
    fputs("<script>", o);
    assets_script(o);
    fputs("</script>\n</body>\n</html>\n", o);
}

int conform_html(const cJSON *report, const char *base_dir, FILE *out, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    if (!report || !out) {
        if (err && errlen)
            snprintf(err, errlen, "conform_html: %s is NULL", report ? "out" : "report");
        return -1;
    }
    FILE *o = out;
    notes ns = {.n = 0};
    check_report(&ns, report);
    put_head(o, report);
    /* a tests value that is not an array reads as empty */
    const cJSON *tests = jget(report, "tests");
    const cJSON *tl = cJSON_IsArray(tests) ? tests : NULL;
    overview_header(o, report, tl);
    overview_summary(o, report, tl, &ns);
    notes_put(o, &ns, "The report lacks, or has in another form than documented:");
    reqview_coverage(o, report);
    overview_tests(o, tl);
    int n = cJSON_GetArraySize(tl);
    if (n) {
        fputs("<section id=\"details\">\n<h2>Test details</h2>\n", o);
        assets_legend(o);
        fputs("</section>\n", o);
    }
    for (int i = 0; i < n; i++)
        put_test(o, tl, i, base_dir);
    put_footer(o, report);
    if (ferror(o)) {
        if (err && errlen)
            snprintf(err, errlen, "writing the HTML report failed");
        return -1;
    }
    return 0;
}

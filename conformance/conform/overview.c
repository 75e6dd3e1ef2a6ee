/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report's header, banner, counts and tests table (overview.h). */
#include "overview.h"

#include <string.h>

#include "anchor.h"
#include "brief.h"
#include "esc.h"
#include "jget.h"
#include "reqview.h"
#include "sb.h"
#include "tables.h"
#include "verdict.h"

typedef struct counts {
    int total, v[VD_UNKNOWN + 1];
} counts;

const char *overview_device(const cJSON *rep, const char *dflt)
{
    const cJSON *dev = jget(rep, "device");
    return jget_text(dev, "address")  ? jget_text(dev, "address")
           : jget_text(dev, "listen") ? jget_text(dev, "listen")
                                      : dflt;
}

static int is_mandatory(const cJSON *t)
{
    const char *c = jget_str(t, "class");
    return c && !strcmp(c, "M");
}

static void count_tests(const cJSON *tests, counts *all, counts *mand, counts *fyi)
{
    memset(all, 0, sizeof *all);
    memset(mand, 0, sizeof *mand);
    memset(fyi, 0, sizeof *fyi);
    const cJSON *t;
    cJSON_ArrayForEach(t, tests)
    {
        vd v = vd_of_test(jget_str(t, "verdict"));
        counts *c = is_mandatory(t) ? mand : fyi;
        all->total++;
        all->v[v]++;
        c->total++;
        c->v[v]++;
    }
}

/* The banner's class, word and sentence for these counts. */
/* The skipped tests by cause (summary.skipped_by_reason), else their count. */
static void skip_words(sb *why, const cJSON *rep, int nskip)
{
    const cJSON *by = jget(jget(rep, "summary"), "skipped_by_reason"), *x;
    if (!cJSON_GetArraySize(by)) {
        sb_add(why, " %d test%s skipped: %s not covered.", nskip, nskip == 1 ? " was" : "s were",
               nskip == 1 ? "it is" : "they are");
        return;
    }
    sb_add(why, " Skipped, not covered:");
    int first = 1;
    cJSON_ArrayForEach(x, by)
    {
        int n = jget_int(x, "tests", 0);
        sb_add(why, "%s %d (%s)", first ? "" : ";", n, jget_str_or(x, "reason", "?"));
        first = 0;
    }
    sb_add(why, ".");
}

static const char *banner_says(const cJSON *rep, const counts *all, const counts *mand, const counts *fyi,
                               const char **word, sb *why)
{
    const char *cls;
    int run = all->total - all->v[VD_SKIP];
    if (mand->v[VD_FAIL]) {
        cls = "fail";
        *word = "FAIL: the device does not conform";
        sb_add(why, "%d mandatory test%s failed", mand->v[VD_FAIL], mand->v[VD_FAIL] == 1 ? "" : "s");
        if (all->v[VD_ERROR])
            sb_add(why, "; %d test%s could not be run", all->v[VD_ERROR], all->v[VD_ERROR] == 1 ? "" : "s");
        sb_add(why, ".");
    } else if (all->v[VD_ERROR] || all->v[VD_UNKNOWN]) {
        cls = "error";
        *word = "INCOMPLETE: no verdict on every test";
        sb_add(why, "No mandatory test failed, but %d test%s could not be run (error)", all->v[VD_ERROR],
               all->v[VD_ERROR] == 1 ? "" : "s");
        if (all->v[VD_UNKNOWN])
            sb_add(why, " and %d ha%s no known verdict", all->v[VD_UNKNOWN], all->v[VD_UNKNOWN] == 1 ? "s" : "ve");
        sb_add(why, ".");
    } else if (run == 0) {
        cls = "skip";
        *word = "NO RESULT: no test was run";
        sb_add(why, "%s", all->total ? "Every selected test was skipped." : "The report holds no test.");
    } else {
        cls = "pass";
        *word = "PASS: every mandatory test that ran passed";
        sb_add(why, "%d of %d tests ran and passed", all->v[VD_PASS], all->total);
        if (fyi->v[VD_FAIL])
            sb_add(why, "; %d informational (FYI) test%s failed, which does not affect conformance",
                   fyi->v[VD_FAIL], fyi->v[VD_FAIL] == 1 ? "" : "s");
        sb_add(why, ".");
    }
    if (all->v[VD_SKIP])
        skip_words(why, rep, all->v[VD_SKIP]);
    return cls;
}

/* The result in one word and one sentence. */
static void put_banner(FILE *o, const cJSON *rep, const cJSON *tests)
{
    counts all, mand, fyi;
    count_tests(tests, &all, &mand, &fyi);
    const char *word;
    sb why = {.n = 0};
    const char *cls = banner_says(rep, &all, &mand, &fyi, &word, &why);
    html_printf(o, "<div class=\"banner b-%s\" role=\"status\"><div class=\"big\">%s</div><p>", cls, word);
    html_esc(o, why.b);
    double es;
    if (jget_num(jget(rep, "summary"), "exit_status", &es))
        html_printf(o, " <span class=\"mute\">(exit status %.0f)</span>", es);
    fputs("</p></div>\n", o);
}

static void put_kv_str(FILE *o, const char *k, const char *v)
{
    html_printf(o, "<dt>%s</dt><dd>", k);
    if (v)
        html_esc(o, v);
    else
        fputs("<span class=\"mute\">(not in the report)</span>", o);
    fputs("</dd>", o);
}

/* The suites run, with how many tests each. */
static void put_suites(FILE *o, const cJSON *su)
{
    if (!cJSON_IsArray(su) || !cJSON_GetArraySize(su))
        return;
    fputs("<dt>Suites</dt><dd>", o);
    const cJSON *s;
    int first = 1;
    double d;
    cJSON_ArrayForEach(s, su)
    {
        if (!first)
            fputs(", ", o);
        first = 0;
        tables_text(o, s, "name", "?");
        if (jget_text(s, "version")) {
            fputs(" ", o);
            html_esc(o, jget_text(s, "version"));
        }
        if (jget_num(s, "tests", &d))
            html_printf(o, " (%.0f test%s)", d, d == 1 ? "" : "s");
        if (jget_text(s, "sha256")) {
            fputs(" <span class=\"mute\">sha256 <code>", o);
            html_esc(o, jget_text(s, "sha256"));
            fputs("</code></span>", o);
        }
    }
    fputs("</dd>", o);
}

/* The "Run" section: what ran, against what, when. */
static void put_run(FILE *o, const cJSON *rep)
{
    const cJSON *dev = jget(rep, "device");
    double d;
    fputs("<section id=\"run\">\n<h2>Run</h2>\n<dl class=\"kv\">", o);
    sb tool = {.n = 0};
    sb_add(&tool, "%s %s", jget_text(rep, "tool") ? jget_text(rep, "tool") : "mpa-conform",
           jget_text(rep, "version") ? jget_text(rep, "version") : "(version not in the report)");
    put_kv_str(o, "Tool", tool.b);
    put_kv_str(o, "Started (UTC)", jget_text(rep, "started"));
    if (jget_num(rep, "duration_ms", &d)) {
        char tb[32];
        sb_fmt_ms(tb, sizeof tb, d);
        put_kv_str(o, "Duration", tb);
    }
    if (jget_text(dev, "name"))
        put_kv_str(o, "Device name", jget_text(dev, "name"));
    fputs("<dt>Roles tested</dt><dd>", o);
    tables_list(o, jget(dev, "roles"), "(not in the report)");
    fputs("</dd>", o);
    put_kv_str(o, "Device address",
               jget_text(dev, "address") ? jget_text(dev, "address") : "(none: no Responder tests)");
    put_kv_str(o, "Listening on", jget_text(dev, "listen") ? jget_text(dev, "listen") : "(none: no Initiator tests)");
    put_kv_str(o, "Transport", jget_text(dev, "transport"));
    fputs("<dt>Declared capabilities</dt><dd>", o);
    tables_list(o, jget(dev, "caps"), "none declared (--caps)");
    fputs("</dd>", o);
    if (jget_text(dev, "command")) {
        fputs("<dt>Device command</dt><dd><code>", o);
        html_esc(o, jget_text(dev, "command"));
        fputs("</code></dd>", o);
    }
    fputs("<dt>Selection</dt><dd>", o);
    tables_list(o, jget(rep, "selection"), "every test");
    fputs("</dd>", o);
    put_suites(o, jget(rep, "suites"));
    if (jget_text(rep, "notes"))
        put_kv_str(o, "Notes", jget_text(rep, "notes"));
    fputs("</dl>\n</section>\n", o);
}

void overview_header(FILE *o, const cJSON *rep, const cJSON *tests)
{
    fputs("<header>\n<h1>MPA conformance report</h1>\n<p class=\"sub\">", o);
    html_esc(o, overview_device(rep, "device ?"));
    fputs(" &middot; ", o);
    tables_text(o, rep, "started", "date unknown");
    fputs(" &middot; iWARP MPA (RFC 5044, RFC 6581)</p>\n</header>\n", o);
    put_banner(o, rep, tests);
    reqview_glance(o, rep);
    put_run(o, rep);
}

static void count_row(FILE *o, const char *name, const counts *c, int unknown_col)
{
    html_printf(o, "<tr><th>%s</th><td class=\"n\">%d</td>", name, c->total);
    static const vd cols[] = {VD_PASS, VD_FAIL, VD_ERROR, VD_SKIP};
    for (int i = 0; i < 4; i++) {
        int n = c->v[cols[i]];
        if (n && cols[i] != VD_PASS)
            html_printf(o, "<td class=\"n hot c-%s\">%d</td>", vd_tab[cols[i]].cls, n);
        else
            html_printf(o, "<td class=\"n\">%d</td>", n);
    }
    if (unknown_col)
        html_printf(o, "<td class=\"n\">%d</td>", c->v[VD_UNKNOWN]);
    fputs("</tr>\n", o);
}

/* The report's own summary should say what the tests listed say. */
static void check_summary(notes *ns, const cJSON *sum, const counts *all, const counts *mand)
{
    if (!cJSON_IsObject(sum))
        return;
    static const char *const k[] = {"pass", "fail", "error", "skip"};
    static const vd kv[] = {VD_PASS, VD_FAIL, VD_ERROR, VD_SKIP};
    double d;
    if (jget_num(sum, "total", &d) && d != all->total)
        notes_add(ns, "summary: \"total\" is %.0f, but the report lists %d tests", d, all->total);
    for (int i = 0; i < 4; i++)
        if (jget_num(sum, k[i], &d) && d != all->v[kv[i]])
            notes_add(ns, "summary: \"%s\" is %.0f, but %d of the tests listed have that verdict", k[i], d,
                      all->v[kv[i]]);
    const cJSON *m = jget(sum, "mandatory");
    if (jget_num(m, "fail", &d) && d != mand->v[VD_FAIL])
        notes_add(ns, "summary: mandatory \"fail\" is %.0f, but %d mandatory tests failed", d, mand->v[VD_FAIL]);
}

void overview_summary(FILE *o, const cJSON *rep, const cJSON *tests, notes *ns)
{
    counts all, mand, fyi;
    count_tests(tests, &all, &mand, &fyi);
    fputs("<section id=\"summary\">\n<h2>Summary</h2>\n<table class=\"counts\"><tr><th></th><th class=\"n\">Tests</th>"
          "<th class=\"n\">Pass</th><th class=\"n\">Fail</th><th class=\"n\">Error</th><th class=\"n\">Skip</th>",
          o);
    int unk = all.v[VD_UNKNOWN] != 0;
    if (unk)
        fputs("<th class=\"n\">Unknown</th>", o);
    fputs("</tr>\n", o);
    count_row(o, "All", &all, unk);
    count_row(o, "Mandatory (M)", &mand, unk);
    count_row(o, "For information (FYI)", &fyi, unk);
    fputs("</table>\n<p class=\"mute\">M: the requirement is mandatory (MUST) and the test decides "
          "conformance. FYI: informational (SHOULD/MAY, measurements); a failure is reported but does not "
          "make the device non-conformant. Error: the test could not be run to a verdict. Skip: the test was not "
          "run (the device's role was not tested, it needs a capability that was not declared, or the device "
          "did not answer).</p>\n",
          o);
    check_summary(ns, jget(rep, "summary"), &all, &mand);
    fputs("</section>\n", o);
}

/* One line on why a test did not pass, for the table: the reason (in
 * words), else the deciding step's headline. */
static void short_reason(char *b, size_t n, const cJSON *t, vd v)
{
    b[0] = 0;
    if (jget_text(t, "reason")) {
        snprintf(b, n, "%s", jget_text(t, "reason"));
        return;
    }
    int decided = jget_int(t, "decided_at_step", 0);
    const cJSON *st;
    int i = 0;
    if (v == VD_FAIL || v == VD_ERROR)
        cJSON_ArrayForEach(st, jget(t, "steps"))
        {
            i++;
            int idx = jget_int(st, "index", i);
            vd sv = vd_of(jget_str(st, "verdict"));
            if ((decided && idx == decided) || (!decided && (sv == VD_FAIL || sv == VD_ERROR))) {
                char h[200];
                brief_headline(h, sizeof h, jget_str(st, "what"), jget_str(st, "detail"), sv);
                snprintf(b, n, "step %d: %s", idx, h);
                return;
            }
        }
}

/* Row i of the tests table. */
static void test_tr(FILE *o, const cJSON *tests, int i)
{
    const cJSON *t = cJSON_GetArrayItem(tests, i);
    char anchor[160];
    anchor_of(anchor, sizeof anchor, tests, i);
    const char *vs = jget_str(t, "verdict");
    vd v = vd_of_test(vs);
    html_printf(o, "<tr class=\"r-%s\" data-verdict=\"%s\"><td class=\"n\">%d</td><td><a href=\"#", vd_tab[v].cls,
                vd_tab[v].cls, i + 1);
    html_esc(o, anchor);
    fputs("\"><code>", o);
    tables_text(o, t, "id", "(no id)");
    fputs("</code></a>", o);
    char why[240];
    short_reason(why, sizeof why, t, v);
    if (why[0]) {
        fputs("<div class=\"why1\">", o);
        html_esc_trunc(o, why, 110);
        fputs("</div>", o);
    }
    reqview_broken(o, t, 1);
    fputs("</td><td>", o);
    tables_text(o, t, "class", "?");
    fputs("</td><td>", o);
    vd_badge(o, v, vs);
    fputs("</td><td class=\"reqs\">", o);
    tables_req_ids(o, jget(t, "requirements"));
    fputs("</td><td class=\"n\">", o);
    if (!tables_ms(o, t, "duration_ms"))
        fputs("&ndash;", o);
    fputs("</td></tr>\n", o);
}

void overview_tests(FILE *o, const cJSON *tests)
{
    fputs("<section id=\"tests\">\n<h2>Tests</h2>\n"
          "<div id=\"filters\" hidden>Show: <button data-f=\"all\" aria-pressed=\"true\">all</button>"
          "<button data-f=\"notpass\">not passed</button><button data-f=\"fail\">fail</button>"
          "<button data-f=\"error\">error</button><button data-f=\"skip\">skip</button>"
          "<button data-f=\"pass\">pass</button></div>\n"
          "<table class=\"tests\"><tr><th class=\"n\">#</th><th>Test</th><th>Class</th><th>Verdict</th>"
          "<th>Requirements</th><th class=\"n\">Duration</th></tr>\n",
          o);
    int n = cJSON_GetArraySize(tests);
    for (int i = 0; i < n; i++)
        test_tr(o, tests, i);
    if (!n)
        fputs("<tr><td colspan=\"6\" class=\"mute\">The report lists no tests.</td></tr>\n", o);
    fputs("</table>\n</section>\n", o);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mpa-conform's terminal output (term.h). */
#include "term.h"

#include <string.h>

#include "jget.h"
#include "words.h"

void term_head(FILE *f, const cJSON *doc)
{
    const cJSON *dev = jget(doc, "device"), *x;
    fprintf(f, "%s %s: device", jget_str_or(doc, "tool", "mpa-conform"), jget_str_or(doc, "version", "?"));
    if (jget_text(dev, "name"))
        fprintf(f, " \"%s\"", jget_text(dev, "name"));
    if (jget_text(dev, "address"))
        fprintf(f, " at %s", jget_text(dev, "address"));
    if (jget_text(dev, "listen"))
        fprintf(f, "%s connecting to us at %s", jget_text(dev, "address") ? "," : "", jget_text(dev, "listen"));
    fprintf(f, "; roles tested:");
    cJSON_ArrayForEach(x, jget(dev, "roles"))
        fprintf(f, " %s", cJSON_IsString(x) ? x->valuestring : "?");
    fprintf(f, "\nsuites:");
    int first = 1;
    cJSON_ArrayForEach(x, jget(doc, "suites"))
    {
        fprintf(f, "%s %s %s (sha256 %.12s)", first ? "" : ",", jget_str_or(x, "name", "?"),
                jget_str_or(x, "version", "?"), jget_str_or(x, "sha256", "?"));
        first = 0;
    }
    fputc('\n', f);
    if (jget_text(doc, "notes"))
        fprintf(f, "notes: %s\n", jget_text(doc, "notes"));
}

/* "broken: ID (LEVEL): evidence; ..." under a test. */
static void put_broken(FILE *f, const cJSON *t)
{
    const cJSON *b;
    cJSON_ArrayForEach(b, jget(t, "broken"))
    {
        const char *how = jget_str_or(b, "how", "");
        fprintf(f, "      broken: %s (%s)", jget_str_or(b, "id", "?"), jget_str_or(b, "level", "?"));
        if (!strcmp(how, "finding"))
            fprintf(f, ": %s", jget_str_or(b, "evidence", ""));
        fputc('\n', f);
    }
}

void term_test(FILE *f, int v, const cJSON *t, int quiet)
{
    static const char *const vw[] = {"PASS", "FAIL", "ERROR", "SKIP"};
    if (quiet && v != TALLY_FAIL && v != TALLY_ERROR)
        return;
    const char *cl = jget_str_or(t, "class", "?");
    fprintf(f, "%-5s %-3s %-44s", vw[v], cl, jget_str_or(t, "id", "?"));
    if (v != TALLY_SKIP)
        fprintf(f, " %8.1f ms", jget_num_or(t, "duration_ms", 0));
    fputc('\n', f);
    if (v != TALLY_PASS)
        fprintf(f, "      %s\n", jget_str_or(t, "reason", ""));
    if (v == TALLY_FAIL || v == TALLY_ERROR)
        put_broken(f, t);
}

/* "  MUST: ID, ID" for the ids of arr. */
static void id_line(FILE *f, const char *what, const cJSON *arr)
{
    int n = cJSON_GetArraySize(arr);
    if (!n)
        return;
    fprintf(f, "%s (%d):", what, n);
    const cJSON *x;
    cJSON_ArrayForEach(x, arr)
        fprintf(f, " %s", cJSON_IsString(x) ? x->valuestring : "?");
    fputc('\n', f);
}

/* The toolkit's spec coverage, summed over the documents. */
static void put_spec_coverage(FILE *f, const cJSON *doc)
{
    const cJSON *d, *sc = jget(doc, "spec_coverage");
    double n[4] = {0, 0, 0, 0};
    cJSON_ArrayForEach(d, sc)
    {
        n[0] += jget_num_or(d, "statements", 0);
        n[1] += jget_num_or(d, "observable", 0);
        n[2] += jget_num_or(d, "with_id", 0);
        n[3] += jget_num_or(d, "tested", 0);
    }
    if (n[0] > 0)
        fprintf(f, "spec coverage (docs/spec-coverage.md): %.0f normative statements, %.0f observable, %.0f with an "
                   "id, %.0f named by a suite test\n",
                n[0], n[1], n[2], n[3]);
}

void term_summary(FILE *f, const cJSON *doc, const conf_tally *c, double total_ms, int interrupted)
{
    const unsigned *n = c->n, *m = c->m;
    fprintf(f, "\n%u tests in %.1f s: %u passed, %u failed, %u errors, %u skipped", n[TALLY_TOTAL],
            total_ms / 1000.0, n[TALLY_PASS], n[TALLY_FAIL], n[TALLY_ERROR], n[TALLY_SKIP]);
    fprintf(f, "; mandatory: %u of %u passed%s\n", m[TALLY_PASS], m[TALLY_TOTAL] - m[TALLY_SKIP],
            m[TALLY_FAIL]                    ? " - the device does NOT conform"
            : m[TALLY_ERROR]                 ? ""
            : m[TALLY_TOTAL] - m[TALLY_SKIP] ? " - conformant on what ran"
                                             : "");
    const cJSON *x, *dev = jget(doc, "device");
    static const char *const role[] = {"responder", "initiator"}, *const what[] = {"Reply", "Request"};
    for (int r = 0; r < 2; r++) {
        const cJSON *an = jget(jget(dev, "announced"), role[r]);
        char w[600];
        if (!jget(an, "frame"))
            continue;
        words_frame_text(jget(an, "frame"), w, sizeof w);
        fprintf(f, "the device's first %s: %s (test %s)\n", what[r], w, jget_str_or(an, "test", "?"));
    }
    cJSON_ArrayForEach(x, jget(jget(doc, "summary"), "skipped_by_reason"))
        fprintf(f, "  %.0f skipped: %s\n", jget_num_or(x, "tests", 0), jget_str_or(x, "reason", "?"));
    const cJSON *ov = jget(doc, "overview"), *rq = jget(ov, "requirements");
    static const char *const lv[] = {"MUST", "SHOULD"};
    for (int l = 0; l < 2; l++) {
        const cJSON *o = jget(rq, lv[l]);
        if (o)
            fprintf(f, "%s requirements: %.0f failed, %.0f passed, %.0f not tested\n", lv[l],
                    jget_num_or(o, "fail", 0), jget_num_or(o, "pass", 0), jget_num_or(o, "not_tested", 0));
    }
    id_line(f, "MUST requirements failed", jget(ov, "must_failed"));
    id_line(f, "SHOULD requirements failed", jget(ov, "should_failed"));
    id_line(f, "FYI tests failed", jget(ov, "fyi_tests_failed"));
    put_spec_coverage(f, doc);
    if (interrupted)
        fprintf(f, "(interrupted)\n");
}

void term_reports(FILE *f, const char *json, const char *junit, const char *html)
{
    fprintf(f, "reports: %s, %s, %s\n", json, junit, html);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mpa-conform's JUnit XML report (junit.h). */
#include "junit.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "jget.h"

static void xml_esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '<')
            fputs("&lt;", f);
        else if (c == '>')
            fputs("&gt;", f);
        else if (c == '&')
            fputs("&amp;", f);
        else if (c == '"')
            fputs("&quot;", f);
        else if (c < 0x20 && c != '\n' && c != '\t')
            fputc('?', f); /* not allowed in XML 1.0 */
        else
            fputc(c, f);
    }
}

/* The report's own documents are read: a missing string is "", a
 * missing number 0. */
static const char *str(const cJSON *o, const char *k)
{
    return jget_str_or(o, k, "");
}

static double num(const cJSON *o, const char *k)
{
    return jget_num_or(o, k, 0);
}

/* The element for a test that did not pass: failure, error or skipped,
 * with the reason; a failure or an error lists the requirements. */
static void put_outcome(FILE *f, const cJSON *t)
{
    const char *v = str(t, "verdict");
    const char *tag = !strcmp(v, "fail") ? "failure" : !strcmp(v, "error") ? "error" : !strcmp(v, "skip") ? "skipped"
                                                                                                            : NULL;
    if (!tag)
        return;
    fprintf(f, "      <%s message=\"", tag);
    xml_esc(f, str(t, "reason"));
    fprintf(f, "\"%s>", strcmp(tag, "skipped") ? "" : "/");
    if (strcmp(tag, "skipped")) {
        const cJSON *x;
        cJSON_ArrayForEach(x, jget(t, "requirements"))
        {
            xml_esc(f, str(x, "id"));
            fputs(" (", f);
            xml_esc(f, str(x, "level"));
            fputs("): ", f);
            xml_esc(f, str(x, "text"));
            fputc('\n', f);
        }
        fprintf(f, "</%s>", tag);
    }
    fputc('\n', f);
}

/* The steps: "INDEX VERDICT VERB", what and detail under it. */
static void put_steps(FILE *f, const cJSON *t)
{
    fprintf(f, "      <system-out>");
    const cJSON *x;
    cJSON_ArrayForEach(x, jget(t, "steps"))
    {
        fprintf(f, "%.0f %s %s\n", num(x, "index"), str(x, "verdict"), str(x, "verb"));
        if (*str(x, "what")) {
            fputs("  ", f);
            xml_esc(f, str(x, "what"));
            fputc('\n', f);
        }
        if (*str(x, "detail")) {
            fputs("  ", f);
            xml_esc(f, str(x, "detail"));
            fputc('\n', f);
        }
    }
    fprintf(f, "</system-out>\n");
}

static void put_case(FILE *f, const cJSON *t, const char *suite)
{
    fprintf(f, "    <testcase classname=\"");
    xml_esc(f, suite);
    fprintf(f, "\" name=\"");
    xml_esc(f, str(t, "id"));
    fprintf(f, " (%s)\" time=\"%.3f\">\n", str(t, "class"), num(t, "duration_ms") / 1000.0);
    put_outcome(f, t);
    put_steps(f, t);
    fprintf(f, "    </testcase>\n");
}

/* The <testsuite> of the suite named name: its tests of tl. */
static void put_suite(FILE *f, const cJSON *tl, const char *name)
{
    unsigned n = 0, nf = 0, ne = 0, ns = 0;
    double ms = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, tl)
    {
        if (strcmp(str(t, "suite"), name))
            continue;
        n++;
        const char *v = str(t, "verdict");
        nf += !strcmp(v, "fail");
        ne += !strcmp(v, "error");
        ns += !strcmp(v, "skip");
        ms += num(t, "duration_ms");
    }
    fprintf(f, "  <testsuite name=\"");
    xml_esc(f, name);
    fprintf(f, "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\" time=\"%.3f\">\n", n, nf, ne, ns,
            ms / 1000.0);
    cJSON_ArrayForEach(t, tl)
        if (!strcmp(str(t, "suite"), name))
            put_case(f, t, name);
    fprintf(f, "  </testsuite>\n");
}

int junit_write(const cJSON *doc, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "%.300s: %s", path, strerror(errno));
        return -1;
    }
    const cJSON *tl = jget(doc, "tests");
    const cJSON *sum = jget(doc, "summary");
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<testsuites name=\"mpa-conform\" tests=\"%.0f\" failures=\"%.0f\" errors=\"%.0f\" skipped=\"%.0f\" "
               "time=\"%.3f\">\n",
            num(sum, "total"), num(sum, "fail"), num(sum, "error"), num(sum, "skip"), num(doc, "duration_ms") / 1000.0);
    /* one <testsuite> per suite, in the order the suites come */
    const cJSON *su;
    cJSON_ArrayForEach(su, jget(doc, "suites"))
        put_suite(f, tl, str(su, "name"));
    fprintf(f, "</testsuites>\n");
    if (fclose(f)) {
        snprintf(err, errlen, "%.300s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

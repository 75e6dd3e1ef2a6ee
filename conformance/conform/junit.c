/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mpa-conform's JUnit XML report (junit.h). */
#include "junit.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "jget.h"
#include "words.h"

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

/* Whether t is an informational (FYI) test that failed: reported as
 * skipped, so that CI does not go red on it. */
static int fyi_fail(const cJSON *t)
{
    return !strcmp(str(t, "verdict"), "fail") && strcmp(str(t, "class"), "M");
}

/* The requirements' lines under a failure or an error: the ones the
 * run shows broken (with what was seen), then those the test checks. */
static void put_req_lines(FILE *f, const cJSON *t)
{
    static const char *const arr[] = {"broken", "requirements"}, *const pre[] = {"broken: ", ""},
                             *const txt[] = {"evidence", "text"};
    for (int k = 0; k < 2; k++) {
        const cJSON *x;
        cJSON_ArrayForEach(x, jget(t, arr[k]))
        {
            fputs(pre[k], f);
            xml_esc(f, str(x, "id"));
            fputs(" (", f);
            xml_esc(f, str(x, "level"));
            fputs("): ", f);
            xml_esc(f, str(x, txt[k]));
            fputc('\n', f);
        }
    }
}

/* The element for a test that did not pass: failure (a mandatory test
 * failed), error, or skipped (skipped, or an FYI test that failed), with
 * the reason; a failure or an error lists the requirements. */
static void put_outcome(FILE *f, const cJSON *t)
{
    const char *v = str(t, "verdict");
    int fyi = fyi_fail(t);
    const char *tag = fyi                  ? "skipped"
                      : !strcmp(v, "fail")  ? "failure"
                      : !strcmp(v, "error") ? "error"
                      : !strcmp(v, "skip")  ? "skipped"
                                            : NULL;
    if (!tag)
        return;
    fprintf(f, "      <%s message=\"%s", tag, fyi ? "informational (FYI) test failed: " : "");
    xml_esc(f, str(t, "reason"));
    fprintf(f, "\"%s>", strcmp(tag, "skipped") ? "" : "/");
    if (strcmp(tag, "skipped")) {
        put_req_lines(f, t);
        fprintf(f, "</%s>", tag);
    }
    fputc('\n', f);
}

/* <property name="NAME" value="VALUE"/>. */
static void prop_always(FILE *f, const char *ind, const char *name, const char *value)
{
    fprintf(f, "%s<property name=\"%s\" value=\"", ind, name);
    xml_esc(f, value);
    fputs("\"/>\n", f);
}

/* The same, when value is not empty. */
static void prop(FILE *f, const char *ind, const char *name, const char *value)
{
    if (value && *value)
        prop_always(f, ind, name, value);
}

/* The ids of arr (objects with "id"), space-separated, into b. */
static const char *ids(const cJSON *arr, char *b, size_t n)
{
    size_t k = 0;
    b[0] = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, arr)
    {
        int w = snprintf(b + k, n - k, "%s%s", k ? " " : "", str(x, "id"));
        if (w < 0 || (size_t)w >= n - k)
            break;
        k += (size_t)w;
    }
    return b;
}

/* A testcase's properties: requirement ids (the highest level first:
 * MUST, SHOULD, other), the broken ones, class, role. */
static void case_props(FILE *f, const cJSON *t)
{
    char b[2000];
    fputs("      <properties>\n", f);
    prop_always(f, "        ", "requirements", ids(jget(t, "requirements"), b, sizeof b));
    static const char *const lv[] = {"MUST", "SHOULD"};
    for (int l = 0; l < 2; l++) {
        size_t k = 0;
        b[0] = 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, jget(t, "requirements"))
            if (!strcmp(str(x, "level"), lv[l]) && k < sizeof b - 100)
                k += (size_t)snprintf(b + k, sizeof b - k, "%s%s", k ? " " : "", str(x, "id"));
        char name[32];
        snprintf(name, sizeof name, "requirements.%s", lv[l]);
        prop(f, "        ", name, b);
    }
    prop(f, "        ", "broken", ids(jget(t, "broken"), b, sizeof b));
    prop(f, "        ", "class", str(t, "class"));
    prop(f, "        ", "level", !strcmp(str(t, "class"), "M") ? "mandatory" : "informational");
    prop(f, "        ", "device_role", str(t, "device_role"));
    prop(f, "        ", "verdict", str(t, "verdict"));
    fputs("      </properties>\n", f);
}

/* A testsuite's properties: the tool, the device, the suite. */
static void suite_props(FILE *f, const cJSON *doc, const cJSON *su)
{
    const cJSON *dev = jget(doc, "device"), *x;
    fputs("    <properties>\n", f);
    prop(f, "      ", "tool.version", str(doc, "version"));
    prop(f, "      ", "started", str(doc, "started"));
    prop(f, "      ", "notes", str(doc, "notes"));
    prop(f, "      ", "device.name", str(dev, "name"));
    prop(f, "      ", "device.address", str(dev, "address"));
    prop(f, "      ", "device.listen", str(dev, "listen"));
    char b[200] = "";
    size_t k = 0;
    cJSON_ArrayForEach(x, jget(dev, "roles"))
        if (cJSON_IsString(x) && k < sizeof b - 20)
            k += (size_t)snprintf(b + k, sizeof b - k, "%s%s", k ? " " : "", x->valuestring);
    prop(f, "      ", "device.roles", b);
    static const char *const role[] = {"responder", "initiator"};
    for (int r = 0; r < 2; r++) {
        const cJSON *an = jget(jget(dev, "announced"), role[r]);
        char name[64], w[600];
        if (!jget(an, "frame"))
            continue;
        words_frame_text(jget(an, "frame"), w, sizeof w);
        snprintf(name, sizeof name, "device.announced.%s", role[r]);
        prop(f, "      ", name, w);
    }
    prop(f, "      ", "suite.name", str(su, "name"));
    prop(f, "      ", "suite.version", str(su, "version"));
    prop(f, "      ", "suite.sha256", str(su, "sha256"));
    fputs("    </properties>\n", f);
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
    case_props(f, t);
    put_outcome(f, t);
    put_steps(f, t);
    fprintf(f, "    </testcase>\n");
}

/* The <testsuite> of the suite su (its name: name): its tests of tl. */
static void put_suite(FILE *f, const cJSON *doc, const cJSON *su, const cJSON *tl, const char *name)
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
        nf += !strcmp(v, "fail") && !fyi_fail(t);
        ne += !strcmp(v, "error");
        ns += !strcmp(v, "skip") || fyi_fail(t);
        ms += num(t, "duration_ms");
    }
    fprintf(f, "  <testsuite name=\"");
    xml_esc(f, name);
    fprintf(f, "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\" time=\"%.3f\">\n", n, nf, ne, ns,
            ms / 1000.0);
    suite_props(f, doc, su);
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
    unsigned fyi = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, tl)
        fyi += (unsigned)fyi_fail(t);
    fprintf(f, "<testsuites name=\"mpa-conform\" tests=\"%.0f\" failures=\"%.0f\" errors=\"%.0f\" skipped=\"%.0f\" "
               "time=\"%.3f\">\n",
            num(sum, "total"), num(sum, "fail") - fyi, num(sum, "error"), num(sum, "skip") + fyi,
            num(doc, "duration_ms") / 1000.0);
    /* one <testsuite> per suite, in the order the suites come */
    const cJSON *su;
    cJSON_ArrayForEach(su, jget(doc, "suites"))
        put_suite(f, doc, su, tl, str(su, "name"));
    fprintf(f, "</testsuites>\n");
    if (fclose(f)) {
        snprintf(err, errlen, "%.300s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

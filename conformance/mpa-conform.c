/*
 * mpa-conform: runs conformance suites (scenario scripts with a "test"
 * block, conformance/suites/) against a device under test and reports
 * per test: pass, fail, error or skip, with its requirement ids, in the
 * terminal, JSON (docs/mpa-conform-json.md), JUnit XML and a
 * self-contained HTML report.  The scenarios are played by mpa-inject's
 * engine (injector/inject/).  See docs/mpa-conform.1.
 */
#define _GNU_SOURCE /* strdup, realpath */
#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "html.h"
#include "mpa/findings.h"
#include "play.h"
#include "run.h"
#include "scen.h"

#ifndef MPA_VERSION
#define MPA_VERSION "0.1.0"
#endif

static void usage(FILE *f)
{
    fputs("usage: mpa-conform [OPTIONS] [SUITE-DIR | TEST.json]...\n"
          "Run MPA conformance tests against a device under test (default: every suite\n"
          "under conformance/suites).  Exit 0 when every mandatory test that ran passed,\n"
          "1 when one failed, 2 on an error.\n"
          "\n"
          "The device:\n"
          "  -d, --device HOST:PORT   the device listens there: its Responder tests (or --target)\n"
          "  -l, --listen [ADDR:]PORT the device connects to us there: its Initiator tests\n"
          "  -r, --role ROLE          responder, initiator or both (default: the roles whose\n"
          "                           address is given)\n"
          "      --caps LIST          what the device has: enhanced,p2p,markers,reject (tests\n"
          "                           that need more are skipped; default none)\n"
          "  -4, -6                   IPv4 or IPv6 only\n"
          "      --bind ADDR          local address for connecting (socket transport)\n"
          "      --spawn COMMAND      start the device for each test (sh -c; {addr} {peer}\n"
          "                           {port} as in mpa-inject); needs one --role\n"
          "      --lab COMMAND        the same in a network-namespace lab (root)\n"
          "      --before COMMAND     run sh -c COMMAND before each test ({test} {role});\n"
          "                           the test is an error if it exits non-zero\n"
          "Transport:\n"
          "      --transport socket|raw, --iface IF, --src ADDR, --src-port N, --gw-mac MAC,\n"
          "      --mss N              as in mpa-inject(1)\n"
          "Tests:\n"
          "  -t, --test GLOB          only tests whose id matches (repeatable: 'startup.*')\n"
          "      --list               list the selected tests and exit\n"
          "      --plan FILE          write the selected tests as an interop test plan\n"
          "                           (Markdown) and exit\n"
          "Reports:\n"
          "  -o, --out DIR            report.json, junit.xml, report.html and traces/ in DIR\n"
          "      --json FILE          the JSON report (- for stdout)\n"
          "      --junit FILE         JUnit XML\n"
          "      --html FILE          the HTML report (self-contained)\n"
          "  -q, --quiet              only the summary\n"
          "  -v, --verbose            every step of every test as it runs\n"
          "  -h, --help, --version\n",
          f);
}

/* ---- tests -------------------------------------------------------------- */

typedef struct test {
    scenario s;
    char suite[64];
    unsigned order; /* which argument it came from */
    int selected;
} test;

typedef struct tests {
    test *v;
    size_t n, cap;
} tests;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Suites in the order given (then by name), tests by id within. */
static int cmp_test(const void *a, const void *b)
{
    const test *x = a, *y = b;
    if (x->order != y->order)
        return x->order < y->order ? -1 : 1;
    int c = strcmp(x->suite, y->suite);
    return c ? c : strcmp(x->s.test_id, y->s.test_id);
}

static unsigned g_order; /* the command-line argument being loaded */

static int load_file(tests *T, const char *path, const char *suite, char *err, size_t errlen)
{
    if (T->n == T->cap) {
        size_t cap = T->cap ? T->cap * 2 : 64;
        test *nv = realloc(T->v, cap * sizeof *nv);
        if (!nv) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        T->v = nv;
        T->cap = cap;
    }
    test *t = &T->v[T->n];
    memset(t, 0, sizeof *t);
    if (sc_load(path, NULL, 0, &t->s, err, errlen))
        return -1;
    if (!t->s.is_test) {
        snprintf(err, errlen, "%s: $: not a conformance test (no \"test\": {\"id\", \"class\"})", path);
        sc_free(&t->s);
        return -1;
    }
    snprintf(t->suite, sizeof t->suite, "%s", suite);
    t->order = g_order;
    T->n++;
    return 0;
}

/* A directory: its *.json (suite = its name) and its subdirectories'
 * (suite = theirs), sorted. */
static int load_dir(tests *T, const char *dir, int depth, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%.300s: %s", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn)
                break;
            names = nn;
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    const char *base = strrchr(dir, '/');
    base = base && base[1] ? base + 1 : dir;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(p, &st))
            continue;
        size_t L = strlen(names[i]);
        if (S_ISDIR(st.st_mode) && depth == 0)
            rc = load_dir(T, p, 1, err, errlen);
        else if (S_ISREG(st.st_mode) && L > 5 && !strcmp(names[i] + L - 5, ".json"))
            rc = load_file(T, p, base, err, errlen);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

static int has_cap(const char *caps, const char *word)
{
    size_t w = strlen(word);
    for (const char *p = caps; p && *p;) {
        const char *c = strchr(p, ',');
        size_t L = c ? (size_t)(c - p) : strlen(p);
        if (L == w && !strncmp(p, word, w))
            return 1;
        p = c ? c + 1 : NULL;
    }
    return 0;
}

/* ---- the JSON report ------------------------------------------------------ */

static void add_req(cJSON *arr, const char *id)
{
    cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(it, "id");
        if (x && cJSON_IsString(x) && !strcmp(x->valuestring, id))
            return;
    }
    const mpa_rule *ru = mpa_rule_get(mpa_rule_find(id));
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", id);
    cJSON_AddStringToObject(o, "level", ru ? ru->level : "?");
    cJSON_AddStringToObject(o, "clause", ru && ru->clause ? ru->clause : "");
    cJSON_AddStringToObject(o, "text", ru && ru->text ? ru->text : "");
    cJSON_AddItemToArray(arr, o);
}

/* The test object of docs/mpa-conform-json.md from a run (or a skip). */
static cJSON *test_json(const test *t, const run_result *r, const char *transport, const char *skip_why,
                        const char *trace_rel)
{
    const scenario *s = &t->s;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", s->test_id);
    cJSON_AddStringToObject(o, "suite", t->suite);
    cJSON_AddStringToObject(o, "file", s->file);
    cJSON_AddStringToObject(o, "name", s->name);
    cJSON_AddStringToObject(o, "class", s->mandatory ? "M" : "FYI");
    cJSON_AddStringToObject(o, "description", s->description);
    cJSON_AddStringToObject(o, "device_role", s->device_initiator ? "initiator" : "responder");
    cJSON *nd = cJSON_AddArrayToObject(o, "needs");
    for (unsigned i = 0; i < s->nneeds; i++)
        cJSON_AddItemToArray(nd, cJSON_CreateString(s->needs[i]));
    cJSON *rq = cJSON_AddArrayToObject(o, "requirements");
    for (unsigned i = 0; i < s->nreq; i++)
        add_req(rq, s->req[i]);
    for (unsigned k = 0; k < s->nsteps; k++)
        for (unsigned i = 0; i < s->steps[k].nreq; i++)
            add_req(rq, s->steps[k].req[i]);
    cJSON *qs = cJSON_AddArrayToObject(o, "quirks");
    for (unsigned i = 0; i < s->nquirks; i++) {
        cJSON *q = cJSON_CreateObject();
        cJSON_AddStringToObject(q, "id", s->quirks[i].id);
        cJSON_AddStringToObject(q, "text", s->quirks[i].text);
        cJSON_AddItemToArray(qs, q);
    }
    cJSON_AddStringToObject(o, "setup", s->setup);
    cJSON_AddStringToObject(o, "problems", s->problems);
    if (skip_why) {
        cJSON_AddStringToObject(o, "verdict", "skip");
        cJSON_AddStringToObject(o, "reason", skip_why);
        cJSON_AddNumberToObject(o, "duration_ms", 0);
        cJSON *st = cJSON_AddArrayToObject(o, "steps");
        static const char *const verbs[] = {"", "open", "send", "expect", "sleep", "close", "abort"};
        for (unsigned k = 0; k < s->nsteps; k++) {
            cJSON *j = cJSON_CreateObject();
            cJSON_AddNumberToObject(j, "index", k + 1);
            cJSON_AddStringToObject(j, "verb", verbs[s->steps[k].verb]);
            cJSON_AddStringToObject(j, "verdict", "not run");
            cJSON_AddStringToObject(j, "what", "");
            cJSON_AddStringToObject(j, "detail", "");
            cJSON *sr = cJSON_AddArrayToObject(j, "requirements");
            for (unsigned i = 0; i < s->steps[k].nreq; i++)
                cJSON_AddItemToArray(sr, cJSON_CreateString(s->steps[k].req[i]));
            cJSON_AddItemToArray(st, j);
        }
        cJSON_AddArrayToObject(o, "findings");
        return o;
    }
    /* the run, as mpa-inject reports it, then reshaped */
    cJSON *run = play_json_result(s, r, transport);
    cJSON_AddStringToObject(o, "verdict", run_verdict_str(r->verdict));
    if (r->verdict == V_FAIL) {
        char why[1400];
        if (r->decided_at >= 0)
            snprintf(why, sizeof why, "step %d: %s: %s", r->decided_at + 1, r->steps[r->decided_at].what,
                     r->steps[r->decided_at].detail);
        else
            snprintf(why, sizeof why, "%s", r->error);
        cJSON_AddStringToObject(o, "reason", why);
        if (r->decided_at >= 0)
            cJSON_AddNumberToObject(o, "decided_at_step", r->decided_at + 1);
    } else if (r->verdict == V_ERROR) {
        cJSON_AddStringToObject(o, "reason", r->error);
    }
    cJSON_AddNumberToObject(o, "duration_ms", r->total_ms);
    cJSON_AddStringToObject(o, "device_address", r->remote);
    cJSON_AddStringToObject(o, "local_address", r->local);
    static const char *const moved[] = {"steps", "findings", "variables", "octets_sent", "octets_received",
                                        "unexamined", NULL};
    for (unsigned i = 0; moved[i]; i++) {
        cJSON *x = cJSON_DetachItemFromObjectCaseSensitive(run, moved[i]);
        if (x)
            cJSON_AddItemToObject(o, moved[i], x);
    }
    cJSON_Delete(run);
    if (trace_rel)
        cJSON_AddStringToObject(o, "trace", trace_rel);
    return o;
}

/* ---- --before COMMAND ------------------------------------------------------ */

/* Run the operator's command before a test, {test} and {role} replaced
 * (a device reset, a mark in the device's log, a health check).  What
 * it prints is read and dropped, but for its last line, which becomes
 * the reason when it fails: 0, or -1 and why. */
static int run_before(const char *cmd, const char *test_id, const char *role, char *why, size_t n)
{
    char line[4096];
    static const char *const keys[] = {"test", "role", NULL};
    const char *const vals[] = {test_id, role};
    play_expand(cmd, keys, vals, line, sizeof line);
    fflush(NULL);
    FILE *f = popen(line, "r");
    if (!f) {
        snprintf(why, n, "--before: cannot run the command: %s", strerror(errno));
        return -1;
    }
    char buf[512], last[200] = "";
    while (fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\n")] = 0;
        if (buf[0])
            snprintf(last, sizeof last, "%.199s", buf);
    }
    int st = pclose(f);
    if (st == 0)
        return 0;
    if (st > 0 && WIFEXITED(st))
        snprintf(why, n, "--before command exited with status %d%s%s", WEXITSTATUS(st), last[0] ? ": " : "", last);
    else if (st > 0 && WIFSIGNALED(st))
        snprintf(why, n, "--before command killed by signal %d%s%s", WTERMSIG(st), last[0] ? ": " : "", last);
    else
        snprintf(why, n, "--before command failed: %s", strerror(errno));
    return -1;
}

/* ---- JUnit XML ------------------------------------------------------------- */

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

static const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    return x && cJSON_IsString(x) ? x->valuestring : "";
}

static double jnum(const cJSON *o, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    return x && cJSON_IsNumber(x) ? x->valuedouble : 0;
}

static int write_junit(const cJSON *doc, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "%.300s: %s", path, strerror(errno));
        return -1;
    }
    const cJSON *tl = cJSON_GetObjectItemCaseSensitive(doc, "tests");
    const cJSON *sum = cJSON_GetObjectItemCaseSensitive(doc, "summary");
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<testsuites name=\"mpa-conform\" tests=\"%.0f\" failures=\"%.0f\" errors=\"%.0f\" skipped=\"%.0f\" "
               "time=\"%.3f\">\n",
            jnum(sum, "total"), jnum(sum, "fail"), jnum(sum, "error"), jnum(sum, "skip"),
            jnum(doc, "duration_ms") / 1000.0);
    /* one <testsuite> per suite, in the order the suites come */
    const cJSON *suites = cJSON_GetObjectItemCaseSensitive(doc, "suites");
    const cJSON *su;
    cJSON_ArrayForEach(su, suites)
    {
        const char *name = jstr(su, "name");
        unsigned n = 0, nf = 0, ne = 0, ns = 0;
        double ms = 0;
        const cJSON *t;
        cJSON_ArrayForEach(t, tl)
        {
            if (strcmp(jstr(t, "suite"), name))
                continue;
            n++;
            const char *v = jstr(t, "verdict");
            nf += !strcmp(v, "fail");
            ne += !strcmp(v, "error");
            ns += !strcmp(v, "skip");
            ms += jnum(t, "duration_ms");
        }
        fprintf(f, "  <testsuite name=\"");
        xml_esc(f, name);
        fprintf(f, "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\" time=\"%.3f\">\n", n, nf, ne, ns,
                ms / 1000.0);
        cJSON_ArrayForEach(t, tl)
        {
            if (strcmp(jstr(t, "suite"), name))
                continue;
            fprintf(f, "    <testcase classname=\"");
            xml_esc(f, name);
            fprintf(f, "\" name=\"");
            xml_esc(f, jstr(t, "id"));
            fprintf(f, " (%s)\" time=\"%.3f\">\n", jstr(t, "class"), jnum(t, "duration_ms") / 1000.0);
            const char *v = jstr(t, "verdict");
            const char *tag = !strcmp(v, "fail") ? "failure" : !strcmp(v, "error") ? "error" : !strcmp(v, "skip") ? "skipped" : NULL;
            if (tag) {
                fprintf(f, "      <%s message=\"", tag);
                xml_esc(f, jstr(t, "reason"));
                fprintf(f, "\"%s>", strcmp(tag, "skipped") ? "" : "/");
                if (strcmp(tag, "skipped")) {
                    const cJSON *rq = cJSON_GetObjectItemCaseSensitive(t, "requirements");
                    const cJSON *x;
                    cJSON_ArrayForEach(x, rq)
                    {
                        xml_esc(f, jstr(x, "id"));
                        fputs(" (", f);
                        xml_esc(f, jstr(x, "level"));
                        fputs("): ", f);
                        xml_esc(f, jstr(x, "text"));
                        fputc('\n', f);
                    }
                    fprintf(f, "</%s>", tag);
                }
                fputc('\n', f);
            }
            fprintf(f, "      <system-out>");
            const cJSON *st = cJSON_GetObjectItemCaseSensitive(t, "steps");
            const cJSON *x;
            cJSON_ArrayForEach(x, st)
            {
                fprintf(f, "%.0f %s %s\n", jnum(x, "index"), jstr(x, "verdict"), jstr(x, "verb"));
                if (*jstr(x, "what")) {
                    fputs("  ", f);
                    xml_esc(f, jstr(x, "what"));
                    fputc('\n', f);
                }
                if (*jstr(x, "detail")) {
                    fputs("  ", f);
                    xml_esc(f, jstr(x, "detail"));
                    fputc('\n', f);
                }
            }
            fprintf(f, "</system-out>\n    </testcase>\n");
        }
        fprintf(f, "  </testsuite>\n");
    }
    fprintf(f, "</testsuites>\n");
    if (fclose(f)) {
        snprintf(err, errlen, "%.300s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- the test plan --------------------------------------------------------- */

static void md_line(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s == '\n' ? ' ' : *s, f);
}

/* Steps of the file as written (compact JSON), for the procedure. */
static int write_plan(const tests *T, const char *path, char *err, size_t errlen)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (!f) {
        snprintf(err, errlen, "%.300s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "# MPA conformance test plan\n\n"
               "Made by `mpa-conform --plan` from the suites' scripts: do not edit, regenerate.\n"
               "Each test names the requirement ids it checks (the catalogue:\n"
               "[requirements.md](requirements.md)). Class M tests check a MUST; FYI tests check a\n"
               "SHOULD or MAY, or measure something, and never make a device non-conformant.\n"
               "The procedure is the test's script, step by step, in its own terms (see\n"
               "mpa-inject(1), THE SCENARIO FORMAT); the observable results are its expect steps.\n");
    const char *suite = "";
    unsigned n = 0;
    for (size_t i = 0; i < T->n; i++) {
        const test *t = &T->v[i];
        if (!t->selected)
            continue;
        const scenario *s = &t->s;
        if (strcmp(suite, t->suite)) {
            suite = t->suite;
            fprintf(f, "\n## Suite %s\n", suite);
        }
        n++;
        fprintf(f, "\n### %s (%s)\n\n", s->test_id, s->mandatory ? "M" : "FYI");
        fprintf(f, "- **Purpose**: ");
        md_line(f, s->description[0] ? s->description : s->name);
        fprintf(f, "\n- **References**:");
        cJSON *rq = cJSON_CreateArray();
        for (unsigned k = 0; k < s->nreq; k++)
            add_req(rq, s->req[k]);
        for (unsigned k = 0; k < s->nsteps; k++)
            for (unsigned q = 0; q < s->steps[k].nreq; q++)
                add_req(rq, s->steps[k].req[q]);
        if (!cJSON_GetArraySize(rq))
            fprintf(f, " none named");
        const cJSON *x;
        cJSON_ArrayForEach(x, rq)
        {
            fprintf(f, "\n  - `%s` (%s, %s): ", jstr(x, "id"), jstr(x, "level"), jstr(x, "clause"));
            md_line(f, jstr(x, "text"));
        }
        cJSON_Delete(rq);
        fprintf(f, "\n- **Setup**: the device is the MPA %s (%s).", s->device_initiator ? "Initiator" : "Responder",
                s->device_initiator ? "it connects to mpa-conform --listen" : "mpa-conform connects to --device");
        if (s->nneeds) {
            fprintf(f, " It needs:");
            for (unsigned k = 0; k < s->nneeds; k++)
                fprintf(f, "%s %s", k ? "," : "", s->needs[k]);
            fprintf(f, " (`--caps`).");
        }
        if (s->setup[0]) {
            fputc(' ', f);
            md_line(f, s->setup);
        }
        fprintf(f, "\n- **Procedure** (`%s`):\n", s->file);
        /* the script's steps as written */
        FILE *sf = fopen(s->file, "rb");
        cJSON *doc = NULL;
        if (sf) {
            fseek(sf, 0, SEEK_END);
            long len = ftell(sf);
            rewind(sf);
            char *txt = len > 0 ? malloc((size_t)len + 1) : NULL;
            if (txt && fread(txt, 1, (size_t)len, sf) == (size_t)len) {
                txt[len] = 0;
                doc = cJSON_Parse(txt);
            }
            free(txt);
            fclose(sf);
        }
        const cJSON *steps = doc ? cJSON_GetObjectItemCaseSensitive(doc, "steps") : NULL;
        int k = 0;
        cJSON_ArrayForEach(x, steps)
        {
            char *js = cJSON_PrintUnformatted(x);
            fprintf(f, "  %d. `%s`\n", ++k, js ? js : "?");
            free(js);
        }
        fprintf(f, "- **Observable results**: ");
        int e = 0;
        k = 0;
        cJSON_ArrayForEach(x, steps)
        {
            k++;
            const cJSON *ex = cJSON_GetObjectItemCaseSensitive(x, "expect");
            if (!ex)
                continue;
            char *js = cJSON_PrintUnformatted(ex);
            fprintf(f, "%sstep %d, `%s`", e++ ? "; " : "", k, js ? js : "?");
            free(js);
        }
        if (!e)
            fprintf(f, "none (the test measures)");
        fprintf(f, ". A test fails at the first expectation not met, or when libmpa finds a rule broken\n"
                   "  in the device's octets (its id is given).\n");
        cJSON_Delete(doc);
        fprintf(f, "- **Possible problems**: ");
        if (s->problems[0])
            md_line(f, s->problems);
        else
            fprintf(f, "none known.");
        for (unsigned q = 0; q < s->nquirks; q++) {
            fprintf(f, "\n  - Quirk `%s`: ", s->quirks[q].id);
            md_line(f, s->quirks[q].text);
        }
        fputc('\n', f);
    }
    fprintf(f, "\n%u tests.\n", n);
    if (f != stdout && fclose(f)) {
        snprintf(err, errlen, "%.300s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- main ------------------------------------------------------------------ */

static tests g_T;

static void free_tests(void)
{
    for (size_t i = 0; i < g_T.n; i++)
        sc_free(&g_T.v[i].s);
    free(g_T.v);
    g_T.v = NULL;
    g_T.n = 0;
}

static int write_doc(const cJSON *doc, const char *path, char *err, size_t errlen)
{
    char *txt = cJSON_Print(doc);
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    int bad = !f || !txt || fputs(txt, f) < 0 || fputc('\n', f) < 0;
    if (f && f != stdout && fclose(f))
        bad = 1;
    free(txt);
    if (bad) {
        snprintf(err, errlen, "%.300s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

static int mkdirs(const char *dir)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = 0;
            mkdir(p, 0777);
            *s = '/';
        }
    }
    return mkdir(p, 0777) && errno != EEXIST ? -1 : 0;
}

enum {
    O_CAPS = 256, O_BIND, O_SPAWN, O_LAB, O_TRANSPORT, O_IFACE, O_SRC, O_SRC_PORT, O_GW_MAC, O_MSS, O_LIST, O_PLAN,
    O_JSON, O_JUNIT, O_HTML, O_VERSION, O_BEFORE,
};

int main(int argc, char **argv)
{
    static const struct option lo[] = {
        {"device", required_argument, NULL, 'd'}, {"target", required_argument, NULL, 'd'},
        {"listen", required_argument, NULL, 'l'}, {"role", required_argument, NULL, 'r'},
        {"caps", required_argument, NULL, O_CAPS}, {"bind", required_argument, NULL, O_BIND},
        {"spawn", required_argument, NULL, O_SPAWN}, {"lab", required_argument, NULL, O_LAB},
        {"before", required_argument, NULL, O_BEFORE},
        {"transport", required_argument, NULL, O_TRANSPORT}, {"iface", required_argument, NULL, O_IFACE},
        {"src", required_argument, NULL, O_SRC}, {"src-port", required_argument, NULL, O_SRC_PORT},
        {"gw-mac", required_argument, NULL, O_GW_MAC}, {"mss", required_argument, NULL, O_MSS},
        {"test", required_argument, NULL, 't'}, {"list", no_argument, NULL, O_LIST},
        {"plan", required_argument, NULL, O_PLAN}, {"out", required_argument, NULL, 'o'},
        {"json", required_argument, NULL, O_JSON}, {"junit", required_argument, NULL, O_JUNIT},
        {"html", required_argument, NULL, O_HTML}, {"quiet", no_argument, NULL, 'q'},
        {"verbose", no_argument, NULL, 'v'}, {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, O_VERSION}, {NULL, 0, NULL, 0},
    };
    play_cfg pc;
    memset(&pc, 0, sizeof pc);
    pc.transport = "socket";
    const char *before = NULL;
    const char *role = NULL, *caps = "", *plan = NULL, *out_dir = NULL, *json = NULL, *junit = NULL, *html = NULL;
    const char **globs = calloc((size_t)argc + 1, sizeof *globs);
    unsigned nglobs = 0;
    int list = 0, quiet = 0, verbose = 0;
    long num;
    atexit(free_tests);
    int c;
    while ((c = getopt_long(argc, argv, "d:l:r:46t:o:qvh", lo, NULL)) != -1) {
        switch (c) {
        case 'd': pc.target = optarg; break;
        case 'l': pc.listen_at = optarg; break;
        case 'r': role = optarg; break;
        case '4': pc.family = 4; break;
        case '6': pc.family = 6; break;
        case O_CAPS: caps = optarg; break;
        case O_BIND: pc.bind = optarg; break;
        case O_SPAWN: pc.spawn_cmd = optarg; break;
        case O_LAB: pc.lab_cmd = optarg; break;
        case O_BEFORE: before = optarg; break;
        case O_TRANSPORT: pc.transport = optarg; break;
        case O_IFACE: pc.iface = optarg; break;
        case O_SRC: pc.src = optarg; break;
        case O_SRC_PORT:
            if (play_num_arg(optarg, 1, 65535, &num)) {
                fprintf(stderr, "mpa-conform: --src-port %s: not a port\n", optarg);
                free(globs);
                return 2;
            }
            pc.src_port = (uint16_t)num;
            break;
        case O_GW_MAC: pc.gw_mac = optarg; break;
        case O_MSS:
            if (play_num_arg(optarg, 64, 65495, &num)) {
                fprintf(stderr, "mpa-conform: --mss %s: not in 64..65495\n", optarg);
                free(globs);
                return 2;
            }
            pc.mss = (uint16_t)num;
            break;
        case 't': globs[nglobs++] = optarg; break;
        case O_LIST: list = 1; break;
        case O_PLAN: plan = optarg; break;
        case 'o': out_dir = optarg; break;
        case O_JSON: json = optarg; break;
        case O_JUNIT: junit = optarg; break;
        case O_HTML: html = optarg; break;
        case 'q': quiet = 1; break;
        case 'v': verbose = 1; break;
        case 'h': usage(stdout); free(globs); return 0;
        case O_VERSION: printf("mpa-conform %s\n", MPA_VERSION); free(globs); return 0;
        default: usage(stderr); free(globs); return 2;
        }
    }
    /* caps: known words only */
    for (const char *p = caps; *p;) {
        const char *cm = strchr(p, ',');
        size_t L = cm ? (size_t)(cm - p) : strlen(p);
        int known = 0;
        for (unsigned k = 0; sc_need_words[k]; k++)
            known |= strlen(sc_need_words[k]) == L && !strncmp(p, sc_need_words[k], L);
        if (!known) {
            fprintf(stderr, "mpa-conform: --caps %s: \"%.*s\" is not one of enhanced, p2p, markers, reject\n", caps,
                    (int)L, p);
            free(globs);
            return 2;
        }
        p = cm ? cm + 1 : p + L;
    }
    int want_resp = 1, want_init = 1;
    if (role) {
        want_resp = !strcmp(role, "responder") || !strcmp(role, "both");
        want_init = !strcmp(role, "initiator") || !strcmp(role, "both");
        if (!want_resp && !want_init) {
            fprintf(stderr, "mpa-conform: --role %s: responder, initiator or both\n", role);
            free(globs);
            return 2;
        }
    }
    /* the tests */
    char err[600];
    if (optind == argc) {
        if (load_dir(&g_T, "conformance/suites", 0, err, sizeof err)) {
            fprintf(stderr, "mpa-conform: %s\n", err);
            free(globs);
            return 2;
        }
    }
    for (int i = optind; i < argc; i++) {
        struct stat st;
        int rc;
        g_order = (unsigned)i;
        if (stat(argv[i], &st)) {
            fprintf(stderr, "mpa-conform: %s: %s\n", argv[i], strerror(errno));
            free(globs);
            return 2;
        }
        if (S_ISDIR(st.st_mode)) {
            rc = load_dir(&g_T, argv[i], 0, err, sizeof err);
        } else {
            char d[PATH_MAX];
            snprintf(d, sizeof d, "%s", argv[i]);
            char *sl = strrchr(d, '/');
            const char *suite = "tests";
            if (sl) {
                *sl = 0;
                char *s2 = strrchr(d, '/');
                suite = s2 ? s2 + 1 : d;
            }
            rc = load_file(&g_T, argv[i], suite, err, sizeof err);
        }
        if (rc) {
            fprintf(stderr, "mpa-conform: %s\n", err);
            free(globs);
            return 2;
        }
    }
    qsort(g_T.v, g_T.n, sizeof *g_T.v, cmp_test);
    for (size_t i = 0; i < g_T.n; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(g_T.v[i].s.test_id, g_T.v[j].s.test_id)) {
                fprintf(stderr, "mpa-conform: %s: test id %s is also the id of %s\n", g_T.v[i].s.file,
                        g_T.v[i].s.test_id, g_T.v[j].s.file);
                free(globs);
                return 2;
            }
    size_t nsel = 0;
    for (size_t i = 0; i < g_T.n; i++) {
        test *t = &g_T.v[i];
        t->selected = nglobs == 0;
        for (unsigned k = 0; k < nglobs && !t->selected; k++)
            t->selected = !fnmatch(globs[k], t->s.test_id, 0) || !fnmatch(globs[k], t->suite, 0);
        nsel += t->selected;
    }
    free(globs);
    if (!nsel) {
        fprintf(stderr, "mpa-conform: no test selected (of %zu)\n", g_T.n);
        return 2;
    }
    if (list) {
        for (size_t i = 0; i < g_T.n; i++) {
            const test *t = &g_T.v[i];
            if (!t->selected)
                continue;
            printf("%-44s %-3s %-9s", t->s.test_id, t->s.mandatory ? "M" : "FYI",
                   t->s.device_initiator ? "initiator" : "responder");
            for (unsigned k = 0; k < t->s.nneeds; k++)
                printf("%s%s", k ? "," : " needs ", t->s.needs[k]);
            printf("  %s\n", t->s.file);
        }
        return 0;
    }
    if (plan) {
        if (write_plan(&g_T, plan, err, sizeof err)) {
            fprintf(stderr, "mpa-conform: --plan %s\n", err);
            return 2;
        }
        return 0;
    }
    if (!role) {
        want_resp = pc.target != NULL;
        want_init = pc.listen_at != NULL;
        if (!want_resp && !want_init) {
            fprintf(stderr, "mpa-conform: where is the device? --device HOST:PORT (it is the Responder) and/or "
                            "--listen PORT (it is the Initiator)\n");
            return 2;
        }
    }
    if ((pc.spawn_cmd || pc.lab_cmd) && want_resp && want_init) {
        fprintf(stderr, "mpa-conform: --spawn/--lab start one device command: give --role responder or initiator\n");
        return 2;
    }
    if (want_resp && !pc.target) {
        fprintf(stderr, "mpa-conform: --role %s: the device's Responder tests need --device HOST:PORT\n", role);
        return 2;
    }
    if (want_init && !pc.listen_at) {
        fprintf(stderr, "mpa-conform: --role %s: the device's Initiator tests need --listen [ADDR:]PORT\n", role);
        return 2;
    }
    /* where the reports go */
    char json_p[PATH_MAX], junit_p[PATH_MAX], html_p[PATH_MAX], trace_dir[PATH_MAX], base[PATH_MAX];
    if (out_dir) {
        if (mkdirs(out_dir)) {
            fprintf(stderr, "mpa-conform: --out %s: %s\n", out_dir, strerror(errno));
            return 2;
        }
        snprintf(json_p, sizeof json_p, "%.3000s/report.json", out_dir);
        snprintf(junit_p, sizeof junit_p, "%.3000s/junit.xml", out_dir);
        snprintf(html_p, sizeof html_p, "%.3000s/report.html", out_dir);
        if (!json)
            json = json_p;
        if (!junit)
            junit = junit_p;
        if (!html)
            html = html_p;
    }
    /* traces live beside the JSON (or the HTML) report, in traces/ */
    const char *anchor = json && strcmp(json, "-") ? json : html ? html : NULL;
    if (anchor) {
        snprintf(base, sizeof base, "%.3000s", anchor);
        char *sl = strrchr(base, '/');
        if (sl)
            *sl = 0;
        else
            snprintf(base, sizeof base, ".");
        snprintf(trace_dir, sizeof trace_dir, "%.3000s/traces", base);
        if (mkdirs(trace_dir)) {
            fprintf(stderr, "mpa-conform: %s: %s\n", trace_dir, strerror(errno));
            return 2;
        }
    }
    play_catch_signals();
    FILE *outf = json && !strcmp(json, "-") ? stderr : stdout;
    pc.progress = verbose ? outf : NULL;
    pc.verbose = 0;
    static player P;
    if (play_init(&P, &pc, err, sizeof err) || play_start(&P, err, sizeof err)) {
        fprintf(stderr, "mpa-conform: %s\n", err);
        return 2;
    }
    time_t t0 = time(NULL);
    struct timespec ts0, ts1;
    clock_gettime(CLOCK_MONOTONIC, &ts0);
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "tool", "mpa-conform");
    cJSON_AddStringToObject(doc, "version", MPA_VERSION);
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t0));
    cJSON_AddStringToObject(doc, "started", when);
    cJSON *dev = cJSON_AddObjectToObject(doc, "device");
    char hp[300];
    const char *lo_addr = pc.family == 6 ? "::1" : "127.0.0.1";
    if (pc.target) {
        const char *h = P.thost[0] ? P.thost : lo_addr;
        snprintf(hp, sizeof hp, strchr(h, ':') ? "[%s]:%s" : "%s:%s", h, P.tport);
        cJSON_AddStringToObject(dev, "address", hp);
    } else {
        cJSON_AddNullToObject(dev, "address");
    }
    if (pc.listen_at) {
        const char *h = P.lhost[0] ? P.lhost : pc.spawn_cmd ? lo_addr : "*";
        snprintf(hp, sizeof hp, strchr(h, ':') ? "[%s]:%s" : "%s:%s", h, P.lport);
        cJSON_AddStringToObject(dev, "listen", hp);
    } else {
        cJSON_AddNullToObject(dev, "listen");
    }
    cJSON_AddStringToObject(dev, "transport", pc.transport);
    cJSON *cj = cJSON_AddArrayToObject(dev, "caps");
    for (unsigned k = 0; sc_need_words[k]; k++)
        if (has_cap(caps, sc_need_words[k]))
            cJSON_AddItemToArray(cj, cJSON_CreateString(sc_need_words[k]));
    if (pc.spawn_cmd || pc.lab_cmd)
        cJSON_AddStringToObject(dev, "command", pc.spawn_cmd ? pc.spawn_cmd : pc.lab_cmd);
    else
        cJSON_AddNullToObject(dev, "command");
    cJSON *sel = cJSON_AddArrayToObject(doc, "selection");
    for (int i = 1; i < argc; i++)
        if ((!strcmp(argv[i], "-t") || !strcmp(argv[i], "--test")) && i + 1 < argc)
            cJSON_AddItemToArray(sel, cJSON_CreateString(argv[i + 1]));
    cJSON *suites = cJSON_AddArrayToObject(doc, "suites");
    cJSON *tl = cJSON_AddArrayToObject(doc, "tests");
    unsigned n[5] = {0}, m[5] = {0}; /* pass fail error skip total */
    const char *last_suite = "";
    for (size_t i = 0; i < g_T.n; i++) {
        test *t = &g_T.v[i];
        if (!t->selected)
            continue;
        if (strcmp(last_suite, t->suite)) {
            last_suite = t->suite;
            cJSON *so = cJSON_CreateObject();
            cJSON_AddStringToObject(so, "name", t->suite);
            char d[PATH_MAX];
            snprintf(d, sizeof d, "%s", t->s.file);
            char *sl = strrchr(d, '/');
            if (sl)
                *sl = 0;
            cJSON_AddStringToObject(so, "path", d);
            unsigned cnt = 0;
            for (size_t j = i; j < g_T.n; j++)
                cnt += g_T.v[j].selected && !strcmp(g_T.v[j].suite, t->suite);
            cJSON_AddNumberToObject(so, "tests", cnt);
            cJSON_AddItemToArray(suites, so);
        }
        const scenario *s = &t->s;
        char why[300] = "";
        if (run_interrupted)
            snprintf(why, sizeof why, "not run: interrupted");
        else if (s->device_initiator ? !want_init : !want_resp)
            snprintf(why, sizeof why, "the device's %s role is not tested here (--role, %s)",
                     s->device_initiator ? "Initiator" : "Responder", s->device_initiator ? "--listen" : "--device");
        for (unsigned k = 0; !why[0] && k < s->nneeds; k++)
            if (!has_cap(caps, s->needs[k]))
                snprintf(why, sizeof why, "needs a device with %s (--caps)", s->needs[k]);
        cJSON *to;
        int v;
        double ms = 0;
        if (why[0]) {
            to = test_json(t, NULL, pc.transport, why, NULL);
            v = 3;
        } else {
            char tpath[PATH_MAX + 200], rel[PATH_MAX];
            const char *tpp = NULL, *relp = NULL;
            if (anchor) {
                snprintf(tpath, sizeof tpath, "%.3100s/%s.pcapng", trace_dir, s->test_id);
                snprintf(rel, sizeof rel, "traces/%s.pcapng", s->test_id);
                tpp = tpath;
                relp = rel;
            }
            run_result r;
            char bwhy[sizeof r.error];
            if (before && run_before(before, s->test_id, s->device_initiator ? "initiator" : "responder", bwhy,
                                     sizeof bwhy)) {
                memset(&r, 0, sizeof r);
                r.verdict = V_ERROR;
                r.decided_at = -1;
                snprintf(r.error, sizeof r.error, "%s", bwhy);
            } else {
                play_run(&P, s, tpp, &r);
            }
            if (relp && !r.trace[0])
                relp = NULL;
            to = test_json(t, &r, pc.transport, NULL, relp);
            v = r.verdict == V_PASS ? 0 : r.verdict == V_FAIL ? 1 : 2;
            ms = r.total_ms;
            run_result_free(&r);
        }
        n[v]++;
        n[4]++;
        if (s->mandatory) {
            m[v]++;
            m[4]++;
        }
        static const char *const vw[] = {"PASS", "FAIL", "ERROR", "SKIP"};
        if (!quiet || v == 1 || v == 2) {
            fprintf(outf, "%-5s %-3s %-44s", vw[v], s->mandatory ? "M" : "FYI", s->test_id);
            if (v < 3)
                fprintf(outf, " %8.1f ms", ms);
            fputc('\n', outf);
            if (v)
                fprintf(outf, "      %s\n", jstr(to, "reason"));
        }
        cJSON_AddItemToArray(tl, to);
    }
    clock_gettime(CLOCK_MONOTONIC, &ts1);
    double total_ms = (double)(ts1.tv_sec - ts0.tv_sec) * 1000.0 + (double)(ts1.tv_nsec - ts0.tv_nsec) / 1e6;
    cJSON_AddNumberToObject(doc, "duration_ms", total_ms);
    int rc = n[2] || run_interrupted ? 2 : m[1] ? 1 : 0;
    cJSON *sum = cJSON_AddObjectToObject(doc, "summary");
    static const char *const keys[] = {"pass", "fail", "error", "skip"};
    cJSON_AddNumberToObject(sum, "total", n[4]);
    for (int k = 0; k < 4; k++)
        cJSON_AddNumberToObject(sum, keys[k], n[k]);
    cJSON *ms = cJSON_AddObjectToObject(sum, "mandatory");
    cJSON_AddNumberToObject(ms, "total", m[4]);
    for (int k = 0; k < 4; k++)
        cJSON_AddNumberToObject(ms, keys[k], m[k]);
    cJSON_AddNumberToObject(sum, "exit_status", rc);
    fprintf(outf, "\n%u tests in %.1f s: %u passed, %u failed, %u errors, %u skipped", n[4], total_ms / 1000.0, n[0],
            n[1], n[2], n[3]);
    fprintf(outf, "; mandatory: %u of %u passed%s\n", m[0], m[4] - m[3],
            m[1] ? " - the device does NOT conform" : m[2] ? "" : m[4] - m[3] ? " - conformant on what ran" : "");
    if (run_interrupted)
        fprintf(outf, "(interrupted)\n");
    play_done(&P);
    if (json && write_doc(doc, json, err, sizeof err)) {
        fprintf(stderr, "mpa-conform: --json %s\n", err);
        rc = 2;
    }
    if (junit && write_junit(doc, junit, err, sizeof err)) {
        fprintf(stderr, "mpa-conform: --junit %s\n", err);
        rc = 2;
    }
    if (html) {
        FILE *hf = fopen(html, "w");
        if (!hf || conform_html(doc, anchor ? base : ".", hf, err, sizeof err) || fclose(hf)) {
            fprintf(stderr, "mpa-conform: --html %s: %s\n", html, hf ? err : strerror(errno));
            rc = 2;
        }
    }
    if (out_dir && !quiet)
        fprintf(outf, "reports: %s, %s, %s\n", json_p, junit_p, html_p);
    cJSON_Delete(doc);
    return rc;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The interop test plan (plan.h). */
#include "plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "jget.h"
#include "jsonrep.h"

/* s on one line (a newline becomes a space). */
static void md_line(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s == '\n' ? ' ' : *s, f);
}

/* The requirements the test and its steps name, with their text. */
static void put_references(FILE *f, const scenario *s)
{
    fprintf(f, "\n- **References**:");
    cJSON *rq = cJSON_CreateArray();
    for (unsigned k = 0; k < s->nreq; k++)
        jrep_add_req(rq, s->req[k]);
    for (unsigned k = 0; k < s->nsteps; k++)
        for (unsigned q = 0; q < s->steps[k].nreq; q++)
            jrep_add_req(rq, s->steps[k].req[q]);
    if (!cJSON_GetArraySize(rq))
        fprintf(f, " none named");
    const cJSON *x;
    cJSON_ArrayForEach(x, rq)
    {
        fprintf(f, "\n  - `%s` (%s, %s): ", jget_str_or(x, "id", ""), jget_str_or(x, "level", ""),
                jget_str_or(x, "clause", ""));
        md_line(f, jget_str_or(x, "text", ""));
    }
    cJSON_Delete(rq);
}

static void put_setup(FILE *f, const scenario *s)
{
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
}

/* The script file as JSON (to be deleted), NULL when it cannot be read. */
static cJSON *read_script(const char *file)
{
    FILE *sf = fopen(file, "rb");
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
    return doc;
}

/* The procedure (the script's steps as written, compact JSON) and the
 * observable results (its expect steps). */
static void put_procedure(FILE *f, const scenario *s)
{
    fprintf(f, "\n- **Procedure** (`%s`):\n", s->file);
    cJSON *doc = read_script(s->file);
    const cJSON *steps = jget(doc, "steps");
    const cJSON *x;
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
        const cJSON *ex = jget(x, "expect");
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
}

static void put_test(FILE *f, const conf_test *t)
{
    const scenario *s = &t->s;
    fprintf(f, "\n### %s (%s)\n\n", s->test_id, s->mandatory ? "M" : "FYI");
    fprintf(f, "- **Purpose**: ");
    md_line(f, s->description[0] ? s->description : s->name);
    put_references(f, s);
    put_setup(f, s);
    put_procedure(f, s);
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

int plan_write(const conf_tests *T, const char *path, char *err, size_t errlen)
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
               "mpa-scenario(5)); the observable results are its expect steps.\n");
    unsigned n = 0;
    int starts;
    for (size_t i = suite_next(T, 0, &starts); i < T->n; i = suite_next(T, i + 1, &starts)) {
        const conf_test *t = &T->v[i];
        if (starts)
            fprintf(f, "\n## Suite %s\n", t->suite);
        n++;
        put_test(f, t);
    }
    fprintf(f, "\n%u tests.\n", n);
    /* A write that failed earlier leaves nothing for fclose to flush when
     * the plan's size is a multiple of the buffer's: ask ferror too. */
    int bad = ferror(f) ? EIO : 0;
    if (f != stdout && fclose(f) && !bad)
        bad = errno;
    if (bad) {
        snprintf(err, errlen, "%.300s: %s", path, strerror(bad));
        return -1;
    }
    return 0;
}

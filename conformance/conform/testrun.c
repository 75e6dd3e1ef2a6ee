/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mpa-conform's run over the selected tests (testrun.h). */
#include "testrun.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "jget.h"
#include "jsonrep.h"
#include "run.h"
#include "term.h"

int runner_before(const char *cmd, const char *test_id, const char *role, char *why, size_t n)
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

/* Why test s is not run here (into why, n octets), or "" when it is. */
static void skip_reason(const scenario *s, const runner_cfg *c, char *why, size_t n)
{
    why[0] = 0;
    if (run_interrupted)
        snprintf(why, n, "not run: interrupted");
    else if (s->device_initiator ? !c->want_init : !c->want_resp)
        snprintf(why, n, "the device's %s role is not tested here (--role, %s)",
                 s->device_initiator ? "Initiator" : "Responder", s->device_initiator ? "--listen" : "--device");
    for (unsigned k = 0; !why[0] && k < s->nneeds; k++)
        if (!suite_has_cap(c->caps, s->needs[k]))
            snprintf(why, n, "needs a device with %s (--caps)", s->needs[k]);
}

/* Plays test t (after the --before command); its test object, its
 * TALLY_ verdict in *v and its duration in *ms. */
static cJSON *play_one(player *P, const play_cfg *pc, const conf_test *t, const runner_cfg *c, int *v, double *ms)
{
    const scenario *s = &t->s;
    char tpath[PATH_MAX + 200], rel[PATH_MAX];
    const char *tpp = NULL, *relp = NULL;
    if (c->trace_dir) {
        snprintf(tpath, sizeof tpath, "%.3100s/%s.pcapng", c->trace_dir, s->test_id);
        snprintf(rel, sizeof rel, "traces/%s.pcapng", s->test_id);
        tpp = tpath;
        relp = rel;
    }
    run_result r;
    char bwhy[sizeof r.error];
    if (c->before &&
        runner_before(c->before, s->test_id, s->device_initiator ? "initiator" : "responder", bwhy, sizeof bwhy)) {
        memset(&r, 0, sizeof r);
        r.verdict = V_ERROR;
        r.decided_at = -1;
        snprintf(r.error, sizeof r.error, "%s", bwhy);
    } else {
        play_run(P, s, tpp, &r);
    }
    if (relp && !r.trace[0])
        relp = NULL;
    cJSON *to = jrep_test(t, &r, pc->transport, NULL, relp);
    *v = r.verdict == V_PASS ? TALLY_PASS : r.verdict == V_FAIL ? TALLY_FAIL : TALLY_ERROR;
    *ms = r.total_ms;
    run_result_free(&r);
    return to;
}

cJSON *runner_run(player *P, const play_cfg *pc, const conf_tests *T, const runner_cfg *c, int *exit_status)
{
    time_t t0 = time(NULL);
    struct timespec ts0, ts1;
    clock_gettime(CLOCK_MONOTONIC, &ts0);
    cJSON *doc = jrep_begin(pc, P, c->caps, c->selection, c->nselection, t0);
    cJSON *tl = cJSON_GetObjectItemCaseSensitive(doc, "tests");
    conf_tally tally = {{0}, {0}};
    int starts;
    for (size_t i = suite_next(T, 0, &starts); i < T->n; i = suite_next(T, i + 1, &starts)) {
        const conf_test *t = &T->v[i];
        if (starts)
            jrep_add_suite(doc, T, i);
        char why[300];
        skip_reason(&t->s, c, why, sizeof why);
        cJSON *to;
        int v = TALLY_SKIP;
        double ms = 0;
        if (why[0])
            to = jrep_test(t, NULL, pc->transport, why, NULL);
        else
            to = play_one(P, pc, t, c, &v, &ms);
        tally.n[v]++;
        tally.n[TALLY_TOTAL]++;
        if (t->s.mandatory) {
            tally.m[v]++;
            tally.m[TALLY_TOTAL]++;
        }
        term_test(c->out, v, t->s.mandatory, t->s.test_id, ms, jget_str_or(to, "reason", ""), c->quiet);
        cJSON_AddItemToArray(tl, to);
    }
    clock_gettime(CLOCK_MONOTONIC, &ts1);
    double total_ms = (double)(ts1.tv_sec - ts0.tv_sec) * 1000.0 + (double)(ts1.tv_nsec - ts0.tv_nsec) / 1e6;
    int rc = tally.n[TALLY_ERROR] || run_interrupted ? 2 : tally.m[TALLY_FAIL] ? 1 : 0;
    jrep_end(doc, &tally, total_ms, rc);
    term_summary(c->out, &tally, total_ms, run_interrupted);
    *exit_status = rc;
    return doc;
}

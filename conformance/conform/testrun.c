/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mpa-conform's run over the selected tests (testrun.h). */
#include "testrun.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include <stdio.h>

#include "jget.h"
#include "jsonrep.h"
#include "run.h"
#include "term.h"

int runner_command(const char *opt, const char *cmd, const char *test_id, const char *role, char *last,
                   size_t lastn, char *why, size_t n)
{
    char line[4096];
    static const char *const keys[] = {"test", "role", NULL};
    const char *const vals[] = {test_id, role};
    play_expand(cmd, keys, vals, line, sizeof line);
    fflush(NULL);
    last[0] = 0;
    FILE *f = popen(line, "r");
    if (!f) {
        snprintf(why, n, "%s: cannot run the command: %s", opt, strerror(errno));
        return -1;
    }
    char buf[512];
    while (fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\n")] = 0;
        if (buf[0])
            snprintf(last, lastn, "%.*s", (int)(lastn > 200 ? 199 : lastn - 1), buf);
    }
    int st = pclose(f);
    if (st == 0)
        return 0;
    if (st > 0 && WIFEXITED(st)) {
        snprintf(why, n, "%s command exited with status %d%s%s", opt, WEXITSTATUS(st), last[0] ? ": " : "", last);
        return WEXITSTATUS(st);
    }
    if (st > 0 && WIFSIGNALED(st))
        snprintf(why, n, "%s command killed by signal %d%s%s", opt, WTERMSIG(st), last[0] ? ": " : "", last);
    else
        snprintf(why, n, "%s command failed: %s", opt, strerror(errno));
    return -1;
}

int runner_before(const char *cmd, const char *test_id, const char *role, char *why, size_t n)
{
    char last[200];
    return runner_command("--before", cmd, test_id, role, last, sizeof last, why, n) ? -1 : 0;
}

/* Per role of the device (0 Responder, 1 Initiator): whether a test has
 * reached it, and why it does not answer ("" while it may). */
typedef struct reach {
    int reached[2];
    char dead[2][400];
} reach;

/* Test object to of a test whose device role is role: a test that could
 * not even open its connection, before any test reached the device in
 * that role, makes the device unreachable in it. */
static void reach_note(reach *rh, int role, const cJSON *to)
{
    if (rh->reached[role])
        return;
    const cJSON *st0 = cJSON_GetArrayItem(jget(to, "steps"), 0);
    const char *v = jget_str(to, "verdict"), *sv = jget_str(st0, "verdict"), *verb = jget_str(st0, "verb");
    if (v && !strcmp(v, "error") && sv && !strcmp(sv, "error") && verb && !strcmp(verb, "open"))
        snprintf(rh->dead[role], sizeof rh->dead[role], "%.390s", jget_str_or(to, "reason", "?"));
    else if (v && strcmp(v, "skip"))
        rh->reached[role] = 1;
}

/* Why test s is not run here (into why, n octets), or "" when it is. */
static void skip_reason(const scenario *s, const runner_cfg *c, const reach *rh, char *why, size_t n)
{
    why[0] = 0;
    if (run_interrupted)
        snprintf(why, n, "not run: interrupted");
    else if (s->device_initiator ? !c->want_init : !c->want_resp)
        snprintf(why, n, "the device's %s role is not tested here (--role, %s)",
                 s->device_initiator ? "Initiator" : "Responder", s->device_initiator ? "--listen" : "--device");
    else if (rh->dead[s->device_initiator][0])
        snprintf(why, n, "not run: the device did not answer as the %s",
                 s->device_initiator ? "Initiator" : "Responder");
    for (unsigned k = 0; !why[0] && k < s->nneeds; k++)
        if (!suite_has_cap(c->caps, s->needs[k]))
            snprintf(why, n, "needs a device with %s (--caps)", s->needs[k]);
}

/* Plays test t (after the --before command); its test object, its
 * TALLY_ verdict in *v. */
static cJSON *play_one(player *P, const play_cfg *pc, const conf_test *t, const runner_cfg *c, int *v)
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
    int ran = 0;
    if (c->before &&
        runner_before(c->before, s->test_id, s->device_initiator ? "initiator" : "responder", bwhy, sizeof bwhy)) {
        memset(&r, 0, sizeof r);
        r.verdict = V_ERROR;
        r.decided_at = -1;
        snprintf(r.error, sizeof r.error, "%s", bwhy);
    } else {
        play_run(P, s, tpp, &r);
        ran = 1;
    }
    if (relp && !r.trace[0])
        relp = NULL;
    cJSON *to = jrep_test(t, &r, pc->transport, NULL, relp);
    *v = r.verdict == V_PASS ? TALLY_PASS : r.verdict == V_FAIL ? TALLY_FAIL : TALLY_ERROR;
    run_result_free(&r);
    if (ran && c->after) {
        /* the device's health after the test: exit 1 means harmed */
        char last[200], awhy[sizeof r.error];
        int st = runner_command("--after", c->after, s->test_id, s->device_initiator ? "initiator" : "responder",
                                last, sizeof last, awhy, sizeof awhy);
        if (st == 1) {
            jrep_harmed(to, last[0] ? last : "the --after command found the device harmed");
            if (*v == TALLY_PASS)
                *v = TALLY_FAIL;
        } else if (st) {
            jrep_after_error(to, awhy);
            *v = TALLY_ERROR;
        }
    }
    return to;
}

/* The first test of each role that is to run is played before any
 * other (its result kept for its turn): a device that does not answer
 * in a role is known before a line is written. */
typedef struct probe {
    size_t idx[2];  /* T->n: none */
    cJSON *to[2];
    int v[2];
} probe;

static void run_probes(player *P, const play_cfg *pc, const conf_tests *T, const runner_cfg *c, reach *rh,
                       probe *pb)
{
    int starts;
    pb->idx[0] = pb->idx[1] = T->n;
    pb->to[0] = pb->to[1] = NULL;
    for (size_t i = suite_next(T, 0, &starts); i < T->n; i = suite_next(T, i + 1, &starts)) {
        const conf_test *t = &T->v[i];
        int role = t->s.device_initiator;
        char why[300];
        skip_reason(&t->s, c, rh, why, sizeof why);
        if (why[0] || pb->idx[role] < T->n)
            continue;
        pb->idx[role] = i;
        pb->to[role] = play_one(P, pc, t, c, &pb->v[role]);
        reach_note(rh, role, pb->to[role]);
    }
}

cJSON *runner_run(player *P, const play_cfg *pc, const conf_tests *T, const runner_cfg *c, int *exit_status)
{
    time_t t0 = time(NULL);
    struct timespec ts0, ts1;
    clock_gettime(CLOCK_MONOTONIC, &ts0);
    cJSON *doc = jrep_begin(pc, P, c->caps, c->selection, c->nselection, t0, &c->ident);
    cJSON_AddItemToObject(doc, "health_check", c->after ? cJSON_CreateString(c->after) : cJSON_CreateNull());
    cJSON *sets = cJSON_AddArrayToObject(doc, "settings");
    for (unsigned i = 0; i < c->ndefs; i++)
        cJSON_AddItemToArray(sets, cJSON_CreateString(c->defs[i]));
    cJSON *tl = cJSON_GetObjectItemCaseSensitive(doc, "tests");
    conf_tally tally = {{0}, {0}};
    int starts;
    for (size_t i = suite_next(T, 0, &starts); i < T->n; i = suite_next(T, i + 1, &starts))
        if (starts)
            jrep_add_suite(doc, T, i);
    reach rh = {{0, 0}, {"", ""}};
    probe pb;
    run_probes(P, pc, T, c, &rh, &pb);
    int dead = rh.dead[0][0] || rh.dead[1][0];
    /* nothing answers: the one line below, no other */
    int mute = (rh.dead[0][0] || !c->want_resp) && (rh.dead[1][0] || !c->want_init);
    if (!c->quiet && !mute)
        term_head(c->out, doc);
    for (size_t i = suite_next(T, 0, &starts); i < T->n; i = suite_next(T, i + 1, &starts)) {
        const conf_test *t = &T->v[i];
        int role = t->s.device_initiator;
        char why[300];
        cJSON *to;
        int v = TALLY_SKIP;
        if (i == pb.idx[role]) {
            to = pb.to[role];
            v = pb.v[role];
        } else {
            skip_reason(&t->s, c, &rh, why, sizeof why);
            to = why[0] ? jrep_test(t, NULL, pc->transport, why, NULL) : play_one(P, pc, t, c, &v);
        }
        tally.n[v]++;
        tally.n[TALLY_TOTAL]++;
        if (t->s.mandatory) {
            tally.m[v]++;
            tally.m[TALLY_TOTAL]++;
        }
        if (!mute && !rh.dead[role][0])
            term_test(c->out, v, to, c->quiet);
        cJSON_AddItemToArray(tl, to);
    }
    clock_gettime(CLOCK_MONOTONIC, &ts1);
    double total_ms = (double)(ts1.tv_sec - ts0.tv_sec) * 1000.0 + (double)(ts1.tv_nsec - ts0.tv_nsec) / 1e6;
    int rc = dead ? RUN_UNREACHABLE : tally.n[TALLY_ERROR] || run_interrupted ? 2 : tally.m[TALLY_FAIL] ? 1 : 0;
    jrep_end(doc, &tally, total_ms, rc);
    for (int k = 0; k < 2; k++)
        if (rh.dead[k][0]) {
            fprintf(stderr, "mpa-conform: the device does not answer as the %s (%s); its %s tests were not run "
                            "(exit status %d)\n",
                    k ? "Initiator" : "Responder", rh.dead[k], k ? "Initiator" : "Responder", RUN_UNREACHABLE);
            jrep_unreachable(doc, k ? "initiator" : "responder", rh.dead[k]);
        }
    if (!mute)
        term_summary(c->out, doc, &tally, total_ms, run_interrupted);
    *exit_status = rc;
    return doc;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The run by requirement (coverage.h). */
#include "coverage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jget.h"
#include "mpa/findings.h"

/* What the tests did for one requirement. */
typedef struct creq {
    const char *id;
    cJSON *o;             /* its coverage entry */
    cJSON *tests, *failed; /* test ids: exercising it; showing it broken */
    unsigned pass, fail_other, error, skip;
    const char *skip_why; /* the first skip reason */
    int level_rank, verdict_rank;
} creq;

typedef struct ctab {
    creq *v;
    size_t n, cap;
} ctab;

static int level_rank(const char *l)
{
    return !l ? 3 : !strcmp(l, "MUST") ? 0 : !strcmp(l, "SHOULD") ? 1 : 2;
}

/* The entry of id, made (level, clause, text from the catalogue) when new. */
static creq *req_of(ctab *T, const char *id)
{
    for (size_t i = 0; i < T->n; i++)
        if (!strcmp(T->v[i].id, id))
            return &T->v[i];
    if (T->n == T->cap) {
        size_t cap = T->cap ? 2 * T->cap : 64;
        creq *v = realloc(T->v, cap * sizeof *v);
        if (!v)
            return NULL;
        T->v = v;
        T->cap = cap;
    }
    creq *c = &T->v[T->n++];
    memset(c, 0, sizeof *c);
    const mpa_rule *ru = mpa_rule_get(mpa_rule_find(id));
    c->o = cJSON_CreateObject();
    cJSON_AddStringToObject(c->o, "id", id);
    cJSON_AddStringToObject(c->o, "level", ru ? ru->level : "?");
    cJSON_AddStringToObject(c->o, "clause", ru && ru->clause ? ru->clause : "");
    cJSON_AddStringToObject(c->o, "text", ru && ru->text ? ru->text : "");
    c->id = jget_str(c->o, "id");
    c->level_rank = level_rank(ru ? ru->level : NULL);
    c->tests = cJSON_CreateArray();
    c->failed = cJSON_CreateArray();
    return c;
}

static int listed(const cJSON *arr, const char *id)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        const char *x = cJSON_IsString(it) ? it->valuestring : jget_str(it, "id");
        if (x && !strcmp(x, id))
            return 1;
    }
    return 0;
}

/* Test t into T: every requirement it exercises, every one it shows broken. */
static void take_test(ctab *T, const cJSON *t)
{
    const char *tid = jget_str_or(t, "id", "?"), *v = jget_str_or(t, "verdict", "?");
    const cJSON *broken = jget(t, "broken"), *r;
    cJSON_ArrayForEach(r, jget(t, "requirements"))
    {
        creq *c = jget_str(r, "id") ? req_of(T, jget_str(r, "id")) : NULL;
        if (!c)
            continue;
        cJSON_AddItemToArray(c->tests, cJSON_CreateString(tid));
        if (listed(broken, c->id))
            continue; /* counted below */
        if (!strcmp(v, "pass"))
            c->pass++;
        else if (!strcmp(v, "fail"))
            c->fail_other++;
        else if (!strcmp(v, "error"))
            c->error++;
        else if (!strcmp(v, "skip") && !c->skip++)
            c->skip_why = jget_str(t, "reason");
    }
    cJSON_ArrayForEach(r, broken)
    {
        creq *c = jget_str(r, "id") ? req_of(T, jget_str(r, "id")) : NULL;
        if (c && !listed(c->failed, tid))
            cJSON_AddItemToArray(c->failed, cJSON_CreateString(tid));
    }
}

/* The verdict of c and why, into its entry. */
static void judge(creq *c, int watched)
{
    const char *v, *why;
    char b[400];
    /* a crash shows only to a harness that watches the device */
    int unseen = !watched && !strcmp(c->id, "MPA-ROBUST-NO-CRASH");
    if (cJSON_GetArraySize(c->failed)) {
        v = "fail", why = "a test showed it broken";
        c->verdict_rank = 0;
    } else if (c->pass && unseen) {
        v = "not tested", why = "no health check watched the device (mpa-conform --after)";
        c->verdict_rank = 1;
    } else if (c->pass) {
        v = "pass", why = "a test that exercises it passed";
        c->verdict_rank = 2;
    } else {
        v = "not tested";
        c->verdict_rank = 1;
        if (!cJSON_GetArraySize(c->tests))
            why = "no selected test exercises it";
        else if (c->fail_other)
            why = "its tests failed first on other requirements";
        else if (c->error)
            why = "its tests could not be run (error)";
        else {
            snprintf(b, sizeof b, "its tests were skipped: %.300s", c->skip_why ? c->skip_why : "?");
            why = b;
        }
    }
    cJSON_AddStringToObject(c->o, "verdict", v);
    cJSON_AddStringToObject(c->o, "why", why);
    cJSON_AddItemToObject(c->o, "tests", c->tests);
    cJSON_AddItemToObject(c->o, "failed_in", c->failed);
}

static int cmp_req(const void *a, const void *b)
{
    const creq *x = a, *y = b;
    if (x->level_rank != y->level_rank)
        return x->level_rank - y->level_rank;
    if (x->verdict_rank != y->verdict_rank)
        return x->verdict_rank - y->verdict_rank;
    return strcmp(x->id, y->id);
}

/* summary.skipped_by_reason: [{reason, tests}], most first. */
static void skip_causes(cJSON *doc)
{
    cJSON *sum = cJSON_GetObjectItemCaseSensitive(doc, "summary");
    if (!sum)
        return;
    cJSON *arr = cJSON_AddArrayToObject(sum, "skipped_by_reason");
    const cJSON *t;
    cJSON_ArrayForEach(t, jget(doc, "tests"))
    {
        const char *v = jget_str(t, "verdict"), *why = jget_str_or(t, "reason", "");
        if (!v || strcmp(v, "skip"))
            continue;
        cJSON *it, *hit = NULL;
        cJSON_ArrayForEach(it, arr)
            if (!strcmp(jget_str_or(it, "reason", ""), why))
                hit = it;
        if (hit) {
            cJSON *n = cJSON_GetObjectItemCaseSensitive(hit, "tests");
            cJSON_SetNumberValue(n, n->valuedouble + 1);
        } else {
            hit = cJSON_CreateObject();
            cJSON_AddStringToObject(hit, "reason", why);
            cJSON_AddNumberToObject(hit, "tests", 1);
            cJSON_AddItemToArray(arr, hit);
        }
    }
    /* most first (a few causes: insertion sort by detaching) */
    int n = cJSON_GetArraySize(arr);
    for (int i = 1; i < n; i++) {
        int j = i;
        double x = jget_num_or(cJSON_GetArrayItem(arr, i), "tests", 0);
        while (j > 0 && jget_num_or(cJSON_GetArrayItem(arr, j - 1), "tests", 0) < x)
            j--;
        if (j != i)
            cJSON_InsertItemInArray(arr, j, cJSON_DetachItemFromArray(arr, i));
    }
}

/* overview: the MUST and SHOULD requirements failed, the tests failed. */
static void fill_overview(cJSON *doc, const ctab *T)
{
    cJSON *ov = cJSON_GetObjectItemCaseSensitive(doc, "overview");
    if (!ov)
        ov = cJSON_AddObjectToObject(doc, "overview");
    cJSON *mf = cJSON_AddArrayToObject(ov, "must_failed");
    cJSON *sf = cJSON_AddArrayToObject(ov, "should_failed");
    cJSON *of = cJSON_AddArrayToObject(ov, "other_failed");
    for (size_t i = 0; i < T->n; i++)
        if (T->v[i].verdict_rank == 0)
            cJSON_AddItemToArray(T->v[i].level_rank == 0 ? mf : T->v[i].level_rank == 1 ? sf : of,
                                 cJSON_CreateString(T->v[i].id));
    cJSON *mt = cJSON_AddArrayToObject(ov, "mandatory_tests_failed");
    cJSON *ft = cJSON_AddArrayToObject(ov, "fyi_tests_failed");
    const cJSON *t;
    cJSON_ArrayForEach(t, jget(doc, "tests"))
    {
        const char *v = jget_str(t, "verdict"), *cl = jget_str(t, "class");
        if (v && !strcmp(v, "fail"))
            cJSON_AddItemToArray(cl && !strcmp(cl, "M") ? mt : ft, cJSON_CreateString(jget_str_or(t, "id", "?")));
    }
    /* requirement verdicts counted by level */
    cJSON *cnt = cJSON_AddObjectToObject(ov, "requirements");
    static const char *const lv[] = {"MUST", "SHOULD", "other"};
    static const char *const vk[] = {"fail", "not_tested", "pass"};
    for (int l = 0; l < 3; l++) {
        cJSON *lo = cJSON_AddObjectToObject(cnt, lv[l]);
        for (int v = 0; v < 3; v++) {
            unsigned n = 0;
            for (size_t i = 0; i < T->n; i++)
                n += (T->v[i].level_rank > 2 ? 2 : T->v[i].level_rank) == l && T->v[i].verdict_rank == v;
            cJSON_AddNumberToObject(lo, vk[v], n);
        }
    }
}

void cov_build(cJSON *doc)
{
    ctab T = {0};
    const cJSON *t;
    cJSON_ArrayForEach(t, jget(doc, "tests"))
        take_test(&T, t);
    int watched = cJSON_IsString(jget(doc, "health_check"));
    for (size_t i = 0; i < T.n; i++)
        judge(&T.v[i], watched);
    if (T.n)
        qsort(T.v, T.n, sizeof *T.v, cmp_req);
    fill_overview(doc, &T);
    cJSON *cov = cJSON_AddArrayToObject(doc, "coverage");
    for (size_t i = 0; i < T.n; i++)
        cJSON_AddItemToArray(cov, T.v[i].o);
    skip_causes(doc);
    free(T.v);
}

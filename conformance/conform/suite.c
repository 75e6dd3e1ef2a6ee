/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Loading, ordering and selecting mpa-conform's tests (suite.h). */
#include "suite.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --set NAME=VALUE, for every test loaded after suite_set_defs() */
static const char *const *set_defs;
static unsigned set_ndefs;

void suite_set_defs(const char *const *defs, unsigned n)
{
    set_defs = defs;
    set_ndefs = n;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_test(const void *a, const void *b)
{
    const conf_test *x = a, *y = b;
    if (x->order != y->order)
        return x->order < y->order ? -1 : 1;
    int c = strcmp(x->suite, y->suite);
    return c ? c : strcmp(x->s.test_id, y->s.test_id);
}

int suite_load_file(conf_tests *T, const char *path, const char *suite, unsigned order, char *err, size_t errlen)
{
    if (T->n == T->cap) {
        size_t cap = T->cap ? T->cap * 2 : 64;
        conf_test *nv = realloc(T->v, cap * sizeof *nv);
        if (!nv) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        T->v = nv;
        T->cap = cap;
    }
    conf_test *t = &T->v[T->n];
    memset(t, 0, sizeof *t);
    if (sc_load(path, set_defs, set_ndefs, &t->s, err, errlen))
        return -1;
    if (!t->s.is_test) {
        snprintf(err, errlen, "%s: $: not a conformance test (no \"test\": {\"id\", \"class\"})", path);
        sc_free(&t->s);
        return -1;
    }
    snprintf(t->suite, sizeof t->suite, "%s", suite);
    t->order = order;
    T->n++;
    return 0;
}

/* The names in dir but those starting with a dot, sorted, into *names
 * (*count of them; the caller frees each and the array): 0, or -1 and
 * errno when dir cannot be opened. */
static int dir_names(const char *dir, char ***names, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **v = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(v, cap * sizeof *nn);
            if (!nn)
                break;
            v = nn;
        }
        v[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n)
        qsort(v, n, sizeof *v, cmp_str);
    *names = v;
    *count = n;
    return 0;
}

static int load_dir(conf_tests *T, const char *dir, int depth, unsigned order, char *err, size_t errlen)
{
    char **names;
    size_t n;
    if (dir_names(dir, &names, &n)) {
        snprintf(err, errlen, "%.300s: %s", dir, strerror(errno));
        return -1;
    }
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
            rc = load_dir(T, p, 1, order, err, errlen);
        else if (S_ISREG(st.st_mode) && L > 5 && !strcmp(names[i] + L - 5, ".json"))
            rc = suite_load_file(T, p, base, order, err, errlen);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

int suite_load_dir(conf_tests *T, const char *dir, unsigned order, char *err, size_t errlen)
{
    return load_dir(T, dir, 0, order, err, errlen);
}

int suite_load_arg(conf_tests *T, const char *path, unsigned order, char *err, size_t errlen)
{
    char d[PATH_MAX];
    snprintf(d, sizeof d, "%s", path);
    char *sl = strrchr(d, '/');
    const char *suite = "tests";
    if (sl) {
        *sl = 0;
        char *s2 = strrchr(d, '/');
        suite = s2 ? s2 + 1 : d;
    }
    return suite_load_file(T, path, suite, order, err, errlen);
}

void suite_sort(conf_tests *T)
{
    if (T->n)
        qsort(T->v, T->n, sizeof *T->v, cmp_test);
}

const conf_test *suite_same_id(const conf_tests *T, const conf_test **first)
{
    for (size_t i = 0; i < T->n; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(T->v[i].s.test_id, T->v[j].s.test_id)) {
                *first = &T->v[j];
                return &T->v[i];
            }
    return NULL;
}

size_t suite_select(conf_tests *T, const char *const *globs, unsigned nglobs)
{
    size_t nsel = 0;
    for (size_t i = 0; i < T->n; i++) {
        conf_test *t = &T->v[i];
        t->selected = nglobs == 0;
        for (unsigned k = 0; k < nglobs && !t->selected; k++)
            t->selected = !fnmatch(globs[k], t->s.test_id, 0) || !fnmatch(globs[k], t->suite, 0);
        nsel += t->selected;
    }
    return nsel;
}

size_t suite_next(const conf_tests *T, size_t i, int *starts)
{
    while (i < T->n && !T->v[i].selected)
        i++;
    if (i < T->n) {
        const char *prev = "";
        for (size_t j = i; j-- > 0;)
            if (T->v[j].selected) {
                prev = T->v[j].suite;
                break;
            }
        *starts = strcmp(prev, T->v[i].suite) != 0;
    }
    return i;
}

void suite_list(FILE *f, const conf_tests *T)
{
    for (size_t i = 0; i < T->n; i++) {
        const conf_test *t = &T->v[i];
        if (!t->selected)
            continue;
        fprintf(f, "%-44s %-3s %-9s", t->s.test_id, t->s.mandatory ? "M" : "FYI",
                t->s.device_initiator ? "initiator" : "responder");
        for (unsigned k = 0; k < t->s.nneeds; k++)
            fprintf(f, "%s%s", k ? "," : " needs ", t->s.needs[k]);
        fprintf(f, "  %s\n", t->s.file);
    }
}

void suite_free(conf_tests *T)
{
    for (size_t i = 0; i < T->n; i++)
        sc_free(&T->v[i].s);
    free(T->v);
    T->v = NULL;
    T->n = T->cap = 0;
}

int suite_has_cap(const char *caps, const char *word)
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

const char *suite_bad_cap(const char *caps, size_t *len)
{
    for (const char *p = caps; *p;) {
        const char *cm = strchr(p, ',');
        size_t L = cm ? (size_t)(cm - p) : strlen(p);
        int known = 0;
        for (unsigned k = 0; sc_need_words[k]; k++)
            known |= strlen(sc_need_words[k]) == L && !strncmp(p, sc_need_words[k], L);
        if (!known) {
            *len = L;
            return p;
        }
        p = cm ? cm + 1 : p + L;
    }
    return NULL;
}

/* A folder that exists. */
static int is_dir(const char *p)
{
    struct stat st;
    return p && *p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void tried_add(char *tried, size_t cap, const char *p)
{
    size_t n = strlen(tried);
    snprintf(tried + n, cap - n, "%s%s", n ? ", " : "", p);
}

const char *suite_default_dir(char *tried, size_t cap)
{
    static char here[PATH_MAX + 32];
    tried[0] = 0;
    const char *env = getenv("MPA_SUITES");
    if (env && *env) {
        if (is_dir(env))
            return env;
        tried_add(tried, cap, env);
        return NULL; /* named, and missing: no quiet fallback */
    }
    /* Run from a source tree: build/mpa-conform next to conformance/. */
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            snprintf(here, sizeof here, "%s/../conformance/suites", exe);
            char real[PATH_MAX], cwd[PATH_MAX];
            if (is_dir(here) && realpath(here, real)) {
                /* Named as from the current folder when it is inside it
                 * (reports and the test plan show the suites' paths). */
                size_t k = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
                if (k && !strncmp(real, cwd, k) && real[k] == '/')
                    snprintf(here, sizeof here, "%s", real + k + 1);
                else
                    snprintf(here, sizeof here, "%s", real);
                return here;
            }
        }
    }
#ifdef MPA_SUITES_DIR
    if (is_dir(MPA_SUITES_DIR))
        return MPA_SUITES_DIR;
    tried_add(tried, cap, MPA_SUITES_DIR);
#endif
    tried_add(tried, cap, "$MPA_SUITES (not set)");
    return NULL;
}

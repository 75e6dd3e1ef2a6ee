/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-conform's tests: conformance test scripts (scenarios with a "test"
 * block, conformance/suites/) loaded from suite directories and files,
 * put in order, selected by -t globs, listed; and the device
 * capabilities (--caps) they may need.
 */
#ifndef CONFORM_SUITE_H
#define CONFORM_SUITE_H

#include <stddef.h>
#include <stdio.h>

#include "scen.h"

typedef struct conf_test {
    scenario s;
    char suite[64];
    unsigned order; /* which command-line argument it came from */
    int selected;
} conf_test;

typedef struct conf_tests {
    conf_test *v;
    size_t n, cap;
} conf_tests; /* zero-filled is empty; suite_free frees */

/* One test script of the suite named suite.  0, or -1 and err (errlen
 * octets): it does not load, is not a test, or memory ran out. */
/* The scripts' variables the operator set (--set NAME=VALUE, as
 * mpa-inject takes them), for the tests loaded from now on; the strings
 * must outlive the tests. */
void suite_set_defs(const char *const *defs, unsigned n);

int suite_load_file(conf_tests *T, const char *path, const char *suite, unsigned order, char *err, size_t errlen);

/* A directory: its *.json (suite: the directory's name) and those of its
 * subdirectories (suite: theirs), in name order.  0, or -1 and err. */
int suite_load_dir(conf_tests *T, const char *dir, unsigned order, char *err, size_t errlen);

/* Where the suites are when none is named: $MPA_SUITES; else, for a
 * program run from a source tree, conformance/suites next to the folder
 * it was built in; else the installed folder (MPA_SUITES_DIR, from the
 * build).  NULL when none exists; tried[] then lists where it looked. */
const char *suite_default_dir(char *tried, size_t cap);

/* A file named on the command line: its suite is the name of the
 * directory it is in ("tests" when the path has none).  0, or -1 and err. */
int suite_load_arg(conf_tests *T, const char *path, unsigned order, char *err, size_t errlen);

/* Suites in the order their arguments came (then by name), tests by id
 * within. */
void suite_sort(conf_tests *T);

/* The first test (in order) whose id an earlier one has, with *first
 * set to that earlier one; NULL when the ids are unique. */
const conf_test *suite_same_id(const conf_tests *T, const conf_test **first);

/* Marks the tests whose id or suite matches one of the globs (every test
 * when there are none); returns how many are selected. */
size_t suite_select(conf_tests *T, const char *const *globs, unsigned nglobs);

/* The index of the first selected test from i on (T->n when there is
 * none), *starts set to whether its suite differs from that of the
 * selected test before it ("" for the first):
 *   for (i = suite_next(T, 0, &st); i < T->n; i = suite_next(T, i + 1, &st)) */
size_t suite_next(const conf_tests *T, size_t i, int *starts);

/* The selected tests, one line each: id, class, role, needs, file. */
void suite_list(FILE *f, const conf_tests *T);

void suite_free(conf_tests *T);

/* 1 when the comma-separated caps names word. */
int suite_has_cap(const char *caps, const char *word);

/* The first word of caps that is not a capability (sc_need_words), its
 * length in *len; NULL when every word is one. */
const char *suite_bad_cap(const char *caps, size_t *len);

#endif

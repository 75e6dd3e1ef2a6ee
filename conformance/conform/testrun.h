/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-conform's run: each selected test in order, skipped when the
 * device's role is not tested or it lacks a capability the test needs,
 * else (after the --before command) played against the device by
 * mpa-inject's player, its trace written; a terminal line per test, the
 * JSON report built as it goes, the summary at the end.
 */
#ifndef CONFORM_TESTRUN_H
#define CONFORM_TESTRUN_H

#include <stdio.h>

#include <cJSON.h>

#include "jsonrep.h"
#include "play.h"
#include "suite.h"

typedef struct runner_cfg {
    const char *caps;              /* --caps LIST ("" for none) */
    int want_resp, want_init;      /* the device's roles tested */
    const char *before;            /* --before COMMAND, or NULL */
    const char *after;             /* --after COMMAND (the device's health), or NULL */
    const char *const *defs;       /* --set NAME=VALUE, ndefs of them */
    unsigned ndefs;
    const char *trace_dir;         /* TEST.pcapng go there (traces/TEST.pcapng in the report); NULL: none */
    const char *const *selection;  /* the -t globs as given, for the report */
    unsigned nselection;
    int quiet;                     /* the terminal: only failures, errors and the summary */
    FILE *out;                     /* the terminal */
    jrep_ident ident;              /* --device-name, --notes, the roles */
} runner_cfg;

/* The exit status when the device does not answer. */
enum { RUN_UNREACHABLE = 3 };

/* Runs the selected tests of T with P (started, with settings pc).
 * Returns the JSON report (the caller deletes it) and the exit status in
 * *exit_status: 0 every mandatory test that ran passed, 1 one failed, 2
 * a test could not be run or the run was interrupted, RUN_UNREACHABLE
 * the first test of a role could not connect to the device (or the
 * device did not connect to us): the other tests of that role are
 * skipped, one line on standard error says so, no summary. */
cJSON *runner_run(player *P, const play_cfg *pc, const conf_tests *T, const runner_cfg *c, int *exit_status);

/* Runs the --before command cmd with {test} and {role} replaced, what it
 * prints read and dropped.  0 when it exits 0; else -1 and why (n
 * octets): the status or signal, and its last line. */
int runner_before(const char *cmd, const char *test_id, const char *role, char *why, size_t n);

/* Runs the command of option opt ("--before", "--after") the same way;
 * its last non-empty line of output into last (lastn octets).  Returns
 * 0 when it exits 0, its exit status when it exits non-zero (why says
 * so), -1 when it could not run or was killed (why says so). */
int runner_command(const char *opt, const char *cmd, const char *test_id, const char *role, char *last,
                   size_t lastn, char *why, size_t n);

#endif

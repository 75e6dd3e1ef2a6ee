/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-inject's runner: plays one scenario against the device through a
 * transport, decodes what the device sends with libmpa's stream engine
 * (fed both directions, in causal order: our octets when they are sent,
 * the device's when they arrive), and judges every expect step.
 */
#ifndef MPA_INJECT_RUN_H
#define MPA_INJECT_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "mpa/findings.h"
#include "scen.h"
#include "tp.h"

typedef enum run_verdict {
    V_NOT_RUN = 0, /* a step after the one that decided the run */
    V_DONE,        /* an action that worked (open, send, sleep, close, abort) */
    V_PASS,        /* an expectation met */
    V_FAIL,        /* an expectation not met: the device deviated */
    V_ERROR,       /* could not carry out the step (transport, local) */
} run_verdict;

const char *run_verdict_str(run_verdict v); /* "not run", "done", "pass", "fail", "error" */

typedef struct run_step {
    uint8_t verdict;     /* run_verdict */
    char what[400];      /* the step as done: "send frame {...} (24 octets, 1 segment)" */
    char detail[900];    /* what happened: "got rst after 1.2 ms", or why it failed */
    double t_ms;         /* when the step began, since the run began */
    double took_ms;
    int alt;             /* expect: the alternative that matched (-1 none) */
} run_step;

typedef struct run_finding {
    mpa_finding_id id;
    int from_device;     /* 1: in the device's octets; 0: in ours (deliberate) */
    int error;           /* error severity (the others are warnings and notes) */
    int expected;        /* in the device's octets, but in the scenario's expected_findings */
    uint64_t off;        /* stream offset in that direction */
    double t_ms;
    char msg[200];
} run_finding;

#define RUN_MAX_FINDINGS 256

typedef struct run_result {
    run_verdict verdict;   /* V_PASS, V_FAIL or V_ERROR */
    char error[400];       /* V_ERROR: why */
    int decided_at;        /* index of the step that failed (-1 none) */
    run_step *steps;       /* one per scenario step */
    unsigned nsteps;
    run_finding findings[RUN_MAX_FINDINGS];
    unsigned nfindings;
    unsigned findings_dropped;
    unsigned device_errors;    /* error-level findings in the device's octets */
    char vars[SC_MAX_VARS][SC_VAR_LEN];
    int64_t var_val[SC_MAX_VARS];
    unsigned nvars;
    uint64_t sent_octets, recv_octets;
    unsigned unexamined;       /* device events no expect step looked at */
    char unexamined_first[300];
    char trace[512];
    uint64_t trace_packets;
    char local[64], remote[64];
    double total_ms;
} run_result;

typedef struct run_opts {
    const char *transport;   /* "socket" or "raw" */
    tp_cfg tp;               /* open kind is taken from the scenario */
    const char *trace_path;  /* NULL: no trace */
    FILE *progress;          /* step lines as they happen (NULL: quiet) */
    int verbose;             /* also every event of the device */
    /* A device that connects to us: called when we listen, with the
     * port we listen on (the chosen one when the port was 0). */
    void (*on_listen)(void *user, const char *port);
    void *on_listen_user;
} run_opts;

/* Run s; fills *r (free with run_result_free).  Returns r->verdict. */
run_verdict run_scenario(const scenario *s, const run_opts *o, run_result *r);

void run_result_free(run_result *r);

/* Stop at the next step boundary or wait (SIGINT/SIGTERM handlers set it). */
extern volatile int run_interrupted;

#endif

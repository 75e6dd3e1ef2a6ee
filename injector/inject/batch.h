/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A batch of scenarios as mpa-inject plays them: every script loaded
 * and checked before anything is sent, then (unless only a check was
 * asked for) each one played against the device, its report printed,
 * one trace per scenario, a summary line and the --json document.
 */
#ifndef MPA_INJECT_BATCH_H
#define MPA_INJECT_BATCH_H

#include "play.h"

typedef struct batch_cfg {
    const char *prog;            /* the prefix of error messages: "mpa-inject" */
    char *const *files;          /* the scripts ("-": stdin) */
    int nfiles;
    const char *const *defs;     /* --set NAME=VALUE */
    unsigned ndefs;
    int check;                   /* --check: load and check, send nothing */
    const char *trace_file;      /* -w: the trace of the one scenario */
    const char *trace_dir;       /* --trace-dir (a DIR/NAME.pcapng per scenario) */
    int no_trace;                /* neither is written (no trace either way without them) */
    const char *json;            /* --json FILE ("-": stdout), or NULL */
    int quiet;
    play_cfg play;               /* the device and the transport (progress is set here) */
} batch_cfg;

/* Run the batch; returns the exit status: 0 every scenario passed, 1
 * the device deviated, 2 an error (a script, the settings, a run that
 * could not be carried out, an interruption, the report). */
int batch_run(batch_cfg *b);

#endif

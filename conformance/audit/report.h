/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-audit's reports: for people (text), one JSON document (cJSON), or
 * JSON Lines as findings are made.  docs/mpa-audit-json.md documents the
 * JSON schema; the text report follows the same order.
 *
 * Connections are written as they complete, so memory does not grow with
 * the number of connections in the capture.
 */
#ifndef AUDIT_REPORT_H
#define AUDIT_REPORT_H

#include <stdio.h>

#include "audit.h"

/* The --json report holds at most this many connections that completed
 * ahead of an earlier one, and this much of their text; past that it
 * writes the earliest held one out of id order (mpa-audit merge does the
 * same). */
#define REPORT_REORDER_MAX 256
#define REPORT_REORDER_BYTES (2u << 20)

typedef enum report_fmt { REPORT_TEXT = 0, REPORT_JSON, REPORT_JSONL } report_fmt;

typedef struct report report;

/* Writes to out (not closed).  timing: include wall-clock figures (off
 * for reproducible output).  verbose_findings: text report lists every
 * kept finding (else the first 20 per connection). */
report *report_new(FILE *out, report_fmt fmt, int timing);
void report_free(report *r);

/* The callbacks an auditor calls to write this report. */
audit_out report_sink(report *r);
/* The auditor whose file names and statistics the report uses. */
void report_bind(report *r, audit *a);

/* --shard K/N: the document carries what mpa-audit merge needs and
 * checks (docs/mpa-audit-json.md, "Shards").  options: the options that
 * shape the report, in a canonical form; fail_on an mpa_severity (3:
 * never). */
typedef struct report_shard_info {
    unsigned index, count;
    const char *options;
    int fail_on;
} report_shard_info;
void report_set_shard(report *r, const report_shard_info *s);

/* The inputs, written in the document's head (JSON) or first line. */
void report_begin(report *r, const char *const *inputs, unsigned ninputs);

/* Global findings and the summary; elapsed_s is the wall-clock time.
 * input: 0 every input read to its end; 4 one was cut short or had an
 * unreadable record (the text summary gives no hint about --port);
 * 2 one could not be used, the run stopped there (the text report ends
 * without a summary; JSON still closes its document). */
void report_end(report *r, double elapsed_s, int input);

#endif

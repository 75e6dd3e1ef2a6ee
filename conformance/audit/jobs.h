/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-audit -j N: one reader, N workers, N threads.
 *
 * The reader (the caller's thread, through jobs_sink) reads each input
 * once and hands its packets, in batches copied into a bounded ring, to
 * every worker; worker 0 runs in the reader's thread (each batch as it
 * is handed on), the others in threads of their own.  Each worker is an auditor under --shard k/N that reads
 * the octets of the packets of its own connections and only counts the
 * others'.  What the workers make (connections as they complete,
 * findings, connections numbered as they turn out to speak MPA, the
 * moves of the gauges) is put back into the order one auditor makes it
 * and handed to out, as one auditor would hand it: the report written
 * is the one of one thread, byte for byte (timing figures aside), unless
 * a limit is reached (each worker gets 1/N of each).  Memory stays
 * bounded: at most 2N+2 batches of 1 MiB are in flight.
 */
#ifndef AUDIT_JOBS_H
#define AUDIT_JOBS_H

#include "audit.h"
#include "input.h"

typedef struct jobs jobs;

/* n workers auditing with options o (their limits divided by n).  agg:
 * the auditor the report is bound to; it reads no packet: it gets the
 * inputs' names, the findings not tied to a connection (passed on to its
 * own audit_out) and, at jobs_finish, the run's statistics.  out: where
 * connections (and, when conn_findings, their findings as they are made)
 * go.  NULL when a thread cannot be started or memory is short. */
jobs *jobs_new(audit *agg, const audit_out *out, const audit_opts *o, unsigned n, int conn_findings);

/* Where input_file_to hands the packets. */
const input_sink *jobs_sink(jobs *j);

/* The end of the input: every connection is reported, the statistics
 * set on agg.  Then jobs_free. */
void jobs_finish(jobs *j);
void jobs_free(jobs *j);

#endif

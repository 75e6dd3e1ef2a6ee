/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-audit merge: the --json documents of the shards of one audit
 * (mpa-audit --shard K/N, K = 0..N-1) into the document one run writes
 * (docs/mpa-audit-json.md, "Shards").
 */
#ifndef AUDIT_MERGE_H
#define AUDIT_MERGE_H

#include <stdio.h>

/* Reads files (- : standard input), writes the merged document to out.
 * The exit status one run would have had (0, 1 findings at or above its
 * --fail-on, 2 an input cut short), or 2 after a message on standard
 * error when the documents are not the N shards of one audit (another
 * version, other options or inputs, a shard missing or twice). */
int audit_merge(char *const *files, int nfiles, FILE *out);

#endif

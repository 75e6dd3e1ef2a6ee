/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-capgen's parts, as the program (mpa-capgen.c) calls them.
 */
#ifndef MPA_CAPGEN_GEN_H
#define MPA_CAPGEN_GEN_H

#include <stdint.h>

/*
 * Writes every reference capture into outdir (which must exist) and
 * outdir/MANIFEST.tsv.  verify: also feed each capture's scenarios to
 * libmpa's stream engine (the unit tests' harness) and report, on
 * stderr, where the ids it raises differ from the manifest's.
 * Returns 0; 1 if verify found differences; 2 on an I/O error (reported).
 */
int gen_reference(const char *outdir, int verify);

typedef struct big_opts {
    uint64_t bytes;  /* at least this many file octets */
    unsigned conns;  /* connections */
    uint64_t seed;
    unsigned active; /* connections open at once */
    int no_markers;  /* M=0 both ways (default: markers both ways) */
} big_opts;

/* Writes the large benchmark capture (classic pcap, Ethernet/IPv4) to
 * path, streaming.  Prints what it wrote on stderr.  Returns 0, or 2 on
 * an I/O error (reported). */
int gen_big(const char *path, const big_opts *o);

/*
 * Writes the adversarial captures into outdir (which must exist): floods
 * of half-open and silent MPA connections, lying PD_Lengths, 2^31 and
 * 2^32 sequence jumps, endless capture holes, an out-of-order flood,
 * random garbage, a tiny snap length (see adversarial.c).  Deterministic
 * (fixed seeds), streaming: memory stays at a few MiB whatever the sizes.
 * Prints one line per file on stderr.  Returns 0, or 2 on an I/O error
 * (reported).
 */
int gen_adversarial(const char *outdir);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-audit's input: capture files (pcap, pcapng; "-" is standard input)
 * and live interfaces, read with libpcap, each packet handed to the
 * auditor (audit.h) with its timestamp and lengths.
 */
#ifndef AUDIT_INPUT_H
#define AUDIT_INPUT_H

#include "audit.h"

typedef struct input_opts {
    const char *filter;            /* BPF filter, or NULL */
    unsigned long long max_count;  /* stop after so many packets in all; 0: no limit */
    unsigned long long duration;   /* live: stop after so many seconds; 0: no limit */
    int progress;                  /* a progress bar on a terminal for large files */
    int quiet;                     /* files: no messages, no progress bar (the
                                    * other workers of mpa-audit -j) */
} input_opts;

/* Audit one file; *total counts the packets of all files so far.
 * Returns 0; 2 when the file could not be used, nothing of it read
 * (said on stderr); 3 when the filter does not compile (said); 4 when it
 * was cut short or a record is unreadable (said, and a finding): the
 * packets before are audited. */
int input_file(audit *a, const char *name, const input_opts *o, unsigned long long *total);

/* The same, each packet (and the file's start, and a problem with it)
 * handed to sink rather than to an auditor (mpa-audit -j's reader).
 * hold (0: none): a packet handed on with held set stays readable until
 * hold more octets of its file are read, or sync returns (called before
 * the octets go: the sink is then done with every packet handed on). */
typedef struct input_sink {
    void *user;
    void (*begin_file)(void *user, const char *name, int linktype);
    void (*packet)(void *user, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t wirelen, int held);
    void (*problem)(void *user, mpa_finding_id id, const char *msg);
    void (*sync)(void *user);
    uint64_t hold;
    /* Optional: a file the direct reader reads (a classic pcap) is a
     * source its packets can be read again from (read, with ctx; NULL
     * when it goes: the sink is then done with it, and the file is
     * closed when source returns), and each
     * packet is handed to packet_at with its offset in the file (and held
     * as for packet), rather than to packet.  A sink with hold set (-j N)
     * reads the packets' octets on other cores: the reader then asks
     * ahead only for their headers. */
    void (*source)(void *user, int (*read)(void *ctx, uint64_t off, uint8_t *dst, uint32_t n), void *ctx);
    void (*packet_at)(void *user, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t wirelen,
                      uint64_t off, int held);
} input_sink;
int input_file_to(const input_sink *sink, const char *name, const input_opts *o, unsigned long long *total);

/* For a sink whose source is read from other threads than the reader's
 * (mpa-audit -j N): the same source as source's read and ctx give, read
 * with pread alone (never the reader's moving window).  Valid until
 * source is called with NULL. */
int input_source_pread(void *ctx, uint64_t off, uint8_t *dst, uint32_t n);

/* Whether name opens as a capture (its file header): 0, or 2 (said on
 * stderr).  Not for "-" (that would consume standard input). */
int input_check(const char *name);

/* Audit live traffic on iface until input_stop(), o->max_count packets
 * or o->duration seconds.  Returns 0, or 2 when it cannot capture (said). */
int input_live(audit *a, const char *iface, const input_opts *o);

/* Stop reading soon (from a signal handler: async-signal-safe). */
void input_stop(void);
int input_stopped(void);

/* Seconds of a monotonic clock. */
double input_now(void);

/* libpcap's version string. */
const char *input_lib_version(void);

#endif

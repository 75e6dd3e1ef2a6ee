/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The auditor: packets in, connections and findings out.
 *
 * audit_packet() takes captured packets in capture order.  Each TCP
 * connection is reassembled (tcp.h); a connection whose first octets in
 * either direction are an MPA key ("MPA "), or that runs on a port the
 * user named, is fed to a libmpa stream engine (mpa/stream.h), which
 * judges it against the requirement catalogue.  Everything the capture
 * could not show (holes, cut packets, unreadable packets, conflicting
 * retransmissions, limits hit) is a finding too, with an MPA-CAP-* id.
 *
 * A connection is reported (audit_out.conn_done) when it ends: both
 * directions closed, a RST, idle for opts.idle_ns of capture time, the
 * connection table full (the least recently active goes), or the end of
 * the input (audit_finish).  Memory is bounded: open connections
 * (opts.max_conns), out-of-order octets (opts.mem_cap), IP fragments,
 * findings kept per rule and connection (opts.max_findings).
 */
#ifndef AUDIT_AUDIT_H
#define AUDIT_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "mpa/stream.h"

#define AUDIT_MAX_PORTS 64

typedef struct audit_opts {
    uint16_t ports[AUDIT_MAX_PORTS]; /* MPA is assumed on these (also mid-stream) */
    unsigned nports;
    /* Mid-stream framing: [0] octets sent to the named port, [1] from it
     * (mpa_tri each). */
    uint8_t mid_markers[2], mid_crc[2];
    size_t mem_cap;          /* out-of-order TCP octets held, all connections */
    unsigned max_conns;      /* open TCP connections tracked at once */
    unsigned max_mpa;        /* of those, speaking MPA (each holds a libmpa engine) */
    unsigned max_findings;   /* findings kept per rule per connection; 0: all */
    uint64_t idle_ns;        /* a connection silent this long (capture time) is closed */
    /* --shard K/N: follow only the connections whose flow hash
     * (audit_flow_hash) is K modulo N; nshards 0: all.  shard_span (0
     * is 1): the residues K to K + shard_span - 1 (a -j worker's). */
    unsigned shard, nshards, shard_span;
} audit_opts;

void audit_opts_default(audit_opts *o);

typedef struct audit_finding {
    mpa_finding_id id;
    const mpa_rule *rule;
    unsigned file;       /* index into the file table (audit_file_name) */
    uint64_t frame;      /* frame number in that file; 0 when none */
    int dir;             /* 0 client->server, 1 server->client, -1 none */
    uint64_t off;        /* stream offset in dir; UINT64_MAX when none */
    const char *msg;
    uint64_t ts;         /* capture time of frame (of the packet being read when
                          * frame is 0), ns since 1970; AUDIT_NO_TS: none read yet */
    int shard_local;     /* not tied to a connection, yet depends on which connections
                          * were followed (a limit reached): a shard's own */
} audit_finding;

#define AUDIT_NO_TS UINT64_MAX

typedef struct audit_term {
    int dir;
    unsigned file;
    uint64_t frame, off;
    uint8_t layer, etype, code; /* as sent (RFC 5040 4.8 layout) */
    uint8_t quirk;              /* mpa_term_quirk: how libmpa read it */
    mpa_term_ctl read;          /* the fields under that reading */
} audit_term;

typedef struct audit_startup {
    int have;
    mpa_frame fr;        /* fr.pd is NULL */
    unsigned file;
    uint64_t frame, off;
} audit_startup;

typedef struct audit_dir {
    char addr[64];       /* "192.0.2.1:4000", "[2001:db8::1]:4000" */
    char ip[48];         /* the address alone: "192.0.2.1", "2001:db8::1" */
    uint16_t port;
    mpa_role role;
    audit_startup startup;
    int markers, crc, fpdu_mode;   /* framing in force at the end (or last) */
    mpa_dir_mode mode;             /* at the end */
    mpa_dir_stats st;              /* the engine's counters */
    /* TCP */
    uint64_t segments, payload_octets, retrans_octets, conflicts, holes, hole_octets, out_of_window,
        ooo_segments, cut_packets;
    int end;                       /* 0 open, 1 FIN, 2 RST */
    unsigned end_file;
    uint64_t end_frame;
    /* The first RTR-shaped FPDU (RFC 6581): kind, and whether it was the
     * negotiated one. */
    mpa_rtr_kind rtr;
    int rtr_negotiated;
    unsigned rtr_file;
    uint64_t rtr_frame;
    uint16_t mss;                  /* MSS option of its SYN, 0 when none */
} audit_dir;

typedef struct audit_conn {
    unsigned id;          /* 1, 2, ... in the order connections turn out to speak MPA */
    int is_mpa;
    int midstream;        /* the startup was not captured */
    int syn_seen;
    uint16_t vlan[4];
    unsigned nvlan;
    audit_dir d[2];       /* [0] client (sent the SYN), [1] server */
    unsigned first_file, last_file;
    uint64_t first_frame, last_frame;
    uint64_t first_ts, last_ts;   /* ns */
    const char *closed;   /* how the report came: "closed", "reset", "idle", "capture ended", "table full", "reused" */
    audit_finding *findings;      /* kept ones */
    size_t nfindings;
    uint64_t severity[3];         /* all findings, kept or not, by mpa_severity */
    uint64_t suppressed;          /* over opts.max_findings */
    audit_term *terms;
    size_t nterms;
    /* Packets counted across all inputs (1, 2, ...): the one at which it
     * turned out to speak MPA and its last one.  They order the
     * connections of shards as one run numbers them. */
    uint64_t mpa_packet, last_packet;
    /* When its report was made, in the order one run makes them: the
     * packet (one past the last for the end of the input), 0 when swept
     * idle before that packet (or at the end), 1 while it was processed;
     * then last_packet (0) or the order of closes in that packet (1). */
    uint64_t done_packet, done_seq;
    int done_phase;
} audit_conn;

typedef struct audit_out {
    void *user;
    /* A finding as it is made (c NULL: not tied to a connection). */
    void (*finding)(void *user, const audit_conn *c, const audit_finding *f);
    /* A connection that spoke MPA is complete. */
    void (*conn_done)(void *user, const audit_conn *c);
    /* Optional (NULL: none), for mpa-audit -j's workers: a connection
     * turns out to speak MPA (c->id just given); and, under --shard, a
     * move of a gauge (audit_get_gauge: which, then the packet, highest
     * within it, value after it), handed on instead of logged. */
    void (*mpa)(void *user, const audit_conn *c);
    void (*gauge)(void *user, int which, uint64_t packet, uint64_t peak, uint64_t after);
} audit_out;

typedef struct audit_stats {
    uint64_t packets, octets;      /* captured */
    uint64_t not_tcp, unreadable, truncated;
    uint64_t tcp_conns, mpa_conns;
    uint64_t fragments, datagrams, frag_dropped;
    uint64_t severity[3];          /* every finding, kept or not */
    uint64_t suppressed;
    size_t ooo_peak, open_peak;
    uint64_t evicted, early_holes;
    uint64_t first_ts, last_ts;
    /* --shard: TCP packets of other shards' connections (not followed);
     * findings not tied to a connection that every shard makes alike
     * (input problems), by severity, and those over the caps. */
    uint64_t other_shard;
    uint64_t shared_severity[3], shared_suppressed;
    uint64_t local_findings;       /* shard_local findings made */
} audit_stats;

typedef struct audit audit;

audit *audit_new(const audit_opts *o, const audit_out *out);

/* The flow hash of a TCP connection: FNV-1a (64 bits) over its canonical
 * 4-tuple and VLAN ids, the same for both directions, on every machine and
 * in every build.  pkt_addr octets as captured; ports in host order. */
uint64_t audit_flow_hash(int family, const uint8_t a_addr[16], uint16_t a_port, const uint8_t b_addr[16],
                         uint16_t b_port, const uint16_t *vlan, unsigned nvlan);
void audit_free(audit *a);

/* A new input begins (file name, "-" for stdin, "iface:eth0"); frame
 * numbers restart at 1.  linktype is the pcap LINKTYPE_ value. */
void audit_begin_file(audit *a, const char *name, int linktype);
const char *audit_file_name(const audit *a, unsigned file);
unsigned audit_nfiles(const audit *a);

/* One captured packet (data[0..caplen), originally wirelen octets). */
void audit_packet(audit *a, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t wirelen);

/* A source packets can be read again from (a capture file read in
 * place): read(user, off, dst, n) puts its n octets at offset off in
 * dst, returning 0 (or -1).  Packets given with audit_packet_at (data[0]
 * at offset at) then have the octets TCP keeps to judge retransmissions
 * read back from there when a retransmission comes, rather than copied
 * as they are delivered (capture/tcp.h); the report is the same.
 * audit_source(a, NULL, NULL) reads back what is still referenced: the
 * caller calls it before the source goes.  read may be called from the
 * auditor's thread at any packet until then (mpa-audit -j N: workers). */
void audit_source(audit *a, int (*read)(void *user, uint64_t off, uint8_t *dst, uint32_t n), void *user);
void audit_packet_at(audit *a, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t wirelen, uint64_t at);

/* mpa-audit -j: one reader hands each packet to the worker whose shard
 * (--shard K/N) follows its connection.  audit_packet_owner: that shard
 * (flow hash modulo nshards) of a TCP packet read whole, or -1 for any
 * other packet (not TCP, a fragment, cut, unreadable), which every shard
 * reads.  audit_packet_mine: audit_packet for a packet that owner gave
 * to this shard (its flow hash not computed again).  audit_packet_other:
 * a packet another shard follows (counted, its time seen, as
 * audit_packet would; its octets not read). */
typedef struct audit_owner_cache audit_owner_cache;
int audit_packet_owner(audit_owner_cache *oc, int linktype, const uint8_t *data, uint32_t caplen, uint32_t wirelen,
                       unsigned nshards);
/* The flow hashes of the connections seen last, remembered (about
 * 256 KiB; NULL for audit_packet_owner: none). */
audit_owner_cache *audit_owner_cache_new(void);
void audit_owner_cache_free(audit_owner_cache *oc);
void audit_packet_mine(audit *a, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t wirelen);
/* audit_packet_mine of a packet at offset at of the source (audit_packet_at). */
void audit_packet_mine_at(audit *a, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t wirelen,
                          uint64_t at);
void audit_packet_other(audit *a, uint64_t ts_ns, uint32_t caplen);

/* Where the auditor is, so that what a worker hands on can be put in the
 * order one run makes it: the packet (one past the last while finishing),
 * the phase within it (0 closing idle connections, or all at the end;
 * 1 the packet itself; 2 after it), and within phase 0 the last packet
 * of the connection being closed (0 before the first). */
void audit_where(const audit *a, uint64_t *packet, int *phase, uint64_t *sub);

/* A finding not tied to a connection that another auditor made (capped
 * and passed on as this one's own); the statistics of a run made of
 * others' (its summary). */
void audit_add_global(audit *a, const audit_finding *f);
void audit_set_stats(audit *a, const audit_stats *s);

/* A problem with the input itself (a file cut short, ...), reported as a
 * finding not tied to a connection, at the current frame. */
void audit_input_problem(audit *a, mpa_finding_id id, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* End of all input: every open connection is reported. */
void audit_finish(audit *a);

const audit_stats *audit_get_stats(const audit *a);
/* --shard: how a figure whose peak the summary gives moved in this shard,
 * as (packet, highest within it, value after it) triples, one where it
 * moved; overflow: more than AUDIT_GAUGE_MAX numbers, the rest not kept.
 * which 0: open TCP connections, 1: out-of-order octets held. */
#define AUDIT_GAUGE_MAX (1u << 20)
typedef struct audit_gauge {
    uint64_t *v;
    size_t n, cap;
    uint64_t last;
    int overflow;
} audit_gauge;
const audit_gauge *audit_get_gauge(const audit *a, int which);

/* Findings not tied to a connection, kept (capped like a connection's). */
const audit_finding *audit_global_findings(const audit *a, size_t *n);

#endif

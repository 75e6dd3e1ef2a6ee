/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The TCP conversation model of mpa-capgen: turns a scenario (corpus.h:
 * each direction's chunks in wire order) into the packets two TCP
 * endpoints would exchange for it (RFC 9293): the three-way handshake,
 * one segment per chunk (split only when a chunk exceeds one IP packet),
 * pure ACKs from the peer now and then, FIN or RST with their sequence
 * numbers, and deterministic timestamps.  Transport variants (reordering,
 * retransmissions, fragments, ...) then edit the packet list, and
 * cap_write() merges one or more conversations into a capture file.
 *
 * Direction 0 is the TCP client (it sends the SYN) and, in the shared
 * scenarios, the MPA Initiator.
 */
#ifndef MPA_CAPGEN_CONV_H
#define MPA_CAPGEN_CONV_H

#include "capw.h"
#include "corpus.h"
#include "net.h"

/* One packet to write (TCP segment, UDP datagram or ARP frame). */
typedef struct tpkt {
    uint8_t dir;
    uint8_t proto;     /* NET_PROTO_TCP, NET_PROTO_UDP, or 0 for ARP */
    uint8_t flags;     /* TCP_*; the ARP operation for ARP */
    uint8_t lost;      /* sent but lost by the capture: never written */
    uint8_t frag_rev;  /* fragments in reverse order */
    uint16_t frag;     /* fragment: octets per fragment (0: one packet) */
    uint16_t mss;      /* SYN option */
    int8_t wscale;     /* SYN option, -1: none */
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint16_t win;
    const uint8_t *data;
    size_t len;
    uint64_t ts;
    const char *comment; /* pcapng packet comment, may be NULL */
} tpkt;

typedef struct conv {
    netpath np;
    uint16_t port[2];     /* source port of each direction */
    uint32_t isn[2];      /* sequence number of each direction's first payload octet */
    uint8_t *dbuf[2];     /* each direction's octets in sequence order (lost ones too) */
    size_t dlen[2];
    tpkt *p;
    size_t n, cap;
    void **own;           /* buffers the packets point into (copies, comments) */
    size_t nown, capown;
} conv;

typedef struct conv_opts {
    uint16_t port[2];     /* client and server port */
    int isn_set;          /* use isn[] instead of the scenario's */
    uint32_t isn[2];
    unsigned ack_every;   /* a pure ACK after this many unacknowledged segments (0: 2) */
    int no_final_acks;    /* leave the last data unacknowledged */
} conv_opts;

#define CONV_MSS_DEFAULT 65495 /* the loopback MSS: MULPDU checks stay quiet */
#define CONV_WSCALE 7
#define CONV_WIN 65535     /* scaled by 2^CONV_WSCALE after the SYNs */
#define CONV_SYN_WIN 64240 /* SYN windows are never scaled (RFC 7323 2.2) */

void conv_init(conv *c, const netpath *np);
void conv_free(conv *c);

/* Appends the packets of scenario s (its mid-stream fields honoured:
 * no handshake, nothing before start_chunk). */
void conv_tcp_from_scen(conv *c, const cs_scen *s, const conv_opts *o);

/* Appends a UDP datagram (payload copied) or an ARP frame. */
void conv_udp(conv *c, int dir, uint16_t sport, uint16_t dport, const void *payload, size_t len,
              const char *comment);
void conv_arp(conv *c, int dir, int op);

/* A copy of a string owned by the conversation (for comments). */
const char *conv_str(conv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- transport variants: each returns 0, or -1 if the conversation has
 * no place for it (nth counts from 0) ---------------------------------- */

/* Swap the nth pair of data segments of dir that are adjacent both in
 * sequence space and in the packet list (out-of-order delivery). */
int conv_reorder(conv *c, int dir, unsigned nth);

/* After the nth run of three consecutive data segments of dir, resend the
 * octets from inside the first to inside the third as two segments cut
 * elsewhere: identical octets, other boundaries. */
int conv_retrans_reseg(conv *c, int dir, unsigned nth);

/* Retransmit the nth data segment of dir (at least 64 octets) as it
 * was, right after it: the same boundaries and octets. */
int conv_retrans_same(conv *c, int dir, unsigned nth);

/* Right after the nth data segment of dir of at least 64 octets, resend
 * its span with 4 octets in the middle changed (a conflicting overlap:
 * the first copy is the one the receiver kept). */
int conv_overlap(conv *c, int dir, unsigned nth);

/* Right before the nth captured data segment of dir, a stray copy of it
 * whose sequence number is moved by delta (modulo 2^32; the receiver's
 * reassembly must not take it for data, unless it is a small step back:
 * up to 64 octets back, the copy starts there and carries the true
 * octets, a resend overlapping what came before). */
int conv_stray(conv *c, int dir, unsigned nth, uint32_t delta);

/* Right after the nth data segment of dir, a pure ACK from the peer that
 * acknowledges delta octets more than dir has sent. */
int conv_stray_ack(conv *c, int dir, unsigned nth, uint32_t delta);

/* Fragment every TCP packet whose IP payload exceeds frag octets. */
void conv_fragment_big(conv *c, unsigned frag);

/* Fragment the nth data segment of dir (size octets per fragment,
 * fragments last first when rev). */
int conv_fragment_nth(conv *c, int dir, unsigned nth, unsigned size, int rev);

/* Timestamps: packet i at t0 + i * step_ns. Returns the time after the
 * last packet. */
uint64_t conv_times(conv *c, uint64_t t0, uint64_t step_ns);

/* Number of packets that carry payload of dir and are captured. */
size_t conv_data_packets(const conv *c, int dir);

/* Writes the captured packets of c, in list order, into an open writer
 * (for a conversation inside a capture written some other way). */
void conv_write(capw *w, conv *c);

/*
 * Writes the captured packets of the conversations, merged by time
 * (ties: conversation order, then packet order).  Returns 0, or -1 with
 * errno set.  *bytes (may be NULL) gets the file size.
 */
int cap_write(const char *path, capw_format fmt, int link, uint32_t snaplen, const char *iface,
              conv *const *cs, size_t ncs, uint64_t *bytes);

#endif

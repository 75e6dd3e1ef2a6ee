/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-inject's trace: a pcapng file (link type raw IP) of every TCP
 * segment that crossed the wire during a run, both directions, each
 * packet with a comment naming the scenario and the step that was
 * running ("bad-key step 3 (expect): ...").  mpa-audit and the
 * Wireshark plugin read it like any capture.
 *
 * The raw transport writes the IP packets it really sent and received
 * (trace_ip).  The socket transport cannot see segments, so it
 * describes what it did (trace_tcp): the handshake, one segment per
 * write, one per read as the kernel returned it, FIN and RST; sequence
 * and acknowledgment numbers are the stream offsets the octets had.
 * The addresses and ports are the real ones.
 */
#ifndef MPA_INJECT_TRACE_H
#define MPA_INJECT_TRACE_H

#include <stddef.h>
#include <stdint.h>

typedef struct inj_trace inj_trace;

/* Create path (pcapng).  NULL + err when it cannot be written. */
inj_trace *trace_open(const char *path, char *err, size_t errlen);

/* The comment every packet gets from now on (copied; NULL: none). */
void trace_label(inj_trace *t, const char *label);

/* One IP packet (v4 or v6, by its first nibble), as sent or received. */
void trace_ip(inj_trace *t, const uint8_t *pkt, size_t len);

/* The endpoints of a connection the socket transport describes;
 * direction 0 is the injector.  family 4 or 6; addresses in network
 * order (IPv4 in the first 4 octets). */
typedef struct trace_flow {
    int family;
    uint8_t addr[2][16];
    uint16_t port[2];
    uint32_t next_seq[2]; /* the sequence number of each side's next octet */
    int syn_done;         /* set once the handshake is written: every later
                             segment but a RST carries ACK */
} trace_flow;

enum { TRACE_FIN = 0x01, TRACE_SYN = 0x02, TRACE_RST = 0x04, TRACE_PSH = 0x08, TRACE_ACK = 0x10 };

/* One segment of direction dir: flags (TRACE_*), the payload; sequence
 * numbers follow f->next_seq (SYN and FIN count one). */
void trace_tcp(inj_trace *t, trace_flow *f, int dir, unsigned flags, const uint8_t *p, size_t len);

/* Packets written so far. */
uint64_t trace_packets(const inj_trace *t);

/* Flush and close; 0, or -1 + err if any write failed.  t is freed. */
int trace_close(inj_trace *t, char *err, size_t errlen);

#endif

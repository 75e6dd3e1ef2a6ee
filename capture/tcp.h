/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * TCP reassembly for the capture readers (mpa-audit, the Wireshark
 * plugin), one direction of one connection at a time (RFC 9293 3.4
 * sequence numbers, 3.10.7.4 segment arrival).
 *
 * It turns captured segments, in capture order, into the ordered octet
 * stream the receiver saw, and says where the capture fell short:
 *  - in-order octets go straight from the packet to the sink (no copy);
 *  - the last octets delivered are kept to judge retransmissions: copied,
 *    or, when the packets are in a source that can be read again (a
 *    capture file), only where they are there (tcp_source);
 *  - out-of-order segments wait in a sorted list until the gap before
 *    them fills, bounded by a memory budget shared by all connections;
 *  - retransmissions (also with other segment boundaries) are trimmed
 *    to what is new; octets that differ from the copy seen first are a
 *    conflict (the first copy wins, as the receiver already took it);
 *  - a hole is declared as soon as the peer has acknowledged past it (the
 *    receiver got what the capture missed), when a direction holds too
 *    much out-of-order data, when the memory budget runs out, at FIN/RST
 *    and at the end of the capture;
 *  - sequence numbers are mapped to 64-bit stream offsets relative to the
 *    expected one, so the 2^32 wrap is no event; a segment more than
 *    TCP_WINDOW_MAX away from it is out of window and ignored (counted).
 */
#ifndef CAPTURE_TCP_H
#define CAPTURE_TCP_H

#include <stddef.h>
#include <stdint.h>

#include "agelist.h"

#define TCP_WINDOW_MAX (1u << 30)   /* RFC 7323: the largest scaled window */
#define TCP_RECENT 4096u            /* delivered octets kept to judge retransmissions */
#define TCP_BND_N 64u               /* segment boundaries of first transmissions kept */

/* What the reassembler tells its owner, in stream order per direction. */
typedef enum tcp_note {
    TCP_NOTE_CONFLICT,      /* retransmitted octets differ (off, len) */
    TCP_NOTE_OUT_OF_WINDOW, /* a segment far from the expected sequence number (ignored) */
    TCP_NOTE_EARLY_HOLE,    /* the memory budget forced a hole early (len octets) */
    TCP_NOTE_RESEGMENT,     /* a retransmission of captured octets starts or ends where no
                               first transmission did (off, len) */
} tcp_note;

typedef struct tcp_sink {
    void *user;
    /* In-order octets of dir at stream offset off; seg_start: they begin
     * a TCP segment as it was sent (for FPDU alignment). frame: the
     * capture frame number of the segment they come from. */
    void (*data)(void *user, int dir, uint64_t off, const uint8_t *p, uint32_t len, int seg_start, uint64_t frame);
    /* len octets of dir at off are missing from the capture. */
    void (*gap)(void *user, int dir, uint64_t off, uint64_t len, uint64_t frame);
    /* dir's sender closed (rst 0: FIN, 1: RST) after all its octets. */
    void (*end)(void *user, int dir, int rst, uint64_t frame);
    void (*note)(void *user, int dir, tcp_note what, uint64_t off, uint64_t len, uint64_t frame);
} tcp_sink;

typedef struct tcp_dir tcp_dir;

/* Reading back (optional): the octets kept to judge retransmissions
 * (tcp_dir.recent) are read again from where the caller can find them
 * (a capture file) rather than copied as they are delivered. */
typedef struct tcp_source {
    /* n octets at offset off of the source into dst: 0, or -1 when they
     * cannot be read (the direction then compares nothing before). */
    int (*read)(void *user, uint64_t off, uint8_t *dst, uint32_t n);
    void *user;
    /* Set by the caller around tcp_dir_segment: its payload p[0..) is
     * at offset at - 1 of the source (0: not in it, copied at once). */
    const uint8_t *p;
    uint64_t at;
} tcp_source;

/* The memory budget for out-of-order data, shared by every direction
 * that points at it; and the source delivered octets are read back
 * from (src.read NULL: none), with the directions that hold references
 * to it (oldest first). */
typedef struct tcp_budget {
    size_t cap, used, peak;
    uint64_t early_holes;
    tcp_source src;
    age_list ref_dirs;    /* of tcp_refs.node */
    uint64_t read_failed; /* octets that could not be read back */
} tcp_budget;

/* Read back every reference now (before the source goes away). */
void tcp_settle_all(tcp_budget *b);

/* What one held segment of n octets costs, bookkeeping included, where
 * the owner counts memory (tcp_dir.charge): a flood of one-octet
 * segments must not hold fifty times its budget. */
#define TCP_SEG_COST(n) (48u + (size_t)(n))

typedef struct tcp_seg tcp_seg;

#define TCP_REFS 6u /* references to the source a direction holds */

/* Delivered octets a direction keeps only as where they are in the
 * source (in order): its ring holds them once read back.  In the block
 * of tcp_dir.recent, allocated with it: a connection not yet known to
 * speak MPA costs nothing here. */
typedef struct tcp_refs {
    age_node node;    /* on tcp_budget.ref_dirs while n > 0 */
    tcp_dir *owner;
    tcp_budget *list; /* the budget whose list it is on, or NULL */
    uint8_t n;
    struct {
        uint64_t at;  /* source offset */
        uint64_t off; /* stream offset */
        uint32_t len;
    } r[TCP_REFS];
} tcp_refs;

struct tcp_dir {
    uint8_t have_base;    /* base_seq is known */
    uint8_t fin_seen, ended;
    uint32_t base_seq;    /* sequence number of stream offset 0 */
    uint64_t nxt;         /* octets delivered (or declared lost) so far */
    uint64_t high;        /* the end of the highest octets seen sent (retransmissions start below it) */
    uint64_t fin_off;     /* where the FIN sits */
    uint64_t acked;       /* highest offset the peer acknowledged */
    uint64_t fin_frame;
    tcp_seg *ooo;         /* out-of-order segments, sorted, not overlapping */
    tcp_seg *ooo_tail;    /* the last of them (segments after a hole arrive in order: append) */
    /* NULL, or the owner's count of all the memory it holds against the
     * budget (every direction's segments at TCP_SEG_COST, and whatever
     * else the owner charges there): the cap then bounds that count
     * rather than used (the octets alone). */
    size_t *charge;
    size_t ooo_bytes;
    uint8_t *recent;      /* TCP_RECENT octets before nxt (allocated on first use) */
    uint8_t no_recent;    /* keep no such octets (yet): retransmissions are not compared */
    uint64_t recent_from; /* the kept octets are valid from here (not a hole) */
    uint64_t *bnd;        /* TCP_BND_N places where the last first transmissions began and
                             ended, a ring (in recent's block, allocated with it) */
    uint32_t nbnd;        /* boundaries recorded so far */
    tcp_refs *refs;       /* (in recent's block) */
    /* counters */
    uint64_t segments, retrans_octets, conflicts, out_of_window, holes, hole_octets, ooo_segments, resegmented;
};

/* dir starts at sequence number seq (the SYN's + 1, or the first seen). */
void tcp_dir_start(tcp_dir *t, uint32_t seq);

/* Stream offset of a sequence number, relative to what is expected;
 * returns 0 when it is out of window. */
int tcp_dir_offset(const tcp_dir *t, uint32_t seq, uint64_t *off);

/* One captured segment of direction dir (its payload, possibly shorter
 * than the segment: wire_len is what it carried).  fin: it carries FIN.
 * Octets the capture cut (wire_len > len) are a hole right away. */
void tcp_dir_segment(tcp_dir *t, int dir, uint32_t seq, const uint8_t *p, uint32_t len, uint32_t wire_len,
                     int fin, uint64_t frame, const tcp_sink *sink, tcp_budget *b);

/* The peer acknowledged up to sequence number ack (from its segment in
 * frame): a hole before queued data that the peer already received is
 * declared now. */
void tcp_dir_acked(tcp_dir *t, int dir, uint32_t ack, uint64_t frame, const tcp_sink *sink, tcp_budget *b);

/* dir's sender's own sequence number (of a FIN or RST that follows
 * octets the capture lacks) shows it sent everything before seq: the
 * hole is declared now. */
void tcp_dir_sent(tcp_dir *t, int dir, uint32_t seq, uint64_t frame, const tcp_sink *sink, tcp_budget *b);

/* dir's sender reset the connection: queued data is delivered (holes
 * declared), then end(RST). */
void tcp_dir_rst(tcp_dir *t, int dir, uint64_t frame, const tcp_sink *sink, tcp_budget *b);

/* End of the capture (or the connection went idle): declare what is
 * still missing, deliver everything queued, and end(FIN) if a FIN came. */
void tcp_dir_flush(tcp_dir *t, int dir, uint64_t frame, const tcp_sink *sink, tcp_budget *b);

/* Free what the direction holds (returns its budget). */
void tcp_dir_free(tcp_dir *t, tcp_budget *b);

#endif

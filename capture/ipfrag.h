/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * IP fragment reassembly for the capture readers: IPv4 (RFC 791) and IPv6
 * (RFC 8200 4.5), with bounded memory.
 *
 * Fragments come from pkt_parse() (status PKT_FRAGMENT).  A datagram is
 * keyed on (source, destination, identification, protocol) for IPv4 and
 * (source, destination, identification) for IPv6.  Each datagram in
 * flight owns one buffer of its upper-layer octets plus two range sets
 * (octets announced by fragment headers, octets actually captured);
 * all of it is freed when the datagram completes or is given up.
 *
 * Rules, where the RFCs leave a choice, chosen for an auditor (report,
 * then carry on with the best data):
 *   - overlaps with identical octets are accepted; a fragment whose
 *     overlapping octets differ keeps the FIRST copy and is counted in
 *     the datagram's `conflicts` (RFC 5722 would discard the datagram);
 *   - a fragment fully inside what is held, with the same octets, is a
 *     duplicate (stats only);
 *   - the last fragment (MF / M = 0) fixes the length; a later fragment
 *     contradicting it, a fragment ending past 65535 octets, or one with
 *     MF set whose length is not a multiple of 8 is refused alone
 *     (IPF_DROPPED, whole = 0) and the datagram goes on;
 *   - a fragment cut by the snap length still counts as present (its
 *     announced length covers its range); the completed datagram then
 *     delivers the captured prefix (len) and its full length (wire_len),
 *     and the caller parses it with pkt_parse_l4_cut();
 *   - more than max_datagrams in flight, or more than mem_cap octets held,
 *     gives up the OLDEST datagram (never grows past the cap); a datagram
 *     older than the timeout is given up when the next fragment arrives
 *     (ipfrag_add), or by ipfrag_expire().
 * Datagrams given up by ipfrag_add() other than the one the fragment
 * belongs to are reported through the callback set with ipfrag_on_drop()
 * (otherwise only counted).
 *
 * Not thread-safe; one ipfrag per capture.  All of it is libc only.
 */
#ifndef CAPTURE_IPFRAG_H
#define CAPTURE_IPFRAG_H

#include <stddef.h>
#include <stdint.h>

#include "pkt.h"

typedef struct ipfrag ipfrag;

/* mem_cap: octets of datagram state held at most (buffers, range sets,
 * per-datagram bookkeeping; not the fixed hash table).  max_datagrams:
 * datagrams in flight at most (0 is taken as 1).  timeout_ns: age, from
 * its first fragment, after which an incomplete datagram is given up;
 * 0 means never (only eviction and ipfrag_expire(UINT64_MAX)); Linux
 * uses 30 s for IPv4 and 60 s for IPv6 (RFC 8200 4.5).  Returns
 * NULL when out of memory.  Free with ipfrag_free(). */
ipfrag *ipfrag_new(size_t mem_cap, unsigned max_datagrams, uint64_t timeout_ns);

/* Frees everything, in-flight datagrams included (without reporting them:
 * call ipfrag_expire(f, UINT64_MAX, ...) first to have them reported).
 * NULL is accepted. */
void ipfrag_free(ipfrag *f);

typedef enum ipfrag_status {
    IPF_PENDING, /* fragment kept (or a duplicate); the datagram is not complete */
    IPF_DONE,    /* this fragment completed its datagram: see data/len/wire_len */
    IPF_DROPPED, /* this fragment (whole = 0) or its whole datagram (whole = 1) given up */
} ipfrag_status;

typedef struct ipfrag_result {
    pkt_ip ip;           /* the datagram: addresses and version; VLANs of its first
                          * fragment; ip.proto = proto */
    uint8_t proto;       /* upper-layer protocol (IPv6: Next Header of the Fragment header) */
    uint32_t id;         /* IPv4 identification or IPv6 fragment identification */
    /* IPF_DONE: the upper-layer payload from offset 0, valid until the next
     * ipfrag_* call.  IPF_DROPPED of a whole datagram: the octets held
     * contiguously from offset 0 (so a TCP header there can say which
     * connection lost data), valid during the callback / until the next
     * call; NULL with len 0 when none.  A refused fragment: NULL. */
    const uint8_t *data;
    uint32_t len;        /* octets at data */
    uint32_t wire_len;   /* DONE: the datagram's upper-layer length (> len when the
                          * capture cut a fragment: the octets past len are lost);
                          * DROPPED datagram: that length if its last fragment came,
                          * else the highest fragment end seen */
    uint64_t first_frame, last_frame; /* lowest and highest frame_no of its fragments */
    uint32_t nfrags;     /* fragments of the datagram accepted (duplicates included) */
    uint32_t conflicts;  /* its fragments whose overlapping octets differed (first copy kept) */
    uint64_t conflict_frame; /* frame_no of the first of those, when conflicts > 0 */
    /* IPF_DROPPED (and ipfrag_on_drop / ipfrag_expire reports) */
    const char *why;     /* static text; also set on IPF_DONE when conflicts > 0 */
    uint64_t frame;      /* frame_no whose arrival caused the drop; for a timeout or
                          * end of input, the datagram's last fragment; on IPF_DONE
                          * with conflicts, conflict_frame */
    uint32_t lost_octets;/* captured fragment octets thrown away */
    uint8_t whole;       /* 1: a whole datagram given up; 0: this fragment refused */
} ipfrag_result;

typedef void (*ipfrag_report_fn)(void *user, const ipfrag_result *r);

/* Where ipfrag_add() reports datagrams it gives up that are not the one
 * the current fragment belongs to (evicted for memory or count, timed
 * out).  cb NULL: only counted.  r and its data are valid during cb. */
void ipfrag_on_drop(ipfrag *f, ipfrag_report_fn cb, void *user);

/* Adds one fragment (p->frag, p->ip of a PKT_FRAGMENT from pkt_parse();
 * fragments of any protocol are accepted, so filter on p->frag.proto
 * first if only TCP matters).  ts_ns is the capture time, frame_no the
 * caller's frame number, both only reported back.  Always fills *res
 * (for IPF_PENDING only the identity fields).  Datagrams older than the
 * timeout are given up first (through the ipfrag_on_drop callback). */
ipfrag_status ipfrag_add(ipfrag *f, const pkt *p, uint64_t ts_ns, uint64_t frame_no, ipfrag_result *res);

/* Gives up every datagram whose first fragment is timeout_ns or more
 * older than now_ns, or all of them when now_ns is UINT64_MAX (end of
 * input): each is reported through cb (may be NULL) as IPF_DROPPED
 * whole, then freed.  Datagrams are examined oldest first and the scan
 * stops at the first one still young (captures are nearly time-ordered;
 * ipfrag_add also checks the age of the datagram it adds to). */
void ipfrag_expire(ipfrag *f, uint64_t now_ns, ipfrag_report_fn cb, void *user);

typedef struct ipfrag_stats {
    uint64_t fragments;  /* ipfrag_add calls */
    uint64_t datagrams;  /* datagrams reassembled (IPF_DONE) */
    uint64_t dropped;    /* datagrams given up incomplete (timeout, eviction, end of input) */
    uint64_t refused;    /* fragments refused alone */
    uint64_t duplicates; /* fragments adding nothing new, same octets */
    uint64_t conflicts;  /* fragments whose overlapping octets differed */
    uint64_t evicted;    /* of `dropped`: to stay under mem_cap or max_datagrams */
    uint64_t mem;        /* octets held now */
    uint64_t mem_peak;   /* most octets held at once */
    uint64_t in_flight;  /* datagrams held now */
} ipfrag_stats;

const ipfrag_stats *ipfrag_get_stats(const ipfrag *f);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Packet construction: link layer, IPv4/IPv6 (with an optional
 * extension header chain and fragmentation), TCP and UDP with correct
 * checksums, written straight into a capw buffer.
 *
 * A netpath holds what stays the same for every packet of one
 * conversation in one file: the link encapsulation, the two endpoints'
 * link and IP addresses, and the IP identification counters.  Direction
 * 0 is the endpoint that sent the SYN (the TCP client), direction 1 its
 * peer, as in the scenario corpus (corpus/corpus.h).
 */
#ifndef MPA_WIRE_NET_H
#define MPA_WIRE_NET_H

#include <stddef.h>
#include <stdint.h>

#include "capw.h"

enum { TCP_FIN = 0x01, TCP_SYN = 0x02, TCP_RST = 0x04, TCP_PSH = 0x08, TCP_ACK = 0x10 };
enum { NET_PROTO_TCP = 6, NET_PROTO_UDP = 17 };
enum { NET_IP4_DF = 0x4000, NET_IP4_MF = 0x2000 }; /* IPv4 flags (RFC 791 3.1) */

typedef struct netpath {
    int link;               /* LINK_* of the file */
    uint8_t nvlan;          /* Ethernet: 0, 1 (802.1Q) or 2 tags (QinQ) */
    uint16_t vlan_tpid[2];  /* outermost first: 0x88A8 (802.1ad S-tag), 0x8100 (802.1Q) */
    uint16_t vlan_id[2];
    uint8_t mac[2][6];      /* link address of the sender of each direction */
    uint8_t family;         /* 4 or 6 */
    uint8_t addr[2][16];    /* IP source address of each direction (IPv4 in [0..3]) */
    uint8_t v6_ext;         /* IPv6: Hop-by-Hop and Destination Options headers before TCP */
    uint8_t capture_side;   /* SLL packet type: packets of this direction are "outgoing" */
    uint16_t ip_id[2];      /* next IPv4 Identification of each direction */
    uint32_t frag_id;       /* next IPv6 Fragment header Identification */
    uint32_t flow[2];       /* IPv6 flow label of each direction */
} netpath;

/* A plausible path: MACs, addresses 192.0.2.x / 2001:db8::x (RFC 5737,
 * RFC 3849 documentation ranges) distinguished by host; link and family
 * as given. */
void net_path_init(netpath *np, int link, int family, unsigned host0, unsigned host1);

/* Octets of IP payload that one unfragmented packet can carry after the
 * IP header and extension headers (what a TCP segment may use). */
size_t net_ip_room(const netpath *np);

typedef struct tcpseg {
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint8_t flags;   /* TCP_* */
    uint16_t win;
    uint16_t mss;    /* non-zero: MSS option (SYN, SYN-ACK) */
    int8_t wscale;   /* >= 0: window scale option (SYN, SYN-ACK) */
} tcpseg;

/*
 * One TCP segment of direction dir, at ts_ns.  frag: 0 sends it as one
 * IP packet; otherwise as fragments carrying at most frag octets of
 * fragmentable IP payload each (rounded down to a multiple of 8),
 * 200 ns apart, last fragment first when frag_rev.  comment: pcapng
 * packet comment (first fragment), may be NULL.  Returns the number of
 * packets written.
 */
unsigned net_tcp(capw *w, netpath *np, int dir, uint64_t ts_ns, const tcpseg *t,
                 const uint8_t *payload, size_t len, unsigned frag, int frag_rev,
                 const char *comment);

/* One UDP datagram of direction dir (never fragmented). */
void net_udp(capw *w, netpath *np, int dir, uint64_t ts_ns, uint16_t sport, uint16_t dport,
             const uint8_t *payload, size_t len, const char *comment);

/* An ARP request (op 1) or reply (op 2) between the two endpoints
 * (Ethernet links only; ignored otherwise). */
void net_arp(capw *w, const netpath *np, int dir, uint64_t ts_ns, int op, const char *comment);

/* ---- the pieces, for packets the calls above do not make ----------- */

/* Octets of the link header of np's link (0 for raw IP). */
size_t net_link_len(const netpath *np);

/* The link header (net_link_len() octets at p) of a frame that
 * direction dir sends, carrying ethertype (0x0800 IPv4, 0x86DD IPv6,
 * 0x0806 ARP). */
void net_put_link(uint8_t *p, const netpath *np, int dir, uint16_t ethertype);

/* An IPv4 header without options (20 octets at ip, RFC 791 3.1): TTL
 * 64, the addresses (4 octets each), identification id, frag the flags
 * and fragment offset field (NET_IP4_DF, NET_IP4_MF | offset / 8),
 * proto, payload_len octets after the header; the header checksum
 * filled in. */
void net_put_ipv4(uint8_t *ip, const uint8_t *src, const uint8_t *dst, uint16_t id, uint16_t frag,
                  uint8_t proto, size_t payload_len);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Packet parsing for the capture readers: link layer -> IPv4/IPv6 -> TCP.
 *
 * Link types (pcap LINKTYPE_ values): ETHERNET (1), NULL (0, BSD
 * loopback: 4-octet address family in host order of the writer, either
 * order accepted), LOOP (108, the same in network order), RAW (101) and
 * the IPV4 (228) / IPV6 (229) raw types, LINUX_SLL (113), LINUX_SLL2 (276).
 * Ethernet may carry 802.1Q / 802.1ad tags (VLAN, QinQ: any depth up to
 * PKT_MAX_VLAN).  IPv4 with options; IPv6 with extension headers (Hop-by-
 * Hop, Routing, Destination Options, Fragment, AH; ESP and No Next Header
 * end the parse as not TCP).
 *
 * Every field is read through a bounds check against the captured length;
 * nothing is read through overlaid structs.  A packet cut by the snap
 * length ("truncated": the captured octets end before the lengths the
 * headers declare) is reported differently from a malformed one
 * ("invalid": the headers contradict themselves).
 *
 * IP fragments are returned as PKT_FRAGMENT with the fragment's identity
 * and payload; ipfrag.h reassembles them, and pkt_parse_l4() (or
 * pkt_parse_l4_cut()) parses the reassembled datagram.
 */
#ifndef CAPTURE_PKT_H
#define CAPTURE_PKT_H

#include <stddef.h>
#include <stdint.h>

#define PKT_MAX_VLAN 4

enum {
    PKT_LINK_NULL = 0,
    PKT_LINK_ETHERNET = 1,
    PKT_LINK_RAW = 101,
    PKT_LINK_LOOP = 108,
    PKT_LINK_LINUX_SLL = 113,
    PKT_LINK_IPV4 = 228,
    PKT_LINK_IPV6 = 229,
    PKT_LINK_LINUX_SLL2 = 276,
};

typedef enum pkt_status {
    PKT_OK = 0,        /* a TCP segment: out->tcp is filled */
    PKT_NOT_TCP,       /* a well-formed packet that is not TCP over IP (ARP, UDP, ...): skip */
    PKT_FRAGMENT,      /* an IP fragment (any protocol: see frag.proto): out->frag is filled */
    PKT_TRUNCATED,     /* the capture ends before a header does (snaplen) */
    PKT_INVALID,       /* malformed: a header contradicts itself */
    PKT_UNSUPPORTED,   /* a link type (or an encapsulation: MPLS, PPPoE, IP-in-IP, GRE,
                        * too many VLAN tags, IPv6 jumbogram) this parser does not know */
} pkt_status;

typedef struct pkt_addr {
    uint8_t family; /* 4 or 6 */
    uint8_t a[16];  /* IPv4 in a[0..3] */
} pkt_addr;

typedef struct pkt_ip {
    pkt_addr src, dst;
    uint8_t version;     /* 4 or 6 */
    uint8_t proto;       /* upper-layer protocol after extension headers */
    uint16_t vlan[PKT_MAX_VLAN]; /* VLAN ids, outermost first */
    uint8_t nvlan;
} pkt_ip;

typedef struct pkt_tcp {
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint8_t flags;       /* PKT_TCP_* */
    uint16_t win;
    uint16_t mss;        /* MSS option value, 0 when absent */
    int8_t wscale;       /* window scale option, -1 when absent */
    const uint8_t *payload; /* the captured payload octets (into the packet) */
    uint32_t payload_len;   /* captured payload octets */
    uint32_t payload_wire;  /* payload octets the IP length declares (>= payload_len) */
} pkt_tcp;

enum { PKT_TCP_FIN = 0x01, PKT_TCP_SYN = 0x02, PKT_TCP_RST = 0x04, PKT_TCP_PSH = 0x08,
       PKT_TCP_ACK = 0x10, PKT_TCP_URG = 0x20 };

typedef struct pkt_frag {
    uint32_t id;          /* IPv4 identification (16 bits) or IPv6 fragment id */
    uint32_t offset;      /* octets */
    uint8_t more;         /* MF */
    uint8_t proto;        /* upper-layer protocol (IPv6: the Fragment header's Next Header) */
    const uint8_t *data;  /* fragment payload, captured octets */
    uint32_t len;         /* captured payload octets */
    uint32_t wire_len;    /* declared payload octets */
    /* IPv6: the unfragmentable part is not kept; the reassembled datagram
     * is handed to pkt_parse_l4() as proto + payload. */
} pkt_frag;

typedef struct pkt {
    pkt_ip ip;
    pkt_tcp tcp;    /* PKT_OK */
    pkt_frag frag;  /* PKT_FRAGMENT */
    /* PKT_TRUNCATED / PKT_INVALID / PKT_UNSUPPORTED: what and where.
     * Also set on PKT_OK when tcp.payload_len < tcp.payload_wire, saying
     * whether the capture (snap length) or the packet itself ended early;
     * NULL on every other PKT_OK, PKT_NOT_TCP and PKT_FRAGMENT. */
    const char *why;    /* static text naming the field, e.g. "IPv4 IHL < 5";
                         * it carries no values: read them at `where` */
    uint32_t where;     /* octet offset in the packet of the offending field
                         * (of the header that is cut, for a cut) */
} pkt;

/* Parse one captured packet of the given link type.  data[0..caplen) are
 * the captured octets, wirelen the original length.  Never reads outside
 * data[0..caplen).  Pointers in *out point into data. */
pkt_status pkt_parse(int linktype, const uint8_t *data, uint32_t caplen, uint32_t wirelen, pkt *out);

/* Parse an upper-layer payload (proto = 6 for TCP) that came out of IP
 * reassembly; out->ip must already hold the datagram's addresses and
 * version (kept; ip.proto is set to proto).  For IPv6, extension headers
 * that followed the Fragment header are walked first.  Returns PKT_OK
 * for TCP, PKT_NOT_TCP for other protocols, PKT_INVALID for a malformed
 * TCP header, PKT_UNSUPPORTED for tunnels; `where` is relative to data. */
pkt_status pkt_parse_l4(uint8_t proto, const uint8_t *data, uint32_t len, pkt *out);

/* The same for a datagram of wirelen octets of which only the first
 * caplen were captured (a fragment cut by the snap length): a header
 * cut there is PKT_TRUNCATED, and tcp.payload_wire counts the missing
 * tail.  pkt_parse_l4(p, d, n, o) is pkt_parse_l4_cut(p, d, n, n, o). */
pkt_status pkt_parse_l4_cut(uint8_t proto, const uint8_t *data, uint32_t caplen, uint32_t wirelen, pkt *out);

/* "truncated", "invalid", ... */
const char *pkt_status_str(pkt_status st);

/* Text form of an address: "192.0.2.1" or "2001:db8::1" (RFC 5952).
 * buf needs 46 octets. */
const char *pkt_addr_str(const pkt_addr *a, char *buf, size_t cap);

#endif

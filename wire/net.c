/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Packet construction: link layers, IPv4 (RFC 791), IPv6 (RFC 8200),
 * TCP (RFC 9293), UDP (RFC 768), ARP (RFC 826).  See net.h.
 *
 * Fields are written octet by octet in network order, never through
 * overlaid structs.  Checksums are the Internet checksum (RFC 1071) over
 * the pseudo-header (RFC 9293 3.1 for IPv4, RFC 8200 8.1 for IPv6) and
 * the whole segment, computed before an IP packet is fragmented.
 */
#include "net.h"

#include <string.h>

#include "bytes.h"
#include "csum.h"

/* ---- paths ----------------------------------------------------------- */

void net_path_init(netpath *np, int link, int family, unsigned host0, unsigned host1)
{
    memset(np, 0, sizeof *np);
    np->link = link;
    np->family = (uint8_t)family;
    unsigned host[2] = {host0, host1};
    for (int d = 0; d < 2; d++) {
        /* locally administered unicast MACs */
        static const uint8_t oui[3] = {0x06, 0x4d, 0x50};
        memcpy(np->mac[d], oui, 3);
        np->mac[d][3] = 0x4d;
        np->mac[d][4] = (uint8_t)(host[d] >> 8);
        np->mac[d][5] = (uint8_t)host[d];
        if (family == 4) {
            np->addr[d][0] = 192; /* 192.0.2.0/24, RFC 5737 */
            np->addr[d][1] = 0;
            np->addr[d][2] = 2;
            np->addr[d][3] = (uint8_t)host[d];
        } else {
            static const uint8_t pfx[8] = {0x20, 0x01, 0x0d, 0xb8, 0x00, 0x4d, 0x50, 0x41};
            memcpy(np->addr[d], pfx, 8); /* 2001:db8::/32, RFC 3849 */
            np->addr[d][14] = (uint8_t)(host[d] >> 8);
            np->addr[d][15] = (uint8_t)host[d];
        }
        np->ip_id[d] = (uint16_t)(0x1000u * (d + 1) + host[d]);
        np->flow[d] = 0x4d500u + (unsigned)d * 0x101u + host[d];
    }
    np->frag_id = 0x6d706100u;
}

/* IPv6 extension headers we put in the chain (RFC 8200 4.3, 4.6): a
 * Hop-by-Hop header of 8 octets and a Destination Options header of 16,
 * each carrying one PadN option, so readers must follow Hdr Ext Len. */
#define HBH_LEN 8u
#define DOPT_LEN 16u
#define FRAG_LEN 8u

static size_t ip_hdr_len(const netpath *np, int fragmented)
{
    if (np->family == 4)
        return 20;
    return 40 + (np->v6_ext ? HBH_LEN : 0) + (fragmented ? FRAG_LEN : 0);
}

size_t net_ip_room(const netpath *np)
{
    /* IPv4 total length and IPv6 payload length are 16 bits. */
    if (np->family == 4)
        return 65535 - 20;
    return 65535 - (np->v6_ext ? HBH_LEN + DOPT_LEN : 0);
}

size_t net_link_len(const netpath *np)
{
    switch (np->link) {
    case LINK_ETHERNET:
        return 14 + 4u * np->nvlan;
    case LINK_LINUX_SLL:
        return 16;
    case LINK_LINUX_SLL2:
        return 20;
    case LINK_NULL:
        return 4;
    default:
        return 0;
    }
}

void net_put_link(uint8_t *p, const netpath *np, int dir, uint16_t ethertype)
{
    switch (np->link) {
    case LINK_ETHERNET: {
        memcpy(p, np->mac[!dir], 6);
        memcpy(p + 6, np->mac[dir], 6);
        size_t o = 12;
        for (unsigned i = 0; i < np->nvlan; i++) {
            /* IEEE 802.1Q tag: TPID, then PCP(3) DEI(1) VID(12) */
            put_be16(p + o, np->vlan_tpid[i]);
            put_be16(p + o + 2, (uint16_t)(np->vlan_id[i] & 0x0FFF));
            o += 4;
        }
        put_be16(p + o, ethertype);
        break;
    }
    case LINK_LINUX_SLL:
        /* packet type, ARPHRD_ETHER, address length, address (8), protocol */
        put_be16(p, dir == np->capture_side ? 4 : 0); /* 4 outgoing, 0 to us */
        put_be16(p + 2, 1);
        put_be16(p + 4, 6);
        memcpy(p + 6, np->mac[dir], 6);
        p[12] = p[13] = 0;
        put_be16(p + 14, ethertype);
        break;
    case LINK_LINUX_SLL2:
        /* protocol, reserved, ifindex, ARPHRD_ETHER, packet type, address length, address (8) */
        put_be16(p, ethertype);
        put_be16(p + 2, 0);
        put_be32(p + 4, 2);
        put_be16(p + 8, 1);
        p[10] = dir == np->capture_side ? 4 : 0;
        p[11] = 6;
        memcpy(p + 12, np->mac[dir], 6);
        p[18] = p[19] = 0;
        break;
    case LINK_NULL: {
        /* The address family in the writer's byte order: we write it as
         * a little-endian host would (AF_INET 2; AF_INET6 24, the BSD
         * value), whatever host runs the generator. */
        put_le32(p, ethertype == 0x86DD ? 24 : 2);
        break;
    }
    default:
        break;
    }
}

void net_put_ipv4(uint8_t *ip, const uint8_t *src, const uint8_t *dst, uint16_t id, uint16_t frag,
                  uint8_t proto, size_t payload_len)
{
    /* RFC 791 3.1: version 4, IHL 5, TOS 0, TTL 64 */
    ip[0] = 0x45;
    ip[1] = 0;
    put_be16(ip + 2, (uint16_t)(20 + payload_len));
    put_be16(ip + 4, id);
    put_be16(ip + 6, frag);
    ip[8] = 64;
    ip[9] = proto;
    put_be16(ip + 10, 0);
    memcpy(ip + 12, src, 4);
    memcpy(ip + 16, dst, 4);
    uint16_t c = csum_fold(csum_add(0, ip, 20));
    memcpy(ip + 10, &c, 2);
}

typedef struct piece {
    const uint8_t *p;
    size_t n;
} piece;

/* Copies octets [off, off+n) of the concatenated pieces to out. */
static void copy_slice(uint8_t *out, const piece *pc, int npc, size_t off, size_t n)
{
    for (int i = 0; i < npc && n; i++) {
        if (off >= pc[i].n) {
            off -= pc[i].n;
            continue;
        }
        size_t k = pc[i].n - off < n ? pc[i].n - off : n;
        memcpy(out, pc[i].p + off, k);
        out += k;
        n -= k;
        off = 0;
    }
}

/*
 * One IP packet of direction dir carrying octets [off, off+n) of the
 * fragmentable data (pieces).  first_proto is the protocol number of that
 * data (60 when a Destination Options header leads it).  fragmented:
 * the packet is a fragment (IPv4 MF/offset, IPv6 Fragment header);
 * more: not the last one; id: the datagram's identification.
 */
static void put_ip_packet(capw *w, netpath *np, int dir, uint64_t ts, uint8_t first_proto,
                          const piece *pc, int npc, size_t off, size_t n, int fragmented,
                          int more, uint32_t id, const char *comment)
{
    size_t ll = net_link_len(np), il = ip_hdr_len(np, fragmented);
    uint8_t *p = capw_begin(w, ll + il + n);
    net_put_link(p, np, dir, np->family == 4 ? 0x0800 : 0x86DD);
    uint8_t *ip = p + ll;
    if (np->family == 4) {
        uint16_t ff = fragmented ? (uint16_t)((more ? NET_IP4_MF : 0) | (off / 8)) : NET_IP4_DF;
        net_put_ipv4(ip, np->addr[dir], np->addr[!dir], (uint16_t)id, ff, first_proto, n);
    } else {
        /* RFC 8200 3: version, traffic class 0, flow label */
        put_be32(ip, 0x60000000u | (np->flow[dir] & 0xFFFFFu));
        put_be16(ip + 4, (uint16_t)(il - 40 + n));
        ip[7] = 64;
        memcpy(ip + 8, np->addr[dir], 16);
        memcpy(ip + 24, np->addr[!dir], 16);
        uint8_t *nh = ip + 6, *h = ip + 40;
        if (np->v6_ext) {
            /* Hop-by-Hop: next, Hdr Ext Len 0, PadN(4) */
            *nh = 0;
            nh = h;
            h[1] = 0;
            h[2] = 1;
            h[3] = 4;
            memset(h + 4, 0, 4);
            h += HBH_LEN;
        }
        if (fragmented) {
            /* RFC 8200 4.5: next, reserved, offset(13) res(2) M, id */
            *nh = 44;
            nh = h;
            h[1] = 0;
            put_be16(h + 2, (uint16_t)((off & ~(size_t)7) | (more ? 1 : 0)));
            put_be32(h + 4, id);
            h += FRAG_LEN;
        }
        *nh = first_proto;
    }
    copy_slice(ip + il, pc, npc, off, n);
    capw_commit(w, ts, ll + il + n, comment);
}

/* Sends the L4 header + payload as one packet or as fragments. */
static unsigned send_l4(capw *w, netpath *np, int dir, uint64_t ts, uint8_t proto,
                        const uint8_t *l4h, size_t l4hl, const uint8_t *payload, size_t len,
                        unsigned frag, int frag_rev, const char *comment)
{
    piece pc[3];
    int npc = 0;
    uint8_t dopt[DOPT_LEN];
    uint8_t first = proto;
    if (np->family == 6 && np->v6_ext) {
        /* Destination Options: next, Hdr Ext Len 1 (16 octets), PadN(12).
         * Without a Routing header it belongs to the fragmentable part
         * (RFC 8200 4.5), so it travels in the first fragment. */
        memset(dopt, 0, sizeof dopt);
        dopt[0] = proto;
        dopt[1] = 1;
        dopt[2] = 1;
        dopt[3] = 12;
        pc[npc].p = dopt;
        pc[npc++].n = sizeof dopt;
        first = 60;
    }
    pc[npc].p = l4h;
    pc[npc++].n = l4hl;
    pc[npc].p = payload;
    pc[npc++].n = len;
    size_t total = 0;
    for (int i = 0; i < npc; i++)
        total += pc[i].n;

    uint32_t id;
    if (np->family == 4)
        id = np->ip_id[dir]++;
    else
        id = frag ? np->frag_id++ : 0;
    size_t step = frag & ~7u;
    if (!frag || step == 0 || total <= step) {
        put_ip_packet(w, np, dir, ts, first, pc, npc, 0, total, 0, 0, id, comment);
        return 1;
    }
    unsigned nfr = (unsigned)((total + step - 1) / step);
    for (unsigned k = 0; k < nfr; k++) {
        unsigned i = frag_rev ? nfr - 1 - k : k;
        size_t off = (size_t)i * step;
        size_t n = total - off < step ? total - off : step;
        put_ip_packet(w, np, dir, ts + 200u * k, first, pc, npc, off, n, 1, i + 1 < nfr, id,
                      k == 0 ? comment : NULL);
    }
    return nfr;
}

/* Pseudo-header sum (RFC 9293 3.1, RFC 8200 8.1). */
static uint64_t pseudo_sum(const netpath *np, int dir, uint8_t proto, size_t l4len)
{
    uint8_t ph[40];
    size_t n;
    if (np->family == 4) {
        memcpy(ph, np->addr[dir], 4);
        memcpy(ph + 4, np->addr[!dir], 4);
        ph[8] = 0;
        ph[9] = proto;
        put_be16(ph + 10, (uint16_t)l4len);
        n = 12;
    } else {
        memcpy(ph, np->addr[dir], 16);
        memcpy(ph + 16, np->addr[!dir], 16);
        put_be32(ph + 32, (uint32_t)l4len);
        ph[36] = ph[37] = ph[38] = 0;
        ph[39] = proto;
        n = 40;
    }
    return csum_add(0, ph, n);
}

unsigned net_tcp(capw *w, netpath *np, int dir, uint64_t ts_ns, const tcpseg *t,
                 const uint8_t *payload, size_t len, unsigned frag, int frag_rev,
                 const char *comment)
{
    /* RFC 9293 3.1 header; options MSS (kind 2) and window scale
     * (kind 3, RFC 7323 2.2) on SYNs only. */
    uint8_t h[32];
    size_t hl = 20;
    if (t->mss) {
        h[hl] = 2;
        h[hl + 1] = 4;
        put_be16(h + hl + 2, t->mss);
        hl += 4;
    }
    if (t->wscale >= 0) {
        h[hl] = 1; /* NOP, to keep the header a multiple of 4 */
        h[hl + 1] = 3;
        h[hl + 2] = 3;
        h[hl + 3] = (uint8_t)t->wscale;
        hl += 4;
    }
    put_be16(h, t->sport);
    put_be16(h + 2, t->dport);
    put_be32(h + 4, t->seq);
    put_be32(h + 8, t->flags & TCP_ACK ? t->ack : 0);
    h[12] = (uint8_t)((hl / 4) << 4);
    h[13] = t->flags;
    put_be16(h + 14, t->win);
    put_be16(h + 16, 0);
    put_be16(h + 18, 0);
    uint64_t acc = pseudo_sum(np, dir, NET_PROTO_TCP, hl + len);
    acc = csum_add(acc, h, hl);
    acc = csum_add(acc, payload, len);
    uint16_t c = csum_fold(acc);
    memcpy(h + 16, &c, 2);
    return send_l4(w, np, dir, ts_ns, NET_PROTO_TCP, h, hl, payload, len, frag, frag_rev, comment);
}

void net_udp(capw *w, netpath *np, int dir, uint64_t ts_ns, uint16_t sport, uint16_t dport,
             const uint8_t *payload, size_t len, const char *comment)
{
    uint8_t h[8];
    put_be16(h, sport);
    put_be16(h + 2, dport);
    put_be16(h + 4, (uint16_t)(8 + len));
    put_be16(h + 6, 0);
    uint64_t acc = pseudo_sum(np, dir, NET_PROTO_UDP, 8 + len);
    acc = csum_add(acc, h, 8);
    acc = csum_add(acc, payload, len);
    uint16_t c = csum_fold(acc);
    if (c == 0)
        c = 0xFFFF; /* RFC 768: a computed zero is sent as all ones */
    memcpy(h + 6, &c, 2);
    send_l4(w, np, dir, ts_ns, NET_PROTO_UDP, h, 8, payload, len, 0, 0, comment);
}

void net_arp(capw *w, const netpath *np, int dir, uint64_t ts_ns, int op, const char *comment)
{
    if (np->link != LINK_ETHERNET || np->family != 4)
        return;
    size_t ll = net_link_len(np);
    uint8_t *p = capw_begin(w, ll + 28);
    net_put_link(p, np, dir, 0x0806);
    static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    if (op == 1)
        memcpy(p, bcast, 6); /* a request is broadcast */
    uint8_t *a = p + ll;
    put_be16(a, 1);      /* hardware type Ethernet */
    put_be16(a + 2, 0x0800);
    a[4] = 6;
    a[5] = 4;
    put_be16(a + 6, (uint16_t)op);
    memcpy(a + 8, np->mac[dir], 6);
    memcpy(a + 14, np->addr[dir], 4);
    if (op == 1)
        memset(a + 18, 0, 6);
    else
        memcpy(a + 18, np->mac[!dir], 6);
    memcpy(a + 24, np->addr[!dir], 4);
    /* Ethernet pads frames to 60 octets before the FCS. */
    size_t len = ll + 28;
    if (len < 60) {
        memset(p + len, 0, 60 - len);
        len = 60;
    }
    capw_commit(w, ts_ns, len, comment);
}

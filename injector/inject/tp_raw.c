/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The raw transport (see tp.h): libnet puts our frames on the wire,
 * libpcap brings the device's frames back, utcp (utcp.h) holds the TCP
 * connection in between.  docs/mpa-inject-raw.md tells the whole story.
 *
 * Design:
 *  - Our address (cfg->src_addr) is one the kernel does not have.  We
 *    answer ARP requests (RFC 826) and neighbour solicitations (RFC 4861
 *    7.2) for it ourselves, with the interface's MAC, so the device
 *    sends its segments to that MAC; the kernel sees IP packets for an
 *    address that is not its own and, not being a router, drops them
 *    without a word.  That is what keeps the kernel's RSTs out of a
 *    connection it knows nothing about.  (With the address configured the
 *    kernel would answer every segment of ours with a RST.)
 *  - The next hop's MAC: --gw-mac, else the source MAC of the device's
 *    SYN (listening), else ARP / neighbour solicitation for the next hop
 *    the routing table names (the device itself when it is on-link).
 *  - libnet, link layer, "advanced" mode: every frame is built (Ethernet,
 *    IPv4 or IPv6, TCP, checksums by libnet), culled, written, and its
 *    IP packet handed to the trace exactly as it went out.
 *  - libpcap in immediate mode, inbound only, non-blocking, a BPF filter
 *    on the flow plus ARP / ND; its selectable descriptor is polled with
 *    utcp's next timer and the caller's deadline, whichever is first.  Every
 *    wait is bounded by the caller's deadline; recv() also returns
 *    TP_RX_TIMEOUT after a second without news and at once when a signal
 *    interrupts its wait, so the caller, which loops to its deadline,
 *    sees its interrupt flag in time.
 *  - utcp sends control segments, ACKs and retransmissions by itself
 *    (utcp_poll_out, "flush" below); first transmissions of data are cut
 *    here, one segment per MSS-sized piece, in the order and the number
 *    of copies tp_delivery asks, and utcp_data_seg builds each.
 *  - Received frames are parsed field by field with bounds checks; what
 *    is not ARP, ND or a TCP segment of our flow is ignored.  TCP
 *    checksums are not verified: a capture of segments the local host
 *    sends has them unfilled when the driver offloads them, and the
 *    kernel itself would accept such segments; a device's corrupted
 *    octets show up in MPA's CRC, which is what a tester wants to see.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tp_raw.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <libnet.h>
#include <linux/filter.h>
#include <net/if.h>
#include <netdb.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "utcp.h"

enum { ND_NS = 135, ND_NA = 136, NA_FLAG_S = 0x40000000, NA_FLAG_O = 0x20000000 };

typedef struct raw_state {
    tp *t;
    libnet_t *ln;
    pcap_t *pc;
    int pfd;
    utcp *u;
    int fam;                        /* 4 or 6 */
    size_t alen;                    /* 4 or 16 */
    uint8_t me[16], dev[16], nh[16]; /* us, the device, the next hop */
    uint16_t sport, dport;          /* ours, the device's */
    int locked;                     /* the device's address and port are known */
    uint8_t mac[6], nh_mac[6];
    int have_nh_mac, gw_fixed;
    int mtu;
    uint16_t ip_id;
    unsigned drop;                  /* tp_raw_test_drop */
    int fin_told, rst_told, end_told;
    char local_if[IFNAMSIZ + 1];    /* our address is configured there ("": nowhere) */
    int conflict;                   /* someone else answers for our address */
    uint8_t conflict_mac[6];
    char fatal[300];                /* an error inside the capture callback */
    char ifname[IFNAMSIZ];
} raw_state;

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static const char *mac_str(const uint8_t *m, char *buf, size_t n)
{
    snprintf(buf, n, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
    return buf;
}

static const char *addr_str(const raw_state *r, const uint8_t *a, char *buf, size_t n)
{
    if (!inet_ntop(r->fam == 4 ? AF_INET : AF_INET6, a, buf, (socklen_t)n))
        snprintf(buf, n, "?");
    return buf;
}

static void endpoint_str(const raw_state *r, const uint8_t *a, uint16_t port, char *out, size_t n)
{
    char h[INET6_ADDRSTRLEN];
    addr_str(r, a, h, sizeof h);
    if (r->fam == 4)
        snprintf(out, n, "%s:%u", h, port);
    else
        snprintf(out, n, "[%s]:%u", h, port);
}

static struct libnet_in6_addr in6(const uint8_t *a)
{
    struct libnet_in6_addr x;
    memcpy(&x, a, 16);
    return x;
}

static uint32_t in4(const uint8_t *a)
{
    uint32_t x;
    memcpy(&x, a, 4);
    return x;
}

/* ---- sending ------------------------------------------------------------ */

/* The frame built in r->ln goes on the wire; its IP packet to the trace
 * when traced. */
static int wire(raw_state *r, int traced, char *err, size_t errlen)
{
    uint8_t *pkt = NULL;
    uint32_t sz = 0;
    if (libnet_adv_cull_packet(r->ln, &pkt, &sz) < 0) {
        snprintf(err, errlen, "libnet: %s", libnet_geterror(r->ln));
        libnet_clear_packet(r->ln);
        return -1;
    }
    int w = libnet_adv_write_link(r->ln, pkt, sz);
    if (w == (int)sz && traced && sz > LIBNET_ETH_H)
        trace_ip(r->t->trace, pkt + LIBNET_ETH_H, sz - LIBNET_ETH_H);
    libnet_adv_free_packet(r->ln, pkt);
    libnet_clear_packet(r->ln);
    if (w != (int)sz) {
        snprintf(err, errlen, "sending a %u-octet frame on %s: %s", sz, r->ifname,
                 w < 0 ? libnet_geterror(r->ln) : "short write");
        return -1;
    }
    return 0;
}

static int lnerr(raw_state *r, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "libnet %s: %s", what, libnet_geterror(r->ln));
    libnet_clear_packet(r->ln);
    return -1;
}

static int ip_hdr(raw_state *r, uint8_t proto, uint32_t plen, uint8_t ttl, const uint8_t *src, const uint8_t *dst,
                  char *err, size_t errlen)
{
    libnet_ptag_t p;
    if (r->fam == 4)
        p = libnet_build_ipv4((uint16_t)(LIBNET_IPV4_H + plen), 0, ++r->ip_id, 0x4000 /* DF */, ttl, proto, 0,
                              in4(src), in4(dst), NULL, 0, r->ln, 0);
    else
        p = libnet_build_ipv6(0, 0, (uint16_t)plen, proto, ttl, in6(src), in6(dst), NULL, 0, r->ln, 0);
    return p < 0 ? lnerr(r, "IP header", err, errlen) : 0;
}

static int eth_hdr(raw_state *r, const uint8_t *dst, uint16_t type, char *err, size_t errlen)
{
    if (libnet_build_ethernet(dst, r->mac, type, NULL, 0, r->ln, 0) < 0)
        return lnerr(r, "Ethernet header", err, errlen);
    return 0;
}

/* One TCP segment of our flow, as utcp made it. */
static int put_seg(raw_state *r, const utcp_seg *s, char *err, size_t errlen)
{
    uint32_t optlen = 0;
    if (s->mss) {
        const uint8_t opt[4] = {2, 4, (uint8_t)(s->mss >> 8), (uint8_t)s->mss}; /* RFC 9293 3.2: MSS */
        if (libnet_build_tcp_options(opt, sizeof opt, r->ln, 0) < 0)
            return lnerr(r, "TCP options", err, errlen);
        optlen = sizeof opt;
    }
    uint32_t tcplen = LIBNET_TCP_H + optlen + (uint32_t)s->len;
    if (libnet_build_tcp(r->sport, r->dport, s->seq, s->ack, s->flags, s->win, 0, 0, (uint16_t)tcplen,
                         s->len ? s->data : NULL, (uint32_t)s->len, r->ln, 0) < 0)
        return lnerr(r, "TCP header", err, errlen);
    if (ip_hdr(r, IPPROTO_TCP, tcplen, 64, r->me, r->dev, err, errlen) ||
        eth_hdr(r, r->nh_mac, r->fam == 4 ? ETHERTYPE_IP : ETHERTYPE_IPV6, err, errlen))
        return -1;
    return wire(r, 1, err, errlen);
}

/* ARP request for the next hop (op 1) or reply to tha/tpa (op 2). */
static int put_arp(raw_state *r, uint16_t op, const uint8_t *tha, const uint8_t *tpa, char *err, size_t errlen)
{
    static const uint8_t zero[6], bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    if (libnet_build_arp(ARPHRD_ETHER, ETHERTYPE_IP, 6, 4, op, r->mac, r->me, op == ARPOP_REQUEST ? zero : tha,
                         tpa, NULL, 0, r->ln, 0) < 0)
        return lnerr(r, "ARP", err, errlen);
    if (eth_hdr(r, op == ARPOP_REQUEST ? bcast : tha, ETHERTYPE_ARP, err, errlen))
        return -1;
    return wire(r, 0, err, errlen);
}

/* Neighbour solicitation for the next hop (RFC 4861 4.3, 7.2.2): to its
 * solicited-node multicast address, with our link-layer address. */
static int put_ns(raw_state *r, char *err, size_t errlen)
{
    uint8_t dst[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, r->nh[13], r->nh[14], r->nh[15]};
    uint8_t emac[6] = {0x33, 0x33, 0xff, r->nh[13], r->nh[14], r->nh[15]};
    if (libnet_build_icmpv6_ndp_opt(1 /* source link-layer address */, r->mac, 6, r->ln, 0) < 0)
        return lnerr(r, "ND option", err, errlen);
    if (libnet_build_icmpv6_ndp_nsol(ND_NS, 0, 0, in6(r->nh), NULL, 0, r->ln, 0) < 0)
        return lnerr(r, "neighbour solicitation", err, errlen);
    if (ip_hdr(r, IPPROTO_ICMPV6, LIBNET_ICMPV6_NDP_NSOL_H + 8, 255, r->me, dst, err, errlen) ||
        eth_hdr(r, emac, ETHERTYPE_IPV6, err, errlen))
        return -1;
    return wire(r, 0, err, errlen);
}

/* Neighbour advertisement for our address (RFC 4861 7.2.4): to the
 * solicitor, or to all nodes when it solicited from :: (DAD). */
static int put_na(raw_state *r, const uint8_t *to_ip, const uint8_t *to_mac, int solicited, char *err, size_t errlen)
{
    if (libnet_build_icmpv6_ndp_opt(2 /* target link-layer address */, r->mac, 6, r->ln, 0) < 0)
        return lnerr(r, "ND option", err, errlen);
    if (libnet_build_icmpv6_ndp_nadv(ND_NA, 0, 0, solicited ? NA_FLAG_S | NA_FLAG_O : NA_FLAG_O, in6(r->me), NULL, 0,
                                     r->ln, 0) < 0)
        return lnerr(r, "neighbour advertisement", err, errlen);
    if (ip_hdr(r, IPPROTO_ICMPV6, LIBNET_ICMPV6_NDP_NADV_H + 8, 255, r->me, to_ip, err, errlen) ||
        eth_hdr(r, to_mac, ETHERTYPE_IPV6, err, errlen))
        return -1;
    return wire(r, 0, err, errlen);
}

/* Everything utcp wants on the wire by now. */
static int flush(raw_state *r, char *err, size_t errlen)
{
    utcp_seg s;
    int64_t now = tp_now_ms();
    while (utcp_poll_out(r->u, now, &s))
        if (put_seg(r, &s, err, errlen))
            return -1;
    return 0;
}

/* ---- receiving ------------------------------------------------------------ */

static void learn(raw_state *r, const uint8_t *mac)
{
    if (r->gw_fixed)
        return;
    memcpy(r->nh_mac, mac, 6);
    r->have_nh_mac = 1;
}

static void note_conflict(raw_state *r, const uint8_t *mac)
{
    if (memcmp(mac, r->mac, 6)) {
        r->conflict = 1;
        memcpy(r->conflict_mac, mac, 6);
    }
}

static void on_arp(raw_state *r, const uint8_t *a, size_t n)
{
    /* RFC 826: hrd, pro, hln, pln, op, sha, spa, tha, tpa */
    if (r->fam != 4 || n < 28 || rd16(a) != ARPHRD_ETHER || rd16(a + 2) != ETHERTYPE_IP || a[4] != 6 || a[5] != 4)
        return;
    uint16_t op = rd16(a + 6);
    const uint8_t *sha = a + 8, *spa = a + 14, *tpa = a + 24;
    if (!memcmp(spa, r->nh, 4))
        learn(r, sha);
    if (!memcmp(spa, r->me, 4))
        note_conflict(r, sha);
    if (op == ARPOP_REQUEST && !memcmp(tpa, r->me, 4) && memcmp(spa, r->me, 4) && !r->fatal[0])
        put_arp(r, ARPOP_REPLY, sha, spa, r->fatal, sizeof r->fatal);
}

/* The link-layer address option of type `type` in ND options, or NULL. */
static const uint8_t *nd_lladdr(const uint8_t *o, size_t n, uint8_t type)
{
    while (n >= 2) {
        size_t len = (size_t)o[1] * 8;
        if (len == 0 || len > n) /* RFC 4861 4.6: a zero length is invalid */
            return NULL;
        if (o[0] == type && len >= 8)
            return o + 2;
        o += len;
        n -= len;
    }
    return NULL;
}

static void on_nd(raw_state *r, const uint8_t *eth_src, const uint8_t *ip, size_t iplen)
{
    /* RFC 4861 7.1: hop limit 255, code 0, at least 24 octets */
    const uint8_t *m = ip + 40;
    size_t ml = iplen - 40;
    if (r->fam != 6 || ml < 24 || ip[7] != 255 || m[1] != 0)
        return;
    const uint8_t *src = ip + 8, *target = m + 8;
    static const uint8_t any[16];
    if (m[0] == ND_NS) {
        const uint8_t *slla = nd_lladdr(m + 24, ml - 24, 1);
        if (slla && !memcmp(src, r->nh, 16))
            learn(r, slla);
        if (memcmp(target, r->me, 16) || r->fatal[0])
            return;
        if (!memcmp(src, any, 16)) {
            static const uint8_t all[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
            static const uint8_t all_mac[6] = {0x33, 0x33, 0, 0, 0, 1};
            note_conflict(r, eth_src); /* someone probes for our address */
            put_na(r, all, all_mac, 0, r->fatal, sizeof r->fatal);
        } else {
            put_na(r, src, slla ? slla : eth_src, 1, r->fatal, sizeof r->fatal);
        }
    } else if (m[0] == ND_NA) {
        const uint8_t *tlla = nd_lladdr(m + 24, ml - 24, 2);
        if (!memcmp(target, r->nh, 16))
            learn(r, tlla ? tlla : eth_src);
        if (!memcmp(target, r->me, 16))
            note_conflict(r, tlla ? tlla : eth_src);
    }
}

static void on_tcp(raw_state *r, const uint8_t *eth_src, const uint8_t *ip, size_t iplen, size_t hl,
                   const uint8_t *src, const uint8_t *dst)
{
    const uint8_t *t = ip + hl;
    size_t tl = iplen - hl;
    if (tl < 20)
        return;
    size_t doff = (size_t)(t[12] >> 4) * 4;
    if (doff < 20 || doff > tl)
        return;
    uint16_t sp = rd16(t), dp = rd16(t + 2);
    uint8_t flags = t[13];
    if (memcmp(dst, r->me, r->alen) || dp != r->sport)
        return;
    if (r->locked) {
        if (memcmp(src, r->dev, r->alen) || sp != r->dport)
            return;
    } else {
        /* listening: the first SYN decides who the device is */
        if (!(flags & UTCP_SYN) || (flags & (UTCP_ACK | UTCP_RST)))
            return;
        memcpy(r->dev, src, r->alen);
        r->dport = sp;
        r->locked = 1;
        learn(r, eth_src);
        endpoint_str(r, r->dev, r->dport, r->t->remote, sizeof r->t->remote);
    }
    trace_ip(r->t->trace, ip, iplen);
    utcp_seg s;
    memset(&s, 0, sizeof s);
    s.seq = rd32(t + 4);
    s.ack = rd32(t + 8);
    s.flags = flags & (UTCP_FIN | UTCP_SYN | UTCP_RST | UTCP_PSH | UTCP_ACK);
    s.win = rd16(t + 14);
    if (flags & UTCP_SYN) {
        /* RFC 9293 3.2: options; only the MSS matters here */
        const uint8_t *o = t + 20;
        size_t on = doff - 20;
        while (on > 0 && o[0] != 0) {
            if (o[0] == 1) {
                o++;
                on--;
                continue;
            }
            if (on < 2 || o[1] < 2 || o[1] > on)
                break;
            if (o[0] == 2 && o[1] == 4)
                s.mss = rd16(o + 2);
            on -= o[1];
            o += o[1];
        }
    }
    s.data = t + doff;
    s.len = tl - doff;
    utcp_input(r->u, &s, tp_now_ms());
}

static void on_frame(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
    raw_state *r = (raw_state *)user;
    size_t n = h->caplen;
    if (n < 14)
        return;
    const uint8_t *eth_src = bytes + 6;
    uint16_t type = rd16(bytes + 12);
    const uint8_t *p = bytes + 14;
    n -= 14;
    if (type == ETHERTYPE_ARP) {
        on_arp(r, p, n);
    } else if (type == ETHERTYPE_IP && r->fam == 4) {
        if (n < 20 || p[0] >> 4 != 4)
            return;
        size_t hl = (size_t)(p[0] & 15) * 4, tot = rd16(p + 2);
        /* tot < n: Ethernet padding; tot > n: truncated, not ours to judge */
        if (hl < 20 || tot < hl || tot > n || (rd16(p + 6) & 0x3fff) || p[9] != IPPROTO_TCP)
            return;
        on_tcp(r, eth_src, p, tot, hl, p + 12, p + 16);
    } else if (type == ETHERTYPE_IPV6 && r->fam == 6) {
        if (n < 40 || p[0] >> 4 != 6)
            return;
        size_t tot = 40 + (size_t)rd16(p + 4);
        if (tot > n)
            return;
        if (p[6] == IPPROTO_TCP)
            on_tcp(r, eth_src, p, tot, 40, p + 8, p + 24);
        else if (p[6] == IPPROTO_ICMPV6)
            on_nd(r, eth_src, p, tot);
    }
}

/* Send what is due, wait for frames until `until` or utcp's next timer
 * (whichever is first; at most 1 s at a time), handle what came, send
 * what that made due.  0; 1 when a signal interrupted the wait (the
 * program wants to look at its flags: mpa-inject's handlers only set
 * one); -1 and err. */
static int pump(raw_state *r, int64_t until, char *err, size_t errlen)
{
    if (flush(r, err, errlen))
        return -1;
    int64_t now = tp_now_ms();
    int64_t wake = until;
    int64_t tm = utcp_next_timer(r->u, now);
    if (tm >= 0 && tm < wake)
        wake = tm;
    int64_t ms = wake - now;
    if (ms < 0)
        ms = 0;
    if (ms > 1000)
        ms = 1000;
    struct pollfd pf = {r->pfd, POLLIN, 0};
    int k = poll(&pf, 1, (int)ms);
    if (k < 0 && errno == EINTR)
        return 1;
    if (k < 0) {
        snprintf(err, errlen, "poll: %s", strerror(errno));
        return -1;
    }
    if (k > 0 && pcap_dispatch(r->pc, -1, on_frame, (u_char *)r) < 0) {
        snprintf(err, errlen, "capture on %s: %s", r->ifname, pcap_geterr(r->pc));
        return -1;
    }
    if (r->fatal[0]) {
        snprintf(err, errlen, "%s", r->fatal);
        return -1;
    }
    return flush(r, err, errlen);
}

/* pump() where a signal ends the wait with an error. */
static int wait_step(raw_state *r, int64_t until, char *err, size_t errlen)
{
    int k = pump(r, until, err, errlen);
    if (k == 1)
        snprintf(err, errlen, "interrupted by a signal");
    return k ? -1 : 0;
}

/* ---- set-up ------------------------------------------------------------------ */

static int parse_mac(const char *s, uint8_t *m)
{
    unsigned v[6];
    char c;
    if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &c) != 6 &&
        sscanf(s, "%2x-%2x-%2x-%2x-%2x-%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &c) != 6)
        return -1;
    for (int i = 0; i < 6; i++)
        m[i] = (uint8_t)v[i];
    return 0;
}

static int prefix_match(const uint8_t *a, const uint8_t *b, unsigned bits)
{
    for (unsigned i = 0; i < bits; i++) {
        uint8_t m = (uint8_t)(0x80 >> (i % 8));
        if ((a[i / 8] & m) != (b[i / 8] & m))
            return 0;
    }
    return 1;
}

/* The next hop towards the device: the gateway of the most specific
 * route through our interface that has one, else the device itself.
 * /proc/net/route prints each 32-bit field as the host-order value of the
 * network-order octets; /proc/net/ipv6_route prints the octets. */
static void next_hop(raw_state *r)
{
    memcpy(r->nh, r->dev, r->alen);
    int best = -1;
    char line[512];
    FILE *f = fopen(r->fam == 4 ? "/proc/net/route" : "/proc/net/ipv6_route", "re");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char ifn[IFNAMSIZ + 1];
        uint8_t dst[16], gw[16];
        unsigned plen = 0, flags = 0;
        if (r->fam == 4) {
            unsigned d, g, m;
            if (sscanf(line, "%16s %x %x %x %*d %*d %*d %x", ifn, &d, &g, &flags, &m) != 5)
                continue;
            uint32_t dv = d, gv = g, mv = m;
            memcpy(dst, &dv, 4);
            memcpy(gw, &gv, 4);
            uint8_t mb[4];
            memcpy(mb, &mv, 4);
            for (int i = 0; i < 4; i++)
                for (int b = 7; b >= 0 && (mb[i] >> b & 1); b--)
                    plen++;
        } else {
            char dh[33], gh[33];
            if (sscanf(line, "%32s %x %*s %*x %32s %*x %*x %*x %x %16s", dh, &plen, gh, &flags, ifn) != 5)
                continue;
            for (int i = 0; i < 16; i++) {
                unsigned x, y;
                if (sscanf(dh + 2 * i, "%2x", &x) != 1 || sscanf(gh + 2 * i, "%2x", &y) != 1)
                    goto next;
                dst[i] = (uint8_t)x;
                gw[i] = (uint8_t)y;
            }
        }
        if (strcmp(ifn, r->ifname) || !(flags & 0x1 /* RTF_UP */) || plen > r->alen * 8 ||
            !prefix_match(dst, r->dev, plen) || (int)plen <= best)
            goto next;
        best = (int)plen;
        if (flags & 0x2 /* RTF_GATEWAY */)
            memcpy(r->nh, gw, r->alen);
        else
            memcpy(r->nh, r->dev, r->alen);
    next:;
    }
    fclose(f);
}

/* Whether addr is configured on an interface here (then the kernel owns
 * it and would reset our connection). */
static const char *configured_on(const raw_state *r, char *ifn, size_t n)
{
    struct ifaddrs *ia = NULL, *i;
    if (getifaddrs(&ia))
        return NULL;
    const char *found = NULL;
    for (i = ia; i && !found; i = i->ifa_next) {
        if (!i->ifa_addr)
            continue;
        if (r->fam == 4 && i->ifa_addr->sa_family == AF_INET &&
            !memcmp(&((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, r->me, 4))
            found = ifn;
        if (r->fam == 6 && i->ifa_addr->sa_family == AF_INET6 &&
            !memcmp(&((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr, r->me, 16))
            found = ifn;
        if (found)
            snprintf(ifn, n, "%s", i->ifa_name);
    }
    freeifaddrs(ia);
    return found;
}

static int parse_addr(const char *s, int *fam, uint8_t *a)
{
    if (inet_pton(AF_INET, s, a) == 1) {
        *fam = 4;
        return 0;
    }
    if (inet_pton(AF_INET6, s, a) == 1) {
        *fam = 6;
        return 0;
    }
    return -1;
}

static uint32_t random32(void)
{
    uint32_t v = 0;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v)
        v = (uint32_t)tp_now_ms() * 2654435761u ^ (uint32_t)getpid();
    return v;
}

/* A decimal port; 0 (allowed when zero_ok) picks one at random. */
static int parse_port(const char *s, uint16_t *port, int zero_ok)
{
    char *end;
    unsigned long v = strtoul(s ? s : "", &end, 10);
    if (!s || !*s || *end || (v == 0 && !zero_ok) || v > 65535)
        return -1;
    if (v == 0)
        v = 32768 + random32() % 28232; /* Linux's ephemeral range */
    *port = (uint16_t)v;
    return 0;
}

static int open_capture(raw_state *r, char *err, size_t errlen)
{
    char eb[PCAP_ERRBUF_SIZE] = "";
    r->pc = pcap_create(r->ifname, eb);
    if (!r->pc) {
        snprintf(err, errlen, "capture on %s: %s", r->ifname, eb);
        return -1;
    }
    /* Before pcap_activate() these fail only on an active handle. */
    if (pcap_set_snaplen(r->pc, 262144) != 0 ||
        pcap_set_promisc(r->pc, 1) != 0 || /* solicited-node multicast, whatever the NIC filters */
        pcap_set_immediate_mode(r->pc, 1) != 0 || pcap_set_buffer_size(r->pc, 8 << 20) != 0) {
        snprintf(err, errlen, "capture on %s: setting up: %s", r->ifname, pcap_geterr(r->pc));
        return -1;
    }
    int rc = pcap_activate(r->pc);
    if (rc < 0) {
        snprintf(err, errlen, "capture on %s: %s", r->ifname, pcap_statustostr(rc));
        if (rc == PCAP_ERROR || rc == PCAP_ERROR_PERM_DENIED || rc == PCAP_ERROR_NO_SUCH_DEVICE) {
            size_t l = strlen(err);
            snprintf(err + l, errlen - l, " (%s)", pcap_geterr(r->pc));
        }
        return -1;
    }
    if (pcap_datalink(r->pc) != DLT_EN10MB) {
        snprintf(err, errlen, "%s is not an Ethernet interface (link type %s): the raw transport needs one",
                 r->ifname, pcap_datalink_val_to_name(pcap_datalink(r->pc)));
        return -1;
    }
    /* inbound only: our own frames are traced when they are sent */
    if (pcap_setdirection(r->pc, PCAP_D_IN)) {
        snprintf(err, errlen, "capture on %s: inbound only: %s", r->ifname, pcap_geterr(r->pc));
        return -1;
    }
    char me[INET6_ADDRSTRLEN], dv[INET6_ADDRSTRLEN], f[600];
    addr_str(r, r->me, me, sizeof me);
    const char *ctl = r->fam == 4 ? "arp" : "(icmp6 and (ip6[40] == 135 or ip6[40] == 136))";
    if (r->locked)
        snprintf(f, sizeof f, "%s or (%s and tcp and dst host %s and dst port %u and src host %s and src port %u)", ctl,
                 r->fam == 4 ? "ip" : "ip6", me, r->sport, addr_str(r, r->dev, dv, sizeof dv), r->dport);
    else
        snprintf(f, sizeof f, "%s or (%s and tcp and dst host %s and dst port %u)", ctl, r->fam == 4 ? "ip" : "ip6",
                 me, r->sport);
    struct bpf_program prog;
    if (pcap_compile(r->pc, &prog, f, 1, PCAP_NETMASK_UNKNOWN)) {
        snprintf(err, errlen, "capture filter \"%s\": %s", f, pcap_geterr(r->pc));
        return -1;
    }
    rc = pcap_setfilter(r->pc, &prog);
    pcap_freecode(&prog);
    if (rc || pcap_setnonblock(r->pc, 1, eb)) {
        snprintf(err, errlen, "capture on %s: %s", r->ifname, rc ? pcap_geterr(r->pc) : eb);
        return -1;
    }
    r->pfd = pcap_get_selectable_fd(r->pc);
    if (r->pfd < 0) {
        snprintf(err, errlen, "capture on %s: no selectable descriptor", r->ifname);
        return -1;
    }
    return 0;
}

/* The link's MTU (1500 if unknown) and whether it is a loopback. */
static int link_info(const char *ifname, int *loopback)
{
    *loopback = 0;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 1500;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
    int mtu = ioctl(fd, SIOCGIFMTU, &ifr) == 0 ? ifr.ifr_mtu : 1500;
    if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 && (ifr.ifr_flags & IFF_LOOPBACK))
        *loopback = 1;
    close(fd);
    return mtu;
}

/* Why nothing came back, beyond "in time". */
static void hint(raw_state *r, char *err, size_t errlen)
{
    size_t l = strlen(err);
    char m[20];
    if (r->local_if[0])
        snprintf(err + l, errlen - l, " (our address is configured on %s: its kernel resets the connection unless "
                                      "its RSTs are dropped)", r->local_if);
    else if (r->conflict)
        snprintf(err + l, errlen - l, " (another host, %s, answers for our address: it is in use)",
                 mac_str(r->conflict_mac, m, sizeof m));
}

/* The next hop's MAC by ARP / ND, by the deadline. */
static int resolve(raw_state *r, int64_t deadline, char *err, size_t errlen)
{
    int64_t next = 0;
    unsigned tries = 0;
    while (!r->have_nh_mac) {
        int64_t now = tp_now_ms();
        if (now >= deadline) {
            char a[INET6_ADDRSTRLEN];
            snprintf(err, errlen, "%s for %s on %s: no answer to %u %s in time (is the device on this link? "
                                  "behind a router: --gw-mac)",
                     r->fam == 4 ? "ARP" : "neighbour discovery", addr_str(r, r->nh, a, sizeof a), r->ifname, tries,
                     r->fam == 4 ? "requests" : "solicitations");
            hint(r, err, errlen);
            return -1;
        }
        if (now >= next) {
            if ((r->fam == 4 ? put_arp(r, ARPOP_REQUEST, NULL, r->nh, err, errlen) : put_ns(r, err, errlen)))
                return -1;
            tries++;
            next = now + (tries < 3 ? 200 : 1000);
        }
        if (wait_step(r, next < deadline ? next : deadline, err, errlen))
            return -1;
    }
    return 0;
}

/* ---- the operations ------------------------------------------------------------- */

static int r_open(tp *t, int64_t deadline, char *err, size_t errlen)
{
    raw_state *r = t->priv;
    const tp_cfg *c = &t->cfg;
    int listen = c->open == TP_LISTEN;
    if (!c->iface || !c->iface[0]) {
        snprintf(err, errlen, "the raw transport needs an interface (--iface)");
        return -1;
    }
    snprintf(r->ifname, sizeof r->ifname, "%s", c->iface);
    const char *mine = c->src_addr ? c->src_addr : listen ? c->host : NULL;
    if (!mine) {
        snprintf(err, errlen, "the raw transport needs our address (--src): one on %s's subnet that no host uses",
                 c->iface);
        return -1;
    }
    if (parse_addr(mine, &r->fam, r->me)) {
        snprintf(err, errlen, "--src %s: not an IPv4 or IPv6 address", mine);
        return -1;
    }
    r->alen = r->fam == 4 ? 4 : 16;
    if (c->family && c->family != r->fam) {
        snprintf(err, errlen, "our address %s is not IPv%d", mine, c->family);
        return -1;
    }
    if (listen && c->src_addr && c->host && c->host[0]) {
        int f2;
        uint8_t a2[16];
        if (parse_addr(c->host, &f2, a2) || f2 != r->fam || memcmp(a2, r->me, r->alen)) {
            snprintf(err, errlen, "listening on %s, but our raw address is %s", c->host, c->src_addr);
            return -1;
        }
    }
    if (!listen) {
        if (!c->host) {
            snprintf(err, errlen, "no device address given (--target HOST:PORT)");
            return -1;
        }
        struct addrinfo hints, *res = NULL;
        memset(&hints, 0, sizeof hints);
        hints.ai_family = r->fam == 4 ? AF_INET : AF_INET6;
        hints.ai_socktype = SOCK_STREAM;
        int rc = getaddrinfo(c->host, NULL, &hints, &res);
        if (rc) {
            snprintf(err, errlen, "%s: %s (our address %s is IPv%d)", c->host, gai_strerror(rc), mine, r->fam);
            return -1;
        }
        if (r->fam == 4)
            memcpy(r->dev, &((struct sockaddr_in *)(void *)res->ai_addr)->sin_addr, 4);
        else
            memcpy(r->dev, &((struct sockaddr_in6 *)(void *)res->ai_addr)->sin6_addr, 16);
        freeaddrinfo(res);
        if (parse_port(c->port, &r->dport, 0)) {
            snprintf(err, errlen, "port %s: not a port", c->port ? c->port : "(none)");
            return -1;
        }
        if (c->src_port)
            r->sport = c->src_port;
        else
            parse_port("0", &r->sport, 1);
        r->locked = 1;
    } else if (parse_port(c->port, &r->sport, 1)) {
        snprintf(err, errlen, "port %s: not a port", c->port ? c->port : "(none)");
        return -1;
    }
    if (configured_on(r, r->local_if, sizeof r->local_if)) {
        static int warned;
        if (!warned)
            fprintf(stderr, "mpa-inject: warning: %s is configured on %s: its kernel will reset our connection "
                            "unless its RSTs are dropped (docs/mpa-inject-raw.md)\n", mine, r->local_if);
        warned = 1;
    }
    if (c->gw_mac) {
        if (parse_mac(c->gw_mac, r->nh_mac)) {
            snprintf(err, errlen, "--gw-mac %s: expected six hex octets, aa:bb:cc:dd:ee:ff", c->gw_mac);
            return -1;
        }
        r->have_nh_mac = r->gw_fixed = 1;
    }

    char eb[LIBNET_ERRBUF_SIZE] = "";
    r->ln = libnet_init(LIBNET_LINK_ADV, r->ifname, eb);
    if (!r->ln) {
        size_t l = strlen(eb);
        while (l && eb[l - 1] == '\n')
            eb[--l] = 0;
        snprintf(err, errlen, "libnet on %s: %s", r->ifname, eb);
        return -1;
    }
    {
        /* libnet's packet socket would queue every frame of the link
         * without anyone reading it: a filter that takes none */
        struct sock_filter none = BPF_STMT(BPF_RET | BPF_K, 0);
        struct sock_fprog fp = {1, &none};
        (void)setsockopt(libnet_getfd(r->ln), SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof fp);
    }
    struct libnet_ether_addr *hw = libnet_get_hwaddr(r->ln);
    if (!hw) {
        snprintf(err, errlen, "the MAC address of %s: %s", r->ifname, libnet_geterror(r->ln));
        return -1;
    }
    memcpy(r->mac, hw->ether_addr_octet, 6);
    int loopback;
    r->mtu = link_info(r->ifname, &loopback);
    if (loopback) {
        snprintf(err, errlen, "%s is a loopback interface: the raw transport needs an Ethernet link (for a device on "
                              "this host: --lab)", r->ifname);
        return -1;
    }
    if (open_capture(r, err, errlen))
        return -1;

    utcp_cfg uc;
    memset(&uc, 0, sizeof uc);
    uc.isn = c->isn ? c->isn : random32();
    int mss = c->mss ? c->mss : r->mtu - (r->fam == 4 ? 40 : 60);
    if (mss < 64)
        mss = 64;
    if (mss > (int)UTCP_SEG_MAX)
        mss = UTCP_SEG_MAX;
    uc.mss = (uint16_t)mss;
    uc.rto_ms = c->rto_ms ? c->rto_ms : 200;
    uc.rto_max_ms = 4000;
    r->u = utcp_new(&uc);
    if (!r->u) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    endpoint_str(r, r->me, r->sport, t->local, sizeof t->local);

    if (listen) {
        utcp_listen(r->u);
        if (c->on_listen)
            c->on_listen(c->on_listen_user);
    } else {
        endpoint_str(r, r->dev, r->dport, t->remote, sizeof t->remote);
        if (!r->have_nh_mac) {
            next_hop(r);
            if (resolve(r, deadline, err, errlen))
                return -1;
        }
        utcp_connect(r->u, tp_now_ms());
    }
    for (;;) {
        if (utcp_synchronized(r->u) && utcp_get_state(r->u) != UTCP_CLOSED)
            return 0;
        utcp_state st = utcp_get_state(r->u);
        utcp_end end = utcp_get_end(r->u);
        if (st == UTCP_CLOSED && end == UTCP_END_RST_RCVD) {
            if (listen)
                snprintf(err, errlen, "the device reset the connection during the handshake");
            else
                snprintf(err, errlen, "connect to %s port %s: Connection refused (a RST answered our SYN)", c->host,
                         c->port);
            hint(r, err, errlen);
            return -1;
        }
        if (st == UTCP_CLOSED && end != UTCP_END_NONE) {
            snprintf(err, errlen, "%s: the device stopped answering during the handshake",
                     listen ? "listening" : "connecting");
            return -1;
        }
        if (tp_now_ms() >= deadline) {
            if (listen)
                snprintf(err, errlen, "the device did not connect to port %s in time", c->port);
            else
                snprintf(err, errlen, "connect to %s port %s: no answer in time", c->host, c->port);
            hint(r, err, errlen);
            return -1;
        }
        if (wait_step(r, deadline, err, errlen))
            return -1;
    }
}

/* Why nothing can be sent. */
static void cannot_send(raw_state *r, size_t done, size_t n, char *err, size_t errlen)
{
    utcp_end end = utcp_get_end(r->u);
    if (end == UTCP_END_RST_RCVD) {
        snprintf(err, errlen, "the device reset the connection (%zu of %zu octets sent)", done, n);
        hint(r, err, errlen);
    }
    else if (end == UTCP_END_TIMEOUT)
        snprintf(err, errlen, "the device stopped acknowledging: %u retransmissions unanswered (%zu of %zu octets "
                              "sent)", utcp_retx_count(r->u), done, n);
    else
        snprintf(err, errlen, "the connection is %s: nothing can be sent (%zu of %zu octets sent)",
                 utcp_state_name(utcp_get_state(r->u)), done, n);
}

/* Until the peer's window admits octets up to seq_end, by the deadline. */
static int wait_window(raw_state *r, uint32_t seq_end, int64_t deadline, size_t done, size_t n, char *err,
                       size_t errlen)
{
    while (!utcp_window_admits(r->u, seq_end, tp_now_ms())) {
        if (utcp_get_state(r->u) == UTCP_CLOSED) {
            cannot_send(r, done, n, err, errlen);
            return -1;
        }
        if (tp_now_ms() >= deadline) {
            snprintf(err, errlen, "the device did not take our octets in time (%zu of %zu sent): its window (%u "
                                  "octets) stays short of the %u octets the next segment needs",
                     done, n, utcp_snd_wnd(r->u), seq_end - utcp_snd_una(r->u));
            return -1;
        }
        if (wait_step(r, deadline, err, errlen))
            return -1;
    }
    return 0;
}

/* One data segment [seq, seq+len); first: a first transmission (the
 * test hook may lose it). */
static int put_data(raw_state *r, uint32_t seq, size_t len, int first, char *err, size_t errlen)
{
    utcp_seg s;
    if (utcp_data_seg(r->u, seq, len, tp_now_ms(), &s)) {
        if (utcp_get_state(r->u) == UTCP_CLOSED)
            cannot_send(r, 0, len, err, errlen);
        else
            snprintf(err, errlen, "internal: octets %u+%zu are not in the send buffer", seq, len);
        return -1;
    }
    if (first && r->drop) {
        r->drop--;
        return 0;
    }
    return put_seg(r, &s, err, errlen);
}

/* The n octets just written at seq0, with dl's delivery. */
static int emit(raw_state *r, uint32_t seq0, size_t n, const tp_delivery *dl, int64_t deadline, size_t done_before,
                size_t total, char *err, size_t errlen)
{
    size_t mss = utcp_send_mss(r->u);
    size_t pieces = (n + mss - 1) / mss;
    int reorder = dl && dl->reorder, dup = dl && dl->duplicate;
    if (reorder && wait_window(r, seq0 + (uint32_t)n, deadline, done_before, total, err, errlen))
        return -1;
    for (size_t k = 0; k < pieces; k++) {
        size_t i = reorder ? pieces - 1 - k : k;
        uint32_t seq = seq0 + (uint32_t)(i * mss);
        size_t len = n - i * mss < mss ? n - i * mss : mss;
        if (!reorder && wait_window(r, seq + (uint32_t)len, deadline, done_before + i * mss, total, err, errlen))
            return -1;
        for (int copy = 0; copy < (dup ? 2 : 1); copy++)
            if (put_data(r, seq, len, copy == 0, err, errlen))
                return -1;
    }
    if (dl && dl->reseg) {
        size_t step = dl->reseg < mss ? dl->reseg : mss;
        for (size_t off = 0; off < n; off += step)
            if (put_data(r, seq0 + (uint32_t)off, n - off < step ? n - off : step, 0, err, errlen))
                return -1;
    }
    return flush(r, err, errlen);
}

static int r_send(tp *t, const uint8_t *p, size_t n, const tp_delivery *dl, int64_t deadline, char *err,
                  size_t errlen)
{
    raw_state *r = t->priv;
    size_t done = 0;
    if (!r->u || !utcp_synchronized(r->u)) {
        snprintf(err, errlen, "the connection is not open");
        return -1;
    }
    /* what arrived meanwhile first: ACKs, window updates, a RST */
    if (pump(r, 0, err, errlen) < 0)
        return -1;
    while (done < n) {
        if (!utcp_can_send(r->u)) {
            cannot_send(r, done, n, err, errlen);
            return -1;
        }
        uint32_t seq0 = utcp_snd_end(r->u);
        size_t w = utcp_write(r->u, p + done, n - done);
        if (w == 0) { /* the send buffer is full of unacknowledged octets */
            if (tp_now_ms() >= deadline) {
                snprintf(err, errlen, "the device did not acknowledge our octets in time (%zu of %zu sent)", done, n);
                return -1;
            }
            if (wait_step(r, deadline, err, errlen))
                return -1;
            continue;
        }
        if (emit(r, seq0, w, dl, deadline, done, n, err, errlen))
            return -1;
        done += w;
    }
    return 0;
}

static tp_rx_kind r_recv(tp *t, uint8_t *buf, size_t cap, size_t *got, int64_t deadline, char *err, size_t errlen)
{
    raw_state *r = t->priv;
    *got = 0;
    if (!r->u) {
        snprintf(err, errlen, "the connection is not open");
        return TP_RX_ERROR;
    }
    /* At most a second of nothing per call, and none after a signal:
     * the caller loops to its deadline and looks at its flags between
     * calls (as after the socket transport's end of file). */
    int64_t quiet_until = tp_now_ms() + 1000;
    if (quiet_until > deadline)
        quiet_until = deadline;
    int looked = 0;
    for (;;) {
        size_t k = utcp_read(r->u, buf, cap);
        if (k) {
            *got = k;
            if (flush(r, err, errlen)) /* a window update, if reading opened it */
                return TP_RX_ERROR;
            return TP_RX_DATA;
        }
        if (utcp_fin_received(r->u) && !r->fin_told) {
            r->fin_told = 1;
            return TP_RX_FIN;
        }
        utcp_end end = utcp_get_end(r->u);
        if (end == UTCP_END_RST_RCVD && !r->rst_told) {
            r->rst_told = 1;
            return TP_RX_RST;
        }
        if (end == UTCP_END_TIMEOUT && !r->end_told) {
            r->end_told = 1;
            snprintf(err, errlen, "the device stopped acknowledging: %u retransmissions unanswered",
                     utcp_retx_count(r->u));
            return TP_RX_ERROR;
        }
        if (looked && tp_now_ms() >= quiet_until)
            return TP_RX_TIMEOUT;
        /* after the device's FIN or with the connection closed nothing
         * more can come, but the connection is still served meanwhile */
        int pk = pump(r, quiet_until, err, errlen);
        if (pk < 0)
            return TP_RX_ERROR;
        if (pk == 1)
            return TP_RX_TIMEOUT;
        looked = 1;
    }
}

static int r_fin(tp *t, char *err, size_t errlen)
{
    raw_state *r = t->priv;
    if (!r->u || utcp_close(r->u, tp_now_ms())) {
        if (r->u && utcp_get_end(r->u) == UTCP_END_RST_RCVD)
            snprintf(err, errlen, "cannot send a FIN: the device reset the connection");
        else
            snprintf(err, errlen, "cannot send a FIN: the connection is %s",
                     r->u ? utcp_state_name(utcp_get_state(r->u)) : "not open");
        return -1;
    }
    return flush(r, err, errlen);
}

static int r_abort(tp *t, char *err, size_t errlen)
{
    raw_state *r = t->priv;
    utcp_seg s;
    if (!r->u || utcp_abort(r->u, &s)) {
        snprintf(err, errlen, "cannot reset: the connection is %s", r->u ? utcp_state_name(utcp_get_state(r->u))
                                                                         : "not open");
        return -1;
    }
    return put_seg(r, &s, err, errlen);
}

static void r_destroy(tp *t)
{
    if (!t)
        return;
    raw_state *r = t->priv;
    if (r) {
        if (r->u && r->pc && r->ln) { /* what is owed already (an ACK of the device's FIN) */
            char err[200];
            (void)flush(r, err, sizeof err);
        }
        if (r->pc)
            pcap_close(r->pc);
        if (r->ln)
            libnet_destroy(r->ln);
        utcp_free(r->u);
        free(r);
    }
    free(t);
}

static const tp_ops raw_ops = {"raw", r_open, r_send, r_recv, r_fin, r_abort, r_destroy};

tp *tp_raw_new(const tp_cfg *cfg, inj_trace *trace, char *err, size_t errlen)
{
    tp *t = calloc(1, sizeof *t);
    raw_state *r = calloc(1, sizeof *r);
    if (!t || !r) {
        free(t);
        free(r);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    r->t = t;
    r->pfd = -1;
    t->ops = &raw_ops;
    t->cfg = *cfg;
    t->trace = trace;
    t->priv = r;
    return t;
}

void tp_raw_test_drop(tp *t, unsigned n)
{
    if (t && t->ops == &raw_ops)
        ((raw_state *)t->priv)->drop += n;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Packet layer of mpa-audit: the tcpdump LINKTYPE list (NULL, ETHERNET,
 * RAW, LOOP, LINUX_SLL, IPV4, IPV6, LINUX_SLL2), IEEE 802.1Q tags,
 * RFC 791 (IPv4 header, options, fragments), RFC 8200 (IPv6 header,
 * extension headers, Fragment header; RFC 6946 atomic fragments,
 * RFC 2675 jumbograms), RFC 4302 (AH length), RFC 9293 3.1-3.2 (TCP
 * header and options), RFC 7323 (window scale), RFC 5952 (IPv6 text).
 *
 * Every packet is built octet by octet here, then parsed whole and cut
 * at every prefix length from a page-guarded copy: a cut inside a header
 * is TRUNCATED when the capture cut it (caplen < wirelen) and INVALID
 * when the packet itself is that short; once the TCP header is whole the
 * segment is usable with a short payload.
 */
#include "pkt.h"
#include "t.h"

#include <arpa/inet.h>

/* ---- packet builder ---- */

typedef struct pb {
    uint8_t b[2048];
    uint32_t n;
} pb;

static void p8(pb *p, unsigned v)
{
    p->b[p->n++] = (uint8_t)v;
}
static void p16(pb *p, unsigned v)
{
    p8(p, v >> 8);
    p8(p, v & 0xFF);
}
static void p32(pb *p, uint32_t v)
{
    p16(p, v >> 16);
    p16(p, v & 0xFFFF);
}
static void pfill(pb *p, unsigned v, uint32_t n)
{
    while (n--)
        p8(p, v);
}
static void pbytes(pb *p, const uint8_t *s, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        p8(p, s[i]);
}
static void set16(pb *p, uint32_t at, unsigned v)
{
    p->b[at] = (uint8_t)(v >> 8);
    p->b[at + 1] = (uint8_t)v;
}

static const uint8_t SRC4[4] = {192, 0, 2, 1}, DST4[4] = {198, 51, 100, 2};
static const uint8_t SRC6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
static const uint8_t DST6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};

/* Ethernet with tags[i] = (TPID << 16 | TCI), outermost first. */
static void eth(pb *p, const uint32_t *tags, unsigned ntags, unsigned type)
{
    for (int i = 0; i < 6; i++)
        p8(p, 0x02);
    for (int i = 0; i < 6; i++)
        p8(p, 0x04 + (unsigned)i);
    for (unsigned i = 0; i < ntags; i++) {
        p16(p, tags[i] >> 16);
        p16(p, tags[i] & 0xFFFF);
    }
    p16(p, type);
}

/* IPv4 header with optlen octets of options (NOPs then EOL); the total
 * length is patched by ip4_end(). */
static uint32_t ip4(pb *p, unsigned proto, uint32_t optlen, unsigned fragfield, unsigned id)
{
    uint32_t at = p->n;
    p8(p, 0x40 | (5 + optlen / 4));
    p8(p, 0);
    p16(p, 0);
    p16(p, id);
    p16(p, fragfield);
    p8(p, 64);
    p8(p, proto);
    p16(p, 0);
    pbytes(p, SRC4, 4);
    pbytes(p, DST4, 4);
    if (optlen) {
        pfill(p, 1, optlen - 1);
        p8(p, 0);
    }
    return at;
}
static void ip4_end(pb *p, uint32_t at)
{
    set16(p, at + 2, p->n - at);
}

static uint32_t ip6(pb *p, unsigned nh)
{
    uint32_t at = p->n;
    p32(p, 0x60000000u);
    p16(p, 0);
    p8(p, nh);
    p8(p, 64);
    pbytes(p, SRC6, 16);
    pbytes(p, DST6, 16);
    return at;
}
static void ip6_end(pb *p, uint32_t at)
{
    set16(p, at + 4, p->n - at - 40);
}

/* Hop-by-Hop / Routing / Destination Options of len octets (multiple of
 * 8), padded with a PadN option. */
static void ext6(pb *p, unsigned nh, uint32_t len)
{
    p8(p, nh);
    p8(p, len / 8 - 1);
    p8(p, 1); /* PadN */
    p8(p, len - 4);
    pfill(p, 0, len - 4);
}
/* AH (RFC 4302): Payload Len in 4-octet units minus 2. */
static void ah6(pb *p, unsigned nh, uint32_t len)
{
    p8(p, nh);
    p8(p, len / 4 - 2);
    p16(p, 0);
    p32(p, 0x1000);  /* SPI */
    p32(p, 7);       /* sequence */
    pfill(p, 0xAA, len - 12); /* ICV */
}
static void frag6(pb *p, unsigned nh, uint32_t off, unsigned m, uint32_t id)
{
    p8(p, nh);
    p8(p, 0);
    p16(p, off | m);
    p32(p, id);
}

static uint8_t payload_octet(uint32_t i)
{
    return (uint8_t)(i * 7 + 0x5A);
}

/* TCP header with the given options (padded to 4 octets with EOL) and
 * plen payload octets. */
static uint32_t tcp(pb *p, const uint8_t *opt, uint32_t optlen, uint32_t plen)
{
    uint32_t at = p->n;
    uint32_t olen = (optlen + 3) & ~3u;
    p16(p, 0x1234);
    p16(p, 0x5678);
    p32(p, 0x01020304);
    p32(p, 0xA0B0C0D0);
    p8(p, (5 + olen / 4) << 4);
    p8(p, PKT_TCP_ACK | PKT_TCP_PSH);
    p16(p, 0xFFEE);
    p16(p, 0);
    p16(p, 0);
    pbytes(p, opt, optlen);
    pfill(p, 0, olen - optlen);
    for (uint32_t i = 0; i < plen; i++)
        p8(p, payload_octet(i));
    return at;
}

/* A built packet and where its parts are. */
typedef struct built {
    pb p;
    int lt;
    uint32_t th;   /* TCP header */
    uint32_t te;   /* end of the TCP header */
    uint32_t ie;   /* end of the IP datagram (before link padding) */
    uint16_t mss;
    int8_t ws;
    uint8_t version;
    unsigned nvlan;
    uint16_t vlan[PKT_MAX_VLAN];
    const char *name;
} built;

static const uint8_t OPT_MSS_WS[] = {2, 4, 0x05, 0xB4, 1, 3, 3, 7, 4, 2, 1, 1};

static void tcp_into(built *b, const uint8_t *opt, uint32_t optlen, uint32_t plen)
{
    b->th = tcp(&b->p, opt, optlen, plen);
    b->te = b->p.n - plen;
    b->ie = b->p.n;
}

static void v4_tcp(built *b, uint32_t ipopt, const uint8_t *opt, uint32_t optlen, uint32_t plen)
{
    uint32_t at = ip4(&b->p, 6, ipopt, 0x4000 /* DF */, 0x1111);
    tcp_into(b, opt, optlen, plen);
    ip4_end(&b->p, at);
    b->version = 4;
}

static void v6_tcp(built *b, const uint8_t *opt, uint32_t optlen, uint32_t plen)
{
    uint32_t at = ip6(&b->p, 6);
    tcp_into(b, opt, optlen, plen);
    ip6_end(&b->p, at);
    b->version = 6;
}

/* ---- the packet catalogue: one of each link type and encapsulation ---- */

enum { NCASES = 26 };

static void build_case(int i, built *b)
{
    memset(b, 0, sizeof *b);
    b->ws = -1;
    pb *p = &b->p;
    switch (i) {
    case 0:
        b->name = "ethernet/ipv4/tcp";
        b->lt = PKT_LINK_ETHERNET;
        eth(p, NULL, 0, 0x0800);
        v4_tcp(b, 0, NULL, 0, 40);
        break;
    case 1: {
        b->name = "ethernet/ipv4 options/tcp options/padding+FCS";
        b->lt = PKT_LINK_ETHERNET;
        eth(p, NULL, 0, 0x0800);
        v4_tcp(b, 12, OPT_MSS_WS, sizeof OPT_MSS_WS, 3);
        b->mss = 1460;
        b->ws = 7;
        pfill(p, 0, 7);     /* link padding */
        p32(p, 0xDEADBEEF); /* an FCS some drivers leave */
        break;
    }
    case 2: {
        b->name = "802.1Q/ipv6/tcp";
        b->lt = PKT_LINK_ETHERNET;
        uint32_t tags[] = {0x81000000u | 0x2064};
        eth(p, tags, 1, 0x86DD);
        v6_tcp(b, OPT_MSS_WS, 4, 17);
        b->mss = 1460;
        b->nvlan = 1;
        b->vlan[0] = 100;
        break;
    }
    case 3: {
        b->name = "802.1ad QinQ/ipv4/tcp";
        b->lt = PKT_LINK_ETHERNET;
        uint32_t tags[] = {0x88A80000u | 0x0FFF, 0x81000000u | 0xE001};
        eth(p, tags, 2, 0x0800);
        v4_tcp(b, 0, NULL, 0, 5);
        b->nvlan = 2;
        b->vlan[0] = 4095;
        b->vlan[1] = 1;
        pfill(p, 0xEE, 6);
        break;
    }
    case 4: {
        b->name = "0x9100 + three 802.1Q tags (PKT_MAX_VLAN)/ipv4/tcp";
        b->lt = PKT_LINK_ETHERNET;
        uint32_t tags[] = {0x91000000u | 10, 0x81000000u | 20, 0x81000000u | 30, 0x81000000u | 40};
        eth(p, tags, 4, 0x0800);
        v4_tcp(b, 0, NULL, 0, 9);
        b->nvlan = 4;
        b->vlan[0] = 10;
        b->vlan[1] = 20;
        b->vlan[2] = 30;
        b->vlan[3] = 40;
        break;
    }
    case 5:
        b->name = "NULL little-endian AF_INET";
        b->lt = PKT_LINK_NULL;
        p32(p, 0x02000000u);
        v4_tcp(b, 0, NULL, 0, 7);
        break;
    case 6:
        b->name = "NULL big-endian AF_INET";
        b->lt = PKT_LINK_NULL;
        p32(p, 2);
        v4_tcp(b, 4, NULL, 0, 7);
        break;
    case 7:
        b->name = "NULL little-endian AF_INET6 (Linux 10)";
        b->lt = PKT_LINK_NULL;
        p32(p, 0x0A000000u);
        v6_tcp(b, NULL, 0, 3);
        break;
    case 8:
        b->name = "NULL AF_INET6 24 (NetBSD/OpenBSD)";
        b->lt = PKT_LINK_NULL;
        p32(p, 0x18000000u);
        v6_tcp(b, NULL, 0, 3);
        break;
    case 9:
        b->name = "NULL big-endian AF_INET6 28 (FreeBSD)";
        b->lt = PKT_LINK_NULL;
        p32(p, 28);
        v6_tcp(b, NULL, 0, 3);
        break;
    case 10:
        b->name = "NULL AF_INET6 30 (Darwin)";
        b->lt = PKT_LINK_NULL;
        p32(p, 0x1E000000u);
        v6_tcp(b, NULL, 0, 3);
        break;
    case 11:
        b->name = "LOOP AF_INET";
        b->lt = PKT_LINK_LOOP;
        p32(p, 2);
        v4_tcp(b, 0, NULL, 0, 11);
        break;
    case 12:
        b->name = "LOOP AF_INET6 30";
        b->lt = PKT_LINK_LOOP;
        p32(p, 30);
        v6_tcp(b, NULL, 0, 11);
        break;
    case 13:
        b->name = "RAW ipv4";
        b->lt = PKT_LINK_RAW;
        v4_tcp(b, 0, OPT_MSS_WS, sizeof OPT_MSS_WS, 2);
        b->mss = 1460;
        b->ws = 7;
        break;
    case 14:
        b->name = "RAW ipv6";
        b->lt = PKT_LINK_RAW;
        v6_tcp(b, NULL, 0, 2);
        break;
    case 15:
        b->name = "IPV4 (228)";
        b->lt = PKT_LINK_IPV4;
        v4_tcp(b, 40, NULL, 0, 1);
        break;
    case 16:
        b->name = "IPV6 (229)";
        b->lt = PKT_LINK_IPV6;
        v6_tcp(b, NULL, 0, 1);
        break;
    case 17:
        b->name = "LINUX_SLL ipv4";
        b->lt = PKT_LINK_LINUX_SLL;
        p16(p, 0);      /* to us */
        p16(p, 1);      /* ARPHRD_ETHER */
        p16(p, 6);
        pfill(p, 0x02, 6);
        p16(p, 0);
        p16(p, 0x0800);
        v4_tcp(b, 0, NULL, 0, 6);
        break;
    case 18:
        b->name = "LINUX_SLL 802.1Q/ipv6";
        b->lt = PKT_LINK_LINUX_SLL;
        p16(p, 4);      /* outgoing */
        p16(p, 1);
        p16(p, 6);
        pfill(p, 0x02, 6);
        p16(p, 0);
        p16(p, 0x8100);
        p16(p, 7);
        p16(p, 0x86DD);
        v6_tcp(b, NULL, 0, 6);
        b->nvlan = 1;
        b->vlan[0] = 7;
        break;
    case 19:
        b->name = "LINUX_SLL2 ipv4";
        b->lt = PKT_LINK_LINUX_SLL2;
        p16(p, 0x0800);
        p16(p, 0);
        p32(p, 3);      /* ifindex */
        p16(p, 1);      /* ARPHRD_ETHER */
        p8(p, 0);
        p8(p, 6);
        pfill(p, 0x02, 8);
        v4_tcp(b, 0, OPT_MSS_WS, sizeof OPT_MSS_WS, 6);
        b->mss = 1460;
        b->ws = 7;
        break;
    case 20:
        b->name = "LINUX_SLL2 ipv6";
        b->lt = PKT_LINK_LINUX_SLL2;
        p16(p, 0x86DD);
        p16(p, 0);
        p32(p, 3);
        p16(p, 1);
        p8(p, 4);
        p8(p, 6);
        pfill(p, 0x02, 8);
        v6_tcp(b, NULL, 0, 6);
        break;
    case 21: {
        b->name = "ipv6 Hop-by-Hop/tcp";
        b->lt = PKT_LINK_IPV6;
        uint32_t at = ip6(p, 0);
        ext6(p, 6, 8);
        tcp_into(b, NULL, 0, 4);
        ip6_end(p, at);
        b->version = 6;
        break;
    }
    case 22: {
        b->name = "ipv6 Routing/tcp";
        b->lt = PKT_LINK_IPV6;
        uint32_t at = ip6(p, 43);
        ext6(p, 6, 24);
        tcp_into(b, NULL, 0, 4);
        ip6_end(p, at);
        b->version = 6;
        break;
    }
    case 23: {
        b->name = "ipv6 Destination Options/tcp";
        b->lt = PKT_LINK_IPV6;
        uint32_t at = ip6(p, 60);
        ext6(p, 6, 16);
        tcp_into(b, NULL, 0, 4);
        ip6_end(p, at);
        b->version = 6;
        break;
    }
    case 24: {
        b->name = "ipv6 AH/tcp";
        b->lt = PKT_LINK_IPV6;
        uint32_t at = ip6(p, 51);
        ah6(p, 6, 24);
        tcp_into(b, NULL, 0, 4);
        ip6_end(p, at);
        b->version = 6;
        break;
    }
    case 25: {
        b->name = "ipv6 HbH/DestOpt/Routing/atomic Fragment/AH/DestOpt/tcp on Ethernet";
        b->lt = PKT_LINK_ETHERNET;
        eth(p, NULL, 0, 0x86DD);
        uint32_t at = ip6(p, 0);
        ext6(p, 60, 8);
        ext6(p, 43, 16);
        ext6(p, 44, 8);
        frag6(p, 51, 0, 0, 0xCAFE);
        ah6(p, 60, 16);
        ext6(p, 6, 8);
        tcp_into(b, OPT_MSS_WS, sizeof OPT_MSS_WS, 30);
        b->mss = 1460;
        b->ws = 7;
        ip6_end(p, at);
        b->version = 6;
        break;
    }
    }
}

static void check_ok(const built *b, const uint8_t *g, uint32_t cap, const pkt *o)
{
    uint32_t pend = cap < b->ie ? cap : b->ie;
    T_EQ(o->ip.version, b->version);
    T_EQ(o->ip.proto, 6);
    T_EQ(o->ip.nvlan, b->nvlan);
    for (unsigned i = 0; i < b->nvlan && i < PKT_MAX_VLAN; i++)
        T_EQ(o->ip.vlan[i], b->vlan[i]);
    if (b->version == 4) {
        T_EQ(o->ip.src.family, 4);
        T_MEMEQ(o->ip.src.a, SRC4, 4);
        T_MEMEQ(o->ip.dst.a, DST4, 4);
        static const uint8_t zero[12];
        T_MEMEQ(o->ip.src.a + 4, zero, 12);
    } else {
        T_EQ(o->ip.src.family, 6);
        T_MEMEQ(o->ip.src.a, SRC6, 16);
        T_MEMEQ(o->ip.dst.a, DST6, 16);
    }
    T_EQ(o->tcp.sport, 0x1234);
    T_EQ(o->tcp.dport, 0x5678);
    T_EQ(o->tcp.seq, 0x01020304);
    T_EQ(o->tcp.ack, 0xA0B0C0D0);
    T_EQ(o->tcp.flags, PKT_TCP_ACK | PKT_TCP_PSH);
    T_EQ(o->tcp.win, 0xFFEE);
    T_EQ(o->tcp.mss, b->mss);
    T_EQ(o->tcp.wscale, b->ws);
    T_CHECK(o->tcp.payload == g + b->te, "%s: payload at %td, expected %u", b->name, o->tcp.payload - g, b->te);
    T_EQ(o->tcp.payload_len, pend - b->te);
    T_EQ(o->tcp.payload_wire, b->ie - b->te);
}

/* The whole packet, then every prefix both as a snap-length cut and as
 * a packet that short on the wire. */
static void test_linktypes_and_every_prefix(void)
{
    for (int i = 0; i < NCASES; i++) {
        built b;
        build_case(i, &b);
        pkt o;
        const uint8_t *g = t_guard(b.p.b, b.p.n);
        pkt_status st = pkt_parse(b.lt, g, b.p.n, b.p.n, &o);
        T_CHECK(st == PKT_OK, "%s: %s (%s at %u)", b.name, pkt_status_str(st), o.why ? o.why : "", o.where);
        if (st != PKT_OK)
            continue;
        check_ok(&b, g, b.p.n, &o);
        T_CHECK(o.why == NULL, "%s: why set on a whole packet", b.name);
        for (int for_snap = 0; for_snap < 2; for_snap++) {
            unsigned bad = 0;
            for (uint32_t cap = 0; cap < b.p.n; cap++) {
                g = t_guard(b.p.b, cap);
                uint32_t wire = for_snap ? b.p.n : cap;
                st = pkt_parse(b.lt, g, cap, wire, &o);
                int good;
                if (cap < b.te) {
                    good = st == (for_snap ? PKT_TRUNCATED : PKT_INVALID) && o.why != NULL && o.where <= cap &&
                           strstr(o.why, for_snap ? "capture ends" : "packet ends") != NULL;
                } else {
                    uint32_t pend = cap < b.ie ? cap : b.ie;
                    good = st == PKT_OK && o.tcp.payload == g + b.te && o.tcp.payload_len == pend - b.te &&
                           o.tcp.payload_wire == b.ie - b.te && o.tcp.seq == 0x01020304 &&
                           (cap < b.ie ? o.why != NULL && o.where == b.te : o.why == NULL);
                }
                if (!good) {
                    bad++;
                    fprintf(stderr, "  %s %s cap %u: %s (%s at %u)\n", b.name, for_snap ? "snap" : "runt", cap,
                            pkt_status_str(st), o.why ? o.why : "-", o.where);
                }
            }
            T_CHECK(bad == 0, "%s: %u prefixes wrong", b.name, bad);
        }
    }
}

/* ---- single cases ---- */

static pkt_status parse(const pb *p, int lt, pkt *o)
{
    const uint8_t *g = t_guard(p->b, p->n);
    return pkt_parse(lt, g, p->n, p->n, o);
}

#define EXPECT(p, lt, st_, where_)                                                                \
    do {                                                                                         \
        pkt o_;                                                                                  \
        pkt_status s_ = parse((p), (lt), &o_);                                                   \
        T_CHECK(s_ == (st_) && o_.where == (uint32_t)(where_), "got %s (%s) at %u, expected %s at %u", \
                pkt_status_str(s_), o_.why ? o_.why : "-", o_.where, pkt_status_str(st_), (unsigned)(where_)); \
        T_CHECK(((st_) == PKT_OK || (st_) == PKT_NOT_TCP || (st_) == PKT_FRAGMENT) == (o_.why == NULL), \
                "why %s", o_.why ? o_.why : "NULL");                                             \
    } while (0)

/* RFC 791 3.1: IHL, total length, version. */
static void test_rfc791_header_invalid(void)
{
    built b;
    build_case(0, &b);
    b.p.b[14] = 0x43; /* IHL 3 */
    EXPECT(&b.p, PKT_LINK_ETHERNET, PKT_INVALID, 14);
    b.p.b[14] = 0x40; /* IHL 0 */
    EXPECT(&b.p, PKT_LINK_ETHERNET, PKT_INVALID, 14);

    build_case(0, &b);
    set16(&b.p, 16, 19); /* total length < IHL*4 */
    EXPECT(&b.p, PKT_LINK_ETHERNET, PKT_INVALID, 16);

    build_case(0, &b);
    b.p.b[14] = 0x65; /* an IPv6 nibble under EtherType IPv4 */
    EXPECT(&b.p, PKT_LINK_ETHERNET, PKT_INVALID, 14);
    EXPECT(&b.p, PKT_LINK_IPV4, PKT_INVALID, 0); /* the Ethernet header read as IPv4 */

    build_case(14, &b); /* IPv6 under the IPV4 link type */
    EXPECT(&b.p, PKT_LINK_IPV4, PKT_INVALID, 0);
    build_case(13, &b); /* IPv4 under the IPV6 link type */
    EXPECT(&b.p, PKT_LINK_IPV6, PKT_INVALID, 0);
    b.p.b[0] = 0x55; /* RAW: the nibble decides, 5 is neither */
    EXPECT(&b.p, PKT_LINK_RAW, PKT_INVALID, 0);

    /* IHL 15 (60 octets) but the packet has 20 + TCP: the options "cut"
     * the TCP header off: with the total length saying 60 + 20 + 40 the
     * capture (snap) cut is truncated. */
    build_case(0, &b);
    b.p.b[14] = 0x4F;
    const uint8_t *g = t_guard(b.p.b, 50);
    pkt o;
    T_EQ(pkt_parse(PKT_LINK_ETHERNET, g, 50, 200, &o), PKT_TRUNCATED);
    T_EQ(o.where, 34);
}

/* RFC 791: the total length, not the frame, ends the datagram. */
static void test_rfc791_total_length_trims_padding(void)
{
    built b;
    build_case(1, &b);
    pkt o;
    const uint8_t *g = t_guard(b.p.b, b.p.n);
    T_EQ(pkt_parse(PKT_LINK_ETHERNET, g, b.p.n, b.p.n, &o), PKT_OK);
    T_EQ(o.tcp.payload_len, 3);
    T_EQ(o.tcp.payload_wire, 3);
    T_EQ(b.p.n, b.ie + 11);
    /* Total length larger than the frame: usable, tail reported. */
    build_case(0, &b);
    set16(&b.p, 16, (unsigned)(b.ie - 14 + 100));
    g = t_guard(b.p.b, b.p.n);
    T_EQ(pkt_parse(PKT_LINK_ETHERNET, g, b.p.n, b.p.n, &o), PKT_OK);
    T_EQ(o.tcp.payload_len, 40);
    T_EQ(o.tcp.payload_wire, 140);
    T_STREQ(o.why, "packet ends inside the TCP payload");
    T_EQ(o.where, b.te);
    T_EQ(pkt_parse(PKT_LINK_ETHERNET, g, b.p.n, b.p.n + 100, &o), PKT_OK);
    T_STREQ(o.why, "capture ends inside the TCP payload");
    /* The IP payload too short for a TCP header. */
    build_case(0, &b);
    set16(&b.p, 16, 20 + 19);
    EXPECT(&b.p, PKT_LINK_ETHERNET, PKT_INVALID, b.th);
    /* ... and that stays invalid when the capture is cut too: the IP
     * header, not the snap length, says there is no room. */
    g = t_guard(b.p.b, b.p.n);
    T_EQ(pkt_parse(PKT_LINK_ETHERNET, g, b.th + 10, b.p.n, &o), PKT_INVALID);
    T_EQ(o.where, b.th);
}

/* RFC 9293 3.1: Data Offset; 3.2: option kinds, lengths. */
static void opt_case(const uint8_t *opt, uint32_t n, pkt_status want, int where_in_opts, uint16_t mss, int ws)
{
    built b;
    memset(&b, 0, sizeof b);
    b.lt = PKT_LINK_RAW;
    v4_tcp(&b, 0, opt, n, 8);
    pkt o;
    pkt_status st = parse(&b.p, PKT_LINK_RAW, &o);
    T_CHECK(st == want, "options: %s (%s), expected %s", pkt_status_str(st), o.why ? o.why : "-",
            pkt_status_str(want));
    if (want == PKT_OK) {
        T_EQ(o.tcp.mss, mss);
        T_EQ(o.tcp.wscale, ws);
        T_EQ(o.tcp.payload_len, 8);
    } else {
        T_EQ(o.where, b.th + 20 + (uint32_t)where_in_opts);
    }
}

static void test_rfc9293_options(void)
{
    /* NOP runs, EOL, unknown kinds skipped by length. */
    static const uint8_t a[] = {1, 1, 1, 3, 3, 14, 2, 4, 0x23, 0x28, 30, 6, 1, 2, 3, 4, 0, 0xFF, 0xFF, 0xFF};
    opt_case(a, sizeof a, PKT_OK, 0, 9000, 14);
    /* After EOL nothing is read: a bogus "option" there is fine. */
    static const uint8_t b[] = {0, 2, 99, 0};
    opt_case(b, sizeof b, PKT_OK, 0, 0, -1);
    /* Length 0 and 1: invalid (an implementation that adds 0 would loop). */
    static const uint8_t c[] = {1, 30, 0, 0};
    opt_case(c, sizeof c, PKT_INVALID, 2, 0, 0);
    static const uint8_t d[] = {30, 1, 0, 0};
    opt_case(d, sizeof d, PKT_INVALID, 1, 0, 0);
    /* Length past the header. */
    static const uint8_t e[] = {1, 1, 8, 10, 0, 0, 0, 0};
    opt_case(e, sizeof e, PKT_INVALID, 3, 0, 0);
    /* A kind in the last octet with no room for its length. */
    static const uint8_t f[] = {1, 1, 1, 5};
    opt_case(f, sizeof f, PKT_INVALID, 3, 0, 0);
    /* MSS and window scale with the wrong length. */
    static const uint8_t g[] = {2, 3, 5, 1};
    opt_case(g, sizeof g, PKT_INVALID, 1, 0, 0);
    static const uint8_t h[] = {3, 4, 5, 1};
    opt_case(h, sizeof h, PKT_INVALID, 1, 0, 0);
    /* RFC 7323 2.3: a shift above 14 is kept for the caller to report. */
    static const uint8_t k[] = {3, 3, 15, 0};
    opt_case(k, sizeof k, PKT_OK, 0, 0, 15);
    static const uint8_t l[] = {3, 3, 200, 0};
    opt_case(l, sizeof l, PKT_OK, 0, 0, 127);
    /* An option exactly filling the header. */
    static const uint8_t m[] = {254, 8, 1, 2, 3, 4, 5, 6};
    opt_case(m, sizeof m, PKT_OK, 0, 0, -1);

    /* Data offset < 5, and past the IP payload. */
    built bb;
    build_case(13, &bb);
    bb.p.b[bb.th + 12] = 0x40;
    EXPECT(&bb.p, PKT_LINK_RAW, PKT_INVALID, bb.th + 12);
    bb.p.b[bb.th + 12] = 0x00;
    EXPECT(&bb.p, PKT_LINK_RAW, PKT_INVALID, bb.th + 12);
    build_case(16, &bb); /* 20 + 1 octets of TCP */
    bb.p.b[bb.th + 12] = 0x60;
    EXPECT(&bb.p, PKT_LINK_IPV6, PKT_INVALID, bb.th + 12);
    /* Every flag bit comes through. */
    build_case(16, &bb);
    bb.p.b[bb.th + 13] = 0xFF;
    pkt o;
    T_EQ(parse(&bb.p, PKT_LINK_IPV6, &o), PKT_OK);
    T_EQ(o.tcp.flags, 0xFF);
}

/* IEEE 802.1Q: more tags than PKT_MAX_VLAN are refused, not misread. */
static void test_ieee8021q_depth(void)
{
    pb p = {.n = 0};
    uint32_t tags[] = {0x88A80000u | 1, 0x81000000u | 2, 0x81000000u | 3, 0x81000000u | 4, 0x81000000u | 5};
    eth(&p, tags, 5, 0x0800);
    uint32_t at = ip4(&p, 6, 0, 0, 1);
    tcp(&p, NULL, 0, 0);
    ip4_end(&p, at);
    EXPECT(&p, PKT_LINK_ETHERNET, PKT_UNSUPPORTED, 28);
}

/* Not TCP over IP: skipped, not errors; tunnels are "unsupported". */
static void test_not_tcp(void)
{
    pb p = {.n = 0};
    eth(&p, NULL, 0, 0x0806); /* ARP */
    pfill(&p, 0, 28);
    EXPECT(&p, PKT_LINK_ETHERNET, PKT_NOT_TCP, 0);
    p.n = 0;
    eth(&p, NULL, 0, 46); /* an 802.3 length */
    pfill(&p, 0xAA, 46);
    EXPECT(&p, PKT_LINK_ETHERNET, PKT_NOT_TCP, 0);
    p.n = 0;
    eth(&p, NULL, 0, 0x8847); /* MPLS */
    pfill(&p, 0, 40);
    EXPECT(&p, PKT_LINK_ETHERNET, PKT_UNSUPPORTED, 12);
    p.n = 0;
    eth(&p, NULL, 0, 0x8864); /* PPPoE */
    pfill(&p, 0, 40);
    EXPECT(&p, PKT_LINK_ETHERNET, PKT_UNSUPPORTED, 12);

    static const unsigned protos[] = {17, 1, 132, 50};
    for (unsigned i = 0; i < 4; i++) {
        p.n = 0;
        uint32_t at = ip4(&p, protos[i], 0, 0, 1);
        pfill(&p, 0, 8);
        ip4_end(&p, at);
        pkt o;
        T_EQ(parse(&p, PKT_LINK_IPV4, &o), PKT_NOT_TCP);
        T_EQ(o.ip.proto, protos[i]);
    }
    p.n = 0;
    uint32_t at = ip4(&p, 47, 0, 0, 1); /* GRE */
    pfill(&p, 0, 8);
    ip4_end(&p, at);
    EXPECT(&p, PKT_LINK_IPV4, PKT_UNSUPPORTED, 9);

    static const unsigned nh6[] = {17, 58, 50, 59};
    for (unsigned i = 0; i < 4; i++) {
        p.n = 0;
        at = ip6(&p, 60);
        ext6(&p, nh6[i], 8);
        pfill(&p, 0, 8);
        ip6_end(&p, at);
        pkt o;
        T_EQ(parse(&p, PKT_LINK_IPV6, &o), PKT_NOT_TCP);
        T_EQ(o.ip.proto, nh6[i]);
    }
    p.n = 0;
    at = ip6(&p, 41); /* IPv6 in IPv6 */
    pfill(&p, 0, 40);
    ip6_end(&p, at);
    EXPECT(&p, PKT_LINK_IPV6, PKT_UNSUPPORTED, 6);

    /* Loopback families that are not IP. */
    p.n = 0;
    p32(&p, 0x07000000u);
    pfill(&p, 0x45, 40);
    EXPECT(&p, PKT_LINK_NULL, PKT_NOT_TCP, 0);
    p.n = 0;
    p32(&p, 0x01020304u); /* neither order of a small number */
    pfill(&p, 0x45, 40);
    EXPECT(&p, PKT_LINK_NULL, PKT_NOT_TCP, 0);
    p.n = 0;
    p32(&p, 0x02000000u); /* LOOP is network order: this is not 2 */
    pfill(&p, 0x45, 40);
    EXPECT(&p, PKT_LINK_LOOP, PKT_NOT_TCP, 0);

    p.n = 0;
    pfill(&p, 0, 60);
    EXPECT(&p, 147, PKT_UNSUPPORTED, 0); /* a link type we do not know */
    EXPECT(&p, PKT_LINK_LINUX_SLL2, PKT_NOT_TCP, 0);
}

/* RFC 8200 4: header order, lengths against the Payload Length. */
static void test_rfc8200_ext_invalid(void)
{
    pb p = {.n = 0};
    uint32_t at = ip6(&p, 60);
    ext6(&p, 0, 8); /* Hop-by-Hop after Destination Options */
    ext6(&p, 6, 8);
    tcp(&p, NULL, 0, 0);
    ip6_end(&p, at);
    EXPECT(&p, PKT_LINK_IPV6, PKT_INVALID, 40);

    /* Extension header length past the Payload Length (but captured). */
    p.n = 0;
    at = ip6(&p, 43);
    ext6(&p, 6, 8);
    tcp(&p, NULL, 0, 0);
    ip6_end(&p, at);
    p.b[41] = 200;
    EXPECT(&p, PKT_LINK_IPV6, PKT_INVALID, 41);
    /* The same with AH's own unit. */
    p.n = 0;
    at = ip6(&p, 51);
    ah6(&p, 6, 16);
    tcp(&p, NULL, 0, 0);
    ip6_end(&p, at);
    pkt o;
    T_EQ(parse(&p, PKT_LINK_IPV6, &o), PKT_OK);
    T_EQ(o.tcp.sport, 0x1234);
    p.b[41] = 9; /* (9+2)*4 = 44 > 16 + 20 */
    EXPECT(&p, PKT_LINK_IPV6, PKT_INVALID, 41);

    /* Payload Length shorter than the chain. */
    p.n = 0;
    at = ip6(&p, 60);
    ext6(&p, 6, 16);
    tcp(&p, NULL, 0, 0);
    set16(&p, 4, 1);
    EXPECT(&p, PKT_LINK_IPV6, PKT_INVALID, 40);

    /* RFC 2675 jumbogram: payload length 0 and a Jumbo Payload option. */
    p.n = 0;
    at = ip6(&p, 0);
    p8(&p, 6);
    p8(&p, 1);
    p8(&p, 1); /* PadN, 0 octets */
    p8(&p, 0);
    p8(&p, 0xC2);
    p8(&p, 4);
    p32(&p, 70000);
    p8(&p, 1); /* PadN, 4 octets */
    p8(&p, 4);
    p32(&p, 0);
    tcp(&p, NULL, 0, 0);
    EXPECT(&p, PKT_LINK_IPV6, PKT_UNSUPPORTED, 4);
    /* Cut before the option is seen: truncated, and the option scan
     * stays inside the capture. */
    unsigned bad = 0;
    for (uint32_t cap = 0; cap < p.n; cap++) {
        const uint8_t *g = t_guard(p.b, cap);
        pkt_status st = pkt_parse(PKT_LINK_IPV6, g, cap, p.n, &o);
        bad += st != (cap < 45 ? PKT_TRUNCATED : PKT_UNSUPPORTED);
    }
    T_EQ(bad, 0);
    /* Payload length 0 and no jumbo option: the TCP header is past it. */
    p.n = 0;
    at = ip6(&p, 6);
    tcp(&p, NULL, 0, 0);
    EXPECT(&p, PKT_LINK_IPV6, PKT_INVALID, 40);
    /* The version nibble. */
    p.n = 0;
    at = ip6(&p, 6);
    tcp(&p, NULL, 0, 0);
    ip6_end(&p, at);
    p.b[0] = 0x40;
    EXPECT(&p, PKT_LINK_IPV6, PKT_INVALID, 0);
}

/* RFC 791 fragments and the RFC 8200 4.5 Fragment header. */
static void test_fragments(void)
{
    pb p = {.n = 0};
    eth(&p, NULL, 0, 0x0800);
    uint32_t at = ip4(&p, 6, 4, 0x2000 /* MF, offset 0 */, 0xBEEF);
    tcp(&p, NULL, 0, 20);
    ip4_end(&p, at);
    pfill(&p, 0, 4); /* padding is not fragment data */
    pkt o;
    const uint8_t *g = t_guard(p.b, p.n);
    T_EQ(pkt_parse(PKT_LINK_ETHERNET, g, p.n, p.n, &o), PKT_FRAGMENT);
    T_EQ(o.frag.id, 0xBEEF);
    T_EQ(o.frag.offset, 0);
    T_EQ(o.frag.more, 1);
    T_EQ(o.frag.proto, 6);
    T_CHECK(o.frag.data == g + 14 + 24, "fragment data");
    T_EQ(o.frag.len, 40);
    T_EQ(o.frag.wire_len, 40);
    T_EQ(o.ip.version, 4);
    T_MEMEQ(o.ip.src.a, SRC4, 4);
    T_CHECK(o.why == NULL, "why");
    /* Every prefix: truncated inside the IP header, a short fragment after. */
    unsigned bad = 0;
    for (uint32_t cap = 0; cap < p.n; cap++) {
        g = t_guard(p.b, cap);
        pkt_status st = pkt_parse(PKT_LINK_ETHERNET, g, cap, p.n, &o);
        if (cap < 38)
            bad += st != PKT_TRUNCATED;
        else
            bad += st != PKT_FRAGMENT || o.frag.len != (cap < 78 ? cap : 78) - 38 || o.frag.wire_len != 40 ||
                   o.frag.data != g + 38;
    }
    T_EQ(bad, 0);

    /* A middle fragment of UDP: still a fragment (the caller filters). */
    p.n = 0;
    at = ip4(&p, 17, 0, 0x2000 | 185, 0xBEEF);
    pfill(&p, 0x11, 16);
    ip4_end(&p, at);
    T_EQ(parse(&p, PKT_LINK_IPV4, &o), PKT_FRAGMENT);
    T_EQ(o.frag.offset, 1480);
    T_EQ(o.frag.proto, 17);
    /* MF set but not a multiple of 8. */
    p.n = 0;
    at = ip4(&p, 6, 0, 0x2000 | 1, 1);
    pfill(&p, 0x11, 12);
    ip4_end(&p, at);
    EXPECT(&p, PKT_LINK_IPV4, PKT_INVALID, 2);
    /* The last fragment may be any length; but not past 65535 octets. */
    p.n = 0;
    at = ip4(&p, 6, 0, 8187, 1);
    pfill(&p, 0x11, 12);
    ip4_end(&p, at);
    T_EQ(parse(&p, PKT_LINK_IPV4, &o), PKT_FRAGMENT);
    T_EQ(o.frag.more, 0);
    T_EQ(o.frag.offset, 65496); /* 20 + 65496 + 12 = 65528 */
    set16(&p, 6, 8190); /* 20 + 65520 + 12 > 65535 */
    EXPECT(&p, PKT_LINK_IPV4, PKT_INVALID, 6);

    /* IPv6: a Fragment header after a Destination Options header. */
    p.n = 0;
    at = ip6(&p, 60);
    ext6(&p, 44, 8);
    frag6(&p, 6, 1480, 1, 0x89ABCDEF);
    pfill(&p, 0x22, 24);
    ip6_end(&p, at);
    g = t_guard(p.b, p.n);
    T_EQ(pkt_parse(PKT_LINK_IPV6, g, p.n, p.n, &o), PKT_FRAGMENT);
    T_EQ(o.frag.id, 0x89ABCDEF);
    T_EQ(o.frag.offset, 1480);
    T_EQ(o.frag.more, 1);
    T_EQ(o.frag.proto, 6);
    T_EQ(o.frag.len, 24);
    T_EQ(o.frag.wire_len, 24);
    T_CHECK(o.frag.data == g + 56, "v6 fragment data");
    T_EQ(o.ip.version, 6);
    T_MEMEQ(o.ip.dst.a, DST6, 16);
    bad = 0;
    for (uint32_t cap = 0; cap < p.n; cap++) {
        g = t_guard(p.b, cap);
        pkt_status st = pkt_parse(PKT_LINK_IPV6, g, cap, p.n, &o);
        bad += cap < 56 ? st != PKT_TRUNCATED : st != PKT_FRAGMENT || o.frag.len != cap - 56;
    }
    T_EQ(bad, 0);
    /* M=1 and 20 octets. */
    p.n -= 4;
    ip6_end(&p, at);
    EXPECT(&p, PKT_LINK_IPV6, PKT_INVALID, 4);
    /* Past 65535 once the unfragmentable part (8) is counted. */
    p.n = 0;
    at = ip6(&p, 60);
    ext6(&p, 44, 8);
    frag6(&p, 6, 65504, 0, 1);
    pfill(&p, 0x22, 24);
    ip6_end(&p, at);
    EXPECT(&p, PKT_LINK_IPV6, PKT_INVALID, 50);
    p.b[51] = (65496 & 0xFF); /* 8 + 65496 + 24 = 65528: fits */
    p.b[50] = 65496 >> 8;
    T_EQ(parse(&p, PKT_LINK_IPV6, &o), PKT_FRAGMENT);
}

/* pkt_parse_l4: the upper layer of a reassembled datagram. */
static void test_parse_l4(void)
{
    pb p = {.n = 0};
    tcp(&p, OPT_MSS_WS, sizeof OPT_MSS_WS, 100);
    pkt o;
    memset(&o, 0, sizeof o);
    o.ip.version = 4;
    o.ip.src.family = 4;
    memcpy(o.ip.src.a, SRC4, 4);
    const uint8_t *g = t_guard(p.b, p.n);
    T_EQ(pkt_parse_l4(6, g, p.n, &o), PKT_OK);
    T_EQ(o.tcp.mss, 1460);
    T_EQ(o.tcp.payload_len, 100);
    T_EQ(o.tcp.payload_wire, 100);
    T_CHECK(o.tcp.payload == g + 32, "payload");
    T_MEMEQ(o.ip.src.a, SRC4, 4); /* kept */
    T_EQ(o.ip.proto, 6);
    T_EQ(pkt_parse_l4(17, g, p.n, &o), PKT_NOT_TCP);
    T_EQ(pkt_parse_l4(47, g, p.n, &o), PKT_UNSUPPORTED);
    /* A reassembled prefix: truncated inside the header, short after. */
    unsigned bad = 0;
    for (uint32_t cap = 0; cap < p.n; cap++) {
        g = t_guard(p.b, cap);
        pkt_status st = pkt_parse_l4_cut(6, g, cap, p.n, &o);
        bad += cap < 32 ? st != PKT_TRUNCATED : st != PKT_OK || o.tcp.payload_len != cap - 32 || o.tcp.payload_wire != 100;
        st = pkt_parse_l4(6, g, cap, &o);
        bad += cap < 32 ? st != PKT_INVALID : st != PKT_OK;
    }
    T_EQ(bad, 0);
    p.b[12] = 0x30;
    g = t_guard(p.b, p.n);
    T_EQ(pkt_parse_l4(6, g, p.n, &o), PKT_INVALID);
    T_EQ(o.where, 12);

    /* IPv6: Destination Options after the Fragment header come first. */
    p.n = 0;
    ext6(&p, 6, 8);
    tcp(&p, NULL, 0, 10);
    o.ip.version = 6;
    g = t_guard(p.b, p.n);
    T_EQ(pkt_parse_l4(60, g, p.n, &o), PKT_OK);
    T_EQ(o.tcp.payload_len, 10);
    T_EQ(o.ip.proto, 6);
    T_EQ(pkt_parse_l4(0, g, p.n, &o), PKT_INVALID); /* Hop-by-Hop cannot be there */
    p.n = 0;
    frag6(&p, 6, 8, 0, 1);
    tcp(&p, NULL, 0, 10);
    g = t_guard(p.b, p.n);
    T_EQ(pkt_parse_l4(44, g, p.n, &o), PKT_UNSUPPORTED);
    /* An atomic Fragment header is just skipped. */
    p.b[2] = 0;
    p.b[3] = 0;
    g = t_guard(p.b, p.n);
    T_EQ(pkt_parse_l4(44, g, p.n, &o), PKT_OK);
}

/* Random damage to every catalogue packet, at random lengths: any
 * status is fine, reading past the guard page or a pointer outside the
 * packet is not. */
static void test_damage_never_overreads(void)
{
    uint32_t seed = 12345;
    for (int i = 0; i < NCASES; i++) {
        built b;
        build_case(i, &b);
        unsigned bad = 0;
        for (int k = 0; k < 400; k++) {
            pb m = b.p;
            for (int j = 0; j < 3; j++) {
                seed = seed * 1103515245u + 12345u;
                m.b[(seed >> 8) % m.n] = (uint8_t)(seed >> 24);
            }
            seed = seed * 1103515245u + 12345u;
            uint32_t cap = (seed >> 8) % (m.n + 1);
            const uint8_t *g = t_guard(m.b, cap);
            pkt o;
            pkt_status st = pkt_parse(b.lt, g, cap, m.n, &o);
            if (st == PKT_OK)
                bad += o.tcp.payload < g || o.tcp.payload + o.tcp.payload_len > g + cap ||
                       o.tcp.payload_len > o.tcp.payload_wire;
            else if (st == PKT_FRAGMENT)
                bad += o.frag.data < g || o.frag.data + o.frag.len > g + cap || o.frag.len > o.frag.wire_len;
            else if (st != PKT_NOT_TCP)
                bad += o.why == NULL || o.where > m.n;
        }
        T_CHECK(bad == 0, "%s: %u bad results", b.name, bad);
    }
}

static void addr6_str(const char *text, const char *want)
{
    pkt_addr a = {.family = 6};
    T_CHECK(inet_pton(AF_INET6, text, a.a) == 1, "%s", text);
    char buf[46];
    T_STREQ(pkt_addr_str(&a, buf, sizeof buf), want);
}

/* RFC 5952 4.1-4.3, 5. */
static void test_rfc5952_text(void)
{
    addr6_str("2001:0DB8:0000:0000:0000:0000:0000:0001", "2001:db8::1");
    addr6_str("::", "::");
    addr6_str("::1", "::1");
    addr6_str("1::", "1::");
    addr6_str("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1");       /* first of equal runs */
    addr6_str("2001:0:0:1:0:0:0:1", "2001:0:0:1::1");             /* the longest run */
    addr6_str("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1");    /* one zero group stays */
    addr6_str("2001:db8::abcd:ef01", "2001:db8::abcd:ef01");
    addr6_str("::ffff:192.0.2.1", "::ffff:192.0.2.1");            /* IPv4-mapped */
    addr6_str("::1:2", "::1:2");                                  /* not ::0.1.0.2 */
    addr6_str("fe80::200:5eff:fe00:5301", "fe80::200:5eff:fe00:5301");
    addr6_str("1:2:3:4:5:6:7:0", "1:2:3:4:5:6:7:0");
    addr6_str("0:0:1::", "0:0:1::");
    addr6_str("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
    pkt_addr a = {.family = 4, .a = {255, 0, 10, 99}};
    char buf[46];
    T_STREQ(pkt_addr_str(&a, buf, sizeof buf), "255.0.10.99");
    char small[6];
    T_STREQ(pkt_addr_str(&a, small, sizeof small), "255.0");
    T_STREQ(pkt_status_str(PKT_TRUNCATED), "truncated");
    T_STREQ(pkt_status_str(PKT_INVALID), "invalid");
}

int main(void)
{
    t_name = "audit_pkt";
    test_linktypes_and_every_prefix();
    test_rfc791_header_invalid();
    test_rfc791_total_length_trims_padding();
    test_rfc9293_options();
    test_ieee8021q_depth();
    test_not_tcp();
    test_rfc8200_ext_invalid();
    test_fragments();
    test_parse_l4();
    test_damage_never_overreads();
    test_rfc5952_text();
    return t_done();
}

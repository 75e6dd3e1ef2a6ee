/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Packet layer of mpa-audit: link layer -> IPv4 / IPv6 -> TCP.
 *
 * Follows:
 *   tcpdump.org LINKTYPE list (NULL 0, ETHERNET 1, RAW 101, LOOP 108,
 *     LINUX_SLL 113, IPV4 228, IPV6 229, LINUX_SLL2 276) and the
 *     linktype pages for SLL / SLL2 header layouts;
 *   IEEE 802.1Q (C-tag 0x8100, S-tag 0x88a8, and the pre-standard 0x9100);
 *   RFC 791 (IPv4, fragmentation), RFC 8200 (IPv6, extension headers,
 *     fragments; RFC 5722 / 7112 context), RFC 4302 (AH length),
 *     RFC 2675 (jumbograms, refused), RFC 6946 (atomic fragments);
 *   RFC 9293 (TCP header, options; obsoletes 793), RFC 7323 (window scale);
 *   RFC 5952 (IPv6 text form).
 *
 * Bounds: each header is checked once against the captured length and
 * then read at fixed offsets inside the checked span (the tcpdump
 * ND_TCHECK + EXTRACT pattern without longjmp).  Doing the check per
 * header rather than per field keeps the Ethernet/IPv4/TCP path
 * straight-line; every read below sits under a check that covers it.
 *
 * A header cut short is TRUNCATED when the capture cut it (caplen <
 * wirelen, or a reassembled datagram of which only a prefix was captured)
 * and INVALID when the packet itself was that short: then the frame, not
 * the capture, contradicts the header.  A declared length beyond what
 * exists is INVALID when it contradicts an enclosing length (TCP data
 * offset past the IP payload).
 */
#include "pkt.h"

#include <string.h>

typedef struct cur {
    const uint8_t *d;
    pkt *out;
    uint8_t snapped; /* octets beyond d[cap) existed on the wire */
} cur;

static inline uint32_t be16(const uint8_t *p)
{
    return (uint32_t)p[0] << 8 | p[1];
}

static inline uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static pkt_status fail(pkt *out, pkt_status st, uint32_t where, const char *why)
{
    out->why = why;
    out->where = where;
    return st;
}

static pkt_status cut(const cur *c, uint32_t where, const char *snap_why, const char *runt_why)
{
    return c->snapped ? fail(c->out, PKT_TRUNCATED, where, snap_why)
                      : fail(c->out, PKT_INVALID, where, runt_why);
}

/* Both texts are literals, so `why` stays static. */
#define CUT(c, w, what) cut((c), (w), "capture ends inside the " what, "packet ends inside the " what)

/* TCP header at o; the IP payload ends at cap_end (captured) and
 * wire_end (declared).  cap_end <= wire_end. */
static pkt_status tcp(const cur *c, uint32_t o, uint32_t cap_end, uint32_t wire_end)
{
    pkt *out = c->out;
    if (wire_end - o < 20)
        return fail(out, PKT_INVALID, o, "TCP header (20 octets) longer than the IP payload");
    if (cap_end - o < 20)
        return CUT(c, o, "TCP header");
    const uint8_t *h = c->d + o;
    uint32_t doff = (uint32_t)(h[12] >> 4) * 4;
    if (doff < 20)
        return fail(out, PKT_INVALID, o + 12, "TCP data offset < 5");
    if (doff > wire_end - o)
        return fail(out, PKT_INVALID, o + 12, "TCP data offset past the end of the IP payload");
    if (doff > cap_end - o)
        return CUT(c, o + 20, "TCP options");

    pkt_tcp *t = &out->tcp;
    t->sport = (uint16_t)be16(h);
    t->dport = (uint16_t)be16(h + 2);
    t->seq = be32(h + 4);
    t->ack = be32(h + 8);
    t->flags = h[13];
    t->win = (uint16_t)be16(h + 14);
    t->mss = 0;
    t->wscale = -1;
    if (doff > 20) {
        /* RFC 9293 3.2: kinds 0 and 1 are one octet, every other kind
         * has a length octet counting itself and the kind. */
        uint32_t i = 20;
        while (i < doff) {
            uint8_t kind = h[i];
            if (kind == 0)
                break;
            if (kind == 1) {
                i++;
                continue;
            }
            if (doff - i < 2)
                return fail(out, PKT_INVALID, o + i, "TCP option length octet past the header");
            uint8_t len = h[i + 1];
            if (len < 2)
                return fail(out, PKT_INVALID, o + i + 1, "TCP option length < 2");
            if (len > doff - i)
                return fail(out, PKT_INVALID, o + i + 1, "TCP option runs past the header");
            if (kind == 2) {
                if (len != 4)
                    return fail(out, PKT_INVALID, o + i + 1, "TCP MSS option length != 4");
                t->mss = (uint16_t)be16(h + i + 2);
            } else if (kind == 3) {
                if (len != 3)
                    return fail(out, PKT_INVALID, o + i + 1, "TCP window scale option length != 3");
                /* RFC 7323 2.3: > 14 is an error the caller may report;
                 * keep the value (capped to fit) rather than hide it. */
                t->wscale = (int8_t)(h[i + 2] > 127 ? 127 : h[i + 2]);
            }
            i += len;
        }
    }
    t->payload = h + doff;
    t->payload_len = cap_end - o - doff;
    t->payload_wire = wire_end - o - doff;
    if (t->payload_len < t->payload_wire) {
        /* Usable, but the tail is missing: say whose fault. */
        out->why = c->snapped ? "capture ends inside the TCP payload"
                              : "packet ends inside the TCP payload";
        out->where = o + doff;
    }
    return PKT_OK;
}

/* IP protocol numbers that carry another IP packet: not TCP, but not
 * something to skip silently either. */
static pkt_status tunnel(pkt *out, uint8_t proto, uint32_t where)
{
    switch (proto) {
    case 4:
        return fail(out, PKT_UNSUPPORTED, where, "IP-in-IP (protocol 4) not decoded");
    case 41:
        return fail(out, PKT_UNSUPPORTED, where, "IPv6-in-IP (protocol 41) not decoded");
    case 47:
        return fail(out, PKT_UNSUPPORTED, where, "GRE (protocol 47) not decoded");
    default:
        return PKT_NOT_TCP;
    }
}

/* RFC 8200 4: the extension header chain from o (the octet after the
 * fixed header, or the start of a reassembled payload when reasm).  nh_at
 * is the offset of the Next Header field naming the header at o, for
 * `where`; first is where Hop-by-Hop alone may sit. */
static pkt_status ip6_chain(const cur *c, uint8_t nh, uint32_t nh_at, uint32_t o, uint32_t first,
                            uint32_t cap_end, uint32_t wire_end, int reasm)
{
    pkt *out = c->out;
    for (;;) {
        uint32_t hlen;
        switch (nh) {
        case 6:
            out->ip.proto = 6;
            return tcp(c, o, cap_end, wire_end);
        case 0:
            if (reasm || o != first)
                return fail(out, PKT_INVALID, nh_at, "IPv6 Hop-by-Hop Options header not first (RFC 8200 4.1)");
            /* fall through */
        case 43:
        case 60:
        case 51:
            if (wire_end - o < 2)
                return fail(out, PKT_INVALID, o, "IPv6 extension header past the payload length");
            if (cap_end - o < 2)
                return CUT(c, o, "IPv6 extension header");
            /* AH (RFC 4302 2.2) counts 4-octet units minus 2; the others
             * 8-octet units minus 1. */
            hlen = nh == 51 ? ((uint32_t)c->d[o + 1] + 2) * 4 : ((uint32_t)c->d[o + 1] + 1) * 8;
            if (hlen > wire_end - o)
                return fail(out, PKT_INVALID, o + 1, "IPv6 extension header length past the payload length");
            if (hlen > cap_end - o)
                return CUT(c, o, "IPv6 extension header");
            nh_at = o;
            nh = c->d[o];
            o += hlen;
            continue;
        case 44: {
            if (wire_end - o < 8)
                return fail(out, PKT_INVALID, o, "IPv6 Fragment header past the payload length");
            if (cap_end - o < 8)
                return CUT(c, o, "IPv6 Fragment header");
            const uint8_t *h = c->d + o;
            uint32_t offm = be16(h + 2);
            uint32_t off = offm & 0xFFF8u;
            uint8_t more = offm & 1;
            if (off == 0 && !more) {
                /* RFC 6946: an atomic fragment is the whole packet. */
                nh_at = o;
                nh = h[0];
                o += 8;
                continue;
            }
            if (reasm)
                return fail(out, PKT_UNSUPPORTED, o, "IPv6 Fragment header inside a reassembled datagram");
            uint32_t wire_len = wire_end - o - 8;
            if (more && (wire_len & 7))
                return fail(out, PKT_INVALID, first - 36, /* the Payload Length field */
                            "IPv6 fragment with M=1 not a multiple of 8 octets (RFC 8200 4.5)");
            /* The reassembled Payload Length counts the unfragmentable
             * extension headers (all before this one) too. */
            if ((o - first) + off + wire_len > 65535)
                return fail(out, PKT_INVALID, o + 2, "IPv6 fragment ends past 65535 octets (RFC 8200 4.5)");
            pkt_frag *f = &out->frag;
            f->id = be32(h + 4);
            f->offset = off;
            f->more = more;
            f->proto = h[0];
            f->data = h + 8;
            f->len = cap_end - o - 8;
            f->wire_len = wire_len;
            out->ip.proto = h[0];
            return PKT_FRAGMENT;
        }
        case 50:
        case 59:
            out->ip.proto = nh;
            return PKT_NOT_TCP;
        default:
            out->ip.proto = nh;
            return tunnel(out, nh, nh_at);
        }
    }
}

static void addr4(pkt_addr *a, const uint8_t *p)
{
    a->family = 4;
    memcpy(a->a, p, 4);
    memset(a->a + 4, 0, 12); /* callers hash and compare all 16 */
}

static void addr6(pkt_addr *a, const uint8_t *p)
{
    a->family = 6;
    memcpy(a->a, p, 16);
}

/* RFC 791 3.1 */
static pkt_status ipv4(const cur *c, uint32_t cap, uint32_t o)
{
    pkt *out = c->out;
    if (cap - o < 20)
        return CUT(c, o, "IPv4 header");
    const uint8_t *h = c->d + o;
    if ((h[0] >> 4) != 4)
        return fail(out, PKT_INVALID, o, "IPv4 version != 4");
    uint32_t ihl = (uint32_t)(h[0] & 15) * 4;
    if (ihl < 20)
        return fail(out, PKT_INVALID, o, "IPv4 IHL < 5");
    uint32_t tot = be16(h + 2);
    if (tot < ihl)
        return fail(out, PKT_INVALID, o + 2, "IPv4 total length < header length");
    if (cap - o < ihl)
        return CUT(c, o + 20, "IPv4 options");
    out->ip.version = 4;
    out->ip.proto = h[9];
    addr4(&out->ip.src, h + 12);
    addr4(&out->ip.dst, h + 16);
    /* The total length trims link padding (and a trailing FCS). */
    uint32_t wire_end = o + tot;
    uint32_t cap_end = wire_end < cap ? wire_end : cap;
    uint32_t ff = be16(h + 6);
    if (ff & 0x3FFFu) {
        uint32_t off = (ff & 0x1FFFu) * 8;
        uint32_t wire_len = tot - ihl;
        uint8_t more = (ff & 0x2000u) != 0;
        /* RFC 791: every fragment but the last ends on an 8-octet
         * boundary, and the datagram's total length fits 16 bits. */
        if (more && (wire_len & 7))
            return fail(out, PKT_INVALID, o + 2, "IPv4 fragment with MF set not a multiple of 8 octets");
        if (ihl + off + wire_len > 65535)
            return fail(out, PKT_INVALID, o + 6, "IPv4 fragment ends past 65535 octets");
        pkt_frag *f = &out->frag;
        f->id = be16(h + 4);
        f->offset = off;
        f->more = more;
        f->proto = h[9];
        f->data = h + ihl;
        f->len = cap_end > o + ihl ? cap_end - o - ihl : 0;
        f->wire_len = wire_len;
        return PKT_FRAGMENT;
    }
    if (h[9] == 6)
        return tcp(c, o + ihl, cap_end, wire_end);
    return tunnel(out, h[9], o + 9);
}

/* RFC 2675: payload length 0 with a Jumbo Payload option (type 0xC2) in
 * the Hop-by-Hop header.  h points at that header, n octets captured.
 * 1: found; 0: not there; -1: the capture ends before the header does. */
static int has_jumbo(const uint8_t *h, uint32_t n)
{
    if (n < 2)
        return -1;
    uint32_t end = ((uint32_t)h[1] + 1) * 8;
    int cut = end > n;
    if (cut)
        end = n;
    for (uint32_t i = 2; i < end;) {
        if (h[i] == 0xC2)
            return 1;
        if (h[i] == 0) { /* Pad1 */
            i++;
            continue;
        }
        if (end - i < 2)
            return -1;
        i += 2 + (uint32_t)h[i + 1];
    }
    return cut ? -1 : 0;
}

/* RFC 8200 3 */
static pkt_status ipv6(const cur *c, uint32_t cap, uint32_t o)
{
    pkt *out = c->out;
    if (cap - o < 40)
        return CUT(c, o, "IPv6 header");
    const uint8_t *h = c->d + o;
    if ((h[0] >> 4) != 6)
        return fail(out, PKT_INVALID, o, "IPv6 version != 6");
    uint32_t plen = be16(h + 4);
    uint8_t nh = h[6];
    out->ip.version = 6;
    out->ip.proto = nh;
    addr6(&out->ip.src, h + 8);
    addr6(&out->ip.dst, h + 24);
    if (plen == 0 && nh == 0) {
        int j = has_jumbo(h + 40, cap - o - 40);
        if (j > 0)
            return fail(out, PKT_UNSUPPORTED, o + 4,
                        "IPv6 payload length 0 with a Jumbo Payload option (RFC 2675): jumbograms not supported");
        if (j < 0)
            return CUT(c, o + 40, "IPv6 Hop-by-Hop header");
    }
    uint32_t wire_end = o + 40 + plen;
    uint32_t cap_end = wire_end < cap ? wire_end : cap;
    return ip6_chain(c, nh, o + 6, o + 40, o + 40, cap_end, wire_end, 0);
}

/* EtherType et (read at et_at) names the header at o; 802.1Q tags
 * (4 octets: TCI, then the next EtherType) are unwound. */
static pkt_status ethertype(const cur *c, uint32_t cap, uint32_t et, uint32_t et_at, uint32_t o)
{
    pkt *out = c->out;
    for (;;) {
        if (et == 0x0800)
            return ipv4(c, cap, o);
        if (et == 0x86DD)
            return ipv6(c, cap, o);
        if (et == 0x8100 || et == 0x88A8 || et == 0x9100) {
            if (out->ip.nvlan == PKT_MAX_VLAN)
                return fail(out, PKT_UNSUPPORTED, et_at, "more VLAN tags than PKT_MAX_VLAN");
            if (cap - o < 4)
                return CUT(c, o, "802.1Q tag");
            out->ip.vlan[out->ip.nvlan++] = (uint16_t)(be16(c->d + o) & 0x0FFF);
            et_at = o + 2;
            et = be16(c->d + et_at);
            o += 4;
            continue;
        }
        switch (et) {
        case 0x8847:
        case 0x8848:
            return fail(out, PKT_UNSUPPORTED, et_at, "MPLS not decoded");
        case 0x8864:
            return fail(out, PKT_UNSUPPORTED, et_at, "PPPoE session not decoded");
        default:
            return PKT_NOT_TCP; /* ARP, LLDP, an 802.3 length, ... */
        }
    }
}

/* The BSD AF_ value of a NULL / LOOP header. */
static pkt_status af(const cur *c, uint32_t cap, uint32_t v)
{
    switch (v) {
    case 2:
        return ipv4(c, cap, 4);
    case 10: /* Linux */
    case 24: /* NetBSD, OpenBSD */
    case 28: /* FreeBSD */
    case 30: /* Darwin */
        return ipv6(c, cap, 4);
    default:
        return PKT_NOT_TCP;
    }
}

pkt_status pkt_parse(int linktype, const uint8_t *data, uint32_t caplen, uint32_t wirelen, pkt *out)
{
    cur c = {data, out, caplen < wirelen};
    out->ip.nvlan = 0;
    out->why = NULL;
    out->where = 0;
    switch (linktype) {
    case PKT_LINK_ETHERNET:
        if (caplen < 14)
            return CUT(&c, 0, "Ethernet header");
        return ethertype(&c, caplen, be16(data + 12), 12, 14);
    case PKT_LINK_NULL: {
        if (caplen < 4)
            return CUT(&c, 0, "loopback header");
        /* Written in the capturing host's order: the family is a small
         * number, so whichever end holds the three zero octets tells. */
        uint32_t v;
        if (data[1] == 0 && data[2] == 0 && data[3] == 0)
            v = data[0];
        else if (data[0] == 0 && data[1] == 0 && data[2] == 0)
            v = data[3];
        else
            return PKT_NOT_TCP;
        return af(&c, caplen, v);
    }
    case PKT_LINK_LOOP:
        if (caplen < 4)
            return CUT(&c, 0, "loopback header");
        return af(&c, caplen, be32(data));
    case PKT_LINK_RAW:
        if (caplen < 1)
            return CUT(&c, 0, "IP header");
        switch (data[0] >> 4) {
        case 4:
            return ipv4(&c, caplen, 0);
        case 6:
            return ipv6(&c, caplen, 0);
        default:
            return fail(out, PKT_INVALID, 0, "raw IP version not 4 or 6");
        }
    case PKT_LINK_IPV4:
        return ipv4(&c, caplen, 0);
    case PKT_LINK_IPV6:
        return ipv6(&c, caplen, 0);
    case PKT_LINK_LINUX_SLL:
        if (caplen < 16)
            return CUT(&c, 0, "Linux cooked (SLL) header");
        return ethertype(&c, caplen, be16(data + 14), 14, 16);
    case PKT_LINK_LINUX_SLL2:
        if (caplen < 20)
            return CUT(&c, 0, "Linux cooked (SLL2) header");
        /* The protocol leads the header; the L3 header follows it. */
        return ethertype(&c, caplen, be16(data), 0, 20);
    default:
        return fail(out, PKT_UNSUPPORTED, 0, "link type not supported");
    }
}

pkt_status pkt_parse_l4_cut(uint8_t proto, const uint8_t *data, uint32_t caplen, uint32_t wirelen, pkt *out)
{
    if (wirelen < caplen)
        wirelen = caplen;
    cur c = {data, out, caplen < wirelen};
    out->why = NULL;
    out->where = 0;
    out->ip.proto = proto;
    if (proto == 6)
        return tcp(&c, 0, caplen, wirelen);
    if (out->ip.version == 6)
        return ip6_chain(&c, proto, 0, 0, 0, caplen, wirelen, 1);
    return tunnel(out, proto, 0);
}

pkt_status pkt_parse_l4(uint8_t proto, const uint8_t *data, uint32_t len, pkt *out)
{
    return pkt_parse_l4_cut(proto, data, len, len, out);
}

const char *pkt_status_str(pkt_status st)
{
    switch (st) {
    case PKT_OK:
        return "ok";
    case PKT_NOT_TCP:
        return "not TCP";
    case PKT_FRAGMENT:
        return "fragment";
    case PKT_TRUNCATED:
        return "truncated";
    case PKT_INVALID:
        return "invalid";
    case PKT_UNSUPPORTED:
        return "unsupported";
    }
    return "?";
}

static char *put_dec(char *p, unsigned v)
{
    if (v >= 100)
        *p++ = (char)('0' + v / 100);
    if (v >= 10)
        *p++ = (char)('0' + v / 10 % 10);
    *p++ = (char)('0' + v % 10);
    return p;
}

static char *put_v4(char *p, const uint8_t *a)
{
    for (int i = 0; i < 4; i++) {
        if (i)
            *p++ = '.';
        p = put_dec(p, a[i]);
    }
    return p;
}

/* RFC 5952 4: no leading zeros, lowercase, "::" for the longest run of
 * two or more zero groups (the first on a tie); 5: IPv4-mapped addresses
 * end in dotted decimal. */
const char *pkt_addr_str(const pkt_addr *a, char *buf, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    char tmp[48];
    char *p = tmp;
    if (a->family == 4) {
        p = put_v4(p, a->a);
    } else {
        uint32_t g[8];
        for (int i = 0; i < 8; i++)
            g[i] = be16(a->a + 2 * i);
        int mapped = g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 0 && g[4] == 0 && g[5] == 0xFFFF;
        int ngroups = mapped ? 6 : 8;
        int best = -1, bestlen = 1;
        for (int i = 0; i < ngroups;) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < ngroups && g[j] == 0)
                j++;
            if (j - i > bestlen) {
                best = i;
                bestlen = j - i;
            }
            i = j;
        }
        for (int i = 0; i < ngroups; i++) {
            if (i == best) {
                *p++ = ':';
                *p++ = ':';
                i += bestlen - 1;
                continue;
            }
            if (i && i != best + bestlen)
                *p++ = ':';
            int started = 0;
            for (int s = 12; s >= 0; s -= 4) {
                unsigned nib = (g[i] >> s) & 15;
                if (nib || started || s == 0) {
                    *p++ = hex[nib];
                    started = 1;
                }
            }
        }
        if (mapped) {
            if (best + bestlen != 6)
                *p++ = ':';
            p = put_v4(p, a->a + 12);
        }
    }
    *p = '\0';
    if (cap) {
        size_t n = (size_t)(p - tmp);
        if (n >= cap)
            n = cap - 1;
        memcpy(buf, tmp, n);
        buf[n] = '\0';
    }
    return buf;
}

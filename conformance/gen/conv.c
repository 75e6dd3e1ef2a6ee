/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The TCP conversation model.  See conv.h.
 *
 * Sequence and acknowledgment numbers follow RFC 9293 3.4: the SYN takes
 * one sequence number (so the first payload octet is ISN + 1; we choose
 * the ISN as the scenario's isn - 1 so that its first payload octet has
 * the scenario's number, which the MPA markers were laid out for), each
 * payload octet one, the FIN one.  Every segment after the SYN carries
 * ACK with everything the sender has received (the capture is taken
 * where both directions are seen, so "received" = "sent by the peer").
 * The receiver acknowledges every second segment (the delayed-ACK rule
 * of RFC 9293 3.8.6.3 / RFC 1122 4.2.3.2) when it has no data to send.
 */
#include "conv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        perror("mpa-capgen: malloc");
        exit(2);
    }
    return p;
}

static void own(conv *c, void *p)
{
    if (c->nown == c->capown) {
        c->capown = c->capown ? c->capown * 2 : 16;
        void **q = realloc(c->own, c->capown * sizeof *q);
        if (!q) {
            perror("mpa-capgen: realloc");
            exit(2);
        }
        c->own = q;
    }
    c->own[c->nown++] = p;
}

const char *conv_str(conv *c, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    size_t n = strlen(tmp) + 1;
    char *s = xmalloc(n);
    memcpy(s, tmp, n);
    own(c, s);
    return s;
}

void conv_init(conv *c, const netpath *np)
{
    memset(c, 0, sizeof *c);
    c->np = *np;
}

void conv_free(conv *c)
{
    for (size_t i = 0; i < c->nown; i++)
        free(c->own[i]);
    free(c->own);
    free(c->dbuf[0]);
    free(c->dbuf[1]);
    free(c->p);
    memset(c, 0, sizeof *c);
}

/* Inserts a packet at position at (at == c->n appends); returns it. */
static tpkt *insert(conv *c, size_t at)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        tpkt *q = realloc(c->p, c->cap * sizeof *q);
        if (!q) {
            perror("mpa-capgen: realloc");
            exit(2);
        }
        c->p = q;
    }
    memmove(c->p + at + 1, c->p + at, (c->n - at) * sizeof *c->p);
    c->n++;
    tpkt *k = &c->p[at];
    memset(k, 0, sizeof *k);
    k->wscale = -1;
    k->proto = NET_PROTO_TCP;
    k->win = CONV_WIN;
    return k;
}

static tpkt *tcp_pkt(conv *c, int dir, uint8_t flags, uint32_t seq, uint32_t ack)
{
    tpkt *k = insert(c, c->n);
    k->dir = (uint8_t)dir;
    k->flags = flags;
    k->seq = seq;
    k->ack = ack;
    k->sport = c->port[dir];
    k->dport = c->port[!dir];
    return k;
}

static int is_data(const tpkt *k)
{
    return k->proto == NET_PROTO_TCP && k->len > 0;
}

void conv_tcp_from_scen(conv *c, const cs_scen *s, const conv_opts *o)
{
    c->port[0] = o->port[0];
    c->port[1] = o->port[1];
    c->isn[0] = o->isn_set ? o->isn[0] : s->isn[0];
    c->isn[1] = o->isn_set ? o->isn[1] : s->isn[1];
    unsigned ack_every = o->ack_every ? o->ack_every : 2;

    /* Each direction's octets in sequence order, so that any span of
     * them (a retransmission cut differently) is one pointer. */
    size_t total[2] = {0, 0};
    for (size_t i = 0; i < s->nch; i++)
        if (s->ch[i].kind == CS_DATA || s->ch[i].kind == CS_LOST)
            total[s->ch[i].dir] += s->ch[i].len;
    for (int d = 0; d < 2; d++) {
        free(c->dbuf[d]);
        c->dbuf[d] = xmalloc(total[d]);
        c->dlen[d] = 0;
    }
    for (size_t i = 0; i < s->nch; i++) {
        const cs_chunk *ch = &s->ch[i];
        if (ch->kind == CS_DATA || ch->kind == CS_LOST) {
            memcpy(c->dbuf[ch->dir] + c->dlen[ch->dir], s->buf + ch->off, ch->len);
            c->dlen[ch->dir] += ch->len;
        }
    }

    uint32_t nxt[2] = {c->isn[0], c->isn[1]};
    size_t off[2] = {0, 0};
    unsigned pending[2] = {0, 0}; /* segments of dir the peer has not acknowledged */
    int rst = 0;
    size_t c0 = 0;
    const size_t room = net_ip_room(&c->np) - 20; /* TCP header without options */
    const size_t max_seg = room < CONV_MSS_DEFAULT ? room : CONV_MSS_DEFAULT;

    if (s->midstream) {
        /* The capture starts at start_chunk: what came before still took
         * its sequence numbers (and the SYNs theirs). */
        c0 = s->start_chunk < s->nch ? s->start_chunk : s->nch;
        for (size_t i = 0; i < c0; i++) {
            const cs_chunk *ch = &s->ch[i];
            if (ch->kind == CS_DATA || ch->kind == CS_LOST) {
                nxt[ch->dir] += (uint32_t)ch->len;
                off[ch->dir] += ch->len;
            } else if (ch->kind == CS_FIN) {
                nxt[ch->dir]++;
            }
        }
    } else {
        /* Three-way handshake (RFC 9293 3.5).  The MSS option a side
         * sends is what it can receive, i.e. the EMSS of the peer's
         * sending direction: scen->emss[d] is the EMSS of d's sender, so
         * it travels in the SYN of the other side. */
        tpkt *k = tcp_pkt(c, 0, TCP_SYN, c->isn[0] - 1, 0);
        k->mss = s->emss[1] ? s->emss[1] : CONV_MSS_DEFAULT;
        k->wscale = CONV_WSCALE;
        k->win = CONV_SYN_WIN;
        k = tcp_pkt(c, 1, TCP_SYN | TCP_ACK, c->isn[1] - 1, c->isn[0]);
        k->mss = s->emss[0] ? s->emss[0] : CONV_MSS_DEFAULT;
        k->wscale = CONV_WSCALE;
        k->win = CONV_SYN_WIN;
        tcp_pkt(c, 0, TCP_ACK, c->isn[0], c->isn[1]);
    }

    for (size_t i = c0; i < s->nch; i++) {
        const cs_chunk *ch = &s->ch[i];
        int d = ch->dir;
        if (ch->kind == CS_DATA || ch->kind == CS_LOST) {
            size_t left = ch->len;
            while (left) {
                size_t n = left < max_seg ? left : max_seg;
                tpkt *k = tcp_pkt(c, d, TCP_ACK, nxt[d], nxt[!d]);
                k->data = c->dbuf[d] + off[d];
                k->len = n;
                k->lost = ch->kind == CS_LOST;
                left -= n;
                if (!left)
                    k->flags |= TCP_PSH;
                nxt[d] += (uint32_t)n;
                off[d] += n;
                pending[!d] = 0;
                if (++pending[d] >= ack_every && !rst) {
                    tcp_pkt(c, !d, TCP_ACK, nxt[!d], nxt[d]);
                    pending[d] = 0;
                }
            }
        } else if (ch->kind == CS_FIN) {
            tcp_pkt(c, d, TCP_FIN | TCP_ACK, nxt[d], nxt[!d]);
            nxt[d]++;
            pending[!d] = 0;
            pending[d] = 0;
            /* The peer acknowledges the FIN, with its own FIN or RST when
             * that comes next, else with a pure ACK now. */
            const cs_chunk *nx = i + 1 < s->nch ? &s->ch[i + 1] : NULL;
            int peer_next = nx && nx->dir == !d && nx->kind != CS_LOST;
            if (!peer_next && !rst)
                tcp_pkt(c, !d, TCP_ACK, nxt[!d], nxt[d]);
        } else if (ch->kind == CS_RST) {
            tcp_pkt(c, d, TCP_RST | TCP_ACK, nxt[d], nxt[!d]);
            rst = 1;
        }
    }
    /* Whatever data is left unacknowledged gets its ACK at the end. */
    for (int d = 0; d < 2 && !rst && !o->no_final_acks; d++)
        if (pending[d])
            tcp_pkt(c, !d, TCP_ACK, nxt[!d], nxt[d]);
}

void conv_udp(conv *c, int dir, uint16_t sport, uint16_t dport, const void *payload, size_t len,
              const char *comment)
{
    uint8_t *copy = xmalloc(len);
    memcpy(copy, payload, len);
    own(c, copy);
    tpkt *k = insert(c, c->n);
    k->dir = (uint8_t)dir;
    k->proto = NET_PROTO_UDP;
    k->sport = sport;
    k->dport = dport;
    k->data = copy;
    k->len = len;
    k->comment = comment;
}

void conv_arp(conv *c, int dir, int op)
{
    tpkt *k = insert(c, c->n);
    k->dir = (uint8_t)dir;
    k->proto = 0;
    k->flags = (uint8_t)op;
}

/* ---- variants ---------------------------------------------------------- */

int conv_reorder(conv *c, int dir, unsigned nth)
{
    for (size_t i = 0; i + 1 < c->n; i++) {
        tpkt *a = &c->p[i], *b = &c->p[i + 1];
        if (a->dir != dir || b->dir != dir || !is_data(a) || !is_data(b) || a->lost || b->lost ||
            b->seq != a->seq + (uint32_t)a->len)
            continue;
        if (nth--)
            continue;
        tpkt t = *a;
        *a = *b;
        *b = t;
        a->comment = conv_str(c, "out of order: sent after the next packet (seq %u), arrives first",
                              (unsigned)b->seq);
        b->comment = conv_str(c, "out of order: sent before the previous packet, arrives second");
        return 0;
    }
    return -1;
}

/* Position of the nth data packet of dir (captured) with len >= min. */
static long nth_data(const conv *c, int dir, unsigned nth, size_t min)
{
    for (size_t i = 0; i < c->n; i++) {
        const tpkt *k = &c->p[i];
        if (k->dir == dir && is_data(k) && !k->lost && k->len >= min && nth-- == 0)
            return (long)i;
    }
    return -1;
}

int conv_retrans_reseg(conv *c, int dir, unsigned nth)
{
    /* Data packets of dir in list order; find three in a row in
     * sequence space. */
    size_t idx[3];
    unsigned have = 0;
    for (size_t i = 0; i < c->n; i++) {
        tpkt *k = &c->p[i];
        if (k->dir != dir || !is_data(k))
            continue;
        if (k->lost) {
            have = 0;
            continue;
        }
        if (have && k->seq != c->p[idx[have - 1]].seq + (uint32_t)c->p[idx[have - 1]].len)
            have = 0;
        idx[have++] = i;
        if (have < 3)
            continue;
        if (nth--) {
            idx[0] = idx[1];
            idx[1] = idx[2];
            have = 2;
            continue;
        }
        const tpkt A = c->p[idx[0]], B = c->p[idx[1]], C = c->p[idx[2]];
        /* From a third into A to two thirds into C, cut in the middle of
         * B's octets: no original boundary is reused. */
        uint32_t s0 = A.seq + (uint32_t)(A.len / 3);
        uint32_t s2 = C.seq + (uint32_t)(C.len * 2 / 3);
        uint32_t s1 = B.seq + (uint32_t)(B.len / 2);
        if (s1 == s0 || s1 == s2 || B.len < 2)
            return -1;
        /* A.data points at A.seq in the direction's contiguous octets. */
        size_t at = idx[2] + 1;
        tpkt r = C;
        r.seq = s0;
        r.data = A.data + (s0 - A.seq);
        r.len = s1 - s0;
        r.flags = TCP_ACK;
        r.frag = 0;
        r.comment = conv_str(c, "retransmission, cut differently: octets %u..%u (counted from this "
                                "direction's first payload octet) again",
                             (unsigned)(s0 - c->isn[dir]), (unsigned)(s1 - c->isn[dir]));
        *insert(c, at) = r;
        r.seq = s1;
        r.data = A.data + (s1 - A.seq);
        r.len = s2 - s1;
        r.flags = TCP_ACK | TCP_PSH;
        r.comment = conv_str(c, "retransmission, second part: octets %u..%u again",
                             (unsigned)(s1 - c->isn[dir]), (unsigned)(s2 - c->isn[dir]));
        *insert(c, at + 1) = r;
        return 0;
    }
    return -1;
}

int conv_retrans_same(conv *c, int dir, unsigned nth)
{
    long i = nth_data(c, dir, nth, 64);
    if (i < 0)
        return -1;
    tpkt *r = insert(c, (size_t)i + 1);
    *r = c->p[i];
    r->frag = 0;
    r->comment = conv_str(c, "retransmission of the previous segment, cut as it was");
    return 0;
}

int conv_overlap(conv *c, int dir, unsigned nth)
{
    long i = nth_data(c, dir, nth, 64);
    if (i < 0)
        return -1;
    tpkt orig = c->p[i];
    uint8_t *copy = xmalloc(orig.len);
    memcpy(copy, orig.data, orig.len);
    own(c, copy);
    size_t mid = orig.len / 2;
    for (size_t k = 0; k < 4; k++)
        copy[mid + k] ^= 0x5A;
    tpkt *r = insert(c, (size_t)i + 1);
    *r = orig;
    r->data = copy;
    r->frag = 0;
    r->comment = conv_str(c, "conflicting retransmission: same sequence numbers as the previous "
                             "segment, octets %zu..%zu differ (the first copy is the one kept)",
                          mid, mid + 3);
    return 0;
}

int conv_stray(conv *c, int dir, unsigned nth, uint32_t delta)
{
    long i = nth_data(c, dir, nth, 1);
    if (i < 0)
        return -1;
    tpkt r = c->p[i];
    r.seq += delta;
    r.flags = TCP_ACK;
    r.frag = 0;
    /* A small step back lands inside octets the direction sent: the
     * stray carries those true octets too (an overlapping resend). */
    uint32_t back = (uint32_t)0 - delta;
    size_t before = (size_t)(r.data - c->dbuf[dir]);
    if (back && back <= before && back <= 64) {
        r.data -= back;
        r.len += back;
        r.comment = conv_str(c, "sequence number %u octet%s back (seq + %u modulo 2^32): a resend of "
                                "the true octets from there",
                             (unsigned)back, back == 1 ? "" : "s", (unsigned)delta);
    } else {
        r.comment = conv_str(c, "stray copy of the next segment with its sequence number moved by %u "
                                "(modulo 2^32: %s%u)",
                             (unsigned)delta, (int32_t)delta < 0 ? "-" : "+",
                             (int32_t)delta < 0 ? (unsigned)back : (unsigned)delta);
    }
    *insert(c, (size_t)i) = r;
    return 0;
}

int conv_stray_ack(conv *c, int dir, unsigned nth, uint32_t delta)
{
    long i = nth_data(c, dir, nth, 1);
    if (i < 0)
        return -1;
    const tpkt k = c->p[i];
    tpkt *r = insert(c, (size_t)i + 1);
    r->dir = (uint8_t)!dir;
    r->flags = TCP_ACK;
    r->sport = k.dport;
    r->dport = k.sport;
    r->seq = k.ack;
    r->ack = k.seq + (uint32_t)k.len + delta;
    r->comment = conv_str(c, "acknowledgment number %u octets past what was sent", (unsigned)delta);
    return 0;
}

void conv_fragment_big(conv *c, unsigned frag)
{
    size_t ext = c->np.family == 6 && c->np.v6_ext ? 16 : 0; /* Destination Options */
    for (size_t i = 0; i < c->n; i++) {
        tpkt *k = &c->p[i];
        if (k->proto == NET_PROTO_TCP && ext + 20 + k->len > frag)
            k->frag = (uint16_t)frag;
    }
}

int conv_fragment_nth(conv *c, int dir, unsigned nth, unsigned size, int rev)
{
    long i = nth_data(c, dir, nth, 1);
    if (i < 0)
        return -1;
    c->p[i].frag = (uint16_t)size;
    c->p[i].frag_rev = (uint8_t)rev;
    if (rev)
        c->p[i].comment = "fragments sent last first";
    return 0;
}

uint64_t conv_times(conv *c, uint64_t t0, uint64_t step_ns)
{
    for (size_t i = 0; i < c->n; i++)
        c->p[i].ts = t0 + i * step_ns;
    return t0 + c->n * step_ns;
}

size_t conv_data_packets(const conv *c, int dir)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n; i++)
        if (c->p[i].dir == dir && is_data(&c->p[i]) && !c->p[i].lost)
            n++;
    return n;
}

/* ---- writing ------------------------------------------------------------ */

typedef struct ref {
    uint64_t ts;
    uint32_t ci;
    uint32_t pi;
} ref;

static int ref_cmp(const void *a, const void *b)
{
    const ref *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->ci != y->ci)
        return x->ci < y->ci ? -1 : 1;
    return x->pi < y->pi ? -1 : x->pi > y->pi;
}

/* Writes packet pi of c (captured) into w. */
static void put_pkt(capw *w, conv *c, size_t pi)
{
    const tpkt *k = &c->p[pi];
    /* A comment on the first captured packet after a hole of its
     * direction says what is missing. */
    const char *comment = k->comment;
    if (!comment && pi > 0 && k->proto == NET_PROTO_TCP) {
        for (size_t j = pi; j-- > 0;) {
            const tpkt *q = &c->p[j];
            if (q->dir != k->dir || q->proto != NET_PROTO_TCP)
                continue;
            if (q->lost)
                comment = conv_str(c, "capture hole before this packet: %zu octets at seq %u "
                                      "were sent but not captured",
                                   q->len, (unsigned)q->seq);
            break;
        }
    }
    if (k->proto == NET_PROTO_TCP) {
        tcpseg t = {k->sport, k->dport, k->seq, k->ack, k->flags, k->win, k->mss, k->wscale};
        net_tcp(w, &c->np, k->dir, k->ts, &t, k->data, k->len, k->frag, k->frag_rev, comment);
    } else if (k->proto == NET_PROTO_UDP) {
        net_udp(w, &c->np, k->dir, k->ts, k->sport, k->dport, k->data, k->len, comment);
    } else {
        net_arp(w, &c->np, k->dir, k->ts, k->flags, comment);
    }
}

void conv_write(capw *w, conv *c)
{
    for (size_t i = 0; i < c->n; i++)
        if (!c->p[i].lost)
            put_pkt(w, c, i);
}

int cap_write(const char *path, capw_format fmt, int link, uint32_t snaplen, const char *iface,
              conv *const *cs, size_t ncs, uint64_t *bytes)
{
    size_t total = 0;
    for (size_t i = 0; i < ncs; i++)
        total += cs[i]->n;
    ref *r = xmalloc(total * sizeof *r);
    size_t nr = 0;
    for (size_t i = 0; i < ncs; i++)
        for (size_t j = 0; j < cs[i]->n; j++)
            if (!cs[i]->p[j].lost) {
                r[nr].ts = cs[i]->p[j].ts;
                r[nr].ci = (uint32_t)i;
                r[nr].pi = (uint32_t)j;
                nr++;
            }
    qsort(r, nr, sizeof *r, ref_cmp);

    capw w;
    if (capw_open(&w, path, fmt, link, snaplen, iface) != 0) {
        int e = errno;
        free(r);
        errno = e;
        return -1;
    }
    for (size_t i = 0; i < nr; i++)
        put_pkt(&w, cs[r[i].ci], r[i].pi);
    free(r);
    uint64_t b = w.bytes;
    if (capw_close(&w) != 0)
        return -1;
    if (bytes)
        *bytes = b;
    return 0;
}

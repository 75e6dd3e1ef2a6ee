/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The large benchmark capture (mpa-capgen --big): many interleaved,
 * clean MPA connections with realistic iWARP traffic, written streaming.
 *
 * Each connection: three-way handshake with MSS 1460 (RFC 9293 3.5), an
 * MPA startup with markers (unless --no-markers) and CRC both ways (RFC 5044 7.1; one in four
 * enhanced, RFC 6581, with a Send or RDMA Write RTR), then RDMA Writes
 * and Read Responses cut into DDP segments at MULPDU (RFC 5044 4.5, so
 * each FPDU fills at most one 1460-octet segment, markers included),
 * Read Requests (at most ORD outstanding), Sends of 64-4096 octets
 * (several DDP segments when larger than MULPDU), small FPDUs packed
 * several to a segment, pure ACKs every second segment, and FINs.
 *
 * Memory stays bounded: only the connections open at once (--active, 256
 * by default) have state, each a few KiB, and packets go straight into
 * the writer's buffer.  The FPDUs come from libmpa's encoder (CRC32C with
 * the CPU's instruction); the TCP checksum is summed 8 octets at a time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capw.h"
#include "gen.h"
#include "mpa/ddp.h"
#include "mpa/fpdu.h"
#include "mpa/frame.h"
#include "net.h"

#define BIG_MSS 1460u
#define BIG_PORT 18515
#define ORD_MAX 8u
#define PATTERN (1u << 17)
#define T0_NS (1704067200ull * 1000000000ull) /* 2024-01-01T00:00:00Z */
#define STEP_NS 1000u                          /* 1 us between packets: ~10 Gb/s */

enum { ST_SYN, ST_SYNACK, ST_ACK, ST_REQ, ST_REP, ST_FIRST, ST_DATA, ST_FIN0, ST_FIN1, ST_LAST, ST_DONE };
enum { MSG_NONE, MSG_WRITE, MSG_RRESP, MSG_SEND };

typedef struct rdreq {
    uint32_t stag;
    uint64_t to;
    uint32_t size;
} rdreq;

/* One direction's sender. */
typedef struct bdir {
    uint32_t nxt;          /* next sequence number */
    uint32_t mark_base;    /* sequence number where FPDU mode started */
    unsigned unacked;      /* segments the peer has not acknowledged */
    /* the message in progress */
    int cur;
    uint32_t stag, msn, left, mo;
    uint64_t to;
    unsigned send_msn, rreq_msn;
    rdreq rq[ORD_MAX];     /* the peer's Read Requests to answer */
    unsigned rq_head, rq_n;
    unsigned reads_out;    /* own Read Requests not answered yet */
    /* the next ULPDU, built but not placed yet */
    int has_pend, pend_small, pend_rreq;
    rdreq pend_rr;
    size_t pend_len;
    uint8_t pend[1536];
} bdir;

typedef struct bconn {
    netpath np;
    uint16_t port[2];
    int enh, rtr_send;
    int state;
    int64_t budget;        /* message octets still to start (a Read counts when requested) */
    bdir d[2];
} bconn;

typedef struct big {
    capw w;
    uint64_t rng;
    uint64_t ts;
    uint8_t *pattern;
    unsigned mulpdu;
    int no_markers;
    uint64_t fpdus, markers, conns_done, ulpdu_octets, packed_segs;
    uint64_t n_write, n_rreq, n_rresp, n_send, n_enh;
    uint8_t seg[BIG_MSS + 64];
} big;

static uint64_t rnd64(big *b)
{
    /* xorshift64*: deterministic for a given seed */
    b->rng ^= b->rng >> 12;
    b->rng ^= b->rng << 25;
    b->rng ^= b->rng >> 27;
    return b->rng * 0x2545F4914F6CDD1Dull;
}

static uint32_t rnd(big *b, uint32_t n)
{
    return (uint32_t)((rnd64(b) >> 32) % n);
}

/* A budget for the next connection: about the average share of what is
 * left, the last connection takes the rest, so the budgets add up. */
static int64_t next_budget(big *b, int64_t *remaining, unsigned conns_left)
{
    int64_t bud;
    if (conns_left <= 1) {
        bud = *remaining;
    } else {
        int64_t share = *remaining / (int64_t)conns_left;
        if (share < 2)
            share = 2;
        if (share > 0x7FFFFFFF)
            share = 0x7FFFFFFF;
        bud = share / 2 + (int64_t)rnd(b, (uint32_t)share);
    }
    *remaining -= bud;
    return bud;
}

static void tcp_out(big *b, bconn *c, int dir, uint8_t flags, uint16_t mss, const uint8_t *p, size_t n)
{
    tcpseg t;
    t.sport = c->port[dir];
    t.dport = c->port[!dir];
    t.seq = (flags & TCP_SYN) ? c->d[dir].nxt - 1 : c->d[dir].nxt;
    t.ack = c->d[!dir].nxt;
    t.flags = flags;
    t.win = 65535;
    t.mss = mss;
    t.wscale = mss ? 7 : -1;
    net_tcp(&b->w, &c->np, dir, b->ts, &t, p, n, 0, 0, NULL);
    b->ts += STEP_NS;
}

static void conn_start(big *b, bconn *c, unsigned idx, int64_t budget)
{
    memset(c, 0, sizeof *c);
    net_path_init(&c->np, LINK_ETHERNET, 4, 1 + idx % 100, 101 + idx % 7);
    c->port[0] = (uint16_t)(20000 + (idx / 100) % 40000);
    c->port[1] = BIG_PORT;
    c->enh = idx % 4 == 0;
    b->n_enh += (uint64_t)c->enh;
    c->rtr_send = idx % 8 == 4;
    c->budget = budget;
    for (int d = 0; d < 2; d++) {
        c->d[d].nxt = (uint32_t)rnd64(b) + 1; /* first payload octet: ISN + 1 */
        c->d[d].send_msn = 0;
    }
    c->state = ST_SYN;
}

/* A message size: n, but no more than the budget left (at least min), so
 * that the payload adds up to --bytes and the file (headers on top) ends
 * a little above it. */
static uint32_t fit(const bconn *c, uint32_t n, uint32_t min)
{
    if (c->budget < (int64_t)n)
        n = c->budget > (int64_t)min ? (uint32_t)c->budget : min;
    return n;
}

/* The next ULPDU of dir into d->pend; 0 if dir has nothing to send. */
static int make_ulpdu(big *b, bconn *c, int dir, int packing)
{
    bdir *d = &c->d[dir], *peer = &c->d[!dir];
    mpa_ddp u;
    size_t pay = 0;
    d->pend_small = d->pend_rreq = 0;
    if (d->cur == MSG_NONE) {
        uint32_t r = rnd(b, 100);
        if (d->rq_n && (r < 60 || c->budget <= 0)) {
            rdreq q = d->rq[d->rq_head];
            d->rq_head = (d->rq_head + 1) % ORD_MAX;
            d->rq_n--;
            d->cur = MSG_RRESP;
            b->n_rresp++;
            d->stag = q.stag;
            d->to = q.to;
            d->left = q.size;
        } else if (c->budget <= 0) {
            return 0;
        } else if (packing && rnd(b, 4) != 0) {
            /* a burst of small Sends, several to a segment */
            d->cur = MSG_SEND;
            b->n_send++;
            d->msn = ++d->send_msn;
            d->left = fit(c, 64 + rnd(b, 193), 64);
            c->budget -= d->left;
            d->mo = 0;
        } else if ((r = rnd(b, 100)) < 40) {
            d->cur = MSG_WRITE;
            b->n_write++;
            d->stag = 0x00ab0000u | rnd(b, 0x10000);
            d->to = 0x7f3a00000000ull + (uint64_t)rnd(b, 1u << 20) * 4096u;
            d->left = fit(c, (1 + rnd(b, 32)) * 2048u, 2048); /* 2 KiB .. 64 KiB */
            c->budget -= d->left;
        } else if (r < 85 || d->reads_out >= ORD_MAX) {
            uint32_t size = r < 58 ? 64 + rnd(b, 4033) : 64 + rnd(b, 193); /* 64..4096, often small */
            d->cur = MSG_SEND;
            b->n_send++;
            d->msn = ++d->send_msn;
            d->left = fit(c, size, 64);
            c->budget -= d->left;
            d->mo = 0;
        } else {
            u = (mpa_ddp){0};
            u.hdr.last = u.hdr.dv = u.hdr.rv = 1;
            u.hdr.opcode = MPA_RDMAP_READ_REQUEST;
            u.hdr.qn = MPA_QN_READ_REQUEST;
            u.hdr.msn = ++d->rreq_msn;
            u.u.rreq.sink_stag = 0x00cd0000u | rnd(b, 0x10000);
            u.u.rreq.sink_to = 0x7f5b00000000ull + (uint64_t)rnd(b, 1u << 20) * 4096u;
            u.u.rreq.size = fit(c, (1 + rnd(b, 32)) * 2048u, 2048);
            c->budget -= u.u.rreq.size; /* the peer's Read Response */
            u.u.rreq.src_stag = 0x00ef0000u | rnd(b, 0x10000);
            u.u.rreq.src_to = 0x7f6c00000000ull + (uint64_t)rnd(b, 1u << 20) * 4096u;
            d->pend_rr.stag = u.u.rreq.sink_stag;
            d->pend_rr.to = u.u.rreq.sink_to;
            d->pend_rr.size = u.u.rreq.size;
            d->pend_rreq = d->pend_small = 1;
            d->reads_out++;
            b->n_rreq++;
            goto encode;
        }
    }
    /* the next DDP segment of the message in progress, as large as MULPDU allows */
    u = (mpa_ddp){0};
    u.hdr.dv = u.hdr.rv = 1;
    if (d->cur == MSG_SEND) {
        size_t room = b->mulpdu - MPA_DDP_UNTAGGED_HDR_LEN;
        pay = d->left < room ? d->left : room;
        u.hdr.opcode = MPA_RDMAP_SEND;
        u.hdr.qn = MPA_QN_SEND;
        u.hdr.msn = d->msn;
        u.hdr.mo = d->mo;
        d->mo += (uint32_t)pay;
    } else {
        size_t room = b->mulpdu - MPA_DDP_TAGGED_HDR_LEN;
        pay = d->left < room ? d->left : room;
        u.hdr.tagged = 1;
        u.hdr.opcode = d->cur == MSG_WRITE ? MPA_RDMAP_RDMA_WRITE : MPA_RDMAP_READ_RESPONSE;
        u.hdr.stag = d->stag;
        u.hdr.to = d->to;
        d->to += pay;
    }
    d->left -= (uint32_t)pay;
    u.hdr.last = d->left == 0;
    if (u.hdr.last) {
        if (d->cur == MSG_RRESP && peer->reads_out)
            peer->reads_out--;
        d->cur = MSG_NONE;
    }
    d->pend_small = pay < 512;
encode:;
    size_t w = 0;
    if (mpa_ddp_encode(&u, d->pend, sizeof d->pend, &w) != MPA_OK) {
        fprintf(stderr, "mpa-capgen: mpa_ddp_encode failed\n");
        exit(2);
    }
    memcpy(d->pend + w, b->pattern + (rnd64(b) & (PATTERN / 2 - 1)), pay);
    d->pend_len = w + pay;
    d->has_pend = 1;
    return 1;
}

/* One segment of FPDUs from dir into b->seg; returns its length (0: dir
 * has nothing to send). */
static size_t build_segment(big *b, bconn *c, int dir)
{
    bdir *d = &c->d[dir];
    mpa_fpdu_cfg cfg = {!b->no_markers, 1, d->mark_base};
    size_t len = 0;
    unsigned nf = 0;
    for (;;) {
        if (!d->has_pend && !make_ulpdu(b, c, dir, nf > 0))
            break;
        uint32_t seq = d->nxt + (uint32_t)len;
        size_t need = mpa_fpdu_wire_len((uint16_t)d->pend_len, seq, &cfg);
        if (len + need > BIG_MSS)
            break;
        size_t w = 0;
        if (mpa_fpdu_encode(d->pend, d->pend_len, seq, &cfg, NULL, b->seg + len,
                            sizeof b->seg - len, &w) != MPA_OK) {
            fprintf(stderr, "mpa-capgen: mpa_fpdu_encode failed\n");
            exit(2);
        }
        size_t pad = (4u - ((2u + d->pend_len) & 3u)) & 3u;
        b->markers += (w - (2 + d->pend_len + pad + 4)) / MPA_MARKER_LEN;
        b->fpdus++;
        nf++;
        b->ulpdu_octets += d->pend_len;
        len += w;
        d->has_pend = 0;
        if (d->pend_rreq) {
            /* a Read Request is pushed at once; the peer answers later */
            bdir *p = &c->d[!dir];
            p->rq[(p->rq_head + p->rq_n) % ORD_MAX] = d->pend_rr;
            p->rq_n++;
            break;
        }
        if (!d->pend_small || rnd(b, 2) == 0)
            break;
    }
    if (nf > 1)
        b->packed_segs++;
    return len;
}

/* The peer acknowledges every second segment (RFC 1122 4.2.3.2). */
static void data_out(big *b, bconn *c, int dir, const uint8_t *p, size_t n)
{
    tcp_out(b, c, dir, TCP_ACK | TCP_PSH, 0, p, n);
    c->d[dir].nxt += (uint32_t)n;
    c->d[!dir].unacked = 0;
    if (++c->d[dir].unacked >= 2) {
        tcp_out(b, c, !dir, TCP_ACK, 0, NULL, 0);
        c->d[dir].unacked = 0;
    }
}

static int has_work(const bconn *c, int dir)
{
    const bdir *d = &c->d[dir];
    return d->has_pend || d->cur != MSG_NONE || d->rq_n || c->budget > 0;
}

/* Advances connection c by one step (one to two packets). */
static void conn_step(big *b, bconn *c)
{
    uint8_t fr[64];
    size_t n = 0;
    switch (c->state) {
    case ST_SYN:
        tcp_out(b, c, 0, TCP_SYN, BIG_MSS, NULL, 0);
        break;
    case ST_SYNACK:
        tcp_out(b, c, 1, TCP_SYN | TCP_ACK, BIG_MSS, NULL, 0);
        break;
    case ST_ACK:
        tcp_out(b, c, 0, TCP_ACK, 0, NULL, 0);
        break;
    case ST_REQ:
    case ST_REP: {
        int dir = c->state == ST_REP;
        mpa_frame_enc f;
        memset(&f, 0, sizeof f);
        f.kind = dir ? MPA_KEY_REP : MPA_KEY_REQ;
        f.m = (uint8_t)!b->no_markers;
        f.c = 1;
        f.rev = 1;
        f.pd_len_override = -1;
        if (c->enh) {
            /* RFC 6581: P2P, the Request offers every RTR type, the Reply one */
            f.rev = 2;
            f.s = 1;
            f.enh_present = 1;
            f.enh.a = 1;
            f.enh.b = (uint8_t)(dir ? c->rtr_send : 1);
            f.enh.c = (uint8_t)(dir ? !c->rtr_send : 1);
            f.enh.d = (uint8_t)!dir;
            f.enh.ird = f.enh.ord = 16;
        }
        if (mpa_frame_encode(&f, fr, sizeof fr, &n) != MPA_OK) {
            fprintf(stderr, "mpa-capgen: mpa_frame_encode failed\n");
            exit(2);
        }
        data_out(b, c, dir, fr, n);
        c->d[dir].mark_base = c->d[dir].nxt; /* FPDU mode starts after the frame */
        break;
    }
    case ST_FIRST: {
        /* RFC 5044 7.1.2 rule 4: the Initiator's FPDU comes first; with
         * RFC 6581 it is the negotiated zero-length RTR. */
        bdir *d = &c->d[0];
        mpa_ddp u = {0};
        u.hdr.last = u.hdr.dv = u.hdr.rv = 1;
        size_t pay = 0;
        if (c->enh && !c->rtr_send) {
            u.hdr.tagged = 1;
            u.hdr.opcode = MPA_RDMAP_RDMA_WRITE;
        } else {
            u.hdr.opcode = MPA_RDMAP_SEND;
            u.hdr.qn = MPA_QN_SEND;
            u.hdr.msn = ++d->send_msn;
            pay = c->enh ? 0 : 64;
        }
        size_t w = 0;
        mpa_ddp_encode(&u, d->pend, sizeof d->pend, &w);
        memcpy(d->pend + w, b->pattern, pay);
        d->pend_len = w + pay;
        d->has_pend = 1;
        d->pend_small = 0; /* alone in its segment */
        d->pend_rreq = 0;
        n = build_segment(b, c, 0);
        data_out(b, c, 0, b->seg, n);
        break;
    }
    case ST_DATA: {
        int dir = (int)rnd(b, 2);
        if (!has_work(c, dir))
            dir = !dir;
        if (!has_work(c, dir)) {
            c->state = ST_FIN0;
            conn_step(b, c);
            return;
        }
        n = build_segment(b, c, dir);
        if (n)
            data_out(b, c, dir, b->seg, n);
        return; /* stay in ST_DATA */
    }
    case ST_FIN0:
        tcp_out(b, c, 0, TCP_FIN | TCP_ACK, 0, NULL, 0);
        c->d[0].nxt++;
        break;
    case ST_FIN1:
        tcp_out(b, c, 1, TCP_FIN | TCP_ACK, 0, NULL, 0);
        c->d[1].nxt++;
        break;
    case ST_LAST:
        tcp_out(b, c, 0, TCP_ACK, 0, NULL, 0);
        break;
    default:
        return;
    }
    c->state++;
}

int gen_big(const char *path, const big_opts *o)
{
    big *b = calloc(1, sizeof *b);
    unsigned active = o->active ? o->active : 256;
    if (active > o->conns)
        active = o->conns;
    bconn *pool = calloc(active ? active : 1, sizeof *pool);
    if (!b || !pool) {
        perror("mpa-capgen: calloc");
        return 2;
    }
    b->rng = o->seed * 0x9E3779B97F4A7C15ull + 0x6d70612d63617067ull;
    if (!b->rng)
        b->rng = 1;
    b->ts = T0_NS;
    b->no_markers = o->no_markers;
    b->mulpdu = mpa_mulpdu(BIG_MSS, !o->no_markers);
    b->pattern = malloc(PATTERN);
    if (!b->pattern) {
        perror("mpa-capgen: malloc");
        return 2;
    }
    for (size_t i = 0; i < PATTERN; i += 8) {
        uint64_t v = rnd64(b);
        memcpy(b->pattern + i, &v, 8);
    }
    if (capw_open(&b->w, path, CAPW_PCAP, LINK_ETHERNET, 0, NULL) != 0) {
        fprintf(stderr, "mpa-capgen: %s: %s\n", path, strerror(errno));
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);

    /* Each connection gets a share of the FPDU octets still to place, so
     * that they add up to --bytes (headers come on top). */
    int64_t remaining = (int64_t)o->bytes;
    unsigned started = 0, open = 0;
    for (; open < active; open++, started++)
        conn_start(b, &pool[open], started, next_budget(b, &remaining, o->conns - started));
    while (open) {
        unsigned i = rnd(b, open);
        bconn *c = &pool[i];
        conn_step(b, c);
        if (c->state == ST_DONE) {
            b->conns_done++;
            if (started < o->conns) {
                conn_start(b, c, started, next_budget(b, &remaining, o->conns - started));
                started++;
            } else {
                pool[i] = pool[--open];
            }
        }
        if (b->w.err)
            break;
    }
    uint64_t bytes = b->w.bytes, packets = b->w.packets;
    int rc = capw_close(&b->w);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (rc != 0) {
        fprintf(stderr, "mpa-capgen: %s: %s\n", path, strerror(errno));
        return 2;
    }
    fprintf(stderr,
            "mpa-capgen: %s: %llu bytes, %llu packets, %llu connections (%llu enhanced, %u open "
            "at once), %llu FPDUs (%llu ULPDU octets, %llu markers, %llu segments with several "
            "FPDUs); messages: %llu RDMA Writes, %llu Read Requests, %llu Read Responses, %llu "
            "Sends; %.2f s, %.0f MB/s\n",
            path, (unsigned long long)bytes, (unsigned long long)packets,
            (unsigned long long)b->conns_done, (unsigned long long)b->n_enh, active,
            (unsigned long long)b->fpdus, (unsigned long long)b->ulpdu_octets,
            (unsigned long long)b->markers, (unsigned long long)b->packed_segs,
            (unsigned long long)b->n_write, (unsigned long long)b->n_rreq,
            (unsigned long long)b->n_rresp, (unsigned long long)b->n_send, secs,
            secs > 0 ? (double)bytes / secs / 1e6 : 0.0);
    free(b->pattern);
    free(pool);
    free(b);
    return 0;
}

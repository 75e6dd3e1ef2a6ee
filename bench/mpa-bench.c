/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-bench: libmpa throughput on one core.  Prints figures; asserts
 * nothing and exits 0 whatever they are (a decode that is wrong, not just
 * slow, gets a loud "BUG" line, still exit 0).
 *
 *   1. CRC32C (RFC 5044 4.4): mpa_crc32c_update(), hardware path and the
 *      forced-portable path, at sizes an MPA decoder meets.
 *   2. Stream decode: a 64 MiB two-direction MPA connection built in
 *      memory with the library's own encoders (RFC 6581 enhanced startup,
 *      the RTR, then RDMA Writes, Read Requests / Read Responses and
 *      Sends as FPDUs in TCP segments of at most 1460 octets), fed to
 *      mpa_stream_feed() one segment per call.  Markers+CRC, CRC off
 *      (C=0 both ways), markers off, and both off.
 *   3. With --pcap-dir DIR: the markers+CRC connection as DIR/mpa-64m.pcap
 *      and the markers-off one as DIR/mpa-64m-nomarkers.pcap (classic pcap,
 *      Ethernet/IPv4/TCP, 3-way handshake, ACKs, FINs), and our figures for
 *      them in DIR/libmpa-figures.txt, for scripts/bench-tshark.sh.
 *
 * The CRC table and its measurement are those of the former
 * bench/bench_crc32c.c (folded in here): each call's state feeds the next
 * (as in a stream decoder, so small sizes measure per-call latency),
 * iterations are doubled until a run takes 20 ms, then extrapolated to
 * about 0.3 s.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "capw.h"   /* the pcap writer */
#include "corpus.h" /* ULPDU builders (cs_ul_*), startup frames (cs_req/cs_rep/cs_enh) */
#include "mpa/crc32c.h"
#include "mpa/describe.h"
#include "net.h"    /* Ethernet/IPv4/TCP packets */

/* ---- timing --------------------------------------------------------- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long max_rss_kib(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -1;
    return ru.ru_maxrss; /* KiB on Linux */
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ---- 1. CRC32C ------------------------------------------------------ */

static uint32_t crc_sink;

static double crc_run(const uint8_t *buf, size_t len, size_t iters)
{
    uint32_t s = MPA_CRC32C_INIT;
    double t0 = now();
    for (size_t i = 0; i < iters; i++)
        s = mpa_crc32c_update(s, buf, len);
    double t = now() - t0;
    crc_sink ^= s;
    return t;
}

/* GB/s (1e9 octets per second) over roughly 0.3 s of calls. */
static double crc_gbps(const uint8_t *buf, size_t len)
{
    const double target = 0.3;
    size_t iters = 1;
    double t;
    while ((t = crc_run(buf, len, iters)) < 0.02)
        iters *= 2;
    size_t n = (size_t)((double)iters * target / t);
    if (n < 1)
        n = 1;
    t = crc_run(buf, len, n);
    return (double)len * (double)n / t / 1e9;
}

static void size_str(char *b, size_t cap, size_t n)
{
    if (n >= (1u << 20) && n % (1u << 20) == 0)
        snprintf(b, cap, "%zu MiB", n >> 20);
    else if (n >= 1024 && n % 1024 == 0)
        snprintf(b, cap, "%zu KiB", n >> 10);
    else
        snprintf(b, cap, "%zu B", n);
}

static void bench_crc(void)
{
    static const size_t sizes[] = {64, 508, 1460, 4096, 65536, 64u << 20};
    const size_t nsizes = sizeof sizes / sizeof sizes[0];
    size_t max = sizes[nsizes - 1] + 64;
    uint8_t *mem = malloc(max);
    if (!mem) {
        perror("malloc");
        exit(2);
    }
    uint32_t x = 0x12345678u;
    for (size_t i = 0; i < max; i++) {
        x = x * 1103515245u + 12345u;
        mem[i] = (uint8_t)(x >> 24);
    }

    mpa_crc32c_force_portable(0);
    char hw[32];
    snprintf(hw, sizeof hw, "%s", mpa_crc32c_impl());
    printf("== 1. CRC32C: mpa_crc32c_update(), one call's state feeding the next; GB/s = 1e9 octets/s ==\n");
    printf("   (508 B = the longest run between two markers, shown 8-aligned and 4-aligned;\n"
           "    1460 B = one Ethernet MSS; 64 MiB is far larger than the caches)\n");
    printf("   %-8s %-9s %9s %5s %10s\n", "", "impl", "size", "align", "GB/s");
    double hw_min_big = 1e30;
    for (int pass = 0; pass < 2; pass++) {
        mpa_crc32c_force_portable(pass);
        const char *name = pass ? "portable" : hw;
        for (size_t i = 0; i < nsizes; i++) {
            for (size_t off = 0; off <= (sizes[i] == 508 ? 4u : 0u); off += 4) {
                double g = crc_gbps(mem + off, sizes[i]);
                char sz[32];
                size_str(sz, sizeof sz, sizes[i]);
                printf("   %-8s %-9s %9s %5zu %10.2f\n", "crc32c", name, sz, off, g);
                fflush(stdout);
                if (!pass && sizes[i] >= 1460 && g < hw_min_big)
                    hw_min_big = g;
            }
        }
    }
    mpa_crc32c_force_portable(0);
    if (strcmp(hw, "portable") == 0)
        printf("   target >= 8 GB/s on the hardware path: no hardware path on this CPU\n");
    else
        printf("   target >= 8 GB/s on the %s path (sizes >= 1460 B): %s (lowest %.2f GB/s)\n", hw,
               hw_min_big >= 8.0 ? "met" : "NOT met", hw_min_big);
    printf("   (checksum %08x)\n\n", (unsigned)crc_sink);
    free(mem);
}

/* ---- 2. building the connection ------------------------------------- */

#define EMSS 1460u           /* both senders' EMSS: Ethernet MTU 1500 */
#define SEG_MAX EMSS         /* TCP payload per segment */
static size_t conn_target = 64u << 20; /* TCP payload octets, both directions */
#define CONN_CAP (conn_target + (1u << 20))
#define ORD_MAX 16u          /* IRD/ORD negotiated in the startup frames */

typedef struct seg {
    uint32_t off; /* into conn.buf */
    uint16_t len;
    uint8_t dir;
} seg_t;

typedef struct rresp {
    uint32_t stag;
    uint64_t to;
    uint32_t size;
} rresp_t;

typedef struct sender {
    uint64_t off;      /* stream offset of the next octet */
    uint64_t mode_off; /* first FPDU-mode octet */
    unsigned mulpdu;
    uint32_t send_msn, rreq_msn;
    /* the tagged message being sent: 0 none, 1 RDMA Write, 2 Read Response */
    int cur;
    uint32_t cur_stag;
    uint64_t cur_to;
    uint32_t cur_left;
    /* the peer's Read Requests waiting for their Responses */
    rresp_t rq[ORD_MAX];
    unsigned rq_head, rq_n;
    unsigned reads_out; /* own Read Requests not yet answered (ORD) */
    /* the next ULPDU, built but not yet placed */
    int has_pend, pend_small, pend_last, pend_rreq;
    rresp_t pend_rr;
    size_t pend_len;
    uint8_t pend[2048];
    /* what went on the wire */
    uint64_t fpdus, ulpdu_octets, markers, big_fpdus;
} sender_t;

typedef struct conn {
    const char *name;
    int markers, crc;
    uint32_t isn[2]; /* sequence number of each direction's first payload octet */
    uint8_t *buf;
    size_t len;
    seg_t *seg;
    size_t nseg, capseg;
    sender_t s[2];
    uint64_t rng;
    uint64_t n_write, n_rresp, n_send, n_rreq, multi_fpdu_segs;
} conn_t;

static uint32_t rnd(conn_t *c, uint32_t n)
{
    return (uint32_t)(cs_rng(&c->rng) % n);
}

static void push_seg(conn_t *c, int dir, size_t off, size_t len)
{
    c->seg = cs_grow(c->seg, &c->capseg, c->nseg + 1, 65536, sizeof *c->seg);
    c->seg[c->nseg].off = (uint32_t)off;
    c->seg[c->nseg].len = (uint16_t)len;
    c->seg[c->nseg].dir = (uint8_t)dir;
    c->nseg++;
}

static mpa_fpdu_cfg fpdu_cfg(const conn_t *c, int dir)
{
    mpa_fpdu_cfg cfg;
    cfg.markers = c->markers;
    cfg.crc = 1; /* the encoder always writes the CRC; C=0 only stops checking */
    cfg.mark_base = c->isn[dir] + (uint32_t)c->s[dir].mode_off;
    return cfg;
}

/* Appends ulpdu as one FPDU of dir at the end of the buffer. */
static size_t put_fpdu(conn_t *c, int dir, const uint8_t *ul, size_t n)
{
    sender_t *s = &c->s[dir];
    mpa_fpdu_cfg cfg = fpdu_cfg(c, dir);
    size_t w = 0;
    if (mpa_fpdu_encode(ul, n, c->isn[dir] + (uint32_t)s->off, &cfg, NULL, c->buf + c->len,
                        CONN_CAP - c->len, &w) != MPA_OK) {
        fprintf(stderr, "mpa-bench: mpa_fpdu_encode failed\n");
        exit(2);
    }
    size_t pad = (4u - ((2u + n) & 3u)) & 3u;
    c->len += w;
    s->off += w;
    s->fpdus++;
    s->ulpdu_octets += n;
    s->markers += (w - (2 + n + pad + 4)) / MPA_MARKER_LEN;
    return w;
}

static void put_raw(conn_t *c, int dir, const uint8_t *p, size_t n)
{
    memcpy(c->buf + c->len, p, n);
    push_seg(c, dir, c->len, n);
    c->len += n;
    c->s[dir].off += n;
}

/* Builds the next ULPDU of dir into s->pend. */
static void make_pend(conn_t *c, int dir)
{
    sender_t *s = &c->s[dir], *peer = &c->s[!dir];
    s->pend_small = s->pend_last = s->pend_rreq = 0;
    if (!s->cur) {
        uint32_t r = rnd(c, 100);
        if (s->rq_n && r < 60) {
            /* answer the oldest Read Request of the peer */
            rresp_t rr = s->rq[s->rq_head];
            s->rq_head = (s->rq_head + 1) % ORD_MAX;
            s->rq_n--;
            s->cur = 2;
            s->cur_stag = rr.stag;
            s->cur_to = rr.to;
            s->cur_left = rr.size;
            c->n_rresp++;
        } else if ((r = rnd(c, 100)) < 50) {
            s->cur = 1;
            s->cur_stag = 0x00ab0000u | rnd(c, 0x10000);
            s->cur_to = 0x7f3a00000000ull + (uint64_t)rnd(c, 1u << 20) * 4096u;
            s->cur_left = (1 + rnd(c, 32)) * 2048u; /* 2 KiB .. 64 KiB */
            c->n_write++;
        } else if (r < 85 || s->reads_out >= ORD_MAX) {
            s->pend_len = cs_ul_send(s->pend, sizeof s->pend, ++s->send_msn, 64 + rnd(c, 193));
            s->pend_small = s->pend_last = 1;
            s->has_pend = 1;
            c->n_send++;
            return;
        } else {
            mpa_ddp d = cs_ul_untagged(MPA_RDMAP_READ_REQUEST, MPA_QN_READ_REQUEST, ++s->rreq_msn);
            d.u.rreq.sink_stag = 0x00cd0000u | rnd(c, 0x10000);
            d.u.rreq.sink_to = 0x7f5b00000000ull + (uint64_t)rnd(c, 1u << 20) * 4096u;
            d.u.rreq.size = (1 + rnd(c, 32)) * 2048u;
            d.u.rreq.src_stag = 0x00ef0000u | rnd(c, 0x10000);
            d.u.rreq.src_to = 0x7f6c00000000ull + (uint64_t)rnd(c, 1u << 20) * 4096u;
            s->pend_len = cs_ul_build(&d, 0, s->pend, sizeof s->pend);
            s->pend_rr.stag = d.u.rreq.sink_stag;
            s->pend_rr.to = d.u.rreq.sink_to;
            s->pend_rr.size = d.u.rreq.size;
            s->pend_small = s->pend_last = s->pend_rreq = 1;
            s->reads_out++;
            s->has_pend = 1;
            c->n_rreq++;
            return;
        }
    }
    /* next DDP segment of the tagged message: as large as MULPDU allows */
    uint32_t room = s->mulpdu - MPA_DDP_TAGGED_HDR_LEN;
    uint32_t pay = s->cur_left < room ? s->cur_left : room;
    mpa_ddp d = cs_ul_tagged(s->cur == 1 ? MPA_RDMAP_RDMA_WRITE : MPA_RDMAP_READ_RESPONSE, s->cur_stag,
                          s->cur_to);
    d.hdr.last = pay == s->cur_left;
    s->pend_len = cs_ul_build(&d, pay, s->pend, sizeof s->pend);
    s->pend_last = d.hdr.last;
    s->cur_to += pay;
    s->cur_left -= pay;
    if (!s->cur_left) {
        if (s->cur == 2 && peer->reads_out)
            peer->reads_out--;
        s->cur = 0;
    }
    s->has_pend = 1;
}

/* Appends one TCP segment of dir: one or more whole FPDUs, <= SEG_MAX. */
static void next_segment(conn_t *c, int dir)
{
    sender_t *s = &c->s[dir];
    size_t start = c->len, seglen = 0;
    unsigned nf = 0;
    for (;;) {
        if (!s->has_pend)
            make_pend(c, dir);
        mpa_fpdu_cfg cfg = fpdu_cfg(c, dir);
        size_t w = mpa_fpdu_wire_len((uint16_t)s->pend_len, c->isn[dir] + (uint32_t)s->off, &cfg);
        if (seglen + w > SEG_MAX) {
            if (!seglen) {
                fprintf(stderr, "mpa-bench: FPDU of %zu octets exceeds the %u-octet segment\n", w,
                        SEG_MAX);
                exit(2);
            }
            break;
        }
        seglen += put_fpdu(c, dir, s->pend, s->pend_len);
        nf++;
        s->has_pend = 0;
        if (!s->pend_small)
            s->big_fpdus++;
        if (s->pend_rreq) {
            /* a Read Request is pushed at once; the peer answers later */
            sender_t *p = &c->s[!dir];
            p->rq[(p->rq_head + p->rq_n) % ORD_MAX] = s->pend_rr;
            p->rq_n++;
            break;
        }
        if (s->pend_small ? rnd(c, 2) == 0 : (s->pend_last && rnd(c, 2) == 0))
            break;
    }
    if (nf > 1)
        c->multi_fpdu_segs++;
    push_seg(c, dir, start, seglen);
}

static void build_conn(conn_t *c, const char *name, int markers, int crc)
{
    memset(c, 0, sizeof *c);
    c->name = name;
    c->markers = markers;
    c->crc = crc;
    c->isn[0] = 0x3a5c1e01u;
    c->isn[1] = 0xfff00001u; /* the Responder's sequence numbers wrap after 1 MiB */
    c->rng = 0x9e3779b97f4a7c15ull;
    c->buf = malloc(CONN_CAP);
    if (!c->buf) {
        perror("malloc");
        exit(2);
    }
    for (int d = 0; d < 2; d++)
        c->s[d].mulpdu = mpa_mulpdu(EMSS, markers);

    /* RFC 6581 enhanced startup: P2P with every RTR type offered; the
     * Responder picks the zero-length RDMA Write. */
    mpa_frame_enc q = cs_enh(cs_req(markers, crc), 1, 1, 1, 1, 16, 16);
    mpa_frame_enc p = cs_enh(cs_rep(markers, crc), 1, 0, 1, 0, 16, 16);
    uint8_t fr[64];
    size_t w = 0;
    if (mpa_frame_encode(&q, fr, sizeof fr, &w) != MPA_OK) {
        fprintf(stderr, "mpa-bench: mpa_frame_encode failed\n");
        exit(2);
    }
    put_raw(c, 0, fr, w);
    if (mpa_frame_encode(&p, fr, sizeof fr, &w) != MPA_OK) {
        fprintf(stderr, "mpa-bench: mpa_frame_encode failed\n");
        exit(2);
    }
    put_raw(c, 1, fr, w);
    c->s[0].mode_off = c->s[0].off;
    c->s[1].mode_off = c->s[1].off;

    /* the RTR: the Initiator's first FPDU */
    uint8_t ul[64];
    size_t n = cs_ul_write(ul, sizeof ul, 0, 0, 0);
    size_t at = c->len;
    push_seg(c, 0, at, put_fpdu(c, 0, ul, n));

    while (c->len + SEG_MAX <= conn_target)
        next_segment(c, (int)rnd(c, 2));
}

static void free_conn(conn_t *c)
{
    free(c->buf);
    free(c->seg);
    memset(c, 0, sizeof *c);
}

/* ---- 2. decoding it ------------------------------------------------- */

#define NEV 6 /* mpa_event_type values */

typedef struct evc {
    uint64_t n[NEV];
    uint64_t ulpdu_octets;
    uint64_t by_id[MPA_F__COUNT];
    unsigned nmsg;
    char msg[4][200];
} evc_t;

/* Minimal work: count. */
static void on_event(void *user, const mpa_event *ev)
{
    evc_t *e = user;
    e->n[(unsigned)ev->type % NEV]++;
    if (ev->type == MPA_EV_FPDU) {
        e->ulpdu_octets += ev->u.fpdu.ulpdu_len;
    } else if (ev->type == MPA_EV_FINDING) {
        if ((unsigned)ev->u.finding.id < MPA_F__COUNT)
            e->by_id[ev->u.finding.id]++;
        if (e->nmsg < 4)
            snprintf(e->msg[e->nmsg++], sizeof e->msg[0], "d%d @%llu %s: %s", ev->dir,
                     (unsigned long long)ev->off,
                     ev->u.finding.rule ? ev->u.finding.rule->id : "?", ev->u.finding.msg);
    }
}

typedef struct run_result {
    double secs;
    uint64_t short_feeds;
} run_result;

/* One pass over the whole connection, as a capture reader would make it:
 * mpa_stream_segment() and one mpa_stream_feed() per TCP segment, then
 * the two FINs.  hot: before feeding a segment, prefetch the next one, so
 * the engine finds its input in cache, as it would right after a recv()
 * or a pcap read; otherwise the input comes cold from a 64 MiB buffer. */
static run_result decode_once(const conn_t *c, mpa_stream *st, evc_t *e, int hot)
{
    mpa_stream_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.isn[0] = c->isn[0];
    cfg.isn[1] = c->isn[1];
    cfg.emss[0] = cfg.emss[1] = EMSS;
    memset(e, 0, sizeof *e);
    run_result r = {0, 0};
    const uint8_t *buf = c->buf;
    const seg_t *sg = c->seg;
    size_t nseg = c->nseg;
    double t0 = now();
    mpa_stream_init(st, &cfg, on_event, e);
    for (size_t i = 0; i < nseg; i++) {
        int dir = sg[i].dir;
        if (hot && i + 1 < nseg) {
            const uint8_t *q = buf + sg[i + 1].off;
            for (unsigned k = 0; k < sg[i + 1].len; k += 64)
                __builtin_prefetch(q + k);
        }
        mpa_stream_segment(st, dir);
        size_t used = mpa_stream_feed(st, dir, buf + sg[i].off, sg[i].len);
        r.short_feeds += used != sg[i].len;
    }
    mpa_stream_end(st, 0, MPA_END_FIN);
    mpa_stream_end(st, 1, MPA_END_FIN);
    mpa_stream_finish(st);
    r.secs = now() - t0;
    return r;
}

#define MAX_RUNS 4096
static double run_secs[MAX_RUNS];

/* Median seconds per pass: one warm-up pass, then at least 5 passes and
 * 0.7 s.  Adds the passes' short feeds to *short_feeds. */
static double time_decode(const conn_t *c, mpa_stream *st, evc_t *e, int hot, double *best,
                          uint64_t *short_feeds)
{
    run_result r = decode_once(c, st, e, hot); /* page faults, caches, branch history */
    *short_feeds += r.short_feeds;
    int nr = 0;
    double total = 0;
    while (nr < MAX_RUNS && (nr < 5 || total < 0.7)) {
        r = decode_once(c, st, e, hot);
        *short_feeds += r.short_feeds;
        run_secs[nr++] = r.secs;
        total += r.secs;
    }
    qsort(run_secs, (size_t)nr, sizeof run_secs[0], cmp_double);
    *best = run_secs[0];
    return nr % 2 ? run_secs[nr / 2] : (run_secs[nr / 2 - 1] + run_secs[nr / 2]) / 2;
}

typedef struct stream_fig {
    double gbps_med, gbps_best, fpdus_per_s, med_secs, gbps_hot;
    uint64_t fpdus;
} stream_fig;

/* Times c cold and hot, prints one table row and the checks. */
static stream_fig bench_stream(const conn_t *c, mpa_stream *st, int expect_crc_default)
{
    evc_t e;
    uint64_t short_feeds = 0;
    double best, best_hot;
    double med_hot = time_decode(c, st, &e, 1, &best_hot, &short_feeds);
    double med = time_decode(c, st, &e, 0, &best, &short_feeds);
    uint64_t fpdus = e.n[MPA_EV_FPDU];
    stream_fig f;
    f.gbps_med = (double)c->len / med / 1e9;
    f.gbps_best = (double)c->len / best / 1e9;
    f.gbps_hot = (double)c->len / med_hot / 1e9;
    f.fpdus_per_s = (double)fpdus / med;
    f.med_secs = med;
    f.fpdus = fpdus;

    uint64_t findings = e.n[MPA_EV_FINDING];
    uint64_t expected = expect_crc_default ? e.by_id[MPA_F_CRC_DEFAULT] : 0;
    printf("   %-22s %6.1f %7.2f %7.2f %8.2f %8.2f %9llu\n", c->name, (double)c->len / (1 << 20), f.gbps_med,
           f.gbps_best, f.fpdus_per_s / 1e6, f.gbps_hot, (unsigned long long)findings);

    /* checks: what was decoded is what was built */
    const mpa_dir_stats *s0 = mpa_stream_stats(st, 0), *s1 = mpa_stream_stats(st, 1);
    uint64_t gen_fpdus = c->s[0].fpdus + c->s[1].fpdus;
    uint64_t gen_ul = c->s[0].ulpdu_octets + c->s[1].ulpdu_octets;
    uint64_t gen_mk = c->s[0].markers + c->s[1].markers;
    int ok = fpdus == gen_fpdus && e.ulpdu_octets == gen_ul && e.n[MPA_EV_MARKER] == gen_mk &&
             s0->octets == c->s[0].off && s1->octets == c->s[1].off && !s0->crc_bad && !s1->crc_bad &&
             !s0->not_mpa_octets && !s1->not_mpa_octets && !short_feeds && e.n[MPA_EV_FRAME] == 2 &&
             s0->segments_aligned == s0->segments && s1->segments_aligned == s1->segments;
    printf("   %22s   decoded FPDUs %llu of %llu, markers %llu of %llu, bad CRCs %llu, not-MPA octets %llu,\n"
           "   %22s   short feeds %llu: %s; findings %llu",
           "", (unsigned long long)fpdus, (unsigned long long)gen_fpdus, (unsigned long long)e.n[MPA_EV_MARKER],
           (unsigned long long)gen_mk, (unsigned long long)(s0->crc_bad + s1->crc_bad),
           (unsigned long long)(s0->not_mpa_octets + s1->not_mpa_octets), "",
           (unsigned long long)short_feeds, ok ? "ok" : "MISMATCH", (unsigned long long)findings);
    if (expected && findings == expected)
        printf(" (MPA-CRC-DEFAULT, the expected finding for C=0 both ways)\n");
    else
        printf("%s\n", findings ? "" : " (as expected)");
    if (!ok)
        printf("   !!! BUG: the engine's view of \"%s\" differs from what was encoded (line above)\n", c->name);
    if (findings != expected) {
        printf("   !!! BUG: %llu unexpected finding(s) on a conforming connection (\"%s\"):\n",
               (unsigned long long)(findings - expected), c->name);
        for (unsigned i = 0; i < MPA_F__COUNT; i++)
            if (e.by_id[i] && !(expect_crc_default && i == MPA_F_CRC_DEFAULT))
                printf("   !!!   %-28s x %llu\n", mpa_rule_get((mpa_finding_id)i)->id,
                       (unsigned long long)e.by_id[i]);
        for (unsigned i = 0; i < e.nmsg; i++)
            printf("   !!!   first: %s\n", e.msg[i]);
    }
    fflush(stdout);
    return f;
}

static void describe_conn(const conn_t *c)
{
    uint64_t fp = c->s[0].fpdus + c->s[1].fpdus, big = c->s[0].big_fpdus + c->s[1].big_fpdus;
    printf("   connection (markers and CRC on): %.1f MiB of TCP payload, %zu segments (<= %u octets; %llu with\n"
           "   several FPDUs), %llu FPDUs (%.0f%% carrying RDMA Write / Read Response segments of up to\n"
           "   MULPDU %u octets), dir 0 (Initiator) %.1f MiB, dir 1 (Responder) %.1f MiB;\n"
           "   messages: %llu RDMA Writes and %llu Read Responses of 2-64 KiB, %llu Read Requests,\n"
           "   %llu Sends of 64-256 octets; Responder's sequence numbers wrap.\n",
           (double)c->len / (1 << 20), c->nseg, SEG_MAX, (unsigned long long)c->multi_fpdu_segs,
           (unsigned long long)fp, 100.0 * (double)big / (double)fp, c->s[0].mulpdu,
           (double)c->s[0].off / (1 << 20), (double)c->s[1].off / (1 << 20), (unsigned long long)c->n_write,
           (unsigned long long)c->n_rresp, (unsigned long long)c->n_rreq, (unsigned long long)c->n_send);
}

/* ---- 3. pcap -------------------------------------------------------- */

static int write_pcap(const conn_t *c, const char *path, uint64_t *frames, uint64_t *bytes)
{
    capw w;
    if (capw_open(&w, path, CAPW_PCAP, LINK_ETHERNET, 65535, NULL) != 0) {
        perror(path);
        return -1;
    }
    /* 02:00:5e:10:00:01 10.0.0.1 port 49152 (Initiator), 02:00:5e:10:00:02
     * 10.0.0.2 port 4791 (Responder); IP identifications from 0x1000 and
     * 0x8000. */
    netpath np;
    net_path_init(&np, LINK_ETHERNET, 4, 1, 2);
    static const uint8_t mac[2][6] = {{0x02, 0x00, 0x5e, 0x10, 0x00, 0x01}, {0x02, 0x00, 0x5e, 0x10, 0x00, 0x02}};
    static const uint8_t addr[2][4] = {{10, 0, 0, 1}, {10, 0, 0, 2}};
    static const uint16_t port[2] = {49152, 4791};
    memcpy(np.mac, mac, sizeof mac);
    for (int d = 0; d < 2; d++)
        memcpy(np.addr[d], addr[d], 4);
    np.ip_id[0] = 0x1000;
    np.ip_id[1] = 0x8000;
    uint64_t ts = 1700000000ull * 1000000000ull;
    uint32_t nxt[2] = {c->isn[0], c->isn[1]}; /* next sequence number to send */
    uint32_t acked[2] = {c->isn[0], c->isn[1]}; /* highest ACK the peer has sent for dir */
    uint16_t mss = EMSS;

#define SEND(d, fl, sq, ak, p, n)                                                                     \
    do {                                                                                              \
        tcpseg t = {port[d], port[!(d)], (sq), (ak), (uint8_t)(fl), 65535, mss, -1};                  \
        net_tcp(&w, &np, (d), ts, &t, (p), (n), 0, 0, NULL);                                          \
        ts += 300 + ((uint64_t)(n) + 78) * 8 / 10; /* a 10 Gb/s link and a little host time */       \
    } while (0)

    /* 3-way handshake (SYNs carry MSS 1460) */
    SEND(0, TCP_SYN, c->isn[0] - 1, 0, NULL, 0);
    ts += 20000;
    SEND(1, TCP_SYN | TCP_ACK, c->isn[1] - 1, c->isn[0], NULL, 0);
    ts += 20000;
    mss = 0;
    SEND(0, TCP_ACK, c->isn[0], c->isn[1], NULL, 0);

    for (size_t i = 0; i < c->nseg; i++) {
        const seg_t *s = &c->seg[i];
        int d = s->dir;
        /* every segment acknowledges all the peer sent so far */
        SEND(d, TCP_ACK | TCP_PSH, nxt[d], nxt[!d], c->buf + s->off, s->len);
        acked[!d] = nxt[!d];
        nxt[d] += s->len;
        /* the receiver ACKs at least every second full segment */
        if (nxt[d] - acked[d] >= 2 * SEG_MAX) {
            SEND(!d, TCP_ACK, nxt[!d], nxt[d], NULL, 0);
            acked[d] = nxt[d];
        }
    }
    /* orderly close: the Initiator first */
    SEND(0, TCP_FIN | TCP_ACK, nxt[0], nxt[1], NULL, 0);
    SEND(1, TCP_FIN | TCP_ACK, nxt[1], nxt[0] + 1, NULL, 0);
    SEND(0, TCP_ACK, nxt[0] + 1, nxt[1] + 1, NULL, 0);
#undef SEND
    *frames = w.packets;
    *bytes = w.bytes;
    if (capw_close(&w) != 0) {
        fprintf(stderr, "mpa-bench: writing %s failed\n", path);
        return -1;
    }
    return 0;
}

/* ---- main ----------------------------------------------------------- */

static void usage(void)
{
    fprintf(stderr, "usage: mpa-bench [--pcap-dir DIR] [--no-crc-table] [--only N] [--mib N]\n"
                    "  --pcap-dir DIR   also write DIR/mpa-64m.pcap (markers and CRC), DIR/mpa-64m-nomarkers.pcap\n"
                    "                   and DIR/libmpa-figures.txt for scripts/bench-tshark.sh\n"
                    "  --no-crc-table   skip section 1\n"
                    "  --only N         decode only framing N (1-4) of section 2 (for profiling)\n"
                    "  --mib N          connection size in MiB, 1-1024 (default 64)\n");
}

int main(int argc, char **argv)
{
    const char *pcap_dir = NULL;
    int crc_table = 1, only = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--pcap-dir") && i + 1 < argc)
            pcap_dir = argv[++i];
        else if (!strcmp(argv[i], "--no-crc-table"))
            crc_table = 0;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--mib") && i + 1 < argc && atoi(argv[i + 1]) > 0 &&
                 atoi(argv[i + 1]) <= 1024) /* segment offsets are 32-bit */
            conn_target = (size_t)atoi(argv[++i]) << 20;
        else {
            usage();
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);

    /* One thread, deliberately not pinned: on a shared machine a pin to
     * the current CPU can land on a busy core, and the scheduler keeps a
     * lone busy thread on one core anyway. */
    printf("mpa-bench: libmpa throughput, one thread; figures are printed, never asserted\n\n");
    long rss0 = max_rss_kib();

    if (crc_table)
        bench_crc();

    printf("== 2. Stream decode: mpa_stream_feed() over a %zu MiB two-direction connection, one call per\n"
           "      TCP segment (mpa_stream_segment() before each), event callback only counts ==\n",
           conn_target >> 20);
    mpa_stream *st = malloc(mpa_stream_size());
    if (!st) {
        perror("malloc");
        return 2;
    }
    static const struct {
        const char *name, *tag;
        int markers, crc;
    } cfgs[] = {
        {"markers+CRC (M=1 C=1)", "m1c1", 1, 1},
        {"CRC off     (M=1 C=0)", "m1c0", 1, 0},
        {"markers off (M=0 C=1)", "m0c1", 0, 1},
        {"both off    (M=0 C=0)", "m0c0", 0, 0},
    };
    FILE *figs = NULL;
    char path[4096];
    if (pcap_dir) {
        snprintf(path, sizeof path, "%s/libmpa-figures.txt", pcap_dir);
        figs = fopen(path, "w");
        if (!figs)
            perror(path);
    }
    int header = 0;
    double main_gbps = -1;
    static char pcap_note[2][4096 + 256];
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
        if (only && (size_t)only != i + 1)
            continue;
        conn_t c;
        build_conn(&c, cfgs[i].name, cfgs[i].markers, cfgs[i].crc);
        if (!header) {
            header = 1;
            if (i == 0)
                describe_conn(&c);
            printf("\n   GB/s = 1e9 octets of TCP payload (both directions) per second, median of >= 5 passes;\n"
                   "   best = fastest pass; hot = the caller prefetches the next segment before each call, as\n"
                   "   if the input had just been received (cold: straight from the %zu MiB buffer)\n\n",
                   conn_target >> 20);
            printf("   %-22s %6s %7s %7s %8s %8s %9s\n", "framing", "MiB", "GB/s", "best", "MFPDU/s",
                   "hot GB/s", "findings");
        }
        stream_fig f = bench_stream(&c, st, !cfgs[i].crc);
        if (i == 0)
            main_gbps = f.gbps_med;
        if (pcap_dir && cfgs[i].crc) {
            int k = cfgs[i].markers ? 0 : 1;
            snprintf(path, sizeof path, "%s/%s", pcap_dir, k ? "mpa-64m-nomarkers.pcap" : "mpa-64m.pcap");
            uint64_t frames = 0, bytes = 0;
            if (write_pcap(&c, path, &frames, &bytes) == 0) {
                snprintf(pcap_note[k], sizeof pcap_note[k],
                         "   %s: %s, %llu frames, %.1f MiB on disk, %.1f MiB of TCP payload, %llu FPDUs\n", path,
                         cfgs[i].name, (unsigned long long)frames, (double)bytes / (1 << 20),
                         (double)c.len / (1 << 20), (unsigned long long)f.fpdus);
                if (figs)
                    fprintf(figs,
                            "%s_pcap=%s\n%s_name=%s\n%s_payload=%zu\n%s_frames=%llu\n%s_fpdus=%llu\n"
                            "%s_secs=%.6f\n%s_gbps=%.3f\n%s_hot_gbps=%.3f\n",
                            cfgs[i].tag, path, cfgs[i].tag, cfgs[i].name, cfgs[i].tag, c.len, cfgs[i].tag,
                            (unsigned long long)frames, cfgs[i].tag, (unsigned long long)f.fpdus, cfgs[i].tag,
                            f.med_secs, cfgs[i].tag, f.gbps_med, cfgs[i].tag, f.gbps_hot);
            }
        }
        free_conn(&c);
    }
    if (main_gbps >= 0)
        printf("   target >= 2 GB/s with markers and CRC (cold): %s (%.2f GB/s)\n",
               main_gbps >= 2.0 ? "met" : "NOT met", main_gbps);
    long rss = max_rss_kib();
    printf("\n   memory: mpa_stream_size() = %zu octets per connection, caller-owned; the engine allocates\n"
           "   nothing.  Process max RSS %.1f MiB (%.1f MiB at start): the bench's own input buffer\n"
           "   (one %zu MiB connection at a time) and its segment list, not the engine.\n\n",
           mpa_stream_size(), (double)rss / 1024, (double)rss0 / 1024, conn_target >> 20);
    free(st);
    if (figs)
        fclose(figs);

    if (pcap_dir) {
        printf("== 3. pcaps for the tshark comparison (Ethernet/IPv4/TCP, handshake, ACKs, FINs) ==\n%s%s\n",
               pcap_note[0], pcap_note[1]);
    }
    return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Adversarial captures (mpa-capgen --adversarial DIR): what an auditor
 * meets when a capture is hostile, broken or merely enormous.  Each file
 * aims at one way to make a capture reader crash, hang, or grow without
 * bound; scripts/audit-robust.sh runs mpa-audit over each with its
 * default limits and checks the exit status, the findings and the peak
 * memory.
 *
 *   flood-syn.pcap       1,000,000 half-open connections: one SYN each
 *   flood-mpa.pcap       30,000 connections that send an MPA Request and
 *                        fall silent, then one clean MPA connection
 *   pdlen-claims.pcap    startup frames whose PD_Length lies (RFC 5044
 *                        7.1.1: at most 512, and equal to what follows)
 *   seq-jumps.pcap       stray segments 2^31, 2^32 - 1, 3 GiB ahead and
 *                        2^30 + 1 back, ACKs 2^31 and 3 GiB ahead (RFC
 *                        9293 3.4: sequence numbers are modulo 2^32)
 *   endless-holes.pcap   ~50 MB of markers+CRC traffic, every other data
 *                        segment of each direction lost, the peer ACKing
 *   ooo-flood.pcap       the first FPDU lost, ~100 MB behind it, no ACK
 *   garbage.pcap         200,000 random records, many with plausible
 *                        Ethernet/IPv4/IPv6/TCP headers holding random
 *                        fields, ending in records libpcap refuses
 *   tiny-snaplen.pcapng  a clean connection with snap length 40
 * and, for limits the eight above do not reach:
 *   pending-flood.pcap   64 Initiators sending 1.25 MiB each before any
 *                        Reply (octets the auditor must hold)
 *   undecided-flood.pcap 10,000 connections that have not shown whether
 *                        they speak MPA, each holding two segments
 *   findings-flood.pcap  1000 MPA connections breaking every FPDU rule
 *   tiny-segments.pcap   one-octet segments, before a Reply and behind a
 *                        lost FPDU
 *   term-flood.pcap      2,000,000 TERMINATE messages in one connection
 *   worst-case.pcap      every limit at once
 *
 * DIR/ADVERSARIAL.tsv says in one line per file what it holds (file name,
 * tab, description).
 *
 * The large files stream through the capture writer (capw.h), the state
 * of their connections a few MiB at most; the small ones are scenarios of the corpus (corpus.h) turned into
 * conversations (conv.h).  Fixed seeds: the same build writes the same
 * bytes.  FPDUs come from libmpa's encoders (RFC 5044 4: markers every
 * 512 octets of sequence space, CRC32C), DDP/RDMAP headers likewise
 * (RFC 5041, RFC 5040).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "capw.h"
#include "conv.h"
#include "corpus.h"
#include "gen.h"
#include "mpa/ddp.h"
#include "mpa/fpdu.h"
#include "mpa/frame.h"
#include "net.h"

#define T0_NS (1704067200ull * 1000000000ull) /* 2024-01-01T00:00:00Z */
#define MSS 1460u
#define SERVER_PORT 18515
#define SMB_PORT 445

#define SYN_FLOOD 1000000u
#define MPA_FLOOD 30000u
#define HOLES_OCTETS (50u << 20)   /* sent; half of it is captured */
#define OOO_OCTETS (100u << 20)
#define OOO_CONNS 8u
#define GARBAGE_RECORDS 200000u
#define GARBAGE_SNAPLEN 1518u      /* an Ethernet frame with a VLAN tag */
#define REFUSED_CAPLEN 300000u     /* over libpcap's 262144: it refuses the record */
#define TINY_SNAPLEN 40u           /* Ethernet + IPv4 + 6 octets of TCP header */

static const char *g_dir;
static FILE *g_man;
static int g_err;

/* ---- helpers ------------------------------------------------------------ */

static uint64_t rnd64(uint64_t *s)
{
    /* xorshift64*: deterministic for a given seed */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

static uint32_t rnd(uint64_t *s, uint32_t n)
{
    return n ? (uint32_t)((rnd64(s) >> 32) % n) : 0;
}

static void rnd_fill(uint64_t *s, uint8_t *p, size_t n)
{
    while (n >= 8) {
        uint64_t v = rnd64(s);
        memcpy(p, &v, 8);
        p += 8;
        n -= 8;
    }
    if (n) {
        uint64_t v = rnd64(s);
        memcpy(p, &v, n);
    }
}

static const char *path_of(const char *file)
{
    static char p[4096];
    snprintf(p, sizeof p, "%s/%s", g_dir, file);
    return p;
}

static int open_file(capw *w, const char *file, capw_format fmt, uint32_t snaplen)
{
    if (capw_open(w, path_of(file), fmt, LINK_ETHERNET, snaplen, "mpa0") != 0) {
        fprintf(stderr, "mpa-capgen: %s: %s\n", path_of(file), strerror(errno));
        g_err = 1;
        return -1;
    }
    return 0;
}

/* Closes w and says what the file holds (stderr and the manifest). */
static void close_file(capw *w, const char *file, const char *desc)
{
    unsigned long long bytes = w->bytes, packets = w->packets;
    if (capw_close(w) != 0) {
        fprintf(stderr, "mpa-capgen: %s: %s\n", path_of(file), strerror(errno));
        g_err = 1;
        return;
    }
    fprintf(stderr, "mpa-capgen: %s: %llu bytes, %llu records\n", path_of(file), bytes, packets);
    fprintf(g_man, "%s\t%s\n", file, desc);
}

/* A whole conversation list into one file (merged by time). */
static void write_convs(const char *file, capw_format fmt, uint32_t snaplen, conv *const *cs, size_t n,
                        const char *desc)
{
    uint64_t bytes = 0;
    if (cap_write(path_of(file), fmt, LINK_ETHERNET, snaplen, "mpa0", cs, n, &bytes) != 0) {
        fprintf(stderr, "mpa-capgen: %s: %s\n", path_of(file), strerror(errno));
        g_err = 1;
        return;
    }
    fprintf(stderr, "mpa-capgen: %s: %llu bytes\n", path_of(file), (unsigned long long)bytes);
    fprintf(g_man, "%s\t%s\n", file, desc);
}

static void conv_of(conv *c, const netpath *np, const cs_scen *s, uint16_t cport, uint16_t sport)
{
    conv_opts o;
    memset(&o, 0, sizeof o);
    o.port[0] = cport;
    o.port[1] = sport;
    conv_init(c, np);
    conv_tcp_from_scen(c, s, &o);
}

/* Flood client i: an address of 198.18.0.0/15 (RFC 2544, benchmarking:
 * 131072 hosts) and a port, so that no two clients share both. */
static void flood_client(netpath *np, uint32_t i)
{
    np->addr[0][0] = 198;
    np->addr[0][1] = (uint8_t)(18 + ((i >> 16) & 1));
    np->addr[0][2] = (uint8_t)(i >> 8);
    np->addr[0][3] = (uint8_t)i;
    np->mac[0][3] = (uint8_t)(i >> 16);
    np->mac[0][4] = (uint8_t)(i >> 8);
    np->mac[0][5] = (uint8_t)i;
}

static uint16_t flood_port(uint32_t i)
{
    /* Clients on one address differ in i >> 17 (0..7), so their ports
     * differ by a non-zero multiple of 7001 modulo 64000. */
    return (uint16_t)(1024u + ((i >> 17) * 7001u + (i & 0x1FFFFu) * 13u) % 64000u);
}

/* ---- 1. half-open connections ----------------------------------------- */

static void gen_flood_syn(void)
{
    capw w;
    if (open_file(&w, "flood-syn.pcap", CAPW_PCAP, 0) != 0)
        return;
    netpath np;
    net_path_init(&np, LINK_ETHERNET, 4, 1, 20);
    uint64_t rng = 0x73796e2d666c6f6full, ts = T0_NS;
    for (uint32_t i = 0; i < SYN_FLOOD && !w.err; i++) {
        flood_client(&np, i);
        np.addr[1][3] = (uint8_t)(20 + i % 4);
        tcpseg t = {flood_port(i), i % 3 == 2 ? SMB_PORT : SERVER_PORT, (uint32_t)rnd64(&rng), 0, TCP_SYN,
                    CONV_SYN_WIN, MSS, CONV_WSCALE};
        net_tcp(&w, &np, 0, ts, &t, NULL, 0, 0, 0, NULL);
        ts += 1000; /* 1 us apart: the whole flood is one second */
    }
    close_file(&w, "flood-syn.pcap",
               "1000000 half-open connections: one SYN each (MSS 1460) from distinct addresses of "
               "198.18.0.0/15 and ports to 192.0.2.20-23 ports 18515 and 445, 1 us apart; nothing else");
}

/* ---- 2. silent MPA connections, then a clean one ----------------------- */

static void gen_flood_mpa(void)
{
    capw w;
    if (open_file(&w, "flood-mpa.pcap", CAPW_PCAP, 0) != 0)
        return;
    netpath np;
    net_path_init(&np, LINK_ETHERNET, 4, 1, 20);
    uint64_t rng = 0x6d70612d666c6f6full, ts = T0_NS;
    uint8_t fr[64];
    for (uint32_t i = 0; i < MPA_FLOOD && !w.err; i++) {
        flood_client(&np, i);
        np.addr[1][3] = (uint8_t)(20 + i % 4);
        uint16_t cp = flood_port(i), sp = i % 3 == 2 ? SMB_PORT : SERVER_PORT;
        uint32_t c0 = (uint32_t)rnd64(&rng), s0 = (uint32_t)rnd64(&rng); /* ISNs */
        /* RFC 5044 7.1: M and C asked for; every fourth an RFC 6581
         * Request offering every RTR type. */
        mpa_frame_enc f;
        memset(&f, 0, sizeof f);
        f.kind = MPA_KEY_REQ;
        f.m = f.c = 1;
        f.rev = 1;
        f.pd_len_override = -1;
        if (i % 4 == 0) {
            f.rev = 2;
            f.s = 1;
            f.enh_present = 1;
            f.enh.a = f.enh.b = f.enh.c = f.enh.d = 1;
            f.enh.ird = f.enh.ord = 16;
        }
        size_t n = 0;
        if (mpa_frame_encode(&f, fr, sizeof fr, &n) != MPA_OK) {
            fprintf(stderr, "mpa-capgen: mpa_frame_encode failed\n");
            exit(2);
        }
        tcpseg syn = {cp, sp, c0, 0, TCP_SYN, CONV_SYN_WIN, MSS, CONV_WSCALE};
        tcpseg synack = {sp, cp, s0, c0 + 1, TCP_SYN | TCP_ACK, CONV_SYN_WIN, MSS, CONV_WSCALE};
        tcpseg ack = {cp, sp, c0 + 1, s0 + 1, TCP_ACK, CONV_WIN, 0, -1};
        tcpseg req = {cp, sp, c0 + 1, s0 + 1, TCP_ACK | TCP_PSH, CONV_WIN, 0, -1};
        tcpseg rack = {sp, cp, s0 + 1, c0 + 1 + (uint32_t)n, TCP_ACK, CONV_WIN, 0, -1};
        net_tcp(&w, &np, 0, ts, &syn, NULL, 0, 0, 0, NULL);
        net_tcp(&w, &np, 1, ts + 2000, &synack, NULL, 0, 0, 0, NULL);
        net_tcp(&w, &np, 0, ts + 4000, &ack, NULL, 0, 0, 0, NULL);
        net_tcp(&w, &np, 0, ts + 6000, &req, fr, n, 0, 0, NULL);
        net_tcp(&w, &np, 1, ts + 8000, &rack, NULL, 0, 0, 0, NULL);
        ts += 10000;
    }
    /* The clean connection after the flood (the corpus' catalogue). */
    cs_scen s;
    cs_init(&s);
    if (cs_case_build("clean-markers", &s) != 0) {
        fprintf(stderr, "mpa-capgen: no scenario clean-markers\n");
        exit(2);
    }
    netpath cp;
    net_path_init(&cp, LINK_ETHERNET, 4, 10, 20);
    conv c;
    conv_of(&c, &cp, &s, 40000, SERVER_PORT);
    conv_times(&c, ts + 1000000, 10000);
    conv_write(&w, &c);
    conv_free(&c);
    cs_free(&s);
    close_file(&w, "flood-mpa.pcap",
               "30000 connections (198.18.0.0/15 to 192.0.2.20-23 ports 18515 and 445) that complete "
               "the handshake, send a correct MPA Request (M=1 C=1; every fourth RFC 6581) and fall "
               "silent: no Reply, no FIN; then the clean-markers scenario from 192.0.2.10:40000 to "
               "192.0.2.20:18515, closed with FINs, which must be reported without error");
}

/* ---- 3. lying PD_Length ------------------------------------------------- */

static mpa_frame_enc frame(mpa_key_kind kind, int claim, const uint8_t *pd, size_t n)
{
    mpa_frame_enc f = cs_req(1, 1);
    f.kind = kind;
    f.pd = pd;
    f.pd_len = n;
    f.pd_len_override = claim;
    return f;
}

static void gen_pdlen(void)
{
    static uint8_t junk[1u << 20];
    uint64_t rng = 0x70646c656e6c6965ull;
    rnd_fill(&rng, junk, sizeof junk);
    cs_scen s[4];
    for (int k = 0; k < 4; k++) {
        cs_init(&s[k]);
        s[k].isn[0] = 0x10000000u * (uint32_t)(k + 1);
        s[k].isn[1] = 0x90000000u + 0x01000000u * (uint32_t)k;
    }
    mpa_frame_enc f;
    /* a: a Request claiming 65535 octets of private data, then 1 MiB of
     * junk in MSS-sized segments and FIN; the Responder closes too. */
    f = frame(MPA_KEY_REQ, 65535, NULL, 0);
    cs_frame(&s[0], 0, &f);
    for (size_t at = 0; at < sizeof junk; at += MSS)
        cs_raw(&s[0], 0, junk + at, sizeof junk - at < MSS ? sizeof junk - at : MSS);
    cs_end(&s[0], 0, 0);
    cs_end(&s[0], 1, 0);
    /* b: a Request claiming 513 octets of private data, and sending them; the
     * Responder closes without replying. */
    f = frame(MPA_KEY_REQ, 513, junk, 513);
    cs_frame(&s[1], 0, &f);
    cs_end(&s[1], 1, 0);
    cs_end(&s[1], 0, 0);
    /* c: a correct Request; the Reply claims 65535, 100 octets follow,
     * then the Responder resets. */
    f = frame(MPA_KEY_REQ, -1, NULL, 0);
    cs_frame(&s[2], 0, &f);
    f = frame(MPA_KEY_REP, 65535, junk, 100);
    cs_frame(&s[2], 1, &f);
    cs_end(&s[2], 1, 1);
    /* d: a Request saying 40 with 10 octets, then both close. */
    f = frame(MPA_KEY_REQ, 40, junk, 10);
    cs_frame(&s[3], 0, &f);
    cs_end(&s[3], 0, 0);
    cs_end(&s[3], 1, 0);

    netpath np;
    net_path_init(&np, LINK_ETHERNET, 4, 10, 20);
    conv c[4];
    conv *cs[4];
    uint64_t t = T0_NS;
    for (int k = 0; k < 4; k++) {
        conv_of(&c[k], &np, &s[k], (uint16_t)(40100 + k), SERVER_PORT);
        t = conv_times(&c[k], t, 10000) + 1000000;
        cs[k] = &c[k];
    }
    write_convs("pdlen-claims.pcap", CAPW_PCAP, 0, cs, 4,
                "four connections from 192.0.2.10 to 192.0.2.20:18515: port 40100 a Request claiming "
                "PD_Length 65535 then 1 MiB of junk and FIN; 40101 a Request with 513 octets of "
                "private data; 40102 a Reply claiming 65535 then 100 octets and RST; 40103 a Request "
                "saying 40 whose connection closes after 10");
    for (int k = 0; k < 4; k++) {
        conv_free(&c[k]);
        cs_free(&s[k]);
    }
}

/* ---- 4. sequence-number jumps ------------------------------------------ */

static void gen_seq_jumps(void)
{
    static uint8_t ul[2048];
    cs_scen s;
    cs_init(&s);
    /* ISNs near the wrap points, so that the jumps cross 2^31 and 2^32. */
    s.isn[0] = 0x7FFFF000u;
    s.isn[1] = 0xFFFFF800u;
    mpa_frame_enc q = cs_req(1, 1), p = cs_rep(1, 1);
    cs_frame(&s, 0, &q);
    cs_frame(&s, 1, &p);
    cs_fpdu_mode(&s, 0, 1);
    cs_fpdu_mode(&s, 1, 1);
    for (unsigned k = 0; k < 24; k++) {
        cs_fpdu(&s, 0, ul, cs_ul_send(ul, sizeof ul, k + 1, 100 + (k * 97) % 1200));
        cs_fpdu(&s, 1, ul, cs_ul_send(ul, sizeof ul, k + 1, 60 + (k * 131) % 1300));
    }
    cs_end(&s, 0, 0);
    cs_end(&s, 1, 0);

    netpath np;
    net_path_init(&np, LINK_ETHERNET, 4, 10, 20);
    conv c;
    conv_of(&c, &np, &s, 40200, SERVER_PORT);
    /* Highest positions first: a stray is a data segment of its
     * direction too, and would shift the later counts.  Data segment 0
     * is the startup frame. */
    static const struct {
        int dir;
        unsigned nth;
        uint32_t delta;
    } j[] = {
        {1, 18, 0xBFFFFFFFu}, /* 2^30 + 1 back */
        {1, 14, 0xC0000000u}, /* 3 GiB ahead */
        {1, 10, 0xFFFFFFFFu}, /* 2^32 - 1 ahead: one octet back */
        {1, 6, 0x80000000u},  /* 2^31 ahead */
        {0, 16, 0xBFFFFFFFu},
        {0, 12, 0xC0000000u},
        {0, 8, 0xFFFFFFFFu},
        {0, 4, 0x80000000u},
    };
    /* The ACKs first: they are not data, the strays are. */
    int bad = conv_stray_ack(&c, 0, 20, 0x80000000u) | conv_stray_ack(&c, 1, 21, 0xC0000000u);
    for (size_t i = 0; i < sizeof j / sizeof j[0]; i++)
        bad |= conv_stray(&c, j[i].dir, j[i].nth, j[i].delta);
    if (bad) {
        fprintf(stderr, "mpa-capgen: seq-jumps: a stray has no place\n");
        exit(2);
    }
    conv_times(&c, T0_NS, 10000);
    conv *cs[1] = {&c};
    write_convs("seq-jumps.pcap", CAPW_PCAP, 0, cs, 1,
                "a clean connection (markers, CRC, 24 Sends each way; ISNs 0x7FFFF000 and 0xFFFFF800) "
                "with stray copies of data segments 2^31 ahead, 2^32 - 1 ahead (one octet back: the "
                "true octets), 3 GiB ahead and 2^30 + 1 back, in each direction, and two ACKs 2^31 and "
                "3 GiB past what was sent; then FINs");
    conv_free(&c);
    cs_free(&s);
}

/* ---- a streaming MPA connection (endless-holes, ooo-flood) ------------ */

#define PATTERN (1u << 17)

typedef struct mdir {
    uint32_t nxt;       /* sequence number of the next octet */
    uint32_t mark_base; /* first octet of FPDU mode (RFC 5044 4.3) */
    int cur;            /* message in progress: 0 none, 1 RDMA Write, 2 Send */
    uint32_t left, mo, stag, msn;
    uint64_t to;
    unsigned data_segs; /* FPDU segments sent */
    unsigned unacked;   /* segments the peer has not acknowledged */
} mdir;

typedef struct mconn {
    netpath np;
    uint16_t port[2];
    int acks;           /* the peer acknowledges every second segment */
    mdir d[2];
} mconn;

typedef struct mgen {
    capw w;
    uint64_t rng, ts;
    unsigned mulpdu;
    uint8_t pattern[PATTERN];
    uint8_t ul[MSS + 64], seg[MSS + 64];
} mgen;

/* One TCP segment of dir (lost: it takes its sequence numbers, it is
 * not written). */
static void m_tcp(mgen *g, mconn *c, int dir, uint8_t flags, uint16_t mss, const uint8_t *p, size_t n, int lost)
{
    tcpseg t;
    t.sport = c->port[dir];
    t.dport = c->port[!dir];
    t.seq = (flags & TCP_SYN) ? c->d[dir].nxt - 1 : c->d[dir].nxt;
    t.ack = c->d[!dir].nxt;
    t.flags = flags;
    t.win = (flags & TCP_SYN) ? CONV_SYN_WIN : CONV_WIN;
    t.mss = mss;
    t.wscale = (int8_t)(mss ? CONV_WSCALE : -1);
    if (!lost)
        net_tcp(&g->w, &c->np, dir, g->ts, &t, p, n, 0, 0, NULL);
    g->ts += 2000;
    c->d[dir].nxt += (uint32_t)n + ((flags & TCP_FIN) ? 1u : 0u);
}

static void m_data(mgen *g, mconn *c, int dir, const uint8_t *p, size_t n, int lost)
{
    m_tcp(g, c, dir, TCP_ACK | TCP_PSH, 0, p, n, lost);
    c->d[!dir].unacked = 0; /* dir's segment acknowledged the peer's */
    if (c->acks && ++c->d[dir].unacked >= 2) {
        m_tcp(g, c, !dir, TCP_ACK, 0, NULL, 0, 0);
        c->d[dir].unacked = 0;
    }
}

/* Handshake, MSS 1460 both ways. */
static void m_handshake(mgen *g, mconn *c, unsigned host, uint16_t cport)
{
    memset(c, 0, sizeof *c);
    net_path_init(&c->np, LINK_ETHERNET, 4, host % 250, 20);
    c->np.addr[0][2] = (uint8_t)(2 + host / 250); /* beyond 250 hosts: 192.0.3.x, ... */
    c->port[0] = cport;
    c->port[1] = SERVER_PORT;
    c->acks = 1;
    for (int d = 0; d < 2; d++)
        c->d[d].nxt = (uint32_t)rnd64(&g->rng) + 1;
    m_tcp(g, c, 0, TCP_SYN, MSS, NULL, 0, 0);
    m_tcp(g, c, 1, TCP_SYN | TCP_ACK, MSS, NULL, 0, 0);
    m_tcp(g, c, 0, TCP_ACK, 0, NULL, 0, 0);
}

/* Handshake and a plain RFC 5044 startup with markers and CRC both
 * ways. */
static void m_start(mgen *g, mconn *c, unsigned host, uint16_t cport)
{
    m_handshake(g, c, host, cport);
    for (int d = 0; d < 2; d++) {
        mpa_frame_enc f = d ? cs_rep(1, 1) : cs_req(1, 1);
        uint8_t fr[64];
        size_t n = 0;
        mpa_frame_encode(&f, fr, sizeof fr, &n);
        m_data(g, c, d, fr, n, 0);
        c->d[d].mark_base = c->d[d].nxt;
    }
}

/* The next FPDU of dir as one segment: RDMA Writes cut at MULPDU and
 * Sends of 64..4096 octets (RFC 5041 5.2, 5.3).  Returns its length. */
static size_t m_fpdu(mgen *g, mconn *c, int dir, int lost)
{
    mdir *d = &c->d[dir];
    if (!d->cur) {
        if (rnd(&g->rng, 4) == 0) {
            d->cur = 2;
            d->msn++;
            d->left = 64 + rnd(&g->rng, 4033);
            d->mo = 0;
        } else {
            d->cur = 1;
            d->stag = 0x00ab0000u | rnd(&g->rng, 0x10000);
            d->to = 0x7f3a00000000ull + (uint64_t)rnd(&g->rng, 1u << 20) * 4096u;
            d->left = (1 + rnd(&g->rng, 32)) * 2048u;
        }
    }
    mpa_ddp u;
    memset(&u, 0, sizeof u);
    u.hdr.dv = u.hdr.rv = 1;
    size_t pay;
    if (d->cur == 2) {
        size_t room = g->mulpdu - MPA_DDP_UNTAGGED_HDR_LEN;
        pay = d->left < room ? d->left : room;
        u.hdr.opcode = MPA_RDMAP_SEND;
        u.hdr.qn = MPA_QN_SEND;
        u.hdr.msn = d->msn;
        u.hdr.mo = d->mo;
        d->mo += (uint32_t)pay;
    } else {
        size_t room = g->mulpdu - MPA_DDP_TAGGED_HDR_LEN;
        pay = d->left < room ? d->left : room;
        u.hdr.tagged = 1;
        u.hdr.opcode = MPA_RDMAP_RDMA_WRITE;
        u.hdr.stag = d->stag;
        u.hdr.to = d->to;
        d->to += pay;
    }
    d->left -= (uint32_t)pay;
    u.hdr.last = d->left == 0;
    if (u.hdr.last)
        d->cur = 0;
    size_t w = 0, n = 0;
    mpa_fpdu_cfg cfg = {1, 1, d->mark_base};
    if (mpa_ddp_encode(&u, g->ul, sizeof g->ul, &w) != MPA_OK)
        goto fail;
    memcpy(g->ul + w, g->pattern + (rnd64(&g->rng) & (PATTERN / 2 - 1)), pay);
    if (mpa_fpdu_encode(g->ul, w + pay, d->nxt, &cfg, NULL, g->seg, sizeof g->seg, &n) != MPA_OK || n > MSS)
        goto fail;
    m_data(g, c, dir, g->seg, n, lost);
    d->data_segs++;
    return n;
fail:
    fprintf(stderr, "mpa-capgen: FPDU encoding failed\n");
    exit(2);
}

static void m_close(mgen *g, mconn *c)
{
    m_tcp(g, c, 0, TCP_FIN | TCP_ACK, 0, NULL, 0, 0);
    m_tcp(g, c, 1, TCP_FIN | TCP_ACK, 0, NULL, 0, 0);
    m_tcp(g, c, 0, TCP_ACK, 0, NULL, 0, 0);
}

static mgen *mgen_new(uint64_t seed)
{
    mgen *g = calloc(1, sizeof *g);
    if (!g) {
        perror("mpa-capgen: calloc");
        exit(2);
    }
    g->rng = seed;
    g->ts = T0_NS;
    g->mulpdu = mpa_mulpdu(MSS, 1);
    rnd_fill(&g->rng, g->pattern, PATTERN);
    return g;
}

/* ---- 5. endless holes -------------------------------------------------- */

static void gen_holes(void)
{
    mgen *g = mgen_new(0x686f6c6573686f6cull);
    if (open_file(&g->w, "endless-holes.pcap", CAPW_PCAP, 0) != 0) {
        free(g);
        return;
    }
    mconn c;
    m_start(g, &c, 10, 40300);
    /* RFC 5044 7.1.2: the Initiator's FPDU comes first.  The first four
     * FPDUs of each direction are captured, then every other one is
     * lost; the peer still ACKs it. */
    uint64_t sent = m_fpdu(g, &c, 0, 0);
    while (sent < HOLES_OCTETS && !g->w.err) {
        int dir = (int)rnd(&g->rng, 2);
        const mdir *d = &c.d[dir];
        sent += m_fpdu(g, &c, dir, d->data_segs >= 4 && (d->data_segs & 1));
    }
    m_close(g, &c);
    close_file(&g->w, "endless-holes.pcap",
               "one clean connection 192.0.2.10:40300 -> 192.0.2.20:18515 (MSS 1460, markers and CRC "
               "both ways, RDMA Writes and Sends, one FPDU per segment), 50 MiB sent; after the first "
               "four FPDUs of each direction every other data segment is lost, its peer still ACKs it");
    free(g);
}

/* ---- 6. out-of-order flood --------------------------------------------- */

static void gen_ooo(void)
{
    mgen *g = mgen_new(0x6f6f6f666c6f6f64ull);
    if (open_file(&g->w, "ooo-flood.pcap", CAPW_PCAP, 0) != 0) {
        free(g);
        return;
    }
    static mconn c[OOO_CONNS];
    for (unsigned k = 0; k < OOO_CONNS; k++) {
        m_start(g, &c[k], 10 + k, (uint16_t)(40400 + k));
        /* From here on the Responder is silent: no ACK settles the hole
         * of the Initiator's first FPDU, lost. */
        c[k].acks = 0;
        m_fpdu(g, &c[k], 0, 1);
    }
    /* Half the octets on the first connection (its direction reaches the
     * per-direction out-of-order limit), the rest spread over the
     * others (together they reach the shared budget first). */
    uint64_t sent = 0;
    while (sent < OOO_OCTETS && !g->w.err) {
        uint32_t r = rnd(&g->rng, 2 * (OOO_CONNS - 1));
        unsigned k = r < OOO_CONNS - 1 ? 0 : 1 + (r - (OOO_CONNS - 1));
        sent += m_fpdu(g, &c[k], 0, 0);
    }
    for (unsigned k = 0; k < OOO_CONNS; k++)
        m_close(g, &c[k]);
    close_file(&g->w, "ooo-flood.pcap",
               "eight connections 192.0.2.10-17:40400-40407 -> 192.0.2.20:18515 (markers, CRC): each "
               "Initiator's first FPDU is lost and 100 MiB follow (half on the first connection) with "
               "no ACK from the Responders until the FINs: only the out-of-order memory limits can "
               "settle the holes");
    free(g);
}

/* ---- 9. octets held before the Reply --------------------------------- */

#define PENDING_CONNS 64u
#define PENDING_OCTETS (5u << 18) /* 80 MiB in all: more than the 64 MiB bound */

static void gen_pending(void)
{
    mgen *g = mgen_new(0x70656e64696e6721ull);
    if (open_file(&g->w, "pending-flood.pcap", CAPW_PCAP, 0) != 0) {
        free(g);
        return;
    }
    static mconn c[PENDING_CONNS];
    uint8_t fr[64];
    size_t n = 0;
    mpa_frame_enc f = cs_req(1, 1);
    mpa_frame_encode(&f, fr, sizeof fr, &n);
    for (unsigned k = 0; k < PENDING_CONNS; k++) {
        m_handshake(g, &c[k], 10 + k, (uint16_t)(40600 + k));
        m_data(g, &c[k], 0, fr, n, 0);
    }
    /* The Initiators go on without waiting for a Reply (RFC 5044 7.1.2
     * says they must wait); the Responders only ACK. */
    for (uint32_t i = 0; i < PENDING_OCTETS / MSS && !g->w.err; i++)
        for (unsigned k = 0; k < PENDING_CONNS; k++)
            m_data(g, &c[k], 0, g->pattern + (i * 1021u) % (PATTERN - MSS), MSS, 0);
    for (unsigned k = 0; k < PENDING_CONNS; k++)
        m_close(g, &c[k]);
    close_file(&g->w, "pending-flood.pcap",
               "64 connections 192.0.2.10-73:40600-40663 -> 192.0.2.20:18515, interleaved: each "
               "Initiator sends a correct Request and then 1.25 MiB without waiting for a Reply, which "
               "never comes (the Responders only ACK); then FINs");
    free(g);
}

/* ---- 10. octets held before MPA is decided ------------------------------ */

#define UNDECIDED_CONNS 10000u
#define UNDECIDED_OCTETS (2u * MSS)

static void gen_undecided(void)
{
    mgen *g = mgen_new(0x756e646563696465ull);
    if (open_file(&g->w, "undecided-flood.pcap", CAPW_PCAP, 0) != 0) {
        free(g);
        return;
    }
    static mconn c[UNDECIDED_CONNS];
    for (unsigned k = 0; k < UNDECIDED_CONNS; k++)
        m_handshake(g, &c[k], 10 + k, (uint16_t)(41000 + k));
    /* Each client sends two segments that are not MPA; the servers only
     * ACK (the other direction never carries payload, so the auditor
     * cannot tell yet whether the connection speaks MPA: it holds the
     * octets, 30 MB in all). */
    for (uint32_t i = 0; i * MSS < UNDECIDED_OCTETS && !g->w.err; i++)
        for (unsigned k = 0; k < UNDECIDED_CONNS; k++) {
            size_t n = UNDECIDED_OCTETS - i * MSS < MSS ? UNDECIDED_OCTETS - i * MSS : MSS;
            m_data(g, &c[k], 0, g->pattern + (k * 7919u + i * 1021u) % (PATTERN - MSS), n, 0);
        }
    for (unsigned k = 0; k < UNDECIDED_CONNS; k++)
        m_close(g, &c[k]);
    close_file(&g->w, "undecided-flood.pcap",
               "10000 connections from 192.0.2-41.x:41000-50999 to 192.0.2.20:18515, interleaved: each "
               "client sends two segments (2920 octets) that are not MPA, the server only ACKs; then FINs");
    free(g);
}

/* ---- 11. findings everywhere ----------------------------------------- */

#define FINDINGS_CONNS 1000u
#define FINDINGS_FPDUS 200u

static void gen_findings(void)
{
    mgen *g = mgen_new(0x66696e64696e6773ull);
    if (open_file(&g->w, "findings-flood.pcap", CAPW_PCAP, 0) != 0) {
        free(g);
        return;
    }
    static mconn c[FINDINGS_CONNS];
    for (unsigned k = 0; k < FINDINGS_CONNS; k++)
        m_start(g, &c[k], 10 + k, (uint16_t)(43000 + k));
    /* Each FPDU: a random ULPDU (DDP and RDMAP headers of random bits)
     * with a correct CRC, or a wrong one, nonzero pad, marker reserved
     * bits: every rule an FPDU can break, broken again and again. */
    for (unsigned i = 0; i < FINDINGS_FPDUS && !g->w.err; i++)
        for (unsigned k = 0; k < FINDINGS_CONNS; k++) {
            int dir = (int)(i & 1);
            mdir *d = &c[k].d[dir];
            size_t len = 18 + rnd(&g->rng, 400), n = 0;
            rnd_fill(&g->rng, g->ul, len);
            mpa_fpdu_faults fl;
            memset(&fl, 0, sizeof fl);
            fl.len_override = -1;
            uint32_t r = rnd(&g->rng, 8);
            if (r == 0)
                fl.crc_mode = 2, fl.crc_xor = 1u << rnd(&g->rng, 32);
            if (r < 3)
                fl.pad_byte = (uint8_t)(1 + rnd(&g->rng, 255));
            if (r == 3)
                fl.marker_reserved = (uint16_t)(1 + rnd(&g->rng, 65535));
            mpa_fpdu_cfg cfg = {1, 1, d->mark_base};
            if (mpa_fpdu_encode(g->ul, len, d->nxt, &cfg, &fl, g->seg, sizeof g->seg, &n) != MPA_OK) {
                fprintf(stderr, "mpa-capgen: FPDU encoding failed\n");
                exit(2);
            }
            m_data(g, &c[k], dir, g->seg, n, 0);
        }
    for (unsigned k = 0; k < FINDINGS_CONNS; k++)
        m_close(g, &c[k]);
    close_file(&g->w, "findings-flood.pcap",
               "1000 MPA connections open at once (markers, CRC), interleaved, each with 200 FPDUs of "
               "random DDP/RDMAP headers, some with a wrong CRC, pad or marker reserved bits");
    free(g);
}

/* ---- 12. one-octet segments -------------------------------------------- */

#define TINY_SEGS 500000u

static void gen_tiny_segs(void)
{
    mgen *g = mgen_new(0x74696e7973656773ull);
    if (open_file(&g->w, "tiny-segments.pcap", CAPW_PCAP, 0) != 0) {
        free(g);
        return;
    }
    /* A: a Request, then one-octet segments that do not wait for the
     * Reply; B: a startup, its first FPDU lost, then the octets that
     * follow in one-octet segments that nobody ACKs. */
    mconn a, b;
    uint8_t fr[64];
    size_t n = 0;
    mpa_frame_enc f = cs_req(1, 1);
    mpa_frame_encode(&f, fr, sizeof fr, &n);
    m_handshake(g, &a, 10, 40700);
    m_data(g, &a, 0, fr, n, 0);
    a.acks = 0;
    m_start(g, &b, 11, 40701);
    b.acks = 0;
    m_fpdu(g, &b, 0, 1);
    uint8_t *stream = malloc(TINY_SEGS + MSS);
    size_t have = 0;
    if (!stream) {
        perror("mpa-capgen: malloc");
        exit(2);
    }
    /* B's octets after the lost FPDU: FPDUs as usual, sent an octet at
     * a time (their sequence numbers are what m_fpdu would use). */
    uint32_t save = b.d[0].nxt;
    while (have < TINY_SEGS) {
        mdir *d = &b.d[0];
        size_t w = 0;
        mpa_ddp u;
        memset(&u, 0, sizeof u);
        u.hdr.dv = u.hdr.rv = u.hdr.last = 1;
        u.hdr.opcode = MPA_RDMAP_SEND;
        u.hdr.qn = MPA_QN_SEND;
        u.hdr.msn = ++d->msn;
        mpa_ddp_encode(&u, g->ul, sizeof g->ul, &w);
        memcpy(g->ul + w, g->pattern, 1000);
        mpa_fpdu_cfg cfg = {1, 1, d->mark_base};
        mpa_fpdu_encode(g->ul, w + 1000, d->nxt, &cfg, NULL, stream + have, MSS, &n);
        d->nxt += (uint32_t)n;
        have += n;
    }
    b.d[0].nxt = save;
    for (uint32_t i = 0; i < TINY_SEGS && !g->w.err; i++) {
        m_data(g, &a, 0, g->pattern + i % PATTERN, 1, 0);
        m_data(g, &b, 0, stream + i, 1, 0);
    }
    free(stream);
    m_close(g, &a);
    m_close(g, &b);
    close_file(&g->w, "tiny-segments.pcap",
               "two connections to 192.0.2.20:18515, interleaved: from 192.0.2.10:40700 a Request, "
               "then 500000 one-octet segments without waiting for the Reply (none comes); from "
               "192.0.2.11:40701 a startup, the first FPDU lost, then 500000 one-octet segments of the "
               "FPDUs after it that nobody ACKs; then FINs");
    free(g);
}

/* ---- 13. TERMINATE after TERMINATE --------------------------------------- */

#define TERMS 2000000u

static void gen_terms(void)
{
    mgen *g = mgen_new(0x7465726d696e6174ull);
    if (open_file(&g->w, "term-flood.pcap", CAPW_PCAP, 0) != 0) {
        free(g);
        return;
    }
    mconn c;
    m_start(g, &c, 10, 40800);
    /* RFC 5040 4.8: a TERMINATE is the last message; here 2,000,000
     * follow each other, packed into full segments. */
    size_t ul = cs_ul_term(g->ul, sizeof g->ul, MPA_TERM_LAYER_LLP, 0, 2);
    for (uint32_t i = 0; i < TERMS && !g->w.err;) {
        mdir *d = &c.d[0];
        size_t len = 0, n = 0;
        mpa_fpdu_cfg cfg = {1, 1, d->mark_base};
        for (; i < TERMS; i++) {
            uint32_t seq = d->nxt + (uint32_t)len;
            if (len + mpa_fpdu_wire_len((uint16_t)ul, seq, &cfg) > MSS)
                break;
            mpa_fpdu_encode(g->ul, ul, seq, &cfg, NULL, g->seg + len, sizeof g->seg - len, &n);
            len += n;
        }
        m_data(g, &c, 0, g->seg, len, 0);
    }
    m_close(g, &c);
    close_file(&g->w, "term-flood.pcap",
               "one connection 192.0.2.10:40800 -> 192.0.2.20:18515 (markers, CRC) whose Initiator "
               "sends 2000000 TERMINATE messages (LLP, MPA code 2), about 52 to a segment; then FINs");
    free(g);
}

/* ---- 14. every limit at once ------------------------------------------ */

#define WORST_UNDECIDED 8999u
#define WORST_OOO 500u
#define WORST_FINDINGS 500u
#define WORST_FRAGS 4096u

/* The first fragment (MF, offset 0) of an IPv4 datagram whose rest never
 * comes: n octets of TCP segment. */
static void first_fragment(mgen *g, uint32_t i, size_t n)
{
    uint8_t *p = capw_begin(&g->w, 14 + 20 + n);
    netpath np;
    net_path_init(&np, LINK_ETHERNET, 4, 10 + i % 200, 20);
    net_put_link(p, &np, 0, 0x0800);
    uint8_t *ip = p + 14;
    net_put_ipv4(ip, np.addr[0], np.addr[1], (uint16_t)i, NET_IP4_MF, NET_PROTO_TCP, n); /* offset 0 */
    uint8_t *tcp = ip + 20;
    memcpy(tcp, g->pattern + i % 1024, n);
    put_be16(tcp, (uint16_t)(50000 + i % 10000));
    put_be16(tcp + 2, SERVER_PORT);
    tcp[12] = 0x50;
    capw_commit(&g->w, g->ts, 14 + 20 + n, NULL);
    g->ts += 2000;
}

static void gen_worst(void)
{
    mgen *g = mgen_new(0x776f727374636173ull);
    if (open_file(&g->w, "worst-case.pcap", CAPW_PCAP, 0) != 0) {
        free(g);
        return;
    }
    static mconn first, und[WORST_UNDECIDED], ooo[WORST_OOO], fnd[WORST_FINDINGS];
    /* One MPA connection open from the first packet to the last: every
     * report after it waits for its turn. */
    m_start(g, &first, 10, 44000);
    m_fpdu(g, &first, 0, 0);
    /* Connections that have not shown whether they speak MPA, each
     * holding a segment (the connection table fills up). */
    for (unsigned k = 0; k < WORST_UNDECIDED; k++) {
        m_handshake(g, &und[k], 1000 + k, (uint16_t)(45000 + k));
        m_data(g, &und[k], 0, g->pattern + k % 4096, 700, 0);
    }
    /* MPA connections, half with their first FPDU lost and data queued
     * out of order behind it (the memory for held data fills up), half
     * sending FPDUs of random DDP headers (findings pile up). */
    for (unsigned k = 0; k < WORST_OOO; k++) {
        m_start(g, &ooo[k], 10000 + k, (uint16_t)(54000 + k));
        ooo[k].acks = 0;
        m_fpdu(g, &ooo[k], 0, 1);
    }
    for (unsigned k = 0; k < WORST_FINDINGS; k++)
        m_start(g, &fnd[k], 11000 + k, (uint16_t)(55000 + k));
    for (unsigned i = 0; i < 40; i++) {
        for (unsigned k = 0; k < WORST_OOO; k++)
            m_fpdu(g, &ooo[k], 0, 0);
        for (unsigned k = 0; k < WORST_FINDINGS; k++) {
            mdir *d = &fnd[k].d[i & 1];
            size_t len = 18 + rnd(&g->rng, 200), n = 0;
            rnd_fill(&g->rng, g->ul, len);
            mpa_fpdu_cfg cfg = {1, 1, d->mark_base};
            mpa_fpdu_encode(g->ul, len, d->nxt, &cfg, NULL, g->seg, sizeof g->seg, &n);
            m_data(g, &fnd[k], (int)(i & 1), g->seg, n, 0);
        }
    }
    /* IP fragments whose datagrams never complete (the reassembly
     * memory fills up). */
    for (uint32_t i = 0; i < WORST_FRAGS; i++)
        first_fragment(g, i, 1400);
    /* The MPA connections end (their reports wait for the first one's). */
    for (unsigned k = 0; k < WORST_FINDINGS; k++)
        m_close(g, &fnd[k]);
    for (unsigned k = 0; k < WORST_OOO; k++)
        m_close(g, &ooo[k]);
    m_close(g, &first);
    close_file(&g->w, "worst-case.pcap",
               "every limit at once: one MPA connection open throughout; 8999 connections that have sent "
               "a segment but not shown whether they speak MPA; 500 MPA connections whose first FPDU is "
               "lost with 40 more queued behind it (no ACK); 500 MPA connections sending 40 FPDUs of "
               "random DDP headers each; 4096 IPv4 datagrams of which only the first fragment comes; "
               "then the MPA connections close, the first one last");
    free(g);
}

/* ---- 7. garbage ----------------------------------------------------------- */

typedef struct garb {
    capw w;
    uint64_t rng;
    uint32_t sec, usec;
    uint8_t rec[16 + REFUSED_CAPLEN];
} garb;

static void garb_time(garb *g)
{
    uint32_t r = rnd(&g->rng, 1000);
    if (r == 0) {
        g->sec -= rnd(&g->rng, 3600);        /* backwards */
    } else if (r < 3) {
        g->sec += 600 + rnd(&g->rng, 86400); /* past the idle time */
    } else {
        g->usec += 1 + rnd(&g->rng, 20000);
        g->sec += g->usec / 1000000u;
        g->usec %= 1000000u;
    }
}

/* One record: header (timestamp, caplen, original length) + data. */
static void garb_record(garb *g, uint32_t caplen, uint32_t origlen, size_t datalen)
{
    uint32_t usec = rnd(&g->rng, 2000) == 0 ? 1000000u + rnd(&g->rng, 1u << 30) : g->usec; /* out of range */
    capw_pcap_rechdr(g->rec, g->sec, usec, caplen, origlen);
    capw_raw(&g->w, g->rec, 16 + datalen);
    g->w.packets++;
}

static void pool_addr4(garb *g, uint8_t *p)
{
    if (rnd(&g->rng, 10) < 7) {
        static const uint8_t base[4] = {192, 0, 2, 0};
        memcpy(p, base, 4);
        p[3] = (uint8_t)(10 + rnd(&g->rng, 8));
    } else {
        rnd_fill(&g->rng, p, 4);
    }
}

static void pool_addr6(garb *g, uint8_t *p)
{
    if (rnd(&g->rng, 10) < 7) {
        static const uint8_t base[16] = {0x20, 0x01, 0x0d, 0xb8};
        memcpy(p, base, 16);
        p[15] = (uint8_t)(10 + rnd(&g->rng, 8));
    } else {
        rnd_fill(&g->rng, p, 16);
    }
}

static uint16_t pool_port(garb *g)
{
    static const uint16_t ports[] = {SERVER_PORT, SMB_PORT, 5445, 40000, 40001, 40002, 40003, 80};
    return rnd(&g->rng, 10) < 7 ? ports[rnd(&g->rng, 8)] : (uint16_t)rnd(&g->rng, 65536);
}

/* A TCP header with random fields at p (room octets available); returns
 * its length. */
static size_t garb_tcp(garb *g, uint8_t *p, size_t room)
{
    if (room < 20)
        return room;
    put_be16(p, pool_port(g));
    put_be16(p + 2, pool_port(g));
    /* Sequence numbers: often from a small set, so that random segments
     * meet in the same connections at nearby offsets. */
    uint32_t r = rnd(&g->rng, 10);
    put_be32(p + 4, r < 5 ? 0x10000000u * rnd(&g->rng, 4) + rnd(&g->rng, 70000) : (uint32_t)rnd64(&g->rng));
    put_be32(p + 8, r < 5 ? 0x90000000u + rnd(&g->rng, 70000) : (uint32_t)rnd64(&g->rng));
    unsigned doff;
    r = rnd(&g->rng, 20);
    doff = r < 14 ? 5 : r < 17 ? 6 + rnd(&g->rng, 10) : rnd(&g->rng, 16);
    p[12] = (uint8_t)(doff << 4 | rnd(&g->rng, 16));
    r = rnd(&g->rng, 10);
    p[13] = (uint8_t)(r < 3 ? TCP_SYN : r < 5 ? (TCP_ACK | TCP_PSH) : r < 6 ? (TCP_FIN | TCP_ACK) : rnd(&g->rng, 256));
    /* window, checksum, urgent pointer: left random */
    size_t hl = doff * 4u;
    if (doff > 5 && hl <= room) {
        /* Options: plausible ones, then lengths that lie (0, 1, past the
         * end), EOL and NOP. */
        uint8_t *o = p + 20, *end = p + hl;
        while (o < end) {
            uint32_t k = rnd(&g->rng, 8);
            if (k == 0)
                *o++ = 0; /* EOL */
            else if (k == 1)
                *o++ = 1; /* NOP */
            else if (k == 2 && end - o >= 4) {
                o[0] = 2, o[1] = 4, put_be16(o + 2, (uint16_t)rnd(&g->rng, 65536)), o += 4;
            } else if (k == 3 && end - o >= 3) {
                o[0] = 3, o[1] = 3, o[2] = (uint8_t)rnd(&g->rng, 256), o += 3;
            } else {
                o[0] = (uint8_t)rnd(&g->rng, 256);
                if (end - o >= 2)
                    o[1] = (uint8_t)(k == 4 ? 0 : k == 5 ? 1 : rnd(&g->rng, 256));
                o += end - o >= 2 ? 2 : 1;
            }
        }
    }
    if (hl > room)
        return room;
    /* Some payloads start like an MPA startup frame, so that random
     * octets reach the MPA engine too. */
    if (room - hl >= 20 && rnd(&g->rng, 6) == 0) {
        memcpy(p + hl, rnd(&g->rng, 2) ? "MPA ID Req Frame" : "MPA ID Rep Frame", 16);
        if (rnd(&g->rng, 2))
            p[hl + 16] = (uint8_t)(rnd(&g->rng, 2) ? 0xC0 : 0x40), p[hl + 17] = 1; /* M C, Rev 1 */
    }
    return hl;
}

static void gen_garbage(void)
{
    garb *g = calloc(1, sizeof *g);
    if (!g) {
        perror("mpa-capgen: calloc");
        exit(2);
    }
    g->rng = 0x67617262616765ull;
    g->sec = (uint32_t)(T0_NS / 1000000000ull);
    if (open_file(&g->w, "garbage.pcap", CAPW_PCAP, GARBAGE_SNAPLEN) != 0) {
        free(g);
        return;
    }
    uint8_t *b = g->rec + 16;
    for (uint32_t i = 0; i < GARBAGE_RECORDS && !g->w.err; i++) {
        garb_time(g);
        /* Lengths 0..snaplen, mostly short. */
        uint32_t len = rnd(&g->rng, rnd(&g->rng, GARBAGE_SNAPLEN + 1) + 1);
        rnd_fill(&g->rng, b, len);
        if (rnd(&g->rng, 10) >= 3 && len >= 14) {
            /* Ethernet, perhaps tagged, then IPv4 or IPv6 with random
             * fields. */
            size_t o = 12;
            uint32_t tags = rnd(&g->rng, 10) == 0 ? 1 + rnd(&g->rng, 3) : 0;
            for (uint32_t t = 0; t < tags && o + 6 <= len; t++, o += 4)
                put_be16(b + o, rnd(&g->rng, 2) ? 0x8100 : 0x88A8);
            uint32_t r = rnd(&g->rng, 20);
            int v = r < 15 ? 4 : r < 19 ? 6 : 0;
            if (o + 2 <= len)
                put_be16(b + o, v == 4 ? 0x0800 : v == 6 ? 0x86DD : (uint16_t)rnd(&g->rng, 65536));
            o += 2;
            uint8_t *ip = b + o;
            size_t room = len > o ? len - o : 0;
            if (v == 4 && room >= 20) {
                r = rnd(&g->rng, 10);
                unsigned ihl = r < 7 ? 5 : r < 9 ? 6 + rnd(&g->rng, 10) : rnd(&g->rng, 16);
                ip[0] = (uint8_t)((rnd(&g->rng, 10) ? 0x40 : rnd(&g->rng, 16) << 4) | ihl);
                r = rnd(&g->rng, 4);
                put_be16(ip + 2, (uint16_t)(r < 2 ? room : r < 3 ? room + 8 - rnd(&g->rng, 16) : rnd(&g->rng, 65536)));
                put_be16(ip + 4, (uint16_t)rnd(&g->rng, 64)); /* identification: few values, fragments meet */
                r = rnd(&g->rng, 10);
                put_be16(ip + 6, (uint16_t)(r < 7 ? 0x4000 : r < 8 ? 0 : rnd(&g->rng, 65536)));
                r = rnd(&g->rng, 20);
                ip[9] = (uint8_t)(r < 17 ? 6 : r < 18 ? 17 : rnd(&g->rng, 256));
                pool_addr4(g, ip + 12);
                pool_addr4(g, ip + 16);
                if (ihl >= 5 && ihl * 4u < room)
                    garb_tcp(g, ip + ihl * 4u, room - ihl * 4u);
            } else if (v == 6 && room >= 40) {
                ip[0] = (uint8_t)(0x60 | rnd(&g->rng, 16));
                r = rnd(&g->rng, 4);
                put_be16(ip + 4, (uint16_t)(r < 2 ? room - 40 : r < 3 ? room - 40 + 8 - rnd(&g->rng, 16)
                                                                  : rnd(&g->rng, 65536)));
                pool_addr6(g, ip + 8);
                pool_addr6(g, ip + 24);
                /* A chain of extension headers (Hop-by-Hop, Routing,
                 * Fragment, Destination Options) with random lengths. */
                size_t at = 40;
                uint8_t *nh = ip + 6;
                uint32_t next = rnd(&g->rng, 3);
                while (next-- && at + 8 <= room) {
                    static const uint8_t ext[4] = {0, 43, 44, 60};
                    uint8_t t = ext[rnd(&g->rng, 4)];
                    *nh = t;
                    nh = ip + at;
                    size_t el = t == 44 ? 8 : 8u * (1 + rnd(&g->rng, rnd(&g->rng, 2) ? 2 : 256));
                    ip[at + 1] = (uint8_t)(t == 44 ? 0 : el / 8 - 1);
                    if (t == 44)
                        put_be16(ip + at + 2, (uint16_t)(rnd(&g->rng, 2) ? 1 : rnd(&g->rng, 65536)));
                    at += el;
                }
                *nh = (uint8_t)(rnd(&g->rng, 10) < 8 ? 6 : rnd(&g->rng, 256));
                if (at < room)
                    garb_tcp(g, ip + at, room - at);
            }
        }
        uint32_t orig = len;
        uint32_t r = rnd(&g->rng, 20);
        if (r == 0)
            orig = len ? rnd(&g->rng, len) : 0;       /* shorter than captured */
        else if (r == 1)
            orig = (uint32_t)rnd64(&g->rng);          /* anything */
        else if (r < 4)
            orig = len + rnd(&g->rng, 65536);         /* cut by the snap length */
        garb_record(g, len, orig, len);
    }
    /* Records over the snap length: up to libpcap's limit (262144) it
     * keeps the first snaplen octets and goes on; past it, it refuses
     * the record and reading stops there. */
    for (int k = 0; k < 3; k++) {
        uint32_t len = GARBAGE_SNAPLEN + 1 + rnd(&g->rng, 60000);
        rnd_fill(&g->rng, g->rec + 16, len);
        garb_time(g);
        garb_record(g, len, len, len);
    }
    unsigned long long refused_at = (unsigned long long)g->w.bytes, refused_rec = g->w.packets + 1;
    rnd_fill(&g->rng, g->rec + 16, REFUSED_CAPLEN);
    garb_record(g, REFUSED_CAPLEN, REFUSED_CAPLEN, REFUSED_CAPLEN);
    for (int k = 0; k < 2; k++) {
        uint32_t len = 60;
        rnd_fill(&g->rng, g->rec + 16, len);
        garb_record(g, len, len, len);
    }
    char desc[600];
    snprintf(desc, sizeof desc,
             "Ethernet, snaplen %u: %u records of 0..%u random octets (mostly short), 70%% of them "
             "with plausible Ethernet (0-3 VLAN tags) / IPv4 / IPv6 (extension header chains) / TCP "
             "headers holding random fields (IHL, data offset, options, flags, fragment fields, "
             "lengths; MPA keys in some payloads), timestamps that jump back and forth, original "
             "lengths that lie; then 3 records with caplen over the snap length and record %llu at "
             "byte offset %llu with caplen %u, which libpcap refuses (2 more records follow it)",
             GARBAGE_SNAPLEN, GARBAGE_RECORDS, GARBAGE_SNAPLEN, refused_rec, refused_at, REFUSED_CAPLEN);
    close_file(&g->w, "garbage.pcap", desc);
    free(g);
}

/* ---- 8. tiny snap length -------------------------------------------------- */

static void gen_tiny(void)
{
    cs_scen s;
    cs_init(&s);
    if (cs_case_build("clean-markers", &s) != 0) {
        fprintf(stderr, "mpa-capgen: no scenario clean-markers\n");
        exit(2);
    }
    netpath np;
    net_path_init(&np, LINK_ETHERNET, 4, 10, 20);
    conv c;
    conv_of(&c, &np, &s, 40500, SERVER_PORT);
    conv_times(&c, T0_NS, 10000);
    conv *cs[1] = {&c};
    write_convs("tiny-snaplen.pcapng", CAPW_PCAPNG, TINY_SNAPLEN, cs, 1,
                "the clean-markers scenario captured with snaplen 40 (pcapng): Ethernet and IPv4 "
                "headers whole, every TCP header cut after 6 octets");
    conv_free(&c);
    cs_free(&s);
}

int gen_adversarial(const char *outdir)
{
    g_dir = outdir;
    g_err = 0;
    char man[4096];
    snprintf(man, sizeof man, "%s/ADVERSARIAL.tsv", outdir);
    g_man = fopen(man, "w");
    if (!g_man) {
        fprintf(stderr, "mpa-capgen: %s: %s\n", man, strerror(errno));
        return 2;
    }
    gen_flood_syn();
    gen_flood_mpa();
    gen_pdlen();
    gen_seq_jumps();
    gen_holes();
    gen_ooo();
    gen_garbage();
    gen_tiny();
    gen_pending();
    gen_undecided();
    gen_findings();
    gen_tiny_segs();
    gen_terms();
    gen_worst();
    if (fclose(g_man) != 0) {
        fprintf(stderr, "mpa-capgen: %s: %s\n", man, strerror(errno));
        g_err = 1;
    }
    return g_err ? 2 : 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Seed inputs for the libFuzzer targets, built with libmpa's encoders:
 *
 *   mkseeds OUTDIR     writes OUTDIR/<target>/<name> for fuzz_frame,
 *                      fuzz_fpdu, fuzz_ddp and fuzz_stream
 *
 * The FPDU seeds include the two vectors of draft-culley-iwarp-mpa-03
 * 7.2, Figures 5 and 6 (tests/unit/test_fpdu.c holds them whole); the
 * encoder's output is checked against their CRC octets, so a wrong
 * encoder cannot seed quietly.
 * The input formats are described at the top of each target.  Seeds are
 * generated, never checked in.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "corpus.h"

static const char *outdir;
static unsigned nseeds;

static void mkdir_p(const char *path)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        perror(path);
        exit(2);
    }
}

static void seed(const char *target, const char *name, const uint8_t *p, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", outdir, target);
    mkdir_p(path);
    snprintf(path, sizeof path, "%s/%s/%s", outdir, target, name);
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0) {
        perror(path);
        exit(2);
    }
    nseeds++;
}

static void must(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "mkseeds: %s\n", what);
        exit(2);
    }
}

/* ---- fuzz_frame ------------------------------------------------------- */

static void frame_seed(const char *name, const mpa_frame_enc *f, size_t cut)
{
    uint8_t buf[MPA_FRAME_HDR_LEN + MPA_ENH_LEN + 600];
    size_t w = 0;
    must(mpa_frame_encode(f, buf, sizeof buf, &w) == MPA_OK, "frame encode");
    seed("fuzz_frame", name, buf, cut && cut < w ? cut : w);
}

static void frame_seeds(void)
{
    static const uint8_t pd[40] = "ULP private data for the fuzz seeds....";
    mpa_frame_enc q = cs_req(1, 1), p = cs_rep(1, 1);
    frame_seed("request", &q, 0);
    frame_seed("reply", &p, 0);
    frame_seed("request-cut18", &q, 18);
    q.pd = pd;
    q.pd_len = sizeof pd;
    frame_seed("request-pd", &q, 0);
    mpa_frame_enc qe = cs_enh(cs_req(1, 1), 1, 1, 1, 1, 16, 16);
    qe.pd = pd;
    qe.pd_len = 8;
    frame_seed("request-enhanced", &qe, 0);
    mpa_frame_enc pe = cs_enh(cs_rep(0, 1), 1, 0, 1, 0, MPA_IRD_ORD_MAX, MPA_IRD_ORD_MAX);
    frame_seed("reply-enhanced", &pe, 0);
    mpa_frame_enc rj = cs_rep(0, 0);
    rj.r = 1;
    frame_seed("reply-reject", &rj, 0);
    mpa_frame_enc lie = cs_req(0, 1);
    lie.pd = pd;
    lie.pd_len = 10;
    lie.pd_len_override = 20;
    frame_seed("request-pdlen-lie", &lie, 0);
    mpa_frame_enc k = cs_startkey(1, 1);
    frame_seed("startkey", &k, 0);
    mpa_frame_enc r = cs_req(0, 1);
    r.kind = MPA_KEY_RTR2007;
    frame_seed("rtr2007", &r, 0);
    uint8_t bad[16];
    memcpy(bad, "MPA ID Req Frame", 16);
    bad[10] = 'f';
    mpa_frame_enc u = cs_req(0, 1);
    u.raw_key = bad;
    frame_seed("unknown-key", &u, 0);
}

/* ---- fuzz_fpdu -------------------------------------------------------- */

/* The 6 configuration octets of fuzz_fpdu.c, then the FPDU encoded. */
static void fpdu_seed(const char *name, int markers, int crc, uint32_t seq, uint32_t mark_base,
                      const uint8_t *ulpdu, size_t n, const uint8_t *crc_expect)
{
    static uint8_t buf[6 + MPA_FPDU_WIRE_MAX];
    uint32_t phase = (seq - mark_base) & (MPA_MARKER_INTERVAL - 1);
    /* bit 7: the target fixes up a CRC that mutations broke */
    buf[0] = (uint8_t)(0x80 | (markers ? 1 : 0) | (crc ? 2 : 0) | (phase >> 8 & 1) << 2);
    buf[1] = (uint8_t)phase;
    buf[2] = (uint8_t)(seq >> 24);
    buf[3] = (uint8_t)(seq >> 16);
    buf[4] = (uint8_t)(seq >> 8);
    buf[5] = (uint8_t)seq;
    mpa_fpdu_cfg cfg = {markers, crc, mark_base};
    size_t w = 0;
    must(mpa_fpdu_encode(ulpdu, n, seq, &cfg, NULL, buf + 6, sizeof buf - 6, &w) == MPA_OK,
         "FPDU encode");
    if (crc_expect && memcmp(buf + 6 + w - 4, crc_expect, 4) != 0) {
        fprintf(stderr, "mkseeds: %s: CRC octets %02x %02x %02x %02x, the draft has %02x %02x %02x %02x\n",
                name, buf[6 + w - 4], buf[6 + w - 3], buf[6 + w - 2], buf[6 + w - 1], crc_expect[0],
                crc_expect[1], crc_expect[2], crc_expect[3]);
        exit(2);
    }
    seed("fuzz_fpdu", name, buf, 6 + w);
}

static void fpdu_seeds(void)
{
    /* draft-03 7.2, Figures 5 and 6: a 42-octet ULPDU (untagged Send,
     * DV=0 RV=0 as the draft predates the final versions). */
    uint8_t ul5[42], ul6[42];
    memset(ul5, 0, sizeof ul5);
    ul5[0] = 0x40;
    ul5[1] = 0x03;
    ul5[13] = 1; /* MSN 1 */
    memcpy(ul6, ul5, sizeof ul6);
    ul6[13] = 2; /* MSN 2 */
    static const uint8_t crc5[4] = {0x4c, 0x86, 0xb3, 0x84};
    static const uint8_t crc6[4] = {0xa1, 0x9c, 0xd1, 0x03};
    fpdu_seed("draft-fig5", 1, 1, 0, 0, ul5, sizeof ul5, crc5);
    fpdu_seed("draft-fig6", 1, 1, 492, 0, ul6, sizeof ul6, crc6);

    static uint8_t ul[70000];
    size_t n = cs_ul_send(ul, sizeof ul, 1, 24);
    fpdu_seed("send-plain", 0, 1, 1000, 0, ul, n, NULL);
    fpdu_seed("send-nocrc", 0, 0, 7, 0, ul, n, NULL);
    n = cs_ul_write(ul, sizeof ul, 0x1234, 0x1000, 1200);
    fpdu_seed("write-3-markers-wrap", 1, 1, 0xFFFFFF00u, 0xFFFFFE00u, ul, n, NULL);
    fpdu_seed("empty-ulpdu", 1, 1, 510, 0, ul, 0, NULL);
    n = cs_ul_send(ul, sizeof ul, 3, 1);
    fpdu_seed("marker-splits-length", 1, 1, 511, 0, ul, n, NULL);
}

/* ---- fuzz_ddp --------------------------------------------------------- */

static void ddp_seed(const char *name, const mpa_ddp *d, size_t payload)
{
    uint8_t buf[2 + MPA_DDP_MAX_STRUCT_LEN + 64];
    size_t w = 0;
    must(mpa_ddp_encode(d, buf + 2, sizeof buf - 2, &w) == MPA_OK, "DDP encode");
    must(w + payload <= sizeof buf - 2, "DDP seed too long");
    for (size_t i = 0; i < payload; i++)
        buf[2 + w + i] = (uint8_t)(i * 7 + 1);
    size_t ulen = w + payload;
    buf[0] = (uint8_t)(ulen >> 8);
    buf[1] = (uint8_t)ulen;
    seed("fuzz_ddp", name, buf, 2 + ulen);
}

static void ddp_seeds(void)
{
    static const struct {
        const char *name;
        unsigned op, qn;
    } untagged[] = {
        {"send", MPA_RDMAP_SEND, MPA_QN_SEND},
        {"send-inv", MPA_RDMAP_SEND_INVALIDATE, MPA_QN_SEND},
        {"send-se", MPA_RDMAP_SEND_SE, MPA_QN_SEND},
        {"send-se-inv", MPA_RDMAP_SEND_SE_INVALIDATE, MPA_QN_SEND},
        {"immediate", MPA_RDMAP_IMMEDIATE, MPA_QN_SEND},
        {"immediate-se", MPA_RDMAP_IMMEDIATE_SE, MPA_QN_SEND},
        {"atomic-resp", MPA_RDMAP_ATOMIC_RESPONSE, MPA_QN_ATOMIC_RESP},
        {"opcode-8", 0x8, 0},
    };
    for (size_t i = 0; i < sizeof untagged / sizeof untagged[0]; i++) {
        mpa_ddp d = cs_ul_untagged(untagged[i].op, untagged[i].qn, 5);
        if (untagged[i].op == MPA_RDMAP_SEND_INVALIDATE ||
            untagged[i].op == MPA_RDMAP_SEND_SE_INVALIDATE)
            d.hdr.rsvdulp = 0xABCD;
        d.u.imm.data = 0x0123456789abcdefull;
        if (untagged[i].op == MPA_RDMAP_ATOMIC_RESPONSE) {
            d.u.atomic_resp.orig_req_id = 9;
            d.u.atomic_resp.orig_value = 77;
        }
        ddp_seed(untagged[i].name, &d, 16);
    }
    mpa_ddp d = cs_ul_tagged(MPA_RDMAP_RDMA_WRITE, 0x77, 0x1000);
    ddp_seed("write", &d, 32);
    ddp_seed("rtr-write", &d, 0);
    d = cs_ul_tagged(MPA_RDMAP_READ_RESPONSE, 0x78, 0x2000);
    ddp_seed("read-resp", &d, 32);
    d = cs_ul_untagged(MPA_RDMAP_READ_REQUEST, MPA_QN_READ_REQUEST, 1);
    d.u.rreq.sink_stag = 0x1000;
    d.u.rreq.sink_to = 0x2000;
    d.u.rreq.size = 4096;
    d.u.rreq.src_stag = 0x3000;
    d.u.rreq.src_to = 0x4000;
    ddp_seed("read-req", &d, 0);
    d.u.rreq.size = 0;
    ddp_seed("rtr-read", &d, 0);
    d = cs_ul_untagged(MPA_RDMAP_ATOMIC_REQUEST, MPA_QN_READ_REQUEST, 2);
    d.u.atomic_req.aop = MPA_ATOMIC_CMP_SWAP;
    d.u.atomic_req.req_id = 3;
    d.u.atomic_req.stag = 0x99;
    d.u.atomic_req.to = 0x8000;
    d.u.atomic_req.add_swap_data = 1;
    d.u.atomic_req.compare_data = 2;
    ddp_seed("atomic-req", &d, 0);
    d = cs_ul_untagged(MPA_RDMAP_TERMINATE, MPA_QN_TERMINATE, 1);
    d.u.term.layer = MPA_TERM_LAYER_LLP;
    d.u.term.etype = 0;
    d.u.term.code = 7;
    ddp_seed("terminate-llp", &d, 0);
    /* A Terminate copying the Read Request it refuses: M, D and R. */
    d.u.term.layer = MPA_TERM_LAYER_DDP;
    d.u.term.etype = 2;
    d.u.term.code = 1;
    d.u.term.m = d.u.term.d = d.u.term.r = 1;
    d.u.term.seglen = 46;
    d.u.term.ddp_hdr = cs_ul_untagged(MPA_RDMAP_READ_REQUEST, 7, 1).hdr;
    d.u.term.rreq.size = 512;
    ddp_seed("terminate-mdr", &d, 0);
    d.u.term.r = 0;
    d.u.term.ddp_hdr = cs_ul_tagged(MPA_RDMAP_RDMA_WRITE, 0x55, 0).hdr;
    ddp_seed("terminate-md-tagged", &d, 0);
}

/* ---- fuzz_stream ------------------------------------------------------ */

typedef struct script {
    uint8_t b[1 << 17];
    size_t n;
} script_t;

static script_t sc_out;

static void sput(script_t *s, uint8_t v)
{
    must(s->n < sizeof s->b, "stream seed too long");
    s->b[s->n++] = v;
}

/* A record of fuzz_stream.c's script: [ctl][len][octets]. */
static void srec(script_t *s, uint8_t ctl, const uint8_t *p, size_t n)
{
    must(n <= 255, "record too long");
    sput(s, ctl);
    sput(s, (uint8_t)n);
    for (size_t i = 0; i < n; i++)
        sput(s, p[i]);
}

/* A scenario of the corpus as a script: each chunk one segment, split
 * into records of at most 255 octets. */
static void scen_seed(const char *name, const cs_scen *sc)
{
    script_t *s = &sc_out;
    s->n = 0;
    sput(s, 0x04); /* no startup prepended (the scenario has its own), EMSS 1460 */
    for (size_t c = 0; c < sc->nch; c++) {
        const cs_chunk *ch = &sc->ch[c];
        if (ch->kind == CS_LOST) {
            /* Holes: records of len * 64 octets, then of len octets. */
            size_t left = ch->len;
            while (left) {
                size_t big = left / 64 > 255 ? 255 : left / 64;
                size_t k = big ? big * 64 : left;
                uint8_t ctl = (uint8_t)(0xD0 | (big ? 2 : 0) | ch->dir);
                sput(s, ctl);
                sput(s, (uint8_t)(big ? big : k));
                left -= k;
            }
            continue;
        }
        if (ch->kind != CS_DATA) {
            srec(s, (uint8_t)((ch->kind == CS_RST ? 0xF2 : 0xF0) | ch->dir), NULL, 0);
            continue;
        }
        for (size_t at = 0; at < ch->len;) {
            size_t k = ch->len - at < 255 ? ch->len - at : 255;
            /* 0x10: raw octets (never 0xE_ or 0xF_) */
            srec(s, (uint8_t)(0x10 | (at == 0 ? 2 : 0) | ch->dir), sc->buf + ch->off + at, k);
            at += k;
        }
    }
    seed("fuzz_stream", name, s->b, s->n);
}

static uint8_t ulb[70000];

static void stream_seeds(void)
{
    /* A clean enhanced peer-to-peer session (RFC 6581) through the
     * target's own startup and FPDU records: markers and CRC both ways,
     * the write RTR, Sends, a Read Request, a Terminate, FINs. */
    script_t *s = &sc_out;
    s->n = 0;
    sput(s, 0x80 | 0x04);
    sput(s, 0x7F); /* Request: M C S A B C D */
    sput(s, 0x2F); /* Reply: M C S A, C (write RTR) */
    sput(s, 16);
    sput(s, 16);
    sput(s, 16);
    sput(s, 16);
    size_t n = cs_ul_write(ulb, sizeof ulb, 0, 0, 0);
    srec(s, 0xE2, ulb, n); /* d0: the RTR */
    n = cs_ul_send(ulb, sizeof ulb, 1, 64);
    srec(s, 0xE3, ulb, n);
    srec(s, 0xE2, ulb, n);
    n = cs_ul_read_req(ulb, sizeof ulb, 1, 4096);
    srec(s, 0xE2, ulb, n);
    n = cs_ul_write(ulb, sizeof ulb, 0x1000, 0x2000, 200);
    srec(s, 0xE3, ulb, n);
    n = cs_ul_term(ulb, sizeof ulb, 2, 0, 1);
    srec(s, 0xE3, ulb, n);
    srec(s, 0xF0, NULL, 0);
    srec(s, 0xF1, NULL, 0);
    seed("fuzz_stream", "enhanced-p2p", s->b, s->n);

    /* Plain startup, markers both ways, FPDUs crossing the wrap. */
    s->n = 0;
    sput(s, 0x80 | 0x03);
    sput(s, 0x03);
    sput(s, 0x03);
    for (unsigned k = 0; k < 4; k++)
        sput(s, 0);
    for (unsigned i = 0; i < 6; i++) {
        n = cs_ul_send(ulb, sizeof ulb, i + 1, 150 + 15 * i);
        srec(s, 0xE2, ulb, n);
        n = cs_ul_send(ulb, sizeof ulb, i + 1, 100 + 20 * i);
        srec(s, 0xE3, ulb, n);
    }
    srec(s, 0xF2, NULL, 0);
    seed("fuzz_stream", "plain-markers-wrap", s->b, s->n);

    /* Scenarios built with the corpus, as raw octets. */
    cs_scen sc;
    cs_init(&sc);
    mpa_frame_enc q = cs_req(1, 1), p = cs_rep(0, 1);
    cs_frame(&sc, 0, &q);
    cs_frame(&sc, 1, &p);
    cs_fpdu_mode(&sc, 0, 0);
    cs_fpdu_mode(&sc, 1, 1);
    n = cs_ul_send(ulb, sizeof ulb, 1, 600);
    cs_fpdu(&sc, 0, ulb, n);
    n = cs_ul_send(ulb, sizeof ulb, 1, 1200);
    cs_fpdu(&sc, 1, ulb, n);
    cs_end(&sc, 0, 0);
    cs_end(&sc, 1, 0);
    scen_seed("scen-asym-markers", &sc);
    cs_free(&sc);

    /* Holes: one segment lost each way, markers one way (RFC 5044 4.3). */
    cs_init(&sc);
    q = cs_req(1, 1);
    p = cs_rep(0, 1);
    cs_frame(&sc, 0, &q);
    cs_frame(&sc, 1, &p);
    cs_fpdu_mode(&sc, 0, 0);
    cs_fpdu_mode(&sc, 1, 1);
    for (unsigned i = 0; i < 8; i++) {
        n = cs_ul_write(ulb, sizeof ulb, 0x10 + i, 0, 200 + 97 * i);
        cs_fpdu(&sc, i & 1, ulb, n);
        if (i == 2 || i == 5)
            cs_lose_last(&sc);
    }
    cs_end(&sc, 0, 0);
    cs_end(&sc, 1, 0);
    scen_seed("scen-holes", &sc);
    cs_free(&sc);

    /* Mid-stream start: markers both ways, nothing stated, a hole. */
    s->n = 0;
    sput(s, 0x40 | 0x30 | 0x04);
    sput(s, 0xFF); /* markers and CRC unknown both ways */
    for (unsigned i = 0; i < 10; i++) {
        n = cs_ul_write(ulb, sizeof ulb, 0x40 + i, 0, 150 + 9 * i);
        srec(s, (uint8_t)(0xE2 | (i & 1)), ulb, n);
        if (i == 6) {
            sput(s, 0xD2);
            sput(s, 3); /* 192 octets lost in d0 */
        }
    }
    seed("fuzz_stream", "midstream-markers", s->b, s->n);

    cs_init(&sc);
    q = cs_req(0, 1);
    p = cs_rep(0, 1);
    p.r = 1;
    cs_frame(&sc, 0, &q);
    cs_frame(&sc, 1, &p);
    static const char txt[] = "streaming data the ULP sends after the reject";
    cs_raw(&sc, 0, txt, sizeof txt);
    cs_end(&sc, 0, 0);
    cs_end(&sc, 1, 0);
    scen_seed("scen-reject", &sc);
    cs_free(&sc);

    /* Request, then FPDUs before the Reply: the Initiator must wait. */
    cs_init(&sc);
    q = cs_req(1, 1);
    p = cs_rep(1, 1);
    cs_frame(&sc, 0, &q);
    cs_fpdu_mode(&sc, 0, 1);
    n = cs_ul_send(ulb, sizeof ulb, 1, 30);
    cs_fpdu(&sc, 0, ulb, n);
    cs_frame(&sc, 1, &p);
    cs_fpdu_mode(&sc, 1, 1);
    cs_fpdu(&sc, 1, ulb, n);
    scen_seed("scen-early-fpdu", &sc);
    cs_free(&sc);

    cs_init(&sc);
    q = cs_req(0, 1);
    p = cs_rep(0, 1);
    mpa_frame_enc r = cs_req(0, 1);
    q.s = p.s = 1;
    r.kind = MPA_KEY_RTR2007;
    cs_frame(&sc, 0, &q);
    cs_frame(&sc, 1, &p);
    cs_frame(&sc, 0, &r);
    cs_fpdu_mode(&sc, 0, 0);
    cs_fpdu_mode(&sc, 1, 0);
    n = cs_ul_send(ulb, sizeof ulb, 1, 40);
    cs_fpdu(&sc, 0, ulb, n);
    cs_fpdu(&sc, 1, ulb, n);
    scen_seed("scen-rtr2007", &sc);
    cs_free(&sc);

    cs_init(&sc);
    mpa_frame_enc k;
    memset(&k, 0, sizeof k);
    k.kind = MPA_KEY_STARTKEY;
    k.m = 1;
    k.c = 1;
    k.pd_len_override = -1;
    cs_frame(&sc, 1, &k);
    k.m = 0;
    cs_frame(&sc, 0, &k);
    cs_fpdu_mode(&sc, 0, 1);
    cs_fpdu_mode(&sc, 1, 0);
    n = cs_ul_send(ulb, sizeof ulb, 1, 40);
    cs_fpdu(&sc, 0, ulb, n);
    cs_fpdu(&sc, 1, ulb, n);
    scen_seed("scen-startkey", &sc);
    cs_free(&sc);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: mkseeds OUTDIR\n");
        return 2;
    }
    outdir = argv[1];
    mkdir_p(outdir);
    frame_seeds();
    fpdu_seeds();
    ddp_seeds();
    stream_seeds();
    printf("mkseeds: %u seeds in %s\n", nseeds, outdir);
    return 0;
}

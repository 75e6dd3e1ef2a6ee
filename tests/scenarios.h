/*
 * The stream scenarios, shared by the stream engine's unit test
 * (tests/unit/test_stream.c) and the reference-capture generator
 * (conformance/gen, mpa-capgen), so that the captures carry the very
 * octets the unit test checks.
 *
 * Each scenario is two endpoints' octets built with the library's
 * encoders (tests/scen.h): chunks per direction in wire order, each chunk
 * one TCP segment, with FIN/RST marks.  scen_cases[] gives each one a
 * file-name-safe slug, a description naming the clause, its builder and
 * the exact set of finding ids it must raise (empty for clean traffic):
 * the unit test checks that set against the engine, mpa-capgen writes it
 * into the captures' manifest.
 *
 * Everything here is static: include this header from one translation
 * unit per program.
 */
#ifndef MPA_TEST_SCENARIOS_H
#define MPA_TEST_SCENARIOS_H

#include "scen.h"

#define D0 0 /* Initiator's direction in most scenarios (the TCP client in captures) */
#define D1 1

static uint8_t sc_ulbuf[70000];

/* A plain, correct startup with the given M bits and C=1. */
static void start_plain(scen_t *s, int req_m, int rep_m)
{
    mpa_frame_enc q = sc_req(req_m, 1), p = sc_rep(rep_m, 1);
    sc_frame(s, D0, &q);
    sc_frame(s, D1, &p);
    sc_fpdu_mode(s, D0, rep_m);
    sc_fpdu_mode(s, D1, req_m);
}

static void send_n(scen_t *s, int dir, unsigned msn, size_t payload)
{
    size_t n = ul_send(sc_ulbuf, sizeof sc_ulbuf, msn, payload);
    sc_fpdu(s, dir, sc_ulbuf, n);
}

static void write_n(scen_t *s, int dir, size_t payload)
{
    size_t n = ul_write(sc_ulbuf, sizeof sc_ulbuf, 0x77, 0x1000, payload);
    sc_fpdu(s, dir, sc_ulbuf, n);
}

static void fpdu_faulty(scen_t *s, int dir, size_t payload, mpa_fpdu_faults fl)
{
    size_t n = ul_send(sc_ulbuf, sizeof sc_ulbuf, 1, payload);
    sc_fpdu_f(s, dir, sc_ulbuf, n, &fl);
}

static mpa_fpdu_faults no_faults(void)
{
    mpa_fpdu_faults f;
    memset(&f, 0, sizeof f);
    f.len_override = -1;
    return f;
}

static void close_both(scen_t *s)
{
    sc_end(s, D0, 0);
    sc_end(s, D1, 0);
}

/* Enhanced startup: the Request offers send,write,read, IRD/ORD 16. */
static void start_enh(scen_t *s, mpa_frame_enc q, mpa_frame_enc p)
{
    sc_frame(s, D0, &q);
    sc_frame(s, D1, &p);
    sc_fpdu_mode(s, D0, p.m);
    sc_fpdu_mode(s, D1, q.m);
}

/* ---- clean scenarios ------------------------------------------------- */

static void sc_clean_plain(scen_t *s)
{
    start_plain(s, 0, 0);
    send_n(s, D0, 1, 100);
    send_n(s, D1, 1, 200);
    write_n(s, D0, 1000);
    close_both(s);
}

static void sc_clean_markers(scen_t *s)
{
    start_plain(s, 1, 1);
    send_n(s, D0, 1, 24);
    for (unsigned i = 0; i < 12; i++)
        send_n(s, D1, i + 1, 100 + 97 * i); /* markers land everywhere */
    write_n(s, D0, 3000);                    /* several markers inside */
    /* Pack three FPDUs in one segment. */
    send_n(s, D0, 2, 10);
    send_n(s, D0, 3, 11);
    send_n(s, D0, 4, 12);
    sc_merge_last(s, 3);
    close_both(s);
}

/* An FPDU that ends exactly on a marker position makes the next FPDU
 * start with a marker of FPDUPTR 0 (between FPDUs). */
static void sc_clean_between(scen_t *s)
{
    start_plain(s, 1, 1);
    send_n(s, D0, 1, 0);
    /* D0 stream so far in FPDU mode: 4 (marker) + 2 + 18 + 2 + 4 = 28?
     * choose a payload that ends the next FPDU at 512. */
    uint64_t used = s->dir_off[D0] - s->mode_off[D0];
    size_t want = 512 - (size_t)used;           /* wire octets to the marker */
    size_t payload = want - 2 - 18 - 4;          /* no marker inside */
    send_n(s, D0, 2, payload);
    send_n(s, D0, 3, 40);                        /* starts with a marker */
    send_n(s, D1, 1, 8);
    close_both(s);
}

static void sc_clean_enh(scen_t *s)
{
    start_enh(s, sc_enh(sc_req(1, 1), 1, 1, 1, 1, 16, 16), sc_enh(sc_rep(1, 1), 1, 0, 1, 0, 16, 16));
    write_n(s, D0, 0); /* the RTR */
    send_n(s, D1, 1, 64);
    send_n(s, D0, 1, 64);
    size_t n = ul_read_req(sc_ulbuf, sizeof sc_ulbuf, 1, 4096);
    sc_fpdu(s, D0, sc_ulbuf, n);
    n = ul_term(sc_ulbuf, sizeof sc_ulbuf, 2, 0, 1);
    sc_fpdu(s, D1, sc_ulbuf, n);
    close_both(s);
}

static void sc_clean_asym(scen_t *s)
{
    /* M=1 in the Request only: markers from the Responder only. */
    start_plain(s, 1, 0);
    send_n(s, D0, 1, 600);
    send_n(s, D1, 1, 1200);
    close_both(s);
}

static void sc_clean_wrap(scen_t *s)
{
    s->isn[D0] = 0xFFFFFE10u;
    s->isn[D1] = 0xFFFFFFF0u;
    start_plain(s, 1, 1);
    for (unsigned i = 0; i < 6; i++) {
        send_n(s, D0, i + 1, 150 + 50 * i);
        send_n(s, D1, i + 1, 100 + 31 * i);
    }
    close_both(s);
}

static void sc_clean_reject(scen_t *s)
{
    mpa_frame_enc q = sc_req(0, 1), p = sc_rep(0, 1);
    p.r = 1;
    sc_frame(s, D0, &q);
    sc_frame(s, D1, &p);
    const char txt[] = "streaming data the ULP sends after the reject";
    sc_raw(s, D0, txt, sizeof txt);
    close_both(s);
}

static void sc_clean_dv0_vector_free(scen_t *s)
{
    /* Private data and a Reply with 512 octets of private data. */
    uint8_t pd[512];
    for (unsigned i = 0; i < sizeof pd; i++)
        pd[i] = (uint8_t)i;
    mpa_frame_enc q = sc_req(0, 1), p = sc_rep(0, 1);
    q.pd = pd;
    q.pd_len = 100;
    p.pd = pd;
    p.pd_len = 512;
    sc_frame(s, D0, &q);
    sc_frame(s, D1, &p);
    sc_fpdu_mode(s, D0, 0);
    sc_fpdu_mode(s, D1, 0);
    send_n(s, D0, 1, 10);
    close_both(s);
}

/* ---- legacy ---------------------------------------------------------- */

static void sc_leg_startkey(scen_t *s)
{
    mpa_frame_enc k;
    memset(&k, 0, sizeof k);
    k.kind = MPA_KEY_STARTKEY;
    k.m = 1;
    k.c = 1;
    k.pd_len_override = -1;
    sc_frame(s, D1, &k); /* passive side first */
    k.m = 0;
    sc_frame(s, D0, &k);
    sc_fpdu_mode(s, D0, 1); /* D1's key said M=1: D0 sends markers */
    sc_fpdu_mode(s, D1, 0);
    send_n(s, D0, 1, 40);
    send_n(s, D1, 1, 40);
}

static void sc_leg_rtr2007(scen_t *s)
{
    mpa_frame_enc q = sc_req(0, 1), p = sc_rep(0, 1), r = sc_req(0, 1);
    q.s = 1;
    p.s = 1;
    r.kind = MPA_KEY_RTR2007;
    sc_frame(s, D0, &q);
    sc_frame(s, D1, &p);
    sc_frame(s, D0, &r);
    sc_fpdu_mode(s, D0, 0);
    sc_fpdu_mode(s, D1, 0);
    send_n(s, D0, 1, 40);
    send_n(s, D1, 1, 40);
}

/* ---- startup frame faults ------------------------------------------- */

static void sc_key_req(scen_t *s)
{
    uint8_t key[16];
    memcpy(key, "MPA ID Req Frame", 16);
    key[10] = 'f';
    mpa_frame_enc q = sc_req(0, 1);
    q.raw_key = key;
    sc_frame(s, D0, &q);
    sc_end(s, D1, 0);
}

static void sc_key_req_answered(scen_t *s)
{
    uint8_t key[16];
    memcpy(key, "MPA ID Req Frame", 16);
    key[15] = 'E';
    mpa_frame_enc q = sc_req(0, 1), p = sc_rep(0, 1);
    q.raw_key = key;
    sc_frame(s, D0, &q);
    sc_frame(s, D1, &p);
}

static void sc_not_mpa(scen_t *s)
{
    const char get[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    sc_raw(s, D0, get, sizeof get - 1);
    sc_end(s, D1, 0);
}

/* Found by fuzz_stream: a frame completing with more octets in the same
 * call, while the peer has already left MPA, must give the same events
 * as when the frame ends a call. */
static void sc_hold_dead_peer(scen_t *s)
{
    const char junk[] = "0123456789abcdefXYZW";
    sc_raw(s, D1, junk, 20);
    mpa_frame_enc q = sc_req(0, 1);
    sc_frame(s, D0, &q);
    sc_fpdu_mode(s, D0, 0);
    send_n(s, D0, 1, 10);
    sc_merge_last(s, 2);
    close_both(s);
}

static void sc_key_rep(scen_t *s)
{
    uint8_t key[16];
    memcpy(key, "MPA ID Rep Frame", 16);
    key[8] = 'E';
    mpa_frame_enc q = sc_req(0, 1), p = sc_rep(0, 1);
    p.raw_key = key;
    sc_frame(s, D0, &q);
    sc_frame(s, D1, &p);
    send_n(s, D0, 1, 10); /* the Initiator goes on instead of closing */
}

static void sc_rev_bad(scen_t *s)
{
    mpa_frame_enc q = sc_req(0, 1);
    q.rev = 3;
    sc_frame(s, D0, &q);
    sc_end(s, D1, 0);
}

static void sc_rev_bad_answered(scen_t *s)
{
    mpa_frame_enc q = sc_req(0, 1), p = sc_rep(0, 1);
    q.rev = 0;
    sc_frame(s, D0, &q);
    sc_frame(s, D1, &p);
    close_both(s);
}

static void sc_res_bits(scen_t *s)
{
    mpa_frame_enc q = sc_req(0, 1), p = sc_rep(0, 1);
    q.res = 0x8;
    sc_frame(s, D0, &q);
    sc_frame(s, D1, &p);
    sc_fpdu_mode(s, D0, 0);
    send_n(s, D0, 1, 4);
    close_both(s);
}

static void sc_r_in_req(scen_t *s)
{
    mpa_frame_enc q = sc_req(0, 1);
    q.r = 1;
    sc_frame(s, D0, &q);
    sc_end(s, D1, 0);
}

static void sc_pdlen_max(scen_t *s)
{
    uint8_t pd[600];
    memset(pd, 0x5a, sizeof pd);
    mpa_frame_enc q = sc_req(0, 1);
    q.pd = pd;
    q.pd_len = sizeof pd;
    sc_frame(s, D0, &q);
    sc_end(s, D1, 1);
}

static void sc_pdlen_lie(scen_t *s)
{
    uint8_t pd[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    mpa_frame_enc q = sc_req(0, 1);
    q.pd = pd;
    q.pd_len = sizeof pd;
    q.pd_len_override = 100;
    sc_frame(s, D0, &q);
    sc_end(s, D0, 0);
    sc_end(s, D1, 0);
}

/* A PD_Length over 512 is wrong even when the frame is cut short (and a
 * Reply cut short is not a Responder that never replied). */
static void sc_pdlen_max_cut(scen_t *s)
{
    uint8_t pd[50];
    memset(pd, 0x5a, sizeof pd);
    mpa_frame_enc q = sc_req(0, 1), p = sc_rep(0, 1);
    sc_frame(s, D0, &q);
    p.pd = pd;
    p.pd_len = sizeof pd;
    p.pd_len_override = 65535;
    sc_frame(s, D1, &p);
    sc_end(s, D1, 1);
    sc_end(s, D0, 0);
}

static void sc_frm_whole(scen_t *s)
{
    sc_raw(s, D0, "MPA ID Req Fr", 13);
    sc_end(s, D0, 0);
    sc_end(s, D1, 0);
}

static void sc_s_pdlen(scen_t *s)
{
    mpa_frame_enc q = sc_req(0, 1);
    q.s = 1;
    q.rev = 2;
    q.pd = (const uint8_t *)"ab";
    q.pd_len = 2;
    sc_frame(s, D0, &q);
    sc_end(s, D1, 0);
}

/* ---- startup rule faults -------------------------------------------- */

static void sc_resp_wait(scen_t *s)
{
    mpa_frame_enc q = sc_req(0, 1), p = sc_rep(0, 1);
    sc_frame(s, D1, &p); /* the Responder speaks first */
    sc_frame(s, D0, &q);
    sc_fpdu_mode(s, D0, 0);
    sc_fpdu_mode(s, D1, 0);
    send_n(s, D0, 1, 10);
    send_n(s, D1, 1, 10);
    close_both(s);
}

static void sc_bad_rep_fpdu(scen_t *s)
{
    mpa_frame_enc q = sc_req(0, 1), p = sc_rep(0, 1);
    p.rev = 5;
    sc_frame(s, D0, &q);
    sc_frame(s, D1, &p);
    sc_fpdu_mode(s, D0, 0);
    send_n(s, D0, 1, 10);
}

static void sc_after_reject_fpdu(scen_t *s)
{
    mpa_frame_enc q = sc_req(0, 1), p = sc_rep(0, 1);
    p.r = 1;
    sc_frame(s, D0, &q);
    sc_frame(s, D1, &p);
    sc_fpdu_mode(s, D0, 0);
    send_n(s, D0, 1, 10);
    close_both(s);
}

static void sc_no_reply_close(scen_t *s)
{
    mpa_frame_enc q = sc_req(0, 1);
    sc_frame(s, D0, &q);
    sc_end(s, D1, 0);
}

static void sc_resp_fpdu_wait(scen_t *s)
{
    start_plain(s, 0, 0);
    send_n(s, D1, 1, 10); /* before any FPDU from the Initiator */
    send_n(s, D0, 1, 10);
    close_both(s);
}

static void sc_first_marker(scen_t *s)
{
    start_plain(s, 0, 1);
    mpa_fpdu_faults f = no_faults();
    f.marker_ptr_delta = 4;
    fpdu_faulty(s, D0, 10, f);
    close_both(s);
}

static void sc_init_init(scen_t *s)
{
    mpa_frame_enc q = sc_req(0, 1);
    sc_frame(s, D0, &q);
    sc_frame(s, D1, &q);
    close_both(s);
}

static void sc_init_fpdu_wait(scen_t *s)
{
    mpa_frame_enc q = sc_req(0, 1), p = sc_rep(0, 1);
    sc_frame(s, D0, &q);
    sc_fpdu_mode(s, D0, 0);
    send_n(s, D0, 1, 10); /* before the Reply */
    sc_frame(s, D1, &p);
    sc_fpdu_mode(s, D1, 0);
    send_n(s, D1, 1, 10);
    close_both(s);
}

/* ---- FPDU faults ----------------------------------------------------- */

static void sc_pad(scen_t *s)
{
    start_plain(s, 0, 0);
    mpa_fpdu_faults f = no_faults();
    f.pad_byte = 0xAA;
    fpdu_faulty(s, D0, 5, f); /* 2 + 18 + 5 = 25: three pad octets */
    close_both(s);
}

static void sc_ulpdu_max(scen_t *s)
{
    start_plain(s, 0, 0);
    send_n(s, D0, 1, 65000);
    close_both(s);
}

static void sc_zero_len(scen_t *s)
{
    start_plain(s, 0, 0);
    sc_fpdu(s, D0, sc_ulbuf, 0);
    close_both(s);
}

static void sc_align(scen_t *s)
{
    start_plain(s, 0, 0);
    send_n(s, D0, 1, 100);
    send_n(s, D0, 2, 100);
    /* Cut the two FPDUs' octets into segments at 50 and 150. */
    chunk_t a = s->ch[s->nch - 2], b = s->ch[s->nch - 1];
    s->nch -= 2;
    size_t total = a.len + b.len;
    sc_push_chunk(s, CH_DATA, D0, a.off, 50);
    sc_push_chunk(s, CH_DATA, D0, a.off + 50, 100);
    sc_push_chunk(s, CH_DATA, D0, a.off + 150, total - 150);
    close_both(s);
}

static void sc_mulpdu(scen_t *s)
{
    s->emss[D0] = 1460;
    start_plain(s, 0, 0);
    send_n(s, D0, 1, 1200);
    send_n(s, D0, 2, 2000);
    close_both(s);
}

/* ---- markers --------------------------------------------------------- */

static void sc_markers_missing(scen_t *s)
{
    mpa_frame_enc q = sc_req(0, 1), p = sc_rep(1, 1); /* Reply asks for markers */
    sc_frame(s, D0, &q);
    sc_frame(s, D1, &p);
    sc_fpdu_mode(s, D0, 0); /* ... the Initiator sends none */
    send_n(s, D0, 1, 30);
    send_n(s, D0, 2, 700);
    close_both(s);
}

static void sc_markers_extra(scen_t *s)
{
    start_plain(s, 0, 0);
    sc_fpdu_mode(s, D0, 1); /* markers though the Reply said M=0 */
    send_n(s, D0, 1, 30);
    send_n(s, D0, 2, 700);
    close_both(s);
}

static void sc_mrk_res(scen_t *s)
{
    start_plain(s, 0, 1);
    send_n(s, D0, 1, 10);
    mpa_fpdu_faults f = no_faults();
    f.marker_reserved = 0x0100;
    fpdu_faulty(s, D0, 700, f); /* one marker inside */
    close_both(s);
}

static void sc_mrk_ptr(scen_t *s)
{
    start_plain(s, 0, 1);
    send_n(s, D0, 1, 10);
    mpa_fpdu_faults f = no_faults();
    f.marker_ptr_delta = -1000; /* FPDUPTR 0 inside an FPDU */
    uint64_t used = s->dir_off[D0] - s->mode_off[D0];
    /* Put the marker exactly 24 octets into this FPDU: delta makes 0. */
    (void)used;
    f.marker_ptr_delta = 0;
    size_t n = ul_send(sc_ulbuf, sizeof sc_ulbuf, 2, 700);
    /* compute this FPDU's marker offset: next marker at 512 */
    uint32_t into = (uint32_t)(512 - (s->dir_off[D0] - s->mode_off[D0]));
    f.marker_ptr_delta = -(int32_t)into;
    sc_fpdu_f(s, D0, sc_ulbuf, n, &f);
    close_both(s);
}

static void sc_mrk_len_same(scen_t *s)
{
    start_plain(s, 0, 1);
    send_n(s, D0, 1, 10);
    mpa_fpdu_faults f = no_faults();
    f.marker_ptr_delta = 8;
    f.marker_nth = 2; /* only the second marker lies */
    size_t n = ul_send(sc_ulbuf, sizeof sc_ulbuf, 2, 1200);
    sc_fpdu_f(s, D0, sc_ulbuf, n, &f);
    close_both(s);
}

static void sc_mrk_between_ptr(scen_t *s)
{
    start_plain(s, 0, 1);
    send_n(s, D0, 1, 0);
    uint64_t used = s->dir_off[D0] - s->mode_off[D0];
    size_t payload = (512 - (size_t)used) - 2 - 18 - 4;
    send_n(s, D0, 2, payload);
    mpa_fpdu_faults f = no_faults();
    f.marker_ptr_delta = 4; /* leading marker says 4 instead of 0 */
    fpdu_faulty(s, D0, 40, f);
    close_both(s);
}

/* ---- CRC ------------------------------------------------------------- */

static void sc_crc_bad(scen_t *s)
{
    start_plain(s, 0, 0);
    mpa_fpdu_faults f = no_faults();
    f.crc_mode = 2;
    f.crc_xor = 1;
    fpdu_faulty(s, D0, 30, f);
    close_both(s);
}

static void sc_crc_negotiate(scen_t *s)
{
    mpa_frame_enc q = sc_req(0, 0), p = sc_rep(0, 1);
    sc_frame(s, D0, &q);
    sc_frame(s, D1, &p);
    sc_fpdu_mode(s, D0, 0);
    mpa_fpdu_faults f = no_faults();
    f.crc_mode = 1; /* CRC field 0: the Initiator did not turn CRCs on */
    fpdu_faulty(s, D0, 30, f);
    close_both(s);
}

static void sc_crc_default(scen_t *s)
{
    mpa_frame_enc q = sc_req(0, 0), p = sc_rep(0, 0);
    sc_frame(s, D0, &q);
    sc_frame(s, D1, &p);
    sc_fpdu_mode(s, D0, 0);
    mpa_fpdu_faults f = no_faults();
    f.crc_mode = 1; /* no CRC: allowed when both said C=0 */
    fpdu_faulty(s, D0, 30, f);
    close_both(s);
}

/* ---- enhanced -------------------------------------------------------- */

static mpa_frame_enc q_enh(void) { return sc_enh(sc_req(0, 1), 1, 1, 1, 1, 16, 16); }
static mpa_frame_enc p_enh(void) { return sc_enh(sc_rep(0, 1), 1, 1, 1, 1, 16, 16); }

static void sc_enh_reply_enh(scen_t *s)
{
    mpa_frame_enc p = sc_rep(0, 1);
    p.rev = 2;
    start_enh(s, q_enh(), p);
    send_n(s, D0, 1, 10);
    close_both(s);
}

static void sc_enh_unsupported(scen_t *s)
{
    start_enh(s, q_enh(), sc_rep(0, 1));
    send_n(s, D0, 1, 10);
    close_both(s);
}

static void sc_enh_reply_plain(scen_t *s)
{
    start_enh(s, sc_req(0, 1), p_enh());
    send_n(s, D0, 1, 10);
    close_both(s);
}

static void sc_enh_a_echo(scen_t *s)
{
    start_enh(s, q_enh(), sc_enh(sc_rep(0, 1), 0, 0, 0, 0, 16, 16));
    send_n(s, D0, 1, 10);
    close_both(s);
}

static void sc_enh_bcd_zero(scen_t *s)
{
    start_enh(s, sc_enh(sc_req(0, 1), 0, 1, 0, 0, 16, 16), sc_enh(sc_rep(0, 1), 0, 0, 0, 0, 16, 16));
    send_n(s, D0, 1, 10);
    close_both(s);
}

static void sc_enh_init_opts(scen_t *s)
{
    start_enh(s, sc_enh(sc_req(0, 1), 1, 0, 0, 0, 16, 16), sc_enh(sc_rep(0, 1), 1, 0, 1, 0, 16, 16));
    write_n(s, D0, 0);
    close_both(s);
}

static void sc_enh_resp_opt(scen_t *s)
{
    start_enh(s, q_enh(), sc_enh(sc_rep(0, 1), 1, 0, 0, 0, 16, 16));
    size_t n = ul_term(sc_ulbuf, sizeof sc_ulbuf, 2, 0, 7);
    sc_fpdu(s, D0, sc_ulbuf, n);
    close_both(s);
}

static void sc_enh_ord_le_ird(scen_t *s)
{
    start_enh(s, sc_enh(sc_req(0, 1), 1, 1, 1, 1, 4, 4), sc_enh(sc_rep(0, 1), 1, 1, 0, 0, 8, 8));
    send_n(s, D0, 1, 0);
    close_both(s);
}

static void sc_enh_ird_ge_ord(scen_t *s)
{
    start_enh(s, sc_enh(sc_req(0, 1), 1, 1, 1, 1, 8, 8), sc_enh(sc_rep(0, 1), 1, 1, 0, 0, 4, 4));
    send_n(s, D0, 1, 0);
    close_both(s);
}

static void sc_enh_3fff(scen_t *s)
{
    start_enh(s, sc_enh(sc_req(0, 1), 1, 1, 1, 1, 0x3FFF, 0x3FFF), sc_enh(sc_rep(0, 1), 1, 1, 0, 0, 5, 0x3FFF));
    send_n(s, D0, 1, 0);
    close_both(s);
}

static void sc_enh_rtr_late(scen_t *s)
{
    start_enh(s, q_enh(), p_enh());
    send_n(s, D0, 1, 100); /* not an RTR */
    write_n(s, D0, 0);     /* the RTR, too late */
    close_both(s);
}

static void sc_enh_rtr_never(scen_t *s)
{
    start_enh(s, q_enh(), p_enh());
    send_n(s, D0, 1, 100);
    close_both(s);
}

static void sc_enh_rtr_match(scen_t *s)
{
    start_enh(s, q_enh(), sc_enh(sc_rep(0, 1), 1, 0, 1, 0, 16, 16));
    send_n(s, D0, 1, 0); /* a Send RTR; only write was offered */
    close_both(s);
}

static void sc_enh_term7_wrong(scen_t *s)
{
    start_enh(s, q_enh(), sc_enh(sc_rep(0, 1), 1, 0, 1, 0, 16, 16));
    size_t n = ul_term(sc_ulbuf, sizeof sc_ulbuf, 2, 0, 7);
    sc_fpdu(s, D0, sc_ulbuf, n);
    close_both(s);
}

static void sc_enh_rtr_read_ird(scen_t *s)
{
    start_enh(s, sc_enh(sc_req(0, 1), 1, 0, 0, 1, 4, 0), sc_enh(sc_rep(0, 1), 1, 0, 0, 1, 0, 4));
    size_t n = ul_read_req(sc_ulbuf, sizeof sc_ulbuf, 1, 0);
    sc_fpdu(s, D0, sc_ulbuf, n);
    close_both(s);
}

/* ---- TERMINATE and DDP/RDMAP ---------------------------------------- */

static void sc_trm_format(scen_t *s)
{
    start_plain(s, 0, 0);
    mpa_ddp d = ul_untagged(MPA_RDMAP_TERMINATE, 1, 1);
    d.u.term.layer = 2;
    d.u.term.code = 2;
    size_t n = ul_build(&d, 0, sc_ulbuf, sizeof sc_ulbuf);
    sc_fpdu(s, D0, sc_ulbuf, n);
    close_both(s);
}

static void sc_trm_code(scen_t *s)
{
    start_plain(s, 0, 0);
    size_t n = ul_term(sc_ulbuf, sizeof sc_ulbuf, 2, 0, 9);
    sc_fpdu(s, D0, sc_ulbuf, n);
    close_both(s);
}

static void sc_trm_last(scen_t *s)
{
    start_plain(s, 0, 0);
    send_n(s, D0, 1, 8);
    size_t n = ul_term(sc_ulbuf, sizeof sc_ulbuf, 0, 2, 6);
    sc_fpdu(s, D1, sc_ulbuf, n);
    send_n(s, D1, 1, 8);
    close_both(s);
}

static void sc_ddp_versions(scen_t *s)
{
    start_plain(s, 0, 0);
    mpa_ddp d = ul_untagged(MPA_RDMAP_SEND, 0, 1);
    d.hdr.dv = 0; /* the draft-03 vector's header: 40 03 */
    d.hdr.rv = 0;
    size_t n = ul_build(&d, 24, sc_ulbuf, sizeof sc_ulbuf);
    sc_fpdu(s, D0, sc_ulbuf, n);
    close_both(s);
}

static void sc_ddp_rsvd(scen_t *s)
{
    start_plain(s, 0, 0);
    mpa_ddp d = ul_untagged(MPA_RDMAP_SEND, 0, 1);
    d.hdr.ddp_rsvd = 1;
    d.hdr.rdmap_rsvd = 2;
    size_t n = ul_build(&d, 4, sc_ulbuf, sizeof sc_ulbuf);
    sc_fpdu(s, D0, sc_ulbuf, n);
    close_both(s);
}

static void sc_rdmap_opcode(scen_t *s)
{
    start_plain(s, 0, 0);
    mpa_ddp d = ul_untagged(0xE, 0, 1);
    size_t n = ul_build(&d, 4, sc_ulbuf, sizeof sc_ulbuf);
    sc_fpdu(s, D0, sc_ulbuf, n);
    close_both(s);
}

static void sc_rdmap_tagged_qn(scen_t *s)
{
    start_plain(s, 0, 0);
    mpa_ddp d = ul_tagged(MPA_RDMAP_SEND, 1, 0); /* a tagged Send */
    size_t n = ul_build(&d, 4, sc_ulbuf, sizeof sc_ulbuf);
    sc_fpdu(s, D0, sc_ulbuf, n);
    d = ul_untagged(MPA_RDMAP_SEND, 5, 2); /* Send to QN 5 */
    n = ul_build(&d, 4, sc_ulbuf, sizeof sc_ulbuf);
    sc_fpdu(s, D0, sc_ulbuf, n);
    close_both(s);
}

static void sc_rdmap_one_seg(scen_t *s)
{
    start_plain(s, 0, 0);
    mpa_ddp d = ul_untagged(MPA_RDMAP_READ_REQUEST, 1, 1);
    d.hdr.last = 0;
    d.u.rreq.size = 64;
    size_t n = ul_build(&d, 0, sc_ulbuf, sizeof sc_ulbuf);
    sc_fpdu(s, D0, sc_ulbuf, n);
    close_both(s);
}

static void sc_rdmap_atomic(scen_t *s)
{
    start_plain(s, 0, 0);
    mpa_ddp d = ul_untagged(MPA_RDMAP_ATOMIC_REQUEST, 1, 1);
    d.u.atomic_req.aop = 7;
    size_t n = ul_build(&d, 0, sc_ulbuf, sizeof sc_ulbuf);
    sc_fpdu(s, D0, sc_ulbuf, n);
    close_both(s);
}

/* ---- the capture itself: holes and mid-stream starts ------------------ */

/* One segment of each direction lost (the peer got it; the capture did
 * not): decoding resumes at the next FPDU it can prove (RFC 5044 4.3). */
static void sc_cap_hole(scen_t *s)
{
    start_plain(s, 1, 0);
    for (unsigned i = 0; i < 10; i++) {
        send_n(s, D0, i + 1, 200 + 90 * i);
        send_n(s, D1, i + 1, 700 - 40 * i);
        if (i == 3)
            sc_lose_last(s);
        if (i == 5) {
            s->ch[s->nch - 2].kind = CH_LOST;
        }
    }
    close_both(s);
}

/* The capture starts after the startup, inside the FPDU traffic;
 * markers one way, nothing stated: the octets prove the framing. */
static void sc_cap_midstream(scen_t *s)
{
    start_plain(s, 1, 0);
    for (unsigned i = 0; i < 12; i++) {
        send_n(s, D0, i + 1, 300 + 50 * i);
        send_n(s, D1, i + 1, 900 - 30 * i);
    }
    close_both(s);
    s->midstream = 1;
    s->start_chunk = 6; /* Request, Reply and two FPDUs each way not captured */
}

/* ---- the table ------------------------------------------------------- */

typedef struct scen_case {
    const char *slug;   /* short and file-name safe: "key-req", "crc-bad" */
    const char *name;   /* what it shows, with the clause */
    void (*build)(scen_t *);
    const char *expect; /* space-separated ids that must fire; nothing else may */
} scen_case;

static const scen_case scen_cases[] = {
    {"clean-plain", "clean plain (RFC 5044 7.1)", sc_clean_plain, ""},
    {"clean-markers", "clean markers and CRC (RFC 5044 4.3, 4.4)", sc_clean_markers, ""},
    {"clean-between", "clean marker between FPDUs (RFC 5044 4.3)", sc_clean_between, ""},
    {"clean-enh", "clean enhanced p2p (RFC 6581 9)", sc_clean_enh, ""},
    {"clean-asym", "clean asymmetric markers (RFC 5044 7.1.1 M)", sc_clean_asym, ""},
    {"clean-wrap", "clean sequence wrap (draft-03 7.1)", sc_clean_wrap, ""},
    {"clean-reject", "clean reject then streaming (RFC 5044 7.1.2 rule 3)", sc_clean_reject, ""},
    {"clean-pd", "clean private data 100/512 (RFC 5044 7.1.1)", sc_clean_dv0_vector_free, ""},
    {"leg-startkey", "draft-03 Start Key", sc_leg_startkey, "MPA-LEG-STARTKEY"},
    {"leg-rtr2007", "2007 RtR frame", sc_leg_rtr2007,
     "MPA-LEG-RTR-FRAME MPA-FRM-REV-ENH"},
    {"key-req", "wrong Request key, responder closes (7.1.1)", sc_key_req, "MPA-FRM-KEY-REQ"},
    {"key-req-answered", "wrong Request key answered (7.1.2 rule 5)", sc_key_req_answered, "MPA-FRM-KEY-REQ MPA-FRM-KEY-CHECK"},
    {"not-mpa", "not MPA at all (7.1.2 rule 1)", sc_not_mpa, "MPA-STA-REQ-FIRST"},
    {"hold-dead-peer", "Request and data after the peer left MPA", sc_hold_dead_peer, "MPA-STA-REQ-FIRST MPA-FRM-KEY-CHECK"},
    {"key-rep", "wrong Reply key, initiator goes on", sc_key_rep, "MPA-FRM-KEY-REP MPA-FRM-KEY-CHECK"},
    {"rev-bad", "Rev 3 (7.1.1)", sc_rev_bad, "MPA-FRM-REV"},
    {"rev-bad-answered", "Rev 0 answered", sc_rev_bad_answered, "MPA-FRM-REV MPA-STA-BAD-REQ-CLOSE"},
    {"res-bits", "Res bit 0x8", sc_res_bits, "MPA-FRM-RES"},
    {"r-in-req", "R=1 in a Request", sc_r_in_req, "MPA-FRM-R-REQ MPA-STA-REJECT"},
    {"pdlen-max", "PD_Length 600", sc_pdlen_max, "MPA-FRM-PDLEN-MAX"},
    {"pdlen-lie", "PD_Length lies", sc_pdlen_lie, "MPA-FRM-PDLEN-MATCH"},
    {"pdlen-max-cut", "Reply claims PD_Length 65535, then RST", sc_pdlen_max_cut,
     "MPA-FRM-PDLEN-MAX MPA-FRM-PDLEN-MATCH"},
    {"frm-whole", "half a frame", sc_frm_whole, "MPA-FRM-WHOLE"},
    {"s-pdlen", "S=1 with PD_Length 2", sc_s_pdlen, "MPA-FRM-S-PDLEN"},
    {"resp-wait", "Reply before Request (rule 2)", sc_resp_wait, "MPA-STA-RESP-WAIT"},
    {"bad-rep-fpdu", "bad Reply then FPDU (rule 3)", sc_bad_rep_fpdu, "MPA-FRM-REV MPA-STA-BAD-REP-CLOSE"},
    {"after-reject-fpdu", "FPDU after reject (rule 3)", sc_after_reject_fpdu, "MPA-STA-NO-FPDU-AFTER-REJECT"},
    {"no-reply-close", "close without Reply (rule 2, 6)", sc_no_reply_close, "MPA-STA-REJECT"},
    {"resp-fpdu-wait", "Responder FPDU first (rule 4)", sc_resp_fpdu_wait, "MPA-STA-RESP-FPDU-WAIT"},
    {"first-marker", "first marker not zero (rule 7)", sc_first_marker, "MPA-STA-FIRST-MARKER"},
    {"init-init", "Initiator/Initiator (rule 8)", sc_init_init, "MPA-STA-INIT-INIT"},
    {"init-fpdu-wait", "Initiator FPDU before Reply (rule 3)", sc_init_fpdu_wait, "MPA-STA-INIT-FPDU-WAIT"},
    {"pad", "pad not zero (4.1)", sc_pad, "MPA-FPD-PAD"},
    {"ulpdu-max", "ULPDU 65018 octets (5.2)", sc_ulpdu_max, "MPA-FPD-ULPDU-MAX"},
    {"zero-len", "zero-length ULPDU", sc_zero_len, "MPA-FPD-ZERO-LEN"},
    {"align", "misaligned segments (5.1)", sc_align, "MPA-FPD-ALIGN"},
    {"mulpdu", "ULPDU over MULPDU (4.5)", sc_mulpdu, "MPA-FPD-MULPDU"},
    /* What a receiver honouring the M bit sees comes first (these
     * errors are real for it), then the engine follows the sender. */
    {"markers-missing", "markers missing (4.3)", sc_markers_missing,
     "MPA-MRK-PRESENT MPA-STA-FIRST-MARKER MPA-CRC-VALID MPA-FPD-ZERO-LEN MPA-FPD-PAD"},
    {"markers-extra", "markers unasked (4.3)", sc_markers_extra,
     "MPA-MRK-PRESENT MPA-CRC-VALID MPA-FPD-ZERO-LEN MPA-FPD-PAD"},
    {"mrk-res", "marker reserved bits (4.2)", sc_mrk_res, "MPA-MRK-RES"},
    {"mrk-ptr", "FPDUPTR 0 inside an FPDU (4.3)", sc_mrk_ptr, "MPA-MRK-PTR"},
    {"mrk-len-same", "marker disagrees with lengths and with its sibling", sc_mrk_len_same,
     "MPA-MRK-LEN-AGREE MPA-MRK-SAME-FPDU"},
    {"mrk-between-ptr", "marker between FPDUs with FPDUPTR 4", sc_mrk_between_ptr, "MPA-MRK-PTR"},
    {"crc-bad", "bad CRC (4.4)", sc_crc_bad, "MPA-CRC-VALID"},
    {"crc-negotiate", "CRC off though peer said C=1", sc_crc_negotiate, "MPA-CRC-NEGOTIATE"},
    {"crc-default", "C=0 both ways", sc_crc_default, "MPA-CRC-DEFAULT"},
    {"enh-reply-enh", "S=1 answered by Rev 2 S=0 (RFC 6581 10)", sc_enh_reply_enh, "MPA-ENH-REPLY-ENH"},
    {"enh-unsupported", "S=1 answered by Rev 1", sc_enh_unsupported, "MPA-ENH-UNSUPPORTED"},
    {"enh-reply-plain", "S=0 answered by S=1", sc_enh_reply_plain, "MPA-ENH-REPLY-PLAIN"},
    {"enh-a-echo", "A not echoed (9.2)", sc_enh_a_echo, "MPA-ENH-A-ECHO"},
    {"enh-bcd-zero", "B without A", sc_enh_bcd_zero, "MPA-ENH-BCD-ZERO"},
    {"enh-init-opts", "A=1 and no RTR offered", sc_enh_init_opts, "MPA-ENH-INIT-OPTS"},
    {"enh-resp-opt", "Reply A=1 without B/C/D", sc_enh_resp_opt, "MPA-ENH-RESP-OPT"},
    {"enh-ord-le-ird", "responder ORD > initiator IRD (9.1)", sc_enh_ord_le_ird, "MPA-ENH-ORD-LE-IRD"},
    {"enh-ird-ge-ord", "responder IRD < initiator ORD", sc_enh_ird_ge_ord, "MPA-ENH-IRD-GE-ORD"},
    {"enh-3fff", "0x3FFF not honoured", sc_enh_3fff, "MPA-ENH-3FFF"},
    {"enh-rtr-late", "RTR late", sc_enh_rtr_late, "MPA-ENH-RTR-SEND MPA-ENH-RTR-FIRST"},
    {"enh-rtr-never", "RTR never", sc_enh_rtr_never, "MPA-ENH-RTR-SEND"},
    {"enh-rtr-match", "RTR type not offered", sc_enh_rtr_match, "MPA-ENH-RTR-MATCH"},
    {"enh-term7-wrong", "TERM 7 with a common RTR type", sc_enh_term7_wrong, "MPA-ENH-RTR-MATCH"},
    {"enh-rtr-read-ird", "read RTR with IRD 0", sc_enh_rtr_read_ird, "MPA-ENH-RTR-READ-IRD"},
    {"trm-format", "TERMINATE to QN 1 (RFC 5040 4.7)", sc_trm_format, "MPA-TRM-FORMAT"},
    {"trm-code", "TERMINATE code 9", sc_trm_code, "MPA-TRM-CODE"},
    {"trm-last", "FPDU after TERMINATE", sc_trm_last, "MPA-TRM-LAST"},
    {"ddp-versions", "DV 0, RV 0 (draft-03 vector header)", sc_ddp_versions, "MPA-DDP-VERSION MPA-RDMAP-VERSION"},
    {"ddp-rsvd", "reserved DDP/RDMAP bits", sc_ddp_rsvd, "MPA-DDP-RSVD MPA-RDMAP-RSVD"},
    {"rdmap-opcode", "opcode 0xE", sc_rdmap_opcode, "MPA-RDMAP-OPCODE"},
    {"rdmap-tagged-qn", "tagged Send, Send to QN 5", sc_rdmap_tagged_qn, "MPA-RDMAP-TAGGED MPA-DDP-QN"},
    {"rdmap-one-seg", "Read Request L=0", sc_rdmap_one_seg, "MPA-RDMAP-ONE-SEG"},
    {"rdmap-atomic", "Atomic AOpCode 7", sc_rdmap_atomic, "MPA-RDMAP-ATOMIC"},
    {"cap-hole", "a lost segment each way (RFC 5044 4.3)", sc_cap_hole, "MPA-CAP-HOLE MPA-CAP-RESYNC"},
    {"cap-midstream", "capture starts mid-stream, markers one way", sc_cap_midstream,
     "MPA-CAP-MIDSTREAM MPA-CAP-RESYNC"},
};

static const size_t scen_ncases = sizeof scen_cases / sizeof scen_cases[0];

#endif

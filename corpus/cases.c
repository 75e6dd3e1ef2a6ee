/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The catalogue: every named scenario, the clause it shows and the exact
 * set of finding ids it must raise (empty for clean traffic).  The
 * stream engine's unit test (tests/unit/test_stream.c) checks each set
 * against the engine at every split; mpa-capgen writes each scenario as
 * scen-<slug>.pcap with the set in its manifest; mpa-replay plays them
 * over the loopback.  See corpus.h.
 *
 * References: RFC 5044 (MPA) 4 (FPDUs, markers, CRC), 5 (segmentation),
 * 7.1 (startup frames and rules), 8 (errors); RFC 6581 (enhanced
 * establishment, RTR); RFC 5040 4.8 (TERMINATE); RFC 5041 (DDP);
 * draft-culley-iwarp-mpa-03 (the legacy frames).
 */
#include <string.h>

#include "corpus.h"

#define D0 0 /* Initiator's direction in most scenarios (the TCP client in captures) */
#define D1 1

static uint8_t g_ul[70000];

static void fpdu_faulty(cs_scen *s, int dir, size_t payload, mpa_fpdu_faults fl)
{
    size_t n = cs_ul_send(g_ul, sizeof g_ul, 1, payload);
    cs_fpdu_f(s, dir, g_ul, n, &fl);
}

static mpa_fpdu_faults no_faults(void)
{
    mpa_fpdu_faults f;
    memset(&f, 0, sizeof f);
    f.len_override = -1;
    return f;
}

/* ---- clean scenarios ------------------------------------------------- */

static void case_clean_plain(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    cs_send(s, D0, 1, 100);
    cs_send(s, D1, 1, 200);
    cs_write(s, D0, 1000);
    cs_close_both(s);
}

static void case_clean_markers(cs_scen *s)
{
    cs_start_plain(s, 1, 1);
    cs_send(s, D0, 1, 24);
    for (unsigned i = 0; i < 12; i++)
        cs_send(s, D1, i + 1, 100 + 97 * i); /* markers land everywhere */
    cs_write(s, D0, 3000);                    /* several markers inside */
    /* Pack three FPDUs in one segment. */
    cs_send(s, D0, 2, 10);
    cs_send(s, D0, 3, 11);
    cs_send(s, D0, 4, 12);
    cs_merge_last(s, 3);
    cs_close_both(s);
}

/* An FPDU that ends exactly on a marker position makes the next FPDU
 * start with a marker of FPDUPTR 0 (between FPDUs). */
static void case_clean_between(cs_scen *s)
{
    cs_start_plain(s, 1, 1);
    cs_send(s, D0, 1, 0);
    /* D0 stream so far in FPDU mode: 4 (marker) + 2 + 18 + 2 + 4 = 28?
     * choose a payload that ends the next FPDU at 512. */
    uint64_t used = s->dir_off[D0] - s->mode_off[D0];
    size_t want = 512 - (size_t)used;           /* wire octets to the marker */
    size_t payload = want - 2 - 18 - 4;          /* no marker inside */
    cs_send(s, D0, 2, payload);
    cs_send(s, D0, 3, 40);                        /* starts with a marker */
    cs_send(s, D1, 1, 8);
    cs_close_both(s);
}

static void case_clean_enh(cs_scen *s)
{
    cs_start_enh(s, cs_enh(cs_req(1, 1), 1, 1, 1, 1, 16, 16), cs_enh(cs_rep(1, 1), 1, 0, 1, 0, 16, 16));
    cs_write(s, D0, 0); /* the RTR */
    cs_send(s, D1, 1, 64);
    cs_send(s, D0, 1, 64);
    size_t n = cs_ul_read_req(g_ul, sizeof g_ul, 1, 4096);
    cs_fpdu(s, D0, g_ul, n);
    n = cs_ul_term(g_ul, sizeof g_ul, 2, 0, 1);
    cs_fpdu(s, D1, g_ul, n);
    cs_close_both(s);
}

static void case_clean_asym(cs_scen *s)
{
    /* M=1 in the Request only: markers from the Responder only. */
    cs_start_plain(s, 1, 0);
    cs_send(s, D0, 1, 600);
    cs_send(s, D1, 1, 1200);
    cs_close_both(s);
}

static void case_clean_wrap(cs_scen *s)
{
    s->isn[D0] = 0xFFFFFE10u;
    s->isn[D1] = 0xFFFFFFF0u;
    cs_start_plain(s, 1, 1);
    for (unsigned i = 0; i < 6; i++) {
        cs_send(s, D0, i + 1, 150 + 50 * i);
        cs_send(s, D1, i + 1, 100 + 31 * i);
    }
    cs_close_both(s);
}

static void case_clean_reject(cs_scen *s)
{
    mpa_frame_enc q = cs_req(0, 1), p = cs_rep(0, 1);
    p.r = 1;
    cs_frame(s, D0, &q);
    cs_frame(s, D1, &p);
    const char txt[] = "streaming data the ULP sends after the reject";
    cs_raw(s, D0, txt, sizeof txt);
    cs_close_both(s);
}

/* A plain startup (C=1, no markers) whose Request carries private data
 * qpd[0..qn) and Reply ppd[0..pn); both directions then send FPDUs. */
static void start_with_pd(cs_scen *s, const uint8_t *qpd, size_t qn, const uint8_t *ppd, size_t pn)
{
    mpa_frame_enc q = cs_req(0, 1), p = cs_rep(0, 1);
    q.pd = qpd;
    q.pd_len = qn;
    p.pd = ppd;
    p.pd_len = pn;
    cs_frame(s, D0, &q);
    cs_frame(s, D1, &p);
    cs_fpdu_mode(s, D0, 0);
    cs_fpdu_mode(s, D1, 0);
}

static void case_clean_dv0_vector_free(cs_scen *s)
{
    /* Private data and a Reply with 512 octets of private data. */
    uint8_t pd[512];
    for (unsigned i = 0; i < sizeof pd; i++)
        pd[i] = (uint8_t)i;
    start_with_pd(s, pd, 100, pd, 512);
    cs_send(s, D0, 1, 10);
    cs_close_both(s);
}

/* ---- legacy ---------------------------------------------------------- */

static void case_leg_startkey(cs_scen *s)
{
    mpa_frame_enc k = cs_startkey(1, 1);
    cs_frame(s, D1, &k); /* passive side first */
    k.m = 0;
    cs_frame(s, D0, &k);
    cs_fpdu_mode(s, D0, 1); /* D1's key said M=1: D0 sends markers */
    cs_fpdu_mode(s, D1, 0);
    cs_send(s, D0, 1, 40);
    cs_send(s, D1, 1, 40);
}

static void case_leg_rtr2007(cs_scen *s)
{
    mpa_frame_enc q = cs_req(0, 1), p = cs_rep(0, 1), r = cs_req(0, 1);
    q.s = 1;
    p.s = 1;
    r.kind = MPA_KEY_RTR2007;
    cs_frame(s, D0, &q);
    cs_frame(s, D1, &p);
    cs_frame(s, D0, &r);
    cs_fpdu_mode(s, D0, 0);
    cs_fpdu_mode(s, D1, 0);
    cs_send(s, D0, 1, 40);
    cs_send(s, D1, 1, 40);
}

/* ---- startup frame faults ------------------------------------------- */

static void case_key_req(cs_scen *s)
{
    uint8_t key[16];
    memcpy(key, "MPA ID Req Frame", 16);
    key[10] = 'f';
    mpa_frame_enc q = cs_req(0, 1);
    q.raw_key = key;
    cs_frame(s, D0, &q);
    cs_end(s, D1, 0);
}

static void case_key_req_answered(cs_scen *s)
{
    uint8_t key[16];
    memcpy(key, "MPA ID Req Frame", 16);
    key[15] = 'E';
    mpa_frame_enc q = cs_req(0, 1), p = cs_rep(0, 1);
    q.raw_key = key;
    cs_frame(s, D0, &q);
    cs_frame(s, D1, &p);
}

static void case_not_mpa(cs_scen *s)
{
    const char get[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    cs_raw(s, D0, get, sizeof get - 1);
    cs_end(s, D1, 0);
}

/* Found by fuzz_stream: a frame completing with more octets in the same
 * call, while the peer has already left MPA, must give the same events
 * as when the frame ends a call. */
static void case_hold_dead_peer(cs_scen *s)
{
    const char junk[] = "0123456789abcdefXYZW";
    cs_raw(s, D1, junk, 20);
    mpa_frame_enc q = cs_req(0, 1);
    cs_frame(s, D0, &q);
    cs_fpdu_mode(s, D0, 0);
    cs_send(s, D0, 1, 10);
    cs_merge_last(s, 2);
    cs_close_both(s);
}

static void case_key_rep(cs_scen *s)
{
    uint8_t key[16];
    memcpy(key, "MPA ID Rep Frame", 16);
    key[8] = 'E';
    mpa_frame_enc q = cs_req(0, 1), p = cs_rep(0, 1);
    p.raw_key = key;
    cs_frame(s, D0, &q);
    cs_frame(s, D1, &p);
    cs_send(s, D0, 1, 10); /* the Initiator goes on instead of closing */
}

static void case_rev_bad(cs_scen *s)
{
    mpa_frame_enc q = cs_req(0, 1);
    q.rev = 3;
    cs_frame(s, D0, &q);
    cs_end(s, D1, 0);
}

static void case_rev_bad_answered(cs_scen *s)
{
    mpa_frame_enc q = cs_req(0, 1), p = cs_rep(0, 1);
    q.rev = 0;
    cs_frame(s, D0, &q);
    cs_frame(s, D1, &p);
    cs_close_both(s);
}

static void case_res_bits(cs_scen *s)
{
    mpa_frame_enc q = cs_req(0, 1), p = cs_rep(0, 1);
    q.res = 0x8;
    cs_frame(s, D0, &q);
    cs_frame(s, D1, &p);
    cs_fpdu_mode(s, D0, 0);
    cs_send(s, D0, 1, 4);
    cs_close_both(s);
}

static void case_r_in_req(cs_scen *s)
{
    mpa_frame_enc q = cs_req(0, 1);
    q.r = 1;
    cs_frame(s, D0, &q);
    cs_end(s, D1, 0);
}

static void case_pdlen_max(cs_scen *s)
{
    uint8_t pd[600];
    memset(pd, 0x5a, sizeof pd);
    mpa_frame_enc q = cs_req(0, 1);
    q.pd = pd;
    q.pd_len = sizeof pd;
    cs_frame(s, D0, &q);
    cs_end(s, D1, 1);
}

static void case_pdlen_lie(cs_scen *s)
{
    uint8_t pd[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    mpa_frame_enc q = cs_req(0, 1);
    q.pd = pd;
    q.pd_len = sizeof pd;
    q.pd_len_override = 100;
    cs_frame(s, D0, &q);
    cs_end(s, D0, 0);
    cs_end(s, D1, 0);
}

/* A PD_Length over 512 is wrong even when the frame is cut short (and a
 * Reply cut short is not a Responder that never replied). */
static void case_pdlen_max_cut(cs_scen *s)
{
    uint8_t pd[50];
    memset(pd, 0x5a, sizeof pd);
    mpa_frame_enc q = cs_req(0, 1), p = cs_rep(0, 1);
    cs_frame(s, D0, &q);
    p.pd = pd;
    p.pd_len = sizeof pd;
    p.pd_len_override = 65535;
    cs_frame(s, D1, &p);
    cs_end(s, D1, 1);
    cs_end(s, D0, 0);
}

static void case_frm_whole(cs_scen *s)
{
    cs_raw(s, D0, "MPA ID Req Fr", 13);
    cs_end(s, D0, 0);
    cs_end(s, D1, 0);
}

static void case_s_pdlen(cs_scen *s)
{
    mpa_frame_enc q = cs_req(0, 1);
    q.s = 1;
    q.rev = 2;
    q.pd = (const uint8_t *)"ab";
    q.pd_len = 2;
    cs_frame(s, D0, &q);
    cs_end(s, D1, 0);
}

/* ---- startup rule faults -------------------------------------------- */

static void case_resp_wait(cs_scen *s)
{
    mpa_frame_enc q = cs_req(0, 1), p = cs_rep(0, 1);
    cs_frame(s, D1, &p); /* the Responder speaks first */
    cs_frame(s, D0, &q);
    cs_fpdu_mode(s, D0, 0);
    cs_fpdu_mode(s, D1, 0);
    cs_send(s, D0, 1, 10);
    cs_send(s, D1, 1, 10);
    cs_close_both(s);
}

static void case_bad_rep_fpdu(cs_scen *s)
{
    mpa_frame_enc q = cs_req(0, 1), p = cs_rep(0, 1);
    p.rev = 5;
    cs_frame(s, D0, &q);
    cs_frame(s, D1, &p);
    cs_fpdu_mode(s, D0, 0);
    cs_send(s, D0, 1, 10);
}

static void case_after_reject_fpdu(cs_scen *s)
{
    mpa_frame_enc q = cs_req(0, 1), p = cs_rep(0, 1);
    p.r = 1;
    cs_frame(s, D0, &q);
    cs_frame(s, D1, &p);
    cs_fpdu_mode(s, D0, 0);
    cs_send(s, D0, 1, 10);
    cs_close_both(s);
}

static void case_no_reply_close(cs_scen *s)
{
    mpa_frame_enc q = cs_req(0, 1);
    cs_frame(s, D0, &q);
    cs_end(s, D1, 0);
}

static void case_resp_fpdu_wait(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    cs_send(s, D1, 1, 10); /* before any FPDU from the Initiator */
    cs_send(s, D0, 1, 10);
    cs_close_both(s);
}

static void case_first_marker(cs_scen *s)
{
    cs_start_plain(s, 0, 1);
    mpa_fpdu_faults f = no_faults();
    f.marker_ptr_delta = 4;
    fpdu_faulty(s, D0, 10, f);
    cs_close_both(s);
}

static void case_init_init(cs_scen *s)
{
    mpa_frame_enc q = cs_req(0, 1);
    cs_frame(s, D0, &q);
    cs_frame(s, D1, &q);
    cs_close_both(s);
}

static void case_init_fpdu_wait(cs_scen *s)
{
    mpa_frame_enc q = cs_req(0, 1), p = cs_rep(0, 1);
    cs_frame(s, D0, &q);
    cs_fpdu_mode(s, D0, 0);
    cs_send(s, D0, 1, 10); /* before the Reply */
    cs_frame(s, D1, &p);
    cs_fpdu_mode(s, D1, 0);
    cs_send(s, D1, 1, 10);
    cs_close_both(s);
}

/* ---- false alarms and misses seen on real captures (issue 16) ------- */

/* The Initiator breaks the FPDU wait (an FPDU right after its Request);
 * the Responder closes without a Reply: that answers the broken rule,
 * it is no MPA-STA-REJECT. */
static void case_init_wait_close(cs_scen *s)
{
    mpa_frame_enc q = cs_req(0, 1);
    cs_frame(s, D0, &q);
    cs_fpdu_mode(s, D0, 0);
    cs_send(s, D0, 1, 10);
    cs_end(s, D1, 0);
    cs_end(s, D0, 0);
}

/* Direction 0 sends frame f and nothing else; the listener closes first
 * (with RST when rst), then direction 0 sends FIN. */
static void lone_frame(cs_scen *s, mpa_frame_enc f, int rst)
{
    cs_frame(s, D0, &f);
    cs_end(s, D1, rst);
    cs_end(s, D0, 0);
}

/* Request q and Reply p, no FPDU, FIN both ways. */
static void frames_only(cs_scen *s, mpa_frame_enc q, mpa_frame_enc p)
{
    cs_frame(s, D0, &q);
    cs_frame(s, D1, &p);
    cs_close_both(s);
}

/* RFC 5044 7.1.2 rule 3: after an accepting Reply the Initiator closes
 * without any FPDU; in the clean twin the Responder closes first (the
 * Initiator's close answers it). */
static void case_sta_init_full_op(cs_scen *s)
{
    mpa_frame_enc q = cs_req(0, 1), p = cs_rep(0, 1);
    frames_only(s, q, p);
}

static void case_clean_init_close_after(cs_scen *s)
{
    mpa_frame_enc q = cs_req(0, 1), p = cs_rep(0, 1);
    cs_frame(s, D0, &q);
    cs_frame(s, D1, &p);
    cs_end(s, D1, 0);
    cs_end(s, D0, 0);
}

/* RFC 6581 9: the Request's IRD/ORD field written least significant
 * octet first (IRD 16, ORD 0 read as IRD 0x1000); in the clean twin a
 * Reply IRD of 512 alone (its ORD 0x3FFF) is taken as it reads. */
static void case_enh_irdord_order(cs_scen *s)
{
    cs_start_enh(s, cs_enh(cs_req(0, 1), 0, 0, 0, 0, 0x1000, 0), cs_enh(cs_rep(0, 1), 0, 0, 0, 0, 0, 16));
    cs_send(s, D0, 1, 100);
    cs_send(s, D1, 1, 100);
    cs_close_both(s);
}

static void case_clean_enh_irdord_large(cs_scen *s)
{
    cs_start_enh(s, cs_enh(cs_req(0, 1), 0, 0, 0, 0, 0x3FFF, 300),
                 cs_enh(cs_rep(0, 1), 0, 0, 0, 0, 512, 0x3FFF));
    cs_send(s, D0, 1, 100);
    cs_send(s, D1, 1, 100);
    cs_close_both(s);
}

/* C=0 both ways, then no FPDU at all: no CRC was ever left out. */
static void case_crc_off_idle(cs_scen *s) { frames_only(s, cs_req(0, 0), cs_rep(0, 0)); }

/* C=0 both ways in a rejected startup: FPDU mode never starts. */
static void case_crc_off_reject(cs_scen *s)
{
    mpa_frame_enc p = cs_rep(0, 0);
    p.r = 1;
    frames_only(s, cs_req(0, 0), p);
}

/* The TCP client's first octets carry the Reply key: it is the
 * Initiator with a wrong key (RFC 5044 2), not a Responder speaking
 * first; the listener closes (siw responder, conformance case 78). */
static void case_rep_key_first(cs_scen *s) { lone_frame(s, cs_rep(0, 1), 1); }

/* The Reply offers only the read RTR with IRD 0: no usable RTR type,
 * so TERMINATE code 7 is right (RFC 6581 9.1, 9.2). */
static void case_term7_read_ird0(cs_scen *s)
{
    cs_start_enh(s, cs_enh(cs_req(0, 1), 1, 0, 0, 1, 4, 0), cs_enh(cs_rep(0, 1), 1, 0, 0, 1, 0, 4));
    size_t n = cs_ul_term(g_ul, sizeof g_ul, 2, 0, 7);
    cs_fpdu(s, D0, g_ul, n);
    cs_close_both(s);
}

/* A=1 without B, C, D in a Request that gets no Reply: the Request
 * alone breaks RFC 6581 9.2. */
static void case_init_opts_unanswered(cs_scen *s) { lone_frame(s, cs_enh(cs_req(0, 1), 1, 0, 0, 0, 16, 16), 0); }

/* Linux siw as Initiator: a Reply with a bad key, then a TERMINATE
 * without CRC (the startup failed) and FIN: the TERMINATE is decoded. */
static void case_key_rep_term(cs_scen *s)
{
    uint8_t key[16];
    memcpy(key, "MPA ID Rep Frame", 16);
    key[0] = 'm';
    mpa_frame_enc q = cs_enh(cs_req(0, 0), 0, 0, 0, 0, 1, 1), p = cs_enh(cs_rep(0, 1), 0, 0, 0, 0, 1, 1);
    p.raw_key = key;
    cs_frame(s, D0, &q);
    cs_frame(s, D1, &p);
    cs_fpdu_mode(s, D0, 0);
    size_t n = cs_ul_term(g_ul, sizeof g_ul, 2, 0, 4); /* LLP, EType 0, code 4 */
    mpa_fpdu_faults f = no_faults();
    f.crc_mode = 1; /* CRC field 0 */
    cs_fpdu_f(s, D0, g_ul, n, &f);
    cs_end(s, D0, 0);
    cs_end(s, D1, 1);
}

/* ---- FPDU faults ----------------------------------------------------- */

static void case_pad(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    mpa_fpdu_faults f = no_faults();
    f.pad_byte = 0xAA;
    fpdu_faulty(s, D0, 5, f); /* 2 + 18 + 5 = 25: three pad octets */
    cs_close_both(s);
}

static void case_ulpdu_max(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    cs_send(s, D0, 1, 65000);
    cs_close_both(s);
}

static void case_zero_len(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    cs_fpdu(s, D0, g_ul, 0);
    cs_close_both(s);
}

static void case_align(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    cs_send(s, D0, 1, 100);
    cs_send(s, D0, 2, 100);
    /* Cut the two FPDUs' octets into segments at 50 and 150. */
    cs_chunk a = s->ch[s->nch - 2], b = s->ch[s->nch - 1];
    s->nch -= 2;
    size_t total = a.len + b.len;
    cs_push_chunk(s, CS_DATA, D0, a.off, 50);
    cs_push_chunk(s, CS_DATA, D0, a.off + 50, 100);
    cs_push_chunk(s, CS_DATA, D0, a.off + 150, total - 150);
    cs_close_both(s);
}

/* Two FPDUs over MULPDU (and one under): named once for the direction. */
static void case_mulpdu(cs_scen *s)
{
    s->emss[D0] = 1460;
    cs_start_plain(s, 0, 0);
    cs_send(s, D0, 1, 1200);
    cs_send(s, D0, 2, 2000);
    cs_send(s, D0, 3, 3000);
    cs_close_both(s);
}

/* ---- markers --------------------------------------------------------- */

static void case_markers_missing(cs_scen *s)
{
    mpa_frame_enc q = cs_req(0, 1), p = cs_rep(1, 1); /* Reply asks for markers */
    cs_frame(s, D0, &q);
    cs_frame(s, D1, &p);
    cs_fpdu_mode(s, D0, 0); /* ... the Initiator sends none */
    cs_send(s, D0, 1, 30);
    cs_send(s, D0, 2, 700);
    cs_close_both(s);
}

static void case_markers_extra(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    cs_fpdu_mode(s, D0, 1); /* markers though the Reply said M=0 */
    cs_send(s, D0, 1, 30);
    cs_send(s, D0, 2, 700);
    cs_close_both(s);
}

static void case_mrk_res(cs_scen *s)
{
    cs_start_plain(s, 0, 1);
    cs_send(s, D0, 1, 10);
    mpa_fpdu_faults f = no_faults();
    f.marker_reserved = 0x0100;
    cs_fpdu_f(s, D0, g_ul, cs_ul_send(g_ul, sizeof g_ul, 2, 700), &f); /* one marker inside */
    cs_close_both(s);
}

static void case_mrk_ptr(cs_scen *s)
{
    cs_start_plain(s, 0, 1);
    cs_send(s, D0, 1, 10);
    mpa_fpdu_faults f = no_faults();
    f.marker_ptr_delta = -1000; /* FPDUPTR 0 inside an FPDU */
    uint64_t used = s->dir_off[D0] - s->mode_off[D0];
    /* Put the marker exactly 24 octets into this FPDU: delta makes 0. */
    (void)used;
    f.marker_ptr_delta = 0;
    size_t n = cs_ul_send(g_ul, sizeof g_ul, 2, 700);
    /* compute this FPDU's marker offset: next marker at 512 */
    uint32_t into = (uint32_t)(512 - (s->dir_off[D0] - s->mode_off[D0]));
    f.marker_ptr_delta = -(int32_t)into;
    cs_fpdu_f(s, D0, g_ul, n, &f);
    cs_close_both(s);
}

static void case_mrk_len_same(cs_scen *s)
{
    cs_start_plain(s, 0, 1);
    cs_send(s, D0, 1, 10);
    mpa_fpdu_faults f = no_faults();
    f.marker_ptr_delta = 8;
    f.marker_nth = 2; /* only the second marker lies */
    size_t n = cs_ul_send(g_ul, sizeof g_ul, 2, 1200);
    cs_fpdu_f(s, D0, g_ul, n, &f);
    cs_close_both(s);
}

static void case_mrk_between_ptr(cs_scen *s)
{
    cs_start_plain(s, 0, 1);
    cs_send(s, D0, 1, 0);
    uint64_t used = s->dir_off[D0] - s->mode_off[D0];
    size_t payload = (512 - (size_t)used) - 2 - 18 - 4;
    cs_send(s, D0, 2, payload);
    mpa_fpdu_faults f = no_faults();
    f.marker_ptr_delta = 4; /* leading marker says 4 instead of 0 */
    fpdu_faulty(s, D0, 40, f);
    cs_close_both(s);
}

/* ---- CRC ------------------------------------------------------------- */

static void case_crc_bad(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    mpa_fpdu_faults f = no_faults();
    f.crc_mode = 2;
    f.crc_xor = 1;
    fpdu_faulty(s, D0, 30, f);
    cs_close_both(s);
}

static void case_crc_negotiate(cs_scen *s)
{
    mpa_frame_enc q = cs_req(0, 0), p = cs_rep(0, 1);
    cs_frame(s, D0, &q);
    cs_frame(s, D1, &p);
    cs_fpdu_mode(s, D0, 0);
    mpa_fpdu_faults f = no_faults();
    f.crc_mode = 1; /* CRC field 0: the Initiator did not turn CRCs on */
    fpdu_faulty(s, D0, 30, f);
    cs_close_both(s);
}

static void case_crc_default(cs_scen *s)
{
    mpa_frame_enc q = cs_req(0, 0), p = cs_rep(0, 0);
    cs_frame(s, D0, &q);
    cs_frame(s, D1, &p);
    cs_fpdu_mode(s, D0, 0);
    mpa_fpdu_faults f = no_faults();
    f.crc_mode = 1; /* no CRC: allowed when both said C=0 */
    fpdu_faulty(s, D0, 30, f);
    cs_close_both(s);
}

/* ---- enhanced -------------------------------------------------------- */

static mpa_frame_enc q_enh(void) { return cs_enh(cs_req(0, 1), 1, 1, 1, 1, 16, 16); }
static mpa_frame_enc p_enh(void) { return cs_enh(cs_rep(0, 1), 1, 1, 1, 1, 16, 16); }

static void case_enh_reply_enh(cs_scen *s)
{
    mpa_frame_enc p = cs_rep(0, 1);
    p.rev = 2;
    cs_start_enh(s, q_enh(), p);
    cs_send(s, D0, 1, 10);
    cs_close_both(s);
}

static void case_enh_unsupported(cs_scen *s)
{
    cs_start_enh(s, q_enh(), cs_rep(0, 1));
    cs_send(s, D0, 1, 10);
    cs_close_both(s);
}

static void case_enh_reply_plain(cs_scen *s)
{
    cs_start_enh(s, cs_req(0, 1), p_enh());
    cs_send(s, D0, 1, 10);
    cs_close_both(s);
}

static void case_enh_a_echo(cs_scen *s)
{
    cs_start_enh(s, q_enh(), cs_enh(cs_rep(0, 1), 0, 0, 0, 0, 16, 16));
    cs_send(s, D0, 1, 10);
    cs_close_both(s);
}

static void case_enh_bcd_zero(cs_scen *s)
{
    cs_start_enh(s, cs_enh(cs_req(0, 1), 0, 1, 0, 0, 16, 16), cs_enh(cs_rep(0, 1), 0, 0, 0, 0, 16, 16));
    cs_send(s, D0, 1, 10);
    cs_close_both(s);
}

static void case_enh_init_opts(cs_scen *s)
{
    cs_start_enh(s, cs_enh(cs_req(0, 1), 1, 0, 0, 0, 16, 16), cs_enh(cs_rep(0, 1), 1, 0, 1, 0, 16, 16));
    cs_write(s, D0, 0);
    cs_close_both(s);
}

static void case_enh_resp_opt(cs_scen *s)
{
    cs_start_enh(s, q_enh(), cs_enh(cs_rep(0, 1), 1, 0, 0, 0, 16, 16));
    size_t n = cs_ul_term(g_ul, sizeof g_ul, 2, 0, 7);
    cs_fpdu(s, D0, g_ul, n);
    cs_close_both(s);
}

static void case_enh_ord_le_ird(cs_scen *s)
{
    cs_start_enh(s, cs_enh(cs_req(0, 1), 1, 1, 1, 1, 4, 4), cs_enh(cs_rep(0, 1), 1, 1, 0, 0, 8, 8));
    cs_send(s, D0, 1, 0);
    cs_close_both(s);
}

static void case_enh_ird_ge_ord(cs_scen *s)
{
    cs_start_enh(s, cs_enh(cs_req(0, 1), 1, 1, 1, 1, 8, 8), cs_enh(cs_rep(0, 1), 1, 1, 0, 0, 4, 4));
    cs_send(s, D0, 1, 0);
    cs_close_both(s);
}

static void case_enh_3fff(cs_scen *s)
{
    cs_start_enh(s, cs_enh(cs_req(0, 1), 1, 1, 1, 1, 0x3FFF, 0x3FFF), cs_enh(cs_rep(0, 1), 1, 1, 0, 0, 5, 0x3FFF));
    cs_send(s, D0, 1, 0);
    cs_close_both(s);
}

static void case_enh_rtr_late(cs_scen *s)
{
    cs_start_enh(s, q_enh(), p_enh());
    cs_send(s, D0, 1, 100); /* not an RTR */
    cs_write(s, D0, 0);     /* the RTR, too late */
    cs_close_both(s);
}

static void case_enh_rtr_never(cs_scen *s)
{
    cs_start_enh(s, q_enh(), p_enh());
    cs_send(s, D0, 1, 100);
    cs_close_both(s);
}

static void case_enh_rtr_match(cs_scen *s)
{
    cs_start_enh(s, q_enh(), cs_enh(cs_rep(0, 1), 1, 0, 1, 0, 16, 16));
    cs_send(s, D0, 1, 0); /* a Send RTR; only write was offered */
    cs_close_both(s);
}

static void case_enh_term7_wrong(cs_scen *s)
{
    cs_start_enh(s, q_enh(), cs_enh(cs_rep(0, 1), 1, 0, 1, 0, 16, 16));
    size_t n = cs_ul_term(g_ul, sizeof g_ul, 2, 0, 7);
    cs_fpdu(s, D0, g_ul, n);
    cs_close_both(s);
}

static void case_enh_rtr_read_ird(cs_scen *s)
{
    cs_start_enh(s, cs_enh(cs_req(0, 1), 1, 0, 0, 1, 4, 0), cs_enh(cs_rep(0, 1), 1, 0, 0, 1, 0, 4));
    size_t n = cs_ul_read_req(g_ul, sizeof g_ul, 1, 0);
    cs_fpdu(s, D0, g_ul, n);
    cs_close_both(s);
}

/* ---- TERMINATE and DDP/RDMAP ---------------------------------------- */

static void case_trm_format(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_TERMINATE, 1, 1);
    d.u.term.layer = 2;
    d.u.term.code = 1; /* TCP connection closed: needs no FPDU from the peer */
    size_t n = cs_ul_build(&d, 0, g_ul, sizeof g_ul);
    cs_fpdu(s, D0, g_ul, n);
    cs_close_both(s);
}

static void case_trm_code(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    size_t n = cs_ul_term(g_ul, sizeof g_ul, 2, 0, 9);
    cs_fpdu(s, D0, g_ul, n);
    cs_close_both(s);
}

static void case_trm_last(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    cs_send(s, D0, 1, 8);
    size_t n = cs_ul_term(g_ul, sizeof g_ul, 0, 2, 6);
    cs_fpdu(s, D1, g_ul, n);
    cs_send(s, D1, 1, 8);
    cs_close_both(s);
}

/* TERMINATE plausibility (RFC 5040 4.8, 7.2; RFC 6581 8, 9). */
static void case_trm_llp_startup(cs_scen *s)
{
    cs_start_plain(s, 0, 1);
    size_t n = cs_ul_term(g_ul, sizeof g_ul, 2, 0, 6); /* Insufficient IRD, no enhanced startup */
    cs_fpdu(s, D0, g_ul, n);
    cs_close_both(s);
}

static void case_trm_no_fpdu(cs_scen *s)
{
    cs_start_plain(s, 0, 1);
    size_t n = cs_ul_term(g_ul, sizeof g_ul, 1, 2, 6); /* Invalid DDP version: of what? */
    cs_fpdu(s, D0, g_ul, n);
    cs_close_both(s);
}

/* A TERMINATE (RFC 5040 4.8 layout) with M=D=1: the segment length and
 * the copied DDP header h. */
static mpa_ddp term_copying(unsigned layer, unsigned etype, unsigned code, const mpa_ddp_hdr *h, unsigned seglen)
{
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_TERMINATE, 2, 1);
    d.u.term.layer = (uint8_t)layer;
    d.u.term.etype = (uint8_t)etype;
    d.u.term.code = (uint8_t)code;
    d.u.term.m = 1;
    d.u.term.d = 1;
    d.u.term.seglen = (uint16_t)seglen;
    d.u.term.ddp_hdr = *h;
    return d;
}

static void case_trm_copy_match(cs_scen *s)
{
    cs_start_plain(s, 0, 1);
    cs_send(s, D0, 1, 8);
    mpa_ddp_hdr never = cs_ul_untagged(MPA_RDMAP_SEND, 0, 7).hdr; /* MSN 7 was never sent */
    mpa_ddp d = term_copying(1, 2, 3, &never, 26); /* DDP Untagged Buffer Error, Invalid MSN range */
    cs_fpdu(s, D1, g_ul, cs_ul_build(&d, 0, g_ul, sizeof g_ul));
    cs_close_both(s);
}

/* RFC 5040 4.8 Figure 10, 6.2.1: the Responder TERMINATEs a Send with a
 * DDP Untagged Buffer Error.  Right: M=D=1 with the Send's header, then
 * FIN (clean-trm-ddp); trm-hdrct copies no header; trm-teardown closes
 * with a RST. */
static void trm_ddp_run(cs_scen *s, int copy, int rst)
{
    cs_start_plain(s, 0, 1);
    mpa_ddp snd = cs_ul_untagged(MPA_RDMAP_SEND, 0, 1);
    size_t n = cs_ul_build(&snd, 8, g_ul, sizeof g_ul);
    cs_fpdu(s, D0, g_ul, n);
    mpa_ddp d = term_copying(1, 2, 5, &snd.hdr, (unsigned)n); /* Message too long */
    if (!copy)
        d.u.term.m = d.u.term.d = 0;
    cs_fpdu(s, D1, g_ul, cs_ul_build(&d, 0, g_ul, sizeof g_ul));
    cs_end(s, D1, rst);
    cs_end(s, D0, 0);
}

static void case_clean_trm_ddp(cs_scen *s) { trm_ddp_run(s, 1, 0); }
static void case_trm_hdrct(cs_scen *s) { trm_ddp_run(s, 0, 0); }
static void case_trm_teardown(cs_scen *s) { trm_ddp_run(s, 1, 1); }

/* RFC 5040 4.8: M=1 with a DDP Segment Length 4 more than the copied
 * Send's ULPDU_Length (clean-trm-ddp carries the right one). */
static void case_trm_seglen(cs_scen *s)
{
    cs_start_plain(s, 0, 1);
    mpa_ddp snd = cs_ul_untagged(MPA_RDMAP_SEND, 0, 1);
    size_t n = cs_ul_build(&snd, 8, g_ul, sizeof g_ul);
    cs_fpdu(s, D0, g_ul, n);
    mpa_ddp d = term_copying(1, 2, 5, &snd.hdr, (unsigned)n + 4);
    cs_fpdu(s, D1, g_ul, cs_ul_build(&d, 0, g_ul, sizeof g_ul));
    cs_end(s, D1, 0);
    cs_end(s, D0, 0);
}

static void case_trm_copy_rreq(cs_scen *s)
{
    cs_start_plain(s, 0, 1);
    mpa_ddp rq = cs_ul_untagged(MPA_RDMAP_READ_REQUEST, 1, 1);
    rq.u.rreq.sink_stag = 0x1000;
    rq.u.rreq.size = 64;
    rq.u.rreq.src_stag = 0x3000;
    cs_fpdu(s, D0, g_ul, cs_ul_build(&rq, 0, g_ul, sizeof g_ul));
    mpa_ddp d = term_copying(0, 1, 0, &rq.hdr, 46); /* RDMAP Remote Protection Error, Invalid STag */
    d.u.term.r = 1;
    d.u.term.rreq = rq.u.rreq;
    d.u.term.rreq.src_stag = 0x3001; /* not the Request's */
    cs_fpdu(s, D1, g_ul, cs_ul_build(&d, 0, g_ul, sizeof g_ul));
    cs_close_both(s);
}

/* The Initiator judges the DDP header of an FPDU whose first segment
 * arrived and terminates before the rest of it is sent (that segment
 * split is MPA-FPD-ALIGN). */
static void case_trm_early(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    cs_send(s, D0, 1, 8);
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_SEND, 1, 1); /* a Send to QN 1 */
    cs_fpdu(s, D1, g_ul, cs_ul_build(&d, 200, g_ul, sizeof g_ul));
    cs_chunk *c = &s->ch[s->nch - 1];
    size_t off = c->off, len = c->len;
    c->len = 40;
    mpa_ddp t = term_copying(1, 2, 1, &d.hdr, 218); /* DDP Untagged Buffer Error, Invalid QN */
    cs_fpdu(s, D0, g_ul, cs_ul_build(&t, 0, g_ul, sizeof g_ul));
    cs_push_chunk(s, CS_DATA, D1, off + 40, len - 40);
    cs_close_both(s);
}

/* A TERMINATE as Linux siw writes it (captures/siw): the Terminate
 * Control field is a little-endian C bit-field, so octet 0 holds EType
 * in its high nibble and Layer in its low one, and M and D are bits 0
 * and 1 of octet 2; with them come the DDP segment length and the
 * copied DDP header. */
static size_t siw_term(uint8_t *out, size_t cap, unsigned layer, unsigned etype, unsigned code,
                       const mpa_ddp_hdr *copied, unsigned seglen)
{
    size_t n = cs_ul_term(out, cap, 0, 0, 0);
    out[18] = (uint8_t)(etype << 4 | layer);
    out[19] = (uint8_t)code;
    if (copied) {
        mpa_ddp c;
        uint8_t h[128];
        memset(&c, 0, sizeof c);
        c.hdr = *copied;
        size_t hl = copied->tagged ? MPA_DDP_TAGGED_HDR_LEN : MPA_DDP_UNTAGGED_HDR_LEN;
        if (mpa_ddp_encode(&c, h, sizeof h, NULL) != MPA_OK || n + 2 + hl > cap)
            return n;
        out[20] = 0x03; /* M, D */
        out[22] = (uint8_t)(seglen >> 8);
        out[23] = (uint8_t)seglen;
        memcpy(out + 24, h, hl);
        n = 24 + hl;
    }
    return n;
}

static void case_qrk_trm_siw_crc(cs_scen *s)
{
    cs_start_plain(s, 0, 1);
    mpa_fpdu_faults f = no_faults();
    f.crc_mode = 2;
    f.crc_xor = 1;
    fpdu_faulty(s, D0, 30, f);
    /* LLP/MPA CRC error, written 0x02 0x02: RDMAP/Remote Operation Error code 2 as sent */
    cs_fpdu(s, D1, g_ul, siw_term(g_ul, sizeof g_ul, 2, 0, 2, NULL, 0));
    cs_close_both(s);
}

static void case_qrk_trm_siw_qn(cs_scen *s)
{
    cs_start_plain(s, 0, 1);
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_SEND, 1, 1); /* a Send to QN 1 */
    size_t n = cs_ul_build(&d, 10, g_ul, sizeof g_ul);
    cs_fpdu(s, D0, g_ul, n);
    /* DDP/Untagged Buffer Error/Invalid QN, written 0x21 0x01 0x03 0x00 */
    cs_fpdu(s, D1, g_ul, siw_term(g_ul, sizeof g_ul, 1, 2, 1, &d.hdr, 10));
    cs_close_both(s);
}

static void case_qrk_trm_siw_rtr(cs_scen *s)
{
    /* Send RTR asked for, only write offered: siw sends TERM 7 as 0x02 0x07. */
    cs_start_enh(s, cs_enh(cs_req(0, 1), 1, 1, 0, 0, 1, 1), cs_enh(cs_rep(0, 1), 1, 0, 1, 0, 1, 1));
    cs_fpdu(s, D0, g_ul, siw_term(g_ul, sizeof g_ul, 2, 0, 7, NULL, 0));
    cs_close_both(s);
}

static void case_qrk_trm_zero(cs_scen *s)
{
    cs_start_plain(s, 0, 1);
    cs_send(s, D0, 1, 8);
    cs_fpdu(s, D1, g_ul, cs_ul_term(g_ul, sizeof g_ul, 0, 0, 0));
    cs_close_both(s);
}

static void case_enh_term7_other(cs_scen *s)
{
    cs_start_enh(s, cs_enh(cs_req(0, 1), 1, 1, 0, 0, 1, 1), cs_enh(cs_rep(0, 1), 1, 0, 1, 0, 1, 1));
    cs_fpdu(s, D0, g_ul, cs_ul_term(g_ul, sizeof g_ul, 2, 0, 5)); /* code 5, not 7 */
    cs_close_both(s);
}

static void case_enh_term7_none(cs_scen *s)
{
    cs_start_enh(s, cs_enh(cs_req(0, 1), 1, 1, 0, 0, 1, 1), cs_enh(cs_rep(0, 1), 1, 0, 1, 0, 1, 1));
    cs_close_both(s);
}

static void case_enh_term7_read_ird0(cs_scen *s)
{
    /* Only the read RTR in common, but the Responder's IRD is 0: TERM 7 is right. */
    cs_start_enh(s, cs_enh(cs_req(0, 1), 1, 0, 0, 1, 1, 0), cs_enh(cs_rep(0, 1), 1, 0, 0, 1, 0, 1));
    cs_fpdu(s, D0, g_ul, cs_ul_term(g_ul, sizeof g_ul, 2, 0, 7));
    cs_close_both(s);
}

static void case_enh_term6_read_ird0(cs_scen *s)
{
    /* The same, answered with code 6 (insufficient IRD): it names the cause too. */
    cs_start_enh(s, cs_enh(cs_req(0, 1), 1, 0, 0, 1, 1, 0), cs_enh(cs_rep(0, 1), 1, 0, 0, 1, 0, 1));
    cs_fpdu(s, D0, g_ul, cs_ul_term(g_ul, sizeof g_ul, 2, 0, 6));
    cs_close_both(s);
}

/* One tagged segment of dir: opcode, STag, TO and L as given. */
static void tagged_seg(cs_scen *s, int dir, unsigned op, uint32_t stag, uint64_t to, int last, size_t payload)
{
    mpa_ddp d = cs_ul_tagged(op, stag, to);
    d.hdr.last = (uint8_t)last;
    cs_fpdu(s, dir, g_ul, cs_ul_build(&d, payload, g_ul, sizeof g_ul));
}

/* RDMA Read Responses against their Requests (RFC 5040 4.4, 5.2.2). */
static void read_resp(cs_scen *s, int dir, uint32_t stag, uint64_t to, int last, size_t payload)
{
    tagged_seg(s, dir, MPA_RDMAP_READ_RESPONSE, stag, to, last, payload);
}

static void case_clean_read(cs_scen *s)
{
    cs_start_plain(s, 0, 1);
    cs_fpdu(s, D0, g_ul, cs_ul_read_req(g_ul, sizeof g_ul, 1, 3000));
    cs_fpdu(s, D0, g_ul, cs_ul_read_req(g_ul, sizeof g_ul, 2, 10));
    read_resp(s, D1, 0x1000, 0x2000, 0, 1600);
    read_resp(s, D1, 0x1000, 0x2000 + 1600, 1, 1400);
    read_resp(s, D1, 0x1000, 0x2000, 1, 10);
    cs_close_both(s);
}

/* RFC 5040 5.2.1: a Read Request, the requester's FIN, then the
 * responder's FIN with neither Read Response nor TERMINATE.  In the
 * clean twin the responder's FIN comes first: it may have crossed the
 * Request, so nothing is judged. */
static void read_unanswered_run(cs_scen *s, int responder_first)
{
    cs_start_plain(s, 0, 1);
    cs_send(s, D0, 1, 100);
    cs_send(s, D1, 1, 100);
    cs_fpdu(s, D0, g_ul, cs_ul_read_req(g_ul, sizeof g_ul, 1, 64));
    cs_end(s, responder_first ? D1 : D0, 0);
    cs_end(s, responder_first ? D0 : D1, 0);
}

static void case_rdmap_read_answer(cs_scen *s) { read_unanswered_run(s, 0); }
static void case_clean_read_close_crossed(cs_scen *s) { read_unanswered_run(s, 1); }

static void case_rdmap_read_match(cs_scen *s)
{
    cs_start_plain(s, 0, 1);
    cs_fpdu(s, D0, g_ul, cs_ul_read_req(g_ul, sizeof g_ul, 1, 64));
    read_resp(s, D1, 0x1000, 0x2100, 1, 64); /* the Request said TO 0x2000 */
    cs_close_both(s);
}

static void case_rdmap_read_short(cs_scen *s)
{
    cs_start_plain(s, 0, 1);
    cs_fpdu(s, D0, g_ul, cs_ul_read_req(g_ul, sizeof g_ul, 1, 64));
    read_resp(s, D1, 0x1000, 0x2000, 1, 32); /* last segment after 32 of 64 octets */
    cs_close_both(s);
}

/* RFC 5040 6.1, RFC 6581 9.1: Read Requests outstanding against the
 * negotiated ORD/IRD.  The Initiator offers IRD 4 and ORD 2; the
 * Responder answers IRD 2 and ORD 1.  Both keep within their bounds
 * (clean-read-ord), or each sends one Request too many (rdmap-read-ord). */
static void read_ord_run(cs_scen *s, int over)
{
    cs_start_enh(s, cs_enh(cs_req(0, 1), 0, 0, 0, 0, 4, 2), cs_enh(cs_rep(0, 1), 0, 0, 0, 0, 2, 1));
    unsigned mi = 1, mr = 1;
    for (unsigned k = 0; k < 2 + (unsigned)over; k++) /* Responder IRD 2 */
        cs_fpdu(s, D0, g_ul, cs_ul_read_req(g_ul, sizeof g_ul, mi++, 64));
    for (unsigned k = 0; k < 1 + (unsigned)over; k++) /* Responder ORD 1 */
        cs_fpdu(s, D1, g_ul, cs_ul_read_req(g_ul, sizeof g_ul, mr++, 32));
    for (unsigned k = 0; k < 2 + (unsigned)over; k++)
        read_resp(s, D1, 0x1000, 0x2000, 1, 64);
    for (unsigned k = 0; k < 1 + (unsigned)over; k++)
        read_resp(s, D0, 0x1000, 0x2000, 1, 32);
    /* Answered: the next ones fit again. */
    cs_fpdu(s, D0, g_ul, cs_ul_read_req(g_ul, sizeof g_ul, mi++, 64));
    cs_fpdu(s, D0, g_ul, cs_ul_read_req(g_ul, sizeof g_ul, mi++, 64));
    cs_fpdu(s, D1, g_ul, cs_ul_read_req(g_ul, sizeof g_ul, mr++, 32));
    read_resp(s, D1, 0x1000, 0x2000, 1, 64);
    read_resp(s, D1, 0x1000, 0x2000, 1, 64);
    read_resp(s, D0, 0x1000, 0x2000, 1, 32);
    cs_close_both(s);
}

static void case_clean_read_ord(cs_scen *s) { read_ord_run(s, 0); }
static void case_rdmap_read_ord(cs_scen *s) { read_ord_run(s, 1); }

static void case_qrk_read_le(cs_scen *s)
{
    cs_start_plain(s, 0, 1);
    /* The 2008 stack: sink STag 0x1000, TO 0x2000, size 64, source
     * STag 0x3000, TO 0x4000, each written little-endian. */
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_READ_REQUEST, 1, 1);
    d.u.rreq.sink_stag = 0x00100000;
    d.u.rreq.sink_to = 0x0020000000000000ull;
    d.u.rreq.size = 0x40000000;
    d.u.rreq.src_stag = 0x00300000;
    d.u.rreq.src_to = 0x0040000000000000ull;
    cs_fpdu(s, D0, g_ul, cs_ul_build(&d, 0, g_ul, sizeof g_ul));
    read_resp(s, D1, 0x1000, 0x2000, 1, 64);
    cs_close_both(s);
}

static void case_qrk_rtr_stag0(cs_scen *s)
{
    cs_start_enh(s, cs_enh(cs_req(0, 1), 1, 0, 0, 1, 4, 1), cs_enh(cs_rep(0, 1), 1, 0, 0, 1, 1, 4));
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_READ_REQUEST, 1, 1); /* every field 0 */
    cs_fpdu(s, D0, g_ul, cs_ul_build(&d, 0, g_ul, sizeof g_ul));
    read_resp(s, D1, 0, 0, 1, 0); /* the zero-length answer */
    cs_send(s, D1, 1, 16);
    cs_close_both(s);
}

/* Sends of three MSNs with DDP version dv and RDMAP version rv from
 * direction 0 (and from 1 when both), then FIN both ways. */
static void versions_case(cs_scen *s, unsigned dv, unsigned rv, int both)
{
    cs_start_plain(s, 0, 0);
    for (unsigned msn = 1; msn <= 3; msn++)
        for (int dir = D0; dir <= (both ? D1 : D0); dir++) {
            mpa_ddp d = cs_ul_untagged(MPA_RDMAP_SEND, 0, msn);
            d.hdr.dv = (uint8_t)dv;
            d.hdr.rv = (uint8_t)rv;
            size_t n = cs_ul_build(&d, 24 + msn, g_ul, sizeof g_ul);
            cs_fpdu(s, dir, g_ul, n);
        }
    cs_close_both(s);
}

/* RDMAP version 00b (the RDMA Consortium's) in every FPDU both ways:
 * valid (RFC 5040 4.1), nothing to report. */
static void case_rdmap_version_0(cs_scen *s) { versions_case(s, 1, 0, 1); }

/* RV 01b, then 00b, then 01b from the Initiator: each valid, but the
 * direction changes version (named once). */
static void case_rdmap_version_change(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    for (unsigned msn = 1; msn <= 3; msn++) {
        mpa_ddp d = cs_ul_untagged(MPA_RDMAP_SEND, 0, msn);
        d.hdr.rv = (uint8_t)(msn != 2);
        cs_fpdu(s, D0, g_ul, cs_ul_build(&d, 24 + msn, g_ul, sizeof g_ul));
    }
    cs_close_both(s);
}

/* RV 00b throughout, one of the messages Immediate Data: RFC 7306 4.1
 * wants 01b on its messages. */
static void case_rdmap_version_7306(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_SEND, MPA_QN_SEND, 1);
    d.hdr.rv = 0;
    cs_fpdu(s, D0, g_ul, cs_ul_build(&d, 16, g_ul, sizeof g_ul));
    d = cs_ul_untagged(MPA_RDMAP_IMMEDIATE, MPA_QN_SEND, 2);
    d.hdr.rv = 0;
    d.u.imm.data = 0x0102030405060708ull;
    cs_fpdu(s, D0, g_ul, cs_ul_build(&d, 0, g_ul, sizeof g_ul));
    cs_close_both(s);
}

/* DV 2 and RV 3 in every FPDU: each named once for the direction. */
static void case_ddp_versions(cs_scen *s) { versions_case(s, 2, 3, 0); }

/* A pre-standard RDMAC stack: DV 0 and RV 0 in every FPDU (the draft-03
 * vector's header 40 03), both ways: named once per direction, the
 * headers decoded as version 1. */
static void case_qrk_ddp_version(cs_scen *s) { versions_case(s, 0, 0, 1); }

/* Linux siw with GSO on both ends (Res bit 0x8 in both frames): its FPDUs
 * are as long as a GSO super-segment, not as MULPDU allows; captured on
 * the sending host, each FPDU is one segment.  Named once per direction. */
static void case_qrk_mulpdu_gso(cs_scen *s)
{
    s->emss[D0] = 1460;
    s->emss[D1] = 1460;
    mpa_frame_enc q = cs_enh(cs_req(0, 1), 0, 0, 0, 0, 1, 1), p = cs_enh(cs_rep(0, 1), 0, 0, 0, 0, 1, 1);
    q.res = 0x8;
    p.res = 0x8;
    cs_start_enh(s, q, p);
    cs_send(s, D0, 1, 4000);
    cs_send(s, D0, 2, 9000);
    cs_send(s, D1, 1, 3000);
    cs_send(s, D1, 2, 100);
    cs_close_both(s);
}

/* The IRD/ORD negotiation before RFC 6581 ([MS-SMBD] 6.1): a Rev 1
 * Request and Reply whose private data is IRD then ORD, 32 bits each;
 * swapped: each number byte-swapped. */
static void leg_irdord(cs_scen *s, int swapped)
{
    static const uint8_t be_q[8] = {0, 0, 0, 8, 0, 0, 0, 8}, be_p[8] = {0, 0, 0, 16, 0, 0, 0, 4};
    static const uint8_t le_q[8] = {8, 0, 0, 0, 8, 0, 0, 0}, le_p[8] = {16, 0, 0, 0, 4, 0, 0, 0};
    start_with_pd(s, swapped ? le_q : be_q, 8, swapped ? le_p : be_p, 8);
    cs_send(s, D0, 1, 36);
    cs_send(s, D1, 1, 36);
    cs_close_both(s);
}

static void case_qrk_leg_irdord(cs_scen *s) { leg_irdord(s, 0); }
static void case_qrk_leg_irdord_swapped(cs_scen *s) { leg_irdord(s, 1); }

/* ---- DDP sequencing (RFC 5041 4.1, 4.3, 5.2, 5.3) ---------------------- */

/* One segment of a Send (QN 0) of dir: MSN, MO and L as given. */
static void seg_send(cs_scen *s, int dir, unsigned msn, uint32_t mo, int last, size_t payload)
{
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_SEND, 0, msn);
    d.hdr.mo = mo;
    d.hdr.last = (uint8_t)last;
    cs_fpdu(s, dir, g_ul, cs_ul_build(&d, payload, g_ul, sizeof g_ul));
}

/* One segment of an RDMA Write of dir: STag, TO and L as given. */
static void seg_write(cs_scen *s, int dir, uint32_t stag, uint64_t to, int last, size_t payload)
{
    tagged_seg(s, dir, MPA_RDMAP_RDMA_WRITE, stag, to, last, payload);
}

/* Correct sequencing both ways: Sends of three segments (MO 0, 400,
 * 800) with a Read Request (QN 1) between two of them, an RDMA Write of
 * three segments (TO going up by each payload) with a Read Response of
 * two segments after its first, a zero-length Write, the other two
 * Read Responses. */
static void case_ddp_seq_clean(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    for (unsigned m = 1; m <= 3; m++) {
        seg_send(s, D0, m, 0, 0, 400);
        seg_send(s, D0, m, 400, 0, 400);
        cs_fpdu(s, D0, g_ul, cs_ul_read_req(g_ul, sizeof g_ul, m, 64));
        seg_send(s, D0, m, 800, 1, 100 + m);
        cs_send(s, D1, m, 50);
    }
    seg_write(s, D1, 0x55, 0x10000, 0, 1000);
    /* The first Read Response in two segments, between the Write's
     * (0x1000, 0x2000: cs_ul_read_req's sink). */
    read_resp(s, D1, 0x1000, 0x2000, 0, 32);
    read_resp(s, D1, 0x1000, 0x2000 + 32, 1, 32);
    seg_write(s, D1, 0x55, 0x10000 + 1000, 0, 700);
    seg_write(s, D1, 0x55, 0x10000 + 1700, 1, 300);
    seg_write(s, D1, 0x66, 0, 1, 0);
    for (unsigned m = 0; m < 2; m++)
        read_resp(s, D1, 0x1000, 0x2000, 1, 64);
    cs_send(s, D1, 4, 10);
    cs_close_both(s);
}

/* A capture that starts inside a message, near the end of the MSN
 * space: the MSN is learnt, not expected to be 1, and 0xFFFFFFFF is
 * followed by 0. */
static void case_ddp_msn_wrap(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    seg_send(s, D0, 0xfffffffeu, 0, 0, 300);
    cs_send(s, D1, 0xfffffffdu, 100);
    seg_send(s, D0, 0xfffffffeu, 300, 1, 200); /* the capture starts here */
    cs_send(s, D1, 0xfffffffeu, 100);
    for (unsigned m = 0xffffffffu, i = 0; i < 4; m++, i++) {
        seg_send(s, D0, m, 0, 0, 250);
        seg_send(s, D0, m, 250, 1, 60);
        cs_send(s, D1, m, 100);
    }
    cs_close_both(s);
    s->midstream = 1;
    s->start_chunk = 4;
}

/* The first Send carries MSN 2 (RFC 5041 4.3: the first is 1). */
static void case_ddp_msn_start(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    for (unsigned m = 2; m <= 6; m++)
        cs_send(s, D0, m, 100);
    cs_send(s, D1, 1, 100);
    cs_close_both(s);
}

/* MSN 3 skipped on QN 0, then one up again; said once. */
static void case_ddp_msn_next(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    static const unsigned msn[] = {1, 2, 4, 5, 6, 8};
    for (unsigned i = 0; i < sizeof msn / sizeof msn[0]; i++)
        cs_send(s, D0, msn[i], 100);
    cs_send(s, D1, 1, 100);
    cs_close_both(s);
}

/* The second segment of a Send carries another MSN. */
static void case_ddp_msn_same(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    seg_send(s, D0, 1, 0, 0, 400);
    seg_send(s, D0, 2, 400, 1, 100);
    cs_send(s, D0, 3, 100);
    cs_send(s, D0, 4, 100);
    cs_close_both(s);
}

/* A Send whose last segment has L=0: the next Send begins. */
static void case_ddp_last(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    seg_send(s, D0, 1, 0, 0, 400);
    seg_send(s, D0, 1, 400, 0, 100);
    for (unsigned m = 2; m <= 4; m++)
        cs_send(s, D0, m, 100);
    cs_close_both(s);
}

/* A Send's second segment leaves 100 octets out (MO 500, not 400). */
static void case_ddp_mo_order(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    seg_send(s, D0, 1, 0, 0, 400);
    seg_send(s, D0, 1, 500, 1, 100);
    for (unsigned m = 2; m <= 4; m++) {
        seg_send(s, D0, m, 0, 0, 400);
        seg_send(s, D0, m, 400, 1, 100);
    }
    cs_close_both(s);
}

/* An RDMA Write's second segment starts 16 octets on from where the
 * first ended. */
static void case_ddp_to_order(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    seg_write(s, D0, 0x55, 0x4000, 0, 512);
    seg_write(s, D0, 0x55, 0x4000 + 512 + 16, 1, 512);
    for (unsigned m = 0; m < 3; m++) {
        seg_write(s, D0, 0x56, 0x8000, 0, 512);
        seg_write(s, D0, 0x56, 0x8000 + 512, 1, 512);
    }
    cs_close_both(s);
}

/* RFC 5044 4.5: a Send whose first segment (400 octets) is followed by
 * a longer one (1000), and an RDMA Write cut 200 + 1000 the other way;
 * in the clean twin every segment but the last is the longest, one of
 * them 8 octets shorter than the next (what markers may take). */
static void ulpdu_full_run(cs_scen *s, const unsigned *send, unsigned nsend, unsigned w0, unsigned w1)
{
    cs_start_plain(s, 0, 0);
    uint32_t mo = 0;
    for (unsigned k = 0; k < nsend; k++) {
        seg_send(s, D0, 1, mo, k + 1 == nsend, send[k]);
        mo += send[k];
    }
    tagged_seg(s, D1, MPA_RDMAP_RDMA_WRITE, 0x77, 0x1000, 0, w0);
    tagged_seg(s, D1, MPA_RDMAP_RDMA_WRITE, 0x77, 0x1000 + w0, 1, w1);
    cs_close_both(s);
}

static void case_fpd_ulpdu_full(cs_scen *s)
{
    static const unsigned send[] = {400, 1000};
    ulpdu_full_run(s, send, 2, 200, 1000);
}

static void case_clean_ulpdu_full(cs_scen *s)
{
    static const unsigned send[] = {1000, 1008, 400};
    ulpdu_full_run(s, send, 3, 1000, 1000);
}

/* A Send whose segments start at MO 100: none at MO 0 (said when the
 * next Send begins; the first seen at MO 100 is MO-ORDER's too). */
static void case_ddp_mo_first(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    seg_send(s, D0, 1, 100, 0, 400);
    seg_send(s, D0, 1, 500, 1, 100);
    for (unsigned m = 2; m <= 4; m++)
        seg_send(s, D0, m, 0, 1, 100);
    cs_close_both(s);
}

/* A Send with Invalidate whose second segment names another STag. */
static void case_ddp_rsvdulp_same(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    for (unsigned m = 1; m <= 3; m++) {
        mpa_ddp d = cs_ul_untagged(MPA_RDMAP_SEND_INVALIDATE, 0, m);
        d.hdr.rsvdulp = 0x100;
        d.hdr.last = 0;
        cs_fpdu(s, D0, g_ul, cs_ul_build(&d, 400, g_ul, sizeof g_ul));
        d.hdr.mo = 400;
        d.hdr.last = 1;
        d.hdr.rsvdulp = m == 2 ? 0x200 : 0x100;
        cs_fpdu(s, D0, g_ul, cs_ul_build(&d, 100, g_ul, sizeof g_ul));
    }
    cs_close_both(s);
}

/* A zero-length Send in two segments (MO 0, no payload, L=0 then L=1). */
static void case_ddp_zero_one(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    seg_send(s, D0, 1, 0, 1, 0);
    seg_send(s, D0, 2, 0, 0, 0);
    seg_send(s, D0, 2, 0, 1, 0);
    seg_send(s, D0, 3, 0, 1, 100);
    cs_close_both(s);
}

/* A Send whose second segment claims MO 0xFFFFFF00 with 512 octets: the
 * message would be longer than 2^32 - 1 octets (and MO jumps). */
static void case_ddp_msg_len(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    seg_send(s, D0, 1, 0, 0, 400);
    seg_send(s, D0, 1, 0xFFFFFF00u, 1, 512);
    seg_send(s, D0, 2, 0, 1, 100);
    cs_close_both(s);
}

static void case_ddp_rsvd(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_SEND, 0, 1);
    d.hdr.ddp_rsvd = 1;
    d.hdr.rdmap_rsvd = 2;
    size_t n = cs_ul_build(&d, 4, g_ul, sizeof g_ul);
    cs_fpdu(s, D0, g_ul, n);
    cs_close_both(s);
}

static void case_rdmap_opcode(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    mpa_ddp d = cs_ul_untagged(0xE, 0, 1);
    size_t n = cs_ul_build(&d, 4, g_ul, sizeof g_ul);
    cs_fpdu(s, D0, g_ul, n);
    cs_close_both(s);
}

static void case_rdmap_tagged_qn(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    mpa_ddp d = cs_ul_tagged(MPA_RDMAP_SEND, 1, 0); /* a tagged Send */
    size_t n = cs_ul_build(&d, 4, g_ul, sizeof g_ul);
    cs_fpdu(s, D0, g_ul, n);
    d = cs_ul_untagged(MPA_RDMAP_SEND, 5, 2); /* Send to QN 5 */
    n = cs_ul_build(&d, 4, g_ul, sizeof g_ul);
    cs_fpdu(s, D0, g_ul, n);
    cs_close_both(s);
}

static void case_rdmap_one_seg(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_READ_REQUEST, 1, 1);
    d.hdr.last = 0;
    d.u.rreq.size = 64;
    size_t n = cs_ul_build(&d, 0, g_ul, sizeof g_ul);
    cs_fpdu(s, D0, g_ul, n);
    cs_close_both(s);
}

/* The ULPDU of d with payload octets after its headers, as one FPDU of dir. */
static void ul_send(cs_scen *s, int dir, mpa_ddp d, size_t payload)
{
    cs_fpdu(s, dir, g_ul, cs_ul_build(&d, payload, g_ul, sizeof g_ul));
}

/* An Atomic Request (QN 1) as RFC 7306 5.2.1 writes it: the fields aop
 * does not use as it sets them (Compare Data 0, unused masks all ones). */
static mpa_ddp atomic_req(unsigned msn, unsigned aop, uint32_t req_id, uint64_t to, uint64_t data)
{
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_ATOMIC_REQUEST, MPA_QN_READ_REQUEST, msn);
    d.u.atomic_req.aop = (uint8_t)aop;
    d.u.atomic_req.req_id = req_id;
    d.u.atomic_req.stag = 0x1234;
    d.u.atomic_req.to = to;
    d.u.atomic_req.add_swap_data = data;
    d.u.atomic_req.add_swap_mask = aop == MPA_ATOMIC_FETCH_ADD ? 0 : UINT64_MAX;
    d.u.atomic_req.compare_mask = UINT64_MAX;
    return d;
}

/* An Atomic Response (QN 3) to the Request req_id. */
static mpa_ddp atomic_resp(unsigned msn, uint32_t req_id, uint64_t value)
{
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_ATOMIC_RESPONSE, MPA_QN_ATOMIC_RESP, msn);
    d.u.atomic_resp.orig_req_id = req_id;
    d.u.atomic_resp.orig_value = value;
    return d;
}

/* A plain connection whose Initiator sends the one message d. */
static void one_message(cs_scen *s, mpa_ddp d)
{
    cs_start_plain(s, 0, 0);
    ul_send(s, D0, d, 0);
    cs_close_both(s);
}

static void case_rdmap_atomic(cs_scen *s)
{
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_ATOMIC_REQUEST, 1, 1);
    d.u.atomic_req.aop = 7;
    one_message(s, d);
}

/* AOpCode 0x1, registered as Reserved (RFC 7306 10.1; the "Swap" of the
 * field texts has no code), in an otherwise well-formed Request. */
static void case_rdmap_atomic_aop1(cs_scen *s)
{
    one_message(s, atomic_req(1, MPA_ATOMIC_RESERVED_1, 0x101, 0x2000, 5));
}

/* Every RFC 7306 message as RFC 7306 4.1, 5.2 and 6.2 write it: a FetchAdd
 * and a CmpSwap Request (QN 1), their Atomic Responses (QN 3, the other
 * way), Immediate Data and Immediate Data with SE (QN 0, 8 octets). */
static void case_rdmap_7306(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    ul_send(s, D0, atomic_req(1, MPA_ATOMIC_FETCH_ADD, 0x101, 0x2000, 5), 0);
    mpa_ddp d = atomic_req(2, MPA_ATOMIC_CMP_SWAP, 0x102, 0x2008, 9);
    d.u.atomic_req.compare_data = 7;
    d.u.atomic_req.compare_mask = 0xFFFFFFFFu;
    ul_send(s, D0, d, 0);
    ul_send(s, D1, atomic_resp(1, 0x101, 40), 0);
    ul_send(s, D1, atomic_resp(2, 0x102, 7), 0);
    d = cs_ul_untagged(MPA_RDMAP_IMMEDIATE, MPA_QN_SEND, 1);
    d.u.imm.data = 0x0102030405060708ull;
    ul_send(s, D0, d, 0);
    d = cs_ul_untagged(MPA_RDMAP_IMMEDIATE_SE, MPA_QN_SEND, 2);
    d.u.imm.data = 0x1112131415161718ull;
    ul_send(s, D0, d, 0);
    cs_close_both(s);
}

/* RFC 7306 4.2, 6.3: Immediate Data is exactly 8 octets, an Atomic
 * Response its header alone. */
static void case_rdmap_ext_len(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_IMMEDIATE, MPA_QN_SEND, 1);
    ul_send(s, D0, d, 4);
    ul_send(s, D0, atomic_req(1, MPA_ATOMIC_FETCH_ADD, 0, 0, 1), 0);
    d = atomic_resp(1, 0, 0);
    d.hdr.last = 0;
    ul_send(s, D1, d, 0);
    cs_close_both(s);
}

/* RFC 7306 5.2.1: a FetchAdd with Compare Mask 0 (it sends all ones). */
static void case_rdmap_atomic_unused(cs_scen *s)
{
    mpa_ddp d = atomic_req(1, MPA_ATOMIC_FETCH_ADD, 0, 0, 1);
    d.u.atomic_req.compare_mask = 0;
    one_message(s, d);
}

/* RFC 7306 5.2.2: Responses answer the other side's Requests in order,
 * by Request Identifier: the Response to Request 2 comes before the one
 * to Request 1, then a Response for which no Request is outstanding. */
static void case_rdmap_atomic_resp(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    ul_send(s, D0, atomic_req(1, MPA_ATOMIC_FETCH_ADD, 1, 0x2000, 1), 0);
    ul_send(s, D0, atomic_req(2, MPA_ATOMIC_FETCH_ADD, 2, 0x2008, 1), 0);
    ul_send(s, D1, atomic_resp(1, 2, 0), 0);
    ul_send(s, D1, atomic_resp(2, 1, 0), 0);
    cs_close_both(s);
}

/* RFC 7306 5.1.1, 5.1.2, 8.2: an Atomic Request at a Remote Tagged
 * Offset that is not 8-octet aligned is not performed.  Two Requests, at
 * 0x2000 and 0x2004: the Responder answers the second with a TERMINATE
 * (RDMAP Remote Operation Error, catastrophic error localized to the
 * RDMAP Stream, its DDP header copied) in rdmap-atomic-req-align (the
 * requester wrong, the responder right), with an Atomic Response in
 * rdmap-atomic-align. */
/* answered: 0 a TERMINATE 0/2/7 (RFC 7306 8.2), 1 an Atomic Response,
 * 2 a TERMINATE with another code (0/2/6, Unexpected OpCode). */
static void atomic_align_run(cs_scen *s, int answered)
{
    cs_start_plain(s, 0, 0);
    ul_send(s, D0, atomic_req(1, MPA_ATOMIC_FETCH_ADD, 1, 0x2000, 1), 0);
    mpa_ddp bad = atomic_req(2, MPA_ATOMIC_CMP_SWAP, 2, 0x2004, 5);
    size_t n = cs_ul_build(&bad, 0, g_ul, sizeof g_ul);
    cs_fpdu(s, D0, g_ul, n);
    ul_send(s, D1, atomic_resp(1, 1, 0), 0);
    if (answered == 1) {
        ul_send(s, D1, atomic_resp(2, 2, 0), 0);
    } else {
        mpa_ddp t = term_copying(0, 2, answered ? 6 : 7, &bad.hdr, (unsigned)n);
        ul_send(s, D1, t, 0);
    }
    cs_close_both(s);
}

static void case_rdmap_atomic_req_align(cs_scen *s) { atomic_align_run(s, 0); }
static void case_rdmap_atomic_align(cs_scen *s) { atomic_align_run(s, 1); }
static void case_rdmap_atomic_align_term(cs_scen *s) { atomic_align_run(s, 2); }

/* RFC 7306 5.2.1: two valid Atomic Requests, the first answered; then
 * the requester's FIN and the responder's, with neither an Atomic
 * Response to the second nor a TERMINATE.  In the clean twin the
 * responder's FIN comes first: it may have crossed the second Request,
 * so nothing is judged. */
static void atomic_unanswered_run(cs_scen *s, int responder_first)
{
    cs_start_plain(s, 0, 0);
    ul_send(s, D0, atomic_req(1, MPA_ATOMIC_FETCH_ADD, 0x101, 0x2000, 1), 0);
    ul_send(s, D1, atomic_resp(1, 0x101, 0), 0);
    ul_send(s, D0, atomic_req(2, MPA_ATOMIC_CMP_SWAP, 0x102, 0x2008, 5), 0);
    cs_end(s, responder_first ? D1 : D0, 0);
    cs_end(s, responder_first ? D0 : D1, 0);
}

static void case_rdmap_atomic_answer(cs_scen *s) { atomic_unanswered_run(s, 0); }
static void case_clean_atomic_close_crossed(cs_scen *s) { atomic_unanswered_run(s, 1); }

/* ---- the capture itself: holes and mid-stream starts ------------------ */

/* One segment of each direction lost (the peer got it; the capture did
 * not): decoding resumes at the next FPDU it can prove (RFC 5044 4.3). */
static void case_cap_hole(cs_scen *s)
{
    cs_start_plain(s, 1, 0);
    for (unsigned i = 0; i < 10; i++) {
        cs_send(s, D0, i + 1, 200 + 90 * i);
        cs_send(s, D1, i + 1, 700 - 40 * i);
        if (i == 3)
            cs_lose_last(s);
        if (i == 5) {
            s->ch[s->nch - 2].kind = CS_LOST;
        }
    }
    cs_close_both(s);
}

/* A lost segment whose successor is captured before the peer's pure ACK
 * past the hole: the reassembly delivers that successor only while reading
 * the ACK (RFC 9293 3.10.7.4: the ACK proves the receiver got the lost
 * octets).  Its FPDU is whole and decoded: CRC, DDP and RDMAP headers, and
 * the frame that carried its octets. */
static void case_cap_hole_acked(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    for (unsigned i = 0; i < 4; i++) {
        cs_send(s, D0, i + 1, 100 + 40 * i);
        if (i == 2)
            cs_lose_last(s);
    }
    cs_send(s, D1, 1, 80);
    cs_close_both(s);
}

/* After a hole every CRC is wrong: no FPDU start can be proved (RFC 5044
 * 4.4: with CRCs on, a valid CRC is what proves an FPDU), and the report
 * says what was tried, from where. */
static void case_cap_resync_failed(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    cs_send(s, D0, 1, 300);
    cs_send(s, D0, 2, 300);
    cs_lose_last(s);
    mpa_fpdu_faults f = no_faults();
    f.crc_mode = 2;
    f.crc_xor = 1;
    for (unsigned i = 0; i < 6; i++)
        fpdu_faulty(s, D0, 200 + 40 * i, f);
    cs_close_both(s);
}

/* The Initiator's first FPDU is lost: whether the Responder's first FPDU
 * came after a valid one of the Initiator (RFC 5044 7.1.2 rule 4) rests
 * on lost octets, and is not judged. */
static void case_cap_not_judged(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    cs_send(s, D0, 1, 200);
    cs_lose_last(s);
    cs_send(s, D1, 1, 300);
    for (unsigned i = 0; i < 4; i++) {
        cs_send(s, D0, i + 2, 100 + 60 * i);
        cs_send(s, D1, i + 2, 400 - 50 * i);
    }
    cs_close_both(s);
}

/* The capture starts after the startup, inside the FPDU traffic;
 * markers one way, nothing stated: the octets prove the framing. */
static void case_cap_midstream(cs_scen *s)
{
    cs_start_plain(s, 1, 0);
    for (unsigned i = 0; i < 12; i++) {
        cs_send(s, D0, i + 1, 300 + 50 * i);
        cs_send(s, D1, i + 1, 900 - 30 * i);
    }
    cs_close_both(s);
    s->midstream = 1;
    s->start_chunk = 6; /* Request, Reply and two FPDUs each way not captured */
}

/* ---- no cascades ------------------------------------------------------ */

/* One ULPDU_Length 512 too long in the middle of plain traffic: the CRC
 * it reaches is wrong; the framing is lost once, and the valid CRCs of
 * the five FPDUs it swallowed find it again at its true end (RFC 5044
 * 4.4, 6, 8): all 15 FPDUs are decoded. */
static void case_fpd_framing_lost(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    for (unsigned i = 0; i < 4; i++)
        cs_send(s, D0, i + 1, 100 + 40 * i);
    mpa_fpdu_faults f = no_faults();
    f.len_override = 300 + 18 + 512; /* a Send of 300 octets */
    fpdu_faulty(s, D0, 300, f);
    for (unsigned i = 0; i < 10; i++)
        cs_send(s, D0, i + 6, 60 + 25 * i);
    cs_close_both(s);
}

/* The same with markers: a marker disagrees with the lengths first (its
 * findings stand), then the CRC fails and the swallowed FPDUs are found. */
static void case_fpd_framing_lost_mrk(cs_scen *s)
{
    cs_start_plain(s, 1, 1);
    for (unsigned i = 0; i < 4; i++)
        cs_send(s, D0, i + 1, 100 + 40 * i);
    mpa_fpdu_faults f = no_faults();
    f.len_override = 300 + 18 + 512;
    fpdu_faulty(s, D0, 300, f);
    for (unsigned i = 0; i < 10; i++)
        cs_send(s, D0, i + 6, 60 + 25 * i);
    cs_close_both(s);
}

/*
 * A ULPDU_Length corrupted downwards (RFC 5044 4.1, 6): the Send of 300
 * octets claims 40 octets less, so the receiver's FPDU ends early, the
 * CRC it reads there is payload, and the next "ULPDU_Length" is payload
 * too (here 0x9aa1: longer than all that follows).  The FPDUs after the
 * true end are entirely present and must be found again: 15 FPDUs from
 * d0, the short one as its length reads.  m: markers both ways; crc: C
 * in both frames (0: CRCs off, nothing proves an FPDU but its header and
 * the lengths that chain).
 */
static void len_down(cs_scen *s, int m, int crc)
{
    /* With CRCs off the sender writes 0 in every CRC field (RFC 5044
     * 4.4 lets it write anything), so nothing there looks like a CRC. */
    mpa_fpdu_faults z = no_faults();
    z.crc_mode = crc ? 0 : 1;
    cs_start_enh(s, cs_req(m, crc), cs_rep(m, crc));
    for (unsigned i = 0; i < 4; i++)
        cs_fpdu_f(s, D0, g_ul, cs_ul_send(g_ul, sizeof g_ul, i + 1, 100 + 40 * i), &z);
    mpa_fpdu_faults f = z;
    f.len_override = 300 + 18 - 40;
    cs_fpdu_f(s, D0, g_ul, cs_ul_send(g_ul, sizeof g_ul, 5, 300), &f);
    for (unsigned i = 0; i < 10; i++)
        cs_fpdu_f(s, D0, g_ul, cs_ul_send(g_ul, sizeof g_ul, i + 6, 60 + 25 * i), &z);
    cs_close_both(s);
}

static void case_fpd_len_down(cs_scen *s) { len_down(s, 0, 1); }
static void case_fpd_len_down_mrk(cs_scen *s) { len_down(s, 1, 1); }
/* CRCs off: nothing proves the lengths wrong.  The "header" read from
 * payload is not well-formed: one MPA-FPD-FRAMING-LOST and nothing judged
 * after it, but the length read there (0x9aa1) is still waited for, so
 * the 10 FPDUs after the short one are not decoded (no ground truth row:
 * docs/libmpa.md says why). */
static void case_fpd_len_down_nocrc(cs_scen *s) { len_down(s, 0, 0); }
static void case_fpd_len_down_nocrc_mrk(cs_scen *s) { len_down(s, 1, 0); }

/* ---- quirks: markers (docs/quirks.md) ---------------------------------- */

/*
 * A 2008 software iWARP stack with markers negotiated both ways (Rev 1,
 * C=1).  Our model of it, from published descriptions of its captures
 * (no real capture is available here, so correct this if one shows
 * otherwise): it writes each marker's FPDUPTR little-endian (le); its
 * marker count leaves out each FPDU's 4 CRC octets (nocrc), so the n-th
 * marker stands at 512*n + 4*(FPDUs whose CRC was sent before it) from
 * the marker base and no marker ever falls before or inside a CRC
 * field; its CRC32C covers the FPDU as sent, markers included (RFC 5044
 * 4.3).  Sends, RDMA Writes and a Read Request/Response of varied sizes,
 * some spanning several markers, some far smaller than 512: 22 FPDUs
 * each way, every one entirely present.
 */
static void qk_markers_traffic_h(cs_scen *s, int le, int nocrc, unsigned off0, unsigned off1, int lose);

static void qk_markers_traffic(cs_scen *s, int le, int nocrc, unsigned off0, unsigned off1)
{
    qk_markers_traffic_h(s, le, nocrc, off0, off1, -1);
}

/* The same, the capture losing each direction's FPDU number `lose` (from
 * 0; -1: none). */
static void qk_markers_traffic_h(cs_scen *s, int le, int nocrc, unsigned off0, unsigned off1, int lose)
{
    static const unsigned sz[20] = {40,  700, 120, 1500, 24, 480, 900, 64, 2000, 300,
                                    8,   1100, 505, 16,  760, 96, 1300, 200, 52, 620};
    cs_start_plain(s, 1, 1);
    cs_quirk_markers(s, D0, le, nocrc, off0);
    cs_quirk_markers(s, D1, le, nocrc, off1);
    unsigned msn1 = 1; /* d1's Sends: MSN one up per Send (RFC 5041 4.3) */
    for (unsigned i = 0; i < 20; i++) {
        cs_send(s, D0, i + 1, sz[i]);
        if ((int)i == lose)
            cs_lose_last(s);
        if (i % 3 == 1)
            cs_write(s, D1, sz[(i + 7) % 20]);
        else
            cs_send(s, D1, msn1++, sz[(i + 3) % 20]);
        if ((int)i == lose)
            cs_lose_last(s);
    }
    size_t n = cs_ul_read_req(g_ul, sizeof g_ul, 1, 1800);
    cs_fpdu(s, D0, g_ul, n);
    mpa_ddp rr = cs_ul_tagged(MPA_RDMAP_READ_RESPONSE, 0x1000, 0x2000); /* the Request's sink */
    n = cs_ul_build(&rr, 1800, g_ul, sizeof g_ul);
    cs_fpdu(s, D1, g_ul, n);
    cs_write(s, D0, 610);
    cs_send(s, D1, msn1, 90);
    cs_close_both(s);
}

static void case_qrk_mrk_order(cs_scen *s) { qk_markers_traffic(s, 1, 0, 0, 0); }
static void case_qrk_mrk_drift(cs_scen *s) { qk_markers_traffic(s, 0, 1, 0, 0); }
static void case_qrk_mrk_2008(cs_scen *s) { qk_markers_traffic(s, 1, 1, 0, 0); }

/*
 * A sender that counts its markers from the wrong octet: its grid is the
 * RFC's, shifted, the first marker inside the first FPDU (a 40-octet
 * FPDU one way, 20 octets on; a 1500-octet one the other, 300 on).
 */
static void case_qrk_mrk_offset(cs_scen *s) { qk_markers_traffic(s, 0, 0, 20, 300); }
/* The 2008 stack's markers, counted from the wrong octet as well. */
static void case_qrk_mrk_offset_2008(cs_scen *s) { qk_markers_traffic(s, 1, 1, 20, 300); }

/*
 * The 2008 stack with each direction's second FPDU lost by the capture:
 * the hole comes before the markers' form is settled (the Initiator's
 * byte order and grid, the Responder's grid).
 */
static void case_qrk_mrk_drift_hole(cs_scen *s) { qk_markers_traffic_h(s, 1, 1, 0, 0, 1); }

const cs_case cs_cases[] = {
    {"clean-plain", "clean plain (RFC 5044 7.1)", case_clean_plain, ""},
    {"clean-markers", "clean markers and CRC (RFC 5044 4.3, 4.4)", case_clean_markers, ""},
    {"clean-between", "clean marker between FPDUs (RFC 5044 4.3)", case_clean_between, ""},
    {"clean-enh", "clean enhanced p2p (RFC 6581 9)", case_clean_enh, ""},
    {"clean-asym", "clean asymmetric markers (RFC 5044 7.1.1 M)", case_clean_asym, ""},
    {"clean-wrap", "clean sequence wrap (draft-03 7.1)", case_clean_wrap, ""},
    {"clean-reject", "clean reject then streaming (RFC 5044 7.1.2 rule 3)", case_clean_reject, ""},
    {"clean-pd", "clean private data 100/512 (RFC 5044 7.1.1)", case_clean_dv0_vector_free, ""},
    {"leg-startkey", "draft-03 Start Key", case_leg_startkey, "MPA-LEG-STARTKEY"},
    {"leg-rtr2007", "2007 RtR frame", case_leg_rtr2007,
     "MPA-LEG-RTR-FRAME MPA-FRM-REV-ENH"},
    {"key-req", "wrong Request key, responder closes (7.1.1)", case_key_req, "MPA-FRM-KEY-REQ"},
    {"key-req-answered", "wrong Request key answered (7.1.2 rule 5)", case_key_req_answered, "MPA-FRM-KEY-REQ MPA-FRM-KEY-CHECK"},
    {"not-mpa", "not MPA at all (7.1.2 rule 1)", case_not_mpa, "MPA-STA-REQ-FIRST"},
    {"hold-dead-peer", "Request and data after the peer left MPA", case_hold_dead_peer, "MPA-STA-REQ-FIRST MPA-FRM-KEY-CHECK"},
    {"key-rep", "wrong Reply key, initiator goes on", case_key_rep, "MPA-FRM-KEY-REP MPA-FRM-KEY-CHECK"},
    {"rev-bad", "Rev 3 (7.1.1)", case_rev_bad, "MPA-FRM-REV"},
    {"rev-bad-answered", "Rev 0 answered", case_rev_bad_answered, "MPA-FRM-REV MPA-STA-BAD-REQ-CLOSE"},
    {"res-bits", "Res bit 0x8", case_res_bits, "MPA-FRM-RES"},
    {"r-in-req", "R=1 in a Request", case_r_in_req, "MPA-FRM-R-REQ MPA-STA-REJECT"},
    {"pdlen-max", "PD_Length 600", case_pdlen_max, "MPA-FRM-PDLEN-MAX"},
    {"pdlen-lie", "PD_Length lies", case_pdlen_lie, "MPA-FRM-PDLEN-MATCH"},
    {"pdlen-max-cut", "Reply claims PD_Length 65535, then RST", case_pdlen_max_cut,
     "MPA-FRM-PDLEN-MAX MPA-FRM-PDLEN-MATCH"},
    {"frm-whole", "half a frame", case_frm_whole, "MPA-FRM-WHOLE"},
    {"s-pdlen", "S=1 with PD_Length 2", case_s_pdlen, "MPA-FRM-S-PDLEN"},
    {"resp-wait", "Reply before Request (rule 2)", case_resp_wait, "MPA-STA-RESP-WAIT"},
    {"bad-rep-fpdu", "bad Reply then FPDU (rule 3)", case_bad_rep_fpdu, "MPA-FRM-REV MPA-STA-BAD-REP-CLOSE"},
    {"after-reject-fpdu", "FPDU after reject (rule 3)", case_after_reject_fpdu, "MPA-STA-NO-FPDU-AFTER-REJECT"},
    {"no-reply-close", "close without Reply (rule 2, 6)", case_no_reply_close, "MPA-STA-REJECT"},
    {"resp-fpdu-wait", "Responder FPDU first (rule 4)", case_resp_fpdu_wait, "MPA-STA-RESP-FPDU-WAIT"},
    {"first-marker", "first marker not zero (rule 7)", case_first_marker, "MPA-STA-FIRST-MARKER"},
    {"init-init", "Initiator/Initiator (rule 8)", case_init_init, "MPA-STA-INIT-INIT"},
    {"init-fpdu-wait", "Initiator FPDU before Reply (rule 3)", case_init_fpdu_wait, "MPA-STA-INIT-FPDU-WAIT"},
    {"pad", "pad not zero (4.1)", case_pad, "MPA-FPD-PAD"},
    {"ulpdu-max", "ULPDU 65018 octets (5.2)", case_ulpdu_max, "MPA-FPD-ULPDU-MAX"},
    {"zero-len", "zero-length ULPDU", case_zero_len, "MPA-FPD-ZERO-LEN"},
    {"align", "misaligned segments (5.1)", case_align, "MPA-FPD-ALIGN"},
    {"mulpdu", "ULPDU over MULPDU (4.5)", case_mulpdu, "MPA-FPD-MULPDU"},
    /* What a receiver honouring the M bit sees comes first (these
     * errors are real for it: a first marker that is not one, or the
     * first bad CRC; what the wrong framing reads after that is not
     * judged), then the engine follows the sender. */
    {"markers-missing", "markers missing (4.3)", case_markers_missing, "MPA-MRK-PRESENT MPA-STA-FIRST-MARKER"},
    {"markers-extra", "markers unasked (4.3)", case_markers_extra, "MPA-MRK-PRESENT MPA-CRC-VALID"},
    {"mrk-res", "marker reserved bits (4.2)", case_mrk_res, "MPA-MRK-RES"},
    {"mrk-ptr", "FPDUPTR 0 inside an FPDU (4.3)", case_mrk_ptr, "MPA-MRK-PTR"},
    {"mrk-len-same", "marker disagrees with lengths and with its sibling", case_mrk_len_same,
     "MPA-MRK-LEN-AGREE MPA-MRK-SAME-FPDU"},
    {"mrk-between-ptr", "marker between FPDUs with FPDUPTR 4", case_mrk_between_ptr, "MPA-MRK-PTR"},
    {"crc-bad", "bad CRC (4.4)", case_crc_bad, "MPA-CRC-VALID"},
    {"crc-negotiate", "CRC off though peer said C=1", case_crc_negotiate, "MPA-CRC-NEGOTIATE"},
    {"crc-default", "C=0 both ways", case_crc_default, "MPA-CRC-DEFAULT"},
    {"enh-reply-enh", "S=1 answered by Rev 2 S=0 (RFC 6581 10)", case_enh_reply_enh, "MPA-ENH-REPLY-ENH"},
    {"enh-unsupported", "S=1 answered by Rev 1", case_enh_unsupported, "MPA-ENH-UNSUPPORTED"},
    {"enh-reply-plain", "S=0 answered by S=1", case_enh_reply_plain, "MPA-ENH-REPLY-PLAIN"},
    {"enh-a-echo", "A not echoed (9.2)", case_enh_a_echo, "MPA-ENH-A-ECHO"},
    {"enh-bcd-zero", "B without A", case_enh_bcd_zero, "MPA-ENH-BCD-ZERO"},
    {"enh-init-opts", "A=1 and no RTR offered", case_enh_init_opts, "MPA-ENH-INIT-OPTS"},
    {"enh-resp-opt", "Reply A=1 without B/C/D", case_enh_resp_opt, "MPA-ENH-RESP-OPT"},
    {"enh-ord-le-ird", "responder ORD > initiator IRD (9.1)", case_enh_ord_le_ird, "MPA-ENH-ORD-LE-IRD"},
    {"enh-ird-ge-ord", "responder IRD < initiator ORD", case_enh_ird_ge_ord, "MPA-ENH-IRD-GE-ORD"},
    {"enh-3fff", "0x3FFF not honoured", case_enh_3fff, "MPA-ENH-3FFF"},
    {"enh-rtr-late", "RTR late", case_enh_rtr_late, "MPA-ENH-RTR-SEND MPA-ENH-RTR-FIRST"},
    {"enh-rtr-never", "RTR never", case_enh_rtr_never, "MPA-ENH-RTR-SEND"},
    {"enh-rtr-match", "RTR type not offered", case_enh_rtr_match, "MPA-ENH-RTR-MATCH"},
    {"enh-term7-wrong", "TERM 7 with a common RTR type", case_enh_term7_wrong, "MPA-ENH-RTR-MATCH"},
    {"enh-rtr-read-ird", "read RTR with IRD 0", case_enh_rtr_read_ird, "MPA-ENH-RTR-READ-IRD"},
    {"trm-format", "TERMINATE to QN 1 (RFC 5040 4.8)", case_trm_format, "MPA-TRM-FORMAT"},
    {"trm-code", "TERMINATE code 9", case_trm_code, "MPA-TRM-CODE"},
    {"trm-last", "FPDU after TERMINATE", case_trm_last, "MPA-TRM-LAST"},
    {"trm-llp-startup", "TERM LLP code 6 without an enhanced startup (RFC 6581 8)", case_trm_llp_startup,
     "MPA-TRM-LLP-STARTUP"},
    {"trm-no-fpdu", "TERM about a DDP version the peer never sent (RFC 5040 7.2)", case_trm_no_fpdu,
     "MPA-TRM-NO-FPDU"},
    {"trm-copy-match", "TERM copies a DDP header the peer never sent (RFC 5040 4.8)", case_trm_copy_match,
     "MPA-TRM-COPY-MATCH"},
    {"trm-copy-rreq", "TERM copies a Read Request header with another source STag (RFC 5040 4.8)",
     case_trm_copy_rreq, "MPA-TRM-COPY-MATCH"},
    {"clean-trm-ddp", "TERM for a DDP error copying the Send's header, then FIN (RFC 5040 4.8, 6.2.1)",
     case_clean_trm_ddp, ""},
    {"trm-hdrct", "TERM for a DDP error with M=D=0 (RFC 5040 4.8 Figure 10)", case_trm_hdrct, "MPA-TRM-HDRCT"},
    {"trm-teardown", "TERM, then a RST from its sender (RFC 5040 6.2.1)", case_trm_teardown, "MPA-TRM-TEARDOWN"},
    {"trm-seglen", "TERM with M=1 and a DDP Segment Length not the copied Send's (RFC 5040 4.8)", case_trm_seglen,
     "MPA-TRM-SEGLEN"},
    {"trm-early", "TERM about an FPDU whose rest is still to come", case_trm_early,
     "MPA-FPD-ALIGN MPA-DDP-QN"},
    {"qrk-trm-siw-crc", "siw TERM for a CRC error, nibbles swapped", case_qrk_trm_siw_crc,
     "MPA-CRC-VALID MPA-QRK-TRM-NIBBLES"},
    {"qrk-trm-siw-qn", "siw TERM for a Send to QN 1, nibbles and M/D swapped", case_qrk_trm_siw_qn,
     "MPA-DDP-QN MPA-QRK-TRM-NIBBLES"},
    {"qrk-trm-siw-rtr", "siw TERM 7 (no matching RTR), nibbles swapped", case_qrk_trm_siw_rtr,
     "MPA-QRK-TRM-NIBBLES"},
    {"qrk-trm-zero", "TERMINATE with every field zero (Chelsio)", case_qrk_trm_zero, "MPA-QRK-TRM-ZERO"},
    {"enh-term7-other", "no common RTR type, TERM code 5 instead of 7 (RFC 6581 9.2)", case_enh_term7_other,
     "MPA-ENH-TERM-7"},
    {"enh-term7-none", "no common RTR type, FIN without TERM 7", case_enh_term7_none, "MPA-ENH-TERM-7"},
    {"enh-term7-read-ird0", "TERM 7: only read in common, Responder IRD 0", case_enh_term7_read_ird0, ""},
    {"enh-term6-read-ird0", "TERM 6: only read in common, Responder IRD 0", case_enh_term6_read_ird0, ""},
    {"clean-read", "two RDMA Reads answered in order (RFC 5040 5.2.2)", case_clean_read, ""},
    {"rdmap-read-match", "Read Response to another TO (RFC 5040 4.4)", case_rdmap_read_match,
     "MPA-RDMAP-READ-MATCH"},
    {"rdmap-read-short", "Read Response ends 32 octets short (RFC 5040 4.4)", case_rdmap_read_short,
     "MPA-RDMAP-READ-MATCH"},
    {"clean-read-ord", "Read Requests within the negotiated ORD/IRD (RFC 5040 6.1, RFC 6581 9.1)",
     case_clean_read_ord, ""},
    {"rdmap-read-ord", "one Read Request over the Responder's IRD, one over its ORD (RFC 5040 6.1, RFC 6581 9.1)",
     case_rdmap_read_ord, "MPA-RDMAP-READ-ORD"},
    {"qrk-read-le", "Read Request fields little-endian (2008 stack)", case_qrk_read_le, "MPA-QRK-READ-LE"},
    {"qrk-rtr-stag0", "zero-length read RTR with STag 0", case_qrk_rtr_stag0, "MPA-QRK-RTR-STAG0"},
    {"ddp-versions", "DV 2, RV 3 in three FPDUs (RFC 5041 4.1, RFC 5040 4.1)", case_ddp_versions,
     "MPA-DDP-VERSION MPA-RDMAP-VERSION"},
    {"ddp-rsvd", "reserved DDP/RDMAP bits", case_ddp_rsvd, "MPA-DDP-RSVD MPA-RDMAP-RSVD"},
    {"ddp-seq-clean", "clean DDP sequencing: Sends and Writes of several segments, Read Requests (RFC 5041 4.3, 5.2)",
     case_ddp_seq_clean, ""},
    {"ddp-msn-wrap", "capture starts inside a message near MSN 0xFFFFFFFF; MSN wraps to 0 (RFC 5041 4.3)",
     case_ddp_msn_wrap, "MPA-CAP-MIDSTREAM MPA-CAP-RESYNC"},
    {"ddp-msn-start", "first Send with MSN 2 (RFC 5041 4.3)", case_ddp_msn_start, "MPA-DDP-MSN-START"},
    {"ddp-msn-next", "Send MSNs 1, 2, 4, 5, 6, 8 (RFC 5041 4.3)", case_ddp_msn_next, "MPA-DDP-MSN-NEXT"},
    {"ddp-msn-same", "a Send's two segments with MSN 1 and 2 (RFC 5041 4.3)", case_ddp_msn_same,
     "MPA-DDP-MSN-SAME"},
    {"ddp-last", "a Send's last segment with L=0 (RFC 5041 4.1)", case_ddp_last, "MPA-DDP-LAST"},
    {"ddp-mo-order", "a Send's second segment at MO 500 after 400 octets (RFC 5041 4.3, 5.2, 5.3)",
     case_ddp_mo_order, "MPA-DDP-MO-ORDER"},
    {"ddp-to-order", "an RDMA Write's second segment 16 octets past the first's end (RFC 5041 5.2, 5.3)",
     case_ddp_to_order, "MPA-DDP-TO-ORDER"},
    {"fpd-ulpdu-full", "a Send cut 400 + 1000 octets, an RDMA Write 200 + 1000 (RFC 5044 4.5)", case_fpd_ulpdu_full,
     "MPA-FPD-ULPDU-FULL"},
    {"clean-ulpdu-full", "a Send cut 1000 + 1008 + 400 octets, an RDMA Write 1000 + 1000 (RFC 5044 4.5)",
     case_clean_ulpdu_full, ""},
    {"ddp-mo-first", "a Send in two segments at MO 100 and 500, none at MO 0 (RFC 5041 4.3)", case_ddp_mo_first,
     "MPA-DDP-MO-FIRST MPA-DDP-MO-ORDER"},
    {"ddp-rsvdulp-same", "a Send with Invalidate's second segment names another STag (RFC 5041 4.3)",
     case_ddp_rsvdulp_same, "MPA-DDP-RSVDULP-SAME"},
    {"ddp-zero-one", "a zero-length Send in two segments (RFC 5041 5.2)", case_ddp_zero_one, "MPA-DDP-ZERO-ONE"},
    {"ddp-msg-len", "a Send segment at MO 0xFFFFFF00 with 512 octets (RFC 5041 5.2)", case_ddp_msg_len,
     "MPA-DDP-MO-ORDER MPA-DDP-MSG-LEN"},
    {"rdmap-opcode", "opcode 0xE", case_rdmap_opcode, "MPA-RDMAP-OPCODE"},
    {"rdmap-tagged-qn", "tagged Send, Send to QN 5", case_rdmap_tagged_qn, "MPA-RDMAP-TAGGED MPA-DDP-QN"},
    {"rdmap-one-seg", "Read Request L=0", case_rdmap_one_seg, "MPA-RDMAP-ONE-SEG"},
    {"rdmap-atomic", "Atomic AOpCode 7", case_rdmap_atomic, "MPA-RDMAP-ATOMIC"},
    {"rdmap-atomic-aop1", "Atomic AOpCode 0x1, Reserved (RFC 7306 10.1)", case_rdmap_atomic_aop1,
     "MPA-RDMAP-ATOMIC"},
    {"rdmap-version-0", "RV 00b both ways, valid (RFC 5040 4.1)", case_rdmap_version_0, ""},
    {"rdmap-version-change", "RV 01b, 00b, 01b from one side (RFC 5040 4.1)", case_rdmap_version_change,
     "MPA-RDMAP-VERSION-SAME"},
    {"rdmap-version-7306", "RV 00b on Immediate Data (RFC 7306 4.1)", case_rdmap_version_7306, "MPA-RDMAP-VERSION"},
    {"init-wait-close", "Initiator FPDU before Reply, Responder closes (RFC 5044 7.1.2 rules 2, 3)",
     case_init_wait_close, "MPA-STA-INIT-FPDU-WAIT"},
    {"crc-off-idle", "C=0 both ways, no FPDU sent (RFC 5044 4.4)", case_crc_off_idle, "MPA-STA-INIT-FULL-OP"},
    {"sta-init-full-op", "accepting Reply, then the Initiator closes first without any FPDU (RFC 5044 7.1.2 rule 3)",
     case_sta_init_full_op, "MPA-STA-INIT-FULL-OP"},
    {"clean-init-close-after", "accepting Reply, no FPDU: the Responder closes first, then the Initiator (RFC 5044 7.1.2 rule 3)",
     case_clean_init_close_after, ""},
    {"enh-irdord-order", "Request IRD/ORD written least significant octet first: IRD 16 reads 0x1000 (RFC 6581 9)",
     case_enh_irdord_order, "MPA-ENH-IRDORD-ORDER"},
    {"clean-enh-irdord-large", "Reply IRD 512 with ORD 0x3FFF, Request ORD 300: large values in network order (RFC 6581 9)",
     case_clean_enh_irdord_large, ""},
    {"rdmap-read-answer", "a Read Request, then FIN both ways without Read Response or TERMINATE (RFC 5040 5.2.1)",
     case_rdmap_read_answer, "MPA-RDMAP-READ-ANSWER"},
    {"clean-read-close-crossed", "a Read Request unanswered: the responder's FIN comes first and may cross it (RFC 5040 5.2.1)",
     case_clean_read_close_crossed, ""},
    {"crc-off-reject", "C=0 both ways, rejected (RFC 5044 4.4, 7.1.2 rule 3)", case_crc_off_reject, ""},
    {"rep-key-first", "TCP client sends the Reply key first (RFC 5044 2, 7.1.1)", case_rep_key_first,
     "MPA-FRM-KEY-REQ"},
    {"term7-read-ird0", "TERM 7 after a Reply offering only read with IRD 0 (RFC 6581 9.1, 9.2)",
     case_term7_read_ird0, ""},
    {"init-opts-unanswered", "A=1 without B/C/D, no Reply (RFC 6581 9.2)", case_init_opts_unanswered,
     "MPA-ENH-INIT-OPTS"},
    {"key-rep-term", "bad Reply key, Initiator TERMINATE without CRC (RFC 5044 7.1.2 rule 5)", case_key_rep_term,
     "MPA-FRM-KEY-REP MPA-FRM-KEY-CHECK"},
    {"qrk-ddp-version", "DV 0, RV 0 both ways: pre-standard RDMAC headers (RFC 5041 4.1)",
     case_qrk_ddp_version, "MPA-QRK-DDP-VERSION"},
    {"qrk-mulpdu-gso", "Linux siw GSO: Res 0x8 both ways, FPDUs over MULPDU (RFC 5044 4.5)", case_qrk_mulpdu_gso,
     "MPA-FRM-RES MPA-QRK-MULPDU-GSO"},
    {"qrk-leg-irdord", "Rev 1 private data IRD/ORD, network order ([MS-SMBD] 6.1)", case_qrk_leg_irdord,
     "MPA-QRK-LEG-IRDORD"},
    {"qrk-leg-irdord-swapped", "Rev 1 private data IRD/ORD, byte-swapped", case_qrk_leg_irdord_swapped,
     "MPA-QRK-LEG-IRDORD"},
    {"rdmap-7306", "every RFC 7306 message, as RFC 7306 writes it", case_rdmap_7306, ""},
    {"rdmap-ext-len", "Immediate Data with 12 octets, an Atomic Response with L=0 (RFC 7306 4.2, 6.3)",
     case_rdmap_ext_len, "MPA-RDMAP-EXT-LEN"},
    {"rdmap-atomic-resp", "Atomic Responses out of order, one with no Request outstanding (RFC 7306 5.2.2)",
     case_rdmap_atomic_resp, "MPA-RDMAP-ATOMIC-RESP"},
    {"rdmap-atomic-unused", "FetchAdd with Compare Mask 0 (RFC 7306 5.2.1)", case_rdmap_atomic_unused,
     "MPA-RDMAP-ATOMIC-UNUSED"},
    {"rdmap-atomic-req-align",
     "an Atomic Request at TO 0x2004 answered with TERMINATE 0/2/7: the responder right, the requester not (RFC 7306 8.2)",
     case_rdmap_atomic_req_align, "MPA-RDMAP-ATOMIC-REQ-ALIGN"},
    {"rdmap-atomic-align", "an Atomic Request at TO 0x2004 answered with an Atomic Response (RFC 7306 5.1.2, 8.2)",
     case_rdmap_atomic_align, "MPA-RDMAP-ATOMIC-ALIGN MPA-RDMAP-ATOMIC-REQ-ALIGN"},
    {"rdmap-atomic-align-term",
     "an Atomic Request at TO 0x2004 answered with TERMINATE 0/2/6, not 0/2/7 (RFC 7306 5.2.1, 8.2)",
     case_rdmap_atomic_align_term, "MPA-RDMAP-ATOMIC-ALIGN MPA-RDMAP-ATOMIC-REQ-ALIGN"},
    {"rdmap-atomic-answer",
     "two Atomic Requests, the second unanswered: FIN both ways without Atomic Response or TERMINATE (RFC 7306 5.2.1)",
     case_rdmap_atomic_answer, "MPA-RDMAP-ATOMIC-ANSWER"},
    {"clean-atomic-close-crossed",
     "an Atomic Request unanswered: the responder's FIN comes first and may cross it (RFC 7306 5.2.1)",
     case_clean_atomic_close_crossed, ""},
    {"cap-hole", "a lost segment each way (RFC 5044 4.3)", case_cap_hole, "MPA-CAP-HOLE MPA-CAP-RESYNC"},
    {"cap-not-judged", "the Initiator's first FPDU lost: the Responder's first FPDU not judged (RFC 5044 7.1.2)",
     case_cap_not_judged, "MPA-CAP-HOLE MPA-CAP-NOT-JUDGED MPA-CAP-RESYNC"},
    {"cap-hole-acked", "a lost segment, its successor captured before the peer's ACK past the hole (RFC 5044 4.3)",
     case_cap_hole_acked, "MPA-CAP-HOLE MPA-CAP-RESYNC"},
    {"cap-resync-failed", "every CRC wrong after a hole: no resync, and why (RFC 5044 4.4)", case_cap_resync_failed,
     "MPA-CAP-HOLE MPA-CAP-RESYNC-FAILED"},
    {"cap-midstream", "capture starts mid-stream, markers one way", case_cap_midstream,
     "MPA-CAP-MIDSTREAM MPA-CAP-RESYNC"},
    {"fpd-framing-lost", "one wrong ULPDU_Length: framing lost once, found again (RFC 5044 6, 8)",
     case_fpd_framing_lost, "MPA-CRC-VALID MPA-FPD-FRAMING-LOST"},
    {"fpd-framing-lost-mrk", "one wrong ULPDU_Length with markers (RFC 5044 4.3, 6, 8)", case_fpd_framing_lost_mrk,
     "MPA-MRK-LEN-AGREE MPA-MRK-SAME-FPDU MPA-FPD-FRAMING-LOST"},
    {"fpd-len-down", "a ULPDU_Length 40 too short: framing lost once, found again (RFC 5044 4.4, 6, 8)",
     case_fpd_len_down, "MPA-CRC-VALID MPA-FPD-FRAMING-LOST"},
    {"fpd-len-down-mrk", "a ULPDU_Length 40 too short, markers (RFC 5044 4.3, 4.4, 6, 8)", case_fpd_len_down_mrk,
     "MPA-CRC-VALID MPA-FPD-FRAMING-LOST"},
    {"fpd-len-down-nocrc", "a ULPDU_Length 40 too short, CRCs off: framing lost, not found again (RFC 5044 4.4, 6)",
     case_fpd_len_down_nocrc, "MPA-CRC-DEFAULT MPA-FPD-FRAMING-LOST"},
    {"fpd-len-down-nocrc-mrk", "a ULPDU_Length 40 too short, CRCs off, markers (RFC 5044 4.3, 4.4, 6)",
     case_fpd_len_down_nocrc_mrk, "MPA-CRC-DEFAULT MPA-FPD-FRAMING-LOST"},
    /* quirks: markers */
    {"qrk-mrk-order", "markers with FPDUPTR little-endian (RFC 5044 4.2)", case_qrk_mrk_order,
     "MPA-QRK-MRK-PTR-ORDER"},
    {"qrk-mrk-drift", "marker grid drifting +4 per FPDU: CRC not counted (RFC 5044 4.3)", case_qrk_mrk_drift,
     "MPA-QRK-MRK-GRID"},
    {"qrk-mrk-2008", "the 2008 software stack: FPDUPTR little-endian, grid drifting +4 per FPDU (RFC 5044 4.2, 4.3)",
     case_qrk_mrk_2008, "MPA-QRK-MRK-PTR-ORDER MPA-QRK-MRK-GRID"},
    {"qrk-mrk-offset", "marker grid shifted: counted from the wrong octet (RFC 5044 4.3)", case_qrk_mrk_offset,
     "MPA-QRK-MRK-GRID"},
    {"qrk-mrk-offset-2008",
     "the 2008 stack's markers counted from the wrong octet: little-endian, shifted, drifting (RFC 5044 4.2, 4.3)",
     case_qrk_mrk_offset_2008, "MPA-QRK-MRK-PTR-ORDER MPA-QRK-MRK-GRID"},
    {"qrk-mrk-drift-hole",
     "the 2008 stack's markers, the capture losing an FPDU each way before their form was settled (RFC 5044 4.2, 4.3)",
     case_qrk_mrk_drift_hole, "MPA-QRK-MRK-PTR-ORDER MPA-QRK-MRK-GRID MPA-CAP-HOLE MPA-CAP-RESYNC"},
};

const size_t cs_ncases = sizeof cs_cases / sizeof cs_cases[0];

/* Ground truth: FPDUs entirely present per direction (corpus.h). */
static const struct {
    const char *slug;
    unsigned n[2];
} cs_truth[] = {
    {"cap-hole", {9, 9}},      /* 10 each way, one lost each way */
    {"cap-midstream", {10, 10}}, /* 12 each way, the first 2 not captured */
    /* 15 from d0, the one with the wrong length included; d1 sends none */
    {"fpd-framing-lost", {15, 0}},
    {"fpd-framing-lost-mrk", {15, 0}},
    /* 15 from d0, the short one included (as its length reads) */
    {"fpd-len-down", {15, 0}},
    {"fpd-len-down-mrk", {15, 0}},
    {"qrk-mrk-order", {22, 22}},
    {"qrk-mrk-drift", {22, 22}},
    {"qrk-mrk-2008", {22, 22}},
    {"qrk-mrk-offset", {22, 22}},
    {"qrk-mrk-offset-2008", {22, 22}},
    {"qrk-mrk-drift-hole", {21, 21}},  /* 22 each way, one lost each way */
};

int cs_case_fpdus(const char *slug, unsigned n[2])
{
    for (size_t i = 0; i < sizeof cs_truth / sizeof cs_truth[0]; i++)
        if (strcmp(cs_truth[i].slug, slug) == 0) {
            n[0] = cs_truth[i].n[0];
            n[1] = cs_truth[i].n[1];
            return 1;
        }
    return 0;
}

const cs_case *cs_case_find(const char *slug)
{
    for (size_t i = 0; i < cs_ncases; i++)
        if (strcmp(cs_cases[i].slug, slug) == 0)
            return &cs_cases[i];
    return NULL;
}

int cs_case_build(const char *slug, cs_scen *s)
{
    const cs_case *c = cs_case_find(slug);
    if (!c)
        return -1;
    c->build(s);
    return 0;
}

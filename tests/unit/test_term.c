/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for TERMINATE plausibility (include/mpa/term.h): RFC 5040
 * 4.8 and 7.2, RFC 5041 7, RFC 5044 8, RFC 6581 8 and 9.2, and the
 * Terminate Control field as Linux siw writes it.  The siw vectors are
 * the ULPDUs of TERMINATEs in captures/siw/siw-default-responder.pcapng.
 */
#include <stdint.h>
#include <string.h>

#include "mpa/term.h"
#include "t.h"

/* The 18-octet untagged DDP header of a TERMINATE (QN 2, MSN 1). */
static const uint8_t TERM_HDR[18] = {0x41, 0x47, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0};

static size_t ulpdu(uint8_t *out, const uint8_t *ctl, size_t n)
{
    memcpy(out, TERM_HDR, sizeof TERM_HDR);
    memcpy(out + sizeof TERM_HDR, ctl, n);
    return sizeof TERM_HDR + n;
}

static void decode_ctl(const uint8_t *u, size_t n, mpa_term_ctl *sent, mpa_term_ctl *lebf)
{
    mpa_ddp d;
    T_EQ(mpa_ddp_decode(u, n, n, &d, NULL), MPA_OK);
    mpa_term_ctl_of(&d.u.term, sent);
    mpa_term_ctl_lebf(sent, lebf);
}

static mpa_term_ctx ctx(int enhanced, int peer_fpdus)
{
    mpa_term_ctx x;
    memset(&x, 0, sizeof x);
    x.enhanced = (uint8_t)enhanced;
    x.request_a = (uint8_t)enhanced;
    x.initiator = 1;
    x.first = 1;
    x.peer_fpdus = (uint8_t)peer_fpdus;
    return x;
}

/* siw, after a Send with opcode 0xD: 0x20 0x06 is LLP/MPA code 6 as
 * sent (needs an enhanced startup), RDMAP/Remote Operation Error/
 * Unexpected OpCode as siw means it. */
static void test_siw_unexpected_opcode(void)
{
    static const uint8_t ctl[] = {0x20, 0x06, 0x00, 0x00};
    uint8_t u[64];
    size_t n = ulpdu(u, ctl, sizeof ctl);
    mpa_term_ctl s, l;
    decode_ctl(u, n, &s, &l);
    T_EQ(s.layer, 2);
    T_EQ(s.etype, 0);
    T_EQ(l.layer, 0);
    T_EQ(l.etype, 2);
    T_EQ(l.code, 6);
    mpa_term_ctx x = ctx(0, 1);
    T_EQ(mpa_term_judge(&s, &x, u, n, n), MPA_TERM_LLP_STARTUP);
    T_EQ(mpa_term_judge(&l, &x, u, n, n), MPA_TERM_PLAUSIBLE);
    /* Before the peer sent anything, the siw reading is not plausible either. */
    x.peer_fpdus = 0;
    T_EQ(mpa_term_judge(&l, &x, u, n, n), MPA_TERM_NO_PEER_FPDU);
    x.peer_unknown = 1;
    T_EQ(mpa_term_judge(&l, &x, u, n, n), MPA_TERM_PLAUSIBLE);
}

/* siw, after a Send to QN 1: 0x21 0x01 0x03 0x00, segment length 10 and
 * the copied header.  As sent: undefined LLP EType 1, M=D=R=0 with 20
 * octets too many; as siw means it: DDP/Untagged/Invalid QN, M=D=1. */
static void test_siw_invalid_qn_with_header(void)
{
    static const uint8_t ctl[] = {0x21, 0x01, 0x03, 0x00, 0x00, 0x0a, 0x41, 0x43, 0, 0, 0, 0,
                                  0,    0,    0,    1,    0,    0,    0,    1,    0, 0, 0, 0};
    uint8_t u[64];
    size_t n = ulpdu(u, ctl, sizeof ctl);
    T_EQ(n, 42);
    mpa_term_ctl s, l;
    decode_ctl(u, n, &s, &l);
    T_EQ(s.m | s.d | s.r, 0);
    T_EQ(s.rsvd, 0x300);
    T_EQ(l.layer, 1);
    T_EQ(l.etype, 2);
    T_EQ(l.code, 1);
    T_EQ(l.m, 1);
    T_EQ(l.d, 1);
    T_EQ(l.r, 0);
    T_EQ(l.rsvd, 0);
    T_EQ(mpa_term_ctl_len(&s, u, n), 22);
    T_EQ(mpa_term_ctl_len(&l, u, n), 42);
    mpa_term_ctx x = ctx(0, 1);
    T_EQ(mpa_term_judge(&s, &x, u, n, n), MPA_TERM_UNDEFINED);
    T_EQ(mpa_term_judge(&l, &x, u, n, n), MPA_TERM_PLAUSIBLE);
    /* Only 24 octets seen: the copied header's T bit is past them. */
    T_EQ(mpa_term_ctl_len(&l, u, 24), 0);
}

/* RFC 6581 8, 9.2: code 7 is a first FPDU after a Request that asked
 * for peer-to-peer (the Initiator's answer to the Reply, or a
 * Responder's to an RTR it did not offer); code 5 needs peers that know
 * RFC 6581, at any time. */
static void test_rfc6581_9_2_code7_context(void)
{
    mpa_term_ctl c;
    memset(&c, 0, sizeof c);
    c.layer = MPA_TERM_LAYER_LLP;
    c.code = 7;
    mpa_term_ctx x = ctx(1, 0);
    T_EQ(mpa_term_judge(&c, &x, NULL, 0, 0), MPA_TERM_PLAUSIBLE);
    x.first = 0;
    T_EQ(mpa_term_judge(&c, &x, NULL, 0, 0), MPA_TERM_LLP_STARTUP);
    x = ctx(1, 0);
    x.initiator = 0;
    T_EQ(mpa_term_judge(&c, &x, NULL, 0, 0), MPA_TERM_PLAUSIBLE);
    x = ctx(1, 0);
    x.request_a = 0;
    T_EQ(mpa_term_judge(&c, &x, NULL, 0, 0), MPA_TERM_LLP_STARTUP);
    c.code = 6; /* either side, A or not */
    x.initiator = 0;
    T_EQ(mpa_term_judge(&c, &x, NULL, 0, 0), MPA_TERM_PLAUSIBLE);
    c.code = 5; /* local catastrophic: any time between RFC 6581 peers */
    x = ctx(0, 0);
    x.first = 0;
    T_EQ(mpa_term_judge(&c, &x, NULL, 0, 0), MPA_TERM_LLP_STARTUP);
    x.rev2 = 1;
    T_EQ(mpa_term_judge(&c, &x, NULL, 0, 0), MPA_TERM_PLAUSIBLE);
    x = ctx(1, 0);
    x.first = 0;
    T_EQ(mpa_term_judge(&c, &x, NULL, 0, 0), MPA_TERM_PLAUSIBLE);
    c.code = 1; /* TCP closed: any time */
    x = ctx(0, 0);
    x.first = 0;
    T_EQ(mpa_term_judge(&c, &x, NULL, 0, 0), MPA_TERM_PLAUSIBLE);
}

/* RFC 5040 7.2: which errors are about the peer's incoming messages. */
static void test_rfc5040_7_2_about_peer(void)
{
    static const struct {
        uint8_t layer, etype, code;
        int about;
    } v[] = {{0, 0, 0, 0}, {0, 1, 0, 1}, {0, 2, 6, 1}, {1, 0, 0, 0}, {1, 1, 0, 1},
             {1, 2, 1, 1}, {2, 0, 1, 0}, {2, 0, 2, 1}, {2, 0, 3, 1}, {2, 0, 4, 0}, {2, 0, 7, 0}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        mpa_term_ctl c;
        memset(&c, 0, sizeof c);
        c.layer = v[i].layer;
        c.etype = v[i].etype;
        c.code = v[i].code;
        T_EQ(mpa_term_about_peer(&c), v[i].about);
    }
}

/* Fields written the way siw's little-endian bit-field puts them on the
 * wire come back unchanged from mpa_term_ctl_lebf(). */
static void test_lebf_reads_siw_layout(void)
{
    for (unsigned layer = 0; layer < 16; layer++)
        for (unsigned etype = 0; etype < 16; etype++)
            for (unsigned mdr = 0; mdr < 8; mdr++) {
                unsigned o0 = etype << 4 | layer, o2 = mdr; /* M bit 0, D bit 1, R bit 2 */
                mpa_term_ctl a, l;
                a.layer = (uint8_t)(o0 >> 4);
                a.etype = (uint8_t)(o0 & 15);
                a.code = 9;
                a.m = (uint8_t)(o2 >> 7);
                a.d = (uint8_t)(o2 >> 6 & 1);
                a.r = (uint8_t)(o2 >> 5 & 1);
                a.rsvd = (uint16_t)((o2 & 0x1F) << 8);
                mpa_term_ctl_lebf(&a, &l);
                T_CHECK(l.layer == layer && l.etype == etype && l.code == 9 && l.m == (mdr & 1) &&
                            l.d == (mdr >> 1 & 1) && l.r == (mdr >> 2) && l.rsvd == 0,
                        "layer %u etype %u mdr %u", layer, etype, mdr);
            }
    T_STREQ(mpa_term_verdict_str(MPA_TERM_NO_PEER_FPDU), "about FPDUs the peer never sent");
}

int main(void)
{
    t_name = "term";
    test_siw_unexpected_opcode();
    test_siw_invalid_qn_with_header();
    test_rfc6581_9_2_code7_context();
    test_rfc5040_7_2_about_peer();
    test_lebf_reads_siw_layout();
    return t_done();
}

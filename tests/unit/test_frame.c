/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Startup frames: RFC 5044 7.1.1 (Request/Reply layout and keys),
 * RFC 6581 6 and 9 (S bit, Rev 2, A|B|IRD C|D|ORD), draft-03 8.1.1
 * (Start Key) and the 2007 RtR frame key.
 */
#include <string.h>

#include "mpa/frame.h"
#include "t.h"

static const uint8_t REQ_KEY[16] = {0x4D, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
                                    0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6D, 0x65};

/* RFC 5044 7.1.1: the key octets and the M|C|R|S|Res|Rev|PD_Length word,
 * built by hand so the test does not trust the encoder. */
static void test_rfc5044_7_1_1_layout(void)
{
    uint8_t b[24];
    memcpy(b, REQ_KEY, 16);
    b[16] = 0x80 | 0x40 | 0x10 | 0x05; /* M C S, Res 5 */
    b[17] = 2;
    b[18] = 0x00;
    b[19] = 0x04;
    /* A=1 B=0 IRD=0x1234 C=1 D=1 ORD=0x3FFF */
    b[20] = 0x80 | 0x12;
    b[21] = 0x34;
    b[22] = 0xC0 | 0x3F;
    b[23] = 0xFF;
    mpa_frame f;
    size_t need = 99;
    T_EQ(mpa_frame_decode(b, sizeof b, &f, &need), MPA_OK);
    T_EQ(f.kind, MPA_KEY_REQ);
    T_EQ(f.m, 1);
    T_EQ(f.c, 1);
    T_EQ(f.r, 0);
    T_EQ(f.s, 1);
    T_EQ(f.res, 5);
    T_EQ(f.rev, 2);
    T_EQ(f.pd_len, 4);
    T_EQ(f.frame_len, 24);
    T_EQ(f.has_enh, 1);
    T_EQ(f.enh.a, 1);
    T_EQ(f.enh.b, 0);
    T_EQ(f.enh.ird, 0x1234);
    T_EQ(f.enh.c, 1);
    T_EQ(f.enh.d, 1);
    T_EQ(f.enh.ord, 0x3FFF);
    T_EQ(mpa_enh_pack(&f.enh), 0x9234FFFFu);
    T_EQ(f.pd, b + 20);
    T_EQ(f.pd_avail, 4);

    b[16] = 0x20; /* R only */
    b[9] = 0x70;  /* "Rep" */
    T_EQ(mpa_frame_decode(b, 20, &f, NULL), MPA_NEED_MORE);
    T_EQ(f.kind, MPA_KEY_REP);
    T_EQ(f.r, 1);
    T_EQ(f.m | f.c | f.s, 0);
}

static void test_rfc6581_9_enh_bits(void)
{
    /* Each flag alone lands on its own bit of the 32-bit field. */
    mpa_enh e;
    memset(&e, 0, sizeof e);
    e.a = 1;
    T_EQ(mpa_enh_pack(&e), 0x80000000u);
    memset(&e, 0, sizeof e);
    e.b = 1;
    T_EQ(mpa_enh_pack(&e), 0x40000000u);
    memset(&e, 0, sizeof e);
    e.c = 1;
    T_EQ(mpa_enh_pack(&e), 0x00008000u);
    memset(&e, 0, sizeof e);
    e.d = 1;
    T_EQ(mpa_enh_pack(&e), 0x00004000u);
    memset(&e, 0, sizeof e);
    e.ird = 0x3FFF;
    T_EQ(mpa_enh_pack(&e), 0x3FFF0000u);
    memset(&e, 0, sizeof e);
    e.ord = 0x3FFF;
    T_EQ(mpa_enh_pack(&e), 0x00003FFFu);
    /* The 32 bits are all fields: any value survives unpack -> pack. */
    for (uint32_t v = 0; v < 0x100000u; v += 0x1357) {
        mpa_enh u = mpa_enh_unpack(v * 4099u);
        T_EQ(mpa_enh_pack(&u), v * 4099u);
    }
}

static void test_keys(void)
{
    static const struct {
        mpa_key_kind k;
        const char *text;
    } keys[] = {{MPA_KEY_REQ, "MPA ID Req Frame"},
                {MPA_KEY_REP, "MPA ID Rep Frame"},
                {MPA_KEY_RTR2007, "MPA ID RtR Frame"},
                {MPA_KEY_STARTKEY, "MPA ident frame"}};
    for (unsigned i = 0; i < 4; i++) {
        T_MEMEQ(mpa_key_bytes(keys[i].k), keys[i].text, strlen(keys[i].text));
        uint8_t b[20] = {0};
        memcpy(b, keys[i].text, strlen(keys[i].text));
        b[17] = 1;
        mpa_frame f;
        mpa_status st = mpa_frame_decode(b, sizeof b, &f, NULL);
        T_EQ(st, MPA_OK);
        T_EQ(f.kind, keys[i].k);
    }
    T_CHECK(mpa_key_bytes(MPA_KEY_UNKNOWN) == NULL, "unknown has no key");
    T_STREQ(mpa_key_kind_name(MPA_KEY_UNKNOWN), "unknown");

    /* A one-octet error names the octet and the nearest key. */
    uint8_t b[20];
    memcpy(b, "MPA ID Rep Frxme", 16);
    memset(b + 16, 0, 4);
    mpa_frame f;
    T_EQ(mpa_frame_decode(b, sizeof b, &f, NULL), MPA_E_INVALID);
    T_EQ(f.kind, MPA_KEY_UNKNOWN);
    T_EQ(f.nearest, MPA_KEY_REP);
    T_EQ(f.first_diff, 13);
    T_EQ(f.n_diff, 1);
    /* Unknown keys are refused as soon as 16 octets are there. */
    T_EQ(mpa_frame_decode(b, 16, &f, NULL), MPA_E_INVALID);
}

/* draft-03 8.1.1: 15-octet key, then M|C|Res(2)|Rev(4). */
static void test_draft03_startkey(void)
{
    uint8_t b[16];
    memcpy(b, "MPA ident frame", 15);
    b[15] = 0x80 | 0x20 | 0x0; /* M, Res 2, Rev 0 */
    mpa_frame f;
    T_EQ(mpa_frame_decode(b, 16, &f, NULL), MPA_OK);
    T_EQ(f.kind, MPA_KEY_STARTKEY);
    T_EQ(f.m, 1);
    T_EQ(f.c, 0);
    T_EQ(f.res, 2);
    T_EQ(f.rev, 0);
    T_EQ(f.frame_len, 16);
    mpa_frame_enc e;
    memset(&e, 0, sizeof e);
    e.kind = MPA_KEY_STARTKEY;
    e.m = 1;
    e.res = 2;
    e.pd_len_override = -1;
    uint8_t out[32];
    size_t w;
    T_EQ(mpa_frame_encode(&e, out, sizeof out, &w), MPA_OK);
    T_EQ(w, 16);
    T_MEMEQ(out, b, 16);
}

/* Every field combination survives encode -> decode. */
static void test_roundtrip(void)
{
    uint8_t pd[600], out[700];
    for (unsigned i = 0; i < sizeof pd; i++)
        pd[i] = (uint8_t)(i * 13);
    unsigned n = 0;
    for (unsigned bits = 0; bits < 16; bits++)
        for (unsigned rev = 0; rev < 4; rev++)
            for (unsigned enh = 0; enh < 2; enh++)
                for (unsigned pl = 0; pl < 600; pl += 97) {
                    mpa_frame_enc e;
                    memset(&e, 0, sizeof e);
                    e.kind = (bits & 1) ? MPA_KEY_REP : MPA_KEY_REQ;
                    e.m = bits >> 1 & 1;
                    e.c = bits >> 2 & 1;
                    e.r = bits >> 3 & 1;
                    e.s = (uint8_t)enh;
                    e.res = (uint8_t)(bits ^ rev);
                    e.rev = (uint8_t)rev;
                    e.enh_present = (int)enh;
                    e.enh.a = 1;
                    e.enh.d = 1;
                    e.enh.ird = (uint16_t)(pl * 17 & 0x3FFF);
                    e.enh.ord = (uint16_t)(0x3FFF - pl);
                    e.pd = pd;
                    e.pd_len = pl;
                    e.pd_len_override = -1;
                    size_t w;
                    T_EQ(mpa_frame_encode(&e, out, sizeof out, &w), MPA_OK);
                    T_EQ(w, 20 + 4 * enh + pl);
                    mpa_frame f;
                    T_EQ(mpa_frame_decode(out, w, &f, NULL), MPA_OK);
                    T_CHECK(f.kind == e.kind && f.m == e.m && f.c == e.c && f.r == e.r && f.s == e.s &&
                                f.res == e.res && f.rev == e.rev && f.pd_len == w - 20,
                            "round trip %u", n);
                    if (enh)
                        T_CHECK(f.has_enh && f.enh.ird == e.enh.ird && f.enh.ord == e.enh.ord &&
                                    f.enh.a == 1 && f.enh.b == 0 && f.enh.c == 0 && f.enh.d == 1,
                                "enh round trip %u", n);
                    T_MEMEQ(f.pd + 4 * enh, pd, pl);
                    n++;
                }
}

/* Every prefix of a frame asks for exactly the missing octets and never
 * reads past the end (the buffer ends at a PROT_NONE page). */
static void test_truncation(void)
{
    uint8_t pd[100], out[200];
    memset(pd, 0xEE, sizeof pd);
    mpa_frame_enc e;
    memset(&e, 0, sizeof e);
    e.kind = MPA_KEY_REP;
    e.rev = 1;
    e.pd = pd;
    e.pd_len = sizeof pd;
    e.pd_len_override = -1;
    size_t w;
    T_EQ(mpa_frame_encode(&e, out, sizeof out, &w), MPA_OK);
    for (size_t k = 0; k < w; k++) {
        const uint8_t *g = t_guard(out, k);
        mpa_frame f;
        size_t need = 0;
        T_EQ(mpa_frame_decode(g, k, &f, &need), MPA_NEED_MORE);
        if (k < 16)
            T_EQ(need, 16 - k);
        else if (k < 20)
            T_EQ(need, 20 - k);
        else
            T_EQ(need, w - k);
    }
    const uint8_t *g = t_guard(out, w);
    mpa_frame f;
    T_EQ(mpa_frame_decode(g, w, &f, NULL), MPA_OK);
}

/* The injector's deliberately wrong frames. */
static void test_encode_faults(void)
{
    uint8_t out[64], key[16];
    memset(key, 'X', sizeof key);
    mpa_frame_enc e;
    memset(&e, 0, sizeof e);
    e.kind = MPA_KEY_REQ;
    e.raw_key = key;
    e.rev = 255;
    e.res = 0xF;
    e.pd = (const uint8_t *)"abc";
    e.pd_len = 3;
    e.pd_len_override = 513;
    size_t w;
    T_EQ(mpa_frame_encode(&e, out, sizeof out, &w), MPA_OK);
    T_EQ(w, 23);
    T_MEMEQ(out, key, 16);
    T_EQ(out[16], 0x0F);
    T_EQ(out[17], 255);
    T_EQ(out[18] << 8 | out[19], 513);
    T_EQ(mpa_frame_encode(&e, out, 22, &w), MPA_E_NOSPACE);
    T_EQ(mpa_frame_encode(NULL, out, 22, &w), MPA_E_ARG);
    e.raw_key = NULL;
    e.kind = MPA_KEY_UNKNOWN;
    T_EQ(mpa_frame_encode(&e, out, sizeof out, &w), MPA_E_ARG);
    T_EQ(mpa_frame_decode(NULL, 4, NULL, NULL), MPA_E_ARG);
}

/* The IRD/ORD header of Rev 1 private data before RFC 6581 ([MS-SMBD]
 * 6.1): two 32-bit numbers, network order or each byte-swapped; built by
 * hand.  Not read from Rev 2, from S=1, from fewer than 8 octets, nor
 * when a number is 0 or over 65535 in both orders. */
static void test_legacy_irdord(void)
{
    uint8_t buf[20 + 12];
    memcpy(buf, REQ_KEY, 16);
    buf[16] = 0x40; /* C=1 */
    buf[17] = 1;
    buf[18] = 0;
    buf[19] = 12;
    static const uint8_t be[12] = {0, 0, 0, 8, 0, 0, 1, 0, 0xAA, 0xBB, 0xCC, 0xDD};
    static const uint8_t le[12] = {16, 0, 0, 0, 4, 0, 0, 0, 1, 2, 3, 4};
    static const uint8_t none[12] = {0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0};
    static const uint8_t big[12] = {0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0};
    const uint8_t *pd[4] = {be, le, none, big};
    const mpa_leg_order want[4] = {MPA_LEG_BE, MPA_LEG_LE, MPA_LEG_NONE, MPA_LEG_NONE};
    const uint32_t ird[4] = {8, 16, 0, 0}, ord[4] = {256, 4, 0, 0};
    for (int k = 0; k < 4; k++) {
        memcpy(buf + 20, pd[k], 12);
        mpa_frame f;
        T_EQ(mpa_frame_decode(buf, sizeof buf, &f, NULL), MPA_OK);
        mpa_leg_irdord l = mpa_frame_legacy_irdord(&f);
        T_EQ(l.order, want[k]);
        T_EQ(l.ird, ird[k]);
        T_EQ(l.ord, ord[k]);
        T_EQ(f.leg.order, want[k]); /* the decoder fills it in */
        T_EQ(f.leg.ird, ird[k]);
        /* Fewer than 8 octets present: not judged. */
        for (size_t cut = 20; cut < 28; cut++) {
            mpa_frame g;
            mpa_frame_decode(buf, cut, &g, NULL);
            T_EQ(mpa_frame_legacy_irdord(&g).order, MPA_LEG_NONE);
        }
    }
    memcpy(buf + 20, be, 12);
    buf[17] = 2; /* Rev 2 */
    mpa_frame f;
    T_EQ(mpa_frame_decode(buf, sizeof buf, &f, NULL), MPA_OK);
    T_EQ(mpa_frame_legacy_irdord(&f).order, MPA_LEG_NONE);
    T_EQ(mpa_frame_legacy_irdord(NULL).order, MPA_LEG_NONE);
}

int main(void)
{
    t_name = "frame";
    test_rfc5044_7_1_1_layout();
    test_rfc6581_9_enh_bits();
    test_keys();
    test_draft03_startkey();
    test_roundtrip();
    test_truncation();
    test_encode_faults();
    test_legacy_irdord();
    return t_done();
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FPDUs: RFC 5044 4.1 (format, pad), 4.2-4.3 (markers, FPDUPTR), 4.4
 * (CRC32C coverage), 4.5 (MULPDU); the annotated FPDU dumps of
 * draft-culley-iwarp-mpa-03 7.2 and RFC 5044 4.4 (Figures 5 and 6 of
 * each) as test vectors.
 */
#include "mpa/crc32c.h"
#include "mpa/fpdu.h"
#include "t.h"

/*
 * draft-culley-iwarp-mpa-03 7.2, Figure 5: the first FPDU of a stream,
 * markers on, so it starts with the marker.  The octets as the draft
 * gives them (its text copies scramble the offset column; these were
 * rebuilt from the annotations and checked against an independent
 * CRC32C).  0x40 0x03 is DDP T=0 L=1 DV=0 and RDMAP RV=0 opcode Send: the
 * draft predates the final versions (RFC 5041 DV=1, RFC 5040 RV=1).  The
 * CRC goes on the wire least significant octet first.
 */
static const uint8_t FIG5[52] = {
    0x00, 0x00, 0x00, 0x00,                         /* marker */
    0x00, 0x2a,                                     /* ULPDU_Length 42 */
    0x40, 0x03,                                     /* DDP/RDMAP control */
    0x00, 0x00, 0x00, 0x00,                         /* reserved */
    0x00, 0x00, 0x00, 0x00,                         /* QN 0 */
    0x00, 0x00, 0x00, 0x01,                         /* MSN 1 */
    0x00, 0x00, 0x00, 0x00,                         /* MO 0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 24 octets */
    0, 0, 0, 0, 0, 0, 0, 0,                         /* of Send data */
    0x4c, 0x86, 0xb3, 0x84};                        /* CRC 0x84b3864c */

/* draft-03 7.2, Figure 6: the second FPDU, after a first one of 492
 * octets, so it starts at stream offset 492 and the marker at 512 falls
 * 20 octets in (FPDUPTR 0x14).  The CRC covers the marker. */
static const uint8_t FIG6[52] = {
    0x00, 0x2a, 0x40, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* len, ctl, rsvd, QN */
    0x00, 0x00, 0x00, 0x02,                                                 /* MSN 2 */
    0x00, 0x00, 0x00, 0x00,                                                 /* MO 0 */
    0x00, 0x00, 0x00, 0x14,                                                 /* marker, FPDUPTR 20 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* Send data */
    0xa1, 0x9c, 0xd1, 0x03};                                                /* CRC 0x03d19ca1 */

static void test_draft03_fig5_vector(void)
{
    mpa_fpdu_cfg cfg = {1, 1, 0};
    mpa_fpdu f;
    size_t need;
    const uint8_t *g = t_guard(FIG5, sizeof FIG5);
    T_EQ(mpa_fpdu_decode(g, sizeof FIG5, 0, &cfg, &f, &need), MPA_OK);
    T_EQ(f.wire_len, 52);
    T_EQ(f.ulpdu_len, 42);
    T_EQ(f.pad_len, 0);
    T_EQ(f.leading_marker, 1);
    T_EQ(f.n_markers, 1);
    T_EQ(f.markers[0].fpduptr, 0);
    T_EQ(f.crc_wire, 0x84b3864cu);
    T_EQ(f.crc_calc, 0x84b3864cu);
    T_EQ(f.crc, MPA_CRC_GOOD);
    T_CHECK(f.ulpdu == g + 6, "ULPDU slice after the marker and length");
    /* The CRC covers the marker: CRC32C over octets 0..47. */
    T_EQ(mpa_crc32c(FIG5, 48), 0x84b3864cu);

    uint8_t out[64];
    size_t w;
    T_EQ(mpa_fpdu_encode(FIG5 + 6, 42, 0, &cfg, NULL, out, sizeof out, &w), MPA_OK);
    T_EQ(w, 52);
    T_MEMEQ(out, FIG5, 52);
}

static void test_draft03_fig6_vector(void)
{
    mpa_fpdu_cfg cfg = {1, 1, 0};
    mpa_fpdu f;
    const uint8_t *g = t_guard(FIG6, sizeof FIG6);
    T_EQ(mpa_fpdu_decode(g, sizeof FIG6, 492, &cfg, &f, NULL), MPA_OK);
    T_EQ(f.wire_len, 52);
    T_EQ(f.n_markers, 1);
    T_EQ(f.markers[0].seq, 512);
    T_EQ(f.markers[0].buf_off, 20);
    T_EQ(f.markers[0].fpduptr, 0x14);
    T_EQ(f.crc, MPA_CRC_GOOD);
    T_EQ(f.crc_calc, 0x03d19ca1u);
    T_CHECK(f.ulpdu == NULL, "a marker splits the ULPDU: no slice");
    uint8_t ulpdu[42];
    T_EQ(mpa_fpdu_ulpdu_copy(g, &f, ulpdu, sizeof ulpdu), 42);
    T_EQ(ulpdu[0], 0x40);
    T_EQ(ulpdu[13], 0x02); /* MSN 2 */
    T_EQ(ulpdu[18], 0x00); /* the marker is gone */
    /* The layout alone: the same FPDU, no CRC computed. */
    mpa_fpdu l;
    T_EQ(mpa_fpdu_layout(g, sizeof FIG6, 492, &cfg, &l, NULL), MPA_OK);
    T_EQ(l.wire_len, f.wire_len);
    T_EQ(l.ulpdu_len, f.ulpdu_len);
    T_EQ(l.n_markers, 1);
    T_EQ(l.markers[0].buf_off, 20);
    T_EQ(l.crc_wire, f.crc_wire);
    T_EQ(l.crc_calc, 0);
    T_EQ(l.crc, MPA_CRC_NOT_CHECKED);
    uint8_t out[64];
    size_t w;
    T_EQ(mpa_fpdu_encode(ulpdu, 42, 492, &cfg, NULL, out, sizeof out, &w), MPA_OK);
    T_EQ(w, 52);
    T_MEMEQ(out, FIG6, 52);
    /* With CRCs off the value is still computed but not judged. */
    cfg.crc = 0;
    T_EQ(mpa_fpdu_decode(g, sizeof FIG6, 492, &cfg, &f, NULL), MPA_OK);
    T_EQ(f.crc, MPA_CRC_NOT_CHECKED);
}

/*
 * RFC 5044 4.4, Figures 5 and 6: the same two FPDUs as the draft's, with
 * the final versions: DDP control 0x41 (T=0 L=1 DV=1) and RDMAP control
 * 0x43 (RV=1, Send), hence other CRCs: 0x83992352 and 0x98589284, on the
 * wire as 52 23 99 83 and 84 92 58 98.
 */
static void test_rfc5044_4_4_figures(void)
{
    static const uint8_t fig5[52] = {
        0x00, 0x00, 0x00, 0x00,                         /* marker, FPDUPTR 0 */
        0x00, 0x2a,                                     /* ULPDU Length 42 */
        0x41, 0x43,                                     /* DDP, RDMAP control: Send, L=1 */
        0x00, 0x00, 0x00, 0x00,                         /* reserved (no STag) */
        0x00, 0x00, 0x00, 0x00,                         /* QN 0 */
        0x00, 0x00, 0x00, 0x01,                         /* MSN 1 */
        0x00, 0x00, 0x00, 0x00,                         /* MO 0 */
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 24 octets */
        0, 0, 0, 0, 0, 0, 0, 0,                         /* of Send data */
        0x52, 0x23, 0x99, 0x83};                        /* CRC32c */
    static const uint8_t fig6[52] = {
        0x00, 0x2a, 0x41, 0x43, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* offset 0x1ec: len, ctl, rsvd, QN */
        0x00, 0x00, 0x00, 0x02,                                                 /* MSN 2 */
        0x00, 0x00, 0x00, 0x00,                                                 /* MO 0 */
        0x00, 0x00, 0x00, 0x14,                                                 /* 0x200: marker, FPDUPTR 0x14 */
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* Send data */
        0x84, 0x92, 0x58, 0x98};                                                /* CRC32c */
    mpa_fpdu_cfg cfg = {1, 1, 0};
    mpa_fpdu f;
    T_EQ(mpa_fpdu_decode(t_guard(fig5, sizeof fig5), sizeof fig5, 0, &cfg, &f, NULL), MPA_OK);
    T_EQ(f.wire_len, 52);
    T_EQ(f.leading_marker, 1);
    T_EQ(f.crc_calc, 0x83992352u);
    T_EQ(f.crc, MPA_CRC_GOOD);
    T_EQ(mpa_fpdu_decode(t_guard(fig6, sizeof fig6), sizeof fig6, 0x1ec, &cfg, &f, NULL), MPA_OK);
    T_EQ(f.wire_len, 52);
    T_EQ(f.n_markers, 1);
    T_EQ(f.markers[0].fpduptr, 0x14);
    T_EQ(f.crc_calc, 0x98589284u);
    T_EQ(f.crc, MPA_CRC_GOOD);
    /* The encoder writes both, octet for octet. */
    uint8_t ul[42], out[64];
    size_t w;
    memcpy(ul, fig5 + 6, sizeof ul);
    T_EQ(mpa_fpdu_encode(ul, sizeof ul, 0, &cfg, NULL, out, sizeof out, &w), MPA_OK);
    T_EQ(w, 52);
    T_MEMEQ(out, fig5, 52);
    ul[13] = 2; /* MSN 2 */
    T_EQ(mpa_fpdu_encode(ul, sizeof ul, 0x1ec, &cfg, NULL, out, sizeof out, &w), MPA_OK);
    T_EQ(w, 52);
    T_MEMEQ(out, fig6, 52);
}

static unsigned markers_in(uint32_t start, size_t wire, uint32_t base)
{
    unsigned n = 0;
    for (size_t i = 0; i < wire; i++)
        if (((start + (uint32_t)i - base) & 511u) == 0)
            n++;
    return n;
}

/* RFC 5044 4.3: markers at every position relative to FPDU boundaries,
 * with sequence numbers that wrap. */
static void test_rfc5044_4_3_marker_positions(void)
{
    static const size_t lens[] = {0, 1, 2, 3, 13, 14, 18, 100, 502, 503, 504, 505, 506, 507, 508, 509,
                                  510, 1000, 1500, 4000};
    static const uint32_t bases[] = {0, 11, 0xFFFFFE00u, 0xFFFFFFF0u};
    uint8_t ul[4000], wire[4200], back[4000];
    for (size_t i = 0; i < sizeof ul; i++)
        ul[i] = (uint8_t)(i * 31 + 7);
    unsigned checked = 0, bad = 0;
    for (size_t b = 0; b < 4; b++)
        for (uint32_t rel = 0; rel < 1024; rel += 4)
            for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
                mpa_fpdu_cfg cfg = {1, 1, bases[b]};
                uint32_t seq = bases[b] + rel;
                size_t w;
                if (mpa_fpdu_encode(ul, lens[li], seq, &cfg, NULL, wire, sizeof wire, &w) != MPA_OK) {
                    bad++;
                    continue;
                }
                mpa_fpdu f;
                int ok = mpa_fpdu_decode(wire, w, seq, &cfg, &f, NULL) == MPA_OK && f.wire_len == w &&
                         f.ulpdu_len == lens[li] && f.crc == MPA_CRC_GOOD &&
                         f.n_markers == markers_in(seq, w, bases[b]) && w % 4 == 0 &&
                         w == mpa_fpdu_wire_len((uint16_t)lens[li], seq, &cfg) &&
                         f.leading_marker == ((rel & 511u) == 0);
                for (unsigned k = 0; ok && k < f.n_markers; k++)
                    ok = f.markers[k].reserved == 0 &&
                         /* back to the ULPDU_Length field, past a leading marker */
                         f.markers[k].fpduptr ==
                             (uint16_t)(f.markers[k].seq - seq - (k && f.leading_marker ? 4u : 0u)) &&
                         f.markers[k].buf_off == (size_t)(f.markers[k].seq - seq);
                ok = ok && mpa_fpdu_ulpdu_copy(wire, &f, back, sizeof back) == lens[li] &&
                     memcmp(back, ul, lens[li]) == 0;
                /* a smaller buffer: the first cap octets, markers still skipped */
                size_t caps[] = {0, 1, 3, lens[li] / 2, lens[li] ? lens[li] - 1 : 0};
                for (size_t ci = 0; ok && ci < sizeof caps / sizeof caps[0]; ci++) {
                    size_t n = caps[ci] < lens[li] ? caps[ci] : lens[li];
                    memset(back, 0xEE, sizeof back);
                    ok = mpa_fpdu_ulpdu_copy(wire, &f, back, caps[ci]) == n && memcmp(back, ul, n) == 0 &&
                         back[n] == 0xEE;
                }
                if (!ok && bad++ < 5)
                    fprintf(stderr, "marker position case base 0x%x rel %u len %zu failed\n", bases[b], rel,
                            lens[li]);
                checked++;
            }
    T_CHECK(bad == 0, "%u of %u marker placement cases failed", bad, checked);
}

/* Each prefix: MPA_NEED_MORE; once the length is known, need is exact. */
static void test_truncation(void)
{
    uint8_t ul[700], wire[800];
    memset(ul, 0x11, sizeof ul);
    mpa_fpdu_cfg cfg = {1, 1, 0};
    size_t w;
    uint32_t seq = 500; /* marker at 512 lands 12 octets in */
    T_EQ(mpa_fpdu_encode(ul, 650, seq, &cfg, NULL, wire, sizeof wire, &w), MPA_OK);
    for (size_t k = 0; k < w; k++) {
        const uint8_t *g = t_guard(wire, k);
        mpa_fpdu f;
        size_t need = 0;
        T_EQ(mpa_fpdu_decode(g, k, seq, &cfg, &f, &need), MPA_NEED_MORE);
        if (k >= 2)
            T_EQ(k + need, w);
        else
            T_CHECK(need >= 1 && k + need <= w, "need %zu at %zu", need, k);
    }
}

/* A cut FPDU (RFC 5044 4.1, 4.3): every prefix tells what it can, the
 * ULPDU_Length once its two octets are in (after a leading marker), the
 * ULPDU's first octets without the markers among them, and the whole
 * length the FPDU would have had. */
static void test_head_of_cut_fpdu(void)
{
    static const uint32_t seqs[] = {500, 512, 0, 1020};
    uint8_t ul[700], wire[800];
    for (size_t i = 0; i < sizeof ul; i++)
        ul[i] = (uint8_t)(i * 13 + 1);
    for (size_t si = 0; si < sizeof seqs / sizeof seqs[0]; si++) {
        uint32_t seq = seqs[si];
        mpa_fpdu_cfg cfg = {1, 1, 0};
        size_t w;
        T_EQ(mpa_fpdu_encode(ul, 650, seq, &cfg, NULL, wire, sizeof wire, &w), MPA_OK);
        unsigned bad = 0;
        for (size_t k = 0; k <= w; k++) {
            const uint8_t *g = t_guard(wire, k);
            mpa_fpdu_head h;
            if (mpa_fpdu_head_decode(g, k, seq, &cfg, &h) != MPA_OK) {
                bad++;
                continue;
            }
            size_t lead = (seq & 511u) == 0 ? MPA_MARKER_LEN : 0;
            int want_len = k >= lead + 2;
            /* ULPDU octets among the first k, markers taken out. */
            size_t avail = 0;
            for (size_t o = lead + 2; o < k; o++)
                if (((seq + (uint32_t)o) & 511u) > 3u || (uint32_t)(seq + o) < 4u)
                    avail++;
            if (avail > 650)
                avail = 650;
            if (avail > MPA_FPDU_HEAD_MAX)
                avail = MPA_FPDU_HEAD_MAX;
            int ok = h.have_len == want_len && h.len_off == lead &&
                     (!want_len || (h.ulpdu_len == 650 && h.wire_len == w)) && h.ulpdu_avail == avail &&
                     memcmp(h.ulpdu, ul, avail) == 0;
            if (!ok && bad++ < 3)
                fprintf(stderr, "cut FPDU at seq %u, %zu of %zu octets: have_len %d len %u wire %u avail %zu "
                                "(want %zu) len_off %zu\n",
                        seq, k, w, h.have_len, h.ulpdu_len, h.wire_len, h.ulpdu_avail, avail, h.len_off);
        }
        T_CHECK(bad == 0, "cut FPDU at seq %u: %u prefixes wrong", seq, bad);
    }
    mpa_fpdu_head h;
    T_EQ(mpa_fpdu_head_decode(NULL, 4, 0, NULL, &h), MPA_E_ARG);
}

static void test_faults(void)
{
    uint8_t ul[1200], wire[1300];
    memset(ul, 0, sizeof ul);
    mpa_fpdu_cfg cfg = {1, 1, 0};
    mpa_fpdu_faults fl;
    memset(&fl, 0, sizeof fl);
    fl.len_override = -1;
    fl.crc_mode = 2;
    fl.crc_xor = 0x80000000u;
    fl.pad_byte = 0x5A;
    size_t w;
    T_EQ(mpa_fpdu_encode(ul, 21, 0, &cfg, &fl, wire, sizeof wire, &w), MPA_OK);
    mpa_fpdu f;
    T_EQ(mpa_fpdu_decode(wire, w, 0, &cfg, &f, NULL), MPA_OK);
    T_EQ(f.crc, MPA_CRC_BAD);
    T_EQ(f.crc_wire ^ f.crc_calc, 0x80000000u);
    T_EQ(f.pad_len, 1);
    T_EQ(f.pad_nonzero, 1);

    memset(&fl, 0, sizeof fl);
    fl.len_override = -1;
    fl.marker_ptr_delta = 8;
    fl.marker_nth = 2;
    fl.marker_reserved = 0x0101;
    T_EQ(mpa_fpdu_encode(ul, 1000, 100, &cfg, &fl, wire, sizeof wire, &w), MPA_OK);
    T_EQ(mpa_fpdu_decode(wire, w, 100, &cfg, &f, NULL), MPA_OK);
    T_EQ(f.n_markers, 2);
    T_EQ(f.markers[0].fpduptr, 512 - 100);
    T_EQ(f.markers[1].fpduptr, 1024 - 100 + 8);
    T_EQ(f.markers[0].reserved, 0x0101);
    T_EQ(f.crc, MPA_CRC_GOOD); /* the CRC covers the markers as sent */

    memset(&fl, 0, sizeof fl);
    fl.len_override = 7;
    fl.crc_mode = 1;
    fl.crc_value = 0xDEADBEEF;
    cfg.markers = 0;
    T_EQ(mpa_fpdu_encode(ul, 30, 0, &cfg, &fl, wire, sizeof wire, &w), MPA_OK);
    T_EQ(w, 2 + 30 + 0 + 4);
    T_EQ(wire[0] << 8 | wire[1], 7);
    T_EQ(wire[w - 4], 0xEF);
    T_EQ(mpa_fpdu_encode(ul, 30, 0, &cfg, NULL, wire, 35, &w), MPA_E_NOSPACE);
    T_EQ(mpa_fpdu_encode(ul, 70000, 0, &cfg, NULL, wire, sizeof wire, &w), MPA_E_ARG);
}

/* draft-03 7.3.2 / RFC 5044 4.5. */
static void test_mulpdu(void)
{
    T_EQ(mpa_mulpdu(1460, 1), 1460 - (6 + 4 * 3 + 0));
    T_EQ(mpa_mulpdu(1460, 0), 1460 - 6);
    T_EQ(mpa_mulpdu(1461, 1), 1461 - (6 + 4 * 3 + 1));
    T_EQ(mpa_mulpdu(9000, 1), 9000 - (6 + 4 * 18 + 0));
    T_EQ(mpa_mulpdu(8960, 0), 8960 - 6);
    T_EQ(mpa_mulpdu(536, 1), 536 - (6 + 8));
    T_EQ(mpa_mulpdu(100, 1), 128); /* never below 128 */
    T_EQ(mpa_mulpdu(0, 0), 128);
    T_STREQ(mpa_crc_status_str(MPA_CRC_BAD), "bad");
}

int main(void)
{
    t_name = "fpdu";
    test_draft03_fig5_vector();
    test_draft03_fig6_vector();
    test_rfc5044_4_4_figures();
    test_rfc5044_4_3_marker_positions();
    test_truncation();
    test_head_of_cut_fpdu();
    test_faults();
    test_mulpdu();
    return t_done();
}

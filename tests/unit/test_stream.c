/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stream engine and checker: RFC 5044 7.1.2 (startup rules), 7.1.1
 * (frame fields), 4 (FPDUs, markers, CRC), 8 (errors); RFC 6581 9, 10
 * (enhanced establishment, RTR); RFC 5040 4.8 (TERMINATE).
 *
 * Each scenario is two endpoints' octets built with the library's
 * encoders, with the exact set of finding ids it must raise (an empty set
 * for clean traffic).  Every scenario is also fed one octet at a time,
 * at random splits and (for the short ones) cut at every single octet:
 * the event log must not change.  At the end every rule the table marks
 * as checked must have fired somewhere.
 *
 * The scenarios and their table live in the corpus (corpus/cases.c),
 * shared with the capture generator (conformance/gen).
 */
#include "corpus.h"
#include "mpa/describe.h"
#include "t.h"

#define D0 0
#define D1 1

static uint8_t ul[70000];

static unsigned fired_any[MPA_F__COUNT];

static int expected(const char *list, const char *id)
{
    size_t k = strlen(id);
    for (const char *p = list; (p = strstr(p, id)) != NULL; p += k)
        if ((p == list || p[-1] == ' ') && (p[k] == 0 || p[k] == ' '))
            return 1;
    return 0;
}

static void check_case(const cs_case *tc)
{
    cs_scen s;
    cs_init(&s);
    tc->build(&s);
    cs_split whole = {0, 0, 0};
    cs_log ref = cs_run(&s, whole);

    /* The exact set of ids. */
    for (unsigned id = 0; id < MPA_F__COUNT; id++) {
        const mpa_rule *r = mpa_rule_get((mpa_finding_id)id);
        int want = expected(tc->expect, r->id);
        T_CHECK(!!ref.count[id] == want, "%s: %s %s (fired %u times)\n%s", tc->name, r->id,
                want ? "did not fire" : "fired unexpectedly", ref.count[id], ref.s);
        fired_any[id] += ref.count[id];
        /* A quirk is named once per direction (docs/quirks.md); siw's
         * TERMINATE reading once per TERMINATE, since each one needs it. */
        if (strncmp(r->id, "MPA-QRK-", 8) == 0 && id != MPA_F_QRK_TRM_NIBBLES)
            T_CHECK(ref.count[id] <= 2, "%s: %s named %u times: a quirk is named once per direction\n%s",
                    tc->name, r->id, ref.count[id], ref.s);
    }
    T_CHECK(strstr(ref.s, "HELD") == NULL, "%s: octets never fed\n%s", tc->name, ref.s);
    unsigned truth[2];
    if (cs_case_fpdus(tc->slug, truth))
        for (int d = 0; d < 2; d++)
            T_CHECK(ref.fpdus[d] == truth[d], "%s: d%d decoded %u FPDUs, %u are entirely present\n%s", tc->name, d,
                    ref.fpdus[d], truth[d], ref.s);

    /* Same events for every split. */
    cs_split bytewise = {1, 0, 0};
    cs_log l1 = cs_run(&s, bytewise);
    T_CHECK(strcmp(ref.s, l1.s) == 0, "%s: octet-at-a-time log differs\n--- whole\n%s--- bytewise\n%s",
            tc->name, ref.s, l1.s);
    cs_log_free(&l1);
    for (uint64_t seed = 1; seed <= 8; seed++) {
        cs_split rnd = {3, 0, seed * 0x9E3779B97F4A7C15ull};
        cs_log lr = cs_run(&s, rnd);
        T_CHECK(strcmp(ref.s, lr.s) == 0, "%s: random split %llu differs", tc->name,
                (unsigned long long)seed);
        cs_log_free(&lr);
    }
    if (s.len <= 3000) {
        unsigned bad = 0;
        for (size_t at = 1; at < s.len; at++) {
            cs_split cut = {2, at, 0};
            cs_log lc = cs_run(&s, cut);
            if (strcmp(ref.s, lc.s) != 0 && bad++ == 0)
                fprintf(stderr, "%s: cut at %zu differs\n%s", tc->name, at, lc.s);
            cs_log_free(&lc);
        }
        T_CHECK(bad == 0, "%s: %u cut points give other events", tc->name, bad);
    }
    cs_log_free(&ref);
    cs_free(&s);
}

/* RFC 5044 5.1 alignment is counted from the first FPDU segment, also
 * while an enhanced Initiator's octets are held to see whether a 2007
 * RtR frame starts (its first FPDU is checked like any other). */
static void test_enh_segments(void)
{
    for (int split = 0; split < 2; split++) {
        cs_scen s;
        cs_init(&s);
        mpa_frame_enc q = cs_enh(cs_req(1, 1), 1, 1, 1, 1, 16, 16), p = cs_enh(cs_rep(1, 1), 1, 0, 1, 0, 16, 16);
        cs_frame(&s, D0, &q);
        cs_frame(&s, D1, &p);
        cs_fpdu_mode(&s, D0, 1);
        cs_fpdu_mode(&s, D1, 1);
        size_t n = cs_ul_write(ul, sizeof ul, 0, 0, 0);
        cs_fpdu(&s, D0, ul, n); /* the RTR */
        cs_send(&s, D0, 1, 100);
        cs_send(&s, D0, 2, 200);
        mpa_stream *st = malloc(mpa_stream_size());
        cs_log log;
        memset(&log, 0, sizeof log);
        mpa_stream_init(st, NULL, cs_log_event, &log);
        for (size_t c = 0; c < s.nch; c++) {
            const cs_chunk *ch = &s.ch[c];
            size_t cut = split && c == 2 ? 6 : ch->len; /* a segment boundary 6 octets into the RTR */
            mpa_stream_segment(st, ch->dir);
            mpa_stream_feed(st, ch->dir, s.buf + ch->off, cut);
            if (cut < ch->len) {
                mpa_stream_segment(st, ch->dir);
                mpa_stream_feed(st, ch->dir, s.buf + ch->off + cut, ch->len - cut);
            }
        }
        const mpa_dir_stats *ds = mpa_stream_stats(st, D0);
        T_EQ(ds->segments, 3 + split);
        T_EQ(ds->segments_aligned, 3);
        T_EQ(log.count[MPA_F_FPD_ALIGN], split);
        T_CHECK(!split || strstr(log.s, "FPD-ALIGN") == NULL || strstr(log.s, "6 octets into an FPDU"),
                "misaligned segment reported at the wrong place:\n%s", log.s);
        free(st);
        cs_log_free(&log);
        cs_free(&s);
    }
}

/* The engine's storage is fixed: nothing grows with the input. */
static void test_bounded(void)
{
    /* 2 x (startup, two receive machines, the hunting ring and its
     * candidates, the marker models and their window, the octets kept
     * while the framing is in doubt, the octets a corrupted length may
     * have swallowed): about 24 KiB, bounded at 25 KiB. */
#ifdef MPA_RING_CHECK
    /* (this build also keeps a copy of each direction's ring) */
    T_CHECK(mpa_stream_size() <= 25600 + 2 * 2048, "mpa_stream is %zu octets", mpa_stream_size());
#else
    T_CHECK(mpa_stream_size() <= 25600, "mpa_stream is %zu octets", mpa_stream_size());
#endif
}

/* The log of catalogue scenario slug, run whole (the caller frees it). */
static cs_log slug_log(const char *slug)
{
    cs_scen s;
    cs_init(&s);
    T_CHECK(cs_case_build(slug, &s) == 0, "no scenario %s", slug);
    cs_split w = {0, 0, 0};
    cs_log l = cs_run(&s, w);
    cs_free(&s);
    return l;
}

/* What the finding ids alone do not show (issue 16): the TERMINATE an
 * Initiator sends after a Reply with a bad key is decoded, with its CRC
 * not judged; a Reply key as the TCP client's first frame makes that
 * client the Initiator; the C=0 warning sits at the first FPDU. */
static void test_startup_events(void)
{
    cs_log l = slug_log("key-rep-term");
    T_CHECK(strstr(l.s, "d0 @24 FPDU #0 len 22 wire 28 crc not checked") &&
                strstr(l.s, "TERMINATE LLP/MPA Invalid MPA Request Frame"),
            "key-rep-term: the TERMINATE is not decoded\n%s", l.s);
    cs_log_free(&l);
    l = slug_log("rep-key-first");
    T_CHECK(strstr(l.s, "d0 @0 FRAME initiator: MPA Reply") != NULL, "rep-key-first: roles\n%s", l.s);
    cs_log_free(&l);
    l = slug_log("mulpdu");
    T_CHECK(l.count[MPA_F_FPD_MULPDU] == 1, "mulpdu: MPA-FPD-MULPDU %u times\n%s", l.count[MPA_F_FPD_MULPDU], l.s);
    cs_log_free(&l);
    l = slug_log("qrk-mulpdu-gso");
    T_CHECK(l.count[MPA_F_QRK_MULPDU_GSO] == 2 && !l.count[MPA_F_FPD_MULPDU], "qrk-mulpdu-gso: once per direction\n%s",
            l.s);
    cs_log_free(&l);
    l = slug_log("qrk-ddp-version");
    T_CHECK(l.count[MPA_F_QRK_DDP_VERSION] == 2 && strstr(l.s, "Send QN 0 MSN 3 MO 0 27 bytes"),
            "qrk-ddp-version: once per direction, headers decoded\n%s", l.s);
    cs_log_free(&l);
    l = slug_log("rdmap-version-0");
    T_CHECK(l.nfind == 0, "rdmap-version-0: RV 00b is valid (RFC 5040 4.1)\n%s", l.s);
    cs_log_free(&l);
    l = slug_log("rdmap-version-change");
    T_CHECK(l.count[MPA_F_RDMAP_VERSION_SAME] == 1 && !l.count[MPA_F_RDMAP_VERSION] &&
                strstr(l.s, "RV=0 after RV=1"),
            "rdmap-version-change: once\n%s", l.s);
    cs_log_free(&l);
    l = slug_log("rdmap-version-7306");
    T_CHECK(l.count[MPA_F_RDMAP_VERSION] == 1 && !l.count[MPA_F_RDMAP_VERSION_SAME] &&
                strstr(l.s, "RV=0 on an RFC 7306 message (Immediate Data)"),
            "rdmap-version-7306\n%s", l.s);
    cs_log_free(&l);
    l = slug_log("rdmap-atomic-aop1");
    T_CHECK(l.count[MPA_F_RDMAP_ATOMIC] == 1 && strstr(l.s, "AOpCode 1 Reserved"), "rdmap-atomic-aop1\n%s", l.s);
    cs_log_free(&l);
    l = slug_log("ddp-versions");
    T_CHECK(l.count[MPA_F_DDP_VERSION] == 1 && l.count[MPA_F_RDMAP_VERSION] == 1, "ddp-versions: once\n%s", l.s);
    cs_log_free(&l);
    l = slug_log("qrk-leg-irdord-swapped");
    T_CHECK(strstr(l.s, "MPA Reply Rev1 M=0 C=1 legacy IRD 16 ORD 4 (byte-swapped) PD 8") != NULL,
            "qrk-leg-irdord-swapped: not decoded\n%s", l.s);
    cs_log_free(&l);
    /* After R=1 no FPDU mode is announced unless an FPDU proves it, and
     * the ULP's streaming octets are not called an FPDU. */
    l = slug_log("clean-reject");
    T_CHECK(strstr(l.s, "MODE fpdu") == NULL && strstr(l.s, "d0 @20 DATA 46 octets (not MPA after a rejected startup)"),
            "clean-reject: FPDU mode after R=1\n%s", l.s);
    cs_log_free(&l);
    l = slug_log("after-reject-fpdu");
    T_CHECK(strstr(l.s, "d0 @20 MODE fpdu markers off crc on (an FPDU after the reject)") &&
                !strstr(l.s, "d1 @20 MODE fpdu"),
            "after-reject-fpdu: FPDU mode not where the FPDU proved it\n%s", l.s);
    cs_log_free(&l);
    l = slug_log("crc-default");
    /* Judged once an FPDU comes, placed on the Reply that settled it (a
     * conformance test of an Initiator must not blame the device for the
     * C=0 of the tester's Reply). */
    T_CHECK(strstr(l.s, "d1 @16 FINDING MPA-CRC-DEFAULT") != NULL &&
                strstr(l.s, "first FPDU at Initiator offset 20") != NULL,
            "crc-default: not on the Reply once the FPDU came\n%s", l.s);
    cs_log_free(&l);
}

/* A ULPDU_Length 512 too long (fpd-framing-lost): the bad FPDU is shown
 * as its length reads, the framing is lost there once and found again
 * at its true end, where the five FPDUs it swallowed are decoded and
 * judged; nothing is skipped. */
static void test_framing_events(void)
{
    cs_log l = slug_log("fpd-framing-lost");
    T_CHECK(strstr(l.s, "d0 @756 FINDING MPA-FPD-FRAMING-LOST note: lengths not confirmed from offset 756: FPDUs "
                        "with valid CRCs follow from offset 1080") &&
                strstr(l.s, "d0 @756 FPDU #4 len 830 wire 836 crc bad") &&
                strstr(l.s, "d0 @1080 FPDU #5 len 78 wire 84 crc good") && !strstr(l.s, "DATA") &&
                !strstr(l.s, "MODE hunt") && l.count[MPA_F_CRC_VALID] == 1,
            "fpd-framing-lost: the swallowed FPDUs are not found at the bad FPDU's true end\n%s", l.s);
    cs_log_free(&l);
    l = slug_log("fpd-framing-lost-mrk");
    T_CHECK(strstr(l.s, "d0 @764 FINDING MPA-FPD-FRAMING-LOST") && strstr(l.s, "d0 @1092 FPDU #5 len 78") &&
                !strstr(l.s, "DATA") && l.count[MPA_F_FPD_FRAMING_LOST] == 1 && l.count[MPA_F_CRC_VALID] == 0,
            "fpd-framing-lost-mrk: the swallowed FPDUs are not found at the bad FPDU's true end\n%s", l.s);
    cs_log_free(&l);
    /* A ULPDU_Length 40 too short (fpd-len-down): the short FPDU is shown
     * as its length reads with its bad CRC; the next "length" is payload,
     * longer than all that follows, and is not waited for: the framing is
     * lost there once, the 40 octets up to the true end are skipped, and
     * the 10 FPDUs after it are decoded from there. */
    l = slug_log("fpd-len-down");
    T_CHECK(strstr(l.s, "d0 @756 FPDU #4 len 278 wire 284 crc bad") &&
                strstr(l.s, "d0 @756 FINDING MPA-FPD-FRAMING-LOST note: lengths not confirmed from offset 756") &&
                strstr(l.s, "d0 @1040 DATA 40 octets (skipped while resynchronising)") &&
                strstr(l.s, "d0 @1080 FPDU #5 len 78 wire 84 crc good") &&
                strstr(l.s, "d0 @2748 FPDU #14 len 303 wire 312 crc good") && !strstr(l.s, "FIN/RST") &&
                l.count[MPA_F_FPD_FRAMING_LOST] == 1 && l.count[MPA_F_CRC_VALID] == 1,
            "fpd-len-down: the FPDUs after the short one are not found at its true end\n%s", l.s);
    cs_log_free(&l);
    l = slug_log("fpd-len-down-mrk");
    T_CHECK(strstr(l.s, "d0 @764 FINDING MPA-FPD-FRAMING-LOST") && strstr(l.s, "d0 @1052 DATA 40 octets") &&
                strstr(l.s, "d0 @1092 FPDU #5 len 78") && strstr(l.s, "d0 @1556 MARKER ptr 132") &&
                !strstr(l.s, "FIN/RST") && l.count[MPA_F_FPD_FRAMING_LOST] == 1,
            "fpd-len-down-mrk: the FPDUs after the short one are not found at its true end\n%s", l.s);
    cs_log_free(&l);
}

int main(int argc, char **argv)
{
    t_name = "stream";
    int verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    for (size_t i = 0; i < cs_ncases; i++) {
        if (verbose) {
            cs_scen s;
            cs_init(&s);
            cs_cases[i].build(&s);
            cs_split w = {0, 0, 0};
            cs_log l = cs_run(&s, w);
            printf("== %s\n%s", cs_cases[i].name, l.s);
            cs_log_free(&l);
            cs_free(&s);
        }
        check_case(&cs_cases[i]);
    }
    /* Every rule judged from octets fires somewhere. */
    for (unsigned id = 0; id < MPA_F__COUNT; id++) {
        const mpa_rule *r = mpa_rule_get((mpa_finding_id)id);
        if (r->checked == 1)
            T_CHECK(fired_any[id] > 0, "rule %s is marked checked but no scenario fires it", r->id);
        else
            T_CHECK(fired_any[id] == 0, "rule %s is not libmpa's (checked %d) but fired", r->id, r->checked);
    }
    test_bounded();
    test_enh_segments();
    test_startup_events();
    test_framing_events();
    return t_done();
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Holes and mid-stream starts: mpa_stream_gap() and cfg.midstream
 * (include/mpa/stream.h).  RFC 5044 4.2-4.3 (markers: FPDUPTR gives the
 * FPDU start, which is what lets a receiver, or an auditor, find the
 * framing again), 4.4 (CRC), 7.1.1 (M governs the peer's markers).
 *
 * Each case builds two endpoints' octets with the library's encoders,
 * loses some of them (CS_LOST) or starts the capture late, and checks
 * where decoding locks on again, how it proved the boundary, that every
 * FPDU after the lock decodes cleanly, that the skipped octets are all
 * reported, and that the events do not depend on the split.
 */
#include "corpus.h"
#include "mpa/describe.h"
#include "t.h"

#define D0 0
#define D1 1

static uint8_t ul[70000];

/* Payload sizes of a realistic mix: small Sends to MULPDU-sized Writes. */
static size_t mix_size(unsigned i)
{
    static const size_t sz[] = {64, 1400, 200, 980, 33, 1442, 512, 7, 300, 1024, 100, 1300};
    return sz[i % (sizeof sz / sizeof sz[0])];
}

/* With C=0 a sender "may" put any value in the CRC field (draft-03 6,
 * RFC 5044 4.1); these scenarios put 0, so no valid CRC proves anything. */
static int g_crc_zero;

/* Each direction's next Send MSN, one up per Send (RFC 5041 4.3). */
static unsigned g_msn[2];

static void scen_init(cs_scen *s)
{
    cs_init(s);
    g_msn[0] = g_msn[1] = 1;
}

static void traffic(cs_scen *s, int dir, unsigned n, unsigned seed)
{
    mpa_fpdu_faults fl;
    memset(&fl, 0, sizeof fl);
    fl.len_override = -1;
    fl.crc_mode = 1;
    fl.crc_value = 0;
    for (unsigned i = 0; i < n; i++) {
        size_t len;
        if ((i + seed) % 3 == 0)
            len = cs_ul_write(ul, sizeof ul, 0x100 + i, 0x1000 * i, mix_size(i + seed));
        else
            len = cs_ul_send(ul, sizeof ul, g_msn[dir]++, mix_size(i + seed));
        /* Random-looking payload, so no DDP header hides in it by luck. */
        for (size_t k = 18; k < len; k++)
            ul[k] = (uint8_t)((k * 131u + i * 7u + seed) ^ (k >> 3));
        cs_fpdu_f(s, dir, ul, len, g_crc_zero ? &fl : NULL);
    }
}

static void startup(cs_scen *s, int req_m, int rep_m, int c)
{
    g_crc_zero = !c;
    mpa_frame_enc q = cs_req(req_m, c), p = cs_rep(rep_m, c);
    cs_frame(s, D0, &q);
    cs_frame(s, D1, &p);
    cs_fpdu_mode(s, D0, rep_m);
    cs_fpdu_mode(s, D1, req_m);
}

typedef struct expect {
    unsigned hole[2], resync[2];  /* findings per direction */
    unsigned other;               /* findings of any other id */
    const char *other_id;         /* the one other id allowed (or NULL) */
    uint64_t frame_lost[2];       /* octets of a startup frame that fell in a hole */
    int want_markers[2];          /* -1: not checked */
    int want_crc[2];
} expect_t;

typedef struct tally {
    unsigned hole[2], resync[2], other, other_ok;
    unsigned fpdus[2], bad_crc[2];
    uint64_t covered[2];        /* octets in FPDUs, frames and DATA events */
    uint64_t data[2], skipped[2];
    int markers[2], crc[2];     /* framing of the last MODE fpdu event */
    uint64_t lock_off[2];
    char text[8192];
    size_t tn;
} tally_t;

static const char *g_other_id; /* the one other finding id a case allows */

static void on_ev(void *user, const mpa_event *ev)
{
    tally_t *t = user;
    char line[512];
    mpa_event_format(ev, line, sizeof line);
    size_t k = strlen(line);
    if (t->tn + k + 2 < sizeof t->text) {
        memcpy(t->text + t->tn, line, k);
        t->tn += k;
        t->text[t->tn++] = '\n';
        t->text[t->tn] = 0;
    }
    int d = ev->dir;
    switch (ev->type) {
    case MPA_EV_FINDING:
        if (ev->u.finding.id == MPA_F_CAP_HOLE)
            t->hole[d]++;
        else if (ev->u.finding.id == MPA_F_CAP_RESYNC) {
            t->resync[d]++;
            t->lock_off[d] = ev->off;
        } else if (ev->u.finding.id != MPA_F_CAP_MIDSTREAM) {
            t->other++;
            if (g_other_id && strcmp(ev->u.finding.rule->id, g_other_id) == 0)
                t->other_ok++;
        }
        break;
    case MPA_EV_FPDU:
        t->fpdus[d]++;
        t->covered[d] += ev->u.fpdu.wire_len;
        t->bad_crc[d] += ev->u.fpdu.crc == MPA_CRC_BAD;
        break;
    case MPA_EV_DATA:
        t->data[d] += ev->u.data.len;
        t->covered[d] += ev->u.data.len;
        if (strstr(ev->u.data.why, "resynchronising"))
            t->skipped[d] += ev->u.data.len;
        break;
    case MPA_EV_MODE:
        if (ev->u.mode.mode == MPA_MODE_FPDU) {
            t->markers[d] = ev->u.mode.markers;
            t->crc[d] = ev->u.mode.crc;
        }
        break;
    case MPA_EV_FRAME:
        t->covered[d] += ev->u.frame.frame.frame_len;
        break;
    case MPA_EV_MARKER:
        break;
    }
}

/* Feed s with the given split: chunk by chunk (or octet by octet),
 * CS_LOST as mpa_stream_gap.  The scenarios here keep the directions in
 * a legal order, so nothing waits. */
static void run(const cs_scen *s, int bytewise, tally_t *t, mpa_stream *st)
{
    memset(t, 0, sizeof *t);
    mpa_stream_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    uint64_t skipped[2] = {0, 0};
    size_t c0 = s->midstream ? s->start_chunk : 0;
    for (size_t c = 0; c < c0; c++)
        if (s->ch[c].kind == CS_DATA || s->ch[c].kind == CS_LOST)
            skipped[s->ch[c].dir] += s->ch[c].len;
    for (int d = 0; d < 2; d++) {
        cfg.isn[d] = s->isn[d] + (uint32_t)skipped[d];
        cfg.emss[d] = s->emss[d];
        cfg.markers[d] = s->ms_markers[d];
        cfg.crc[d] = s->ms_crc[d];
    }
    cfg.midstream = (uint8_t)s->midstream;
    mpa_stream_init(st, &cfg, on_ev, t);
    for (size_t c = c0; c < s->nch; c++) {
        const cs_chunk *ch = &s->ch[c];
        if (ch->kind == CS_LOST) {
            mpa_stream_gap(st, ch->dir, ch->len);
        } else if (ch->kind == CS_DATA) {
            mpa_stream_segment(st, ch->dir);
            size_t step = bytewise ? 1 : ch->len, short_feeds = 0;
            for (size_t at = 0; at < ch->len; at += step) {
                size_t n = ch->len - at < step ? ch->len - at : step;
                short_feeds += mpa_stream_feed(st, ch->dir, s->buf + ch->off + at, n) != n;
            }
            T_CHECK(short_feeds == 0, "chunk %zu: %zu feeds took fewer octets than given", c, short_feeds);
        } else {
            mpa_stream_end(st, ch->dir, ch->kind == CS_RST ? MPA_END_RST : MPA_END_FIN);
        }
    }
    mpa_stream_finish(st);
}

/* Octets of dir fed (not lost, not before the capture start). */
static uint64_t fed_octets(const cs_scen *s, int dir)
{
    uint64_t n = 0;
    for (size_t c = s->midstream ? s->start_chunk : 0; c < s->nch; c++)
        if (s->ch[c].kind == CS_DATA && s->ch[c].dir == dir)
            n += s->ch[c].len;
    return n;
}

static void check(const char *name, cs_scen *s, const expect_t *e, unsigned min_fpdus[2])
{
    static tally_t t, tb;
    mpa_stream *st = malloc(mpa_stream_size());
    g_other_id = e->other_id;
    run(s, 0, &t, st);
    for (int d = 0; d < 2; d++) {
        T_CHECK(t.hole[d] == e->hole[d], "%s: d%d MPA-CAP-HOLE %u times, expected %u\n%s", name, d, t.hole[d],
                e->hole[d], t.text);
        T_CHECK(t.resync[d] == e->resync[d], "%s: d%d MPA-CAP-RESYNC %u times, expected %u\n%s", name, d,
                t.resync[d], e->resync[d], t.text);
        T_CHECK(t.fpdus[d] >= min_fpdus[d], "%s: d%d decoded %u FPDUs, expected at least %u\n%s", name, d,
                t.fpdus[d], min_fpdus[d], t.text);
        T_CHECK(t.bad_crc[d] == 0, "%s: d%d %u bad CRCs after resync\n%s", name, d, t.bad_crc[d], t.text);
        T_CHECK(mpa_stream_stats(st, d)->resyncs == t.resync[d], "%s: d%d resync counter", name, d);
        if (e->want_markers[d] >= 0)
            T_CHECK(t.markers[d] == e->want_markers[d], "%s: d%d markers %d, expected %d", name, d,
                    t.markers[d], e->want_markers[d]);
        if (e->want_crc[d] >= 0)
            T_CHECK(t.crc[d] == e->want_crc[d], "%s: d%d CRC %d, expected %d", name, d, t.crc[d],
                    e->want_crc[d]);
        /* Every octet fed is an FPDU's, a frame's or reported data. */
        const mpa_dir_stats *ds = mpa_stream_stats(st, d);
        T_EQ(ds->octets, fed_octets(s, d));
        T_EQ(ds->not_mpa_octets, t.data[d]);
        T_CHECK(t.covered[d] == fed_octets(s, d) + e->frame_lost[d],
                "%s: d%d: FPDUs, frames and DATA events cover %llu octets, %llu were fed\n%s", name, d,
                (unsigned long long)t.covered[d], (unsigned long long)fed_octets(s, d), t.text);
    }
    T_CHECK(t.other == e->other && t.other_ok == e->other, "%s: %u other findings (%u of %s), expected %u\n%s",
            name, t.other, t.other_ok, e->other_id ? e->other_id : "-", e->other, t.text);
    /* The same events octet by octet. */
    run(s, 1, &tb, st);
    T_CHECK(strcmp(t.text, tb.text) == 0, "%s: octet-at-a-time events differ\n--- whole\n%s--- bytewise\n%s",
            name, t.text, tb.text);
    free(st);
}

static expect_t exp_holes(unsigned h0, unsigned h1, int m0, int m1, int c)
{
    expect_t e;
    memset(&e, 0, sizeof e);
    e.hole[0] = e.resync[0] = h0;
    e.hole[1] = e.resync[1] = h1;
    e.want_markers[0] = m0;
    e.want_markers[1] = m1;
    e.want_crc[0] = e.want_crc[1] = c;
    return e;
}

/* A lost segment in each direction, for every framing (RFC 5044 4.3:
 * markers let the receiver find the next FPDU; without them the length,
 * pad and CRC must line up). */
static void test_hole_each_framing(void)
{
    for (int m = 0; m < 4; m++) {
        for (int c = 0; c < 2; c++) {
            int req_m = m & 1, rep_m = m >> 1;
            cs_scen s;
            scen_init(&s);
            s.isn[0] = 0x10000000;
            s.isn[1] = 0xFFFFF000; /* markers cross the wrap */
            startup(&s, req_m, rep_m, c);
            traffic(&s, D0, 6, 1);
            traffic(&s, D1, 6, 2);
            traffic(&s, D0, 1, 3);
            cs_lose_last(&s);
            traffic(&s, D1, 1, 4);
            cs_lose_last(&s);
            traffic(&s, D0, 20, 5);
            traffic(&s, D1, 20, 6);
            cs_end(&s, D0, 0);
            cs_end(&s, D1, 0);
            expect_t e = exp_holes(1, 1, rep_m, req_m, c);
            if (!c) {
                e.other = 1;
                e.other_id = "MPA-CRC-DEFAULT";
            }
            char name[64];
            snprintf(name, sizeof name, "hole M req %d rep %d C %d", req_m, rep_m, c);
            /* CRC proves the first whole FPDU after the hole; a chain
             * needs three.  Markers hand over the FPDU they point to. */
            unsigned min[2] = {6 + 20 - 4, 6 + 20 - 4};
            check(name, &s, &e, min);
            cs_free(&s);
        }
    }
}

/* A hole that takes several FPDUs and ends inside one. */
static void test_hole_mid_fpdu(void)
{
    for (int m = 0; m < 2; m++) {
        cs_scen s;
        scen_init(&s);
        s.isn[0] = 1000;
        s.isn[1] = 2000;
        startup(&s, m, m, 1);
        traffic(&s, D0, 4, 7);
        /* Three FPDUs in one segment; the capture loses 1.5 of them. */
        size_t first = s.nch;
        traffic(&s, D0, 3, 8);
        cs_merge_last(&s, 3);
        cs_chunk whole = s.ch[first];
        size_t cut = whole.len / 2;
        s.ch[first].len = cut;
        s.ch[first].kind = CS_LOST;
        cs_push_chunk(&s, CS_DATA, D0, whole.off + cut, whole.len - cut);
        traffic(&s, D0, 10, 9);
        expect_t e = exp_holes(1, 0, m, -1, 1);
        unsigned min[2] = {4 + 10, 0};
        check(m ? "hole inside an FPDU, markers" : "hole inside an FPDU, no markers", &s, &e, min);
        cs_free(&s);
    }
}

/* A hole inside a long FPDU: the markers after it point back past the
 * hole (FPDUPTR up to 9000), which must be passed over, not followed. */
static void test_hole_long_fpdu(void)
{
    for (int c = 0; c < 2; c++) {
        cs_scen s;
        scen_init(&s);
        startup(&s, 1, 1, c);
        traffic(&s, D0, 3, 1);
        size_t n = cs_ul_write(ul, sizeof ul, 0x55, 0, 9000);
        mpa_fpdu_faults fl;
        memset(&fl, 0, sizeof fl);
        fl.len_override = -1;
        fl.crc_mode = c ? 0 : 1;
        cs_fpdu_f(&s, D0, ul, n, &fl);
        cs_chunk whole = s.ch[s.nch - 1];
        s.ch[s.nch - 1].len = 1000;
        cs_push_chunk(&s, CS_LOST, D0, whole.off + 1000, 1500);
        cs_push_chunk(&s, CS_DATA, D0, whole.off + 2500, whole.len - 2500);
        traffic(&s, D0, 12, 2);
        expect_t e = exp_holes(1, 0, 1, -1, c);
        if (!c) {
            e.other = 1;
            e.other_id = "MPA-CRC-DEFAULT";
        }
        unsigned min[2] = {3 + 12 - 3, 0};
        check(c ? "hole inside a 9000-octet FPDU, CRC" : "hole inside a 9000-octet FPDU, no CRC", &s, &e, min);
        cs_free(&s);
    }
}

/* Two holes close together: the second one comes while hunting. */
static void test_hole_while_hunting(void)
{
    cs_scen s;
    scen_init(&s);
    startup(&s, 1, 1, 1);
    traffic(&s, D0, 3, 1);
    traffic(&s, D0, 1, 2);
    cs_lose_last(&s);
    /* A piece of an FPDU, then another loss before anything proves. */
    size_t n = cs_ul_send(ul, sizeof ul, 9, 600);
    cs_fpdu(&s, D0, ul, n);
    cs_chunk *last = &s.ch[s.nch - 1];
    size_t l = last->len;
    last->len = 100;
    cs_push_chunk(&s, CS_LOST, D0, last->off + 100, l - 100);
    traffic(&s, D0, 8, 3);
    expect_t e = exp_holes(2, 0, 1, -1, 1);
    e.resync[0] = 1;
    unsigned min[2] = {3 + 8, 0};
    check("second hole while hunting", &s, &e, min);
    cs_free(&s);
}

/* Mid-stream start, settings stated or left to the engine. */
static void test_midstream(void)
{
    for (int m = 0; m < 2; m++)
        for (int c = 0; c < 2; c++)
            for (int stated = 0; stated < 2; stated++) {
                cs_scen s;
                scen_init(&s);
                s.isn[0] = 0xFFFFFF00;
                s.isn[1] = 77;
                startup(&s, m, m, c);
                traffic(&s, D0, 5, 1);
                traffic(&s, D1, 5, 2);
                size_t start = s.nch - 3; /* inside the traffic */
                traffic(&s, D0, 15, 3);
                traffic(&s, D1, 15, 4);
                s.midstream = 1;
                s.start_chunk = start;
                if (stated) {
                    s.ms_markers[0] = s.ms_markers[1] = m ? MPA_TRI_ON : MPA_TRI_OFF;
                    s.ms_crc[0] = s.ms_crc[1] = c ? MPA_TRI_ON : MPA_TRI_OFF;
                }
                expect_t e = exp_holes(0, 0, m, m, c);
                e.resync[0] = e.resync[1] = 1;
                char name[80];
                snprintf(name, sizeof name, "mid-stream M %d C %d %s", m, c, stated ? "stated" : "inferred");
                /* Finding the marker phase takes two markers; a chain
                 * takes three FPDUs. */
                unsigned min[2] = {15 - 5, 18 - 5};
                check(name, &s, &e, min);
                cs_free(&s);
            }
}

/* The Request is lost: the Reply still tells the Initiator's markers
 * (M in the Reply) and turns CRCs on; the Responder's markers were in the
 * lost Request, so it hunts without knowing them. */
static void test_startup_lost(void)
{
    for (int m = 0; m < 4; m++) {
        int req_m = m & 1, rep_m = m >> 1;
        cs_scen s;
        scen_init(&s);
        startup(&s, req_m, rep_m, 1);
        s.ch[0].kind = CS_LOST;
        traffic(&s, D0, 6, 1);
        traffic(&s, D1, 6, 2);
        expect_t e = exp_holes(1, 0, rep_m, req_m, 1);
        e.resync[0] = e.resync[1] = 1;
        /* Was the Reply sent before the Request?  The Request is lost:
         * not judged (RFC 5044 7.1.2 rule 2 rests on it). */
        e.other = 1;
        e.other_id = "MPA-CAP-NOT-JUDGED";
        char name[64];
        snprintf(name, sizeof name, "Request lost, M req %d rep %d", req_m, rep_m);
        unsigned min[2] = {5, 5};
        check(name, &s, &e, min);
        cs_free(&s);
    }
}

/* A hole inside the private data keeps the frame: its header is known. */
static void test_pd_hole(void)
{
    cs_scen s;
    scen_init(&s);
    static uint8_t pd[300];
    for (size_t i = 0; i < sizeof pd; i++)
        pd[i] = (uint8_t)i;
    mpa_frame_enc q = cs_req(1, 1);
    q.pd = pd;
    q.pd_len = sizeof pd;
    uint8_t tmp[400];
    size_t w = 0;
    T_EQ(mpa_frame_encode(&q, tmp, sizeof tmp, &w), MPA_OK);
    cs_raw(&s, D0, tmp, 50);
    cs_raw(&s, D0, tmp + 50, 100);
    cs_lose_last(&s);
    cs_raw(&s, D0, tmp + 150, w - 150);
    mpa_frame_enc p = cs_rep(1, 1);
    cs_frame(&s, D1, &p);
    cs_fpdu_mode(&s, D0, 1);
    cs_fpdu_mode(&s, D1, 1);
    traffic(&s, D0, 5, 1);
    traffic(&s, D1, 5, 2);
    expect_t e = exp_holes(1, 0, 1, 1, 1);
    e.resync[0] = 0;
    e.frame_lost[0] = 100;
    unsigned min[2] = {5, 5};
    check("hole inside private data", &s, &e, min);
    cs_free(&s);
}

/* A hole right after the Request, before the Reply settles the framing. */
static void test_hole_before_reply(void)
{
    cs_scen s;
    scen_init(&s);
    mpa_frame_enc q = cs_req(1, 1), p = cs_rep(0, 1);
    cs_frame(&s, D0, &q);
    cs_fpdu_mode(&s, D0, 0);
    traffic(&s, D0, 1, 1);
    cs_lose_last(&s);
    cs_frame(&s, D1, &p);
    cs_fpdu_mode(&s, D1, 1);
    traffic(&s, D0, 6, 2);
    traffic(&s, D1, 6, 3);
    expect_t e = exp_holes(1, 0, 0, 1, 1);
    e.resync[0] = 1;
    unsigned min[2] = {5, 6};
    check("hole between Request and Reply", &s, &e, min);
    cs_free(&s);
}

/* Not MPA at all: a mid-stream start on random octets never locks with
 * CRC on or unknown, and the octets are all reported. */
static void test_no_false_lock(void)
{
    for (int c = 0; c < 3; c++) {
        cs_scen s;
        scen_init(&s);
        uint64_t x = 0x1234567 + (uint64_t)c;
        for (int seg = 0; seg < 200; seg++) {
            uint8_t buf[1460];
            for (size_t i = 0; i < sizeof buf; i++)
                buf[i] = (uint8_t)cs_rng(&x);
            cs_raw(&s, seg & 1, buf, sizeof buf);
        }
        s.midstream = 1;
        s.ms_crc[0] = s.ms_crc[1] = c == 0 ? MPA_TRI_UNKNOWN : MPA_TRI_ON;
        if (c == 2)
            s.ms_markers[0] = s.ms_markers[1] = MPA_TRI_ON;
        expect_t e;
        memset(&e, 0, sizeof e);
        e.want_markers[0] = e.want_markers[1] = e.want_crc[0] = e.want_crc[1] = -1;
        /* Each direction says what it tried and never proved. */
        e.other = 2;
        e.other_id = "MPA-CAP-RESYNC-FAILED";
        unsigned min[2] = {0, 0};
        check(c == 0 ? "random octets, nothing stated" : c == 1 ? "random octets, CRC on" : "random octets, M and C on",
              &s, &e, min);
        cs_free(&s);
    }
}

int main(void)
{
    t_name = "resync";
    test_hole_each_framing();
    test_hole_mid_fpdu();
    test_hole_long_fpdu();
    test_hole_while_hunting();
    test_midstream();
    test_startup_lost();
    test_pd_hole();
    test_hole_before_reply();
    test_no_false_lock();
    return t_done();
}

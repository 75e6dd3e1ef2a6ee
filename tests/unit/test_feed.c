/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The feeder (mpa/feed.h): what the stream engine hands back is held and
 * fed again in arrival order (RFC 5044 7.1.2 rule 4, RFC 6581 9: the
 * Initiator's FPDUs may follow its Request before the Reply says how they
 * are framed).
 *
 * Each check states a property of the feeder: octets held only while
 * their direction waits, arrival order kept across directions and behind
 * holes and ends, limits turning octets into a hole (and saying so), the
 * shared count returned to zero, finish reporting what was still held.
 */
#include "t.h"

#include "mpa/feed.h"
#include "mpa/fpdu.h"
#include "mpa/frame.h"
#include "mpa/stream.h"

/* The events of one run, in order: type and direction. */
typedef struct evlog {
    int n;
    uint8_t type[64], dir[64];
    int findings[MPA_F__COUNT];
    uint64_t data_octets;
} evlog;

static void on_event(void *user, const mpa_event *ev)
{
    evlog *l = user;
    if (ev->type == MPA_EV_MARKER)
        return;
    if (l->n < 64) {
        l->type[l->n] = (uint8_t)ev->type;
        l->dir[l->n] = (uint8_t)ev->dir;
        l->n++;
    }
    if (ev->type == MPA_EV_FINDING)
        l->findings[ev->u.finding.id]++;
    if (ev->type == MPA_EV_DATA)
        l->data_octets += ev->u.data.len;
}

/* Index of the first event of type t in direction dir, or -1. */
static int ev_at(const evlog *l, int t, int dir)
{
    for (int i = 0; i < l->n; i++)
        if (l->type[i] == t && l->dir[i] == dir)
            return i;
    return -1;
}

static size_t frame(mpa_key_kind kind, uint8_t *out)
{
    mpa_frame_enc f;
    memset(&f, 0, sizeof f);
    f.kind = kind;
    f.c = 1;
    f.rev = 1;
    f.pd_len_override = -1;
    size_t n = 0;
    mpa_frame_encode(&f, out, 64, &n);
    return n;
}

/* A Send (untagged, QN 0, MSN 1) as one FPDU at sequence number seq,
 * CRC on, no markers. */
static size_t send_fpdu(uint32_t seq, uint8_t *out)
{
    uint8_t ulpdu[18 + 8] = {0x41, 0x43}; /* DDP: L=1, DV=1; RDMAP: RV=1, Send */
    ulpdu[9] = 1;                         /* MSN 1 (octets 6-9 QN, 10-13 MSN: big-endian) */
    ulpdu[13] = 1;
    mpa_fpdu_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.crc = 1;
    size_t n = 0;
    mpa_fpdu_encode(ulpdu, sizeof ulpdu, seq, &cfg, NULL, out, 128, &n);
    return n;
}

typedef struct run {
    mpa_stream *s;
    mpa_feeder *f;
    evlog log;
    size_t shared;
    uint8_t req[64], rep[64], fpdu[128];
    size_t nreq, nrep, nfpdu;
} run;

static void run_init(run *r, size_t dir_cap, int bind)
{
    memset(r, 0, sizeof *r);
    r->s = malloc(mpa_stream_size());
    mpa_stream_init(r->s, NULL, on_event, &r->log);
    mpa_feeder_limits lim = {dir_cap, &r->shared, 0};
    r->f = mpa_feeder_new(&lim);
    if (bind)
        mpa_feeder_bind(r->f, r->s);
    r->nreq = frame(MPA_KEY_REQ, r->req);
    r->nrep = frame(MPA_KEY_REP, r->rep);
    r->nfpdu = send_fpdu((uint32_t)r->nreq, r->fpdu);
}

/* The Request with the Initiator's FPDU right behind it, as one push. */
static void push_request_and_fpdu(run *r, mpa_feed_status want)
{
    uint8_t both[192];
    memcpy(both, r->req, r->nreq);
    memcpy(both + r->nreq, r->fpdu, r->nfpdu);
    T_EQ(mpa_feeder_data(r->f, 0, both, r->nreq + r->nfpdu, 1), want);
}

static void run_free(run *r)
{
    mpa_feeder_free(r->f);
    T_EQ(r->shared, 0); /* everything held was given back */
    free(r->s);
}

/* The Initiator's FPDU right behind its Request waits for the Reply,
 * then comes after it. */
static void test_waits_for_reply(void)
{
    run r;
    run_init(&r, 0, 1);
    push_request_and_fpdu(&r, MPA_FEED_OK);
    T_EQ(mpa_feeder_held(r.f, 0), mpa_feeder_cost(1, r.nfpdu));
    T_EQ(r.shared, mpa_feeder_cost(1, r.nfpdu));
    T_CHECK(!mpa_feeder_idle(r.f, 0), "the FPDU is held");
    T_EQ(ev_at(&r.log, MPA_EV_FPDU, 0), -1);
    T_EQ(mpa_feeder_data(r.f, 1, r.rep, r.nrep, 1), MPA_FEED_OK);
    T_EQ(mpa_feeder_held(r.f, 0), 0);
    T_EQ(r.shared, 0);
    int rep = ev_at(&r.log, MPA_EV_FRAME, 1), fp = ev_at(&r.log, MPA_EV_FPDU, 0);
    T_CHECK(rep >= 0 && fp > rep, "Reply at %d, FPDU at %d", rep, fp);
    T_EQ(mpa_stream_stats(r.s, 0)->fpdus, 1);
    run_free(&r);
}

/* Unbound: everything waits; binding feeds both directions in the order
 * they arrived. */
static void test_bind_keeps_arrival_order(void)
{
    run r;
    run_init(&r, 0, 0);
    T_EQ(mpa_feeder_data(r.f, 0, r.req, r.nreq, 1), MPA_FEED_OK);
    T_EQ(mpa_feeder_data(r.f, 1, r.rep, r.nrep, 1), MPA_FEED_OK);
    T_EQ(mpa_feeder_data(r.f, 0, r.fpdu, r.nfpdu, 1), MPA_FEED_OK);
    T_EQ(r.log.n, 0);
    T_EQ(r.shared, mpa_feeder_cost(1, r.nreq) + mpa_feeder_cost(1, r.nrep) + mpa_feeder_cost(1, r.nfpdu));
    T_CHECK(mpa_feeder_stream(r.f) == NULL, "no engine yet");
    mpa_feeder_bind(r.f, r.s);
    int req = ev_at(&r.log, MPA_EV_FRAME, 0), rep = ev_at(&r.log, MPA_EV_FRAME, 1),
        fp = ev_at(&r.log, MPA_EV_FPDU, 0);
    T_CHECK(req >= 0 && rep > req && fp > rep, "Request %d, Reply %d, FPDU %d", req, rep, fp);
    T_EQ(r.log.findings[MPA_F_STA_INIT_FPDU_WAIT], 0);
    T_EQ(r.shared, 0);
    run_free(&r);
}

/* A hole and an end wait behind the held octets of their direction. */
static void test_gap_and_end_wait_their_turn(void)
{
    run r;
    run_init(&r, 0, 1);
    push_request_and_fpdu(&r, MPA_FEED_OK);
    T_EQ(mpa_feeder_gap(r.f, 0, 100), MPA_FEED_OK);
    T_EQ(mpa_feeder_gap(r.f, 0, 50), MPA_FEED_OK); /* one hole with the one before */
    T_EQ(mpa_feeder_end(r.f, 0, MPA_END_FIN), MPA_FEED_OK);
    T_EQ(mpa_feeder_held(r.f, 0), mpa_feeder_cost(1, r.nfpdu) + 2 * mpa_feeder_cost(0, 0));
    T_EQ(mpa_stream_stats(r.s, 0)->gap_octets, 0);
    mpa_feeder_data(r.f, 1, r.rep, r.nrep, 1);
    T_EQ(mpa_stream_stats(r.s, 0)->fpdus, 1);
    T_EQ(mpa_stream_stats(r.s, 0)->gap_octets, 150);
    T_EQ(mpa_stream_mode(r.s, 0), MPA_MODE_CLOSED);
    int fp = ev_at(&r.log, MPA_EV_FPDU, 0), hole = -1;
    for (int i = 0; i < r.log.n; i++)
        if (r.log.type[i] == MPA_EV_FINDING && r.log.dir[i] == 0 && i > fp)
            hole = i;
    T_CHECK(fp >= 0 && hole > fp, "the hole is reported after the FPDU (%d, %d)", fp, hole);
    T_EQ(r.log.findings[MPA_F_CAP_HOLE], 1);
    run_free(&r);
}

/* Over the direction's limit: the octets stand as a hole, and the call
 * says so. */
static void test_over_limit_becomes_hole(void)
{
    run r;
    run_init(&r, mpa_feeder_cost(1, 8), 1);
    push_request_and_fpdu(&r, MPA_FEED_OVER_DIR);
    T_EQ(mpa_feeder_held(r.f, 0), mpa_feeder_cost(0, 0));
    mpa_feeder_data(r.f, 1, r.rep, r.nrep, 1);
    T_EQ(mpa_stream_stats(r.s, 0)->fpdus, 0);
    T_EQ(mpa_stream_stats(r.s, 0)->gap_octets, r.nfpdu);
    T_EQ(r.log.findings[MPA_F_CAP_HOLE], 1);
    run_free(&r);
}

/* A shared limit counts every holder. */
static void test_shared_limit(void)
{
    run r;
    run_init(&r, 0, 1);
    mpa_feeder_limits lim = {0, &r.shared, mpa_feeder_cost(1, r.nfpdu) - 1};
    mpa_feeder_set_limits(r.f, &lim);
    push_request_and_fpdu(&r, MPA_FEED_OVER_SHARED);
    lim.shared_cap = 0;
    mpa_feeder_set_limits(r.f, &lim);
    run_free(&r);
}

/* At the end of input a waiting direction gives up its octets: they are
 * reported as not decoded, never dropped. */
static void test_finish_reports_held(void)
{
    run r;
    run_init(&r, 0, 1);
    push_request_and_fpdu(&r, MPA_FEED_OK);
    T_EQ(r.log.data_octets, 0);
    mpa_feeder_finish(r.f);
    T_EQ(mpa_feeder_held(r.f, 0), 0);
    T_EQ(r.log.data_octets, r.nfpdu);
    run_free(&r);
}

/* Octets of a direction that does not wait go straight through. */
static void test_straight_through(void)
{
    run r;
    run_init(&r, 1, 1); /* a limit nothing may reach: nothing is held */
    T_EQ(mpa_feeder_data(r.f, 0, r.req, r.nreq, 1), MPA_FEED_OK);
    T_EQ(mpa_feeder_data(r.f, 1, r.rep, r.nrep, 1), MPA_FEED_OK);
    T_EQ(mpa_feeder_data(r.f, 0, r.fpdu, r.nfpdu, 1), MPA_FEED_OK);
    T_EQ(mpa_stream_stats(r.s, 0)->fpdus, 1);
    T_EQ(r.shared, 0);
    run_free(&r);
}

int main(void)
{
    t_name = "feed";
    test_waits_for_reply();
    test_bind_keeps_arrival_order();
    test_gap_and_end_wait_their_turn();
    test_over_limit_becomes_hole();
    test_shared_limit();
    test_finish_reports_held();
    test_straight_through();
    return t_done();
}

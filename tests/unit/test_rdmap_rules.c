/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RDMAP rules of src/stream.c beyond single headers.  What is
 * outstanding: Read Requests
 * against the ORD/IRD of the enhanced startup (MPA-RDMAP-READ-ORD,
 * RFC 5040 6.1, RFC 6581 9.1), once per direction; Atomic Responses to
 * Requests at a misaligned Remote Tagged Offset (MPA-RDMAP-ATOMIC-ALIGN,
 * RFC 7306 8.2).  Nothing judged when the bounds are unknown or a hole
 * may hide a Request or Response.  The TERMINATE: its header-control
 * bits against Layer and EType (MPA-TRM-HDRCT, RFC 5040 4.8 Figure 10)
 * and the close after it (MPA-TRM-TEARDOWN, RFC 5040 6.2.1).
 */
#include "corpus.h"
#include "t.h"

static uint8_t ul[8192];

static void rreq(cs_scen *s, int dir, uint32_t msn, uint32_t size)
{
    cs_fpdu(s, dir, ul, cs_ul_read_req(ul, sizeof ul, msn, size));
}

static void rresp(cs_scen *s, int dir, size_t len)
{
    mpa_ddp d = cs_ul_tagged(MPA_RDMAP_READ_RESPONSE, 0x1000, 0x2000);
    d.hdr.last = 1;
    cs_fpdu(s, dir, ul, cs_ul_build(&d, len, ul, sizeof ul));
}

/* Runs s whole and octet by octet: want findings of id, and none of
 * MPA-RDMAP-READ-MATCH (the scenarios answer every Request right). */
static void expect(const char *what, cs_scen *s, mpa_finding_id id, unsigned want)
{
    for (int mode = 0; mode < 2; mode++) {
        cs_split sp = {mode, 0, 0};
        cs_log l = cs_run(s, sp);
        T_CHECK(l.count[id] == want, "%s (split %d): %u of %s, expected %u", what, mode, l.count[id],
                mpa_rule_get(id)->id, want);
        T_CHECK(l.count[MPA_F_RDMAP_READ_MATCH] == 0, "%s (split %d): %u READ-MATCH", what, mode,
                l.count[MPA_F_RDMAP_READ_MATCH]);
        cs_log_free(&l);
    }
    cs_free(s);
}

/* Initiator IRD iird ORD iord, Responder IRD rird ORD rord, no RTR. */
static void start(cs_scen *s, unsigned iird, unsigned iord, unsigned rird, unsigned rord)
{
    cs_init(s);
    cs_start_enh(s, cs_enh(cs_req(0, 1), 0, 0, 0, 0, iird, iord), cs_enh(cs_rep(0, 1), 0, 0, 0, 0, rird, rord));
}

/* n Read Requests of dir, then their Responses. */
static void burst(cs_scen *s, int dir, uint32_t *msn, unsigned n)
{
    for (unsigned k = 0; k < n; k++)
        rreq(s, dir, (*msn)++, 16);
    for (unsigned k = 0; k < n; k++)
        rresp(s, !dir, 16);
}

static void test_read_ord(void)
{
    cs_scen s;
    uint32_t m0 = 1, m1 = 1;

    /* At the bounds, again and again: nothing. */
    start(&s, 3, 2, 2, 3);
    burst(&s, 0, &m0, 2);
    burst(&s, 1, &m1, 3);
    burst(&s, 0, &m0, 2);
    cs_close_both(&s);
    expect("at the bounds", &s, MPA_F_RDMAP_READ_ORD, 0);

    /* Over the Responder's IRD (the Initiator's ORD is larger): once,
     * however many more follow. */
    m0 = 1;
    start(&s, 3, 8, 2, 3);
    burst(&s, 0, &m0, 5);
    burst(&s, 0, &m0, 4);
    cs_close_both(&s);
    expect("over the peer's IRD", &s, MPA_F_RDMAP_READ_ORD, 1);

    /* Over the Responder's own ORD (the Initiator's IRD is larger). */
    m1 = 1;
    start(&s, 8, 2, 2, 1);
    burst(&s, 1, &m1, 2);
    cs_close_both(&s);
    expect("over its own ORD", &s, MPA_F_RDMAP_READ_ORD, 1);

    /* Both sides over: one each. */
    m0 = m1 = 1;
    start(&s, 1, 1, 1, 1);
    burst(&s, 0, &m0, 2);
    burst(&s, 1, &m1, 2);
    cs_close_both(&s);
    expect("both over", &s, MPA_F_RDMAP_READ_ORD, 2);

    /* 0x3FFF: the ULPs negotiate, no bound is known. */
    m0 = m1 = 1;
    start(&s, 0x3FFF, 0x3FFF, 0x3FFF, 0x3FFF);
    burst(&s, 0, &m0, 12);
    burst(&s, 1, &m1, 12);
    cs_close_both(&s);
    expect("0x3FFF", &s, MPA_F_RDMAP_READ_ORD, 0);

    /* 0x3FFF on one value: the other still bounds. */
    m0 = 1;
    start(&s, 4, 0x3FFF, 2, 4);
    burst(&s, 0, &m0, 3);
    cs_close_both(&s);
    expect("ORD 0x3FFF, IRD 2", &s, MPA_F_RDMAP_READ_ORD, 1);

    /* Past the engine's queue (8): still counted. */
    m0 = 1;
    start(&s, 4, 10, 10, 4);
    burst(&s, 0, &m0, 10);
    burst(&s, 0, &m0, 11);
    cs_close_both(&s);
    expect("past the queue", &s, MPA_F_RDMAP_READ_ORD, 1);

    /* A Rev 1 startup tells no bound. */
    m0 = 1;
    cs_init(&s);
    cs_start_plain(&s, 0, 1);
    burst(&s, 0, &m0, 12);
    cs_close_both(&s);
    expect("Rev 1", &s, MPA_F_RDMAP_READ_ORD, 0);

    /* A lost segment may have been a Response: not judged after it. */
    m0 = 1;
    start(&s, 2, 2, 2, 2);
    burst(&s, 0, &m0, 2);
    rreq(&s, 0, m0++, 16);
    rresp(&s, 1, 16);
    cs_lose_last(&s);
    rreq(&s, 0, m0++, 16);
    rreq(&s, 0, m0++, 16);
    cs_close_both(&s);
    expect("after a hole", &s, MPA_F_RDMAP_READ_ORD, 0);
}

/* A Read Request of its own sink STag k, and its Response. */
static void rreq_k(cs_scen *s, int dir, uint32_t msn, uint32_t k)
{
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_READ_REQUEST, 1, msn);
    d.u.rreq.sink_stag = 0x1000 + k;
    d.u.rreq.sink_to = 0x2000;
    d.u.rreq.size = 16;
    d.u.rreq.src_stag = 0x3000;
    d.u.rreq.src_to = 0x4000;
    cs_fpdu(s, dir, ul, cs_ul_build(&d, 0, ul, sizeof ul));
}

static void rresp_k(cs_scen *s, int dir, uint32_t k)
{
    mpa_ddp d = cs_ul_tagged(MPA_RDMAP_READ_RESPONSE, 0x1000 + k, 0x2000);
    d.hdr.last = 1;
    cs_fpdu(s, dir, ul, cs_ul_build(&d, 16, ul, sizeof ul));
}

/* RFC 5040 5.2.2 with more Requests open than the engine's queue holds
 * (8), and new Requests sent while the oldest are answered: each
 * Response still matched to its own Request, never to a later one. */
static void test_read_pipeline(void)
{
    for (int wrong = 0; wrong < 2; wrong++) {
        cs_scen s;
        uint32_t msn = 1, sent = 0, answered = 0;
        start(&s, 16, 16, 16, 16);
        while (sent < 10)
            rreq_k(&s, 0, msn++, sent++);
        for (unsigned round = 0; round < 12; round++) {
            rresp_k(&s, 1, answered++);
            rreq_k(&s, 0, msn++, sent++);
        }
        while (answered < sent)
            rresp_k(&s, 1, answered++);
        if (wrong) { /* the queue still judges once the backlog is gone */
            rreq_k(&s, 0, msn++, 100);
            rresp_k(&s, 1, 101);
        }
        cs_close_both(&s);
        for (int mode = 0; mode < 2; mode++) {
            cs_split sp = {mode, 0, 0};
            cs_log l = cs_run(&s, sp);
            T_CHECK(l.count[MPA_F_RDMAP_READ_MATCH] == (unsigned)wrong,
                    "pipelined past the queue%s (split %d): %u READ-MATCH, expected %d", wrong ? ", then a wrong one" : "",
                    mode, l.count[MPA_F_RDMAP_READ_MATCH], wrong);
            T_CHECK(l.count[MPA_F_RDMAP_READ_ORD] == 0, "pipelined past the queue (split %d): %u READ-ORD", mode,
                    l.count[MPA_F_RDMAP_READ_ORD]);
            cs_log_free(&l);
        }
        cs_free(&s);
    }
}

/* RFC 6581 9.1: with Initiator ORD 0 the Responder may set IRD 1 for the
 * zero-length read RTR: the RTR counts against that IRD only. */
static void test_read_rtr(void)
{
    cs_scen s;
    uint32_t m0 = 1;
    cs_init(&s);
    cs_start_enh(&s, cs_enh(cs_req(0, 1), 1, 0, 0, 1, 1, 0), cs_enh(cs_rep(0, 1), 1, 0, 0, 1, 1, 1));
    rreq(&s, 0, m0++, 0);
    rresp(&s, 1, 0);
    cs_close_both(&s);
    expect("read RTR, ORD 0", &s, MPA_F_RDMAP_READ_ORD, 0);

    /* A second Read while the RTR is unanswered: over the IRD of 1. */
    m0 = 1;
    cs_init(&s);
    cs_start_enh(&s, cs_enh(cs_req(0, 1), 1, 0, 0, 1, 1, 4), cs_enh(cs_rep(0, 1), 1, 0, 0, 1, 1, 1));
    rreq(&s, 0, m0++, 0);
    rreq(&s, 0, m0++, 16);
    rresp(&s, 1, 0);
    rresp(&s, 1, 16);
    cs_close_both(&s);
    expect("Read beside the RTR", &s, MPA_F_RDMAP_READ_ORD, 1);
}

static void atomic(cs_scen *s, int dir, uint32_t msn, uint32_t id, uint64_t to)
{
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_ATOMIC_REQUEST, MPA_QN_READ_REQUEST, msn);
    d.u.atomic_req.aop = MPA_ATOMIC_FETCH_ADD;
    d.u.atomic_req.req_id = id;
    d.u.atomic_req.stag = 0x1234;
    d.u.atomic_req.to = to;
    d.u.atomic_req.compare_mask = UINT64_MAX;
    cs_fpdu(s, dir, ul, cs_ul_build(&d, 0, ul, sizeof ul));
}

static void atomic_resp(cs_scen *s, int dir, uint32_t msn, uint32_t id)
{
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_ATOMIC_RESPONSE, MPA_QN_ATOMIC_RESP, msn);
    d.u.atomic_resp.orig_req_id = id;
    cs_fpdu(s, dir, ul, cs_ul_build(&d, 0, ul, sizeof ul));
}

/* Atomic Requests 1 and 2 (at to1, to2) from the Initiator, the first
 * answered of them answered in order, then FIN both ways, the
 * Initiator's first. */
static void atomic_pair(cs_scen *s, uint64_t to1, uint64_t to2, uint32_t answered)
{
    cs_init(s);
    cs_start_plain(s, 0, 0);
    atomic(s, 0, 1, 1, to1);
    atomic(s, 0, 2, 2, to2);
    for (uint32_t i = 1; i <= answered; i++)
        atomic_resp(s, 1, i, i);
    cs_close_both(s);
}

static void test_atomic_align(void)
{
    cs_scen s;
    /* Aligned, answered: nothing. */
    atomic_pair(&s, 0x2000, 0x10008, 2);
    expect("aligned", &s, MPA_F_RDMAP_ATOMIC_ALIGN, 0);

    /* Each misaligned one answered is a fault of its own; the Requests
     * of the other direction are apart. */
    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    atomic(&s, 0, 1, 1, 0x2004);
    atomic(&s, 0, 2, 2, 0x2008);
    atomic(&s, 0, 3, 3, 0x2001);
    atomic(&s, 1, 1, 1, 0x3000);
    atomic_resp(&s, 1, 1, 1);
    atomic_resp(&s, 1, 2, 2);
    atomic_resp(&s, 1, 3, 3);
    atomic_resp(&s, 0, 1, 1);
    cs_close_both(&s);
    expect("misaligned answered", &s, MPA_F_RDMAP_ATOMIC_ALIGN, 2);

    /* Answered out of order (MPA-RDMAP-ATOMIC-RESP): still the Request's
     * own alignment that counts. */
    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    atomic(&s, 0, 1, 1, 0x2000);
    atomic(&s, 0, 2, 2, 0x2002);
    atomic_resp(&s, 1, 1, 2);
    cs_close_both(&s);
    expect("skipping", &s, MPA_F_RDMAP_ATOMIC_ALIGN, 1);

    /* Answered with a TERMINATE: right. */
    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    atomic(&s, 0, 1, 1, 0x2004);
    cs_fpdu(&s, 1, ul, cs_ul_term(ul, sizeof ul, 0, 2, 7));
    cs_close_both(&s);
    expect("TERMINATE", &s, MPA_F_RDMAP_ATOMIC_ALIGN, 0);

    /* A hole: what a Response answers is unknown. */
    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    atomic(&s, 0, 1, 1, 0x2000);
    cs_lose_last(&s);
    atomic(&s, 0, 2, 2, 0x2004);
    atomic_resp(&s, 1, 1, 2);
    cs_close_both(&s);
    expect("after a hole", &s, MPA_F_RDMAP_ATOMIC_ALIGN, 0);
}

/* A plain connection whose Initiator sends Atomic Request 1 at to. */
static void one_atomic(cs_scen *s, uint64_t to)
{
    cs_init(s);
    cs_start_plain(s, 0, 0);
    atomic(s, 0, 1, 1, to);
}

/* RFC 7306 5.2.1 (MPA-RDMAP-ATOMIC-ANSWER): a valid Atomic Request the
 * responder still owes at its graceful close after the requester's. */
static void test_atomic_answer(void)
{
    cs_scen s;
    /* The second unanswered, the requester's FIN first: one finding. */
    atomic_pair(&s, 0x2000, 0x2008, 1);
    expect("second unanswered", &s, MPA_F_RDMAP_ATOMIC_ANSWER, 1);

    /* Both answered: nothing. */
    atomic_pair(&s, 0x2000, 0x2008, 2);
    expect("answered", &s, MPA_F_RDMAP_ATOMIC_ANSWER, 0);

    /* The responder's FIN first may cross the Request: not judged. */
    one_atomic(&s, 0x2000);
    cs_end(&s, 1, 0);
    cs_end(&s, 0, 0);
    expect("responder first", &s, MPA_F_RDMAP_ATOMIC_ANSWER, 0);

    /* A RST from the responder, a TERMINATE either way: not judged. */
    one_atomic(&s, 0x2000);
    cs_end(&s, 0, 0);
    cs_end(&s, 1, 1);
    expect("RST", &s, MPA_F_RDMAP_ATOMIC_ANSWER, 0);
    for (int dir = 0; dir < 2; dir++) {
        one_atomic(&s, 0x2000);
        cs_fpdu(&s, dir, ul, cs_ul_term(ul, sizeof ul, 0, 2, 6));
        cs_close_both(&s);
        expect("TERMINATE", &s, MPA_F_RDMAP_ATOMIC_ANSWER, 0);
    }

    /* A misaligned Request is owed a TERMINATE, not a Response; one with
     * an undefined AOpCode is not valid: neither counts. */
    one_atomic(&s, 0x2004);
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_ATOMIC_REQUEST, MPA_QN_READ_REQUEST, 2);
    d.u.atomic_req.aop = 7;
    cs_fpdu(&s, 0, ul, cs_ul_build(&d, 0, ul, sizeof ul));
    cs_close_both(&s);
    expect("not valid", &s, MPA_F_RDMAP_ATOMIC_ANSWER, 0);

    /* The responder's own Requests are the requester's to answer: the
     * side that closes second owes, the first is not judged. */
    one_atomic(&s, 0x2000);
    atomic(&s, 1, 1, 9, 0x3000);
    cs_close_both(&s);
    expect("both ways", &s, MPA_F_RDMAP_ATOMIC_ANSWER, 1);

    /* A hole in the requester's direction: not judged. */
    one_atomic(&s, 0x2000);
    atomic(&s, 0, 2, 2, 0x2008);
    cs_lose_last(&s);
    atomic_resp(&s, 1, 1, 1);
    cs_close_both(&s);
    expect("after a hole", &s, MPA_F_RDMAP_ATOMIC_ANSWER, 0);
}

/* The Initiator sends the message m; the Responder TERMINATEs with
 * Layer/EType/code and M, D (copying m's header), R (copying the Read
 * Request m, when it is one); then both close with FIN, or the
 * Responder (rst 1) or the Initiator (rst 2) with a RST. */
static void run(cs_scen *s, mpa_ddp m, unsigned layer, unsigned etype, unsigned code, int md, int r, int rst)
{
    cs_init(s);
    cs_start_plain(s, 0, 1);
    size_t n = cs_ul_build(&m, m.hdr.opcode == MPA_RDMAP_SEND ? 8 : 0, ul, sizeof ul);
    cs_fpdu(s, 0, ul, n);
    mpa_ddp t = cs_ul_untagged(MPA_RDMAP_TERMINATE, 2, 1);
    t.u.term.layer = (uint8_t)layer;
    t.u.term.etype = (uint8_t)etype;
    t.u.term.code = (uint8_t)code;
    t.u.term.m = t.u.term.d = (uint8_t)md;
    t.u.term.seglen = (uint16_t)n;
    t.u.term.ddp_hdr = m.hdr;
    t.u.term.r = (uint8_t)r;
    t.u.term.rreq = m.u.rreq;
    cs_fpdu(s, 1, ul, cs_ul_build(&t, 0, ul, sizeof ul));
    cs_end(s, 1, rst == 1);
    cs_end(s, 0, rst == 2);
}

static mpa_ddp send_msg(void) { return cs_ul_untagged(MPA_RDMAP_SEND, 0, 1); }

static mpa_ddp rreq_msg(void)
{
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_READ_REQUEST, 1, 1);
    d.u.rreq.sink_stag = 0x1000;
    d.u.rreq.size = 64;
    d.u.rreq.src_stag = 0x3000;
    return d;
}

static void test_hdrct(void)
{
    cs_scen s;
    /* As Figure 10 maps them: nothing. */
    run(&s, send_msg(), 1, 2, 5, 1, 0, 0); /* DDP error: header */
    expect("DDP, D=1", &s, MPA_F_TRM_HDRCT, 0);
    run(&s, send_msg(), 0, 2, 6, 1, 0, 0); /* RDMAP remote operation: header if possible */
    expect("Remote Operation, D=1", &s, MPA_F_TRM_HDRCT, 0);
    run(&s, send_msg(), 0, 2, 6, 0, 0, 0);
    expect("Remote Operation, D=0", &s, MPA_F_TRM_HDRCT, 0);
    run(&s, rreq_msg(), 0, 1, 0, 1, 1, 0); /* Remote Protection on a Read Request: both */
    expect("Remote Protection, Read Request, D=R=1", &s, MPA_F_TRM_HDRCT, 0);
    run(&s, send_msg(), 0, 0, 0, 0, 0, 0); /* Local Catastrophic: none */
    expect("Local Catastrophic, none", &s, MPA_F_TRM_HDRCT, 0);
    run(&s, send_msg(), 2, 0, 1, 0, 0, 0); /* LLP: none */
    expect("LLP, none", &s, MPA_F_TRM_HDRCT, 0);

    /* Against it: one finding each. */
    run(&s, send_msg(), 1, 2, 5, 0, 0, 0);
    expect("DDP, D=0", &s, MPA_F_TRM_HDRCT, 1);
    run(&s, send_msg(), 0, 0, 0, 1, 0, 0);
    expect("Local Catastrophic, D=1", &s, MPA_F_TRM_HDRCT, 1);
    run(&s, send_msg(), 2, 0, 1, 1, 0, 0);
    expect("LLP, D=1", &s, MPA_F_TRM_HDRCT, 1);
    run(&s, rreq_msg(), 0, 2, 6, 1, 1, 0);
    expect("Remote Operation, R=1", &s, MPA_F_TRM_HDRCT, 1);
    run(&s, rreq_msg(), 0, 1, 0, 1, 0, 0);
    expect("Remote Protection, Read Request, R=0", &s, MPA_F_TRM_HDRCT, 1);
    run(&s, send_msg(), 0, 1, 0, 1, 1, 0);
    expect("Remote Protection, Send, R=1", &s, MPA_F_TRM_HDRCT, 1);
}

static void test_teardown(void)
{
    cs_scen s;
    run(&s, send_msg(), 1, 2, 5, 1, 0, 0);
    expect("FIN both", &s, MPA_F_TRM_TEARDOWN, 0);
    run(&s, send_msg(), 1, 2, 5, 1, 0, 1);
    expect("RST by the sender", &s, MPA_F_TRM_TEARDOWN, 1);
    run(&s, send_msg(), 1, 2, 5, 1, 0, 2); /* it had the TERMINATE already */
    expect("RST by the receiver", &s, MPA_F_TRM_TEARDOWN, 0);

    /* A RST with no TERMINATE is not this rule's. */
    cs_init(&s);
    cs_start_plain(&s, 0, 1);
    cs_send(&s, 0, 1, 8);
    cs_end(&s, 0, 1);
    cs_end(&s, 1, 1);
    expect("RST, no TERMINATE", &s, MPA_F_TRM_TEARDOWN, 0);

    /* RFC 6581 9.3: TERM code 5 before a reset is left out. */
    cs_init(&s);
    cs_start_enh(&s, cs_enh(cs_req(0, 1), 1, 1, 1, 1, 4, 4), cs_enh(cs_rep(0, 1), 1, 1, 1, 1, 4, 4));
    cs_fpdu(&s, 0, ul, cs_ul_term(ul, sizeof ul, 2, 0, 5));
    cs_end(&s, 0, 1);
    cs_end(&s, 1, 1);
    expect("TERM code 5, RST", &s, MPA_F_TRM_TEARDOWN, 0);
}

int main(void)
{
    t_name = "rdmap_rules";
    test_read_ord();
    test_read_rtr();
    test_read_pipeline();
    test_atomic_align();
    test_atomic_answer();
    test_hdrct();
    test_teardown();
    return t_done();
}

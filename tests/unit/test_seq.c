/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DDP sequencing (src/stream.c, RFC 5041 4.1, 4.3, 5.2, 5.3): per
 * direction and untagged queue, MSN 1 first and one up per message
 * (modulo 2^32), the same MSN on every segment of a message, MO going
 * up without gap or overlap, L=1 on the last segment only; TO going up
 * along a tagged message.  Each rule said once per direction and queue;
 * nothing judged on octets that a hole, a bad CRC or a mid-stream start
 * leave unknown (the queue is learnt again).
 */
#include "corpus.h"
#include "t.h"

static uint8_t ul[8192];

/* One untagged segment of dir: opcode, QN, MSN, MO, L. */
static void useg(cs_scen *s, int dir, unsigned op, unsigned qn, uint32_t msn, uint32_t mo, int last, size_t pl)
{
    mpa_ddp d = cs_ul_untagged(op, qn, msn);
    d.hdr.mo = mo;
    d.hdr.last = (uint8_t)last;
    cs_fpdu(s, dir, ul, cs_ul_build(&d, pl, ul, sizeof ul));
}

static void send(cs_scen *s, int dir, uint32_t msn, uint32_t mo, int last, size_t pl)
{
    useg(s, dir, MPA_RDMAP_SEND, 0, msn, mo, last, pl);
}

static void rreq(cs_scen *s, int dir, uint32_t msn)
{
    cs_fpdu(s, dir, ul, cs_ul_read_req(ul, sizeof ul, msn, 0));
}

static void write_seg(cs_scen *s, int dir, uint32_t stag, uint64_t to, int last, size_t pl)
{
    mpa_ddp d = cs_ul_tagged(MPA_RDMAP_RDMA_WRITE, stag, to);
    d.hdr.last = (uint8_t)last;
    cs_fpdu(s, dir, ul, cs_ul_build(&d, pl, ul, sizeof ul));
}

static const mpa_finding_id seq_ids[] = {MPA_F_DDP_MSN_START, MPA_F_DDP_MSN_NEXT,      MPA_F_DDP_MSN_SAME,
                                         MPA_F_DDP_LAST,      MPA_F_DDP_MO_ORDER,      MPA_F_DDP_TO_ORDER,
                                         MPA_F_DDP_MO_FIRST,  MPA_F_DDP_RSVDULP_SAME, MPA_F_DDP_ZERO_ONE,
                                         MPA_F_DDP_MSG_LEN};
#define NSEQ (sizeof seq_ids / sizeof seq_ids[0])

/* Runs s (whole, then octet by octet: the same counts) and checks the
 * sequencing findings: want[i] of seq_ids[i]. */
static void expect(const char *what, cs_scen *s, const unsigned want[NSEQ])
{
    for (int mode = 0; mode < 2; mode++) {
        cs_split sp = {mode, 0, 0};
        cs_log l = cs_run(s, sp);
        T_CHECK(l.fpdus[0] >= 2, "%s (split %d): %u FPDUs decoded", what, mode, l.fpdus[0]);
        for (size_t i = 0; i < NSEQ; i++)
            T_CHECK(l.count[seq_ids[i]] == want[i], "%s (split %d): %u of %s, expected %u", what, mode,
                    l.count[seq_ids[i]], mpa_rule_get(seq_ids[i])->id, want[i]);
        cs_log_free(&l);
    }
    cs_free(s);
}

enum { START, NEXT, SAME, LAST, MO, TO, MO_FIRST, RSVDULP, ZERO, LEN };

/* Right: several queues, messages of several segments, Terminate. */
static void test_clean(void)
{
    cs_scen s;
    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    for (uint32_t m = 1; m <= 4; m++) {
        send(&s, 0, m, 0, 0, 300);
        rreq(&s, 0, m); /* QN 1: its own MSNs */
        send(&s, 0, m, 300, 0, 200);
        send(&s, 0, m, 500, 1, 7);
        send(&s, 1, m, 0, 1, 0); /* zero-length Sends count too */
    }
    size_t n = cs_ul_term(ul, sizeof ul, 1, 0, 0); /* QN 2 MSN 1 */
    cs_fpdu(&s, 1, ul, n);
    cs_close_both(&s);
    expect("clean", &s, (unsigned[NSEQ]){0});
}

/* MSN 1 first, on each queue (said once per queue). */
static void test_start(void)
{
    cs_scen s;
    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    send(&s, 0, 0, 0, 1, 10);
    send(&s, 0, 1, 0, 1, 10);
    rreq(&s, 0, 2);
    rreq(&s, 0, 3);
    send(&s, 1, 1, 0, 1, 10);
    cs_close_both(&s);
    expect("start", &s, (unsigned[NSEQ]){[START] = 2});
}

/* One up per message: skips said once per queue; a repeated MSN after
 * L=1 at MO 0 is a MSN not advanced. */
static void test_next(void)
{
    cs_scen s;
    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    send(&s, 0, 1, 0, 1, 10);
    send(&s, 0, 3, 0, 1, 10);
    send(&s, 0, 4, 0, 1, 10);
    send(&s, 0, 9, 0, 1, 10); /* a second skip: not said again */
    rreq(&s, 0, 1);
    rreq(&s, 0, 1); /* not advanced */
    cs_close_both(&s);
    expect("next", &s, (unsigned[NSEQ]){[NEXT] = 2});
}

/* Per direction: the same fault both ways is said twice. */
static void test_per_direction(void)
{
    cs_scen s;
    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    for (int d = 0; d < 2; d++) {
        send(&s, d, 1, 0, 1, 10);
        send(&s, d, 3, 0, 1, 10);
    }
    cs_close_both(&s);
    expect("per direction", &s, (unsigned[NSEQ]){[NEXT] = 2});
}

/* A segment in the middle of a message with another MSN. */
static void test_same(void)
{
    cs_scen s;
    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    send(&s, 0, 1, 0, 0, 100);
    send(&s, 0, 5, 100, 1, 100);
    send(&s, 0, 6, 0, 1, 100);
    cs_close_both(&s);
    expect("same", &s, (unsigned[NSEQ]){[SAME] = 1});
}

/* L missing on a last segment; L=1 on a segment that was not the last. */
static void test_last(void)
{
    cs_scen s;
    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    send(&s, 0, 1, 0, 0, 100);
    send(&s, 0, 2, 0, 1, 100); /* MSN 1 never ended */
    send(&s, 0, 3, 0, 1, 100);
    cs_close_both(&s);
    expect("L missing", &s, (unsigned[NSEQ]){[LAST] = 1});

    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    send(&s, 0, 1, 0, 1, 100);
    send(&s, 0, 1, 100, 1, 100); /* MSN 1 goes on after its L=1 */
    send(&s, 0, 2, 0, 1, 100);
    cs_close_both(&s);
    expect("L early", &s, (unsigned[NSEQ]){[LAST] = 1});

    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    send(&s, 0, 1, 0, 0, 100);
    send(&s, 0, 1, 200, 1, 100); /* out of MO order (SHOULD) */
    send(&s, 0, 1, 100, 0, 100); /* the octets between, after the L=1 segment */
    send(&s, 0, 2, 0, 1, 100);
    cs_close_both(&s);
    expect("L not sent last", &s, (unsigned[NSEQ]){[LAST] = 1, [MO] = 1});
}

/* MO: a gap, an overlap, a first segment not at 0; said once a queue. */
static void test_mo(void)
{
    cs_scen s;
    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    send(&s, 0, 1, 0, 0, 100);
    send(&s, 0, 1, 150, 1, 100); /* gap */
    send(&s, 0, 2, 0, 0, 100);
    send(&s, 0, 2, 50, 1, 100); /* overlap: not said again */
    cs_close_both(&s);
    expect("MO gap", &s, (unsigned[NSEQ]){[MO] = 1});

    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    send(&s, 0, 1, 0, 0, 100);
    send(&s, 0, 1, 50, 1, 100);
    cs_close_both(&s);
    expect("MO overlap", &s, (unsigned[NSEQ]){[MO] = 1});

    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    send(&s, 0, 1, 100, 0, 100); /* the second half first (RFC 5041 5.3: SHOULD) */
    send(&s, 0, 1, 0, 1, 100);
    send(&s, 0, 2, 0, 1, 100);
    cs_close_both(&s);
    expect("MO first", &s, (unsigned[NSEQ]){[MO] = 1});
}

/* Mid-stream: the MSNs are learnt (no "MSN must be 1"), the capture may
 * start inside a message, and 0xFFFFFFFF is followed by 0. */
static void test_midstream_wrap(void)
{
    for (int bad = 0; bad < 2; bad++) {
        cs_scen s;
        cs_init(&s);
        cs_start_plain(&s, 0, 0);
        send(&s, 0, 0xfffffffdu, 0, 0, 300);
        send(&s, 1, 7, 0, 1, 30);
        send(&s, 0, 0xfffffffdu, 300, 0, 300); /* the capture starts here */
        send(&s, 1, 8, 0, 1, 30);
        send(&s, 0, 0xfffffffdu, 600, 1, 10);
        send(&s, 0, 0xfffffffeu, 0, 1, 10);
        send(&s, 0, 0xffffffffu, 0, 1, 10);
        send(&s, 0, bad ? 1 : 0, 0, 1, 10);
        send(&s, 0, bad ? 2 : 1, 0, 1, 10);
        cs_close_both(&s);
        s.midstream = 1;
        s.start_chunk = 4;
        s.ms_markers[0] = s.ms_markers[1] = MPA_TRI_OFF;
        s.ms_crc[0] = s.ms_crc[1] = MPA_TRI_ON;
        expect(bad ? "wrap to 1" : "wrap", &s, (unsigned[NSEQ]){[NEXT] = (unsigned)bad});
    }
    /* Wrapped from the start of FPDU mode too: nothing special about 0
     * but that it follows 0xFFFFFFFF. */
    cs_scen s;
    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    send(&s, 0, 1, 0, 1, 10);
    send(&s, 0, 0, 0, 1, 10);
    cs_close_both(&s);
    expect("0 after 1", &s, (unsigned[NSEQ]){[NEXT] = 1});
}

/* Lost octets: the MSNs after a hole are learnt again. */
static void test_hole(void)
{
    cs_scen s;
    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    send(&s, 0, 1, 0, 1, 100);
    send(&s, 0, 2, 0, 0, 100);
    send(&s, 0, 2, 100, 1, 100);
    cs_lose_last(&s); /* the L=1 segment of MSN 2 */
    send(&s, 0, 3, 0, 1, 100);
    send(&s, 0, 4, 0, 1, 100);
    send(&s, 0, 5, 0, 0, 100);
    cs_lose_last(&s); /* the first segment of MSN 5 */
    send(&s, 0, 5, 100, 1, 100);
    send(&s, 0, 6, 0, 1, 100);
    cs_close_both(&s);
    expect("hole", &s, (unsigned[NSEQ]){0});

    /* A fault after the hole, once the queue is known again, is said. */
    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    send(&s, 0, 1, 0, 1, 100);
    send(&s, 0, 2, 0, 1, 100);
    cs_lose_last(&s);
    send(&s, 0, 3, 0, 1, 100);
    send(&s, 0, 5, 0, 1, 100);
    cs_close_both(&s);
    expect("after a hole", &s, (unsigned[NSEQ]){[NEXT] = 1});
}

/* A bad CRC: that segment is not judged, the queue is learnt again. */
static void test_bad_crc(void)
{
    cs_scen s;
    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    send(&s, 0, 1, 0, 1, 100);
    mpa_fpdu_faults f;
    memset(&f, 0, sizeof f);
    f.len_override = -1;
    f.crc_mode = 2;
    f.crc_xor = 0x10;
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_SEND, 0, 77); /* MSN corrupted */
    cs_fpdu_f(&s, 0, ul, cs_ul_build(&d, 100, ul, sizeof ul), &f);
    send(&s, 0, 3, 0, 1, 100);
    send(&s, 0, 4, 0, 1, 100);
    cs_close_both(&s);
    expect("bad CRC", &s, (unsigned[NSEQ]){0});
}

/* A segment of the wrong shape (a Send to QN 1, said as MPA-DDP-QN) is
 * not judged for sequencing; the queues are learnt again. */
static void test_shape(void)
{
    cs_scen s;
    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    send(&s, 0, 1, 0, 1, 100);
    useg(&s, 0, MPA_RDMAP_SEND, 1, 2, 0, 1, 100);
    send(&s, 0, 3, 0, 1, 100);
    rreq(&s, 0, 1);
    cs_close_both(&s);
    expect("shape", &s, (unsigned[NSEQ]){0});
}

/* Tagged: TO goes on along one STag while L=0; another STag between is
 * not judged; a zero-length segment's TO is not checked. */
static void test_tagged(void)
{
    cs_scen s;
    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    write_seg(&s, 0, 0x11, 0x1000, 0, 100);
    write_seg(&s, 0, 0x22, 0x9000, 1, 100); /* another STag: not judged */
    write_seg(&s, 0, 0x11, 0x1064, 0, 100);
    write_seg(&s, 0, 0x11, 0x10c8, 1, 100);
    write_seg(&s, 0, 0x11, 0x5000, 1, 100); /* a new message after L=1 */
    write_seg(&s, 0, 0x33, 0x0, 0, 100);
    write_seg(&s, 0, 0x33, 0x1234, 1, 0); /* zero-length: not checked */
    cs_close_both(&s);
    expect("tagged clean", &s, (unsigned[NSEQ]){0});

    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    write_seg(&s, 0, 0x11, 0x1000, 0, 100);
    write_seg(&s, 0, 0x11, 0x1000, 0, 100); /* overlap */
    write_seg(&s, 0, 0x11, 0x2000, 1, 100); /* gap: not said again */
    cs_close_both(&s);
    expect("tagged TO", &s, (unsigned[NSEQ]){[TO] = 1});
}

/* RFC 5041 4.3: no segment of a message at MO 0 (MUST) against segments
 * sent out of order (MO-ORDER, a SHOULD); said when the next begins. */
static void test_mo_first(void)
{
    cs_scen s;
    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    send(&s, 0, 1, 100, 0, 100);
    send(&s, 0, 1, 200, 1, 100);
    send(&s, 0, 2, 0, 1, 100);
    send(&s, 0, 3, 50, 1, 100); /* again: said once a queue */
    send(&s, 0, 4, 0, 1, 100);
    cs_close_both(&s);
    expect("no MO 0", &s, (unsigned[NSEQ]){[MO] = 1, [MO_FIRST] = 1});

    /* MO 0 came last: out of order only. */
    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    send(&s, 0, 1, 100, 0, 100);
    send(&s, 0, 1, 0, 1, 100);
    send(&s, 0, 2, 0, 1, 100);
    cs_close_both(&s);
    expect("MO 0 last", &s, (unsigned[NSEQ]){[MO] = 1});
}

/* RFC 5041 4.3: RsvdULP (RDMAP control octet, Invalidate STag) kept
 * within a message; 5.2: zero-length messages are one segment, and a
 * message is shorter than 2^32 octets. */
static void test_rsvdulp_zero_len(void)
{
    cs_scen s;
    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    useg(&s, 0, MPA_RDMAP_SEND, 0, 1, 0, 0, 100);
    useg(&s, 0, MPA_RDMAP_SEND_SE, 0, 1, 100, 1, 100); /* opcode changes */
    useg(&s, 0, MPA_RDMAP_SEND, 0, 2, 0, 0, 100);
    useg(&s, 0, MPA_RDMAP_SEND_SE, 0, 2, 100, 1, 100); /* said once */
    useg(&s, 0, MPA_RDMAP_SEND_SE, 0, 3, 0, 0, 100);
    useg(&s, 0, MPA_RDMAP_SEND_SE, 0, 3, 100, 1, 100); /* the same: right */
    cs_close_both(&s);
    expect("RsvdULP", &s, (unsigned[NSEQ]){[RSVDULP] = 1});

    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    send(&s, 0, 1, 0, 1, 0);  /* one segment: right */
    send(&s, 0, 2, 0, 0, 0);  /* L=0, no payload ... */
    send(&s, 0, 2, 0, 1, 0);  /* ... and the end: zero-length in two */
    send(&s, 0, 3, 0, 0, 0);  /* an empty first segment, */
    send(&s, 0, 3, 0, 1, 10); /* then payload: not zero-length */
    cs_close_both(&s);
    expect("zero-length", &s, (unsigned[NSEQ]){[ZERO] = 1});

    cs_init(&s);
    cs_start_plain(&s, 0, 0);
    send(&s, 0, 1, 0, 0, 100);
    send(&s, 0, 1, 100, 0, 100);
    send(&s, 0, 1, 0xFFFFFF00u, 1, 256); /* ends at exactly 2^32: one too many */
    send(&s, 0, 2, 0, 0, 100);
    send(&s, 0, 2, 0xFFFFFF00u, 1, 255); /* ends at 2^32 - 1: right, but MO jumps (said once) */
    cs_close_both(&s);
    expect("length", &s, (unsigned[NSEQ]){[MO] = 1, [LEN] = 1});
}

int main(void)
{
    t_name = "seq";
    test_clean();
    test_start();
    test_next();
    test_per_direction();
    test_same();
    test_last();
    test_mo();
    test_midstream_wrap();
    test_hole();
    test_bad_crc();
    test_shape();
    test_tagged();
    test_mo_first();
    test_rsvdulp_zero_len();
    return t_done();
}

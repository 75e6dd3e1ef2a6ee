/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * TCP reassembly (conformance/audit/tcp.c): RFC 9293 3.4 (sequence
 * space modulo 2^32), 3.10.7.4 (segment arrival, out-of-order queueing,
 * retransmissions), RFC 7323 2.3 (window bound).
 *
 * The sink records what comes out: every octet at its offset, every
 * hole, the end.  The property checked throughout: the output is the
 * sender's stream exactly, octet for octet, with the holes exactly where
 * the capture lost octets that were never captured again.
 */
#include "tcp.h"
#include "t.h"

#define STREAM_MAX 200000

typedef struct out {
    uint8_t data[STREAM_MAX];
    uint8_t have[STREAM_MAX]; /* 1 delivered, 2 declared lost */
    uint64_t next;            /* contiguous: the next offset expected */
    unsigned ndata, ngaps, nseg_start, ends, end_rst, conflicts, oow, early, reseg;
    int order_ok;
} out_t;

static out_t o;

static void s_data(void *u, int dir, uint64_t off, const uint8_t *p, uint32_t len, int seg_start, uint64_t frame)
{
    (void)u;
    (void)dir;
    (void)frame;
    if (off != o.next)
        o.order_ok = 0;
    for (uint32_t i = 0; i < len && off + i < STREAM_MAX; i++) {
        o.data[off + i] = p[i];
        o.have[off + i] = 1;
    }
    o.next = off + len;
    o.ndata++;
    o.nseg_start += seg_start != 0;
}

static void s_gap(void *u, int dir, uint64_t off, uint64_t len, uint64_t frame)
{
    (void)u;
    (void)dir;
    (void)frame;
    if (off != o.next)
        o.order_ok = 0;
    for (uint64_t i = 0; i < len && off + i < STREAM_MAX; i++)
        o.have[off + i] = 2;
    o.next = off + len;
    o.ngaps++;
}

static void s_end(void *u, int dir, int rst, uint64_t frame)
{
    (void)u;
    (void)dir;
    (void)frame;
    o.ends++;
    o.end_rst = (unsigned)rst;
}

static uint64_t conflict_off, conflict_len; /* the last conflict's */

static void s_note(void *u, int dir, tcp_note what, uint64_t off, uint64_t len, uint64_t frame)
{
    (void)u;
    (void)dir;
    (void)frame;
    if (what == TCP_NOTE_CONFLICT) {
        o.conflicts++;
        conflict_off = off;
        conflict_len = len;
    } else if (what == TCP_NOTE_OUT_OF_WINDOW)
        o.oow++;
    else if (what == TCP_NOTE_RESEGMENT)
        o.reseg++;
    else
        o.early++;
}

static const tcp_sink sink = {NULL, s_data, s_gap, s_end, s_note};
static uint8_t src[STREAM_MAX];

static void reset(void)
{
    memset(&o, 0, sizeof o);
    o.order_ok = 1;
}

static void fill(uint64_t seed)
{
    for (size_t i = 0; i < STREAM_MAX; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        src[i] = (uint8_t)(seed >> 56);
    }
}

/* Octets [a, b) came out as sent. */
static int same(uint64_t a, uint64_t b)
{
    for (uint64_t i = a; i < b; i++)
        if (o.have[i] != 1 || o.data[i] != src[i])
            return 0;
    return 1;
}

static int lost(uint64_t a, uint64_t b)
{
    for (uint64_t i = a; i < b; i++)
        if (o.have[i] != 2)
            return 0;
    return 1;
}

#define ISN 1000u

static void seg(tcp_dir *t, tcp_budget *b, uint64_t off, uint32_t len)
{
    tcp_dir_segment(t, 0, ISN + (uint32_t)off, src + off, len, len, 0, off, &sink, b);
}

static void test_in_order_and_reorder(void)
{
    tcp_budget b = {.cap = 1 << 20};
    tcp_dir t;
    memset(&t, 0, sizeof t);
    reset();
    tcp_dir_start(&t, ISN);
    seg(&t, &b, 0, 100);
    seg(&t, &b, 200, 100); /* early */
    seg(&t, &b, 300, 50);
    T_EQ(o.next, 100);
    T_EQ(b.used, 150);
    seg(&t, &b, 100, 100); /* fills the gap: 100..350 out */
    T_EQ(o.next, 350);
    T_CHECK(same(0, 350), "stream differs");
    /* 100..200 came after 200..350 was seen: it may be a retransmission,
     * cut as the sender liked, so it does not count as a segment start
     * (FPDU alignment is judged on first transmissions). */
    T_EQ(o.nseg_start, 3);
    T_EQ(o.ngaps, 0);
    T_EQ(b.used, 0);
    T_CHECK(o.order_ok, "out of order delivery");
    tcp_dir_segment(&t, 0, ISN + 350, NULL, 0, 0, 1, 9, &sink, &b);
    T_EQ(o.ends, 1);
    T_EQ(o.end_rst, 0);
    tcp_dir_free(&t, &b);
}

static void test_retransmissions(void)
{
    tcp_budget b = {.cap = 1 << 20};
    tcp_dir t;
    memset(&t, 0, sizeof t);
    reset();
    tcp_dir_start(&t, ISN);
    seg(&t, &b, 0, 1000);
    seg(&t, &b, 0, 1000);   /* identical */
    seg(&t, &b, 500, 700);  /* other boundaries: 500..1000 old, 1000..1200 new */
    T_EQ(o.next, 1200);
    T_EQ(o.conflicts, 0);
    T_EQ(o.nseg_start, 1);  /* the resegmented one does not start at nxt */
    /* A retransmission with other octets: the first copy stays. */
    uint8_t bad[100];
    memcpy(bad, src + 1100, 100);
    bad[50] ^= 0xFF;
    tcp_dir_segment(&t, 0, ISN + 1100, bad, 100, 100, 0, 5, &sink, &b);
    T_EQ(o.conflicts, 1);
    T_CHECK(same(0, 1200), "first copy must stay");
    /* A conflicting overlap in the queue. */
    seg(&t, &b, 2000, 100);
    memcpy(bad, src + 2050, 100);
    bad[10] ^= 1;
    tcp_dir_segment(&t, 0, ISN + 2050, bad, 100, 100, 0, 6, &sink, &b);
    T_EQ(o.conflicts, 2);
    seg(&t, &b, 1200, 800);
    T_EQ(o.next, 2150);
    T_CHECK(same(0, 2060) && o.data[2060] == src[2060] && o.data[2100] == bad[50], "queued copy first, then the new tail");
    T_EQ(t.conflicts, 2);
    tcp_dir_free(&t, &b);
}

/* Reading back (tcp_budget.src): the octets kept to judge
 * retransmissions are read again from the source when a retransmission
 * comes, not copied from the packet as delivered.  The verdicts are
 * those of copying at once; the packet's buffer is not read after the
 * call (it is scribbled over here). */
static uint8_t file[20000];
static int file_fail;
static unsigned file_reads;

static int file_read(void *u, uint64_t off, uint8_t *dst, uint32_t n)
{
    (void)u;
    file_reads++;
    if (file_fail || off + n > sizeof file)
        return -1;
    memcpy(dst, file + off, n);
    return 0;
}

/* [off, off+len) of the stream, from a packet whose payload is at file
 * offset 100 + off. */
static void src_seg(tcp_dir *t, tcp_budget *b, uint64_t off, uint32_t len)
{
    static uint8_t pkt[4000];
    memcpy(file + 100 + off, src + off, len);
    memcpy(pkt, src + off, len);
    b->src.p = pkt;
    b->src.at = 1 + 100 + off;
    tcp_dir_segment(t, 0, ISN + (uint32_t)off, pkt, len, len, 0, off, &sink, b);
    b->src.at = 0;
    memset(pkt, 0xEE, sizeof pkt);
}

static void test_read_back(void)
{
    tcp_budget b = {.cap = 1 << 20, .src = {file_read, NULL, NULL, 0}};
    tcp_dir t, u;
    memset(&t, 0, sizeof t);
    memset(&u, 0, sizeof u);
    reset();
    tcp_dir_start(&t, ISN);
    for (unsigned k = 0; k < 8; k++)
        src_seg(&t, &b, k * 1000u, 1000);
    T_CHECK(same(0, 8000), "delivered as sent");
    T_EQ(file_reads, 0);
    /* Only references within the last TCP_RECENT octets are left. */
    T_CHECK(t.refs->n == 5 && t.refs->list == &b && b.ref_dirs.oldest == &t.refs->node, "%u references", t.refs->n);
    /* A retransmission compares against the octets read back: exactly
     * where they differ. */
    uint8_t bad[600];
    memcpy(bad, src + 7400, 600);
    bad[123] ^= 0x40;
    tcp_dir_segment(&t, 0, ISN + 7400, bad, 600, 600, 0, 9, &sink, &b);
    T_EQ(o.conflicts, 1);
    T_EQ(conflict_off, 7523);
    T_EQ(conflict_len, 8000 - 7523);
    T_CHECK(t.refs->n == 0 && !t.refs->list && !b.ref_dirs.oldest && file_reads >= 5, "compared: all read back");
    tcp_dir_segment(&t, 0, ISN + 4000, src + 4000, 4000, 4000, 0, 10, &sink, &b);
    T_EQ(o.conflicts, 1);

    /* Small segments: at TCP_REFS references they are read back. */
    for (unsigned k = 0; k < 10; k++)
        src_seg(&t, &b, 8000 + k * 100u, 100);
    T_CHECK(t.refs->n >= 1 && t.refs->n <= TCP_REFS, "%u references", t.refs->n);
    tcp_dir_segment(&t, 0, ISN + 8000, src + 8000, 1000, 1000, 0, 11, &sink, &b);
    T_EQ(o.conflicts, 1);

    /* Referenced octets, then octets copied at once (a queued segment
     * drained) over the same places of the ring: in order. */
    src_seg(&t, &b, 9000, 1000);
    src_seg(&t, &b, 10000, 1000);
    seg(&t, &b, 12000, 1200); /* queued; its last 104 octets go where 9000.. went */
    src_seg(&t, &b, 11000, 1000);
    T_CHECK(same(0, 13200), "delivered as sent");
    T_CHECK(!b.ref_dirs.oldest, "read back before the queued octets were copied");
    seg(&t, &b, 9200, 4000);
    T_EQ(t.conflicts, 1);

    /* Octets that cannot be read back are not compared, and counted. */
    src_seg(&t, &b, 13200, 800);
    src_seg(&t, &b, 14000, 200);
    file_fail = 1;
    memcpy(bad, src + 14000, 100);
    bad[5] ^= 1;
    tcp_dir_segment(&t, 0, ISN + 14000, bad, 100, 100, 0, 12, &sink, &b);
    file_fail = 0;
    T_EQ(t.conflicts, 1);
    T_EQ(b.read_failed, 1000);

    /* Two directions listed, one freed: the other is still read back. */
    src_seg(&t, &b, 14200, 800);
    tcp_dir_start(&u, ISN + 50000);
    memcpy(file + 30, src, 500);
    b.src.p = src;
    b.src.at = 1 + 30;
    tcp_dir_segment(&u, 0, ISN + 50000, src, 500, 500, 0, 13, &sink, &b);
    b.src.at = 0;
    T_CHECK(b.ref_dirs.oldest == &t.refs->node && b.ref_dirs.newest == &u.refs->node, "both listed, oldest first");
    tcp_dir_free(&t, &b);
    T_CHECK(b.ref_dirs.oldest == &u.refs->node && !u.refs->node.older, "the freed one left the list");
    tcp_settle_all(&b);
    T_CHECK(!b.ref_dirs.oldest && !b.ref_dirs.newest && u.refs->n == 0, "all read back");
    memset(file, 0, sizeof file);
    tcp_dir_segment(&u, 0, ISN + 50100, src + 100, 300, 300, 0, 14, &sink, &b);
    T_EQ(u.conflicts, 0);
    tcp_dir_free(&u, &b);
}

/* draft-03 7.3: retransmissions of captured octets along the first
 * transmission's boundaries pass; one that starts or ends elsewhere is
 * noted; octets after a hole, or whose boundaries are no longer kept,
 * are not judged. */
static void test_resegment(void)
{
    tcp_budget b = {.cap = 1 << 20};
    tcp_dir t;
    memset(&t, 0, sizeof t);
    reset();
    tcp_dir_start(&t, ISN);
    seg(&t, &b, 0, 100);
    seg(&t, &b, 100, 200);
    seg(&t, &b, 300, 100);
    seg(&t, &b, 100, 200); /* as first sent */
    seg(&t, &b, 0, 300);   /* two first segments as one: both ends are boundaries */
    T_EQ(o.reseg, 0);
    seg(&t, &b, 50, 50);   /* starts inside the first segment */
    T_EQ(o.reseg, 1);
    seg(&t, &b, 100, 250); /* ends inside the third */
    T_EQ(o.reseg, 2);
    seg(&t, &b, 350, 100); /* reaches past what was sent: not judged */
    T_EQ(o.reseg, 2);
    T_EQ(t.resegmented, 2);
    /* After a hole: the octets before it are no longer compared. */
    tcp_dir_segment(&t, 0, ISN + 450, src + 450, 0, 50, 0, 9, &sink, &b); /* cut: 50 lost */
    seg(&t, &b, 500, 100);
    seg(&t, &b, 510, 20);
    T_EQ(o.reseg, 3);      /* after the hole, inside a first segment */
    seg(&t, &b, 0, 50);    /* before the hole */
    T_EQ(o.reseg, 3);
    /* Boundaries older than the kept ones are not judged. */
    for (unsigned k = 0; k < TCP_BND_N; k++)
        seg(&t, &b, 600 + 10 * (uint64_t)k, 10);
    seg(&t, &b, 505, 10);
    T_EQ(o.reseg, 3);
    tcp_dir_free(&t, &b);
}

static void test_wrap(void)
{
    tcp_budget b = {.cap = 1 << 20};
    tcp_dir t;
    memset(&t, 0, sizeof t);
    reset();
    uint32_t isn = 0xFFFFFF00u;
    tcp_dir_start(&t, isn);
    for (uint64_t off = 0; off < 4000; off += 500)
        tcp_dir_segment(&t, 0, isn + (uint32_t)off, src + off, 500, 500, 0, 1, &sink, &b);
    T_EQ(o.next, 4000);
    T_CHECK(same(0, 4000), "stream across the wrap");
    uint64_t off = 0;
    T_CHECK(tcp_dir_offset(&t, isn + 4000u, &off) && off == 4000, "offset of isn + 4000 (past the wrap): %llu",
            (unsigned long long)off);
    T_CHECK(tcp_dir_offset(&t, isn + 10u, &off) && off == 10, "offset of isn + 10 (before the wrap): %llu",
            (unsigned long long)off);
    tcp_dir_free(&t, &b);
}

static void test_out_of_window(void)
{
    tcp_budget b = {.cap = 1 << 20};
    tcp_dir t;
    memset(&t, 0, sizeof t);
    reset();
    tcp_dir_start(&t, ISN);
    seg(&t, &b, 0, 100);
    tcp_dir_segment(&t, 0, ISN + 100 + 0x80000000u, src, 100, 100, 0, 2, &sink, &b);
    tcp_dir_segment(&t, 0, ISN + 100 + TCP_WINDOW_MAX + 1, src, 100, 100, 0, 3, &sink, &b);
    T_EQ(o.oow, 2);
    T_EQ(t.out_of_window, 2);
    T_EQ(o.next, 100);
    T_EQ(b.used, 0);
    seg(&t, &b, 100, 100);
    T_EQ(o.next, 200);
    tcp_dir_free(&t, &b);
}

static void test_holes(void)
{
    tcp_budget b = {.cap = 1 << 20};
    tcp_dir t;
    memset(&t, 0, sizeof t);
    reset();
    tcp_dir_start(&t, ISN);
    seg(&t, &b, 0, 100);
    seg(&t, &b, 300, 100);      /* 100..300 lost */
    tcp_dir_acked(&t, 0, ISN + 50, 7, &sink, &b);
    T_EQ(o.ngaps, 0);           /* the ACK does not reach the missing octets */
    /* An ACK inside the gap: the peer received octets the capture lacks,
     * and the queued data after them shows the whole gap was sent. */
    tcp_dir_acked(&t, 0, ISN + 250, 8, &sink, &b);
    T_EQ(o.ngaps, 1);
    T_EQ(o.next, 400);
    T_CHECK(lost(100, 300) && same(300, 400), "hole where the capture lost octets");
    tcp_dir_acked(&t, 0, ISN + 400, 8, &sink, &b);
    T_EQ(o.ngaps, 1);
    /* Lost at the end: settled at the flush, up to the FIN. */
    tcp_dir_segment(&t, 0, ISN + 500, NULL, 0, 0, 1, 9, &sink, &b);
    T_EQ(o.ends, 0);
    tcp_dir_flush(&t, 0, 10, &sink, &b);
    T_EQ(o.ngaps, 2);
    T_EQ(o.ends, 1);
    T_CHECK(lost(400, 500), "tail hole");
    T_CHECK(o.order_ok, "order");
    tcp_dir_free(&t, &b);

    /* Cut by the snap length: the missing tail is a hole at once. */
    memset(&t, 0, sizeof t);
    reset();
    tcp_dir_start(&t, ISN);
    tcp_dir_segment(&t, 0, ISN, src, 60, 1000, 0, 1, &sink, &b);
    seg(&t, &b, 1000, 100);
    T_EQ(o.next, 1100);
    T_CHECK(same(0, 60) && lost(60, 1000) && same(1000, 1100), "snap-length hole");
    tcp_dir_free(&t, &b);

    /* The peer acknowledged octets the capture never showed, with nothing
     * queued after them: they were sent, and are a hole at once (before
     * the acknowledging segment's own octets: who answered whom stays
     * right). */
    memset(&t, 0, sizeof t);
    reset();
    tcp_dir_start(&t, ISN);
    seg(&t, &b, 0, 100);
    tcp_dir_acked(&t, 0, ISN + 300, 4, &sink, &b);
    T_EQ(o.ngaps, 1);
    T_EQ(o.next, 300);
    T_CHECK(lost(100, 300), "acknowledged, never captured");
    seg(&t, &b, 100, 200); /* captured late after all: a retransmission, ignored */
    T_EQ(o.next, 300);
    tcp_dir_free(&t, &b);

    /* A FIN's or RST's own sequence number (RFC 9293 3.4: it follows every
     * octet sent) shows the octets before it were sent. */
    memset(&t, 0, sizeof t);
    reset();
    tcp_dir_start(&t, ISN);
    seg(&t, &b, 0, 100);
    seg(&t, &b, 150, 50);
    tcp_dir_sent(&t, 0, ISN + 250, 5, &sink, &b);
    T_EQ(o.ngaps, 2);
    T_EQ(o.next, 250);
    T_CHECK(lost(100, 150) && same(150, 200) && lost(200, 250), "the sender's own sequence number");
    tcp_dir_sent(&t, 0, ISN + 240, 6, &sink, &b); /* below what is known: nothing */
    T_EQ(o.ngaps, 2);
    tcp_dir_free(&t, &b);
}

static void test_rst(void)
{
    tcp_budget b = {.cap = 1 << 20};
    tcp_dir t;
    memset(&t, 0, sizeof t);
    reset();
    tcp_dir_start(&t, ISN);
    seg(&t, &b, 0, 100);
    seg(&t, &b, 200, 100);
    tcp_dir_rst(&t, 0, 3, &sink, &b);
    T_EQ(o.ends, 1);
    T_EQ(o.end_rst, 1);
    T_CHECK(lost(100, 200) && same(200, 300), "queued data before the RST");
    seg(&t, &b, 300, 100); /* after the end: ignored */
    T_EQ(o.next, 300);
    T_EQ(b.used, 0);
    tcp_dir_free(&t, &b);
}

static void test_budget(void)
{
    tcp_budget b = {.cap = 1000};
    tcp_dir t;
    memset(&t, 0, sizeof t);
    reset();
    tcp_dir_start(&t, ISN);
    seg(&t, &b, 0, 100);
    for (uint64_t off = 1000; off < 20000; off += 500)
        seg(&t, &b, off, 500); /* 100..1000 never comes */
    T_CHECK(b.peak <= 1000, "budget exceeded: peak %zu", b.peak);
    T_CHECK(o.early >= 1 && b.early_holes >= 1, "early hole not reported");
    T_CHECK(lost(100, 1000) && same(1000, 20000), "stream after the forced hole");
    tcp_dir_free(&t, &b);
    T_EQ(b.used, 0);
}

/* Random segmentation, reordering, duplication with other boundaries,
 * conflicting copies never, losses: the output is the stream, with holes
 * exactly where no copy of an octet was captured. */
static void test_random(void)
{
    uint64_t x = 0x9E3779B97F4A7C15ull;
#define RND() (x ^= x << 13, x ^= x >> 7, x ^= x << 17, x)
    for (int round = 0; round < 300; round++) {
        fill(RND());
        tcp_budget b = {.cap = (size_t)(round % 3 == 0 ? 3000 : 1 << 20)};
        tcp_dir t;
        memset(&t, 0, sizeof t);
        reset();
        uint32_t isn = (uint32_t)RND();
        tcp_dir_start(&t, isn);
        uint64_t total = 2000 + RND() % 30000;
        static uint8_t seen[STREAM_MAX];
        memset(seen, 0, total);
        /* segments, some sent twice with other boundaries, some lost */
        static struct { uint64_t off; uint32_t len; } q[4000];
        unsigned nq = 0;
        for (uint64_t off = 0; off < total && nq < 3000;) {
            uint32_t len = (uint32_t)(1 + RND() % 1460);
            if (off + len > total)
                len = (uint32_t)(total - off);
            if (RND() % 10 != 0) {
                q[nq].off = off;
                q[nq++].len = len;
            }
            if (RND() % 8 == 0 && off > 0) {
                uint64_t a = off - RND() % (off < 3000 ? off : 3000);
                q[nq].off = a;
                q[nq++].len = (uint32_t)(off + len - a);
            }
            off += len;
        }
        /* local reordering */
        for (unsigned i = 0; i + 1 < nq; i++)
            if (RND() % 4 == 0) {
                uint64_t o1 = q[i].off;
                uint32_t l1 = q[i].len;
                q[i] = q[i + 1];
                q[i + 1].off = o1;
                q[i + 1].len = l1;
            }
        for (unsigned i = 0; i < nq; i++) {
            tcp_dir_segment(&t, 0, isn + (uint32_t)q[i].off, src + q[i].off, q[i].len, q[i].len, 0, i, &sink, &b);
            for (uint64_t k = q[i].off; k < q[i].off + q[i].len; k++)
                seen[k] = 1;
        }
        tcp_dir_segment(&t, 0, isn + (uint32_t)total, NULL, 0, 0, 1, nq, &sink, &b);
        tcp_dir_flush(&t, 0, nq, &sink, &b);
        unsigned bad = 0;
        for (uint64_t k = 0; k < total; k++) {
            /* An octet captured only after a hole was declared over it
             * (budget) is lost; otherwise captured means delivered. */
            if (o.have[k] == 1 && o.data[k] != src[k])
                bad++;
            if (!seen[k] && o.have[k] != 2)
                bad++;
            if (seen[k] && o.have[k] == 0)
                bad++;
            if (seen[k] && o.have[k] == 2 && b.cap > 10000)
                bad++;
        }
        T_CHECK(bad == 0, "round %d: %u octets wrong (total %llu, budget %zu)", round, bad, (unsigned long long)total,
                b.cap);
        T_CHECK(o.order_ok && o.next == total && o.ends == 1 && o.conflicts == 0, "round %d: order %d next %llu ends %u",
                round, o.order_ok, (unsigned long long)o.next, o.ends);
        T_CHECK(b.peak <= b.cap, "round %d: budget %zu exceeded (%zu)", round, b.cap, b.peak);
        tcp_dir_free(&t, &b);
        T_EQ(b.used, 0);
    }
}

int main(void)
{
    t_name = "tcp";
    fill(1);
    test_in_order_and_reorder();
    test_retransmissions();
    test_read_back();
    test_resegment();
    test_wrap();
    test_out_of_window();
    test_holes();
    test_rst();
    test_budget();
    test_random();
    return t_done();
}

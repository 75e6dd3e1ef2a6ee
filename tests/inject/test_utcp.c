/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of utcp, mpa-inject's userspace TCP state machine
 * (injector/inject/utcp.h), named after the RFC 9293 / RFC 6298 clause
 * each one checks.  Segments are fed by hand or passed between two utcp
 * instances through a "wire" the test controls (loss, reordering,
 * duplication); time is an explicit millisecond counter.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "t.h"
#include "utcp.h"

static utcp_seg seg(uint32_t seq, uint32_t ack, uint8_t flags, uint16_t win, const void *data, size_t len)
{
    utcp_seg s;
    memset(&s, 0, sizeof s);
    s.seq = seq;
    s.ack = ack;
    s.flags = flags;
    s.win = win;
    s.data = data;
    s.len = len;
    return s;
}

static utcp *mk(uint32_t isn)
{
    utcp_cfg c;
    memset(&c, 0, sizeof c);
    c.isn = isn;
    c.mss = 1000;
    c.rto_ms = 200;
    c.max_retx = 4;
    utcp *u = utcp_new(&c);
    if (!u) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return u;
}

/* Drains u's output; returns how many segments; the last one in *last. */
static int drain(utcp *u, int64_t now, utcp_seg *last)
{
    int n = 0;
    utcp_seg s;
    while (utcp_poll_out(u, now, &s)) {
        n++;
        if (last)
            *last = s;
    }
    return n;
}

/* A wire between two utcps: every segment a sends goes to b (payload
 * copied, since utcp's scratch buffer is reused). */
typedef struct wire {
    int drop_next; /* drop this many of the next data segments */
    int dropped;
} wire;

static int pass(utcp *from, utcp *to, int64_t now, wire *w)
{
    int n = 0;
    utcp_seg s;
    uint8_t buf[UTCP_SEG_MAX];
    while (utcp_poll_out(from, now, &s)) {
        n++;
        if (w && w->drop_next && s.len) {
            w->drop_next--;
            w->dropped++;
            continue;
        }
        if (s.len)
            memcpy(buf, s.data, s.len);
        s.data = buf;
        utcp_input(to, &s, now);
    }
    return n;
}

static void settle(utcp *a, utcp *b, int64_t now)
{
    for (int i = 0; i < 20; i++)
        if (!pass(a, b, now, NULL) && !pass(b, a, now, NULL))
            break;
}

/* Sends [seq, seq+len) from a's buffer straight to b. */
static void data_to(utcp *a, utcp *b, uint32_t seq, size_t len, int64_t now)
{
    utcp_seg s;
    uint8_t buf[UTCP_SEG_MAX];
    if (utcp_data_seg(a, seq, len, now, &s) != 0) {
        T_CHECK(0, "utcp_data_seg(%u, %zu) refused", seq, len);
        return;
    }
    memcpy(buf, s.data, s.len);
    s.data = buf;
    utcp_input(b, &s, now);
}

static void open_pair(utcp **a, utcp **b, uint32_t isn_a, uint32_t isn_b)
{
    *a = mk(isn_a);
    *b = mk(isn_b);
    utcp_listen(*b);
    utcp_connect(*a, 0);
    settle(*a, *b, 0);
}

/* RFC 9293 3.5: the active side's three-way handshake, segment by segment. */
static void test_3_5_active_open(void)
{
    utcp *u = mk(1000);
    utcp_seg s;
    T_EQ(utcp_connect(u, 0), 0);
    T_EQ(utcp_poll_out(u, 0, &s), 1);
    T_EQ(s.flags, UTCP_SYN);
    T_EQ(s.seq, 1000);
    T_EQ(s.mss, 1000);
    T_EQ(utcp_poll_out(u, 0, &s), 0);
    T_EQ(utcp_get_state(u), UTCP_SYN_SENT);
    utcp_seg sa = seg(5000, 1001, UTCP_SYN | UTCP_ACK, 30000, NULL, 0);
    sa.mss = 536;
    T_EQ(utcp_input(u, &sa, 10), 1);
    T_EQ(utcp_get_state(u), UTCP_ESTABLISHED);
    T_EQ(utcp_poll_out(u, 10, &s), 1);
    T_EQ(s.flags, UTCP_ACK);
    T_EQ(s.seq, 1001);
    T_EQ(s.ack, 5001);
    T_EQ(utcp_snd_wnd(u), 30000);
    T_EQ(utcp_send_mss(u), 536); /* the smaller of the two MSS */
    T_EQ(utcp_next_timer(u, 10), -1); /* the SYN's timer stopped */
    T_EQ(utcp_connect(u, 10), -1);
    utcp_free(u);
}

/* RFC 9293 3.5: the passive side; a retransmitted SYN gets the SYN-ACK
 * again; the ACK completes. */
static void test_3_5_passive_open(void)
{
    utcp *u = mk(7);
    utcp_seg s;
    T_EQ(utcp_listen(u), 0);
    T_EQ(utcp_poll_out(u, 0, &s), 0);
    utcp_seg syn = seg(0xABCD, 0, UTCP_SYN, 20000, NULL, 0);
    T_EQ(utcp_input(u, &syn, 0), 1);
    T_EQ(utcp_get_state(u), UTCP_SYN_RCVD);
    T_EQ(utcp_poll_out(u, 0, &s), 1);
    T_EQ(s.flags, UTCP_SYN | UTCP_ACK);
    T_EQ(s.seq, 7);
    T_EQ(s.ack, 0xABCE);
    T_EQ(s.mss, 1000);
    T_EQ(utcp_send_mss(u), 536); /* no MSS option: 536 */
    utcp_input(u, &syn, 5);
    T_EQ(utcp_poll_out(u, 5, &s), 1);
    T_EQ(s.flags, UTCP_SYN | UTCP_ACK);
    utcp_seg ack = seg(0xABCE, 8, UTCP_ACK, 20000, NULL, 0);
    T_EQ(utcp_input(u, &ack, 6), 1);
    T_EQ(utcp_get_state(u), UTCP_ESTABLISHED);
    T_EQ(utcp_poll_out(u, 6, &s), 0);
    utcp_free(u);
}

/* RFC 9293 3.10.7.2: LISTEN answers an ACK with a RST at SEG.ACK and
 * ignores a RST. */
static void test_3_10_7_2_listen_ack_rst(void)
{
    utcp *u = mk(7);
    utcp_seg s;
    utcp_listen(u);
    utcp_seg ack = seg(1, 4242, UTCP_ACK, 100, NULL, 0);
    T_EQ(utcp_input(u, &ack, 0), 0);
    T_EQ(utcp_poll_out(u, 0, &s), 1);
    T_EQ(s.flags, UTCP_RST);
    T_EQ(s.seq, 4242);
    utcp_seg rst = seg(1, 0, UTCP_RST, 0, NULL, 0);
    T_EQ(utcp_input(u, &rst, 0), 0);
    T_EQ(utcp_poll_out(u, 0, &s), 0);
    T_EQ(utcp_get_state(u), UTCP_LISTEN);
    utcp_free(u);
}

/* RFC 9293 3.10.7.3: SYN-SENT: an unacceptable ACK gets a RST; a RST
 * without an acceptable ACK is ignored; with one it resets. */
static void test_3_10_7_3_syn_sent(void)
{
    utcp *u = mk(100);
    utcp_seg s;
    utcp_connect(u, 0);
    drain(u, 0, NULL);
    utcp_seg bad = seg(9, 555, UTCP_SYN | UTCP_ACK, 100, NULL, 0);
    T_EQ(utcp_input(u, &bad, 1), 0);
    T_EQ(utcp_poll_out(u, 1, &s), 1);
    T_EQ(s.flags, UTCP_RST);
    T_EQ(s.seq, 555);
    T_EQ(utcp_get_state(u), UTCP_SYN_SENT);
    utcp_seg rst = seg(9, 0, UTCP_RST, 0, NULL, 0);
    T_EQ(utcp_input(u, &rst, 1), 0);
    T_EQ(utcp_get_state(u), UTCP_SYN_SENT);
    utcp_seg rsta = seg(0, 101, UTCP_RST | UTCP_ACK, 0, NULL, 0);
    T_EQ(utcp_input(u, &rsta, 1), 1);
    T_EQ(utcp_get_state(u), UTCP_CLOSED);
    T_EQ(utcp_get_end(u), UTCP_END_RST_RCVD);
    utcp_free(u);
}

/* RFC 9293 3.10.7.3 last case: simultaneous open. */
static void test_3_10_7_3_simultaneous_open(void)
{
    utcp *a = mk(10), *b = mk(20);
    utcp_connect(a, 0);
    utcp_connect(b, 0);
    utcp_seg sa, sb;
    T_EQ(utcp_poll_out(a, 0, &sa), 1);
    T_EQ(utcp_poll_out(b, 0, &sb), 1);
    utcp_input(b, &sa, 0);
    utcp_input(a, &sb, 0);
    T_EQ(utcp_get_state(a), UTCP_SYN_RCVD);
    settle(a, b, 1);
    T_EQ(utcp_get_state(a), UTCP_ESTABLISHED);
    T_EQ(utcp_get_state(b), UTCP_ESTABLISHED);
    utcp_free(a);
    utcp_free(b);
}

/* RFC 9293 3.10.7.4 (step 7): in-order data is readable at once and
 * acknowledged; the window shrinks by what is held unread. */
static void test_3_10_7_4_in_order(void)
{
    utcp *a, *b;
    open_pair(&a, &b, 1, 1000001);
    const uint8_t msg[] = "hello, device";
    T_EQ(utcp_write(a, msg, sizeof msg), sizeof msg);
    data_to(a, b, 2, sizeof msg, 1);
    T_EQ(utcp_readable(b), sizeof msg);
    utcp_seg s;
    T_EQ(utcp_poll_out(b, 1, &s), 1);
    T_EQ(s.flags, UTCP_ACK);
    T_EQ(s.ack, 2 + sizeof msg);
    T_EQ(s.win, UTCP_RCV_BUF - sizeof msg);
    uint8_t got[64];
    T_EQ(utcp_read(b, got, sizeof got), sizeof msg);
    T_MEMEQ(got, msg, sizeof msg);
    utcp_input(a, &s, 2);
    T_EQ(utcp_snd_una(a), 2 + sizeof msg);
    T_CHECK(utcp_all_acked(a), "all acked");
    T_EQ(utcp_next_timer(a, 2), -1);
    utcp_free(a);
    utcp_free(b);
}

/* RFC 9293 3.10.7.4: out-of-order octets are held, the ACK stays at
 * the gap (a duplicate ACK), and the gap's arrival delivers all. */
static void test_3_10_7_4_out_of_order(void)
{
    utcp *a, *b;
    open_pair(&a, &b, 1, 500);
    uint8_t msg[300];
    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t)(i * 7);
    utcp_write(a, msg, sizeof msg);
    utcp_seg s;
    data_to(a, b, 2 + 200, 100, 1);
    data_to(a, b, 2 + 100, 100, 1);
    T_EQ(utcp_readable(b), 0);
    T_EQ(drain(b, 1, &s), 1);
    T_EQ(s.ack, 2);
    T_EQ(utcp_get_stats(b)->segs_ooo, 2);
    data_to(a, b, 2, 100, 2);
    T_EQ(utcp_readable(b), 300);
    T_EQ(drain(b, 2, &s), 1);
    T_EQ(s.ack, 302);
    uint8_t got[300];
    T_EQ(utcp_read(b, got, 300), 300);
    T_MEMEQ(got, msg, 300);
    utcp_free(a);
    utcp_free(b);
}

/* RFC 9293 3.10.7.4: duplicates (whole, partly overlapping, held out of
 * order twice) are delivered once; the first copy of an octet wins. */
static void test_3_10_7_4_duplicates(void)
{
    utcp *b = mk(1);
    utcp_listen(b);
    utcp_seg syn = seg(99, 0, UTCP_SYN, 65535, NULL, 0);
    utcp_input(b, &syn, 0);
    drain(b, 0, NULL);
    utcp_seg ack = seg(100, 2, UTCP_ACK, 65535, NULL, 0);
    utcp_input(b, &ack, 0);
    T_EQ(utcp_get_state(b), UTCP_ESTABLISHED);
    utcp_seg d1 = seg(100, 2, UTCP_ACK, 65535, "abcdef", 6);
    utcp_seg d1x = seg(100, 2, UTCP_ACK, 65535, "XXXXXX", 6);
    utcp_seg d2 = seg(110, 2, UTCP_ACK, 65535, "klmn", 4);
    utcp_seg d2x = seg(109, 2, UTCP_ACK, 65535, "jKLMNo", 6);
    utcp_seg d3 = seg(106, 2, UTCP_ACK, 65535, "ghi", 3);
    T_EQ(utcp_input(b, &d1, 1), 1);
    T_EQ(utcp_input(b, &d1x, 1), 0); /* wholly old: unacceptable, ACKed */
    T_EQ(utcp_input(b, &d2, 1), 1);
    T_EQ(utcp_input(b, &d2x, 1), 1);
    T_EQ(utcp_input(b, &d3, 1), 1);
    uint8_t got[32];
    size_t n = utcp_read(b, got, sizeof got);
    T_EQ(n, 15);
    T_MEMEQ(got, "abcdefghijklmno", 15);
    T_EQ(utcp_get_stats(b)->octets_dup, 6 + 4);
    utcp_seg s;
    T_EQ(drain(b, 1, &s), 1);
    T_EQ(s.ack, 115);
    utcp_free(b);
}

/* RFC 9293 3.10.7.4 acceptability with our window: octets past the
 * advertised window are not taken; a full ring advertises 0, and
 * reading opens it again with a window update. */
static void test_3_10_7_4_receive_window(void)
{
    utcp *a, *b;
    open_pair(&a, &b, 1, 1);
    static uint8_t big[70000];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i >> 3);
    T_EQ(utcp_write(a, big, sizeof big), sizeof big);
    uint32_t seq = 2;
    size_t sent = 0;
    while (sent < sizeof big) {
        size_t n = sizeof big - sent < 1000 ? sizeof big - sent : 1000;
        data_to(a, b, seq, n, 1);
        seq += (uint32_t)n;
        sent += n;
    }
    T_EQ(utcp_readable(b), UTCP_RCV_BUF);
    utcp_seg s;
    drain(b, 1, &s);
    T_EQ(s.win, 0);
    T_EQ(s.ack, 2 + UTCP_RCV_BUF);
    uint8_t got[30000];
    T_EQ(utcp_read(b, got, sizeof got), sizeof got);
    T_MEMEQ(got, big, sizeof got);
    T_EQ(drain(b, 2, &s), 1); /* the window update */
    T_EQ(s.win, 30000);
    utcp_free(a);
    utcp_free(b);
}

/* RFC 9293 3.8.6: the peer's window is respected; a zero window is
 * probed with an old sequence number after the RTO, with backoff, and
 * the update stops the probes. */
static void test_3_8_6_send_window(void)
{
    utcp *u = mk(1);
    utcp_connect(u, 0);
    drain(u, 0, NULL);
    utcp_seg sa = seg(50, 2, UTCP_SYN | UTCP_ACK, 100, NULL, 0);
    utcp_input(u, &sa, 0);
    drain(u, 0, NULL);
    uint8_t x[300] = {0};
    utcp_write(u, x, sizeof x);
    T_CHECK(utcp_window_admits(u, 2 + 100, 0), "window of 100 admits 100");
    T_CHECK(!utcp_window_admits(u, 2 + 101, 0), "window of 100 does not admit 101");
    T_EQ(utcp_next_timer(u, 0), 200); /* nothing outstanding: a probe is armed */
    utcp_seg s;
    T_EQ(utcp_data_seg(u, 2, 100, 0, &s), 0);
    utcp_seg zero = seg(51, 102, UTCP_ACK, 0, NULL, 0);
    utcp_input(u, &zero, 10);
    T_EQ(utcp_snd_wnd(u), 0);
    T_CHECK(!utcp_window_admits(u, 103, 10), "zero window");
    T_EQ(utcp_next_timer(u, 10), 200);
    T_EQ(utcp_poll_out(u, 199, &s), 0);
    T_EQ(utcp_poll_out(u, 200, &s), 1);
    T_EQ(s.seq, 101); /* SND.UNA - 1 */
    T_EQ(s.len, 0);
    T_EQ(utcp_next_timer(u, 200), 600); /* backed off */
    utcp_seg upd = seg(51, 102, UTCP_ACK, 500, NULL, 0);
    utcp_input(u, &upd, 300);
    T_CHECK(utcp_window_admits(u, 302, 300), "window reopened");
    T_EQ(utcp_next_timer(u, 300), -1);
    T_EQ(utcp_get_stats(u)->probes, 1);
    /* An old segment does not move the window back (SND.WL1/WL2). */
    utcp_seg old = seg(50, 102, UTCP_ACK, 0, NULL, 0);
    utcp_input(u, &old, 301);
    T_EQ(utcp_snd_wnd(u), 500);
    utcp_free(u);
}

/* RFC 6298 5: retransmission after the RTO, the timer doubled each time
 * (5.5), given up after max_retx; a new ACK restores the base RTO. */
static void test_6298_retransmission(void)
{
    utcp *a, *b;
    open_pair(&a, &b, 1, 1);
    uint8_t x[40];
    memset(x, 'r', sizeof x);
    utcp_write(a, x, sizeof x);
    utcp_seg s;
    T_EQ(utcp_data_seg(a, 2, 40, 1000, &s), 0); /* lost */
    T_EQ(utcp_next_timer(a, 1000), 1200);
    T_EQ(utcp_poll_out(a, 1199, &s), 0);
    T_EQ(utcp_poll_out(a, 1200, &s), 1);
    T_EQ(s.seq, 2);
    T_EQ(s.len, 40);
    T_EQ(utcp_retx_count(a), 1);
    T_EQ(utcp_next_timer(a, 1200), 1600);
    T_EQ(utcp_poll_out(a, 1600, &s), 1); /* lost again */
    T_EQ(utcp_next_timer(a, 1600), 2400);
    T_EQ(utcp_poll_out(a, 2400, &s), 1);
    uint8_t buf[64];
    memcpy(buf, s.data, s.len);
    s.data = buf;
    utcp_input(b, &s, 2400);
    T_EQ(utcp_readable(b), 40);
    pass(b, a, 2401, NULL);
    T_CHECK(utcp_all_acked(a), "acked after the retransmission");
    T_EQ(utcp_retx_count(a), 0);
    T_EQ(utcp_get_stats(a)->retransmits, 3);
    /* Give up: 4 retransmissions, then the fifth timeout ends it. */
    utcp_write(a, x, 1);
    T_EQ(utcp_data_seg(a, 42, 1, 3000, &s), 0);
    int64_t t = 3000;
    for (int i = 0; i < 4; i++) {
        t = utcp_next_timer(a, t);
        T_EQ(utcp_poll_out(a, t, &s), 1);
    }
    t = utcp_next_timer(a, t);
    T_EQ(t, 3000 + 200 + 400 + 800 + 1600 + 3200);
    T_EQ(utcp_poll_out(a, t, &s), 0);
    T_EQ(utcp_get_state(a), UTCP_CLOSED);
    T_EQ(utcp_get_end(a), UTCP_END_TIMEOUT);
    utcp_free(a);
    utcp_free(b);
}

/* RFC 6298 5.4 + go-back-N: after a timeout, every ACK that moves
 * SND.UNA short of what was outstanding brings the next retransmission;
 * a retransmission is one MSS from SND.UNA whatever the original cuts. */
static void test_6298_go_back(void)
{
    utcp *a, *b;
    open_pair(&a, &b, 1, 1);
    uint8_t x[2500];
    for (size_t i = 0; i < sizeof x; i++)
        x[i] = (uint8_t)i;
    utcp_write(a, x, sizeof x);
    utcp_seg s;
    wire w = {0};
    utcp_data_seg(a, 2, 300, 0, &s);    /* lost */
    utcp_data_seg(a, 302, 1000, 0, &s); /* lost */
    data_to(a, b, 1302, 1000, 0);
    data_to(a, b, 2302, 200, 0);
    pass(b, a, 0, NULL); /* duplicate ACKs of 2 */
    T_EQ(utcp_snd_una(a), 2);
    /* The timeout: one MSS from 2. */
    T_EQ(utcp_poll_out(a, 200, &s), 1);
    T_EQ(s.seq, 2);
    T_EQ(s.len, 1000);
    uint8_t buf[UTCP_SEG_MAX];
    memcpy(buf, s.data, s.len);
    s.data = buf;
    utcp_input(b, &s, 200);
    pass(b, a, 201, &w); /* ACK 1002: the next one goes at once */
    T_EQ(utcp_snd_una(a), 1002);
    T_EQ(utcp_poll_out(a, 201, &s), 1);
    T_EQ(s.seq, 1002);
    T_EQ(s.len, 1000);
    memcpy(buf, s.data, s.len);
    s.data = buf;
    utcp_input(b, &s, 201);
    pass(b, a, 202, NULL);
    T_CHECK(utcp_all_acked(a), "everything acked, snd_una %u", utcp_snd_una(a));
    uint8_t got[2500];
    T_EQ(utcp_read(b, got, sizeof got), 2500);
    T_MEMEQ(got, x, 2500);
    utcp_free(a);
    utcp_free(b);
}

/* RFC 9293 3.6: FIN both ways; ours after all data, retransmitted on
 * timeout, its ACK moves FIN-WAIT-1 to FIN-WAIT-2; the peer's FIN is
 * reported after its data, and only once the gap before it is filled. */
static void test_3_6_fin(void)
{
    utcp *a, *b;
    open_pair(&a, &b, 1, 1000);
    utcp_write(a, (const uint8_t *)"abc", 3);
    utcp_seg s;
    data_to(a, b, 2, 3, 0);
    T_EQ(utcp_close(a, 0), 0);
    T_EQ(utcp_close(a, 0), -1);
    T_EQ(utcp_write(a, (const uint8_t *)"z", 1), 0);
    T_EQ(utcp_poll_out(a, 0, &s), 1);
    T_EQ(s.flags, UTCP_FIN | UTCP_ACK);
    T_EQ(s.seq, 5);
    /* lost; the timer resends it */
    T_EQ(utcp_poll_out(a, 199, &s), 0);
    T_EQ(utcp_poll_out(a, 200, &s), 1);
    T_CHECK(s.flags & UTCP_FIN, "FIN retransmitted (flags %x)", s.flags);
    T_EQ(s.seq, 2); /* the data was not acked yet: data + FIN */
    T_EQ(s.len, 3);
    utcp_input(b, &s, 200);
    T_EQ(utcp_get_state(b), UTCP_CLOSE_WAIT);
    T_EQ(utcp_readable(b), 3);
    T_CHECK(!utcp_fin_received(b), "FIN after the data");
    uint8_t got[8];
    utcp_read(b, got, sizeof got);
    T_CHECK(utcp_fin_received(b), "FIN reported once the data is read");
    pass(b, a, 201, NULL);
    T_EQ(utcp_get_state(a), UTCP_FIN_WAIT_2);
    /* b's FIN arrives before its last data: held until the gap fills. */
    utcp_write(b, (const uint8_t *)"0123456789", 10);
    utcp_close(b, 202);
    utcp_seg d1, d2, fin;
    uint8_t b1[8], b2[8];
    utcp_data_seg(b, 1001, 5, 202, &d1);
    memcpy(b1, d1.data, 5);
    d1.data = b1;
    utcp_data_seg(b, 1006, 5, 202, &d2);
    memcpy(b2, d2.data, 5);
    d2.data = b2;
    T_EQ(utcp_poll_out(b, 202, &fin), 1);
    T_EQ(fin.seq, 1011);
    T_EQ(fin.flags, UTCP_FIN | UTCP_ACK);
    utcp_input(a, &fin, 203);
    utcp_input(a, &d2, 203);
    T_CHECK(!utcp_fin_received(a), "FIN beyond a gap is not reported");
    T_EQ(utcp_get_state(a), UTCP_FIN_WAIT_2);
    utcp_input(a, &d1, 204);
    T_EQ(utcp_get_state(a), UTCP_TIME_WAIT);
    T_EQ(utcp_read(a, got, sizeof got), 8);
    T_CHECK(!utcp_fin_received(a), "2 octets unread");
    T_EQ(utcp_read(a, got, sizeof got), 2);
    T_CHECK(utcp_fin_received(a), "FIN");
    pass(a, b, 205, NULL);
    T_EQ(utcp_get_state(b), UTCP_CLOSED);
    T_EQ(utcp_get_end(b), UTCP_END_CLOSED);
    utcp_free(a);
    utcp_free(b);
}

/* RFC 9293 3.10.7.4 step 2 (with RFC 793's window check): a RST in the
 * receive window resets, one outside is ignored and answered with an
 * ACK; data that came before it stays readable. */
static void test_3_10_7_4_rst(void)
{
    utcp *a, *b;
    open_pair(&a, &b, 1, 1);
    utcp_write(b, (const uint8_t *)"data", 4);
    data_to(b, a, 2, 4, 1);
    drain(a, 1, NULL);
    utcp_seg s;
    utcp_seg far = seg(2 + 4 + 70000, 0, UTCP_RST, 0, NULL, 0);
    T_EQ(utcp_input(a, &far, 2), 0);
    T_EQ(utcp_get_state(a), UTCP_ESTABLISHED);
    T_EQ(utcp_poll_out(a, 2, &s), 0); /* no answer to a RST */
    utcp_seg in = seg(2 + 4 + 100, 0, UTCP_RST, 0, NULL, 0);
    T_EQ(utcp_input(a, &in, 3), 1);
    T_EQ(utcp_get_state(a), UTCP_CLOSED);
    T_EQ(utcp_get_end(a), UTCP_END_RST_RCVD);
    T_EQ(utcp_readable(a), 4);
    T_EQ(utcp_poll_out(a, 3, &s), 0);
    T_EQ(utcp_next_timer(a, 3), -1);
    utcp_free(a);
    utcp_free(b);
}

/* RFC 5961 4.2: a SYN in the window of a synchronized connection gets
 * an ACK and changes nothing. */
static void test_5961_4_2_syn_in_window(void)
{
    utcp *a, *b;
    open_pair(&a, &b, 1, 1);
    utcp_seg syn = seg(10, 0, UTCP_SYN, 100, NULL, 0);
    T_EQ(utcp_input(a, &syn, 1), 0);
    utcp_seg s;
    T_EQ(utcp_poll_out(a, 1, &s), 1);
    T_EQ(s.flags, UTCP_ACK);
    T_EQ(s.ack, 2);
    T_EQ(utcp_get_state(a), UTCP_ESTABLISHED);
    utcp_free(a);
    utcp_free(b);
}

/* RFC 9293 3.10.7.4 step 5: an ACK for something never sent gets an
 * ACK and is otherwise dropped. */
static void test_3_10_7_4_ack_too_far(void)
{
    utcp *a, *b;
    open_pair(&a, &b, 1, 1);
    utcp_seg bad = seg(2, 500, UTCP_ACK, 100, "x", 1);
    T_EQ(utcp_input(a, &bad, 1), 0);
    T_EQ(utcp_readable(a), 0);
    T_EQ(utcp_snd_una(a), 2);
    utcp_seg s;
    T_EQ(utcp_poll_out(a, 1, &s), 1);
    T_EQ(s.ack, 2);
    utcp_free(a);
    utcp_free(b);
}

/* RFC 9293 3.10.1 ABORT: RST+ACK at SND.NXT; afterwards, a segment for
 * the dead connection is answered with a RST (3.10.7.1). */
static void test_3_10_1_abort(void)
{
    utcp *a, *b;
    open_pair(&a, &b, 1, 77);
    utcp_write(a, (const uint8_t *)"12345", 5);
    utcp_seg s;
    utcp_data_seg(a, 2, 5, 0, &s);
    T_EQ(utcp_abort(a, &s), 0);
    T_EQ(s.flags, UTCP_RST | UTCP_ACK);
    T_EQ(s.seq, 7);
    T_EQ(s.ack, 78);
    T_EQ(utcp_get_end(a), UTCP_END_RST_SENT);
    T_EQ(utcp_abort(a, &s), -1);
    T_EQ(utcp_poll_out(a, 1, &s), 0);
    utcp_seg late = seg(78, 7, UTCP_ACK | UTCP_PSH, 100, "late", 4);
    T_EQ(utcp_input(a, &late, 2), 0);
    T_EQ(utcp_poll_out(a, 2, &s), 1);
    T_EQ(s.flags, UTCP_RST);
    T_EQ(s.seq, 7);
    utcp_free(a);
    utcp_free(b);
}

/* The injector's own use: any buffered range can be sent again, in any
 * order, once acknowledged too; ranges not in the buffer are refused. */
static void test_data_seg_ranges(void)
{
    utcp *a, *b;
    open_pair(&a, &b, 1, 1);
    utcp_seg s;
    T_EQ(utcp_data_seg(a, 2, 1, 0, &s), -1); /* nothing written */
    utcp_write(a, (const uint8_t *)"abcdef", 6);
    T_EQ(utcp_data_seg(a, 2, 7, 0, &s), -1);
    T_EQ(utcp_data_seg(a, 1, 2, 0, &s), -1); /* the SYN's number */
    T_EQ(utcp_data_seg(a, 2, 0, 0, &s), -1);
    T_EQ(utcp_data_seg(a, 5, 3, 0, &s), 0);
    T_MEMEQ(s.data, "def", 3);
    T_EQ(s.flags, UTCP_ACK | UTCP_PSH);
    T_EQ(utcp_data_seg(a, 2, 3, 0, &s), 0);
    T_MEMEQ(s.data, "abc", 3);
    T_EQ(utcp_data_seg(a, 2, 6, 0, &s), 0);
    utcp_input(b, &s, 0);
    pass(b, a, 1, NULL);
    T_CHECK(utcp_all_acked(a), "acked");
    T_EQ(utcp_data_seg(a, 3, 2, 2, &s), 0); /* an old duplicate */
    T_MEMEQ(s.data, "bc", 2);
    T_EQ(utcp_next_timer(a, 2), -1); /* nothing outstanding: no timer */
    utcp_free(a);
    utcp_free(b);
}

/* RFC 9293 3.4: sequence numbers wrap at 2^32, both directions, with
 * reordering across the wrap. */
static void test_3_4_wrap(void)
{
    utcp *a, *b;
    open_pair(&a, &b, 0xFFFFFF00u, 0xFFFFFFF0u);
    T_EQ(utcp_get_state(a), UTCP_ESTABLISHED);
    T_EQ(utcp_get_state(b), UTCP_ESTABLISHED);
    uint8_t x[1000];
    for (size_t i = 0; i < sizeof x; i++)
        x[i] = (uint8_t)(i * 13 + 1);
    utcp_write(a, x, sizeof x);
    utcp_write(b, x, sizeof x);
    uint32_t sa = 0xFFFFFF01u, sb = 0xFFFFFFF1u;
    /* a -> b: last half first across the wrap */
    data_to(a, b, sa + 500, 500, 1);
    data_to(a, b, sa, 500, 1);
    /* b -> a: 100-octet pieces, reversed */
    for (int k = 9; k >= 0; k--)
        data_to(b, a, sb + (uint32_t)k * 100, 100, 1);
    settle(a, b, 2);
    uint8_t got[1000];
    T_EQ(utcp_read(b, got, sizeof got), 1000);
    T_MEMEQ(got, x, 1000);
    T_EQ(utcp_read(a, got, sizeof got), 1000);
    T_MEMEQ(got, x, 1000);
    T_CHECK(utcp_all_acked(a), "a acked across the wrap");
    T_CHECK(utcp_all_acked(b), "b acked across the wrap");
    T_EQ(utcp_snd_una(a), 0xFFFFFF01u + 1000u);
    utcp_close(a, 3);
    utcp_close(b, 3);
    settle(a, b, 3);
    T_EQ(utcp_get_state(a), UTCP_TIME_WAIT); /* simultaneous close: both */
    T_EQ(utcp_get_state(b), UTCP_TIME_WAIT);
    T_CHECK(utcp_fin_received(a) && utcp_fin_received(b), "both FINs");
    utcp_free(a);
    utcp_free(b);
}

/* RFC 9293 3.5: a lost SYN is sent again after the RTO. */
static void test_3_5_syn_retransmitted(void)
{
    utcp *a = mk(5), *b = mk(9);
    utcp_listen(b);
    utcp_connect(a, 0);
    wire w = {0};
    utcp_seg s;
    T_EQ(utcp_poll_out(a, 0, &s), 1); /* lost */
    T_EQ(pass(a, b, 100, &w), 0);
    T_EQ(pass(a, b, 200, &w), 1);
    settle(a, b, 201);
    T_EQ(utcp_get_state(a), UTCP_ESTABLISHED);
    T_EQ(utcp_get_state(b), UTCP_ESTABLISHED);
    T_EQ(utcp_get_stats(a)->retransmits, 1);
    utcp_free(a);
    utcp_free(b);
}

int main(void)
{
    t_name = "test_utcp";
    test_3_5_active_open();
    test_3_5_passive_open();
    test_3_5_syn_retransmitted();
    test_3_10_7_2_listen_ack_rst();
    test_3_10_7_3_syn_sent();
    test_3_10_7_3_simultaneous_open();
    test_3_10_7_4_in_order();
    test_3_10_7_4_out_of_order();
    test_3_10_7_4_duplicates();
    test_3_10_7_4_receive_window();
    test_3_8_6_send_window();
    test_6298_retransmission();
    test_6298_go_back();
    test_3_6_fin();
    test_3_10_7_4_rst();
    test_5961_4_2_syn_in_window();
    test_3_10_7_4_ack_too_far();
    test_3_10_1_abort();
    test_data_seg_ranges();
    test_3_4_wrap();
    return t_done();
}

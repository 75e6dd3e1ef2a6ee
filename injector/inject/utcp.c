/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * utcp: a small userspace TCP state machine; see utcp.h.
 *
 * RFC 9293 3.10.7 (SEGMENT ARRIVES) is followed step by step for the
 * states utcp has; the numbers in the comments are its steps.  RFC 6298
 * for the retransmission timer.
 */
#include "utcp.h"

#include <stdlib.h>
#include <string.h>

enum {
    PEND_ACK = 0x01,    /* an ACK is owed (any segment we send carries it) */
    PEND_SYN = 0x02,
    PEND_SYNACK = 0x04,
    PEND_RTX = 0x08,    /* retransmit from SND.UNA */
    PEND_FIN = 0x10,
    PEND_RST = 0x20,    /* a RST answering a segment (rst_seq/ack/flags) */
};

#define RCV_MASK (UTCP_RCV_BUF - 1u)
#define SND_MASK (UTCP_SND_BUF - 1u)

struct utcp {
    utcp_cfg cfg;
    utcp_state state;
    utcp_end end;
    uint32_t iss, irs;
    int have_irs;
    /* Send side: SND.UNA; snd_max, the sequence number after the highest
     * thing sent (octet, SYN or FIN); snd_end, after the last octet
     * written.  written counts every octet ever written, so a range's
     * presence in the ring is decided without sequence comparisons. */
    uint32_t snd_una, snd_max, snd_end;
    uint64_t written;
    uint32_t snd_wnd, snd_wl1, snd_wl2;
    uint16_t peer_mss;
    int fin_queued, fin_sent;
    uint32_t fin_seq;
    /* Receive side: RCV.NXT (counts the peer's FIN once it is in order);
     * rcv_user, the next octet the reader gets. */
    uint32_t rcv_nxt, rcv_user;
    int fin_in_known, fin_in;
    uint32_t fin_in_seq;
    unsigned pend;
    uint32_t rst_seq, rst_ack;
    uint8_t rst_flags;
    /* Timers: absolute times, 0 = not running. */
    int64_t rtx_at, persist_at;
    uint32_t rto, persist_rto;
    unsigned retx;
    uint32_t recover;
    int recovering;
    utcp_stats st;
    uint8_t scratch[UTCP_SEG_MAX];
    uint8_t rx[UTCP_RCV_BUF];
    uint8_t rx_have[UTCP_RCV_BUF];
    uint8_t tx[UTCP_SND_BUF];
};

utcp *utcp_new(const utcp_cfg *cfg)
{
    utcp *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->cfg = *cfg;
    if (!u->cfg.mss)
        u->cfg.mss = 1460;
    if (u->cfg.mss > UTCP_SEG_MAX)
        u->cfg.mss = UTCP_SEG_MAX;
    if (!u->cfg.rto_ms)
        u->cfg.rto_ms = 200;
    if (!u->cfg.rto_max_ms)
        u->cfg.rto_max_ms = 60000;
    if (u->cfg.rto_max_ms < u->cfg.rto_ms)
        u->cfg.rto_max_ms = u->cfg.rto_ms;
    if (!u->cfg.max_retx)
        u->cfg.max_retx = 12;
    u->iss = cfg->isn;
    u->snd_una = u->snd_max = u->iss;
    u->snd_end = u->iss + 1; /* the SYN takes ISS */
    u->rto = u->persist_rto = u->cfg.rto_ms;
    u->peer_mss = 536;
    u->state = UTCP_CLOSED;
    return u;
}

void utcp_free(utcp *u)
{
    free(u);
}

static uint32_t min32(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

/* The end of the peer's data: RCV.NXT less its FIN once counted. */
static uint32_t data_nxt(const utcp *u)
{
    return u->fin_in ? u->rcv_nxt - 1 : u->rcv_nxt;
}

/* The window we advertise: free room in the receive ring. */
static uint32_t rcv_wnd(const utcp *u)
{
    uint32_t used = data_nxt(u) - u->rcv_user;
    return min32(UTCP_RCV_BUF - used, 65535u);
}

static void stop_timers(utcp *u)
{
    u->rtx_at = u->persist_at = 0;
    u->retx = 0;
    u->rto = u->persist_rto = u->cfg.rto_ms;
    u->recovering = 0;
}

static void arm_rtx(utcp *u, int64_t now)
{
    if (!u->rtx_at)
        u->rtx_at = now + u->rto;
}

/* A segment from us: our ACK once we know the peer's ISN, our window. */
static void seg_base(utcp *u, utcp_seg *o, uint32_t seq, uint8_t flags)
{
    memset(o, 0, sizeof *o);
    o->seq = seq;
    o->flags = flags;
    if (u->have_irs) {
        o->flags |= UTCP_ACK;
        o->ack = u->rcv_nxt;
        u->pend &= ~(unsigned)PEND_ACK;
    }
    o->win = (uint16_t)rcv_wnd(u);
    u->st.segs_out++;
}

/* Copies the buffered octets [seq, seq+len) to the scratch buffer. */
static void copy_out(utcp *u, utcp_seg *o, uint32_t seq, size_t len)
{
    for (size_t i = 0; i < len; i++)
        u->scratch[i] = u->tx[(seq + (uint32_t)i) & SND_MASK];
    o->data = u->scratch;
    o->len = len;
}

static void queue_rst(utcp *u, uint32_t seq, uint32_t ack, uint8_t flags)
{
    u->pend |= PEND_RST;
    u->rst_seq = seq;
    u->rst_ack = ack;
    u->rst_flags = flags;
}

/* RFC 9293 3.10.7.1: the answer to a segment for no connection. */
static void reset_reply(utcp *u, const utcp_seg *in)
{
    if (in->flags & UTCP_RST)
        return;
    if (in->flags & UTCP_ACK)
        queue_rst(u, in->ack, 0, UTCP_RST);
    else
        queue_rst(u, 0, in->seq + (uint32_t)in->len + !!(in->flags & UTCP_SYN) + !!(in->flags & UTCP_FIN),
                  UTCP_RST | UTCP_ACK);
}

static void take_syn(utcp *u, const utcp_seg *in)
{
    u->irs = in->seq;
    u->have_irs = 1;
    u->rcv_nxt = u->rcv_user = in->seq + 1;
    u->peer_mss = in->mss ? in->mss : 536;
}

int utcp_connect(utcp *u, int64_t now)
{
    (void)now;
    if (u->state != UTCP_CLOSED || u->end != UTCP_END_NONE)
        return -1;
    u->state = UTCP_SYN_SENT;
    u->pend |= PEND_SYN;
    return 0;
}

int utcp_listen(utcp *u)
{
    if (u->state != UTCP_CLOSED || u->end != UTCP_END_NONE)
        return -1;
    u->state = UTCP_LISTEN;
    return 0;
}

/* RFC 9293 3.10.7.4 first: the acceptability test. */
static int acceptable(const utcp *u, uint32_t seq, uint32_t seglen, uint32_t wnd)
{
    uint32_t nxt = u->rcv_nxt;
    if (seglen == 0) {
        if (wnd == 0)
            return seq == nxt;
        return utcp_seq_leq(nxt, seq) && utcp_seq_lt(seq, nxt + wnd);
    }
    if (wnd == 0)
        return 0;
    uint32_t last = seq + seglen - 1;
    return (utcp_seq_leq(nxt, seq) && utcp_seq_lt(seq, nxt + wnd)) ||
           (utcp_seq_leq(nxt, last) && utcp_seq_lt(last, nxt + wnd));
}

static void try_fin_in(utcp *u)
{
    if (!u->fin_in_known || u->fin_in || u->rcv_nxt != u->fin_in_seq)
        return;
    u->rcv_nxt++;
    u->fin_in = 1;
    u->pend |= PEND_ACK;
    switch (u->state) {
    case UTCP_SYN_RCVD:
    case UTCP_ESTABLISHED:
        u->state = UTCP_CLOSE_WAIT;
        break;
    case UTCP_FIN_WAIT_1:
        u->state = UTCP_CLOSING;
        break;
    case UTCP_FIN_WAIT_2:
        u->state = UTCP_TIME_WAIT;
        break;
    case UTCP_CLOSED:
    case UTCP_LISTEN:
    case UTCP_SYN_SENT:
    case UTCP_CLOSING:
    case UTCP_TIME_WAIT:
    case UTCP_CLOSE_WAIT:
    case UTCP_LAST_ACK:
        break;
    }
}

/* The octets of a segment that fall in [RCV.NXT, RCV.NXT + wnd), into
 * the ring; duplicates (before RCV.NXT, or already held out of order)
 * are counted and dropped, the first copy of an octet wins. */
static void take_data(utcp *u, uint32_t seq, const uint8_t *data, size_t len, uint32_t wnd)
{
    uint32_t start = seq, end = seq + (uint32_t)len;
    if (utcp_seq_lt(start, u->rcv_nxt)) {
        uint32_t dup = min32(u->rcv_nxt - start, (uint32_t)len);
        u->st.octets_dup += dup;
        start += dup;
    }
    uint32_t right = u->rcv_nxt + wnd;
    if (u->fin_in_known && utcp_seq_lt(u->fin_in_seq, right))
        right = u->fin_in_seq;
    if (utcp_seq_lt(right, end))
        end = right;
    if (!utcp_seq_lt(start, end))
        return;
    if (start != u->rcv_nxt)
        u->st.segs_ooo++;
    for (uint32_t s = start; s != end; s++) {
        uint32_t i = s & RCV_MASK;
        if (u->rx_have[i]) {
            u->st.octets_dup++;
            continue;
        }
        u->rx[i] = data[s - seq];
        u->rx_have[i] = 1;
        u->st.octets_in++;
    }
    while (u->rcv_nxt - u->rcv_user < UTCP_RCV_BUF && u->rx_have[u->rcv_nxt & RCV_MASK] &&
           !(u->fin_in_known && u->rcv_nxt == u->fin_in_seq))
        u->rcv_nxt++;
}

static void new_ack(utcp *u, uint32_t ack, int64_t now)
{
    u->snd_una = ack;
    u->retx = 0;
    u->rto = u->cfg.rto_ms;
    u->rtx_at = 0;
    if (u->snd_una != u->snd_max)
        u->rtx_at = now + u->rto;
    /* After a timeout everything from SND.UNA to what was outstanding
     * then is presumed lost (go-back-N): each ACK that moves SND.UNA
     * brings the next retransmission. */
    if (u->recovering) {
        if (utcp_seq_lt(u->snd_una, u->recover))
            u->pend |= PEND_RTX;
        else
            u->recovering = 0;
    }
    if (u->fin_sent && u->snd_una == u->fin_seq + 1) {
        switch (u->state) {
        case UTCP_FIN_WAIT_1:
            u->state = UTCP_FIN_WAIT_2;
            break;
        case UTCP_CLOSING:
            u->state = UTCP_TIME_WAIT;
            break;
        case UTCP_LAST_ACK:
            u->state = UTCP_CLOSED;
            u->end = UTCP_END_CLOSED;
            stop_timers(u);
            break;
        case UTCP_CLOSED:
        case UTCP_LISTEN:
        case UTCP_SYN_SENT:
        case UTCP_SYN_RCVD:
        case UTCP_ESTABLISHED:
        case UTCP_FIN_WAIT_2:
        case UTCP_TIME_WAIT:
        case UTCP_CLOSE_WAIT:
            break;
        }
    }
}

static void window_update(utcp *u, const utcp_seg *in)
{
    if (utcp_seq_lt(u->snd_wl1, in->seq) || (u->snd_wl1 == in->seq && utcp_seq_leq(u->snd_wl2, in->ack))) {
        if (in->win > u->snd_wnd) {
            u->persist_at = 0;
            u->persist_rto = u->cfg.rto_ms;
        }
        u->snd_wnd = in->win;
        u->snd_wl1 = in->seq;
        u->snd_wl2 = in->ack;
    }
}

static int input_syn_sent(utcp *u, const utcp_seg *in, int64_t now)
{
    uint8_t f = in->flags;
    int ack_ok = 0;
    if (f & UTCP_ACK) { /* step 1 */
        if (utcp_seq_leq(in->ack, u->iss) || utcp_seq_lt(u->snd_max, in->ack)) {
            if (!(f & UTCP_RST))
                queue_rst(u, in->ack, 0, UTCP_RST);
            return 0;
        }
        ack_ok = 1;
    }
    if (f & UTCP_RST) { /* step 2 */
        if (!ack_ok)
            return 0;
        u->state = UTCP_CLOSED;
        u->end = UTCP_END_RST_RCVD;
        u->pend = 0;
        stop_timers(u);
        return 1;
    }
    if (!(f & UTCP_SYN)) /* step 4: neither SYN nor RST */
        return 0;
    take_syn(u, in);
    if (ack_ok) {
        u->snd_una = in->ack;
        u->state = UTCP_ESTABLISHED;
        stop_timers(u);
        u->snd_wnd = in->win; /* a SYN's window is never scaled */
        u->snd_wl1 = in->seq;
        u->snd_wl2 = in->ack;
        u->pend |= PEND_ACK;
    } else { /* simultaneous open */
        u->state = UTCP_SYN_RCVD;
        u->snd_wnd = in->win;
        u->snd_wl1 = in->seq;
        u->snd_wl2 = u->iss;
        u->pend |= PEND_SYNACK;
    }
    (void)now;
    return 1;
}

int utcp_input(utcp *u, const utcp_seg *in, int64_t now)
{
    uint8_t f = in->flags;
    u->st.segs_in++;
    switch (u->state) {
    case UTCP_CLOSED:
        if (u->end != UTCP_END_NONE)
            reset_reply(u, in);
        return 0;
    case UTCP_LISTEN:
        if (f & UTCP_RST)
            return 0;
        if (f & UTCP_ACK) {
            queue_rst(u, in->ack, 0, UTCP_RST);
            return 0;
        }
        if (!(f & UTCP_SYN))
            return 0;
        take_syn(u, in);
        u->state = UTCP_SYN_RCVD;
        u->snd_wnd = in->win;
        u->snd_wl1 = in->seq;
        u->snd_wl2 = u->iss;
        u->pend |= PEND_SYNACK;
        return 1;
    case UTCP_SYN_SENT:
        return input_syn_sent(u, in, now);
    case UTCP_SYN_RCVD:
    case UTCP_ESTABLISHED:
    case UTCP_FIN_WAIT_1:
    case UTCP_FIN_WAIT_2:
    case UTCP_CLOSING:
    case UTCP_TIME_WAIT:
    case UTCP_CLOSE_WAIT:
    case UTCP_LAST_ACK:
        break;
    }

    if (u->state == UTCP_SYN_RCVD && (f & UTCP_SYN) && !(f & UTCP_RST) && in->seq == u->irs) {
        /* The peer's SYN again: it did not get our SYN-ACK. */
        if (!(f & UTCP_ACK) || !(utcp_seq_lt(u->snd_una, in->ack) && utcp_seq_leq(in->ack, u->snd_max))) {
            u->pend |= PEND_SYNACK;
            return 0;
        }
        /* Simultaneous open: the peer's SYN-ACK acknowledges our SYN
         * (its SYN is old news; RFC 9293 figure 7, line 5). */
        u->state = UTCP_ESTABLISHED;
        u->snd_wnd = in->win;
        u->snd_wl1 = in->seq;
        u->snd_wl2 = in->ack;
        new_ack(u, in->ack, now);
        u->pend |= PEND_ACK;
        return 1;
    }
    uint32_t seglen = (uint32_t)in->len + !!(f & UTCP_SYN) + !!(f & UTCP_FIN);
    uint32_t wnd = rcv_wnd(u);
    if (!acceptable(u, in->seq, seglen, wnd)) { /* step 1 */
        u->st.segs_unacceptable++;
        if (in->len && utcp_seq_lt(in->seq, u->rcv_nxt))
            u->st.octets_dup += in->len;
        if (!(f & UTCP_RST))
            u->pend |= PEND_ACK;
        return 0;
    }
    if (f & UTCP_RST) { /* step 2: in the window */
        u->state = UTCP_CLOSED;
        u->end = UTCP_END_RST_RCVD;
        u->pend = 0;
        stop_timers(u);
        return 1;
    }
    if (f & UTCP_SYN) { /* step 4: RFC 5961 4.2, a challenge ACK */
        u->pend |= PEND_ACK;
        return 0;
    }
    if (!(f & UTCP_ACK)) /* step 5 */
        return 0;
    if (u->state == UTCP_SYN_RCVD) {
        if (!(utcp_seq_lt(u->snd_una, in->ack) && utcp_seq_leq(in->ack, u->snd_max))) {
            queue_rst(u, in->ack, 0, UTCP_RST);
            return 0;
        }
        u->state = UTCP_ESTABLISHED;
        u->snd_wnd = in->win;
        u->snd_wl1 = in->seq;
        u->snd_wl2 = in->ack;
        new_ack(u, in->ack, now);
    } else {
        if (utcp_seq_lt(u->snd_max, in->ack)) { /* acknowledges what we never sent */
            u->pend |= PEND_ACK;
            return 0;
        }
        if (utcp_seq_lt(u->snd_una, in->ack))
            new_ack(u, in->ack, now);
        if (utcp_seq_leq(u->snd_una, in->ack))
            window_update(u, in);
        if (u->state == UTCP_CLOSED) /* LAST-ACK is over */
            return 1;
    }
    /* step 7: the segment text */
    if (in->len) {
        switch (u->state) {
        case UTCP_ESTABLISHED:
        case UTCP_FIN_WAIT_1:
        case UTCP_FIN_WAIT_2:
            take_data(u, in->seq, in->data, in->len, wnd);
            break;
        case UTCP_CLOSED:
        case UTCP_LISTEN:
        case UTCP_SYN_SENT:
        case UTCP_SYN_RCVD:
        case UTCP_CLOSING:
        case UTCP_TIME_WAIT:
        case UTCP_CLOSE_WAIT:
        case UTCP_LAST_ACK:
            break; /* after the peer's FIN: nothing more is taken */
        }
        u->pend |= PEND_ACK;
    }
    /* step 8: FIN, remembered where it is, counted once in order */
    if (f & UTCP_FIN) {
        uint32_t pos = in->seq + (uint32_t)in->len;
        if (!u->fin_in_known && utcp_seq_leq(u->rcv_nxt, pos) && utcp_seq_leq(pos, u->rcv_nxt + wnd)) {
            u->fin_in_known = 1;
            u->fin_in_seq = pos;
        }
        u->pend |= PEND_ACK;
    }
    try_fin_in(u);
    return 1;
}

static void emit_syn(utcp *u, int64_t now, utcp_seg *out, int synack)
{
    seg_base(u, out, u->iss, UTCP_SYN);
    if (!synack) { /* no ACK on a SYN, whatever seg_base thought */
        out->flags = UTCP_SYN;
        out->ack = 0;
    }
    out->mss = u->cfg.mss;
    if (utcp_seq_lt(u->snd_max, u->iss + 1))
        u->snd_max = u->iss + 1;
    arm_rtx(u, now);
}

/* Retransmission from SND.UNA: the SYN, the SYN-ACK, one MSS of data
 * (with the FIN if it fits) or the FIN alone.  0 when nothing is
 * outstanding. */
static int emit_rtx(utcp *u, int64_t now, utcp_seg *out)
{
    if (u->state == UTCP_SYN_SENT) {
        emit_syn(u, now, out, 0);
    } else if (u->state == UTCP_SYN_RCVD) {
        emit_syn(u, now, out, 1);
    } else if (utcp_seq_lt(u->snd_una, u->snd_max)) {
        uint32_t data_end = u->fin_sent ? u->fin_seq : u->snd_max;
        if (utcp_seq_lt(u->snd_una, data_end)) {
            size_t len = min32(data_end - u->snd_una, (uint32_t)utcp_send_mss(u));
            uint8_t flags = UTCP_PSH;
            if (u->fin_sent && u->snd_una + (uint32_t)len == u->fin_seq)
                flags |= UTCP_FIN;
            seg_base(u, out, u->snd_una, flags);
            copy_out(u, out, u->snd_una, len);
        } else {
            seg_base(u, out, u->fin_seq, UTCP_FIN);
        }
        arm_rtx(u, now);
    } else {
        return 0;
    }
    u->st.retransmits++;
    return 1;
}

int utcp_poll_out(utcp *u, int64_t now, utcp_seg *out)
{
    if (u->pend & PEND_RST) {
        u->pend &= ~(unsigned)PEND_RST;
        memset(out, 0, sizeof *out);
        out->seq = u->rst_seq;
        out->ack = u->rst_ack;
        out->flags = u->rst_flags;
        u->st.segs_out++;
        return 1;
    }
    if (u->state == UTCP_CLOSED || u->state == UTCP_LISTEN) {
        u->pend = 0;
        return 0;
    }
    if (u->rtx_at && now >= u->rtx_at && u->snd_una == u->snd_max && u->state != UTCP_SYN_SENT &&
        u->state != UTCP_SYN_RCVD)
        u->rtx_at = 0; /* nothing outstanding after all */
    if (u->rtx_at && now >= u->rtx_at) {
        if (u->retx >= u->cfg.max_retx) {
            u->state = UTCP_CLOSED;
            u->end = UTCP_END_TIMEOUT;
            u->pend = 0;
            stop_timers(u);
            return 0;
        }
        u->retx++;
        u->rto = min32(u->rto * 2, u->cfg.rto_max_ms);
        u->rtx_at = now + u->rto;
        u->pend |= PEND_RTX;
        u->recover = u->snd_max;
        u->recovering = 1;
    }
    if (u->pend & PEND_SYN) {
        u->pend &= ~(unsigned)PEND_SYN;
        emit_syn(u, now, out, 0);
        return 1;
    }
    if (u->pend & PEND_SYNACK) {
        u->pend &= ~(unsigned)PEND_SYNACK;
        emit_syn(u, now, out, 1);
        return 1;
    }
    if (u->pend & PEND_RTX) {
        u->pend &= ~(unsigned)PEND_RTX;
        if (emit_rtx(u, now, out))
            return 1;
    }
    if ((u->pend & PEND_FIN) && u->snd_max == u->fin_seq) {
        u->pend &= ~(unsigned)PEND_FIN;
        seg_base(u, out, u->fin_seq, UTCP_FIN);
        u->fin_sent = 1;
        u->snd_max = u->fin_seq + 1;
        arm_rtx(u, now);
        return 1;
    }
    if (u->persist_at && now >= u->persist_at) {
        /* RFC 9293 3.8.6.1: an unacceptable (old) sequence number makes
         * the peer answer with its current window. */
        seg_base(u, out, u->snd_una - 1, 0);
        u->persist_rto = min32(u->persist_rto * 2, u->cfg.rto_max_ms);
        u->persist_at = now + u->persist_rto;
        u->st.probes++;
        return 1;
    }
    if (u->pend & PEND_ACK) {
        seg_base(u, out, u->snd_max, 0);
        return 1;
    }
    return 0;
}

int64_t utcp_next_timer(const utcp *u, int64_t now)
{
    unsigned due = u->pend;
    if (u->state == UTCP_CLOSED || u->state == UTCP_LISTEN)
        due &= PEND_RST;
    if ((due & PEND_FIN) && u->snd_max != u->fin_seq)
        due &= ~(unsigned)PEND_FIN;
    if (due)
        return now;
    int64_t t = -1;
    if (u->rtx_at)
        t = u->rtx_at;
    if (u->persist_at && (t < 0 || u->persist_at < t))
        t = u->persist_at;
    return t;
}

size_t utcp_write(utcp *u, const uint8_t *p, size_t n)
{
    if (u->fin_queued)
        return 0;
    size_t room = UTCP_SND_BUF - (size_t)(u->snd_end - u->snd_una);
    if (utcp_seq_lt(u->snd_end, u->snd_una)) /* cannot happen; be safe */
        room = 0;
    if (n > room)
        n = room;
    for (size_t i = 0; i < n; i++)
        u->tx[(u->snd_end + (uint32_t)i) & SND_MASK] = p[i];
    u->snd_end += (uint32_t)n;
    u->written += n;
    return n;
}

int utcp_data_seg(utcp *u, uint32_t seq, size_t len, int64_t now, utcp_seg *out)
{
    if (len == 0 || len > UTCP_SEG_MAX || !u->have_irs)
        return -1;
    switch (u->state) {
    case UTCP_ESTABLISHED:
    case UTCP_CLOSE_WAIT:
    case UTCP_FIN_WAIT_1:
    case UTCP_FIN_WAIT_2:
    case UTCP_CLOSING:
    case UTCP_LAST_ACK:
    case UTCP_TIME_WAIT:
        break;
    case UTCP_CLOSED:
    case UTCP_LISTEN:
    case UTCP_SYN_SENT:
    case UTCP_SYN_RCVD:
        return -1;
    }
    /* How far back from snd_end the range starts: it must be written
     * and not yet overwritten in the ring. */
    uint32_t back = u->snd_end - seq;
    uint64_t held = u->written < UTCP_SND_BUF ? u->written : UTCP_SND_BUF;
    if (back > held || back < len)
        return -1;
    uint32_t end = seq + (uint32_t)len;
    if (utcp_seq_lt(u->snd_max, end)) {
        /* New octets: written before the FIN (if any) was sent. */
        if (u->fin_sent)
            return -1;
        switch (u->state) {
        case UTCP_ESTABLISHED:
        case UTCP_CLOSE_WAIT:
        case UTCP_FIN_WAIT_1:
        case UTCP_LAST_ACK:
            break;
        case UTCP_CLOSED:
        case UTCP_LISTEN:
        case UTCP_SYN_SENT:
        case UTCP_SYN_RCVD:
        case UTCP_FIN_WAIT_2:
        case UTCP_CLOSING:
        case UTCP_TIME_WAIT:
            return -1;
        }
        u->snd_max = end;
    }
    seg_base(u, out, seq, UTCP_PSH);
    copy_out(u, out, seq, len);
    if (utcp_seq_lt(u->snd_una, u->snd_max))
        arm_rtx(u, now);
    return 0;
}

uint32_t utcp_snd_end(const utcp *u)
{
    return u->snd_end;
}

uint32_t utcp_snd_wnd(const utcp *u)
{
    return u->snd_wnd;
}

uint32_t utcp_snd_una(const utcp *u)
{
    return u->snd_una;
}

size_t utcp_send_mss(const utcp *u)
{
    size_t m = u->cfg.mss;
    if (u->peer_mss && u->peer_mss < m)
        m = u->peer_mss;
    return m;
}

int utcp_window_admits(utcp *u, uint32_t seq_end, int64_t now)
{
    if (utcp_seq_leq(seq_end, u->snd_una + u->snd_wnd))
        return 1;
    /* Nothing outstanding means no ACK will come by itself: probe. */
    if (!u->persist_at && u->snd_una == u->snd_max && utcp_synchronized(u))
        u->persist_at = now + u->persist_rto;
    return 0;
}

size_t utcp_readable(const utcp *u)
{
    if (!u->have_irs)
        return 0;
    return data_nxt(u) - u->rcv_user;
}

size_t utcp_read(utcp *u, uint8_t *buf, size_t cap)
{
    size_t n = utcp_readable(u);
    if (n > cap)
        n = cap;
    uint32_t before = rcv_wnd(u);
    for (size_t i = 0; i < n; i++) {
        uint32_t idx = (u->rcv_user + (uint32_t)i) & RCV_MASK;
        buf[i] = u->rx[idx];
        u->rx_have[idx] = 0;
    }
    u->rcv_user += (uint32_t)n;
    /* A window that was nearly shut and opens again is announced. */
    uint32_t t = UTCP_RCV_BUF / 4;
    if (before < t && rcv_wnd(u) >= t && utcp_synchronized(u) && u->state != UTCP_CLOSED && !u->fin_in)
        u->pend |= PEND_ACK;
    return n;
}

int utcp_fin_received(const utcp *u)
{
    return u->fin_in && utcp_readable(u) == 0;
}

int utcp_close(utcp *u, int64_t now)
{
    (void)now;
    if (u->fin_queued)
        return -1;
    switch (u->state) {
    case UTCP_SYN_RCVD:
    case UTCP_ESTABLISHED:
        u->state = UTCP_FIN_WAIT_1;
        break;
    case UTCP_CLOSE_WAIT:
        u->state = UTCP_LAST_ACK;
        break;
    case UTCP_CLOSED:
    case UTCP_LISTEN:
    case UTCP_SYN_SENT:
    case UTCP_FIN_WAIT_1:
    case UTCP_FIN_WAIT_2:
    case UTCP_CLOSING:
    case UTCP_TIME_WAIT:
    case UTCP_LAST_ACK:
        return -1;
    }
    u->fin_queued = 1;
    u->fin_seq = u->snd_end;
    u->pend |= PEND_FIN;
    return 0;
}

int utcp_abort(utcp *u, utcp_seg *out)
{
    if (u->state == UTCP_CLOSED || u->state == UTCP_LISTEN)
        return -1;
    memset(out, 0, sizeof *out);
    out->seq = u->snd_max;
    out->flags = UTCP_RST;
    if (u->have_irs) {
        out->flags |= UTCP_ACK;
        out->ack = u->rcv_nxt;
    }
    u->st.segs_out++;
    u->state = UTCP_CLOSED;
    u->end = UTCP_END_RST_SENT;
    u->pend = 0;
    stop_timers(u);
    return 0;
}

utcp_state utcp_get_state(const utcp *u)
{
    return u->state;
}

utcp_end utcp_get_end(const utcp *u)
{
    return u->end;
}

int utcp_synchronized(const utcp *u)
{
    switch (u->state) {
    case UTCP_ESTABLISHED:
    case UTCP_FIN_WAIT_1:
    case UTCP_FIN_WAIT_2:
    case UTCP_CLOSING:
    case UTCP_TIME_WAIT:
    case UTCP_CLOSE_WAIT:
    case UTCP_LAST_ACK:
        return 1;
    case UTCP_CLOSED:
        return u->have_irs && u->end != UTCP_END_NONE;
    case UTCP_LISTEN:
    case UTCP_SYN_SENT:
    case UTCP_SYN_RCVD:
        return 0;
    }
    return 0;
}

int utcp_can_send(const utcp *u)
{
    return (u->state == UTCP_ESTABLISHED || u->state == UTCP_CLOSE_WAIT) && !u->fin_queued;
}

int utcp_all_acked(const utcp *u)
{
    uint32_t end = u->fin_queued ? u->fin_seq + 1 : u->snd_end;
    return u->snd_una == end;
}

unsigned utcp_retx_count(const utcp *u)
{
    return u->retx;
}

const utcp_stats *utcp_get_stats(const utcp *u)
{
    return &u->st;
}

const char *utcp_state_name(utcp_state s)
{
    switch (s) {
    case UTCP_CLOSED:
        return "CLOSED";
    case UTCP_LISTEN:
        return "LISTEN";
    case UTCP_SYN_SENT:
        return "SYN-SENT";
    case UTCP_SYN_RCVD:
        return "SYN-RECEIVED";
    case UTCP_ESTABLISHED:
        return "ESTABLISHED";
    case UTCP_FIN_WAIT_1:
        return "FIN-WAIT-1";
    case UTCP_FIN_WAIT_2:
        return "FIN-WAIT-2";
    case UTCP_CLOSING:
        return "CLOSING";
    case UTCP_TIME_WAIT:
        return "TIME-WAIT";
    case UTCP_CLOSE_WAIT:
        return "CLOSE-WAIT";
    case UTCP_LAST_ACK:
        return "LAST-ACK";
    }
    return "?";
}

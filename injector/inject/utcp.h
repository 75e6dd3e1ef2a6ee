/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * utcp: the small userspace TCP behind mpa-inject's raw transport.
 *
 * RFC 9293 (TCP, which obsoletes RFC 793): connection states, the
 * segment acceptability test (section 3.10.7.4), SND.WL1/WL2 window
 * updates; RFC 6298: retransmission timer with exponential backoff
 * (a fixed initial RTO, no RTT estimation); RFC 9293 3.8.6.1: probing
 * a zero window.  RFC 6691 / RFC 9293 3.7.1: the MSS option.
 *
 * What it is for: holding one connection open while the injector
 * decides, segment by segment, which octets go on the wire and how they
 * are cut.  So the state machine never sends first transmissions of
 * data by itself: the transport asks for a data segment covering any
 * range of the send buffer (utcp_data_seg), as often and in whatever
 * order it likes; utcp keeps the sequence space, the acknowledgments,
 * the peer's window, the receive reassembly and the timers.
 *
 * Pure: no sockets, no clock, no allocation after utcp_new().  Segments
 * go in as parsed values (utcp_input), come out as values
 * (utcp_poll_out, utcp_data_seg, utcp_abort); time is the caller's
 * "now" in milliseconds on any monotonic clock.  The caller owns the
 * addresses, ports, checksums and the wire.
 *
 * Not implemented (not needed to drive a device under test): window
 * scaling, SACK, timestamps, urgent data, congestion control, RTT
 * estimation, fast retransmit, RFC 5961 challenge ACKs for RSTs (a RST
 * anywhere in the receive window is accepted, as RFC 793 had it; an
 * in-window SYN gets an ACK, as RFC 5961 4.2 says), TIME-WAIT timing.
 */
#ifndef MPA_INJECT_UTCP_H
#define MPA_INJECT_UTCP_H

#include <stddef.h>
#include <stdint.h>

enum { UTCP_FIN = 0x01, UTCP_SYN = 0x02, UTCP_RST = 0x04, UTCP_PSH = 0x08, UTCP_ACK = 0x10 };

/* Receive buffer (and so the largest window we advertise is 65535:
 * no window scaling) and send buffer; both powers of two. */
#define UTCP_RCV_BUF 65536u
#define UTCP_SND_BUF 262144u
/* The largest payload one segment carries (jumbo frames included). */
#define UTCP_SEG_MAX 9000u

typedef enum utcp_state {
    UTCP_CLOSED = 0,
    UTCP_LISTEN,
    UTCP_SYN_SENT,
    UTCP_SYN_RCVD,
    UTCP_ESTABLISHED,
    UTCP_FIN_WAIT_1,
    UTCP_FIN_WAIT_2,
    UTCP_CLOSING,
    UTCP_TIME_WAIT,
    UTCP_CLOSE_WAIT,
    UTCP_LAST_ACK,
} utcp_state;

/* Why a connection is over (CLOSED after having been opened). */
typedef enum utcp_end {
    UTCP_END_NONE = 0,
    UTCP_END_RST_RCVD, /* the peer reset it (an acceptable RST) */
    UTCP_END_RST_SENT, /* utcp_abort() */
    UTCP_END_TIMEOUT,  /* max_retx retransmissions went unacknowledged */
    UTCP_END_CLOSED,   /* both FINs sent and acknowledged */
} utcp_end;

/* One segment, host order.  In utcp_input(), data points into the
 * caller's packet for the call only; in segments utcp produces it
 * points into utcp's own scratch buffer, valid until the next call on
 * the same utcp. */
typedef struct utcp_seg {
    uint32_t seq, ack;
    uint8_t flags;  /* UTCP_* */
    uint16_t win;
    uint16_t mss;   /* MSS option value, 0: none (only on SYNs) */
    const uint8_t *data;
    size_t len;
} utcp_seg;

typedef struct utcp_cfg {
    uint32_t isn;       /* our initial sequence number (any value, 0 included) */
    uint16_t mss;       /* the MSS we announce and the largest segment we send (0: 1460) */
    uint32_t rto_ms;    /* initial retransmission timeout (0: 200) */
    uint32_t rto_max_ms;/* backoff cap (0: 60000, RFC 6298 2.5) */
    unsigned max_retx;  /* retransmissions of one segment before giving up (0: 12) */
} utcp_cfg;

/* Counters, for the transport's messages and the tests. */
typedef struct utcp_stats {
    uint64_t segs_in, segs_unacceptable, octets_in, octets_dup, segs_ooo;
    uint64_t segs_out, retransmits, probes;
} utcp_stats;

typedef struct utcp utcp;

/* A closed connection with cfg; NULL when out of memory.  Free with
 * utcp_free(). */
utcp *utcp_new(const utcp_cfg *cfg);
void utcp_free(utcp *u);

/* Active open: queues our SYN (utcp_poll_out sends it).  Passive open:
 * waits for a SYN.  Both only from CLOSED; -1 otherwise. */
int utcp_connect(utcp *u, int64_t now);
int utcp_listen(utcp *u);

/* One segment that arrived for this connection.  Returns 1 if it was
 * acceptable, 0 if it was not (it may still have been answered: an ACK
 * for an out-of-window segment, a RST for a bad ACK in LISTEN/SYN-SENT). */
int utcp_input(utcp *u, const utcp_seg *in, int64_t now);

/* The next segment utcp wants on the wire by now (control segments,
 * ACKs, retransmissions due, window probes): 1 and *out, or 0 when
 * there is none.  Call until it returns 0. */
int utcp_poll_out(utcp *u, int64_t now, utcp_seg *out);

/* When utcp_poll_out() next has something to send without new input:
 * an absolute time in ms (now itself when something is due already),
 * or -1 when nothing is pending and no timer runs. */
int64_t utcp_next_timer(const utcp *u, int64_t now);

/* Append octets to the send buffer (after everything written before).
 * Returns how many fit (UTCP_SND_BUF less what is unacknowledged);
 * nothing is sent. */
size_t utcp_write(utcp *u, const uint8_t *p, size_t n);

/* A data segment carrying the buffered octets [seq, seq+len): any range
 * that is still in the send buffer, acknowledged or not, sent before or
 * not, 1 <= len <= UTCP_SEG_MAX.  The first transmission of new octets
 * extends what is outstanding and starts the retransmission timer.
 * 0 and *out, or -1 when the range is not in the buffer. */
int utcp_data_seg(utcp *u, uint32_t seq, size_t len, int64_t now, utcp_seg *out);

/* The sequence number the next octet given to utcp_write() gets. */
uint32_t utcp_snd_end(const utcp *u);
/* Octets from SND.UNA the peer's window admits. */
uint32_t utcp_snd_wnd(const utcp *u);
uint32_t utcp_snd_una(const utcp *u);
/* The largest segment the peer accepts: min(our MSS, the peer's MSS
 * option, or 536 without one (RFC 9293 3.7.1)). */
size_t utcp_send_mss(const utcp *u);
/* Whether the peer's window admits octets up to (not including)
 * seq_end; when it does not, arms the zero-window probe timer, so a
 * lost window update cannot stall the connection. */
int utcp_window_admits(utcp *u, uint32_t seq_end, int64_t now);

/* Octets of the peer's stream received in order and not yet read. */
size_t utcp_readable(const utcp *u);
/* Copy at most cap of them to buf; returns how many.  May queue a window
 * update. */
size_t utcp_read(utcp *u, uint8_t *buf, size_t cap);
/* The peer's FIN arrived and every octet before it has been read. */
int utcp_fin_received(const utcp *u);

/* Close our direction: a FIN after every octet written (queued). -1 if
 * the connection is not open for sending or the FIN is already queued. */
int utcp_close(utcp *u, int64_t now);

/* Reset: fills *out with a RST (RST+ACK once synchronized) at SND.NXT and
 * closes.  -1 when there is no connection to reset (CLOSED, LISTEN). */
int utcp_abort(utcp *u, utcp_seg *out);

utcp_state utcp_get_state(const utcp *u);
utcp_end utcp_get_end(const utcp *u);
/* SYN-ACK exchanged (states ESTABLISHED and later, or closed after). */
int utcp_synchronized(const utcp *u);
/* Sending is allowed: ESTABLISHED or CLOSE-WAIT. */
int utcp_can_send(const utcp *u);
/* Everything written (and the FIN, if queued) is acknowledged. */
int utcp_all_acked(const utcp *u);
unsigned utcp_retx_count(const utcp *u);
const utcp_stats *utcp_get_stats(const utcp *u);
const char *utcp_state_name(utcp_state s);

/* Sequence arithmetic modulo 2^32 (RFC 9293 3.4). */
static inline int utcp_seq_lt(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }
static inline int utcp_seq_leq(uint32_t a, uint32_t b) { return (int32_t)(a - b) <= 0; }

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-inject transports: how the injector's octets reach the device
 * under test and how the device's octets come back.
 *
 *   socket  kernel TCP (tp_sock.c): connect() or listen()+accept(),
 *           TCP_NODELAY, one send() per segment the script asks for.
 *   raw     libnet out, libpcap in, a small userspace TCP (tp_raw.c):
 *           exact sequence numbers and segment boundaries, on demand
 *           out-of-order, duplicate and resegmented delivery.
 *
 * Both report every TCP segment that crosses the wire (sent or
 * received) to the trace (trace.h), so a run always leaves a pcapng of
 * what happened, in either transport.
 *
 * Direction convention everywhere in mpa-inject: TP_OUT (0) is what the
 * injector sends, TP_IN (1) what the device sends.
 *
 * All waits are bounded: every call that may block takes an absolute
 * deadline on the CLOCK_MONOTONIC clock in milliseconds (tp_now_ms()).
 *
 * This header is what the transports share (the types, the clock); it
 * knows none of them.  Each transport's constructor is in its own
 * header (tp_sock.h, tp_raw.h); tp_pick.h chooses one by name.
 */
#ifndef MPA_INJECT_TP_H
#define MPA_INJECT_TP_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

#define TP_OUT 0
#define TP_IN 1

/* What the injector does at the TCP level. */
typedef enum tp_open_kind {
    TP_CONNECT = 0, /* active open towards the device (device listens) */
    TP_LISTEN = 1,  /* passive open: the device connects to us */
} tp_open_kind;

/* Delivery of one send on the raw transport (ignored by socket, which
 * can only keep write boundaries; asking for them there is an error the
 * scenario parser reports before anything is sent). */
typedef struct tp_delivery {
    uint8_t reorder;   /* send this segment's pieces last-first */
    uint8_t duplicate; /* send every piece twice */
    /* resegment: after the first transmission, retransmit the same
     * octets cut at other boundaries (every reseg octets) */
    uint32_t reseg;
} tp_delivery;

typedef struct tp_cfg {
    tp_open_kind open;
    const char *host;       /* TP_CONNECT: the device's address; TP_LISTEN: local address or NULL (any) */
    const char *port;       /* TP_CONNECT: device port; TP_LISTEN: local port */
    const char *bind;       /* TP_CONNECT: local address to bind, or NULL */
    int family;             /* 0 any, 4 or 6 */
    /* raw only */
    const char *iface;      /* interface to send and capture on */
    const char *src_addr;   /* our address (raw: not configured in the kernel) */
    uint16_t src_port;      /* raw: our port (0: pick one) */
    const char *gw_mac;     /* raw: next hop MAC, or NULL to ARP/ND for it */
    uint32_t isn;           /* raw: our initial sequence number (0: random) */
    uint16_t mss;           /* raw: MSS we announce (0: 1460 or the link's) */
    uint32_t rto_ms;        /* raw: retransmission timeout (0: 200) */
    /* TP_LISTEN: called once the transport is ready to take the
     * device's SYN, before it waits for it (mpa-inject starts a lab
     * device that connects to us from there); t->local is then the
     * address and port we listen on.  May be NULL. */
    void (*on_listen)(void *user);
    void *on_listen_user;
} tp_cfg;

typedef enum tp_rx_kind {
    TP_RX_DATA = 0,  /* *got octets of the device's stream, in order */
    TP_RX_FIN,       /* the device closed its direction (after all data) */
    TP_RX_RST,       /* the device reset the connection */
    TP_RX_TIMEOUT,   /* the deadline passed, nothing new */
    TP_RX_ERROR,     /* local failure; err says what */
} tp_rx_kind;

typedef struct tp tp;

typedef struct tp_ops {
    const char *name;
    /* Open the TCP connection (both kinds), by deadline. 0 or -1 + err. */
    int (*open)(tp *t, int64_t deadline_ms, char *err, size_t errlen);
    /* Send n octets as the next segment(s) of our stream: the socket
     * transport makes one write (TCP_NODELAY keeps it one segment when
     * it fits the MSS); the raw one one segment per MSS-sized piece,
     * with dl's delivery tricks (NULL: plain).  Blocks until the
     * octets are handed to the kernel (socket) or sent once (raw),
     * by the deadline.  0 or -1 + err. */
    int (*send)(tp *t, const uint8_t *p, size_t n, const tp_delivery *dl, int64_t deadline_ms, char *err,
                size_t errlen);
    /* Wait for the device: data (copied to buf, at most cap), FIN, RST
     * or the deadline.  Data already received is returned before a FIN
     * or RST that followed it.  May return TP_RX_TIMEOUT early (a
     * signal, or a while without news): callers loop to their own
     * deadline and look at run_interrupted. */
    tp_rx_kind (*recv)(tp *t, uint8_t *buf, size_t cap, size_t *got, int64_t deadline_ms, char *err,
                       size_t errlen);
    /* Close our direction (FIN). */
    int (*fin)(tp *t, char *err, size_t errlen);
    /* Reset the connection (RST). */
    int (*abort)(tp *t, char *err, size_t errlen);
    /* Release everything, t itself included (safe from any state). */
    void (*destroy)(tp *t);
} tp_ops;

struct tp {
    const tp_ops *ops;
    tp_cfg cfg;
    inj_trace *trace;       /* may be NULL */
    char local[64], remote[64]; /* "addr:port" once open, for messages */
    void *priv;             /* the transport's state */
};

/* CLOCK_MONOTONIC in milliseconds. */
int64_t tp_now_ms(void);

#endif

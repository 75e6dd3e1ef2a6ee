/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-peer: the project's reference MPA endpoint (RFC 5044 7.1, RFC 6581).
 *
 * The parts:
 *   options.c   the command line (peer_options)
 *   serve.c     sockets, the epoll loop, deadlines, output (peer_serve)
 *   conn*.c, startup.c
 *               one connection's MPA endpoint, free of sockets: octets in
 *               (conn_input), octets out (conn->tx), decisions from the
 *               libmpa stream engine's events (the map is in conn.c)
 *   faults.c    the fault table (--fault NAME): what each breaks, by rule
 *               id, and how a fault changes what this end sends
 *   mpa-peer.c  main: peer_options, then peer_serve
 *
 * The engine is fed both directions: what this end sends (direction
 * PEER_DIR_SELF) when it is queued, what it receives (PEER_DIR_PEER)
 * when it is read.  Everything this end has received was sent by the
 * other end before it could see anything this end had not yet sent, so
 * that order is a true causal order and the engine's startup verdicts
 * ("sent X before receiving Y") hold for the other side.
 */
#ifndef MPA_PEER_H
#define MPA_PEER_H

#include <stddef.h>
#include <stdint.h>

#include "mpa/ddp.h"
#include "mpa/findings.h"
#include "mpa/fpdu.h"
#include "mpa/frame.h"
#include "mpa/feed.h"
#include "mpa/stream.h"

#define PEER_DIR_SELF 0
#define PEER_DIR_PEER 1

/* ---- faults (faults.c) ---------------------------------------------- */

typedef enum peer_fault {
    FAULT_NONE = 0,
    FAULT_BAD_KEY,
    FAULT_WRONG_REV,
    FAULT_PDLEN_OVER_512,
    FAULT_PDLEN_LIE,
    FAULT_IGNORES_S,
    FAULT_A_NOT_ECHOED,
    FAULT_BCD_WITHOUT_A,
    FAULT_ORD_GT_PEER_IRD,
    FAULT_NO_RTR_OPTION,
    FAULT_WRONG_RTR_TYPE,
    FAULT_FPDU_BEFORE_RTR,
    FAULT_RESPONDER_FPDU_FIRST,
    FAULT_BAD_CRC,
    FAULT_BAD_MARKER,
    FAULT_NO_REPLY,
    FAULT_NEVER_CLOSE,
    FAULT_TERM_5,
    FAULT_TERM_6,
    FAULT_TERM_7,
    FAULT_TERM_RSVD,
    FAULT_TERM_RV0,
    FAULT_READ_NOT_LAST,
    FAULT_DROP_FIRST_FPDU,
    FAULT_DDP_UNCHECKED,
    FAULT_INV_UNCHECKED,
    FAULT_NO_DROP_AFTER_ERROR,
    FAULT_ALIGNED_ONLY,
    FAULT_MSN_PER_SEGMENT,
    FAULT_TERM_NO_HDR,
    FAULT_READ_UNCHECKED,
    FAULT_READ_ZERO_CHECKED,
    FAULT_ATOMIC_UNALIGNED,
    FAULT_WRITE_UNBOUNDED,
    FAULT_A1_IGNORED,
    FAULT_ECHO_EARLY,
    FAULT_ECHO_TWICE,
    FAULT_ECHO_REORDERED,
    FAULT_IMM_UNCHECKED,
    FAULT_IRD_SHORT,
    FAULT_CMPSWAP_MISSING,
    FAULT_CMPSWAP_NO_WRITE,
    FAULT_WRITE_NOT_PLACED,
    FAULT_FPDUPTR_LOWBITS,
    FAULT_ZERO_WRITE_CHECKED,
    FAULT_CLOSE_NO_TERMINATE,
    FAULT_TO_WRAP_UNCHECKED,
    FAULT_EOF_DROPS_READS,
    FAULT_TERM_LAST_ERROR,
    FAULT_READ_STALE,
    FAULT__COUNT
} peer_fault;

#define FAULT_ROLE_I 1u /* applies to an Initiator */
#define FAULT_ROLE_R 2u /* applies to a Responder */
#define FAULT_NEEDS_ENH 1u
#define FAULT_NEEDS_P2P 2u

typedef struct fault_info {
    const char *name;
    unsigned roles;       /* FAULT_ROLE_* */
    unsigned needs;       /* FAULT_NEEDS_* */
    const char *ids_i;    /* rule ids mpa-audit reports, as Initiator ("-": none) */
    const char *ids_r;    /* ... as Responder */
    const char *what;     /* what this end does wrong, one line */
    const char *reaction; /* what a correct other end does */
} fault_info;

/* The row of f (FAULT_NONE .. FAULT__COUNT-1); never NULL. */
const fault_info *fault_get(peer_fault f);
/* FAULT__COUNT when no fault has that name. */
peer_fault fault_find(const char *name);

/* ---- configuration (options.c fills it) ------------------------------ */

typedef struct peer_cfg {
    int listen;            /* TCP passive open */
    const char *addr;      /* --listen ADDR (NULL: any) or --connect HOST */
    const char *port;
    mpa_role role;         /* MPA role (not the TCP one) */
    uint8_t markers, crc;  /* M and C this end sends */
    uint8_t rev;
    uint8_t enhanced, p2p;
    uint16_t ird, ord;
    uint8_t rtr[3];        /* supported RTR types (mpa_rtr_kind), preferred first */
    unsigned n_rtr;
    uint8_t pd[MPA_PD_MAX];
    size_t pd_len;
    uint8_t reject;
    int timeout_ms;
    unsigned long send_n;  /* Sends after the startup */
    size_t size;           /* octets per Send */
    unsigned long count;   /* connections, 0 = forever */
    unsigned concurrency;
    int stats, quiet, verbose;
    peer_fault fault;
} peer_cfg;

/* Exit statuses besides 0 and 1 (the other side broke a rule). */
#define EXIT_USAGE 2
#define EXIT_FAILED 3

/* Read the command line into *cfg, checking every option against the
 * others.  --help and --list-faults print and exit 0; a usage error
 * prints why and exits EXIT_USAGE. */
void peer_options(int argc, char **argv, peer_cfg *cfg);

/* Serve connections as cfg says until they are done or SIGINT/SIGTERM;
 * one line per connection on stdout.  Returns the exit status: 0, 1
 * (a finding of error level about the other side), EXIT_FAILED (a
 * connection failed otherwise); may exit EXIT_USAGE (an address that
 * does not resolve) or EXIT_FAILED (no listening socket). */
int peer_serve(const peer_cfg *cfg);

/* ---- one connection (conn.c) ---------------------------------------- */

typedef enum peer_phase {
    PH_STARTUP = 0, /* startup frames */
    PH_FULL,        /* Full Operation: FPDUs */
    PH_SILENT,      /* --fault no-reply: waits, says nothing */
    PH_CLOSING,     /* decided to close: flush, FIN, wait for the peer's FIN */
} peer_phase;

typedef enum peer_end {
    END_NONE = 0,
    END_OK,          /* the work was done and both sides closed */
    END_REJECTED,    /* the Reply had R=1 (sent or received) */
    END_BAD_FRAME,   /* the peer's startup frame was improperly formatted: closed */
    END_STARTUP,     /* the startup failed otherwise (Initiator/Initiator, S=1 unsupported, ...) */
    END_TERM_SENT,   /* this end sent a TERMINATE */
    END_TERM_RCVD,   /* the peer sent a TERMINATE */
    END_PEER_CLOSED, /* the peer closed before the work was done */
    END_TIMEOUT,
    END_RESET,
    END_ERROR,       /* a local socket error */
    END_FAULT,       /* this end closed as its fault mode says */
} peer_end;

const char *peer_end_str(peer_end e);

typedef struct pbuf {
    uint8_t *p;
    size_t len, cap;
} pbuf;

#define PEER_BND_MAX 16
#define FSET_WORDS ((MPA_F__COUNT + 63) / 64)

typedef struct conn {
    const peer_cfg *cfg;
    mpa_role role;
    uint8_t phase;        /* peer_phase */
    uint8_t end;          /* peer_end: the first reason recorded */

    /* startup */
    uint8_t peer_frame_seen, peer_frame_done;
    uint8_t sent_s;       /* our Request/Reply had S=1 */
    uint8_t sent_a;       /* ... and A=1 */
    uint8_t rev_tx;       /* Rev we sent */
    uint8_t enh;          /* both frames carry the RFC 6581 field */
    uint8_t a;            /* A=1 both ways, accepted: an RTR is due */
    uint8_t rtr;          /* the RTR sent (Initiator) or received (Responder) */
    uint8_t offered;      /* RTR types our Reply offered (bit per mpa_rtr_kind) */
    uint8_t got_fpdu;     /* a valid FPDU was received (rule 4) */
    mpa_frame pf;         /* the peer's frame (pf.pd is NULL) */

    /* negotiated */
    uint8_t m_tx, m_rx, crc;
    uint16_t ird, ord;    /* local values after the negotiation */

    /* reactions */
    uint8_t react;        /* RE_* */
    uint8_t react_code;   /* TERMINATE code for RE_TERM */
    /* A TERMINATE for an error in a received DDP segment (RFC 5041 7.1,
     * RFC 5040 5.3, 7.1 rule 2), when react_seg: its layer and EType,
     * with the segment's length and DDP header copied (M=1, D=1);
     * otherwise react_code is an LLP/MPA code. */
    uint8_t react_seg, react_layer, react_etype;
    uint16_t react_seglen;
    mpa_ddp_hdr react_hdr;
    uint8_t react_r;             /* the TERMINATE copies react_rreq (R=1) */
    uint8_t read_held;           /* --fault eof-drops-reads: held_rreq is not answered yet */
    mpa_rdma_read_req held_rreq;
    mpa_rdma_read_req react_rreq; /* the Read Request that failed its checks */
    uint8_t reacted;      /* the reaction was carried out */
    uint8_t term_sent, term_rcvd; /* codes (0 none) */
    uint8_t fault_done;   /* the fault was applied */
    uint8_t fault_na;     /* the fault could not apply to this connection */
    uint8_t want_shut;    /* flush, then shutdown(SHUT_WR) */
    uint8_t shut;         /* our FIN is out */
    uint8_t peer_eof;
    uint8_t progress;     /* something moved: the I/O layer renews the deadline */
    uint8_t rx_in_fpdu;   /* the peer's direction is in FPDU mode */

    /* our FPDU stream */
    uint64_t tx_off;      /* stream offset of the next octet we queue */
    uint64_t tx_mode_off; /* where our FPDU mode began (marker base) */
    uint32_t msn[4];      /* next MSN for QN 0 (Send), 1 (Read Request), 2 (Terminate), 3 (Atomic Response) */
    unsigned long sends_left, echoes_left, echoes_done;
    unsigned long bad_echo; /* echoes whose octets differ from what was sent */
    unsigned long reads_left;
    unsigned long reads_rx; /* Read Requests received (the RTR included) */
    uint64_t fpdus_tx, fpdus_rx;
    /* the peer's untagged queues 0-3 (RFC 5041 7.1): the MSN of the
     * message the one buffer this end posts on each takes next */
    uint32_t rx_msn[4];
    /* the Send message being reassembled (RFC 5041 5.4: delivered, so
     * echoed, only whole, once its L=1 segment came): its octets so far,
     * up to RX_BUF_MAX; and, for --fault echo-reordered, the echo held
     * back behind the next one */
    pbuf msg, held;
    /* the octets of this end's one buffer (STag PEER_SRC_STAG), for
     * RDMA Writes and Atomic Operations; allocated at the first one */
    uint8_t *mem;
    uint8_t holding;
    uint32_t msg_seg, held_seg; /* their largest segment's payload */
    uint32_t msg_have;    /* msg holds every octet below this one */
    uint32_t echo_seg;    /* queue_send cuts at this payload too when 500 or more (0: MULPDU only) */
    unsigned long delivered; /* Send messages delivered (echoed) */

    /* findings, by id: about the peer and about this end */
    uint64_t f_peer[FSET_WORDS], f_self[FSET_WORDS];
    uint8_t peer_err;     /* an error-level finding about the peer */

    /* octets out: [0, tx_wr) written, [0, tx_fed) given to the feeder */
    pbuf tx;
    size_t tx_wr, tx_fed;
    size_t bnd[PEER_BND_MAX]; /* ends of the records (frames, FPDUs) queued in tx */
    uint8_t n_bnd;
    unsigned emss;        /* for MULPDU (RFC 5044 4.5) and write sizes; 0: not asked yet */
    int fd;               /* the socket, only to ask for the MSS */

    /* octets in: rx holds the stream from rx_off on (a partial FPDU
     * whose payload an echo needs, and octets the engine did not take
     * yet, which the feeder holds and feeds: their events read them
     * here) */
    pbuf rx;
    uint64_t rx_off;      /* stream offset of rx.p[0] */
    uint64_t rx_end;      /* octets of the peer received (all given to the feeder) */
    uint64_t rx_read_off; /* stream offset of the first octet of the latest read */
    uint64_t rx_fpdu_start; /* where the peer's next FPDU starts */
    const uint8_t *rv;    /* the octets at stream offset rv_off: rx, or the
                             caller's during conn_input */
    uint64_t rv_off;
    size_t rv_len;

    char name[64];        /* the peer's address, for messages */
    mpa_stream *s;        /* the engine judging both directions */
    mpa_feeder *feed;     /* what the engine cannot take yet */
} conn;

/* Reactions to what the peer did. */
enum { RE_NONE = 0, RE_TERM, RE_CLOSE, RE_BADFRAME };

/* Initialise c for role (after the TCP connection is up on fd, or -1);
 * the Initiator queues its Request.  Allocates the engine and its feeder
 * (buffers come when octets flow); conn_free releases everything.
 * Returns 0, or -1 when out of memory (then only conn_free may follow). */
int conn_init(conn *c, const peer_cfg *cfg, mpa_role role, const char *name, int fd);
void conn_free(conn *c);

/* n octets received.  Queues what this end answers in c->tx. */
void conn_input(conn *c, const uint8_t *p, size_t n);

/* The octets to write next (*p, returned length; 0 when none): they end
 * on a record boundary so that segments start with an FPDU.  Then
 * conn_written with how many went out. */
size_t conn_tx_next(conn *c, const uint8_t **p);
void conn_written(conn *c, size_t n);

/* Our FIN went out (shutdown(SHUT_WR) done). */
void conn_shut(conn *c);

/* The peer closed (FIN) or reset (rst != 0). */
void conn_peer_end(conn *c, int rst);

/* The deadline passed. */
void conn_timeout(conn *c);

/* A local socket error. */
void conn_error(conn *c);

/* 1 when the connection is over: our FIN is out and the peer's arrived. */
int conn_done(const conn *c);

/* One line about the connection (no newline), for stdout. */
void conn_report(conn *c, char *buf, size_t cap);

/* Rule ids (space separated, "-" for none) of set. */
void fset_str(const uint64_t *set, char *buf, size_t cap);

#endif

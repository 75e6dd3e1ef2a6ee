/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The MPA-connection layer: one TCP connection of a capture, from its
 * segments to libmpa's stream engine.  mpa-audit and the Wireshark plugin
 * both use it, so they see the same octets in the same order and make
 * the same decisions; they differ only in how they find connections
 * (mpa-audit's own table, Wireshark's tcp.stream) and how they show the
 * result.
 *
 * Per connection it:
 *  - reassembles both directions (tcp.h);
 *  - decides whether the connection speaks MPA.  MPA has no port of its
 *    own (RFC 5044 7.1: the ULP decides when a TCP connection turns to
 *    MPA), so a connection is taken for MPA when the first octets of
 *    either direction are an MPA key, "MPA " (the Request, the Reply, the
 *    draft-03 Start Key and the 2007 RtR frame all start so), or when
 *    the owner says MPA is there (a port the user named, Decode As).
 *    Until that is decided its octets wait (bounded); a connection that
 *    is not MPA costs nothing more once decided;
 *  - feeds the engine both directions in arrival order through libmpa's
 *    feeder (mpa/feed.h), the held octets bounded per direction and by
 *    the memory all connections share;
 *  - says what the capture could not show, as MPA-CAP-* notes:
 *    conflicting retransmissions, segments out of the window, holes
 *    declared early for lack of memory, packets cut by the snap length,
 *    octets over a holding limit.  Notes made before the connection is
 *    known to speak MPA are held, and given only if it turns out to.
 *
 * Frame numbers are the owner's tags (uint64_t), passed through as given.
 */
#ifndef CAPTURE_MPACONN_H
#define CAPTURE_MPACONN_H

#include <stddef.h>
#include <stdint.h>

#include "mpa/feed.h"
#include "mpa/findings.h"
#include "mpa/stream.h"
#include "tcp.h"

#define MC_UNDECIDED_MAX (64u * 1024u) /* octets held (with bookkeeping) before MPA is decided */
#define MC_PENDING_MAX (4u << 20)      /* held for a direction the engine makes wait */

typedef enum mc_state { MC_UNDECIDED = 0, MC_MPA, MC_IGNORED } mc_state;

/* What all connections of one reader share: the memory for TCP data held
 * (out-of-order segments and octets waiting for the engine, bookkeeping
 * included), bounded by budget.cap. */
typedef struct mc_shared {
    tcp_budget budget;
    size_t held;
    const char *cap_desc;  /* how the user names the limit, for messages: "--mem-cap 8 MiB" */
    int held_limit_done;   /* the note about it was made */
    void *user;
    /* A note about the reader as a whole (the shared memory ran out). */
    void (*global_note)(void *user, mpa_finding_id id, const char *msg);
} mc_shared;

/* One captured TCP segment of the connection, as its headers say. */
typedef struct mc_seg {
    int dir;               /* 0: from the client (sent the SYN), 1: from the server */
    uint32_t seq, ack;
    uint8_t syn, ack_flag, fin, rst;
    uint16_t mss;          /* MSS option of a SYN; 0 when none */
    const uint8_t *payload;
    uint32_t len;          /* payload octets captured */
    uint32_t wire;         /* payload octets the segment carried (>= len when cut) */
    uint64_t frame;
} mc_seg;

/* What the owner learns, in stream order.  Every pointer may be NULL. */
typedef struct mc_hooks {
    void *user;
    /* The engine's events (see mpa/stream.h). */
    mpa_event_fn event;
    /* An MPA-CAP-* note about this connection (off UINT64_MAX: none). */
    void (*note)(void *user, mpa_finding_id id, int dir, uint64_t off, uint64_t frame, const char *msg);
    /* In-order octets of dir at off (before the engine sees them), a hole,
     * the end of dir; only while the connection is not ignored. */
    void (*data)(void *user, int dir, uint64_t off, const uint8_t *p, uint32_t len, uint64_t frame);
    void (*gap)(void *user, int dir, uint64_t off, uint64_t len, uint64_t frame);
    void (*end)(void *user, int dir, int rst, uint64_t frame);
    /* The connection turns out to speak MPA: called just before its
     * engine starts (and before the notes it held are given). */
    void (*starting)(void *user);
} mc_hooks;

/* What the owner knows of the connection from outside its octets. */
typedef struct mc_cfg {
    uint8_t listed;        /* MPA is assumed (a named port, Decode As): also mid-stream */
    uint8_t to_port[2];    /* dir's octets go to a named port */
    /* Mid-stream framing (mpa_tri): [0] octets sent to the named port, [1] from it. */
    uint8_t mid_markers[2], mid_crc[2];
    uint8_t quiet_markers; /* the hooks want no marker events (mpa_stream_quiet_markers) */
} mc_cfg;

typedef struct mc_conn mc_conn;

/* A new connection (NULL when out of memory).  sh is shared by all the
 * owner's connections and outlives them. */
mc_conn *mc_new(const mc_cfg *cfg, const mc_hooks *hooks, mc_shared *sh);

/* Frees everything it holds. */
void mc_free(mc_conn *c);

/* Where seg's payload starts in its direction's stream (1), or 0 when it
 * lies outside the window.  Call before mc_segment when the offset must
 * be known while the segment's events arrive. */
int mc_payload_offset(mc_conn *c, const mc_seg *seg, uint64_t *off);

/* One captured segment: SYN, ACK (a peer's acknowledgement settles holes
 * before queued data), payload, FIN, RST. */
void mc_segment(mc_conn *c, const mc_seg *seg);

/* 1 once nothing more can come: a RST, or both directions closed. */
int mc_over(const mc_conn *c);

/* The connection is over, or the capture is: what TCP still holds is
 * delivered (holes declared), a connection still undecided is taken for
 * not MPA, and the engine reports what is left incomplete.  frame: where
 * the reader is. */
void mc_close(mc_conn *c, uint64_t frame);

/* The owner names the connection MPA after its start (Decode As): listed
 * from now on; one already ignored is taken up again, mid-stream. */
void mc_force(mc_conn *c, const mc_cfg *cfg);

/* Read-only views. */
mc_state mc_get_state(const mc_conn *c);
mpa_stream *mc_stream(const mc_conn *c);        /* NULL until it speaks MPA */
const tcp_dir *mc_tcp(const mc_conn *c, int dir);
int mc_syn_seen(const mc_conn *c);              /* the client's SYN was captured */
uint32_t mc_client_isn(const mc_conn *c);
int mc_midstream(const mc_conn *c);             /* its engine started mid-stream */
uint16_t mc_mss(const mc_conn *c, int dir);     /* MSS announced by dir's SYN, 0 when none */
uint64_t mc_cut_packets(const mc_conn *c, int dir);
uint64_t mc_payload_octets(const mc_conn *c, int dir);

#endif

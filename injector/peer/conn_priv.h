/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The insides of one connection, shared by the files it is made of (see the
 * map at the top of conn.c).  mpa-peer is one program, so these names
 * carry no prefix; nothing but the connection's files includes this.
 * conn.c calls the others, startup.c and conn_in.c call conn_out.c,
 * everything may call faults.c and conn_report.c; none calls back up.
 */
#ifndef MPA_PEER_CONN_PRIV_H
#define MPA_PEER_CONN_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "peer.h"

#define SELF PEER_DIR_SELF
#define PEER PEER_DIR_PEER

/* The one buffer this end exposes, for RDMA Reads (RFC 5040 7.2) and
 * Writes (RFC 5041 7.1): STag 0 (the suites' default $src_stag and
 * $sink_stag), offsets 0 to PEER_SRC_LEN - 1. */
#define PEER_SRC_STAG 0u
#define PEER_SRC_LEN (1u << 20)

/* ---- conn_out.c: what this end queues ----------------------------------- */

/* Room for more octets in b: 0, or -1 when memory runs out. */
int pbuf_reserve(pbuf *b, size_t more);

/* Record why the connection ends (the first reason wins) and close:
 * flush what is queued, send FIN, wait for the peer's FIN. */
void close_with(conn *c, peer_end why);
void local_error(conn *c);


void queue_frame(conn *c, const mpa_frame_enc *e);
/* A Send message of plen octets (payload NULL: data Send number k, the
 * pattern), cut to MULPDU; mo is its first Message Offset, last its L. */
void queue_send(conn *c, const uint8_t *payload, size_t plen, uint32_t mo, int last, unsigned long k);
void queue_term(conn *c, unsigned code);
/* The TERMINATE for an error in a received segment: c->react_layer,
 * react_etype, react_code, the segment's length and DDP header copied. */
void queue_term_seg(conn *c);
void queue_rtr(conn *c, unsigned kind);
/* The RDMA Read Response to rq (RFC 5040 4.5), or the reaction to one
 * too large. */
void answer_read(conn *c, const mpa_rdma_read_req *rq);
/* The Atomic Response (RFC 7306 5.2.2) to Request req_id: orig is the
 * target's value before the operation. */
void answer_atomic(conn *c, uint32_t req_id, uint64_t orig);
/* The octet at offset o of this end's k-th data Send. */
uint8_t pattern(unsigned long k, uint64_t o);
/* The connection's EMSS, asked once, when first needed. */
unsigned emss(conn *c);

/* ---- conn_in.c: the engine's events ------------------------------------- */

void on_event(void *user, const mpa_event *ev);

/* ---- startup.c ------------------------------------------------------------ */

/* The Initiator's Request; the Responder's answer to a whole Request;
 * the Initiator's reading of a whole Reply. */
void init_start(conn *c);
void resp_frame(conn *c);
void init_frame(conn *c);

/* ---- faults.c: applying this end's fault ---------------------------------- */

/* The fault could not apply here: say so once and behave correctly. */
void fault_not_here(conn *c, const char *why);
/* f is this end's fault and it is still to be applied. */
int faulty(const conn *c, peer_fault f);
/* Which marker of an FPDU to corrupt for bad-marker (-1: none can). */
int marker_victim(uint32_t seq, size_t wl, uint32_t base);
/* The private data of a frame, as the PD-length faults change it; the
 * faults that change a frame's header. */
void frame_pd(const conn *c, mpa_frame_enc *e);
void frame_faults(conn *c, mpa_frame_enc *e, uint8_t *key);

/* ---- conn_report.c -------------------------------------------------------- */

/* Add rule id to a set of findings. */
void fset_add(uint64_t *set, unsigned id);

#endif

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The feeder: what a stream engine hands back, held and fed again in order.
 *
 * mpa_stream_feed() may take fewer octets than it is given: the
 * Initiator's octets after its Request cannot be framed before the
 * Reply shows its M bit (RFC 5044 7.1.2, RFC 6581 9), so the engine
 * makes that direction wait.  Every caller must then keep the rest, and
 * feed both directions again in the order they arrived, with the holes
 * and ends that came after them.  The feeder does exactly that, once,
 * for everybody: a queue per direction, stamped with arrival order
 * across both, pumped into the engine whenever a direction may go on.
 *
 * It may also hold octets before there is an engine at all (a capture
 * reader that has not yet decided whether a connection speaks MPA):
 * items wait until mpa_feeder_bind() names the engine.
 *
 * Octets are fed straight through when nothing of their direction is
 * queued (the common case: no copy, no allocation); only what the engine
 * leaves is copied.  What is held is bounded by the limits below; octets
 * over a limit are replaced by a hole of the same length (the engine
 * then reports and resynchronises as for capture loss), and the call
 * says so, so that nothing is lost silently.
 */
#ifndef MPA_FEED_H
#define MPA_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "mpa/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mpa_feeder mpa_feeder;

/* What the feeder may hold.  Sizes are costs: octets plus bookkeeping
 * (mpa_feeder_cost), so that a flood of one-octet pieces cannot hold
 * many times the limit. */
typedef struct mpa_feeder_limits {
    size_t dir_cap;     /* the most one direction may hold; 0: no limit */
    size_t *shared;     /* NULL, or a count shared with other holders (other
                           feeders, TCP reassembly): the feeder adds what it
                           holds and subtracts what it lets go */
    size_t shared_cap;  /* with shared: the most that count may reach; 0: no limit */
} mpa_feeder_limits;

typedef enum mpa_feed_status {
    MPA_FEED_OK = 0,          /* fed, or held for later */
    MPA_FEED_OVER_DIR = 1,    /* over dir_cap: held as a hole instead */
    MPA_FEED_OVER_SHARED = 2, /* over shared_cap: held as a hole instead */
    MPA_FEED_NOMEM = -1,      /* out of memory: held as a hole instead */
} mpa_feed_status;

/* A new feeder, bound to no engine (NULL when out of memory).  limits
 * may be NULL (no limits). */
mpa_feeder *mpa_feeder_new(const mpa_feeder_limits *limits);

/* Frees what it holds (returning it to the shared count) and the
 * feeder.  The engine is the caller's.  NULL is fine. */
void mpa_feeder_free(mpa_feeder *f);

/* Change the limits (they apply to what is pushed from then on). */
void mpa_feeder_set_limits(mpa_feeder *f, const mpa_feeder_limits *limits);

/* From now on feed s (caller-owned, initialised); everything held is
 * pumped into it at once, in arrival order. */
void mpa_feeder_bind(mpa_feeder *f, mpa_stream *s);

/* The engine bound, or NULL. */
mpa_stream *mpa_feeder_stream(const mpa_feeder *f);

/* len octets of dir arrived (seg_start: they begin a TCP segment, for
 * mpa_stream_segment).  Fed at once when nothing of dir waits; what the
 * engine leaves, or everything while something of dir waits or no
 * engine is bound, is copied and held. */
mpa_feed_status mpa_feeder_data(mpa_feeder *f, int dir, const uint8_t *p, size_t len, int seg_start);

/* len octets of dir are missing (mpa_stream_gap), after what dir holds. */
mpa_feed_status mpa_feeder_gap(mpa_feeder *f, int dir, uint64_t len);

/* dir's sender closed (mpa_stream_end), after what dir holds. */
mpa_feed_status mpa_feeder_end(mpa_feeder *f, int dir, mpa_end_kind kind);

/* Feed whatever the engine can take now (after it changed state by
 * other means).  Nothing happens without an engine. */
void mpa_feeder_pump(mpa_feeder *f);

/* End of input: pump, mpa_stream_finish, feed what is still held (the
 * engine reports it as not decoded), finish again.  Nothing happens
 * without an engine. */
void mpa_feeder_finish(mpa_feeder *f);

/* Drop everything held (returning it to the shared count). */
void mpa_feeder_clear(mpa_feeder *f);

/* What dir holds now, as a cost (0 when nothing waits). */
size_t mpa_feeder_held(const mpa_feeder *f, int dir);

/* The octets dir holds (data not yet fed; holes not counted). */
uint64_t mpa_feeder_octets(const mpa_feeder *f, int dir);

/* 1 when dir has nothing queued. */
int mpa_feeder_idle(const mpa_feeder *f, int dir);

/* The cost of holding one item: data of len octets (is_data 1), or a
 * hole or an end (is_data 0, len ignored). */
size_t mpa_feeder_cost(int is_data, uint64_t len);

#ifdef __cplusplus
}
#endif
#endif

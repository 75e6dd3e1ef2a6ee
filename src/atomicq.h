/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Outstanding RFC 7306 Atomic Requests of one direction (internal), so
 * that the stream engine can judge the Atomic Responses of the other
 * direction (RFC 7306 5.2.2): each carries the Request Identifier of the
 * Request it answers (Original Request Identifier), and Responses go out
 * in the order the Requests were received (rule 8), the other way
 * (rule 1).
 *
 * A fixed ring, zero-filled is empty; when more Requests are outstanding
 * than it holds, the oldest are forgotten and Responses are no longer
 * judged (what they answer is unknown).  Nothing is allocated.
 */
#ifndef MPA_ATOMICQ_H
#define MPA_ATOMICQ_H

#include <stdint.h>

#define ATOMICQ_LEN 32u

typedef struct atomicq {
    uint32_t id[ATOMICQ_LEN];
    uint32_t flag;      /* bit per slot: the caller's mark on that Request */
    uint32_t owed;      /* bit per slot: a Request owed an Atomic Response (atomicq_owed) */
    uint8_t head, n;
    uint8_t blind;      /* Requests were forgotten (overflow, a capture hole) */
    uint8_t last_flag;  /* the mark of the Request atomicq_answer last matched */
} atomicq;

/* What an Atomic Response's Original Request Identifier says. */
typedef enum atomicq_verdict {
    ATOMICQ_OK,         /* the oldest outstanding Request's id */
    ATOMICQ_NOT_JUDGED, /* the queue forgot Requests: nothing said */
    ATOMICQ_NONE,       /* no Request is outstanding */
    ATOMICQ_SKIPS,      /* a later outstanding Request's id: the older ones got none */
    ATOMICQ_UNKNOWN,    /* no outstanding Request has this id */
} atomicq_verdict;

/* A Request with identifier id was sent. */
void atomicq_push(atomicq *q, uint32_t id);

/* The same, marked (flag 0 or 1) for the caller to learn back when it
 * is answered (e.g. a Request that must not be answered at all). */
void atomicq_push_flag(atomicq *q, uint32_t id, int flag);

/* The same, and owed (0 or 1): whether the Request counts for
 * atomicq_owed (a valid Request the responder must answer). */
void atomicq_push_marks(atomicq *q, uint32_t id, int flag, int owed);

/* The number of outstanding Requests pushed as owed (0 once the queue
 * forgot Requests); *oldest is the id of the oldest of them. */
unsigned atomicq_owed(const atomicq *q, uint32_t *oldest);

/* Requests may have been lost from sight (a capture hole in either
 * direction): the queue is emptied and no longer judges. */
void atomicq_blind(atomicq *q);

/* An Atomic Response with Original Request Identifier id arrived the
 * other way: the Requests it answers leave the queue (the oldest for
 * ATOMICQ_UNKNOWN, so that one wrong id is one finding).  *oldest is the
 * id of the oldest outstanding Request (for ATOMICQ_SKIPS and
 * ATOMICQ_UNKNOWN).  q->last_flag is the mark of the Request matched
 * (ATOMICQ_OK, ATOMICQ_SKIPS), else 0. */
atomicq_verdict atomicq_answer(atomicq *q, uint32_t id, uint32_t *oldest);

#endif

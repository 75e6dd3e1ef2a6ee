/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The feeder (mpa/feed.h): octets the stream engine could not take yet,
 * held per direction and fed again in arrival order.
 *
 * Why the engine hands octets back: RFC 5044 7.1.2 rule 4 and RFC 6581
 * 9 let the Initiator send FPDUs right after its Request, framed as the
 * Reply will say (M); until the Reply is read, those octets cannot be
 * framed.  The two directions must reach the engine in the order they
 * were seen (who sent first is what the startup rules judge), so a held
 * direction keeps its holes and its end behind its octets, and the other
 * direction goes on.
 */
#include "mpa/feed.h"

#include <stdlib.h>
#include <string.h>

/* What an item costs against the limits besides its octets: the item
 * itself and the allocator's overhead, rounded up. */
#define ITEM_COST 64u

enum { Q_DATA = 0, Q_GAP, Q_END };

typedef struct item {
    struct item *next;
    uint8_t kind;
    uint8_t flag;      /* Q_DATA: begins a segment; Q_END: mpa_end_kind */
    uint32_t used;     /* Q_DATA: octets already fed */
    uint64_t seq;      /* arrival order across both directions */
    uint64_t len;      /* octets, or the hole's length */
    uint8_t data[];
} item;

struct mpa_feeder {
    mpa_stream *s;
    mpa_feeder_limits lim;
    item *head[2], *tail[2];
    size_t held[2];
    uint64_t seq;
};

size_t mpa_feeder_cost(int is_data, uint64_t len)
{
    if (!is_data)
        return ITEM_COST;
    return len > SIZE_MAX - ITEM_COST ? SIZE_MAX : ITEM_COST + (size_t)len;
}

mpa_feeder *mpa_feeder_new(const mpa_feeder_limits *limits)
{
    mpa_feeder *f = calloc(1, sizeof *f);
    if (f && limits)
        f->lim = *limits;
    return f;
}

void mpa_feeder_set_limits(mpa_feeder *f, const mpa_feeder_limits *limits)
{
    size_t *was = f->lim.shared;
    if (limits)
        f->lim = *limits;
    else
        memset(&f->lim, 0, sizeof f->lim);
    /* What is held moves to the new shared count. */
    if (was != f->lim.shared) {
        size_t all = f->held[0] + f->held[1];
        if (was)
            *was -= all;
        if (f->lim.shared)
            *f->lim.shared += all;
    }
}

static void charge(mpa_feeder *f, int dir, size_t cost, int add)
{
    if (add) {
        f->held[dir] += cost;
        if (f->lim.shared)
            *f->lim.shared += cost;
    } else {
        f->held[dir] -= cost;
        if (f->lim.shared)
            *f->lim.shared -= cost;
    }
}

static size_t item_cost(const item *q) { return mpa_feeder_cost(q->kind == Q_DATA, q->len); }

static void pop(mpa_feeder *f, int dir)
{
    item *q = f->head[dir];
    f->head[dir] = q->next;
    if (!f->head[dir])
        f->tail[dir] = NULL;
    charge(f, dir, item_cost(q), 0);
    free(q);
}

void mpa_feeder_clear(mpa_feeder *f)
{
    for (int dir = 0; dir < 2; dir++)
        while (f->head[dir])
            pop(f, dir);
}

void mpa_feeder_free(mpa_feeder *f)
{
    if (!f)
        return;
    mpa_feeder_clear(f);
    free(f);
}

/* Append an item; data over a limit (or without memory) becomes a hole.
 * Consecutive holes with nothing between them are one item: past a limit
 * every piece is a hole and must not cost an item each. */
static mpa_feed_status push(mpa_feeder *f, int dir, int kind, int flag, const uint8_t *p, uint64_t len)
{
    mpa_feed_status st = MPA_FEED_OK;
    if (kind == Q_DATA) {
        size_t cost = mpa_feeder_cost(1, len);
        if (f->lim.dir_cap && (cost > f->lim.dir_cap || f->held[dir] > f->lim.dir_cap - cost))
            st = MPA_FEED_OVER_DIR;
        else if (f->lim.shared && f->lim.shared_cap &&
                 (cost > f->lim.shared_cap || *f->lim.shared > f->lim.shared_cap - cost))
            st = MPA_FEED_OVER_SHARED;
        if (st != MPA_FEED_OK)
            kind = Q_GAP;
    }
    item *t = f->tail[dir];
    if (kind == Q_GAP && t && t->kind == Q_GAP && t->seq + 1 == f->seq) {
        t->len += len;
        return st;
    }
    size_t extra = kind == Q_DATA ? (size_t)len : 0;
    item *q = malloc(sizeof *q + extra);
    if (!q && kind == Q_DATA) {
        st = MPA_FEED_NOMEM;
        kind = Q_GAP;
        extra = 0;
        if (t && t->kind == Q_GAP && t->seq + 1 == f->seq) {
            t->len += len;
            return st;
        }
        q = malloc(sizeof *q);
    }
    if (!q)
        return MPA_FEED_NOMEM; /* nothing left to hold even a hole with */
    q->next = NULL;
    q->kind = (uint8_t)kind;
    q->flag = (uint8_t)flag;
    q->used = 0;
    q->seq = f->seq++;
    q->len = len;
    if (extra)
        memcpy(q->data, p, extra);
    charge(f, dir, item_cost(q), 1);
    if (t)
        t->next = q;
    else
        f->head[dir] = q;
    f->tail[dir] = q;
    return st;
}

void mpa_feeder_pump(mpa_feeder *f)
{
    mpa_stream *s = f->s;
    if (!s)
        return;
    for (;;) {
        int dir = -1;
        for (int k = 0; k < 2; k++) {
            if (!f->head[k] || mpa_stream_waiting(s, k))
                continue;
            if (dir < 0 || f->head[k]->seq < f->head[dir]->seq)
                dir = k;
        }
        if (dir < 0)
            return;
        item *q = f->head[dir];
        switch (q->kind) {
        case Q_DATA: {
            if (q->flag && q->used == 0)
                mpa_stream_segment(s, dir);
            size_t n = mpa_stream_feed(s, dir, q->data + q->used, (size_t)(q->len - q->used));
            q->used += (uint32_t)n;
            /* The engine takes less only while the direction waits; were
             * it ever otherwise, give the item up rather than spin. */
            if (q->used < q->len && (n || mpa_stream_waiting(s, dir)))
                continue;
            break;
        }
        case Q_GAP:
            mpa_stream_gap(s, dir, q->len);
            break;
        case Q_END:
            mpa_stream_end(s, dir, (mpa_end_kind)q->flag);
            break;
        }
        pop(f, dir);
    }
}

void mpa_feeder_bind(mpa_feeder *f, mpa_stream *s)
{
    f->s = s;
    mpa_feeder_pump(f);
}

mpa_stream *mpa_feeder_stream(const mpa_feeder *f) { return f->s; }

mpa_feed_status mpa_feeder_data(mpa_feeder *f, int dir, const uint8_t *p, size_t len, int seg_start)
{
    mpa_feed_status st = MPA_FEED_OK;
    if (!len)
        return st;
    if (f->s && !f->head[dir]) {
        /* Nothing of dir waits: offer the octets even when dir is held
         * back, so that the engine sees them arrive (early FPDUs are a
         * finding) and takes what it can. */
        if (seg_start)
            mpa_stream_segment(f->s, dir);
        size_t n = mpa_stream_feed(f->s, dir, p, len);
        if (n < len)
            st = push(f, dir, Q_DATA, 0, p + n, len - n);
    } else {
        st = push(f, dir, Q_DATA, seg_start, p, len);
    }
    if (f->head[0] || f->head[1])
        mpa_feeder_pump(f);
    return st;
}

/* A hole or an end of dir: given to the engine at once when nothing of
 * dir waits, else queued behind what does. */
static mpa_feed_status mark(mpa_feeder *f, int dir, int kind, int flag, uint64_t len)
{
    mpa_feed_status st = MPA_FEED_OK;
    if (f->s && !f->head[dir]) {
        if (kind == Q_GAP)
            mpa_stream_gap(f->s, dir, len);
        else
            mpa_stream_end(f->s, dir, (mpa_end_kind)flag);
    } else {
        st = push(f, dir, kind, flag, NULL, len);
    }
    mpa_feeder_pump(f);
    return st;
}

mpa_feed_status mpa_feeder_gap(mpa_feeder *f, int dir, uint64_t len) { return mark(f, dir, Q_GAP, 0, len); }

mpa_feed_status mpa_feeder_end(mpa_feeder *f, int dir, mpa_end_kind kind)
{
    return mark(f, dir, Q_END, (int)kind, 0);
}

void mpa_feeder_finish(mpa_feeder *f)
{
    if (!f->s)
        return;
    mpa_feeder_pump(f);
    mpa_stream_finish(f->s);
    /* A direction no longer waits after finish: what it held is fed now
     * and reported as not decoded. */
    mpa_feeder_pump(f);
    mpa_stream_finish(f->s);
}

size_t mpa_feeder_held(const mpa_feeder *f, int dir) { return f->held[dir]; }

uint64_t mpa_feeder_octets(const mpa_feeder *f, int dir)
{
    uint64_t n = 0;
    for (const item *q = f->head[dir]; q; q = q->next)
        if (q->kind == Q_DATA)
            n += q->len - q->used;
    return n;
}

int mpa_feeder_idle(const mpa_feeder *f, int dir) { return f->head[dir] == NULL; }

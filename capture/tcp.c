/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * TCP reassembly, one direction at a time: RFC 9293 3.4 (sequence
 * numbers, modulo 2^32), 3.10.7.4 (segment arrival: trimming to the
 * window, queueing out-of-order segments), RFC 7323 2.3 (the largest
 * window, which bounds how far a sequence number may be from the
 * expected one).  See tcp.h for what is delivered when.
 */
#include "tcp.h"

#include <stdlib.h>
#include <string.h>

/* A direction holding more out-of-order octets than this declares the
 * hole before them: a real receiver's window is rarely larger, and the
 * peer's ACKs normally settle holes long before. */
#define TCP_OOO_DIR_MAX (4u << 20)

struct tcp_seg {
    tcp_seg *next;
    uint64_t off;
    uint32_t len;
    uint64_t frame;
    int seg_start;   /* it begins a segment as sent */
    uint8_t data[];
};

_Static_assert(sizeof(tcp_seg) + 8 <= TCP_SEG_COST(0), "TCP_SEG_COST covers a segment's bookkeeping");

void tcp_dir_start(tcp_dir *t, uint32_t seq)
{
    t->have_base = 1;
    t->base_seq = seq;
    t->nxt = 0;
}

int tcp_dir_offset(const tcp_dir *t, uint32_t seq, uint64_t *off)
{
    int64_t diff = (int32_t)(seq - (t->base_seq + (uint32_t)t->nxt));
    if (diff > (int64_t)TCP_WINDOW_MAX || diff < -(int64_t)TCP_WINDOW_MAX || (diff < 0 && (uint64_t)-diff > t->nxt))
        return 0;
    *off = t->nxt + (uint64_t)diff;
    return 1;
}

/* The ring's copy, for every octet delivered: a memcpy whose length GCC
 * can bound (by TCP_RECENT) becomes `rep movsq`, several times slower on
 * current x86 CPUs than the C library's copy for runs of this size. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((noipa))
#endif
static void ring_copy(uint8_t *dst, const uint8_t *src, size_t n)
{
    memcpy(dst, src, n);
}

/* len octets at stream offset off into the ring: the last TCP_RECENT of
 * them, in at most two runs. */
static void ring_put(tcp_dir *t, uint64_t off, const uint8_t *p, uint32_t len)
{
    uint32_t k = len > TCP_RECENT ? len - TCP_RECENT : 0;
    uint64_t at = (off + k) % TCP_RECENT;
    uint32_t n = len - k, first = n < TCP_RECENT - at ? n : (uint32_t)(TCP_RECENT - at);
    ring_copy(t->recent + at, p + k, first);
    ring_copy(t->recent, p + k + first, n - first);
}

static void ref_unlink(tcp_refs *rf)
{
    if (!rf->list)
        return;
    age_unlink(&rf->list->ref_dirs, &rf->node);
    rf->list = NULL;
}

/* The referenced octets read back into the ring, in the order they
 * came: it is then what copying each delivery at once made it.  What
 * cannot be read is not compared (and counted). */
static void refs_settle(tcp_dir *t)
{
    tcp_refs *rf = t->refs;
    tcp_budget *b = rf ? rf->list : NULL;
    for (unsigned k = 0; b && k < rf->n; k++) {
        uint32_t len = rf->r[k].len, skip = len > TCP_RECENT ? len - TCP_RECENT : 0;
        uint64_t off = rf->r[k].off + skip;
        uint32_t at = (uint32_t)(off % TCP_RECENT), n = len - skip;
        uint32_t first = n < TCP_RECENT - at ? n : TCP_RECENT - at;
        if (b->src.read(b->src.user, rf->r[k].at + skip, t->recent + at, first) ||
            (n > first && b->src.read(b->src.user, rf->r[k].at + skip + first, t->recent, n - first))) {
            b->read_failed += len;
            if (t->recent_from < rf->r[k].off + len)
                t->recent_from = rf->r[k].off + len;
        }
    }
    if (rf) {
        rf->n = 0;
        ref_unlink(rf);
    }
}

void tcp_settle_all(tcp_budget *b)
{
    while (b->ref_dirs.oldest)
        refs_settle(AGE_ITEM(b->ref_dirs.oldest, tcp_refs, node)->owner);
}

/* Octets p[0..len) claim stream offsets [off, off+len), all before nxt:
 * compare them with what was delivered, where still kept. */
static void compare_recent(tcp_dir *t, int dir, uint64_t off, const uint8_t *p, uint32_t len, uint64_t frame,
                           const tcp_sink *sink)
{
    t->retrans_octets += len;
    if (!t->recent || !len)
        return;
    refs_settle(t);
    uint64_t lo = t->nxt > TCP_RECENT ? t->nxt - TCP_RECENT : 0;
    if (lo < t->recent_from)
        lo = t->recent_from;
    uint64_t from = off > lo ? off : lo, to = off + len < t->nxt ? off + len : t->nxt;
    uint64_t first = 0, ndiff = 0;
    for (uint64_t o = from; o < to; o++)
        if (t->recent[o % TCP_RECENT] != p[o - off]) {
            if (!ndiff)
                first = o;
            ndiff++;
        }
    if (ndiff) {
        t->conflicts++;
        if (sink->note)
            sink->note(sink->user, dir, TCP_NOTE_CONFLICT, first, to - first, frame);
    }
}

/* The octets and segment boundaries kept to judge retransmissions, in one
 * block, from the first time they may be kept (no_recent clear): a
 * connection not yet known to speak MPA costs nothing here. */
static void keep_start(tcp_dir *t)
{
    if (t->recent || t->no_recent)
        return;
    t->recent = malloc(TCP_RECENT + TCP_BND_N * sizeof *t->bnd + sizeof *t->refs);
    if (!t->recent)
        return;
    t->bnd = (uint64_t *)(void *)(t->recent + TCP_RECENT);
    t->refs = (tcp_refs *)(void *)(t->bnd + TCP_BND_N);
    memset(t->refs, 0, sizeof *t->refs);
    t->refs->owner = t;
    t->nbnd = 0;
    t->recent_from = t->nxt; /* nothing before is kept */
}

/* Keep the last TCP_RECENT octets delivered: copied at once, or, when
 * they are in the source (b->src; b NULL: not), where they are there. */
static void keep(tcp_dir *t, const uint8_t *p, uint32_t len, tcp_budget *b)
{
    uint64_t end = t->nxt + len;
    tcp_refs *rf = t->refs;
    /* References the new octets push out of the last TCP_RECENT go. */
    unsigned drop = 0;
    while (drop < rf->n && rf->r[drop].off + rf->r[drop].len + TCP_RECENT <= end)
        drop++;
    if (drop) {
        memmove(rf->r, rf->r + drop, (rf->n - drop) * sizeof rf->r[0]);
        rf->n = (uint8_t)(rf->n - drop);
        if (!rf->n)
            ref_unlink(rf);
    }
    if (!b || !b->src.at || !b->src.read) {
        refs_settle(t);
        ring_put(t, t->nxt, p, len);
        return;
    }
    if (rf->n == TCP_REFS)
        refs_settle(t);
    rf->r[rf->n].at = b->src.at - 1 + (uint64_t)(p - b->src.p);
    rf->r[rf->n].off = t->nxt;
    rf->r[rf->n].len = len;
    rf->n++;
    if (!rf->list) {
        rf->list = b;
        age_append(&b->ref_dirs, &rf->node);
    }
}

static void deliver(tcp_dir *t, int dir, const uint8_t *p, uint32_t len, int seg_start, uint64_t frame,
                    const tcp_sink *sink, tcp_budget *b)
{
    if (!len)
        return;
    keep_start(t);
    if (t->recent)
        keep(t, p, len, b);
    uint64_t off = t->nxt;
    t->nxt += len;
    sink->data(sink->user, dir, off, p, len, seg_start, frame);
}

static void hole(tcp_dir *t, int dir, uint64_t len, uint64_t frame, const tcp_sink *sink)
{
    if (!len)
        return;
    uint64_t off = t->nxt;
    t->nxt += len;
    t->recent_from = t->nxt;
    if (t->refs) { /* before recent_from: never read */
        t->refs->n = 0;
        ref_unlink(t->refs);
    }
    t->holes++;
    t->hole_octets += len;
    sink->gap(sink->user, dir, off, len, frame);
}

static void seg_free(tcp_dir *t, tcp_seg *s, tcp_budget *b)
{
    t->ooo_bytes -= s->len;
    b->used -= s->len;
    if (t->charge)
        *t->charge -= TCP_SEG_COST(s->len);
    free(s);
}

/* Deliver queued segments that now touch nxt; those already covered
 * are compared and dropped. */
static void drain(tcp_dir *t, int dir, const tcp_sink *sink, tcp_budget *b)
{
    while (t->ooo && t->ooo->off <= t->nxt) {
        tcp_seg *s = t->ooo;
        t->ooo = s->next;
        if (!t->ooo)
            t->ooo_tail = NULL;
        uint64_t end = s->off + s->len;
        uint32_t old = end <= t->nxt ? s->len : (uint32_t)(t->nxt - s->off);
        compare_recent(t, dir, s->off, s->data, old, s->frame, sink);
        if (end > t->nxt)
            deliver(t, dir, s->data + old, s->len - old, s->seg_start && old == 0, s->frame, sink, NULL);
        seg_free(t, s, b);
    }
}

static void check_fin(tcp_dir *t, int dir, const tcp_sink *sink)
{
    if (t->fin_seen && !t->ended && t->nxt >= t->fin_off) {
        t->ended = 1;
        sink->end(sink->user, dir, 0, t->fin_frame);
    }
}

/* Declare the hole before the first queued segment and deliver from it. */
static void skip_to_queue(tcp_dir *t, int dir, uint64_t frame, const tcp_sink *sink, tcp_budget *b)
{
    if (!t->ooo)
        return;
    hole(t, dir, t->ooo->off - t->nxt, frame, sink);
    drain(t, dir, sink, b);
}

/* Queue [off, off+len) (all past nxt), keeping the copies queued first
 * where they overlap.  Returns 0 when the budget cannot take it. */
static int enqueue(tcp_dir *t, int dir, uint64_t off, const uint8_t *p, uint32_t len, int seg_start, uint64_t frame,
                   const tcp_sink *sink, tcp_budget *b)
{
    if (t->charge ? *t->charge + TCP_SEG_COST(len) > b->cap : b->used + len > b->cap)
        return 0;
    tcp_seg **link = &t->ooo;
    /* After a hole the segments that follow arrive in order: start at
     * the tail rather than walk a list of thousands for each (a flood of
     * small segments made this quadratic: minutes of CPU). */
    if (t->ooo_tail && t->ooo_tail->off + t->ooo_tail->len <= off)
        link = &t->ooo_tail->next;
    uint64_t cur = off, end = off + len;
    while (cur < end) {
        tcp_seg *s = *link;
        if (s && s->off + s->len <= cur) {
            link = &s->next;
            continue;
        }
        uint64_t piece_end = s && s->off < end ? s->off : end;
        if (piece_end > cur) {
            uint32_t n = (uint32_t)(piece_end - cur);
            tcp_seg *q = malloc(sizeof *q + n);
            if (!q)
                return 0;
            q->off = cur;
            q->len = n;
            q->frame = frame;
            q->seg_start = seg_start && cur == off;
            memcpy(q->data, p + (cur - off), n);
            q->next = s;
            *link = q;
            link = &q->next;
            if (!s)
                t->ooo_tail = q;
            t->ooo_bytes += n;
            b->used += n;
            if (t->charge)
                *t->charge += TCP_SEG_COST(n);
            if (b->used > b->peak)
                b->peak = b->used;
            cur = piece_end;
            continue;
        }
        /* s overlaps [cur, ...): compare the common part. */
        uint64_t to = s->off + s->len < end ? s->off + s->len : end;
        uint64_t first = 0, ndiff = 0;
        for (uint64_t o = cur; o < to; o++)
            if (s->data[o - s->off] != p[o - off]) {
                if (!ndiff)
                    first = o;
                ndiff++;
            }
        t->retrans_octets += to - cur;
        if (ndiff) {
            t->conflicts++;
            if (sink->note)
                sink->note(sink->user, dir, TCP_NOTE_CONFLICT, first, to - first, frame);
        }
        cur = to;
        link = &s->next;
    }
    t->ooo_segments++;
    return 1;
}

/* first_tx: the segment reaches past everything the direction sent
 * before it (a first transmission); a retransmission may be cut into
 * other segments than the original, so it does not start a segment as
 * sent (FPDU alignment is judged on first transmissions only). */
static void data_at(tcp_dir *t, int dir, uint64_t off, const uint8_t *p, uint32_t len, uint64_t frame,
                    const tcp_sink *sink, tcp_budget *b, int first_tx)
{
    int seg_start = first_tx;
    uint64_t end = off + len;
    if (end <= t->nxt) {
        compare_recent(t, dir, off, p, len, frame, sink);
        return;
    }
    if (off < t->nxt) {
        uint32_t k = (uint32_t)(t->nxt - off);
        compare_recent(t, dir, off, p, k, frame, sink);
        p += k;
        len -= k;
        off = t->nxt;
        seg_start = 0;
    }
    if (off == t->nxt) {
        deliver(t, dir, p, len, seg_start, frame, sink, b);
        drain(t, dir, sink, b);
        return;
    }
    if (!enqueue(t, dir, off, p, len, seg_start, frame, sink, b)) {
        /* Out of memory budget: settle this direction now rather than
         * hold more.  The holes are declared early, and said so. */
        b->early_holes++;
        if (sink->note)
            sink->note(sink->user, dir, TCP_NOTE_EARLY_HOLE, t->nxt, off - t->nxt, frame);
        while (t->ooo && t->ooo->off < off)
            skip_to_queue(t, dir, frame, sink, b);
        if (off > t->nxt)
            hole(t, dir, off - t->nxt, frame, sink);
        data_at(t, dir, off, p, len, frame, sink, b, first_tx);
        return;
    }
    while (t->ooo && t->ooo_bytes > TCP_OOO_DIR_MAX) {
        b->early_holes++;
        if (sink->note)
            sink->note(sink->user, dir, TCP_NOTE_EARLY_HOLE, t->nxt, t->ooo->off - t->nxt, frame);
        skip_to_queue(t, dir, frame, sink, b);
    }
}

/* Segment boundaries of first transmissions, in increasing order. */
static void bnd_add(tcp_dir *t, uint64_t at)
{
    keep_start(t);
    if (!t->bnd)
        return;
    if (t->nbnd && t->bnd[(t->nbnd - 1) % TCP_BND_N] == at)
        return;
    t->bnd[t->nbnd % TCP_BND_N] = at;
    t->nbnd++;
}

/* 1: at is a kept boundary; 0: it is not; -1: older than those kept. */
static int bnd_has(const tcp_dir *t, uint64_t at)
{
    uint32_t n = t->nbnd < TCP_BND_N ? t->nbnd : TCP_BND_N;
    if (!t->bnd || !n || at < t->bnd[(t->nbnd - n) % TCP_BND_N])
        return -1;
    for (uint32_t k = 0; k < n; k++)
        if (t->bnd[(t->nbnd - 1 - k) % TCP_BND_N] == at)
            return 1;
    return 0;
}

/* draft-03 7.3: a retransmission keeps the segment boundaries of the
 * first transmission.  Judged only for octets all captured before (no
 * hole since), where the boundaries around them are still kept. */
static void judge_reseg(tcp_dir *t, int dir, uint64_t off, uint32_t len, uint64_t frame, const tcp_sink *sink)
{
    uint64_t end = off + len;
    if (!len || end > t->nxt || off < t->recent_from || !t->recent)
        return;
    int a = bnd_has(t, off), z = bnd_has(t, end);
    if (a < 0 || z < 0 || (a && z))
        return;
    t->resegmented++;
    if (sink->note)
        sink->note(sink->user, dir, TCP_NOTE_RESEGMENT, off, len, frame);
}

void tcp_dir_segment(tcp_dir *t, int dir, uint32_t seq, const uint8_t *p, uint32_t len, uint32_t wire_len, int fin,
                     uint64_t frame, const tcp_sink *sink, tcp_budget *b)
{
    if (!t->have_base)
        tcp_dir_start(t, seq);
    t->segments++;
    if (t->ended)
        return;
    if (wire_len < len)
        wire_len = len;
    uint64_t off;
    if (!tcp_dir_offset(t, seq, &off)) {
        if (wire_len || fin) {
            t->out_of_window++;
            if (sink->note)
                sink->note(sink->user, dir, TCP_NOTE_OUT_OF_WINDOW, t->nxt, wire_len, frame);
        }
        return;
    }
    if (fin && !t->fin_seen) {
        t->fin_seen = 1;
        t->fin_off = off + wire_len;
        t->fin_frame = frame;
    }
    int first_tx = off >= t->high;
    if (wire_len && first_tx) {
        bnd_add(t, off);
        bnd_add(t, off + wire_len);
    } else if (wire_len && len == wire_len) {
        judge_reseg(t, dir, off, len, frame, sink);
    }
    if (off + wire_len > t->high)
        t->high = off + wire_len;
    if (len)
        data_at(t, dir, off, p, len, frame, sink, b, first_tx);
    /* The capture cut this segment: its tail will never come (unless
     * retransmitted), so once it is next, it is a hole. */
    if (wire_len > len && t->nxt == off + len) {
        hole(t, dir, wire_len - len, frame, sink);
        drain(t, dir, sink, b);
    }
    check_fin(t, dir, sink);
}

/* Octets [nxt, off) were sent and are not (or not yet) captured: they
 * are a hole, and so is the rest of a gap that off ends inside, when
 * queued data after it shows that the sender sent the whole of it. */
static void sent_upto(tcp_dir *t, int dir, uint64_t off, uint64_t frame, const tcp_sink *sink, tcp_budget *b)
{
    while (t->ooo && t->ooo->off <= off)
        skip_to_queue(t, dir, frame, sink, b);
    if (off <= t->nxt)
        return;
    if (t->ooo)
        skip_to_queue(t, dir, frame, sink, b);
    else
        hole(t, dir, off - t->nxt, frame, sink);
}

void tcp_dir_acked(tcp_dir *t, int dir, uint32_t ack, uint64_t frame, const tcp_sink *sink, tcp_budget *b)
{
    uint64_t a;
    if (!t->have_base || t->ended || !tcp_dir_offset(t, ack, &a))
        return;
    if (t->fin_seen && a > t->fin_off)
        a = t->fin_off; /* the FIN takes a sequence number, not an octet */
    if (a > t->acked)
        t->acked = a;
    /* The peer received everything below acked: what the capture lacks
     * there is a hole, and it is declared now, before the acknowledging
     * segment's own octets are delivered, so that the order of the two
     * directions is kept (the octets were sent before the peer's answer:
     * ordering rules must not blame the peer for answering them). */
    sent_upto(t, dir, t->acked, frame, sink, b);
    check_fin(t, dir, sink);
}

void tcp_dir_sent(tcp_dir *t, int dir, uint32_t seq, uint64_t frame, const tcp_sink *sink, tcp_budget *b)
{
    uint64_t off;
    if (!t->have_base || t->ended || !tcp_dir_offset(t, seq, &off))
        return;
    if (t->fin_seen && off > t->fin_off)
        off = t->fin_off;
    if (off > t->high)
        t->high = off;
    sent_upto(t, dir, off, frame, sink, b);
    check_fin(t, dir, sink);
}

void tcp_dir_rst(tcp_dir *t, int dir, uint64_t frame, const tcp_sink *sink, tcp_budget *b)
{
    if (t->ended)
        return;
    while (t->ooo)
        skip_to_queue(t, dir, frame, sink, b);
    t->ended = 1;
    sink->end(sink->user, dir, 1, frame);
}

void tcp_dir_flush(tcp_dir *t, int dir, uint64_t frame, const tcp_sink *sink, tcp_budget *b)
{
    if (t->ended || !t->have_base)
        return;
    while (t->ooo)
        skip_to_queue(t, dir, frame, sink, b);
    uint64_t want = t->acked;
    if (t->fin_seen && t->fin_off > want)
        want = t->fin_off;
    if (want > t->nxt)
        hole(t, dir, want - t->nxt, frame, sink);
    check_fin(t, dir, sink);
}

void tcp_dir_free(tcp_dir *t, tcp_budget *b)
{
    while (t->ooo) {
        tcp_seg *s = t->ooo;
        t->ooo = s->next;
        seg_free(t, s, b);
    }
    t->ooo_tail = NULL;
    if (t->refs)
        ref_unlink(t->refs);
    t->refs = NULL;
    free(t->recent);
    t->recent = NULL;
    t->bnd = NULL;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The MPA-connection layer (mpaconn.h): a captured TCP connection ->
 * reassembly -> "does it speak MPA?" -> libmpa's stream engine.
 *
 * Detection follows RFC 5044 7.1: nothing on the wire says "MPA" but the
 * startup frames themselves, whose keys all begin "MPA " (RFC 5044 7.1.1
 * Request and Reply, draft-03 8.1 Start Key, the 2007 RtR frame).  A
 * capture that starts after them can only be MPA because the user says
 * so (a named port, Decode As); its engine then starts mid-stream and
 * hunts for FPDU starts.
 */
#include "mpaconn.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Notes held for a connection not yet known to speak MPA (each kind of
 * note can repeat, so the hold is bounded and what is over is counted). */
#define HELD_NOTES 32

enum { V_NONE = 0, V_MPA, V_OTHER, V_LOST };

typedef struct held_note {
    mpa_finding_id id;
    int dir;
    uint64_t off, frame;
    char *msg;
} held_note;

struct mc_conn {
    mc_cfg cfg;
    mc_hooks h;
    mc_shared *sh;
    mc_state state;
    uint8_t syn_seen, midstream, overflow, limit_done, rst;
    uint8_t fin[2];                /* FIN seen while ignored */
    uint32_t client_isn;
    uint16_t mss[2];
    uint32_t cut_done;
    uint64_t cut_packets[2], payload_octets[2];
    tcp_dir tcp[2];
    tcp_sink sink;
    mpa_feeder *fd;
    mpa_stream *ms;
    /* detection: the first four octets of each direction */
    uint8_t first[2][4], nfirst[2], verdict[2];
    held_note *notes;              /* HELD_NOTES, allocated with the first */
    unsigned nnotes;
    uint64_t notes_lost;
};

/* ---- notes ------------------------------------------------------------- */

static void note_drop_held(mc_conn *c)
{
    for (unsigned i = 0; i < c->nnotes; i++)
        free(c->notes[i].msg);
    free(c->notes);
    c->notes = NULL;
    c->nnotes = 0;
    c->notes_lost = 0;
}

static void note_give(mc_conn *c, mpa_finding_id id, int dir, uint64_t off, uint64_t frame, const char *msg)
{
    if (c->h.note)
        c->h.note(c->h.user, id, dir, off, frame, msg);
}

#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
static void note(mc_conn *c, mpa_finding_id id, int dir, uint64_t off, uint64_t frame, const char *fmt, ...)
{
    if (c->state == MC_IGNORED)
        return;
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->state == MC_MPA) {
        note_give(c, id, dir, off, frame, msg);
        return;
    }
    /* Not yet known to speak MPA: kept quietly until it does. */
    if (!c->notes)
        c->notes = malloc(HELD_NOTES * sizeof *c->notes);
    char *m = c->notes && c->nnotes < HELD_NOTES ? strdup(msg) : NULL;
    if (!m) {
        c->notes_lost++;
        return;
    }
    c->notes[c->nnotes++] = (held_note){id, dir, off, frame, m};
}

static void notes_release(mc_conn *c)
{
    for (unsigned i = 0; i < c->nnotes; i++)
        note_give(c, c->notes[i].id, c->notes[i].dir, c->notes[i].off, c->notes[i].frame, c->notes[i].msg);
    if (c->notes_lost) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "%llu more capture notes made before the connection was known to speak MPA were not kept",
                 (unsigned long long)c->notes_lost);
        note_give(c, MPA_F_CAP_LIMIT, -1, UINT64_MAX, c->nnotes ? c->notes[c->nnotes - 1].frame : 0, msg);
    }
    note_drop_held(c);
}

static void global_note(mc_shared *sh, mpa_finding_id id, const char *msg)
{
    if (sh->global_note)
        sh->global_note(sh->user, id, msg);
}

/* ---- feeding ------------------------------------------------------------- */

static void set_limits(mc_conn *c)
{
    mpa_feeder_limits lim = {c->state == MC_MPA ? MC_PENDING_MAX : MC_UNDECIDED_MAX, &c->sh->held,
                             c->sh->budget.cap};
    mpa_feeder_set_limits(c->fd, &lim);
}

/* Octets were over a holding limit and stand as a hole in their place. */
static void over_limit(mc_conn *c, int dir, mpa_feed_status st, uint64_t frame)
{
    if (st == MPA_FEED_OK)
        return;
    if (c->state != MC_MPA) {
        /* Undecided: taken for not MPA (decide()); the octets are missing
         * from what it holds, so it must never be fed. */
        c->overflow = 1;
        if (st == MPA_FEED_OVER_SHARED && !c->sh->held_limit_done) {
            char msg[200];
            c->sh->held_limit_done = 1;
            snprintf(msg, sizeof msg,
                     "memory for TCP data held (%s) used up: connections not yet known to speak MPA that need more "
                     "are taken for not MPA",
                     c->sh->cap_desc ? c->sh->cap_desc : "the memory limit");
            global_note(c->sh, MPA_F_CAP_LIMIT, msg);
        }
        return;
    }
    if (c->limit_done)
        return;
    c->limit_done = 1;
    if (st == MPA_FEED_OVER_DIR)
        note(c, MPA_F_CAP_LIMIT, dir, UINT64_MAX, frame,
             "more than %u octets waiting for the other direction: the excess is treated as lost", MC_PENDING_MAX);
    else if (st == MPA_FEED_OVER_SHARED)
        note(c, MPA_F_CAP_LIMIT, dir, UINT64_MAX, frame,
             "memory for TCP data held (%s) used up: octets waiting for the other direction are treated as lost",
             c->sh->cap_desc ? c->sh->cap_desc : "the memory limit");
    else
        note(c, MPA_F_CAP_LIMIT, dir, UINT64_MAX, frame,
             "out of memory: octets waiting for the other direction are treated as lost");
}

/* ---- deciding whether it speaks MPA ----------------------------------- */

/* Undecided connections that decide() takes for MPA right away. */
static int will_be_mpa(const mc_conn *c)
{
    return c->verdict[0] == V_MPA || c->verdict[1] == V_MPA ||
           (c->cfg.listed && (c->verdict[0] != V_NONE || c->verdict[1] != V_NONE));
}

static void ignore(mc_conn *c)
{
    c->state = MC_IGNORED;
    mpa_feeder_clear(c->fd);
    note_drop_held(c);
}

static void start_engine(mc_conn *c)
{
    mpa_stream_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    int starts_mpa = 0;
    for (int dir = 0; dir < 2; dir++) {
        cfg.isn[dir] = c->tcp[dir].base_seq;
        /* A sender's EMSS is bounded by the MSS its peer announced. */
        cfg.emss[dir] = c->mss[!dir];
        starts_mpa |= c->verdict[dir] == V_MPA;
    }
    if (c->cfg.listed && !c->syn_seen && !starts_mpa) {
        cfg.midstream = 1;
        for (int dir = 0; dir < 2; dir++) {
            int k = c->cfg.to_port[dir] ? 0 : 1;
            cfg.markers[dir] = c->cfg.mid_markers[k];
            cfg.crc[dir] = c->cfg.mid_crc[k];
        }
        if (c->cfg.to_port[0])
            cfg.initiator = 1; /* the side that connects to the port */
    } else if (c->syn_seen) {
        cfg.initiator = 1; /* the client: RFC 5044 appendix A's active side */
    }
    c->ms = malloc(mpa_stream_size());
    if (!c->ms) {
        ignore(c);
        return;
    }
    c->midstream = cfg.midstream;
    if (c->h.starting)
        c->h.starting(c->h.user);
    for (int dir = 0; dir < 2; dir++)
        c->tcp[dir].no_recent = 0; /* retransmissions are judged from here on */
    mpa_stream_init(c->ms, &cfg, c->h.event, c->h.user);
    mpa_stream_quiet_markers(c->ms, c->cfg.quiet_markers);
    c->state = MC_MPA;
    notes_release(c);
    set_limits(c);
    mpa_feeder_bind(c->fd, c->ms);
}

static void decide(mc_conn *c)
{
    if (c->state != MC_UNDECIDED)
        return;
    if (will_be_mpa(c) && !c->overflow) {
        start_engine(c);
        return;
    }
    int settled = (c->verdict[0] == V_OTHER || c->verdict[0] == V_LOST) &&
                  (c->verdict[1] == V_OTHER || c->verdict[1] == V_LOST);
    if (settled || c->overflow || mpa_feeder_held(c->fd, 0) + mpa_feeder_held(c->fd, 1) >= MC_UNDECIDED_MAX)
        ignore(c);
}

/* ---- what TCP delivers --------------------------------------------------- */

static void t_data(void *user, int dir, uint64_t off, const uint8_t *p, uint32_t len, int seg_start, uint64_t frame)
{
    mc_conn *c = user;
    c->payload_octets[dir] += len;
    if (c->state == MC_IGNORED)
        return;
    if (c->h.data)
        c->h.data(c->h.user, dir, off, p, len, frame);
    if (c->state == MC_UNDECIDED) {
        /* Learn the first four octets. */
        if (c->verdict[dir] == V_NONE) {
            if (off > c->nfirst[dir])
                c->verdict[dir] = V_LOST;
            while (c->verdict[dir] == V_NONE && c->nfirst[dir] < 4 && c->nfirst[dir] < off + len) {
                c->first[dir][c->nfirst[dir]] = p[c->nfirst[dir] - off];
                c->nfirst[dir]++;
            }
        }
        if (c->verdict[dir] == V_NONE && c->nfirst[dir] == 4)
            c->verdict[dir] = memcmp(c->first[dir], "MPA ", 4) == 0 ? V_MPA : V_OTHER;
        if (will_be_mpa(c) && !c->overflow)
            decide(c); /* the engine takes these octets as they come */
        if (c->state == MC_IGNORED)
            return; /* no memory for an engine */
    }
    mpa_feed_status st = mpa_feeder_data(c->fd, dir, p, len, seg_start);
    over_limit(c, dir, st, frame);
    decide(c);
}

static void t_gap(void *user, int dir, uint64_t off, uint64_t len, uint64_t frame)
{
    mc_conn *c = user;
    if (c->state == MC_IGNORED)
        return;
    if (c->h.gap)
        c->h.gap(c->h.user, dir, off, len, frame);
    if (c->state == MC_UNDECIDED && c->verdict[dir] == V_NONE)
        c->verdict[dir] = V_LOST;
    mpa_feeder_gap(c->fd, dir, len);
    decide(c);
}

static void t_end(void *user, int dir, int rst, uint64_t frame)
{
    mc_conn *c = user;
    if (c->h.end)
        c->h.end(c->h.user, dir, rst, frame);
    if (c->state == MC_IGNORED)
        return;
    if (c->state == MC_UNDECIDED && c->verdict[dir] == V_NONE)
        c->verdict[dir] = V_LOST;
    mpa_feeder_end(c->fd, dir, rst ? MPA_END_RST : MPA_END_FIN);
    decide(c);
}

static void t_note(void *user, int dir, tcp_note what, uint64_t off, uint64_t len, uint64_t frame)
{
    mc_conn *c = user;
    switch (what) {
    case TCP_NOTE_CONFLICT:
        note(c, MPA_F_CAP_OVERLAP, dir, off, frame,
             "retransmitted octets at offset %llu (%llu octets checked) differ from the first copy, which is kept",
             (unsigned long long)off, (unsigned long long)len);
        break;
    case TCP_NOTE_OUT_OF_WINDOW:
        note(c, MPA_F_CAP_UNREADABLE, dir, UINT64_MAX, frame,
             "segment of %llu octets outside the window (its sequence number is more than 2^30 from the expected "
             "one, or before the start of the stream): ignored",
             (unsigned long long)len);
        break;
    case TCP_NOTE_RESEGMENT: {
        /* Only an MPA-aware sender owes it: one whose segments so far all
         * began with an FPDU (draft-03 7.3, RFC 5044 5.1). */
        const mpa_stream *ms = c->fd ? mpa_feeder_stream(c->fd) : NULL;
        const mpa_dir_stats *st = ms ? mpa_stream_stats(ms, dir) : NULL;
        if (st && st->segments >= 2 && st->segments_aligned == st->segments)
            note(c, MPA_F_FPD_RETX_SEG, dir, off, frame,
                 "retransmission of offsets %llu to %llu starts or ends where no segment of the first "
                 "transmission did",
                 (unsigned long long)off, (unsigned long long)(off + len));
        break;
    }
    case TCP_NOTE_EARLY_HOLE:
        note(c, MPA_F_CAP_LIMIT, dir, off, frame,
             "out-of-order memory limit reached: %llu missing octets at offset %llu declared lost without waiting "
             "for a retransmission",
             (unsigned long long)len, (unsigned long long)off);
        break;
    }
}

/* ---- the connection ------------------------------------------------------ */

mc_conn *mc_new(const mc_cfg *cfg, const mc_hooks *hooks, mc_shared *sh)
{
    mc_conn *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (cfg)
        c->cfg = *cfg;
    if (hooks)
        c->h = *hooks;
    c->sh = sh;
    c->fd = mpa_feeder_new(NULL);
    if (!c->fd) {
        free(c);
        return NULL;
    }
    set_limits(c);
    c->sink.user = c;
    c->sink.data = t_data;
    c->sink.gap = t_gap;
    c->sink.end = t_end;
    c->sink.note = t_note;
    /* No retransmission history (4 KiB a direction) until it speaks MPA:
     * 10000 undecided connections with a segment each held 80 MiB of it.
     * What is lost: a conflicting resend of the segment that decides. */
    c->tcp[0].no_recent = c->tcp[1].no_recent = 1;
    /* Out-of-order segments and held octets share the memory limit,
     * counted with their bookkeeping. */
    c->tcp[0].charge = c->tcp[1].charge = &sh->held;
    return c;
}

void mc_free(mc_conn *c)
{
    if (!c)
        return;
    for (int dir = 0; dir < 2; dir++)
        tcp_dir_free(&c->tcp[dir], &c->sh->budget);
    mpa_feeder_free(c->fd);
    free(c->ms);
    note_drop_held(c);
    free(c);
}

/* The sequence number of seg's first payload octet, its direction's
 * start set if this is the first segment seen. */
static uint32_t seg_start_seq(mc_conn *c, const mc_seg *seg)
{
    tcp_dir *t = &c->tcp[seg->dir];
    if (seg->syn) {
        if (!t->have_base)
            tcp_dir_start(t, seg->seq + 1);
        return seg->seq + 1;
    }
    return seg->seq;
}

int mc_payload_offset(mc_conn *c, const mc_seg *seg, uint64_t *off)
{
    uint32_t seq = seg_start_seq(c, seg);
    tcp_dir *t = &c->tcp[seg->dir];
    if (!t->have_base)
        tcp_dir_start(t, seq);
    return tcp_dir_offset(t, seq, off);
}

void mc_segment(mc_conn *c, const mc_seg *seg)
{
    int dir = seg->dir;
    if (seg->rst)
        c->rst = 1;
    if (c->state == MC_IGNORED) {
        /* Nothing to reassemble: only watch it close. */
        if (seg->fin)
            c->fin[dir] = 1;
        return;
    }
    if (seg->syn) {
        if (seg->mss)
            c->mss[dir] = seg->mss;
        if (!seg->ack_flag) {
            c->syn_seen = 1;
            c->client_isn = seg->seq;
        }
    }
    uint32_t seq = seg_start_seq(c, seg);
    if (seg->ack_flag && c->tcp[!dir].have_base)
        tcp_dir_acked(&c->tcp[!dir], !dir, seg->ack, seg->frame, &c->sink, &c->sh->budget);
    uint32_t wire = seg->wire > seg->len ? seg->wire : seg->len;
    if (wire || seg->fin) {
        if (wire > seg->len) {
            c->cut_packets[dir]++;
            if (c->cut_done++ == 0)
                note(c, MPA_F_CAP_TRUNCATED, dir, UINT64_MAX, seg->frame,
                     "packet cut by the snap length: %u of %u payload octets captured (later cut packets of this "
                     "connection are counted only)",
                     seg->len, wire);
        }
        tcp_dir_segment(&c->tcp[dir], dir, seq, seg->payload, seg->len, wire, seg->fin != 0, seg->frame, &c->sink,
                        &c->sh->budget);
    }
    /* A FIN's or a RST's sequence number shows what the sender sent
     * before it, captured or not: what is missing is a hole now. */
    if ((seg->fin || seg->rst) && c->tcp[dir].have_base)
        tcp_dir_sent(&c->tcp[dir], dir, seq, seg->frame, &c->sink, &c->sh->budget);
    if (seg->rst && c->tcp[dir].have_base)
        tcp_dir_rst(&c->tcp[dir], dir, seg->frame, &c->sink, &c->sh->budget);
    if (c->state == MC_IGNORED) {
        /* Just decided: what TCP held goes. */
        for (int side = 0; side < 2; side++) {
            tcp_dir_free(&c->tcp[side], &c->sh->budget);
            c->fin[side] = c->tcp[side].fin_seen;
        }
    }
}

int mc_over(const mc_conn *c)
{
    if (c->rst)
        return 1;
    if (c->state == MC_IGNORED)
        return c->fin[0] && c->fin[1];
    return c->tcp[0].ended && c->tcp[1].ended;
}

void mc_close(mc_conn *c, uint64_t frame)
{
    if (c->state != MC_IGNORED)
        for (int dir = 0; dir < 2; dir++)
            tcp_dir_flush(&c->tcp[dir], dir, frame, &c->sink, &c->sh->budget);
    if (c->state == MC_UNDECIDED)
        ignore(c); /* whatever it held, it never showed an MPA key */
    if (c->state == MC_MPA)
        mpa_feeder_finish(c->fd);
}

void mc_force(mc_conn *c, const mc_cfg *cfg)
{
    c->cfg = *cfg;
    c->cfg.listed = 1;
    if (c->state == MC_IGNORED) {
        /* Taken up again from here, mid-stream. */
        c->state = MC_UNDECIDED;
        c->verdict[0] = c->verdict[1] = V_LOST;
        c->overflow = 0;
        set_limits(c);
    }
}

mc_state mc_get_state(const mc_conn *c) { return c->state; }
mpa_stream *mc_stream(const mc_conn *c) { return c->ms; }
const tcp_dir *mc_tcp(const mc_conn *c, int dir) { return &c->tcp[dir]; }
int mc_syn_seen(const mc_conn *c) { return c->syn_seen; }
uint32_t mc_client_isn(const mc_conn *c) { return c->client_isn; }
int mc_midstream(const mc_conn *c) { return c->midstream; }
uint16_t mc_mss(const mc_conn *c, int dir) { return c->mss[dir]; }
uint64_t mc_cut_packets(const mc_conn *c, int dir) { return c->cut_packets[dir]; }
uint64_t mc_payload_octets(const mc_conn *c, int dir) { return c->payload_octets[dir]; }

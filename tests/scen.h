/*
 * Scenario builder and stream harness for tests, the bench and the demo
 * generator.  A scenario is what two MPA endpoints put on the wire, in
 * order: chunks of octets per direction (each chunk is one TCP segment)
 * and FIN/RST marks.  It is built with libmpa's own encoders, so the
 * tests check the decoder against the encoder and both against the
 * RFC vectors elsewhere.
 *
 * run_scenario() feeds a scenario to the stream engine with a chosen
 * split of every chunk and returns the event log: one line per event in
 * mpa_event_format()'s words.  The split never changes the log; that is
 * the property the tests check at every split point.
 */
#ifndef MPA_TEST_SCEN_H
#define MPA_TEST_SCEN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpa/crc32c.h"
#include "mpa/ddp.h"
#include "mpa/describe.h"
#include "mpa/fpdu.h"
#include "mpa/frame.h"
#include "mpa/stream.h"

/* CH_LOST: octets the sender sent that the capture lost (a hole): they
 * take their place in the direction's sequence space, the harness tells
 * the engine with mpa_stream_gap(), a capture generator leaves the
 * segment out. */
enum { CH_DATA = 0, CH_FIN, CH_RST, CH_LOST };

typedef struct chunk {
    int kind;
    int dir;
    size_t off; /* into scen.buf */
    size_t len;
} chunk_t;

typedef struct scen {
    uint8_t *buf;
    size_t len, cap;
    chunk_t *ch;
    size_t nch, capch;
    /* per direction sender state for FPDU building */
    uint64_t dir_off[2];
    uint64_t mode_off[2];
    int markers[2];
    int in_fpdu[2];
    uint32_t isn[2];
    uint16_t emss[2];
    /* Mid-stream: the capture starts at chunk `start_chunk` (the engine
     * is configured with midstream = 1 and the stated settings below;
     * chunks before it are not fed, and offsets start there). */
    int midstream;
    size_t start_chunk;
    uint8_t ms_markers[2], ms_crc[2]; /* mpa_tri */
} scen_t;

static inline void sc_init(scen_t *s)
{
    memset(s, 0, sizeof *s);
}

static inline void sc_free(scen_t *s)
{
    free(s->buf);
    free(s->ch);
    memset(s, 0, sizeof *s);
}

static inline uint8_t *sc_reserve(scen_t *s, size_t n)
{
    if (s->len + n > s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 4096;
        while (nc < s->len + n)
            nc *= 2;
        uint8_t *nb = realloc(s->buf, nc);
        if (!nb) {
            perror("realloc");
            exit(2);
        }
        s->buf = nb;
        s->cap = nc;
    }
    return s->buf + s->len;
}

static inline void sc_push_chunk(scen_t *s, int kind, int dir, size_t off, size_t len)
{
    if (s->nch == s->capch) {
        s->capch = s->capch ? s->capch * 2 : 64;
        s->ch = realloc(s->ch, s->capch * sizeof *s->ch);
        if (!s->ch) {
            perror("realloc");
            exit(2);
        }
    }
    s->ch[s->nch].kind = kind;
    s->ch[s->nch].dir = dir;
    s->ch[s->nch].off = off;
    s->ch[s->nch].len = len;
    s->nch++;
}

/* Raw octets as one segment of dir. */
static inline void sc_raw(scen_t *s, int dir, const void *p, size_t n)
{
    uint8_t *q = sc_reserve(s, n);
    memcpy(q, p, n);
    sc_push_chunk(s, CH_DATA, dir, s->len, n);
    s->len += n;
    s->dir_off[dir] += n;
}

/* The last data chunk becomes a hole: sent, but lost by the capture. */
static inline void sc_lose_last(scen_t *s)
{
    for (size_t i = s->nch; i-- > 0;)
        if (s->ch[i].kind == CH_DATA) {
            s->ch[i].kind = CH_LOST;
            return;
        }
}

static inline void sc_end(scen_t *s, int dir, int rst)
{
    sc_push_chunk(s, rst ? CH_RST : CH_FIN, dir, 0, 0);
}

/* A startup frame. */
static inline void sc_frame(scen_t *s, int dir, const mpa_frame_enc *f)
{
    uint8_t tmp[20 + 4 + 65536];
    size_t w = 0;
    if (mpa_frame_encode(f, tmp, sizeof tmp, &w) != MPA_OK) {
        fprintf(stderr, "sc_frame: encode failed\n");
        exit(2);
    }
    sc_raw(s, dir, tmp, w);
}

static inline mpa_frame_enc sc_req(int m, int c)
{
    mpa_frame_enc f;
    memset(&f, 0, sizeof f);
    f.kind = MPA_KEY_REQ;
    f.m = (uint8_t)m;
    f.c = (uint8_t)c;
    f.rev = 1;
    f.pd_len_override = -1;
    return f;
}

static inline mpa_frame_enc sc_rep(int m, int c)
{
    mpa_frame_enc f = sc_req(m, c);
    f.kind = MPA_KEY_REP;
    return f;
}

static inline mpa_frame_enc sc_enh(mpa_frame_enc f, int a, int b, int c, int d, unsigned ird, unsigned ord)
{
    f.s = 1;
    f.rev = 2;
    f.enh_present = 1;
    f.enh.a = (uint8_t)a;
    f.enh.b = (uint8_t)b;
    f.enh.c = (uint8_t)c;
    f.enh.d = (uint8_t)d;
    f.enh.ird = (uint16_t)ird;
    f.enh.ord = (uint16_t)ord;
    return f;
}

/* From here on dir sends FPDUs (markers as given); the marker phase
 * starts at the current octet of dir. */
static inline void sc_fpdu_mode(scen_t *s, int dir, int markers)
{
    s->mode_off[dir] = s->dir_off[dir];
    s->markers[dir] = markers;
    s->in_fpdu[dir] = 1;
}

/* Encode ULPDU as an FPDU of dir; returns its wire length.  When seg is
 * non-zero the FPDU becomes its own segment; otherwise it is appended to
 * the chunk being built (call sc_flush to close it). */
static inline size_t sc_fpdu_f(scen_t *s, int dir, const uint8_t *ulpdu, size_t n,
                               const mpa_fpdu_faults *fl)
{
    mpa_fpdu_cfg cfg;
    cfg.markers = s->markers[dir];
    cfg.crc = 1;
    cfg.mark_base = s->isn[dir] + (uint32_t)s->mode_off[dir];
    uint32_t seq = s->isn[dir] + (uint32_t)s->dir_off[dir];
    size_t cap = MPA_FPDU_WIRE_MAX;
    uint8_t *q = sc_reserve(s, cap);
    size_t w = 0;
    if (mpa_fpdu_encode(ulpdu, n, seq, &cfg, fl, q, cap, &w) != MPA_OK) {
        fprintf(stderr, "sc_fpdu: encode failed\n");
        exit(2);
    }
    sc_push_chunk(s, CH_DATA, dir, s->len, w);
    s->len += w;
    s->dir_off[dir] += w;
    return w;
}

static inline size_t sc_fpdu(scen_t *s, int dir, const uint8_t *ulpdu, size_t n)
{
    return sc_fpdu_f(s, dir, ulpdu, n, NULL);
}

/* Merge the last k chunks of one direction into one segment (they must
 * be adjacent in the buffer and in the chunk list). */
static inline void sc_merge_last(scen_t *s, size_t k)
{
    if (k < 2 || k > s->nch)
        return;
    chunk_t *first = &s->ch[s->nch - k];
    size_t total = 0;
    for (size_t i = s->nch - k; i < s->nch; i++)
        total += s->ch[i].len;
    first->len = total;
    s->nch -= k - 1;
}

/* ---- ULPDU builders (DDP + RDMAP via the library encoder) ----------- */

static inline size_t ul_build(mpa_ddp *d, size_t payload, uint8_t *out, size_t cap)
{
    size_t w = 0;
    if (mpa_ddp_encode(d, out, cap, &w) != MPA_OK || w + payload > cap) {
        fprintf(stderr, "ul_build: encode failed\n");
        exit(2);
    }
    for (size_t i = 0; i < payload; i++)
        out[w + i] = (uint8_t)(i * 7 + 1);
    return w + payload;
}

static inline mpa_ddp ul_untagged(unsigned opcode, unsigned qn, unsigned msn)
{
    mpa_ddp d;
    memset(&d, 0, sizeof d);
    d.hdr.tagged = 0;
    d.hdr.last = 1;
    d.hdr.dv = 1;
    d.hdr.rv = 1;
    d.hdr.opcode = (uint8_t)opcode;
    d.hdr.qn = qn;
    d.hdr.msn = msn;
    return d;
}

static inline mpa_ddp ul_tagged(unsigned opcode, uint32_t stag, uint64_t to)
{
    mpa_ddp d;
    memset(&d, 0, sizeof d);
    d.hdr.tagged = 1;
    d.hdr.last = 1;
    d.hdr.dv = 1;
    d.hdr.rv = 1;
    d.hdr.opcode = (uint8_t)opcode;
    d.hdr.stag = stag;
    d.hdr.to = to;
    return d;
}

static inline size_t ul_send(uint8_t *out, size_t cap, unsigned msn, size_t payload)
{
    mpa_ddp d = ul_untagged(MPA_RDMAP_SEND, 0, msn);
    return ul_build(&d, payload, out, cap);
}

static inline size_t ul_write(uint8_t *out, size_t cap, uint32_t stag, uint64_t to, size_t payload)
{
    mpa_ddp d = ul_tagged(MPA_RDMAP_RDMA_WRITE, stag, to);
    return ul_build(&d, payload, out, cap);
}

static inline size_t ul_read_req(uint8_t *out, size_t cap, unsigned msn, uint32_t size)
{
    mpa_ddp d = ul_untagged(MPA_RDMAP_READ_REQUEST, 1, msn);
    d.u.rreq.sink_stag = 0x1000;
    d.u.rreq.sink_to = 0x2000;
    d.u.rreq.size = size;
    d.u.rreq.src_stag = 0x3000;
    d.u.rreq.src_to = 0x4000;
    return ul_build(&d, 0, out, cap);
}

static inline size_t ul_term(uint8_t *out, size_t cap, unsigned layer, unsigned etype, unsigned code)
{
    mpa_ddp d = ul_untagged(MPA_RDMAP_TERMINATE, 2, 1);
    d.u.term.layer = (uint8_t)layer;
    d.u.term.etype = (uint8_t)etype;
    d.u.term.code = (uint8_t)code;
    return ul_build(&d, 0, out, cap);
}

/* ---- the harness ----------------------------------------------------- */

typedef struct evlog {
    char *s;
    size_t n, cap;
    unsigned nfind;
    unsigned count[MPA_F__COUNT];
} evlog_t;

static inline void log_add(evlog_t *l, const char *line)
{
    size_t k = strlen(line);
    if (l->n + k + 2 > l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 4096;
        while (nc < l->n + k + 2)
            nc *= 2;
        l->s = realloc(l->s, nc);
        if (!l->s) {
            perror("realloc");
            exit(2);
        }
        l->cap = nc;
    }
    memcpy(l->s + l->n, line, k);
    l->n += k;
    l->s[l->n++] = '\n';
    l->s[l->n] = 0;
}

static inline void log_event(void *user, const mpa_event *ev)
{
    evlog_t *l = user;
    char line[1024];
    mpa_event_format(ev, line, sizeof line);
    log_add(l, line);
    if (ev->type == MPA_EV_FINDING) {
        l->nfind++;
        if ((unsigned)ev->u.finding.id < MPA_F__COUNT)
            l->count[ev->u.finding.id]++;
    }
}

static inline void log_free(evlog_t *l)
{
    free(l->s);
    memset(l, 0, sizeof *l);
}

/* Split policy: how a chunk of length len is cut. */
typedef struct split {
    int mode;      /* 0 whole, 1 every octet, 2 cut at `at` (global octet index), 3 random */
    size_t at;     /* for mode 2: absolute offset into scen.buf */
    uint64_t rng;  /* for mode 3 */
} split_t;

typedef struct pend {
    const uint8_t *p;
    size_t len;
} pend_t;

/* Feed one direction's pending octets; returns octets consumed. */
static inline size_t drain_dir(mpa_stream *st, int dir, pend_t *q, size_t *nq, size_t *head)
{
    size_t used = 0;
    while (*head < *nq) {
        pend_t *pp = &q[*head];
        size_t n = mpa_stream_feed(st, dir, pp->p, pp->len);
        used += n;
        if (n < pp->len) {
            pp->p += n;
            pp->len -= n;
            return used;
        }
        (*head)++;
    }
    return used;
}

static inline uint64_t sc_rng(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* Runs scenario s; returns the log (caller frees with log_free). */
static inline evlog_t run_scenario(const scen_t *s, split_t sp)
{
    evlog_t log;
    memset(&log, 0, sizeof log);
    mpa_stream_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.isn[0] = s->isn[0];
    cfg.isn[1] = s->isn[1];
    cfg.emss[0] = s->emss[0];
    cfg.emss[1] = s->emss[1];
    size_t c0 = 0;
    if (s->midstream) {
        /* Offsets start at the first chunk fed. */
        uint64_t skipped[2] = {0, 0};
        for (size_t c = 0; c < s->start_chunk && c < s->nch; c++)
            if (s->ch[c].kind == CH_DATA || s->ch[c].kind == CH_LOST)
                skipped[s->ch[c].dir] += s->ch[c].len;
        cfg.isn[0] += (uint32_t)skipped[0];
        cfg.isn[1] += (uint32_t)skipped[1];
        cfg.midstream = 1;
        for (int d = 0; d < 2; d++) {
            cfg.markers[d] = s->ms_markers[d];
            cfg.crc[d] = s->ms_crc[d];
        }
        c0 = s->start_chunk;
    }
    mpa_stream *st = malloc(mpa_stream_size());
    mpa_stream_init(st, &cfg, log_event, &log);
    /* pending pieces per direction; at most total octets of pieces */
    size_t maxp = s->len + s->nch + 4;
    pend_t *q[2];
    size_t nq[2] = {0, 0}, head[2] = {0, 0};
    q[0] = malloc(maxp * sizeof(pend_t));
    q[1] = malloc(maxp * sizeof(pend_t));
    for (size_t c = c0; c < s->nch; c++) {
        const chunk_t *ch = &s->ch[c];
        int dir = ch->dir;
        if (ch->kind == CH_LOST) {
            drain_dir(st, dir, q[dir], &nq[dir], &head[dir]);
            mpa_stream_gap(st, dir, ch->len);
            drain_dir(st, !dir, q[!dir], &nq[!dir], &head[!dir]);
            continue;
        }
        if (ch->kind != CH_DATA) {
            drain_dir(st, dir, q[dir], &nq[dir], &head[dir]);
            drain_dir(st, !dir, q[!dir], &nq[!dir], &head[!dir]);
            mpa_stream_end(st, dir, ch->kind == CH_RST ? MPA_END_RST : MPA_END_FIN);
            drain_dir(st, !dir, q[!dir], &nq[!dir], &head[!dir]);
            continue;
        }
        if (head[dir] == nq[dir])
            mpa_stream_segment(st, dir);
        const uint8_t *p = s->buf + ch->off;
        size_t len = ch->len, at = 0;
        while (at < len) {
            size_t piece = len - at;
            if (sp.mode == 1)
                piece = 1;
            else if (sp.mode == 2 && sp.at > ch->off + at && sp.at < ch->off + len)
                piece = sp.at - (ch->off + at);
            else if (sp.mode == 3)
                piece = 1 + (size_t)(sc_rng(&sp.rng) % (uint64_t)(len - at));
            q[dir][nq[dir]].p = p + at;
            q[dir][nq[dir]].len = piece;
            nq[dir]++;
            at += piece;
        }
        /* Feed this direction, then let the other catch up. */
        for (int round = 0; round < 4; round++) {
            size_t a = drain_dir(st, dir, q[dir], &nq[dir], &head[dir]);
            size_t b = drain_dir(st, !dir, q[!dir], &nq[!dir], &head[!dir]);
            if (!a && !b)
                break;
        }
    }
    mpa_stream_finish(st);
    for (int dir = 0; dir < 2; dir++) {
        size_t held = 0;
        for (size_t k = head[dir]; k < nq[dir]; k++)
            held += q[dir][k].len;
        drain_dir(st, dir, q[dir], &nq[dir], &head[dir]);
        if (head[dir] < nq[dir]) {
            char line[128];
            snprintf(line, sizeof line, "d%d HELD %zu octets never fed", dir, held);
            log_add(&log, line);
        }
    }
    mpa_stream_finish(st);
    free(q[0]);
    free(q[1]);
    free(st);
    return log;
}

#endif

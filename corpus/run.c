/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Feeding a scenario to libmpa's stream engine (include/mpa/stream.h)
 * with any split of its chunks, and the event log.  See corpus.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "mpa/describe.h"

static void log_add(cs_log *l, const char *line)
{
    size_t k = strlen(line);
    l->s = cs_grow(l->s, &l->cap, l->n + k + 2, 4096, 1);
    memcpy(l->s + l->n, line, k);
    l->n += k;
    l->s[l->n++] = '\n';
    l->s[l->n] = 0;
}

void cs_log_event(void *user, const mpa_event *ev)
{
    cs_log *l = user;
    char line[1024];
    mpa_event_format(ev, line, sizeof line);
    log_add(l, line);
    if (ev->type == MPA_EV_FPDU && (ev->dir == 0 || ev->dir == 1))
        l->fpdus[ev->dir]++;
    if (ev->type == MPA_EV_FINDING) {
        l->nfind++;
        if ((unsigned)ev->u.finding.id < MPA_F__COUNT)
            l->count[ev->u.finding.id]++;
    }
}

void cs_log_free(cs_log *l)
{
    free(l->s);
    memset(l, 0, sizeof *l);
}

typedef struct pend {
    const uint8_t *p;
    size_t len;
} pend_t;

/* Feed one direction's pending octets; returns octets consumed. */
static size_t drain_dir(mpa_stream *st, int dir, pend_t *q, size_t *nq, size_t *head)
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

uint64_t cs_rng(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* Runs scenario s; returns the log (caller frees with cs_log_free). */
static cs_log run(const cs_scen *s, cs_split sp, int quiet)
{
    cs_log log;
    memset(&log, 0, sizeof log);
    mpa_stream_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.isn[0] = s->isn[0];
    cfg.isn[1] = s->isn[1];
    cfg.emss[0] = s->emss[0];
    cfg.emss[1] = s->emss[1];
    size_t c0 = 0;
    if (!s->midstream)
        cfg.initiator = 1; /* direction 0 connects, as in the captures (SYN seen) */
    if (s->midstream) {
        /* Offsets start at the first chunk fed. */
        uint64_t skipped[2] = {0, 0};
        for (size_t c = 0; c < s->start_chunk && c < s->nch; c++)
            if (s->ch[c].kind == CS_DATA || s->ch[c].kind == CS_LOST)
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
    mpa_stream_init(st, &cfg, cs_log_event, &log);
    if (quiet >= 0)
        mpa_stream_quiet_markers(st, quiet);
    /* pending pieces per direction; at most total octets of pieces */
    size_t maxp = s->len + s->nch + 4;
    pend_t *q[2];
    size_t nq[2] = {0, 0}, head[2] = {0, 0};
    q[0] = malloc(maxp * sizeof(pend_t));
    q[1] = malloc(maxp * sizeof(pend_t));
    for (size_t c = c0; c < s->nch; c++) {
        const cs_chunk *ch = &s->ch[c];
        int dir = ch->dir;
        if (ch->kind == CS_LOST) {
            drain_dir(st, dir, q[dir], &nq[dir], &head[dir]);
            mpa_stream_gap(st, dir, ch->len);
            drain_dir(st, !dir, q[!dir], &nq[!dir], &head[!dir]);
            continue;
        }
        if (ch->kind != CS_DATA) {
            drain_dir(st, dir, q[dir], &nq[dir], &head[dir]);
            drain_dir(st, !dir, q[!dir], &nq[!dir], &head[!dir]);
            mpa_stream_end(st, dir, ch->kind == CS_RST ? MPA_END_RST : MPA_END_FIN);
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
                piece = 1 + (size_t)(cs_rng(&sp.rng) % (uint64_t)(len - at));
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
    for (int dir = 0; quiet >= 0 && dir < 2; dir++) {
        char line[64];
        snprintf(line, sizeof line, "d%d STATS markers %llu", dir,
                 (unsigned long long)mpa_stream_stats(st, dir)->markers);
        log_add(&log, line);
    }
    free(q[0]);
    free(q[1]);
    free(st);
    return log;
}

cs_log cs_run(const cs_scen *s, cs_split sp) { return run(s, sp, -1); }

cs_log cs_run_quiet(const cs_scen *s, cs_split sp, int quiet) { return run(s, sp, quiet); }


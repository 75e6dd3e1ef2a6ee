/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-audit -j N (jobs.h): one reader, N workers, one report.
 *
 * Batches go round a ring of 2N+2.  The reader fills one (packets copied
 * in, each marked with the worker that follows its connection, or -1 for
 * all), publishes it, audits worker 0's share of it (worker 0 has no
 * thread of its own), and before filling a slot again merges what the
 * workers made of the batch it held.  Every worker reads every batch
 * (another worker's packet is only counted: audit_packet_other), so all
 * of them number frames, see capture time pass and close idle
 * connections as one auditor would.
 *
 * Each worker's events of a batch form a list in the order it made them;
 * each carries where its auditor was (audit_where: packet, phase, the
 * connection being closed).  One auditor makes, at each packet, first
 * the closes of idle connections, least recently active first, then
 * what the packet itself brings: so a merge of the workers' lists by
 * that key is one auditor's order.  Findings not tied to a connection
 * that every worker makes alike (about the input) are taken from
 * worker 0 alone.
 */
#include "jobs.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_OCTETS (1u << 20)
#define BATCH_RECS 4096u
/* The connections are dealt out by flow hash modulo 1 + W_SHARE (N - 1):
 * worker 0, which is also the reader, follows one residue, every other
 * worker W_SHARE of them.  The reader's own work (reading the file,
 * taking each packet's owner) then fits beside its smaller share.
 * Measured with -j 2 on the 1 GiB bench capture (2 cores, medians of
 * 9): W_SHARE 2 0.59 s, 3 0.51 s, 6 0.46 s,
 * 10 0.49 s, 20 0.50 s; -j 1 0.56 s. */
#define W_SHARE 6u
/* Batches in flight at most: the more, the further a worker may run
 * ahead of another. */
#define NBATCH_MAX 12u
/* A packet up to this long is read where the reader holds it (in its
 * window's buffer), if it can keep it there; longer ones, and the rest, are copied into the batch. */
#define HELD_MAX 65536u

enum { R_PACKET, R_FILE, R_PROBLEM, R_SOURCE };

typedef struct rec {
    uint64_t ts;
    size_t at;            /* octets (the text of a problem) in the batch */
    const uint8_t *held;  /* or the packet where the reader holds it */
    uint64_t src_at;      /* 1 + its offset in the source, or 0 (audit_packet_at) */
    int (*read)(void *ctx, uint64_t off, uint8_t *dst, uint32_t n); /* R_SOURCE */
    void *ctx;
    uint32_t caplen, wirelen;
    int owner;            /* the worker; -1: all */
    uint8_t kind;
    int linktype;         /* R_FILE; the finding id of R_PROBLEM */
    const char *name;     /* R_FILE */
} rec;

typedef enum { E_MPA, E_FINDING, E_CONN, E_GAUGE, E_FILE } ekind;

typedef struct ev {
    struct ev *next;
    uint64_t t, sub;      /* the key: packet, phase, sub */
    int phase;
    ekind kind;
    int has_conn;
    unsigned local_id;    /* E_MPA; E_FILE: the linktype */
    const char *name;     /* E_FILE */
    int which;            /* E_GAUGE: which, packet, peak, after */
    uint64_t g[3];
    audit_finding f;
    audit_conn conn;      /* only when has_conn (allocated to here otherwise) */
} ev;

typedef struct batch {
    uint8_t *data;
    size_t used, cap;
    size_t span;          /* octets of the file the records span */
    rec *recs;
    unsigned nrec;
    int last;             /* the end of the input */
    ev **head, **tail;    /* per worker */
} batch;

typedef struct worker {
    jobs *j;
    unsigned k;
    audit *a;
    batch *cur;
    pthread_t th;
    int started;          /* a thread of its own; worker 0 has none */
} worker;

/* The moves of one gauge, added up across workers packet by packet. */
typedef struct gsum {
    uint64_t t, peak;
    int open;
    uint64_t *cur, *pk, *af;
    uint8_t *has;
} gsum;

/* The text of a finding copied when there was no memory for it. */
static const char no_text[] = "";

typedef struct idslot {
    uint64_t key; /* worker << 32 | the worker's id; 0: empty */
    unsigned id;
} idslot;

struct jobs {
    unsigned n, nb;
    unsigned nres;               /* flow hash residues: 1 + W_SHARE (n - 1) */
    int conn_findings;
    audit *agg;
    audit_out out;
    input_sink sink;
    int linktype;
    audit_owner_cache *owners; /* the flow hashes of recent connections */
    batch *b;
    worker *w;
    pthread_mutex_t m;
    pthread_cond_t work, fin;
    uint64_t published, merged;  /* batches */
    uint64_t *done;              /* per worker */
    int finished, sync_ok;
    int w0_live;                 /* worker 0 (the reader's own) has not had the last batch */
    /* the merge */
    idslot *ids;
    size_t nids, idcap;
    unsigned next_id;
    gsum g[2];
};

/* ---- connection ids: a worker's -> the run's ---------------------------- */

static size_t id_home(uint64_t key, size_t mask) { return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & mask; }

static int id_put(jobs *j, uint64_t key, unsigned id)
{
    if ((j->nids + 1) * 2 > j->idcap) {
        size_t nc = j->idcap ? j->idcap * 2 : 256;
        idslot *ns = calloc(nc, sizeof *ns);
        if (!ns)
            return -1;
        for (size_t i = 0; i < j->idcap; i++) {
            if (!j->ids[i].key)
                continue;
            size_t h = id_home(j->ids[i].key, nc - 1);
            while (ns[h].key)
                h = (h + 1) & (nc - 1);
            ns[h] = j->ids[i];
        }
        free(j->ids);
        j->ids = ns;
        j->idcap = nc;
    }
    size_t h = id_home(key, j->idcap - 1);
    while (j->ids[h].key)
        h = (h + 1) & (j->idcap - 1);
    j->ids[h].key = key;
    j->ids[h].id = id;
    j->nids++;
    return 0;
}

/* The run's id; the entry let go when take (the connection is done). */
static unsigned id_get(jobs *j, uint64_t key, int take)
{
    if (!j->idcap)
        return 0;
    size_t mask = j->idcap - 1, i = id_home(key, mask);
    while (j->ids[i].key && j->ids[i].key != key)
        i = (i + 1) & mask;
    if (!j->ids[i].key)
        return 0;
    unsigned id = j->ids[i].id;
    if (take) {
        /* Backward shift: later entries of the probe run move up. */
        for (size_t k = (i + 1) & mask; j->ids[k].key; k = (k + 1) & mask) {
            size_t h = id_home(j->ids[k].key, mask);
            if ((k > i && (h <= i || h > k)) || (k < i && h <= i && h > k)) {
                j->ids[i] = j->ids[k];
                i = k;
            }
        }
        j->ids[i].key = 0;
        j->nids--;
    }
    return id;
}

/* ---- the gauges ----------------------------------------------------------- */

static void gauge_flush(gsum *g, unsigned n)
{
    if (!g->open)
        return;
    uint64_t sum = 0;
    for (unsigned w = 0; w < n; w++)
        sum += g->has[w] ? g->pk[w] : g->cur[w];
    if (sum > g->peak)
        g->peak = sum;
    for (unsigned w = 0; w < n; w++)
        if (g->has[w]) {
            g->cur[w] = g->af[w];
            g->has[w] = 0;
        }
    g->open = 0;
}

static void gauge_add(jobs *j, unsigned w, const ev *e)
{
    gsum *g = &j->g[e->which];
    if (g->open && g->t != e->g[0])
        gauge_flush(g, j->n);
    g->open = 1;
    g->t = e->g[0];
    g->has[w] = 1;
    g->pk[w] = e->g[1];
    g->af[w] = e->g[2];
}

/* ---- the workers' events ---------------------------------------------------- */

static ev *ev_new(worker *w, ekind kind, int with_conn, size_t extra)
{
    size_t size = (with_conn ? sizeof(ev) : offsetof(ev, conn)) + extra;
    ev *e = malloc(size);
    if (!e)
        return NULL;
    memset(e, 0, with_conn ? sizeof(ev) : offsetof(ev, conn));
    e->kind = kind;
    e->has_conn = with_conn;
    audit_where(w->a, &e->t, &e->phase, &e->sub);
    batch *b = w->cur;
    if (b->tail[w->k])
        b->tail[w->k]->next = e;
    else
        b->head[w->k] = e;
    b->tail[w->k] = e;
    return e;
}

static void on_finding(void *user, const audit_conn *c, const audit_finding *f)
{
    worker *w = user;
    if (c ? !w->j->conn_findings : !f->shard_local && w->k != 0)
        return; /* kept with its connection; or every worker made it */
    size_t len = strlen(f->msg) + 1;
    ev *e = ev_new(w, E_FINDING, c != NULL, len);
    if (!e)
        return;
    e->f = *f;
    char *msg = (char *)e + (c ? sizeof(ev) : offsetof(ev, conn));
    memcpy(msg, f->msg, len);
    e->f.msg = msg;
    if (c) {
        e->conn = *c;
        e->conn.findings = NULL;
        e->conn.nfindings = 0;
        e->conn.terms = NULL;
        e->conn.nterms = 0;
    }
}

static void on_conn(void *user, const audit_conn *c)
{
    worker *w = user;
    ev *e = ev_new(w, E_CONN, 1, 0);
    if (!e)
        return;
    e->conn = *c;
    e->conn.findings = NULL;
    e->conn.terms = NULL;
    if (c->nfindings && (e->conn.findings = malloc(c->nfindings * sizeof *c->findings)))
        for (size_t i = 0; i < c->nfindings; i++) {
            e->conn.findings[i] = c->findings[i];
            size_t len = strlen(c->findings[i].msg) + 1;
            char *m = malloc(len);
            e->conn.findings[i].msg = m ? memcpy(m, c->findings[i].msg, len) : no_text;
        }
    else
        e->conn.nfindings = 0;
    if (c->nterms && (e->conn.terms = malloc(c->nterms * sizeof *c->terms)))
        memcpy(e->conn.terms, c->terms, c->nterms * sizeof *c->terms);
    else
        e->conn.nterms = 0;
}

static void on_mpa(void *user, const audit_conn *c)
{
    worker *w = user;
    ev *e = ev_new(w, E_MPA, 0, 0);
    if (e)
        e->local_id = c->id;
}

static void on_gauge(void *user, int which, uint64_t packet, uint64_t peak, uint64_t after)
{
    worker *w = user;
    ev *e = ev_new(w, E_GAUGE, 0, 0);
    if (!e)
        return;
    e->which = which;
    e->g[0] = packet;
    e->g[1] = peak;
    e->g[2] = after;
}

/* A packet's octets: where the reader holds them, or in the batch. */
static const uint8_t *rec_bytes(const batch *b, const rec *r) { return r->held ? r->held : b->data + r->at; }

/* The octets of this worker's packet PREFETCH_RECS records on are asked
 * for while it audits the ones before (the reader's own page-ahead
 * prefetch brings them into the reader's core, not the workers'). */
#define PREFETCH_RECS 4u

static void prefetch_rec(const worker *w, const batch *b, const rec *r)
{
#if defined(__GNUC__)
    if (r->kind != R_PACKET || (r->owner >= 0 && (unsigned)r->owner != w->k))
        return;
    const uint8_t *p = rec_bytes(b, r);
    for (uint32_t o = 0; o < r->caplen; o += 64)
        __builtin_prefetch(p + o);
#else
    (void)w, (void)b, (void)r;
#endif
}

static int run_batch(worker *w, batch *b)
{
    w->cur = b;
    for (unsigned i = 0; i < b->nrec && i < PREFETCH_RECS; i++)
        prefetch_rec(w, b, &b->recs[i]);
    for (unsigned i = 0; i < b->nrec; i++) {
        const rec *r = &b->recs[i];
        if (i + PREFETCH_RECS < b->nrec)
            prefetch_rec(w, b, &b->recs[i + PREFETCH_RECS]);
        switch (r->kind) {
        case R_FILE:
            audit_begin_file(w->a, r->name, r->linktype);
            if (w->k == 0) { /* the report's auditor learns it in turn */
                ev *e = ev_new(w, E_FILE, 0, 0);
                if (e) {
                    e->name = r->name;
                    e->local_id = (unsigned)r->linktype;
                }
            }
            break;
        case R_PROBLEM:
            audit_input_problem(w->a, (mpa_finding_id)r->linktype, "%s", (const char *)b->data + r->at);
            break;
        case R_SOURCE:
            audit_source(w->a, r->read, r->ctx);
            break;
        default:
            if (r->owner >= 0 && (unsigned)r->owner != w->k)
                audit_packet_other(w->a, r->ts, r->caplen);
            else if (r->src_at && r->owner < 0)
                audit_packet_at(w->a, r->ts, rec_bytes(b, r), r->caplen, r->wirelen, r->src_at - 1);
            else if (r->src_at)
                audit_packet_mine_at(w->a, r->ts, rec_bytes(b, r), r->caplen, r->wirelen, r->src_at - 1);
            else if (r->owner < 0)
                audit_packet(w->a, r->ts, rec_bytes(b, r), r->caplen, r->wirelen);
            else
                audit_packet_mine(w->a, r->ts, rec_bytes(b, r), r->caplen, r->wirelen);
        }
    }
    if (b->last)
        audit_finish(w->a);
    return b->last;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    jobs *j = w->j;
    for (uint64_t s = 0;; s++) {
        pthread_mutex_lock(&j->m);
        while (j->published <= s)
            pthread_cond_wait(&j->work, &j->m);
        pthread_mutex_unlock(&j->m);
        int last = run_batch(w, &j->b[s % j->nb]);
        pthread_mutex_lock(&j->m);
        j->done[w->k] = s + 1;
        pthread_cond_broadcast(&j->fin);
        pthread_mutex_unlock(&j->m);
        if (last)
            return NULL;
    }
}

/* ---- the merge ---------------------------------------------------------------- */

static int ev_before(const ev *a, const ev *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    if (a->phase != b->phase)
        return a->phase < b->phase;
    return a->sub < b->sub;
}

static void deliver(jobs *j, unsigned w, ev *e)
{
    uint64_t wk = (uint64_t)w << 32;
    switch (e->kind) {
    case E_MPA:
        id_put(j, wk | e->local_id, ++j->next_id);
        break;
    case E_FINDING:
        if (!e->has_conn) {
            audit_add_global(j->agg, &e->f);
        } else if (j->out.finding) {
            e->conn.id = e->conn.id ? id_get(j, wk | e->conn.id, 0) : 0;
            j->out.finding(j->out.user, &e->conn, &e->f);
        }
        break;
    case E_CONN:
        e->conn.id = id_get(j, wk | e->conn.id, 1);
        if (j->out.conn_done)
            j->out.conn_done(j->out.user, &e->conn);
        for (size_t i = 0; i < e->conn.nfindings; i++)
            if (e->conn.findings[i].msg != no_text)
                free((char *)e->conn.findings[i].msg);
        free(e->conn.findings);
        free(e->conn.terms);
        break;
    case E_GAUGE:
        gauge_add(j, w, e);
        break;
    case E_FILE:
        audit_begin_file(j->agg, e->name, (int)e->local_id);
        break;
    }
    free(e);
}

/* Merge the oldest batch not merged yet (waiting for the workers). */
static void merge_next(jobs *j)
{
    uint64_t s = j->merged;
    pthread_mutex_lock(&j->m);
    for (;;) {
        unsigned k = 0;
        while (k < j->n && j->done[k] > s)
            k++;
        if (k == j->n)
            break;
        pthread_cond_wait(&j->fin, &j->m);
    }
    pthread_mutex_unlock(&j->m);
    batch *b = &j->b[s % j->nb];
    for (;;) {
        int best = -1;
        for (unsigned w = 0; w < j->n; w++)
            if (b->head[w] && (best < 0 || ev_before(b->head[w], b->head[best])))
                best = (int)w;
        if (best < 0)
            break;
        ev *e = b->head[best];
        b->head[best] = e->next;
        deliver(j, (unsigned)best, e);
    }
    for (unsigned w = 0; w < j->n; w++)
        b->tail[w] = NULL;
    j->merged++;
}

/* Every worker has finished batch s. */
static int all_done(jobs *j, uint64_t s)
{
    int r = 1;
    pthread_mutex_lock(&j->m);
    for (unsigned k = 0; k < j->n; k++)
        r &= j->done[k] > s;
    pthread_mutex_unlock(&j->m);
    return r;
}

/* Hand the batch being filled to the workers; the next slot is made
 * free.  Worker 0 is the reader itself: it audits its share of the batch
 * now, while the other workers do theirs (on a machine with as many
 * cores as workers, a reader thread beside them left a core short). */
static void publish(jobs *j)
{
    pthread_mutex_lock(&j->m);
    uint64_t s = j->published++;
    pthread_cond_broadcast(&j->work);
    pthread_mutex_unlock(&j->m);
    if (j->w0_live) {
        if (run_batch(&j->w[0], &j->b[s % j->nb]))
            j->w0_live = 0;
        pthread_mutex_lock(&j->m);
        j->done[0] = s + 1;
        pthread_mutex_unlock(&j->m);
    }
    while (j->merged < j->published && all_done(j, j->merged))
        merge_next(j); /* as they are ready: the report flows */
    while (j->merged + j->nb <= j->published)
        merge_next(j);
    batch *b = &j->b[j->published % j->nb];
    b->used = b->span = 0;
    b->nrec = 0;
    b->last = 0;
}

/* Room in the batch being filled for a record of octets octets copied
 * in, spanning span octets of the file: NULL when there is no memory for
 * a packet that large.  A batch spans at most BATCH_OCTETS (jobs_new's
 * hold). */
static rec *room(jobs *j, size_t octets, size_t span)
{
    batch *b = &j->b[j->published % j->nb];
    if (b->nrec == BATCH_RECS || b->cap - b->used < octets || BATCH_OCTETS - b->span < span) {
        if (b->nrec)
            publish(j);
        b = &j->b[j->published % j->nb];
        if (b->cap < octets) {
            uint8_t *nd = realloc(b->data, octets);
            if (!nd)
                return NULL;
            b->data = nd;
            b->cap = octets;
        }
    }
    rec *r = &b->recs[b->nrec++];
    memset(r, 0, sizeof *r);
    r->at = b->used;
    b->used += octets;
    b->span += span < BATCH_OCTETS ? span : BATCH_OCTETS;
    return r;
}

static uint8_t *rec_data(jobs *j, const rec *r) { return j->b[j->published % j->nb].data + r->at; }

static void to_begin(void *user, const char *name, int linktype)
{
    jobs *j = user;
    j->linktype = linktype;
    rec *r = room(j, 0, 0);
    r->kind = R_FILE;
    r->name = name;
    r->linktype = linktype;
}

static void to_packet_at(void *user, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t wirelen,
                         uint64_t off, int held)
{
    jobs *j = user;
    held = held && caplen <= HELD_MAX;
    rec *r = room(j, held ? 0 : caplen, (size_t)caplen + 16);
    if (!r)
        return;
    r->kind = R_PACKET;
    r->src_at = off == UINT64_MAX ? 0 : off + 1;
    r->ts = ts_ns;
    r->caplen = caplen;
    r->wirelen = wirelen;
    r->owner = audit_packet_owner(j->owners, j->linktype, data, caplen, wirelen, j->nres);
    if (r->owner > 0)
        r->owner = 1 + (r->owner - 1) / W_SHARE;
    if (held)
        r->held = data;
    else
        memcpy(rec_data(j, r), data, caplen);
}

static void to_packet(void *user, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t wirelen, int held)
{
    to_packet_at(user, ts_ns, data, caplen, wirelen, UINT64_MAX, held);
}

static void to_sync(void *user);

/* A file read in place: each worker reads TCP's history back from it
 * (audit_source), with pread, as the reader's window moves on.  When it
 * goes, the workers read back what they still refer to before the reader
 * closes the file: it waits for them. */
static void to_source(void *user, int (*read)(void *ctx, uint64_t off, uint8_t *dst, uint32_t n), void *ctx)
{
    jobs *j = user;
    rec *r = room(j, 0, 0);
    if (!r)
        return;
    r->kind = R_SOURCE;
    r->read = read ? input_source_pread : NULL;
    r->ctx = ctx;
    if (!read)
        to_sync(j);
}

/* The reader lets go of what it holds: the workers are done with it. */
static void to_sync(void *user)
{
    jobs *j = user;
    batch *b = &j->b[j->published % j->nb];
    if (b->nrec)
        publish(j);
    while (j->merged < j->published)
        merge_next(j);
}

static void to_problem(void *user, mpa_finding_id id, const char *msg)
{
    jobs *j = user;
    size_t len = strlen(msg) + 1;
    rec *r = room(j, len, 0);
    if (!r)
        return;
    r->kind = R_PROBLEM;
    r->linktype = (int)id;
    memcpy(rec_data(j, r), msg, len);
}

/* ---- the object ------------------------------------------------------------------ */

/* Of a limit, the part of a worker following span of nres residues (at
 * least 1 when the limit is). */
static unsigned long long part_of(unsigned long long v, unsigned span, unsigned nres)
{
    if (!v)
        return 0;
    return v / nres * span + ((v % nres) * span + nres - 1) / nres;
}

jobs *jobs_new(audit *agg, const audit_out *out, const audit_opts *o, unsigned n, int conn_findings)
{
    jobs *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->n = n;
    j->nb = 2 * n + 2 < NBATCH_MAX ? 2 * n + 2 : NBATCH_MAX;
    j->agg = agg;
    j->out = *out;
    j->conn_findings = conn_findings;
    /* Batches not merged span at most nb * BATCH_OCTETS of the file
     * before the record being read (and start a window before). */
    j->sink = (input_sink){j,       to_begin, to_packet, to_problem, to_sync, (uint64_t)(j->nb + 1) * BATCH_OCTETS,
                           to_source, to_packet_at};
    j->b = calloc(j->nb, sizeof *j->b);
    j->w = calloc(n, sizeof *j->w);
    j->done = calloc(n, sizeof *j->done);
    j->owners = audit_owner_cache_new();
    int ok = j->b && j->w && j->done && j->owners;
    for (int i = 0; i < 2 && ok; i++) {
        gsum *g = &j->g[i];
        ok = (g->cur = calloc(n, sizeof *g->cur)) && (g->pk = calloc(n, sizeof *g->pk)) &&
             (g->af = calloc(n, sizeof *g->af)) && (g->has = calloc(n, 1));
    }
    for (unsigned i = 0; ok && i < j->nb; i++) {
        batch *b = &j->b[i];
        b->cap = BATCH_OCTETS;
        ok = (b->data = malloc(b->cap)) && (b->recs = malloc(BATCH_RECS * sizeof *b->recs)) &&
             (b->head = calloc(n, sizeof *b->head)) && (b->tail = calloc(n, sizeof *b->tail));
    }
    audit_opts wo = *o;
    j->nres = 1 + W_SHARE * (n - 1);
    wo.nshards = j->nres;
    for (unsigned k = 0; ok && k < n; k++) {
        worker *w = &j->w[k];
        w->j = j;
        w->k = k;
        unsigned span = k ? W_SHARE : 1;
        wo.shard = k ? 1 + W_SHARE * (k - 1) : 0;
        wo.shard_span = span;
        wo.max_conns = (unsigned)part_of(o->max_conns, span, j->nres);
        wo.max_mpa = (unsigned)part_of(o->max_mpa, span, j->nres);
        wo.mem_cap = (size_t)part_of(o->mem_cap, span, j->nres);
        audit_out wout = {w, on_finding, on_conn, on_mpa, on_gauge};
        ok = (w->a = audit_new(&wo, &wout)) != NULL;
    }
    if (ok && !pthread_mutex_init(&j->m, NULL)) {
        if (!pthread_cond_init(&j->work, NULL)) {
            if (!pthread_cond_init(&j->fin, NULL))
                j->sync_ok = 1;
            else
                pthread_cond_destroy(&j->work);
        }
        if (!j->sync_ok)
            pthread_mutex_destroy(&j->m);
    }
    ok = ok && j->sync_ok;
    j->w0_live = ok;
    for (unsigned k = 1; ok && k < n; k++)
        j->w[k].started = ok = pthread_create(&j->w[k].th, NULL, worker_main, &j->w[k]) == 0;
    if (!ok) {
        jobs_free(j);
        return NULL;
    }
    return j;
}

const input_sink *jobs_sink(jobs *j) { return &j->sink; }

/* The last batch: the workers finish, all they made is merged. */
static void stop_workers(jobs *j)
{
    int running = j->w0_live;
    pthread_mutex_lock(&j->m);
    for (unsigned k = 1; k < j->n; k++) {
        running |= j->w[k].started;
        if (!j->w[k].started)
            j->done[k] = UINT64_MAX; /* never started: nothing to wait for */
    }
    pthread_mutex_unlock(&j->m);
    if (!running)
        return;
    batch *b = &j->b[j->published % j->nb];
    b->last = 1;
    publish(j);
    while (j->merged < j->published)
        merge_next(j);
    for (unsigned k = 0; k < j->n; k++)
        if (j->w[k].started) {
            pthread_join(j->w[k].th, NULL);
            j->w[k].started = 0;
        }
}

void jobs_finish(jobs *j)
{
    if (j->finished)
        return;
    j->finished = 1;
    stop_workers(j);
    for (int i = 0; i < 2; i++)
        gauge_flush(&j->g[i], j->n);
    /* The run's statistics: what every worker counts alike from worker 0
     * (packets, input problems), the rest added up. */
    const audit_stats *s0 = audit_get_stats(j->w[0].a);
    audit_stats s = *s0;
    s.tcp_conns = s.mpa_conns = s.evicted = s.early_holes = s.suppressed = 0;
    memset(s.severity, 0, sizeof s.severity);
    for (unsigned k = 0; k < j->n; k++) {
        const audit_stats *x = audit_get_stats(j->w[k].a);
        s.tcp_conns += x->tcp_conns;
        s.mpa_conns += x->mpa_conns;
        s.evicted += x->evicted;
        s.early_holes += x->early_holes;
        s.suppressed += x->suppressed - x->shared_suppressed;
        for (int i = 0; i < 3; i++)
            s.severity[i] += x->severity[i] - x->shared_severity[i];
    }
    s.suppressed += s0->shared_suppressed;
    for (int i = 0; i < 3; i++)
        s.severity[i] += s0->shared_severity[i];
    s.open_peak = (size_t)j->g[0].peak;
    s.ooo_peak = (size_t)j->g[1].peak;
    s.other_shard = s.local_findings = s.shared_suppressed = 0;
    memset(s.shared_severity, 0, sizeof s.shared_severity);
    audit_set_stats(j->agg, &s);
}

void jobs_free(jobs *j)
{
    if (!j)
        return;
    if (j->sync_ok)
        stop_workers(j); /* the workers end only at the last batch */
    for (unsigned k = 0; j->w && k < j->n; k++)
        audit_free(j->w[k].a);
    for (unsigned i = 0; j->b && i < j->nb; i++) {
        batch *b = &j->b[i];
        for (unsigned w = 0; b->head && w < j->n; w++)
            while (b->head[w]) {
                ev *e = b->head[w];
                b->head[w] = e->next;
                free(e);
            }
        free(b->data);
        free(b->recs);
        free(b->head);
        free(b->tail);
    }
    audit_owner_cache_free(j->owners);
    for (int i = 0; i < 2; i++) {
        free(j->g[i].cur);
        free(j->g[i].pk);
        free(j->g[i].af);
        free(j->g[i].has);
    }
    if (j->sync_ok) {
        pthread_cond_destroy(&j->work);
        pthread_cond_destroy(&j->fin);
        pthread_mutex_destroy(&j->m);
    }
    free(j->ids);
    free(j->b);
    free(j->w);
    free(j->done);
    free(j);
}

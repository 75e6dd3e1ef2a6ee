/*
 * The auditor (audit.h): packets -> TCP connections -> libmpa stream
 * engines -> connection reports and findings.
 *
 * MPA has no port of its own (RFC 5044 7.1: the ULP decides when a TCP
 * connection turns to MPA), so a connection is taken for MPA when the
 * first octets of either direction are an MPA key, "MPA " (the Request,
 * the Reply, the draft-03 Start Key and the 2007 RtR frame all start so),
 * or when it runs on a port the user named.  Until that is decided its
 * octets wait (bounded); a connection that is not MPA costs nothing more
 * once decided.
 *
 * The engine must be fed both directions in the order the octets were
 * seen, and may hold a direction back (the Initiator's octets before the
 * Reply): what it does not take waits in a per-direction queue, in
 * arrival order, with the holes and ends that follow it.
 */
#include "audit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipfrag.h"
#include "pkt.h"
#include "tcp.h"

#define UNDECIDED_MAX (64u * 1024u)   /* octets held before MPA is decided */
#define PENDING_MAX (4u << 20)        /* octets held for a waiting direction */
#define FRAME_RING 16
#define GLOBAL_FINDINGS_MAX 1000
/* Findings kept (listed) for all open connections together: the per-rule
 * cap alone let 1000 connections breaking many rules keep hundreds of
 * MiB.  About 150 octets each: under 2.5 MiB. */
#define KEPT_FINDINGS_MAX 16384u
/* TERMINATE messages listed per connection (RFC 5040 4.8: one is the
 * last message; two million of them took gigabytes of report). */
#define TERMS_MAX 256u

enum { ST_UNDECIDED = 0, ST_MPA, ST_IGNORED };
enum { Q_DATA = 0, Q_GAP, Q_END };
enum { V_NONE = 0, V_MPA, V_OTHER, V_LOST };

typedef struct qitem {
    struct qitem *next;
    uint8_t kind, flag;      /* Q_END: flag = rst; Q_DATA: flag = segment start */
    uint64_t seq;            /* arrival order across both directions */
    uint64_t len;            /* data octets, or the hole's length */
    uint32_t used;           /* data octets already fed */
    unsigned file;
    uint64_t frame;
    uint8_t data[];
} qitem;

typedef struct fref {
    uint64_t off;
    unsigned file;
    uint64_t frame;
} fref;

typedef struct conn conn;

typedef struct key {
    uint8_t family, nvlan, pad[2]; /* zeroed: hashed and compared as octets */
    uint16_t port[2];
    uint16_t vlan[PKT_MAX_VLAN];
    uint8_t addr[2][16];
} key;

struct conn {
    audit_conn pub;
    audit *a;
    key k;             /* canonical: side 0 sorts first */
    int client_side;   /* which side of k is the client (dir 0) */
    conn *hnext;       /* hash chain */
    conn *lprev, *lnext; /* activity list, least recent first */
    int state;
    int listed;        /* on a port the user named */
    uint32_t client_isn;
    tcp_dir tcp[2];
    tcp_sink sink;
    mpa_stream *ms;
    /* detection */
    uint8_t first[2][4];
    uint8_t nfirst[2];
    uint8_t verdict[2];
    /* pending items per direction */
    qitem *qh[2], *qt[2];
    uint64_t qbytes[2], qseq;
    uint64_t lost_pending[2];
    int limit_done;
    /* stream offset -> frame, per direction */
    fref ring[2][FRAME_RING];
    unsigned rpos[2], rn[2];
    size_t fcap, tcap;
    uint32_t cut_done;
    unsigned *idcount;  /* findings kept, per rule (allocated with the first) */
    uint8_t overflow;   /* undecided, and too much to hold: not MPA */
    uint8_t terms_done; /* said that TERMINATEs are no longer listed */
    uint8_t fin[2];     /* an ignored connection still closes */
};

typedef struct file_ent {
    char *name;
    int linktype;
} file_ent;

struct audit {
    audit_opts o;
    audit_out out;
    audit_stats st;
    file_ent *files;
    unsigned nfiles;
    unsigned cur_file;
    uint64_t cur_frame;
    uint64_t cur_ts;
    int linktype;
    /* connections */
    conn **ht;
    size_t hsize, nopen;
    conn *lhead, *ltail;
    tcp_budget budget;
    ipfrag *frag;
    size_t nmpa;                 /* MPA engines alive */
    int conn_limit_done, mpa_limit_done;
    size_t kept;                 /* findings kept by open connections */
    size_t held;                 /* memory of TCP data held, bookkeeping included: out-of-order
                                  * segments and queued items (bounded by o.mem_cap) */
    int kept_limit_done, held_limit_done;
    /* findings not tied to a connection */
    audit_finding *gf;
    size_t ngf;
    unsigned gcount[MPA_F__COUNT];
    uint64_t sweep_at;
    char msg[512];
};

/* ---- options ---------------------------------------------------------- */

void audit_opts_default(audit_opts *o)
{
    memset(o, 0, sizeof *o);
    o->mem_cap = 8u << 20;
    o->max_conns = 10000;
    o->max_mpa = 1000;
    o->max_findings = 100;
    o->idle_ns = 600ull * 1000000000ull;
}

/* ---- findings --------------------------------------------------------- */

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void global_note(audit *a, mpa_finding_id id, const char *fmt, ...);

/* Keep a finding (unless over the per-rule cap) and pass it on. */
static void add_finding(audit *a, conn *c, mpa_finding_id id, unsigned file, uint64_t frame, int dir, uint64_t off,
                        const char *msg)
{
    const mpa_rule *r = mpa_rule_get(id);
    if (!r)
        return;
    audit_finding f = {id, r, file, frame, dir, off, msg};
    /* A connection not yet known to speak MPA keeps its findings quietly:
     * they count, and are passed on, only if it turns out to (see
     * start_engine); otherwise they go with it. */
    int quiet = c && c->state != ST_MPA;
    if (!quiet)
        a->st.severity[r->severity]++;
    if (c) {
        if (!quiet)
            c->pub.severity[r->severity]++;
        if (!c->idcount && !(c->idcount = calloc(MPA_F__COUNT, sizeof *c->idcount)))
            return;
        if (a->o.max_findings && c->idcount[id] >= a->o.max_findings) {
            c->pub.suppressed++;
            a->st.suppressed++;
            return;
        }
        if (a->kept >= KEPT_FINDINGS_MAX) {
            c->pub.suppressed++;
            a->st.suppressed++;
            if (!a->kept_limit_done) {
                a->kept_limit_done = 1;
                global_note(a, MPA_F_CAP_LIMIT,
                            "more than %u findings held for connections still open: further ones are counted, not "
                            "listed, until connections complete (each connection's findings_suppressed says how many)",
                            KEPT_FINDINGS_MAX);
            }
            return;
        }
        if (c->pub.nfindings == c->fcap) {
            size_t nc = c->fcap ? c->fcap * 2 : 16;
            audit_finding *nf = realloc(c->pub.findings, nc * sizeof *nf);
            if (!nf)
                return;
            c->pub.findings = nf;
            c->fcap = nc;
        }
        f.msg = xstrdup(msg);
        if (!f.msg)
            return;
        c->pub.findings[c->pub.nfindings++] = f;
        c->idcount[id]++;
        a->kept++;
        if (quiet)
            return;
    } else {
        if ((a->o.max_findings && a->gcount[id] >= a->o.max_findings) || a->ngf >= GLOBAL_FINDINGS_MAX) {
            a->st.suppressed++;
            return;
        }
        a->gcount[id]++;
        audit_finding *nf = realloc(a->gf, (a->ngf + 1) * sizeof *nf);
        if (!nf)
            return;
        a->gf = nf;
        f.msg = xstrdup(msg);
        if (!f.msg)
            return;
        a->gf[a->ngf++] = f;
    }
    if (a->out.finding)
        a->out.finding(a->out.user, c ? &c->pub : NULL, &f);
}

#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
static void conn_note(conn *c, mpa_finding_id id, int dir, uint64_t off, uint64_t frame, const char *fmt, ...)
{
    audit *a = c->a;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->msg, sizeof a->msg, fmt, ap);
    va_end(ap);
    add_finding(a, c, id, a->cur_file, frame, dir, off, a->msg);
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void global_note(audit *a, mpa_finding_id id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->msg, sizeof a->msg, fmt, ap);
    va_end(ap);
    add_finding(a, NULL, id, a->cur_file, a->cur_frame, -1, UINT64_MAX, a->msg);
}

void audit_input_problem(audit *a, mpa_finding_id id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->msg, sizeof a->msg, fmt, ap);
    va_end(ap);
    add_finding(a, NULL, id, a->cur_file, a->cur_frame, -1, UINT64_MAX, a->msg);
}

/* ---- stream offset -> frame ----------------------------------------- */

static void ring_put(conn *c, int dir, uint64_t off, uint64_t frame)
{
    fref *r = &c->ring[dir][c->rpos[dir]];
    r->off = off;
    r->file = c->a->cur_file;
    r->frame = frame;
    c->rpos[dir] = (c->rpos[dir] + 1) % FRAME_RING;
    if (c->rn[dir] < FRAME_RING)
        c->rn[dir]++;
}

/* The frame that carried octet off of dir, when still known; else the
 * frame being processed. */
static void ring_find(const conn *c, int dir, uint64_t off, unsigned *file, uint64_t *frame)
{
    *file = c->a->cur_file;
    *frame = c->a->cur_frame;
    if (dir < 0 || dir > 1)
        return;
    for (unsigned i = 0; i < c->rn[dir]; i++) {
        const fref *r = &c->ring[dir][(c->rpos[dir] + FRAME_RING - 1 - i) % FRAME_RING];
        if (r->off <= off) {
            *file = r->file;
            *frame = r->frame;
            return;
        }
    }
}

/* ---- the engine's events --------------------------------------------- */

static void on_event(void *user, const mpa_event *ev)
{
    conn *c = user;
    audit *a = c->a;
    audit_dir *d = &c->pub.d[ev->dir];
    unsigned file;
    uint64_t frame;
    /* Markers and plain FPDUs are most events: they need no frame. */
    if (ev->type == MPA_EV_MARKER || ev->type == MPA_EV_DATA || ev->type == MPA_EV_MODE)
        file = 0, frame = 0;
    else if (ev->type == MPA_EV_FPDU && ev->u.fpdu.rtr == MPA_RTR_NONE &&
             (ev->u.fpdu.ddp_status != MPA_OK || ev->u.fpdu.ddp.hdr.opcode != MPA_RDMAP_TERMINATE))
        file = 0, frame = 0;
    else
        ring_find(c, ev->dir, ev->off, &file, &frame);
    switch (ev->type) {
    case MPA_EV_FRAME:
        if (ev->u.frame.frame.kind != MPA_KEY_RTR2007 || !d->startup.have) {
            d->startup.have = 1;
            d->startup.fr = ev->u.frame.frame;
            d->startup.fr.pd = NULL;
            d->startup.file = file;
            d->startup.frame = frame;
            d->startup.off = ev->off;
        }
        if (ev->u.frame.role != MPA_ROLE_UNKNOWN)
            d->role = ev->u.frame.role;
        break;
    case MPA_EV_MODE:
        if (ev->u.mode.mode == MPA_MODE_FPDU) {
            d->fpdu_mode = 1;
            d->markers = ev->u.mode.markers;
            d->crc = ev->u.mode.crc;
        }
        break;
    case MPA_EV_FPDU: {
        const mpa_ev_fpdu *f = &ev->u.fpdu;
        if (f->rtr != MPA_RTR_NONE && d->rtr == MPA_RTR_NONE) {
            d->rtr = f->rtr;
            d->rtr_negotiated = f->negotiated_rtr;
            d->rtr_file = file;
            d->rtr_frame = frame;
        }
        if (f->ddp_status == MPA_OK && f->ddp.hdr.opcode == MPA_RDMAP_TERMINATE && f->ddp.complete) {
            if (c->pub.nterms >= TERMS_MAX) {
                if (!c->terms_done) {
                    c->terms_done = 1;
                    conn_note(c, MPA_F_CAP_LIMIT, ev->dir, ev->off, frame,
                              "more than %u TERMINATE messages: the later ones are not listed", TERMS_MAX);
                }
                break;
            }
            if (c->pub.nterms == c->tcap) {
                size_t nc = c->tcap ? c->tcap * 2 : 4;
                audit_term *nt = realloc(c->pub.terms, nc * sizeof *nt);
                if (!nt)
                    break;
                c->pub.terms = nt;
                c->tcap = nc;
            }
            audit_term *t = &c->pub.terms[c->pub.nterms++];
            t->dir = ev->dir;
            t->file = file;
            t->frame = frame;
            t->off = ev->off;
            t->layer = f->ddp.u.term.layer;
            t->etype = f->ddp.u.term.etype;
            t->code = f->ddp.u.term.code;
        }
        break;
    }
    case MPA_EV_FINDING:
        add_finding(a, c, ev->u.finding.id, file, frame, ev->dir, ev->off, ev->u.finding.msg);
        break;
    case MPA_EV_MARKER:
    case MPA_EV_DATA:
        break;
    }
}

/* ---- feeding the engine in order ------------------------------------ */

/* Undecided connections that decide() will take for MPA right away. */
static int will_be_mpa(const conn *c)
{
    return c->verdict[0] == V_MPA || c->verdict[1] == V_MPA ||
           (c->listed && (c->verdict[0] != V_NONE || c->verdict[1] != V_NONE));
}

/* What a queued item costs against the limits: its octets and its
 * bookkeeping (malloc's included), so that a flood of one-octet
 * segments cannot hold fifty times the limit. */
static size_t q_cost(int kind, uint64_t len)
{
    return sizeof(qitem) + 16 + (kind == Q_DATA ? (size_t)len : 0);
}

static void q_push(conn *c, int dir, int kind, int flag, const uint8_t *p, uint64_t len, uint64_t frame)
{
    audit *a = c->a;
    size_t cost = q_cost(kind, len);
    if (kind == Q_DATA) {
        /* Each connection's own limit, and the memory for held TCP data
         * shared with the out-of-order segments (--mem-cap): without the
         * latter, 1000 connections holding 4 MiB each (or 10000
         * undecided ones 64 KiB each) broke the memory bound. */
        int own = c->qbytes[dir] + cost > (c->state == ST_UNDECIDED ? UNDECIDED_MAX : PENDING_MAX);
        int shared = a->held + cost > a->budget.cap;
        if (c->state == ST_UNDECIDED && !own && shared && will_be_mpa(c))
            shared = 0; /* decide() feeds it to the engine at once */
        if (own || shared) {
            if (c->state != ST_MPA) {
                /* Undecided: taken for not MPA (decide()).  Setting a
                 * flag, not returning quietly: the octets are missing
                 * from the queue, so it must never be fed. */
                c->overflow = 1;
                if (!own && !a->held_limit_done) {
                    a->held_limit_done = 1;
                    global_note(a, MPA_F_CAP_LIMIT,
                                "memory for TCP data held (--mem-cap %zu MiB) used up: connections not yet known to "
                                "speak MPA that need more are taken for not MPA",
                                a->o.mem_cap >> 20);
                }
                return;
            }
            /* Too much to hold: the octets count as lost, said once. */
            if (!c->limit_done) {
                c->limit_done = 1;
                if (own)
                    conn_note(c, MPA_F_CAP_LIMIT, dir, UINT64_MAX, frame,
                              "more than %u octets waiting for the other direction: the excess is treated as lost",
                              PENDING_MAX);
                else
                    conn_note(c, MPA_F_CAP_LIMIT, dir, UINT64_MAX, frame,
                              "memory for TCP data held (--mem-cap %zu MiB) used up: octets waiting for the other "
                              "direction are treated as lost",
                              a->o.mem_cap >> 20);
            }
            kind = Q_GAP;
            cost = q_cost(Q_GAP, len);
        }
    }
    /* Consecutive holes with nothing queued between them are one: past a
     * limit every segment becomes a hole, and must not cost an item. */
    if (kind == Q_GAP && c->qt[dir] && c->qt[dir]->kind == Q_GAP && c->qt[dir]->seq + 1 == c->qseq) {
        c->qt[dir]->len += len;
        return;
    }
    qitem *q = malloc(sizeof *q + (kind == Q_DATA ? (size_t)len : 0));
    if (!q)
        return;
    q->next = NULL;
    q->kind = (uint8_t)kind;
    q->flag = (uint8_t)flag;
    q->seq = c->qseq++;
    q->len = len;
    q->used = 0;
    q->file = a->cur_file;
    q->frame = frame;
    if (kind == Q_DATA)
        memcpy(q->data, p, (size_t)len);
    c->qbytes[dir] += cost;
    a->held += cost;
    if (c->qt[dir])
        c->qt[dir]->next = q;
    else
        c->qh[dir] = q;
    c->qt[dir] = q;
}

static void q_pop(conn *c, int dir)
{
    qitem *q = c->qh[dir];
    size_t cost = q_cost(q->kind, q->len);
    c->qh[dir] = q->next;
    if (!c->qh[dir])
        c->qt[dir] = NULL;
    c->qbytes[dir] -= cost;
    c->a->held -= cost;
    free(q);
}

static void q_clear(conn *c)
{
    for (int dir = 0; dir < 2; dir++)
        while (c->qh[dir])
            q_pop(c, dir);
}

/* Feed queued items, both directions in arrival order, skipping a
 * direction the engine holds back. */
static void pump(conn *c)
{
    for (;;) {
        int dir = -1;
        for (int k = 0; k < 2; k++) {
            if (!c->qh[k] || mpa_stream_waiting(c->ms, k))
                continue;
            if (dir < 0 || c->qh[k]->seq < c->qh[dir]->seq)
                dir = k;
        }
        if (dir < 0)
            return;
        qitem *q = c->qh[dir];
        switch (q->kind) {
        case Q_DATA: {
            if (q->flag && q->used == 0)
                mpa_stream_segment(c->ms, dir);
            size_t n = mpa_stream_feed(c->ms, dir, q->data + q->used, (size_t)(q->len - q->used));
            q->used += (uint32_t)n;
            /* The engine takes less only while the direction waits; were
             * it ever otherwise, give up the item rather than spin. */
            if (q->used < q->len && (n || mpa_stream_waiting(c->ms, dir)))
                continue;
            break;
        }
        case Q_GAP:
            mpa_stream_gap(c->ms, dir, q->len);
            break;
        case Q_END:
            mpa_stream_end(c->ms, dir, q->flag ? MPA_END_RST : MPA_END_FIN);
            break;
        }
        q_pop(c, dir);
    }
}

static void engine_data(conn *c, int dir, const uint8_t *p, uint32_t len, int seg_start, uint64_t frame)
{
    /* Nothing queued: offer the octets even when the direction waits,
     * so the engine sees them arrive early (MPA-STA-INIT-FPDU-WAIT) and
     * takes what it can. */
    if (!c->qh[dir]) {
        if (seg_start)
            mpa_stream_segment(c->ms, dir);
        size_t n = mpa_stream_feed(c->ms, dir, p, len);
        if (n < len)
            q_push(c, dir, Q_DATA, 0, p + n, len - n, frame);
    } else {
        q_push(c, dir, Q_DATA, seg_start, p, len, frame);
    }
    if (c->qh[!dir] || c->qh[dir])
        pump(c);
}

/* ---- deciding whether a connection speaks MPA ------------------------ */

static int on_listed_port(const audit *a, uint16_t port)
{
    for (unsigned i = 0; i < a->o.nports; i++)
        if (a->o.ports[i] == port)
            return 1;
    return 0;
}

static uint16_t port_of(const conn *c, int dir)
{
    int side = dir == 0 ? c->client_side : !c->client_side;
    return c->k.port[side];
}

static void conn_close(audit *a, conn *c, const char *why);

static void start_engine(conn *c)
{
    audit *a = c->a;
    mpa_stream_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    int starts_mpa = 0;
    for (int dir = 0; dir < 2; dir++) {
        cfg.isn[dir] = c->tcp[dir].base_seq;
        /* A sender's EMSS is bounded by the MSS its peer announced. */
        cfg.emss[dir] = c->pub.d[!dir].mss;
        starts_mpa |= c->verdict[dir] == V_MPA;
    }
    if (c->listed && !c->pub.syn_seen && !starts_mpa) {
        cfg.midstream = 1;
        c->pub.midstream = 1;
        for (int dir = 0; dir < 2; dir++) {
            /* [0] of the options: octets sent to the named port. */
            int to_port = on_listed_port(a, port_of(c, !dir));
            cfg.markers[dir] = a->o.mid_markers[to_port ? 0 : 1];
            cfg.crc[dir] = a->o.mid_crc[to_port ? 0 : 1];
        }
        if (on_listed_port(a, port_of(c, 1)))
            cfg.initiator = 1; /* the side that connects to the port */
    }
    if (a->nmpa >= a->o.max_mpa) {
        /* Too many MPA connections at once: the least recently active
         * one is reported now. */
        conn *old = a->lhead;
        while (old && old->state != ST_MPA)
            old = old->lnext;
        if (old) {
            a->st.evicted++;
            if (!a->mpa_limit_done) {
                a->mpa_limit_done = 1;
                global_note(a, MPA_F_CAP_LIMIT,
                            "more than %u MPA connections open at once: the least recently active are closed and "
                            "reported early (--max-mpa; the summary says how many)",
                            a->o.max_mpa);
            }
            conn_close(a, old, "table full");
        }
    }
    c->ms = malloc(mpa_stream_size());
    if (!c->ms)
        return; /* the caller ignores it */
    a->nmpa++;
    for (int dir = 0; dir < 2; dir++)
        c->tcp[dir].no_recent = 0; /* retransmissions are judged from here on */
    mpa_stream_init(c->ms, &cfg, on_event, c);
    c->state = ST_MPA;
    c->pub.is_mpa = 1;
    /* Connections are numbered in the order they turn out to be MPA. */
    c->pub.id = (unsigned)++a->st.mpa_conns;
    for (size_t i = 0; i < c->pub.nfindings; i++) {
        const audit_finding *f = &c->pub.findings[i];
        a->st.severity[f->rule->severity]++;
        c->pub.severity[f->rule->severity]++;
        if (a->out.finding)
            a->out.finding(a->out.user, &c->pub, f);
    }
}

/* Not MPA: nothing more is held for it; it only stays in the table so
 * that its later packets are recognised, until it closes.  (Its TCP state
 * is freed by tcp_packet, outside the reassembler's callbacks.) */
static void ignore(conn *c)
{
    c->state = ST_IGNORED;
    q_clear(c);
}

static void decide(conn *c)
{
    if (c->state != ST_UNDECIDED)
        return;
    if (will_be_mpa(c) && !c->overflow) {
        start_engine(c);
        if (c->state == ST_MPA)
            pump(c);
        else
            ignore(c);
        return;
    }
    int settled = (c->verdict[0] == V_OTHER || c->verdict[0] == V_LOST) &&
                  (c->verdict[1] == V_OTHER || c->verdict[1] == V_LOST);
    if (settled || c->overflow || c->qbytes[0] + c->qbytes[1] >= UNDECIDED_MAX)
        ignore(c);
}

/* ---- the TCP sink ---------------------------------------------------- */

static void t_data(void *user, int dir, uint64_t off, const uint8_t *p, uint32_t len, int seg_start, uint64_t frame)
{
    conn *c = user;
    c->pub.d[dir].payload_octets += len;
    if (c->state == ST_IGNORED)
        return;
    ring_put(c, dir, off, frame);
    if (c->state == ST_MPA) {
        engine_data(c, dir, p, len, seg_start, frame);
        return;
    }
    /* Undecided: learn the first four octets, hold everything. */
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
    q_push(c, dir, Q_DATA, seg_start, p, len, frame);
    decide(c);
}

static void t_gap(void *user, int dir, uint64_t off, uint64_t len, uint64_t frame)
{
    conn *c = user;
    if (c->state == ST_IGNORED)
        return;
    ring_put(c, dir, off, frame);
    if (c->state == ST_UNDECIDED) {
        if (c->verdict[dir] == V_NONE)
            c->verdict[dir] = V_LOST;
        q_push(c, dir, Q_GAP, 0, NULL, len, frame);
        decide(c);
        return;
    }
    if (!c->qh[dir])
        mpa_stream_gap(c->ms, dir, len);
    else
        q_push(c, dir, Q_GAP, 0, NULL, len, frame);
    pump(c);
}

static void t_end(void *user, int dir, int rst, uint64_t frame)
{
    conn *c = user;
    audit_dir *d = &c->pub.d[dir];
    d->end = rst ? 2 : 1;
    d->end_file = c->a->cur_file;
    d->end_frame = frame;
    if (c->state == ST_IGNORED)
        return;
    if (c->state == ST_UNDECIDED) {
        if (c->verdict[dir] == V_NONE)
            c->verdict[dir] = V_LOST;
        q_push(c, dir, Q_END, rst, NULL, 0, frame);
        decide(c);
        return;
    }
    if (!c->qh[dir])
        mpa_stream_end(c->ms, dir, rst ? MPA_END_RST : MPA_END_FIN);
    else
        q_push(c, dir, Q_END, rst, NULL, 0, frame);
    pump(c);
}

static void t_note(void *user, int dir, tcp_note what, uint64_t off, uint64_t len, uint64_t frame)
{
    conn *c = user;
    if (c->state == ST_IGNORED)
        return;
    switch (what) {
    case TCP_NOTE_CONFLICT:
        conn_note(c, MPA_F_CAP_OVERLAP, dir, off, frame,
                  "retransmitted octets at offset %llu (%llu octets checked) differ from the first copy, which is kept",
                  (unsigned long long)off, (unsigned long long)len);
        break;
    case TCP_NOTE_OUT_OF_WINDOW:
        conn_note(c, MPA_F_CAP_UNREADABLE, dir, UINT64_MAX, frame,
                  "segment of %llu octets outside the window (its sequence number is more than 2^30 from the expected "
                  "one, or before the start of the stream): ignored",
                  (unsigned long long)len);
        break;
    case TCP_NOTE_EARLY_HOLE:
        conn_note(c, MPA_F_CAP_LIMIT, dir, off, frame,
                  "out-of-order memory limit reached: %llu missing octets at offset %llu declared lost without waiting "
                  "for a retransmission",
                  (unsigned long long)len, (unsigned long long)off);
        break;
    }
}

/* ---- connections ----------------------------------------------------- */

/* Runs once per packet: eight octets at a time, multiply-xorshift. */
static uint64_t key_hash(const key *k)
{
    _Static_assert(sizeof(key) % 8 == 0, "key is hashed in 8-octet words");
    uint64_t h = 0x9E3779B97F4A7C15ull, w;
    const uint8_t *p = (const uint8_t *)k;
    for (size_t i = 0; i < sizeof *k; i += 8) {
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    return h;
}

static void lru_unlink(audit *a, conn *c)
{
    if (c->lprev)
        c->lprev->lnext = c->lnext;
    else
        a->lhead = c->lnext;
    if (c->lnext)
        c->lnext->lprev = c->lprev;
    else
        a->ltail = c->lprev;
    c->lprev = c->lnext = NULL;
}

static void lru_append(audit *a, conn *c)
{
    c->lprev = a->ltail;
    c->lnext = NULL;
    if (a->ltail)
        a->ltail->lnext = c;
    else
        a->lhead = c;
    a->ltail = c;
}

static void ht_remove(audit *a, conn *c)
{
    conn **pp = &a->ht[key_hash(&c->k) & (a->hsize - 1)];
    while (*pp && *pp != c)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = c->hnext;
}

static void ht_grow(audit *a)
{
    size_t ns = a->hsize * 2;
    conn **nt = calloc(ns, sizeof *nt);
    if (!nt)
        return;
    for (size_t i = 0; i < a->hsize; i++)
        for (conn *c = a->ht[i], *n; c; c = n) {
            n = c->hnext;
            size_t h = key_hash(&c->k) & (ns - 1);
            c->hnext = nt[h];
            nt[h] = c;
        }
    free(a->ht);
    a->ht = nt;
    a->hsize = ns;
}

static void conn_free(audit *a, conn *c)
{
    for (int dir = 0; dir < 2; dir++)
        tcp_dir_free(&c->tcp[dir], &a->budget);
    q_clear(c);
    a->kept -= c->pub.nfindings;
    if (c->ms)
        a->nmpa--;
    free(c->ms);
    free(c->idcount);
    for (size_t i = 0; i < c->pub.nfindings; i++)
        free((char *)c->pub.findings[i].msg);
    free(c->pub.findings);
    free(c->pub.terms);
    free(c);
}

/* The connection is over (or the capture is): report it and let it go. */
static void conn_close(audit *a, conn *c, const char *why)
{
    ht_remove(a, c);
    lru_unlink(a, c);
    a->nopen--;
    c->pub.closed = why;
    for (int dir = 0; dir < 2; dir++)
        tcp_dir_flush(&c->tcp[dir], dir, a->cur_frame, &c->sink, &a->budget);
    if (c->state == ST_UNDECIDED) {
        /* Whatever it held, it never showed an MPA key. */
        c->state = ST_IGNORED;
    }
    if (c->state == ST_MPA) {
        pump(c);
        mpa_stream_finish(c->ms);
        pump(c); /* octets held back are reported now */
        mpa_stream_finish(c->ms);
        /* The side facing an Initiator is the Responder, replied or not. */
        for (int dir = 0; dir < 2; dir++) {
            audit_dir *d = &c->pub.d[dir];
            if (d->role == MPA_ROLE_UNKNOWN)
                d->role = mpa_stream_role(c->ms, dir);
        }
        for (int dir = 0; dir < 2; dir++)
            if (c->pub.d[dir].role == MPA_ROLE_UNKNOWN && c->pub.d[!dir].role != MPA_ROLE_UNKNOWN)
                c->pub.d[dir].role =
                    c->pub.d[!dir].role == MPA_ROLE_INITIATOR ? MPA_ROLE_RESPONDER : MPA_ROLE_INITIATOR;
        for (int dir = 0; dir < 2; dir++) {
            audit_dir *d = &c->pub.d[dir];
            const tcp_dir *t = &c->tcp[dir];
            d->st = *mpa_stream_stats(c->ms, dir);
            d->mode = mpa_stream_mode(c->ms, dir);
            d->segments = t->segments;
            d->retrans_octets = t->retrans_octets;
            d->conflicts = t->conflicts;
            d->holes = t->holes;
            d->hole_octets = t->hole_octets;
            d->out_of_window = t->out_of_window;
            d->ooo_segments = t->ooo_segments;
        }
        if (a->out.conn_done)
            a->out.conn_done(a->out.user, &c->pub);
    }
    conn_free(a, c);
}

static void addr_str(const key *k, int side, char *buf, size_t cap)
{
    pkt_addr pa;
    pa.family = k->family;
    memcpy(pa.a, k->addr[side], 16);
    char ip[48];
    pkt_addr_str(&pa, ip, sizeof ip);
    if (k->family == 6)
        snprintf(buf, cap, "[%s]:%u", ip, k->port[side]);
    else
        snprintf(buf, cap, "%s:%u", ip, k->port[side]);
}

static conn *conn_new(audit *a, const key *k, int client_side, uint64_t ts)
{
    if (a->nopen >= a->o.max_conns && a->lhead) {
        /* Make room: a connection that is not MPA if one of the least
         * recently active is, else the least recently active. */
        conn *old = a->lhead;
        for (int i = 0; i < 64 && old && old->state == ST_MPA; i++)
            old = old->lnext;
        if (!old || old->state == ST_MPA)
            old = a->lhead;
        /* Say so for MPA connections, and for undecided ones too: one
         * may still turn out to speak MPA and would be audited without
         * its SYN (a flood of half-open connections went unmentioned). */
        if (old->state != ST_IGNORED) {
            a->st.evicted++;
            if (!a->conn_limit_done) {
                a->conn_limit_done = 1;
                global_note(a, MPA_F_CAP_LIMIT,
                            "more than %u TCP connections open at once (--max-conns): the least recently active "
                            "are closed early: those speaking MPA are reported as they stand, those not yet known to "
                            "(half-open, or no MPA key seen yet) are dropped; the summary counts both",
                            a->o.max_conns);
            }
        }
        conn_close(a, old, "table full");
    }
    conn *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->a = a;
    c->k = *k;
    c->client_side = client_side;
    c->sink.user = c;
    c->sink.data = t_data;
    c->sink.gap = t_gap;
    c->sink.end = t_end;
    c->sink.note = t_note;
    c->pub.first_file = c->pub.last_file = a->cur_file;
    c->pub.first_frame = c->pub.last_frame = a->cur_frame;
    c->pub.first_ts = c->pub.last_ts = ts;
    c->pub.nvlan = k->nvlan;
    for (unsigned i = 0; i < k->nvlan && i < 4; i++)
        c->pub.vlan[i] = k->vlan[i];
    for (int dir = 0; dir < 2; dir++) {
        addr_str(k, dir == 0 ? client_side : !client_side, c->pub.d[dir].addr, sizeof c->pub.d[dir].addr);
        c->pub.d[dir].rtr = MPA_RTR_NONE;
    }
    c->listed = on_listed_port(a, k->port[0]) || on_listed_port(a, k->port[1]);
    /* No retransmission history (4 KiB a direction) until it speaks MPA:
     * 10000 undecided connections with a segment each held 80 MiB of it.
     * What is lost: a conflicting resend of the segment that decides. */
    c->tcp[0].no_recent = c->tcp[1].no_recent = 1;
    /* Out-of-order segments and queued items share --mem-cap, counted
     * with their bookkeeping. */
    c->tcp[0].charge = c->tcp[1].charge = &a->held;
    if (a->nopen * 2 >= a->hsize)
        ht_grow(a);
    size_t h = key_hash(k) & (a->hsize - 1);
    c->hnext = a->ht[h];
    a->ht[h] = c;
    lru_append(a, c);
    a->nopen++;
    if (a->nopen > a->st.open_peak)
        a->st.open_peak = a->nopen;
    a->st.tcp_conns++;
    return c;
}

static conn *conn_find(audit *a, const key *k)
{
    for (conn *c = a->ht[key_hash(k) & (a->hsize - 1)]; c; c = c->hnext)
        if (memcmp(&c->k, k, sizeof *k) == 0)
            return c;
    return NULL;
}

/* Close connections silent for longer than the idle time. */
static void sweep(audit *a, uint64_t now)
{
    while (a->lhead && now > a->lhead->pub.last_ts && now - a->lhead->pub.last_ts > a->o.idle_ns)
        conn_close(a, a->lhead, "idle");
}

/* ---- packets --------------------------------------------------------- */

static void tcp_packet(audit *a, const pkt *p, uint64_t ts)
{
    const pkt_tcp *t = &p->tcp;
    key k;
    memset(&k, 0, sizeof k);
    k.family = p->ip.src.family;
    k.nvlan = p->ip.nvlan;
    for (unsigned i = 0; i < p->ip.nvlan && i < PKT_MAX_VLAN; i++)
        k.vlan[i] = p->ip.vlan[i];
    /* Canonical order: the smaller (address, port) is side 0. */
    int cmp = memcmp(p->ip.src.a, p->ip.dst.a, 16);
    int src_side = cmp < 0 || (cmp == 0 && t->sport <= t->dport) ? 0 : 1;
    memcpy(k.addr[src_side], p->ip.src.a, 16);
    memcpy(k.addr[!src_side], p->ip.dst.a, 16);
    k.port[src_side] = t->sport;
    k.port[!src_side] = t->dport;

    int syn = t->flags & PKT_TCP_SYN, ack = t->flags & PKT_TCP_ACK, fin = t->flags & PKT_TCP_FIN,
        rst = t->flags & PKT_TCP_RST;
    uint32_t plen = t->payload_wire > t->payload_len ? t->payload_wire : t->payload_len;
    conn *c = conn_find(a, &k);
    if (c && syn && !ack && c->pub.syn_seen && t->seq != c->client_isn) {
        /* A new SYN with another ISN: the 4-tuple is used again. */
        conn_close(a, c, "reused");
        c = NULL;
    }
    if (!c) {
        if (rst || (!syn && !plen && !fin))
            return; /* nothing to follow */
        int client_side;
        if (syn)
            client_side = ack ? !src_side : src_side;
        else if (on_listed_port(a, t->dport))
            client_side = src_side;
        else if (on_listed_port(a, t->sport))
            client_side = !src_side;
        else
            client_side = src_side;
        c = conn_new(a, &k, client_side, ts);
        if (!c)
            return;
    }
    int dir = src_side == c->client_side ? 0 : 1;
    audit_dir *d = &c->pub.d[dir];
    lru_unlink(a, c);
    lru_append(a, c);
    c->pub.last_file = a->cur_file;
    c->pub.last_frame = a->cur_frame;
    c->pub.last_ts = ts;
    if (c->state == ST_IGNORED) {
        /* Nothing to reassemble: only watch it close. */
        if (fin)
            c->fin[dir] = 1;
        if (rst)
            conn_close(a, c, "reset");
        else if (c->fin[0] && c->fin[1])
            conn_close(a, c, "closed");
        return;
    }
    uint32_t seq = t->seq;
    if (syn) {
        if (t->mss)
            d->mss = t->mss;
        if (!ack) {
            c->pub.syn_seen = 1;
            c->client_isn = t->seq;
        }
        if (!c->tcp[dir].have_base)
            tcp_dir_start(&c->tcp[dir], t->seq + 1);
        seq = t->seq + 1;
    }
    if (ack && c->tcp[!dir].have_base)
        tcp_dir_acked(&c->tcp[!dir], !dir, t->ack, a->cur_frame, &c->sink, &a->budget);
    if (plen || fin) {
        if (t->payload_wire > t->payload_len) {
            d->cut_packets++;
            if (c->cut_done++ == 0)
                conn_note(c, MPA_F_CAP_TRUNCATED, dir, UINT64_MAX, a->cur_frame,
                          "packet cut by the snap length: %u of %u payload octets captured (later cut packets of this "
                          "connection are counted only)",
                          t->payload_len, t->payload_wire);
        }
        tcp_dir_segment(&c->tcp[dir], dir, seq, t->payload, t->payload_len, t->payload_wire, fin != 0, a->cur_frame,
                        &c->sink, &a->budget);
    }
    if (rst && c->tcp[dir].have_base)
        tcp_dir_rst(&c->tcp[dir], dir, a->cur_frame, &c->sink, &a->budget);
    if (c->state == ST_IGNORED) {
        for (int side = 0; side < 2; side++) {
            tcp_dir_free(&c->tcp[side], &a->budget);
            c->fin[side] = c->tcp[side].fin_seen;
        }
    }
    if (rst)
        conn_close(a, c, "reset");
    else if (c->tcp[0].ended && c->tcp[1].ended)
        conn_close(a, c, "closed");
}

static void frag_report(void *user, const ipfrag_result *r)
{
    audit *a = user;
    char s[64], d[64];
    pkt_addr_str(&r->ip.src, s, sizeof s);
    pkt_addr_str(&r->ip.dst, d, sizeof d);
    if (r->proto == 17 || r->proto == 58 || (r->ip.version == 4 && r->proto != 6))
        return;
    global_note(a, MPA_F_CAP_LIMIT, "IP fragments %s -> %s id %u given up (frames %llu-%llu): %s; %u octets lost", s, d,
                r->id, (unsigned long long)r->first_frame, (unsigned long long)r->last_frame,
                r->why ? r->why : "incomplete", r->lost_octets);
}

void audit_packet(audit *a, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t wirelen)
{
    a->cur_frame++;
    a->cur_ts = ts_ns;
    a->st.packets++;
    a->st.octets += caplen;
    if (!a->st.first_ts)
        a->st.first_ts = ts_ns;
    a->st.last_ts = ts_ns;
    if (ts_ns >= a->sweep_at) {
        sweep(a, ts_ns);
        a->sweep_at = ts_ns + a->o.idle_ns / 16 + 1;
    }
    pkt p;
    pkt_status st = pkt_parse(a->linktype, data, caplen, wirelen, &p);
    switch (st) {
    case PKT_OK:
        tcp_packet(a, &p, ts_ns);
        return;
    case PKT_NOT_TCP:
        a->st.not_tcp++;
        return;
    case PKT_FRAGMENT: {
        /* IPv6 fragments may name an extension header before TCP; UDP
         * and ICMP fragments are of no interest. */
        if (p.ip.version == 4 ? p.frag.proto != 6 : (p.frag.proto == 17 || p.frag.proto == 58)) {
            a->st.not_tcp++;
            return;
        }
        a->st.fragments++;
        ipfrag_result r;
        ipfrag_status fs = ipfrag_add(a->frag, &p, ts_ns, a->cur_frame, &r);
        if (fs == IPF_DONE) {
            a->st.datagrams++;
            if (r.conflicts)
                global_note(a, MPA_F_CAP_OVERLAP, "IP fragments of datagram id %u overlap with different octets "
                            "(first at frame %llu): the first copy is kept", r.id, (unsigned long long)r.conflict_frame);
            pkt q;
            q.ip = r.ip;
            pkt_status s2 = pkt_parse_l4_cut(r.proto, r.data, r.len, r.wire_len, &q);
            if (s2 == PKT_OK) {
                q.ip = r.ip;
                tcp_packet(a, &q, ts_ns);
            } else if (s2 != PKT_NOT_TCP) {
                a->st.unreadable++;
                global_note(a, MPA_F_CAP_UNREADABLE, "reassembled IP datagram (frames %llu-%llu): %s: %s at octet %u",
                            (unsigned long long)r.first_frame, (unsigned long long)r.last_frame, pkt_status_str(s2),
                            q.why ? q.why : "?", q.where);
            }
        } else if (fs == IPF_DROPPED) {
            a->st.frag_dropped++;
            global_note(a, MPA_F_CAP_UNREADABLE, "IP fragment refused: %s", r.why ? r.why : "?");
        }
        return;
    }
    case PKT_TRUNCATED:
        a->st.truncated++;
        global_note(a, MPA_F_CAP_TRUNCATED, "packet cut by the snap length (%u of %u octets): %s at octet %u", caplen,
                    wirelen, p.why ? p.why : "?", p.where);
        return;
    case PKT_INVALID:
    case PKT_UNSUPPORTED:
        a->st.unreadable++;
        global_note(a, MPA_F_CAP_UNREADABLE, "%s packet: %s at octet %u", pkt_status_str(st), p.why ? p.why : "?",
                    p.where);
        return;
    }
}

/* ---- the object ------------------------------------------------------ */

audit *audit_new(const audit_opts *o, const audit_out *out)
{
    audit *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->o = *o;
    if (!a->o.max_conns)
        a->o.max_conns = 1;
    if (!a->o.max_mpa)
        a->o.max_mpa = 1;
    if (out)
        a->out = *out;
    a->hsize = 1024;
    a->ht = calloc(a->hsize, sizeof *a->ht);
    a->budget.cap = a->o.mem_cap;
    a->frag = ipfrag_new(4u << 20, 4096, 30ull * 1000000000ull);
    if (!a->ht || !a->frag) {
        audit_free(a);
        return NULL;
    }
    ipfrag_on_drop(a->frag, frag_report, a);
    return a;
}

void audit_begin_file(audit *a, const char *name, int linktype)
{
    file_ent *nf = realloc(a->files, (a->nfiles + 1) * sizeof *nf);
    if (!nf)
        return;
    a->files = nf;
    a->files[a->nfiles].name = xstrdup(name);
    a->files[a->nfiles].linktype = linktype;
    a->cur_file = a->nfiles++;
    a->cur_frame = 0;
    a->linktype = linktype;
}

const char *audit_file_name(const audit *a, unsigned file)
{
    return file < a->nfiles && a->files[file].name ? a->files[file].name : "-";
}

unsigned audit_nfiles(const audit *a) { return a->nfiles; }

void audit_finish(audit *a)
{
    ipfrag_expire(a->frag, UINT64_MAX, frag_report, a);
    while (a->lhead)
        conn_close(a, a->lhead, "capture ended");
    const ipfrag_stats *fs = ipfrag_get_stats(a->frag);
    a->st.frag_dropped += fs->dropped;
    a->st.ooo_peak = a->budget.peak;
    a->st.early_holes = a->budget.early_holes;
}

const audit_stats *audit_get_stats(const audit *a) { return &a->st; }

const audit_finding *audit_global_findings(const audit *a, size_t *n)
{
    *n = a->ngf;
    return a->gf;
}

void audit_free(audit *a)
{
    if (!a)
        return;
    while (a->lhead) {
        conn *c = a->lhead;
        lru_unlink(a, c);
        conn_free(a, c);
    }
    free(a->ht);
    ipfrag_free(a->frag);
    for (size_t i = 0; i < a->ngf; i++)
        free((char *)a->gf[i].msg);
    free(a->gf);
    for (unsigned i = 0; i < a->nfiles; i++)
        free(a->files[i].name);
    free(a->files);
    free(a);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The auditor (audit.h): packets -> TCP connections -> the MPA-connection
 * layer (capture/mpaconn.h) -> connection reports and findings.
 *
 * This file keeps the connection table (a hash of 4-tuples and VLAN tags,
 * least recently active first), numbers the connections that speak MPA,
 * attributes findings to the file and frame that carried their octet, and
 * hands complete connections to the report.  Deciding whether a
 * connection speaks MPA, holding and feeding its octets, and the capture
 * notes are the capture layer's, shared with the Wireshark plugin.
 *
 * Frame numbers inside the capture layer are tags counted across all
 * input files; a finding's tag is turned into (file, frame) here.
 */
#include "audit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agelist.h"
#include "ipfrag.h"
#include "mpaconn.h"
#include "pkt.h"

#define FRAME_RING 16
#define GLOBAL_FINDINGS_MAX 1000
/* Capture times of the latest frames, by tag: a finding placed on a frame
 * this recent gets that frame's time (512 KiB). */
#define TS_RING 65536u
/* Findings kept (listed) for all open connections together: the per-rule
 * cap alone let 1000 connections breaking many rules keep hundreds of
 * MiB.  About 150 octets each: under 2.5 MiB. */
#define KEPT_FINDINGS_MAX 16384u
/* TERMINATE messages listed per connection (RFC 5040 4.8: one is the
 * last message; two million of them took gigabytes of report). */
#define TERMS_MAX 256u

/* A frame tag, stream offset -> tag: which frame carried an octet. */
typedef struct fref {
    uint64_t off;
    uint64_t tag;
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
    age_node age;      /* in the activity list, least recently active first */
    mc_conn *mc;
    /* stream offset -> frame tag, per direction */
    fref ring[2][FRAME_RING];
    unsigned rpos[2], rn[2];
    size_t fcap, tcap;
    unsigned *idcount;  /* findings kept, per rule (allocated with the first) */
    uint8_t terms_done; /* said that TERMINATEs are no longer listed */
};

typedef struct file_ent {
    char *name;
    int linktype;
    uint64_t base;     /* tags before this file's first frame */
} file_ent;

struct audit {
    audit_opts o;
    audit_out out;
    audit_stats st;
    file_ent *files;
    unsigned nfiles;
    unsigned cur_file;
    uint64_t cur_frame;
    uint64_t cur_tag;  /* frames of all files so far */
    uint64_t cur_ts;
    uint64_t *ts_ring; /* [tag % TS_RING]: capture time of frame tag */
    int linktype;
    /* connections */
    conn **ht;
    size_t hsize, nopen;
    conn *last_c;      /* the connection conn_find found last */
    age_list active;   /* open connections, least recently active first */
    mc_shared sh;                /* memory shared by all connections (--mem-cap) */
    char cap_desc[48];
    ipfrag *frag;
    size_t nmpa;                 /* MPA engines alive */
    int conn_limit_done, mpa_limit_done;
    size_t kept;                 /* findings kept by open connections */
    int kept_limit_done;
    /* findings not tied to a connection */
    audit_finding *gf;
    size_t ngf;
    unsigned gcount[MPA_F__COUNT];
    /* --shard: a shard's own findings are capped apart, so that those
     * about the input stay the same in every shard */
    size_t nlocal;
    unsigned lgcount[MPA_F__COUNT];
    uint64_t sweep_at;
    int local;                   /* the global finding being made is shard_local */
    int sweeping, finishing;     /* closes before the packet, at the end */
    int phase;                   /* audit_where's */
    int mine;                    /* the packet is known to be this shard's */
    uint64_t pkt_at;             /* 1 + where the packet is in the source (audit_source), or 0 */
    uint64_t cur_sub;
    uint64_t close_seq;
    audit_gauge g_open, g_ooo;   /* --shard: open connections, held octets */
    size_t tag_open_peak;
    char msg[512];
};

static conn *least_active(const audit *a) { return AGE_ITEM(a->active.oldest, conn, age); }
static conn *more_active(const conn *c) { return AGE_ITEM(c->age.newer, conn, age); }

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

/* The file and frame of a tag (the current ones when tag is 0). */
static void tag_where(const audit *a, uint64_t tag, unsigned *file, uint64_t *frame)
{
    if (!tag || !a->nfiles) {
        *file = a->cur_file;
        *frame = tag ? a->cur_frame : 0;
        return;
    }
    unsigned lo = 0, hi = a->nfiles - 1;
    while (lo < hi) {
        unsigned mid = (lo + hi + 1) / 2;
        if (a->files[mid].base < tag)
            lo = mid;
        else
            hi = mid - 1;
    }
    *file = lo;
    *frame = tag - a->files[lo].base;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void global_note(audit *a, mpa_finding_id id, const char *fmt, ...);
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void limit_note(audit *a, mpa_finding_id id, const char *fmt, ...);

/* Keep a finding (unless over the per-rule cap) and pass it on. */
static void add_finding_at(audit *a, conn *c, mpa_finding_id id, unsigned file, uint64_t frame, int dir, uint64_t off,
                           const char *msg, uint64_t ts)
{
    const mpa_rule *r = mpa_rule_get(id);
    if (!r)
        return;
    audit_finding f = {id, r, file, frame, dir, off, msg, ts, !c && a->local};
    a->st.severity[r->severity]++;
    if (!c && a->local)
        a->st.local_findings++;
    else if (!c)
        a->st.shared_severity[r->severity]++;
    if (c) {
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
                limit_note(a, MPA_F_CAP_LIMIT,
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
    } else {
        int apart = a->o.nshards && a->local;
        unsigned *count = apart ? a->lgcount : a->gcount;
        size_t listed = a->o.nshards ? (apart ? a->nlocal : a->ngf - a->nlocal) : a->ngf;
        if ((a->o.max_findings && count[id] >= a->o.max_findings) || listed >= GLOBAL_FINDINGS_MAX) {
            a->st.suppressed++;
            if (!a->local)
                a->st.shared_suppressed++;
            return;
        }
        count[id]++;
        a->nlocal += (size_t)apart;
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

/* The capture time of the packet being read; AUDIT_NO_TS before the
 * first packet of the input. */
static uint64_t now_ts(const audit *a) { return a->cur_frame ? a->cur_ts : AUDIT_NO_TS; }

/* The capture time of the frame with tag: the packet being read when
 * tag is 0 (no frame) or so far back that its time is no longer held. */
static uint64_t tag_ts(const audit *a, uint64_t tag)
{
    if (tag && tag <= a->cur_tag && a->cur_tag - tag < TS_RING)
        return a->ts_ring[tag % TS_RING];
    return now_ts(a);
}

/* The same, at the frame with tag (0: none). */
static void add_finding(audit *a, conn *c, mpa_finding_id id, uint64_t tag, int dir, uint64_t off, const char *msg)
{
    unsigned file;
    uint64_t frame;
    tag_where(a, tag, &file, &frame);
    add_finding_at(a, c, id, file, frame, dir, off, msg, tag_ts(a, tag));
}

#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
static void conn_note(conn *c, mpa_finding_id id, int dir, uint64_t off, uint64_t tag, const char *fmt, ...)
{
    audit *a = c->a;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->msg, sizeof a->msg, fmt, ap);
    va_end(ap);
    add_finding(a, c, id, tag, dir, off, a->msg);
}

static void global_vnote(audit *a, mpa_finding_id id, const char *fmt, va_list ap)
{
    vsnprintf(a->msg, sizeof a->msg, fmt, ap);
    add_finding_at(a, NULL, id, a->cur_file, a->cur_frame, -1, UINT64_MAX, a->msg, now_ts(a));
}

static void global_note(audit *a, mpa_finding_id id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    global_vnote(a, id, fmt, ap);
    va_end(ap);
}

/* The same for a limit that the connections followed reached: under
 * --shard, each shard's own (shard_local). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void limit_note(audit *a, mpa_finding_id id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    a->local = 1;
    global_vnote(a, id, fmt, ap);
    a->local = 0;
    va_end(ap);
}

void audit_input_problem(audit *a, mpa_finding_id id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    global_vnote(a, id, fmt, ap);
    va_end(ap);
}

/* ---- stream offset -> frame ----------------------------------------- */

static void ring_put(conn *c, int dir, uint64_t off, uint64_t tag)
{
    fref *r = &c->ring[dir][c->rpos[dir]];
    r->off = off;
    r->tag = tag;
    c->rpos[dir] = (c->rpos[dir] + 1) % FRAME_RING;
    if (c->rn[dir] < FRAME_RING)
        c->rn[dir]++;
}

/* The frame that carried octet off of dir, when still known; else the
 * frame being processed. */
static uint64_t ring_find(const conn *c, int dir, uint64_t off)
{
    if (dir < 0 || dir > 1)
        return c->a->cur_tag;
    for (unsigned i = 0; i < c->rn[dir]; i++) {
        const fref *r = &c->ring[dir][(c->rpos[dir] + FRAME_RING - 1 - i) % FRAME_RING];
        if (r->off <= off)
            return r->tag;
    }
    return c->a->cur_tag;
}

/* ---- what the capture layer tells --------------------------------------- */

static void on_event(void *user, const mpa_event *ev)
{
    conn *c = user;
    audit *a = c->a;
    audit_dir *d = &c->pub.d[ev->dir];
    uint64_t tag;
    /* Markers and plain FPDUs are most events: they need no frame. */
    if (ev->type == MPA_EV_MARKER || ev->type == MPA_EV_DATA || ev->type == MPA_EV_MODE)
        tag = 0;
    else if (ev->type == MPA_EV_FPDU && ev->u.fpdu.rtr == MPA_RTR_NONE &&
             (ev->u.fpdu.ddp_status != MPA_OK || ev->u.fpdu.ddp.hdr.opcode != MPA_RDMAP_TERMINATE))
        tag = 0;
    else
        tag = ring_find(c, ev->dir, ev->off);
    switch (ev->type) {
    case MPA_EV_FRAME:
        if (ev->u.frame.frame.kind != MPA_KEY_RTR2007 || !d->startup.have) {
            d->startup.have = 1;
            d->startup.fr = ev->u.frame.frame;
            d->startup.fr.pd = NULL;
            tag_where(a, tag, &d->startup.file, &d->startup.frame);
            d->startup.off = ev->off;
        }
        if (ev->u.frame.role != MPA_ROLE_UNKNOWN)
            d->role = ev->u.frame.role;
        break;
    case MPA_EV_MODE:
        if (ev->u.mode.mode == MPA_MODE_FPDU) {
            /* After a reject the engine only probes: FPDU mode is
             * reached with the first FPDU (below). */
            if (!ev->u.mode.probe)
                d->fpdu_mode = 1;
            d->markers = ev->u.mode.markers;
            d->crc = ev->u.mode.crc;
        }
        break;
    case MPA_EV_FPDU: {
        const mpa_ev_fpdu *f = &ev->u.fpdu;
        d->fpdu_mode = 1;
        if (f->rtr != MPA_RTR_NONE && d->rtr == MPA_RTR_NONE) {
            d->rtr = f->rtr;
            d->rtr_negotiated = f->negotiated_rtr;
            tag_where(a, tag, &d->rtr_file, &d->rtr_frame);
        }
        if (f->ddp_status == MPA_OK && f->ddp.hdr.opcode == MPA_RDMAP_TERMINATE && f->ddp.complete) {
            if (c->pub.nterms >= TERMS_MAX) {
                if (!c->terms_done) {
                    c->terms_done = 1;
                    conn_note(c, MPA_F_CAP_LIMIT, ev->dir, ev->off, tag,
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
            tag_where(a, tag, &t->file, &t->frame);
            t->off = ev->off;
            t->layer = f->ddp.u.term.layer;
            t->etype = f->ddp.u.term.etype;
            t->code = f->ddp.u.term.code;
            t->quirk = f->term_quirk;
            t->read = f->term_read;
        }
        break;
    }
    case MPA_EV_FINDING:
        add_finding(a, c, ev->u.finding.id, tag, ev->dir, ev->off, ev->u.finding.msg);
        break;
    case MPA_EV_MARKER:
    case MPA_EV_DATA:
        break;
    }
}

static void on_note(void *user, mpa_finding_id id, int dir, uint64_t off, uint64_t tag, const char *msg)
{
    conn *c = user;
    add_finding(c->a, c, id, tag, dir, off, msg);
}

static void on_shared_note(void *user, mpa_finding_id id, const char *msg)
{
    audit *a = user;
    a->local = 1; /* the memory shared by the connections followed */
    add_finding_at(a, NULL, id, a->cur_file, a->cur_frame, -1, UINT64_MAX, msg, now_ts(a));
    a->local = 0;
}

static void on_data(void *user, int dir, uint64_t off, const uint8_t *p, uint32_t len, uint64_t tag)
{
    (void)p;
    (void)len;
    ring_put(user, dir, off, tag);
}

static void on_gap(void *user, int dir, uint64_t off, uint64_t len, uint64_t tag)
{
    (void)len;
    ring_put(user, dir, off, tag);
}

static void on_end(void *user, int dir, int rst, uint64_t tag)
{
    conn *c = user;
    audit_dir *d = &c->pub.d[dir];
    d->end = rst ? 2 : 1;
    tag_where(c->a, tag, &d->end_file, &d->end_frame);
}

static void conn_close(audit *a, conn *c, const char *why);

/* The connection turns out to speak MPA: make room for its engine,
 * number it. */
static void on_starting(void *user)
{
    conn *c = user;
    audit *a = c->a;
    if (a->nmpa >= a->o.max_mpa) {
        /* Too many MPA connections at once: the least recently active
         * one is reported now. */
        conn *old = least_active(a);
        while (old && (old == c || mc_get_state(old->mc) != MC_MPA))
            old = more_active(old);
        if (old) {
            a->st.evicted++;
            if (!a->mpa_limit_done) {
                a->mpa_limit_done = 1;
                limit_note(a, MPA_F_CAP_LIMIT,
                            "more than %u MPA connections open at once: the least recently active are closed and "
                            "reported early (--max-mpa; the summary says how many)",
                            a->o.max_mpa);
            }
            conn_close(a, old, "table full");
        }
    }
    a->nmpa++;
    c->pub.is_mpa = 1;
    /* Connections are numbered in the order they turn out to be MPA. */
    c->pub.id = (unsigned)++a->st.mpa_conns;
    c->pub.mpa_packet = a->cur_tag;
    if (a->out.mpa)
        a->out.mpa(a->out.user, &c->pub);
}

static int on_listed_port(const audit *a, uint16_t port)
{
    for (unsigned i = 0; i < a->o.nports; i++)
        if (a->o.ports[i] == port)
            return 1;
    return 0;
}

/* ---- connections ----------------------------------------------------- */

/* Two 16-octet addresses in memcmp's order, without a call: once a
 * packet. */
static inline uint64_t be64_at(const uint8_t *p)
{
    return (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48 | (uint64_t)p[2] << 40 | (uint64_t)p[3] << 32 |
           (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 | (uint64_t)p[6] << 8 | p[7];
}

static int addr_cmp(const uint8_t a[16], const uint8_t b[16])
{
    uint64_t x = be64_at(a), y = be64_at(b);
    if (x == y) {
        x = be64_at(a + 8);
        y = be64_at(b + 8);
    }
    return x < y ? -1 : x > y;
}

/* FNV-1a, 64 bits (the published offset basis and prime), over octets
 * laid out the same whatever the machine: the shard of a connection. */
static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t fnv16(uint64_t h, uint16_t v)
{
    uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    return fnv(h, b, 2);
}

uint64_t audit_flow_hash(int family, const uint8_t a_addr[16], uint16_t a_port, const uint8_t b_addr[16],
                         uint16_t b_port, const uint16_t *vlan, unsigned nvlan)
{
    /* The smaller (address, port) first: both directions hash alike. */
    int cmp = addr_cmp(a_addr, b_addr);
    if (cmp > 0 || (cmp == 0 && a_port > b_port)) {
        const uint8_t *t = a_addr;
        a_addr = b_addr;
        b_addr = t;
        uint16_t tp = a_port;
        a_port = b_port;
        b_port = tp;
    }
    uint8_t fam = (uint8_t)family, nv = (uint8_t)nvlan;
    uint64_t h = fnv(0xcbf29ce484222325ull, &fam, 1);
    h = fnv(h, &nv, 1);
    for (unsigned i = 0; i < nvlan; i++)
        h = fnv16(h, vlan[i]);
    h = fnv16(fnv(h, a_addr, 16), a_port);
    return fnv16(fnv(h, b_addr, 16), b_port);
}

/* Runs once per packet, before the connection's state can be asked for:
 * each 8-octet word multiplied on its own (so the multiplications do not
 * wait for one another), the products rotated apart and folded, then one
 * multiply-xorshift to spread every octet over the low bits the table
 * uses. */
static uint64_t key_hash(const key *k)
{
    _Static_assert(sizeof(key) == 48, "key is hashed as six 8-octet words");
    static const uint64_t mul[6] = {0x9E3779B97F4A7C15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull,
                                    0xd6e8feb86659fd93ull, 0xa0761d6478bd642full, 0xe7037ed1a0b428dbull};
    const uint8_t *p = (const uint8_t *)k;
    uint64_t h = 0;
    for (unsigned i = 0; i < 6; i++) {
        uint64_t w;
        memcpy(&w, p + 8 * i, 8);
        w = (w ^ (w >> 29)) * mul[i];
        h ^= (w << (11 * i)) | (w >> ((64 - 11 * i) & 63));
    }
    h ^= h >> 32;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 29);
}

static void ht_remove(audit *a, conn *c)
{
    if (a->last_c == c)
        a->last_c = NULL;
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
    if (a->last_c == c)
        a->last_c = NULL;
    a->kept -= c->pub.nfindings;
    if (mc_stream(c->mc))
        a->nmpa--;
    mc_free(c->mc);
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
    if (a->sweeping || a->finishing)
        a->cur_sub = c->pub.last_packet;
    ht_remove(a, c);
    age_unlink(&a->active, &c->age);
    a->nopen--;
    c->pub.closed = why;
    c->pub.done_packet = a->cur_tag + (a->finishing ? 1 : 0);
    c->pub.done_phase = !(a->sweeping || a->finishing);
    c->pub.done_seq = c->pub.done_phase ? ++a->close_seq : c->pub.last_packet;
    mc_close(c->mc, a->cur_tag);
    mpa_stream *ms = mc_stream(c->mc);
    if (mc_get_state(c->mc) == MC_MPA && ms) {
        /* The side facing an Initiator is the Responder, replied or not. */
        for (int dir = 0; dir < 2; dir++) {
            audit_dir *d = &c->pub.d[dir];
            if (d->role == MPA_ROLE_UNKNOWN)
                d->role = mpa_stream_role(ms, dir);
        }
        for (int dir = 0; dir < 2; dir++)
            if (c->pub.d[dir].role == MPA_ROLE_UNKNOWN && c->pub.d[!dir].role != MPA_ROLE_UNKNOWN)
                c->pub.d[dir].role =
                    c->pub.d[!dir].role == MPA_ROLE_INITIATOR ? MPA_ROLE_RESPONDER : MPA_ROLE_INITIATOR;
        c->pub.midstream = mc_midstream(c->mc);
        for (int dir = 0; dir < 2; dir++) {
            audit_dir *d = &c->pub.d[dir];
            const tcp_dir *t = mc_tcp(c->mc, dir);
            d->st = *mpa_stream_stats(ms, dir);
            d->mode = mpa_stream_mode(ms, dir);
            d->mss = mc_mss(c->mc, dir);
            d->payload_octets = mc_payload_octets(c->mc, dir);
            d->cut_packets = mc_cut_packets(c->mc, dir);
            d->segments = t->segments;
            d->retrans_octets = t->retrans_octets;
            d->conflicts = t->conflicts;
            d->holes = t->holes;
            d->hole_octets = t->hole_octets;
            d->out_of_window = t->out_of_window;
            d->ooo_segments = t->ooo_segments;
        }
        c->pub.syn_seen = mc_syn_seen(c->mc);
        if (a->out.conn_done)
            a->out.conn_done(a->out.user, &c->pub);
    }
    conn_free(a, c);
}

/* The address and port of one side of k, together and apart. */
static void addr_str(const key *k, int side, audit_dir *d)
{
    pkt_addr pa;
    pa.family = k->family;
    memcpy(pa.a, k->addr[side], 16);
    pkt_addr_str(&pa, d->ip, sizeof d->ip);
    d->port = k->port[side];
    if (k->family == 6)
        snprintf(d->addr, sizeof d->addr, "[%s]:%u", d->ip, d->port);
    else
        snprintf(d->addr, sizeof d->addr, "%s:%u", d->ip, d->port);
}

/* What the user's port list says of a connection (client on side
 * client_side of k). */
static mc_cfg conn_cfg(const audit *a, const key *k, int client_side)
{
    mc_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.listed = on_listed_port(a, k->port[0]) || on_listed_port(a, k->port[1]);
    /* dir 0 goes to the server's port, dir 1 to the client's. */
    cfg.to_port[0] = (uint8_t)on_listed_port(a, k->port[!client_side]);
    cfg.to_port[1] = (uint8_t)on_listed_port(a, k->port[client_side]);
    for (int i = 0; i < 2; i++) {
        cfg.mid_markers[i] = a->o.mid_markers[i];
        cfg.mid_crc[i] = a->o.mid_crc[i];
    }
    cfg.quiet_markers = 1; /* on_event has nothing to do with them */
    return cfg;
}

static conn *conn_new(audit *a, const key *k, int client_side, uint64_t ts)
{
    if (a->nopen >= a->o.max_conns && least_active(a)) {
        /* Make room: a connection that is not MPA if one of the least
         * recently active is, else the least recently active. */
        conn *old = least_active(a);
        for (int i = 0; i < 64 && old && mc_get_state(old->mc) == MC_MPA; i++)
            old = more_active(old);
        if (!old || mc_get_state(old->mc) == MC_MPA)
            old = least_active(a);
        /* Say so for MPA connections, and for undecided ones too: one
         * may still turn out to speak MPA and would be audited without
         * its SYN (a flood of half-open connections went unmentioned). */
        if (mc_get_state(old->mc) != MC_IGNORED) {
            a->st.evicted++;
            if (!a->conn_limit_done) {
                a->conn_limit_done = 1;
                limit_note(a, MPA_F_CAP_LIMIT,
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
    mc_cfg cfg = conn_cfg(a, k, client_side);
    mc_hooks h = {c, on_event, on_note, on_data, on_gap, on_end, on_starting};
    c->mc = mc_new(&cfg, &h, &a->sh);
    if (!c->mc) {
        free(c);
        return NULL;
    }
    c->pub.first_file = c->pub.last_file = a->cur_file;
    c->pub.first_frame = c->pub.last_frame = a->cur_frame;
    c->pub.first_ts = c->pub.last_ts = ts;
    c->pub.nvlan = k->nvlan;
    for (unsigned i = 0; i < k->nvlan && i < 4; i++)
        c->pub.vlan[i] = k->vlan[i];
    for (int dir = 0; dir < 2; dir++) {
        addr_str(k, dir == 0 ? client_side : !client_side, &c->pub.d[dir]);
        c->pub.d[dir].rtr = MPA_RTR_NONE;
    }
    if (a->nopen * 2 >= a->hsize)
        ht_grow(a);
    size_t h2 = key_hash(k) & (a->hsize - 1);
    c->hnext = a->ht[h2];
    a->ht[h2] = c;
    age_append(&a->active, &c->age);
    a->nopen++;
    if (a->nopen > a->tag_open_peak)
        a->tag_open_peak = a->nopen;
    if (a->nopen > a->st.open_peak)
        a->st.open_peak = a->nopen;
    a->st.tcp_conns++;
    return c;
}

/* Keys compared eight octets at a time, inline (once a packet). */
static int key_eq(const key *x, const key *y)
{
    uint64_t d = 0, u, v;
    const uint8_t *p = (const uint8_t *)x, *q = (const uint8_t *)y;
    for (size_t i = 0; i < sizeof *x; i += 8) {
        memcpy(&u, p + i, 8);
        memcpy(&v, q + i, 8);
        d |= u ^ v;
    }
    return d == 0;
}

static conn *conn_find(audit *a, const key *k)
{
    /* A packet often has the connection of the one before (data, then
     * its acknowledgement). */
    if (a->last_c && key_eq(&a->last_c->k, k))
        return a->last_c;
    for (conn *c = a->ht[key_hash(k) & (a->hsize - 1)]; c; c = c->hnext)
        if (key_eq(&c->k, k))
            return a->last_c = c;
    return NULL;
}

/* Close connections silent for longer than the idle time. */
static void sweep(audit *a, uint64_t now)
{
    for (conn *c; (c = least_active(a)) && now > c->pub.last_ts && now - c->pub.last_ts > a->o.idle_ns;)
        conn_close(a, c, "idle");
}

/* ---- packets --------------------------------------------------------- */

/* The connection's key of a TCP packet; returns the side of k that sent it. */
static int make_key(const pkt *p, key *k)
{
    const pkt_tcp *t = &p->tcp;
    memset(k, 0, sizeof *k);
    k->family = p->ip.src.family;
    k->nvlan = p->ip.nvlan;
    for (unsigned i = 0; i < p->ip.nvlan && i < PKT_MAX_VLAN; i++)
        k->vlan[i] = p->ip.vlan[i];
    /* Canonical order: the smaller (address, port) is side 0. */
    int cmp = addr_cmp(p->ip.src.a, p->ip.dst.a);
    int src_side = cmp < 0 || (cmp == 0 && t->sport <= t->dport) ? 0 : 1;
    memcpy(k->addr[src_side], p->ip.src.a, 16);
    memcpy(k->addr[!src_side], p->ip.dst.a, 16);
    k->port[src_side] = t->sport;
    k->port[!src_side] = t->dport;
    return src_side;
}

static uint64_t key_flow_hash(const key *k)
{
    return audit_flow_hash(k->family, k->addr[0], k->port[0], k->addr[1], k->port[1], k->vlan, k->nvlan);
}

static unsigned key_shard(const key *k, unsigned nshards) { return (unsigned)(key_flow_hash(k) % nshards); }

/* The flow hash (FNV-1a: one multiply an octet, some 40 octets) of the
 * connections seen last, by a hash that is cheap to take: the reader of
 * -j N takes the owner of every packet. */
#define OWNER_CACHE 4096u

struct audit_owner_cache {
    struct {
        key k;
        uint64_t hash;
        int used;
    } e[OWNER_CACHE];
};

audit_owner_cache *audit_owner_cache_new(void) { return calloc(1, sizeof(audit_owner_cache)); }

void audit_owner_cache_free(audit_owner_cache *oc) { free(oc); }

int audit_packet_owner(audit_owner_cache *oc, int linktype, const uint8_t *data, uint32_t caplen, uint32_t wirelen,
                       unsigned nshards)
{
    pkt p;
    key k;
    if (!nshards || pkt_parse(linktype, data, caplen, wirelen, &p) != PKT_OK)
        return -1;
    make_key(&p, &k);
    if (!oc)
        return (int)key_shard(&k, nshards);
    size_t i = key_hash(&k) & (OWNER_CACHE - 1);
    if (!oc->e[i].used || !key_eq(&oc->e[i].k, &k)) {
        oc->e[i].k = k;
        oc->e[i].hash = key_flow_hash(&k);
        oc->e[i].used = 1;
    }
    return (int)(oc->e[i].hash % nshards);
}

static void tcp_packet(audit *a, const pkt *p, uint64_t ts)
{
    const pkt_tcp *t = &p->tcp;
    key k;
    int src_side = make_key(p, &k);
    if (a->o.nshards && !a->mine &&
        key_shard(&k, a->o.nshards) - a->o.shard >= (a->o.shard_span ? a->o.shard_span : 1u)) {
        a->st.other_shard++; /* another shard's: counted, not followed */
        return;
    }

    int syn = t->flags & PKT_TCP_SYN, ack = t->flags & PKT_TCP_ACK, fin = t->flags & PKT_TCP_FIN,
        rst = t->flags & PKT_TCP_RST;
    uint32_t plen = t->payload_wire > t->payload_len ? t->payload_wire : t->payload_len;
    conn *c = conn_find(a, &k);
    if (c && syn && !ack && mc_syn_seen(c->mc) && t->seq != mc_client_isn(c->mc)) {
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
    age_unlink(&a->active, &c->age);
    age_append(&a->active, &c->age);
    c->pub.last_file = a->cur_file;
    c->pub.last_frame = a->cur_frame;
    c->pub.last_ts = ts;
    c->pub.last_packet = a->cur_tag;
    mc_seg seg = {
        .dir = src_side == c->client_side ? 0 : 1,
        .seq = t->seq,
        .ack = t->ack,
        .syn = syn != 0,
        .ack_flag = ack != 0,
        .fin = fin != 0,
        .rst = rst != 0,
        .mss = t->mss,
        .payload = t->payload,
        .len = t->payload_len,
        .wire = t->payload_wire,
        .frame = a->cur_tag,
    };
    mc_segment(c->mc, &seg);
    if (rst)
        conn_close(a, c, "reset");
    else if (mc_over(c->mc))
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

/* A change of a shard's gauge at the current packet: (packet, highest
 * within it, value after it), unless nothing moved; bounded. */
static void gauge_log(audit *a, audit_gauge *g, uint64_t peak, uint64_t after)
{
    if (peak == g->last && after == g->last)
        return;
    g->last = after;
    if (a->out.gauge) {
        a->out.gauge(a->out.user, g == &a->g_ooo, a->cur_tag, peak, after);
        return;
    }
    if (g->n + 3 > AUDIT_GAUGE_MAX) {
        g->overflow = 1;
        return;
    }
    if (g->n + 3 > g->cap) {
        size_t nc = g->cap ? g->cap * 2 : 768;
        uint64_t *nv = realloc(g->v, nc * sizeof *nv);
        if (!nv) {
            g->overflow = 1;
            return;
        }
        g->v = nv;
        g->cap = nc;
    }
    g->v[g->n++] = a->cur_tag;
    g->v[g->n++] = peak;
    g->v[g->n++] = after;
}

static void packet_body(audit *a, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t wirelen);

/* What every packet does before its own octets are read. */
static void packet_start(audit *a, uint64_t ts_ns, uint32_t caplen)
{
    a->phase = 0;
    a->cur_sub = 0;
    a->cur_frame++;
    a->cur_tag++;
    a->cur_ts = ts_ns;
    a->ts_ring[a->cur_tag % TS_RING] = ts_ns;
    a->st.packets++;
    a->st.octets += caplen;
    if (!a->st.first_ts)
        a->st.first_ts = ts_ns;
    a->st.last_ts = ts_ns;
    if (ts_ns >= a->sweep_at) {
        a->sweeping = 1;
        sweep(a, ts_ns);
        a->sweeping = 0;
        a->sweep_at = ts_ns + a->o.idle_ns / 16 + 1;
    }
    a->phase = 1;
}

/* A shard's packet; other: another shard's (not read). */
static void shard_packet(audit *a, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t wirelen, int other)
{
    packet_start(a, ts_ns, caplen);
    /* A shard logs how its open connections and held octets move
     * (after the sweep, which every shard makes at the same packet, and
     * their highest within the packet), for the merge to add up. */
    size_t keep = a->sh.budget.peak;
    a->sh.budget.peak = a->sh.budget.used;
    a->tag_open_peak = a->nopen;
    if (other)
        a->st.other_shard++;
    else
        packet_body(a, ts_ns, data, caplen, wirelen);
    a->phase = 2;
    gauge_log(a, &a->g_open, a->tag_open_peak, a->nopen);
    gauge_log(a, &a->g_ooo, a->sh.budget.peak, a->sh.budget.used);
    if (a->sh.budget.peak < keep)
        a->sh.budget.peak = keep;
}

void audit_packet(audit *a, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t wirelen)
{
    if (a->o.nshards) {
        shard_packet(a, ts_ns, data, caplen, wirelen, 0);
        return;
    }
    packet_start(a, ts_ns, caplen);
    packet_body(a, ts_ns, data, caplen, wirelen);
    a->phase = 2;
}

void audit_source(audit *a, int (*read)(void *user, uint64_t off, uint8_t *dst, uint32_t n), void *user)
{
    tcp_budget *b = &a->sh.budget;
    if (b->src.read) {
        tcp_settle_all(b);
        if (b->read_failed)
            global_note(a, MPA_F_CAP_LIMIT,
                        "%llu octets kept to judge retransmissions could not be read again from the capture file: "
                        "retransmissions of them are not compared",
                        (unsigned long long)b->read_failed);
        b->read_failed = 0;
    }
    b->src.read = read;
    b->src.user = user;
    b->src.at = 0;
}

void audit_packet_at(audit *a, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t wirelen, uint64_t at)
{
    a->pkt_at = a->sh.budget.src.read ? at + 1 : 0;
    audit_packet(a, ts_ns, data, caplen, wirelen);
    a->pkt_at = 0;
}

void audit_packet_mine(audit *a, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t wirelen)
{
    a->mine = 1;
    audit_packet(a, ts_ns, data, caplen, wirelen);
    a->mine = 0;
}

void audit_packet_mine_at(audit *a, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t wirelen,
                          uint64_t at)
{
    a->mine = 1;
    audit_packet_at(a, ts_ns, data, caplen, wirelen, at);
    a->mine = 0;
}

void audit_packet_other(audit *a, uint64_t ts_ns, uint32_t caplen)
{
    if (!a->o.nshards) {
        packet_start(a, ts_ns, caplen);
        a->phase = 2;
        return;
    }
    shard_packet(a, ts_ns, NULL, caplen, caplen, 1);
}

void audit_where(const audit *a, uint64_t *packet, int *phase, uint64_t *sub)
{
    *packet = a->cur_tag + (a->finishing ? 1 : 0);
    *phase = a->finishing || a->sweeping ? 0 : a->phase;
    *sub = *phase == 0 ? a->cur_sub : 0;
}

void audit_add_global(audit *a, const audit_finding *f)
{
    add_finding_at(a, NULL, f->id, f->file, f->frame, f->dir, f->off, f->msg, f->ts);
}

void audit_set_stats(audit *a, const audit_stats *s) { a->st = *s; }

static void packet_body(audit *a, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t wirelen)
{
    pkt p;
    pkt_status st = pkt_parse(a->linktype, data, caplen, wirelen, &p);
    switch (st) {
    case PKT_OK:
        /* (not a datagram reassembled below: it is in no source) */
        if (a->pkt_at && p.tcp.payload) {
            a->sh.budget.src.p = p.tcp.payload;
            a->sh.budget.src.at = a->pkt_at + (uint64_t)(p.tcp.payload - data);
        }
        tcp_packet(a, &p, ts_ns);
        a->sh.budget.src.at = 0;
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
    a->sh.budget.cap = a->o.mem_cap;
    snprintf(a->cap_desc, sizeof a->cap_desc, "--mem-cap %zu MiB", a->o.mem_cap >> 20);
    a->sh.cap_desc = a->cap_desc;
    a->sh.user = a;
    a->sh.global_note = on_shared_note;
    a->frag = ipfrag_new(4u << 20, 4096, 30ull * 1000000000ull);
    a->ts_ring = malloc(TS_RING * sizeof *a->ts_ring);
    if (!a->ht || !a->frag || !a->ts_ring) {
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
    a->files[a->nfiles].base = a->cur_tag;
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
    a->finishing = 1;
    a->cur_sub = 0;
    ipfrag_expire(a->frag, UINT64_MAX, frag_report, a);
    for (conn *c; (c = least_active(a));)
        conn_close(a, c, "capture ended");
    const ipfrag_stats *fs = ipfrag_get_stats(a->frag);
    a->st.frag_dropped += fs->dropped;
    a->st.ooo_peak = a->sh.budget.peak;
    a->st.early_holes = a->sh.budget.early_holes;
}

const audit_stats *audit_get_stats(const audit *a) { return &a->st; }

const audit_gauge *audit_get_gauge(const audit *a, int which) { return which ? &a->g_ooo : &a->g_open; }

const audit_finding *audit_global_findings(const audit *a, size_t *n)
{
    *n = a->ngf;
    return a->gf;
}

void audit_free(audit *a)
{
    if (!a)
        return;
    for (conn *c; (c = least_active(a));) {
        age_unlink(&a->active, &c->age);
        conn_free(a, c);
    }
    free(a->ht);
    free(a->ts_ring);
    free(a->g_open.v);
    free(a->g_ooo.v);
    ipfrag_free(a->frag);
    for (size_t i = 0; i < a->ngf; i++)
        free((char *)a->gf[i].msg);
    free(a->gf);
    for (unsigned i = 0; i < a->nfiles; i++)
        free(a->files[i].name);
    free(a->files);
    free(a);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * IP fragment reassembly for mpa-audit.
 *
 * Follows RFC 791 3.2 (IPv4 reassembly: key, offsets in 8-octet units,
 * the last fragment fixing the length), RFC 8200 4.5 (IPv6 Fragment
 * header, the 65535-octet limit, M=1 fragments a multiple of 8), with
 * RFC 815 (hole bookkeeping, here as sorted range sets) and RFC 5722
 * (overlaps, where we report instead of discarding: see ipfrag.h).
 *
 * Memory: one buffer per datagram sized to the highest captured octet
 * (doubling, capped at 65535 and at the known length), two sorted range
 * arrays; every octet is accounted against mem_cap before it is
 * allocated, and the oldest other datagram is given up to make room.
 */
#include "ipfrag.h"

#include <stdlib.h>
#include <string.h>

#include "agelist.h"

#define IPF_MAX_LEN 65535u
#define IPF_MAX_RANGES 1024u /* holes are bounded by 65535/8 anyway; this bounds the work */

typedef struct range {
    uint32_t s, e; /* [s, e) */
} range;

typedef struct rset {
    range *v;
    uint32_t n, cap;
} rset;

typedef struct dgram {
    struct dgram *hnext;       /* hash chain */
    age_node age;                /* in the age list, first fragment first */
    pkt_ip ip;
    uint32_t id;
    uint32_t hash;
    uint8_t proto;
    uint8_t has_total;
    uint32_t total;    /* upper-layer length, once the last fragment came */
    uint32_t maxend;   /* highest announced fragment end */
    uint64_t t_first;
    uint64_t first_frame, last_frame;
    uint32_t nfrags, conflicts;
    uint64_t conflict_frame;
    uint8_t *buf;
    uint32_t bufcap;
    uint32_t held;     /* captured octets held */
    rset wire;         /* announced by fragment headers */
    rset capd;         /* present in buf */
    size_t mem;        /* accounted to this datagram */
} dgram;

struct ipfrag {
    size_t mem_cap;
    unsigned max_dg;
    uint64_t timeout;
    dgram **tab;
    uint32_t tab_mask;
    age_list ages;
    uint8_t *done_buf; /* the last IPF_DONE's data, freed on the next call */
    size_t done_mem;
    ipfrag_report_fn drop_cb;
    void *drop_user;
    ipfrag_stats st;
};

static void mem_add(ipfrag *f, size_t n)
{
    f->st.mem += n;
    if (f->st.mem > f->st.mem_peak)
        f->st.mem_peak = f->st.mem;
}

static uint32_t key_hash(const pkt_ip *ip, uint32_t id, uint8_t proto)
{
    /* FNV-1a: the key is small and this is not the hot path. */
    uint32_t h = 2166136261u;
    size_t alen = ip->version == 4 ? 4 : 16;
    uint8_t head[6] = {ip->version, ip->version == 4 ? proto : 0, (uint8_t)(id >> 24), (uint8_t)(id >> 16),
                       (uint8_t)(id >> 8), (uint8_t)id};
    for (size_t i = 0; i < sizeof head; i++)
        h = (h ^ head[i]) * 16777619u;
    for (size_t i = 0; i < alen; i++)
        h = (h ^ ip->src.a[i]) * 16777619u;
    for (size_t i = 0; i < alen; i++)
        h = (h ^ ip->dst.a[i]) * 16777619u;
    return h;
}

static int key_eq(const dgram *d, const pkt_ip *ip, uint32_t id, uint8_t proto)
{
    size_t alen = ip->version == 4 ? 4 : 16;
    return d->ip.version == ip->version && d->id == id && (ip->version != 4 || d->proto == proto) &&
           memcmp(d->ip.src.a, ip->src.a, alen) == 0 && memcmp(d->ip.dst.a, ip->dst.a, alen) == 0;
}

ipfrag *ipfrag_new(size_t mem_cap, unsigned max_datagrams, uint64_t timeout_ns)
{
    ipfrag *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    if (max_datagrams == 0)
        max_datagrams = 1;
    uint32_t n = 16;
    while (n < max_datagrams && n < (1u << 20))
        n <<= 1;
    f->tab = calloc(n, sizeof *f->tab);
    if (!f->tab) {
        free(f);
        return NULL;
    }
    f->tab_mask = n - 1;
    f->mem_cap = mem_cap;
    f->max_dg = max_datagrams;
    f->timeout = timeout_ns;
    return f;
}

static void release_done(ipfrag *f)
{
    if (f->done_buf) {
        free(f->done_buf);
        f->done_buf = NULL;
        f->st.mem -= f->done_mem;
        f->done_mem = 0;
    }
}

/* Unlinks d from the table and the age list and frees it; its buffer is
 * freed too unless keep_buf. */
static void dg_free(ipfrag *f, dgram *d, int keep_buf)
{
    dgram **pp = &f->tab[d->hash & f->tab_mask];
    while (*pp != d)
        pp = &(*pp)->hnext;
    *pp = d->hnext;
    age_unlink(&f->ages, &d->age);
    f->st.in_flight--;
    size_t bufmem = keep_buf ? d->bufcap : 0;
    f->st.mem -= d->mem - bufmem;
    if (!keep_buf)
        free(d->buf);
    free(d->wire.v);
    free(d->capd.v);
    free(d);
}

static uint32_t prefix_len(const dgram *d)
{
    return d->capd.n && d->capd.v[0].s == 0 ? d->capd.v[0].e : 0;
}

static void fill_id(ipfrag_result *r, const dgram *d)
{
    r->ip = d->ip;
    r->ip.proto = d->proto;
    r->proto = d->proto;
    r->id = d->id;
    r->first_frame = d->first_frame;
    r->last_frame = d->last_frame;
    r->nfrags = d->nfrags;
    r->conflicts = d->conflicts;
    r->conflict_frame = d->conflict_frame;
}

static void fill_dropped(ipfrag_result *r, const dgram *d, const char *why, uint64_t frame)
{
    fill_id(r, d);
    r->len = prefix_len(d);
    r->data = r->len ? d->buf : NULL;
    r->wire_len = d->has_total ? d->total : d->maxend;
    r->why = why;
    r->frame = frame;
    r->lost_octets = d->held;
    r->whole = 1;
}

/* Gives up d, reporting it through cb. */
static void give_up(ipfrag *f, dgram *d, const char *why, uint64_t frame, ipfrag_report_fn cb, void *user)
{
    if (cb) {
        ipfrag_result r;
        fill_dropped(&r, d, why, frame);
        cb(user, &r);
    }
    f->st.dropped++;
    dg_free(f, d, 0);
}

static dgram *oldest(const ipfrag *f) { return AGE_ITEM(f->ages.oldest, dgram, age); }

/* Accounts n more octets to d, giving up the oldest OTHER datagrams
 * while over the cap.  0 when it cannot fit even alone. */
static int reserve(ipfrag *f, dgram *d, size_t n, uint64_t frame)
{
    while (f->st.mem + n > f->mem_cap) {
        dgram *v = oldest(f);
        if (v && v == d)
            v = AGE_ITEM(v->age.newer, dgram, age);
        if (!v)
            return 0;
        f->st.evicted++;
        give_up(f, v, "memory cap reached: oldest datagram given up", frame, f->drop_cb, f->drop_user);
    }
    mem_add(f, n);
    if (d)
        d->mem += n;
    return 1;
}

static void unreserve(ipfrag *f, dgram *d, size_t n)
{
    f->st.mem -= n;
    d->mem -= n;
}

/* Room for one more range in s. */
static int rset_room(ipfrag *f, dgram *d, rset *s, uint64_t frame)
{
    if (s->n < s->cap)
        return 1;
    if (s->cap >= IPF_MAX_RANGES)
        return 0;
    uint32_t ncap = s->cap ? s->cap * 2 : 4;
    if (!reserve(f, d, (size_t)(ncap - s->cap) * sizeof(range), frame))
        return 0;
    range *v = realloc(s->v, ncap * sizeof(range));
    if (!v) {
        unreserve(f, d, (size_t)(ncap - s->cap) * sizeof(range));
        return 0;
    }
    s->v = v;
    s->cap = ncap;
    return 1;
}

/* Adds [a, b) (a < b) to s, which has room for one more range.  Returns
 * how many of its octets were not in s before. */
static uint32_t rset_add(rset *s, uint32_t a, uint32_t b)
{
    uint32_t i = 0;
    while (i < s->n && s->v[i].e < a)
        i++;
    uint32_t j = i;
    uint32_t old = 0;
    while (j < s->n && s->v[j].s <= b) {
        uint32_t lo = s->v[j].s > a ? s->v[j].s : a;
        uint32_t hi = s->v[j].e < b ? s->v[j].e : b;
        if (hi > lo)
            old += hi - lo;
        j++;
    }
    if (i == j) {
        memmove(s->v + i + 1, s->v + i, (s->n - i) * sizeof(range));
        s->v[i].s = a;
        s->v[i].e = b;
        s->n++;
        return b - a;
    }
    range m = {s->v[i].s < a ? s->v[i].s : a, s->v[j - 1].e > b ? s->v[j - 1].e : b};
    s->v[i] = m;
    memmove(s->v + i + 1, s->v + j, (s->n - j) * sizeof(range));
    s->n -= j - i - 1;
    return b - a - old;
}

/* Copies src (covering [a, b)) into the parts of d->buf not yet held;
 * returns 1 when a part already held differs. */
static int merge_octets(dgram *d, const uint8_t *src, uint32_t a, uint32_t b)
{
    int conflict = 0;
    uint32_t pos = a;
    for (uint32_t k = 0; k < d->capd.n && d->capd.v[k].s < b; k++) {
        const range *r = &d->capd.v[k];
        if (r->e <= a)
            continue;
        if (r->s > pos)
            memcpy(d->buf + pos, src + (pos - a), r->s - pos);
        uint32_t lo = r->s > a ? r->s : a;
        uint32_t hi = r->e < b ? r->e : b;
        if (memcmp(d->buf + lo, src + (lo - a), hi - lo) != 0)
            conflict = 1;
        if (hi > pos)
            pos = hi;
    }
    if (pos < b)
        memcpy(d->buf + pos, src + (pos - a), b - pos);
    return conflict;
}

/* Makes d->buf hold at least need octets; limit is the most it can
 * ever need (the datagram's length, when known). */
static int grow_buf(ipfrag *f, dgram *d, uint32_t need, uint32_t limit, uint64_t frame)
{
    if (need <= d->bufcap)
        return 1;
    uint32_t want = d->bufcap * 2 > need ? d->bufcap * 2 : need;
    if (want > limit)
        want = limit;
    /* Doubling first; exactly `need` when the doubling does not fit. */
    for (int tries = 0; tries < 2; tries++, want = need) {
        size_t more = want - d->bufcap;
        if (f->st.mem + more > f->mem_cap && want != need)
            continue;
        if (!reserve(f, d, more, frame))
            return 0;
        uint8_t *b = realloc(d->buf, want);
        if (!b) {
            unreserve(f, d, more);
            return 0;
        }
        d->buf = b;
        d->bufcap = want;
        return 1;
    }
    return 0;
}

static dgram *dg_new(ipfrag *f, const pkt *p, uint32_t hash, uint64_t ts, uint64_t frame)
{
    if (f->st.in_flight >= f->max_dg) {
        f->st.evicted++;
        give_up(f, oldest(f), "too many datagrams in flight: oldest given up", frame, f->drop_cb, f->drop_user);
    }
    if (!reserve(f, NULL, sizeof(dgram), frame))
        return NULL;
    dgram *d = calloc(1, sizeof *d);
    if (!d) {
        f->st.mem -= sizeof(dgram);
        return NULL;
    }
    d->mem = sizeof(dgram);
    d->ip = p->ip;
    d->id = p->frag.id;
    d->proto = p->frag.proto;
    d->hash = hash;
    d->t_first = ts;
    d->first_frame = d->last_frame = frame;
    d->hnext = f->tab[hash & f->tab_mask];
    f->tab[hash & f->tab_mask] = d;
    age_append(&f->ages, &d->age);
    f->st.in_flight++;
    return d;
}

static int too_old(const ipfrag *f, const dgram *d, uint64_t now)
{
    return f->timeout && now >= d->t_first && now - d->t_first >= f->timeout;
}

static ipfrag_status refuse(ipfrag *f, const pkt *p, ipfrag_result *r, const char *why, uint64_t frame)
{
    f->st.refused++;
    r->why = why;
    r->frame = frame;
    r->lost_octets = p->frag.len < p->frag.wire_len ? p->frag.len : p->frag.wire_len;
    r->whole = 0;
    return IPF_DROPPED;
}

ipfrag_status ipfrag_add(ipfrag *f, const pkt *p, uint64_t ts_ns, uint64_t frame_no, ipfrag_result *res)
{
    release_done(f);
    f->st.fragments++;
    if (f->timeout)
        ipfrag_expire(f, ts_ns, f->drop_cb, f->drop_user);

    const pkt_frag *fr = &p->frag;
    memset(res, 0, sizeof *res);
    res->ip = p->ip;
    res->ip.proto = fr->proto;
    res->proto = fr->proto;
    res->id = fr->id;
    res->first_frame = res->last_frame = frame_no;

    if (p->ip.version != 4 && p->ip.version != 6)
        return refuse(f, p, res, "not an IPv4 or IPv6 fragment", frame_no);
    uint32_t off = fr->offset, wlen = fr->wire_len;
    uint32_t clen = fr->len < wlen ? fr->len : wlen;
    if (off > IPF_MAX_LEN || wlen > IPF_MAX_LEN - off)
        return refuse(f, p, res, "fragment ends past 65535 octets", frame_no);
    if (fr->more && (wlen & 7))
        return refuse(f, p, res, "fragment with more-fragments set not a multiple of 8 octets", frame_no);
    uint32_t end = off + wlen;

    uint32_t hash = key_hash(&p->ip, fr->id, fr->proto);
    dgram *d = f->tab[hash & f->tab_mask];
    while (d && !key_eq(d, &p->ip, fr->id, fr->proto))
        d = d->hnext;
    if (d && too_old(f, d, ts_ns)) {
        give_up(f, d, "incomplete at timeout", d->last_frame, f->drop_cb, f->drop_user);
        d = NULL;
    }
    if (d) {
        /* The first last-fragment fixes the length; later fragments that
         * contradict it are refused, the datagram keeps what it has. */
        if (!fr->more) {
            if (d->has_total && end != d->total)
                return refuse(f, p, res, "last fragment disagrees with an earlier last fragment on the length",
                              frame_no);
            if (!d->has_total && end < d->maxend)
                return refuse(f, p, res, "last fragment ends before octets already received", frame_no);
        } else if (d->has_total && end > d->total) {
            return refuse(f, p, res, "fragment past the end set by the last fragment", frame_no);
        }
    } else {
        d = dg_new(f, p, hash, ts_ns, frame_no);
        if (!d)
            return refuse(f, p, res, "memory cap too small for one datagram", frame_no);
    }

    /* Everything that can fail comes before anything changes. */
    const char *fail = NULL;
    uint32_t limit = !fr->more ? end : d->has_total ? d->total : IPF_MAX_LEN;
    if (d->wire.n >= IPF_MAX_RANGES || d->capd.n >= IPF_MAX_RANGES)
        fail = "more than 1024 separate ranges: datagram given up";
    else if (!grow_buf(f, d, clen ? off + clen : 0, limit, frame_no) || !rset_room(f, d, &d->wire, frame_no) ||
             (clen && !rset_room(f, d, &d->capd, frame_no)))
        fail = "memory cap reached: datagram given up";
    if (fail) {
        fill_dropped(res, d, fail, frame_no);
        res->lost_octets += clen;
        f->st.dropped++;
        /* res->data points into the buffer: it lives until the next call. */
        f->done_buf = d->buf;
        f->done_mem = d->bufcap;
        dg_free(f, d, 1);
        return IPF_DROPPED;
    }

    int conflict = clen ? merge_octets(d, fr->data, off, off + clen) : 0;
    uint32_t fresh = wlen ? rset_add(&d->wire, off, end) : 0;
    if (clen)
        d->held += rset_add(&d->capd, off, off + clen);
    if (!fr->more) {
        d->has_total = 1;
        d->total = end;
    }
    if (end > d->maxend)
        d->maxend = end;
    d->nfrags++;
    if (frame_no < d->first_frame)
        d->first_frame = frame_no;
    if (frame_no > d->last_frame)
        d->last_frame = frame_no;
    if (conflict) {
        if (!d->conflicts)
            d->conflict_frame = frame_no;
        d->conflicts++;
        f->st.conflicts++;
    } else if (fresh == 0 && wlen) {
        f->st.duplicates++;
    }

    if (d->has_total &&
        (d->total == 0 || (d->wire.n == 1 && d->wire.v[0].s == 0 && d->wire.v[0].e == d->total))) {
        fill_id(res, d);
        res->len = prefix_len(d);
        res->data = d->buf;
        res->wire_len = d->total;
        if (d->conflicts) {
            res->why = "overlapping fragments with different octets: the first copy was kept";
            res->frame = d->conflict_frame;
        }
        f->done_buf = d->buf;
        f->done_mem = d->bufcap;
        f->st.datagrams++;
        dg_free(f, d, 1);
        return IPF_DONE;
    }
    fill_id(res, d);
    return IPF_PENDING;
}

void ipfrag_expire(ipfrag *f, uint64_t now_ns, ipfrag_report_fn cb, void *user)
{
    release_done(f);
    int all = now_ns == UINT64_MAX;
    for (dgram *d; (d = oldest(f)) && (all || too_old(f, d, now_ns));) {
        give_up(f, d, all ? "incomplete at end of input" : "incomplete at timeout", d->last_frame, cb, user);
    }
}

void ipfrag_on_drop(ipfrag *f, ipfrag_report_fn cb, void *user)
{
    f->drop_cb = cb;
    f->drop_user = user;
}

const ipfrag_stats *ipfrag_get_stats(const ipfrag *f)
{
    return &f->st;
}

void ipfrag_free(ipfrag *f)
{
    if (!f)
        return;
    release_done(f);
    for (dgram *d; (d = oldest(f));)
        dg_free(f, d, 0);
    free(f->tab);
    free(f);
}

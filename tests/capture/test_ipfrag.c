/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * IP fragment reassembly: RFC 791 3.2 (IPv4 key, offsets, the last
 * fragment fixing the length), RFC 8200 4.5 (IPv6 key, 65535-octet
 * limit, M=1 fragments a multiple of 8), RFC 815 (holes filled in any
 * order), RFC 5722 (overlaps: here reported, first copy kept), and the
 * bounds of ipfrag.h (memory cap, datagrams in flight, timeout).
 *
 * Fragments are made directly as pkt structs (the reassembler's input),
 * plus one end-to-end run through pkt_parse() on packets built here.
 * LeakSanitizer checks that every path frees what it allocated.
 */
#include "ipfrag.h"
#include "pkt.h"
#include "t.h"

static uint8_t D[70000]; /* the datagram payload every test cuts up */

static void fill_d(uint32_t salt)
{
    for (uint32_t i = 0; i < sizeof D; i++)
        D[i] = (uint8_t)((i * 2654435761u + salt) >> 13);
}

static void mkfrag(pkt *p, int v, uint32_t id, uint8_t proto, uint32_t off, int more, const uint8_t *data,
                   uint32_t len)
{
    memset(p, 0, sizeof *p);
    p->ip.version = (uint8_t)v;
    p->ip.proto = proto;
    p->ip.src.family = p->ip.dst.family = (uint8_t)v;
    if (v == 4) {
        static const uint8_t s[4] = {10, 0, 0, 1}, d[4] = {10, 0, 0, 2};
        memcpy(p->ip.src.a, s, 4);
        memcpy(p->ip.dst.a, d, 4);
    } else {
        p->ip.src.a[0] = p->ip.dst.a[0] = 0xfd;
        p->ip.src.a[15] = 1;
        p->ip.dst.a[15] = 2;
    }
    p->frag.id = id;
    p->frag.offset = off;
    p->frag.more = (uint8_t)more;
    p->frag.proto = proto;
    p->frag.data = data;
    p->frag.len = len;
    p->frag.wire_len = len;
}

/* Collects reports from the drop callback. */
typedef struct drops {
    unsigned n;
    ipfrag_result last;
    uint8_t prefix[2048];
    uint32_t prefix_len;
} drops;

static void on_drop(void *user, const ipfrag_result *r)
{
    drops *d = user;
    d->n++;
    d->last = *r;
    d->prefix_len = r->len < sizeof d->prefix ? r->len : (uint32_t)sizeof d->prefix;
    if (d->prefix_len)
        memcpy(d->prefix, r->data, d->prefix_len);
    d->last.data = NULL;
}

static ipfrag_status add(ipfrag *f, int v, uint32_t id, uint32_t off, uint32_t len, int more, uint64_t ts,
                         uint64_t frame, ipfrag_result *r)
{
    pkt p;
    mkfrag(&p, v, id, 6, off, more, D + off, len);
    return ipfrag_add(f, &p, ts, frame, r);
}

static void check_done(const ipfrag_result *r, uint32_t total, const char *what)
{
    T_CHECK(r->len == total && r->wire_len == total, "%s: len %u wire %u, expected %u", what, r->len, r->wire_len,
            total);
    T_CHECK(r->data && memcmp(r->data, D, total) == 0, "%s: reassembled octets differ", what);
}

/* RFC 791 3.2: fragments in order, then in reverse. */
static void test_rfc791_in_order_and_reverse(void)
{
    fill_d(1);
    ipfrag *f = ipfrag_new(1 << 20, 16, 0);
    ipfrag_result r;
    T_EQ(add(f, 4, 7, 0, 1480, 1, 1, 10, &r), IPF_PENDING);
    T_EQ(r.id, 7);
    T_EQ(add(f, 4, 7, 1480, 1480, 1, 2, 11, &r), IPF_PENDING);
    T_EQ(add(f, 4, 7, 2960, 40, 0, 3, 12, &r), IPF_DONE);
    check_done(&r, 3000, "in order");
    T_EQ(r.first_frame, 10);
    T_EQ(r.last_frame, 12);
    T_EQ(r.nfrags, 3);
    T_EQ(r.proto, 6);
    T_EQ(r.ip.proto, 6);
    T_EQ(r.ip.version, 4);
    T_EQ(r.conflicts, 0);
    T_CHECK(r.why == NULL, "why on a clean datagram");
    T_EQ(ipfrag_get_stats(f)->in_flight, 0);

    T_EQ(add(f, 4, 8, 2960, 40, 0, 4, 20, &r), IPF_PENDING);
    T_EQ(add(f, 4, 8, 1480, 1480, 1, 5, 21, &r), IPF_PENDING);
    T_EQ(add(f, 4, 8, 0, 1480, 1, 6, 22, &r), IPF_DONE);
    check_done(&r, 3000, "reverse");
    T_EQ(r.first_frame, 20);
    T_EQ(r.last_frame, 22);
    const ipfrag_stats *st = ipfrag_get_stats(f);
    T_EQ(st->datagrams, 2);
    T_EQ(st->fragments, 6);
    T_EQ(st->dropped + st->refused + st->conflicts + st->duplicates, 0);
    T_CHECK(st->mem_peak > 3000 && st->mem_peak < 3 * 4096, "mem_peak %llu", (unsigned long long)st->mem_peak);
    ipfrag_expire(f, 0, NULL, NULL); /* any call releases the last result */
    T_EQ(st->mem, 0);
    ipfrag_free(f);
}

static uint32_t rnd(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

/* RFC 815: holes filled in any order, with duplicates and identical
 * overlaps (two different fragmentations of one datagram mixed). */
static void test_rfc815_random_order(void)
{
    fill_d(2);
    uint32_t seed = 99;
    unsigned wrong = 0;
    for (int round = 0; round < 200; round++) {
        uint32_t total = 8 + rnd(&seed) % 9000;
        struct {
            uint32_t off, len;
        } fr[2400];
        unsigned n = 0;
        for (int cut = 0; cut < 2; cut++) {
            uint32_t step = 8 * (1 + rnd(&seed) % 200);
            for (uint32_t o = 0; o < total; o += step) {
                fr[n].off = o;
                fr[n].len = total - o < step ? total - o : step;
                n++;
            }
            if (round % 3)
                break; /* a single fragmentation, sometimes */
        }
        unsigned dups = rnd(&seed) % 3;
        for (unsigned k = 0; k < dups; k++, n++)
            fr[n] = fr[rnd(&seed) % n];
        for (unsigned i = n - 1; i > 0; i--) {
            unsigned j = rnd(&seed) % (i + 1);
            uint32_t o = fr[i].off, l = fr[i].len;
            fr[i] = fr[j];
            fr[j].off = o;
            fr[j].len = l;
        }
        /* The datagram is complete once every octet has been announced;
         * track that independently with a bitmap. */
        static uint8_t seen[9100];
        memset(seen, 0, total);
        uint32_t covered = 0;
        int have_last = 0, done = 0;
        ipfrag *f = ipfrag_new(1 << 20, 4, 0);
        for (unsigned i = 0; i < n && !done; i++) {
            for (uint32_t k = fr[i].off; k < fr[i].off + fr[i].len; k++)
                if (!seen[k]) {
                    seen[k] = 1;
                    covered++;
                }
            int more = fr[i].off + fr[i].len != total;
            have_last |= !more;
            ipfrag_result r;
            ipfrag_status st = add(f, 4, 1000 + (uint32_t)round, fr[i].off, fr[i].len, more, i, i, &r);
            int want_done = have_last && covered == total;
            if (want_done) {
                done = 1;
                wrong += st != IPF_DONE || r.len != total || memcmp(r.data, D, total) != 0 || r.conflicts != 0;
            } else {
                wrong += st != IPF_PENDING;
            }
        }
        wrong += !done;
        wrong += ipfrag_get_stats(f)->conflicts != 0;
        ipfrag_free(f);
    }
    T_EQ(wrong, 0);
}

static void test_duplicates(void)
{
    fill_d(3);
    ipfrag *f = ipfrag_new(1 << 20, 16, 0);
    ipfrag_result r;
    T_EQ(add(f, 4, 1, 0, 800, 1, 0, 1, &r), IPF_PENDING);
    T_EQ(add(f, 4, 1, 0, 800, 1, 0, 2, &r), IPF_PENDING);
    T_EQ(add(f, 4, 1, 400, 200, 1, 0, 3, &r), IPF_PENDING); /* inside, same octets */
    T_EQ(ipfrag_get_stats(f)->duplicates, 2);
    T_EQ(add(f, 4, 1, 800, 100, 0, 0, 4, &r), IPF_DONE);
    check_done(&r, 900, "duplicates");
    T_EQ(r.nfrags, 4);
    T_EQ(r.conflicts, 0);
    ipfrag_free(f);
}

/* RFC 5722 territory: overlapping octets that differ.  The first copy
 * wins and the datagram says so. */
static void test_rfc5722_conflicting_overlap(void)
{
    fill_d(4);
    uint8_t other[64];
    for (int i = 0; i < 64; i++)
        other[i] = (uint8_t)~D[8 + i];
    ipfrag *f = ipfrag_new(1 << 20, 16, 0);
    ipfrag_result r;
    pkt p;
    T_EQ(add(f, 4, 5, 0, 32, 1, 0, 1, &r), IPF_PENDING);
    /* [8, 72): [8, 32) conflicts, [32, 72) is new. */
    mkfrag(&p, 4, 5, 6, 8, 1, other, 64);
    T_EQ(ipfrag_add(f, &p, 0, 2, &r), IPF_PENDING);
    T_EQ(ipfrag_get_stats(f)->conflicts, 1);
    /* An identical overlap is not a conflict. */
    T_EQ(add(f, 4, 5, 16, 8, 1, 0, 3, &r), IPF_PENDING);
    mkfrag(&p, 4, 5, 6, 72, 0, D + 72, 8);
    T_EQ(ipfrag_add(f, &p, 0, 4, &r), IPF_DONE);
    T_EQ(r.len, 80);
    T_MEMEQ(r.data, D, 32);                 /* first copy */
    T_MEMEQ(r.data + 32, other + 24, 40);   /* the second one's new part */
    T_MEMEQ(r.data + 72, D + 72, 8);
    T_EQ(r.conflicts, 1);
    T_EQ(r.conflict_frame, 2);
    T_EQ(r.frame, 2);
    T_CHECK(r.why != NULL, "conflict reported");
    T_EQ(ipfrag_get_stats(f)->conflicts, 1);
    ipfrag_free(f);
}

/* The last fragment is missing: the datagram is given up at the timeout
 * (by ipfrag_expire, by a later fragment, by its own next fragment) or
 * at the end of input, and reported with what it held. */
static void test_missing_last_then_expiry(void)
{
    fill_d(5);
    const uint64_t S = 1000000000ull;
    ipfrag *f = ipfrag_new(1 << 20, 16, 30 * S);
    drops dr = {0};
    ipfrag_on_drop(f, on_drop, &dr);
    ipfrag_result r;
    T_EQ(add(f, 4, 9, 0, 1480, 1, 100 * S, 1, &r), IPF_PENDING);
    T_EQ(add(f, 4, 9, 2960, 1480, 1, 101 * S, 3, &r), IPF_PENDING);
    drops ex = {0};
    ipfrag_expire(f, 129 * S, on_drop, &ex);
    T_EQ(ex.n, 0);
    ipfrag_expire(f, 130 * S, on_drop, &ex);
    T_EQ(ex.n, 1);
    T_EQ(ex.last.whole, 1);
    T_EQ(ex.last.id, 9);
    T_EQ(ex.last.lost_octets, 2960);
    T_EQ(ex.last.len, 1480); /* the prefix from offset 0 */
    T_MEMEQ(ex.prefix, D, 1480);
    T_EQ(ex.last.wire_len, 4440); /* the highest end seen: the length is not known */
    T_EQ(ex.last.first_frame, 1);
    T_EQ(ex.last.last_frame, 3);
    T_EQ(ex.last.frame, 3);
    T_STREQ(ex.last.why, "incomplete at timeout");
    T_EQ(ipfrag_get_stats(f)->in_flight, 0);
    T_EQ(ipfrag_get_stats(f)->dropped, 1);
    T_EQ(ipfrag_get_stats(f)->mem, 0);

    /* A fragment of another datagram, later, times the first one out. */
    T_EQ(add(f, 4, 10, 8, 8, 1, 200 * S, 5, &r), IPF_PENDING);
    T_EQ(add(f, 4, 11, 8, 8, 1, 240 * S, 6, &r), IPF_PENDING);
    T_EQ(dr.n, 1);
    T_EQ(dr.last.id, 10);
    T_EQ(dr.last.len, 0); /* nothing at offset 0 */
    T_EQ(dr.last.lost_octets, 8);
    /* The same key after the timeout starts over. */
    T_EQ(add(f, 4, 11, 0, 8, 1, 290 * S, 7, &r), IPF_PENDING);
    T_EQ(dr.n, 2);
    T_EQ(dr.last.id, 11);
    T_EQ(add(f, 4, 11, 8, 8, 0, 291 * S, 8, &r), IPF_DONE);
    check_done(&r, 16, "after timeout");
    T_EQ(r.first_frame, 7);

    /* Capture times a little out of order: the datagram a fragment
     * belongs to is checked for age even when the oldest one is young. */
    T_EQ(add(f, 4, 20, 0, 8, 1, 400 * S, 12, &r), IPF_PENDING);
    T_EQ(add(f, 4, 21, 0, 8, 1, 350 * S, 13, &r), IPF_PENDING);
    dr.n = 0;
    T_EQ(add(f, 4, 21, 8, 8, 0, 385 * S, 14, &r), IPF_PENDING); /* 21 is 35 s old: starts over */
    T_EQ(dr.n, 1);
    T_EQ(dr.last.id, 21);
    T_EQ(dr.last.frame, 13);
    ipfrag_expire(f, UINT64_MAX, NULL, NULL);

    /* End of input: everything left. */
    T_EQ(add(f, 4, 12, 0, 8, 1, 300 * S, 9, &r), IPF_PENDING);
    T_EQ(add(f, 6, 12, 0, 8, 1, 300 * S, 10, &r), IPF_PENDING);
    ex.n = 0;
    ipfrag_expire(f, UINT64_MAX, on_drop, &ex);
    T_EQ(ex.n, 2);
    T_STREQ(ex.last.why, "incomplete at end of input");
    T_EQ(ipfrag_get_stats(f)->in_flight, 0);
    T_EQ(ipfrag_get_stats(f)->mem, 0);
    /* In flight at ipfrag_free: freed without a report (LSan checks). */
    T_EQ(add(f, 4, 13, 0, 8, 1, 300 * S, 11, &r), IPF_PENDING);
    ipfrag_free(f);
    ipfrag_free(NULL);
}

/* Memory cap: the oldest datagram makes room; never above the cap. */
static void test_memory_cap(void)
{
    fill_d(6);
    ipfrag_result r;
    /* What one 1480-octet fragment costs. */
    ipfrag *f = ipfrag_new(1 << 20, 16, 0);
    T_EQ(add(f, 4, 1, 0, 1480, 1, 0, 1, &r), IPF_PENDING);
    size_t one = ipfrag_get_stats(f)->mem;
    ipfrag_free(f);

    size_t cap = one + one / 2;
    f = ipfrag_new(cap, 16, 0);
    drops dr = {0};
    ipfrag_on_drop(f, on_drop, &dr);
    T_EQ(add(f, 4, 1, 0, 1480, 1, 0, 1, &r), IPF_PENDING);
    T_EQ(add(f, 4, 2, 0, 1480, 1, 0, 2, &r), IPF_PENDING);
    T_EQ(dr.n, 1);
    T_EQ(dr.last.id, 1);
    T_EQ(dr.last.whole, 1);
    T_EQ(dr.last.frame, 2);
    T_EQ(dr.last.lost_octets, 1480);
    T_MEMEQ(dr.prefix, D, 1480);
    T_CHECK(strstr(dr.last.why, "memory") != NULL, "why: %s", dr.last.why);
    const ipfrag_stats *st = ipfrag_get_stats(f);
    T_EQ(st->evicted, 1);
    T_EQ(st->in_flight, 1);
    T_CHECK(st->mem_peak <= cap, "peak %llu > cap %zu", (unsigned long long)st->mem_peak, cap);
    /* Datagram 2 cannot grow past the cap alone: it is given up. */
    T_EQ(add(f, 4, 2, 1480, 1480, 1, 0, 3, &r), IPF_DROPPED);
    T_EQ(r.whole, 1);
    T_EQ(r.id, 2);
    T_EQ(r.lost_octets, 2960);
    T_EQ(r.len, 1480);
    T_CHECK(strstr(r.why, "memory") != NULL, "why: %s", r.why);
    T_MEMEQ(r.data, D, 1480); /* valid until the next call */
    T_EQ(st->in_flight, 0);
    T_EQ(st->mem, 1480);
    ipfrag_expire(f, 0, NULL, NULL);
    T_EQ(st->mem, 0);
    T_CHECK(st->mem_peak <= cap, "peak %llu > cap %zu", (unsigned long long)st->mem_peak, cap);
    ipfrag_free(f);

    /* A cap below one datagram's bookkeeping: the fragment is refused. */
    f = ipfrag_new(16, 16, 0);
    T_EQ(add(f, 4, 1, 0, 8, 1, 0, 1, &r), IPF_DROPPED);
    T_EQ(r.whole, 0);
    T_EQ(ipfrag_get_stats(f)->in_flight, 0);
    T_EQ(ipfrag_get_stats(f)->mem, 0);
    ipfrag_free(f);

    /* Many datagrams under a cap: memory never exceeds it. */
    f = ipfrag_new(64 * 1024, 1000, 0);
    ipfrag_on_drop(f, on_drop, &dr);
    dr.n = 0;
    unsigned over = 0;
    for (uint32_t id = 0; id < 500; id++) {
        add(f, 4, id, 1480 * (id % 3), 1480, 1, 0, id, &r);
        over += ipfrag_get_stats(f)->mem > 64 * 1024;
    }
    T_EQ(over, 0);
    T_CHECK(dr.n > 400, "evictions reported: %u", dr.n);
    T_EQ(dr.n, ipfrag_get_stats(f)->evicted);
    ipfrag_free(f);
}

static void test_max_datagrams(void)
{
    fill_d(7);
    ipfrag *f = ipfrag_new(1 << 20, 2, 0);
    drops dr = {0};
    ipfrag_on_drop(f, on_drop, &dr);
    ipfrag_result r;
    T_EQ(add(f, 4, 1, 0, 8, 1, 0, 1, &r), IPF_PENDING);
    T_EQ(add(f, 4, 2, 0, 8, 1, 0, 2, &r), IPF_PENDING);
    T_EQ(dr.n, 0);
    T_EQ(add(f, 4, 3, 0, 8, 1, 0, 3, &r), IPF_PENDING);
    T_EQ(dr.n, 1);
    T_EQ(dr.last.id, 1);
    T_CHECK(strstr(dr.last.why, "too many") != NULL, "why: %s", dr.last.why);
    T_EQ(ipfrag_get_stats(f)->in_flight, 2);
    /* Datagram 2 is intact and completes. */
    T_EQ(add(f, 4, 2, 8, 8, 0, 0, 4, &r), IPF_DONE);
    check_done(&r, 16, "survivor");
    ipfrag_free(f);
}

/* RFC 8200 4.5: IPv6 keys on (src, dst, id); IPv4 also on the protocol;
 * the two families never mix. */
static void test_rfc8200_ipv6_and_keys(void)
{
    fill_d(8);
    ipfrag *f = ipfrag_new(1 << 20, 16, 0);
    ipfrag_result r;
    pkt p;
    T_EQ(add(f, 6, 0xDEADBEEF, 1232, 100, 0, 0, 1, &r), IPF_PENDING);
    T_EQ(add(f, 4, 0xDEADBEEF, 0, 1232, 1, 0, 2, &r), IPF_PENDING); /* IPv4, same id */
    mkfrag(&p, 4, 0xDEADBEEF, 17, 1232, 0, D + 1232, 100);            /* IPv4, other protocol */
    T_EQ(ipfrag_add(f, &p, 0, 3, &r), IPF_PENDING);
    T_EQ(ipfrag_get_stats(f)->in_flight, 3);
    T_EQ(add(f, 6, 0xDEADBEEF, 0, 1232, 1, 0, 4, &r), IPF_DONE);
    check_done(&r, 1332, "ipv6");
    T_EQ(r.ip.version, 6);
    T_EQ(r.id, 0xDEADBEEF);
    T_EQ(r.ip.src.a[15], 1);
    T_EQ(add(f, 4, 0xDEADBEEF, 1232, 100, 0, 0, 5, &r), IPF_DONE);
    T_EQ(r.ip.version, 4);
    T_EQ(ipfrag_get_stats(f)->in_flight, 1);
    ipfrag_free(f);
}

/* Fragments refused alone; the datagram goes on. */
static void test_refused_fragments(void)
{
    fill_d(9);
    ipfrag *f = ipfrag_new(1 << 20, 16, 0);
    ipfrag_result r;
    T_EQ(add(f, 4, 1, 0, 1000, 1, 0, 1, &r), IPF_PENDING);
    /* Ends past 65535 octets. */
    T_EQ(add(f, 4, 1, 65528, 16, 0, 0, 2, &r), IPF_DROPPED);
    T_EQ(r.whole, 0);
    T_EQ(r.frame, 2);
    T_EQ(r.lost_octets, 16);
    T_CHECK(r.why && strstr(r.why, "65535"), "why: %s", r.why ? r.why : "-");
    T_EQ(add(f, 4, 1, 65528, 7, 0, 0, 3, &r), IPF_PENDING); /* ends at 65535: fine */
    T_EQ(add(f, 4, 2, 0, 65535, 1, 0, 3, &r), IPF_DROPPED); /* M=1 and not a multiple of 8 */
    T_EQ(add(f, 4, 2, 0, 12, 1, 0, 3, &r), IPF_DROPPED);
    T_CHECK(r.why && strstr(r.why, "multiple of 8"), "why");
    ipfrag_free(f);

    f = ipfrag_new(1 << 20, 16, 0);
    T_EQ(add(f, 4, 1, 0, 992, 1, 0, 1, &r), IPF_PENDING);
    T_EQ(add(f, 4, 1, 1000, 500, 0, 0, 2, &r), IPF_PENDING);     /* total 1500, hole at 992 */
    T_EQ(add(f, 4, 1, 1000, 600, 0, 0, 3, &r), IPF_DROPPED);     /* another total */
    T_EQ(add(f, 4, 1, 1496, 8, 1, 0, 4, &r), IPF_DROPPED);       /* past it */
    T_EQ(add(f, 6, 2, 2000, 8, 1, 0, 5, &r), IPF_PENDING);
    T_EQ(add(f, 6, 2, 0, 1000, 0, 0, 6, &r), IPF_DROPPED);       /* last, before octets held */
    T_EQ(ipfrag_get_stats(f)->refused, 3);
    T_EQ(add(f, 4, 1, 1000, 500, 0, 0, 7, &r), IPF_PENDING);     /* agrees: a duplicate */
    T_EQ(add(f, 4, 1, 0, 992, 1, 0, 8, &r), IPF_PENDING);        /* duplicate */
    T_EQ(ipfrag_get_stats(f)->duplicates, 2);
    ipfrag_free(f);

    /* Holes bounded: 8-octet fragments at every other slot. */
    f = ipfrag_new(1 << 24, 16, 0);
    ipfrag_status st = IPF_PENDING;
    uint32_t k;
    for (k = 0; k < 2000 && st == IPF_PENDING; k++)
        st = add(f, 4, 1, 16 * k, 8, 1, 0, k, &r);
    T_EQ(st, IPF_DROPPED);
    T_EQ(r.whole, 1);
    T_EQ(k, 1025);
    T_CHECK(r.why && strstr(r.why, "1024"), "why: %s", r.why ? r.why : "-");
    T_EQ(ipfrag_get_stats(f)->in_flight, 0);
    ipfrag_free(f);
}

/* Fragments cut by the snap length: the datagram completes with its
 * captured prefix and its full length. */
static void test_snapped_fragment(void)
{
    fill_d(10);
    ipfrag *f = ipfrag_new(1 << 20, 16, 0);
    ipfrag_result r;
    pkt p;
    mkfrag(&p, 4, 3, 6, 0, 1, D, 1480);
    p.frag.len = 100; /* only 100 of 1480 captured */
    T_EQ(ipfrag_add(f, &p, 0, 1, &r), IPF_PENDING);
    T_EQ(add(f, 4, 3, 1480, 520, 0, 0, 2, &r), IPF_DONE);
    T_EQ(r.len, 100);
    T_EQ(r.wire_len, 2000);
    T_MEMEQ(r.data, D, 100);
    ipfrag_free(f);
}

/* End to end: IPv4 packets built octet by octet, parsed, reassembled,
 * and the TCP segment parsed out of the result. */
static uint32_t build_v4_frag(uint8_t *b, uint32_t off, int more, const uint8_t *data, uint32_t len)
{
    uint32_t n = 0;
    b[n++] = 0x45;
    b[n++] = 0;
    b[n++] = (uint8_t)((20 + len) >> 8);
    b[n++] = (uint8_t)(20 + len);
    b[n++] = 0x12;
    b[n++] = 0x34;
    uint32_t ff = (more ? 0x2000u : 0) | off / 8;
    b[n++] = (uint8_t)(ff >> 8);
    b[n++] = (uint8_t)ff;
    b[n++] = 64;
    b[n++] = 6;
    b[n++] = 0;
    b[n++] = 0;
    static const uint8_t a[8] = {192, 0, 2, 1, 192, 0, 2, 2};
    memcpy(b + n, a, 8);
    n += 8;
    memcpy(b + n, data, len);
    return n + len;
}

static void test_end_to_end(void)
{
    /* A TCP segment: header with MSS, then 2000 octets. */
    static uint8_t seg[2024];
    memset(seg, 0, 24);
    seg[0] = 0x11;
    seg[1] = 0x22;
    seg[2] = 0x33;
    seg[3] = 0x44;
    seg[7] = 9; /* seq 9 */
    seg[12] = 6 << 4;
    seg[13] = PKT_TCP_ACK;
    seg[20] = 2;
    seg[21] = 4;
    seg[22] = 0x23;
    seg[23] = 0x28;
    for (int i = 24; i < 2024; i++)
        seg[i] = (uint8_t)(i * 13);
    ipfrag *f = ipfrag_new(1 << 20, 16, 0);
    static const uint32_t offs[] = {1000, 0, 504}, lens[] = {1024, 504, 496};
    uint8_t b[1100];
    ipfrag_result r;
    ipfrag_status st = IPF_PENDING;
    for (int i = 0; i < 3; i++) {
        uint32_t n = build_v4_frag(b, offs[i], offs[i] + lens[i] != 2024, seg + offs[i], lens[i]);
        const uint8_t *g = t_guard(b, n);
        pkt p;
        T_EQ(pkt_parse(PKT_LINK_IPV4, g, n, n, &p), PKT_FRAGMENT);
        st = ipfrag_add(f, &p, 0, (uint64_t)i, &r);
        T_EQ(st, i == 2 ? IPF_DONE : IPF_PENDING);
    }
    if (st == IPF_DONE) {
        pkt o;
        o.ip = r.ip;
        T_EQ(pkt_parse_l4_cut(r.proto, r.data, r.len, r.wire_len, &o), PKT_OK);
        T_EQ(o.tcp.sport, 0x1122);
        T_EQ(o.tcp.dport, 0x3344);
        T_EQ(o.tcp.seq, 9);
        T_EQ(o.tcp.mss, 9000);
        T_EQ(o.tcp.payload_len, 2000);
        T_MEMEQ(o.tcp.payload, seg + 24, 2000);
        T_EQ(o.ip.src.a[3], 1);
        T_EQ(o.ip.dst.a[3], 2);
    }
    ipfrag_free(f);
}

int main(void)
{
    t_name = "audit_ipfrag";
    test_rfc791_in_order_and_reverse();
    test_rfc815_random_order();
    test_duplicates();
    test_rfc5722_conflicting_overlap();
    test_missing_last_then_expiry();
    test_memory_cap();
    test_max_datagrams();
    test_rfc8200_ipv6_and_keys();
    test_refused_fragments();
    test_snapped_fragment();
    test_end_to_end();
    return t_done();
}

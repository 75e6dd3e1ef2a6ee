/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The direct reader of classic pcap files (conformance/audit/input.c)
 * against libpcap's.  The direct reader gives up at the first record it
 * cannot read and leaves the rest of the file to libpcap, so a broken
 * one would still give every report right, only slower: no golden can
 * see it.  Here a classic pcap several windows long (records of 1 octet
 * to the snap length, so that many cross a window's end) is read:
 *  - plainly: every packet must come from the direct reader (packet_at,
 *    with its offset in the file), its octets those at that offset;
 *  - the same, held (the reader of -j N): a packet's octets must stay as
 *    they were until hold more octets of the file are read or sync is
 *    called;
 *  - through a BPF filter that takes everything (libpcap reads it all):
 *    the packets, their timestamps, lengths and octets, must be the same
 *    as the direct reader's.
 *   build/test/direct [DIR]     (make audit-shard; DIR for the file, default /tmp)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input.h"

#define SNAP 262144u
#define NREC 400u

static int fails, checks;

static void want(int ok, const char *fmt, unsigned long long a, unsigned long long b)
{
    checks++;
    if (!ok) {
        fails++;
        printf("direct: ");
        printf(fmt, a, b);
        printf("\n");
    }
}

/* FNV-1a over the octets: a packet's fingerprint. */
static uint64_t fp(const uint8_t *p, uint32_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

typedef struct seen {
    uint64_t ts, fp, off; /* off: UINT64_MAX when handed without one */
    uint32_t caplen, wirelen;
    const uint8_t *held;  /* held: where it was handed */
} seen;

typedef struct coll {
    seen r[NREC + 1];
    unsigned n, nheld;    /* the held ones: r[n - nheld .. n) */
    int fd;
    uint64_t hold;
    unsigned syncs;
} coll;

static void c_begin(void *u, const char *name, int linktype) { (void)u, (void)name, (void)linktype; }

static void c_problem(void *u, mpa_finding_id id, const char *msg)
{
    (void)u, (void)id;
    printf("direct: a problem said: %s\n", msg);
    fails++;
}

/* The held packets not yet let go of are as they were handed. */
static void check_held(coll *c, uint64_t now)
{
    unsigned keep = 0;
    for (unsigned i = c->n - c->nheld; i < c->n; i++) {
        seen *s = &c->r[i];
        want(fp(s->held, s->caplen) == s->fp, "held packet at file offset %llu changed before %llu", s->off, now);
        if (now != UINT64_MAX && s->off + s->caplen + c->hold > now)
            keep++; /* still promised */
    }
    /* (the promised ones are the newest) */
    c->nheld = now == UINT64_MAX ? 0 : keep;
}

static void c_sync(void *u)
{
    coll *c = u;
    check_held(c, UINT64_MAX);
    c->syncs++;
}

static void c_source(void *u, int (*read)(void *ctx, uint64_t off, uint8_t *dst, uint32_t n), void *ctx)
{
    (void)u, (void)read, (void)ctx;
}

static void c_packet_at(void *u, uint64_t ts, const uint8_t *data, uint32_t caplen, uint32_t wirelen, uint64_t off,
                        int held)
{
    coll *c = u;
    if (c->n == NREC + 1)
        return;
    if (c->hold && off != UINT64_MAX)
        check_held(c, off);
    seen *s = &c->r[c->n++];
    s->ts = ts;
    s->caplen = caplen;
    s->wirelen = wirelen;
    s->fp = fp(data, caplen);
    s->off = off;
    s->held = NULL;
    if (off != UINT64_MAX) {
        uint8_t *b = malloc(caplen ? caplen : 1);
        want(b && pread(c->fd, b, caplen, (off_t)off) == (ssize_t)caplen && fp(b, caplen) == s->fp,
             "packet %llu: its octets are not those at file offset %llu", c->n, off);
        free(b);
    }
    if (c->hold) {
        want(held, "packet %llu handed on not held (hold %llu)", c->n, c->hold);
        s->held = data;
        c->nheld++;
    }
}

static void c_packet(void *u, uint64_t ts, const uint8_t *data, uint32_t caplen, uint32_t wirelen, int held)
{
    c_packet_at(u, ts, data, caplen, wirelen, UINT64_MAX, held);
}

static void put32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)v, b[1] = (uint8_t)(v >> 8), b[2] = (uint8_t)(v >> 16), b[3] = (uint8_t)(v >> 24);
}

/* The capture: NREC records of random octets (the reader does not parse
 * them), mostly short, some up to the snap length. */
static int write_capture(const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    uint8_t h[24] = {0};
    put32(h, 0xa1b2c3d4u);
    h[4] = 2, h[6] = 4;
    put32(h + 16, SNAP);
    put32(h + 20, 1); /* Ethernet */
    int ok = fwrite(h, 1, 24, f) == 24;
    static uint8_t buf[SNAP];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (unsigned i = 0; ok && i < NREC; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint32_t len = (uint32_t)(x % 8 == 0 ? 1 + x % SNAP : 1 + x % 3000);
        if (i == 7)
            len = SNAP; /* one record of the snap length */
        for (uint32_t k = 0; k < len; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            buf[k] = (uint8_t)x;
        }
        uint8_t r[16];
        put32(r, 1700000000u + i);
        put32(r + 4, i * 1000u % 1000000u);
        put32(r + 8, len);
        put32(r + 12, len + (i % 5 == 0 ? 4u : 0u));
        ok = fwrite(r, 1, 16, f) == 16 && fwrite(buf, 1, len, f) == len;
    }
    return fclose(f) == 0 && ok ? 0 : -1;
}

static coll runs[3];

static int run(coll *c, const char *path, const char *filter, uint64_t hold)
{
    memset(c, 0, sizeof *c);
    c->fd = open(path, O_RDONLY);
    c->hold = hold;
    input_sink sink = {c, c_begin, c_packet, c_problem, c_sync, hold, c_source, c_packet_at};
    input_opts o = {0};
    o.filter = filter;
    o.quiet = 1;
    unsigned long long total = 0;
    int rc = input_file_to(&sink, path, &o, &total);
    if (c->hold)
        check_held(c, UINT64_MAX);
    close(c->fd);
    return rc;
}

int main(int argc, char **argv)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/mpa-direct-%ld.pcap", argc > 1 ? argv[1] : "/tmp", (long)getpid());
    if (write_capture(path)) {
        printf("direct: cannot write %s\n", path);
        return 2;
    }
    int rc0 = run(&runs[0], path, NULL, 0);
    int rc1 = run(&runs[1], path, NULL, 3u << 20);
    int rc2 = run(&runs[2], path, "", 0); /* libpcap reads it all */
    unlink(path);
    want(rc0 == 0 && rc1 == 0 && rc2 == 0, "input_file_to returned %llu (plain), %llu (held) or not 0 (filter)",
         (unsigned long long)rc0, (unsigned long long)rc1);
    for (int k = 0; k < 3; k++)
        want(runs[k].n == NREC, "%llu packets handed on, %llu written", runs[k].n, NREC);
    for (int k = 0; k < 2; k++)
        for (unsigned i = 0; i < runs[k].n; i++)
            want(runs[k].r[i].off != UINT64_MAX, "packet %llu of run %llu came through libpcap, not the direct reader",
                 i + 1, (unsigned long long)k);
    for (int k = 0; k < 2; k++)
        for (unsigned i = 0; i < NREC && i < runs[k].n && i < runs[2].n; i++) {
            const seen *a = &runs[k].r[i], *b = &runs[2].r[i];
            want(a->ts == b->ts && a->caplen == b->caplen && a->wirelen == b->wirelen && a->fp == b->fp,
                 "packet %llu of run %llu differs from libpcap's", i + 1, (unsigned long long)k);
        }
    want(runs[2].r[0].off == UINT64_MAX, "the filtered run has offsets (%llu, %llu): not libpcap's reader?",
         runs[2].r[0].off, 0);
    printf("direct: %d passed, %d failed\n", checks - fails, fails);
    return fails ? 1 : 0;
}

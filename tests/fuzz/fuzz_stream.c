/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the stream engine (RFC 5044 4 and 7, RFC 6581),
 * checked for its core guarantee: the same octets give the same events
 * whatever the split (include/mpa/stream.h).
 *
 * The input is a script.  Octet 0 configures the connection:
 *   bit 0, bit 1  ISN of direction 0, 1 is 700 octets before the 2^32
 *                 wrap (else 0x10000000, 0x20000000)
 *   bits 2-3      EMSS of both senders: 0 (unknown), 1460, 536, 9000
 *   bits 4-5      markers of direction 0, 1 for "FPDU" records when no
 *                 startup is prepended
 *   bit 6         mid-stream start (cfg.midstream): the next octet states
 *                 markers d0 (bits 0-1), markers d1 (2-3), CRC d0 (4-5),
 *                 CRC d1 (6-7) as mpa_tri (3 reads as unknown)
 *   bit 7         prepend a correct startup: a Request from direction 0
 *                 and a Reply from direction 1, built by mpa_frame_encode
 *                 from the next 6 octets (missing ones read as 0):
 *                   q r    Request / Reply flags: bit 0 M, 1 C, 2 S (then
 *                          Rev 2 and the enhanced field, else Rev 1),
 *                          3 A, 4 B, 5 C (RTR write), 6 D; bit 7: in the
 *                          Request, 3 octets of ULP private data; in the
 *                          Reply, R=1 (reject)
 *                   qi qo  Request IRD, ORD (0xFF means 0x3FFF)
 *                   ri ro  Reply IRD, ORD
 * Then records [ctl][len][len octets] until the input ends (a record
 * cut short by the end of the input keeps the octets present):
 *   ctl 0xF0-0xF1   FIN on direction ctl & 1 (its octets are ignored)
 *   ctl 0xF2-0xF3   RST on direction ctl & 1 (likewise)
 *   ctl 0xD0-0xD3   a hole on direction ctl & 1: len octets (len * 64
 *                   with bit 1) the sender sent and the capture lost
 *                   (mpa_stream_gap; the octets are not in the input)
 *   ctl 0xE0-0xEF   an FPDU carrying the octets as its ULPDU, built by
 *                   mpa_fpdu_encode at this point of direction ctl & 1
 *                   (markers as negotiated by the prepended startup,
 *                   CRC always computed); bit 1 a segment boundary
 *                   before it, bit 2 CRC wrong (xor 1), bit 3 every
 *                   FPDUPTR off by 4
 *   any other ctl   raw octets of direction ctl & 1; bit 1 a segment
 *                   boundary before them
 * The script is turned into octets once, then run twice: every record
 * fed whole, and every record fed one octet at a time.  Octets the engine
 * does not take (a direction waiting for the other) stay queued for that
 * direction and are fed again after the other direction's later records;
 * at the end mpa_stream_finish, what is left, mpa_stream_finish again
 * (as cs_run() of corpus/run.c does).  The two event logs
 * (mpa_event_format plus the raw fields the format leaves out), the
 * counters, modes, roles
 * and frames must be identical, or the target aborts after printing the
 * first line that differs.  A third run feeds every record whole with
 * marker events not wanted (mpa_stream_quiet_markers): its events other
 * than MARKER and all its counters must be those of the first run.
 *
 * Bounded: input at most 64 KiB, all storage static; the log keeps its
 * first LOG_KEEP octets and hashes the rest.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h" /* the startup frames */
#include "mpa/describe.h"
#include "mpa/fpdu.h"
#include "mpa/frame.h"
#include "mpa/stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT 65536u
#define MAX_OPS (FUZZ_MAX_INPUT / 2u + 8u)
/* An FPDU record of n octets (n + 2 input octets) takes at most
 * 2 + n + 3 + 4 octets and 2 markers: at most 8 octets per input octet. */
#define WIRE_CAP (FUZZ_MAX_INPUT * 8u + 4096u)
#define LOG_KEEP (1u << 20)
#define ULPDU_AVAIL_MAX 128u

#define FAIL(...)                                                            \
    do {                                                                     \
        fprintf(stderr, "fuzz_stream: " __VA_ARGS__);                        \
        fputc('\n', stderr);                                                 \
        abort();                                                             \
    } while (0)

/* On failure: the condition, then the values in the input's own terms. */
#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "fuzz_stream: check failed: %s\n    ", #cond);   \
            FAIL(__VA_ARGS__);                                               \
        }                                                                    \
    } while (0)

/* ---- the script, as octets ------------------------------------------ */

enum { OP_DATA = 0, OP_FIN, OP_RST, OP_GAP };

typedef struct op {
    uint8_t kind, dir, seg;
    uint32_t off, len; /* into wire[] */
} op_t;

static uint8_t wire[WIRE_CAP];
static size_t nwire;
static op_t ops[MAX_OPS];
static size_t nops;
static mpa_stream_cfg scfg;

typedef struct sender {
    uint64_t off;       /* octets of this direction so far */
    uint64_t fpdu_base; /* offset where its FPDU mode starts */
    int markers;
} sender_t;

static void add_op(int kind, int dir, int seg, size_t off, size_t len)
{
    CHECK(nops < MAX_OPS, "harness: too many records");
    ops[nops].kind = (uint8_t)kind;
    ops[nops].dir = (uint8_t)dir;
    ops[nops].seg = (uint8_t)seg;
    ops[nops].off = (uint32_t)off;
    ops[nops].len = (uint32_t)len;
    nops++;
}

static void add_data(sender_t *sd, int dir, int seg, const uint8_t *p, size_t len)
{
    CHECK(nwire + len <= WIRE_CAP, "harness: wire buffer full");
    memcpy(wire + nwire, p, len);
    add_op(OP_DATA, dir, seg, nwire, len);
    nwire += len;
    sd[dir].off += len;
}

static uint16_t irdord(uint8_t v) { return v == 0xFF ? MPA_IRD_ORD_MAX : v; }

static mpa_frame_enc startup_frame(mpa_key_kind kind, uint8_t fl, uint8_t ird, uint8_t ord)
{
    static const uint8_t ulp_pd[3] = {0x55, 0x4c, 0x50};
    int m = fl & 1, c = fl >> 1 & 1;
    mpa_frame_enc f = kind == MPA_KEY_REQ ? cs_req(m, c) : cs_rep(m, c);
    if (fl >> 2 & 1)
        f = cs_enh(f, fl >> 3 & 1, fl >> 4 & 1, fl >> 5 & 1, fl >> 6 & 1, irdord(ird), irdord(ord));
    if (fl & 0x80) {
        if (kind == MPA_KEY_REQ) {
            f.pd = ulp_pd;
            f.pd_len = sizeof ulp_pd;
        } else {
            f.r = 1;
        }
    }
    return f;
}

static void build_script(const uint8_t *data, size_t size)
{
    nwire = 0;
    nops = 0;
    sender_t sd[2];
    memset(sd, 0, sizeof sd);
    memset(&scfg, 0, sizeof scfg);
    if (size == 0)
        return;
    static const uint16_t emss[4] = {0, 1460, 536, 9000};
    uint8_t c0 = data[0];
    scfg.isn[0] = c0 & 1 ? 0u - 700u : 0x10000000u;
    scfg.isn[1] = c0 & 2 ? 0u - 700u : 0x20000000u;
    scfg.emss[0] = scfg.emss[1] = emss[c0 >> 2 & 3];
    sd[0].markers = c0 >> 4 & 1;
    sd[1].markers = c0 >> 5 & 1;
    size_t pos = 1;
    if (c0 & 0x40) {
        uint8_t t = pos < size ? data[pos++] : 0;
        scfg.midstream = 1;
        for (int d = 0; d < 2; d++) {
            unsigned m = t >> (2 * d) & 3u, c = t >> (4 + 2 * d) & 3u;
            scfg.markers[d] = (uint8_t)(m == 3 ? 0 : m);
            scfg.crc[d] = (uint8_t)(c == 3 ? 0 : c);
        }
    }
    if (c0 & 0x80) {
        uint8_t h[6] = {0, 0, 0, 0, 0, 0};
        for (unsigned k = 0; k < 6 && pos < size; k++)
            h[k] = data[pos++];
        mpa_frame_enc q = startup_frame(MPA_KEY_REQ, h[0], h[2], h[3]);
        mpa_frame_enc r = startup_frame(MPA_KEY_REP, h[1], h[4], h[5]);
        uint8_t buf[MPA_FRAME_HDR_LEN + MPA_ENH_LEN + 8];
        size_t w = 0;
        CHECK(mpa_frame_encode(&q, buf, sizeof buf, &w) == MPA_OK, "harness: Request encode");
        add_data(sd, 0, 1, buf, w);
        CHECK(mpa_frame_encode(&r, buf, sizeof buf, &w) == MPA_OK, "harness: Reply encode");
        add_data(sd, 1, 1, buf, w);
        /* M in the Request binds the Responder's FPDUs, M in the Reply
         * the Initiator's (RFC 5044 7.1.1). */
        sd[0].fpdu_base = sd[0].off;
        sd[1].fpdu_base = sd[1].off;
        sd[0].markers = r.m;
        sd[1].markers = q.m;
    }
    while (pos + 2 <= size) {
        uint8_t ctl = data[pos];
        size_t len = data[pos + 1];
        pos += 2;
        if (len > size - pos)
            len = size - pos;
        const uint8_t *body = data + pos;
        pos += len;
        int dir = ctl & 1;
        if (ctl >= 0xF0 && ctl <= 0xF3) {
            add_op(ctl & 2 ? OP_RST : OP_FIN, dir, 0, 0, 0);
        } else if (ctl >= 0xD0 && ctl <= 0xD3) {
            size_t n = data[pos - len - 1] * (ctl & 2 ? 64u : 1u);
            pos -= len; /* a hole has no octets in the input */
            if (n) {
                add_op(OP_GAP, dir, 0, 0, n);
                sd[dir].off += n;
            }
        } else if ((ctl & 0xF0) == 0xE0) {
            mpa_fpdu_cfg fc;
            fc.markers = sd[dir].markers;
            fc.crc = 1;
            fc.mark_base = scfg.isn[dir] + (uint32_t)sd[dir].fpdu_base;
            mpa_fpdu_faults fl;
            memset(&fl, 0, sizeof fl);
            fl.len_override = -1;
            if (ctl & 4) {
                fl.crc_mode = 2;
                fl.crc_xor = 1;
            }
            if (ctl & 8)
                fl.marker_ptr_delta = 4;
            size_t w = 0;
            mpa_status st = mpa_fpdu_encode(body, len, scfg.isn[dir] + (uint32_t)sd[dir].off, &fc,
                                            &fl, wire + nwire, WIRE_CAP - nwire, &w);
            CHECK(st == MPA_OK, "harness: FPDU encode: %s", mpa_status_str(st));
            add_op(OP_DATA, dir, ctl >> 1 & 1, nwire, w);
            nwire += w;
            sd[dir].off += w;
        } else {
            add_data(sd, dir, ctl >> 1 & 1, body, len);
        }
    }
}

/* ---- the event log --------------------------------------------------- */

typedef struct evlog {
    char *s;        /* first LOG_KEEP octets */
    size_t n;       /* octets logged, all of them */
    uint64_t hash;  /* FNV-1a of everything logged */
    uint64_t lines;
    uint64_t hash_nm, lines_nm; /* the same without the MARKER events */
} evlog_t;

static char log_a[LOG_KEEP], log_b[LOG_KEEP], log_c[LOG_KEEP];
/* FUZZ_STREAM_LOG=1 in the environment: print the first run's log (to
 * look at what an input does: build/fuzz/fuzz_stream FILE). */
static int print_log;

static void log_put(evlog_t *l, const char *p, size_t k)
{
    for (size_t i = 0; i < k; i++) {
        l->hash ^= (uint8_t)p[i];
        l->hash *= 0x100000001b3ull;
        if (l->n + i < LOG_KEEP)
            l->s[l->n + i] = p[i];
    }
    l->n += k;
}

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static void on_event(void *user, const mpa_event *ev)
{
    evlog_t *l = user;
    char line[1200];
    size_t k = mpa_event_format(ev, line, 1024);
    CHECK(strlen(line) == (k < 1024 ? k : 1023), "event_format length %zu vs \"%s\"", k, line);
    CHECK(ev->dir == 0 || ev->dir == 1, "event for direction %d", ev->dir);
    CHECK(ev->seq == scfg.isn[ev->dir] + (uint32_t)ev->off, "event seq %u at d%d offset %llu",
          ev->seq, ev->dir, (unsigned long long)ev->off);
    /* The raw values the one-line format does not show. */
    size_t n = strlen(line);
    int x = 0;
    switch (ev->type) {
    case MPA_EV_FRAME: {
        const mpa_frame *f = &ev->u.frame.frame;
        CHECK(f->pd_avail <= MPA_STREAM_PD_KEEP && f->pd_avail <= f->pd_len,
              "FRAME event: pd_avail %zu, PD_Length %u, the engine keeps %u", f->pd_avail,
              f->pd_len, MPA_STREAM_PD_KEEP);
        x = snprintf(line + n, sizeof line - n, " |kind %d len %zu pd %zu/%llx", f->kind,
                     f->frame_len, f->pd_avail,
                     (unsigned long long)(f->pd ? fnv(f->pd, f->pd_avail) : 0));
        break;
    }
    case MPA_EV_MODE:
        x = snprintf(line + n, sizeof line - n, " |mode %d", ev->u.mode.mode);
        break;
    case MPA_EV_MARKER:
        x = snprintf(line + n, sizeof line - n, " |fpdu_off %llu res %u",
                     (unsigned long long)ev->u.marker.fpdu_off, ev->u.marker.reserved);
        break;
    case MPA_EV_FPDU: {
        const mpa_ev_fpdu *f = &ev->u.fpdu;
        size_t want = f->ulpdu_len < ULPDU_AVAIL_MAX ? f->ulpdu_len : ULPDU_AVAIL_MAX;
        CHECK(f->ulpdu_avail == want, "FPDU ulpdu_avail %zu, ULPDU_Length %u", f->ulpdu_avail,
              f->ulpdu_len);
        CHECK(f->ulpdu || !f->ulpdu_avail, "FPDU event without its ULPDU octets");
        x = snprintf(line + n, sizeof line - n,
                     " |crc %08x/%08x pad %u ddp %d an %x rtr %d/%d ul %llx", f->crc_wire,
                     f->crc_calc, f->pad_len, f->ddp_status, f->ddp_anomalies, f->rtr,
                     f->negotiated_rtr,
                     (unsigned long long)(f->ulpdu ? fnv(f->ulpdu, f->ulpdu_avail) : 0));
        break;
    }
    case MPA_EV_FINDING:
        CHECK(ev->u.finding.rule && ev->u.finding.rule == mpa_rule_get(ev->u.finding.id),
              "finding %d without its rule", ev->u.finding.id);
        x = snprintf(line + n, sizeof line - n, " |id %d", ev->u.finding.id);
        break;
    case MPA_EV_DATA:
        CHECK(ev->u.data.why != NULL, "DATA event without a reason");
        break;
    }
    if (x > 0)
        n += (size_t)x < sizeof line - n ? (size_t)x : sizeof line - n - 1;
    line[n++] = '\n';
    if (print_log && l->s == log_a)
        fwrite(line, 1, n, stderr);
    log_put(l, line, n);
    l->lines++;
    if (ev->type != MPA_EV_MARKER) {
        for (size_t i = 0; i < n; i++) {
            l->hash_nm ^= (uint8_t)line[i];
            l->hash_nm *= 0x100000001b3ull;
        }
        l->lines_nm++;
    }
}

/* ---- the runs -------------------------------------------------------- */

typedef struct piece {
    uint32_t off, len;
    uint8_t seg; /* call mpa_stream_segment before its first octet */
    uint8_t gap; /* a hole of len octets: mpa_stream_gap */
} piece_t;

typedef struct run {
    mpa_stream *st; /* allocated once, mpa_stream_size() octets */
    evlog_t log;
    size_t step; /* octets per mpa_stream_feed call */
    piece_t q[2][MAX_OPS];
    size_t head[2], nq[2];
    int finished;
} run_t;

static run_t run_a, run_b, run_c;


/* Feed direction dir's queue; returns octets consumed. */
static size_t drain(run_t *r, int dir)
{
    size_t used = 0;
    while (r->head[dir] < r->nq[dir]) {
        piece_t *pc = &r->q[dir][r->head[dir]];
        if (pc->gap) {
            mpa_stream_gap(r->st, dir, pc->len);
            r->head[dir]++;
            continue;
        }
        if (pc->seg) {
            mpa_stream_segment(r->st, dir);
            pc->seg = 0;
        }
        while (pc->len) {
            size_t chunk = pc->len < r->step ? pc->len : r->step;
            size_t n = mpa_stream_feed(r->st, dir, wire + pc->off, chunk);
            CHECK(n <= chunk, "feed of %zu octets returned %zu", chunk, n);
            pc->off += (uint32_t)n;
            pc->len -= (uint32_t)n;
            used += n;
            if (n < chunk) {
                CHECK(!r->finished, "d%d: feed after finish took %zu of %zu octets", dir, n, chunk);
                CHECK(mpa_stream_waiting(r->st, dir),
                      "d%d: feed took %zu of %zu octets but the direction is not waiting", dir, n,
                      chunk);
                return used;
            }
        }
        r->head[dir]++;
    }
    return used;
}

static void run_script(run_t *r, size_t step, char *logbuf, int quiet)
{
    memset(r->head, 0, sizeof r->head);
    memset(r->nq, 0, sizeof r->nq);
    r->finished = 0;
    r->step = step;
    memset(&r->log, 0, sizeof r->log);
    r->log.s = logbuf;
    r->log.hash = r->log.hash_nm = 0xcbf29ce484222325ull;
    if (!r->st && !(r->st = malloc(mpa_stream_size())))
        abort();
    mpa_stream_init(r->st, &scfg, on_event, &r->log);
    mpa_stream_quiet_markers(r->st, quiet);
    for (size_t i = 0; i < nops; i++) {
        const op_t *o = &ops[i];
        int dir = o->dir;
        if (o->kind == OP_FIN || o->kind == OP_RST) {
            drain(r, dir);
            drain(r, !dir);
            mpa_stream_end(r->st, dir, o->kind == OP_RST ? MPA_END_RST : MPA_END_FIN);
            drain(r, !dir);
            continue;
        }
        piece_t *pc = &r->q[dir][r->nq[dir]++];
        pc->off = o->off;
        pc->len = o->len;
        pc->seg = o->seg;
        pc->gap = o->kind == OP_GAP;
        /* This direction's record first, then let the other catch up;
         * each round that moves consumes octets, so this ends. */
        for (;;) {
            size_t a = drain(r, dir);
            size_t b = drain(r, !dir);
            if (!a && !b)
                break;
        }
    }
    mpa_stream_finish(r->st);
    r->finished = 1;
    for (int dir = 0; dir < 2; dir++) {
        CHECK(!mpa_stream_waiting(r->st, dir), "d%d still waiting after mpa_stream_finish", dir);
        drain(r, dir);
        CHECK(r->head[dir] == r->nq[dir], "d%d: octets left after finish", dir);
    }
    mpa_stream_finish(r->st);
}

/* ---- comparing the two runs ------------------------------------------ */

static void report_diff(const evlog_t *a, const evlog_t *b)
{
    size_t na = a->n < LOG_KEEP ? a->n : LOG_KEEP, nb = b->n < LOG_KEEP ? b->n : LOG_KEEP;
    size_t i = 0, line_start = 0, lineno = 1;
    while (i < na && i < nb && a->s[i] == b->s[i]) {
        if (a->s[i] == '\n') {
            line_start = i + 1;
            lineno++;
        }
        i++;
    }
    fprintf(stderr, "fuzz_stream: event logs differ (whole records: %llu lines, %zu octets; "
                    "one octet at a time: %llu lines, %zu octets)\n",
            (unsigned long long)a->lines, a->n, (unsigned long long)b->lines, b->n);
    if (i == na || i == nb) {
        if (na == LOG_KEEP || nb == LOG_KEEP)
            fprintf(stderr, "  the first %u octets agree; the difference is past them\n", LOG_KEEP);
        else
            fprintf(stderr, "  one log is a prefix of the other (line %zu)\n", lineno);
    }
    /* Context: the line before, then both versions of the line. */
    size_t prev = line_start ? line_start - 1 : 0;
    while (prev > 0 && a->s[prev - 1] != '\n')
        prev--;
    if (line_start)
        fprintf(stderr, "  same      : %.*s", (int)(line_start - prev), a->s + prev);
    size_t ea = line_start, eb = line_start;
    while (ea < na && a->s[ea] != '\n')
        ea++;
    while (eb < nb && b->s[eb] != '\n')
        eb++;
    fprintf(stderr, "  line %zu\n  expected  : %.*s\n  vs actual : %.*s\n", lineno,
            (int)(ea - line_start), a->s + line_start, (int)(eb - line_start), b->s + line_start);
    fprintf(stderr, "  (expected: every record fed whole; actual: one octet at a time)\n");
    abort();
}

/* b quiet: only the events other than MARKER are compared (and every
 * counter, the markers read included). */
static void compare_runs(run_t *a, run_t *b, int quiet)
{
    if (quiet)
        CHECK(a->log.hash_nm == b->log.hash_nm && a->log.lines_nm == b->log.lines_nm,
              "with marker events not wanted, the other events differ (%llu vs %llu lines; "
              "FUZZ_STREAM_LOG=1 prints the first run's)",
              (unsigned long long)a->log.lines_nm, (unsigned long long)b->log.lines_nm);
    else if (a->log.n != b->log.n || a->log.hash != b->log.hash || a->log.lines != b->log.lines)
        report_diff(&a->log, &b->log);
    for (int dir = 0; dir < 2; dir++) {
        const mpa_dir_stats *sa = mpa_stream_stats(a->st, dir), *sb = mpa_stream_stats(b->st, dir);
#define SAME_STAT(f)                                                                              \
    CHECK(sa->f == sb->f, "d%d counter " #f ": %llu whole vs %llu %s", dir,                       \
          (unsigned long long)sa->f, (unsigned long long)sb->f, quiet ? "quiet" : "octet by octet")
        SAME_STAT(octets);
        SAME_STAT(fpdus);
        SAME_STAT(ulpdu_octets);
        SAME_STAT(markers);
        SAME_STAT(crc_bad);
        SAME_STAT(findings);
        SAME_STAT(segments);
        SAME_STAT(segments_aligned);
        SAME_STAT(not_mpa_octets);
        SAME_STAT(gap_octets);
        SAME_STAT(resyncs);
#undef SAME_STAT
        CHECK(mpa_stream_mode(a->st, dir) == mpa_stream_mode(b->st, dir), "d%d mode %s vs %s",
              dir, mpa_dir_mode_str(mpa_stream_mode(a->st, dir)),
              mpa_dir_mode_str(mpa_stream_mode(b->st, dir)));
        CHECK(mpa_stream_role(a->st, dir) == mpa_stream_role(b->st, dir), "d%d role %s vs %s",
              dir, mpa_role_str(mpa_stream_role(a->st, dir)),
              mpa_role_str(mpa_stream_role(b->st, dir)));
        const mpa_frame *fa = mpa_stream_frame(a->st, dir), *fb = mpa_stream_frame(b->st, dir);
        CHECK(!fa == !fb, "d%d frame kept %d vs %d", dir, !!fa, !!fb);
        if (fa && fb)
            CHECK(fa->kind == fb->kind && fa->frame_len == fb->frame_len &&
                      memcmp(fa->key, fb->key, MPA_KEY_LEN) == 0,
                  "d%d frames differ", dir);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    static int init;
    if (!init) {
        init = 1;
        print_log = getenv("FUZZ_STREAM_LOG") != NULL;
    }
    build_script(data, size);
    run_script(&run_a, SIZE_MAX, log_a, 0);
    run_script(&run_b, 1, log_b, 0);
    compare_runs(&run_a, &run_b, 0);
    /* Marker events not wanted (mpa_stream_quiet_markers): the rest is
     * the same. */
    run_script(&run_c, SIZE_MAX, log_c, 1);
    compare_runs(&run_a, &run_c, 1);
    return 0;
}

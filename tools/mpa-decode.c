/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-decode: run libmpa's stream engine over a recorded MPA byte stream
 * and print every event (frames, FPDUs with their DDP/RDMAP headers,
 * markers, findings with requirement ids), then a summary.
 *
 * Input format (".mpastream", text): one TCP segment per line,
 *     A <hex octets>      octets sent by endpoint A (direction 0)
 *     B <hex octets>      octets sent by endpoint B (direction 1)
 *     A FIN | A RST       A closed (likewise B)
 * Blank lines and lines starting with '#' are ignored; hex may contain
 * spaces.  A demo of the library on recorded streams (captures/demo/);
 * captures are mpa-audit's.
 *
 * Exit status: 0 no finding at or above --fail-on (default error),
 * 1 otherwise, 2 unusable input or usage.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpa/describe.h"
#include "mpa/feed.h"
#include "mpa/stream.h"
#include "prog.h"

typedef struct seg {
    int dir;
    int kind; /* 0 data, 1 FIN, 2 RST */
    size_t off, len;
    unsigned line;
} seg_t;

typedef struct ctx {
    int quiet;
    unsigned long long n_sev[3];
    unsigned long long n_fpdu[2];
} ctx_t;

static void usage(FILE *o)
{
    fprintf(o,
            "usage: mpa-decode [options] FILE.mpastream\n"
            "  -q, --quiet        print findings and the summary only\n"
            "  --split N          feed octets in pieces of N (the output must not change)\n"
            "  --isn-a N, --isn-b N   TCP sequence number of the first octet of A / B\n"
            "  --emss-a N, --emss-b N EMSS of A's / B's sender (enables the MULPDU check)\n"
            "  --fail-on LEVEL    error (default), warning, note or never\n"
            "  -h, --help\n"
            "  --version\n"
            "Input lines: 'A <hex>', 'B <hex>', 'A FIN', 'B RST', '# comment'.\n");
}

static void on_event(void *user, const mpa_event *ev)
{
    ctx_t *c = user;
    char line[1024];
    if (ev->type == MPA_EV_FINDING && ev->u.finding.rule)
        c->n_sev[ev->u.finding.rule->severity]++;
    if (ev->type == MPA_EV_FPDU)
        c->n_fpdu[ev->dir]++;
    if (c->quiet && ev->type != MPA_EV_FINDING)
        return;
    mpa_event_format(ev, line, sizeof line);
    printf("%c seq=%u %s\n", ev->dir ? 'B' : 'A', ev->seq, line);
}

static int hexval(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    ch = tolower(ch);
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    return -1;
}

/* Parse the file into octets and segments; messages name file:line:col. */
static int parse(const char *path, FILE *f, uint8_t **buf, size_t *blen, seg_t **segs, size_t *nseg)
{
    size_t cap = 1 << 16, scap = 256;
    *buf = malloc(cap);
    *segs = malloc(scap * sizeof **segs);
    *blen = 0;
    *nseg = 0;
    if (!*buf || !*segs) {
        fprintf(stderr, "mpa-decode: out of memory\n");
        return -1;
    }
    char *line = NULL;
    size_t lcap = 0;
    ssize_t n;
    unsigned lineno = 0;
    while ((n = getline(&line, &lcap, f)) >= 0) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == 0)
            continue;
        if ((*p != 'A' && *p != 'B') || (p[1] != ' ' && p[1] != '\t')) {
            fprintf(stderr, "%s:%u:%ld: expected 'A' or 'B' and a space at the start of the line\n", path,
                    lineno, (long)(p - line) + 1);
            free(line);
            return -1;
        }
        int dir = *p == 'B';
        p += 2;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*nseg == scap) {
            scap *= 2;
            seg_t *ns = realloc(*segs, scap * sizeof **segs);
            if (!ns) {
                fprintf(stderr, "mpa-decode: out of memory\n");
                free(line);
                return -1;
            }
            *segs = ns;
        }
        seg_t *s = &(*segs)[(*nseg)++];
        s->dir = dir;
        s->line = lineno;
        s->off = *blen;
        s->len = 0;
        s->kind = 0;
        if (strncmp(p, "FIN", 3) == 0 || strncmp(p, "RST", 3) == 0) {
            s->kind = p[0] == 'F' ? 1 : 2;
            continue;
        }
        int hi = -1;
        for (; *p && *p != '\n' && *p != '\r'; p++) {
            if (*p == ' ' || *p == '\t')
                continue;
            int v = hexval((unsigned char)*p);
            if (v < 0) {
                fprintf(stderr, "%s:%u:%ld: '%c' is not a hex digit\n", path, lineno, (long)(p - line) + 1,
                        *p);
                free(line);
                return -1;
            }
            if (hi < 0) {
                hi = v;
                continue;
            }
            if (*blen == cap) {
                cap *= 2;
                uint8_t *nb = realloc(*buf, cap);
                if (!nb) {
                    fprintf(stderr, "mpa-decode: out of memory\n");
                    free(line);
                    return -1;
                }
                *buf = nb;
            }
            (*buf)[(*blen)++] = (uint8_t)(hi << 4 | v);
            s->len++;
            hi = -1;
        }
        if (hi >= 0) {
            fprintf(stderr, "%s:%u: odd number of hex digits\n", path, lineno);
            free(line);
            return -1;
        }
    }
    free(line);
    if (ferror(f)) {
        fprintf(stderr, "%s: read error: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static int parse_num(const char *opt, const char *v, unsigned long long max, unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v ? v : "", &end, 0);
    if (!v || !*v || *end || errno || x > max) {
        fprintf(stderr, "mpa-decode: %s needs a number up to %llu, got '%s'\n", opt, max, v ? v : "");
        return -1;
    }
    *out = x;
    return 0;
}

/* What the command line asks for. */
typedef struct opts {
    mpa_stream_cfg cfg;
    unsigned long long split;
    int fail_on; /* an mpa_severity; 3: never */
    int quiet;
    const char *path;
} opts;

/* 0 to go on, else the exit status (after --help, --version or a usage error). */
static int parse_args(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->fail_on = MPA_SEV_ERROR;
    unsigned long long v;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return -1;
        } else if (!strcmp(a, "--version")) {
            prog_version(NULL);
            return -1;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            o->quiet = 1;
        } else if (!strcmp(a, "--split") || !strcmp(a, "--isn-a") || !strcmp(a, "--isn-b") ||
                   !strcmp(a, "--emss-a") || !strcmp(a, "--emss-b")) {
            const char *val = i + 1 < argc ? argv[++i] : NULL;
            unsigned long long max = strstr(a, "emss") ? 65535 : strstr(a, "isn") ? 0xFFFFFFFFull : 1u << 20;
            if (parse_num(a, val, max, &v) < 0)
                return 2;
            if (!strcmp(a, "--split"))
                o->split = v;
            else if (!strcmp(a, "--isn-a"))
                o->cfg.isn[0] = (uint32_t)v;
            else if (!strcmp(a, "--isn-b"))
                o->cfg.isn[1] = (uint32_t)v;
            else if (!strcmp(a, "--emss-a"))
                o->cfg.emss[0] = (uint16_t)v;
            else
                o->cfg.emss[1] = (uint16_t)v;
        } else if (!strcmp(a, "--fail-on")) {
            const char *val = i + 1 < argc ? argv[++i] : "";
            if (!strcmp(val, "error"))
                o->fail_on = MPA_SEV_ERROR;
            else if (!strcmp(val, "warning"))
                o->fail_on = MPA_SEV_WARNING;
            else if (!strcmp(val, "note"))
                o->fail_on = MPA_SEV_NOTE;
            else if (!strcmp(val, "never"))
                o->fail_on = 3;
            else {
                fprintf(stderr, "mpa-decode: --fail-on takes error, warning, note or never, not '%s'\n", val);
                return 2;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "mpa-decode: unknown option %s\n(mpa-decode --help for the options)\n", a);
            return 2;
        } else if (o->path) {
            fprintf(stderr, "mpa-decode: one input file only ('%s' and '%s')\n", o->path, a);
            return 2;
        } else {
            o->path = a;
        }
    }
    if (!o->path) {
        usage(stderr);
        return 2;
    }
    return 0;
}

/* The segments through the engine (octets a direction cannot take yet
 * are held by libmpa's feeder and fed again in arrival order).  0, or -1
 * out of memory. */
static int decode(mpa_stream *st, const opts *o, const uint8_t *buf, const seg_t *segs, size_t nseg)
{
    mpa_feeder *fd = mpa_feeder_new(NULL);
    if (!fd)
        return -1;
    mpa_feeder_bind(fd, st);
    for (size_t k = 0; k < nseg; k++) {
        const seg_t *s = &segs[k];
        if (s->kind) {
            mpa_feeder_end(fd, s->dir, s->kind == 2 ? MPA_END_RST : MPA_END_FIN);
            continue;
        }
        for (size_t at = 0; at < s->len;) {
            size_t piece = o->split && o->split < s->len - at ? o->split : s->len - at;
            mpa_feeder_data(fd, s->dir, buf + s->off + at, piece, at == 0);
            at += piece;
        }
    }
    mpa_feeder_finish(fd);
    mpa_feeder_free(fd);
    return 0;
}

static void summary(const mpa_stream *st, const ctx_t *c)
{
    printf("\nsummary\n");
    for (int dir = 0; dir < 2; dir++) {
        const mpa_dir_stats *ds = mpa_stream_stats(st, dir);
        const mpa_frame *fr = mpa_stream_frame(st, dir);
        char fs[256] = "no startup frame";
        if (fr)
            mpa_frame_summary(fr, fs, sizeof fs);
        printf("  %c: %-9s %s\n", dir ? 'B' : 'A', mpa_role_str(mpa_stream_role(st, dir)), fs);
        printf("     %llu octets, %llu FPDUs (%llu ULPDU octets), %llu markers, %llu bad CRCs, "
               "%llu/%llu segments aligned, %llu octets not MPA, ends %s\n",
               (unsigned long long)ds->octets, (unsigned long long)ds->fpdus,
               (unsigned long long)ds->ulpdu_octets, (unsigned long long)ds->markers,
               (unsigned long long)ds->crc_bad, (unsigned long long)ds->segments_aligned,
               (unsigned long long)ds->segments, (unsigned long long)ds->not_mpa_octets,
               mpa_dir_mode_str(mpa_stream_mode(st, dir)));
    }
    printf("  findings: %llu error, %llu warning, %llu note\n", c->n_sev[MPA_SEV_ERROR],
           c->n_sev[MPA_SEV_WARNING], c->n_sev[MPA_SEV_NOTE]);
}

int main(int argc, char **argv)
{
    prog_init("mpa-decode");
    opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    FILE *f = strcmp(o.path, "-") ? fopen(o.path, "r") : stdin;
    if (!f) {
        fprintf(stderr, "mpa-decode: %s: %s\n", o.path, strerror(errno));
        return 2;
    }
    uint8_t *buf = NULL;
    seg_t *segs = NULL;
    size_t blen = 0, nseg = 0;
    rc = parse(o.path, f, &buf, &blen, &segs, &nseg);
    if (f != stdin)
        fclose(f);
    ctx_t c;
    memset(&c, 0, sizeof c);
    c.quiet = o.quiet;
    mpa_stream *st = rc < 0 ? NULL : malloc(mpa_stream_size());
    if (st) {
        mpa_stream_init(st, &o.cfg, on_event, &c);
        if (decode(st, &o, buf, segs, nseg) < 0) {
            free(st);
            st = NULL;
        }
    }
    free(buf);
    free(segs);
    if (!st) {
        if (rc >= 0)
            fprintf(stderr, "mpa-decode: out of memory\n");
        return 2;
    }
    summary(st, &c);
    free(st);
    int worst = c.n_sev[MPA_SEV_ERROR] ? 2 : c.n_sev[MPA_SEV_WARNING] ? 1 : c.n_sev[MPA_SEV_NOTE] ? 0 : -1;
    return worst >= o.fail_on ? 1 : 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-capgen: writes the project's reference captures (pcap and pcapng
 * files of MPA connections built with libmpa's encoders, with a manifest
 * of what mpa-audit must report for each), and the large benchmark
 * capture.  See conformance/gen/README.md.
 *
 *   mpa-capgen [--verify] OUTDIR
 *   mpa-capgen --big FILE [--bytes N] [--conns N] [--seed N] [--active N]
 *   mpa-capgen --adversarial DIR
 *
 * Output is deterministic: the same options give the same bytes.
 * Exit status: 0 done, 1 --verify found differences, 2 usage or I/O
 * error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gen.h"
#include "prog.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpa-capgen [--verify] OUTDIR\n"
            "       mpa-capgen --big FILE [--bytes N] [--conns N] [--seed N] [--active N] [--no-markers]\n"
            "       mpa-capgen --adversarial DIR\n"
            "\n"
            "  OUTDIR        write the reference captures and OUTDIR/MANIFEST.tsv (one line per\n"
            "                capture: file, link/format, expected finding ids, description,\n"
            "                mpa-audit options); OUTDIR is created if missing\n"
            "  --verify      also run each capture's scenarios through libmpa's stream engine and\n"
            "                report where its ids differ from the manifest (exit 1 if they do)\n"
            "  --big FILE    the benchmark capture: interleaved clean connections (classic pcap,\n"
            "                Ethernet/IPv4), written streaming\n"
            "  --bytes N     at least N octets of RDMA payload, so the file is a bit larger (suffix\n"
            "                K, M, G: powers of 1024; default 1G)\n"
            "  --conns N     connections (default 1000)\n"
            "  --seed N      random seed (default 1); the same seed gives the same file\n"
            "  --active N    connections open at once (default 256)\n"
            "  --no-markers  every connection without markers (M=0 both ways; default: with)\n"
            "  --adversarial DIR\n"
            "                captures made to break an auditor (floods, lying lengths, sequence\n"
            "                jumps, endless holes, garbage, and ADVERSARIAL.tsv saying what\n"
            "                each must provoke); DIR is created if missing\n"
            "  --help        this text\n"
            "  --version     the toolkit's version\n");
}

/* "50M" -> 52428800; 0 on a malformed number. */
static int parse_size(const char *s, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *s == '-')
        return 0;
    uint64_t mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1024, end++;
    else if (*end == 'M' || *end == 'm')
        mul = 1024 * 1024, end++;
    else if (*end == 'G' || *end == 'g')
        mul = 1024ull * 1024 * 1024, end++;
    if (*end || (v && mul > UINT64_MAX / v))
        return 0;
    *out = v * mul;
    return 1;
}

int main(int argc, char **argv)
{
    const char *big = NULL, *outdir = NULL, *adv = NULL;
    int verify = 0, big_opt = 0;
    big_opts bo = {1ull << 30, 1000, 1, 256, 0};
    prog_init("mpa-capgen");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--version")) {
            prog_version(NULL);
            return 0;
        }
        if (!strcmp(a, "--verify")) {
            verify = 1;
            continue;
        }
        if (!strcmp(a, "--no-markers")) {
            bo.no_markers = 1;
            big_opt = 1;
            continue;
        }
        if (!strcmp(a, "--big") || !strcmp(a, "--adversarial") || !strcmp(a, "--bytes") ||
            !strcmp(a, "--conns") || !strcmp(a, "--seed") || !strcmp(a, "--active")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "mpa-capgen: %s needs a value\n(mpa-capgen --help for the options)\n", a);
                return 2;
            }
            const char *v = argv[++i];
            uint64_t n = 0;
            if (!strcmp(a, "--big")) {
                big = v;
                continue;
            }
            if (!strcmp(a, "--adversarial")) {
                adv = v;
                continue;
            }
            big_opt = 1;
            if (!parse_size(v, &n) || (strcmp(a, "--seed") != 0 && n == 0) ||
                (strcmp(a, "--conns") == 0 && n > 4000000) ||
                (strcmp(a, "--active") == 0 && n > 65536)) {
                fprintf(stderr, "mpa-capgen: bad value for %s: %s\n", a, v);
                return 2;
            }
            if (!strcmp(a, "--bytes"))
                bo.bytes = n;
            else if (!strcmp(a, "--conns"))
                bo.conns = (unsigned)n;
            else if (!strcmp(a, "--seed"))
                bo.seed = n;
            else
                bo.active = (unsigned)n;
            continue;
        }
        if (a[0] == '-' && a[1]) {
            fprintf(stderr, "mpa-capgen: unknown option %s\n(mpa-capgen --help for the options)\n", a);
            return 2;
        }
        if (outdir) {
            fprintf(stderr, "mpa-capgen: one output directory, not %s and %s\n", outdir, a);
            return 2;
        }
        outdir = a;
    }
    if (adv) {
        if (big || big_opt || outdir || verify) {
            fprintf(stderr, "mpa-capgen: --adversarial DIR takes no other option or OUTDIR\n");
            return 2;
        }
        outdir = adv;
    }
    if (big) {
        if (outdir || verify) {
            fprintf(stderr, "mpa-capgen: --big FILE takes no OUTDIR or --verify\n");
            return 2;
        }
        return gen_big(big, &bo);
    }
    if (big_opt) {
        fprintf(stderr, "mpa-capgen: --bytes, --conns, --seed, --active and --no-markers go with --big\n");
        return 2;
    }
    if (!outdir) {
        usage(stderr);
        return 2;
    }
    if (mkdir(outdir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "mpa-capgen: %s: %s\n", outdir, strerror(errno));
        return 2;
    }
    struct stat st;
    if (stat(outdir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "mpa-capgen: %s: not a directory\n", outdir);
        return 2;
    }
    return adv ? gen_adversarial(outdir) : gen_reference(outdir, verify);
}

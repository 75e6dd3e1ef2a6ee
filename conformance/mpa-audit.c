/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-audit: audits the MPA traffic (RFC 5044, RFC 6581) in pcap and
 * pcapng captures, or on a live interface, against the requirement
 * catalogue.  See docs/mpa-audit.1 and docs/mpa-audit-json.md.
 *
 * The program parses its options and calls: conformance/audit reads the
 * input (input.h), follows the connections (audit.h, over the capture
 * layer and libmpa) and writes the report (report.h).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "input.h"
#include "jobs.h"
#include "merge.h"
#include "prog.h"
#include "report.h"


static const char usage[] =
    "usage: mpa-audit [options] FILE...        audit pcap/pcapng files (- reads stdin)\n"
    "       mpa-audit [options] -i IFACE        audit live traffic until interrupted\n"
    "       mpa-audit --list-rules              the requirement catalogue\n"
    "       mpa-audit merge [-o FILE] SHARD.json...   one report from the --json\n"
    "                                           documents of all shards of one audit\n"
    "\n"
    "Finds the TCP connections that speak MPA (by their startup frames, on any port),\n"
    "decodes them and reports every place either side broke a rule of the catalogue,\n"
    "with the rule's id, severity, frame, direction and stream offset.\n"
    "\n"
    "Output:\n"
    "  --json               one JSON document (described in mpa-audit(1))\n"
    "  --jsonl              JSON Lines: each finding as it is made, each connection\n"
    "                       when it completes, a summary last\n"
    "  -o, --output FILE    write the report to FILE instead of standard output\n"
    "  --max-findings N     list each rule at most N times per connection (default\n"
    "                       100; 0: all); the rest are counted\n"
    "  --no-timing          leave out wall-clock figures (reproducible output)\n"
    "  --no-progress        no progress bar (it is shown on a terminal for files\n"
    "                       of 32 MB or more)\n"
    "  --fail-on LEVEL      exit 1 when a finding at or above LEVEL exists: error\n"
    "                       (default), warning, note, never\n"
    "\n"
    "Input:\n"
    "  -i, --interface IF   capture live on IF (needs the capture privilege)\n"
    "  -f, --filter EXPR    BPF filter (live and files), e.g. \"tcp port 5445\"\n"
    "  -c, --count N        stop after N packets\n"
    "  --duration S         live: stop after S seconds\n"
    "\n"
    "Captures that start after the MPA startup (mid-stream):\n"
    "  -p, --port LIST      ports where MPA is assumed (comma separated, repeatable):\n"
    "                       their connections are decoded even without startup frames\n"
    "  --markers SPEC       markers in mid-stream connections: auto (default), on,\n"
    "                       off, or TO/FROM for the octets sent to / from the port,\n"
    "                       e.g. on/off\n"
    "  --crc SPEC           the same for CRCs (auto: inferred from the octets)\n"
    "\n"
    "Limits (memory stays bounded whatever the capture; the defaults keep it under\n"
    "80 MiB):\n"
    "  --max-conns N        TCP connections tracked at once (default 10000, about\n"
    "                       2.5 KiB each)\n"
    "  --max-mpa N          of those, speaking MPA (default 1000, about 32 KiB each)\n"
    "  --mem-cap MIB        TCP data held for all connections: out-of-order\n"
    "                       segments, octets waiting for the other direction or\n"
    "                       for MPA to be recognised (default 8)\n"
    "  --idle S             close a connection after S seconds of capture time\n"
    "                       without packets (default 600)\n"
    "\n"
    "Every core (see mpa-audit(1)):\n"
    "  -j, --jobs N         audit in N worker threads, each following the\n"
    "                       connections of its flow hash residues (as --shard);\n"
    "                       the inputs are read once and every report (text,\n"
    "                       --json, --jsonl) is the one of one thread, timing\n"
    "                       figures aside, unless a limit above is reached (each\n"
    "                       worker gets its share of each); -i and --shard use\n"
    "                       one thread (default 1)\n"
    "\n"
    "Many machines (see mpa-audit(1), SHARDS):\n"
    "  --shard K/N          audit only the connections whose flow hash is K modulo N\n"
    "                       (K from 0 to N-1); every packet is still read and\n"
    "                       counted. mpa-audit merge joins the N --json documents\n"
    "\n"
    "  -h, --help, --version\n"
    "\n"
    "Exit status: 0 no finding at or above --fail-on, 1 some, 2 an input that could\n"
    "not be read to its end (missing, not a capture, cut short, an unreadable\n"
    "record: the packets before the cut are reported) or a usage error.\n";

static void on_signal(int sig)
{
    (void)sig;
    input_stop();
}

static void die_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mpa-audit: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n(mpa-audit --help for the options)\n", stderr);
    exit(2);
}

static unsigned long long parse_num(const char *opt, const char *s, unsigned long long max)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || errno || v > max || s[0] == '-')
        die_usage("%s needs a whole number from 0 to %llu, not \"%s\"", opt, max, s);
    return v;
}

static uint8_t parse_tri(const char *opt, const char *s, size_t n)
{
    if (n == 2 && !strncmp(s, "on", n))
        return MPA_TRI_ON;
    if (n == 3 && !strncmp(s, "off", n))
        return MPA_TRI_OFF;
    if (n == 4 && !strncmp(s, "auto", n))
        return MPA_TRI_UNKNOWN;
    die_usage("%s takes on, off, auto or TO/FROM (e.g. on/off), not \"%s\"", opt, s);
    return 0;
}

static void parse_spec(const char *opt, const char *s, uint8_t out[2])
{
    const char *slash = strchr(s, '/');
    if (slash) {
        out[0] = parse_tri(opt, s, (size_t)(slash - s));
        out[1] = parse_tri(opt, slash + 1, strlen(slash + 1));
    } else {
        out[0] = out[1] = parse_tri(opt, s, strlen(s));
    }
}

static void parse_ports(audit_opts *o, const char *s)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        unsigned long long v = parse_num("--port", tok, 65535);
        if (v == 0)
            die_usage("--port: 0 is not a TCP port");
        if (o->nports == AUDIT_MAX_PORTS)
            die_usage("--port: at most %d ports", AUDIT_MAX_PORTS);
        o->ports[o->nports++] = (uint16_t)v;
    }
}

/* K/N: shard K (0..N-1) of N. */
static void parse_shard(const char *s, audit_opts *o)
{
    const char *slash = strchr(s, '/');
    char k[32];
    if (!slash || (size_t)(slash - s) >= sizeof k)
        die_usage("--shard takes K/N (shard K of N, K from 0 to N-1), not \"%s\"", s);
    memcpy(k, s, (size_t)(slash - s));
    k[slash - s] = 0;
    o->nshards = (unsigned)parse_num("--shard N", slash + 1, 1000000);
    o->shard = (unsigned)parse_num("--shard K", k, 1000000);
    if (!o->nshards)
        die_usage("--shard K/N: N must be at least 1");
    if (o->shard >= o->nshards)
        die_usage("--shard %s: K counts from 0 to N-1 (%u)", s, o->nshards - 1);
}

static void list_rules(void)
{
    printf("%-30s %-6s %-8s %-44s %s\n", "id", "level", "checked", "clause", "rule");
    for (unsigned id = 0; id < MPA_F__COUNT; id++) {
        const mpa_rule *r = mpa_rule_get((mpa_finding_id)id);
        const char *who = r->checked == 1 ? "yes" : r->checked == 2 ? "capture" : "no";
        printf("%-30s %-6s %-8s %-44s %s\n", r->id, r->level, who, r->clause, r->text);
    }
    printf("\nchecked: yes = judged by mpa-audit from the octets (libmpa); capture = about the capture itself,\n"
           "reported by mpa-audit; no = needs what a capture cannot show (time, the device's state):\n"
           "the conformance suites test it.\n");
}

/* What the command line asks for. */
typedef struct cli {
    audit_opts o;
    report_fmt fmt;
    const char *outfile, *iface;
    input_opts in;
    int timing;
    int fail_on; /* an mpa_severity; 3: never */
    char **files;
    int nfiles;
    int sharded;
    unsigned jobs;  /* -j */
} cli;

static void parse_args(int argc, char **argv, cli *c)
{
    memset(c, 0, sizeof *c);
    audit_opts_default(&c->o);
    c->fmt = REPORT_TEXT;
    c->timing = 1;
    c->in.progress = 1;
    c->fail_on = MPA_SEV_ERROR;
    c->jobs = 1;
    enum { O_JSON = 256, O_JSONL, O_LIST, O_FAIL, O_MARKERS, O_CRC, O_MAXF, O_MAXC, O_MAXM, O_MEM, O_IDLE, O_NOTIME,
           O_NOPROG, O_DUR, O_VERSION, O_SHARD };
    static const struct option lopts[] = {
        {"json", no_argument, NULL, O_JSON},
        {"jsonl", no_argument, NULL, O_JSONL},
        {"output", required_argument, NULL, 'o'},
        {"list-rules", no_argument, NULL, O_LIST},
        {"fail-on", required_argument, NULL, O_FAIL},
        {"port", required_argument, NULL, 'p'},
        {"markers", required_argument, NULL, O_MARKERS},
        {"crc", required_argument, NULL, O_CRC},
        {"max-findings", required_argument, NULL, O_MAXF},
        {"max-conns", required_argument, NULL, O_MAXC},
        {"max-mpa", required_argument, NULL, O_MAXM},
        {"mem-cap", required_argument, NULL, O_MEM},
        {"idle", required_argument, NULL, O_IDLE},
        {"no-timing", no_argument, NULL, O_NOTIME},
        {"no-progress", no_argument, NULL, O_NOPROG},
        {"interface", required_argument, NULL, 'i'},
        {"filter", required_argument, NULL, 'f'},
        {"count", required_argument, NULL, 'c'},
        {"duration", required_argument, NULL, O_DUR},
        {"shard", required_argument, NULL, O_SHARD},
        {"jobs", required_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, O_VERSION},
        {NULL, 0, NULL, 0},
    };
    int ch;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":o:p:i:f:c:j:h", lopts, NULL)) != -1) {
        switch (ch) {
        case O_JSON:
            c->fmt = REPORT_JSON;
            break;
        case O_JSONL:
            c->fmt = REPORT_JSONL;
            break;
        case 'o':
            c->outfile = optarg;
            break;
        case O_LIST:
            list_rules();
            exit(0);
        case O_FAIL:
            if (!strcmp(optarg, "error"))
                c->fail_on = MPA_SEV_ERROR;
            else if (!strcmp(optarg, "warning"))
                c->fail_on = MPA_SEV_WARNING;
            else if (!strcmp(optarg, "note"))
                c->fail_on = MPA_SEV_NOTE;
            else if (!strcmp(optarg, "never"))
                c->fail_on = 3;
            else
                die_usage("--fail-on takes error, warning, note or never, not \"%s\"", optarg);
            break;
        case 'p':
            parse_ports(&c->o, optarg);
            break;
        case O_MARKERS:
            parse_spec("--markers", optarg, c->o.mid_markers);
            break;
        case O_CRC:
            parse_spec("--crc", optarg, c->o.mid_crc);
            break;
        case O_MAXF:
            c->o.max_findings = (unsigned)parse_num("--max-findings", optarg, 1000000);
            break;
        case O_MAXC:
            c->o.max_conns = (unsigned)parse_num("--max-conns", optarg, 10000000);
            if (!c->o.max_conns)
                die_usage("--max-conns must be at least 1");
            break;
        case O_MAXM:
            c->o.max_mpa = (unsigned)parse_num("--max-mpa", optarg, 10000000);
            if (!c->o.max_mpa)
                die_usage("--max-mpa must be at least 1");
            break;
        case O_MEM:
            c->o.mem_cap = (size_t)parse_num("--mem-cap", optarg, 65536) << 20;
            break;
        case O_IDLE:
            c->o.idle_ns = parse_num("--idle", optarg, 100000000) * 1000000000ull;
            if (!c->o.idle_ns)
                die_usage("--idle must be at least 1 second");
            break;
        case O_NOTIME:
            c->timing = 0;
            break;
        case O_NOPROG:
            c->in.progress = 0;
            break;
        case 'i':
            c->iface = optarg;
            break;
        case 'f':
            c->in.filter = optarg;
            break;
        case 'c':
            c->in.max_count = parse_num("--count", optarg, ~0ull);
            break;
        case O_DUR:
            c->in.duration = parse_num("--duration", optarg, 100000000);
            break;
        case O_SHARD:
            parse_shard(optarg, &c->o);
            c->sharded = 1;
            break;
        case 'j':
            c->jobs = (unsigned)parse_num("-j", optarg, 256);
            if (!c->jobs)
                die_usage("-j must be at least 1");
            break;
        case 'h':
            fputs(usage, stdout);
            exit(0);
        case O_VERSION:
            prog_version(input_lib_version());
            exit(0);
        case ':':
            die_usage("%s needs a value", argv[optind - 1]);
            break;
        default:
            die_usage("unknown option %s", argv[optind - 1]);
        }
    }
    c->files = argv + optind;
    c->nfiles = argc - optind;
    if (!c->iface && c->nfiles == 0)
        die_usage("no input: name capture files (or - for stdin), or -i IFACE");
    if (c->iface && c->nfiles)
        die_usage("-i %s and files together: choose one", c->iface);
}

/* Read every input into the auditor; returns 0, 4 when an input was cut
 * short or unreadable partway (its packets before are audited), or 2
 * when one could not be used at all (the run stops there). */
static int read_inputs(audit *a, const input_sink *sink, const cli *c, const input_opts *in)
{
    if (c->iface)
        return input_live(a, c->iface, in);
    int rc = 0;
    unsigned long long total = 0;
    for (int i = 0; i < c->nfiles; i++) {
        int r = sink ? input_file_to(sink, c->files[i], in, &total) : input_file(a, c->files[i], in, &total);
        if (r == 3)
            return 3; /* a filter that does not compile: said, nothing to report */
        if (r == 2)
            return 2;
        if (r)
            rc = r;
        if (input_stopped() || (c->in.max_count && total >= c->in.max_count))
            break;
    }
    return rc;
}

/* The named files open as captures: 0, or 2 (each failure said).  An
 * input that cannot be used is said before any report is begun. */
static int check_inputs(const cli *c)
{
    int rc = 0;
    for (int i = 0; i < c->nfiles; i++)
        if (strcmp(c->files[i], "-") && input_check(c->files[i]))
            rc = 2;
    return rc;
}

/* The options that shape the report, one canonical line: shards made
 * with different ones are not merged. */
static void options_line(const cli *c, char *buf, size_t n)
{
    static const char tri[3] = {'a', '0', '1'}; /* MPA_TRI_UNKNOWN, OFF, ON */
    const audit_opts *o = &c->o;
    size_t k = (size_t)snprintf(buf, n, "ports=");
    for (unsigned i = 0; i < o->nports && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%u", i ? "," : "", o->ports[i]);
    if (k < n)
        snprintf(buf + k, n - k,
                 " markers=%c%c crc=%c%c max-findings=%u max-conns=%u max-mpa=%u mem-cap=%zu idle=%llu "
                 "count=%llu filter=%s",
                 tri[o->mid_markers[0] % 3], tri[o->mid_markers[1] % 3], tri[o->mid_crc[0] % 3],
                 tri[o->mid_crc[1] % 3], o->max_findings, o->max_conns, o->max_mpa, o->mem_cap,
                 (unsigned long long)o->idle_ns, c->in.max_count, c->in.filter ? c->in.filter : "");
}

static int run(const cli *c)
{
    if (!c->iface && check_inputs(c))
        return 2;
    FILE *out = stdout;
    if (c->outfile && !(out = fopen(c->outfile, "w"))) {
        fprintf(stderr, "mpa-audit: %s: %s\n", c->outfile, strerror(errno));
        return 2;
    }
    report *rep = report_new(out, c->fmt, c->timing);
    audit_out aout = rep ? report_sink(rep) : (audit_out){0};
    audit *a = rep ? audit_new(&c->o, &aout) : NULL;
    if (!a) {
        fprintf(stderr, "mpa-audit: out of memory\n");
        return 2;
    }
    report_bind(rep, a);
    /* -j N: the files are read here and audited by N workers; a is then
     * the run's auditor only in name (the report's). */
    jobs *jb = NULL;
    if (c->jobs > 1 && !c->iface && !c->sharded && !(jb = jobs_new(a, &aout, &c->o, c->jobs, c->fmt == REPORT_JSONL))) {
        fprintf(stderr, "mpa-audit: -j %u: cannot start the threads\n", c->jobs);
        return 2;
    }
    char opts[1024];
    if (c->sharded) {
        options_line(c, opts, sizeof opts);
        report_shard_info si = {c->o.shard, c->o.nshards, opts, c->fail_on};
        report_set_shard(rep, &si);
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    const char *live_name[1] = {c->iface};
    report_begin(rep, c->iface ? live_name : (const char *const *)c->files, c->iface ? 1u : (unsigned)c->nfiles);
    double t0 = input_now();
    int rc = read_inputs(a, jb ? jobs_sink(jb) : NULL, c, &c->in);
    if (rc == 3)
        exit(2);
    if (jb)
        jobs_finish(jb);
    else
        audit_finish(a);
    report_end(rep, input_now() - t0, rc);
    const audit_stats *s = audit_get_stats(a);
    int fail = 0;
    for (int sev = c->fail_on; sev <= MPA_SEV_ERROR; sev++)
        fail |= s->severity[sev] > 0;
    jobs_free(jb);
    audit_free(a);
    report_free(rep);
    if (prog_fclose(out, out == stdout ? "standard output" : c->outfile) != 0)
        return 2;
    if (rc)
        return 2;
    return fail ? 1 : 0;
}

/* mpa-audit merge [-o FILE] SHARD.json... */
static int merge_main(int argc, char **argv)
{
    const char *outfile = NULL;
    static const struct option lopts[] = {
        {"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    int ch;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":o:h", lopts, NULL)) != -1) {
        switch (ch) {
        case 'o':
            outfile = optarg;
            break;
        case 'h':
            fputs(usage, stdout);
            exit(0);
        case ':':
            die_usage("merge: %s needs a value", argv[optind - 1]);
            break;
        default:
            die_usage("merge: unknown option %s", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        die_usage("merge: name the --json documents of the shards (mpa-audit --json --shard K/N)");
    FILE *out = stdout;
    if (outfile && !(out = fopen(outfile, "w"))) {
        fprintf(stderr, "mpa-audit: %s: %s\n", outfile, strerror(errno));
        return 2;
    }
    int rc = audit_merge(argv + optind, argc - optind, out);
    if (prog_fclose(out, out == stdout ? "standard output" : outfile) != 0)
        return 2;
    return rc;
}

int main(int argc, char **argv)
{
    cli c;
    prog_init("mpa-audit");
    if (argc > 1 && !strcmp(argv[1], "merge"))
        return merge_main(argc - 1, argv + 1);
    parse_args(argc, argv, &c);
    return run(&c);
}

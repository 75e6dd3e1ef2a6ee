/*
 * mpa-audit: audits the MPA traffic (RFC 5044, RFC 6581) in pcap and
 * pcapng captures, or on a live interface, against the requirement
 * catalogue.  See docs/mpa-audit.1 and docs/mpa-audit-json.md.
 *
 * Capture reading is libpcap's; everything after the captured octets is
 * conformance/audit (packets, TCP, the connection table) and libmpa.
 */
#define _GNU_SOURCE /* fopencookie */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "report.h"

#define VERSION "0.2"

static const char usage[] =
    "usage: mpa-audit [options] FILE...        audit pcap/pcapng files (- reads stdin)\n"
    "       mpa-audit [options] -i IFACE        audit live traffic until interrupted\n"
    "       mpa-audit --list-rules              the requirement catalogue\n"
    "\n"
    "Finds the TCP connections that speak MPA (by their startup frames, on any port),\n"
    "decodes them and reports every place either side broke a rule of the catalogue,\n"
    "with the rule's id, severity, frame, direction and stream offset.\n"
    "\n"
    "Output:\n"
    "  --json               one JSON document (schema: docs/mpa-audit-json.md)\n"
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
    "64 MiB):\n"
    "  --max-conns N        TCP connections tracked at once (default 10000, about\n"
    "                       2.5 KiB each)\n"
    "  --max-mpa N          of those, speaking MPA (default 1000, about 18 KiB each)\n"
    "  --mem-cap MIB        TCP data held for all connections: out-of-order\n"
    "                       segments, octets waiting for the other direction or\n"
    "                       for MPA to be recognised (default 8)\n"
    "  --idle S             close a connection after S seconds of capture time\n"
    "                       without packets (default 600)\n"
    "\n"
    "  -h, --help, --version\n"
    "\n"
    "Exit status: 0 no finding at or above --fail-on, 1 some, 2 unusable input or\n"
    "usage error.\n";

static volatile sig_atomic_t g_stop;
static pcap_t *g_live;

static void on_signal(int sig)
{
    (void)sig;
    g_stop = 1;
    if (g_live)
        pcap_breakloop(g_live);
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

/* ---- progress ---------------------------------------------------------- */

typedef struct progress {
    int on;
    long long size;
    double start, last;
    FILE *fp;
} progress;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void progress_show(progress *pg, int final)
{
    if (!pg->on)
        return;
    double t = now_s();
    if (!final && t - pg->last < 0.25)
        return;
    pg->last = t;
    if (final) {
        fprintf(stderr, "\r%70s\r", "");
        return;
    }
    long long pos = ftell(pg->fp);
    if (pos < 0)
        return;
    double frac = pg->size ? (double)pos / (double)pg->size : 0;
    int w = 30, fill = (int)(frac * w);
    char bar[32];
    for (int i = 0; i < w; i++)
        bar[i] = i < fill ? '=' : ' ';
    bar[w] = 0;
    double el = t - pg->start;
    fprintf(stderr, "\r[%s] %3.0f%% %8.1f MB %6.0f MB/s ", bar, frac * 100, (double)pos / 1e6,
            el > 0 ? (double)pos / 1e6 / el : 0);
    fflush(stderr);
}

/* ---- reading ----------------------------------------------------------- */

/* libpcap answers with DLT_ values; the packet parser speaks the file
 * format's LINKTYPE_ values.  They differ only where platforms disagreed
 * (DLT_RAW is 12 or 14, LINKTYPE_RAW is 101). */
static int linktype_of(pcap_t *p)
{
    int dlt = pcap_datalink(p);
#ifdef DLT_RAW
    if (dlt == DLT_RAW)
        return 101;
#endif
    if (dlt == 12 || dlt == 14)
        return 101;
    return dlt;
}

typedef struct reader {
    audit *a;
    unsigned long long count, max_count;
    progress *pg;
    long long off;       /* byte offset when it cannot be asked (stdin, classic pcap) */
    int classic;
    FILE *fp;            /* the file, to ask where a record really ended */
    unsigned snaplen;
} reader;

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *data)
{
    reader *r = (reader *)(void *)user;
    uint64_t ts = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec; /* nanosecond precision */
    audit_packet(r->a, ts, data, h->caplen, h->len);
    r->off += 16 + (long long)h->caplen;
    /* A record longer than the snap length is cut to it by libpcap, which
     * skips the rest: caplen no longer says where the next record is. */
    if (r->classic && r->fp && h->caplen >= r->snaplen) {
        long long pos = ftell(r->fp);
        if (pos >= 0)
            r->off = pos;
    }
    r->count++;
    if ((r->count & 4095) == 0)
        progress_show(r->pg, 0);
}

/*
 * A regular file is read through a window mapped from it: the pages come
 * straight from the page cache (no read(2) copy, a system call per 2 MiB
 * rather than per buffer), and the window moves on, so the memory this
 * costs stays at the window whatever the file size.  libpcap gets an
 * ordinary stdio stream (fopencookie) and never knows.
 */
#define WINDOW (2u << 20)

typedef struct mapped {
    int fd;
    off_t size, base;     /* file size; offset of the window */
    const unsigned char *win;
    size_t wlen, pos;     /* window length; read position in it */
} mapped;

static ssize_t mapped_read(void *cookie, char *buf, size_t size)
{
    mapped *m = cookie;
    size_t done = 0;
    while (done < size) {
        if (m->pos == m->wlen) {
            if (m->win)
                munmap((void *)m->win, m->wlen);
            m->win = NULL;
            m->base += (off_t)m->wlen;
            m->pos = m->wlen = 0;
            if (m->base >= m->size)
                break;
            size_t len = m->size - m->base < (off_t)WINDOW ? (size_t)(m->size - m->base) : WINDOW;
            void *w = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, m->fd, m->base);
            if (w == MAP_FAILED)
                return done ? (ssize_t)done : -1;
            madvise(w, len, MADV_SEQUENTIAL);
            m->win = w;
            m->wlen = len;
        }
        size_t n = m->wlen - m->pos < size - done ? m->wlen - m->pos : size - done;
        memcpy(buf + done, m->win + m->pos, n);
        m->pos += n;
        done += n;
    }
    return (ssize_t)done;
}

static int mapped_close(void *cookie)
{
    mapped *m = cookie;
    if (m->win)
        munmap((void *)m->win, m->wlen);
    int rc = close(m->fd);
    free(m);
    return rc;
}

/* Offsets for ftell and pread (the progress bar, error messages). */
static int mapped_seek(void *cookie, off64_t *off, int whence)
{
    mapped *m = cookie;
    if (whence != SEEK_CUR || *off != 0)
        return -1;
    *off = m->base + (off_t)m->pos;
    return 0;
}

/* A stream for a regular file through the moving window; NULL (errno
 * set) when it cannot be opened.  *size gets its size (-1: not regular). */
static FILE *open_capture(const char *name, long long *size)
{
    int fd = open(name, O_RDONLY);
    if (fd < 0)
        return NULL;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        *size = -1;
        FILE *fp = fdopen(fd, "rb");
        if (fp)
            setvbuf(fp, NULL, _IOFBF, 1 << 20);
        return fp;
    }
    *size = (long long)sb.st_size;
    mapped *m = calloc(1, sizeof *m);
    if (!m) {
        close(fd);
        errno = ENOMEM;
        return NULL;
    }
    m->fd = fd;
    m->size = sb.st_size;
    cookie_io_functions_t io = {mapped_read, NULL, mapped_seek, mapped_close};
    FILE *fp = fopencookie(m, "rb", io);
    if (!fp) {
        free(m);
        close(fd);
        return NULL;
    }
    setvbuf(fp, NULL, _IOFBF, 1 << 18);
    return fp;
}

/* Audit one file; returns 0, or 2 when it could not be used. */
static int read_file(audit *a, const char *name, const char *filter, unsigned long long max_count,
                     unsigned long long *total, int want_progress)
{
    long long size = -1;
    FILE *fp = strcmp(name, "-") == 0 ? stdin : open_capture(name, &size);
    if (!fp) {
        fprintf(stderr, "mpa-audit: %s: %s\n", name, strerror(errno));
        return 2;
    }
    if (fp == stdin) {
        struct stat sb;
        setvbuf(fp, NULL, _IOFBF, 1 << 20);
        if (fstat(0, &sb) == 0 && S_ISREG(sb.st_mode))
            size = (long long)sb.st_size;
    }
    if (size == 0) {
        fprintf(stderr, "mpa-audit: %s: empty file, not a capture\n", name);
        if (fp != stdin)
            fclose(fp);
        return 2;
    }
    char err[PCAP_ERRBUF_SIZE] = "";
    pcap_t *p = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, err);
    if (!p) {
        fprintf(stderr, "mpa-audit: %s: not a pcap or pcapng capture (byte offset 0): %s\n", name, err);
        if (fp != stdin)
            fclose(fp);
        return 2;
    }
    if (filter) {
        struct bpf_program prog;
        if (pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) < 0 || pcap_setfilter(p, &prog) < 0) {
            fprintf(stderr, "mpa-audit: filter \"%s\": %s\n", filter, pcap_geterr(p));
            pcap_close(p);
            exit(2);
        }
        pcap_freecode(&prog);
    }
    audit_begin_file(a, name, linktype_of(p));
    progress pg = {want_progress && size >= (32 << 20) && isatty(2), size, now_s(), 0, fp};
    reader rd = {a, 0, max_count, &pg, 24, 0, fp != stdin ? fp : NULL, (unsigned)pcap_snapshot(p)};
    /* In a classic pcap file the records' offsets follow from their
     * lengths; pcapng blocks carry more, so only "near" can be said. */
    unsigned char magic[4];
    int fd = open(name, O_RDONLY);
    if (fd >= 0 && size > 0 && pread(fd, magic, 4, 0) == 4)
        rd.classic = !(magic[0] == 0x0A && magic[1] == 0x0D && magic[2] == 0x0D && magic[3] == 0x0A);
    if (fd >= 0)
        close(fd);
    int rc = 0;
    for (;;) {
        if (g_stop || (max_count && *total + rd.count >= max_count))
            break;
        int want = 256;
        if (max_count && max_count - (*total + rd.count) < (unsigned long long)want)
            want = (int)(max_count - (*total + rd.count));
        int n = pcap_dispatch(p, want, on_packet, (u_char *)&rd);
        if (n == 0)
            break; /* end of file */
        if (n == PCAP_ERROR_BREAK)
            break;
        if (n == PCAP_ERROR) {
            long long pos = fp != stdin ? ftell(fp) : -1;
            const char *msg = pcap_geterr(p);
            int cut = strstr(msg, "truncated") != NULL;
            char where[128];
            if (rd.classic)
                snprintf(where, sizeof where, "record %llu at byte offset %lld", rd.count + 1, rd.off);
            else if (pos >= 0)
                snprintf(where, sizeof where, "the block after packet %llu, near byte offset %lld", rd.count, pos);
            else
                snprintf(where, sizeof where, "after packet %llu", rd.count);
            fprintf(stderr, "mpa-audit: %s: %s in %s: %s%s\n", name, cut ? "cut short" : "unreadable", where, msg,
                    cut ? "; the packets before it are audited" : "; the rest of the file is not read");
            audit_input_problem(a, cut ? MPA_F_CAP_TRUNCATED : MPA_F_CAP_UNREADABLE, "%s: %s in %s: %s", name,
                                cut ? "file cut short" : "unreadable", where, msg);
            if (!cut)
                rc = 2;
            break;
        }
    }
    progress_show(&pg, 1);
    *total += rd.count;
    pcap_close(p); /* closes fp too */
    return rc;
}

static int read_live(audit *a, const char *iface, const char *filter, unsigned long long max_count,
                     unsigned long long duration)
{
    char err[PCAP_ERRBUF_SIZE] = "";
    pcap_t *p = pcap_create(iface, err);
    if (!p) {
        fprintf(stderr, "mpa-audit: -i %s: %s\n", iface, err);
        return 2;
    }
    pcap_set_snaplen(p, 262144);
    pcap_set_promisc(p, 1);
    pcap_set_timeout(p, 100);
    pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);
    int st = pcap_activate(p);
    if (st < 0) {
        fprintf(stderr, "mpa-audit: -i %s: %s%s\n", iface, pcap_geterr(p),
                st == PCAP_ERROR_PERM_DENIED ? " (run as root or give the program CAP_NET_RAW)" : "");
        pcap_close(p);
        return 2;
    }
    if (filter) {
        struct bpf_program prog;
        if (pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) < 0 || pcap_setfilter(p, &prog) < 0) {
            fprintf(stderr, "mpa-audit: filter \"%s\": %s\n", filter, pcap_geterr(p));
            pcap_close(p);
            return 2;
        }
        pcap_freecode(&prog);
    }
    /* Said once the capture is running (scripts wait for this line). */
    fprintf(stderr, "mpa-audit: capturing on %s%s%s%s; interrupt (Ctrl-C) to end and report\n", iface,
            filter ? " (filter \"" : "", filter ? filter : "", filter ? "\")" : "");
    char name[300];
    snprintf(name, sizeof name, "iface:%s", iface);
    audit_begin_file(a, name, linktype_of(p));
    g_live = p;
    progress pg = {0, 0, 0, 0, NULL};
    reader rd = {a, 0, max_count, &pg, 0, 0, NULL, 0};
    double t0 = now_s();
    while (!g_stop) {
        if (max_count && rd.count >= max_count)
            break;
        if (duration && now_s() - t0 >= (double)duration)
            break;
        int n = pcap_dispatch(p, max_count ? (int)(max_count - rd.count < 1000 ? max_count - rd.count : 1000) : 1000,
                              on_packet, (u_char *)&rd);
        if (n == PCAP_ERROR) {
            fprintf(stderr, "mpa-audit: -i %s: %s\n", iface, pcap_geterr(p));
            break;
        }
    }
    g_live = NULL;
    pcap_close(p);
    return 0;
}

int main(int argc, char **argv)
{
    audit_opts o;
    audit_opts_default(&o);
    report_fmt fmt = REPORT_TEXT;
    const char *outfile = NULL, *iface = NULL, *filter = NULL;
    int timing = 1, want_progress = 1;
    int fail_on = MPA_SEV_ERROR; /* 3: never */
    unsigned long long max_count = 0, duration = 0;
    enum { O_JSON = 256, O_JSONL, O_LIST, O_FAIL, O_MARKERS, O_CRC, O_MAXF, O_MAXC, O_MAXM, O_MEM, O_IDLE, O_NOTIME,
           O_NOPROG, O_DUR, O_VERSION };
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
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, O_VERSION},
        {NULL, 0, NULL, 0},
    };
    int ch;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":o:p:i:f:c:h", lopts, NULL)) != -1) {
        switch (ch) {
        case O_JSON:
            fmt = REPORT_JSON;
            break;
        case O_JSONL:
            fmt = REPORT_JSONL;
            break;
        case 'o':
            outfile = optarg;
            break;
        case O_LIST:
            list_rules();
            return 0;
        case O_FAIL:
            if (!strcmp(optarg, "error"))
                fail_on = MPA_SEV_ERROR;
            else if (!strcmp(optarg, "warning"))
                fail_on = MPA_SEV_WARNING;
            else if (!strcmp(optarg, "note"))
                fail_on = MPA_SEV_NOTE;
            else if (!strcmp(optarg, "never"))
                fail_on = 3;
            else
                die_usage("--fail-on takes error, warning, note or never, not \"%s\"", optarg);
            break;
        case 'p':
            parse_ports(&o, optarg);
            break;
        case O_MARKERS:
            parse_spec("--markers", optarg, o.mid_markers);
            break;
        case O_CRC:
            parse_spec("--crc", optarg, o.mid_crc);
            break;
        case O_MAXF:
            o.max_findings = (unsigned)parse_num("--max-findings", optarg, 1000000);
            break;
        case O_MAXC:
            o.max_conns = (unsigned)parse_num("--max-conns", optarg, 10000000);
            if (!o.max_conns)
                die_usage("--max-conns must be at least 1");
            break;
        case O_MAXM:
            o.max_mpa = (unsigned)parse_num("--max-mpa", optarg, 10000000);
            if (!o.max_mpa)
                die_usage("--max-mpa must be at least 1");
            break;
        case O_MEM:
            o.mem_cap = (size_t)parse_num("--mem-cap", optarg, 65536) << 20;
            break;
        case O_IDLE:
            o.idle_ns = parse_num("--idle", optarg, 100000000) * 1000000000ull;
            if (!o.idle_ns)
                die_usage("--idle must be at least 1 second");
            break;
        case O_NOTIME:
            timing = 0;
            break;
        case O_NOPROG:
            want_progress = 0;
            break;
        case 'i':
            iface = optarg;
            break;
        case 'f':
            filter = optarg;
            break;
        case 'c':
            max_count = parse_num("--count", optarg, ~0ull);
            break;
        case O_DUR:
            duration = parse_num("--duration", optarg, 100000000);
            break;
        case 'h':
            fputs(usage, stdout);
            return 0;
        case O_VERSION:
            printf("mpa-audit %s (libpcap: %s)\n", VERSION, pcap_lib_version());
            return 0;
        case ':':
            die_usage("%s needs a value", argv[optind - 1]);
            break;
        default:
            die_usage("unknown option %s", argv[optind - 1]);
        }
    }
    int nfiles = argc - optind;
    if (!iface && nfiles == 0)
        die_usage("no input: name capture files (or - for stdin), or -i IFACE");
    if (iface && nfiles)
        die_usage("-i %s and files together: choose one", iface);

    FILE *out = stdout;
    if (outfile && !(out = fopen(outfile, "w"))) {
        fprintf(stderr, "mpa-audit: %s: %s\n", outfile, strerror(errno));
        return 2;
    }
    report *rep = report_new(out, fmt, timing);
    audit_out aout = rep ? report_sink(rep) : (audit_out){0};
    audit *a = rep ? audit_new(&o, &aout) : NULL;
    if (!a) {
        fprintf(stderr, "mpa-audit: out of memory\n");
        return 2;
    }
    report_bind(rep, a);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    const char *live_name[1] = {iface};
    report_begin(rep, iface ? live_name : (const char *const *)(argv + optind), iface ? 1u : (unsigned)nfiles);
    double t0 = now_s();
    int rc = 0;
    unsigned long long total = 0;
    if (iface) {
        rc = read_live(a, iface, filter, max_count, duration);
    } else {
        for (int i = optind; i < argc; i++) {
            int r = read_file(a, argv[i], filter, max_count, &total, want_progress && !outfile ? 1 : want_progress);
            if (r > rc)
                rc = r;
            if (g_stop || (max_count && total >= max_count))
                break;
        }
    }
    audit_finish(a);
    report_end(rep, now_s() - t0);
    const audit_stats *s = audit_get_stats(a);
    int fail = 0;
    for (int sev = fail_on; sev <= MPA_SEV_ERROR; sev++)
        fail |= s->severity[sev] > 0;
    audit_free(a);
    report_free(rep);
    if (out != stdout && fclose(out) != 0) {
        fprintf(stderr, "mpa-audit: %s: %s\n", outfile, strerror(errno));
        return 2;
    }
    if (fflush(stdout) != 0)
        return 2;
    if (rc)
        return rc;
    return fail ? 1 : 0;
}

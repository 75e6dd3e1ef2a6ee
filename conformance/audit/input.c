/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-audit's input (input.h): capture files through libpcap, read from
 * a window mapped from the file, and live capture; each packet goes to
 * the auditor.  Where a file is unreadable or cut short, the message and
 * the finding say where (record number and byte offset).
 */
#define _GNU_SOURCE /* fopencookie */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t g_stop;
static pcap_t *g_live;

void input_stop(void)
{
    g_stop = 1;
    if (g_live)
        pcap_breakloop(g_live);
}

int input_stopped(void) { return g_stop != 0; }

const char *input_lib_version(void) { return pcap_lib_version(); }

/* ---- progress ---------------------------------------------------------- */

typedef struct progress {
    int on;
    long long size;
    double start, last;
    FILE *fp;
} progress;

double input_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The width of the terminal on standard error (80 when it says none). */
static int term_cols(void)
{
    struct winsize ws;
    if (ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}

/* One line that fits the terminal, redrawn in place: a bar of up to 30
 * columns, the share, the MB read and the rate; narrower terminals drop
 * the bar, then all but the share. */
static void progress_show(progress *pg, int final)
{
    if (!pg->on)
        return;
    double t = input_now();
    if (!final && t - pg->last < 0.25)
        return;
    pg->last = t;
    int cols = term_cols() - 1; /* the last column would wrap on some terminals */
    if (final) {
        fprintf(stderr, "\r%*s\r", cols > 0 ? cols : 0, "");
        return;
    }
    long long pos = ftell(pg->fp);
    if (pos < 0)
        return;
    double frac = pg->size ? (double)pos / (double)pg->size : 0;
    double el = t - pg->start;
    char tail[64];
    int n = snprintf(tail, sizeof tail, " %3.0f%% %8.1f MB %6.0f MB/s ", frac * 100, (double)pos / 1e6,
                     el > 0 ? (double)pos / 1e6 / el : 0);
    int w = cols - n - 2; /* the bar between [ ] */
    if (w > 30)
        w = 30;
    if (w >= 5) {
        char bar[32];
        int fill = (int)(frac * w);
        for (int i = 0; i < w; i++)
            bar[i] = i < fill ? '=' : ' ';
        bar[w] = 0;
        fprintf(stderr, "\r[%s]%s", bar, tail);
    } else if (n <= cols) {
        fprintf(stderr, "\r%s", tail);
    } else if (cols >= 5) {
        fprintf(stderr, "\r%3.0f%% ", frac * 100);
    }
    fflush(stderr);
}

/* The BPF filter (none when NULL); -1 when it does not compile (said). */
static int set_filter(pcap_t *p, const char *filter)
{
    if (!filter)
        return 0;
    struct bpf_program prog;
    if (pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) < 0 || pcap_setfilter(p, &prog) < 0) {
        fprintf(stderr, "mpa-audit: filter \"%s\": %s\n", filter, pcap_geterr(p));
        return -1;
    }
    pcap_freecode(&prog);
    return 0;
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
    unsigned ts_mul;     /* to nanoseconds: 1, or 1000 when libpcap gives microseconds */
} reader;

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *data)
{
    reader *r = (reader *)(void *)user;
    /* tv_usec holds nanoseconds when the handle has nanosecond precision. */
    uint64_t ts = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec * (r->ts_mul ? r->ts_mul : 1);
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

/*
 * Every input is read through a stdio stream of ours (fopencookie) that
 * counts the octets it hands to libpcap and keeps the first four (the
 * file's magic): so a file, a pipe and standard input all get the same
 * messages, with byte offsets, when they are cut short or unreadable.
 * A regular file is read through a window mapped from it: the pages
 * come straight from the page cache (no read(2) copy, a system call per
 * 2 MiB rather than per buffer), and the window moves on, so the memory
 * this costs stays at the window whatever the file size.  Anything else
 * (a pipe, a terminal, standard input) is read with read(2).
 */
typedef struct source {
    int fd;
    int own_fd;               /* close it at the end (not standard input) */
    off_t size;               /* of a regular file; -1 otherwise */
    uint64_t pos;             /* octets handed on so far */
    unsigned char head[4];    /* the first octets handed on */
    /* regular files: the window */
    off_t base;               /* offset of the window */
    const unsigned char *win;
    size_t wlen, wpos;        /* window length; read position in it */
} source;

static void note_head(source *m, const char *buf, size_t n)
{
    for (size_t i = 0; i < n && m->pos + i < sizeof m->head; i++)
        m->head[m->pos + i] = (unsigned char)buf[i];
    m->pos += n;
}

static ssize_t mapped_read(void *cookie, char *buf, size_t size)
{
    source *m = cookie;
    size_t done = 0;
    while (done < size) {
        if (m->wpos == m->wlen) {
            if (m->win)
                munmap((void *)m->win, m->wlen);
            m->win = NULL;
            m->base += (off_t)m->wlen;
            m->wpos = m->wlen = 0;
            if (m->base >= m->size)
                break;
            size_t len = m->size - m->base < (off_t)WINDOW ? (size_t)(m->size - m->base) : WINDOW;
            void *w = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, m->fd, m->base);
            if (w == MAP_FAILED)
                break;
            madvise(w, len, MADV_SEQUENTIAL);
            m->win = w;
            m->wlen = len;
        }
        size_t n = m->wlen - m->wpos < size - done ? m->wlen - m->wpos : size - done;
        memcpy(buf + done, m->win + m->wpos, n);
        m->wpos += n;
        done += n;
    }
    note_head(m, buf, done);
    return done || size == 0 || m->base >= m->size ? (ssize_t)done : -1;
}

static ssize_t piped_read(void *cookie, char *buf, size_t size)
{
    source *m = cookie;
    ssize_t n;
    do
        n = read(m->fd, buf, size);
    while (n < 0 && errno == EINTR);
    if (n > 0)
        note_head(m, buf, (size_t)n);
    return n;
}

static int source_close(void *cookie)
{
    source *m = cookie;
    if (m->win)
        munmap((void *)m->win, m->wlen);
    int rc = m->own_fd ? close(m->fd) : 0;
    free(m);
    return rc;
}

/* Where the reading is, for ftell (the progress bar, error messages). */
static int source_seek(void *cookie, off64_t *off, int whence)
{
    source *m = cookie;
    if (whence != SEEK_CUR || *off != 0)
        return -1;
    *off = (off64_t)m->pos;
    return 0;
}

/* A stream for name ("-": standard input); NULL (errno set) when it
 * cannot be opened.  *src is its source (size, head); it is freed with
 * the stream. */
static FILE *open_capture(const char *name, source **src)
{
    int own = strcmp(name, "-") != 0;
    int fd = own ? open(name, O_RDONLY) : 0;
    if (fd < 0)
        return NULL;
    source *m = calloc(1, sizeof *m);
    if (!m) {
        if (own)
            close(fd);
        errno = ENOMEM;
        return NULL;
    }
    m->fd = fd;
    m->own_fd = own;
    m->size = -1;
    struct stat sb;
    int regular = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);
    if (regular)
        m->size = sb.st_size;
    /* Standard input that is a regular file may have been read from
     * already: its offsets are counted from where it stands. */
    if (regular && !own && lseek(fd, 0, SEEK_CUR) != 0)
        regular = 0;
    cookie_io_functions_t io = {regular ? mapped_read : piped_read, NULL, source_seek, source_close};
    FILE *fp = fopencookie(m, "rb", io);
    if (!fp) {
        int e = errno;
        source_close(m);
        errno = e;
        return NULL;
    }
    setvbuf(fp, NULL, _IOFBF, regular ? 1 << 18 : 1 << 20);
    *src = m;
    return fp;
}

/* name opened as a capture (its file header read), *src its source;
 * NULL when it cannot be (said on stderr). */
static pcap_t *open_pcap(const char *name, source **src)
{
    FILE *fp = open_capture(name, src);
    if (!fp) {
        fprintf(stderr, "mpa-audit: %s: %s\n", name, strerror(errno));
        return NULL;
    }
    if ((*src)->size == 0) {
        fprintf(stderr, "mpa-audit: %s: empty file, not a capture\n", name);
        fclose(fp);
        return NULL;
    }
    char err[PCAP_ERRBUF_SIZE] = "";
    pcap_t *p = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, err);
    if (!p) {
        if ((*src)->pos == 0)
            fprintf(stderr, "mpa-audit: %s: empty input, not a capture\n", name);
        else
            fprintf(stderr, "mpa-audit: %s: not a pcap or pcapng capture (byte offset 0): %s\n", name, err);
        fclose(fp);
    }
    return p;
}

int input_check(const char *name)
{
    source *src = NULL;
    pcap_t *p = open_pcap(name, &src);
    if (!p)
        return 2;
    pcap_close(p); /* closes the stream too */
    return 0;
}

int input_file(audit *a, const char *name, const input_opts *o, unsigned long long *total)
{
    const char *filter = o->filter;
    unsigned long long max_count = o->max_count;
    source *src = NULL;
    pcap_t *p = open_pcap(name, &src);
    if (!p)
        return 2;
    FILE *fp = pcap_file(p);
    long long size = (long long)src->size;
    if (set_filter(p, filter)) {
        pcap_close(p);
        return 3;
    }
    audit_begin_file(a, name, linktype_of(p));
    progress pg = {o->progress && size >= (32 << 20) && isatty(2), size, input_now(), 0, fp};
    reader rd = {a, 0, max_count, &pg, 24, 0, fp, (unsigned)pcap_snapshot(p), 1};
    /* In a classic pcap file the records' offsets follow from their
     * lengths; pcapng blocks carry more, so only "near" can be said.
     * libpcap has read the file's header: its first octets are known. */
    const unsigned char *magic = src->head;
    rd.classic = !(magic[0] == 0x0A && magic[1] == 0x0D && magic[2] == 0x0D && magic[3] == 0x0A);
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
            long long pos = ftell(fp);
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
            rc = 4;
            break;
        }
    }
    progress_show(&pg, 1);
    *total += rd.count;
    pcap_close(p); /* closes fp too */
    return rc;
}

int input_live(audit *a, const char *iface, const input_opts *o)
{
    const char *filter = o->filter;
    unsigned long long max_count = o->max_count, duration = o->duration;
    char err[PCAP_ERRBUF_SIZE] = "";
    pcap_t *p = pcap_create(iface, err);
    if (!p) {
        fprintf(stderr, "mpa-audit: -i %s: %s\n", iface, err);
        return 2;
    }
    /* Before pcap_activate() these fail only on a handle that is active
     * already; an interface without nanosecond timestamps gives
     * microseconds (ts_mul below). */
    if (pcap_set_snaplen(p, 262144) != 0 || pcap_set_promisc(p, 1) != 0 || pcap_set_timeout(p, 100) != 0) {
        fprintf(stderr, "mpa-audit: -i %s: setting up the capture: %s\n", iface, pcap_geterr(p));
        pcap_close(p);
        return 2;
    }
    int nano = pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO) == 0;
    int st = pcap_activate(p);
    if (st < 0) {
        fprintf(stderr, "mpa-audit: -i %s: %s%s\n", iface, pcap_geterr(p),
                st == PCAP_ERROR_PERM_DENIED ? " (run as root or give the program CAP_NET_RAW)" : "");
        pcap_close(p);
        return 2;
    }
    if (set_filter(p, filter)) {
        pcap_close(p);
        return 2;
    }
    /* Said once the capture is running (scripts wait for this line). */
    fprintf(stderr, "mpa-audit: capturing on %s%s%s%s; interrupt (Ctrl-C) to end and report\n", iface,
            filter ? " (filter \"" : "", filter ? filter : "", filter ? "\")" : "");
    char name[300];
    snprintf(name, sizeof name, "iface:%s", iface);
    audit_begin_file(a, name, linktype_of(p));
    g_live = p;
    progress pg = {0, 0, 0, 0, NULL};
    reader rd = {a, 0, max_count, &pg, 0, 0, NULL, 0, nano && pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO ? 1 : 1000};
    double t0 = input_now();
    while (!g_stop) {
        if (max_count && rd.count >= max_count)
            break;
        if (duration && input_now() - t0 >= (double)duration)
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


/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-audit's input (input.h): capture files through libpcap, read a
 * window at a time into a buffer, and live capture; each packet goes to
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
    const uint64_t *pos; /* where the reading is when not fp (the direct reader) */
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
    long long pos = pg->pos ? (long long)*pg->pos : ftell(pg->fp);
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
static int set_filter(pcap_t *p, const char *filter, int quiet)
{
    if (!filter)
        return 0;
    struct bpf_program prog;
    if (pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) < 0 || pcap_setfilter(p, &prog) < 0) {
        if (!quiet)
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
    const input_sink *sink;
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
    r->sink->packet(r->sink->user, ts, data, h->caplen, h->len, 0);
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
 * Every input is read through a stdio stream of ours (fopencookie) that
 * counts the octets it hands to libpcap and keeps the first four (the
 * file's magic): so a file, a pipe and standard input all get the same
 * messages, with byte offsets, when they are cut short or unreadable.
 * Everything is read with read(2), into stdio's buffer (256 KiB for a
 * regular file: a system call per 256 KiB).  A regular file was once
 * mapped instead; under a hypervisor that shadows the guest's page
 * tables (a PVM guest), the first touch of every freshly mapped page
 * traps, and that made the whole audit twice as slow as copying
 * (bench/README.md, "Reading without mapping").
 */
typedef struct source {
    int fd;
    int own_fd;               /* close it at the end (not standard input) */
    off_t size;               /* of a regular file; -1 otherwise */
    uint64_t pos;             /* octets handed on so far */
    unsigned char head[4];    /* the first octets handed on */
    /* spliced: the file header, then the file from offset jump on (the
     * records the direct reader left to libpcap); read with pread */
    uint64_t jump;
} source;

static void note_head(source *m, const char *buf, size_t n)
{
    for (size_t i = 0; i < n && m->pos + i < sizeof m->head; i++)
        m->head[m->pos + i] = (unsigned char)buf[i];
    m->pos += n;
}

static ssize_t plain_read(void *cookie, char *buf, size_t size)
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

#define PCAP_FILE_HDR 24u /* a classic pcap file's header */

/* The file's header (24 octets), then the file from m->jump on; pos
 * stays the file offset of the next octet. */
static ssize_t spliced_read(void *cookie, char *buf, size_t size)
{
    source *m = cookie;
    if (m->pos == PCAP_FILE_HDR && m->jump) {
        m->pos = m->jump;
        m->jump = 0;
    }
    if (m->jump && size > PCAP_FILE_HDR - m->pos)
        size = (size_t)(PCAP_FILE_HDR - m->pos);
    ssize_t n;
    do
        n = pread(m->fd, buf, size, (off_t)m->pos);
    while (n < 0 && errno == EINTR);
    if (n > 0)
        m->pos += (uint64_t)n;
    return n;
}

static int source_close(void *cookie)
{
    source *m = cookie;
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
 * the stream.  jump (not 0): a regular file, spliced (spliced_read). */
static FILE *open_capture(const char *name, source **src, uint64_t jump)
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
    m->jump = jump;
    cookie_io_functions_t io = {jump ? spliced_read : plain_read, NULL, source_seek,
                                source_close};
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

/*
 * The direct reader: a classic pcap file (Ethernet, version 2.4, either
 * byte order, micro- or nanoseconds, no filter) is read a window at a
 * time into a buffer (DIRECT_WINDOW octets with pread, moved on and
 * used again: the memory stays flat whatever the file size), each
 * record handed to the auditor from there, without a further copy or
 * libpcap's callback.  It takes only the records libpcap would
 * hand on unchanged: whole, caplen within the snap length and the wire
 * length, timestamps that fit libpcap's signed 32-bit fields.  At the
 * first other one (cut short, over the snap length, ...) it stops and
 * libpcap reads the file from that record on (spliced_read), so what is
 * audited and every message stay libpcap's.
 */
#define DIRECT_WINDOW (2u << 20)
#define PREFETCH_AHEAD 4096u /* (1-64 KiB measured: 4 KiB the fastest, 6% off -j 1) */

static uint32_t get32(const unsigned char *b, int be)
{
    return be ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]
              : (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

typedef struct dwin {
    const unsigned char *p; /* the window's buffer (DIRECT_WINDOW octets) */
    uint64_t base;
    size_t len;
    int fd;
    /* sink->hold: the windows before, kept while the octets a record
     * handed on as held may still be read (oldest first), and the
     * buffers of those let go of, to be filled again (at most maxold
     * + 1 buffers in all) */
    const input_sink *sink;
    struct dwin *old;
    unsigned nold, maxold;
    unsigned char **spare;
    unsigned nspare;
} dwin;

static unsigned char *buf_get(dwin *w)
{
    return w->nspare ? w->spare[--w->nspare] : malloc(DIRECT_WINDOW);
}

/* (b may be NULL) */
static void buf_put(dwin *w, const unsigned char *b)
{
    if (b && w->spare && w->nspare <= w->maxold)
        w->spare[w->nspare++] = (unsigned char *)b;
    else
        free((void *)b);
}

static int fd_read(int fd, uint64_t off, uint8_t *dst, uint32_t n);

/* Let go of the windows kept that end hold octets before off (all when
 * off is UINT64_MAX, after the sink is done with them). */
static void dwin_release(dwin *w, uint64_t off)
{
    uint64_t hold = w->sink->hold;
    if (off == UINT64_MAX && w->nold && w->sink->sync)
        w->sink->sync(w->sink->user);
    unsigned k = 0;
    while (k < w->nold && (off == UINT64_MAX || w->old[k].base + w->old[k].len + hold <= off)) {
        buf_put(w, w->old[k].p);
        k++;
    }
    memmove(w->old, w->old + k, (w->nold - k) * sizeof *w->old);
    w->nold -= k;
}

/* The window moved on to hold [off, off + n): 0, or -1 when it cannot
 * be read (the file ends sooner, a read error, no memory). */
static int dwin_move(dwin *w, int fd, uint64_t size, uint64_t off, size_t n)
{
    const unsigned char *b = NULL;
    if (w->p && w->old) {
        if (w->nold == w->maxold)
            dwin_release(w, UINT64_MAX); /* (not when hold is as said) */
        w->old[w->nold++] = *w;
        dwin_release(w, off);
    } else {
        b = w->p; /* nothing holds its octets: filled again */
    }
    w->p = NULL;
    w->base = off & ~(uint64_t)4095;
    w->len = size - w->base < DIRECT_WINDOW ? (size_t)(size - w->base) : DIRECT_WINDOW;
    if (!b)
        b = buf_get(w);
    if (!b || off + n > w->base + w->len || fd_read(fd, w->base, (uint8_t *)b, (uint32_t)w->len)) {
        buf_put(w, b);
        return -1;
    }
    w->p = b;
    return 0;
}

/* The window holds [off, off + n): 0, or -1 when it cannot be read.
 * (Twice a record: the common case, inside the window, without a call.) */
static inline int dwin_cover(dwin *w, int fd, uint64_t size, uint64_t off, size_t n)
{
    if (w->p && off >= w->base && off + n <= w->base + w->len)
        return 0;
    return dwin_move(w, fd, size, off, n);
}

/* The sink's source (input_sink.source): octets of the file, from the
 * window when it holds them, else read. */
static int fd_read(int fd, uint64_t off, uint8_t *dst, uint32_t n)
{
    while (n) {
        ssize_t r = pread(fd, dst, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        dst += r;
        off += (uint64_t)r;
        n -= (uint32_t)r;
    }
    return 0;
}

static int dwin_read(void *ctx, uint64_t off, uint8_t *dst, uint32_t n)
{
    const dwin *w = ctx;
    if (w->p && off >= w->base && off + n <= w->base + w->len) {
        memcpy(dst, w->p + (off - w->base), n);
        return 0;
    }
    return fd_read(w->fd, off, dst, n);
}

/* (Only the descriptor, which the reader never changes, is read.) */
int input_source_pread(void *ctx, uint64_t off, uint8_t *dst, uint32_t n)
{
    return fd_read(((const dwin *)ctx)->fd, off, dst, n);
}

/* Reads records until the end, limit packets (0: no limit) or a stop:
 * returns 0; or the offset of the first record it leaves to libpcap. */
static uint64_t direct_read(reader *rd, const source *src, unsigned long long limit)
{
    uint64_t size = (uint64_t)src->size, off = PCAP_FILE_HDR;
    dwin w = {NULL, 0, 0, src->fd, rd->sink, NULL, 0, 0, NULL, 0};
    if (size < PCAP_FILE_HDR || dwin_cover(&w, src->fd, size, 0, PCAP_FILE_HDR))
        return PCAP_FILE_HDR; /* (libpcap has read the header: not so) */
    if (rd->sink->hold) {
        /* Windows advance by at least half their size (a record is at
         * most the snap length, 256 KiB). */
        w.maxold = (unsigned)(rd->sink->hold / (DIRECT_WINDOW / 2)) + 4;
        w.old = malloc(w.maxold * sizeof *w.old);
        w.spare = malloc((w.maxold + 1) * sizeof *w.spare);
        if (!w.old || !w.spare) { /* (left to libpcap, which copies) */
            free(w.old);
            free(w.spare);
            free((void *)w.p);
            return PCAP_FILE_HDR;
        }
    }
    int at_src = rd->sink->source && rd->sink->packet_at;
    if (at_src)
        rd->sink->source(rd->sink->user, dwin_read, &w);
    const unsigned char *h = w.p;
    int be, nano;
    if (h[0] == 0xd4 && h[1] == 0xc3 && h[2] == 0xb2 && h[3] == 0xa1)
        be = 0, nano = 0;
    else if (h[0] == 0x4d && h[1] == 0x3c && h[2] == 0xb2 && h[3] == 0xa1)
        be = 0, nano = 1;
    else if (h[0] == 0xa1 && h[1] == 0xb2 && h[2] == 0xc3 && h[3] == 0xd4)
        be = 1, nano = 0;
    else if (h[0] == 0xa1 && h[1] == 0xb2 && h[2] == 0x3c && h[3] == 0x4d)
        be = 1, nano = 1;
    else
        be = -1, nano = 0;
    uint32_t ver = be < 0 ? 0 : get32(h + 4, be);
    int v24 = be == 1 ? ver == 0x00020004u : ver == 0x00040002u; /* major 2, minor 4 */
    uint64_t snap = rd->snaplen;
    uint64_t at = 0;
    progress *pg = rd->pg;
    pg->pos = &off;
    if (be < 0 || !v24)
        at = PCAP_FILE_HDR;
    while (!at) {
        if (g_stop || (limit && rd->count >= limit) || off == size)
            break;
        if (size - off < 16 || dwin_cover(&w, src->fd, size, off, 16)) {
            at = off;
            break;
        }
        const unsigned char *r = w.p + (off - w.base);
        uint32_t sec = get32(r, be), frac = get32(r + 4, be), caplen = get32(r + 8, be), len = get32(r + 12, be);
        if (caplen > snap || caplen > len || sec >= 0x80000000u || frac >= (nano ? 0x80000000u : 2147483u) ||
            size - off - 16 < caplen || dwin_cover(&w, src->fd, size, off, 16 + (size_t)caplen)) {
            at = off;
            break;
        }
        r = w.p + (off - w.base);
        /* The octets a page further on, as many as this record has, are
         * asked for now: the packets after this one are then on their
         * way from memory while it is audited (the processor's own
         * prefetching stops at each 4 KiB page). */
        uint64_t pf = off + PREFETCH_AHEAD, pf_end = pf + 16 + caplen;
        if (pf_end > w.base + w.len)
            pf_end = w.base + w.len;
        if (rd->sink->hold) /* (-j N: the reader reads only the headers) */
            pf_end = pf + 64 < pf_end ? pf + 64 : pf_end;
        for (pf &= ~(uint64_t)63; pf < pf_end; pf += 64)
            __builtin_prefetch(w.p + (pf - w.base));
        uint64_t ts = (uint64_t)sec * 1000000000ull + (uint64_t)frac * (nano ? 1u : 1000u);
        if (at_src)
            rd->sink->packet_at(rd->sink->user, ts, r + 16, caplen, len, off + 16, w.old != NULL);
        else
            rd->sink->packet(rd->sink->user, ts, r + 16, caplen, len, w.old != NULL);
        off += 16 + (uint64_t)caplen;
        rd->count++;
        if ((rd->count & 4095) == 0)
            progress_show(pg, 0);
    }
    pg->pos = NULL;
    if (at_src)
        rd->sink->source(rd->sink->user, NULL, NULL); /* (the window and fd still there) */
    if (w.old) {
        if (w.p && w.nold == w.maxold)
            dwin_release(&w, UINT64_MAX);
        if (w.p)
            w.old[w.nold++] = w;
        dwin_release(&w, UINT64_MAX);
        free(w.old);
    } else {
        buf_put(&w, w.p);
    }
    while (w.nspare)
        free(w.spare[--w.nspare]);
    free(w.spare);
    return at;
}

/* name opened as a capture (its file header read), *src its source;
 * NULL when it cannot be (said on stderr). */
static pcap_t *open_pcap(const char *name, source **src, uint64_t jump, int quiet)
{
    FILE *fp = open_capture(name, src, jump);
    if (!fp) {
        if (!quiet)
            fprintf(stderr, "mpa-audit: %s: %s\n", name, strerror(errno));
        return NULL;
    }
    if ((*src)->size == 0) {
        if (!quiet)
            fprintf(stderr, "mpa-audit: %s: empty file, not a capture\n", name);
        fclose(fp);
        return NULL;
    }
    char err[PCAP_ERRBUF_SIZE] = "";
    pcap_t *p = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, err);
    if (!p) {
        if (quiet)
            ;
        else if ((*src)->pos == 0)
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
    pcap_t *p = open_pcap(name, &src, 0, 0);
    if (!p)
        return 2;
    pcap_close(p); /* closes the stream too */
    return 0;
}

static void to_begin(void *user, const char *name, int linktype) { audit_begin_file(user, name, linktype); }

static void to_packet(void *user, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t wirelen, int held)
{
    (void)held;
    audit_packet(user, ts_ns, data, caplen, wirelen);
}

static void to_problem(void *user, mpa_finding_id id, const char *msg) { audit_input_problem(user, id, "%s", msg); }

static void to_source(void *user, int (*read)(void *ctx, uint64_t off, uint8_t *dst, uint32_t n), void *ctx)
{
    audit_source(user, read, ctx);
}

static void to_packet_at(void *user, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t wirelen,
                         uint64_t off, int held)
{
    (void)held;
    audit_packet_at(user, ts_ns, data, caplen, wirelen, off);
}

int input_file(audit *a, const char *name, const input_opts *o, unsigned long long *total)
{
    input_sink sink = {a, to_begin, to_packet, to_problem, NULL, 0, to_source, to_packet_at};
    return input_file_to(&sink, name, o, total);
}

int input_file_to(const input_sink *sink, const char *name, const input_opts *o, unsigned long long *total)
{
    const char *filter = o->filter;
    unsigned long long max_count = o->max_count;
    source *src = NULL;
    pcap_t *p = open_pcap(name, &src, 0, o->quiet);
    if (!p)
        return 2;
    FILE *fp = pcap_file(p);
    long long size = (long long)src->size;
    if (set_filter(p, filter, o->quiet)) {
        pcap_close(p);
        return 3;
    }
    sink->begin_file(sink->user, name, linktype_of(p));
    progress pg = {!o->quiet && o->progress && size >= (32 << 20) && isatty(2), size, input_now(), 0, fp, NULL};
    reader rd = {sink, 0, max_count, &pg, 24, 0, fp, (unsigned)pcap_snapshot(p), 1};
    /* In a classic pcap file the records' offsets follow from their
     * lengths; pcapng blocks carry more, so only "near" can be said.
     * libpcap has read the file's header: its first octets are known. */
    const unsigned char *magic = src->head;
    rd.classic = !(magic[0] == 0x0A && magic[1] == 0x0D && magic[2] == 0x0D && magic[3] == 0x0A);
    int rc = 0;
    if (rd.classic && !filter && src->size > 0 && pcap_datalink(p) == DLT_EN10MB) {
        /* libpcap has said what it makes of the header (rd.snaplen): its
         * stream (a window, a buffer) is let go while the file is read. */
        int fd = dup(src->fd);
        pcap_close(p);
        source direct = {.fd = fd, .size = (off_t)size};
        uint64_t at = fd < 0 ? PCAP_FILE_HDR : direct_read(&rd, &direct, max_count ? max_count - *total : 0);
        if (fd >= 0)
            close(fd);
        if (!at) {
            progress_show(&pg, 1);
            *total += rd.count;
            return 0;
        }
        /* The rest, from the record at offset at, through libpcap. */
        p = open_pcap(name, &src, at, o->quiet);
        if (!p) {
            *total += rd.count;
            return 4;
        }
        fp = pcap_file(p);
        rd.fp = pg.fp = fp;
        pg.pos = NULL;
        rd.off = (long long)at;
    }
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
            if (!o->quiet)
                fprintf(stderr, "mpa-audit: %s: %s in %s: %s%s\n", name, cut ? "cut short" : "unreadable", where,
                        msg, cut ? "; the packets before it are audited" : "; the rest of the file is not read");
            char text[512];
            snprintf(text, sizeof text, "%s: %s in %s: %s", name, cut ? "file cut short" : "unreadable", where, msg);
            sink->problem(sink->user, cut ? MPA_F_CAP_TRUNCATED : MPA_F_CAP_UNREADABLE, text);
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
    if (set_filter(p, filter, 0)) {
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
    progress pg = {0, 0, 0, 0, NULL, NULL};
    input_sink sink = {a, to_begin, to_packet, to_problem, NULL, 0, NULL, NULL};
    reader rd = {&sink, 0, max_count, &pg, 0, 0, NULL, 0, nano && pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO ? 1 : 1000};
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


/*
 * mpa-peer: the reference MPA endpoint (RFC 5044 7.1, RFC 6581) over
 * kernel TCP sockets, either role, with fault modes that each break one
 * rule.  One thread, non-blocking sockets, epoll; every wait has a
 * deadline.  The protocol lives in conn.c, the faults in faults.c; this
 * file is options, sockets, the event loop and the output.  See
 * docs/mpa-peer.1.
 */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "peer.h"

#define EXIT_USAGE 2
#define EXIT_FAILED 3

typedef struct pconn {
    struct pconn *prev, *next; /* the deadline list, earliest first */
    int64_t deadline;
    int fd;
    uint8_t connecting;
    uint8_t closing_seen;
    uint8_t rd_held;           /* reading paused: too much unwritten */
    conn c;                    /* last: the engine is 9 KiB */
} pconn;

static peer_cfg cfg;
static int ep = -1, lfd = -1;
static pconn *dl_head, *dl_tail;
static int64_t now;
static volatile sig_atomic_t stop;
static struct sockaddr_storage dst;
static socklen_t dst_len;
static char dst_name[80];
static unsigned long started, accepted, active, finished, n_ok, n_failed, n_peer_err;
static int64_t t_first, t_last;
static uint8_t rbuf[256u << 10];
static const int listen_tag = 0;

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

/* ---- usage ----------------------------------------------------------- */

static const char usage_text[] =
    "usage: mpa-peer --listen [ADDR:]PORT | --connect HOST:PORT [options]\n"
    "\n"
    "The reference MPA endpoint (RFC 5044, RFC 6581) over TCP.  --listen is a\n"
    "Responder and --connect an Initiator unless --role says otherwise.\n"
    "\n"
    "  --listen [ADDR:]PORT   accept connections (PORT 0: any free port, printed)\n"
    "  --connect HOST:PORT    open connections (IPv6: [ADDR]:PORT)\n"
    "  --role ROLE            initiator or responder (the MPA role, not the TCP one)\n"
    "  --markers 0|1          M this end sends: markers wanted from the peer (0)\n"
    "  --crc 0|1              C this end sends (1)\n"
    "  --rev 1|2              Rev this end sends (1; 2 with --enhanced)\n"
    "  --enhanced             RFC 6581: S=1, Rev 2, the IRD/ORD field\n"
    "  --p2p                  A=1: ask for an RTR (implies --enhanced)\n"
    "  --ird N, --ord N       0..16383 (0x3FFF: no automatic negotiation) (16)\n"
    "  --rtr LIST             RTR types supported, preferred first (send,write,read)\n"
    "  --pd HEX               private data\n"
    "  --reject               a Responder replies R=1\n"
    "  --timeout-ms N         the startup timeout and every other wait (5000)\n"
    "  --send N               Sends after the startup (0); the Responder echoes them\n"
    "  --size S               octets per Send (64)\n"
    "  --count N              connections, then exit; 0 = forever\n"
    "                         (default: 1 with --connect, 0 with --listen)\n"
    "  --concurrency C        --connect: connections at once (1)\n"
    "  --stats                print startups per second at the end\n"
    "  --fault NAME           break one rule (see --list-faults)\n"
    "  --list-faults          the faults: name, roles, rule ids as Initiator / Responder\n"
    "  -q, --quiet            no per-connection lines\n"
    "  -v, --verbose          findings as they come; twice: every engine event\n"
    "  -h, --help             this text\n"
    "\n"
    "One line per connection on stdout: peer, role, end, m=sent/received\n"
    "markers, c, rev=ours/theirs, s, ird/ord/rtr, fpdus=sent/received,\n"
    "term=sent/received TERMINATE codes, findings (rule ids the engine\n"
    "reported about the other side).  Exit status: 0; 1 the other side broke\n"
    "a rule (error level); 2 usage; 3 a connection failed otherwise.\n";

static void usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "mpa-peer: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(mpa-peer --help for the options)\n");
    exit(EXIT_USAGE);
}

static unsigned long num_arg(const char *opt, const char *s, unsigned long max)
{
    char *end;
    errno = 0;
    if (!*s || *s == '-')
        usage_error("%s wants a number", opt);
    unsigned long v = strtoul(s, &end, 0);
    if (errno || *end || v > max) {
        fprintf(stderr, "mpa-peer: %s %s: not a number in 0..%lu\n", opt, s, max);
        exit(EXIT_USAGE);
    }
    return v;
}

static void parse_rtr(const char *s)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    cfg.n_rtr = 0;
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        unsigned k = !strcmp(t, "send") ? MPA_RTR_SEND : !strcmp(t, "write") ? MPA_RTR_WRITE
                     : !strcmp(t, "read")                                    ? MPA_RTR_READ
                                                                              : 0;
        if (!k)
            usage_error("--rtr: '%s' is none of send, write, read", t);
        for (unsigned i = 0; i < cfg.n_rtr; i++)
            if (cfg.rtr[i] == k)
                usage_error("--rtr: '%s' given twice", t);
        cfg.rtr[cfg.n_rtr++] = (uint8_t)k;
    }
    if (!cfg.n_rtr)
        usage_error("--rtr: %s", "no type given");
}

static void parse_pd(const char *s)
{
    size_t n = strlen(s);
    if (n % 2)
        usage_error("--pd %s: an even number of hex digits, please", s);
    if (n / 2 > MPA_PD_MAX)
        usage_error("--pd: %s", "more than 512 octets");
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1 || !strchr("0123456789abcdefABCDEF", s[2 * i]) ||
            !strchr("0123456789abcdefABCDEF", s[2 * i + 1]))
            usage_error("--pd %s: not hex", s);
        cfg.pd[i] = (uint8_t)v;
    }
    cfg.pd_len = n / 2;
}

/* "[ADDR]:PORT", "ADDR:PORT" or "PORT" (addr NULL): split in place. */
static void split_hostport(char *s, const char **addr, const char **port)
{
    *addr = NULL;
    if (s[0] == '[') {
        char *e = strchr(s, ']');
        if (!e || e[1] != ':')
            usage_error("bad address %s (IPv6: [ADDR]:PORT)", s);
        *e = 0;
        *addr = s + 1;
        *port = e + 2;
        return;
    }
    char *c = strrchr(s, ':');
    if (!c) {
        *port = s;
        return;
    }
    if (strchr(s, ':') != c)
        usage_error("bad address %s (IPv6: [ADDR]:PORT)", s);
    *c = 0;
    *addr = s;
    *port = c + 1;
}

/* name, roles, ids as Initiator, ids as Responder ("n/a": not that
 * role's fault, "-": none), what it does wrong: the man page's table. */
static void list_faults(void)
{
    for (unsigned i = 1; i < FAULT__COUNT; i++) {
        const fault_info *f = fault_get((peer_fault)i);
        printf("%s\t%s\t%s\t%s\t%s\n", f->name,
               f->roles == (FAULT_ROLE_I | FAULT_ROLE_R) ? "initiator,responder"
               : f->roles == FAULT_ROLE_I              ? "initiator"
                                                       : "responder",
               (f->roles & FAULT_ROLE_I) ? f->ids_i : "n/a", (f->roles & FAULT_ROLE_R) ? f->ids_r : "n/a",
               f->what);
    }
}

static void parse_args(int argc, char **argv)
{
    enum {
        O_LISTEN = 256, O_CONNECT, O_ROLE, O_MARKERS, O_CRC, O_REV, O_ENH, O_P2P, O_IRD, O_ORD, O_RTR, O_PD,
        O_REJECT, O_TIMEOUT, O_SEND, O_SIZE, O_COUNT, O_CONC, O_STATS, O_FAULT, O_LIST_FAULTS,
    };
    static const struct option opts[] = {
        {"listen", required_argument, 0, O_LISTEN},   {"connect", required_argument, 0, O_CONNECT},
        {"role", required_argument, 0, O_ROLE},       {"markers", required_argument, 0, O_MARKERS},
        {"crc", required_argument, 0, O_CRC},         {"rev", required_argument, 0, O_REV},
        {"enhanced", no_argument, 0, O_ENH},          {"p2p", no_argument, 0, O_P2P},
        {"ird", required_argument, 0, O_IRD},         {"ord", required_argument, 0, O_ORD},
        {"rtr", required_argument, 0, O_RTR},         {"pd", required_argument, 0, O_PD},
        {"reject", no_argument, 0, O_REJECT},         {"timeout-ms", required_argument, 0, O_TIMEOUT},
        {"send", required_argument, 0, O_SEND},       {"size", required_argument, 0, O_SIZE},
        {"count", required_argument, 0, O_COUNT},     {"concurrency", required_argument, 0, O_CONC},
        {"stats", no_argument, 0, O_STATS},           {"fault", required_argument, 0, O_FAULT},
        {"list-faults", no_argument, 0, O_LIST_FAULTS}, {"quiet", no_argument, 0, 'q'},
        {"verbose", no_argument, 0, 'v'},             {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    int have_rev = 0, have_count = 0, have_rtr = 0, have_conc = 0, have_role = 0;
    char *where = NULL;
    cfg.crc = 1;
    cfg.ird = cfg.ord = 16;
    cfg.timeout_ms = 5000;
    cfg.size = 64;
    cfg.concurrency = 1;
    cfg.rtr[0] = MPA_RTR_SEND, cfg.rtr[1] = MPA_RTR_WRITE, cfg.rtr[2] = MPA_RTR_READ;
    cfg.n_rtr = 3;
    int o;
    while ((o = getopt_long(argc, argv, "qvh", opts, NULL)) != -1) {
        switch (o) {
        case O_LISTEN:
        case O_CONNECT:
            if (where)
                usage_error("%s", "give one of --listen and --connect");
            cfg.listen = o == O_LISTEN;
            where = optarg;
            break;
        case O_ROLE:
            have_role = 1;
            if (!strcmp(optarg, "initiator"))
                cfg.role = MPA_ROLE_INITIATOR;
            else if (!strcmp(optarg, "responder"))
                cfg.role = MPA_ROLE_RESPONDER;
            else
                usage_error("--role %s: initiator or responder", optarg);
            break;
        case O_MARKERS:
            cfg.markers = (uint8_t)num_arg("--markers", optarg, 1);
            break;
        case O_CRC:
            cfg.crc = (uint8_t)num_arg("--crc", optarg, 1);
            break;
        case O_REV:
            cfg.rev = (uint8_t)num_arg("--rev", optarg, 2);
            if (!cfg.rev)
                usage_error("--rev %s: 1 or 2", optarg);
            have_rev = 1;
            break;
        case O_ENH:
            cfg.enhanced = 1;
            break;
        case O_P2P:
            cfg.p2p = cfg.enhanced = 1;
            break;
        case O_IRD:
            cfg.ird = (uint16_t)num_arg("--ird", optarg, MPA_IRD_ORD_MAX);
            break;
        case O_ORD:
            cfg.ord = (uint16_t)num_arg("--ord", optarg, MPA_IRD_ORD_MAX);
            break;
        case O_RTR:
            parse_rtr(optarg);
            have_rtr = 1;
            break;
        case O_PD:
            parse_pd(optarg);
            break;
        case O_REJECT:
            cfg.reject = 1;
            break;
        case O_TIMEOUT:
            cfg.timeout_ms = (int)num_arg("--timeout-ms", optarg, 86400000);
            if (!cfg.timeout_ms)
                usage_error("--timeout-ms %s: at least 1", optarg);
            break;
        case O_SEND:
            cfg.send_n = num_arg("--send", optarg, 1ul << 40);
            break;
        case O_SIZE:
            cfg.size = num_arg("--size", optarg, 1ul << 24);
            break;
        case O_COUNT:
            cfg.count = num_arg("--count", optarg, 1ul << 40);
            have_count = 1;
            break;
        case O_CONC:
            cfg.concurrency = (unsigned)num_arg("--concurrency", optarg, 100000);
            if (!cfg.concurrency)
                usage_error("--concurrency %s: at least 1", optarg);
            have_conc = 1;
            break;
        case O_STATS:
            cfg.stats = 1;
            break;
        case O_FAULT:
            cfg.fault = fault_find(optarg);
            if (cfg.fault == FAULT__COUNT || cfg.fault == FAULT_NONE)
                usage_error("--fault %s: no such fault (mpa-peer --list-faults)", optarg);
            break;
        case O_LIST_FAULTS:
            list_faults();
            exit(0);
        case 'q':
            cfg.quiet = 1;
            break;
        case 'v':
            cfg.verbose++;
            break;
        case 'h':
            fputs(usage_text, stdout);
            exit(0);
        default:
            fprintf(stderr, "(mpa-peer --help for the options)\n");
            exit(EXIT_USAGE);
        }
    }
    if (optind < argc)
        usage_error("unexpected argument %s", argv[optind]);
    if (!where)
        usage_error("%s", "give --listen [ADDR:]PORT or --connect HOST:PORT");
    if (!cfg.listen && !strchr(where, ':'))
        usage_error("--connect %s: HOST:PORT, please", where);
    /* a copy: ps and pgrep -f keep showing the command line as given */
    static char where_buf[300];
    if (strlen(where) >= sizeof where_buf)
        usage_error("%s: too long", where);
    strcpy(where_buf, where);
    split_hostport(where_buf, &cfg.addr, &cfg.port);
    num_arg(cfg.listen ? "--listen port" : "--connect port", cfg.port, 65535);
    if (!cfg.listen && (!cfg.addr || !*cfg.addr))
        usage_error("--connect %s: HOST:PORT", cfg.port);
    if (!have_role)
        cfg.role = cfg.listen ? MPA_ROLE_RESPONDER : MPA_ROLE_INITIATOR;
    if (!have_rev)
        cfg.rev = cfg.enhanced ? 2 : 1;
    if (cfg.enhanced && cfg.rev < 2)
        usage_error("%s", "--enhanced needs Rev 2 (RFC 6581 6): drop --rev 1");
    if (have_rtr && !cfg.enhanced)
        usage_error("%s", "--rtr needs --enhanced (RTRs are RFC 6581)");
    if (cfg.enhanced && cfg.pd_len > MPA_PD_MAX - MPA_ENH_LEN)
        usage_error("%s", "--pd: at most 508 octets with --enhanced (the IRD/ORD field takes 4)");
    if (!have_count)
        cfg.count = cfg.listen ? 0 : 1;
    if (have_conc && cfg.listen)
        usage_error("%s", "--concurrency is for --connect");
    if (cfg.reject && cfg.role != MPA_ROLE_RESPONDER)
        usage_error("%s", "--reject is for a Responder");
    if (cfg.send_n && cfg.role != MPA_ROLE_INITIATOR)
        usage_error("%s", "--send is for the Initiator: a Responder echoes what it gets");
    if (cfg.fault) {
        const fault_info *f = fault_get(cfg.fault);
        unsigned mine = cfg.role == MPA_ROLE_INITIATOR ? FAULT_ROLE_I : FAULT_ROLE_R;
        if (!(f->roles & mine)) {
            fprintf(stderr, "mpa-peer: --fault %s breaks a rule of the %s; this end is the %s (see --role)\n",
                    f->name, f->roles == FAULT_ROLE_I ? "Initiator" : "Responder",
                    cfg.role == MPA_ROLE_INITIATOR ? "Initiator" : "Responder");
            exit(EXIT_USAGE);
        }
        if ((f->needs & FAULT_NEEDS_ENH) && !cfg.enhanced)
            usage_error("--fault %s needs --enhanced", f->name);
        if ((f->needs & FAULT_NEEDS_P2P) && !cfg.p2p)
            usage_error("--fault %s needs --p2p", f->name);
        if (cfg.fault == FAULT_NO_RTR_OPTION && cfg.role == MPA_ROLE_INITIATOR && !cfg.p2p)
            usage_error("--fault %s as Initiator needs --p2p", f->name);
    }
}

/* ---- addresses ----------------------------------------------------- */

static void addr_str(const struct sockaddr *sa, char *buf, size_t cap)
{
    char h[INET6_ADDRSTRLEN];
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)(const void *)sa;
        if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
            inet_ntop(AF_INET, &s6->sin6_addr.s6_addr[12], h, sizeof h);
            snprintf(buf, cap, "%s:%u", h, ntohs(s6->sin6_port));
        } else {
            inet_ntop(AF_INET6, &s6->sin6_addr, h, sizeof h);
            snprintf(buf, cap, "[%s]:%u", h, ntohs(s6->sin6_port));
        }
    } else if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)(const void *)sa;
        inet_ntop(AF_INET, &s4->sin_addr, h, sizeof h);
        snprintf(buf, cap, "%s:%u", h, ntohs(s4->sin_port));
    } else {
        snprintf(buf, cap, "?");
    }
}

static void resolve(const char *host, const char *port, int passive, struct sockaddr_storage *out,
                    socklen_t *len)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = passive ? AI_PASSIVE : 0;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc || !res) {
        fprintf(stderr, "mpa-peer: %s: %s\n", host ? host : "*", gai_strerror(rc));
        exit(EXIT_USAGE);
    }
    memcpy(out, res->ai_addr, res->ai_addrlen);
    *len = res->ai_addrlen;
    freeaddrinfo(res);
}

static void start_listen(void)
{
    struct sockaddr_storage sa;
    socklen_t len;
    int one = 1;
    if (cfg.addr) {
        resolve(cfg.addr, cfg.port, 1, &sa, &len);
        lfd = socket(sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    } else {
        /* Both families on one socket where the host has IPv6. */
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&sa;
        memset(&sa, 0, sizeof sa);
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)strtoul(cfg.port, NULL, 0));
        len = sizeof *s6;
        lfd = socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        int zero = 0;
        if (lfd >= 0)
            setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
        if (lfd < 0) {
            struct sockaddr_in *s4 = (struct sockaddr_in *)&sa;
            memset(&sa, 0, sizeof sa);
            s4->sin_family = AF_INET;
            s4->sin_port = htons((uint16_t)strtoul(cfg.port, NULL, 0));
            len = sizeof *s4;
            lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        }
    }
    if (lfd < 0) {
        perror("mpa-peer: socket");
        exit(EXIT_FAILED);
    }
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(lfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); /* inherited by accepted sockets */
    if (bind(lfd, (struct sockaddr *)&sa, len) || listen(lfd, 4096)) {
        fprintf(stderr, "mpa-peer: listen on %s:%s: %s\n", cfg.addr ? cfg.addr : "*", cfg.port, strerror(errno));
        exit(EXIT_FAILED);
    }
    len = sizeof sa;
    getsockname(lfd, (struct sockaddr *)&sa, &len);
    char name[80];
    addr_str((struct sockaddr *)&sa, name, sizeof name);
    fprintf(stderr, "mpa-peer: listening on %s as %s\n", name, mpa_role_str(cfg.role));
    struct epoll_event e = {EPOLLIN, {.ptr = (void *)&listen_tag}};
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &e);
}

/* ---- deadlines ------------------------------------------------------- */

/* Every deadline is "now + timeout" when it is set, so appending keeps
 * the list sorted. */
static void dl_unlink(pconn *p)
{
    if (p->prev)
        p->prev->next = p->next;
    else if (dl_head == p)
        dl_head = p->next;
    if (p->next)
        p->next->prev = p->prev;
    else if (dl_tail == p)
        dl_tail = p->prev;
    p->prev = p->next = NULL;
}

static void dl_set(pconn *p)
{
    dl_unlink(p);
    p->deadline = now + cfg.timeout_ms;
    p->prev = dl_tail;
    if (dl_tail)
        dl_tail->next = p;
    else
        dl_head = p;
    dl_tail = p;
}

/* ---- connections ----------------------------------------------------- */

static void finish(pconn *p)
{
    conn *c = &p->c;
    char line[2048];
    dl_unlink(p);
    close(p->fd); /* also leaves the epoll set */
    conn_report(c, line, sizeof line);
    if (!cfg.quiet)
        puts(line);
    if (c->peer_err)
        n_peer_err++;
    if ((c->end == END_OK || c->end == END_REJECTED) && !c->bad_echo)
        n_ok++;
    else
        n_failed++;
    finished++;
    active--;
    t_last = now;
    conn_free(c);
    free(p);
}

static void do_write(pconn *p)
{
    conn *c = &p->c;
    const uint8_t *b;
    size_t n;
    while (!c->shut && (n = conn_tx_next(c, &b)) > 0) {
        ssize_t w = send(p->fd, b, n, MSG_NOSIGNAL | MSG_EOR);
        if (w > 0) {
            conn_written(c, (size_t)w);
            continue;
        }
        if (w < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        if (w < 0 && (errno == EPIPE || errno == ECONNRESET))
            conn_peer_end(c, 1);
        else
            conn_error(c);
        return;
    }
    if (c->want_shut && !c->shut && !conn_tx_next(c, &b)) {
        if (!c->peer_eof) /* else close() in finish() sends the FIN */
            shutdown(p->fd, SHUT_WR);
        conn_shut(c);
    }
}

#define RD_HOLD (1u << 20) /* unwritten octets that pause reading */

/* Edge-triggered: read until the socket is empty (a short read says so,
 * unless the peer's FIN is known to be waiting too). */
static void do_read(pconn *p, uint32_t events)
{
    conn *c = &p->c;
    while (!c->peer_eof) {
        if (c->tx.len - c->tx_wr >= RD_HOLD) {
            p->rd_held = 1; /* after() reads on once the peer takes our octets */
            return;
        }
        ssize_t r = recv(p->fd, rbuf, sizeof rbuf, 0);
        if (r > 0) {
            conn_input(c, rbuf, (size_t)r);
            if ((size_t)r < sizeof rbuf && !(events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
                return;
            continue;
        }
        if (r == 0) {
            conn_peer_end(c, 0);
            return;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN)
            return;
        if (errno == ECONNRESET)
            conn_peer_end(c, 1);
        else
            conn_error(c);
        return;
    }
}

/* After anything happened to p: write, finish, renew the deadline.
 * Returns 1 when p is gone. */
static int after(pconn *p)
{
    conn *c = &p->c;
    do_write(p);
    if (conn_done(c)) {
        finish(p);
        return 1;
    }
    if (c->progress) {
        c->progress = 0;
        dl_set(p);
    }
    if (c->phase == PH_CLOSING && !p->closing_seen) {
        p->closing_seen = 1;
        dl_set(p); /* the wait for the peer's FIN */
    }
    if (p->rd_held && c->tx.len - c->tx_wr < RD_HOLD / 2) {
        p->rd_held = 0;
        do_read(p, EPOLLRDHUP); /* no edge will come for what is waiting */
        return after(p);
    }
    return 0;
}

static pconn *new_pconn(int fd)
{
    pconn *p = malloc(sizeof *p);
    if (!p) {
        close(fd);
        return NULL;
    }
    p->prev = p->next = NULL;
    p->fd = fd;
    p->connecting = 0;
    p->closing_seen = 0;
    active++;
    if (!t_first)
        t_first = now;
    dl_set(p);
    return p;
}

/* Registered once, edge-triggered: no epoll_ctl per state change. */
static int watch(pconn *p)
{
    struct epoll_event e = {EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, {.ptr = p}};
    return epoll_ctl(ep, EPOLL_CTL_ADD, p->fd, &e);
}

/* The TCP connection is up: the MPA endpoint starts.  TCP_NODELAY comes
 * from the listening socket or was set before connect(); the MSS is
 * asked for only when an FPDU could be near it (conn.c). */
static int tcp_up(pconn *p, const struct sockaddr *peer)
{
    char name[80];
    addr_str(peer, name, sizeof name);
    conn_init(&p->c, &cfg, cfg.role, name, p->fd);
    p->connecting = 0;
    return after(p);
}

static void connect_failed(pconn *p, int err);

static void do_accept(void)
{
    while (lfd >= 0 && !stop) {
        if (cfg.count && accepted >= cfg.count) {
            epoll_ctl(ep, EPOLL_CTL_DEL, lfd, NULL);
            close(lfd);
            lfd = -1;
            return;
        }
        struct sockaddr_storage sa;
        socklen_t len = sizeof sa;
        int fd = accept4(lfd, (struct sockaddr *)&sa, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED && !cfg.quiet)
                fprintf(stderr, "mpa-peer: accept: %s\n", strerror(errno));
            return;
        }
        accepted++;
        pconn *p = new_pconn(fd);
        if (!p)
            continue;
        if (watch(p)) {
            connect_failed(p, errno);
            continue;
        }
        tcp_up(p, (struct sockaddr *)&sa);
    }
}

/* A connection that never came up: reported like the others. */
static void connect_failed(pconn *p, int err)
{
    conn *c = &p->c;
    char name[96];
    snprintf(name, sizeof name, "%s", dst_name);
    conn_init(c, &cfg, cfg.role, name, -1);
    if (!cfg.quiet)
        fprintf(stderr, "mpa-peer: connect to %s: %s\n", dst_name, strerror(err));
    conn_error(c);
    finish(p);
}

static void start_connect(void)
{
    int fd = socket(dst.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    started++;
    if (fd < 0) {
        fprintf(stderr, "mpa-peer: socket: %s\n", strerror(errno));
        stop = 1;
        return;
    }
    pconn *p = new_pconn(fd);
    if (!p)
        return;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    p->connecting = 1;
    if (watch(p)) {
        connect_failed(p, errno);
        return;
    }
    if (connect(fd, (struct sockaddr *)&dst, dst_len) == 0) {
        tcp_up(p, (struct sockaddr *)&dst);
        return;
    }
    if (errno != EINPROGRESS)
        connect_failed(p, errno);
}

static void on_io(pconn *p, uint32_t events)
{
    if (p->connecting) {
        if (events & (EPOLLERR | EPOLLHUP)) {
            int err = 0;
            socklen_t l = sizeof err;
            getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &l);
            connect_failed(p, err ? err : ECONNREFUSED);
            return;
        }
        if (!(events & EPOLLOUT))
            return;
        if (tcp_up(p, (struct sockaddr *)&dst) || !(events & (EPOLLIN | EPOLLRDHUP)))
            return;
    }
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
        do_read(p, events);
    after(p);
}

static void expire(void)
{
    while (dl_head && dl_head->deadline <= now) {
        pconn *p = dl_head;
        dl_unlink(p);
        if (p->connecting) {
            connect_failed(p, ETIMEDOUT);
            continue;
        }
        conn_timeout(&p->c);
        p->closing_seen = 0; /* one more wait: for the peer's FIN */
        after(p);
    }
}

int main(int argc, char **argv)
{
    parse_args(argc, argv);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0); /* a reader sees each connection as it ends */
    ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) {
        perror("mpa-peer: epoll_create1");
        return EXIT_FAILED;
    }
    now = mono_ms();
    if (cfg.listen) {
        start_listen();
    } else {
        resolve(cfg.addr, cfg.port, 0, &dst, &dst_len);
        addr_str((struct sockaddr *)&dst, dst_name, sizeof dst_name);
    }
    int64_t t0 = now;
    struct epoll_event evs[256];
    while (!stop) {
        if (!cfg.listen)
            while (!stop && (!cfg.count || started < cfg.count) && active < cfg.concurrency)
                start_connect();
        if (!active && (cfg.listen ? lfd < 0 : (cfg.count && started >= cfg.count)))
            break;
        int timeout = -1;
        if (dl_head)
            timeout = dl_head->deadline > now ? (int)(dl_head->deadline - now) : 0;
        int n = epoll_wait(ep, evs, 256, timeout);
        now = mono_ms();
        if (n < 0 && errno != EINTR) {
            perror("mpa-peer: epoll_wait");
            break;
        }
        for (int i = 0; i < n; i++) {
            if (evs[i].data.ptr == &listen_tag)
                do_accept();
            else
                on_io(evs[i].data.ptr, evs[i].events);
        }
        expire();
    }
    if (cfg.stats) {
        double secs = (double)((t_last > t_first ? t_last : now) - (t_first ? t_first : t0)) / 1000.0;
        printf("mpa-peer: %lu connections: %lu ok, %lu failed, %lu with findings about the peer; %.3f s, %.0f "
               "startups/s\n",
               finished, n_ok, n_failed, n_peer_err, secs, secs > 0 ? (double)n_ok / secs : 0.0);
    }
    fflush(stdout);
    if (n_peer_err)
        return 1;
    return n_failed ? EXIT_FAILED : 0;
}

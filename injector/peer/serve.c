/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-peer's serving (see peer.h): kernel TCP sockets, either role, one
 * thread, non-blocking sockets and epoll; every wait has a deadline.
 * Each connection's MPA endpoint is a conn (conn.c); this file moves
 * its octets, keeps its deadline and prints its line when it ends.
 */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
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

typedef struct pconn {
    struct pconn *prev, *next; /* the deadline list, earliest first */
    int64_t deadline;
    int fd;
    uint8_t connecting;
    uint8_t closing_seen;
    uint8_t rd_held;           /* reading paused: too much unwritten */
    conn c;                    /* last: the engine is 9 KiB */
} pconn;

static const peer_cfg *cfg;
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
    if (cfg->addr) {
        resolve(cfg->addr, cfg->port, 1, &sa, &len);
        lfd = socket(sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    } else {
        /* Both families on one socket where the host has IPv6. */
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&sa;
        memset(&sa, 0, sizeof sa);
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)strtoul(cfg->port, NULL, 0));
        len = sizeof *s6;
        lfd = socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        int zero = 0;
        if (lfd >= 0)
            setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
        if (lfd < 0) {
            struct sockaddr_in *s4 = (struct sockaddr_in *)&sa;
            memset(&sa, 0, sizeof sa);
            s4->sin_family = AF_INET;
            s4->sin_port = htons((uint16_t)strtoul(cfg->port, NULL, 0));
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
        fprintf(stderr, "mpa-peer: listen on %s:%s: %s\n", cfg->addr ? cfg->addr : "*", cfg->port, strerror(errno));
        exit(EXIT_FAILED);
    }
    len = sizeof sa;
    getsockname(lfd, (struct sockaddr *)&sa, &len);
    char name[80];
    addr_str((struct sockaddr *)&sa, name, sizeof name);
    /* -q leaves it out, unless the port was chosen here (PORT 0): then it
     * is the only way to learn it. */
    if (!cfg->quiet || strtoul(cfg->port, NULL, 0) == 0)
        fprintf(stderr, "mpa-peer: listening on %s as %s\n", name, mpa_role_str(cfg->role));
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
    p->deadline = now + cfg->timeout_ms;
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
    if (!cfg->quiet)
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

/* Out of memory for an endpoint's engine: nothing sensible goes on. */
static void out_of_memory(void)
{
    fprintf(stderr, "mpa-peer: out of memory\n");
    exit(2);
}

/* The TCP connection is up: the MPA endpoint starts.  TCP_NODELAY comes
 * from the listening socket or was set before connect(); the MSS is
 * asked for only when an FPDU could be near it (conn.c). */
static int tcp_up(pconn *p, const struct sockaddr *peer)
{
    char name[80];
    addr_str(peer, name, sizeof name);
    if (conn_init(&p->c, cfg, cfg->role, name, p->fd) < 0)
        out_of_memory();
    p->connecting = 0;
    return after(p);
}

static void connect_failed(pconn *p, int err);

static void do_accept(void)
{
    while (lfd >= 0 && !stop) {
        if (cfg->count && accepted >= cfg->count) {
            epoll_ctl(ep, EPOLL_CTL_DEL, lfd, NULL);
            close(lfd);
            lfd = -1;
            return;
        }
        struct sockaddr_storage sa;
        socklen_t len = sizeof sa;
        int fd = accept4(lfd, (struct sockaddr *)&sa, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED && !cfg->quiet)
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
    if (conn_init(c, cfg, cfg->role, name, -1) < 0)
        out_of_memory();
    if (!cfg->quiet)
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

int peer_serve(const peer_cfg *c)
{
    cfg = c;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* SIGINT and SIGTERM are let in only while waiting for events
     * (epoll_pwait): one that came between the check of stop and the wait
     * would not end the wait, and the program would sit out the next
     * deadline (up to --timeout-ms, 5 s) or forever. */
    sigset_t stopsigs, waitmask;
    sigemptyset(&stopsigs);
    sigaddset(&stopsigs, SIGINT);
    sigaddset(&stopsigs, SIGTERM);
    sigprocmask(SIG_BLOCK, &stopsigs, &waitmask);
    sigdelset(&waitmask, SIGINT);
    sigdelset(&waitmask, SIGTERM);
    setvbuf(stdout, NULL, _IOLBF, 0); /* a reader sees each connection as it ends */
    ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) {
        perror("mpa-peer: epoll_create1");
        return EXIT_FAILED;
    }
    now = mono_ms();
    if (cfg->listen) {
        start_listen();
    } else {
        resolve(cfg->addr, cfg->port, 0, &dst, &dst_len);
        addr_str((struct sockaddr *)&dst, dst_name, sizeof dst_name);
    }
    int64_t t0 = now;
    struct epoll_event evs[256];
    while (!stop) {
        if (!cfg->listen)
            while (!stop && (!cfg->count || started < cfg->count) && active < cfg->concurrency)
                start_connect();
        if (!active && (cfg->listen ? lfd < 0 : (cfg->count && started >= cfg->count)))
            break;
        int timeout = -1;
        if (dl_head)
            timeout = dl_head->deadline > now ? (int)(dl_head->deadline - now) : 0;
        int n = epoll_pwait(ep, evs, 256, timeout, &waitmask);
        now = mono_ms();
        if (n < 0 && errno != EINTR) {
            perror("mpa-peer: epoll_pwait");
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
    if (cfg->stats) {
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

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The socket transport: kernel TCP (see tp.h).
 *
 * TCP_NODELAY makes each send() leave as its own segment when it fits
 * the MSS and the window, which is as close to "one segment per write"
 * as a kernel socket gets; the raw transport is the exact one.  The
 * trace describes what the socket saw (one packet per write and per
 * read), with the connection's real addresses and ports.
 */
#define _GNU_SOURCE /* accept4 */
#include "tp_sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct sock_state {
    int fd, lfd;
    trace_flow flow;
    int have_flow;
    int eof;
} sock_state;

static int wait_fd(int fd, short ev, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - tp_now_ms();
        if (left < 0)
            left = 0;
        struct pollfd p = {fd, ev, 0};
        int n = poll(&p, 1, (int)(left > 86400000 ? 86400000 : left));
        if (n < 0 && errno == EINTR)
            return 0; /* a signal (SIGINT, SIGTERM): the caller looks at why */
        if (n <= 0)
            return n; /* 0: timeout */
        return 1;
    }
}

static void addr_str(const struct sockaddr_storage *ss, char *out, size_t n, uint8_t *raw, int *family,
                     uint16_t *port)
{
    char h[INET6_ADDRSTRLEN] = "?";
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &a->sin_addr, h, sizeof h);
        snprintf(out, n, "%s:%u", h, ntohs(a->sin_port));
        memcpy(raw, &a->sin_addr, 4);
        *family = 4;
        *port = ntohs(a->sin_port);
    } else {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
        inet_ntop(AF_INET6, &a->sin6_addr, h, sizeof h);
        snprintf(out, n, "[%s]:%u", h, ntohs(a->sin6_port));
        memcpy(raw, &a->sin6_addr, 16);
        *family = 6;
        *port = ntohs(a->sin6_port);
    }
}

static void describe(tp *t, sock_state *s, int listened)
{
    struct sockaddr_storage l, r;
    socklen_t ll = sizeof l, rl = sizeof r;
    memset(&l, 0, sizeof l);
    memset(&r, 0, sizeof r);
    getsockname(s->fd, (struct sockaddr *)&l, &ll);
    getpeername(s->fd, (struct sockaddr *)&r, &rl);
    trace_flow *f = &s->flow;
    memset(f, 0, sizeof *f);
    addr_str(&l, t->local, sizeof t->local, f->addr[TP_OUT], &f->family, &f->port[TP_OUT]);
    addr_str(&r, t->remote, sizeof t->remote, f->addr[TP_IN], &f->family, &f->port[TP_IN]);
    s->have_flow = 1;
    /* the handshake as it must have happened */
    int a = listened ? TP_IN : TP_OUT;
    trace_tcp(t->trace, f, a, TRACE_SYN, NULL, 0);
    trace_tcp(t->trace, f, !a, TRACE_SYN | TRACE_ACK, NULL, 0);
    trace_tcp(t->trace, f, a, TRACE_ACK, NULL, 0);
    f->syn_done = 1;
}

static int set_opts(int fd, char *err, size_t errlen)
{
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one)) {
        snprintf(err, errlen, "TCP_NODELAY: %s", strerror(errno));
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK)) {
        snprintf(err, errlen, "O_NONBLOCK: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static int resolve(const tp_cfg *c, const char *host, const char *port, int passive, struct addrinfo **res,
                   char *err, size_t errlen)
{
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = c->family == 4 ? AF_INET : c->family == 6 ? AF_INET6 : AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = passive ? AI_PASSIVE : 0;
    int rc = getaddrinfo(host, port, &hints, res);
    if (rc) {
        snprintf(err, errlen, "%s port %s: %s", host ? host : "*", port ? port : "?", gai_strerror(rc));
        return -1;
    }
    return 0;
}

static int s_open(tp *t, int64_t deadline, char *err, size_t errlen)
{
    sock_state *s = t->priv;
    const tp_cfg *c = &t->cfg;
    struct addrinfo *res = NULL;
    if (!c->port) {
        snprintf(err, errlen, "no port given");
        return -1;
    }
    if (c->open == TP_CONNECT) {
        if (!c->host) {
            snprintf(err, errlen, "no device address given (--target HOST:PORT)");
            return -1;
        }
        if (resolve(c, c->host, c->port, 0, &res, err, errlen))
            return -1;
        char last[300] = "no address";
        for (struct addrinfo *a = res; a; a = a->ai_next) {
            int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
            if (fd < 0) {
                snprintf(last, sizeof last, "socket: %s", strerror(errno));
                continue;
            }
            if (c->bind) {
                struct addrinfo *b = NULL;
                char e2[200];
                if (resolve(c, c->bind, "0", 1, &b, e2, sizeof e2) == 0) {
                    int bad = bind(fd, b->ai_addr, b->ai_addrlen);
                    freeaddrinfo(b);
                    if (bad) {
                        snprintf(last, sizeof last, "bind %s: %s", c->bind, strerror(errno));
                        close(fd);
                        continue;
                    }
                } else {
                    snprintf(last, sizeof last, "%s", e2);
                    close(fd);
                    continue;
                }
            }
            int rc = connect(fd, a->ai_addr, a->ai_addrlen);
            if (rc && errno == EINPROGRESS) {
                int w = wait_fd(fd, POLLOUT, deadline);
                if (w <= 0) {
                    snprintf(last, sizeof last, "connect to %s port %s: %s", c->host, c->port,
                             tp_now_ms() < deadline ? "interrupted" : "no answer in time");
                    close(fd);
                    continue;
                }
                int soerr = 0;
                socklen_t sl = sizeof soerr;
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
                rc = soerr ? -1 : 0;
                errno = soerr;
            }
            if (rc) {
                snprintf(last, sizeof last, "connect to %s port %s: %s", c->host, c->port, strerror(errno));
                close(fd);
                continue;
            }
            s->fd = fd;
            break;
        }
        freeaddrinfo(res);
        if (s->fd < 0) {
            snprintf(err, errlen, "%s", last);
            return -1;
        }
        if (set_opts(s->fd, err, errlen))
            return -1;
        describe(t, s, 0);
        return 0;
    }
    /* TP_LISTEN */
    if (resolve(c, c->host, c->port, 1, &res, err, errlen))
        return -1;
    int lfd = socket(res->ai_family, res->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, res->ai_protocol);
    if (lfd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        freeaddrinfo(res);
        return -1;
    }
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(lfd, res->ai_addr, res->ai_addrlen) || listen(lfd, 1)) {
        snprintf(err, errlen, "listen on %s port %s: %s", c->host ? c->host : "*", c->port, strerror(errno));
        close(lfd);
        freeaddrinfo(res);
        return -1;
    }
    freeaddrinfo(res);
    s->lfd = lfd;
    {
        /* where we listen (the port the kernel chose for port 0) */
        struct sockaddr_storage l;
        socklen_t ll = sizeof l;
        memset(&l, 0, sizeof l);
        if (getsockname(lfd, (struct sockaddr *)&l, &ll) == 0) {
            uint8_t raw[16];
            int fam;
            uint16_t port;
            addr_str(&l, t->local, sizeof t->local, raw, &fam, &port);
        }
    }
    if (c->on_listen)
        c->on_listen(c->on_listen_user);
    int w = wait_fd(lfd, POLLIN, deadline);
    if (w <= 0) {
        snprintf(err, errlen, tp_now_ms() < deadline ? "interrupted while waiting for the device on %s"
                                                     : "the device did not connect to %s in time",
                 t->local);
        return -1;
    }
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "accept: %s", strerror(errno));
        return -1;
    }
    close(lfd);
    s->lfd = -1;
    s->fd = fd;
    if (set_opts(fd, err, errlen))
        return -1;
    describe(t, s, 1);
    return 0;
}

static int s_send(tp *t, const uint8_t *p, size_t n, const tp_delivery *dl, int64_t deadline, char *err,
                  size_t errlen)
{
    sock_state *s = t->priv;
    if (dl && (dl->reorder || dl->duplicate || dl->reseg)) {
        snprintf(err, errlen, "reorder, duplicate and reseg need the raw transport");
        return -1;
    }
    size_t done = 0;
    while (done < n) {
        ssize_t k = send(s->fd, p + done, n - done, MSG_NOSIGNAL);
        if (k > 0) {
            trace_tcp(t->trace, &s->flow, TP_OUT, TRACE_PSH, p + done, (size_t)k);
            done += (size_t)k;
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int w = wait_fd(s->fd, POLLOUT, deadline);
            if (w <= 0) {
                snprintf(err, errlen, "the device did not take our octets in time (%zu of %zu sent): its window is "
                                      "closed", done, n);
                return -1;
            }
            continue;
        }
        snprintf(err, errlen, "send: %s (%zu of %zu octets sent)", strerror(errno), done, n);
        if (errno == ECONNRESET || errno == EPIPE)
            trace_tcp(t->trace, &s->flow, TP_IN, TRACE_RST, NULL, 0);
        return -1;
    }
    return 0;
}

static tp_rx_kind s_recv(tp *t, uint8_t *buf, size_t cap, size_t *got, int64_t deadline, char *err, size_t errlen)
{
    sock_state *s = t->priv;
    *got = 0;
    if (s->fd < 0 || s->eof) {
        /* nothing can come; the deadline is still honoured */
        int64_t left = deadline - tp_now_ms();
        if (left > 0)
            poll(NULL, 0, (int)(left > 1000 ? 1000 : left));
        return TP_RX_TIMEOUT;
    }
    int w = wait_fd(s->fd, POLLIN, deadline);
    if (w < 0) {
        snprintf(err, errlen, "poll: %s", strerror(errno));
        return TP_RX_ERROR;
    }
    if (w == 0)
        return TP_RX_TIMEOUT;
    for (;;) {
        ssize_t k = recv(s->fd, buf, cap, 0);
        if (k > 0) {
            trace_tcp(t->trace, &s->flow, TP_IN, TRACE_PSH, buf, (size_t)k);
            *got = (size_t)k;
            return TP_RX_DATA;
        }
        if (k == 0) {
            s->eof = 1;
            trace_tcp(t->trace, &s->flow, TP_IN, TRACE_FIN, NULL, 0);
            return TP_RX_FIN;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return TP_RX_TIMEOUT;
        if (errno == ECONNRESET) {
            s->eof = 1;
            trace_tcp(t->trace, &s->flow, TP_IN, TRACE_RST, NULL, 0);
            return TP_RX_RST;
        }
        snprintf(err, errlen, "recv: %s", strerror(errno));
        return TP_RX_ERROR;
    }
}

static int s_fin(tp *t, char *err, size_t errlen)
{
    sock_state *s = t->priv;
    if (shutdown(s->fd, SHUT_WR)) {
        snprintf(err, errlen, "shutdown: %s", strerror(errno));
        return -1;
    }
    trace_tcp(t->trace, &s->flow, TP_OUT, TRACE_FIN, NULL, 0);
    return 0;
}

static int s_abort(tp *t, char *err, size_t errlen)
{
    sock_state *s = t->priv;
    struct linger lg = {1, 0};
    if (setsockopt(s->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg)) {
        snprintf(err, errlen, "SO_LINGER: %s", strerror(errno));
        return -1;
    }
    close(s->fd);
    s->fd = -1;
    trace_tcp(t->trace, &s->flow, TP_OUT, TRACE_RST, NULL, 0);
    return 0;
}

static void s_destroy(tp *t)
{
    if (!t)
        return;
    sock_state *s = t->priv;
    if (s) {
        if (s->fd >= 0)
            close(s->fd);
        if (s->lfd >= 0)
            close(s->lfd);
        free(s);
    }
    free(t);
}

static const tp_ops sock_ops = {"socket", s_open, s_send, s_recv, s_fin, s_abort, s_destroy};

tp *tp_sock_new(const tp_cfg *cfg, inj_trace *trace, char *err, size_t errlen)
{
    tp *t = calloc(1, sizeof *t);
    sock_state *s = calloc(1, sizeof *s);
    if (!t || !s) {
        free(t);
        free(s);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->fd = s->lfd = -1;
    t->ops = &sock_ops;
    t->cfg = *cfg;
    t->trace = trace;
    t->priv = s;
    return t;
}

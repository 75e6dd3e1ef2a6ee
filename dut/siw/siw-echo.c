/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * siw-echo: the echo application of the siw guest (make dut-siw).
 *
 * The conformance suite's Responder tests assume that the device's
 * application sends back every Send message it receives, same length and
 * payload (conformance/suites/NOTES.md).  rping is not such an
 * application; this is, over the verbs API (librdmacm, libibverbs), so
 * that the tests judge siw's data path rather than rping's protocol.
 *
 *   siw-echo [-a ADDR] -p PORT [-v] [-k]
 *
 * It listens on ADDR:PORT (default 0.0.0.0) for iWARP connections and
 * serves any number of them, one after the other or at once:
 *   - it accepts every connection request, with IRD = the Initiator's ORD
 *     and ORD = the Initiator's IRD, each capped at what the device
 *     allows (RFC 6581's rule for a Responder that can follow), and no
 *     private data of its own;
 *   - it keeps RECV_N receive buffers of BUF_LEN octets posted; each Send
 *     that arrives (any length, zero too) goes back as one Send of the
 *     same octets;
 *   - a connection that ends (disconnect, error, flushed work requests)
 *     is torn down; the server goes on.
 * Messages go to stderr, one line each: "siw-echo: ...".  -v adds one
 * per connection-manager event, accept and end; -k sends those to the
 * kernel's log instead (/dev/kmsg, debug level: kept by dmesg, not
 * printed on the console), where they stand between the harness's test
 * marks and any kernel BUG, in the kernel's own time.  It runs until
 * killed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RECV_N 16
#define SEND_N 16
#define BUF_LEN 65536
#define MAX_CONN 32

static int verbose;
static int kmsg = -1; /* -k: /dev/kmsg */

static void msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (kmsg >= 0) {
        /* one write is one record; <7>: debug, off the console */
        char line[512];
        int n = snprintf(line, sizeof line, "<7>siw-echo: ");
        n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
        if (n >= (int)sizeof line)
            n = (int)sizeof line - 1;
        if (write(kmsg, line, (size_t)n) < 0) { /* nothing better to do */
        }
    } else {
        fputs("siw-echo: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
    }
    va_end(ap);
}

struct conn {
    struct rdma_cm_id *id;
    struct ibv_pd *pd;
    struct ibv_comp_channel *ch;
    struct ibv_cq *cq;
    struct ibv_mr *rmr, *smr;
    uint8_t *rbuf, *sbuf;   /* RECV_N and SEND_N slots of BUF_LEN */
    uint8_t send_busy[SEND_N];
    int qp_made, dead;
    unsigned long echoed, dropped;
};

static struct conn *conns[MAX_CONN];

static struct conn *conn_of(struct rdma_cm_id *id)
{
    for (int i = 0; i < MAX_CONN; i++)
        if (conns[i] && conns[i]->id == id)
            return conns[i];
    return NULL;
}

/* Frees what conn_setup made; the cm_id too when destroy_id. */
static void conn_free(struct conn *c, int destroy_id)
{
    if (c->qp_made)
        rdma_destroy_qp(c->id);
    if (c->rmr)
        ibv_dereg_mr(c->rmr);
    if (c->smr)
        ibv_dereg_mr(c->smr);
    if (c->cq)
        ibv_destroy_cq(c->cq);
    if (c->ch)
        ibv_destroy_comp_channel(c->ch);
    if (c->pd)
        ibv_dealloc_pd(c->pd);
    free(c->rbuf);
    free(c->sbuf);
    if (destroy_id)
        rdma_destroy_id(c->id);
    for (int i = 0; i < MAX_CONN; i++)
        if (conns[i] == c)
            conns[i] = NULL;
    free(c);
}

static int post_recv(struct conn *c, unsigned slot)
{
    struct ibv_sge sge = {
        .addr = (uintptr_t)(c->rbuf + (size_t)slot * BUF_LEN),
        .length = BUF_LEN,
        .lkey = c->rmr->lkey,
    };
    struct ibv_recv_wr wr = {.wr_id = slot, .sg_list = &sge, .num_sge = 1}, *bad;
    int rc = ibv_post_recv(c->id->qp, &wr, &bad);
    if (rc)
        msg("post_recv: %s", strerror(rc));
    return rc;
}

/* The connection request on id: a QP, buffers, receives posted, accept. */
static int conn_setup(struct rdma_cm_id *id, const struct rdma_conn_param *req)
{
    int slot = -1;
    for (int i = 0; i < MAX_CONN; i++)
        if (!conns[i]) {
            slot = i;
            break;
        }
    if (slot < 0) {
        msg("too many connections (%d): rejecting", MAX_CONN);
        return -1;
    }
    struct conn *c = calloc(1, sizeof *c);
    if (!c)
        return -1;
    c->id = id;
    conns[slot] = c;
    struct ibv_device_attr da;
    if (ibv_query_device(id->verbs, &da)) {
        msg("ibv_query_device: %s", strerror(errno));
        goto fail;
    }
    c->pd = ibv_alloc_pd(id->verbs);
    c->ch = c->pd ? ibv_create_comp_channel(id->verbs) : NULL;
    c->cq = c->ch ? ibv_create_cq(id->verbs, RECV_N + SEND_N, c, c->ch, 0) : NULL;
    if (!c->cq) {
        msg("pd/channel/cq: %s", strerror(errno));
        goto fail;
    }
    fcntl(c->ch->fd, F_SETFL, fcntl(c->ch->fd, F_GETFL) | O_NONBLOCK);
    if (ibv_req_notify_cq(c->cq, 0)) {
        msg("ibv_req_notify_cq failed");
        goto fail;
    }
    c->rbuf = malloc((size_t)RECV_N * BUF_LEN);
    c->sbuf = malloc((size_t)SEND_N * BUF_LEN);
    if (!c->rbuf || !c->sbuf)
        goto fail;
    c->rmr = ibv_reg_mr(c->pd, c->rbuf, (size_t)RECV_N * BUF_LEN, IBV_ACCESS_LOCAL_WRITE);
    c->smr = ibv_reg_mr(c->pd, c->sbuf, (size_t)SEND_N * BUF_LEN, IBV_ACCESS_LOCAL_WRITE);
    if (!c->rmr || !c->smr) {
        msg("ibv_reg_mr: %s", strerror(errno));
        goto fail;
    }
    struct ibv_qp_init_attr qa = {
        .send_cq = c->cq,
        .recv_cq = c->cq,
        .cap = {.max_send_wr = SEND_N, .max_recv_wr = RECV_N, .max_send_sge = 1, .max_recv_sge = 1},
        .qp_type = IBV_QPT_RC,
    };
    if (rdma_create_qp(id, c->pd, &qa)) {
        msg("rdma_create_qp: %s", strerror(errno));
        goto fail;
    }
    c->qp_made = 1;
    for (unsigned i = 0; i < RECV_N; i++)
        if (post_recv(c, i))
            goto fail;
    /* IRD/ORD: the Initiator's ORD and IRD, as far as the device goes. */
    unsigned ird = req->initiator_depth, ord = req->responder_resources;
    if (ird > (unsigned)da.max_qp_rd_atom)
        ird = (unsigned)da.max_qp_rd_atom;
    if (ord > (unsigned)da.max_qp_init_rd_atom)
        ord = (unsigned)da.max_qp_init_rd_atom;
    struct rdma_conn_param cp = {
        .responder_resources = (uint8_t)(ird > 255 ? 255 : ird),
        .initiator_depth = (uint8_t)(ord > 255 ? 255 : ord),
    };
    if (rdma_accept(id, &cp)) {
        msg("rdma_accept: %s", strerror(errno));
        goto fail;
    }
    if (verbose)
        msg("accepted (peer IRD %u ORD %u; ours IRD %u ORD %u)", req->responder_resources,
            req->initiator_depth, cp.responder_resources, cp.initiator_depth);
    return 0;
fail:
    conn_free(c, 0);
    return -1;
}

static void echo(struct conn *c, unsigned rslot, uint32_t len)
{
    unsigned s;
    for (s = 0; s < SEND_N && c->send_busy[s]; s++)
        ;
    if (s == SEND_N) {
        c->dropped++;
        msg("no free send slot: a Send of %u octets not echoed", len);
        return;
    }
    memcpy(c->sbuf + (size_t)s * BUF_LEN, c->rbuf + (size_t)rslot * BUF_LEN, len);
    struct ibv_sge sge = {.addr = (uintptr_t)(c->sbuf + (size_t)s * BUF_LEN), .length = len, .lkey = c->smr->lkey};
    struct ibv_send_wr wr = {
        .wr_id = s, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
    }, *bad;
    int rc = ibv_post_send(c->id->qp, &wr, &bad);
    if (rc) {
        msg("post_send: %s", strerror(rc));
        c->dropped++;
        return;
    }
    c->send_busy[s] = 1;
    c->echoed++;
}

static void on_cq(struct conn *c)
{
    struct ibv_cq *cq;
    void *ctx;
    if (ibv_get_cq_event(c->ch, &cq, &ctx))
        return;
    ibv_ack_cq_events(cq, 1);
    if (ibv_req_notify_cq(cq, 0))
        msg("ibv_req_notify_cq failed");
    struct ibv_wc wc[16];
    int n;
    while ((n = ibv_poll_cq(cq, 16, wc)) > 0) {
        for (int i = 0; i < n; i++) {
            if (wc[i].status != IBV_WC_SUCCESS) {
                if (!c->dead && verbose)
                    msg("work request %s: %s", wc[i].opcode & IBV_WC_RECV ? "recv" : "send",
                        ibv_wc_status_str(wc[i].status));
                c->dead = 1;
                continue;
            }
            if (wc[i].opcode & IBV_WC_RECV) {
                if (!c->dead) {
                    echo(c, (unsigned)wc[i].wr_id, wc[i].byte_len);
                    post_recv(c, (unsigned)wc[i].wr_id);
                }
            } else if (wc[i].wr_id < SEND_N) {
                c->send_busy[wc[i].wr_id] = 0;
            }
        }
    }
}

int main(int argc, char **argv)
{
    const char *addr = "0.0.0.0";
    int port = 0, o;
    while ((o = getopt(argc, argv, "a:p:vkh")) != -1) {
        switch (o) {
        case 'a': addr = optarg; break;
        case 'p': port = atoi(optarg); break;
        case 'v': verbose = 1; break;
        case 'k':
            if ((kmsg = open("/dev/kmsg", O_WRONLY | O_CLOEXEC)) < 0) {
                fprintf(stderr, "siw-echo: /dev/kmsg: %s\n", strerror(errno));
                return 1;
            }
            break;
        default:
            fprintf(stderr, "usage: siw-echo [-a ADDR] -p PORT [-v] [-k]\n");
            return o == 'h' ? 0 : 2;
        }
    }
    if (port <= 0 || port > 65535) {
        fprintf(stderr, "siw-echo: -p PORT (1-65535) is needed\n");
        return 2;
    }
    /* IPv4 (-a 0.0.0.0, the default) or IPv6 (-a ::) */
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};
    struct sockaddr *sa = (struct sockaddr *)&sin;
    if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1) {
        if (inet_pton(AF_INET6, addr, &sin6.sin6_addr) != 1) {
            fprintf(stderr, "siw-echo: -a %s is neither an IPv4 nor an IPv6 address\n", addr);
            return 2;
        }
        sa = (struct sockaddr *)&sin6;
    }
    struct rdma_event_channel *ech = rdma_create_event_channel();
    struct rdma_cm_id *lid = NULL;
    if (!ech || rdma_create_id(ech, &lid, NULL, RDMA_PS_TCP) || rdma_bind_addr(lid, sa) ||
        rdma_listen(lid, 16)) {
        msg("cannot listen on %s:%d: %s", addr, port, strerror(errno));
        return 1;
    }
    msg("listening on %s:%d", addr, port);
    for (;;) {
        struct pollfd pf[MAX_CONN + 1];
        struct conn *who[MAX_CONN + 1];
        int n = 0;
        pf[n] = (struct pollfd){.fd = ech->fd, .events = POLLIN};
        who[n++] = NULL;
        for (int i = 0; i < MAX_CONN; i++)
            if (conns[i] && conns[i]->ch) {
                pf[n] = (struct pollfd){.fd = conns[i]->ch->fd, .events = POLLIN};
                who[n++] = conns[i];
            }
        if (poll(pf, (nfds_t)n, -1) < 0) {
            if (errno == EINTR)
                continue;
            msg("poll: %s", strerror(errno));
            return 1;
        }
        for (int i = 1; i < n; i++)
            if (pf[i].revents & POLLIN)
                on_cq(who[i]);
        if (!(pf[0].revents & POLLIN))
            continue;
        struct rdma_cm_event *ev;
        if (rdma_get_cm_event(ech, &ev)) {
            msg("rdma_get_cm_event: %s", strerror(errno));
            continue;
        }
        struct rdma_cm_id *id = ev->id;
        enum rdma_cm_event_type type = ev->event;
        int rc = 0;
        if (verbose)
            msg("event %s", rdma_event_str(type));
        switch (type) {
        case RDMA_CM_EVENT_CONNECT_REQUEST:
            rc = conn_setup(id, &ev->param.conn);
            if (rc)
                rdma_reject(id, NULL, 0);
            rdma_ack_cm_event(ev);
            if (rc)
                rdma_destroy_id(id);
            break;
        case RDMA_CM_EVENT_ESTABLISHED:
            rdma_ack_cm_event(ev);
            break;
        case RDMA_CM_EVENT_DISCONNECTED:
        case RDMA_CM_EVENT_CONNECT_ERROR:
        case RDMA_CM_EVENT_UNREACHABLE:
        case RDMA_CM_EVENT_REJECTED:
        case RDMA_CM_EVENT_TIMEWAIT_EXIT: {
            struct conn *c = conn_of(id);
            rdma_ack_cm_event(ev);
            if (c) {
                if (type == RDMA_CM_EVENT_DISCONNECTED)
                    rdma_disconnect(id);
                if (verbose)
                    msg("connection ends (%s): %lu echoed, %lu not", rdma_event_str(type), c->echoed, c->dropped);
                conn_free(c, 1);
            }
            break;
        }
        case RDMA_CM_EVENT_DEVICE_REMOVAL:
            rdma_ack_cm_event(ev);
            msg("the device went away");
            return 1;
        default:
            rdma_ack_cm_event(ev);
            break;
        }
    }
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mpa-inject's pcapng trace; see trace.h. */
#include "trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capw.h"
#include "net.h"

struct inj_trace {
    capw w;
    char *label;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

inj_trace *trace_open(const char *path, char *err, size_t errlen)
{
    inj_trace *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (capw_open(&t->w, path, CAPW_PCAPNG, LINK_RAW, 0, "mpa-inject") != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        free(t);
        return NULL;
    }
    return t;
}

void trace_label(inj_trace *t, const char *label)
{
    if (!t)
        return;
    free(t->label);
    t->label = label ? strdup(label) : NULL;
}

void trace_ip(inj_trace *t, const uint8_t *pkt, size_t len)
{
    if (!t || !len)
        return;
    if (len > 65535)
        len = 65535;
    uint8_t *p = capw_begin(&t->w, len);
    memcpy(p, pkt, len);
    capw_commit(&t->w, now_ns(), len, t->label);
}

void trace_tcp(inj_trace *t, trace_flow *f, int dir, unsigned flags, const uint8_t *p, size_t len)
{
    if (!t || !f)
        return;
    netpath np;
    net_path_init(&np, LINK_RAW, f->family, 1, 2);
    memcpy(np.addr, f->addr, sizeof np.addr);
    /* A write or read larger than an IP packet holds is shown as
     * several segments. */
    size_t room = net_ip_room(&np) - 20;
    if (room > 65000)
        room = 65000;
    size_t done = 0;
    do {
        size_t n = len - done < room ? len - done : room;
        tcpseg s;
        memset(&s, 0, sizeof s);
        s.sport = f->port[dir];
        s.dport = f->port[!dir];
        s.seq = f->next_seq[dir];
        s.ack = f->next_seq[!dir];
        s.flags = (uint8_t)flags;
        if (done + n < len)
            s.flags &= (uint8_t)~(TRACE_FIN | TRACE_PSH);
        /* After the handshake every segment but a RST acknowledges. */
        if (f->syn_done && !(s.flags & TRACE_RST))
            s.flags |= TRACE_ACK;
        s.win = 65535;
        s.wscale = -1;
        if (s.flags & TRACE_SYN)
            s.mss = 1460;
        net_tcp(&t->w, &np, dir, now_ns(), &s, p ? p + done : NULL, n, 0, 0, t->label);
        f->next_seq[dir] += (uint32_t)n + ((s.flags & TRACE_SYN) ? 1u : 0u) + ((s.flags & TRACE_FIN) ? 1u : 0u);
        done += n;
    } while (done < len);
}

uint64_t trace_packets(const inj_trace *t)
{
    return t ? t->w.packets : 0;
}

int trace_close(inj_trace *t, char *err, size_t errlen)
{
    if (!t)
        return 0;
    int rc = capw_close(&t->w);
    if (rc != 0)
        snprintf(err, errlen, "writing the trace: %s", strerror(errno));
    free(t->label);
    free(t);
    return rc;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The raw transport (injector/inject/tp_raw.c) in the lab
 * (injector/inject/netns.h): what a scenario cannot reach.
 *
 *   lost pieces     tp_raw_test_drop() loses first transmissions; RFC 6298
 *                   5.4-5.6: the retransmission timer recovers them
 *                   (go-back-N from SND.UNA), the device's echo is whole
 *                   and the trace shows the first transmission missing and
 *                   the retransmission after the later pieces;
 *   delivery        reorder + duplicate + reseg on one send: the exact
 *                   segments in the trace, the echo whole;
 *   garbage         malformed ARP / ND / TCP frames (bad lengths, data
 *                   offsets, ND option lengths, fragments) sent to us in
 *                   the middle of the connection: nothing crashes (ASan),
 *                   the connection goes on unharmed;
 *   FIN, RST        the device's FIN after its data; its RST after its
 *                   data (data first, then TP_RX_RST);
 *   lab             names, addresses, cleanup (no namespace left).
 * IPv4 and IPv6.  The device is this program again, run in the lab's
 * device namespace as a kernel TCP echo server:
 *
 *   test_raw --echo ADDR PORT [rst]   (internal) one connection: echo
 *                                     until EOF then close; with rst:
 *                                     echo the first read, then reset
 *
 * Needs root (namespaces, packet sockets): exits 77, skipped, without it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netns.h"
#include "t.h"
#include "tp_pick.h"
#include "tp_raw.h"

/* ---- the device: a kernel echo server ------------------------------------ */

static int echo_main(const char *addr, const char *port, int rst)
{
    alarm(30);
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t sl;
    struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
        s4->sin_family = AF_INET;
        s4->sin_port = htons((uint16_t)atoi(port));
        sl = sizeof *s4;
    } else if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)atoi(port));
        sl = sizeof *s6;
    } else {
        fprintf(stderr, "echo: %s: not an address\n", addr);
        return 2;
    }
    int l = socket(ss.ss_family, SOCK_STREAM, 0), one = 1;
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (l < 0 || bind(l, (struct sockaddr *)&ss, sl) || listen(l, 1)) {
        fprintf(stderr, "echo: listen on %s port %s: %s\n", addr, port, strerror(errno));
        return 2;
    }
    int c = accept(l, NULL, NULL);
    if (c < 0)
        return 2;
    uint8_t buf[4096];
    for (;;) {
        ssize_t k = read(c, buf, sizeof buf);
        if (k <= 0)
            break;
        for (ssize_t o = 0; o < k;) {
            ssize_t w = write(c, buf + o, (size_t)(k - o));
            if (w <= 0)
                return 1;
            o += w;
        }
        if (rst) {
            usleep(50000);
            struct linger lg = {1, 0};
            setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
            close(c);
            return 0;
        }
    }
    shutdown(c, SHUT_WR);
    usleep(200000);
    close(c);
    return 0;
}

/* ---- helpers --------------------------------------------------------------- */

static netns_lab lab;
static char self[4096];
static char tmpdir[64];

static void down(void)
{
    netns_lab_down(&lab);
}

static int start_echo(const char *addr, const char *port, int rst)
{
    char cmd[5000], err[400];
    snprintf(cmd, sizeof cmd, "exec '%s' --echo %s %s%s", self, addr, port, rst ? " rst" : "");
    if (netns_lab_spawn(&lab, cmd, err, sizeof err) <= 0) {
        fprintf(stderr, "spawn: %s\n", err);
        return -1;
    }
    for (int i = 0; i < 300; i++) {
        if (netns_lab_port_open(&lab, addr, port))
            return 0;
        usleep(10000);
    }
    fprintf(stderr, "the echo server did not listen on %s port %s\n", addr, port);
    return -1;
}

static tp *open_raw(int fam, const char *port, const char *trace_path, inj_trace **tr)
{
    char err[400];
    tp_cfg c;
    memset(&c, 0, sizeof c);
    c.open = TP_CONNECT;
    c.host = fam == 4 ? lab.dut_addr4 : lab.dut_addr6;
    c.port = port;
    c.iface = lab.veth_inj;
    c.src_addr = fam == 4 ? lab.raw_addr4 : lab.raw_addr6;
    c.isn = 1000;
    c.mss = 500;
    c.rto_ms = 100;
    *tr = trace_open(trace_path, err, sizeof err);
    T_CHECK(*tr != NULL, "trace_open: %s", err);
    tp *t = tp_new("raw", &c, *tr, err, sizeof err);
    T_CHECK(t != NULL, "tp_new: %s", err);
    if (!t)
        return NULL;
    int rc = t->ops->open(t, tp_now_ms() + 3000, err, sizeof err);
    T_CHECK(rc == 0, "open: %s", err);
    if (rc) {
        t->ops->destroy(t);
        return NULL;
    }
    return t;
}

/* Receive until `want` octets came (or anything but data, or 5 s). */
static size_t recv_n(tp *t, uint8_t *buf, size_t want, tp_rx_kind *last)
{
    size_t got = 0;
    int64_t deadline = tp_now_ms() + 5000;
    char err[400] = "";
    *last = TP_RX_TIMEOUT;
    while (got < want) {
        size_t k = 0;
        tp_rx_kind r = t->ops->recv(t, buf + got, want - got, &k, deadline, err, sizeof err);
        *last = r;
        if (r != TP_RX_DATA) {
            if (r == TP_RX_ERROR)
                fprintf(stderr, "recv: %s\n", err);
            break;
        }
        got += k;
    }
    return got;
}

/* Our data segments in a trace: (seq - base, len), in order. */
typedef struct seg {
    uint32_t rel;
    uint32_t len;
} seg;

static size_t our_segments(const char *path, int fam, uint32_t base, seg *out, size_t cap)
{
    char eb[PCAP_ERRBUF_SIZE];
    pcap_t *p = pcap_open_offline(path, eb);
    T_CHECK(p != NULL, "%s: %s", path, eb);
    if (!p)
        return 0;
    uint8_t me[16];
    inet_pton(fam == 4 ? AF_INET : AF_INET6, fam == 4 ? lab.raw_addr4 : lab.raw_addr6, me);
    struct pcap_pkthdr *h;
    const u_char *d;
    size_t n = 0;
    while (pcap_next_ex(p, &h, &d) == 1 && n < cap) {
        size_t hl, plen;
        const uint8_t *src;
        if (h->caplen < 40)
            continue;
        if (d[0] >> 4 == 4) {
            hl = (size_t)(d[0] & 15) * 4;
            plen = (size_t)(d[2] << 8 | d[3]);
            src = d + 12;
            if (memcmp(src, me, 4))
                continue;
        } else {
            hl = 40;
            plen = 40 + (size_t)(d[4] << 8 | d[5]);
            src = d + 8;
            if (memcmp(src, me, 16))
                continue;
        }
        if (plen > h->caplen || plen < hl + 20)
            continue;
        const uint8_t *tcp = d + hl;
        size_t doff = (size_t)(tcp[12] >> 4) * 4;
        uint32_t seq = (uint32_t)tcp[4] << 24 | (uint32_t)tcp[5] << 16 | (uint32_t)tcp[6] << 8 | tcp[7];
        if (plen - hl > doff)
            out[n++] = (seg){seq - base, (uint32_t)(plen - hl - doff)};
    }
    pcap_close(p);
    return n;
}

static void fmt_segs(const seg *s, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = 0;
    for (size_t i = 0; i < n && o < cap; i++) {
        int k = snprintf(out + o, cap - o, "%s%u+%u", i ? " " : "", s[i].rel, s[i].len);
        if (k < 0)
            break;
        o += (size_t)k;
    }
}

/* ---- garbage ------------------------------------------------------------------ */

static uint32_t rng = 2463534242u;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* In the window (a few octets past RCV.NXT), ACK set and current, no
 * SYN, no RST. */
static void put_seq_ack(uint8_t *t, uint32_t dev_nxt, uint32_t our_nxt)
{
    uint32_t seq = dev_nxt + rnd() % 64;
    for (int i = 0; i < 4; i++) {
        t[4 + i] = (uint8_t)(seq >> (24 - 8 * i));
        t[8 + i] = (uint8_t)(our_nxt >> (24 - 8 * i));
    }
    t[13] = (uint8_t)((t[13] & ~(0x04 | 0x02)) | 0x10);
}

static int get_mac(const char *ifname, uint8_t *mac)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
    int rc = fd >= 0 ? ioctl(fd, SIOCGIFHWADDR, &ifr) : -1;
    if (fd >= 0)
        close(fd);
    if (rc)
        return -1;
    memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
    return 0;
}

/* A packet socket on the device's interface, made in its namespace. */
static int dut_packet_socket(int *ifindex)
{
    char path[128];
    snprintf(path, sizeof path, "/run/netns/%s", lab.dut);
    int back = open("/proc/self/ns/net", O_RDONLY), to = open(path, O_RDONLY);
    int fd = -1;
    if (back >= 0 && to >= 0 && setns(to, CLONE_NEWNET) == 0) {
        fd = socket(AF_PACKET, SOCK_RAW, 0);
        *ifindex = (int)if_nametoindex(lab.veth_dut);
        if (setns(back, CLONE_NEWNET)) {
            perror("setns back");
            exit(2);
        }
    }
    if (back >= 0)
        close(back);
    if (to >= 0)
        close(to);
    return fd;
}

/* A capture of the device's segments on our side, to learn where its
 * sequence space and ours stand. */
static pcap_t *watch_device(int fam, const char *port)
{
    char eb[PCAP_ERRBUF_SIZE], f[200];
    pcap_t *p = pcap_create(lab.veth_inj, eb);
    if (!p)
        return NULL;
    struct bpf_program prog;
    snprintf(f, sizeof f, "tcp and src host %s and src port %s", fam == 4 ? lab.dut_addr4 : lab.dut_addr6, port);
    if (pcap_set_snaplen(p, 65535) != 0 || pcap_set_immediate_mode(p, 1) != 0 || pcap_activate(p) < 0 || pcap_compile(p, &prog, f, 1, PCAP_NETMASK_UNKNOWN) || pcap_setfilter(p, &prog) ||
        pcap_setnonblock(p, 1, eb)) {
        fprintf(stderr, "watch: %s\n", pcap_geterr(p));
        pcap_close(p);
        return NULL;
    }
    pcap_freecode(&prog);
    return p;
}

/* From what the device sent so far: its next sequence number (our
 * RCV.NXT) and its last acknowledgment (our SND.NXT). */
static void device_position(pcap_t *p, uint32_t *dev_nxt, uint32_t *our_nxt)
{
    struct pcap_pkthdr *h;
    const u_char *d;
    while (pcap_next_ex(p, &h, &d) == 1) {
        if (h->caplen < 14 + 40)
            continue;
        const uint8_t *ip = d + 14;
        size_t hl = ip[0] >> 4 == 4 ? (size_t)(ip[0] & 15) * 4 : 40;
        size_t tot = ip[0] >> 4 == 4 ? (size_t)(ip[2] << 8 | ip[3]) : 40 + (size_t)(ip[4] << 8 | ip[5]);
        const uint8_t *t = ip + hl;
        if (14 + tot > h->caplen || tot < hl + 20)
            continue;
        uint32_t seq = (uint32_t)t[4] << 24 | (uint32_t)t[5] << 16 | (uint32_t)t[6] << 8 | t[7];
        uint32_t ack = (uint32_t)t[8] << 24 | (uint32_t)t[9] << 16 | (uint32_t)t[10] << 8 | t[11];
        uint32_t len = (uint32_t)(tot - hl - (size_t)(t[12] >> 4) * 4) + !!(t[13] & 0x02) + !!(t[13] & 0x01);
        *dev_nxt = seq + len;
        *our_nxt = ack;
    }
}

/* n malformed frames for us that pass our capture filter, none of which
 * may reach the TCP state machine or change whom we send to.  The TCP
 * ones carry sequence and acknowledgment numbers the connection would
 * accept (dev_nxt, our_nxt): one that slipped through would corrupt the
 * stream. */
static unsigned send_garbage(int fam, uint16_t our_port, uint16_t dev_port, uint32_t dev_nxt, uint32_t our_nxt,
                             unsigned n)
{
    int ifindex = 0;
    int fd = dut_packet_socket(&ifindex);
    T_CHECK(fd >= 0, "packet socket in %s: %s", lab.dut, strerror(errno));
    if (fd < 0)
        return 0;
    uint8_t to_mac[6], me[16], dev[16];
    get_mac(lab.veth_inj, to_mac);
    inet_pton(fam == 4 ? AF_INET : AF_INET6, fam == 4 ? lab.raw_addr4 : lab.raw_addr6, me);
    inet_pton(fam == 4 ? AF_INET : AF_INET6, fam == 4 ? lab.dut_addr4 : lab.dut_addr6, dev);
    struct sockaddr_ll ll;
    memset(&ll, 0, sizeof ll);
    ll.sll_family = AF_PACKET;
    ll.sll_ifindex = ifindex;
    ll.sll_halen = 6;
    memcpy(ll.sll_addr, to_mac, 6);
    unsigned sent = 0;
    for (unsigned i = 0; i < n; i++) {
        uint8_t f[256];
        size_t len;
        for (size_t k = 0; k < sizeof f; k++)
            f[k] = (uint8_t)rnd();
        memcpy(f, to_mac, 6);
        f[6] = 0x02; /* a locally administered source, never the device's */
        unsigned kind = rnd() % 3;
        uint8_t *p = f + 14;
        if (fam == 4 && kind == 0) { /* ARP: random, often a well-formed header */
            f[12] = 0x08, f[13] = 0x06;
            if (rnd() & 1) {
                p[0] = 0, p[1] = 1, p[2] = 8, p[3] = 0, p[4] = 6, p[5] = 4, p[6] = 0, p[7] = (uint8_t)(1 + rnd() % 2);
                if (rnd() & 1)
                    memcpy(p + 24, me, 4);
            }
            if (!memcmp(p + 14, dev, 4)) /* never "the device is at a new MAC" */
                p[17] ^= 1;
            len = 14 + rnd() % 50;
        } else if (fam == 4) { /* IPv4 + TCP of our flow, each broken one way */
            f[12] = 0x08, f[13] = 0x00;
            size_t ihl = 5 + rnd() % 3;
            p[0] = (uint8_t)(0x40 | ihl);
            p[6] = 0, p[7] = 0;
            p[9] = 6;
            memcpy(p + 12, dev, 4);
            memcpy(p + 16, me, 4);
            uint8_t *t = p + ihl * 4;
            t[0] = (uint8_t)(dev_port >> 8), t[1] = (uint8_t)dev_port, t[2] = (uint8_t)(our_port >> 8),
            t[3] = (uint8_t)our_port;
            put_seq_ack(t, dev_nxt, our_nxt);
            size_t room = 14 + ihl * 4 + 60 + rnd() % 100;
            len = room;
            size_t tot = len - 14;
            switch (rnd() % 5) {
            case 0: tot = len - 14 + 1 + rnd() % 100; break;          /* longer than the frame */
            case 1: tot = ihl * 4 - 1 - rnd() % (ihl * 4); break;     /* shorter than its header */
            case 2: t[12] = (uint8_t)((rnd() % 5) << 4); break;       /* data offset < 5 */
            case 3: t[12] = 0xf0, tot = ihl * 4 + 20 + rnd() % 40; break; /* data offset past the end */
            default: p[6] = 0x20; break;                              /* a fragment */
            }
            p[0] = (uint8_t)(0x40 | ihl);
            p[2] = (uint8_t)(tot >> 8), p[3] = (uint8_t)tot;
            if (kind == 2 && (rnd() & 1))
                p[0] = (uint8_t)(0x40 | (rnd() % 5)); /* IHL < 5 */
        } else if (kind < 2) { /* IPv6 ND with odd options */
            f[12] = 0x86, f[13] = 0xdd;
            p[0] = 0x60;
            p[6] = 58;
            p[7] = (rnd() & 3) ? 255 : (uint8_t)rnd();
            if (!memcmp(p + 8, dev, 16)) /* never from the device */
                p[23] ^= 1;
            uint8_t *m = p + 40;
            m[0] = (uint8_t)(135 + rnd() % 2);
            m[1] = (rnd() & 3) ? 0 : (uint8_t)rnd();
            if (rnd() & 1)
                memcpy(m + 8, me, 16); /* about us: we may answer */
            else if (!memcmp(m + 8, dev, 16))
                m[23] ^= 1;
            size_t ml = (size_t)(rnd() % 80);
            for (size_t o = 24; o + 1 < ml; o += 8) /* option lengths 0..3 (x8) */
                m[o + 1] = (uint8_t)(rnd() % 4);
            size_t pl = (rnd() & 3) ? ml : ml + 1 + rnd() % 50;
            p[4] = (uint8_t)(pl >> 8), p[5] = (uint8_t)pl;
            len = 14 + 40 + ml;
        } else { /* IPv6 + TCP of our flow, broken */
            f[12] = 0x86, f[13] = 0xdd;
            p[0] = 0x60;
            p[6] = 6;
            memcpy(p + 8, dev, 16);
            memcpy(p + 24, me, 16);
            uint8_t *t = p + 40;
            t[0] = (uint8_t)(dev_port >> 8), t[1] = (uint8_t)dev_port, t[2] = (uint8_t)(our_port >> 8),
            t[3] = (uint8_t)our_port;
            put_seq_ack(t, dev_nxt, our_nxt);
            size_t tl = 20 + rnd() % 60;
            len = 14 + 40 + tl;
            size_t pl = tl;
            switch (rnd() % 3) {
            case 0: pl = tl + 1 + rnd() % 100; break;
            case 1: t[12] = (uint8_t)((rnd() % 5) << 4); break;
            default: t[12] = 0xf0, tl = 20, len = 14 + 40 + 20, pl = 20; break;
            }
            p[4] = (uint8_t)(pl >> 8), p[5] = (uint8_t)pl;
        }
        if (sendto(fd, f, len, 0, (struct sockaddr *)&ll, sizeof ll) == (ssize_t)len)
            sent++;
        if (i % 64 == 63)
            usleep(2000); /* do not outrun the capture ring */
    }
    close(fd);
    return sent;
}

/* ---- the cases ---------------------------------------------------------------- */

static void check_lab(void)
{
    char want[40];
    snprintf(want, sizeof want, "mpainj%ldi", (long)getpid());
    T_STREQ(lab.inj, want);
    T_CHECK(strlen(lab.veth_inj) <= 15 && strlen(lab.veth_dut) <= 15, "veth names %s %s", lab.veth_inj,
            lab.veth_dut);
    struct stat st;
    char path[128];
    snprintf(path, sizeof path, "/run/netns/%s", lab.dut);
    T_CHECK(stat(path, &st) == 0, "%s missing", path);
    /* the raw address is none of the configured ones */
    T_CHECK(strcmp(lab.raw_addr4, lab.inj_addr4) && strcmp(lab.raw_addr4, lab.dut_addr4), "raw address %s",
            lab.raw_addr4);
}

/* Loss, delivery tricks, garbage, FIN: one connection to an echo server. */
static void case_echo(int fam, unsigned drop)
{
    const char *port = fam == 4 ? "7100" : "7106";
    char path[128];
    snprintf(path, sizeof path, "%s/echo%d.pcapng", tmpdir, fam);
    if (start_echo(fam == 4 ? lab.dut_addr4 : lab.dut_addr6, port, 0))
        T_CHECK(0, "no echo server");
    pcap_t *watch = watch_device(fam, port);
    T_CHECK(watch != NULL, "no capture of the device's segments");
    inj_trace *tr = NULL;
    tp *t = open_raw(fam, port, path, &tr);
    if (!t || !watch) {
        if (watch)
            pcap_close(watch);
        if (t)
            t->ops->destroy(t);
        return;
    }
    char want[80];
    snprintf(want, sizeof want, fam == 4 ? "%s:%s" : "[%s]:%s", fam == 4 ? lab.dut_addr4 : lab.dut_addr6, port);
    T_STREQ(t->remote, want);
    snprintf(want, sizeof want, fam == 4 ? "%s:" : "[%s]:", fam == 4 ? lab.raw_addr4 : lab.raw_addr6);
    T_CHECK(!strncmp(t->local, want, strlen(want)), "local %s", t->local);
    uint16_t our_port = (uint16_t)atoi(strrchr(t->local, ':') + 1);
    char err[400] = "";

    /* 1: 1200 octets, pieces of 500, the first `drop` lost */
    uint8_t out[1200], in[1200];
    for (size_t i = 0; i < sizeof out; i++)
        out[i] = (uint8_t)(i * 7 + fam);
    tp_raw_test_drop(t, drop);
    int64_t t0 = tp_now_ms();
    T_CHECK(t->ops->send(t, out, sizeof out, NULL, tp_now_ms() + 3000, err, sizeof err) == 0, "send: %s", err);
    tp_rx_kind last;
    size_t got = recv_n(t, in, sizeof in, &last);
    int64_t took = tp_now_ms() - t0;
    T_EQ(got, sizeof out);
    T_MEMEQ(in, out, sizeof out);
    T_CHECK(took >= 100, "the echo came back in %lld ms: no retransmission timeout?", (long long)took);

    /* 2: garbage, then the connection still works */
    uint32_t dev_nxt = 0, our_nxt = 0;
    device_position(watch, &dev_nxt, &our_nxt);
    pcap_close(watch);
    T_CHECK(our_nxt == 1000 + 1 + 1200, "the device acknowledged up to %u, expected %u", our_nxt, 1000 + 1 + 1200);
    unsigned sent = send_garbage(fam, our_port, (uint16_t)atoi(port), dev_nxt, our_nxt, 3000);
    T_CHECK(sent >= 2900, "only %u of 3000 malformed frames sent", sent);
    size_t k = 0;
    T_EQ(t->ops->recv(t, in, sizeof in, &k, tp_now_ms() + 300, err, sizeof err), TP_RX_TIMEOUT);

    /* 3: 700 octets, reorder + duplicate + reseg 128 */
    tp_delivery dl = {1, 1, 128};
    for (size_t i = 0; i < 700; i++)
        out[i] = (uint8_t)(i * 13 + 1);
    T_CHECK(t->ops->send(t, out, 700, &dl, tp_now_ms() + 3000, err, sizeof err) == 0, "send: %s", err);
    got = recv_n(t, in, 700, &last);
    T_EQ(got, 700);
    T_MEMEQ(in, out, 700);

    /* 4: our FIN, the echo server's FIN, once */
    T_CHECK(t->ops->fin(t, err, sizeof err) == 0, "fin: %s", err);
    T_EQ(t->ops->recv(t, in, sizeof in, &k, tp_now_ms() + 3000, err, sizeof err), TP_RX_FIN);
    T_EQ(t->ops->recv(t, in, sizeof in, &k, tp_now_ms() + 100, err, sizeof err), TP_RX_TIMEOUT);
    T_CHECK(t->ops->send(t, out, 1, NULL, tp_now_ms() + 100, err, sizeof err) != 0, "send after FIN");
    t->ops->destroy(t);
    T_CHECK(trace_close(tr, err, sizeof err) == 0, "trace: %s", err);
    netns_lab_kill(&lab);

    /* the trace: what went out, in order */
    seg s[64];
    size_t n = our_segments(path, fam, 1001, s, 64);
    char have[800], expect[800];
    fmt_segs(s, n, have, sizeof have);
    /* round 1: the pieces not lost, then the lost ones again, one MSS at
     * a time from SND.UNA (each ACK of a retransmission brings the next) */
    const char *r1 = drop == 1 ? "500+500 1000+200 0+500" : drop == 2 ? "1000+200 0+500 500+500" : "?";
    /* round 3: last piece first, each twice, then all of it again in 128s */
    snprintf(expect, sizeof expect, "%s 1700+200 1700+200 1200+500 1200+500 1200+128 1328+128 1456+128 1584+128 "
                                    "1712+128 1840+60", r1);
    T_CHECK(!strcmp(have, expect), "IPv%d trace, our data segments (seq-ISN-1 + len):\n  expected %s\n  vs actual %s",
            fam, expect, have);
}

/* The device sends data and then resets: the data first, then the RST. */
static void case_rst(int fam)
{
    const char *port = fam == 4 ? "7101" : "7107";
    char path[128];
    snprintf(path, sizeof path, "%s/rst%d.pcapng", tmpdir, fam);
    if (start_echo(fam == 4 ? lab.dut_addr4 : lab.dut_addr6, port, 1))
        T_CHECK(0, "no echo server");
    inj_trace *tr = NULL;
    tp *t = open_raw(fam, port, path, &tr);
    if (!t)
        return;
    char err[400] = "";
    uint8_t out[100], in[200];
    memset(out, 'r', sizeof out);
    T_CHECK(t->ops->send(t, out, sizeof out, NULL, tp_now_ms() + 3000, err, sizeof err) == 0, "send: %s", err);
    usleep(300000); /* the data and the RST are both in before we look */
    tp_rx_kind last;
    size_t got = recv_n(t, in, sizeof out, &last);
    T_EQ(got, sizeof out);
    size_t k = 0;
    T_EQ(t->ops->recv(t, in, sizeof in, &k, tp_now_ms() + 3000, err, sizeof err), TP_RX_RST);
    T_CHECK(t->ops->send(t, out, 1, NULL, tp_now_ms() + 100, err, sizeof err) != 0 &&
                strstr(err, "reset") != NULL,
            "send after RST: %s", err);
    t->ops->destroy(t);
    trace_close(tr, err, sizeof err);
    netns_lab_kill(&lab);
}

/* Nobody listens: the device's kernel answers our SYN with a RST. */
static void case_refused(int fam)
{
    char path[128], err[400] = "";
    snprintf(path, sizeof path, "%s/refused%d.pcapng", tmpdir, fam);
    inj_trace *tr = trace_open(path, err, sizeof err);
    tp_cfg c;
    memset(&c, 0, sizeof c);
    c.open = TP_CONNECT;
    c.host = fam == 4 ? lab.dut_addr4 : lab.dut_addr6;
    c.port = "7199";
    c.iface = lab.veth_inj;
    c.src_addr = fam == 4 ? lab.raw_addr4 : lab.raw_addr6;
    tp *t = tp_new("raw", &c, tr, err, sizeof err);
    T_CHECK(t != NULL, "tp_new: %s", err);
    if (!t)
        return;
    T_CHECK(t->ops->open(t, tp_now_ms() + 3000, err, sizeof err) != 0 && strstr(err, "Connection refused"),
            "open: %s", err);
    t->ops->destroy(t);
    trace_close(tr, err, sizeof err);
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "--echo"))
        return echo_main(argv[2], argv[3], argc > 4);
    t_name = "test_raw";
    if (geteuid() != 0) {
        printf("test_raw: skipped (needs root)\n");
        return 77;
    }
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0) {
        perror("readlink /proc/self/exe");
        return 2;
    }
    self[sl] = 0;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_raw.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    alarm(120); /* a hang ends here; the lab's watcher then removes the lab */
    char err[400];
    if (netns_lab_up(&lab, err, sizeof err)) {
        fprintf(stderr, "test_raw: lab: %s\n", err);
        if (strstr(err, "netns add") && strstr(err, "ermission")) {
            printf("test_raw: skipped (no network namespaces here)\n");
            return 77;
        }
        return 2;
    }
    atexit(down);
    check_lab();
    case_echo(4, 1);
    case_echo(6, 2);
    case_rst(4);
    case_rst(6);
    case_refused(4);
    case_refused(6);
    char names[2][64];
    snprintf(names[0], sizeof names[0], "/run/netns/%s", lab.inj);
    snprintf(names[1], sizeof names[1], "/run/netns/%s", lab.dut);
    netns_lab_down(&lab);
    netns_lab_down(&lab); /* idempotent */
    struct stat st;
    T_CHECK(stat(names[0], &st) != 0 && stat(names[1], &st) != 0, "a namespace is left after netns_lab_down");
    if (!t_fail) {
        char cmd[200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "test_raw: could not remove %s\n", tmpdir);
    } else {
        fprintf(stderr, "test_raw: traces kept in %s\n", tmpdir);
    }
    return t_done();
}

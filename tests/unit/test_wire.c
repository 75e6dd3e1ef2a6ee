/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libmpawire (wire/): byte order, the Internet checksum (RFC 1071), the
 * capture writer (draft-ietf-opsawg-pcap, draft-ietf-opsawg-pcapng) and
 * the packet builders (RFC 791, RFC 8200, RFC 9293).
 *
 * The files are written into a temporary directory and read back octet
 * by octet: what is checked is what a capture reader would see.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bytes.h"
#include "capw.h"
#include "csum.h"
#include "net.h"
#include "t.h"

static char g_dir[] = "/tmp/test_wire.XXXXXX";

/* g_dir/name (a static buffer). */
static const char *tmp_path(const char *name)
{
    static char p[64];
    snprintf(p, sizeof p, "%s/%s", g_dir, name);
    return p;
}

/* The file at path, whole; *len its size.  The caller frees it. */
static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *b = malloc(1 << 20);
    *len = 0;
    if (f && b)
        *len = fread(b, 1, 1 << 20, f);
    if (f)
        fclose(f);
    return b;
}

/* ---- bytes.h ----------------------------------------------------------- */

static void test_bytes(void)
{
    uint8_t b[8];
    put_be16(b, 0x0102);
    T_MEMEQ(b, "\x01\x02", 2);
    put_be32(b, 0x01020304u);
    T_MEMEQ(b, "\x01\x02\x03\x04", 4);
    put_be64(b, 0x0102030405060708ull);
    T_MEMEQ(b, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
    T_EQ(get_be16(b), 0x0102);
    T_EQ(get_be32(b + 4), 0x05060708u);
    T_EQ(get_be64(b), 0x0102030405060708ull);
    put_le16(b, 0x0102);
    T_MEMEQ(b, "\x02\x01", 2);
    put_le32(b, 0xA1B2C3D4u); /* the pcap magic as a little-endian writer stores it */
    T_MEMEQ(b, "\xd4\xc3\xb2\xa1", 4);
    put_le64(b, 0x0102030405060708ull);
    T_MEMEQ(b, "\x08\x07\x06\x05\x04\x03\x02\x01", 8);
    T_EQ(get_le16(b), 0x0708);
    T_EQ(get_le32(b), 0x05060708u);
    T_EQ(get_le64(b), 0x0102030405060708ull);
    /* Nothing written past the value. */
    memset(b, 0xEE, sizeof b);
    put_be16(b + 1, 0);
    T_EQ(b[0], 0xEE);
    T_EQ(b[3], 0xEE);
}

/* ---- csum.h ------------------------------------------------------------ */

/* The octets of the checksum field, as csum_fold() says to store it. */
static void field(uint8_t *f, uint64_t acc)
{
    uint16_t c = csum_fold(acc);
    memcpy(f, &c, 2);
}

static void test_csum(void)
{
    /* RFC 1071 3: the sum of 0001 f203 f4f5 f6f7 is ddf2, so the
     * checksum field holds its complement, 22 0d. */
    static const uint8_t v[8] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
    uint8_t f[2];
    field(f, csum_add(0, v, sizeof v));
    T_MEMEQ(f, "\x22\x0d", 2);
    /* The same in pieces of even length. */
    uint64_t acc = csum_add(0, v, 2);
    acc = csum_add(acc, v + 2, 4);
    acc = csum_add(acc, v + 6, 2);
    field(f, acc);
    T_MEMEQ(f, "\x22\x0d", 2);
    /* An odd last octet is padded with zero (RFC 1071 4.1): f7 counts
     * as f700. */
    static const uint8_t odd[3] = {0x00, 0x01, 0xf7};
    field(f, csum_add(0, odd, sizeof odd));
    T_MEMEQ(f, "\x08\xfe", 2); /* ~(0001 + f700) = ~f701 */
    /* Long input: every path of the summing loop, against a plain
     * 16-bit sum. */
    static uint8_t big[1000];
    uint32_t sum = 0;
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i * 37 + 11);
    for (size_t i = 0; i + 1 < sizeof big; i += 2)
        sum += (uint32_t)big[i] << 8 | big[i + 1];
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    field(f, csum_add(0, big, sizeof big));
    T_EQ(get_be16(f), (uint16_t)~sum);
    /* A header holding its own checksum sums to zero. */
    uint8_t h[10];
    memcpy(h, v, 8);
    memcpy(h + 8, "\x22\x0d", 2);
    T_EQ(csum_fold(csum_add(0, h, sizeof h)), 0);
}

/* ---- capw.h: classic pcap ------------------------------------------------ */

static void test_pcap(void)
{
    const char *path = tmp_path("a.pcap");
    capw w;
    T_EQ(capw_open(&w, path, CAPW_PCAP, LINK_ETHERNET, 40, NULL), 0);
    uint8_t *p = capw_begin(&w, 100);
    for (unsigned i = 0; i < 100; i++)
        p[i] = (uint8_t)i;
    capw_commit(&w, 1704067200ull * 1000000000ull + 1234567890ull, 100, "ignored in pcap");
    p = capw_begin(&w, 10);
    memset(p, 0xAB, 10);
    capw_commit(&w, 1704067201ull * 1000000000ull, 10, NULL);
    T_EQ(w.packets, 2);
    uint64_t bytes = w.bytes;
    T_EQ(capw_close(&w), 0);

    size_t n = 0;
    uint8_t *b = slurp(path, &n);
    T_EQ(n, bytes);
    T_EQ(n, 24 + 16 + 40 + 16 + 10);
    /* File header: magic (microseconds), 2.4, thiszone, sigfigs,
     * snaplen, link type; little-endian. */
    T_MEMEQ(b, "\xd4\xc3\xb2\xa1\x02\x00\x04\x00", 8);
    T_EQ(get_le32(b + 8), 0);
    T_EQ(get_le32(b + 12), 0);
    T_EQ(get_le32(b + 16), 40);
    T_EQ(get_le32(b + 20), LINK_ETHERNET);
    /* Record: seconds, microseconds, cut to the snap length, original. */
    T_EQ(get_le32(b + 24), 1704067201u);
    T_EQ(get_le32(b + 28), 234567u);
    T_EQ(get_le32(b + 32), 40);
    T_EQ(get_le32(b + 36), 100);
    T_EQ(b[40], 0);
    T_EQ(b[40 + 39], 39);
    T_EQ(get_le32(b + 80 + 8), 10);
    T_EQ(get_le32(b + 80 + 12), 10);
    T_EQ(b[n - 1], 0xAB);
    free(b);

    /* A record header written as given, for files that lie. */
    uint8_t r[16];
    capw_pcap_rechdr(r, 1, 2000000, 300000, 5);
    T_MEMEQ(r, "\x01\x00\x00\x00\x80\x84\x1e\x00\xe0\x93\x04\x00\x05\x00\x00\x00", 16);
}

/* ---- capw.h: pcapng ------------------------------------------------------- */

static void test_pcapng(void)
{
    const char *path = tmp_path("b.pcapng");
    capw w;
    T_EQ(capw_open(&w, path, CAPW_PCAPNG, LINK_RAW, 0, "eth9"), 0);
    uint8_t *p = capw_begin(&w, 5);
    memcpy(p, "\x45\x00\x00\x05\x00", 5);
    capw_commit(&w, 0x0000000100000002ull, 5, "hello");
    T_EQ(capw_close(&w), 0);

    size_t n = 0;
    uint8_t *b = slurp(path, &n);
    /* Every block: type, total length, ..., the same total length; a
     * multiple of 4 (draft-ietf-opsawg-pcapng 3.1). */
    size_t off = 0, nblocks = 0;
    uint32_t types[4] = {0, 0, 0, 0};
    while (off + 12 <= n && nblocks < 4) {
        uint32_t len = get_le32(b + off + 4);
        T_CHECK(len % 4 == 0 && len >= 12 && off + len <= n, "block %zu: length %u", nblocks, len);
        if (len % 4 || len < 12 || off + len > n)
            break;
        T_EQ(get_le32(b + off + len - 4), len);
        types[nblocks++] = get_le32(b + off);
        off += len;
    }
    T_EQ(off, n);
    T_EQ(nblocks, 3);
    T_EQ(types[0], 0x0A0D0D0Au); /* SHB */
    T_EQ(types[1], 1);           /* IDB */
    T_EQ(types[2], 6);           /* EPB */
    T_EQ(get_le32(b + 8), 0x1A2B3C4Du); /* byte-order magic */
    /* IDB: link type, snap length, if_name "eth9", if_tsresol 9. */
    size_t idb = get_le32(b + 4);
    T_EQ(get_le16(b + idb + 8), LINK_RAW);
    T_EQ(get_le32(b + idb + 12), CAPW_SNAPLEN_MAX);
    T_EQ(get_le16(b + idb + 16), 2);
    T_EQ(get_le16(b + idb + 18), 4);
    T_MEMEQ(b + idb + 20, "eth9", 4);
    T_EQ(get_le16(b + idb + 24), 9);
    T_EQ(get_le16(b + idb + 26), 1);
    T_EQ(b[idb + 28], 9);
    /* EPB: interface 0, timestamp high and low, lengths, the data padded
     * to 4, then opt_comment "hello" and opt_endofopt. */
    size_t epb = idb + get_le32(b + idb + 4);
    T_EQ(get_le32(b + epb + 8), 0);
    T_EQ(get_le32(b + epb + 12), 1);
    T_EQ(get_le32(b + epb + 16), 2);
    T_EQ(get_le32(b + epb + 20), 5);
    T_EQ(get_le32(b + epb + 24), 5);
    T_MEMEQ(b + epb + 28, "\x45\x00\x00\x05\x00\x00\x00\x00", 8);
    T_EQ(get_le16(b + epb + 36), 1);
    T_EQ(get_le16(b + epb + 38), 5);
    T_MEMEQ(b + epb + 40, "hello\0\0\0", 8);
    T_EQ(get_le32(b + epb + 48), 0);
    T_EQ(get_le32(b + epb + 4), 56);
    free(b);
}

/* ---- net.h ------------------------------------------------------------------ */

/* Sums the TCP segment at t (tcplen octets) with its IPv4 pseudo-header:
 * zero when its checksum is right (RFC 9293 3.1). */
static uint16_t tcp4_check(const uint8_t *ip, const uint8_t *t, size_t tcplen)
{
    uint8_t ph[12];
    memcpy(ph, ip + 12, 8);
    ph[8] = 0;
    ph[9] = 6;
    put_be16(ph + 10, (uint16_t)tcplen);
    return csum_fold(csum_add(csum_add(0, ph, sizeof ph), t, tcplen));
}

/* A classic pcap g_dir/name of link type link, and a path on that link
 * between hosts 10 and 20 of family. */
static void open_path(capw *w, netpath *np, const char *name, int link, int family)
{
    T_EQ(capw_open(w, tmp_path(name), CAPW_PCAP, link, 0, NULL), 0);
    net_path_init(np, link, family, 10, 20);
}

static void test_net_tcp4(void)
{
    capw w;
    netpath np;
    open_path(&w, &np, "c.pcap", LINK_ETHERNET, 4);
    np.nvlan = 1;
    np.vlan_tpid[0] = 0x8100;
    np.vlan_id[0] = 100;
    tcpseg syn = {40000, 18515, 0x11223344u, 0, TCP_SYN, 64240, 1460, 7};
    T_EQ(net_tcp(&w, &np, 0, 1000, &syn, NULL, 0, 0, 0, NULL), 1);
    uint8_t data[33]; /* odd: the checksum pads it */
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(0xA0 + i);
    tcpseg seg = {18515, 40000, 0x55667788u, 0x11223345u, TCP_ACK | TCP_PSH, 512, 0, -1};
    T_EQ(net_tcp(&w, &np, 1, 2000, &seg, data, sizeof data, 0, 0, NULL), 1);
    T_EQ(capw_close(&w), 0);

    size_t n = 0;
    uint8_t *b = slurp(tmp_path("c.pcap"), &n);
    const uint8_t *f = b + 24 + 16; /* the SYN's frame */
    size_t caplen = get_le32(b + 24 + 8);
    T_EQ(caplen, 14 + 4 + 20 + 28);
    T_MEMEQ(f, np.mac[1], 6);
    T_MEMEQ(f + 6, np.mac[0], 6);
    T_EQ(get_be16(f + 12), 0x8100);
    T_EQ(get_be16(f + 14), 100);
    T_EQ(get_be16(f + 16), 0x0800);
    const uint8_t *ip = f + 18;
    T_EQ(ip[0], 0x45);
    T_EQ(get_be16(ip + 2), 20 + 28);
    T_EQ(get_be16(ip + 6), NET_IP4_DF);
    T_EQ(ip[8], 64);
    T_EQ(ip[9], 6);
    T_MEMEQ(ip + 12, "\xc0\x00\x02\x0a\xc0\x00\x02\x14", 8); /* 192.0.2.10 -> 192.0.2.20 */
    T_EQ(csum_fold(csum_add(0, ip, 20)), 0);
    const uint8_t *t = ip + 20;
    T_EQ(get_be16(t), 40000);
    T_EQ(get_be16(t + 2), 18515);
    T_EQ(get_be32(t + 4), 0x11223344u);
    T_EQ(get_be32(t + 8), 0); /* no ACK flag: no acknowledgment number */
    T_EQ(t[12] >> 4, 7);
    T_EQ(t[13], TCP_SYN);
    T_MEMEQ(t + 20, "\x02\x04\x05\xb4\x01\x03\x03\x07", 8); /* MSS 1460, NOP, window scale 7 */
    T_EQ(tcp4_check(ip, t, 28), 0);

    /* The data segment: from direction 1, odd length, checksums right. */
    const uint8_t *r2 = f + caplen;
    T_EQ(get_le32(r2 + 8), 14 + 4 + 20 + 20 + sizeof data);
    ip = r2 + 16 + 18;
    T_MEMEQ(ip + 12, "\xc0\x00\x02\x14\xc0\x00\x02\x0a", 8);
    T_EQ(csum_fold(csum_add(0, ip, 20)), 0);
    t = ip + 20;
    T_EQ(get_be32(t + 8), 0x11223345u);
    T_EQ(t[12] >> 4, 5);
    T_MEMEQ(t + 20, data, sizeof data);
    T_EQ(tcp4_check(ip, t, 20 + sizeof data), 0);
    /* Each direction counts its own IP identification. */
    T_EQ(get_be16(ip + 4) + 0u, np.ip_id[1] - 1u);
    free(b);
}

/* IPv6 with extension headers, fragmented, last fragment first
 * (RFC 8200 4.5): the offsets cover the datagram, the M flags and the
 * identification agree. */
static void test_net_frag6(void)
{
    capw w;
    netpath np;
    open_path(&w, &np, "d.pcap", LINK_RAW, 6);
    np.v6_ext = 1;
    static uint8_t data[1000];
    memset(data, 0x5A, sizeof data);
    tcpseg seg = {1, 2, 100, 200, TCP_ACK, 1000, 0, -1};
    unsigned nfr = net_tcp(&w, &np, 0, 0, &seg, data, sizeof data, 300, 1, NULL);
    T_EQ(capw_close(&w), 0);
    /* 16 (Destination Options) + 20 (TCP) + 1000 octets in pieces of 296. */
    T_EQ(nfr, 4);
    size_t n = 0;
    uint8_t *b = slurp(tmp_path("d.pcap"), &n);
    size_t off = 24, covered = 0;
    uint32_t id = 0;
    for (unsigned k = 0; k < nfr && off + 16 <= n; k++) {
        size_t len = get_le32(b + off + 8);
        const uint8_t *ip = b + off + 16;
        T_EQ(ip[0] >> 4, 6);
        T_EQ(ip[6], 0);  /* Hop-by-Hop first */
        T_EQ(ip[40], 44); /* then the Fragment header */
        const uint8_t *fr = ip + 48;
        unsigned fo = get_be16(fr + 2) & ~7u, more = get_be16(fr + 2) & 1;
        T_EQ(fo, (nfr - 1 - k) * 296u); /* last first */
        T_EQ(more, k != 0);
        if (k == 0)
            id = get_be32(fr + 4);
        T_EQ(get_be32(fr + 4), id);
        T_EQ(get_be16(ip + 4), len - 40);
        covered += len - 56;
        off += 16 + len;
    }
    T_EQ(covered, 16 + 20 + sizeof data);
    T_EQ(off, n);
    free(b);
}

int main(void)
{
    t_name = "wire";
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 2;
    }
    test_bytes();
    test_csum();
    test_pcap();
    test_pcapng();
    test_net_tcp4();
    test_net_frag6();
    const char *files[] = {"a.pcap", "b.pcapng", "c.pcap", "d.pcap"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        unlink(tmp_path(files[i]));
    rmdir(g_dir);
    return t_done();
}

/*
 * A tiny classic-pcap writer for the bench: Ethernet II / IPv4 / TCP
 * frames with correct IPv4 and TCP checksums, written through stdio.
 * No libpcap.  Format: the classic libpcap file (magic 0xa1b2c3d4,
 * version 2.4, microsecond timestamps, link type 1 = Ethernet), records
 * in host byte order as the format allows.
 *
 *     pcapw w;
 *     pcapw_open(&w, "x.pcap");
 *     pcapw_tcp(&w, &pkt, payload, len);   // one frame
 *     pcapw_close(&w);                     // 0 on success
 */
#ifndef MPA_BENCH_PCAP_WRITE_H
#define MPA_BENCH_PCAP_WRITE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PCAPW_FIN = 0x01, PCAPW_SYN = 0x02, PCAPW_RST = 0x04, PCAPW_PSH = 0x08, PCAPW_ACK = 0x10 };

typedef struct pcapw {
    FILE *f;
    char *iobuf;
    uint64_t frames, bytes;
    int err;
} pcapw;

/* One TCP/IPv4 frame's headers. */
typedef struct pcapw_pkt {
    uint64_t ts_ns;            /* capture time, ns since the epoch */
    uint8_t src_mac[6], dst_mac[6];
    uint32_t src_ip, dst_ip;   /* host order */
    uint16_t src_port, dst_port;
    uint32_t seq, ack;
    uint8_t flags;             /* PCAPW_* */
    uint16_t win;
    uint16_t ip_id;
    uint16_t mss;              /* non-zero: add the MSS option (SYNs) */
} pcapw_pkt;

static inline void pcapw_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void pcapw_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void pcapw_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* One's-complement sum of big-endian 16-bit words, not folded. */
static inline uint64_t pcapw_sum(uint64_t acc, const uint8_t *p, size_t len)
{
    while (len >= 2) {
        acc += (uint32_t)p[0] << 8 | p[1];
        p += 2;
        len -= 2;
    }
    if (len)
        acc += (uint32_t)p[0] << 8;
    return acc;
}

static inline uint16_t pcapw_fold(uint64_t acc)
{
    while (acc >> 16)
        acc = (acc & 0xFFFF) + (acc >> 16);
    return (uint16_t)~acc;
}

static inline int pcapw_open(pcapw *w, const char *path)
{
    memset(w, 0, sizeof *w);
    w->f = fopen(path, "wb");
    if (!w->f)
        return -1;
    w->iobuf = malloc(1u << 20);
    if (w->iobuf)
        setvbuf(w->f, w->iobuf, _IOFBF, 1u << 20);
    uint8_t gh[24];
    pcapw_le32(gh, 0xa1b2c3d4u);
    gh[4] = 2, gh[5] = 0;                 /* version 2.4, little-endian */
    gh[6] = 4, gh[7] = 0;
    pcapw_le32(gh + 8, 0);                /* thiszone */
    pcapw_le32(gh + 12, 0);               /* sigfigs */
    pcapw_le32(gh + 16, 65535);           /* snaplen */
    pcapw_le32(gh + 20, 1);               /* LINKTYPE_ETHERNET */
    if (fwrite(gh, 1, sizeof gh, w->f) != sizeof gh)
        w->err = 1;
    return 0;
}

/* Writes one frame carrying payload[0..len) (len <= 65495). */
static inline void pcapw_tcp(pcapw *w, const pcapw_pkt *k, const uint8_t *payload, size_t len)
{
    uint8_t h[14 + 20 + 24];
    size_t thl = k->mss ? 24 : 20;
    size_t hl = 14 + 20 + thl;
    uint8_t *eth = h, *ip = h + 14, *tcp = h + 34;
    memcpy(eth, k->dst_mac, 6);
    memcpy(eth + 6, k->src_mac, 6);
    pcapw_be16(eth + 12, 0x0800);

    ip[0] = 0x45;                         /* IPv4, IHL 5 */
    ip[1] = 0;
    pcapw_be16(ip + 2, (uint16_t)(20 + thl + len));
    pcapw_be16(ip + 4, k->ip_id);
    pcapw_be16(ip + 6, 0x4000);           /* DF */
    ip[8] = 64;                           /* TTL */
    ip[9] = 6;                            /* TCP */
    pcapw_be16(ip + 10, 0);
    pcapw_be32(ip + 12, k->src_ip);
    pcapw_be32(ip + 16, k->dst_ip);
    pcapw_be16(ip + 10, pcapw_fold(pcapw_sum(0, ip, 20)));

    pcapw_be16(tcp, k->src_port);
    pcapw_be16(tcp + 2, k->dst_port);
    pcapw_be32(tcp + 4, k->seq);
    pcapw_be32(tcp + 8, k->flags & PCAPW_ACK ? k->ack : 0);
    tcp[12] = (uint8_t)((thl / 4) << 4);
    tcp[13] = k->flags;
    pcapw_be16(tcp + 14, k->win);
    pcapw_be16(tcp + 16, 0);              /* checksum, below */
    pcapw_be16(tcp + 18, 0);              /* urgent pointer */
    if (k->mss) {
        tcp[20] = 2;                      /* MSS option */
        tcp[21] = 4;
        pcapw_be16(tcp + 22, k->mss);
    }
    /* TCP checksum: pseudo header, TCP header, payload. */
    uint8_t ph[12];
    pcapw_be32(ph, k->src_ip);
    pcapw_be32(ph + 4, k->dst_ip);
    ph[8] = 0;
    ph[9] = 6;
    pcapw_be16(ph + 10, (uint16_t)(thl + len));
    uint64_t acc = pcapw_sum(0, ph, sizeof ph);
    acc = pcapw_sum(acc, tcp, thl);
    acc = pcapw_sum(acc, payload, len); /* thl is even, so words stay aligned */
    pcapw_be16(tcp + 16, pcapw_fold(acc));

    uint8_t rh[16];
    pcapw_le32(rh, (uint32_t)(k->ts_ns / 1000000000u));
    pcapw_le32(rh + 4, (uint32_t)(k->ts_ns % 1000000000u / 1000u));
    pcapw_le32(rh + 8, (uint32_t)(hl + len));
    pcapw_le32(rh + 12, (uint32_t)(hl + len));
    if (fwrite(rh, 1, sizeof rh, w->f) != sizeof rh || fwrite(h, 1, hl, w->f) != hl ||
        (len && fwrite(payload, 1, len, w->f) != len))
        w->err = 1;
    w->frames++;
    w->bytes += sizeof rh + hl + len;
}

static inline int pcapw_close(pcapw *w)
{
    int rc = w->err;
    if (w->f && fclose(w->f) != 0)
        rc = 1;
    free(w->iobuf);
    w->f = NULL;
    w->iobuf = NULL;
    return rc ? -1 : 0;
}

#endif

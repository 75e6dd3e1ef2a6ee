/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The capture file writer: classic pcap and pcapng.  mpa-capgen's
 * reference and adversarial captures, mpa-inject's traces and the
 * bench's captures all go through it.
 *
 * Classic pcap (the libpcap format, draft-ietf-opsawg-pcap): a 24-octet
 * file header (magic 0xA1B2C3D4 = microsecond timestamps, version 2.4,
 * snaplen, link type), then per packet a 16-octet record header (seconds,
 * microseconds, captured length, original length) and the captured
 * octets.
 *
 * pcapng (draft-ietf-opsawg-pcapng): a Section Header Block, one
 * Interface Description Block (link type, snaplen, if_tsresol) and one
 * Enhanced Packet Block per packet, each optionally with an opt_comment.
 *
 * Everything is written little-endian whatever the host, so the same
 * generator run gives the same bytes on any machine (readers accept
 * either order: the magic numbers say which).  Output goes through one
 * large buffer and write(2): the big benchmark capture streams through
 * it at disk speed, with memory bounded by the buffer.
 *
 * A packet is written in two steps, so callers build it in place:
 *
 *     uint8_t *p = capw_begin(&w, maxlen);   // room for maxlen octets
 *     ... write the packet's octets at p ...
 *     capw_commit(&w, ts_ns, len, comment);  // len <= maxlen
 *
 * The snap length cuts what is stored (the original length is kept), as
 * a capture with a small snaplen would.
 */
#ifndef MPA_WIRE_CAPW_H
#define MPA_WIRE_CAPW_H

#include <stddef.h>
#include <stdint.h>

/* pcap LINKTYPE_ values (https://www.tcpdump.org/linktypes.html). */
enum {
    LINK_NULL = 0,        /* BSD loopback: 4-octet address family, host order */
    LINK_ETHERNET = 1,
    LINK_RAW = 101,       /* raw IPv4 or IPv6, version from the first nibble */
    LINK_LINUX_SLL = 113, /* Linux "cooked" capture v1, 16-octet header */
    LINK_LINUX_SLL2 = 276 /* Linux "cooked" capture v2, 20-octet header */
};

typedef enum capw_format { CAPW_PCAP = 0, CAPW_PCAPNG = 1 } capw_format;

#define CAPW_SNAPLEN_MAX 262144u /* what tcpdump and Wireshark use */

typedef struct capw {
    int fd;
    capw_format fmt;
    uint32_t snaplen;
    uint8_t *buf;      /* output buffer */
    size_t len, cap;
    size_t hdr;        /* record header octets before the packet data */
    uint64_t packets;
    uint64_t bytes;    /* file octets written so far (buffered included) */
    int err;           /* errno of the first failure, 0 if none */
} capw;

/*
 * Create (truncate) path and write the file header.  fmt chooses the
 * format, link the LINKTYPE, snaplen what is stored of each packet
 * (0 = CAPW_SNAPLEN_MAX).  pcapng: the IDB says if_tsresol 9
 * (nanoseconds) and names the interface iface (may be NULL).
 * Returns 0, or -1 with errno set (nothing to close then).
 */
int capw_open(capw *w, const char *path, capw_format fmt, int link, uint32_t snaplen,
              const char *iface);

/* Room for one packet of at most maxlen octets (maxlen <= 65536 + 128).
 * The pointer is valid until capw_commit().  Never NULL. */
uint8_t *capw_begin(capw *w, size_t maxlen);

/* The packet at capw_begin()'s pointer is len octets long, seen at ts_ns
 * (nanoseconds since the Unix epoch).  comment: an opt_comment for pcapng
 * (ignored for classic pcap), may be NULL. */
void capw_commit(capw *w, uint64_t ts_ns, size_t len, const char *comment);

/* n octets written to the file as they are, after what came before:
 * for files broken on purpose (record headers that lie, cut records).
 * Counts in bytes, not in packets. */
void capw_raw(capw *w, const void *p, size_t n);

/* A classic pcap record header (16 octets at rec): seconds,
 * microseconds, captured and original length, as given, unchecked (with
 * capw_raw(), a record can claim what it likes). */
void capw_pcap_rechdr(uint8_t *rec, uint32_t sec, uint32_t usec, uint32_t caplen, uint32_t origlen);

/* Flush and close.  Returns 0, or -1 with errno set if anything failed
 * since capw_open(). */
int capw_close(capw *w);

#endif

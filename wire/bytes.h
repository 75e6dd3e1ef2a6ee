/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Byte-order helpers: put and get 16-, 32- and 64-bit values at any
 * address, big-endian (network order, RFC 791 and every header after
 * it) or little-endian (the order the capture writer uses for pcap and
 * pcapng, whatever the host).  No alignment is needed; nothing is read
 * or written beyond the value's octets.
 *
 * These write packets and files; they do not check bounds.  Decoders
 * that read untrusted octets use a bounds-checked reader instead
 * (libmpa's src/rd.h, the capture parser's own).
 */
#ifndef MPA_WIRE_BYTES_H
#define MPA_WIRE_BYTES_H

#include <stdint.h>

/* The n low octets of v at p, most significant first. */
static inline void put_be(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = n; i-- > 0; v >>= 8)
        p[i] = (uint8_t)v;
}

/* The n low octets of v at p, least significant first. */
static inline void put_le(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

/* n octets at p as a number, most significant first. */
static inline uint64_t get_be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* n octets at p as a number, least significant first. */
static inline uint64_t get_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

static inline void put_be16(uint8_t *p, uint16_t v) { put_be(p, v, 2); }
static inline void put_be32(uint8_t *p, uint32_t v) { put_be(p, v, 4); }
static inline void put_be64(uint8_t *p, uint64_t v) { put_be(p, v, 8); }
static inline void put_le16(uint8_t *p, uint16_t v) { put_le(p, v, 2); }
static inline void put_le32(uint8_t *p, uint32_t v) { put_le(p, v, 4); }
static inline void put_le64(uint8_t *p, uint64_t v) { put_le(p, v, 8); }

static inline uint16_t get_be16(const uint8_t *p) { return (uint16_t)get_be(p, 2); }
static inline uint32_t get_be32(const uint8_t *p) { return (uint32_t)get_be(p, 4); }
static inline uint64_t get_be64(const uint8_t *p) { return get_be(p, 8); }
static inline uint16_t get_le16(const uint8_t *p) { return (uint16_t)get_le(p, 2); }
static inline uint32_t get_le32(const uint8_t *p) { return (uint32_t)get_le(p, 4); }
static inline uint64_t get_le64(const uint8_t *p) { return get_le(p, 8); }

#endif

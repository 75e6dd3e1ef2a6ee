/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one bounds-checked reader of wire octets (internal).
 *
 * Every field is read through rd_*(): each call checks the bound and
 * reads, in network byte order, so no decoder ever dereferences past the
 * caller's buffer.  A read past the end latches rd->short_by (how many
 * octets were missing) and returns 0; decoders test rd_ok() once after a
 * group of reads (tcpdump's GET_BE_U_n, minus the longjmp).
 */
#ifndef MPA_RD_H
#define MPA_RD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct rd {
    const uint8_t *p;
    size_t len;
    size_t off;
    size_t short_by; /* 0 while every read so far was in bounds */
} rd_t;

static inline rd_t rd_init(const uint8_t *p, size_t len)
{
    rd_t r = {p, len, 0, 0};
    return r;
}

static inline int rd_ok(const rd_t *r) { return r->short_by == 0; }
static inline size_t rd_left(const rd_t *r) { return r->off < r->len ? r->len - r->off : 0; }

/* Reserve n octets; returns a pointer to them or NULL.  The logical
 * offset keeps advancing past the end so that short_by ends up as the
 * total number of octets a group of reads was missing. */
static inline const uint8_t *rd_take(rd_t *r, size_t n)
{
    size_t at = r->off;
    r->off += n;
    if (r->off > r->len || r->off < at) {
        r->short_by = r->off - r->len;
        return NULL;
    }
    return r->p + at;
}

static inline uint8_t rd_u8(rd_t *r)
{
    const uint8_t *q = rd_take(r, 1);
    return q ? q[0] : 0;
}

static inline uint16_t rd_be16(rd_t *r)
{
    const uint8_t *q = rd_take(r, 2);
    return q ? (uint16_t)((q[0] << 8) | q[1]) : 0;
}

static inline uint32_t rd_be32(rd_t *r)
{
    const uint8_t *q = rd_take(r, 4);
    return q ? ((uint32_t)q[0] << 24) | ((uint32_t)q[1] << 16) |
                   ((uint32_t)q[2] << 8) | q[3]
             : 0;
}

static inline uint64_t rd_be64(rd_t *r)
{
    uint64_t hi = rd_be32(r);
    uint64_t lo = rd_be32(r);
    return (hi << 32) | lo;
}

/* Octets [off, off+n) as a slice, or NULL. */
static inline const uint8_t *rd_bytes(rd_t *r, size_t n) { return rd_take(r, n); }

/* Writers for encoders: the caller has checked the room already. */
static inline void wr_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void wr_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline void wr_be64(uint8_t *p, uint64_t v)
{
    wr_be32(p, (uint32_t)(v >> 32));
    wr_be32(p + 4, (uint32_t)v);
}

static inline uint16_t ld_be16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t ld_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

#endif

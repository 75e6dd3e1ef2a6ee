/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Internet checksum (RFC 1071).  See csum.h.
 */
#include "csum.h"

#include <string.h>

/* The one's-complement sum does not depend on byte order (RFC 1071 2(B)):
 * summing native 64-bit words of the octets in memory order and storing
 * the folded result natively gives the right octets on any host.  A
 * trailing part shorter than 8 octets is zero-padded in memory order,
 * which is how the RFC pads an odd final octet.  The big benchmark
 * capture sums every payload octet, hence four words per round. */
uint64_t csum_add(uint64_t acc, const uint8_t *buf, size_t len)
{
    while (len >= 32) {
        uint64_t a, b, c, d;
        memcpy(&a, buf, 8);
        memcpy(&b, buf + 8, 8);
        memcpy(&c, buf + 16, 8);
        memcpy(&d, buf + 24, 8);
        acc += a;
        acc += acc < a;
        acc += b;
        acc += acc < b;
        acc += c;
        acc += acc < c;
        acc += d;
        acc += acc < d;
        buf += 32;
        len -= 32;
    }
    while (len >= 8) {
        uint64_t a;
        memcpy(&a, buf, 8);
        acc += a;
        acc += acc < a;
        buf += 8;
        len -= 8;
    }
    if (len) {
        uint64_t a = 0;
        memcpy(&a, buf, len);
        acc += a;
        acc += acc < a;
    }
    return acc;
}

uint16_t csum_fold(uint64_t acc)
{
    acc = (acc & 0xFFFFFFFFu) + (acc >> 32);
    acc = (acc & 0xFFFFFFFFu) + (acc >> 32);
    acc = (acc & 0xFFFFu) + (acc >> 16);
    acc = (acc & 0xFFFFu) + (acc >> 16);
    acc = (acc & 0xFFFFu) + (acc >> 16);
    return (uint16_t)~acc;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Internet checksum (RFC 1071): the 16-bit one's complement of the
 * one's complement sum of the data, used by IPv4 (RFC 791 3.1), TCP
 * (RFC 9293 3.1) and UDP (RFC 768).
 *
 *     uint64_t acc = csum_add(0, pseudo_header, n);
 *     acc = csum_add(acc, header, hl);
 *     acc = csum_add(acc, payload, len);
 *     uint16_t c = csum_fold(acc);
 *     memcpy(field, &c, 2);       // native store: see csum_fold()
 */
#ifndef MPA_WIRE_CSUM_H
#define MPA_WIRE_CSUM_H

#include <stddef.h>
#include <stdint.h>

/* Adds the octets buf[0..len) to the running sum acc and returns it.
 * Pieces summed one after another must have even lengths, all but the
 * last (an odd last octet is padded with zero, RFC 1071 4.1). */
uint64_t csum_add(uint64_t acc, const uint8_t *buf, size_t len);

/* The checksum of everything added to acc, as the value to store with
 * memcpy() into the field: it is in the host's order of the octets, as
 * the sum is (RFC 1071 2(B)), so the field gets the right octets on any
 * host.  The field must hold zero while the sum is taken. */
uint16_t csum_fold(uint64_t acc);

#endif

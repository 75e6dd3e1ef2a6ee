/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SHA-256 (FIPS 180-4), for the hash of a suite's files in the reports:
 * the same digest `cat FILES | sha256sum` gives.
 */
#ifndef CONFORM_SHA256_H
#define CONFORM_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sha256 {
    uint32_t h[8];
    uint64_t len;  /* octets so far */
    uint8_t buf[64];
    size_t nbuf;
} sha256;

void sha256_init(sha256 *c);
void sha256_add(sha256 *c, const void *p, size_t n);
/* The digest as 64 lower-case hex digits and a NUL (hex: 65 octets). */
void sha256_hex(sha256 *c, char *hex);

#endif

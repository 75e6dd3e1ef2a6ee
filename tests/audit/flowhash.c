/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flow hash of --shard K/N and -j N is a promise across builds and
 * machines (mpa-audit(1): FNV-1a, 64 bits, over the family, the VLAN
 * ids and the two ends, the smaller first): shards made anywhere must
 * agree.  The values below were worked out apart from this code (FNV-1a
 * over the octets as the man page lists them); any change to the
 * function, or to the order of the ends, fails here.
 */
#include <inttypes.h>
#include <stdio.h>

#include "audit.h"

static int fails, checks;

static void want(const char *what, uint64_t got, uint64_t exp)
{
    checks++;
    if (got != exp) {
        fails++;
        printf("flowhash: %s: %016" PRIx64 ", expected %016" PRIx64 "\n", what, got, exp);
    }
}

int main(void)
{
    const uint8_t a4[16] = {192, 0, 2, 10}, b4[16] = {192, 0, 2, 20};
    const uint8_t a6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1}, b6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};
    const uint16_t vlan[2] = {100, 200};
    want("IPv4", audit_flow_hash(4, a4, 41000, b4, 4791, NULL, 0), 0x45238b958277cb48ull);
    want("IPv4, the ends the other way", audit_flow_hash(4, b4, 4791, a4, 41000, NULL, 0), 0x45238b958277cb48ull);
    want("IPv6 in two VLANs, the larger end first", audit_flow_hash(6, b6, 18515, a6, 50000, vlan, 2),
         0x7b4ad5283fd58576ull);
    want("one address, two ports", audit_flow_hash(4, a4, 41000, a4, 4791, NULL, 0), 0xb9dbed93b9dc4cc6ull);
    printf("flowhash: %d passed, %d failed\n", checks - fails, fails);
    return fails != 0;
}

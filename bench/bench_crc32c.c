/*
 * Throughput of mpa_crc32c_update() (RFC 5044 4.4 CRC32C), hardware path
 * and forced-portable path, for buffer sizes an MPA decoder meets: 508
 * (the longest run between two markers), 1460 (one Ethernet MSS), and
 * large buffers.  Prints figures, asserts nothing.
 *
 *   cc -std=c11 -O2 -D_DEFAULT_SOURCE -Iinclude bench/bench_crc32c.c \
 *      src/crc32c.c -o /tmp/bench_crc && /tmp/bench_crc
 *
 * Each call's state feeds the next, as in a stream decoder, so small
 * sizes measure latency per call rather than letting independent calls
 * overlap.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mpa/crc32c.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t sink;

static double run(const uint8_t *buf, size_t len, size_t iters)
{
    uint32_t s = MPA_CRC32C_INIT;
    double t0 = now();
    for (size_t i = 0; i < iters; i++)
        s = mpa_crc32c_update(s, buf, len);
    double t = now() - t0;
    sink ^= s;
    return t;
}

/* GB/s (1e9 octets per second) over roughly 0.3 s of calls. */
static double gbps(const uint8_t *buf, size_t len)
{
    const double target = 0.3;
    size_t iters = 1;
    double t;
    /* Grow until a run is long enough to extrapolate from. */
    while ((t = run(buf, len, iters)) < 0.02)
        iters *= 2;
    size_t n = (size_t)((double)iters * target / t);
    if (n < 1)
        n = 1;
    t = run(buf, len, n);
    return (double)len * (double)n / t / 1e9;
}

int main(void)
{
    static const size_t sizes[] = {64, 508, 1460, 4096, 65536, 64u << 20};
    const size_t nsizes = sizeof sizes / sizeof sizes[0];
    size_t max = sizes[nsizes - 1] + 64;
    uint8_t *mem = malloc(max);
    if (!mem) {
        perror("malloc");
        return 1;
    }
    uint32_t x = 0x12345678u;
    for (size_t i = 0; i < max; i++) {
        x = x * 1103515245u + 12345u;
        mem[i] = (uint8_t)(x >> 24);
    }

    mpa_crc32c_force_portable(0);
    const char *hw = mpa_crc32c_impl();
    printf("crc32c: default implementation \"%s\"; GB/s = 1e9 octets/s\n", hw);
    printf("%10s %6s %12s %12s\n", "size", "align", hw, "portable");
    for (size_t i = 0; i < nsizes; i++) {
        /* 508-octet runs follow a 4-octet marker, so they rarely start
         * 8-aligned in practice; show both. */
        for (size_t off = 0; off <= (sizes[i] == 508 ? 4u : 0u); off += 4) {
            mpa_crc32c_force_portable(0);
            double h = gbps(mem + off, sizes[i]);
            mpa_crc32c_force_portable(1);
            double p = gbps(mem + off, sizes[i]);
            printf("%10zu %6zu %12.2f %12.2f\n", sizes[i], off, h, p);
        }
    }
    mpa_crc32c_force_portable(0);
    printf("(checksum %08x)\n", (unsigned)sink);
    free(mem);
    return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CRC32C, RFC 5044 section 4.4 (the CRC32c of RFC 3385 / RFC 3720 B.4).
 *
 * Known-answer vectors, then the hardware and portable paths against each
 * other and against a bit-at-a-time reference written from the polynomial
 * alone, so a wrong table or a wrong combine constant cannot hide behind
 * the other path agreeing with it.  Every input sits right before a
 * PROT_NONE page (t_guard), so reading one octet past the end faults.
 */
#include "t.h"

#include <stdint.h>

#include "mpa/crc32c.h"

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_ASAN 1
#endif
#endif
#ifdef HAVE_ASAN
#include <sanitizer/asan_interface.h>
#else
#define ASAN_POISON_MEMORY_REGION(a, n) ((void)(a), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(a, n) ((void)(a), (void)(n))
#endif

/* Reflected CRC32C, one bit at a time: independent of every table in
 * src/crc32c.c. */
static uint32_t ref_update(uint32_t c, const uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
    }
    return c;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
    /* xorshift64*: reproducible across runs and hosts. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

static void fill_random(uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        p[i] = (uint8_t)(rnd() >> 56);
}

static int have_hw;

/* mpa_crc32c_update() on the default (fastest) path. */
static uint32_t hw_update(uint32_t s, const void *p, size_t len)
{
    mpa_crc32c_force_portable(0);
    return mpa_crc32c_update(s, p, len);
}

/* One-shot CRC of a guarded copy, by the default path, the portable path
 * and the public one-shot call; all three must agree with want. */
static void check_vector(const char *what, const void *buf, size_t len,
                         uint32_t want)
{
    const uint8_t *g = t_guard(buf, len);
    uint32_t h = mpa_crc32c_final(hw_update(MPA_CRC32C_INIT, g, len));
    uint32_t p = mpa_crc32c_final(
        mpa_crc32c_portable_update(MPA_CRC32C_INIT, g, len));
    uint32_t o = mpa_crc32c(g, len);
    uint32_t r = mpa_crc32c_final(ref_update(MPA_CRC32C_INIT, g, len));
    T_CHECK(h == want, "%s: default path 0x%08x, expected 0x%08x", what,
            (unsigned)h, (unsigned)want);
    T_CHECK(p == want, "%s: portable path 0x%08x, expected 0x%08x", what,
            (unsigned)p, (unsigned)want);
    T_CHECK(o == want, "%s: mpa_crc32c 0x%08x, expected 0x%08x", what,
            (unsigned)o, (unsigned)want);
    T_CHECK(r == want, "%s: reference 0x%08x, expected 0x%08x (test bug)",
            what, (unsigned)r, (unsigned)want);
}

/* The "check" value every CRC catalogue lists for CRC-32C. */
static void test_check_value(void)
{
    check_vector("\"123456789\"", "123456789", 9, 0xE3069283u);
}

/* RFC 3720 appendix B.4, the iSCSI CRC32c examples RFC 5044 relies on. */
static void test_rfc3720_b4(void)
{
    uint8_t b[32];
    memset(b, 0x00, sizeof b);
    check_vector("B.4 32 x 00", b, sizeof b, 0x8A9136AAu);
    memset(b, 0xFF, sizeof b);
    check_vector("B.4 32 x FF", b, sizeof b, 0x62A8AB43u);
    for (int i = 0; i < 32; i++)
        b[i] = (uint8_t)i;
    check_vector("B.4 00..1F", b, sizeof b, 0x46DD794Eu);
    for (int i = 0; i < 32; i++)
        b[i] = (uint8_t)(31 - i);
    check_vector("B.4 1F..00", b, sizeof b, 0x113FDB5Cu);
}

/*
 * draft-culley-iwarp-mpa-03 section 7.2, Figures 5 and 6: the octets of
 * the draft's annotated dumps (test_fpdu.c decodes them).  The CRC covers
 * every octet before the CRC field, markers included (RFC 5044 4.4), and
 * goes on the wire least significant octet first.
 */
static const uint8_t fig5[52] = {
    0x00, 0x00, 0x00, 0x00,             /* marker, FPDUPTR 0 */
    0x00, 0x2a,                         /* ULPDU_Length 42 */
    0x40, 0x03,                         /* DDP / RDMAP control */
    0x00, 0x00, 0x00, 0x00,             /* reserved */
    0x00, 0x00, 0x00, 0x00,             /* QN 0 */
    0x00, 0x00, 0x00, 0x01,             /* MSN 1 */
    0x00, 0x00, 0x00, 0x00,             /* MO 0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 24 octets of Send data */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0x4c, 0x86, 0xb3, 0x84, /* CRC */
};
static const uint8_t fig6[52] = {
    0x00, 0x2a,                         /* ULPDU_Length 42 */
    0x40, 0x03,                         /* DDP / RDMAP control */
    0x00, 0x00, 0x00, 0x00,             /* reserved */
    0x00, 0x00, 0x00, 0x00,             /* QN 0 */
    0x00, 0x00, 0x00, 0x02,             /* MSN 2 */
    0x00, 0x00, 0x00, 0x00,             /* MO 0 */
    0x00, 0x00, 0x00, 0x14,             /* marker, FPDUPTR 0x14 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 24 octets of Send data */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0xa1, 0x9c, 0xd1, 0x03, /* CRC */
};

static uint32_t wire_crc(const uint8_t *fpdu)
{
    const uint8_t *c = fpdu + 48;
    return (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 |
           (uint32_t)c[3] << 24;
}

static void test_mpa_draft_7_2_fpdus(void)
{
    check_vector("MPA draft Fig. 5", fig5, 48, 0x84b3864cu);
    check_vector("MPA draft Fig. 6", fig6, 48, 0x03d19ca1u);
    T_EQ(wire_crc(fig5), 0x84b3864cu);
    T_EQ(wire_crc(fig6), 0x03d19ca1u);

    /* As a stream decoder sees Fig. 6: the run before the marker, the
     * marker, the run after; each piece a separate guarded buffer. */
    for (int port = 0; port < 2; port++) {
        static const size_t cut[] = {0, 20, 24, 48};
        uint32_t s = MPA_CRC32C_INIT;
        for (int i = 0; i < 3; i++) {
            const uint8_t *g = t_guard(fig6 + cut[i], cut[i + 1] - cut[i]);
            s = port ? mpa_crc32c_portable_update(s, g, cut[i + 1] - cut[i])
                     : hw_update(s, g, cut[i + 1] - cut[i]);
        }
        T_CHECK(mpa_crc32c_final(s) == 0x03d19ca1u,
                "Fig. 6 fed around its marker (%s): 0x%08x",
                port ? "portable" : "default", (unsigned)mpa_crc32c_final(s));
    }
}

static void test_empty_and_null(void)
{
    T_EQ(mpa_crc32c(NULL, 0), 0);
    T_EQ(hw_update(0x12345678u, NULL, 0), 0x12345678u);
    T_EQ(mpa_crc32c_portable_update(0x12345678u, NULL, 0), 0x12345678u);
    T_EQ(mpa_crc32c_final(MPA_CRC32C_INIT), 0);
}

static void test_impl_selection(void)
{
    mpa_crc32c_force_portable(0);
    T_STREQ(mpa_crc32c_impl(), have_hw ? "sse4.2" : "portable");
    mpa_crc32c_force_portable(1);
    T_STREQ(mpa_crc32c_impl(), "portable");
    /* Forced portable must really route through the portable code: a
     * input long enough for every hardware stage gives the same value. */
    uint8_t b[4000];
    fill_random(b, sizeof b);
    T_EQ(mpa_crc32c_update(7, b, sizeof b), ref_update(7, b, sizeof b));
    mpa_crc32c_force_portable(0);
    T_STREQ(mpa_crc32c_impl(), have_hw ? "sse4.2" : "portable");
}

/*
 * A guard page sits at a page boundary, so an input that ends right
 * before it starts at alignment (-len) mod 16, whatever its length.  To
 * reach the other fifteen start alignments the input ends up to 15
 * octets before the guard page; under ASan those octets, and the ones
 * before the input, are poisoned so that an over- or under-read still
 * faults.  Without ASan only the end-tight alignment is checked for
 * over-reads.
 */
static const uint8_t *guard_at(const uint8_t *src, size_t len, unsigned align)
{
    size_t pad = (0u - (align + len)) & 15u;
    const uint8_t *p = t_guard(src, len + pad);
    const uint8_t *first = t_guard_base;
    ASAN_POISON_MEMORY_REGION(first, (size_t)(p - first));
    ASAN_POISON_MEMORY_REGION(p + len, pad);
    return p;
}

/* Before the next t_guard(): the mapping may come back at the same
 * address, and ASan keeps shadow across munmap. */
static void unguard(void)
{
    ASAN_UNPOISON_MEMORY_REGION(t_guard_base, t_guard_size);
}

/* Both paths against the reference for src[0..len) placed at start
 * alignment align; counts and reports (the first few) disagreements. */
static unsigned mismatches;

static unsigned compare_at(const uint8_t *src, size_t len, unsigned align)
{
    uint32_t s = (uint32_t)rnd();
    uint32_t want = ref_update(s, src, len);
    const uint8_t *g = guard_at(src, len, align);
    uint32_t h = hw_update(s, g, len);
    uint32_t p = mpa_crc32c_portable_update(s, g, len);
    unsigned got_align = (unsigned)((uintptr_t)g & 15u);
    unguard();
    if (h != want || p != want) {
        if (mismatches++ < 5)
            fprintf(stderr,
                    "len %zu align %u state 0x%08x: default 0x%08x "
                    "portable 0x%08x reference 0x%08x\n",
                    len, got_align, (unsigned)s, (unsigned)h, (unsigned)p,
                    (unsigned)want);
    }
    return got_align;
}

static void test_paths_every_length_and_alignment(void)
{
    const size_t max = 1100;
    uint8_t *src = malloc(max + 16); /* + the pad guard_at() copies */
    fill_random(src, max + 16);
    unsigned misplaced = 0;
    mismatches = 0;
    for (size_t len = 0; len <= max; len++)
        for (unsigned align = 0; align < 16; align++)
            misplaced += compare_at(src, len, align) != align;
    T_CHECK(mismatches == 0, "%u of %zu inputs differ", mismatches,
            (max + 1) * 16);
    T_EQ(misplaced, 0);
    free(src);
}

/* Every three-way stream length up to the longest adaptive one (128
 * words, 3 KiB), a few past it, and around the 3 x 32 KiB large block,
 * whose combine constants nothing shorter reaches. */
static void test_paths_long_lengths(void)
{
    static const size_t big[] = {
        3071, 3072, 3073, 3072 + 71, 3072 + 72, 3072 + 73, 6143, 6144, 6145,
        65535, 65536, 65537, 98303, 98304, 98305, 98304 + 3072,
        98304 + 3072 + 100, 2 * 98304 + 3 * 3072 + 1000 + 7, 1000003};
    size_t max = 1000003;
    uint8_t *src = malloc(max + 16);
    fill_random(src, max + 16);
    mismatches = 0;
    size_t n = 0;
    for (size_t len = 1101; len <= 3400; len++, n++)
        compare_at(src, len, (unsigned)(len * 7) & 15u);
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
        for (unsigned align = 0; align < 16; align += 5, n++)
            compare_at(src, big[i], align);
    T_CHECK(mismatches == 0, "%u of %zu inputs differ", mismatches, n);
    free(src);
}

/* update(update(s, a), b) == update(s, a || b), with a and b in separate
 * guarded buffers, for every split point of several lengths. */
static void test_split_updates(void)
{
    static const size_t lens[] = {0,   1,   7,    8,    9,    23,   24,  71,
                                  72,  73,  100,  255,  508,  512,  1100,
                                  1460, 3073};
    uint8_t *src = malloc(4096);
    fill_random(src, 4096);
    unsigned bad = 0;
    size_t n = 0;
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        size_t len = lens[i];
        uint32_t s0 = (uint32_t)rnd();
        uint32_t want = ref_update(s0, src, len);
        for (size_t k = 0; k <= len; k++, n++) {
            for (int port = 0; port < 2; port++) {
                uint32_t s = s0;
                const uint8_t *g = t_guard(src, k);
                s = port ? mpa_crc32c_portable_update(s, g, k)
                         : hw_update(s, g, k);
                g = t_guard(src + k, len - k);
                s = port ? mpa_crc32c_portable_update(s, g, len - k)
                         : hw_update(s, g, len - k);
                if (s != want && bad++ < 5)
                    fprintf(stderr, "len %zu split at %zu (%s): 0x%08x vs "
                            "0x%08x\n", len, k, port ? "portable" : "default",
                            (unsigned)s, (unsigned)want);
            }
        }
    }
    T_CHECK(bad == 0, "%u of %zu split updates differ", bad, 2 * n);

    /* Random three-piece splits of a large input, mixing the two paths
     * from piece to piece: they share one state format. */
    size_t big = 250000;
    uint8_t *b = malloc(big);
    fill_random(b, big);
    uint32_t want = ref_update(MPA_CRC32C_INIT, b, big);
    bad = 0;
    for (int t = 0; t < 40; t++) {
        size_t c1 = (size_t)(rnd() % (big + 1));
        size_t c2 = c1 + (size_t)(rnd() % (big - c1 + 1));
        size_t cut[4] = {0, c1, c2, big};
        uint32_t s = MPA_CRC32C_INIT;
        for (int i = 0; i < 3; i++) {
            const uint8_t *g = t_guard(b + cut[i], cut[i + 1] - cut[i]);
            s = (rnd() & 1)
                    ? mpa_crc32c_portable_update(s, g, cut[i + 1] - cut[i])
                    : hw_update(s, g, cut[i + 1] - cut[i]);
        }
        if (s != want && bad++ < 5)
            fprintf(stderr, "cuts %zu %zu: 0x%08x vs 0x%08x\n", c1, c2,
                    (unsigned)s, (unsigned)want);
    }
    T_CHECK(bad == 0, "%u of 40 three-piece splits differ", bad);
    free(b);
    free(src);
}

int main(void)
{
    t_name = "test_crc32c";
#if defined(__x86_64__)
    __builtin_cpu_init();
    have_hw = __builtin_cpu_supports("sse4.2") != 0;
#endif
    if (!have_hw)
        printf("test_crc32c: note: no SSE4.2 on this CPU; only the portable "
               "path is tested\n");
#ifndef HAVE_ASAN
    printf("test_crc32c: note: built without ASan; over-reads are caught "
           "only for inputs ending at the guard page\n");
#endif

    test_check_value();
    test_rfc3720_b4();
    test_mpa_draft_7_2_fpdus();
    test_empty_and_null();
    test_impl_selection();
    test_paths_every_length_and_alignment();
    test_paths_long_lengths();
    test_split_updates();
    return t_done();
}

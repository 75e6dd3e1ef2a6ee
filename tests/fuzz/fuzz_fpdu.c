/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the stateless FPDU decoder (RFC 5044 4.1-4.4,
 * draft-culley-iwarp-mpa-03 7.1-7.2).
 *
 * Input: 6 octets of configuration, then the octets decoded.
 *   octet 0  bit 0 markers, bit 1 CRC checked, bit 2 bit 8 of the marker
 *            phase, bits 3-6 whole marker intervals between mark_base and
 *            the phase point (only the phase matters; this exercises the
 *            modulo arithmetic), bit 7 CRC fix-up: when the decoded FPDU's
 *            CRC is wrong, write the computed one into its CRC field and
 *            check that copy too (mutations rarely keep a CRC right, and
 *            the comparison with the encoder needs one)
 *   octet 1  low 8 bits of the marker phase: seq - mark_base (mod 512)
 *   octet 2-5 seq, big-endian (values near 2^32 cross the wrap)
 *
 * Checked on MPA_OK: wire_len fits and is a multiple of 4; it equals
 * mpa_fpdu_wire_len(); markers sit at the marker positions; the CRC
 * status agrees with the two CRC values; mpa_fpdu_ulpdu_copy returns
 * ulpdu_len octets (or cap) and agrees with the ulpdu slice; and when the
 * FPDU is well-formed (CRC right, pad zero, markers as an encoder writes
 * them) mpa_fpdu_encode of the copied ULPDU gives back the same octets.
 * Checked on MPA_NEED_MORE, and on prefixes of a whole FPDU: need >= 1,
 * never past the FPDU, exact once the ULPDU_Length field is in.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpa/fpdu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT 65536u
#define CFG_LEN 6u

#define FAIL(...)                                                            \
    do {                                                                     \
        fprintf(stderr, "fuzz_fpdu: " __VA_ARGS__);                          \
        fputc('\n', stderr);                                                 \
        abort();                                                             \
    } while (0)

/* On failure: the condition, then the values in the input's own terms. */
#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "fuzz_fpdu: check failed: %s\n    ", #cond);     \
            FAIL(__VA_ARGS__);                                               \
        }                                                                    \
    } while (0)

static uint8_t copy_buf[0x10000];
static uint8_t half_buf[0x8000];
static uint8_t enc_buf[MPA_FPDU_WIRE_MAX];
static uint8_t ext_buf[MPA_FPDU_WIRE_MAX + FUZZ_MAX_INPUT];
static uint8_t fix_buf[MPA_FPDU_WIRE_MAX];
static mpa_fpdu f, g; /* ~2 KiB each: static, not on the stack */

static int marker_due(uint32_t seq, const mpa_fpdu_cfg *cfg)
{
    return cfg->markers && ((seq - cfg->mark_base) & (MPA_MARKER_INTERVAL - 1)) == 0;
}

/* Offset just past the ULPDU_Length field: its two octets, skipping the
 * markers the decoder found (a marker can split the field). */
static size_t len_field_end(const mpa_fpdu *d)
{
    size_t off = 0;
    unsigned mk = 0, got = 0;
    while (got < 2) {
        if (mk < d->n_markers && d->markers[mk].buf_off == off) {
            off += MPA_MARKER_LEN;
            mk++;
            continue;
        }
        got++;
        off++;
    }
    return off;
}

static void check_markers(const uint8_t *p, const mpa_fpdu *d, const mpa_fpdu_cfg *cfg)
{
    /* Exactly the marker positions inside the FPDU, in order. */
    unsigned expect = 0;
    for (size_t off = 0; off < d->wire_len; off++)
        if (marker_due(d->seq + (uint32_t)off, cfg)) {
            CHECK(expect < d->n_markers, "marker due at offset %zu not reported (%u markers)", off,
                  d->n_markers);
            const mpa_marker *m = &d->markers[expect];
            CHECK(m->buf_off == off, "marker %u at offset %zu, expected at %zu", expect, m->buf_off,
                  off);
            CHECK(m->seq == d->seq + (uint32_t)off, "marker %u seq %u, expected %u", expect, m->seq,
                  d->seq + (uint32_t)off);
            CHECK(off + MPA_MARKER_LEN <= d->wire_len, "marker %u at %zu runs past wire_len %zu",
                  expect, off, d->wire_len);
            CHECK(m->reserved == (uint16_t)(p[off] << 8 | p[off + 1]) &&
                      m->fpduptr == (uint16_t)(p[off + 2] << 8 | p[off + 3]),
                  "marker %u fields differ from its octets", expect);
            expect++;
            off += MPA_MARKER_LEN - 1;
        }
    CHECK(expect == d->n_markers, "%u markers reported, %u due", d->n_markers, expect);
    CHECK(d->leading_marker == (d->n_markers > 0 && d->markers[0].buf_off == 0),
          "leading_marker %u disagrees with the marker list", d->leading_marker);
}

/* Markers as mpa_fpdu_encode writes them: reserved 0, FPDUPTR = the
 * distance back to the FPDU start (0 for a leading marker). */
static int markers_well_formed(const mpa_fpdu *d)
{
    for (unsigned k = 0; k < d->n_markers; k++)
        if (d->markers[k].reserved != 0 || d->markers[k].fpduptr != (uint16_t)d->markers[k].buf_off)
            return 0;
    return 1;
}

static void check_prefix(const uint8_t *p, size_t k, uint32_t seq, const mpa_fpdu_cfg *cfg,
                         const mpa_fpdu *whole, size_t len_end)
{
    size_t need = 0;
    mpa_status st = mpa_fpdu_decode(p, k, seq, cfg, &g, &need);
    CHECK(st == MPA_NEED_MORE, "prefix %zu of a %zu-octet FPDU: %s", k, whole->wire_len,
          mpa_status_str(st));
    CHECK(need >= 1 && k + need <= whole->wire_len,
          "prefix %zu of a %zu-octet FPDU: need %zu goes past it", k, whole->wire_len, need);
    if (k >= len_end)
        CHECK(k + need == whole->wire_len,
              "prefix %zu (ULPDU_Length known at %zu) of a %zu-octet FPDU: need %zu, expected %zu", k,
              len_end, whole->wire_len, need, whole->wire_len - k);
    /* What the cut FPDU shows agrees with the whole one. */
    static mpa_fpdu_head h;
    CHECK(mpa_fpdu_head_decode(p, k, seq, cfg, &h) == MPA_OK, "head of a %zu-octet prefix", k);
    CHECK(h.have_len == (k >= len_end), "prefix %zu: ULPDU_Length %s (known at %zu)", k,
          h.have_len ? "read" : "not read", len_end);
    if (h.have_len)
        CHECK(h.ulpdu_len == whole->ulpdu_len && h.wire_len == whole->wire_len,
              "prefix %zu: length %u wire %u, the whole FPDU %u and %zu", k, h.ulpdu_len, h.wire_len,
              whole->ulpdu_len, whole->wire_len);
}

static void check_ok(const uint8_t *p, size_t len, uint32_t seq, const mpa_fpdu_cfg *cfg)
{
    CHECK(f.wire_len <= len, "wire_len %zu > %zu octets given", f.wire_len, len);
    CHECK(f.wire_len % 4 == 0, "wire_len %zu is not a multiple of 4", f.wire_len);
    CHECK(f.seq == seq, "seq %u, expected %u", f.seq, seq);
    size_t wl = mpa_fpdu_wire_len(f.ulpdu_len, seq, cfg);
    CHECK(wl == f.wire_len, "mpa_fpdu_wire_len(%u, %u) = %zu, decoded wire_len %zu", f.ulpdu_len,
          seq, wl, f.wire_len);
    CHECK(f.pad_len == ((4u - ((2u + f.ulpdu_len) & 3u)) & 3u), "pad_len %u for ULPDU_Length %u",
          f.pad_len, f.ulpdu_len);
    CHECK(f.wire_len == 2u + f.ulpdu_len + f.pad_len + 4u + MPA_MARKER_LEN * f.n_markers,
          "wire_len %zu != 2 + %u + %u + 4 + 4 * %u markers", f.wire_len, f.ulpdu_len, f.pad_len,
          f.n_markers);
    if (!cfg->markers)
        CHECK(f.n_markers == 0, "%u markers with markers off", f.n_markers);
    check_markers(p, &f, cfg);
    mpa_crc_status want = !cfg->crc ? MPA_CRC_NOT_CHECKED
                          : f.crc_wire == f.crc_calc ? MPA_CRC_GOOD
                                                     : MPA_CRC_BAD;
    CHECK(f.crc == want, "crc status %s, CRC wire 0x%08x calc 0x%08x", mpa_crc_status_str(f.crc),
          f.crc_wire, f.crc_calc);

    size_t n = mpa_fpdu_ulpdu_copy(p, &f, copy_buf, sizeof copy_buf);
    CHECK(n == f.ulpdu_len, "ulpdu_copy returned %zu of %u octets", n, f.ulpdu_len);
    if (f.ulpdu)
        CHECK(memcmp(f.ulpdu, copy_buf, n) == 0, "ulpdu slice and ulpdu_copy differ");
    size_t half = f.ulpdu_len / 2;
    size_t nh = mpa_fpdu_ulpdu_copy(p, &f, half_buf, half);
    CHECK(nh == half, "ulpdu_copy with cap %zu returned %zu", half, nh);
    CHECK(memcmp(half_buf, copy_buf, half) == 0, "ulpdu_copy with a small cap copied other octets");

    /* Compare with the encoder only where the decoder saw nothing an
     * encoder would not write. */
    if (f.crc_wire == f.crc_calc && !f.pad_nonzero && markers_well_formed(&f)) {
        size_t w = 0;
        mpa_status st = mpa_fpdu_encode(copy_buf, n, seq, cfg, NULL, enc_buf, sizeof enc_buf, &w);
        CHECK(st == MPA_OK, "encode of a decoded FPDU: %s", mpa_status_str(st));
        CHECK(w == f.wire_len, "encode wrote %zu octets, decoded wire_len %zu", w, f.wire_len);
        if (memcmp(enc_buf, p, w) != 0) {
            size_t k = 0;
            while (enc_buf[k] == p[k])
                k++;
            FAIL("re-encoded FPDU differs at octet %zu: expected 0x%02x vs actual 0x%02x", k, p[k],
                 enc_buf[k]);
        }
    }

    /* Prefixes: too costly at every length (each decode is O(length)),
     * so the first octets, the last ones, around the length field and
     * every marker, and a sampling in between. */
    size_t len_end = len_field_end(&f);
    for (size_t k = 0; k < f.wire_len && k < 12; k++)
        check_prefix(p, k, seq, cfg, &f, len_end);
    for (size_t j = 1; j <= 8 && j <= f.wire_len; j++)
        check_prefix(p, f.wire_len - j, seq, cfg, &f, len_end);
    for (size_t j = 0; j < 3; j++)
        if (len_end + j >= 1 && len_end + j - 1 < f.wire_len)
            check_prefix(p, len_end + j - 1, seq, cfg, &f, len_end);
    for (unsigned m = 0; m < f.n_markers; m++)
        for (size_t j = 0; j <= MPA_MARKER_LEN + 1; j++) {
            size_t k = f.markers[m].buf_off + j;
            if (k >= 1 && k - 1 < f.wire_len)
                check_prefix(p, k - 1, seq, cfg, &f, len_end);
        }
    size_t step = f.wire_len / 16 ? f.wire_len / 16 : 1;
    for (size_t k = 0; k < f.wire_len; k += step)
        check_prefix(p, k, seq, cfg, &f, len_end);
}

static int in_marker(const mpa_fpdu *d, size_t off)
{
    for (unsigned k = 0; k < d->n_markers; k++)
        if (off >= d->markers[k].buf_off && off < d->markers[k].buf_off + MPA_MARKER_LEN)
            return 1;
    return 0;
}

/* The decoded FPDU (in f) with its CRC field set to the computed CRC:
 * the CRC octets are the last 4 that are not marker octets (a marker can
 * fall inside the field; it is not covered by the CRC). */
static void check_crc_fixed(const uint8_t *p, uint32_t seq, const mpa_fpdu_cfg *cfg)
{
    size_t wl = f.wire_len, pos[4];
    uint32_t crc = f.crc_calc;
    memcpy(fix_buf, p, wl);
    for (int k = 3, off = (int)wl - 1; k >= 0; off--) {
        CHECK(off >= 0, "harness: no room for the CRC field");
        if (!in_marker(&f, (size_t)off))
            pos[k--] = (size_t)off;
    }
    for (int k = 0; k < 4; k++)
        fix_buf[pos[k]] = (uint8_t)(crc >> (8 * k));
    size_t need = 0;
    mpa_status st = mpa_fpdu_decode(fix_buf, wl, seq, cfg, &f, &need);
    CHECK(st == MPA_OK, "FPDU with its CRC fixed: %s", mpa_status_str(st));
    CHECK(f.wire_len == wl, "FPDU with its CRC fixed: wire_len %zu, was %zu", f.wire_len, wl);
    CHECK(f.crc_wire == crc && f.crc_calc == crc,
          "CRC field set to the computed 0x%08x: now wire 0x%08x calc 0x%08x", crc, f.crc_wire,
          f.crc_calc);
    check_ok(fix_buf, wl, seq, cfg);
}

/* A short input: the octets still missing, as zeros, complete it. */
static void check_need_more(const uint8_t *p, size_t len, uint32_t seq, const mpa_fpdu_cfg *cfg,
                            size_t need)
{
    CHECK(need >= 1, "MPA_NEED_MORE with need 0 at %zu octets", len);
    CHECK(need <= MPA_FPDU_WIRE_MAX, "need %zu > the largest FPDU", need);
    memcpy(ext_buf, p, len);
    memset(ext_buf + len, 0, need);
    size_t need2 = 0;
    mpa_status st = mpa_fpdu_decode(ext_buf, len + need, seq, cfg, &g, &need2);
    if (st == MPA_NEED_MORE) {
        /* Only a missing ULPDU_Length field may leave more to ask for. */
        CHECK(need2 >= 1, "NEED_MORE with need 0 after adding %zu octets", need);
        return;
    }
    CHECK(st == MPA_OK, "%zu octets + %zu asked for: %s", len, need, mpa_status_str(st));
    CHECK(g.wire_len <= len + need, "%zu octets + %zu asked for: wire_len %zu", len, need,
          g.wire_len);
    if (len >= len_field_end(&g))
        CHECK(g.wire_len == len + need,
              "ULPDU_Length was in the %zu octets, need %zu, but the FPDU is %zu octets", len, need,
              g.wire_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < CFG_LEN || size > FUZZ_MAX_INPUT)
        return 0;
    mpa_fpdu_cfg cfg;
    cfg.markers = data[0] & 1;
    cfg.crc = data[0] >> 1 & 1;
    uint32_t phase = (uint32_t)data[1] | (uint32_t)(data[0] >> 2 & 1) << 8;
    uint32_t seq = (uint32_t)data[2] << 24 | (uint32_t)data[3] << 16 | (uint32_t)data[4] << 8 |
                   data[5];
    cfg.mark_base = seq - phase - MPA_MARKER_INTERVAL * (uint32_t)(data[0] >> 3 & 0xF);
    const uint8_t *p = data + CFG_LEN;
    size_t len = size - CFG_LEN;

    size_t need = 0;
    mpa_status st = mpa_fpdu_decode(p, len, seq, &cfg, &f, &need);
    if (st == MPA_OK) {
        CHECK(need == 0, "MPA_OK with need %zu", need);
        check_ok(p, len, seq, &cfg);
        if ((data[0] & 0x80) && f.crc_wire != f.crc_calc)
            check_crc_fixed(p, seq, &cfg);
    } else {
        CHECK(st == MPA_NEED_MORE, "status %s", mpa_status_str(st));
        check_need_more(p, len, seq, &cfg, need);
    }
    return 0;
}

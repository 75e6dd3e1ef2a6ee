/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: MPA startup frames (RFC 5044 7.1.1, RFC 6581 9,
 * draft-culley-iwarp-mpa-03 Start Key).
 *
 * The input is one candidate frame.  Checked:
 *  - round trip: a frame that decodes (MPA_OK) re-encodes with
 *    mpa_frame_encode to the very octets it was decoded from, and those
 *    decode to the same fields;
 *  - the NEED_MORE contract on every prefix: never MPA_OK with a
 *    frame_len past the prefix; a prefix of a whole frame asks for at
 *    least one and at most the missing octets; a prefix that holds the
 *    whole frame decodes exactly as the full input.
 * Any broken check prints what was expected and what was found, in the
 * frame's own terms, then abort()s so libFuzzer keeps the input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpa/describe.h"
#include "mpa/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT 65536u
#define PREFIX_MAX 4096u /* prefixes checked one by one (each is O(1)) */

#define FAIL(...)                                                            \
    do {                                                                     \
        fprintf(stderr, "fuzz_frame: " __VA_ARGS__);                         \
        fputc('\n', stderr);                                                 \
        abort();                                                             \
    } while (0)

/* On failure: the condition, then the values in the input's own terms. */
#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "fuzz_frame: check failed: %s\n    ", #cond);    \
            FAIL(__VA_ARGS__);                                               \
        }                                                                    \
    } while (0)

static uint8_t enc_buf[MPA_FRAME_HDR_LEN + 0xFFFFu + MPA_ENH_LEN];

/* Fields that must survive decode -> encode -> decode (pointers aside). */
static void same_fields(const mpa_frame *a, const mpa_frame *b, const char *what)
{
    CHECK(a->kind == b->kind, "%s: kind %d vs %d", what, a->kind, b->kind);
    CHECK(memcmp(a->key, b->key, MPA_KEY_LEN) == 0, "%s: key differs", what);
    CHECK(a->nearest == b->nearest, "%s: nearest %d vs %d", what, a->nearest, b->nearest);
    CHECK(a->first_diff == b->first_diff, "%s: first_diff %d vs %d", what, a->first_diff,
          b->first_diff);
    CHECK(a->n_diff == b->n_diff, "%s: n_diff %u vs %u", what, a->n_diff, b->n_diff);
    CHECK(a->m == b->m && a->c == b->c && a->r == b->r && a->s == b->s,
          "%s: M/C/R/S %u%u%u%u vs %u%u%u%u", what, a->m, a->c, a->r, a->s, b->m, b->c, b->r, b->s);
    CHECK(a->res == b->res, "%s: Res 0x%x vs 0x%x", what, a->res, b->res);
    CHECK(a->rev == b->rev, "%s: Rev %u vs %u", what, a->rev, b->rev);
    CHECK(a->pd_len == b->pd_len, "%s: PD_Length %u vs %u", what, a->pd_len, b->pd_len);
    CHECK(a->hdr_len == b->hdr_len, "%s: hdr_len %zu vs %zu", what, a->hdr_len, b->hdr_len);
    CHECK(a->frame_len == b->frame_len, "%s: frame_len %zu vs %zu", what, a->frame_len,
          b->frame_len);
    CHECK(a->has_enh == b->has_enh, "%s: has_enh %d vs %d", what, a->has_enh, b->has_enh);
    if (a->has_enh)
        CHECK(mpa_enh_pack(&a->enh) == mpa_enh_pack(&b->enh), "%s: enhanced 0x%08x vs 0x%08x",
              what, mpa_enh_pack(&a->enh), mpa_enh_pack(&b->enh));
    CHECK(a->pd_avail == b->pd_avail, "%s: pd_avail %zu vs %zu", what, a->pd_avail, b->pd_avail);
    if (a->pd_avail && a->pd && b->pd)
        CHECK(memcmp(a->pd, b->pd, a->pd_avail) == 0, "%s: private data differs", what);
}

static void round_trip(const uint8_t *data, const mpa_frame *f)
{
    mpa_frame_enc e;
    memset(&e, 0, sizeof e);
    e.kind = f->kind;
    e.m = f->m;
    e.c = f->c;
    e.r = f->r;
    e.s = f->s;
    e.res = f->res;
    e.rev = f->rev;
    e.pd_len_override = -1;
    size_t want = f->frame_len;
    if (f->kind != MPA_KEY_STARTKEY) {
        const uint8_t *pd = f->pd;
        size_t pd_len = f->pd_len;
        if (f->has_enh) {
            e.enh_present = 1;
            e.enh = f->enh;
            pd += MPA_ENH_LEN;
            pd_len -= MPA_ENH_LEN;
        }
        e.pd = pd_len ? pd : NULL;
        e.pd_len = pd_len;
        size_t truth = pd_len + (e.enh_present ? MPA_ENH_LEN : 0);
        if (truth != f->pd_len)
            e.pd_len_override = f->pd_len;
    }
    size_t w = 0;
    mpa_status st = mpa_frame_encode(&e, enc_buf, sizeof enc_buf, &w);
    CHECK(st == MPA_OK, "encode of a decoded %s: %s", mpa_key_kind_name(f->kind),
          mpa_status_str(st));
    CHECK(w == want, "encode wrote %zu octets, the frame had %zu", w, want);
    /* Every bit of the frame is a field, so the octets come back too. */
    if (memcmp(enc_buf, data, w) != 0) {
        size_t k = 0;
        while (enc_buf[k] == data[k])
            k++;
        FAIL("re-encoded frame differs at octet %zu: expected 0x%02x vs actual 0x%02x", k, data[k],
             enc_buf[k]);
    }
    mpa_frame g;
    size_t need = 99;
    st = mpa_frame_decode(enc_buf, w, &g, &need);
    CHECK(st == MPA_OK, "decode(encode(x)): %s, need %zu", mpa_status_str(st), need);
    same_fields(f, &g, "decode(encode(x))");
}

/* The one-line summary of whatever was decoded: no over-run, and the
 * same length wanted at any cap (snprintf's contract). */
static void summary(const mpa_frame *f)
{
    char s1[512], s2[8];
    size_t n1 = mpa_frame_summary(f, s1, sizeof s1);
    size_t n2 = mpa_frame_summary(f, s2, sizeof s2);
    CHECK(n1 == n2, "summary length %zu vs %zu at a small cap", n1, n2);
    CHECK(strlen(s1) == (n1 < sizeof s1 ? n1 : sizeof s1 - 1), "summary not NUL-terminated");
    CHECK(strlen(s2) == (n2 < sizeof s2 ? n2 : sizeof s2 - 1),
          "summary not NUL-terminated at a small cap");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    mpa_frame f;
    size_t need = 99;
    mpa_status st = mpa_frame_decode(data, size, &f, &need);
    CHECK(st == MPA_OK || st == MPA_NEED_MORE || st == MPA_E_INVALID, "status %d", st);
    summary(&f);
    if (st == MPA_OK) {
        CHECK(f.frame_len <= size, "MPA_OK with frame_len %zu > %zu octets", f.frame_len, size);
        CHECK(f.kind != MPA_KEY_UNKNOWN, "MPA_OK for an unknown key");
        CHECK(need == 0, "MPA_OK with need %zu", need);
        CHECK(f.pd_avail == f.pd_len, "MPA_OK with pd_avail %zu < PD_Length %u", f.pd_avail,
              f.pd_len);
        round_trip(data, &f);
    } else if (st == MPA_NEED_MORE) {
        CHECK(need >= 1, "MPA_NEED_MORE with need 0 at %zu octets", size);
        CHECK(f.pd_avail <= f.pd_len, "pd_avail %zu > PD_Length %u", f.pd_avail, f.pd_len);
    } else {
        CHECK(f.kind == MPA_KEY_UNKNOWN, "MPA_E_INVALID for a known key (%s)",
              mpa_key_kind_name(f.kind));
    }

    /* Prefixes: the decoder sees a frame arrive octet by octet. */
    size_t lim = size < PREFIX_MAX ? size : PREFIX_MAX;
    for (size_t k = 0; k < lim; k++) {
        mpa_frame p;
        size_t pneed = 99;
        mpa_status ps = mpa_frame_decode(data, k, &p, &pneed);
        if (ps == MPA_OK)
            CHECK(p.frame_len <= k, "prefix %zu: MPA_OK with frame_len %zu", k, p.frame_len);
        if (st == MPA_OK) {
            if (k < f.frame_len) {
                CHECK(ps == MPA_NEED_MORE, "prefix %zu of a %zu-octet frame: %s", k, f.frame_len,
                      mpa_status_str(ps));
                CHECK(pneed >= 1 && k + pneed <= f.frame_len,
                      "prefix %zu of a %zu-octet frame: need %zu", k, f.frame_len, pneed);
            } else {
                CHECK(ps == MPA_OK, "prefix %zu holds the %zu-octet frame: %s", k, f.frame_len,
                      mpa_status_str(ps));
                same_fields(&f, &p, "prefix holding the frame");
            }
        } else if (ps == MPA_NEED_MORE) {
            CHECK(pneed >= 1, "prefix %zu: MPA_NEED_MORE with need 0", k);
        }
        if (st == MPA_E_INVALID && k >= MPA_FRAME_HDR_LEN)
            CHECK(ps == MPA_E_INVALID, "prefix %zu of an unknown-key frame: %s", k,
                  mpa_status_str(ps));
    }
    return 0;
}

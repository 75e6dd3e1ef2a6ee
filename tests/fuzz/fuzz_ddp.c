/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: DDP and RDMAP headers at the start of a ULPDU
 * (RFC 5041 4, RFC 5040 4, RFC 7306).
 *
 * Input: octets 0-1 are ulpdu_len (big-endian), the rest is the ULPDU's
 * start.  The decoder is run on every prefix of that start up to 128
 * octets (what the stream engine keeps); a prefix longer than ulpdu_len
 * must be refused (MPA_E_ARG).  The longest prefix allowed is the
 * reference.  Checked for each prefix:
 *  - the status contract of mpa_ddp_decode (need, need_len, seen_len,
 *    complete, payload_len), need_len never shrinking as octets arrive,
 *    and a prefix that holds the headers decoding exactly as the
 *    reference;
 *  - fields already seen equal the reference's;
 *  - mpa_ddp_anomalies of a prefix is a subset of the reference's (a
 *    check is skipped, never judged differently, while its octets are
 *    missing); mpa_ddp_rtr_kind is NONE unless complete; mpa_ddp_summary
 *    is NUL-terminated and wants the same length at any cap;
 *  - on MPA_OK: mpa_ddp_encode writes the same octets back and decoding
 *    them gives the same fields.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpa/ddp.h"
#include "mpa/describe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT 65536u
#define PREFIX_KEEP 128u

#define FAIL(...)                                                            \
    do {                                                                     \
        fprintf(stderr, "fuzz_ddp: " __VA_ARGS__);                           \
        fputc('\n', stderr);                                                 \
        abort();                                                             \
    } while (0)

/* On failure: the condition, then the values in the input's own terms. */
#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "fuzz_ddp: check failed: %s\n    ", #cond);      \
            FAIL(__VA_ARGS__);                                               \
        }                                                                    \
    } while (0)

/* a and b point to the two structs compared; what names the comparison. */
#define SAME(field)                                                          \
    CHECK(a->field == b->field, "%s: " #field " 0x%llx vs 0x%llx", what,     \
          (unsigned long long)a->field, (unsigned long long)b->field)

static void same_hdr(const mpa_ddp_hdr *a, const mpa_ddp_hdr *b, const char *what)
{
    SAME(tagged);
    SAME(last);
    SAME(ddp_rsvd);
    SAME(dv);
    SAME(rv);
    SAME(rdmap_rsvd);
    SAME(opcode);
    SAME(stag);
    SAME(to);
    SAME(rsvdulp);
    SAME(qn);
    SAME(msn);
    SAME(mo);
}

static void same_rreq(const mpa_rdma_read_req *a, const mpa_rdma_read_req *b, const char *what)
{
    SAME(sink_stag);
    SAME(sink_to);
    SAME(size);
    SAME(src_stag);
    SAME(src_to);
}

static void same_term(const mpa_term *a, const mpa_term *b, const char *what)
{
    SAME(layer);
    SAME(etype);
    SAME(code);
    SAME(m);
    SAME(d);
    SAME(r);
    SAME(rsvd);
    SAME(seglen_present);
    SAME(seglen);
    SAME(has_ddp_hdr);
    SAME(ddp_hdr_len);
    same_hdr(&a->ddp_hdr, &b->ddp_hdr, what);
    SAME(rdma_hdr_len);
    CHECK(!a->rdma_hdr == !b->rdma_hdr, "%s: rdma_hdr present %d vs %d", what, !!a->rdma_hdr,
          !!b->rdma_hdr);
    if (a->rdma_hdr && b->rdma_hdr)
        CHECK(memcmp(a->rdma_hdr, b->rdma_hdr, MPA_RDMAP_RREQ_LEN) == 0,
              "%s: terminated RDMA header octets differ", what);
    SAME(rdma_hdr_is_rreq);
    same_rreq(&a->rreq, &b->rreq, what);
}

static void same_ddp(const mpa_ddp *a, const mpa_ddp *b, const char *what)
{
    same_hdr(&a->hdr, &b->hdr, what);
    SAME(opcode_known);
    SAME(complete);
    SAME(ulpdu_len);
    SAME(hdr_len);
    SAME(body_len);
    SAME(need_len);
    SAME(seen_len);
    SAME(payload_len);
    switch (a->hdr.opcode) {
    case MPA_RDMAP_READ_REQUEST:
        same_rreq(&a->u.rreq, &b->u.rreq, what);
        break;
    case MPA_RDMAP_TERMINATE:
        same_term(&a->u.term, &b->u.term, what);
        break;
    case MPA_RDMAP_ATOMIC_REQUEST:
        SAME(u.atomic_req.rsvd);
        SAME(u.atomic_req.aop);
        SAME(u.atomic_req.req_id);
        SAME(u.atomic_req.stag);
        SAME(u.atomic_req.to);
        SAME(u.atomic_req.add_swap_data);
        SAME(u.atomic_req.add_swap_mask);
        SAME(u.atomic_req.compare_data);
        SAME(u.atomic_req.compare_mask);
        break;
    case MPA_RDMAP_ATOMIC_RESPONSE:
        SAME(u.atomic_resp.orig_req_id);
        SAME(u.atomic_resp.orig_value);
        break;
    case MPA_RDMAP_IMMEDIATE:
    case MPA_RDMAP_IMMEDIATE_SE:
        SAME(u.imm.data);
        break;
    default:
        break;
    }
}

static void check_summary(const mpa_ddp *d, mpa_status st)
{
    char s1[512], s2[8];
    size_t n1 = mpa_ddp_summary(d, st, s1, sizeof s1);
    size_t n2 = mpa_ddp_summary(d, st, s2, sizeof s2);
    CHECK(n1 == n2, "summary length %zu vs %zu at a small cap", n1, n2);
    CHECK(strlen(s1) == (n1 < sizeof s1 ? n1 : sizeof s1 - 1), "summary not NUL-terminated");
    CHECK(strlen(s2) == (n2 < sizeof s2 ? n2 : sizeof s2 - 1),
          "summary not NUL-terminated at a small cap");
}

static void check_anomalies(uint32_t an)
{
    for (unsigned b = 0; b < 32; b++)
        if (an >> b & 1u)
            CHECK(strcmp(mpa_ddp_anomaly_name(1u << b), "unknown") != 0,
                  "anomaly bit %u has no name", b);
}

/* The contract of one decode at `avail` octets. */
static void check_one(const mpa_ddp *d, mpa_status st, size_t need, size_t avail, size_t ul)
{
    CHECK(d->ulpdu_len == ul, "ulpdu_len %zu, given %zu", d->ulpdu_len, ul);
    CHECK(d->seen_len == (avail < d->need_len ? avail : d->need_len),
          "avail %zu: seen_len %zu, need_len %zu", avail, d->seen_len, d->need_len);
    switch (st) {
    case MPA_OK:
        CHECK(d->complete == 1, "avail %zu: MPA_OK, complete 0", avail);
        CHECK(need == 0, "avail %zu: MPA_OK with need %zu", avail, need);
        CHECK(d->need_len <= avail, "avail %zu: MPA_OK with need_len %zu", avail, d->need_len);
        CHECK(d->need_len == d->hdr_len + d->body_len, "need_len %zu != hdr %zu + body %zu",
              d->need_len, d->hdr_len, d->body_len);
        CHECK(d->payload_len == ul - d->need_len, "payload_len %zu, ulpdu %zu, need_len %zu",
              d->payload_len, ul, d->need_len);
        CHECK(d->hdr_len == (d->hdr.tagged ? MPA_DDP_TAGGED_HDR_LEN : MPA_DDP_UNTAGGED_HDR_LEN),
              "hdr_len %zu with T=%u", d->hdr_len, d->hdr.tagged);
        CHECK(d->need_len <= MPA_DDP_MAX_STRUCT_LEN, "need_len %zu > MPA_DDP_MAX_STRUCT_LEN",
              d->need_len);
        break;
    case MPA_NEED_MORE:
        CHECK(!d->complete, "avail %zu: MPA_NEED_MORE, complete 1", avail);
        CHECK(need >= 1 && need == d->need_len - avail, "avail %zu: need %zu, need_len %zu", avail,
              need, d->need_len);
        CHECK(d->need_len <= ul, "avail %zu: MPA_NEED_MORE, need_len %zu > ulpdu_len %zu", avail,
              d->need_len, ul);
        CHECK(d->payload_len == 0, "payload_len %zu when incomplete", d->payload_len);
        break;
    case MPA_E_INVALID:
        CHECK(!d->complete, "avail %zu: MPA_E_INVALID, complete 1", avail);
        CHECK(need == 0, "avail %zu: MPA_E_INVALID with need %zu", avail, need);
        CHECK(d->need_len > ul, "avail %zu: MPA_E_INVALID, need_len %zu <= ulpdu_len %zu", avail,
              d->need_len, ul);
        break;
    default:
        FAIL("avail %zu: status %s", avail, mpa_status_str(st));
    }
    mpa_rtr_kind k = mpa_ddp_rtr_kind(d);
    CHECK(k == MPA_RTR_NONE || st == MPA_OK, "avail %zu: RTR kind %d on an incomplete decode",
          avail, k);
    check_anomalies(mpa_ddp_anomalies(d));
    check_summary(d, st);
}

/* Fields a prefix has seen are the reference's. */
static void check_seen(const mpa_ddp *d, const mpa_ddp *ref, size_t avail)
{
    const mpa_ddp_hdr *a = &d->hdr, *b = &ref->hdr;
    char what[64];
    snprintf(what, sizeof what, "prefix %zu vs reference", avail);
    if (avail >= 1) {
        SAME(tagged);
        SAME(last);
        SAME(ddp_rsvd);
        SAME(dv);
        CHECK(d->hdr_len == ref->hdr_len, "%s: hdr_len %zu vs %zu", what, d->hdr_len, ref->hdr_len);
    }
    if (avail >= 2) {
        SAME(rv);
        SAME(rdmap_rsvd);
        SAME(opcode);
        CHECK(d->opcode_known == ref->opcode_known, "%s: opcode_known", what);
    }
    if (avail >= ref->hdr_len && ref->hdr_len)
        same_hdr(a, b, what);
}

static void round_trip(const uint8_t *p, const mpa_ddp *d, size_t ul)
{
    uint8_t out[MPA_DDP_MAX_STRUCT_LEN + 16];
    size_t w = 0;
    mpa_status st = mpa_ddp_encode(d, out, sizeof out, &w);
    CHECK(st == MPA_OK, "encode of a decoded segment: %s", mpa_status_str(st));
    CHECK(w == d->need_len, "encode wrote %zu octets, decoded need_len %zu", w, d->need_len);
    /* Every bit of the headers is a field: the octets come back. */
    if (memcmp(out, p, w) != 0) {
        size_t k = 0;
        while (out[k] == p[k])
            k++;
        FAIL("re-encoded headers differ at octet %zu: expected 0x%02x vs actual 0x%02x", k, p[k],
             out[k]);
    }
    size_t w2 = 0;
    st = mpa_ddp_encode(d, out, w - 1, &w2);
    CHECK(st == MPA_E_NOSPACE && w2 == w, "encode with cap %zu: %s, written %zu", w - 1,
          mpa_status_str(st), w2);

    mpa_ddp e;
    size_t need = 99;
    st = mpa_ddp_encode(d, out, sizeof out, &w);
    CHECK(st == MPA_OK, "encode after a short-cap encode: %s", mpa_status_str(st));
    st = mpa_ddp_decode(out, w, ul, &e, &need);
    CHECK(st == MPA_OK, "decode(encode(x)): %s, need %zu", mpa_status_str(st), need);
    same_ddp(d, &e, "decode(encode(x))");
    CHECK(mpa_ddp_anomalies(d) == mpa_ddp_anomalies(&e), "anomalies 0x%x vs 0x%x after re-encode",
          mpa_ddp_anomalies(d), mpa_ddp_anomalies(&e));
    CHECK(mpa_ddp_rtr_kind(d) == mpa_ddp_rtr_kind(&e), "RTR kind differs after re-encode");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || size > FUZZ_MAX_INPUT)
        return 0;
    size_t ul = (size_t)data[0] << 8 | data[1];
    const uint8_t *p = data + 2;
    size_t n = size - 2;
    size_t maxa = n < PREFIX_KEEP ? n : PREFIX_KEEP;
    size_t ra = maxa < ul ? maxa : ul; /* the reference prefix */

    mpa_ddp ref, d;
    size_t rneed = 99;
    mpa_status rst = mpa_ddp_decode(p, ra, ul, &ref, &rneed);
    check_one(&ref, rst, rneed, ra, ul);
    uint32_t ran = mpa_ddp_anomalies(&ref);

    size_t prev_need_len = 0;
    mpa_status prev = MPA_NEED_MORE;
    for (size_t a = 0; a <= maxa; a++) {
        size_t need = 99;
        mpa_status st = mpa_ddp_decode(a ? p : NULL, a, ul, &d, &need);
        if (a > ul) {
            CHECK(st == MPA_E_ARG, "avail %zu > ulpdu_len %zu: %s", a, ul, mpa_status_str(st));
            continue;
        }
        check_one(&d, st, need, a, ul);
        check_seen(&d, &ref, a);
        CHECK(d.need_len >= prev_need_len, "avail %zu: need_len shrank from %zu to %zu", a,
              prev_need_len, d.need_len);
        CHECK(!(prev == MPA_E_INVALID && st != MPA_E_INVALID),
              "avail %zu: %s after MPA_E_INVALID at fewer octets", a, mpa_status_str(st));
        CHECK(!(prev == MPA_OK && st != MPA_OK), "avail %zu: %s after MPA_OK at fewer octets", a,
              mpa_status_str(st));
        prev_need_len = d.need_len;
        prev = st;
        uint32_t an = mpa_ddp_anomalies(&d);
        CHECK((an & ~ran) == 0, "avail %zu: anomalies 0x%x, not in the reference's 0x%x", a, an,
              ran);
        if (rst == MPA_OK) {
            if (a < ref.need_len) {
                CHECK(st == MPA_NEED_MORE, "avail %zu of %zu-octet headers: %s", a, ref.need_len,
                      mpa_status_str(st));
                CHECK(a + need <= ref.need_len, "avail %zu: need %zu past the %zu-octet headers", a,
                      need, ref.need_len);
            } else {
                CHECK(st == MPA_OK, "avail %zu holds the %zu-octet headers: %s", a, ref.need_len,
                      mpa_status_str(st));
                same_ddp(&d, &ref, "prefix holding the headers");
                CHECK(an == ran, "avail %zu: anomalies 0x%x vs 0x%x", a, an, ran);
            }
        }
    }
    if (rst == MPA_OK)
        round_trip(p, &ref, ul);
    return 0;
}

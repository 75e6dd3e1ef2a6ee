/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the DDP/RDMAP header module (include/mpa/ddp.h).
 *
 * Each test names the clause it checks: RFC 5041 (DDP), RFC 5040 (RDMAP),
 * RFC 7306 (RDMAP extensions), RFC 5044 8 and RFC 6581 8 (MPA TERMINATE
 * codes), RFC 6581 9.2 (RTR messages), and the ULPDU of the
 * draft-culley-iwarp-mpa-03 7.2 Figure 5 vector.
 *
 * Inputs are hand-built byte arrays; every decode runs on a page-guarded
 * copy (t_guard) so that reading one octet past the prefix faults.
 */
#include <stdint.h>
#include <string.h>

#include "bytes.h"
#include "mpa/ddp.h"
#include "t.h"

/* ---- helpers --------------------------------------------------------- */

/* Decode buf[0..avail) from a guarded copy. */
static mpa_status dec(const uint8_t *buf, size_t avail, size_t ulpdu_len,
                      mpa_ddp *d, size_t *need)
{
    const uint8_t *g = t_guard(buf, avail);
    return mpa_ddp_decode(g, avail, ulpdu_len, d, need);
}

/* Independent layout oracle: length of the headers in b (full copy). */
static size_t layout_len(const uint8_t *b)
{
    size_t h = (b[0] & 0x80) ? 14 : 18;
    switch (b[1] & 0x0F) {
    case 0x1: return h + 28;
    case 0xA: return h + 52;
    case 0xB: return h + 12;
    case 0x8:
    case 0x9: return h + 8;
    case 0x7: {
        uint8_t f = b[h + 2];
        size_t n = h + 4;
        if (f & 0xC0)
            n += 2;
        if (f & 0x40)
            n += (b[n] & 0x80) ? 14 : 18;
        if (f & 0x20)
            n += 28;
        return n;
    }
    default: return h;
    }
}

/* The least header length consistent with b[0..avail): unseen layout
 * octets take their smallest meaning (T=1, body-less opcode, M=D=R=0,
 * copied header tagged). */
static size_t least_len(const uint8_t *b, size_t full, size_t avail)
{
    uint8_t m[256];
    memcpy(m, b, full);
    if (avail < 1)
        m[0] |= 0x80;
    if (avail < 2)
        m[1] &= 0xF0;
    size_t h = (m[0] & 0x80) ? 14 : 18;
    if ((m[1] & 0x0F) == 0x7) {
        if (avail < h + 4) /* the control word is read whole */
            m[h + 2] &= 0x1F;
        size_t nested = h + 4 + 2;
        if ((m[h + 2] & 0x40) && avail < nested + 1)
            m[nested] |= 0x80;
    }
    return layout_len(m);
}

/*
 * Every proper prefix gives MPA_NEED_MORE with *need equal to the least
 * length consistent with the prefix minus avail (exact once the layout
 * octets are in); every longer prefix gives MPA_OK.  The ULPDU is
 * bytes[0..len); t_guard makes any over-read fault.
 */
static void check_prefixes(const char *what, const uint8_t *bytes, size_t len)
{
    size_t s = layout_len(bytes);
    size_t prev_total = 0;
    for (size_t avail = 0; avail <= len; avail++) {
        mpa_ddp d;
        size_t need = 12345;
        mpa_status st = dec(bytes, avail, len, &d, &need);
        if (avail < s) {
            T_CHECK(st == MPA_NEED_MORE, "%s avail %zu: status %d", what, avail,
                    (int)st);
            size_t want = least_len(bytes, len, avail) - avail;
            T_CHECK(need == want, "%s avail %zu: need %zu, want %zu", what,
                    avail, need, want);
            T_CHECK(need >= 1 && avail + need <= s,
                    "%s avail %zu: need %zu out of range", what, avail, need);
            T_CHECK(avail + need >= prev_total,
                    "%s avail %zu: lower bound went down", what, avail);
            prev_total = avail + need;
            T_CHECK(d.complete == 0 && d.payload_len == 0,
                    "%s avail %zu: incomplete decode marked complete", what,
                    avail);
        } else {
            T_CHECK(st == MPA_OK && need == 0, "%s avail %zu: status %d", what,
                    avail, (int)st);
            T_CHECK(d.need_len == s && d.payload_len == len - s,
                    "%s avail %zu: lengths %zu/%zu", what, avail, d.need_len,
                    d.payload_len);
        }
    }
}

/* ulpdu_len one short of the headers: MPA_E_INVALID with need_len = the
 * real header length (all layout octets are inside the prefix). */
static void check_short_ulpdu(const char *what, const uint8_t *bytes)
{
    size_t s = layout_len(bytes);
    mpa_ddp d;
    size_t need = 99;
    mpa_status st = dec(bytes, s - 1, s - 1, &d, &need);
    T_CHECK(st == MPA_E_INVALID, "%s: short ulpdu status %d", what, (int)st);
    T_CHECK(d.need_len == s, "%s: need_len %zu want %zu", what, d.need_len, s);
    T_CHECK(need == 0 && d.complete == 0, "%s: need %zu", what, need);
}

/* decode(bytes) -> encode -> the same octets. */
static void check_reencode(const char *what, const uint8_t *bytes)
{
    size_t s = layout_len(bytes);
    mpa_ddp d;
    size_t need;
    T_CHECK(dec(bytes, s, s, &d, &need) == MPA_OK, "%s: decode", what);
    uint8_t out[128];
    memset(out, 0xEE, sizeof out);
    size_t w = 0;
    T_CHECK(mpa_ddp_encode(&d, out, sizeof out, &w) == MPA_OK, "%s: encode",
            what);
    T_CHECK(w == s, "%s: wrote %zu want %zu", what, w, s);
    T_CHECK(memcmp(out, bytes, s) == 0, "%s: re-encoded octets differ", what);
    T_CHECK(out[s] == 0xEE, "%s: encoder wrote past its length", what);
}

static int hdr_eq(const mpa_ddp_hdr *a, const mpa_ddp_hdr *b)
{
    return a->tagged == b->tagged && a->last == b->last &&
           a->ddp_rsvd == b->ddp_rsvd && a->dv == b->dv && a->rv == b->rv &&
           a->rdmap_rsvd == b->rdmap_rsvd && a->opcode == b->opcode &&
           a->stag == b->stag && a->to == b->to && a->rsvdulp == b->rsvdulp &&
           a->qn == b->qn && a->msn == b->msn && a->mo == b->mo;
}

static int rreq_eq(const mpa_rdma_read_req *a, const mpa_rdma_read_req *b)
{
    return a->sink_stag == b->sink_stag && a->sink_to == b->sink_to &&
           a->size == b->size && a->src_stag == b->src_stag &&
           a->src_to == b->src_to;
}

/* Equality of everything the encoder takes. */
static int ddp_eq(const mpa_ddp *a, const mpa_ddp *b)
{
    if (!hdr_eq(&a->hdr, &b->hdr))
        return 0;
    switch (a->hdr.opcode) {
    case MPA_RDMAP_READ_REQUEST:
        return rreq_eq(&a->u.rreq, &b->u.rreq);
    case MPA_RDMAP_TERMINATE: {
        const mpa_term *x = &a->u.term, *y = &b->u.term;
        if (x->layer != y->layer || x->etype != y->etype ||
            x->code != y->code || x->m != y->m || x->d != y->d ||
            x->r != y->r || x->rsvd != y->rsvd)
            return 0;
        if ((x->m || x->d) && x->seglen != y->seglen)
            return 0;
        if (x->d && !hdr_eq(&x->ddp_hdr, &y->ddp_hdr))
            return 0;
        if (x->r && !rreq_eq(&x->rreq, &y->rreq))
            return 0;
        return 1;
    }
    case MPA_RDMAP_ATOMIC_REQUEST: {
        const mpa_atomic_req *x = &a->u.atomic_req, *y = &b->u.atomic_req;
        return x->rsvd == y->rsvd && x->aop == y->aop &&
               x->req_id == y->req_id && x->stag == y->stag &&
               x->to == y->to && x->add_swap_data == y->add_swap_data &&
               x->add_swap_mask == y->add_swap_mask &&
               x->compare_data == y->compare_data &&
               x->compare_mask == y->compare_mask;
    }
    case MPA_RDMAP_ATOMIC_RESPONSE:
        return a->u.atomic_resp.orig_req_id == b->u.atomic_resp.orig_req_id &&
               a->u.atomic_resp.orig_value == b->u.atomic_resp.orig_value;
    case MPA_RDMAP_IMMEDIATE:
    case MPA_RDMAP_IMMEDIATE_SE:
        return a->u.imm.data == b->u.imm.data;
    default:
        return 1;
    }
}

/* An untagged header: DDP ctl 0x41 (T=0 L=1 DV=1), RDMAP RV=1. */
static size_t untagged(uint8_t *b, uint8_t op, uint32_t rsvdulp, uint32_t qn,
                       uint32_t msn, uint32_t mo)
{
    b[0] = 0x41;
    b[1] = (uint8_t)(0x40 | op);
    put_be32(b + 2, rsvdulp);
    put_be32(b + 6, qn);
    put_be32(b + 10, msn);
    put_be32(b + 14, mo);
    return 18;
}

/* A tagged header: DDP ctl 0xC1 (T=1 L=1 DV=1), RDMAP RV=1. */
static size_t tagged(uint8_t *b, uint8_t op, uint32_t stag, uint64_t to)
{
    b[0] = 0xC1;
    b[1] = (uint8_t)(0x40 | op);
    put_be32(b + 2, stag);
    put_be64(b + 6, to);
    return 14;
}

/* ---- RFC 5041 4.1-4.3: DDP control and the two header models --------- */

static void test_rfc5041_tagged_rdma_write(void)
{
    /* RFC 5041 4.2 tagged header carrying RFC 5040 4.3 RDMA Write. */
    static const uint8_t b[] = {
        0xC1, 0x40,                                     /* T L DV=1, RV=1 op 0 */
        0x11, 0x22, 0x33, 0x44,                         /* STag */
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* TO */
        0xAA, 0xBB, 0xCC,                               /* payload */
    };
    mpa_ddp d;
    size_t need = 7;
    T_EQ(dec(b, sizeof b, sizeof b, &d, &need), MPA_OK);
    T_EQ(need, 0);
    T_EQ(d.hdr.tagged, 1);
    T_EQ(d.hdr.last, 1);
    T_EQ(d.hdr.ddp_rsvd, 0);
    T_EQ(d.hdr.dv, 1);
    T_EQ(d.hdr.rv, 1);
    T_EQ(d.hdr.rdmap_rsvd, 0);
    T_EQ(d.hdr.opcode, MPA_RDMAP_RDMA_WRITE);
    T_EQ(d.hdr.stag, 0x11223344u);
    T_EQ(d.hdr.to, 0x0102030405060708ull);
    T_EQ(d.hdr.qn, 0);
    T_EQ(d.hdr_len, 14);
    T_EQ(d.body_len, 0);
    T_EQ(d.need_len, 14);
    T_EQ(d.payload_len, 3);
    T_EQ(d.ulpdu_len, sizeof b);
    T_EQ(d.complete, 1);
    T_EQ(d.opcode_known, 1);
    T_EQ(mpa_ddp_anomalies(&d), 0);
    T_STREQ(mpa_rdmap_opcode_name(d.hdr.opcode), "RDMA Write");
    check_prefixes("write", b, sizeof b);
    check_short_ulpdu("write", b);
    check_reencode("write", b);
}

static void test_rfc5041_tagged_read_response_not_last(void)
{
    /* RFC 5040 4.5 Read Response: tagged, here L=0 (a middle segment). */
    static const uint8_t b[] = {
        0x81, 0x42, 0xDE, 0xAD, 0xBE, 0xEF, 0xFF, 0xFF, 0xFF, 0xFF,
        0x00, 0x00, 0x10, 0x00, 0x01, 0x02, 0x03, 0x04,
    };
    mpa_ddp d;
    size_t need;
    T_EQ(dec(b, sizeof b, sizeof b, &d, &need), MPA_OK);
    T_EQ(d.hdr.tagged, 1);
    T_EQ(d.hdr.last, 0);
    T_EQ(d.hdr.opcode, MPA_RDMAP_READ_RESPONSE);
    T_EQ(d.hdr.stag, 0xDEADBEEFu);
    T_EQ(d.hdr.to, 0xFFFFFFFF00001000ull);
    T_EQ(d.payload_len, 4);
    T_EQ(mpa_ddp_anomalies(&d), 0); /* L=0 is fine for Read Response */
    T_STREQ(mpa_rdmap_opcode_name(d.hdr.opcode), "RDMA Read Response");
    check_prefixes("read response", b, sizeof b);
    check_reencode("read response", b);
}

static void test_rfc5041_untagged_send_variants(void)
{
    /* RFC 5041 4.3 untagged header; RFC 5040 4.6 Send variants on QN 0,
     * the "...and Invalidate" ones carrying the Invalidate STag in
     * octets 2..5 (RFC 5040 4.1). */
    static const struct {
        uint8_t op;
        uint32_t inv;
        const char *name;
    } v[] = {
        {0x3, 0, "Send"},
        {0x4, 0xCAFEF00Du, "Send with Invalidate"},
        {0x5, 0, "Send with SE"},
        {0x6, 0x0BADF00Du, "Send with SE and Invalidate"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t b[40];
        size_t n = untagged(b, v[i].op, v[i].inv, 0, 7 + (uint32_t)i, 0x200);
        b[0] = 0x01; /* L=0: a first segment */
        memset(b + n, 0x5A, 10);
        mpa_ddp d;
        size_t need;
        T_EQ(dec(b, n + 10, n + 10, &d, &need), MPA_OK);
        T_EQ(d.hdr.tagged, 0);
        T_EQ(d.hdr.last, 0);
        T_EQ(d.hdr.opcode, v[i].op);
        T_EQ(d.hdr.rsvdulp, v[i].inv);
        T_EQ(d.hdr.qn, 0);
        T_EQ(d.hdr.msn, 7 + i);
        T_EQ(d.hdr.mo, 0x200);
        T_EQ(d.hdr.stag, 0);
        T_EQ(d.hdr_len, 18);
        T_EQ(d.body_len, 0);
        T_EQ(d.payload_len, 10);
        T_EQ(mpa_ddp_anomalies(&d), 0);
        T_STREQ(mpa_rdmap_opcode_name(v[i].op), v[i].name);
        check_prefixes(v[i].name, b, n + 10);
        check_short_ulpdu(v[i].name, b);
        check_reencode(v[i].name, b);
    }
}

static void test_draft03_fig5_vector_versions_reported(void)
{
    /* draft-culley-iwarp-mpa-03 7.2 Figure 5 ULPDU: 40 03, DV=0, RV=0,
     * Send, QN 0, MSN 1, MO 0, 24 octets of data.  Decoded, versions as
     * found, flagged as anomalies (RFC 5041 4.1, RFC 5040 4.1), not
     * rejected. */
    uint8_t b[42];
    memset(b, 0, sizeof b);
    b[0] = 0x40;
    b[1] = 0x03;
    b[13] = 0x01; /* MSN = 1 */
    mpa_ddp d;
    size_t need;
    T_EQ(dec(b, sizeof b, sizeof b, &d, &need), MPA_OK);
    T_EQ(d.hdr.tagged, 0);
    T_EQ(d.hdr.last, 1);
    T_EQ(d.hdr.dv, 0);
    T_EQ(d.hdr.rv, 0);
    T_EQ(d.hdr.opcode, MPA_RDMAP_SEND);
    T_EQ(d.hdr.qn, 0);
    T_EQ(d.hdr.msn, 1);
    T_EQ(d.hdr.mo, 0);
    T_EQ(d.payload_len, 24);
    T_EQ(d.opcode_known, 1);
    /* DV 0 is not DDP version 1; RV 00b is valid (RFC 5040 4.1) */
    T_EQ(mpa_ddp_anomalies(&d), MPA_DDP_AN_DV);
    T_EQ(mpa_ddp_rtr_kind(&d), MPA_RTR_NONE);
    check_prefixes("draft fig5", b, sizeof b);
    check_reencode("draft fig5", b);
}

/* ---- RFC 5040 4.4: RDMA Read Request -------------------------------- */

static size_t build_rreq(uint8_t *b, uint32_t size)
{
    size_t n = untagged(b, 0x1, 0, 1, 3, 0);
    put_be32(b + n, 0x01020304u);             /* Data Sink STag */
    put_be64(b + n + 4, 0x1112131415161718ull); /* Data Sink TO */
    put_be32(b + n + 12, size);               /* RDMA Read Message Size */
    put_be32(b + n + 16, 0x21222324u);        /* Data Source STag */
    put_be64(b + n + 20, 0x3132333435363738ull); /* Data Source TO */
    return n + 28;
}

static void test_rfc5040_4_4_read_request(void)
{
    uint8_t b[64];
    size_t n = build_rreq(b, 0x10000);
    T_EQ(n, 46);
    mpa_ddp d;
    size_t need;
    T_EQ(dec(b, n, n, &d, &need), MPA_OK);
    T_EQ(d.hdr.opcode, MPA_RDMAP_READ_REQUEST);
    T_EQ(d.hdr.qn, 1);
    T_EQ(d.hdr.msn, 3);
    T_EQ(d.hdr_len, 18);
    T_EQ(d.body_len, 28);
    T_EQ(d.need_len, 46);
    T_EQ(d.payload_len, 0);
    T_EQ(d.u.rreq.sink_stag, 0x01020304u);
    T_EQ(d.u.rreq.sink_to, 0x1112131415161718ull);
    T_EQ(d.u.rreq.size, 0x10000);
    T_EQ(d.u.rreq.src_stag, 0x21222324u);
    T_EQ(d.u.rreq.src_to, 0x3132333435363738ull);
    T_EQ(mpa_ddp_anomalies(&d), 0);
    T_STREQ(mpa_rdmap_opcode_name(1), "RDMA Read Request");
    check_prefixes("read request", b, n);
    check_short_ulpdu("read request", b);
    check_reencode("read request", b);

    /* Spot values of the NEED_MORE lower bound (ddp.h contract). */
    T_EQ(dec(b, 0, n, &d, &need), MPA_NEED_MORE);
    T_EQ(need, 14); /* T unseen: least is a tagged header */
    T_EQ(dec(b, 1, n, &d, &need), MPA_NEED_MORE);
    T_EQ(need, 17); /* T=0 seen, opcode unseen */
    T_EQ(dec(b, 2, n, &d, &need), MPA_NEED_MORE);
    T_EQ(need, 44); /* opcode seen: exact from here on */
    T_EQ(dec(b, 45, n, &d, &need), MPA_NEED_MORE);
    T_EQ(need, 1);
}

/* ---- RFC 5040 4.8: Terminate ---------------------------------------- */

/*
 * A Terminate on QN 2: Layer/EType/Code, M D R, then (M or D) the DDP
 * Segment Length, (D) a copied tagged or untagged DDP header, (R) a copied
 * Read Request header.
 */
static size_t build_term(uint8_t *b, unsigned layer, unsigned etype,
                         unsigned code, int m, int dd, int r, int nested_tagged,
                         uint16_t rsvd)
{
    size_t n = untagged(b, 0x7, 0, 2, 1, 0);
    b[n++] = (uint8_t)((layer << 4) | etype);
    b[n++] = (uint8_t)code;
    b[n++] = (uint8_t)((m << 7) | (dd << 6) | (r << 5) | ((rsvd >> 8) & 0x1F));
    b[n++] = (uint8_t)rsvd;
    if (m || dd) {
        b[n++] = 0x01; /* DDP Segment Length 0x0123 */
        b[n++] = 0x23;
    }
    if (dd) {
        if (nested_tagged)
            n += tagged(b + n, 0x0, 0x55667788u, 0x99AABBCCDDEEFF00ull);
        else if (r)
            n += untagged(b + n, 0x1, 0, 1, 9, 0); /* the failed Read Request */
        else
            n += untagged(b + n, 0x3, 0, 0, 5, 0x40); /* a failed Send */
    }
    if (r) {
        put_be32(b + n, 0xA1A2A3A4u);
        put_be64(b + n + 4, 0xB1B2B3B4B5B6B7B8ull);
        put_be32(b + n + 12, 4096);
        put_be32(b + n + 16, 0xC1C2C3C4u);
        put_be64(b + n + 20, 0xD1D2D3D4D5D6D7D8ull);
        n += 28;
    }
    return n;
}

static void test_rfc5040_4_7_terminate_mdr_combinations(void)
{
    for (int nt = 0; nt <= 1; nt++) {
        for (int bits = 0; bits < 8; bits++) {
            int m = (bits >> 2) & 1, dd = (bits >> 1) & 1, r = bits & 1;
            uint8_t b[128];
            size_t n = build_term(b, 1, 2, 1, m, dd, r, nt, 0);
            size_t want = 18 + 4 + ((m || dd) ? 2 : 0) +
                          (dd ? (nt ? 14 : 18) : 0) + (r ? 28 : 0);
            T_CHECK(n == want, "builder length %zu want %zu", n, want);
            mpa_ddp d;
            size_t need;
            T_CHECK(dec(b, n, n, &d, &need) == MPA_OK, "M%d D%d R%d T%d", m,
                    dd, r, nt);
            const mpa_term *t = &d.u.term;
            T_EQ(d.hdr.opcode, MPA_RDMAP_TERMINATE);
            T_EQ(d.need_len, want);
            T_EQ(d.body_len, want - 18);
            T_EQ(d.payload_len, 0);
            T_EQ(t->layer, 1);
            T_EQ(t->etype, 2);
            T_EQ(t->code, 1);
            T_EQ(t->m, m);
            T_EQ(t->d, dd);
            T_EQ(t->r, r);
            T_EQ(t->rsvd, 0);
            T_EQ(t->seglen_present, (m || dd));
            T_EQ(t->seglen, (m || dd) ? 0x0123 : 0);
            T_EQ(t->has_ddp_hdr, dd);
            if (dd) {
                T_EQ(t->ddp_hdr_len, nt ? 14 : 18);
                T_EQ(t->ddp_hdr.tagged, nt);
                T_EQ(t->ddp_hdr.dv, 1);
                T_EQ(t->ddp_hdr.rv, 1);
                if (nt) {
                    T_EQ(t->ddp_hdr.opcode, MPA_RDMAP_RDMA_WRITE);
                    T_EQ(t->ddp_hdr.stag, 0x55667788u);
                    T_EQ(t->ddp_hdr.to, 0x99AABBCCDDEEFF00ull);
                } else if (r) {
                    T_EQ(t->ddp_hdr.opcode, MPA_RDMAP_READ_REQUEST);
                    T_EQ(t->ddp_hdr.qn, 1);
                    T_EQ(t->ddp_hdr.msn, 9);
                } else {
                    T_EQ(t->ddp_hdr.opcode, MPA_RDMAP_SEND);
                    T_EQ(t->ddp_hdr.msn, 5);
                    T_EQ(t->ddp_hdr.mo, 0x40);
                }
            } else {
                T_EQ(t->ddp_hdr_len, 0);
                T_EQ(t->ddp_hdr.opcode, 0);
            }
            if (r) {
                T_CHECK(t->rdma_hdr == NULL ? 0 : 1, "no rdma_hdr slice");
                T_EQ(t->rdma_hdr_len, 28);
                T_EQ(t->rreq.sink_stag, 0xA1A2A3A4u);
                T_EQ(t->rreq.sink_to, 0xB1B2B3B4B5B6B7B8ull);
                T_EQ(t->rreq.size, 4096);
                T_EQ(t->rreq.src_stag, 0xC1C2C3C4u);
                T_EQ(t->rreq.src_to, 0xD1D2D3D4D5D6D7D8ull);
                /* confirmed as a Read Request unless the copied DDP
                 * header says otherwise (a tagged Write here) */
                T_EQ(t->rdma_hdr_is_rreq, (!dd || !nt));
                if (t->rdma_hdr)
                    T_EQ(t->rdma_hdr[0], 0xA1);
            } else {
                T_CHECK(t->rdma_hdr == NULL, "unexpected rdma_hdr");
                T_EQ(t->rdma_hdr_len, 0);
            }
            T_EQ(mpa_ddp_anomalies(&d), 0);
            char what[48];
            snprintf(what, sizeof what, "term M%d D%d R%d T%d", m, dd, r, nt);
            check_prefixes(what, b, n);
            check_short_ulpdu(what, b);
            check_reencode(what, b);
        }
    }
}

static void test_rfc5040_4_7_terminate_rdma_slice_points_into_input(void)
{
    uint8_t b[128];
    size_t n = build_term(b, 0, 1, 0x02, 1, 1, 1, 0, 0);
    const uint8_t *g = t_guard(b, n);
    mpa_ddp d;
    size_t need;
    T_EQ(mpa_ddp_decode(g, n, n, &d, &need), MPA_OK);
    T_CHECK(d.u.term.rdma_hdr == g + n - 28, "slice not into caller buffer");
}

static void test_rfc5040_4_7_terminate_need_more_bounds(void)
{
    /* Before the control word is seen the least Terminate is 18 + 4. */
    uint8_t b[128];
    size_t n = build_term(b, 2, 0, 7, 1, 1, 1, 0, 0);
    T_EQ(n, 18 + 4 + 2 + 18 + 28);
    mpa_ddp d;
    size_t need;
    T_EQ(dec(b, 18, n, &d, &need), MPA_NEED_MORE);
    T_EQ(need, 4);
    T_EQ(dec(b, 21, n, &d, &need), MPA_NEED_MORE);
    T_EQ(need, 1); /* control word incomplete */
    T_EQ(dec(b, 22, n, &d, &need), MPA_NEED_MORE);
    T_EQ(need, 2 + 14 + 28); /* copied header's T unseen: tagged least */
    T_EQ(dec(b, 24, n, &d, &need), MPA_NEED_MORE);
    T_EQ(need, 14 + 28);
    T_EQ(dec(b, 25, n, &d, &need), MPA_NEED_MORE);
    T_EQ(need, 17 + 28); /* copied header is untagged */
    /* The partial decode already holds the control word. */
    T_EQ(d.u.term.layer, 2);
    T_EQ(d.u.term.code, 7);
    T_EQ(d.u.term.r, 1);
}

static void test_rfc5040_4_7_terminate_short_ulpdu(void)
{
    /* ulpdu_len cannot hold the copied header the D bit announces. */
    uint8_t b[128];
    size_t n = build_term(b, 1, 1, 0, 1, 1, 0, 1, 0);
    mpa_ddp d;
    size_t need = 5;
    T_EQ(dec(b, 30, 30, &d, &need), MPA_E_INVALID);
    T_EQ(d.need_len, n);
    T_EQ(need, 0);
    T_EQ(d.u.term.d, 1);
    /* the control word is judged even on an invalid decode */
    T_EQ(mpa_ddp_anomalies(&d), 0);
}

/* ---- RFC 7306: atomics and immediate data --------------------------- */

static void test_rfc7306_atomic_request(void)
{
    uint8_t b[80];
    size_t n = untagged(b, 0xA, 0, 1, 4, 0);
    put_be32(b + n, 0x00000002u);                 /* reserved | AOpCode=CmpSwap */
    put_be32(b + n + 4, 0x77777777u);             /* Request Identifier */
    put_be32(b + n + 8, 0x12345678u);             /* Remote STag */
    put_be64(b + n + 12, 0x1000200030004000ull);  /* Remote TO */
    put_be64(b + n + 20, 0x0000000000000005ull);  /* Swap Data */
    put_be64(b + n + 28, 0xFFFFFFFFFFFFFFFFull);  /* Swap Mask */
    put_be64(b + n + 36, 0x0000000000000004ull);  /* Compare Data */
    put_be64(b + n + 44, 0x00000000FFFFFFFFull);  /* Compare Mask */
    n += 52;
    mpa_ddp d;
    size_t need;
    T_EQ(dec(b, n, n, &d, &need), MPA_OK);
    T_EQ(d.hdr.opcode, MPA_RDMAP_ATOMIC_REQUEST);
    T_EQ(d.body_len, 52);
    T_EQ(d.u.atomic_req.rsvd, 0);
    T_EQ(d.u.atomic_req.aop, MPA_ATOMIC_CMP_SWAP);
    T_EQ(d.u.atomic_req.req_id, 0x77777777u);
    T_EQ(d.u.atomic_req.stag, 0x12345678u);
    T_EQ(d.u.atomic_req.to, 0x1000200030004000ull);
    T_EQ(d.u.atomic_req.add_swap_data, 5);
    T_EQ(d.u.atomic_req.add_swap_mask, 0xFFFFFFFFFFFFFFFFull);
    T_EQ(d.u.atomic_req.compare_data, 4);
    T_EQ(d.u.atomic_req.compare_mask, 0xFFFFFFFFull);
    T_EQ(mpa_ddp_anomalies(&d), 0);
    T_STREQ(mpa_rdmap_opcode_name(0xA), "Atomic Request");
    T_STREQ(mpa_atomic_opcode_name(0), "FetchAdd");
    T_STREQ(mpa_atomic_opcode_name(1), "Reserved");
    T_STREQ(mpa_atomic_opcode_name(2), "CmpSwap");
    T_STREQ(mpa_atomic_opcode_name(3), "unknown");
    check_prefixes("atomic request", b, n);
    check_short_ulpdu("atomic request", b);
    check_reencode("atomic request", b);
}

static void test_rfc7306_atomic_response_and_immediate(void)
{
    uint8_t b[64];
    size_t n = untagged(b, 0xB, 0, 3, 4, 0);
    put_be32(b + n, 0x77777777u);
    put_be64(b + n + 4, 0x0102030405060708ull);
    n += 12;
    mpa_ddp d;
    size_t need;
    T_EQ(dec(b, n, n, &d, &need), MPA_OK);
    T_EQ(d.hdr.opcode, MPA_RDMAP_ATOMIC_RESPONSE);
    T_EQ(d.body_len, 12);
    T_EQ(d.u.atomic_resp.orig_req_id, 0x77777777u);
    T_EQ(d.u.atomic_resp.orig_value, 0x0102030405060708ull);
    T_EQ(mpa_ddp_anomalies(&d), 0);
    T_STREQ(mpa_rdmap_opcode_name(0xB), "Atomic Response");
    check_prefixes("atomic response", b, n);
    check_short_ulpdu("atomic response", b);
    check_reencode("atomic response", b);

    for (uint8_t op = 0x8; op <= 0x9; op++) {
        n = untagged(b, op, 0, 0, 2, 0);
        put_be64(b + n, 0x8877665544332211ull);
        n += 8;
        T_EQ(dec(b, n, n, &d, &need), MPA_OK);
        T_EQ(d.hdr.opcode, op);
        T_EQ(d.body_len, 8);
        T_EQ(d.u.imm.data, 0x8877665544332211ull);
        T_EQ(mpa_ddp_anomalies(&d), 0);
        check_prefixes("immediate", b, n);
        check_short_ulpdu("immediate", b);
        check_reencode("immediate", b);
    }
    T_STREQ(mpa_rdmap_opcode_name(0x8), "Immediate Data");
    T_STREQ(mpa_rdmap_opcode_name(0x9), "Immediate Data with SE");
}

/* ---- RFC 5040 4.2: reserved opcodes decode, reported unknown -------- */

static void test_rfc5040_4_2_unknown_opcodes(void)
{
    static const uint8_t unk[] = {0xC, 0xD, 0xE, 0xF};
    for (size_t i = 0; i < sizeof unk; i++) {
        for (int tg = 0; tg <= 1; tg++) {
            uint8_t b[40];
            size_t n = tg ? tagged(b, unk[i], 1, 2) : untagged(b, unk[i], 0, 0, 1, 0);
            b[n] = 0x99;
            mpa_ddp d;
            size_t need;
            T_EQ(dec(b, n + 1, n + 1, &d, &need), MPA_OK);
            T_EQ(d.hdr.opcode, unk[i]);
            T_EQ(d.opcode_known, 0);
            T_EQ(d.body_len, 0);
            T_EQ(d.payload_len, 1);
            T_EQ(mpa_ddp_anomalies(&d), MPA_DDP_AN_OPCODE_UNKNOWN);
            T_STREQ(mpa_rdmap_opcode_name(unk[i]), "unknown opcode");
            T_EQ(mpa_rdmap_opcode_known(unk[i]), 0);
            check_prefixes("unknown opcode", b, n + 1);
            check_reencode("unknown opcode", b);
        }
    }
    T_STREQ(mpa_rdmap_opcode_name(16), "unknown opcode");
    T_STREQ(mpa_rdmap_opcode_name(0x7), "Terminate");
    for (unsigned op = 0; op <= 7; op++)
        T_EQ(mpa_rdmap_opcode_known(op), 1);
}

/* ---- TERMINATE code names: RFC 5040 4.8, RFC 5041 7, RFC 5044 8,
 *      RFC 6581 8 ---------------------------------------------------- */

static void test_rfc5044_8_rfc6581_8_mpa_code_names(void)
{
    static const char *const want[8] = {
        NULL,
        "TCP connection closed, terminated or lost",
        "MPA CRC error",
        "MPA marker and ULPDU length fields mismatch",
        "Invalid MPA Request Frame or MPA Response Frame",
        "Local catastrophic",
        "Insufficient IRD resources",
        "No matching RTR option",
    };
    for (unsigned c = 1; c <= 7; c++) {
        T_STREQ(mpa_term_code_name(2, 0, c), want[c]);
        T_EQ(mpa_term_code_known(2, 0, c), 1);
    }
    T_STREQ(mpa_term_code_name(2, 0, 0), "unknown");
    T_STREQ(mpa_term_code_name(2, 0, 8), "unknown");
    T_STREQ(mpa_term_code_name(2, 1, 1), "unknown");
    T_EQ(mpa_term_code_known(2, 0, 0), 0);
    T_EQ(mpa_term_code_known(2, 0, 8), 0);
    T_EQ(mpa_term_code_known(2, 1, 1), 0);
    T_STREQ(mpa_term_layer_name(2), "LLP");
    T_STREQ(mpa_term_etype_name(2, 0), "MPA");
    T_STREQ(mpa_term_etype_name(2, 1), "unknown");
}

static void test_rfc5040_4_7_rdmap_code_names(void)
{
    /* Remote Protection Error (EType 1). */
    static const struct { unsigned code; const char *name; } prot[] = {
        {0x00, "Invalid STag"},
        {0x01, "Base or bounds violation"},
        {0x02, "Access rights violation"},
        {0x03, "STag not associated with RDMAP Stream"},
        {0x04, "TO wrap"},
        {0x09, "STag cannot be Invalidated"},
        {0xFF, "Unspecified Error"},
    };
    /* Remote Operation Error (EType 2). */
    static const struct { unsigned code; const char *name; } oper[] = {
        {0x05, "Invalid RDMAP version"},
        {0x06, "Unexpected OpCode"},
        {0x07, "Catastrophic error, localized to RDMAP Stream"},
        {0x08, "Catastrophic error, global"},
        {0x09, "STag cannot be Invalidated"},
        {0xFF, "Unspecified Error"},
    };
    unsigned nprot = 0, noper = 0;
    for (unsigned c = 0; c <= 0xFF; c++) {
        nprot += (unsigned)mpa_term_code_known(0, 1, c);
        noper += (unsigned)mpa_term_code_known(0, 2, c);
        /* Local Catastrophic defines no separate codes: every one named */
        T_EQ(mpa_term_code_known(0, 0, c), 1);
        T_STREQ(mpa_term_code_name(0, 0, c), "Local Catastrophic Error");
        T_EQ(mpa_term_code_known(0, 3, c), 0);
    }
    T_EQ(nprot, sizeof prot / sizeof prot[0]);
    T_EQ(noper, sizeof oper / sizeof oper[0]);
    for (size_t i = 0; i < sizeof prot / sizeof prot[0]; i++)
        T_STREQ(mpa_term_code_name(0, 1, prot[i].code), prot[i].name);
    for (size_t i = 0; i < sizeof oper / sizeof oper[0]; i++)
        T_STREQ(mpa_term_code_name(0, 2, oper[i].code), oper[i].name);
    T_STREQ(mpa_term_code_name(0, 1, 0x05), "unknown");
    T_STREQ(mpa_term_code_name(0, 2, 0x00), "unknown");
    T_STREQ(mpa_term_layer_name(0), "RDMAP");
    T_STREQ(mpa_term_etype_name(0, 0), "Local Catastrophic Error");
    T_STREQ(mpa_term_etype_name(0, 1), "Remote Protection Error");
    T_STREQ(mpa_term_etype_name(0, 2), "Remote Operation Error");
    T_STREQ(mpa_term_etype_name(0, 3), "unknown");
}

static void test_rfc5041_7_ddp_code_names(void)
{
    static const struct { unsigned code; const char *name; } tag[] = {
        {0x00, "Invalid STag"},
        {0x01, "Base or bounds violation"},
        {0x02, "STag not associated with DDP Stream"},
        {0x03, "TO wrap"},
        {0x04, "Invalid DDP version"},
    };
    static const struct { unsigned code; const char *name; } untag[] = {
        {0x01, "Invalid QN"},
        {0x02, "Invalid MSN - no buffer available"},
        {0x03, "Invalid MSN - MSN range is not valid"},
        {0x04, "Invalid MO"},
        {0x05, "DDP Message too long for available buffer"},
        {0x06, "Invalid DDP version"},
    };
    unsigned nt = 0, nu = 0;
    for (unsigned c = 0; c <= 0xFF; c++) {
        nt += (unsigned)mpa_term_code_known(1, 1, c);
        nu += (unsigned)mpa_term_code_known(1, 2, c);
        T_EQ(mpa_term_code_known(1, 0, c), 1);
        T_EQ(mpa_term_code_known(1, 3, c), 0); /* reserved for the LLP */
    }
    T_EQ(nt, sizeof tag / sizeof tag[0]);
    T_EQ(nu, sizeof untag / sizeof untag[0]);
    for (size_t i = 0; i < sizeof tag / sizeof tag[0]; i++)
        T_STREQ(mpa_term_code_name(1, 1, tag[i].code), tag[i].name);
    for (size_t i = 0; i < sizeof untag / sizeof untag[0]; i++)
        T_STREQ(mpa_term_code_name(1, 2, untag[i].code), untag[i].name);
    T_STREQ(mpa_term_code_name(1, 2, 0x00), "unknown");
    T_STREQ(mpa_term_code_name(1, 0, 0x42), "Local Catastrophic Error");
    T_STREQ(mpa_term_layer_name(1), "DDP");
    T_STREQ(mpa_term_etype_name(1, 0), "Local Catastrophic Error");
    T_STREQ(mpa_term_etype_name(1, 1), "Tagged Buffer Error");
    T_STREQ(mpa_term_etype_name(1, 2), "Untagged Buffer Error");
    T_STREQ(mpa_term_etype_name(1, 3), "Reserved for the use by the LLP");
    T_STREQ(mpa_term_etype_name(1, 4), "unknown");
    T_STREQ(mpa_term_layer_name(3), "unknown");
    T_STREQ(mpa_term_layer_name(15), "unknown");
    T_STREQ(mpa_term_etype_name(3, 0), "unknown");
    T_EQ(mpa_term_code_known(3, 0, 0), 0);
    T_STREQ(mpa_term_code_name(9, 9, 9), "unknown");
}

/* ---- RFC 6581 9.2: RTR recognition ---------------------------------- */

static mpa_rtr_kind rtr_of(const uint8_t *b, size_t n)
{
    mpa_ddp d;
    size_t need;
    if (dec(b, n, n, &d, &need) != MPA_OK)
        return (mpa_rtr_kind)-1;
    return mpa_ddp_rtr_kind(&d);
}

static void test_rfc6581_9_2_rtr_kinds(void)
{
    uint8_t b[64];
    size_t n;
    memset(b, 0, sizeof b);

    /* zero-length Send (B) */
    n = untagged(b, 0x3, 0, 0, 1, 0);
    T_EQ(rtr_of(b, n), MPA_RTR_SEND);
    T_EQ(rtr_of(b, n + 1), MPA_RTR_NONE); /* one payload octet */
    b[0] = 0x01;                           /* L=0 */
    T_EQ(rtr_of(b, n), MPA_RTR_NONE);
    n = untagged(b, 0x5, 0, 0, 1, 0); /* Send with SE is not the RTR */
    T_EQ(rtr_of(b, n), MPA_RTR_NONE);
    n = tagged(b, 0x3, 0, 0); /* tagged Send */
    T_EQ(rtr_of(b, n), MPA_RTR_NONE);

    /* zero-length RDMA Write (C) */
    n = tagged(b, 0x0, 0x1234, 0);
    T_EQ(rtr_of(b, n), MPA_RTR_WRITE);
    T_EQ(rtr_of(b, n + 4), MPA_RTR_NONE);
    b[0] = 0x81; /* L=0 */
    T_EQ(rtr_of(b, n), MPA_RTR_NONE);
    n = untagged(b, 0x0, 0, 0, 1, 0); /* untagged Write */
    T_EQ(rtr_of(b, n), MPA_RTR_NONE);

    /* zero-length RDMA Read Request (D) */
    n = build_rreq(b, 0);
    T_EQ(rtr_of(b, n), MPA_RTR_READ);
    n = build_rreq(b, 1);
    T_EQ(rtr_of(b, n), MPA_RTR_NONE);

    /* not complete: never an RTR */
    mpa_ddp d;
    size_t need;
    n = build_rreq(b, 0);
    T_EQ(dec(b, n - 1, n, &d, &need), MPA_NEED_MORE);
    T_EQ(mpa_ddp_rtr_kind(&d), MPA_RTR_NONE);
    T_EQ(mpa_ddp_rtr_kind(NULL), MPA_RTR_NONE);
    /* a Terminate is not an RTR */
    n = build_term(b, 2, 0, 7, 0, 0, 0, 0, 0);
    T_EQ(rtr_of(b, n), MPA_RTR_NONE);
}

/* ---- anomalies: each bit seen firing -------------------------------- */

static uint32_t an_of(const uint8_t *b, size_t n, size_t ulpdu_len)
{
    mpa_ddp d;
    size_t need;
    mpa_status st = dec(b, n, ulpdu_len, &d, &need);
    T_CHECK(st == MPA_OK || st == MPA_NEED_MORE || st == MPA_E_INVALID,
            "status %d", (int)st);
    return mpa_ddp_anomalies(&d);
}

static void test_anomalies_each_bit(void)
{
    uint8_t b[128];
    size_t n;

    /* clean headers of every defined opcode give 0 */
    n = tagged(b, 0x0, 1, 0);
    T_EQ(an_of(b, n, n), 0);
    n = tagged(b, 0x2, 1, 0);
    T_EQ(an_of(b, n, n), 0);
    n = build_rreq(b, 8);
    T_EQ(an_of(b, n, n), 0);
    n = build_term(b, 0, 2, 6, 0, 0, 0, 0, 0);
    T_EQ(an_of(b, n, n), 0);

    /* RFC 5041 4.1: DV != 1 (all three other values) */
    for (uint8_t dv = 0; dv <= 3; dv++) {
        n = untagged(b, 0x3, 0, 0, 1, 0);
        b[0] = (uint8_t)(0x40 | dv);
        T_EQ(an_of(b, n, n), dv == 1 ? 0 : MPA_DDP_AN_DV);
    }
    /* RFC 5040 4.1: RV 01b and 00b (RDMA Consortium) are valid, 2 and 3
     * are not */
    for (uint8_t rv = 0; rv <= 3; rv++) {
        n = untagged(b, 0x3, 0, 0, 1, 0);
        b[1] = (uint8_t)((rv << 6) | 0x3);
        T_EQ(an_of(b, n, n), rv <= 1 ? 0 : MPA_DDP_AN_RV);
    }
    /* RFC 7306 4.1: its messages carry RV 01b; 00b is an error there */
    for (uint8_t rv = 0; rv <= 1; rv++) {
        memset(b, 0, sizeof b);
        n = untagged(b, 0x8, 0, 0, 1, 0); /* Immediate Data, 8 octets */
        b[1] = (uint8_t)((rv << 6) | 0x8);
        T_EQ(an_of(b, n + 8, n + 8), rv == 1 ? 0 : MPA_DDP_AN_RV);
    }
    /* RFC 5041 4.1: DDP reserved bits, each one */
    for (int bit = 2; bit <= 5; bit++) {
        n = untagged(b, 0x3, 0, 0, 1, 0);
        b[0] = (uint8_t)(b[0] | (1u << bit));
        T_EQ(an_of(b, n, n), MPA_DDP_AN_DDP_RSVD);
    }
    /* RFC 5040 4.1: RDMAP reserved bits, each one */
    for (int bit = 4; bit <= 5; bit++) {
        n = untagged(b, 0x3, 0, 0, 1, 0);
        b[1] = (uint8_t)(b[1] | (1u << bit));
        T_EQ(an_of(b, n, n), MPA_DDP_AN_RDMAP_RSVD);
    }
    /* RFC 5040 4.2: reserved opcode */
    n = untagged(b, 0xD, 0, 0, 1, 0);
    T_EQ(an_of(b, n, n), MPA_DDP_AN_OPCODE_UNKNOWN);
    /* RFC 5040 4.2: T bit vs opcode, both ways */
    n = untagged(b, 0x0, 0, 0, 1, 0); /* untagged Write */
    T_EQ(an_of(b, n, n), MPA_DDP_AN_TAGGED_MISMATCH);
    n = untagged(b, 0x2, 0, 0, 1, 0); /* untagged Read Response */
    T_EQ(an_of(b, n, n), MPA_DDP_AN_TAGGED_MISMATCH);
    n = tagged(b, 0x3, 0, 0); /* tagged Send */
    T_EQ(an_of(b, n, n), MPA_DDP_AN_TAGGED_MISMATCH);
    n = tagged(b, 0xB, 0, 0); /* tagged Atomic Response (+12 body) */
    memset(b + n, 0, 12);
    T_EQ(an_of(b, n + 12, n + 12), MPA_DDP_AN_TAGGED_MISMATCH);
    /* QN per opcode: Send 0, Read Request 1, Terminate 2 (RFC 5040 4.2),
     * Atomic Request 1, Atomic Response 3, Immediate 0 (RFC 7306) */
    {
        static const struct { uint8_t op; uint32_t qn; size_t body; } q[] = {
            {0x3, 0, 0}, {0x4, 0, 0}, {0x5, 0, 0}, {0x6, 0, 0},
            {0x1, 1, 28}, {0x7, 2, 4}, {0xA, 1, 52}, {0xB, 3, 12},
            {0x8, 0, 8}, {0x9, 0, 8},
        };
        for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
            for (uint32_t qn = 0; qn <= 4; qn++) {
                memset(b, 0, sizeof b);
                n = untagged(b, q[i].op, 0, qn, 1, 0);
                if (q[i].op == 0x7)
                    b[n + 1] = 0x06; /* RDMAP/0/6: a defined code */
                if (q[i].op == 0xA) {
                    b[n + 3] = 0x00;            /* FetchAdd */
                    memset(b + n + 44, 0xFF, 8); /* its Compare Mask */
                }
                n += q[i].body;
                uint32_t a = an_of(b, n, n);
                T_CHECK(a == (qn == q[i].qn ? 0u : (uint32_t)MPA_DDP_AN_QN),
                        "op %x qn %u: anomalies 0x%x", q[i].op, qn, a);
            }
        }
    }
    /* RFC 5040 5.2.1 / 5.4: single-segment messages: L=0, MO != 0 */
    n = build_rreq(b, 8);
    b[0] = 0x01;
    T_EQ(an_of(b, n, n), MPA_DDP_AN_NOT_LAST);
    n = build_rreq(b, 8);
    put_be32(b + 14, 28);
    T_EQ(an_of(b, n, n), MPA_DDP_AN_MO_NONZERO);
    n = build_term(b, 2, 0, 1, 0, 0, 0, 0, 0);
    b[0] = 0x01;
    T_EQ(an_of(b, n, n), MPA_DDP_AN_NOT_LAST);
    n = build_term(b, 2, 0, 1, 0, 0, 0, 0, 0);
    put_be32(b + 14, 4);
    T_EQ(an_of(b, n, n), MPA_DDP_AN_MO_NONZERO);
    n = untagged(b, 0x3, 0, 0, 1, 64); /* a Send may have MO != 0 */
    b[0] = 0x01;
    T_EQ(an_of(b, n, n), 0);
    /* RFC 5040 4.8 etc.: undefined Layer/EType/Code */
    n = build_term(b, 2, 0, 8, 0, 0, 0, 0, 0);
    T_EQ(an_of(b, n, n), MPA_DDP_AN_TERM_CODE);
    n = build_term(b, 3, 0, 0, 0, 0, 0, 0, 0);
    T_EQ(an_of(b, n, n), MPA_DDP_AN_TERM_CODE);
    n = build_term(b, 1, 3, 0, 0, 0, 0, 0, 0);
    T_EQ(an_of(b, n, n), MPA_DDP_AN_TERM_CODE);
    n = build_term(b, 0, 1, 0x05, 0, 0, 0, 0, 0);
    T_EQ(an_of(b, n, n), MPA_DDP_AN_TERM_CODE);
    /* RFC 5040 4.8: Terminate reserved bits, lowest and highest */
    n = build_term(b, 2, 0, 1, 0, 0, 0, 0, 0x0001);
    T_EQ(an_of(b, n, n), MPA_DDP_AN_TERM_RSVD);
    n = build_term(b, 2, 0, 1, 0, 0, 0, 0, 0x1000);
    T_EQ(an_of(b, n, n), MPA_DDP_AN_TERM_RSVD);
    /* RFC 5040 4.1: RsvdULP octets of non-invalidate untagged messages */
    n = untagged(b, 0x3, 0x00000100u, 0, 1, 0);
    T_EQ(an_of(b, n, n), MPA_DDP_AN_RSVDULP_NONZERO);
    n = untagged(b, 0x4, 0x00000100u, 0, 1, 0); /* it is the STag here */
    T_EQ(an_of(b, n, n), 0);
    /* RFC 7306: AOpCode and reserved bits of an Atomic Request */
    memset(b, 0, sizeof b);
    n = untagged(b, 0xA, 0, 1, 1, 0);
    b[n + 3] = 0x03;
    T_EQ(an_of(b, n + 52, n + 52), MPA_DDP_AN_ATOMIC_OP);
    b[n + 3] = 0x12; /* reserved bit 27, AOpCode CmpSwap */
    T_EQ(an_of(b, n + 52, n + 52), MPA_DDP_AN_ATOMIC_RSVD);
    /* RFC 7306 Figure 5, 10.1: 0x1 is Reserved */
    b[n + 3] = 0x01;
    T_EQ(an_of(b, n + 52, n + 52), MPA_DDP_AN_ATOMIC_OP);
    /* RFC 7306 5.2.1: a FetchAdd sends Compare Data 0, Compare Mask ones */
    b[n + 3] = 0x00;
    T_EQ(an_of(b, n + 52, n + 52), MPA_DDP_AN_ATOMIC_UNUSED);
    memset(b + n + 44, 0xFF, 8);
    T_EQ(an_of(b, n + 52, n + 52), 0);
    b[n + 36 + 7] = 1;
    T_EQ(an_of(b, n + 52, n + 52), MPA_DDP_AN_ATOMIC_UNUSED);
    /* RFC 7306 4.2, 6.3: the header alone, one DDP segment */
    T_EQ(an_of(b, n + 53, n + 53), MPA_DDP_AN_ATOMIC_UNUSED | MPA_DDP_AN_EXT_LEN);
    memset(b, 0, sizeof b);
    n = untagged(b, 0x8, 0, 0, 1, 0);
    T_EQ(an_of(b, n + 8, n + 8), 0);
    T_EQ(an_of(b, n + 9, n + 9), MPA_DDP_AN_EXT_LEN);
    b[0] = 0x01; /* L=0 */
    T_EQ(an_of(b, n + 8, n + 8), MPA_DDP_AN_EXT_LEN);
    n = untagged(b, 0x9, 0, 0, 1, 8); /* MO 8 */
    T_EQ(an_of(b, n + 8, n + 8), MPA_DDP_AN_EXT_LEN);
    n = untagged(b, 0xB, 0, 3, 1, 0);
    T_EQ(an_of(b, n + 12, n + 12), 0);
    T_EQ(an_of(b, n + 16, n + 16), MPA_DDP_AN_EXT_LEN);
    /* RFC 5040 4.4: a Read Request carries no payload */
    n = build_rreq(b, 8);
    T_EQ(an_of(b, n + 1, n + 1), MPA_DDP_AN_TRAILING);

    /* several at once */
    n = untagged(b, 0x7, 0, 0, 1, 0);
    b[0] = 0x00; /* L=0 DV=0 */
    b[1] = 0x87; /* RV=2 */
    b[n] = 0x2F; /* LLP, EType 15 */
    b[n + 1] = 0;
    b[n + 2] = 0;
    b[n + 3] = 0;
    T_EQ(an_of(b, n + 4, n + 4),
         MPA_DDP_AN_DV | MPA_DDP_AN_RV | MPA_DDP_AN_QN | MPA_DDP_AN_NOT_LAST |
             MPA_DDP_AN_TERM_CODE);

    /* partial decodes judge only what was seen */
    n = untagged(b, 0x3, 0, 5, 1, 0);
    b[0] = 0x40; /* DV=0 */
    T_EQ(an_of(b, 1, n), MPA_DDP_AN_DV); /* octet 1 unseen: no RV verdict */
    T_EQ(an_of(b, 2, n), MPA_DDP_AN_DV);  /* QN unseen */
    T_EQ(an_of(b, 18, n), MPA_DDP_AN_DV | MPA_DDP_AN_QN);
    T_EQ(an_of(b, 0, n), 0);
    T_EQ(mpa_ddp_anomalies(NULL), 0);

    /* every bit has a name */
    for (uint32_t bit = 1; bit <= MPA_DDP_AN_ATOMIC_UNUSED; bit <<= 1)
        T_CHECK(strcmp(mpa_ddp_anomaly_name(bit), "unknown") != 0,
                "bit 0x%x unnamed", bit);
    T_STREQ(mpa_ddp_anomaly_name(MPA_DDP_AN_ATOMIC_UNUSED << 1), "unknown");
}

/* ---- encoder: round trips over many field combinations -------------- */

static void roundtrip(const mpa_ddp *x, const char *what)
{
    uint8_t out[160];
    memset(out, 0xEE, sizeof out);
    size_t w = 0;
    mpa_status st = mpa_ddp_encode(x, out, sizeof out, &w);
    T_CHECK(st == MPA_OK, "%s: encode %d", what, (int)st);
    if (st != MPA_OK)
        return;
    T_CHECK(out[w] == 0xEE, "%s: wrote past %zu", what, w);
    mpa_ddp y;
    size_t need;
    st = dec(out, w, w + 5, &y, &need);
    T_CHECK(st == MPA_OK, "%s: decode %d", what, (int)st);
    T_CHECK(y.need_len == w && y.payload_len == 5, "%s: lengths", what);
    T_CHECK(ddp_eq(x, &y), "%s: decode(encode(x)) != x", what);

    /* too small by one: nothing written, size reported */
    uint8_t small[160];
    memset(small, 0xEE, sizeof small);
    size_t w2 = 0;
    T_CHECK(mpa_ddp_encode(x, small, w - 1, &w2) == MPA_E_NOSPACE,
            "%s: nospace", what);
    T_CHECK(w2 == w, "%s: nospace size %zu want %zu", what, w2, w);
    T_CHECK(small[0] == 0xEE, "%s: wrote on nospace", what);
}

static void test_encode_roundtrip_combinations(void)
{
    unsigned count = 0;
    for (unsigned op = 0; op < 16; op++) {
        for (unsigned tg = 0; tg <= 1; tg++) {
            for (unsigned v = 0; v < 16; v++) {
                mpa_ddp x;
                memset(&x, 0, sizeof x);
                x.hdr.tagged = (uint8_t)tg;
                x.hdr.last = (uint8_t)(v & 1);
                x.hdr.dv = (uint8_t)(v & 3);
                x.hdr.rv = (uint8_t)((v >> 2) & 3);
                x.hdr.ddp_rsvd = (uint8_t)(v ^ 0x5);
                x.hdr.rdmap_rsvd = (uint8_t)(v & 3);
                x.hdr.opcode = (uint8_t)op;
                if (tg) {
                    x.hdr.stag = 0x10000001u * (v + 1);
                    x.hdr.to = 0x0102030405060708ull * (v + 1);
                } else {
                    x.hdr.rsvdulp = 0xF0000000u | v;
                    x.hdr.qn = v;
                    x.hdr.msn = 0xFFFFFFFFu - v;
                    x.hdr.mo = v * 1000u;
                }
                switch (op) {
                case 0x1:
                    x.u.rreq.sink_stag = v;
                    x.u.rreq.sink_to = ~0ull - v;
                    x.u.rreq.size = v * 7;
                    x.u.rreq.src_stag = 0x80000000u | v;
                    x.u.rreq.src_to = 0x8000000000000000ull | v;
                    break;
                case 0x7: {
                    mpa_term *t = &x.u.term;
                    t->layer = (uint8_t)(v % 16);
                    t->etype = (uint8_t)((v * 3) % 16);
                    t->code = (uint8_t)(v * 17);
                    t->m = (uint8_t)(v & 1);
                    t->d = (uint8_t)((v >> 1) & 1);
                    t->r = (uint8_t)((v >> 2) & 1);
                    t->rsvd = (uint16_t)(v * 0x111 & 0x1FFF);
                    t->seglen = (uint16_t)(0xABC0 + v);
                    t->ddp_hdr.tagged = (uint8_t)((v >> 3) & 1);
                    t->ddp_hdr.last = 1;
                    t->ddp_hdr.dv = 1;
                    t->ddp_hdr.rv = (uint8_t)(v & 3);
                    t->ddp_hdr.opcode = (uint8_t)(v % 16);
                    if (t->ddp_hdr.tagged) {
                        t->ddp_hdr.stag = 0xCAFE0000u | v;
                        t->ddp_hdr.to = 0x123456789ull + v;
                    } else {
                        t->ddp_hdr.rsvdulp = v;
                        t->ddp_hdr.qn = v % 4;
                        t->ddp_hdr.msn = v + 100;
                        t->ddp_hdr.mo = v * 2;
                    }
                    t->rreq.sink_stag = 1 + v;
                    t->rreq.sink_to = 2 + v;
                    t->rreq.size = 3 + v;
                    t->rreq.src_stag = 4 + v;
                    t->rreq.src_to = 5 + v;
                    break;
                }
                case 0xA: {
                    mpa_atomic_req *a = &x.u.atomic_req;
                    a->rsvd = v * 0x0123457u & 0x0FFFFFFFu;
                    a->aop = (uint8_t)v;
                    a->req_id = 0x01010101u * v;
                    a->stag = ~v;
                    a->to = 0x1111111111111111ull * v;
                    a->add_swap_data = 1ull << v;
                    a->add_swap_mask = ~(1ull << v);
                    a->compare_data = v;
                    a->compare_mask = ~0ull;
                    break;
                }
                case 0xB:
                    x.u.atomic_resp.orig_req_id = v;
                    x.u.atomic_resp.orig_value = ~0ull / (v + 1);
                    break;
                case 0x8:
                case 0x9:
                    x.u.imm.data = 0xFEDCBA9876543210ull ^ v;
                    break;
                default:
                    break;
                }
                char what[48];
                snprintf(what, sizeof what, "op %x T%u v%u", op, tg, v);
                roundtrip(&x, what);
                count++;
            }
        }
    }
    T_EQ(count, 16 * 2 * 16);
}

static void test_encode_args_and_masking(void)
{
    mpa_ddp x;
    memset(&x, 0, sizeof x);
    size_t w = 99;
    uint8_t out[32];
    T_EQ(mpa_ddp_encode(NULL, out, sizeof out, &w), MPA_E_ARG);
    T_EQ(w, 0);
    T_EQ(mpa_ddp_encode(&x, NULL, 4, &w), MPA_E_ARG);
    /* NULL out with cap 0: a size query */
    T_EQ(mpa_ddp_encode(&x, NULL, 0, &w), MPA_E_NOSPACE);
    T_EQ(w, 18);
    T_EQ(mpa_ddp_encode(&x, out, sizeof out, NULL), MPA_OK);
    /* out-of-width control values are masked to their wire width */
    x.hdr.tagged = 1;
    x.hdr.dv = 0xFF;
    x.hdr.opcode = 0x13; /* -> 3 */
    T_EQ(mpa_ddp_encode(&x, out, sizeof out, &w), MPA_OK);
    T_EQ(w, 14);
    T_EQ(out[0], 0x83);
    T_EQ(out[1], 0x03);
}

/* ---- decoder arguments and limits ----------------------------------- */

static void test_decode_args(void)
{
    uint8_t b[32];
    size_t n = untagged(b, 0x3, 0, 0, 1, 0);
    mpa_ddp d;
    size_t need = 3;
    T_EQ(mpa_ddp_decode(b, n, n, NULL, &need), MPA_E_ARG);
    T_EQ(mpa_ddp_decode(NULL, 1, n, &d, &need), MPA_E_ARG);
    T_EQ(mpa_ddp_decode(b, n + 1, n, &d, &need), MPA_E_ARG);
    T_EQ(mpa_ddp_decode(b, n, n, &d, NULL), MPA_OK); /* need optional */
    /* NULL p with avail 0 is a legal empty prefix */
    T_EQ(mpa_ddp_decode(NULL, 0, n, &d, &need), MPA_NEED_MORE);
    T_EQ(need, 14);
    /* a ULPDU shorter than any DDP header: invalid before any octet */
    T_EQ(mpa_ddp_decode(NULL, 0, 13, &d, &need), MPA_E_INVALID);
    T_EQ(d.need_len, 14);
    T_EQ(mpa_ddp_decode(NULL, 0, 0, &d, &need), MPA_E_INVALID);
    /* T=0 seen, ULPDU of 17 */
    T_EQ(dec(b, 1, 17, &d, &need), MPA_E_INVALID);
    T_EQ(d.need_len, 18);
    T_EQ(d.hdr.tagged, 0);
    /* a tagged header fits 14 exactly; untagged needs 18 */
    uint8_t t[14];
    tagged(t, 0x0, 0, 0);
    T_EQ(dec(t, 14, 14, &d, &need), MPA_OK);
    T_EQ(d.payload_len, 0);
    /* a long ULPDU whose prefix is capped at 128 octets */
    uint8_t big[128];
    memset(big, 0, sizeof big);
    untagged(big, 0x3, 0, 0, 1, 0);
    T_EQ(dec(big, sizeof big, 64768, &d, &need), MPA_OK);
    T_EQ(d.payload_len, 64768 - 18);
}

static void test_common_status_str(void)
{
    T_STREQ(mpa_status_str(MPA_OK), "ok");
    T_STREQ(mpa_status_str(MPA_NEED_MORE), "need more input");
    T_STREQ(mpa_status_str(MPA_E_INVALID), "invalid input");
    T_STREQ(mpa_status_str(MPA_E_ARG), "invalid argument");
    T_STREQ(mpa_status_str(MPA_E_NOSPACE), "output buffer too small");
    T_STREQ(mpa_status_str((mpa_status)42), "unknown status");
}

int main(void)
{
    t_name = "ddp";
    test_rfc5041_tagged_rdma_write();
    test_rfc5041_tagged_read_response_not_last();
    test_rfc5041_untagged_send_variants();
    test_draft03_fig5_vector_versions_reported();
    test_rfc5040_4_4_read_request();
    test_rfc5040_4_7_terminate_mdr_combinations();
    test_rfc5040_4_7_terminate_rdma_slice_points_into_input();
    test_rfc5040_4_7_terminate_need_more_bounds();
    test_rfc5040_4_7_terminate_short_ulpdu();
    test_rfc7306_atomic_request();
    test_rfc7306_atomic_response_and_immediate();
    test_rfc5040_4_2_unknown_opcodes();
    test_rfc5044_8_rfc6581_8_mpa_code_names();
    test_rfc5040_4_7_rdmap_code_names();
    test_rfc5041_7_ddp_code_names();
    test_rfc6581_9_2_rtr_kinds();
    test_anomalies_each_bit();
    test_encode_roundtrip_combinations();
    test_encode_args_and_masking();
    test_decode_args();
    test_common_status_str();
    return t_done();
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MPA startup frames: RFC 5044 7.1.1 (Request/Reply), RFC 6581 6 and 9
 * (S bit, Rev 2, IRD/ORD and A/B/C/D), draft-culley-iwarp-mpa-03 8.1.1
 * (Start Key) and the 2007 interop "RtR frame" proposal.
 */
#include <string.h>

#include "mpa/frame.h"
#include "rd.h"

/* The keys are 16 octets with no terminating NUL: spelled out octet by
 * octet (a 16-character string literal in a 16-octet array is a warning
 * of newer compilers). */
static const uint8_t key_req[16] = {'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'q', ' ', 'F', 'r', 'a', 'm', 'e'};
static const uint8_t key_rep[16] = {'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'p', ' ', 'F', 'r', 'a', 'm', 'e'};
static const uint8_t key_rtr[16] = {'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 't', 'R', ' ', 'F', 'r', 'a', 'm', 'e'};
/* 15 octets; the 16th is the flags octet of the Start Key. */
static const uint8_t key_start[16] = "MPA ident frame";

const char *mpa_key_kind_name(mpa_key_kind k)
{
    switch (k) {
    case MPA_KEY_REQ:
        return "Request";
    case MPA_KEY_REP:
        return "Reply";
    case MPA_KEY_RTR2007:
        return "RtR frame (2007 proposal)";
    case MPA_KEY_STARTKEY:
        return "Start Key (draft-03)";
    case MPA_KEY_UNKNOWN:
        break;
    }
    return "unknown";
}

const uint8_t *mpa_key_bytes(mpa_key_kind k)
{
    switch (k) {
    case MPA_KEY_REQ:
        return key_req;
    case MPA_KEY_REP:
        return key_rep;
    case MPA_KEY_RTR2007:
        return key_rtr;
    case MPA_KEY_STARTKEY:
        return key_start;
    case MPA_KEY_UNKNOWN:
        break;
    }
    return NULL;
}

uint32_t mpa_enh_pack(const mpa_enh *e)
{
    return ((uint32_t)(e->a & 1) << 31) | ((uint32_t)(e->b & 1) << 30) |
           ((uint32_t)(e->ird & 0x3FFF) << 16) | ((uint32_t)(e->c & 1) << 15) |
           ((uint32_t)(e->d & 1) << 14) | (uint32_t)(e->ord & 0x3FFF);
}

mpa_enh mpa_enh_unpack(uint32_t v)
{
    mpa_enh e;
    e.a = (uint8_t)(v >> 31 & 1);
    e.b = (uint8_t)(v >> 30 & 1);
    e.ird = (uint16_t)(v >> 16 & 0x3FFF);
    e.c = (uint8_t)(v >> 15 & 1);
    e.d = (uint8_t)(v >> 14 & 1);
    e.ord = (uint16_t)(v & 0x3FFF);
    return e;
}

static unsigned key_len(mpa_key_kind k) { return k == MPA_KEY_STARTKEY ? 15 : 16; }

/* Classify 16 key octets; for unknown keys fill nearest/first_diff. */
static void classify_key(const uint8_t *k, mpa_frame *out)
{
    static const mpa_key_kind kinds[] = {MPA_KEY_REQ, MPA_KEY_REP, MPA_KEY_RTR2007,
                                         MPA_KEY_STARTKEY};
    unsigned best_eq = 0;
    out->kind = MPA_KEY_UNKNOWN;
    out->nearest = MPA_KEY_REQ;
    out->first_diff = -1;
    out->n_diff = 0;
    for (unsigned i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        const uint8_t *ref = mpa_key_bytes(kinds[i]);
        unsigned n = key_len(kinds[i]), eq = 0;
        int first = -1;
        for (unsigned j = 0; j < n; j++) {
            if (k[j] == ref[j])
                eq++;
            else if (first < 0)
                first = (int)j;
        }
        if (first < 0) {
            out->kind = kinds[i];
            out->nearest = kinds[i];
            return;
        }
        /* Scale the 15-octet key so it competes fairly. */
        unsigned score = eq * 16 / n;
        if (score > best_eq) {
            best_eq = score;
            out->nearest = kinds[i];
            out->first_diff = first;
            out->n_diff = n - eq;
        }
    }
}

mpa_status mpa_frame_decode(const uint8_t *p, size_t len, mpa_frame *out, size_t *need)
{
    if (!out || (!p && len))
        return MPA_E_ARG;
    memset(out, 0, sizeof *out);
    out->first_diff = -1;
    if (need)
        *need = 0;

    rd_t r = rd_init(p, len);
    const uint8_t *key = rd_bytes(&r, MPA_KEY_LEN);
    if (!key) {
        if (need)
            *need = r.short_by;
        return MPA_NEED_MORE;
    }
    memcpy(out->key, key, MPA_KEY_LEN);
    classify_key(key, out);

    if (out->kind == MPA_KEY_STARTKEY) {
        uint8_t fl = key[15];
        out->m = fl >> 7 & 1;
        out->c = fl >> 6 & 1;
        out->res = fl >> 4 & 3;
        out->rev = fl & 0xF;
        out->hdr_len = out->frame_len = MPA_STARTKEY_LEN;
        return MPA_OK;
    }

    uint8_t b0 = rd_u8(&r);
    uint8_t rev = rd_u8(&r);
    uint16_t pdl = rd_be16(&r);
    if (!rd_ok(&r)) {
        if (need)
            *need = r.short_by;
        return out->kind == MPA_KEY_UNKNOWN ? MPA_E_INVALID : MPA_NEED_MORE;
    }
    out->m = b0 >> 7 & 1;
    out->c = b0 >> 6 & 1;
    out->r = b0 >> 5 & 1;
    out->s = b0 >> 4 & 1;
    out->res = b0 & 0xF;
    out->rev = rev;
    out->pd_len = pdl;
    out->hdr_len = MPA_FRAME_HDR_LEN;
    out->frame_len = MPA_FRAME_HDR_LEN + (size_t)pdl;
    if (out->kind == MPA_KEY_UNKNOWN)
        return MPA_E_INVALID;

    out->pd = p + MPA_FRAME_HDR_LEN;
    out->pd_avail = rd_left(&r) < pdl ? rd_left(&r) : pdl;
    if (out->s && pdl >= MPA_ENH_LEN && out->pd_avail >= MPA_ENH_LEN) {
        out->has_enh = 1;
        out->enh = mpa_enh_unpack(ld_be32(out->pd));
    }
    out->leg = mpa_frame_legacy_irdord(out);
    if (out->pd_avail < pdl) {
        if (need)
            *need = pdl - out->pd_avail;
        return MPA_NEED_MORE;
    }
    return MPA_OK;
}

mpa_status mpa_frame_encode(const mpa_frame_enc *f, uint8_t *out, size_t cap, size_t *written)
{
    if (!f || (!out && cap) || (!f->pd && f->pd_len))
        return MPA_E_ARG;
    const uint8_t *key = f->raw_key ? f->raw_key : mpa_key_bytes(f->kind);
    if (!key)
        return MPA_E_ARG;
    if (written)
        *written = 0;

    if (f->kind == MPA_KEY_STARTKEY && !f->raw_key) {
        if (cap < MPA_STARTKEY_LEN)
            return MPA_E_NOSPACE;
        memcpy(out, key, 15);
        out[15] = (uint8_t)((f->m & 1) << 7 | (f->c & 1) << 6 | (f->res & 3) << 4 | (f->rev & 0xF));
        if (written)
            *written = MPA_STARTKEY_LEN;
        return MPA_OK;
    }

    size_t pd_total = (f->enh_present ? MPA_ENH_LEN : 0) + f->pd_len;
    if (pd_total > 0xFFFF)
        return MPA_E_ARG;
    size_t total = MPA_FRAME_HDR_LEN + pd_total;
    if (cap < total)
        return MPA_E_NOSPACE;
    memcpy(out, key, MPA_KEY_LEN);
    out[16] = (uint8_t)((f->m & 1) << 7 | (f->c & 1) << 6 | (f->r & 1) << 5 | (f->s & 1) << 4 |
                        (f->res & 0xF));
    out[17] = f->rev;
    wr_be16(out + 18, (uint16_t)(f->pd_len_override >= 0 ? f->pd_len_override : (int)pd_total));
    uint8_t *q = out + MPA_FRAME_HDR_LEN;
    if (f->enh_present) {
        wr_be32(q, mpa_enh_pack(&f->enh));
        q += MPA_ENH_LEN;
    }
    if (f->pd_len)
        memcpy(q, f->pd, f->pd_len);
    if (written)
        *written = total;
    return MPA_OK;
}

/* A depth as the legacy header carries it: 1..65535. */
static int leg_depth(uint32_t v) { return v >= 1 && v <= 0xFFFF; }

static uint32_t swap32(uint32_t v)
{
    return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
}

mpa_leg_irdord mpa_frame_legacy_irdord(const mpa_frame *f)
{
    mpa_leg_irdord l = {MPA_LEG_NONE, 0, 0};
    if (!f || f->rev != 1 || f->s || !f->pd || (f->kind != MPA_KEY_REQ && f->kind != MPA_KEY_REP))
        return l;
    rd_t r = rd_init(f->pd, f->pd_avail < f->pd_len ? f->pd_avail : f->pd_len);
    uint32_t ird = rd_be32(&r), ord = rd_be32(&r);
    if (!rd_ok(&r))
        return l;
    if (leg_depth(ird) && leg_depth(ord)) {
        l.order = MPA_LEG_BE;
    } else if (leg_depth(swap32(ird)) && leg_depth(swap32(ord))) {
        l.order = MPA_LEG_LE;
        ird = swap32(ird);
        ord = swap32(ord);
    } else {
        return l;
    }
    l.ird = ird;
    l.ord = ord;
    return l;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * TERMINATE plausibility: RFC 5040 4.8 and 7.2, RFC 5041 7, RFC 5044 8,
 * RFC 6581 8 and 9.  See include/mpa/term.h.
 */
#include "mpa/term.h"

void mpa_term_ctl_of(const mpa_term *t, mpa_term_ctl *out)
{
    out->layer = t->layer;
    out->etype = t->etype;
    out->code = t->code;
    out->m = t->m;
    out->d = t->d;
    out->r = t->r;
    out->rsvd = t->rsvd;
}

/* Octets 0 and 2-3 of the control word as a little-endian bit-field:
 * Layer is the low nibble of octet 0, EType the high one; M, D, R are
 * bits 0, 1, 2 (from the least significant) of octet 2 and the reserved
 * bits the rest of octets 2 and 3. */
void mpa_term_ctl_lebf(const mpa_term_ctl *a, mpa_term_ctl *out)
{
    unsigned o2 = (unsigned)(a->m << 7 | a->d << 6 | a->r << 5) | (a->rsvd >> 8 & 0x1Fu);
    unsigned o3 = a->rsvd & 0xFFu;
    out->layer = a->etype;
    out->etype = a->layer;
    out->code = a->code;
    out->m = (uint8_t)(o2 & 1u);
    out->d = (uint8_t)(o2 >> 1 & 1u);
    out->r = (uint8_t)(o2 >> 2 & 1u);
    out->rsvd = (uint16_t)(o2 >> 3 | o3 << 5);
}

int mpa_term_ctl_same(const mpa_term_ctl *a, const mpa_term_ctl *b)
{
    return a->layer == b->layer && a->etype == b->etype && a->code == b->code && a->m == b->m &&
           a->d == b->d && a->r == b->r && a->rsvd == b->rsvd;
}

int mpa_term_about_peer(const mpa_term_ctl *c)
{
    switch (c->layer) {
    case MPA_TERM_LAYER_RDMAP: /* Remote Protection, Remote Operation */
    case MPA_TERM_LAYER_DDP:   /* Tagged, Untagged Buffer errors */
        return c->etype == 1 || c->etype == 2;
    case MPA_TERM_LAYER_LLP: /* CRC error, marker/length mismatch */
        return c->etype == 0 && (c->code == 2 || c->code == 3);
    default:
        return 0;
    }
}

size_t mpa_term_ctl_len(const mpa_term_ctl *c, const uint8_t *ulpdu, size_t avail)
{
    size_t n = MPA_DDP_UNTAGGED_HDR_LEN + MPA_RDMAP_TERM_MIN_LEN;
    if (c->m || c->d)
        n += 2;
    if (c->d) {
        if (!ulpdu || avail <= n)
            return 0;
        n += (ulpdu[n] & 0x80u) ? MPA_DDP_TAGGED_HDR_LEN : MPA_DDP_UNTAGGED_HDR_LEN;
    }
    if (c->r)
        n += MPA_RDMAP_RREQ_LEN;
    return n;
}

mpa_term_verdict mpa_term_judge(const mpa_term_ctl *c, const mpa_term_ctx *x, const uint8_t *ulpdu,
                                size_t avail, size_t ulpdu_len)
{
    if (!mpa_term_code_known(c->layer, c->etype, c->code))
        return MPA_TERM_UNDEFINED;
    if (ulpdu) {
        size_t n = mpa_term_ctl_len(c, ulpdu, avail);
        if (n && n != ulpdu_len)
            return MPA_TERM_LAYOUT;
    }
    if (c->layer == MPA_TERM_LAYER_LLP && c->etype == 0 && c->code >= 5 && c->code <= 7) {
        /* RFC 6581 8, 9.2: codes of enhanced connection establishment.
         * Code 5 (a local error with no code of its own) needs peers that
         * know RFC 6581 (Rev 2, or an enhanced startup asked for), at any
         * time; 6 (IRD/ORD) and 7 (no matching RTR: the Initiator's
         * answer, or a Responder's to an RTR it did not offer) are the
         * sender's first FPDU after a Request that asked for them. */
        if (c->code == 5 ? !(x->enhanced || x->rev2)
                         : !x->enhanced || !x->first || (c->code == 7 && !x->request_a))
            return MPA_TERM_LLP_STARTUP;
    }
    if (mpa_term_about_peer(c) && !x->peer_fpdus && !x->peer_unknown)
        return MPA_TERM_NO_PEER_FPDU;
    return MPA_TERM_PLAUSIBLE;
}

const char *mpa_term_verdict_str(mpa_term_verdict v)
{
    switch (v) {
    case MPA_TERM_PLAUSIBLE: return "plausible";
    case MPA_TERM_UNDEFINED: return "undefined";
    case MPA_TERM_LAYOUT: return "length disagrees with M/D/R";
    case MPA_TERM_LLP_STARTUP: return "LLP code outside an enhanced startup";
    case MPA_TERM_NO_PEER_FPDU: return "about FPDUs the peer never sent";
    }
    return "unknown";
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * FPDU framing: RFC 5044 4.1 (format), 4.2-4.3 (markers), 4.4 (CRC),
 * 4.5 (MULPDU); draft-culley-iwarp-mpa-03 6, 7.1-7.3.
 */
#include <string.h>

#include "fpdu_rx.h"
#include "mpa/crc32c.h"
#include "mpa/fpdu.h"
#include "rd.h"

const char *mpa_crc_status_str(mpa_crc_status st)
{
    switch (st) {
    case MPA_CRC_NOT_CHECKED:
        return "not checked";
    case MPA_CRC_GOOD:
        return "good";
    case MPA_CRC_BAD:
        return "bad";
    }
    return "unknown";
}

/* GCC expands a memcpy whose length it can bound (a ring's size, the
 * prefix's) into `rep movsq`, which on current x86 CPUs is several times
 * slower than the C library's copy for runs of a few hundred octets to a
 * few KiB; mpa-audit spent a quarter of its time there.  A call whose
 * length GCC cannot bound keeps the library's copy. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((noipa))
#endif
void rx_copy(uint8_t *dst, const uint8_t *src, size_t n)
{
    memcpy(dst, src, n);
}

static inline uint32_t pad_of(uint32_t ulpdu_len) { return (4u - ((2u + ulpdu_len) & 3u)) & 3u; }

void rx_init(fpdu_rx *rx, int markers, int crc_on, uint32_t mbase, uint32_t pos)
{
    memset(rx, 0, sizeof *rx);
    rx->markers = markers ? 1 : 0;
    rx->crc_on = crc_on ? 1 : 0;
    rx->mbase = mbase;
    rx->pos = pos;
    rx->crc = MPA_CRC32C_INIT;
}

void rx_init_cfg(fpdu_rx *rx, const mpa_fpdu_cfg *cfg, const mpa_marker_form *mf, int crc_on, uint32_t pos)
{
    rx_init(rx, cfg->markers, crc_on, cfg->mark_base, pos);
    if (mf) {
        rx->mk_order = mf->order <= MK_ORDER_LE32 ? mf->order : MK_ORDER_BE;
        rx->mk_nocrc = mf->nocrc ? 1 : 0;
    }
}

static void rx_reset_fpdu(fpdu_rx *rx)
{
    rx->phase = RX_LEN;
    rx->started = 0;
    rx->leading_marker = 0;
    rx->nlen = rx->ncrc = 0;
    rx->pad_len = rx->pad_nonzero = 0;
    rx->ulpdu_len = 0;
    rx->body_seen = 0;
    rx->crc = MPA_CRC32C_INIT;
    rx->n_markers = 0;
    rx->mk_any = 0;
    rx->nprefix = 0;
}

static void rx_begin(fpdu_rx *rx, int leading)
{
    if (!rx->started) {
        rx->started = 1;
        rx->start = rx->pos;
        rx->leading_marker = leading ? 1 : 0;
    }
}

static void rx_marker_done(fpdu_rx *rx)
{
    uint32_t mpos = rx->pos - MPA_MARKER_LEN;
    uint16_t res = ld_be16(rx->mkb), ptr = ld_be16(rx->mkb + 2);
    if (rx->mk_order == MK_ORDER_LE16) {
        ptr = (uint16_t)(rx->mkb[2] | rx->mkb[3] << 8);
    } else if (rx->mk_order == MK_ORDER_LE32) {
        ptr = (uint16_t)(rx->mkb[0] | rx->mkb[1] << 8);
        res = (uint16_t)(rx->mkb[2] | rx->mkb[3] << 8);
    }
    int leading = rx->start == mpos;
    /* RFC 5044 4.3: FPDUPTR counts back to the ULPDU_Length field, which
     * follows the FPDU's leading marker when it has one. */
    uint32_t hdr = rx->start + (rx->leading_marker ? MPA_MARKER_LEN : 0u);
    memset(&rx->mk, 0, sizeof rx->mk);
    rx->mk.pos = mpos;
    rx->mk.reserved = res;
    rx->mk.fpduptr = ptr;
    rx->mk.leading = (uint8_t)leading;
    rx->mk.res_bad = res != 0 || (ptr & 3) != 0;
    /* RFC 5044 4.3: the low two bits are treated as zero by receivers. */
    rx->mk.implied = mpos - (uint32_t)(ptr & ~3u);
    rx->mk.fpdu_start = rx->start;
    if (leading) {
        rx->mk.ptr_bad = ptr != 0;
    } else if (ptr == 0) {
        rx->mk.ptr_bad = 1;
    } else {
        rx->mk.len_disagree = rx->mk.implied != hdr;
        if (rx->mk_any && rx->mk.implied != rx->mk_first_implied)
            rx->mk.same_bad = 1;
        if (!rx->mk_any) {
            rx->mk_any = 1;
            rx->mk_first_implied = rx->mk.implied;
        }
    }
    rx->n_markers++;
}

static void rx_fpdu_done(fpdu_rx *rx)
{
    rx->f.start = rx->start;
    rx->f.wire_len = rx->pos - rx->start;
    rx->f.ulpdu_len = rx->ulpdu_len;
    rx->f.pad_len = rx->pad_len;
    rx->f.pad_nonzero = rx->pad_nonzero;
    rx->f.leading_marker = rx->leading_marker;
    rx->f.n_markers = rx->n_markers;
    rx->f.crc_calc = rx->crc_on ? mpa_crc32c_final(rx->crc) : 0;
    rx->f.crc_wire = (uint32_t)rx->crcb[0] | (uint32_t)rx->crcb[1] << 8 |
                     (uint32_t)rx->crcb[2] << 16 | (uint32_t)rx->crcb[3] << 24;
    rx->f.nprefix = rx->nprefix;
    rx->f.mbase = rx->mbase - (rx->mk_nocrc ? 4u : 0u);
}

/* The CRC of the octets one rx_run call reads is taken in as few calls as
 * they allow: the octets it covers (RFC 5044 4.4: the FPDU up to its CRC
 * field, markers included) follow one another in the caller's buffer,
 * so they are gathered into one run, and the CRC is updated before
 * rx->crc is read (the FPDU's end) and before the call returns.  The
 * octets it does not cover (the CRC field, a marker inside it) come only
 * after the covered ones of their FPDU; a run that did not continue
 * would still be updated first (crc_add).  The result is the same as
 * piece by piece: CRC32C over A then B is CRC32C over A and B together. */
typedef struct crc_run {
    const uint8_t *p;
    size_t n;
} crc_run;

static inline void crc_add(fpdu_rx *rx, crc_run *r, const uint8_t *q, size_t n)
{
    if (r->n && r->p + r->n == q) {
        r->n += n;
        return;
    }
    if (r->n)
        rx->crc = mpa_crc32c_update(rx->crc, r->p, r->n);
    r->p = q;
    r->n = n;
}

static inline void crc_flush(fpdu_rx *rx, crc_run *r)
{
    if (r->n)
        rx->crc = mpa_crc32c_update(rx->crc, r->p, r->n);
    r->n = 0;
}

/* n (at most 4) octets into a 4-octet field: the common whole field
 * without a call. */
static inline void copy_small(uint8_t *dst, const uint8_t *src, size_t n)
{
    if (n == 4)
        memcpy(dst, src, 4);
    else
        for (size_t k = 0; k < n; k++)
            dst[k] = src[k];
}

size_t rx_run(fpdu_rx *rx, const uint8_t *p, size_t len, int *item)
{
    size_t i = 0;
    crc_run cr = {NULL, 0};
    *item = RX_NONE;
    if (rx->phase == RX_LEN && rx->nlen == 0 && rx->ncrc == 0 && !rx->started)
        rx->nprefix = 0;
    while (i < len) {
        size_t room = len - i;
        /* A sender that does not count CRC octets puts no marker
         * before or inside a CRC field (fpdu_rx.h). */
        if (rx->markers && !(rx->mk_nocrc && rx->phase == RX_CRC && rx->nmk == 0)) {
            uint32_t ph = (rx->pos - rx->mbase) & (MPA_MARKER_INTERVAL - 1);
            if (rx->nmk || ph == 0) {
                if (rx->nmk == 0) {
                    rx_begin(rx, 1);
                    /* A marker right before the CRC field is covered by
                     * the CRC; one inside the CRC field cannot be. */
                    rx->mk_in_crc = !(rx->phase == RX_CRC && rx->ncrc > 0);
                }
                size_t take = MPA_MARKER_LEN - rx->nmk;
                if (take > room)
                    take = room;
                copy_small(rx->mkb + rx->nmk, p + i, take);
                if (rx->crc_on && rx->mk_in_crc)
                    crc_add(rx, &cr, p + i, take);
                rx->nmk = (uint8_t)(rx->nmk + take);
                rx->pos += (uint32_t)take;
                i += take;
                if (rx->nmk == MPA_MARKER_LEN) {
                    rx->nmk = 0;
                    rx_marker_done(rx);
                    if (rx->mk_quiet && !(rx->mk.res_bad | rx->mk.ptr_bad | rx->mk.len_disagree | rx->mk.same_bad)) {
                        rx->quiet_n++;
                        continue;
                    }
                    *item = RX_MARKER;
                    crc_flush(rx, &cr);
                    return i;
                }
                continue;
            }
            if (room > MPA_MARKER_INTERVAL - ph)
                room = MPA_MARKER_INTERVAL - ph;
        }
        switch (rx->phase) {
        case RX_LEN: {
            rx_begin(rx, 0);
            size_t take = 2u - rx->nlen;
            if (take > room)
                take = room;
            if (take == 2)
                memcpy(rx->lenb, p + i, 2);
            else
                rx->lenb[rx->nlen] = p[i];
            if (rx->crc_on)
                crc_add(rx, &cr, p + i, take);
            rx->nlen = (uint8_t)(rx->nlen + take);
            rx->pos += (uint32_t)take;
            i += take;
            if (rx->nlen == 2) {
                rx->ulpdu_len = ld_be16(rx->lenb);
                rx->pad_len = (uint8_t)pad_of(rx->ulpdu_len);
                rx->body_seen = 0;
                rx->phase = (rx->ulpdu_len + rx->pad_len) ? RX_BODY : RX_CRC;
            }
            break;
        }
        case RX_BODY: {
            uint32_t total = (uint32_t)rx->ulpdu_len + rx->pad_len;
            size_t take = total - rx->body_seen;
            if (take > room)
                take = room;
            const uint8_t *q = p + i;
            if (rx->body_seen < rx->ulpdu_len && rx->nprefix < RX_PREFIX_MAX) {
                size_t n = rx->ulpdu_len - rx->body_seen;
                if (n > take)
                    n = take;
                if (n > (size_t)(RX_PREFIX_MAX - rx->nprefix))
                    n = RX_PREFIX_MAX - rx->nprefix;
                rx_copy(rx->prefix + rx->nprefix, q, n);
                rx->nprefix = (uint16_t)(rx->nprefix + n);
            }
            if (rx->body_seen + take > rx->ulpdu_len) {
                size_t from = rx->body_seen < rx->ulpdu_len ? rx->ulpdu_len - rx->body_seen : 0;
                for (size_t k = from; k < take; k++)
                    rx->pad_nonzero |= q[k] != 0;
            }
            if (rx->crc_on)
                crc_add(rx, &cr, q, take);
            rx->body_seen += (uint32_t)take;
            rx->pos += (uint32_t)take;
            i += take;
            if (rx->body_seen == total)
                rx->phase = RX_CRC;
            break;
        }
        case RX_CRC: {
            size_t take = 4u - rx->ncrc;
            if (take > room)
                take = room;
            copy_small(rx->crcb + rx->ncrc, p + i, take);
            rx->ncrc = (uint8_t)(rx->ncrc + take);
            rx->pos += (uint32_t)take;
            rx->crc_octets += (uint32_t)take;
            if (rx->mk_nocrc)
                rx->mbase += (uint32_t)take;
            i += take;
            if (rx->ncrc == 4) {
                crc_flush(rx, &cr);
                rx_fpdu_done(rx);
                uint16_t keep = rx->nprefix;
                rx_reset_fpdu(rx);
                rx->nprefix = keep; /* readable until the next call */
                *item = RX_FPDU;
                return i;
            }
            break;
        }
        }
    }
    crc_flush(rx, &cr);
    return i;
}

/* Octets from pos needed to place `payload` non-marker octets, given a
 * marker read that may be in progress. */
static uint32_t span_with_markers(const fpdu_rx *rx, uint32_t payload)
{
    uint32_t pos = rx->pos, n = 0;
    if (rx->nmk) {
        n += MPA_MARKER_LEN - rx->nmk;
        pos += MPA_MARKER_LEN - rx->nmk;
    }
    while (payload) {
        if (rx->markers && ((pos - rx->mbase) & (MPA_MARKER_INTERVAL - 1)) == 0) {
            n += MPA_MARKER_LEN;
            pos += MPA_MARKER_LEN;
        }
        uint32_t room = rx->markers ? MPA_MARKER_INTERVAL - ((pos - rx->mbase) & (MPA_MARKER_INTERVAL - 1))
                                    : payload;
        uint32_t take = payload < room ? payload : room;
        n += take;
        pos += take;
        payload -= take;
    }
    return n;
}

uint32_t rx_need(const fpdu_rx *rx)
{
    if (rx->phase == RX_LEN && rx->nlen < 2)
        return span_with_markers(rx, 2u - rx->nlen);
    uint32_t payload = (uint32_t)rx->ulpdu_len + rx->pad_len - (rx->phase == RX_BODY ? rx->body_seen : (uint32_t)rx->ulpdu_len + rx->pad_len) +
                       (4u - rx->ncrc);
    return span_with_markers(rx, payload);
}

static mpa_status fpdu_decode(const uint8_t *p, size_t len, uint32_t seq, const mpa_fpdu_cfg *cfg,
                              const mpa_marker_form *mf, mpa_fpdu *out, size_t *need, int with_crc)
{
    if (!cfg || !out || (!p && len))
        return MPA_E_ARG;
    if (need)
        *need = 0;
    fpdu_rx rx;
    rx_init_cfg(&rx, cfg, mf, with_crc, seq);
    out->n_markers = 0;
    size_t i = 0;
    for (;;) {
        int item;
        i += rx_run(&rx, p + i, len - i, &item);
        if (item == RX_MARKER) {
            if (out->n_markers < MPA_FPDU_MAX_MARKERS) {
                mpa_marker *m = &out->markers[out->n_markers++];
                m->seq = rx.mk.pos;
                m->buf_off = rx.mk.pos - seq;
                m->reserved = rx.mk.reserved;
                m->fpduptr = rx.mk.fpduptr;
            }
            continue;
        }
        if (item == RX_FPDU)
            break;
        if (need)
            *need = rx_need(&rx);
        return MPA_NEED_MORE;
    }
    out->seq = seq;
    out->wire_len = rx.f.wire_len;
    out->ulpdu_len = rx.f.ulpdu_len;
    out->pad_len = rx.f.pad_len;
    out->pad_nonzero = rx.f.pad_nonzero;
    out->leading_marker = rx.f.leading_marker;
    out->crc_wire = rx.f.crc_wire;
    out->crc_calc = rx.f.crc_calc;
    out->crc = !cfg->crc || !with_crc ? MPA_CRC_NOT_CHECKED
                                      : (rx.f.crc_wire == rx.f.crc_calc ? MPA_CRC_GOOD : MPA_CRC_BAD);
    size_t ubegin = (out->leading_marker ? MPA_MARKER_LEN : 0) + 2;
    out->ulpdu = p + ubegin;
    for (unsigned k = 0; k < out->n_markers; k++)
        if (out->markers[k].buf_off != 0 && out->markers[k].buf_off < ubegin + out->ulpdu_len)
            out->ulpdu = NULL;
    return MPA_OK;
}

mpa_status mpa_fpdu_decode(const uint8_t *p, size_t len, uint32_t seq, const mpa_fpdu_cfg *cfg,
                           mpa_fpdu *out, size_t *need)
{
    return fpdu_decode(p, len, seq, cfg, NULL, out, need, 1);
}

mpa_status mpa_fpdu_layout(const uint8_t *p, size_t len, uint32_t seq, const mpa_fpdu_cfg *cfg,
                           mpa_fpdu *out, size_t *need)
{
    return fpdu_decode(p, len, seq, cfg, NULL, out, need, 0);
}

mpa_status mpa_fpdu_layout_mf(const uint8_t *p, size_t len, uint32_t seq, const mpa_fpdu_cfg *cfg,
                              const mpa_marker_form *mf, mpa_fpdu *out, size_t *need)
{
    return fpdu_decode(p, len, seq, cfg, mf, out, need, 0);
}

mpa_status mpa_fpdu_head_decode(const uint8_t *p, size_t len, uint32_t seq, const mpa_fpdu_cfg *cfg, mpa_fpdu_head *out)
{
    return mpa_fpdu_head_decode_mf(p, len, seq, cfg, NULL, out);
}

mpa_status mpa_fpdu_head_decode_mf(const uint8_t *p, size_t len, uint32_t seq, const mpa_fpdu_cfg *cfg,
                                   const mpa_marker_form *mf, mpa_fpdu_head *out)
{
    if (!cfg || !out || (!p && len))
        return MPA_E_ARG;
    memset(out, 0, sizeof *out);
    fpdu_rx rx;
    rx_init_cfg(&rx, cfg, mf, 0, seq);
    size_t i = 0;
    int item = RX_NONE;
    while (i < len) {
        i += rx_run(&rx, p + i, len - i, &item);
        if (item == RX_MARKER && out->n_markers < MPA_FPDU_MAX_MARKERS) {
            mpa_marker *m = &out->markers[out->n_markers++];
            m->seq = rx.mk.pos;
            m->buf_off = rx.mk.pos - seq;
            m->reserved = rx.mk.reserved;
            m->fpduptr = rx.mk.fpduptr;
        }
        if (item == RX_FPDU)
            break;
    }
    /* A marker due at the FPDU's first octet leads it (RFC 5044 4.3). */
    out->len_off = cfg->markers && ((seq - cfg->mark_base) & (MPA_MARKER_INTERVAL - 1)) == 0 ? MPA_MARKER_LEN : 0;
    if (item == RX_FPDU) {
        out->have_len = 1;
        out->ulpdu_len = rx.f.ulpdu_len;
        out->wire_len = rx.f.wire_len;
        out->ulpdu_avail = rx.f.nprefix;
    } else if (rx.phase != RX_LEN) {
        out->have_len = 1;
        out->ulpdu_len = rx.ulpdu_len;
        out->wire_len = (uint32_t)(rx.pos - rx.start) + rx_need(&rx);
        out->ulpdu_avail = rx.nprefix;
    }
    if (out->ulpdu_avail > MPA_FPDU_HEAD_MAX)
        out->ulpdu_avail = MPA_FPDU_HEAD_MAX;
    memcpy(out->ulpdu, rx.prefix, out->ulpdu_avail);
    return MPA_OK;
}

size_t mpa_fpdu_ulpdu_copy(const uint8_t *p, const mpa_fpdu *f, uint8_t *dst, size_t cap)
{
    if (!p || !f || (!dst && cap))
        return 0;
    size_t want = f->ulpdu_len < cap ? f->ulpdu_len : cap, got = 0, skip = 2, off = 0;
    unsigned mk = 0;
    /* Runs of octets between markers, copied whole: the next marker
     * (markers[] is in wire order) ends a run and is stepped over. */
    while (off < f->wire_len && got < want) {
        if (mk < f->n_markers && f->markers[mk].buf_off == off) {
            off += MPA_MARKER_LEN;
            mk++;
            continue;
        }
        size_t end = f->wire_len;
        if (mk < f->n_markers && f->markers[mk].buf_off > off && f->markers[mk].buf_off < end)
            end = f->markers[mk].buf_off;
        size_t n = end - off;
        if (skip) { /* the ULPDU_Length field */
            size_t k = n < skip ? n : skip;
            skip -= k;
            off += k;
            continue;
        }
        if (n > want - got)
            n = want - got;
        memcpy(dst + got, p + off, n);
        got += n;
        off += n;
    }
    return got;
}

size_t mpa_fpdu_wire_len(uint16_t ulpdu_len, uint32_t seq, const mpa_fpdu_cfg *cfg)
{
    fpdu_rx rx;
    rx_init(&rx, cfg ? cfg->markers : 0, 0, cfg ? cfg->mark_base : 0, seq);
    return span_with_markers(&rx, 2u + ulpdu_len + pad_of(ulpdu_len) + 4u);
}

/* Encoder state: writes runs, inserting markers as their positions come. */
typedef struct enc {
    uint8_t *out;
    size_t cap, n;
    uint32_t pos, start, mbase;
    int markers, overflow;
    uint32_t crc;
    int crc_run; /* markers and data count in the CRC */
    unsigned nmarks;
    const mpa_fpdu_faults *fl;
    int lead; /* a marker was written at the FPDU's first octet */
} enc_t;

static void enc_marker_if_due(enc_t *e)
{
    if (!e->markers || ((e->pos - e->mbase) & (MPA_MARKER_INTERVAL - 1)) != 0)
        return;
    uint8_t mk[4];
    /* FPDUPTR: back to the ULPDU_Length field (RFC 5044 4.3), 0 for a
     * marker at the FPDU's first octet, which then precedes that field. */
    uint32_t ptr = e->pos - e->start;
    if (ptr == 0)
        e->lead = 1;
    else if (e->lead)
        ptr -= MPA_MARKER_LEN;
    e->nmarks++;
    if (e->fl && (e->fl->marker_nth == 0 || e->fl->marker_nth == e->nmarks))
        ptr += (uint32_t)e->fl->marker_ptr_delta;
    wr_be16(mk, e->fl ? e->fl->marker_reserved : 0);
    wr_be16(mk + 2, (uint16_t)ptr);
    if (e->n + 4 > e->cap) {
        e->overflow = 1;
        return;
    }
    memcpy(e->out + e->n, mk, 4);
    if (e->crc_run)
        e->crc = mpa_crc32c_update(e->crc, mk, 4);
    e->n += 4;
    e->pos += 4;
}

static void enc_put(enc_t *e, const uint8_t *src, size_t len)
{
    while (len && !e->overflow) {
        enc_marker_if_due(e);
        if (e->overflow)
            return;
        size_t room = len;
        if (e->markers) {
            size_t to_mk = MPA_MARKER_INTERVAL - ((e->pos - e->mbase) & (MPA_MARKER_INTERVAL - 1));
            if (room > to_mk)
                room = to_mk;
        }
        if (e->n + room > e->cap) {
            e->overflow = 1;
            return;
        }
        memcpy(e->out + e->n, src, room);
        if (e->crc_run)
            e->crc = mpa_crc32c_update(e->crc, src, room);
        e->n += room;
        e->pos += (uint32_t)room;
        src += room;
        len -= room;
    }
}

mpa_status mpa_fpdu_encode(const uint8_t *ulpdu, size_t ulpdu_len, uint32_t seq,
                           const mpa_fpdu_cfg *cfg, const mpa_fpdu_faults *faults, uint8_t *out,
                           size_t cap, size_t *written)
{
    if (!cfg || (!ulpdu && ulpdu_len) || (!out && cap) || ulpdu_len > 0xFFFF)
        return MPA_E_ARG;
    if (written)
        *written = 0;
    enc_t e = {out, cap, 0, seq, seq, cfg->mark_base, cfg->markers ? 1 : 0, 0, MPA_CRC32C_INIT, 1, 0,
               faults, 0};
    uint8_t hdr[2];
    int lenv = faults && faults->len_override >= 0 ? faults->len_override : (int)ulpdu_len;
    wr_be16(hdr, (uint16_t)lenv);
    enc_put(&e, hdr, 2);
    enc_put(&e, ulpdu, ulpdu_len);
    uint8_t pad[3];
    memset(pad, faults ? faults->pad_byte : 0, sizeof pad);
    enc_put(&e, pad, pad_of((uint32_t)ulpdu_len));
    enc_marker_if_due(&e); /* a marker before the CRC field is covered by it */
    uint32_t crc = mpa_crc32c_final(e.crc);
    if (faults && faults->crc_mode == 1)
        crc = faults->crc_value;
    else if (faults && faults->crc_mode == 2)
        crc ^= faults->crc_xor;
    uint8_t cb[4] = {(uint8_t)crc, (uint8_t)(crc >> 8), (uint8_t)(crc >> 16), (uint8_t)(crc >> 24)};
    e.crc_run = 0;
    enc_put(&e, cb, 4);
    if (e.overflow)
        return MPA_E_NOSPACE;
    if (written)
        *written = e.n;
    return MPA_OK;
}

unsigned mpa_mulpdu(unsigned emss, int markers)
{
    unsigned over = markers ? 6u + 4u * ((emss + 511u) / 512u) + emss % 4u : 6u + emss % 4u;
    if (emss <= over + MPA_MULPDU_MIN)
        return MPA_MULPDU_MIN;
    return emss - over;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Building scenarios: chunks, startup frames (RFC 5044 7.1, RFC 6581),
 * FPDUs (RFC 5044 4) and ULPDUs (RFC 5041 DDP, RFC 5040 RDMAP), every
 * octet from libmpa's encoders.  See corpus.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "mpa/crc32c.h"

/* The ULPDU of cs_send() and cs_write(): a Send or Write up to the
 * largest FPDU's ULPDU. */
static uint8_t g_ul[70000];

static void die(const char *what)
{
    fprintf(stderr, "corpus: %s\n", what);
    exit(2);
}

void *cs_grow(void *buf, size_t *cap, size_t need, size_t first, size_t elem)
{
    if (need <= *cap)
        return buf;
    size_t nc = *cap ? *cap : first;
    while (nc < need)
        nc *= 2;
    void *nb = realloc(buf, nc * elem);
    if (!nb) {
        perror("realloc");
        exit(2);
    }
    *cap = nc;
    return nb;
}

/* ---- chunks ----------------------------------------------------------- */

void cs_init(cs_scen *s)
{
    memset(s, 0, sizeof *s);
}

void cs_free(cs_scen *s)
{
    free(s->buf);
    free(s->ch);
    memset(s, 0, sizeof *s);
}

uint8_t *cs_reserve(cs_scen *s, size_t n)
{
    s->buf = cs_grow(s->buf, &s->cap, s->len + n, 4096, 1);
    return s->buf + s->len;
}

void cs_push_chunk(cs_scen *s, int kind, int dir, size_t off, size_t len)
{
    s->ch = cs_grow(s->ch, &s->capch, s->nch + 1, 64, sizeof *s->ch);
    cs_chunk *c = &s->ch[s->nch++];
    c->kind = kind;
    c->dir = dir;
    c->off = off;
    c->len = len;
}

void cs_raw(cs_scen *s, int dir, const void *p, size_t n)
{
    uint8_t *q = cs_reserve(s, n);
    memcpy(q, p, n);
    cs_push_chunk(s, CS_DATA, dir, s->len, n);
    s->len += n;
    s->dir_off[dir] += n;
}

void cs_lose_last(cs_scen *s)
{
    for (size_t i = s->nch; i-- > 0;)
        if (s->ch[i].kind == CS_DATA) {
            s->ch[i].kind = CS_LOST;
            return;
        }
}

void cs_end(cs_scen *s, int dir, int rst)
{
    cs_push_chunk(s, rst ? CS_RST : CS_FIN, dir, 0, 0);
}

void cs_merge_last(cs_scen *s, size_t k)
{
    if (k < 2 || k > s->nch)
        return;
    cs_chunk *first = &s->ch[s->nch - k];
    size_t total = 0;
    for (size_t i = s->nch - k; i < s->nch; i++)
        total += s->ch[i].len;
    first->len = total;
    s->nch -= k - 1;
}

/* ---- startup frames ----------------------------------------------------- */

mpa_frame_enc cs_req(int m, int c)
{
    mpa_frame_enc f;
    memset(&f, 0, sizeof f);
    f.kind = MPA_KEY_REQ;
    f.m = (uint8_t)m;
    f.c = (uint8_t)c;
    f.rev = 1;
    f.pd_len_override = -1;
    return f;
}

mpa_frame_enc cs_rep(int m, int c)
{
    mpa_frame_enc f = cs_req(m, c);
    f.kind = MPA_KEY_REP;
    return f;
}

mpa_frame_enc cs_startkey(int m, int c)
{
    mpa_frame_enc f = cs_req(m, c);
    f.kind = MPA_KEY_STARTKEY;
    f.rev = 0;
    return f;
}

mpa_frame_enc cs_enh(mpa_frame_enc f, int a, int b, int c, int d, unsigned ird, unsigned ord)
{
    f.s = 1;
    f.rev = 2;
    f.enh_present = 1;
    f.enh.a = (uint8_t)a;
    f.enh.b = (uint8_t)b;
    f.enh.c = (uint8_t)c;
    f.enh.d = (uint8_t)d;
    f.enh.ird = (uint16_t)ird;
    f.enh.ord = (uint16_t)ord;
    return f;
}

void cs_frame(cs_scen *s, int dir, const mpa_frame_enc *f)
{
    uint8_t tmp[20 + 4 + 65536];
    size_t w = 0;
    if (mpa_frame_encode(f, tmp, sizeof tmp, &w) != MPA_OK)
        die("startup frame: encode failed");
    cs_raw(s, dir, tmp, w);
}

/* ---- FPDUs -------------------------------------------------------------- */

void cs_fpdu_mode(cs_scen *s, int dir, int markers)
{
    s->mode_off[dir] = s->dir_off[dir];
    s->markers[dir] = markers;
    s->in_fpdu[dir] = 1;
}

void cs_quirk_markers(cs_scen *s, int dir, int le, int nocrc, unsigned off)
{
    s->qk_on[dir] = 1;
    s->qk_le[dir] = (uint8_t)le;
    s->qk_nocrc[dir] = (uint8_t)nocrc;
    s->qk_off[dir] = off;
    s->qk_cpos[dir] = (uint32_t)(s->dir_off[dir] - s->mode_off[dir]);
}

/* Is a marker due at dir's marker count? */
static int qk_due(const cs_scen *s, int dir)
{
    uint32_t c = s->qk_cpos[dir];
    return s->markers[dir] && c >= s->qk_off[dir] && ((c - s->qk_off[dir]) & (MPA_MARKER_INTERVAL - 1)) == 0;
}

/* A marker at q[*w]; FPDUPTR ptr in the sender's byte order. */
static void qk_marker(cs_scen *s, int dir, uint8_t *q, size_t *w, unsigned ptr, uint32_t *crc)
{
    uint8_t *m = q + *w;
    m[0] = m[1] = 0;
    m[2] = (uint8_t)(s->qk_le[dir] ? ptr : ptr >> 8);
    m[3] = (uint8_t)(s->qk_le[dir] ? ptr >> 8 : ptr);
    if (crc)
        *crc = mpa_crc32c_update(*crc, m, MPA_MARKER_LEN);
    *w += MPA_MARKER_LEN;
    s->qk_cpos[dir] += MPA_MARKER_LEN;
}

/* One FPDU the quirky sender's way (cs_quirk_markers). */
static size_t qk_fpdu(cs_scen *s, int dir, const uint8_t *ulpdu, size_t n)
{
    size_t pad = (4u - ((2u + n) & 3u)) & 3u, plain = 2 + n + pad;
    uint8_t *q = cs_reserve(s, plain + 4 + MPA_MARKER_LEN * (plain / MPA_MARKER_INTERVAL + 3));
    size_t w = 0, lead = 0;
    uint32_t crc = MPA_CRC32C_INIT;
    for (size_t i = 0; i < plain; i++) {
        /* FPDUPTR counts back to the ULPDU_Length field (RFC 5044 4.3):
         * past the leading marker when the FPDU starts with one. */
        if (qk_due(s, dir)) {
            lead |= w == 0 ? MPA_MARKER_LEN : 0;
            qk_marker(s, dir, q, &w, (unsigned)(w ? w - lead : 0), &crc);
        }
        uint8_t o = i < 2 ? (uint8_t)(n >> (i ? 0 : 8)) : i < 2 + n ? ulpdu[i - 2] : 0;
        crc = mpa_crc32c_update(crc, &o, 1);
        q[w++] = o;
        s->qk_cpos[dir]++;
    }
    /* Right before the CRC field a marker is covered by it; inside the
     * field it is not; a sender that does not count the CRC puts none. */
    if (!s->qk_nocrc[dir] && qk_due(s, dir))
        qk_marker(s, dir, q, &w, (unsigned)(w - lead), &crc);
    uint32_t c = mpa_crc32c_final(crc);
    for (int k = 0; k < 4; k++) {
        if (k && !s->qk_nocrc[dir] && qk_due(s, dir))
            qk_marker(s, dir, q, &w, (unsigned)(w - lead), NULL);
        q[w++] = (uint8_t)(c >> (8 * k));
        if (!s->qk_nocrc[dir])
            s->qk_cpos[dir]++;
    }
    cs_push_chunk(s, CS_DATA, dir, s->len, w);
    s->len += w;
    s->dir_off[dir] += w;
    return w;
}

size_t cs_fpdu_f(cs_scen *s, int dir, const uint8_t *ulpdu, size_t n, const mpa_fpdu_faults *fl)
{
    if (s->qk_on[dir] && !fl)
        return qk_fpdu(s, dir, ulpdu, n);
    mpa_fpdu_cfg cfg;
    cfg.markers = s->markers[dir];
    cfg.crc = 1;
    cfg.mark_base = s->isn[dir] + (uint32_t)s->mode_off[dir];
    uint32_t seq = s->isn[dir] + (uint32_t)s->dir_off[dir];
    size_t cap = MPA_FPDU_WIRE_MAX;
    uint8_t *q = cs_reserve(s, cap);
    size_t w = 0;
    if (mpa_fpdu_encode(ulpdu, n, seq, &cfg, fl, q, cap, &w) != MPA_OK)
        die("FPDU: encode failed");
    cs_push_chunk(s, CS_DATA, dir, s->len, w);
    s->len += w;
    s->dir_off[dir] += w;
    return w;
}

size_t cs_fpdu(cs_scen *s, int dir, const uint8_t *ulpdu, size_t n)
{
    return cs_fpdu_f(s, dir, ulpdu, n, NULL);
}

/* ---- common steps --------------------------------------------------------- */

void cs_start_plain(cs_scen *s, int req_m, int rep_m)
{
    cs_start_enh(s, cs_req(req_m, 1), cs_rep(rep_m, 1));
}

void cs_start_enh(cs_scen *s, mpa_frame_enc q, mpa_frame_enc p)
{
    cs_frame(s, 0, &q);
    cs_frame(s, 1, &p);
    cs_fpdu_mode(s, 0, p.m);
    cs_fpdu_mode(s, 1, q.m);
}

void cs_send(cs_scen *s, int dir, unsigned msn, size_t payload)
{
    cs_fpdu(s, dir, g_ul, cs_ul_send(g_ul, sizeof g_ul, msn, payload));
}

void cs_write(cs_scen *s, int dir, size_t payload)
{
    cs_fpdu(s, dir, g_ul, cs_ul_write(g_ul, sizeof g_ul, 0x77, 0x1000, payload));
}

void cs_close_both(cs_scen *s)
{
    cs_end(s, 0, 0);
    cs_end(s, 1, 0);
}

/* ---- ULPDUs --------------------------------------------------------------- */

size_t cs_ul_build(mpa_ddp *d, size_t payload, uint8_t *out, size_t cap)
{
    size_t w = 0;
    if (mpa_ddp_encode(d, out, cap, &w) != MPA_OK || w + payload > cap)
        die("ULPDU: encode failed");
    for (size_t i = 0; i < payload; i++)
        out[w + i] = (uint8_t)(i * 7 + 1);
    return w + payload;
}

/* The fields every header of the builders shares: the last segment of
 * its message, DDP and RDMAP version 1. */
static mpa_ddp ul_hdr(int tagged, unsigned opcode)
{
    mpa_ddp d;
    memset(&d, 0, sizeof d);
    d.hdr.tagged = (uint8_t)tagged;
    d.hdr.last = 1;
    d.hdr.dv = 1;
    d.hdr.rv = 1;
    d.hdr.opcode = (uint8_t)opcode;
    return d;
}

mpa_ddp cs_ul_untagged(unsigned opcode, unsigned qn, unsigned msn)
{
    mpa_ddp d = ul_hdr(0, opcode);
    d.hdr.qn = qn;
    d.hdr.msn = msn;
    return d;
}

mpa_ddp cs_ul_tagged(unsigned opcode, uint32_t stag, uint64_t to)
{
    mpa_ddp d = ul_hdr(1, opcode);
    d.hdr.stag = stag;
    d.hdr.to = to;
    return d;
}

size_t cs_ul_send(uint8_t *out, size_t cap, unsigned msn, size_t payload)
{
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_SEND, 0, msn);
    return cs_ul_build(&d, payload, out, cap);
}

size_t cs_ul_write(uint8_t *out, size_t cap, uint32_t stag, uint64_t to, size_t payload)
{
    mpa_ddp d = cs_ul_tagged(MPA_RDMAP_RDMA_WRITE, stag, to);
    return cs_ul_build(&d, payload, out, cap);
}

size_t cs_ul_read_req(uint8_t *out, size_t cap, unsigned msn, uint32_t size)
{
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_READ_REQUEST, 1, msn);
    d.u.rreq.sink_stag = 0x1000;
    d.u.rreq.sink_to = 0x2000;
    d.u.rreq.size = size;
    d.u.rreq.src_stag = 0x3000;
    d.u.rreq.src_to = 0x4000;
    return cs_ul_build(&d, 0, out, cap);
}

size_t cs_ul_term(uint8_t *out, size_t cap, unsigned layer, unsigned etype, unsigned code)
{
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_TERMINATE, 2, 1);
    d.u.term.layer = (uint8_t)layer;
    d.u.term.etype = (uint8_t)etype;
    d.u.term.code = (uint8_t)code;
    return cs_ul_build(&d, 0, out, cap);
}

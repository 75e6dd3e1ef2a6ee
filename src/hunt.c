/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Hunting for FPDU starts after a capture hole or a mid-stream start
 * (hunt.h): markers' FPDUPTRs (RFC 5044 4.3, 6), FPDUs that end in a
 * valid CRC32C (RFC 5044 4.4), or FPDUs that chain by their lengths and
 * carry well-formed DDP/RDMAP headers (RFC 5041 4.1, RFC 5040 4.1-4.2).
 */
#include "hunt.h"

#include <string.h>

#include "mpa/ddp.h"
#include "mpa/stream.h"

void hunt_clear(hunt *h)
{
    h->n = 0;
    for (int k = 0; k < HUNT_CANDS; k++)
        h->c[k].used = 0;
}

void hunt_start(hunt *h, uint8_t markers, uint8_t crc, int mbase_known, uint32_t mbase)
{
    h->markers = markers;
    h->crc = crc;
    h->mbase_known = (uint8_t)(mbase_known != 0);
    h->mbase = mbase;
    h->tried = h->tried_marker = 0;
    h->mk_order = h->mk_nocrc = h->try_nocrc = 0;
    hunt_clear(h);
}

void hunt_learn(hunt *h, uint8_t markers, uint8_t crc)
{
    if (markers != MPA_TRI_UNKNOWN)
        h->markers = markers;
    if (crc != MPA_TRI_UNKNOWN)
        h->crc = crc;
    int m = h->markers == MPA_TRI_ON;
    for (int k = 0; k < HUNT_CANDS; k++) {
        hcand *c = &h->c[k];
        if (!c->used)
            continue;
        if ((h->markers != MPA_TRI_UNKNOWN && c->rx.markers != m) || (h->crc == MPA_TRI_ON && c->chain) ||
            (h->crc == MPA_TRI_OFF && c->rx.crc_on))
            c->used = 0;
    }
}

/* DDP and RDMAP control octets that a well-formed iWARP FPDU starts
 * with (RFC 5041 4.1, RFC 5040 4.1-4.2, RFC 7306): DV 1, RV 1, reserved
 * bits zero, a defined opcode with its T bit, and room for its header.
 * b: ULPDU_Length (2 octets), DDP control, RDMAP control. */
int hunt_plausible(const uint8_t *b)
{
    unsigned len = (unsigned)b[0] << 8 | b[1], c0 = b[2], c1 = b[3], op = c1 & 0xFu;
    if ((c0 & 0x3Fu) != 0x01u || (c1 & 0xF0u) != 0x40u || op > MPA_RDMAP_ATOMIC_RESPONSE)
        return 0;
    unsigned tagged = c0 >> 7;
    if (tagged != (op == MPA_RDMAP_RDMA_WRITE || op == MPA_RDMAP_READ_RESPONSE))
        return 0;
    return len >= (tagged ? MPA_DDP_TAGGED_HDR_LEN : MPA_DDP_UNTAGGED_HDR_LEN);
}

/* With the marker setting unknown, an FPDU proves the framing only if
 * the other setting would have failed on it: a candidate with markers
 * must have read one, one without must have covered more than a marker
 * interval (with markers on, 516 octets in a row always hold one, and a
 * marker read as data breaks the lengths and the CRC). */
static int hunt_settles_markers(const hunt *h, const hcand *c, uint32_t upto)
{
    if (h->markers != MPA_TRI_UNKNOWN)
        return 1;
    if (c->rx.markers)
        return c->n_mk > 0;
    return upto - c->first >= MPA_MARKER_INTERVAL + MPA_MARKER_LEN;
}

/* The ULPDU_Length and the two control octets of the FPDU being read are
 * in (markers aside). */
static int hunt_hdr_seen(const fpdu_rx *rx)
{
    return rx->phase == RX_CRC || (rx->phase == RX_BODY && rx->nprefix >= 2);
}

/* A sender whose marker grid drifts (mk_nocrc): the grid's phase after a
 * hunt is not known (how many CRCs went by uncounted), and a CRC proves
 * an FPDU whatever its markers' places.  A marker inside the proving
 * FPDU says where the grid stands: the last word there that reads as a
 * marker pointing back to the FPDU's start (RFC 5044 4.3) is taken; the
 * FPDU's own CRC, after it, moves the base on.  0 when none is seen. */
static int nocrc_phase(const hunt *h, const hcand *c, uint32_t *mbase)
{
    uint32_t len = c->rx.f.wire_len;
    uint64_t fstart = (uint32_t)(c->rx.f.start - h->isn); /* ring index: low bits only */
    int got = 0;
    for (uint32_t j = 4; j + 8 <= len; j += 4) {
        if (len - j > HUNT_RING - 1 || len - j > h->n)
            continue;
        uint8_t w[4];
        for (int k = 0; k < 4; k++)
            w[k] = h->ring[(fstart + j + (uint64_t)k) & (HUNT_RING - 1)];
        unsigned res = (unsigned)w[0] << 8 | w[1], ptr = (unsigned)w[2] << 8 | w[3];
        if (h->mk_order == MK_ORDER_LE16) {
            ptr = (unsigned)w[3] << 8 | w[2];
        } else if (h->mk_order == MK_ORDER_LE32) {
            ptr = (unsigned)w[1] << 8 | w[0];
            res = (unsigned)w[3] << 8 | w[2];
        }
        /* FPDUPTR counts from the ULPDU_Length field (RFC 5044 4.3). */
        if (res == 0 && ptr == j - (c->rx.f.leading_marker ? MPA_MARKER_LEN : 0u)) {
            *mbase = c->rx.f.start + j + 4u;
            got = 1;
        }
    }
    return got;
}

/*
 * Run candidate c over p[0..n).  Returns 1 when it proved itself (*used
 * octets in), -1 when it failed, 0 otherwise.  Proof, strong: an FPDU
 * with a valid CRC (the candidate stops at its end).  Proof, weak (CRC
 * off, or unknown and failing): HUNT_CHAIN FPDUs in a row, each length
 * confirmed by a well-formed DDP/RDMAP header where the next FPDU
 * starts, with markers that agree; the candidate stops once the header
 * after the last of them is in (c->mid: inside that FPDU).
 */
static int hunt_step(const hunt *h, hcand *c, const uint8_t *p, size_t n, size_t *used)
{
    size_t i = 0;
    while (i < n) {
        int item;
        /* Awaiting the next header: octet by octet until it is in. */
        size_t step = c->confirm ? 1 : n - i;
        i += rx_run(&c->rx, p + i, step, &item);
        if (item == RX_MARKER) {
            if (c->n_mk < 255)
                c->n_mk++;
            if (c->rx.mk.len_disagree || c->rx.mk.ptr_bad || c->rx.mk.same_bad)
                c->mk_bad = 1;
        } else if (item == RX_FPDU) {
            if (c->rx.crc_on && c->rx.f.crc_wire != c->rx.f.crc_calc)
                c->crc_bad = 1;
            uint32_t mb = 0;
            int phase_ok = !c->rx.markers || !c->rx.mk_nocrc || nocrc_phase(h, c, &mb);
            /* Trying a drifting grid on a sender whose grid is not known:
             * a marker right where the RFC grid puts it says nothing for
             * the drift (the RFC reading proves that FPDU too). */
            if (phase_ok && h->try_nocrc && c->rx.mk_nocrc && h->mbase_known &&
                ((mb - 4u - h->mbase) & (MPA_MARKER_INTERVAL - 1)) == 0)
                phase_ok = 0;
            if (phase_ok && c->rx.markers && c->rx.mk_nocrc)
                c->rx.mbase = mb;
            if (c->rx.crc_on && c->rx.f.crc_wire == c->rx.f.crc_calc && h->crc != MPA_TRI_OFF &&
                hunt_settles_markers(h, c, c->rx.pos) && !phase_ok)
                continue; /* a drifting grid's phase is still unknown: on to the next FPDU */
            /* With the grid unknown (try_nocrc), a proof must have read
             * markers, and (on the RFC grid) read them right. */
            int grid_ok = !h->try_nocrc || !c->rx.markers || (c->n_mk && (c->rx.mk_nocrc || !c->mk_bad));
            if (c->rx.crc_on && c->rx.f.crc_wire == c->rx.f.crc_calc && h->crc != MPA_TRI_OFF && !grid_ok &&
                !c->mk_bad)
                continue; /* not yet: on to the next FPDU */
            if (c->rx.crc_on && c->rx.f.crc_wire == c->rx.f.crc_calc && h->crc != MPA_TRI_OFF &&
                hunt_settles_markers(h, c, c->rx.pos) && grid_ok) {
                c->weak = 0;
                c->mid = 0;
                *used = i;
                return 1;
            }
            if (h->crc == MPA_TRI_ON || (c->mk_bad && !c->rx.mk_nocrc))
                return -1;
            c->weak = 1;
            c->confirm = 1;
        }
        if (c->confirm && hunt_hdr_seen(&c->rx)) {
            c->confirm = 0;
            uint8_t b[4] = {c->rx.lenb[0], c->rx.lenb[1], c->rx.prefix[0], c->rx.prefix[1]};
            if (!hunt_plausible(b))
                return -1;
            if (c->chain < 255)
                c->chain++;
            if (c->chain >= HUNT_CHAIN && hunt_settles_markers(h, c, c->rx.start)) {
                c->mid = 1;
                *used = i;
                return 1;
            }
        }
    }
    *used = i;
    return 0;
}

/* Every candidate over p[0..n); returns the one that proves itself
 * first (lowest slot on a tie), or -1. */
static int hunt_advance(hunt *h, const uint8_t *p, size_t n, size_t *at)
{
    int win = -1;
    size_t best = 0;
    for (int k = 0; k < HUNT_CANDS; k++) {
        hcand *c = &h->c[k];
        if (!c->used)
            continue;
        size_t u = 0;
        int r = hunt_step(h, c, p, n, &u);
        if (r < 0)
            c->used = 0;
        else if (r > 0 && (win < 0 || u < best)) {
            win = k;
            best = u;
        }
    }
    *at = best;
    return win;
}

static uint8_t ring_at(const hunt *h, uint64_t off) { return h->ring[off & (HUNT_RING - 1)]; }

/* A candidate from start_off (still in the ring) to last_off, the octet
 * just read.  Keeps the better candidates when all slots are taken:
 * those that chained further, then those nearer the end of their FPDU
 * (a real FPDU is usually far shorter than a random length). */
static void hunt_spawn(hunt *h, uint32_t isn, uint64_t start_off, uint64_t last_off, int markers, uint32_t mbase,
                       int by_marker, int nocrc)
{
    uint32_t first = isn + (uint32_t)start_off;
    for (int k = 0; k < HUNT_CANDS; k++) {
        const hcand *c = &h->c[k];
        if (c->used && c->first == first && c->rx.markers == markers && c->rx.mk_nocrc == nocrc &&
            (!markers || ((c->rx.mbase - mbase) & (MPA_MARKER_INTERVAL - 1)) == 0))
            return;
    }
    hcand nc;
    rx_init(&nc.rx, markers, h->crc != MPA_TRI_OFF, mbase, first);
    nc.rx.mk_order = h->mk_order;
    nc.rx.mk_nocrc = (uint8_t)(markers && nocrc);
    nc.first = first;
    nc.used = 1;
    nc.chain = nc.weak = nc.confirm = nc.mid = nc.mk_bad = nc.n_mk = nc.crc_bad = 0;
    nc.by_marker = (uint8_t)by_marker;
    uint8_t tmp[HUNT_RING];
    size_t n = (size_t)(last_off - start_off + 1);
    for (size_t i = 0; i < n; i++)
        tmp[i] = ring_at(h, start_off + i);
    size_t u;
    /* An FPDU cannot end inside the replay (a marker's FPDU reaches past
     * the marker); a candidate that claims to is false. */
    if (hunt_step(h, &nc, tmp, n, &u) != 0)
        return;
    uint32_t need = rx_need(&nc.rx);
    int slot = -1;
    for (int k = 0; k < HUNT_CANDS && slot < 0; k++)
        if (!h->c[k].used)
            slot = k;
    if (slot < 0) {
        int worst = 0;
        uint32_t wneed = rx_need(&h->c[0].rx);
        for (int k = 1; k < HUNT_CANDS; k++) {
            uint32_t kn = rx_need(&h->c[k].rx);
            if (h->c[k].chain < h->c[worst].chain ||
                (h->c[k].chain == h->c[worst].chain && kn > wneed)) {
                worst = k;
                wneed = kn;
            }
        }
        if (h->c[worst].chain > 0 || wneed <= need)
            return;
        slot = worst;
    }
    h->c[slot] = nc;
    h->tried++;
    if (by_marker)
        h->tried_marker++;
}

/* Is the word ending at octet off (w) a marker that tells an FPDU start
 * we can still read?  With the phase unknown, a marker-shaped word 512
 * octets earlier must agree with it. */
static int hunt_marker_at(const hunt *h, uint32_t isn, uint64_t off, const uint8_t *w, uint64_t *start,
                          uint32_t *mbase)
{
    uint64_t m = off - 3;
    uint32_t mseq = isn + (uint32_t)m;
    unsigned res = (unsigned)w[0] << 8 | w[1], ptr = (unsigned)w[2] << 8 | w[3];
    if (h->mk_nocrc)
        return 0;
    if (h->mk_order == MK_ORDER_LE16) {
        ptr = (unsigned)w[3] << 8 | w[2];
    } else if (h->mk_order == MK_ORDER_LE32) {
        ptr = (unsigned)w[1] << 8 | w[0];
        res = (unsigned)w[3] << 8 | w[2];
    }
    if (ptr & 3u)
        return 0;
    if (h->mbase_known) {
        if (((mseq - h->mbase) & (MPA_MARKER_INTERVAL - 1)) != 0)
            return 0;
        *mbase = h->mbase;
    } else {
        if (res != 0 || h->n < MPA_MARKER_INTERVAL + MPA_MARKER_LEN)
            return 0;
        uint64_t pm = m - MPA_MARKER_INTERVAL;
        unsigned pres = (unsigned)ring_at(h, pm) << 8 | ring_at(h, pm + 1);
        unsigned pptr = (unsigned)ring_at(h, pm + 2) << 8 | ring_at(h, pm + 3);
        if (pres != 0 || (pptr & 3u) || !(ptr == pptr + MPA_MARKER_INTERVAL || ptr < MPA_MARKER_INTERVAL))
            return 0;
        *mbase = mseq;
    }
    /* FPDUPTR points at the ULPDU_Length field (RFC 5044 4.3); when a
     * marker position comes right before that field, the marker there
     * is the FPDU's leading one and the FPDU starts with it. */
    unsigned lead = ptr != 0 && ((ptr + MPA_MARKER_LEN) & (MPA_MARKER_INTERVAL - 1)) == 0 ? MPA_MARKER_LEN : 0;
    if (ptr + lead + MPA_MARKER_LEN > h->n)
        return 0; /* that FPDU began before the hunt: wait for the next one */
    *start = m - ptr - lead;
    return 1;
}

/* A candidate proved itself: where decoding resumes, and what is known
 * of the sender from now on. */
static void found(hunt *h, int k, uint64_t at_off, size_t used, hunt_found *out)
{
    const hcand *c = &h->c[k];
    /* Strong proof: at the end of the proving FPDU.  Weak proof: a few
     * octets into the FPDU after the chain. */
    uint32_t back = c->rx.pos - (c->mid ? c->rx.start : c->rx.f.start);
    out->used = used;
    out->fstart = at_off - back;
    out->rx = c->rx;
    out->weak = c->weak;
    out->mid = c->mid;
    out->by_marker = c->by_marker;
    out->first_off = at_off - (uint32_t)(c->rx.pos - c->first);
    out->chain_crc_bad = c->crc_bad;
    out->ring_n = h->n;
    h->markers = c->rx.markers ? MPA_TRI_ON : MPA_TRI_OFF;
    h->crc = c->weak ? MPA_TRI_OFF : MPA_TRI_ON;
    h->mbase_known = 1;
    h->mbase = c->rx.markers ? c->rx.mbase : c->rx.pos - back;
    hunt_clear(h);
}

int hunt_feed(hunt *h, uint32_t isn, uint64_t base, const uint8_t *p, size_t len, hunt_found *out)
{
    h->isn = isn;
    size_t done = 0, at = 0;
    int win;
    for (size_t i = 0; i < len; i++) {
        uint64_t off = base + i;
        h->ring[off & (HUNT_RING - 1)] = p[i];
        if (h->n < HUNT_RING)
            h->n++;
        if (h->n < 4)
            continue;
        uint8_t w[4];
        for (int k = 0; k < 4; k++)
            w[k] = ring_at(h, off - 3 + (uint64_t)k);
        /* An FPDU header here?  With the phase known, FPDUs start where
         * it says modulo 4; with markers, not over a marker. */
        uint32_t ph = isn + (uint32_t)(off - 3) - h->mbase;
        int hdr = hunt_plausible(w) && (!h->mbase_known || (ph & 3u) == 0);
        int nm = hdr && h->markers != MPA_TRI_ON;
        int hm = hdr && h->markers != MPA_TRI_OFF && h->mbase_known && (ph & (MPA_MARKER_INTERVAL - 1)) != 0;
        uint64_t mstart = 0;
        uint32_t mbase = 0;
        int mk = h->markers != MPA_TRI_OFF && hunt_marker_at(h, isn, off, w, &mstart, &mbase);
        if (!nm && !hm && !mk)
            continue;
        /* Bring the candidates up to this octet before adding new ones. */
        win = hunt_advance(h, p + done, i + 1 - done, &at);
        if (win >= 0)
            goto lock;
        done = i + 1;
        if (nm)
            hunt_spawn(h, isn, off - 3, off, 0, 0, 0, 0);
        if (hm)
            hunt_spawn(h, isn, off - 3, off, 1, h->mbase, 0, h->mk_nocrc);
        if (hm && h->try_nocrc && !h->mk_nocrc)
            hunt_spawn(h, isn, off - 3, off, 1, h->mbase, 0, 1);
        if (mk)
            hunt_spawn(h, isn, mstart, off, 1, mbase, 1, 0);
    }
    win = hunt_advance(h, p + done, len - done, &at);
    if (win >= 0)
        goto lock;
    return 0;
lock:
    found(h, win, base + done + at, done + at, out);
    return 1;
}

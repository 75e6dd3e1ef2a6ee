/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Marker models (mkmodel.h): RFC 5044 4.2 (marker format), 4.3 (where
 * markers go; the CRC covers them); docs/quirks.md for the real stacks
 * that differ.
 */
#include "mkmodel.h"

#include <string.h>

#include "mpa/crc32c.h"
#include "mpa/fpdu.h"

/* The RFC's reading first: it wins whenever it works. */
const mk_model mk_models[MK_NMODELS] = {
    {MK_ORDER_BE, 0}, {MK_ORDER_LE16, 0}, {MK_ORDER_LE32, 0},
    {MK_ORDER_BE, 1}, {MK_ORDER_LE16, 1}, {MK_ORDER_LE32, 1},
};

void mk_reset(mkmodel *m)
{
    m->state = MK_IDLE;
    m->chosen = 0;
    m->allowed = (uint8_t)((1u << MK_NMODELS) - 1);
    m->order_set = m->grid_set = m->told_order = m->told_grid = 0;
    m->ntries = 0;
    m->based = m->base_win = m->seek = 0;
    m->boff = m->gadj = 0;
}

int mk_resumed(mkmodel *m, const fpdu_rx *rx)
{
    if (m->state == MK_IDLE && !m->allowed && !m->ntries)
        mk_reset(m); /* never in FPDU mode before (a mid-stream start) */
    int told = 0;
    if (rx->markers && rx->mk_nocrc && !m->told_grid) {
        m->told_grid = 1;
        told = 1;
    }
    if (m->state == MK_DONE || m->order_set)
        return told;
    m->state = MK_IDLE;
    m->grid_set = 1;
    m->seek = 1; /* unless every model dies: then the phase is looked for */
    for (int j = 0; j < MK_NMODELS; j++)
        if (mk_models[j].nocrc != rx->mk_nocrc)
            m->allowed &= (uint8_t)~(1u << j);
    return told;
}

/* Octets to the next marker position of rx (0: one is due now). */
static uint32_t to_marker(const fpdu_rx *rx)
{
    uint32_t ph = (rx->pos - rx->mbase) & (MPA_MARKER_INTERVAL - 1);
    return ph ? MPA_MARKER_INTERVAL - ph : 0;
}

int mk_due(const mkmodel *m, const fpdu_rx *rx, int judge_crc)
{
    if (m->state == MK_IDLE && !m->based && judge_crc && rx->markers && rx->pos == rx->mbase &&
        !rx->crc_octets && !rx->started && !rx->nmk)
        return 1;
    return m->state == MK_IDLE && rx->markers && rx->nmk == 0 && rx->pos != rx->mbase && to_marker(rx) == 0 &&
           !(m->ntries && rx->pos == m->base_pos) &&
           !(rx->mk_nocrc && rx->phase == RX_CRC);
}

size_t mk_limit(const mkmodel *m, const fpdu_rx *rx, size_t len)
{
    if (m->state != MK_IDLE || !rx->markers || rx->nmk)
        return len;
    uint32_t to = to_marker(rx);
    if (to == 0)
        to = MPA_MARKER_INTERVAL;
    return len < to ? len : to;
}

/* Model md's reading of the octets rx has read: its own marker order,
 * and a base that every CRC octet moves on when its count leaves the
 * CRC out (every model read the same octets the same way so far).  The
 * two grids agree at the grid's first marker, after gadj CRC octets. */
static void model_of(const mkmodel *m, fpdu_rx *out, const fpdu_rx *rx, const mk_model *md)
{
    uint32_t drift = rx->crc_octets - m->gadj;
    uint32_t base = rx->mbase - (rx->mk_nocrc ? drift : 0u);
    *out = *rx;
    out->mk_order = md->order;
    out->mk_nocrc = md->nocrc;
    out->mbase = base + (md->nocrc ? drift : 0u);
}

void mk_open(mkmodel *m, const fpdu_rx *rx, int judge_crc)
{
    m->state = MK_OPEN;
    m->judge_crc = (uint8_t)(judge_crc != 0);
    m->alive = m->allowed;
    m->good = m->ord_ev = m->grid_ev = 0;
    m->base_pos = rx->pos;
    m->nbuf = 0;
    m->nseg = 0;
    m->cand = m->proved = m->nspawn = m->tol = m->sc_proved = 0;
    m->base_win = (uint8_t)(!m->based && rx->pos == rx->mbase && !rx->crc_octets);
    m->based = 1;
    m->sc_cur = m->sc_end = m->sc_crc = 0;
    m->sc_part = m->sc_off = 0;
    if (!m->base_win && rx->started) {
        /* Mid-FPDU: the scanner knows where it ends, if its length is in. */
        m->sc_part = 1;
        m->sc_back = rx->pos - rx->start - (rx->leading_marker ? MPA_MARKER_LEN : 0u);
        if (rx->phase == RX_LEN) {
            m->sc_off = 1;
        } else {
            uint32_t rem = (rx->phase == RX_BODY ? (uint32_t)rx->ulpdu_len + rx->pad_len - rx->body_seen : 0u) +
                           4u - rx->ncrc;
            m->sc_end = (uint16_t)(rem < MK_SCAN + 4u ? rem : MK_SCAN + 4u);
        }
    }
    m->good2 = 0;
    for (int k = 0; k < MK_NMODELS; k++)
        if (m->allowed & (1u << k))
            model_of(m, &m->c[k], rx, &mk_models[k]);
    if (m->seek && !(m->allowed & (1u << (MK_NMODELS - 1))))
        m->c[MK_NMODELS - 1] = *rx;
}

static void judge(mkmodel *m, int k, int item)
{
    const fpdu_rx *c = &m->c[k];
    uint8_t bit = (uint8_t)(1u << k);
    if (item == RX_MARKER) {
        if (c->mk.res_bad || c->mk.ptr_bad || c->mk.len_disagree || c->mk.same_bad) {
            if (m->base_win && k == 0 && c->mk.pos == m->base_pos)
                m->tol = 1;
            m->alive &= (uint8_t)~bit;
            return;
        }
        if (!(m->good & bit))
            m->first_mk[k] = c->mk.pos;
        else
            m->good2 |= bit;
        m->good |= bit;
        if (!c->mk.leading)
            m->ord_ev |= bit;
        if ((c->crc_octets - m->gadj) & (MPA_MARKER_INTERVAL - 1))
            m->grid_ev |= bit;
    } else if (item == RX_FPDU && m->judge_crc && c->f.crc_wire != c->f.crc_calc) {
        m->alive &= (uint8_t)~bit;
    } else if (item == RX_FPDU && (m->good & bit)) {
        m->proved |= bit; /* a valid CRC after its marker */
    }
}

/* Does the word at window offset j read as a marker in order `order`
 * with FPDUPTR ptr (RFC 5044 4.2: RESERVED zero)? */
static int word_is(const uint8_t *w, int order, uint32_t ptr)
{
    if (order == MK_ORDER_LE32)
        return w[2] == 0 && w[3] == 0 && ((uint32_t)w[1] << 8 | w[0]) == ptr;
    if (w[0] || w[1])
        return 0;
    return order == MK_ORDER_LE16 ? ((uint32_t)w[3] << 8 | w[2]) == ptr : ((uint32_t)w[2] << 8 | w[3]) == ptr;
}

/* The scanner takes the octet at window offset nbuf-1 (mkmodel.h). */
static void scan_step(mkmodel *m)
{
    uint32_t t = m->nbuf - 1;
    m->sc_proved = 0;
    if (m->sc_off)
        return;
    if (m->sc_end && t == m->sc_end) { /* the next FPDU starts here */
        m->sc_crc = (uint16_t)(m->sc_crc + (m->sc_part && m->sc_end < 4u ? m->sc_end : 4u));
        m->sc_cur = (uint16_t)t;
        m->sc_end = 0;
        m->sc_part = 0;
    }
    uint32_t c = m->sc_crc;
    if (m->sc_end && t + 4u >= m->sc_end) /* inside its CRC field */
        c += m->sc_end >= 4u ? t + 4u - m->sc_end : t;
    if (!(t & 3u)) {
        m->sst = (uint16_t)(m->sc_part ? MK_NOSTART : m->sc_cur);
        m->scc = (uint16_t)c;
    }
    if (!m->sc_end && t == m->sc_cur + 1u) {
        uint32_t len = (uint32_t)m->buf[m->sc_cur] << 8 | m->buf[t];
        uint32_t end = m->sc_cur + 2u + len + ((4u - ((2u + len) & 3u)) & 3u) + 4u;
        m->sc_end = (uint16_t)(end < MK_SCAN + 4u ? end : MK_SCAN + 4u);
    }
    /* An FPDU that ends in its valid CRC, by its lengths alone. */
    if (m->sc_end && t + 1u == m->sc_end && m->judge_crc && !m->sc_part) {
        uint32_t n = m->sc_end - 4u - m->sc_cur;
        const uint8_t *q = m->buf + m->sc_end - 4u;
        uint32_t wire = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
        if (mpa_crc32c_final(mpa_crc32c_update(MPA_CRC32C_INIT, m->buf + m->sc_cur, n)) == wire)
            m->sc_proved = 1;
    }
}

/*
 * The base window, once every RFC-based model died at the marker the
 * RFC puts at the base: a sender that counts its markers from another
 * octet puts none before its first marker, so until there the octets
 * read by their lengths alone (the scanner).  A word at a 4-octet
 * boundary whose FPDUPTR (in some byte order) points back to the
 * scanner's FPDU start (RFC 5044 4.3) is a candidate first marker: a
 * machine reading a grid based there is started in a free slot and the
 * window's octets replayed into it.  It is proved by a valid CRC after
 * that marker (the marker's 4 octets are what make the FPDU end where
 * its CRC is).  Bounded: MK_SCAN octets, MK_SPAWNS candidates.  A seek
 * window (after a hunt, mk_resumed) does the same to find the grid's
 * phase, the FPDU it opened in included.
 */
static void scan_octet(mkmodel *m)
{
    uint32_t t = m->nbuf; /* the octet at window offset t-1 was just added */
    if (t < 8 || t - 4 >= MK_SCAN || ((t - 4) & 3u))
        return;
    /* In the FPDU the window opened in, the machine in force as it was
     * then is copied (a seek window keeps it in the last slot). */
    int part = m->sst == MK_NOSTART;
    if (part && !(m->seek && !(m->allowed & (1u << (MK_NMODELS - 1)))))
        return;
    uint32_t j = t - 4, s0 = part ? 0u : m->sst;
    uint32_t ptr = part ? j + m->sc_back : j - s0;
    const uint8_t *w = m->buf + j;
    static const uint8_t orders[3] = {MK_ORDER_BE, MK_ORDER_LE16, MK_ORDER_LE32};
    for (int o = 0; o < 3; o++) {
        /* A marker between FPDUs reads the same in every order: the
         * order is worked out by the later windows. */
        if ((ptr == 0 && o) || !word_is(w, orders[o], ptr))
            continue;
        if (m->nspawn >= MK_SPAWNS)
            return;
        int k = m->tol == 1; /* slot 0 is the RFC reading's, while it goes on */
        int last = MK_NMODELS - (m->seek && !(m->allowed & (1u << (MK_NMODELS - 1))));
        while (k < last && (m->alive & (1u << k)))
            k++;
        if (k >= last)
            return;
        m->nspawn++;
        uint8_t bit = (uint8_t)(1u << k);
        fpdu_rx *c = &m->c[k];
        if (part) {
            *c = m->c[MK_NMODELS - 1];
            c->mbase = m->base_pos + j;
            c->mk_nocrc = 0;
            c->mk_any = 0; /* markers it read before were not this grid's */
        } else {
            rx_init(c, 1, m->judge_crc, m->base_pos + j, m->base_pos + s0);
        }
        c->mk_order = orders[o];
        m->cand |= bit;
        m->alive |= bit;
        m->good &= (uint8_t)~bit;
        m->proved &= (uint8_t)~bit;
        m->good2 &= (uint8_t)~bit;
        m->cj[k] = (uint16_t)j;
        m->cc[k] = m->scc;
        size_t i = s0;
        while (i < t && (m->alive & bit)) {
            int item;
            i += rx_run(c, m->buf + i, t - i, &item);
            if (item != RX_NONE)
                judge(m, k, item);
        }
    }
}

/* The first model alive, once it read a good marker.  Forced (the
 * window is full, a hole, the end), the first alive that read one; a
 * model that read no marker at all proves nothing.  A candidate grid
 * (base or seek window) needs a valid CRC after its marker, or, forced,
 * two good markers; while one may still come, the window waits. */
static int decide(mkmodel *m, int force)
{
    int waiting = 0;
    for (int k = 0; k < MK_NMODELS; k++) {
        uint8_t bit = (uint8_t)(1u << k);
        if (!(m->alive & bit))
            continue;
        if (m->cand & bit) {
            if ((m->proved & bit) || (force && (m->good2 & bit))) {
                m->chosen = (uint8_t)k;
                return 1;
            }
            waiting = 1;
            continue;
        }
        if (!(m->good & bit)) {
            if (!force)
                return 0;
            continue;
        }
        m->chosen = (uint8_t)k;
        return 1;
    }
    /* The base window gives up on a shifted grid when the RFC reading,
     * its first marker aside, proves an FPDU (a bad first marker), or
     * the lengths alone prove one and no candidate marker came before
     * its end (no markers, or a first marker past the first FPDU: not
     * looked for, so that octets are not held for long). */
    if (!force && m->base_win && m->tol != 2 && !(m->sc_proved && !waiting) &&
        (waiting || m->nbuf < MK_SCAN + 4))
        return 0;
    if (!force && m->seek && (waiting || m->nbuf < MK_SCAN + 4))
        return 0;
    m->alive = 0; /* none fits: the model in force stays, with its findings */
    return 1;
}

size_t mk_take(mkmodel *m, const uint8_t *p, size_t len, int *decided)
{
    *decided = 0;
    for (size_t j = 0; j < len; j++) {
        m->buf[m->nbuf++] = p[j];
        int tol = m->tol == 1; /* (not the octet that began it) */
        if ((m->base_win || m->seek) && m->nbuf <= MK_SCAN)
            scan_step(m);
        for (int k = 0; k < MK_NMODELS; k++) {
            if (!(m->alive & (1u << k)))
                continue;
            int item;
            rx_run(&m->c[k], p + j, 1, &item);
            if (item != RX_NONE)
                judge(m, k, item);
        }
        if (tol) {
            int item;
            rx_run(&m->c[0], p + j, 1, &item);
            if (item == RX_FPDU)
                m->tol = m->c[0].f.crc_wire == m->c[0].f.crc_calc ? 2 : 0;
        }
        if ((m->base_win || m->seek) && !(m->alive & ~m->cand))
            scan_octet(m);
        if (decide(m, m->nbuf == MK_WIN)) {
            *decided = 1;
            return j + 1;
        }
    }
    return len;
}

void mk_force(mkmodel *m)
{
    decide(m, 1);
}

int mk_apply(mkmodel *m, fpdu_rx *rx)
{
    int base = m->base_win;
    m->base_win = 0;
    if (!m->alive) {
        /* The base window found no shifted grid: the usual windows follow;
         * a seek window tries again at the next marker position. */
        m->state = base || (m->seek && ++m->ntries < MK_TRIES) ? MK_IDLE : MK_DONE;
        return 0;
    }
    int k = m->chosen;
    uint8_t bit = (uint8_t)(1u << k);
    if (m->cand & bit) {
        /* A shifted grid (or, after a hunt, the grid's phase): RFC byte
         * order unless its first marker said otherwise; order and drift
         * are worked out by later windows (the two grids agree there). */
        rx->mbase = m->base_pos + m->cj[k];
        rx->mk_order = m->c[k].mk_order;
        rx->mk_nocrc = 0;
        if (base)
            m->boff = m->cj[k];
        m->gadj = rx->crc_octets + m->cc[k];
        if (m->seek) {
            m->seek = 0;
            m->grid_set = 0;
            m->allowed = (uint8_t)((1u << MK_NMODELS) - 1);
            if (m->order_set)
                for (int j = 0; j < MK_NMODELS; j++)
                    if (mk_models[j].order != rx->mk_order)
                        m->allowed &= (uint8_t)~(1u << j);
        }
        m->chosen = (uint8_t)(rx->mk_order == MK_ORDER_LE16 ? 1 : rx->mk_order == MK_ORDER_LE32 ? 2 : 0);
        m->state = MK_IDLE;
        if (rx->mk_order != MK_ORDER_BE && !m->told_order) {
            m->told_order = 1;
            m->order_set = 1;
            for (int j = 0; j < MK_NMODELS; j++)
                if (mk_models[j].order != rx->mk_order)
                    m->allowed &= (uint8_t)~(1u << j);
            return 1;
        }
        return 0;
    }
    const mk_model *md = &mk_models[k];
    fpdu_rx r;
    model_of(m, &r, rx, md);
    *rx = r;
    if (m->ord_ev & bit)
        m->order_set = 1;
    if (m->grid_ev & bit)
        m->grid_set = 1;
    for (int j = 0; j < MK_NMODELS; j++)
        if ((m->order_set && mk_models[j].order != md->order) || (m->grid_set && mk_models[j].nocrc != md->nocrc))
            m->allowed &= (uint8_t)~(1u << j);
    int told = 0;
    if (md->order != MK_ORDER_BE && !m->told_order) {
        m->told_order = 1;
        told |= 1;
    }
    if (base) {
        m->state = MK_IDLE; /* the RFC's marker at the base: not a try */
        return told;
    }
    m->state = (m->order_set && m->grid_set) || ++m->ntries >= MK_TRIES ? MK_DONE : MK_IDLE;
    /* A shifted grid is said once its drift is known, or when no more
     * windows come. */
    if ((md->nocrc || (m->boff && (m->grid_set || m->state == MK_DONE))) && !m->told_grid) {
        m->told_grid = 1;
        told |= 2;
    }
    return told;
}

int mk_grid_pending(mkmodel *m)
{
    if (!m->boff || m->told_grid)
        return 0;
    m->told_grid = 1;
    return 1;
}

uint32_t mk_shift(const mkmodel *m, int nocrc)
{
    if (!m->boff)
        return 0;
    return m->boff - (nocrc ? m->gadj : 0u);
}

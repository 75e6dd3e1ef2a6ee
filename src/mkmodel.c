/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Marker models (mkmodel.h): RFC 5044 4.2 (marker format), 4.3 (where
 * markers go; the CRC covers them); docs/quirks.md for the real stacks
 * that differ.
 */
#include "mkmodel.h"

#include <string.h>

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

int mk_due(const mkmodel *m, const fpdu_rx *rx)
{
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
 * CRC out (every model read the same octets the same way so far). */
static void model_of(fpdu_rx *out, const fpdu_rx *rx, const mk_model *md)
{
    uint32_t base = rx->mbase - (rx->mk_nocrc ? rx->crc_octets : 0u);
    *out = *rx;
    out->mk_order = md->order;
    out->mk_nocrc = md->nocrc;
    out->mbase = base + (md->nocrc ? rx->crc_octets : 0u);
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
    for (int k = 0; k < MK_NMODELS; k++)
        if (m->allowed & (1u << k))
            model_of(&m->c[k], rx, &mk_models[k]);
}

static void judge(mkmodel *m, int k, int item)
{
    const fpdu_rx *c = &m->c[k];
    uint8_t bit = (uint8_t)(1u << k);
    if (item == RX_MARKER) {
        if (c->mk.res_bad || c->mk.ptr_bad || c->mk.len_disagree || c->mk.same_bad) {
            m->alive &= (uint8_t)~bit;
            return;
        }
        if (!(m->good & bit))
            m->first_mk[k] = c->mk.pos;
        m->good |= bit;
        if (!c->mk.leading)
            m->ord_ev |= bit;
        if (c->crc_octets & (MPA_MARKER_INTERVAL - 1))
            m->grid_ev |= bit;
    } else if (item == RX_FPDU && m->judge_crc && c->f.crc_wire != c->f.crc_calc) {
        m->alive &= (uint8_t)~bit;
    }
}

/* The first model alive, once it read a good marker.  Forced (the
 * window is full, a hole, the end), the first alive that read one; a
 * model that read no marker at all proves nothing. */
static int decide(mkmodel *m, int force)
{
    for (int k = 0; k < MK_NMODELS; k++) {
        uint8_t bit = (uint8_t)(1u << k);
        if (!(m->alive & bit))
            continue;
        if (!(m->good & bit)) {
            if (!force)
                return 0;
            continue;
        }
        m->chosen = (uint8_t)k;
        return 1;
    }
    m->alive = 0; /* none fits: the model in force stays, with its findings */
    return 1;
}

size_t mk_take(mkmodel *m, const uint8_t *p, size_t len, int *decided)
{
    *decided = 0;
    for (size_t j = 0; j < len; j++) {
        m->buf[m->nbuf++] = p[j];
        for (int k = 0; k < MK_NMODELS; k++) {
            if (!(m->alive & (1u << k)))
                continue;
            int item;
            rx_run(&m->c[k], p + j, 1, &item);
            if (item != RX_NONE)
                judge(m, k, item);
        }
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
    if (!m->alive) {
        m->state = MK_DONE;
        return 0;
    }
    int k = m->chosen;
    const mk_model *md = &mk_models[k];
    uint8_t bit = (uint8_t)(1u << k);
    fpdu_rx r;
    model_of(&r, rx, md);
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
    if (md->nocrc && !m->told_grid) {
        m->told_grid = 1;
        told |= 2;
    }
    m->state = (m->order_set && m->grid_set) || ++m->ntries >= MK_TRIES ? MK_DONE : MK_IDLE;
    return told;
}

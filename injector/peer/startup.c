/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The startup of one connection (see conn_priv.h): the Initiator's
 * Request, the Responder's Reply to it and the Initiator's reading of
 * the Reply, with the negotiation of RFC 5044 7.1.2 (rules 1-10) and
 * RFC 6581 9 (IRD/ORD, A, B, C, D and the RTR).
 */
#include <stdio.h>
#include <string.h>

#include "conn_priv.h"

/* ---- the startup ------------------------------------------------------- */

static const uint8_t rtr_bit[4] = {0, 1, 2, 4}; /* MPA_RTR_SEND/WRITE/READ */

static void note(const conn *c, const char *fmt, const char *what)
{
    if (c->cfg->quiet)
        return;
    fprintf(stderr, "mpa-peer: %s: ", c->name);
    fprintf(stderr, fmt, what);
    fputc('\n', stderr);
}

void init_start(conn *c)
{
    const peer_cfg *g = c->cfg;
    mpa_frame_enc e;
    uint8_t key[MPA_KEY_LEN];
    memset(&e, 0, sizeof e);
    e.kind = MPA_KEY_REQ;
    e.m = g->markers;
    e.c = g->crc;
    e.rev = g->rev;
    if (g->enhanced) {
        e.s = 1;
        e.enh_present = 1;
        e.enh.ird = g->ird;
        e.enh.ord = g->ord;
        if (g->p2p) {
            e.enh.a = 1;
            for (unsigned i = 0; i < g->n_rtr; i++) {
                e.enh.b |= g->rtr[i] == MPA_RTR_SEND;
                e.enh.c |= g->rtr[i] == MPA_RTR_WRITE;
                e.enh.d |= g->rtr[i] == MPA_RTR_READ;
            }
        }
        if (g->fault == FAULT_BCD_WITHOUT_A) {
            e.enh.a = 0;
            e.enh.b = e.enh.c = e.enh.d = 0;
            for (unsigned i = 0; i < g->n_rtr; i++) {
                e.enh.b |= g->rtr[i] == MPA_RTR_SEND;
                e.enh.c |= g->rtr[i] == MPA_RTR_WRITE;
                e.enh.d |= g->rtr[i] == MPA_RTR_READ;
            }
            c->fault_done = 1;
        }
        if (g->fault == FAULT_NO_RTR_OPTION) {
            e.enh.a = 1;
            e.enh.b = e.enh.c = e.enh.d = 0;
            c->fault_done = 1;
        }
    }
    frame_pd(c, &e);
    frame_faults(c, &e, key);
    queue_frame(c, &e);
    c->sent_s = e.s;
    c->sent_a = e.enh.a;
    if (g->fault == FAULT_PDLEN_LIE)
        close_with(c, END_FAULT); /* FIN inside the private data */
}

static int rtr_offered(unsigned bits, unsigned kind) { return (bits & rtr_bit[kind & 3]) != 0; }

/* A frame the engine found improperly formatted: closes (1), unless
 * this end's fault is never-close-on-bad-frame (nc), which goes on. */
static int bad_frame_closes(conn *c, int nc)
{
    if (c->react == RE_BADFRAME && nc) {
        c->react = RE_NONE;
        c->fault_done = 1;
    }
    if (c->react == RE_BADFRAME) {
        close_with(c, END_BAD_FRAME);
        return 1;
    }
    return 0;
}

/* The Responder got a whole Request. */
void resp_frame(conn *c)
{
    const peer_cfg *g = c->cfg;
    const mpa_frame *q = &c->pf;
    int nc = g->fault == FAULT_NEVER_CLOSE;
    if (bad_frame_closes(c, nc))
        return;
    if (c->react != RE_NONE || (q->kind != MPA_KEY_REQ && !nc)) {
        close_with(c, END_STARTUP);
        return;
    }
    if (q->s && !g->enhanced) {
        /* RFC 6581 10: a responder without enhanced support closes. */
        note(c, "%s", "S=1 Request, no --enhanced: closing (RFC 6581 10)");
        close_with(c, END_STARTUP);
        return;
    }
    if (g->fault == FAULT_NO_REPLY) {
        c->phase = PH_SILENT;
        c->fault_done = 1;
        return;
    }

    mpa_frame_enc e;
    uint8_t key[MPA_KEY_LEN];
    memset(&e, 0, sizeof e);
    e.kind = MPA_KEY_REP;
    e.m = g->markers;
    e.c = g->crc;
    /* Answer a Rev 1 Request in Rev 1: a Rev 1 Initiator may not
     * interoperate with anything else (RFC 5044 7.1.1 Rev). */
    e.rev = q->rev >= 1 && q->rev < g->rev ? q->rev : g->rev;
    int reject = g->reject;
    int enh_req = q->s && q->has_enh;
    if (enh_req && g->fault == FAULT_IGNORES_S) {
        e.rev = 2;
        c->fault_done = 1;
        enh_req = 0; /* answered plain */
    } else if (g->fault == FAULT_IGNORES_S) {
        fault_not_here(c, "the Request has S=0");
    }
    unsigned offered = 0;
    if (enh_req) {
        const mpa_enh *qe = &q->enh;
        unsigned sup = 0, req = (qe->b ? 1u : 0) | (qe->c ? 2u : 0) | (qe->d ? 4u : 0);
        for (unsigned i = 0; i < g->n_rtr; i++)
            sup |= rtr_bit[g->rtr[i]];
        e.s = 1;
        e.rev = 2;
        e.enh_present = 1;
        e.enh.a = qe->a;
        /* RFC 6581 9.2: set each requested type we support; if none,
         * every type we support. */
        if (qe->a)
            offered = (sup & req) ? (sup & req) : sup;
        if (g->fault == FAULT_A_NOT_ECHOED) {
            e.enh.a = !qe->a;
            offered = e.enh.a ? sup : 0;
            c->fault_done = 1;
        }
        if (g->fault == FAULT_BCD_WITHOUT_A) {
            if (!qe->a) {
                offered = sup;
                c->fault_done = 1;
            } else {
                fault_not_here(c, "the Request has A=1, so A=0 would also break MPA-ENH-A-ECHO");
            }
        }
        if (g->fault == FAULT_NO_RTR_OPTION) {
            if (qe->a) {
                offered = 0;
                c->fault_done = 1;
            } else {
                fault_not_here(c, "the Request has A=0");
            }
        }
        /* IRD (RFC 6581 9.1): 0x3FFF answers 0x3FFF; below the
         * Initiator's ORD the negotiation fails: reject. */
        uint16_t ird = g->ird;
        if (qe->ord == MPA_IRD_ORD_MAX)
            ird = MPA_IRD_ORD_MAX;
        else if (ird != MPA_IRD_ORD_MAX && ird < qe->ord)
            reject = 1;
        if ((offered & 4u) && ird == 0)
            ird = 1; /* a read RTR needs IRD >= 1 (RFC 6581 9.1) */
        /* ORD: at most the Initiator's IRD; 0x3FFF answers 0x3FFF. */
        uint16_t ord = g->ord;
        if (qe->ird == MPA_IRD_ORD_MAX)
            ord = MPA_IRD_ORD_MAX;
        else if (ord != MPA_IRD_ORD_MAX && ord > qe->ird)
            ord = qe->ird;
        if (g->fault == FAULT_ORD_GT_PEER_IRD) {
            if (qe->ird < MPA_IRD_ORD_MAX - 1) {
                ord = (uint16_t)(qe->ird + 1);
                c->fault_done = 1;
            } else {
                fault_not_here(c, "the Initiator's IRD is 0x3FFF (no negotiation)");
            }
        }
        e.enh.ird = ird;
        e.enh.ord = ord;
        e.enh.b = (offered & 1u) != 0;
        e.enh.c = (offered & 2u) != 0;
        e.enh.d = (offered & 4u) != 0;
        c->ird = ird;
        c->ord = ord;
    } else {
        switch (g->fault) {
        case FAULT_A_NOT_ECHOED:
        case FAULT_BCD_WITHOUT_A:
        case FAULT_NO_RTR_OPTION:
        case FAULT_ORD_GT_PEER_IRD:
            fault_not_here(c, "the Request is not enhanced");
            break;
        default:
            break;
        }
    }
    e.r = (uint8_t)reject;
    frame_pd(c, &e);
    frame_faults(c, &e, key);
    queue_frame(c, &e);
    c->sent_s = e.s;
    c->sent_a = e.enh.a;
    c->enh = e.s && enh_req;
    c->offered = (uint8_t)offered;
    c->a = !reject && c->enh && e.enh.a && q->enh.a;
    c->m_tx = q->m;
    c->crc = q->c || g->crc;
    if (g->fault == FAULT_PDLEN_LIE) {
        close_with(c, END_FAULT);
        return;
    }
    if (reject) {
        /* RFC 5044 7.1.2 rule 2: leave MPA; this ULP then closes. */
        close_with(c, END_REJECTED);
        return;
    }
    c->tx_mode_off = c->tx_off;
    c->phase = PH_FULL;
    if (g->fault == FAULT_RESPONDER_FPDU_FIRST) {
        /* Queued right behind the Reply, as one record: one write, one
         * segment, so it is on the wire before any FPDU could arrive. */
        unsigned reply_end = c->n_bnd - 1u;
        queue_send(c, NULL, g->size ? g->size : 64, 0, 1, 0);
        memmove(c->bnd + reply_end, c->bnd + reply_end + 1, (c->n_bnd - reply_end - 1u) * sizeof c->bnd[0]);
        c->n_bnd--;
        c->fault_done = 1;
    }
}

/* The Initiator got a whole Reply. */
void init_frame(conn *c)
{
    const peer_cfg *g = c->cfg;
    const mpa_frame *p = &c->pf;
    int nc = g->fault == FAULT_NEVER_CLOSE;
    if (bad_frame_closes(c, nc))
        return;
    if (c->react == RE_CLOSE || (p->kind != MPA_KEY_REP && !nc)) {
        close_with(c, END_STARTUP);
        return;
    }
    c->m_tx = p->m;
    c->crc = p->c || g->crc;
    if (p->r) {
        if (p->has_enh && c->sent_s) { /* RFC 6581 9.1: passed to the ULP */
            c->enh = 1;
            c->ird = p->enh.ird;
            c->ord = p->enh.ord;
        }
        close_with(c, END_REJECTED); /* rule 3: leave MPA; this ULP closes */
        return;
    }
    c->tx_mode_off = c->tx_off;
    c->phase = PH_FULL;
    c->sends_left = g->send_n;
    c->echoes_left = g->send_n;
    c->ird = g->ird;
    c->ord = g->ord;
    unsigned pick = 0;
    unsigned re = RE_NONE, code = 0;
    if (c->sent_s != (p->s && p->has_enh)) {
        re = RE_TERM, code = 5; /* S not answered in kind (RFC 6581 10) */
    } else if (c->sent_s) {
        const mpa_enh *pe = &p->enh;
        c->enh = 1;
        if (pe->ord != MPA_IRD_ORD_MAX && g->ird != MPA_IRD_ORD_MAX && pe->ord > g->ird)
            re = RE_TERM, code = 6; /* RFC 6581 9.1: not enough IRD */
        if (pe->ird != MPA_IRD_ORD_MAX && g->ord != MPA_IRD_ORD_MAX && g->ord > pe->ird)
            c->ord = pe->ird; /* RFC 6581 9.1: ORD at most the responder's IRD */
        if (pe->a && !c->sent_a && faulty(c, FAULT_A1_IGNORED)) {
            c->fault_done = 1; /* as if the Reply had A=0 */
        } else if (pe->a != c->sent_a) {
            if (re == RE_NONE)
                re = RE_TERM, code = 7;
        } else if (pe->a) {
            unsigned bits = (pe->b ? 1u : 0) | (pe->c ? 2u : 0) | (pe->d ? 4u : 0);
            c->offered = (uint8_t)bits;
            for (unsigned i = 0; i < g->n_rtr && !pick; i++)
                if (rtr_offered(bits, g->rtr[i]) && !(g->rtr[i] == MPA_RTR_READ && pe->ird == 0))
                    pick = g->rtr[i];
            c->a = 1;
            if (!pick && re == RE_NONE) /* RFC 6581 9.2: no RTR we can send */
                re = RE_TERM, code = 7;
        }
    }
    if (c->react == RE_NONE && re != RE_NONE)
        c->react = (uint8_t)re, c->react_code = (uint8_t)code;
    if (c->react != RE_NONE)
        return;
    /* Faults in the first FPDU. */
    if (g->fault == FAULT_TERM_5 || g->fault == FAULT_TERM_6 ||
        (g->fault == FAULT_TERM_7 && c->a)) {
        queue_term(c, g->fault == FAULT_TERM_5 ? 5 : g->fault == FAULT_TERM_6 ? 6 : 7);
        c->fault_done = 1;
        close_with(c, END_TERM_SENT);
        return;
    }
    if (g->fault == FAULT_TERM_7)
        fault_not_here(c, "no RTR is due (A=0)");
    if (c->a) {
        if (faulty(c, FAULT_WRONG_RTR_TYPE)) {
            const mpa_enh *pe = &p->enh;
            unsigned other = !pe->b ? MPA_RTR_SEND : !pe->c ? MPA_RTR_WRITE : (!pe->d && pe->ird) ? MPA_RTR_READ : 0;
            if (other) {
                pick = other;
                c->fault_done = 1;
            } else {
                fault_not_here(c, "the Reply offered every RTR type");
            }
        }
        if (faulty(c, FAULT_FPDU_BEFORE_RTR)) {
            queue_send(c, NULL, g->size ? g->size : 64, 0, 1, 0);
            c->fault_done = 1;
        }
        queue_rtr(c, pick);
    } else if (g->fault == FAULT_WRONG_RTR_TYPE || g->fault == FAULT_FPDU_BEFORE_RTR) {
        fault_not_here(c, "no RTR is due (A=0 or not enhanced)");
    }
}

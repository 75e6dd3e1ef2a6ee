/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Outstanding RFC 7306 Atomic Requests (atomicq.h): RFC 7306 5.2.2 rules
 * 1 and 8, the Original Request Identifier; RFC 7306 5.2.1, the Requests
 * still owed a Response.
 */
#include "atomicq.h"

void atomicq_push_marks(atomicq *q, uint32_t id, int flag, int owed)
{
    if (q->blind)
        return;
    if (q->n == ATOMICQ_LEN) {
        atomicq_blind(q);
        return;
    }
    unsigned i = (q->head + q->n) % ATOMICQ_LEN;
    q->id[i] = id;
    q->flag = flag ? q->flag | 1u << i : q->flag & ~(1u << i);
    q->owed = owed ? q->owed | 1u << i : q->owed & ~(1u << i);
    q->n++;
}

void atomicq_push_flag(atomicq *q, uint32_t id, int flag) { atomicq_push_marks(q, id, flag, 0); }

void atomicq_push(atomicq *q, uint32_t id) { atomicq_push_marks(q, id, 0, 0); }

unsigned atomicq_owed(const atomicq *q, uint32_t *oldest)
{
    unsigned n = 0;
    if (q->blind)
        return 0;
    for (unsigned k = q->n; k-- > 0;) {
        unsigned i = (q->head + k) % ATOMICQ_LEN;
        if (q->owed >> i & 1u) {
            *oldest = q->id[i];
            n++;
        }
    }
    return n;
}

void atomicq_blind(atomicq *q)
{
    q->n = 0;
    q->head = 0;
    q->flag = 0;
    q->owed = 0;
    q->last_flag = 0;
    q->blind = 1;
}

static void drop(atomicq *q, unsigned k)
{
    q->head = (uint8_t)((q->head + k) % ATOMICQ_LEN);
    q->n = (uint8_t)(q->n - k);
}

atomicq_verdict atomicq_answer(atomicq *q, uint32_t id, uint32_t *oldest)
{
    q->last_flag = 0;
    if (q->blind)
        return ATOMICQ_NOT_JUDGED;
    if (!q->n)
        return ATOMICQ_NONE;
    *oldest = q->id[q->head];
    for (unsigned k = 0; k < q->n; k++)
        if (q->id[(q->head + k) % ATOMICQ_LEN] == id) {
            q->last_flag = (uint8_t)(q->flag >> ((q->head + k) % ATOMICQ_LEN) & 1u);
            drop(q, k + 1);
            return k ? ATOMICQ_SKIPS : ATOMICQ_OK;
        }
    drop(q, 1);
    return ATOMICQ_UNKNOWN;
}

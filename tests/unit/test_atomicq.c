/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Outstanding Atomic Requests (src/atomicq.h), RFC 7306 5.2.2: an Atomic
 * Response carries the Request Identifier of the Request it answers
 * (Original Request Identifier), and Responses follow the order of the
 * Requests (rule 8).
 */
#include "t.h"

#include <string.h>

#include "atomicq.h"

/* 5.2.2 rule 8: Responses in the order of the Requests. */
static void test_in_order(void)
{
    atomicq q;
    memset(&q, 0, sizeof q);
    uint32_t old = 99;
    T_EQ(atomicq_answer(&q, 1, &old), ATOMICQ_NONE);
    atomicq_push(&q, 1);
    atomicq_push(&q, 2);
    T_EQ(atomicq_answer(&q, 1, &old), ATOMICQ_OK);
    T_EQ(atomicq_answer(&q, 2, &old), ATOMICQ_OK);
    T_EQ(atomicq_answer(&q, 2, &old), ATOMICQ_NONE);
}

/* A Response to a later Request first: the older ones are skipped, and
 * said once. */
static void test_skips(void)
{
    atomicq q;
    memset(&q, 0, sizeof q);
    uint32_t old = 0;
    atomicq_push(&q, 7);
    atomicq_push(&q, 8);
    atomicq_push(&q, 9);
    T_EQ(atomicq_answer(&q, 8, &old), ATOMICQ_SKIPS);
    T_EQ(old, 7);
    T_EQ(atomicq_answer(&q, 9, &old), ATOMICQ_OK);
}

/* An identifier no outstanding Request has (a byte-swapped one, say):
 * the oldest Request counts as answered, so the next Response is judged
 * on its own. */
static void test_unknown(void)
{
    atomicq q;
    memset(&q, 0, sizeof q);
    uint32_t old = 0;
    atomicq_push(&q, 0x01000000u);
    atomicq_push(&q, 0x02000000u);
    T_EQ(atomicq_answer(&q, 1, &old), ATOMICQ_UNKNOWN);
    T_EQ(old, 0x01000000u);
    T_EQ(atomicq_answer(&q, 0x02000000u, &old), ATOMICQ_OK);
}

/* More Requests than the ring holds, or a capture hole: not judged. */
static void test_blind(void)
{
    atomicq q;
    memset(&q, 0, sizeof q);
    uint32_t old = 0;
    for (uint32_t i = 0; i < ATOMICQ_LEN; i++)
        atomicq_push(&q, i);
    T_EQ(atomicq_answer(&q, 0, &old), ATOMICQ_OK);
    atomicq_push(&q, 100);
    atomicq_push(&q, 101);
    T_EQ(atomicq_answer(&q, 5, &old), ATOMICQ_NOT_JUDGED);
    memset(&q, 0, sizeof q);
    atomicq_push(&q, 1);
    atomicq_blind(&q);
    T_EQ(atomicq_answer(&q, 2, &old), ATOMICQ_NOT_JUDGED);
    atomicq_push(&q, 3);
    T_EQ(atomicq_answer(&q, 3, &old), ATOMICQ_NOT_JUDGED);
}

/* Marks come back with the Request they were pushed with, across the
 * ring's wrap, and a slot reused unmarked loses its old mark. */
static void test_flags(void)
{
    atomicq q;
    memset(&q, 0, sizeof q);
    uint32_t old = 0;
    for (uint32_t i = 0; i < 3 * ATOMICQ_LEN; i++) {
        atomicq_push_flag(&q, i, i % 3 == 1);
        T_EQ(atomicq_answer(&q, i, &old), ATOMICQ_OK);
        T_EQ(q.last_flag, i % 3 == 1);
    }
    atomicq_push_flag(&q, 100, 0);
    atomicq_push_flag(&q, 101, 1);
    T_EQ(atomicq_answer(&q, 101, &old), ATOMICQ_SKIPS);
    T_EQ(q.last_flag, 1);
    T_EQ(atomicq_answer(&q, 5, &old), ATOMICQ_NONE);
    T_EQ(q.last_flag, 0);
}

/* RFC 7306 5.2.1: the Requests pushed as owed, counted while they are
 * outstanding, the oldest named; none once the queue is blind. */
static void test_owed(void)
{
    atomicq q;
    memset(&q, 0, sizeof q);
    uint32_t old = 0, oldest = 0;
    T_EQ(atomicq_owed(&q, &oldest), 0u);
    for (uint32_t i = 0; i < 2 * ATOMICQ_LEN; i++) { /* across the wrap */
        atomicq_push_marks(&q, i, 0, 1);
        T_EQ(atomicq_answer(&q, i, &old), ATOMICQ_OK);
    }
    T_EQ(atomicq_owed(&q, &oldest), 0u);
    atomicq_push_marks(&q, 10, 1, 0);
    atomicq_push_marks(&q, 11, 0, 1);
    atomicq_push_flag(&q, 12, 0);
    atomicq_push_marks(&q, 13, 0, 1);
    T_EQ(atomicq_owed(&q, &oldest), 2u);
    T_EQ(oldest, 11u);
    T_EQ(atomicq_answer(&q, 11, &old), ATOMICQ_SKIPS);
    T_EQ(atomicq_owed(&q, &oldest), 1u);
    T_EQ(oldest, 13u);
    atomicq_blind(&q);
    T_EQ(atomicq_owed(&q, &oldest), 0u);
}

int main(void)
{
    t_name = "atomicq";
    test_in_order();
    test_skips();
    test_unknown();
    test_blind();
    test_flags();
    test_owed();
    return t_done();
}

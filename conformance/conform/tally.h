/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-conform's counts of a run: tests by verdict, all of them and the
 * mandatory (class M) ones.  What the terminal summary, the JSON
 * summary and the exit status are made from.
 */
#ifndef CONFORM_TALLY_H
#define CONFORM_TALLY_H

enum { TALLY_PASS, TALLY_FAIL, TALLY_ERROR, TALLY_SKIP, TALLY_TOTAL };

typedef struct conf_tally {
    unsigned n[TALLY_TOTAL + 1]; /* every test */
    unsigned m[TALLY_TOTAL + 1]; /* the mandatory ones */
} conf_tally;

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Short forms of what a step sent, expected and received, for the
 * ladder diagram's labels and the tests table: mpa-inject writes a step
 * as "send frame {json}", "expect fpdu {json} within N ms", "got ...";
 * these make "Request Rev 2 M=0 C=1 ...", "FPDU send MSN 1, ...".  The
 * texts come from the report, so anything unexpected is shown as it is.
 * Results are raw text in an sb (escape them when writing).
 */
#ifndef CONFORM_BRIEF_H
#define CONFORM_BRIEF_H

#include <stddef.h>

#include <cJSON.h>

#include "sb.h"
#include "verdict.h"

/* A JSON value without the quotes: {"a":1,"b":"x"} is {a=1 b=x};
 * depth: how deep v already is (deeper than 4 is an ellipsis). */
void brief_val(sb *s, const cJSON *v, int depth);

/* The thing sent or received (the text after "send " or "got "). */
void brief_thing(sb *s, const char *t);

/* An expectation (the text after "expect "), its JSON without quotes. */
void brief_expect(sb *s, const char *t);

/* s after the word w when s starts with it, else NULL (s may be NULL). */
const char *brief_after(const char *s, const char *w);

/* What went wrong in a step (what, detail: its texts, may be NULL; v its
 * verdict), in a few words, into b (n octets). */
void brief_headline(char *b, size_t n, const char *what, const char *detail, vd v);

#endif

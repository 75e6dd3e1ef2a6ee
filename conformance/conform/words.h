/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A failing step in words, for the terminal, the JSON "reason" and the
 * HTML tests table: what the device sent (a Reply with its fields, a
 * TERMINATE with its codes, a close), what was expected of it, and the
 * findings that name a broken requirement ("Reply A=0, Request A=1:
 * MPA-ENH-A-ECHO").  Made from the step's text as mpa-inject's runner
 * writes it ("got frame {...} after 0.1 ms: a is 0, expected 1"); the
 * text itself stays in the JSON report's steps.  cJSON and libc only (the
 * HTML report uses it too).
 */
#ifndef CONFORM_WORDS_H
#define CONFORM_WORDS_H

#include <stddef.h>

#include <cJSON.h>

/* What an observation looks like in words: "frame {...}" becomes "a
 * Reply (Rev 2, M=0 C=1 R=0, IRD 16 ORD 16, A=0 B=0 C=0 D=0, 4 octets
 * of private data)", "terminate {...}" "a TERMINATE (layer 1, type 2,
 * code 0x03)", "fin" "a FIN (the device closed)".  *rest is set past
 * what was read.  0, or -1 (then out holds the text as it was, cut). */
int words_obs(const char *s, const char **rest, char *out, size_t n);

/* The failing step (its "what" and "detail") as a sentence into out,
 * what went wrong first: "a is 0, expected 1; the device sent a Reply
 * (...)", "Reply A=1, Request A=0 (MPA-ENH-A-ECHO); the device sent a
 * Reply (...)", "expected a Reply; got nothing within 2000 ms". */
void words_step(const char *what, const char *detail, char *out, size_t n);

/* A frame of the JSON report ({"key", "m", "c", ..., "enhanced": {...}})
 * in words into out: "a Reply (Rev 2, M=0 C=1 R=0 S=1 Res=0, IRD 16 ORD
 * 16, A=0 B=0 C=0 D=0, 4 octets of private data)". */
void words_frame_text(const cJSON *frame, char *out, size_t n);

/* The first device frame of key "request" or "reply" that the detail
 * text shows, parsed (the caller deletes it), or NULL. */
cJSON *words_frame(const char *detail, const char *key);

#endif

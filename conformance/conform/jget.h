/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Typed reading of a cJSON document that is not trusted: every getter
 * checks the container and the member's type and says "not there" rather
 * than guessing.  Used by the HTML report (which reads any JSON) and by
 * the JUnit and plan writers (which read mpa-conform's own report).
 */
#ifndef CONFORM_JGET_H
#define CONFORM_JGET_H

#include <cJSON.h>

/* Member k of o; NULL when o is not an object or has no k. */
const cJSON *jget(const cJSON *o, const char *k);

/* The string member k of o; NULL when missing or not a string. */
const char *jget_str(const cJSON *o, const char *k);

/* The same, dflt when missing or not a string (never NULL if dflt is not). */
const char *jget_str_or(const cJSON *o, const char *k, const char *dflt);

/* A non-empty string member, or NULL. */
const char *jget_text(const cJSON *o, const char *k);

/* 1 and *d when v is a number within +-1e15 (no NaN), else 0 and *d
 * untouched. */
int jget_num_ok(const cJSON *v, double *d);

/* The number member k of o, as jget_num_ok. */
int jget_num(const cJSON *o, const char *k, double *d);

/* The number member k of o (as jget_num), dflt when there is none. */
double jget_num_or(const cJSON *o, const char *k, double dflt);

/* An integer member, clamped to +-1e9; dflt (within that) when absent. */
int jget_int(const cJSON *o, const char *k, int dflt);

/* What v is, in words: "a string", "an array", ..., "missing" for NULL. */
const char *jget_type(const cJSON *v);

/* 1 when s is one of the NULL-terminated list (a key or a value read
 * from the document, checked against the names we know). */
int jget_one_of(const char *s, const char *const *list);

#endif

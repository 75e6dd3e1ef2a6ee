/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the report lacks or has in another form than documented
 * (docs/mpa-conform-json.md): collected as notes while the page is
 * written, then shown in a "problems" box next to what could be shown,
 * instead of being guessed.
 */
#ifndef CONFORM_CHECK_H
#define CONFORM_CHECK_H

#include <stdio.h>

#include <cJSON.h>

#define NOTES_MAX 12

typedef struct notes {
    char t[NOTES_MAX][200];
    unsigned n, more; /* more: notes beyond NOTES_MAX, only counted */
} notes;

/* Adds a note (cut to 199 octets), or counts it when the list is full. */
__attribute__((format(printf, 2, 3))) void notes_add(notes *ns, const char *fmt, ...);

/* The box, headed by what (our own markup); nothing when there is no note. */
void notes_put(FILE *o, const notes *ns, const char *what);

/* The top level: an object with the documented keys and types. */
void check_report(notes *ns, const cJSON *rep);

/* One test object and its steps. */
void check_test(notes *ns, const cJSON *t);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tables of one test's section in the HTML report (requirements,
 * quirks, steps, libmpa's findings), and the small lists the page uses
 * elsewhere.  Members of the wrong type are shown as "?" or left out;
 * an empty or missing array says so in a line instead of a table.
 */
#ifndef CONFORM_TABLES_H
#define CONFORM_TABLES_H

#include <stdio.h>

#include <cJSON.h>

/* The strings of a (comma-separated; other members as short JSON), or
 * empty (our markup) in grey when a is not a non-empty array. */
void tables_list(FILE *o, const cJSON *a, const char *empty);

/* The text member k of obj, escaped; missing (our markup) when it has
 * none or it is empty. */
void tables_text(FILE *o, const cJSON *obj, const char *k, const char *missing);

/* The duration member k of obj (milliseconds) as the page writes it;
 * returns 0, writing nothing, when obj has no such number. */
int tables_ms(FILE *o, const cJSON *obj, const char *k);

/* Requirement ids: objects with "id", or plain strings; a dash for none. */
void tables_req_ids(FILE *o, const cJSON *reqs);

typedef enum table_kind {
    TABLE_REQUIREMENTS, /* requirement id, level (MUST, SHOULD...), clause and text */
    TABLE_STEPS,        /* per step: index, verb, verdict, what (and note), detail (and
                           requirement ids), time */
    TABLE_FINDINGS,     /* per finding: severity, id, whose octets, offset, time, message */
} table_kind;

/* The table of kind k with a row per member of the array a, or a line
 * saying there is none. */
void tables_put(FILE *o, table_kind k, const cJSON *a);

/* The test's quirks: id and text; nothing when there are none. */
void tables_quirks(FILE *o, const cJSON *qs);

#endif

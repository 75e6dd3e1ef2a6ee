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

/* Requirement ids: objects with "id", or plain strings; a dash for none. */
void tables_req_ids(FILE *o, const cJSON *reqs);

/* Requirement id, level (MUST, SHOULD...), clause and text. */
void tables_requirements(FILE *o, const cJSON *reqs);

/* The test's quirks: id and text; nothing when there are none. */
void tables_quirks(FILE *o, const cJSON *qs);

/* One row per step: index, verb, verdict, what (and note), detail (and
 * requirement ids), time. */
void tables_steps(FILE *o, const cJSON *steps);

/* One row per finding: severity, id, whose octets, offset, time, message. */
void tables_findings(FILE *o, const cJSON *fs);

#endif

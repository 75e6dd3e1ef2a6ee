/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The id of a test's section in the HTML report (the tests table links
 * to it, the trace download is named after it): the test id with
 * anything but [A-Za-z0-9._-] made '_', unique within the page.
 */
#ifndef CONFORM_ANCHOR_H
#define CONFORM_ANCHOR_H

#include <stddef.h>

#include <cJSON.h>

/* The anchor of test idx of the array tests, into b (n octets): the safe
 * id, or t<idx+1>-<safe id> when that is empty or an earlier test has
 * it already. */
void anchor_of(char *b, size_t n, const cJSON *tests, int idx);

#endif

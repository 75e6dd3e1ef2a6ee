/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A test's pcapng trace inside the HTML report: a download link whose
 * href is the file as a base64 data: URI, so the page needs nothing
 * beside it.  A trace that is missing, unreadable or larger than
 * CONFORM_HTML_TRACE_MAX (html.h) is named, with why, instead.
 */
#ifndef CONFORM_EMBED_H
#define CONFORM_EMBED_H

#include <stdio.h>

#include <cJSON.h>

/* The trace of test (its "trace" member, relative to base_dir unless
 * absolute; base_dir NULL or "" is "."); anchor names the download
 * (anchor.pcapng). */
void embed_trace(FILE *o, const cJSON *test, const char *base_dir, const char *anchor);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-conform's HTML report: one self-contained HTML5 document made from
 * the JSON report (docs/mpa-conform-json.md).  It opens with no network:
 * the CSS, the ladder (sequence) diagrams (inline SVG), the pcapng traces
 * (base64 data: URIs) and a little optional JavaScript (filters) are all
 * inside it, and everything reads without the script.  It prints: each
 * test starts a page.
 *
 * The output is a pure function of the report and the trace files (no
 * clock, no environment), so it can be compared with a golden file.
 */
#ifndef CONFORM_HTML_H
#define CONFORM_HTML_H

#include <stddef.h>
#include <stdio.h>

#include <cJSON.h>

/* Traces larger than this are named, not embedded. */
#define CONFORM_HTML_TRACE_MAX (2u * 1024 * 1024)

/*
 * Writes the report to out (not closed; the caller flushes or closes it
 * and should check that too).  report is only read.  base_dir is the
 * directory the report's relative paths ("trace") are relative to; NULL
 * or "" means the current directory.
 *
 * The input is not trusted: a key that is missing or of the wrong type,
 * an unknown verdict or verb, a trace that is missing or too large, is
 * said in the page next to what could be shown; it never makes this
 * fail.  Every string of the report is escaped, and bytes that are not
 * UTF-8 are replaced (U+FFFD).
 *
 * Returns 0 when the whole document was written, -1 when report is NULL
 * or writing to out failed; then err (errlen bytes, may be NULL/0) holds
 * why, NUL-terminated.  A partial document may have been written.
 */
int conform_html(const cJSON *report, const char *base_dir, FILE *out, char *err, size_t errlen);

#endif

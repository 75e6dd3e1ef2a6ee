/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where mpa-conform's reports go (--out DIR, --json, --junit, --html),
 * the traces/ directory beside them, and the HTML report written to a
 * file.
 */
#ifndef CONFORM_REPORTS_H
#define CONFORM_REPORTS_H

#include <limits.h>
#include <stddef.h>

#include <cJSON.h>

typedef struct reports {
    const char *json, *junit, *html; /* NULL: not written; json "-": standard output */
    char json_p[PATH_MAX], junit_p[PATH_MAX], html_p[PATH_MAX]; /* the --out names */
    int traces;                      /* 1: the traces go to trace_dir */
    char base[PATH_MAX];             /* the directory of the JSON (else the HTML) report */
    char trace_dir[PATH_MAX];        /* base/traces */
} reports;

/* mkdir -p dir: 0, or -1 and errno. */
int reports_mkdirs(const char *dir);

/* Fills rp from the options: out_dir (may be NULL) is created and names
 * the reports the options leave unnamed.  0, or -1 and errno when
 * out_dir cannot be made. */
int reports_init(reports *rp, const char *out_dir, const char *json, const char *junit, const char *html);

/* Creates the traces/ directory beside the JSON report (or, when that
 * goes to standard output, the HTML one); none when neither is written
 * to a file.  0, or -1 and errno (the directory: rp->trace_dir). */
int reports_traces(reports *rp);

/* The HTML report of doc to path, the traces read relative to base_dir.
 * 0, or -1 and err (errlen octets; "" when closing the file failed). */
int reports_html(const cJSON *doc, const char *path, const char *base_dir, char *err, size_t errlen);

#endif

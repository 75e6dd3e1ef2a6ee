/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every program of the toolkit does the same way: its name in
 * messages, --version, and no output lost silently.
 *
 * prog_init() registers a check that runs when the program exits: if
 * standard output could not be written (a full disk, /dev/full, a closed
 * pipe), the program says so in one line naming standard output and
 * exits with status 2, whatever status it was about to return.  Files
 * the program writes itself are closed with prog_fclose(), which says
 * which file failed.
 */
#ifndef UTIL_PROG_H
#define UTIL_PROG_H

#include <stdio.h>

/* The program's name ("mpa-audit"), for messages; call first in main. */
void prog_init(const char *name);

/* The name given to prog_init. */
const char *prog_name(void);

/* Print "NAME VERSION" (the toolkit's version: the VERSION file, through
 * libmpa's mpa_version()) and, when extra is not NULL, " (extra)". */
void prog_version(const char *extra);

/* Flush and close f, written as path (a file name, or "standard output"
 * for stdout, which is only flushed).  0, or -1 after one line on
 * standard error: "NAME: PATH: reason". */
int prog_fclose(FILE *f, const char *path);

#endif

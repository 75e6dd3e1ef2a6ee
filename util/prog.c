/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Program plumbing shared by every program (prog.h).  A write error on
 * standard output is otherwise easy to lose: stdio buffers it, the
 * program returns 0, and the lost output goes unnoticed; checking at
 * exit catches it for every program in one place.
 */
#include "prog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpa/common.h"

static const char *g_name = "mpa";
static int g_stdout_said; /* a failed write to stdout was reported */

const char *prog_name(void) { return g_name; }

int prog_fclose(FILE *f, const char *path)
{
    errno = 0;
    int bad = f == stdout ? fflush(f) != 0 : 0;
    bad |= ferror(f) != 0;
    int err = errno;
    if (f != stdout) {
        errno = 0;
        if (fclose(f) != 0 && !bad) {
            bad = 1;
            err = errno;
        }
    }
    if (!bad)
        return 0;
    if (f == stdout) {
        if (g_stdout_said)
            return -1;
        g_stdout_said = 1;
    }
    fprintf(stderr, "%s: %s: %s\n", g_name, path, err ? strerror(err) : "write error");
    return -1;
}

/* At exit: what stdout still holds is written, or the program fails. */
static void check_stdout(void)
{
    if (prog_fclose(stdout, "standard output") != 0) {
        fflush(stderr);
        _exit(2);
    }
}

void prog_init(const char *name)
{
    g_name = name;
    atexit(check_stdout);
}

void prog_version(const char *extra)
{
    if (extra)
        printf("%s %s (%s)\n", g_name, mpa_version(), extra);
    else
        printf("%s %s\n", g_name, mpa_version());
}

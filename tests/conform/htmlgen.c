/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * htmlgen REPORT.json OUT.html: mpa-conform's HTML report (conform_html)
 * from a JSON report, the traces read relative to the report's
 * directory.  What tests/conform/html-test.sh runs; "-" as OUT writes to
 * stdout.  Exit 0 written, 1 the report is not JSON, 2 usage or I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, k;
    char *b = malloc(cap + 1);
    while (b && (k = fread(b + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            char *nb = realloc(b, cap * 2 + 1);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!b || bad) {
        free(b);
        errno = bad ? EIO : ENOMEM;
        return NULL;
    }
    b[n] = 0;
    *len = n;
    return b;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: htmlgen REPORT.json OUT.html\n");
        return 2;
    }
    size_t len;
    char *text = read_all(argv[1], &len);
    if (!text) {
        fprintf(stderr, "htmlgen: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    cJSON *rep = cJSON_ParseWithLength(text, len);
    free(text);
    if (!rep) {
        fprintf(stderr, "htmlgen: %s: not JSON\n", argv[1]);
        return 1;
    }
    /* the report's directory */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", argv[1]);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        snprintf(dir, sizeof dir, ".");
    if (!dir[0])
        snprintf(dir, sizeof dir, "/");

    FILE *out = strcmp(argv[2], "-") ? fopen(argv[2], "w") : stdout;
    if (!out) {
        fprintf(stderr, "htmlgen: %s: %s\n", argv[2], strerror(errno));
        cJSON_Delete(rep);
        return 2;
    }
    char err[256];
    int r = conform_html(rep, dir, out, err, sizeof err);
    cJSON_Delete(rep);
    if (out != stdout ? fclose(out) : fflush(out)) {
        if (!r)
            snprintf(err, sizeof err, "%s: %s", argv[2], strerror(errno));
        r = -1;
    }
    if (r) {
        fprintf(stderr, "htmlgen: %s\n", err);
        return 2;
    }
    return 0;
}

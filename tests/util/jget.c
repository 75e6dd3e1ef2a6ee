/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jget: prints values out of a JSON document, for shell tests.
 *
 *   jget FILE PATH...     (FILE - : standard input)
 *
 * A PATH is keys and array indices joined by dots: "runs.0.verdict",
 * "summary.exit_status"; "runs.#" prints an array's length.  One line
 * per PATH: strings as they are, whole numbers without a fraction,
 * true/false/null, objects and arrays as compact JSON.  Exit status 0;
 * 1 when a PATH is not in the document (it prints "<missing>"); 2 when
 * FILE is not JSON.
 */
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/slurp.h"

static const cJSON *walk(const cJSON *j, const char *path, int *count)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    *count = 0;
    for (char *tok = strtok(buf, "."); tok && j; tok = strtok(NULL, ".")) {
        if (!strcmp(tok, "#")) {
            if (!cJSON_IsArray(j) && !cJSON_IsObject(j))
                return NULL;
            *count = 1;
            return j;
        }
        if (cJSON_IsArray(j)) {
            char *end;
            long i = strtol(tok, &end, 10);
            j = *end || i < 0 ? NULL : cJSON_GetArrayItem(j, (int)i);
        } else if (cJSON_IsObject(j)) {
            j = cJSON_GetObjectItemCaseSensitive(j, tok);
        } else {
            j = NULL;
        }
    }
    return j;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: jget FILE PATH...\n");
        return 2;
    }
    size_t n = 0;
    char *text = NULL;
    if (!strcmp(argv[1], "-")) {
        text = slurp(&n);
    } else {
        FILE *f = fopen(argv[1], "rb");
        if (!f) {
            perror(argv[1]);
            return 2;
        }
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        rewind(f);
        text = malloc(len > 0 ? (size_t)len + 1 : 1);
        n = text && len > 0 ? fread(text, 1, (size_t)len, f) : 0;
        if (text)
            text[n] = 0;
        fclose(f);
    }
    cJSON *doc = text ? cJSON_ParseWithLength(text, n) : NULL;
    if (!doc) {
        fprintf(stderr, "jget: %s: not JSON\n", argv[1]);
        free(text);
        return 2;
    }
    int rc = 0;
    for (int i = 2; i < argc; i++) {
        int count;
        const cJSON *v = walk(doc, argv[i], &count);
        if (!v) {
            puts("<missing>");
            rc = 1;
        } else if (count) {
            printf("%d\n", cJSON_GetArraySize(v));
        } else if (cJSON_IsString(v)) {
            puts(v->valuestring);
        } else if (cJSON_IsNumber(v)) {
            double d = v->valuedouble;
            if (d == floor(d) && fabs(d) < 9e15)
                printf("%.0f\n", d);
            else
                printf("%g\n", d);
        } else {
            char *s = cJSON_PrintUnformatted(v);
            puts(s ? s : "?");
            free(s);
        }
    }
    cJSON_Delete(doc);
    free(text);
    return rc;
}

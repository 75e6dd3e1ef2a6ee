/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by the test tools that read JSON on stdin
 * (tests/audit/jsonids.c, dissector/tests/iwjson.c). */
#ifndef TESTS_UTIL_SLURP_H
#define TESTS_UTIL_SLURP_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* All of stdin, NUL-terminated, length in *n; NULL when out of memory. */
static inline char *slurp(size_t *n)
{
    size_t cap = 1 << 16, len = 0;
    char *b = malloc(cap + 1);
    size_t k;
    while (b && (k = fread(b + len, 1, cap - len, stdin)) > 0) {
        len += k;
        if (len == cap) {
            cap *= 2;
            char *nb = realloc(b, cap + 1);
            if (!nb) {
                free(b);
                return NULL;
            }
            b = nb;
        }
    }
    if (b)
        b[len] = 0;
    *n = len;
    return b;
}

/* qsort comparator for an array of C strings. */
static inline int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}
#endif

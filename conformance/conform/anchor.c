/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Section ids of the HTML report (anchor.h). */
#include "anchor.h"

#include <stdio.h>
#include <string.h>

#include "jget.h"

static void sanitize(char *b, size_t n, const char *id)
{
    size_t j = 0;
    for (size_t i = 0; id[i] && j + 1 < n && i < 100; i++) {
        unsigned char c = (unsigned char)id[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                 c == '-' || c == '_';
        b[j++] = ok ? (char)c : '_';
    }
    b[j] = 0;
}

/* The section's id: the test id made safe, or t<N>-... when that is empty
 * or an earlier test has it already. */
void anchor_of(char *b, size_t n, const cJSON *tests, int idx)
{
    const char *id = jget_str(cJSON_GetArrayItem(tests, idx), "id");
    char mine[128];
    sanitize(mine, sizeof mine, id ? id : "");
    int clash = !mine[0];
    for (int i = 0; i < idx && !clash; i++) {
        const char *o = jget_str(cJSON_GetArrayItem(tests, i), "id");
        char other[128];
        sanitize(other, sizeof other, o ? o : "");
        clash = !strcmp(mine, other);
    }
    if (clash)
        snprintf(b, n, "t%d-%s", idx + 1, mine);
    else
        snprintf(b, n, "%s", mine);
}

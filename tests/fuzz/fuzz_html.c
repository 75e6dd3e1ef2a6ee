/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: mpa-conform's HTML report (conformance/conform/html.h).
 *
 * The input is a JSON report's text (docs/mpa-conform-json.md); what
 * cJSON accepts is rendered into memory.  Checked, whatever the input:
 * no crash, leak or out-of-bounds access (ASan, UBSan); conform_html
 * returns 0; the page ends with </html>; it is valid UTF-8; it holds
 * exactly one <script (ours: every string of the report is escaped, so
 * none can open another) and as many <svg as </svg>.  A broken check
 * prints what it found and abort()s, so libFuzzer keeps the input.
 * Relative traces are looked for in a directory that does not exist.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FAIL(...)                                                            \
    do {                                                                     \
        fprintf(stderr, "fuzz_html: " __VA_ARGS__);                          \
        fputc('\n', stderr);                                                 \
        abort();                                                             \
    } while (0)

static size_t count(const char *hay, size_t n, const char *needle)
{
    size_t c = 0, k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (!memcmp(hay + i, needle, k))
            c++;
    return c;
}

/* 1 when p[0..n) is UTF-8 (no overlong forms, no surrogates). */
static int utf8_ok(const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        size_t len = c < 0x80 ? 1 : c < 0xC2 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF5 ? 4 : 0;
        if (!len || i + len > n)
            return 0;
        for (size_t k = 1; k < len; k++)
            if ((p[i + k] & 0xC0) != 0x80)
                return 0;
        if ((c == 0xE0 && p[i + 1] < 0xA0) || (c == 0xED && p[i + 1] >= 0xA0) || (c == 0xF0 && p[i + 1] < 0x90) ||
            (c == 0xF4 && p[i + 1] >= 0x90))
            return 0;
        i += len;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    cJSON *rep = cJSON_ParseWithLength((const char *)data, size);
    if (!rep)
        return 0;
    char *page = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&page, &len);
    if (!out)
        FAIL("open_memstream");
    char err[200];
    int rc = conform_html(rep, "/nonexistent-fuzz-html", out, err, sizeof err);
    if (fclose(out))
        FAIL("fclose of the memory stream");
    cJSON_Delete(rep);
    if (rc)
        FAIL("conform_html returned %d: %s", rc, err);
    if (len < 8 || memcmp(page + len - 8, "</html>\n", 8))
        FAIL("the page does not end with </html>");
    if (!utf8_ok((const unsigned char *)page, len))
        FAIL("the page is not UTF-8");
    size_t sc = count(page, len, "<script"), so = count(page, len, "<svg"), se = count(page, len, "</svg>");
    if (sc != 1)
        FAIL("%zu <script in the page", sc);
    if (so != se)
        FAIL("%zu <svg, %zu </svg>", so, se);
    free(page);
    return 0;
}

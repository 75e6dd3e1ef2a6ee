/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The trace as a data: URI (embed.h). */
#include "embed.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "esc.h"
#include "html.h"
#include "jget.h"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void put_b64(FILE *o, const unsigned char *p, size_t n)
{
    char q[4];
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        q[0] = b64[v >> 18];
        q[1] = b64[(v >> 12) & 63];
        q[2] = b64[(v >> 6) & 63];
        q[3] = b64[v & 63];
        fwrite(q, 1, 4, o);
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)p[i] << 16;
        q[0] = b64[v >> 18];
        q[1] = b64[(v >> 12) & 63];
        q[2] = q[3] = '=';
        fwrite(q, 1, 4, o);
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
        q[0] = b64[v >> 18];
        q[1] = b64[(v >> 12) & 63];
        q[2] = b64[(v >> 6) & 63];
        q[3] = '=';
        fwrite(q, 1, 4, o);
    }
}

static void trace_missing(FILE *o, const char *rel, const char *why)
{
    fputs("<p class=\"nodl\">The trace <code>", o);
    html_esc(o, rel);
    fputs("</code> is not embedded: ", o);
    html_esc(o, why);
    fputs(".</p>\n", o);
}

/* The whole file at path, at most CONFORM_HTML_TRACE_MAX octets, into
 * *buf (malloc'd, the caller frees) and *len: 0, or -1 and why (n
 * octets) says why not. */
static int read_trace(const char *path, unsigned char **buf, size_t *len, char *why, size_t n)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, n, "%s", strerror(errno));
        return -1;
    }
    struct stat sbuf;
    if (fstat(fileno(f), &sbuf) || !S_ISREG(sbuf.st_mode)) {
        fclose(f);
        snprintf(why, n, "it is not a regular file");
        return -1;
    }
    if ((uintmax_t)sbuf.st_size > CONFORM_HTML_TRACE_MAX) {
        fclose(f);
        snprintf(why, n, "it has %ju octets, more than the %u MiB this page embeds; it is next to the report",
                 (uintmax_t)sbuf.st_size, CONFORM_HTML_TRACE_MAX >> 20);
        return -1;
    }
    size_t cap = (size_t)sbuf.st_size;
    *buf = malloc(cap + 1);
    if (!*buf) {
        fclose(f);
        snprintf(why, n, "out of memory");
        return -1;
    }
    size_t got = fread(*buf, 1, cap + 1, f);
    int bad = ferror(f) || got != cap;
    fclose(f);
    if (bad) {
        free(*buf);
        *buf = NULL;
        snprintf(why, n, "it could not be read whole (it changed, or a read failed)");
        return -1;
    }
    *len = got;
    return 0;
}

void embed_trace(FILE *o, const cJSON *test, const char *base_dir, const char *anchor)
{
    const cJSON *tv = jget(test, "trace");
    if (!tv || cJSON_IsNull(tv)) {
        fputs("<p class=\"nodl\">No trace was written for this test.</p>\n", o);
        return;
    }
    if (!cJSON_IsString(tv) || !*tv->valuestring) {
        html_printf(o, "<p class=\"nodl\">The report's \"trace\" is %s, not a file name.</p>\n",
                    cJSON_IsString(tv) ? "empty" : jget_type(tv));
        return;
    }
    const char *rel = tv->valuestring;
    char path[4096];
    int n = rel[0] == '/' ? snprintf(path, sizeof path, "%s", rel)
                          : snprintf(path, sizeof path, "%s/%s", base_dir && *base_dir ? base_dir : ".", rel);
    if (n < 0 || (size_t)n >= sizeof path) {
        trace_missing(o, rel, "its path is too long");
        return;
    }
    unsigned char *buf = NULL;
    size_t got = 0;
    char why[160];
    if (read_trace(path, &buf, &got, why, sizeof why)) {
        trace_missing(o, rel, why);
        return;
    }
    fputs("<p class=\"dl\"><a class=\"trace\" download=\"", o);
    html_esc(o, anchor);
    fputs(".pcapng\" href=\"data:application/vnd.tcpdump.pcap;base64,", o);
    put_b64(o, buf, got);
    fputs("\">\xE2\xAC\x87 Download the trace (", o);
    html_esc(o, anchor);
    html_printf(o, ".pcapng, %zu octets)</a> <span class=\"mute\">from <code>", got);
    html_esc(o, rel);
    fputs("</code>; Wireshark or tshark with the iwmpa plugin decodes it, and every packet carries the step "
          "that sent or expected it as a comment.</span></p>\n",
          o);
    free(buf);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Capture file writer: classic pcap and pcapng.  See capw.h.
 *
 * References: draft-ietf-opsawg-pcap (classic format: file header,
 * record header), draft-ietf-opsawg-pcapng (SHB 4.1, IDB 4.2 with
 * if_tsresol, EPB 4.3 with opt_comment, options 3.5).
 */
#include "capw.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bytes.h"

#define CAPW_BUF (4u << 20)
#define CAPW_SLACK 1024u      /* pcapng options and padding after the data */
#define CAPW_COMMENT_MAX 900u /* longer comments are cut */

/* pcapng block types and option codes (draft-ietf-opsawg-pcapng). */
enum {
    NG_SHB = 0x0A0D0D0A,
    NG_IDB = 0x00000001,
    NG_EPB = 0x00000006,
    NG_BYTE_ORDER_MAGIC = 0x1A2B3C4D,
    NG_OPT_ENDOFOPT = 0,
    NG_OPT_COMMENT = 1,
    NG_SHB_USERAPPL = 4,
    NG_IF_NAME = 2,
    NG_IF_TSRESOL = 9,
};

static void flush(capw *w)
{
    size_t at = 0;
    while (at < w->len && !w->err) {
        ssize_t n = write(w->fd, w->buf + at, w->len - at);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            w->err = errno;
        } else {
            at += (size_t)n;
        }
    }
    w->len = 0;
}

static void need(capw *w, size_t n)
{
    if (w->cap - w->len < n)
        flush(w);
}

/* One pcapng option: code, length, value, padded to 32 bits. */
static size_t ng_opt(uint8_t *p, uint16_t code, const void *val, size_t len)
{
    put_le16(p, code);
    put_le16(p + 2, (uint16_t)len);
    if (len)
        memcpy(p + 4, val, len);
    size_t padded = (len + 3) & ~(size_t)3;
    memset(p + 4 + len, 0, padded - len);
    return 4 + padded;
}

static void write_headers(capw *w, int link, const char *iface)
{
    uint8_t *p = w->buf + w->len;
    if (w->fmt == CAPW_PCAP) {
        put_le32(p, 0xA1B2C3D4u); /* microsecond timestamps */
        put_le16(p + 4, 2);
        put_le16(p + 6, 4);
        put_le32(p + 8, 0);  /* thiszone: UTC */
        put_le32(p + 12, 0); /* sigfigs */
        put_le32(p + 16, w->snaplen);
        put_le32(p + 20, (uint32_t)link);
        w->len += 24;
        w->hdr = 16;
        return;
    }
    /* Section Header Block: one section of unknown length (-1).  The
     * shb_userappl is the same whichever program writes (the reference
     * captures' octets depend on it). */
    static const char appl[] = "mpa-capgen (iWARP MPA toolkit)";
    size_t n = 0;
    put_le32(p, NG_SHB);
    put_le32(p + 8, NG_BYTE_ORDER_MAGIC);
    put_le16(p + 12, 1); /* version 1.0 */
    put_le16(p + 14, 0);
    put_le32(p + 16, 0xFFFFFFFFu);
    put_le32(p + 20, 0xFFFFFFFFu);
    n = 24;
    n += ng_opt(p + n, NG_SHB_USERAPPL, appl, sizeof appl - 1);
    n += ng_opt(p + n, NG_OPT_ENDOFOPT, NULL, 0);
    put_le32(p + 4, (uint32_t)(n + 4));
    put_le32(p + n, (uint32_t)(n + 4));
    n += 4;
    w->len += n;

    /* Interface Description Block: nanosecond timestamps (if_tsresol 9),
     * so readers that assume the default microseconds get it wrong. */
    p = w->buf + w->len;
    put_le32(p, NG_IDB);
    put_le16(p + 8, (uint16_t)link);
    put_le16(p + 10, 0);
    put_le32(p + 12, w->snaplen);
    n = 16;
    if (iface && *iface)
        n += ng_opt(p + n, NG_IF_NAME, iface, strlen(iface));
    uint8_t res = 9;
    n += ng_opt(p + n, NG_IF_TSRESOL, &res, 1);
    n += ng_opt(p + n, NG_OPT_ENDOFOPT, NULL, 0);
    put_le32(p + 4, (uint32_t)(n + 4));
    put_le32(p + n, (uint32_t)(n + 4));
    n += 4;
    w->len += n;
    w->hdr = 28; /* EPB: type, length, interface, ts high, ts low, caplen, origlen */
}

int capw_open(capw *w, const char *path, capw_format fmt, int link, uint32_t snaplen,
              const char *iface)
{
    memset(w, 0, sizeof *w);
    w->fmt = fmt;
    w->snaplen = snaplen ? snaplen : CAPW_SNAPLEN_MAX;
    w->buf = malloc(CAPW_BUF);
    if (!w->buf)
        return -1;
    w->cap = CAPW_BUF;
    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (w->fd < 0) {
        int e = errno;
        free(w->buf);
        w->buf = NULL;
        errno = e;
        return -1;
    }
    write_headers(w, link, iface);
    w->bytes = w->len;
    return 0;
}

uint8_t *capw_begin(capw *w, size_t maxlen)
{
    need(w, w->hdr + maxlen + CAPW_SLACK);
    return w->buf + w->len + w->hdr;
}

void capw_commit(capw *w, uint64_t ts_ns, size_t len, const char *comment)
{
    uint8_t *r = w->buf + w->len;
    size_t cap = len < w->snaplen ? len : w->snaplen;
    size_t total;
    if (w->fmt == CAPW_PCAP) {
        capw_pcap_rechdr(r, (uint32_t)(ts_ns / 1000000000u), (uint32_t)(ts_ns % 1000000000u / 1000u),
                         (uint32_t)cap, (uint32_t)len);
        total = 16 + cap;
    } else {
        size_t n = 28 + cap;
        size_t pad = (4 - (cap & 3)) & 3;
        memset(r + n, 0, pad);
        n += pad;
        if (comment && *comment) {
            size_t cl = strlen(comment);
            if (cl > CAPW_COMMENT_MAX)
                cl = CAPW_COMMENT_MAX;
            n += ng_opt(r + n, NG_OPT_COMMENT, comment, cl);
            n += ng_opt(r + n, NG_OPT_ENDOFOPT, NULL, 0);
        }
        n += 4;
        put_le32(r, NG_EPB);
        put_le32(r + 4, (uint32_t)n);
        put_le32(r + 8, 0); /* interface 0 */
        put_le32(r + 12, (uint32_t)(ts_ns >> 32));
        put_le32(r + 16, (uint32_t)ts_ns);
        put_le32(r + 20, (uint32_t)cap);
        put_le32(r + 24, (uint32_t)len);
        put_le32(r + n - 4, (uint32_t)n);
        total = n;
    }
    w->len += total;
    w->bytes += total;
    w->packets++;
}

void capw_pcap_rechdr(uint8_t *rec, uint32_t sec, uint32_t usec, uint32_t caplen, uint32_t origlen)
{
    put_le32(rec, sec);
    put_le32(rec + 4, usec);
    put_le32(rec + 8, caplen);
    put_le32(rec + 12, origlen);
}

void capw_raw(capw *w, const void *p, size_t n)
{
    const uint8_t *q = p;
    while (n) {
        need(w, n < w->cap ? n : w->cap);
        size_t k = w->cap - w->len < n ? w->cap - w->len : n;
        memcpy(w->buf + w->len, q, k);
        w->len += k;
        w->bytes += k;
        q += k;
        n -= k;
    }
}

int capw_close(capw *w)
{
    if (!w->buf)
        return -1;
    flush(w);
    int err = w->err;
    if (close(w->fd) != 0 && !err)
        err = errno;
    free(w->buf);
    w->buf = NULL;
    if (err) {
        errno = err;
        return -1;
    }
    return 0;
}

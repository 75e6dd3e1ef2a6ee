/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reference captures: which scenarios, over which links and
 * transport variants, and what mpa-audit must report for each
 * (OUTDIR/MANIFEST.tsv).  See README.md in this folder.
 *
 * Every capture comes from a scenario built with libmpa's encoders:
 * the corpus' catalogue (corpus/cases.c: the very octets the stream
 * engine's unit test checks) or a builder below, made with the same
 * corpus helpers.  Nothing is written by hand.
 */
#include "gen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytes.h"
#include "conv.h"
#include "corpus.h"

#define SERVER_PORT 18515 /* perftest's port: nothing in Wireshark claims it */
#define MIDSTREAM_PORT 5445
#define MIXED_PORT 445
#define T0_NS (1704067200ull * 1000000000ull) /* 2024-01-01T00:00:00Z */
#define STEP_NS 10000u                        /* 10 us between packets */
#define D0 0 /* the TCP client: the Initiator */
#define D1 1

static const char *g_outdir;
static FILE *g_man;
static int g_err;     /* an I/O error happened */
static int g_verify;
static int g_diff;    /* verify found differences */
static unsigned g_files;

/* ---- manifest ----------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The union of the space-separated id lists a and b, sorted, without
 * duplicates, "-" when empty. */
static void ids_union(char *out, size_t cap, const char *a, const char *b)
{
    char tmp[2048];
    snprintf(tmp, sizeof tmp, "%s %s", a ? a : "", b ? b : "");
    char *tok[128];
    size_t n = 0;
    for (char *save = NULL, *t = strtok_r(tmp, " ", &save); t && n < 128;
         t = strtok_r(NULL, " ", &save))
        if (strcmp(t, "-") != 0)
            tok[n++] = t;
    qsort(tok, n, sizeof *tok, cmp_str);
    out[0] = 0;
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && strcmp(tok[i], tok[i - 1]) == 0)
            continue;
        w += (size_t)snprintf(out + w, w < cap ? cap - w : 0, "%s%s", w ? " " : "", tok[i]);
    }
    if (!n)
        snprintf(out, cap, "-");
}

static void manifest(const char *file, const char *link, const char *ids, const char *desc,
                     const char *opts)
{
    char sorted[2048];
    ids_union(sorted, sizeof sorted, ids, NULL);
    fprintf(g_man, "%s\t%s\t%s\t%s\t%s\n", file, link, sorted, desc, opts && *opts ? opts : "-");
    g_files++;
}

static const char *path_of(const char *file)
{
    static char p[4096];
    snprintf(p, sizeof p, "%s/%s", g_outdir, file);
    return p;
}

static void io_error(const char *file)
{
    fprintf(stderr, "mpa-capgen: %s: %s\n", path_of(file), strerror(errno));
    g_err = 1;
}

/* "pcap Ethernet 802.1Q(100) IPv6 HBH+DestOpts", for the manifest. */
static const char *link_desc(capw_format fmt, const netpath *np, const char *extra)
{
    static char b[256];
    size_t w = (size_t)snprintf(b, sizeof b, "%s", fmt == CAPW_PCAPNG ? "pcapng" : "pcap");
    switch (np->link) {
    case LINK_ETHERNET:
        w += (size_t)snprintf(b + w, sizeof b - w, " Ethernet");
        for (unsigned i = 0; i < np->nvlan; i++)
            w += (size_t)snprintf(b + w, sizeof b - w, "%s%s(%u)", i ? "+" : " ",
                                  np->vlan_tpid[i] == 0x88A8 ? "802.1ad" : "802.1Q",
                                  (unsigned)np->vlan_id[i]);
        break;
    case LINK_LINUX_SLL:
        w += (size_t)snprintf(b + w, sizeof b - w, " Linux-SLL");
        break;
    case LINK_LINUX_SLL2:
        w += (size_t)snprintf(b + w, sizeof b - w, " Linux-SLL2");
        break;
    case LINK_RAW:
        w += (size_t)snprintf(b + w, sizeof b - w, " raw-IP");
        break;
    case LINK_NULL:
        w += (size_t)snprintf(b + w, sizeof b - w, " NULL-loopback");
        break;
    default:
        break;
    }
    w += (size_t)snprintf(b + w, sizeof b - w, " IPv%u", (unsigned)np->family);
    if (np->family == 6 && np->v6_ext)
        w += (size_t)snprintf(b + w, sizeof b - w, " HBH+DestOpts");
    if (extra && *extra)
        snprintf(b + w, sizeof b - w, " %s", extra);
    return b;
}

/* ---- verification against the engine ------------------------------------ */

static const mpa_rule *rule_by_id(const char *id)
{
    for (unsigned i = 0; i < MPA_F__COUNT; i++) {
        const mpa_rule *r = mpa_rule_get((mpa_finding_id)i);
        if (strcmp(r->id, id) == 0)
            return r;
    }
    return NULL;
}

static int id_listed(const char *list, const char *id)
{
    size_t k = strlen(id);
    for (const char *p = list; (p = strstr(p, id)) != NULL; p += k)
        if ((p == list || p[-1] == ' ') && (p[k] == 0 || p[k] == ' '))
            return 1;
    return 0;
}

/*
 * Feeds s to the engine through the unit tests' harness and compares the
 * ids it raises with expect (the ids mpa-audit itself adds, CHECKED 2 in
 * findings.def, are not the engine's and are skipped).
 */
static void verify_scen(const char *file, const cs_scen *s, const char *expect)
{
    if (!g_verify)
        return;
    char tmp[2048];
    snprintf(tmp, sizeof tmp, "%s", expect);
    for (char *save = NULL, *t = strtok_r(tmp, " ", &save); t; t = strtok_r(NULL, " ", &save))
        if (strcmp(t, "-") != 0 && !rule_by_id(t)) {
            fprintf(stderr, "verify %s: %s is not in findings.def\n", file, t);
            g_diff = 1;
        }
    cs_split whole = {0, 0, 0};
    cs_log l = cs_run(s, whole);
    for (unsigned i = 0; i < MPA_F__COUNT; i++) {
        const mpa_rule *r = mpa_rule_get((mpa_finding_id)i);
        if (r->checked == 2)
            continue;
        int want = id_listed(expect, r->id), got = l.count[i] > 0;
        if (want != got) {
            fprintf(stderr, "verify %s: %s %s\n", file, r->id,
                    want ? "is expected, the engine does not report it"
                         : "is reported by the engine, not expected");
            g_diff = 1;
        }
    }
    cs_log_free(&l);
}

/* ---- capture helpers ------------------------------------------------------- */

static netpath path_eth(int family, unsigned h0, unsigned h1)
{
    netpath np;
    net_path_init(&np, LINK_ETHERNET, family, h0, h1);
    return np;
}

/* A conversation for scenario s between the ports given. */
static void conv_scen(conv *c, const netpath *np, const cs_scen *s, uint16_t cport, uint16_t sport,
                      const uint32_t *isn)
{
    conv_opts o;
    memset(&o, 0, sizeof o);
    o.port[0] = cport;
    o.port[1] = sport;
    if (isn) {
        o.isn_set = 1;
        o.isn[0] = isn[0];
        o.isn[1] = isn[1];
    }
    conv_init(c, np);
    conv_tcp_from_scen(c, s, &o);
}

static int write_convs(const char *file, capw_format fmt, int link, uint32_t snaplen,
                       conv *const *cs, size_t n)
{
    if (cap_write(path_of(file), fmt, link, snaplen, "mpa0", cs, n, NULL) != 0) {
        io_error(file);
        return -1;
    }
    return 0;
}

/* Writes one conversation of scenario s (timestamps from T0). */
static int write_one(const char *file, capw_format fmt, conv *c)
{
    conv_times(c, T0_NS, STEP_NS);
    conv *cs[1] = {c};
    return write_convs(file, fmt, c->np.link, 0, cs, 1);
}

/* NAME-classic.pcap: the packets of NAME.pcapng in a classic pcap file,
 * which mpa-audit reads in place, reading the octets it compares
 * retransmissions with back from the file (capture/tcp.h). */
static void classic_twin(const char *name, conv *c, netpath *np, const char *ids)
{
    char file[96], desc[160];
    snprintf(file, sizeof file, "%s-classic.pcap", name);
    snprintf(desc, sizeof desc,
             "%s.pcapng as a classic pcap file: mpa-audit reads it in place and reads the octets "
             "retransmissions are compared with back from the file", name);
    if (write_one(file, CAPW_PCAP, c) == 0)
        manifest(file, link_desc(CAPW_PCAP, np, NULL), ids, desc, NULL);
}

/* Does some direction's first payload start with "MPA " (every key does:
 * Request, Reply, the 2007 RtR frame, the draft-03 Start Key)?  That is
 * how mpa-audit takes a connection on an unnamed port for MPA; the others
 * need --port. */
static int starts_with_key(const cs_scen *s)
{
    int seen[2] = {0, 0};
    for (size_t i = s->midstream ? s->start_chunk : 0; i < s->nch; i++) {
        const cs_chunk *ch = &s->ch[i];
        if ((ch->kind != CS_DATA && ch->kind != CS_LOST) || seen[ch->dir])
            continue;
        seen[ch->dir] = 1;
        if (ch->kind == CS_DATA && ch->len >= 4 && memcmp(s->buf + ch->off, "MPA ", 4) == 0)
            return 1;
    }
    return 0;
}

/* ---- scenario builders beyond the shared table ----------------------------- */

static uint8_t g_ul[70000];

/* An RDMA Write of total octets as DDP segments of at most seg payload
 * octets, one FPDU (and TCP segment) each (RFC 5041 5.2: tagged, TO
 * advancing, L on the last). */
static void put_write(cs_scen *s, int dir, uint32_t stag, uint64_t to, size_t total, size_t seg)
{
    size_t done = 0;
    do {
        size_t n = total - done < seg ? total - done : seg;
        mpa_ddp d = cs_ul_tagged(MPA_RDMAP_RDMA_WRITE, stag, to + done);
        d.hdr.last = done + n == total;
        cs_fpdu(s, dir, g_ul, cs_ul_build(&d, n, g_ul, sizeof g_ul));
        done += n;
    } while (done < total);
}

/* A Send of total octets in DDP segments of at most seg (untagged, QN 0,
 * the message's MSN, MO advancing; RFC 5041 5.3). */
static void put_send(cs_scen *s, int dir, unsigned msn, size_t total, size_t seg)
{
    size_t done = 0;
    do {
        size_t n = total - done < seg ? total - done : seg;
        mpa_ddp d = cs_ul_untagged(MPA_RDMAP_SEND, MPA_QN_SEND, msn);
        d.hdr.mo = (uint32_t)done;
        d.hdr.last = done + n == total;
        cs_fpdu(s, dir, g_ul, cs_ul_build(&d, n, g_ul, sizeof g_ul));
        done += n;
    } while (done < total);
}

/* An RDMA Read: the Request from dir (QN 1, its MSN), the Response
 * from the peer into the sink buffer in segments of at most seg
 * (RFC 5040 4.4, 4.5). */
static void put_read(cs_scen *s, int dir, unsigned msn, uint32_t size, size_t seg)
{
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_READ_REQUEST, MPA_QN_READ_REQUEST, msn);
    d.u.rreq.sink_stag = 0x00cd0100u;
    d.u.rreq.sink_to = 0x7f5b00001000ull;
    d.u.rreq.size = size;
    d.u.rreq.src_stag = 0x00ef0200u;
    d.u.rreq.src_to = 0x7f6c00002000ull;
    cs_fpdu(s, dir, g_ul, cs_ul_build(&d, 0, g_ul, sizeof g_ul));
    size_t done = 0;
    do {
        size_t n = size - done < seg ? size - done : seg;
        mpa_ddp r = cs_ul_tagged(MPA_RDMAP_READ_RESPONSE, d.u.rreq.sink_stag, d.u.rreq.sink_to + done);
        r.hdr.last = done + n == size;
        cs_fpdu(s, !dir, g_ul, cs_ul_build(&r, n, g_ul, sizeof g_ul));
        done += n;
    } while (done < size);
}

static void put_term(cs_scen *s, int dir, unsigned code)
{
    cs_fpdu(s, dir, g_ul, cs_ul_term(g_ul, sizeof g_ul, MPA_TERM_LAYER_LLP, 0, code));
}

/*
 * A clean connection with realistic traffic: startup (RFC 5044 plain or
 * RFC 6581 enhanced with the RDMA Write RTR), CRC on, markers
 * Initiator->Responder when m0 and Responder->Initiator when m1; Sends
 * (one and several DDP segments), RDMA Writes (one 6000-octet FPDU and
 * one in segments), an RDMA Read, three small Sends packed in one
 * segment, then a few more Sends both ways and FINs.
 */
static void build_rich(cs_scen *s, int m0, int m1, int enh)
{
    unsigned msn0 = 1, msn1 = 1;
    if (enh) {
        cs_start_enh(s, cs_enh(cs_req(m1, 1), 1, 1, 1, 1, 16, 16), cs_enh(cs_rep(m0, 1), 1, 0, 1, 0, 16, 16));
        put_write(s, D0, 0, 0, 0, 1); /* the RTR: a zero-length RDMA Write */
    } else {
        cs_start_plain(s, m1, m0);
    }
    put_send(s, D0, msn0++, 64, 1024);
    put_send(s, D1, msn1++, 200, 1024);
    put_write(s, D0, 0x00ab1100u, 0x7f3a00010000ull, 6000, 6000);
    put_write(s, D0, 0x00ab1100u, 0x7f3a00020000ull, 4000, 1400);
    put_read(s, D0, 1, 2000, 1000);
    put_send(s, D1, msn1++, 10, 1024);
    put_send(s, D1, msn1++, 20, 1024);
    put_send(s, D1, msn1++, 30, 1024);
    cs_merge_last(s, 3);
    put_send(s, D0, msn0++, 4096, 1400);
    put_send(s, D1, msn1++, 3000, 3000);
    for (unsigned i = 0; i < 6; i++) {
        put_send(s, D0, msn0++, 100 + 150 * i, 2048);
        put_send(s, D1, msn1++, 180 + 97 * i, 2048);
    }
    put_write(s, D1, 0x00ab2200u, 0x7f3a00030000ull, 2500, 1200);
    cs_close_both(s);
}

/* RFC 6581 peer-to-peer with one RTR type (0 Send, 1 RDMA Write, 2 RDMA
 * Read): the Request offers all three, the Reply only that one; the read
 * RTR is answered by a zero-length Read Response. */
static void build_rtr(cs_scen *s, int type)
{
    unsigned msn0 = 1;
    cs_start_enh(s, cs_enh(cs_req(1, 1), 1, 1, 1, 1, 16, 16),
              cs_enh(cs_rep(1, 1), 1, type == 0, type == 1, type == 2, 16, 16));
    if (type == 0)
        put_send(s, D0, msn0++, 0, 1024);
    else if (type == 1)
        put_write(s, D0, 0, 0, 0, 1);
    else
        put_read(s, D0, 1, 0, 1);
    put_send(s, D1, 1, 256, 1024);
    put_send(s, D0, msn0++, 512, 1024);
    put_write(s, D1, 0x00ab3300u, 0x7f3a00040000ull, 1800, 1400);
    cs_close_both(s);
}

/* A TERMINATE with MPA error code 1..7 (RFC 5044 8, RFC 6581 8: Layer 2
 * LLP, EType 0) in a connection that is otherwise clean (what caused it
 * is not shown).  5, 6, 7 are enhanced-establishment codes: the
 * Initiator sends them instead of its RTR; 7 where Request and Reply
 * offer no common RTR type, 5 followed by a reset. */
static void build_term(cs_scen *s, unsigned code)
{
    if (code >= 5) {
        mpa_frame_enc q = code == 7 ? cs_enh(cs_req(1, 1), 1, 1, 0, 0, 16, 16) /* Send only */
                                    : cs_enh(cs_req(1, 1), 1, 1, 1, 1, 16, 16);
        mpa_frame_enc p = cs_enh(cs_rep(1, 1), 1, 0, 1, 0, 16, 16);  /* Write only */
        cs_start_enh(s, q, p);
        put_term(s, D0, code);
        if (code == 5)
            cs_end(s, D0, 1);
        else
            cs_close_both(s);
        return;
    }
    cs_start_plain(s, 1, 1);
    put_send(s, D0, 1, 128, 1024);
    put_send(s, D1, 1, 300, 1024);
    put_write(s, D0, 0x00ab4400u, 0x7f3a00050000ull, 900, 1400);
    put_term(s, code % 2 ? D1 : D0, code);
    cs_close_both(s);
}

/* Markers (both ways or none) and CRC; ten Sends each way of assorted
 * sizes; lose the 4th Send of the Initiator and, with markers, the 5th
 * of the Responder.  Enough follows each hole for a marker (or, without
 * markers, an FPDU whose CRC checks) to lock on again. */
static void build_loss(cs_scen *s, int markers)
{
    cs_start_plain(s, markers, markers);
    for (unsigned i = 0; i < 10; i++) {
        put_send(s, D0, i + 1, 150 + 61 * i, 4096);
        if (i == 3)
            cs_lose_last(s);
        put_send(s, D1, i + 1, 220 + 53 * i, 4096);
        if (markers && i == 4)
            cs_lose_last(s);
    }
    cs_close_both(s);
}

/* Twelve Sends each way; the capture starts at the 5th data segment
 * (the 3rd Send of the Initiator): no startup, no SYNs. */
static void build_mid(cs_scen *s, int markers)
{
    cs_start_plain(s, markers, markers);
    for (unsigned i = 0; i < 12; i++) {
        put_send(s, D0, i + 1, 90 + 77 * i, 4096);
        put_send(s, D1, i + 1, 130 + 59 * i, 4096);
    }
    cs_close_both(s);
    size_t data = 0;
    for (size_t i = 0; i < s->nch; i++)
        if (s->ch[i].kind == CS_DATA && ++data == 5) {
            s->start_chunk = i;
            break;
        }
    s->midstream = 1;
    /* what the user tells mpa-audit: only the port; framing unknown */
    s->ms_markers[0] = s->ms_markers[1] = MPA_TRI_UNKNOWN;
    s->ms_crc[0] = s->ms_crc[1] = MPA_TRI_UNKNOWN;
}

/* Markers off, CRC on; small FPDUs that a 160-octet snap length keeps
 * whole around two large ones it cuts. */
#define SNAPLEN_SMALL 160u
static void build_snap(cs_scen *s)
{
    cs_start_plain(s, 0, 0);
    put_send(s, D0, 1, 40, 4096);
    put_send(s, D1, 1, 40, 4096);
    put_send(s, D0, 2, 60, 4096);
    put_send(s, D0, 3, 1000, 4096);
    put_send(s, D0, 4, 1200, 4096);
    put_send(s, D0, 5, 50, 4096);
    put_send(s, D0, 6, 70, 4096);
    put_send(s, D0, 7, 30, 4096);
    put_send(s, D1, 2, 60, 4096);
    cs_close_both(s);
}

/* The harness' view of a capture whose packets were cut at snaplen:
 * each data chunk keeps what was captured, the rest becomes a hole. */
static void snap_view(cs_scen *v, const cs_scen *s, size_t keep)
{
    cs_init(v);
    memcpy(cs_reserve(v, s->len), s->buf, s->len);
    v->len = s->len;
    memcpy(v->isn, s->isn, sizeof v->isn);
    memcpy(v->emss, s->emss, sizeof v->emss);
    for (size_t i = 0; i < s->nch; i++) {
        cs_chunk ch = s->ch[i];
        if (ch.kind == CS_DATA && ch.len > keep) {
            cs_push_chunk(v, CS_DATA, ch.dir, ch.off, keep);
            cs_push_chunk(v, CS_LOST, ch.dir, ch.off + keep, ch.len - keep);
        } else {
            cs_push_chunk(v, ch.kind, ch.dir, ch.off, ch.len);
        }
    }
}

/* A plain HTTP/1.1 exchange (not MPA), as the octets two TCP endpoints
 * send. */
static void build_http(cs_scen *s)
{
    static const char req[] = "GET /index.html HTTP/1.1\r\nHost: www.example.com\r\n"
                              "User-Agent: mpa-capgen\r\nAccept: */*\r\n\r\n";
    char hdr[256];
    size_t body = 2400;
    int n = snprintf(hdr, sizeof hdr,
                     "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n\r\n",
                     body);
    cs_raw(s, D0, req, sizeof req - 1);
    uint8_t resp[4096];
    memcpy(resp, hdr, (size_t)n);
    for (size_t i = 0; i < body; i++)
        resp[(size_t)n + i] = (uint8_t)("abcdefghijklmnopqrstuvwxyz0123456789 \n"[i % 38]);
    size_t total = (size_t)n + body, first = 1448;
    cs_raw(s, D1, resp, first);
    cs_raw(s, D1, resp + first, total - first);
    cs_close_both(s);
}

/* ---- the captures --------------------------------------------------------- */

static void gen_table(void)
{
    for (size_t i = 0; i < cs_ncases; i++) {
        const cs_case *tc = &cs_cases[i];
        cs_scen s;
        cs_init(&s);
        tc->build(&s);
        netpath np = path_eth(4, 10, 20);
        conv c;
        /* The client port follows from the slug, not the table position, so
         * a new scenario does not change the others' captures. */
        uint32_t h = 2166136261u;
        for (const char *q = tc->slug; *q; q++)
            h = (h ^ (uint8_t)*q) * 16777619u;
        conv_scen(&c, &np, &s, (uint16_t)(40000 + h % 20000), SERVER_PORT, NULL);
        char file[128];
        snprintf(file, sizeof file, "scen-%s.pcap", tc->slug);
        if (write_one(file, CAPW_PCAP, &c) == 0) {
            char opts[64] = "-";
            if (!starts_with_key(&s))
                snprintf(opts, sizeof opts, "--port %u", SERVER_PORT);
            manifest(file, link_desc(CAPW_PCAP, &np, NULL), tc->expect, tc->name, opts);
            verify_scen(file, &s, tc->expect);
        }
        conv_free(&c);
        cs_free(&s);
    }
}

/* One scenario, one conversation, one file. */
static void one(const char *file, capw_format fmt, const netpath *np, cs_scen *s, const char *expect,
                const char *desc, const char *opts)
{
    conv c;
    conv_scen(&c, np, s, 40001, SERVER_PORT, NULL);
    if (write_one(file, fmt, &c) == 0) {
        manifest(file, link_desc(fmt, np, NULL), expect, desc, opts);
        verify_scen(file, s, expect);
    }
    conv_free(&c);
}

static void gen_clean(void)
{
    netpath np = path_eth(4, 10, 20);
    cs_scen s;

    cs_init(&s);
    build_rich(&s, 1, 1, 0);
    one("clean-markers-both.pcap", CAPW_PCAP, &np, &s, "",
        "clean RFC 5044 connection, markers and CRC both ways: Sends, RDMA Writes, a Read, packed FPDUs",
        NULL);
    cs_free(&s);

    cs_init(&s);
    build_rich(&s, 1, 0, 0);
    one("clean-markers-i2r.pcap", CAPW_PCAP, &np, &s, "",
        "clean RFC 5044 connection, markers Initiator->Responder only (M=1 in the Reply only), CRC on",
        NULL);
    cs_free(&s);

    cs_init(&s);
    build_rich(&s, 1, 1, 1);
    one("clean-enh-rich.pcap", CAPW_PCAP, &np, &s, "",
        "clean RFC 6581 peer-to-peer connection (write RTR), markers and CRC both ways, mixed traffic",
        NULL);
    cs_free(&s);

    static const char *const rtr_name[3] = {"send", "write", "read"};
    for (int t = 0; t < 3; t++) {
        char file[64], desc[160];
        snprintf(file, sizeof file, "clean-enh-rtr-%s.pcap", rtr_name[t]);
        snprintf(desc, sizeof desc,
                 "clean RFC 6581 peer-to-peer connection, the Reply offers only the %s RTR and the "
                 "Initiator sends it%s",
                 rtr_name[t], t == 2 ? " (answered by a zero-length Read Response)" : "");
        cs_init(&s);
        build_rtr(&s, t);
        one(file, CAPW_PCAP, &np, &s, "", desc, NULL);
        cs_free(&s);
    }

    /* TERMINATE codes 1..7: seven connections, one after the other. */
    cs_scen ts[7];
    conv tc[7];
    conv *cs[7];
    uint64_t t = T0_NS;
    for (unsigned k = 0; k < 7; k++) {
        cs_init(&ts[k]);
        build_term(&ts[k], k + 1);
        conv_scen(&tc[k], &np, &ts[k], (uint16_t)(40101 + k), SERVER_PORT, NULL);
        t = conv_times(&tc[k], t, STEP_NS) + 1000000u;
        cs[k] = &tc[k];
    }
    if (write_convs("term-codes.pcap", CAPW_PCAP, LINK_ETHERNET, 0, cs, 7) == 0) {
        manifest("term-codes.pcap", link_desc(CAPW_PCAP, &np, NULL), "",
                 "seven connections, each with one TERMINATE Layer 2 (LLP) EType 0 of MPA error code "
                 "1..7 in turn (client ports 40101..40107); codes 5-7 replace the RTR of an enhanced "
                 "startup, 5 is followed by a reset, 7 by no common RTR type",
                 NULL);
        for (unsigned k = 0; k < 7; k++)
            verify_scen("term-codes.pcap", &ts[k], "");
    }
    for (unsigned k = 0; k < 7; k++) {
        conv_free(&tc[k]);
        cs_free(&ts[k]);
    }

    /* Sequence wrap: the octets do not depend on the ISN (markers count
     * from the start of FPDU mode), so the rich connection is reused with
     * ISNs a few hundred octets below 2^32. */
    cs_init(&s);
    build_rich(&s, 1, 1, 1);
    {
        conv c;
        uint32_t isn[2] = {0xFFFFFE80u, 0xFFFFFD00u};
        conv_scen(&c, &np, &s, 40002, SERVER_PORT, isn);
        if (write_one("wrap-markers.pcap", CAPW_PCAP, &c) == 0) {
            manifest("wrap-markers.pcap", link_desc(CAPW_PCAP, &np, NULL), "",
                     "clean enhanced connection with markers both ways whose sequence numbers wrap "
                     "(ISNs 384 and 768 octets below 2^32): FPDUs and markers straddle the wrap",
                     NULL);
            memcpy(s.isn, isn, sizeof isn);
            verify_scen("wrap-markers.pcap", &s, "");
        }
        conv_free(&c);
    }
    cs_free(&s);
}

static void gen_loss_mid(void)
{
    netpath np = path_eth(4, 10, 20);
    cs_scen s;

    cs_init(&s);
    build_loss(&s, 1);
    one("loss-markers.pcap", CAPW_PCAP, &np, &s, "MPA-CAP-HOLE MPA-CAP-RESYNC",
        "clean connection, markers and CRC both ways; one segment of each direction was not captured "
        "(its peer still ACKs it): decoding resumes at the next marker",
        NULL);
    cs_free(&s);

    cs_init(&s);
    build_loss(&s, 0);
    one("loss-nomarkers.pcap", CAPW_PCAP, &np, &s, "MPA-CAP-HOLE MPA-CAP-RESYNC",
        "clean connection, CRC on, no markers; one Initiator segment was not captured: decoding resumes "
        "where ULPDU_Length, pad and CRC line up",
        NULL);
    cs_free(&s);

    char opts[32];
    snprintf(opts, sizeof opts, "--port %u", MIDSTREAM_PORT);
    for (int m = 1; m >= 0; m--) {
        cs_init(&s);
        build_mid(&s, m);
        conv c;
        conv_scen(&c, &np, &s, 40003, MIDSTREAM_PORT, NULL);
        const char *file = m ? "midstream-markers.pcap" : "midstream-nomarkers.pcap";
        if (write_one(file, CAPW_PCAP, &c) == 0) {
            manifest(file, link_desc(CAPW_PCAP, &np, NULL), "MPA-CAP-MIDSTREAM MPA-CAP-RESYNC",
                     m ? "clean connection with markers and CRC both ways captured from its 5th data "
                         "segment on (no SYNs, no startup frames); MPA on port 5445"
                       : "clean connection, CRC on, no markers, captured from its 5th data segment on "
                         "(no SYNs, no startup frames); MPA on port 5445",
                     opts);
            verify_scen(file, &s, "MPA-CAP-MIDSTREAM MPA-CAP-RESYNC");
        }
        conv_free(&c);
        cs_free(&s);
    }
}

static void gen_variants(void)
{
    netpath np = path_eth(4, 10, 20);
    cs_scen s;
    conv c;

    cs_init(&s);
    build_rich(&s, 1, 1, 1);

    conv_scen(&c, &np, &s, 40004, SERVER_PORT, NULL);
    if (conv_reorder(&c, D0, 2) == 0 && write_one("reorder.pcapng", CAPW_PCAPNG, &c) == 0) {
        manifest("reorder.pcapng", link_desc(CAPW_PCAPNG, &np, NULL), "",
                 "clean enhanced connection (markers, CRC) in which two adjacent Initiator segments "
                 "arrive swapped: TCP reassembly puts them back (comments mark them)",
                 NULL);
        verify_scen("reorder.pcapng", &s, "");
    }
    conv_free(&c);

    conv_scen(&c, &np, &s, 40005, SERVER_PORT, NULL);
    if (conv_retrans_reseg(&c, D0, 2) == 0 && conv_retrans_reseg(&c, D1, 1) == 0 &&
        write_one("retrans-reseg.pcapng", CAPW_PCAPNG, &c) == 0) {
        manifest("retrans-reseg.pcapng", link_desc(CAPW_PCAPNG, &np, NULL), "MPA-FPD-RETX-SEG",
                 "clean enhanced connection (markers, CRC); each direction retransmits octets it "
                 "already sent, cut at other boundaries (same octets): an MPA-aware sender keeps the "
                 "first boundaries (draft-03 7.3), and the retransmissions are not new segments for "
                 "MPA-FPD-ALIGN",
                 NULL);
        verify_scen("retrans-reseg.pcapng", &s, "MPA-FPD-RETX-SEG");
        classic_twin("retrans-reseg", &c, &np, "MPA-FPD-RETX-SEG");
    }
    conv_free(&c);

    conv_scen(&c, &np, &s, 40007, SERVER_PORT, NULL);
    if (conv_retrans_same(&c, D0, 2) == 0 && conv_retrans_same(&c, D1, 1) == 0 &&
        write_one("retrans-same.pcapng", CAPW_PCAPNG, &c) == 0) {
        manifest("retrans-same.pcapng", link_desc(CAPW_PCAPNG, &np, NULL), "",
                 "clean enhanced connection (markers, CRC); each direction retransmits one segment "
                 "as it first sent it (same boundaries, same octets): nothing to report (draft-03 7.3)",
                 NULL);
        verify_scen("retrans-same.pcapng", &s, "");
        classic_twin("retrans-same", &c, &np, "");
    }
    conv_free(&c);

    conv_scen(&c, &np, &s, 40006, SERVER_PORT, NULL);
    if (conv_overlap(&c, D1, 2) == 0 && write_one("overlap-conflict.pcapng", CAPW_PCAPNG, &c) == 0) {
        manifest("overlap-conflict.pcapng", link_desc(CAPW_PCAPNG, &np, NULL), "MPA-CAP-OVERLAP",
                 "clean enhanced connection (markers, CRC); the Responder retransmits one segment "
                 "with 4 octets changed: the first copy is right (the changed one would fail its CRC)",
                 NULL);
        verify_scen("overlap-conflict.pcapng", &s, "");
        classic_twin("overlap-conflict", &c, &np, "MPA-CAP-OVERLAP");
    }
    conv_free(&c);
    cs_free(&s);
}

/* The rich connection over one link/IP flavour. */
static void flavour(const char *file, capw_format fmt, netpath *np, int m0, int m1, int enh,
                    unsigned frag, int frag_small, const char *extra, const char *desc)
{
    cs_scen s;
    cs_init(&s);
    build_rich(&s, m0, m1, enh);
    conv c;
    conv_scen(&c, np, &s, 40010, SERVER_PORT, NULL);
    if (frag) {
        conv_fragment_big(&c, frag);
        if (frag_small) {
            /* the Request itself in 24-octet fragments (the TCP header
             * whole in the first), and one large segment's fragments
             * last first */
            conv_fragment_nth(&c, D0, 0, 24, 0);
            conv_fragment_nth(&c, D0, 3, frag, 1);
        }
    }
    if (write_one(file, fmt, &c) == 0) {
        manifest(file, link_desc(fmt, np, extra), "", desc, NULL);
        verify_scen(file, &s, "");
    }
    conv_free(&c);
    cs_free(&s);
}

static void gen_links(void)
{
    netpath np;

    np = path_eth(6, 10, 20);
    np.nvlan = 1;
    np.vlan_tpid[0] = 0x8100;
    np.vlan_id[0] = 100;
    flavour("vlan-ipv6.pcapng", CAPW_PCAPNG, &np, 1, 1, 1, 0, 0, NULL,
            "clean enhanced connection (markers, CRC) over IPv6 in 802.1Q VLAN 100; pcapng with "
            "nanosecond timestamps (if_tsresol 9)");

    np = path_eth(4, 10, 20);
    np.nvlan = 2;
    np.vlan_tpid[0] = 0x88A8;
    np.vlan_id[0] = 300;
    np.vlan_tpid[1] = 0x8100;
    np.vlan_id[1] = 100;
    flavour("qinq-ipv4.pcap", CAPW_PCAP, &np, 1, 1, 0, 0, 0, NULL,
            "clean connection (markers, CRC) over IPv4 with QinQ tags: 802.1ad S-tag 300, 802.1Q "
            "C-tag 100");

    net_path_init(&np, LINK_LINUX_SLL, 4, 10, 20);
    flavour("sll-ipv4.pcap", CAPW_PCAP, &np, 1, 1, 1, 0, 0, NULL,
            "clean enhanced connection (markers, CRC), Linux cooked capture v1 (LINKTYPE_LINUX_SLL "
            "113), taken on the Initiator's host");

    net_path_init(&np, LINK_LINUX_SLL2, 6, 10, 20);
    flavour("sll2-ipv6.pcap", CAPW_PCAP, &np, 1, 0, 0, 0, 0, NULL,
            "clean connection (markers Initiator->Responder only, CRC) over IPv6, Linux cooked capture "
            "v2 (LINKTYPE_LINUX_SLL2 276)");

    net_path_init(&np, LINK_RAW, 4, 10, 20);
    flavour("raw-ipv4.pcap", CAPW_PCAP, &np, 1, 1, 1, 0, 0, NULL,
            "clean enhanced connection (markers, CRC), raw IP link type (LINKTYPE_RAW 101), IPv4");

    net_path_init(&np, LINK_RAW, 6, 10, 20);
    flavour("raw-ipv6.pcapng", CAPW_PCAPNG, &np, 0, 0, 1, 0, 0, NULL,
            "clean enhanced connection (CRC, no markers), raw IP link type (LINKTYPE_RAW 101), IPv6");

    net_path_init(&np, LINK_NULL, 4, 10, 20);
    flavour("null-ipv4.pcap", CAPW_PCAP, &np, 1, 1, 0, 0, 0, NULL,
            "clean connection (markers, CRC), BSD loopback (LINKTYPE_NULL 0, address family 2 "
            "little-endian)");

    np = path_eth(6, 10, 20);
    np.v6_ext = 1;
    flavour("ipv6-exthdr.pcap", CAPW_PCAP, &np, 1, 1, 1, 0, 0, NULL,
            "clean enhanced connection (markers, CRC) over IPv6 with a Hop-by-Hop (8 octets) and a "
            "Destination Options header (16 octets) before every TCP header");

    np = path_eth(4, 10, 20);
    flavour("ipv4-frag.pcap", CAPW_PCAP, &np, 1, 1, 1, 1480, 1, "fragments",
            "clean enhanced connection (markers, CRC) over IPv4: segments over 1480 octets are sent "
            "in IP fragments (MTU 1500), the MPA Request in 24-octet fragments, one segment's "
            "fragments last first");

    np = path_eth(6, 10, 20);
    flavour("ipv6-frag.pcapng", CAPW_PCAPNG, &np, 1, 1, 1, 1232, 1, "fragments",
            "clean enhanced connection (markers, CRC) over IPv6: segments over 1232 octets travel in "
            "Fragment headers (MTU 1280), the MPA Request in 24-octet fragments, one segment's "
            "fragments last first");

    np = path_eth(6, 10, 20);
    np.v6_ext = 1;
    flavour("ipv6-exthdr-frag.pcapng", CAPW_PCAPNG, &np, 1, 1, 0, 1224, 0, "fragments",
            "clean connection (markers, CRC) over IPv6, header chain Hop-by-Hop, Fragment, "
            "Destination Options, TCP (the last two in the fragmentable part) for large segments");
}

static void gen_reuse_mixed(void)
{
    /* The same 4-tuple twice: a clean enhanced connection, then (after
     * TIME-WAIT, ISNs higher, RFC 9293 3.4.1) one with a bad CRC. */
    netpath np = path_eth(4, 10, 20);
    cs_scen a, b;
    cs_init(&a);
    build_rich(&a, 1, 1, 1);
    cs_init(&b);
    cs_case_build("crc-bad", &b);
    conv ca, cb;
    uint32_t isn_a[2] = {0x10000000u, 0x20000000u}, isn_b[2] = {0x18000000u, 0x28000000u};
    conv_scen(&ca, &np, &a, 40020, SERVER_PORT, isn_a);
    conv_scen(&cb, &np, &b, 40020, SERVER_PORT, isn_b);
    uint64_t t = conv_times(&ca, T0_NS, STEP_NS);
    conv_times(&cb, t + 2000000000ull, STEP_NS);
    conv *cs[2] = {&ca, &cb};
    if (write_convs("reuse-4tuple.pcap", CAPW_PCAP, LINK_ETHERNET, 0, cs, 2) == 0) {
        manifest("reuse-4tuple.pcap", link_desc(CAPW_PCAP, &np, NULL), "MPA-CRC-VALID",
                 "two connections on the same 4-tuple (192.0.2.10:40020 -> 192.0.2.20:18515), 2 s "
                 "apart: a clean enhanced one, then one whose Initiator sends a bad CRC (only the "
                 "second connection has the finding)",
                 NULL);
        memcpy(a.isn, isn_a, sizeof isn_a);
        memcpy(b.isn, isn_b, sizeof isn_b);
        verify_scen("reuse-4tuple.pcap", &a, "");
        verify_scen("reuse-4tuple.pcap", &b, "MPA-CRC-VALID");
    }
    conv_free(&ca);
    conv_free(&cb);
    cs_free(&a);
    cs_free(&b);

    /* MPA on port 445 among other traffic. */
    netpath pm = path_eth(4, 10, 20), ph = path_eth(4, 11, 80), pd = path_eth(4, 10, 53);
    cs_scen m, h;
    cs_init(&m);
    build_rich(&m, 1, 1, 1);
    cs_init(&h);
    build_http(&h);
    conv cm, chh, cn;
    conv_scen(&cm, &pm, &m, 49700, MIXED_PORT, NULL);
    {
        uint32_t isn_h[2] = {0x5e2a9c01u, 0x0badc0deu};
        conv_scen(&chh, &ph, &h, 51000, 80, isn_h);
    }
    conv_init(&cn, &pd);
    conv_arp(&cn, 0, 1);
    conv_arp(&cn, 1, 2);
    for (unsigned q = 0; q < 4; q++) {
        /* a DNS query for www.example.com (RFC 1035 4.1) and its answer */
        static const uint8_t qname[] = {3, 'w', 'w', 'w', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0};
        uint8_t msg[128];
        size_t n = 0;
        uint16_t id = (uint16_t)(0x3a00 + q);
        msg[n++] = (uint8_t)(id >> 8);
        msg[n++] = (uint8_t)id;
        msg[n++] = 0x01; /* RD */
        msg[n++] = 0x00;
        static const uint8_t counts_q[8] = {0, 1, 0, 0, 0, 0, 0, 0};
        memcpy(msg + n, counts_q, 8);
        n += 8;
        memcpy(msg + n, qname, sizeof qname);
        n += sizeof qname;
        static const uint8_t tail[4] = {0, 1, 0, 1}; /* type A, class IN */
        memcpy(msg + n, tail, 4);
        n += 4;
        conv_udp(&cn, 0, (uint16_t)(53000 + q), 53, msg, n, NULL);
        msg[2] = 0x81; /* QR, RD */
        msg[3] = 0x80; /* RA */
        msg[7] = 1;    /* one answer */
        static const uint8_t ans[16] = {0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0x0e, 0x10, 0, 4, 192, 0, 2, 80};
        memcpy(msg + n, ans, sizeof ans);
        n += sizeof ans;
        conv_udp(&cn, 1, 53, (uint16_t)(53000 + q), msg, n, NULL);
        /* and a datagram of nothing in particular */
        uint8_t noise[64];
        for (size_t i = 0; i < sizeof noise; i++)
            noise[i] = (uint8_t)(i * 37 + q * 11);
        conv_udp(&cn, 0, 40404, 9999, noise, 16 + 12 * q, NULL);
    }
    uint64_t end = conv_times(&cm, T0_NS, STEP_NS);
    conv_times(&chh, T0_NS + 3000, 23000);
    for (size_t i = 0; i < cn.n; i++)
        cn.p[i].ts = T0_NS + 1000 + i * ((end - T0_NS) / (cn.n + 1));
    conv *ms[3] = {&cm, &chh, &cn};
    if (write_convs("mixed-445.pcap", CAPW_PCAP, LINK_ETHERNET, 0, ms, 3) == 0) {
        manifest("mixed-445.pcap", link_desc(CAPW_PCAP, &pm, NULL), "",
                 "a clean enhanced MPA connection on port 445 interleaved with an HTTP exchange on "
                 "port 80, DNS and other UDP datagrams and ARP: only the MPA connection is audited, "
                 "nothing to report",
                 NULL);
        verify_scen("mixed-445.pcap", &m, "");
    }
    conv_free(&cm);
    conv_free(&chh);
    conv_free(&cn);
    cs_free(&m);
    cs_free(&h);
}

/*
 * The README's demo: a morning at an interop event, four devices against
 * a reference Initiator (192.0.2.10), interleaved in time.
 *   .20  clean RFC 6581 peer-to-peer, markers and CRC, RDMA Write RTR;
 *   .30  plain RFC 5044; its FPDU carries a bad CRC, the Initiator
 *        answers with TERMINATE LLP/MPA code 2 (CRC error) and closes;
 *   .40  enhanced, but its Reply does not echo A and grants an ORD above
 *        the Initiator's IRD;
 *   .50  takes the Request and closes without replying (it should reply
 *        R=1).
 */
static void build_demo_crc(cs_scen *s)
{
    cs_start_plain(s, 1, 1);
    put_send(s, D0, 1, 256, 1024);
    put_send(s, D1, 1, 512, 1024);
    mpa_fpdu_faults fl;
    memset(&fl, 0, sizeof fl);
    fl.len_override = -1;
    fl.crc_mode = 2;
    fl.crc_xor = 0x00010000u;
    cs_fpdu_f(s, D1, g_ul, cs_ul_write(g_ul, sizeof g_ul, 0x00cc0100u, 0x7f3a00060000ull, 1200), &fl);
    put_term(s, D0, 2);
    cs_close_both(s);
}

static void build_demo_enh_bad(cs_scen *s)
{
    cs_start_enh(s, cs_enh(cs_req(1, 1), 1, 1, 1, 1, 8, 8), cs_enh(cs_rep(1, 1), 0, 0, 0, 0, 16, 32));
    put_send(s, D0, 1, 128, 1024);
    put_send(s, D1, 1, 128, 1024);
    cs_close_both(s);
}

static void build_demo_silent(cs_scen *s)
{
    mpa_frame_enc q = cs_req(1, 1);
    cs_frame(s, D0, &q);
    cs_end(s, D1, 0);
    cs_end(s, D0, 0);
}

static void gen_demo(void)
{
    static void (*const build[4])(cs_scen *) = {NULL, build_demo_crc, build_demo_enh_bad, build_demo_silent};
    netpath np[4];
    cs_scen sc[4];
    conv cv[4];
    conv *cs[4];
    for (int i = 0; i < 4; i++) {
        np[i] = path_eth(4, 10, 20 + 10 * (unsigned)i);
        cs_init(&sc[i]);
        if (i == 0)
            build_rich(&sc[0], 1, 1, 1);
        else
            build[i](&sc[i]);
        conv_scen(&cv[i], &np[i], &sc[i], (uint16_t)(41000 + i), SERVER_PORT, NULL);
        conv_times(&cv[i], T0_NS + (uint64_t)i * 137000ull, STEP_NS * 3);
        cs[i] = &cv[i];
    }
    if (write_convs("interop-demo.pcapng", CAPW_PCAPNG, LINK_ETHERNET, 0, cs, 4) == 0) {
        manifest("interop-demo.pcapng", link_desc(CAPW_PCAPNG, &np[0], NULL),
                 "MPA-CRC-VALID MPA-ENH-A-ECHO MPA-ENH-ORD-LE-IRD MPA-STA-REJECT",
                 "the README's demo: four devices against one Initiator, interleaved: a clean RFC 6581 "
                 "peer-to-peer connection; a bad CRC answered by TERMINATE code 2; a Reply that does not "
                 "echo A and grants ORD 32 over IRD 8; a Responder that closes without replying",
                 NULL);
        verify_scen("interop-demo.pcapng", &sc[0], "");
        verify_scen("interop-demo.pcapng", &sc[1], "MPA-CRC-VALID");
        verify_scen("interop-demo.pcapng", &sc[2], "MPA-ENH-A-ECHO MPA-ENH-ORD-LE-IRD");
        verify_scen("interop-demo.pcapng", &sc[3], "MPA-STA-REJECT");
    }
    for (int i = 0; i < 4; i++) {
        conv_free(&cv[i]);
        cs_free(&sc[i]);
    }
}

/* ---- upper layers: what Wireshark's own dissectors take from DDP/RDMAP ---- */

/* A Send (untagged, QN 0, last) whose payload is the n octets at p. */
static void put_send_bytes(cs_scen *s, int dir, unsigned msn, const uint8_t *p, size_t n)
{
    mpa_ddp d = cs_ul_untagged(MPA_RDMAP_SEND, MPA_QN_SEND, msn);
    size_t w = cs_ul_build(&d, 0, g_ul, sizeof g_ul);
    memcpy(g_ul + w, p, n);
    cs_fpdu(s, dir, g_ul, w + n);
}

/* SMB Direct (MS-SMBD 2.2): the Negotiate Request and Response, then one
 * Data Transfer Message from the client carrying an SMB2 NEGOTIATE
 * Request (MS-SMB2 2.2.3), each a Send. */
static void build_smbd(cs_scen *s)
{
    uint8_t q[20], r[32], m[24 + 64 + 38];
    memset(q, 0, sizeof q);
    put_le16(q, 0x0100);      /* MinVersion */
    put_le16(q + 2, 0x0100);  /* MaxVersion */
    put_le16(q + 6, 255);     /* CreditsRequested */
    put_le32(q + 8, 1364);    /* PreferredSendSize */
    put_le32(q + 12, 8192);   /* MaxReceiveSize */
    put_le32(q + 16, 1048576); /* MaxFragmentedSize */
    memset(r, 0, sizeof r);
    put_le16(r, 0x0100);
    put_le16(r + 2, 0x0100);
    put_le16(r + 4, 0x0100);  /* NegotiatedVersion */
    put_le16(r + 8, 255);     /* CreditsRequested */
    put_le16(r + 10, 255);    /* CreditsGranted */
    put_le32(r + 12, 0);      /* Status: success */
    put_le32(r + 16, 1048576); /* MaxReadWriteSize */
    put_le32(r + 20, 1364);
    put_le32(r + 24, 8192);
    put_le32(r + 28, 1048576);
    memset(m, 0, sizeof m);
    put_le16(m, 255);         /* CreditsRequested */
    put_le16(m + 2, 1);       /* CreditsGranted */
    put_le32(m + 12, 24);     /* DataOffset */
    put_le32(m + 16, 64 + 38); /* DataLength */
    uint8_t *h = m + 24;  /* SMB2 header */
    h[0] = 0xfe, h[1] = 'S', h[2] = 'M', h[3] = 'B';
    put_le16(h + 4, 64);      /* StructureSize */
    put_le16(h + 12, 0);      /* Command: NEGOTIATE */
    put_le16(h + 14, 1);      /* CreditRequest */
    uint8_t *b = h + 64;  /* NEGOTIATE Request */
    put_le16(b, 36);          /* StructureSize */
    put_le16(b + 2, 1);       /* DialectCount */
    put_le16(b + 4, 1);       /* SecurityMode: signing enabled */
    for (int i = 0; i < 16; i++)
        b[12 + i] = (uint8_t)(0x11 * (i + 1)); /* ClientGuid */
    put_le16(b + 36, 0x0300); /* SMB 3.0 */
    cs_start_plain(s, 0, 0);
    put_send_bytes(s, D0, 1, q, sizeof q);
    put_send_bytes(s, D1, 1, r, sizeof r);
    put_send_bytes(s, D0, 2, m, sizeof m);
    cs_close_both(s);
}

/* RPC-over-RDMA version 1 (RFC 8166 4.2): an RDMA_MSG with no chunks
 * carrying an NFSv3 NULL call (RFC 5531 9, RFC 1813 3.3.0) and its reply. */
static void build_rpcrdma(cs_scen *s)
{
    uint8_t q[28 + 40], r[28 + 24];
    memset(q, 0, sizeof q);
    memset(r, 0, sizeof r);
    for (int k = 0; k < 2; k++) {
        uint8_t *p = k ? r : q;
        put_be32(p, 0x5eed0001u); /* XID */
        put_be32(p + 4, 1);       /* version 1 */
        put_be32(p + 8, 32);      /* credits */
        put_be32(p + 12, 0);      /* RDMA_MSG; read list, write list, reply chunk absent */
        put_be32(p + 28, 0x5eed0001u); /* the RPC message: XID */
        put_be32(p + 32, (uint32_t)k); /* CALL 0, REPLY 1 */
    }
    put_be32(q + 36, 2);      /* RPC version */
    put_be32(q + 40, 100003); /* NFS */
    put_be32(q + 44, 3);
    put_be32(q + 48, 0);      /* NULL; AUTH_NONE credential and verifier */
    /* reply: MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS (all zero) */
    cs_start_plain(s, 0, 0);
    put_send_bytes(s, D0, 1, q, sizeof q);
    put_send_bytes(s, D1, 1, r, sizeof r);
    cs_close_both(s);
}

/* One scenario on a given server port. */
static void one_port(const char *file, cs_scen *s, uint16_t port, const char *desc)
{
    netpath np = path_eth(4, 10, 20);
    conv c;
    conv_scen(&c, &np, s, 40001, port, NULL);
    if (write_one(file, CAPW_PCAP, &c) == 0) {
        manifest(file, link_desc(CAPW_PCAP, &np, NULL), "", desc, NULL);
        verify_scen(file, s, "");
    }
    conv_free(&c);
}

static void gen_ulp(void)
{
    cs_scen s;
    cs_init(&s);
    build_smbd(&s);
    one_port("ulp-smb-direct.pcap", &s, 445,
             "SMB Direct on port 445: Negotiate Request and Response, a Data Transfer Message with an SMB2 "
             "NEGOTIATE (MS-SMBD 2.2)");
    cs_free(&s);
    cs_init(&s);
    build_rpcrdma(&s);
    one_port("ulp-rpcrdma.pcap", &s, 20049,
             "RPC-over-RDMA version 1 on port 20049: an RDMA_MSG with an NFSv3 NULL call and its reply "
             "(RFC 8166)");
    cs_free(&s);
}

/* Reads a whole (small) file. */
static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            uint8_t *q = realloc(buf, cap);
            if (!q) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = q;
        }
        size_t k = fread(buf + n, 1, cap - n, f);
        n += k;
        if (k == 0)
            break;
    }
    fclose(f);
    *len = n;
    return buf;
}

static void gen_bad(void)
{
    netpath np = path_eth(4, 10, 20);
    cs_scen s;
    conv c;

    /* Cut in the middle of the last record (the final ACK, inside its
     * TCP header): the records before it are whole. */
    cs_init(&s);
    cs_case_build("crc-bad", &s);
    conv_scen(&c, &np, &s, 40030, SERVER_PORT, NULL);
    if (write_one("bad-cut.pcap", CAPW_PCAP, &c) == 0) {
        size_t len = 0;
        uint8_t *buf = slurp(path_of("bad-cut.pcap"), &len);
        size_t off = 24, last = 0, nrec = 0;
        while (buf && off + 16 <= len) {
            last = off;
            off += 16 + get_le32(buf + off + 8);
            nrec++;
        }
        free(buf);
        if (!buf || nrec < 2 || truncate(path_of("bad-cut.pcap"), (off_t)(last + 16 + 14 + 20 + 8)) != 0) {
            io_error("bad-cut.pcap");
        } else {
            char desc[256];
            snprintf(desc, sizeof desc,
                     "the bad-CRC scenario with the file cut inside record %zu of %zu (the final "
                     "ACK, 8 octets into its TCP header): the %zu packets before it are audited, "
                     "the cut is reported",
                     nrec, nrec, nrec - 1);
            manifest("bad-cut.pcap", link_desc(CAPW_PCAP, &np, "cut"), "MPA-CAP-TRUNCATED MPA-CRC-VALID",
                     desc, NULL);
            verify_scen("bad-cut.pcap", &s, "MPA-CRC-VALID");
        }
    }
    conv_free(&c);
    cs_free(&s);

    /* A good capture whose magic number is not one. */
    cs_init(&s);
    cs_case_build("clean-plain", &s);
    conv_scen(&c, &np, &s, 40031, SERVER_PORT, NULL);
    if (write_one("bad-magic.pcap", CAPW_PCAP, &c) == 0) {
        FILE *f = fopen(path_of("bad-magic.pcap"), "r+b");
        if (!f || fwrite("MPA!", 1, 4, f) != 4 || fclose(f) != 0)
            io_error("bad-magic.pcap");
        else
            manifest("bad-magic.pcap", "pcap (bad magic)", "",
                     "a clean capture whose first 4 octets (the magic number) read \"MPA!\": not a "
                     "capture file; mpa-audit must refuse it with an error",
                     NULL);
    }
    conv_free(&c);
    cs_free(&s);

    FILE *f = fopen(path_of("bad-empty.pcap"), "wb");
    if (!f || fclose(f) != 0)
        io_error("bad-empty.pcap");
    else
        manifest("bad-empty.pcap", "(empty)", "",
                 "an empty file (0 octets): no file header; mpa-audit must refuse it with an error",
                 NULL);

    /* Small snap length: the large segments lose their tail. */
    cs_init(&s);
    build_snap(&s);
    conv_scen(&c, &np, &s, 40032, SERVER_PORT, NULL);
    conv_times(&c, T0_NS, STEP_NS);
    conv *cs[1] = {&c};
    if (write_convs("bad-snaplen.pcap", CAPW_PCAP, LINK_ETHERNET, SNAPLEN_SMALL, cs, 1) == 0) {
        char extra[32];
        snprintf(extra, sizeof extra, "snaplen %u", SNAPLEN_SMALL);
        manifest("bad-snaplen.pcap", link_desc(CAPW_PCAP, &np, extra),
                 "MPA-CAP-HOLE MPA-CAP-RESYNC MPA-CAP-TRUNCATED",
                 "clean connection (CRC, no markers) captured with snaplen 160: two large Initiator "
                 "segments are cut (their tails are holes), the small FPDUs after them lock on again",
                 NULL);
        cs_scen v;
        snap_view(&v, &s, SNAPLEN_SMALL - 14 - 20 - 20);
        verify_scen("bad-snaplen.pcap", &v, "MPA-CAP-HOLE MPA-CAP-RESYNC");
        cs_free(&v);
    }
    conv_free(&c);
    cs_free(&s);
}

int gen_reference(const char *outdir, int verify)
{
    g_outdir = outdir;
    g_verify = verify;
    g_err = g_diff = 0;
    g_files = 0;
    char man[4096];
    snprintf(man, sizeof man, "%s/MANIFEST.tsv", outdir);
    g_man = fopen(man, "w");
    if (!g_man) {
        fprintf(stderr, "mpa-capgen: %s: %s\n", man, strerror(errno));
        return 2;
    }
    gen_table();
    gen_clean();
    gen_loss_mid();
    gen_variants();
    gen_links();
    gen_reuse_mixed();
    gen_demo();
    gen_ulp();
    gen_bad();
    if (fclose(g_man) != 0) {
        fprintf(stderr, "mpa-capgen: %s: %s\n", man, strerror(errno));
        g_err = 1;
    }
    fprintf(stderr, "mpa-capgen: %u captures and MANIFEST.tsv in %s%s\n", g_files, outdir,
            g_err ? " (with errors)" : "");
    if (g_err)
        return 2;
    return g_diff ? 1 : 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the capture lost is never blamed on the device: a generated sweep.
 *
 * For every reference capture of a manifest (captures/MANIFEST.tsv: file,
 * link, ids, description, mpa-audit options), the auditor runs once on
 * the capture as it is and then on variants of it: each of the first six
 * packets that carry TCP payload cut to a snap length of 20, 40, 54, 60,
 * 64 and 100 octets (the captured length shrinks, the original length
 * stays, as a capture with that snap length records it), and each of
 * them left out.  A variant may add capture notes (MPA-CAP-*) and must
 * not add any finding about a device: the sender's TCP sequence and the
 * peer's acknowledgements still show that the lost octets were sent.
 *
 *   sweep MANIFEST CAPTURE-DIR [-v]
 * Prints each variant that adds a device finding, and a summary line;
 * exit 1 when there is one, 2 on unusable input.
 */
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "pkt.h"

#define DATA_PACKETS 6

static const uint32_t snaps[] = {20, 40, 54, 60, 64, 100};

typedef struct packet {
    uint64_t ts;
    uint32_t caplen, len;
    uint8_t *data;
} packet;

typedef struct capture {
    int linktype;
    packet *p;
    size_t n;
} capture;

/* The finding ids a run produced: device findings and capture notes
 * apart. */
typedef struct idset {
    uint8_t seen[MPA_F__COUNT];
    int detail; /* print every finding (SWEEP_DETAIL in the environment) */
} idset;

static int is_capture_note(mpa_finding_id id) { return strncmp(mpa_rule_get(id)->id, "MPA-CAP-", 8) == 0; }

static void on_finding(void *user, const audit_conn *c, const audit_finding *f)
{
    idset *ids = user;
    ids->seen[f->id] = 1;
    if (ids->detail)
        printf("    conn %u frame %llu dir %d off %lld %s: %s\n", c ? c->id : 0, (unsigned long long)f->frame, f->dir,
               f->off == UINT64_MAX ? -1ll : (long long)f->off, f->rule->id, f->msg);
}

static int load(const char *path, capture *cap)
{
    char err[PCAP_ERRBUF_SIZE];
    pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
    if (!p)
        return -1; /* the manifest's broken files (bad-*): nothing to cut */
    int dlt = pcap_datalink(p);
    cap->linktype = dlt == 12 || dlt == 14 ? 101 : dlt;
    cap->p = NULL;
    cap->n = 0;
    size_t capn = 0;
    struct pcap_pkthdr *h;
    const u_char *d;
    while (pcap_next_ex(p, &h, &d) == 1) {
        if (cap->n == capn) {
            capn = capn ? capn * 2 : 64;
            cap->p = realloc(cap->p, capn * sizeof *cap->p);
            if (!cap->p)
                abort();
        }
        packet *k = &cap->p[cap->n++];
        k->ts = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;
        k->caplen = h->caplen;
        k->len = h->len;
        k->data = malloc(h->caplen ? h->caplen : 1);
        if (!k->data)
            abort();
        memcpy(k->data, d, h->caplen);
    }
    pcap_close(p);
    return 0;
}

static void unload(capture *cap)
{
    for (size_t i = 0; i < cap->n; i++)
        free(cap->p[i].data);
    free(cap->p);
}

/* One run of the auditor: packet skip left out (SIZE_MAX: none), packet
 * cut cut to snap octets. */
static void run(const capture *cap, const audit_opts *o, size_t skip, size_t cut, uint32_t snap, idset *ids)
{
    memset(ids, 0, sizeof *ids);
    ids->detail = getenv("SWEEP_DETAIL") && skip == SIZE_MAX && cut == SIZE_MAX ? 0 : getenv("SWEEP_DETAIL") != NULL;
    audit_out out = {ids, on_finding, NULL, NULL, NULL};
    audit *a = audit_new(o, &out);
    if (!a)
        abort();
    audit_begin_file(a, "sweep", cap->linktype);
    for (size_t i = 0; i < cap->n; i++) {
        const packet *k = &cap->p[i];
        if (i == skip)
            continue;
        uint32_t caplen = i == cut && snap < k->caplen ? snap : k->caplen;
        audit_packet(a, k->ts, k->data, caplen, k->len);
    }
    audit_finish(a);
    audit_free(a);
}

static int parse_opts(const char *s, audit_opts *o)
{
    audit_opts_default(o);
    if (!strcmp(s, "-"))
        return 0;
    unsigned port;
    if (sscanf(s, "--port %u", &port) == 1 && port && port < 65536 && !strchr(s, ',')) {
        o->ports[o->nports++] = (uint16_t)port;
        return 0;
    }
    fprintf(stderr, "sweep: mpa-audit options \"%s\" are not understood here\n", s);
    return -1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: sweep MANIFEST CAPTURE-DIR [-v]\n");
        return 2;
    }
    int verbose = argc > 3 && !strcmp(argv[3], "-v");
    FILE *m = fopen(argv[1], "r");
    if (!m) {
        perror(argv[1]);
        return 2;
    }
    char line[4096];
    unsigned captures = 0, variants = 0, bad = 0;
    while (fgets(line, sizeof line, m)) {
        line[strcspn(line, "\n")] = 0;
        char *col[5] = {0};
        char *save = NULL;
        int k = 0;
        for (char *t = strtok_r(line, "\t", &save); t && k < 5; t = strtok_r(NULL, "\t", &save))
            col[k++] = t;
        if (k < 5)
            continue;
        audit_opts o;
        if (parse_opts(col[4], &o))
            return 2;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", argv[2], col[0]);
        capture cap;
        if (load(path, &cap))
            continue; /* not a capture libpcap reads (the bad-* files): nothing to cut */
        captures++;
        idset base;
        run(&cap, &o, SIZE_MAX, SIZE_MAX, 0, &base);
        unsigned data_seen = 0;
        for (size_t i = 0; i < cap.n && data_seen < DATA_PACKETS; i++) {
            pkt pk;
            if (pkt_parse(cap.linktype, cap.p[i].data, cap.p[i].caplen, cap.p[i].len, &pk) != PKT_OK ||
                !pk.tcp.payload_len)
                continue;
            data_seen++;
            for (size_t v = 0; v <= sizeof snaps / sizeof snaps[0]; v++) {
                int removed = v == sizeof snaps / sizeof snaps[0];
                if (!removed && snaps[v] >= cap.p[i].caplen)
                    continue;
                idset var;
                run(&cap, &o, removed ? i : SIZE_MAX, removed ? SIZE_MAX : i, removed ? 0 : snaps[v], &var);
                variants++;
                char extra[1024] = "";
                size_t n = 0;
                for (unsigned id = 0; id < MPA_F__COUNT; id++)
                    if (var.seen[id] && !base.seen[id] && !is_capture_note((mpa_finding_id)id) && n < sizeof extra)
                        n += (size_t)snprintf(extra + n, sizeof extra - n, " %s", mpa_rule_get((mpa_finding_id)id)->id);
                if (n) {
                    bad++;
                    printf("sweep: %s frame %zu %s%.0u:%s\n", col[0], i + 1, removed ? "removed" : "cut to ",
                           removed ? 0 : snaps[v], extra);
                } else if (verbose) {
                    printf("sweep: %s frame %zu %s: ok\n", col[0], i + 1, removed ? "removed" : "cut");
                }
            }
        }
        unload(&cap);
    }
    fclose(m);
    printf("sweep: %u captures, %u variants, %u add a finding about a device\n", captures, variants, bad);
    return bad ? 1 : 0;
}

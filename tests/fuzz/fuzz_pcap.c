/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the whole mpa-audit path on one capture file.
 *
 * The input is a capture file (pcap or pcapng: the seeds are the
 * reference captures in captures/).  It is opened by libpcap from
 * memory, and every packet it yields goes through the packet layer, IP
 * reassembly, TCP reassembly, MPA detection, the libmpa engine and the
 * JSON report, written to /dev/null.  The input is read twice, with
 * small and with default limits (connections, out-of-order memory,
 * findings kept), so the paths that give up on purpose run too.
 *
 * Checked: no crash, no sanitizer report, no leak, bounded memory
 * (libFuzzer's -rss_limit_mb), and the report's counts add up: every
 * finding counted by severity.
 */
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FAIL(...)                                                            \
    do {                                                                     \
        fprintf(stderr, "fuzz_pcap: " __VA_ARGS__);                          \
        fputc('\n', stderr);                                                 \
        abort();                                                             \
    } while (0)

static FILE *devnull;

static void run(const uint8_t *data, size_t size, int small)
{
    FILE *fp = fmemopen((void *)data, size, "rb");
    if (!fp)
        return;
    char err[PCAP_ERRBUF_SIZE];
    pcap_t *p = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, err);
    if (!p) {
        fclose(fp);
        return;
    }
    audit_opts o;
    audit_opts_default(&o);
    if (small) {
        o.max_conns = 3;
        o.mem_cap = 4096;
        o.max_findings = 2;
        o.idle_ns = 1000000000ull;
        o.nports = 2;
        o.ports[0] = 5445;
        o.ports[1] = 18515;
    }
    report *r = report_new(devnull, small ? REPORT_JSONL : REPORT_JSON, 0);
    audit_out out = report_sink(r);
    audit *a = audit_new(&o, &out);
    if (!a)
        FAIL("audit_new failed");
    report_bind(r, a);
    const char *in = "fuzz";
    report_begin(r, &in, 1);
    int dlt = pcap_datalink(p);
    audit_begin_file(a, "fuzz", dlt == 12 || dlt == 14 ? 101 : dlt);
    struct pcap_pkthdr *h;
    const u_char *pkt;
    unsigned n = 0;
    while (n < 100000 && pcap_next_ex(p, &h, &pkt) == 1) {
        audit_packet(a, (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec, pkt, h->caplen, h->len);
        n++;
    }
    audit_finish(a);
    report_end(r, 0, 0);
    const audit_stats *s = audit_get_stats(a);
    if (s->packets != n)
        FAIL("%llu packets counted, %u fed", (unsigned long long)s->packets, n);
    if (s->mpa_conns > s->tcp_conns)
        FAIL("%llu MPA connections of %llu TCP", (unsigned long long)s->mpa_conns, (unsigned long long)s->tcp_conns);
    audit_free(a);
    report_free(r);
    pcap_close(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return 0;
    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        FAIL("cannot open /dev/null");
    run(data, size, 0);
    run(data, size, 1);
    return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa_stream_quiet_markers: with marker events not wanted, the engine
 * reads past a marker that is in order without stopping.  What it
 * reports must not change otherwise: every event but MPA_EV_MARKER is
 * the same, in the same order, and so is the count of markers read; a
 * marker that breaks a rule (RFC 5044 4.3) is still reported, with its
 * event.
 *
 * Checked on every case of the corpus and on plain traffic with markers,
 * fed whole, an octet at a time and in random pieces, and with one octet
 * corrupted at a time all along the plain traffic (markers, lengths,
 * CRCs and payload alike), which drives the engine through doubts,
 * hunts and replays, where it must read every marker as before.
 */
#include "corpus.h"
#include "t.h"

static unsigned long long quieted; /* marker events the quiet runs left out */

/* l's text without its MARKER lines (which quiet mode may leave out). */
static char *strip_markers(const cs_log *l, unsigned *nmk)
{
    char *out = malloc(l->n + 1);
    size_t o = 0;
    *nmk = 0;
    for (const char *p = l->s ? l->s : ""; *p;) {
        const char *e = strchr(p, '\n');
        size_t k = e ? (size_t)(e - p) + 1 : strlen(p);
        int mk = 0;
        for (size_t j = 0; j + 8 <= k && !mk; j++)
            mk = memcmp(p + j, " MARKER ", 8) == 0;
        if (mk)
            ++*nmk;
        else {
            memcpy(out + o, p, k);
            o += k;
        }
        p += k;
    }
    out[o] = 0;
    return out;
}

static void same(const cs_scen *s, cs_split sp, const char *what)
{
    cs_log ref = cs_run_quiet(s, sp, 0), q = cs_run_quiet(s, sp, 1);
    unsigned nref, nq;
    char *a = strip_markers(&ref, &nref), *b = strip_markers(&q, &nq);
    T_CHECK(strcmp(a, b) == 0, "%s (split %d): quiet markers changed the events\n--- all markers:\n%s--- quiet:\n%s",
            what, sp.mode, a, b);
    T_CHECK(nq <= nref, "%s: %u marker events quiet, %u not", what, nq, nref);
    quieted += nref - nq;
    free(a);
    free(b);
    cs_log_free(&ref);
    cs_log_free(&q);
}

static void traffic(cs_scen *s, int req_m, int rep_m, int crc)
{
    static const unsigned sz[10] = {40, 700, 120, 1500, 24, 480, 900, 64, 2000, 300};
    cs_init(s);
    cs_start_enh(s, cs_req(req_m, crc), cs_rep(rep_m, crc));
    for (unsigned i = 0; i < 10; i++) {
        cs_send(s, 0, i + 1, sz[i]);
        cs_write(s, 1, sz[(i + 5) % 10]);
    }
    cs_close_both(s);
}

int main(void)
{
    t_name = "quiet";
    cs_split whole = {0, 0, 0}, octets = {1, 0, 0}, pieces = {3, 0, 0x9e3779b97f4a7c15ull};
    for (size_t i = 0; i < cs_ncases; i++) {
        cs_scen s;
        cs_init(&s);
        cs_cases[i].build(&s);
        same(&s, whole, cs_cases[i].slug);
        same(&s, pieces, cs_cases[i].slug);
        cs_free(&s);
    }
    unsigned long long in_cases = quieted;
    T_CHECK(in_cases > 100, "the corpus left out only %llu marker events", in_cases);

    static const int form[][3] = {{1, 1, 1}, {0, 1, 1}, {1, 1, 0}};
    for (size_t f = 0; f < sizeof form / sizeof form[0]; f++) {
        cs_scen s;
        traffic(&s, form[f][0], form[f][1], form[f][2]);
        char what[64];
        snprintf(what, sizeof what, "traffic M %d/%d C %d", form[f][0], form[f][1], form[f][2]);
        same(&s, whole, what);
        same(&s, octets, what);
        same(&s, pieces, what);
        /* One octet corrupted at a time, all along. */
        for (size_t at = 0; at < s.len; at += 7) {
            uint8_t keep = s.buf[at];
            s.buf[at] ^= (at & 8) ? 0x02 : 0x5a;
            snprintf(what, sizeof what, "traffic M %d/%d C %d, octet %zu corrupted", form[f][0], form[f][1],
                     form[f][2], at);
            same(&s, whole, what);
            s.buf[at] = keep;
        }
        cs_free(&s);
    }
    T_CHECK(quieted > in_cases, "plain traffic left out no marker events");
    return t_done();
}

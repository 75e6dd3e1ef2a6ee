/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * No cascades: one fault in FPDU-mode traffic gives a few findings, never
 * dozens.  RFC 5044 4.4 (a CRC that does not match), 4.3 and 8 code 3
 * (markers that disagree with the lengths), 6 (a receiver finds FPDUs by
 * the lengths, so a wrong ULPDU_Length loses the framing).
 *
 * For several scenarios of the corpus (markers both ways, one way, none;
 * the 2008 stack's quirky markers), one octet is corrupted at a time: a
 * ULPDU_Length, a CRC, a marker, a payload octet, in one FPDU after
 * another.  The engine must then report at most MAX_PER_FAULT findings
 * more than on the intact traffic: what went wrong, where the framing
 * was lost, where decoding resumed.
 */
#include "corpus.h"
#include "hunt.h"
#include "t.h"

#define MAX_PER_FAULT 3

enum { F_LEN, F_CRC, F_MARKER, F_DATA };
static const char *const fault_name[] = {"ULPDU_Length", "CRC", "marker", "payload octet"};

/* The octet of chunk c (an FPDU of dir) that fault f corrupts, or
 * SIZE_MAX when it has none. */
static size_t fault_at(const cs_scen *s, size_t c, uint64_t dir_off, int f)
{
    const cs_chunk *ch = &s->ch[c];
    int dir = ch->dir;
    uint64_t rel = dir_off - s->mode_off[dir];
    int lead = s->markers[dir] && (rel & 511) == 0;
    switch (f) {
    case F_LEN:
        return ch->off + (lead ? 4 : 0);
    case F_CRC:
        return ch->off + ch->len - 2;
    case F_MARKER: {
        if (!s->markers[dir])
            return SIZE_MAX;
        /* The first marker position inside the chunk after its start. */
        uint64_t to = 512 - (rel & 511);
        return to + 4 <= ch->len ? ch->off + to + 2 : SIZE_MAX;
    }
    case F_DATA:
        return ch->len > 40 ? ch->off + ch->len / 2 : SIZE_MAX;
    }
    return SIZE_MAX;
}

/* Plenty of FPDUs both ways, varied sizes: M in the Request and in the
 * Reply as given. */
static void traffic(cs_scen *s, int req_m, int rep_m)
{
    static const unsigned sz[12] = {40, 700, 120, 1500, 24, 480, 900, 64, 2000, 300, 8, 1100};
    cs_start_plain(s, req_m, rep_m);
    for (unsigned i = 0; i < 12; i++) {
        cs_send(s, 0, i + 1, sz[i]);
        if (i % 3 == 1)
            cs_write(s, 1, sz[(i + 5) % 12]);
        else
            cs_send(s, 1, i + 1, sz[(i + 3) % 12]);
    }
    cs_close_both(s);
}

/* The traffic above (markers-both, -none, -one-way) or a corpus case. */
static void build_slug(cs_scen *s, const char *slug)
{
    cs_init(s);
    if (strcmp(slug, "markers-both") == 0)
        traffic(s, 1, 1);
    else if (strcmp(slug, "markers-none") == 0)
        traffic(s, 0, 0);
    else if (strcmp(slug, "markers-one-way") == 0)
        traffic(s, 0, 1);
    else
        T_CHECK(cs_case_build(slug, s) == 0, "no case %s", slug);
}

/* From chunk *c on, the next that holds an FPDU with FPDUs after it
 * (not a startup frame, not among the last, where nothing follows):
 * 1 with *c on it and *here its offset in its direction, 0 at the end.
 * off[] counts each direction's octets. */
static int next_fpdu(const cs_scen *s, size_t *c, uint64_t off[2], uint64_t *here)
{
    for (; *c < s->nch; (*c)++) {
        const cs_chunk *ch = &s->ch[*c];
        if (ch->kind != CS_DATA)
            continue;
        *here = off[ch->dir];
        off[ch->dir] += ch->len;
        if (*here >= s->mode_off[ch->dir] + 1 && *c + 4 <= s->nch)
            return 1;
    }
    return 0;
}

static void check_slug(const char *slug)
{
    cs_scen s;
    build_slug(&s, slug);
    cs_split whole = {0, 0, 0};
    cs_log ref = cs_run(&s, whole);
    unsigned base = ref.nfind, worst = 0, faults = 0;
    uint64_t off[2] = {0, 0}, here;
    for (size_t c = 0; next_fpdu(&s, &c, off, &here); c++) {
        for (int f = F_LEN; f <= F_DATA; f++) {
            size_t at = fault_at(&s, c, here, f);
            if (at == SIZE_MAX)
                continue;
            uint8_t keep = s.buf[at];
            s.buf[at] ^= f == F_LEN ? 0x02 : 0x5a;
            cs_log l = cs_run(&s, whole);
            s.buf[at] = keep;
            unsigned more = l.nfind > base ? l.nfind - base : 0;
            faults++;
            T_CHECK(more <= MAX_PER_FAULT, "%s: %s of chunk %zu corrupted: %u findings more than intact\n%s", slug,
                    fault_name[f], c, more, l.s);
            if (more > worst)
                worst = more;
            cs_log_free(&l);
        }
    }
    T_CHECK(faults > 10, "%s: only %u faults tried", slug, faults);
    cs_log_free(&ref);
    cs_free(&s);
}

/*
 * A ULPDU_Length corrupted upwards (RFC 5044 4.1, 6): the receiver takes
 * the FPDUs after the true end as payload, and the CRC it then reads
 * fails.  Every FPDU stays decoded (the corrupted one as its length
 * reads, the ones it swallowed found again from its true end) with at
 * most MAX_PER_FAULT findings more, as long as the FPDUs up to the one
 * the claimed end falls in fit what the engine holds (HUNT_RING octets
 * from the corrupted FPDU's start): the claimed end falls past whole
 * FPDUs, or inside the FPDU after them.
 */
static void check_len_up(const char *slug)
{
    cs_scen s;
    build_slug(&s, slug);
    cs_split whole = {0, 0, 0};
    cs_log ref = cs_run(&s, whole);
    static const unsigned up[] = {64, 200, 512, 900};
    unsigned tried = 0;
    uint64_t off[2] = {0, 0}, here;
    for (size_t c = 0; next_fpdu(&s, &c, off, &here); c++) {
        const cs_chunk *ch = &s.ch[c];
        size_t at = fault_at(&s, c, here, F_LEN);
        unsigned len = (unsigned)s.buf[at] << 8 | s.buf[at + 1];
        for (size_t k = 0; k < sizeof up / sizeof up[0]; k++) {
            /* The FPDU of this direction that the claimed end falls in or
             * before must end within what the engine holds from the
             * corrupted FPDU's start (HUNT_RING octets). */
            uint64_t claim = here + ch->len + up[k] + 8, end = here + ch->len;
            size_t j = c + 1;
            for (; j < s.nch && end < claim; j++)
                if (s.ch[j].kind == CS_DATA && s.ch[j].dir == ch->dir)
                    end += s.ch[j].len;
            if (end < claim || end - here > HUNT_RING)
                continue;
            uint8_t keep[2] = {s.buf[at], s.buf[at + 1]};
            s.buf[at] = (uint8_t)((len + up[k]) >> 8);
            s.buf[at + 1] = (uint8_t)(len + up[k]);
            cs_log l = cs_run(&s, whole);
            /* Found where it is found, however the octets come. */
            cs_split rnd = {3, 0, (tried + 1) * 0x9E3779B97F4A7C15ull};
            cs_log lr = cs_run(&s, rnd);
            T_CHECK(strcmp(l.s, lr.s) == 0, "%s: ULPDU_Length of chunk %zu +%u: a random split gives other events",
                    slug, c, up[k]);
            cs_log_free(&lr);
            s.buf[at] = keep[0];
            s.buf[at + 1] = keep[1];
            unsigned more = l.nfind > ref.nfind ? l.nfind - ref.nfind : 0;
            tried++;
            T_CHECK(more <= MAX_PER_FAULT, "%s: ULPDU_Length of chunk %zu +%u: %u findings more than intact\n%s",
                    slug, c, up[k], more, l.s);
            for (int d = 0; d < 2; d++)
                T_CHECK(l.fpdus[d] == ref.fpdus[d], "%s: ULPDU_Length of chunk %zu +%u: d%d decoded %u FPDUs, intact %u\n%s",
                        slug, c, up[k], d, l.fpdus[d], ref.fpdus[d], l.s);
            cs_log_free(&l);
        }
    }
    T_CHECK(tried > 10, "%s: only %u lengths tried", slug, tried);
    cs_log_free(&ref);
    cs_free(&s);
}

int main(void)
{
    t_name = "cascade";
    static const char *const slugs[] = {"markers-both", "markers-none", "markers-one-way", "clean-markers",
                                         "qrk-mrk-2008"};
    for (size_t i = 0; i < sizeof slugs / sizeof slugs[0]; i++)
        check_slug(slugs[i]);
    check_len_up("markers-none");
    check_len_up("markers-both");
    return t_done();
}

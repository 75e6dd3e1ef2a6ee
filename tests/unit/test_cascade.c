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

static void check_slug(const char *slug)
{
    cs_scen s;
    cs_init(&s);
    if (strcmp(slug, "markers-both") == 0)
        traffic(&s, 1, 1);
    else if (strcmp(slug, "markers-none") == 0)
        traffic(&s, 0, 0);
    else if (strcmp(slug, "markers-one-way") == 0)
        traffic(&s, 0, 1);
    else
        T_CHECK(cs_case_build(slug, &s) == 0, "no case %s", slug);
    cs_split whole = {0, 0, 0};
    cs_log ref = cs_run(&s, whole);
    unsigned base = ref.nfind, worst = 0, faults = 0;
    uint64_t off[2] = {0, 0};
    for (size_t c = 0; c < s.nch; c++) {
        const cs_chunk *ch = &s.ch[c];
        if (ch->kind != CS_DATA)
            continue;
        uint64_t here = off[ch->dir];
        off[ch->dir] += ch->len;
        if (here < s.mode_off[ch->dir] + 1 || c + 4 > s.nch)
            continue; /* startup frames, and the last FPDUs (nothing follows) */
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

int main(void)
{
    t_name = "cascade";
    static const char *const slugs[] = {"markers-both", "markers-none", "markers-one-way", "clean-markers",
                                         "qrk-mrk-2008"};
    for (size_t i = 0; i < sizeof slugs / sizeof slugs[0]; i++)
        check_slug(slugs[i]);
    return t_done();
}

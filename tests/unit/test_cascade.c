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
 * Reply as given, C in both. */
static void traffic(cs_scen *s, int req_m, int rep_m, int crc)
{
    static const unsigned sz[12] = {40, 700, 120, 1500, 24, 480, 900, 64, 2000, 300, 8, 1100};
    cs_start_enh(s, cs_req(req_m, crc), cs_rep(rep_m, crc));
    unsigned msn1 = 1; /* one up per Send (RFC 5041 4.3) */
    for (unsigned i = 0; i < 12; i++) {
        cs_send(s, 0, i + 1, sz[i]);
        if (i % 3 == 1)
            cs_write(s, 1, sz[(i + 5) % 12]);
        else
            cs_send(s, 1, msn1++, sz[(i + 3) % 12]);
    }
    cs_close_both(s);
}

/* The traffic above (markers-both, -none, -one-way) or a corpus case. */
static void build_slug(cs_scen *s, const char *slug)
{
    cs_init(s);
    if (strcmp(slug, "markers-both") == 0)
        traffic(s, 1, 1, 1);
    else if (strcmp(slug, "markers-none") == 0)
        traffic(s, 0, 0, 1);
    else if (strcmp(slug, "markers-one-way") == 0)
        traffic(s, 0, 1, 1);
    else if (strcmp(slug, "nocrc-none") == 0)
        traffic(s, 0, 0, 0);
    else if (strcmp(slug, "nocrc-both") == 0)
        traffic(s, 1, 1, 0);
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

/* The findings l has more than the intact ref, not counting the one
 * MPA-FPD-FRAMING-LOST a direction may add (where the framing was lost:
 * before it, up to MAX_PER_FAULT findings may say what went wrong, e.g.
 * three about the one marker word a wrong length misplaced); a second
 * one counts. */
static unsigned extra(const cs_log *ref, const cs_log *l)
{
    unsigned more = l->nfind > ref->nfind ? l->nfind - ref->nfind : 0;
    unsigned lost = l->count[MPA_F_FPD_FRAMING_LOST] > ref->count[MPA_F_FPD_FRAMING_LOST];
    return more - (more && lost ? 1 : 0);
}

static void check_slug(const char *slug)
{
    cs_scen s;
    build_slug(&s, slug);
    cs_split whole = {0, 0, 0};
    cs_log ref = cs_run(&s, whole);
    unsigned worst = 0, faults = 0;
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
            unsigned more = extra(&ref, &l);
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
 * A ULPDU_Length corrupted (RFC 5044 4.1, 6).  Upwards: the receiver
 * takes the FPDUs after the true end as payload, and the CRC it then
 * reads fails.  Downwards: the FPDU ends early, the CRC read there fails,
 * and the next "ULPDU_Length" is payload, often longer than all that
 * follows.  Either way every FPDU stays decoded (the corrupted one as its
 * length reads, the others found again from its true end) with at most
 * MAX_PER_FAULT findings more.  Upwards, only as long as the FPDUs up to
 * the one the claimed end falls in fit what the engine holds (HUNT_RING
 * octets from the corrupted FPDU's start); downwards, as long as an FPDU
 * of that direction follows.  drift: the sender's marker grid drifts
 * (docs/quirks.md); after the fault its phase is known again only from
 * a marker inside an FPDU that a CRC proves, so the FPDUs before the
 * first one that holds a marker may be skipped.  nocrc: CRCs are off, and
 * only the findings are counted (docs/libmpa.md: nothing proves where
 * the FPDUs go on, so the rest of the direction is not decoded).
 */
static void check_len(const char *slug, const int *delta, size_t ndelta, int drift, int nocrc)
{
    cs_scen s;
    build_slug(&s, slug);
    cs_split whole = {0, 0, 0};
    cs_log ref = cs_run(&s, whole);
    unsigned tried = 0;
    uint64_t off[2] = {0, 0}, here;
    for (size_t c = 0; next_fpdu(&s, &c, off, &here); c++) {
        const cs_chunk *ch = &s.ch[c];
        size_t at = fault_at(&s, c, here, F_LEN);
        int len = s.buf[at] << 8 | s.buf[at + 1];
        for (size_t k = 0; k < ndelta; k++) {
            if (len + delta[k] < 0)
                continue;
            uint64_t end = here + ch->len;
            size_t j = c + 1;
            if (delta[k] > 0) {
                /* The FPDU of this direction that the claimed end falls in
                 * or before must end within what the engine holds. */
                uint64_t claim = here + ch->len + (unsigned)delta[k] + 8;
                for (; j < s.nch && end < claim; j++)
                    if (s.ch[j].kind == CS_DATA && s.ch[j].dir == ch->dir)
                        end += s.ch[j].len;
                if (end < claim || end - here > HUNT_RING)
                    continue;
            } else {
                /* An FPDU of this direction follows. */
                while (j < s.nch && !(s.ch[j].kind == CS_DATA && s.ch[j].dir == ch->dir))
                    j++;
                if (j == s.nch)
                    continue;
            }
            uint8_t keep[2] = {s.buf[at], s.buf[at + 1]};
            s.buf[at] = (uint8_t)((len + delta[k]) >> 8);
            s.buf[at + 1] = (uint8_t)(len + delta[k]);
            cs_log l = cs_run(&s, whole);
            /* Found where it is found, however the octets come. */
            cs_split rnd = {3, 0, (tried + 1) * 0x9E3779B97F4A7C15ull};
            cs_log lr = cs_run(&s, rnd);
            T_CHECK(strcmp(l.s, lr.s) == 0, "%s: ULPDU_Length of chunk %zu %+d: a random split gives other events",
                    slug, c, delta[k]);
            cs_log_free(&lr);
            s.buf[at] = keep[0];
            s.buf[at + 1] = keep[1];
            unsigned more = extra(&ref, &l);
            tried++;
            T_CHECK(more <= MAX_PER_FAULT, "%s: ULPDU_Length of chunk %zu %+d: %u findings more than intact\n%s",
                    slug, c, delta[k], more, l.s);
            /* A drifting grid: at most the FPDUs of this direction after
             * the corrupted one, up to one of 516 octets or more (which
             * holds a marker). */
            unsigned may = 0;
            for (size_t m = c + 1; drift && m < s.nch; m++)
                if (s.ch[m].kind == CS_DATA && s.ch[m].dir == ch->dir) {
                    if (s.ch[m].len >= MPA_MARKER_INTERVAL + MPA_MARKER_LEN)
                        break;
                    may++;
                }
            for (int d = 0; d < 2 && !nocrc; d++)
                T_CHECK(l.fpdus[d] <= ref.fpdus[d] && l.fpdus[d] + (d == ch->dir ? may : 0) >= ref.fpdus[d],
                        "%s: ULPDU_Length of chunk %zu %+d: d%d decoded %u FPDUs, intact %u\n%s", slug, c, delta[k],
                        d, l.fpdus[d], ref.fpdus[d], l.s);
            cs_log_free(&l);
        }
    }
    T_CHECK(tried > 10, "%s: only %u lengths tried", slug, tried);
    cs_log_free(&ref);
    cs_free(&s);
}

static const int len_up[] = {64, 200, 512, 900};
/* Lowered: by a pad's worth, by less and by more than a marker interval,
 * down to nothing left of the ULPDU. */
static const int len_down[] = {-2, -4, -40, -100, -300, -520, -1000, -70000};

int main(void)
{
    t_name = "cascade";
    static const char *const slugs[] = {"markers-both", "markers-none", "markers-one-way", "clean-markers",
                                         "qrk-mrk-2008"};
    for (size_t i = 0; i < sizeof slugs / sizeof slugs[0]; i++)
        check_slug(slugs[i]);
    check_len("markers-none", len_up, sizeof len_up / sizeof len_up[0], 0, 0);
    check_len("markers-both", len_up, sizeof len_up / sizeof len_up[0], 0, 0);
    for (size_t i = 0; i < sizeof slugs / sizeof slugs[0]; i++)
        check_len(slugs[i], len_down, sizeof len_down / sizeof len_down[0],
                  strcmp(slugs[i], "qrk-mrk-2008") == 0, 0);
    /* CRCs off: a length read from payload gives no findings past one
     * MPA-FPD-FRAMING-LOST (its header is not well-formed). */
    static const char *const nocrc[] = {"nocrc-none", "nocrc-both"};
    for (size_t i = 0; i < sizeof nocrc / sizeof nocrc[0]; i++) {
        check_slug(nocrc[i]);
        check_len(nocrc[i], len_up, sizeof len_up / sizeof len_up[0], 0, 1);
        check_len(nocrc[i], len_down, sizeof len_down / sizeof len_down[0], 0, 1);
    }
    return t_done();
}

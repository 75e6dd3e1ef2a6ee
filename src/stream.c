/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The MPA stream engine and checker.
 *
 * Startup: RFC 5044 7.1 (rules 1-10), RFC 6581 5, 6, 9, 10; draft-03
 * 8.1 (Start Key); the 2007 interop RtR frame.  FPDU mode: RFC 5044 4
 * and 8 via the receive machine in fpdu.c.  DDP/RDMAP: ddp.c.
 *
 * Every event is emitted at a fixed octet of one direction (the octet
 * that completes the item), so the events depend only on the octets and
 * on the order of the two directions, never on how a direction's octets
 * were split into calls.  Octets that are not MPA are accumulated and
 * reported when the accumulation ends, for the same reason.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#ifdef MPA_RING_CHECK
#include <stdlib.h> /* abort */
#endif

#include "fpdu_rx.h"
#include "atomicq.h"
#include "hunt.h"
#include "mkmodel.h"
#include "mpa/stream.h"
#include "rd.h"

enum sub { SS_HDR = 0, SS_PD, SS_HOLD };

/* What a TERMINATE's copied DDP header is compared with: the last
 * HIST_N segment headers a direction sent (RFC 5040 4.8). */
#define HIST_N 16

/* The RDMA Read Requests a direction sent that are not answered yet
 * (RFC 5040 5.2.2: answered in order).  Bounded: Requests past RQ_N are
 * counted, and the Responses that answer them are not judged; while any
 * are counted, later Requests are counted too (they are answered after
 * them), and the queue takes Requests again once they are all answered. */
#define RQ_N 8
typedef struct read_q {
    struct {
        uint32_t stag, size;
        uint64_t to;
        uint32_t got; /* octets answered so far */
        uint64_t off; /* where the Request is in its direction */
        uint8_t rtr;  /* the negotiated read RTR (RFC 6581 9.1: not under ORD) */
        uint8_t bad;  /* not a valid Read Request (not one whole segment, bad CRC): not owed an answer */
    } q[RQ_N];
    uint8_t head, n;
    uint8_t le;       /* MPA-QRK-READ-LE recognised: fields are read swapped */
    uint8_t off;      /* judging stopped (a finding was made, or evidence lost) */
    uint8_t ord_said; /* MPA-RDMAP-READ-ORD said (once per direction) */
    uint32_t dropped; /* Requests past RQ_N not yet answered */
} read_q;

/* What FPDU mode is probing for when the startup did not settle it:
 * after R=1 only an FPDU with a valid CRC counts; after a Reply with an
 * unknown key, an Initiator's TERMINATE (sent without a CRC when the
 * startup failed, as Linux siw does) is decoded too. */
enum { PROBE_NONE = 0, PROBE_REJECT, PROBE_BAD_KEY };

/* DDP sequencing (RFC 5041 4.1, 4.3, 5.2, 5.3) of the untagged queues
 * RDMAP uses (0 Send, 1 Read and Atomic Request, 2 Terminate, 3 Atomic
 * Response) and of the tagged message being sent.  A queue's MSN is
 * known from the start of FPDU mode (the next is 1) or learnt from the
 * first segment seen after a hole, a mid-stream start or doubt (no
 * finding then); each rule is said once per direction and queue. */
#define SEQ_NQ 4
enum { SQ_KNOWN = 1, SQ_OPEN = 2, SQ_FIRST = 4, SQ_MO0 = 8 /* the message's MO 0 segment came, or was not seen */ };
typedef struct seq_q {
    uint32_t msn;     /* of the open message, or of the last one closed */
    uint32_t mo;      /* open: the MO the next segment continues at */
    uint32_t rsvdulp; /* open: the RsvdULP octets 2..5 of its segments */
    uint32_t plen;    /* open: the payload length of its last segment */
    uint8_t ctl;      /* open: ... and its RDMAP control octet */
    uint8_t st;       /* SQ_* */
    uint16_t said;    /* rules said on this queue (SEQ_SAID_*) */
} seq_q;
typedef struct seq_st {
    seq_q q[SEQ_NQ];
    uint32_t tg_stag; /* tagged: the STag of the open message */
    uint64_t tg_to;   /* ... and the TO its next segment continues at */
    uint32_t tg_plen; /* ... and the payload length of its last segment */
    uint8_t tg_open, tg_said, tg_full_said;
} seq_st;
struct dirst;
static void seq_unknown(struct dirst *d);
struct mpa_stream;
static void seq_start(struct mpa_stream *s, int dir);

static const char WHY_AFTER_REJECT[] = "not MPA after a rejected startup";
static const char WHY_AFTER_BAD_KEY[] = "not MPA: the startup key was unknown";

#define HUNT_WHY "skipped while resynchronising"
#define DOUBT_BUF 2048u

typedef struct dirst {
    /* What every segment and every item of FPDU mode reads comes first,
     * together: with hundreds of connections open, a packet then finds
     * its direction's state in a few cache lines (the rest is cold). */
    uint64_t off;         /* octets consumed */
    uint8_t mode;         /* mpa_dir_mode */
    uint8_t sub;          /* startup sub-state */
    uint8_t peek;         /* looking for a 2007 RtR frame at FPDU start */
    uint8_t npeek;
    uint8_t markers, crc;
    uint8_t probe;        /* PROBE_*: after a reject or a bad key, FPDUs or not? */
    uint8_t sh_on;        /* shadow parse with the other marker setting */
    uint8_t terminated, trm_last_done;
    uint8_t first_fpdu_ok;
    /* The framing is in doubt (no cascades): since doubt_off a CRC or a
     * marker disagreed with the lengths; strikes counts bad CRCs since. */
    uint8_t doubt, strikes;
    uint8_t doubt_mk;     /* a marker of the FPDU being read disagreed */
    uint8_t fpdu_seen;    /* the receive machine completed an FPDU (judged,
                             unjudged or skipped with the framing lost) */
    uint8_t mk_unsure;    /* a hole came before the marker form was settled:
                             marker rules rest on lost octets */
    /* In doubt after a bad CRC, the hunt (h) reads every octet after the
     * bad FPDU alongside the lengths (along_start): past a ULPDU_Length
     * corrupted downwards the next length is payload, perhaps longer
     * than all that follows; an FPDU the hunt proves ends the wait
     * (along_won). */
    uint8_t along;
    /* CRCs off: nothing proves a length wrong, but a header read from
     * payload is not well-formed (hdr_check): hdr_ok once this direction
     * sent a well-formed one; while a header that is not put the
     * framing in doubt, hdr_doubt is 1 + the well-formed ones since;
     * hdr_seen: the FPDU being read had its header checked. */
    uint8_t hdr_ok, hdr_doubt, hdr_seen;
    /* The octets read since the first bad CRC of the doubt (dbuf, below):
     * if the next FPDU fails too, the hunt reads them again (FPDUs whose
     * start a wrong length hid are found there). */
    uint8_t dbuf_on, dbuf_full;
    uint8_t align_done, align_pend;
    uint8_t term_close;   /* a TERMINATE was sent on an RDMAP Stream: a graceful close is due */
    uint8_t mulpdu_done;  /* FPDUs over MULPDU named (once per direction) */
    uint8_t ver_done;     /* VER_*: DDP/RDMAP versions named (once per direction) */
    uint8_t rv_first;     /* 1 + the first valid RV (0 or 1) seen; 0: none yet */
    uint8_t h_ms_note;          /* the mid-stream start is still to be reported */
    uint8_t hist_pos;           /* the next of hist[] (here: every FPDU reads it) */
    /* TCP segment starts not counted yet: they count once an FPDU is
     * judged (its framing held), and never when the framing is lost (no
     * alignment figure from misframed octets); the first misaligned one
     * is remembered for MPA-FPD-ALIGN. */
    uint32_t pend_seg, pend_aligned, align_into;
    uint64_t align_off;
    /* The last octets read in FPDU mode or while hunting stay in the
     * hunt's ring (h.ring, indexed by offset): hist_n of them, ending at
     * hist_end.  A bad CRC searches the octets of its FPDU there for the
     * FPDUs a ULPDU_Length corrupted upwards swallowed (inner_chain).
     * In FPDU mode they are copied there lazily (ring_sync, ring_keep):
     * lz_n octets at lz_off are still only in the caller's buffer, lz_p. */
    uint32_t hist_n;
    uint64_t hist_end;
    const uint8_t *lz_p;
    uint64_t lz_off;
    size_t lz_n;
#ifdef MPA_RING_CHECK
    uint8_t ck[HUNT_RING]; /* every octet the ring holds, copied at once */
#endif
    uint64_t replay_to;   /* replaying up to here: markers shown already */
    uint64_t inner_due;   /* in doubt: look again when this octet is in */
    uint64_t mode_off;
    uint64_t nfpdu;
    /* What the capture lost of this direction (mpa_stream_gap): rules
     * that rest on these octets are not judged. */
    uint64_t lost_from, lost_end; /* the first lost octet, and the end of the last hole */
    mpa_dir_stats st;
    fpdu_rx rx;
    mkmodel mk;           /* how the sender writes markers (mkmodel.h) */
    mpa_ddp_hdr hist[HIST_N]; /* the last segment headers sent, ring */
    uint16_t hist_len[HIST_N]; /* ... and their ULPDU_Length */
    seq_st seq;                   /* DDP sequencing of what this side sends */

    /* Startup */
    uint8_t role;
    uint8_t nhdr;
    uint8_t hdr[MPA_FRAME_HDR_LEN];
    uint8_t have_frame;   /* a startup frame was received whole */
    uint8_t improper;     /* ... and it was improperly formatted */
    uint8_t bad_key;      /* ... its key was unknown */
    uint8_t rtr_frame;    /* the frame being read is a 2007 RtR frame */
    uint8_t peekb[MPA_KEY_LEN];
    uint64_t frame_off;
    mpa_frame fr;         /* header of the startup frame (pd = NULL) */
    uint32_t pd_seen;
    uint8_t pd[MPA_STREAM_PD_KEEP];

    /* FPDU mode, less often */
    uint8_t early_done, close_done;
    uint8_t end_rst;      /* this direction ended with a RST */
    uint32_t rr_stag[RQ_N][2]; /* sink and source STag of the last Read Requests sent, ring */
    uint8_t rr_pos;
    uint64_t nrr;
    read_q rq;              /* this direction's open Read Requests */
    uint8_t qrk_zero_done, qrk_stag0_done;
    fpdu_rx sh;
    uint64_t doubt_off;
    uint8_t mk_said;      /* markers were found wrong where the lengths held:
                             said once, not again for every marker */
    uint8_t unjudged;     /* FPDUs of this direction went unjudged or were
                             skipped (framing in doubt or lost): what it
                             sent is not fully known */
    uint8_t h_lost;       /* hunting because the framing was lost */
    uint32_t dbuf_n;
    uint64_t dbuf_off;
    uint8_t dbuf[DOUBT_BUF];
    uint64_t doubt_fpdu;  /* start of the doubt's first bad FPDU (dbuf_on) */
    uint64_t inner_from;  /* framing_doubt found FPDUs from here (3) */

    /* MPA_MODE_HUNT (mpa_stream_gap, mid-stream start): hunt.h decides */
    uint8_t pd_lost;            /* private data octets fell in a hole */
    uint32_t pd_valid;          /* private data octets before the first lost one */
    uint64_t h_off;             /* first skipped octet not yet reported */
    uint64_t h_from;            /* where the hunt began */
    hunt h;

    atomicq aq;                   /* this side's Atomic Requests not yet answered */

    /* octets not decoded as MPA, waiting to be reported */
    uint64_t data_len, data_off;
    const char *data_why;
} dirst;

struct mpa_stream {
    mpa_stream_cfg cfg;
    mpa_event_fn fn;
    void *user;
    int8_t init_dir;        /* direction of the Initiator, -1 unknown */
    uint8_t negotiated;     /* both frames known: framing settled */
    uint8_t rejected;
    uint8_t failed;         /* startup failed: both directions left MPA */
    uint8_t enh;            /* both frames enhanced with the field */
    uint8_t rtr_expected, rtr_checked, rtr_late;
    uint8_t resp_wait_done, resp_fpdu_done;
    uint8_t crc_default_due; /* C=0 both ways: said at the first FPDU, */
    uint8_t crc_default_dir; /* of the Reply that settled it */
    uint64_t crc_default_off;
    uint8_t finished;       /* mpa_stream_finish was called */
    uint8_t startup_lost;   /* a startup frame fell in a capture hole */
    uint8_t midstream;      /* the capture began after the startup */
    uint8_t quiet_mk;       /* mpa_stream_quiet_markers */
    dirst d[2];             /* after the flags above, which every FPDU reads */
    uint8_t not_judged[(MPA_F__COUNT + 7) / 8]; /* rules said not judged (once each) */
    char msg[256];
};

/* The engine's state is struct mpa_stream itself, private to this file
 * (callers know its size only from mpa_stream_size()). */
typedef struct mpa_stream S;

static S *SS(mpa_stream *s) { return s; }
static const S *CS(const mpa_stream *s) { return s; }

size_t mpa_stream_size(void) { return sizeof(struct mpa_stream); }

const char *mpa_role_str(mpa_role r)
{
    switch (r) {
    case MPA_ROLE_INITIATOR:
        return "initiator";
    case MPA_ROLE_RESPONDER:
        return "responder";
    case MPA_ROLE_UNKNOWN:
        break;
    }
    return "unknown";
}

const char *mpa_dir_mode_str(mpa_dir_mode m)
{
    switch (m) {
    case MPA_MODE_STARTUP:
        return "startup";
    case MPA_MODE_FPDU:
        return "fpdu";
    case MPA_MODE_STREAMING:
        return "streaming";
    case MPA_MODE_TERMINATED:
        return "terminated";
    case MPA_MODE_CLOSED:
        return "closed";
    case MPA_MODE_HUNT:
        return "hunt";
    }
    return "unknown";
}

/* ---- event emission -------------------------------------------------- */

/* Zeroes the event's header and its first `body` octets of union: the
 * union is large (an FPDU event holds a whole DDP decode) and markers
 * come every 512 octets, so clearing all of it is measurable. */
static void ev_init_n(S *s, mpa_event *ev, mpa_event_type t, int dir, uint64_t off, size_t body)
{
    memset(ev, 0, offsetof(mpa_event, u) + body);
    ev->type = t;
    ev->dir = dir;
    ev->off = off;
    ev->seq = s->cfg.isn[dir] + (uint32_t)off;
}

#define ev_init(s, ev, t, dir, off) ev_init_n(s, ev, t, dir, off, sizeof((ev)->u))

static void emit(S *s, const mpa_event *ev)
{
    if (s->fn)
        s->fn(s->user, ev);
}

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void finding(S *s, int dir, uint64_t off, mpa_finding_id id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->msg, sizeof s->msg, fmt, ap);
    va_end(ap);
    s->d[dir].st.findings++;
    mpa_event ev;
    ev_init_n(s, &ev, MPA_EV_FINDING, dir, off, sizeof ev.u.finding);
    ev.u.finding.id = id;
    ev.u.finding.rule = mpa_rule_get(id);
    ev.u.finding.msg = s->msg;
    emit(s, &ev);
}

/*
 * The evidence rule: a finding about dir's sender is made only when the
 * octets it rests on were captured.  Direction ev_dir's octets before
 * offset upto are the evidence (UINT64_MAX: all of them so far); if the
 * capture lost some of them (octets it lost still count as sent: the
 * capture layer declares a hole as soon as the peer acknowledges past
 * it), the rule is not judged: a capture note (MPA-CAP-NOT-JUDGED, once
 * per rule) says which, and about which octets.  Returns 1 then, 0 when
 * the rule may be judged.
 */
static int evidence_lost(S *s, int dir, uint64_t off, mpa_finding_id id, int ev_dir, uint64_t upto)
{
    const dirst *e = &s->d[ev_dir];
    if (!e->st.gap_octets || e->lost_from >= upto)
        return 0;
    uint8_t bit = (uint8_t)(1u << (id % 8));
    if (!(s->not_judged[id / 8] & bit)) {
        s->not_judged[id / 8] |= bit;
        const char *who = e->role == MPA_ROLE_INITIATOR ? "Initiator" : e->role == MPA_ROLE_RESPONDER ? "Responder" : "peer";
        finding(s, dir, off, MPA_F_CAP_NOT_JUDGED,
                "%s not judged: the capture lost octets %llu-%llu of the %s's direction (%s)",
                mpa_rule_get(id)->id, (unsigned long long)e->lost_from, (unsigned long long)e->lost_end,
                ev_dir == dir ? "same" : who, ev_dir == dir ? "the octets judged" : "what it sent before");
    }
    return 1;
}

/* Why octets of an FPDU the capture cut are not decoded. */
static const char WHY_CUT_HOLE[] = "FPDU cut by a capture hole";
static const char WHY_CUT_END[] = "incomplete FPDU at FIN/RST";
static const char WHY_CUT_CAPTURE[] = "capture ended inside an FPDU";

static void data_flush(S *s, int dir)
{
    dirst *d = &s->d[dir];
    if (!d->data_len)
        return;
    mpa_event ev;
    ev_init(s, &ev, MPA_EV_DATA, dir, d->data_off);
    ev.u.data.len = d->data_len;
    ev.u.data.why = d->data_why;
    ev.u.data.fpdu_cut = d->data_why == WHY_CUT_HOLE || d->data_why == WHY_CUT_END || d->data_why == WHY_CUT_CAPTURE;
    d->st.not_mpa_octets += d->data_len;
    d->data_len = 0;
    emit(s, &ev);
}

/* Count octets [off, off+len) of dir as not MPA, for reason why. */
static void data_add(S *s, int dir, uint64_t off, uint64_t len, const char *why)
{
    dirst *d = &s->d[dir];
    if (!len)
        return;
    if (d->data_len && (d->data_why != why || d->data_off + d->data_len != off))
        data_flush(s, dir);
    if (!d->data_len) {
        d->data_off = off;
        d->data_why = why;
    }
    d->data_len += len;
}

static void set_mode_at(S *s, int dir, uint64_t off, mpa_dir_mode m, const char *why)
{
    dirst *d = &s->d[dir];
    data_flush(s, dir);
    d->mode = (uint8_t)m;
    mpa_event ev;
    ev_init(s, &ev, MPA_EV_MODE, dir, off);
    ev.u.mode.mode = m;
    ev.u.mode.markers = d->markers;
    ev.u.mode.crc = d->crc;
    ev.u.mode.probe = m == MPA_MODE_FPDU && d->probe;
    ev.u.mode.why = why;
    emit(s, &ev);
}

static void set_mode(S *s, int dir, mpa_dir_mode m, const char *why)
{
    set_mode_at(s, dir, s->d[dir].off, m, why);
}

/* ---- helpers --------------------------------------------------------- */

static uint32_t seq_of(const S *s, int dir, uint64_t off) { return s->cfg.isn[dir] + (uint32_t)off; }

static const mpa_frame *frame_of(const S *s, int dir)
{
    return s->d[dir].have_frame ? &s->d[dir].fr : NULL;
}

static int is_kind(const S *s, int dir, mpa_key_kind k)
{
    const mpa_frame *f = frame_of(s, dir);
    return f && f->kind == k;
}

static void rtr_set_str(char *buf, size_t cap, unsigned b, unsigned c, unsigned d)
{
    snprintf(buf, cap, "%s%s%s%s", b ? "send," : "", c ? "write," : "", d ? "read," : "",
             (b | c | d) ? "" : "none");
    size_t n = strlen(buf);
    if (n && buf[n - 1] == ',')
        buf[n - 1] = 0;
}

static const char *rtr_name(mpa_rtr_kind k)
{
    switch (k) {
    case MPA_RTR_SEND:
        return "zero-length Send";
    case MPA_RTR_WRITE:
        return "zero-length RDMA Write";
    case MPA_RTR_READ:
        return "zero-length RDMA Read Request";
    case MPA_RTR_NONE:
        break;
    }
    return "not an RTR";
}

/* ---- entering FPDU mode ---------------------------------------------- */

static void enter_fpdu(S *s, int dir, int markers, int crc, int probe, const char *why)
{
    dirst *d = &s->d[dir];
    d->markers = (uint8_t)(markers ? 1 : 0);
    d->crc = (uint8_t)(crc ? 1 : 0);
    d->probe = (uint8_t)probe;
    d->mode_off = d->off;
    d->nfpdu = 0;
    d->first_fpdu_ok = 0;
    uint32_t base = seq_of(s, dir, d->off);
    /* CRC is computed when checked, and for the probes that need it. */
    rx_init(&d->rx, markers, crc || probe, base, base);
    rx_init(&d->sh, !markers, 1, base, base);
    d->sh_on = !probe;
    d->npeek = 0;
    mk_reset(&d->mk);
    d->doubt = d->strikes = d->dbuf_on = 0;
    seq_start(s, dir);
    if (probe) {
        /* MPA was left (R=1) or never settled (a bad key): FPDU mode is
         * said only once an FPDU proves it (on_fpdu), never for octets
         * that are not one, so that no reader takes this direction's
         * framing as negotiated.  A reject is said now: MPA is left. */
        data_flush(s, dir);
        d->mode = MPA_MODE_FPDU;
        if (probe == PROBE_REJECT) {
            mpa_event ev;
            ev_init(s, &ev, MPA_EV_MODE, dir, d->off);
            ev.u.mode.mode = MPA_MODE_STREAMING;
            ev.u.mode.why = why;
            emit(s, &ev);
        }
        return;
    }
    set_mode(s, dir, MPA_MODE_FPDU, why);
}

/* ---- startup checks -------------------------------------------------- */

/* RFC 6581 9: the IRD/ORD field goes in network byte order.  A small
 * value (under 256) written least significant octet first reads as a
 * multiple of 256, its flag bits landing in the six low bits' neighbours
 * (bits 6 and 7): a field whose both values read so, and not as 0x3FFF,
 * is taken as swapped.  0 reads the same either way. */
static int irdord_swapped_look(uint16_t v) { return v == 0 || (v >= 0x100 && v != 0x3FFFu && !(v & 0x3Fu)); }

static uint16_t bswap16(uint16_t v) { return (uint16_t)(v >> 8 | v << 8); }

static void judge_irdord_order(S *s, int dir, const char *what)
{
    const dirst *d = &s->d[dir];
    const mpa_enh *e = &d->fr.enh;
    if (!(e->ird | e->ord) || !irdord_swapped_look(e->ird) || !irdord_swapped_look(e->ord))
        return;
    uint32_t v = mpa_enh_pack(e);
    mpa_enh w = mpa_enh_unpack((uint32_t)bswap16((uint16_t)(v >> 16)) << 16 | bswap16((uint16_t)v));
    finding(s, dir, d->frame_off + MPA_FRAME_HDR_LEN, MPA_F_ENH_IRDORD_ORDER,
            "%s IRD %u ORD %u in network order; each half octet-swapped they read IRD %u ORD %u", what,
            e->ird, e->ord, w.ird, w.ord);
}

static void judge_std_frame(S *s, int dir)
{
    dirst *d = &s->d[dir];
    const mpa_frame *f = &d->fr;
    uint64_t off = d->frame_off;
    const char *what = mpa_key_kind_name(f->kind);
    if (f->rev != 1 && f->rev != 2) {
        finding(s, dir, off, MPA_F_FRM_REV, "%s Rev %u: only 1 (RFC 5044) and 2 (RFC 6581) exist", what,
                f->rev);
        d->improper = 1;
    }
    if (f->s && f->rev < 2)
        finding(s, dir, off, MPA_F_FRM_REV_ENH, "%s has S=1 with Rev %u: enhanced frames need Rev >= 2",
                what, f->rev);
    if (f->res)
        finding(s, dir, off + 16, MPA_F_FRM_RES, "%s Res bits 0x%x set%s", what, f->res,
                (f->res & 0x8) ? " (0x8 is what Linux siw sets when it tries GSO)" : "");
    if (f->pd_len > MPA_PD_MAX) {
        finding(s, dir, off + 18, MPA_F_FRM_PDLEN_MAX, "%s PD_Length %u > 512", what, f->pd_len);
        d->improper = 1;
    }
    /* With Rev 1 an S bit is the 2007 proposal's "RtR frame follows"
     * (MPA-FRM-REV-ENH above says it is not RFC 6581): no IRD/ORD due. */
    if (f->s && f->rev >= 2 && f->pd_len < MPA_ENH_LEN) {
        finding(s, dir, off + 18, MPA_F_FRM_S_PDLEN,
                "%s has S=1 but PD_Length %u cannot hold the 4-octet IRD/ORD field", what, f->pd_len);
        d->improper = 1;
    }
    /* R in a Request is sent as zero and not checked on receipt (RFC
     * 5044 7.1.1): the sender broke a rule, but the Request is not
     * improperly formatted, and the Responder may answer it. */
    if (f->kind == MPA_KEY_REQ && f->r)
        finding(s, dir, off + 16, MPA_F_FRM_R_REQ, "Request has R=1");
    if (f->has_enh && !f->enh.a && (f->enh.b | f->enh.c | f->enh.d))
        finding(s, dir, off + 20, MPA_F_ENH_BCD_ZERO, "%s has A=0 with B=%u C=%u D=%u", what, f->enh.b,
                f->enh.c, f->enh.d);
    if (f->has_enh && f->rev >= 2)
        judge_irdord_order(s, dir, what);
}

/* The IRD/ORD header Rev 1 stacks put in the private data before RFC
 * 6581 (frame.h): named, and decoded in the frame's summary. */
static void judge_legacy_irdord(S *s, int dir)
{
    const dirst *d = &s->d[dir];
    const mpa_leg_irdord *l = &d->fr.leg;
    if (l->order != MPA_LEG_NONE)
        finding(s, dir, d->frame_off + MPA_FRAME_HDR_LEN, MPA_F_QRK_LEG_IRDORD, "%s private data IRD %u ORD %u (%s)",
                mpa_key_kind_name(d->fr.kind), (unsigned)l->ird, (unsigned)l->ord,
                l->order == MPA_LEG_BE ? "32-bit, network order" : "32-bit, byte-swapped");
}

/* The other side must close after an improper frame: it must not answer
 * with a frame (Responder) or FPDUs (Initiator). */
static void judge_answer_to_improper(S *s, int dir, uint64_t off, const char *what)
{
    int o = !dir;
    dirst *od = &s->d[o];
    if (!od->have_frame || !(od->improper || od->bad_key) || od->close_done)
        return;
    od->close_done = 1;
    if (od->bad_key)
        finding(s, dir, off, MPA_F_FRM_KEY_CHECK,
                "%s sent after the peer's frame with an unknown key: the connection must be closed", what);
    else if (od->fr.kind == MPA_KEY_REQ)
        finding(s, dir, off, MPA_F_STA_BAD_REQ_CLOSE,
                "%s sent after an improperly formatted Request: the Responder must close TCP", what);
    else
        finding(s, dir, off, MPA_F_STA_BAD_REP_CLOSE,
                "%s sent after an improperly formatted Reply: the Initiator must close TCP", what);
}

static void negotiate(S *s);
static void hunt_enter(S *s, int dir, uint8_t markers, uint8_t crc, int mbase_known, uint32_t mbase,
                       const char *why);
static void hunt_told(S *s, int dir, uint8_t markers, uint8_t crc);
static uint8_t tri(int on);
static void hunt_report_skipped(S *s, int dir);
static void pd_complete(S *s, int dir);

static void key_finding(S *s, int dir)
{
    dirst *d = &s->d[dir];
    const mpa_frame *f = &d->fr;
    int o = !dir;
    int want_rep = is_kind(s, o, MPA_KEY_REQ);
    const uint8_t *ref = mpa_key_bytes(want_rep ? MPA_KEY_REP : MPA_KEY_REQ);
    int first = -1;
    for (int i = 0; i < MPA_KEY_LEN; i++)
        if (f->key[i] != ref[i]) {
            first = i;
            break;
        }
    char keyhex[3 * MPA_KEY_LEN + 1];
    for (int i = 0; i < MPA_KEY_LEN; i++)
        snprintf(keyhex + 3 * i, 4, "%02x%s", f->key[i], i + 1 < MPA_KEY_LEN ? " " : "");
    /* Which key was due depends on what the peer sent first. */
    if (!want_rep && evidence_lost(s, dir, d->frame_off, memcmp(f->key, "MPA ", 4) == 0 ? MPA_F_FRM_KEY_REQ :
                                   MPA_F_STA_REQ_FIRST, o, UINT64_MAX))
        return;
    if (want_rep) {
        finding(s, dir, d->frame_off + (uint64_t)first, MPA_F_FRM_KEY_REP,
                "Reply key octet %d is 0x%02x, expected 0x%02x ('%c') [%s]", first, f->key[first],
                ref[first], ref[first], keyhex);
    } else if (memcmp(f->key, "MPA ", 4) == 0) {
        finding(s, dir, d->frame_off + (uint64_t)first, MPA_F_FRM_KEY_REQ,
                "Request key octet %d is 0x%02x, expected 0x%02x ('%c') [%s]", first, f->key[first],
                ref[first], ref[first], keyhex);
    } else {
        finding(s, dir, d->frame_off, MPA_F_STA_REQ_FIRST,
                "first octets are not an MPA Request [%s]", keyhex);
    }
}

/* A startup frame of dir is complete (header and private data). */
static void frame_done(S *s, int dir)
{
    dirst *d = &s->d[dir];
    int o = !dir;
    dirst *od = &s->d[o];
    mpa_frame *f = &d->fr;

    if (d->rtr_frame) {
        /* 2007 RtR frame after the Reply: FPDU mode starts after it. */
        d->rtr_frame = 0;
        mpa_event ev;
        ev_init(s, &ev, MPA_EV_FRAME, dir, d->frame_off);
        ev.u.frame.frame = *f;
        ev.u.frame.frame.pd = d->pd;
        ev.u.frame.frame.pd_avail = d->pd_seen < MPA_STREAM_PD_KEEP ? d->pd_seen : MPA_STREAM_PD_KEEP;
        ev.u.frame.role = MPA_ROLE_INITIATOR;
        emit(s, &ev);
        finding(s, dir, d->frame_off, MPA_F_LEG_RTR_FRAME,
                "2007 interop \"MPA ID RtR Frame\" after the Reply (pre-standard; RFC 6581 uses an RTR FPDU)");
        enter_fpdu(s, dir, d->markers, d->crc, 0, "after the 2007 RtR frame");
        return;
    }

    d->have_frame = 1;
    mpa_event ev;
    ev_init(s, &ev, MPA_EV_FRAME, dir, d->frame_off);
    ev.u.frame.frame = *f;
    ev.u.frame.frame.pd = d->pd;
    uint32_t pd_have = d->pd_lost ? d->pd_valid : f->pd_len;
    ev.u.frame.frame.pd_avail = pd_have < MPA_STREAM_PD_KEEP ? pd_have : MPA_STREAM_PD_KEEP;
    /* RFC 5044 2: the Initiator is the first to send data.  A Reply key
     * as the very first octets of the connection, from the side the
     * capture saw connect, is the Initiator's frame with the wrong key:
     * not a Responder speaking first (MPA-STA-RESP-WAIT). */
    int rep_as_req = f->kind == MPA_KEY_REP && !s->midstream && s->cfg.initiator == dir + 1 && od->off == 0 &&
                     od->mode == MPA_MODE_STARTUP && !od->have_frame;
    if (f->kind == MPA_KEY_REQ || rep_as_req)
        d->role = MPA_ROLE_INITIATOR;
    else if (f->kind == MPA_KEY_REP)
        d->role = MPA_ROLE_RESPONDER;
    else if (f->kind == MPA_KEY_STARTKEY)
        d->role = od->have_frame ? MPA_ROLE_INITIATOR : MPA_ROLE_RESPONDER;
    ev.u.frame.role = (mpa_role)d->role;
    emit(s, &ev);

    judge_answer_to_improper(s, dir, d->frame_off, mpa_key_kind_name(f->kind));

    if (rep_as_req) {
        if (s->init_dir < 0)
            s->init_dir = (int8_t)dir;
        d->bad_key = 1;
        key_finding(s, dir);
        set_mode(s, dir, MPA_MODE_STREAMING, "Reply key where a Request was due: not MPA");
        return;
    }
    switch (f->kind) {
    case MPA_KEY_UNKNOWN:
        d->bad_key = 1;
        key_finding(s, dir);
        set_mode(s, dir, MPA_MODE_STREAMING, "unknown key: not MPA");
        return;
    case MPA_KEY_RTR2007:
        finding(s, dir, d->frame_off, MPA_F_LEG_RTR_FRAME,
                "2007 interop \"MPA ID RtR Frame\" where a %s was due",
                is_kind(s, o, MPA_KEY_REQ) ? "Reply" : "Request");
        d->bad_key = 1;
        key_finding(s, dir);
        set_mode(s, dir, MPA_MODE_STREAMING, "RtR frame out of place: not MPA");
        return;
    case MPA_KEY_STARTKEY:
        finding(s, dir, d->frame_off, MPA_F_LEG_STARTKEY,
                "draft-03 Start Key \"MPA ident frame\": M=%u C=%u Rev %u (pre-standard)", f->m, f->c,
                f->rev);
        break;
    case MPA_KEY_REQ:
        judge_std_frame(s, dir);
        judge_legacy_irdord(s, dir);
        /* A property of the Request alone: judged whatever the answer. */
        if (f->has_enh && f->rev >= 2 && f->enh.a && !(f->enh.b | f->enh.c | f->enh.d))
            finding(s, dir, d->frame_off + 20, MPA_F_ENH_INIT_OPTS, "Request A=1 B=0 C=0 D=0");
        if (is_kind(s, o, MPA_KEY_REQ)) {
            finding(s, dir, d->frame_off, MPA_F_STA_INIT_INIT,
                    "both ends sent a Request (Initiator/Initiator): the connection must fail");
            s->failed = 1;
            set_mode(s, dir, MPA_MODE_STREAMING, "Initiator/Initiator");
            if (od->mode == MPA_MODE_STARTUP || od->mode == MPA_MODE_FPDU)
                set_mode(s, o, MPA_MODE_STREAMING, "Initiator/Initiator");
            return;
        }
        if (s->init_dir < 0)
            s->init_dir = (int8_t)dir;
        break;
    case MPA_KEY_REP:
        judge_std_frame(s, dir);
        judge_legacy_irdord(s, dir);
        if (!od->have_frame && !s->resp_wait_done &&
            !evidence_lost(s, dir, d->frame_off, MPA_F_STA_RESP_WAIT, o, UINT64_MAX)) {
            s->resp_wait_done = 1;
            if (od->nhdr || od->sub == SS_PD)
                finding(s, dir, d->frame_off, MPA_F_STA_RESP_WAIT,
                        "Reply sent before the Request was complete (%llu of its octets seen)",
                        (unsigned long long)od->off);
            else
                finding(s, dir, d->frame_off, MPA_F_STA_RESP_WAIT,
                        "Reply sent before any Request arrived");
        }
        if (s->init_dir < 0)
            s->init_dir = (int8_t)o;
        break;
    }

    d->sub = SS_HOLD;
    if (s->startup_lost && !s->negotiated) {
        /* The peer's frame fell in a hole: this side's framing is the
         * lost frame's secret, the peer's is told by this frame. */
        hunt_enter(s, dir, MPA_TRI_UNKNOWN, f->c ? MPA_TRI_ON : MPA_TRI_UNKNOWN, 1, seq_of(s, dir, d->off),
                   "the peer's startup frame was lost");
        if (od->mode == MPA_MODE_HUNT)
            hunt_told(s, o, tri(f->m), f->c ? MPA_TRI_ON : MPA_TRI_UNKNOWN);
        return;
    }
    if (od->have_frame && !s->negotiated)
        negotiate(s);
}

/* Both startup frames are known: settle the framing, check the pair. */
static void negotiate(S *s)
{
    s->negotiated = 1;
    int a = 0, b = 1;
    const mpa_frame *fa = &s->d[a].fr, *fb = &s->d[b].fr;

    if (fa->kind == MPA_KEY_STARTKEY || fb->kind == MPA_KEY_STARTKEY) {
        /* draft-03: M in a received Start Key binds its receiver's peer. */
        int crc = fa->c || fb->c;
        for (int dir = 0; dir < 2; dir++)
            if (s->d[dir].mode == MPA_MODE_STARTUP)
                enter_fpdu(s, dir, s->d[!dir].fr.m, crc, 0, "after the Start Keys");
        return;
    }
    int i = s->init_dir < 0 ? 0 : s->init_dir, r = !i;
    const mpa_frame *q = &s->d[i].fr, *p = &s->d[r].fr;
    if (q->kind != MPA_KEY_REQ || p->kind != MPA_KEY_REP) {
        s->failed = 1;
        return;
    }
    uint64_t roff = s->d[r].frame_off;
    int crc = q->c || p->c;

    /* CRCs off matter only to FPDUs: judged at the first one sent. */
    s->crc_default_due = !q->c && !p->c && !p->r;
    s->crc_default_dir = (uint8_t)r;
    s->crc_default_off = roff + 16;

    if (q->s && !p->s) {
        if (p->rev >= 2)
            finding(s, r, roff + 16, MPA_F_ENH_REPLY_ENH,
                    "Request has S=1 but the Rev %u Reply has S=0", p->rev);
        else
            finding(s, r, roff + 16, MPA_F_ENH_UNSUPPORTED,
                    "Request has S=1; a Rev 1 responder without enhanced support must close TCP, not reply");
    }
    if (!q->s && p->s)
        finding(s, r, roff + 16, MPA_F_ENH_REPLY_PLAIN, "Request has S=0 but the Reply has S=1");

    if (q->has_enh && p->has_enh) {
        const mpa_enh *qe = &q->enh, *pe = &p->enh;
        s->enh = 1;
        if (qe->a != pe->a)
            finding(s, r, roff + 20, MPA_F_ENH_A_ECHO, "Reply A=%u, Request A=%u", pe->a, qe->a);
        if (pe->a && !p->r && !(pe->b | pe->c | pe->d))
            finding(s, r, roff + 20, MPA_F_ENH_RESP_OPT, "Reply has A=1 but none of B, C, D");
        if (pe->ord > qe->ird && qe->ird != MPA_IRD_ORD_MAX && pe->ord != MPA_IRD_ORD_MAX)
            finding(s, r, roff + 20, MPA_F_ENH_ORD_LE_IRD, "responder ORD %u > initiator IRD %u", pe->ord,
                    qe->ird);
        if (!p->r && pe->ird < qe->ord && qe->ord != MPA_IRD_ORD_MAX && pe->ird != MPA_IRD_ORD_MAX)
            finding(s, r, roff + 20, MPA_F_ENH_IRD_GE_ORD,
                    "responder IRD %u < initiator ORD %u in an accepting Reply", pe->ird, qe->ord);
        if (qe->ord == MPA_IRD_ORD_MAX && pe->ird != MPA_IRD_ORD_MAX)
            finding(s, r, roff + 20, MPA_F_ENH_3FFF,
                    "initiator ORD 0x3FFF requires Reply IRD 0x3FFF, got %u", pe->ird);
        if (qe->ird == MPA_IRD_ORD_MAX && pe->ord != MPA_IRD_ORD_MAX)
            finding(s, r, roff + 20, MPA_F_ENH_3FFF,
                    "initiator IRD 0x3FFF requires Reply ORD 0x3FFF, got %u", pe->ord);
        s->rtr_expected = !p->r && qe->a && pe->a;
    }

    if (p->r) {
        s->rejected = 1;
        for (int k = 0; k < 2; k++) {
            int dir = k ? r : i;
            if (s->d[dir].mode == MPA_MODE_HUNT) {
                hunt_report_skipped(s, dir);
                set_mode(s, dir, MPA_MODE_STREAMING, "rejected (R=1): MPA left");
            } else {
                enter_fpdu(s, dir, k ? q->m : p->m, crc, PROBE_REJECT,
                           "rejected (R=1): MPA left, probing for FPDUs");
            }
        }
        return;
    }
    /* M in the Request binds the Responder's FPDUs, M in the Reply the
     * Initiator's (RFC 5044 7.1.1). */
    if (s->d[i].mode == MPA_MODE_STARTUP)
        enter_fpdu(s, i, p->m, crc, 0, "Reply received");
    else if (s->d[i].mode == MPA_MODE_HUNT)
        hunt_told(s, i, tri(p->m), tri(crc));
    if (s->d[r].mode == MPA_MODE_STARTUP)
        enter_fpdu(s, r, q->m, crc, 0, "Reply sent");
    else if (s->d[r].mode == MPA_MODE_HUNT)
        hunt_told(s, r, tri(q->m), tri(crc));
    s->d[i].peek = q->s; /* a 2007-style Initiator sends an RtR frame next */
}

/* ---- startup phase octets ------------------------------------------- */

/* A direction holding after its frame waits for the peer's frame; if
 * the peer can no longer send one, the holder's octets are not MPA. */
static int hold_dead(const S *s, int dir)
{
    uint8_t pm = s->d[!dir].mode;
    return s->failed || s->finished || pm == MPA_MODE_STREAMING || pm == MPA_MODE_CLOSED;
}


static size_t feed_startup(S *s, int dir, const uint8_t *p, size_t len)
{
    dirst *d = &s->d[dir];
    size_t i = 0;
    while (i < len && d->mode == MPA_MODE_STARTUP) {
        if (d->sub == SS_HOLD) {
            /* Octets after our frame before the peer's frame settles the
             * framing: report once, then wait for the other direction,
             * unless the peer can no longer send one. */
            if (hold_dead(s, dir)) {
                judge_answer_to_improper(s, dir, d->off, "octets");
                if (d->fr.kind == MPA_KEY_REQ && s->d[!dir].bad_key && !s->failed) {
                    /* An Initiator may tell the Responder why it gives
                     * up (Linux siw sends a TERMINATE): decode that
                     * FPDU, markers off since none were settled. */
                    enter_fpdu(s, dir, 0, 0, PROBE_BAD_KEY, NULL);
                    return i;
                }
                set_mode(s, dir, MPA_MODE_STREAMING, "the peer never completed the startup");
                return i;
            }
            if (!d->early_done) {
                d->early_done = 1;
                if (d->role == MPA_ROLE_INITIATOR &&
                    !evidence_lost(s, dir, d->off, MPA_F_STA_INIT_FPDU_WAIT, !dir, UINT64_MAX))
                    finding(s, dir, d->off, MPA_F_STA_INIT_FPDU_WAIT,
                            "Initiator sent octets after its Request before the Reply arrived");
                else if (d->role == MPA_ROLE_RESPONDER &&
                         !evidence_lost(s, dir, d->off, MPA_F_STA_RESP_WAIT, !dir, UINT64_MAX))
                    finding(s, dir, d->off, MPA_F_STA_RESP_WAIT,
                            "Responder sent octets after its Reply before any Request arrived");
            }
            return i;
        }
        if (d->sub == SS_HDR) {
            if (d->nhdr == 0)
                d->frame_off = d->off;
            size_t want = (d->nhdr < MPA_KEY_LEN ? MPA_KEY_LEN : MPA_FRAME_HDR_LEN) - d->nhdr;
            size_t take = want < len - i ? want : len - i;
            memcpy(d->hdr + d->nhdr, p + i, take);
            d->nhdr = (uint8_t)(d->nhdr + take);
            d->off += take;
            i += take;
            if (d->nhdr < MPA_KEY_LEN)
                continue;
            size_t need;
            mpa_status st = mpa_frame_decode(d->hdr, d->nhdr, &d->fr, &need);
            if (st == MPA_NEED_MORE && d->nhdr < MPA_FRAME_HDR_LEN)
                continue;
            d->fr.pd = NULL;
            d->fr.pd_avail = 0;
            d->pd_seen = 0;
            d->pd_lost = 0;
            d->nhdr = 0;
            if (st == MPA_NEED_MORE) {
                d->sub = SS_PD;
                continue;
            }
            frame_done(s, dir);
            continue;
        }
        /* SS_PD */
        size_t take = d->fr.pd_len - d->pd_seen;
        if (take > len - i)
            take = len - i;
        if (d->pd_seen < MPA_STREAM_PD_KEEP) {
            size_t keep = MPA_STREAM_PD_KEEP - d->pd_seen;
            memcpy(d->pd + d->pd_seen, p + i, take < keep ? take : keep);
        }
        d->pd_seen += (uint32_t)take;
        d->off += take;
        i += take;
        if (d->pd_seen == d->fr.pd_len)
            pd_complete(s, dir);
    }
    return i;
}

/* ---- FPDU mode ------------------------------------------------------- */

enum { VER_QRK = 1, VER_DV = 2, VER_RV = 4, VER_RV_SAME = 8 };

/* DDP and RDMAP versions, named once per direction each: a sender that
 * gets the version wrong gets it wrong in every FPDU.  DDP version 0 is
 * the pre-standard RDMAC headers (MPA-QRK-DDP-VERSION), read with the
 * version 1 layout like every other FPDU; other DDP versions are
 * MPA-DDP-VERSION.  RDMAP version 00b (RDMA Consortium) and 01b are both
 * valid (RFC 5040 4.1): MPA-RDMAP-VERSION is RV 2 or 3, or 00b on an
 * RFC 7306 message (RFC 7306 4.1); a direction whose valid RV changes
 * from one FPDU to another is MPA-RDMAP-VERSION-SAME. */
static void judge_versions(S *s, int dir, uint64_t off, const mpa_ddp_hdr *h, uint32_t an)
{
    dirst *d = &s->d[dir];
    unsigned dv0 = (an & MPA_DDP_AN_DV) && h->dv == 0;
    if (dv0 && !(d->ver_done & VER_QRK)) {
        d->ver_done |= VER_QRK;
        finding(s, dir, off, MPA_F_QRK_DDP_VERSION, "DV=%u RV=%u", h->dv, h->rv);
    }
    if ((an & MPA_DDP_AN_DV) && !dv0 && !(d->ver_done & VER_DV)) {
        d->ver_done |= VER_DV;
        finding(s, dir, off, MPA_F_DDP_VERSION, "DV=%u", h->dv);
    }
    if ((an & MPA_DDP_AN_RV) && !(d->ver_done & VER_RV)) {
        d->ver_done |= VER_RV;
        if (h->rv == 0)
            finding(s, dir, off, MPA_F_RDMAP_VERSION, "RV=0 on an RFC 7306 message (%s)",
                    mpa_rdmap_opcode_name(h->opcode));
        else
            finding(s, dir, off, MPA_F_RDMAP_VERSION, "RV=%u", h->rv);
    }
    if (h->rv > 1)
        return;
    if (!d->rv_first)
        d->rv_first = (uint8_t)(h->rv + 1);
    else if (d->rv_first != h->rv + 1 && !(d->ver_done & VER_RV_SAME)) {
        d->ver_done |= VER_RV_SAME;
        finding(s, dir, off, MPA_F_RDMAP_VERSION_SAME, "RV=%u after RV=%u in earlier FPDUs", h->rv,
                d->rv_first - 1u);
    }
}

static void map_ddp_anomalies(S *s, int dir, uint64_t off, const mpa_ddp *dd, uint32_t an)
{
    const mpa_ddp_hdr *h = &dd->hdr;
    const char *op = mpa_rdmap_opcode_name(h->opcode);
    judge_versions(s, dir, off, h, an);
    if (an & MPA_DDP_AN_DDP_RSVD)
        finding(s, dir, off, MPA_F_DDP_RSVD, "DDP control reserved bits 0x%x", h->ddp_rsvd);
    if (an & (MPA_DDP_AN_RDMAP_RSVD | MPA_DDP_AN_RSVDULP_NONZERO))
        finding(s, dir, off, MPA_F_RDMAP_RSVD, "%s: reserved RDMAP bits 0x%x, RsvdULP 0x%08x", op,
                h->rdmap_rsvd, h->tagged ? 0u : h->rsvdulp);
    if (an & MPA_DDP_AN_OPCODE_UNKNOWN)
        finding(s, dir, off, MPA_F_RDMAP_OPCODE, "RDMAP opcode 0x%x is not defined", h->opcode);
    if (an & MPA_DDP_AN_TAGGED_MISMATCH)
        finding(s, dir, off, MPA_F_RDMAP_TAGGED, "%s sent with T=%u", op, h->tagged);
    if ((an & MPA_DDP_AN_QN) && h->opcode != MPA_RDMAP_TERMINATE)
        finding(s, dir, off, MPA_F_DDP_QN, "%s to QN %u", op, h->qn);
    if (an & (MPA_DDP_AN_NOT_LAST | MPA_DDP_AN_MO_NONZERO | MPA_DDP_AN_TRAILING))
        finding(s, dir, off, MPA_F_RDMAP_ONE_SEG, "%s with L=%u MO=%u, %zu octets after the header", op,
                h->last, h->mo, dd->payload_len);
    if (an & (MPA_DDP_AN_ATOMIC_OP | MPA_DDP_AN_ATOMIC_RSVD))
        finding(s, dir, off, MPA_F_RDMAP_ATOMIC, "Atomic Request AOpCode 0x%x, reserved 0x%x",
                dd->u.atomic_req.aop, dd->u.atomic_req.rsvd);
    if (an & MPA_DDP_AN_EXT_LEN)
        finding(s, dir, off, MPA_F_RDMAP_EXT_LEN, "%s with L=%u MO=%u, %zu octets after the header", op, h->last,
                h->mo, dd->payload_len);
    if (an & MPA_DDP_AN_ATOMIC_UNUSED)
        finding(s, dir, off, MPA_F_RDMAP_ATOMIC_UNUSED, "FetchAdd with Compare Data 0x%llx, Compare Mask 0x%llx",
                (unsigned long long)dd->u.atomic_req.compare_data, (unsigned long long)dd->u.atomic_req.compare_mask);
}

/* RFC 7306 5.2.2: an Atomic Response answers, in order, the Atomic
 * Requests of the other side (atomicq.h).  valid: the Request drew no
 * format finding and its CRC is good, so it is owed a Response (5.2.1). */
static void check_atomic(S *s, int dir, uint64_t off, const mpa_ddp *dd, int valid)
{
    if (s->midstream || !dd->complete)
        return; /* Requests before the capture began are unknown */
    if (dd->hdr.opcode == MPA_RDMAP_ATOMIC_REQUEST) {
        /* RFC 7306 5.1.1, 5.1.2, 8.2: a misaligned one gets a TERMINATE */
        int mis = (dd->u.atomic_req.to & 7u) != 0;
        if (mis) /* RFC 7306 5.2.1: the requester names an aligned target */
            finding(s, dir, off, MPA_F_RDMAP_ATOMIC_REQ_ALIGN, "Atomic Request %u: Remote Tagged Offset 0x%llx",
                    dd->u.atomic_req.req_id, (unsigned long long)dd->u.atomic_req.to);
        atomicq_push_marks(&s->d[dir].aq, dd->u.atomic_req.req_id, mis, valid && !mis);
        return;
    }
    if (dd->hdr.opcode != MPA_RDMAP_ATOMIC_RESPONSE)
        return;
    uint32_t id = dd->u.atomic_resp.orig_req_id, old = 0;
    atomicq *q = &s->d[!dir].aq;
    switch (atomicq_answer(q, id, &old)) {
    case ATOMICQ_OK:
    case ATOMICQ_NOT_JUDGED:
        break;
    case ATOMICQ_NONE:
        finding(s, dir, off, MPA_F_RDMAP_ATOMIC_RESP, "Original Request Identifier %u, no Atomic Request outstanding",
                id);
        break;
    case ATOMICQ_SKIPS:
        finding(s, dir, off, MPA_F_RDMAP_ATOMIC_RESP,
                "Original Request Identifier %u, the older Request %u not answered before it", id, old);
        break;
    case ATOMICQ_UNKNOWN:
        finding(s, dir, off, MPA_F_RDMAP_ATOMIC_RESP,
                "Original Request Identifier %u, no outstanding Request has it (oldest %u)", id, old);
        break;
    }
    if (q->last_flag)
        finding(s, dir, off, MPA_F_RDMAP_ATOMIC_ALIGN,
                "Atomic Response to Request %u, whose Remote Tagged Offset is not 8-octet aligned", id);
}

/* RFC 7306 8.2: a TERMINATE that copies the header of an Atomic Request
 * while the peer's oldest outstanding one is misaligned answers it: its
 * codes are RDMAP, Remote Operation Error, catastrophic error localized
 * to the RDMAP Stream. */
static void check_atomic_term(S *s, int dir, uint64_t off, const mpa_term_ctl *c, const mpa_ddp_hdr *copied)
{
    const atomicq *q = &s->d[!dir].aq;
    if (copied->tagged || copied->opcode != MPA_RDMAP_ATOMIC_REQUEST || q->blind || !q->n ||
        !(q->flag >> q->head & 1u))
        return;
    if (c->layer == MPA_TERM_LAYER_RDMAP && c->etype == 2 && c->code == 0x07)
        return;
    finding(s, dir, off, MPA_F_RDMAP_ATOMIC_ALIGN,
            "TERMINATE %u/%u/0x%02x for the misaligned Atomic Request %u; RFC 7306 8.2 wants 0/2/0x07 (%s)", c->layer,
            c->etype, c->code, q->id[q->head], mpa_term_code_name(MPA_TERM_LAYER_RDMAP, 2, 0x07));
}

/* ---- TERMINATE plausibility (term.h), RDMA Read matching ------------ */

static uint32_t bswap32(uint32_t v)
{
    return (v >> 24) | (v >> 8 & 0xFF00u) | (v << 8 & 0xFF0000u) | (v << 24);
}

static uint64_t bswap64(uint64_t v)
{
    return (uint64_t)bswap32((uint32_t)v) << 32 | bswap32((uint32_t)(v >> 32));
}

/* 1 when what the capture holds of the peer's direction cannot show
 * whether it sent an FPDU. */
static int peer_unknown(const S *s, int dir)
{
    const dirst *p = &s->d[!dir];
    return s->midstream || s->startup_lost || p->st.gap_octets || p->mode == MPA_MODE_HUNT ||
           p->st.not_mpa_octets || p->data_len || p->unjudged;
}

/* A direction's FPDUs go unjudged or skipped: what it sent (Read and
 * Atomic Requests, their Responses) is no longer fully known, so the
 * request/response matching of both directions stops (no cascade). */
static void mark_unjudged(S *s, int dir)
{
    s->d[dir].unjudged = 1;
    seq_unknown(&s->d[dir]);
    s->d[0].rq.off = s->d[1].rq.off = 1;
    atomicq_blind(&s->d[0].aq);
    atomicq_blind(&s->d[1].aq);
}

static void term_ctx(const S *s, int dir, uint64_t index, mpa_term_ctx *x)
{
    const dirst *d = &s->d[dir];
    memset(x, 0, sizeof *x);
    const mpa_frame *q = s->init_dir >= 0 ? frame_of(s, s->init_dir) : NULL;
    const mpa_frame *r = s->init_dir >= 0 ? frame_of(s, !s->init_dir) : NULL;
    x->enhanced = (uint8_t)(s->enh || (q && q->s));
    x->rev2 = (uint8_t)(q && r && q->rev >= 2 && r->rev >= 2);
    /* either frame's A=1: code 7 also answers a Reply's A=1 that the
     * Request (A=0) did not ask for (RFC 6581 9.2: no common model) */
    x->request_a = s->init_dir >= 0 && ((s->d[s->init_dir].fr.has_enh && s->d[s->init_dir].fr.enh.a) ||
                                        (s->d[!s->init_dir].fr.has_enh && s->d[!s->init_dir].fr.enh.a));
    x->initiator = dir == s->init_dir;
    x->first = index == 0 || s->midstream || d->st.gap_octets;
    /* An FPDU still arriving counts: a receiver may judge its DDP
     * header before its last octet. */
    x->peer_fpdus = s->d[!dir].nfpdu > 0 || s->d[!dir].rx.started;
    x->peer_unknown = (uint8_t)peer_unknown(s, dir);
    if (s->midstream || s->startup_lost) {
        /* The startup frames are not in the capture: whether it was an
         * enhanced peer-to-peer startup is unknown, so it is assumed. */
        x->enhanced = 1;
        x->request_a = 1;
    }
}

static void record_sent(S *s, int dir, const mpa_ddp_hdr *h, uint32_t ulpdu_len)
{
    dirst *d = &s->d[dir];
    d->hist[d->hist_pos] = *h;
    d->hist_len[d->hist_pos] = (uint16_t)ulpdu_len;
    d->hist_pos = (uint8_t)((d->hist_pos + 1) % HIST_N);
}

/* RFC 5040 4.8: the copied DDP header is one the peer sent, and with
 * M=1 (seglen >= 0) the DDP Segment Length is that segment's length. */
static void check_copy(S *s, int dir, uint64_t off, const mpa_ddp_hdr *c, int32_t seglen)
{
    const dirst *p = &s->d[!dir];
    if (peer_unknown(s, dir) || p->rx.started) /* the segment may be the one still arriving */
        return;
    uint64_t n = p->nfpdu < HIST_N ? p->nfpdu : HIST_N;
    int found = 0;
    uint16_t len = 0;
    for (uint64_t i = 0; i < n; i++) {
        const mpa_ddp_hdr *h = &p->hist[i];
        if (h->tagged == c->tagged && h->opcode == c->opcode &&
            (c->tagged ? h->stag == c->stag && h->to == c->to : h->qn == c->qn && h->msn == c->msn && h->mo == c->mo)) {
            if (seglen < 0 || p->hist_len[i] == seglen)
                return;
            found = 1;
            len = p->hist_len[i];
        }
    }
    if (found) {
        finding(s, dir, off, MPA_F_TRM_SEGLEN, "M=1, DDP Segment Length %d; the copied %s segment's ULPDU_Length is %u",
                (int)seglen, mpa_rdmap_opcode_name(c->opcode), len);
        return;
    }
    if (p->nfpdu > HIST_N) /* it may be older than what is kept */
        return;
    if (c->tagged)
        finding(s, dir, off, MPA_F_TRM_COPY_MATCH, "copied tagged header: %s, STag 0x%08x, TO 0x%llx",
                mpa_rdmap_opcode_name(c->opcode), c->stag, (unsigned long long)c->to);
    else
        finding(s, dir, off, MPA_F_TRM_COPY_MATCH, "copied untagged header: %s, QN %u, MSN %u, MO %u",
                mpa_rdmap_opcode_name(c->opcode), c->qn, c->msn, c->mo);
}

/* RFC 5040 4.8: the copied RDMA header is a Read Request the peer sent
 * (its offsets and size may be advanced; its STags are the Request's). */
static void check_copy_rreq(S *s, int dir, uint64_t off, const mpa_rdma_read_req *r)
{
    const dirst *p = &s->d[!dir];
    if (peer_unknown(s, dir) || p->rx.started)
        return;
    uint64_t n = p->nrr < RQ_N ? p->nrr : RQ_N;
    for (uint64_t i = 0; i < n; i++)
        if (p->rr_stag[i][0] == r->sink_stag && p->rr_stag[i][1] == r->src_stag)
            return;
    if (p->nrr > RQ_N)
        return;
    finding(s, dir, off, MPA_F_TRM_COPY_MATCH, "copied Read Request header: sink STag 0x%08x, source STag 0x%08x",
            r->sink_stag, r->src_stag);
}

static int term_fmt(char *buf, size_t cap, const mpa_term_ctl *c)
{
    return snprintf(buf, cap, "%u/%u/%u %s/%s/%s", c->layer, c->etype, c->code,
                    mpa_term_layer_name(c->layer), mpa_term_etype_name(c->layer, c->etype),
                    mpa_term_code_name(c->layer, c->etype, c->code));
}

/* RFC 5040 4.8 Figure 10 (and RFC 7306 8.1 for its messages): which
 * headers a TERMINATE of each Layer and EType copies.  One finding per
 * TERMINATE; "if possible" cases (an RDMAP remote error without the DDP
 * header) are not judged, nor a DDP error without the header when the
 * peer sent no FPDU or the capture may have lost it (MPA-TRM-NO-FPDU's
 * matter), so a capture cut shorter never adds this finding. */
static void check_hdrct(S *s, int dir, uint64_t off, const mpa_term *t, const mpa_term_ctl *c,
                        const mpa_term_ctx *x)
{
    int rdmap = c->layer == MPA_TERM_LAYER_RDMAP, ddp = c->layer == MPA_TERM_LAYER_DDP;
    int none = c->layer == MPA_TERM_LAYER_LLP || (rdmap && c->etype == 0); /* no header copied */
    int prot = rdmap && c->etype == 1;
    int rreq = c->d && t->has_ddp_hdr && !t->ddp_hdr.tagged && t->ddp_hdr.opcode == MPA_RDMAP_READ_REQUEST;
    const char *why = NULL;
    if (none && (c->m || c->d || c->r))
        why = "a Local Catastrophic or LLP error copies no header";
    else if (ddp && c->etype != 0 && !c->d && x->peer_fpdus && !x->peer_unknown) /* a header to copy */
        why = "a DDP buffer error copies the DDP header";
    else if (c->r && !prot)
        why = "only a Remote Protection Error copies the RDMA header";
    else if (c->r && c->d && !rreq)
        why = "the RDMA header is copied only for a Read Request";
    else if (prot && rreq && !c->r)
        why = "a Remote Protection Error about a Read Request copies its RDMA header";
    if (!why)
        return;
    char a[112];
    term_fmt(a, sizeof a, c);
    finding(s, dir, off, MPA_F_TRM_HDRCT, "%s with M=%u D=%u R=%u%s%s: %s", a, c->m, c->d, c->r,
            c->d && t->has_ddp_hdr ? ", copied " : "",
            c->d && t->has_ddp_hdr ? mpa_rdmap_opcode_name(t->ddp_hdr.opcode) : "", why);
}

/* RFC 5040 4.8 and the error code tables, judged in context (term.h).
 * Fills e->term_quirk and e->term_read. */
static void check_terminate(S *s, int dir, uint64_t off, mpa_ev_fpdu *e)
{
    dirst *d = &s->d[dir];
    const mpa_ddp_hdr *h = &e->ddp.hdr;
    mpa_term_ctl sent, lebf;
    mpa_term_ctx x;
    mpa_term_ctl_of(&e->ddp.u.term, &sent);
    mpa_term_ctl_lebf(&sent, &lebf);
    term_ctx(s, dir, e->index, &x);
    mpa_term_verdict v = mpa_term_judge(&sent, &x, e->ulpdu, e->ulpdu_avail, e->ulpdu_len);
    int swapped = v != MPA_TERM_PLAUSIBLE && !mpa_term_ctl_same(&sent, &lebf) &&
                  mpa_term_judge(&lebf, &x, e->ulpdu, e->ulpdu_avail, e->ulpdu_len) == MPA_TERM_PLAUSIBLE;
    if (swapped && x.peer_unknown) {
        /* The capture lost what tells the readings apart: siw's reading
         * is taken only if it holds even had the peer sent no FPDU. */
        const dirst *p = &s->d[!dir];
        mpa_term_ctx strict = x;
        strict.peer_unknown = 0;
        /* An FPDU of the peer's was read, even one left unjudged. */
        strict.peer_fpdus = (uint8_t)(x.peer_fpdus || p->fpdu_seen);
        if (mpa_term_judge(&lebf, &strict, e->ulpdu, e->ulpdu_avail, e->ulpdu_len) != MPA_TERM_PLAUSIBLE) {
            /* Neither reading can be proved: the TERMINATE is shown as
             * sent and not judged (no finding either way). */
            e->term_quirk = MPA_TERM_AS_SENT;
            e->term_read = sent;
            (void)evidence_lost(s, dir, off, MPA_F_QRK_TRM_NIBBLES, !dir, UINT64_MAX);
            return;
        }
    }
    int zero = !swapped && !sent.layer && !sent.etype && !sent.code && !sent.m && !sent.d && !sent.r && !sent.rsvd;
    e->term_quirk = swapped ? MPA_TERM_LE_BITFIELD : zero ? MPA_TERM_ALL_ZERO : MPA_TERM_AS_SENT;
    e->term_read = swapped ? lebf : sent;
    const mpa_term_ctl *c = &e->term_read;

    if (h->tagged || h->qn != MPA_QN_TERMINATE || c->rsvd)
        finding(s, dir, off, MPA_F_TRM_FORMAT, "TERMINATE sent %s to QN %u, reserved bits 0x%x",
                h->tagged ? "tagged" : "untagged", h->tagged ? 0 : h->qn, c->rsvd);
    if (swapped) {
        char a[112], b[112];
        term_fmt(a, sizeof a, &sent);
        term_fmt(b, sizeof b, &lebf);
        finding(s, dir, off, MPA_F_QRK_TRM_NIBBLES, "as sent %s (%s); as siw writes it %s", a,
                mpa_term_verdict_str(v), b);
        /* The copied header follows siw's M/D bits. */
        size_t at = MPA_DDP_UNTAGGED_HDR_LEN + MPA_RDMAP_TERM_MIN_LEN + 2;
        if (lebf.d && e->ulpdu_avail > at) {
            mpa_ddp ch;
            size_t hl = (e->ulpdu[at] & 0x80u) ? MPA_DDP_TAGGED_HDR_LEN : MPA_DDP_UNTAGGED_HDR_LEN;
            if (e->ulpdu_avail >= at + hl) {
                (void)mpa_ddp_decode(e->ulpdu + at, hl, hl, &ch, NULL);
                check_copy(s, dir, off, &ch.hdr, -1);
            }
        }
        return;
    }
    if (zero) {
        if (!d->qrk_zero_done) {
            d->qrk_zero_done = 1;
            finding(s, dir, off, MPA_F_QRK_TRM_ZERO, "Layer 0 EType 0 code 0, M=D=R=0");
        }
        return;
    }
    char a[112];
    switch (v) {
    case MPA_TERM_PLAUSIBLE:
        break;
    case MPA_TERM_UNDEFINED:
        finding(s, dir, off, MPA_F_TRM_CODE, "TERMINATE Layer %u EType %u code %u is not defined (%s/%s)",
                c->layer, c->etype, c->code, mpa_term_layer_name(c->layer),
                mpa_term_etype_name(c->layer, c->etype));
        break;
    case MPA_TERM_LAYOUT:
        finding(s, dir, off, MPA_F_RDMAP_ONE_SEG, "Terminate of %u octets; M=%u D=%u R=%u announce %zu",
                e->ulpdu_len, c->m, c->d, c->r, mpa_term_ctl_len(c, e->ulpdu, e->ulpdu_avail));
        break;
    case MPA_TERM_LLP_STARTUP:
        finding(s, dir, off, MPA_F_TRM_LLP_STARTUP, "LLP/MPA code %u (%s): %s, FPDU #%llu of the %s", c->code,
                mpa_term_code_name(c->layer, c->etype, c->code),
                !x.enhanced ? "startup not enhanced" : !x.request_a && c->code == 7 ? "A=0 in both startup frames" : "enhanced",
                (unsigned long long)e->index + 1, x.initiator ? "Initiator" : "Responder");
        break;
    case MPA_TERM_NO_PEER_FPDU:
        term_fmt(a, sizeof a, c);
        finding(s, dir, off, MPA_F_TRM_NO_FPDU, "%s; the peer sent no FPDU", a);
        break;
    }
    if (v != MPA_TERM_UNDEFINED && v != MPA_TERM_LAYOUT) /* the bits alone, whatever the context */
        check_hdrct(s, dir, off, &e->ddp.u.term, c, &x);
    if (e->ddp.u.term.has_ddp_hdr) {
        check_copy(s, dir, off, &e->ddp.u.term.ddp_hdr, c->m ? (int32_t)e->ddp.u.term.seglen : -1);
        check_atomic_term(s, dir, off, c, &e->ddp.u.term.ddp_hdr);
    }
    if (e->ddp.u.term.rdma_hdr_is_rreq)
        check_copy_rreq(s, dir, off, &e->ddp.u.term.rreq);
}

/* RFC 5040 6.1, RFC 6581 9.1: no more Read Requests outstanding than
 * negotiated in the enhanced startup frames: the Initiator's ORD at most
 * the Responder's IRD, the Responder's ORD at most the Initiator's IRD
 * (0x3FFF leaves a bound to the ULPs).  The negotiated read RTR counts
 * against the peer's IRD only (RFC 6581 9.1 raises the IRD for it, and
 * MPA-ENH-RTR-READ-IRD judges it alone).  Not judged once the queue
 * stopped (a Request or Response may be unseen); said once per direction. */
static void check_read_ord(S *s, int dir, uint64_t off, int rtr)
{
    const dirst *me = &s->d[dir], *peer = &s->d[!dir];
    read_q *q = &s->d[dir].rq;
    if (rtr || !s->enh || s->rejected || s->init_dir < 0 || s->midstream || s->startup_lost ||
        !me->fr.has_enh || !peer->fr.has_enh || q->off || q->ord_said || s->d[0].st.gap_octets ||
        s->d[1].st.gap_octets)
        return;
    uint32_t ord = me->fr.enh.ord, ird = peer->fr.enh.ird, rtrs = 0;
    for (unsigned k = 0; k < q->n; k++)
        rtrs += q->q[(q->head + k) % RQ_N].rtr;
    uint64_t open = (uint64_t)q->n + q->dropped;
    int over_ord = ord != 0x3FFFu && open - rtrs > ord;
    int over_ird = ird != 0x3FFFu && open > ird;
    if (!over_ord && !over_ird)
        return;
    q->ord_said = 1;
    int init = dir == s->init_dir;
    finding(s, dir, off, MPA_F_RDMAP_READ_ORD, "%llu Read Requests outstanding%s; %s ORD %u, %s IRD %u",
            (unsigned long long)open, rtrs ? " (one the read RTR)" : "", init ? "Initiator" : "Responder", ord,
            init ? "Responder" : "Initiator", ird);
}

static void read_req_sent(S *s, int dir, uint64_t off, const mpa_rdma_read_req *r, int rtr, int bad)
{
    dirst *d = &s->d[dir];
    d->rr_stag[d->rr_pos][0] = r->sink_stag;
    d->rr_stag[d->rr_pos][1] = r->src_stag;
    d->rr_pos = (uint8_t)((d->rr_pos + 1) % RQ_N);
    d->nrr++;
    read_q *q = &d->rq;
    if (q->n == RQ_N || q->dropped) {
        q->dropped++;
        check_read_ord(s, dir, off, rtr);
        return;
    }
    unsigned i = (q->head + q->n) % RQ_N;
    q->q[i].stag = r->sink_stag;
    q->q[i].to = r->sink_to;
    q->q[i].size = r->size;
    q->q[i].got = 0;
    q->q[i].off = off;
    q->q[i].rtr = (uint8_t)rtr;
    q->q[i].bad = (uint8_t)bad;
    q->n++;
    check_read_ord(s, dir, off, rtr);
}

/* The responder dir closes gracefully after the requester's own
 * graceful close, no TERMINATE sent either way, both directions whole in
 * the capture: a Request (Read or Atomic) the requester sent before its
 * FIN reached the responder (TCP delivered it first) and is still
 * unanswered was never acted on.  A close that comes first may cross
 * Requests still in flight: not judged.  Requests beyond the negotiated
 * bounds (ORD, the peer's IRD, a read RTR to IRD 0) need not be acted
 * on: not judged either. */
static int closed_owing(const S *s, int dir)
{
    const dirst *d = &s->d[dir], *p = &s->d[!dir];
    return p->mode == MPA_MODE_CLOSED && !p->end_rst && !d->terminated && !p->terminated &&
           d->mode == MPA_MODE_FPDU && !d->probe && !peer_unknown(s, dir) && !peer_unknown(s, !dir) &&
           !d->rx.started && !p->rq.ord_said && !(s->enh && d->fr.enh.ird == 0);
}

/* RFC 5040 5.2.1: the responder acts on every valid Read Request. */
static void judge_read_answered(S *s, int dir)
{
    const dirst *d = &s->d[dir];
    const read_q *q = &s->d[!dir].rq;
    if (!q->n || q->off || q->dropped || !closed_owing(s, dir))
        return;
    unsigned i = q->head, open = 0;
    for (unsigned k = 0; k < q->n; k++)
        open += !q->q[(q->head + k) % RQ_N].bad;
    if (!open)
        return;
    while (q->q[i].bad)
        i = (i + 1) % RQ_N;
    uint32_t stag = q->q[i].stag, size = q->q[i].size;
    uint64_t to = q->q[i].to;
    if (q->le) {
        stag = bswap32(stag);
        size = bswap32(size);
        to = bswap64(to);
    }
    finding(s, dir, d->off, MPA_F_RDMAP_READ_ANSWER,
            "FIN after the peer's FIN with %u Read Request%s unanswered, the oldest sink STag 0x%08x TO 0x%llx, "
            "%u octets (%u answered)",
            open, open == 1 ? "" : "s", stag, (unsigned long long)to, size, q->q[i].got);
}

/* RFC 7306 5.2.1: the Responder's RDMAP handles every Atomic Request;
 * a valid one (no format finding, an aligned target) gets an Atomic
 * Response (5.2.1, last rule), judged as Read Requests are. */
static void judge_atomic_answered(S *s, int dir)
{
    uint32_t oldest = 0;
    unsigned open = atomicq_owed(&s->d[!dir].aq, &oldest);
    if (!open || !closed_owing(s, dir))
        return;
    finding(s, dir, s->d[dir].off, MPA_F_RDMAP_ATOMIC_ANSWER,
            "FIN after the peer's FIN with %u Atomic Request%s unanswered, the oldest Request Identifier %u", open,
            open == 1 ? "" : "s", oldest);
}

static int resp_fits(const mpa_ddp_hdr *h, uint32_t len, uint32_t stag, uint64_t to, uint32_t size, uint32_t got)
{
    return h->stag == stag && h->to == to + got && (uint64_t)got + len <= size && (!h->last || got + len == size);
}

/* RFC 5040 5.2.2: Responses answer the Requests in order; each one
 * writes the Data Sink buffer the Request named. */
static void check_read_resp(S *s, int dir, uint64_t off, const mpa_ev_fpdu *e)
{
    read_q *q = &s->d[!dir].rq;
    const mpa_ddp_hdr *h = &e->ddp.hdr;
    uint32_t len = (uint32_t)e->ddp.payload_len;
    if (q->off)
        return;
    if (s->midstream || s->startup_lost || s->d[0].st.gap_octets || s->d[1].st.gap_octets) {
        q->off = 1; /* a Request or Response may be among the lost octets */
        return;
    }
    if (!q->n) {
        if (q->dropped) {
            q->dropped -= h->last;
            return;
        }
        q->off = 1;
        finding(s, dir, off, MPA_F_RDMAP_READ_MATCH,
                "Read Response STag 0x%08x TO 0x%llx, %u octets: no open Read Request", h->stag,
                (unsigned long long)h->to, len);
        return;
    }
    unsigned i = q->head;
    uint32_t stag = q->q[i].stag, size = q->q[i].size, got = q->q[i].got;
    uint64_t to = q->q[i].to;
    if (q->le) {
        stag = bswap32(stag);
        size = bswap32(size);
        to = bswap64(to);
    } else if (!resp_fits(h, len, stag, to, size, got) &&
               resp_fits(h, len, bswap32(stag), bswap64(to), bswap32(size), got)) {
        q->le = 1;
        finding(s, !dir, q->q[i].off, MPA_F_QRK_READ_LE,
                "Read Request sink STag 0x%08x TO 0x%llx size %u; the Response uses 0x%08x, 0x%llx, %u", stag,
                (unsigned long long)to, size, bswap32(stag), (unsigned long long)bswap64(to), bswap32(size));
        stag = bswap32(stag);
        size = bswap32(size);
        to = bswap64(to);
    }
    if (!resp_fits(h, len, stag, to, size, got)) {
        q->off = 1;
        finding(s, dir, off, MPA_F_RDMAP_READ_MATCH,
                "Response STag 0x%08x TO 0x%llx, %u octets, L=%u; Request STag 0x%08x TO 0x%llx, %u of %u answered",
                h->stag, (unsigned long long)h->to, len, h->last, stag, (unsigned long long)to, got, size);
        return;
    }
    q->q[i].got = got + len;
    if (h->last) {
        q->head = (uint8_t)((q->head + 1) % RQ_N);
        q->n--;
    }
}

/* ---- DDP sequencing (RFC 5041 4.1, 4.3, 5.2, 5.3) --------------------- */

enum {
    SEQ_SAID_START = 1,
    SEQ_SAID_NEXT = 2,
    SEQ_SAID_SAME = 4,
    SEQ_SAID_LAST = 8,
    SEQ_SAID_MO = 16,
    SEQ_SAID_MO_FIRST = 32,
    SEQ_SAID_RSVDULP = 64,
    SEQ_SAID_ZERO = 128,
    SEQ_SAID_LEN = 256,
    SEQ_SAID_FULL = 512
};

/* RFC 5044 4.5 (draft-03 7.3.2): DDP makes its ULPDUs as large as MULPDU
 * allows.  A segment of a message followed, in order, by a longer one of
 * the same message could have been longer: the next proves it fits.  A
 * few octets are left to markers (two of them: 8). */
#define SEQ_FULL_SLACK 8u

/* What this direction sent is no longer fully known (a hole, doubt, a
 * resync, a segment not judged): every queue is learnt again from its
 * next segment.  The rules said stay said. */
static void seq_unknown(dirst *d)
{
    for (unsigned i = 0; i < SEQ_NQ; i++)
        d->seq.q[i].st = 0;
    d->seq.tg_open = 0;
}

/* FPDU mode from its first octet: every queue's first MSN is 1. */
static void seq_start(S *s, int dir)
{
    dirst *d = &s->d[dir];
    seq_unknown(d);
    if (s->midstream || s->startup_lost || d->st.gap_octets)
        return;
    for (unsigned i = 0; i < SEQ_NQ; i++) {
        d->seq.q[i].st = SQ_KNOWN | SQ_FIRST;
        d->seq.q[i].msn = 0;
    }
}

/* A rule broken on queue q, said once per direction and queue. */
static int seq_say(seq_q *q, unsigned bit)
{
    if (q->said & bit)
        return 0;
    q->said |= bit;
    return 1;
}

static uint8_t seq_ctl(const mpa_ddp_hdr *h)
{
    return (uint8_t)(h->rv << 6 | h->rdmap_rsvd << 4 | h->opcode);
}

/* The segment opens (or, with L=1, is) a message, or goes on with it
 * (keep: SQ_MO0 from its earlier segments): the queue follows it. */
static void seq_learn(seq_q *q, const mpa_ddp_hdr *h, uint32_t len, unsigned keep)
{
    q->msn = h->msn;
    q->mo = h->mo + len;
    q->rsvdulp = h->rsvdulp;
    q->plen = len;
    q->ctl = seq_ctl(h);
    q->st = (uint8_t)(SQ_KNOWN | (h->last ? 0 : SQ_OPEN) | (h->mo == 0 ? SQ_MO0 : 0) | (keep & SQ_MO0));
}

/* RFC 5041 4.3: a new message begins on the queue; the one before it
 * had its first segment at MO 0 (sent out of order is only a SHOULD,
 * MO-ORDER: the MUST is broken when no segment at MO 0 came at all). */
static void seq_begin(S *s, int dir, uint64_t off, seq_q *q, const mpa_ddp_hdr *h)
{
    if (!(q->st & (SQ_FIRST | SQ_MO0)) && seq_say(q, SEQ_SAID_MO_FIRST))
        finding(s, dir, off, MPA_F_DDP_MO_FIRST, "QN %u MSN %u: no segment of the message at MO 0 (MSN %u begins)",
                h->qn, q->msn, h->msn);
}

/* RFC 5041 4.3, 5.2: a further segment of the open message keeps its
 * RsvdULP; a zero-length message is one segment. */
static void seq_more(S *s, int dir, uint64_t off, seq_q *q, const mpa_ddp_hdr *h, uint32_t len)
{
    if ((h->rsvdulp != q->rsvdulp || seq_ctl(h) != q->ctl) && seq_say(q, SEQ_SAID_RSVDULP))
        finding(s, dir, off, MPA_F_DDP_RSVDULP_SAME,
                "QN %u MSN %u: segment at MO %u carries RsvdULP 0x%02x %08x, the message's earlier segment 0x%02x %08x",
                h->qn, h->msn, h->mo, seq_ctl(h), h->rsvdulp, q->ctl, q->rsvdulp);
    if (h->last && h->mo == 0 && len == 0 && q->mo == 0 && seq_say(q, SEQ_SAID_ZERO))
        finding(s, dir, off, MPA_F_DDP_ZERO_ONE, "QN %u MSN %u: a zero-length message in more than one segment",
                h->qn, h->msn);
}

static void seq_untagged(S *s, int dir, uint64_t off, const mpa_ddp_hdr *h, uint32_t len)
{
    seq_q *q = &s->d[dir].seq.q[h->qn];
    if ((uint64_t)h->mo + len > UINT32_MAX && seq_say(q, SEQ_SAID_LEN))
        finding(s, dir, off, MPA_F_DDP_MSG_LEN, "QN %u MSN %u: MO %u plus %u payload octets reach past 2^32 - 1",
                h->qn, h->msn, h->mo, len);
    if (!(q->st & SQ_KNOWN)) {
        seq_learn(q, h, len, SQ_MO0); /* its start may be unseen */
        return;
    }
    if (q->st & SQ_OPEN) {
        if (h->msn == q->msn) {
            if (h->mo != q->mo && seq_say(q, SEQ_SAID_MO))
                finding(s, dir, off, MPA_F_DDP_MO_ORDER, "QN %u MSN %u: MO %u, %u octets sent before it", h->qn,
                        h->msn, h->mo, q->mo);
            else if (h->mo == q->mo && len > q->plen + SEQ_FULL_SLACK && seq_say(q, SEQ_SAID_FULL))
                finding(s, dir, off, MPA_F_FPD_ULPDU_FULL,
                        "QN %u MSN %u: a segment with %u payload octets follows one of the message with %u", h->qn,
                        h->msn, len, q->plen);
            seq_more(s, dir, off, q, h, len);
            seq_learn(q, h, len, q->st);
        } else if (h->mo == 0) {
            /* A new message while the last one has not ended. */
            if (seq_say(q, SEQ_SAID_LAST))
                finding(s, dir, off, MPA_F_DDP_LAST, "QN %u: MSN %u begins before the last segment (L=1) of MSN %u",
                        h->qn, h->msn, q->msn);
            seq_begin(s, dir, off, q, h);
            seq_learn(q, h, len, 0);
        } else {
            if (seq_say(q, SEQ_SAID_SAME))
                finding(s, dir, off, MPA_F_DDP_MSN_SAME, "QN %u: segment at MO %u carries MSN %u; the open message is MSN %u",
                        h->qn, h->mo, h->msn, q->msn);
            seq_learn(q, h, len, SQ_MO0);
        }
        return;
    }
    /* The queue's last message ended: this segment starts the next. */
    uint32_t want = q->msn + 1u; /* 0xFFFFFFFF is followed by 0 */
    if (h->msn == q->msn && h->mo != 0 && !(q->st & SQ_FIRST)) {
        /* A segment of the message after its L=1 segment (RFC 5041 4.1:
         * that one is sent after all the others); at MO 0 it is read as
         * a new message whose MSN did not go up. */
        if (seq_say(q, SEQ_SAID_LAST))
            finding(s, dir, off, MPA_F_DDP_LAST, "QN %u MSN %u: a segment (MO %u) follows the message's L=1 segment",
                    h->qn, h->msn, h->mo);
        seq_learn(q, h, len, q->st);
        return;
    }
    seq_begin(s, dir, off, q, h);
    if (h->msn != want) {
        if ((q->st & SQ_FIRST) ? seq_say(q, SEQ_SAID_START) : seq_say(q, SEQ_SAID_NEXT))
            finding(s, dir, off, (q->st & SQ_FIRST) ? MPA_F_DDP_MSN_START : MPA_F_DDP_MSN_NEXT,
                    "QN %u: MSN %u, expected %u", h->qn, h->msn, want);
    } else if (h->mo != 0 && seq_say(q, SEQ_SAID_MO)) {
        finding(s, dir, off, MPA_F_DDP_MO_ORDER, "QN %u MSN %u: the message's first segment has MO %u", h->qn, h->msn,
                h->mo);
    }
    seq_learn(q, h, len, 0);
}

/* RFC 5041 5.2, 5.3: a tagged message's next segment (same STag) goes
 * on where the last one ended.  A zero-length segment's STag and TO are
 * not checked (5.2); another STag is not judged (an RDMA Read Response
 * may come between the segments of an RDMA Write). */
static void seq_tagged(S *s, int dir, uint64_t off, const mpa_ddp_hdr *h, uint32_t len)
{
    seq_st *t = &s->d[dir].seq;
    if (len == 0)
        return;
    if (t->tg_open && h->stag == t->tg_stag && h->to != t->tg_to && !t->tg_said) {
        t->tg_said = 1;
        finding(s, dir, off, MPA_F_DDP_TO_ORDER, "STag 0x%08x: TO 0x%llx, the previous segment ended at 0x%llx",
                h->stag, (unsigned long long)h->to, (unsigned long long)t->tg_to);
    }
    else if (t->tg_open && h->stag == t->tg_stag && h->to == t->tg_to && len > t->tg_plen + SEQ_FULL_SLACK &&
             !t->tg_full_said) {
        t->tg_full_said = 1;
        finding(s, dir, off, MPA_F_FPD_ULPDU_FULL,
                "STag 0x%08x: a segment with %u payload octets follows one of the message with %u", h->stag, len,
                t->tg_plen);
    }
    t->tg_open = !h->last;
    t->tg_stag = h->stag;
    t->tg_to = h->to + len;
    t->tg_plen = len;
}

/* The segment's header is judged (its CRC and framing held, its shape
 * is the RFCs'); any other is not judged, and the sequencing of its
 * direction is learnt again (no cascade). */
static void check_seq(S *s, int dir, uint64_t off, const mpa_ev_fpdu *e, int judged)
{
    dirst *d = &s->d[dir];
    const mpa_ddp_hdr *h = &e->ddp.hdr;
    const uint32_t shape = MPA_DDP_AN_QN | MPA_DDP_AN_NOT_LAST | MPA_DDP_AN_MO_NONZERO | MPA_DDP_AN_TAGGED_MISMATCH |
                           MPA_DDP_AN_OPCODE_UNKNOWN;
    if (!judged || e->ddp_status != MPA_OK || (e->ddp_anomalies & shape) || e->ulpdu_len < e->ddp.hdr_len ||
        (!h->tagged && h->qn >= SEQ_NQ)) {
        seq_unknown(d);
        return;
    }
    uint32_t len = (uint32_t)(e->ulpdu_len - e->ddp.hdr_len);
    if (h->tagged)
        seq_tagged(s, dir, off, h, len);
    else
        seq_untagged(s, dir, off, h, len);
}

/* RFC 6581 RTR rules on the Initiator's FPDUs.  Runs for every FPDU,
 * so it returns early and formats strings only for a finding. */
/* The RTR types both sides offered that the Initiator can send (a read
 * RTR needs Responder IRD >= 1, RFC 6581 9.1), written to buf; 0 when
 * there is none and TERM code 7 is due (RFC 6581 9.2). */
static int rtr_usable(const S *s, char *buf, size_t cap)
{
    const mpa_enh *qe = &s->d[s->init_dir].fr.enh, *pe = &s->d[!s->init_dir].fr.enh;
    unsigned b = qe->b & pe->b, c = qe->c & pe->c, d = qe->d & pe->d & (pe->ird != 0);
    rtr_set_str(buf, cap, b, c, d);
    return (b | c | d) != 0;
}

/* TERM code 7 is owed (MPA-ENH-TERM-7): no usable RTR type, although
 * the Request offered some (a Request offering none is MPA-ENH-INIT-OPTS,
 * and what follows from it is not reported again). */
static int term7_owed(const S *s)
{
    const mpa_enh *qe = &s->d[s->init_dir].fr.enh;
    char buf[32];
    return (qe->b | qe->c | qe->d) && !rtr_usable(s, buf, sizeof buf);
}

static int check_rtr(S *s, int dir, uint64_t off, uint64_t index, const mpa_ev_fpdu *e, mpa_rtr_kind k)
{
    if (!s->rtr_expected || dir != s->init_dir || (index != 0 && !s->rtr_late))
        return 0;
    const mpa_ddp *dd = &e->ddp;
    const mpa_enh *pe = &s->d[!dir].fr.enh;
    char offered[32], both[32];
    rtr_set_str(offered, sizeof offered, pe->b, pe->c, pe->d);
    if (index == 0) {
        s->rtr_checked = 1;
        if (k == MPA_RTR_READ && (dd->u.rreq.sink_stag == 0 || dd->u.rreq.src_stag == 0) &&
            !s->d[dir].qrk_stag0_done) {
            s->d[dir].qrk_stag0_done = 1;
            finding(s, dir, off, MPA_F_QRK_RTR_STAG0, "read RTR: Data Sink STag 0x%08x, Data Source STag 0x%08x",
                    dd->u.rreq.sink_stag, dd->u.rreq.src_stag);
        }
        if (k != MPA_RTR_NONE) {
            int ok = (k == MPA_RTR_SEND && pe->b) || (k == MPA_RTR_WRITE && pe->c) ||
                     (k == MPA_RTR_READ && pe->d);
            if (!ok)
                finding(s, dir, off, MPA_F_ENH_RTR_MATCH, "sent %s RTR; the Reply offered %s",
                        rtr_name(k), offered);
            if (k == MPA_RTR_READ && pe->ird == 0)
                finding(s, dir, off, MPA_F_ENH_RTR_READ_IRD,
                        "zero-length RDMA Read RTR while the responder's IRD is 0");
            return 1;
        }
        if (dd->complete && dd->hdr.opcode == MPA_RDMAP_TERMINATE) {
            const mpa_term_ctl *t = &e->term_read; /* as the sender meant it */
            int term7 = t->layer == MPA_TERM_LAYER_LLP && t->etype == 0 && t->code == 7;
            int usable = rtr_usable(s, both, sizeof both);
            if (term7 && usable)
                finding(s, dir, off, MPA_F_ENH_RTR_MATCH,
                        "TERMINATE code 7 (no matching RTR option) although both sides offered %s", both);
            /* Where the read RTR fails only on the Responder's IRD 0, code 6
             * (insufficient IRD, RFC 6581 9.1) names the cause as well. */
            const mpa_enh *qe = &s->d[dir].fr.enh;
            int term6_ird = t->layer == MPA_TERM_LAYER_LLP && t->etype == 0 && t->code == 6 && qe->d && pe->d &&
                            pe->ird == 0;
            if (!term7 && !term6_ird && term7_owed(s))
                finding(s, dir, off, MPA_F_ENH_TERM_7, "first FPDU is a TERMINATE Layer %u EType %u code %u (%s)",
                        t->layer, t->etype, t->code, mpa_term_code_name(t->layer, t->etype, t->code));
            return 0;
        }
        s->rtr_late = 1;
        /* The first FPDU may be among octets the capture lost. */
        if (evidence_lost(s, dir, off, MPA_F_ENH_RTR_SEND, dir, off))
            return 0;
        finding(s, dir, off, MPA_F_ENH_RTR_SEND,
                "first FPDU after the enhanced Reply is %s, not a zero-length RTR (Reply offered %s)",
                dd->hdr.opcode <= 15 ? mpa_rdmap_opcode_name(dd->hdr.opcode) : "?", offered);
        return 0;
    }
    if (k != MPA_RTR_NONE) {
        s->rtr_late = 0;
        finding(s, dir, off, MPA_F_ENH_RTR_FIRST, "%s RTR is FPDU #%llu: %llu other FPDU(s) preceded it",
                rtr_name(k), (unsigned long long)index + 1, (unsigned long long)index);
        return 1;
    }
    return 0;
}

/* Segment starts in octets whose framing was lost: not counted. */
static void seg_drop(dirst *d)
{
    d->pend_seg = d->pend_aligned = 0;
    d->align_pend = 0;
}

static void on_marker(S *s, int dir, const fpdu_rx *rx)
{
    dirst *d = &s->d[dir];
    uint64_t moff = d->off - (uint32_t)(rx->pos - rx->mk.pos);
    if (moff < d->replay_to)
        return; /* counted and shown when first read (inner_replay) */
    d->st.markers++;
    if (d->probe)
        return;
    uint64_t fpdu_off = moff - (uint32_t)(rx->mk.pos - rx->mk.fpdu_start);
    int framing_bad = rx->mk.len_disagree || rx->mk.same_bad || rx->mk.ptr_bad;
    if (d->doubt && moff != d->mode_off) {
        /* Said already: the framing is in doubt.  With CRCs off only a
         * marker that agrees with the lengths clears it. */
        if (!framing_bad && !rx->mk.res_bad && !d->crc)
            d->doubt = 0;
    } else if (moff == d->mode_off) {
        if (rx->mk.reserved || rx->mk.fpduptr) {
            /* A hole forced the base window before a shifted grid could
             * be proved (mkmodel.h): not judged. */
            if (!(d->mk_unsure && evidence_lost(s, dir, moff, MPA_F_STA_FIRST_MARKER, dir, UINT64_MAX)))
                finding(s, dir, moff, MPA_F_STA_FIRST_MARKER,
                        "first FPDU-mode octets are %04x %04x, not the marker 0x00000000", rx->mk.reserved,
                        rx->mk.fpduptr);
            d->doubt = 1; /* what follows is read on a framing in doubt */
            d->strikes = 0;
            d->doubt_off = moff;
        }
    } else if ((rx->mk.res_bad || framing_bad) &&
               (d->mk_said || (d->mk_unsure && evidence_lost(s, dir, moff, MPA_F_MRK_LEN_AGREE, dir, UINT64_MAX)))) {
        if (framing_bad) {
            d->doubt = d->doubt_mk = 1;
            d->strikes = 0;
            d->doubt_off = moff;
        }
    } else {
        if (rx->mk.res_bad)
            finding(s, dir, moff, MPA_F_MRK_RES, "marker reserved 0x%04x, FPDUPTR 0x%04x (low bits set: %s)",
                    rx->mk.reserved, rx->mk.fpduptr, (rx->mk.fpduptr & 3) ? "yes" : "no");
        if (rx->mk.ptr_bad) {
            if (rx->mk.leading)
                finding(s, dir, moff, MPA_F_MRK_PTR,
                        "marker between FPDUs has FPDUPTR %u, expected 0", rx->mk.fpduptr);
            else
                finding(s, dir, moff, MPA_F_MRK_PTR,
                        "marker %u octets into an FPDU has FPDUPTR 0 (0 is only for markers between FPDUs)",
                        (unsigned)(rx->mk.pos - rx->mk.fpdu_start));
        }
        if (rx->mk.len_disagree)
            finding(s, dir, moff, MPA_F_MRK_LEN_AGREE,
                    "FPDUPTR %u, but the lengths put the FPDU's ULPDU_Length field %u octets back",
                    rx->mk.fpduptr,
                    (unsigned)(rx->mk.pos - rx->mk.fpdu_start - (rx->leading_marker ? MPA_MARKER_LEN : 0u)));
        if (rx->mk.same_bad)
            finding(s, dir, moff, MPA_F_MRK_SAME_FPDU,
                    "marker points to offset %llu, an earlier marker of the same FPDU to another start",
                    (unsigned long long)(moff - (rx->mk.fpduptr & ~3u)));
        if (framing_bad) {
            d->doubt = d->doubt_mk = 1;
            d->strikes = 0;
            d->doubt_off = moff;
        }
    }
    mpa_event ev;
    ev_init_n(s, &ev, MPA_EV_MARKER, dir, moff, sizeof ev.u.marker);
    ev.u.marker.reserved = rx->mk.reserved;
    ev.u.marker.fpduptr = rx->mk.fpduptr;
    ev.u.marker.fpdu_off = fpdu_off;
    ev.u.marker.leading = rx->mk.leading;
    emit(s, &ev);
}

/* RFC 5044 4.5: FPDUs fit MULPDU.  Named once per direction (the rest
 * are counted in the stats); when the peer's frame set Res bit 0x8, the
 * sender is Linux siw taking that as leave to send GSO-sized FPDUs. */
static void judge_mulpdu(S *s, int dir, uint64_t foff, uint32_t ulpdu_len)
{
    dirst *d = &s->d[dir];
    unsigned mul = mpa_mulpdu(s->cfg.emss[dir], d->markers);
    if (ulpdu_len <= mul)
        return;
    d->st.mulpdu_over++;
    if (ulpdu_len > d->st.mulpdu_largest)
        d->st.mulpdu_largest = ulpdu_len;
    if (d->mulpdu_done)
        return;
    d->mulpdu_done = 1;
    const mpa_frame *pf = frame_of(s, !dir);
    /* Whether GSO was offered is in the peer's frame: lost, not judged. */
    if (!pf && evidence_lost(s, dir, foff, MPA_F_FPD_MULPDU, !dir, UINT64_MAX))
        return;
    if (pf && (pf->kind == MPA_KEY_REQ || pf->kind == MPA_KEY_REP) && (pf->res & 0x8))
        finding(s, dir, foff, MPA_F_QRK_MULPDU_GSO, "ULPDU_Length %u > MULPDU %u (EMSS %u); peer Res 0x%x",
                ulpdu_len, mul, s->cfg.emss[dir], pf->res);
    else
        finding(s, dir, foff, MPA_F_FPD_MULPDU, "ULPDU_Length %u > MULPDU %u (EMSS %u, markers %s)", ulpdu_len,
                mul, s->cfg.emss[dir], d->markers ? "on" : "off");
}

/* What a probing direction sent is no FPDU (or it ended, or the capture
 * lost some of it): not MPA, from where the probe began.  After a reject
 * leaving MPA was said then; after a bad key it is said now. */
static void probe_failed(S *s, int dir)
{
    dirst *d = &s->d[dir];
    int bad_key = d->probe == PROBE_BAD_KEY;
    d->probe = 0;
    if (bad_key)
        set_mode_at(s, dir, d->mode_off, MPA_MODE_STREAMING, "the peer never completed the startup");
    else
        d->mode = MPA_MODE_STREAMING;
    data_add(s, dir, d->mode_off, d->off - d->mode_off, bad_key ? WHY_AFTER_BAD_KEY : WHY_AFTER_REJECT);
}

static void seg_commit(S *s, int dir);

/* A hole or the end: the segment starts seen count unless the framing
 * is in doubt with more than one bad FPDU, or an FPDU read in doubt is
 * left unfinished. */
static void seg_settle(S *s, int dir)
{
    dirst *d = &s->d[dir];
    if (d->doubt && (d->strikes > 1 || d->rx.started || d->rx.nmk))
        seg_drop(d);
    else
        seg_commit(s, dir);
}

/* The segment starts seen so far fall in octets whose framing held. */
static void seg_commit(S *s, int dir)
{
    dirst *d = &s->d[dir];
    d->st.segments += d->pend_seg;
    d->st.segments_aligned += d->pend_aligned;
    d->pend_seg = d->pend_aligned = 0;
    if (d->align_pend && !d->align_done) {
        d->align_done = 1;
        finding(s, dir, d->align_off, MPA_F_FPD_ALIGN,
                "TCP segment starts %u octets into an FPDU (later misaligned segments are counted only)",
                d->align_into);
    }
    d->align_pend = 0;
}

/*
 * No cascades (RFC 5044 6, 8): an FPDU with a bad CRC is reported once
 * (its header is still judged, its size is not); every FPDU after it
 * goes unjudged while the framing is in doubt.
 * A valid CRC clears the doubt (a corrupted octet, not a lost frame); a
 * second bad CRC means the lengths no longer find FPDUs: one finding says
 * where the framing was lost, and the direction hunts for an FPDU start
 * it can prove (hunt.h), its octets counted as skipped.  Returns 0 to
 * judge the FPDU, 1 to emit it unjudged, 2 when it is skipped.
 */
static size_t feed_dir(S *s, int dir, const uint8_t *p, size_t len);

/* n octets at offset off went into the hunt's ring (FPDU mode: copied
 * here; hunting: by hunt_feed).  A replay writes the same octets again;
 * a hole breaks the run. */
static void hist_note(dirst *d, uint64_t off, size_t n)
{
    if (off > d->hist_end || off < d->hist_end - d->hist_n) {
        d->hist_end = off;
        d->hist_n = 0;
    }
    if (off + n > d->hist_end) {
        uint64_t add = off + n - d->hist_end;
        d->hist_n = add >= HUNT_RING - d->hist_n ? HUNT_RING : d->hist_n + (uint32_t)add;
        d->hist_end = off + n;
    }
}

/* n octets at offset off into ring: the last HUNT_RING of them, in at
 * most two copies (the ring wraps). */
static void ring_write(uint8_t *ring, uint64_t off, const uint8_t *p, size_t n)
{
    size_t k = n > HUNT_RING ? n - HUNT_RING : 0;
    size_t at = (size_t)((off + k) & (HUNT_RING - 1)), m = n - k;
    size_t first = m < HUNT_RING - at ? m : HUNT_RING - at;
    rx_copy(ring + at, p + k, first);
    rx_copy(ring, p + k + first, m - first);
}

/*
 * The ring is written lazily.  Every octet read in FPDU mode goes into
 * it (hist_put), but most are never read from it: only a bad CRC, a
 * doubt and a resync look back.  So hist_put notes the run it is given
 * in the caller's buffer (merged with the one before when they follow
 * each other), and the octets are copied when the ring is read or
 * written otherwise (ring_sync, before any such use), or when the feed
 * call that lent the buffer returns (ring_keep).
 */
static void ring_sync(dirst *d)
{
    if (!d->lz_n)
        return;
    ring_write(d->h.ring, d->lz_off, d->lz_p, d->lz_n);
    d->lz_n = 0;
}

static void hist_put(dirst *d, uint64_t off, const uint8_t *p, size_t n)
{
    if (d->lz_n && d->lz_p + d->lz_n == p && d->lz_off + d->lz_n == off) {
        d->lz_n += n;
    } else {
        ring_sync(d);
        d->lz_p = p;
        d->lz_off = off;
        d->lz_n = n;
    }
#ifdef MPA_RING_CHECK
    ring_write(d->ck, off, p, n);
#endif
    hist_note(d, off, n);
}

/*
 * The feed call that lent the buffer returns: what is still only there
 * is copied, and with nothing in doubt only the octets of the FPDU being
 * read (from its first octet, a leading marker included).  No later read
 * asks for earlier ones: a bad CRC reads back to its own FPDU's start
 * (inner_chain, inner_next), at or after the one being read now; a doubt
 * starts at such a bad FPDU and keeps every octet from there (this is
 * not called plain then); a replay reads from inside the doubt; and the
 * hunt reads only what hunt_feed wrote since hunt_clear.
 */
static void ring_keep(dirst *d)
{
    if (!d->lz_n)
        return;
    int plain = d->mode == MPA_MODE_FPDU && !d->doubt && !d->dbuf_on && !d->inner_due && !d->along && !d->sh_on &&
                !d->replay_to && !d->probe && d->mk.state != MK_OPEN;
    if (plain) {
        uint32_t part = d->rx.started ? d->rx.pos - d->rx.start : d->rx.nmk;
        uint64_t from = d->off - part;
        if (d->lz_off + d->lz_n <= from) {
            d->lz_n = 0;
            return;
        }
        if (d->lz_off < from) {
            size_t skip = (size_t)(from - d->lz_off);
            d->lz_p += skip;
            d->lz_off = from;
            d->lz_n -= skip;
        }
    }
    ring_sync(d);
}

/* The n octets at offset from, as the ring holds them, into buf. */
static void ring_take(dirst *d, uint8_t *buf, uint64_t from, uint32_t n)
{
    ring_sync(d);
    for (uint32_t k = 0; k < n; k++) {
        buf[k] = d->h.ring[(from + k) & (HUNT_RING - 1)];
#ifdef MPA_RING_CHECK
        if (buf[k] != d->ck[(from + k) & (HUNT_RING - 1)]) {
            fprintf(stderr, "MPA_RING_CHECK: ring octet at offset %llu differs\n", (unsigned long long)(from + k));
            abort();
        }
#endif
    }
}

/* The hunt wrote n octets at off into the ring itself (check builds
 * follow them). */
static void ring_hunted(dirst *d, uint64_t off, const uint8_t *p, size_t n)
{
#ifdef MPA_RING_CHECK
    ring_write(d->ck, off, p, n);
#else
    (void)d, (void)off, (void)p, (void)n;
#endif
}

/* Can FPDUs inside the bad FPDU at foff prove themselves: CRCs on, the
 * marker form settled (mkmodel.h; a drifting grid places no FPDU start),
 * and every octet since foff held in the ring. */
static int inner_may(const dirst *d, const fpdu_rx *rx, uint64_t foff)
{
    uint64_t w = d->off - foff;
    return d->crc && !rx->mk_nocrc && (!d->markers || d->mk.state == MK_DONE) && w <= HUNT_RING &&
           d->hist_end == d->off && d->hist_n >= w;
}

/* Octets of the smallest FPDU: ULPDU_Length, an untagged DDP header
 * (RFC 5041 4.1), CRC. */
#define INNER_MIN (2u + MPA_DDP_UNTAGGED_HDR_LEN + 4u)

/*
 * A ULPDU_Length corrupted upwards (RFC 5044 4.1, 6): the FPDU read from
 * foff by its length swallowed the FPDUs that followed its true end, and
 * its CRC failed.  When the ring still holds all its octets, the
 * earliest start inside them (on the FPDU grid: 4-octet steps) from
 * which the lengths lead through at least one FPDU, every CRC valid
 * (RFC 5044 4.4) and every marker agreeing (4.3), up to the octet just
 * read, is where the FPDUs go on.  Returns that offset, or 0.  A
 * drifting marker grid (mk_nocrc) or CRCs off prove nothing here.
 */
static uint64_t inner_chain(S *s, int dir, uint64_t foff, const fpdu_rx *rx)
{
    dirst *d = &s->d[dir];
    uint64_t end = d->off;
    uint32_t w = (uint32_t)(end - foff);
    if (!inner_may(d, rx, foff))
        return 0;
    uint8_t buf[HUNT_RING];
    ring_take(d, buf, foff, w);
    for (uint32_t p = INNER_MIN; p + INNER_MIN <= w; p += 4) {
        fpdu_rx t;
        rx_init(&t, rx->markers, 1, rx->mbase, seq_of(s, dir, foff + p));
        t.mk_order = rx->mk_order;
        uint32_t at = p;
        int nf = 0, ok = 1;
        while (ok && at < w) {
            int item;
            /* Its length field first: an FPDU that cannot end in the
             * octets held proves nothing. */
            size_t step = nf == 0 && !t.started ? 8u : w - at;
            at += (uint32_t)rx_run(&t, buf + at, step < w - at ? step : w - at, &item);
            if (item == RX_FPDU) {
                ok = t.f.crc_wire == t.f.crc_calc;
                nf++;
            } else if (nf == 0 && rx_need(&t) > w - at) {
                ok = 0;
            } else if (item == RX_MARKER)
                ok = !(t.mk.res_bad || t.mk.ptr_bad || t.mk.len_disagree || t.mk.same_bad);
        }
        if (ok && nf)
            return foff + p;
    }
    return 0;
}

/* inner_chain found FPDUs from `inner` after the bad FPDU at foff that
 * ended at bad_end: the framing was lost there and is found again (one
 * finding); octets after bad_end and before `inner` are skipped. */
static void inner_found(S *s, int dir, uint64_t foff, uint64_t bad_end, uint64_t inner)
{
    dirst *d = &s->d[dir];
    if (inner > bad_end) {
        data_add(s, dir, bad_end, inner - bad_end, HUNT_WHY);
        data_flush(s, dir);
    }
    if (!d->mk_unsure || !evidence_lost(s, dir, foff, MPA_F_FPD_FRAMING_LOST, dir, UINT64_MAX))
        finding(s, dir, foff, MPA_F_FPD_FRAMING_LOST,
                "lengths not confirmed from offset %llu: FPDUs with valid CRCs follow from offset %llu, inside "
                "the octets a ULPDU_Length claimed; decoding resumes there",
                (unsigned long long)foff, (unsigned long long)inner);
    d->doubt = d->doubt_mk = d->strikes = d->dbuf_on = 0;
    d->inner_due = 0;
    d->st.resyncs++;
    seg_drop(d); /* segment starts placed by the wrong length */
}

/*
 * In doubt after the bad FPDU read from foff to bad_end, no FPDU inside
 * it proved itself yet: the offset where the first FPDU of some start
 * inside it would end, after the current octet (a start whose
 * ULPDU_Length and DDP/RDMAP control octets are well-formed,
 * hunt_plausible), or where the header of a start near bad_end is in.
 * 0: none the ring can hold.  Only starts before bad_end are looked at,
 * so this runs a few times per bad FPDU, not at every octet.
 */
static uint64_t inner_next(S *s, int dir, uint64_t foff, uint64_t bad_end, const fpdu_rx *rx)
{
    dirst *d = &s->d[dir];
    uint64_t now = d->off, due = 0;
    uint32_t w = (uint32_t)(now - foff), upto = (uint32_t)(bad_end - foff);
    if (!inner_may(d, rx, foff))
        return 0;
    for (uint32_t p = INNER_MIN; p < upto; p += 4) {
        uint8_t buf[12];
        uint32_t n = w - p < sizeof buf ? w - p : (uint32_t)sizeof buf;
        ring_take(d, buf, foff + p, n);
        fpdu_rx t;
        rx_init(&t, rx->markers, 1, rx->mbase, seq_of(s, dir, foff + p));
        t.mk_order = rx->mk_order;
        uint32_t at = 0;
        int item = RX_NONE;
        while (at < n && item != RX_FPDU)
            at += (uint32_t)rx_run(&t, buf + at, n - at, &item);
        uint64_t end;
        if (!(t.phase == RX_CRC || (t.phase == RX_BODY && t.nprefix >= 2))) {
            if (n == sizeof buf)
                continue; /* no header in 12 octets: a marker-only start */
            end = foff + p + sizeof buf; /* its header is not in yet */
        } else {
            uint8_t b[4] = {t.lenb[0], t.lenb[1], t.prefix[0], t.prefix[1]};
            if (!hunt_plausible(b))
                continue;
            end = foff + p + at + rx_need(&t);
        }
        if (end > now && end - foff <= HUNT_RING && (!due || end < due))
            due = end;
    }
    return due;
}

/* The FPDUs found by inner_chain from `from` are read again, and
 * decoding goes on from there (the octets up to the current one are
 * replayed; their markers were shown when first read). */
static void inner_replay(S *s, int dir, uint64_t from)
{
    dirst *d = &s->d[dir];
    uint64_t cur = d->off;
    uint32_t n = (uint32_t)(cur - from);
    uint8_t buf[HUNT_RING];
    ring_take(d, buf, from, n);
    fpdu_rx r = d->rx;
    rx_init(&d->rx, r.markers, r.crc_on, r.mbase, seq_of(s, dir, from));
    d->rx.mk_order = r.mk_order;
    d->off = from;
    d->replay_to = cur;
    if (feed_dir(s, dir, buf, n) < n || d->off != cur)
        d->off = cur; /* every mode takes every octet: cannot happen */
    d->replay_to = 0;
}

/* The first bad CRC of a doubt (RFC 5044 4.4, 7.1.1 C). */
static void crc_finding(S *s, int dir, uint64_t foff, const fpdu_rx *rx)
{
    const mpa_frame *own = frame_of(s, dir), *peer = frame_of(s, !dir);
    if (own && peer && !own->c && peer->c)
        finding(s, dir, foff + rx->f.wire_len - 4, MPA_F_CRC_NEGOTIATE,
                "CRC field 0x%08x, CRC32C 0x%08x: this side sent C=0 but the peer's C=1 turns CRCs on",
                rx->f.crc_wire, rx->f.crc_calc);
    else
        finding(s, dir, foff + rx->f.wire_len - 4, MPA_F_CRC_VALID, "CRC field 0x%08x, CRC32C 0x%08x",
                rx->f.crc_wire, rx->f.crc_calc);
}

/*
 * A bad CRC put the framing in doubt (RFC 5044 4.4, 6): the lengths may
 * be wrong.  Past a ULPDU_Length corrupted downwards the next length is
 * payload, perhaps longer than all the sender still sends; waiting for
 * it would lose every later FPDU.  So from the end of the bad FPDU the
 * hunt reads the same octets alongside (hunt.h: CRCs on, the marker
 * phase known; its ring is the history ring, so nothing more is kept):
 * if it proves an FPDU before
 * the lengths lead to a valid CRC, the framing was lost and decoding
 * resumes there (along_won).  Only with CRCs in force: nothing else
 * proves an FPDU against the lengths.
 */
static void along_start(S *s, int dir, const fpdu_rx *rx)
{
    dirst *d = &s->d[dir];
    d->along = 0;
    if (!d->crc || d->probe || d->sh_on || d->mode != MPA_MODE_FPDU)
        return;
    hunt_start(&d->h, d->markers ? MPA_TRI_ON : MPA_TRI_OFF, MPA_TRI_ON, 1, rx->f.mbase);
    d->h.mk_order = rx->mk_order;
    d->h.mk_nocrc = rx->mk_nocrc;
    d->along = 1;
}

static int framing_doubt(S *s, int dir, uint64_t foff, const fpdu_rx *rx, int bad)
{
    dirst *d = &s->d[dir];
    if (!bad) {
        /* A marker of this FPDU disagreed: its octets were read with the
         * markers where the lengths put them, not judged. */
        int mk = d->doubt_mk;
        d->doubt_mk = 0;
        if (d->crc) {
            if (d->doubt && mk)
                d->mk_said = 1; /* the lengths held: the markers are wrong */
            d->doubt = d->dbuf_on = 0;
        }
        return d->doubt || mk;
    }
    if (!d->doubt || !d->dbuf_on) {
        d->dbuf_on = 1;
        d->dbuf_full = 0;
        d->dbuf_n = 0;
        d->dbuf_off = d->off;
        d->doubt_fpdu = foff;
        d->inner_due = inner_next(s, dir, foff, d->off, rx);
        along_start(s, dir, rx);
    }
    if (!d->doubt) {
        d->doubt = 1;
        d->strikes = 1;
        d->doubt_off = foff;
        crc_finding(s, dir, foff, rx);
        return 0; /* its DDP/RDMAP header is judged: the fault may be elsewhere */
    }
    /* While the shadow parse (the other marker setting) still reads its
     * first FPDU, it may yet explain the CRCs. */
    if (++d->strikes < 2 || d->sh_on)
        return 1;
    /* A wrong length whose claimed end fell inside the FPDU after it:
     * with the first bad FPDU and all since held, that FPDU is complete
     * now (inner_chain). */
    uint64_t inner = d->dbuf_on ? inner_chain(s, dir, d->doubt_fpdu, rx) : 0;
    if (inner) {
        inner_found(s, dir, d->doubt_fpdu, d->dbuf_off, inner);
        d->inner_from = inner;
        return 3;
    }
    if (!d->mk_unsure || !evidence_lost(s, dir, d->doubt_off, MPA_F_FPD_FRAMING_LOST, dir, UINT64_MAX))
        finding(s, dir, d->doubt_off, MPA_F_FPD_FRAMING_LOST, "lengths not confirmed from offset %llu",
                (unsigned long long)d->doubt_off);
    d->doubt = d->strikes = 0;
    d->dbuf_on = 0;
    seg_drop(d);
    /* Hunt from the end of the first bad FPDU when its octets are kept. */
    int again = !d->dbuf_full && d->dbuf_off + d->dbuf_n == d->off;
    uint64_t from = again ? d->dbuf_off : foff, to = d->off;
    if (again)
        d->off = from;
    hunt_enter(s, dir, d->markers ? MPA_TRI_ON : MPA_TRI_OFF, MPA_TRI_ON, 1, rx->f.mbase, "framing lost");
    d->h.mk_order = rx->mk_order;
    d->h.mk_nocrc = rx->mk_nocrc;
    d->h_off = d->h_from = from;
    d->h_lost = 1; /* the resync is counted, and shown as a mode change */
    if (again) {
        uint8_t buf[DOUBT_BUF];
        uint32_t n = d->dbuf_n;
        memcpy(buf, d->dbuf, n);
        if (feed_dir(s, dir, buf, n) < n || d->off != to)
            d->off = to; /* cannot happen: every mode takes every octet */
    }
    return 2;
}

/* The FPDU's size and pad (RFC 5044 4.1, 4.5; RFC 5041 4), once its
 * framing holds; the segment starts seen count from here. */
static void fpdu_size_checks(S *s, int dir, uint64_t foff, const fpdu_rx *rx, const mpa_ev_fpdu *e)
{
    seg_commit(s, dir);
    if (rx->f.pad_nonzero)
        finding(s, dir, foff, MPA_F_FPD_PAD, "pad octets (%u) not zero", rx->f.pad_len);
    if (rx->f.ulpdu_len > MPA_ULPDU_MAX)
        finding(s, dir, foff, MPA_F_FPD_ULPDU_MAX, "ULPDU_Length %u > 64768", rx->f.ulpdu_len);
    if (s->cfg.emss[dir])
        judge_mulpdu(s, dir, foff, rx->f.ulpdu_len);
    if (e->ddp_status == MPA_E_INVALID)
        finding(s, dir, foff, MPA_F_FPD_ZERO_LEN,
                "ULPDU of %u octets cannot hold the %zu-octet DDP/RDMAP header it starts", rx->f.ulpdu_len,
                e->ddp.need_len);
}

/*
 * CRCs off (RFC 5044 4.4: the CRC field proves nothing): after a length
 * corrupted either way the next "header" is payload, and judging it and
 * what follows would give a finding per misread field.  So in a
 * direction that has sent well-formed headers (hunt_plausible: RFC 5041
 * 4.1, RFC 5040 4), an FPDU whose header is not well-formed puts the
 * framing in doubt: one MPA-FPD-FRAMING-LOST, and that FPDU and the ones
 * after it are shown, not judged, until HUNT_CHAIN FPDUs in a row carry
 * well-formed headers (the lengths chain again; that one is judged).
 */
static void hdr_check(S *s, int dir, uint64_t foff, const uint8_t *b, int have)
{
    dirst *d = &s->d[dir];
    int ok = have && hunt_plausible(b);
    d->hdr_seen = 1;
    if (d->hdr_doubt) {
        if (!d->doubt) {
            d->hdr_doubt = 0; /* ended otherwise (a marker that agrees) */
        } else if (!ok) {
            d->hdr_doubt = 1;
        } else if (++d->hdr_doubt > HUNT_CHAIN) {
            d->hdr_doubt = 0;
            d->doubt = 0;
        }
        return;
    }
    if (ok)
        d->hdr_ok = 1;
    if (ok || !d->hdr_ok || d->doubt)
        return;
    d->doubt = d->hdr_doubt = 1;
    d->strikes = d->doubt_mk = 0;
    d->doubt_off = foff;
    if (!d->mk_unsure || !evidence_lost(s, dir, foff, MPA_F_FPD_FRAMING_LOST, dir, UINT64_MAX))
        finding(s, dir, foff, MPA_F_FPD_FRAMING_LOST,
                "lengths not confirmed from offset %llu: CRCs off, and the DDP/RDMAP header there is not "
                "well-formed",
                (unsigned long long)foff);
}

static void on_fpdu(S *s, int dir, const fpdu_rx *rx)
{
    dirst *d = &s->d[dir];
    uint64_t foff = d->off - (uint32_t)(rx->pos - rx->f.start);
    uint64_t index = d->nfpdu++;
    int crc_ok = rx->f.crc_wire == rx->f.crc_calc;
    d->fpdu_seen = 1;

    if (d->probe == PROBE_REJECT) {
        /* After a reject, only a CRC-valid FPDU counts as an FPDU. */
        if (crc_ok) {
            d->probe = 0;
            set_mode_at(s, dir, d->mode_off, MPA_MODE_FPDU, "an FPDU after the reject");
            finding(s, dir, foff, MPA_F_STA_NO_FPDU_AFTER_REJECT,
                    "an FPDU (ULPDU_Length %u, valid CRC) follows a Reply with R=1", rx->f.ulpdu_len);
        } else {
            probe_failed(s, dir);
            return;
        }
    } else if (d->probe == PROBE_BAD_KEY) {
        /* The startup failed: only an FPDU that holds a well-formed
         * TERMINATE is decoded; its CRC is shown good where it checks,
         * else not checked (none was negotiated). */
        mpa_ddp dd;
        size_t dneed;
        int term = mpa_ddp_decode(rx->prefix, rx->f.nprefix, rx->f.ulpdu_len, &dd, &dneed) == MPA_OK &&
                   dd.complete && dd.hdr.opcode == MPA_RDMAP_TERMINATE && !dd.hdr.tagged && dd.hdr.dv == 1 &&
                   dd.hdr.rv == 1;
        if (!term) {
            probe_failed(s, dir);
            return;
        }
        d->probe = 0;
        d->crc = (uint8_t)crc_ok;
        set_mode_at(s, dir, d->mode_off, MPA_MODE_FPDU, "a TERMINATE after the peer's unknown key");
    }

    if (s->crc_default_due) {
        s->crc_default_due = 0;
        /* Placed on the Reply, which settled it: neither end's FPDUs
         * can do otherwise once both frames said C=0. */
        finding(s, s->crc_default_dir, s->crc_default_off, MPA_F_CRC_DEFAULT,
                "C=0 in both Request and Reply: CRCs are off for this connection (first FPDU at %s offset %llu)",
                dir == s->init_dir ? "Initiator" : "Responder", (unsigned long long)foff);
    }

    mpa_event ev;
    /* Every member of u.fpdu is assigned below (mpa_ddp_decode fills
     * the whole decode), so only the header is cleared. */
    ev_init_n(s, &ev, MPA_EV_FPDU, dir, foff, 0);
    mpa_ev_fpdu *e = &ev.u.fpdu;
    e->index = index;
    e->wire_len = rx->f.wire_len;
    e->ulpdu_len = rx->f.ulpdu_len;
    e->pad_len = rx->f.pad_len;
    e->n_markers = (uint8_t)(rx->f.n_markers > 255 ? 255 : rx->f.n_markers);
    e->crc_wire = rx->f.crc_wire;
    e->crc_calc = rx->f.crc_calc;
    e->crc = !d->crc ? MPA_CRC_NOT_CHECKED : crc_ok ? MPA_CRC_GOOD : MPA_CRC_BAD;
    e->ulpdu = rx->prefix;
    e->ulpdu_avail = rx->f.nprefix;
    e->marker_phase = (uint16_t)((rx->f.start - rx->f.mbase) & (MPA_MARKER_INTERVAL - 1));
    e->marker_order = rx->mk_order;
    e->marker_nocrc = rx->mk_nocrc;
    size_t need;
    e->ddp_status = mpa_ddp_decode(rx->prefix, rx->f.nprefix, rx->f.ulpdu_len, &e->ddp, &need);
    e->ddp_anomalies = e->ddp_status == MPA_OK ? mpa_ddp_anomalies(&e->ddp) : 0;
    e->rtr = mpa_ddp_rtr_kind(&e->ddp);

    d->st.fpdus++;
    d->st.ulpdu_octets += rx->f.ulpdu_len;
    if (index == 0)
        d->first_fpdu_ok = crc_ok;

    e->negotiated_rtr = 0;
    e->term_quirk = MPA_TERM_AS_SENT; /* check_terminate says otherwise */
    memset(&e->term_read, 0, sizeof e->term_read);
    if (e->crc == MPA_CRC_BAD)
        d->st.crc_bad++;
    /* A ULPDU_Length corrupted upwards (inner_chain): the bad FPDU is
     * reported as its length reads (a receiver following RFC 5044 sees
     * that CRC fail), the framing lost there and found again at its true
     * end, where the FPDUs it swallowed are decoded; its header, which
     * the FPDUs before it place, is judged. */
    uint64_t inner = 0;
    if (!d->crc && !d->probe && !d->hdr_seen) {
        uint8_t b[4] = {(uint8_t)(rx->f.ulpdu_len >> 8), (uint8_t)rx->f.ulpdu_len, rx->prefix[0], rx->prefix[1]};
        hdr_check(s, dir, foff, b, rx->f.nprefix >= 2);
    }
    d->hdr_seen = 0;
    if (e->crc == MPA_CRC_BAD && !d->probe && !d->sh_on && (!d->doubt || (d->doubt_mk && !d->strikes)))
        inner = inner_chain(s, dir, foff, rx);
    if (inner) {
        if (!d->doubt)
            crc_finding(s, dir, foff, rx);
        inner_found(s, dir, foff, d->off, inner);
    } else if (e->crc == MPA_CRC_BAD || d->doubt) {
        int how = framing_doubt(s, dir, foff, rx, e->crc == MPA_CRC_BAD);
        if (how > 1) {
            /* Framing lost: these octets are skipped, not an FPDU. */
            mark_unjudged(s, dir);
            d->st.fpdus--;
            d->st.ulpdu_octets -= rx->f.ulpdu_len;
            d->nfpdu--;
            if (how == 3)
                inner_replay(s, dir, d->inner_from);
            return;
        }
        if (how) {
            mark_unjudged(s, dir);
            emit(s, &ev); /* decoded as read, not judged */
            return;
        }
    }
    /* A bad CRC leaves its ULPDU_Length unproven: its size is not judged
     * (the DDP/RDMAP header it starts with still is). */
    if (e->crc != MPA_CRC_BAD)
        fpdu_size_checks(s, dir, foff, rx, e);
    if (e->ddp_status == MPA_OK) {
        map_ddp_anomalies(s, dir, foff, &e->ddp, e->ddp_anomalies);
        check_atomic(s, dir, foff, &e->ddp, !e->ddp_anomalies && e->crc != MPA_CRC_BAD);
    }
    if (e->ddp_status == MPA_OK && e->ddp.hdr.opcode == MPA_RDMAP_TERMINATE)
        check_terminate(s, dir, foff, e);
    if (e->ddp_status == MPA_OK && e->ddp.hdr.opcode == MPA_RDMAP_READ_REQUEST && !e->ddp.hdr.tagged)
        read_req_sent(s, dir, foff, &e->ddp.u.rreq,
                      s->rtr_expected && dir == s->init_dir && index == 0 && e->rtr == MPA_RTR_READ,
                      !e->ddp.hdr.last || e->ddp.hdr.mo != 0 || e->crc == MPA_CRC_BAD ||
                          e->ddp.payload_len != 0);
    if (e->ddp_status == MPA_OK && e->ddp.hdr.opcode == MPA_RDMAP_READ_RESPONSE && e->ddp.hdr.tagged)
        check_read_resp(s, dir, foff, e);
    if (e->ddp.hdr_len && e->ddp.seen_len >= e->ddp.hdr_len)
        record_sent(s, dir, &e->ddp.hdr, e->ulpdu_len);
    /* Markers whose form a hole left unsettled may be read at the wrong
     * octets: the header the CRC covers is then not the one sent. */
    check_seq(s, dir, foff, e, e->crc != MPA_CRC_BAD && !d->doubt && !(d->markers && d->mk_unsure));
    e->negotiated_rtr = check_rtr(s, dir, foff, index, e, e->rtr);
    emit(s, &ev);
    if (e->ddp_status == MPA_OK && e->ddp.hdr.opcode == MPA_RDMAP_TERMINATE) {
        d->terminated = 1;
        /* RFC 5040 6.2.1: a graceful close is due (MPA-TRM-TEARDOWN),
         * except after RFC 6581's startup codes (sent before a reset)
         * or in a failed startup (no RDMAP Stream to tear down). */
        const mpa_term_ctl *c = &e->term_read;
        int startup = d->probe || s->failed || s->rejected || s->d[0].bad_key || s->d[1].bad_key;
        if (!startup && !(c->layer == MPA_TERM_LAYER_LLP && c->etype == 0 && c->code >= 5 && c->code <= 7))
            d->term_close = 1;
    }
    if (inner)
        inner_replay(s, dir, inner);
}

/* Before the first octet of an FPDU of dir. */
static void fpdu_begins(S *s, int dir)
{
    dirst *d = &s->d[dir];
    if (d->probe)
        return;
    if (d->terminated && !d->trm_last_done) {
        d->trm_last_done = 1;
        finding(s, dir, d->off, MPA_F_TRM_LAST, "octets follow this side's TERMINATE");
    }
    if (d->nfpdu == 0 && dir != s->init_dir && s->init_dir >= 0 && !s->resp_fpdu_done && !s->midstream &&
        !s->startup_lost && s->d[s->init_dir].nfpdu == 0) {
        s->resp_fpdu_done = 1;
        if (!evidence_lost(s, dir, d->off, MPA_F_STA_RESP_FPDU_WAIT, s->init_dir, UINT64_MAX))
            finding(s, dir, d->off, MPA_F_STA_RESP_FPDU_WAIT,
                    "Responder's first FPDU octet before any complete FPDU from the Initiator");
    }
    if (d->nfpdu == 0)
        judge_answer_to_improper(s, dir, d->off, "FPDU");
}

/* The shadow parse finished its first FPDU: were the markers wrong? */
static int shadow_done(S *s, int dir)
{
    dirst *d = &s->d[dir];
    d->sh_on = 0;
    if (d->sh.f.crc_wire != d->sh.f.crc_calc || d->first_fpdu_ok)
        return 0;
    uint64_t off = d->mode_off;
    if (d->markers)
        finding(s, dir, off, MPA_F_MRK_PRESENT,
                "the peer declared M=1 but this side sends no markers (its first FPDU checks only without "
                "them); decoding follows the sender");
    else
        finding(s, dir, off, MPA_F_MRK_PRESENT,
                "the peer declared M=0 but this side sends markers (its first FPDU checks only with "
                "them); decoding follows the sender");
    d->markers = !d->markers;
    d->rx = d->sh;
    d->nfpdu = 0;
    seq_start(s, dir);
    /* The octets from the start of FPDU mode are read again this way. */
    set_mode_at(s, dir, d->mode_off, MPA_MODE_FPDU, "marker setting taken from the sender's octets");
    return 1;
}

static void seg_begin(S *s, int dir);

/* MPA-QRK-MRK-GRID, said once per direction (mkmodel.h): how the grid
 * departs from RFC 5044 4.3 for the reading now in force. */
static void mk_grid_said(S *s, int dir, uint64_t at)
{
    const dirst *d = &s->d[dir];
    int nocrc = d->rx.markers && d->rx.mk_nocrc;
    uint32_t shift = mk_shift(&d->mk, nocrc);
    if (shift && nocrc)
        finding(s, dir, at, MPA_F_QRK_MRK_GRID,
                "grid shifted %u octets after the start of FPDU mode, and drifts +4 octets per FPDU (CRC not "
                "counted)",
                (unsigned)shift);
    else if (shift)
        finding(s, dir, at, MPA_F_QRK_MRK_GRID, "grid shifted %u octets after the start of FPDU mode",
                (unsigned)shift);
    else
        finding(s, dir, at, MPA_F_QRK_MRK_GRID, "grid drifts +4 octets per FPDU (CRC not counted)");
}

/* A window of the marker models is decided (mkmodel.h): say once what
 * the sender does differently, then decode the window's octets with the
 * model chosen, the TCP segment starts seen in it in their places (they
 * may open the next window: the octets and starts are copied first). */
static void mk_replay(S *s, int dir)
{
    dirst *d = &s->d[dir];
    mkmodel *m = &d->mk;
    uint8_t buf[MK_WIN];
    uint32_t seg[MK_SEGS];
    uint32_t nbuf = m->nbuf;
    unsigned nseg = m->nseg;
    memcpy(buf, m->buf, nbuf);
    memcpy(seg, m->seg, nseg * sizeof seg[0]);
    uint64_t at = d->off;
    if (m->alive & (1u << m->chosen))
        at += (uint32_t)(m->first_mk[m->chosen] - m->base_pos);
    int told = mk_apply(m, &d->rx);
    if (told & 1)
        finding(s, dir, at, MPA_F_QRK_MRK_PTR_ORDER, "%s",
                d->rx.mk_order == MK_ORDER_LE16 ? "FPDUPTR little-endian"
                                                : "marker word little-endian (FPDUPTR in octets 0-1)");
    if (told & 2)
        mk_grid_said(s, dir, at);
    uint32_t from = 0;
    for (unsigned k = 0; k <= nseg; k++) {
        uint32_t to = k < nseg ? seg[k] : nbuf;
        if (to > from)
            from += (uint32_t)feed_dir(s, dir, buf + from, to - from);
        if (k < nseg)
            seg_begin(s, dir);
    }
}

/* A hole, an end or a full list of segment starts: decide now. */
static void mk_flush(S *s, int dir)
{
    dirst *d = &s->d[dir];
    if (d->mk.state != MK_OPEN)
        return;
    mk_force(&d->mk);
    mk_replay(s, dir);
}

static void hunt_resume(S *s, int dir, const hunt_found *hf);

/* The hunt read alongside the doubt proved an FPDU (along_start) that
 * the lengths did not reach: one finding says where the lengths stopped
 * being confirmed, the octets from the bad FPDU's end to the proved
 * FPDU are skipped, and decoding resumes there (hunt_resume), as when a
 * second bad CRC loses the framing. */
static void along_won(S *s, int dir, const hunt_found *hf)
{
    dirst *d = &s->d[dir];
    d->along = 0;
    if (!d->mk_unsure || !evidence_lost(s, dir, d->doubt_off, MPA_F_FPD_FRAMING_LOST, dir, UINT64_MAX))
        finding(s, dir, d->doubt_off, MPA_F_FPD_FRAMING_LOST, "lengths not confirmed from offset %llu",
                (unsigned long long)d->doubt_off);
    d->doubt = d->strikes = d->doubt_mk = 0;
    d->dbuf_on = 0;
    d->inner_due = 0;
    seg_drop(d);
    mark_unjudged(s, dir);
    d->h_off = d->h_from = d->dbuf_off;
    d->h_lost = 1; /* the resync is counted, and shown as a mode change */
    set_mode_at(s, dir, d->dbuf_off, MPA_MODE_HUNT, "framing lost");
    hunt_resume(s, dir, hf);
}

/* The octet inner_next named is in: FPDUs from a start inside the bad
 * FPDU that all end in valid CRCs win (the FPDU being read from the
 * bad FPDU's end is dropped, its octets read again); else look again
 * later. */
static void inner_due(S *s, int dir)
{
    dirst *d = &s->d[dir];
    uint64_t inner = inner_chain(s, dir, d->doubt_fpdu, &d->rx);
    if (!inner) {
        d->inner_due = inner_next(s, dir, d->doubt_fpdu, d->dbuf_off, &d->rx);
        return;
    }
    inner_found(s, dir, d->doubt_fpdu, d->dbuf_off, inner);
    inner_replay(s, dir, inner);
}

/* A shifted grid found but not said yet, when no more windows come (the
 * capture ended or lost octets). */
static void mk_grid_flush(S *s, int dir)
{
    dirst *d = &s->d[dir];
    if (d->markers && mk_grid_pending(&d->mk))
        mk_grid_said(s, dir, d->off);
}

static size_t feed_fpdu_core(S *s, int dir, const uint8_t *p, size_t len)
{
    dirst *d = &s->d[dir];
    size_t i = 0;
    while (i < len && d->mode == MPA_MODE_FPDU) {
        /* Where the RFC puts the second marker, the models part: hold
         * the octets until the model is known (mkmodel.h). */
        if (d->markers && !d->probe && mk_due(&d->mk, &d->rx, d->crc))
            mk_open(&d->mk, &d->rx, d->crc);
        if (d->mk.state == MK_OPEN) {
            int decided;
            i += mk_take(&d->mk, p + i, len - i, &decided);
            if (decided)
                mk_replay(s, dir);
            continue;
        }
        if (d->inner_due && !(d->doubt && d->dbuf_on && !d->replay_to))
            d->inner_due = 0;
        if (!d->rx.started && d->rx.nmk == 0)
            fpdu_begins(s, dir);
        int item;
        size_t lim = mk_limit(&d->mk, &d->rx, len - i);
        if (d->inner_due && d->inner_due - d->off < lim)
            lim = (size_t)(d->inner_due - d->off);
        /* Nothing in doubt, the marker form settled, past the first
         * FPDU-mode octet, and (CRCs off) the header of the FPDU being
         * read judged already, which a return at a marker would do
         * below: a marker on_marker would only count and pass on is
         * counted here, when no one wants its event. */
        d->rx.mk_quiet = s->quiet_mk && d->rx.markers && d->mk.state == MK_DONE && !d->probe && !d->doubt &&
                         !d->dbuf_on && !d->inner_due && !d->along && !d->sh_on && !d->replay_to &&
                         d->off > d->mode_off && (d->crc || d->hdr_seen);
        size_t n = rx_run(&d->rx, p + i, lim, &item);
        if (d->rx.mk_quiet) {
            d->rx.mk_quiet = 0;
            d->st.markers += d->rx.quiet_n;
            d->rx.quiet_n = 0;
        }
        hist_put(d, d->off, p + i, n);
        /* CRCs off: the header is judged for framing as soon as it is in
         * (a length read from payload may never complete). */
        if (!d->crc && !d->probe && !d->hdr_seen && d->rx.started &&
            (d->rx.phase == RX_CRC || (d->rx.phase == RX_BODY && d->rx.nprefix >= 2))) {
            uint8_t b[4] = {d->rx.lenb[0], d->rx.lenb[1], d->rx.prefix[0], d->rx.prefix[1]};
            hdr_check(s, dir, d->off + n - rx_partial(&d->rx), b, d->rx.nprefix >= 2);
        }
        /* The hunt alongside a doubt reads the same octets; a proof
         * before the item the lengths complete here wins at once. */
        hunt_found hf;
        int won = 0;
        if (d->along && !(d->doubt && d->dbuf_on && !d->sh_on && !d->replay_to))
            d->along = 0;
        if (d->along) {
            d->h.mk_order = d->rx.mk_order;
            ring_sync(d);
            won = hunt_feed(&d->h, s->cfg.isn[dir], d->off, p + i, n, &hf);
            ring_hunted(d, d->off, p + i, won ? hf.used : n);
            if (won && hf.used < n) {
                /* The octets after the proof are read again from there. */
                uint32_t back = (uint32_t)(n - hf.used);
                d->hist_end -= back;
                d->hist_n = d->hist_n > back ? d->hist_n - back : 0;
                d->off += hf.used;
                i += hf.used;
                along_won(s, dir, &hf);
                continue;
            }
        }
        if (d->dbuf_on && !d->dbuf_full) {
            if (d->dbuf_n + n <= DOUBT_BUF) {
                memcpy(d->dbuf + d->dbuf_n, p + i, n);
                d->dbuf_n += (uint32_t)n;
            } else {
                d->dbuf_full = 1;
            }
        }
        if (d->sh_on) {
            size_t j = 0;
            int sitem = RX_NONE;
            while (j < n) {
                j += rx_run(&d->sh, p + i + j, n - j, &sitem);
                if (sitem == RX_FPDU)
                    break;
            }
            if (sitem == RX_FPDU) {
                /* Adopting the shadow drops the main parse's view of
                 * these octets: the adopted machine has read j of them. */
                if (shadow_done(s, dir)) {
                    d->off += j;
                    i += j;
                    on_fpdu(s, dir, &d->rx);
                    continue;
                }
            }
        }
        d->off += n;
        i += n;
        if (item == RX_MARKER)
            on_marker(s, dir, &d->rx);
        else if (item == RX_FPDU) {
            on_fpdu(s, dir, &d->rx);
            if (d->nfpdu == 1 && d->first_fpdu_ok)
                d->sh_on = 0;
        }
        /* In doubt: an FPDU inside the bad one may end here (inner_next). */
        if (d->inner_due && d->off >= d->inner_due && d->mode == MPA_MODE_FPDU) {
            if (d->doubt && d->dbuf_on && !d->replay_to)
                inner_due(s, dir);
            else
                d->inner_due = 0;
        }
        /* The hunt proved an FPDU ending where the lengths completed an
         * item: that item came first, and may have settled the doubt. */
        if (won && d->along && d->doubt && d->dbuf_on && d->mode == MPA_MODE_FPDU)
            along_won(s, dir, &hf);
        else if (won)
            d->along = 0;
    }
    ring_keep(d);
    return i;
}

static size_t feed_fpdu(S *s, int dir, const uint8_t *p, size_t len)
{
    dirst *d = &s->d[dir];
    if (!d->peek)
        return feed_fpdu_core(s, dir, p, len);
    /* 2007 proposal: an Initiator that set S may send "MPA ID RtR Frame"
     * before its FPDUs.  Hold octets while they match that key. */
    const uint8_t *key = mpa_key_bytes(MPA_KEY_RTR2007);
    size_t i = 0;
    while (i < len && d->npeek < MPA_KEY_LEN && p[i] == key[d->npeek])
        d->peekb[d->npeek++] = p[i++];
    if (d->npeek == MPA_KEY_LEN) {
        d->peek = 0;
        d->mode = MPA_MODE_STARTUP;
        d->sub = SS_HDR;
        d->rtr_frame = 1;
        d->frame_off = d->off;
        memcpy(d->hdr, d->peekb, MPA_KEY_LEN);
        d->nhdr = MPA_KEY_LEN;
        d->off += MPA_KEY_LEN;
        return i;
    }
    if (i == len)
        return i; /* still matching */
    /* Not an RtR frame: replay what was held, then go on. */
    d->peek = 0;
    uint8_t held[MPA_KEY_LEN];
    size_t nh = d->npeek;
    memcpy(held, d->peekb, nh);
    d->npeek = 0;
    size_t used = feed_fpdu_core(s, dir, held, nh);
    if (used < nh)
        data_add(s, dir, d->off, nh - used, "octets after the FPDU stream ended");
    d->off += nh - used;
    return i;
}

/* ---- hunting: resynchronising after a hole or a mid-stream start ----- */

static const char *tri_str(uint8_t t)
{
    return t == MPA_TRI_ON ? "on" : t == MPA_TRI_OFF ? "off" : "unknown";
}

/* Start hunting at the current octet of dir.  mbase (when known) fixes
 * the marker phase, or with markers off the FPDU starts modulo 4. */
static void hunt_enter(S *s, int dir, uint8_t markers, uint8_t crc, int mbase_known, uint32_t mbase,
                       const char *why)
{
    dirst *d = &s->d[dir];
    hunt_start(&d->h, markers, crc, mbase_known, mbase);
    d->along = d->hdr_seen = 0;
    mark_unjudged(s, dir);
    d->h_off = d->off;
    d->h_from = d->off;
    d->probe = 0;
    d->sh_on = 0;
    d->peek = 0;
    d->npeek = 0;
    d->markers = markers == MPA_TRI_ON;
    d->crc = crc == MPA_TRI_ON;
    set_mode(s, dir, MPA_MODE_HUNT, why);
}

/* The direction ends while still hunting: what was tried, and from
 * where, so that a reader knows why the octets after a hole were not
 * decoded. */
static void hunt_gave_up(S *s, int dir, const char *when)
{
    dirst *d = &s->d[dir];
    if (d->off == d->h_from)
        return; /* nothing came after the hole */
    const hunt *h = &d->h;
    finding(s, dir, d->h_from, MPA_F_CAP_RESYNC_FAILED,
            "decoding did not resume after offset %llu (%s): %llu octets skipped; %u FPDU starts tried (%u "
            "pointed to by markers), none proved by a valid CRC or by %d FPDUs chained by their lengths and "
            "DDP headers (markers %s, CRC %s)",
            (unsigned long long)d->h_from, when, (unsigned long long)(d->off - d->h_from), h->tried,
            h->tried_marker, HUNT_CHAIN, tri_str(h->markers), tri_str(h->crc));
}

/* Report the octets skipped so far (they are counted, never dropped). */
static void hunt_report_skipped(S *s, int dir)
{
    dirst *d = &s->d[dir];
    if (d->off > d->h_off)
        data_add(s, dir, d->h_off, d->off - d->h_off, HUNT_WHY);
    d->h_off = d->off;
}

/* A startup frame told what a hunting direction does (MPA_TRI_UNKNOWN:
 * still not known). */
static void hunt_told(S *s, int dir, uint8_t markers, uint8_t crc)
{
    dirst *d = &s->d[dir];
    hunt_learn(&d->h, markers, crc);
    d->markers = d->h.markers == MPA_TRI_ON;
    d->crc = d->h.crc == MPA_TRI_ON;
}

static uint8_t tri(int on) { return on ? MPA_TRI_ON : MPA_TRI_OFF; }

/*
 * FPDUs before the one a resync starts at, proved after the fact: with
 * the marker phase now known, an earlier start is proved when the lengths
 * lead from it to `from` exactly, every CRC valid (RFC 5044 4.4) and
 * every marker agreeing (RFC 5044 4.3).  The earliest such start the ring
 * still holds is returned, or `from`.
 */
static uint64_t ring_earlier(S *s, int dir, const hunt_found *hf, uint64_t cur, uint64_t from)
{
    dirst *d = &s->d[dir];
    const fpdu_rx *w = &hf->rx;
    uint32_t avail = hf->ring_n < HUNT_RING ? hf->ring_n : HUNT_RING;
    if (!w->markers || w->mk_nocrc || !w->crc_on || hf->weak || cur - from >= avail)
        return from;
    uint64_t lo = cur - avail > d->h_off ? cur - avail : d->h_off;
    uint8_t buf[HUNT_RING];
    uint32_t n = (uint32_t)(from - lo);
    ring_take(d, buf, lo, n);
    for (uint32_t p = 0; p + 8 <= n; p++) {
        if (((seq_of(s, dir, lo + p) - w->mbase) & 3u) != 0)
            continue;
        fpdu_rx t;
        rx_init(&t, 1, 1, w->mbase, seq_of(s, dir, lo + p));
        t.mk_order = w->mk_order;
        uint32_t at = p;
        int nf = 0, ok = 1;
        while (ok && at < n) {
            int item;
            at += (uint32_t)rx_run(&t, buf + at, n - at, &item);
            if (item == RX_FPDU) {
                nf++;
                ok = t.f.crc_wire == t.f.crc_calc;
            } else if (item == RX_MARKER) {
                ok = !(t.mk.res_bad || t.mk.ptr_bad || t.mk.len_disagree || t.mk.same_bad);
            }
        }
        if (ok && nf && !t.started && !t.nmk)
            return lo + p;
    }
    return from;
}

/* The hunt found where FPDUs begin: decode from there on.  Every FPDU of
 * the chain that proved it is entirely present: when the ring still
 * holds them all, decoding resumes at the first and they are read again
 * (mid-stream, after a hole: no FPDU that can be proved is left out). */
static void hunt_resume(S *s, int dir, const hunt_found *hf)
{
    dirst *d = &s->d[dir];
    uint64_t fstart = hf->fstart, cur = d->off;
    int again = hf->first_off < fstart && cur - hf->first_off <= hf->ring_n && cur - hf->first_off <= HUNT_RING &&
                !hf->rx.mk_nocrc && hf->first_off >= d->h_off && (hf->weak || !hf->chain_crc_bad);
    /* A drifting grid's phase was found in the proving FPDU (hunt.c):
     * that FPDU is read again with it. */
    int nocrc = hf->rx.markers && hf->rx.mk_nocrc && !hf->mid && cur - fstart <= hf->ring_n &&
                cur - fstart <= HUNT_RING;
    if (again)
        fstart = hf->first_off;
    uint64_t early = nocrc ? fstart : ring_earlier(s, dir, hf, cur, fstart);
    if (early < fstart) {
        fstart = early;
        again = 1;
    }
    uint64_t skipped = fstart - d->h_off;
    if (fstart > d->h_off)
        data_add(s, dir, d->h_off, fstart - d->h_off, HUNT_WHY);
    data_flush(s, dir);
    d->markers = hf->rx.markers;
    d->crc = !hf->weak;
    d->rx = hf->rx;
    d->rx.crc_on = d->crc;
    d->hdr_seen = 0;
    d->mode_off = UINT64_MAX; /* no startup rule applies to these FPDUs */
    d->doubt = d->strikes = d->dbuf_on = 0;
    seq_unknown(d);
    d->st.resyncs++;
    /* After a loss of framing, MPA-FPD-FRAMING-LOST said it all: the
     * resync is counted and shown as the mode change. */
    if (!d->h_lost)
        finding(s, dir, fstart, MPA_F_CAP_RESYNC,
                "decoding resumes at offset %llu after %llu skipped octets: %s%s (markers %s, CRC %s)",
                (unsigned long long)fstart, (unsigned long long)skipped,
                hf->weak ? "FPDUs chained by their lengths and DDP headers" : "valid CRC",
                hf->by_marker ? ", found from a marker's FPDUPTR" : "", d->markers ? "on" : "off",
                d->crc ? "on" : "off");
    d->h_lost = 0;
    /* Resumed before the marker form was settled (a hole, a lost startup,
     * a mid-stream start): a drifting grid's phase rests on octets not
     * captured, so marker rules are not judged from here. */
    /* Resumed at the marker base itself (a lost startup frame): every CRC
     * since is counted, the models are worked out as from the start. */
    int at_base = hf->rx.markers && !hf->rx.mk_nocrc && seq_of(s, dir, hf->first_off) == hf->rx.mbase;
    if (at_base && d->mk.state == MK_IDLE && !d->mk.ntries)
        mk_reset(&d->mk);
    else if (hf->rx.markers && !d->mk.grid_set && d->mk.state != MK_DONE)
        d->mk_unsure = 1;
    if (!at_base && mk_resumed(&d->mk, &hf->rx))
        mk_grid_said(s, dir, fstart);
    set_mode_at(s, dir, fstart, MPA_MODE_FPDU, "resynchronised");
    if (again || nocrc) {
        uint8_t buf[HUNT_RING];
        uint32_t n = (uint32_t)(cur - fstart);
        ring_take(d, buf, fstart, n);
        fpdu_rx r = d->rx;
        rx_init(&d->rx, r.markers, r.crc_on, r.mbase - (nocrc ? 4u : 0u), seq_of(s, dir, fstart));
        d->rx.mk_order = r.mk_order;
        d->rx.mk_nocrc = (uint8_t)nocrc;
        d->off = fstart;
        if (feed_fpdu_core(s, dir, buf, n) < n || d->off != cur)
            d->off = cur; /* the chain read the same way: cannot happen */
        return;
    }
    /* Strong proof: at the end of the proving FPDU, which is emitted.
     * Weak proof: a few octets into the FPDU after the chain, which the
     * machine goes on to read (the chain itself is reported skipped). */
    if (!hf->mid)
        on_fpdu(s, dir, &d->rx);
}

static size_t feed_hunt(S *s, int dir, const uint8_t *p, size_t len)
{
    dirst *d = &s->d[dir];
    hunt_found hf;
    ring_sync(d);
    int won = hunt_feed(&d->h, s->cfg.isn[dir], d->off, p, len, &hf);
    ring_hunted(d, d->off, p, won ? hf.used : len);
    if (!won) {
        hist_note(d, d->off, len);
        d->off += len;
        return len;
    }
    hist_note(d, d->off, hf.used);
    d->off += hf.used;
    hunt_resume(s, dir, &hf);
    return hf.used;
}

/* The capture began after the startup: say so at the first sign of dir. */
static void midstream_note(S *s, int dir)
{
    dirst *d = &s->d[dir];
    if (!d->h_ms_note)
        return;
    d->h_ms_note = 0;
    set_mode_at(s, dir, 0, MPA_MODE_HUNT, "capture starts mid-stream");
    finding(s, dir, 0, MPA_F_CAP_MIDSTREAM,
            "the capture starts after the startup frames: markers %s, CRC %s (%s)", tri_str(d->h.markers),
            tri_str(d->h.crc),
            d->h.markers && d->h.crc ? "as stated" : "what is not stated is inferred from the octets");
}

/* This direction's startup frame fell in a hole (or began before one). */
static void startup_lost(S *s, int dir)
{
    dirst *d = &s->d[dir], *od = &s->d[!dir];
    s->startup_lost = 1;
    const mpa_frame *pf = od->have_frame && !od->bad_key ? &od->fr : NULL;
    if (pf && (pf->kind == MPA_KEY_REQ || pf->kind == MPA_KEY_REP)) {
        int peer_init = pf->kind == MPA_KEY_REQ;
        if (s->init_dir < 0)
            s->init_dir = (int8_t)(peer_init ? !dir : dir);
        if (!d->role)
            d->role = peer_init ? MPA_ROLE_RESPONDER : MPA_ROLE_INITIATOR;
    }
    /* M in the peer's frame governs this direction; C from either side. */
    hunt_enter(s, dir, pf ? (pf->m ? MPA_TRI_ON : MPA_TRI_OFF) : MPA_TRI_UNKNOWN,
               pf && pf->c ? MPA_TRI_ON : MPA_TRI_UNKNOWN, 0, 0, "startup frame lost in a capture hole");
    /* A peer waiting after its frame can no longer learn its framing. */
    if (od->mode == MPA_MODE_STARTUP && od->sub == SS_HOLD)
        hunt_enter(s, !dir, MPA_TRI_UNKNOWN, od->fr.c ? MPA_TRI_ON : MPA_TRI_UNKNOWN, 1,
                   seq_of(s, !dir, od->off), "the peer's startup frame was lost");
}

/* A startup frame whose private data is complete (or ran into a hole). */
static void pd_complete(S *s, int dir)
{
    dirst *d = &s->d[dir];
    d->sub = SS_HDR;
    uint32_t valid = d->pd_lost ? d->pd_valid : d->pd_seen;
    if (d->fr.s && d->fr.pd_len >= MPA_ENH_LEN && valid >= MPA_ENH_LEN) {
        d->fr.has_enh = 1;
        d->fr.enh = mpa_enh_unpack(ld_be32(d->pd));
    }
    /* The header reads from the private data kept (the frame's own pd
     * stays NULL: the engine's copy is not the caller's). */
    mpa_frame kept = d->fr;
    kept.pd = d->pd;
    kept.pd_avail = valid < MPA_STREAM_PD_KEEP ? valid : MPA_STREAM_PD_KEEP;
    d->fr.leg = mpa_frame_legacy_irdord(&kept);
    frame_done(s, dir);
}

static void gap_apply(S *s, int dir, uint64_t len)
{
    dirst *d = &s->d[dir];
    switch ((mpa_dir_mode)d->mode) {
    case MPA_MODE_STARTUP:
        if (d->sub == SS_PD) {
            /* The header is known: only private data is lost, unless the
             * hole reaches past the frame. */
            uint32_t rem = d->fr.pd_len - d->pd_seen;
            if (!d->pd_lost) {
                d->pd_lost = 1;
                d->pd_valid = d->pd_seen;
            }
            if (len < rem) {
                d->pd_seen += (uint32_t)len;
                d->off += len;
                return;
            }
            d->pd_seen = d->fr.pd_len;
            d->off += rem;
            pd_complete(s, dir);
            if (len > rem)
                gap_apply(s, dir, len - rem);
            return;
        }
        if (d->sub == SS_HOLD) {
            uint32_t mbase = seq_of(s, dir, d->off);
            d->off += len;
            hunt_enter(s, dir, MPA_TRI_UNKNOWN, d->fr.c ? MPA_TRI_ON : MPA_TRI_UNKNOWN, 1, mbase,
                       "hole after the startup frame");
            return;
        }
        if (d->nhdr)
            data_add(s, dir, d->frame_off, d->nhdr, "startup frame cut by a capture hole");
        d->nhdr = 0;
        d->off += len;
        startup_lost(s, dir);
        return;
    case MPA_MODE_FPDU:
        if (d->probe) {
            probe_failed(s, dir);
            d->off += len;
            return;
        }
        if (d->rx.started || d->rx.nmk) {
            uint32_t part = rx_partial(&d->rx);
            data_add(s, dir, d->off - part, part, WHY_CUT_HOLE);
        }
        if (d->peek && d->npeek) {
            data_add(s, dir, d->off, d->npeek, WHY_CUT_HOLE);
            d->off += d->npeek;
        }
        d->off += len;
        hunt_enter(s, dir, d->markers ? MPA_TRI_ON : MPA_TRI_OFF, d->crc ? MPA_TRI_ON : MPA_TRI_OFF, 1,
                   d->rx.mbase, "hole in FPDU mode");
        d->h.mk_order = d->rx.mk_order;
        d->h.mk_nocrc = d->rx.mk_nocrc;
        /* The grid not settled yet: a drifting one may show after the hole. */
        d->h.try_nocrc = d->markers && !d->mk.grid_set && d->mk.order_set && d->mk.state != MK_DONE &&
                         !d->rx.mk_nocrc;
        return;
    case MPA_MODE_HUNT:
        hunt_report_skipped(s, dir);
        d->h_lost = 0;
        d->off += len;
        d->h_off = d->off;
        hunt_clear(&d->h);
        return;
    case MPA_MODE_STREAMING:
    case MPA_MODE_TERMINATED:
    case MPA_MODE_CLOSED:
        d->off += len;
        return;
    }
}

/* ---- public entry points --------------------------------------------- */

void mpa_stream_init(mpa_stream *st, const mpa_stream_cfg *cfg, mpa_event_fn fn, void *user)
{
    S *s = SS(st);
    memset(s, 0, sizeof *s);
    if (cfg)
        s->cfg = *cfg;
    s->fn = fn;
    s->user = user;
    s->init_dir = -1;
    if (s->cfg.midstream) {
        s->midstream = 1;
        s->negotiated = 1; /* no startup frames will come */
        if (s->cfg.initiator == 1 || s->cfg.initiator == 2)
            s->init_dir = (int8_t)(s->cfg.initiator - 1);
        for (int dir = 0; dir < 2; dir++) {
            dirst *d = &s->d[dir];
            /* Hunting from octet 0; the event says so at the first octet. */
            d->mode = MPA_MODE_HUNT;
            d->h.markers = s->cfg.markers[dir] <= MPA_TRI_ON ? s->cfg.markers[dir] : MPA_TRI_UNKNOWN;
            d->h.crc = s->cfg.crc[dir] <= MPA_TRI_ON ? s->cfg.crc[dir] : MPA_TRI_UNKNOWN;
            d->markers = d->h.markers == MPA_TRI_ON;
            d->crc = d->h.crc == MPA_TRI_ON;
            d->h_ms_note = 1;
            if (s->init_dir >= 0)
                d->role = (uint8_t)(dir == s->init_dir ? MPA_ROLE_INITIATOR : MPA_ROLE_RESPONDER);
        }
    }
}

size_t mpa_stream_feed(mpa_stream *st, int dir, const uint8_t *p, size_t len)
{
    S *s = SS(st);
    if (dir < 0 || dir > 1 || (!p && len))
        return 0;
    dirst *d = &s->d[dir];
    if (len)
        midstream_note(s, dir);
    size_t i = feed_dir(s, dir, p, len);
    d->st.octets += i;
    return i;
}

/* Octets of dir, whatever its mode; returns those taken (fewer only
 * while a startup frame waits for the peer's). */
static size_t feed_dir(S *s, int dir, const uint8_t *p, size_t len)
{
    dirst *d = &s->d[dir];
    size_t i = 0;
    while (i < len) {
        size_t n = 0;
        switch ((mpa_dir_mode)d->mode) {
        case MPA_MODE_STARTUP:
            n = feed_startup(s, dir, p + i, len - i);
            if (n == 0 && d->mode == MPA_MODE_STARTUP && d->sub == SS_HOLD)
                return i;
            break;
        case MPA_MODE_FPDU:
            n = feed_fpdu(s, dir, p + i, len - i);
            break;
        case MPA_MODE_HUNT:
            n = feed_hunt(s, dir, p + i, len - i);
            break;
        case MPA_MODE_STREAMING:
        case MPA_MODE_TERMINATED:
        case MPA_MODE_CLOSED:
            n = len - i;
            data_add(s, dir, d->off, n,
                     d->mode == MPA_MODE_CLOSED ? "octets after FIN/RST"
                     : s->rejected           ? WHY_AFTER_REJECT
                     : d->bad_key            ? WHY_AFTER_BAD_KEY
                                             : "not MPA: the startup failed");
            d->off += n;
            break;
        }
        i += n;
    }
    return i;
}

int mpa_stream_waiting(const mpa_stream *st, int dir)
{
    const S *s = CS(st);
    if (dir < 0 || dir > 1)
        return 0;
    const dirst *d = &s->d[dir];
    return d->mode == MPA_MODE_STARTUP && d->sub == SS_HOLD && !hold_dead(s, dir);
}

void mpa_stream_segment(mpa_stream *st, int dir)
{
    S *s = SS(st);
    if (dir < 0 || dir > 1)
        return;
    seg_begin(s, dir);
}

static void seg_mark(S *s, int dir);

/* A TCP segment of dir begins at its next octet. */
static void seg_begin(S *s, int dir)
{
    dirst *d = &s->d[dir];
    if (d->mode != MPA_MODE_FPDU || d->probe)
        return;
    /* In a window of the marker models: judged where its octets are
     * decoded. */
    if (d->mk.state == MK_OPEN && d->mk.nseg == MK_SEGS)
        mk_flush(s, dir);
    if (d->mk.state == MK_OPEN && d->mk.nseg < MK_SEGS) {
        d->mk.seg[d->mk.nseg++] = d->mk.nbuf;
        return;
    }
    seg_mark(s, dir);
}

/* A TCP segment of dir begins at its next octet (FPDU mode). */
static void seg_mark(S *s, int dir)
{
    dirst *d = &s->d[dir];
    if (d->mode != MPA_MODE_FPDU || d->probe)
        return;
    d->pend_seg++;
    /* While looking for a 2007 RtR frame the octets held are not in the
     * receive machine yet: none held means an FPDU (or that frame) starts. */
    int between = d->peek ? d->npeek == 0 : (!d->rx.started && d->rx.nmk == 0);
    if (between) {
        d->pend_aligned++;
        return;
    }
    /* A segment inside an FPDU that began before octets the capture lost
     * may be a retransmission resegmented by the sender: not judged. */
    uint64_t fstart = d->off - (d->peek ? 0 : rx_partial(&d->rx));
    if (d->st.gap_octets && d->lost_end > fstart) {
        evidence_lost(s, dir, d->off, MPA_F_FPD_ALIGN, dir, UINT64_MAX);
        return;
    }
    if (!d->align_done && !d->align_pend) {
        d->align_pend = 1;
        d->align_off = d->off + (d->peek ? d->npeek : 0);
        d->align_into = d->peek ? d->npeek : rx_partial(&d->rx);
    }
}

void mpa_stream_end(mpa_stream *st, int dir, mpa_end_kind kind)
{
    S *s = SS(st);
    if (dir < 0 || dir > 1)
        return;
    dirst *d = &s->d[dir];
    if (d->mode == MPA_MODE_CLOSED)
        return;
    mk_flush(s, dir);
    mk_grid_flush(s, dir);
    seg_settle(s, dir);
    const char *how = kind == MPA_END_RST ? "RST" : "FIN";
    /* RFC 5040 6.2.1: the sender of a TERMINATE closes gracefully so
     * that it is delivered (a RST from the side that received it cannot
     * undo that delivery, and is not judged). */
    if (kind == MPA_END_RST && d->term_close)
        finding(s, dir, d->off, MPA_F_TRM_TEARDOWN, "RST after the TERMINATE this side sent");
    midstream_note(s, dir);
    if (d->mode == MPA_MODE_FPDU && d->probe)
        probe_failed(s, dir);
    /* Part of a startup frame was sent: not a Responder that never replied. */
    int frame_started = d->mode == MPA_MODE_STARTUP && (d->sub == SS_PD || (d->sub == SS_HDR && d->nhdr));
    if (d->mode == MPA_MODE_HUNT) {
        hunt_gave_up(s, dir, how);
        hunt_report_skipped(s, dir);
    } else if (d->mode == MPA_MODE_STARTUP && d->sub == SS_HDR && d->nhdr) {
        finding(s, dir, d->frame_off, MPA_F_FRM_WHOLE, "%s after %u of the 20 header octets of a startup frame",
                how, d->nhdr);
        data_add(s, dir, d->frame_off, d->nhdr, "incomplete startup frame");
    } else if (d->mode == MPA_MODE_STARTUP && d->sub == SS_PD) {
        /* The header is whole: its fields are judged as for a whole frame
         * (a PD_Length over 512 is wrong whether or not it was kept to). */
        if (d->fr.kind == MPA_KEY_REQ || d->fr.kind == MPA_KEY_REP)
            judge_std_frame(s, dir);
        finding(s, dir, d->frame_off + 18, MPA_F_FRM_PDLEN_MATCH,
                "%s after %u of PD_Length %u private data octets", how, d->pd_seen, d->fr.pd_len);
        data_add(s, dir, d->frame_off, MPA_FRAME_HDR_LEN + (uint64_t)d->pd_seen, "incomplete startup frame");
    } else if (d->mode == MPA_MODE_FPDU && (d->rx.started || d->rx.nmk)) {
        uint32_t part = rx_partial(&d->rx);
        data_add(s, dir, d->off - part, part, WHY_CUT_END);
    } else if (d->mode == MPA_MODE_FPDU && d->peek && d->npeek) {
        data_add(s, dir, d->off, d->npeek, WHY_CUT_END);
    }
    /* An Initiator that owed TERM code 7 closing without any FPDU. */
    if (dir == s->init_dir && s->rtr_expected && !s->rtr_checked && d->mode == MPA_MODE_FPDU && !d->nfpdu &&
        !d->probe && !s->midstream && !d->st.gap_octets) {
        char asked[32], offered[32];
        const mpa_enh *qe = &d->fr.enh, *pe = &s->d[!dir].fr.enh;
        if (term7_owed(s)) {
            s->rtr_checked = 1;
            rtr_set_str(asked, sizeof asked, qe->b, qe->c, qe->d);
            rtr_set_str(offered, sizeof offered, pe->b, pe->c, pe->d);
            finding(s, dir, d->off, MPA_F_ENH_TERM_7, "%s without any FPDU; Request asked %s, Reply offered %s", how,
                    asked, offered);
        }
    }
    /* RFC 5044 7.1.2 rule 3: after an accepting Reply the Initiator
     * enters full operation; closing first without any FPDU says it
     * did not (a Responder's close may have caused it: not judged then). */
    if (dir == s->init_dir && s->negotiated && !s->failed && !s->rejected && !s->rtr_checked &&
        !s->d[0].improper && !s->d[1].improper && !s->d[0].bad_key && !s->d[1].bad_key &&
        d->mode == MPA_MODE_FPDU && !d->nfpdu && !d->probe && !d->rx.started && !s->midstream &&
        !s->startup_lost && !d->st.gap_octets && s->d[!dir].mode != MPA_MODE_CLOSED)
        finding(s, dir, d->off, MPA_F_STA_INIT_FULL_OP, "%s without any FPDU after the accepting Reply", how);
    if (kind == MPA_END_FIN) {
        judge_read_answered(s, dir);
        judge_atomic_answered(s, dir);
    }
    /* The Responder closing after a proper Request without replying. */
    int o = !dir;
    /* An Initiator that sent octets after its Request before any Reply
     * (MPA-STA-INIT-FPDU-WAIT) broke the startup itself: the Responder's
     * close answers that, not the private data.  Octets of the Initiator
     * the capture lost may have been such octets: not judged then. */
    if (d->role != MPA_ROLE_INITIATOR && !d->have_frame && !frame_started && is_kind(s, o, MPA_KEY_REQ) &&
        !s->d[o].improper && !s->d[o].fr.s && !s->d[o].early_done && !evidence_lost(s, dir, d->off, MPA_F_STA_REJECT, dir, UINT64_MAX) &&
        !evidence_lost(s, dir, d->off, MPA_F_STA_REJECT, o, UINT64_MAX))
        finding(s, dir, d->off, MPA_F_STA_REJECT,
                "Responder closed (%s) after a properly formatted Request without a Reply (R=1 expected)",
                how);
    data_flush(s, dir);
    d->end_rst = kind == MPA_END_RST;
    set_mode(s, dir, MPA_MODE_CLOSED, kind == MPA_END_RST ? "RST" : "FIN");
}

void mpa_stream_finish(mpa_stream *st)
{
    S *s = SS(st);
    s->finished = 1;
    for (int dir = 0; dir < 2; dir++) {
        dirst *d = &s->d[dir];
        mk_flush(s, dir);
        mk_grid_flush(s, dir);
        seg_settle(s, dir);
        int partial = 1;
        if (d->mode == MPA_MODE_FPDU && d->probe)
            probe_failed(s, dir);
        if (d->mode == MPA_MODE_STARTUP && d->sub == SS_HDR && d->nhdr)
            data_add(s, dir, d->frame_off, d->nhdr, "capture ended inside a startup frame");
        else if (d->mode == MPA_MODE_STARTUP && d->sub == SS_PD)
            data_add(s, dir, d->frame_off, MPA_FRAME_HDR_LEN + (uint64_t)d->pd_seen,
                     "capture ended inside a startup frame");
        else if (d->mode == MPA_MODE_FPDU && (d->rx.started || d->rx.nmk))
            data_add(s, dir, d->off - rx_partial(&d->rx), rx_partial(&d->rx),
                     WHY_CUT_CAPTURE);
        else if (d->mode == MPA_MODE_FPDU && d->peek && d->npeek)
            data_add(s, dir, d->off, d->npeek, WHY_CUT_CAPTURE);
        else
            partial = 0;
        if (d->mode == MPA_MODE_HUNT) {
            hunt_gave_up(s, dir, "the capture ended");
            hunt_report_skipped(s, dir);
            d->h_from = d->off; /* said once */
        }
        if (partial) {
            /* Reported once: whatever comes after is not decoded. */
            d->nhdr = 0;
            d->sub = SS_HDR;
            d->mode = MPA_MODE_STREAMING;
        }
        data_flush(s, dir);
    }
}

mpa_role mpa_stream_role(const mpa_stream *st, int dir)
{
    return dir < 0 || dir > 1 ? MPA_ROLE_UNKNOWN : (mpa_role)CS(st)->d[dir].role;
}

mpa_dir_mode mpa_stream_mode(const mpa_stream *st, int dir)
{
    if (dir < 0 || dir > 1)
        return MPA_MODE_CLOSED;
    const dirst *d = &CS(st)->d[dir];
    if (d->mode == MPA_MODE_FPDU && d->terminated)
        return MPA_MODE_TERMINATED;
    return (mpa_dir_mode)d->mode;
}

const mpa_dir_stats *mpa_stream_stats(const mpa_stream *st, int dir)
{
    return dir < 0 || dir > 1 ? NULL : &CS(st)->d[dir].st;
}

const mpa_frame *mpa_stream_frame(const mpa_stream *st, int dir)
{
    return dir < 0 || dir > 1 ? NULL : frame_of(CS(st), dir);
}

void mpa_stream_gap(mpa_stream *st, int dir, uint64_t len)
{
    S *s = SS(st);
    if (dir < 0 || dir > 1 || len == 0)
        return;
    dirst *d = &s->d[dir];
    midstream_note(s, dir);
    if (d->markers && (d->mode == MPA_MODE_FPDU || d->mode == MPA_MODE_HUNT) && d->mk.state != MK_DONE)
        d->mk_unsure = 1;
    /* The hole is known before a window of the marker models is decoded:
     * a decision it forces rests on the lost octets (not judged). */
    uint64_t at = d->off + (d->mk.state == MK_OPEN ? d->mk.nbuf : 0);
    if (!d->st.gap_octets)
        d->lost_from = at;
    d->st.gap_octets += len;
    d->lost_end = at + len;
    mk_flush(s, dir);
    seg_settle(s, dir);
    seq_unknown(d);             /* a lost segment: the queues are learnt again */
    atomicq_blind(&s->d[0].aq); /* a lost Request or Response: not judged */
    atomicq_blind(&s->d[1].aq);
    static const char *const where[] = {"in the startup phase", "in FPDU mode", "after MPA was left",
                                        "after a TERMINATE", "after FIN/RST", "while resynchronising"};
    unsigned m = d->mode < sizeof where / sizeof where[0] ? d->mode : 2;
    finding(s, dir, d->off, MPA_F_CAP_HOLE, "%llu octets missing from the capture at offset %llu (%s)",
            (unsigned long long)len, (unsigned long long)d->off, where[m]);
    gap_apply(s, dir, len);
}

void mpa_stream_quiet_markers(mpa_stream *st, int on)
{
    SS(st)->quiet_mk = on ? 1 : 0;
}

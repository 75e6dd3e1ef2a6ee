/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The MPA stream engine: one per TCP connection, push mode.
 *
 * Feed it the TCP payload of each direction in order, in any split (one
 * octet at a time is fine), interleaving the two directions in the order
 * the octets were seen on the wire.  It runs the startup phase (RFC 5044
 * 7.1, RFC 6581), switches each direction to FPDU mode at exactly the
 * octet after its startup frame, decodes FPDUs, markers and the DDP/RDMAP
 * headers they carry, checks every rule of the requirement catalogue that
 * the octets can show, and calls the caller's function with events.
 *
 * Guarantees:
 *  - the same input gives the same events whatever the split;
 *  - no allocation at all: the caller owns the engine's state, of
 *    mpa_stream_size() octets (a fixed size, whatever the input);
 *  - nothing fed is dropped silently: octets that are not MPA are counted
 *    and reported in MPA_EV_DATA events.
 *
 * Directions are the caller's labels 0 and 1 (e.g. 0 = TCP client to
 * server).  Roles (Initiator, Responder) come from the startup frames.
 * Offsets are octets since the first octet fed in that direction;
 * sequence numbers are cfg.isn[dir] + offset, modulo 2^32.
 */
#ifndef MPA_STREAM_H
#define MPA_STREAM_H

#include "mpa/common.h"
#include "mpa/ddp.h"
#include "mpa/findings.h"
#include "mpa/fpdu.h"
#include "mpa/frame.h"
#include "mpa/term.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mpa_role {
    MPA_ROLE_UNKNOWN = 0,
    MPA_ROLE_INITIATOR,
    MPA_ROLE_RESPONDER,
} mpa_role;

const char *mpa_role_str(mpa_role r); /* "initiator", "responder", "unknown" */

typedef enum mpa_event_type {
    MPA_EV_FRAME,   /* a startup frame was received whole */
    MPA_EV_MODE,    /* a direction changed mode (FPDU mode, or left MPA) */
    MPA_EV_MARKER,  /* a marker was read */
    MPA_EV_FPDU,    /* an FPDU was received whole */
    MPA_EV_FINDING, /* a rule was broken */
    MPA_EV_DATA,    /* octets that are not MPA, or could not be decoded */
} mpa_event_type;

typedef enum mpa_dir_mode {
    MPA_MODE_STARTUP = 0, /* expecting a startup frame */
    MPA_MODE_FPDU,        /* Full Operation */
    MPA_MODE_STREAMING,   /* left MPA (rejected, failed startup): octets are not MPA */
    MPA_MODE_TERMINATED,  /* a TERMINATE was sent: nothing may follow */
    MPA_MODE_CLOSED,      /* FIN or RST seen */
    MPA_MODE_HUNT,        /* after a hole or a mid-stream start: looking for
                             the next FPDU start (resynchronising) */
} mpa_dir_mode;

const char *mpa_dir_mode_str(mpa_dir_mode m);

typedef struct mpa_ev_frame {
    mpa_frame frame; /* frame.pd points into the engine (first 512 octets) */
    mpa_role role;   /* role this frame shows for its sender */
} mpa_ev_frame;

typedef struct mpa_ev_mode {
    mpa_dir_mode mode;
    int markers, crc; /* framing in force, for MPA_MODE_FPDU */
    const char *why;  /* short reason, static */
    int probe;        /* MPA_MODE_FPDU after a reject (R=1): only probing
                         for FPDUs; the direction is in FPDU mode once an
                         MPA_EV_FPDU follows (one with a valid CRC).  Last,
                         so the members before it keep their places. */
} mpa_ev_mode;

typedef struct mpa_ev_marker {
    uint16_t reserved, fpduptr;
    uint64_t fpdu_off; /* offset of the FPDU it sits in, by lengths */
    int leading;       /* between FPDUs: the first octets of the next FPDU */
} mpa_ev_marker;

typedef struct mpa_ev_fpdu {
    uint64_t index;           /* 0 for the first FPDU of the direction */
    uint32_t wire_len;        /* markers, pad and CRC included */
    uint16_t ulpdu_len;
    uint8_t pad_len;
    uint8_t n_markers;
    mpa_crc_status crc;
    uint32_t crc_wire, crc_calc; /* crc_calc is 0 when not computed */
    const uint8_t *ulpdu;     /* the first ulpdu_avail octets, markers removed */
    size_t ulpdu_avail;       /* min(ulpdu_len, 128) */
    mpa_status ddp_status;    /* of mpa_ddp_decode on those octets */
    mpa_ddp ddp;
    uint32_t ddp_anomalies;   /* mpa_ddp_anomalies() */
    mpa_rtr_kind rtr;         /* shape of a ready-to-receive message */
    int negotiated_rtr;       /* 1: this is the RTR RFC 6581 required */
    uint16_t marker_phase;    /* with markers: (sequence number of its first
                                 octet - the marker base) mod 512, which says
                                 where its markers fall (mpa_fpdu_decode's
                                 mark_base = seq - marker_phase) */
    /* A TERMINATE (ddp.hdr.opcode 7, decoded): how its control field is
     * read (mpa_term_quirk) and its fields under that reading; for
     * MPA_TERM_LE_BITFIELD they differ from ddp.u.term (the octets as
     * RFC 5040 4.8 lays them out).  Zero for other FPDUs. */
    uint8_t term_quirk;
    mpa_term_ctl term_read;
    uint8_t marker_order;     /* mpa_marker_order the sender was found to use */
    uint8_t marker_nocrc;     /* its marker count leaves out CRC octets
                                 (mpa_fpdu_cfg: both go there as they are) */
} mpa_ev_fpdu;

typedef struct mpa_ev_finding {
    mpa_finding_id id;
    const mpa_rule *rule; /* id, severity, clause, text */
    const char *msg;      /* one line with the observed values */
} mpa_ev_finding;

typedef struct mpa_ev_data {
    uint64_t len;
    const char *why; /* static: "not MPA after reject", ... */
    int fpdu_cut;    /* 1: the first octets of an FPDU the capture cut (a
                        hole, the capture's or the connection's end):
                        mpa_fpdu_head_decode() shows what they hold */
} mpa_ev_data;

typedef struct mpa_event {
    mpa_event_type type;
    int dir;       /* 0 or 1 */
    uint64_t off;  /* stream offset in dir of the first octet concerned */
    uint32_t seq;  /* the same as a sequence number */
    union {
        mpa_ev_frame frame;
        mpa_ev_mode mode;
        mpa_ev_marker marker;
        mpa_ev_fpdu fpdu;
        mpa_ev_finding finding;
        mpa_ev_data data;
    } u;
} mpa_event;

/* Called for each event; ev and everything it points to are valid only
 * during the call. */
typedef void (*mpa_event_fn)(void *user, const mpa_event *ev);

/* A setting the user may state or leave to the engine; zero is unknown. */
typedef enum mpa_tri { MPA_TRI_UNKNOWN = 0, MPA_TRI_OFF = 1, MPA_TRI_ON = 2 } mpa_tri;

typedef struct mpa_stream_cfg {
    uint32_t isn[2];   /* sequence number of the first octet of each direction */
    uint16_t emss[2];  /* EMSS of each direction's sender; 0: unknown (no MULPDU check) */
    /*
     * Mid-stream start: the capture begins after the startup frames, so
     * each direction starts by hunting for an FPDU start (MPA_MODE_HUNT).
     * markers[dir] and crc[dir] state what dir's sender does (the
     * negotiated M of its peer's frame, and C), when the user knows;
     * left unknown, the engine tries both and takes what the octets
     * prove (a valid CRC, markers that agree with the lengths).
     * initiator: 0 unknown, 1 direction 0 is the Initiator, 2 direction 1.
     * Outside a mid-stream start it names the side that opened the TCP
     * connection (RFC 5044 appendix A's active side), when the capture
     * shows it: a Reply key as that side's first octets, before the peer
     * sent any, is then an Initiator's wrong key (MPA-FRM-KEY-REQ), not
     * a Responder speaking first.
     */
    uint8_t midstream;
    uint8_t markers[2]; /* mpa_tri */
    uint8_t crc[2];     /* mpa_tri */
    uint8_t initiator;
} mpa_stream_cfg;

typedef enum mpa_end_kind { MPA_END_FIN = 1, MPA_END_RST = 2 } mpa_end_kind;

/* Counters, per direction. */
typedef struct mpa_dir_stats {
    uint64_t octets;        /* fed and consumed */
    uint64_t fpdus;
    uint64_t ulpdu_octets;
    uint64_t markers;
    uint64_t crc_bad;
    uint64_t findings;
    uint64_t segments;      /* mpa_stream_segment() calls in FPDU mode */
    uint64_t segments_aligned; /* of those, starting on an FPDU */
    uint64_t not_mpa_octets;   /* reported in MPA_EV_DATA */
    uint64_t gap_octets;       /* missing from the capture (mpa_stream_gap) */
    uint64_t resyncs;          /* times decoding locked on again after hunting, or
                                  inside an FPDU whose length proved wrong */
    uint64_t mulpdu_over;      /* FPDUs with ULPDU_Length over MULPDU (one finding names them) */
    uint32_t mulpdu_largest;   /* the largest such ULPDU_Length */
} mpa_dir_stats;

#define MPA_STREAM_PD_KEEP 512

/* Opaque: callers see it only through the functions below.  Its size
 * is fixed for a build of the library (no pointers to owned memory), so
 * a caller allocates mpa_stream_size() octets (suitably aligned, as
 * malloc gives) and may copy them; the size may change between versions
 * of the library without breaking its ABI. */
typedef struct mpa_stream mpa_stream;

/* The size of the engine's state in octets, for callers that allocate it. */
size_t mpa_stream_size(void);

/* Initialise s (mpa_stream_size() octets, caller-owned).  cfg may be NULL
 * (all zero).  fn may be NULL (events dropped, counters still kept). */
void mpa_stream_init(mpa_stream *s, const mpa_stream_cfg *cfg, mpa_event_fn fn, void *user);

/*
 * Feed len octets of direction dir.  Returns the octets consumed, which
 * is len except when the direction must wait for the other one: the
 * Initiator's octets after its Request cannot be framed before the Reply
 * shows its M bit.  Then the rest (p + returned) must be fed again after
 * more of the other direction (or after mpa_stream_end on it, which makes
 * the waiting octets non-MPA data).  mpa_stream_waiting() tells.
 */
size_t mpa_stream_feed(mpa_stream *s, int dir, const uint8_t *p, size_t len);

/* 1 when direction dir cannot take octets until the other one advances. */
int mpa_stream_waiting(const mpa_stream *s, int dir);

/*
 * on: no MPA_EV_MARKER events are wanted.  A marker that is in order
 * (none of its rules broken, nothing in doubt) is then only counted in
 * mpa_dir_stats.markers, and the engine reads on past it without
 * stopping; a marker that breaks a rule is still reported, with its
 * event.  Off after mpa_stream_init.
 */
void mpa_stream_quiet_markers(mpa_stream *s, int on);

/* The next octet of dir starts a TCP segment (for MPA-FPD-ALIGN). */
void mpa_stream_segment(mpa_stream *s, int dir);

/*
 * len octets of direction dir are missing at its current offset (capture
 * loss): later offsets count them, MPA-CAP-HOLE is reported, and dir
 * hunts for the next FPDU start it can prove: with markers, from the
 * next marker (its FPDUPTR gives the FPDU start); without, at the first
 * position where ULPDU_Length, pad and a valid CRC line up (with CRC
 * off: where three FPDUs in a row chain by their lengths and carry
 * well-formed DDP headers).  What is skipped meanwhile is reported as
 * MPA_EV_DATA.  A hole in the startup phase leaves the framing unknown
 * for the directions it governs; they hunt the same way.
 */
void mpa_stream_gap(mpa_stream *s, int dir, uint64_t len);

/* Direction dir ended with a FIN or RST (its sender closed). */
void mpa_stream_end(mpa_stream *s, int dir, mpa_end_kind kind);

/* End of input (the capture ended): reports what is left incomplete.
 * Afterwards a waiting direction no longer waits: octets still held by
 * the caller may be fed and are reported as not decoded; call finish
 * again after that to report them.  Safe to call more than once. */
void mpa_stream_finish(mpa_stream *s);

/* Read-only views. */
mpa_role mpa_stream_role(const mpa_stream *s, int dir);
mpa_dir_mode mpa_stream_mode(const mpa_stream *s, int dir);
const mpa_dir_stats *mpa_stream_stats(const mpa_stream *s, int dir);
/* The startup frame of dir if one was received whole, else NULL (its pd
 * pointer is not kept: NULL). */
const mpa_frame *mpa_stream_frame(const mpa_stream *s, int dir);

#ifdef __cplusplus
}
#endif
#endif

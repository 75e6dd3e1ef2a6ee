/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The iWARP MPA plugin's two halves (see packet-iwmpa.c for the why):
 *
 *  - track (iwmpa-track.c): runs once per frame, in capture order, on the
 *    first pass.  It follows each TCP connection (tcp.stream) through the
 *    capture layer's MPA-connection layer (capture/mpaconn.h, shared with
 *    mpa-audit) and keeps, per frame, what happened in it: startup frames,
 *    FPDUs, data that is not MPA, mode changes, findings.  Nothing here
 *    builds a tree.
 *  - render (packet-iwmpa.c): builds the tree and the columns of a frame
 *    from what track kept, on every pass; values come from libmpa's
 *    decoders, positions from the frame's (or a reassembled) tvb.
 *
 * Everything track keeps lives in wmem_file_scope(): it goes with the file.
 */
#ifndef IWMPA_H
#define IWMPA_H

#include <epan/packet.h>
#include <stdint.h>

#include "mpa/stream.h"

/* What one item of a frame is. */
typedef enum iw_kind {
    IW_FRAME = 0, /* a startup frame (Request, Reply, Start Key, RtR frame) */
    IW_FPDU,      /* an FPDU */
    IW_DATA,      /* octets that are not MPA, or could not be decoded */
    IW_MODE,      /* a direction changed mode */
    IW_HOLE,      /* octets missing from the capture */
} iw_kind;

/* A finding, attached to the item of its frame that holds its octet. */
typedef struct iw_finding {
    mpa_finding_id id;
    uint8_t dir;
    uint64_t off;
    const char *msg;        /* file scope */
} iw_finding;

/* What an FPDU item says of its FPDU (iw_item's u.fpdu). */
typedef struct iw_fpdu {
    uint32_t index;
    uint16_t ulpdu_len;
    uint8_t pad_len, n_markers;
    uint8_t rtr;          /* mpa_rtr_kind */
    uint8_t term_quirk;   /* a TERMINATE: mpa_term_quirk, and */
    mpa_term_ctl term_read; /* its fields as libmpa read them */
    uint8_t markers : 1, crc_checked : 1, crc_ok : 1, negotiated_rtr : 1;
    uint8_t is_term : 1;  /* a TERMINATE (RDMAP opcode 7, decoded) */
    uint16_t mphase;      /* (seq - marker base) mod 512, when markers */
    mpa_marker_form mform; /* how the sender writes them (libmpa found) */
    uint32_t crc_wire, crc_calc;
} iw_fpdu;

/* One item of a frame.  The first pass keeps one for each FPDU of the
 * capture (most frames hold one), so it is kept small: 80 octets, the
 * rare startup frame's decoded header kept apart (u.frame.fr). */
typedef struct iw_item {
    uint64_t off;           /* stream offset of its first octet */
    /* Where the octets are: in this frame's TCP payload at in_frame
     * (>= 0), or a copy (bytes), or nowhere (-1, NULL).  bytes_len says
     * how many are there: fewer than len when the item claimed more than
     * was sent or kept. */
    const uint8_t *bytes;
    union {
        struct {
            const mpa_frame *fr; /* file scope; fr->pd is NULL (decoded again from the octets) */
            mpa_role role;
        } frame;
        iw_fpdu fpdu;
        struct {
            const char *why;      /* static (libmpa) */
            uint64_t len;
            uint8_t fpdu_cut;     /* the first octets of an FPDU the capture cut */
        } data;
        struct {
            uint8_t mode, markers, crc;
            const char *why;      /* static (libmpa) */
        } mode;
    } u;
    uint32_t len;           /* octets on the wire (markers included) */
    int32_t in_frame;
    uint32_t bytes_len;
    uint32_t first_frame;   /* the frame that carried its first octet */
    uint32_t seq;           /* sequence number of its first octet */
    uint16_t first_finding, n_findings; /* into the frame's findings */
    uint8_t kind;           /* iw_kind */
    uint8_t dir;            /* 0 client->server, 1 server->client */
} iw_item;

/* What the connection negotiated (for the summary on every FPDU). */
typedef struct iw_conv {
    uint32_t stream;        /* tcp.stream */
    address addr[2];        /* sender of each direction (file scope copies) */
    uint16_t port[2];
    const char *endpoint[2]; /* addr:port of each, as shown (file scope; made when first drawn) */
    int is_mpa;
    int midstream;
    int have_frame[2];
    mpa_frame frame[2];     /* the startup frame of each direction */
    uint32_t frame_num[2];  /* where it came */
    mpa_role role[2];
    int fpdu_mode[2];
    int markers[2], crc[2]; /* in force (last mode change to FPDU) */
    uint32_t mode_frame[2];
    uint32_t mark_base[2];  /* marker base of each direction (from its FPDUs) */
    mpa_marker_form mform[2]; /* and the form of its markers */
    uint64_t n_fpdu[2];     /* FPDUs shown so far in each direction */
    uint32_t rtr_frame;     /* the negotiated RTR */
    mpa_rtr_kind rtr;
} iw_conv;

/* Everything of one frame, in one allocation: the items follow it, then
 * the findings.  What iw_track() returns is the frame's own copy; the
 * first pass keeps it with iw_frame_keep() and the later passes get it
 * back with iw_frame_get(). */
typedef struct iw_frame {
    iw_conv *conv;
    uint32_t num;           /* the frame's number */
    uint32_t held;          /* octets of dir delivered but not decoded yet, after this frame */
    /* Where the payload was on the first pass, for the passes after it
     * (the TCP fields are primed for the postdissector on the first pass
     * only): the index of its data source in pinfo->data_src (0 is the
     * frame, higher ones reassembled IP) and its place there. */
    int32_t pay_off;
    uint32_t pay_len;
    int16_t pay_src;        /* -1: no payload */
    uint16_t n_items, n_findings;
    uint16_t n_loose;       /* findings not on an item of this frame (first n_loose) */
    uint8_t dir;            /* direction of this frame's segment */
    uint8_t in_layer;       /* drawn by TCP's call (dissect_iwmpa_layer), not the postdissector */
    iw_item items[];        /* then the findings (iw_findings()) */
} iw_frame;

/* The findings of a frame, after its items. */
static inline const iw_finding *iw_findings(const iw_frame *fr)
{
    return (const iw_finding *)(const void *)(fr->items + fr->n_items);
}

/* The settings track works with (from the preferences). */
typedef struct iw_prefs {
    range_t *ports;         /* MPA assumed on these (mid-stream) */
    uint8_t mid_markers[2]; /* mpa_tri: [0] sent to the port, [1] from it */
    uint8_t mid_crc[2];
} iw_prefs;

/* One TCP segment as the postdissector found it in the frame. */
typedef struct iw_seg {
    uint32_t stream;
    int dir_hint;           /* not used: direction comes from addresses */
    const address *src, *dst;
    uint16_t sport, dport;
    uint32_t seq, ack;
    int syn, ack_flag, fin, rst;
    uint16_t mss;
    tvbuff_t *tvb;          /* holds the payload */
    int payload_off;
    uint32_t payload_len;   /* captured */
    uint32_t payload_wire;  /* declared by the headers */
} iw_seg;

void iw_track_init(void);
void iw_track_cleanup(void);

/* First pass: follow seg (frame number num) and return what happened in
 * this frame (NULL when it is not an MPA connection's), allocated in
 * scope (the packet's pool: iw_frame_keep() keeps it for the file). forced: the
 * connection was given to iwmpa with Decode As.  *became_mpa is set in
 * the frame where the connection turned out to speak MPA, *first_seen in
 * the first frame of its TCP connection (tcp.stream) that is followed. */
iw_frame *iw_track(const iw_seg *seg, uint32_t num, const iw_prefs *settings, int forced, int *became_mpa,
                   int *first_seen, wmem_allocator_t *scope);

/* Keeps fr (from iw_track(), its pay_* and in_layer set) for the passes
 * after the first, in file scope.  The common frame (one FPDU, all in
 * the frame's payload, nothing else) is kept in 64 octets rather than
 * 120.  Frames are kept in the order of their numbers. */
void iw_frame_keep(const iw_frame *fr);

/* What the first pass kept of frame num, as a whole iw_frame allocated
 * in scope (the packet's pool), or NULL: nothing.  The frames are found
 * in an index of their own rather than with p_add_proto_data(): 8
 * octets a frame, not 56. */
iw_frame *iw_frame_get(uint32_t num, wmem_allocator_t *scope);

/* The tap "iwmpa" (iwmpa-tap.c): each frame drawn queues its iw_frame
 * (what the first pass kept) for the statistics -z iwmpa,conv and
 * -z iwmpa,findings. */
extern int iw_tap;
void iw_tap_register(void);

#endif

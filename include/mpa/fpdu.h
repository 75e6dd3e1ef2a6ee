/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MPA FPDUs, markers, CRC32C and MULPDU (RFC 5044 4 and 5;
 * draft-culley-iwarp-mpa-03 6 and 7).
 *
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |          ULPDU_Length         |                               |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
 *   ~                ULPDU (DDP segment)            +-+-+-+-+-+-+-+-+
 *   |                                               |  PAD (0-3)    |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                         CRC32C                                |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Marker (every 512th octet of a direction's FPDU-mode stream):
 *   |           Reserved            |            FPDUPTR            |
 *
 * Markers are counted from the first octet of FPDU mode in each
 * direction.  FPDUPTR is the distance back from the marker's first octet
 * to the ULPDU_Length field of the FPDU it sits in (RFC 5044 4.3); a
 * marker that falls exactly between two FPDUs has FPDUPTR 0 and belongs
 * to the next FPDU (it is its first octets, before its ULPDU_Length, and
 * is covered by its CRC), so in an FPDU that starts with a marker the
 * later markers point 4 octets past the FPDU's first octet.  Every FPDU is a multiple of
 * four octets, markers included.
 *
 * Positions are TCP sequence numbers: all arithmetic is modulo 2^32, so
 * FPDUs and markers across the sequence wrap work unchanged.
 */
#ifndef MPA_FPDU_H
#define MPA_FPDU_H

#include "mpa/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MPA_MARKER_INTERVAL 512
#define MPA_MARKER_LEN 4
#define MPA_ULPDU_MAX 64768       /* RFC 5044 5.2 */
#define MPA_FPDU_OVERHEAD 6       /* ULPDU_Length + CRC */
#define MPA_MULPDU_MIN 128
/* Largest possible FPDU on the wire: ULPDU_Length 65535, 1 pad octet,
 * CRC and a marker every 512 octets (one more for a leading marker). */
#define MPA_FPDU_WIRE_MAX (65542u + 4u * (65542u / 508u + 2u))
#define MPA_FPDU_MAX_MARKERS (65542u / 508u + 2u)

/* How a sender writes its markers (RFC 5044 4.2 is MPA_MARKER_BE; the
 * others are what real stacks do, docs/quirks.md). */
typedef enum mpa_marker_order {
    MPA_MARKER_BE = 0,   /* RESERVED, then FPDUPTR, each in network order */
    MPA_MARKER_LE16 = 1, /* RESERVED, then FPDUPTR little-endian */
    MPA_MARKER_LE32 = 2, /* the 32-bit word little-endian: FPDUPTR first */
} mpa_marker_order;

/* Per direction framing, as negotiated (or stated, for mid-stream). */
typedef struct mpa_fpdu_cfg {
    int markers;        /* markers present in this direction */
    int crc;            /* CRC checked (C=1 in either startup frame) */
    uint32_t mark_base; /* sequence number of the first octet of FPDU mode */
} mpa_fpdu_cfg;

/* How a sender writes its markers where it departs from RFC 5044 4.2-4.3
 * (the stream engine finds it: mpa_ev_fpdu).  All zero is the RFC. */
typedef struct mpa_marker_form {
    uint8_t order;      /* mpa_marker_order */
    uint8_t nocrc;      /* its marker count leaves out CRC octets: no marker
                           before or inside the CRC field, and the marker
                           base moves on 4 octets per FPDU (mark_base is
                           the base in force for the FPDU decoded) */
} mpa_marker_form;

typedef enum mpa_crc_status {
    MPA_CRC_NOT_CHECKED = 0, /* CRC off for this connection */
    MPA_CRC_GOOD = 1,
    MPA_CRC_BAD = 2,
} mpa_crc_status;

/* "good", "bad", "not checked"; never NULL. */
const char *mpa_crc_status_str(mpa_crc_status st);

typedef struct mpa_marker {
    uint32_t seq;       /* sequence number of the marker's first octet */
    size_t buf_off;     /* its offset in the decoded buffer */
    uint16_t reserved;
    uint16_t fpduptr;
} mpa_marker;

typedef struct mpa_fpdu {
    uint32_t seq;             /* first octet (a leading marker included) */
    size_t wire_len;          /* octets on the wire: markers, pad, CRC included */
    uint16_t ulpdu_len;
    uint8_t pad_len;
    uint8_t pad_nonzero;      /* a pad octet was not zero */
    uint8_t leading_marker;   /* the FPDU starts with a marker */
    uint32_t crc_wire;        /* CRC field as a value (octets are little-endian) */
    uint32_t crc_calc;        /* computed CRC32C (always computed here) */
    mpa_crc_status crc;       /* NOT_CHECKED when cfg->crc is 0 */
    unsigned n_markers;
    mpa_marker markers[MPA_FPDU_MAX_MARKERS];
    /* ULPDU as a slice when no marker falls inside it, else NULL: use
     * mpa_fpdu_ulpdu_copy(). */
    const uint8_t *ulpdu;
} mpa_fpdu;

/*
 * Decode the FPDU that starts at p[0], the octet with sequence number
 * seq.  The caller's buffer is only read.  A marker due at seq itself is
 * taken as the FPDU's leading marker.
 *
 * MPA_OK: *out describes the FPDU; out->wire_len octets were consumed.
 *   Bad CRCs, pads and markers are reported in *out, not as a status.
 * MPA_NEED_MORE: *need is how many more octets the FPDU needs (exact once
 *   the ULPDU_Length field is present, else enough to read it).
 * MPA_E_ARG: NULL pointer.
 */
mpa_status mpa_fpdu_decode(const uint8_t *p, size_t len, uint32_t seq, const mpa_fpdu_cfg *cfg,
                           mpa_fpdu *out, size_t *need);

/* The same layout (lengths, pad, markers, the ULPDU slice) without the
 * CRC32C: out->crc_calc is 0 and out->crc MPA_CRC_NOT_CHECKED.  For a
 * display that already knows the CRC verdict (the Wireshark plugin
 * redraws an FPDU the stream engine judged on the first pass). */
mpa_status mpa_fpdu_layout(const uint8_t *p, size_t len, uint32_t seq, const mpa_fpdu_cfg *cfg,
                           mpa_fpdu *out, size_t *need);

/* mpa_fpdu_layout for a sender whose markers take the form mf (NULL:
 * the RFC's). */
mpa_status mpa_fpdu_layout_mf(const uint8_t *p, size_t len, uint32_t seq, const mpa_fpdu_cfg *cfg,
                              const mpa_marker_form *mf, mpa_fpdu *out, size_t *need);

/* What the first octets of an FPDU show when the rest is missing (a
 * capture cut it: a snap length, a hole, the end of the capture). */
#define MPA_FPDU_HEAD_MAX 128
typedef struct mpa_fpdu_head {
    int have_len;             /* ULPDU_Length was among the octets */
    uint16_t ulpdu_len;
    size_t len_off;           /* where ULPDU_Length is in the buffer (after a leading marker) */
    uint32_t wire_len;        /* the whole FPDU on the wire, markers, pad and CRC included (when have_len) */
    unsigned n_markers;       /* markers among the octets */
    mpa_marker markers[MPA_FPDU_MAX_MARKERS];
    size_t ulpdu_avail;       /* ULPDU octets among them, markers removed (at most MPA_FPDU_HEAD_MAX) */
    uint8_t ulpdu[MPA_FPDU_HEAD_MAX];
} mpa_fpdu_head;

/* Read the first len octets of an FPDU that starts at sequence number
 * seq (cfg as for mpa_fpdu_decode): its ULPDU_Length, markers and the
 * start of its ULPDU (enough for the DDP and RDMAP headers).  MPA_OK
 * (whatever len is: *out says what was there), MPA_E_ARG for NULL
 * pointers.  An FPDU that is whole in p[0..len) is described too; its
 * CRC is not checked. */
mpa_status mpa_fpdu_head_decode(const uint8_t *p, size_t len, uint32_t seq, const mpa_fpdu_cfg *cfg, mpa_fpdu_head *out);

/* mpa_fpdu_head_decode for markers of the form mf (NULL: the RFC's). */
mpa_status mpa_fpdu_head_decode_mf(const uint8_t *p, size_t len, uint32_t seq, const mpa_fpdu_cfg *cfg,
                                   const mpa_marker_form *mf, mpa_fpdu_head *out);

/* Copy the ULPDU of a decoded FPDU (p: the same buffer) with markers
 * removed, at most cap octets; returns the number copied. */
size_t mpa_fpdu_ulpdu_copy(const uint8_t *p, const mpa_fpdu *f, uint8_t *dst, size_t cap);

/* Wire length of an FPDU carrying ulpdu_len octets that starts at seq. */
size_t mpa_fpdu_wire_len(uint16_t ulpdu_len, uint32_t seq, const mpa_fpdu_cfg *cfg);

/* Deliberate faults for the injector; all zero = a correct FPDU. */
typedef struct mpa_fpdu_faults {
    int crc_mode;             /* 0: correct CRC, 1: write crc_value, 2: correct ^ crc_xor */
    uint32_t crc_value;
    uint32_t crc_xor;
    int32_t marker_ptr_delta; /* added to the FPDUPTR of the markers written */
    unsigned marker_nth;      /* 0: every marker of the FPDU; n: only the n-th */
    uint16_t marker_reserved; /* written in every marker's reserved field */
    uint8_t pad_byte;         /* value of the pad octets */
    int len_override;         /* >= 0: write this ULPDU_Length (a lie) */
} mpa_fpdu_faults;

/*
 * Encode ulpdu[0..ulpdu_len) as one FPDU starting at sequence number
 * seq: inserts the markers due (cfg->markers), the pad and the CRC32C
 * (always computed; with cfg->crc 0 too, as senders may).
 * *written gets the wire length.  MPA_E_NOSPACE if cap is too small,
 * MPA_E_ARG for NULL pointers or ulpdu_len > 65535.
 */
mpa_status mpa_fpdu_encode(const uint8_t *ulpdu, size_t ulpdu_len, uint32_t seq,
                           const mpa_fpdu_cfg *cfg, const mpa_fpdu_faults *faults, uint8_t *out,
                           size_t cap, size_t *written);

/* MULPDU for an EMSS (draft-03 7.3.2 / RFC 5044 4.5), never below 128. */
unsigned mpa_mulpdu(unsigned emss, int markers);

#ifdef __cplusplus
}
#endif
#endif

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MPA startup frames: Request and Reply (RFC 5044 7.1.1), the enhanced
 * form (RFC 6581 6 and 9), and the pre-standard frames that still turn up
 * in old captures: the draft-culley-iwarp-mpa-03 "Start Key" and the 2007
 * interop proposal's "RtR" frame.
 *
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 0 |                 Key (16 octets: "MPA ID Req Frame",           |
 *   ~                  "MPA ID Rep Frame" or "MPA ID RtR Frame")     ~
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *16 |M|C|R|S|  Res  |      Rev      |           PD_Length           |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *20 |A|B|            IRD            |C|D|            ORD            |  only S=1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   ~          Private Data (PD_Length octets, the 4 above included) ~
 *
 * RFC 5044 has a 5-bit Res where RFC 6581 put S; this module always reads
 * the S position as S and reports the other four bits as Res.
 *
 * The draft-03 Start Key is 15 octets "MPA ident frame" followed by one
 * octet M|C|Res(2)|Rev(4) (the draft's Figure 7 did not survive in our
 * copy; this layout follows its field list, an assumption: libmpa(3)).
 */
#ifndef MPA_FRAME_H
#define MPA_FRAME_H

#include "mpa/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MPA_KEY_LEN 16
#define MPA_FRAME_HDR_LEN 20      /* key + control word */
#define MPA_STARTKEY_LEN 16       /* draft-03: 15-octet key + flags octet */
#define MPA_PD_MAX 512            /* RFC 5044 7.1.1 */
#define MPA_ENH_LEN 4             /* RFC 6581 9 */
#define MPA_IRD_ORD_MAX 0x3FFF    /* also "no automatic negotiation" */

typedef enum mpa_key_kind {
    MPA_KEY_UNKNOWN = 0,
    MPA_KEY_REQ,        /* "MPA ID Req Frame" */
    MPA_KEY_REP,        /* "MPA ID Rep Frame" */
    MPA_KEY_RTR2007,    /* "MPA ID RtR Frame", 2007 interop proposal */
    MPA_KEY_STARTKEY,   /* "MPA ident frame", draft-culley-iwarp-mpa-03 */
} mpa_key_kind;

/* Static, never NULL: "Request", "Reply", "RtR frame (2007)",
 * "Start Key (draft-03)", "unknown". */
const char *mpa_key_kind_name(mpa_key_kind k);

/* The 16 key octets of a standard kind (15 for the Start Key); NULL for
 * MPA_KEY_UNKNOWN.  Static storage. */
const uint8_t *mpa_key_bytes(mpa_key_kind k);

/* Enhanced connection establishment data (RFC 6581 9), host order. */
typedef struct mpa_enh {
    uint8_t a, b, c, d; /* each 0 or 1 */
    uint16_t ird, ord;  /* 14 bits each; 0x3FFF = no automatic negotiation */
} mpa_enh;

/* Pack / unpack the 32-bit field (network order on the wire). */
uint32_t mpa_enh_pack(const mpa_enh *e);
mpa_enh mpa_enh_unpack(uint32_t v);

/*
 * The IRD/ORD negotiation before RFC 6581: some Rev 1 stacks open the
 * private data with IRD then ORD, each a 32-bit number ([MS-SMBD] 6.1,
 * "IRD/ORD Negotiate Header", sent by Chelsio T4 adapters and by Linux
 * siw in its MPA v1 peer-to-peer mode, network order); a byte-swapped
 * variant writes each number least significant octet first.  Nothing in
 * the frame says the header is there: it is recognised when both numbers
 * read in one byte order are 1..65535 (a real depth, upper half zero).
 */
typedef enum mpa_leg_order {
    MPA_LEG_NONE = 0, /* no legacy IRD/ORD header */
    MPA_LEG_BE,       /* network order, as [MS-SMBD] and siw write it */
    MPA_LEG_LE,       /* each 32-bit number byte-swapped */
} mpa_leg_order;

typedef struct mpa_leg_irdord {
    mpa_leg_order order;
    uint32_t ird, ord;
} mpa_leg_irdord;

typedef struct mpa_frame {
    mpa_key_kind kind;
    uint8_t key[MPA_KEY_LEN]; /* as received (Start Key: 15 key octets + flags) */
    /* For MPA_KEY_UNKNOWN: the standard key it is nearest to (most equal
     * octets) and the index of the first octet that differs from it. */
    mpa_key_kind nearest;
    int first_diff;
    unsigned n_diff;          /* octets that differ from `nearest` */
    uint8_t m, c, r, s;       /* 0 or 1 (R and S absent in a Start Key: 0) */
    uint8_t res;              /* Res bits as sent: 4 bits (2 in a Start Key) */
    uint8_t rev;
    uint16_t pd_len;          /* PD_Length as sent (0 for a Start Key) */
    size_t hdr_len;           /* 20, or 16 for a Start Key */
    size_t frame_len;         /* hdr_len + pd_len */
    int has_enh;              /* S=1 and PD_Length >= 4: enh is valid */
    mpa_enh enh;
    const uint8_t *pd;        /* private data slice in the caller's buffer */
    size_t pd_avail;          /* octets of pd present (<= pd_len) */
    mpa_leg_irdord leg;       /* the legacy IRD/ORD header, when pd holds one */
} mpa_frame;

/*
 * Decode one startup frame at p[0..len).  p is only read, never kept.
 *
 * MPA_OK: the whole frame (header and PD_Length octets) is present;
 *   out->frame_len octets were consumed.
 * MPA_NEED_MORE: *need (if need is non-NULL) is the number of octets
 *   still missing; out holds whatever the present octets allowed
 *   (out->pd_avail < out->pd_len when only private data is missing).
 * MPA_E_INVALID: the key is none of the known ones (out->kind is
 *   MPA_KEY_UNKNOWN, out->nearest/first_diff say how it differs; the
 *   control word is decoded if present).  This is "not an MPA frame"; a
 *   conformance verdict is the caller's (the stream engine reports it).
 * MPA_E_ARG: out is NULL.
 *
 * Values that break rules (Rev 7, PD_Length 600, Res bits) decode as
 * found: judging them is the checker's job, not the decoder's.
 */
mpa_status mpa_frame_decode(const uint8_t *p, size_t len, mpa_frame *out, size_t *need);

/* Looks for the legacy header in f: a Rev 1 frame with S=0 and at least
 * 8 private data octets present (f->pd, f->pd_avail).  Returns the
 * decode (order MPA_LEG_NONE when absent; f NULL: absent). */
mpa_leg_irdord mpa_frame_legacy_irdord(const mpa_frame *f);

/* What to encode.  Anything may be wrong on purpose: the injector uses
 * this to build bad frames. */
typedef struct mpa_frame_enc {
    mpa_key_kind kind;        /* key to send, unless raw_key is set */
    const uint8_t *raw_key;   /* if non-NULL: these 16 octets verbatim */
    uint8_t m, c, r, s;       /* only the low bit is used */
    uint8_t res;              /* low 4 bits (Start Key: low 2) */
    uint8_t rev;
    int enh_present;          /* prepend the 4-octet enhanced field */
    mpa_enh enh;
    const uint8_t *pd;        /* ULP private data (after the enhanced field) */
    size_t pd_len;
    int pd_len_override;      /* >= 0: write this PD_Length (a lie); -1: the truth */
} mpa_frame_enc;

/*
 * Encode into out[0..cap).  *written (if non-NULL) gets the length:
 * 20 + (4 if enh_present) + pd_len, or 16 for a Start Key.
 * MPA_OK; MPA_E_NOSPACE when cap is too small (nothing useful written);
 * MPA_E_ARG for NULL pointers, an unknown kind without raw_key, or
 * PD octets (enhanced field included) over 65535.
 */
mpa_status mpa_frame_encode(const mpa_frame_enc *f, uint8_t *out, size_t cap, size_t *written);

#ifdef __cplusplus
}
#endif
#endif

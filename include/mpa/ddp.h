/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libmpa: DDP and RDMAP headers at the start of an MPA ULPDU.
 *
 * Sources: RFC 5041 (DDP) section 4, RFC 5040 (RDMAP) sections 4, 5 and
 * 7, RFC 7306 (RDMAP extensions: atomics, immediate data), RFC 5044
 * section 8 and RFC 6581 section 8 (LLP/MPA TERMINATE error codes),
 * RFC 6581 section 9.2 (ready-to-receive messages).
 *
 * Every multi-octet field is big-endian on the wire.  Bit 0 is the most
 * significant bit of the first octet, as in the RFC figures.
 *
 * DDP control octet and RDMAP control octet (RFC 5041 4.1, RFC 5040 4.1):
 *
 *     octet 0                          octet 1 (first RsvdULP octet)
 *     +---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+
 *     | T | L |  DDP Rsvd (4) | DV(2) | RV(2) |Rsv(2) |  Opcode (4)   |
 *     +---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+
 *
 * Tagged buffer model header, T=1 (RFC 5041 4.2), 14 octets:
 *
 *     0..1   control octets above
 *     2..5   STag (Data Sink STag)
 *     6..13  TO, Tagged Offset (64 bits)
 *
 * Untagged buffer model header, T=0 (RFC 5041 4.3), 18 octets:
 *
 *     0..1   control octets above
 *     2..5   rest of RsvdULP: the Invalidate STag for Send with
 *            Invalidate / Send with SE and Invalidate, zero otherwise
 *     6..9   QN, Queue Number
 *     10..13 MSN, Message Sequence Number
 *     14..17 MO, Message Offset
 *
 * RDMA Read Request header after the DDP header (RFC 5040 4.4), 28 octets:
 *
 *     0..3   Data Sink STag        4..11  Data Sink Tagged Offset
 *     12..15 RDMA Read Message Size
 *     16..19 Data Source STag      20..27 Data Source Tagged Offset
 *
 * Terminate header after the DDP header (RFC 5040 4.8):
 *
 *     +-------+-------+---------------+-+-+-+-------------------------+
 *     | Layer | EType |  Error Code   |M|D|R|  Reserved (13 bits)     |
 *     +-------+-------+---------------+-+-+-+-------------------------+
 *     | DDP Segment Length (16), if M or D is set                     |
 *     | Terminated DDP header (14 or 18 octets, by its own T bit),    |
 *     |   if D is set                                                 |
 *     | Terminated RDMA header (the 28-octet Read Request header),    |
 *     |   if R is set                                                 |
 *     +---------------------------------------------------------------+
 *
 *   M = "DDP Segment Length valid", D = "terminated DDP header included",
 *   R = "terminated RDMA header included".  This decoder treats the
 *   2-octet DDP Segment Length field as present when M or D is set:
 *   deployed senders set M and D together and put the segment length
 *   right before the copied DDP header (it is the FPDU's ULPDU_Length
 *   position), and M alone still announces a length.
 *
 * RFC 7306 bodies after the (untagged) DDP header:
 *
 *   Atomic Request (opcode 0xA), 52 octets:
 *     0..3   Reserved (28 bits) | AOpCode (low 4 bits)
 *     4..7   Request Identifier      8..11 Remote STag
 *     12..19 Remote Tagged Offset    20..27 Add or Swap Data
 *     28..35 Add or Swap Mask        36..43 Compare Data
 *     44..51 Compare Mask
 *   Atomic Response (opcode 0xB), 12 octets:
 *     0..3   Original Request Identifier
 *     4..11  Original Remote Data Value
 *   Immediate Data / Immediate Data with SE (opcodes 0x8 / 0x9), 8 octets:
 *     0..7   Immediate Data
 *
 * Ownership: every decoded field is a host-order copy of the wire value;
 * the only pointer (mpa_term.rdma_hdr) points into the caller's buffer and
 * is valid while that buffer is.  Nothing is allocated.
 */
#ifndef MPA_DDP_H
#define MPA_DDP_H

#include <stddef.h>
#include <stdint.h>

#include "mpa/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Header sizes (RFC 5041 4.2 / 4.3). */
#define MPA_DDP_TAGGED_HDR_LEN 14u
#define MPA_DDP_UNTAGGED_HDR_LEN 18u
/* Opcode-specific RDMAP header sizes (RFC 5040 4.4 and 4.8, RFC 7306). */
#define MPA_RDMAP_RREQ_LEN 28u
#define MPA_RDMAP_TERM_MIN_LEN 4u
#define MPA_RDMAP_ATOMIC_REQ_LEN 52u
#define MPA_RDMAP_ATOMIC_RESP_LEN 12u
#define MPA_RDMAP_IMMEDIATE_LEN 8u
/* The largest header + body this module decodes: untagged header and a
 * Terminate carrying segment length, an untagged DDP header and a Read
 * Request header (18 + 4 + 2 + 18 + 28). */
#define MPA_DDP_MAX_STRUCT_LEN 70u

/* RDMAP opcodes (RFC 5040 4.2; 0x8-0xB from RFC 7306). */
enum mpa_rdmap_opcode {
    MPA_RDMAP_RDMA_WRITE = 0x0,
    MPA_RDMAP_READ_REQUEST = 0x1,
    MPA_RDMAP_READ_RESPONSE = 0x2,
    MPA_RDMAP_SEND = 0x3,
    MPA_RDMAP_SEND_INVALIDATE = 0x4,
    MPA_RDMAP_SEND_SE = 0x5,
    MPA_RDMAP_SEND_SE_INVALIDATE = 0x6,
    MPA_RDMAP_TERMINATE = 0x7,
    MPA_RDMAP_ATOMIC_REQUEST = 0xA,
    MPA_RDMAP_ATOMIC_RESPONSE = 0xB,
    MPA_RDMAP_IMMEDIATE = 0x8,
    MPA_RDMAP_IMMEDIATE_SE = 0x9,
};

/* Untagged queue numbers (RFC 5040 4.2; QN 3 from RFC 7306). */
enum mpa_ddp_qn {
    MPA_QN_SEND = 0,        /* Send variants, Immediate Data        */
    MPA_QN_READ_REQUEST = 1,/* RDMA Read Requests, Atomic Requests  */
    MPA_QN_TERMINATE = 2,   /* Terminate                            */
    MPA_QN_ATOMIC_RESP = 3, /* Atomic Responses (RFC 7306)          */
};

/* RFC 7306 atomic operation codes (AOpCode; the registry of RFC 7306
 * 10.1, Figure 5).  0x1 is Reserved there: the field texts of 5.2.1 still
 * speak of a Swap, but no code was assigned to one, so an Atomic Request
 * with 0x1 breaks MPA-RDMAP-ATOMIC and is named "Reserved".
 * MPA_ATOMIC_SWAP keeps its value for existing users only. */
enum mpa_atomic_opcode {
    MPA_ATOMIC_FETCH_ADD = 0x0,
    MPA_ATOMIC_RESERVED_1 = 0x1, /* Reserved (RFC 7306 10.1) */
    MPA_ATOMIC_SWAP = MPA_ATOMIC_RESERVED_1, /* old name: no such operation */
    MPA_ATOMIC_CMP_SWAP = 0x2,
};

/* TERMINATE layers (RFC 5040 4.8). */
enum mpa_term_layer {
    MPA_TERM_LAYER_RDMAP = 0x0,
    MPA_TERM_LAYER_DDP = 0x1,
    MPA_TERM_LAYER_LLP = 0x2,
};

/* One DDP header plus the RDMAP control octet it carries.  Used for the
 * segment being decoded and, nested, for the DDP header a Terminate
 * copies.  Every field holds the value found on the wire, in range of its
 * width (1, 2 or 4 bits for the control fields). */
typedef struct mpa_ddp_hdr {
    uint8_t tagged;     /* T (1 bit): 1 = tagged buffer model           */
    uint8_t last;       /* L (1 bit): last segment of the DDP message    */
    uint8_t ddp_rsvd;   /* 4 reserved bits of the DDP control octet      */
    uint8_t dv;         /* DDP version (2 bits); RFC 5041 sends 1        */
    uint8_t rv;         /* RDMAP version (2 bits); RFC 5040 sends 1      */
    uint8_t rdmap_rsvd; /* 2 reserved bits of the RDMAP control octet    */
    uint8_t opcode;     /* RDMAP opcode (4 bits)                         */
    /* Tagged (T=1) only; zero otherwise. */
    uint32_t stag; /* Data Sink STag                                    */
    uint64_t to;   /* Tagged Offset                                     */
    /* Untagged (T=0) only; zero otherwise. */
    uint32_t rsvdulp; /* octets 2..5: Invalidate STag for the two
                         "...and Invalidate" Sends, reserved otherwise  */
    uint32_t qn;      /* Queue Number                                   */
    uint32_t msn;     /* Message Sequence Number                        */
    uint32_t mo;      /* Message Offset                                 */
} mpa_ddp_hdr;

/* RDMA Read Request header (RFC 5040 4.4). */
typedef struct mpa_rdma_read_req {
    uint32_t sink_stag;
    uint64_t sink_to;
    uint32_t size; /* RDMA Read Message Size; 0 is the RFC 6581 read RTR */
    uint32_t src_stag;
    uint64_t src_to;
} mpa_rdma_read_req;

/* Terminate header (RFC 5040 4.8). */
typedef struct mpa_term {
    uint8_t layer;  /* 4 bits, enum mpa_term_layer                      */
    uint8_t etype;  /* 4 bits, meaning depends on layer                 */
    uint8_t code;   /* 8 bits, meaning depends on layer and etype       */
    uint8_t m;      /* DDP Segment Length valid                         */
    uint8_t d;      /* terminated DDP header included                   */
    uint8_t r;      /* terminated RDMA header included                  */
    uint16_t rsvd;  /* 13 reserved bits after M, D, R                   */
    uint8_t seglen_present; /* decode: m || d (the field is on the wire) */
    uint16_t seglen;        /* DDP Segment Length, when present          */
    uint8_t has_ddp_hdr;    /* decode: == d                              */
    size_t ddp_hdr_len;     /* 14 or 18, by the copied header's T bit    */
    mpa_ddp_hdr ddp_hdr;    /* the terminated DDP header, when d         */
    /* The terminated RDMA header (r = 1): a slice of the caller's buffer
     * (decode only; the encoder ignores it) and its decoding as a Read
     * Request header, the only layout RFC 5040 defines for it.
     * rdma_hdr_is_rreq says whether that reading is confirmed: set when
     * r = 1 and either no DDP header was copied or the copied one has
     * opcode RDMA Read Request. */
    const uint8_t *rdma_hdr;
    size_t rdma_hdr_len; /* 28 when r, else 0                           */
    uint8_t rdma_hdr_is_rreq;
    mpa_rdma_read_req rreq; /* the 28 octets; the encoder writes these   */
} mpa_term;

/* RFC 7306 Atomic Request header. */
typedef struct mpa_atomic_req {
    uint32_t rsvd;      /* upper 28 bits of the first word (reserved)   */
    uint8_t aop;        /* AOpCode, low 4 bits, enum mpa_atomic_opcode  */
    uint32_t req_id;    /* Request Identifier                           */
    uint32_t stag;      /* Remote STag                                  */
    uint64_t to;        /* Remote Tagged Offset                         */
    uint64_t add_swap_data;
    uint64_t add_swap_mask;
    uint64_t compare_data;
    uint64_t compare_mask;
} mpa_atomic_req;

/* RFC 7306 Atomic Response header. */
typedef struct mpa_atomic_resp {
    uint32_t orig_req_id; /* Original Request Identifier                */
    uint64_t orig_value;  /* Original Remote Data Value                 */
} mpa_atomic_resp;

/* RFC 7306 Immediate Data header: 8 octets read as one big-endian value. */
typedef struct mpa_immediate {
    uint64_t data;
} mpa_immediate;

/* A decoded DDP segment start. */
typedef struct mpa_ddp {
    mpa_ddp_hdr hdr;      /* DDP header and RDMAP control               */
    uint8_t opcode_known; /* opcode defined by RFC 5040 or RFC 7306     */
    uint8_t complete;     /* 1 when mpa_ddp_decode returned MPA_OK      */
    size_t ulpdu_len;     /* the ULPDU length given to the decoder      */
    size_t hdr_len;       /* DDP header: 14 or 18 (0 if T unknown)      */
    size_t body_len;      /* opcode-specific RDMAP header after it      */
    /* Octets the headers need from the ULPDU start: hdr_len + body_len
     * when complete.  When the decode stops early it is the least length
     * consistent with the octets seen so far (an unseen T bit counts as
     * tagged, an unseen opcode as body-less, unseen M/D/R bits as clear,
     * an unseen copied-header T bit as tagged). */
    size_t need_len;
    /* Octets of the prefix the decoder examined: min(avail, need_len).
     * Fields that lie past it are 0 and not judged by the anomaly check. */
    size_t seen_len;
    size_t payload_len;   /* ulpdu_len - need_len when complete, else 0 */
    union {
        mpa_rdma_read_req rreq;       /* opcode 0x1 */
        mpa_term term;                /* opcode 0x7 */
        mpa_atomic_req atomic_req;    /* opcode 0xA */
        mpa_atomic_resp atomic_resp;  /* opcode 0xB */
        mpa_immediate imm;            /* opcodes 0x8, 0x9 */
    } u;                              /* zeroed for other opcodes */
} mpa_ddp;

/*
 * Decode the DDP header and the opcode's RDMAP header at the start of a
 * ULPDU.  p[0..avail) is a prefix of the ULPDU (the stream engine keeps
 * only the first 128 octets); ulpdu_len is the ULPDU's full length.  No
 * octet at or past p + avail is read.
 *
 * Returns:
 *   MPA_OK         all headers decoded; out->complete = 1 and
 *                  out->payload_len = ulpdu_len - out->need_len.
 *   MPA_NEED_MORE  the prefix is too short but ulpdu_len could hold the
 *                  headers; *need (if need is not NULL) = need_len - avail,
 *                  at least 1.  It is a lower bound: exact once the
 *                  octets that fix the layout (octet 0: T, octet 1:
 *                  opcode, the Terminate control word, the copied DDP
 *                  header's first octet) are inside the prefix.
 *   MPA_E_INVALID  ulpdu_len is shorter than the headers the octets seen
 *                  demand (out->need_len says how many); *need is 0.
 *   MPA_E_ARG      out is NULL, p is NULL with avail > 0, or
 *                  avail > ulpdu_len.
 * Unknown opcodes are not an error: the DDP header is decoded, the body
 * is empty and out->opcode_known is 0.  Non-conforming values (versions,
 * reserved bits, queue numbers...) are decoded as found; see
 * mpa_ddp_anomalies().  On every return but MPA_E_ARG, *out holds what
 * could be read (unread fields are 0).
 */
mpa_status mpa_ddp_decode(const uint8_t *p, size_t avail, size_t ulpdu_len,
                          mpa_ddp *out, size_t *need);

/*
 * Encode d->hdr and the opcode's body (d->u, chosen by d->hdr.opcode and,
 * for a Terminate, its m/d/r bits) into out[0..cap).  Fields are written
 * exactly as given, wrong values included; each is masked to its wire
 * width.  hdr.tagged chooses the 14- or 18-octet layout; the copied DDP
 * header of a Terminate is laid out by its own tagged bit.  The payload
 * is not written.  d->ulpdu_len, need_len, payload_len, complete,
 * opcode_known and the decode-only Terminate fields (seglen_present,
 * has_ddp_hdr, ddp_hdr_len, rdma_hdr, rdma_hdr_len, rdma_hdr_is_rreq)
 * are ignored.  For in-range fields mpa_ddp_decode() of the output gives
 * the same fields back.
 *
 * Returns MPA_OK (*written = octets written), MPA_E_NOSPACE when cap is
 * too small (nothing written; *written = octets required), MPA_E_ARG when
 * d is NULL or out is NULL with cap > 0.  written may be NULL.
 */
mpa_status mpa_ddp_encode(const mpa_ddp *d, uint8_t *out, size_t cap,
                          size_t *written);

/* Conformance anomalies judged from one decoded segment.  Each bit names
 * the rule it checks. */
typedef enum mpa_ddp_anomaly {
    /* DV != 1 (RFC 5041 4.1: this version of DDP is 1). */
    MPA_DDP_AN_DV = 1u << 0,
    /* RV not valid for the message: 2 or 3 (RFC 5040 4.1 makes 01b and
     * the RDMA Consortium's 00b valid), or 00b on an RFC 7306 opcode
     * (RFC 7306 4.1: its messages carry 01b).  A change of RV within a
     * direction needs the stream: libmpa's stream engine judges it. */
    MPA_DDP_AN_RV = 1u << 1,
    /* DDP control reserved bits not zero (RFC 5041 4.1). */
    MPA_DDP_AN_DDP_RSVD = 1u << 2,
    /* RDMAP control reserved bits not zero (RFC 5040 4.1). */
    MPA_DDP_AN_RDMAP_RSVD = 1u << 3,
    /* Opcode reserved by RFC 5040 4.2 and not defined by RFC 7306. */
    MPA_DDP_AN_OPCODE_UNKNOWN = 1u << 4,
    /* T bit disagrees with the opcode: Write and Read Response are
     * tagged, every other message untagged (RFC 5040 4.2, RFC 7306). */
    MPA_DDP_AN_TAGGED_MISMATCH = 1u << 5,
    /* Queue number wrong for the opcode: Send variants and Immediate
     * Data 0, Read Request and Atomic Request 1, Terminate 2, Atomic
     * Response 3 (RFC 5040 4.2, RFC 7306). */
    MPA_DDP_AN_QN = 1u << 6,
    /* L=0 on a message that is one DDP segment: Read Request, Terminate
     * (RFC 5040 4.4, 4.8, 5.2.1, 5.4). */
    MPA_DDP_AN_NOT_LAST = 1u << 7,
    /* MO != 0 on the same single-segment messages. */
    MPA_DDP_AN_MO_NONZERO = 1u << 8,
    /* Terminate Layer/EType/Error Code not defined (RFC 5040 4.8,
     * RFC 5041 7, RFC 5044 8, RFC 6581 8). */
    MPA_DDP_AN_TERM_CODE = 1u << 9,
    /* Terminate reserved 13 bits not zero (RFC 5040 4.8). */
    MPA_DDP_AN_TERM_RSVD = 1u << 10,
    /* Untagged message other than the two "...and Invalidate" Sends with
     * non-zero octets 2..5 (RFC 5040 4.1: reserved, sent as zero). */
    MPA_DDP_AN_RSVDULP_NONZERO = 1u << 11,
    /* Atomic Request with an undefined AOpCode (RFC 7306). */
    MPA_DDP_AN_ATOMIC_OP = 1u << 12,
    /* Atomic Request with non-zero reserved bits (RFC 7306). */
    MPA_DDP_AN_ATOMIC_RSVD = 1u << 13,
    /* Read Request followed by payload: the message is the 28-octet
     * header only (RFC 5040 4.4, 5.2.1). */
    MPA_DDP_AN_TRAILING = 1u << 14,
    /* An RFC 7306 message that is not its header alone: Immediate Data
     * carries exactly 8 octets and Atomic Requests and Responses no ULP
     * payload (RFC 7306 4.2, 6.3), so each is one DDP segment with L=1,
     * MO=0 and nothing after the header. */
    MPA_DDP_AN_EXT_LEN = 1u << 15,
    /* Atomic Request fields its AOpCode does not use not at the values
     * RFC 7306 5.2.1 says are sent: FetchAdd Compare Data 0 and Compare
     * Mask all ones. */
    MPA_DDP_AN_ATOMIC_UNUSED = 1u << 16,
} mpa_ddp_anomaly;

/* Bitwise OR of mpa_ddp_anomaly bits for a decoded segment; 0 for a clean
 * one or for d == NULL.  Works on any *out mpa_ddp_decode() filled in
 * (MPA_OK, MPA_NEED_MORE or MPA_E_INVALID): a check whose fields lie past
 * d->seen_len is skipped, and MPA_DDP_AN_TRAILING needs d->complete. */
uint32_t mpa_ddp_anomalies(const mpa_ddp *d);

/* Static name of one anomaly bit ("unknown" for others), never NULL. */
const char *mpa_ddp_anomaly_name(uint32_t bit);

/* Ready-to-receive messages (RFC 6581 9.2). */
typedef enum mpa_rtr_kind {
    MPA_RTR_NONE = 0,
    MPA_RTR_SEND = 1,  /* untagged Send (0x3), L=1, zero payload         */
    MPA_RTR_WRITE = 2, /* tagged RDMA Write (0x0), L=1, zero payload     */
    MPA_RTR_READ = 3,  /* untagged RDMA Read Request, Read Message Size 0 */
} mpa_rtr_kind;

/* Which RTR a completely decoded segment is; MPA_RTR_NONE for anything
 * else, for d == NULL and for d->complete == 0. */
mpa_rtr_kind mpa_ddp_rtr_kind(const mpa_ddp *d);

/* "send", "write", "read", or "none" (static, never NULL). */
const char *mpa_rtr_str(mpa_rtr_kind k);

/* Names: static strings, never NULL. */
/* "RDMA Write", ... "Terminate", "Atomic Request", "Atomic Response",
 * "Immediate Data", "Immediate Data with SE"; "unknown opcode" for the
 * reserved ones (0xC, 0xD, 0xE, 0xF) and for op > 15. */
const char *mpa_rdmap_opcode_name(unsigned op);
/* 1 for an opcode defined by RFC 5040 or RFC 7306, else 0. */
int mpa_rdmap_opcode_known(unsigned op);
/* 1 for an opcode RFC 7306 defines (Immediate Data, with SE, Atomic
 * Request and Response), else 0. */
int mpa_rdmap_opcode_rfc7306(unsigned op);
/* "FetchAdd", "CmpSwap"; "Reserved" for 0x1 (RFC 7306 10.1); "unknown"
 * otherwise. */
const char *mpa_atomic_opcode_name(unsigned aop);
/* "RDMAP", "DDP", "LLP"; "unknown" otherwise. */
const char *mpa_term_layer_name(unsigned layer);
/* e.g. "Remote Protection Error", "Untagged Buffer Error", "MPA";
 * "unknown" otherwise. */
const char *mpa_term_etype_name(unsigned layer, unsigned etype);
/* The defined name of an Error Code, e.g. LLP/MPA 7 ->
 * "No matching RTR option"; "unknown" for undefined ones.  A Local
 * Catastrophic Error (RDMAP or DDP EType 0) defines no separate codes: every
 * code there is named "Local Catastrophic Error". */
const char *mpa_term_code_name(unsigned layer, unsigned etype, unsigned code);
/* 1 when mpa_term_code_name() has a defined name for it, else 0. */
int mpa_term_code_known(unsigned layer, unsigned etype, unsigned code);

#ifdef __cplusplus
}
#endif
#endif

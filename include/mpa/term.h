/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libmpa: is a TERMINATE plausible where it was sent?
 *
 * Sources: RFC 5040 4.8 (the Terminate header and its control field),
 * 7.2 (errors detected on incoming messages); RFC 5041 7 (DDP error
 * codes); RFC 5044 8 and RFC 6581 8, 9 (LLP/MPA error codes; codes 5, 6
 * and 7 belong to the enhanced startup).
 *
 * A Terminate Control field is judged in its context: the combination
 * must exist, an error about the peer's incoming messages needs a
 * message from the peer, and the enhanced-startup codes need an enhanced
 * startup.  Linux siw writes the control word as a little-endian C
 * bit-field (Layer and EType swap nibbles, M/D/R land in the low bits of
 * octet 2); mpa_term_ctl_lebf() gives that reading, so a caller can tell
 * which reading is the plausible one.  Pure functions, no allocation.
 */
#ifndef MPA_TERM_H
#define MPA_TERM_H

#include <stddef.h>
#include <stdint.h>

#include "mpa/ddp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The Terminate Control field under one reading. */
typedef struct mpa_term_ctl {
    uint8_t layer, etype, code; /* 4, 4 and 8 bits                    */
    uint8_t m, d, r;            /* header control bits                 */
    uint16_t rsvd;              /* the 13 reserved bits                */
} mpa_term_ctl;

/* How a TERMINATE was read (mpa_ev_fpdu.term_quirk). */
typedef enum mpa_term_quirk {
    MPA_TERM_AS_SENT = 0,    /* RFC 5040 4.8 layout                          */
    MPA_TERM_LE_BITFIELD = 1,/* Linux siw: nibbles swapped, M/D/R bits 0-2   */
    MPA_TERM_ALL_ZERO = 2,   /* every field zero (Chelsio-style)             */
} mpa_term_quirk;

/* Where the TERMINATE was sent. */
typedef struct mpa_term_ctx {
    uint8_t enhanced;     /* the Request asked for enhanced startup (S=1)   */
    uint8_t request_a;    /* the Request or the Reply had A=1 (peer-to-peer
                           * asked for, or answered where it was not)      */
    uint8_t initiator;    /* sent by the Initiator                          */
    uint8_t first;        /* it is the sender's first FPDU                  */
    uint8_t peer_fpdus;   /* the peer had sent an FPDU before it            */
    uint8_t peer_unknown; /* the capture cannot tell (holes, mid-stream...) */
    uint8_t rev2;         /* both startup frames have Rev >= 2 (RFC 6581)   */
} mpa_term_ctx;

typedef enum mpa_term_verdict {
    MPA_TERM_PLAUSIBLE = 0,
    MPA_TERM_UNDEFINED,     /* Layer/EType/code combination not defined       */
    MPA_TERM_LAYOUT,        /* M/D/R announce other lengths than the segment's */
    MPA_TERM_LLP_STARTUP,   /* LLP code 5, 6 or 7 outside an enhanced startup */
    MPA_TERM_NO_PEER_FPDU,  /* about the peer's messages, but it sent none    */
} mpa_term_verdict;

/* The control field as RFC 5040 4.8 lays it out, from a decoded t. */
void mpa_term_ctl_of(const mpa_term *t, mpa_term_ctl *out);
/* The same four octets read as Linux siw writes them. */
void mpa_term_ctl_lebf(const mpa_term_ctl *as_sent, mpa_term_ctl *out);
/* 1 when both are the same reading. */
int mpa_term_ctl_same(const mpa_term_ctl *a, const mpa_term_ctl *b);
/* 1 when the error is about a message the peer sent (LLP CRC or marker,
 * DDP tagged or untagged buffer errors, RDMAP remote errors). */
int mpa_term_about_peer(const mpa_term_ctl *c);
/*
 * The ULPDU length reading c implies: 22 octets of RDMAP/DDP headers,
 * then the segment length (M or D), the copied DDP header (D, its T bit
 * read from ulpdu[avail]), the Read Request header (R).  Returns 0 when
 * the copied header's T bit lies past avail.
 */
size_t mpa_term_ctl_len(const mpa_term_ctl *c, const uint8_t *ulpdu, size_t avail);
/*
 * Judge reading c of a TERMINATE whose ULPDU is ulpdu_len octets, with
 * its first avail octets at ulpdu (layout judged when ulpdu != NULL).
 * Returns the first reason it is implausible, or MPA_TERM_PLAUSIBLE.
 */
mpa_term_verdict mpa_term_judge(const mpa_term_ctl *c, const mpa_term_ctx *x, const uint8_t *ulpdu,
                                size_t avail, size_t ulpdu_len);
/* "plausible", "undefined", ... (static, never NULL). */
const char *mpa_term_verdict_str(mpa_term_verdict v);

#ifdef __cplusplus
}
#endif
#endif

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The FPDU receive machine (internal): RFC 5044 4.1-4.4, 6.
 *
 * One machine per direction in FPDU mode.  It is fed octets in order, in
 * any split, and stops each time an item completes (a marker or an FPDU)
 * so its caller can look at the item and emit events.  Both the
 * stateless decoder (mpa_fpdu_decode) and the stream engine run FPDUs
 * through this one machine, so there is one implementation of the
 * framing rules.
 *
 * Positions are 32-bit sequence numbers: all comparisons are differences
 * taken modulo 2^32, which is what makes the sequence wrap a non-event.
 */
#ifndef MPA_FPDU_RX_H
#define MPA_FPDU_RX_H

#include <stddef.h>
#include <stdint.h>

#include "mpa/fpdu.h"

#define RX_PREFIX_MAX 128 /* ULPDU octets kept for the DDP/RDMAP decode */

/* memcpy for the copies made for every octet read (the ULPDU prefix, the
 * hunt's ring), of any length: see fpdu.c. */
void rx_copy(uint8_t *dst, const uint8_t *src, size_t n);

enum rx_phase { RX_LEN = 0, RX_BODY, RX_CRC };
enum rx_item { RX_NONE = 0, RX_MARKER, RX_FPDU };

/* The octet order of a marker (RFC 5044 4.2 shows RESERVED then FPDUPTR,
 * each in network order). */
enum { MK_ORDER_BE = MPA_MARKER_BE, MK_ORDER_LE16 = MPA_MARKER_LE16, MK_ORDER_LE32 = MPA_MARKER_LE32 };

typedef struct fpdu_rx {
    /* configuration */
    uint8_t markers;
    uint8_t crc_on;         /* compute the CRC (checked or probed) */
    uint32_t mbase;         /* sequence number of the first FPDU-mode octet */
    /* How the sender writes markers (mkmodel.h): RFC 5044 4.2-4.3 is
     * MK_ORDER_BE with every CRC octet counted.  With mk_nocrc the
     * sender's marker count leaves out each FPDU's CRC: no marker falls
     * inside or before a CRC field, and mbase moves on by the CRC's 4
     * octets, so markers drift +4 octets per FPDU off the RFC grid. */
    uint8_t mk_order;
    uint8_t mk_nocrc;
    /* Set by the caller for one rx_run call: a marker that needs no
     * finding (every mk.*_bad flag clear) is counted in quiet_n and read
     * past, rather than ending the call with RX_MARKER. */
    uint8_t mk_quiet;
    uint32_t quiet_n;
    uint32_t crc_octets;    /* CRC octets read since rx_init */

    uint32_t pos;           /* sequence number of the next octet */

    /* the FPDU being received */
    uint8_t phase;
    uint8_t started;        /* an octet of it (marker included) was seen */
    uint8_t leading_marker;
    uint8_t nlen, ncrc, nmk;
    uint8_t lenb[2], crcb[4], mkb[4];
    uint8_t mk_in_crc;      /* the marker being read counts in the CRC */
    uint8_t pad_len, pad_nonzero;
    uint32_t start;         /* sequence number of its first octet */
    uint16_t ulpdu_len;
    uint32_t body_seen;     /* ULPDU + pad octets seen */
    uint32_t crc;           /* running CRC32C state */
    uint16_t n_markers;
    uint8_t mk_any;         /* a marker inside this FPDU gave an implied start */
    uint32_t mk_first_implied;
    uint16_t nprefix;
    uint8_t prefix[RX_PREFIX_MAX];

    /* the last completed marker (valid after RX_MARKER) */
    struct {
        uint32_t pos;
        uint16_t reserved, fpduptr;
        uint8_t leading;      /* at the FPDU's first octet: between FPDUs */
        uint8_t res_bad;      /* reserved != 0 or FPDUPTR low bits set */
        uint8_t ptr_bad;      /* 0 inside an FPDU, or non-zero between FPDUs */
        uint8_t len_disagree; /* implied start != start found by lengths */
        uint8_t same_bad;     /* differs from an earlier marker of the FPDU */
        uint32_t implied;     /* pos - FPDUPTR (low bits masked) */
        uint32_t fpdu_start;  /* start by lengths */
    } mk;

    /* the last completed FPDU (valid after RX_FPDU) */
    struct {
        uint32_t start;
        uint32_t wire_len;
        uint16_t ulpdu_len;
        uint8_t pad_len, pad_nonzero, leading_marker;
        uint16_t n_markers;
        uint32_t crc_wire, crc_calc;
        uint16_t nprefix;
        uint32_t mbase;       /* the marker base its octets were read with */
    } f;
} fpdu_rx;

void rx_init(fpdu_rx *rx, int markers, int crc_on, uint32_t mbase, uint32_t pos);

/* rx_init for a public configuration and marker form (mf may be NULL). */
void rx_init_cfg(fpdu_rx *rx, const mpa_fpdu_cfg *cfg, const mpa_marker_form *mf, int crc_on, uint32_t pos);

/* Consume octets until an item completes or p[0..len) is used up.
 * Returns the octets consumed; *item is RX_NONE, RX_MARKER or RX_FPDU.
 * After RX_FPDU, rx->prefix[0..f.nprefix) holds the ULPDU's first
 * octets until the next call. */
size_t rx_run(fpdu_rx *rx, const uint8_t *p, size_t len, int *item);

/* Octets of the current FPDU seen so far (0 between FPDUs). */
static inline uint32_t rx_partial(const fpdu_rx *rx)
{
    return rx->started ? rx->pos - rx->start : 0;
}

/* Total wire octets still needed to finish the current FPDU, 0 when the
 * ULPDU_Length field is not complete yet (the caller asks for 2). */
uint32_t rx_need(const fpdu_rx *rx);

#endif

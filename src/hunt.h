/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Hunting for FPDU starts (internal): how a direction resynchronises
 * after a capture hole or a capture that starts mid-stream.
 *
 * RFC 5044 says where FPDUs begin only by counting from the startup
 * frame; once octets are lost, the count is lost too.  Two things on the
 * wire still say where FPDUs begin:
 *  - markers (RFC 5044 4.3, 6): every 512 octets of the stream, each
 *    marker's FPDUPTR points back to the start of the FPDU it sits in;
 *  - the FPDUs themselves: a ULPDU_Length whose FPDU ends in a valid
 *    CRC32C (RFC 5044 4.4), or, with CRC off, several FPDUs in a row that
 *    chain by their lengths and carry well-formed DDP/RDMAP headers
 *    (RFC 5041 4.1, RFC 5040 4.1-4.2).
 *
 * The hunt keeps a ring of the last octets and up to HUNT_CANDS receive
 * machines (fpdu_rx.h) started at plausible FPDU starts; the first to
 * prove itself wins and is handed back to the stream engine, which goes
 * on decoding with it.  This module only decides; the engine reports.
 */
#ifndef MPA_HUNT_H
#define MPA_HUNT_H

#include <stddef.h>
#include <stdint.h>

#include "fpdu_rx.h"

/* The ring keeps the last octets seen since the hunt began: a marker's
 * FPDUPTR points back to the start of the FPDU it sits in, and once an
 * FPDU begins after one marker the next marker is less than 512 octets
 * after its start, so 512 + 4 octets of history let a marker hand us an
 * FPDU start we can still read.  Once a resync proves the framing, the
 * FPDUs before it that the ring still holds are proved and decoded too
 * (stream.c): 2048 octets cover the FPDUs of a few TCP segments. */
#define HUNT_RING 2048u
#define HUNT_CANDS 8
#define HUNT_CHAIN 3 /* FPDUs in a row that must chain when no CRC can prove one */

typedef struct hcand {
    fpdu_rx rx;
    uint32_t first;     /* sequence number of its first FPDU */
    uint8_t used;
    uint8_t chain;      /* FPDUs completed in a row that passed */
    uint8_t weak;       /* one of them passed by its shape only (no valid CRC) */
    uint8_t confirm;    /* an FPDU passed by its shape: the next header must be well-formed */
    uint8_t mid;        /* proved inside an FPDU (weak proof), not at its end */
    uint8_t mk_bad;     /* a marker disagreed with the lengths */
    uint8_t n_mk;       /* markers read (saturating) */
    uint8_t by_marker;  /* started where a marker's FPDUPTR pointed */
    uint8_t crc_bad;    /* an FPDU of its chain had a CRC that did not match */
} hcand;

/* One direction's hunt.  Zero-filled is a valid, empty state. */
typedef struct hunt {
    uint8_t markers, crc;   /* mpa_tri: what is known of this sender */
    uint8_t mbase_known;    /* mbase fixes the marker phase (and FPDU starts mod 4) */
    uint32_t mbase;
    /* How this sender writes markers (mkmodel.h), when known: 0 0 is
     * RFC 5044.  With mk_nocrc the grid drifts, so no marker is trusted
     * to place an FPDU start; CRCs still prove one. */
    uint8_t mk_order, mk_nocrc;
    uint8_t try_nocrc;      /* the grid is not known yet: try a drifting one too */
    uint32_t isn;           /* of the direction (hunt_feed's) */
    uint32_t n;             /* octets in the ring since the hunt (re)started */
    uint32_t tried;         /* FPDU starts tried since hunt_start */
    uint32_t tried_marker;  /* of those, pointed to by a marker's FPDUPTR */
    uint8_t ring[HUNT_RING];
    hcand c[HUNT_CANDS];
} hunt;

/* What the hunt decided: where decoding resumes, and how. */
typedef struct hunt_found {
    size_t used;        /* octets of the call consumed, up to the proof */
    uint64_t fstart;    /* stream offset of the first FPDU decoded from here */
    fpdu_rx rx;         /* the winning machine, at the proof */
    uint8_t weak;       /* proved by lengths and headers, not by a valid CRC */
    uint8_t mid;        /* the machine is inside the FPDU after the chain;
                           else it has just completed the proving FPDU */
    uint8_t by_marker;  /* it started where a marker's FPDUPTR pointed */
    uint64_t first_off; /* stream offset of the first FPDU of its chain */
    uint8_t chain_crc_bad; /* an FPDU of that chain had a CRC that did not match */
    uint32_t ring_n;    /* octets the ring held, up to the proof */
} hunt_found;

/* b: ULPDU_Length (2 octets), DDP control, RDMAP control.  1 when they
 * start a well-formed iWARP FPDU (RFC 5041 4.1, RFC 5040 4.1-4.2,
 * RFC 7306): DV 1, RV 1, reserved bits zero, a defined opcode with its
 * T bit, and a length with room for its header. */
int hunt_plausible(const uint8_t *b);

/* Begin hunting with what is known of the sender (mpa_tri markers, crc);
 * mbase (when known) fixes the marker phase, or with markers off the
 * FPDU starts modulo 4. */
void hunt_start(hunt *h, uint8_t markers, uint8_t crc, int mbase_known, uint32_t mbase);

/* Forget the candidates and the ring (after another hole). */
void hunt_clear(hunt *h);

/* A startup frame told what the sender does (MPA_TRI_UNKNOWN: still not
 * known); candidates that contradict it go. */
void hunt_learn(hunt *h, uint8_t markers, uint8_t crc);

/*
 * Read p[0..len), the octets at stream offset off of a direction whose
 * offset 0 has sequence number isn.  Returns 1 when a candidate proved
 * itself (*out says where and how; out->used octets were consumed),
 * else 0 (all len octets were consumed).
 */
int hunt_feed(hunt *h, uint32_t isn, uint64_t off, const uint8_t *p, size_t len, hunt_found *out);

#endif

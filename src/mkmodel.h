/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Working out how a sender really writes its markers (internal).
 *
 * RFC 5044 4.2-4.3 put a marker every 512 octets of the TCP stream from
 * the start of FPDU mode, RESERVED then FPDUPTR in network order, the
 * CRC octets counted like any other.  Real stacks differ (docs/quirks.md):
 * one writes FPDUPTR little-endian, and its marker count leaves out
 * each FPDU's CRC, so its markers drift +4 octets per FPDU off the grid.
 *
 * The models (mk_models) agree on everything before the first marker
 * they place differently or read differently.  At each marker position
 * of the model in force, until the model is settled, the stream engine
 * keeps the direction's octets in a window (not decoding them yet) and
 * runs one receive machine (fpdu_rx.h) per model over them.  A model
 * dies at its first marker that disagrees with the lengths, or its
 * first FPDU with a bad CRC.  The first model alive, in the order of
 * mk_models (the RFC's reading first), wins once it has read a good
 * marker; the engine then decodes the window with it and goes on.
 * Its byte order is settled by a good marker inside an FPDU (a marker
 * between FPDUs reads 0 in every order), its grid by a good marker
 * after a CRC was sent (before the first CRC every grid agrees); until
 * both are, the next marker position opens another window.  When every
 * model dies, the model in force stays and the usual findings say what
 * is wrong.  Fixed state, no allocation; every decision falls at a
 * fixed octet, so none depends on how the octets were split.
 *
 * One more window opens at the marker base itself (CRCs on): a sender
 * that counts its markers from another octet puts no marker there, and
 * its first marker is found inside the first FPDU as a word whose
 * FPDUPTR points back to the FPDU's start and without which the FPDU
 * ends in a valid CRC (mkmodel.c, docs/quirks.md).
 */
#ifndef MPA_MKMODEL_H
#define MPA_MKMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "fpdu_rx.h"

#define MK_NMODELS 6
#define MK_WIN 1536u /* octets held at most: a decision comes before */
#define MK_SEGS 32   /* segment starts remembered in a window */
#define MK_TRIES 16  /* windows at most before the model in force stays */
#define MK_SCAN 1024u /* the base window looks for a shifted grid's first
                         marker this far (mkmodel.c) */
#define MK_SPAWNS 16  /* shifted-grid candidates tried at most */
#define MK_NOSTART 0xFFFFu

enum { MK_IDLE = 0, MK_OPEN, MK_DONE };

typedef struct mk_model {
    uint8_t order;  /* MK_ORDER_* */
    uint8_t nocrc;  /* the marker count leaves out the CRC */
} mk_model;

extern const mk_model mk_models[MK_NMODELS];

typedef struct mkmodel {
    uint8_t state;      /* MK_IDLE, MK_OPEN (a window), MK_DONE */
    uint8_t chosen;     /* index into mk_models: the model in force */
    uint8_t judge_crc;  /* an FPDU with a bad CRC kills a model */
    uint8_t allowed;    /* bit k: model k not ruled out by what is settled */
    uint8_t order_set, grid_set; /* settled */
    uint8_t told_order, told_grid; /* reported */
    uint8_t ntries;
    /* A grid shifted off the marker base (mkmodel.c): the base window,
     * opened at the first octet of FPDU mode, looks for it when the
     * marker the RFC puts there is not one. */
    uint8_t based;      /* the base window was opened */
    uint8_t base_win;   /* the open window is the base window */
    uint8_t cand;       /* bit k: slot k holds a shifted-grid candidate */
    uint8_t proved;     /* bit k: a CRC'd FPDU came after its marker */
    uint8_t nspawn;
    uint8_t tol;        /* base window: the RFC reading, its bad first
                           marker aside, goes on in slot 0 (1), and proved
                           an FPDU (2) */
    uint8_t sc_proved;  /* the scanner's FPDU ended in a valid CRC at the
                           last octet */
    uint8_t seek;       /* resumed after a hunt with the form unsettled:
                           a window where every model dies looks for the
                           grid's phase as the base window does */
    uint8_t sc_part, sc_off; /* the scanner's FPDU began before the window;
                           the scanner is off (a length field cut in two) */
    uint32_t sc_back;   /* then: octets from its ULPDU_Length to the
                           window (slot MK_NMODELS-1 keeps the machine in
                           force as the window opened) */
    uint8_t good2;      /* bit k: model k read two good markers */
    uint16_t cj[MK_NMODELS], cc[MK_NMODELS]; /* its first marker's window
                           offset, and the CRC octets before it */
    uint16_t boff;      /* found: the RFC-reading grid's base, in octets
                           after the first octet of FPDU mode (0: none) */
    uint16_t gadj;      /* CRC octets sent before that grid's first marker
                           (the two grids agree there) */
    /* The scanner reads the base window by lengths alone, no markers:
     * the FPDU it is in starts at sc_cur and ends at sc_end (0: its
     * length is not in yet); sc_crc CRC octets came before sc_cur. */
    uint16_t sc_cur, sc_end, sc_crc;
    uint16_t sst, scc;  /* its FPDU start (MK_NOSTART: before the window)
                           and CRC octets at the last window offset that
                           is a multiple of 4 */
    uint8_t alive, good, ord_ev, grid_ev; /* bit k: model k, this window */
    uint32_t first_mk[MK_NMODELS]; /* its first good marker in the window */
    uint32_t base_pos;  /* sequence number of the window's first octet
                           (the last window's, once decided) */
    fpdu_rx c[MK_NMODELS];
    uint32_t nbuf;
    uint16_t nseg;
    uint32_t seg[MK_SEGS];  /* window offsets where a TCP segment began */
    uint8_t buf[MK_WIN];
} mkmodel;

/* A fresh start (FPDU mode entered with the RFC's reading). */
void mk_reset(mkmodel *m);

/* Decoding resumed after a hunt: the grid's phase is not known any more
 * (a drifting grid's drift went on uncounted).  If the form is not
 * settled, the windows go on with the hunt's grid; the first where every
 * model dies looks for the phase from the octets as the base window does
 * (m->seek), and both grids are tried again from the phase it finds. */
int mk_resumed(mkmodel *m, const fpdu_rx *rx);
/* (returns 1 when the resync found the grid drifting, not said before) */

/* Should a window open before the next octet of rx (the model in force)?
 * Yes at each of its marker positions after the base, until settled;
 * at the base itself once, when CRCs are judged (judge_crc): there a
 * grid shifted off the base is looked for. */
int mk_due(const mkmodel *m, const fpdu_rx *rx, int judge_crc);

/* How many of len octets rx may take before a window could be due. */
size_t mk_limit(const mkmodel *m, const fpdu_rx *rx, size_t len);

/* Open a window at rx's next octet; judge_crc: CRCs are checked. */
void mk_open(mkmodel *m, const fpdu_rx *rx, int judge_crc);

/*
 * Take octets p[0..len) into the window, running every model.  Returns
 * the octets taken; *decided is 1 when the last of them decided (or
 * filled the window).
 */
size_t mk_take(mkmodel *m, const uint8_t *p, size_t len, int *decided);

/* Decide now with what was seen (a hole, an end). */
void mk_force(mkmodel *m);

/* Make rx (as it was when the window opened) read the chosen model, and
 * settle what the window proved.  Returns bits: 1 the byte order is
 * newly known to be not the RFC's, 2 the grid is newly known to drift
 * or to be shifted (each reported once: a shifted grid once its drift
 * is settled too, or no more windows come). */
int mk_apply(mkmodel *m, fpdu_rx *rx);

/* A shifted grid found but not reported yet (the capture ended or lost
 * octets first): 1 once, then 0. */
int mk_grid_pending(mkmodel *m);

/* The shift to report: the sender's marker count starts this many
 * octets after the first octet of FPDU mode (0: not shifted). */
uint32_t mk_shift(const mkmodel *m, int nocrc);

#endif

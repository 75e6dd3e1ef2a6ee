/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scenario corpus: what two MPA endpoints put on the wire, built with
 * libmpa's own encoders, and the catalogue of named scenarios with the
 * finding ids each must raise.  The stream engine's unit tests check the
 * engine against it, mpa-capgen turns it into the reference captures,
 * mpa-replay plays it over real sockets, mpa-bench and mpa-gen-demo build
 * their traffic with it, and the fuzz seeds come from it.
 *
 * A scenario (cs_scen) is chunks of octets per direction in wire order,
 * each chunk one TCP segment, with FIN/RST marks and capture holes.
 * Direction 0 is the TCP client and, in the catalogue, the MPA Initiator.
 *
 * Every name here starts with cs_ / CS_ ("corpus scenario"), so that a
 * program can use the corpus next to mpa-inject's scenario scripts
 * (injector/inject/scen.h, whose prefix is sc_).
 *
 * Memory: a scenario owns its buffers (cs_free() releases them).  Out of
 * memory, or an encoder refusing what a builder asks for, ends the
 * process with a message and exit status 2: the corpus is for test and
 * generator programs, whose scenarios are fixed.
 */
#ifndef MPA_CORPUS_H
#define MPA_CORPUS_H

#include <stddef.h>
#include <stdint.h>

#include "mpa/ddp.h"
#include "mpa/findings.h"
#include "mpa/fpdu.h"
#include "mpa/frame.h"
#include "mpa/stream.h"

/* ---- scenarios ------------------------------------------------------ */

/* CS_LOST: octets the sender sent that the capture lost (a hole): they
 * take their place in the direction's sequence space, the harness tells
 * the engine with mpa_stream_gap(), a capture generator leaves the
 * segment out. */
enum { CS_DATA = 0, CS_FIN, CS_RST, CS_LOST };

typedef struct cs_chunk {
    int kind;   /* CS_* */
    int dir;
    size_t off; /* into cs_scen.buf */
    size_t len;
} cs_chunk;

typedef struct cs_scen {
    uint8_t *buf;
    size_t len, cap;
    cs_chunk *ch;
    size_t nch, capch;
    /* per direction sender state for FPDU building */
    uint64_t dir_off[2];
    uint64_t mode_off[2];
    int markers[2];
    int in_fpdu[2];
    uint32_t isn[2];
    uint16_t emss[2];
    /* Mid-stream: the capture starts at chunk `start_chunk` (the engine
     * is configured with midstream = 1 and the stated settings below;
     * chunks before it are not fed, and offsets start there). */
    int midstream;
    size_t start_chunk;
    uint8_t ms_markers[2], ms_crc[2]; /* mpa_tri */
    /* A sender that writes its markers its own way (cs_quirk_markers):
     * qk_cpos is its marker count, from the start of FPDU mode. */
    uint8_t qk_on[2], qk_le[2], qk_nocrc[2];
    uint32_t qk_off[2], qk_cpos[2];
} cs_scen;

/* An empty scenario (ISNs 0, EMSS unknown: set them after if needed). */
void cs_init(cs_scen *s);

/* Releases s's buffers and empties it. */
void cs_free(cs_scen *s);

/* Room for n more octets at the end of s->buf; the pointer is valid
 * until the next call that adds octets.  s->len is not changed. */
uint8_t *cs_reserve(cs_scen *s, size_t n);

/* Appends a chunk as it is (kind CS_*, octets [off, off+len) of s->buf). */
void cs_push_chunk(cs_scen *s, int kind, int dir, size_t off, size_t len);

/* Raw octets as one segment of dir. */
void cs_raw(cs_scen *s, int dir, const void *p, size_t n);

/* The last data chunk becomes a hole: sent, but lost by the capture. */
void cs_lose_last(cs_scen *s);

/* dir closes: FIN, or RST when rst. */
void cs_end(cs_scen *s, int dir, int rst);

/* Merge the last k chunks of one direction into one segment (they must
 * be adjacent in the buffer and in the chunk list). */
void cs_merge_last(cs_scen *s, size_t k);

/* ---- startup frames (RFC 5044 7.1, RFC 6581) ------------------------ */

/* A correct Request / Reply (Rev 1) with the given M and C bits. */
mpa_frame_enc cs_req(int m, int c);
mpa_frame_enc cs_rep(int m, int c);

/* f as an RFC 6581 enhanced frame (Rev 2, S=1): the A, B, C, D bits and
 * IRD/ORD. */
mpa_frame_enc cs_enh(mpa_frame_enc f, int a, int b, int c, int d, unsigned ird, unsigned ord);

/* A draft-03 Start Key (draft-culley-iwarp-mpa-03 7.1) with M and C. */
mpa_frame_enc cs_startkey(int m, int c);

/* A startup frame as one segment of dir. */
void cs_frame(cs_scen *s, int dir, const mpa_frame_enc *f);

/* ---- FPDUs (RFC 5044 4) --------------------------------------------- */

/* From here on dir sends FPDUs (markers as given); the marker phase
 * starts at the current octet of dir. */
void cs_fpdu_mode(cs_scen *s, int dir, int markers);

/* ULPDU as an FPDU of dir (CRC on, faults fl or none), its own segment;
 * returns its wire length. */
size_t cs_fpdu_f(cs_scen *s, int dir, const uint8_t *ulpdu, size_t n, const mpa_fpdu_faults *fl);
size_t cs_fpdu(cs_scen *s, int dir, const uint8_t *ulpdu, size_t n);

/* From here on (call it right after cs_fpdu_mode()) dir writes its
 * markers as one real stack does (docs/quirks.md): FPDUPTR
 * little-endian (le), a marker count that leaves out each FPDU's 4 CRC
 * octets (nocrc: the grid drifts +4 per FPDU), the grid shifted by off
 * octets.  Its CRC32C covers the FPDU as sent, markers included (RFC
 * 5044 4.3).  cs_fpdu_f() then builds dir's FPDUs this way (no faults). */
void cs_quirk_markers(cs_scen *s, int dir, int le, int nocrc, unsigned off);

/* ---- common steps of a scenario ------------------------------------- */

/* A plain, correct startup from direction 0 with M=req_m in the Request
 * and M=rep_m in the Reply, C=1; both directions then send FPDUs
 * (RFC 5044 7.1.1: M in the Request binds the Responder's markers). */
void cs_start_plain(cs_scen *s, int req_m, int rep_m);

/* An enhanced startup with the frames given (Request q from 0, Reply p
 * from 1), then FPDUs with the markers they ask for. */
void cs_start_enh(cs_scen *s, mpa_frame_enc q, mpa_frame_enc p);

/* An FPDU carrying a Send of payload octets (MSN msn) from dir. */
void cs_send(cs_scen *s, int dir, unsigned msn, size_t payload);

/* An FPDU carrying an RDMA Write of payload octets (STag 0x77, TO
 * 0x1000) from dir. */
void cs_write(cs_scen *s, int dir, size_t payload);

/* FIN from direction 0, then from direction 1. */
void cs_close_both(cs_scen *s);

/* ---- ULPDUs: DDP (RFC 5041) + RDMAP (RFC 5040) headers ---------------- */

/* d's headers then payload octets of a fixed pattern into out (cap
 * octets); returns the ULPDU length. */
size_t cs_ul_build(mpa_ddp *d, size_t payload, uint8_t *out, size_t cap);

/* A last, DV=1 RV=1 untagged (QN, MSN) or tagged (STag, TO) header. */
mpa_ddp cs_ul_untagged(unsigned opcode, unsigned qn, unsigned msn);
mpa_ddp cs_ul_tagged(unsigned opcode, uint32_t stag, uint64_t to);

/* Whole ULPDUs into out: a Send (QN 0), an RDMA Write, a Read Request
 * (QN 1, fixed STags and TOs), a TERMINATE (QN 2) with the layer, type
 * and code given.  Each returns the ULPDU length. */
size_t cs_ul_send(uint8_t *out, size_t cap, unsigned msn, size_t payload);
size_t cs_ul_write(uint8_t *out, size_t cap, uint32_t stag, uint64_t to, size_t payload);
size_t cs_ul_read_req(uint8_t *out, size_t cap, unsigned msn, uint32_t size);
size_t cs_ul_term(uint8_t *out, size_t cap, unsigned layer, unsigned etype, unsigned code);

/* ---- feeding a scenario to the stream engine -------------------------- */

/* The event log: one line per event in mpa_event_format()'s words, and
 * the findings counted by id. */
typedef struct cs_log {
    char *s;
    size_t n, cap;
    unsigned nfind;
    unsigned count[MPA_F__COUNT];
    unsigned fpdus[2]; /* FPDU events per direction */
} cs_log;

/* How each chunk is cut into mpa_stream_feed() calls. */
typedef struct cs_split {
    int mode;     /* 0 whole, 1 every octet, 2 cut at `at`, 3 random */
    size_t at;    /* for mode 2: absolute offset into cs_scen.buf */
    uint64_t rng; /* for mode 3: the seed (not zero) */
} cs_split;

/* An mpa_event_cb that appends to the cs_log at user. */
void cs_log_event(void *user, const mpa_event *ev);

/* Releases l's text and empties it. */
void cs_log_free(cs_log *l);

/*
 * Feeds scenario s to a fresh stream engine (its ISNs, EMSS and
 * mid-stream settings), each chunk cut as sp says, holes as
 * mpa_stream_gap(), FIN/RST as mpa_stream_end(); octets the engine does
 * not take yet wait for the other direction.  A line "dN HELD ..." ends
 * the log if octets were never taken.  The split never changes the log:
 * that is what the tests check.  Returns the log (the caller frees it
 * with cs_log_free()).
 */
cs_log cs_run(const cs_scen *s, cs_split sp);

/* cs_run with mpa_stream_quiet_markers(quiet); the log then ends with a
 * line per direction giving mpa_dir_stats.markers. */
cs_log cs_run_quiet(const cs_scen *s, cs_split sp, int quiet);

/* ---- small utilities ---------------------------------------------------- */

/* xorshift64: the next pseudo-random number of the state at x (not 0). */
uint64_t cs_rng(uint64_t *x);

/* buf (an array of *cap elements of elem octets, or NULL) made to hold
 * at least need elements: the capacity doubles from first (or from
 * *cap) until it does.  Returns the array, reallocated or not, and sets
 * *cap. */
void *cs_grow(void *buf, size_t *cap, size_t need, size_t first, size_t elem);

/* ---- the catalogue ---------------------------------------------------- */

typedef struct cs_case {
    const char *slug;   /* short and file-name safe: "key-req", "crc-bad" */
    const char *name;   /* what it shows, with the clause */
    void (*build)(cs_scen *);
    const char *expect; /* space-separated ids that must fire; nothing else may */
} cs_case;

/* Every named scenario, in a fixed order. */
extern const cs_case cs_cases[];
extern const size_t cs_ncases;

/* The case named slug, or NULL. */
const cs_case *cs_case_find(const char *slug);

/* Ground truth, where a case states it: the FPDUs of each direction
 * entirely present in the capture (each must be decoded).  Returns 1
 * and fills n[2], or 0 when the case does not say. */
int cs_case_fpdus(const char *slug, unsigned n[2]);

/* Builds the case named slug into s (cs_init()ed by the caller).
 * Returns 0, or -1 (s untouched) when there is no such case. */
int cs_case_build(const char *slug, cs_scen *s);

#endif

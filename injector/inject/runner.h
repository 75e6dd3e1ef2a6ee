/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The runner's insides, shared by the files that make it up (run.h is
 * its interface; nothing outside these files includes this header):
 *
 *   run.c      the run: the loop over the steps, the actions (open,
 *              send, sleep, close, abort)
 *   observe.c  what the device sends: libmpa's stream engine fed both
 *              directions in causal order, its events made observations
 *              in a queue; the wait for the device (rn_pump)
 *   build.c    the startup frames and FPDUs we send, from the script
 *   match.c    expect steps: observations against the alternatives
 *   text.c     frames, FPDUs, observations and constraints in the
 *              script's own syntax, for the step lines and the reports
 *   vars.c     the script's variables
 *
 * run.c calls the others; match.c and build.c call observe.c, text.c
 * and vars.c; none calls back up.
 *
 * rn_ is the prefix of what these files share with each other.
 */
#ifndef MPA_INJECT_RUNNER_H
#define MPA_INJECT_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "mpa/feed.h"
#include "mpa/stream.h"
#include "run.h"

/* ---- observations ------------------------------------------------------ */

typedef enum ob_kind { OB_FRAME = 1, OB_FPDU, OB_FIN, OB_RST, OB_DATA } ob_kind;

typedef struct obs {
    uint8_t kind;
    uint8_t has[F__COUNT];
    int64_t f[F__COUNT];
    uint64_t off, end;       /* the stream octets [off, end) it stands for */
    double t_ms;
    uint8_t pd[MPA_PD_MAX];  /* frame: private data after the enhanced field */
    size_t pd_len;
    uint8_t pl[SC_PAYLOAD_MAX]; /* FPDU: the first octets of its payload */
    size_t pl_len;           /* how many of them the engine showed */
    uint64_t data_len;       /* OB_DATA */
    char why[64];
} obs;

#define OBQ_MAX 512

typedef struct pbuf {
    uint8_t *p;
    size_t len, cap;
} pbuf;

#define PEND_MAX (16u << 20)

typedef struct runner {
    const scenario *s;
    const run_opts *o;
    run_result *r;
    tp *t;
    inj_trace *trace;
    int open, fin_sent, reset_sent, dev_fin, dev_rst;
    double t0;
    mpa_stream *eng;
    mpa_feeder *feed;     /* holds what the engine has not taken yet */
    int pend_overflow;    /* more than PEND_MAX held: no more is fed */
    uint64_t fed_off[2];  /* octets given to the feeder (stream offsets) */
    /* the observation queue (ring) */
    obs *q;
    unsigned qhead, qlen;
    unsigned qdropped;
    /* what the engine told about our direction */
    int mode_fpdu[2], markers[2], crc[2];
    uint64_t mode_off[2];
    uint64_t frame_end_out;   /* stream offset after our last startup frame */
    int our_c, dev_m, dev_c, have_dev_frame;
    uint32_t msn[4];          /* next MSN per QN */
    uint64_t out_off;         /* our stream offset (octets sent) */
    pbuf held;                /* octets of a send step with "hold", not sent yet */
    uint8_t rxbuf[65536];
} runner;

/* Bounded text building: what does not fit is cut. */
typedef struct sbuf {
    char *p;
    size_t n, len;
} sbuf;

/* ---- observe.c ---------------------------------------------------------- */

/* CLOCK_MONOTONIC in ms; since the run began. */
double rn_now_ms(void);
double rn_rel(const runner *R);

/* The oldest observation not yet looked at (NULL: none); drop it. */
obs *rn_q_front(runner *R);
void rn_q_pop(runner *R);

/* The stream engine's event callback (user is the runner). */
void rn_on_event(void *user, const mpa_event *ev);

/* Append to an octet buffer (0, or -1 out of memory). */
int rn_pbuf_add(pbuf *b, const uint8_t *p, size_t n);

/* Feeding the engine through the runner's feeder: n octets of direction
 * dir (TP_OUT: ours, TP_IN: the device's); the end of dir. */
void rn_feed(runner *R, int dir, const uint8_t *p, size_t n);
void rn_end(runner *R, int dir, mpa_end_kind kind);

/* Receive until deadline (absolute, ms of tp_now_ms) or, with
 * stop_on_event, until something was queued.  -1 on a transport error
 * (err set), else 0. */
int rn_pump(runner *R, int64_t deadline, int stop_on_event, char *err, size_t errlen);

/* ---- text.c --------------------------------------------------------------- */

void rn_sb(sbuf *b, const char *fmt, ...);
const char *rn_key_word(mpa_key_kind k);
const char *rn_opcode_word(unsigned op);   /* NULL: no name */
void rn_hex_or_text(sbuf *b, const uint8_t *p, size_t n);
void rn_field_str(sbuf *b, sc_field f, int64_t v);
void rn_obs_str(sbuf *b, const obs *o);
void rn_alt_str(sbuf *b, const sc_alt *a);

/* ---- vars.c --------------------------------------------------------------- */

/* A variable's value: 0, or -1 when it has none. */
int rn_var_get(const runner *R, const char *name, int64_t *v);
void rn_var_set(runner *R, const char *name, int64_t v);

/* ---- build.c -------------------------------------------------------------- */

/* A startup frame / one FPDU at our stream offset off, appended to out
 * and described (in the script's syntax) in desc.  0, or -1 + err. */
int rn_build_frame(runner *R, const sc_frame *f, pbuf *out, char *desc, size_t dl, char *err, size_t errlen);
int rn_build_fpdu(runner *R, const sc_fpdu *f, uint64_t off, pbuf *out, char *desc, size_t dl, char *err,
                  size_t errlen);

/* ---- match.c -------------------------------------------------------------- */

run_verdict rn_step_expect(runner *R, const sc_step *st, run_step *rs);

#endif

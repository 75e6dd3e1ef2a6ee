/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-inject scenarios: the JSON script format (docs/mpa-inject-scenarios.md)
 * parsed into plain structs, checked completely before anything is sent.
 *
 * A scenario is a list of steps; each step has exactly one verb:
 *   open     TCP connect to the device (it is the MPA Responder) or
 *            listen for it (it is the Initiator)
 *   send     a startup frame, an FPDU or raw octets, with segmentation
 *   expect   what the device must do next, by a deadline
 *   sleep, close (FIN), abort (RST)
 *
 * Numbers in send steps may be variables ("$name") captured from what
 * the device sent; constraints in expect steps may compare with them.
 * Every error names the file and the JSON path of the offending value
 * ("bad.json: $.steps[3].send.frame.rev: 300 is not in 0..255").
 */
#ifndef MPA_INJECT_SCEN_H
#define MPA_INJECT_SCEN_H

#include <stddef.h>
#include <stdint.h>

#include "mpa/ddp.h"
#include "mpa/frame.h"

#define SC_VAR_LEN 32
#define SC_MAX_VARS 64
#define SC_SET_MAX 16
#define SC_MAX_ALT 8
#define SC_MAX_CONS 24
#define SC_MAX_CAPT 8
#define SC_PAYLOAD_MAX 64 /* octets an FPDU expectation compares */
#define SC_MAX_SPLIT 64
#define SC_MAX_REQ 8
#define SC_MAX_NEEDS 6
#define SC_MAX_QUIRKS 4
#define SC_MAX_ERRORS 20 /* errors said per script; the rest are counted */
#define SC_ID_LEN 40

/* A number to send: a literal, a variable, or absent (the default). */
typedef struct sc_val {
    uint8_t set;        /* 0: absent */
    uint8_t is_var;
    int64_t v;
    char var[SC_VAR_LEN];
} sc_val;

/* A constraint on an observed number. */
typedef enum sc_cons_kind {
    SC_C_EQ = 1,   /* == a (or == $var) */
    SC_C_RANGE,    /* a <= x <= b */
    SC_C_SET,      /* x in set */
    SC_C_NOT,      /* x != a */
} sc_cons_kind;

typedef struct sc_cons {
    uint8_t kind;       /* sc_cons_kind */
    uint8_t field;      /* sc_field */
    uint8_t is_var;
    char var[SC_VAR_LEN];
    int64_t a, b;
    int64_t set[SC_SET_MAX];
    uint8_t nset;
} sc_cons;

/* Fields an expectation can constrain or capture. */
typedef enum sc_field {
    F_NONE = 0,
    /* startup frames */
    F_KEY,          /* mpa_key_kind */
    F_M, F_C, F_R, F_S, F_RES, F_REV, F_PD_LENGTH,
    F_ENHANCED,     /* 1 when the frame carries the RFC 6581 field */
    F_A, F_B, F_ENH_C, F_ENH_D, F_IRD, F_ORD,
    F_PD_USER_LEN,  /* private data after the enhanced field */
    /* FPDUs */
    F_ULPDU_LENGTH, F_CRC,     /* mpa_crc_status: 1 good, 2 bad, 0 not checked */
    F_MARKERS,      /* markers in the FPDU */
    F_TAGGED, F_LAST, F_DV, F_RV, F_OPCODE, F_STAG, F_TO, F_QN, F_MSN, F_MO,
    F_PAYLOAD_LEN, F_RTR,       /* mpa_rtr_kind */
    F_READ_SIZE,
    F_ARESP_REQ_ID, F_ARESP_VALUE, /* Atomic Response: Original Request Identifier, Original Value */
    F_LAYER, F_ETYPE, F_CODE,   /* TERMINATE (from F_LAYER on: TERMINATE only) */
    F_TERM_M, F_TERM_D, F_TERM_R, F_TERM_SEGLEN, /* its header control bits, DDP Segment Length */
    F_TERM_STAG, F_TERM_QN, F_TERM_MSN, F_TERM_MO, /* the DDP header it copies */
    F__COUNT
} sc_field;

/* The name of a field in scripts ("ird"), and whether it belongs to a
 * frame (1), an FPDU (2). */
const char *sc_field_name(sc_field f);
int sc_field_scope(sc_field f);

/* Octets given in a script: text, hex, or a length and a fill octet. */
typedef struct sc_bytes {
    uint8_t *p;         /* owned (malloc) */
    size_t len;
} sc_bytes;

typedef struct sc_frame {
    mpa_key_kind kind;
    uint8_t raw_key_set;
    uint8_t raw_key[MPA_KEY_LEN];
    sc_val m, c, r, s, res, rev, pd_length;
    uint8_t enh_present;
    sc_val a, b, ec, ed, ird, ord;
    sc_bytes pd;
} sc_frame;

typedef enum sc_tri { SC_AUTO = 0, SC_OFF = 1, SC_ON = 2 } sc_tri;

typedef struct sc_fpdu {
    /* the ULPDU: given raw, or built from the DDP/RDMAP fields */
    uint8_t ulpdu_raw;
    sc_bytes ulpdu;
    sc_val opcode;      /* RDMAP opcode */
    mpa_rtr_kind rtr;   /* shorthand: a zero-length RTR message */
    sc_val tagged, last, dv, rv, ddp_rsvd, rdmap_rsvd;
    sc_val stag, to, inv_stag, qn, msn, mo;
    sc_val sink_stag, sink_to, size, src_stag, src_to; /* Read Request */
    sc_val layer, etype, code, tm, td, tr, seglen;     /* Terminate */
    uint8_t term_copy;  /* a copied DDP header given */
    sc_val ct_tagged, ct_last, ct_opcode, ct_stag, ct_to, ct_qn, ct_msn, ct_mo;
    sc_val imm;         /* Immediate Data */
    /* Atomic Request (RFC 7306 5.2.1); a 64-bit field given as -1 is all ones */
    sc_val at_aop, at_req_id, at_stag, at_to, at_asd, at_asm, at_cd, at_cm;
    sc_val ar_req_id, ar_value; /* Atomic Response (RFC 7306 5.2.2) */
    sc_bytes payload;
    /* framing */
    uint8_t markers, crc; /* sc_tri: auto = as negotiated */
    sc_val crc_value, crc_xor, marker_ptr_delta, marker_nth, marker_reserved, pad_byte, ulpdu_length;
} sc_fpdu;

typedef enum sc_send_kind { SS_FRAME = 1, SS_FPDU, SS_RAW } sc_send_kind;

typedef struct sc_send {
    uint8_t kind;       /* sc_send_kind */
    sc_frame frame;
    sc_fpdu fpdu;
    sc_bytes raw;
    uint32_t count;     /* send the FPDU this many times (default 1) */
    /* segmentation */
    uint32_t split[SC_MAX_SPLIT]; /* cut at these offsets of the octets */
    uint8_t nsplit;
    uint32_t chunk;     /* cut every chunk octets (bytewise: 1) */
    uint32_t delay_ms;  /* between segments */
    uint8_t reorder, duplicate; /* raw transport only */
    uint32_t reseg;
    uint8_t hold;       /* the octets go out with the next send step's */
} sc_send;

typedef enum sc_exp_kind {
    SE_FRAME = 1, SE_FPDU, SE_TERMINATE, SE_FIN, SE_RST, SE_CLOSE, SE_SILENCE,
} sc_exp_kind;

typedef struct sc_capture {
    char var[SC_VAR_LEN];
    uint8_t field;      /* sc_field */
} sc_capture;

typedef struct sc_alt {
    uint8_t kind;       /* sc_exp_kind */
    sc_cons cons[SC_MAX_CONS];
    uint8_t ncons;
    sc_capture capt[SC_MAX_CAPT];
    uint8_t ncapt;
    sc_bytes pd;        /* frame: expected private data (user part) */
    uint8_t pd_set;
    sc_bytes payload;   /* fpdu: expected payload octets, exactly */
    uint8_t payload_set;
    char path[96];      /* JSON path, for messages */
} sc_alt;

typedef struct sc_expect {
    sc_alt alt[SC_MAX_ALT]; /* one, or the any_of alternatives */
    uint8_t nalt;
    uint8_t any_of;
    uint32_t within_ms;     /* deadline; for silence: its length */
    uint8_t skip_fpdus;     /* FPDUs that do not match are passed over */
} sc_expect;

typedef enum sc_verb {
    SV_OPEN = 1, SV_SEND, SV_EXPECT, SV_SLEEP, SV_CLOSE, SV_ABORT,
} sc_verb;

typedef struct sc_step {
    uint8_t verb;       /* sc_verb */
    uint8_t open_listen; /* open: 1 listen, 0 connect */
    sc_send send;
    sc_expect expect;
    uint32_t ms;        /* sleep */
    char note[160];
    char req[SC_MAX_REQ][SC_ID_LEN]; /* requirement ids */
    uint8_t nreq;
    char path[48];      /* "$.steps[3]" */
} sc_step;

typedef struct sc_var_init {
    char name[SC_VAR_LEN];
    int64_t v;
} sc_var_init;

typedef struct scenario {
    char file[256];
    char name[64];
    char description[512];
    uint8_t device_initiator; /* the device is the MPA Initiator (we listen) */
    uint32_t timeout_ms;      /* default deadline of expect steps */
    uint8_t fail_on_findings; /* an error-level libmpa finding about the device fails the run (default true) */
    /* findings the scenario provokes on purpose: in the device's octets
     * they are reported as expected and fail nothing */
    char expected_findings[SC_MAX_REQ][SC_ID_LEN];
    uint8_t nexpected;
    char req[SC_MAX_REQ][SC_ID_LEN];
    uint8_t nreq;
    sc_var_init vars[SC_MAX_VARS];
    unsigned nvars;
    /* "test": what makes the scenario a conformance test (mpa-conform) */
    uint8_t is_test;
    char test_id[64];         /* "startup.key.request-octet-0" */
    uint8_t mandatory;        /* class "M" (1) or "FYI" (0) */
    char needs[SC_MAX_NEEDS][16]; /* device capabilities the test needs (sc_need_words) */
    uint8_t nneeds;
    char setup[512], problems[512];
    struct {
        char id[48];
        char text[400];
    } quirks[SC_MAX_QUIRKS];
    uint8_t nquirks;
    uint8_t needs_raw;        /* uses raw-only delivery tricks */
    char raw_path[192];       /* the first of them: "$.steps[4].send.reorder" */
    sc_step *steps;
    unsigned nsteps;
} scenario;

/* Parse text (the contents of file) into *out.  Returns 0, or -1 with
 * every error found in err, one line each, "file:line:column: $.path:
 * what" ("file: --set: what" where there is no place in the text): the
 * first error of each step and top-level key, at most SC_MAX_ERRORS,
 * then "file: N more errors not shown"; as many whole lines as errlen
 * holds (SC_MAX_ERRORS * 720 holds them all).  defines: variables from the
 * command line (name=value), n_defines of them.  On failure *out holds
 * nothing to free. */
int sc_parse(const char *file, const char *text, size_t len, const char *const *defines, unsigned n_defines,
             scenario *out, char *err, size_t errlen);

/* Read and parse a file ("-" for stdin). */
int sc_load(const char *file, const char *const *defines, unsigned n_defines, scenario *out, char *err,
            size_t errlen);

void sc_free(scenario *s);

/* The capabilities a test may need of the device ("needs"), NULL-ended:
 * enhanced (RFC 6581), p2p (RTRs: A=1), markers (it asks for markers,
 * M=1), reject (it is set to reject the connection). */
extern const char *const sc_need_words[];

/* 1 when id is a requirement id of the catalogue (libmpa's rule table,
 * from which docs/requirements.md is made). */
int sc_known_req(const char *id);

#endif

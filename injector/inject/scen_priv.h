/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scenario parser's insides, shared by the files that make it up
 * (scen.h is its interface; nothing outside these files includes this
 * header):
 *
 *   scen.c         the scenario model's vocabulary: the fields a script
 *                  can name, their ranges and value names; freeing
 *   scen_json.c    reading JSON values at a path: types, ranges,
 *                  variables, octets; the first error is the one kept
 *   scen_send.c    send steps: startup frames, FPDUs, raw octets,
 *                  segmentation and delivery
 *   scen_expect.c  expect steps: alternatives, constraints, captures
 *   scen_parse.c   the document: its top-level keys, the "test" block,
 *                  the steps; sc_parse and sc_load
 *
 * sp_ is the prefix of what these files share with each other.
 */
#ifndef MPA_INJECT_SCEN_PRIV_H
#define MPA_INJECT_SCEN_PRIV_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "scen.h"

/* ---- scen.c: the vocabulary ------------------------------------------------ */

typedef struct name_val {
    const char *name;
    int64_t v;
} name_val;

typedef struct field_info {
    const char *name;
    int scope;          /* 1 frame, 2 FPDU */
    int64_t min, max;
    const name_val *names;
} field_info;

#define U32 0xFFFFFFFFll

/* The row of field f (F_NONE's when f is out of range); never NULL. */
const field_info *sp_field(sc_field f);

/* The field called n in scope (1 frame, 2 FPDU), F_NONE when none is. */
sc_field sp_field_by_name(const char *n, int scope);

/* Free the octets of b (safe when empty). */
void sp_bytes_free(sc_bytes *b);

/* ---- scen_json.c: reading values ------------------------------------------- */

/* The longest octet string a script may give ({"len": N} included). */
#define SC_BYTES_MAX (1u << 20)

/* Where the parser is: the file and its text, the errors (one line each
 * in err), the scenario being filled, the variables defined so far. */
typedef struct pctx {
    const char *file;
    const char *text;   /* for the line and column of a path */
    size_t len;
    char *err;
    size_t errlen;
    int bad;            /* the part being read (a step, a key) has an error: its first is said */
    unsigned nerr;      /* errors in all */
    unsigned shown;     /* of those, in err */
    int lost_vars;      /* a step with an error may have defined variables */
    scenario *s;
    /* variables defined so far (in script order) */
    char vars[SC_MAX_VARS][SC_VAR_LEN]; /* every name: vars, --set and captures (the runner keeps as many) */
    unsigned nvars;
} pctx;

/* Record "file:line:column: path: message" (the place of path in the
 * text; "file: path: message" when it has none) unless the part being
 * read has an error already; -1. */
int sp_fail(pctx *c, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The line and column (from 1) of JSON path ("$.steps[2].send.rev") in
 * text: of a member's key, of an element's value; of the deepest part of
 * the path that is there.  0, or -1 when path is not a JSON path. */
int sp_where(const char *text, size_t len, const char *path, unsigned *line, unsigned *col);

/* "a number", "a string", ...: what j is, for messages. */
const char *sp_jtype(const cJSON *j);

/* JSON paths: s appended at at (returns the new end), path.key and
 * path[i] into buf (cut short when they do not fit). */
size_t sp_sapp(char *d, size_t n, size_t at, const char *s);
const char *sp_sub(char *buf, size_t n, const char *path, const char *key);
const char *sp_idx(char *buf, size_t n, const char *path, int i);

/* obj is an object whose keys are all in allowed (NULL-terminated),
 * each once.  0 or -1. */
int sp_only_keys(pctx *c, const cJSON *obj, const char *path, const char *const *allowed);

/* Variables: a name that may be one; define it for the steps after. */
int sp_valid_var_name(const char *n);
int sp_define_var(pctx *c, const char *path, const char *name);

/* A whole number, decimal or 0x hex, no sign: 0 and *v, or -1. */
int sp_str_num(const char *str, int64_t *v);

/* A number in [min, max] (a JSON number, a boolean or a numeric
 * string); a value to send, which may also be "$var" or one of names;
 * the same for obj's member key, when it is there.  0 or -1. */
int sp_get_int(pctx *c, const cJSON *j, const char *path, int64_t min, int64_t max, int64_t *out);
int sp_get_val(pctx *c, const cJSON *j, const char *path, int64_t min, int64_t max, const name_val *names,
               sc_val *out);
int sp_field_val(pctx *c, const cJSON *obj, const char *path, const char *key, int64_t min, int64_t max,
                 const name_val *names, sc_val *out);
int sp_field_u64(pctx *c, const cJSON *obj, const char *path, const char *key, sc_val *out);

/* Octets: "text", {"text"}, {"hex"}, {"len", "fill"} (out owns them). */
int sp_get_bytes(pctx *c, const cJSON *j, const char *path, sc_bytes *out);

/* A string of fewer than n characters, copied to out. */
int sp_get_text(pctx *c, const cJSON *j, const char *path, char *out, size_t n);

/* ---- scen_send.c, scen_expect.c: the steps' bodies ------------------------- */

int sp_parse_send(pctx *c, const cJSON *j, const char *path, sc_send *s);
int sp_parse_expect(pctx *c, const cJSON *j, const char *path, sc_expect *e, uint32_t def_ms);

#endif

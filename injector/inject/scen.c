/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scenario model (see scen.h): the vocabulary a script uses (the
 * fields an expectation can constrain or capture, their ranges, the
 * names their values may be given by), the requirement ids it may cite,
 * and freeing a parsed scenario.  Parsing is in scen_parse.c and the
 * files it names (scen_priv.h).
 */
#include "scen.h"

#include <stdlib.h>
#include <string.h>

#include "mpa/findings.h"
#include "scen_priv.h"

/* ---- fields --------------------------------------------------------- */

static const name_val key_names[] = {
    {"request", MPA_KEY_REQ},   {"reply", MPA_KEY_REP},         {"rtr2007", MPA_KEY_RTR2007},
    {"startkey", MPA_KEY_STARTKEY}, {"unknown", MPA_KEY_UNKNOWN}, {NULL, 0},
};

static const name_val opcode_names[] = {
    {"write", MPA_RDMAP_RDMA_WRITE},
    {"read_request", MPA_RDMAP_READ_REQUEST},
    {"read_response", MPA_RDMAP_READ_RESPONSE},
    {"send", MPA_RDMAP_SEND},
    {"send_inv", MPA_RDMAP_SEND_INVALIDATE},
    {"send_se", MPA_RDMAP_SEND_SE},
    {"send_se_inv", MPA_RDMAP_SEND_SE_INVALIDATE},
    {"terminate", MPA_RDMAP_TERMINATE},
    {"immediate", MPA_RDMAP_IMMEDIATE},
    {"immediate_se", MPA_RDMAP_IMMEDIATE_SE},
    {"atomic_request", MPA_RDMAP_ATOMIC_REQUEST},
    {"atomic_response", MPA_RDMAP_ATOMIC_RESPONSE},
    {NULL, 0},
};

static const name_val rtr_names[] = {
    {"none", MPA_RTR_NONE}, {"send", MPA_RTR_SEND}, {"write", MPA_RTR_WRITE}, {"read", MPA_RTR_READ}, {NULL, 0},
};

static const name_val crc_names[] = {
    {"not_checked", 0}, {"good", 1}, {"bad", 2}, {NULL, 0},
};

static const field_info fields[F__COUNT] = {
    [F_NONE] = {"", 0, 0, 0, NULL},
    [F_KEY] = {"key", 1, 0, 4, key_names},
    [F_M] = {"m", 1, 0, 1, NULL},
    [F_C] = {"c", 1, 0, 1, NULL},
    [F_R] = {"r", 1, 0, 1, NULL},
    [F_S] = {"s", 1, 0, 1, NULL},
    [F_RES] = {"res", 1, 0, 15, NULL},
    [F_REV] = {"rev", 1, 0, 255, NULL},
    [F_PD_LENGTH] = {"pd_length", 1, 0, 65535, NULL},
    [F_ENHANCED] = {"enhanced", 1, 0, 1, NULL},
    [F_A] = {"a", 1, 0, 1, NULL},
    [F_B] = {"b", 1, 0, 1, NULL},
    [F_ENH_C] = {"enh_c", 1, 0, 1, NULL},
    [F_ENH_D] = {"enh_d", 1, 0, 1, NULL},
    [F_IRD] = {"ird", 1, 0, 0x3FFF, NULL},
    [F_ORD] = {"ord", 1, 0, 0x3FFF, NULL},
    [F_PD_USER_LEN] = {"pd_user_length", 1, 0, 65535, NULL},
    [F_ULPDU_LENGTH] = {"ulpdu_length", 2, 0, 65535, NULL},
    [F_CRC] = {"crc", 2, 0, 2, crc_names},
    [F_MARKERS] = {"markers", 2, 0, 255, NULL},
    [F_TAGGED] = {"tagged", 2, 0, 1, NULL},
    [F_LAST] = {"last", 2, 0, 1, NULL},
    [F_DV] = {"dv", 2, 0, 3, NULL},
    [F_RV] = {"rv", 2, 0, 3, NULL},
    [F_OPCODE] = {"rdmap", 2, 0, 15, opcode_names},
    [F_STAG] = {"stag", 2, 0, U32, NULL},
    [F_TO] = {"to", 2, 0, INT64_MAX, NULL},
    [F_QN] = {"qn", 2, 0, U32, NULL},
    [F_MSN] = {"msn", 2, 0, U32, NULL},
    [F_MO] = {"mo", 2, 0, U32, NULL},
    [F_PAYLOAD_LEN] = {"payload_length", 2, 0, 65535, NULL},
    [F_RTR] = {"rtr", 2, 0, 3, rtr_names},
    [F_READ_SIZE] = {"read_size", 2, 0, U32, NULL},
    [F_ARESP_REQ_ID] = {"orig_req_id", 2, 0, U32, NULL},
    [F_ARESP_VALUE] = {"orig_value", 2, 0, INT64_MAX, NULL},
    [F_LAYER] = {"layer", 2, 0, 15, NULL},
    [F_ETYPE] = {"etype", 2, 0, 15, NULL},
    [F_CODE] = {"code", 2, 0, 255, NULL},
    [F_TERM_M] = {"term_m", 2, 0, 1, NULL},
    [F_TERM_D] = {"term_d", 2, 0, 1, NULL},
    [F_TERM_R] = {"term_r", 2, 0, 1, NULL},
    [F_TERM_SEGLEN] = {"term_seglen", 2, 0, 65535, NULL},
    [F_TERM_STAG] = {"term_stag", 2, 0, U32, NULL},
    [F_TERM_QN] = {"term_qn", 2, 0, U32, NULL},
    [F_TERM_MSN] = {"term_msn", 2, 0, U32, NULL},
    [F_TERM_MO] = {"term_mo", 2, 0, U32, NULL},
};

const char *sc_field_name(sc_field f)
{
    return f < F__COUNT ? fields[f].name : "?";
}

int sc_field_scope(sc_field f)
{
    return f < F__COUNT ? fields[f].scope : 0;
}

sc_field sp_field_by_name(const char *n, int scope)
{
    for (int f = 1; f < F__COUNT; f++)
        if (fields[f].scope == scope && !strcmp(fields[f].name, n))
            return (sc_field)f;
    /* "opcode" is the numeric spelling of "rdmap" */
    if (scope == 2 && !strcmp(n, "opcode"))
        return F_OPCODE;
    return F_NONE;
}

const field_info *sp_field(sc_field f)
{
    return &fields[f < F__COUNT ? f : F_NONE];
}

int sc_known_req(const char *id)
{
    return mpa_rule_find(id) != MPA_F__COUNT;
}

const char *const sc_need_words[] = {"enhanced", "p2p", "markers", "reject", "client-server", "buffers", "atomics", "immediate", NULL};

/* ---- freeing ---------------------------------------------------------- */

void sp_bytes_free(sc_bytes *b)
{
    free(b->p);
    b->p = NULL;
    b->len = 0;
}

static void free_step(sc_step *st)
{
    sp_bytes_free(&st->send.frame.pd);
    sp_bytes_free(&st->send.fpdu.ulpdu);
    sp_bytes_free(&st->send.fpdu.payload);
    sp_bytes_free(&st->send.raw);
    for (unsigned a = 0; a < SC_MAX_ALT; a++) {
        sp_bytes_free(&st->expect.alt[a].pd);
        sp_bytes_free(&st->expect.alt[a].payload);
    }
}

void sc_free(scenario *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < s->nsteps; i++)
        free_step(&s->steps[i]);
    free(s->steps);
    s->steps = NULL;
    s->nsteps = 0;
}

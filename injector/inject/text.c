/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The runner's text (see runner.h): what was sent, what arrived and what
 * was expected, written in the script's own syntax ("frame {"key":
 * "reply","m":0,...}"), so that a mismatch reads "expected ... got ..."
 * in the terms the script author used.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "runner.h"

void rn_sb(sbuf *b, const char *fmt, ...)
{
    if (b->len >= b->n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->p + b->len, b->n - b->len, fmt, ap);
    va_end(ap);
    if (k > 0)
        b->len += (size_t)k < b->n - b->len ? (size_t)k : b->n - b->len - 1;
}

const char *rn_key_word(mpa_key_kind k)
{
    switch (k) {
    case MPA_KEY_REQ: return "request";
    case MPA_KEY_REP: return "reply";
    case MPA_KEY_RTR2007: return "rtr2007";
    case MPA_KEY_STARTKEY: return "startkey";
    case MPA_KEY_UNKNOWN: return "unknown";
    }
    return "unknown";
}

const char *rn_opcode_word(unsigned op)
{
    static const char *const w[16] = {"write", "read_request", "read_response", "send", "send_inv", "send_se",
                                      "send_se_inv", "terminate", "immediate", "immediate_se", "atomic_request",
                                      "atomic_response", NULL, NULL, NULL, NULL};
    return op < 16 ? w[op] : NULL;
}

void rn_hex_or_text(sbuf *b, const uint8_t *p, size_t n)
{
    int text = 1;
    for (size_t i = 0; i < n; i++)
        if (p[i] < 0x20 || p[i] > 0x7E || p[i] == '"' || p[i] == '\\')
            text = 0;
    if (text) {
        rn_sb(b, "\"%.*s\"", (int)(n > 64 ? 64 : n), (const char *)p);
        if (n > 64)
            rn_sb(b, "...");
        return;
    }
    rn_sb(b, "{\"hex\":\"");
    for (size_t i = 0; i < n && i < 32; i++)
        rn_sb(b, "%02x", p[i]);
    rn_sb(b, "%s\"}", n > 32 ? "..." : "");
}

static const char *const kind_word[] = {"", "frame", "fpdu", "terminate", "fin", "rst", "close", "silence"};

void rn_field_str(sbuf *b, sc_field f, int64_t v)
{
    if (f == F_KEY)
        rn_sb(b, "\"%s\"", rn_key_word((mpa_key_kind)v));
    else if (f == F_OPCODE && rn_opcode_word((unsigned)v))
        rn_sb(b, "\"%s\"", rn_opcode_word((unsigned)v));
    else if (f == F_RTR)
        rn_sb(b, "\"%s\"", mpa_rtr_str((mpa_rtr_kind)v));
    else if (f == F_CRC)
        rn_sb(b, "\"%s\"", v == 1 ? "good" : v == 2 ? "bad" : "not_checked");
    else
        rn_sb(b, "%" PRId64, v);
}

/* An observation in the script's syntax. */
void rn_obs_str(sbuf *b, const obs *o)
{
    switch ((ob_kind)o->kind) {
    case OB_FIN:
        rn_sb(b, "fin");
        return;
    case OB_RST:
        rn_sb(b, "rst");
        return;
    case OB_DATA:
        rn_sb(b, "octets that are not MPA {\"length\":%" PRIu64 ",\"why\":\"%s\"}", o->data_len, o->why);
        return;
    case OB_FRAME:
    case OB_FPDU: {
        int term = o->kind == OB_FPDU && o->has[F_LAYER];
        rn_sb(b, "%s {", o->kind == OB_FRAME ? "frame" : term ? "terminate" : "fpdu");
        int first = 1;
        int in_enh = 0;
        for (int f = 1; f < F__COUNT; f++) {
            if (!o->has[f])
                continue;
            if (f == F_ENHANCED)
                continue;
            const char *name = sc_field_name((sc_field)f);
            if (f >= F_A && f <= F_ORD && !in_enh) {
                rn_sb(b, "%s\"enhanced\":{", first ? "" : ",");
                in_enh = 1;
                first = 1;
            }
            if (in_enh && !(f >= F_A && f <= F_ORD)) {
                rn_sb(b, "}");
                in_enh = 0;
                first = 0;
            }
            if (in_enh)
                name = f == F_ENH_C ? "c" : f == F_ENH_D ? "d" : name;
            rn_sb(b, "%s\"%s\":", first ? "" : ",", name);
            rn_field_str(b, (sc_field)f, o->f[f]);
            first = 0;
        }
        if (in_enh)
            rn_sb(b, "}");
        if (o->kind == OB_FRAME && o->pd_len) {
            rn_sb(b, ",\"private_data\":");
            rn_hex_or_text(b, o->pd, o->pd_len);
        }
        rn_sb(b, "}");
        return;
    }
    }
}

static void cons_str(sbuf *b, const sc_cons *k)
{
    sc_field f = (sc_field)k->field;
    rn_sb(b, "\"%s\":", sc_field_name(f));
    switch ((sc_cons_kind)k->kind) {
    case SC_C_EQ:
        if (k->is_var)
            rn_sb(b, "\"$%s\"", k->var);
        else
            rn_field_str(b, f, k->a);
        break;
    case SC_C_NOT:
        rn_sb(b, "{\"not\":");
        if (k->is_var)
            rn_sb(b, "\"$%s\"", k->var);
        else
            rn_field_str(b, f, k->a);
        rn_sb(b, "}");
        break;
    case SC_C_RANGE:
        rn_sb(b, "{\"min\":%" PRId64 ",\"max\":%" PRId64 "}", k->a, k->b);
        break;
    case SC_C_SET:
        rn_sb(b, "[");
        for (unsigned i = 0; i < k->nset; i++) {
            if (i)
                rn_sb(b, ",");
            rn_field_str(b, f, k->set[i]);
        }
        rn_sb(b, "]");
        break;
    }
}

void rn_alt_str(sbuf *b, const sc_alt *a)
{
    rn_sb(b, "%s", kind_word[a->kind]);
    if (a->kind == SE_FRAME || a->kind == SE_FPDU || a->kind == SE_TERMINATE) {
        rn_sb(b, " {");
        for (unsigned i = 0; i < a->ncons; i++) {
            if (i)
                rn_sb(b, ",");
            cons_str(b, &a->cons[i]);
        }
        if (a->pd_set) {
            rn_sb(b, "%s\"private_data\":", a->ncons ? "," : "");
            rn_hex_or_text(b, a->pd.p, a->pd.len);
        }
        if (a->payload_set) {
            rn_sb(b, "%s\"payload\":", a->ncons || a->pd_set ? "," : "");
            rn_hex_or_text(b, a->payload.p, a->payload.len);
        }
        rn_sb(b, "}");
    }
}

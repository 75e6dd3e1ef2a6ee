/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Send steps (see scen_priv.h): a startup frame (RFC 5044 7.1.1, RFC
 * 6581 6), an FPDU (its DDP/RDMAP fields or a raw ULPDU, and its
 * framing, faults included) or raw octets, and how they are cut into
 * segments and delivered.
 */
#include <stdio.h>
#include <string.h>

#include "mpa/fpdu.h"
#include "scen_priv.h"

/* ---- send: frame ------------------------------------------------------ */

static int parse_key(pctx *c, const cJSON *j, const char *path, sc_frame *f)
{
    char p[160];
    if (cJSON_IsString(j)) {
        for (const name_val *nv = sp_field(F_KEY)->names; nv->name; nv++)
            if (nv->v != MPA_KEY_UNKNOWN && !strcmp(nv->name, j->valuestring)) {
                f->kind = (mpa_key_kind)nv->v;
                return 0;
            }
        return sp_fail(c, path,
                       "\"%s\" is not a key name (request, reply, rtr2007, startkey; or {\"hex\"}, {\"text\"}, "
                       "{\"base\", \"octet\", \"value\"})",
                       j->valuestring);
    }
    if (cJSON_IsObject(j) && cJSON_GetObjectItemCaseSensitive(j, "base")) {
        static const char *const keys[] = {"base", "octet", "value", NULL};
        if (sp_only_keys(c, j, path, keys))
            return -1;
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(j, "base");
        sc_frame tmp;
        memset(&tmp, 0, sizeof tmp);
        if (parse_key(c, b, sp_sub(p, sizeof p, path, "base"), &tmp))
            return -1;
        if (tmp.kind == MPA_KEY_STARTKEY)
            return sp_fail(c, sp_sub(p, sizeof p, path, "base"), "the Start Key cannot be a base (15 octets)");
        memcpy(f->raw_key, mpa_key_bytes(tmp.kind), MPA_KEY_LEN);
        int64_t o, v;
        const cJSON *oj = cJSON_GetObjectItemCaseSensitive(j, "octet");
        const cJSON *vj = cJSON_GetObjectItemCaseSensitive(j, "value");
        if (!oj || !vj)
            return sp_fail(c, path, "\"octet\" and \"value\" are both needed with \"base\"");
        if (sp_get_int(c, oj, sp_sub(p, sizeof p, path, "octet"), 0, MPA_KEY_LEN - 1, &o) ||
            sp_get_int(c, vj, sp_sub(p, sizeof p, path, "value"), 0, 255, &v))
            return -1;
        f->raw_key[o] = (uint8_t)v;
        f->raw_key_set = 1;
        return 0;
    }
    sc_bytes k;
    if (sp_get_bytes(c, j, path, &k))
        return -1;
    if (k.len != MPA_KEY_LEN) {
        size_t n = k.len;
        sp_bytes_free(&k);
        return sp_fail(c, path, "a key is %d octets, this is %zu", MPA_KEY_LEN, n);
    }
    memcpy(f->raw_key, k.p, MPA_KEY_LEN);
    f->raw_key_set = 1;
    sp_bytes_free(&k);
    return 0;
}

static int parse_send_frame(pctx *c, const cJSON *j, const char *path, sc_frame *f)
{
    static const char *const keys[] = {"key", "m", "c", "r", "s", "res", "rev", "pd_length", "enhanced",
                                       "private_data", NULL};
    char p[160];
    memset(f, 0, sizeof *f);
    if (sp_only_keys(c, j, path, keys))
        return -1;
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(j, "key");
    if (k && parse_key(c, k, sp_sub(p, sizeof p, path, "key"), f))
        return -1;
    if (sp_field_val(c, j, path, "m", 0, 1, NULL, &f->m) || sp_field_val(c, j, path, "c", 0, 1, NULL, &f->c) ||
        sp_field_val(c, j, path, "r", 0, 1, NULL, &f->r) || sp_field_val(c, j, path, "s", 0, 1, NULL, &f->s) ||
        sp_field_val(c, j, path, "res", 0, 15, NULL, &f->res) ||
        sp_field_val(c, j, path, "rev", 0, 255, NULL, &f->rev) ||
        sp_field_val(c, j, path, "pd_length", 0, 65535, NULL, &f->pd_length))
        return -1;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "enhanced");
    if (e) {
        const char *ep = sp_sub(p, sizeof p, path, "enhanced");
        char epath[160];
        sp_sapp(epath, sizeof epath, 0, ep);
        static const char *const ekeys[] = {"a", "b", "c", "d", "ird", "ord", NULL};
        if (cJSON_IsBool(e)) {
            f->enh_present = (uint8_t)cJSON_IsTrue(e);
        } else {
            if (sp_only_keys(c, e, epath, ekeys))
                return -1;
            f->enh_present = 1;
            if (sp_field_val(c, e, epath, "a", 0, 1, NULL, &f->a) ||
                sp_field_val(c, e, epath, "b", 0, 1, NULL, &f->b) ||
                sp_field_val(c, e, epath, "c", 0, 1, NULL, &f->ec) ||
                sp_field_val(c, e, epath, "d", 0, 1, NULL, &f->ed) ||
                sp_field_val(c, e, epath, "ird", 0, 0x3FFF, NULL, &f->ird) ||
                sp_field_val(c, e, epath, "ord", 0, 0x3FFF, NULL, &f->ord))
                return -1;
        }
    }
    const cJSON *pd = cJSON_GetObjectItemCaseSensitive(j, "private_data");
    if (pd) {
        if (sp_get_bytes(c, pd, sp_sub(p, sizeof p, path, "private_data"), &f->pd))
            return -1;
        if (f->pd.len + (f->enh_present ? MPA_ENH_LEN : 0) > 65535)
            return sp_fail(c, p, "%zu octets of private data do not fit PD_Length", f->pd.len);
    }
    return 0;
}

/* ---- send: FPDU ------------------------------------------------------- */

static int sp_tri(pctx *c, const cJSON *obj, const char *path, const char *key, uint8_t *out)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = SC_AUTO;
    if (!j)
        return 0;
    char p[160];
    if (cJSON_IsBool(j)) {
        *out = cJSON_IsTrue(j) ? SC_ON : SC_OFF;
        return 0;
    }
    if (cJSON_IsString(j) && !strcmp(j->valuestring, "auto"))
        return 0;
    return sp_fail(c, sp_sub(p, sizeof p, path, key), "expected true, false or \"auto\", got %s", sp_jtype(j));
}

static int parse_send_fpdu(pctx *c, const cJSON *j, const char *path, sc_fpdu *f, uint32_t *count)
{
    static const char *const keys[] = {
        "rdmap", "opcode", "rtr", "tagged", "last", "dv", "rv", "ddp_rsvd", "rdmap_rsvd", "stag", "to",
        "inv_stag", "qn", "msn", "mo", "read_request", "terminate", "immediate", "atomic", "atomic_response",
        "payload", "ulpdu",
        "markers", "crc", "crc_value", "crc_xor", "marker_ptr_delta", "marker_nth", "marker_reserved",
        "pad_byte", "ulpdu_length", "count", NULL};
    char p[160];
    memset(f, 0, sizeof *f);
    if (sp_only_keys(c, j, path, keys))
        return -1;
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(j, "rdmap");
    const cJSON *opn = cJSON_GetObjectItemCaseSensitive(j, "opcode");
    const cJSON *rtr = cJSON_GetObjectItemCaseSensitive(j, "rtr");
    const cJSON *ul = cJSON_GetObjectItemCaseSensitive(j, "ulpdu");
    const cJSON *rr = cJSON_GetObjectItemCaseSensitive(j, "read_request");
    const cJSON *tm = cJSON_GetObjectItemCaseSensitive(j, "terminate");
    if (!!op + !!opn + !!rtr + !!ul > 1)
        return sp_fail(c, path, "give one of \"rdmap\", \"opcode\", \"rtr\", \"ulpdu\"");
    if (op && sp_get_val(c, op, sp_sub(p, sizeof p, path, "rdmap"), 0, 15, sp_field(F_OPCODE)->names, &f->opcode))
        return -1;
    if (opn && sp_get_val(c, opn, sp_sub(p, sizeof p, path, "opcode"), 0, 15, sp_field(F_OPCODE)->names, &f->opcode))
        return -1;
    if (rtr) {
        sc_val v;
        if (sp_get_val(c, rtr, sp_sub(p, sizeof p, path, "rtr"), 1, 3, sp_field(F_RTR)->names, &v))
            return -1;
        if (v.is_var)
            return sp_fail(c, p, "the RTR kind must be given, not a variable");
        f->rtr = (mpa_rtr_kind)v.v;
    }
    if (ul) {
        if (sp_get_bytes(c, ul, sp_sub(p, sizeof p, path, "ulpdu"), &f->ulpdu))
            return -1;
        if (f->ulpdu.len > 65535)
            return sp_fail(c, p, "a ULPDU is at most 65535 octets, this is %zu", f->ulpdu.len);
        f->ulpdu_raw = 1;
    }
    if (!op && !opn && !rtr && !ul) {
        if (tm) {
            f->opcode.set = 1;
            f->opcode.v = MPA_RDMAP_TERMINATE;
        } else if (rr) {
            f->opcode.set = 1;
            f->opcode.v = MPA_RDMAP_READ_REQUEST;
        } else {
            return sp_fail(c, path,
                           "say what to send: \"rdmap\" (send, write, read_request, terminate, ...), "
                           "\"opcode\", \"rtr\" or \"ulpdu\"");
        }
    }
    if (sp_field_val(c, j, path, "tagged", 0, 1, NULL, &f->tagged) ||
        sp_field_val(c, j, path, "last", 0, 1, NULL, &f->last) || sp_field_val(c, j, path, "dv", 0, 3, NULL, &f->dv) ||
        sp_field_val(c, j, path, "rv", 0, 3, NULL, &f->rv) ||
        sp_field_val(c, j, path, "ddp_rsvd", 0, 15, NULL, &f->ddp_rsvd) ||
        sp_field_val(c, j, path, "rdmap_rsvd", 0, 3, NULL, &f->rdmap_rsvd) ||
        sp_field_val(c, j, path, "stag", 0, U32, NULL, &f->stag) ||
        sp_field_u64(c, j, path, "to", &f->to) ||
        sp_field_val(c, j, path, "inv_stag", 0, U32, NULL, &f->inv_stag) ||
        sp_field_val(c, j, path, "qn", 0, U32, NULL, &f->qn) ||
        sp_field_val(c, j, path, "msn", 0, U32, NULL, &f->msn) ||
        sp_field_val(c, j, path, "mo", 0, U32, NULL, &f->mo) ||
        sp_field_val(c, j, path, "immediate", 0, INT64_MAX, NULL, &f->imm))
        return -1;
    if (rr) {
        char rp[160];
        sp_sub(rp, sizeof rp, path, "read_request");
        static const char *const rkeys[] = {"sink_stag", "sink_to", "size", "src_stag", "src_to", NULL};
        if (sp_only_keys(c, rr, rp, rkeys) || sp_field_val(c, rr, rp, "sink_stag", 0, U32, NULL, &f->sink_stag) ||
            sp_field_u64(c, rr, rp, "sink_to", &f->sink_to) ||
            sp_field_val(c, rr, rp, "size", 0, U32, NULL, &f->size) ||
            sp_field_val(c, rr, rp, "src_stag", 0, U32, NULL, &f->src_stag) ||
            sp_field_u64(c, rr, rp, "src_to", &f->src_to))
            return -1;
    }
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(j, "atomic");
    if (at) {
        char ap[160];
        sp_sub(ap, sizeof ap, path, "atomic");
        static const char *const akeys[] = {"aop",          "req_id",       "stag",         "to", "add_swap_data",
                                            "add_swap_mask", "compare_data", "compare_mask", NULL};
        if (sp_only_keys(c, at, ap, akeys) || sp_field_val(c, at, ap, "aop", 0, 15, NULL, &f->at_aop) ||
            sp_field_val(c, at, ap, "req_id", 0, U32, NULL, &f->at_req_id) ||
            sp_field_val(c, at, ap, "stag", 0, U32, NULL, &f->at_stag) ||
            sp_field_val(c, at, ap, "to", -1, INT64_MAX, NULL, &f->at_to) ||
            sp_field_val(c, at, ap, "add_swap_data", -1, INT64_MAX, NULL, &f->at_asd) ||
            sp_field_val(c, at, ap, "add_swap_mask", -1, INT64_MAX, NULL, &f->at_asm) ||
            sp_field_val(c, at, ap, "compare_data", -1, INT64_MAX, NULL, &f->at_cd) ||
            sp_field_val(c, at, ap, "compare_mask", -1, INT64_MAX, NULL, &f->at_cm))
            return -1;
    }
    const cJSON *ar = cJSON_GetObjectItemCaseSensitive(j, "atomic_response");
    if (ar) {
        char ap[160];
        sp_sub(ap, sizeof ap, path, "atomic_response");
        static const char *const rkeys2[] = {"orig_req_id", "orig_value", NULL};
        if (sp_only_keys(c, ar, ap, rkeys2) || sp_field_val(c, ar, ap, "orig_req_id", 0, U32, NULL, &f->ar_req_id) ||
            sp_field_val(c, ar, ap, "orig_value", -1, INT64_MAX, NULL, &f->ar_value))
            return -1;
    }
    if (tm) {
        char tp[160];
        sp_sub(tp, sizeof tp, path, "terminate");
        static const char *const tkeys[] = {"layer", "etype", "code", "m", "d", "r", "seglen", "ddp_header", NULL};
        if (sp_only_keys(c, tm, tp, tkeys) || sp_field_val(c, tm, tp, "layer", 0, 15, NULL, &f->layer) ||
            sp_field_val(c, tm, tp, "etype", 0, 15, NULL, &f->etype) ||
            sp_field_val(c, tm, tp, "code", 0, 255, NULL, &f->code) ||
            sp_field_val(c, tm, tp, "m", 0, 1, NULL, &f->tm) || sp_field_val(c, tm, tp, "d", 0, 1, NULL, &f->td) ||
            sp_field_val(c, tm, tp, "r", 0, 1, NULL, &f->tr) ||
            sp_field_val(c, tm, tp, "seglen", 0, 65535, NULL, &f->seglen))
            return -1;
        const cJSON *dh = cJSON_GetObjectItemCaseSensitive(tm, "ddp_header");
        if (dh) {
            char dp[160];
            sp_sub(dp, sizeof dp, tp, "ddp_header");
            static const char *const dkeys[] = {"tagged", "last", "rdmap", "opcode", "stag", "to", "qn", "msn", "mo",
                                                NULL};
            if (sp_only_keys(c, dh, dp, dkeys) || sp_field_val(c, dh, dp, "tagged", 0, 1, NULL, &f->ct_tagged) ||
                sp_field_val(c, dh, dp, "last", 0, 1, NULL, &f->ct_last) ||
                sp_field_val(c, dh, dp, "rdmap", 0, 15, sp_field(F_OPCODE)->names, &f->ct_opcode) ||
                (!f->ct_opcode.set &&
                 sp_field_val(c, dh, dp, "opcode", 0, 15, sp_field(F_OPCODE)->names, &f->ct_opcode)) ||
                sp_field_val(c, dh, dp, "stag", 0, U32, NULL, &f->ct_stag) ||
                sp_field_u64(c, dh, dp, "to", &f->ct_to) ||
                sp_field_val(c, dh, dp, "qn", 0, U32, NULL, &f->ct_qn) ||
                sp_field_val(c, dh, dp, "msn", 0, U32, NULL, &f->ct_msn) ||
                sp_field_val(c, dh, dp, "mo", 0, U32, NULL, &f->ct_mo))
                return -1;
            f->term_copy = 1;
        }
    }
    const cJSON *pl = cJSON_GetObjectItemCaseSensitive(j, "payload");
    if (pl) {
        if (ul)
            return sp_fail(c, sp_sub(p, sizeof p, path, "payload"), "\"payload\" and \"ulpdu\" exclude each other");
        if (sp_get_bytes(c, pl, sp_sub(p, sizeof p, path, "payload"), &f->payload))
            return -1;
        if (f->payload.len > MPA_ULPDU_MAX)
            return sp_fail(c, p, "a payload of %zu octets does not fit one FPDU (at most %d)", f->payload.len,
                        MPA_ULPDU_MAX);
    }
    if (sp_tri(c, j, path, "markers", &f->markers) || sp_tri(c, j, path, "crc", &f->crc))
        return -1;
    if (sp_field_val(c, j, path, "crc_value", 0, U32, NULL, &f->crc_value) ||
        sp_field_val(c, j, path, "crc_xor", 1, U32, NULL, &f->crc_xor) ||
        sp_field_val(c, j, path, "marker_ptr_delta", -65535, 65535, NULL, &f->marker_ptr_delta) ||
        sp_field_val(c, j, path, "marker_nth", 0, 255, NULL, &f->marker_nth) ||
        sp_field_val(c, j, path, "marker_reserved", 0, 65535, NULL, &f->marker_reserved) ||
        sp_field_val(c, j, path, "pad_byte", 0, 255, NULL, &f->pad_byte) ||
        sp_field_val(c, j, path, "ulpdu_length", 0, 65535, NULL, &f->ulpdu_length))
        return -1;
    if (f->crc_value.set && f->crc_xor.set)
        return sp_fail(c, path, "\"crc_value\" and \"crc_xor\" exclude each other");
    const cJSON *cnt = cJSON_GetObjectItemCaseSensitive(j, "count");
    int64_t n = 1;
    if (cnt && sp_get_int(c, cnt, sp_sub(p, sizeof p, path, "count"), 1, 100000, &n))
        return -1;
    *count = (uint32_t)n;
    return 0;
}

/* ---- the send step ---------------------------------------------------- */

int sp_parse_send(pctx *c, const cJSON *j, const char *path, sc_send *s)
{
    static const char *const keys[] = {"frame", "fpdu", "raw", "split", "chunk", "bytewise", "delay_ms",
                                       "reorder", "duplicate", "reseg", "hold", NULL};
    char p[160];
    memset(s, 0, sizeof *s);
    s->count = 1;
    if (sp_only_keys(c, j, path, keys))
        return -1;
    const cJSON *fr = cJSON_GetObjectItemCaseSensitive(j, "frame");
    const cJSON *fp = cJSON_GetObjectItemCaseSensitive(j, "fpdu");
    const cJSON *rw = cJSON_GetObjectItemCaseSensitive(j, "raw");
    if (!!fr + !!fp + !!rw != 1)
        return sp_fail(c, path, "give exactly one of \"frame\", \"fpdu\", \"raw\"");
    if (fr) {
        s->kind = SS_FRAME;
        if (parse_send_frame(c, fr, sp_sub(p, sizeof p, path, "frame"), &s->frame))
            return -1;
    } else if (fp) {
        s->kind = SS_FPDU;
        if (parse_send_fpdu(c, fp, sp_sub(p, sizeof p, path, "fpdu"), &s->fpdu, &s->count))
            return -1;
    } else {
        s->kind = SS_RAW;
        if (sp_get_bytes(c, rw, sp_sub(p, sizeof p, path, "raw"), &s->raw))
            return -1;
        if (!s->raw.len)
            return sp_fail(c, p, "nothing to send");
    }
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(j, "split");
    if (sp) {
        const char *spp = sp_sub(p, sizeof p, path, "split");
        char sp_path[160];
        sp_sapp(sp_path, sizeof sp_path, 0, spp);
        if (!cJSON_IsArray(sp))
            return sp_fail(c, sp_path, "expected an array of offsets, got %s", sp_jtype(sp));
        int i = 0;
        int64_t prev = 0;
        for (const cJSON *e = sp->child; e; e = e->next, i++) {
            char ip[160];
            int64_t v;
            if (i >= SC_MAX_SPLIT)
                return sp_fail(c, sp_path, "at most %d offsets", SC_MAX_SPLIT);
            if (sp_get_int(c, e, sp_idx(ip, sizeof ip, sp_path, i), 1, SC_BYTES_MAX, &v))
                return -1;
            if (v <= prev)
                return sp_fail(c, ip, "offsets must increase (%lld after %lld)", (long long)v, (long long)prev);
            prev = v;
            s->split[s->nsplit++] = (uint32_t)v;
        }
    }
    int64_t v;
    const cJSON *ch = cJSON_GetObjectItemCaseSensitive(j, "chunk");
    const cJSON *bw = cJSON_GetObjectItemCaseSensitive(j, "bytewise");
    if (ch && sp_get_int(c, ch, sp_sub(p, sizeof p, path, "chunk"), 1, 65535, &v) == 0)
        s->chunk = (uint32_t)v;
    if (c->bad)
        return -1;
    if (bw) {
        if (!cJSON_IsBool(bw))
            return sp_fail(c, sp_sub(p, sizeof p, path, "bytewise"), "expected true or false, got %s", sp_jtype(bw));
        if (cJSON_IsTrue(bw))
            s->chunk = 1;
    }
    if ((ch || (bw && cJSON_IsTrue(bw))) && sp)
        return sp_fail(c, path, "\"split\" and \"chunk\"/\"bytewise\" exclude each other");
    const cJSON *dl = cJSON_GetObjectItemCaseSensitive(j, "delay_ms");
    if (dl && sp_get_int(c, dl, sp_sub(p, sizeof p, path, "delay_ms"), 0, 60000, &v) == 0)
        s->delay_ms = (uint32_t)v;
    if (c->bad)
        return -1;
    const cJSON *ro = cJSON_GetObjectItemCaseSensitive(j, "reorder");
    const cJSON *du = cJSON_GetObjectItemCaseSensitive(j, "duplicate");
    const cJSON *rs = cJSON_GetObjectItemCaseSensitive(j, "reseg");
    if (ro && sp_get_int(c, ro, sp_sub(p, sizeof p, path, "reorder"), 0, 1, &v) == 0)
        s->reorder = (uint8_t)v;
    if (du && sp_get_int(c, du, sp_sub(p, sizeof p, path, "duplicate"), 0, 1, &v) == 0)
        s->duplicate = (uint8_t)v;
    if (rs && sp_get_int(c, rs, sp_sub(p, sizeof p, path, "reseg"), 1, 65535, &v) == 0)
        s->reseg = (uint32_t)v;
    if (c->bad)
        return -1;
    const cJSON *ho = cJSON_GetObjectItemCaseSensitive(j, "hold");
    if (ho) {
        const char *hp = sp_sub(p, sizeof p, path, "hold");
        if (cJSON_IsBool(ho))
            s->hold = (uint8_t)cJSON_IsTrue(ho);
        else if (sp_get_int(c, ho, hp, 0, 1, &v) == 0)
            s->hold = (uint8_t)v;
        else
            return -1;
        if (s->hold && s->kind == SS_FRAME)
            return sp_fail(c, hp, "a startup frame is sent in its own step, not held");
        if (s->hold && (s->nsplit || s->chunk || s->delay_ms || s->reorder || s->duplicate || s->reseg ||
                        s->count > 1))
            return sp_fail(c, hp, "held octets are cut by the next send step: no \"count\", \"split\", "
                                  "\"chunk\", \"bytewise\", \"delay_ms\", \"reorder\", \"duplicate\" or \"reseg\" here");
    }
    if ((s->reorder || s->duplicate || s->reseg) && !c->s->needs_raw) {
        c->s->needs_raw = 1;
        snprintf(c->s->raw_path, sizeof c->s->raw_path, "%s.%s", path,
                 s->reorder ? "reorder" : s->duplicate ? "duplicate" : "reseg");
    }
    return 0;
}

/*
 * mpa-inject scenario parser (see scen.h and docs/mpa-inject-scenarios.md).
 *
 * Everything a run will need is checked here, before the first octet is
 * sent: unknown keys (a typo would otherwise silently do nothing), value
 * ranges, variables used before anything defines them, requirement ids
 * that are not in the catalogue.  The first error is reported with the
 * file name and the JSON path of the value.
 */
#include "scen.h"

#include <cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpa/findings.h"
#include "mpa/fpdu.h"

/* ---- fields --------------------------------------------------------- */

typedef struct name_val {
    const char *name;
    int64_t v;
} name_val;

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

typedef struct field_info {
    const char *name;
    int scope;          /* 1 frame, 2 FPDU */
    int64_t min, max;
    const name_val *names;
} field_info;

#define U32 0xFFFFFFFFll
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
    [F_LAYER] = {"layer", 2, 0, 15, NULL},
    [F_ETYPE] = {"etype", 2, 0, 15, NULL},
    [F_CODE] = {"code", 2, 0, 255, NULL},
};

const char *sc_field_name(sc_field f)
{
    return f < F__COUNT ? fields[f].name : "?";
}

int sc_field_scope(sc_field f)
{
    return f < F__COUNT ? fields[f].scope : 0;
}

static sc_field field_by_name(const char *n, int scope)
{
    for (int f = 1; f < F__COUNT; f++)
        if (fields[f].scope == scope && !strcmp(fields[f].name, n))
            return (sc_field)f;
    /* "opcode" is the numeric spelling of "rdmap" */
    if (scope == 2 && !strcmp(n, "opcode"))
        return F_OPCODE;
    return F_NONE;
}

int sc_known_req(const char *id)
{
    return mpa_rule_find(id) != MPA_F__COUNT;
}

/* ---- parse context ---------------------------------------------------- */

typedef struct pctx {
    const char *file;
    char *err;
    size_t errlen;
    int bad;
    scenario *s;
    /* variables defined so far (in script order) */
    char vars[SC_MAX_VARS][SC_VAR_LEN]; /* every name: vars, --set and captures (the runner keeps as many) */
    unsigned nvars;
} pctx;

static int fail(pctx *c, const char *path, const char *fmt, ...)
{
    if (c->bad)
        return -1;
    c->bad = 1;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(c->err, c->errlen, "%s: %s: %s", c->file, path, msg);
    return -1;
}

static const char *jtype(const cJSON *j)
{
    if (cJSON_IsNumber(j))
        return "a number";
    if (cJSON_IsString(j))
        return "a string";
    if (cJSON_IsBool(j))
        return "a boolean";
    if (cJSON_IsNull(j))
        return "null";
    if (cJSON_IsArray(j))
        return "an array";
    if (cJSON_IsObject(j))
        return "an object";
    return "invalid";
}

/* Bounded string building for JSON paths (a path cut short is still a
 * useful message; snprintf would warn about every such cut). */
static size_t sapp(char *d, size_t n, size_t at, const char *s)
{
    while (*s && at + 1 < n)
        d[at++] = *s++;
    if (n)
        d[at < n ? at : n - 1] = 0;
    return at;
}

/* path + "." + key into buf */
static const char *sub(char *buf, size_t n, const char *path, const char *key)
{
    size_t at = sapp(buf, n, 0, path);
    at = sapp(buf, n, at, ".");
    sapp(buf, n, at, key);
    return buf;
}

static const char *idx(char *buf, size_t n, const char *path, int i)
{
    char num[16];
    int k = 0;
    unsigned v = (unsigned)i;
    char tmp[12];
    do {
        tmp[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v && k < 11);
    num[0] = '[';
    for (int j = 0; j < k; j++)
        num[1 + j] = tmp[k - 1 - j];
    num[1 + k] = ']';
    num[2 + k] = 0;
    size_t at = sapp(buf, n, 0, path);
    sapp(buf, n, at, num);
    return buf;
}

/* Every member of obj must be in allowed (NULL-terminated). */
static int only_keys(pctx *c, const cJSON *obj, const char *path, const char *const *allowed)
{
    if (!cJSON_IsObject(obj))
        return fail(c, path, "expected an object, got %s", jtype(obj));
    for (const cJSON *m = obj->child; m; m = m->next) {
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            if (!strcmp(m->string, *a))
                ok = 1;
        if (!ok) {
            char list[400] = "";
            for (const char *const *a = allowed; *a; a++) {
                strncat(list, *a, sizeof list - strlen(list) - 3);
                if (a[1])
                    strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            char p[160];
            return fail(c, sub(p, sizeof p, path, m->string), "unknown key \"%s\" (known here: %s)", m->string, list);
        }
        for (const cJSON *d = m->next; d; d = d->next)
            if (!strcmp(d->string, m->string)) {
                char p[160];
                return fail(c, sub(p, sizeof p, path, m->string), "key given twice");
            }
    }
    return 0;
}

static int var_known(const pctx *c, const char *name)
{
    for (unsigned i = 0; i < c->nvars; i++)
        if (!strcmp(c->vars[i], name))
            return 1;
    return 0;
}

static int valid_var_name(const char *n)
{
    if (!*n || strlen(n) >= SC_VAR_LEN || !(isalpha((unsigned char)*n) || *n == '_'))
        return 0;
    for (; *n; n++)
        if (!isalnum((unsigned char)*n) && *n != '_')
            return 0;
    return 1;
}

static int define_var(pctx *c, const char *path, const char *name)
{
    if (!valid_var_name(name))
        return fail(c, path, "\"%s\" is not a variable name (letters, digits, _; at most %d)", name,
                    SC_VAR_LEN - 1);
    if (var_known(c, name))
        return 0;
    if (c->nvars >= sizeof c->vars / sizeof c->vars[0])
        return fail(c, path, "too many variables (at most %d)", SC_MAX_VARS);
    snprintf(c->vars[c->nvars++], SC_VAR_LEN, "%s", name);
    return 0;
}

/* A number from a JSON number or a string "0x...", "123". */
static int str_num(const char *str, int64_t *v)
{
    errno = 0;
    char *end;
    unsigned long long u = strtoull(str, &end, 0);
    if (errno || end == str || *end || str[0] == '-')
        return -1;
    if (u > (unsigned long long)INT64_MAX)
        return -1;
    *v = (int64_t)u;
    return 0;
}

/* A plain number (no variable) in [min, max]. */
static int get_int(pctx *c, const cJSON *j, const char *path, int64_t min, int64_t max, int64_t *out)
{
    int64_t v;
    if (cJSON_IsNumber(j)) {
        double d = j->valuedouble;
        /* 2^63 bounds what converts to int64_t at all (NaN fails both) */
        if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
            return fail(c, path, "%g is not in %" PRId64 "..%" PRId64, d, min, max);
        if (d != (double)(int64_t)d)
            return fail(c, path, "%g is not a whole number", d);
        v = (int64_t)d;
    } else if (cJSON_IsBool(j)) {
        v = cJSON_IsTrue(j);
    } else if (cJSON_IsString(j)) {
        if (str_num(j->valuestring, &v))
            return fail(c, path, "\"%s\" is not a number", j->valuestring);
    } else {
        return fail(c, path, "expected a number, got %s", jtype(j));
    }
    if (v < min || v > max)
        return fail(c, path, "%lld is not in %lld..%lld", (long long)v, (long long)min, (long long)max);
    *out = v;
    return 0;
}

/* A value to send: number, "$var", or a name of the field's table. */
static int get_val(pctx *c, const cJSON *j, const char *path, int64_t min, int64_t max, const name_val *names,
                   sc_val *out)
{
    memset(out, 0, sizeof *out);
    if (cJSON_IsString(j) && j->valuestring[0] == '$') {
        const char *n = j->valuestring + 1;
        if (!var_known(c, n))
            return fail(c, path, "variable $%s is not defined before this step (\"vars\", --set, or a capture)", n);
        out->set = out->is_var = 1;
        snprintf(out->var, sizeof out->var, "%s", n);
        return 0;
    }
    if (cJSON_IsString(j) && names) {
        int64_t v;
        if (str_num(j->valuestring, &v)) {
            for (const name_val *nv = names; nv->name; nv++)
                if (!strcmp(nv->name, j->valuestring)) {
                    out->set = 1;
                    out->v = nv->v;
                    return 0;
                }
            char list[300] = "";
            for (const name_val *nv = names; nv->name; nv++) {
                strncat(list, nv->name, sizeof list - strlen(list) - 3);
                if (nv[1].name)
                    strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            return fail(c, path, "\"%s\" is not one of: %s (or a number)", j->valuestring, list);
        }
    }
    if (get_int(c, j, path, min, max, &out->v))
        return -1;
    out->set = 1;
    return 0;
}

static int field_val(pctx *c, const cJSON *obj, const char *path, const char *key, int64_t min, int64_t max,
                     const name_val *names, sc_val *out)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    memset(out, 0, sizeof *out);
    if (!j)
        return 0;
    char p[160];
    return get_val(c, j, sub(p, sizeof p, path, key), min, max, names, out);
}

static int hexval(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    ch = tolower(ch);
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    return -1;
}

#define SC_BYTES_MAX (1u << 20)

/* Octets: "text", {"text": ...}, {"hex": "4d 50 ..."}, {"len": N, "fill": B}. */
static int get_bytes(pctx *c, const cJSON *j, const char *path, sc_bytes *out)
{
    memset(out, 0, sizeof *out);
    char p[160];
    if (cJSON_IsString(j)) {
        out->len = strlen(j->valuestring);
        out->p = malloc(out->len + 1);
        if (!out->p)
            return fail(c, path, "out of memory");
        memcpy(out->p, j->valuestring, out->len);
        return 0;
    }
    static const char *const keys[] = {"text", "hex", "len", "fill", NULL};
    if (only_keys(c, j, path, keys))
        return -1;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "text");
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(j, "hex");
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(j, "len");
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, "fill");
    if (!!t + !!h + !!l != 1)
        return fail(c, path, "give exactly one of \"text\", \"hex\", \"len\"");
    if (f && !l)
        return fail(c, sub(p, sizeof p, path, "fill"), "\"fill\" goes with \"len\"");
    if (t) {
        if (!cJSON_IsString(t))
            return fail(c, sub(p, sizeof p, path, "text"), "expected a string, got %s", jtype(t));
        return get_bytes(c, t, sub(p, sizeof p, path, "text"), out);
    }
    if (h) {
        if (!cJSON_IsString(h))
            return fail(c, sub(p, sizeof p, path, "hex"), "expected a string, got %s", jtype(h));
        const char *s = h->valuestring;
        size_t n = strlen(s);
        out->p = malloc(n / 2 + 1);
        if (!out->p)
            return fail(c, path, "out of memory");
        int hi = -1;
        for (size_t i = 0; i < n; i++) {
            unsigned char ch = (unsigned char)s[i];
            if (isspace(ch) || ch == ':' || ch == '-')
                continue;
            int v = hexval(ch);
            if (v < 0) {
                free(out->p);
                out->p = NULL;
                return fail(c, sub(p, sizeof p, path, "hex"), "'%c' at character %zu is not a hex digit", ch, i);
            }
            if (hi < 0) {
                hi = v;
            } else {
                out->p[out->len++] = (uint8_t)(hi << 4 | v);
                hi = -1;
            }
        }
        if (hi >= 0) {
            free(out->p);
            out->p = NULL;
            out->len = 0;
            return fail(c, sub(p, sizeof p, path, "hex"), "odd number of hex digits");
        }
        return 0;
    }
    int64_t len, fill = 0;
    if (get_int(c, l, sub(p, sizeof p, path, "len"), 0, SC_BYTES_MAX, &len))
        return -1;
    if (f && get_int(c, f, sub(p, sizeof p, path, "fill"), 0, 255, &fill))
        return -1;
    out->p = malloc((size_t)len + 1);
    if (!out->p)
        return fail(c, path, "out of memory");
    memset(out->p, (int)fill, (size_t)len);
    out->len = (size_t)len;
    return 0;
}

static void bytes_free(sc_bytes *b)
{
    free(b->p);
    b->p = NULL;
    b->len = 0;
}

/* ---- send: frame ------------------------------------------------------ */

static int parse_key(pctx *c, const cJSON *j, const char *path, sc_frame *f)
{
    char p[160];
    if (cJSON_IsString(j)) {
        for (const name_val *nv = key_names; nv->name; nv++)
            if (nv->v != MPA_KEY_UNKNOWN && !strcmp(nv->name, j->valuestring)) {
                f->kind = (mpa_key_kind)nv->v;
                return 0;
            }
        return fail(c, path, "\"%s\" is not a key name (request, reply, rtr2007, startkey; or {\"hex\"}, {\"text\"}, "
                             "{\"base\", \"octet\", \"value\"})",
                    j->valuestring);
    }
    if (cJSON_IsObject(j) && cJSON_GetObjectItemCaseSensitive(j, "base")) {
        static const char *const keys[] = {"base", "octet", "value", NULL};
        if (only_keys(c, j, path, keys))
            return -1;
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(j, "base");
        sc_frame tmp;
        memset(&tmp, 0, sizeof tmp);
        if (parse_key(c, b, sub(p, sizeof p, path, "base"), &tmp))
            return -1;
        if (tmp.kind == MPA_KEY_STARTKEY)
            return fail(c, sub(p, sizeof p, path, "base"), "the Start Key cannot be a base (15 octets)");
        memcpy(f->raw_key, mpa_key_bytes(tmp.kind), MPA_KEY_LEN);
        int64_t o, v;
        const cJSON *oj = cJSON_GetObjectItemCaseSensitive(j, "octet");
        const cJSON *vj = cJSON_GetObjectItemCaseSensitive(j, "value");
        if (!oj || !vj)
            return fail(c, path, "\"octet\" and \"value\" are both needed with \"base\"");
        if (get_int(c, oj, sub(p, sizeof p, path, "octet"), 0, MPA_KEY_LEN - 1, &o) ||
            get_int(c, vj, sub(p, sizeof p, path, "value"), 0, 255, &v))
            return -1;
        f->raw_key[o] = (uint8_t)v;
        f->raw_key_set = 1;
        return 0;
    }
    sc_bytes k;
    if (get_bytes(c, j, path, &k))
        return -1;
    if (k.len != MPA_KEY_LEN) {
        size_t n = k.len;
        bytes_free(&k);
        return fail(c, path, "a key is %d octets, this is %zu", MPA_KEY_LEN, n);
    }
    memcpy(f->raw_key, k.p, MPA_KEY_LEN);
    f->raw_key_set = 1;
    bytes_free(&k);
    return 0;
}

static int parse_send_frame(pctx *c, const cJSON *j, const char *path, sc_frame *f)
{
    static const char *const keys[] = {"key", "m", "c", "r", "s", "res", "rev", "pd_length", "enhanced",
                                       "private_data", NULL};
    char p[160];
    memset(f, 0, sizeof *f);
    if (only_keys(c, j, path, keys))
        return -1;
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(j, "key");
    if (k && parse_key(c, k, sub(p, sizeof p, path, "key"), f))
        return -1;
    if (field_val(c, j, path, "m", 0, 1, NULL, &f->m) || field_val(c, j, path, "c", 0, 1, NULL, &f->c) ||
        field_val(c, j, path, "r", 0, 1, NULL, &f->r) || field_val(c, j, path, "s", 0, 1, NULL, &f->s) ||
        field_val(c, j, path, "res", 0, 15, NULL, &f->res) || field_val(c, j, path, "rev", 0, 255, NULL, &f->rev) ||
        field_val(c, j, path, "pd_length", 0, 65535, NULL, &f->pd_length))
        return -1;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "enhanced");
    if (e) {
        const char *ep = sub(p, sizeof p, path, "enhanced");
        char epath[160];
        sapp(epath, sizeof epath, 0, ep);
        static const char *const ekeys[] = {"a", "b", "c", "d", "ird", "ord", NULL};
        if (cJSON_IsBool(e)) {
            f->enh_present = (uint8_t)cJSON_IsTrue(e);
        } else {
            if (only_keys(c, e, epath, ekeys))
                return -1;
            f->enh_present = 1;
            if (field_val(c, e, epath, "a", 0, 1, NULL, &f->a) || field_val(c, e, epath, "b", 0, 1, NULL, &f->b) ||
                field_val(c, e, epath, "c", 0, 1, NULL, &f->ec) || field_val(c, e, epath, "d", 0, 1, NULL, &f->ed) ||
                field_val(c, e, epath, "ird", 0, 0x3FFF, NULL, &f->ird) ||
                field_val(c, e, epath, "ord", 0, 0x3FFF, NULL, &f->ord))
                return -1;
        }
    }
    const cJSON *pd = cJSON_GetObjectItemCaseSensitive(j, "private_data");
    if (pd) {
        if (get_bytes(c, pd, sub(p, sizeof p, path, "private_data"), &f->pd))
            return -1;
        if (f->pd.len + (f->enh_present ? MPA_ENH_LEN : 0) > 65535)
            return fail(c, p, "%zu octets of private data do not fit PD_Length", f->pd.len);
    }
    return 0;
}

/* ---- send: FPDU ------------------------------------------------------- */

static int tri(pctx *c, const cJSON *obj, const char *path, const char *key, uint8_t *out)
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
    return fail(c, sub(p, sizeof p, path, key), "expected true, false or \"auto\", got %s", jtype(j));
}

static int parse_send_fpdu(pctx *c, const cJSON *j, const char *path, sc_fpdu *f, uint32_t *count)
{
    static const char *const keys[] = {
        "rdmap", "opcode", "rtr", "tagged", "last", "dv", "rv", "ddp_rsvd", "rdmap_rsvd", "stag", "to",
        "inv_stag", "qn", "msn", "mo", "read_request", "terminate", "immediate", "payload", "ulpdu",
        "markers", "crc", "crc_value", "crc_xor", "marker_ptr_delta", "marker_nth", "marker_reserved",
        "pad_byte", "ulpdu_length", "count", NULL};
    char p[160];
    memset(f, 0, sizeof *f);
    if (only_keys(c, j, path, keys))
        return -1;
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(j, "rdmap");
    const cJSON *opn = cJSON_GetObjectItemCaseSensitive(j, "opcode");
    const cJSON *rtr = cJSON_GetObjectItemCaseSensitive(j, "rtr");
    const cJSON *ul = cJSON_GetObjectItemCaseSensitive(j, "ulpdu");
    const cJSON *rr = cJSON_GetObjectItemCaseSensitive(j, "read_request");
    const cJSON *tm = cJSON_GetObjectItemCaseSensitive(j, "terminate");
    if (!!op + !!opn + !!rtr + !!ul > 1)
        return fail(c, path, "give one of \"rdmap\", \"opcode\", \"rtr\", \"ulpdu\"");
    if (op && get_val(c, op, sub(p, sizeof p, path, "rdmap"), 0, 15, opcode_names, &f->opcode))
        return -1;
    if (opn && get_val(c, opn, sub(p, sizeof p, path, "opcode"), 0, 15, opcode_names, &f->opcode))
        return -1;
    if (rtr) {
        sc_val v;
        if (get_val(c, rtr, sub(p, sizeof p, path, "rtr"), 1, 3, rtr_names, &v))
            return -1;
        if (v.is_var)
            return fail(c, p, "the RTR kind must be given, not a variable");
        f->rtr = (mpa_rtr_kind)v.v;
    }
    if (ul) {
        if (get_bytes(c, ul, sub(p, sizeof p, path, "ulpdu"), &f->ulpdu))
            return -1;
        if (f->ulpdu.len > 65535)
            return fail(c, p, "a ULPDU is at most 65535 octets, this is %zu", f->ulpdu.len);
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
            return fail(c, path, "say what to send: \"rdmap\" (send, write, read_request, terminate, ...), "
                                 "\"opcode\", \"rtr\" or \"ulpdu\"");
        }
    }
    if (field_val(c, j, path, "tagged", 0, 1, NULL, &f->tagged) || field_val(c, j, path, "last", 0, 1, NULL, &f->last) ||
        field_val(c, j, path, "dv", 0, 3, NULL, &f->dv) || field_val(c, j, path, "rv", 0, 3, NULL, &f->rv) ||
        field_val(c, j, path, "ddp_rsvd", 0, 15, NULL, &f->ddp_rsvd) ||
        field_val(c, j, path, "rdmap_rsvd", 0, 3, NULL, &f->rdmap_rsvd) ||
        field_val(c, j, path, "stag", 0, U32, NULL, &f->stag) || field_val(c, j, path, "to", 0, INT64_MAX, NULL, &f->to) ||
        field_val(c, j, path, "inv_stag", 0, U32, NULL, &f->inv_stag) ||
        field_val(c, j, path, "qn", 0, U32, NULL, &f->qn) || field_val(c, j, path, "msn", 0, U32, NULL, &f->msn) ||
        field_val(c, j, path, "mo", 0, U32, NULL, &f->mo) || field_val(c, j, path, "immediate", 0, INT64_MAX, NULL, &f->imm))
        return -1;
    if (rr) {
        char rp[160];
        sub(rp, sizeof rp, path, "read_request");
        static const char *const rkeys[] = {"sink_stag", "sink_to", "size", "src_stag", "src_to", NULL};
        if (only_keys(c, rr, rp, rkeys) || field_val(c, rr, rp, "sink_stag", 0, U32, NULL, &f->sink_stag) ||
            field_val(c, rr, rp, "sink_to", 0, INT64_MAX, NULL, &f->sink_to) ||
            field_val(c, rr, rp, "size", 0, U32, NULL, &f->size) ||
            field_val(c, rr, rp, "src_stag", 0, U32, NULL, &f->src_stag) ||
            field_val(c, rr, rp, "src_to", 0, INT64_MAX, NULL, &f->src_to))
            return -1;
    }
    if (tm) {
        char tp[160];
        sub(tp, sizeof tp, path, "terminate");
        static const char *const tkeys[] = {"layer", "etype", "code", "m", "d", "r", "seglen", "ddp_header", NULL};
        if (only_keys(c, tm, tp, tkeys) || field_val(c, tm, tp, "layer", 0, 15, NULL, &f->layer) ||
            field_val(c, tm, tp, "etype", 0, 15, NULL, &f->etype) ||
            field_val(c, tm, tp, "code", 0, 255, NULL, &f->code) || field_val(c, tm, tp, "m", 0, 1, NULL, &f->tm) ||
            field_val(c, tm, tp, "d", 0, 1, NULL, &f->td) || field_val(c, tm, tp, "r", 0, 1, NULL, &f->tr) ||
            field_val(c, tm, tp, "seglen", 0, 65535, NULL, &f->seglen))
            return -1;
        const cJSON *dh = cJSON_GetObjectItemCaseSensitive(tm, "ddp_header");
        if (dh) {
            char dp[160];
            sub(dp, sizeof dp, tp, "ddp_header");
            static const char *const dkeys[] = {"tagged", "last", "rdmap", "opcode", "stag", "to", "qn", "msn", "mo",
                                                NULL};
            if (only_keys(c, dh, dp, dkeys) || field_val(c, dh, dp, "tagged", 0, 1, NULL, &f->ct_tagged) ||
                field_val(c, dh, dp, "last", 0, 1, NULL, &f->ct_last) ||
                field_val(c, dh, dp, "rdmap", 0, 15, opcode_names, &f->ct_opcode) ||
                (!f->ct_opcode.set && field_val(c, dh, dp, "opcode", 0, 15, opcode_names, &f->ct_opcode)) ||
                field_val(c, dh, dp, "stag", 0, U32, NULL, &f->ct_stag) ||
                field_val(c, dh, dp, "to", 0, INT64_MAX, NULL, &f->ct_to) ||
                field_val(c, dh, dp, "qn", 0, U32, NULL, &f->ct_qn) ||
                field_val(c, dh, dp, "msn", 0, U32, NULL, &f->ct_msn) ||
                field_val(c, dh, dp, "mo", 0, U32, NULL, &f->ct_mo))
                return -1;
            f->term_copy = 1;
        }
    }
    const cJSON *pl = cJSON_GetObjectItemCaseSensitive(j, "payload");
    if (pl) {
        if (ul)
            return fail(c, sub(p, sizeof p, path, "payload"), "\"payload\" and \"ulpdu\" exclude each other");
        if (get_bytes(c, pl, sub(p, sizeof p, path, "payload"), &f->payload))
            return -1;
        if (f->payload.len > MPA_ULPDU_MAX)
            return fail(c, p, "a payload of %zu octets does not fit one FPDU (at most %d)", f->payload.len,
                        MPA_ULPDU_MAX);
    }
    if (tri(c, j, path, "markers", &f->markers) || tri(c, j, path, "crc", &f->crc))
        return -1;
    if (field_val(c, j, path, "crc_value", 0, U32, NULL, &f->crc_value) ||
        field_val(c, j, path, "crc_xor", 1, U32, NULL, &f->crc_xor) ||
        field_val(c, j, path, "marker_ptr_delta", -65535, 65535, NULL, &f->marker_ptr_delta) ||
        field_val(c, j, path, "marker_nth", 0, 255, NULL, &f->marker_nth) ||
        field_val(c, j, path, "marker_reserved", 0, 65535, NULL, &f->marker_reserved) ||
        field_val(c, j, path, "pad_byte", 0, 255, NULL, &f->pad_byte) ||
        field_val(c, j, path, "ulpdu_length", 0, 65535, NULL, &f->ulpdu_length))
        return -1;
    if (f->crc_value.set && f->crc_xor.set)
        return fail(c, path, "\"crc_value\" and \"crc_xor\" exclude each other");
    const cJSON *cnt = cJSON_GetObjectItemCaseSensitive(j, "count");
    int64_t n = 1;
    if (cnt && get_int(c, cnt, sub(p, sizeof p, path, "count"), 1, 100000, &n))
        return -1;
    *count = (uint32_t)n;
    return 0;
}

/* ---- steps ------------------------------------------------------------ */

static int parse_send(pctx *c, const cJSON *j, const char *path, sc_send *s)
{
    static const char *const keys[] = {"frame", "fpdu", "raw", "split", "chunk", "bytewise", "delay_ms",
                                       "reorder", "duplicate", "reseg", NULL};
    char p[160];
    memset(s, 0, sizeof *s);
    s->count = 1;
    if (only_keys(c, j, path, keys))
        return -1;
    const cJSON *fr = cJSON_GetObjectItemCaseSensitive(j, "frame");
    const cJSON *fp = cJSON_GetObjectItemCaseSensitive(j, "fpdu");
    const cJSON *rw = cJSON_GetObjectItemCaseSensitive(j, "raw");
    if (!!fr + !!fp + !!rw != 1)
        return fail(c, path, "give exactly one of \"frame\", \"fpdu\", \"raw\"");
    if (fr) {
        s->kind = SS_FRAME;
        if (parse_send_frame(c, fr, sub(p, sizeof p, path, "frame"), &s->frame))
            return -1;
    } else if (fp) {
        s->kind = SS_FPDU;
        if (parse_send_fpdu(c, fp, sub(p, sizeof p, path, "fpdu"), &s->fpdu, &s->count))
            return -1;
    } else {
        s->kind = SS_RAW;
        if (get_bytes(c, rw, sub(p, sizeof p, path, "raw"), &s->raw))
            return -1;
        if (!s->raw.len)
            return fail(c, p, "nothing to send");
    }
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(j, "split");
    if (sp) {
        const char *spp = sub(p, sizeof p, path, "split");
        char sp_path[160];
        sapp(sp_path, sizeof sp_path, 0, spp);
        if (!cJSON_IsArray(sp))
            return fail(c, sp_path, "expected an array of offsets, got %s", jtype(sp));
        int i = 0;
        int64_t prev = 0;
        for (const cJSON *e = sp->child; e; e = e->next, i++) {
            char ip[160];
            int64_t v;
            if (i >= SC_MAX_SPLIT)
                return fail(c, sp_path, "at most %d offsets", SC_MAX_SPLIT);
            if (get_int(c, e, idx(ip, sizeof ip, sp_path, i), 1, SC_BYTES_MAX, &v))
                return -1;
            if (v <= prev)
                return fail(c, ip, "offsets must increase (%lld after %lld)", (long long)v, (long long)prev);
            prev = v;
            s->split[s->nsplit++] = (uint32_t)v;
        }
    }
    int64_t v;
    const cJSON *ch = cJSON_GetObjectItemCaseSensitive(j, "chunk");
    const cJSON *bw = cJSON_GetObjectItemCaseSensitive(j, "bytewise");
    if (ch && get_int(c, ch, sub(p, sizeof p, path, "chunk"), 1, 65535, &v) == 0)
        s->chunk = (uint32_t)v;
    if (c->bad)
        return -1;
    if (bw) {
        if (!cJSON_IsBool(bw))
            return fail(c, sub(p, sizeof p, path, "bytewise"), "expected true or false, got %s", jtype(bw));
        if (cJSON_IsTrue(bw))
            s->chunk = 1;
    }
    if ((ch || (bw && cJSON_IsTrue(bw))) && sp)
        return fail(c, path, "\"split\" and \"chunk\"/\"bytewise\" exclude each other");
    const cJSON *dl = cJSON_GetObjectItemCaseSensitive(j, "delay_ms");
    if (dl && get_int(c, dl, sub(p, sizeof p, path, "delay_ms"), 0, 60000, &v) == 0)
        s->delay_ms = (uint32_t)v;
    if (c->bad)
        return -1;
    const cJSON *ro = cJSON_GetObjectItemCaseSensitive(j, "reorder");
    const cJSON *du = cJSON_GetObjectItemCaseSensitive(j, "duplicate");
    const cJSON *rs = cJSON_GetObjectItemCaseSensitive(j, "reseg");
    if (ro && get_int(c, ro, sub(p, sizeof p, path, "reorder"), 0, 1, &v) == 0)
        s->reorder = (uint8_t)v;
    if (du && get_int(c, du, sub(p, sizeof p, path, "duplicate"), 0, 1, &v) == 0)
        s->duplicate = (uint8_t)v;
    if (rs && get_int(c, rs, sub(p, sizeof p, path, "reseg"), 1, 65535, &v) == 0)
        s->reseg = (uint32_t)v;
    if (c->bad)
        return -1;
    if ((s->reorder || s->duplicate || s->reseg) && !c->s->needs_raw) {
        c->s->needs_raw = 1;
        snprintf(c->s->raw_path, sizeof c->s->raw_path, "%s.%s", path,
                 s->reorder ? "reorder" : s->duplicate ? "duplicate" : "reseg");
    }
    return 0;
}

/* Constraint on one field from a JSON value. */
static int parse_cons(pctx *c, const cJSON *j, const char *path, sc_field fld, sc_cons *k)
{
    const field_info *fi = &fields[fld];
    memset(k, 0, sizeof *k);
    k->field = (uint8_t)fld;
    if (cJSON_IsArray(j)) {
        k->kind = SC_C_SET;
        int i = 0;
        for (const cJSON *e = j->child; e; e = e->next, i++) {
            char ip[160];
            sc_val v;
            if (i >= SC_SET_MAX)
                return fail(c, path, "at most %d alternatives", SC_SET_MAX);
            if (get_val(c, e, idx(ip, sizeof ip, path, i), fi->min, fi->max, fi->names, &v))
                return -1;
            if (v.is_var)
                return fail(c, ip, "a variable cannot be one of a set; use \"any_of\"");
            k->set[k->nset++] = v.v;
        }
        if (!k->nset)
            return fail(c, path, "an empty set matches nothing");
        return 0;
    }
    if (cJSON_IsObject(j)) {
        static const char *const keys[] = {"min", "max", "not", NULL};
        if (only_keys(c, j, path, keys))
            return -1;
        const cJSON *mn = cJSON_GetObjectItemCaseSensitive(j, "min");
        const cJSON *mx = cJSON_GetObjectItemCaseSensitive(j, "max");
        const cJSON *nt = cJSON_GetObjectItemCaseSensitive(j, "not");
        char p[160];
        if (nt) {
            if (mn || mx)
                return fail(c, path, "\"not\" goes alone");
            sc_val v;
            if (get_val(c, nt, sub(p, sizeof p, path, "not"), fi->min, fi->max, fi->names, &v))
                return -1;
            k->kind = SC_C_NOT;
            k->a = v.v;
            k->is_var = v.is_var;
            memcpy(k->var, v.var, sizeof k->var);
            return 0;
        }
        if (!mn && !mx)
            return fail(c, path, "give \"min\", \"max\" or both");
        k->kind = SC_C_RANGE;
        k->a = fi->min;
        k->b = fi->max;
        if (mn && get_int(c, mn, sub(p, sizeof p, path, "min"), fi->min, fi->max, &k->a))
            return -1;
        if (mx && get_int(c, mx, sub(p, sizeof p, path, "max"), fi->min, fi->max, &k->b))
            return -1;
        if (k->a > k->b)
            return fail(c, path, "min %lld is above max %lld", (long long)k->a, (long long)k->b);
        return 0;
    }
    sc_val v;
    if (get_val(c, j, path, fi->min, fi->max, fi->names, &v))
        return -1;
    k->kind = SC_C_EQ;
    k->a = v.v;
    k->is_var = v.is_var;
    memcpy(k->var, v.var, sizeof k->var);
    return 0;
}

static int add_cons(pctx *c, sc_alt *a, const cJSON *j, const char *path, sc_field f)
{
    if (a->ncons >= SC_MAX_CONS)
        return fail(c, path, "too many constraints (at most %d)", SC_MAX_CONS);
    return parse_cons(c, j, path, f, &a->cons[a->ncons++]);
}

/* The constraints of a frame / fpdu / terminate expectation. */
static int parse_alt_body(pctx *c, const cJSON *j, const char *path, sc_alt *a)
{
    char p[160];
    if (a->kind == SE_FIN || a->kind == SE_RST || a->kind == SE_CLOSE || a->kind == SE_SILENCE) {
        static const char *const none[] = {NULL};
        if (cJSON_IsTrue(j))
            return 0;
        return only_keys(c, j, path, none);
    }
    if (cJSON_IsTrue(j))
        return 0; /* any frame / FPDU / TERMINATE */
    if (!cJSON_IsObject(j))
        return fail(c, path, "expected an object of constraints (or true), got %s", jtype(j));
    int scope = a->kind == SE_FRAME ? 1 : 2;
    for (const cJSON *m = j->child; m; m = m->next) {
        const char *mp = sub(p, sizeof p, path, m->string);
        char mpath[160];
        sapp(mpath, sizeof mpath, 0, mp);
        if (scope == 1 && !strcmp(m->string, "enhanced") && cJSON_IsObject(m)) {
            /* nested: "enhanced": {"a": 1, "ird": {"min": 1}} */
            static const char *const ekeys[] = {"a", "b", "c", "d", "ird", "ord", NULL};
            if (only_keys(c, m, mpath, ekeys))
                return -1;
            cJSON one;
            memset(&one, 0, sizeof one);
            one.type = cJSON_True;
            if (add_cons(c, a, &one, mpath, F_ENHANCED))
                return -1;
            for (const cJSON *e = m->child; e; e = e->next) {
                char ep[160];
                sc_field f = !strcmp(e->string, "c") ? F_ENH_C : !strcmp(e->string, "d") ? F_ENH_D
                                                                                          : field_by_name(e->string, 1);
                if (add_cons(c, a, e, sub(ep, sizeof ep, mpath, e->string), f))
                    return -1;
            }
            continue;
        }
        if (scope == 1 && !strcmp(m->string, "private_data")) {
            if (get_bytes(c, m, mpath, &a->pd))
                return -1;
            a->pd_set = 1;
            continue;
        }
        sc_field f = field_by_name(m->string, scope);
        if (f == F_NONE || (a->kind == SE_FPDU && (f == F_LAYER || f == F_ETYPE || f == F_CODE))) {
            char list[600] = "";
            for (int k = 1; k < F__COUNT; k++) {
                if (fields[k].scope != scope)
                    continue;
                if (a->kind == SE_FPDU && (k == F_LAYER || k == F_ETYPE || k == F_CODE))
                    continue;
                strncat(list, fields[k].name, sizeof list - strlen(list) - 3);
                strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            if (scope == 1)
                strncat(list, "private_data", sizeof list - strlen(list) - 1);
            else
                list[strlen(list) - 2] = 0;
            return fail(c, mpath, "unknown field \"%s\" (known here: %s)", m->string, list);
        }
        if (add_cons(c, a, m, mpath, f))
            return -1;
    }
    return 0;
}

static const char *const alt_kinds[] = {"", "frame", "fpdu", "terminate", "fin", "rst", "close", "silence"};

/* One alternative: {"frame": {...}, "capture": {...}} (and, at the top
 * of an expect step, within_ms and skip_fpdus besides). */
static int parse_alt(pctx *c, const cJSON *j, const char *path, sc_alt *a, int top)
{
    static const char *const keys_top[] = {"frame", "fpdu", "terminate", "fin", "rst", "close", "silence",
                                           "capture", "within_ms", "skip_fpdus", NULL};
    static const char *const keys_alt[] = {"frame", "fpdu", "terminate", "fin", "rst", "close", "capture", NULL};
    char p[160];
    memset(a, 0, sizeof *a);
    sapp(a->path, sizeof a->path, 0, path);
    if (only_keys(c, j, path, top ? keys_top : keys_alt))
        return -1;
    const cJSON *body = NULL;
    for (int k = SE_FRAME; k <= SE_SILENCE; k++) {
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(j, alt_kinds[k]);
        if (!b)
            continue;
        if (body)
            return fail(c, path, "give one of frame, fpdu, terminate, fin, rst, close%s (or \"any_of\")",
                        top ? ", silence" : "");
        body = b;
        a->kind = (uint8_t)k;
    }
    if (!body)
        return fail(c, path, "say what to expect: frame, fpdu, terminate, fin, rst, close%s%s",
                    top ? ", silence" : "", top ? " or any_of" : "");
    if (a->kind == SE_SILENCE) {
        /* "silence": {"ms": N} is the deadline itself */
        static const char *const skeys[] = {"ms", NULL};
        if (cJSON_IsObject(body) && only_keys(c, body, sub(p, sizeof p, path, "silence"), skeys))
            return -1;
    } else if (parse_alt_body(c, body, sub(p, sizeof p, path, alt_kinds[a->kind]), a)) {
        return -1;
    }
    const cJSON *cap = cJSON_GetObjectItemCaseSensitive(j, "capture");
    if (cap) {
        const char *cp0 = sub(p, sizeof p, path, "capture");
        char cp[160];
        sapp(cp, sizeof cp, 0, cp0);
        if (!cJSON_IsObject(cap))
            return fail(c, cp, "expected an object {\"variable\": \"field\"}, got %s", jtype(cap));
        if (a->kind != SE_FRAME && a->kind != SE_FPDU && a->kind != SE_TERMINATE)
            return fail(c, cp, "only a frame, an FPDU or a TERMINATE has fields to capture");
        for (const cJSON *m = cap->child; m; m = m->next) {
            char vp[200];
            sub(vp, sizeof vp, cp, m->string);
            if (!cJSON_IsString(m))
                return fail(c, vp, "expected a field name, got %s", jtype(m));
            int scope = a->kind == SE_FRAME ? 1 : 2;
            const char *fname = m->valuestring;
            sc_field f = field_by_name(fname, scope);
            if (f == F_NONE)
                return fail(c, vp, "\"%s\" is not a field of %s", fname, scope == 1 ? "a frame" : "an FPDU");
            if (a->ncapt >= SC_MAX_CAPT)
                return fail(c, vp, "at most %d captures", SC_MAX_CAPT);
            if (!valid_var_name(m->string))
                return fail(c, vp, "\"%s\" is not a variable name", m->string);
            snprintf(a->capt[a->ncapt].var, SC_VAR_LEN, "%s", m->string);
            a->capt[a->ncapt++].field = (uint8_t)f;
        }
    }
    return 0;
}

static int parse_expect(pctx *c, const cJSON *j, const char *path, sc_expect *e, uint32_t def_ms)
{
    char p[160];
    memset(e, 0, sizeof *e);
    e->within_ms = def_ms;
    const cJSON *any = cJSON_GetObjectItemCaseSensitive(j, "any_of");
    if (any) {
        static const char *const keys[] = {"any_of", "within_ms", "skip_fpdus", NULL};
        if (only_keys(c, j, path, keys))
            return -1;
        const char *ap0 = sub(p, sizeof p, path, "any_of");
        char ap[160];
        sapp(ap, sizeof ap, 0, ap0);
        if (!cJSON_IsArray(any) || cJSON_GetArraySize(any) < 1)
            return fail(c, ap, "expected a non-empty array of alternatives");
        int i = 0;
        for (const cJSON *a = any->child; a; a = a->next, i++) {
            char ip[160];
            if (i >= SC_MAX_ALT)
                return fail(c, ap, "at most %d alternatives", SC_MAX_ALT);
            if (parse_alt(c, a, idx(ip, sizeof ip, ap, i), &e->alt[i], 0))
                return -1;
        }
        e->nalt = (uint8_t)i;
        e->any_of = 1;
    } else {
        if (parse_alt(c, j, path, &e->alt[0], 1))
            return -1;
        e->nalt = 1;
    }
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(j, "within_ms");
    int64_t v;
    if (w) {
        if (get_int(c, w, sub(p, sizeof p, path, "within_ms"), 0, 3600000, &v))
            return -1;
        e->within_ms = (uint32_t)v;
    }
    if (e->alt[0].kind == SE_SILENCE) {
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "silence");
        const cJSON *ms = cJSON_IsObject(s) ? cJSON_GetObjectItemCaseSensitive(s, "ms") : NULL;
        if (ms && w)
            return fail(c, path, "give the silence's length once (\"silence\": {\"ms\"} or \"within_ms\")");
        if (ms) {
            if (get_int(c, ms, sub(p, sizeof p, path, "silence.ms"), 0, 3600000, &v))
                return -1;
            e->within_ms = (uint32_t)v;
        } else if (!w) {
            return fail(c, path, "how long is the silence? (\"silence\": {\"ms\": N})");
        }
    }
    const cJSON *sk = cJSON_GetObjectItemCaseSensitive(j, "skip_fpdus");
    if (sk) {
        if (!cJSON_IsBool(sk))
            return fail(c, sub(p, sizeof p, path, "skip_fpdus"), "expected true or false, got %s", jtype(sk));
        e->skip_fpdus = (uint8_t)cJSON_IsTrue(sk);
    }
    /* Captures define variables for the steps after this one; with
     * any_of, only the alternative that matched defines its own, so a
     * later use must be defined by every alternative to be safe. */
    if (e->nalt == 1) {
        for (unsigned k = 0; k < e->alt[0].ncapt; k++)
            if (define_var(c, path, e->alt[0].capt[k].var))
                return -1;
    } else {
        for (unsigned k = 0; k < e->alt[0].ncapt; k++) {
            int all = 1;
            for (unsigned a = 1; a < e->nalt; a++) {
                int has = 0;
                for (unsigned q = 0; q < e->alt[a].ncapt; q++)
                    if (!strcmp(e->alt[a].capt[q].var, e->alt[0].capt[k].var))
                        has = 1;
                all &= has;
            }
            if (all && define_var(c, path, e->alt[0].capt[k].var))
                return -1;
        }
    }
    return 0;
}

static int parse_reqs(pctx *c, const cJSON *j, const char *path, char (*req)[SC_ID_LEN], uint8_t *n)
{
    if (!cJSON_IsArray(j))
        return fail(c, path, "expected an array of requirement ids, got %s", jtype(j));
    int i = 0;
    for (const cJSON *e = j->child; e; e = e->next, i++) {
        char ip[160];
        idx(ip, sizeof ip, path, i);
        if (!cJSON_IsString(e))
            return fail(c, ip, "expected a requirement id, got %s", jtype(e));
        if (!sc_known_req(e->valuestring))
            return fail(c, ip, "\"%s\" is not a requirement id of the catalogue (mpa-audit --list-rules)",
                        e->valuestring);
        if (*n >= SC_MAX_REQ)
            return fail(c, ip, "at most %d requirement ids", SC_MAX_REQ);
        snprintf(req[(*n)++], SC_ID_LEN, "%s", e->valuestring);
    }
    return 0;
}

const char *const sc_need_words[] = {"enhanced", "p2p", "markers", "reject", NULL};

static int get_text(pctx *c, const cJSON *j, const char *path, char *out, size_t n)
{
    if (!cJSON_IsString(j))
        return fail(c, path, "expected a string, got %s", jtype(j));
    if (strlen(j->valuestring) >= n)
        return fail(c, path, "longer than %zu characters", n - 1);
    snprintf(out, n, "%s", j->valuestring);
    return 0;
}

/* "test": {"id", "class", "needs", "setup", "problems", "quirks"} */
static int parse_test(pctx *c, const cJSON *j, scenario *s)
{
    static const char *const keys[] = {"id", "class", "needs", "setup", "problems", "quirks", NULL};
    if (!cJSON_IsObject(j))
        return fail(c, "$.test", "expected an object, got %s", jtype(j));
    if (only_keys(c, j, "$.test", keys))
        return -1;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "id");
    if (!id)
        return fail(c, "$.test.id", "a test needs an id (\"startup.key.request-octet-0\")");
    if (get_text(c, id, "$.test.id", s->test_id, sizeof s->test_id))
        return -1;
    for (const char *p = s->test_id; *p; p++)
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '.' || *p == '-' || *p == '_') ||
            (p == s->test_id && !isalnum((unsigned char)*p)))
            return fail(c, "$.test.id", "\"%s\": lower-case letters, digits, '.', '-' and '_' only", s->test_id);
    if (!s->test_id[0])
        return fail(c, "$.test.id", "empty");
    const cJSON *cl = cJSON_GetObjectItemCaseSensitive(j, "class");
    if (!cl || !cJSON_IsString(cl) || (strcmp(cl->valuestring, "M") && strcmp(cl->valuestring, "FYI")))
        return fail(c, "$.test.class", "\"M\" (mandatory) or \"FYI\" (informative)");
    s->mandatory = !strcmp(cl->valuestring, "M");
    const cJSON *nd = cJSON_GetObjectItemCaseSensitive(j, "needs");
    if (nd) {
        if (!cJSON_IsArray(nd))
            return fail(c, "$.test.needs", "expected an array of capabilities, got %s", jtype(nd));
        int i = 0;
        for (const cJSON *e = nd->child; e; e = e->next, i++) {
            char ip[64];
            snprintf(ip, sizeof ip, "$.test.needs[%d]", i);
            int known = 0;
            for (unsigned k = 0; cJSON_IsString(e) && sc_need_words[k]; k++)
                known |= !strcmp(e->valuestring, sc_need_words[k]);
            if (!known)
                return fail(c, ip, "not a capability (enhanced, p2p, markers, reject)");
            if (s->nneeds >= SC_MAX_NEEDS)
                return fail(c, ip, "at most %d", SC_MAX_NEEDS);
            snprintf(s->needs[s->nneeds++], sizeof s->needs[0], "%s", e->valuestring);
        }
    }
    const cJSON *su = cJSON_GetObjectItemCaseSensitive(j, "setup");
    if (su && get_text(c, su, "$.test.setup", s->setup, sizeof s->setup))
        return -1;
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(j, "problems");
    if (pr && get_text(c, pr, "$.test.problems", s->problems, sizeof s->problems))
        return -1;
    const cJSON *qs = cJSON_GetObjectItemCaseSensitive(j, "quirks");
    if (qs) {
        if (!cJSON_IsArray(qs))
            return fail(c, "$.test.quirks", "expected an array of {\"id\", \"text\"}, got %s", jtype(qs));
        int i = 0;
        for (const cJSON *e = qs->child; e; e = e->next, i++) {
            static const char *const qkeys[] = {"id", "text", NULL};
            char ip[64], kp[80];
            snprintf(ip, sizeof ip, "$.test.quirks[%d]", i);
            if (!cJSON_IsObject(e))
                return fail(c, ip, "expected {\"id\", \"text\"}, got %s", jtype(e));
            if (only_keys(c, e, ip, qkeys))
                return -1;
            if (s->nquirks >= SC_MAX_QUIRKS)
                return fail(c, ip, "at most %d quirks", SC_MAX_QUIRKS);
            const cJSON *qi = cJSON_GetObjectItemCaseSensitive(e, "id");
            const cJSON *qt = cJSON_GetObjectItemCaseSensitive(e, "text");
            snprintf(kp, sizeof kp, "%s.id", ip);
            if (!qi || get_text(c, qi, kp, s->quirks[s->nquirks].id, sizeof s->quirks[0].id))
                return c->bad ? -1 : fail(c, kp, "a quirk needs an id");
            snprintf(kp, sizeof kp, "%s.text", ip);
            if (!qt || get_text(c, qt, kp, s->quirks[s->nquirks].text, sizeof s->quirks[0].text))
                return c->bad ? -1 : fail(c, kp, "a quirk needs a text");
            s->nquirks++;
        }
    }
    s->is_test = 1;
    return 0;
}

static int parse_step(pctx *c, const cJSON *j, const char *path, sc_step *st)
{
    static const char *const keys[] = {"open", "send", "expect", "sleep", "close", "abort",
                                       "requirements", "note", NULL};
    static const char *const verbs[] = {"", "open", "send", "expect", "sleep", "close", "abort"};
    char p[160];
    memset(st, 0, sizeof *st);
    sapp(st->path, sizeof st->path, 0, path);
    if (only_keys(c, j, path, keys))
        return -1;
    const cJSON *body = NULL;
    for (int v = SV_OPEN; v <= SV_ABORT; v++) {
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(j, verbs[v]);
        if (!b)
            continue;
        if (body)
            return fail(c, path, "one verb per step (\"%s\" and \"%s\")", verbs[st->verb], verbs[v]);
        body = b;
        st->verb = (uint8_t)v;
    }
    if (!body)
        return fail(c, path, "a step needs a verb: open, send, expect, sleep, close or abort");
    const char *bp0 = sub(p, sizeof p, path, verbs[st->verb]);
    char bp[160];
    sapp(bp, sizeof bp, 0, bp0);
    switch ((sc_verb)st->verb) {
    case SV_OPEN: {
        static const char *const okeys[] = {"tcp", NULL};
        st->open_listen = c->s->device_initiator;
        if (cJSON_IsTrue(body))
            break;
        if (only_keys(c, body, bp, okeys))
            return -1;
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(body, "tcp");
        if (t) {
            if (!cJSON_IsString(t) || (strcmp(t->valuestring, "connect") && strcmp(t->valuestring, "listen")))
                return fail(c, sub(p, sizeof p, bp, "tcp"), "expected \"connect\" or \"listen\"");
            st->open_listen = !strcmp(t->valuestring, "listen");
        }
        break;
    }
    case SV_SEND:
        if (parse_send(c, body, bp, &st->send))
            return -1;
        break;
    case SV_EXPECT:
        if (parse_expect(c, body, bp, &st->expect, c->s->timeout_ms))
            return -1;
        break;
    case SV_SLEEP: {
        static const char *const skeys[] = {"ms", NULL};
        int64_t v;
        if (cJSON_IsNumber(body)) {
            if (get_int(c, body, bp, 0, 3600000, &v))
                return -1;
        } else {
            if (only_keys(c, body, bp, skeys))
                return -1;
            const cJSON *ms = cJSON_GetObjectItemCaseSensitive(body, "ms");
            if (!ms)
                return fail(c, bp, "how long? (\"sleep\": {\"ms\": N})");
            if (get_int(c, ms, sub(p, sizeof p, bp, "ms"), 0, 3600000, &v))
                return -1;
        }
        st->ms = (uint32_t)v;
        break;
    }
    case SV_CLOSE:
    case SV_ABORT: {
        static const char *const none[] = {NULL};
        if (!cJSON_IsTrue(body) && only_keys(c, body, bp, none))
            return -1;
        break;
    }
    }
    const cJSON *rq = cJSON_GetObjectItemCaseSensitive(j, "requirements");
    if (rq && parse_reqs(c, rq, sub(p, sizeof p, path, "requirements"), st->req, &st->nreq))
        return -1;
    const cJSON *nt = cJSON_GetObjectItemCaseSensitive(j, "note");
    if (nt) {
        if (!cJSON_IsString(nt))
            return fail(c, sub(p, sizeof p, path, "note"), "expected a string, got %s", jtype(nt));
        snprintf(st->note, sizeof st->note, "%s", nt->valuestring);
    }
    return 0;
}

/* ---- the scenario ----------------------------------------------------- */

static void free_step(sc_step *st)
{
    bytes_free(&st->send.frame.pd);
    bytes_free(&st->send.fpdu.ulpdu);
    bytes_free(&st->send.fpdu.payload);
    bytes_free(&st->send.raw);
    for (unsigned a = 0; a < SC_MAX_ALT; a++)
        bytes_free(&st->expect.alt[a].pd);
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

/* JSON parse errors: cJSON gives a pointer; turn it into line:column. */
static void where(const char *text, const char *at, unsigned *line, unsigned *col)
{
    *line = 1;
    *col = 1;
    for (const char *q = text; q < at && *q; q++) {
        if (*q == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

int sc_parse(const char *file, const char *text, size_t len, const char *const *defines, unsigned n_defines,
             scenario *out, char *err, size_t errlen)
{
    pctx c;
    memset(&c, 0, sizeof c);
    memset(out, 0, sizeof *out);
    c.file = file;
    c.err = err;
    c.errlen = errlen;
    c.s = out;
    snprintf(out->file, sizeof out->file, "%s", file);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root) {
        unsigned line, col;
        const char *at = end ? end : cJSON_GetErrorPtr();
        where(text, at ? at : text, &line, &col);
        snprintf(err, errlen, "%s: line %u, column %u: not valid JSON", file, line, col);
        return -1;
    }
    static const char *const keys[] = {"name", "description", "device", "timeout_ms", "requirements", "vars",
                                       "fail_on_findings", "expected_findings", "test", "steps", NULL};
    char p[160];
    int rc = -1;
    if (only_keys(&c, root, "$", keys))
        goto out;
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(root, "name");
    if (!nm || !cJSON_IsString(nm) || !*nm->valuestring) {
        fail(&c, "$.name", "a scenario needs a name (a non-empty string)");
        goto out;
    }
    snprintf(out->name, sizeof out->name, "%s", nm->valuestring);
    const cJSON *ds = cJSON_GetObjectItemCaseSensitive(root, "description");
    if (ds) {
        if (!cJSON_IsString(ds)) {
            fail(&c, "$.description", "expected a string, got %s", jtype(ds));
            goto out;
        }
        snprintf(out->description, sizeof out->description, "%s", ds->valuestring);
    }
    const cJSON *dv = cJSON_GetObjectItemCaseSensitive(root, "device");
    if (!dv || !cJSON_IsString(dv) || (strcmp(dv->valuestring, "responder") && strcmp(dv->valuestring, "initiator"))) {
        fail(&c, "$.device", "say which MPA role the device under test plays: \"responder\" (mpa-inject "
                             "connects) or \"initiator\" (mpa-inject listens)");
        goto out;
    }
    out->device_initiator = !strcmp(dv->valuestring, "initiator");
    out->timeout_ms = 3000;
    out->fail_on_findings = 1;
    const cJSON *to = cJSON_GetObjectItemCaseSensitive(root, "timeout_ms");
    int64_t v;
    if (to) {
        if (get_int(&c, to, "$.timeout_ms", 1, 3600000, &v))
            goto out;
        out->timeout_ms = (uint32_t)v;
    }
    const cJSON *ff = cJSON_GetObjectItemCaseSensitive(root, "fail_on_findings");
    if (ff) {
        if (!cJSON_IsBool(ff)) {
            fail(&c, "$.fail_on_findings", "expected true or false, got %s", jtype(ff));
            goto out;
        }
        out->fail_on_findings = (uint8_t)cJSON_IsTrue(ff);
    }
    const cJSON *rq = cJSON_GetObjectItemCaseSensitive(root, "requirements");
    if (rq && parse_reqs(&c, rq, "$.requirements", out->req, &out->nreq))
        goto out;
    const cJSON *ef = cJSON_GetObjectItemCaseSensitive(root, "expected_findings");
    if (ef && parse_reqs(&c, ef, "$.expected_findings", out->expected_findings, &out->nexpected))
        goto out;
    const cJSON *tm = cJSON_GetObjectItemCaseSensitive(root, "test");
    if (tm && parse_test(&c, tm, out))
        goto out;
    /* variables: the script's, then the command line's (which win) */
    const cJSON *vs = cJSON_GetObjectItemCaseSensitive(root, "vars");
    if (vs) {
        if (!cJSON_IsObject(vs)) {
            fail(&c, "$.vars", "expected an object {\"name\": number}, got %s", jtype(vs));
            goto out;
        }
        for (const cJSON *m = vs->child; m; m = m->next) {
            sub(p, sizeof p, "$.vars", m->string);
            if (define_var(&c, p, m->string) || get_int(&c, m, p, 0, INT64_MAX, &v))
                goto out;
            if (out->nvars >= SC_MAX_VARS) {
                fail(&c, p, "too many variables");
                goto out;
            }
            snprintf(out->vars[out->nvars].name, SC_VAR_LEN, "%s", m->string);
            out->vars[out->nvars++].v = v;
        }
    }
    for (unsigned i = 0; i < n_defines; i++) {
        const char *eq = strchr(defines[i], '=');
        char name[SC_VAR_LEN];
        size_t nl = eq ? (size_t)(eq - defines[i]) : 0;
        if (!eq || nl == 0 || nl >= SC_VAR_LEN || str_num(eq + 1, &v)) {
            snprintf(err, errlen, "--set %s: expected NAME=NUMBER", defines[i]);
            goto out_quiet;
        }
        memcpy(name, defines[i], nl);
        name[nl] = 0;
        if (define_var(&c, "--set", name))
            goto out;
        unsigned k;
        for (k = 0; k < out->nvars && strcmp(out->vars[k].name, name); k++)
            ;
        if (k == out->nvars) {
            if (out->nvars >= SC_MAX_VARS) {
                fail(&c, "--set", "too many variables");
                goto out;
            }
            snprintf(out->vars[out->nvars++].name, SC_VAR_LEN, "%s", name);
        }
        out->vars[k].v = v;
    }
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(root, "steps");
    if (!steps || !cJSON_IsArray(steps) || !cJSON_GetArraySize(steps)) {
        fail(&c, "$.steps", "a scenario needs a non-empty array of steps");
        goto out;
    }
    int n = cJSON_GetArraySize(steps);
    if (n > 100000) {
        fail(&c, "$.steps", "%d steps is too many (at most 100000)", n);
        goto out;
    }
    out->steps = calloc((size_t)n, sizeof *out->steps);
    if (!out->steps) {
        fail(&c, "$.steps", "out of memory");
        goto out;
    }
    int i = 0, opened = 0;
    for (const cJSON *e = steps->child; e; e = e->next, i++) {
        idx(p, sizeof p, "$.steps", i);
        out->nsteps = (unsigned)i + 1;
        if (parse_step(&c, e, p, &out->steps[i]))
            goto out;
        sc_step *st = &out->steps[i];
        if (st->verb == SV_OPEN) {
            if (opened) {
                fail(&c, p, "the connection is already open (one connection per scenario)");
                goto out;
            }
            opened = 1;
        } else if (!opened && st->verb != SV_SLEEP) {
            fail(&c, p, "the first steps must open the connection (\"open\": {})");
            goto out;
        }
    }
    if (!opened) {
        fail(&c, "$.steps", "no step opens the connection (\"open\": {})");
        goto out;
    }
    rc = 0;
out:
    if (rc)
        fail(&c, "$", "invalid scenario"); /* keeps the first message */
out_quiet:
    cJSON_Delete(root);
    if (rc)
        sc_free(out);
    return rc;
}

int sc_load(const char *file, const char *const *defines, unsigned n_defines, scenario *out, char *err,
            size_t errlen)
{
    FILE *f = strcmp(file, "-") ? fopen(file, "rb") : stdin;
    if (!f) {
        snprintf(err, errlen, "%s: %s", file, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 14, len = 0;
    char *buf = malloc(cap);
    size_t k;
    const size_t max = 16u << 20;
    while (buf && (k = fread(buf + len, 1, cap - len, f)) > 0) {
        len += k;
        if (len == cap) {
            if (cap >= max) {
                snprintf(err, errlen, "%s: larger than %zu MiB: not a scenario", file, max >> 20);
                free(buf);
                if (f != stdin)
                    fclose(f);
                return -1;
            }
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    int rerr = ferror(f);
    if (f != stdin)
        fclose(f);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory", file);
        return -1;
    }
    if (rerr) {
        snprintf(err, errlen, "%s: read error", file);
        free(buf);
        return -1;
    }
    int rc = sc_parse(file, buf, len, defines, n_defines, out, err, errlen);
    free(buf);
    return rc;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading a scenario's JSON values (see scen_priv.h): each value is
 * checked where it is read, against its type and range, and an error
 * names the file and the JSON path of the value
 * ("bad.json:7:20: $.steps[3].send.frame.rev: 300 is not in 0..255").
 * The first error of each part (a step, a top-level key) is kept: later
 * ones there are consequences.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scen_priv.h"

int sp_fail(pctx *c, const char *path, const char *fmt, ...)
{
    if (c->bad)
        return -1;
    c->bad = 1;
    c->nerr++;
    if (c->nerr > SC_MAX_ERRORS)
        return -1;
    char msg[400], line[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    unsigned ln, col;
    if (sp_where(c->text, c->len, path, &ln, &col) == 0)
        snprintf(line, sizeof line, "%s:%u:%u: %s: %s", c->file, ln, col, path, msg);
    else
        snprintf(line, sizeof line, "%s: %s: %s", c->file, path, msg);
    /* One line per error; a line that does not fit is counted, not cut. */
    size_t used = c->shown ? strlen(c->err) : 0;
    if (used + 1 + strlen(line) + 1 <= c->errlen) {
        snprintf(c->err + used, c->errlen - used, "%s%s", c->shown ? "\n" : "", line);
        c->shown++;
    } else if (!c->shown && c->errlen) {
        snprintf(c->err, c->errlen, "%s", line);
        c->shown++;
    }
    return -1;
}

const char *sp_jtype(const cJSON *j)
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
size_t sp_sapp(char *d, size_t n, size_t at, const char *s)
{
    while (*s && at + 1 < n)
        d[at++] = *s++;
    if (n)
        d[at < n ? at : n - 1] = 0;
    return at;
}

/* path + "." + key into buf */
const char *sp_sub(char *buf, size_t n, const char *path, const char *key)
{
    size_t at = sp_sapp(buf, n, 0, path);
    at = sp_sapp(buf, n, at, ".");
    sp_sapp(buf, n, at, key);
    return buf;
}

const char *sp_idx(char *buf, size_t n, const char *path, int i)
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
    size_t at = sp_sapp(buf, n, 0, path);
    sp_sapp(buf, n, at, num);
    return buf;
}

/* Every member of obj must be in allowed (NULL-terminated). */
int sp_only_keys(pctx *c, const cJSON *obj, const char *path, const char *const *allowed)
{
    if (!cJSON_IsObject(obj))
        return sp_fail(c, path, "expected an object, got %s", sp_jtype(obj));
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
            return sp_fail(c, sp_sub(p, sizeof p, path, m->string), "unknown key \"%s\" (known here: %s)", m->string,
                           list);
        }
        for (const cJSON *d = m->next; d; d = d->next)
            if (!strcmp(d->string, m->string)) {
                char p[160];
                return sp_fail(c, sp_sub(p, sizeof p, path, m->string), "key given twice");
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

int sp_valid_var_name(const char *n)
{
    if (!*n || strlen(n) >= SC_VAR_LEN || !(isalpha((unsigned char)*n) || *n == '_'))
        return 0;
    for (; *n; n++)
        if (!isalnum((unsigned char)*n) && *n != '_')
            return 0;
    return 1;
}

int sp_define_var(pctx *c, const char *path, const char *name)
{
    if (!sp_valid_var_name(name))
        return sp_fail(c, path, "\"%s\" is not a variable name (letters, digits, _; at most %d)", name, SC_VAR_LEN - 1);
    if (var_known(c, name))
        return 0;
    if (c->nvars >= sizeof c->vars / sizeof c->vars[0])
        return sp_fail(c, path, "too many variables (at most %d)", SC_MAX_VARS);
    snprintf(c->vars[c->nvars++], SC_VAR_LEN, "%s", name);
    return 0;
}

/* A whole string "0x...", "0...", "123" as a number up to 2^64 - 1. */
static int str_u64(const char *str, uint64_t *u)
{
    errno = 0;
    char *end;
    unsigned long long v = strtoull(str, &end, 0);
    if (errno || end == str || *end || str[0] == '-')
        return -1;
    *u = v;
    return 0;
}

/* A number from a JSON number or a string "0x...", "123". */
int sp_str_num(const char *str, int64_t *v)
{
    uint64_t u;
    if (str_u64(str, &u) || u > (uint64_t)INT64_MAX)
        return -1;
    *v = (int64_t)u;
    return 0;
}

/* A plain number (no variable) in [min, max]. */
int sp_get_int(pctx *c, const cJSON *j, const char *path, int64_t min, int64_t max, int64_t *out)
{
    int64_t v;
    if (cJSON_IsNumber(j)) {
        double d = j->valuedouble;
        /* 2^63 bounds what converts to int64_t at all (NaN fails both) */
        if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
            return sp_fail(c, path, "%g is not in %" PRId64 "..%" PRId64, d, min, max);
        if (d != (double)(int64_t)d)
            return sp_fail(c, path, "%g is not a whole number", d);
        v = (int64_t)d;
    } else if (cJSON_IsBool(j)) {
        v = cJSON_IsTrue(j);
    } else if (cJSON_IsString(j)) {
        if (sp_str_num(j->valuestring, &v))
            return sp_fail(c, path, "\"%s\" is not a number", j->valuestring);
    } else {
        return sp_fail(c, path, "expected a number, got %s", sp_jtype(j));
    }
    if (v < min || v > max)
        return sp_fail(c, path, "%lld is not in %lld..%lld", (long long)v, (long long)min, (long long)max);
    *out = v;
    return 0;
}

/* A value to send: number, "$var", or a name of the field's table. */
int sp_get_val(pctx *c, const cJSON *j, const char *path, int64_t min, int64_t max, const name_val *names,
                      sc_val *out)
{
    memset(out, 0, sizeof *out);
    if (cJSON_IsString(j) && j->valuestring[0] == '$') {
        const char *n = j->valuestring + 1;
        if (!var_known(c, n)) {
            if (c->lost_vars) { /* an earlier step with an error may define it: not said */
                c->bad = 1;
                return -1;
            }
            return sp_fail(c, path, "variable $%s is not defined before this step (\"vars\", --set, or a capture)", n);
        }
        out->set = out->is_var = 1;
        snprintf(out->var, sizeof out->var, "%s", n);
        return 0;
    }
    if (cJSON_IsString(j) && names) {
        int64_t v;
        if (sp_str_num(j->valuestring, &v)) {
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
            return sp_fail(c, path, "\"%s\" is not one of: %s (or a number)", j->valuestring, list);
        }
    }
    if (sp_get_int(c, j, path, min, max, &out->v))
        return -1;
    out->set = 1;
    return 0;
}

int sp_field_val(pctx *c, const cJSON *obj, const char *path, const char *key, int64_t min, int64_t max,
                        const name_val *names, sc_val *out)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    memset(out, 0, sizeof *out);
    if (!j)
        return 0;
    char p[160];
    return sp_get_val(c, j, sp_sub(p, sizeof p, path, key), min, max, names, out);
}

/* A 64-bit offset (TO): as sp_field_val over 0..2^63-1, and also a
 * string "0x..." up to 2^64 - 1, kept as its bit pattern, so that a
 * scenario can send a TO that wraps (RFC 5041 7.1). */
int sp_field_u64(pctx *c, const cJSON *obj, const char *path, const char *key, sc_val *out)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    uint64_t u;
    if (j && cJSON_IsString(j) && j->valuestring[0] != '$') {
        if (!str_u64(j->valuestring, &u) && u > (uint64_t)INT64_MAX) {
            memset(out, 0, sizeof *out);
            out->set = 1;
            out->v = (int64_t)u;
            return 0;
        }
    }
    return sp_field_val(c, obj, path, key, 0, INT64_MAX, NULL, out);
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

/* Octets: "text", {"text": ...}, {"hex": "4d 50 ..."}, {"len": N, "fill": B}. */
int sp_get_bytes(pctx *c, const cJSON *j, const char *path, sc_bytes *out)
{
    memset(out, 0, sizeof *out);
    char p[160];
    if (cJSON_IsString(j)) {
        out->len = strlen(j->valuestring);
        out->p = malloc(out->len + 1);
        if (!out->p)
            return sp_fail(c, path, "out of memory");
        memcpy(out->p, j->valuestring, out->len);
        return 0;
    }
    static const char *const keys[] = {"text", "hex", "len", "fill", NULL};
    if (sp_only_keys(c, j, path, keys))
        return -1;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "text");
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(j, "hex");
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(j, "len");
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, "fill");
    if (!!t + !!h + !!l != 1)
        return sp_fail(c, path, "give exactly one of \"text\", \"hex\", \"len\"");
    if (f && !l)
        return sp_fail(c, sp_sub(p, sizeof p, path, "fill"), "\"fill\" goes with \"len\"");
    if (t) {
        if (!cJSON_IsString(t))
            return sp_fail(c, sp_sub(p, sizeof p, path, "text"), "expected a string, got %s", sp_jtype(t));
        return sp_get_bytes(c, t, sp_sub(p, sizeof p, path, "text"), out);
    }
    if (h) {
        if (!cJSON_IsString(h))
            return sp_fail(c, sp_sub(p, sizeof p, path, "hex"), "expected a string, got %s", sp_jtype(h));
        const char *s = h->valuestring;
        size_t n = strlen(s);
        out->p = malloc(n / 2 + 1);
        if (!out->p)
            return sp_fail(c, path, "out of memory");
        int hi = -1;
        for (size_t i = 0; i < n; i++) {
            unsigned char ch = (unsigned char)s[i];
            if (isspace(ch) || ch == ':' || ch == '-')
                continue;
            int v = hexval(ch);
            if (v < 0) {
                free(out->p);
                out->p = NULL;
                return sp_fail(c, sp_sub(p, sizeof p, path, "hex"), "'%c' at character %zu is not a hex digit", ch, i);
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
            return sp_fail(c, sp_sub(p, sizeof p, path, "hex"), "odd number of hex digits");
        }
        return 0;
    }
    int64_t len, fill = 0;
    if (sp_get_int(c, l, sp_sub(p, sizeof p, path, "len"), 0, SC_BYTES_MAX, &len))
        return -1;
    if (f && sp_get_int(c, f, sp_sub(p, sizeof p, path, "fill"), 0, 255, &fill))
        return -1;
    out->p = malloc((size_t)len + 1);
    if (!out->p)
        return sp_fail(c, path, "out of memory");
    memset(out->p, (int)fill, (size_t)len);
    out->len = (size_t)len;
    return 0;
}


int sp_get_text(pctx *c, const cJSON *j, const char *path, char *out, size_t n)
{
    if (!cJSON_IsString(j))
        return sp_fail(c, path, "expected a string, got %s", sp_jtype(j));
    if (strlen(j->valuestring) >= n)
        return sp_fail(c, path, "longer than %zu characters", n - 1);
    snprintf(out, n, "%s", j->valuestring);
    return 0;
}

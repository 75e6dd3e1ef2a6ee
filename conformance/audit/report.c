/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-audit's reports (report.h).  The JSON schema is a contract with
 * the tools that read it (docs/mpa-audit-json.md): fields are only ever
 * added.  Requirement ids come from the one table, include/mpa/findings.def.
 */
#include "report.h"

#include <cJSON.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpa/ddp.h"
#include "mpa/describe.h"

/* Connections complete out of order; the report lists them by id,
 * holding at most this many that completed ahead of an earlier one, and
 * at most this much of their text (256 reports of thousands of findings
 * each held hundreds of MiB). */
#define REORDER_MAX REPORT_REORDER_MAX
#define REORDER_BYTES REPORT_REORDER_BYTES

typedef struct held {
    unsigned id;
    char *text;
    size_t len;
} held;

struct report {
    FILE *f;
    report_fmt fmt;
    int timing;
    audit *a;
    unsigned nconn;        /* connections written */
    unsigned next_id;      /* the id due next */
    held pend[REORDER_MAX + 1];
    unsigned npend;
    size_t pend_bytes;
    const char *const *inputs;
    unsigned ninputs;
    int sharded;
    report_shard_info shard;
};

static const char *const dir_name[2] = {"client->server", "server->client"};

report *report_new(FILE *out, report_fmt fmt, int timing)
{
    report *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->f = out;
    r->fmt = fmt;
    r->timing = timing;
    r->next_id = 1;
    return r;
}

void report_free(report *r) { free(r); }

void report_set_shard(report *r, const report_shard_info *s)
{
    r->sharded = 1;
    r->shard = *s;
}

/* The sender of dir, by role when known. */
static const char *sender(const audit_conn *c, int dir)
{
    if (dir < 0 || dir > 1)
        return "-";
    mpa_role role = c->d[dir].role;
    if (role != MPA_ROLE_UNKNOWN)
        return mpa_role_str(role);
    return dir == 0 ? "client" : "server";
}

static const char *end_str(int end) { return end == 1 ? "FIN" : end == 2 ? "RST" : NULL; }

/* ---- JSON ------------------------------------------------------------ */

/* The summary and a shard's header are cJSON trees (one a run). */
static void jnum(cJSON *o, const char *k, double v) { cJSON_AddNumberToObject(o, k, v); }
static void jstr(cJSON *o, const char *k, const char *v) { cJSON_AddStringToObject(o, k, v ? v : ""); }

/* A capture time (ns since 1970) in RFC 3339, UTC, to the microsecond
 * (2024-05-01T12:00:00.123456Z), into buf[48]; 0 when there is none. */
static int time_text(char *buf, uint64_t ns)
{
    struct tm tm;
    time_t t = (time_t)(ns / 1000000000u);
    if (ns == AUDIT_NO_TS || !gmtime_r(&t, &tm) || !strftime(buf, 24, "%Y-%m-%dT%H:%M:%S", &tm))
        return 0;
    snprintf(buf + strlen(buf), 48 - strlen(buf), ".%06uZ", (unsigned)(ns % 1000000000u / 1000u));
    return 1;
}

/*
 * A cJSON tree as text, laid out as cJSON_Print (formatted) and
 * cJSON_PrintUnformatted lay it out, octet for octet (the goldens and
 * mpa-audit merge hold the two to each other), without their cost: cJSON
 * writes every number with sprintf and reads the non-integral ones back
 * with sscanf; the report is most of its numbers.
 */
typedef struct jbuf {
    char *p;
    size_t n, cap;
    int fail;
} jbuf;

/* Room for k more octets (NULL when there is no memory): the buffer
 * grows seldom, so that is kept out of the way. */
static char *jb_grow(jbuf *b, size_t k)
{
    size_t nc = b->cap ? b->cap : 4096;
    while (nc - b->n < k)
        nc *= 2;
    char *np = realloc(b->p, nc);
    if (!np) {
        b->fail = 1;
        return NULL;
    }
    b->p = np;
    b->cap = nc;
    return b->p + b->n;
}

static inline char *jb_room(jbuf *b, size_t k) { return b->cap - b->n >= k ? b->p + b->n : jb_grow(b, k); }

static inline void jb_put(jbuf *b, const char *s, size_t k)
{
    char *d = jb_room(b, k);
    if (d) {
        memcpy(d, s, k);
        b->n += k;
    }
}

static inline void jb_ch(jbuf *b, char c)
{
    char *d = jb_room(b, 1);
    if (d) {
        *d = c;
        b->n++;
    }
}

static void jb_tabs(jbuf *b, unsigned n)
{
    char *d = jb_room(b, n);
    if (d) {
        memset(d, '\t', n);
        b->n += n;
    }
}

/* A string, escaped as cJSON escapes it: room for the longest escape
 * of every octet is made once, then the octets are written. */
static void jb_str(jbuf *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t len = strlen((const char *)p);
    char *d = jb_room(b, 6 * len + 2), *d0 = d;
    if (!d)
        return;
    *d++ = '"';
    for (; *p; p++) {
        unsigned char ch = *p;
        if (ch > 31 && ch != '"' && ch != '\\') {
            *d++ = (char)ch;
            continue;
        }
        *d++ = '\\';
        switch (ch) {
        case '"': case '\\': *d++ = (char)ch; break;
        case '\b': *d++ = 'b'; break;
        case '\f': *d++ = 'f'; break;
        case '\n': *d++ = 'n'; break;
        case '\r': *d++ = 'r'; break;
        case '\t': *d++ = 't'; break;
        default:
            memcpy(d, "u00", 3);
            d[3] = hex[ch >> 4];
            d[4] = hex[ch & 15];
            d += 5;
        }
    }
    *d++ = '"';
    b->n += (size_t)(d - d0);
}

/* A number as cJSON writes one whose valueint it set from d (saturated
 * to the range of int, as cJSON does). */
static void jb_numd(jbuf *b, double d)
{
    char t[32];
    if (isnan(d) || isinf(d)) {
        jb_put(b, "null", 4);
        return;
    }
    int vi = d >= (double)INT_MAX ? INT_MAX : d <= (double)INT_MIN ? INT_MIN : (int)d;
    if (d == (double)vi) {
        /* an integer (what cJSON writes with %d) */
        char *e = t + sizeof t, *q = e;
        long long v = vi;
        unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
        do
            *--q = (char)('0' + u % 10);
        while (u /= 10);
        if (v < 0)
            *--q = '-';
        jb_put(b, q, (size_t)(e - q));
    } else {
        /* 15 significant digits when they give the number back, else 17 */
        int k = snprintf(t, sizeof t, "%1.15g", d);
        double back = strtod(t, NULL);
        double m = fabs(back) > fabs(d) ? fabs(back) : fabs(d);
        if (!(fabs(back - d) <= m * DBL_EPSILON))
            k = snprintf(t, sizeof t, "%1.17g", d);
        jb_put(b, t, (size_t)k);
    }
}

static void jb_value(jbuf *b, const cJSON *x, int fmt, unsigned depth)
{
    switch (x->type & 0xFF) {
    case cJSON_False:
        jb_put(b, "false", 5);
        break;
    case cJSON_True:
        jb_put(b, "true", 4);
        break;
    case cJSON_NULL:
        jb_put(b, "null", 4);
        break;
    case cJSON_Number:
        jb_numd(b, x->valuedouble);
        break;
    case cJSON_String:
        jb_str(b, x->valuestring);
        break;
    case cJSON_Array:
        jb_ch(b, '[');
        for (const cJSON *e = x->child; e; e = e->next) {
            jb_value(b, e, fmt, depth + 1);
            if (e->next)
                jb_put(b, ", ", fmt ? 2 : 1);
        }
        jb_ch(b, ']');
        break;
    case cJSON_Object:
        jb_put(b, "{\n", fmt ? 2 : 1);
        for (const cJSON *e = x->child; e; e = e->next) {
            if (fmt)
                jb_tabs(b, depth + 1);
            jb_str(b, e->string);
            jb_put(b, ":\t", fmt ? 2 : 1);
            jb_value(b, e, fmt, depth + 1);
            if (e->next)
                jb_ch(b, ',');
            if (fmt)
                jb_ch(b, '\n');
        }
        if (fmt)
            jb_tabs(b, depth);
        jb_ch(b, '}');
        break;
    default:
        b->fail = 1; /* (the report makes no other kind) */
    }
}

/* o as text (NULL when out of memory); o is deleted. */
static char *json_text(cJSON *o, int formatted)
{
    jbuf b = {NULL, 0, 0, 0};
    if (o)
        jb_value(&b, o, formatted, 0);
    jb_ch(&b, 0);
    cJSON_Delete(o);
    if (b.fail || !o) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

static void put_json(report *r, cJSON *o, int formatted)
{
    char *s = json_text(o, formatted);
    if (s) {
        fputs(s, r->f);
        free(s);
    }
}


/*
 * Findings and connections (thousands of each) are written as they are
 * walked, without a tree: the same octets as a cJSON tree printed by
 * jb_value (a tree of every connection cost more than the audit of its
 * FPDUs).  w->depth is the depth of the object or array being filled;
 * w->first has bit d set while the one at depth d has no member yet.
 */
typedef struct jw {
    jbuf b;
    int fmt;
    unsigned depth;
    uint64_t first, arr;
} jw;

/* Before a member named k of the object, or (k NULL) an array element. */
static void jw_key(jw *w, const char *k)
{
    uint64_t bit = 1ull << w->depth;
    if (!(w->first & bit))
        jb_put(&w->b, (w->arr & bit) ? ", " : ",\n", w->fmt ? 2 : 1);
    w->first &= ~bit;
    if (k) {
        if (w->fmt)
            jb_tabs(&w->b, w->depth);
        jb_str(&w->b, k);
        jb_put(&w->b, ":\t", w->fmt ? 2 : 1);
    }
}

static void jw_open(jw *w, const char *k, int array)
{
    if (w->depth)
        jw_key(w, k);
    if (w->depth >= 63) {
        w->b.fail = 1; /* (the report nests a few levels) */
        return;
    }
    jb_put(&w->b, array ? "[" : "{\n", array ? 1 : w->fmt ? 2 : 1);
    w->depth++;
    uint64_t bit = 1ull << w->depth;
    w->first |= bit;
    w->arr = array ? w->arr | bit : w->arr & ~bit;
}

static void jw_close(jw *w)
{
    uint64_t bit = 1ull << w->depth;
    int array = (w->arr & bit) != 0;
    if (!array && w->fmt && !(w->first & bit))
        jb_ch(&w->b, '\n');
    w->depth--;
    if (!array && w->fmt)
        jb_tabs(&w->b, w->depth);
    jb_ch(&w->b, array ? ']' : '}');
}

static void jw_num(jw *w, const char *k, double v)
{
    jw_key(w, k);
    jb_numd(&w->b, v);
}

static void jw_str(jw *w, const char *k, const char *v)
{
    jw_key(w, k);
    jb_str(&w->b, v);
}

static void jw_lit(jw *w, const char *k, const char *lit)
{
    jw_key(w, k);
    jb_put(&w->b, lit, strlen(lit));
}

static void jw_null(jw *w, const char *k) { jw_lit(w, k, "null"); }
static void jw_bool(jw *w, const char *k, int v) { jw_lit(w, k, v ? "true" : "false"); }

static void jw_time(jw *w, const char *k, uint64_t ns)
{
    char buf[48];
    if (time_text(buf, ns))
        jw_str(w, k, buf);
    else
        jw_null(w, k);
}

/* One end of a connection as src_ or dest_ (ip, port); null without one. */
static void jw_end(jw *w, const char *ipk, const char *portk, const audit_dir *d)
{
    if (d) {
        jw_str(w, ipk, d->ip);
        jw_num(w, portk, d->port);
    } else {
        jw_null(w, ipk);
        jw_null(w, portk);
    }
}

/* The side of c in MPA role role, or NULL when not (yet) known. */
static const audit_dir *in_role(const audit_conn *c, mpa_role role)
{
    for (int dir = 0; c && dir < 2; dir++)
        if (c->d[dir].role == role)
            return &c->d[dir];
    return NULL;
}

/* The 5-tuple of a frame from direction dir (-1: from the client) of c,
 * in the field names of Suricata's EVE JSON; nulls when c is NULL. */
static void jw_flow(jw *w, const audit_conn *c, int dir)
{
    int from = dir == 1 ? 1 : 0;
    jw_end(w, "src_ip", "src_port", c ? &c->d[from] : NULL);
    jw_end(w, "dest_ip", "dest_port", c ? &c->d[!from] : NULL);
    if (c)
        jw_str(w, "proto", "TCP");
    else
        jw_null(w, "proto");
}

/* A finding's members (into the object being filled). */
static void finding_members(jw *w, const report *r, const audit_conn *c, const audit_finding *f)
{
    jw_time(w, "timestamp", f->ts);
    jw_str(w, "id", f->rule->id);
    jw_str(w, "severity", mpa_severity_str(f->rule->severity));
    if (f->frame)
        jw_num(w, "frame", (double)f->frame);
    else
        jw_null(w, "frame");
    if (f->dir == 0 || f->dir == 1)
        jw_str(w, "direction", dir_name[f->dir]);
    else
        jw_null(w, "direction");
    if (f->off != UINT64_MAX)
        jw_num(w, "stream_offset", (double)f->off);
    else
        jw_null(w, "stream_offset");
    /* One fixed text per id (so findings group by it); the instance
     * values are the detail. */
    jw_str(w, "message", f->rule->text);
    jw_str(w, "detail", f->msg);
    if (c && (f->dir == 0 || f->dir == 1))
        jw_str(w, "from", sender(c, f->dir));
    jw_str(w, "clause", f->rule->clause);
    jw_str(w, "file", audit_file_name(r->a, f->file));
    jw_flow(w, c, f->dir);
    if (r->sharded && f->shard_local)
        jw_bool(w, "shard_local", 1);
}

static void frame_members(jw *w, const report *r, const audit_dir *d, int dir)
{
    const audit_startup *s = &d->startup;
    const mpa_frame *f = &s->fr;
    jw_str(w, "kind", mpa_key_kind_name(f->kind));
    static const char hex[] = "0123456789abcdef";
    char key[3 * MPA_KEY_LEN + 1];
    size_t klen = f->kind == MPA_KEY_STARTKEY ? 15 : MPA_KEY_LEN;
    for (size_t i = 0; i < klen; i++) {
        key[3 * i] = hex[f->key[i] >> 4];
        key[3 * i + 1] = hex[f->key[i] & 15];
        key[3 * i + 2] = ' ';
    }
    key[3 * klen - 1] = 0;
    jw_str(w, "key", key);
    jw_str(w, "direction", dir_name[dir]);
    jw_num(w, "frame", (double)s->frame);
    jw_str(w, "file", audit_file_name(r->a, s->file));
    jw_num(w, "stream_offset", (double)s->off);
    jw_num(w, "m", f->m);
    jw_num(w, "c", f->c);
    jw_num(w, "r", f->r);
    jw_num(w, "s", f->s);
    jw_num(w, "res", f->res);
    jw_num(w, "rev", f->rev);
    jw_num(w, "pd_length", f->pd_len);
    if (f->has_enh) {
        jw_open(w, "enhanced", 0);
        jw_num(w, "ird", f->enh.ird);
        jw_num(w, "ord", f->enh.ord);
        jw_num(w, "a", f->enh.a);
        jw_num(w, "b", f->enh.b);
        jw_num(w, "c", f->enh.c);
        jw_num(w, "d", f->enh.d);
        jw_open(w, "rtr_offered", 1);
        if (f->enh.b)
            jw_str(w, NULL, "send");
        if (f->enh.c)
            jw_str(w, NULL, "write");
        if (f->enh.d)
            jw_str(w, NULL, "read");
        jw_close(w);
        jw_close(w);
    }
    char sum[256];
    mpa_frame_summary(f, sum, sizeof sum);
    jw_str(w, "summary", sum);
}

static void dir_members(jw *w, const audit_dir *d, int dir)
{
    jw_str(w, "direction", dir_name[dir]);
    jw_str(w, "from", d->addr);
    jw_str(w, "role", mpa_role_str(d->role));
    jw_str(w, "mode_at_end", mpa_dir_mode_str(d->mode));
    if (d->mss)
        jw_num(w, "mss", d->mss);
    jw_num(w, "tcp_segments", (double)d->segments);
    jw_num(w, "tcp_payload_octets", (double)d->payload_octets);
    jw_num(w, "fpdus", (double)d->st.fpdus);
    jw_num(w, "ulpdu_octets", (double)d->st.ulpdu_octets);
    jw_num(w, "markers_seen", (double)d->st.markers);
    jw_num(w, "crc_bad", (double)d->st.crc_bad);
    jw_num(w, "segments_in_fpdu_mode", (double)d->st.segments);
    jw_num(w, "segments_aligned", (double)d->st.segments_aligned);
    if (d->st.segments)
        jw_num(w, "alignment", (double)d->st.segments_aligned / (double)d->st.segments);
    else
        jw_null(w, "alignment");
    jw_num(w, "not_mpa_octets", (double)d->st.not_mpa_octets);
    jw_num(w, "holes", (double)d->holes);
    jw_num(w, "hole_octets", (double)d->hole_octets);
    jw_num(w, "resyncs", (double)d->st.resyncs);
    jw_num(w, "fpdus_over_mulpdu", (double)d->st.mulpdu_over);
    jw_num(w, "largest_over_mulpdu", (double)d->st.mulpdu_largest);
    jw_num(w, "retransmitted_octets", (double)d->retrans_octets);
    jw_num(w, "overlap_conflicts", (double)d->conflicts);
    jw_num(w, "out_of_window_segments", (double)d->out_of_window);
    jw_num(w, "cut_packets", (double)d->cut_packets);
    if (end_str(d->end)) {
        jw_str(w, "end", end_str(d->end));
        jw_num(w, "end_frame", (double)d->end_frame);
    } else {
        jw_null(w, "end");
    }
}

static void term_members(jw *w, const audit_conn *c, const audit_term *t)
{
    jw_str(w, "from", sender(c, t->dir));
    jw_num(w, "layer", t->layer);
    jw_num(w, "etype", t->etype);
    jw_num(w, "code", t->code);
    char name[160];
    snprintf(name, sizeof name, "%s/%s %s", mpa_term_layer_name(t->layer), mpa_term_etype_name(t->layer, t->etype),
             mpa_term_code_name(t->layer, t->etype, t->code));
    jw_str(w, "name", name);
    if (t->quirk == MPA_TERM_LE_BITFIELD) {
        /* what the sender meant, read as Linux siw writes the field */
        jw_open(w, "siw_reading", 0);
        jw_num(w, "layer", t->read.layer);
        jw_num(w, "etype", t->read.etype);
        jw_num(w, "code", t->read.code);
        snprintf(name, sizeof name, "%s/%s %s", mpa_term_layer_name(t->read.layer),
                 mpa_term_etype_name(t->read.layer, t->read.etype),
                 mpa_term_code_name(t->read.layer, t->read.etype, t->read.code));
        jw_str(w, "name", name);
        jw_close(w);
    }
    jw_str(w, "direction", dir_name[t->dir]);
    jw_num(w, "frame", (double)t->frame);
    jw_num(w, "stream_offset", (double)t->off);
}

/* A connection's members (into the object being filled). */
static void conn_members(jw *w, const report *r, const audit_conn *c, int with_findings)
{
    jw_num(w, "id", c->id);
    jw_str(w, "client", c->d[0].addr);
    jw_str(w, "server", c->d[1].addr);
    if (c->nvlan) {
        jw_open(w, "vlan", 1);
        for (unsigned i = 0; i < c->nvlan; i++)
            jw_num(w, NULL, c->vlan[i]);
        jw_close(w);
    }
    jw_str(w, "file", audit_file_name(r->a, c->first_file));
    jw_num(w, "first_frame", (double)c->first_frame);
    jw_num(w, "last_frame", (double)c->last_frame);
    jw_num(w, "duration_s", (double)(c->last_ts - c->first_ts) / 1e9);
    jw_time(w, "first_timestamp", c->first_ts);
    jw_time(w, "last_timestamp", c->last_ts);
    jw_bool(w, "syn_seen", c->syn_seen);
    jw_bool(w, "midstream", c->midstream);
    int init = c->d[0].role == MPA_ROLE_INITIATOR ? 0 : c->d[1].role == MPA_ROLE_INITIATOR ? 1 : -1;
    int resp = c->d[0].role == MPA_ROLE_RESPONDER ? 0 : c->d[1].role == MPA_ROLE_RESPONDER ? 1 : -1;
    if (init >= 0)
        jw_str(w, "initiator", c->d[init].addr);
    else
        jw_null(w, "initiator");
    if (resp >= 0)
        jw_str(w, "responder", c->d[resp].addr);
    else
        jw_null(w, "responder");

    jw_open(w, "startup", 0);
    const char *used = NULL;
    for (int dir = 0; dir < 2; dir++) {
        const audit_dir *d = &c->d[dir];
        if (!d->startup.have)
            continue;
        const char *name = d->startup.fr.kind == MPA_KEY_REQ ? "request"
                           : d->startup.fr.kind == MPA_KEY_REP ? "reply"
                                                                : (dir == 0 ? "client_frame" : "server_frame");
        if (used && strcmp(used, name) == 0)
            name = dir == 0 ? "client_frame" : "server_frame";
        used = name;
        jw_open(w, name, 0);
        frame_members(w, r, d, dir);
        jw_close(w);
    }
    jw_close(w);

    /* What was negotiated, as the octets show it. */
    jw_open(w, "negotiated", 0);
    const audit_dir *q = init >= 0 ? &c->d[init] : NULL, *p = resp >= 0 ? &c->d[resp] : NULL;
    if (q && p && q->startup.have && p->startup.have) {
        jw_num(w, "rev_request", q->startup.fr.rev);
        jw_num(w, "rev_reply", p->startup.fr.rev);
        jw_bool(w, "rejected", p->startup.fr.r);
        jw_bool(w, "enhanced", q->startup.fr.has_enh && p->startup.fr.has_enh);
        jw_bool(w, "crc", q->startup.fr.c || p->startup.fr.c);
    }
    for (int k = 0; k < 2; k++) {
        jw_open(w, k == 0 ? "markers" : "crc_in_force", 0);
        for (int dir = 0; dir < 2; dir++) {
            if (c->d[dir].fpdu_mode)
                jw_bool(w, dir_name[dir], k == 0 ? c->d[dir].markers : c->d[dir].crc);
            else
                jw_null(w, dir_name[dir]);
        }
        jw_close(w);
    }
    for (int dir = 0; dir < 2; dir++)
        if (c->d[dir].rtr != MPA_RTR_NONE) {
            jw_open(w, "rtr_sent", 0);
            jw_str(w, "type", mpa_rtr_str(c->d[dir].rtr));
            jw_str(w, "from", sender(c, dir));
            jw_num(w, "frame", (double)c->d[dir].rtr_frame);
            jw_bool(w, "negotiated", c->d[dir].rtr_negotiated);
            jw_close(w);
            break;
        }
    jw_close(w);

    jw_open(w, "directions", 1);
    for (int dir = 0; dir < 2; dir++) {
        jw_open(w, NULL, 0);
        dir_members(w, &c->d[dir], dir);
        jw_close(w);
    }
    jw_close(w);

    jw_open(w, "terminates", 1);
    for (size_t i = 0; i < c->nterms; i++) {
        jw_open(w, NULL, 0);
        term_members(w, c, &c->terms[i]);
        jw_close(w);
    }
    jw_close(w);
    jw_str(w, "closed", c->closed);
    jw_open(w, "counts", 0);
    jw_num(w, "error", (double)c->severity[MPA_SEV_ERROR]);
    jw_num(w, "warning", (double)c->severity[MPA_SEV_WARNING]);
    jw_num(w, "note", (double)c->severity[MPA_SEV_NOTE]);
    jw_close(w);
    jw_num(w, "findings_suppressed", (double)c->suppressed);
    if (with_findings) {
        jw_open(w, "findings", 1);
        for (size_t i = 0; i < c->nfindings; i++) {
            jw_open(w, NULL, 0);
            finding_members(w, r, c, &c->findings[i]);
            jw_close(w);
        }
        jw_close(w);
    }
    if (r->sharded) {
        jw_open(w, "shard_order", 1);
        jw_num(w, NULL, (double)c->mpa_packet);
        jw_num(w, NULL, (double)c->last_packet);
        jw_num(w, NULL, (double)c->done_packet);
        jw_num(w, NULL, c->done_phase);
        jw_num(w, NULL, (double)c->done_seq);
        jw_close(w);
    }
}

static void jw_begin(jw *w, int formatted)
{
    *w = (jw){{NULL, 0, 0, 0}, formatted, 0, 0, 0};
    jw_open(w, NULL, 0);
}

/* The object ended, as text (NULL when out of memory). */
static char *jw_text(jw *w)
{
    jw_close(w);
    jb_ch(&w->b, 0);
    if (w->b.fail) {
        free(w->b.p);
        return NULL;
    }
    return w->b.p;
}

static void jw_put(report *r, jw *w)
{
    char *s = jw_text(w);
    if (s) {
        fputs(s, r->f);
        free(s);
    }
}

/* ---- text ------------------------------------------------------------- */

static void text_frame(report *r, const audit_conn *c, int dir)
{
    const audit_dir *d = &c->d[dir];
    if (!d->startup.have)
        return;
    char sum[256];
    mpa_frame_summary(&d->startup.fr, sum, sizeof sum);
    fprintf(r->f, "  %-9s %s  (frame %" PRIu64 ", from %s)\n", dir == 0 ? "client:" : "server:", sum, d->startup.frame,
            sender(c, dir));
}

static void text_conn(report *r, const audit_conn *c)
{
    FILE *f = r->f;
    fprintf(f, "Connection %u  %s -> %s", c->id, c->d[0].addr, c->d[1].addr);
    for (unsigned i = 0; i < c->nvlan; i++)
        fprintf(f, "%s%u", i ? "." : "  VLAN ", c->vlan[i]);
    fprintf(f, "  frames %" PRIu64 "-%" PRIu64 "%s%s\n", c->first_frame, c->last_frame,
            audit_nfiles(r->a) > 1 ? " of " : "", audit_nfiles(r->a) > 1 ? audit_file_name(r->a, c->first_file) : "");
    if (c->midstream)
        fprintf(f, "  capture starts mid-stream: no startup frames\n");
    int init = c->d[0].role == MPA_ROLE_INITIATOR ? 0 : c->d[1].role == MPA_ROLE_INITIATOR ? 1 : -1;
    if (init >= 0)
        fprintf(f, "  Initiator %s, Responder %s\n", c->d[init].addr, c->d[!init].addr);
    text_frame(r, c, 0);
    text_frame(r, c, 1);
    for (int dir = 0; dir < 2; dir++) {
        const audit_dir *d = &c->d[dir];
        fprintf(f, "  %s (%s): ", dir_name[dir], sender(c, dir));
        if (d->fpdu_mode)
            fprintf(f, "markers %s, CRC %s; ", d->markers ? "on" : "off", d->crc ? "on" : "off");
        else
            fprintf(f, "never in FPDU mode; ");
        fprintf(f, "%" PRIu64 " FPDUs, %" PRIu64 " ULPDU octets of %" PRIu64 " TCP payload octets", d->st.fpdus,
                d->st.ulpdu_octets, d->payload_octets);
        if (d->st.segments)
            fprintf(f, "; %.1f%% of %" PRIu64 " segments start with an FPDU",
                    100.0 * (double)d->st.segments_aligned / (double)d->st.segments, d->st.segments);
        fputc('\n', f);
        if (d->st.not_mpa_octets || d->hole_octets || d->retrans_octets || d->st.crc_bad)
            fprintf(f, "    not decoded %" PRIu64 ", lost in capture %" PRIu64 " (%" PRIu64 " holes, %" PRIu64
                       " resyncs), retransmitted %" PRIu64 ", bad CRCs %" PRIu64 "\n",
                    d->st.not_mpa_octets, d->hole_octets, d->holes, d->st.resyncs, d->retrans_octets, d->st.crc_bad);
    }
    for (int dir = 0; dir < 2; dir++)
        if (c->d[dir].rtr != MPA_RTR_NONE) {
            fprintf(f, "  RTR sent by %s: %s (frame %" PRIu64 ")%s\n", sender(c, dir), mpa_rtr_str(c->d[dir].rtr),
                    c->d[dir].rtr_frame, c->d[dir].rtr_negotiated ? "" : ", not as negotiated");
            break;
        }
    for (size_t i = 0; i < c->nterms; i++) {
        const audit_term *t = &c->terms[i];
        fprintf(f, "  TERMINATE from %s (frame %" PRIu64 "): %s/%s code %u %s\n", sender(c, t->dir), t->frame,
                mpa_term_layer_name(t->layer), mpa_term_etype_name(t->layer, t->etype), t->code,
                mpa_term_code_name(t->layer, t->etype, t->code));
        if (t->quirk == MPA_TERM_LE_BITFIELD)
            fprintf(f, "    read as siw writes it: %s/%s code %u %s\n", mpa_term_layer_name(t->read.layer),
                    mpa_term_etype_name(t->read.layer, t->read.etype), t->read.code,
                    mpa_term_code_name(t->read.layer, t->read.etype, t->read.code));
    }
    fprintf(f, "  ended: ");
    for (int dir = 0; dir < 2; dir++) {
        const audit_dir *d = &c->d[dir];
        if (end_str(d->end))
            fprintf(f, "%s%s from %s (frame %" PRIu64 ")", dir ? ", " : "", end_str(d->end), sender(c, dir),
                    d->end_frame);
        else
            fprintf(f, "%s%s still open", dir ? ", " : "", sender(c, dir));
    }
    fprintf(f, " [%s]\n", c->closed);
    fprintf(f, "  findings: %" PRIu64 " errors, %" PRIu64 " warnings, %" PRIu64 " notes\n", c->severity[MPA_SEV_ERROR],
            c->severity[MPA_SEV_WARNING], c->severity[MPA_SEV_NOTE]);
    for (size_t i = 0; i < c->nfindings; i++) {
        const audit_finding *x = &c->findings[i];
        char where[64] = "";
        if (x->dir == 0 || x->dir == 1) {
            if (x->off != UINT64_MAX)
                snprintf(where, sizeof where, "%s @%" PRIu64, x->dir ? "s>c" : "c>s", x->off);
            else
                snprintf(where, sizeof where, "%s", x->dir ? "s>c" : "c>s");
        }
        fprintf(f, "    %-7s %-28s frame %-6" PRIu64 " %-14s %s\n", mpa_severity_str(x->rule->severity), x->rule->id,
                x->frame, where, x->msg);
        fprintf(f, "%12s%s\n", "", x->rule->text);
    }
    if (c->suppressed)
        fprintf(f, "    (%" PRIu64 " more findings not listed: each rule is listed at most --max-findings times per "
                   "connection)\n",
                c->suppressed);
    fputc('\n', f);
}

/* ---- callbacks --------------------------------------------------------- */

static void on_finding(void *user, const audit_conn *c, const audit_finding *f)
{
    report *r = user;
    if (r->fmt != REPORT_JSONL)
        return;
    jw w;
    jw_begin(&w, 0);
    finding_members(&w, r, c, f);
    jw_str(&w, "type", "finding");
    jw_str(&w, "event_type", "mpa_finding");
    if (c)
        jw_num(&w, "connection", c->id);
    else
        jw_null(&w, "connection");
    /* The line stands alone: the roles as known when it is made. */
    jw_end(&w, "initiator_ip", "initiator_port", in_role(c, MPA_ROLE_INITIATOR));
    jw_end(&w, "responder_ip", "responder_port", in_role(c, MPA_ROLE_RESPONDER));
    jw_put(r, &w);
    fputc('\n', r->f);
}

/* Write one rendered connection. */
static void emit(report *r, char *text)
{
    if (r->fmt == REPORT_JSON)
        fputs(r->nconn ? ",\n" : "\n", r->f);
    if (text)
        fputs(text, r->f);
    free(text);
    r->nconn++;
}

static void emit_due(report *r)
{
    for (;;) {
        unsigned k = 0;
        while (k < r->npend && r->pend[k].id != r->next_id)
            k++;
        if (k == r->npend)
            return;
        r->pend_bytes -= r->pend[k].len;
        emit(r, r->pend[k].text);
        r->pend[k] = r->pend[--r->npend];
        r->next_id++;
    }
}

/* The held connection with the lowest id goes out (too many held, or the end). */
static void emit_lowest(report *r)
{
    unsigned k = 0;
    for (unsigned i = 1; i < r->npend; i++)
        if (r->pend[i].id < r->pend[k].id)
            k = i;
    r->next_id = r->pend[k].id + 1;
    r->pend_bytes -= r->pend[k].len;
    emit(r, r->pend[k].text);
    r->pend[k] = r->pend[--r->npend];
}

static void on_conn(void *user, const audit_conn *c)
{
    report *r = user;
    char *text = NULL;
    switch (r->fmt) {
    case REPORT_TEXT: {
        size_t n = 0;
        FILE *mem = open_memstream(&text, &n);
        FILE *keep = r->f;
        if (mem) {
            r->f = mem;
            text_conn(r, c);
            fclose(mem);
            r->f = keep;
        } else {
            text_conn(r, c); /* no memory to hold it: write it now */
            r->nconn++;
            return;
        }
        break;
    }
    case REPORT_JSON: {
        jw w;
        jw_begin(&w, 1);
        conn_members(&w, r, c, 1);
        text = jw_text(&w);
        break;
    }
    case REPORT_JSONL: {
        /* As it is made: no reordering. */
        jw w;
        jw_begin(&w, 0);
        conn_members(&w, r, c, 0);
        jw_str(&w, "type", "connection");
        jw_str(&w, "event_type", "mpa_connection");
        jw_time(&w, "timestamp", c->last_ts);
        jw_flow(&w, c, -1);
        jw_put(r, &w);
        fputc('\n', r->f);
        r->nconn++;
        return;
    }
    }
    if (c->id < r->next_id) {
        emit(r, text); /* its turn passed while too many were held */
        return;
    }
    r->pend[r->npend].id = c->id;
    r->pend[r->npend].text = text;
    r->pend[r->npend].len = text ? strlen(text) : 0;
    r->pend_bytes += r->pend[r->npend].len;
    r->npend++;
    emit_due(r);
    while (r->npend > REORDER_MAX || (r->npend && r->pend_bytes > REORDER_BYTES)) {
        emit_lowest(r);
        emit_due(r);
    }
}

audit_out report_sink(report *r)
{
    audit_out out = {r, on_finding, on_conn, NULL, NULL};
    return out;
}

void report_bind(report *r, audit *a) { r->a = a; }

void report_begin(report *r, const char *const *inputs, unsigned ninputs)
{
    r->inputs = inputs;
    r->ninputs = ninputs;
    if (r->fmt == REPORT_JSON) {
        cJSON *in = cJSON_CreateArray();
        for (unsigned i = 0; i < ninputs; i++)
            cJSON_AddItemToArray(in, cJSON_CreateString(inputs[i]));
        char *s = cJSON_PrintUnformatted(in);
        fprintf(r->f, "{\n\"tool\": \"mpa-audit\",\n\"schema\": 3,\n\"inputs\": %s,\n\"connections\": [", s ? s : "[]");
        free(s);
        cJSON_Delete(in);
    }
}

/* k: {"error", "warning", "note", "suppressed"}. */
static void jsev(cJSON *o, const char *k, const uint64_t sev[3], uint64_t suppressed)
{
    cJSON *x = cJSON_AddObjectToObject(o, k);
    jnum(x, "error", (double)sev[MPA_SEV_ERROR]);
    jnum(x, "warning", (double)sev[MPA_SEV_WARNING]);
    jnum(x, "note", (double)sev[MPA_SEV_NOTE]);
    jnum(x, "suppressed", (double)suppressed);
}

static cJSON *summary_json(const report *r, double elapsed)
{
    const audit_stats *s = audit_get_stats(r->a);
    cJSON *o = cJSON_CreateObject();
    jnum(o, "packets", (double)s->packets);
    jnum(o, "captured_octets", (double)s->octets);
    jnum(o, "tcp_connections", (double)s->tcp_conns);
    jnum(o, "mpa_connections", (double)s->mpa_conns);
    jnum(o, "not_tcp_packets", (double)s->not_tcp);
    jnum(o, "unreadable_packets", (double)s->unreadable);
    jnum(o, "truncated_packets", (double)s->truncated);
    jnum(o, "ip_fragments", (double)s->fragments);
    jsev(o, "findings", s->severity, s->suppressed);
    jnum(o, "capture_duration_s", s->last_ts > s->first_ts ? (double)(s->last_ts - s->first_ts) / 1e9 : 0.0);
    jnum(o, "connections_closed_early", (double)s->evicted);
    jnum(o, "out_of_order_peak_octets", (double)s->ooo_peak);
    jnum(o, "open_connections_peak", (double)s->open_peak);
    if (r->timing) {
        jnum(o, "elapsed_s", elapsed);
        jnum(o, "mb_per_s", elapsed > 0 ? (double)s->octets / 1e6 / elapsed : 0.0);
    }
    return o;
}

/* What mpa-audit merge needs of a shard's document, on one line; the
 * gauges (up to millions of numbers) written as they are, not as a tree. */
static void put_shard(report *r, int input)
{
    const audit_stats *s = audit_get_stats(r->a);
    cJSON *o = cJSON_CreateObject();
    jnum(o, "index", r->shard.index);
    jnum(o, "count", r->shard.count);
    jstr(o, "version", mpa_version());
    jstr(o, "options", r->shard.options);
    jnum(o, "fail_on", r->shard.fail_on);
    jnum(o, "input_status", input);
    jnum(o, "other_shard_packets", (double)s->other_shard);
    jsev(o, "shared_findings", s->shared_severity, s->shared_suppressed);
    jnum(o, "local_findings", (double)s->local_findings);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!text)
        return;
    text[strlen(text) - 1] = 0; /* the closing brace: more members follow */
    fputs(text, r->f);
    free(text);
    /* The open connections and held octets, as they moved: the merge
     * adds the shards' up to the peaks one run would have seen. */
    static const char *const gname[2] = {"open_connections", "out_of_order_octets"};
    int complete = 1;
    fputs(",\"gauges\":{", r->f);
    for (int i = 0; i < 2; i++) {
        const audit_gauge *g = audit_get_gauge(r->a, i);
        fprintf(r->f, "%s\"%s\":[", i ? "," : "", gname[i]);
        for (size_t k = 0; k < g->n; k++)
            fprintf(r->f, "%s%" PRIu64, k ? "," : "", g->v[k]);
        fputc(']', r->f);
        complete &= !g->overflow;
    }
    fprintf(r->f, "},\"gauges_complete\":%s}", complete ? "true" : "false");
}

void report_end(report *r, double elapsed, int input)
{
    while (r->npend) {
        emit_lowest(r);
        emit_due(r);
    }
    size_t ng;
    const audit_finding *g = audit_global_findings(r->a, &ng);
    const audit_stats *s = audit_get_stats(r->a);
    switch (r->fmt) {
    case REPORT_JSON: {
        fputs(r->nconn ? "\n],\n\"findings\": [" : "],\n\"findings\": [", r->f);
        for (size_t i = 0; i < ng; i++) {
            fputs(i ? ",\n" : "\n", r->f);
            jw w;
            jw_begin(&w, 0);
            finding_members(&w, r, NULL, &g[i]);
            jw_put(r, &w);
        }
        fputs(ng ? "\n],\n\"summary\": " : "],\n\"summary\": ", r->f);
        put_json(r, summary_json(r, elapsed), 1);
        if (r->sharded) {
            fputs(",\n\"shard\": ", r->f);
            put_shard(r, input);
        }
        fputs("\n}\n", r->f);
        break;
    }
    case REPORT_JSONL: {
        cJSON *o = summary_json(r, elapsed);
        cJSON_AddStringToObject(o, "type", "summary");
        cJSON_AddStringToObject(o, "event_type", "mpa_summary");
        char when[48];
        if (time_text(when, s->packets ? s->last_ts : AUDIT_NO_TS))
            jstr(o, "timestamp", when);
        else
            cJSON_AddNullToObject(o, "timestamp");
        put_json(r, o, 0);
        fputc('\n', r->f);
        break;
    }
    case REPORT_TEXT:
        if (ng) {
            fprintf(r->f, "Capture findings (not tied to one connection):\n");
            for (size_t i = 0; i < ng; i++)
                fprintf(r->f, "    %-7s %-28s %s frame %-6" PRIu64 " %s\n%12s%s\n",
                        mpa_severity_str(g[i].rule->severity), g[i].rule->id, audit_file_name(r->a, g[i].file),
                        g[i].frame, g[i].msg, "", g[i].rule->text);
            fputc('\n', r->f);
        }
        if (input == 2)
            break; /* an input could not be used: a summary would mislead */
        fprintf(r->f,
                "Summary: %" PRIu64 " packets, %" PRIu64 " TCP connections, %" PRIu64 " speaking MPA; findings: %" PRIu64
                " errors, %" PRIu64 " warnings, %" PRIu64 " notes",
                s->packets, s->tcp_conns, s->mpa_conns, s->severity[MPA_SEV_ERROR], s->severity[MPA_SEV_WARNING],
                s->severity[MPA_SEV_NOTE]);
        if (s->suppressed)
            fprintf(r->f, " (%" PRIu64 " not listed)", s->suppressed);
        fprintf(r->f, "; %.1f MB captured", (double)s->octets / 1e6);
        if (s->unreadable || s->truncated)
            fprintf(r->f, "; %" PRIu64 " unreadable and %" PRIu64 " truncated packets", s->unreadable, s->truncated);
        if (r->timing && elapsed > 0)
            fprintf(r->f, "; %.2f s, %.0f MB/s", elapsed, (double)s->octets / 1e6 / elapsed);
        fputc('\n', r->f);
        if (!s->mpa_conns && !input) /* not when the input was cut: the cut may be why */
            fprintf(r->f, "No MPA connection found%s (MPA is recognised by its startup frames; for a capture that "
                          "starts mid-stream name the port with --port)\n",
                    s->tcp_conns ? "" : ": no TCP connection in the input");
        break;
    }
    fflush(r->f);
}

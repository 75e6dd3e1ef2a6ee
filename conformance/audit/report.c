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

static void jnum(cJSON *o, const char *k, double v) { cJSON_AddNumberToObject(o, k, v); }
static void jstr(cJSON *o, const char *k, const char *v) { cJSON_AddStringToObject(o, k, v ? v : ""); }

/* k: a capture time (ns since 1970) in RFC 3339, UTC, to the microsecond
 * (2024-05-01T12:00:00.123456Z); null when there is none. */
static void jtime(cJSON *o, const char *k, uint64_t ns)
{
    struct tm tm;
    time_t t = (time_t)(ns / 1000000000u);
    char buf[48];
    if (ns == AUDIT_NO_TS || !gmtime_r(&t, &tm) || !strftime(buf, 24, "%Y-%m-%dT%H:%M:%S", &tm)) {
        cJSON_AddNullToObject(o, k);
        return;
    }
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), ".%06uZ", (unsigned)(ns % 1000000000u / 1000u));
    jstr(o, k, buf);
}

/* One end of a connection as src_ or dest_ (ip, port); null without one. */
static void jend(cJSON *o, const char *ipk, const char *portk, const audit_dir *d)
{
    if (d) {
        jstr(o, ipk, d->ip);
        jnum(o, portk, d->port);
    } else {
        cJSON_AddNullToObject(o, ipk);
        cJSON_AddNullToObject(o, portk);
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
static void jflow(cJSON *o, const audit_conn *c, int dir)
{
    int from = dir == 1 ? 1 : 0;
    jend(o, "src_ip", "src_port", c ? &c->d[from] : NULL);
    jend(o, "dest_ip", "dest_port", c ? &c->d[!from] : NULL);
    if (c)
        jstr(o, "proto", "TCP");
    else
        cJSON_AddNullToObject(o, "proto");
}

static cJSON *finding_json(const report *r, const audit_conn *c, const audit_finding *f)
{
    cJSON *o = cJSON_CreateObject();
    jtime(o, "timestamp", f->ts);
    jstr(o, "id", f->rule->id);
    jstr(o, "severity", mpa_severity_str(f->rule->severity));
    if (f->frame)
        jnum(o, "frame", (double)f->frame);
    else
        cJSON_AddNullToObject(o, "frame");
    if (f->dir == 0 || f->dir == 1)
        jstr(o, "direction", dir_name[f->dir]);
    else
        cJSON_AddNullToObject(o, "direction");
    if (f->off != UINT64_MAX)
        jnum(o, "stream_offset", (double)f->off);
    else
        cJSON_AddNullToObject(o, "stream_offset");
    /* One fixed text per id (so findings group by it); the instance
     * values are the detail. */
    jstr(o, "message", f->rule->text);
    jstr(o, "detail", f->msg);
    if (c && (f->dir == 0 || f->dir == 1))
        jstr(o, "from", sender(c, f->dir));
    jstr(o, "clause", f->rule->clause);
    jstr(o, "file", audit_file_name(r->a, f->file));
    jflow(o, c, f->dir);
    if (r->sharded && f->shard_local)
        cJSON_AddBoolToObject(o, "shard_local", 1);
    return o;
}

static cJSON *frame_json(const report *r, const audit_dir *d, int dir)
{
    const audit_startup *s = &d->startup;
    const mpa_frame *f = &s->fr;
    cJSON *o = cJSON_CreateObject();
    jstr(o, "kind", mpa_key_kind_name(f->kind));
    char key[3 * MPA_KEY_LEN + 1];
    size_t klen = f->kind == MPA_KEY_STARTKEY ? 15 : MPA_KEY_LEN;
    for (size_t i = 0; i < klen; i++)
        snprintf(key + 3 * i, 4, "%02x%s", f->key[i], i + 1 < klen ? " " : "");
    jstr(o, "key", key);
    jstr(o, "direction", dir_name[dir]);
    jnum(o, "frame", (double)s->frame);
    jstr(o, "file", audit_file_name(r->a, s->file));
    jnum(o, "stream_offset", (double)s->off);
    jnum(o, "m", f->m);
    jnum(o, "c", f->c);
    jnum(o, "r", f->r);
    jnum(o, "s", f->s);
    jnum(o, "res", f->res);
    jnum(o, "rev", f->rev);
    jnum(o, "pd_length", f->pd_len);
    if (f->has_enh) {
        cJSON *e = cJSON_AddObjectToObject(o, "enhanced");
        jnum(e, "ird", f->enh.ird);
        jnum(e, "ord", f->enh.ord);
        jnum(e, "a", f->enh.a);
        jnum(e, "b", f->enh.b);
        jnum(e, "c", f->enh.c);
        jnum(e, "d", f->enh.d);
        cJSON *rt = cJSON_AddArrayToObject(e, "rtr_offered");
        if (f->enh.b)
            cJSON_AddItemToArray(rt, cJSON_CreateString("send"));
        if (f->enh.c)
            cJSON_AddItemToArray(rt, cJSON_CreateString("write"));
        if (f->enh.d)
            cJSON_AddItemToArray(rt, cJSON_CreateString("read"));
    }
    char sum[256];
    mpa_frame_summary(f, sum, sizeof sum);
    jstr(o, "summary", sum);
    return o;
}

static cJSON *conn_json(const report *r, const audit_conn *c, int with_findings)
{
    cJSON *o = cJSON_CreateObject();
    jnum(o, "id", c->id);
    jstr(o, "client", c->d[0].addr);
    jstr(o, "server", c->d[1].addr);
    if (c->nvlan) {
        cJSON *v = cJSON_AddArrayToObject(o, "vlan");
        for (unsigned i = 0; i < c->nvlan; i++)
            cJSON_AddItemToArray(v, cJSON_CreateNumber(c->vlan[i]));
    }
    jstr(o, "file", audit_file_name(r->a, c->first_file));
    jnum(o, "first_frame", (double)c->first_frame);
    jnum(o, "last_frame", (double)c->last_frame);
    jnum(o, "duration_s", (double)(c->last_ts - c->first_ts) / 1e9);
    jtime(o, "first_timestamp", c->first_ts);
    jtime(o, "last_timestamp", c->last_ts);
    cJSON_AddBoolToObject(o, "syn_seen", c->syn_seen);
    cJSON_AddBoolToObject(o, "midstream", c->midstream);
    int init = c->d[0].role == MPA_ROLE_INITIATOR ? 0 : c->d[1].role == MPA_ROLE_INITIATOR ? 1 : -1;
    int resp = c->d[0].role == MPA_ROLE_RESPONDER ? 0 : c->d[1].role == MPA_ROLE_RESPONDER ? 1 : -1;
    if (init >= 0)
        jstr(o, "initiator", c->d[init].addr);
    else
        cJSON_AddNullToObject(o, "initiator");
    if (resp >= 0)
        jstr(o, "responder", c->d[resp].addr);
    else
        cJSON_AddNullToObject(o, "responder");

    cJSON *st = cJSON_AddObjectToObject(o, "startup");
    for (int dir = 0; dir < 2; dir++) {
        const audit_dir *d = &c->d[dir];
        if (!d->startup.have)
            continue;
        const char *name = d->startup.fr.kind == MPA_KEY_REQ ? "request"
                           : d->startup.fr.kind == MPA_KEY_REP ? "reply"
                                                                : (dir == 0 ? "client_frame" : "server_frame");
        if (cJSON_GetObjectItemCaseSensitive(st, name))
            name = dir == 0 ? "client_frame" : "server_frame";
        cJSON_AddItemToObject(st, name, frame_json(r, d, dir));
    }

    /* What was negotiated, as the octets show it. */
    cJSON *ng = cJSON_AddObjectToObject(o, "negotiated");
    const audit_dir *q = init >= 0 ? &c->d[init] : NULL, *p = resp >= 0 ? &c->d[resp] : NULL;
    if (q && p && q->startup.have && p->startup.have) {
        jnum(ng, "rev_request", q->startup.fr.rev);
        jnum(ng, "rev_reply", p->startup.fr.rev);
        cJSON_AddBoolToObject(ng, "rejected", p->startup.fr.r);
        cJSON_AddBoolToObject(ng, "enhanced", q->startup.fr.has_enh && p->startup.fr.has_enh);
        cJSON_AddBoolToObject(ng, "crc", q->startup.fr.c || p->startup.fr.c);
    }
    cJSON *mk = cJSON_AddObjectToObject(ng, "markers");
    cJSON *crc = cJSON_AddObjectToObject(ng, "crc_in_force");
    for (int dir = 0; dir < 2; dir++) {
        if (c->d[dir].fpdu_mode) {
            cJSON_AddBoolToObject(mk, dir_name[dir], c->d[dir].markers);
            cJSON_AddBoolToObject(crc, dir_name[dir], c->d[dir].crc);
        } else {
            cJSON_AddNullToObject(mk, dir_name[dir]);
            cJSON_AddNullToObject(crc, dir_name[dir]);
        }
    }
    for (int dir = 0; dir < 2; dir++)
        if (c->d[dir].rtr != MPA_RTR_NONE) {
            cJSON *rt = cJSON_AddObjectToObject(ng, "rtr_sent");
            jstr(rt, "type", mpa_rtr_str(c->d[dir].rtr));
            jstr(rt, "from", sender(c, dir));
            jnum(rt, "frame", (double)c->d[dir].rtr_frame);
            cJSON_AddBoolToObject(rt, "negotiated", c->d[dir].rtr_negotiated);
            break;
        }

    cJSON *dirs = cJSON_AddArrayToObject(o, "directions");
    for (int dir = 0; dir < 2; dir++) {
        const audit_dir *d = &c->d[dir];
        cJSON *x = cJSON_CreateObject();
        jstr(x, "direction", dir_name[dir]);
        jstr(x, "from", d->addr);
        jstr(x, "role", mpa_role_str(d->role));
        jstr(x, "mode_at_end", mpa_dir_mode_str(d->mode));
        if (d->mss)
            jnum(x, "mss", d->mss);
        jnum(x, "tcp_segments", (double)d->segments);
        jnum(x, "tcp_payload_octets", (double)d->payload_octets);
        jnum(x, "fpdus", (double)d->st.fpdus);
        jnum(x, "ulpdu_octets", (double)d->st.ulpdu_octets);
        jnum(x, "markers_seen", (double)d->st.markers);
        jnum(x, "crc_bad", (double)d->st.crc_bad);
        jnum(x, "segments_in_fpdu_mode", (double)d->st.segments);
        jnum(x, "segments_aligned", (double)d->st.segments_aligned);
        if (d->st.segments)
            jnum(x, "alignment", (double)d->st.segments_aligned / (double)d->st.segments);
        else
            cJSON_AddNullToObject(x, "alignment");
        jnum(x, "not_mpa_octets", (double)d->st.not_mpa_octets);
        jnum(x, "holes", (double)d->holes);
        jnum(x, "hole_octets", (double)d->hole_octets);
        jnum(x, "resyncs", (double)d->st.resyncs);
        jnum(x, "fpdus_over_mulpdu", (double)d->st.mulpdu_over);
        jnum(x, "largest_over_mulpdu", (double)d->st.mulpdu_largest);
        jnum(x, "retransmitted_octets", (double)d->retrans_octets);
        jnum(x, "overlap_conflicts", (double)d->conflicts);
        jnum(x, "out_of_window_segments", (double)d->out_of_window);
        jnum(x, "cut_packets", (double)d->cut_packets);
        if (end_str(d->end)) {
            jstr(x, "end", end_str(d->end));
            jnum(x, "end_frame", (double)d->end_frame);
        } else {
            cJSON_AddNullToObject(x, "end");
        }
        cJSON_AddItemToArray(dirs, x);
    }

    cJSON *terms = cJSON_AddArrayToObject(o, "terminates");
    for (size_t i = 0; i < c->nterms; i++) {
        const audit_term *t = &c->terms[i];
        cJSON *x = cJSON_CreateObject();
        jstr(x, "from", sender(c, t->dir));
        jnum(x, "layer", t->layer);
        jnum(x, "etype", t->etype);
        jnum(x, "code", t->code);
        char name[160];
        snprintf(name, sizeof name, "%s/%s %s", mpa_term_layer_name(t->layer), mpa_term_etype_name(t->layer, t->etype),
                 mpa_term_code_name(t->layer, t->etype, t->code));
        jstr(x, "name", name);
        if (t->quirk == MPA_TERM_LE_BITFIELD) {
            /* what the sender meant, read as Linux siw writes the field */
            cJSON *m = cJSON_AddObjectToObject(x, "siw_reading");
            jnum(m, "layer", t->read.layer);
            jnum(m, "etype", t->read.etype);
            jnum(m, "code", t->read.code);
            snprintf(name, sizeof name, "%s/%s %s", mpa_term_layer_name(t->read.layer),
                     mpa_term_etype_name(t->read.layer, t->read.etype),
                     mpa_term_code_name(t->read.layer, t->read.etype, t->read.code));
            jstr(m, "name", name);
        }
        jstr(x, "direction", dir_name[t->dir]);
        jnum(x, "frame", (double)t->frame);
        jnum(x, "stream_offset", (double)t->off);
        cJSON_AddItemToArray(terms, x);
    }
    jstr(o, "closed", c->closed);
    cJSON *cnt = cJSON_AddObjectToObject(o, "counts");
    jnum(cnt, "error", (double)c->severity[MPA_SEV_ERROR]);
    jnum(cnt, "warning", (double)c->severity[MPA_SEV_WARNING]);
    jnum(cnt, "note", (double)c->severity[MPA_SEV_NOTE]);
    jnum(o, "findings_suppressed", (double)c->suppressed);
    if (with_findings) {
        cJSON *fs = cJSON_AddArrayToObject(o, "findings");
        for (size_t i = 0; i < c->nfindings; i++)
            cJSON_AddItemToArray(fs, finding_json(r, c, &c->findings[i]));
    }
    if (r->sharded) {
        cJSON *so = cJSON_AddArrayToObject(o, "shard_order");
        cJSON_AddItemToArray(so, cJSON_CreateNumber((double)c->mpa_packet));
        cJSON_AddItemToArray(so, cJSON_CreateNumber((double)c->last_packet));
        cJSON_AddItemToArray(so, cJSON_CreateNumber((double)c->done_packet));
        cJSON_AddItemToArray(so, cJSON_CreateNumber(c->done_phase));
        cJSON_AddItemToArray(so, cJSON_CreateNumber((double)c->done_seq));
    }
    return o;
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

/* A string, escaped as cJSON escapes it. */
static void jb_str(jbuf *b, const char *s)
{
    jb_ch(b, '"');
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
        const unsigned char *q = p;
        while (*q > 31 && *q != '"' && *q != '\\')
            q++;
        jb_put(b, (const char *)p, (size_t)(q - p));
        if (!*q)
            break;
        char e[8];
        switch (*q) {
        case '"': case '\\': e[0] = '\\'; e[1] = (char)*q; e[2] = 0; break;
        case '\b': memcpy(e, "\\b", 3); break;
        case '\f': memcpy(e, "\\f", 3); break;
        case '\n': memcpy(e, "\\n", 3); break;
        case '\r': memcpy(e, "\\r", 3); break;
        case '\t': memcpy(e, "\\t", 3); break;
        default: snprintf(e, sizeof e, "\\u%04x", *q);
        }
        jb_put(b, e, strlen(e));
        p = q + 1;
    }
    jb_ch(b, '"');
}

static void jb_num(jbuf *b, const cJSON *x)
{
    double d = x->valuedouble;
    char t[32];
    if (isnan(d) || isinf(d)) {
        jb_put(b, "null", 4);
    } else if (d == (double)x->valueint) {
        /* an integer (what cJSON writes with %d) */
        char *e = t + sizeof t, *q = e;
        long long v = x->valueint;
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
        jb_num(b, x);
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
    cJSON *o = finding_json(r, c, f);
    cJSON_AddStringToObject(o, "type", "finding");
    cJSON_AddStringToObject(o, "event_type", "mpa_finding");
    if (c)
        cJSON_AddNumberToObject(o, "connection", c->id);
    else
        cJSON_AddNullToObject(o, "connection");
    /* The line stands alone: the roles as known when it is made. */
    jend(o, "initiator_ip", "initiator_port", in_role(c, MPA_ROLE_INITIATOR));
    jend(o, "responder_ip", "responder_port", in_role(c, MPA_ROLE_RESPONDER));
    put_json(r, o, 0);
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
    case REPORT_JSON:
        text = json_text(conn_json(r, c, 1), 1);
        break;
    case REPORT_JSONL: {
        /* As it is made: no reordering. */
        cJSON *o = conn_json(r, c, 0);
        cJSON_AddStringToObject(o, "type", "connection");
        cJSON_AddStringToObject(o, "event_type", "mpa_connection");
        jtime(o, "timestamp", c->last_ts);
        jflow(o, c, -1);
        put_json(r, o, 0);
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
            put_json(r, finding_json(r, NULL, &g[i]), 0);
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
        jtime(o, "timestamp", s->packets ? s->last_ts : AUDIT_NO_TS);
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

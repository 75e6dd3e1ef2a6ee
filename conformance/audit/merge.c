/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-audit merge (merge.h): the --json documents of the N shards of one
 * audit (mpa-audit --shard K/N) in, the document one run would have
 * written out.  The shards are checked to belong together first.
 *
 * What a shard writes and how it merges (docs/mpa-audit-json.md,
 * "Shards"): every shard reads every packet, so the packet counts, the
 * capture's duration and the findings about the input itself are the same
 * in each and are taken once (and compared); connections are each in one
 * shard, numbered again in the order one run numbers them (shard_order:
 * the packet at which each turned out to speak MPA, then its last packet);
 * connection counts and finding counts add up.
 */
#include "merge.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mpa/findings.h"
#include "report.h"

/* A connection as a shard's document has it, when read as text (below). */
typedef struct conn_text {
    const char *body; /* after its id, up to its shard_order member */
    size_t len;
    double order[5];  /* shard_order */
} conn_text;

typedef struct shard {
    const char *name;
    cJSON *doc, *info, *sum;
    int index;
    /* The connections, when read as text rather than parsed (conns_as_text). */
    char *text;
    conn_text *conns;
    size_t nconns;
    int as_text;
} shard;

typedef struct item {
    cJSON *o;
    double k1, k2; /* sort keys */
    size_t seq;    /* stable */
    double d[3];   /* connections: when one run reports it (shard_order[2..4]) */
    char *text;
    size_t id;
    const conn_text *ct; /* a connection read as text (o NULL) */
} item;

static int refuse(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mpa-audit merge: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

static char *slurp(const char *path, const char **why)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        *why = strerror(errno);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (cap - n < 2) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    int err = ferror(f);
    if (f != stdin)
        fclose(f);
    if (!buf || err) {
        free(buf);
        *why = buf ? "read error" : "out of memory";
        return NULL;
    }
    buf[n] = 0;
    return buf;
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(x) ? x->valuestring : NULL;
}

static void setnum(cJSON *o, const char *k, double v)
{
    if (cJSON_GetObjectItemCaseSensitive(o, k))
        cJSON_ReplaceItemInObjectCaseSensitive(o, k, cJSON_CreateNumber(v));
}

/* Both render alike (unformatted): 1, else 0. */
static int same(const cJSON *a, const cJSON *b)
{
    char *x = cJSON_PrintUnformatted(a), *y = cJSON_PrintUnformatted(b);
    int eq = x && y && !strcmp(x, y);
    free(x);
    free(y);
    return eq;
}

/*
 * The connections are most of a document, and the merge changes only their
 * ids (and drops shard_order): where the document is laid out as report.c
 * writes it (each connection an object cJSON_Print wrote, beginning with
 * its id and ending with its shard_order), they are taken as text and only
 * the rest is parsed, which cJSON would print again the same.  *rest gets
 * the document without them; 0, or -1 when laid out otherwise (then the
 * whole document is parsed).
 */
static int conns_as_text(shard *s, char *text, char **rest)
{
    static const char open[] = "\n\"connections\": [", close[] = "\n],\n\"findings\": [";
    static const char idk[] = "{\n\t\"id\":\t", ordk[] = ",\n\t\"shard_order\":\t[";
    char *a = strstr(text, open);
    if (!a)
        return -1;
    a += sizeof open - 1;
    char *e = a;
    if (strncmp(a, close + 1, sizeof close - 2)) {
        e = strstr(a, close);
        if (!e)
            return -1;
    }
    size_t n = 0;
    for (char *p = a; p < e; n++) {
        char *end = strstr(p + 1, "\n}");
        if (!end || end >= e)
            return -1;
        p = end + 2;
    }
    s->conns = calloc(n + 1, sizeof *s->conns);
    *rest = malloc(strlen(text) - (size_t)(e - a) + 1);
    if (!s->conns || !*rest)
        return -1;
    for (char *p = a; p < e;) {
        char *obj = p + (*p == ',') + 1, *end = strstr(p + 1, "\n}");
        if (strncmp(obj, idk, sizeof idk - 1))
            return -1;
        char *body = obj + sizeof idk - 1;
        while (*body >= '0' && *body <= '9')
            body++;
        char *ord = end;
        while (ord > body && strncmp(ord, ordk, sizeof ordk - 1))
            ord--;
        if (ord == body)
            return -1;
        conn_text *c = &s->conns[s->nconns++];
        c->body = body;
        c->len = (size_t)(ord - body);
        char *q = ord + sizeof ordk - 1;
        for (int k = 0; k < 5; k++) {
            char *after;
            c->order[k] = strtod(q, &after);
            if (after == q || (k < 4 && strncmp(after, ", ", 2)) || (k == 4 && strncmp(after, "]\n}", 3)))
                return -1;
            q = after + 2;
        }
        p = end + 2;
    }
    size_t head = (size_t)(a - text);
    memcpy(*rest, text, head);
    strcpy(*rest + head, e + (e > a)); /* "]," of the closing line */
    return 0;
}

/* Check one shard's document (text, named name); text is freed, or kept
 * for the connections it holds. */
static int load_text(shard *s, const char *name, char *text)
{
    s->name = name;
    char *rest = NULL;
    if (conns_as_text(s, text, &rest) == 0) {
        s->doc = cJSON_Parse(rest);
        free(rest);
        s->text = text;
        s->as_text = 1;
    } else {
        free(rest);
        free(s->conns);
        s->conns = NULL;
        s->nconns = 0;
        s->doc = cJSON_Parse(text);
        free(text);
    }
    if (!s->doc)
        return refuse("%s: not a JSON document (mpa-audit --json --shard K/N writes one)", name);
    const char *tool = str(s->doc, "tool");
    if (!tool || strcmp(tool, "mpa-audit"))
        return refuse("%s: not an mpa-audit document", name);
    if (num(s->doc, "schema") != 3)
        return refuse("%s: schema %g, this mpa-audit merges schema 3", name, num(s->doc, "schema"));
    s->info = cJSON_GetObjectItemCaseSensitive(s->doc, "shard");
    s->sum = cJSON_GetObjectItemCaseSensitive(s->doc, "summary");
    if (!cJSON_IsObject(s->info))
        return refuse("%s: not a shard's document (no \"shard\": made without --shard K/N?)", name);
    if (!cJSON_IsObject(s->sum) || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(s->doc, "connections")) ||
        !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(s->doc, "findings")) ||
        !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(s->doc, "inputs")) || !str(s->info, "options") ||
        !str(s->info, "version") || isnan(num(s->info, "count")) || isnan(num(s->info, "index")))
        return refuse("%s: an incomplete shard document", name);
    s->index = (int)num(s->info, "index");
    return 0;
}

/* Read and check one shard's document. */
static int load(shard *s, const char *name)
{
    const char *why = NULL;
    char *text = slurp(name, &why);
    s->name = name;
    if (!text)
        return refuse("%s: %s", name, why);
    return load_text(s, name, text);
}

static double dmax(double a, double b) { return a > b ? a : b; }

static int cmp_item(const void *pa, const void *pb)
{
    const item *a = pa, *b = pb;
    if (a->k1 != b->k1)
        return a->k1 < b->k1 ? -1 : 1;
    if (a->k2 != b->k2)
        return a->k2 < b->k2 ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The index of a file name among the inputs (the order of frames). */
static double input_index(const cJSON *inputs, const char *file)
{
    double i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, inputs)
    {
        if (cJSON_IsString(x) && file && !strcmp(x->valuestring, file))
            return i;
        i++;
    }
    return i;
}

/* The summary figures every shard has alike (it reads every packet). */
static const char *const same_fields[] = {"packets",           "captured_octets",    "not_tcp_packets",
                                          "unreadable_packets", "truncated_packets", "ip_fragments",
                                          "capture_duration_s"};
static const char *const sev_names[] = {"error", "warning", "note", "suppressed"};

static int check_together(shard *sh, int n)
{
    int count = (int)num(sh[0].info, "count");
    if (count != n)
        return refuse("%s is shard %d of %d, but %d shard document%s given: name all %d", sh[0].name, sh[0].index,
                      count, n, n == 1 ? " is" : "s are", count);
    char *seen = calloc((size_t)n, 1);
    if (!seen)
        return refuse("out of memory");
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        const shard *s = &sh[i];
        if ((int)num(s->info, "count") != count)
            rc = refuse("%s is of %g shards, %s of %d: not one audit", s->name, num(s->info, "count"), sh[0].name,
                        count);
        else if (s->index < 0 || s->index >= n)
            rc = refuse("%s: shard index %d outside 0..%d", s->name, s->index, n - 1);
        else if (seen[s->index])
            rc = refuse("%s: shard %d/%d given twice", s->name, s->index, n);
        else if (strcmp(str(s->info, "version"), str(sh[0].info, "version")))
            rc = refuse("%s was made by mpa-audit %s, %s by %s: merge shards of one version", s->name,
                        str(s->info, "version"), sh[0].name, str(sh[0].info, "version"));
        else if (strcmp(str(s->info, "options"), str(sh[0].info, "options")))
            rc = refuse("%s was made with options \"%s\", %s with \"%s\": not one audit", s->name,
                        str(s->info, "options"), sh[0].name, str(sh[0].info, "options"));
        else if (!same(cJSON_GetObjectItemCaseSensitive(s->doc, "inputs"),
                       cJSON_GetObjectItemCaseSensitive(sh[0].doc, "inputs")))
            rc = refuse("%s and %s audit different inputs", s->name, sh[0].name);
        else if (!!cJSON_GetObjectItemCaseSensitive(s->sum, "elapsed_s") !=
                 !!cJSON_GetObjectItemCaseSensitive(sh[0].sum, "elapsed_s"))
            rc = refuse("%s and %s differ in --no-timing", s->name, sh[0].name);
        if (rc)
            break;
        seen[s->index] = 1;
        for (size_t k = 0; k < sizeof same_fields / sizeof *same_fields; k++)
            if (num(s->sum, same_fields[k]) != num(sh[0].sum, same_fields[k]))
                rc = refuse("%s and %s read different inputs (summary %s: %g and %g)", s->name, sh[0].name,
                            same_fields[k], num(s->sum, same_fields[k]), num(sh[0].sum, same_fields[k]));
        if (!rc && !same(cJSON_GetObjectItemCaseSensitive(s->info, "shared_findings"),
                         cJSON_GetObjectItemCaseSensitive(sh[0].info, "shared_findings")))
            rc = refuse("%s and %s found different things about the inputs themselves", s->name, sh[0].name);
    }
    for (int i = 0; i < n && !rc; i++)
        if (!seen[i])
            rc = refuse("shard %d/%d is missing", i, n);
    free(seen);
    return rc;
}

/* The peak one run would have seen of a figure each shard logged as
 * (packet, highest within it, value after it) triples: at each packet
 * every shard but the one whose connection it is only closes idle ones
 * (before the packet, as one run does), so the sum of the shards' values
 * there is the one run's.  -1 when a log is incomplete or malformed. */
static double gauge_peak(const shard *sh, int n, const char *name)
{
    const cJSON **at = calloc((size_t)n, sizeof *at);
    double *cur = calloc((size_t)n, sizeof *cur), peak = 0;
    for (int i = 0; at && cur && i < n; i++) {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(sh[i].info, "gauges"), name);
        if (!cJSON_IsArray(g) || cJSON_GetArraySize(g) % 3 || !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sh[i].info, "gauges_complete")))
            peak = -1;
        at[i] = g ? g->child : NULL;
    }
    while (at && cur && peak >= 0) {
        double t = -1;
        for (int i = 0; i < n; i++)
            if (at[i] && (t < 0 || at[i]->valuedouble < t))
                t = at[i]->valuedouble;
        if (t < 0)
            break;
        double sum = 0;
        for (int i = 0; i < n; i++) {
            if (at[i] && at[i]->valuedouble == t) {
                const cJSON *pk = at[i]->next, *af = pk ? pk->next : NULL;
                if (!af)
                    break;
                sum += pk->valuedouble;
                cur[i] = af->valuedouble;
                at[i] = af->next;
            } else {
                sum += cur[i];
            }
        }
        peak = dmax(peak, sum);
    }
    if (!at || !cur)
        peak = -1;
    free(at);
    free(cur);
    return peak;
}

/* The finding a merge adds when a shard reached a limit: one run would
 * have had more connections competing for the tables. */
static cJSON *limit_finding(unsigned nlimited, int n, const cJSON *inputs)
{
    const mpa_rule *r = mpa_rule_get(MPA_F_CAP_LIMIT);
    char msg[256];
    snprintf(msg, sizeof msg,
             "merged from %d shards, %u of which reached a limit (above): one run would have had more connections "
             "competing for the same limits, so its report may differ",
             n, nlimited);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNullToObject(o, "timestamp");
    cJSON_AddStringToObject(o, "id", r->id);
    cJSON_AddStringToObject(o, "severity", mpa_severity_str(r->severity));
    cJSON_AddNullToObject(o, "frame");
    cJSON_AddNullToObject(o, "direction");
    cJSON_AddNullToObject(o, "stream_offset");
    cJSON_AddStringToObject(o, "message", r->text);
    cJSON_AddStringToObject(o, "detail", msg);
    cJSON_AddStringToObject(o, "clause", r->clause);
    const cJSON *first = cJSON_GetArrayItem(inputs, 0);
    cJSON_AddStringToObject(o, "file", cJSON_IsString(first) ? first->valuestring : "-");
    static const char *const nulls[] = {"src_ip", "src_port", "dest_ip", "dest_port", "proto"};
    for (size_t i = 0; i < 5; i++)
        cJSON_AddNullToObject(o, nulls[i]);
    return o;
}

static void put(FILE *out, cJSON *o, int formatted)
{
    char *s = formatted ? cJSON_Print(o) : cJSON_PrintUnformatted(o);
    if (s)
        fputs(s, out);
    free(s);
}

static int cmp_done(const void *pa, const void *pb)
{
    const item *a = *(item *const *)pa, *b = *(item *const *)pb;
    for (int k = 0; k < 3; k++)
        if (a->d[k] != b->d[k])
            return a->d[k] < b->d[k] ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void put_conn(FILE *out, item *c, size_t *written)
{
    fputs(*written ? ",\n" : "\n", out);
    if (c->text)
        fputs(c->text, out);
    (*written)++;
}

/* The connections (in id order) in the order one run writes them: it
 * gets each as it completes and holds those ahead of an earlier one, at
 * most REPORT_REORDER_MAX of them and REPORT_REORDER_BYTES of their text
 * (report.c); past that, the earliest held goes out of id order. */
static void write_conns(item *conns, size_t nc, FILE *out)
{
    item **done = malloc((nc + 1) * sizeof *done), *pend[REPORT_REORDER_MAX + 1];
    if (!done) { /* no memory to replay the order: id order */
        for (size_t i = 0, w = 0; i < nc; i++)
            put_conn(out, &conns[i], &w);
        return;
    }
    for (size_t i = 0; i < nc; i++)
        done[i] = &conns[i];
    qsort(done, nc, sizeof *done, cmp_done);
    size_t npend = 0, bytes = 0, next = 1, written = 0;
    for (size_t i = 0; i <= nc; i++) {
        if (i < nc && done[i]->id < next) {
            put_conn(out, done[i], &written);
            continue;
        }
        if (i < nc) {
            pend[npend++] = done[i];
            bytes += done[i]->text ? strlen(done[i]->text) : 0;
        }
        for (;;) {
            size_t k = 0; /* the one due, if held */
            while (k < npend && pend[k]->id != next)
                k++;
            if (k == npend) {
                if (!npend || (i < nc && npend <= REPORT_REORDER_MAX && bytes <= REPORT_REORDER_BYTES))
                    break;
                /* too many held, or the end: the earliest held */
                for (size_t j = k = 0; j < npend; j++)
                    if (pend[j]->id < pend[k]->id)
                        k = j;
            }
            next = pend[k]->id + 1;
            bytes -= pend[k]->text ? strlen(pend[k]->text) : 0;
            put_conn(out, pend[k], &written);
            pend[k] = pend[--npend];
        }
    }
    for (size_t i = 0; i < nc; i++)
        free(conns[i].text);
    free(done);
}

static int merge(shard *sh, int n, FILE *out)
{
    const cJSON *inputs = cJSON_GetObjectItemCaseSensitive(sh[0].doc, "inputs");
    /* Connections, in the order one run numbers them. */
    size_t nconn = 0, ng = 0, seq = 0;
    for (int i = 0; i < n; i++) {
        nconn += sh[i].nconns + (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sh[i].doc, "connections"));
        ng += (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sh[i].doc, "findings"));
    }
    item *conns = calloc(nconn + 1, sizeof *conns), *gf = calloc(ng + 1, sizeof *gf);
    if (!conns || !gf) {
        free(conns);
        free(gf);
        return refuse("out of memory");
    }
    size_t nc = 0, nf = 0;
    unsigned nlimited = 0;
    for (int i = 0; i < n; i++) {
        cJSON *x;
        for (size_t k = 0; k < sh[i].nconns; k++) {
            const double *v = sh[i].conns[k].order;
            conns[nc++] = (item){NULL, v[0], v[1], seq++, {v[2], v[3], v[4]}, NULL, 0, &sh[i].conns[k]};
        }
        cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(sh[i].doc, "connections"))
        {
            const cJSON *so = cJSON_GetObjectItemCaseSensitive(x, "shard_order");
            double v[5] = {0};
            int good = cJSON_GetArraySize(so) == 5;
            for (int k = 0; good && k < 5; k++) {
                const cJSON *e = cJSON_GetArrayItem(so, k);
                good = cJSON_IsNumber(e);
                v[k] = good ? e->valuedouble : 0;
            }
            if (!good) {
                free(conns);
                free(gf);
                return refuse("%s: a connection without its shard_order", sh[i].name);
            }
            conns[nc++] = (item){x, v[0], v[1], seq++, {v[2], v[3], v[4]}, NULL, 0, NULL};
        }
        /* Findings about the input: shard 0's (the others have the same,
         * checked by count above); a shard's own limits: each one's. */
        int local = 0;
        cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(sh[i].doc, "findings"))
        {
            int own = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "shard_local"));
            local |= own;
            if (own || sh[i].index == 0) {
                const cJSON *fr = cJSON_GetObjectItemCaseSensitive(x, "frame");
                gf[nf++] = (item){x, input_index(inputs, str(x, "file")), cJSON_IsNumber(fr) ? fr->valuedouble : 0,
                                  seq++, {0, 0, 0}, NULL, 0, NULL};
            }
        }
        if (local || num(sh[i].sum, "connections_closed_early") > 0 || num(sh[i].info, "local_findings") > 0 ||
            !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sh[i].info, "gauges_complete")))
            nlimited++;
    }
    qsort(conns, nc, sizeof *conns, cmp_item);
    qsort(gf, nf, sizeof *gf, cmp_item);

    /* The summary: shard 0's, with what adds up added. */
    cJSON *sum = cJSON_Duplicate(sh[0].sum, 1);
    const cJSON *shared = cJSON_GetObjectItemCaseSensitive(sh[0].info, "shared_findings");
    double tcp = 0, mpa = 0, early = 0, ooo = 0, open = 0, elapsed = 0, sev[4] = {0};
    int input_status = 0;
    for (int i = 0; i < n; i++) {
        const cJSON *s = sh[i].sum, *f = cJSON_GetObjectItemCaseSensitive(s, "findings");
        tcp += num(s, "tcp_connections");
        mpa += num(s, "mpa_connections");
        early += num(s, "connections_closed_early");
        ooo = dmax(ooo, num(s, "out_of_order_peak_octets"));
        open = dmax(open, num(s, "open_connections_peak"));
        elapsed = dmax(elapsed, num(s, "elapsed_s"));
        for (int k = 0; k < 4; k++)
            sev[k] += num(f, sev_names[k]) - (i ? num(shared, sev_names[k]) : 0);
        if (num(sh[i].info, "input_status") != 0)
            input_status = 2;
    }
    cJSON *limit = nlimited ? limit_finding(nlimited, n, inputs) : NULL;
    if (limit)
        sev[MPA_SEV_ERROR - mpa_rule_get(MPA_F_CAP_LIMIT)->severity]++; /* sev[]: error, warning, note */
    setnum(sum, "tcp_connections", tcp);
    setnum(sum, "mpa_connections", mpa);
    setnum(sum, "connections_closed_early", early);
    double g_open = gauge_peak(sh, n, "open_connections"), g_ooo = gauge_peak(sh, n, "out_of_order_octets");
    setnum(sum, "out_of_order_peak_octets", g_ooo >= 0 ? g_ooo : ooo);
    setnum(sum, "open_connections_peak", g_open >= 0 ? g_open : open);
    cJSON *fs = cJSON_GetObjectItemCaseSensitive(sum, "findings");
    for (int k = 0; k < 4; k++)
        setnum(fs, sev_names[k], sev[k]);
    if (cJSON_GetObjectItemCaseSensitive(sum, "elapsed_s")) {
        setnum(sum, "elapsed_s", elapsed);
        setnum(sum, "mb_per_s", elapsed > 0 ? num(sum, "captured_octets") / 1e6 / elapsed : 0.0);
    }

    /* The document, laid out as report.c lays out one run's. */
    fputs("{\n\"tool\": \"mpa-audit\",\n\"schema\": 3,\n\"inputs\": ", out);
    put(out, (cJSON *)inputs, 0);
    fputs(",\n\"connections\": [", out);
    for (size_t i = 0; i < nc; i++) {
        cJSON *c = conns[i].o;
        conns[i].id = i + 1;
        if (!c) {
            const conn_text *t = conns[i].ct;
            size_t cap = t->len + 48;
            if ((conns[i].text = malloc(cap)) != NULL)
                snprintf(conns[i].text, cap, "{\n\t\"id\":\t%zu%.*s\n}", i + 1, (int)t->len, t->body);
            continue;
        }
        setnum(c, "id", (double)(i + 1));
        cJSON_DeleteItemFromObjectCaseSensitive(c, "shard_order");
        conns[i].text = cJSON_Print(c);
    }
    write_conns(conns, nc, out);
    fputs(nc ? "\n],\n\"findings\": [" : "],\n\"findings\": [", out);
    for (size_t i = 0; i < nf; i++) {
        cJSON_DeleteItemFromObjectCaseSensitive(gf[i].o, "shard_local");
        fputs(i ? ",\n" : "\n", out);
        put(out, gf[i].o, 0);
    }
    if (limit) {
        fputs(nf ? ",\n" : "\n", out);
        put(out, limit, 0);
        cJSON_Delete(limit);
    }
    fputs(nf || limit ? "\n],\n\"summary\": " : "],\n\"summary\": ", out);
    put(out, sum, 1);
    fputs("\n}\n", out);
    cJSON_Delete(sum);
    free(conns);
    free(gf);

    if (input_status)
        return 2;
    int fail_on = (int)num(sh[0].info, "fail_on");
    int fail = 0;
    for (int k = fail_on; k <= MPA_SEV_ERROR && k >= 0; k++)
        fail |= sev[MPA_SEV_ERROR - k] > 0; /* sev[] is error, warning, note */
    return fail ? 1 : 0;
}

int audit_merge(char *const *files, int nfiles, FILE *out)
{
    if (nfiles < 1)
        return refuse("no shard documents named");
    shard *sh = calloc((size_t)nfiles, sizeof *sh);
    if (!sh)
        return refuse("out of memory");
    int rc = 0;
    for (int i = 0; i < nfiles && !rc; i++)
        rc = load(&sh[i], files[i]);
    if (!rc)
        rc = check_together(sh, nfiles);
    if (!rc) {
        /* In shard order: shard 0's findings about the input are taken. */
        for (int i = 0; i < nfiles; i++)
            while (sh[i].index != i) {
                shard t = sh[sh[i].index];
                sh[sh[i].index] = sh[i];
                sh[i] = t;
            }
        rc = merge(sh, nfiles, out);
    }
    for (int i = 0; i < nfiles; i++) {
        cJSON_Delete(sh[i].doc);
        free(sh[i].text);
        free(sh[i].conns);
    }
    free(sh);
    return rc;
}

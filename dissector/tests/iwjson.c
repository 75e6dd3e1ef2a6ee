/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iwjson: the JSON side of the plugin's golden tests
 * (scripts/plugin-golden.sh).  Reads one JSON document on standard
 * input.
 *
 *   iwjson tshark          tshark -T json output -> the golden form: an
 *                          array with one object per frame that has an
 *                          iwmpa, iwddp or iwrdmap layer,
 *                          {"frame": N, "iwmpa": {...}, ...}, the layers
 *                          as tshark wrote them.  Frames are numbered by
 *                          their place in tshark's array (run it without
 *                          -Y).  What tshark adds around the layers
 *                          ("_index" holds a date) is left out.
 *                          Octet strings longer than 32 octets are cut to
 *                          their first 16, followed by their length and
 *                          FNV-1a 64 hash: the golden files stay small
 *                          and still change when an octet does.
 *   iwjson conn-ids        mpa-audit --json -> the sorted set of finding
 *                          ids of its connections (top-level findings,
 *                          such as a file cut short, left out), on one
 *                          line, "-" for none.  The plugin reports per
 *                          connection only, so this is what it must
 *                          report.
 *   iwjson frames ID       mpa-audit --json -> the frames of its
 *                          connection findings with that id, sorted, one
 *                          line, "-" for none.
 *
 * Exit status 0, 1 when the input is not the JSON expected (with a
 * message), 2 for bad usage.
 */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/slurp.h"

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* "xx:xx:...", longer than 32 octets? */
static int long_octets(const char *s)
{
    size_t n = strlen(s);
    if (n < 3 * 33 - 1 || n % 3 != 2)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (i % 3 == 2 ? s[i] != ':' : !strchr("0123456789abcdef", s[i]))
            return 0;
    return 1;
}

static void shorten(cJSON *x)
{
    for (cJSON *c = x->child; c; c = c->next) {
        if (cJSON_IsString(c) && long_octets(c->valuestring)) {
            const char *v = c->valuestring;
            unsigned long long h = 14695981039346656037ull;
            for (const char *p = v; *p; p++) {
                h ^= (unsigned char)*p;
                h *= 1099511628211ull;
            }
            char buf[160];
            snprintf(buf, sizeof buf, "%.47s... [%zu octets, fnv1a64 %016llx]", v, (strlen(v) + 1) / 3, h);
            cJSON_SetValuestring(c, buf);
        } else {
            shorten(c);
        }
    }
}

static int tshark(cJSON *doc)
{
    static const char *const ours[] = {"iwmpa", "iwddp", "iwrdmap"};
    if (!cJSON_IsArray(doc)) {
        fprintf(stderr, "iwjson: tshark's output is not an array of packets\n");
        return 1;
    }
    cJSON *out = cJSON_CreateArray();
    int num = 0;
    const cJSON *pkt;
    cJSON_ArrayForEach(pkt, doc)
    {
        num++;
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(pkt, "_source");
        const cJSON *layers = cJSON_GetObjectItemCaseSensitive(src, "layers");
        if (!cJSON_IsObject(layers)) {
            fprintf(stderr, "iwjson: packet %d has no _source.layers\n", num);
            cJSON_Delete(out);
            return 1;
        }
        cJSON *o = NULL;
        const cJSON *l;
        /* In tshark's order; a layer that comes twice is kept twice. */
        cJSON_ArrayForEach(l, layers)
        {
            for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++) {
                if (!l->string || strcmp(l->string, ours[i]) != 0)
                    continue;
                if (!o) {
                    o = cJSON_CreateObject();
                    cJSON_AddNumberToObject(o, "frame", num);
                }
                cJSON_AddItemToObject(o, l->string, cJSON_Duplicate(l, 1));
            }
        }
        if (o)
            cJSON_AddItemToArray(out, o);
    }
    shorten(out);
    /* One frame after the other, each from the first column: diffs
     * read frame by frame. */
    int rc = 0;
    printf("[");
    const cJSON *o;
    cJSON_ArrayForEach(o, out)
    {
        char *s = cJSON_Print(o);
        if (!s)
            rc = 1;
        printf("%s\n%s", o == out->child ? "" : ",", s ? s : "null");
        free(s);
    }
    printf("\n]\n");
    cJSON_Delete(out);
    return rc;
}

/* The connections' findings of an mpa-audit --json document. */
static const cJSON *connections(const cJSON *doc)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(doc, "connections");
    if (!cJSON_IsArray(c))
        fprintf(stderr, "iwjson: not mpa-audit --json output (no connections array)\n");
    return cJSON_IsArray(c) ? c : NULL;
}

static int conn_ids(const cJSON *doc)
{
    const cJSON *conns = connections(doc);
    if (!conns)
        return 1;
    size_t n = 0, cap = 16;
    const char **ids = malloc(cap * sizeof *ids);
    const cJSON *c, *f;
    cJSON_ArrayForEach(c, conns)
    {
        cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(c, "findings"))
        {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(f, "id");
            if (!cJSON_IsString(id))
                continue;
            if (n == cap) {
                cap *= 2;
                const char **nid = realloc(ids, cap * sizeof *ids);
                if (!nid)
                    return 1;
                ids = nid;
            }
            ids[n++] = id->valuestring;
        }
    }
    qsort(ids, n, sizeof *ids, cmp_str);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!i || strcmp(ids[i], ids[i - 1]) != 0)
            printf("%s%s", k++ ? " " : "", ids[i]);
    printf("%s\n", k ? "" : "-");
    free(ids);
    return 0;
}

static int frames(const cJSON *doc, const char *want)
{
    const cJSON *conns = connections(doc);
    if (!conns)
        return 1;
    size_t n = 0, cap = 16;
    int *fr = malloc(cap * sizeof *fr);
    const cJSON *c, *f;
    cJSON_ArrayForEach(c, conns)
    {
        cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(c, "findings"))
        {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(f, "id");
            const cJSON *num = cJSON_GetObjectItemCaseSensitive(f, "frame");
            if (!cJSON_IsString(id) || strcmp(id->valuestring, want) != 0 || !cJSON_IsNumber(num))
                continue;
            if (n == cap) {
                cap *= 2;
                int *nf = realloc(fr, cap * sizeof *fr);
                if (!nf)
                    return 1;
                fr = nf;
            }
            fr[n++] = num->valueint;
        }
    }
    qsort(fr, n, sizeof *fr, cmp_int);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!i || fr[i] != fr[i - 1])
            printf("%s%d", k++ ? " " : "", fr[i]);
    printf("%s\n", k ? "" : "-");
    free(fr);
    return 0;
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    if (!(argc == 2 && (!strcmp(cmd, "tshark") || !strcmp(cmd, "conn-ids"))) &&
        !(argc == 3 && !strcmp(cmd, "frames"))) {
        fprintf(stderr, "usage: iwjson tshark | conn-ids | frames ID   (JSON on standard input)\n");
        return 2;
    }
    size_t n;
    char *text = slurp(&n);
    if (!text)
        return 1;
    cJSON *doc = cJSON_ParseWithLength(text, n);
    if (!doc) {
        const char *at = cJSON_GetErrorPtr();
        fprintf(stderr, "iwjson: not a JSON document (near: %.40s)\n", at ? at : "?");
        free(text);
        return 1;
    }
    int rc = !strcmp(cmd, "tshark") ? tshark(doc) : !strcmp(cmd, "conn-ids") ? conn_ids(doc) : frames(doc, argv[2]);
    cJSON_Delete(doc);
    free(text);
    return rc;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jsonids: reads mpa-audit's --json (or --jsonl) output on standard
 * input, checks it against the contract of docs/mpa-audit-json.md, and
 * prints the sorted set of finding ids it holds (one line, space
 * separated, "-" for none).  Exit status 0, or 1 with a message naming
 * what breaks the contract.  Used by scripts/audit-golden.sh.
 *
 *   jsonids [--jsonl]
 */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/slurp.h"

#include "mpa/findings.h"

static int bad;
static unsigned seen[MPA_F__COUNT];

#define BAD(...)                                                             \
    do {                                                                     \
        fprintf(stderr, "jsonids: " __VA_ARGS__);                            \
        fputc('\n', stderr);                                                 \
        bad = 1;                                                             \
    } while (0)

static int has_type(const cJSON *o, const char *k, int type_mask)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!v)
        return 0;
    return (v->type & type_mask) != 0;
}

/* An RFC 3339 UTC time to the microsecond: 2024-01-01T00:00:00.000347Z. */
static int is_time(const cJSON *v)
{
    if (!cJSON_IsString(v))
        return 0;
    const char *pat = "dddd-dd-ddTdd:dd:dd.ddddddZ", *s = v->valuestring;
    for (; *pat; pat++, s++)
        if (*pat == 'd' ? !(*s >= '0' && *s <= '9') : *s != *pat)
            return 0;
    return *s == 0;
}

/* The 5-tuple of a finding or a connection line (schema 3): present
 * (null only for findings not tied to a connection). */
static void flow(const cJSON *f, const char *where, const char *id, int tied)
{
    int ty = tied ? 0 : cJSON_NULL;
    if (!has_type(f, "src_ip", cJSON_String | ty) || !has_type(f, "src_port", cJSON_Number | ty) ||
        !has_type(f, "dest_ip", cJSON_String | ty) || !has_type(f, "dest_port", cJSON_Number | ty) ||
        !has_type(f, "proto", cJSON_String | ty))
        BAD("%s: %s lacks src_ip/src_port/dest_ip/dest_port/proto", where, id);
}

/* One finding object: the fields the contract promises. */
static void finding(const cJSON *f, const char *where, int tied)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(f, "id");
    const cJSON *sev = cJSON_GetObjectItemCaseSensitive(f, "severity");
    if (!cJSON_IsString(id) || !cJSON_IsString(sev)) {
        BAD("%s: a finding without string id/severity", where);
        return;
    }
    mpa_finding_id fid = mpa_rule_find(id->valuestring);
    if (fid == MPA_F__COUNT) {
        BAD("%s: id %s is not in the catalogue", where, id->valuestring);
        return;
    }
    if (strcmp(sev->valuestring, mpa_severity_str(mpa_rule_get(fid)->severity)) != 0)
        BAD("%s: %s with severity %s", where, id->valuestring, sev->valuestring);
    if (!has_type(f, "frame", cJSON_Number | cJSON_NULL) || !has_type(f, "direction", cJSON_String | cJSON_NULL) ||
        !has_type(f, "stream_offset", cJSON_Number | cJSON_NULL) || !has_type(f, "message", cJSON_String))
        BAD("%s: %s lacks frame/direction/stream_offset/message", where, id->valuestring);
    /* The message is the rule's fixed text (one per id, so reports group
     * by it); the instance values are in detail. */
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(f, "message");
    if (cJSON_IsString(msg) && strcmp(msg->valuestring, mpa_rule_get(fid)->text) != 0)
        BAD("%s: %s message \"%s\" is not the rule's text", where, id->valuestring, msg->valuestring);
    if (!has_type(f, "detail", cJSON_String))
        BAD("%s: %s lacks detail", where, id->valuestring);
    /* Schema 3: the capture time of its frame, and its 5-tuple.  Only a
     * finding made before any packet was read has no time. */
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(f, "timestamp");
    if (!is_time(ts) && !(cJSON_IsNull(ts) && !tied && cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(f, "frame"))))
        BAD("%s: %s without an RFC 3339 timestamp", where, id->valuestring);
    flow(f, where, id->valuestring, tied);
    seen[fid]++;
}

static void connection(const cJSON *c, int want_findings)
{
    const cJSON *fs = cJSON_GetObjectItemCaseSensitive(c, "findings");
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(c, "terminates");
    if (want_findings && !cJSON_IsArray(fs))
        BAD("a connection without a findings array");
    if (!cJSON_IsArray(ts))
        BAD("a connection without a terminates array");
    const cJSON *x;
    cJSON_ArrayForEach(x, fs) finding(x, "connection", 1);
    if (!is_time(cJSON_GetObjectItemCaseSensitive(c, "first_timestamp")) ||
        !is_time(cJSON_GetObjectItemCaseSensitive(c, "last_timestamp")))
        BAD("a connection without first_timestamp/last_timestamp");
    cJSON_ArrayForEach(x, ts)
    {
        if (!has_type(x, "from", cJSON_String) || !has_type(x, "layer", cJSON_Number) ||
            !has_type(x, "etype", cJSON_Number) || !has_type(x, "code", cJSON_Number) ||
            !has_type(x, "name", cJSON_String))
            BAD("a terminate without from/layer/etype/code/name");
    }
}

/* A JSON Lines object's event_type (Suricata EVE's name for the kind). */
static void event_type(const cJSON *o, const char *want)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "event_type");
    if (!cJSON_IsString(v) || strcmp(v->valuestring, want))
        BAD("jsonl: a line without event_type \"%s\"", want);
}

int main(int argc, char **argv)
{
    int jsonl = argc > 1 && strcmp(argv[1], "--jsonl") == 0;
    size_t n;
    char *text = slurp(&n);
    if (!text)
        return 2;
    if (jsonl) {
        int summary = 0;
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
            cJSON *o = cJSON_Parse(line);
            const cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "type");
            if (!o || !cJSON_IsString(type)) {
                BAD("a line that is not a typed JSON object: %.80s", line);
            } else if (!strcmp(type->valuestring, "finding")) {
                int tied = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "connection"));
                finding(o, "jsonl", tied);
                if (!has_type(o, "initiator_ip", cJSON_String | cJSON_NULL) ||
                    !has_type(o, "initiator_port", cJSON_Number | cJSON_NULL) ||
                    !has_type(o, "responder_ip", cJSON_String | cJSON_NULL) ||
                    !has_type(o, "responder_port", cJSON_Number | cJSON_NULL))
                    BAD("jsonl: a finding line without initiator_ip/_port, responder_ip/_port");
                event_type(o, "mpa_finding");
            } else if (!strcmp(type->valuestring, "connection")) {
                connection(o, 0);
                if (!is_time(cJSON_GetObjectItemCaseSensitive(o, "timestamp")))
                    BAD("jsonl: a connection line without an RFC 3339 timestamp");
                flow(o, "jsonl", "a connection line", 1);
                event_type(o, "mpa_connection");
            } else if (!strcmp(type->valuestring, "summary")) {
                summary++;
                event_type(o, "mpa_summary");
                if (!has_type(o, "timestamp", cJSON_String | cJSON_NULL))
                    BAD("jsonl: a summary line without a timestamp");
            } else {
                BAD("unknown type %s", type->valuestring);
            }
            cJSON_Delete(o);
        }
        if (summary != 1)
            BAD("%d summary lines", summary);
    } else {
        cJSON *doc = cJSON_Parse(text);
        if (!doc) {
            BAD("not a JSON document (near: %.40s)", cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() : "?");
        } else {
            const cJSON *conns = cJSON_GetObjectItemCaseSensitive(doc, "connections");
            const cJSON *gf = cJSON_GetObjectItemCaseSensitive(doc, "findings");
            if (!cJSON_IsArray(conns) || !cJSON_IsArray(gf))
                BAD("no connections/findings arrays at the top");
            const cJSON *x;
            cJSON_ArrayForEach(x, conns) connection(x, 1);
            cJSON_ArrayForEach(x, gf) finding(x, "top-level", 0);
            cJSON_Delete(doc);
        }
    }
    free(text);
    const char *ids[MPA_F__COUNT];
    size_t k = 0;
    for (unsigned id = 0; id < MPA_F__COUNT; id++)
        if (seen[id])
            ids[k++] = mpa_rule_get((mpa_finding_id)id)->id;
    qsort(ids, k, sizeof ids[0], cmp_str);
    for (size_t i = 0; i < k; i++)
        printf("%s%s", i ? " " : "", ids[i]);
    printf("%s\n", k ? "" : "-");
    return bad;
}

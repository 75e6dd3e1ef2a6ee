/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where a JSON path of a scenario is in its text (scen_priv.h): the
 * parser's messages say file:line:column as compilers do.  cJSON keeps
 * no positions, so the text is walked again along the path, the first
 * of duplicate keys as cJSON takes it.  The text has been parsed by
 * cJSON already, but the walk checks every bound anyway.
 */
#include <stdlib.h>
#include <string.h>

#include "scen_priv.h"

typedef struct walk {
    const char *t;
    size_t n, i;
} walk;

static void ws(walk *w)
{
    while (w->i < w->n && (w->t[w->i] == ' ' || w->t[w->i] == '\t' || w->t[w->i] == '\n' || w->t[w->i] == '\r'))
        w->i++;
}

/* Past a string starting at its quote; 0, or -1 at the end of the text. */
static int skip_string(walk *w)
{
    for (w->i++; w->i < w->n; w->i++) {
        if (w->t[w->i] == '\\')
            w->i++;
        else if (w->t[w->i] == '"') {
            w->i++;
            return 0;
        }
    }
    return -1;
}

/* Past one value (nested ones by their brackets); 0 or -1. */
static int skip_value(walk *w)
{
    ws(w);
    if (w->i >= w->n)
        return -1;
    if (w->t[w->i] == '"')
        return skip_string(w);
    if (w->t[w->i] != '{' && w->t[w->i] != '[') {
        while (w->i < w->n && !strchr(",]} \t\r\n", w->t[w->i]))
            w->i++;
        return 0;
    }
    unsigned depth = 0;
    while (w->i < w->n) {
        char ch = w->t[w->i];
        if (ch == '"') {
            if (skip_string(w))
                return -1;
            continue;
        }
        if (ch == '{' || ch == '[')
            depth++;
        else if ((ch == '}' || ch == ']') && --depth == 0) {
            w->i++;
            return 0;
        }
        w->i++;
    }
    return -1;
}

/* Past ch (after blanks); 0, or -1 when ch is not there. */
static int eat(walk *w, char ch)
{
    ws(w);
    if (w->i >= w->n || w->t[w->i] != ch)
        return -1;
    w->i++;
    return 0;
}

/* In the object at w->i, the member key[0..klen): w->i at its key's
 * quote; -1 when there is none. */
static int find_key(walk *w, const char *key, size_t klen)
{
    if (eat(w, '{'))
        return -1;
    for (;;) {
        ws(w);
        if (w->i >= w->n || w->t[w->i] != '"')
            return -1;
        size_t at = w->i;
        if (skip_string(w))
            return -1;
        if (w->i - at - 2 == klen && !memcmp(w->t + at + 1, key, klen)) {
            w->i = at;
            return 0;
        }
        if (eat(w, ':') || skip_value(w) || eat(w, ','))
            return -1;
    }
}

/* In the array at w->i, element k: w->i at its start; -1 when none. */
static int find_elem(walk *w, unsigned long k)
{
    if (eat(w, '['))
        return -1;
    for (unsigned long e = 0;; e++) {
        ws(w);
        if (w->i >= w->n || w->t[w->i] == ']')
            return -1;
        if (e == k)
            return 0;
        if (skip_value(w) || eat(w, ','))
            return -1;
    }
}

/* From a member's key to its value. */
static int to_value(walk *w)
{
    if (skip_string(w) || eat(w, ':'))
        return -1;
    ws(w);
    return 0;
}

int sp_where(const char *text, size_t len, const char *path, unsigned *line, unsigned *col)
{
    if (!text || path[0] != '$')
        return -1;
    walk w = {text, len, 0};
    ws(&w);
    size_t best = w.i; /* the deepest place the path was followed to */
    const char *p = path + 1;
    while (*p) {
        size_t at;
        if (*p == '.') {
            const char *k = ++p;
            while (*p && *p != '.' && *p != '[')
                p++;
            if (find_key(&w, k, (size_t)(p - k)))
                break;
            at = w.i;
            if (*p && to_value(&w))
                break;
        } else if (*p == '[') {
            char *end;
            unsigned long k = strtoul(p + 1, &end, 10);
            if (*end != ']' || find_elem(&w, k))
                break;
            p = end + 1;
            at = w.i;
        } else {
            break;
        }
        best = at;
    }
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < best && i < len; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
    return 0;
}

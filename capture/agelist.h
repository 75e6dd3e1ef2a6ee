/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An intrusive list of items by age, oldest first: the connection table
 * (mpa-audit, least recently active first) and the IP fragment table
 * (first fragment first) both give up their oldest item when a limit is
 * reached or time passes.  An item embeds an age_node and is found from
 * it with AGE_ITEM.
 */
#ifndef CAPTURE_AGELIST_H
#define CAPTURE_AGELIST_H

#include <stddef.h>

typedef struct age_node {
    struct age_node *older, *newer;
} age_node;

typedef struct age_list {
    age_node *oldest, *newest;
} age_list;

/* The item of type `type` whose member `member` is the node n (NULL: NULL). */
#define AGE_ITEM(n, type, member) ((n) ? (type *)(void *)((char *)(n) - offsetof(type, member)) : (type *)NULL)

static inline void age_unlink(age_list *l, age_node *n)
{
    if (n->older)
        n->older->newer = n->newer;
    else
        l->oldest = n->newer;
    if (n->newer)
        n->newer->older = n->older;
    else
        l->newest = n->older;
    n->older = n->newer = NULL;
}

/* n becomes the newest item. */
static inline void age_append(age_list *l, age_node *n)
{
    n->older = l->newest;
    n->newer = NULL;
    if (l->newest)
        l->newest->newer = n;
    else
        l->oldest = n;
    l->newest = n;
}

#endif

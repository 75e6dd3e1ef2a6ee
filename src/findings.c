/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rule table, generated from include/mpa/findings.def (the
 * requirement catalogue; docs/requirements.md is written from it).
 */
#include <string.h>

#include "mpa/findings.h"

#define SEV_MUST MPA_SEV_ERROR
#define SEV_SHOULD MPA_SEV_WARNING
#define SEV_NOTE MPA_SEV_NOTE

static const mpa_rule rules[MPA_F__COUNT] = {
#define MPA_RULE(sym, id, level, clause, checked, text) \
    [MPA_F_##sym] = {id, #level, SEV_##level, clause, checked, text},
#include "mpa/findings.def"
#undef MPA_RULE
};

const mpa_rule *mpa_rule_get(mpa_finding_id id)
{
    if ((unsigned)id >= MPA_F__COUNT)
        return NULL;
    return &rules[id];
}

mpa_finding_id mpa_rule_find(const char *id)
{
    if (!id)
        return MPA_F__COUNT;
    for (unsigned i = 0; i < MPA_F__COUNT; i++)
        if (strcmp(rules[i].id, id) == 0)
            return (mpa_finding_id)i;
    return MPA_F__COUNT;
}

const char *mpa_severity_str(mpa_severity sev)
{
    switch (sev) {
    case MPA_SEV_NOTE:
        return "note";
    case MPA_SEV_WARNING:
        return "warning";
    case MPA_SEV_ERROR:
        return "error";
    }
    return "unknown";
}

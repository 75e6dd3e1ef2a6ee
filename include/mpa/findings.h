/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Findings: non-conformance with a named rule of the requirement
 * catalogue.
 *
 * Everything here is generated from include/mpa/findings.def, the one
 * table of rules and the project's catalogue (docs/requirements.md is
 * written from it).  A front end that needs its own per-rule object (a
 * Wireshark expert info, a JSON id) includes findings.def with its own
 * MPA_RULE definition, so a new row reaches every front end at once.
 */
#ifndef MPA_FINDINGS_H
#define MPA_FINDINGS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mpa_finding_id {
#define MPA_RULE(sym, id, level, clause, checked, text) MPA_F_##sym,
#include "findings.def"
#undef MPA_RULE
    MPA_F__COUNT
} mpa_finding_id;

typedef enum mpa_severity {
    MPA_SEV_NOTE = 0,
    MPA_SEV_WARNING = 1,
    MPA_SEV_ERROR = 2,
} mpa_severity;

typedef struct mpa_rule {
    const char *id;      /* "MPA-FRM-KEY-REQ": the contract with reports */
    const char *level;   /* "MUST", "SHOULD" or "NOTE" as in the catalogue */
    mpa_severity severity;
    const char *clause;  /* where the rule comes from */
    int checked;         /* who reports it: 1 libmpa, from the octets; 2 the
                            capture reader (mpa-audit); 0 only the
                            conformance suites (time, local state) */
    const char *text;    /* the rule, one sentence */
} mpa_rule;

/* The rule of a finding id; NULL when id is out of range. */
const mpa_rule *mpa_rule_get(mpa_finding_id id);

/* Look a rule up by its catalogue id ("MPA-CRC-VALID"); returns
 * MPA_F__COUNT when unknown. */
mpa_finding_id mpa_rule_find(const char *id);

/* "error", "warning", "note" (the JSON/report spelling); never NULL. */
const char *mpa_severity_str(mpa_severity sev);

#ifdef __cplusplus
}
#endif
#endif

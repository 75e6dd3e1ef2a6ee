/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one table of findings (include/mpa/findings.def), which is the
 * project's requirement catalogue (docs/requirements.md is generated from
 * it: `make catalogue`; `make unit` also checks that the committed file is
 * what the generator writes).
 *
 * Checked here: every id ever published is still a row (ids are a
 * contract and are never renamed), every row is well formed (id style,
 * level and the severity it maps to, a clause naming a document, a rule
 * in one sentence, nothing that would break the generated Markdown or
 * TSV), and the lookups.
 */
#include <ctype.h>

#include "mpa/findings.h"
#include "t.h"

/* The ids published so far.  Add new ones; never remove or edit one. */
static const char *const published[] = {
    "MPA-FRM-KEY-REQ", "MPA-FRM-KEY-REP", "MPA-FRM-KEY-CHECK", "MPA-FRM-REV",
    "MPA-FRM-REV-ENH", "MPA-FRM-REV1-ACCEPT", "MPA-FRM-RES", "MPA-FRM-R-REQ", "MPA-FRM-PDLEN-MAX",
    "MPA-FRM-PDLEN-MATCH", "MPA-FRM-WHOLE", "MPA-FRM-S-PDLEN", "MPA-STA-REQ-FIRST",
    "MPA-STA-RESP-WAIT", "MPA-STA-BAD-REQ-CLOSE", "MPA-STA-REJECT", "MPA-STA-BAD-REP-CLOSE",
    "MPA-STA-NO-FPDU-AFTER-REJECT", "MPA-STA-RESP-FPDU-WAIT", "MPA-STA-FIRST-MARKER",
    "MPA-STA-INIT-INIT", "MPA-STA-RESP-RESP", "MPA-STA-TIMEOUT", "MPA-STA-INIT-FPDU-WAIT",
    "MPA-STA-RESP-FULL-OP", "MPA-FPD-PAD", "MPA-FPD-ULPDU-MAX", "MPA-FPD-ZERO-LEN", "MPA-FPD-ALIGN",
    "MPA-FPD-MULPDU", "MPA-MRK-PRESENT", "MPA-MRK-PTR", "MPA-MRK-SAME-FPDU", "MPA-MRK-RES",
    "MPA-MRK-LEN-AGREE", "MPA-CRC-NEGOTIATE", "MPA-CRC-VALID", "MPA-CRC-DEFAULT",
    "MPA-ERR-NO-DELIVER", "MPA-ERR-KEEP-TCP", "MPA-ENH-REPLY-ENH", "MPA-ENH-REPLY-PLAIN",
    "MPA-ENH-UNSUPPORTED", "MPA-ENH-A-ECHO", "MPA-ENH-BCD-ZERO", "MPA-ENH-INIT-OPTS",
    "MPA-ENH-RESP-OPT", "MPA-ENH-ORD-LE-IRD", "MPA-ENH-IRD-GE-ORD", "MPA-ENH-3FFF",
    "MPA-ENH-INIT-ADJUST", "MPA-ENH-RTR-SEND", "MPA-ENH-RTR-MATCH", "MPA-ENH-RTR-FIRST",
    "MPA-ENH-RTR-READ-IRD", "MPA-ENH-TERM-5", "MPA-TRM-FORMAT", "MPA-TRM-CODE", "MPA-TRM-LAST",
    "MPA-DDP-VERSION", "MPA-RDMAP-VERSION", "MPA-DDP-RSVD", "MPA-RDMAP-RSVD", "MPA-RDMAP-OPCODE",
    "MPA-RDMAP-TAGGED", "MPA-DDP-QN", "MPA-RDMAP-ONE-SEG", "MPA-RDMAP-ATOMIC", "MPA-LEG-STARTKEY",
    "MPA-LEG-RTR-FRAME", "MPA-CAP-HOLE", "MPA-CAP-RESYNC", "MPA-CAP-MIDSTREAM", "MPA-CAP-OVERLAP",
    "MPA-CAP-TRUNCATED", "MPA-CAP-UNREADABLE", "MPA-CAP-LIMIT",
};

static int id_style_ok(const char *id)
{
    if (strncmp(id, "MPA-", 4) != 0 || strlen(id) > 40)
        return 0;
    int parts = 1;
    for (const char *p = id + 4; *p; p++) {
        if (*p == '-') {
            if (p[1] == '-' || p[1] == 0 || p[-1] == '-')
                return 0;
            parts++;
        } else if (!isupper((unsigned char)*p) && !isdigit((unsigned char)*p)) {
            return 0;
        }
    }
    return parts >= 2; /* MPA-AREA-NAME */
}

/* One line of plain text: the generated table cells and TSV columns. */
static int one_line(const char *s)
{
    return s && s[0] && strpbrk(s, "|\t\n") == NULL;
}

static void test_published_ids_are_rows(void)
{
    for (size_t i = 0; i < sizeof published / sizeof published[0]; i++)
        T_CHECK(mpa_rule_find(published[i]) != MPA_F__COUNT, "%s was published and has no row: ids are never renamed",
                published[i]);
}

static void test_rows_well_formed(void)
{
    for (unsigned id = 0; id < MPA_F__COUNT; id++) {
        const mpa_rule *r = mpa_rule_get((mpa_finding_id)id);
        T_CHECK(id_style_ok(r->id), "%s: not an id in the catalogue's style", r->id);
        T_EQ(mpa_rule_find(r->id), id); /* unique */
        /* MUST -> error, SHOULD -> warning, NOTE -> note. */
        int must = strcmp(r->level, "MUST") == 0, should = strcmp(r->level, "SHOULD") == 0,
            note = strcmp(r->level, "NOTE") == 0;
        T_CHECK(must || should || note, "%s: level %s", r->id, r->level);
        T_EQ(r->severity, must ? MPA_SEV_ERROR : should ? MPA_SEV_WARNING : MPA_SEV_NOTE);
        T_CHECK(r->checked >= 0 && r->checked <= 2, "%s: checked %d", r->id, r->checked);
        /* The clause names its document. */
        T_CHECK(one_line(r->clause) && (strncmp(r->clause, "RFC ", 4) == 0 || strncmp(r->clause, "draft-", 6) == 0 ||
                                        strncmp(r->clause, "capture", 7) == 0 || strncmp(r->clause, "2007 ", 5) == 0),
                "%s: clause \"%s\" names no document", r->id, r->clause ? r->clause : "");
        T_CHECK(one_line(r->text) && r->text[strlen(r->text) - 1] == '.', "%s: the rule is not one sentence", r->id);
        /* What the capture shows is never a device's fault. */
        if (strncmp(r->id, "MPA-CAP-", 8) == 0)
            T_CHECK(note && r->checked != 0, "%s: a capture id is a NOTE that a reader reports", r->id);
    }
}

static void test_lookups(void)
{
    T_CHECK(mpa_rule_get(MPA_F__COUNT) == NULL, "out of range");
    T_EQ(mpa_rule_find("MPA-NO-SUCH"), MPA_F__COUNT);
    T_EQ(mpa_rule_find(NULL), MPA_F__COUNT);
    T_EQ(mpa_rule_find("MPA-CRC-VALID"), MPA_F_CRC_VALID);
    T_STREQ(mpa_rule_get(MPA_F_CRC_VALID)->id, "MPA-CRC-VALID");
    T_STREQ(mpa_severity_str(MPA_SEV_ERROR), "error");
    T_STREQ(mpa_severity_str(MPA_SEV_WARNING), "warning");
    T_STREQ(mpa_severity_str(MPA_SEV_NOTE), "note");
}

int main(void)
{
    t_name = "findings";
    test_published_ids_are_rows();
    test_rows_well_formed();
    test_lookups();
    return t_done();
}

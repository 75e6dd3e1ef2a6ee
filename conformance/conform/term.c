/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mpa-conform's terminal output (term.h). */
#include "term.h"

void term_test(FILE *f, int v, int mandatory, const char *id, double ms, const char *reason, int quiet)
{
    static const char *const vw[] = {"PASS", "FAIL", "ERROR", "SKIP"};
    if (quiet && v != TALLY_FAIL && v != TALLY_ERROR)
        return;
    fprintf(f, "%-5s %-3s %-44s", vw[v], mandatory ? "M" : "FYI", id);
    if (v != TALLY_SKIP)
        fprintf(f, " %8.1f ms", ms);
    fputc('\n', f);
    if (v != TALLY_PASS)
        fprintf(f, "      %s\n", reason ? reason : "");
}

void term_summary(FILE *f, const conf_tally *c, double total_ms, int interrupted)
{
    const unsigned *n = c->n, *m = c->m;
    fprintf(f, "\n%u tests in %.1f s: %u passed, %u failed, %u errors, %u skipped", n[TALLY_TOTAL],
            total_ms / 1000.0, n[TALLY_PASS], n[TALLY_FAIL], n[TALLY_ERROR], n[TALLY_SKIP]);
    fprintf(f, "; mandatory: %u of %u passed%s\n", m[TALLY_PASS], m[TALLY_TOTAL] - m[TALLY_SKIP],
            m[TALLY_FAIL]                    ? " - the device does NOT conform"
            : m[TALLY_ERROR]                 ? ""
            : m[TALLY_TOTAL] - m[TALLY_SKIP] ? " - conformant on what ran"
                                             : "");
    if (interrupted)
        fprintf(f, "(interrupted)\n");
}

void term_reports(FILE *f, const char *json, const char *junit, const char *html)
{
    fprintf(f, "reports: %s, %s, %s\n", json, junit, html);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Verdict names, classes and badges of the HTML report (verdict.h). */
#include "verdict.h"

#include <string.h>

#include "esc.h"

const vd_info vd_tab[VD_UNKNOWN + 1] = {
    [VD_PASS] = {"pass", "PASS", "pass"},     [VD_FAIL] = {"fail", "FAIL", "fail"},
    [VD_ERROR] = {"error", "ERROR", "error"}, [VD_SKIP] = {"skip", "SKIP", "skip"},
    [VD_DONE] = {"done", "done", "done"},     [VD_NOTRUN] = {"not run", "not run", "notrun"},
    [VD_UNKNOWN] = {NULL, "?", "unknown"},
};

vd vd_of(const char *s)
{
    if (s)
        for (int i = 0; i < VD_UNKNOWN; i++)
            if (!strcmp(s, vd_tab[i].json))
                return (vd)i;
    return VD_UNKNOWN;
}

vd vd_of_test(const char *s)
{
    vd v = vd_of(s);
    return v == VD_DONE || v == VD_NOTRUN ? VD_UNKNOWN : v;
}

void vd_badge(FILE *o, vd v, const char *raw)
{
    html_printf(o, "<span class=\"v v-%s\">%s", vd_tab[v].cls, vd_tab[v].label);
    if (v == VD_UNKNOWN) {
        fputs(" ", o);
        if (raw)
            html_esc_trunc(o, raw, 24);
        else
            fputs("(none)", o);
    }
    fputs("</span>", o);
}

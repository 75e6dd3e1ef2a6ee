/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The script's variables during a run (see runner.h): those of "vars"
 * and --set, then the captures of expect steps; kept in the run's
 * result, so the report shows their last values.
 */
#include <stdio.h>
#include <string.h>

#include "runner.h"

int rn_var_get(const runner *R, const char *name, int64_t *v)
{
    const run_result *r = R->r;
    for (unsigned i = 0; i < r->nvars; i++)
        if (!strcmp(r->vars[i], name)) {
            *v = r->var_val[i];
            return 0;
        }
    return -1;
}

void rn_var_set(runner *R, const char *name, int64_t v)
{
    run_result *r = R->r;
    for (unsigned i = 0; i < r->nvars; i++)
        if (!strcmp(r->vars[i], name)) {
            r->var_val[i] = v;
            return;
        }
    if (r->nvars < SC_MAX_VARS) {
        snprintf(r->vars[r->nvars], SC_VAR_LEN, "%s", name);
        r->var_val[r->nvars++] = v;
    }
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The interop test plan (Markdown) mpa-conform --plan writes from the
 * suites' scripts (docs/conformance-test-plan.md is one): per selected
 * test its purpose, the requirements it checks with their catalogue
 * text, the setup, the procedure (the script's steps as written), the
 * observable results (its expect steps) and the known problems.
 */
#ifndef CONFORM_PLAN_H
#define CONFORM_PLAN_H

#include <stddef.h>

#include "suite.h"

/* The plan of T's selected tests, to path ("-": stdout).  0, or -1 and
 * err (errlen octets). */
int plan_write(const conf_tests *T, const char *path, char *err, size_t errlen);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-conform's JUnit XML report, made from its JSON report (jsonrep.h)
 * for CI systems: one <testsuite> per suite, one <testcase> per test
 * ("ID (CLASS)"), a failure, error or skip with the reason (and, for a
 * failure or an error, the requirements it checks), the steps as
 * system-out.
 */
#ifndef CONFORM_JUNIT_H
#define CONFORM_JUNIT_H

#include <stddef.h>

#include <cJSON.h>

/* Writes the report of doc to path.  0, or -1 and err (errlen octets). */
int junit_write(const cJSON *doc, const char *path, char *err, size_t errlen);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-conform's JUnit XML report, made from its JSON report (jsonrep.h)
 * for CI systems: one <testsuite> per suite with its <properties> (tool
 * version, date, notes, the device's name, address and roles, the
 * suite's name, version and SHA-256), one <testcase> per test ("ID
 * (CLASS)") with its <properties> (requirement ids, by level and those
 * broken, class, role, verdict), a failure (a mandatory test failed),
 * error or skipped (skipped, or an informational test that failed: CI
 * stays green on FYI results) with the reason (and, for a failure or an
 * error, the requirements broken and checked), the steps as
 * system-out.
 */
#ifndef CONFORM_JUNIT_H
#define CONFORM_JUNIT_H

#include <stddef.h>

#include <cJSON.h>

/* Writes the report of doc to path.  0, or -1 and err (errlen octets). */
int junit_write(const cJSON *doc, const char *path, char *err, size_t errlen);

#endif

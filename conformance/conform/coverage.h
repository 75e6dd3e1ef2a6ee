/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run by requirement, made from the JSON report's tests once they
 * have run (docs/mpa-conform-json.md): the "coverage" array (each
 * requirement the selected tests exercise or the device was seen to
 * break: its level, the tests, its verdict: pass, fail or not tested
 * and why; MUSTs first, failures first), the skipped tests counted by
 * cause (summary.skipped_by_reason) and the one-page "overview" (the
 * device, its roles, the MUST and SHOULD requirements failed, the FYI
 * tests failed).
 */
#ifndef CONFORM_COVERAGE_H
#define CONFORM_COVERAGE_H

#include <cJSON.h>

/* Adds "coverage", fills "overview" and summary.skipped_by_reason of
 * doc (jrep_begin made the first, jrep_end the summary). */
void cov_build(cJSON *doc);

#endif

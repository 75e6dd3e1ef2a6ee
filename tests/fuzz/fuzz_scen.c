/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: mpa-inject's scenario parser (injector/inject/scen.c).
 *
 * The input is a scenario file's text.  Checked: the parser never
 * crashes, leaks or reads out of bounds (ASan, UBSan); it either accepts
 * (0) a scenario whose invariants hold (a name, a device role, at least
 * one step, the first step but sleeps opens the connection, every step has a verb,
 * deadlines above zero) or rejects it (-1) with a message that names the
 * file, as "FILE: ..." (the JSON path or the line and column follow).
 * A broken check prints what it found and abort()s, so libFuzzer keeps
 * the input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject/scen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FAIL(...)                                                            \
    do {                                                                     \
        fprintf(stderr, "fuzz_scen: " __VA_ARGS__);                          \
        fputc('\n', stderr);                                                 \
        abort();                                                             \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    static const char *const defs[] = {"x=5", "big=16383"};
    scenario s;
    char err[600];
    err[0] = 0;
    int rc = sc_parse("in.json", (const char *)data, size, defs, 2, &s, err, sizeof err);
    if (rc == 0) {
        if (!s.name[0])
            FAIL("accepted a scenario without a name");
        if (!s.nsteps || !s.steps)
            FAIL("accepted a scenario without steps");
        unsigned first = 0;
        while (first < s.nsteps && s.steps[first].verb == SV_SLEEP)
            first++;
        if (first == s.nsteps || s.steps[first].verb != SV_OPEN)
            FAIL("accepted a scenario that does not open the connection first (after sleeps)");
        for (unsigned i = 0; i < s.nsteps; i++)
            if (s.steps[i].verb == 0)
                FAIL("step %u has no verb", i + 1);
        if (!s.timeout_ms)
            FAIL("accepted a zero timeout");
        sc_free(&s);
    } else if (rc == -1) {
        if (strncmp(err, "in.json:", 8) || !err[9])
            FAIL("rejected without naming the file: \"%s\"", err);
    } else {
        FAIL("sc_parse returned %d", rc);
    }
    return 0;
}

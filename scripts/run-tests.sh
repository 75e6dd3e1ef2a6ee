#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs each unit-test binary, sums their "N passed, N failed" lines and
# prints the total on one line; exits non-zero if any binary failed.
set -u
passed=0; failed=0; bad=0
for t in "$@"; do
    out=$("$t" 2>&1); rc=$?
    line=$(printf '%s\n' "$out" | grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed$' | tail -n 1)
    if [ $rc -ne 0 ] || [ -z "$line" ]; then
        printf '%s\n' "$out" | tail -n 40
        echo "FAILED: $t (exit $rc)"
        bad=$((bad + 1))
    fi
    [ -n "$line" ] && echo "$line"
    p=$(printf '%s' "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/'); f=$(printf '%s' "$line" | sed -E 's/.* ([0-9]+) failed$/\1/')
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
done
[ $bad -gt 0 ] && [ $failed -eq 0 ] && failed=$bad
echo "unit: $passed passed, $failed failed"
[ $bad -eq 0 ] && [ $failed -eq 0 ]

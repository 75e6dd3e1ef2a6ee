#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Golden-file tests of the programs' output.
#   scripts/golden.sh            compare (exit 1 on any difference)
#   scripts/golden.sh --update   rewrite the expected files; review the diff!
# Each captures/demo/NAME.mpastream has NAME.expected: the full output of
# mpa-decode and its exit status.  The same output is also required when
# the octets are fed one at a time and in 7-octet pieces.
set -u
cd "$(dirname "$0")/.." || exit 2
dec=build/mpa-decode
update=0
[ "${1:-}" = "--update" ] && update=1
pass=0; fail=0
for in in captures/demo/*.mpastream; do
    exp=${in%.mpastream}.expected
    out=$($dec "$in" 2>&1; echo "exit status $?")
    if [ $update = 1 ]; then
        printf '%s\n' "$out" > "$exp"
        echo "golden: wrote $exp"
        continue
    fi
    for split in 0 1 7; do
        if [ $split = 0 ]; then got=$out; else got=$($dec --split $split "$in" 2>&1; echo "exit status $?"); fi
        if [ "$got" = "$(cat "$exp" 2>/dev/null)" ]; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
            echo "golden: $in (split $split) differs from $exp:"
            printf '%s\n' "$got" | diff -u "$exp" - | head -40
        fi
    done
done
# Bad input: a clear message naming file and line, exit status 2.
bad=$(mktemp)
printf 'A 4d5041\nC 00\n' > "$bad"
msg=$($dec "$bad" 2>&1); rc=$?
if [ $update = 0 ]; then
    if [ $rc = 2 ] && printf '%s' "$msg" | grep -q "$bad:2:1: expected 'A' or 'B'"; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "golden: bad input gave rc=$rc: $msg"; fi
    printf 'A 4d5\n' > "$bad"
    msg=$($dec "$bad" 2>&1); rc=$?
    if [ $rc = 2 ] && printf '%s' "$msg" | grep -q "odd number of hex digits"; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "golden: odd hex gave rc=$rc: $msg"; fi
    msg=$($dec /nonexistent/file 2>&1); rc=$?
    if [ $rc = 2 ] && printf '%s' "$msg" | grep -q "/nonexistent/file: No such file"; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "golden: missing file gave rc=$rc: $msg"; fi
    msg=$($dec --split x captures/demo/faulty.mpastream 2>&1); rc=$?
    if [ $rc = 2 ] && printf '%s' "$msg" | grep -q "split needs a number"; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "golden: bad option gave rc=$rc: $msg"; fi
fi
rm -f "$bad"
[ $update = 1 ] && exit 0
echo "golden: $pass passed, $fail failed"
[ $fail = 0 ]

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# verdicts.sh RUNDIR BUILD ROLE: one line per test of a dut/siw/run.sh run
# of one build and role: TEST BUILD ROLE CLASS VERDICT [kernel-bug],
# tab-separated.  A test run in several parts (the guest was rebooted
# after a kernel BUG) has the verdict of the last part that ran it.
set -eu
run=$1; b=$2; r=$3
jget=$(cd "$(dirname "$0")/../.." && pwd)/build/jget
tmp=$run/verdicts.tmp
: > "$tmp"
for j in $(seq 1 30); do
    rep=$run/part$j/report.json
    [ -f "$rep" ] || continue
    n=$("$jget" "$rep" tests.#)
    i=0
    while [ "$i" -lt "$n" ]; do
        id=$("$jget" "$rep" "tests.$i.id")
        v=$("$jget" "$rep" "tests.$i.verdict")
        c=$("$jget" "$rep" "tests.$i.class")
        printf '%s\t%s\t%s\n' "$id" "$c" "$v" >> "$tmp"
        i=$((i + 1))
    done
done
# the last line of each test wins (parts are in order: part1 ... part9, part10)
awk -F'\t' '{ last[$1] = $0; if (!($1 in order)) { order[$1] = ++k; ids[k] = $1 } }
    END { for (i = 1; i <= k; i++) print last[ids[i]] }' "$tmp" |
while IFS="$(printf '\t')" read -r id c v; do
    note=""
    cut -f1 "$run/kernel-bugs.tsv" 2>/dev/null | grep -qx "$id" && note="	kernel-bug"
    # a test that crashed the kernel fails MPA-ROBUST-NO-CRASH, whether
    # mpa-conform's --after saw the BUG in time or only the next test's mark
    [ -n "$note" ] && [ "$v" = pass ] && v=fail
    printf '%s\t%s\t%s\t%s\t%s%s\n' "$id" "$b" "$r" "$c" "$v" "$note"
done
rm -f "$tmp"

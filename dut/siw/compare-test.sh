#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Tests of dut/siw/compare.sh and dut/siw/merge.sh on small tables: the
# comparison make dut-siw relies on must see every kind of change.
set -u
cd "$(dirname "$0")" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "compare-test: $*"; }
T=$(printf '\t')
row() { printf '%s\t%s\t%s\t%s\t%s%s\n' "$1" "$2" "$3" M "$4" "${5:+$T$5}"; }
{ echo "# siw verdicts: Linux A; test"
  row t.one default responder pass
  row t.two default responder fail kernel-bug
  row t.three p2p initiator fail; } > "$tmp/rec"
{ row t.one default responder pass
  row t.two default responder fail kernel-bug
  row t.three p2p initiator fail; } > "$tmp/same"
# expect RC WORDS... : compare REC NEW exits RC and prints each word
expect() {
    rc=$1; shift
    out=$(./compare.sh "$rec" "$tmp/new" "Linux B" 2>&1)
    got=$?
    [ $got = "$rc" ] || { ko "$name: exit $got, expected $rc: $out"; return; }
    for w in "$@"; do
        echo "$out" | grep -q -- "$w" || { ko "$name: no '$w' in: $out"; return; }
    done
    ok
}
rec=$tmp/rec
name=same; cp "$tmp/same" "$tmp/new"; expect 0 "as recorded" "Linux A" "Linux B"
name=verdict; sed 's/^\(t\.one.*\)pass$/\1fail/' "$tmp/same" > "$tmp/new"; expect 1 "t.one" "recorded pass" "now fail" "1 changed"
name=bug-gone; sed 's/\tkernel-bug$//' "$tmp/same" > "$tmp/new"; expect 1 "t.two" "recorded fail+kernel-bug" "now fail"
name=missing; grep -v t.three "$tmp/same" > "$tmp/new"; expect 1 "t.three" "now absent"
name=new-test; { cat "$tmp/same"; row t.four default initiator pass; } > "$tmp/new"; expect 1 "t.four" "recorded absent"
name=other-role; sed 's/p2p\tinitiator/p2p\tresponder/' "$tmp/same" > "$tmp/new"; expect 1 "t.three" "2 changed"
# merge: where runs differ, both outcomes are recorded, and either agrees
sed 's/^\(t\.one.*\)pass$/\1fail/' "$tmp/same" > "$tmp/run2"
./merge.sh "$tmp/rec" "$tmp/run2" > "$tmp/merged"
grep -q "^t\.one${T}default${T}responder${T}M${T}fail/pass$" "$tmp/merged" && ok || ko "merge: $(cat "$tmp/merged")"
grep -q '^# siw verdicts: Linux A' "$tmp/merged" && ok || ko "merge lost the header"
# a merged file merged again: its alternatives are taken one by one
sed 's/^\(t\.one.*\)pass$/\1pass+kernel-bug/' "$tmp/same" > "$tmp/run3"
./merge.sh "$tmp/run2" "$tmp/merged" "$tmp/run3" > "$tmp/merged2"
grep -q "^t\.one${T}default${T}responder${T}M${T}fail/pass/pass+kernel-bug$" "$tmp/merged2" && ok || ko "merge of a merged file: $(cat "$tmp/merged2")"
rec=$tmp/merged
name=alt-1; cp "$tmp/same" "$tmp/new"; expect 0 "as recorded"
name=alt-2; cp "$tmp/run2" "$tmp/new"; expect 0 "as recorded"
name=alt-other; sed 's/^\(t\.one.*\)pass$/\1error/' "$tmp/same" > "$tmp/new"; expect 1 "recorded fail/pass" "now error"
rec=$tmp/nonexistent
name=no-record; cp "$tmp/same" "$tmp/new"; expect 2 "no recorded verdicts"
echo "compare-test: $pass passed, $fail failed"
[ $fail = 0 ]

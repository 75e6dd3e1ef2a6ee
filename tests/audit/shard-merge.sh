#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# mpa-audit --shard K/N and mpa-audit merge (make audit-shard, part of
# make check).  Checked:
#  - every reference capture (captures/MANIFEST.tsv, with its options),
#    split 1, 3 and 4 ways: the merged document is byte for byte the one
#    run's --json (--no-timing), and merge exits as the one run did;
#  - the same for a generated capture of many interleaved connections
#    (mpa-capgen --big), where every one of 4 shards gets connections, for
#    two inputs audited together, and for one where more than 256
#    connections complete ahead of an earlier one (one run then writes
#    connections out of id order);
#  - the flow hash is a fixed function: the shards of the demo capture's
#    connections are what they were when the hash was chosen;
#  - a limit reached in a shard is said in the merged report;
#  - shard documents laid out otherwise (on one line) merge the same;
#  - shards that do not belong together are refused (exit status 2);
#  - mpa-audit -j 2 and -j 3 write what -j 1 writes (--json, --jsonl and
#    text, --no-timing), with the same exit status and messages, on the
#    reference captures, the generated ones, inputs cut short, through
#    a BPF filter (libpcap's reader) and from standard input; with a
#    limit reached, -j 3 writes the same twice and a complete report.
set -u
cd "$(dirname "$0")/../.." || exit 2
audit=build/mpa-audit
gen=build/mpa-capgen
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "audit-shard: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
tab=$(printf '\t')

# split N FILE... [-- OPTS]: the one run and the merge of N shards agree.
split() {
    n=$1
    shift
    # shellcheck disable=SC2086
    $audit --json --no-timing $opts "$@" >"$tmp/one.json" 2>/dev/null
    rc1=$?
    [ -s "$tmp/one.json" ] || return 0 # not a capture: no document to merge
    k=0
    list=""
    while [ $k -lt "$n" ]; do
        # shellcheck disable=SC2086
        $audit --json --no-timing --shard $k/"$n" $opts "$@" >"$tmp/s$k.json" 2>/dev/null
        list="$list $tmp/s$k.json"
        k=$((k + 1))
    done
    # shellcheck disable=SC2086
    $audit merge $list >"$tmp/merged.json" 2>"$tmp/merge.err"
    rc2=$?
    if cmp -s "$tmp/one.json" "$tmp/merged.json"; then ok; else
        ko "$* ($n shards${opts:+, $opts}): the merged report differs from one run's:"
        diff -u "$tmp/one.json" "$tmp/merged.json" | head -20
        head -3 "$tmp/merge.err"
    fi
    if [ $rc1 = $rc2 ]; then ok; else ko "$* ($n shards): merge exit status $rc2, one run $rc1"; fi
}

# 1. The reference captures.
while IFS="$tab" read -r file _ _ _ opts; do
    [ -n "$file" ] || continue
    [ "$opts" = "-" ] && opts=""
    for n in 1 3 4; do split $n "captures/$file"; done
done <captures/MANIFEST.tsv
opts=""

# 2. Many interleaved connections, and two inputs together.
big=$tmp/big.pcap
if $gen --big "$big" --bytes 3M --conns 48 --active 12 --seed 7 >/dev/null 2>&1; then ok; else ko "mpa-capgen --big failed"; fi
for n in 1 3 4; do split $n "$big"; done
empty=0
for k in 0 1 2 3; do
    c=$(grep -c '^	"id":' "$tmp/s$k.json")
    [ "$c" -gt 0 ] || empty=1
done
if [ $empty = 0 ]; then ok; else ko "$big: a shard of 4 got no connection (the flow hash does not spread)"; fi
split 3 captures/interop-demo.pcapng captures/scen-crc-bad.pcap "$big"
# More than 256 connections complete while an earlier one is open: one
# run writes the earliest held out of id order, and so must the merge.
many=$tmp/many.pcap
$gen --big "$many" --bytes 3M --conns 800 --active 500 --seed 1 >/dev/null 2>&1
split 4 "$many"
ooo=$(sed -n 's/^	"id":	\([0-9]*\),$/\1/p' "$tmp/one.json" | awk 'NR > 1 && $1 != p + 1 { n++ } { p = $1 } END { print n + 0 }')
if [ "$ooo" -gt 0 ]; then ok; else ko "$many: one run writes its connections in id order: the test misses the held-report limit"; fi

# Documents laid out otherwise (here on one line) are parsed whole, not
# read as text: the same merge.
split 3 "$big"
for k in 0 1 2; do tr -d '\n\t' <"$tmp/s$k.json" >"$tmp/flat$k.json"; done
$audit merge "$tmp/flat0.json" "$tmp/flat1.json" "$tmp/flat2.json" >"$tmp/flat.json" 2>&1
if cmp -s "$tmp/one.json" "$tmp/flat.json"; then ok; else ko "shard documents on one line merge otherwise:"; diff "$tmp/one.json" "$tmp/flat.json" | head -5; fi

# 3. The flow hash is a fixed function of the connection (shards made by
#    any build and machine must agree): the demo's connections by shard.
got=""
for k in 0 1 2 3; do
    got="$got $k:$($audit --json --no-timing --shard $k/4 captures/interop-demo.pcapng 2>/dev/null |
        sed -n 's/^	"client":	"\(.*\)",$/\1/p' | sort | tr '\n' ' ')"
done
want_shards=" 0:192.0.2.10:41002  1:192.0.2.10:41003  2:192.0.2.10:41000  3:192.0.2.10:41001 "
if [ "$got" = "$want_shards" ]; then ok; else ko "the demo's connections by shard: '$got', expected '$want_shards'"; fi

# 4. A limit reached in a shard: said in the merged report.
for k in 0 1 2 3; do
    $audit --json --no-timing --max-conns 1 --shard $k/4 "$big" >"$tmp/l$k.json" 2>/dev/null
done
$audit merge "$tmp/l0.json" "$tmp/l1.json" "$tmp/l2.json" "$tmp/l3.json" >"$tmp/lm.json" 2>/dev/null
if grep -q '"detail":"merged from 4 shards, 4 of which reached a limit' "$tmp/lm.json"; then ok; else
    ko "a limit reached in the shards is not said in the merged report"; fi

# 5. Shards that do not belong together: refused, exit status 2.
for k in 0 1 2 3; do
    $audit --json --no-timing --shard $k/4 captures/interop-demo.pcapng >"$tmp/d$k.json" 2>/dev/null
done
$audit --json --no-timing --shard 1/3 captures/interop-demo.pcapng >"$tmp/other-n.json" 2>/dev/null
$audit --json --no-timing --shard 1/4 --max-findings 5 captures/interop-demo.pcapng >"$tmp/other-opt.json" 2>/dev/null
$audit --json --no-timing --shard 1/4 captures/mixed-445.pcap >"$tmp/other-in.json" 2>/dev/null
$audit --json --shard 1/4 captures/interop-demo.pcapng >"$tmp/timed.json" 2>/dev/null
$audit --json --no-timing captures/interop-demo.pcapng >"$tmp/plain.json" 2>/dev/null
sed 's/"version":"[^"]*"/"version":"0.0-other"/' "$tmp/d1.json" >"$tmp/other-ver.json"
# The same name, another file (a machine with another copy).
cp captures/interop-demo.pcapng "$tmp/day.pcapng"
$audit --json --no-timing --shard 0/2 "$tmp/day.pcapng" >"$tmp/e0.json" 2>/dev/null
cp captures/mixed-445.pcap "$tmp/day.pcapng"
$audit --json --no-timing --shard 1/2 "$tmp/day.pcapng" >"$tmp/e1.json" 2>/dev/null
refused() {
    want_msg=$1
    shift
    msg=$($audit merge "$@" 2>&1 >/dev/null)
    rc=$?
    if [ $rc = 2 ] && printf '%s' "$msg" | grep -q -- "$want_msg"; then ok; else
        ko "merge $*: exit status $rc and '$msg' (wanted: $want_msg)"; fi
}
d="$tmp/d"
refused "given twice" "${d}0.json" "${d}1.json" "${d}1.json" "${d}3.json"
refused "3 shard documents are given" "${d}0.json" "${d}1.json" "${d}2.json"
refused "of 3 shards" "${d}0.json" "$tmp/other-n.json" "${d}2.json" "${d}3.json"
refused "with options" "${d}0.json" "$tmp/other-opt.json" "${d}2.json" "${d}3.json"
refused "different inputs" "${d}0.json" "$tmp/other-in.json" "${d}2.json" "${d}3.json"
refused "no-timing" "${d}0.json" "$tmp/timed.json" "${d}2.json" "${d}3.json"
refused "by mpa-audit 0.0-other" "${d}0.json" "$tmp/other-ver.json" "${d}2.json" "${d}3.json"
refused "made without --shard" "$tmp/plain.json"
refused "read different inputs" "$tmp/e0.json" "$tmp/e1.json"
refused "not a JSON document" README.md
refused "No such file" /nonexistent/s0.json
refused "name the --json documents" # no file at all
for bad in 4/4 x/4 1/0 1 -1/4; do
    msg=$($audit --shard "$bad" captures/interop-demo.pcapng 2>&1 >/dev/null)
    rc=$?
    if [ $rc = 2 ] && printf '%s' "$msg" | grep -q -- "--shard"; then ok; else
        ko "--shard $bad: exit status $rc and '$msg'"; fi
done

# 6. -j N: byte for byte what -j 1 writes, exit status and stderr alike.
# jobs FILE...: -j 1, 2 and 3 in each format.
jobs() {
    for fmt in --json --jsonl --text; do
        f=$fmt
        [ $fmt = --text ] && f=""
        # shellcheck disable=SC2086
        $audit -j 1 $f --no-timing $opts "$@" >"$tmp/j1.out" 2>"$tmp/j1.err"
        rc1=$?
        for j in 2 3; do
            # shellcheck disable=SC2086
            $audit -j $j $f --no-timing $opts "$@" >"$tmp/jn.out" 2>"$tmp/jn.err"
            rcn=$?
            if cmp -s "$tmp/j1.out" "$tmp/jn.out" && cmp -s "$tmp/j1.err" "$tmp/jn.err" && [ $rc1 = $rcn ]; then ok; else
                ko "$* ($fmt${opts:+ $opts}): -j $j differs from -j 1 (exit status $rcn, -j 1 $rc1):"
                diff -u "$tmp/j1.out" "$tmp/jn.out" | head -10
                diff -u "$tmp/j1.err" "$tmp/jn.err" | head -6
            fi
        done
    done
}
while IFS="$tab" read -r file _ _ _ opts; do
    [ -n "$file" ] || continue
    [ "$opts" = "-" ] && opts=""
    case $file in scen-*) continue ;; esac # the same code paths as the rest, many times over
    jobs "captures/$file"
done <captures/MANIFEST.tsv
opts=""
head -c 1500000 "$big" >"$tmp/big-cut.pcap"
head -c 5000 captures/interop-demo.pcapng >"$tmp/cut.pcapng"
jobs "$big"
jobs "$many"
# Large enough that the reader lets go of the parts of the file it mapped
# while workers still read packets from it.
large=$tmp/large.pcap
$gen --big "$large" --bytes 40M --seed 3 >/dev/null 2>&1
jobs "$large"
rm -f "$large"
jobs "$tmp/big-cut.pcap"
jobs "$tmp/cut.pcapng"
jobs captures/bad-cut.pcap captures/scen-crc-bad.pcap
jobs captures/interop-demo.pcapng "$tmp/big-cut.pcap" "$big"
jobs captures/bad-magic.pcap
jobs /nonexistent/x.pcap
opts="-c 1000"
jobs "$big"
opts="-f tcp"
jobs "$big" captures/interop-demo.pcapng
opts=""
# A limit reached in a worker: not one run's report, but the same every
# time, said, and complete.
for k in 1 2; do
    $audit -j 3 --jsonl --no-timing --max-conns 2 --max-mpa 2 "$many" >"$tmp/lim$k.out" 2>&1
done
if cmp -s "$tmp/lim1.out" "$tmp/lim2.out" && grep -q '"id":"MPA-CAP-LIMIT"' "$tmp/lim1.out" &&
    tail -n 1 "$tmp/lim1.out" | grep -q '"type":"summary"'; then ok; else
    ko "-j 3 with limits reached: reports differ between runs, or no limit said, or no summary"; fi
# Standard input is read once (by the reader).
$audit -j 1 --json --no-timing - <"$big" >"$tmp/j1.out" 2>&1
$audit -j 2 --json --no-timing - <"$big" >"$tmp/jn.out" 2>&1
if cmp -s "$tmp/j1.out" "$tmp/jn.out"; then ok; else ko "-j 2 on standard input differs from -j 1"; fi
cat "$big" | $audit -j 3 --json --no-timing - >"$tmp/jn.out" 2>&1
if cmp -s "$tmp/j1.out" "$tmp/jn.out"; then ok; else ko "-j 3 on a pipe differs from -j 1"; fi

echo "audit-shard: $pass passed, $fail failed"
[ $fail = 0 ]

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The mpa-audit part of `make bench`: throughput and peak memory of
# mpa-audit (--json, --jsonl and text; -j 1, 2 and one a core) on the
# large capture from `mpa-capgen --big`, and of
# tshark with its built-in iWARP dissector on the same file in the same
# run.  Prints, never fails.
#   scripts/bench-audit.sh [DIR]        (default build/bench)
#   BENCH_BIG_BYTES=200M scripts/bench-audit.sh   a smaller capture (default 1G)
# Wall time by date +%s%N, peak RSS by GNU time (Debian package "time",
# installed by scripts/deps.sh bench).
set -u
dir=${1:-build/bench}
bytes=${BENCH_BIG_BYTES:-1G}
mkdir -p "$dir"
big=$dir/big-$bytes.pcap

echo "== 5. mpa-audit on a large capture, and tshark on the same file =="
if [ ! -s "$big" ]; then
    rm -f "$dir"/big-*.pcap
    build/mpa-capgen --big "$big" --bytes "$bytes" 2>"$dir/big.txt" || {
        echo "   mpa-capgen --big failed:"; cat "$dir/big.txt"; exit 0; }
fi
sed 's/^mpa-capgen: /   capture: /' "$dir/big.txt" | fold -s -w 100 | sed '2,$s/^/      /'
size=$(stat -c %s "$big")
timer=""
if [ -x /usr/bin/time ]; then timer=/usr/bin/time; fi

# run NAME CMD...: prints the row (the median of $runs runs, the largest
# peak RSS); sets $secs
runs=1
run() {
    name=$1
    shift
    times=""
    rss=0
    i=0
    while [ $i -lt $runs ]; do
        t0=$(date +%s%N)
        if [ -n "$timer" ]; then
            $timer -f '%M' -o "$dir/rss.txt" "$@" >/dev/null 2>"$dir/err.txt"
        else
            "$@" >/dev/null 2>"$dir/err.txt"
        fi
        rc=$?
        t1=$(date +%s%N)
        times="$times $((t1 - t0))"
        r=$(tail -n 1 "$dir/rss.txt" 2>/dev/null)
        case $r in ''|*[!0-9]*) rss="?";; *) [ "$rss" != "?" ] && [ "$r" -gt "$rss" ] && rss=$r;; esac
        i=$((i + 1))
    done
    [ "$rss" = 0 ] && rss="?"
    # shellcheck disable=SC2086 # one number a word
    secs=$(printf '%s\n' $times | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] / 1e9 }')
    awk -v n="$name" -v s="$secs" -v b="$size" -v r="$rss" -v rc="$rc" 'BEGIN {
        mbs = b / 1e6 / s; rr = (r == "?") ? "?" : sprintf("%.1f MiB", r / 1024);
        note = (rc > 1) ? ("  (exit " rc ")") : "";
        printf "   %-58s %8.2f %9.0f %12s%s\n", n, s, mbs, rr, note }'
}

echo
printf '   %-58s %8s %9s %12s\n' "command (mpa-audit: median of 3 runs; tshark: one)" "s" "MB/s" "peak RSS"
runs=3
run "mpa-audit --json -j 1 (decodes, checks CRCs and every rule)" build/mpa-audit --json -j 1 --no-progress \
    -o /dev/null "$big"
ours=$secs
cores=$(nproc 2>/dev/null || echo 1)
# Every report, on one core, two and all of them (-j: one reader, that
# many workers; the report the same whatever -j).
for fmt in json jsonl text; do
    flag=--$fmt
    [ $fmt = text ] && flag=""
    one=$ours
    if [ $fmt != json ]; then
        # shellcheck disable=SC2086
        run "mpa-audit ${flag:-(text)} -j 1" build/mpa-audit $flag -j 1 --no-progress -o /dev/null "$big"
        one=$secs
    fi
    # shellcheck disable=SC2086
    run "mpa-audit ${flag:-(text)} -j 2" build/mpa-audit $flag -j 2 --no-progress -o /dev/null "$big"
    j2=$secs
    jn=$j2
    if [ "$cores" -gt 2 ]; then
        # shellcheck disable=SC2086
        run "mpa-audit ${flag:-(text)} -j $cores (a worker a core)" build/mpa-audit $flag -j "$cores" --no-progress \
            -o /dev/null "$big"
        jn=$secs
    fi
    awk -v f="${flag:-text}" -v o="$one" -v t="$j2" -v n="$jn" -v c="$cores" 'BEGIN {
        printf "   %s: -j 2 is %.2fx -j 1", f, o / t; if (c > 2) printf "; -j %d is %.2fx -j 1", c, o / n;
        printf " (%d cores here)\n", c }'
done
if ! command -v tshark >/dev/null 2>&1; then
    echo "   tshark: not installed (scripts/deps.sh bench installs it)"
    exit 0
fi
opts="-n"
heur=$(tshark -G heuristic-decodes 2>/dev/null | awk '$1 == "tcp" && $2 == "iwarp_mpa" { print $3 }')
[ "$heur" = F ] && opts="$opts --enable-heuristic iwarp_mpa_tcp"
runs=1
# shellcheck disable=SC2086
run "tshark -r FILE -q (dissects, no CRC check)" tshark $opts -r "$big" -q
tq=$secs
# shellcheck disable=SC2086
run "tshark -r FILE -T fields -e iwarp_mpa.crc_check" tshark $opts -r "$big" -T fields -e iwarp_mpa.crc_check
tc=$secs
echo
awk -v o="$ours" -v q="$tq" -v c="$tc" -v b="$size" 'BEGIN {
    printf "   mpa-audit -j 1 is %.1fx tshark -q and %.1fx tshark in its CRC-checking mode\n", q / o, c / o;
    t1 = (b / o >= 3e9) ? "met" : "not met"; t2 = (c / o >= 50) ? "met" : "not met";
    printf "   targets: >= 3 GB/s single-threaded with CRC checks: %s (%.2f GB/s); >= 50x the CRC-checking\n",
        t1, b / o / 1e9;
    printf "   tshark: %s\n", t2 }'
echo "   MB/s = 1e6 octets of capture file per second; peak RSS of the whole process (GNU time %M)."
echo "   mpa-audit's memory grows with open connections and out-of-order data only (--max-conns,"
echo "   --mem-cap), not with the file: the capture is read through moving 2 MiB windows."
exit 0

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The shard part of `make bench`: the large capture of scripts/bench-audit.sh
# audited as 4 shards (mpa-audit --shard K/4, one after the other, as 4
# machines would run them) and merged (mpa-audit merge); prints each
# shard's time, the merge's, and whether the merged report equals the one
# run's byte for byte.  Prints, never fails.
#   scripts/bench-shard.sh [DIR]        (default build/bench)
set -u
dir=${1:-build/bench}
bytes=${BENCH_BIG_BYTES:-1G}
big=$dir/big-$bytes.pcap
echo "== 5b. mpa-audit --shard K/4 and mpa-audit merge on the large capture =="
if [ ! -s "$big" ]; then
    echo "   no $big (scripts/bench-audit.sh makes it)"
    exit 0
fi
secs() { awk -v ns="$1" 'BEGIN { printf "%.2f", ns / 1e9 }'; }
t0=$(date +%s%N)
build/mpa-audit --json --no-timing --no-progress -o "$dir/one.json" "$big" 2>/dev/null
t1=$(date +%s%N)
echo "   one run:            $(secs $((t1 - t0))) s"
for k in 0 1 2 3; do
    t0=$(date +%s%N)
    build/mpa-audit --json --no-timing --no-progress --shard $k/4 -o "$dir/shard$k.json" "$big" 2>/dev/null
    t1=$(date +%s%N)
    echo "   shard $k/4:          $(secs $((t1 - t0))) s"
done
t0=$(date +%s%N)
build/mpa-audit merge -o "$dir/merged.json" "$dir"/shard0.json "$dir"/shard1.json "$dir"/shard2.json "$dir"/shard3.json
t1=$(date +%s%N)
echo "   merge:              $(secs $((t1 - t0))) s (4 machines: the slowest shard, then the merge)"
if cmp -s "$dir/one.json" "$dir/merged.json"; then
    echo "   the 4-way merged report equals the one run's, byte for byte: yes"
else
    echo "   the 4-way merged report equals the one run's, byte for byte: NO"
fi
rm -f "$dir/one.json" "$dir/merged.json" "$dir"/shard?.json
exit 0

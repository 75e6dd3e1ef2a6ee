#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The startup part of `make bench`: complete MPA connections per second
# against the reference peer on the loopback.  Each connection is a TCP
# handshake, an enhanced peer-to-peer startup (Request, Reply, the RTR),
# one Send each way (the Responder echoes it), and the close; the
# Initiator (mpa-peer --connect) keeps C connections in flight and counts
# only those that ended well.  Prints, never fails.
#   scripts/bench-peer.sh                      20000 connections, C = 1, 4, 8
#   BENCH_STARTUPS=5000 scripts/bench-peer.sh
# Peak RSS of both ends by GNU time (%M).  Target (issue 5): >= 10,000/s
# on a 2-core machine.
set -u
peer=build/mpa-peer
n=${BENCH_STARTUPS:-20000}
echo "== 7. MPA startups per second against mpa-peer on the loopback =="
[ -x $peer ] || { echo "   $peer missing (make $peer); skipped"; exit 0; }
tmp=$(mktemp -d)
# the listener serves exactly the connections of the three runs and exits
total=$((3 * n))
stop() { pkill -f -- "--listen 127.0.0.1:0 --enhanced --count $total" 2>/dev/null; wait 2>/dev/null; }
trap 'stop; rm -rf "$tmp"' EXIT INT TERM
command -v /usr/bin/time >/dev/null 2>&1 && tm="/usr/bin/time -f %M -o" || tm=""
if [ -n "$tm" ]; then
    $tm $tmp/lrss $peer --listen 127.0.0.1:0 --enhanced --count $total -q 2>$tmp/l.err &
else
    $peer --listen 127.0.0.1:0 --enhanced --count $total -q 2>$tmp/l.err &
fi
lp=$!
port=""
for i in $(seq 100); do
    port=$(grep -o 'listening on [0-9.]*:[0-9]*' $tmp/l.err | sed 's/.*://')
    [ -n "$port" ] && break
    sleep 0.02
done
[ -n "$port" ] || { echo "   the listening mpa-peer did not start: $(cat $tmp/l.err)"; exit 0; }
printf '   %-12s %-12s %-10s %-14s %s\n' connections concurrency seconds startups/s "initiator RSS"
for c in 1 4 8; do
    if [ -n "$tm" ]; then
        $tm $tmp/crss $peer --connect 127.0.0.1:$port --p2p --send 1 --count $n --concurrency $c --stats -q \
            >$tmp/c.out 2>&1
    else
        $peer --connect 127.0.0.1:$port --p2p --send 1 --count $n --concurrency $c --stats -q >$tmp/c.out 2>&1
    fi
    # "mpa-peer: N connections: K ok, F failed, ...; S s, R startups/s"
    line=$(grep 'startups/s' $tmp/c.out)
    secs=$(echo "$line" | sed -n 's/.*; \([0-9.]*\) s, .*/\1/p')
    rate=$(echo "$line" | sed -n 's/.* \([0-9]*\) startups\/s.*/\1/p')
    okn=$(echo "$line" | sed -n 's/.*: \([0-9]*\) ok.*/\1/p')
    rss=$( [ -n "$tm" ] && echo "$(cat $tmp/crss) KiB" || echo "?")
    printf '   %-12s %-12s %-10s %-14s %s\n' "$okn/$n" $c "${secs:-?}" "${rate:-?}" "$rss"
    [ "$okn" = "$n" ] || echo "   (not every connection ended well: $line)"
done
wait $lp 2>/dev/null
[ -n "$tm" ] && [ -s $tmp/lrss ] && echo "   responder (one process for all of them) peak RSS: $(cat $tmp/lrss) KiB"
echo "   target: >= 10000 startups/s"

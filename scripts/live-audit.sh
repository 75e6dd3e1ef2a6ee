#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# mpa-audit on live traffic: `mpa-audit -i lo` while mpa-replay plays
# scenarios of the corpus (corpus/cases.c) over real TCP connections on
# the loopback interface.  Each run is bounded in time (timeout) and
# leaves nothing behind.  Needs the capture privilege (root or CAP_NET_RAW): without it
# the script says so and fails, unless MPA_LIVE_OPTIONAL=1.
#   scripts/live-audit.sh
set -u
cd "$(dirname "$0")/.." || exit 2
audit=build/mpa-audit
replay=build/mpa-replay
ids=build/jsonids
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "live-audit: $*"; }
tmp=$(mktemp -d)
pid=""
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# One scenario: start the capture, wait for it to be running, play, stop.
live() {
    slug=$1
    port=$2
    want=$($replay --list | awk -F'\t' -v s="$slug" '$1 == s { print $2 }')
    [ -n "$want" ] || { ko "$slug: no such scenario"; return; }
    : >"$tmp/err"
    timeout 30 $audit -i lo -f "tcp port $port" --json --no-timing -o "$tmp/out.json" 2>"$tmp/err" &
    pid=$!
    n=0
    until grep -q "capturing on lo" "$tmp/err" 2>/dev/null; do
        n=$((n + 1))
        if [ $n -gt 100 ] || ! kill -0 "$pid" 2>/dev/null; then
            wait "$pid" 2>/dev/null
            pid=""
            if grep -qi "permission\|privilege\|not permitted" "$tmp/err" && [ "${MPA_LIVE_OPTIONAL:-0}" = 1 ]; then
                echo "live-audit: skipped, no capture privilege: $(head -n 1 "$tmp/err")"
                exit 0
            fi
            ko "$slug: the capture did not start: $(cat "$tmp/err")"
            return
        fi
        sleep 0.1
    done
    if ! timeout 20 $replay "$port" "$slug"; then ko "$slug: mpa-replay failed"; fi
    sleep 0.5
    kill -INT "$pid"
    wait "$pid"
    rc=$?
    pid=""
    got=$($ids <"$tmp/out.json")
    if [ $? = 0 ] && [ "$got" = "$want" ]; then ok; else ko "$slug (port $port): ids '$got', expected '$want'"; fi
    conns=$(grep -c '"initiator":' "$tmp/out.json")
    if [ "$conns" = 1 ]; then ok; else ko "$slug: $conns connections reported, expected 1"; fi
    case $want in
    -) want_rc=0 ;;
    *) want_rc=x ;;
    esac
    if [ $want_rc = x ] || [ $rc = 0 ]; then ok; else ko "$slug: exit status $rc"; fi
}

live clean-markers 18601
live clean-enh 18602
live crc-bad 18603
live enh-a-echo 18604
live trm-last 18605
echo "live-audit: $pass passed, $fail failed"
[ $fail = 0 ]

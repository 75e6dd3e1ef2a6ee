#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The conformance part of `make bench`: the whole of conformance/suites
# against the reference peer on the loopback, its Responder side then its
# Initiator side (caps enhanced,p2p; the tests that need markers or
# reject run with a peer set up for them), wall time of each.  Prints,
# never fails.  Target (issue 6): the whole suite in under 60 s.
set -u
set -f # the -t patterns are for mpa-conform, not the shell
conf=build/mpa-conform
peer=build/mpa-peer
echo "== 8. the conformance suites against mpa-peer on the loopback =="
[ -x $conf ] && [ -x $peer ] || { echo "   $conf or $peer missing (make $conf $peer); skipped"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
total=0
run() { # label role caps device-command address-options
    s0=$(date +%s%N)
    $conf -q -r "$2" --caps "$3" --spawn "$4" $5 --json $tmp/r.json >$tmp/out 2>&1
    ms=$((($(date +%s%N) - s0) / 1000000))
    total=$((total + ms))
    line=$(grep '^[0-9]* tests in' $tmp/out)
    printf '   %-28s %6d.%01d s  %s\n' "$1" $((ms / 1000)) $(((ms % 1000) / 100)) "$line"
}
run "Responder (enhanced, p2p)" responder enhanced,p2p "$peer --listen {addr}:{port} --enhanced --timeout-ms 1000 -q" "-d 7790"
run "Responder with markers" responder enhanced,p2p,markers "$peer --listen {addr}:{port} --enhanced --markers 1 --timeout-ms 1000 -q" "-d 7791 -t *marker*"
run "Responder that rejects" responder enhanced,p2p,reject "$peer --listen {addr}:{port} --enhanced --reject --timeout-ms 1000 -q" "-d 7792 -t *reject*"
run "Initiator (p2p)" initiator enhanced,p2p "$peer --connect {peer}:{port} --p2p --timeout-ms 1000 -q" "-l 0"
printf '   %-28s %6d.%01d s  (target: under 60 s)\n' "whole suite" $((total / 1000)) $(((total % 1000) / 100))

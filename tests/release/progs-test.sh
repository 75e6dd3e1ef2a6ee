#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# What every installed program does the same way:
#  - --version prints "NAME VERSION", the VERSION file's;
#  - output that cannot be written (standard output or a report file on
#    /dev/full) ends the program with status 2 and one line on stderr
#    naming what could not be written: nothing is lost silently;
#  - an unknown option is a usage error (status 2), said in one line
#    and "(PROGRAM --help for the options)".
set -u
cd "$(dirname "$0")/../.." || exit 2
B=${B:-build}
version=$(cat VERSION)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "progs-test: $*"; }

for p in mpa-audit mpa-capgen mpa-decode mpa-inject mpa-peer mpa-conform; do
    [ -x "$B/$p" ] || { ko "$B/$p missing (make)"; continue; }
    v=$("$B/$p" --version 2>&1 | head -n 1)
    case "$v" in
    "$p $version" | "$p $version "*) ok ;;
    *) ko "$p --version says \"$v\", not \"$p $version\"" ;;
    esac
    "$B/$p" --no-such-option >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc = 2 ] && [ -s "$tmp/err" ] && ok || ko "$p --no-such-option: exit $rc, stderr: $(head -c 200 "$tmp/err")"
    # ... said in one line, then where the options are (not the whole help).
    if [ "$(wc -l <"$tmp/err")" = 2 ] && [ "$(head -n 1 "$tmp/err")" = "$p: unknown option --no-such-option" ] &&
        [ "$(tail -n 1 "$tmp/err")" = "($p --help for the options)" ]; then ok; else
        ko "$p --no-such-option said ($(wc -l <"$tmp/err") lines): $(head -c 200 "$tmp/err")"
    fi
done

# full CMD...: run CMD with standard output on /dev/full.
full() {
    name=$1
    shift
    "$@" >/dev/full 2>"$tmp/err"
    rc=$?
    lines=$(wc -l <"$tmp/err")
    if [ $rc = 2 ] && [ "$lines" = 1 ] && grep -q "^${name}: standard output: " "$tmp/err"; then
        ok
    else
        ko "$* >/dev/full: exit $rc (want 2), stderr ($lines lines): $(head -c 300 "$tmp/err")"
    fi
}
full mpa-audit "$B/mpa-audit" --json captures/interop-demo.pcapng
full mpa-audit "$B/mpa-audit" captures/interop-demo.pcapng
full mpa-audit "$B/mpa-audit" --list-rules
full mpa-conform "$B/mpa-conform" --list
full mpa-peer "$B/mpa-peer" --list-faults
full mpa-decode "$B/mpa-decode" captures/demo/faulty.mpastream
full mpa-inject "$B/mpa-inject" --check injector/scenarios/responder-basic.json
full mpa-capgen "$B/mpa-capgen" --help
for p in mpa-audit mpa-capgen mpa-decode mpa-inject mpa-peer mpa-conform; do
    full $p "$B/$p" --help
done

# A report file that cannot be written: named in the message.
"$B/mpa-audit" --json -o /dev/full captures/interop-demo.pcapng 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "^mpa-audit: /dev/full: " "$tmp/err" && ok ||
    ko "mpa-audit -o /dev/full: exit $rc: $(cat "$tmp/err")"
"$B/mpa-capgen" --big /dev/full --bytes 1M 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "^mpa-capgen: /dev/full: " "$tmp/err" && ok ||
    ko "mpa-capgen --big /dev/full: exit $rc: $(cat "$tmp/err")"
"$B/mpa-conform" --plan /dev/full 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "/dev/full" "$tmp/err" && ok || ko "mpa-conform --plan /dev/full: exit $rc: $(cat "$tmp/err")"

# mpa-audit's progress bar (a terminal, 32 MB or more) fits the terminal:
# on a 40-column pseudo-terminal no line is wider than 39 columns.
if command -v script >/dev/null 2>&1 && "$B/mpa-capgen" --big "$tmp/big.pcap" --bytes 40M >/dev/null 2>&1; then
    script -qfc "stty cols 40; $B/mpa-audit $tmp/big.pcap >/dev/null" /dev/null | tr '\r' '\n' >"$tmp/bar"
    wide=$(awk 'length($0) > 39' "$tmp/bar" | head -n 1)
    if grep -q "%" "$tmp/bar" && [ -z "$wide" ]; then ok; else
        ko "mpa-audit's progress bar on 40 columns: $(grep -c % "$tmp/bar") bars, a line of ${#wide} columns: $wide"
    fi
else
    echo "progs-test: progress bar not checked (needs script(1) and mpa-capgen --big)"
fi

echo "progs-test: $pass passed, $fail failed"
[ $fail = 0 ]

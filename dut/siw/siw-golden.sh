#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Golden tests over the reference captures of Linux siw (captures/siw/,
# recorded on the guest's tap by `make dut-siw-update`):
#   dut/siw/siw-golden.sh            check
#   dut/siw/siw-golden.sh --update   rewrite captures/siw/expected/; review the diff!
# For each capture:
#  - mpa-audit --json --no-timing equals expected/NAME.json, and its exit
#    status is 1 exactly when it reports an error-level finding;
#  - the Wireshark plugin in the real tshark (scripts/tshark-iwmpa),
#    `-T fields` with the fields of dissector/tests/fields.sh, equals
#    expected/NAME.fields;
#  - the finding ids the plugin shows are the ids mpa-audit reports for
#    the connections (the same core, two front ends).
set -u
cd "$(dirname "$0")/../.." || exit 2
audit=build/mpa-audit
ts=scripts/tshark-iwmpa
dir=captures/siw
exp=$dir/expected
export TZ=UTC LC_ALL=C.UTF-8
. dissector/tests/fields.sh
eargs=""
for f in $FIELDS; do eargs="$eargs -e $f"; done
update=0
[ "${1:-}" = "--update" ] && update=1
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "siw-golden: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
for x in "$audit" build/dissector/iwmpa.so; do
    [ -e "$x" ] || { echo "siw-golden: $x missing (make $x)"; exit 2; }
done
set -- "$dir"/*.pcapng
[ -e "$1" ] || { echo "siw-golden: no captures in $dir"; exit 2; }
mkdir -p "$exp"
for cap in "$@"; do
    name=$(basename "$cap" .pcapng)
    $audit --json --no-timing "$cap" >"$tmp/$name.json" 2>"$tmp/$name.err"
    rc=$?
    # shellcheck disable=SC2086
    $ts -n -r - -T fields $eargs -E header=y -E separator='|' -E occurrence=a -E aggregator='~' \
        <"$cap" >"$tmp/$name.fields" 2>&1
    if [ $update = 1 ]; then
        cp "$tmp/$name.json" "$exp/$name.json"
        cp "$tmp/$name.fields" "$exp/$name.fields"
        continue
    fi
    for k in json fields; do
        if cmp -s "$tmp/$name.$k" "$exp/$name.$k"; then ok; else
            ko "$cap: the $k output differs from $exp/$name.$k:"
            diff -u "$exp/$name.$k" "$tmp/$name.$k" | head -20
        fi
    done
    if grep -Eq '"severity":[[:space:]]*"error"' "$tmp/$name.json"; then want=1; else want=0; fi
    if [ $rc = $want ]; then ok; else ko "$cap: mpa-audit exit status $rc, expected $want"; fi
    # the same finding ids from both front ends
    grep -o '"id":[[:space:]]*"MPA-[A-Z0-9-]*"' "$tmp/$name.json" | sed 's/.*"\(MPA-[^"]*\)"/\1/' | sort -u >"$tmp/a.ids"
    tr '|~' '\n\n' <"$tmp/$name.fields" | grep -o '^MPA-[A-Z0-9-]*' | sort -u >"$tmp/p.ids"
    if cmp -s "$tmp/a.ids" "$tmp/p.ids"; then ok; else
        ko "$cap: finding ids differ between mpa-audit (<) and the plugin (>):"
        diff "$tmp/a.ids" "$tmp/p.ids" | grep '^[<>]'
    fi
done
if [ $update = 1 ]; then
    echo "siw-golden: rewrote $exp for $# captures; review the diff"
    exit 0
fi
echo "siw-golden: $pass checks passed, $fail failed ($# captures)"
[ $fail = 0 ]

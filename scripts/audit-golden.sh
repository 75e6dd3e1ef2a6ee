#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Golden tests of mpa-audit over the reference captures (captures/).
#   scripts/audit-golden.sh            check
#   scripts/audit-golden.sh --update   regenerate captures/ with mpa-capgen and
#                                      rewrite captures/expected/; review the diff!
# Checked, for each capture of captures/MANIFEST.tsv:
#  - the capture is byte for byte what mpa-capgen writes (no hand edits);
#  - mpa-audit --json equals captures/expected/NAME.json;
#  - the JSON keeps the contract (docs/mpa-audit-json.md) and holds exactly
#    the finding ids the manifest names (the generator's own expectation,
#    independent of the golden file); --jsonl holds the same ids;
#  - the exit status: 2 for files that are not captures, else 1 when an
#    error-level finding exists, 0 otherwise;
#  - the text report names every finding id too.
# And the README's demo capture's text report against its golden file,
# and bad invocations (clear message, exit status 2).
set -u
cd "$(dirname "$0")/.." || exit 2
audit=build/mpa-audit
ids=build/jsonids
gen=build/mpa-capgen
update=0
[ "${1:-}" = "--update" ] && update=1
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "audit-golden: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
tab=$(printf '\t')

# 1. The captures are the generator's.
mkdir -p "$tmp/caps"
if ! $gen "$tmp/caps" 2>"$tmp/gen.err"; then
    cat "$tmp/gen.err"
    ko "mpa-capgen failed"
fi
if [ $update = 1 ]; then
    rm -f captures/*.pcap captures/*.pcapng captures/MANIFEST.tsv
    cp "$tmp/caps"/* captures/
    mkdir -p captures/expected
    rm -f captures/expected/*
fi
for f in "$tmp/caps"/*; do
    b=$(basename "$f")
    if cmp -s "$f" "captures/$b"; then ok; else
        ko "captures/$b is not what mpa-capgen writes (make golden-audit, then review the diff)"; fi
done
for f in captures/*.pcap captures/*.pcapng; do
    [ -e "$tmp/caps/$(basename "$f")" ] || ko "$f is not made by mpa-capgen: remove it or add it to the generator"
done

# 2. Every capture.
while IFS="$tab" read -r file link want desc opts; do
    [ -n "$file" ] || continue
    [ "$opts" = "-" ] && opts=""
    name=${file%.*}
    exp=captures/expected/$name.json
    # shellcheck disable=SC2086
    $audit --json --no-timing $opts "captures/$file" >"$tmp/out.json" 2>"$tmp/err"
    rc=$?
    if [ $update = 1 ]; then
        cp "$tmp/out.json" "$exp"
        continue
    fi
    if cmp -s "$tmp/out.json" "$exp"; then ok; else
        ko "$file: --json differs from $exp:"
        diff -u "$exp" "$tmp/out.json" | head -30
    fi
    case $link in
    *"bad magic"* | "(empty)")
        want_rc=2
        if [ -s "$tmp/err" ] && grep -q "captures/$file" "$tmp/err"; then ok; else
            ko "$file: no error message naming the file"; fi
        # An input that cannot be used: said, and no report at all.
        if [ ! -s "$tmp/out.json" ]; then ok; else ko "$file: a report after a fatal input error"; fi
        ;;
    *" cut")
        # Cut short: an error naming the file, record and offset, exit
        # status 2; the packets before the cut are audited.
        want_rc=2
        if grep -Eq "captures/$file: cut short in record [0-9]+ at byte offset [0-9]+" "$tmp/err"; then ok; else
            ko "$file: no error naming the file, record and byte offset: $(cat "$tmp/err")"; fi
        ;;
    *)
        if grep -Eq '"severity":[[:space:]]*"error"' "$tmp/out.json"; then
            want_rc=1; else want_rc=0; fi
        ;;
    esac
    if [ $rc = "$want_rc" ]; then ok; else ko "$file: exit status $rc, expected $want_rc ($(head -c 300 "$tmp/err"))"; fi
    [ -s "$tmp/out.json" ] || continue
    got=$($ids <"$tmp/out.json")
    if [ $? = 0 ] && [ "$got" = "$want" ]; then ok; else
        ko "$file: finding ids '$got', the manifest says '$want'"; fi
    # shellcheck disable=SC2086
    gotl=$($audit --jsonl $opts "captures/$file" 2>/dev/null | $ids --jsonl)
    if [ $? = 0 ] && [ "$gotl" = "$want" ]; then ok; else
        ko "$file: --jsonl finding ids '$gotl', the manifest says '$want'"; fi
    # shellcheck disable=SC2086
    $audit --no-timing $opts "captures/$file" >"$tmp/out.txt" 2>/dev/null
    missing=""
    for id in $want; do
        [ "$id" = "-" ] && continue
        grep -q -- "$id" "$tmp/out.txt" || missing="$missing $id"
    done
    if [ -z "$missing" ]; then ok; else ko "$file: text report lacks$missing"; fi
done <captures/MANIFEST.tsv

# 3. The demo's text report.
demo=captures/interop-demo.pcapng
$audit --no-timing "$demo" >"$tmp/demo.txt" 2>&1
echo "exit status $?" >>"$tmp/demo.txt"
if [ $update = 1 ]; then
    cp "$tmp/demo.txt" captures/expected/interop-demo.txt
elif cmp -s "$tmp/demo.txt" captures/expected/interop-demo.txt; then ok; else
    ko "$demo: text report differs from captures/expected/interop-demo.txt:"
    diff -u captures/expected/interop-demo.txt "$tmp/demo.txt" | head -30
fi

# 4. Bad invocations: a clear message and exit status 2.
check_bad() {
    want_msg=$1
    shift
    msg=$("$@" 2>&1 >/dev/null)
    rc=$?
    if [ $rc = 2 ] && printf '%s' "$msg" | grep -q -- "$want_msg"; then ok; else
        ko "'$*' gave exit status $rc and: $msg (wanted: $want_msg)"; fi
}
if [ $update = 0 ]; then
    check_bad "/nonexistent/x.pcap: No such file" $audit /nonexistent/x.pcap
    check_bad "no input" $audit
    check_bad "unknown option --bogus" $audit --bogus "$demo"
    check_bad "fail-on takes" $audit --fail-on sometimes "$demo"
    check_bad "port: 0 is not" $audit --port 0 "$demo"
    check_bad "markers takes" $audit --markers maybe "$demo"
    check_bad "filter \"tcp port x\"" $audit -f "tcp port x" "$demo"
    check_bad "not a pcap or pcapng capture" $audit README.md
    # A fatal input error: the message alone, no summary, no --port hint,
    # whichever input it is (a later file, standard input).
    for args in "README.md" "$demo README.md" "-"; do
        # shellcheck disable=SC2086
        out=$($audit $args <README.md 2>/dev/null)
        rc=$?
        if [ $rc = 2 ] && [ -z "$out" ]; then ok; else ko "'mpa-audit $args' on a non-capture: exit status $rc, and: $out"; fi
    done
    # --fail-on moves the line between 0 and 1.
    $audit --fail-on never "$demo" >/dev/null 2>&1
    rc=$?
    if [ $rc = 0 ]; then ok; else ko "--fail-on never gave exit status $rc"; fi
    $audit --fail-on warning captures/scen-no-reply-close.pcap >/dev/null 2>&1
    rc=$?
    if [ $rc = 1 ]; then ok; else ko "--fail-on warning on a warning gave exit status $rc"; fi
    $audit captures/scen-no-reply-close.pcap >/dev/null 2>&1
    rc=$?
    if [ $rc = 0 ]; then ok; else ko "a warning with the default --fail-on gave exit status $rc"; fi
    # stdin, and several files as one capture.
    n1=$($audit --json --no-timing - <"$demo" 2>/dev/null | $ids)
    if [ "$n1" = "MPA-CRC-VALID MPA-ENH-A-ECHO MPA-ENH-ORD-LE-IRD MPA-STA-REJECT" ]; then ok; else ko "stdin: ids '$n1'"; fi
    # A file cut short or unreadable says the same, byte offset included,
    # whether read from disk, from standard input or from a pipe.
    cutng=$(mktemp)
    head -c 5000 "$demo" >"$cutng"
    for f in captures/bad-cut.pcap "$cutng" captures/bad-magic.pcap captures/bad-empty.pcap; do
        m1=$($audit --json "$f" 2>&1 >/dev/null | sed "s|^mpa-audit: $f:|mpa-audit: NAME:|")
        m2=$($audit --json - <"$f" 2>&1 >/dev/null | sed "s|^mpa-audit: -:|mpa-audit: NAME:|")
        m3=$(cat "$f" | $audit --json - 2>&1 >/dev/null | sed "s|^mpa-audit: -:|mpa-audit: NAME:|; s|empty input|empty file|")
        if [ -n "$m1" ] && [ "$m1" = "$m2" ] && [ "$m1" = "$m3" ]; then ok; else
            ko "$f: the message differs between the file, stdin and a pipe: '$m1' / '$m2' / '$m3'"
        fi
        # Each is an input error: exit status 2 (a cut one after its report).
        $audit --fail-on never "$f" >/dev/null 2>&1
        rc=$?
        if [ $rc = 2 ]; then ok; else ko "$f: exit status $rc, expected 2"; fi
    done
    rm -f "$cutng"
    # A file cut before its first packet: the cut, its summary, and no hint
    # about --port (the cut, not the port, is why no MPA was found).
    cut0=$(mktemp)
    head -c 30 captures/bad-cut.pcap >"$cut0"
    out=$($audit "$cut0" 2>/dev/null)
    rc=$?
    if [ $rc = 2 ] && printf '%s\n' "$out" | grep -q "^Summary: 0 packets" && ! printf '%s' "$out" | grep -q -- "--port"; then
        ok; else ko "a file cut before its first packet: exit status $rc, and: $out"; fi
    rm -f "$cut0"
    two=$($audit --json --no-timing captures/scen-crc-bad.pcap captures/scen-pad.pcap 2>/dev/null | $ids)
    if [ "$two" = "MPA-CRC-VALID MPA-FPD-PAD" ]; then ok; else ko "two files: ids '$two'"; fi
    # --list-rules names every rule.
    nrules=$($audit --list-rules | grep -c '^MPA-')
    if [ "$nrules" -ge 70 ]; then ok; else ko "--list-rules lists $nrules rules"; fi
fi

[ $update = 1 ] && { echo "audit-golden: rewrote captures/ and captures/expected/: review the diff"; exit 0; }
echo "audit-golden: $pass passed, $fail failed"
[ $fail = 0 ]

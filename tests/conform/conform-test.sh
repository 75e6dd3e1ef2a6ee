#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mpa-conform's tests: the suites against the reference peer (mpa-peer)
# on the loopback, as a correct endpoint and in each of its fault modes.
#
#   static   every suite file is a valid test (mpa-conform --list); --help
#            and docs/mpa-conform.1 name the same options; the checked-in
#            test plan is what --plan makes of the suites now; usage
#            errors exit 2 and say why.
#   normal   the suites against mpa-peer, its Responder and its Initiator
#            side (caps enhanced,p2p): every mandatory test passes, none
#            errs; the JSON report meets docs/mpa-conform-json.md's shape
#            (read with build/jget), the JUnit XML is well formed
#            (xmllint) and counts the same, a trace per test.
#   matrix   each fault mode of mpa-peer against the suites: exactly the
#            tests conformance/suites/fault-matrix.tsv names fail, every
#            other test still passes (conformance/suites/run-matrix.sh,
#            which prints the matrix).
#   html     the HTML report of the normal run renders in headless
#            chromium (tests/conform/html-test.sh checks the renderer
#            itself on a fixture).
#
#   tests/conform/conform-test.sh [static|normal|matrix|html]...
set -u
set -f # -t patterns are mpa-conform's
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 2
conf=${MPA_CONFORM:-build/mpa-conform}
peer=build/mpa-peer
jget=build/jget
parts=${*:-static normal matrix html}
t_start=$(date +%s%N)
tmp=$(mktemp -d)
chmod 755 "$tmp"
pbase=$((30000 + ($$ % 2000) * 10))
trap 'pkill -f -- "--listen 127.0.0.1:${pbase%0}[0-9] " 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "conform-test: $*"; }
for f in $conf $peer $jget; do
    [ -x $f ] || { echo "conform-test: $f missing (make $f)"; exit 2; }
done
want() { [[ " $parts " == *" $1 "* ]]; }
# the reference peer, as each role's device (NOTES.md in the suites says why these options)
resp_dev="$peer --listen {addr}:{port} --enhanced --timeout-ms 1000 -q"
init_dev="$peer --connect {peer}:{port} --p2p --timeout-ms 1000 -q"
caps=enhanced,p2p

if want static; then
    out=$($conf --list 2>&1)
    rc=$?
    n=$(echo "$out" | wc -l)
    nf=$(find conformance/suites -mindepth 2 -name '*.json' | wc -l)
    [ $rc = 0 ] && [ "$n" = "$nf" ] && ok || ko "--list: exit $rc, $n tests for $nf files: $(echo "$out" | head -3)"
    help=$($conf --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
    man=$(sed -n '/^\.SH OPTIONS/,/^\.SH OUTPUT/p' docs/mpa-conform.1 | grep -o -- '\\-\\-[a-z][a-z0-9\\-]*' |
        sed 's/\\//g' | sort -u)
    [ "$help" = "$man" ] && ok || ko "--help and docs/mpa-conform.1 differ: $(diff <(echo "$help") <(echo "$man") | grep '^[<>]' | tr '\n' ' ')"
    groff -man -Tutf8 -ww -z docs/mpa-conform.1 2>$tmp/groff && [ ! -s $tmp/groff ] && ok ||
        ko "docs/mpa-conform.1: $(head -3 $tmp/groff)"
    $conf --plan $tmp/plan.md >/dev/null 2>&1
    cmp -s $tmp/plan.md docs/conformance-test-plan.md && ok ||
        ko "docs/conformance-test-plan.md is not what 'build/mpa-conform --plan' makes now (regenerate it)"
    usage() {
        local words=$1; shift
        out=$($conf "$@" 2>&1)
        rc=$?
        [ $rc = 2 ] && [[ $out == *"$words"* ]] && ok || ko "mpa-conform $*: exit $rc: ${out:0:300}"
    }
    usage "where is the device"
    usage "not one of enhanced" --caps enhanced,wings -d 127.0.0.1:1
    usage "no test selected" -t 'no.such.*' -d 127.0.0.1:1
    usage "give --role" --spawn x -d 1 -l 0
    usage "--mss 99999: not in 64..65495" --mss 99999 -d 127.0.0.1:1
    head -c 300 conformance/suites/startup/request-r1.json >$tmp/cut.json
    usage "cut.json: line" $tmp/cut.json -d 127.0.0.1:1
    usage "need --listen" -r initiator -d 127.0.0.1:1
    usage "not a conformance test" injector/scenarios/responder-basic.json -d 127.0.0.1:1
    # the device is not there: every Responder test is an error, exit 2, and says where
    $conf -q -r responder -d 127.0.0.1:1 --caps $caps -t 'startup.*' --json $tmp/down.json >$tmp/down.out 2>&1
    rc=$?
    [ $rc = 2 ] && ok || ko "no device: exit $rc"
    [ "$($jget $tmp/down.json summary.pass)" = 0 ] && [ "$($jget $tmp/down.json summary.error)" != 0 ] &&
        grep -q '"reason":.*connect to 127.0.0.1 port 1: Connection refused' $tmp/down.json && ok ||
        ko "no device: $($jget $tmp/down.json summary)"
fi

# check_report DIR ROLE: the reports of a run against the correct peer
check_report() {
    local d=$1 role=$2 j=$1/report.json
    [ -s $j ] || { ko "$role: no $j"; return; }
    local total passn failn errn skipn mf me
    read -r total passn failn errn skipn < <($jget $j summary.total summary.pass summary.fail summary.error summary.skip | tr '\n' ' ')
    mf=$($jget $j summary.mandatory.fail)
    me=$($jget $j summary.mandatory.error)
    [ "$mf" = 0 ] && [ "$me" = 0 ] && [ "$errn" = 0 ] && ok ||
        ko "$role: the correct peer fails mandatory tests ($mf failed, $errn errors): $(grep -A1 '^FAIL\|^ERROR' $d/out.txt | head -20)"
    [ "$((passn + failn + errn + skipn))" = "$total" ] && [ "$total" = "$($jget $j tests.#)" ] && ok ||
        ko "$role: summary counts do not add up"
    # every test that ran has its trace, and the trace is a pcapng tshark reads
    local i=0 missing=0
    while [ $i -lt "$total" ]; do
        v=$($jget $j tests.$i.verdict)
        if [ "$v" != skip ]; then
            t=$($jget $j tests.$i.trace)
            [ -s "$d/$t" ] || missing=$((missing + 1))
        fi
        i=$((i + 1))
    done
    [ $missing = 0 ] && ok || ko "$role: $missing tests that ran have no trace"
    # JUnit: well formed, the same counts
    if xmllint --noout $d/junit.xml 2>$tmp/xl; then ok; else ko "$role: junit.xml: $(head -3 $tmp/xl)"; fi
    [ "$(grep -c '<testcase ' $d/junit.xml)" = "$total" ] && ok || ko "$role: junit.xml has not $total testcases"
    [ "$(grep -c '<skipped ' $d/junit.xml)" = "$skipn" ] && ok || ko "$role: junit.xml skipped count"
    grep -q "tests=\"$total\" failures=\"$failn\" errors=\"$errn\" skipped=\"$skipn\"" $d/junit.xml && ok ||
        ko "$role: junit.xml totals"
    [ -s $d/report.html ] && ok || ko "$role: no report.html"
}

if want normal || want html; then
    $conf -r responder -d $((pbase + 1)) --caps $caps --spawn "$resp_dev" -o $tmp/resp >$tmp/resp.out 2>&1
    rc=$?
    mkdir -p $tmp/resp
    mv $tmp/resp.out $tmp/resp/out.txt
    [ $rc = 0 ] && ok || ko "responder run: exit $rc: $(tail -3 $tmp/resp/out.txt)"
    check_report $tmp/resp responder
    $conf -r initiator -l 0 --caps $caps --spawn "$init_dev" -o $tmp/init >$tmp/init.out 2>&1
    rc=$?
    mkdir -p $tmp/init
    mv $tmp/init.out $tmp/init/out.txt
    [ $rc = 0 ] && ok || ko "initiator run: exit $rc: $(tail -3 $tmp/init/out.txt)"
    check_report $tmp/init initiator
    # the tests that need a device with markers, or one that rejects: the
    # peer set up so (a device in one of these modes fails the others)
    for mode in markers reject; do
        opt=--markers\ 1
        [ $mode = reject ] && opt=--reject
        $conf -q -r responder -d $((pbase + 4)) --caps $caps,$mode -t "*.$mode*" \
            --spawn "$peer --listen {addr}:{port} --enhanced $opt --timeout-ms 1000 -q" --json $tmp/$mode.json \
            >$tmp/$mode.out 2>&1
        rc=$?
        np=$($jget $tmp/$mode.json summary.pass)
        [ $rc = 0 ] && [ "$($jget $tmp/$mode.json summary.mandatory.fail)" = 0 ] && [ "$np" -gt 0 ] && ok ||
            ko "responder with $mode: exit $rc, $np passed: $(tail -5 $tmp/$mode.out)"
    done
    # without caps, the tests that need them are skipped, not failed
    $conf -q -r responder -d $((pbase + 2)) --spawn "$resp_dev" --json $tmp/nocaps.json >/dev/null 2>&1
    rc=$?
    s=$($jget $tmp/nocaps.json summary.skip)
    [ $rc = 0 ] && [ "$s" -gt 0 ] && ok || ko "no caps: exit $rc, $s skipped"
    # -t selects
    $conf -q -r responder -d $((pbase + 3)) --caps $caps --spawn "$resp_dev" -t 'startup.*' --json $tmp/sel.json \
        >/dev/null 2>&1
    n=$($jget $tmp/sel.json tests.#)
    bad=0
    for ((i = 0; i < n; i++)); do [[ $($jget $tmp/sel.json tests.$i.id) == startup.* ]] || bad=$((bad + 1)); done
    [ "$n" -gt 0 ] && [ "$bad" = 0 ] && ok || ko "-t 'startup.*': $n tests, $bad of other suites"
    # --before runs before each test with {test} and {role}; a failing
    # command makes that test an error naming its last line, the others run
    $conf -q -r responder -d $((pbase + 4)) --caps $caps --spawn "$resp_dev" -t 'startup.key.request-octet-[12]' \
        --before "echo {test} {role} >>$tmp/before.log; echo noise; [ {test} != startup.key.request-octet-2 ] || { echo device is wedged; exit 3; }" \
        --json $tmp/before.json >/dev/null 2>&1
    rc=$?
    got="$rc|$($jget $tmp/before.json tests.0.verdict)|$($jget $tmp/before.json tests.1.verdict)|$($jget $tmp/before.json tests.1.reason)|$(tr '\n' ',' <$tmp/before.log)"
    want="2|pass|error|--before command exited with status 3: device is wedged|startup.key.request-octet-1 responder,startup.key.request-octet-2 responder,"
    [ "$got" = "$want" ] && ok || ko "--before: got '$got', want '$want'"
fi

if want matrix; then
    if conformance/suites/run-matrix.sh >$tmp/matrix.out 2>&1; then ok; else ko "fault matrix: $(tail -30 $tmp/matrix.out)"; fi
    # the matrix, compact: how many tests each fault makes fail (the ids: fault-matrix.tsv)
    echo "conform-test: fault matrix (failing tests per mpa-peer fault and role):"
    awk -F'\t' 'NF >= 3 && $1 !~ /^#/ { n = ($4 == "") ? 0 : split($4, a, " ");
        printf "    %-26s %-10s %3d\n", $1, $2, n }' $tmp/matrix.out
    grep '^run-matrix:' $tmp/matrix.out | sed 's/^/    /'
fi

if want html; then
    if tests/conform/html-test.sh >$tmp/html.out 2>&1; then ok; else ko "html-test: $(tail -20 $tmp/html.out)"; fi
    # the real report of the responder run renders too
    h=$tmp/resp/report.html
    if [ -s $h ]; then
        home=$(mktemp -d)
        dom=$(HOME=$home timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$h" 2>/dev/null)
        rm -rf "$home"
        n=$($jget $tmp/resp/report.json tests.#)
        i=0
        miss=0
        while [ $i -lt "$n" ]; do
            id=$($jget $tmp/resp/report.json tests.$i.id)
            [[ $dom == *"$id"* ]] || miss=$((miss + 1))
            i=$((i + 1))
        done
        [ -n "$dom" ] && [ $miss = 0 ] && ok || ko "chromium on $h: ${#dom} octets of DOM, $miss test ids missing"
    fi
fi

ms=$((($(date +%s%N) - t_start) / 1000000))
echo "conform-test: $pass passed, $fail failed ($((ms / 1000)).$(((ms % 1000) / 100)) s)"
[ $fail = 0 ]

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mpa-inject's tests: its script parser, and the example scenarios of
# injector/scenarios/ played against the reference peer (mpa-peer) on the
# loopback, as a correct endpoint and in its fault modes.
#
#   scripts   every example passes --check; every script of
#             tests/inject/bad/ is rejected (exit 2) with exactly the
#             message recorded in tests/inject/bad/expected.txt (file and
#             JSON path); usage errors exit 2.
#   cases     one line each below: scenario, the device (an mpa-peer
#             command run by --spawn), the verdict, and for a fail the
#             step that decided it and words its detail must hold.  The
#             --json report is read with build/jget.
#   exits     0 when every scenario passes, 1 when one fails, 2 when one
#             could not run (nothing listening), whatever the order.
#   deadlines a device that says nothing, one that vanishes mid-run, and
#             SIGTERM to mpa-inject: a verdict or exit 2 in bounded time,
#             the device process reaped.
#   traces    the pcapng of a run: packets carry "SCENARIO step N (verb)"
#             comments; one-octet segments, split points and held octets are where the
#             script put them (tshark tcp.len); mpa-audit reads it and
#             finds what the run found; the Wireshark plugin decodes it.
#
#   tests/inject/inject-test.sh [CASE-NAME-SUBSTRING]
# INJ overrides the binary (default build/mpa-inject-asan).
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 2
inj=${INJ:-build/mpa-inject-asan}
peer=build/mpa-peer
audit=build/mpa-audit
jget=build/jget
only=${1:-}
t_start=$(date +%s%N)
tmp=$(mktemp -d)
chmod 755 "$tmp"
# ports for the devices: one per case, from a range that depends on our
# pid, below the kernel's ephemeral ports (32768 up by default): a port
# one of our own connections left in TIME_WAIT cannot be bound (and apart
# from conform-test's 10000-19999)
pbase=$((20000 + ($$ % 1000) * 10))
pn=0
next_port() { pn=$((pn + 1)); port=$((pbase + pn % 10)); }
cleanup() {
    pkill -f -- "--listen 127.0.0.1:${pbase%0}[0-9] " 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "inject-test: $*"; }
for f in $inj $peer $audit $jget; do
    [ -x $f ] || { echo "inject-test: $f missing (make $f)"; exit 2; }
done
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
sc=injector/scenarios

# ---- scripts ---------------------------------------------------------------

if [ -z "$only" ]; then
    for f in $sc/*.json; do
        out=$($inj --check "$f" 2>&1)
        rc=$?
        [ $rc = 0 ] && ok || ko "--check $f: exit $rc: $out"
    done
    n=0
    for f in tests/inject/bad/*.json; do
        n=$((n + 1))
        out=$($inj --check "$f" 2>&1)
        rc=$?
        # every error of the script, one line each, file:line:column first
        want=$(grep -F -- "mpa-inject: $f:" tests/inject/bad/expected.txt)
        [ $rc = 2 ] && ok || ko "--check $f: exit $rc, expected 2"
        [ "$out" = "$want" ] && ok || ko "--check $f said: $out
    expected: $want"
        # nothing is sent for a bad script: not even a connection attempt
        out2=$($inj -t 127.0.0.1:1 --no-trace "$f" 2>&1)
        [ "$out2" = "$want" ] && ok || ko "$f with -t: $out2"
    done
    nexp=$(sed 's/\.json:.*/.json/' tests/inject/bad/expected.txt | sort -u | wc -l)
    [ "$n" = "$nexp" ] && ok || ko "tests/inject/bad has $n scripts, expected.txt names $nexp"
    out=$($inj --check tests/inject/no-such-file.json 2>&1)
    [ $? = 2 ] && [[ $out == *"no-such-file.json"* ]] && ok || ko "a missing script: $out"
    usage() {
        local want=$1; shift
        out=$($inj "$@" 2>&1)
        rc=$?
        [ $rc = 2 ] && [[ $out == *"$want"* ]] && ok || ko "mpa-inject $*: exit $rc, output: ${out:0:300}"
    }
    usage "no scenario given"
    # A bad option: one line and where the options are, not the whole help.
    for bad in --bogus -x "-t" "--trace"; do
        out=$($inj $bad 2>&1)
        rc=$?
        [ $rc = 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 2 ] && [[ $out == "mpa-inject: "*"(mpa-inject --help for the options)" ]] &&
            ok || ko "mpa-inject $bad: exit $rc, output: ${out:0:300}"
    done
    # No file unless asked: a run (here one that cannot connect) leaves
    # nothing in the current folder without -w or --trace-dir.
    mkdir -p "$tmp/cwd"
    ainj=$inj
    case $ainj in /*) ;; *) ainj=$PWD/$inj ;; esac
    (cd "$tmp/cwd" && $ainj -q -t 127.0.0.1:1 "$OLDPWD/$sc/responder-basic.json" >/dev/null 2>&1)
    [ -z "$(ls -A "$tmp/cwd")" ] && ok || ko "a run without -w or --trace-dir wrote: $(ls -A "$tmp/cwd")"
    (cd "$tmp/cwd" && $ainj -q -t 127.0.0.1:1 --trace-dir . "$OLDPWD/$sc/responder-basic.json" >/dev/null 2>&1)
    [ -s "$tmp/cwd/responder-basic.pcapng" ] && ok || ko "--trace-dir . wrote no responder-basic.pcapng"
    usage "say where it listens" $sc/responder-basic.json
    usage "say where it connects to" $sc/initiator-basic.json
    usage "give one" --lab x --spawn y -t 1 $sc/responder-basic.json
    usage "socket or raw" --transport udp -t 127.0.0.1:1 $sc/responder-basic.json
    usage "--iface and --src" --transport raw -t 127.0.0.1:1 $sc/responder-basic.json
    usage "use --trace-dir" -w x.pcapng -t 127.0.0.1:1 $sc/responder-basic.json $sc/responder-bad-key.json
    usage "expected HOST:PORT" -t nowhere $sc/responder-basic.json
    usage "--mss 12abc: not in 64..65495" --mss 12abc -t 127.0.0.1:1 $sc/responder-basic.json
    usage "--src-port 0: not a port" --src-port 0 -t 127.0.0.1:1 $sc/responder-basic.json
    # --help names every option it has (doc-check compares with the man page)
    $inj --help | grep -q -- "--spawn" && ok || ko "--help does not mention --spawn"
fi

# ---- cases against mpa-peer ----------------------------------------------------

# case NAME SCENARIO DEVICE-ARGS VERDICT [STEP WORDS]
#   DEVICE-ARGS: mpa-peer options; the scenario's role says --listen or --connect.
#   VERDICT pass|fail|error; STEP the step that decided a fail ("end" when
#   the run failed on a finding after every step passed, "any" when the
#   device's timing decides which step sees the fault); WORDS must be in
#   that step's detail (or the run's error).
run_case() {
    local name=$1 scen=$2 dargs=$3 verdict=$4 step=${5:-} words=${6:-}
    [ -n "$only" ] && [[ $name != *"$only"* ]] && return
    local f=$sc/$scen.json json=$tmp/$name.json tdir=$tmp/tr-$name
    local role
    role=$($inj --check "$f" | grep -o 'device [a-z]*' | cut -d' ' -f2)
    next_port
    if [ "$role" = responder ]; then
        timeout 60 $inj -q -t 127.0.0.1:$port --spawn "$peer --listen {addr}:{port} -q $dargs" \
            --trace-dir "$tdir" --json "$json" "$f" >"$tmp/$name.out" 2>&1
    else
        timeout 60 $inj -q -l 127.0.0.1:0 --spawn "$peer --connect {peer}:{port} -q $dargs" \
            --trace-dir "$tdir" --json "$json" "$f" >"$tmp/$name.out" 2>&1
    fi
    local rc=$?
    local want_rc=0
    [ "$verdict" = fail ] && want_rc=1
    [ "$verdict" = error ] && want_rc=2
    if [ $rc != $want_rc ]; then
        ko "$name: exit $rc, expected $want_rc: $(head -c 600 "$tmp/$name.out")"
        return
    fi
    ok
    local got
    got=$($jget "$json" runs.0.verdict)
    [ "$got" = "$verdict" ] && ok || ko "$name: verdict $got, expected $verdict"
    [ "$($jget "$json" summary.exit_status)" = $rc ] && ok || ko "$name: summary.exit_status is not $rc"
    if [ "$verdict" = fail ]; then
        local at detail
        at=$($jget "$json" runs.0.decided_at_step)
        if [ "$step" = any ]; then
            # the device's timing decides which step sees it
            detail=$($jget "$json" runs.0.steps.$((at - 1)).detail)
        elif [ "$step" = end ]; then
            detail=$($jget "$json" runs.0.error)
            [ "$at" = "<missing>" ] && ok || ko "$name: decided at step $at, expected after the last step"
        else
            detail=$($jget "$json" runs.0.steps.$((step - 1)).detail)
            [ "$at" = "$step" ] && ok || ko "$name: decided at step $at, expected $step"
            [ "$($jget "$json" runs.0.steps.$((step - 1)).verdict)" = fail ] && ok ||
                ko "$name: step $step is not marked fail"
            if [ "$step" -lt "$($jget "$json" runs.0.steps.#)" ]; then
                [ "$($jget "$json" runs.0.steps.$step.verdict)" = "not run" ] && ok ||
                    ko "$name: the step after the failed one ran"
            fi
        fi
        [[ $detail == *"$words"* ]] && ok || ko "$name: step $step detail '$detail' lacks '$words'"
        # the text report says the same
        grep -q "^FAIL $scen " "$tmp/$name.out" && ok || ko "$name: no FAIL line: $(head -c 300 "$tmp/$name.out")"
    fi
    # a trace was written and tshark reads it
    local tr=$tdir/$scen.pcapng
    if [ -s "$tr" ] && tshark -r "$tr" >/dev/null 2>&1; then ok; else ko "$name: no readable trace $tr"; fi
    # the device process is gone
    pgrep -f -- "--listen 127.0.0.1:$port " >/dev/null && ko "$name: the device is still running" || ok
}

#        name                    scenario                    mpa-peer options                      verdict step words
run_case basic                   responder-basic             ""                                    pass
run_case bytewise                responder-bytewise          ""                                    pass
run_case hold                    responder-hold              ""                                    pass
run_case read-back               responder-read-back         ""                                    pass
run_case read-back-stale         responder-read-back         "--fault read-stale"                  fail 6 "payload differs at octet 0: got 00, want de"
run_case bad-crc                 responder-bad-crc           ""                                    pass
run_case bad-key                 responder-bad-key           ""                                    pass
run_case bad-marker              responder-bad-marker        "--markers 1"                         pass
run_case enh-p2p                 responder-enhanced-p2p      "--enhanced"                          pass
run_case enh-no-p2p              responder-enhanced-no-p2p   "--enhanced"                          pass
run_case silent                  responder-silent-peer       "--timeout-ms 300"                    pass
run_case init-basic              initiator-basic             "--p2p"                               pass
run_case init-write              initiator-rtr-write-only    "--p2p"                               pass
run_case active-active           active-active               ""                                    pass
run_case rdmap-7306              responder-rdmap-7306        ""                                    pass
# the reference peer's faults, each caught where it shows
run_case f-bad-key               responder-basic             "--fault bad-key"                     fail 3 'key is "unknown", expected "reply"'
run_case f-wrong-rev             responder-basic             "--fault wrong-rev"                   fail 3 "rev is 3, expected 1"
run_case f-pdlen-512             responder-basic             "--fault pdlen-over-512"              fail 3 "MPA-FRM-PDLEN-MAX"
run_case f-pdlen-lie             responder-basic             "--fault pdlen-lie"                   fail 3 "incomplete startup frame"
run_case f-fpdu-first            responder-basic             "--fault responder-fpdu-first"        fail 5 "MPA-STA-RESP-FPDU-WAIT"
run_case f-bad-crc               responder-basic             "--fault bad-crc"                     fail 5 'crc is "bad", expected "good"'
run_case f-no-reply              responder-basic             "--fault no-reply"                    fail 3 "got nothing within 3000 ms"
run_case f-never-close           responder-bad-key           "--fault never-close-on-bad-frame"    fail 3 "got frame"
run_case f-ignores-s             responder-enhanced-p2p      "--enhanced --fault ignores-s"        fail 3 "s is 0, expected 1"
run_case f-a-not-echoed          responder-enhanced-p2p      "--enhanced --fault a-not-echoed"     fail 3 "a is 0, expected 1"
run_case f-ord-gt-ird            responder-enhanced-p2p      "--enhanced --fault ord-gt-peer-ird"  fail 3 "ord is 17, expected 0..16"
run_case f-no-rtr-option         responder-enhanced-p2p      "--enhanced --fault no-rtr-option"    fail 3 "MPA-ENH-RESP-OPT"
run_case f-bcd-without-a         responder-enhanced-no-p2p   "--enhanced --fault bcd-without-a"    fail 3 "b is 1, expected 0"
run_case f-term-5                responder-enhanced-p2p      "--enhanced --fault term-5"           fail any "code\":5"
run_case f-crc-no-term           responder-bad-crc           "--fault never-close-on-bad-frame"    pass
run_case f-marker-none           responder-bad-marker        ""                                    fail 3 "m is 0, expected 1"
run_case fi-bad-key              initiator-basic             "--p2p --fault bad-key"               fail 2 'key is "unknown", expected "request"'
run_case fi-wrong-rev            initiator-basic             "--p2p --fault wrong-rev"             fail 2 "MPA-FRM-REV"
run_case fi-no-p2p               initiator-basic             "--enhanced"                          fail 2 "a is 0, expected 1"
run_case fi-fpdu-before-rtr      initiator-basic             "--p2p --fault fpdu-before-rtr"       fail 4 'rtr is "none"'
run_case fi-bad-crc              initiator-basic             "--p2p --fault bad-crc"               fail 4 "MPA-CRC-VALID"
run_case fi-term-7               initiator-basic             "--p2p --fault term-7"                fail 4 "code\":7"
run_case fi-no-rtr-option        initiator-basic             "--p2p --fault no-rtr-option"         fail 2 "MPA-ENH-INIT-OPTS"
run_case fi-wrong-rtr-type       initiator-rtr-write-only    "--p2p --fault wrong-rtr-type"        fail 4 'rtr is "send", expected "write"'
run_case fi-not-init-init        active-active               "--role responder"                    fail 3 'key is "reply", expected "request"'

# ---- exit status over several scenarios -----------------------------------------

if [ -z "$only" ] || [[ exits == *"$only"* ]]; then
    next_port
    $inj -q -t 127.0.0.1:$port --spawn "$peer --listen {addr}:{port} -q" --no-trace \
        $sc/responder-basic.json $sc/responder-bad-key.json >$tmp/ex.out 2>&1
    rc=$?
    [ $rc = 0 ] && grep -q "2 scenarios: 2 passed, 0 failed, 0 errors" $tmp/ex.out && ok ||
        ko "two passing scenarios: exit $rc: $(cat $tmp/ex.out)"
    next_port
    $inj -q -t 127.0.0.1:$port --spawn "$peer --listen {addr}:{port} -q --fault bad-key" --no-trace \
        $sc/responder-bad-key.json $sc/responder-basic.json >$tmp/ex.out 2>&1
    rc=$?
    [ $rc = 1 ] && grep -q "2 scenarios: 1 passed, 1 failed, 0 errors" $tmp/ex.out && ok ||
        ko "a pass then a fail: exit $rc: $(cat $tmp/ex.out)"
    # nothing listens: an error (exit 2) that says where, and the next scenario still runs
    $inj -q -t 127.0.0.1:1 --no-trace --json $tmp/ex.json $sc/responder-basic.json $sc/responder-bad-key.json \
        >$tmp/ex.out 2>&1
    rc=$?
    [ $rc = 2 ] && ok || ko "nothing listening: exit $rc"
    [ "$($jget $tmp/ex.json runs.0.verdict runs.1.verdict)" = "error
error" ] && ok || ko "nothing listening: verdicts $($jget $tmp/ex.json runs.0.verdict runs.1.verdict | tr '\n' ' ')"
    [[ $($jget $tmp/ex.json runs.0.steps.0.detail) == *"connect to 127.0.0.1 port 1: Connection refused"* ]] && ok ||
        ko "nothing listening: $($jget $tmp/ex.json runs.0.steps.0.detail)"
    # a device command that cannot start: an error naming it, in the JSON too
    $inj -q -t 1 --no-trace --json $tmp/ns.json --spawn "/nonexistent/dut {port}" $sc/responder-basic.json \
        >$tmp/ns.out 2>&1
    rc=$?
    [ $rc = 2 ] && [[ $($jget $tmp/ns.json runs.0.error) == *"exited with status 127 before it listened"* ]] && ok ||
        ko "a device that cannot start: exit $rc, $($jget $tmp/ns.json runs.0.error)"
    [ "$($jget $tmp/ns.json runs.0.steps.0.verdict)" = "not run" ] && ok || ko "a device that cannot start: step 1 ran"
    # a device that vanishes after the Request: its kernel closes, we say so at once
    next_port
    s0=$(date +%s%N)
    $inj -q -t 127.0.0.1:$port --no-trace --json $tmp/van.json \
        --spawn "$peer --listen {addr}:{port} -q --fault no-reply & sleep 0.5; kill -9 \$!" \
        $sc/responder-basic.json >$tmp/van.out 2>&1
    rc=$?
    ms=$((($(date +%s%N) - s0) / 1000000))
    [ $rc = 1 ] && [[ $($jget $tmp/van.json runs.0.steps.2.detail) == *"got fin"* ]] && ok ||
        ko "vanishing device: exit $rc, $($jget $tmp/van.json runs.0.steps.2.detail)"
    [ $ms -lt 2900 ] && ok || ko "vanishing device: $ms ms, the FIN was not taken at once"
    # SIGTERM while waiting: exit 2 soon, the device reaped
    next_port
    $inj -t 127.0.0.1:$port --no-trace --spawn "$peer --listen {addr}:{port} -q --fault no-reply" \
        $sc/responder-basic.json >$tmp/term.out 2>&1 &
    ip=$!
    sleep 0.7
    kill -TERM $ip
    s0=$(date +%s%N)
    wait $ip
    rc=$?
    ms=$((($(date +%s%N) - s0) / 1000000))
    [ $rc = 2 ] && ok || ko "SIGTERM: exit $rc: $(tail -c 300 $tmp/term.out)"
    [ $ms -lt 2500 ] && ok || ko "SIGTERM: took $ms ms to stop"
    grep -q "interrupted" $tmp/term.out && ok || ko "SIGTERM: the report does not say interrupted"
    sleep 0.1
    pgrep -f -- "--listen 127.0.0.1:$port " >/dev/null && ko "SIGTERM: the device survived" || ok
fi

# ---- traces ---------------------------------------------------------------------

if [ -z "$only" ] || [[ traces == *"$only"* ]]; then
    t=$tmp/tr-bytewise/responder-bytewise.pcapng
    if [ -s $t ]; then
        # step 2: the Request (24 octets with its private data), one octet per segment
        lens=$(tshark -r $t -Y 'frame.comment contains "responder-bytewise step 2 (send)" && tcp.len > 0' 2>/dev/null \
            -T fields -e tcp.len | sort | uniq -c | tr -s ' ')
        [ "$lens" = " 24 1" ] && ok || ko "bytewise trace: step 2 segments: $lens"
        # step 4: an FPDU split at 3 and 10
        lens=$(tshark -r $t -Y 'frame.comment contains "responder-bytewise step 4 (send)" && tcp.len > 0' 2>/dev/null \
            -T fields -e tcp.len | tr '\n' ' ')
        [ "$lens" = "3 7 42 " ] && ok || ko "bytewise trace: step 4 segments: $lens, expected 3 7 42"
        # every packet has its comment
        n=$(tshark -r $t 2>/dev/null | wc -l)
        nc=$(tshark -r $t -Y 'frame.comment contains "responder-bytewise step"' 2>/dev/null | wc -l)
        [ "$n" -gt 30 ] && [ "$n" = "$nc" ] && ok || ko "bytewise trace: $n packets, $nc with a step comment"
    else
        ko "no trace $t"
    fi
    # "hold": step 4's FPDU (28 octets) waits and goes out with step 5's
    # (48 octets) in one segment
    t=$tmp/tr-hold/responder-hold.pcapng
    if [ -s $t ]; then
        lens=$(tshark -r $t -Y 'frame.comment contains "responder-hold step 4 (send)" && tcp.len > 0' 2>/dev/null \
            -T fields -e tcp.len | tr '\n' ' ')
        [ -z "$lens" ] && ok || ko "hold trace: step 4 sent segments: $lens, expected none"
        lens=$(tshark -r $t -Y 'frame.comment contains "responder-hold step 5 (send)" && tcp.len > 0' 2>/dev/null \
            -T fields -e tcp.len | tr '\n' ' ')
        [ "$lens" = "76 " ] && ok || ko "hold trace: step 5 segments: $lens, expected 76"
    else
        ko "no trace $t"
    fi
    # mpa-audit reads the traces: a clean run has no error finding, the bad-CRC
    # run shows the CRC error we sent on purpose and the device's TERMINATE
    t=$tmp/tr-basic/responder-basic.pcapng
    $audit --json $t >$tmp/a.json 2>$tmp/a.err
    rc=$?
    [ $rc = 0 ] && ok || ko "mpa-audit on $t: exit $rc: $(head -c 300 $tmp/a.err)"
    t=$tmp/tr-bad-crc/responder-bad-crc.pcapng
    $audit $t >$tmp/a.txt 2>&1
    grep -q "MPA-CRC-VALID" $tmp/a.txt && ok || ko "mpa-audit on $t: no MPA-CRC-VALID: $(head -c 400 $tmp/a.txt)"
    grep -qi "terminate" $tmp/a.txt && ok || ko "mpa-audit on $t: no TERMINATE"
    # atomic_request and immediate write the headers RFC 7306 defines: no
    # finding at all on our octets (a FetchAdd with Compare Mask 0 drew
    # MPA-RDMAP-ATOMIC-UNUSED), and the FetchAdd's unused fields as sent
    t=$tmp/tr-rdmap-7306/responder-rdmap-7306.pcapng
    $audit --no-timing $t >$tmp/a.txt 2>&1
    grep -q "findings: 0 errors, 0 warnings, 0 notes" $tmp/a.txt && ok ||
        ko "mpa-audit on $t: findings on RFC 7306 messages: $(grep -A2 'findings:' $tmp/a.txt | head -c 400)"
    if [ -r build/dissector/iwmpa.so ]; then
        chmod -R a+rX $tmp
        got=$(scripts/tshark-iwmpa -r $t -Y iwrdmap.atomic.aopcode -T fields -e iwrdmap.atomic.aopcode \
            -e iwrdmap.atomic.add_swap_mask -e iwrdmap.atomic.compare -e iwrdmap.atomic.compare_mask 2>&1 | tr '\t\n' ' |')
        [ "$got" = "0 0x0000000000000000 0x0000000000000000 0xffffffffffffffff|2 0xffffffffffffffff 0x0000000000000007 0x00000000ffffffff|" ] &&
            ok || ko "the plugin on $t: atomic fields '$got'"
    fi
    # the Wireshark plugin decodes them too (when it is built)
    if [ -r build/dissector/iwmpa.so ]; then
        t=$tmp/tr-enh-p2p/responder-enhanced-p2p.pcapng
        chmod -R a+rX $tmp
        got=$(scripts/tshark-iwmpa -r $t -Y iwmpa -T fields -e _ws.col.Info 2>&1 | tr '\n' '|')
        [[ $got == *"MPA Request Rev2"* && $got == *"MPA Reply Rev2"* && $got == *"RTR"* ]] && ok ||
            ko "the plugin on $t: $got"
    else
        echo "inject-test: build/dissector/iwmpa.so not built: the plugin check is skipped"
    fi
fi

ms=$((($(date +%s%N) - t_start) / 1000000))
echo "inject-test: $pass passed, $fail failed ($((ms / 1000)).$(((ms % 1000) / 100)) s)"
[ $fail = 0 ]

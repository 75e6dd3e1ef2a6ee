#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mpa-inject's raw transport in its lab (--transport raw --lab), as root.
#
#   c-test     build/test/inject/test_raw: lost pieces and their
#              retransmission, reorder+duplicate+reseg, malformed frames,
#              FIN and RST, IPv4 and IPv6 (what no scenario can reach)
#   scenarios  every example scenario against mpa-peer in the lab, IPv4
#              and IPv6, and tests/inject/raw/*.json (reorder, duplicate,
#              reseg; --mss 300), each checked for
#                exit   mpa-inject's exit status 0 and its PASS line
#                trace  the trace reads in tshark; where the segments are
#                       the point (bytewise, split, reorder, duplicate,
#                       reseg), our data segments, seq:len in order, are
#                       exactly the expected ones
#                wire   a capture in the device's namespace (dumpcap) holds
#                       exactly the segments our trace says we sent
#                rst    ... and no RST from our address: the injector's
#                       kernel never answered for the raw flow
#                clean  no namespace of that run is left, the device is gone
#   cleanup    SIGTERM mid-run (exit 2, nothing left); SIGKILL mid-run (the
#              lab's watcher removes the lab); SIGKILL of mpa-inject and its
#              watcher (the lab is left, and the next run removes it; so
#              does the command docs/mpa-inject-raw.md gives)
#
# Exit 77 (skipped) when not root or `ip netns` cannot work here.  Cases
# run JOBS at a time (each has a lab of its own).
#
#   tests/inject/raw-test.sh [CASE-NAME-SUBSTRING]
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 2
inj=${MPA_INJECT:-build/mpa-inject-asan}
peer=build/mpa-peer
traw=build/test/inject/test_raw
sc=injector/scenarios
rs=tests/inject/raw
JOBS=${JOBS:-6}
only=${1:-}
# the lab's addresses (injector/inject/netns.c)
raw4=10.77.0.3
raw6=fd6d:7061:1::3
t_start=$(date +%s%N)

if [ "$(id -u)" != 0 ]; then echo "raw-test: skipped (needs root)"; exit 77; fi
if ! ip netns add mpatest$$ 2>/dev/null; then echo "raw-test: skipped (ip netns does not work here)"; exit 77; fi
ip netns delete mpatest$$
for f in $inj $peer $traw; do
    [ -x $f ] || { echo "raw-test: $f missing (make $f)"; exit 2; }
done
for c in tshark dumpcap setsid pgrep; do
    command -v $c >/dev/null || { echo "raw-test: $c missing"; exit 2; }
done

tmp=$(mktemp -d)
pids=""     # background jobs
injpids=""  # every mpa-inject started: their namespaces are checked and, at the end, removed
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    for p in $pids; do wait "$p" 2>/dev/null; done
    for p in $(cat $tmp/injpids 2>/dev/null) $injpids; do
        for ns in mpainj${p}i mpainj${p}d; do
            if [ -e /run/netns/$ns ]; then
                ip netns pids $ns 2>/dev/null | xargs -r kill -9 2>/dev/null
                ip netns delete $ns 2>/dev/null
            fi
        done
        [ -e /run/netns/mpainj${p}i ] || [ -e /run/netns/mpainj${p}d ] || rm -f /run/mpa-inject/lab-$p.lock
    done
    # a device that outlived its lab (only a broken build leaves one)
    for p in $(cat $tmp/ports 2>/dev/null); do
        pkill -f -- "mpa-peer -q --(listen|connect) (10\.77\.0\.[0-9]+|\[fd6d:7061:1::[0-9]+\]):$p( |\$)"
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "raw-test: $*"; }
want() { [ -z "$only" ] || [[ "$1" == *"$only"* ]]; }

# The device's side of the wire: `sh capdev.sh FILE CMD...` runs CMD with
# dumpcap capturing the device's namespace into FILE.  dumpcap runs in a
# session of its own so the lab's SIGTERM to the device's process group
# does not reach it; the shell, which gets it, gives dumpcap 0.7 s to
# deliver what it holds (it loses packets not yet handed over when it is
# stopped at once), then stops it with SIGINT.
cat >$tmp/capdev.sh <<'EOF'
out=$1; shift
setsid dumpcap -q -i any -w "$out" >/dev/null 2>&1 &
dc=$!
n=0
while [ ! -s "$out" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
sleep 0.2
stop() { sleep 0.7; kill -INT $dc 2>/dev/null; wait $dc; }
trap 'kill $p 2>/dev/null; stop; exit 0' TERM
"$@" &
p=$!
wait $p
rc=$?
stop
exit $rc
EOF

# One tshark pass per capture (tshark takes a while to start): a line per
# TCP segment, "src sport dport flags seq(relative) seq(absolute)
# ack(absolute) len syn rst".
fields_of() { # FILE
    tshark -r "$1" -Y tcp -T fields -E occurrence=f -e ip.src -e ipv6.src -e tcp.srcport -e tcp.dstport \
        -e tcp.flags -e tcp.seq -e tcp.seq_raw -e tcp.ack_raw -e tcp.len -e tcp.flags.syn -e tcp.flags.reset \
        2>/dev/null | awk -F'\t' -v OFS=' ' '{ print ($1 != "" ? $1 : $2), $3, $4, $5, $6, $7, $8, $9, $10, $11 }'
}
# From fields_of: our data segments, "seq:len ..." in order (relative
# sequence numbers) ...
segs_of() { # FIELDS OUR-ADDRESS
    awk -v me=$2 '$1 == me && $8 > 0 { printf "%s%s:%s", (n++ ? " " : ""), $5, $8 } END { print "" }' "$1"
}
# ... every segment from our address, "flags seq ack len", sorted ...
ours_of() { # FIELDS OUR-ADDRESS
    awk -v me=$2 '$1 == me { print $4, $6, $7, $8 }' "$1" | sort
}
# ... how many segments match an awk condition.
count() { # FIELDS CONDITION
    awk "$2 { n++ } END { print n + 0 }" "$1"
}

# Is anything of mpa-inject run $1 left: "" or what.
leftover() {
    local p=$1 what=""
    for ns in mpainj${p}i mpainj${p}d; do
        [ -e /run/netns/$ns ] && what="$what namespace $ns"
    done
    ip -o link show 2>/dev/null | grep -qE "v(inj|dut)$p[@:]" && what="$what veth in the host namespace"
    echo "$what"
}
# Waits up to 5 s until nothing of run $1 and no process matching $2 is left.
gone_within() {
    local i
    for i in $(seq 100); do
        [ -z "$(leftover $1)" ] && ! pgrep -f -- "$2" >/dev/null && return 0
        sleep 0.05
    done
    return 1
}

# ---- the C test ------------------------------------------------------------------

if want c-test; then
    $traw >$tmp/c.out 2>&1
    rc=$?
    if [ $rc = 0 ]; then ok; else ko "c-test: $traw exit $rc: $(tail -n 15 $tmp/c.out)"; fi
    grep -E '^test_raw: [0-9]+ passed' $tmp/c.out
fi

# ---- scenarios --------------------------------------------------------------------

# run_case PORT NAME FAMILY SCENARIO "MPA-PEER OPTIONS" "MPA-INJECT OPTIONS" [segs=EXPECTED]
# (PORT: unique to the case, so its device is found by its command line)
run_case() {
    local port=$1 name=$2 fam=$3 scen=$4 popts=$5 iopts=$6
    shift 6
    local d=$tmp/$name x
    mkdir -p $d
    echo $port >>$tmp/ports
    res() { echo "$*" >>$d/result; }
    local sname
    sname=$(sed -n 's/^ *"name": *"\([^"]*\)".*/\1/p' $scen | head -n 1)
    local addr="{addr}:{port}" peera="{peer}:{port}" raw=$raw4
    [ $fam = 6 ] && addr="[{addr}]:{port}" peera="[{peer}]:{port}" raw=$raw6
    local dev where
    if grep -q '"device": *"initiator"' $scen; then
        dev="$peer -q --connect $peera $popts"
        where="-l $port"
    else
        dev="$peer -q --listen $addr $popts"
        where="-t $port"
    fi
    # the device's command line, unique by its port: how we find it later
    $inj -$fam -q --transport raw $iopts --trace-dir $d \
        --lab "sh $tmp/capdev.sh $d/dut.pcapng $dev" $where $scen >$d/out 2>&1 &
    local ip=$!
    echo $ip >>$tmp/injpids
    # a watchdog that leaves no sleep behind when it is stopped
    (trap 'kill $s 2>/dev/null; exit 0' TERM; sleep 60 & s=$!; wait $s; kill -TERM $ip 2>/dev/null) \
        >/dev/null 2>&1 &
    local wd=$!
    wait $ip
    local rc=$?
    kill $wd 2>/dev/null
    wait $wd 2>/dev/null
    # exit
    if [ $rc = 0 ] && grep -q "^PASS $sname " $d/out; then res ok; else
        res "FAIL $name: exit $rc, expected 0 and PASS $sname: $(head -c 600 $d/out)"
    fi
    # trace
    local tr=$d/$sname.pcapng
    fields_of $tr >$d/trace.f
    if [ -s $tr ] && [ "$(count $d/trace.f '$9 == 1')" -ge 2 ]; then res ok; else
        res "FAIL $name: the trace $tr lacks the handshake"
    fi
    for x in "$@"; do
        case $x in
        segs=*)
            local got
            got=$(segs_of $d/trace.f $raw)
            [ "$got" = "${x#segs=}" ] && res ok ||
                res "FAIL $name segments: expected '${x#segs=}' vs actual '$got'"
            ;;
        esac
    done
    # wire
    local cap=$d/dut.pcapng
    fields_of $cap >$d/dut.f
    if [ "$(count $d/dut.f "\$9 == 1 && (\$2 == $port || \$3 == $port)")" -ge 1 ]; then res ok; else
        res "FAIL $name: the device's capture saw no handshake (the capture did not work; the rst check means nothing)"
    fi
    ours_of $d/trace.f $raw >$d/ours.trace
    ours_of $d/dut.f $raw >$d/ours.wire
    if [ -s $d/ours.trace ] && cmp -s $d/ours.trace $d/ours.wire; then res ok; else
        res "FAIL $name: our segments in the trace and on the device's side differ: $(diff $d/ours.trace $d/ours.wire | head -n 6 | tr '\n' ' ')"
    fi
    # rst: the scenarios end with our FIN; a RST from our address can only be the kernel's
    local nrst
    nrst=$(count $d/dut.f "\$1 == \"$raw\" && \$10 == 1")
    [ "$nrst" = 0 ] && res ok || res "FAIL $name: $nrst RST(s) from $raw on the wire (the injector's kernel answered?)"
    # clean
    local left
    left=$(leftover $ip)
    [ -z "$left" ] && res ok || res "FAIL $name: left after the run:$left"
    pgrep -f -- "mpa-peer -q --(listen|connect) [^ ]*:$port( |\$)" >/dev/null &&
        res "FAIL $name: the device is still running" || res ok
}

queue=()
nports=0
enqueue() {
    want "$1" || return 0
    nports=$((nports + 1))
    queue+=("$(printf '%q ' $((7100 + 10 * nports)) "$@")")
}

bytewise="$(seq 24 | awk '{ printf "%s%d:1", (NR > 1 ? " " : ""), $1 }') 25:3 28:7 35:42" # 24 octets one by one, then split [3, 10] of 52
reorder="1:20 921:124 621:300 321:300 21:300"
duplicate="1:20 21:300 21:300 321:300 321:300 621:300 621:300 921:124 921:124"
reseg="1:20 21:300 321:300 621:300 921:124 $(seq 21 100 921 | awk '{ printf "%s%d:100", (NR > 1 ? " " : ""), $1 }') 1021:24"
for fam in 4 6; do
    #       name                       scenario                                 mpa-peer options    mpa-inject options
    enqueue basic-$fam $fam            $sc/responder-basic.json                 ""                  "" segs="1:20 21:40"
    enqueue bytewise-$fam $fam         $sc/responder-bytewise.json              ""                  "" segs="$bytewise"
    enqueue bad-crc-$fam $fam          $sc/responder-bad-crc.json               ""                  ""
    enqueue bad-key-$fam $fam          $sc/responder-bad-key.json               ""                  ""
    enqueue bad-marker-$fam $fam       $sc/responder-bad-marker.json            "--markers 1"       ""
    enqueue enh-p2p-$fam $fam          $sc/responder-enhanced-p2p.json          "--enhanced"        ""
    enqueue enh-no-p2p-$fam $fam       $sc/responder-enhanced-no-p2p.json       "--enhanced"        ""
    enqueue silent-$fam $fam           $sc/responder-silent-peer.json           "--timeout-ms 300"  ""
    enqueue init-basic-$fam $fam       $sc/initiator-basic.json                 "--p2p"             ""
    enqueue init-write-$fam $fam       $sc/initiator-rtr-write-only.json        "--p2p"             ""
    enqueue active-active-$fam $fam    $sc/active-active.json                   ""                  ""
    enqueue reorder-$fam $fam          $rs/raw-reorder.json                     ""                  "--mss 300" segs="$reorder"
    enqueue duplicate-$fam $fam        $rs/raw-duplicate.json                   ""                  "--mss 300" segs="$duplicate"
    enqueue reseg-$fam $fam            $rs/raw-reseg.json                       ""                  "--mss 300" segs="$reseg"
done
# an example scenario added since: say so (the table above wants a line for it)
for f in $sc/*.json; do
    grep -qF "/$(basename $f) " "$0" || echo "raw-test: note: $f is not among the cases"
done

running=()
for q in "${queue[@]}"; do
    eval "set -- $q"
    (run_case "$@") &
    running+=($!)
    pids="$pids $!"
    if [ ${#running[@]} -ge $JOBS ]; then
        wait "${running[0]}"
        running=("${running[@]:1}")
    fi
done
for p in "${running[@]}"; do wait "$p"; done
pids=""
for q in "${queue[@]}"; do
    eval "set -- $q"
    shift
    r=$tmp/$1/result
    if [ ! -s $r ]; then ko "$1: no verdict (the case did not run to its end)"; continue; fi
    while read -r line; do
        case $line in ok) ok ;; *) ko "${line#FAIL }" ;; esac
    done <$r
done

# ---- cleanup on every exit path ---------------------------------------------------

# start_slow NAME PORT: mpa-inject on raw-slow.json (30 s of sleep) in the
# background; returns once the device runs and the startup is done.
start_slow() {
    local name=$1 port=$2
    echo $port >>$tmp/ports
    $inj -q --transport raw --no-trace --lab "$peer -q --listen {addr}:{port}" -t $port $rs/raw-slow.json \
        >$tmp/$name.out 2>&1 &
    slow=$!
    injpids="$injpids $slow"
    local i
    for i in $(seq 100); do
        pgrep -f -- "--listen 10.77.0.2:$port" >/dev/null && break
        sleep 0.05
    done
    sleep 0.5 # the Request and the Reply, then the sleep step
    [ -e /run/netns/mpainj${slow}d ] && pgrep -f -- "--listen 10.77.0.2:$port" >/dev/null
}

if want sigterm; then
    for sig in TERM INT HUP; do
        port=$((7600 + RANDOM % 100))
        if start_slow sig$sig $port; then ok; else ko "sig$sig: the run did not start: $(cat $tmp/sig$sig.out)"; fi
        t0=$(date +%s%N)
        kill -$sig $slow
        wait $slow
        rc=$?
        ms=$((($(date +%s%N) - t0) / 1000000))
        [ $rc = 2 ] && ok || ko "SIG$sig mid-run: exit $rc, expected 2: $(cat $tmp/sig$sig.out)"
        [ $ms -lt 5000 ] && ok || ko "SIG$sig mid-run: mpa-inject took $ms ms to exit"
        # atexit has removed the lab before mpa-inject exited
        left=$(leftover $slow)
        [ -z "$left" ] && ok || ko "SIG$sig mid-run: left:$left"
        pgrep -f -- "--listen 10.77.0.2:$port" >/dev/null && ko "SIG$sig mid-run: the device still runs" || ok
    done
fi

if want sigkill; then
    port=$((7700 + RANDOM % 100))
    if start_slow sigkill $port; then ok; else ko "sigkill: the run did not start: $(cat $tmp/sigkill.out)"; fi
    pgrep -P $slow -x mpa-inject-lab >/dev/null && ok || ko "sigkill: mpa-inject has no lab watcher"
    kill -KILL $slow
    wait $slow 2>/dev/null
    if gone_within $slow "--listen 10.77.0.2:$port"; then ok; else
        ko "SIGKILL mid-run: left after 5 s:$(leftover $slow) $(pgrep -fa -- "--listen 10.77.0.2:$port")"
    fi
fi

# SIGKILL of mpa-inject and of its watcher: the lab stays (the device runs
# on in it) until the next run's netns_lab_up, or the documented command.
kill_both() {
    local w
    w=$(pgrep -P $slow -x mpa-inject-lab)
    kill -KILL $slow $w
    wait $slow 2>/dev/null
    sleep 0.3
    [ -e /run/netns/mpainj${slow}i ] && [ -e /run/netns/mpainj${slow}d ] &&
        pgrep -f -- "--listen 10.77.0.2:$1" >/dev/null
}
if want stale; then
    port=$((7800 + RANDOM % 100))
    start_slow stale $port || ko "stale: the run did not start: $(cat $tmp/stale.out)"
    old=$slow
    if kill_both $port; then ok; else ko "stale: after SIGKILL of mpa-inject and its watcher the lab should be left"; fi
    # the next run (any lab) removes the stale one first
    echo $((port + 100)) >>$tmp/ports
    $inj -q --transport raw --no-trace --lab "$peer -q --listen {addr}:{port}" -t $((port + 100)) \
        $sc/responder-basic.json >$tmp/next.out 2>&1 &
    next=$!
    injpids="$injpids $next"
    wait $next
    rc=$?
    [ $rc = 0 ] && ok || ko "stale: the next run: exit $rc: $(cat $tmp/next.out)"
    [ -z "$(leftover $old)" ] && ok || ko "stale: the next run left the stale lab:$(leftover $old)"
    pgrep -f -- "--listen 10.77.0.2:$port" >/dev/null && ko "stale: the stale lab's device still runs" || ok
    [ -z "$(leftover $next)" ] && ok || ko "stale: the next run left:$(leftover $next)"
fi
if want documented; then
    port=$((7900 + RANDOM % 100))
    start_slow documented $port || ko "documented: the run did not start"
    if kill_both $port; then ok; else ko "documented: the lab should be left"; fi
    # docs/mpa-inject-raw.md's command, for this run's namespaces only (the
    # command as documented takes every mpainj namespace)
    cmd=$(grep -F 'for ns in $(ip netns list' docs/mpa-inject-raw.md | head -n 1 | sed 's/^ *//')
    [[ $cmd == *"mpainj[0-9]*"* ]] && ok || ko "documented: no cleanup command found in docs/mpa-inject-raw.md"
    cmd=${cmd//'mpainj[0-9]*'/mpainj$slow}
    bash -c "$cmd" >$tmp/doc.out 2>&1
    if gone_within $slow "--listen 10.77.0.2:$port"; then ok; else
        ko "documented: \`$cmd\` left:$(leftover $slow) $(cat $tmp/doc.out)"
    fi
fi

ms=$((($(date +%s%N) - t_start) / 1000000))
echo "raw-test: $pass passed, $fail failed ($((ms / 1000)).$((ms % 1000 / 100)) s)"
[ $fail = 0 ]

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mpa-peer against itself on the loopback interface, judged by mpa-audit.
#
# Each case runs a listening mpa-peer (port 0: the kernel picks a free
# port) and a connecting one while `mpa-audit -i lo -f "tcp port P and
# host A"` --json captures them.  Then:
#   ids      the rule ids mpa-audit reports (build/jsonids) are exactly the
#            expected set: none for two correct peers (MPA-CRC-DEFAULT when
#            both say C=0), the ids `mpa-peer --list-faults` documents for
#            a fault mode;
#   terms    the TERMINATEs in mpa-audit's "terminates", as sender:code;
#   fin      every direction ended with a FIN (nobody reset);
#   status   each correct peer's exit status and how it says the
#            connection ended (end=...);
#   extra    per case: no Reply was sent, no FPDU was sent, ...
# Also: --help and docs/mpa-peer.1 list the same options, the man page's
# fault table matches --list-faults, and usage errors exit 2.
#
# Every process runs under `timeout` and is killed and reaped on every
# exit path.  Cases run JOBS at a time.  Needs the capture privilege (root
# or CAP_NET_RAW); without it the script fails, unless
# MPA_LIVE_OPTIONAL=1 (then it says so and passes).
#
#   tests/inject/peer-test.sh [CASE-NAME-SUBSTRING]
set -u
export LC_ALL=C # sort as jsonids does (strcmp)
cd "$(dirname "$0")/../.." || exit 2
peer=build/mpa-peer
audit=build/mpa-audit
ids=build/jsonids
man=docs/mpa-peer.1
JOBS=${JOBS:-6}
only=${1:-}
t_start=$(date +%s%N)
tmp=$(mktemp -d)
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    for p in $pids; do wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "peer-test: $*"; }

for f in $peer $audit $ids; do
    [ -x $f ] || { echo "peer-test: $f missing (make build/mpa-peer build/mpa-audit build/jsonids)"; exit 2; }
done

# ---- static checks --------------------------------------------------------

# --help and the man page name the same long options.
help_opts=$($peer --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
man_opts=$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' $man | grep -o -- '\\-\\-[a-z][a-z0-9\\-]*' | sed 's/\\//g' | sort -u)
if [ "$help_opts" = "$man_opts" ]; then ok; else
    ko "--help and $man differ: $(diff <(echo "$help_opts") <(echo "$man_opts") | grep '^[<>]' | tr '\n' ' ')"
fi

# The man page's fault table (FAULTS) is what --list-faults says: name,
# ids as Initiator, ids as Responder.  Text blocks (T{ ... T}) are joined.
$peer --list-faults >$tmp/faults
sed -n '/^\.SH FAULTS/,/^\.SH OUTPUT/p' $man | sed -n '/^\.TS/,/^\.TE/p' | sed 's/\\-/-/g' | awk '
    inb { if ($0 ~ /^T\}/) { print pre cell substr($0, 3); inb = 0; next }
          if ($0 ~ /^\./) next
          cell = cell (cell == "" ? "" : " ") $0; next }
    /T\{$/ { pre = substr($0, 1, length($0) - 2); cell = ""; inb = 1; next }
    { print }' >$tmp/mantable
nf=0
while IFS=$'\t' read -r name roles idi idr what; do
    nf=$((nf + 1))
    row=$(grep -F -- "$name	" $tmp/mantable | head -n 1)
    want="$name	$idi	$idr"
    if [ "$row" = "$want" ]; then ok; else
        ko "fault $name: $man has '$row', --list-faults '$want'"
    fi
done <$tmp/faults
[ $nf = 49 ] && ok || ko "--list-faults lists $nf faults, expected 49"
nrows=$(grep -c '	' $tmp/mantable)
[ "$nrows" = 50 ] && ok || ko "$man's fault table has $((nrows - 1)) rows, expected 49"

# Usage errors: exit status 2 and a message.
usage() {
    $peer "$@" >$tmp/u.out 2>$tmp/u.err
    rc=$?
    if [ $rc = 2 ] && [ -s $tmp/u.err ]; then ok; else ko "mpa-peer $*: exit $rc, expected 2 with a message"; fi
}
usage
usage --listen 0 --connect 127.0.0.1:1
usage --listen 0 --fault term-7                 # an Initiator's fault on a Responder
usage --connect 127.0.0.1:1 --fault ignores-s   # a Responder's fault on an Initiator
usage --connect 127.0.0.1:1 --fault term-5      # needs --enhanced
usage --connect 127.0.0.1:1 --fault wrong-rtr-type --enhanced  # needs --p2p
usage --connect 127.0.0.1:1 --fault no-such-fault
usage --listen 0 --enhanced --rev 1
usage --listen 0 --ird 16384
usage --listen 0 --rtr send
usage --listen 0 --enhanced --rtr send,fax
usage --listen 0 --pd 123
usage --connect 127.0.0.1:1 --reject
usage --listen 0 --markers 2
usage --listen 0 --send 1                        # a Responder echoes
# A bad option: one line, and where the options are (not the whole help).
for bad in --bogus -z --listen; do
    $peer $bad >/dev/null 2>$tmp/u.err
    rc=$?
    if [ $rc = 2 ] && [ "$(wc -l <$tmp/u.err)" = 2 ] && grep -q "^mpa-peer: " $tmp/u.err &&
        grep -q -- "(mpa-peer --help for the options)" $tmp/u.err; then ok; else
        ko "mpa-peer $bad: exit $rc, stderr: $(head -c 300 $tmp/u.err)"; fi
done

# -q: nothing on stderr for a port that was given; "listening on" only
# when the port is chosen (PORT 0: the only way to learn it).  SIGTERM:
# the program ends at once (well under 0.5 s), idle or with a connection
# open, every time (a signal between two waits must not be lost).
qport=$((30000 + $$ % 2000))
sigterm_ms() { # PEER-ARGS...: start, (connect,) SIGTERM; prints "ms rc"
    $peer "$@" >/dev/null 2>>$tmp/q.err &
    local lp=$! i t0 rc
    for i in $(seq 100); do
        (exec 3<>/dev/tcp/127.0.0.1/$qport) 2>/dev/null && break
        sleep 0.02
    done
    [ "$open" = 1 ] && exec 3<>/dev/tcp/127.0.0.1/$qport
    sleep 0.05
    t0=$(date +%s%N)
    kill -TERM $lp
    for i in $(seq 300); do kill -0 $lp 2>/dev/null || break; sleep 0.01; done
    kill -KILL $lp 2>/dev/null # still there after 3 s: counted as such
    wait $lp
    rc=$?
    echo "$((($(date +%s%N) - t0) / 1000000)) $rc"
    [ "$open" = 1 ] && exec 3>&-
}
: >$tmp/q.err
slow=""
for open in 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1; do
    set -- $(sigterm_ms --listen 127.0.0.1:$qport -q --timeout-ms 20000)
    # (status 3: the probe connections that waited for the port failed;
    # 128 and up: it died of the signal instead of ending)
    [ "$1" -lt 500 ] && [ "$2" -lt 128 ] || slow="$slow ${1}ms/status $2"
done
[ -z "$slow" ] && ok || ko "SIGTERM: mpa-peer took or ended:$slow"
[ ! -s $tmp/q.err ] && ok || ko "mpa-peer -q --listen 127.0.0.1:$qport said: $(head -c 300 $tmp/q.err)"
# (the peer itself in the background, not under timeout: SIGTERM goes
# to it, and one that outlives it is killed here, not left behind)
$peer --listen 127.0.0.1:0 -q --count 1 >/dev/null 2>$tmp/q0.err &
q0=$!
for _ in $(seq 100); do grep -qs "listening on 127.0.0.1:" $tmp/q0.err && break; sleep 0.02; done
grep -q "^mpa-peer: listening on 127.0.0.1:[1-9][0-9]* as responder$" $tmp/q0.err && ok ||
    ko "mpa-peer -q --listen 127.0.0.1:0 did not say its port: $(head -c 300 $tmp/q0.err)"
kill -TERM $q0 2>/dev/null
for _ in $(seq 250); do kill -0 $q0 2>/dev/null || break; sleep 0.02; done
if kill -0 $q0 2>/dev/null; then
    kill -KILL $q0 2>/dev/null
    ko "mpa-peer -q --listen 127.0.0.1:0 still ran 5 s after SIGTERM"
else ok; fi
wait $q0 2>/dev/null

# ---- live cases ------------------------------------------------------------

if ! ip link show lo >/dev/null 2>&1 && [ ! -e /sys/class/net/lo ]; then
    echo "peer-test: no loopback interface"; exit 2
fi
# One capture first: is there the privilege?
timeout 5 $audit -i lo -f "tcp port 9" --json -o $tmp/probe.json 2>$tmp/probe.err &
probe=$!
for _ in $(seq 50); do grep -q "capturing on lo" $tmp/probe.err 2>/dev/null && break; kill -0 $probe 2>/dev/null || break; sleep 0.05; done
if ! grep -q "capturing on lo" $tmp/probe.err; then
    wait $probe 2>/dev/null
    if [ "${MPA_LIVE_OPTIONAL:-0}" = 1 ]; then
        echo "peer-test: live cases skipped, no capture privilege: $(head -n 1 $tmp/probe.err)"
        [ $fail = 0 ]; exit
    fi
    echo "peer-test: cannot capture on lo: $(cat $tmp/probe.err)"; exit 1
fi
kill -INT $probe; wait $probe 2>/dev/null

# The ids --list-faults documents for fault $1 in role $2 (initiator|responder).
doc_ids() {
    awk -F'\t' -v n="$1" -v r="$2" '$1 == n { print (r == "initiator" ? $3 : $4) }' $tmp/faults
}
sorted() { tr ' ' '\n' | grep -v '^-*$' | sort -u | tr '\n' ' ' | sed 's/ $//'; }

# The TERMINATEs of the capture: "from:code ..." or "-".
terms_of() {
    awk '/"terminates":/ { t = 1 } t && /"from":/ { gsub(/[",\t]/, ""); split($0, a, ":"); f = a[2] }
         t && /"code":/ { gsub(/[",\t]/, ""); split($0, a, ":"); out = out (out ? " " : "") f ":" a[2] }
         t && /^\t"closed"/ { t = 0 }
         END { print out ? out : "-" }' "$1"
}
# How the directions ended: "FIN FIN", ...
ends_of() { grep -o '"end":[^,]*' "$1" | sed 's/.*:[[:space:]]*//; s/"//g' | tr '\n' ' ' | sed 's/ $//'; }
# FPDUs per direction: "initiator:N responder:M" (roles as mpa-audit has them).
fpdus_of() {
    awk '/"role":/ { gsub(/[",\t]/, ""); split($0, a, ":"); r = a[2] }
         /"fpdus":/ { gsub(/[",\t]/, ""); split($0, a, ":"); out = out (out ? " " : "") r ":" a[2] }
         END { print out }' "$1"
}

# case NAME "LISTENER ARGS" "CONNECTOR ARGS" IDS TERMS RC_L RC_C END_L END_C [EXTRA...]
#   IDS     expected ids, space separated, "-" none
#   TERMS   expected TERMINATEs "sender:code ...", "-" none
#   RC_*, END_*   exit status and end= of the listener / connector ("*": not checked,
#           the side with the fault); END may be "a|b"
#   EXTRA   no-reply (the capture has no Reply), fpdus=PATTERN (fpdus_of, grep -E),
#           v6 (listen on [::1]), count=N (connections), conns=N (connections
#           mpa-audit reports, when not N: it reports only those that speak MPA)
run_case() {
    local name=$1 largs=$2 cargs=$3 want_ids=$4 want_terms=$5 rcl_want=$6 rcc_want=$7 endl_want=$8 endc_want=$9
    shift 9
    local d=$tmp/$name laddr=127.0.0.1 n=1 nconns="" x
    lp="" ap="" # globals of this case's subshell: the EXIT trap needs them
    mkdir -p $d
    for x in "$@"; do
        case $x in v6) laddr="[::1]" ;; count=*) n=${x#count=} ;; conns=*) nconns=${x#conns=} ;; esac
    done
    [ -n "$nconns" ] || nconns=$n
    res() { echo "$*" >>$d/result; }
    kill_case() {
        [ -n "${lp:-}" ] && kill "$lp" 2>/dev/null && wait "$lp" 2>/dev/null
        [ -n "${ap:-}" ] && kill "$ap" 2>/dev/null && wait "$ap" 2>/dev/null
    }
    trap kill_case EXIT
    trap 'exit 1' TERM INT
    # The file exists before the listener starts: the loop below may read
    # it before the background shell has opened it.
    : >$d/l.err
    timeout 20 $peer --listen $laddr:0 --count $n $largs >$d/l.out 2>$d/l.err &
    lp=$!
    local port="" i
    for i in $(seq 200); do
        port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\) as .*/\1/p' $d/l.err)
        [ -n "$port" ] && break
        kill -0 $lp 2>/dev/null || break
        sleep 0.02
    done
    [ -n "$port" ] || { res "FAIL $name: the listener did not start: $(cat $d/l.err)"; return; }
    # The address too: cases run side by side, and an IPv6 case's port may
    # have the same number as this IPv4 case's (a filter on the port alone
    # once captured both, two connections where one was expected).
    local host=127.0.0.1
    [ $laddr = "[::1]" ] && host=::1
    timeout 30 $audit -i lo -f "tcp port $port and host $host" --json --no-timing -o $d/a.json 2>$d/a.err &
    ap=$!
    for i in $(seq 200); do
        grep -q "capturing on lo" $d/a.err 2>/dev/null && break
        kill -0 $ap 2>/dev/null || break
        sleep 0.02
    done
    grep -q "capturing on lo" $d/a.err || { res "FAIL $name: the capture did not start: $(cat $d/a.err)"; return; }
    local caddr=127.0.0.1
    [ $laddr = "[::1]" ] && caddr="[::1]"
    timeout 20 $peer --connect $caddr:$port $cargs >$d/c.out 2>$d/c.err
    local rcc=$?
    wait $lp
    local rcl=$?
    lp=""
    sleep 0.4 # the capture delivers packets in blocks of up to 100 ms
    kill -INT $ap
    wait $ap
    ap=""
    # ids
    local got
    got=$($ids <$d/a.json 2>$d/ids.err) || { res "FAIL $name: jsonids: $(cat $d/ids.err)"; return; }
    [ "$got" = "$want_ids" ] && res ok || res "FAIL $name ids: expected '$want_ids' vs actual '$got'"
    got=$(terms_of $d/a.json)
    [ "$got" = "$want_terms" ] && res ok || res "FAIL $name terms: expected '$want_terms' vs actual '$got'"
    got=$(ends_of $d/a.json)
    local fins
    fins=$(for i in $(seq $((2 * nconns))); do printf 'FIN '; done | sed 's/ $//')
    [ "$got" = "$fins" ] && res ok || res "FAIL $name fin: expected '$fins' vs actual '$got'"
    local conns
    conns=$(grep -c '"initiator":' $d/a.json)
    [ "$conns" = "$nconns" ] && res ok || res "FAIL $name: $conns connections reported, expected $nconns"
    # exit statuses and end=
    if [ "$rcl_want" != "*" ]; then
        [ "$rcl" = "$rcl_want" ] && res ok || res "FAIL $name listener: exit $rcl, expected $rcl_want ($(cat $d/l.out))"
    fi
    if [ "$rcc_want" != "*" ]; then
        [ "$rcc" = "$rcc_want" ] && res ok || res "FAIL $name connector: exit $rcc, expected $rcc_want ($(cat $d/c.out))"
    fi
    local e
    if [ "$endl_want" != "*" ]; then
        e=$(grep -o 'end=[a-z-]*' $d/l.out | sed 's/end=//' | sort -u | tr '\n' ' ' | sed 's/ $//')
        echo "$e" | grep -Eqx "$endl_want" && res ok || res "FAIL $name listener: end=$e, expected $endl_want"
    fi
    if [ "$endc_want" != "*" ]; then
        e=$(grep -o 'end=[a-z-]*' $d/c.out | sed 's/end=//' | sort -u | tr '\n' ' ' | sed 's/ $//')
        echo "$e" | grep -Eqx "$endc_want" && res ok || res "FAIL $name connector: end=$e, expected $endc_want"
    fi
    for x in "$@"; do
        case $x in
        no-reply)
            grep -q '"reply":' $d/a.json && res "FAIL $name: a Reply was sent (the Responder must close without one)" || res ok ;;
        fpdus=*)
            got=$(fpdus_of $d/a.json)
            echo "$got" | grep -Eq "${x#fpdus=}" && res ok || res "FAIL $name fpdus: expected /${x#fpdus=}/ vs actual '$got'" ;;
        esac
    done
}

# Fault case: the faulty end's documented ids (plus those of the other
# end's fault, if it has one) are what mpa-audit must report.
# fcase NAME FAULT ROLE-OF-FAULTY "LISTENER ARGS" "CONNECTOR ARGS" TERMS RC_L RC_C END_L END_C [EXTRA...]
fcase() {
    local name=$1 fault=$2 role=$3 largs=$4 cargs=$5
    shift 5
    local want other
    want=$(doc_ids $fault $role)
    other=$(printf '%s %s' "$largs" "$cargs" | grep -o -- '--fault [a-z0-9-]*' | sed 's/--fault //' | grep -vx "$fault")
    if [ -n "$other" ]; then
        local orole=responder
        [ $role = responder ] && orole=initiator
        want="$want $(doc_ids $other $orole)"
    fi
    want=$(echo "$want" | sorted)
    [ -n "$want" ] || want=-
    enqueue "$name" "$largs" "$cargs" "$want" "$@"
}

queue=()
enqueue() {
    local name=$1
    if [ -n "$only" ] && [[ "$name" != *"$only"* ]]; then return; fi
    queue+=("$(printf '%q ' "$@")")
}
ccase() { enqueue "$@"; }

# -- two correct peers: no findings ----------------------------------------
#     name                "listener"                         "connector"                                  ids              terms  rcL rcC endL        endC
ccase plain               ""                                 "--send 2 --size 100"                        -                -      0 0 ok ok
ccase markers-01          "--markers 1"                      "--send 3 --size 1500"                       -                -      0 0 ok ok
ccase markers-10          ""                                 "--markers 1 --send 3 --size 1500"           -                -      0 0 ok ok
ccase markers-11          "--markers 1"                      "--markers 1 --send 3 --size 1500"           -                -      0 0 ok ok
ccase crc-00              "--crc 0"                          "--crc 0 --send 1"                           MPA-CRC-DEFAULT  -      0 0 ok ok
ccase crc-01              ""                                 "--crc 0 --send 1"                           -                -      0 0 ok ok
ccase crc-10              "--crc 0"                          "--send 1"                                   -                -      0 0 ok ok
ccase enh-client-server   "--enhanced"                       "--enhanced --send 2"                        -                -      0 0 ok ok
ccase enh-rtr-send        "--enhanced --markers 1"           "--p2p --rtr send --send 2 --size 700"       -                -      0 0 ok ok
ccase enh-rtr-write       "--enhanced"                       "--p2p --rtr write --markers 1 --send 2"     -                -      0 0 ok ok
ccase enh-rtr-read        "--enhanced --markers 1"           "--p2p --rtr read --markers 1 --send 2"      -                -      0 0 ok ok
ccase enh-rtr-read-ird0   "--enhanced --ird 0"               "--p2p --rtr read --ord 0 --send 1"          -                -      0 0 ok ok
ccase enh-3fff            "--enhanced --ird 4 --ord 4"       "--p2p --ird 0x3fff --ord 0x3fff --send 1"   -                -      0 0 ok ok
ccase enh-pd              "--enhanced --pd 00112233"         "--p2p --pd aabbccddeeff --send 1"           -                -      0 0 ok ok
ccase enh-rev1-request    "--enhanced"                       "--send 1"                                   -                -      0 0 ok ok
ccase reject              "--reject"                         "--send 1"                                   -                -      0 0 rejected rejected
ccase reject-enh          "--reject --enhanced"              "--p2p --send 1"                             -                -      0 0 rejected rejected
ccase reject-ird          "--enhanced --ird 2"               "--enhanced --ord 8 --send 1"                -                -      0 0 rejected rejected
ccase no-common-rtr       "--enhanced --rtr write"           "--p2p --rtr send --send 1"                  -                initiator:7 3 3 peer-terminated terminated
ccase s-unsupported       ""                                 "--enhanced --send 1"                        -                -      3 3 startup-failed peer-closed no-reply
ccase roles-swapped       "--role initiator --p2p --send 2"  "--role responder --enhanced"                -                -      0 0 ok ok
ccase ipv6                "--enhanced"                       "--p2p --markers 1 --send 2"                 -                -      0 0 ok ok v6
ccase bulk                "--markers 1 --enhanced"           "--markers 1 --p2p --send 20 --size 3000"    -                -      0 0 ok ok
ccase three-conns         "--enhanced"                       "--p2p --count 3 --concurrency 3 --send 1"   -                -      0 0 ok ok count=3
ccase init-init           "--role initiator"                 "--send 1"                                   MPA-STA-INIT-INIT -     1 1 startup-failed startup-failed
ccase resp-resp           "--timeout-ms 300"                 "--role responder --timeout-ms 300"          -                -      3 3 "timeout|peer-closed" "timeout|peer-closed" conns=0

# -- one fault, a correct other end ------------------------------------------
#     name                fault               faulty     "listener"                          "connector"                                        terms        rcL rcC endL endC
fcase bad-key-i           bad-key             initiator  ""                                  "--send 1 --fault bad-key"                         -            1 '*' bad-frame '*' no-reply
fcase bad-key-r           bad-key             responder  "--fault bad-key"                   "--send 1"                                         -            '*' 1 '*' bad-frame fpdus='initiator:0'
fcase wrong-rev-i         wrong-rev           initiator  ""                                  "--send 1 --fault wrong-rev"                       -            1 '*' bad-frame '*' no-reply
fcase wrong-rev-r         wrong-rev           responder  "--fault wrong-rev"                 "--send 1"                                         -            '*' 1 '*' bad-frame fpdus='initiator:0'
fcase pdlen-over-512-i    pdlen-over-512      initiator  ""                                  "--send 1 --fault pdlen-over-512"                  -            1 '*' bad-frame '*' no-reply
fcase pdlen-over-512-r    pdlen-over-512      responder  "--fault pdlen-over-512"            "--send 1"                                         -            '*' 1 '*' bad-frame fpdus='initiator:0'
fcase pdlen-lie-i         pdlen-lie           initiator  ""                                  "--send 1 --fault pdlen-lie"                       -            1 '*' bad-frame '*' no-reply
fcase pdlen-lie-r         pdlen-lie           responder  "--fault pdlen-lie"                 "--send 1"                                         -            '*' 1 '*' bad-frame
fcase ignores-s           ignores-s           responder  "--enhanced --fault ignores-s"      "--enhanced --send 1"                              initiator:5  '*' 1 '*' terminated
fcase a-not-echoed        a-not-echoed        responder  "--enhanced --fault a-not-echoed"   "--p2p --send 1"                                   initiator:7  '*' 1 '*' terminated
fcase bcd-without-a-i     bcd-without-a       initiator  "--enhanced"                        "--enhanced --send 1 --fault bcd-without-a"        -            1 '*' ok '*'
fcase bcd-without-a-r     bcd-without-a       responder  "--enhanced --fault bcd-without-a"  "--enhanced --send 1"                              -            '*' 1 '*' ok
fcase ord-gt-peer-ird     ord-gt-peer-ird     responder  "--enhanced --fault ord-gt-peer-ird" "--enhanced --send 1"                             initiator:6  '*' 1 '*' terminated
fcase no-rtr-option-i     no-rtr-option       initiator  "--enhanced"                        "--p2p --send 1 --fault no-rtr-option"             -            1 '*' ok '*'
fcase no-rtr-option-r     no-rtr-option       responder  "--enhanced --fault no-rtr-option"  "--p2p --send 1"                                   initiator:7  '*' 1 '*' terminated
fcase wrong-rtr-type      wrong-rtr-type      initiator  "--enhanced --rtr send"             "--p2p --send 1 --fault wrong-rtr-type"            responder:7  1 '*' terminated '*'
fcase fpdu-before-rtr     fpdu-before-rtr     initiator  "--enhanced"                        "--p2p --send 1 --fault fpdu-before-rtr"           responder:5  1 '*' terminated '*'
fcase responder-fpdu-first responder-fpdu-first responder "--fault responder-fpdu-first"     "--send 1"                                         initiator:7  '*' 1 '*' terminated
fcase bad-crc-i           bad-crc             initiator  ""                                  "--send 1 --fault bad-crc"                         responder:2  1 '*' terminated '*'
fcase bad-crc-r           bad-crc             responder  "--fault bad-crc"                   "--send 1"                                         initiator:2  '*' 1 '*' terminated
fcase bad-marker-i        bad-marker          initiator  "--markers 1"                       "--send 2 --size 1000 --fault bad-marker"          responder:3  1 '*' terminated '*'
fcase bad-marker-r        bad-marker          responder  "--fault bad-marker"                "--markers 1 --send 2 --size 1000"                 initiator:3  '*' 1 '*' terminated
fcase no-reply            no-reply            responder  "--fault no-reply"                  "--send 1 --timeout-ms 300"                        -            '*' 3 '*' timeout
fcase never-close-r       never-close-on-bad-frame responder "--fault never-close-on-bad-frame" "--send 1 --fault wrong-rev"                    -            '*' '*' '*' '*'
fcase never-close-i       never-close-on-bad-frame initiator "--fault wrong-rev"             "--send 1 --fault never-close-on-bad-frame"        -            '*' '*' '*' '*' fpdus='initiator:[1-9]'
fcase term-5-i            term-5              initiator  "--enhanced"                        "--enhanced --send 1 --fault term-5"               initiator:5  3 '*' peer-terminated '*'
fcase term-5-r            term-5              responder  "--enhanced --fault term-5"         "--enhanced --send 1"                              responder:5  '*' 3 '*' peer-terminated
fcase term-6              term-6              initiator  "--enhanced"                        "--enhanced --send 1 --fault term-6"               initiator:6  3 '*' peer-terminated '*'
fcase term-7              term-7              initiator  "--enhanced"                        "--p2p --send 1 --fault term-7"                    initiator:7  1 '*' peer-terminated '*'
fcase msn-per-segment-i   msn-per-segment     initiator  ""                                  "--send 1 --size 100000 --fault msn-per-segment"   responder:2  1 '*' terminated '*'
fcase msn-per-segment-r   msn-per-segment     responder  "--fault msn-per-segment"           "--send 1 --size 100000"                           initiator:2  '*' 1 '*' terminated

# Run the queue JOBS at a time; each case leaves its verdicts in its result file.
running=()
for q in "${queue[@]}"; do
    eval "set -- $q"
    ( run_case "$@" ) &
    running+=($!)
    pids="$pids $!"
    if [ ${#running[@]} -ge $JOBS ]; then
        wait "${running[0]}"
        running=("${running[@]:1}")
    fi
done
for p in "${running[@]}"; do wait "$p"; done
pids=""
ncases=0
for r in $tmp/*/result; do
    [ -e "$r" ] || continue
    ncases=$((ncases + 1))
    while read -r line; do
        case $line in ok) ok ;; *) ko "${line#FAIL }" ;; esac
    done <"$r"
done
for q in "${queue[@]}"; do
    eval "set -- $q"
    [ -s $tmp/$1/result ] || ko "$1: no verdict (the case did not run to its end)"
done
ms=$((($(date +%s%N) - t_start) / 1000000))
echo "peer-test: $pass passed, $fail failed ($ncases live cases, $((ms / 1000)).$((ms % 1000 / 100)) s)"
[ $fail = 0 ]

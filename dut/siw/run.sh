#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make dut-siw: the conformance suite against Linux soft-iWARP (siw) in a
# QEMU guest.  See docs/dut/linux-siw.md.
#
#   dut/siw/run.sh [-o DIR] [-b default|p2p|both] [-r responder|initiator|both]
#                  [-t GLOB]... [--app echo|rping] [--check FILE] [--update FILE]
#                  [--report FILE] [--captures DIR] [--kernel RELEASE] [--ipv6]
#
# --ipv6 runs the tests over IPv6 (the tap's link: fd78::1 here, fd78::2
# in the guest) instead of IPv4 (10.78.0.1, 10.78.0.2).
# --kernel picks the guest's kernel by Debian release: bookworm (the
# default, Linux 6.1), trixie (6.12) or sid (the newest Debian has); see
# dut/siw/build-guest.sh.  The guest for bookworm is build/dut-siw/guest,
# the others build/dut-siw/guest-RELEASE.
#
# For each siw build (default; p2p = peer_to_peer and mpa_crc_required on)
# and each role, a fresh guest is booted (QEMU, software emulation) behind
# a tap device in a network namespace made here, and mpa-conform runs:
#   Responder: siw-echo in the guest (--app echo, the default: it sends
#              back every Send, as the Responder tests assume), or
#              `rping -s -P` (--app rping); mpa-conform connects;
#   Initiator: mpa-conform listens, and for each test the guest runs one
#              `rping -c` towards it (--spawn dut/siw/guestctl ... connect).
# Every test is first marked in the guest's kernel log (--before ... mark);
# when the guest's kernel has a BUG, the test that caused it is recorded,
# a new guest is booted and the run goes on from the next test.
# dumpcap records the tap: DIR/BUILD-ROLE.pcapng.
# Output: DIR/BUILD-ROLE/partN/ (mpa-conform reports), DIR/verdicts.tsv
# (test, build, role, class, verdict[, kernel-bug]), DIR/console-*.log.
# --check FILE compares verdicts.tsv with FILE and exits 1 naming every
# test whose verdict changed; --update FILE writes it.  --report FILE
# writes every verdict, deviation and kernel BUG as Markdown
# (build/siw-report); --captures DIR copies the tap captures there as
# siw-BUILD-ROLE.pcapng (the reference captures, captures/siw/).
# Everything started here (QEMU, dumpcap, the namespace and its tap) is
# stopped on every exit path, including a SIGKILL of this script (a
# watcher process).
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$top/build/dut-siw/run
builds="default p2p"
roles="responder initiator"
globs=()
check=""
update=""
report=""
capdir=""
app=echo
kernel=bookworm
ipv6=0
while [ $# -gt 0 ]; do
    case $1 in
    -o) out=$2; shift 2 ;;
    -b) builds=$2; [ "$2" = both ] && builds="default p2p"; shift 2 ;;
    -r) roles=$2; [ "$2" = both ] && roles="responder initiator"; shift 2 ;;
    -t) globs+=(-t "$2"); shift 2 ;;
    --app) app=$2; shift 2
        case $app in echo|rping) ;; *) echo "dut-siw: --app takes echo or rping, not $app" >&2; exit 2 ;; esac ;;
    --check) check=$2; shift 2 ;;
    --update) update=$2; shift 2 ;;
    --report) report=$2; shift 2 ;;
    --captures) capdir=$2; shift 2 ;;
    --ipv6) ipv6=1; shift ;;
    --kernel) kernel=$2; shift 2
        case $kernel in bookworm|trixie|sid) ;; *) echo "dut-siw: --kernel takes bookworm, trixie or sid, not $kernel" >&2; exit 2 ;; esac ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "dut-siw: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
if [ -n "$check" ] && [ -f "$check" ]; then
    # verdicts recorded with one Responder application say nothing of another
    recapp=$(sed -n 's/^# siw verdicts: .*; Responder application: \([a-z]*\);.*/\1/p' "$check")
    [ "${recapp:-rping}" = "$app" ] || [ "$roles" = initiator ] ||
        { echo "dut-siw: $check was recorded with the Responder application ${recapp:-rping}; this run would use $app (--app)" >&2; exit 2; }
fi
[ "$(id -u)" = 0 ] || { echo "dut-siw: needs root (network namespace, tap device)" >&2; exit 2; }
for p in qemu-system-x86_64 dumpcap mergecap ip; do
    command -v $p >/dev/null || { echo "dut-siw: $p not found (run scripts/deps.sh)" >&2; exit 2; }
done
conform=$top/build/mpa-conform
[ -x "$conform" ] || { echo "dut-siw: $conform missing (make build/mpa-conform)" >&2; exit 2; }

guest=$top/build/dut-siw/guest
[ "$kernel" = bookworm ] || guest=$guest-$kernel
"$here/build-guest.sh" "$guest" "$kernel"
read -r kabi kver _ < "$guest/kernel-version"
mkdir -p "$out"
# which siw.ko the run loads (the report names them): siw has no module
# version, so its source (drivers/infiniband/sw/siw of the kernel's
# linux-source, before the p2p build's change) is named by its sha256
srcsum=$(cat "$guest"/siw-src/*.[ch] | sha256sum | cut -c1-16)
for b in default p2p; do
    printf '%s\t%s\t%s\n' "$b" "$srcsum" \
        "$(/sbin/modinfo -F vermagic "$guest/siw-$b/siw.ko" | sed 's/ *$//')"
done > "$out/siw-module.tsv"

mkdir -p "$out"
out=$(cd "$out" && pwd)
ns=mpasiw$$
host_addr=10.78.0.1
guest_addr=10.78.0.2
plen=24
if [ $ipv6 = 1 ]; then
    host_addr=fd78::1
    guest_addr=fd78::2
    plen=64
fi
# HOST:PORT as mpa-conform reads it ([V6]:PORT)
hostport() { case $1 in *:*) echo "[$1]:$2" ;; *) echo "$1:$2" ;; esac; }
rport=7174

# Namespaces left by a run that was killed before its watcher could act.
for old in $(ip netns list 2>/dev/null | awk '/^mpasiw[0-9]+/ { print $1 }'); do
    kill -0 "${old#mpasiw}" 2>/dev/null || ip netns delete "$old" 2>/dev/null || true
done

qpid=""
cappid=""
readpid=""
stop_guest() {
    if [ -n "$qpid" ]; then
        kill "$qpid" 2>/dev/null || true
        for _ in $(seq 20); do kill -0 "$qpid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$qpid" 2>/dev/null || true
        wait "$qpid" 2>/dev/null || true
        qpid=""
    fi
    if [ -n "$cappid" ]; then
        kill "$cappid" 2>/dev/null || true
        wait "$cappid" 2>/dev/null || true
        cappid=""
    fi
    if [ -n "$readpid" ]; then
        kill "$readpid" 2>/dev/null || true
        readpid=""
    fi
}
cleanup() {
    stop_guest
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
    ip netns delete "$ns" 2>/dev/null || true
    [ -n "${watcher:-}" ] && kill "$watcher" 2>/dev/null || true
}
trap cleanup EXIT
trap 'echo "dut-siw: interrupted" >&2; exit 2' INT TERM HUP

ip netns add "$ns"
# The watcher: when this script dies (even by SIGKILL), whatever runs in
# the namespace is killed and the namespace goes.
setsid bash -c "while kill -0 $$ 2>/dev/null; do sleep 1; done
    ip netns pids $ns 2>/dev/null | xargs -r kill -9 2>/dev/null
    ip netns delete $ns 2>/dev/null" </dev/null >/dev/null 2>&1 &
watcher=$!
nsx() { ip netns exec "$ns" "$@"; }
nsx ip link set lo up
nsx ip tuntap add dev tap0 mode tap
[ $ipv6 = 1 ] && nsx sysctl -q -w net.ipv6.conf.tap0.accept_dad=0
nsx ip addr add "$host_addr/$plen" dev tap0
nsx ip link set tap0 up

ctl=$out/ctl
mkdir -p "$ctl"
gc() { "$here/guestctl" "$ctl" "$@" & wait $!; }

# boot NAME CAPTURE: a fresh guest with siw build NAME loaded
boot() {
    stop_guest
    rm -f "$ctl/ctl.in" "$ctl/ctl.out" "$ctl/ctl.log" "$ctl/last-test"
    mkfifo "$ctl/ctl.in" "$ctl/ctl.out"
    : > "$ctl/ctl.log"
    cat "$ctl/ctl.out" >> "$ctl/ctl.log" &
    readpid=$!
    if [ -n "$2" ]; then
        ip netns exec "$ns" dumpcap -q -i tap0 -f "tcp" -w "$2" >/dev/null 2>&1 &
        cappid=$!
    fi
    local console=$out/console-$3.log
    ip netns exec "$ns" qemu-system-x86_64 -m 256 -smp 1 -nographic -no-reboot -display none -monitor none \
        -kernel "$guest/vmlinuz" -initrd "$guest/initrd.cpio.gz" \
        -append "console=ttyS0 panic=-1 mpa.addr=$guest_addr/$plen" \
        -netdev tap,id=n0,ifname=tap0,script=no,downscript=no -device virtio-net-pci,netdev=n0,romfile= \
        -serial "file:$console" -chardev "pipe,id=ctl,path=$ctl/ctl" -serial chardev:ctl \
        </dev/null >"$out/qemu.log" 2>&1 &
    qpid=$!
    local t0=$SECONDS
    wc -l < "$ctl/ctl.log" > "$ctl/ctl.mark"
    gc wait '^ready' 120 >/dev/null || { echo "dut-siw: the guest did not boot within 120 s; its console: $console" >&2; tail -20 "$console" >&2; exit 2; }
    if [ "$1" != default ]; then
        gc send load "$1"
        [[ $(gc wait "^(loaded|failed load) $1" 30) == loaded* ]] ||
            { echo "dut-siw: the guest could not load siw build $1; see $console" >&2; exit 2; }
    fi
    echo "dut-siw: guest up in $((SECONDS - t0)) s (Linux $kabi, siw $1)"
}

# The warm-up: under software emulation a fresh guest runs its first
# connections cold (QEMU translates the kernel's code on first use), and
# that widens a race in siw's accept: an FPDU that arrives right after the
# Reply can be left unread (docs/dut/linux-siw.md, MPA-STA-RESP-FULL-OP).
# Without a warm-up the first tests after each boot hit it far more often
# than the rest, and a recheck (which boots a new guest for a few tests)
# would mostly measure the cold guest.  These tests run twice after each
# boot, marked "warmup:TEST" in the kernel log; their verdicts are kept
# in DIR/warmupN-M/ and not counted.  None of
# them has ever caused a kernel BUG (dut/siw/verdicts.tsv).
warmup_responder="startup.frame.reply-format fpdu.rdmap.opcode-undefined fpdu.crc.bad-crc"
warmup_initiator="startup.frame.request-format fpdu.crc.reply-c0 fpdu.markers.reply-m0"

caps_for() { # BUILD ROLE
    case $1-$2 in
    *-responder) echo enhanced,p2p ;;   # siw answers RTR offers whatever its build
    default-initiator) echo enhanced,client-server ;; # Rev 2, A=0
    p2p-initiator) echo enhanced,p2p ;;
    esac
}

# run_set BUILD ROLE RUNDIR TEST-FILE...: the tests against siw build
# BUILD in ROLE, on fresh guests (a new one after each kernel BUG or
# hang); reports in RUNDIR/partN/, the tap's capture in RUNDIR.pcapng.
run_set() {
    local b=$1 r=$2 run=$3 part rc unreachable args bug culprit from after i seen hung n id w wl wtests
    shift 3
    local todo=("$@") rest
    rm -rf "$run" "$run.pcapng"
    mkdir -p "$run"
    part=0
    unreachable=0
    : > "$run/kernel-bugs.tsv"
    : > "$ctl/rping.log"
    while [ ${#todo[@]} -gt 0 ] && [ $part -lt 20 ]; do
        part=$((part + 1))
        boot "$b" "$run/part$part.pcapng" "$b-$r-$part"
        args=(-r "$r" --caps "$(caps_for "$b" "$r")" -q)
        if [ "$r" = responder ]; then
            gc send server "$rport" "$app"
            gc wait "^serving" 10 >/dev/null
            sleep 1
            args+=(-d "$(hostport "$guest_addr" "$rport")")
        else
            args+=(-l "$(hostport "$host_addr" 0)" --spawn "$here/guestctl $ctl connect {peer} {port}")
        fi
        wtests=()
        [ "$r" = responder ] && wl=$warmup_responder || wl=$warmup_initiator
        for id in $wl; do
            w=$("$conform" --list -t "$id" 2>/dev/null | awk -v r="$r" '$3 == r { print $NF }') || w=""
            [ -n "$w" ] || { echo "dut-siw: the warm-up test $id is not in the suite (as $r): update warmup_$r in $0" >&2; exit 2; }
            wtests+=("$w")
        done
        for w in 1 2; do
            set +e
            nsx timeout 120 "$conform" "${args[@]}" --before "$here/guestctl $ctl mark warmup:{test}" -o "$run/warmup$part-$w" "${wtests[@]}" > "$run/warmup$part-$w.txt" 2>&1 &
            wait $!
            rc=$?
            set -e
            # 3: mpa-conform found the guest unreachable; the warm-up
            # is there to absorb a guest that is slow to start
            [ $rc -le 3 ] || { echo "dut-siw: the warm-up ended with status $rc; see $run/warmup$part-$w.txt" >&2; exit 2; }
        done
        echo "dut-siw: siw $b as $r, part $part: ${#todo[@]} tests"
        set +e
        # in the background, so that a signal to this script is acted on at once
        nsx timeout 900 "$conform" "${args[@]}" --before "$here/guestctl $ctl mark {test}" \
            --after "$here/guestctl $ctl health {test}" -o "$run/part$part" "${todo[@]}" > "$run/part$part.txt" 2>&1 &
        wait $!
        rc=$?
        set -e
        tail -2 "$run/part$part.txt" | head -1
        if [ $rc = 3 ]; then
            # the guest did not answer mpa-conform's first test: a new
            # guest, the same tests; twice in a row is the end
            unreachable=$((unreachable + 1))
            [ $unreachable -lt 2 ] || { echo "dut-siw: siw $b as $r did not answer on two fresh guests; see $run/part$part.txt" >&2; exit 2; }
            echo "dut-siw: the guest did not answer the first test: booting a new one"
            continue
        fi
        unreachable=0
        [ $rc -le 2 ] || { echo "dut-siw: mpa-conform ended with status $rc; see $run/part$part.txt" >&2; exit 2; }
        # a kernel BUG: the test marked before it caused it
        gc send dmesg || true
        gc wait '^dmesg end' 30 >/dev/null || true
        cp "$ctl/ctl.log" "$run/part$part.klog"
        bug=$(grep '^klog ' "$ctl/ctl.log" | grep -m1 -E 'kernel BUG|Oops|general protection|BUG:|WARNING: CPU' | sed 's/^klog \[[^]]*\] *//' || true)
        from=""
        if [ -n "$bug" ]; then
            culprit=$(grep '^klog ' "$ctl/ctl.log" | sed -n 's/^klog .*mpa-conform: test \(.*\)$/\1/p; /kernel BUG\|Oops\|general protection\|BUG:\|WARNING: CPU/q' | tail -1 || true)
            [ -n "$culprit" ] || { echo "dut-siw: cannot tell which test caused the kernel BUG '$bug'" >&2; exit 2; }
            # the warm-up's tests are marked "warmup:TEST"
            if [ "${culprit#warmup:}" != "$culprit" ]; then
                echo "dut-siw: the warm-up test ${culprit#warmup:} caused a kernel BUG ('$bug'); warm-up tests must not (see $run/part$part.klog)" >&2
                exit 2
            fi
            echo "dut-siw: the guest's kernel: '$bug' during $culprit"
            printf '%s\t%s\n' "$culprit" "$bug" >> "$run/kernel-bugs.tsv"
            after=1 from=$culprit
        else
            # no BUG, but the guest stopped answering (hung): go on from
            # the first test that found it so, on a new guest
            from=$(awk '/^ERROR / { id = $3 } /^      --(before|after) command exited .*(did not answer|control line is not open)/ { print id; exit }' "$run/part$part.txt")
            [ -n "$from" ] || { todo=(); break; }
            after=0
            echo "dut-siw: the guest stopped answering before $from: booting a new one"
        fi
        # go on after the culprit (or from the first test the hang cut
        # short), in the order the tests ran (the report's): the tests that
        # ran after it are run again, and so are those a hung guest cut
        # short before it
        declare -A file_of=()
        while read -r id f; do file_of[$id]=$f; done < <("$conform" --list "${globs[@]}" | awk -v r="$r" '$3 == r { print $1, $NF }')
        hung=" $(awk '/^ERROR / { id = $3 } /^      --(before|after) command exited .*(did not answer|control line is not open)/ { print id }' "$run/part$part.txt" | tr '\n' ' ')"
        n=$("$top/build/jget" "$run/part$part/report.json" tests.#) || { echo "dut-siw: no report from part $part" >&2; exit 2; }
        rest=()
        seen=0
        for ((i = 0; i < n; i++)); do
            id=$("$top/build/jget" "$run/part$part/report.json" "tests.$i.id")
            [ $after = 0 ] && [ "$id" = "$from" ] && seen=1
            if { [ $seen = 1 ] || [[ $hung == *" $id "* ]]; } && [ "$("$top/build/jget" "$run/part$part/report.json" "tests.$i.verdict")" != skip ]; then
                rest+=("${file_of[$id]}")
            fi
            [ $after = 1 ] && [ "$id" = "$from" ] && seen=1
        done
        [ $seen = 1 ] || { echo "dut-siw: test $from is not in the report of part $part" >&2; exit 2; }
        todo=("${rest[@]}")
    done
    cp "$ctl/rping.log" "$run/rping.log"
    stop_guest
    # the tap's capture of every part, in one file
    if [ $part = 1 ]; then
        cp "$run/part1.pcapng" "$run.pcapng"
    else
        mergecap -w "$run.pcapng" "$run"/part*.pcapng
    fi
}

verdicts=$out/verdicts.tsv
: > "$verdicts.new"
for b in $builds; do
    for r in $roles; do
        # the tests of this role, as files
        mapfile -t all < <("$conform" --list "${globs[@]}" | awk -v r="$r" '$3 == r { print $NF }')
        run_set "$b" "$r" "$out/$b-$r" "${all[@]}"
        "$here/verdicts.sh" "$out/$b-$r" "$b" "$r" >> "$verdicts.new"
    done
done
stop_guest
sort -k1,1 -k2,2 -k3,3 "$verdicts.new" > "$verdicts"
rm -f "$verdicts.new"
echo "dut-siw: verdicts in $verdicts; reports in $out/*/part*/; traces $out/*.pcapng"
if [ -n "$update" ]; then
    { echo "# siw verdicts: Linux $kabi ($kver); Responder application: $app; written by dut/siw/run.sh --update"
      cat "$verdicts"; } > "$update"
    echo "dut-siw: recorded in $update"
fi
if [ -n "$report" ]; then
    "$top/build/siw-report" "$out" "Linux $kabi ($kver)" > "$report.new" && mv "$report.new" "$report" ||
        { rm -f "$report.new"; echo "dut-siw: siw-report failed" >&2; exit 2; }
    echo "dut-siw: report in $report"
fi
if [ -n "$capdir" ]; then
    mkdir -p "$capdir"
    for b in $builds; do
        for r in $roles; do
            cp "$out/$b-$r.pcapng" "$capdir/siw-$b-$r.pcapng"
        done
    done
    echo "dut-siw: captures copied to $capdir (run dut/siw/siw-golden.sh --update)"
fi
if [ -n "$check" ]; then
    # A run of some tests (-t, -b, -r) is compared with their records
    # only: the record's header and its lines for the tests this run ran.
    if [ ${#globs[@]} -gt 0 ] || [ "$builds" != "default p2p" ] || [ "$roles" != "responder initiator" ]; then
        awk -F'\t' 'NR == FNR { ran[$1 "\t" $2 "\t" $3] = 1; next }
                    /^#/ || ($1 "\t" $2 "\t" $3) in ran' "$verdicts" "$check" > "$out/recorded-subset.tsv"
        check=$out/recorded-subset.tsv
    fi
    set +e
    "$here/compare.sh" "$check" "$verdicts" "Linux $kabi ($kver)" > "$out/compare.txt"
    rc=$?
    set -e
    cat "$out/compare.txt"
    [ $rc = 1 ] || exit $rc
    # A changed verdict counts when it comes again, every time: siw's
    # outcome in some tests depends on timing (a race in its accept, the
    # emulated guest's speed), so the tests that differ run once more, each
    # build and role on a fresh (warmed-up) guest, and those that still
    # differ again, up to $rechecks times.  A test agrees when any of its
    # runs agrees; it is a change when all 1 + $rechecks differ from the
    # record.  Three rechecks: with two, a clean-clone CI run needed the
    # last one in most runs (docs/dut/linux-siw.md, section 9).
    cp "$verdicts" "$out/verdicts-first.tsv"
    rechecks=${SIW_RECHECKS:-3}
    for round in $(seq 1 "$rechecks"); do
        echo "dut-siw: running the tests whose verdict changed once more (recheck $round of $rechecks)"
        awk '$4 == "recorded" && ($3 == "responder" || $3 == "initiator") { print $1, $2, $3 }' "$out/compare.txt" > "$out/recheck$round.list"
        while read -r b r; do
            mapfile -t ids < <(awk -v b="$b" -v r="$r" '$2 == b && $3 == r { print $1 }' "$out/recheck$round.list")
            files=()
            for id in "${ids[@]}"; do
                files+=("$("$conform" --list -t "$id" | awk -v r="$r" '$3 == r { print $NF }')")
            done
            run_set "$b" "$r" "$out/recheck$round-$b-$r" "${files[@]}"
            "$here/verdicts.sh" "$out/recheck$round-$b-$r" "$b" "$r" > "$out/recheck$round-$b-$r.tsv"
            # the rechecked lines replace the earlier run's
            awk -F'\t' 'NR == FNR { k[$1 FS $2 FS $3] = $0; next }
                ($1 FS $2 FS $3) in k { print k[$1 FS $2 FS $3]; next } { print }' \
                "$out/recheck$round-$b-$r.tsv" "$verdicts" > "$verdicts.new"
            mv "$verdicts.new" "$verdicts"
        done < <(awk '{ print $2, $3 }' "$out/recheck$round.list" | sort -u)
        stop_guest
        set +e
        "$here/compare.sh" "$check" "$verdicts" "Linux $kabi ($kver)" > "$out/compare.txt"
        rc=$?
        set -e
        cat "$out/compare.txt"
        [ $rc = 1 ] || break
    done
    [ $rc = 0 ] || {
        echo "dut-siw: the first run's verdicts: $out/verdicts-first.tsv; the rechecks' reports: $out/recheck[1-9]-*/" >&2
        exit $rc
    }
    echo "dut-siw: every changed verdict was as recorded on a recheck (first run: $out/verdicts-first.tsv)"
fi

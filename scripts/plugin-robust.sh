#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Robustness of the Wireshark plugin in the real tshark: mutated copies of
# the reference captures must never crash tshark, hang it, or make our
# dissector throw ("Malformed Packet" naming iWARP-MPA/DDP/RDMAP) or trip
# an assertion ("Dissector bug").
#   scripts/plugin-robust.sh [--batches N]   make test: N batches (default 8)
#   scripts/plugin-robust.sh --seconds S     make plugin-fuzz: new batches until S seconds are up
# A batch is every capture of captures/ (the ones tshark can read) in one
# file, mutated together, deterministically, by its seed:
#  - editcap --seed SEED -E PROB: each octet, past an offset, is changed
#    with probability PROB (bit flips, random octets, "%s", a run of 0xAA);
#  - in some batches ~2% of the frames are deleted (holes, half
#    connections), in some every frame is cut to a snap length.
# tshark runs three times on each batch, with a different way in each
# time (no preference, -o iwmpa.ports:..., or Decode As):
#  1. -P -V                     one pass, full tree and columns
#  2. -T fields -e iwmpa.finding -e _ws.malformed   one pass, pruned tree, no columns
#  3. -2 -P -V                  two passes: the second draws visited frames
# A failing batch is kept, then cut down to the smallest run of frames that
# still fails; both are kept under build/plugin-robust/fail/ and printed,
# with the command that shows the failure.  Once the bug is fixed, copy the
# small one into dissector/tests/regress/ (its tshark options, if any, into
# NAME.opts): every run replays those first, in the three modes.
#   PLUGIN_FUZZ_SEED   first seed (default: 1 for --batches, the time for --seconds)
#   PLUGIN_TIMEOUT     seconds one tshark run may take (default 60; a batch takes about 1 s;
#                      while a hang is cut down, 20 s)
set -u
cd "$(dirname "$0")/.." || exit 2
ts=scripts/tshark-iwmpa
TSHARK_IWMPA_PLUGDIR=$($ts --plugdir) || exit 2
export TSHARK_IWMPA_PLUGDIR
out=build/plugin-robust
batches=8
seconds=0
case ${1:-} in
--batches) batches=$2 ;;
--seconds) seconds=$2; batches=0 ;;
"") ;;
*) echo "usage: $0 [--batches N | --seconds S]" >&2; exit 2 ;;
esac
if [ "$seconds" -gt 0 ]; then seed0=${PLUGIN_FUZZ_SEED:-$(date +%s)}; else seed0=${PLUGIN_FUZZ_SEED:-1}; fi
limit=${PLUGIN_TIMEOUT:-60}
for x in "$ts" build/dissector/iwmpa.so; do
    [ -e "$x" ] || { echo "plugin-robust: $x missing (make plugin)"; exit 2; }
done
for x in tshark editcap mergecap capinfos timeout; do
    command -v $x >/dev/null 2>&1 || { echo "plugin-robust: $x missing (scripts/deps.sh)"; exit 2; }
done
mkdir -p "$out/fail"
# The work directory must be readable by the user tshark runs as (-2
# needs a file it can seek in, so not standard input).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
chmod 755 "$work"
export TZ=UTC LC_ALL=C.UTF-8

# All the captures in one file (pcapng: several link types).  A file that
# is cut short still gives the packets before the cut.
mkdir -p "$work/one"
for f in captures/*.pcap captures/*.pcapng; do
    editcap -F pcapng "$f" "$work/one/$(basename "$f").pcapng" >/dev/null 2>&1
    [ -s "$work/one/$(basename "$f").pcapng" ] || rm -f "$work/one/$(basename "$f").pcapng"
done
ncaps=$(find "$work/one" -name "*.pcapng" | wc -l)
mergecap -a -w "$work/all.pcapng" "$work/one"/*.pcapng || { echo "plugin-robust: mergecap failed"; exit 2; }
nframes=$(capinfos -c -M "$work/all.pcapng" | sed -n 's/^Number of packets: *//p')

# batch SEED FILE: the mutated batch of that seed; prints what was done.
batch() {
    s=$1
    i=$((s % 12))
    prob=$(echo "0.001 0.003 0.01 0.03" | cut -d' ' -f$((i % 4 + 1)))
    off=$(echo "0 34 54" | cut -d' ' -f$((i % 3 + 1)))
    src=$work/all.pcapng
    how="seed $s: -E $prob -o $off"
    if [ $((s % 2)) = 1 ]; then
        # delete ~2% of the frames, chosen by the seed
        del=$(awk -v s="$s" -v n="$nframes" 'BEGIN { srand(s); for (k = 1; k <= n; k++) if (rand() < 0.02) printf "%d ", k }')
        # shellcheck disable=SC2086
        editcap "$src" "$work/del.pcapng" $del 2>/dev/null && src=$work/del.pcapng
        how="$how, $(echo "$del" | wc -w) frames deleted"
    fi
    snap=""
    if [ $((s % 5)) = 4 ]; then
        snap="-s $((60 + s % 240))"
        how="$how, $snap"
    fi
    # shellcheck disable=SC2086
    editcap --seed "$s" -E "$prob" -o "$off" $snap "$src" "$2" 2>/dev/null
    echo "$how"
}

# The way in for a batch: no preference, every port of the captures as
# an MPA port (every connection is hunted for FPDUs), or Decode As.
wayin() {
    case $(($1 % 3)) in
    0) echo "" ;;
    1) echo "-o iwmpa.ports:445,5445,18515,40000-40200" ;;
    2) echo "-d tcp.port==18515,iwmpa" ;;
    esac
}

# check MODE FILE OPTS...: runs tshark; prints why it failed, or nothing.
# Ours: a crash, a hang, an exception our dissector did not catch (the
# tree then says "[Malformed Packet: iWARP-MPA]"), "[Dissector bug,
# protocol iWARP-...]", or a message about us on stderr.  Other
# dissectors' malformed packets are what mutations are expected to make.
check() {
    mode=$1 file=$2
    shift 2
    case $mode in
    1) set -- -n -r "$file" -P -V "$@" ;;
    2) set -- -n -r "$file" -T fields -e iwmpa.finding -e _ws.malformed "$@" ;;
    3) set -- -n -2 -r "$file" -P -V "$@" ;;
    esac
    # The output is searched as it goes (it is large); stderr is kept.
    { timeout -k 5 "$limit" "$ts" "$@" 2>"$work/err"; echo $? >"$work/rc"; } |
        grep -E 'Malformed Packet: iWARP|Dissector bug' | sort | uniq -c | head -5 >"$work/bad"
    rc=$(cat "$work/rc")
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        echo "hang: no end after ${limit}s"
    elif [ "$rc" -gt 128 ]; then
        echo "crash: signal $((rc - 128)) ($(tail -n 3 "$work/err" | tr '\n' ' '))"
    elif [ "$rc" != 0 ]; then
        echo "exit status $rc: $(tail -n 3 "$work/err" | tr '\n' ' ')"
    elif grep -q 'Dissector bug, protocol iWARP' "$work/bad" || grep -Eq 'iwmpa|iWARP' "$work/err"; then
        echo "dissector bug: $(cat "$work/bad" "$work/err" | grep -E 'Dissector bug|iwmpa|iWARP' | head -3 | tr '\n' ' ')"
    elif grep -q 'Malformed Packet: iWARP' "$work/bad"; then
        echo "exception in our dissector: $(grep 'iWARP' "$work/bad" | head -3 | tr '\n' ' ')"
    fi
}

# shrink MODE FILE OPTS...: the smallest run of frames of FILE (halving)
# that still fails; prints its path.
shrink() {
    mode=$1 cur=$2
    shift 2
    keep_limit=$limit
    [ "$limit" -gt 20 ] && limit=20
    n=$(capinfos -c -M "$cur" | sed -n 's/^Number of packets: *//p')
    k=0
    while [ "$n" -gt 1 ] && [ $k -lt 40 ]; do
        k=$((k + 1))
        h=$((n / 2))
        found=""
        for range in "1-$h" "$((h + 1))-$n" "$((n / 4 + 1))-$((n / 4 + h))"; do
            editcap -r "$cur" "$work/try.pcapng" "$range" 2>/dev/null
            chmod 644 "$work/try.pcapng"
            if [ -n "$(check "$mode" "$work/try.pcapng" "$@")" ]; then
                found=$range
                break
            fi
        done
        [ -n "$found" ] || break
        mv "$work/try.pcapng" "$work/cur-$k.pcapng"
        cur=$work/cur-$k.pcapng
        n=$(capinfos -c -M "$cur" | sed -n 's/^Number of packets: *//p')
    done
    limit=$keep_limit
    echo "$cur"
}

echo "plugin-robust: $ncaps captures, $nframes frames a batch; tshark timeout ${limit}s"
start=$(date +%s)
done_batches=0
runs=0
fails=0

# The inputs that failed once (dissector/tests/regress/NAME.pcap[ng], with
# the tshark options of NAME.opts if there is one), every time.
nreg=0
for f in dissector/tests/regress/*.pcap dissector/tests/regress/*.pcapng; do
    [ -e "$f" ] || continue
    nreg=$((nreg + 1))
    cp "$f" "$work/reg.pcapng"
    chmod 644 "$work/reg.pcapng"
    o=""
    [ -r "${f%.*}.opts" ] && o=$(cat "${f%.*}.opts")
    for mode in 1 2 3; do
        # shellcheck disable=SC2086
        why=$(check $mode "$work/reg.pcapng" $o)
        runs=$((runs + 1))
        [ -z "$why" ] && continue
        fails=$((fails + 1))
        echo "plugin-robust: FAILED again: regression input $f${o:+ ($o)}, mode $mode: $why"
    done
done
s=$seed0
while :; do
    if [ "$seconds" -gt 0 ]; then
        [ $(($(date +%s) - start)) -lt "$seconds" ] || break
    else
        [ $done_batches -lt "$batches" ] || break
    fi
    b=$work/batch-$s.pcapng
    how=$(batch "$s" "$b")
    chmod 644 "$b"
    way=$(wayin "$s")
    for mode in 1 2 3; do
        # shellcheck disable=SC2086
        why=$(check $mode "$b" $way)
        runs=$((runs + 1))
        [ -z "$why" ] && continue
        fails=$((fails + 1))
        keep=$out/fail/batch-$s-mode$mode.pcapng
        cp "$b" "$keep"
        # shellcheck disable=SC2086
        small=$(shrink $mode "$b" $way)
        smallkeep=$out/fail/batch-$s-mode$mode-min.pcapng
        cp "$small" "$smallkeep"
        nmin=$(capinfos -c -M "$smallkeep" | sed -n 's/^Number of packets: *//p')
        case $mode in
        1) args="-n -r - -P -V" ;;
        2) args="-n -r - -T fields -e iwmpa.finding -e _ws.malformed" ;;
        3) args="-n -2 -r FILE -P -V (copy FILE where user nobody can read it)" ;;
        esac
        echo "plugin-robust: FAILED ($how${way:+, $way}), mode $mode: $why"
        echo "    batch: $keep"
        echo "    smallest failing run of frames ($nmin): $smallkeep"
        echo "    again: scripts/tshark-iwmpa $args${way:+ $way} < $smallkeep"
    done
    done_batches=$((done_batches + 1))
    s=$((s + 1))
done
secs=$(($(date +%s) - start))
echo "plugin-robust: $nreg regression inputs, $done_batches batches (seeds $seed0..$((s - 1))), $((done_batches * ncaps))" \
    "mutated captures, $runs tshark runs in ${secs}s: $fails failed"
[ $fails = 0 ]

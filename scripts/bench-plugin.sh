#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The plugin part of `make bench`: tshark with our plugin (iwmpa) against
# tshark with only the built-in iWARP dissector (iwarp_mpa), on the large
# capture of `mpa-capgen --big` (the same file as scripts/bench-audit.sh),
# for each Wireshark release at hand.  Prints, never fails.
#   scripts/bench-plugin.sh [DIR]               (default build/bench)
#   BENCH_BIG_BYTES=200M scripts/bench-plugin.sh   a smaller capture (default 1G)
#   BENCH_RUNS=1 scripts/bench-plugin.sh        one run of each command (default 3: the median)
#   BENCH_RELEASES="host sid" scripts/bench-plugin.sh   only these releases
#   BENCH_PERF=1 scripts/bench-plugin.sh        also perf record our CRC row: where the time goes
#   BENCH_NM_BYTES=1G scripts/bench-plugin.sh   the size of the capture without markers (default 200M)
# The CRC rows run again on a capture without markers (mpa-capgen --big
# --no-markers): the built-in loses its framing where a marker falls
# between two FPDUs and then checks few of the CRCs on the main capture,
# so only there do both do the same work (like for like).
# The releases are those of the version matrix (scripts/plugin-matrix.sh):
# this system's tshark (host), then the chroots trixie (Wireshark 4.4) and
# sid (4.6) of scripts/chroot.sh where they are cached and this runs as
# root (none is made here).  In a chroot the plugin is built with that
# release's gcc and wireshark-dev, the source copied into /srv/mpa-bench
# (kept between runs, so make rebuilds only what changed), and every
# tshark runs there through scripts/chroot.sh, timed from outside: GNU
# time's %M is the largest peak RSS among its descendants, tshark's.
# Both tshark runs of a pair are the same command but for the plugin: the
# same binary, the same user (as root both run as nobody, as
# scripts/tshark-iwmpa does: Wireshark ignores personal plugins as root),
# the capture on standard input, an empty private HOME for the built-in
# one, a private HOME holding the plugin for ours.  The wrapper's own cost
# (mktemp, cp, setpriv) is measured apart.
# The targets of issue 15 (ours at most 1.1x the built-in's time and
# 1.2x its peak RSS, same release, same file, like fields) are printed
# next to each ratio.
# Wall time by date +%s%N, peak RSS by GNU time (%M).
set -u
dir=${1:-build/bench}
bytes=${BENCH_BIG_BYTES:-1G}
so=build/dissector/iwmpa.so
mkdir -p "$dir"
big=$dir/big-$bytes.pcap

echo "== 6. tshark with the iwmpa plugin against tshark with the built-in iwarp_mpa, same file =="
if ! command -v tshark >/dev/null 2>&1; then
    echo "   tshark: not installed (scripts/deps.sh installs it)"
    exit 0
fi
[ -r "$so" ] || { echo "   $so missing (make plugin); skipped"; exit 0; }
if [ ! -s "$big" ]; then
    rm -f "$dir"/big-*.pcap
    build/mpa-capgen --big "$big" --bytes "$bytes" 2>"$dir/big.txt" || {
        echo "   mpa-capgen --big failed:"; cat "$dir/big.txt"; exit 0; }
fi
size=$(stat -c %s "$big")
nmbytes=${BENCH_NM_BYTES:-200M}
nm=$dir/big-nomarkers-$nmbytes.pcap
if [ ! -s "$nm" ]; then
    rm -f "$dir"/big-nomarkers-*.pcap
    build/mpa-capgen --big "$nm" --bytes "$nmbytes" --no-markers 2>"$dir/nm.txt" || {
        echo "   mpa-capgen --big --no-markers failed:"; cat "$dir/nm.txt"; exit 0; }
fi
nmsize=$(stat -c %s "$nm")
timer=""
[ -x /usr/bin/time ] && timer=/usr/bin/time
sed 's/^mpa-capgen: /   capture: /' "$dir/big.txt" 2>/dev/null | fold -s -w 100 | sed '2,$s/^/      /'
sed 's/^mpa-capgen: /   without markers: /' "$dir/nm.txt" 2>/dev/null | fold -s -w 100 | sed '2,$s/^/      /'
runs=${BENCH_RUNS:-3}
echo "   $runs runs of each command, interleaved; the median is shown, and the spread"
echo "   MB/s = 1e6 octets of capture file per second; peak RSS of tshark (GNU time %M)."

tmp=$(mktemp -d)
ctmp=""
trap 'rm -rf "$tmp" ${ctmp:+"$ctmp"}' EXIT
trap 'exit 130' INT TERM
asuser=""
[ "$(id -u)" = 0 ] && asuser="setpriv --reuid=65534 --regid=65534 --clear-groups"

# The source to copy into a chroot: what git tracks plus new files it
# does not ignore (as scripts/plugin-matrix.sh does).
src_tar() {
    if git rev-parse --git-dir >/dev/null 2>&1; then
        git ls-files -z -c -o --exclude-standard | tar --null -T - -cf -
    else
        tar --exclude=./build -cf - .
    fi
}

# once HOME OUT TSHARK-ARGS... < FILE: one tshark run; prints "seconds rss exit".
once() {
    home=$1 outf=$2
    shift 2
    t0=$(date +%s%N)
    if [ -n "$timer" ]; then
        # shellcheck disable=SC2086
        $timer -f '%M' -o "$tmp/rss" $pre HOME=$home $asuser tshark "$@" >"$outf" 2>"$tmp/err"
    else
        # shellcheck disable=SC2086
        $pre HOME=$home $asuser tshark "$@" >"$outf" 2>"$tmp/err"
    fi
    rc=$?
    t1=$(date +%s%N)
    r=$(tail -n 1 "$tmp/rss" 2>/dev/null)
    case $r in '' | *[!0-9]*) r="?" ;; esac
    echo "$((t1 - t0)) $r $rc"
}
# row KEY HOME OUT TSHARK-ARGS...: one run of one command, interleaved
# with the other rows' by the caller; appends to $tmp/KEY.
row() {
    key=$1
    shift
    once "$@" <"${in:-$big}" >>"$tmp/$key"
}
# show KEY NAME: the median, min and max of the runs; sets $secs and $rss
# (the median peak RSS).
show() {
    secs=$(awk '{ print $1 / 1e9 }' "$tmp/$1" | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }')
    rss=$(awk '{ print $2 }' "$tmp/$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    awk -v n="$2" -v s="$secs" -v b="$size" -v r="$rss" '
        { t = $1 / 1e9; if (NR == 1 || t < lo) lo = t; if (t > hi) hi = t; if ($3 != 0) bad = bad " exit " $3 }
        END { rr = (r == "?") ? "?" : sprintf("%.1f MiB", r / 1024);
              spread = (NR > 1) ? sprintf("%.1f-%.1f", lo, hi) : "";
              printf "   %-50s %8.2f %11s %7.0f %11s%s\n", n, s, spread, b / 1e6 / s, rr, bad }' "$tmp/$1"
}
# verdicts FILE: frames with a value, values
verdicts() { awk 'NF { f++; n += split($0, v, ",") } END { printf "%d frames, %d values", f, n }' "$1"; }
# ratio A B TARGET: A/B and whether it is within TARGET (printed, never a verdict)
ratio() {
    awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN {
        if (a == "?" || b == "?" || b == 0) { printf "?"; exit }
        r = a / b; printf "%.2fx (target <= %sx %s)", r, t, r <= t ? "met" : "not met" }'
}

# bench_release NAME: the rows for one release; $pre runs a command in
# it, $chome is where its private HOMEs are as that release sees them.
bench_release() {
    rm -f "$tmp"/bq "$tmp"/oq "$tmp"/tf "$tmp"/bc "$tmp"/oc
    # The personal plugin folder carries the Wireshark version (plugins/4.0/...).
    # shellcheck disable=SC2086
    rel=$($pre HOME=/nonexistent-bench tshark -G folders 2>/dev/null |
        awk -F'\t' '/^Personal Plugins:/ { sub("^/nonexistent-bench/", "", $2); print $2 }')
    case $rel in
    "" | /*) echo "   $1: tshark -G folders names no personal plugin folder; skipped"; return ;;
    esac
    rm -rf "$hdir/h0" "$hdir/h1"
    mkdir -p "$hdir/h0/.config/wireshark" "$hdir/h1/.config/wireshark" "$hdir/h1/$rel/epan"
    cp "$2" "$hdir/h1/$rel/epan/iwmpa.so"
    chmod -R a+rwX "$hdir"
    chmod 755 "$hdir"
    h0=$chome/h0 h1=$chome/h1
    # The built-in dissector is heuristic on TCP; make sure it is on.  If
    # our plugin is installed system-wide, the built-in run must not use it.
    bopts="-n"
    # shellcheck disable=SC2086
    heur=$($pre HOME=$h0 tshark -G heuristic-decodes 2>/dev/null | awk '$1 == "tcp" && $2 == "iwarp_mpa" { print $3 }')
    [ "$heur" = F ] && bopts="$bopts --enable-heuristic iwarp_mpa_tcp"
    # shellcheck disable=SC2086
    if $pre HOME=$h0 tshark -G plugins 2>/dev/null | grep -q '^iwmpa'; then
        bopts="$bopts -o iwmpa.in_charge:FALSE"
        echo "   (iwmpa is installed system-wide: the built-in rows run with -o iwmpa.in_charge:FALSE)"
    fi
    # shellcheck disable=SC2086
    ver=$($pre tshark -v 2>/dev/null | sed -n '1s/^TShark (Wireshark) \([0-9][0-9.]*[0-9]\).*/\1/p')
    echo
    echo "   -- $1: TShark ${ver:-?}; capture on standard input; output to a file; load $(cut -d' ' -f1-3 /proc/loadavg)"
    printf '   %-50s %8s %11s %7s %11s\n' "command (tshark -n -r - ... < FILE)" "s" "min-max" "MB/s" "peak RSS"
    k=0
    while [ $k -lt "$runs" ]; do
        k=$((k + 1))
        # shellcheck disable=SC2086
        row bq "$h0" /dev/null $bopts -r - -q
        row oq "$h1" /dev/null -n -r - -q
        row tf "$h0" /dev/null -n --disable-protocol iwarp_mpa -r - -T fields -e tcp.len
        # shellcheck disable=SC2086
        row bc "$h0" "$tmp/b.out" $bopts -r - -T fields -e iwarp_mpa.crc_check
        row oc "$h1" "$tmp/o.out" -n -r - -T fields -e iwmpa.crc.status
    done
    show bq "built-in: -q"
    bq=$secs
    show oq "ours:     -q"
    oq=$secs
    show tf "neither (TCP only): -T fields -e tcp.len"
    tf=$secs
    show bc "built-in: -T fields -e iwarp_mpa.crc_check"
    bc=$secs
    brss=$rss
    show oc "ours:     -T fields -e iwmpa.crc.status"
    oc=$secs
    orss=$rss
    echo "   -q: time ours/built-in $(ratio "$oq" "$bq" 1.1)"
    echo "       (with -q and no tap or field tshark dissects nothing, with or without the plugin: both rows"
    echo "       are reading the file)"
    echo "   CRC: time ours/built-in $(ratio "$oc" "$bc" 1.1); peak RSS $(ratio "$orss" "$brss" 1.2)"
    awk -v t="$tf" -v b="$bc" -v o="$oc" 'BEGIN {
        printf "       over TCP alone (%.2f s), the built-in adds %.2f s, ours %.2f s\n", t, b - t, o - t }'
    echo "       built-in: $(verdicts "$tmp/b.out") of iwarp_mpa.crc_check"
    echo "       ours:     $(verdicts "$tmp/o.out") of iwmpa.crc.status ($(tr ',' '\n' <"$tmp/o.out" |
        awk '$0 == "1" { g++ } $0 == "0" { b++ } $0 == "2" { u++ } END { printf "%d good, %d bad, %d not checked", g, b, u }'))"
    # Like for like: the CRC rows on the capture without markers.
    rm -f "$tmp"/bn "$tmp"/on
    k=0
    while [ $k -lt "$runs" ]; do
        k=$((k + 1))
        # shellcheck disable=SC2086
        in=$nm row bn "$h0" "$tmp/bn.out" $bopts -r - -T fields -e iwarp_mpa.crc_check
        in=$nm row on "$h1" "$tmp/on.out" -n -r - -T fields -e iwmpa.crc.status
    done
    keep=$size
    size=$nmsize
    show bn "built-in, no markers: -e iwarp_mpa.crc_check"
    bn=$secs
    bnrss=$rss
    show on "ours, no markers:     -e iwmpa.crc.status"
    on=$secs
    onrss=$rss
    size=$keep
    echo "   no markers (like for like): time ours/built-in $(ratio "$on" "$bn" 1.1); peak RSS $(ratio "$onrss" "$bnrss" 1.2)"
    echo "       built-in: $(verdicts "$tmp/bn.out"); ours: $(verdicts "$tmp/on.out")"
    echo "$1 ${ver:-?} $(awk -v a="$oc" -v b="$bc" 'BEGIN { printf "%.2f", a / b }') $(awk -v a="$orss" -v b="$brss" 'BEGIN {
        if (a == "?" || b == "?") print "?"; else printf "%.2f", a / b }') $(awk -v a="$on" -v b="$bn" 'BEGIN {
        if (b == 0) print "?"; else printf "%.2f", a / b }') $(awk -v a="$onrss" -v b="$bnrss" 'BEGIN {
        if (a == "?" || b == "?") print "?"; else printf "%.2f", a / b }')" >>"$tmp/summary"
}

releases=${BENCH_RELEASES:-host trixie sid}
cbase=${MPA_CHROOT_DIR:-/var/cache/mpa-toolkit/chroots}
: >"$tmp/summary"
for r in $releases; do
    case $r in
    host)
        pre="env" chome=$tmp hdir=$tmp
        bench_release host "$so"
        ;;
    bookworm | trixie | sid)
        root=$cbase/$r
        if [ "$(id -u)" != 0 ] || [ ! -f "$root/.mpa-chroot-stamp" ]; then
            echo
            echo "   -- $r: no cached chroot (scripts/chroot.sh $r makes one, as root); skipped"
            continue
        fi
        pre="scripts/chroot.sh $r -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8"
        mkdir -p "$root/srv/mpa-bench"
        src_tar | tar -C "$root/srv/mpa-bench" -xf -
        # shellcheck disable=SC2086
        if ! $pre HOME=/root sh -c 'cd /srv/mpa-bench && make -s -j2 build/dissector/iwmpa.so' \
            >"$tmp/make.log" 2>&1; then
            echo
            echo "   -- $r: building the plugin in the chroot failed:"
            tail -n 20 "$tmp/make.log" | sed 's/^/      /'
            continue
        fi
        rm -rf "$ctmp"
        ctmp=$(mktemp -d "$root/tmp/bench-plugin.XXXXXX")
        chome=${ctmp#"$root"} hdir=$ctmp
        bench_release "$r" "$root/srv/mpa-bench/build/dissector/iwmpa.so"
        ;;
    *) echo "   $r: unknown release (host, trixie, sid)" ;;
    esac
done
echo
echo "   Summary, -T fields with the CRC status, ours/built-in of the same release (targets: time"
echo "   <= 1.1x, peak RSS <= 1.2x); like for like: the capture without markers, where both check"
echo "   the CRC of (nearly) every FPDU:"
awk '{ printf "     %-8s %-10s time %sx  peak RSS %sx  like for like: time %sx  peak RSS %sx\n", $1, $2, $3, $4, $5,
    $6 }' "$tmp/summary"
pre="env"

# The wrapper's own cost per run (mktemp, cp of the plugin, setpriv), and
# what loading the plugin adds to tshark's start: medians of 5 runs on a
# 9-frame capture (this system's tshark).
[ -d "$tmp/h1" ] || exit 0
small=captures/scen-crc-bad.pcap
med() {
    for k in 1 2 3 4 5; do
        t0=$(date +%s%N)
        "$@" <"$small" >/dev/null 2>&1
        t1=$(date +%s%N)
        echo $((t1 - t0))
    done | sort -n | sed -n 3p
}
w=$(med scripts/tshark-iwmpa -n -r - -T fields -e frame.number)
# shellcheck disable=SC2086
d=$(med env HOME="$tmp/h1" $asuser tshark -n -r - -T fields -e frame.number)
# shellcheck disable=SC2086
z=$(med env HOME="$tmp/h0" $asuser tshark -n -r - -T fields -e frame.number)
awk -v w="$w" -v d="$d" -v z="$z" 'BEGIN {
    printf "   start-up (median of 5, 9 frames): tshark %.0f ms, with the plugin %.0f ms, through\n", z / 1e6, d / 1e6;
    printf "   scripts/tshark-iwmpa %.0f ms: the wrapper adds %.0f ms a run, not counted above\n", w / 1e6, (w - d) / 1e6 }'

if [ "${BENCH_PERF:-0}" = 1 ] && command -v perf >/dev/null 2>&1; then
    echo
    echo "   perf record (99 Hz, DWARF call graphs) of ours, -T fields -e iwmpa.crc.status:"
    # shellcheck disable=SC2086
    HOME=$tmp/h1 perf record -q -o "$tmp/perf.data" -F 99 --call-graph dwarf,16384 $asuser tshark -n -r - \
        -T fields -e iwmpa.crc.status <"$big" >/dev/null 2>"$tmp/perf.err"
    echo "   time by library (self):"
    perf report -q -i "$tmp/perf.data" --no-children --sort dso -g none 2>/dev/null | grep '%' | head -n 8 |
        sed 's/^ */     /'
    echo "   the plugin's functions, with what they call (children):"
    perf report -q -i "$tmp/perf.data" --children --sort symbol -g none 2>/dev/null |
        grep -E ' (dissect_iwmpa_post|iw_track|draw_fpdu|draw_ulpdu|draw_conv|draw_frame|find_tcp|tcp_dir_segment|hist_put|finish_frame|mpa_stream_feed|mpa_fpdu_layout|mpa_ddp_decode|mpa_crc32c[a-z_]*)( |$)' |
        awk '{ printf "     %-8s %s\n", $1, $4 }'
fi
exit 0

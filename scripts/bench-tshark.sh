#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The tshark part of `make bench`: times tshark over the pcaps mpa-bench
# wrote and prints its figures next to libmpa's.  Prints, never fails.
#   scripts/bench-tshark.sh [DIR]     (default build/bench)
# DIR holds mpa-64m.pcap (markers and CRC on), mpa-64m-nomarkers.pcap
# (markers off, CRC on) and libmpa-figures.txt, all from
# `build/mpa-bench --pcap-dir DIR`.
#
# The tshark figure is a whole-tshark figure: it reads the file, dissects
# Ethernet, IPv4 and TCP (with its sequence analysis) as well as MPA and
# DDP/RDMAP, and runs its tap.  It is context, not a like-for-like
# comparison with libmpa's engine, which is fed TCP payload directly.
set -u
dir=${1:-build/bench}

echo "== 4. tshark comparison: whole-tshark figures (it also parses Ethernet/IPv4/TCP and runs its"
echo "      TCP analysis and a tap), so context, not like-for-like =="
if ! command -v tshark >/dev/null 2>&1; then
    echo "   tshark: not installed (scripts/deps.sh bench installs it)"
    exit 0
fi
figs=$dir/libmpa-figures.txt
if [ ! -r "$figs" ]; then
    echo "   tshark: $figs missing (run build/mpa-bench --pcap-dir $dir first); skipped"
    exit 0
fi
get() { sed -n "s/^$1=//p" "$figs" | head -n 1; }

ver=$(tshark -v 2>/dev/null | sed -n '1s/^TShark (Wireshark) \([^ ]*\).*/\1/p')
echo "   TShark ${ver:-(unknown version)}, one run per file, wall time (date +%s%N) of:"

# The iwarp_mpa dissector is a heuristic TCP dissector (MPA has no port):
# it needs no -d, and `-d tcp.port==N,iwarp_mpa` is not accepted.  Make
# sure the heuristic is on.
opts="-n"
heur=$(tshark -G heuristic-decodes 2>/dev/null | awk '$1 == "tcp" && $2 == "iwarp_mpa" { print $3 }')
case $heur in
T) ;;
F) opts="$opts --enable-heuristic iwarp_mpa_tcp" ;;
*) echo "   tshark: this build has no iwarp_mpa heuristic on TCP; skipped"; exit 0 ;;
esac
# A CRC-check preference, where a version has one.
pref=$(tshark -G defaultprefs 2>/dev/null | sed -n 's/^#*\(iwarp_mpa\.[a-z_]*crc[a-z_]*\):.*/\1/p' | head -n 1)
if [ -n "$pref" ]; then
    opts="$opts -o $pref:TRUE"
    prefnote="with -o $pref:TRUE"
else
    prefnote="no iwarp_mpa CRC preference in this version: it checks CRCs itself when C=1 was negotiated"
fi
# Counting the dissector's CRC-check fields makes tshark build (a pruned)
# protocol tree, which the MPA dissector needs to verify CRCs at all.
tap='io,stat,0,COUNT(iwarp_mpa.crc_check)iwarp_mpa.crc_check,COUNT(iwarp_mpa.ulpdulength)iwarp_mpa.ulpdulength'
echo "     tshark $opts -r FILE -q -z '$tap'"
echo "   ($prefnote)"
echo

printf '   %-24s %7s %7s %9s %12s %19s %12s %9s\n' "file" "frames" "MiB" "tshark s" "tshark MB/s" \
    "FPDUs CRC-checked" "libmpa MB/s" "libmpa x"
lost=0
for tag in m1c1 m0c1; do
    pcap=$(get ${tag}_pcap)
    [ -n "$pcap" ] && [ -r "$pcap" ] || continue
    payload=$(get ${tag}_payload)
    frames=$(get ${tag}_frames)
    fpdus=$(get ${tag}_fpdus)
    gbps=$(get ${tag}_gbps)
    t0=$(date +%s%N)
    # shellcheck disable=SC2086
    out=$(tshark $opts -r "$pcap" -q -z "$tap" 2>/dev/null)
    rc=$?
    t1=$(date +%s%N)
    if [ $rc != 0 ]; then
        echo "   $(basename "$pcap"): tshark failed (exit $rc)"
        continue
    fi
    checked=$(printf '%s\n' "$out" | awk -F'|' '/<>/ { gsub(/ /, "", $3); print $3; exit }')
    [ -n "$checked" ] || checked="?"
    awk -v f="$(basename "$pcap")" -v fr="$frames" -v pl="$payload" -v ns=$((t1 - t0)) \
        -v ck="$checked" -v fp="$fpdus" -v g="$gbps" 'BEGIN {
        s = ns / 1e9; ts = pl / s / 1e6; ours = g * 1000;
        printf "   %-24s %7d %7.1f %9.2f %12.1f %19s %12.0f %9.0f\n", f, fr, pl / 1048576, s, ts,
               ck " of " fp, ours, ours / ts }'
    if [ "$tag" = m1c1 ] && [ "$checked" != "$fpdus" ]; then
        lost=1
    fi
done
echo
echo "   MB/s = 1e6 octets of TCP payload per second; libmpa MB/s is mpa-bench's cold median for the"
echo "   same connection (section 2); libmpa x = how many times tshark's figure."
if [ $lost = 1 ]; then
    echo "   With markers on, tshark CRC-checked fewer FPDUs than the connection has: it lost the FPDU"
    echo "   framing (seen with 4.0.17: it counts a marker that falls exactly between two FPDUs into the"
    echo "   earlier FPDU, where draft-03 7.1 / RFC 5044 4.3 put it in the following one, and then"
    echo "   treats later segments as pieces of a reassembled PDU), so that row is mostly TCP work."
    echo "   The markers-off row is the one where tshark decodes every FPDU."
fi
exit 0

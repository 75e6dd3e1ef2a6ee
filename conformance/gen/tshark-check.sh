#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Checks the reference captures with Wireshark's own tools (tshark, capinfos),
# independently of our code: every capture opens (except the bad-* files,
# which must fail the way their manifest line says), IP/TCP/UDP checksums
# verify, and TCP analysis raises nothing beyond the routine SYN/FIN notes,
# except in the captures that make a hole, a mid-stream start, a reordering
# or a retransmission on purpose.  tshark's own iwarp_mpa dissector is not
# consulted (it mis-decodes markers).
#
#   conformance/gen/tshark-check.sh DIR     (DIR: what mpa-capgen wrote)
#
# Prints one line per problem; exit status 1 if there was any.
set -u
dir=${1:?usage: tshark-check.sh DIR}
command -v tshark >/dev/null || { echo "tshark-check: tshark not installed (scripts/deps.sh bench)"; exit 2; }
bad=0
for f in "$dir"/*.pcap "$dir"/*.pcapng; do
    [ -e "$f" ] || continue
    b=$(basename "$f")
    out=$(tshark -r "$f" -q 2>&1 | grep -v 'Running as user')
    rc=$?
    case "$b" in
    bad-magic.*)
        echo "$out" | grep -q "isn't a capture file" || { echo "$b: tshark did not refuse it: $out"; bad=1; }
        continue ;;
    bad-empty.*)
        [ -s "$f" ] && { echo "$b: not empty"; bad=1; }
        continue ;;
    bad-cut.*)
        echo "$out" | grep -q "cut short in the middle of a packet" || { echo "$b: not cut: $out"; bad=1; } ;;
    *)
        [ -n "$out" ] && { echo "$b: $out"; bad=1; continue; } ;;
    esac
    n=$(tshark -r "$f" -o tcp.check_checksum:TRUE -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
        -Y 'tcp.checksum.status==0 || ip.checksum.status==0 || udp.checksum.status==0' 2>/dev/null | wc -l)
    [ "$n" -ne 0 ] && { echo "$b: $n packets with a bad checksum"; bad=1; }
    # TCP analysis notes that only deliberate captures may have.
    notes=$(tshark -r "$f" -q -z expert 2>/dev/null | grep -E ' TCP ' |
        grep -v -E 'Connection establish|Connection finish|Connection reset|connection closing|TCP window update' |
        sed 's/  */ /g')
    case "$b" in
    loss-*|midstream-*|reorder*|retrans-*|overlap-*|reuse-*) ;;
    *) [ -n "$notes" ] && { echo "$b: unexpected TCP analysis:"; echo "$notes"; bad=1; } ;;
    esac
done
[ $bad -eq 0 ] && echo "tshark-check: all captures as expected"
exit $bad

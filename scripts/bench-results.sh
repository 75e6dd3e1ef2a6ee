#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Writes bench/RESULTS.md: the machine `make bench` ran on (CPU model,
# cores, RAM, kernel, Debian release), when, at which commit, and what it
# printed.  `make bench` tees its output to build/bench/bench.txt and
# runs this last.  Records, never judges: no figure is pass/fail.
#   scripts/bench-results.sh --write OUT.md BENCH-OUTPUT.txt [NOTE]
# NOTE (optional): a paragraph put before the figures, e.g. that they
# come from a smaller capture or from some of the scripts only.
set -u
if [ $# -lt 3 ] || [ "$1" != --write ]; then
    echo "usage: scripts/bench-results.sh --write OUT.md BENCH-OUTPUT.txt [NOTE]" >&2
    exit 2
fi
out=$2
in=$3
note=${4:-}
if [ ! -r "$in" ]; then
    echo "bench-results: $in: no such file (make bench writes it)" >&2
    exit 2
fi
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
[ -n "$cpu" ] || cpu=$(uname -m)
cores=$(nproc 2>/dev/null || echo "?")
ram=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null)
kernel=$(uname -sr)
deb="not Debian"
[ -r /etc/debian_version ] && deb="Debian $(cat /etc/debian_version)"
os=$(sed -n 's/^PRETTY_NAME="\(.*\)"$/\1/p' /etc/os-release 2>/dev/null)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "?")
tmp=$out.tmp
{
    echo "# make bench: results"
    echo
    echo "Written by \`scripts/bench-results.sh\` (run by \`make bench\`). Figures are"
    echo "printed, never pass/fail; they hold for the machine below only."
    echo
    echo "| machine | |"
    echo "|---|---|"
    echo "| CPU | $cpu |"
    echo "| cores | $cores |"
    echo "| RAM | ${ram:-?} |"
    echo "| kernel | $kernel |"
    echo "| release | $deb${os:+ ($os)} |"
    echo "| date | $(date -u +%Y-%m-%d) |"
    echo "| commit | $commit |"
    echo
    if [ -n "$note" ]; then
        printf '%s\n' "$note" | fold -s -w 76 | sed 's/ *$//'
        echo
    fi
    echo '```'
    sed "s/[[:space:]]*$//" "$in"
    echo '```'
} >"$tmp" && mv "$tmp" "$out"
echo "bench-results: wrote $out"

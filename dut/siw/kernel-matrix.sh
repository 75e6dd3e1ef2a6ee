#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make dut-siw-matrix: the whole suite against siw under each kernel of
# the matrix (dut/siw/run.sh --kernel), then one table of the verdicts.
#   dut/siw/kernel-matrix.sh [--update] [KERNEL...]
#   dut/siw/kernel-matrix.sh --doc      only rewrite the page from the records
# KERNEL is bookworm (Debian 12, Linux 6.1), trixie (Debian 13, 6.12) or
# sid (unstable, the newest kernel Debian has); all three by default.
# Each run goes to build/dut-siw/run-KERNEL and is compared with the
# kernel's record: dut/siw/verdicts.tsv for bookworm (the record CI's
# `make dut-siw` checks), dut/siw/verdicts-KERNEL.tsv for the others.
# The table of that run is build/dut-siw/kernels.md.
# --update merges each run into its kernel's record (dut/siw/merge.sh:
# where runs disagree a verdict lists every outcome seen) and writes
# docs/dut/linux-siw-kernels.md from the records.
# Exit: 0 all agree with the records (or --update), 1 a verdict changed
# under some kernel (each run's compare.txt names it), 2 a run failed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
update=0
doconly=0
[ "${1:-}" = --update ] && { update=1; shift; }
[ "${1:-}" = --doc ] && { doconly=1; update=1; shift; }
kernels=${*:-bookworm trixie sid}
[ $doconly = 1 ] && kernels=""
record() { if [ "$1" = bookworm ]; then echo "$here/verdicts.tsv"; else echo "$here/verdicts-$1.tsv"; fi; }
rc=0
files=""
for k in $kernels; do
    case $k in bookworm | trixie | sid) ;; *) echo "dut-siw-matrix: no kernel $k (bookworm, trixie, sid)" >&2; exit 2 ;; esac
    out=$top/build/dut-siw/run-$k
    rec=$(record "$k")
    set -- --kernel "$k" -o "$out" --update "$out/recorded.tsv" --report "$out/report.md"
    [ $update = 0 ] && [ -f "$rec" ] && set -- "$@" --check "$rec"
    echo "dut-siw-matrix: $k"
    set +e
    "$here/run.sh" "$@"
    r=$?
    set -e
    case $r in
    0) ;;
    1) rc=1 ;;
    *) echo "dut-siw-matrix: the run under $k failed (exit $r)" >&2; exit 2 ;;
    esac
    if [ $update = 1 ]; then
        if [ -f "$rec" ]; then
            "$here/merge.sh" "$rec" "$out/recorded.tsv" > "$rec.new" && mv "$rec.new" "$rec"
        else
            cp "$out/recorded.tsv" "$rec"
        fi
        echo "dut-siw-matrix: $rec recorded"
    fi
    files="$files $out/recorded.tsv"
done
if [ -n "$files" ]; then
    # shellcheck disable=SC2086
    "$here/matrix.sh" $files > "$top/build/dut-siw/kernels.md"
    echo "dut-siw-matrix: this run's table in build/dut-siw/kernels.md"
fi
if [ $update = 1 ]; then
    doc=$top/docs/dut/linux-siw-kernels.md
    recs=""
    for k in bookworm trixie sid; do [ -f "$(record "$k")" ] && recs="$recs $(record "$k")"; done
    {
        echo "# Linux siw across kernels"
        echo
        echo "Written by \`make dut-siw-matrix-update\` (dut/siw/kernel-matrix.sh --update) from the"
        echo "recorded verdicts of each kernel (dut/siw/verdicts*.tsv); do not edit by hand."
        echo "The suite, the guest's user space and the test procedure are the same for every"
        echo "kernel (docs/dut/linux-siw.md); only the kernel and the siw.ko built from its"
        echo "source change. A verdict such as \`fail/pass\` lists every outcome seen over the"
        echo "recorded runs (siw's races, docs/dut/linux-siw.md section 9), so a difference"
        echo "between two such cells may be timing, not a change in siw: see the kernel's"
        echo "report before reading it as one."
        echo
        # shellcheck disable=SC2086
        "$here/matrix.sh" $recs
    } > "$doc.new" && mv "$doc.new" "$doc"
    echo "dut-siw-matrix: $doc written"
fi
exit $rc

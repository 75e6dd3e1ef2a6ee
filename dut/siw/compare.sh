#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# compare.sh RECORDED NEW [KERNEL]: the verdicts of a dut/siw/run.sh run
# (NEW) against the recorded ones (dut/siw/verdicts.tsv).  Exit 0 when
# they agree; else 1, naming every test whose verdict changed, appeared
# or went, so that a new siw (a new Debian kernel) is seen, not passed.
# A recorded verdict may list alternatives, "fail/pass+kernel-bug": siw's
# outcome there depends on timing (seen to vary between recorded runs,
# dut/siw/merge.sh); any of them agrees.
set -eu
export LC_ALL=C
rec=$1; new=$2; kern=${3:-}
[ -f "$rec" ] || { echo "dut-siw: no recorded verdicts $rec (dut/siw/run.sh --update $rec writes them)" >&2; exit 2; }
was=$(sed -n 's/^# siw verdicts: \([^;]*\);.*/\1/p' "$rec")
tab=$(printf '\t')
# key = test|build|role
key() { grep -v '^#' "$1" | awk -F'\t' '{ printf "%s|%s|%s\t%s%s\n", $1, $2, $3, $5, ($6 != "" ? "+" $6 : "") }' | sort; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
key "$rec" > "$tmp/rec.k"
key "$new" > "$tmp/new.k"
diff=$(join -t "$tab" -a1 -a2 -e 'absent' -o 0,1.2,2.2 "$tmp/rec.k" "$tmp/new.k" |
    awk -F'\t' '{ n = split($2, alt, "/"); same = 0; for (i = 1; i <= n; i++) if (alt[i] == $3) same = 1; if (!same) print }')
rm -f "$tmp/rec.k" "$tmp/new.k"
if [ -z "$diff" ]; then
    echo "dut-siw: verdicts as recorded ($(grep -vc '^#' "$rec") test runs; recorded with ${was:-?}, now ${kern:-?})"
    exit 0
fi
echo "dut-siw: siw's verdicts changed (recorded with ${was:-?}, now ${kern:-?}):"
echo "$diff" | awk -F'\t' '{ split($1, k, "|"); printf "  %-45s %-7s %-9s recorded %-16s now %s\n", k[1], k[2], k[3], $2, $3 }'
echo "dut-siw: $(echo "$diff" | wc -l) changed; if the new behaviour is right, record it:"
echo "  dut/siw/run.sh --update dut/siw/verdicts.tsv   (and update docs/dut/linux-siw.md)"
exit 1

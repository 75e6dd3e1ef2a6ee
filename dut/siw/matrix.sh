#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# matrix.sh VERDICTS.tsv...: the verdicts of siw under several kernels as
# one Markdown table (stdout), one column per file in the order given.
# Each file is a dut/siw/run.sh verdicts file (recorded with --update or
# merged with merge.sh); its column is headed by the kernel its first
# line names ("# siw verdicts: Linux 6.12.117+deb13-amd64 (6.12.117-1); ...").
# The page has: the kernels; per kernel the count of each verdict; the
# rows whose verdict differs between kernels ("what changed": cells with
# no outcome in common, so "fail/pass" against "pass" is not a change);
# then every test. A test a file lacks reads "-" (not run under that kernel).
set -eu
export LC_ALL=C
[ $# -ge 1 ] || { echo "usage: matrix.sh VERDICTS.tsv..." >&2; exit 2; }
for f; do
    [ -r "$f" ] || { echo "matrix.sh: cannot read $f" >&2; exit 2; }
    k=$(sed -n '1s/^# siw verdicts: Linux \([^ ;]*\).*/\1/p' "$f")
    [ -n "$k" ] || { echo "matrix.sh: $f: line 1 does not name the kernel (# siw verdicts: Linux ...)" >&2; exit 2; }
done
awk -F'\t' '
    FNR == 1 { nf++; k = $0; sub(/^# siw verdicts: Linux /, "", k); full[nf] = k; sub(/;.*/, "", full[nf])
               sub(/[ ;].*/, "", k); kern[nf] = k; next }
    /^#/ || NF < 5 { next }
    { key = $1 "\t" $2 "\t" $3 "\t" $4
      if (!(key in seen)) { seen[key] = 1; keys[++n] = key }
      v[key, nf] = $5 ($6 != "" ? "+" $6 : "")
      split($5, alt, "/"); cnt[nf, alt[1]]++ ; total[nf]++ }
    function share(a, b,   x, y, na, nb, p, q) {
        na = split(a, x, "/"); nb = split(b, y, "/")
        for (p = 1; p <= na; p++) for (q = 1; q <= nb; q++) if (x[p] == y[q]) return 1
        return 0 }
    function cell(key, i) { return ((key, i) in v) ? v[key, i] : "-" }
    function row(key,   i, s, p) {
        split(key, p, "\t")
        s = "| `" p[1] "` | " p[2] " | " p[3] " | " p[4] " |"
        for (i = 1; i <= nf; i++) s = s " " cell(key, i) " |"
        return s }
    function header(   i, s, t) {
        s = "| test | build | role | class |"; t = "|---|---|---|---|"
        for (i = 1; i <= nf; i++) { s = s " " kern[i] " |"; t = t "---|" }
        print s; print t }
    END {
        print "Kernels:"
        print ""
        for (i = 1; i <= nf; i++) print "- " full[i]
        print ""
        print "| kernel | tests | pass | fail | other |"
        print "|---|---|---|---|---|"
        for (i = 1; i <= nf; i++)
            printf "| %s | %d | %d | %d | %d |\n", kern[i], total[i], cnt[i, "pass"], cnt[i, "fail"],
                   total[i] - cnt[i, "pass"] - cnt[i, "fail"]
        print ""
        print "### What changed between kernels"
        print ""
        changed = 0
        for (j = 1; j <= n; j++) {
            d = 0
            # a test one kernel did not run is not a change, nor are two
            # cells that share an outcome (races: "fail/pass")
            for (i = 1; i <= nf; i++) for (m = i + 1; m <= nf; m++)
                if (cell(keys[j], i) != "-" && cell(keys[j], m) != "-" && !share(cell(keys[j], i), cell(keys[j], m))) d = 1
            if (d) { if (!changed) header(); changed++; print row(keys[j]) }
        }
        if (!changed) print "No verdict differs between these kernels."
        for (i = 1; i <= nf; i++) if (total[i] < n)
            printf "\n%s has no verdict for %d of the %d test rows (not run under it: \"-\").\n", kern[i], n - total[i], n
        print ""
        print "### Every test"
        print ""
        header()
        for (j = 1; j <= n; j++) print row(keys[j])
    }' "$@"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# merge.sh VERDICTS.tsv...: the verdicts of several dut/siw/run.sh runs as
# one recorded file (stdout): where the runs disagree on a test, its
# verdict lists every outcome seen, "fail/pass+kernel-bug" (sorted).
# An input may itself be a merged file (its alternatives are taken one by
# one). Header lines (#) of the first file are kept.
set -eu
export LC_ALL=C
grep '^#' "$1" || true
cat "$@" | grep -v '^#' | awk -F'\t' '
    { k = $1 "\t" $2 "\t" $3 "\t" $4; v = $5 ($6 != "" ? "+" $6 : "")
      if (!(k in seen)) { seen[k] = ""; keys[++n] = k }
      na = split(v, alt, "/")
      for (j = 1; j <= na; j++)
          if (index("/" seen[k] "/", "/" alt[j] "/") == 0) seen[k] = seen[k] (seen[k] == "" ? "" : "/") alt[j] }
    END { for (i = 1; i <= n; i++) {
            m = split(seen[keys[i]], a, "/")
            for (x = 1; x <= m; x++) for (y = x + 1; y <= m; y++) if (a[y] < a[x]) { t = a[x]; a[x] = a[y]; a[y] = t }
            s = a[1]; for (x = 2; x <= m; x++) s = s "/" a[x]
            print keys[i] "\t" s } }' | sort

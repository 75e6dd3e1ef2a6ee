#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The include graph: each folder is one layer and may include only from
# the folders it names below (its own floor and the floors under it).
# Every quoted #include of every tracked .c and .h file is resolved the
# way the build resolves it (the including file's folder, then the
# folders of the table, then the top of the tree for "folder/file.h"
# paths); an include that resolves to a folder the table does not allow,
# or to more than one file, is reported with file and line.
#   scripts/check-layers.sh          check (exit 1 on a violation)
#   scripts/check-layers.sh --table  print the table
set -u
cd "$(dirname "$0")/.." || exit 2

# folder -> the folders it may include from (besides itself).  Bottom
# first.  A folder not in the table belongs to the nearest one above it.
declare -A MAY
order=(
    include
    src
    util
    wire
    capture
    corpus
    injector/inject
    injector/peer
    injector
    conformance/audit
    conformance/gen
    conformance/conform
    conformance
    dissector
    tools
    bench
    dut
    tests
    dissector/tests
)
MAY[include]=""
MAY[src]="include"
MAY[util]="include"
MAY[wire]="include"
MAY[capture]="include"
MAY[corpus]="include wire"
MAY[injector/inject]="include wire"
MAY[injector/peer]="include util"
MAY[injector]="include wire injector/inject util"
MAY[conformance/audit]="include capture"
MAY[conformance/gen]="include wire corpus util"
MAY[conformance/conform]="include injector/inject"
MAY[conformance]="include capture conformance/audit conformance/conform injector/inject util"
MAY[dissector]="include capture"
MAY[tools]="include corpus injector/inject util"
MAY[bench]="include wire corpus"
MAY[dut]="include"
# Tests may use every layer; no layer may use tests.
MAY[tests]="include src util wire capture corpus injector/inject injector/peer injector conformance/audit conformance/gen conformance/conform conformance dissector tools bench dut"
MAY[dissector/tests]="${MAY[tests]} tests"

if [ "${1:-}" = "--table" ]; then
    for f in "${order[@]}"; do printf '%-20s %s\n' "$f" "${MAY[$f]:-(nothing)}"; done
    exit 0
fi

# The layer a path belongs to: the longest folder of the table it is in.
layer_of() {
    local p=$1 best="" f
    for f in "${order[@]}"; do
        case "$p" in "$f"/*) [ ${#f} -gt ${#best} ] && best=$f ;; esac
    done
    printf '%s' "$best"
}

bad=0
files=0
incs=0
while IFS= read -r file; do
    files=$((files + 1))
    from=$(layer_of "$file")
    if [ -z "$from" ]; then
        echo "check-layers: $file: in no layer of the table (scripts/check-layers.sh)"
        bad=$((bad + 1))
        continue
    fi
    dir=$(dirname "$file")
    while IFS=: read -r line inc; do
        [ -n "$inc" ] || continue
        incs=$((incs + 1))
        # Candidates, as the build's -I flags find them.
        found=()
        for root in "$dir" . "${order[@]}"; do
            [ -f "$root/$inc" ] || continue
            r=$(realpath -m --relative-to=. "$root/$inc")
            dup=0
            for x in "${found[@]+"${found[@]}"}"; do [ "$x" = "$r" ] && dup=1; done
            [ $dup = 1 ] || found+=("$r")
        done
        if [ ${#found[@]} = 0 ]; then
            echo "check-layers: $file:$line: \"$inc\" is no file of the tree"
            bad=$((bad + 1))
            continue
        fi
        # The including file's own folder wins, as in the compiler.
        target=${found[0]}
        if [ ${#found[@]} -gt 1 ] && [ "$(dirname "$target")" != "$dir" ]; then
            echo "check-layers: $file:$line: \"$inc\" is ambiguous: ${found[*]}"
            bad=$((bad + 1))
            continue
        fi
        to=$(layer_of "$target")
        [ "$to" = "$from" ] && continue
        ok=0
        for m in ${MAY[$from]}; do [ "$m" = "$to" ] && ok=1; done
        if [ $ok = 0 ]; then
            echo "check-layers: $file:$line: includes $target: $from may not use $to (it may use: ${MAY[$from]:-nothing})"
            bad=$((bad + 1))
        fi
    done < <(awk '/^[ \t]*#[ \t]*include[ \t]*"/ { s = $0; sub(/^[^"]*"/, "", s); sub(/".*/, "", s); print NR ":" s }' "$file")
done < <(git ls-files '*.c' '*.h' | grep -v '^tests/fuzz/regress/')
if [ $bad -gt 0 ]; then
    echo "check-layers: $bad violations ($files files, $incs includes)"
    exit 1
fi
echo "check-layers: $files files, $incs includes, every arrow points down"

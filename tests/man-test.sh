#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The man pages (docs/*.1, docs/*.3, docs/*.5), as they will be installed.
#
#   pages    each program (mpa-audit, mpa-capgen, mpa-decode, mpa-inject,
#            mpa-peer, mpa-conform) and libmpa has a page, and every page of
#            the toolkit that a page cites, NAME(N), exists;
#   header   .TH NAME N "November 2026" "mpa-toolkit VERSION": the name and
#            section of the file, the version of the VERSION file;
#   bytes    no control character but tab in the source;
#   groff    groff -man -Tutf8 -ww -z warns of nothing (with tbl when the
#            page's first line asks for it, '\" t, as man does; a page with
#            a table must ask); nor do mandoc -T lint and man --warnings
#            (lintian's check) when they are installed;
#   render   groff -man -Tutf8 renders it: a NAME section that names the page;
#   paths    no path of the source tree (docs/ build/ conformance/
#            injector/ captures/ tests/ src/ shared/) in the source or the
#            rendered text: the pages are installed without the tree;
#   options  the long options of `PROGRAM --help` and those of the OPTIONS
#            section of PROGRAM.1 are the same;
#   status   the EXIT STATUS of each program's page shows the line a
#            program writes when standard output cannot be written
#            ("PROGRAM: standard output: REASON");
#   example  the example program of libmpa.3, as the page renders it,
#            compiles against build/libmpa.a with -Wall -Wextra -Werror
#            and prints what the page shows.
#
#   tests/man-test.sh [DOCS-DIR]      (default docs; from any folder)
#
# The programs and libmpa.a are built (make -j2) when missing.  Exit 0
# when every check passes, 1 otherwise (each failure named).
set -u
export LC_ALL=C.UTF-8
here=$(pwd)
docs=${1:-}
case $docs in "" | /*) ;; *) docs=$here/$docs ;; esac
cd "$(dirname "$0")/.." || { echo "man-test: cannot find the source tree"; exit 1; }
[ -n "$docs" ] || docs=$(pwd)/docs
B=build
programs="mpa-audit mpa-capgen mpa-decode mpa-inject mpa-peer mpa-conform"
version=$(cat VERSION)

fail=0
ko() { echo "man-test: $*"; fail=1; }

for t in groff perl cc; do
    command -v $t >/dev/null || { echo "man-test: needs $t"; exit 1; }
done
missing=
for p in $programs libmpa.a; do
    [ -e $B/$p ] || missing="$missing $B/$p"
done
if [ -n "$missing" ]; then
    make -j2 -s $missing >/dev/null || { echo "man-test: make$missing failed"; exit 1; }
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

shopt -s nullglob
pages=("$docs"/*.[135])
[ ${#pages[@]} -gt 0 ] || { echo "man-test: no page in $docs"; exit 1; }

# The preprocessors a page asks for on its first line ('\" t), as man reads them.
tbl_opt() { head -n 1 "$1" | grep -q "^'\\\\\" *[a-z]*t" && echo -t; }
# Plain text: no hyphenation, long lines (so no word is cut), no bold or underline.
render() { groff $(tbl_opt "$1") -man -Tutf8 -P-cbou -rHY=0 -rLL=250n "$1" 2>/dev/null; }
# One section of the page's source, from .SH NAME to the next .SH.
section() { awk -v s=".SH $2" '$0 == s || $0 == s "\"" || $0 == ".SH \"" substr(s, 5) "\"" { on = 1; next } /^\.SH / { on = 0 } on' "$1"; }

# ---- pages ------------------------------------------------------------------
for p in $programs; do
    [ -f "$docs/$p.1" ] || ko "$p has no page ($docs/$p.1)"
done
[ -f "$docs/libmpa.3" ] || ko "libmpa has no page ($docs/libmpa.3)"

for page in "${pages[@]}"; do
    f=$(basename "$page")
    name=${f%.*}
    sec=${f##*.}
    render "$page" >"$tmp/$f.txt"

    # ---- header ----
    th=$(grep -m1 '^\.TH ' "$page")
    want=".TH $(echo "$name" | tr a-z A-Z | sed 's/-/\\\\\\?-/g') $sec \"November 2026\" \"mpa-toolkit $version\""
    echo "$th" | grep -q "^$want" ||
        ko "$f: .TH is '$th', not .TH $(echo "$name" | tr a-z A-Z) $sec \"November 2026\" \"mpa-toolkit $version\" ..."

    # ---- bytes ----
    perl -ne 'exit 1 if /[\x00-\x08\x0b-\x1f\x7f]/' "$page" ||
        ko "$f: a control character in the source, line $(perl -ne 'if (/[\x00-\x08\x0b-\x1f\x7f]/) { print $.; exit }' "$page")"

    # ---- groff ----
    if grep -q '^\.TS' "$page" && [ -z "$(tbl_opt "$page")" ]; then
        ko "$f: has a table (.TS) but no '\\\" t first line for tbl"
    fi
    t=$(tbl_opt "$page")
    w=$(groff $t -man -Tutf8 -ww -z "$page" 2>&1)
    [ -z "$w" ] || ko "$f: groff${t:+ $t} -man -Tutf8 -ww -z: $(echo "$w" | head -n 5)"
    if command -v mandoc >/dev/null; then
        w=$(mandoc -T lint -W warning "$page" 2>&1)
        [ -z "$w" ] || ko "$f: mandoc -T lint: $(echo "$w" | head -n 5)"
    fi
    if command -v man >/dev/null; then
        w=$(MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 >/dev/null)
        [ -z "$w" ] || ko "$f: man --warnings -l: $(echo "$w" | head -n 5)"
    fi

    # ---- render ----
    if ! groff $(tbl_opt "$page") -man -Tutf8 "$page" >/dev/null 2>&1; then
        ko "$f: groff -man -Tutf8 fails"
    elif ! grep -q '^NAME$' "$tmp/$f.txt"; then
        ko "$f: renders without a NAME section"
    elif ! awk '/^NAME$/ { getline; print; exit }' "$tmp/$f.txt" | grep -q "^ *$name - "; then
        ko "$f: the NAME section does not name $name: $(awk '/^NAME$/ { getline; print; exit }' "$tmp/$f.txt")"
    fi

    # ---- paths ----
    re='(^|[^A-Za-z0-9_])(docs|build|conformance|injector|captures|tests|src|shared)/'
    hits=$( { sed 's/\\-/-/g' "$page"; cat "$tmp/$f.txt"; } | grep -oE "$re[^ ]*" | sed -E 's/^[^a-z]//' | sort -u | tr '\n' ' ')
    [ -z "$hits" ] || ko "$f: paths of the source tree: $hits"

    # ---- the pages it cites ----
    for ref in $(grep -oE '(^|[^A-Za-z0-9_-])(mpa-[a-z]+|libmpa)\([0-9]\)' "$tmp/$f.txt" | sed -E 's/^[^a-z]//' | sort -u); do
        rn=${ref%(*}
        rs=${ref#*(}
        rs=${rs%)}
        [ -f "$docs/$rn.$rs" ] || ko "$f: cites $ref, which has no page ($docs/$rn.$rs)"
    done
done

# ---- options and exit status of the programs -----------------------------------
for p in $programs; do
    page=$docs/$p.1
    [ -f "$page" ] || continue
    if ! $B/$p --help >"$tmp/$p.help" 2>&1; then
        ko "$p --help fails"
        continue
    fi
    grep -oE -- '--[a-z][a-z0-9-]*' "$tmp/$p.help" | sort -u >"$tmp/$p.help_opts"
    [ -s "$tmp/$p.help_opts" ] || ko "$p --help lists no long option"
    section "$page" OPTIONS | grep -oE -- '\\-\\-[a-z][a-z0-9\\-]*' | sed 's/\\//g' | sort -u >"$tmp/$p.man_opts"
    [ -s "$tmp/$p.man_opts" ] || ko "$p.1 has no OPTIONS section with options"
    m=$(comm -23 "$tmp/$p.help_opts" "$tmp/$p.man_opts" | tr '\n' ' ')
    [ -z "$m" ] || ko "$p.1: options of $p --help not in its OPTIONS section: $m"
    m=$(comm -13 "$tmp/$p.help_opts" "$tmp/$p.man_opts" | tr '\n' ' ')
    [ -z "$m" ] || ko "$p.1: options in its OPTIONS section that $p --help does not list: $m"

    awk '/^EXIT STATUS$/ { on = 1; next } /^[A-Z]/ { on = 0 } on' "$tmp/$p.1.txt" | tr -s '\n ' '  ' | grep -q "$p: standard output: REASON" ||
        ko "$p.1: its EXIT STATUS does not show the line of a failed write to standard output ($p: standard output: REASON)"
done

# ---- the example of libmpa.3 -------------------------------------------------------
if [ -f "$docs/libmpa.3" ]; then
    t=$tmp/libmpa.3.txt
    # the program: from its first #include to the closing brace of main
    awk '/^EXAMPLES$/ { ex = 1 } ex && /^ *#include <stdio.h>/ { on = 1 }
         on { sub(/^       /, ""); print } on && /^}$/ && main { exit } /int main\(/ { main = 1 }' "$t" >"$tmp/example.c"
    # what it prints: after "$ ./example", to the blank line
    awk '/^ *\$ \.\/example$/ { on = 1; next } on && /^ *$/ { exit } on { sub(/^       /, ""); print }' "$t" >"$tmp/example.want"
    if [ ! -s "$tmp/example.c" ] || [ ! -s "$tmp/example.want" ]; then
        ko "libmpa.3: no example program (#include <stdio.h> ... main) and its output (\$ ./example) in EXAMPLES"
    elif ! cc -std=c11 -Wall -Wextra -Werror -pedantic -Iinclude "$tmp/example.c" -o "$tmp/example" \
            $B/libmpa.a >"$tmp/example.cc" 2>&1; then
        ko "libmpa.3: the example does not compile: $(head -n 5 "$tmp/example.cc")"
    else
        "$tmp/example" >"$tmp/example.got" 2>&1
        rc=$?
        if [ $rc != 0 ] || ! cmp -s "$tmp/example.want" "$tmp/example.got"; then
            ko "libmpa.3: the example exits $rc and prints what the page does not show: $(diff "$tmp/example.want" "$tmp/example.got" | head -n 6 | tr '\n' ' ')"
        fi
    fi
fi

if [ $fail = 0 ]; then
    echo "man-test: ok: ${#pages[@]} pages ($(cd "$docs" && echo *.[135] | sed 's/ /, /g'))"
fi
exit $fail

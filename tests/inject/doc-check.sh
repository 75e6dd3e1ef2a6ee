#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mpa-inject's man pages against the code: docs/mpa-scenario.5 (the
# script format) and docs/mpa-inject.1 (the program).
#
#   keys     every JSON key the scenario parser accepts, taken mechanically
#            from the scenario parser, injector/inject/scen*.c: the
#            NULL-terminated key lists
#            (static const char *const NAME[] = {...}, which sp_only_keys()
#            enforces and the verbs and expectation kinds come from), the
#            field table (fields[] = {"name", ...}: constraint and capture
#            names), the cJSON_GetObjectItemCaseSensitive(obj, "key") calls
#            and strcmp(x->string / field name, "key") calls;
#   values   the names the parser accepts as values: the name tables
#            (static const name_val NAME[] = {...}: key, opcode, rtr and crc
#            names) and strcmp(x->valuestring, "value") calls;
#   options  every option (long and short) of `mpa-inject --help`.
#
# A key or value is documented when it appears in bold in the rendered
# scenario page (groff -man, overstrike bold; the whole page is the
# format); an option when a tag of the OPTIONS section of the program's
# page (the line after a .TP in the page's source) names it (\-\-name,
# \-x).  Options the page describes but --help does not know fail too.
# Then groff (with and without tbl) must render both pages without a
# warning, and so must mandoc -T lint when it is installed (its STYLE
# notes aside).
#
#   tests/inject/doc-check.sh [MPA-INJECT [MAN-PAGE [SCENARIO-PAGE]]]
#       MPA-INJECT     default build/mpa-inject (make build/mpa-inject)
#       MAN-PAGE       default docs/mpa-inject.1
#       SCENARIO-PAGE  default docs/mpa-scenario.5
#
# Exit 0 when everything is documented, 1 otherwise (each gap named).
set -u
export LC_ALL=C
here=$(pwd)
abs() { case $1 in /*) echo "$1" ;; *) echo "$here/$1" ;; esac; }
bin=$(abs "${1:-}")
man=$(abs "${2:-}")
scen=$(abs "${3:-}")
cd "$(dirname "$0")/../.." || { echo "doc-check: cannot find the source tree"; exit 1; }
[ -n "${1:-}" ] || bin=$(pwd)/build/mpa-inject
[ -n "${2:-}" ] || man=$(pwd)/docs/mpa-inject.1
[ -n "${3:-}" ] || scen=$(pwd)/docs/mpa-scenario.5
src=$(echo injector/inject/scen*.c) # the scenario parser's files

fail=0
ko() { echo "doc-check: $*"; fail=1; }

for f in $src "$man" "$scen"; do
    [ -r "$f" ] || { echo "doc-check: $f: missing"; exit 1; }
done
if [ ! -x "$bin" ]; then
    echo "doc-check: $bin: missing (make build/mpa-inject)"
    exit 1
fi
for t in groff perl awk; do
    command -v $t >/dev/null || { echo "doc-check: needs $t"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- what the parser accepts ------------------------------------------------

awk '
    # string literals of a line, minus the empty one
    function lits(line, kind,   s) {
        while (match(line, /"[^"]*"/)) {
            s = substr(line, RSTART + 1, RLENGTH - 2)
            if (s != "") print kind, s
            line = substr(line, RSTART + RLENGTH)
        }
    }
    /static const char \*const [A-Za-z_0-9]+\[\] = \{/ { inkeys = 1 }
    /static const name_val [A-Za-z_0-9]+\[\] = \{/      { invals = 1 }
    inkeys { l = $0; sub(/.*= \{/, "", l); lits(l, "key");   if ($0 ~ /\};/) inkeys = 0; next }
    invals { l = $0; sub(/.*= \{/, "", l); lits(l, "value"); if ($0 ~ /\};/) invals = 0; next }
    /^[ \t]*\[F_[A-Z_0-9]+\] = \{"/ { l = $0; sub(/^[^{]*\{/, "", l); sub(/,.*/, "", l); lits(l, "key"); next }
    {
        l = $0
        while (match(l, /cJSON_GetObjectItemCaseSensitive\([^,()]*, "[^"]*"\)/)) {
            m = substr(l, RSTART, RLENGTH); l = substr(l, RSTART + RLENGTH)
            sub(/^[^"]*/, "", m); lits(m, "key")
        }
        l = $0
        while (match(l, /strcmp\([^,()]*, "[^"]*"\)/)) {
            m = substr(l, RSTART, RLENGTH); l = substr(l, RSTART + RLENGTH)
            kind = m ~ /valuestring/ ? "value" : "key"
            sub(/^[^"]*/, "", m); lits(m, kind)
        }
    }
' $src | grep -E ' [a-z_][a-z0-9_]*$' | sort -u >"$tmp/names"
# a name that is a key somewhere is checked as a key
awk '$1 == "key" { print $2 }' "$tmp/names" | sort -u >"$tmp/keys"
awk '$1 == "value" { print $2 }' "$tmp/names" | sort -u | comm -23 - "$tmp/keys" >"$tmp/values"
nk=$(wc -l <"$tmp/keys")
nv=$(wc -l <"$tmp/values")
# The parser has about 100 keys and 20 value names: far fewer means the
# extraction no longer understands the parser.
if [ "$nk" -lt 80 ] || [ "$nv" -lt 10 ]; then
    ko "only $nk keys and $nv value names found in $src: has its layout changed? (update this script)"
fi

# ---- what the page documents --------------------------------------------------

# Render (tbl, no hyphenation, long lines so that no name is cut), bold
# as overstrike; mark bold runs with \x01...\x02; every word of a bold
# run is documented.  A page that does not render has no NAME heading.
groff -t -man -Tutf8 -P-c -rHY=0 -rLL=250n "$scen" 2>/dev/null |
    perl -CS -ne '
        s/((?:(.)\x08\2)+)/my $r = $1; $r =~ s|.\x08||g; "\x01$r\x02"/ge;  # bold
        s/_\x08//g;                                                       # italic
        print' >"$tmp/render"
grep -q '^.NAME.$' "$tmp/render" || ko "$scen does not render (no NAME section)"
perl -ne 'while (/\x01([^\x02]*)\x02/g) { print "$_\n" for ($1 =~ /[A-Za-z0-9_]+/g) }' "$tmp/render" |
    sort -u >"$tmp/bold"

missing=$(comm -23 "$tmp/keys" "$tmp/bold" | tr '\n' ' ')
[ -z "$missing" ] || ko "keys of $src not documented (in bold) in $scen: $missing"
missing=$(comm -23 "$tmp/values" "$tmp/bold" | tr '\n' ' ')
[ -z "$missing" ] || ko "value names of $src not documented (in bold) in $scen: $missing"

# ---- options --------------------------------------------------------------------

if ! "$bin" --help >"$tmp/help" 2>&1; then
    ko "$bin --help failed"
fi
{
    grep -o -- '--[a-z][a-z0-9-]*' "$tmp/help"
    grep -oE '(^|[ ,])-[A-Za-z0-9]([ ,]|$)' "$tmp/help" | tr -d ' ,'
} | sort -u >"$tmp/help_opts"
[ -s "$tmp/help_opts" ] || ko "no options found in $bin --help"
# the tag lines (the line after .TP) of the OPTIONS section
sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$man" | awk 'tag { print; tag = 0 } /^\.TP/ { tag = 1 }' |
    grep -oE '\\-\\-[a-z][a-z0-9\\-]*|(^|[^-])\\-[A-Za-z0-9]\b' | sed -E 's/^[^\\]//; s/\\//g' |
    sort -u >"$tmp/man_opts"
missing=$(comm -23 "$tmp/help_opts" "$tmp/man_opts" | tr '\n' ' ')
[ -z "$missing" ] || ko "options of $bin --help not in the OPTIONS section of $man: $missing"
extra=$(comm -13 "$tmp/help_opts" "$tmp/man_opts" | tr '\n' ' ')
[ -z "$extra" ] || ko "options in the OPTIONS section of $man that $bin --help does not list: $extra"

# ---- rendering ----------------------------------------------------------------------

for page in "$man" "$scen"; do
    for pre in "" "-t"; do
        w=$(groff $pre -man -Tutf8 -ww -z "$page" 2>&1)
        [ -z "$w" ] || ko "groff${pre:+ $pre} -man -ww warns about $page: $(echo "$w" | head -n 5)"
    done
    if command -v mandoc >/dev/null; then
        w=$(mandoc -T lint -W warning "$page" 2>&1)
        [ -z "$w" ] || ko "mandoc -T lint warns about $page: $(echo "$w" | head -n 5)"
    fi
done

if [ $fail = 0 ]; then
    echo "doc-check: ok: $nk keys and $nv value names documented in $scen, $(wc -l <"$tmp/help_opts") options in $man"
fi
exit $fail

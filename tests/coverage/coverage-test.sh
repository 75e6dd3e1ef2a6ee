#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The spec coverage generator (build/mpa-catalogue --coverage) refuses a
# bad table with FILE:LINE and why, and exits 1; a good one passes.
# Run from the top of the repository (make coverage-check).
set -u
B=${B:-build}
CAT=$B/mpa-catalogue
T=$B/coverage-test
rm -rf "$T" && mkdir -p "$T"
fails=0
H='key	level	statement	observable	ids	note'

# case NAME EXPECTED-WORDS LINES...: a table of those lines must be
# refused with "bad.tsv:N: ...EXPECTED-WORDS..."
bad() {
    name=$1 want=$2
    shift 2
    d=$T/$name && mkdir -p "$d"
    printf '%s\n' "$@" >"$d/bad.tsv"
    if "$CAT" --coverage "$d" -o "$d/out.md" 2>"$d/err"; then
        echo "coverage-test: FAILED: $name: accepted"; fails=$((fails + 1)); return
    fi
    if ! grep -q -- "$want" "$d/err"; then
        echo "coverage-test: FAILED: $name: expected \"$want\", got: $(cat "$d/err")"; fails=$((fails + 1)); return
    fi
    echo "coverage-test: $name refused: $(cat "$d/err")"
}

ok='1#1	MUST	A thing is done.	capture	MPA-FRM-RES	-'
bad unknown-id 'bad.tsv:3: unknown requirement id "MPA-NO-SUCH"' "$H" "$ok" \
    '1#2	MUST	Another.	capture	MPA-FRM-RES,MPA-NO-SUCH	-'
bad bad-level 'bad.tsv:2: bad level "MAY"' "$H" '1#1	MAY	A thing.	no	-	-'
bad bad-observable 'bad.tsv:2: bad observable "wire"' "$H" '1#1	MUST	A thing.	wire	-	-'
bad duplicate-key 'bad.tsv:3: duplicate key 1#1' "$H" "$ok" "$ok"
bad gap 'bad.tsv:3: key 1#3 follows 1#1' "$H" "$ok" '1#3	MUST	A thing.	no	-	-'
bad fields 'bad.tsv:2: 5 tab-separated fields' "$H" '1#1	MUST	A thing.	no	-'
bad empty-field 'bad.tsv:2: empty note' "$H" '1#1	MUST	A thing.	no	-	'
bad bad-key 'bad.tsv:2: bad key "1.2"' "$H" '1.2	MUST	A thing.	no	-	-'
bad header 'bad.tsv:1: the first line must be the header' 'key level statement observable ids note' "$ok"
bad long 'bad.tsv:2: statement of 141 characters' "$H" \
    "1#1	MUST	$(printf '%0141d' 0)	no	-	-"

# A good table of another document (one the generator has no title for)
# is taken, and its figures are right.
d=$T/good && mkdir -p "$d"
printf '%s\n' "$H" "$ok" '1#2	SHOULD	Not seen.	no	-	-' '4.1#1	MUST NOT	Seen, no id.	active	-	why' \
    '4.1#2	MUST	Named by tests.	both	MPA-FRM-KEY-REQ, MPA-STA-TIMEOUT	-' >"$d/rfc9999.tsv"
if ! "$CAT" --coverage "$d" -o "$d/out.md" 2>"$d/err"; then
    echo "coverage-test: FAILED: a good table refused: $(cat "$d/err")"; fails=$((fails + 1))
elif ! grep -q '^| rfc9999 | 1, 4 | 4 | 3 | 2 | 2 | 2 | 1 |$' "$d/out.md"; then
    echo "coverage-test: FAILED: the good table's figures:"; grep '^| rfc9999 |' "$d/out.md"; fails=$((fails + 1))
else
    echo "coverage-test: a good table of an unknown document taken, its figures right"
fi

# The README's figures block: rewritten between its markers, refused without them.
printf '%s\n' 'top' '<!-- spec-coverage: begin -->' 'old' '<!-- spec-coverage: end -->' 'bottom' >"$d/README.md"
if ! "$CAT" --coverage "$d" --readme "$d/README.md" -o "$d/README.out" 2>"$d/err" ||
    grep -q '^old$' "$d/README.out" || ! grep -q '^| rfc9999 |' "$d/README.out" || ! grep -q '^bottom$' "$d/README.out"; then
    echo "coverage-test: FAILED: the README block was not rewritten: $(cat "$d/err")"; fails=$((fails + 1))
fi
printf '%s\n' 'no markers' >"$d/README.md"
if "$CAT" --coverage "$d" --readme "$d/README.md" -o "$d/README.out" 2>"$d/err" || ! grep -q 'spec-coverage: begin' "$d/err"; then
    echo "coverage-test: FAILED: a README without the markers was taken"; fails=$((fails + 1))
else
    echo "coverage-test: README without markers refused: $(cat "$d/err")"
fi

[ $fails -eq 0 ] || { echo "coverage-test: $fails FAILED"; exit 1; }
echo "coverage-test: passed"

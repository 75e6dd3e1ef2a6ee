#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fault matrix of the conformance suites: every test of
# conformance/suites/*/*.json is played against the reference endpoint
# (mpa-peer), once correct and once with each of its faults
# (mpa-peer --list-faults, for each role the fault applies to), and the
# tests that fail are listed per (fault, role).
#
#   conformance/suites/run-matrix.sh [-u] [-j JOBS] [-v]
#
#   -u       write the observed matrix to fault-matrix.tsv instead of
#            comparing with it
#   -j JOBS  runs at once (default 12; they mostly wait on timers)
#   -v       print every job as it ends
#   -k       keep the work directory (the reports of every run) and say where
#
# Prints the matrix, one line per (fault, role):
#   fault <TAB> role <TAB> mpa-peer options <TAB> failing test ids (sorted)
# ("none" is the correct peer) and exits 0 when it is what
# conformance/suites/fault-matrix.tsv says, 1 when it differs (with a
# diff), 2 when something could not run (a missing binary, a run that
# was an error or timed out).
#
# Which tests run with which options (NOTES.md says why):
#   Responder tests: mpa-peer --listen {addr}:{port} --enhanced --timeout-ms 1000 -q
#                    plus --markers 1 for the tests that need "markers",
#                    plus --reject for the tests that need "reject"
#   Initiator tests that need "client-server": --enhanced --send 1 in place
#                    of --p2p (an enhanced Request with A=0, then data)
#   Initiator tests: mpa-peer --connect {peer}:{port} --p2p --timeout-ms 1000 -q
#   and for a faulty peer --fault NAME, plus what the fault needs
#   (fault_extra below).
#
# Needs build/mpa-inject, build/mpa-peer, build/jget
# (make build/mpa-inject build/mpa-peer build/jget).  Ports: the
# Responder runs use 127.0.0.1:PORT0+k (PORT0 = $MATRIX_PORT, default
# 7600), one port per job; the Initiator runs listen on free ports.
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 2

update=0
jobs=12
verbose=0
keep=0
while [ $# -gt 0 ]; do
    case $1 in
    -u) update=1 ;;
    -j) jobs=$2; shift ;;
    -v) verbose=1 ;;
    -k) keep=1 ;;
    *) echo "usage: $0 [-u] [-j JOBS] [-v] [-k]" >&2; exit 2 ;;
    esac
    shift
done

inj=build/mpa-inject
peer=build/mpa-peer
jget=build/jget
tsv=conformance/suites/fault-matrix.tsv
port0=${MATRIX_PORT:-7600}
for b in $inj $peer $jget; do
    [ -x $b ] || { echo "run-matrix: $b missing (make $b)" >&2; exit 2; }
done

R_OPTS="--listen {addr}:{port} --enhanced --timeout-ms 1000 -q"
I_OPTS="--connect {peer}:{port} --p2p --timeout-ms 1000 -q"
CHUNK=12          # tests per job
JOB_TIMEOUT=150   # seconds, per job (one mpa-inject run)

# What a fault needs beyond the suite's options, per role.
fault_extra() {
    case "$1/$2" in
    # the RTR is too short to span a marker: the Initiator must send data
    bad-marker/initiator) echo "--send 1 --size 1000" ;;
    *) echo "" ;;
    esac
}

tmp=$(mktemp -d)
if [ $keep = 1 ]; then
    echo "run-matrix: work directory $tmp" >&2
else
    trap 'rm -rf "$tmp"' EXIT
fi
trap 'exit 130' INT TERM

# ---- the tests: file, role, group (base, markers, reject, cs), id
: >"$tmp/index"
for f in conformance/suites/*/*.json; do
    mapfile -t v < <($jget "$f" device test.needs test.id)
    [ "${v[0]}" = responder ] || [ "${v[0]}" = initiator ] || { echo "run-matrix: $f: no device" >&2; exit 2; }
    g=base
    [[ ${v[1]} == *'"markers"'* ]] && g=markers
    [[ ${v[1]} == *'"reject"'* ]] && g=reject
    [[ ${v[1]} == *'"client-server"'* ]] && g=cs
    printf '%s\t%s\t%s\t%s\n' "$f" "${v[0]}" "$g" "${v[2]}" >>"$tmp/index"
done
[ -s "$tmp/index" ] || { echo "run-matrix: no tests" >&2; exit 2; }

# ---- the rows: none (the correct peer), then every fault and role
rows=()
rows+=("none responder" "none initiator")
while IFS=$'\t' read -r name roles _; do
    for r in ${roles//,/ }; do
        rows+=("$name $r")
    done
done < <($peer --list-faults)

row_opts() { # fault role -> mpa-peer options (those of the base group)
    local o
    if [ "$2" = responder ]; then o=$R_OPTS; else o=$I_OPTS; fi
    [ "$1" = none ] || o="$o --fault $1"
    local x
    x=$(fault_extra "$1" "$2")
    [ -n "$x" ] && o="$o $x"
    echo "$o"
}

# ---- the jobs: one mpa-inject run of up to CHUNK tests of one group
k=0
: >"$tmp/jobs"
for ri in "${!rows[@]}"; do
    read -r fault role <<<"${rows[$ri]}"
    for g in base markers reject cs; do
        if [ $g = cs ] && [ "$fault" != none ]; then
            # a fault mpa-peer refuses without --p2p (usage error, exit
            # 2) is not one a client-server Initiator can have
            $peer --connect 127.0.0.1:9 --enhanced --send 1 --timeout-ms 1 -q --fault "$fault" >/dev/null 2>&1
            [ $? = 2 ] && continue
        fi
        awk -F'\t' -v r="$role" -v g="$g" '$2 == r && $3 == g {print $1}' "$tmp/index" >"$tmp/list"
        [ -s "$tmp/list" ] || continue
        split -l $CHUNK -d -a 3 "$tmp/list" "$tmp/chunk.$ri.$g."
        for c in "$tmp"/chunk.$ri.$g.*; do
            echo "$k $ri $g $c" >>"$tmp/jobs"
            k=$((k + 1))
        done
    done
done

run_job() { # k ri group chunk
    local k=$1 ri=$2 g=$3 chunk=$4 fault role opts out
    read -r fault role <<<"${rows[$ri]}"
    opts=$(row_opts "$fault" "$role")
    [ $g = markers ] && opts="$opts --markers 1"
    [ $g = reject ] && opts="$opts --reject"
    [ $g = cs ] && opts="${opts/--p2p/--enhanced --send 1}"
    out=$tmp/out.$k.json
    if [ "$role" = responder ]; then
        timeout $JOB_TIMEOUT $inj -q --no-trace -t 127.0.0.1:$((port0 + k)) --spawn "$peer $opts" \
            --json "$out" $(cat "$chunk") >"$tmp/log.$k" 2>&1
    else
        timeout $JOB_TIMEOUT $inj -q --no-trace -l 127.0.0.1:0 --spawn "$peer $opts" \
            --json "$out" $(cat "$chunk") >"$tmp/log.$k" 2>&1
    fi
    local rc=$?
    if [ $rc -ge 124 ] || [ ! -s "$out" ]; then
        echo "run-matrix: job $k ($fault $role $g): mpa-inject exit $rc, no report" >"$tmp/err.$k"
        return
    fi
    local n paths=() i
    n=$($jget "$out" runs.#)
    for ((i = 0; i < n; i++)); do paths+=(runs.$i.file runs.$i.verdict); done
    $jget "$out" "${paths[@]}" | paste - - | while IFS=$'\t' read -r file verdict; do
        local id
        id=$(awk -F'\t' -v f="$file" '$1 == f {print $4}' "$tmp/index")
        printf '%s\t%s\t%s\n' "$ri" "$id" "$verdict"
        [ "$verdict" = error ] && echo "run-matrix: $fault $role: $id: error" >>"$tmp/err.$k"
    done >"$tmp/res.$k"
    [ $verbose = 1 ] && echo "job $k: $fault $role $g: $(grep -c . "$tmp/res.$k") tests" >&2
    return 0
}
export -f run_job row_opts fault_extra
export tmp inj peer jget port0 R_OPTS I_OPTS JOB_TIMEOUT verbose
export ROWS_STR
ROWS_STR=$(printf '%s\n' "${rows[@]}")
# bash cannot export arrays: each worker rebuilds rows from ROWS_STR
t0=$(date +%s)
xargs -P "$jobs" -L 1 bash -c 'mapfile -t rows <<<"$ROWS_STR"; run_job "$@"' _ <"$tmp/jobs"
t1=$(date +%s)

# ---- the matrix
cat "$tmp"/err.* 2>/dev/null >&2
errors=0
ls "$tmp"/err.* >/dev/null 2>&1 && errors=1
cat "$tmp"/res.* 2>/dev/null >"$tmp/all"
: >"$tmp/matrix"
for ri in "${!rows[@]}"; do
    read -r fault role <<<"${rows[$ri]}"
    ids=$(awk -F'\t' -v r="$ri" '$1 == r && $3 != "pass" {print $2}' "$tmp/all" | sort | tr '\n' ' ' | sed 's/ $//')
    printf '%s\t%s\t%s\t%s\n' "$fault" "$role" "$(row_opts "$fault" "$role")" "$ids" >>"$tmp/matrix"
done
ntests=$(wc -l <"$tmp/index")
nruns=$(wc -l <"$tmp/all")
cat "$tmp/matrix"
echo "run-matrix: $ntests tests, ${#rows[@]} rows, $nruns runs in $((t1 - t0)) s" >&2

if [ $update = 1 ]; then
    {
        echo "# fault	role	mpa-peer options	tests that fail (conformance/suites/run-matrix.sh; NOTES.md)"
        cat "$tmp/matrix"
    } >"$tsv"
    echo "run-matrix: wrote $tsv" >&2
    exit $((errors ? 2 : 0))
fi
[ $errors = 1 ] && exit 2
if diff <(grep -v '^#' "$tsv") "$tmp/matrix" >"$tmp/diff"; then
    echo "run-matrix: the matrix is what $tsv says" >&2
    exit 0
fi
echo "run-matrix: the matrix differs from $tsv (< expected, > observed):" >&2
cat "$tmp/diff" >&2
exit 1

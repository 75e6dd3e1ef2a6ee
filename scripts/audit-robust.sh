#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# mpa-audit against garbage, truncated and adversarial captures: the ones
# mpa-capgen --adversarial writes (conformance/gen/adversarial.c; each
# file's description is in build/adversarial/ADVERSARIAL.tsv).
#   scripts/audit-robust.sh        (make audit-robust)
# For each capture, with mpa-audit's default limits:
#  - no crash, no hang: exit status 0 or 1 (1 exactly when an error-level
#    finding exists) within 300 s; 2 only for a file that ends in a record
#    libpcap refuses, and then stderr names that record's byte offset;
#  - the --json output keeps the contract (build/jsonids);
#  - peak RSS under 80 MiB, the bound mpa-audit --help documents for the
#    default options (GNU time's %M);
#  - the findings the capture is made to provoke, per connection where it
#    matters, and none of the ids it must not provoke.
# One line per capture: name, size, packets, seconds (printed, never
# checked), peak RSS, exit status, verdict.  Exit status 1 if any check
# failed, with a line naming the capture and what was wrong; 2 when the
# captures cannot be made.
set -u
cd "$(dirname "$0")/.." || exit 2
audit=build/mpa-audit
gen=build/mpa-capgen
ids=build/jsonids
dir=build/adversarial
rss_max_kib=$((80 * 1024))
gnutime=/usr/bin/time
for tool in $audit $gen $ids; do
    [ -x "$tool" ] || { echo "audit-robust: $tool is missing (make $tool)"; exit 2; }
done
[ -x $gnutime ] || { echo "audit-robust: $gnutime is missing (Debian package time)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
tab=$(printf '\t')

# The captures, made again when the generator is newer than they are.
if [ ! -f $dir/ADVERSARIAL.tsv ] || [ -n "$(find $gen -newer $dir/ADVERSARIAL.tsv)" ]; then
    rm -rf $dir
    mkdir -p $dir
    t0=$(date +%s)
    if ! $gen --adversarial $dir 2>"$tmp/gen.err"; then
        cat "$tmp/gen.err"
        echo "audit-robust: mpa-capgen --adversarial failed"
        exit 2
    fi
    echo "audit-robust: mpa-capgen --adversarial $dir: $(($(date +%s) - t0)) s"
fi

fail=0
problems=""
# bad CAPTURE MESSAGE: a failed check.
bad() {
    fail=1
    problems="$problems$1: $2
"
    verdict=FAIL
}

# The value of a summary counter ("packets", "error", ...) in a --json
# report.
summary() {
    awk -F"$tab" -v k="\"$2\":" '/^"summary"/ { s = 1 }
        s { for (i = 1; i < NF; i++) if ($i == k) { v = $(i + 1); gsub(/[",]/, "", v); print v; exit } }' "$1"
}

# One line per connection of a --json report: client, how it ended, its
# error count, its finding ids (listed ones, in order).
conns() {
    awk -F"$tab" '
        /^\t"client":/ { c = $NF; gsub(/[",]/, "", c) }
        /^\t"closed":/ { cl = $NF; gsub(/[",]/, "", cl) }
        /^\t\t"error":/ { e = $NF; gsub(/[",]/, "", e) }
        /^\t\t\t"id":/ { id = $NF; gsub(/[",]/, "", id); f = f " " id }
        /^}/ { if (c != "") print c, cl, e f; c = ""; f = "" }' "$1"
}

# has IDS ID: is ID in the space-separated list IDS?
has() { case " $1 " in *" $2 "*) return 0 ;; esac; return 1; }

# conn_check CAPTURE JSON CLIENT CLOSED ERRORS WANT...: the connection from
# CLIENT ended as CLOSED, with ERRORS error-level findings ("-": any) and
# at least the ids WANT.
conn_check() {
    c_name=$1 c_json=$2 c_client=$3 c_closed=$4 c_errors=$5
    shift 5
    c_line=$(conns "$c_json" | awk -v c="$c_client" '$1 == c { print; exit }')
    if [ -z "$c_line" ]; then
        bad "$c_name" "no connection from $c_client in the report"
        return
    fi
    # shellcheck disable=SC2086
    set -- "$@" "|" $c_line
    c_want=""
    while [ "$1" != "|" ]; do
        c_want="$c_want $1"
        shift
    done
    c_got_closed=$3 c_got_errors=$4
    shift 4
    c_got=" $* "
    [ "$c_got_closed" = "$c_closed" ] ||
        bad "$c_name" "connection from $c_client ended \"$c_got_closed\", expected \"$c_closed\""
    [ "$c_errors" = "-" ] || [ "$c_got_errors" = "$c_errors" ] ||
        bad "$c_name" "connection from $c_client has $c_got_errors error-level findings, expected $c_errors"
    for c_id in $c_want; do
        has "$c_got" "$c_id" || bad "$c_name" "connection from $c_client lacks $c_id (it has:$c_got)"
    done
}

printf '%-22s %9s %9s %8s %9s %4s  %s\n' capture MB packets seconds "RSS MiB" exit verdict
total_t0=$(date +%s)
while IFS="$tab" read -r file desc; do
    [ -n "$file" ] || continue
    name=${file%.*}
    json=$tmp/$name.json
    verdict=ok
    # GNU time outside timeout: time's own child is what timeout kills
    # (TERM, then KILL 10 s later), so nothing is left running; %M is
    # still mpa-audit's peak, the largest of the processes it waited for.
    $gnutime -f '%M %e' -o "$tmp/$name.time" \
        timeout -k 10 300 $audit --json --no-timing --no-progress -o "$json" "$dir/$file" 2>"$tmp/$name.err"
    rc=$?
    # GNU time's last line (a line before it says how the command ended).
    # shellcheck disable=SC2046
    set -- $(tail -n 1 "$tmp/$name.time" 2>/dev/null) 0 0
    rss=$1 secs=$2
    case $rss in *[!0-9]*) rss=0 secs=0 ;; esac
    size=$(wc -c <"$dir/$file")
    packets=-

    # 1. Exit status: no crash, no hang.
    case $rc in
    124) bad "$name" "no answer within 300 s: stopped by timeout" ;;
    137) bad "$name" "killed (SIGKILL: by timeout 10 s after SIGTERM, or out of memory)" ;;
    0 | 1 | 2) ;;
    *) bad "$name" "exit status $rc (a crash?): $(head -c 300 "$tmp/$name.err" | tr "\n" " ")" ;;
    esac
    # A file that ends in a refused record: exit status 2 and its offset.
    offset=$(printf '%s\n' "$desc" | sed -n 's/.* at byte offset \([0-9][0-9]*\) .*libpcap refuses.*/\1/p')
    if [ -n "$offset" ]; then
        [ $rc = 2 ] || bad "$name" "exit status $rc, expected 2 (the file ends in a record libpcap refuses)"
        grep -q "byte offset ${offset}[^0-9]" "$tmp/$name.err" ||
            bad "$name" "stderr does not name byte offset $offset, where the refused record is: $(head -c 300 "$tmp/$name.err" | tr "\n" " ")"
    elif [ $rc = 2 ]; then
        bad "$name" "exit status 2 (unusable input): $(head -c 300 "$tmp/$name.err" | tr "\n" " ")"
    fi

    # 2. The JSON contract, and the finding ids.
    got=""
    if [ $rc = 124 ] || [ $rc = 137 ] || [ ! -s "$json" ]; then
        bad "$name" "no --json report"
    elif ! got=$($ids <"$json" 2>"$tmp/$name.ids"); then
        bad "$name" "--json breaks the contract: $(head -c 300 "$tmp/$name.ids" | tr "\n" " ")"
    else
        packets=$(summary "$json" packets)
        if grep -Eq '"severity":[[:space:]]*"error"' "$json"; then want_rc=1; else want_rc=0; fi
        [ -n "$offset" ] || [ $rc = "$want_rc" ] || [ $rc = 124 ] || [ $rc = 2 ] ||
            bad "$name" "exit status $rc, expected $want_rc"
    fi

    # 3. Memory.
    mib=$(echo "$rss" | awk '{ printf "%.1f", $1 / 1024 }')
    [ "$rss" -lt $rss_max_kib ] ||
        bad "$name" "peak RSS $mib MiB, over the documented $((rss_max_kib / 1024)) MiB"

    # 4. What each capture must provoke (required ids; "clean": its
    #    traffic breaks no rule, so an error-level finding is a false
    #    alarm; "not": ids it must not provoke).
    req="" clean=0 not=""
    [ "$packets" = - ] || case $name in
    flood-syn) req="MPA-CAP-LIMIT" clean=1 ;;
    flood-mpa)
        req="MPA-CAP-LIMIT" clean=1
        conn_check "$name" "$json" 192.0.2.10:40000 closed 0
        line=$(conns "$json" | awk '$1 == "192.0.2.10:40000"')
        [ "$(echo "$line" | wc -w)" = 3 ] || bad "$name" "the clean connection after the flood has findings: $line"
        ;;
    pdlen-claims)
        req="MPA-FRM-PDLEN-MAX MPA-FRM-PDLEN-MATCH"
        conn_check "$name" "$json" 192.0.2.10:40100 closed - MPA-FRM-PDLEN-MAX MPA-STA-INIT-FPDU-WAIT
        conn_check "$name" "$json" 192.0.2.10:40101 closed - MPA-FRM-PDLEN-MAX
        conn_check "$name" "$json" 192.0.2.10:40102 reset - MPA-FRM-PDLEN-MATCH
        conn_check "$name" "$json" 192.0.2.10:40103 closed - MPA-FRM-PDLEN-MATCH
        ;;
    seq-jumps)
        # Six stray segments out of the window, reported each; the one
        # octet back and the ACKs far ahead are no hole.
        req="MPA-CAP-UNREADABLE" clean=1 not="MPA-CAP-HOLE MPA-CAP-OVERLAP"
        conn_check "$name" "$json" 192.0.2.10:40200 closed 0
        n=$(conns "$json" | tr ' ' '\n' | grep -c '^MPA-CAP-UNREADABLE$')
        [ "$n" = 6 ] || bad "$name" "$n MPA-CAP-UNREADABLE findings, expected 6 (one per stray segment)"
        ;;
    endless-holes)
        req="MPA-CAP-HOLE MPA-CAP-RESYNC" clean=1
        conn_check "$name" "$json" 192.0.2.10:40300 closed 0 MPA-CAP-HOLE MPA-CAP-RESYNC
        ;;
    ooo-flood)
        req="MPA-CAP-LIMIT MPA-CAP-HOLE MPA-CAP-RESYNC" clean=1
        for k in 0 1 2 3 4 5 6 7; do
            conn_check "$name" "$json" 192.0.2.1$k:4040$k closed 0 MPA-CAP-LIMIT MPA-CAP-HOLE MPA-CAP-RESYNC
        done
        ;;
    garbage) req="MPA-CAP-UNREADABLE MPA-CAP-TRUNCATED" ;;
    tiny-snaplen)
        req="MPA-CAP-TRUNCATED" clean=1
        [ "$(summary "$json" truncated_packets)" = "$(summary "$json" packets)" ] ||
            bad "$name" "not every packet is reported cut"
        ;;
    pending-flood) req="MPA-CAP-LIMIT MPA-STA-INIT-FPDU-WAIT" ;;
    undecided-flood) req="MPA-CAP-LIMIT" clean=1 ;;
    findings-flood)
        req="MPA-CAP-LIMIT MPA-CRC-VALID MPA-FPD-PAD MPA-MRK-RES"
        [ "$(summary "$json" suppressed)" -gt 0 ] 2>/dev/null || bad "$name" "no finding suppressed"
        ;;
    tiny-segments)
        req="MPA-CAP-LIMIT MPA-CAP-HOLE MPA-STA-INIT-FPDU-WAIT"
        conn_check "$name" "$json" 192.0.2.11:40701 closed - MPA-CAP-LIMIT MPA-CAP-HOLE
        ;;
    term-flood)
        req="MPA-CAP-LIMIT MPA-TRM-LAST"
        n=$(grep -c '"layer":' "$json")
        [ "$n" -le 256 ] || bad "$name" "$n TERMINATE messages listed, at most 256 expected"
        ;;
    worst-case) req="MPA-CAP-LIMIT" ;;
    *) bad "$name" "no expectations: add them to scripts/audit-robust.sh" ;;
    esac
    if [ "$packets" != - ]; then
        for id in $req; do
            has "$got" "$id" || bad "$name" "$id is missing (the report has: $got)"
        done
        for id in $not; do
            has "$got" "$id" && bad "$name" "$id is reported, it must not be"
        done
        if [ $clean = 1 ] && [ "$(summary "$json" error)" != 0 ]; then
            bad "$name" "$(summary "$json" error) error-level findings for traffic that breaks no rule: $got"
        fi
    fi
    printf '%-22s %9.1f %9s %8s %9s %4s  %s\n' "$file" "$(echo "$size" | awk '{ print $1 / 1e6 }')" "$packets" \
        "$secs" "$mib" "$rc" "$verdict"
done <$dir/ADVERSARIAL.tsv
echo "audit-robust: $(($(date +%s) - total_t0)) s"
if [ $fail = 1 ]; then
    printf '%s' "$problems" | sed 's/^/audit-robust: FAIL /'
    exit 1
fi
echo "audit-robust: every capture passed"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Golden tests of the Wireshark plugin (build/dissector/iwmpa.so) loaded
# into the real tshark, over the reference captures (captures/).
#   scripts/plugin-golden.sh            check
#   scripts/plugin-golden.sh --update   rewrite dissector/tests/expected/; review the diff!
# For each capture of captures/MANIFEST.tsv (not the files that are not
# captures), run through scripts/tshark-iwmpa with the manifest's
# options (--port N becomes -o iwmpa.ports:N):
#  - `-T fields`, one line per frame (FIELDS below; of the expert infos
#    only ours, whose text starts with a requirement id), equals
#    dissector/tests/expected/NAME.fields; a non-zero exit status and
#    tshark's messages are part of that file;
#  - `-T json -J "iwmpa iwddp iwrdmap"`, reduced by build/iwjson to the
#    frames that have our layers, equals dissector/tests/expected/NAME.json;
#  - the set of iwmpa.finding values is the set of finding ids mpa-audit
#    reports for the connections of the same capture (its top-level
#    findings, such as a file cut short, are not about a connection, and
#    the plugin has none);
#  - on every frame, the iwmpa.finding values are the ids our expert
#    infos start with, in the same order;
#  - no "Dissector bug" on any frame, no "Malformed" on a frame our layers
#    decode.
# The goldens were made with Wireshark 4.0 (Debian 12, gold_ws below).
# With another Wireshark (scripts/plugin-matrix.sh runs this in Debian 13
# and unstable chroots) three things differ that are not ours, so:
#  - the header line is written from FIELDS (4.2 renamed _ws.col.Info to
#    _ws.col.info), and booleans are written 0/1 (4.2 prints True/False);
#  - tshark -T fields takes _ws.col.* before the postdissectors run
#    (4.2 and later), so there the Protocol and Info fields are TCP's:
#    they are left out of the comparison (both sides), and the columns
#    are checked instead in tshark's own summary lines (-T tabs), on the
#    frames where the golden shows ours;
#  - where a release's output of a capture still differs for a reason
#    not ours, dissector/tests/expected/X.Y/NAME.* holds that release's
#    golden (--update on that release writes only those that differ).
# Then: tshark lists the plugin (-G plugins); -z expert lists our expert
# infos by id; Decode As (-d tcp.port==5445,iwmpa) decodes a mid-stream
# capture; -o iwmpa.in_charge:FALSE gives the frames back to the
# built-in iwarp_mpa; display filters on iwmpa.crc.status and
# iwmpa.finding select exactly the frames mpa-audit names; tshark -2
# (a second, visited pass, as in the GUI) shows what one pass shows; on
# the SMB Direct and RPC-over-RDMA captures the protocols above DDP/RDMAP
# in frame.protocols are those tshark shows without the plugin; iwmpa,
# iwddp and iwrdmap are in frame.protocols; the built-ins' display
# filters select the frames they select without the plugin.
# PLUGIN_JOBS tshark runs at a time (default: the number of CPUs).
set -u
cd "$(dirname "$0")/.." || exit 2
ts=scripts/tshark-iwmpa
# The personal plugin folder, looked up once for all the runs below.
TSHARK_IWMPA_PLUGDIR=$($ts --plugdir) || exit 2
export TSHARK_IWMPA_PLUGDIR
audit=build/mpa-audit
iwjson=build/iwjson
exp=dissector/tests/expected
tab=$(printf '\t')
# The Wireshark the goldens were made with, and the one running here.
gold_ws=4.0
ws=$(tshark -v 2>/dev/null | sed -n '1s/.*(Wireshark) \([0-9]*\.[0-9]*\).*/\1/p')
ws=${ws:-unknown}
# Stable output: no name resolution (-n), times and dates in UTC, one locale.
export TZ=UTC LC_ALL=C.UTF-8

. dissector/tests/fields.sh
eargs=""
for f in $FIELDS; do eargs="$eargs -e $f"; done

# --run1 NAME FILE [TSHARK-OPTS...]: the two tshark runs of one capture,
# into $PG_OUT/NAME.* (run in parallel by xargs, below).
if [ "${1:-}" = "--run1" ]; then
    name=$2 file=$3
    shift 3
    o=$PG_OUT/$name
    # shellcheck disable=SC2086
    $ts -n -r - -T fields $eargs -E header=y -E separator='|' -E occurrence=a -E aggregator='~' "$@" \
        <"$file" >"$o.raw" 2>"$o.err"
    echo $? >"$o.rc"
    # (Without the built-in's hidden fields: the filters on them are
    # checked below, against tshark without the plugin.)
    $ts -n -r - -T json --no-duplicate-keys -J "iwmpa iwddp iwrdmap" -o iwmpa.compat_fields:FALSE "$@" \
        <"$file" >"$o.jraw" 2>"$o.jerr"
    echo $? >"$o.jrc"
    exit 0
fi

update=0
[ "${1:-}" = "--update" ] && update=1
# A known plugin bug turns a check into an expected failure: it is
# reported, not counted, and once it passes the script says to remove
# the mark.  None is marked now (twopass, a visited pass drawing FPDUs
# without their octets, was fixed: the first pass records where the
# payload is).
xfail_twopass=0
[ -n "${PLUGIN_XFAIL_TWOPASS:-}" ] && xfail_twopass=$PLUGIN_XFAIL_TWOPASS
pass=0
fail=0
xfail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "plugin-golden: $*"; }
xko() {
    xfail=$((xfail + 1))
    echo "plugin-golden: expected failure (known plugin bug): $*"
}
for x in "$ts" "$audit" "$iwjson" build/dissector/iwmpa.so; do
    [ -e "$x" ] || { echo "plugin-golden: $x missing (make plugin $audit $iwjson)"; exit 2; }
done
command -v tshark >/dev/null 2>&1 || { echo "plugin-golden: tshark missing (scripts/deps.sh)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$tmp/out"
PG_OUT=$tmp/out
export PG_OUT
jobs=${PLUGIN_JOBS:-$(nproc 2>/dev/null || echo 2)}

# fields RAW: tshark's -T fields output made readable and stable: values
# of one field joined by ",", only our expert infos (their text starts
# with a requirement id), joined by " ~ ".  Fails on a line that does
# not have one value per field.
nfields=$(echo "$FIELDS" | wc -w)
fields() {
    awk -F'|' -v n="$nfields" -v hdr="$(echo $FIELDS | tr ' ' '|')" 'BEGIN { OFS = "|" }
        NF != n { printf "plugin-golden: %d fields, not %d: %s\n", NF, n, $0 > "/dev/stderr"; bad = 1; next }
        NR == 1 { $0 = hdr; $n = "expert (iwmpa)"; print; next }
        {
            for (i = 1; i < n; i++) {
                gsub(/~/, ",", $i);
                if (i == 4 || i == 5 || $i !~ /True|False/) continue;
                k = split($i, v, ","); s = "";
                for (j = 1; j <= k; j++) s = s (j > 1 ? "," : "") (v[j] == "True" ? 1 : v[j] == "False" ? 0 : v[j]);
                $i = s
            }
            k = split($n, m, "~"); s = "";
            for (j = 1; j <= k; j++) if (m[j] ~ /^MPA-[A-Z0-9-]+: /) s = s (s == "" ? "" : " ~ ") m[j];
            $n = s; print
        }
        END { exit bad }' "$1"
}
# nocols FILE: the table without the Protocol and Info fields (columns
# 4 and 5), for a Wireshark whose -T fields takes them before our
# postdissector runs.
nocols() { awk -F'|' 'BEGIN { OFS = "|" } NR > 1 && NF > 5 { $4 = "-"; $5 = "-" } { print }' "$1"; }
# same KIND NAME OUT: OUT (a .fields or .json of capture NAME) matches its
# golden: this release's own (expected/X.Y/) when there is one, else the
# 4.0 one, without the column fields on another release.
golden_of() {
    if [ -f "$exp/$ws/$2.$1" ]; then echo "$exp/$ws/$2.$1"; else echo "$exp/$2.$1"; fi
}
same() {
    g=$(golden_of "$1" "$2")
    if [ "$ws" = "$gold_ws" ] || [ "$g" != "$exp/$2.$1" ] || [ "$1" = json ]; then
        cmp -s "$3" "$g"
    else
        nocols "$3" >"$3.nc"
        nocols "$g" >"$3.gnc"
        cmp -s "$3.nc" "$3.gnc"
    fi
}
# showdiff KIND NAME OUT: the start of what differs.
showdiff() {
    g=$(golden_of "$1" "$2")
    if [ "$ws" = "$gold_ws" ] || [ "$g" != "$exp/$2.$1" ] || [ "$1" = json ]; then
        diff -u "$g" "$3" | head -30
    else
        diff -u "$3.gnc" "$3.nc" | head -30
    fi
}
# col N FILE: the distinct values of column N (after the header), sorted, one line.
col() {
    awk -F'|' -v c="$1" 'NR > 1 && $c != "" { k = split($c, v, ","); for (i = 1; i <= k; i++) print v[i] }' "$2" |
        sort -u | tr '\n' ' ' | sed 's/ $//'
}
# idorder FILE: lines whose iwmpa.finding values are not the ids their
# expert infos start with.
idorder() {
    awk -F'|' -v n="$nfields" 'NR > 1 {
        k = split($n, m, " ~ "); ids = "";
        for (j = 1; j <= k; j++) { sub(/:.*/, "", m[j]); ids = ids (ids == "" ? "" : ",") m[j] }
        if (ids != $(n - 1)) print "frame " $1 ": iwmpa.finding \"" $(n - 1) "\", expert infos \"" ids "\""
    }' "$1"
}

# 1. Every capture: run tshark (in parallel), then compare.
: >"$tmp/list"
# shellcheck disable=SC2034
while IFS="$tab" read -r file link want desc opts; do
    [ -n "$file" ] || continue
    case $link in *"bad magic"* | "(empty)") continue ;; esac
    topts=""
    ports=""
    [ "$opts" = "-" ] && opts=""
    # shellcheck disable=SC2086
    set -- $opts
    while [ $# -gt 0 ]; do
        case $1 in
        --port) ports="$ports,$2"; shift 2 ;;
        *) ko "$file: manifest option '$1' has no tshark equivalent here (add it to plugin-golden.sh)"; shift ;;
        esac
    done
    [ -n "$ports" ] && topts=" -o iwmpa.ports:${ports#,}"
    # (no blank at the end of a line: xargs -L would join it with the next)
    printf '%s %s%s\n' "${file%.*}" "captures/$file" "$topts" >>"$tmp/list"
    printf '%s\t%s\t%s\n' "${file%.*}" "$file" "$opts" >>"$tmp/caps"
done <captures/MANIFEST.tsv
xargs -P "$jobs" -L 1 sh "$0" --run1 <"$tmp/list"

if [ $update = 1 ]; then
    if [ "$ws" = "$gold_ws" ]; then
        mkdir -p "$exp"
        rm -f "$exp"/*.fields "$exp"/*.json
    else
        rm -rf "${exp:?}/$ws"
    fi
fi
while IFS="$tab" read -r name file opts; do
    o=$tmp/out/$name
    rc=$(cat "$o.rc" 2>/dev/null || echo "?")
    jrc=$(cat "$o.jrc" 2>/dev/null || echo "?")
    # The table, then tshark's exit status and messages when there are any.
    if ! fields "$o.raw" >"$o.fields"; then ko "$file: -T fields output is not one value per field (above)"; fi
    [ "$rc" = 0 ] || echo "# tshark exit status $rc" >>"$o.fields"
    sed 's/^/# stderr: /' "$o.err" >>"$o.fields"
    if ! $iwjson tshark <"$o.jraw" >"$o.json" 2>"$o.jmsg"; then
        ko "$file: -T json output is not what iwjson reads: $(cat "$o.jmsg")"
    fi
    if [ $update = 1 ]; then
        if [ "$ws" = "$gold_ws" ]; then
            cp "$o.fields" "$exp/$name.fields"
            cp "$o.json" "$exp/$name.json"
        else
            for k in fields json; do
                same $k "$name" "$o.$k" || { mkdir -p "$exp/$ws"; cp "$o.$k" "$exp/$ws/$name.$k"; }
            done
        fi
        continue
    fi
    for k in fields json; do
        if same $k "$name" "$o.$k"; then ok; else
            ko "$file: -T $k differs from $(golden_of $k "$name"):"
            showdiff $k "$name" "$o.$k"
        fi
    done
    if [ "$jrc" = "$rc" ] && cmp -s "$o.err" "$o.jerr"; then ok; else
        ko "$file: -T json exit status $jrc ($(head -c 200 "$o.jerr")), -T fields $rc ($(head -c 200 "$o.err"))"
    fi
    # The same findings as mpa-audit's, per connection.
    got=$(col $((nfields - 1)) "$o.fields")
    got=${got:--}
    # shellcheck disable=SC2086
    want=$($audit --json --no-timing $opts "captures/$file" 2>/dev/null | $iwjson conn-ids)
    if [ "$got" = "$want" ]; then ok; else
        ko "$file: iwmpa.finding values '$got', mpa-audit's connections have '$want'"; fi
    bad=$(idorder "$o.fields")
    if [ -z "$bad" ]; then ok; else ko "$file: findings and expert infos disagree: $bad"; fi
    # No dissector bug anywhere, and no malformed packet on a frame our
    # layers decode (the Protocol column ours, or any of our fields):
    # tshark's own messages, which the table above leaves out.
    bad=$(awk -F'|' -v n="$nfields" 'function ours(  i) {
            if ($4 ~ /^iWARP/) return 1;
            for (i = 6; i < n; i++) if ($i != "") return 1;
            return $3 != ""
        }
        NR > 1 && ($n ~ /Dissector bug/ || ($n ~ /Malformed/ && ours())) { print "frame " $1 ": " substr($n, 1, 200) }' "$o.raw")
    if [ -z "$bad" ]; then ok; else ko "$file: dissector bug or malformed packet: $bad"; fi
done <"$tmp/caps"

# The statistics (iwmpa-tap.c): -z iwmpa,conv and -z iwmpa,findings on
# three captures equal expected/NAME.stats, and tshark -2 (a second,
# visited pass, the one tshark taps then) prints the same tables: each
# FPDU and finding is counted once, from the first pass.  Seen failing
# with the tap counting every drawing of a frame (-2 twice the counts)
# and with CRC errors counted on good FPDUs (the golden).
mkdir -p "$tmp/zpub"
chmod 755 "$tmp" "$tmp/zpub"
for name in interop-demo reuse-4tuple scen-qrk-leg-irdord-swapped; do
    f=$(find captures -maxdepth 1 -name "$name.pcap*" | head -n 1)
    cp "$f" "$tmp/zpub/"
    chmod 644 "$tmp/zpub/$(basename "$f")"
    for p in 1 2; do
        o=""
        [ $p = 2 ] && o=-2
        # shellcheck disable=SC2086
        $ts -n -q $o -r "$tmp/zpub/$(basename "$f")" -z iwmpa,conv -z iwmpa,findings >"$tmp/z$p.$name" 2>&1
        echo "# tshark exit status $?" >>"$tmp/z$p.$name"
    done
    g=$exp/$name.stats
    [ -f "$exp/$ws/$name.stats" ] && g=$exp/$ws/$name.stats
    if [ $update = 1 ]; then
        if [ "$ws" = "$gold_ws" ]; then cp "$tmp/z1.$name" "$exp/$name.stats"; elif ! cmp -s "$tmp/z1.$name" "$exp/$name.stats"; then
            mkdir -p "$exp/$ws"
            cp "$tmp/z1.$name" "$exp/$ws/$name.stats"
        fi
        continue
    fi
    if cmp -s "$tmp/z1.$name" "$g" && grep -q '^iWARP MPA Connections$' "$g"; then ok; else
        ko "$f: -z iwmpa,conv -z iwmpa,findings differ from $g:"
        diff -u "$g" "$tmp/z1.$name" | head -20
    fi
    if cmp -s "$tmp/z1.$name" "$tmp/z2.$name"; then ok; else
        ko "$f: -z iwmpa,conv -z iwmpa,findings with tshark -2 differ from one pass:"
        diff -u "$tmp/z1.$name" "$tmp/z2.$name" | head -20
    fi
done

if [ $update = 1 ]; then
    if [ "$ws" = "$gold_ws" ]; then echo "plugin-golden: rewrote $exp/: review the diff"; else
        echo "plugin-golden: Wireshark $ws: wrote $exp/$ws/ where its output differs ($(ls "$exp/$ws" 2>/dev/null | wc -l) files): review them"
    fi
    exit 0
fi

# 2. The checks that need options of their own.
# run OUT TSHARK-ARGS... < capture: tshark with the plugin, stdout to OUT.
run() {
    out=$1
    shift
    $ts -n -r - "$@" >"$out" 2>"$tmp/run.err"
}
demo=captures/interop-demo.pcapng
mid=captures/midstream-markers.pcap

# It is loaded.
$ts -G plugins >"$tmp/plugins" 2>&1
if grep -Eq "^iwmpa\.so[[:space:]]+[0-9.]+[[:space:]]+dissector" "$tmp/plugins"; then ok; else
    ko "tshark -G plugins does not list iwmpa.so: $(head -c 300 "$tmp/plugins")"; fi

# -z expert: every id mpa-audit finds in the demo, as one of our expert infos.
run "$tmp/expert" -q -z expert <"$demo"
missing=""
for id in $($audit --json --no-timing "$demo" 2>/dev/null | $iwjson conn-ids); do
    grep -Eq "[[:space:]]iWARP-MPA[[:space:]]+$id: " "$tmp/expert" || missing="$missing $id"
done
if [ -z "$missing" ] && grep -q "iWARP-MPA" "$tmp/expert"; then ok; else
    ko "-z expert on $demo lacks our expert infos:$missing"; fi

# -z expert groups the instances of one id: the expert info's text is
# the rule's (fixed per id), the instance values are iwmpa.finding.detail.
# A capture with three MPA-CRC-VALID findings of different values: one
# line per id, its frequency mpa-audit's count.
grp=captures/scen-markers-extra.pcap
run "$tmp/expert2" -q -z expert <"$grp"
bad=""
for id in $($audit --json --no-timing "$grp" 2>/dev/null | $iwjson conn-ids); do
    want=$($audit --json --no-timing "$grp" 2>/dev/null | grep -c "\"id\":[[:space:]]*\"$id\"")
    got=$(grep -E "[[:space:]]iWARP-MPA[[:space:]]+$id: " "$tmp/expert2" | awk '{ print $1 }' | tr '\n' ' ')
    [ "$got" = "$want " ] || bad="$bad $id:'$got'(want $want)"
done
if [ -z "$bad" ] && grep -q "iWARP-MPA" "$tmp/expert2"; then ok; else
    ko "-z expert on $grp does not group each id on one line:$bad"; fi

# Decode As: a capture that starts mid-stream on port 5445, without the
# ports preference: nothing without -d, the mid-stream findings with it.
run "$tmp/da0" -T fields -e iwmpa.finding <"$mid"
if [ -s "$tmp/da0" ] && [ -z "$(tr -d '\n' <"$tmp/da0")" ]; then ok; else
    ko "$mid without Decode As or ports: iwmpa findings '$(sort -u "$tmp/da0" | tr '\n' ' ')'"; fi
run "$tmp/da1" -d tcp.port==5445,iwmpa -T fields -e iwmpa.finding -E occurrence=a -E aggregator=, <"$mid"
got=$(tr ',' '\n' <"$tmp/da1" | sed '/^$/d' | sort -u | tr '\n' ' ' | sed 's/ $//')
if printf ' %s ' "$got" | grep -q ' MPA-CAP-MIDSTREAM ' && printf ' %s ' "$got" | grep -q ' MPA-CAP-RESYNC '; then
    ok
else
    ko "$mid with -d tcp.port==5445,iwmpa: findings '$got', wanted MPA-CAP-MIDSTREAM and MPA-CAP-RESYNC"
fi
run "$tmp/da2" -d tcp.port==5445,iwmpa -Y 'iwmpa.fpdu' <"$mid"
n=$(grep -c . "$tmp/da2")
if [ "$n" -gt 0 ]; then ok; else ko "$mid with -d tcp.port==5445,iwmpa: no frame with an FPDU"; fi

# in_charge: on by default (the built-in iwarp_mpa decodes nothing: it is
# no layer of any frame); off, no iwmpa field anywhere and the built-in
# decodes again.
plain=captures/scen-clean-plain.pcap
run "$tmp/ic1" -Y 'frame.protocols contains "iwarp_mpa"' <"$plain"
n1=$(grep -c . "$tmp/ic1")
run "$tmp/ic2" -o iwmpa.in_charge:FALSE -Y iwarp_mpa <"$plain"
n2=$(grep -c . "$tmp/ic2")
run "$tmp/ic3" -o iwmpa.in_charge:FALSE -T fields -e iwmpa.direction -e iwmpa.key_kind -e iwmpa.ulpdu_length \
    -e iwmpa.finding -e iwddp.t -e iwrdmap.opcode -e iwmpa.conv <"$plain"
n3=$(tr -d '\t\n' <"$tmp/ic3" | wc -c)
run "$tmp/ic4" -Y iwmpa <"$plain"
n4=$(grep -c . "$tmp/ic4")
if [ "$n1" = 0 ] && [ "$n2" -gt 0 ] && [ "$n3" = 0 ] && [ "$n4" -gt 0 ]; then ok; else
    ko "in_charge on $plain: iwarp_mpa frames $n1 (want 0) with it on, $n2 (want > 0) off;" \
        "iwmpa frames $n4 (want > 0) on, $n3 octets of iwmpa fields (want 0) off"
fi

# Without the plugin: tshark with a private HOME holding no plugin (as
# root Wireshark loads no personal plugin anyway).
mkdir -p "$tmp/noplug"
noplug() { HOME=$tmp/noplug tshark -n "$@" 2>/dev/null; }

# The upper layers: on each capture of SMB Direct and RPC-over-RDMA, the
# frames where Wireshark's own iWARP dissectors hand a payload to an upper
# layer show, with the plugin, the same protocols above DDP/RDMAP in
# frame.protocols (the reference is computed here, without the plugin,
# on the running release), below them iwmpa:iwddp:iwrdmap.  Port 445 is
# NBSS's: there the built-in is reached only with TCP's heuristics first.
# Seen failing: without the hand-off (no upper protocol) and with an
# upper layer's columns overwritten (the Info check below).
for spec in "ulp-smb-direct.pcap smb_direct -o tcp.try_heuristic_first:TRUE" "ulp-rpcrdma.pcap rpcordma"; do
    # shellcheck disable=SC2086
    set -- $spec
    f=captures/$1 want=$2
    shift 2
    noplug -r "$f" "$@" -T fields -e frame.number -e frame.protocols -e _ws.col.Protocol >"$tmp/ulp.ref"
    run "$tmp/ulp.got" -T fields -e frame.number -e frame.protocols -e _ws.col.Protocol <"$f"
    bad=$(awk -F'\t' 'NR == FNR { if ($2 ~ /:iwarp_ddp_rdmap:/) { u = $2; sub(/.*:iwarp_ddp_rdmap:/, "", u); ref[$1] = u; col[$1] = $3; n++ }; next }
        ($1 in ref) { g = $2; seen++
            if (g !~ /:iwmpa:iwddp:iwrdmap:/) { print "frame " $1 ": " g; bad = 1; exit }
            sub(/.*:iwmpa:iwddp:iwrdmap:/, "", g)
            if (g != ref[$1] || $3 != col[$1]) { print "frame " $1 ": " g " (" $3 "), without the plugin " ref[$1] " (" col[$1] ")"; bad = 1; exit } }
        END { if (!bad && (!n || seen != n)) print "no upper layer in the reference (" n ") or frames missing (" seen ")" }' "$tmp/ulp.ref" "$tmp/ulp.got")
    if [ -z "$bad" ] && grep -q ":$want" "$tmp/ulp.ref"; then ok; else
        ko "$f: the upper layers with the plugin are not those without it: $bad"; fi
done

# Our layers are layers: on every frame where the golden shows an FPDU
# (or startup frame) drawn from its own payload, frame.protocols names
# iwmpa, and iwddp:iwrdmap where the golden has a DDP header.
f=captures/clean-markers-both.pcap
run "$tmp/lay" -T fields -e frame.number -e frame.protocols -e iwmpa.fpdu.index -e iwddp.t <"$f"
bad=$(awk -F'\t' '$3 != "" && $2 !~ /:iwmpa(:|$)/ { print "frame " $1 ": " $2; exit }
    $4 != "" && $2 !~ /:iwmpa:iwddp:iwrdmap/ { print "frame " $1 ": " $2; exit }' "$tmp/lay")
n=$(awk -F'\t' '$4 != ""' "$tmp/lay" | wc -l)
if [ -z "$bad" ] && [ "$n" -gt 10 ]; then ok; else ko "$f: iwmpa/iwddp/iwrdmap not in frame.protocols: $bad ($n FPDU frames)"; fi

# A Request on a port another dissector owns (445: NBSS) is a layer too:
# the probe TCP offers every connection whose SYN was seen takes the
# startup frames before the port's dissector, and declines the rest, so
# every frame without iwmpa shows the protocols it shows without the
# plugin (HTTP, DNS, ... in the same capture).  Seen failing before the
# probe (frame 7 "tcp:nbss") and with a probe that took every segment.
# The same without the SYNs (a capture that begins after the
# connections opened): the probe is then set on the first frame of each
# connection the plugin follows.  Seen failing (frame 2 "tcp:nbss") with
# the probe set on SYNs only.
noplug -r captures/mixed-445.pcap -Y 'tcp.flags.syn == 0' -w "$tmp/mixed-445-nosyn.pcap"
for f in captures/mixed-445.pcap "$tmp/mixed-445-nosyn.pcap"; do
    noplug -r "$f" -T fields -e frame.number -e frame.protocols >"$tmp/pr.ref"
    run "$tmp/pr.got" -T fields -e frame.number -e frame.protocols -e iwmpa.key_kind <"$f"
    bad=$(awk -F'\t' 'NR == FNR { ref[$1] = $2; next }
        $3 ~ /Request/ { req++; if ($2 !~ /:tcp:iwmpa$/) { print "frame " $1 ": " $2; exit } }
        $2 !~ /iwmpa/ && $2 != ref[$1] { print "frame " $1 ": " $2 ", without the plugin " ref[$1]; exit }
        END { if (!req) print "no Request" }' "$tmp/pr.ref" "$tmp/pr.got")
    if [ -z "$bad" ] && grep -q ':http' "$tmp/pr.got"; then ok; else
        ko "$(basename "$f"): the Request on 445 is not an iwmpa layer, or other frames changed: $bad"; fi
done

# The built-ins' display filters (iwarp_mpa.*, iwarp_ddp.*, iwarp_rdma.*)
# select with the plugin (which turns the built-ins off and fills their
# fields) the frames they select without it.  Seen failing with
# compat_fields off, and on iwarp_mpa.crc_check before it was read as the
# built-in reads it.
: >"$tmp/cf.list"
for f in captures/clean-markers-both.pcap captures/scen-crc-bad.pcap captures/ulp-rpcrdma.pcap; do
    for flt in 'iwarp_mpa' 'iwarp_mpa.req && iwarp_mpa.marker_flag == 1' 'iwarp_mpa.rep && iwarp_mpa.crc_flag == 1' \
        'iwarp_mpa.ulpdulength > 100' 'iwarp_mpa.crc_check == 0x784b5e25 || iwarp_mpa.marker_fpduptr == 0' \
        'iwarp_ddp.tagged_flag == 1 && iwarp_rdma.opcode == 0' 'iwarp_ddp_rdmap && iwarp_ddp.msn == 2' \
        'iwarp_rdma.sinkstag || iwarp_ddp.tagged_offset > 0x7f3a00020000'; do
        printf '%s\t%s\n' "$f" "$flt" >>"$tmp/cf.list"
    done
done
i=0
nonempty=0
while IFS="$tab" read -r f flt; do
    i=$((i + 1))
    noplug -r "$f" -Y "$flt" -T fields -e frame.number >"$tmp/cf.$i.ref" &
    run "$tmp/cf.$i.got" -Y "$flt" -T fields -e frame.number <"$f"
    wait
    [ -s "$tmp/cf.$i.ref" ] && nonempty=$((nonempty + 1))
    if cmp -s "$tmp/cf.$i.ref" "$tmp/cf.$i.got"; then ok; else
        ko "$f: -Y '$flt' selects frames '$(tr '\n' ' ' <"$tmp/cf.$i.got")' with the plugin," \
            "'$(tr '\n' ' ' <"$tmp/cf.$i.ref")' without it"
    fi
done <"$tmp/cf.list"
if [ "$nonempty" -ge 12 ]; then ok; else ko "the built-ins' filters select frames in only $nonempty runs of $i"; fi

# The built-ins' fields asked for with -e alone (no filter names them):
# on every frame each carries the value of the plugin's own field.  The
# plugin leaves them out where nothing asks for them, so this is what
# says -e counts as asking (from 4.2 on tshark fakes what -e does not
# name).  Seen failing with the built-ins' fields never made.
for f in captures/clean-markers-both.pcap "$demo"; do
    run "$tmp/ce.got" -T fields -e iwarp_mpa.ulpdulength -e iwmpa.ulpdu_length -e iwarp_ddp.msn -e iwddp.msn <"$f"
    bad=$(awk -F'\t' '$1 != $2 || $3 != $4 { print "frame " NR ": " $0; exit } $1 != "" { n++ }
        END { if (n < 5) print "only " n + 0 " frames with a value" }' "$tmp/ce.got")
    if [ -z "$bad" ]; then ok; else ko "$(basename "$f"): -e of the built-ins' fields: $bad"; fi
done

# Display filters select exactly the frames mpa-audit names.
for f in captures/scen-crc-bad.pcap "$demo" captures/reuse-4tuple.pcap; do
    want=$($audit --json --no-timing "$f" 2>/dev/null | $iwjson frames MPA-CRC-VALID)
    for filter in 'iwmpa.crc.status == 0' 'iwmpa.finding == "MPA-CRC-VALID"'; do
        run "$tmp/df" -Y "$filter" -T fields -e frame.number <"$f"
        got=$(tr '\n' ' ' <"$tmp/df" | sed 's/ $//')
        got=${got:--}
        if [ "$got" = "$want" ] && [ "$want" != "-" ]; then ok; else
            ko "$f: -Y '$filter' selects frames '$got', mpa-audit's MPA-CRC-VALID is in '$want'"; fi
    done
done

# The Protocol and Info columns, as tshark's summary lines show them
# (-T tabs: the columns after every dissector, ours included), equal the
# golden's on every frame where the golden shows ours (on any release:
# the frames TCP keeps may be described differently by another one).
# Seen failing on 4.4 before TCP's notes were left out.
for name in scen-clean-plain interop-demo scen-crc-bad reorder loss-markers; do
    f=$(find captures -maxdepth 1 -name "$name.pcap*" | head -n 1)
    run "$tmp/cols" -T tabs -o 'gui.column.format:"No.","%m","Protocol","%p","Info","%i"' <"$f"
    # (TCP's analysis notes, "[TCP ...] ", which TCP puts before ours and
    # which differ between releases, are left out.)
    bad=$(awk -F'|' 'NR == FNR { if (FNR > 1 && $4 ~ /^iWARP/) { gsub(/\[TCP [^]]*\] /, "", $5); want[$1] = $4 "|" $5 }; next }
        { sub(/^ +/, ""); split($0, c, "\t"); gsub(/\[TCP [^]]*\] /, "", c[3]); got[c[1]] = c[2] "|" c[3] }
        END { for (k in want) if (got[k] != want[k]) { print "frame " k ": \"" got[k] "\", golden \"" want[k] "\""; exit } }' \
        "$(golden_of fields "$name")" "$tmp/cols")
    n=$(awk -F'|' 'FNR > 1 && $4 ~ /^iWARP/' "$(golden_of fields "$name")" | wc -l)
    if [ -z "$bad" ] && [ "$n" -gt 0 ]; then ok; else
        ko "$f: the summary's Protocol and Info columns are not the golden's ($n frames of ours): $bad"; fi
done

# Two passes (tshark -2: the second pass is a visited one, as in the GUI)
# show what one pass shows.  -2 needs a file it can seek in, readable by
# the user the wrapper runs tshark as.
mkdir -p "$tmp/pub"
chmod 755 "$tmp" "$tmp/pub"
# (Not over IP fragments: there IP's own Info column differs in -2.)
for name in scen-crc-bad interop-demo loss-markers reorder wrap-markers scen-cap-hole-acked; do
    f=$(find captures -maxdepth 1 -name "$name.pcap*" | head -n 1)
    cp "$f" "$tmp/pub/"
    chmod 644 "$tmp/pub/$(basename "$f")"
    # shellcheck disable=SC2086
    $ts -n -2 -r "$tmp/pub/$(basename "$f")" -T fields $eargs -E header=y -E separator='|' -E occurrence=a \
        -E aggregator='~' >"$tmp/2p.raw" 2>"$tmp/2p.err"
    fields "$tmp/2p.raw" >"$tmp/2p.fields"
    sed 's/^/# stderr: /' "$tmp/2p.err" >>"$tmp/2p.fields"
    if same fields "$name" "$tmp/2p.fields"; then
        if [ "$xfail_twopass" = 1 ]; then
            ko "$f: tshark -2 now shows what one pass shows: set xfail_twopass=0 in $0"
        else ok; fi
    else
        msg="$f: tshark -2 differs from one pass ($(golden_of fields "$name")):"
        if [ "$xfail_twopass" = 1 ]; then xko "$msg"; else ko "$msg"; fi
        showdiff fields "$name" "$tmp/2p.fields" | head -12
    fi
done

x=""
[ $xfail = 0 ] || x=", $xfail expected failures (known plugin bugs)"
echo "plugin-golden: $pass passed, $fail failed$x"
[ $fail = 0 ]

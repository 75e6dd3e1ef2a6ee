#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mpa-conform's HTML report (conformance/conform/html.c) made from the
# checked-in fixture (tests/conform/fixture/report.json and its traces,
# from real mpa-inject runs: see fixture/regen.sh) by htmlgen, then:
#
#   static    one document (<!DOCTYPE, one <html>, <head>, <body>); <svg>
#             and </svg> balance, one ladder per test that ran, each
#             well-formed XML (xmllint, when there); nothing
#             fetched from the network (no http(s):// or // in src/href,
#             no <link>, <img>, <iframe>, @import, url()); every test id
#             in the table and as a section; the summary's counts and the
#             result banner; each trace's data: URI decodes (base64 -d) to
#             the fixture's file, byte for byte (cmp); the fixture's HTML
#             in texts comes out escaped, never as markup; the deviation
#             in the ladder (the failing step red with its reason, the
#             steps after it greyed, the error step in the error colour);
#             the same input gives the same bytes.
#   bad       reports that break the contract (not an object, wrong types,
#             unknown verdicts and verbs, bad UTF-8, control characters,
#             a missing, oversized or unreadable trace, 1e999, not JSON):
#             no crash under ASan+UBSan, a whole page, valid UTF-8, and
#             the problem said in the page.
#   browser   Debian's chromium, headless: --dump-dom has every test id,
#             one <svg> per ladder, one <script>, the nasty texts as text,
#             and the filter bar (the script ran); its "fail" button hides
#             every test but the failed ones; --screenshot writes a
#             1280x2400 PNG over 20 KB, kept at build/conform/report.png.
#   reqviews  a whole mpa-conform report (fixture/conform-report.json:
#             mpa-peer with a-not-echoed) through htmlgen: the "At a
#             glance" section names the device, the notes (escaped) and
#             links every MUST failure of the report's overview to its
#             coverage row; the coverage table has one row per coverage
#             entry, in the report's order (MUSTs first), each failed one
#             saying where; every test that shows a requirement broken
#             says it in words in the tests table ("Reply A=0, Request
#             A=1: MPA-ENH-A-ECHO"); the banner counts the skips by
#             cause; in chromium, the sections come glance, coverage,
#             tests and every link of the glance lands on a row.
#   mutants   every static check, and the browser's DOM and screenshot
#             checks, run on a copy of the page broken for it (a second
#             <html>, a lost </svg>, an https image, a lost id, one base64
#             character, unescaped markup, the red gone, a blank page)
#             must fail: a check that cannot fail proves nothing.
#
#   tests/conform/html-test.sh [--quick]     --quick: no mutants
# HTMLGEN overrides the program (default build/htmlgen-asan), JGET the
# JSON reader (build/jget), CHROMIUM the browser (default chromium).
# Exit 0 pass, 1 fail, 2 cannot run.
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 2
gen=${HTMLGEN:-build/htmlgen-asan}
jget=${JGET:-build/jget}
browser=${CHROMIUM:-chromium}
fx=tests/conform/fixture
out=build/conform/report.html
png=build/conform/report.png
quick=0
[ "${1:-}" = --quick ] && quick=1
[ -x "$gen" ] || { echo "html-test: $gen missing (make $gen)"; exit 2; }
[ -x "$jget" ] || { echo "html-test: $jget missing (make $jget)"; exit 2; }
for t in base64 cmp iconv timeout perl; do
    command -v $t >/dev/null || { echo "html-test: needs $t"; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "  ok    $*"; }
ko() { fail=$((fail + 1)); echo "  FAIL  $*"; }

# ---- what the fixture holds -------------------------------------------------
# (read with build/jget; "<missing>" stands for an absent key)
rep=$fx/report.json
ntests=$($jget $rep tests.#) || { echo "html-test: $rep unreadable"; exit 2; }
ids="" nrun=0 ntraces=0 failid="" faili=0 errid="" nf=0
declare -A trace count
count=([pass]=0 [fail]=0 [error]=0 [skip]=0)
for ((i = 0; i < ntests; i++)); do
    mapfile -t v < <($jget $rep tests.$i.id tests.$i.verdict tests.$i.trace tests.$i.decided_at_step)
    ids+=" ${v[0]}"
    count[${v[1]}]=$((count[${v[1]}] + 1))
    [ "${v[1]}" != skip ] && nrun=$((nrun + 1))
    [ "${v[2]}" != "<missing>" ] && { trace[${v[0]}]=${v[2]}; ntraces=$((ntraces + 1)); }
    [ "${v[1]}" = fail ] && [ "${v[3]}" != "<missing>" ] && [ -z "$failid" ] && { failid=${v[0]}; faili=$i; }
    [ "${v[1]}" = error ] && [ -z "$errid" ] && errid=${v[0]}
done
nf=${count[fail]}

mkdir -p build/conform
echo "html-test: $gen $fx/report.json $out ($ntests tests, $nrun run, $ntraces traces)"
if ! $gen $fx/report.json $out; then
    echo "html-test: FAIL: $gen exited $?"
    exit 1
fi

# The text of the section of test $2 in page $1.
section() { awk -v id="id=\"$2\"" 'index($0, "<section class=\"test") && index($0, id) { on = 1 }
                                     on { print } on && /<\/section>/ { exit }' "$1"; }
count() { grep -o -- "$1" "$2" | wc -l; }

# ---- static checks: each prints one line, returns 1 when it fails ----------
chk_doc() {
    local f=$1 h he
    h=$(count '<html' "$f")
    he=$(count '</html>' "$f")
    if head -c 15 "$f" | grep -q '^<!DOCTYPE html>' && [ "$h" = 1 ] && [ "$he" = 1 ] &&
        [ "$(count '<head>' "$f")" = 1 ] && [ "$(count '<body>' "$f")" = 1 ] && [ "$(count '</body>' "$f")" = 1 ]; then
        ok "doc: <!DOCTYPE html>, one <html>, <head>, <body>"
    else
        ko "doc: <html $h, </html> $he, <head> $(count '<head>' "$f"), <body> $(count '<body>' "$f")"
        return 1
    fi
}
chk_svg() {
    local f=$1 o c
    o=$(count '<svg' "$f")
    c=$(count '</svg>' "$f")
    if [ "$o" = "$c" ] && [ "$o" = "$nrun" ]; then
        ok "svg: $o <svg> and $c </svg>, one per test that ran ($nrun)"
    else
        ko "svg: $o <svg>, $c </svg>, expected $nrun of each"
        return 1
    fi
}
chk_svgxml() {
    local f=$1 n=0 bad=""
    if ! command -v xmllint > /dev/null; then
        ok "svg-xml: skipped (no xmllint: apt-get install libxml2-utils)"
        return 0
    fi
    rm -rf $tmp/svgs
    mkdir -p $tmp/svgs
    perl -0777 -ne 'my $i = 0; while (/(<svg\b.*?<\/svg>)/gs) { $i++; open(my $o, ">", "'$tmp'/svgs/$i.svg");
                    my $s = $1; $s =~ s/<svg\b/<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/; print $o $s; }' "$f"
    local s
    for s in $tmp/svgs/*.svg; do
        [ -e "$s" ] || continue
        if xmllint --noout "$s" 2> $tmp/xmllint.err; then n=$((n + 1)); else bad+=" $(basename "$s"): $(head -1 $tmp/xmllint.err)"; fi
    done
    if [ -z "$bad" ] && [ "$n" = "$nrun" ]; then
        ok "svg-xml: each of the $n ladders is well-formed XML (xmllint)"
    else
        ko "svg-xml: $n of $nrun well-formed;$bad"
        return 1
    fi
}
chk_offline() {
    local f=$1 bad
    bad=$(grep -o -i -E "(src|href|xlink:href|action|poster|data)[[:space:]]*=[[:space:]]*[\"']?[[:space:]]*(https?:)?//[^\"' >]*" "$f" | head -3)
    bad+=$(grep -o -i -E '<(link|img|iframe|object|embed|base|audio|video|source)[[:space:] >]|@import|url\(' "$f" | head -3)
    bad+=$(grep -o -i -E '<script[^>]*src' "$f" | head -3)
    if [ -z "$bad" ]; then
        ok "offline: no http(s):// or // in src/href, no <link>/<img>/<iframe>/@import/url(), no <script src>"
    else
        ko "offline: external references: $(echo "$bad" | head -c 200)"
        return 1
    fi
}
chk_ids() {
    local f=$1 miss=""
    for id in $ids; do
        grep -qF "<a href=\"#$id\"><code>$id</code></a>" "$f" && grep -qF "id=\"$id\" data-verdict=" "$f" ||
            miss+=" $id"
    done
    if [ -z "$miss" ]; then
        ok "ids: all $ntests test ids in the table and as sections"
    else
        ko "ids: missing:$miss"
        return 1
    fi
}
chk_summary() {
    local f=$1 t p fl e s
    t=$ntests p=${count[pass]} fl=${count[fail]} e=${count[error]} s=${count[skip]}
    local row
    row=$(grep -o '<tr><th>All</th>.*</tr>' "$f" | head -1 | sed 's/<[^>]*>/ /g' | tr -s ' ')
    if [ "$row" = " All $t $p $fl $e $s " ] && grep -q 'class="banner b-fail"' "$f" &&
        grep -q 'FAIL: the device does not conform' "$f"; then
        ok "summary: All $t = $p pass $fl fail $e error $s skip; banner FAIL"
    else
        ko "summary: row \"$row\", expected \" All $t $p $fl $e $s \", or no FAIL banner"
        return 1
    fi
}
chk_traces() {
    local f=$1 n=0 bad=""
    for id in "${!trace[@]}"; do
        local tr=$fx/${trace[$id]}
        grep -o "download=\"$id.pcapng\" href=\"data:application/vnd.tcpdump.pcap;base64,[A-Za-z0-9+/=]*\"" "$f" |
            head -1 | sed 's/.*base64,//; s/"$//' > $tmp/b64
        if [ -s $tmp/b64 ] && base64 -d $tmp/b64 > $tmp/trace 2>/dev/null && cmp -s $tmp/trace "$tr"; then
            n=$((n + 1))
        else
            bad+=" $id"
        fi
    done
    local uris
    uris=$(count 'href="data:application/vnd.tcpdump.pcap;base64,' "$f")
    if [ -z "$bad" ] && [ "$n" = "$ntraces" ] && [ "$uris" = "$ntraces" ]; then
        ok "traces: $n data: URIs decode to the fixture's pcapng files byte for byte"
    else
        ko "traces: $n of $ntraces decode to the file ($uris data: URIs); wrong:$bad"
        return 1
    fi
}
chk_escape() {
    local f=$1 raw=""
    # what the fixture's texts hold, as markup, must not be in the page
    for s in '<script>alert' '<b>markup' '</td></tr></table><script>' '<note>' '<tags>' 'c>d </svg>' "html<quirk>"; do
        grep -qF -- "$s" "$f" && raw+=" [$s]"
    done
    local sc
    sc=$(count '<script' "$f")
    # and their escaped forms must be
    local esc=0
    for s in '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;' \
             'A quirk text with &lt;b&gt;markup&lt;/b&gt;, an &amp; and &quot;quotes&quot;' \
             'Problems: &lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;script&gt;alert(1)&lt;/script&gt;' \
             'a &lt;note&gt; with &amp; and &quot;quotes&quot;' \
             'PD &quot;a&lt;b &amp; c&gt;d &lt;/svg&gt;&quot;' \
             '&quot;private_data&quot;:&quot;a&lt;b &amp; c&gt;d &lt;/svg&gt;&quot;'; do
        grep -qF -- "$s" "$f" && esc=$((esc + 1))
    done
    if [ -z "$raw" ] && [ "$sc" = 1 ] && [ "$esc" = 6 ]; then
        ok "escape: the fixture's markup, quotes and & are text (6 escaped forms found, one <script>)"
    else
        ko "escape: raw:$raw; <script> $sc times; $esc of 6 escaped forms"
        return 1
    fi
}
chk_ladder() {
    local f=$1 s e nd
    s=$(section "$f" "$failid")
    e=$(section "$f" "$errid")
    nd=0
    local k ns
    ns=$($jget $rep tests.$faili.steps.#)
    for ((k = 0; k < ns; k++)); do
        [ "$($jget $rep tests.$faili.steps.$k.verdict)" = "not run" ] && nd=$((nd + 1))
    done
    local red
    red=$(grep -o '<g class="sf">' <<< "$s" | wc -l)
    local grey
    grey=$(grep -o '<g class="sn">' <<< "$s" | wc -l)
    local box
    box=$(grep -c 'class="rbox"' <<< "$s")
    local why
    why=$(grep -c 'class="rh">a is 0, expected 1<' <<< "$s")
    local err
    err=$(grep -o '<g class="se">' <<< "$e" | wc -l)
    if [ "$red" = 1 ] && [ "$grey" = "$nd" ] && [ "$box" = 1 ] && [ "$why" = 1 ] && [ "$err" = 1 ]; then
        ok "ladder: $failid: one step red with its reason box (a is 0, expected 1), $grey not-run steps grey; $errid: its step in the error colour"
    else
        ko "ladder: $failid: red $red (1), grey $grey ($nd), box $box, reason $why; $errid: error-coloured $err (1)"
        return 1
    fi
}
static_checks() {
    local f=$1 r=0
    chk_doc "$f" || r=1
    chk_svg "$f" || r=1
    chk_svgxml "$f" || r=1
    chk_offline "$f" || r=1
    chk_ids "$f" || r=1
    chk_summary "$f" || r=1
    chk_traces "$f" || r=1
    chk_escape "$f" || r=1
    chk_ladder "$f" || r=1
    return $r
}

echo "static:"
static_checks $out
$gen $fx/report.json $tmp/again.html && cmp -s $out $tmp/again.html &&
    ok "repeatable: the same report gives the same bytes" || ko "repeatable: a second run differs"

# ---- requirement views: a whole mpa-conform report ---------------------------
crep=$fx/conform-report.json
cout=build/conform/coverage.html
echo "requirement views ($crep):"
if ! $gen $crep $cout; then
    echo "html-test: FAIL: $gen $crep exited $?"
    exit 1
fi
# the report's lists, read once
ncov=$($jget $crep coverage.#)
covids=$(for ((i = 0; i < ncov; i++)); do $jget $crep coverage.$i.id; done | tr '\n' ' ')
mustf=$(n=$($jget $crep overview.must_failed.#); for ((i = 0; i < n; i++)); do $jget $crep overview.must_failed.$i; done)
nct=$($jget $crep tests.#)
brokenrows=0
for ((i = 0; i < nct; i++)); do [ "$($jget $crep tests.$i.broken.#)" -gt 0 ] && brokenrows=$((brokenrows + 1)); done
chk_glance() {
    local f=$1 g miss=""
    g=$(sed -n '/<section id="glance">/,/<\/section>/p' "$f")
    local must
    must=$(grep -o '<dd class="g-must">.*' <<<"$g" | sed 's|</dd>.*||')
    for id in $mustf; do [[ $must == *"href=\"#req-$id\">$id</a>"* ]] || miss+=" $id"; done
    if [ -n "$mustf" ] && [ -z "$miss" ] && [[ $g == *"<b>mpa-peer (fault a-not-echoed)</b>"* ]] &&
        [[ $g == *'fixture run: &lt;b&gt;notes&lt;/b&gt; &amp; &quot;quotes&quot;'* ]] && [[ $g == *"Its first Reply"* ]]; then
        ok "glance: the device's name, its first Reply, the notes escaped, MUST failures linked:" $mustf
    else
        ko "glance: MUST failures not linked:${miss:- none} (of: $mustf); or no device name, Reply or escaped notes"
        return 1
    fi
}
chk_coverage() {
    local f=$1 rows nfail
    rows=$(grep -o '<tr class="r-[a-z]*" id="req-[^"]*"' "$f" | sed 's/.*id="req-//; s/"$//' | tr '\n' ' ')
    nfail=$(grep -o '<tr class="r-fail" id="req-.*' "$f" | grep -c 'failed in: ')
    local want
    want=$(grep -o '"verdict": *"fail"' <(for ((i = 0; i < ncov; i++)); do echo "\"verdict\": \"$($jget $crep coverage.$i.verdict)\""; done) | wc -l)
    if [ "$rows" = "$covids" ] && [ "$ncov" -gt 0 ] && [ "$nfail" = "$want" ] && [ "$want" -gt 0 ]; then
        ok "coverage: $ncov rows in the report's order (MUSTs first), $nfail failed ones say where"
    else
        ko "coverage: rows \"$rows\" (want \"$covids\"), $nfail failed rows with \"failed in\" (want $want)"
        return 1
    fi
}
chk_broken() {
    local f=$1 n words
    n=$(grep -o '<tr class="r-[a-z]*" data-verdict[^>]*>.*</tr>' "$f" | grep -c '<div class="broken">')
    words=$(grep -c '<div class="broken">Reply A=0, Request A=1: <b class="rid">MPA-ENH-A-ECHO</b>' "$f")
    if [ "$n" = "$brokenrows" ] && [ "$n" -gt 0 ] && [ "$words" -gt 0 ]; then
        ok "broken: the $n tests that show a requirement broken say it in the tests table, in words"
    else
        ko "broken: $n rows with the broken requirements (want $brokenrows), $words in words"
        return 1
    fi
}
chk_skips() {
    local f=$1 banner miss="" n i
    banner=$(grep -o '<div class="banner.*' "$f" | head -1)
    n=$($jget $crep summary.skipped_by_reason.#)
    for ((i = 0; i < n; i++)); do
        local c r
        c=$($jget $crep summary.skipped_by_reason.$i.tests)
        r=$($jget $crep summary.skipped_by_reason.$i.reason | sed "s/'/\&#39;/g")
        [[ $banner == *" $c ($r)"* ]] || miss+=" [$c $r]"
    done
    if [ "$n" -gt 1 ] && [ -z "$miss" ]; then
        ok "skips: the banner counts the $n causes of skipping"
    else
        ko "skips: the banner lacks:${miss:- (no causes in the report)}"
        return 1
    fi
}
chk_glance $cout
chk_coverage $cout
chk_broken $cout
chk_skips $cout

# ---- bad input ---------------------------------------------------------------
echo "bad input:"
# bad NAME 'JSON' [WORDS...]: htmlgen makes a whole page, valid UTF-8, holding each
# of WORDS as text (escaped as the page escapes it), or as it is with "html:" before it
bad() {
    local name=$1 json=$2
    shift 2
    mkdir -p $tmp/bad/$name
    printf '%s' "$json" > $tmp/bad/$name/report.json
    local rc=0
    $gen $tmp/bad/$name/report.json $tmp/bad/$name/out.html 2> $tmp/bad/$name/err || rc=$?
    local why=""
    [ $rc = 0 ] || why+=" exit $rc ($(head -c 300 $tmp/bad/$name/err))"
    tail -c 8 $tmp/bad/$name/out.html 2>/dev/null | grep -q '</html>' || why+=" no </html> at the end"
    iconv -f UTF-8 -t UTF-8 $tmp/bad/$name/out.html > /dev/null 2>&1 || why+=" not UTF-8"
    local w
    for w in "$@"; do
        case $w in
        html:*) w=${w#html:} ;;
        *) w=$(sed "s/&/\\&amp;/g; s/</\\&lt;/g; s/>/\\&gt;/g; s/\"/\\&quot;/g; s/'/\\&#39;/g" <<< "$w") ;;
        esac
        grep -qF -- "$w" $tmp/bad/$name/out.html || why+=" no [$w]"
    done
    [ -z "$why" ] && ok "bad $name" || ko "bad $name:$why"
}
bad array '[]' 'the report is an array, not a JSON object' 'The report lists no tests.'
bad string '"report"' 'the report is a string'
bad empty-object '{}' '"tests" is missing' '"device" is missing' 'NO RESULT'
bad tests-object '{"tests": {"id": "x"}}' '"tests" is an object, not an array'
bad test-not-object '{"tests": [42, "x", null]}' 'the test is a number, not an object' '(no id)'
bad wrong-types '{"tool": 7, "version": [], "started": {}, "device": "lo", "selection": "all", "suites": 3,
  "tests": [{"id": 5, "class": 1, "verdict": true, "requirements": "MPA-X", "quirks": {}, "steps": "none",
             "findings": 7, "duration_ms": "12", "reason": 3, "decided_at_step": "3", "trace": 9}],
  "summary": []}' '"tool" is a number, not a string' '"device" is a string, not an object' \
    '"steps" is a string, not an array' '"duration_ms" is a string, not a number' \
    'the report has no steps for this test' 'html:"trace" is a number, not a file name'
bad unknown-verdicts '{"device": {"transport": "socket"}, "tests": [{"id": "a.b", "class": "X", "verdict": "maybe",
  "steps": [{"index": 1, "verb": "teleport", "verdict": "perhaps", "what": "teleport", "t_ms": 0},
            {"verb": "expect", "verdict": "skip"}, 17, {"index": "2", "verb": ["open"]}]}]}' \
    '"verdict" is "maybe", not one of pass, fail, error, skip' 'unknown verb "teleport"' \
    'step 3 is a number, not an object' 'INCOMPLETE' 'html:<span class="v v-unknown">? maybe</span>'
bad huge-numbers '{"duration_ms": 1e999, "tests": [{"id": "n", "class": "M", "verdict": "fail", "decided_at_step": 1e300,
  "duration_ms": -1e999, "steps": [{"index": 1e300, "verb": "expect", "verdict": "fail", "what": "expect fin",
  "detail": "got nothing", "t_ms": 1e999, "took_ms": -5},
  {"index": 123456789012, "verb": "send", "verdict": "done", "what": "send fpdu {\"msn\": 1e14, \"tagged\": 0,
   \"rdmap\": \"send\", \"payload_length\": -0.5}", "t_ms": 5e14, "took_ms": 4e14}],
  "summary": {"total": 1e14, "pass": -3e13}}]}' 'nothing came from the device' 'FPDU send MSN 100000000000000, -0.5 octets'
bad bad-utf8 $'{"tests": [{"id": "u\xff\xfe\xc0\xaf\xed\xa0\x80x", "class": "M", "verdict": "pass",
  "description": "ctl \\u0001\\u001b[31m bell\\u0007 cut \xe2\x82", "steps": []}]}' \
    $'html:ctl \xef\xbf\xbd\xef\xbf\xbd[31m bell\xef\xbf\xbd cut \xef\xbf\xbd\xef\xbf\xbd</p>' 'html:id="u_______x"'
bad bad-json-in-texts '{"tests": [{"id": "j", "class": "M", "verdict": "fail", "reason": "r", "steps": [
  {"index": 1, "verb": "send", "verdict": "done", "what": "send frame {\"key\":", "detail": ""},
  {"index": 2, "verb": "send", "verdict": "done", "what": "send fpdu [[[[[[[[[[[[1]]]]]]]]]]]]", "detail": ""},
  {"index": 3, "verb": "expect", "verdict": "fail", "what": "expect frame {\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":1}}}}}}",
   "detail": "got frame {\"key\":{\"hex\":\"00\"},\"enhanced\":[1,2],\"private_data\":{\"len\":9}} after 1 ms: why"}]}]}' \
    'html:class="rh">why<' 'send frame {"key":' 'frame key={hex=00}'
mkdir -p $tmp/bad/traces/traces
head -c $((2 * 1024 * 1024 + 1)) /dev/zero > $tmp/bad/traces/traces/big.pcapng
printf 'x' > $tmp/bad/traces/traces/one.pcapng
mkdir -p $tmp/bad/traces/traces/dir.pcapng
tj='{"tests": [
  {"id": "missing", "class": "M", "verdict": "pass", "steps": [], "trace": "traces/nope.pcapng"},
  {"id": "big", "class": "M", "verdict": "pass", "steps": [], "trace": "traces/big.pcapng"},
  {"id": "dir", "class": "M", "verdict": "pass", "steps": [], "trace": "traces/dir.pcapng"},
  {"id": "one/../x y", "class": "M", "verdict": "pass", "steps": [], "trace": "traces/one.pcapng"},
  {"id": "absolute", "class": "M", "verdict": "pass", "steps": [], "trace": "'$tmp'/bad/traces/traces/one.pcapng"}]}'
bad traces "$tj" 'is not embedded: No such file or directory' 'more than the 2 MiB this page embeds' \
    'is not embedded: it is not a regular file' 'html:download="one_.._x_y.pcapng" href="data:application/vnd.tcpdump.pcap;base64,eA=="' \
    'html:download="absolute.pcapng" href="data:application/vnd.tcpdump.pcap;base64,eA=="'
printf '{"tests": [' > $tmp/notjson.json
if $gen $tmp/notjson.json $tmp/notjson.html 2>/dev/null; then ko "bad not-json: exit 0"; else
    [ $? = 1 ] && ok "bad not-json: exit 1" || ko "bad not-json: exit not 1"; fi
# many steps: the diagram draws the first 400 and says so
{
    printf '{"tests": [{"id": "many", "class": "M", "verdict": "pass", "steps": ['
    for ((k = 1; k <= 450; k++)); do
        printf '%s{"index": %d, "verb": "send", "verdict": "done", "what": "send fpdu {\\"rdmap\\":\\"send\\"}", ' \
            "$([ $k = 1 ] || echo ,)" $k
        printf '"detail": "", "t_ms": %d.%d, "took_ms": 0.01}' $((k / 10)) $((k % 10))
    done
    printf ']}]}'
}    > $tmp/many.json
bad many "$(cat $tmp/many.json)" 'The first 400 of 450 steps are drawn'

# ---- the browser --------------------------------------------------------------
echo "browser:"
if ! command -v "$browser" > /dev/null; then
    ko "browser: $browser not found (scripts/deps.sh installs Debian's chromium)"
    echo "html-test: $pass passed, $fail failed"
    exit 1
fi
export HOME=$tmp/home
mkdir -p $HOME
# chrome PAGE ARGS...: headless chromium on file://PAGE (root needs --no-sandbox)
chrome() {
    local page=$1
    shift
    timeout 60 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
        --user-data-dir=$tmp/profile --hide-scrollbars "$@" "file://$(readlink -f "$page")" 2> $tmp/chrome.err
}
chk_dom() {
    local page=$1 dom=$tmp/dom.html
    if ! chrome "$page" --dump-dom > $dom; then
        ko "dom: chromium --dump-dom failed: $(grep -v -e dbus -e 'Fontconfig' $tmp/chrome.err | tail -2)"
        return 1
    fi
    local miss="" id
    for id in $ids; do grep -qF "id=\"$id\"" $dom || miss+=" $id"; done
    local svgs secs scripts
    svgs=$(count '<svg' $dom)
    secs=$(count '<section class="test' $dom)
    scripts=$(count '<script' $dom)
    local text
    text=$(($(grep -cF "&lt;script&gt;alert(\"x\")&lt;/script&gt; &amp; 'quotes'" $dom) +
                  $(grep -cF 'A quirk text with &lt;b&gt;markup&lt;/b&gt;, an &amp; and "quotes"' $dom)))
    local filt
    filt=$(grep -c '<div id="filters">' $dom)
    if [ -z "$miss" ] && [ "$svgs" = "$nrun" ] && [ "$secs" = "$ntests" ] && [ "$scripts" = 1 ] &&
        [ "$text" = 2 ] && [ "$filt" = 1 ]; then
        ok "dom: chromium parsed it: $ntests sections with their ids, $svgs <svg>, one <script>, markup as text, the filter bar shown (the script ran)"
    else
        ko "dom: ids missing:${miss:- none}; <svg> $svgs ($nrun), sections $secs ($ntests), <script> $scripts (1), texts $text (2), filter bar $filt"
        return 1
    fi
}
chk_filter() {
    local page=$1 m=$tmp/filter.html dom=$tmp/filter-dom.html
    sed 's|</body>|<script>document.querySelector("[data-f=fail]").click()</script></body>|' "$page" > $m
    if ! chrome $m --dump-dom > $dom; then
        ko "filter: chromium --dump-dom failed"
        return 1
    fi
    local shown hidden
    shown=$(grep -o '<section class="test[^>]*>' $dom | grep -v -c 'hidden=')
    hidden=$(grep -o '<section class="test[^>]*>' $dom | grep -c 'hidden=')
    if [ "$shown" = "$nf" ] && [ "$hidden" = $((ntests - nf)) ] &&
        [ "$(grep -o '<section class="test[^>]*>' $dom | grep -v 'hidden=' | grep -c 'data-verdict="fail"')" = "$nf" ]; then
        ok "filter: the \"fail\" button leaves the $nf failed tests shown and hides the other $hidden"
    else
        ko "filter: after \"fail\", $shown sections shown ($nf), $hidden hidden ($((ntests - nf)))"
        return 1
    fi
}
chk_png() {
    local page=$1 shot=$2
    rm -f "$shot"
    if ! chrome "$page" --screenshot="$(readlink -f "$(dirname "$shot")")/$(basename "$shot")" --window-size=1280,2400; then
        ko "screenshot: chromium failed: $(grep -v dbus $tmp/chrome.err | tail -2)"
        return 1
    fi
    local size
    size=$(stat -c %s "$shot" 2>/dev/null || echo 0)
    local sig
    sig=$(head -c 8 "$shot" 2>/dev/null | od -An -tx1 | tr -d ' \n')
    local wh
    wh=$(od -An -tu1 -j16 -N8 "$shot" 2>/dev/null |
               awk '{ printf "%dx%d", (($1*256+$2)*256+$3)*256+$4, (($5*256+$6)*256+$7)*256+$8 }')
    if [ "$sig" = 89504e470d0a1a0a ] && [ "$wh" = 1280x2400 ] && [ "$size" -gt 20480 ]; then
        ok "screenshot: $shot, PNG $wh, $size octets (> 20 KB)"
    else
        ko "screenshot: $shot: signature $sig, $wh (1280x2400), $size octets (> 20480)"
        return 1
    fi
}
chk_dom $out
chk_filter $out
chk_png $out $png
# the requirement views in the browser
chk_reqdom() {
    local page=$1 dom=$tmp/req-dom.html
    if ! chrome "$page" --dump-dom > $dom; then
        ko "reqdom: chromium --dump-dom failed"
        return 1
    fi
    local order miss="" l
    order=$(grep -o '<section id="[a-z]*"' $dom | sed 's/.*id="//; s/"//' | tr '\n' ' ')
    for l in $(grep -o 'href="#req-[^"]*"' $dom | sed 's/href="#//; s/"//' | sort -u); do
        grep -qF "id=\"$l\"" $dom || miss+=" $l"
    done
    local rows
    rows=$(grep -c '<tr class="r-[a-z]*" id="req-' $dom)
    if [[ $order == "glance run summary coverage tests "* ]] && [ -z "$miss" ] && [ "$rows" = "$ncov" ]; then
        ok "reqdom: chromium shows glance, run, summary, coverage ($rows rows), tests; every requirement link lands"
    else
        ko "reqdom: sections \"$order\", links with no target:${miss:- none}, $rows coverage rows ($ncov)"
        return 1
    fi
}
chk_reqdom $cout

# ---- mutants: each check must fail on a page broken for it -------------------
if [ $quick = 0 ]; then
    echo "mutants (each check must fail on a page broken for it):"
    # mutant NAME CHECK SED-SCRIPT
    mutant() {
        local name=$1 check=$2 script=$3 m=$tmp/mut-$1.html
        sed -e "$script" $out > $m
        if cmp -s $out $m; then
            ko "mutant $name: the edit changed nothing (sed: $script)"
            return
        fi
        local p0=$pass f0=$fail
        $check $m > $tmp/mut.log
        local r=$?
        pass=$p0
        fail=$f0
        if [ $r = 0 ]; then
            ko "mutant $name: $check passed on the broken page"
        else
            ok "mutant $name: $check fails: $(sed 's/^ *FAIL *//' $tmp/mut.log | head -c 150)"
        fi
    }
    mutant second-html chk_doc '0,/<body>/s//<body><html>/'
    mutant lost-svg-end chk_svg '0,/<\/svg>/s///'
    mutant svg-not-xml chk_svgxml '0,/<\/tspan>/s///'
    mutant https-image chk_offline 's|<footer>|<footer><img src="https://example.com/logo.png">|'
    mutant protocol-relative chk_offline 's|<footer>|<footer><a href="//example.com/">x</a>|'
    mutant lost-id chk_ids "s/$failid/renamed.test/g"
    mutant wrong-count chk_summary 's|<tr><th>All</th><td class="n">\([0-9]*\)|<tr><th>All</th><td class="n">9\1|'
    mutant base64-char chk_traces '0,/base64,\([A-Za-z0-9+\/]\)\([A-Za-z0-9+\/]\)/s//base64,\2\1/'
    mutant unescaped chk_escape 's/&lt;script&gt;alert(1)&lt;\/script&gt;/<script>alert(1)<\/script>/'
    mutant no-red chk_ladder 's/<g class="sf">/<g class="sp">/'
    mutant no-error-colour chk_ladder 's/<g class="se">/<g class="sp">/'
    # the requirement views' (on the whole mpa-conform report's page)
    out=$cout
    mutant must-unlinked chk_glance 's|<dd class="g-must"><a class="rid" href="#req-|<dd class="g-must"><a class="rid" href="#rq-|'
    mutant notes-markup chk_glance 's|&lt;b&gt;notes&lt;/b&gt;|<b>notes</b>|'
    mutant coverage-row-lost chk_coverage '0,/<tr class="r-pass" id="req-/s//<tr class="r-pass" data-x="/'
    mutant coverage-reordered chk_coverage 's|id="req-MPA-ENH-A-ECHO"|id="req-MPA-ZZZ"|'
    mutant failed-in-lost chk_coverage 's|failed in: ||'
    mutant broken-lost chk_broken '0,/<div class="broken">/s//<div class="nobroken">/'
    mutant broken-raw chk_broken 's|<div class="broken">Reply A=0, Request A=1: |<div class="broken">|'
    mutant skip-cause-lost chk_skips 's|; 1 (needs a device with reject (--caps))||'
    out=build/conform/report.html
    # the browser's: markup let through changes the DOM; a blank page's screenshot
    # is small.  (No alert() in them: a dialog would hold --dump-dom until the timeout.)
    bmutant() {
        local name=$1 check=$2 script=$3 m=$tmp/mut-$1.html
        sed -e "$script" $out > $m
        local p0=$pass f0=$fail
        $check $m $tmp/mut-$1.png > $tmp/mut.log
        local r=$?
        pass=$p0
        fail=$f0
        [ $r != 0 ] && ok "mutant $name: $check fails: $(sed 's/^ *FAIL *//' $tmp/mut.log | head -c 150)" ||
            ko "mutant $name: $check passed on the broken page"
    }
    bmutant markup-in-dom chk_dom 's|with &lt;b&gt;markup&lt;/b&gt;|with <b>markup</b>|'
    bmutant script-in-dom chk_dom 's|&lt;/table&gt;&lt;script&gt;alert(1)&lt;/script&gt;|</table><script>void 0</script>|'
    bmutant filter-broken chk_filter 's/v===f||/v===f+1||/'
    bmutant blank-page chk_png 's|</style>|body{display:none}</style>|'
    out=$cout
    bmutant link-lands-nowhere chk_reqdom 's|href="#req-MPA-ENH-A-ECHO"|href="#req-MPA-NOWHERE"|'
    bmutant coverage-after-tests chk_reqdom 's|<section id="coverage">|<section id="coverage2">|'
    out=build/conform/report.html
fi

echo "html-test: $pass passed, $fail failed; the page: $out, its screenshot: $png"
[ $fail = 0 ] || exit 1
exit 0

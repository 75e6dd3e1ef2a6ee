#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The plugin in the Wireshark GUI (Debian's wireshark-qt), as a user sees
# it: Wireshark is started under a virtual display (Xvfb) as an ordinary
# user (nobody when run as root: Wireshark ignores personal plugins as
# root), with a private HOME holding the plugin and a profile with the
# shipped colouring rules (dissector/colorfilters) above Wireshark's own.
# On two reference captures (captures/interop-demo.pcapng and the 2008
# stack's captures/scen-qrk-mrk-2008.pcap) it takes screenshots (xwd ->
# PNG) into build/plugin-gui/:
#   packet-list.png   the packet list with colouring (bad CRC, TERMINATE,
#                     MUST finding)
#   crc-bad.png       the details of the FPDU with a bad CRC
#   terminate.png     the details of a TERMINATE
#   reply-6581.png    the details of an RFC 6581 Reply
#   crc-2008.png      the details of an FPDU of the 2008 stack (markers, CRC)
#   expert.png        the Expert Information dialog
#   hierarchy.png     Protocol Hierarchy (Statistics menu)
#   stats-conv.png    Statistics > iWARP MPA Connections (the tap's table)
#   stats-findings.png  Statistics > iWARP MPA Findings
# and checks each screen without looking at pixels: the GUI's window
# titles (xdotool), and tshark with the same HOME and profile on the same
# frame (-T pdml, -T fields, -z expert, -z io,phs, -z iwmpa,conv and
# -z iwmpa,findings).
#   dissector/tests/gui-check.sh [OUTDIR]      (make plugin-gui)
# Needs wireshark (wireshark-qt), Xvfb (xvfb), xwd (x11-apps), xwdtopnm
# and pnmtopng (netpbm), xdotool, tshark; scripts/deps.sh installs them.
# Bounded: each wait has a timeout, the whole run GUI_TIMEOUT seconds
# (default 240); Xvfb and every Wireshark it started are stopped on exit.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build/plugin-gui}
so=$top/build/dissector/iwmpa.so
limit=${GUI_TIMEOUT:-240}

missing=""
for t in wireshark Xvfb xwd xwdtopnm pnmtopng xdotool tshark setpriv; do
    command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
[ -z "$missing" ] || { echo "plugin-gui: missing:$missing (scripts/deps.sh installs them)"; exit 2; }
[ -r "$so" ] || { echo "plugin-gui: $so missing (make plugin)"; exit 2; }

# The whole check under one time limit (this script again, bounded).
if [ -z "${GUI_CHECK_INNER:-}" ]; then
    GUI_CHECK_INNER=1 timeout -k 10 "$limit" "$0" "$out"
    rc=$?
    [ $rc = 124 ] && echo "plugin-gui: FAILED: not done within $limit s (GUI_TIMEOUT)"
    exit $rc
fi

mkdir -p "$out" || exit 2
rm -f "$out"/*.png "$out"/*.txt
home=$(mktemp -d /tmp/iwmpa-gui.XXXXXX) || exit 2
xvfb_pid="" ws_pid=""
cleanup() {
    [ -n "$ws_pid" ] && kill "$ws_pid" 2>/dev/null
    [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$home"
}
trap cleanup EXIT
trap 'exit 3' INT TERM

# ---- the user's HOME: the plugin, two profiles, the captures --------------
rel=$(HOME=/nonexistent-gui-check tshark -G folders 2>/dev/null |
    awk -F'\t' '/^Personal Plugins:/ { sub("^/nonexistent-gui-check/", "", $2); print $2 }')
[ -n "$rel" ] || { echo "plugin-gui: tshark names no personal plugin folder"; exit 2; }
mkdir -p "$home/$rel/epan" "$home/.config/wireshark/profiles/iwmpa-list" "$home/.config/wireshark/profiles/iwmpa-details"
cp "$so" "$home/$rel/epan/iwmpa.so"
cp "$top/captures/interop-demo.pcapng" "$home/demo.pcapng"
cp "$top/captures/scen-qrk-mrk-2008.pcap" "$home/stack2008.pcap"
global=$(tshark -G folders 2>/dev/null | awk -F'\t' '/^Global configuration:/ { print $2 }')
for p in iwmpa-list iwmpa-details; do
    d=$home/.config/wireshark/profiles/$p
    # Ours first: the first rule that matches colours the packet.
    { grep '^@' "$top/dissector/colorfilters"; grep '^@' "$global/colorfilters" 2>/dev/null; } >"$d/colorfilters"
    printf '%s\n' "gui.update.enabled: FALSE" "gui.ask_unsaved: FALSE" "gui.layout_type: 1" >"$d/preferences"
done
# The packet list above the details; for the details screens, the details
# above the bytes (no packet list), so that a frame's tree has the room.
printf '%s\n' "gui.layout_content_1: PLIST" "gui.layout_content_2: PDETAILS" "gui.layout_content_3: PBYTES" \
    >>"$home/.config/wireshark/profiles/iwmpa-list/preferences"
printf '%s\n' "gui.layout_content_1: PDETAILS" "gui.layout_content_2: PBYTES" "gui.layout_content_3: NONE" \
    >>"$home/.config/wireshark/profiles/iwmpa-details/preferences"
printf '%s\n' "privs.warn_if_elevated: FALSE" "gui.geometry_main_x: 0" "gui.geometry_main_y: 0" \
    "gui.geometry_main_width: 1280" "gui.geometry_main_height: 1024" >"$home/.config/wireshark/recent_common"
chmod -R a+rwX "$home"

# As root, Wireshark runs as nobody (it ignores personal plugins as root).
as_user() {
    if [ "$(id -u)" = 0 ]; then
        HOME=$home XDG_RUNTIME_DIR=$home setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
    else
        HOME=$home XDG_RUNTIME_DIR=$home "$@"
    fi
}
ts() { as_user tshark -n "$@"; }

fails=0
ok() { echo "plugin-gui: ok: $1"; }
ko() { echo "plugin-gui: FAILED: $1"; fails=$((fails + 1)); }

# ---- the virtual display ---------------------------------------------------
Xvfb -displayfd 5 -screen 0 1280x1024x24 -nolisten tcp -ac 5>"$home/display" >"$out/xvfb.txt" 2>&1 &
xvfb_pid=$!
n=0
while [ ! -s "$home/display" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
[ -s "$home/display" ] || { echo "plugin-gui: Xvfb did not start (see $out/xvfb.txt)"; exit 1; }
DISPLAY=:$(head -1 "$home/display")
export DISPLAY

# start PROFILE FILE [wireshark options]: Wireshark on FILE, its main
# window placed at 0,0 at the screen's size once it shows the file.
start() {
    prof=$1 file=$2
    shift 2
    # Wireshark itself takes the subshell's pid (exec), so that stop ends
    # it and no earlier Wireshark is left to take the keys or be found by
    # its window title.
    (
        export HOME="$home" XDG_RUNTIME_DIR="$home"
        if [ "$(id -u)" = 0 ]; then
            exec setpriv --reuid=65534 --regid=65534 --clear-groups wireshark -C "$prof" -r "$home/$file" "$@"
        fi
        exec wireshark -C "$prof" -r "$home/$file" "$@"
    ) >>"$out/wireshark.txt" 2>&1 &
    ws_pid=$!
    wid=$(timeout 60 xdotool search --sync --onlyvisible --name "$file" 2>/dev/null | head -1)
    [ -n "$wid" ] || { ko "Wireshark showed no window for $file"; return 1; }
    xdotool windowmove "$wid" 0 0 windowsize "$wid" 1280 1024 2>/dev/null
    sleep 3
    # No window manager gives it the keyboard: the keys of the menus
    # (alt+s) go to the focused window.
    xdotool windowfocus --sync "$wid" 2>/dev/null
}
stop() {
    [ -n "$ws_pid" ] && kill "$ws_pid" 2>/dev/null && wait "$ws_pid" 2>/dev/null
    ws_pid=""
}
shot() {
    xwd -root -silent 2>/dev/null | xwdtopnm 2>/dev/null | pnmtopng >"$out/$1.png" 2>/dev/null
    [ -s "$out/$1.png" ] && ok "screenshot $1.png" || ko "no screenshot $1.png"
}
# The window titles on the screen (the dialogs Wireshark opened).
titles() { xdotool search --onlyvisible --name . getwindowname %@ 2>/dev/null; }

# details PROFILE FILE FRAME UP NAME [FIELD]: frame FRAME of FILE with our
# tree expanded (the details pane's last top-level item, or UP items above
# it, is expanded with its subtrees), as NAME.png; with FIELD, the first
# line of that field is selected (the byte pane highlights its octets).
details() {
    start "$1" "$2" -g "$3" || return
    xdotool mousemove --window "$wid" 400 115 click 1 2>/dev/null
    sleep 0.5
    xdotool key End 2>/dev/null
    i=0
    while [ $i -lt "$4" ]; do xdotool key Up; i=$((i + 1)); done
    xdotool key shift+Right 2>/dev/null
    if [ -n "${6:-}" ]; then
        # Down to the field: as many lines as PDML shows (fields and the
        # DDP and RDMAP layers, hidden fields left out) from our
        # protocol's line to it.
        k=$(pdml "$2" "$3" | awk -v f="$6" '/<proto name="iwmpa"/ { on = 1; next }
            on && /<(field|proto) / && $0 !~ / hide="yes"/ { n++; if (index($0, "name=\"" f "\" ")) { print n; exit } }')
        [ -n "$k" ] && xdotool key --repeat "$k" --delay 20 Down 2>/dev/null
    fi
    sleep 1
    shot "$5"
    stop
}

# pdml FILE FRAME: the frame as tshark's PDML, with the same profile.
pdml() { ts -C iwmpa-details -r "$home/$1" -Y "frame.number == $2" -T pdml 2>/dev/null; }
# The attribute $2 of the PDML field named $1 (first occurrence) on stdin.
attr() { grep -m1 "<field name=\"$1\"" | sed -n "s/.* $2=\"\\([^\"]*\\)\".*/\\1/p"; }

# ---- 1. the packet list, coloured -----------------------------------------
start iwmpa-list demo.pcapng -g 34 && { shot packet-list; stop; }
first=$(grep '^@' "$home/.config/wireshark/profiles/iwmpa-list/colorfilters" | head -4 | cut -d@ -f2 | tr '\n' '|')
[ "$first" = "iWARP CRC bad|iWARP TERMINATE|iWARP error (MUST)|iWARP warning (SHOULD)|" ] &&
    ok "the profile's first colouring rules are the plugin's" || ko "the profile's first colouring rules: $first"
grep '^@' "$top/dissector/colorfilters" | while IFS=@ read -r _ name filter _; do
    case $name in
    "iWARP CRC bad") want="23" ;;
    "iWARP TERMINATE") want="29" ;;
    "iWARP error (MUST)") want="23 28" ;;
    "iWARP warning (SHOULD)") want="45" ;;
    *) want="?" ;;
    esac
    got=$(ts -C iwmpa-list -r "$home/demo.pcapng" -Y "$filter" -T fields -e frame.number 2>&1 | tr '\n' ' ' | sed 's/ $//')
    [ "$got" = "$want" ] && ok "colouring rule \"$name\" colours frames $want" ||
        ko "colouring rule \"$name\" colours frames '$got', not '$want'"
done >"$out/colour.txt"
cat "$out/colour.txt"
grep -q FAILED "$out/colour.txt" && fails=$((fails + 1))
info=$(ts -C iwmpa-list -r "$home/demo.pcapng" -Y 'frame.number == 23 || frame.number == 28 || frame.number == 29' \
    -T fields -e _ws.col.Info 2>/dev/null | sed 's/.*\(\[[^]]*\]\)$/\1/' | tr '\n' ' ')
[ "$info" = "[CRC bad] [MPA-ENH-A-ECHO] [TERMINATE] " ] && ok "Info markers $info" || ko "Info markers: $info"

# ---- 2. the bad-CRC FPDU: the CRC field is the octets the byte pane shows --
details iwmpa-details demo.pcapng 23 1 crc-bad iwmpa.crc
p=$(pdml demo.pcapng 23)
crc_pdml() {
    # show, value: the CRC field as shown and its octets (hex); then the
    # frame's octets at its position (pos, size of the frame data source).
    show=$(printf '%s\n' "$1" | attr iwmpa.crc show)
    value=$(printf '%s\n' "$1" | attr iwmpa.crc value)
    status=$(printf '%s\n' "$1" | attr iwmpa.crc.status show)
}
crc_pdml "$p"
[ -n "$value" ] && [ "$show" = "0x$value" ] && ok "crc-bad: CRC32C field $show is its octets $value" ||
    ko "crc-bad: CRC32C field shows '$show', its octets are '$value'"
[ "$status" = 0 ] && ok "crc-bad: CRC status bad" || ko "crc-bad: CRC status '$status'"
# The expert info hangs on the CRC field (PDML nests it there).
printf '%s\n' "$p" | awk '/<field name="iwmpa.crc" / { inside = 1 } inside && /_ws.expert.message/ { print; exit }' |
    grep -q 'MPA-CRC-VALID: CRC32C does not match the FPDU' && ok "crc-bad: expert info on the CRC field" ||
    ko "crc-bad: no MPA-CRC-VALID expert info under the CRC field"

# ---- 3. a TERMINATE --------------------------------------------------------
details iwmpa-details demo.pcapng 29 0 terminate iwrdmap.term.code
p=$(pdml demo.pcapng 29)
code=$(printf '%s\n' "$p" | attr iwrdmap.term.code showname)
[ "$code" = "Error Code: MPA CRC error (0x02)" ] && ok "terminate: $code" || ko "terminate: code shown as '$code'"
info=$(ts -C iwmpa-details -r "$home/demo.pcapng" -Y 'frame.number == 29' -T fields -e _ws.col.Info 2>/dev/null)
case $info in
"TERMINATE from the Initiator: MPA CRC error (LLP, code 0x02) [TERMINATE]") ok "terminate: Info $info" ;;
*) ko "terminate: Info '$info'" ;;
esac

# ---- 4. an RFC 6581 Reply --------------------------------------------------
details iwmpa-details demo.pcapng 5 0 reply-6581 iwmpa.enh.ord
p=$(pdml demo.pcapng 5)
key=$(printf '%s\n' "$p" | attr iwmpa.key showname)
enh=$(printf '%s\n' "$p" | attr iwmpa.enh showname)
[ "$key" = 'Key: &quot;MPA ID Rep Frame&quot;' ] && ok "reply-6581: key shown as text" || ko "reply-6581: key '$key'"
case $enh in "Enhanced connection data (RFC 6581): IRD 16 ORD 16 A C"*) ok "reply-6581: $enh" ;; *) ko "reply-6581: '$enh'" ;; esac

# ---- 5. the 2008 stack: markers and CRC ------------------------------------
details iwmpa-details stack2008.pcap 7 1 crc-2008 iwmpa.crc
p=$(pdml stack2008.pcap 7)
crc_pdml "$p"
[ -n "$value" ] && [ "$show" = "0x$value" ] && [ "$status" = 1 ] &&
    ok "crc-2008: CRC32C field $show is its octets $value, good" ||
    ko "crc-2008: CRC32C field '$show', octets '$value', status '$status'"

# ---- 6. Expert Information ------------------------------------------------
if start iwmpa-list demo.pcapng -z expert; then
    sleep 2
    shot expert
    titles | grep -q 'Expert Information' && ok "expert: the Expert Information dialog is open" ||
        ko "expert: no Expert Information window ($(titles | tr '\n' ';'))"
    stop
fi
ts -C iwmpa-list -r "$home/demo.pcapng" -q -z expert >"$out/expert.txt" 2>&1
for s in "MPA-CRC-VALID: CRC32C does not match the FPDU" "MPA-ENH-A-ECHO: the Reply's A differs from the Request's" \
    "MPA-ENH-ORD-LE-IRD: the Responder's ORD exceeds the Initiator's IRD" \
    "MPA-STA-REJECT: connection rejected or closed without an accepting Reply"; do
    grep -q "iWARP-MPA  $s\$" "$out/expert.txt" && ok "expert: $s" || ko "expert: no '$s' (see $out/expert.txt)"
done

# ---- 7. Protocol Hierarchy (Statistics > Protocol Hierarchy) ---------------
if start iwmpa-list demo.pcapng; then
    xdotool key alt+s 2>/dev/null
    sleep 1.5
    xdotool key Down 2>/dev/null
    sleep 0.3
    xdotool key Down 2>/dev/null
    sleep 0.3
    xdotool key Return 2>/dev/null
    sleep 3
    shot hierarchy
    titles | grep -q 'Protocol Hierarchy' && ok "hierarchy: the Protocol Hierarchy window is open" ||
        ko "hierarchy: no Protocol Hierarchy window ($(titles | tr '\n' ';'))"
    stop
fi
ts -C iwmpa-list -r "$home/demo.pcapng" -q -z io,phs >"$out/hierarchy.txt" 2>&1
awk '$1 == "iwmpa" { m = $2 } $1 == "data" && m && !d { d = $2 } END { exit !(m == "frames:51" && d != "") }' \
    "$out/hierarchy.txt" && ok "hierarchy: iwmpa in 51 frames, data under it" ||
    ko "hierarchy: iwmpa or data missing (see $out/hierarchy.txt)"

# ---- 8. the tap's tables (Statistics > iWARP MPA Connections, ... Findings) -
# Opened from the Statistics menu by the keyboard, as a user would: in
# Wireshark 4.0 the menu opens on its first item, Capture File Properties;
# the tables of Wireshark's unsorted group (DHCP (BOOTP) Statistics,
# NetPerfMeter Statistics, ONC-RPC Programs, then ours, in the order they
# were registered) follow the eight fixed items.  The dialog's title says
# which table opened; tshark with the same HOME and profile prints the
# rows the dialog shows (one registration serves both).
# menu_table DOWNS TITLE NAME: the entry DOWNS items below the first.
menu_table() {
    start iwmpa-list demo.pcapng || return
    xdotool key alt+s 2>/dev/null
    sleep 1.5
    xdotool key --repeat "$1" --delay 150 Down 2>/dev/null
    sleep 0.3
    xdotool key Return 2>/dev/null
    sleep 3
    shot "$3"
    titles | grep -q "^Wireshark · $2 · demo.pcapng\$" && ok "$3: Statistics > $2 opened its table" ||
        ko "$3: no '$2' window from the Statistics menu ($(titles | tr '\n' ';'))"
    stop
}
menu_table 11 "iWARP MPA Connections" stats-conv
menu_table 12 "iWARP MPA Findings" stats-findings
ts -C iwmpa-list -r "$home/demo.pcapng" -q -z iwmpa,conv >"$out/stats-conv.txt" 2>&1
# The four connections of the demo: roles, Rev, IRD/ORD, the bad CRC and
# the TERMINATE of stream 1, findings by level.
for row in "0 |192.0.2.10:41000 |Initiator |192.0.2.20:18515 |Responder |2 |1 |1 |1 |16 |16 |Write |16 |17548 |16 |10760 |0 |0 |0 |0 |0 |" \
    "1 |192.0.2.10:41001 |Initiator |192.0.2.30:18515 |Responder |1 |1 |1 |1 |- |- |- |2 |312 |2 |1772 |1 |1 |1 |0 |0 |" \
    "2 |192.0.2.10:41002 |Initiator |192.0.2.40:18515 |Responder |2 |1 |1 |1 |16 |32 |- |1 |156 |1 |156 |0 |0 |2 |0 |0 |" \
    "3 |192.0.2.10:41003 |Initiator |192.0.2.50:18515 |Responder |1 |- |- |- |- |- |- |0 |0 |0 |0 |0 |0 |0 |1 |0 |"; do
    grep -qxF "$row" "$out/stats-conv.txt" && ok "stats-conv: connection ${row%% *}" ||
        ko "stats-conv: no row '$row' (see $out/stats-conv.txt)"
done
[ "$(grep -c '^[0-9]* |192' "$out/stats-conv.txt")" = 4 ] && ok "stats-conv: four connections" ||
    ko "stats-conv: not four connections (see $out/stats-conv.txt)"
ts -C iwmpa-list -r "$home/demo.pcapng" -q -z iwmpa,findings >"$out/stats-findings.txt" 2>&1
got=$(awk -F' [|]' '$1 ~ /^MPA-/ { printf "%s %s %s %s;", $1, $2, $3, $4 }' "$out/stats-findings.txt")
[ "$got" = "MPA-CRC-VALID MUST 1 23;MPA-ENH-A-ECHO MUST 1 28;MPA-ENH-ORD-LE-IRD MUST 1 28;MPA-STA-REJECT SHOULD 1 45;" ] &&
    ok "stats-findings: $got" || ko "stats-findings: '$got' (see $out/stats-findings.txt)"

[ $fails = 0 ] || { echo "plugin-gui: $fails check(s) FAILED; screenshots in $out"; exit 1; }
echo "plugin-gui: all checks passed; screenshots in $out"

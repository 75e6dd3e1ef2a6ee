#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make install into a staging folder (DESTDIR), as a packager does, then:
#  - everything is there: the programs, libmpa (libmpa.so.0 with its
#    SONAME, the static library, every public header, libmpa.pc), the
#    suites, the examples and data, a man page for every program, the
#    library and the file formats, the Wireshark plugin;
#  - libmpa.so exports only the public mpa_* API;
#  - a small program builds against the staged tree with
#    `pkg-config --cflags --libs libmpa`, shared and static, and runs;
#  - the installed mpa-conform finds the installed suites (MPA_SUITES
#    points into the staging folder), and says where it looked when there
#    are none;
#  - make uninstall removes every file it installed.
set -u
cd "$(dirname "$0")/../.." || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
st=$tmp/stage
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "install-test: $*"; }
version=$(cat VERSION)
prefix=${PREFIX:-/usr/local}
libdir=${LIBDIR:-$prefix/lib}
P=$st$prefix
L=$st$libdir

make -s install DESTDIR="$st" PREFIX="$prefix" LIBDIR="$libdir" >"$tmp/install.log" 2>&1 || {
    cat "$tmp/install.log"
    echo "install-test: make install failed"
    exit 1
}
plugindir=$(pkg-config --variable=plugindir wireshark)/epan

want() { [ -e "$1" ] && ok || ko "not installed: ${1#$st}"; }
for p in mpa-audit mpa-capgen mpa-decode mpa-inject mpa-peer mpa-conform; do
    want "$P/bin/$p"
    want "$P/share/man/man1/$p.1"
done
want "$P/share/man/man3/libmpa.3"
want "$P/share/man/man5/mpa-scenario.5"
want "$P/share/man/man5/mpa-suite.5"
for f in libmpa.so.$version libmpa.so.0 libmpa.so libmpa.a pkgconfig/libmpa.pc; do want "$L/$f"; done
for h in include/mpa/*.h include/mpa/*.def; do want "$P/include/mpa/$(basename "$h")"; done
for f in requirements.md quirks.md interop-demo.pcapng; do want "$P/share/mpa-toolkit/$f"; done
n=$(find "$P/share/mpa-toolkit/suites" -name '*.json' | wc -l)
m=$(ls conformance/suites/*/*.json | wc -l)
[ "$n" = "$m" ] && ok || ko "$n suite files installed, $m in the tree"
n=$(ls "$P/share/mpa-toolkit/scenarios/"*.json 2>/dev/null | wc -l)
[ "$n" = "$(ls injector/scenarios/*.json | wc -l)" ] && ok || ko "$n example scenarios installed"
want "$st$plugindir/iwmpa.so"

# The shared library: SONAME, and nothing but mpa_* exported.
so=$L/libmpa.so.$version
readelf -d "$so" | grep -q 'SONAME.*\[libmpa\.so\.0\]' && ok || ko "libmpa.so has no SONAME libmpa.so.0"
others=$(nm -D --defined-only "$so" | awk '{ print $3 }' | grep -v '^mpa_' | tr '\n' ' ')
[ -z "$others" ] && ok || ko "libmpa.so exports more than mpa_*: $others"
nm -D --defined-only "$so" | grep -q ' T mpa_stream_feed$' && ok || ko "libmpa.so does not export mpa_stream_feed"
# The plugin exports only Wireshark's entry points.
others=$(nm -D --defined-only "$st$plugindir/iwmpa.so" | awk '{ print $3 }' | grep -v '^plugin_' | tr '\n' ' ')
[ -z "$others" ] && ok || ko "the plugin exports more than plugin_*: $others"

# A user's program, built with pkg-config against the staged tree.
cat >"$tmp/hello.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <mpa/crc32c.h>
#include <mpa/frame.h>
#include <mpa/stream.h>

int main(void)
{
    /* RFC 3720 B.4: CRC32C of 32 zero octets. */
    unsigned char z[32];
    memset(z, 0, sizeof z);
    mpa_frame_enc e;
    memset(&e, 0, sizeof e);
    e.kind = MPA_KEY_REQ;
    e.rev = 1;
    e.pd_len_override = -1;
    unsigned char buf[64];
    size_t n = 0;
    mpa_frame f;
    size_t need = 0;
    if (mpa_frame_encode(&e, buf, sizeof buf, &n) != MPA_OK || mpa_frame_decode(buf, n, &f, &need) != MPA_OK)
        return 1;
    printf("libmpa %s crc %08x frame %zu stream %s\n", mpa_version(), (unsigned)mpa_crc32c(z, sizeof z), n,
           mpa_stream_size() > 0 ? "ok" : "?");
    return 0;
}
C
export PKG_CONFIG_PATH="$L/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$st"
cflags=$(pkg-config --cflags libmpa) libs=$(pkg-config --libs libmpa) || ko "pkg-config libmpa failed"
[ "$(pkg-config --modversion libmpa)" = "$version" ] && ok || ko "libmpa.pc says $(pkg-config --modversion libmpa)"
want_out="libmpa $version crc 8a9136aa frame 20 stream ok"
if cc $cflags "$tmp/hello.c" -o "$tmp/hello" $libs 2>"$tmp/cc.err"; then
    out=$(LD_LIBRARY_PATH="$L" "$tmp/hello")
    [ "$out" = "$want_out" ] && ok || ko "the shared-library program printed \"$out\""
    LD_LIBRARY_PATH="$L" ldd "$tmp/hello" | grep -q "libmpa.so.0 => $L/libmpa.so.0" && ok ||
        ko "the program does not load the staged libmpa.so.0: $(LD_LIBRARY_PATH="$L" ldd "$tmp/hello")"
else
    ko "cc \$(pkg-config --cflags --libs libmpa): $(head -5 "$tmp/cc.err")"
fi
if cc $cflags "$tmp/hello.c" -o "$tmp/hello-static" "$L/libmpa.a" 2>"$tmp/cc.err"; then
    [ "$("$tmp/hello-static")" = "$want_out" ] && ok || ko "the static program printed something else"
else
    ko "cc with libmpa.a: $(head -5 "$tmp/cc.err")"
fi
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

# The installed mpa-conform and its suites.
n=$(MPA_SUITES="$P/share/mpa-toolkit/suites" "$P/bin/mpa-conform" --list | wc -l)
[ "$n" = "$m" ] && ok || ko "the installed mpa-conform lists $n tests from the installed suites, not $m"
msg=$("$P/bin/mpa-conform" --list 2>&1 >/dev/null)
case "$msg" in
*"no suites found"*"$prefix/share/mpa-toolkit/suites"*) ok ;;
*) ko "without suites, the installed mpa-conform said: $msg" ;;
esac
"$P/bin/mpa-audit" "$P/share/mpa-toolkit/interop-demo.pcapng" >"$tmp/demo.txt"
rc=$?
[ $rc = 1 ] && grep -q "MPA-ENH-A-ECHO" "$tmp/demo.txt" && ok || ko "the installed mpa-audit on the demo capture: exit $rc"

# make uninstall leaves no file behind.
make -s uninstall DESTDIR="$st" PREFIX="$prefix" LIBDIR="$libdir" >/dev/null 2>&1 || ko "make uninstall failed"
left=$(find "$st" ! -type d | sed "s|^$st||")
[ -z "$left" ] && ok || ko "make uninstall left: $left"

echo "install-test: $pass passed, $fail failed"
[ $fail = 0 ]

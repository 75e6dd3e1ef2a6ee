#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian packages, end to end, as a packager and a user meet them:
#  1. the tracked tree is copied into build/deb/mpa-toolkit-VERSION (so a
#     clean tree, nothing of build/) and `dpkg-buildpackage -us -uc -b`
#     builds it there, its test step (make check) included; the .debs land
#     in build/deb/;
#  2. with DEB_BUILD_OPTIONS=nocheck the test step does nothing;
#  3. lintian reports no error;
#  4. `apt-get install ./*.deb` installs them; from / the installed
#     programs work (mpa-audit on the bundled capture, mpa-conform lists
#     the installed suites, a program builds against libmpa with
#     pkg-config), and tshark, run as an ordinary user, loads the plugin
#     and decodes the bundled capture with it;
#  5. the packages are purged again, whatever happened (the machine keeps
#     no plugin that would shadow the build tree's in later tests).
#   tests/release/deb-test.sh            all of it (root, for apt-get)
#   tests/release/deb-test.sh --build    1 only (make deb)
set -u
cd "$(dirname "$0")/../.." || exit 2
top=$(pwd)
version=$(cat VERSION)
out=$top/build/deb
src=$out/mpa-toolkit-$version
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "deb-test: $*"; }
pkgs="libmpa0 libmpa-dev mpa-tools wireshark-plugin-iwmpa"

# 1. Build.
rm -rf "$out"
mkdir -p "$src"
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$src" || { echo "deb-test: cannot copy the tree"; exit 2; }
echo "deb-test: dpkg-buildpackage -us -uc -b in $src (log: build/deb/build.log)"
if (cd "$src" && DEB_BUILD_OPTIONS="parallel=${JOBS:-$(nproc)}" dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
    ok
else
    tail -n 40 "$out/build.log"
    echo "deb-test: dpkg-buildpackage failed (build/deb/build.log)"
    exit 1
fi
grep -q "make check: all passed" "$out/build.log" && ok || ko "the package build did not run make check"
for p in $pkgs; do
    ls "$out/${p}_${version}_"*.deb >/dev/null 2>&1 && ok || ko "no $p package"
done
[ "${1:-}" = "--build" ] && { echo "deb-test: $pass passed, $fail failed (packages in build/deb)"; [ $fail = 0 ]; exit; }

# 2. nocheck: the test step runs nothing.
n=$(cd "$src" && DEB_BUILD_OPTIONS=nocheck make -s -n -f debian/rules override_dh_auto_test 2>&1 | grep -c check)
[ "$n" = 0 ] && ok || ko "DEB_BUILD_OPTIONS=nocheck still runs the tests"

# 3. lintian: no error (warnings are printed).
lintian --tag-display-limit 0 "$out"/*.changes >"$out/lintian.txt" 2>&1
if grep -q '^E: ' "$out/lintian.txt"; then
    ko "lintian errors:"
    grep '^E: ' "$out/lintian.txt"
else
    ok
fi
grep '^W: ' "$out/lintian.txt" | sed 's/^/deb-test: lintian: /'

# 4. Install, use, purge.
if [ "$(id -u)" != 0 ]; then
    echo "deb-test: not root: the install step is skipped"
    echo "deb-test: $pass passed, $fail failed"
    [ $fail = 0 ]
    exit
fi
purge() { apt-get purge -y -qq $pkgs >/dev/null 2>&1 || true; }
trap purge EXIT
export DEBIAN_FRONTEND=noninteractive
if apt-get install -y -qq --no-install-recommends "$out"/*.deb >"$out/install.log" 2>&1; then ok; else
    tail -n 20 "$out/install.log"
    ko "apt-get install ./*.deb failed"
fi
tmp=$(mktemp -d)
chmod 755 "$tmp"
cd /
for p in mpa-audit mpa-capgen mpa-decode mpa-inject mpa-peer mpa-conform; do
    [ "$("$p" --version 2>&1 | head -n 1 | cut -d' ' -f1,2)" = "$p $version" ] && ok || ko "$p --version from /"
    man -w "$p" >/dev/null 2>&1 && ok || ko "no man page for $p"
done
man -w 3 libmpa >/dev/null 2>&1 && ok || ko "no libmpa(3)"
mpa-audit /usr/share/mpa-toolkit/interop-demo.pcapng >"$tmp/demo.txt" 2>&1
rc=$?
[ $rc = 1 ] && grep -q MPA-ENH-A-ECHO "$tmp/demo.txt" && ok || ko "mpa-audit on the bundled capture: exit $rc"
n=$(mpa-conform --list 2>/dev/null | wc -l)
[ "$n" = "$(ls "$top"/conformance/suites/*/*.json | wc -l)" ] && ok || ko "mpa-conform lists $n installed tests"
cat >"$tmp/v.c" <<'C'
#include <stdio.h>
#include <mpa/common.h>
int main(void) { printf("%s\n", mpa_version()); return 0; }
C
if cc $(pkg-config --cflags libmpa) "$tmp/v.c" -o "$tmp/v" $(pkg-config --libs libmpa) 2>"$tmp/cc.err"; then
    [ "$("$tmp/v")" = "$version" ] && ok || ko "a program on the installed libmpa.so.0 printed $("$tmp/v")"
else
    ko "cc with pkg-config libmpa: $(head -3 "$tmp/cc.err")"
fi
# tshark as an ordinary user loads the installed plugin.
cp /usr/share/mpa-toolkit/interop-demo.pcapng "$tmp/demo.pcapng"
chmod 644 "$tmp/demo.pcapng"
mkdir -p "$tmp/home"
chmod 777 "$tmp/home"
HOME=$tmp/home setpriv --reuid=65534 --regid=65534 --clear-groups tshark -G plugins >"$tmp/plugins.txt" 2>&1
grep -q "iwmpa.so" "$tmp/plugins.txt" && ok || ko "tshark (as nobody) does not list the installed plugin: $(head -3 "$tmp/plugins.txt")"
n=$(HOME=$tmp/home setpriv --reuid=65534 --regid=65534 --clear-groups tshark -n -r "$tmp/demo.pcapng" -Y iwmpa.finding \
    -T fields -e frame.number 2>"$tmp/ts.err" | wc -l)
[ "$n" -gt 0 ] && ok || ko "tshark with the installed plugin finds no iwmpa.finding in the bundled capture: $(head -3 "$tmp/ts.err")"
rm -rf "$tmp"
cd "$top"
purge
trap - EXIT
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && ko "$p still installed" || ok
done
echo "deb-test: $pass passed, $fail failed"
[ $fail = 0 ]

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Wireshark version matrix: the plugin built and tested against each
# Wireshark the Debian releases ship.
#   scripts/plugin-matrix.sh [RELEASE...]   default: host trixie sid
#   scripts/plugin-matrix.sh --ci           host sid (the oldest and the newest)
#   scripts/plugin-matrix.sh --update [...] write each release's own goldens
#                                           (expected/X.Y/: only where its
#                                           output differs); review them
# RELEASE: host (this system: Debian 12, Wireshark 4.0; there the whole
# project is also built with clang, -Werror), bookworm, trixie
# (Wireshark 4.4) or sid (4.6); the chroots come from scripts/chroot.sh
# (made once, then reused: needs root, debootstrap and deb.debian.org).
#
# For each release: the tracked source (and new files not ignored) is
# copied into the chroot (/srv/mpa-toolkit, made afresh), the whole
# project is built there with that release's gcc and -Werror (libmpa, the
# programs, the plugin against that release's wireshark-dev), the plugin's
# CMake build is tried against the same Wireshark, and then
# scripts/plugin-golden.sh runs with that release's tshark (as the user
# nobody: Wireshark ignores personal plugins for root).  plugin-golden
# checks that the plugin loads (tshark -G plugins), the finding ids of
# every reference capture (the same as mpa-audit's, built there too),
# that no frame has a dissector bug or a malformed packet in our layers,
# and the golden files: tshark's output of a newer Wireshark may differ in
# what is not ours, so the goldens of dissector/tests/expected/ are
# compared as they are where they match, and a release's own copy in
# dissector/tests/expected/WS-VERSION/ (e.g. 4.4/) is used for a capture
# where it exists (scripts/plugin-golden.sh --update on that release
# writes only the files that differ from the 4.0 ones).
# Prints the time each release took.  Exit status 0 when all passed.
set -u
cd "$(dirname "$0")/.." || exit 2
top=$(pwd)
jobs=${MATRIX_JOBS:-2}
update=""
if [ "${1:-}" = "--update" ]; then
    update=--update
    shift
fi
if [ "${1:-}" = "--ci" ]; then
    set -- host sid
elif [ $# = 0 ]; then
    set -- host trixie sid
fi

# The source to copy: what git tracks plus new files it does not ignore
# (or, outside a git checkout, everything but build/).
src_tar() {
    if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
        git -C "$top" ls-files -z -c -o --exclude-standard | tar -C "$top" --null -T - -cf -
    else
        tar -C "$top" --exclude=./build -cf - .
    fi
}

# What runs in the tree being tested (here or in a chroot).
steps='set -e
ws=$(tshark -v 2>/dev/null | head -n 1)
echo "plugin-matrix: $(gcc --version | head -n 1); $ws"
mkdir -p build
make -s -k -j'"$jobs"' WERROR=-Werror all build/iwjson >build/matrix-make.log 2>&1 ||
    { grep -E "error|Error" build/matrix-make.log | head -n 60; exit 1; }
echo "plugin-matrix: make all (-Werror): built"
if command -v cmake >/dev/null 2>&1; then
    rm -rf build/cmake
    { cmake -S dissector -B build/cmake && cmake --build build/cmake -j '"$jobs"'; } >build/matrix-cmake.log 2>&1 ||
        { tail -n 40 build/matrix-cmake.log; exit 1; }
    echo "plugin-matrix: cmake build of the plugin: built ($(ls build/cmake/iwmpa.so))"
fi
# Both installs put it into the versioned plugin folder of this Wireshark.
v=$(echo "$ws" | sed -n "s/.*(Wireshark) \([0-9]*\.[0-9]*\).*/\1/p")
dir=$(pkg-config --variable=plugindir wireshark)/epan
case $dir in */"$v"/epan) ;; *) echo "plugin-matrix: plugin folder $dir does not carry the version $v"; exit 1 ;; esac
rm -rf build/inst
make -s DESTDIR="$PWD/build/inst" install-plugin >/dev/null
[ -f "build/inst$dir/iwmpa.so" ] || { echo "plugin-matrix: make install-plugin did not install into $dir"; exit 1; }
if [ -d build/cmake ]; then
    DESTDIR="$PWD/build/inst-cmake" cmake --install build/cmake >/dev/null
    [ -f "build/inst-cmake$dir/iwmpa.so" ] || { echo "plugin-matrix: cmake --install did not install into $dir"; exit 1; }
fi
echo "plugin-matrix: make install-plugin and cmake --install: $dir/iwmpa.so"
scripts/plugin-golden.sh '"$update"

pass=""
fail=""
for r in "$@"; do
    t0=$(date +%s)
    echo "== plugin-matrix: $r"
    case $r in
    host)
        sh -c "$steps"
        rc=$?
        # The other compiler: the whole project with clang and -Werror,
        # in a copy (CLANG, default clang-14 as in the Makefile).
        cl=${CLANG:-clang-14}
        if [ $rc = 0 ] && command -v "$cl" >/dev/null 2>&1; then
            c=$(mktemp -d)
            src_tar | tar -C "$c" -xf -
            if (cd "$c" && make -s -k -j"$jobs" CC="$cl" WERROR=-Werror all build/iwjson >build.log 2>&1); then
                echo "plugin-matrix: make all with $("$cl" --version | head -n 1) (-Werror): built"
            else
                grep -E "error|Error" "$c/build.log" | head -n 60
                rc=1
            fi
            rm -rf "$c"
        fi
        ;;
    bookworm | trixie | sid)
        root=$(scripts/chroot.sh "$r") || { fail="$fail $r(chroot)"; continue; }
        echo "plugin-matrix: chroot $root ready after $(($(date +%s) - t0)) s"
        rm -rf "$root/srv/mpa-toolkit"
        mkdir -p "$root/srv/mpa-toolkit"
        src_tar | tar -C "$root/srv/mpa-toolkit" -xf -
        scripts/chroot.sh "$r" -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
            sh -c "cd /srv/mpa-toolkit && $steps"
        rc=$?
        # --update: that release's own goldens (only those that differ
        # from the 4.0 ones) come back into this tree.
        if [ -n "$update" ] && [ $rc = 0 ]; then
            for d in "$root"/srv/mpa-toolkit/dissector/tests/expected/*/; do
                [ -d "$d" ] || continue
                v=$(basename "$d")
                rm -rf "dissector/tests/expected/$v"
                cp -r "$d" "dissector/tests/expected/$v"
                echo "plugin-matrix: dissector/tests/expected/$v/: $(ls "$d" | tr '\n' ' ')"
            done
        fi
        ;;
    *)
        echo "plugin-matrix: unknown release '$r' (host, bookworm, trixie, sid)"
        rc=2
        ;;
    esac
    dt=$(($(date +%s) - t0))
    if [ $rc = 0 ]; then pass="$pass $r(${dt}s)"; else fail="$fail $r(${dt}s)"; fi
    echo "== plugin-matrix: $r: exit status $rc, $dt s"
done
echo "plugin-matrix: passed:${pass:- none}; failed:${fail:- none}"
[ -z "$fail" ]

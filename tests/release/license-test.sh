#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every source file says its licence in an SPDX line near its top:
# LGPL-2.1-or-later for libmpa (include/mpa/, src/), GPL-2.0-or-later for
# everything else; the licence texts and debian/copyright are there.
# Source files: C, headers, build files, shell scripts, man pages.
set -u
cd "$(dirname "$0")/../.." || exit 2
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "license-test: $*"; }
for f in COPYING COPYING.LGPL debian/copyright; do [ -s "$f" ] && ok || ko "$f missing"; done
head -n 1 debian/copyright | grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' &&
    ok || ko "debian/copyright is not in Debian's machine-readable format"
git ls-files | grep -v '^tests/fuzz/regress/' | while IFS= read -r f; do
    case "$f" in
    *.c | *.h | *.def | *.map | *.mk | *.sh | *.in | Makefile | *.[135] | .ci/run | debian/rules | scripts/tshark-iwmpa | \
        dut/siw/init | dut/siw/guestctl) ;;
    *) continue ;;
    esac
    case "$f" in
    src/* | include/mpa/*) want=LGPL-2.1-or-later ;;
    *) want=GPL-2.0-or-later ;;
    esac
    got=$(head -n 5 "$f" | sed -n 's/.*SPDX-License-Identifier: \([A-Za-z0-9.+-]*\).*/\1/p' | head -n 1)
    if [ "$got" = "$want" ]; then echo ok; else echo "ko $f: SPDX-License-Identifier \"$got\", want $want"; fi
done >"${TMPDIR:-/tmp}/license-test.$$"
n=$(grep -c '^ok$' "${TMPDIR:-/tmp}/license-test.$$")
pass=$((pass + n))
bad=$(grep -c '^ko ' "${TMPDIR:-/tmp}/license-test.$$")
grep '^ko ' "${TMPDIR:-/tmp}/license-test.$$" | sed 's/^ko /license-test: /'
fail=$((fail + bad))
rm -f "${TMPDIR:-/tmp}/license-test.$$"
echo "license-test: $pass passed, $fail failed"
[ $fail = 0 ]

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every public header of libmpa (include/mpa/*.h) compiles on its own, as
# the first and only include of a C11 and of a C++11 file, with every
# warning an error: a user may include any one of them alone.
set -u
cd "$(dirname "$0")/../.." || exit 2
CC=${CC:-cc}
CXX=${CXX:-g++}
pass=0 fail=0
for h in include/mpa/*.h; do
    b=$(basename "$h")
    for lang in c c++; do
        if [ $lang = c ]; then cc=$CC std=-std=c11; else cc=$CXX std=-std=c++11; fi
        if out=$(printf '#include "mpa/%s"\n' "$b" |
            $cc $std -Wall -Wextra -Werror -pedantic -Iinclude -fsyntax-only -x $lang - 2>&1); then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
            echo "headers-test: mpa/$b does not compile alone as $lang:"
            echo "$out" | head -5
        fi
    done
done
echo "headers-test: $pass passed, $fail failed"
[ $fail = 0 ]

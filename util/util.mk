# SPDX-License-Identifier: GPL-2.0-or-later
# libmpautil (included by the root Makefile, which defines c_library):
# what every program does the same way (util/README.md).
#
#   $(B)/libmpautil.a       util/*.c: the program's name in messages,
#                           --version, output checked at exit
#   $(B)/libmpautil-asan.a  the same under ASan+UBSan
#
# Programs compile with $(UTIL_CFLAGS) and link it before libmpa.

UTIL_CFLAGS := -Iutil
UTIL_HDRS := $(wildcard util/*.h)
$(eval $(call c_library,mpautil,util,-Iinclude $(UTIL_CFLAGS)))

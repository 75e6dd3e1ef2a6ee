# SPDX-License-Identifier: GPL-2.0-or-later
# libmpawire (included by the root Makefile, which defines c_library):
# what writes packets and capture files.
#
#   $(B)/libmpawire.a       wire/*.c: the pcap and pcapng writer (capw),
#                           packet building (net), the Internet checksum
#                           (csum); wire/bytes.h is header-only
#   $(B)/libmpawire-asan.a  the same under ASan+UBSan, for the unit tests
#
# Users compile with $(WIRE_CFLAGS) and link the library.  libc only.

WIRE_CFLAGS := -Iwire
WIRE_HDRS := $(wildcard wire/*.h)
$(eval $(call c_library,mpawire,wire,$(WIRE_CFLAGS)))

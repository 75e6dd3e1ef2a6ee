# SPDX-License-Identifier: GPL-2.0-or-later
# libmpacap (included by the root Makefile, which defines c_library): the
# layer under both capture readers, mpa-audit and the Wireshark plugin.
#
#   build/libmpacap.a        pkt.c (link layer to TCP), ipfrag.c (IP
#                            fragments), tcp.c (reassembly), mpaconn.c (the
#                            MPA-connection layer); position-independent, so
#                            the plugin links it too
#   build/libmpacap-asan.a   the same under ASan+UBSan, for the unit tests
#   make capture-unit        tests/capture/test_*.c: packet parsing (every
#                            link type, truncated at every octet), IP
#                            fragments, TCP reassembly (a random property
#                            test of reordering, retransmission and loss)

CAP_CFLAGS := -Icapture
CAP_SRCS := $(sort $(wildcard capture/*.c))
CAP_HDRS := $(wildcard capture/*.h)
$(eval $(call c_library,mpacap,capture,-Iinclude $(CAP_CFLAGS) -fPIC))

CAP_TEST_SRCS := $(sort $(wildcard tests/capture/test_*.c))
CAP_TEST_BINS := $(patsubst tests/capture/%.c,$(B)/test/capture_%,$(CAP_TEST_SRCS))

$(B)/test/capture_%: tests/capture/%.c tests/t.h $(CAP_HDRS) $(B)/libmpacap-asan.a $(B)/libmpa-asan.a
	@mkdir -p $(dir $@)
	$(CC) $(TESTCFLAGS) $(CAP_CFLAGS) $< -o $@ $(B)/libmpacap-asan.a $(B)/libmpa-asan.a

.PHONY: capture-unit
capture-unit: $(CAP_TEST_BINS)
	@scripts/run-tests.sh $(CAP_TEST_BINS)

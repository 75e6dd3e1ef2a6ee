# capture/: libmpacap, the layer under both capture readers (mpa-audit and
# the Wireshark plugin).  Included by the root Makefile; uses B, CC, CSTD,
# WARN, CFLAGS, TESTCFLAGS, LIB_HDRS from it.
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

CAP_SRCS := $(sort $(wildcard capture/*.c))
CAP_HDRS := $(wildcard capture/*.h)
CAP_OBJS := $(patsubst capture/%.c,$(B)/capture/%.o,$(CAP_SRCS))
CAP_ASAN_OBJS := $(patsubst capture/%.c,$(B)/capture-asan/%.o,$(CAP_SRCS))
CAP_CFLAGS := $(CSTD) $(WARN) $(CFLAGS) -fPIC -D_DEFAULT_SOURCE -Iinclude -Icapture

$(B)/capture/%.o: capture/%.c $(CAP_HDRS) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CAP_CFLAGS) -c $< -o $@

$(B)/capture-asan/%.o: capture/%.c $(CAP_HDRS) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(TESTCFLAGS) -Icapture -c $< -o $@

$(B)/libmpacap.a: $(CAP_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(B)/libmpacap-asan.a: $(CAP_ASAN_OBJS)
	@rm -f $@
	ar rcs $@ $^

CAP_TEST_SRCS := $(sort $(wildcard tests/capture/test_*.c))
CAP_TEST_BINS := $(patsubst tests/capture/%.c,$(B)/test/capture_%,$(CAP_TEST_SRCS))

$(B)/test/capture_%: tests/capture/%.c tests/t.h $(CAP_HDRS) $(B)/libmpacap-asan.a $(B)/libmpa-asan.a
	@mkdir -p $(dir $@)
	$(CC) $(TESTCFLAGS) -Icapture $< -o $@ $(B)/libmpacap-asan.a $(B)/libmpa-asan.a

.PHONY: capture-unit
capture-unit: $(CAP_TEST_BINS)
	@scripts/run-tests.sh $(CAP_TEST_BINS)

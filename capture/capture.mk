# capture/: libmpacap, the layer under both capture readers (mpa-audit and
# the Wireshark plugin).  Included by the root Makefile; uses B, CC, CSTD,
# WARN, CFLAGS, TESTCFLAGS, LIB_HDRS from it.
#
#   build/libmpacap.a        pkt.c (link layer to TCP), ipfrag.c (IP
#                            fragments), tcp.c (reassembly), mpaconn.c (the
#                            MPA-connection layer); position-independent, so
#                            the plugin links it too
#   build/libmpacap-asan.a   the same under ASan+UBSan, for the unit tests

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

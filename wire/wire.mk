# libmpawire (included by the root Makefile; uses B, CC, CSTD, WARN,
# CFLAGS, TESTCFLAGS from it): what writes packets and capture files.
#
#   $(B)/libmpawire.a       wire/*.c: the pcap and pcapng writer (capw),
#                           packet building (net), the Internet checksum
#                           (csum); wire/bytes.h is header-only
#   $(B)/libmpawire-asan.a  the same under ASan+UBSan, for the unit tests
#
# Users compile with $(WIRE_CFLAGS) and link the library.  libc only.

WIRE_SRCS := $(sort $(wildcard wire/*.c))
WIRE_HDRS := $(wildcard wire/*.h)
WIRE_OBJS := $(patsubst wire/%.c,$(B)/wire/%.o,$(WIRE_SRCS))
WIRE_ASAN_OBJS := $(patsubst wire/%.c,$(B)/wire-asan/%.o,$(WIRE_SRCS))
WIRE_CFLAGS := -Iwire

$(B)/wire/%.o: wire/%.c $(WIRE_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(CFLAGS) -D_DEFAULT_SOURCE $(WIRE_CFLAGS) -c $< -o $@

$(B)/wire-asan/%.o: wire/%.c $(WIRE_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(TESTCFLAGS) $(WIRE_CFLAGS) -c $< -o $@

$(B)/libmpawire.a: $(WIRE_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(B)/libmpawire-asan.a: $(WIRE_ASAN_OBJS)
	@rm -f $@
	ar rcs $@ $^

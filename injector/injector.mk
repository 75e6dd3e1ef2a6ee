# mpa-inject and mpa-peer (included by the root Makefile; uses B, CC,
# CSTD, WARN, CFLAGS, LIB_HDRS, EXT_CFLAGS, EXT_LIBS from it).
#
#   injector/peer/*.c     mpa-peer: the reference MPA endpoint (a main in mpa-peer.c)
#   injector/inject/*.c   mpa-inject's modules (no main)
#   injector/mpa-inject.c the program
#   tests/inject/         their tests

PEER_SRCS := $(sort $(wildcard injector/peer/*.c))
PEER_HDRS := $(wildcard injector/peer/*.h)
INJ_SRCS := $(sort $(wildcard injector/inject/*.c))
INJ_HDRS := $(wildcard injector/inject/*.h)
INJ_GEN  := conformance/gen/capw.c conformance/gen/net.c
NET_LIBS := $(shell pkg-config --libs libnet 2>/dev/null || echo -lnet)
INJ_CFLAGS := $(CSTD) $(WARN) $(CFLAGS) -D_DEFAULT_SOURCE -Iinclude -Iinjector/peer -Iinjector/inject \
              -Iconformance/gen $(EXT_CFLAGS)
INJ_TESTCFLAGS := $(TESTCFLAGS) -Iinjector/inject -Iconformance/gen $(EXT_CFLAGS)

$(B)/mpa-peer: $(PEER_SRCS) $(PEER_HDRS) $(B)/libmpa.a
	$(CC) $(INJ_CFLAGS) $(PEER_SRCS) -o $@ $(B)/libmpa.a

$(B)/mpa-inject: injector/mpa-inject.c $(INJ_SRCS) $(INJ_HDRS) $(INJ_GEN) $(B)/libmpa.a
	$(CC) $(INJ_CFLAGS) injector/mpa-inject.c $(INJ_SRCS) $(INJ_GEN) -o $@ $(B)/libmpa.a $(EXT_LIBS) $(NET_LIBS)

# The same under ASan+UBSan: what tests/inject/inject-test.sh runs.
$(B)/mpa-inject-asan: injector/mpa-inject.c $(INJ_SRCS) $(INJ_HDRS) $(INJ_GEN) $(B)/libmpa-asan.a
	$(CC) $(INJ_TESTCFLAGS) injector/mpa-inject.c $(INJ_SRCS) $(INJ_GEN) -o $@ $(B)/libmpa-asan.a \
	    $(EXT_LIBS) $(NET_LIBS)

$(B)/jget: tests/util/jget.c tests/util/slurp.h
	$(CC) $(CSTD) $(WARN) $(CFLAGS) -Itests $(EXT_CFLAGS) $< -o $@ $(CJSON_LIBS) -lm

# mpa-peer against itself on the loopback, judged by mpa-audit -i lo
# (tests/inject/peer-test.sh; needs root or CAP_NET_RAW).
.PHONY: peer-test inject-test
peer-test: $(B)/mpa-peer $(B)/mpa-audit $(B)/jsonids
	@tests/inject/peer-test.sh

# mpa-inject: its scripts, and the example scenarios against mpa-peer on
# the loopback, correct and in its fault modes (tests/inject/inject-test.sh).
inject-test: $(B)/mpa-inject-asan $(B)/mpa-peer $(B)/mpa-audit $(B)/jget
	@tests/inject/inject-test.sh

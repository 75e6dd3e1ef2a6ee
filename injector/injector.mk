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
INJ_CFLAGS := $(CSTD) $(WARN) $(CFLAGS) -D_DEFAULT_SOURCE -Iinclude -Iinjector/peer -Iinjector/inject \
              -Iconformance/gen $(EXT_CFLAGS)

$(B)/mpa-peer: $(PEER_SRCS) $(PEER_HDRS) $(B)/libmpa.a
	$(CC) $(INJ_CFLAGS) $(PEER_SRCS) -o $@ $(B)/libmpa.a

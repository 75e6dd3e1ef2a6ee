# SPDX-License-Identifier: GPL-2.0-or-later
# injector/: libinject, mpa-inject and mpa-peer, and their tests
# (included by the root Makefile after conformance/conformance.mk; uses
# B, CC, CSTD, WARN, CFLAGS, TESTCFLAGS, LIB_HDRS from the one and
# EXT_CFLAGS, EXT_LIBS, CJSON_LIBS from the other).
#
#   build/libinject.a       injector/inject/*.c: scenario parsing, the
#                           runner, frame building, matching, reports,
#                           transports, traces, the lab (injector/README.md)
#   build/libinject-asan.a  the same under ASan+UBSan, for the tests
#   build/mpa-inject        injector/mpa-inject.c on libinject
#   build/mpa-inject-asan   the same under ASan+UBSan: what inject-test
#                           and raw-test run
#   build/mpa-peer          injector/peer/*.c: the reference MPA endpoint
#                           (injector/peer/README.md)
#   build/jget              tests/util/jget.c: reads a value out of a JSON
#                           file, for the test scripts
#   build/test/inject/test_utcp, test_raw   tests/inject/ on libinject-asan
#
# libinject writes its traces with libmpawire (wire/): a program on
# libinject links $(INJ_LIBS) after it.  Variables for
# conformance/conform/conform.mk: INJ_CFLAGS (compiling against
# libinject's headers), INJ_LIBS; for tests/fuzz/fuzz.mk: INJ_SCEN_SRCS
# (the scenario parser).

PEER_SRCS := $(sort $(wildcard injector/peer/*.c))
PEER_HDRS := $(wildcard injector/peer/*.h)
INJ_SRCS := $(sort $(wildcard injector/inject/*.c))
INJ_HDRS := $(wildcard injector/inject/*.h)
# the scenario parser alone (scen*.c: cJSON and libmpa only)
INJ_SCEN_SRCS := $(sort $(wildcard injector/inject/scen*.c))
NET_LIBS := $(shell pkg-config --libs libnet 2>/dev/null || echo -lnet)
INJ_CFLAGS = $(PCFLAGS) -Iinclude -Iinjector/inject $(WIRE_CFLAGS) $(UTIL_CFLAGS) $(EXT_CFLAGS)
INJ_TESTCFLAGS := -Iinjector/inject $(TESTCFLAGS) $(WIRE_CFLAGS) $(UTIL_CFLAGS) $(EXT_CFLAGS)
# What a program on libinject links after it, in order.
INJ_LIBS := $(B)/libmpawire.a $(B)/libmpautil.a $(B)/libmpa.a $(EXT_LIBS) $(NET_LIBS)
INJ_ASAN_LIBS := $(B)/libmpawire-asan.a $(B)/libmpautil-asan.a $(B)/libmpa-asan.a $(EXT_LIBS) $(NET_LIBS)
PEER_CFLAGS = $(PCFLAGS) -Iinclude -Iinjector/peer $(UTIL_CFLAGS)

$(eval $(call c_library,inject,injector/inject,-Iinclude -Iinjector/inject $(WIRE_CFLAGS) $(EXT_CFLAGS)))

$(B)/mpa-inject: injector/mpa-inject.c $(INJ_HDRS) $(UTIL_HDRS) $(B)/libinject.a $(B)/libmpawire.a $(B)/libmpautil.a \
                 $(B)/libmpa.a
	$(CC) $(INJ_CFLAGS) injector/mpa-inject.c -o $@ $(LDFLAGS) $(B)/libinject.a $(INJ_LIBS)

$(B)/mpa-inject-asan: injector/mpa-inject.c $(INJ_HDRS) $(UTIL_HDRS) $(B)/libinject-asan.a $(B)/libmpawire-asan.a \
                      $(B)/libmpautil-asan.a $(B)/libmpa-asan.a
	$(CC) $(INJ_TESTCFLAGS) injector/mpa-inject.c -o $@ $(B)/libinject-asan.a $(INJ_ASAN_LIBS)

$(B)/mpa-peer: $(PEER_SRCS) $(PEER_HDRS) $(UTIL_HDRS) $(B)/libmpautil.a $(B)/libmpa.a
	$(CC) $(PEER_CFLAGS) $(PEER_SRCS) -o $@ $(LDFLAGS) $(B)/libmpautil.a $(B)/libmpa.a

$(B)/jget: tests/util/jget.c tests/util/slurp.h
	$(CC) $(PCFLAGS) -Itests $(EXT_CFLAGS) $< -o $@ $(CJSON_LIBS) -lm

# ---- tests ------------------------------------------------------------------
#   peer-test         mpa-peer against itself on the loopback, judged by
#                     mpa-audit -i lo (tests/inject/peer-test.sh; needs
#                     root or CAP_NET_RAW)
#   inject-test       mpa-inject's scripts, and the example scenarios
#                     against mpa-peer on the loopback, correct and in its
#                     fault modes (tests/inject/inject-test.sh); then the
#                     man page documents every scenario key and option
#                     (tests/inject/doc-check.sh)
#   inject-doc-check  the man page check alone, on build/mpa-inject
#   utcp-test         utcp's unit tests (tests/inject/test_utcp.c), ASan+UBSan,
#                     no privileges needed
#   raw-test          the raw transport and the lab, as root: test_raw (lost
#                     pieces and retransmission, delivery tricks, malformed
#                     frames, FIN/RST, IPv4 and IPv6) and
#                     tests/inject/raw-test.sh (mpa-inject --transport raw
#                     --lab over the example scenarios and
#                     tests/inject/raw/*.json, traces checked with tshark,
#                     no kernel RST, no namespace left after SIGTERM or
#                     SIGKILL); exit 77 = skipped (not root, no `ip netns`)
.PHONY: peer-test inject-test inject-doc-check utcp-test raw-test
peer-test: $(B)/mpa-peer $(B)/mpa-audit $(B)/jsonids
	@tests/inject/peer-test.sh

inject-test: $(B)/mpa-inject-asan $(B)/mpa-peer $(B)/mpa-audit $(B)/jget
	@tests/inject/inject-test.sh
	@tests/inject/doc-check.sh $(B)/mpa-inject-asan

inject-doc-check: $(B)/mpa-inject
	@tests/inject/doc-check.sh $(B)/mpa-inject

$(B)/test/inject/test_utcp: tests/inject/test_utcp.c injector/inject/utcp.h tests/t.h $(B)/libinject-asan.a
	@mkdir -p $(dir $@)
	$(CC) $(INJ_TESTCFLAGS) $< -o $@ $(B)/libinject-asan.a

$(B)/test/inject/test_raw: tests/inject/test_raw.c $(INJ_HDRS) tests/t.h $(B)/libinject-asan.a $(B)/libmpawire-asan.a \
                          $(B)/libmpa-asan.a
	@mkdir -p $(dir $@)
	$(CC) $(INJ_TESTCFLAGS) $< -o $@ $(B)/libinject-asan.a $(INJ_ASAN_LIBS)

utcp-test: $(B)/test/inject/test_utcp
	@$(B)/test/inject/test_utcp

# Without root (exit 77) it fails, as the other live tests do, unless
# MPA_LIVE_OPTIONAL=1 says a skip is fine.
raw-test: $(B)/test/inject/test_raw $(B)/mpa-inject-asan $(B)/mpa-peer
	@rc=0; tests/inject/raw-test.sh || rc=$$?; \
	if [ $$rc = 77 ] && [ -n "$${MPA_LIVE_OPTIONAL:-}" ]; then echo "raw-test: skipped (MPA_LIVE_OPTIONAL)"; rc=0; fi; \
	exit $$rc

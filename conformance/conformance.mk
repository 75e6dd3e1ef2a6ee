# mpa-audit and the capture generator (included by the root Makefile; uses
# B, CC, CSTD, WARN, CFLAGS, TESTCFLAGS, LIB_HDRS from it).
#
#   conformance/audit/*.c   the auditor's modules (packet parsing, IP and
#                           TCP reassembly, connections, reports); no main()
#   conformance/mpa-audit.c the program
#   conformance/gen/*.c     mpa-capgen, the reference-capture generator
#   tests/audit/test_*.c    unit tests of the modules, under ASan+UBSan
#
# External parts come from Debian packages (scripts/deps.sh): libpcap-dev,
# libcjson-dev.

PCAP_CFLAGS := $(shell pkg-config --cflags libpcap 2>/dev/null)
PCAP_LIBS   := $(shell pkg-config --libs libpcap 2>/dev/null || echo -lpcap)
CJSON_CFLAGS := $(shell pkg-config --cflags libcjson 2>/dev/null || echo -I/usr/include/cjson)
CJSON_LIBS   := $(shell pkg-config --libs libcjson 2>/dev/null || echo -lcjson)
EXT_CFLAGS  := $(PCAP_CFLAGS) $(CJSON_CFLAGS)
EXT_LIBS    := $(PCAP_LIBS) $(CJSON_LIBS)

AUDIT_SRCS := $(sort $(wildcard conformance/audit/*.c))
AUDIT_HDRS := $(wildcard conformance/audit/*.h)
AUDIT_OBJS := $(patsubst conformance/audit/%.c,$(B)/audit/%.o,$(AUDIT_SRCS))
AUDIT_ASAN_OBJS := $(patsubst conformance/audit/%.c,$(B)/audit-asan/%.o,$(AUDIT_SRCS))
AUDIT_TEST_SRCS := $(sort $(wildcard tests/audit/test_*.c))
AUDIT_TEST_BINS := $(patsubst tests/audit/%.c,$(B)/test/audit_%,$(AUDIT_TEST_SRCS))
GEN_SRCS := $(sort $(wildcard conformance/gen/*.c))
GEN_HDRS := $(wildcard conformance/gen/*.h)

AUDIT_CFLAGS := $(CSTD) $(WARN) $(CFLAGS) -D_DEFAULT_SOURCE -Iinclude -Iconformance/audit $(EXT_CFLAGS)
AUDIT_TESTCFLAGS := $(TESTCFLAGS) -Iconformance/audit $(EXT_CFLAGS)

$(B)/audit/%.o: conformance/audit/%.c $(AUDIT_HDRS) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(AUDIT_CFLAGS) -c $< -o $@

$(B)/audit-asan/%.o: conformance/audit/%.c $(AUDIT_HDRS) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(AUDIT_TESTCFLAGS) -c $< -o $@

$(B)/libaudit.a: $(AUDIT_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(B)/libaudit-asan.a: $(AUDIT_ASAN_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(B)/test/audit_%: tests/audit/%.c tests/t.h $(AUDIT_HDRS) $(B)/libaudit-asan.a $(B)/libmpa-asan.a
	@mkdir -p $(dir $@)
	$(CC) $(AUDIT_TESTCFLAGS) $< -o $@ $(B)/libaudit-asan.a $(B)/libmpa-asan.a $(EXT_LIBS)

$(B)/mpa-capgen: $(GEN_SRCS) $(GEN_HDRS) $(WIRE_HDRS) $(CORPUS_HDRS) $(B)/libmpawire.a $(B)/libmpacorpus.a $(B)/libmpa.a
	$(CC) $(CSTD) $(WARN) $(CFLAGS) -D_DEFAULT_SOURCE -Iinclude $(WIRE_CFLAGS) $(CORPUS_CFLAGS) -Iconformance/gen \
	    $(GEN_SRCS) -o $@ $(B)/libmpawire.a $(B)/libmpacorpus.a $(B)/libmpa.a

audit-unit: $(AUDIT_TEST_BINS)
	@scripts/run-tests.sh $(AUDIT_TEST_BINS)

$(B)/mpa-audit: conformance/mpa-audit.c $(AUDIT_HDRS) $(B)/libaudit.a $(B)/libmpa.a
	$(CC) $(AUDIT_CFLAGS) $< -o $@ $(B)/libaudit.a $(B)/libmpa.a $(EXT_LIBS)

# The JSON contract checker used by the golden tests.
$(B)/jsonids: tests/audit/jsonids.c tests/util/slurp.h $(B)/libmpa.a
	$(CC) $(AUDIT_CFLAGS) -Itests $< -o $@ $(B)/libmpa.a $(CJSON_LIBS)

# mpa-audit against the adversarial captures of mpa-capgen --adversarial
# (floods, lying lengths, sequence jumps, endless holes, garbage): no
# crash or hang, valid JSON, peak RSS under the documented 64 MiB, the
# findings each capture provokes (scripts/audit-robust.sh).
.PHONY: audit-robust
audit-robust: $(B)/mpa-audit $(B)/mpa-capgen $(B)/jsonids
	@scripts/audit-robust.sh

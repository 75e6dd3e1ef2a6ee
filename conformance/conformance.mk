# SPDX-License-Identifier: GPL-2.0-or-later
# mpa-audit and the capture generator (included by the root Makefile; uses
# B, CC, CSTD, WARN, CFLAGS, TESTCFLAGS, LIB_HDRS from it).
#
#   build/libaudit.a        conformance/audit/*.c: the connection table and
#                           findings over the capture layer (capture/), and
#                           the reports (text, JSON, JSON Lines); no main()
#   build/mpa-audit         conformance/mpa-audit.c, the program
#   build/mpa-capgen        conformance/gen/*.c, the reference-capture generator
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
GEN_SRCS := $(sort $(wildcard conformance/gen/*.c))
GEN_HDRS := $(wildcard conformance/gen/*.h)

AUDIT_CFLAGS = $(PCFLAGS) -Iinclude -Icapture -Iconformance/audit $(UTIL_CFLAGS) $(EXT_CFLAGS)

$(B)/audit/%.o: conformance/audit/%.c $(AUDIT_HDRS) $(CAP_HDRS) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(AUDIT_CFLAGS) -c $< -o $@

$(B)/libaudit.a: $(AUDIT_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(B)/mpa-capgen: $(GEN_SRCS) $(GEN_HDRS) $(WIRE_HDRS) $(CORPUS_HDRS) $(UTIL_HDRS) $(B)/libmpawire.a \
                 $(B)/libmpacorpus.a $(B)/libmpautil.a $(B)/libmpa.a
	$(CC) $(PCFLAGS) -Iinclude $(WIRE_CFLAGS) $(CORPUS_CFLAGS) $(UTIL_CFLAGS) -Iconformance/gen \
	    $(GEN_SRCS) -o $@ $(LDFLAGS) $(B)/libmpawire.a $(B)/libmpacorpus.a $(B)/libmpautil.a $(B)/libmpa.a

$(B)/mpa-audit: conformance/mpa-audit.c $(AUDIT_HDRS) $(UTIL_HDRS) $(B)/libaudit.a $(B)/libmpacap.a $(B)/libmpautil.a \
                $(B)/libmpa.a
	$(CC) $(AUDIT_CFLAGS) -pthread $< -o $@ $(LDFLAGS) $(B)/libaudit.a $(B)/libmpacap.a $(B)/libmpautil.a \
	    $(B)/libmpa.a $(EXT_LIBS)

# The sweep: every reference capture cut and thinned packet by packet
# must add no finding about a device (tests/audit/sweep.c).
$(B)/test/sweep: tests/audit/sweep.c $(AUDIT_HDRS) $(CAP_HDRS) $(B)/libaudit.a $(B)/libmpacap.a $(B)/libmpa.a
	@mkdir -p $(dir $@)
	$(CC) $(AUDIT_CFLAGS) $< -o $@ $(B)/libaudit.a $(B)/libmpacap.a $(B)/libmpa.a $(EXT_LIBS)

# The direct reader of classic pcap files against libpcap's, plain and
# held (tests/audit/direct.c).
$(B)/test/direct: tests/audit/direct.c $(AUDIT_HDRS) $(CAP_HDRS) $(B)/libaudit.a $(B)/libmpacap.a $(B)/libmpa.a
	@mkdir -p $(dir $@)
	$(CC) $(AUDIT_CFLAGS) $< -o $@ $(B)/libaudit.a $(B)/libmpacap.a $(B)/libmpa.a $(EXT_LIBS)

# The flow hash pinned to values worked out apart (tests/audit/flowhash.c).
$(B)/test/flowhash: tests/audit/flowhash.c $(AUDIT_HDRS) $(CAP_HDRS) $(B)/libaudit.a $(B)/libmpacap.a $(B)/libmpa.a
	@mkdir -p $(dir $@)
	$(CC) $(AUDIT_CFLAGS) $< -o $@ $(B)/libaudit.a $(B)/libmpacap.a $(B)/libmpa.a $(EXT_LIBS)

.PHONY: capture-sweep
capture-sweep: $(B)/test/sweep
	@$(B)/test/sweep captures/MANIFEST.tsv captures

# The JSON contract checker used by the golden tests.
$(B)/jsonids: tests/audit/jsonids.c tests/util/slurp.h $(B)/libmpa.a
	$(CC) $(AUDIT_CFLAGS) -Itests $< -o $@ $(B)/libmpa.a $(CJSON_LIBS)

# mpa-audit against the adversarial captures of mpa-capgen --adversarial
# (floods, lying lengths, sequence jumps, endless holes, garbage): no
# crash or hang, valid JSON, peak RSS under the documented 80 MiB, the
# findings each capture provokes (scripts/audit-robust.sh).
.PHONY: audit-robust
audit-robust: $(B)/mpa-audit $(B)/mpa-capgen $(B)/jsonids
	@scripts/audit-robust.sh

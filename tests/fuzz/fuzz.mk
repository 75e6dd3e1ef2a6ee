# SPDX-License-Identifier: GPL-2.0-or-later
# libFuzzer targets (included by the root Makefile; uses B, LIB_SRCS,
# LIB_HDRS, CSTD, WARN, CC and CLANG from it, CORPUS_* from corpus.mk).
#
#   make fuzz-smoke   replay tests/fuzz/regress/<target>/, then fuzz each
#                     target FUZZ_SMOKE_SECONDS (default 5); run by make test
#   make fuzz         the same, FUZZ_SECONDS (default 600) per target
#
# Only these two targets (and the binaries under $(B)/fuzz/) need
# $(CLANG); nothing else in the Makefile depends on them.  The library
# sources are compiled straight into each target with the fuzzer and
# sanitizer flags.  Seeds come from tests/fuzz/mkseeds.c (generated into
# $(B)/fuzz/seeds/<target>/, never checked in); what a run finds goes to
# $(B)/fuzz/corpus/<target>/; a crash leaves its input in
# $(B)/fuzz/crash/<target>/ and fails the make target: copy the input
# into tests/fuzz/regress/<target>/ so that every later make test
# replays it.

FUZZ_LIB_TARGETS := fuzz_frame fuzz_fpdu fuzz_ddp
# fuzz_stream: the stream engine; its startup frames come from the
# corpus (corpus/build.c, compiled in with the same flags).
# fuzz_pcap runs the whole of mpa-audit (conformance/audit, libpcap,
# cJSON); its seeds are the reference captures.
# fuzz_scen: mpa-inject's scenario parser (cJSON); its seeds are the
# example scenarios and the scripts it must reject.
# fuzz_html: mpa-conform's HTML report from any JSON; seeds: the fixture
# report and reports made by the conformance tests.
FUZZ_TARGETS := $(FUZZ_LIB_TARGETS) fuzz_stream fuzz_pcap fuzz_scen fuzz_html
FUZZ_SMOKE_SECONDS ?= 5
FUZZ_SECONDS ?= 600

FUZZ_SAN := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := $(CSTD) $(WARN) -Werror -O1 -g -D_DEFAULT_SOURCE $(VERSION_DEF) -Iinclude -Isrc
FUZZ_BINS := $(addprefix $(B)/fuzz/,$(FUZZ_TARGETS))
# Every run: 10 s per input at most, 2 GiB, statistics at the end.
FUZZ_RUNFLAGS := -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
FUZZ_DIR = $(CURDIR)/$(B)/fuzz

.PHONY: fuzz-clang fuzz-seeds

fuzz-clang:
	@command -v $(CLANG) >/dev/null 2>&1 || { \
	    echo "fuzz: $(CLANG) not found; scripts/deps.sh installs it (clang-14, libclang-rt-14-dev)"; \
	    exit 1; }

$(addprefix $(B)/fuzz/,$(FUZZ_LIB_TARGETS)): $(B)/fuzz/%: tests/fuzz/%.c $(LIB_SRCS) $(LIB_HDRS) tests/fuzz/fuzz.mk
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) $(FUZZ_SAN) $< $(LIB_SRCS) -o $@

$(B)/fuzz/fuzz_stream: tests/fuzz/fuzz_stream.c corpus/build.c $(CORPUS_HDRS) $(LIB_SRCS) $(LIB_HDRS) tests/fuzz/fuzz.mk
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) $(CORPUS_CFLAGS) $(FUZZ_SAN) $< corpus/build.c $(LIB_SRCS) -o $@

$(B)/fuzz/fuzz_pcap: tests/fuzz/fuzz_pcap.c $(LIB_SRCS) $(LIB_HDRS) $(CAP_SRCS) $(CAP_HDRS) $(AUDIT_SRCS) $(AUDIT_HDRS) \
                     tests/fuzz/fuzz.mk
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -Icapture -Iconformance/audit $(EXT_CFLAGS) $(FUZZ_SAN) $< $(LIB_SRCS) $(CAP_SRCS) \
	    $(AUDIT_SRCS) -o $@ $(EXT_LIBS)

$(B)/fuzz/fuzz_scen: tests/fuzz/fuzz_scen.c $(INJ_SCEN_SRCS) $(INJ_HDRS) $(LIB_SRCS) $(LIB_HDRS) tests/fuzz/fuzz.mk
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -Iinjector $(EXT_CFLAGS) $(FUZZ_SAN) $< $(INJ_SCEN_SRCS) $(LIB_SRCS) -o $@ \
	    $(CJSON_LIBS)

$(B)/fuzz/fuzz_html: tests/fuzz/fuzz_html.c $(CONFORM_HTML_SRCS) $(CONFORM_HTML_HDRS) tests/fuzz/fuzz.mk
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -Iconformance/conform $(EXT_CFLAGS) $(FUZZ_SAN) $< $(CONFORM_HTML_SRCS) -o $@ \
	    $(CJSON_LIBS)

$(B)/fuzz/mkseeds: tests/fuzz/mkseeds.c $(CORPUS_HDRS) $(B)/libmpacorpus.a $(B)/libmpa.a
	@mkdir -p $(dir $@)
	$(CC) $(PCFLAGS) -Iinclude $(CORPUS_CFLAGS) $< -o $@ $(B)/libmpacorpus.a $(B)/libmpa.a

# The seeds are rewritten whenever the generator (or the library) changes.
$(B)/fuzz/seeds/.stamp: $(B)/fuzz/mkseeds $(wildcard captures/*.pcap captures/*.pcapng) \
                        $(wildcard injector/scenarios/*.json tests/inject/bad/*.json) tests/conform/fixture/report.json \
                        tests/conform/fixture/conform-report.json
	@rm -rf $(B)/fuzz/seeds
	@$(B)/fuzz/mkseeds $(B)/fuzz/seeds
	@mkdir -p $(B)/fuzz/seeds/fuzz_pcap
	@cp captures/*.pcap captures/*.pcapng $(B)/fuzz/seeds/fuzz_pcap/ 2>/dev/null || true
	@mkdir -p $(B)/fuzz/seeds/fuzz_scen
	@cp injector/scenarios/*.json tests/inject/bad/*.json $(B)/fuzz/seeds/fuzz_scen/ 2>/dev/null || true
	@mkdir -p $(B)/fuzz/seeds/fuzz_html
	@cp tests/conform/fixture/report.json tests/conform/fixture/conform-report.json $(B)/fuzz/seeds/fuzz_html/ \
	    2>/dev/null || true
	@touch $@

fuzz-seeds: $(B)/fuzz/seeds/.stamp

# $(call fuzz_run,SECONDS,EXTRA-LIBFUZZER-FLAGS)
# For each target: replay its regression inputs (each file once), then
# fuzz from the seeds and the corpus.  Every run works in
# $(B)/fuzz/work/<target> (libFuzzer's -jobs writes fuzz-<n>.log into the
# current directory and copies it to its own output when the job ends);
# the output is kept in $(B)/fuzz/log/<target>.log.
define fuzz_run
	@pass=0; fail=0; \
	for t in $(FUZZ_TARGETS); do \
	    bin=$(FUZZ_DIR)/$$t; reg=$(CURDIR)/tests/fuzz/regress/$$t; \
	    work=$(FUZZ_DIR)/work/$$t; art=$(FUZZ_DIR)/crash/$$t; \
	    cor=$(FUZZ_DIR)/corpus/$$t; log=$(FUZZ_DIR)/log/$$t.log; \
	    mkdir -p $$work $$art $$cor $(FUZZ_DIR)/log; rm -f $$work/fuzz-*.log; \
	    ok=1; \
	    if [ -d $$reg ] && ! (cd $$work && find $$reg -type f ! -name 'README*' -print0 | sort -z | \
	            xargs -0 -r $$bin -artifact_prefix=$$art/ >$$log.regress 2>&1); then \
	        ok=0; tail -n 60 $$log.regress; \
	        bad=$$(sed -n 's|^Running: $(CURDIR)/||p' $$log.regress | tail -n 1); \
	        echo "fuzz $$t: FAILED: regression input $${bad:-(see the log)} fails again (log: $(B)/fuzz/log/$$t.log.regress)"; \
	    fi; \
	    if [ $$ok = 1 ]; then \
	        : >$$log; touch $$work/.start; \
	        if (cd $$work && $$bin $(2) -max_total_time=$(1) $(FUZZ_RUNFLAGS) -artifact_prefix=$$art/ \
	                $$cor $(FUZZ_DIR)/seeds/$$t >$$log 2>&1); then rc=0; else rc=$$?; fi; \
	        if [ $$rc = 0 ]; then \
	            runs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $$log | tail -n 1); \
	            echo "fuzz $$t: $${runs:-?} runs, ok"; \
	        else \
	            ok=0; tail -n 60 $$log; \
	            crash=$$(find $$art -type f -newer $$work/.start | head -n 1); \
	            crash=$${crash#$(CURDIR)/}; \
	            echo "fuzz $$t: FAILED (exit $$rc); the input is $${crash:-(none saved: see the log)}:"; \
	            echo "    copy it into tests/fuzz/regress/$$t/ (make test replays it from then on); log: $(B)/fuzz/log/$$t.log"; \
	        fi; \
	    fi; \
	    if [ $$ok = 1 ]; then pass=$$((pass + 1)); else fail=$$((fail + 1)); fi; \
	done; \
	echo "fuzz: $$pass passed, $$fail failed"; \
	[ $$fail -eq 0 ]
endef

fuzz-smoke: fuzz-clang $(FUZZ_BINS) $(B)/fuzz/seeds/.stamp
	$(call fuzz_run,$(FUZZ_SMOKE_SECONDS),)

# One job, one worker: the reference machine and CI have two cores.
fuzz: fuzz-clang $(FUZZ_BINS) $(B)/fuzz/seeds/.stamp
	$(call fuzz_run,$(FUZZ_SECONDS),-jobs=1 -workers=1)

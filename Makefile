# SPDX-License-Identifier: GPL-2.0-or-later
# libmpa and the iWARP MPA toolkit.  See README.md.
#
#   make                 libmpa (static and shared), the programs, the Wireshark plugin
#   make check           the fast tests (a few minutes): unit tests, goldens, the plugin in tshark
#   make test            every test (the README's test command; CI runs it)
#   make install         into $(DESTDIR)$(PREFIX) (default /usr/local); make uninstall
#   make deb             the Debian packages, in build/deb/ (make deb-test checks them)
#   make bench           throughput figures (printed, never asserted)
#   make fuzz            libFuzzer targets for FUZZ_SECONDS each (default 600)
#   make deps            install the Debian build dependencies (scripts/deps.sh)
#
# The user's CC, CFLAGS, CPPFLAGS and LDFLAGS are taken from the
# environment or the command line and appended to, never replaced, on
# every object and link of the products (libmpa, the programs, the
# plugin): so dpkg-buildflags' hardening reaches them all.  Warnings are
# not errors in a user's build (a newer compiler may warn of new things);
# the project's tests build their own objects with -Werror, and
# `make werror` builds the products with it (make check and make test
# run it).

VERSION := $(shell cat VERSION)
SOVERSION := 0
CC      ?= cc
CLANG   ?= clang-14
CFLAGS  ?= -O2 -g
CPPFLAGS ?=
LDFLAGS ?=
WERROR  ?=
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CSTD    := -std=c11
VERSION_DEF := -DMPA_VERSION='"$(VERSION)"'
# The products' compile flags: the project's, then the user's.
PCFLAGS = $(CSTD) $(WARN) $(WERROR) -D_DEFAULT_SOURCE $(CPPFLAGS) $(CFLAGS)
# libmpa: libc only, no feature macros.
ALLCFLAGS = $(CSTD) $(WARN) $(WERROR) $(VERSION_DEF) -Iinclude -Isrc -fPIC $(CPPFLAGS) $(CFLAGS)
# The sanitizer builds also check the engine's lazily written ring
# against a copy made at once (MPA_RING_CHECK, src/stream.c).
TESTCFLAGS := $(CSTD) $(WARN) -Werror -O1 -g -Iinclude -Isrc -Itests -D_DEFAULT_SOURCE $(VERSION_DEF) \
              -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -DMPA_RING_CHECK

# Where make install puts things.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# The conformance suites, where mpa-conform finds them by default.
SUITEDIR   ?= $(DATADIR)/mpa-toolkit/suites

B        := build
LIB_SRCS := $(sort $(wildcard src/*.c))
LIB_HDRS := $(wildcard include/mpa/*.h include/mpa/*.def src/*.h)
LIB_OBJS := $(patsubst src/%.c,$(B)/obj/%.o,$(LIB_SRCS))
ASAN_OBJS := $(patsubst src/%.c,$(B)/asan/%.o,$(LIB_SRCS))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,$(B)/test/%,$(UNIT_SRCS))
TOOLS     := $(B)/mpa-decode $(B)/mpa-audit $(B)/mpa-capgen $(B)/jsonids $(B)/mpa-replay

# $(call c_library,NAME,DIR,FLAGS): the static library $(B)/libNAME.a of
# DIR/*.c (compiled with $(PCFLAGS) and FLAGS) and
# $(B)/libNAME-asan.a, the same under ASan+UBSan for the tests; objects
# in $(B)/DIR/ and $(B)/DIR-asan/, rebuilt when DIR/*.h or libmpa's
# headers change.  Used with $(eval) by the libraries' .mk files.
define c_library
$(B)/$(2)/%.o: $(2)/%.c $(wildcard $(2)/*.h) $(LIB_HDRS)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(PCFLAGS) $(3) -c $$< -o $$@
$(B)/$(2)-asan/%.o: $(2)/%.c $(wildcard $(2)/*.h) $(LIB_HDRS)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(TESTCFLAGS) $(3) -c $$< -o $$@
$(B)/lib$(1).a: $(patsubst $(2)/%.c,$(B)/$(2)/%.o,$(wildcard $(2)/*.c))
	@rm -f $$@
	ar rcs $$@ $$^
$(B)/lib$(1)-asan.a: $(patsubst $(2)/%.c,$(B)/$(2)-asan/%.o,$(wildcard $(2)/*.c))
	@rm -f $$@
	ar rcs $$@ $$^
endef

# The libraries under the programs (each .mk says what it builds).
include util/util.mk
include wire/wire.mk
include corpus/corpus.mk
include capture/capture.mk

.PHONY: all lib test unit capture-unit audit-golden golden-audit audit-live fuzz-smoke fuzz bench clean deps demo
PROGRAMS := $(B)/mpa-audit $(B)/mpa-capgen $(B)/mpa-decode $(B)/mpa-inject $(B)/mpa-peer $(B)/mpa-conform
all: lib $(PROGRAMS) $(TOOLS) plugin
lib: $(B)/libmpa.a $(B)/libmpa.so

$(B)/obj/%.o: src/%.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALLCFLAGS) -c $< -o $@

$(B)/asan/%.o: src/%.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(TESTCFLAGS) -c $< -o $@

$(B)/libmpa.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

# The shared library: libmpa.so.0 (SONAME), exporting only the public
# mpa_* API (src/libmpa.map); libmpa.so for linking.
$(B)/libmpa.so.$(VERSION): $(LIB_OBJS) src/libmpa.map
	$(CC) -shared $(CFLAGS) $(LDFLAGS) -Wl,-soname,libmpa.so.$(SOVERSION) -Wl,--version-script=src/libmpa.map \
	    -o $@ $(LIB_OBJS)

$(B)/libmpa.so.$(SOVERSION): $(B)/libmpa.so.$(VERSION)
	ln -sf libmpa.so.$(VERSION) $@

$(B)/libmpa.so: $(B)/libmpa.so.$(SOVERSION)
	ln -sf libmpa.so.$(SOVERSION) $@

$(B)/libmpa-asan.a: $(ASAN_OBJS)
	@rm -f $@
	ar rcs $@ $^

UNIT_LIBS := $(B)/libmpacorpus-asan.a $(B)/libmpawire-asan.a $(B)/libmpa-asan.a
$(B)/test/%: tests/unit/%.c tests/t.h $(CORPUS_HDRS) $(WIRE_HDRS) $(UNIT_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(TESTCFLAGS) $(CORPUS_CFLAGS) $(WIRE_CFLAGS) $< -o $@ $(UNIT_LIBS)

$(B)/mpa-decode: tools/mpa-decode.c $(UTIL_HDRS) $(B)/libmpautil.a $(B)/libmpa.a
	$(CC) $(PCFLAGS) -Iinclude $(UTIL_CFLAGS) $< -o $@ $(LDFLAGS) $(B)/libmpautil.a $(B)/libmpa.a

unit: $(UNIT_BINS)
	@scripts/run-tests.sh $(UNIT_BINS)

include conformance/conformance.mk
include dissector/dissector.mk
include injector/injector.mk
include conformance/conform/conform.mk
include conformance/conform/html.mk
include dut/siw/dut.mk
include dut/siw/siw-report.mk
include tests/fuzz/fuzz.mk

# The requirement catalogue, docs/requirements.md, written by
# tools/mpa-catalogue.c from include/mpa/findings.def and the suites'
# scripts (read with libinject's scenario parser).  `make catalogue` rewrites
# it; catalogue-check, run by `make unit`, fails while the committed file
# differs from what the generator writes.
.PHONY: catalogue catalogue-check
$(B)/mpa-catalogue: tools/mpa-catalogue.c $(INJ_HDRS) $(B)/libinject.a $(B)/libmpawire.a $(B)/libmpautil.a $(B)/libmpa.a
	$(CC) $(INJ_CFLAGS) tools/mpa-catalogue.c -o $@ $(LDFLAGS) $(B)/libinject.a $(INJ_LIBS)

catalogue: $(B)/mpa-catalogue
	$(B)/mpa-catalogue -o docs/requirements.md

catalogue-check: $(B)/mpa-catalogue
	@$(B)/mpa-catalogue -o $(B)/requirements.md
	@if diff -u docs/requirements.md $(B)/requirements.md; then \
	    echo "catalogue-check: docs/requirements.md is what build/mpa-catalogue writes"; \
	else \
	    echo "catalogue-check: FAILED: docs/requirements.md differs from include/mpa/findings.def" \
	         "and the suites (make catalogue, review the diff, commit)"; exit 1; \
	fi

unit: catalogue-check

# The spec coverage matrix, docs/spec-coverage.md, the figures block of
# README.md and the figures mpa-conform's reports state
# (conformance/conform/spec-coverage.inc), written by the same program
# (--coverage) from the hand-written tables docs/coverage/DOCUMENT.tsv
# (one row per normative sentence), findings.def and the suites.  `make coverage` rewrites them;
# coverage-check, run by `make unit`, fails while a table is malformed
# (tests/coverage/coverage-test.sh shows the errors) or one is stale.
.PHONY: coverage coverage-check
coverage: $(B)/mpa-catalogue
	$(B)/mpa-catalogue --coverage docs/coverage -o docs/spec-coverage.md
	$(B)/mpa-catalogue --coverage docs/coverage --coverage-c -o conformance/conform/spec-coverage.inc
	$(B)/mpa-catalogue --coverage docs/coverage --readme README.md -o $(B)/README.md
	cp $(B)/README.md README.md

coverage-check: $(B)/mpa-catalogue
	@B=$(B) tests/coverage/coverage-test.sh
	@$(B)/mpa-catalogue --coverage docs/coverage -o $(B)/spec-coverage.md
	@$(B)/mpa-catalogue --coverage docs/coverage --readme README.md -o $(B)/README.md
	@$(B)/mpa-catalogue --coverage docs/coverage --coverage-c -o $(B)/spec-coverage.inc
	@if diff -u docs/spec-coverage.md $(B)/spec-coverage.md && diff -u README.md $(B)/README.md && \
	    diff -u conformance/conform/spec-coverage.inc $(B)/spec-coverage.inc; then \
	    echo "coverage-check: docs/spec-coverage.md, README.md's figures and mpa-conform's" \
	         "(conformance/conform/spec-coverage.inc) are what build/mpa-catalogue writes"; \
	else \
	    echo "coverage-check: FAILED: docs/spec-coverage.md, README.md's figures or" \
	         "conformance/conform/spec-coverage.inc differ from docs/coverage/*.tsv," \
	         "findings.def and the suites (make coverage, review the diff, commit)"; exit 1; \
	fi

unit: coverage-check

# make fuzz: tshark with the plugin on mutated captures, then libFuzzer.
fuzz: plugin-fuzz

# The products built once more with every warning an error (in
# build/werror, so the normal build stays as the user asked).
.PHONY: werror release-test check
werror:
	@mkdir -p $(B)
	@$(MAKE) --no-print-directory -s B=$(B)/werror WERROR=-Werror all >$(B)/werror.log 2>&1 || \
	    { cat $(B)/werror.log; echo "werror: the build has warnings (build/werror.log)"; exit 1; }
	@echo "werror: the products build without a warning"

# The release: licences, man pages (tests/man-test.sh), headers,
# programs (--version, output never lost), make install / uninstall into
# a staging folder.
release-test: all
	@tests/release/license-test.sh
	@tests/man-test.sh
	@tests/release/headers-test.sh
	@tests/release/progs-test.sh
	@PREFIX=$(PREFIX) LIBDIR=$(LIBDIR) tests/release/install-test.sh

# The Debian packages, built by dpkg-buildpackage from a clean copy of
# the tracked tree: build/deb/*.deb.  deb-test also runs lintian, installs
# them, uses them from / (tshark loads the plugin as an ordinary user) and
# purges them again (root).
.PHONY: deb deb-test
deb:
	@tests/release/deb-test.sh --build

deb-test:
	@tests/release/deb-test.sh

# The fast tests (a few minutes, no network, no QEMU): what a package
# build runs.
check: layers werror unit capture-unit release-test golden-check audit-golden audit-shard capture-sweep plugin-golden
	@echo "make check: all passed"

test: layers werror unit capture-unit release-test golden-check audit-golden audit-shard capture-sweep audit-live audit-robust plugin-golden \
      plugin-robust plugin-gui plugin-matrix-ci peer-test utcp-test inject-test raw-test conform-test deb-test siw-golden dut-siw dut-siw-ipv6-ci fuzz-smoke
	@echo "make test: all suites passed"

bench: $(B)/mpa-bench $(B)/mpa-audit $(B)/mpa-capgen $(B)/dissector/iwmpa.so $(B)/mpa-peer $(B)/mpa-conform
	@mkdir -p $(B)/bench
	@rm -f $(B)/bench/*.pcap $(B)/bench/libmpa-figures.txt
	@{ if command -v tshark >/dev/null 2>&1; then \
	    $(B)/mpa-bench --pcap-dir $(B)/bench; \
	else \
	    $(B)/mpa-bench; \
	fi; \
	sh scripts/bench-tshark.sh $(B)/bench; \
	sh scripts/bench-audit.sh $(B)/bench; \
	sh scripts/bench-shard.sh $(B)/bench; \
	sh scripts/bench-plugin.sh $(B)/bench; \
	sh scripts/bench-peer.sh; \
	sh scripts/bench-conform.sh; } 2>&1 | tee $(B)/bench/bench.txt
	@sh scripts/bench-results.sh --write bench/RESULTS.md $(B)/bench/bench.txt

$(B)/mpa-bench: bench/mpa-bench.c $(CORPUS_HDRS) $(WIRE_HDRS) $(B)/libmpacorpus.a $(B)/libmpawire.a $(B)/libmpa.a
	$(CC) $(PCFLAGS) -Iinclude $(CORPUS_CFLAGS) $(WIRE_CFLAGS) $< -o $@ \
	    $(B)/libmpacorpus.a $(B)/libmpawire.a $(B)/libmpa.a

# Live capture: mpa-audit -i lo on scenarios played over real sockets.
$(B)/mpa-replay: tests/audit/replay.c $(CORPUS_HDRS) $(B)/libmpacorpus.a $(B)/libmpa.a
	$(CC) $(PCFLAGS) -Iinclude $(CORPUS_CFLAGS) $< -o $@ $(B)/libmpacorpus.a $(B)/libmpa.a

audit-live: $(B)/mpa-audit $(B)/mpa-replay $(B)/jsonids
	@scripts/live-audit.sh

deps:
	scripts/deps.sh

# ---- install ---------------------------------------------------------------
#
# make install [DESTDIR=...] [PREFIX=/usr/local] [BINDIR LIBDIR INCLUDEDIR
# DATADIR MANDIR PKGCONFIGDIR PLUGINDIR]: the programs, libmpa (shared,
# static, headers, libmpa.pc), the suites and data under
# $(DATADIR)/mpa-toolkit, the man pages, and the Wireshark plugin.
# make uninstall removes exactly that (and the folders it made, if empty).
TOOLKITDIR := $(DATADIR)/mpa-toolkit
# The plugin's colouring rules (dissector/colorfilters), apart from the
# toolkit's data: they ship with the plugin's package.
IWMPA_DATADIR := $(DATADIR)/iwmpa
INST_PROGRAMS := $(notdir $(PROGRAMS))
INST_HEADERS := $(wildcard include/mpa/*.h) include/mpa/findings.def
INST_SUITES := $(sort $(wildcard conformance/suites/*/*.json))
INST_SCENARIOS := $(sort $(wildcard injector/scenarios/*.json))
MAN1 := $(sort $(wildcard docs/*.1))
MAN3 := $(sort $(wildcard docs/*.3))
MAN5 := $(sort $(wildcard docs/*.5))
INSTALL ?= install

$(B)/libmpa.pc: src/libmpa.pc.in VERSION
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' $< >$@

.PHONY: install uninstall install-lib install-programs install-data install-man install-plugin
install: install-lib install-programs install-data install-man install-plugin

install-lib: $(B)/libmpa.a $(B)/libmpa.so $(B)/libmpa.pc
	$(INSTALL) -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/mpa $(DESTDIR)$(PKGCONFIGDIR)
	$(INSTALL) -m 0644 $(B)/libmpa.so.$(VERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf libmpa.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libmpa.so.$(SOVERSION)
	ln -sf libmpa.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libmpa.so
	$(INSTALL) -m 0644 $(B)/libmpa.a $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 0644 $(INST_HEADERS) $(DESTDIR)$(INCLUDEDIR)/mpa/
	$(INSTALL) -m 0644 $(B)/libmpa.pc $(DESTDIR)$(PKGCONFIGDIR)/

install-programs: $(PROGRAMS)
	$(INSTALL) -d $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 0755 $(PROGRAMS) $(DESTDIR)$(BINDIR)/

install-data:
	$(INSTALL) -d $(DESTDIR)$(TOOLKITDIR)/scenarios
	for d in $(sort $(notdir $(patsubst %/,%,$(dir $(INST_SUITES))))); do \
	    $(INSTALL) -d $(DESTDIR)$(SUITEDIR)/$$d && \
	    $(INSTALL) -m 0644 conformance/suites/$$d/*.json $(DESTDIR)$(SUITEDIR)/$$d/ || exit 1; \
	done
	$(INSTALL) -m 0644 $(INST_SCENARIOS) $(DESTDIR)$(TOOLKITDIR)/scenarios/
	$(INSTALL) -m 0644 docs/requirements.md docs/quirks.md captures/interop-demo.pcapng $(DESTDIR)$(TOOLKITDIR)/

install-man:
	$(INSTALL) -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man5
	$(INSTALL) -m 0644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	$(if $(MAN3),$(INSTALL) -m 0644 $(MAN3) $(DESTDIR)$(MANDIR)/man3/)
	$(if $(MAN5),$(INSTALL) -m 0644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/)

install-plugin: $(B)/dissector/iwmpa.so
	$(INSTALL) -d $(DESTDIR)$(PLUGINDIR)
	$(INSTALL) -m 0644 $(B)/dissector/iwmpa.so $(DESTDIR)$(PLUGINDIR)/
	$(INSTALL) -d $(DESTDIR)$(IWMPA_DATADIR)
	$(INSTALL) -m 0644 dissector/colorfilters $(DESTDIR)$(IWMPA_DATADIR)/

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(INST_PROGRAMS))
	rm -f $(DESTDIR)$(LIBDIR)/libmpa.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libmpa.so.$(SOVERSION) \
	    $(DESTDIR)$(LIBDIR)/libmpa.so $(DESTDIR)$(LIBDIR)/libmpa.a $(DESTDIR)$(PKGCONFIGDIR)/libmpa.pc
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/mpa/,$(notdir $(INST_HEADERS)))
	rm -f $(addprefix $(DESTDIR)$(SUITEDIR)/,$(patsubst conformance/suites/%,%,$(INST_SUITES)))
	rm -f $(addprefix $(DESTDIR)$(TOOLKITDIR)/scenarios/,$(notdir $(INST_SCENARIOS)))
	rm -f $(DESTDIR)$(TOOLKITDIR)/requirements.md $(DESTDIR)$(TOOLKITDIR)/quirks.md $(DESTDIR)$(TOOLKITDIR)/interop-demo.pcapng
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1))) \
	    $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(MAN3))) \
	    $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5)))
	rm -f $(DESTDIR)$(PLUGINDIR)/iwmpa.so $(DESTDIR)$(IWMPA_DATADIR)/colorfilters
	-rmdir $(DESTDIR)$(INCLUDEDIR)/mpa $(DESTDIR)$(SUITEDIR)/* $(DESTDIR)$(SUITEDIR) \
	    $(DESTDIR)$(TOOLKITDIR)/scenarios $(DESTDIR)$(TOOLKITDIR) $(DESTDIR)$(IWMPA_DATADIR) 2>/dev/null

clean:
	rm -rf $(B)

# Demo streams and golden outputs (captures/demo).  `make demo-streams`
# regenerates the inputs, `make golden` the expected outputs: review the
# diff before committing either.
$(B)/mpa-gen-demo: tools/mpa-gen-demo.c $(CORPUS_HDRS) $(B)/libmpacorpus.a $(B)/libmpa.a
	$(CC) $(PCFLAGS) -Iinclude $(CORPUS_CFLAGS) $< -o $@ $(B)/libmpacorpus.a $(B)/libmpa.a

demo-streams: $(B)/mpa-gen-demo
	$(B)/mpa-gen-demo captures/demo

golden: $(B)/mpa-decode
	scripts/golden.sh --update

golden-check: $(B)/mpa-decode
	scripts/golden.sh

# The include graph: every folder includes only from the layers below it
# (scripts/check-layers.sh holds the table).
.PHONY: layers
layers:
	@scripts/check-layers.sh

# The main job: mpa-audit on the bundled interop-event capture.  Its
# exit status is 1 (the capture holds errors, on purpose); that is the
# demo working, so make is told so.
demo: $(B)/mpa-audit
	@$(B)/mpa-audit captures/interop-demo.pcapng; rc=$$?; \
	if [ $$rc = 1 ]; then echo "(mpa-audit exit status 1: error-level findings, as this capture was made to show)"; \
	else exit $$rc; fi

# Golden tests of mpa-audit over captures/ (scripts/audit-golden.sh);
# golden-audit regenerates the captures and the expected outputs.
audit-golden: $(B)/mpa-audit $(B)/mpa-capgen $(B)/jsonids
	@scripts/audit-golden.sh

golden-audit: $(B)/mpa-audit $(B)/mpa-capgen $(B)/jsonids
	scripts/audit-golden.sh --update

# mpa-audit --shard K/N and mpa-audit merge: the merged shards of every
# reference capture equal one run (tests/audit/shard-merge.sh).
.PHONY: audit-shard
audit-shard: $(B)/mpa-audit $(B)/mpa-capgen $(B)/test/flowhash $(B)/test/direct
	@$(B)/test/flowhash
	@$(B)/test/direct $(B)
	@tests/audit/shard-merge.sh

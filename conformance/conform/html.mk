# SPDX-License-Identifier: GPL-2.0-or-later
# mpa-conform's HTML report (conformance/conform/html.h) and its test.
# Included by the root Makefile (uses B, CC, CSTD, WARN, CFLAGS,
# TESTCFLAGS, CJSON_CFLAGS, CJSON_LIBS); CONFORM_HTML_SRCS and
# CONFORM_HTML_HDRS are also what tests/fuzz/fuzz.mk builds fuzz_html from.
#
#   build/htmlgen        tests/conform/htmlgen.c: REPORT.json -> OUT.html
#   build/htmlgen-asan   the same under ASan+UBSan (what the test runs)
#   conform-html-test    tests/conform/html-test.sh: the fixture report
#                        through htmlgen, static checks, then Debian's
#                        chromium headless (DOM dump and a screenshot,
#                        build/conform/report.png)
#   conform-html-fixture regenerate tests/conform/fixture/ from real
#                        mpa-inject runs against mpa-peer (review the diff)

# The HTML report's files: html.h is its public header, the others are
# internal (conformance/conform/README.md says which does what).
CONFORM_HTML_FILES := html anchor assets brief check embed esc jget ladder overview reqview sb tables verdict words
CONFORM_HTML_SRCS := $(CONFORM_HTML_FILES:%=conformance/conform/%.c)
CONFORM_HTML_HDRS := $(CONFORM_HTML_FILES:%=conformance/conform/%.h)

$(B)/htmlgen: tests/conform/htmlgen.c $(CONFORM_HTML_SRCS) $(CONFORM_HTML_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(PCFLAGS) -Iconformance/conform $(CJSON_CFLAGS) \
	    $< $(CONFORM_HTML_SRCS) -o $@ $(CJSON_LIBS)

$(B)/htmlgen-asan: tests/conform/htmlgen.c $(CONFORM_HTML_SRCS) $(CONFORM_HTML_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(TESTCFLAGS) -Iconformance/conform $(CJSON_CFLAGS) \
	    $< $(CONFORM_HTML_SRCS) -o $@ $(CJSON_LIBS)

.PHONY: conform-html-test conform-html-fixture
conform-html-test: $(B)/htmlgen-asan $(B)/jget
	@tests/conform/html-test.sh

conform-html-fixture: $(B)/mpa-inject $(B)/mpa-peer $(B)/mpa-conform
	tests/conform/fixture/regen.sh

# SPDX-License-Identifier: GPL-2.0-or-later
# mpa-conform (included by the root Makefile after injector/injector.mk:
# uses INJ_HDRS, INJ_CFLAGS, INJ_LIBS from it).
#
#   conformance/mpa-conform.c   the program: its options, then calls into
#   conformance/conform/*.c     its modules: the tests (suite), the run
#                               (runner), the reports (jsonrep, junit,
#                               plan, term, reports, and the HTML report,
#                               html.mk); conformance/conform/README.md
#   conformance/suites/         the suites: scenario scripts with a "test" block

CONF_SRCS := $(sort $(wildcard conformance/conform/*.c))
CONF_HDRS := $(wildcard conformance/conform/*.h)
# The suites' folder once installed is compiled in (SUITEDIR).
CONF_CFLAGS = $(INJ_CFLAGS) -Iconformance/conform -DMPA_SUITES_DIR='"$(SUITEDIR)"'

$(B)/mpa-conform: conformance/mpa-conform.c $(CONF_SRCS) $(CONF_HDRS) $(INJ_HDRS) $(UTIL_HDRS) $(B)/libinject.a \
                  $(B)/libmpawire.a $(B)/libmpautil.a $(B)/libmpa.a conformance/conform/spec-coverage.inc
	$(CC) $(CONF_CFLAGS) conformance/mpa-conform.c $(CONF_SRCS) -o $@ $(LDFLAGS) $(B)/libinject.a $(INJ_LIBS)

# The suites against mpa-peer, correct and in each fault mode; the
# reports (JSON, JUnit, HTML in headless chromium) (tests/conform/).
.PHONY: conform-test
conform-test: $(B)/mpa-conform $(B)/mpa-peer $(B)/jget $(B)/htmlgen-asan $(B)/mpa-inject
	@tests/conform/conform-test.sh

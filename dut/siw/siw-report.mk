# SPDX-License-Identifier: GPL-2.0-or-later
# siw-report (included by the root Makefile after conformance/conformance.mk:
# uses B, CC, CSTD, WARN, CFLAGS from it and CJSON_CFLAGS, CJSON_LIBS from
# conformance/conformance.mk).
#
#   dut/siw/siw-report.c   a dut/siw/run.sh run as Markdown: summary, kernel
#                          BUGs, deviations, every verdict (run.sh --report)

$(B)/siw-report: dut/siw/siw-report.c
	@mkdir -p $(dir $@)
	$(CC) $(PCFLAGS) $(CJSON_CFLAGS) $< -o $@ $(CJSON_LIBS)

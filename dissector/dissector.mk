# SPDX-License-Identifier: GPL-2.0-or-later
# The Wireshark plugin (included by the root Makefile; uses B, CC, WARN,
# LIB_OBJS, LIB_HDRS from it).  Built against Debian's wireshark-dev
# (libwireshark-dev) with pkg-config; no CMake needed.
#
#   make plugin     build/dissector/iwmpa.so
#   make install    into Wireshark's global plugin folder (root)
#
# The plugin links libmpa and the capture layer (capture/: TCP reassembly
# and the MPA-connection layer it shares with mpa-audit) statically, so it
# depends on nothing but Wireshark's own libraries.

WS_CFLAGS    := $(shell pkg-config --cflags wireshark 2>/dev/null)
WS_LIBS      := $(shell pkg-config --libs wireshark 2>/dev/null)
WS_PLUGINDIR := $(shell pkg-config --variable=plugindir wireshark 2>/dev/null)

DISS_SRCS := dissector/plugin.c dissector/packet-iwmpa.c dissector/iwmpa-track.c dissector/iwmpa-tap.c
DISS_OBJS := $(patsubst dissector/%.c,$(B)/dissector/%.o,$(DISS_SRCS))
DISS_CFLAGS = -std=gnu11 $(WARN) $(WERROR) -DIWMPA_VERSION='"$(VERSION)"' $(WS_CFLAGS) -Iinclude -Icapture \
              -Idissector $(CPPFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden

$(B)/dissector/%.o: dissector/%.c dissector/iwmpa.h dissector/ws-compat.h dissector/problems.def $(CAP_HDRS) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	@[ -n "$(WS_PLUGINDIR)" ] || { echo "plugin: wireshark-dev not found (scripts/deps.sh installs it)"; exit 1; }
	$(CC) $(DISS_CFLAGS) -c $< -o $@

# Only Wireshark's plugin entry points are exported (dissector/plugin.map):
# libmpa and the capture layer are linked in whole but stay private.
$(B)/dissector/iwmpa.so: $(DISS_OBJS) $(B)/libmpacap.a $(B)/libmpa.a dissector/plugin.map
	$(CC) -shared $(CFLAGS) $(LDFLAGS) -Wl,--version-script=dissector/plugin.map -o $@ $(DISS_OBJS) \
	    $(B)/libmpacap.a $(B)/libmpa.a $(WS_LIBS)

.PHONY: plugin
plugin: $(B)/dissector/iwmpa.so

# Where make install puts the plugin: the epan folder of the plugin
# directory of the Wireshark it was built against (pkg-config names it).
PLUGINDIR ?= $(WS_PLUGINDIR)/epan

# ---- tests of the plugin in the real tshark ----------------------------
#
#   make plugin-golden   scripts/plugin-golden.sh: -T fields and -T json of
#                        every capture against dissector/tests/expected/,
#                        the findings against mpa-audit's, Decode As,
#                        in_charge, display filters, -z expert
#   make golden-plugin   rewrite dissector/tests/expected/ (review the diff)
#   make plugin-gui      dissector/tests/gui-check.sh: the Wireshark GUI under
#                        Xvfb as an ordinary user on two captures, screenshots
#                        into build/plugin-gui/, each screen checked with
#                        tshark (same profile) and the window titles; run by
#                        make test
#   make plugin-robust   scripts/plugin-robust.sh: tshark with the plugin on
#                        a few hundred mutated captures (no crash, hang or
#                        dissector bug); run by make test
#   make plugin-fuzz     the same for FUZZ_SECONDS (default 600)
#   make bench-plugin    scripts/bench-plugin.sh: tshark with the plugin
#                        against tshark with the built-in dissector of the
#                        same release, on this system and in the cached
#                        trixie and sid chroots; time and peak-RSS ratios
#   make plugin-matrix   scripts/plugin-matrix.sh: the whole project built
#                        with -Werror, the plugin's CMake build, its
#                        install folder and plugin-golden, on this system
#                        (Wireshark 4.0) and in Debian 13 (4.4) and
#                        unstable (4.6) chroots (scripts/chroot.sh: root,
#                        debootstrap, deb.debian.org; cached outside the
#                        clone in /var/cache/mpa-toolkit/chroots)
#   make plugin-matrix-ci  the same for this system and unstable (the
#                        oldest and the newest): run by make test
.PHONY: plugin-golden golden-plugin plugin-gui plugin-robust plugin-fuzz bench-plugin plugin-matrix plugin-matrix-ci

# Reads tshark's -T json and mpa-audit's --json for plugin-golden.sh.
$(B)/iwjson: dissector/tests/iwjson.c tests/util/slurp.h
	@mkdir -p $(dir $@)
	$(CC) $(PCFLAGS) $(CJSON_CFLAGS) -Itests $< -o $@ $(CJSON_LIBS)

plugin-golden: $(B)/dissector/iwmpa.so $(B)/mpa-audit $(B)/iwjson
	@scripts/plugin-golden.sh

golden-plugin: $(B)/dissector/iwmpa.so $(B)/mpa-audit $(B)/iwjson
	scripts/plugin-golden.sh --update

plugin-gui: $(B)/dissector/iwmpa.so
	@dissector/tests/gui-check.sh $(B)/plugin-gui

plugin-robust: $(B)/dissector/iwmpa.so
	@scripts/plugin-robust.sh

plugin-fuzz: $(B)/dissector/iwmpa.so
	@scripts/plugin-robust.sh --seconds $(FUZZ_SECONDS)

plugin-matrix:
	@scripts/plugin-matrix.sh

plugin-matrix-ci:
	@scripts/plugin-matrix.sh --ci

bench-plugin: $(B)/dissector/iwmpa.so $(B)/mpa-capgen
	@sh scripts/bench-plugin.sh $(B)/bench

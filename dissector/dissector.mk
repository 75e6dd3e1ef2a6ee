# The Wireshark plugin (included by the root Makefile; uses B, CC, WARN,
# LIB_OBJS, LIB_HDRS from it).  Built against Debian's wireshark-dev
# (libwireshark-dev) with pkg-config; no CMake needed.
#
#   make plugin     build/dissector/iwmpa.so
#   make install    into Wireshark's global plugin folder (root)
#
# The plugin links libmpa and the auditor's TCP reassembler statically,
# so it depends on nothing but Wireshark's own libraries.

WS_CFLAGS    := $(shell pkg-config --cflags wireshark 2>/dev/null)
WS_LIBS      := $(shell pkg-config --libs wireshark 2>/dev/null)
WS_PLUGINDIR := $(shell pkg-config --variable=plugindir wireshark 2>/dev/null)
IWMPA_VERSION := 0.1.0

DISS_SRCS := dissector/plugin.c dissector/packet-iwmpa.c dissector/iwmpa-track.c
DISS_OBJS := $(patsubst dissector/%.c,$(B)/dissector/%.o,$(DISS_SRCS)) $(B)/dissector/tcp.o
DISS_CFLAGS := -std=gnu11 $(WARN) -O2 -g -fPIC -fvisibility=hidden -DIWMPA_VERSION='"$(IWMPA_VERSION)"' \
               $(WS_CFLAGS) -Iinclude -Iconformance/audit -Idissector

$(B)/dissector/%.o: dissector/%.c dissector/iwmpa.h $(LIB_HDRS)
	@mkdir -p $(dir $@)
	@[ -n "$(WS_PLUGINDIR)" ] || { echo "plugin: wireshark-dev not found (scripts/deps.sh installs it)"; exit 1; }
	$(CC) $(DISS_CFLAGS) -c $< -o $@

$(B)/dissector/tcp.o: conformance/audit/tcp.c conformance/audit/tcp.h
	@mkdir -p $(dir $@)
	$(CC) $(DISS_CFLAGS) -c $< -o $@

$(B)/dissector/iwmpa.so: $(DISS_OBJS) $(LIB_OBJS)
	$(CC) -shared -fvisibility=hidden -o $@ $^ $(WS_LIBS)

.PHONY: plugin install
plugin: $(B)/dissector/iwmpa.so

install: $(B)/dissector/iwmpa.so
	install -D -m 0755 $(B)/dissector/iwmpa.so $(DESTDIR)$(WS_PLUGINDIR)/epan/iwmpa.so
	@echo "installed $(DESTDIR)$(WS_PLUGINDIR)/epan/iwmpa.so (tshark -G plugins lists it)"

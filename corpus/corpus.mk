# SPDX-License-Identifier: GPL-2.0-or-later
# libmpacorpus (included by the root Makefile, which defines c_library):
# the scenario corpus.
#
#   $(B)/libmpacorpus.a       corpus/*.c: scenario building (build.c), the
#                             split-feeding harness (run.c), the catalogue
#                             of named scenarios (cases.c)
#   $(B)/libmpacorpus-asan.a  the same under ASan+UBSan, for the unit tests
#
# Users compile with $(CORPUS_CFLAGS) and link the library before
# libmpa.  It uses libmpa's public headers and libc only.

CORPUS_CFLAGS := -Icorpus
CORPUS_HDRS := $(wildcard corpus/*.h)
$(eval $(call c_library,mpacorpus,corpus,-Iinclude $(CORPUS_CFLAGS)))

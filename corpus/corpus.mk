# libmpacorpus (included by the root Makefile; uses B, CC, CSTD, WARN,
# CFLAGS, TESTCFLAGS, LIB_HDRS from it): the scenario corpus.
#
#   $(B)/libmpacorpus.a       corpus/*.c: scenario building (build.c), the
#                             split-feeding harness (run.c), the catalogue
#                             of named scenarios (cases.c)
#   $(B)/libmpacorpus-asan.a  the same under ASan+UBSan, for the unit tests
#
# Users compile with $(CORPUS_CFLAGS) and link the library before
# libmpa.  It uses libmpa's public headers and libc only.

CORPUS_SRCS := $(sort $(wildcard corpus/*.c))
CORPUS_HDRS := $(wildcard corpus/*.h)
CORPUS_OBJS := $(patsubst corpus/%.c,$(B)/corpus/%.o,$(CORPUS_SRCS))
CORPUS_ASAN_OBJS := $(patsubst corpus/%.c,$(B)/corpus-asan/%.o,$(CORPUS_SRCS))
CORPUS_CFLAGS := -Icorpus

$(B)/corpus/%.o: corpus/%.c $(CORPUS_HDRS) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(CFLAGS) -D_DEFAULT_SOURCE -Iinclude $(CORPUS_CFLAGS) -c $< -o $@

$(B)/corpus-asan/%.o: corpus/%.c $(CORPUS_HDRS) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(TESTCFLAGS) $(CORPUS_CFLAGS) -c $< -o $@

$(B)/libmpacorpus.a: $(CORPUS_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(B)/libmpacorpus-asan.a: $(CORPUS_ASAN_OBJS)
	@rm -f $@
	ar rcs $@ $^

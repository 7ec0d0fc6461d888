# tpccbench - build, test and demo.  `make help` lists the targets.

CC       ?= cc
PG_INC   := $(shell pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)
WARN     := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wformat=2 -Wvla -Wwrite-strings
OPT      ?= -O2 -g
CFLAGS   ?= $(OPT)
ALL_CFLAGS = -std=c11 $(WARN) $(CFLAGS) -pthread
VERSION  := 0.1.0
# The commit, also in a `git archive` tree (no .git): see scripts/commit.sh.
COMMIT   := $(shell sh scripts/commit.sh)
CPPFLAGS += -D_GNU_SOURCE -Isrc -I$(PG_INC) -DTPCC_VERSION='"$(VERSION)"' -DTPCC_GIT_COMMIT='"$(COMMIT)"'
LDLIBS   := -lpq -lodbc -lyaml -ljansson -lmicrohttpd -lcurl -lm -pthread

ifeq ($(WERROR),1)
ALL_CFLAGS += -Werror
endif

# Each sanitizer flavour builds in a tree of its own (build/asan, build/tsan,
# ...) with its own binary there, so flavours never mix objects and
# ./tpccbench stays the normal build.  The tests run the binary named by
# TPCC_BIN (default ./tpccbench).
comma := ,
ifeq ($(SANITIZE),)
B   := build
BIN := tpccbench
else
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS    += -fsanitize=$(SANITIZE)
FLAVOUR := $(or $(if $(filter address$(comma)undefined undefined$(comma)address address,$(SANITIZE)),asan),$(if $(filter thread,$(SANITIZE)),tsan),san-$(subst $(comma),-,$(SANITIZE)))
# CC=clang gets its own tree too (build/asan-clang, ...).
B   := build/$(FLAVOUR)$(if $(findstring clang,$(CC)),-clang)
BIN := $(B)/tpccbench
endif

# src/tools/lazyfs_fuse.c is the main of tpccbench-lazyfs (below), not library code.
LAZYFS_MAIN := src/tools/lazyfs_fuse.c
LIB_SRC  := $(sort $(filter-out src/main.c $(LAZYFS_MAIN),$(shell find src -name '*.c')))
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/%.o) $(B)/schema_sql.o
SQL_SRC  := $(sort $(wildcard schema/*/*.sql))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
# Programs the integration tests drive (tests/helper/): not tests themselves.
HELPER_SRC := $(sort $(wildcard tests/helper/*.c))
HELPER_BIN := $(HELPER_SRC:tests/helper/%.c=$(B)/tests/helper/%)
# tpccbench-lazyfs (below) and libfuse3, when libfuse3-dev is installed.
# Without pkg-config (a fresh Debian before deps-test), libfuse3-dev's own paths.
FUSE_CFLAGS := $(or $(shell pkg-config --cflags fuse3 2>/dev/null),$(if $(wildcard /usr/include/fuse3/fuse.h),-I/usr/include/fuse3 -D_FILE_OFFSET_BITS=64))
FUSE_LIBS   := $(or $(shell pkg-config --libs fuse3 2>/dev/null),$(if $(wildcard /usr/include/fuse3/fuse.h),-lfuse3 -lpthread))
LAZYFS_BIN  := $(if $(SANITIZE),$(B)/,)tpccbench-lazyfs

.PHONY: all deps deps-test deps-demo deps-image image test unit-test integration-test demo clean help bench-load format fuzz \
	test-asan test-tsan test-sanitize sanitize-check install uninstall FORCE
all: $(BIN) $(if $(FUSE_LIBS),$(LAZYFS_BIN))

$(BIN): $(B)/src/main.o $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# tpccbench-lazyfs, the power-loss file system of the durability tests
# (docs/durability.md): a program of its own, so libfuse3 is linked into it
# alone and ./tpccbench never needs it.  `make` builds it where libfuse3-dev
# is installed (make deps-test installs it); beside $(BIN).
$(B)/src/tools/lazyfs_fuse.o: CPPFLAGS += $(FUSE_CFLAGS)
$(LAZYFS_BIN): $(B)/src/tools/lazyfs_fuse.o $(B)/src/tools/lazyfs.o $(B)/src/core/err.o
	$(CC) $(LDFLAGS) -o $@ $^ $(FUSE_LIBS) -pthread

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# The SQL of every dialect is compiled in, so the binary needs no install path.
$(B)/schema_sql.c: $(SQL_SRC) scripts/embed-sql.sh
	@mkdir -p $(B)
	sh scripts/embed-sql.sh $(SQL_SRC) > $@.tmp && mv $@.tmp $@

# The commit is compiled into main.o (--version) and record.o (run.json): the
# stamp changes, and they are rebuilt, only when the commit does.
$(B)/commit.stamp: FORCE
	@mkdir -p $(B)
	@echo '$(COMMIT)' | cmp -s - $@ || echo '$(COMMIT)' > $@
$(B)/src/main.o $(B)/src/results/record.o: $(B)/commit.stamp

$(B)/tests/%: tests/unit/%.c tests/unit/unit.h $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $(filter-out %.h,$^) $(LDFLAGS) $(LDLIBS) -lcmocka

$(B)/tests/helper/%: tests/helper/%.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

# tpccbench with transactions broken on purpose for tests/t/0045-acid.sh
# (TPCC_BROKEN, src/tpcc/txn.c): txn.c built again with TPCC_TEST_BROKEN,
# so the release binary carries no such switch.  Never installed.
BROKEN_BIN := $(B)/tests/helper/tpccbench-broken
$(B)/broken/txn.o: src/tpcc/txn.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DTPCC_TEST_BROKEN $(ALL_CFLAGS) -MMD -MP -c -o $@ $<
$(BROKEN_BIN): $(B)/src/main.o $(filter-out $(B)/src/tpcc/txn.o,$(LIB_OBJ)) $(B)/broken/txn.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

-include $(shell find $(B) -name '*.d' 2>/dev/null)

# What each target needs, installed when missing (as root; otherwise the
# exact apt-get line and exit 2).
deps:
	@sh scripts/deps.sh build
deps-test:
	@sh scripts/deps.sh test
deps-demo:
	@sh scripts/deps.sh demo
deps-image:
	@sh scripts/deps.sh image

# What `make test` runs (names without directory); test-tsan narrows them to
# the tests that run threads.
UNITS     := $(UNIT_SRC:tests/unit/%.c=%)
TESTS     := $(patsubst tests/t/%.sh,%,$(sort $(wildcard tests/t/*.sh)))
TEST_UNIT := $(UNITS:%=$(B)/tests/%)
# The slowest files start first (their times under ASan in a CI run), so
# that prove -j never waits at the end on one long file started late.
TEST_FIRST := 0005-cli-errors 0043-durability 0074-odbc-sqlite 0070-odbc 0080-bad-config \
	0098-workers 0011-crash 0037-terminals 0072-odbc-ansi 0020-load 0066-history 0035-modes \
	0065-study 0053-durability-study 0078-durability-odbc 0048-waits 0049-waits-io 0063-report-events 0071-odbc-modes 0099-image \
	0024-load-parts 0044-db-host-metrics 0033-load-faults
TEST_T    := $(patsubst %,tests/t/%.sh,$(filter $(TESTS),$(TEST_FIRST)) $(filter-out $(TEST_FIRST),$(TESTS)))

# Under a sanitizer every report goes to a file in $(SAN_LOG) (log_path), so
# a report from a process whose exit status a test does not look at still
# fails the run: scripts/san-check.sh prints the reports and fails if there
# are any.  ASan's leak checker is on; tests/lsan.supp and tests/tsan.supp
# hold suppressions for frames outside our code only.
SAN_LOG  := $(CURDIR)/$(B)/san-log
TEST_ENV := TPCC_BIN=$(CURDIR)/$(BIN) TPCC_HELPERS=$(CURDIR)/$(B)/tests/helper
ifneq ($(SANITIZE),)
TEST_ENV += ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:log_path=$(SAN_LOG)/asan \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$(SAN_LOG)/ubsan \
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$(CURDIR)/tests/tsan.supp:log_path=$(SAN_LOG)/tsan
endif

# Every unit and integration test, with the servers they need started by the
# tests, TEST_JOBS files at once (each test's servers are on a temp directory
# and a free port of its own, so they never meet); at the end the time each
# file took, slowest first (scripts/test-times.sh), and prove's summary again.
# Four: six ran the suite in less time (it waits more than it computes: a
# plain run used a quarter of 2 cores at four, an ASan run half), but its own
# load then failed tests whose runs compare the machine with itself (0066's
# change point, 0044's 0.5 s scrapes).
TEST_JOBS ?= 4
PROVE     := prove --timer --failures -j$(TEST_JOBS) --exec ''
PROVE_LOG := $(B)/prove.log
test: deps-test
	$(MAKE) $(BIN) $(LAZYFS_BIN) $(TEST_UNIT) $(HELPER_BIN) $(BROKEN_BIN)
ifneq ($(SANITIZE),)
	rm -rf $(SAN_LOG) && mkdir -p $(SAN_LOG)
endif
	rc=0; rm -f $(PROVE_LOG).rc; { $(TEST_ENV) CMOCKA_MESSAGE_OUTPUT=TAP $(PROVE) $(TEST_UNIT) $(TEST_T) || echo $$? >$(PROVE_LOG).rc; } \
	    | tee $(PROVE_LOG); [ ! -f $(PROVE_LOG).rc ] || rc=$$(cat $(PROVE_LOG).rc); rm -f $(PROVE_LOG).rc; \
	sh scripts/test-times.sh $(PROVE_LOG); \
	$(if $(SANITIZE),sh scripts/san-check.sh $(SAN_LOG) || rc=1;) exit $$rc

# The whole suite under ASan+UBSan (leak checker on), and under TSan the
# tests whose threads share state: the proxy unit test, load (parallel jobs,
# and its live endpoint), run with its VUs, delivery workers and monitor (interrupted too,
# and in every mode, and through a restart of the server), iobench and
# netbench workers, the proxy, VUs through ODBC, and the database host's scraper
# thread beside the monitor (0044), the ACID tests' second transaction on a
# thread of its own (0045).  The other tests run
# these same paths again at a higher cost.  0034-signals is left out: its
# second Ctrl-C _exits with loader threads unjoined on purpose, which TSan
# reports as a thread leak.
test-asan:
	$(MAKE) SANITIZE=address,undefined test

TSAN_UNITS := test_proxy
TSAN_TESTS := 0020-load 0021-load-metrics 0030-run 0031-run-signals 0032-run-faults 0035-modes \
	0040-iobench 0044-db-host-metrics 0045-acid 0050-netbench 0051-proxy 0071-odbc-modes 0098-workers
test-tsan:
	$(MAKE) SANITIZE=thread UNITS="$(TSAN_UNITS)" TESTS="$(TSAN_TESTS)" test

test-sanitize: test-asan test-tsan

unit-test: $(BIN) $(UNIT_BIN)
	$(TEST_ENV) CMOCKA_MESSAGE_OUTPUT=TAP $(PROVE) $(UNIT_BIN)

integration-test: $(BIN) $(LAZYFS_BIN) $(HELPER_BIN) $(BROKEN_BIN)
	$(TEST_ENV) $(PROVE) $(TEST_T)

# Private PostgreSQL, 1 warehouse: load, check, summary, stop.
demo: deps-demo
	$(MAKE) $(BIN)
	sh scripts/demo.sh

# libFuzzer on the config loader (tests/fuzz/fuzz_config.c) for FUZZ_SECONDS.  The corpus it
# grows is tests/data/fuzz-config (seeded from tests/data/config and tests/data/bad-config),
# minimised with -merge=1 afterwards; a crash, leak or hang is saved as build/fuzz/crash-*.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 600
FUZZ_CORPUS  := tests/data/fuzz-config
FUZZ_SEEDS   := tests/data/config tests/data/bad-config
FUZZ_FLAGS   := -std=c11 -g -O1 $(WARN) -Werror -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=all -fno-omit-frame-pointer

FUZZ_SRC     := tests/fuzz/fuzz_config.c src/core/config.c src/core/yaml.c src/core/err.c \
                src/core/secret.c src/core/part.c
build/fuzz/fuzz_config: $(FUZZ_SRC) src/core/config.h src/core/yaml.h src/core/err.h \
                        src/core/secret.h src/core/part.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -D_GNU_SOURCE -Isrc $(FUZZ_FLAGS) -o $@ $(FUZZ_SRC) -lyaml

build/fuzz/config.dict: src/core/config.c tests/fuzz/make-dict.sh
	@mkdir -p $(dir $@)
	sh tests/fuzz/make-dict.sh src/core/config.c > $@.tmp && mv $@.tmp $@

fuzz:
	@sh scripts/deps.sh fuzz
	$(MAKE) build/fuzz/fuzz_config build/fuzz/config.dict
	@mkdir -p $(FUZZ_CORPUS)
	build/fuzz/fuzz_config -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 \
	    -print_final_stats=1 -dict=build/fuzz/config.dict -artifact_prefix=build/fuzz/ \
	    $(FUZZ_CORPUS) $(FUZZ_SEEDS)
	rm -rf build/fuzz/merged && mkdir -p build/fuzz/merged
	build/fuzz/fuzz_config -merge=1 -max_len=8192 -timeout=10 build/fuzz/merged \
	    $(FUZZ_CORPUS) $(FUZZ_SEEDS)
	rm -rf $(FUZZ_CORPUS) && mv build/fuzz/merged $(FUZZ_CORPUS)
	@echo "fuzz: $$(ls $(FUZZ_CORPUS) | wc -l) inputs ($$(du -sh $(FUZZ_CORPUS) | cut -f1)) in $(FUZZ_CORPUS)"

# make install [PREFIX=/usr/local] [DESTDIR=...]: the binary (all SQL is
# compiled in, so it needs nothing else) and the man page.  INSTALL_BIN=FILE
# installs that binary as it is instead of building $(BIN) (the install test
# installs the binary under test, a sanitizer build too).
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
INSTALL     ?= install
INSTALL_BIN ?= $(BIN)

install: $(INSTALL_BIN)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	$(INSTALL) -m 0755 $(INSTALL_BIN) $(DESTDIR)$(BINDIR)/tpccbench
	$(INSTALL) -m 0644 docs/tpccbench.1 $(DESTDIR)$(MANDIR)/man1/tpccbench.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tpccbench $(DESTDIR)$(MANDIR)/man1/tpccbench.1

# The Dockerfile built with podman from a debian:bookworm-slim made here by
# debootstrap (no registry needed; scripts/image.sh; as root).
IMAGE ?= tpccbench:$(VERSION)
image:
	@sh scripts/deps.sh image
	sh scripts/image.sh $(IMAGE)

bench-load: $(BIN)
	sh bench/load.sh

format:
	clang-format -i $$(find src tests/unit -name '*.[ch]')

clean:
	rm -rf build tpccbench tpccbench-lazyfs

help:
	@echo "make            build ./tpccbench, and ./tpccbench-lazyfs where libfuse3-dev is installed"
	@echo "make install    install bin/tpccbench and share/man/man1/tpccbench.1 under PREFIX"
	@echo "                (default /usr/local; DESTDIR=... stages it elsewhere)"
	@echo "make uninstall  remove both (same PREFIX and DESTDIR)"
	@echo "make image      build the Dockerfile with podman as IMAGE (tpccbench:$(VERSION)), its"
	@echo "                base debian:bookworm-slim made here by debootstrap (as root)"
	@echo "make demo       install what is missing, run the demo on a private PostgreSQL"
	@echo "make test       install what is missing, run every unit and integration test"
	@echo "                (TEST_JOBS=4 files at once; TESTS=\"0030-run 0032-run-faults\" for some)"
	@echo "make test-asan  the whole suite under ASan+UBSan, leak checker on (build/asan)"
	@echo "make test-tsan  the tests that run threads under TSan (build/tsan)"
	@echo "make test-sanitize   both"
	@echo "make SANITIZE=address,undefined   build/asan/tpccbench; SANITIZE=thread: build/tsan"
	@echo "                (CC=clang works too; 'make SANITIZE=... test' runs the suite on it)"
	@echo "make WERROR=1   treat warnings as errors (CI)"
	@echo "make fuzz       libFuzzer on the config loader for FUZZ_SECONDS (600); grows and"
	@echo "                minimises tests/data/fuzz-config; findings in build/fuzz/crash-*"

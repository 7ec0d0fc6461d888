# tpccbench - build, test and demo.  `make help` lists the targets.

CC       ?= cc
PG_INC   := $(shell pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)
WARN     := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wformat=2 -Wvla -Wwrite-strings
OPT      ?= -O2 -g
CFLAGS   ?= $(OPT)
ALL_CFLAGS = -std=c11 $(WARN) $(CFLAGS) -pthread
VERSION  := 0.1.0
COMMIT   := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
CPPFLAGS += -D_GNU_SOURCE -Isrc -Ibuild -I$(PG_INC) -DTPCC_VERSION='"$(VERSION)"' -DTPCC_GIT_COMMIT='"$(COMMIT)"'
LDLIBS   := -lpq -lodbc -lyaml -ljansson -lm -pthread

ifeq ($(WERROR),1)
ALL_CFLAGS += -Werror
endif
ifneq ($(SANITIZE),)
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS    += -fsanitize=$(SANITIZE)
endif

LIB_SRC  := $(sort $(filter-out src/main.c,$(shell find src -name '*.c')))
LIB_OBJ  := $(LIB_SRC:%.c=build/%.o) build/schema_sql.o
SQL_SRC  := $(sort $(wildcard schema/*/*.sql))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=build/tests/%)

.PHONY: all deps test unit-test integration-test demo clean help bench-load format fuzz
all: tpccbench

tpccbench: build/src/main.o $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

build/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# The SQL of every dialect is compiled in, so the binary needs no install path.
build/schema_sql.c: $(SQL_SRC) scripts/embed-sql.sh
	@mkdir -p build
	sh scripts/embed-sql.sh $(SQL_SRC) > $@.tmp && mv $@.tmp $@

build/tests/%: tests/unit/%.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS) -lcmocka

-include $(shell find build -name '*.d' 2>/dev/null)

deps:
	@sh scripts/deps.sh build

# Every unit and integration test, with the servers they need started by the tests.
test: deps
	$(MAKE) tpccbench $(UNIT_BIN)
	CMOCKA_MESSAGE_OUTPUT=TAP prove --exec '' $(UNIT_BIN) tests/t/*.sh

unit-test: tpccbench $(UNIT_BIN)
	CMOCKA_MESSAGE_OUTPUT=TAP prove --exec '' $(UNIT_BIN)

integration-test: tpccbench
	prove tests/t/*.sh

# Private PostgreSQL, 1 warehouse: load, check, summary, stop.
demo: deps
	$(MAKE) tpccbench
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

build/fuzz/fuzz_config: tests/fuzz/fuzz_config.c src/core/config.c src/core/err.c src/core/config.h \
                        src/core/err.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -D_GNU_SOURCE -Isrc $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_config.c src/core/config.c \
	    src/core/err.c -lyaml

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

bench-load: tpccbench
	sh bench/load.sh

format:
	clang-format -i $$(find src tests/unit -name '*.[ch]')

clean:
	rm -rf build tpccbench

help:
	@echo "make            build ./tpccbench"
	@echo "make demo       install what is missing, run the demo on a private PostgreSQL"
	@echo "make test       install what is missing, run every unit and integration test"
	@echo "make SANITIZE=address,undefined   build with sanitizers (CC=clang works too)"
	@echo "make WERROR=1   treat warnings as errors (CI)"
	@echo "make fuzz       libFuzzer on the config loader for FUZZ_SECONDS (600); grows and"
	@echo "                minimises tests/data/fuzz-config; findings in build/fuzz/crash-*"

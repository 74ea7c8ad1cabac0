# x86_64 real-code walk test and benchmark. Included by tests/tests.mk; host x86_64 only.
#
#   make x86-walk-tests   build/tests/x86_walk_tests: C compiled by gcc -O2 -fomit-frame-pointer
#                         -Wa,--gsframe (SFrame V1 from gas 2.40), walked by sfunwind
#                         (build/host/libsfu.a) and compared with nongnu libunwind; run it with
#                         no arguments, it ends with "walk-x86: N passed, M failed"
#                         (--clobber-below-sp adds an informational experiment: tests/x86_64/walk.h)
#   make bench            build/bench/bench_walk: ns per frame of sfunwind, a frame-pointer walk,
#                         libunwind and libgcc on one 64-deep stack; bench_spread_F: sfunwind and
#                         libunwind on a stack spread over F generated functions, with the row
#                         cache's hits; row_cache_sizes.py: hit rate against cache size on those
#                         stacks and the QEMU sampling logs; bench_tables: the lookup on
#                         synthetic tables (the core without its row cache); what each feature
#                         adds to a kernel's link, the core's .text and the stack a walk needs
#                         per architecture; SFrame and .sfu_symbols sizes
#                         on googletest and the QEMU kernels; bench_profile: one profiler sample
#                         of the 64-deep stack; writes bench/results.md

X86_DIR := $(BUILD)/tests/x86
# The code under test: Debian's gcc and gas, as a user program would be built.
X86_CUT_CFLAGS := -O2 -fomit-frame-pointer -Wa,--gsframe -g -Wall -Wextra -Werror \
	-Iinclude -I$(BUILD)/config
X86_HARNESS_CXXFLAGS := -std=c++20 -O1 -g -Wall -Wextra -Werror -Iinclude -I$(BUILD)/config \
	-DSFU_HOSTED=1
X86_WALK_OBJS := $(X86_DIR)/walk_code.o $(X86_DIR)/walk_harness.o $(X86_DIR)/trap_flag.o
X86_WALK_HDRS := tests/x86_64/walk.h include/sfu/unwind.h include/sfu/sframe.h $(CONFIG_H)

$(X86_DIR)/walk_code.o: tests/x86_64/walk_code.c $(X86_WALK_HDRS) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	gcc $(X86_CUT_CFLAGS) -c $< -o $@

$(X86_DIR)/walk_harness.o: tests/x86_64/walk_harness.cpp $(X86_WALK_HDRS) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(HOST_CXX) $(X86_HARNESS_CXXFLAGS) -c $< -o $@

$(X86_DIR)/trap_flag.o: tests/x86_64/trap_flag.S | $(DEPS_STAMP)
	@mkdir -p $(@D)
	gcc -c $< -o $@

$(BUILD)/tests/x86_walk_tests: $(X86_WALK_OBJS) $(HOST_DIR)/libsfu.a
	$(HOST_CXX) -o $@ $(X86_WALK_OBJS) $(HOST_DIR)/libsfu.a -lunwind -pthread

.PHONY: x86-walk-tests
x86-walk-tests: $(BUILD)/tests/x86_walk_tests

# ---- Benchmark ----------------------------------------------------------------------------------
BENCH_DIR := $(BUILD)/bench
BENCH_ARCHS := x86_64 arm64 s390x
BENCH_SIZE_x86_64 := size
BENCH_SIZE_arm64 := aarch64-linux-gnu-size
BENCH_SIZE_s390x := s390x-linux-gnu-size
BENCH_STACK_USAGE := $(BENCH_DIR)/stack-usage

# The whole program carries frame records, SFrame rows and DWARF CFI: every method can walk it.
$(BENCH_DIR)/bench_walk: bench/bench_walk.cpp bench/descend.h bench/pin_cpu.h bench/this_process.h include/sfu/unwind.h include/sfu/sframe.h $(HOST_DIR)/libsfu.a \
		| $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(HOST_CXX) -std=c++20 -O2 -g -fno-omit-frame-pointer -Wa,--gsframe -Wall -Wextra -Werror \
		-I. -Iinclude -Isrc -Itests -I$(BUILD)/config -DSFU_HOSTED=1 -o $@ $< $(HOST_DIR)/libsfu.a \
		-lunwind -ldl -pthread

# One profiler sample of the same stack (bench/bench_profile.cpp), on the host core built with the
# profiler (configs/profile.config), a second build of it as for bench_tables below.
BENCH_PROFILE_CORE := $(BENCH_DIR)/profile-core
.PHONY: bench-profile-lib
bench-profile-lib:
	@$(MAKE) --no-print-directory BUILD=$(BENCH_PROFILE_CORE) KCONFIG_CONFIG=configs/profile.config \
		SFU_INSTALL_DEPS=no host >/dev/null
$(BENCH_DIR)/bench_profile: bench/bench_profile.cpp bench/descend.h bench/pin_cpu.h bench/this_process.h \
		include/sfu/profile.h include/sfu/unwind.h bench-profile-lib | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(HOST_CXX) -std=c++20 -O2 -g -Wa,--gsframe -Wall -Wextra -Werror -I. -Iinclude -DSFU_HOSTED=1 -o $@ $< \
		$(BENCH_PROFILE_CORE)/host/libsfu.a -pthread

# The lookup on synthetic tables, measured on the host core built without the row cache (a
# second build of it, as tests/variant builds one); the tables come from the tests' encoder
# (tests/support/sframe_builder.cpp).
BENCH_NO_CACHE := $(BENCH_DIR)/no-row-cache
BENCH_TABLES_SRCS := bench/bench_tables.cpp tests/support/sframe_builder.cpp
.PHONY: bench-no-row-cache-lib
bench-no-row-cache-lib:
	@$(MAKE) --no-print-directory BUILD=$(BENCH_NO_CACHE) KCONFIG_CONFIG=bench/no-row-cache.config \
		SFU_INSTALL_DEPS=no host >/dev/null
$(BENCH_DIR)/bench_tables: $(BENCH_TABLES_SRCS) bench/pin_cpu.h tests/support/sframe_builder.h include/sfu/unwind.h \
		include/sfu/sframe.h bench-no-row-cache-lib | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(HOST_CXX) -std=c++20 -O2 -g -Wall -Wextra -Werror -I. -Iinclude -Isrc -Itests -I$(BENCH_NO_CACHE)/config \
		-DSFU_HOSTED=1 -o $@ $(BENCH_TABLES_SRCS) $(BENCH_NO_CACHE)/host/libsfu.a

# The walk on a stack spread over many functions (bench/bench_spread.cpp): F generated functions
# (bench/gen_spread.py; 100,000 take gcc minutes, built once), linked twice: with the default core
# (timed) and with the core that counts the row cache's hits (bench/row-cache-stats.config). Not
# position-independent, the generated code from a 64 KiB boundary: both programs walk the same
# addresses, on the same sets of the cache, run after run (the bench compares their lookup PCs).
BENCH_SPREAD_FUNCTIONS := 100 100000
BENCH_STATS := $(BENCH_DIR)/row-cache-stats
.PHONY: bench-row-cache-stats-lib
bench-row-cache-stats-lib:
	@$(MAKE) --no-print-directory BUILD=$(BENCH_STATS) KCONFIG_CONFIG=bench/row-cache-stats.config \
		SFU_INSTALL_DEPS=no host >/dev/null
$(BENCH_DIR)/spread_%.c: bench/gen_spread.py
	@mkdir -p $(@D)
	python3 bench/gen_spread.py $* $@
$(BENCH_DIR)/spread_%.o: $(BENCH_DIR)/spread_%.c bench/spread.h
	gcc -O2 -fomit-frame-pointer -Wa,--gsframe -I. -c $< -o $@
$(BENCH_DIR)/bench_spread.o: bench/bench_spread.cpp bench/spread.h bench/pin_cpu.h bench/this_process.h include/sfu/unwind.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(HOST_CXX) -std=c++20 -O2 -g -fomit-frame-pointer -Wa,--gsframe -Wall -Wextra -Werror -I. -Iinclude \
		-c $< -o $@
$(BENCH_DIR)/bench_spread_%: $(BENCH_DIR)/spread_%.o $(BENCH_DIR)/bench_spread.o $(HOST_DIR)/libsfu.a
	$(HOST_CXX) -no-pie -o $@ $(BENCH_DIR)/spread_$*.o $(BENCH_DIR)/bench_spread.o $(HOST_DIR)/libsfu.a -lunwind -ldl -pthread
$(BENCH_DIR)/bench_spread_stats_%: $(BENCH_DIR)/spread_%.o $(BENCH_DIR)/bench_spread.o bench-row-cache-stats-lib
	$(HOST_CXX) -no-pie -o $@ $(BENCH_DIR)/spread_$*.o $(BENCH_DIR)/bench_spread.o $(BENCH_STATS)/host/libsfu.a -lunwind \
		-ldl -pthread
.PRECIOUS: $(BENCH_DIR)/spread_%.c $(BENCH_DIR)/spread_%.o
# The QEMU sampling runs whose walks bench/row_cache_sizes.py replays: make qemu-test's logs, where
# present (the table says which it had).
BENCH_QEMU_LOG_x86_64 := $(QEMU_DIR)/logs/x86_64_gen-v2.log
BENCH_QEMU_LOG_arm64 := $(QEMU_DIR)/logs/arm64_gen-v2.log
BENCH_QEMU_LOG_s390x := $(QEMU_DIR)/logs/s390x_gen-v2.log
BENCH_SPREAD_PROGRAMS := $(foreach f,$(BENCH_SPREAD_FUNCTIONS),$(BENCH_DIR)/bench_spread_$(f) $(BENCH_DIR)/bench_spread_stats_$(f))

$(BENCH_DIR)/footprint: bench/footprint.cpp | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(HOST_CXX) -std=c++20 -O2 -Wall -Wextra -Werror -o $@ $<

# .text of build/<arch>/libsfu.a, and the core built again with -fstack-usage and call-graph
# info into a scratch directory for the stack a walk needs. Before them, what each feature adds
# to a kernel's link: bench/footprint_links.sh links bench/footprint_probe.c against a build of
# the core per configuration (kept in $(BENCH_LINKS)/lib, rebuilt only where sources changed).
BENCH_LINKS := $(BENCH_DIR)/footprint-links
.PHONY: bench-footprint
bench-footprint: $(BENCH_DIR)/footprint
	@rm -rf $(BENCH_STACK_USAGE)
	@for a in $(BENCH_ARCHS); do \
		$(MAKE) --no-print-directory ARCH=$$a lib >/dev/null || exit 1; \
		$(MAKE) --no-print-directory ARCH=$$a BUILD=$(BENCH_STACK_USAGE) \
			KCFLAGS='$(KCFLAGS) -fstack-usage -fcallgraph-info=su' lib >/dev/null || exit 1; \
	done
	MAKE='$(MAKE)' KCFLAGS='$(KCFLAGS)' bash bench/footprint_links.sh $(BENCH_LINKS) $(BENCH_ARCHS)
	$(BENCH_DIR)/footprint --out $(BENCH_DIR)/footprint.md --links $(BENCH_LINKS) $(foreach a,$(BENCH_ARCHS),\
		--arch $(a) $(BENCH_SIZE_$(a)) $(BUILD)/$(a)/libsfu.a $(BENCH_STACK_USAGE)/$(a)/obj)

# The symbol tables measured (bench/symbols_size.sh): googletest's (the image sframe_size.sh
# builds) and the gen-v2 test kernels' of each architecture.
BENCH_SYMBOL_KERNELS := $(foreach a,$(BENCH_ARCHS),$(QEMU_DIR)/$(a)/gen-v2.elf)

.PHONY: bench
bench: $(BENCH_DIR)/bench_walk $(BENCH_DIR)/bench_profile $(BENCH_DIR)/bench_tables $(BENCH_SPREAD_PROGRAMS) bench-footprint tools \
		$(BENCH_SYMBOL_KERNELS)
	bash bench/sframe_size.sh $(TOOLS_DIR)/sfu $(BENCH_DIR)/sframe-size $(BENCH_DIR)/sframe-size.md \
		$(foreach a,$(BENCH_ARCHS),$(a)=$(QEMU_DIR)/$(a)/gen-v2.elf)
	bash bench/symbols_size.sh $(TOOLS_DIR)/sfu $(BENCH_DIR)/symbols $(BENCH_DIR)/symbols.md \
		googletest=$(BENCH_DIR)/sframe-size/gtest_sample1.elf \
		$(foreach a,$(BENCH_ARCHS),$(a)=$(QEMU_DIR)/$(a)/gen-v2.elf)
	$(BENCH_DIR)/bench_tables --results $(BENCH_DIR)/tables.md
	@rm -f $(BENCH_DIR)/spread.txt
	@for f in $(BENCH_SPREAD_FUNCTIONS); do \
		$(BENCH_DIR)/bench_spread_$$f --pcs > $(BENCH_DIR)/spread_$$f.pcs && \
		$(BENCH_DIR)/bench_spread_stats_$$f --pcs | cmp -s - $(BENCH_DIR)/spread_$$f.pcs || \
			{ echo "bench_spread: the counting twin walks other PCs than the timed program"; exit 1; }; \
		hits=$$($(BENCH_DIR)/bench_spread_stats_$$f --hits) && \
		$(BENCH_DIR)/bench_spread_$$f --hits-from "$$hits" | tee -a $(BENCH_DIR)/spread.txt || exit 1; \
	done
	$(BENCH_DIR)/bench_walk --results bench/results.md --tables $(BENCH_DIR)/tables.md --footprint $(BENCH_DIR)/footprint.md \
		--spread $(BENCH_DIR)/spread.txt
	$(BENCH_DIR)/bench_profile --markdown $(BENCH_DIR)/profile.md
	python3 bench/row_cache_sizes.py --markdown $(foreach f,$(BENCH_SPREAD_FUNCTIONS),spread $(f) $(BENCH_DIR)/spread_$(f).pcs) \
		$(foreach a,$(BENCH_ARCHS),$(if $(wildcard $(BENCH_QEMU_LOG_$(a))),qemu $(a) $(BENCH_QEMU_LOG_$(a)))) \
		> $(BENCH_DIR)/row-cache-sizes.md
	@grep '^row-cache-hits:' $(BENCH_DIR)/row-cache-sizes.md
	{ echo; cat $(BENCH_DIR)/profile.md; echo; cat $(BENCH_DIR)/sframe-size.md; echo; cat $(BENCH_DIR)/symbols.md; echo; \
		cat $(BENCH_DIR)/row-cache-sizes.md; } \
		>> bench/results.md

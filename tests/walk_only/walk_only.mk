# The walk-only suite: the core built for the host with configs/walk-only.config (under ASan and
# UBSan), and tests/walk_only/*.cpp against it: what the configuration leaves out answers as its
# Kconfig help says. Included by tests/tests.mk; tests/check.sh runs it.
WALK_ONLY_TEST_DIR := $(BUILD)/variant-walk-only
WALK_ONLY_TEST_CONFIG_H := $(WALK_ONLY_TEST_DIR)/config/sfu_autoconf.h
WALK_ONLY_TEST_CORE := $(patsubst %.cpp,$(WALK_ONLY_TEST_DIR)/obj/%.o,$(CORE_SRCS)) \
	$(patsubst %.S,$(HOST_DIR)/obj/%.o,$(HOST_ASM))
WALK_ONLY_TEST_OBJS := $(patsubst %.cpp,$(WALK_ONLY_TEST_DIR)/obj/%.o,$(sort $(wildcard tests/walk_only/*.cpp)) \
	$(SUPPORT_SRCS))

$(WALK_ONLY_TEST_CONFIG_H): Kconfig scripts/kconfig.py configs/walk-only.config | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(PYTHON) scripts/kconfig.py header Kconfig configs/walk-only.config $@

# The core and the tests alike see the walk-only header (the tests read config.h too).
$(WALK_ONLY_TEST_DIR)/obj/src/%.o: src/%.cpp $(CORE_HDRS) $(WALK_ONLY_TEST_CONFIG_H) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(HOST_CXX) -I$(WALK_ONLY_TEST_DIR)/config $(HOST_CORE_CXXFLAGS) $(SAN) -c $< -o $@
$(WALK_ONLY_TEST_DIR)/obj/tests/%.o: tests/%.cpp $(CORE_HDRS) $(SUPPORT_HDRS) $(WALK_ONLY_TEST_CONFIG_H) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(HOST_CXX) -I$(WALK_ONLY_TEST_DIR)/config $(TEST_CXXFLAGS) -c $< -o $@

$(BUILD)/tests/walk_only_tests: $(WALK_ONLY_TEST_OBJS) $(WALK_ONLY_TEST_CORE)
	$(HOST_CXX) $(SAN) -o $@ $^ -lgtest -lgtest_main -pthread

check: $(BUILD)/tests/walk_only_tests

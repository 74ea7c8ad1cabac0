# Host tools. Included by the Makefile.
#   make tools    build/tools/sfu: tools/sfu.cpp (the command dispatcher) and the tools library
# Grouped by concern: tools/elf/ (ELF files), tools/dwarf/ (DWARF CFI), tools/sframe/ (SFrame
# writer, generator, verifier, dump), tools/commands/ (one file per `sfu` command and what they
# share). The tools library is every tools/*/*.cpp but the commands; unit tests link it too
# (tests/tests.mk). Hosted C++: the standard library is fine here; the core it links is built by
# `make host`. Includes name files from the top of the tree: "tools/elf/elf_file.h".

TOOLS_DIR := $(BUILD)/tools
TOOLS_MAIN := tools/sfu.cpp
TOOLS_COMMAND_SRCS := $(sort $(wildcard tools/commands/*.cpp))
TOOLS_LIB_SRCS := $(filter-out $(TOOLS_COMMAND_SRCS),$(sort $(wildcard tools/*/*.cpp)))
TOOLS_HDRS := $(sort $(wildcard tools/*/*.h))
TOOLS_OBJS := $(patsubst tools/%.cpp,$(TOOLS_DIR)/obj/%.o,$(TOOLS_MAIN) $(TOOLS_COMMAND_SRCS) $(TOOLS_LIB_SRCS))
TOOLS_CXXFLAGS := -std=c++20 -O2 -g -Wall -Wextra -Werror \
	-I. -Iinclude -Isrc -I$(BUILD)/config -DSFU_HOSTED=1

tools: $(TOOLS_DIR)/sfu

$(TOOLS_DIR)/obj/%.o: tools/%.cpp $(TOOLS_HDRS) $(CORE_HDRS) $(CONFIG_H) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(HOST_CXX) $(TOOLS_CXXFLAGS) -c $< -o $@

$(TOOLS_DIR)/sfu: $(TOOLS_OBJS) $(HOST_DIR)/libsfu.a
	$(HOST_CXX) -o $@ $(TOOLS_OBJS) $(HOST_DIR)/libsfu.a

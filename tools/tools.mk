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
# Debug information: line tables only (-g1: backtraces and addr2line name file:line). Full -g
# costs about 45% more compile time (71 s of CPU for a clean build instead of 49, gcc 12) for
# variables and types in a debugger: make TOOLS_DEBUG=-g tools in a fresh build directory (the
# objects do not record their flags). -g does not change the code gcc generates.
TOOLS_DEBUG ?= -g1
TOOLS_CXXFLAGS := -std=c++20 -O2 $(TOOLS_DEBUG) -Wall -Wextra -Werror \
	-I. -Iinclude -Isrc -I$(BUILD)/config -DSFU_HOSTED=1

# Each object depends on the headers it includes: gcc writes them into OBJ.d (-MMD; -MP: a
# deleted header is no error), so a change to one header rebuilds the objects that include it,
# not the whole tool. An object without its .d (from a build before these rules, or cut short)
# depends on every header, as all did before. The rules themselves too: a flag changed here
# rebuilds everything.
TOOLS_DEPFLAGS = -MMD -MP -MF $(@:.o=.d)
tools_objs_without_deps := $(filter-out $(patsubst %.d,%.o,$(wildcard $(TOOLS_OBJS:.o=.d))),$(TOOLS_OBJS))

tools: $(TOOLS_DIR)/sfu

$(TOOLS_DIR)/obj/%.o: tools/%.cpp $(CONFIG_H) tools/tools.mk | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(HOST_CXX) $(TOOLS_CXXFLAGS) $(TOOLS_DEPFLAGS) -c $< -o $@
$(tools_objs_without_deps): $(TOOLS_HDRS) $(CORE_HDRS)
-include $(wildcard $(TOOLS_OBJS:.o=.d))

$(TOOLS_DIR)/sfu: $(TOOLS_OBJS) $(HOST_DIR)/libsfu.a
	$(HOST_CXX) -o $@ $(TOOLS_OBJS) $(HOST_DIR)/libsfu.a

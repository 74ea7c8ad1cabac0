// sfu: the host tool. `sfu COMMAND ARGS...`; each command lives in tools/commands/ and is one row
// of kCommands; `sfu COMMAND --help` prints the command's usage. Exit status: 0 done, 1 the input
// was refused (one line on stderr says why; memory that runs out too), 2 usage error.
#include <cstdio>
#include <new>
#include <stdexcept>
#include <string>

#include "tools/commands/commands.h"

namespace {

using namespace sfu::tools::cli;

int run_help(const Command &self, const Args &args);

const Command kHelpCommand = {"help", "[COMMAND]", "show this text, or one command's usage", run_help};

const Command *const kCommands[] = {
    &kHelpCommand, &kDumpCommand, &kGenCommand, &kVerifyCommand, &kDiffCommand, &kSymbolizeCommand, &kCrashCommand,
    &kSymbolsCommand, &kBreakpadCommand, &kMinidumpCommand, &kStackwalkCommand, &kNameCommand, &kProfileCommand,
};

const Command *find_command(const std::string &name) {
  for (const Command *c : kCommands)
    if (name == c->name) return c;
  return nullptr;
}

void print_overview(FILE *to) {
  fprintf(to, "usage: sfu COMMAND [ARGS...]\n\ncommands:\n");
  for (const Command *c : kCommands) fprintf(to, "  %-10s %s\n", c->name, c->summary);
  fprintf(to, "\n`sfu help COMMAND` shows a command's arguments.\n");
}

int run_help(const Command &self, const Args &args) {
  if (args.empty()) {
    print_overview(stdout);
    return kExitOk;
  }
  if (args.size() > 1) return usage_error(self, "one command at a time");
  const Command *c = find_command(args[0]);
  if (!c) return usage_error(self, "no such command: " + args[0]);
  print_usage(stdout, *c);
  return kExitOk;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    print_overview(stderr);
    return kExitUsage;
  }
  const Command *c = find_command(argv[1]);
  if (!c) {
    fprintf(stderr, "sfu: no such command: %s\n", argv[1]);
    print_overview(stderr);
    return kExitUsage;
  }
  // `sfu COMMAND --help` is `sfu help COMMAND`, for every command.
  if (argc == 3 && std::string(argv[2]) == "--help") {
    print_usage(stdout, *c);
    return kExitOk;
  }
  // No command aborts: memory that runs out (a process limit, an input crafted to need more than
  // the commands' budgets allow) or any other exception is a refusal, exit status 1, that says
  // what was being done.
  Args args(argv + 2, argv + argc);
  std::string what;
  for (const std::string &a : args) what += " " + a;
  try {
    return c->run(*c, args);
  } catch (const std::bad_alloc &) {
    fprintf(stderr, "sfu %s: out of memory (an allocation failed) working on%s: refused\n", c->name, what.c_str());
  } catch (const std::length_error &) {
    fprintf(stderr, "sfu %s: out of memory (a size past what can be allocated) working on%s: refused\n", c->name,
            what.c_str());
  } catch (const std::exception &e) {
    fprintf(stderr, "sfu %s: %s, working on%s: refused\n", c->name, e.what(), what.c_str());
  }
  return kExitFailed;
}

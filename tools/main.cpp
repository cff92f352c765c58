// gridcheck: test-and-verification harness for the grid-sync host split.
#include <cstdio>

#include "tools/commands.hpp"
#include "tools/exit_codes.hpp"

int main(int argc, char** argv) {
  using namespace gridcheck::tools;
  CLI::App app{
      "gridcheck: checks that a grid-sync host split computes, byte for byte, what one launch with a true "
      "grid barrier computes"};
  app.name("gridcheck");
  app.require_subcommand(1);
  app.set_version_flag("--version", "gridcheck 0.1.0");

  int exit_code = kExitOk;
  const CommandRegistrar kCommands[] = {
      register_fmt,
      register_validate,
      register_plan,
      register_run,
      register_devices,
      register_prove,
      register_diff,
      register_fuzz,
      register_replay,
      register_reduce,
      register_mutants,
  };
  for (CommandRegistrar add : kCommands) add(app, exit_code);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int cli_code = app.exit(e);
    return cli_code == 0 ? kExitOk : kExitBadInput;
  }
  return exit_code;
}

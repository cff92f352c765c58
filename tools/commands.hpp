#pragma once
// Each subcommand lives in its own cmd_<name>.cpp and registers itself on the root CLI11 app.
// `exit_code` is where the subcommand's callback stores its result (see exit_codes.hpp).

#include <CLI/CLI.hpp>

namespace gridcheck::tools {

using CommandRegistrar = void (*)(CLI::App& root, int& exit_code);

// One line per subcommand; main.cpp lists them in --help order.
void register_fmt(CLI::App& root, int& exit_code);
void register_validate(CLI::App& root, int& exit_code);
void register_plan(CLI::App& root, int& exit_code);
void register_run(CLI::App& root, int& exit_code);
void register_devices(CLI::App& root, int& exit_code);
void register_prove(CLI::App& root, int& exit_code);
void register_diff(CLI::App& root, int& exit_code);
void register_fuzz(CLI::App& root, int& exit_code);
void register_replay(CLI::App& root, int& exit_code);
void register_reduce(CLI::App& root, int& exit_code);
void register_mutants(CLI::App& root, int& exit_code);
void register_gen(CLI::App& root, int& exit_code);
void register_export(CLI::App& root, int& exit_code);

}  // namespace gridcheck::tools

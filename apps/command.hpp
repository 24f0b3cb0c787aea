// apps/command.hpp — how a `prox` subcommand plugs into main.cpp.
//
// A command is one file, apps/commands/<name>.cpp, defining a setup function
// that adds its options to the CLI11 subcommand it is given and returns the
// function that runs it (after parsing). main.cpp lists every command in one
// plain table of {name, description, setup}. Runners return the exit code:
// 0 success, 1 bad input or failure; they throw UsageError for wrong usage
// (exit 2) and any std::exception for bad input (exit 1, one line on stderr).
#pragma once

#include <functional>
#include <stdexcept>

#include <CLI/CLI.hpp>

namespace prox::cli {

/// Runs a parsed command; returns the process exit code.
using Runner = std::function<int()>;
/// Adds a command's options to `app` and returns its runner.
using Setup = Runner (*)(CLI::App& app);

struct Command {
  const char* name;
  const char* description;
  Setup setup;
};

/// Wrong usage found after parsing (a bad --size, an unknown output extension): exit 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

Runner setup_info(CLI::App& app);
Runner setup_closest(CLI::App& app);
Runner setup_raycast(CLI::App& app);
Runner setup_render(CLI::App& app);
Runner setup_field2d(CLI::App& app);
Runner setup_demo(CLI::App& app);
Runner setup_bench(CLI::App& app);
Runner setup_sphere(CLI::App& app);
#ifdef PROX_HAVE_SDL2
Runner setup_magnet(CLI::App& app);  // SDL2 window (built only when SDL2 is found)
Runner setup_view(CLI::App& app);    // SDL2 window (built only when SDL2 is found)
#endif
Runner setup_sdf(CLI::App& app);
Runner setup_hausdorff(CLI::App& app);
Runner setup_sample(CLI::App& app);

}  // namespace prox::cli

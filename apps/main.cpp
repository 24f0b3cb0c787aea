// apps/main.cpp — the `prox` command: a table of subcommands, parsed by CLI11.
//
// Exit codes: 0 success, 1 bad input or failure, 2 wrong usage. Every error is
// one line on stderr, "prox <command>: <what>". Adding a command: write
// apps/commands/<name>.cpp with a setup function, declare it in command.hpp,
// add one row below.
#include <exception>
#include <iostream>

#include "command.hpp"

namespace {

using prox::cli::Command;

const Command commands[] = {
    {"info", "counts, bounds, closed or not, index memory and build time of a mesh",
     prox::cli::setup_info},
    {"closest", "closest point on a mesh for each point of a file (CSV or .npy out)",
     prox::cli::setup_closest},
    {"raycast", "first hit, any hit, all hits or hit count for each ray of a file",
     prox::cli::setup_raycast},
    {"sphere", "which triangles each sphere of a file touches (sphere vs mesh overlap)",
     prox::cli::setup_sphere},
    {"render", "ray-cast picture of a mesh: depth, normal, triangle id or distance slice",
     prox::cli::setup_render},
    {"field2d", "distance-field picture of a 2D scene", prox::cli::setup_field2d},
    {"demo", "the main job on built-in meshes: queries, timings and pictures",
     prox::cli::setup_demo},
    {"hausdorff", "certified Hausdorff distance, mean, RMS and Chamfer between two meshes",
     prox::cli::setup_hausdorff},
    {"sample", "area-weighted surface samples with triangle ids and barycentrics",
     prox::cli::setup_sample},
    {"bench", "prox beside Embree and CGAL on the peer workloads", prox::cli::setup_bench},
#ifdef PROX_HAVE_SDL2
    {"magnet", "window: every 2D shape's closest point to the mouse (seed 004's Magnet)",
     prox::cli::setup_magnet},
    {"view", "window: a mesh ray-cast by prox, picking and a probe's closest point",
     prox::cli::setup_view},
#endif
    {"sdf", "signed distance grid of a mesh (.npy .npz .vti), exact at every node",
     prox::cli::setup_sdf},
};

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"prox: closest points, ray hits and distance fields on triangle meshes", "prox"};
  app.set_version_flag("--version", std::string("prox ") + PROX_VERSION);
  app.require_subcommand(1, 1);
  app.fallthrough(false);
  struct Entry {
    CLI::App* app;
    prox::cli::Runner run;
    const char* name;
  };
  std::vector<Entry> entries;
  for (const Command& c : commands) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    entries.push_back({sub, c.setup(*sub), c.name});
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string where = "prox";
    for (const Entry& en : entries)
      if (en.app->parsed()) where += std::string(" ") + en.name;
    std::cerr << where << ": " << one_line(e.what()) << " (see '" << where << " --help')\n";
    return 2;
  }
  for (const Entry& en : entries) {
    if (!en.app->parsed()) continue;
    try {
      return en.run();
    } catch (const prox::cli::UsageError& e) {
      std::cerr << "prox " << en.name << ": " << one_line(e.what()) << " (see 'prox " << en.name
                << " --help')\n";
      return 2;
    } catch (const std::bad_alloc&) {
      std::cerr << "prox " << en.name << ": out of memory\n";
      return 1;
    } catch (const std::exception& e) {
      std::cerr << "prox " << en.name << ": " << one_line(e.what()) << "\n";
      return 1;
    }
  }
  return 2;
}

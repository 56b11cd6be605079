// The `libra` command-line tool: parses the command line, initialises Kokkos and
// runs one subcommand. Every failure ends in a message and an exit code (see
// common.hpp), never in a crash.
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "common.hpp"
#include "libra/version.hpp"

namespace {

// Kokkos' own flags (--kokkos-threads=4, ...) go to Kokkos, the rest to CLI11.
// Kokkos only sees the --kokkos-* ones: given a bare --help, Kokkos 3.4 would
// print its own help too.
void split_arguments(int argc, char* argv[], std::vector<char*>& kokkos,
                     std::vector<std::string>& ours) {
  kokkos.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--kokkos-", 9) == 0) {
      kokkos.push_back(argv[i]);
    } else {
      ours.emplace_back(argv[i]);
    }
  }
}

int run(int argc, char* argv[]) {
  using namespace libra::cli;
  std::vector<char*> kokkos_argv;
  std::vector<std::string> args;
  split_arguments(argc, argv, kokkos_argv, args);

  CLI::App app("Libra: load-balanced sparse linear algebra on Kokkos", "libra");
  app.set_version_flag("--version", libra::version());
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 success, 1 failure (e.g. OUT cannot be written), 2 usage error,\n"
      "3 malformed input file. Kokkos flags (--kokkos-threads=N, ...) are passed on.\n"
      "Progress is shown on stderr when it is a terminal (after LIBRA_PROGRESS_DELAY\n"
      "seconds, default 1).");
  const std::vector<Command> commands = {add_info_command(app), add_convert_command(app),
                                         add_spgemm_command(app),
                                         add_simrank_command(app)};

  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 wants them so
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // prints help, version or the error
    return code == 0 ? exit_ok : exit_usage;
  }

  int kokkos_argc = static_cast<int>(kokkos_argv.size());
  kokkos_argv.push_back(nullptr);
  Kokkos::ScopeGuard kokkos(kokkos_argc, kokkos_argv.data());
  for (const Command& command : commands) {
    if (command.app->parsed()) return command.run();
  }
  return exit_usage;  // unreachable: require_subcommand(1)
}

}  // namespace

int main(int argc, char* argv[]) {
  using namespace libra::cli;
  try {
    return run(argc, argv);
  } catch (const Failure& e) {
    print_error(e.what());
    return e.code();
  } catch (const libra::InputError& e) {
    print_error(e.what());
    return exit_bad_input;
  } catch (const std::exception& e) {
    print_error(e.what());
    return exit_failure;
  } catch (...) {
    print_error("unknown error");
    return exit_failure;
  }
}

// The `libra` command-line tool: parses the command line, initialises Kokkos and
// runs one subcommand. Every failure ends in a message and an exit code (see
// common.hpp), never in a crash; stdout carries the results alone.
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common.hpp"
#include "libra/config.hpp"
#include "libra/core/topology.hpp"
#include "libra/io/write.hpp"
#include "mpi_session.hpp"
#if LIBRA_ENABLE_MPI
#include "libra/dist/launch.hpp"
#endif
#include "libra/version.hpp"

namespace {

bool launched_by_an_mpi_launcher() {
#if LIBRA_ENABLE_MPI
  return libra::dist::launched_by_mpi();
#else
  return false;
#endif
}

int bind_rank_to_its_share() {
#if LIBRA_ENABLE_MPI
  return libra::dist::bind_rank_before_start();
#else
  return 0;
#endif
}

int threads_per_rank() {
#if LIBRA_ENABLE_MPI
  return libra::dist::host_threads_per_rank();
#else
  return 1;
#endif
}

// Kokkos 3.4's OpenMP backend prints a warning on stdout unless OMP_PROC_BIND is
// set, and the OpenMP runtime reads OMP_PROC_BIND, OMP_PLACES and OMP_NUM_THREADS
// only when the program is loaded. So the tool sets Kokkos' recommended values
// where the user has set none and starts itself again, once (they are set then),
// so that they take effect. Should the restart fail, the run goes on with unbound
// threads. Under an MPI launcher the default is unbound threads, and each rank
// runs its share of the host's cores rather than all of them
// (libra::dist::host_threads_per_rank); a launcher that bound no rank has each
// rank bound to its share before the restart, so that a user's OMP_PROC_BIND
// binds the rank's threads within it instead of every rank's first thread to the
// host's first core (libra::dist::bind_rank_before_start).
void default_threading(char* argv[]) {
  const bool mpi = launched_by_an_mpi_launcher();
  // Bound here, a rank runs as many threads as its share has units.
  const int share = mpi ? bind_rank_to_its_share() : 0;
  bool changed = share > 0;
  const std::string threads =
      mpi ? std::to_string(share > 0 ? share : threads_per_rank()) : std::string();
  for (const auto& [name, value] :
       {std::pair<const char*, const char*>{"OMP_PROC_BIND", mpi ? "false" : "spread"},
        std::pair<const char*, const char*>{"OMP_PLACES", mpi ? nullptr : "threads"},
        std::pair<const char*, const char*>{"OMP_NUM_THREADS",
                                            mpi ? threads.c_str() : nullptr}}) {
    if (!value) continue;
    if (!std::getenv(name)) {
      ::setenv(name, value, 0);
      changed = true;
    }
  }
  if (!changed) return;
  // Where OMP_PROC_BIND binds, the OpenMP runtime has bound this thread to its
  // first place, and exec keeps a thread's mask: the restarted runtime would build
  // its places on that one core (every rank's the same under mpirun, and a plain
  // run's threads all on one core). So the thread gets the process's units back.
  if (share == 0) (void)libra::bind_calling_thread(libra::started_processing_units());
  ::execv("/proc/self/exe", argv);
}

// Runs f with stdout sent to stderr: whatever Kokkos prints while starting or
// stopping (warnings, --kokkos-help) must not mix with the results on stdout.
template <class F>
void with_stdout_on_stderr(F&& f) {
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  if (saved >= 0) ::dup2(STDERR_FILENO, STDOUT_FILENO);
  const auto restore = [saved] {
    std::fflush(stdout);
    if (saved < 0) return;
    ::dup2(saved, STDOUT_FILENO);
    ::close(saved);
  };
  try {
    f();
  } catch (...) {
    restore();
    throw;
  }
  restore();
}

class KokkosSession {
 public:
  KokkosSession(int argc, char* argv[]) {
    with_stdout_on_stderr([&] { Kokkos::initialize(argc, argv); });
  }
  ~KokkosSession() {
    with_stdout_on_stderr([] { Kokkos::finalize(); });
  }
  KokkosSession(const KokkosSession&) = delete;
  KokkosSession& operator=(const KokkosSession&) = delete;
};

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

// The first word that is not an option names the subcommand (the tool's own
// options take no values); "" when it is a known one or there is none.
std::string unknown_subcommand(const std::vector<std::string>& args,
                               const std::vector<libra::cli::Command>& commands) {
  for (const std::string& a : args) {
    if (!a.empty() && a[0] == '-') continue;
    for (const auto& c : commands) {
      if (c.app->get_name() == a) return "";
    }
    return a;
  }
  return "";
}

const char* const footer =
    "Exit codes: 0 success; 1 other failure (an input that cannot be read: missing,\n"
    "a directory; an output that cannot be written); 2 usage error; 3 malformed input\n"
    "(the message names the file and line; nothing is written).\n"
    "Inputs: .mtx and .mm (any case) are Matrix Market and must start with the\n"
    "%%MatrixMarket banner; every other name is an edge list (2 fields per line, or\n"
    "3 with weights, never mixed). An empty .mtx lacks its banner (exit 3); an edge\n"
    "list without edges (empty, blank or comments only) is a 0 x 0 matrix, or the\n"
    "shape of its '# libra: ROWS x COLS' header.\n"
    "Kokkos flags (--kokkos-threads=N, ...) are passed on. OMP_PROC_BIND and\n"
    "OMP_PLACES default to spread and threads when unset (the tool restarts itself\n"
    "once to apply them); set them (e.g. OMP_PROC_BIND=false) to choose otherwise.\n"
    "Under mpirun, threads are unbound (unless OMP_PROC_BIND is set), a rank the\n"
    "launcher left unbound is bound to its share of the host's cores, and\n"
    "OMP_NUM_THREADS defaults to that share (or the cores the launcher bound it to).\n"
    "Progress is shown on stderr when it is a terminal (after LIBRA_PROGRESS_DELAY\n"
    "seconds, default 1).";

int run(int argc, char* argv[]) {
  using namespace libra::cli;
  std::vector<char*> kokkos_argv;
  std::vector<std::string> args;
  split_arguments(argc, argv, kokkos_argv, args);

  CLI::App app("Libra: load-balanced sparse linear algebra on Kokkos", "libra");
  app.set_version_flag("--version", libra::version());
  app.require_subcommand(1);
  app.footer(footer);
  const std::vector<Command> commands = {
      add_info_command(app), add_convert_command(app), add_spgemm_command(app),
      add_spmm_command(app), add_spmv_command(app),    add_simrank_command(app)};

  const std::string unknown = unknown_subcommand(args, commands);
  if (!unknown.empty()) {
    std::string names;
    for (const auto& c : commands)
      names += (names.empty() ? "" : ", ") + c.app->get_name();
    print_error("unknown subcommand '" + unknown + "'; the subcommands are " + names +
                " (libra --help says more)");
    return exit_usage;
  }
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 wants them so
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    // Prints help, version or the error; under mpirun, rank 0 speaks for all.
    std::ostringstream none;
    const int code = quiet_rank() ? app.exit(e, none, none) : app.exit(e);
    return code == 0 ? exit_ok : exit_usage;
  }

  ::signal(SIGPIPE, SIG_IGN);  // a closed pipe is a write error (exit 1), not a kill
  libra::io::remove_temporaries_on_signals();
  MpiSession mpi(nullptr, nullptr);  // before Kokkos, finalised after it
  std::string device;
#if LIBRA_ENABLE_MPI
  // One GPU per rank: the launcher's local rank picks it, unless a --kokkos-*
  // flag already chose.
  const bool chosen = std::any_of(kokkos_argv.begin(), kokkos_argv.end(), [](char* a) {
    return std::strncmp(a, "--kokkos-device-id", 18) == 0 ||
           std::strncmp(a, "--kokkos-num-devices", 20) == 0;
  });
  if (mpi_active() && !chosen) {
    if (const int gpu = libra::dist::gpu_for_local_rank(); gpu >= 0) {
      device = "--kokkos-device-id=" + std::to_string(gpu);
      kokkos_argv.push_back(device.data());
    }
  }
#endif
  int kokkos_argc = static_cast<int>(kokkos_argv.size());
  kokkos_argv.push_back(nullptr);
  KokkosSession kokkos(kokkos_argc, kokkos_argv.data());
  for (const Command& command : commands) {
    if (!command.app->parsed()) continue;
    if (mpi_size() > 1 && command.app->get_name() != "spmv") {
      print_error("only `libra spmv` runs on several MPI ranks; run `libra " +
                  command.app->get_name() + "` without mpirun");
      mpi_barrier();  // no rank exits (and has the launcher end the job) before rank 0
                      // spoke
      return exit_usage;
    }
    return command.run();
  }
  return exit_usage;  // unreachable: require_subcommand(1)
}

}  // namespace

int main(int argc, char* argv[]) {
  using namespace libra::cli;
  default_threading(argv);
  try {
    return run(argc, argv);
  } catch (const Failure& e) {
    print_error(e.what());
    return e.code();
  } catch (const libra::io::FileError& e) {
    print_error(e.what());
    return exit_failure;
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

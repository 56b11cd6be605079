#pragma once
// What every `libra` subcommand shares: exit codes, error reporting, the matrix
// types the tool works in, and reading a file into them.
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>

#include "libra/core/error.hpp"
#include "libra/format/csr.hpp"
#include "libra/io/read.hpp"
#include "progress.hpp"

namespace libra::cli {

enum ExitCode : int {
  exit_ok = 0,
  exit_failure = 1,    // anything else: an output that cannot be written, ...
  exit_usage = 2,      // the command line itself is wrong
  exit_bad_input = 3,  // the input file is malformed or too large for its types
};

// A failure with the exit code it maps to; main prints "libra: <what>".
class Failure : public std::runtime_error {
 public:
  Failure(ExitCode code, const std::string& what)
      : std::runtime_error(what), code_(code) {}
  ExitCode code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

// Prints "libra: message" on stderr.
void print_error(const std::string& message);

// A registered subcommand: its CLI11 node and what to run once it parsed.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command add_info_command(CLI::App& parent);
Command add_convert_command(CLI::App& parent);
Command add_spgemm_command(CLI::App& parent);
Command add_simrank_command(CLI::App& parent);

// The tool computes in double with std::size_t offsets on the default execution
// space; ordinals are int unless the file's dimensions need 64 bits.
using Space = Kokkos::DefaultExecutionSpace;
using Device = Kokkos::Device<Space, Space::memory_space>;
template <class Ordinal>
using Matrix = Csr<double, Ordinal, std::size_t, Device>;

io::ReadOptions read_options(bool one_based);

// Reads `path` and calls visit(matrix, info) with the narrowest ordinal type
// that holds its dimensions. Errors of the input (InputError, OverflowError)
// become Failure(exit_bad_input).
template <class Visitor>
int visit_matrix(const std::string& path, const io::ReadOptions& options,
                 Visitor&& visit) {
  io::FileInfo info;
  std::optional<Matrix<int>> narrow;
  std::optional<Matrix<std::int64_t>> wide;
  try {
    Progress progress("reading " + path);
    try {
      narrow = io::read_matrix<double, int, std::size_t, Device>(path, options, &info);
    } catch (const OverflowError&) {
      // Too many rows or columns for int: read again with 64-bit ordinals.
      wide = io::read_matrix<double, std::int64_t, std::size_t, Device>(path, options,
                                                                        &info);
    }
  } catch (const InputError& e) {
    throw Failure(exit_bad_input, e.what());
  } catch (const OverflowError& e) {
    throw Failure(exit_bad_input, path + ": " + e.what());
  }
  return narrow ? visit(*narrow, info) : visit(*wide, info);
}

// Names used in both the text and the JSON output.
const char* format_name(io::FileFormat format);
const char* field_name(io::Field field);
const char* symmetry_name(io::Symmetry symmetry);

}  // namespace libra::cli

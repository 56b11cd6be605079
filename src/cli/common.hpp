#pragma once
// What every `libra` subcommand shares: exit codes, error reporting, the matrix
// types the tool works in, reading a file into them, and choosing, opening and
// writing the output.
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "libra/core/error.hpp"
#include "libra/format/csr.hpp"
#include "libra/io/read.hpp"
#include "libra/io/write.hpp"
#include "progress.hpp"

namespace libra::cli {

enum ExitCode : int {
  exit_ok = 0,
  exit_failure = 1,    // anything else: an output that cannot be written, a missing input
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
Command add_spmm_command(CLI::App& parent);
Command add_spmv_command(CLI::App& parent);
Command add_simrank_command(CLI::App& parent);

// The tool computes in double with std::size_t offsets on the default execution
// space; ordinals are int unless the file's dimensions need 64 bits.
using Space = Kokkos::DefaultExecutionSpace;
using Device = Kokkos::Device<Space, Space::memory_space>;
template <class Ordinal>
using Matrix = Csr<double, Ordinal, std::size_t, Device>;

// ---- input -------------------------------------------------------------------------

// How input files are read: --one-based and --from, which every reading
// subcommand offers (add_input_options).
struct InputOptions {
  bool one_based = false;
  std::string from;  // "mtx", "edges", or empty: from the file name
};
void add_input_options(CLI::App& app, InputOptions& options);
io::ReadOptions read_options(const InputOptions& options);

// Reads `path` and calls visit(matrix, info) with the narrowest ordinal type
// that holds its dimensions. A file that cannot be read becomes
// Failure(exit_failure); a malformed or too large one Failure(exit_bad_input).
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
      // Too many rows or columns for int (found at the size line): 64-bit ordinals.
      wide = io::read_matrix<double, std::int64_t, std::size_t, Device>(path, options,
                                                                        &info);
    }
  } catch (const io::FileError& e) {
    throw Failure(exit_failure, e.what());
  } catch (const InputError& e) {
    throw Failure(exit_bad_input, e.what());
  } catch (const OverflowError& e) {  // read_matrix names the file
    throw Failure(exit_bad_input, e.what());
  }
  return narrow ? visit(*narrow, info) : visit(*wide, info);
}

// ---- output ------------------------------------------------------------------------

// -o/--output (or a positional OUT) with --to, which every writing subcommand
// offers (add_output_options).
struct OutputOptions {
  std::string path;  // empty: no output
  std::string to;    // "mtx", "edges", or empty: from the name
};
void add_output_options(CLI::App& app, OutputOptions& options, const std::string& what);
// Rejects an empty OUT name (CLI11 validator).
std::string non_empty_name(std::string& name);

// The output, opened before any work so that an unwritable path fails first
// (exit 1); the format is chosen by open_output (exit 2 for a name it cannot
// tell the format from).
struct Output {
  std::unique_ptr<io::OutputFile> file;  // null: no output requested
  io::FileFormat format = io::FileFormat::matrix_market;
  bool is_stdout = false;  // "-" or /dev/stdout: the report goes to stderr
  explicit operator bool() const { return file != nullptr; }
};
Output open_output(const OutputOptions& options);

// Where the report (text or JSON) goes: stdout, or stderr when the matrix does.
inline std::FILE* report_stream(const Output& out) {
  return out.is_stdout ? stderr : stdout;
}

// Writes A to the opened output (values unless `pattern`), and commits it.
template <class M>
void write_output(Output& out, const M& A, bool pattern = false) {
  if (!out) return;
  try {
    Progress progress("writing " + out.file->path());
    io::WriteOptions options;
    options.pattern = pattern;
    io::write_matrix(*out.file, A, out.format, options);
  } catch (const std::exception& e) {
    // The writer removed its temporary: nothing is left behind.
    throw Failure(exit_failure, e.what());
  }
}

// The help text that says how outputs are named, for the subcommands' footers.
extern const char* const output_help;

// ---- flags -------------------------------------------------------------------------

// "1000", "64KiB", "2GB", "1.5GiB", "4G": a byte count (K, M, G, T and KiB...
// are powers of 1024; KB, MB, GB, TB powers of 1000), or nullopt after writing
// what is wrong into `problem`.
std::optional<std::size_t> parse_bytes(const std::string& text, std::string& problem);

// Names used in both the text and the JSON output.
// The most resident memory this process has used so far (getrusage), in bytes:
// host memory, which on a GPU build does not include what lives on the device.
std::uint64_t peak_resident_bytes();

const char* format_name(io::FileFormat format);
const char* field_name(io::Field field);
const char* symmetry_name(io::Symmetry symmetry);

}  // namespace libra::cli

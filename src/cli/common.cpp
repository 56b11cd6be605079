#include "common.hpp"

#include "mpi_session.hpp"

#include <sys/resource.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace libra::cli {

void print_error(const std::string& message) {
  if (quiet_rank()) return;  // under mpirun rank 0 reports for every rank
  std::fprintf(stderr, "libra: %s\n", message.c_str());
  std::fflush(stderr);
}

// ---- input -------------------------------------------------------------------------

void add_input_options(CLI::App& app, InputOptions& options) {
  app.add_flag("--one-based", options.one_based,
               "Edge-list node ids start at 1 (Matrix Market is always 1-based)");
  app.add_option("--from", options.from,
                 "Read inputs as this format whatever their names say (default: .mtx and "
                 ".mm are Matrix Market, every other name an edge list)")
      ->check(CLI::IsMember({"mtx", "edges"}));
}

io::ReadOptions read_options(const InputOptions& options) {
  io::ReadOptions o;
  o.snap_index_base = options.one_based ? 1 : 0;
  if (options.from == "mtx") o.format = io::FileFormat::matrix_market;
  if (options.from == "edges") o.format = io::FileFormat::snap;
  return o;
}

// ---- output ------------------------------------------------------------------------

const char* const output_help =
    "Outputs: .mtx and .mm (any case) are written as Matrix Market, .txt, .el, .tsv\n"
    "and .edges as edge lists (a '# libra: ROWS x COLS, NNZ entries' header, then\n"
    "0-based 'i j value' lines: the shape and the values survive reading it back);\n"
    "--to mtx|edges decides for any other name. '-' is stdout (Matrix Market unless\n"
    "--to edges; the report then goes to stderr). The output is opened before any\n"
    "work; a regular file (also behind symbolic links) is replaced only once it is\n"
    "complete, devices and FIFOs are written straight.";

std::string non_empty_name(std::string& name) {
  return name.empty() ? std::string("an empty file name") : std::string();
}

void add_output_options(CLI::App& app, OutputOptions& options, const std::string& what) {
  app.add_option("-o,--output", options.path, what)
      ->check(CLI::Validator(non_empty_name, "FILE"));
  app.add_option("--to", options.to,
                 "Output format whatever OUT's name says (mtx: Matrix Market, edges: "
                 "edge list)")
      ->check(CLI::IsMember({"mtx", "edges"}));
}

namespace {

bool names_stdout(const std::string& path) {
  return path == "-" || path == "/dev/stdout" || path == "/dev/fd/1" ||
         path == "/proc/self/fd/1";
}

io::FileFormat output_format(const OutputOptions& options) {
  if (options.to == "mtx") return io::FileFormat::matrix_market;
  if (options.to == "edges") return io::FileFormat::snap;
  if (names_stdout(options.path)) return io::FileFormat::matrix_market;
  if (const auto format = io::format_to_write(options.path)) return *format;
  throw Failure(exit_usage,
                "cannot tell the format of '" + options.path +
                    "' from its name: name it .mtx or .mm (Matrix Market) or .txt, .el, "
                    ".tsv or .edges (edge list), or give --to mtx|edges");
}

}  // namespace

Output open_output(const OutputOptions& options) {
  Output out;
  if (options.path.empty()) return out;
  out.format = output_format(options);
  out.is_stdout = names_stdout(options.path);
  try {
    out.file = std::make_unique<io::OutputFile>(options.path);
  } catch (const std::exception& e) {
    throw Failure(exit_failure, e.what());
  }
  return out;
}

// ---- flags -------------------------------------------------------------------------

std::optional<std::size_t> parse_bytes(const std::string& text, std::string& problem) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (!text.empty() && text[0] == '-') {
    problem = "'" + text + "' is negative: give a number of bytes, 0 for the default";
    return std::nullopt;
  }
  double number = 0;
  const auto r = std::from_chars(begin, end, number, std::chars_format::fixed);
  if (r.ec != std::errc() || !std::isfinite(number)) {
    problem =
        "'" + text + "' is not a number of bytes (e.g. 1000000, 64KiB, 2GB, 1.5GiB)";
    return std::nullopt;
  }
  std::string unit(r.ptr, end);
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double scale = 0;
  const char* prefixes = "kmgt";
  if (unit.empty() || unit == "b") {
    scale = 1;
  } else if (const char* p = std::strchr(prefixes, unit[0]); p && *p) {
    const double binary = std::ldexp(1.0, 10 * static_cast<int>(p - prefixes + 1));
    const double decimal = std::pow(1000.0, static_cast<double>(p - prefixes + 1));
    const std::string rest = unit.substr(1);
    if (rest.empty() || rest == "ib") scale = binary;
    if (rest == "b") scale = decimal;
  }
  if (scale == 0) {
    problem =
        "unknown unit '" + std::string(r.ptr, end) + "' in '" + text +
        "' (B, K/KiB, M/MiB, G/GiB, T/TiB: powers of 1024; KB, MB, GB, TB: of 1000)";
    return std::nullopt;
  }
  const double bytes = std::floor(number * scale);
  if (scale == 1 && bytes != number) {
    problem = "'" + text + "' is not a whole number of bytes";
    return std::nullopt;
  }
  if (!(bytes < 18446744073709551616.0)) {  // 2^64
    problem = "'" + text + "' is more bytes than 64 bits count";
    return std::nullopt;
  }
  return static_cast<std::size_t>(bytes);
}

// ---- names -------------------------------------------------------------------------

std::uint64_t peak_resident_bytes() {
  rusage usage{};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // Linux: KiB
}

const char* format_name(io::FileFormat format) {
  return format == io::FileFormat::matrix_market ? "matrix_market" : "snap";
}

const char* field_name(io::Field field) {
  switch (field) {
    case io::Field::real:
      return "real";
    case io::Field::integer:
      return "integer";
    case io::Field::pattern:
      return "pattern";
  }
  return "unknown";
}

const char* symmetry_name(io::Symmetry symmetry) {
  switch (symmetry) {
    case io::Symmetry::general:
      return "general";
    case io::Symmetry::symmetric:
      return "symmetric";
    case io::Symmetry::skew_symmetric:
      return "skew-symmetric";
  }
  return "unknown";
}

}  // namespace libra::cli

// `libra spmm A (--columns K | --dense X.mtx)`: Y = A * X with X dense, timed.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common.hpp"
#include "dense_result.hpp"
#include "libra/format/dense.hpp"
#include "libra/reference/bridge.hpp"
#include "libra/reference/reference.hpp"
#include "libra/spmm/spmm.hpp"

namespace libra::cli {

namespace {

struct SpmmArgs {
  std::string a_file;
  std::string dense_file;
  long long columns = -1;  // -1: not given
  OutputOptions out;
  int repeat = 1;
  bool check = false;
  bool json = false;
  InputOptions input;
};

// X(i, k) = ((7 i + 13 k + 3) mod 17 - 8) / 8 for 0-based i and k: values in
// [-1, 1] that are exact in binary, the same on every backend and in every run.
struct GenerateX {
  DenseMatrix X;
  KOKKOS_FUNCTION void operator()(const std::int64_t i, const std::int64_t k) const {
    X(i, k) = static_cast<double>((7 * i + 13 * k + 3) % 17 - 8) / 8.0;
  }
};

DenseMatrix generate_x(std::int64_t rows, std::int64_t K) {
  DenseMatrix X(Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::cli::X"), rows,
                K);
  if (rows > 0 && K > 0) {
    Kokkos::parallel_for(
        "libra::cli::generate_x",
        Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>(
            {0, 0}, {rows, K}),
        GenerateX{X});
  }
  return X;
}

std::string shape(std::int64_t rows, std::int64_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

template <class M>
int multiply(const SpmmArgs& args, Output& out, const M& A) {
  DenseMatrix X;
  if (!args.dense_file.empty()) {
    try {
      Progress progress("reading " + args.dense_file);
      X = io::read_matrix_market_dense<double, Device>(args.dense_file,
                                                       read_options(args.input));
    } catch (const io::FileError& e) {
      throw Failure(exit_failure, e.what());
    } catch (const InputError& e) {
      throw Failure(exit_bad_input, e.what());
    } catch (const OverflowError& e) {
      throw Failure(exit_bad_input, args.dense_file + ": " + e.what());
    }
    if (X.extent(0) != static_cast<std::size_t>(A.num_cols)) {
      throw Failure(exit_usage, "Y = A * X: A is " + shape(A.num_rows, A.num_cols) +
                                    " but X (" + args.dense_file + ") is " +
                                    shape(static_cast<std::int64_t>(X.extent(0)),
                                          static_cast<std::int64_t>(X.extent(1))) +
                                    ": X needs as many rows as A has columns");
    }
  } else {
    X = generate_x(A.num_cols, args.columns);
  }
  const std::int64_t K = static_cast<std::int64_t>(X.extent(1));
  DenseMatrix Y(Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::cli::Y"),
                A.num_rows, K);
  SpmmStats stats;
  std::vector<double> seconds;
  {
    Progress progress("spmm");
    for (int r = 0; r < args.repeat; ++r) {
      Kokkos::fence();
      Kokkos::Timer timer;
      spmm(Space(), A, X, Y, 1.0, 0.0, SpmmOptions{}, &stats);
      Kokkos::fence();
      seconds.push_back(timer.seconds());
    }
    progress.finish();
  }
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds[seconds.size() / 2];
  const double gflops = median > 0 ? static_cast<double>(stats.flops) / median * 1e-9 : 0;
  std::string check = "not requested";
  double check_error = 0;
  if (args.check) {
    check_error = compare_with_reference(A, X, Y);
    check = check_error <= 1e-12 ? "ok" : "FAILED";
  }
  std::FILE* report = report_stream(out);
  const std::string x_source = args.dense_file.empty()
                                   ? "generated (" + std::to_string(K) + " columns)"
                                   : args.dense_file;
  if (args.json) {
    nlohmann::ordered_json j;
    j["a_file"] = args.a_file;
    j["x_file"] = args.dense_file.empty() ? nlohmann::ordered_json(nullptr)
                                          : nlohmann::ordered_json(args.dense_file);
    j["x_generated"] = args.dense_file.empty();
    j["rows"] = A.num_rows;
    j["cols"] = A.num_cols;
    j["k"] = K;
    j["nnz_a"] = A.nnz();
    j["path"] = to_string(stats.path);
    j["panels"] = stats.panels;
    j["flops"] = stats.flops;
    j["seconds"] = median;
    j["repeat"] = args.repeat;
    j["seconds_min"] = seconds.front();
    j["gflops"] = gflops;
    j["peak_resident_bytes"] = peak_resident_bytes();
    j["execution_space"] = Space::name();
    if (args.check) {
      j["check"] = check;
      j["check_max_error"] = check_error;
    }
    std::fprintf(report, "%s\n", j.dump(2).c_str());
  } else {
    std::fprintf(report, "Y = A * X on %s (A: %s, X: %s)\n", Space::name(),
                 args.a_file.c_str(), x_source.c_str());
    std::fprintf(report, "A is %s with %llu entries, X is %s, Y is %s\n",
                 shape(A.num_rows, A.num_cols).c_str(),
                 static_cast<unsigned long long>(A.nnz()), shape(A.num_cols, K).c_str(),
                 shape(A.num_rows, K).c_str());
    std::fprintf(report, "path %s, flops %llu, %.3f ms, %.3f GFLOP/s\n",
                 to_string(stats.path), static_cast<unsigned long long>(stats.flops),
                 median * 1e3, gflops);
    if (args.check) print_check(report, check, check_error);
  }
  std::fflush(report);
  write_dense_result(out, Y, "Y", args.check, check);
  return exit_ok;
}

int run_spmm(const SpmmArgs& args) {
  const bool columns = args.columns >= 0;
  if (columns == !args.dense_file.empty())
    throw Failure(exit_usage, "give either --columns K or --dense X.mtx (one of them)");
  if (columns && args.columns < 1)
    throw Failure(exit_usage,
                  "--columns " + std::to_string(args.columns) + ": K must be 1 or more");
  if (!args.dense_file.empty() &&
      io::format_from_name(args.dense_file) != io::FileFormat::matrix_market) {
    throw Failure(exit_usage, "--dense " + args.dense_file +
                                  ": X is read as a Matrix Market file (.mtx or .mm)");
  }
  // Y is dense: a Matrix Market array file (or stdout), never an edge list.
  if (!args.out.path.empty() && args.out.path != "-" && args.out.path != "/dev/stdout") {
    const auto format = io::format_to_write(args.out.path);
    if (!format || *format != io::FileFormat::matrix_market) {
      throw Failure(exit_usage, "cannot write Y to '" + args.out.path +
                                    "': Y is dense and is written as a Matrix Market "
                                    "array; name it .mtx or .mm, or '-' for stdout");
    }
  }
  Output out = open_output(args.out);  // before any work: an unwritable -o fails first
  return visit_matrix(args.a_file, read_options(args.input),
                      [&](const auto& A, const auto&) { return multiply(args, out, A); });
}

std::string check_positive(std::string& text) {
  long long n = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), n);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || n < 1)
    return "'" + text + "' is not a positive whole number";
  return "";
}

}  // namespace

Command add_spmm_command(CLI::App& parent) {
  auto args = std::make_shared<SpmmArgs>();
  CLI::App* app =
      parent.add_subcommand("spmm", "Multiply a sparse matrix by a dense one: Y = A * X");
  app->add_option("A", args->a_file, "Matrix Market file (.mtx, .mm) or edge list")
      ->required();
  app->add_option("--columns", args->columns,
                  "Generate X with K columns: X(i, k) = ((7i + 13k + 3) mod 17 - 8) / 8 "
                  "(0-based i, k)")
      ->check(CLI::Validator(check_positive, "K"));
  app->add_option("--dense", args->dense_file,
                  "Read X from a Matrix Market file (array, or coordinate: missing "
                  "entries are 0)");
  app->add_option("--repeat", args->repeat, "Run N times and report the median time")
      ->check(CLI::Validator(check_positive, "N"));
  app->add_option("-o,--output", args->out.path,
                  "Write Y here as a Matrix Market array (.mtx, .mm; '-' is stdout)")
      ->check(CLI::Validator(non_empty_name, "FILE"));
  app->add_flag("--check", args->check,
                "Compare Y with the sequential host oracle (to 1e-12 of each entry's sum "
                "of |a * x|); exit 1 when they differ");
  app->add_flag("--json", args->json, "Print one JSON object instead of text");
  add_input_options(*app, args->input);
  app->footer(
      "seconds covers the multiplication only, not reading the files or making X.\n"
      "Y is written column by column as '%%MatrixMarket matrix array real general'. The\n"
      "output is opened before any work; a regular file is replaced only once complete.");
  return {app, [args] {
            return run_spmm(*args);
          }};
}

}  // namespace libra::cli

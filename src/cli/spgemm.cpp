// `libra spgemm A [B]`: C = A * B with the chosen algorithm, timed.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "generate_spec.hpp"
#include "libra/format/convert.hpp"
#include "libra/generate/rmat.hpp"
#include "libra/spgemm/spgemm.hpp"
#include "spgemm_algorithms.hpp"

namespace libra::cli {

namespace {

struct SpgemmArgs {
  std::string a_file;
  std::string b_file;
  std::string generate;  // "rmat:SCALE:EDGEFACTOR"
  std::string algo = "auto";
  OutputOptions out;
  std::string memory_budget = "0";
  std::string gpu_share;          // --algo hetero: R, or empty (measured)
  std::string device_memory;      // --algo hetero: bytes, or empty (the card's)
  std::string diagonal_max_fill;  // --algo cdm|hm: the limit, or empty (the default)
  int repeat = 1;
  bool transpose_b = false;
  bool check = false;
  bool json = false;
  bool phase_times = false;
  InputOptions input;
};

// ---- the product -------------------------------------------------------------------

// What is multiplied, for the messages: "A * B", "A * A^T", ...
struct Operands {
  std::string b_name;  // "B", "B^T", "A", "A^T"
  std::string product() const { return "A * " + b_name; }
};

std::string shape(std::int64_t rows, std::int64_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

template <class M>
void print_report(std::FILE* report, const SpgemmArgs& args, const Operands& ops,
                  const M& A, const M& B, const AlgorithmResult<M>& r,
                  const std::vector<double>& seconds, const std::string& check,
                  double check_error) {
  const double gflops =
      r.seconds > 0 ? static_cast<double>(r.stats.flops) / r.seconds * 1e-9 : 0;
  if (args.json) {
    nlohmann::ordered_json j;
    j["a_file"] = args.generate.empty() ? nlohmann::ordered_json(args.a_file)
                                        : nlohmann::ordered_json(nullptr);
    j["b_file"] = args.b_file.empty() ? nlohmann::ordered_json(nullptr)
                                      : nlohmann::ordered_json(args.b_file);
    j["generate"] = args.generate.empty() ? nlohmann::ordered_json(nullptr)
                                          : nlohmann::ordered_json(args.generate);
    j["product"] = ops.product();
    j["algo"] = r.name;
    j["rows"] = r.C.num_rows;
    j["cols"] = r.C.num_cols;
    j["nnz_a"] = A.nnz();
    j["nnz_b"] = B.nnz();
    j["nnz_c"] = r.C.nnz();
    j["flops"] = r.stats.flops;
    j["products"] = r.stats.products;
    j["chunks"] = r.stats.chunks;
    j["seconds"] = r.seconds;
    j["repeat"] = args.repeat;
    j["seconds_min"] = seconds.front();
    j["gflops"] = gflops;
    j["memory_budget"] = r.stats.budget_bytes;
    // Libra's temporaries (measured by the library; 0 for the baselines), and the
    // process's peak resident memory (reading, the product and C included).
    j["peak_bytes"] = r.stats.peak_bytes;
    j["peak_resident_bytes"] = peak_resident_bytes();
    if (r.hetero) {
      const HeteroStats& h = *r.hetero;
      j["hetero"] = {{"gpu_share", h.gpu_share},
                     {"k", h.k},
                     {"calibrated", h.calibrated},
                     {"model_host_only", h.model_host_only},
                     {"model_device_only", h.model_device_only},
                     {"model_split", h.model_split},
                     {"model_fixed_device", h.model_fixed_device},
                     {"model_fixed_host", h.model_fixed_host},
                     {"device_only", h.device_only},
                     {"host_only", h.host_only},
                     {"device_in_place", h.device_in_place},
                     {"device_first", h.device_first},
                     {"device_first_reused", h.device_first_reused},
                     {"kept_on_device", h.kept_on_device},
                     {"download_chunks", h.download_chunks},
                     {"counted_first", h.counted_first},
                     {"counted_beside", h.counted_beside},
                     {"device_products", h.device_products},
                     {"host_products", h.host_products},
                     {"device_panels", h.device_panels},
                     {"out_of_core", h.out_of_core},
                     {"b_column_blocks", h.b_column_blocks},
                     {"device_numa", h.device_numa},
                     {"device_memory", h.device_memory},
                     {"bytes_to_device", h.bytes_to_device},
                     {"bytes_to_host", h.bytes_to_host},
                     {"seconds_transfer", h.seconds_transfer},
                     {"overlap", h.overlap()},
                     {"seconds_calibration", h.seconds_calibration},
                     {"seconds_device", h.seconds_device},
                     {"seconds_device_compute", h.seconds_device_compute},
                     {"seconds_copy_out", h.seconds_copy_out},
                     {"seconds_count", h.seconds_count},
                     {"seconds_host", h.seconds_host},
                     {"seconds_assemble", h.seconds_assemble}};
    }
    if (args.phase_times) {
      j["phases"] = {{"wlt", r.stats.seconds_wlt},
                     {"expand", r.stats.seconds_expand},
                     {"compress", r.stats.seconds_compress},
                     {"merge", r.stats.seconds_merge}};
    }
    j["execution_space"] = r.space;
    if (args.check) {
      j["check"] = check;
      j["check_max_error"] = check_error;
    }
    std::fprintf(report, "%s\n", j.dump(2).c_str());
  } else {
    const std::string a = args.generate.empty() ? args.a_file : args.generate;
    const std::string operands =
        args.b_file.empty() ? "A: " + a : "A: " + a + ", B: " + args.b_file;
    std::fprintf(report, "C = %s with %s on %s (%s)\n", ops.product().c_str(),
                 r.name.c_str(), r.space.c_str(), operands.c_str());
    std::fprintf(report, "C is %s, nnz(A) %llu, nnz(B) %llu, nnz(C) %llu\n",
                 shape(r.C.num_rows, r.C.num_cols).c_str(),
                 static_cast<unsigned long long>(A.nnz()),
                 static_cast<unsigned long long>(B.nnz()),
                 static_cast<unsigned long long>(r.C.nnz()));
    std::fprintf(report, "products %llu, flops %llu, chunks %d, %.3f ms, %.3f GFLOP/s\n",
                 static_cast<unsigned long long>(r.stats.products),
                 static_cast<unsigned long long>(r.stats.flops), r.stats.chunks,
                 r.seconds * 1e3, gflops);
    if (r.hetero) {
      const HeteroStats& h = *r.hetero;
      std::fprintf(report,
                   "device share R %.3f (%s), K %.3g, device %llu products in %d "
                   "panel(s)%s, host %llu products; copies %.3f ms, %.0f%% hidden\n",
                   h.gpu_share,
                   h.calibrated              ? "calibrated"
                   : !args.gpu_share.empty() ? "given"
                   : h.k > 0                 ? "kept"
                                             : "unmeasured",
                   h.k, static_cast<unsigned long long>(h.device_products),
                   h.device_panels,
                   h.counted_first ? " out of core, rows counted first"
                   : h.out_of_core ? " out of core"
                   : h.device_first_reused
                       ? " (the device alone: its product from before the calibration)"
                   : h.device_only    ? " (the device alone)"
                   : h.kept_on_device ? " kept on the device"
                                      : "",
                   static_cast<unsigned long long>(h.host_products),
                   h.seconds_transfer * 1e3, 100 * h.overlap());
      if (h.b_column_blocks > 0) {
        std::fprintf(report,
                     "B did not fit the device memory: its columns ran in %d blocks\n",
                     h.b_column_blocks);
      }
    }
    if (args.check) {
      std::fprintf(report,
                   "check against the reference oracle: %s (largest error %.3g relative "
                   "to the row's largest product)\n",
                   check.c_str(), check_error);
    }
  }
  std::fflush(report);
}

// The inputs, for messages: "A.mtx" or "A.mtx, B.mtx".
std::string operand_names(const SpgemmArgs& args) {
  const std::string a = args.generate.empty() ? args.a_file : args.generate;
  return args.b_file.empty() ? a : a + ", " + args.b_file;
}

template <class M>
int multiply(const SpgemmArgs& args, Output& out, const M& A, const M* given_b) {
  // B is the given B, or A; --transpose-b multiplies by its transpose, and so does
  // a rectangular A without B (A * A^T, the product it always has).
  Operands ops;
  const M& b0 = given_b ? *given_b : A;
  const std::string name = given_b ? "B" : "A";
  M B;
  if (args.transpose_b || (!given_b && A.num_rows != A.num_cols)) {
    B = libra::transpose(Space(), b0);
    ops.b_name = name + "^T";
  } else {
    B = b0;
    ops.b_name = name;
  }
  if (A.num_cols != B.num_rows) {
    throw Failure(exit_usage, "C = " + ops.product() + ": A is " +
                                  shape(A.num_rows, A.num_cols) + " but " + ops.b_name +
                                  " is " + shape(B.num_rows, B.num_cols) +
                                  ": inner dimensions differ");
  }
  SpgemmOptions options;
  const bool libra_algo = args.algo == "auto" || args.algo == "outer" ||
                          args.algo == "panel" || args.algo == "cdm" || args.algo == "hm";
  options.algorithm =
      libra_algo ? parse_spgemm_algorithm(args.algo) : SpgemmAlgorithm::automatic;
  const bool diagonal = args.algo == "cdm" || args.algo == "hm";
  std::string problem;
  options.memory_budget = *parse_bytes(args.memory_budget, problem);  // checked by CLI11
  options.phase_timings = args.phase_times;
  if (!args.diagonal_max_fill.empty())  // checked by CLI11
    std::from_chars(args.diagonal_max_fill.data(),
                    args.diagonal_max_fill.data() + args.diagonal_max_fill.size(),
                    options.diagonal_max_fill);
  HeteroOptions hetero;
  hetero.spgemm = options;
  if (!args.gpu_share.empty())  // checked by CLI11
    std::from_chars(args.gpu_share.data(), args.gpu_share.data() + args.gpu_share.size(),
                    hetero.gpu_share);
  if (!args.device_memory.empty())
    hetero.device_memory = *parse_bytes(args.device_memory, problem);  // checked
  Progress progress("spgemm (" + args.algo + ")");
  options.progress = [&progress](int done, int total) {
    progress.update(done, total);
  };
  // Repeated runs report the median time (the first run pays one-off costs
  // such as loading GPU code).
  AlgorithmResult<M> r;
  std::vector<double> seconds;
  for (int k = 0; k < args.repeat; ++k) {
    r = AlgorithmResult<M>{};  // the last C goes first: two Cs may not fit the device
    try {
      r = args.algo == "hetero" ? run_hetero(A, B, hetero)
                                : run_spgemm_algorithm(args.algo, A, B, options);
    } catch (const ShapeError& e) {
      if (!diagonal) throw;
      throw Failure(exit_bad_input, operand_names(args) + ": " + e.what());
    } catch (const ArgumentError& e) {
      // Diagonal storage refuses matrices whose entries are not on few diagonals:
      // a property of the input. Elsewhere, e.g. a --memory-budget too small.
      if (diagonal) {
        throw Failure(exit_bad_input,
                      operand_names(args) + ": " + e.what() +
                          " (--diagonal-max-fill X sets the limit, 0 removes it)");
      }
      throw Failure(exit_usage, e.what());
    }
    seconds.push_back(r.seconds);
  }
  std::sort(seconds.begin(), seconds.end());
  r.seconds = seconds[seconds.size() / 2];
  progress.finish();

  std::string check = "not requested";
  double check_error = 0;
  if (args.check) {
    check_error = compare_with_reference(A, B, r.C);
    check = check_error <= 1e-12 ? "ok" : "FAILED";
  }
  print_report(report_stream(out), args, ops, A, B, r, seconds, check, check_error);
  write_output(out, r.C);
  if (args.check && check != "ok") {
    throw Failure(exit_failure, "C differs from the reference oracle's product");
  }
  return exit_ok;
}

int run_generated(const SpgemmArgs& args, Output& out) {
  const GenerateSpec spec = parse_generate(args.generate, false);
  check_generate_fits(args.generate, spec);
  const Matrix<int> A = generate_matrix(args.generate, spec);
  return multiply(args, out, A, static_cast<const Matrix<int>*>(nullptr));
}

int run_spgemm(const SpgemmArgs& args) {
  if (!args.generate.empty() && !args.a_file.empty()) {
    throw Failure(
        exit_usage,
        "--generate makes A (and B = A): give either matrix files or --generate, "
        "not both");
  }
  if (args.generate.empty() && args.a_file.empty())
    throw Failure(exit_usage, "give a matrix file A or --generate");
  if (args.algo != "hetero" && (!args.gpu_share.empty() || !args.device_memory.empty()))
    throw Failure(exit_usage, "--gpu-share and --device-memory go with --algo hetero");
  if (args.algo != "cdm" && args.algo != "hm" && !args.diagonal_max_fill.empty())
    throw Failure(exit_usage, "--diagonal-max-fill goes with --algo cdm or hm");
  if (!args.generate.empty()) parse_generate(args.generate, false);  // usage errors first
  Output out = open_output(args.out);  // before any work: an unwritable -o fails first
  if (!args.generate.empty()) return run_generated(args, out);
  const io::ReadOptions read = read_options(args.input);
  return visit_matrix(args.a_file, read, [&](const auto& A, const auto&) {
    using M = std::decay_t<decltype(A)>;
    if (args.b_file.empty())
      return multiply(args, out, A, static_cast<const M*>(nullptr));
    return visit_matrix(args.b_file, read, [&](const auto& B, const auto&) -> int {
      if constexpr (std::is_same_v<std::decay_t<decltype(B)>, M>) {
        return multiply(args, out, A, &B);
      } else {
        throw Failure(exit_bad_input,
                      "A and B need the same index width (one of them has more than "
                      "2^31 rows or columns)");
      }
    });
  });
}

std::string check_memory_budget(std::string& text) {
  std::string problem;
  return parse_bytes(text, problem) ? std::string() : problem;
}

// Whether text is all one number within [lo, hi] (the validators below).
bool number_within(const std::string& text, double lo, double hi) {
  double x = 0;
  const auto end = text.data() + text.size();
  const auto p = std::from_chars(text.data(), end, x);
  return p.ec == std::errc() && p.ptr == end && x >= lo && x <= hi;
}

std::string check_gpu_share(std::string& text) {
  return number_within(text, 0, 1) ? "" : "'" + text + "' is not a share between 0 and 1";
}

std::string check_max_fill(std::string& text) {
  return number_within(text, 0, 1e15)
             ? ""
             : "'" + text + "' is not a factor of 0 or more (0: no limit)";
}

std::string check_repeat(std::string& text) {
  int n = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), n);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || n < 1)
    return "'" + text + "' is not a number of runs (1 or more)";
  return "";
}

}  // namespace

Command add_spgemm_command(CLI::App& parent) {
  auto args = std::make_shared<SpgemmArgs>();
  CLI::App* app = parent.add_subcommand("spgemm", "Multiply sparse matrices: C = A * B");
  app->add_option("A", args->a_file, "Matrix Market file (.mtx, .mm) or edge list");
  app->add_option("B", args->b_file,
                  "Second factor (default: A; A^T when A is not square)");
  app->add_flag("--transpose-b", args->transpose_b,
                "Multiply by B^T (by A^T without B): C = A * B^T");
  app->add_option("--generate", args->generate,
                  "Use a generated R-MAT graph as A (and B): rmat:SCALE:EDGEFACTOR "
                  "(Graph500 parameters, seed 1, SCALE <= 30); no files then");
  app->add_option("--algo", args->algo,
                  "Algorithm: " + spgemm_algorithm_list() + " (default: auto)")
      ->check(CLI::Validator(check_spgemm_algorithm, "ALGO"));
  app->add_option("--memory-budget", args->memory_budget,
                  "Bytes the intermediate products may use: 1000000, 64KiB, 2GB, 1.5GiB "
                  "(K/M/G/T and KiB... are powers of 1024, KB/MB/GB/TB of 1000); 0 (the "
                  "default) is a quarter of the free memory")
      ->check(CLI::Validator(check_memory_budget, "SIZE"));
  app->add_option("--gpu-share", args->gpu_share,
                  "--algo hetero: the device's share R of the products, 0..1 (default: "
                  "measured on a calibration of both sides)")
      ->check(CLI::Validator(check_gpu_share, "R"));
  app->add_option("--device-memory", args->device_memory,
                  "--algo hetero: bytes the device may hold (B, panels of A and C, "
                  "temporaries); below what the product needs it runs out of core, C "
                  "assembled in host memory, and B goes in blocks of columns when it "
                  "does not fit half of it (default: 90% of the device's free memory)")
      ->check(CLI::Validator(check_memory_budget, "SIZE"));
  app->add_option("--diagonal-max-fill", args->diagonal_max_fill,
                  "--algo cdm|hm: refuse a matrix whose diagonal storage would hold more "
                  "than X times max(nnz, rows, cols) values (default 4; 0: no limit)")
      ->check(CLI::Validator(check_max_fill, "X"));
  app->add_option("--repeat", args->repeat, "Run N times and report the median time")
      ->check(CLI::Validator(check_repeat, "N"));
  add_output_options(*app, args->out, "Write C here (see Outputs below)");
  app->add_flag(
      "--check", args->check,
      "Compare C with the sequential host oracle (pattern exactly, values to 1e-12 "
      "of each row's largest product); exit 1 when they differ");
  app->add_flag("--json", args->json, "Print one JSON object instead of text");
  app->add_flag("--phase-times", args->phase_times,
                "Time Libra's phases (the device is fenced after each; JSON 'phases')");
  add_input_options(*app, args->input);
  app->footer(spgemm_algorithm_help() +
              "seconds covers the multiplication only (symbolic + numeric), not reading "
              "the files.\n" +
              std::string(output_help));
  return {app, [args] {
            return run_spgemm(*args);
          }};
}

}  // namespace libra::cli

// `libra spmv A [--format F] [--partition rows|pcsr|pcsc|pcoo --parts P]`:
// y = A * x (x generated or read), timed over --iterations, in one process. With
// --partition the matrix is cut into P parts, each part's SpMV writes its own
// partial result and the results are merged (libra::spmv_partitioned), as the
// multi-GPU version will run them with one part per GPU.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common.hpp"
#include "generate_spec.hpp"
#include "libra/format/convert.hpp"
#include "libra/format/dense.hpp"
#include "libra/format/partial.hpp"
#include "libra/reference/bridge.hpp"
#include "libra/reference/reference.hpp"
#include "libra/spmv/partitioned.hpp"
#include "libra/spmv/spmv.hpp"
#include "mpi_session.hpp"
#include "spmv_common.hpp"

namespace libra::cli {

namespace {

// What one run measured.
struct Timings {
  std::string path;                    // the kernel, or "partitioned"
  std::vector<double> seconds;         // per iteration, fenced
  std::vector<double> compute, merge;  // partitioned: per iteration
  double prepare_seconds = 0;          // conversion, partitioning or plan, once
  bool planned = false;                // CSR: the products took the plan
  bool row_sums = false;               // CSR: the plan's tiles summed rows a thread each
  std::vector<std::int64_t> part_nnz, part_rows;
};

template <class F>
double timed(F&& f) {
  Kokkos::fence();
  Kokkos::Timer timer;
  f();
  Kokkos::fence();
  return timer.seconds();
}

// Runs the whole-matrix SpMV on format F of A.
template <class F, class XV, class YV>
void run_whole(const SpmvArgs& args, const F& A, const XV& x, const YV& y, Timings& t) {
  SpmvStats stats;
  for (int r = 0; r < args.iterations; ++r) {
    t.seconds.push_back(
        timed([&] { spmv(Space(), 1.0, A, x, 0.0, y, SpmvOptions{}, &stats); }));
  }
  t.path = to_string(stats.path);
}

template <class Parts, class XV, class YV>
void run_parts(const SpmvArgs& args, const Parts& parts, const XV& x, const YV& y,
               Timings& t) {
  for (const auto& p : parts) {
    t.part_nnz.push_back(static_cast<std::int64_t>(p.nnz()));
    t.part_rows.push_back(static_cast<std::int64_t>(p.lines()));
  }
  for (int r = 0; r < args.iterations; ++r) {
    PartitionedSpmvStats st;
    t.seconds.push_back(timed(
        [&] { spmv_partitioned(Space(), 1.0, parts, x, 0.0, y, SpmvOptions{}, &st); }));
    t.compute.push_back(st.compute_seconds);
    t.merge.push_back(st.merge_seconds);
  }
  t.path = "partitioned";
}

template <class M, class XV, class YV>
Timings dispatch(const SpmvArgs& args, const M& A, const XV& x, const YV& y) {
  Timings t;
  const std::string& part = args.partition;
  const int P = args.parts > 0 ? args.parts : 1;
  if (part == "rows" || part == "pcsr") {
    std::vector<PartialCsr<double, typename M::ordinal_type, std::size_t, Device>> parts;
    t.prepare_seconds = timed([&] {
      parts = part == "rows" ? partition_rows(Space(), A, P) : partition(Space(), A, P);
    });
    run_parts(args, parts, x, y, t);
  } else if (part == "pcsc") {
    const auto C = to_csc(Space(), A);
    std::vector<PartialCsc<double, typename M::ordinal_type, std::size_t, Device>> parts;
    t.prepare_seconds = timed([&] { parts = partition(Space(), C, P); });
    run_parts(args, parts, x, y, t);
  } else if (part == "pcoo") {
    const auto O = to_coo(Space(), A);
    std::vector<PartialCoo<double, typename M::ordinal_type, std::size_t, Device>> parts;
    t.prepare_seconds = timed([&] { parts = partition(Space(), O, P); });
    run_parts(args, parts, x, y, t);
  } else if (args.format == "csc") {
    Csc<double, typename M::ordinal_type, std::size_t, Device> C;
    t.prepare_seconds = timed([&] { C = to_csc(Space(), A); });
    run_whole(args, C, x, y, t);
  } else if (args.format == "coo") {
    Coo<double, typename M::ordinal_type, std::size_t, Device> O;
    t.prepare_seconds = timed([&] { O = to_coo(Space(), A); });
    run_whole(args, O, x, y, t);
  } else if (args.format == "ell") {
    // ELL as wide as the average row, longer rows' excess in the COO tail: a
    // power-law row would otherwise make every row that wide.
    EllOptions eo;
    eo.width = A.num_rows > 0
                   ? (static_cast<long long>(A.nnz()) + A.num_rows - 1) / A.num_rows
                   : 0;
    eo.overflow = EllOverflow::hybrid;
    Ell<double, typename M::ordinal_type, std::size_t, Device> E;
    t.prepare_seconds = timed([&] { E = to_ell(Space(), A, eo); });
    run_whole(args, E, x, y, t);
  } else {
    // CSR: a plan made once, as an iterative solver makes it (on GPUs the
    // tiles' boundaries; nothing on host spaces).
    decltype(spmv_plan(Space(), A)) plan;
    t.prepare_seconds = timed([&] { plan = spmv_plan(Space(), A); });
    SpmvStats stats;
    for (int r = 0; r < args.iterations; ++r) {
      t.seconds.push_back(
          timed([&] { spmv(Space(), 1.0, A, x, 0.0, y, plan, SpmvOptions{}, &stats); }));
    }
    t.path = to_string(stats.path);
    t.planned = stats.planned;
    t.row_sums = stats.row_sums;
  }
  return t;
}

template <class M>
int multiply(const SpmvArgs& args, Output& out, const M& A) {
  const DenseMatrix X = read_x(args, A.num_cols);
  const std::int64_t K = static_cast<std::int64_t>(X.extent(1));
  const DenseMatrix Y(Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::cli::y"),
                      A.num_rows, K);
  Timings t;
  {
    Progress progress("spmv");
    if (K == 1) {  // the vector kernels
      t = dispatch(args, A, Kokkos::subview(X, Kokkos::ALL, 0),
                   Kokkos::subview(Y, Kokkos::ALL, 0));
    } else {
      t = dispatch(args, A, X, Y);
    }
    progress.finish();
  }
  const double seconds = median(t.seconds);
  // CSR's least traffic (values, column indices, row offsets, x read, y written),
  // whatever the format, so that formats compare by time alone.
  const double bytes =
      static_cast<double>(A.nnz()) * (sizeof(double) + sizeof(typename M::ordinal_type)) +
      static_cast<double>(A.num_rows + 1) * sizeof(std::size_t) +
      static_cast<double>(A.num_cols + A.num_rows) * static_cast<double>(K) *
          sizeof(double);
  const double gbs = seconds > 0 ? bytes / seconds * 1e-9 : 0;
  std::string check = "not requested";
  double check_error = 0;
  if (args.check) {
    check_error = compare_with_reference(A, X, Y);
    check = check_error <= 1e-12 ? "ok" : "FAILED";
  }
  const std::string format = args.partition.empty()
                                 ? (args.format.empty() ? "csr" : args.format)
                             : args.partition == "pcsc" ? "csc"
                             : args.partition == "pcoo" ? "coo"
                                                        : "csr";
  std::FILE* report = report_stream(out);
  if (args.json) {
    nlohmann::ordered_json j;
    j["a_file"] = args.a_file;
    j["x_file"] = args.x_file.empty() ? nlohmann::ordered_json(nullptr)
                                      : nlohmann::ordered_json(args.x_file);
    j["x_generated"] = args.x_file.empty();
    j["rows"] = A.num_rows;
    j["cols"] = A.num_cols;
    j["nnz"] = A.nnz();
    j["k"] = K;
    j["format"] = format;
    j["partition"] = args.partition.empty() ? "none" : args.partition;
    j["parts"] = args.partition.empty() ? 1 : (args.parts > 0 ? args.parts : 1);
    j["path"] = t.path;
    j["planned"] = t.planned;
    j["row_sums"] = t.row_sums;
    j["iterations"] = args.iterations;
    j["seconds"] = seconds;
    j["seconds_min"] = *std::min_element(t.seconds.begin(), t.seconds.end());
    j["prepare_seconds"] = t.prepare_seconds;
    if (!t.compute.empty()) {
      j["compute_seconds"] = median(t.compute);
      j["merge_seconds"] = median(t.merge);
      j["part_nnz"] = t.part_nnz;
      j["part_lines"] = t.part_rows;  // rows, or columns for pcsc
    }
    j["flops"] = 2 * static_cast<std::uint64_t>(A.nnz()) * static_cast<std::uint64_t>(K);
    j["gbytes_per_second"] = gbs;
    j["peak_resident_bytes"] = peak_resident_bytes();
    j["execution_space"] = Space::name();
    if (args.check) {
      j["check"] = check;
      j["check_max_error"] = check_error;
    }
    std::fprintf(report, "%s\n", j.dump(2).c_str());
  } else {
    std::fprintf(report, "y = A * x on %s (A: %s, x: %s)\n", Space::name(),
                 args.a_file.c_str(),
                 args.x_file.empty() ? "generated" : args.x_file.c_str());
    std::fprintf(report, "A is %lld x %lld with %llu entries, %lld right-hand side(s)\n",
                 static_cast<long long>(A.num_rows), static_cast<long long>(A.num_cols),
                 static_cast<unsigned long long>(A.nnz()), static_cast<long long>(K));
    std::fprintf(report, "format %s, partition %s", format.c_str(),
                 args.partition.empty() ? "none" : args.partition.c_str());
    if (!t.part_nnz.empty()) {
      const auto [lo, hi] = std::minmax_element(t.part_nnz.begin(), t.part_nnz.end());
      std::fprintf(report, " into %zu parts (nnz per part %lld to %lld)",
                   t.part_nnz.size(), static_cast<long long>(*lo),
                   static_cast<long long>(*hi));
    }
    std::fprintf(report, ", path %s%s\n", t.path.c_str(),
                 t.row_sums  ? " (planned, row sums)"
                 : t.planned ? " (planned)"
                             : "");
    std::fprintf(report, "%.3f ms per iteration (median of %d), %.2f GB/s", seconds * 1e3,
                 args.iterations, gbs);
    if (!t.compute.empty()) {
      std::fprintf(report, " (compute %.3f ms, merge %.3f ms)", median(t.compute) * 1e3,
                   median(t.merge) * 1e3);
    }
    std::fprintf(report, "; preparing (conversion, partition, plan) %.3f ms\n",
                 t.prepare_seconds * 1e3);
    if (args.check) print_check(report, check, check_error);
  }
  std::fflush(report);
  write_dense_result(out, Y, "y", args.check, check);
  return exit_ok;
}

int run_spmv(SpmvArgs args) {
  if (args.generate.empty() == args.a_file.empty()) {
    throw Failure(exit_usage, args.a_file.empty()
                                  ? "give a matrix file A or --generate"
                                  : "give a matrix file A or --generate, not both");
  }
  if (!args.generate.empty()) parse_generate(args.generate, true);  // usage errors first
  if (!args.generate.empty()) args.a_file = args.generate;  // the reports' name for A
  if (mpi_active()) return run_spmv_distributed(args);
  if (!args.version.empty() || !args.transport.empty() || args.pieces >= 0 ||
      !args.piece_moves.empty() || !args.balance.empty() || !args.y_on.empty() ||
      args.cut_slack >= 0 || !args.column_moves.empty()) {
    throw Failure(exit_usage,
                  "--version, --transport, --pieces, --piece-moves, --balance, "
                  "--cut-slack, --y-on and --column-moves choose "
                  "how MPI ranks share the work; run under an MPI launcher (mpirun -np "
                  "P libra spmv ...)");
  }
  const std::string& part = args.partition;
  if (!part.empty()) {
    const std::string implied = part == "pcsc" ? "csc" : part == "pcoo" ? "coo" : "csr";
    if (!args.format.empty() && args.format != implied) {
      throw Failure(exit_usage, "--partition " + part + " cuts a " + implied +
                                    " matrix; it cannot be combined with --format " +
                                    args.format);
    }
  } else if (args.parts > 1) {
    throw Failure(exit_usage, "--parts needs --partition rows|pcsr|pcsc|pcoo");
  }
  if (!args.x_file.empty() &&
      io::format_from_name(args.x_file) != io::FileFormat::matrix_market) {
    throw Failure(exit_usage, "--x " + args.x_file +
                                  ": x is read as a Matrix Market file (.mtx or .mm)");
  }
  if (!args.out.path.empty() && args.out.path != "-" && args.out.path != "/dev/stdout") {
    const auto format = io::format_to_write(args.out.path);
    if (!format || *format != io::FileFormat::matrix_market) {
      throw Failure(exit_usage, "cannot write y to '" + args.out.path +
                                    "': y is dense and is written as a Matrix Market "
                                    "array; name it .mtx or .mm, or '-' for stdout");
    }
  }
  Output out = open_output(args.out);  // before any work: an unwritable -o fails first
  if (!args.generate.empty()) {
    const GenerateSpec spec = parse_generate(args.generate, true);
    check_generate_fits(args.generate, spec);
    return multiply(args, out, generate_matrix(args.generate, spec));
  }
  return visit_matrix(args.a_file, read_options(args.input),
                      [&](const auto& A, const auto&) { return multiply(args, out, A); });
}

std::string check_positive(std::string& text) {
  long long n = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), n);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || n < 1 ||
      n > 1000000000)
    return "'" + text + "' is not a positive whole number";
  return "";
}

}  // namespace

Command add_spmv_command(CLI::App& parent) {
  auto args = std::make_shared<SpmvArgs>();
  CLI::App* app = parent.add_subcommand(
      "spmv", "Multiply a sparse matrix by a vector (or a few): y = A * x");
  app->add_option("A", args->a_file, "Matrix Market file (.mtx, .mm) or edge list");
  app->add_option(
      "--generate", args->generate,
      "Make A instead of reading it: rmat:SCALE:EDGEFACTOR (an R-MAT graph of "
      "2^SCALE vertices) or band:ROWS:DIAGONALS (a square band, DIAGONALS odd)");
  app->add_option("--format", args->format,
                  "Storage the kernel runs on: csr (default), csc, coo, or ell (as wide "
                  "as the average row, longer rows in a COO tail)")
      ->check(CLI::IsMember({"csr", "csc", "coo", "ell"}));
  app->add_option("--partition", args->partition,
                  "Cut A into --parts parts, run each into its own partial result and "
                  "merge: rows (equal row counts, the baseline), pcsr, pcsc, pcoo (equal "
                  "nonzeros)")
      ->check(CLI::IsMember({"rows", "pcsr", "pcsc", "pcoo"}));
  app->add_option("--parts", args->parts, "Number of parts P (default 1)")
      ->check(CLI::Validator(check_positive, "P"));
  app->add_option("--iterations", args->iterations,
                  "Run N times and report the median time")
      ->check(CLI::Validator(check_positive, "N"));
  app->add_option("--x", args->x_file,
                  "Read x from a Matrix Market file (array, or coordinate: missing "
                  "entries are 0); K columns give K right-hand sides. Default: "
                  "x(i) = ((7i + 3) mod 17 - 8) / 8 (0-based i)");
  app->add_option("-o,--output", args->out.path,
                  "Write y here as a Matrix Market array (.mtx, .mm; '-' is stdout)")
      ->check(CLI::Validator(non_empty_name, "FILE"));
  app->add_flag("--check", args->check,
                "Compare y with the sequential host oracle (to 1e-12 of each entry's sum "
                "of |a * x|); exit 1 when they differ");
  app->add_flag("--json", args->json, "Print one JSON object instead of text");
  app->add_option("--version", args->version,
                  "Under mpirun: MSREP's version: baseline (equal row counts, host "
                  "partitioning and merge), p (equal-nonzero partial formats, host), "
                  "p-opt (local offsets and merge on each device, default)")
      ->check(CLI::IsMember({"baseline", "p", "p-opt"}));
  app->add_option("--transport", args->transport,
                  "Under mpirun, p-opt: how partial results move: auto (default: NCCL "
                  "where it loads, else MPI on the buffers where the MPI can take them, "
                  "else host copies), host, mpi, nccl")
      ->check(CLI::IsMember({"auto", "host", "mpi", "nccl"}));
  app->add_option(
         "--pieces", args->pieces,
         "Under mpirun, p-opt with pcsr over nccl or mpi: each rank computes its "
         "rows of y in N pieces of equal nonzeros and sends each as soon as it "
         "is computed, overlapping the gather onto rank 0 with the products. 0 "
         "(default): 1")
      ->check(CLI::Range(0, 4096));
  app->add_option("--piece-moves", args->piece_moves,
                  "Under mpirun, p-opt with pcsr: how the pieces of y reach rank 0: "
                  "transport (over --transport), copy-engines (rank 0's copy engines "
                  "read them from the other ranks' GPUs: CUDA IPC, one host), auto "
                  "(default: copy engines where they open, else transport)")
      ->check(CLI::IsMember({"auto", "transport", "copy-engines"}));
  app->add_option("--column-moves", args->column_moves,
                  "Under mpirun, pcsc with --y-on ranks: how the parts' partial sums "
                  "move: slices (each part sends every other the rows of its span "
                  "that part holds), reduce-scatter (one collective over the whole "
                  "partial y, equal blocks of rows), auto (default: slices; the "
                  "reduce-scatter was no faster on 2 H200s)")
      ->check(CLI::IsMember({"auto", "slices", "reduce-scatter"}));
  app->add_option("--balance", args->balance,
                  "Under mpirun, p and p-opt: how the matrix is cut: nonzeros (equal "
                  "nonzeros, the paper's; default) or merge-path (equal lines plus "
                  "nonzeros)")
      ->check(CLI::IsMember({"nonzeros", "merge-path"}));
  app->add_option("--cut-slack", args->cut_slack,
                  "Under mpirun, p and p-opt: a cut inside a line moves to the nearer "
                  "end of that line where that moves it by at most this share of a "
                  "part's nonzeros (0 to 1; default 0, the paper's exact cuts), so "
                  "that no partial sum of the line moves between ranks")
      ->check(CLI::Range(0.0, 1.0));
  app->add_option("--y-on", args->y_on,
                  "Under mpirun: where y is computed into: root (default: gathered on "
                  "rank 0 at every iteration) or ranks (each rank keeps its rows of y; "
                  "pcsr and pcoo move only rows two parts share, pcsc the partial sums "
                  "of rows another rank holds; the timed iterations end there, and y "
                  "is gathered once afterwards for the output and --check)")
      ->check(CLI::IsMember({"root", "ranks"}));
  add_input_options(*app, args->input);
  app->footer(
      "seconds covers the multiplication (and, partitioned, the merge) only: not "
      "reading,\n"
      "converting or partitioning, reported once as prepare_seconds. GB/s is CSR's "
      "least\n"
      "traffic over that time. Under an MPI launcher (mpirun -np P libra spmv ...)\n"
      "every rank holds one part (one rank per GPU); rank 0 reads, reports and writes.\n"
      "y is written as '%%MatrixMarket matrix array real general'. The output is opened\n"
      "before any work; a regular file is replaced only once complete.");
  return {app, [args] {
            return run_spmv(*args);
          }};
}

}  // namespace libra::cli

// `mpirun -np P libra spmv A [--partition rows|pcsr|pcsc|pcoo] [--version
// baseline|p|p-opt] [--transport auto|host|mpi|nccl] [--pieces N] [--piece-moves
// auto|transport|copy-engines] [--balance nonzeros|merge-path] [--cut-slack F]
// [--y-on root|ranks]`: MSREP's SpMV on P ranks
// (libra::dist::Spmv). Rank 0 reads A and x, writes y and the report; every rank
// computes its part. A failure on any rank ends every rank with rank 0's message
// and the failing rank's exit code.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "generate_spec.hpp"
#include "libra/core/topology.hpp"
#include "libra/dist/spmv.hpp"
#include "mpi_session.hpp"
#include "spmv_common.hpp"

namespace libra::cli {

namespace {

using dist::PartFormat;
using dist::PieceMoves;
using dist::Transport;
using dist::Version;

// Runs f() on this rank and agrees on the outcome, carrying the CLI's exit code.
template <class F>
void agreed_with_code(const dist::Comm& comm, F&& f) {
  std::exception_ptr failure;
  int code = 0;
  try {
    f();
  } catch (const Failure& e) {
    failure = std::current_exception();
    code = e.code();
  } catch (...) {
    failure = std::current_exception();
  }
  dist::agree(comm, failure, code);
}

int exit_code_of(const dist::RemoteError& e) {
  if (e.code() != 0) return e.code();
  switch (e.kind()) {
    case dist::FailureKind::input:
    case dist::FailureKind::overflow:
      return exit_bad_input;
    case dist::FailureKind::argument:
    case dist::FailureKind::shape:
      return exit_usage;
    default:
      return exit_failure;
  }
}

// The options the command line asks for; usage errors are the same on every rank.
dist::SpmvOptions options_of(const SpmvArgs& args, int ranks) {
  if (args.format == "ell") {
    throw Failure(exit_usage,
                  "--format ell runs in one process; under mpirun the parts "
                  "are pcsr, pcsc or pcoo (--partition)");
  }
  if (args.parts > 0 && args.parts != ranks) {
    throw Failure(exit_usage, "under mpirun each of the " + std::to_string(ranks) +
                                  " ranks holds one part; --parts " +
                                  std::to_string(args.parts) + " does not match");
  }
  std::string part = args.partition;
  if (part.empty()) {
    part = args.format == "csc" ? "pcsc" : args.format == "coo" ? "pcoo" : "pcsr";
  }
  const std::string implied = part == "pcsc" ? "csc" : part == "pcoo" ? "coo" : "csr";
  if (!args.format.empty() && args.format != implied) {
    throw Failure(exit_usage, "--partition " + part + " cuts a " + implied +
                                  " matrix; it cannot be combined with --format " +
                                  args.format);
  }
  dist::SpmvOptions o;
  o.format = implied == "csc"   ? PartFormat::csc
             : implied == "coo" ? PartFormat::coo
                                : PartFormat::csr;
  const std::string version =
      args.version.empty() ? (part == "rows" ? "baseline" : "p-opt") : args.version;
  if (part == "rows" && version != "baseline") {
    throw Failure(exit_usage,
                  "--partition rows (equal row counts) is the baseline "
                  "version's cut; --version " +
                      version + " cuts equal nonzeros (pcsr, pcsc, pcoo)");
  }
  o.version = version == "baseline" ? Version::baseline
              : version == "p"      ? Version::p
                                    : Version::p_opt;
  const std::string& t = args.transport;
  o.transport = t == "host"   ? Transport::host
                : t == "mpi"  ? Transport::mpi
                : t == "nccl" ? Transport::nccl
                              : Transport::automatic;
  o.pieces = args.pieces < 0 ? 0 : args.pieces;
  o.balance =
      args.balance == "merge-path" ? dist::Balance::merge_path : dist::Balance::nonzeros;
  o.cut_slack = args.cut_slack < 0 ? 0 : args.cut_slack;
  o.piece_moves = args.piece_moves == "transport"      ? PieceMoves::transport
                  : args.piece_moves == "copy-engines" ? PieceMoves::copy_engines
                                                       : PieceMoves::automatic;
  o.column_moves = args.column_moves == "slices" ? dist::ColumnMoves::slices
                   : args.column_moves == "reduce-scatter"
                       ? dist::ColumnMoves::reduce_scatter
                       : dist::ColumnMoves::automatic;
  if (!args.column_moves.empty() && (implied != "csc" || args.y_on != "ranks")) {
    throw Failure(exit_usage,
                  "--column-moves says how pcsc parts keep y on the ranks: give it "
                  "with --partition pcsc --y-on ranks");
  }
  o.timing = true;
  return o;
}

struct Run {
  std::vector<double> total, compute, wait, merge;
  std::vector<std::vector<double>> compute_by_rank;  // root: [rank][iteration]
  double x_seconds = 0;
  dist::SpmvSetup setup;
  std::vector<std::string> paths;       // per rank
  std::vector<bool> row_sums;           // per rank: planned tiles summed rows
  std::vector<std::int64_t> rows_sent;  // per rank, --y-on ranks: partial rows sent
};

std::vector<std::string> gather_strings(const dist::Comm& comm, const std::string& mine) {
  int n = static_cast<int>(mine.size());
  std::vector<int> sizes(static_cast<std::size_t>(comm.size()));
  MPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, comm.get());
  std::vector<int> displs(sizes.size(), 0);
  for (std::size_t i = 1; i < sizes.size(); ++i) displs[i] = displs[i - 1] + sizes[i - 1];
  std::string all(
      comm.is_root() ? static_cast<std::size_t>(displs.back() + sizes.back()) : 0, '\0');
  MPI_Gatherv(mine.data(), n, MPI_CHAR, all.data(), sizes.data(), displs.data(), MPI_CHAR,
              0, comm.get());
  std::vector<std::string> out;
  if (comm.is_root()) {
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      out.push_back(all.substr(static_cast<std::size_t>(displs[i]),
                               static_cast<std::size_t>(sizes[i])));
    }
  }
  return out;
}

// --y-on ranks, after the timed iterations: every rank's rows [first, ...) of
// y into Y on rank 0, for the output and --check.
void gather_rows(const dist::Comm& comm, const DenseMatrix& mine, std::int64_t first,
                 const DenseMatrix& Y) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mine);
  const std::int64_t K = static_cast<std::int64_t>(mine.extent(1));
  std::vector<double> rows;  // row by row
  for (std::size_t i = 0; i < h.extent(0); ++i) {
    for (std::size_t k = 0; k < h.extent(1); ++k) rows.push_back(h(i, k));
  }
  const std::vector<std::int64_t> firsts = [&] {
    std::vector<std::int64_t> all(static_cast<std::size_t>(comm.size()));
    MPI_Gather(&first, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, 0, comm.get());
    return all;
  }();
  int count = static_cast<int>(rows.size());
  std::vector<int> counts(static_cast<std::size_t>(comm.size())), displs(counts.size());
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm.get());
  if (comm.is_root()) {
    for (std::size_t r = 0; r < counts.size(); ++r) {
      displs[r] = static_cast<int>(firsts[r] * K);  // the ranks' rows tile y
    }
  }
  auto hy = Kokkos::create_mirror_view(Y);
  std::vector<double> all(comm.is_root() ? Y.extent(0) * Y.extent(1) : 0);
  MPI_Gatherv(rows.data(), count, MPI_DOUBLE, all.data(), counts.data(), displs.data(),
              MPI_DOUBLE, 0, comm.get());
  if (!comm.is_root()) return;
  for (std::size_t i = 0; i < hy.extent(0); ++i) {
    for (std::size_t k = 0; k < hy.extent(1); ++k) hy(i, k) = all[i * hy.extent(1) + k];
  }
  Kokkos::deep_copy(Y, hy);
}

template <class M>
Run run_ranks(const dist::Comm& comm, const SpmvArgs& args, const dist::SpmvOptions& o,
              const M& A, const DenseMatrix& X, const DenseMatrix& Y) {
  using O = typename M::ordinal_type;
  Run run;
  dist::Spmv<Space, double, O, std::size_t> mv(comm, Space(), A, o);
  const std::int64_t K = comm.is_root() ? static_cast<std::int64_t>(X.extent(1)) : 1;
  const auto x1 = Kokkos::subview(X, Kokkos::ALL, 0);
  const auto y1 = Kokkos::subview(Y, Kokkos::ALL, 0);
  const bool vector = K == 1;  // rank 0 decides; the others follow set_x's K
  if (vector) {
    mv.set_x(x1);
  } else {
    mv.set_x(X);
  }
  run.x_seconds = mv.times().x_seconds;
  const bool on_ranks = args.y_on == "ranks";
  const auto [first, last] = mv.local_rows();
  const DenseMatrix mine =
      on_ranks ? DenseMatrix(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                                std::string("libra::cli::y_local")),
                             static_cast<std::size_t>(last - first),
                             static_cast<std::size_t>(mv.columns()))
               : DenseMatrix();
  for (int r = 0; r < args.iterations; ++r) {
    if (on_ranks && mv.columns() == 1) {
      mv.apply_local(1.0, 0.0, Kokkos::subview(mine, Kokkos::ALL, 0));
    } else if (on_ranks) {
      mv.apply_local(1.0, 0.0, mine);
    } else if (mv.columns() == 1) {
      mv.apply(1.0, 0.0, y1);
    } else {
      mv.apply(1.0, 0.0, Y);
    }
    run.total.push_back(mv.times().total_seconds);
    run.compute.push_back(mv.times().compute_seconds);
    run.wait.push_back(mv.times().wait_seconds);
    run.merge.push_back(mv.times().merge_seconds);
    const auto& by_rank = mv.times().compute_by_rank;
    run.compute_by_rank.resize(by_rank.size());
    for (std::size_t k = 0; k < by_rank.size(); ++k) {
      run.compute_by_rank[k].push_back(by_rank[k]);
    }
  }
  run.setup = mv.setup();
  run.paths = gather_strings(comm, to_string(mv.times().path));
  for (const auto& r : gather_strings(comm, mv.times().row_sums ? "1" : "0")) {
    run.row_sums.push_back(r == "1");
  }
  if (on_ranks) {
    const std::int64_t sent = mv.rows_sent();
    run.rows_sent.assign(comm.is_root() ? static_cast<std::size_t>(comm.size()) : 0, 0);
    MPI_Gather(&sent, 1, MPI_INT64_T, run.rows_sent.data(), 1, MPI_INT64_T, 0,
               comm.get());
    gather_rows(comm, mine, first, Y);
  }
  return run;
}

template <class M>
void report(const SpmvArgs& args, Output& out, const dist::SpmvOptions& o, const M& A,
            const DenseMatrix& X, const DenseMatrix& Y, const Run& run) {
  const std::int64_t K = static_cast<std::int64_t>(X.extent(1));
  const double seconds = median(run.total);
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
  const auto& s = run.setup;
  std::FILE* stream = report_stream(out);
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
    j["format"] = to_string(o.format);
    j["partition"] = o.version == Version::baseline && o.format == PartFormat::csr
                         ? "rows"
                         : std::string("p") + to_string(o.format);
    j["ranks"] = s.ranks;
    // Rank 0's host threads (every rank runs as many unless the launcher bound
    // ranks to different numbers of cores).
    j["host_threads"] = Kokkos::DefaultHostExecutionSpace().concurrency();
    j["placement"] = s.placement;  // rank 0's
    // The processing units rank 0 runs on ("0-15"), whoever bound it.
    j["host_units"] = libra::format_index_list(libra::started_processing_units());
    j["version"] = to_string(o.version);
    j["transport"] = to_string(s.transport);
    j["transport_detail"] = s.transport_detail;
    j["merge_on_host"] = s.merge_on_host;
    j["y_on"] = args.y_on == "ranks" ? "ranks" : "root";
    j["pieces"] = s.pieces;  // 0: y gathered whole
    // Kept on the ranks, y's rows do not move: no piece moves to report.
    if (s.pieces > 0 && args.y_on != "ranks") j["piece_moves"] = to_string(s.piece_moves);
    // Kept on the ranks: the rows of partial sums each rank sends per product.
    if (args.y_on == "ranks") j["rows_sent"] = run.rows_sent;
    // pCSC on the ranks: rows held in proportion to the columns, or equal counts.
    if (args.y_on == "ranks" && o.format == PartFormat::csc) {
      j["rows_held"] = s.column_moves == dist::ColumnMoves::reduce_scatter ? "blocks"
                       : s.rows_by_columns                                 ? "by columns"
                                                                           : "equal";
      j["column_moves"] = to_string(s.column_moves);
    }
    j["paths"] = run.paths;
    j["row_sums"] = run.row_sums;
    j["iterations"] = args.iterations;
    j["seconds"] = seconds;
    j["seconds_min"] = *std::min_element(run.total.begin(), run.total.end());
    j["compute_seconds"] = median(run.compute);
    std::vector<double> by_rank;  // each rank's median
    for (const auto& v : run.compute_by_rank) by_rank.push_back(median(v));
    j["compute_seconds_by_rank"] = by_rank;
    j["balance"] = to_string(o.balance);
    j["cut_slack"] = o.cut_slack;
    j["wait_seconds"] = median(run.wait);
    j["merge_seconds"] = median(run.merge);
    j["x_seconds"] = run.x_seconds;
    j["convert_seconds"] = s.convert_seconds;
    j["partition_seconds"] = s.partition_seconds;
    j["distribute_seconds"] = s.distribute_seconds;
    j["local_offsets_seconds"] = s.local_offsets_seconds;
    j["part_nnz"] = s.part_nnz;
    j["part_lines"] = s.part_lines;
    j["rank_of_part"] = s.rank_of_part;
    j["flops"] = 2 * static_cast<std::uint64_t>(A.nnz()) * static_cast<std::uint64_t>(K);
    j["gbytes_per_second"] = gbs;
    j["peak_resident_bytes_rank0"] = peak_resident_bytes();
    j["execution_space"] = Space::name();
    if (args.check) {
      j["check"] = check;
      j["check_max_error"] = check_error;
    }
    std::fprintf(stream, "%s\n", j.dump(2).c_str());
  } else {
    std::fprintf(stream, "y = A * x on %d MPI ranks, %s each (A: %s, x: %s)\n", s.ranks,
                 Space::name(), args.a_file.c_str(),
                 args.x_file.empty() ? "generated" : args.x_file.c_str());
    std::fprintf(stream, "A is %lld x %lld with %llu entries, %lld right-hand side(s)\n",
                 static_cast<long long>(A.num_rows), static_cast<long long>(A.num_cols),
                 static_cast<unsigned long long>(A.nnz()), static_cast<long long>(K));
    const auto [lo, hi] = std::minmax_element(s.part_nnz.begin(), s.part_nnz.end());
    std::fprintf(
        stream, "version %s, p%s parts (nnz per part %lld to %lld), transport %s (%s)\n",
        to_string(o.version), to_string(o.format), static_cast<long long>(*lo),
        static_cast<long long>(*hi), to_string(s.transport), s.transport_detail.c_str());
    std::fprintf(stream, "rank 0: %d host thread(s), %s\n",
                 Kokkos::DefaultHostExecutionSpace().concurrency(), s.placement.c_str());
    if (args.y_on == "ranks") {
      std::fprintf(stream,
                   "y stays on the ranks (each keeps its rows; only partial sums of "
                   "rows another rank holds move): merge is that move and the sum "
                   "into each rank's rows\n");
    } else if (s.pieces > 0) {
      std::fprintf(stream,
                   "y leaves each rank in %d piece(s), each moved once computed (%s): "
                   "merge is what follows the slowest rank's compute\n",
                   s.pieces,
                   s.piece_moves == PieceMoves::copy_engines ? "by rank 0's copy engines"
                                                             : "over the transport");
    }
    std::fprintf(stream,
                 "%.3f ms per iteration (median of %d), %.2f GB/s: compute %.3f ms "
                 "(slowest rank), wait %.3f ms, merge %.3f ms\n",
                 seconds * 1e3, args.iterations, gbs, median(run.compute) * 1e3,
                 median(run.wait) * 1e3, median(run.merge) * 1e3);
    std::fprintf(stream,
                 "once: convert %.3f ms, partition %.3f ms, distribute %.3f ms (local "
                 "offsets %.3f ms), x %.3f ms\n",
                 s.convert_seconds * 1e3, s.partition_seconds * 1e3,
                 s.distribute_seconds * 1e3, s.local_offsets_seconds * 1e3,
                 run.x_seconds * 1e3);
    if (args.check) print_check(stream, check, check_error);
  }
  std::fflush(stream);
  write_dense_result(out, Y, "y", args.check, check);
}

template <class O>
int multiply_on_ranks(const dist::Comm& comm, const SpmvArgs& args,
                      const dist::SpmvOptions& o, Output& out,
                      const std::optional<Matrix<O>>& read) {
  const Matrix<O> A = read ? *read : Matrix<O>();
  DenseMatrix X, Y;
  agreed_with_code(comm, [&] {
    if (!comm.is_root()) return;
    X = read_x(args, A.num_cols);
    Y = DenseMatrix(Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::cli::y"),
                    A.num_rows, X.extent(1));
  });
  Run run;
  {
    Progress progress("spmv on " + std::to_string(comm.size()) + " ranks");
    run = run_ranks(comm, args, o, A, X, Y);
    progress.finish();
  }
  agreed_with_code(comm, [&] {
    if (comm.is_root()) report(args, out, o, A, X, Y, run);
  });
  return exit_ok;
}

// Rank 0 prints the message, then every rank returns the code: the launcher
// ends the job when the first rank exits non-zero, so no rank may exit before
// rank 0 has spoken.
int stop_together(const dist::Comm& comm, const std::string& message, int code) {
  print_error(message);  // rank 0 only (print_error)
  comm.barrier();
  return code;
}

}  // namespace

int run_spmv_distributed(const SpmvArgs& args) {
  const dist::Comm comm(MPI_COMM_WORLD);
  try {
    const dist::SpmvOptions o = options_of(args, comm.size());
    Output out;
    std::optional<Matrix<int>> narrow;
    std::optional<Matrix<std::int64_t>> wide;
    agreed_with_code(comm, [&] {
      if (!comm.is_root()) return;
      if (!args.x_file.empty() &&
          io::format_from_name(args.x_file) != io::FileFormat::matrix_market) {
        throw Failure(
            exit_usage,
            "--x " + args.x_file + ": x is read as a Matrix Market file (.mtx or .mm)");
      }
      out = open_output(args.out);  // before any work
      if (!args.generate.empty()) {
        const GenerateSpec spec = parse_generate(args.generate, true);
        check_generate_fits(args.generate, spec);
        narrow = generate_matrix(args.generate, spec);
        return;
      }
      visit_matrix(args.a_file, read_options(args.input),
                   [&](const auto& A, const auto&) {
                     using O = typename std::decay_t<decltype(A)>::ordinal_type;
                     if constexpr (std::is_same_v<O, int>) {
                       narrow = A;
                     } else {
                       wide = A;
                     }
                     return 0;
                   });
    });
    int wide_ordinals = wide ? 1 : 0;  // the other ranks learn the type from rank 0
    MPI_Bcast(&wide_ordinals, 1, MPI_INT, 0, comm.get());
    return wide_ordinals ? multiply_on_ranks(comm, args, o, out, wide)
                         : multiply_on_ranks(comm, args, o, out, narrow);
  } catch (const dist::RemoteError& e) {
    return stop_together(comm, e.rank() == 0 ? e.message() : e.what(), exit_code_of(e));
  } catch (const Failure& e) {  // the same on every rank (usage)
    return stop_together(comm, e.what(), e.code());
  } catch (const ArgumentError& e) {  // options every rank refused alike
    return stop_together(comm, e.what(), exit_usage);
  }
}

}  // namespace libra::cli

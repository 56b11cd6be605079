#pragma once
// MSREP's multi-GPU / multi-node SpMV over MPI: one rank per GPU (or per NUMA
// domain on host builds), the matrix read once on rank 0, cut into P parts of
// equal nonzeros (pCSR, pCSC or pCOO), each sent to its rank's device; every
// product runs on all ranks at once and the partial results are merged on rank 0.
//
//   libra::dist::Comm comm;                             // after MPI_Init
//   libra::dist::SpmvOptions o;                         // p_opt, pCSR by default
//   libra::dist::Spmv<Kokkos::Cuda, double> mv(comm, exec, A, o);  // collective
//   mv.set_x(x);                  // collective; x (cols x K, or a vector) on rank 0
//   mv.apply(1.0, 0.0, y);        // collective; y = beta y + alpha A x on rank 0
//   mv.apply_local(1.0, 0.0, yr); // or: each rank keeps its rows of y, local_rows()
//
// A, x and y are read on rank 0 only (the other ranks pass empty ones). Parts are
// numbered host by host (a host's parts are contiguous in the matrix: the
// two-level cut of the paper, nonzeros split in proportion to each host's
// ranks). The merge is the paper's (Section 4.3): row-based parts are gathered
// and their shared boundary rows summed; column-based parts' full-length
// vectors are summed. Any failure on any rank is thrown on every rank as a
// RemoteError (comm.hpp), never left waiting.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "libra/core/error.hpp"
#include "libra/core/topology.hpp"
#include "libra/dist/comm.hpp"
#include "libra/dist/impl/column_rows.hpp"
#include "libra/dist/impl/distribute.hpp"
#include "libra/dist/impl/exchange.hpp"
#include "libra/dist/impl/messages.hpp"
#include "libra/dist/impl/nccl.hpp"
#include "libra/dist/impl/owned_rows.hpp"
#include "libra/dist/impl/peer_copy.hpp"
#include "libra/dist/impl/pieces.hpp"
#include "libra/dist/impl/side_stream.hpp"
#include "libra/dist/options.hpp"
#include "libra/format/convert.hpp"
#include "libra/format/csr.hpp"
#include "libra/spmv/impl/merge.hpp"
#include "libra/spmv/spmv.hpp"

namespace libra::dist {

template <class Exec, class S, class O = int, class Off = std::size_t>
class Spmv {
 public:
  using execution_space = Exec;
  using memory_space = typename Exec::memory_space;
  using device_type = Kokkos::Device<Exec, memory_space>;
  using matrix_type = Csr<S, O, Off, device_type>;

  Spmv(const Comm& comm, const Exec& exec, const matrix_type& A,
       const SpmvOptions& options = {})
      : comm_(comm), exec_(exec), options_(options) {
    Kokkos::Profiling::pushRegion("libra::dist::spmv::setup");
    setup_.ranks = comm.size();
    std::int64_t shape[3] = {A.num_rows, A.num_cols, static_cast<std::int64_t>(A.nnz())};
    impl::bcast_bytes(comm, shape, sizeof(shape), 0);
    setup_.rows = shape[0];
    setup_.cols = shape[1];
    setup_.nnz = shape[2];
    place();
    choose_transport();
    choose_piece_moves();
    check_pieces();
    assign_parts();
    cut_and_ship(A);
    plan_pieces();
    plan_owned_rows();
    Kokkos::Profiling::popRegion();
  }

  // Collective: x (cols x K, or a vector: K = 1) on rank 0 goes where the parts
  // need it: all of it to every rank (pCSR, pCOO), its columns' rows to each
  // rank (pCSC).
  template <class XView>
  void set_x(const XView& x) {
    static_assert(
        Kokkos::SpaceAccessibility<Exec, typename XView::memory_space>::accessible,
        "libra::dist::Spmv::set_x: x must be in the execution space's memory");
    Kokkos::Profiling::pushRegion("libra::dist::spmv::set_x");
    Kokkos::Timer timer;
    std::int64_t K = comm_.is_root() ? libra::impl::spmv_columns(x) : 0;
    impl::bcast_bytes(comm_, &K, sizeof(K), 0);
    const bool resized = K != K_;
    agreed(comm_, [&] {
      if (comm_.is_root() && static_cast<std::int64_t>(x.extent(0)) != setup_.cols) {
        throw ShapeError("libra::dist::Spmv::set_x: A has " +
                         std::to_string(setup_.cols) + " columns, x has " +
                         std::to_string(x.extent(0)) + " rows");
      }
      if (resized) allocate_blocks(K);
    });
    if (resized && peer_) share_rows();
    const int P = comm_.size();
    if (rows_based()) {
      if (comm_.is_root()) impl::copy_block(exec_, x_, x);
      ex_->bcast(x_, 0);
    } else if (comm_.is_root()) {
      impl::copy_block(exec_, x_full_, x);
      for (int i = 0; i < P; ++i) {
        const int r = setup_.rank_of_part[static_cast<std::size_t>(i)];
        const auto cols = Kokkos::make_pair(static_cast<std::size_t>(cuts_.begin(i)),
                                            static_cast<std::size_t>(cuts_.end(i)));
        const auto slice = Kokkos::subview(x_full_, cols, Kokkos::ALL);
        if (r == 0) {
          Kokkos::deep_copy(exec_, x_, slice);
        } else {
          ex_->send(slice, r, tag_x);
        }
      }
    } else {
      ex_->recv(x_, 0, tag_x);
    }
    exec_.fence();
    times_.x_seconds = timer.seconds();
    Kokkos::Profiling::popRegion();
  }

  // Collective: y = beta * y + alpha * A * x on rank 0 (rows x K, K of set_x).
  template <class YView>
  void apply(S alpha, S beta, const YView& y) {
    static_assert(
        Kokkos::SpaceAccessibility<Exec, typename YView::memory_space>::accessible,
        "libra::dist::Spmv::apply: y must be in the execution space's memory");
    agreed(comm_, [&] {
      if (K_ == 0 && setup_.cols > 0) {
        throw ArgumentError("libra::dist::Spmv::apply: call set_x first");
      }
      if (comm_.is_root() && (static_cast<std::int64_t>(y.extent(0)) != setup_.rows ||
                              libra::impl::spmv_columns(y) != K_)) {
        throw ShapeError("libra::dist::Spmv::apply: y is " + std::to_string(y.extent(0)) +
                         " x " + std::to_string(libra::impl::spmv_columns(y)) +
                         ", expected " + std::to_string(setup_.rows) + " x " +
                         std::to_string(K_));
      }
    });
    Kokkos::Profiling::pushRegion("libra::dist::spmv::apply");
    const bool timing = options_.timing;
    if (timing) {
      exec_.fence();
      comm_.barrier();
    }
    Kokkos::Timer timer;
    if (setup_.pieces > 0) {
      apply_in_pieces(alpha, beta, y, timing, timer);
      Kokkos::Profiling::popRegion();
      return;
    }
    compute(alpha);
    double t[2] = {0, 0};
    if (timing) compute_done(timer, t);
    merge(beta, y);
    exec_.fence();
    times_.total_seconds = timer.seconds();
    if (timing) record_phases(t);
    Kokkos::Profiling::popRegion();
  }

  // The rows [first, last) of y this rank holds after apply_local; together the
  // ranks hold every row once. pCSR and pCOO: the rows of its part, less a
  // first row it shares with the part before. pCSC: rows in proportion to its
  // columns (impl/column_rows.hpp).
  Kokkos::pair<std::int64_t, std::int64_t> local_rows() const {
    return {owned_.first, owned_.last};
  }

  // Collective: y_local = beta * y_local + alpha * (A x)'s rows local_rows() on
  // every rank (local_rows' count x K, K of set_x): y stays where it was
  // computed, as in a solver whose vectors are distributed. pCSR and pCOO: only
  // the rows two parts share move, one row from each part that starts inside a
  // row to the rank holding that row. pCSC: each part's partial sums of the
  // rows other parts hold go to them, over its row span only.
  template <class YView>
  void apply_local(S alpha, S beta, const YView& y_local) {
    static_assert(
        Kokkos::SpaceAccessibility<Exec, typename YView::memory_space>::accessible,
        "libra::dist::Spmv::apply_local: y must be in the execution space's memory");
    agreed(comm_, [&] {
      if (K_ == 0 && setup_.cols > 0) {
        throw ArgumentError("libra::dist::Spmv::apply_local: call set_x first");
      }
      const std::int64_t rows = owned_.last - owned_.first;
      if (static_cast<std::int64_t>(y_local.extent(0)) != rows ||
          (rows > 0 && libra::impl::spmv_columns(y_local) != K_)) {
        throw ShapeError("libra::dist::Spmv::apply_local: y on rank " +
                         std::to_string(comm_.rank()) + " is " +
                         std::to_string(y_local.extent(0)) + " x " +
                         std::to_string(libra::impl::spmv_columns(y_local)) +
                         ", expected its rows " + std::to_string(owned_.first) + " to " +
                         std::to_string(owned_.last) + " x " + std::to_string(K_));
      }
    });
    Kokkos::Profiling::pushRegion("libra::dist::spmv::apply_local");
    const bool timing = options_.timing;
    if (timing) {
      exec_.fence();
      comm_.barrier();
    }
    Kokkos::Timer timer;
    if (!rows_based()) {
      apply_local_columns(alpha, beta, y_local, timing, timer);
      Kokkos::Profiling::popRegion();
      return;
    }
    const bool into_y = local_into_y();
    shared_rows_beside_ = false;
    if (into_y) {
      compute_into(alpha, beta, y_local);
    } else {
      compute_local(alpha);
    }
    double t[2] = {0, 0};
    if (timing) compute_done(timer, t);
    Kokkos::Profiling::pushRegion("libra::dist::spmv::merge");
    if (shared_rows_beside_) {
      side_.join(exec_);  // the shared rows moved while the held rows were computed
    } else {
      exchange_shared_rows(into_y ? first_row_ : local_);
    }
    const auto arrived = static_cast<std::int64_t>(owned_.shared_from.size());
    if (into_y) {
      impl::add_arrived_rows(exec_, arrived_, arrived, y_local);
    } else {
      impl::finish_owned_rows(exec_, local_, owned_.local_first, arrived_, arrived,
                              y_local, beta);
    }
    Kokkos::Profiling::popRegion();
    exec_.fence();
    times_.total_seconds = timer.seconds();
    times_.rows_into_y = into_y;
    if (timing) record_phases(t);
    Kokkos::Profiling::popRegion();
  }

  // The rows of partial sums this rank sends to others under apply_local: pCSR
  // and pCOO its shared first row, if any; pCSC the rows of its span that
  // other ranks hold.
  std::int64_t rows_sent() const {
    if (rows_based()) return owned_.send_to >= 0 ? 1 : 0;
    if (block_rows_ > 0) return (comm_.size() - 1) * block_rows_;  // a reduce-scatter's
    std::int64_t n = 0;
    for (const auto& s : col_rows_.sends) n += s.last - s.first;
    return n;
  }

  const SpmvSetup& setup() const { return setup_; }
  const SpmvTimes& times() const { return times_; }
  std::int64_t columns() const { return K_; }

 private:
  using Block = Kokkos::View<S**, Kokkos::LayoutRight, memory_space>;
  using HostBlock = Kokkos::View<S**, Kokkos::LayoutRight, Kokkos::HostSpace>;
  using HostExec = Kokkos::DefaultHostExecutionSpace;
  using Part = impl::LocalPart<S, O, Off, memory_space>;
  using PieceCut = impl::Pieces<Off, memory_space>;
  using Plans = std::vector<SpmvPlan<S, memory_space>>;
  static constexpr int tag_x = 201, tag_y = 202;
  // Pieces' tags: tag_piece + piece, up to 5096; a shared first row alone.
  static constexpr int tag_piece = 1000, max_pieces = 4096, tag_shared_row = 999;

  bool rows_based() const { return options_.format != PartFormat::csc; }

  // Every rank must run the same steps: the same options everywhere.
  void check_options() const {
    int mine[6] = {
        static_cast<int>(options_.version),     static_cast<int>(options_.format),
        static_cast<int>(options_.transport),   options_.pieces,
        static_cast<int>(options_.piece_moves), static_cast<int>(options_.balance)};
    int lo[6], hi[6];
    MPI_Allreduce(mine, lo, 6, MPI_INT, MPI_MIN, comm_.get());
    MPI_Allreduce(mine, hi, 6, MPI_INT, MPI_MAX, comm_.get());
    if (!std::equal(lo, lo + 6, hi)) {
      throw ArgumentError(
          "libra::dist::Spmv: the ranks passed different versions, formats, "
          "transports, pieces, piece moves or balances");
    }
    double slack[2] = {options_.cut_slack, -options_.cut_slack}, slack_max[2];
    MPI_Allreduce(slack, slack_max, 2, MPI_DOUBLE, MPI_MAX, comm_.get());
    if (slack_max[0] != -slack_max[1]) {
      throw ArgumentError("libra::dist::Spmv: the ranks passed different cut slacks");
    }
    if (!(options_.cut_slack >= 0 && options_.cut_slack <= 1)) {
      throw ArgumentError(
          "libra::dist: cut_slack is a share of a part's nonzeros, 0 to "
          "1, not " +
          std::to_string(options_.cut_slack));
    }
    if (options_.version == Version::baseline && options_.cut_slack > 0) {
      throw ArgumentError(
          "libra::dist: cut_slack is p's and p-opt's; baseline cuts whole lines");
    }
    if (options_.version == Version::baseline && options_.balance != Balance::nonzeros) {
      throw ArgumentError(
          "libra::dist: balance merge-path is p's and p-opt's; baseline cuts equal "
          "lines");
    }
    if (options_.version != Version::p_opt &&
        options_.transport != Transport::automatic &&
        options_.transport != Transport::host) {
      throw ArgumentError(std::string("libra::dist: transport ") +
                          to_string(options_.transport) +
                          " is p-opt's choice; baseline and p move everything "
                          "through host memory and merge there");
    }
  }

  // p-opt: this rank's threads and memory near its GPU (host builds: the ranks
  // of a host spread over its NUMA domains), before any part is allocated.
  void place() {
    if (options_.version != Version::p_opt) {
      setup_.placement = "not placed: only p-opt places ranks";
      return;
    }
    if (!options_.place) {
      setup_.placement = "not placed: SpmvOptions::place is off";
      return;
    }
    constexpr bool gpu =
        !Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;
    static const Topology t = read_topology();  // once per process: tens of ms
    setup_.placement =
        bind_process(t, plan_placement(t, comm_.node_rank(), comm_.node_size(), gpu));
  }

  void choose_transport() {
    const Transport want = options_.transport;
    check_options();  // the same outcome on every rank
    if (options_.version != Version::p_opt) {
      setup_.transport = Transport::host;
      setup_.merge_on_host = true;
      setup_.transport_detail = "host memory, MPI; merged on the host";
    } else {
      setup_.merge_on_host = false;
      constexpr bool host_memory =
          Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;
      int cuda_aware = impl::mpi_takes_cuda_pointers() ? 1 : 0;
      MPI_Allreduce(MPI_IN_PLACE, &cuda_aware, 1, MPI_INT, MPI_MIN, comm_.get());
      std::string why_not_nccl;
      if (want == Transport::nccl || (want == Transport::automatic && !host_memory)) {
        if (!impl::runs_on_cuda<Exec>()) {
          why_not_nccl =
              std::string("NCCL runs on the Cuda execution space, this one is ") +
              Exec::name();
        } else {
          nccl_ = impl::Nccl::open(comm_, why_not_nccl);
        }
        if (!nccl_ && want == Transport::nccl) {
          throw ArgumentError("libra::dist: transport nccl: " + why_not_nccl);
        }
      }
      if (nccl_) {
        setup_.transport = Transport::nccl;
        setup_.transport_detail = nccl_->description();
      } else if (want == Transport::mpi && !host_memory && !cuda_aware) {
        throw ArgumentError(
            "libra::dist: transport mpi: the MPI library does not take device "
            "pointers (not CUDA-aware); use host or nccl");
      } else if (want == Transport::mpi ||
                 (want == Transport::automatic && (host_memory || cuda_aware))) {
        setup_.transport = Transport::mpi;
        setup_.transport_detail = host_memory ? "MPI on host memory" : "CUDA-aware MPI";
      } else {
        setup_.transport = Transport::host;
        setup_.transport_detail = "MPI through host copies";
      }
      if (!why_not_nccl.empty() && !nccl_) {
        setup_.transport_detail += " (no NCCL: " + why_not_nccl + ")";
      }
      setup_.transport_detail += "; merged on the device";
    }
    ex_ = std::make_unique<impl::Exchange<Exec>>(comm_, exec_, setup_.transport,
                                                 nccl_.get());
  }

  // Copy engines for y's pieces (collective; the options are agreed, and
  // PeerCopy::open gives every rank the same answer). Automatic: copy engines
  // wherever they open and there is another rank (on four H100s they moved y
  // faster than NCCL and left the products alone,
  // perf_tests/report/h100x4/mspmv_piece_moves.md), else the transport.
  void choose_piece_moves() {
    const PieceMoves want = options_.piece_moves;
    const bool rows_pieces =
        options_.version == Version::p_opt && options_.format == PartFormat::csr;
    if (want == PieceMoves::transport) return;
    if (want == PieceMoves::automatic &&
        (!rows_pieces || !impl::runs_on_cuda<Exec>() || comm_.size() == 1)) {
      return;
    }
    if (!rows_pieces) {
      throw ArgumentError(
          "libra::dist: piece moves copy-engines need p-opt and pCSR parts (this is " +
          std::string(to_string(options_.version)) + ", p" + to_string(options_.format) +
          ")");
    }
    std::string why;
    if (!impl::runs_on_cuda<Exec>()) {
      why =
          std::string("they need the Cuda execution space, this one is ") + Exec::name();
    } else {
      peer_ = impl::PeerCopy::open(comm_, why);
    }
    if (peer_) {
      setup_.transport_detail += "; y's pieces by rank 0's copy engines (CUDA IPC)";
    } else if (want == PieceMoves::copy_engines) {
      throw ArgumentError("libra::dist: piece moves copy-engines: " + why);
    } else {
      setup_.transport_detail +=
          "; y's pieces over the transport (no copy engines: " + why + ")";
    }
  }

  // Copy engines: every rank but the root computes its rows into a buffer the
  // root has mapped (collective; after the blocks are allocated for K).
  void share_rows() {
    const auto k = static_cast<std::size_t>(K_);
    const auto lines = comm_.is_root() ? 0 : static_cast<std::size_t>(part_.lines());
    void* p = peer_->share(lines * k * sizeof(S));
    ybuf_ = Block(static_cast<S*>(p), lines, k);
  }

  // The execution space instance's stream (a cudaStream_t) where it is Cuda.
  void* stream() const {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) return exec_.cuda_stream();
#endif
    return nullptr;
  }

  // Parts host by host: rank_of_part orders the ranks by (host, rank on host).
  void assign_parts() {
    const int P = comm_.size();
    int mine[2] = {comm_.node_index(), comm_.node_rank()};
    std::vector<int> all(comm_.is_root() ? 2 * static_cast<std::size_t>(P) : 0);
    MPI_Gather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, 0, comm_.get());
    std::vector<int> part_of_rank(static_cast<std::size_t>(P));
    if (comm_.is_root()) {
      auto& order = setup_.rank_of_part;
      order.resize(static_cast<std::size_t>(P));
      for (int r = 0; r < P; ++r) order[static_cast<std::size_t>(r)] = r;
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const auto A = static_cast<std::size_t>(a), B = static_cast<std::size_t>(b);
        return std::make_pair(all[2 * A], all[2 * A + 1]) <
               std::make_pair(all[2 * B], all[2 * B + 1]);
      });
      for (int i = 0; i < P; ++i) part_of_rank[static_cast<std::size_t>(order[i])] = i;
    }
    MPI_Scatter(part_of_rank.data(), 1, MPI_INT, &setup_.part, 1, MPI_INT, 0,
                comm_.get());
  }

  void cut_and_ship(const matrix_type& A) {
    using Src = impl::Source<S, O, Off, memory_space>;
    const int P = comm_.size();
    Src src;
    src.format = options_.format;
    src.nnz = setup_.nnz;
    // The root's conversions stay alive until every part is shipped.
    Csc<S, O, Off, device_type> C;
    Coo<S, O, Off, device_type> Co;
    libra::impl::PartitionPlan<
        libra::impl::CompressedLocal<Kokkos::View<const Off*, memory_space>>>
        plan;
    std::vector<std::int64_t> desc_by_rank(
        comm_.is_root() ? 6 * static_cast<std::size_t>(P) : 0);
    Kokkos::Timer timer;
    agreed(comm_, [&] {
      if (!comm_.is_root()) return;
      timer.reset();
      src.lines = setup_.rows;
      src.offsets = A.row_map;
      src.idx = A.col_idx;
      src.values = A.values;
      if (options_.format == PartFormat::csc) {
        C = to_csc(exec_, A);
        src.lines = setup_.cols;
        src.offsets = C.col_map;
        src.idx = C.row_idx;
        src.values = C.values;
      } else if (options_.format == PartFormat::coo) {
        Co = to_coo(exec_, A);
        src.idx = Co.row_idx;
        src.idx2 = Co.col_idx;
        src.values = Co.values;
      }
      exec_.fence();
      setup_.convert_seconds = timer.seconds();
      timer.reset();
      const bool merge_path = options_.balance == Balance::merge_path;
      // cut_slack in nonzeros: a share of a part's.
      const std::int64_t slack = static_cast<std::int64_t>(
          options_.cut_slack * static_cast<double>(src.nnz) / static_cast<double>(P));
      using libra::impl::CompressedStart;
      using libra::impl::MergePathStart;
      using libra::impl::WholeLineStart;
      if (options_.version == Version::p_opt && merge_path) {
        libra::impl::device_bounds(exec_, src.offsets, src.lines, src.nnz, P, cuts_.bound,
                                   cuts_.start, cuts_.flag,
                                   WholeLineStart<MergePathStart>{slack});
      } else if (options_.version == Version::p_opt) {
        libra::impl::device_bounds(exec_, src.offsets, src.lines, src.nnz, P, cuts_.bound,
                                   cuts_.start, cuts_.flag,
                                   WholeLineStart<CompressedStart>{slack});
      } else {
        using libra::impl::plan_compressed;
        plan = options_.version == Version::baseline
                   ? plan_compressed<libra::impl::LineBlockStart>(
                         exec_, src.offsets, src.lines, src.nnz, P, false)
               : merge_path ? plan_compressed<WholeLineStart<MergePathStart>>(
                                  exec_, src.offsets, src.lines, src.nnz, P, false,
                                  WholeLineStart<MergePathStart>{slack})
                            : plan_compressed<WholeLineStart<CompressedStart>>(
                                  exec_, src.offsets, src.lines, src.nnz, P, false,
                                  WholeLineStart<CompressedStart>{slack});
        cuts_.bound = plan.bound;
        cuts_.start = plan.start;
        cuts_.flag = plan.flag;
      }
      exec_.fence();
      setup_.partition_seconds = timer.seconds();
      for (int i = 0; i < P; ++i) {
        const std::size_t k = static_cast<std::size_t>(i);
        const std::size_t r = static_cast<std::size_t>(setup_.rank_of_part[k]);
        const std::int64_t d[6] = {cuts_.bound[k], cuts_.bound[k + 1], cuts_.begin(i),
                                   cuts_.end(i),   cuts_.flag[k],      i};
        std::copy(d, d + 6, desc_by_rank.begin() + static_cast<std::ptrdiff_t>(6 * r));
        setup_.part_nnz.push_back(d[1] - d[0]);
        setup_.part_lines.push_back(d[3] - d[2]);
      }
    });
    std::int64_t d[6];
    MPI_Scatter(desc_by_rank.data(), 6, MPI_INT64_T, d, 6, MPI_INT64_T, 0, comm_.get());
    part_.b0 = d[0];
    part_.b1 = d[1];
    part_.start = d[2];
    part_.end = d[3];
    part_.flag = d[4] != 0;
    part_.index = static_cast<int>(d[5]);
    comm_.barrier();
    timer.reset();
    agreed(comm_, [&] { impl::allocate_part<Exec>(part_, options_.format); });
    agreed(comm_, [&] {
      if (comm_.is_root()) {
        for (int i = 0; i < P; ++i) {
          const int r = setup_.rank_of_part[static_cast<std::size_t>(i)];
          Part* own = r == 0 ? &part_ : nullptr;
          if (options_.version == Version::p_opt) {
            const auto lines =
                Kokkos::make_pair(static_cast<std::size_t>(cuts_.begin(i)),
                                  static_cast<std::size_t>(cuts_.end(i)) + 1);
            impl::ship_part(*ex_, exec_, src, cuts_, Kokkos::subview(src.offsets, lines),
                            i, r, own);
          } else {
            impl::ship_part(*ex_, exec_, src, cuts_, libra::impl::local_offsets(plan, i),
                            i, r, own);
          }
        }
      } else {
        impl::receive_part(*ex_, part_, options_.format);
      }
      exec_.fence();
    });
    if (options_.version == Version::p_opt && options_.format != PartFormat::coo) {
      Kokkos::Timer local;
      impl::make_local_offsets(exec_, part_);
      exec_.fence();
      double t = local.seconds();
      impl::max_over_ranks(comm_, &t, 1);
      setup_.local_offsets_seconds = t;
    }
    comm_.barrier();
    setup_.distribute_seconds = timer.seconds();
    if (comm_.is_root() && rows_based()) make_merge_table();
  }

  // Whether y may leave in pieces: p_opt's device merge of pCSR parts, over a
  // transport that can move a piece while the next is computed.
  bool pieces_possible() const {
    return options_.version == Version::p_opt && options_.format == PartFormat::csr &&
           (setup_.transport == Transport::nccl || setup_.transport == Transport::mpi ||
            peer_);
  }

  // The same outcome on every rank: the options and the transport are agreed.
  void check_pieces() const {
    const int n = options_.pieces;
    if (n < 0 || n > max_pieces) {
      throw ArgumentError("libra::dist: pieces must be 0 (automatic) to " +
                          std::to_string(max_pieces) + ", not " + std::to_string(n));
    }
    if (n > 1 && !pieces_possible()) {
      throw ArgumentError(
          "libra::dist: y leaves in pieces only with p-opt, pCSR parts and the nccl "
          "or mpi transport or copy engines (this is " +
          std::string(to_string(options_.version)) + ", p" + to_string(options_.format) +
          ", " + to_string(setup_.transport) + ")");
    }
  }

  // Every rank cuts its part into the agreed number of pieces; the root learns
  // where every part's pieces start.
  void plan_pieces() {
    if (!pieces_possible()) return;
    const int P = comm_.size();
    // Automatic is one piece: on four H100s (NVLink) more pieces hid the moves
    // but slowed the products more than they saved (perf_tests/report/h100x4/).
    const int count = options_.pieces > 0 ? options_.pieces : 1;
    agreed(comm_, [&] {
      pieces_ = impl::cut_pieces(exec_, part_.offsets, count);
      if (count > 1) part_.offsets = {};  // the pieces' own offsets replace them
      plan_tiles();
      if (setup_.transport == Transport::nccl && !peer_) side_.open();
    });
    if (peer_) peer_->prepare(count);
    setup_.piece_moves = peer_ ? PieceMoves::copy_engines : PieceMoves::transport;
    const auto n = static_cast<std::size_t>(count) + 1;
    std::vector<std::int64_t> all(comm_.is_root() ? n * static_cast<std::size_t>(P) : 0);
    MPI_Gather(pieces_.line.data(), static_cast<int>(n), MPI_INT64_T, all.data(),
               static_cast<int>(n), MPI_INT64_T, 0, comm_.get());
    if (comm_.is_root()) {
      piece_lines_.resize(static_cast<std::size_t>(P));
      for (std::size_t r = 0; r < static_cast<std::size_t>(P); ++r) {
        piece_lines_[r].assign(all.begin() + static_cast<std::ptrdiff_t>(r * n),
                               all.begin() + static_cast<std::ptrdiff_t>((r + 1) * n));
      }
    }
    setup_.pieces = count;
  }

  // Row-based parts: every rank learns every part's first line and start flag,
  // so that it knows the rows of y it holds under apply_local and where the
  // row it shares goes (impl::owned_rows).
  void plan_owned_rows() {
    if (!rows_based()) return plan_column_rows();
    const auto P = static_cast<std::size_t>(comm_.size());
    std::vector<std::int64_t> start(P + 1), flag(P + 1);
    rank_of_part_ = comm_.is_root() ? setup_.rank_of_part : std::vector<int>(P);
    if (comm_.is_root()) {
      start = cuts_.start;
      flag = cuts_.flag;
    }
    impl::bcast_bytes(comm_, start.data(), start.size() * sizeof(std::int64_t), 0);
    impl::bcast_bytes(comm_, flag.data(), flag.size() * sizeof(std::int64_t), 0);
    impl::bcast_bytes(comm_, rank_of_part_.data(), P * sizeof(int), 0);
    owned_ = impl::owned_rows(start, flag, part_.index);
  }

  // Column parts: every rank learns every part's first column and row span,
  // so that it knows the rows of y it holds under apply_local and which slices
  // of its partial y go where (impl::column_rows).
  void plan_column_rows() {
    const auto P = static_cast<std::size_t>(comm_.size());
    std::vector<std::int64_t> start(P + 1);
    rank_of_part_ = comm_.is_root() ? setup_.rank_of_part : std::vector<int>(P);
    if (comm_.is_root()) start = cuts_.start;
    impl::bcast_bytes(comm_, start.data(), start.size() * sizeof(std::int64_t), 0);
    impl::bcast_bytes(comm_, rank_of_part_.data(), P * sizeof(int), 0);
    const auto mine = impl::row_span(exec_, part_.idx);
    span_[0] = mine.first;
    span_[1] = mine.second;
    std::vector<std::int64_t> by_rank(2 * P), by_part(2 * P);
    MPI_Allgather(span_, 2, MPI_INT64_T, by_rank.data(), 2, MPI_INT64_T, comm_.get());
    for (std::size_t i = 0; i < P; ++i) {
      const auto r = static_cast<std::size_t>(rank_of_part_[i]);
      by_part[2 * i] = by_rank[2 * r];
      by_part[2 * i + 1] = by_rank[2 * r + 1];
    }
    const auto held = impl::choose_held_rows(start, setup_.rows, setup_.cols, by_part,
                                             setup_.rows_by_columns);
    // Automatic is slices (options.hpp: the reduce-scatter was no faster).
    const bool collective = options_.column_moves == ColumnMoves::reduce_scatter;
    setup_.column_moves = collective ? ColumnMoves::reduce_scatter : ColumnMoves::slices;
    if (collective) {  // rank r holds block r; nothing moves as slices
      const auto blocks = impl::block_row_starts(static_cast<int>(P), setup_.rows);
      setup_.rows_by_columns = false;
      col_rows_ = impl::ColumnRows{};
      col_rows_.first = blocks[static_cast<std::size_t>(comm_.rank())];
      col_rows_.last = blocks[static_cast<std::size_t>(comm_.rank()) + 1];
      block_rows_ = blocks[1];
    } else {
      col_rows_ = impl::column_rows(held, by_part, part_.index);
      block_rows_ = 0;
    }
    owned_.first = col_rows_.first;
    owned_.last = col_rows_.last;
    const auto& in = col_rows_.receives;
    slices_ = decltype(slices_)("libra::dist::column_slices", in.size());
    auto h = Kokkos::create_mirror_view(slices_);
    for (std::size_t s = 0; s < in.size(); ++s) {
      h(s, 0) = in[s].first;
      h(s, 1) = in[s].last;
      h(s, 2) = in[s].at;
    }
    Kokkos::deep_copy(slices_, h);
  }

  // apply_local with column parts: the partial y over the part's span, its
  // slices exchanged pair by pair, the rows held summed into y_local. A part
  // whose span lies within the rows it holds (one rank; parts of a
  // block-diagonal matrix) sends nothing: it computes straight into y_local and
  // only adds what arrives. With a reduce-scatter (block_rows_; a matrix
  // without rows has no block and takes the slices' path, with nothing to
  // move) this rank's block arrives summed over every part, own included.
  template <class YView>
  void apply_local_columns(S alpha, S beta, const YView& y_local, bool timing,
                           const Kokkos::Timer& timer) {
    const bool blocks = block_rows_ > 0;
    const bool into_y = !blocks && col_rows_.sends.empty();
    if (into_y) {
      compute_columns_into(alpha, beta, y_local);
    } else {
      compute(alpha);
    }
    double t[2] = {0, 0};
    if (timing) compute_done(timer, t);
    Kokkos::Profiling::pushRegion("libra::dist::spmv::merge");
    if (blocks) {
      size_arrived(static_cast<std::size_t>(block_rows_));
      if (K_ > 0) ex_->reduce_scatter_sum(ybuf_padded_, arrived_);
      impl::finish_column_rows(exec_, arrived_, 0, arrived_, slices_, y_local, beta);
    } else {
      exchange_column_rows();
      impl::finish_column_rows(exec_, ybuf_, col_rows_.first, arrived_, slices_, y_local,
                               beta, into_y);
    }
    Kokkos::Profiling::popRegion();
    exec_.fence();
    times_.total_seconds = timer.seconds();
    times_.rows_into_y = into_y;
    if (timing) record_phases(t);
  }

  // y_local = beta y_local + alpha (the part's product), its span within the
  // rows held: the rows outside the span are only scaled.
  template <class YView>
  void compute_columns_into(S alpha, S beta, const YView& y) {
    Kokkos::Profiling::pushRegion("libra::dist::spmv::compute");
    times_.path = SpmvPath::none;
    times_.row_sums = false;
    const auto rows = static_cast<std::size_t>(y.extent(0));
    const bool spanned = span_[1] > span_[0] && K_ > 0;
    const auto lo = spanned ? static_cast<std::size_t>(span_[0] - col_rows_.first) : 0;
    const auto hi = spanned ? static_cast<std::size_t>(span_[1] - col_rows_.first) : 0;
    const auto part = [&](std::size_t a, std::size_t b) {
      if constexpr (YView::rank == 1) {
        return Kokkos::subview(y, Kokkos::make_pair(a, b));
      } else {
        return Kokkos::subview(y, Kokkos::make_pair(a, b), Kokkos::ALL);
      }
    };
    if (K_ > 0) {
      impl::scale_rows(exec_, part(0, lo), beta);
      impl::scale_rows(exec_, part(hi, rows), beta);
    }
    if (spanned) {
      SpmvStats st;
      const auto window = part(lo, hi);
      if constexpr (YView::rank == 1) {
        const libra::impl::spmv_const_t<decltype(Kokkos::subview(x_, Kokkos::ALL, 0))>
            xc = Kokkos::subview(x_, Kokkos::ALL, 0);
        libra::impl::spmv_csc(exec_, part_.offsets, part_.idx, part_.values,
                              part_.lines(), xc, 0, window, span_[0], alpha, beta,
                              options_.local, st);
      } else {
        const libra::impl::spmv_const_t<Block> xc = x_;
        libra::impl::spmv_csc(exec_, part_.offsets, part_.idx, part_.values,
                              part_.lines(), xc, 0, window, span_[0], alpha, beta,
                              options_.local, st);
      }
      times_.path = st.path;
    } else if (K_ > 0 && rows > 0) {
      times_.path = SpmvPath::scale_only;
    }
    Kokkos::Profiling::popRegion();
  }

  // The slices of the partial y between this rank and each other, pair by pair
  // in one order on every rank ((a, b) with a < b: a sends first, b receives
  // first), so that blocking MPI moves always complete; NCCL runs them as one
  // group.
  void exchange_column_rows() {
    size_arrived(static_cast<std::size_t>(col_rows_.arrived_rows));
    if (K_ == 0) return;
    const int P = comm_.size(), me = comm_.rank();
    std::vector<int> part_of_rank(static_cast<std::size_t>(P));
    for (int i = 0; i < P; ++i)
      part_of_rank[rank_of_part_[static_cast<std::size_t>(i)]] = i;
    const auto rows_of = [](const Block& b, std::int64_t first, std::int64_t last) {
      return Kokkos::subview(b,
                             Kokkos::make_pair(static_cast<std::size_t>(first),
                                               static_cast<std::size_t>(last)),
                             Kokkos::ALL);
    };
    const auto send = [&](int part, int r) {
      for (const auto& s : col_rows_.sends) {
        if (s.part == part) ex_->send(rows_of(ybuf_, s.first, s.last), r, tag_y);
      }
    };
    const auto receive = [&](int part, int r) {
      for (const auto& s : col_rows_.receives) {
        if (s.part == part)
          ex_->recv(rows_of(arrived_, s.at, s.at + s.last - s.first), r, tag_y);
      }
    };
    ex_->group_start();
    for (int r = 0; r < P; ++r) {
      if (r == me) continue;
      const int j = part_of_rank[static_cast<std::size_t>(r)];
      if (r < me) {
        receive(j, r);
        send(j, r);
      } else {
        send(j, r);
        receive(j, r);
      }
    }
    ex_->group_end();
  }

  // apply_local: whether the part's rows go straight into y_local: pCSR with
  // its offsets whole (not cut into several pieces for the gather). Else they
  // are computed into `local_` and copied.
  bool local_into_y() const {
    return options_.format == PartFormat::csr && setup_.pieces <= 1 &&
           static_cast<std::int64_t>(part_.offsets.extent(0)) == part_.lines() + 1;
  }

  // apply_local, into y: the part's lines cut once into its shared first line
  // (where it has one, computed into `first_row_`) and the lines it holds,
  // computed into y_local with beta, each piece with its own plan.
  template <class YView>
  void compute_into(S alpha, S beta, const YView& y_local) {
    const std::int64_t lines = part_.lines(), f = owned_.local_first;
    if (local_cut_.line.empty()) {
      const std::vector<std::int64_t> at = f == 1 ? std::vector<std::int64_t>{0, 1, lines}
                                                  : std::vector<std::int64_t>{0, lines};
      local_cut_ = impl::pieces_at(exec_, part_.offsets, at);
      local_plans_ = plan_tiles_of(local_cut_);
    }
    const auto k = static_cast<std::size_t>(K_);
    if (first_row_.extent(0) != static_cast<std::size_t>(f) ||
        first_row_.extent(1) != k) {
      first_row_ = Block("libra::dist::first_row", static_cast<std::size_t>(f), k);
    }
    Kokkos::Profiling::pushRegion("libra::dist::spmv::compute");
    times_.path = SpmvPath::none;
    times_.row_sums = false;
    if (K_ > 0 && f == 1) {
      compute_rows_of(local_cut_, local_plans_, 0, alpha, S(0), first_row_,
                      Kokkos::make_pair(std::size_t(0), std::size_t(1)));
    }
    // Over NCCL the shared rows move on the side stream, once this part's
    // shared line is computed, while the lines it holds are computed. The side
    // stream is told to wait for the shared line first; the NCCL calls, whose
    // host time would delay the products, are queued after the products are.
    shared_rows_beside_ = setup_.transport == Transport::nccl && K_ > 0 &&
                          (owned_.send_to >= 0 || !owned_.shared_from.empty());
    if (shared_rows_beside_) {
      if (!side_.stream()) side_.open();
      side_.wait_for(exec_);
    }
    const int held = static_cast<int>(f);
    if (K_ > 0 && local_cut_.lines(held) > 0) {
      compute_rows_of(
          local_cut_, local_plans_, held, alpha, beta, y_local,
          Kokkos::make_pair(std::size_t(0), static_cast<std::size_t>(lines - f)));
    }
    if (shared_rows_beside_) exchange_shared_rows_on(side_.stream(), first_row_);
    Kokkos::Profiling::popRegion();
  }

  // apply_local: this part's lines of A x into `local_` (its own buffer: with
  // copy engines `ybuf_` is mapped by the root, and the root has none).
  void compute_local(S alpha) {
    const auto lines = static_cast<std::size_t>(part_.lines());
    const auto k = static_cast<std::size_t>(K_);
    if (local_.extent(0) != lines || local_.extent(1) != k) {
      local_ = Block(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                        std::string("libra::dist::local_y")),
                     lines, k);
    }
    Kokkos::Profiling::pushRegion("libra::dist::spmv::compute");
    times_.path = SpmvPath::none;
    times_.row_sums = false;
    if (setup_.pieces > 0) {  // pCSR p-opt: the pieces hold the offsets
      for (int c = 0; c < pieces_.count && K_ > 0; ++c) {
        if (pieces_.lines(c) == 0) continue;
        const auto p = static_cast<std::size_t>(c);
        compute_rows(c, alpha, local_,
                     Kokkos::make_pair(static_cast<std::size_t>(pieces_.line[p]),
                                       static_cast<std::size_t>(pieces_.line[p + 1])));
      }
    } else if (K_ == 1) {
      compute_on(alpha, Kokkos::subview(x_, Kokkos::ALL, 0),
                 Kokkos::subview(local_, Kokkos::ALL, 0));
    } else {
      compute_on(alpha, x_, local_);
    }
    Kokkos::Profiling::popRegion();
  }

  // apply_local: the shared rows' partial sums to the ranks holding them. Each
  // rank receives before it sends: sends go to lower parts only, so blocking
  // MPI calls finish in a chain; NCCL runs them as one group.
  void exchange_shared_rows(const Block& from) {
    const auto n = owned_.shared_from.size();
    size_arrived(owned_.shared_from.size());
    if (K_ == 0) return;
    const auto rank = [&](int part) {
      return rank_of_part_[static_cast<std::size_t>(part)];
    };
    ex_->group_start();
    for (std::size_t a = 0; a < n; ++a) {
      ex_->recv(Kokkos::subview(arrived_, Kokkos::make_pair(a, a + 1), Kokkos::ALL),
                rank(owned_.shared_from[a]), tag_shared_row);
    }
    if (owned_.send_to >= 0) {
      ex_->send(Kokkos::subview(from, Kokkos::make_pair(0, 1), Kokkos::ALL),
                rank(owned_.send_to), tag_shared_row);
    }
    ex_->group_end();
  }
  // `arrived_` as n rows x K (the rows received from other ranks).
  void size_arrived(std::size_t n) {
    const auto k = static_cast<std::size_t>(K_);
    if (arrived_.extent(0) != n || arrived_.extent(1) != k) {
      arrived_ = Block("libra::dist::arrived_rows", n, k);
    }
  }

  // The same over NCCL on `stream` (one group: every receive, then the send).
  void exchange_shared_rows_on(void* stream, const Block& from) {
    size_arrived(owned_.shared_from.size());
    const std::size_t row = static_cast<std::size_t>(K_) * sizeof(S);
    nccl_->group_start();
    for (std::size_t a = 0; a < owned_.shared_from.size(); ++a) {
      nccl_->recv(arrived_.data() + a * static_cast<std::size_t>(K_), row,
                  rank_of_part_[static_cast<std::size_t>(owned_.shared_from[a])], stream);
    }
    if (owned_.send_to >= 0) {
      nccl_->send(from.data(), row,
                  rank_of_part_[static_cast<std::size_t>(owned_.send_to)], stream);
    }
    nccl_->group_end();
  }

  // Per part: its first row in the gathered buffer, first row of y, start flag,
  // rows covered (libra/spmv/impl/merge.hpp).
  void make_merge_table() {
    const int P = comm_.size();
    table_host_ =
        decltype(table_host_)("libra::dist::merge_table", static_cast<std::size_t>(P));
    std::int64_t total = 0;
    for (int i = 0; i < P; ++i) {
      table_host_(i, 0) = total;
      table_host_(i, 1) = cuts_.begin(i);
      table_host_(i, 2) = cuts_.flag[static_cast<std::size_t>(i)];
      table_host_(i, 3) = cuts_.end(i) - cuts_.begin(i);
      total += table_host_(i, 3);
    }
    gathered_rows_ = total;
    table_ = Kokkos::create_mirror_view_and_copy(memory_space(), table_host_);
  }

  void allocate_blocks(std::int64_t K) {
    K_ = K;
    const auto k = static_cast<std::size_t>(K);
    const auto noinit = [](const std::string& label) {
      return Kokkos::view_alloc(Kokkos::WithoutInitializing, label);
    };
    const auto m = static_cast<std::size_t>(setup_.rows);
    const auto n = static_cast<std::size_t>(setup_.cols);
    const auto lines = static_cast<std::size_t>(part_.lines());
    x_ = Block(noinit("libra::dist::x"), rows_based() ? n : lines, k);
    // In pieces the root computes its rows straight into y or `gathered_`.
    const bool own_rows_gathered = setup_.pieces > 0 && comm_.is_root();
    // With copy engines the rows go to a buffer the root maps (share_rows).
    // Column parts compute only their row span: the rest must read 0.
    const std::size_t partial_rows = own_rows_gathered || peer_ ? 0
                                     : rows_based()             ? lines
                                                                : m;
    // A reduce-scatter's partial y is padded to P blocks of rows.
    const auto padded =
        std::max(partial_rows, static_cast<std::size_t>(comm_.size() * block_rows_));
    ybuf_padded_ = rows_based() ? Block(noinit("libra::dist::partial_y"), padded, k)
                                : Block("libra::dist::partial_y", padded, k);
    ybuf_ = Kokkos::subview(ybuf_padded_, Kokkos::make_pair(std::size_t(0), partial_rows),
                            Kokkos::ALL);
    // The host merge's copy of the partial result (ybuf_ itself in host memory).
    if (setup_.merge_on_host) ybuf_host_ = Kokkos::create_mirror_view(ybuf_);
    if (!comm_.is_root()) return;
    if (!rows_based()) x_full_ = Block(noinit("libra::dist::x_full"), n, k);
    const auto gathered = rows_based() ? static_cast<std::size_t>(gathered_rows_) : m;
    if (setup_.merge_on_host) {
      gathered_host_ = HostBlock(noinit("libra::dist::gathered_host"), gathered, k);
      if (rows_based())
        merged_host_ = HostBlock(noinit("libra::dist::merged_host"), m, k);
      merged_ = Block(noinit("libra::dist::merged"), m, k);
    } else if (setup_.pieces > 0) {
      // Pieces land in y where they can; `gathered_` only when first needed.
      gathered_ = Block();
      shared_ =
          Block("libra::dist::shared_rows", static_cast<std::size_t>(comm_.size()), k);
    } else {
      gathered_ = Block(noinit("libra::dist::gathered"), gathered, k);
    }
  }

  void compute(S alpha) {
    Kokkos::Profiling::pushRegion("libra::dist::spmv::compute");
    if (K_ == 1) {
      compute_on(alpha, Kokkos::subview(x_, Kokkos::ALL, 0),
                 Kokkos::subview(ybuf_, Kokkos::ALL, 0));
    } else {
      compute_on(alpha, x_, ybuf_);
    }
    Kokkos::Profiling::popRegion();
  }

  template <class XV, class YV>
  void compute_on(S alpha, const XV& x, const YV& y) {
    const libra::impl::spmv_const_t<XV> xc = x;
    times_.path = SpmvPath::none;
    times_.row_sums = false;
    if (y.extent(0) == 0 || K_ == 0) return;
    if (options_.format == PartFormat::csc) {
      // Only the part's row span: the rest of the partial y stays 0 from its
      // allocation (allocate_blocks).
      const auto span = Kokkos::make_pair(static_cast<std::size_t>(span_[0]),
                                          static_cast<std::size_t>(span_[1]));
      const auto window = [&] {
        if constexpr (YV::rank == 1) {
          return Kokkos::subview(y, span);
        } else {
          return Kokkos::subview(y, span, Kokkos::ALL);
        }
      }();
      SpmvStats st;
      libra::impl::spmv_csc(exec_, part_.offsets, part_.idx, part_.values, part_.lines(),
                            xc, 0, window, span_[0], alpha, S(0), options_.local, st);
      times_.path = st.path;
      return;
    }
    if (part_.nnz() == 0 || alpha == S(0)) {
      Kokkos::deep_copy(exec_, y, S(0));
      times_.path = SpmvPath::scale_only;
    } else if (options_.format == PartFormat::coo) {
      Kokkos::deep_copy(exec_, y, S(0));
      bool plain;
      libra::impl::spmv_coo_add(exec_, part_.idx, part_.idx2, part_.values, xc, y,
                                part_.start, alpha, options_.local.tuning, times_.path,
                                plain);
    } else {
      SpmvStats st;
      libra::impl::spmv_csr(exec_, part_.offsets, part_.idx, part_.values, part_.lines(),
                            xc, y, alpha, S(0), S(0), 0, options_.local.tuning,
                            times_.path, &kept_, nullptr, &st);
      times_.row_sums = st.row_sums;
    }
  }

  // Each rank computes its rows piece by piece and sends each piece as soon as
  // it is computed (NCCL: on the side stream, after an event; MPI: after a
  // fence, without waiting); the root has posted every receive first and
  // computes its own rows meanwhile. The rows land in y itself where beta is 0
  // and y's rows are contiguous (then only the rows two parts share are added
  // afterwards), else in `gathered_`, merged into y as the whole gather does.
  template <class YView>
  void apply_in_pieces(S alpha, S beta, const YView& y, bool timing,
                       const Kokkos::Timer& timer) {
    const bool root = comm_.is_root();
    const bool nccl = setup_.transport == Transport::nccl;
    bool into_y = false;
    if (root) {
      const std::size_t K = static_cast<std::size_t>(K_);
      into_y = beta == S(0) && !part_.flag && setup_.rows > 0 && y.stride(0) == K &&
               (YView::rank == 1 || y.stride(1) == 1);
      if (!into_y && gathered_.extent(0) == 0 && gathered_rows_ > 0) {
        gathered_ = Block(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                             std::string("libra::dist::gathered")),
                          static_cast<std::size_t>(gathered_rows_), K);
      }
    }
    times_.rows_into_y = into_y;
    Kokkos::Profiling::pushRegion("libra::dist::spmv::compute");
    const bool peer = peer_ != nullptr;
    // NCCL calls on the side stream stay in order after those on exec_ (set_x).
    if (nccl && !peer) side_.wait_for(exec_);
    if (root && !peer) receive_pieces(into_y ? y.data() : nullptr);
    times_.path = SpmvPath::none;
    times_.row_sums = false;
    for (int c = 0; c < pieces_.count && K_ > 0; ++c) {
      if (pieces_.lines(c) == 0) continue;
      const auto k = static_cast<std::size_t>(c);
      const std::int64_t first =
          root ? (into_y ? part_.start : table_host_(part_.index, 0)) : 0;
      const auto rows =
          Kokkos::make_pair(static_cast<std::size_t>(first + pieces_.line[k]),
                            static_cast<std::size_t>(first + pieces_.line[k + 1]));
      if (into_y) {
        compute_rows(c, alpha, y, rows);
      } else {
        compute_rows(c, alpha, root ? gathered_ : ybuf_, rows);
      }
      if (!root && peer) {
        peer_->ready(c, stream());
      } else if (!root) {
        send_piece(c, Kokkos::subview(ybuf_, rows, Kokkos::ALL));
      }
    }
    // The root's own rows are queued: it queues each other rank's copies as
    // that rank says their piece is computed.
    if (root && peer) peer_->gather(peer_moves(into_y ? y.data() : nullptr));
    Kokkos::Profiling::popRegion();
    double t[2] = {0, 0};  // this rank's compute, and minus it
    if (timing) {
      exec_.fence();
      t[0] = timer.seconds();
      t[1] = -t[0];
    }
    Kokkos::Profiling::pushRegion("libra::dist::spmv::merge");
    if (peer) {
      if (root) peer_->join(stream());
    } else if (nccl) {
      side_.join(exec_);
    } else {
      impl::wait_all(requests_);
    }
    if (into_y) {
      libra::impl::add_shared_rows(exec_, libra::impl::MergeTable<Exec>(table_), shared_,
                                   y);
    } else if (root && setup_.rows > 0 && K_ > 0) {
      libra::impl::merge_row_parts(exec_, libra::impl::MergeTable<Exec>(table_),
                                   gathered_, y, beta);
    }
    Kokkos::Profiling::popRegion();
    exec_.fence();
    times_.total_seconds = timer.seconds();
    if (peer) {  // the root's copies are done: the other ranks may write again
      if (root) {
        peer_->release();
      } else {
        peer_->finish();
      }
    }
    if (timing) {
      gather_compute(t[0]);
      impl::max_over_ranks(comm_, t, 2);
      times_.compute_seconds = t[0];
      times_.wait_seconds = t[0] + t[1];  // the slowest minus the fastest
      times_.merge_seconds = std::max(0.0, times_.total_seconds - t[0]);
    }
  }

  // Piece c's rows into rows `rows` of `to` (x_ and `to` as vectors where K is 1).
  template <class To>
  void compute_rows(int c, S alpha, const To& to,
                    const Kokkos::pair<std::size_t, std::size_t>& rows) {
    compute_rows_of(pieces_, plans_, c, alpha, S(0), to, rows);
  }

  // The same for a cut of the part's lines `p` with its plans; to = beta * to +
  // alpha * (the piece's product).
  template <class To>
  void compute_rows_of(const PieceCut& p, const Plans& plans, int c, S alpha, S beta,
                       const To& to, const Kokkos::pair<std::size_t, std::size_t>& rows) {
    if constexpr (To::rank == 1) {
      compute_piece(p, plans, c, alpha, beta, Kokkos::subview(x_, Kokkos::ALL, 0),
                    Kokkos::subview(to, rows));
    } else if (K_ == 1) {
      compute_piece(p, plans, c, alpha, beta, Kokkos::subview(x_, Kokkos::ALL, 0),
                    Kokkos::subview(to, rows, 0));
    } else {
      compute_piece(p, plans, c, alpha, beta, x_, Kokkos::subview(to, rows, Kokkos::ALL));
    }
  }

  // Piece c's own offsets (from 0) and its nonzeros' range in the part's arrays.
  static auto piece_offsets(const PieceCut& p, int c) {
    const auto k = static_cast<std::size_t>(c);
    return Kokkos::subview(
        p.offsets, Kokkos::make_pair(static_cast<std::size_t>(p.line[k] + c),
                                     static_cast<std::size_t>(p.line[k + 1] + c + 1)));
  }
  static Kokkos::pair<std::size_t, std::size_t> piece_nonzeros(const PieceCut& p, int c) {
    const auto k = static_cast<std::size_t>(c);
    return {static_cast<std::size_t>(p.nz[k]), static_cast<std::size_t>(p.nz[k + 1])};
  }

  // Every piece's plan (libra::spmv_plan): its tiles' coordinates found once, so
  // that a product with one vector runs the tiles alone, or the rows kernel.
  Plans plan_tiles_of(const PieceCut& p) const {
    Plans plans;
    for (int c = 0; c < p.count; ++c) {
      const auto nz = piece_nonzeros(p, c);
      plans.push_back(libra::impl::spmv_plan_rows<Exec, S>(
          exec_, piece_offsets(p, c), Kokkos::subview(part_.idx, nz),
          Kokkos::subview(part_.values, nz), p.lines(c), options_.local));
    }
    return plans;
  }
  void plan_tiles() {
    plans_ = plan_tiles_of(pieces_);
  }

  template <class XV, class YV>
  void compute_piece(const PieceCut& p, const Plans& plans, int c, S alpha, S beta,
                     const XV& x, const YV& y) {
    if (alpha == S(0) || part_.nnz() == 0) {
      impl::scale_rows(exec_, y, beta);
      times_.path = SpmvPath::scale_only;
      return;
    }
    const auto nz = piece_nonzeros(p, c);
    const libra::impl::spmv_const_t<XV> xc = x;
    SpmvStats st;
    libra::impl::spmv_csr(exec_, piece_offsets(p, c), Kokkos::subview(part_.idx, nz),
                          Kokkos::subview(part_.values, nz), p.lines(c), xc, y, alpha,
                          beta, beta, 0, options_.local.tuning, times_.path, &kept_,
                          &plans[static_cast<std::size_t>(c)].tiles, &st);
    times_.row_sums = st.row_sums;
  }

  // The first piece with rows holds the part's first row; where the part shares
  // it with the part before, that row goes alone, first, so that the root can
  // add it rather than write it.
  template <class V>
  void send_piece(int c, const V& rows) {
    const std::size_t row_bytes = static_cast<std::size_t>(K_) * sizeof(S);
    const std::size_t bytes = rows.span() * sizeof(S);
    const S* data = rows.data();
    const bool nccl = setup_.transport == Transport::nccl;
    if (nccl) {
      side_.wait_for(exec_);
    } else {
      exec_.fence();
    }
    const auto send = [&](const S* p, std::size_t n, int tag) {
      if (nccl) {
        nccl_->send(p, n, 0, side_.stream());
      } else {
        impl::isend_bytes(comm_, p, n, 0, tag, requests_);
      }
    };
    if (part_.flag && pieces_.line[static_cast<std::size_t>(c)] == 0) {
      send(data, row_bytes, tag_shared_row);
      if (bytes > row_bytes) send(data + K_, bytes - row_bytes, tag_piece + c);
    } else {
      send(data, bytes, tag_piece + c);
    }
  }

  // Root: every other rank's pieces, into y from its row `y_rows` on (shared
  // first rows into `shared_`) or, where y_rows is null, into `gathered_`.
  void receive_pieces(S* y_rows) {
    const int P = comm_.size();
    const bool nccl = setup_.transport == Transport::nccl;
    const auto recv = [&](S* at, std::int64_t n, int r, int tag) {
      if (n <= 0) return;
      const std::size_t bytes = static_cast<std::size_t>(n * K_) * sizeof(S);
      if (nccl) {
        nccl_->recv(at, bytes, r, side_.stream());
      } else {
        impl::irecv_bytes(comm_, at, bytes, r, tag, requests_);
      }
    };
    // Row r of part i's lines, where it lands.
    const auto at = [&](int i, std::int64_t r) {
      return landing(i, r, y_rows);
    };
    // Shared first rows first, in a group of their own: NCCL takes one move per
    // peer in a group.
    if (nccl) nccl_->group_start();
    for (int i = 0; i < P; ++i) {
      const int r = setup_.rank_of_part[static_cast<std::size_t>(i)];
      if (r == 0 || table_host_(i, 2) == 0 || table_host_(i, 3) == 0) continue;
      recv(y_rows ? shared_.data() + i * K_ : at(i, 0), 1, r, tag_shared_row);
    }
    if (nccl) nccl_->group_end();
    for (int c = 0; c < pieces_.count; ++c) {
      const auto k = static_cast<std::size_t>(c);
      if (nccl) nccl_->group_start();
      for (int i = 0; i < P; ++i) {
        const int r = setup_.rank_of_part[static_cast<std::size_t>(i)];
        if (r == 0) continue;
        const auto& lines = piece_lines_[static_cast<std::size_t>(r)];
        std::int64_t from = lines[k];
        if (from == 0 && table_host_(i, 2) != 0) from = 1;  // the shared row went alone
        recv(at(i, from), lines[k + 1] - from, r, tag_piece + c);
      }
      if (nccl) nccl_->group_end();
    }
  }

  // With options.timing, where the merge follows a barrier (apply without
  // pieces, apply_local): t[0] this rank's compute, t[1] when the barrier let
  // it go.
  void compute_done(const Kokkos::Timer& timer, double t[2]) {
    exec_.fence();
    t[0] = timer.seconds();
    comm_.barrier();
    t[1] = timer.seconds();
  }

  // The phases from compute_done's marks and total_seconds (collective): the
  // slowest compute, the fastest rank's idle time, what followed the barrier.
  void record_phases(const double t[2]) {
    gather_compute(t[0]);
    times_.merge_seconds = times_.total_seconds - t[1];
    double slowest[2] = {t[0], t[1] - t[0]};
    impl::max_over_ranks(comm_, slowest, 2);
    times_.compute_seconds = slowest[0];
    times_.wait_seconds = slowest[1];  // the fastest rank's idle time
  }

  // Root: every rank's compute seconds, by rank (collective).
  void gather_compute(double mine) {
    auto& all = times_.compute_by_rank;
    all.assign(comm_.is_root() ? static_cast<std::size_t>(comm_.size()) : 0, 0.0);
    MPI_Gather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, comm_.get());
  }

  // Root: where row r of part i lands, in y from its row `y_rows` on or, where
  // y_rows is null, in `gathered_`.
  S* landing(int i, std::int64_t r, S* y_rows) const {
    return y_rows ? y_rows + (table_host_(i, 1) + r) * K_
                  : gathered_.data() + (table_host_(i, 0) + r) * K_;
  }

  // Root, copy engines: every other rank's pieces as copies from its buffer to
  // where receive_pieces puts them; moves[r][c] for rank r's piece c.
  std::vector<std::vector<std::vector<impl::PeerMove>>> peer_moves(S* y_rows) const {
    const int P = comm_.size();
    std::vector<std::vector<std::vector<impl::PeerMove>>> moves(
        static_cast<std::size_t>(P));
    if (K_ == 0) return moves;
    const std::size_t row = static_cast<std::size_t>(K_) * sizeof(S);
    const auto at = [&](int i, std::int64_t r) {
      return landing(i, r, y_rows);
    };
    for (int i = 0; i < P; ++i) {
      const int r = setup_.rank_of_part[static_cast<std::size_t>(i)];
      if (r == 0) continue;
      const auto& lines = piece_lines_[static_cast<std::size_t>(r)];
      auto& mine = moves[static_cast<std::size_t>(r)];
      mine.resize(static_cast<std::size_t>(pieces_.count));
      for (int c = 0; c < pieces_.count; ++c) {
        const auto k = static_cast<std::size_t>(c);
        std::int64_t from = lines[k];
        const std::int64_t to = lines[k + 1];
        if (to == from) continue;                   // no rows: the rank sends no notice
        if (from == 0 && table_host_(i, 2) != 0) {  // the shared first row, apart
          mine[k].push_back({y_rows ? shared_.data() + i * K_ : at(i, 0), 0, row});
          from = 1;
        }
        if (to > from) {
          mine[k].push_back({at(i, from), static_cast<std::size_t>(from) * row,
                             static_cast<std::size_t>(to - from) * row});
        }
      }
    }
    return moves;
  }

  template <class YView>
  void merge(S beta, const YView& y) {
    Kokkos::Profiling::pushRegion("libra::dist::spmv::merge");
    const bool root = comm_.is_root();
    if (setup_.rows > 0 && K_ > 0) {
      if (setup_.merge_on_host) {
        merge_on_host();
        if (root) libra::impl::merge_column_parts(exec_, 1, merged_, y, beta);
      } else if (rows_based()) {
        gather(gathered_);
        if (root) {
          libra::impl::merge_row_parts(exec_, libra::impl::MergeTable<Exec>(table_),
                                       gathered_, y, beta);
        }
      } else {
        ex_->reduce_sum(ybuf_, gathered_, 0);
        if (root) libra::impl::merge_column_parts(exec_, 1, gathered_, y, beta);
      }
    }
    Kokkos::Profiling::popRegion();
  }

  // Every part's rows into `to` at its table row, on the root.
  void gather(const Block& to) {
    const int P = comm_.size();
    ex_->group_start();
    if (comm_.is_root()) {
      for (int i = 0; i < P; ++i) {
        const int r = setup_.rank_of_part[static_cast<std::size_t>(i)];
        const auto rows = Kokkos::make_pair(
            static_cast<std::size_t>(table_host_(i, 0)),
            static_cast<std::size_t>(table_host_(i, 0) + table_host_(i, 3)));
        const auto dest = Kokkos::subview(to, rows, Kokkos::ALL);
        if (r == 0) {
          Kokkos::deep_copy(exec_, dest, ybuf_);
        } else {
          ex_->recv(dest, r, tag_y);
        }
      }
    } else {
      ex_->send(ybuf_, 0, tag_y);
    }
    ex_->group_end();
  }

  // baseline and p: the partial results come to the root's host memory and are
  // merged there (rows: segments and shared rows; columns: MPI sums them); the
  // merged y goes to the device once, where beta is applied.
  void merge_on_host() {
    const bool root = comm_.is_root();
    const auto bytes = ybuf_.span() * sizeof(S);
    const HostBlock& mine = ybuf_host_;
    Kokkos::deep_copy(exec_, mine, ybuf_);
    exec_.fence();
    if (rows_based()) {
      if (root) {
        for (int i = 0; i < comm_.size(); ++i) {
          const int r = setup_.rank_of_part[static_cast<std::size_t>(i)];
          S* dest = gathered_host_.data() + table_host_(i, 0) * K_;
          if (r == 0) {
            std::copy(mine.data(), mine.data() + mine.span(), dest);
          } else {
            impl::recv_bytes(comm_, dest,
                             static_cast<std::size_t>(table_host_(i, 3) * K_) * sizeof(S),
                             r, tag_y);
          }
        }
        libra::impl::merge_row_parts(HostExec(),
                                     libra::impl::MergeTable<HostExec>(table_host_),
                                     gathered_host_, merged_host_, S(0));
        HostExec().fence();
        Kokkos::deep_copy(exec_, merged_, merged_host_);
      } else {
        impl::send_bytes(comm_, mine.data(), bytes, 0, tag_y);
      }
    } else {
      impl::reduce_sum(comm_, mine.data(), root ? gathered_host_.data() : nullptr,
                       mine.span(), impl::mpi_type<S>(), 0);
      if (root) Kokkos::deep_copy(exec_, merged_, gathered_host_);
    }
  }

  const Comm& comm_;
  Exec exec_;
  SpmvOptions options_;
  SpmvSetup setup_;
  SpmvTimes times_;
  std::unique_ptr<impl::Nccl> nccl_;
  std::unique_ptr<impl::Exchange<Exec>> ex_;
  std::unique_ptr<impl::PeerCopy> peer_;  // pieces by copy engines
  Part part_;
  impl::Pieces<Off, memory_space> pieces_;  // where y leaves in pieces
  impl::SideStream<Exec> side_;             // pieces over NCCL
  std::vector<MPI_Request> requests_;       // pieces over MPI
  // The CSR kernels' temporaries, kept: a product neither allocates nor fences.
  libra::impl::CsrKept<S, memory_space> kept_;
  Plans plans_;                                         // by piece
  std::vector<std::vector<std::int64_t>> piece_lines_;  // root: by rank
  // apply_local: the rows this rank holds, every part's rank, this part's
  // lines of A x, and the shared rows received.
  impl::OwnedRows owned_;
  std::vector<int> rank_of_part_;
  // Column parts: the rows the part's nonzeros touch, [lo, hi); the slices of
  // the partial y that move under apply_local; the received ones' places.
  std::int64_t span_[2] = {0, 0};
  impl::ColumnRows col_rows_;
  std::int64_t block_rows_ = 0;  // a reduce-scatter's block (ColumnMoves), else 0
  Block ybuf_padded_;            // ybuf_, padded to P blocks for the reduce-scatter
  Kokkos::View<std::int64_t* [3], Kokkos::LayoutRight, memory_space> slices_;
  Block local_, arrived_;
  // apply_local into y: the part's lines cut at its shared first line, their
  // plans, and that line's partial sums.
  PieceCut local_cut_;
  Plans local_plans_;
  Block first_row_;
  bool shared_rows_beside_ = false;  // the last apply_local moved them on side_
  impl::Cuts cuts_;                  // root
  std::int64_t K_ = 0;
  Block x_;     // pCSR, pCOO: all of x; pCSC: the rows of x of the part's columns
  Block ybuf_;  // pCSR, pCOO: the part's rows; pCSC: a full-length partial y
  HostBlock ybuf_host_;
  // Root only:
  Block x_full_;  // pCSC: x, whose row slices go to the ranks
  Kokkos::View<std::int64_t* [4], Kokkos::LayoutRight, Kokkos::HostSpace> table_host_;
  Kokkos::View<std::int64_t* [4], Kokkos::LayoutRight, memory_space> table_;
  std::int64_t gathered_rows_ = 0;
  Block gathered_;           // device merge: the parts' rows, or the sum (pCSC)
  Block shared_;             // pieces into y: each part's shared first row
  HostBlock gathered_host_;  // host merge: the parts' rows, or the sum (pCSC)
  HostBlock merged_host_;    // host merge of rows: y without beta
  Block merged_;             // host merge: the merged y on the device
};

}  // namespace libra::dist

#pragma once
// SpMV over the P parts of a partition, each into its own partial result, then
// merged as MSREP's multi-GPU code does (Algorithms 3, 5, 7 and Section 4.3), in
// one process: the shape the MPI / NCCL version keeps, with one part per rank.
//
//   auto parts = libra::partition(exec, A, P);          // pCSR, pCSC or pCOO
//   libra::spmv_partitioned(exec, alpha, parts, x, beta, y);
//
// pCSR and pCOO parts write their rows (a buffer of sum(rows covered) x K);
// pCSC parts write full-length vectors (P x rows x K), x read from their columns.
// The merge (impl/merge.hpp) runs on the device. The parts must be the whole
// output of one partition() call, in order.
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "libra/core/error.hpp"
#include "libra/format/partial.hpp"
#include "libra/spmv/impl/merge.hpp"
#include "libra/spmv/spmv.hpp"

namespace libra {

struct PartitionedSpmvStats {
  int parts = 0;
  std::uint64_t buffer_entries = 0;  // partial results held before the merge
  // Measured only when stats are asked for (each phase is then fenced).
  double compute_seconds = 0;
  double merge_seconds = 0;
};

namespace impl {

template <class T>
struct is_partial_csc : std::false_type {};
template <class S, class O, class Off, class D>
struct is_partial_csc<PartialCsc<S, O, Off, D>> : std::true_type {};
template <class T>
struct is_partial_coo : std::false_type {};
template <class S, class O, class Off, class D>
struct is_partial_coo<PartialCoo<S, O, Off, D>> : std::true_type {};

template <class Part>
void check_part_set(const std::vector<Part>& parts) {
  if (parts.empty()) throw ArgumentError("spmv_partitioned: no parts");
  const auto& p0 = parts.front();
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& p = parts[i];
    if (p.index != static_cast<int>(i) || p.parts != static_cast<int>(parts.size()) ||
        p.num_rows != p0.num_rows || p.num_cols != p0.num_cols ||
        (i > 0 && p.start_idx != parts[i - 1].end_idx)) {
      throw ArgumentError("spmv_partitioned: part " + std::to_string(i) +
                          " is not part " + std::to_string(i) + " of " +
                          std::to_string(parts.size()) +
                          " of one partition() call, in order");
    }
  }
}

class PhaseTimer {
 public:
  template <class Exec>
  void start(const Exec& exec, bool on) {
    on_ = on;
    if (on_) {
      exec.fence();
      timer_.reset();
    }
  }
  template <class Exec>
  double stop(const Exec& exec) {
    if (!on_) return 0;
    exec.fence();
    return timer_.seconds();
  }

 private:
  bool on_ = false;
  Kokkos::Timer timer_;
};

}  // namespace impl

template <class Exec, class Part, class XView, class YView>
void spmv_partitioned(const Exec& exec,
                      impl::spmv_scalar_t<typename Part::scalar_type> alpha,
                      const std::vector<Part>& parts, const XView& x,
                      impl::spmv_scalar_t<typename Part::scalar_type> beta,
                      const YView& y, const SpmvOptions& options = {},
                      PartitionedSpmvStats* stats = nullptr) {
  static_assert(is_partial<Part>::value,
                "spmv_partitioned takes the parts of a PartialCsr, PartialCsc or "
                "PartialCoo partition");
  using S = typename Part::scalar_type;
  using mem = typename Exec::memory_space;
  impl::check_spmv_types<Exec, Part, XView, YView>();
  impl::check_part_set(parts);
  impl::check_spmv_shapes("the parts' parent", parts[0].num_rows, parts[0].num_cols, x,
                          y);
  Kokkos::Profiling::pushRegion("libra::spmv_partitioned");
  PartitionedSpmvStats st;
  st.parts = static_cast<int>(parts.size());
  const std::int64_t P = st.parts;
  const std::int64_t m = parts[0].num_rows;
  const std::int64_t K = impl::spmv_columns(y);
  const std::int64_t items = options.tuning.segment_items;
  const impl::spmv_const_t<XView> xc = x;
  using Buffer = Kokkos::View<S**, Kokkos::LayoutLeft, mem>;
  impl::PhaseTimer timer;
  if constexpr (impl::is_partial_csc<Part>::value) {
    Buffer buf(Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::spmv::partials"),
               static_cast<std::size_t>(P * m), static_cast<std::size_t>(K));
    st.buffer_entries = static_cast<std::uint64_t>(P * m * K);
    timer.start(exec, stats != nullptr);
    for (std::int64_t i = 0; i < P; ++i) {  // "GPU i": py_i = alpha * A_i * x
      const auto& p = parts[static_cast<std::size_t>(i)];
      impl::spmv_scale_rows(exec, buf, i * m, (i + 1) * m, S(0), S(0));
      if (p.nnz() > 0 && alpha != S(0)) {
        SpmvPath path;
        bool plain;
        impl::spmv_csc_add(exec, p.col_map, p.row_idx, p.values, p.lines(), xc, p.start,
                           buf, i * m, alpha, options.tuning, path, plain);
      }
    }
    st.compute_seconds = timer.stop(exec);
    timer.start(exec, stats != nullptr);
    if (m > 0 && K > 0) impl::merge_column_parts(exec, P, buf, y, beta);
    st.merge_seconds = timer.stop(exec);
  } else {
    Kokkos::View<std::int64_t* [4], Kokkos::LayoutRight, Kokkos::HostSpace> h(
        "libra::spmv::merge_table", static_cast<std::size_t>(P));
    std::int64_t total = 0;
    for (std::int64_t i = 0; i < P; ++i) {
      const auto& p = parts[static_cast<std::size_t>(i)];
      h(i, 0) = total;
      h(i, 1) = p.start;
      h(i, 2) = p.start_flag ? 1 : 0;
      h(i, 3) = p.lines();
      total += p.lines();
    }
    const auto table = Kokkos::create_mirror_view_and_copy(mem(), h);
    Buffer buf(Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::spmv::partials"),
               static_cast<std::size_t>(total), static_cast<std::size_t>(K));
    st.buffer_entries = static_cast<std::uint64_t>(total * K);
    timer.start(exec, stats != nullptr);
    for (std::int64_t i = 0; i < P; ++i) {  // "GPU i": its rows of alpha * A_i * x
      const auto& p = parts[static_cast<std::size_t>(i)];
      const std::int64_t off = h(i, 0);
      if (p.nnz() == 0 || alpha == S(0)) {
        impl::spmv_scale_rows(exec, buf, off, off + p.lines(), S(0), S(0));
      } else if constexpr (impl::is_partial_coo<Part>::value) {
        impl::spmv_scale_rows(exec, buf, off, off + p.lines(), S(0), S(0));
        SpmvPath path;
        bool plain;
        impl::spmv_coo_add(exec, p.row_idx, p.col_idx, p.values, xc, buf,
                           static_cast<std::int64_t>(p.start) - off, alpha,
                           options.tuning, path, plain);
      } else {
        impl::spmv_csr_merge_path(
            exec,
            impl::csr_spmv_args(p.row_map, p.col_idx, p.values, p.lines(), xc, buf, alpha,
                                S(0), S(0), off),
            items);
      }
    }
    st.compute_seconds = timer.stop(exec);
    timer.start(exec, stats != nullptr);
    if (total > 0 && K > 0) {
      impl::merge_row_parts(exec, impl::MergeTable<Exec>(table), buf, y, beta);
    }
    st.merge_seconds = timer.stop(exec);
  }
  Kokkos::Profiling::popRegion();
  if (stats) *stats = st;
}

}  // namespace libra

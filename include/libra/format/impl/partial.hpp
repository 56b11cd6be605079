#pragma once
// Partitioning by equal nonzeros (MSREP, Algorithms 2, 4 and 6): the part
// boundaries, the rows (columns) each part covers, and the local offsets of
// pCSR / pCSC. Both methods compute the same plan: `device` runs the searches
// and the local offsets as kernels and brings only the P + 1 boundaries to the
// host (p*-opt); `host` copies the parent's offsets to the host and loops there.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "libra/algorithms/merge_path.hpp"
#include "libra/core/error.hpp"
#include "libra/format/impl/compressed.hpp"

namespace libra::impl {

// The first nonzero of part i of P: floor(i * nnz / P), without forming i * nnz
// (which could overflow for large matrices and many parts).
KOKKOS_INLINE_FUNCTION std::int64_t part_bound(std::int64_t nnz, std::int64_t i,
                                               std::int64_t P) {
  return i * (nnz / P) + (i * (nnz % P)) / P;
}

// Where part i starts over a compressed matrix of n lines: the line holding its
// first nonzero (line n past the end; part 0 starts at line 0 so that leading
// empty lines are covered), and whether that line began in an earlier part.
template <class OffsetView>
KOKKOS_INLINE_FUNCTION void compressed_start(const OffsetView& offsets, std::int64_t n,
                                             std::int64_t nnz, std::int64_t b,
                                             std::int64_t i, std::int64_t& start,
                                             std::int64_t& flag) {
  if (i == 0 || b >= nnz) {
    start = i == 0 ? 0 : n;
    flag = 0;
  } else {
    start = owner_of(offsets, n, static_cast<std::uint64_t>(b));
    flag = b > static_cast<std::int64_t>(offsets(start)) ? 1 : 0;
  }
}

// The same for a Coo sorted by row.
template <class IndexView>
KOKKOS_INLINE_FUNCTION void coo_start(const IndexView& row_idx, std::int64_t m,
                                      std::int64_t nnz, std::int64_t b, std::int64_t i,
                                      std::int64_t& start, std::int64_t& flag) {
  if (i == 0 || b >= nnz) {
    start = i == 0 ? 0 : m;
    flag = 0;
  } else {
    start = static_cast<std::int64_t>(row_idx(b));
    flag = b > 0 && row_idx(b - 1) == row_idx(b) ? 1 : 0;
  }
}

// Part i holds nonzeros [bound[i], bound[i+1]) and covers lines
// [start[i], start[i+1] + flag[i+1]); its local offsets (pCSR, pCSC) are
// local(local_begin[i] .. local_begin[i+1]).
template <class LocalView>
struct PartitionPlan {
  int parts = 0;
  std::vector<std::int64_t> bound, start, flag, local_begin;
  LocalView local;
};

template <class Part, class Plan>
void fill_range(Part& p, const Plan& plan, int i) {
  using Off = typename Part::offset_type;
  using O = typename Part::ordinal_type;
  const std::size_t k = static_cast<std::size_t>(i);
  p.index = i;
  p.parts = plan.parts;
  p.start_idx = static_cast<Off>(plan.bound[k]);
  p.end_idx = static_cast<Off>(plan.bound[k + 1]);
  p.start = static_cast<O>(plan.start[k]);
  p.end = static_cast<O>(plan.start[k + 1] + plan.flag[k + 1]);
  p.start_flag = plan.flag[k] != 0;
}

template <class Plan>
auto local_offsets(const Plan& plan, int i) {
  const std::size_t k = static_cast<std::size_t>(i);
  return Kokkos::subview(
      plan.local, Kokkos::make_pair(static_cast<std::size_t>(plan.local_begin[k]),
                                    static_cast<std::size_t>(plan.local_begin[k + 1])));
}

inline void check_parts(int parts) {
  if (parts < 1) {
    throw ArgumentError("partition: the number of parts must be >= 1, got " +
                        std::to_string(parts));
  }
}

// bound, start and flag for parts 0..P (P is the end sentinel), on the device;
// only these 3 (P + 1) numbers are copied back.
template <class Exec, class View, class StartFn>
void device_bounds(const Exec& exec, const View& v, std::int64_t n, std::int64_t nnz,
                   int parts, std::vector<std::int64_t>& bound,
                   std::vector<std::int64_t>& start, std::vector<std::int64_t>& flag,
                   const StartFn& fn) {
  const std::int64_t P = parts;
  Kokkos::View<std::int64_t* [3], Kokkos::LayoutRight, typename Exec::memory_space> d(
      "libra::partition::bounds", static_cast<std::size_t>(P + 1));
  Kokkos::parallel_for(
      "libra::partition::bounds", Kokkos::RangePolicy<Exec>(exec, 0, P + 1),
      KOKKOS_LAMBDA(const std::int64_t i) {
        std::int64_t b = 0, s = 0, f = 0;
        fn.apply(v, n, nnz, i, P, b, s, f);
        d(i, 0) = b;
        d(i, 1) = s;
        d(i, 2) = f;
      });
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  for (std::int64_t i = 0; i <= P; ++i) {
    bound.push_back(h(i, 0));
    start.push_back(h(i, 1));
    flag.push_back(h(i, 2));
  }
}

// Part i's first nonzero b, first line s and start flag f, for the three ways
// of cutting: equal nonzeros over a compressed matrix or a Coo sorted by row,
// and equal line counts (MSREP's baseline: whole rows, never split).
struct CompressedStart {
  template <class V>
  KOKKOS_INLINE_FUNCTION static void apply(const V& v, std::int64_t n, std::int64_t nnz,
                                           std::int64_t i, std::int64_t P,
                                           std::int64_t& b, std::int64_t& s,
                                           std::int64_t& f) {
    b = part_bound(nnz, i, P);
    compressed_start(v, n, nnz, b, i, s, f);
  }
};
struct CooStart {
  template <class V>
  KOKKOS_INLINE_FUNCTION static void apply(const V& v, std::int64_t n, std::int64_t nnz,
                                           std::int64_t i, std::int64_t P,
                                           std::int64_t& b, std::int64_t& s,
                                           std::int64_t& f) {
    b = part_bound(nnz, i, P);
    coo_start(v, n, nnz, b, i, s, f);
  }
};
// Equal merge-path items (lines plus nonzeros): part i's first nonzero is where
// the i/P-th diagonal of the merge of the line ends with the nonzeros crosses
// them, so that a part of many short lines (more offsets read, more of y
// written and moved) gets fewer nonzeros; its first line and flag follow from
// that nonzero as for equal nonzeros.
struct MergePathStart {
  template <class V>
  KOKKOS_INLINE_FUNCTION static void apply(const V& v, std::int64_t n, std::int64_t nnz,
                                           std::int64_t i, std::int64_t P,
                                           std::int64_t& b, std::int64_t& s,
                                           std::int64_t& f) {
    std::int64_t ended = 0;
    merge_path_search(v, n, nnz, part_bound(n + nnz, i, P), ended, b);
    compressed_start(v, n, nnz, b, i, s, f);
  }
};
// Another way's cut (Inner), moved to the nearer end of the line it falls
// inside where that moves it by at most `slack` nonzeros: the part then begins
// with a whole line that no other part shares, so that no partial sum of it
// moves between ranks, for at most `slack` nonzeros more or fewer. Cuts inside
// longer stretches of a line (a hub row) stay where Inner put them.
template <class Inner>
struct WholeLineStart {
  std::int64_t slack = 0;
  template <class V>
  KOKKOS_INLINE_FUNCTION void apply(const V& v, std::int64_t n, std::int64_t nnz,
                                    std::int64_t i, std::int64_t P, std::int64_t& b,
                                    std::int64_t& s, std::int64_t& f) const {
    Inner::apply(v, n, nnz, i, P, b, s, f);
    if (f == 0 || slack <= 0) return;
    const std::int64_t lo = static_cast<std::int64_t>(v(s));
    const std::int64_t hi = static_cast<std::int64_t>(v(s + 1));
    const std::int64_t to = b - lo <= hi - b ? lo : hi;
    if ((to > b ? to - b : b - to) > slack) return;
    b = to;
    compressed_start(v, n, nnz, b, i, s, f);
  }
};
struct LineBlockStart {
  template <class V>
  KOKKOS_INLINE_FUNCTION static void apply(const V& v, std::int64_t n, std::int64_t,
                                           std::int64_t i, std::int64_t P,
                                           std::int64_t& b, std::int64_t& s,
                                           std::int64_t& f) {
    s = part_bound(n, i, P);
    b = static_cast<std::int64_t>(v(s));
    f = 0;
  }
};

template <class Plan>
std::int64_t plan_local_begin(Plan& plan) {
  plan.local_begin.assign(1, 0);
  for (int i = 0; i < plan.parts; ++i) {
    const std::size_t k = static_cast<std::size_t>(i);
    const std::int64_t lines = plan.start[k + 1] + plan.flag[k + 1] - plan.start[k];
    plan.local_begin.push_back(plan.local_begin.back() + lines + 1);
  }
  return plan.local_begin.back();
}

// local(e) for entry j of part i: the parent's offset of line start + j clamped to
// the part's nonzeros, made relative to its first one.
template <class OffsetView, class LocalView>
KOKKOS_INLINE_FUNCTION typename LocalView::value_type local_offset(
    const OffsetView& offsets, std::int64_t line, std::int64_t b0, std::int64_t b1) {
  std::int64_t o = static_cast<std::int64_t>(offsets(line));
  o = o < b0 ? b0 : (o > b1 ? b1 : o);
  return static_cast<typename LocalView::value_type>(o - b0);
}

// The plan of a compressed matrix (CSR over rows, CSC over columns).
template <class OffsetView>
using CompressedLocal =
    Kokkos::View<typename OffsetView::non_const_value_type*, Kokkos::LayoutLeft,
                 typename OffsetView::device_type>;

// (The return types are spelled out: nvcc refuses device lambdas in functions
// whose return type is deduced.)
template <class StartFn = CompressedStart, class Exec, class OffsetView>
PartitionPlan<CompressedLocal<OffsetView>> plan_compressed(
    const Exec& exec, const OffsetView& offsets, std::int64_t n, std::int64_t nnz,
    int parts, bool on_device, const StartFn& fn = StartFn{}) {
  check_parts(parts);
  using LocalView = CompressedLocal<OffsetView>;
  PartitionPlan<LocalView> plan;
  plan.parts = parts;
  const std::int64_t P = parts;
  if (on_device) {
    device_bounds(exec, offsets, n, nnz, parts, plan.bound, plan.start, plan.flag, fn);
    const std::int64_t total = plan_local_begin(plan);
    plan.local = LocalView(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                              "libra::partition::local_offsets"),
                           static_cast<std::size_t>(total));
    // Per part: its first local entry, first line and nonzero range, on the device.
    Kokkos::View<std::int64_t* [4], Kokkos::LayoutRight, Kokkos::HostSpace> h(
        "libra::partition::table", static_cast<std::size_t>(P + 1));
    for (std::int64_t i = 0; i <= P; ++i) {
      const std::size_t k = static_cast<std::size_t>(i);
      h(i, 0) = plan.local_begin[k];
      h(i, 1) = plan.start[k];
      h(i, 2) = plan.bound[k];
      h(i, 3) = i < P ? plan.bound[k + 1] : plan.bound[k];
    }
    const auto table =
        Kokkos::create_mirror_view_and_copy(typename Exec::memory_space(), h);
    const auto local = plan.local;
    Kokkos::parallel_for(
        "libra::partition::local_offsets", Kokkos::RangePolicy<Exec>(exec, 0, total),
        KOKKOS_LAMBDA(const std::int64_t e) {
          std::int64_t lo = 0, hi = P;  // the part i with table(i, 0) <= e
          while (hi - lo > 1) {
            const std::int64_t mid = lo + (hi - lo) / 2;
            if (table(mid, 0) <= e) {
              lo = mid;
            } else {
              hi = mid;
            }
          }
          const std::int64_t line = table(lo, 1) + (e - table(lo, 0));
          local(e) = local_offset<OffsetView, LocalView>(offsets, line, table(lo, 2),
                                                         table(lo, 3));
        });
  } else {
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), offsets);
    for (std::int64_t i = 0; i <= P; ++i) {
      std::int64_t b = 0, s = 0, f = 0;
      fn.apply(h, n, nnz, i, P, b, s, f);
      plan.bound.push_back(b);
      plan.start.push_back(s);
      plan.flag.push_back(f);
    }
    const std::int64_t total = plan_local_begin(plan);
    plan.local = LocalView(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                              "libra::partition::local_offsets"),
                           static_cast<std::size_t>(total));
    const auto hl = Kokkos::create_mirror_view(plan.local);
    for (int i = 0; i < parts; ++i) {
      const std::size_t k = static_cast<std::size_t>(i);
      for (std::int64_t e = plan.local_begin[k]; e < plan.local_begin[k + 1]; ++e) {
        hl(e) = local_offset<decltype(h), LocalView>(
            h, plan.start[k] + (e - plan.local_begin[k]), plan.bound[k],
            plan.bound[k + 1]);
      }
    }
    Kokkos::deep_copy(exec, plan.local, hl);
    exec.fence();  // hl dies at return
  }
  return plan;
}

// The plan of a Coo sorted by row: boundaries only (pCOO keeps global indices).
template <class Exec, class IndexView>
PartitionPlan<Kokkos::View<int*, typename IndexView::device_type>> plan_coo(
    const Exec& exec, const IndexView& row_idx, std::int64_t m, int parts,
    bool on_device) {
  check_parts(parts);
  using LocalView = Kokkos::View<int*, typename IndexView::device_type>;
  PartitionPlan<LocalView> plan;
  plan.parts = parts;
  const std::int64_t nnz = static_cast<std::int64_t>(row_idx.extent(0));
  std::int64_t descents = 0;
  if (on_device) {
    Kokkos::parallel_reduce(
        "libra::partition::coo_sorted",
        Kokkos::RangePolicy<Exec>(exec, 1, nnz > 1 ? nnz : 1),
        KOKKOS_LAMBDA(const std::int64_t p, std::int64_t& n) {
          if (row_idx(p) < row_idx(p - 1)) ++n;
        },
        descents);
    if (descents == 0) {
      device_bounds(exec, row_idx, m, nnz, parts, plan.bound, plan.start, plan.flag,
                    CooStart{});
    }
  } else {
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_idx);
    for (std::int64_t p = 1; p < nnz; ++p) descents += h(p) < h(p - 1) ? 1 : 0;
    for (std::int64_t i = 0; i <= parts && descents == 0; ++i) {
      std::int64_t b = 0, s = 0, f = 0;
      CooStart::apply(h, m, nnz, i, parts, b, s, f);
      plan.bound.push_back(b);
      plan.start.push_back(s);
      plan.flag.push_back(f);
    }
  }
  if (descents != 0) {
    throw ArgumentError("partition: a Coo must be sorted by row (" +
                        std::to_string(descents) +
                        " entries precede a smaller row index); sort_and_sum() sorts it");
  }
  return plan;
}

}  // namespace libra::impl

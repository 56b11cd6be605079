#pragma once
// The union of two sparsity patterns with sorted rows: how the compressed chunks
// of a product larger than the memory budget are merged into C's pattern.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/algorithms/scan.hpp"
#include "libra/util/workspace.hpp"

namespace libra::impl {

template <class Ordinal, class Offset, class Mem>
struct Pattern {
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  Kokkos::View<Offset*, Mem> row_map;
  Kokkos::View<Ordinal*, Mem> col;
};

// One thread per row merges the two sorted rows; `Write` false only counts.
template <class Exec, class Ordinal, class Offset, bool Write>
struct MergeRows {
  using mem = typename Exec::memory_space;
  Kokkos::View<const Offset*, mem> x_map, y_map;
  Kokkos::View<const Ordinal*, mem> x_col, y_col;
  Kokkos::View<Offset*, mem> z_map;  // counts when !Write, offsets when Write
  Kokkos::View<Ordinal*, mem> z_col;

  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    Offset p = x_map(i), q = y_map(i);
    const Offset pe = x_map(i + 1), qe = y_map(i + 1);
    Offset out = Write ? z_map(i) : 0;
    while (p < pe || q < qe) {
      Ordinal c;
      if (q == qe || (p < pe && x_col(p) < y_col(q))) {
        c = x_col(p++);
      } else if (p == pe || y_col(q) < x_col(p)) {
        c = y_col(q++);
      } else {
        c = x_col(p++);
        ++q;
      }
      if (Write) z_col(out) = c;
      ++out;
    }
    if (!Write) z_map(i) = out;
  }
};

template <class Exec, class Ordinal, class Offset, class Mem>
Pattern<Ordinal, Offset, Mem> pattern_union(const Exec& exec, std::int64_t num_rows,
                                            const Pattern<Ordinal, Offset, Mem>& x,
                                            const Pattern<Ordinal, Offset, Mem>& y,
                                            const Temps<Mem>& temps = {}) {
  using Policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  const TempsFrame<Mem> frame(temps);
  Kokkos::View<Offset*, Mem> counts = temps.template view<Offset>(
      "libra::spgemm::merge::counts", static_cast<std::size_t>(num_rows));
  Kokkos::parallel_for("libra::spgemm::merge::count", Policy(exec, 0, num_rows),
                       MergeRows<Exec, Ordinal, Offset, false>{
                           x.row_map, y.row_map, x.col, y.col, counts, {}});
  Pattern<Ordinal, Offset, Mem> z;
  z.row_map = Kokkos::View<Offset*, Mem>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::spgemm::merge::row_map"),
      static_cast<std::size_t>(num_rows) + 1);
  const std::uint64_t nnz =
      exclusive_scan(exec, "libra::spgemm::merge::scan", counts, z.row_map, "nnz(C)");
  z.col = Kokkos::View<Ordinal*, Mem>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::spgemm::merge::col"), nnz);
  Kokkos::parallel_for("libra::spgemm::merge::fill", Policy(exec, 0, num_rows),
                       MergeRows<Exec, Ordinal, Offset, true>{x.row_map, y.row_map, x.col,
                                                              y.col, z.row_map, z.col});
  return z;
}

}  // namespace libra::impl

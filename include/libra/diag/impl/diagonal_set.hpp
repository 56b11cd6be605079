#pragma once
// Shared by the diagonal products: which diagonals C has (every sum of a
// diagonal of op(A) and one of op(B), plus C's own when beta != 0), dense maps
// from a diagonal's key to its slot, and the budget check made before C is
// allocated.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "libra/core/error.hpp"
#include "libra/diag/options.hpp"
#include "libra/format/impl/diagonal.hpp"
#include "libra/util/memory_budget.hpp"
#include "libra/util/result_memory.hpp"
#include "libra/util/workspace.hpp"

namespace libra::impl {

// key -> slot of the diagonals `diag` lists (-1 for the others), over `keys`,
// written into `map` (keys.count() entries).
template <class Exec, class IndexView, class MapView, class Keys>
MapView diagonal_map(const Exec& exec, const IndexView& diag, const Keys& keys,
                     const MapView& map) {
  using O = typename MapView::non_const_value_type;
  Kokkos::deep_copy(exec, map, O(-1));
  Kokkos::parallel_for(
      "libra::diag::map",
      Kokkos::RangePolicy<Exec>(exec, 0, static_cast<std::int64_t>(diag.extent(0))),
      KOKKOS_LAMBDA(const std::int64_t s) {
        map(keys.key(diag(s))) = static_cast<O>(s);
      });
  return map;
}

// op(X)'s diagonal index for the stored index d: HM negates it; CDM maps the
// compact index k to (n - k) mod n (n = 0 for HM).
KOKKOS_INLINE_FUNCTION std::int64_t op_diagonal(std::int64_t d, bool transpose,
                                                std::int64_t n_compact) {
  if (!transpose) return d;
  if (n_compact == 0) return -d;
  return d == 0 ? 0 : n_compact - d;
}

// Flags every key of C: op(A)'s diagonal + op(B)'s (CDM: mod n), within C's
// shape, and the diagonals of C_in. Returns the number of pairs.
template <class Exec, class IndexView, class Keys>
std::uint64_t flag_product_diagonals(const Exec& exec, const IndexView& flags,
                                     const Keys& keys, const IndexView& a_diag, bool ta,
                                     const IndexView& b_diag, bool tb,
                                     const IndexView& cin_diag, std::int64_t n_compact,
                                     std::int64_t rows, std::int64_t cols) {
  const std::int64_t da = static_cast<std::int64_t>(a_diag.extent(0));
  const std::int64_t db = static_cast<std::int64_t>(b_diag.extent(0));
  Kokkos::parallel_for(
      "libra::diag::product_diagonals", Kokkos::RangePolicy<Exec>(exec, 0, da * db),
      KOKKOS_LAMBDA(const std::int64_t w) {
        std::int64_t f = op_diagonal(a_diag(w / db), ta, n_compact) +
                         op_diagonal(b_diag(w % db), tb, n_compact);
        if (n_compact > 0) {
          if (f >= n_compact) f -= n_compact;
        } else if (f <= -rows || f >= cols) {
          return;  // A's diagonal times B's lands outside C
        }
        flags(keys.key(f)) = 1;
      });
  Kokkos::parallel_for(
      "libra::diag::input_diagonals",
      Kokkos::RangePolicy<Exec>(exec, 0, static_cast<std::int64_t>(cin_diag.extent(0))),
      KOKKOS_LAMBDA(const std::int64_t s) { flags(keys.key(cin_diag(s))) = 1; });
  return static_cast<std::uint64_t>(da) * static_cast<std::uint64_t>(db);
}

// C's compact diagonals, ascending, for an n x n CDM product: every
// (op(A)'s + op(B)'s) mod n, and C_in's. Worked out on the host from the lists
// read back (one synchronisation, no pass over n) when there are at most
// `host_pairs` pairs; else flagged over the n compact indices on the device and
// listed (list_flagged). `on_host` says which ran.
template <class Exec, class IndexView, class Mem>
IndexView cdm_product_diagonals(const Exec& exec, const IndexView& a_diag, bool ta,
                                const IndexView& b_diag, bool tb,
                                const IndexView& cin_diag, std::int64_t n,
                                std::int64_t host_pairs, const Temps<Mem>& temps,
                                bool& on_host) {
  using O = typename IndexView::non_const_value_type;
  const CdmKeys<O> keys{n};
  const std::int64_t da = static_cast<std::int64_t>(a_diag.extent(0));
  const std::int64_t db = static_cast<std::int64_t>(b_diag.extent(0));
  on_host = host_pairs >= 0 && da * db <= host_pairs;
  if (!on_host) {
    const IndexView flags =
        temps.template view<O>("libra::diag::cdm::c_map", static_cast<std::size_t>(n));
    Kokkos::deep_copy(exec, flags, O(0));
    flag_product_diagonals(exec, flags, keys, a_diag, ta, b_diag, tb, cin_diag, n, n, n);
    return list_flagged(exec, flags, keys, "cdm_gemm: diagonals of C");
  }
  using Host = Kokkos::View<O*, Kokkos::HostSpace>;
  const auto mirror = [&](const IndexView& d) {
    Host h(Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::diag::cdm::list"),
           d.extent(0));
    Kokkos::deep_copy(exec, h, d);
    return h;
  };
  const Host ha = mirror(a_diag), hb = mirror(b_diag), hc = mirror(cin_diag);
  exec.fence();  // the one synchronisation
  std::vector<O> sums;
  sums.reserve(static_cast<std::size_t>(da * db) + hc.extent(0));
  for (std::int64_t p = 0; p < da; ++p) {
    const std::int64_t a = op_diagonal(ha(p), ta, n);
    for (std::int64_t q = 0; q < db; ++q) {
      std::int64_t f = a + op_diagonal(hb(q), tb, n);
      if (f >= n) f -= n;
      sums.push_back(static_cast<O>(f));
    }
  }
  for (std::size_t s = 0; s < hc.extent(0); ++s) sums.push_back(hc(s));
  std::sort(sums.begin(), sums.end());
  sums.erase(std::unique(sums.begin(), sums.end()), sums.end());
  // Returned to the caller (C's list of diagonals).
  const auto list = result_view<O, typename IndexView::memory_space>(
      "libra::diagonal::diag", sums.size());
  Kokkos::deep_copy(exec, list, Host(sums.data(), sums.size()));
  return list;
}

// The position of `key` in the ascending list `sorted` (-1: absent).
template <class IndexView>
KOKKOS_INLINE_FUNCTION std::int64_t find_sorted(const IndexView& sorted,
                                                std::int64_t key) {
  std::int64_t lo = 0, hi = static_cast<std::int64_t>(sorted.extent(0));
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (static_cast<std::int64_t>(sorted(mid)) < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < static_cast<std::int64_t>(sorted.extent(0)) &&
                 static_cast<std::int64_t>(sorted(lo)) == key
             ? lo
             : -1;
}

// How many pairs (compact diagonal of op(A), of op(B)) land on a compact
// diagonal that c_diag (ascending) lacks. One reduction, one synchronisation.
template <class Exec, class IndexView>
std::int64_t missing_product_diagonals(const Exec& exec, const IndexView& a_diag, bool ta,
                                       const IndexView& b_diag, bool tb,
                                       const IndexView& c_diag, std::int64_t n) {
  const std::int64_t da = static_cast<std::int64_t>(a_diag.extent(0));
  const std::int64_t db = static_cast<std::int64_t>(b_diag.extent(0));
  std::int64_t missing = 0;
  Kokkos::parallel_reduce(
      "libra::diag::missing_diagonals", Kokkos::RangePolicy<Exec>(exec, 0, da * db),
      KOKKOS_LAMBDA(const std::int64_t w, std::int64_t& sum) {
        std::int64_t k =
            op_diagonal(a_diag(w / db), ta, n) + op_diagonal(b_diag(w % db), tb, n);
        if (k >= n) k -= n;
        if (find_sorted(c_diag, k) < 0) ++sum;
      },
      missing);
  return missing;
}

template <class Exec>
void check_product_bytes(const Exec& exec, std::uint64_t values, std::size_t scalar_bytes,
                         std::size_t budget, const char* what) {
  const std::uint64_t bytes = checked_mul(values, scalar_bytes, what);
  const std::size_t limit = budget != 0 ? budget : default_memory_budget(exec) * 3;
  if (bytes > limit) {
    throw ArgumentError(std::string(what) + ": C would store " + std::to_string(values) +
                        " values (" + std::to_string(bytes) + " bytes), more than the " +
                        (budget != 0 ? "memory budget given" : "device's free memory") +
                        " (" + std::to_string(limit) + " bytes)");
  }
}

}  // namespace libra::impl

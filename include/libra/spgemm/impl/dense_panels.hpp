#pragma once
// Dense panels of the panel SpGEMM: a panel of consecutive rows of A whose
// products fill enough of their box (its rows x the range of A's columns they
// use x the range of B's columns those rows of B hold) is multiplied as dense
// tiles with KokkosBlas::gemm and scattered into C. A dense GEMM does one
// multiply-add per box entry, faster per entry than a sparse accumulator does
// per product, but each panel pays two GEMMs (pattern and values) and a dozen
// launches, and Kokkos Kernels' GEMM is slow on tiles this small (H100: about
// 120 GFLOP/s on 256-row tiles, against 2.7 TFLOP/s at n = 2048).
//   count:   the tiles hold ones where A and B have entries; their product
//            counts each entry's products (exact: sums of ones), so an entry of
//            C exists where the count is positive, cancelling values included.
//            The pattern is kept as a bitmap per panel.
//   fill:    C's columns off that bitmap; with one-shot products the values too,
//            from a second product of the value tiles.
//   numeric: the value tiles' product, gathered along C's known pattern.
// The sparse paths skip the panels' rows (their products are zeroed for the
// binned path, DenseRows is asked by the host path).
#include <KokkosBlas3_gemm.hpp>
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <vector>

#include "libra/core/launch_traits.hpp"
#include "libra/core/spaces.hpp"
#include "libra/spgemm/options.hpp"
#include "libra/util/host_copy.hpp"
#include "libra/util/workspace.hpp"

namespace libra::impl {

// Whether row i of A belongs to a dense panel (panels of panel_rows rows).
template <class Mem>
struct DenseRows {
  Kokkos::View<const std::uint8_t*, Mem> flag;  // per panel; empty: no dense panel
  std::int64_t panel_rows = 1;
  KOKKOS_INLINE_FUNCTION bool operator()(std::int64_t i) const {
    return flag.extent(0) > 0 && flag(i / panel_rows) != 0;
  }
};

struct DensePanel {
  std::int64_t row0 = 0, rows = 0;  // rows of A and C
  std::int64_t k0 = 0, inner = 0;   // A's columns, B's rows: [k0, k0 + inner)
  std::int64_t j0 = 0, cols = 0;    // B's and C's columns: [j0, j0 + cols)
  std::uint64_t products = 0;
  std::size_t pattern_at = 0;  // first word of its bitmap in DensePanels' pattern
  std::int64_t words() const { return (cols + 63) / 64; }
};

template <class Mem>
struct DensePanels {
  DenseRows<Mem> rows;
  std::vector<DensePanel> panels;  // the dense ones, in row order
  std::uint64_t dense_rows = 0;    // rows of A they hold
  // Entries of the largest tiles (A, B, C) and of all panels' bitmaps.
  std::size_t a_len = 0, b_len = 0, c_len = 0, pattern_len = 0;
  bool any() const { return !panels.empty(); }
};

// The default of SpgemmOptions::Tuning::dense_panel_density, by space, measured
// with bench_spgemm's libra_panel_dense / libra_panel_sparse on full bands
// (perf_tests/report/dense_panels.md). H100: dense panels lose at a density of
// 0.17 (n = 2048, 257 diagonals: 6.0 against 3.9 ms) and win from 0.27 (n =
// 1024, 513 diagonals: 5.3 against 7.7 ms; a dense n = 512: 2.3 against 4.2
// ms). Two host cores: Kokkos Kernels' own GEMM never wins (a dense n = 512:
// 28.3 against 29.0 ms, both products of the tiles counted), so hosts leave
// dense panels off unless asked.
template <class Exec>
double dense_panel_density(const SpgemmOptions::Tuning& t) {
  if (t.dense_panel_density > 0) return t.dense_panel_density;
  return LaunchTraits<Exec>::is_gpu ? 0.25 : 2.0;
}
inline std::int64_t dense_panel_rows(const SpgemmOptions::Tuning& t) {
  return t.dense_panel_rows > 0 ? t.dense_panel_rows : 256;
}

// Per panel of A's rows: its products and the ranges of A's and B's columns it
// uses, then the choice of dense panels (enough products for their box, tiles
// within a quarter of `budget`). `products` holds each row's products.
template <class Exec, class Csr>
DensePanels<typename Exec::memory_space> find_dense_panels(
    const Exec& exec, const Csr& A, const Csr& B,
    const Kokkos::View<std::uint64_t*, typename Exec::memory_space>& products,
    std::uint64_t total_products, const SpgemmOptions::Tuning& tuning, std::size_t budget,
    const Temps<typename Exec::memory_space>& temps) {
  using S = typename Csr::scalar_type;
  using O = typename Csr::ordinal_type;
  using Off = typename Csr::offset_type;
  using mem = typename Exec::memory_space;
  DensePanels<mem> out;
  const double density = dense_panel_density<Exec>(tuning);
  const std::int64_t n = A.num_rows;
  const std::int64_t rows_per = dense_panel_rows(tuning);
  const std::uint64_t least = std::max<std::uint64_t>(tuning.dense_panel_products, 1);
  if (density > 1 || n == 0 || total_products < least) return out;
  const std::int64_t panels = (n + rows_per - 1) / rows_per;
  // Per panel: lowest column of A, highest + 1 (0: none), the same of B, and
  // the products (unsigned long long: what Kokkos 3.4's min and max atomics take).
  using ull = atomic_u64;
  constexpr ull none = ~ull(0);
  // From the plan's temporaries (the block cache): a fresh device allocation and
  // its free (which synchronises the device) would cost more than this pass.
  const TempsFrame<mem> frame(temps);
  const auto ext = temps.template view2<ull>("libra::spgemm::dense::extents",
                                             static_cast<std::size_t>(panels), 5);
  Kokkos::parallel_for(
      "libra::spgemm::dense::extents_init",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, panels),
      KOKKOS_LAMBDA(const std::int64_t p) {
        ext(p, 0) = none;
        ext(p, 1) = 0;
        ext(p, 2) = none;
        ext(p, 3) = 0;
        ext(p, 4) = 0;
      });
  const auto a_rm = A.row_map;
  const auto a_col = A.col_idx;
  const auto b_rm = B.row_map;
  const auto b_col = B.col_idx;
  Kokkos::parallel_for(
      "libra::spgemm::dense::extents",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i) {
        const Off begin = a_rm(i), end = a_rm(i + 1);
        if (begin == end || products(i) == 0) return;
        ull lo = none, hi = 0;
        for (Off e = begin; e < end; ++e) {
          const O k = a_col(e);
          if (b_rm(k) == b_rm(k + 1)) continue;
          const auto first = static_cast<ull>(b_col(b_rm(k)));
          const auto last = static_cast<ull>(b_col(b_rm(k + 1) - 1)) + 1;
          lo = first < lo ? first : lo;
          hi = last > hi ? last : hi;
        }
        const std::int64_t p = i / rows_per;
        // Rows are sorted: A's range is its first and last column.
        Kokkos::atomic_fetch_min(&ext(p, 0), static_cast<ull>(a_col(begin)));
        Kokkos::atomic_fetch_max(&ext(p, 1), static_cast<ull>(a_col(end - 1)) + 1);
        Kokkos::atomic_fetch_min(&ext(p, 2), lo);
        Kokkos::atomic_fetch_max(&ext(p, 3), hi);
        Kokkos::atomic_add(&ext(p, 4), static_cast<ull>(products(i)));
      });
  const auto h1 = host_copy(exec, Kokkos::View<ull*, mem>(ext.data(), ext.size()));
  const auto h = [&](std::int64_t p, int what) {
    return h1(p * 5 + what);
  };
  std::vector<std::uint8_t> flag(static_cast<std::size_t>(panels), 0);
  for (std::int64_t p = 0; p < panels; ++p) {
    DensePanel d;
    d.products = static_cast<std::uint64_t>(h(p, 4));
    if (d.products < least) continue;
    d.row0 = p * rows_per;
    d.rows = std::min(rows_per, n - d.row0);
    d.k0 = static_cast<std::int64_t>(h(p, 0));
    d.inner = static_cast<std::int64_t>(h(p, 1) - h(p, 0));
    d.j0 = static_cast<std::int64_t>(h(p, 2));
    d.cols = static_cast<std::int64_t>(h(p, 3) - h(p, 2));
    const double box = static_cast<double>(d.rows) * static_cast<double>(d.inner) *
                       static_cast<double>(d.cols);
    if (static_cast<double>(d.products) < density * box) continue;
    const double bytes =
        (static_cast<double>(d.rows) * d.inner + static_cast<double>(d.inner) * d.cols +
         static_cast<double>(d.rows) * d.cols) *
            sizeof(S) +
        static_cast<double>(d.rows) * d.words() * 8;
    if (bytes > static_cast<double>(budget) / 4) continue;
    d.pattern_at = out.pattern_len;
    out.pattern_len += static_cast<std::size_t>(d.rows * d.words());
    out.a_len = std::max(out.a_len, static_cast<std::size_t>(d.rows * d.inner));
    out.b_len = std::max(out.b_len, static_cast<std::size_t>(d.inner * d.cols));
    out.c_len = std::max(out.c_len, static_cast<std::size_t>(d.rows * d.cols));
    out.dense_rows += static_cast<std::uint64_t>(d.rows);
    out.panels.push_back(d);
    flag[static_cast<std::size_t>(p)] = 1;
  }
  if (!out.any()) return out;
  Kokkos::View<std::uint8_t*, mem> f(
      Kokkos::view_alloc(Kokkos::WithoutInitializing,
                         std::string("libra::spgemm::dense::panels")),
      flag.size());
  Kokkos::deep_copy(
      exec, f,
      Kokkos::View<const std::uint8_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
          flag.data(), flag.size()));
  exec.fence();  // `flag` is a local vector
  out.rows = DenseRows<mem>{f, rows_per};
  return out;
}

// The rows of dense panels leave the sparse paths: their products are zeroed,
// so that every bin puts them in bin 0 (no work).
template <class Exec, class Mem>
void drop_dense_rows(const Exec& exec, const DensePanels<Mem>& d,
                     const Kokkos::View<std::uint64_t*, Mem>& products) {
  const auto dense = d.rows;
  Kokkos::parallel_for(
      "libra::spgemm::dense::drop_rows",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
          exec, 0, static_cast<std::int64_t>(products.extent(0))),
      KOKKOS_LAMBDA(const std::int64_t i) {
        if (dense(i)) products(i) = 0;
      });
}

// The tiles and bitmaps the dense panels work in (from the plan's temporaries,
// alive while the caller's frame is).
template <class S, class Mem>
struct DensePanelWork {
  using Tile = Kokkos::View<S**, Kokkos::LayoutRight, Mem, Kokkos::MemoryUnmanaged>;
  Kokkos::View<S*, Mem> a, b, c;
  Kokkos::View<std::uint64_t*, Mem> pattern;
  Tile tile_a(const DensePanel& p) const { return Tile(a.data(), p.rows, p.inner); }
  Tile tile_b(const DensePanel& p) const { return Tile(b.data(), p.inner, p.cols); }
  Tile tile_c(const DensePanel& p) const { return Tile(c.data(), p.rows, p.cols); }
  // Panel p's bitmap: a word per row and 64 columns, the row fastest.
  using Bits = Kokkos::View<std::uint64_t*, Mem, Kokkos::MemoryUnmanaged>;
  Bits pattern_of(const DensePanel& p) const {
    return Bits(pattern.data() + p.pattern_at,
                static_cast<std::size_t>(p.rows * p.words()));
  }
};

template <class S, class Mem>
DensePanelWork<S, Mem> dense_panel_work(const DensePanels<Mem>& d,
                                        const Temps<Mem>& temps, bool pattern) {
  DensePanelWork<S, Mem> w;
  w.a = temps.template view<S>("libra::spgemm::dense::a", d.a_len);
  w.b = temps.template view<S>("libra::spgemm::dense::b", d.b_len);
  w.c = temps.template view<S>("libra::spgemm::dense::c", d.c_len);
  if (pattern) {
    w.pattern = temps.template view<std::uint64_t>("libra::spgemm::dense::pattern",
                                                   d.pattern_len);
  }
  return w;
}

// C's tile of panel p = A's tile times B's tile: with Ones, of the patterns (each
// entry counts its products), else of the values.
template <bool Ones, class Exec, class Csr, class Work>
void multiply_dense_panel(const Exec& exec, const DensePanel& p, const Csr& A,
                          const Csr& B, const Work& w) {
  using S = typename Csr::scalar_type;
  using O = typename Csr::ordinal_type;
  using Off = typename Csr::offset_type;
  using Policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  const auto ta = w.tile_a(p);
  const auto tb = w.tile_b(p);
  const auto tc = w.tile_c(p);
  Kokkos::deep_copy(exec, ta, S(0));
  Kokkos::deep_copy(exec, tb, S(0));
  Kokkos::deep_copy(exec, tc, S(0));
  const auto a_rm = A.row_map;
  const auto a_col = A.col_idx;
  const auto a_val = A.values;
  const auto b_rm = B.row_map;
  const auto b_col = B.col_idx;
  const auto b_val = B.values;
  const std::int64_t row0 = p.row0, k0 = p.k0, j0 = p.j0, cols = p.cols, inner = p.inner;
  // Rows without products (their rows of B are empty) did not count towards
  // the range of A's columns: their entries outside it are left out.
  Kokkos::parallel_for(
      "libra::spgemm::dense::gather_a", Policy(exec, 0, p.rows),
      KOKKOS_LAMBDA(const std::int64_t r) {
        for (Off e = a_rm(row0 + r); e < a_rm(row0 + r + 1); ++e) {
          const std::int64_t k = static_cast<std::int64_t>(a_col(e)) - k0;
          if (k >= 0 && k < inner) ta(r, k) = Ones ? S(1) : a_val(e);
        }
      });
  // Rows of B in the range that no entry of A selects may reach outside the
  // columns' range; A's tile is zero there, so they are left out.
  Kokkos::parallel_for(
      "libra::spgemm::dense::gather_b", Policy(exec, 0, p.inner),
      KOKKOS_LAMBDA(const std::int64_t t) {
        const O k = static_cast<O>(k0 + t);
        for (Off e = b_rm(k); e < b_rm(k + 1); ++e) {
          const std::int64_t j = static_cast<std::int64_t>(b_col(e)) - j0;
          if (j >= 0 && j < cols) tb(t, j) = Ones ? S(1) : b_val(e);
        }
      });
  // KokkosBlas::gemm runs on the space's default instance.
  exec.fence();
  KokkosBlas::gemm("N", "N", S(1), ta, tb, S(0), tc);
  typename Exec::execution_space().fence();
}

// Count: C's pattern of each dense panel into its bitmap (a word per row and 64
// columns, the row fastest), and each row's entries into unique.
template <class Exec, class Csr, class Mem, class Work>
void dense_panels_count(const Exec& exec, const DensePanels<Mem>& d, const Csr& A,
                        const Csr& B, const Work& w,
                        const Kokkos::View<std::uint64_t*, Mem>& unique) {
  using S = typename Csr::scalar_type;
  using Policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  for (const DensePanel& p : d.panels) {
    multiply_dense_panel<true>(exec, p, A, B, w);
    const auto tc = w.tile_c(p);
    const auto bits = w.pattern_of(p);
    const std::int64_t rows = p.rows, cols = p.cols, row0 = p.row0, words = p.words();
    Kokkos::parallel_for(
        "libra::spgemm::dense::pattern", Policy(exec, 0, rows * words),
        KOKKOS_LAMBDA(const std::int64_t x) {
          const std::int64_t r = x % rows, word = x / rows;
          const std::int64_t j0 = word * 64;
          const std::int64_t j1 = j0 + 64 < cols ? j0 + 64 : cols;
          std::uint64_t v = 0;
          for (std::int64_t j = j0; j < j1; ++j) {
            // Counts of products: 0 or at least 1.
            if (tc(r, j) > S(0.5)) v |= std::uint64_t(1) << (j - j0);
          }
          bits(x) = v;
        });
    Kokkos::parallel_for(
        "libra::spgemm::dense::count", Policy(exec, 0, rows),
        KOKKOS_LAMBDA(const std::int64_t r) {
          std::uint64_t c = 0;
          for (std::int64_t word = 0; word < words; ++word)
            c += popcount64(bits(word * rows + r));
          unique(row0 + r) = c;
        });
  }
}

// Fill: C's columns of each dense panel off its bitmap and, with c_val (one-shot
// products), C's values from the value tiles' product.
template <class Exec, class Csr, class Mem, class Work, class RowMap, class Cols,
          class Vals>
void dense_panels_fill(const Exec& exec, const DensePanels<Mem>& d, const Csr& A,
                       const Csr& B, const Work& w, const RowMap& c_row_map,
                       const Cols& c_col, const Vals& c_val) {
  using O = typename Csr::ordinal_type;
  using Off = typename Csr::offset_type;
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  const bool values = c_val.extent(0) > 0;
  for (const DensePanel& p : d.panels) {
    if (values) multiply_dense_panel<false>(exec, p, A, B, w);
    const auto tc = w.tile_c(p);
    const auto bits = w.pattern_of(p);
    const std::int64_t rows = p.rows, row0 = p.row0, j0 = p.j0, words = p.words();
    int team = 1;
    if constexpr (LaunchTraits<Exec>::is_gpu) {
      team = 32;
      while (team < 256 && team < words) team *= 2;
    }
    Kokkos::parallel_for(
        "libra::spgemm::dense::fill",
        Kokkos::TeamPolicy<Exec>(exec, static_cast<int>(rows), team),
        KOKKOS_LAMBDA(const Member& m) {
          const std::int64_t r = m.league_rank();
          const Off base = c_row_map(row0 + r);
          Kokkos::parallel_scan(
              Kokkos::TeamThreadRange(m, words),
              [&](const std::int64_t word, Off& pos, const bool final) {
                std::uint64_t x = bits(word * rows + r);
                if (final) {
                  Off at = base + pos;
                  while (x) {
                    const std::uint64_t low = x & (~x + 1);
                    const std::int64_t j = word * 64 + popcount64(low - 1);
                    c_col(at) = static_cast<O>(j0 + j);
                    if (values) c_val(at) = tc(r, j);
                    ++at;
                    x ^= low;
                  }
                }
                pos += static_cast<Off>(popcount64(bits(word * rows + r)));
              });
        });
  }
}

// Numeric: the value tiles' product of each dense panel, gathered along C's
// pattern.
template <class Exec, class Csr, class Mem, class Work, class RowMap, class Cols,
          class Vals>
void dense_panels_numeric(const Exec& exec, const DensePanels<Mem>& d, const Csr& A,
                          const Csr& B, const Work& w, const RowMap& c_row_map,
                          const Cols& c_col, const Vals& c_val) {
  using Off = typename Csr::offset_type;
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  for (const DensePanel& p : d.panels) {
    multiply_dense_panel<false>(exec, p, A, B, w);
    const auto tc = w.tile_c(p);
    const std::int64_t row0 = p.row0, j0 = p.j0;
    Kokkos::parallel_for(
        "libra::spgemm::dense::gather_c",
        Kokkos::TeamPolicy<Exec>(exec, static_cast<int>(p.rows),
                                 LaunchTraits<Exec>::team_threads(128)),
        KOKKOS_LAMBDA(const Member& m) {
          const std::int64_t r = m.league_rank();
          Kokkos::parallel_for(
              Kokkos::TeamThreadRange(m, c_row_map(row0 + r), c_row_map(row0 + r + 1)),
              [&](const Off t) {
                c_val(t) = tc(r, static_cast<std::int64_t>(c_col(t)) - j0);
              });
        });
  }
}

}  // namespace libra::impl

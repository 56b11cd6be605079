// The panel algorithm (ApSpGEMM in-core, SpgemmAlgorithm::panel) and `automatic`
// against the reference Gustavson product, on every path: host dense
// accumulators, scratch hash tables for thread groups and whole teams, the
// global bitmap and in-place spill for rows too long for scratch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <set>

#include "libra/spgemm/spgemm.hpp"
#include "support/band.hpp"
#include "support/compare.hpp"
#include "support/test_space.hpp"

namespace spgemm_panel_test {

using libra::SpgemmAlgorithm;
using libra::test::Device;
using libra::test::Exec;

template <class S, class O, class Off>
struct Types {
  using Scalar = S;
  using Csr = libra::Csr<S, O, Off, Device>;
  static bool is_double() { return std::is_same<S, double>::value; }
  static double tol() {
    return is_double() ? 1e-12 : 4 * std::numeric_limits<float>::epsilon();
  }
  static std::vector<double> scale(const std::vector<double>& largest,
                                   const std::vector<double>& terms) {
    if (is_double()) return largest;
    std::vector<double> s(largest.size());
    for (std::size_t i = 0; i < s.size(); ++i) s[i] = largest[i] * terms[i];
    return s;
  }
};

template <class T>
class SpgemmPanel : public ::testing::Test {};
using TypeList = ::testing::Types<Types<double, int, int>, Types<float, int, std::size_t>,
                                  Types<double, std::int64_t, std::int64_t>>;
TYPED_TEST_SUITE(SpgemmPanel, TypeList);

template <class S>
libra::ref::Matrix rounded(libra::ref::Matrix m) {
  for (auto& v : m.val) v = static_cast<double>(static_cast<S>(v));
  return m;
}

libra::ref::Matrix skewed(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<libra::ref::Triplet> t;
  for (std::int64_t e = 0; e < 12 * n; ++e) {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    const double v = std::uniform_real_distribution<double>(0, 1)(rng);
    const auto i = static_cast<std::int64_t>(u * u * u * (n - 1));
    const auto j = static_cast<std::int64_t>(v * v * (n - 1));
    if (i % 7 == 3) continue;  // empty rows
    t.emplace_back(i, j, value(rng));
  }
  return libra::ref::from_triplets(n, n, t);
}

// Options that run the panel algorithm: by name, or through `automatic`.
libra::SpgemmOptions panel(bool by_name = true) {
  libra::SpgemmOptions o;
  o.algorithm = by_name ? SpgemmAlgorithm::panel : SpgemmAlgorithm::automatic;
  return o;
}

// The GPU-style (binned) path on every space; on a GPU it is the only path
// besides the small one, which these options turn off.
libra::SpgemmOptions binned() {
  auto o = panel();
  o.dense_accumulator = false;
  o.tuning.small_nnz = 0;
  return o;
}

// The small path (panel_small.hpp) for any A, on every space.
libra::SpgemmOptions small_path(int table = 512) {
  auto o = binned();
  o.tuning.small_nnz = std::numeric_limits<std::int64_t>::max();
  o.tuning.small_table = table;
  return o;
}

// Products of row i of A*B (the length of its row of C before merging).
std::uint64_t row_products(const libra::ref::Matrix& a, const libra::ref::Matrix& b,
                           std::int64_t i) {
  std::uint64_t p = 0;
  for (auto e = a.ptr[i]; e < a.ptr[i + 1]; ++e)
    p += b.ptr[a.col[e] + 1] - b.ptr[a.col[e]];
  return p;
}

std::uint64_t max_row_products(const libra::ref::Matrix& a, const libra::ref::Matrix& b) {
  std::uint64_t most = 0;
  for (std::int64_t i = 0; i < a.rows; ++i) most = std::max(most, row_products(a, b, i));
  return most;
}

// The small path's rules (panel_small.hpp) for reference matrices.
libra::impl::SmallPathSizes sizes(const libra::ref::Matrix& a,
                                  const libra::ref::Matrix& b) {
  return {a.rows, static_cast<std::int64_t>(a.nnz()), b.rows,
          static_cast<std::int64_t>(b.nnz()), b.cols};
}
template <class T>
libra::impl::SmallBitmap small_path_bitmap(const libra::ref::Matrix& a,
                                           const libra::ref::Matrix& b,
                                           const libra::SpgemmOptions& o) {
  using Csr = typename T::Csr;
  return libra::impl::small_path_bitmap<
      Exec, typename T::Scalar, typename Csr::ordinal_type, typename Csr::offset_type>(
      sizes(a, b), o);
}
// Whether a one-shot product with options `o` tries the small path (a small A
// with short rows on average, or a narrow C), and whether it then takes it
// (bitmap rows, or every row's products within the hash tables).
template <class T>
bool attempts_small_path(const libra::ref::Matrix& a, const libra::ref::Matrix& b,
                         const libra::SpgemmOptions& o) {
  using Csr = typename T::Csr;
  return libra::impl::wants_small_path<
      Exec, typename T::Scalar, typename Csr::ordinal_type, typename Csr::offset_type>(
      sizes(a, b), o);
}
// Whether its hash rows too long for their tables spill to bitmap rows.
template <class T>
bool small_path_spills(const libra::ref::Matrix& a, const libra::ref::Matrix& b,
                       const libra::SpgemmOptions& o) {
  using Csr = typename T::Csr;
  return libra::impl::small_path_spills<
      Exec, typename T::Scalar, typename Csr::ordinal_type, typename Csr::offset_type>(
      sizes(a, b), o);
}
template <class T>
bool takes_small_path(const libra::ref::Matrix& a, const libra::ref::Matrix& b,
                      const libra::SpgemmOptions& o) {
  return attempts_small_path<T>(a, b, o) &&
         (small_path_bitmap<T>(a, b, o) != libra::impl::SmallBitmap::none ||
          small_path_spills<T>(a, b, o) ||
          max_row_products(a, b) <= static_cast<std::uint64_t>(o.tuning.small_table));
}
// The products beyond which the small path's hash rows spill (when they do).
int spill_limit(const libra::SpgemmOptions& o, std::int64_t columns) {
  if (o.tuning.small_spill_products <= 0) return o.tuning.small_table;
  const auto p =
      static_cast<int>(libra::impl::small_spill_beyond(o, (columns + 63) / 64));
  return p < o.tuning.small_table ? p : o.tuning.small_table;
}
// Rows of A with more than `table` products (those a hash row leaves out).
std::uint64_t rows_beyond(const libra::ref::Matrix& a, const libra::ref::Matrix& b,
                          int table) {
  std::uint64_t n = 0;
  for (std::int64_t i = 0; i < a.rows; ++i)
    n += row_products(a, b, i) > static_cast<std::uint64_t>(table);
  return n;
}

// Whether B's row k lists its columns in increasing order.
bool increasing_row(const libra::ref::Matrix& b, std::int64_t k) {
  const auto first = b.col.begin() + b.ptr[k];
  const auto last = b.col.begin() + b.ptr[k + 1];
  return std::adjacent_find(first, last, std::greater_equal<>()) == last;
}

// Rows of A with `entries` nonzeros (1 or 2) whose rows of B are in
// increasing order, with 1 to `most` products: the host accumulators make them
// straight from those rows (copied or merged).
std::uint64_t direct_rows(const libra::ref::Matrix& a, const libra::ref::Matrix& b,
                          std::int64_t entries, std::uint64_t most = ~std::uint64_t(0)) {
  std::uint64_t n = 0;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    if (a.ptr[i + 1] - a.ptr[i] != entries) continue;
    bool in_order = true;
    for (auto e = a.ptr[i]; e < a.ptr[i + 1]; ++e)
      in_order &= increasing_row(b, a.col[e]);
    const std::uint64_t p = row_products(a, b, i);
    n += in_order && p > 0 && p <= most;
  }
  return n;
}
std::uint64_t copied_rows(const libra::ref::Matrix& a, const libra::ref::Matrix& b,
                          std::uint64_t most = ~std::uint64_t(0)) {
  return direct_rows(a, b, 1, most);
}
std::uint64_t merged_rows(const libra::ref::Matrix& a, const libra::ref::Matrix& b,
                          std::uint64_t most = ~std::uint64_t(0)) {
  return direct_rows(a, b, 2, most);
}

// How the product is asked for: one call (libra::spgemm, where the fill pass may
// make the values), or the handle's symbolic then numeric phases.
enum class Calls { one_shot, two_phase };

template <class T>
libra::SpgemmStats check_product(const libra::ref::Matrix& a0,
                                 const libra::ref::Matrix& b0,
                                 const libra::SpgemmOptions& options = panel(),
                                 Calls calls = Calls::one_shot) {
  using S = typename T::Scalar;
  using Csr = typename T::Csr;
  const auto a = rounded<S>(a0);
  const auto b = rounded<S>(b0);
  const auto A = libra::test::from_ref<S, typename Csr::ordinal_type,
                                       typename Csr::offset_type, Device>(a);
  const auto B = libra::test::from_ref<S, typename Csr::ordinal_type,
                                       typename Csr::offset_type, Device>(b);
  std::vector<double> largest, terms;
  const auto expected = libra::ref::spgemm(a, b, &largest, &terms);
  const auto scale = T::scale(largest, terms);
  libra::SpgemmStats stats;
  Csr C;
  if (calls == Calls::one_shot) {
    C = libra::spgemm(Exec(), A, B, options, &stats);
  } else {
    libra::SpgemmHandle<S, typename Csr::ordinal_type, typename Csr::offset_type, Device>
        h(options);
    libra::spgemm_symbolic(Exec(), h, A, B, C);
    libra::spgemm_numeric(Exec(), h, A, B, C);
    stats = h.stats();
    EXPECT_EQ(stats.paths.values_in_fill, 0u);
  }
  auto got = libra::test::to_ref(C);
  if (!options.sort_columns)
    got = libra::ref::from_triplets(got.rows, got.cols, libra::ref::to_triplets(got));
  EXPECT_TRUE(libra::test::same_matrix(expected, got, T::tol(), &scale))
      << a.rows << "x" << a.cols << " * " << b.rows << "x" << b.cols;
  EXPECT_EQ(stats.algorithm, SpgemmAlgorithm::panel);
  EXPECT_EQ(stats.products, libra::ref::spgemm_products(a, b));
  EXPECT_EQ(stats.flops, 2 * stats.products);
  EXPECT_EQ(stats.nnz_c, static_cast<std::uint64_t>(expected.nnz()));
  EXPECT_EQ(stats.chunks, 1);
  if (options.memory_budget) EXPECT_LE(stats.peak_bytes, options.memory_budget);
  return stats;
}

// Rows of A with products, the rows every phase must have handled once.
std::uint64_t rows_with_products(const libra::ref::Matrix& a,
                                 const libra::ref::Matrix& b) {
  std::uint64_t n = 0;
  for (std::int64_t i = 0; i < a.rows; ++i) n += row_products(a, b, i) > 0;
  return n;
}

template <class T>
void check_all_paths(const libra::ref::Matrix& a, const libra::ref::Matrix& b) {
  const std::uint64_t rows = rows_with_products(a, b);
  for (const bool by_name : {true, false}) {
    const auto st = check_product<T>(a, b, panel(by_name));
    if (takes_small_path<T>(a, b, panel(by_name))) {
      EXPECT_EQ(st.paths.small, static_cast<std::uint64_t>(a.rows));
      EXPECT_EQ(st.paths.hash_in_scratch + st.paths.bitmap, 0u);
    } else if (libra::LaunchTraits<Exec>::is_gpu) {
      EXPECT_EQ(st.paths.small, 0u);
      EXPECT_EQ(st.paths.hash_in_scratch + st.paths.bitmap, rows);
    } else {
      EXPECT_EQ(st.paths.host_dense, rows);
      EXPECT_EQ(st.paths.accumulate_host_dense, rows);
    }
  }
  if (!libra::LaunchTraits<Exec>::is_gpu) {
    // Host dense accumulators with B's rows packed into column words (ratio 1)
    // and column by column (ratio 0) with marks or bits, in one call and in two
    // phases.
    for (const double ratio : {1.0, 0.0}) {
      for (const std::int64_t marks : {std::int64_t(1) << 40, std::int64_t(0)}) {
        for (const Calls calls : {Calls::one_shot, Calls::two_phase}) {
          auto o = panel();
          o.tuning.host_word_ratio = ratio;
          o.tuning.host_mark_columns = marks;
          const auto st = check_product<T>(a, b, o, calls);
          EXPECT_EQ(st.paths.host_dense, rows);
          EXPECT_EQ(st.paths.accumulate_host_dense, rows);
          EXPECT_EQ(st.paths.host_packed_words, ratio > 0 ? rows : 0u);
          EXPECT_EQ(st.paths.host_marks, ratio == 0 && marks > 0 ? rows : 0u);
          EXPECT_EQ(st.paths.host_copied, copied_rows(a, b));
          EXPECT_EQ(st.paths.host_merged, merged_rows(a, b));
        }
      }
    }
    // Rows with few products made by sorting them (any width of C here), in
    // one call and in two phases, unsorted too; none, some, up to 64 products.
    for (const int few : {0, 4, 64}) {
      for (const Calls calls : {Calls::one_shot, Calls::two_phase}) {
        for (const bool sorted : {true, false}) {
          auto o = panel();
          o.sort_columns = sorted;
          o.tuning.host_sort_products = few;
          o.tuning.host_sort_columns = 0;
          o.tuning.host_sort_average = 0;
          const auto st = check_product<T>(a, b, o, calls);
          EXPECT_EQ(st.paths.host_dense, rows);
          // Copied and merged rows are not sorted.
          EXPECT_EQ(st.paths.host_sorted, rows - rows_beyond(a, b, few) -
                                              copied_rows(a, b, few) -
                                              merged_rows(a, b, few));
        }
      }
    }
    // Off below host_sort_columns, and for rows averaging more products than
    // host_sort_average.
    auto o = panel();
    o.tuning.host_sort_average = 0;
    o.tuning.host_sort_columns = b.cols + 1;
    EXPECT_EQ(check_product<T>(a, b, o).paths.host_sorted, 0u);
    o.tuning.host_sort_columns = 0;
    o.tuning.host_sort_average = 1e-9;
    const auto st = check_product<T>(a, b, o);
    EXPECT_EQ(st.paths.host_sorted, 0u);
    o.tuning.host_sort_average = 1e9;
    const auto few = o.tuning.host_sort_products;
    EXPECT_EQ(check_product<T>(a, b, o).paths.host_sorted,
              rows - rows_beyond(a, b, few) -
                  copied_rows(a, b, static_cast<std::uint64_t>(few)) -
                  merged_rows(a, b, static_cast<std::uint64_t>(few)));
    // Without direct rows, those rows are sorted too (and none copied or
    // merged, in two phases as well).
    o.tuning.host_direct_entries = 0;
    for (const Calls calls : {Calls::one_shot, Calls::two_phase}) {
      const auto none = check_product<T>(a, b, o, calls);
      EXPECT_EQ(none.paths.host_sorted, rows - rows_beyond(a, b, few));
      EXPECT_EQ(none.paths.host_copied, 0u);
      EXPECT_EQ(none.paths.host_merged, 0u);
    }
  }
  // The small path on every space, with bitmap rows where C is narrow enough
  // and with hash tables: taken (rows too long for the tables spilling to
  // bitmap rows), given up (a row too long for its tables, spills off: the
  // binned path computes the product), or not tried.
  for (const int table : {512, 64, 4}) {
    for (const int bitmap : {0, -1}) {
      for (const bool spill : {true, false}) {
        auto o = small_path(table);
        o.tuning.small_bitmap = bitmap;
        o.tuning.small_spill = spill;
        const auto st = check_product<T>(a, b, o);
        const auto kind = small_path_bitmap<T>(a, b, o);
        if (bitmap < 0) EXPECT_EQ(kind, libra::impl::SmallBitmap::none);
        const bool spills =
            kind == libra::impl::SmallBitmap::none && small_path_spills<T>(a, b, o);
        if (!spill) EXPECT_FALSE(spills);
        if (takes_small_path<T>(a, b, o)) {
          EXPECT_EQ(st.paths.small, static_cast<std::uint64_t>(a.rows));
          EXPECT_EQ(st.paths.small_bitmap,
                    kind != libra::impl::SmallBitmap::none ? st.paths.small : 0u);
          EXPECT_EQ(st.paths.small_by_column,
                    kind == libra::impl::SmallBitmap::by_column ? st.paths.small : 0u);
          EXPECT_EQ(st.paths.small_spill,
                    spills ? rows_beyond(a, b, spill_limit(o, b.cols)) : 0u);
          EXPECT_EQ(st.paths.small_fallback, 0u);
          EXPECT_EQ(st.paths.hash_in_scratch + st.paths.bitmap, 0u);
          continue;
        }
        EXPECT_EQ(st.paths.small, 0u);
        EXPECT_EQ(st.paths.small_spill, 0u);
        EXPECT_EQ(st.paths.small_fallback > 0, attempts_small_path<T>(a, b, o));
        EXPECT_EQ(st.paths.hash_in_scratch + st.paths.bitmap, rows);
      }
    }
  }
  for (const Calls calls : {Calls::one_shot, Calls::two_phase}) {
    const auto st = check_product<T>(a, b, binned(), calls);
    EXPECT_EQ(st.paths.small, 0u);
    EXPECT_EQ(st.paths.hash_in_scratch + st.paths.bitmap, rows);
    EXPECT_EQ(st.paths.values_in_fill + st.paths.accumulate_in_scratch +
                  st.paths.accumulate_dense + st.paths.accumulate_in_place,
              rows);
    EXPECT_EQ(st.paths.host_dense, 0u);
    // A one-shot product makes these rows' values in the fill pass.
    if (calls == Calls::one_shot && rows > 0) EXPECT_GT(st.paths.values_in_fill, 0u);
  }
}

TYPED_TEST(SpgemmPanel, RandomSquareAndRectangular) {
  using libra::ref::random;
  check_all_paths<TypeParam>(random(500, 500, 6, 1), random(500, 500, 6, 2));
  check_all_paths<TypeParam>(random(300, 700, 5, 3), random(700, 200, 4, 4));
  check_all_paths<TypeParam>(random(50, 3000, 40, 5), random(3000, 60, 3, 6));
  check_all_paths<TypeParam>(random(4000, 20, 3, 7), random(20, 5000, 30, 8));
}

TYPED_TEST(SpgemmPanel, SkewedGraphs) {
  const auto g = skewed(6000, 11);
  check_all_paths<TypeParam>(g, g);
  check_all_paths<TypeParam>(g, libra::ref::transpose(g));
}

TYPED_TEST(SpgemmPanel, EmptyAndDegenerate) {
  using libra::ref::from_triplets;
  using libra::ref::random;
  check_all_paths<TypeParam>(from_triplets(0, 0, {}), from_triplets(0, 0, {}));
  check_all_paths<TypeParam>(from_triplets(5, 0, {}), from_triplets(0, 7, {}));
  check_all_paths<TypeParam>(from_triplets(4, 6, {}), random(6, 3, 2, 1));
  check_all_paths<TypeParam>(random(30, 30, 3, 9, 0.9), random(30, 30, 3, 10, 0.9));
  check_all_paths<TypeParam>(from_triplets(1, 1, {{0, 0, 3.0}}),
                             from_triplets(1, 1, {{0, 0, 0.5}}));
}

// Every bin of the binned path: thread groups, teams, and the global spill.
TYPED_TEST(SpgemmPanel, BinnedPathWalksGroupsTeamsAndSpill) {
  using libra::ref::random;
  // Rows of 3 to ~40,000 products: all the bins of the default scratch.
  const auto a = random(600, 2000, 8, 31, 0.0);
  std::vector<libra::ref::Triplet> t;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    for (auto e = a.ptr[i]; e < a.ptr[i + 1]; ++e) t.emplace_back(i, a.col[e], a.val[e]);
  }
  for (std::int64_t j = 0; j < 1800; j += 1) t.emplace_back(7, j, 0.25);  // a long row
  for (std::int64_t j = 0; j < 300; j += 1) t.emplace_back(9, j, -0.5);   // a team row
  // A row of ~1,400 products and ~1,300 entries of C: a team bin when counting,
  // too long for a team's table with 12- or 16-byte entries (one-shot products
  // send it to the bitmap; float with 32-bit columns still fits).
  for (std::int64_t j = 0; j < 1400; j += 20) t.emplace_back(11, j, 2.0);
  const auto a2 = libra::ref::from_triplets(a.rows, a.cols, t);
  const auto b = random(2000, 9000, 20, 32, 0.0);
  for (const Calls calls : {Calls::one_shot, Calls::two_phase}) {
    const auto st = check_product<TypeParam>(a2, b, binned(), calls);
    EXPECT_GT(st.paths.thread_groups, 0u);
    EXPECT_GT(st.paths.hash_in_scratch, st.paths.thread_groups);  // team bins too
    EXPECT_GT(st.paths.bitmap, 0u);
    EXPECT_EQ(st.paths.bitmap_in_scratch, st.paths.bitmap);  // 9,000 columns fit scratch
    if (calls == Calls::two_phase) {
      EXPECT_GT(st.paths.accumulate_in_scratch, 0u);
      // The fill bins by length (team rows with large tables fill off the bitmap).
      EXPECT_LE(st.paths.bitmap_fill - st.paths.bitmap_fill_team, st.paths.bitmap);
    } else {
      EXPECT_GT(st.paths.values_in_fill, st.paths.bitmap);  // hash rows too
      using O = typename TypeParam::Csr::ordinal_type;
      if (sizeof(typename TypeParam::Scalar) + sizeof(O) >= 12 &&
          libra::LaunchTraits<Exec>::scratch_bytes() >= 40000) {
        EXPECT_GT(st.paths.bitmap_fill, st.paths.bitmap);  // the row of ~1,300
      }
      // Row 7's ~8,800 entries of C do not fit the scratch beside the bitmap
      // with 8-byte values; the row of ~1,300 does.
      if (sizeof(typename TypeParam::Scalar) == 8 &&
          libra::LaunchTraits<Exec>::scratch_bytes() >= 40000) {
        EXPECT_GT(st.paths.bitmap_values_in_place, 0u);
        EXPECT_LT(st.paths.bitmap_values_in_place, st.paths.bitmap_fill);
        // 9,000 columns of 8-byte sums do not fit: they sit at positions.
        EXPECT_EQ(st.paths.bitmap_values_by_column, 0u);
      }
    }
  }
}

// The bins' launches run side by side on CUDA (Tuning::side_by_side), every
// launch of both phases, the global bin's bitmap in scratch among them; with a
// bitmap in global memory (200,000 columns, a small scratch) that launch runs
// after them on the caller's instance. Elsewhere, and when turned off, they run
// one after another. Same products either way.
TYPED_TEST(SpgemmPanel, BinsRunSideBySideOnGpus) {
  using libra::ref::random;
  const auto a0 = random(700, 2000, 8, 41, 0.0);
  std::vector<libra::ref::Triplet> t;
  for (std::int64_t i = 0; i < a0.rows; ++i) {
    for (auto e = a0.ptr[i]; e < a0.ptr[i + 1]; ++e)
      t.emplace_back(i, a0.col[e], a0.val[e]);
  }
  for (std::int64_t j = 0; j < 1800; j += 1) t.emplace_back(3, j, 0.75);  // a long row
  const auto a = libra::ref::from_triplets(a0.rows, a0.cols, t);
  const auto narrow = random(2000, 9000, 20, 42, 0.0);
  const auto wide = random(2000, 200000, 20, 43, 0.0);
  constexpr bool lanes = libra::impl::is_cuda_space<Exec>;
  for (const bool side_by_side : {true, false}) {
    for (const Calls calls : {Calls::one_shot, Calls::two_phase}) {
      for (const bool in_scratch : {true, false}) {
        SCOPED_TRACE(std::string(side_by_side ? "side by side" : "in a row") +
                     (calls == Calls::one_shot ? ", one shot" : ", two phases") +
                     (in_scratch ? ", bitmap in scratch" : ", bitmap in memory"));
        auto o = binned();
        o.tuning.side_by_side = side_by_side;
        if (!in_scratch) o.tuning.scratch_bytes = 8192;
        const auto st = check_product<TypeParam>(a, in_scratch ? narrow : wide, o, calls);
        EXPECT_GT(st.paths.thread_groups, 0u);
        EXPECT_GT(st.paths.bitmap, 0u);
        EXPECT_EQ(st.paths.bitmap_in_scratch, in_scratch ? st.paths.bitmap : 0u);
        if (lanes && side_by_side) {
          // At least the count's group bins; never more than all the launches.
          EXPECT_GE(st.paths.side_by_side, 2u);
          EXPECT_LE(st.paths.side_by_side, 3u * libra::impl::panel_bins);
        } else {
          EXPECT_EQ(st.paths.side_by_side, 0u);
        }
      }
    }
  }
}

// Team rows of the fill pass take the bitmap over C's columns instead of sorting
// their tables when Tuning::fill_bitmap_slots allows: with 1 every team row whose
// bitmap fits scratch does, with -1 none does, in one call and in two phases.
TYPED_TEST(SpgemmPanel, TeamRowsFillOffTheBitmap) {
  using libra::ref::random;
  // Rows of ~500 products (team bins; a few of the longest spill when 8-byte
  // keys count them) over 3,000 columns of C.
  const auto a = random(300, 800, 20, 51, 0.0);
  const auto b = random(800, 3000, 25, 52, 0.0);
  const std::uint64_t rows = rows_with_products(a, b);
  for (const Calls calls : {Calls::one_shot, Calls::two_phase}) {
    for (const int slots : {1, -1}) {
      auto o = binned();
      o.tuning.fill_bitmap_slots = slots;
      const auto st = check_product<TypeParam>(a, b, o, calls);
      EXPECT_GT(st.paths.hash_in_scratch, st.paths.thread_groups);  // team rows
      if (slots > 0) {
        EXPECT_GT(st.paths.bitmap_fill_team, st.paths.bitmap);  // beside the spill
        // Rows of C of ~500 entries: their values fit the scratch beside the
        // bitmap of 47 words; so do sums for all 3,000 columns (by column).
        EXPECT_EQ(st.paths.bitmap_values_in_place, 0u);
        if (calls == Calls::one_shot &&
            libra::LaunchTraits<Exec>::scratch_bytes() >= 40000) {
          EXPECT_EQ(st.paths.bitmap_values_by_column, st.paths.bitmap_fill);
        }
      } else {
        // (One-shot rows too long for a team's table with values still spill.)
        EXPECT_EQ(st.paths.bitmap_fill_team, 0u);
        if (calls == Calls::two_phase) EXPECT_LE(st.paths.bitmap_fill, st.paths.bitmap);
      }
      EXPECT_EQ(st.paths.values_in_fill + st.paths.accumulate_in_scratch +
                    st.paths.accumulate_dense + st.paths.accumulate_in_place,
                rows);
    }
  }
}

// Rows of A with many nonzeros: a thread group's lanes go across the row's
// nonzeros instead of across each row of B (Tuning::group_spread_entries), in
// the binned path and the small one, in one call and in two phases.
TYPED_TEST(SpgemmPanel, GroupsSpreadLongRowsOfA) {
  const auto g = skewed(3000, 63);
  const bool gpu = libra::LaunchTraits<Exec>::is_gpu;
  const bool host_groups = !gpu && Exec().concurrency() >= 2;  // teams of 2 threads
  for (const Calls calls : {Calls::one_shot, Calls::two_phase}) {
    for (const int entries : {1, 3, -1}) {
      auto o = binned();
      o.tuning.group_spread_entries = entries;
      if (host_groups) o.tuning.host_team_threads = 2;
      const auto st = check_product<TypeParam>(g, g, o, calls);
      EXPECT_GT(st.paths.thread_groups, 0u);
      if (entries < 0 || !(gpu || host_groups)) {
        EXPECT_EQ(st.paths.thread_groups_spread, 0u);
      } else if (entries == 1) {
        EXPECT_EQ(st.paths.thread_groups_spread, st.paths.thread_groups);
      } else {
        EXPECT_GT(st.paths.thread_groups_spread, 0u);
        EXPECT_LT(st.paths.thread_groups_spread, st.paths.thread_groups);
      }
    }
  }
  // The small path's hash rows (groups of lanes on GPUs; a team per row on
  // hosts).
  using libra::ref::random;
  const auto a = random(500, 500, 6, 1);
  for (const int entries : {3, -1}) {
    auto o = small_path();
    o.tuning.group_spread_entries = entries;
    o.tuning.small_bitmap = -1;
    ASSERT_TRUE(takes_small_path<TypeParam>(a, a, o));
    const auto st = check_product<TypeParam>(a, a, o);
    // (Rows that spill to bitmap rows leave the groups.)
    const auto limit = static_cast<std::uint64_t>(small_path_spills<TypeParam>(a, a, o)
                                                      ? spill_limit(o, a.cols)
                                                      : o.tuning.small_table);
    std::uint64_t long_rows = 0;
    for (std::int64_t i = 0; i < a.rows; ++i)
      long_rows += a.ptr[i + 1] - a.ptr[i] >= 3 && row_products(a, a, i) <= limit;
    EXPECT_GT(long_rows, 0u);
    EXPECT_EQ(st.paths.thread_groups_spread, entries > 0 && gpu ? long_rows : 0u);
  }
}

// One-shot products whose team-bin tables cannot hold values: the fill pass
// makes the values of the group bins and the spill, the numeric pass those of
// the team bins (a small scratch leaves no team bin room for values).
TYPED_TEST(SpgemmPanel, OneShotLeavesTeamRowsWithoutValuesToNumeric) {
  using libra::ref::random;
  auto o = binned();
  o.tuning.scratch_bytes = 8192;
  // Rows of ~30 to ~300 products (group and team bins) and one long row (spill).
  const auto a0 = random(800, 1500, 6, 35, 0.0);
  std::vector<libra::ref::Triplet> t;
  for (std::int64_t i = 0; i < a0.rows; ++i) {
    for (auto e = a0.ptr[i]; e < a0.ptr[i + 1]; ++e)
      t.emplace_back(i, a0.col[e], a0.val[e]);
  }
  for (std::int64_t j = 0; j < 1500; j += 2) t.emplace_back(5, j, 0.5);
  const auto a = libra::ref::from_triplets(a0.rows, a0.cols, t);
  // 50,000 columns: a bitmap with values does not fit the small scratch, so the
  // team rows are not spilled to it.
  const auto b = random(1500, 50000, 25, 36, 0.0);
  const std::uint64_t rows = rows_with_products(a, b);
  const auto st = check_product<TypeParam>(a, b, o);
  EXPECT_GT(st.paths.thread_groups, 0u);
  EXPECT_GT(st.paths.bitmap, 0u);
  EXPECT_GT(st.paths.values_in_fill, st.paths.bitmap);
  EXPECT_GT(st.paths.accumulate_in_scratch + st.paths.accumulate_dense, 0u);
  EXPECT_EQ(st.paths.values_in_fill + st.paths.accumulate_in_scratch +
                st.paths.accumulate_dense + st.paths.accumulate_in_place,
            rows);
}

// A scratch budget too small for any table sends every row to the spill.
TYPED_TEST(SpgemmPanel, ForcedSpillWhenScratchIsTiny) {
  using libra::ref::random;
  auto o = binned();
  o.tuning.scratch_bytes = 64;
  const auto a = random(400, 300, 7, 41);
  for (const std::int64_t columns : {300, 5000}) {  // bitmap in scratch, then global
    const auto b = random(300, columns, 9, 42);
    const std::uint64_t rows = rows_with_products(a, b);
    // One call: the bitmap's fill pass makes the values.
    const auto one = check_product<TypeParam>(a, b, o);
    EXPECT_EQ(one.paths.bitmap, rows);
    EXPECT_EQ(one.paths.bitmap_in_scratch, columns == 300 ? rows : 0u);
    EXPECT_EQ(one.paths.values_in_fill, rows);
    // Scratch holds (almost) no values beside the bitmap: they add in C.
    if (columns == 300) {
      EXPECT_GT(one.paths.bitmap_values_in_place, 0u);
    } else {
      EXPECT_EQ(one.paths.bitmap_values_in_place, rows);
    }
    const auto st = check_product<TypeParam>(a, b, o, Calls::two_phase);
    EXPECT_EQ(st.paths.bitmap, rows);
    EXPECT_EQ(st.paths.bitmap_in_scratch, columns == 300 ? rows : 0u);
    EXPECT_EQ(st.paths.accumulate_dense, rows);
    EXPECT_EQ(st.paths.hash_in_scratch, 0u);
    // Without dense arrays for long rows: atomics in place, in C's values.
    auto in_place_options = o;
    in_place_options.tuning.dense_long_rows = false;
    const auto in_place =
        check_product<TypeParam>(a, b, in_place_options, Calls::two_phase);
    EXPECT_EQ(in_place.paths.accumulate_in_place, rows);
    EXPECT_EQ(in_place.paths.accumulate_dense, 0u);
  }
}

// A matrix of short rows and one long one: the small path is tried (the
// average row is short), gives up on the long row, and the binned path
// computes the product; the same with the long row within the table.
TYPED_TEST(SpgemmPanel, SmallPathGivesUpOnALongRow) {
  std::vector<libra::ref::Triplet> t;
  for (std::int64_t i = 0; i < 300; ++i) t.emplace_back(i, (7 * i) % 300, 1.0 + i % 5);
  for (std::int64_t j = 0; j < 300; j += 3) t.emplace_back(17, j, -0.5);  // 100 products
  const auto a = libra::ref::from_triplets(300, 300, t);
  const std::uint64_t rows = rows_with_products(a, a);
  auto o = small_path(64);
  o.tuning.small_bitmap = -1;  // hash tables
  o.tuning.small_spill = false;
  ASSERT_TRUE(attempts_small_path<TypeParam>(a, a, o));
  auto st = check_product<TypeParam>(a, a, o);
  EXPECT_EQ(st.paths.small, 0u);
  EXPECT_GT(st.paths.small_fallback, 0u);
  EXPECT_EQ(st.paths.small_spill, 0u);
  EXPECT_EQ(st.paths.hash_in_scratch + st.paths.bitmap, rows);
  // Spilling (the default), the long row goes to bitmap rows instead: the
  // small path keeps the product.
  o.tuning.small_spill = true;
  ASSERT_TRUE(small_path_spills<TypeParam>(a, a, o));
  st = check_product<TypeParam>(a, a, o);
  EXPECT_EQ(st.paths.small, 300u);
  // Row 17 and the row whose one entry is in column 17.
  EXPECT_EQ(st.paths.small_spill, 2u);
  EXPECT_EQ(rows_beyond(a, a, 64), 2u);
  EXPECT_EQ(st.paths.small_bitmap, 0u);
  EXPECT_EQ(st.paths.small_fallback, 0u);
  EXPECT_EQ(st.paths.hash_in_scratch + st.paths.bitmap, 0u);
  // Within tables of 128 slots: kept without spilling, or spilled beyond
  // small_spill_products (64 by default).
  o = small_path(128);
  o.tuning.small_bitmap = -1;
  o.tuning.small_spill = false;
  st = check_product<TypeParam>(a, a, o);
  EXPECT_EQ(st.paths.small, 300u);
  EXPECT_EQ(st.paths.small_bitmap, 0u);
  EXPECT_EQ(st.paths.small_spill, 0u);
  EXPECT_EQ(st.paths.small_fallback, 0u);
  o.tuning.small_spill = true;
  ASSERT_EQ(spill_limit(o, a.cols), 64);
  st = check_product<TypeParam>(a, a, o);
  EXPECT_EQ(st.paths.small, 300u);
  EXPECT_EQ(st.paths.small_spill, 2u);
  // Bitmap rows (300 columns of C fit scratch) have no table to outgrow.
  o = small_path(64);
  ASSERT_EQ(small_path_bitmap<TypeParam>(a, a, o), libra::impl::SmallBitmap::by_column);
  st = check_product<TypeParam>(a, a, o);
  EXPECT_EQ(st.paths.small, 300u);
  EXPECT_EQ(st.paths.small_bitmap, 300u);
  EXPECT_EQ(st.paths.small_fallback, 0u);
}

// 2,000 rows of one nonzero each, and rows 5 (1,500 nonzeros) and 9 (750).
libra::ref::Matrix hub_rows_a() {
  std::vector<libra::ref::Triplet> t;
  for (std::int64_t i = 0; i < 2000; ++i) t.emplace_back(i, (13 * i) % 1500, 1.0 + i % 3);
  for (std::int64_t j = 0; j < 1500; j += 1) t.emplace_back(5, j, 0.5);
  for (std::int64_t j = 0; j < 1500; j += 2) t.emplace_back(9, j, -2.0);
  return libra::ref::from_triplets(2000, 1500, t);
}
// 1,500 rows of one nonzero over 900 columns, and a hub row 3 of all 900.
libra::ref::Matrix hub_row_b() {
  std::vector<libra::ref::Triplet> u;
  for (std::int64_t k = 0; k < 1500; ++k) u.emplace_back(k, (7 * k) % 900, 1.0);
  for (std::int64_t j = 0; j < 900; ++j) u.emplace_back(3, j, 0.25);
  return libra::ref::from_triplets(1500, 900, u);
}

// Bitmap rows of the small path where rows of A are longer than a team's
// flattening scratch (512 nonzeros at a time) and hub rows of B meet hub rows
// of A; and C too wide for them (hash tables instead).
TYPED_TEST(SpgemmPanel, SmallPathBitmapRows) {
  const auto a = hub_rows_a();
  const auto b = hub_row_b();
  using libra::impl::SmallBitmap;
  auto o = small_path(64);
  ASSERT_TRUE(attempts_small_path<TypeParam>(a, b, o));
  ASSERT_EQ(small_path_bitmap<TypeParam>(a, b, o), SmallBitmap::by_column);
  auto st = check_product<TypeParam>(a, b, o);
  EXPECT_EQ(st.paths.small, 2000u);
  EXPECT_EQ(st.paths.small_bitmap, 2000u);
  EXPECT_EQ(st.paths.small_by_column, 2000u);
  // 12,000 columns of C: the bitmap fits scratch, a sum per column does not
  // (sums at positions; rows of C beyond the scratch left add in C, in place:
  // row 5's ~12,000 entries). ~420 products a row on average: still small with
  // tables of 2,048 slots.
  std::vector<libra::ref::Triplet> v;
  for (std::int64_t k = 0; k < 1500; ++k) {
    for (std::int64_t r = 0; r < 200; ++r)
      v.emplace_back(k, (k * 31 + r * 59) % 12000, 0.5);
  }
  const auto b5 = libra::ref::from_triplets(1500, 12000, v);
  o = small_path(2048);
  ASSERT_TRUE(attempts_small_path<TypeParam>(a, b5, o));
  ASSERT_EQ(small_path_bitmap<TypeParam>(a, b5, o), SmallBitmap::staged);
  st = check_product<TypeParam>(a, b5, o);
  EXPECT_EQ(st.paths.small, 2000u);
  EXPECT_EQ(st.paths.small_bitmap, 2000u);
  EXPECT_EQ(st.paths.small_by_column, 0u);
  // 100,000 columns of C and short rows: a bitmap wider than the rows' products.
  const auto wide = libra::ref::random(1500, 100000, 2, 61, 0.0);
  ASSERT_EQ(small_path_bitmap<TypeParam>(a, wide, o), SmallBitmap::none);
  st = check_product<TypeParam>(a, wide, small_path(512));
  EXPECT_EQ(st.paths.small_bitmap, 0u);
}

// Bitmap rows with more products than small_heavy_sweeps sweeps of the count's
// teams (hub rows) are counted and filled by wide teams of their own, the fill
// beside the other rows' on CUDA; 0 keeps every row in the one launch. The
// count's teams take 32 threads here (a GPU) or 1 (a host): a sweep or two
// covers the ordinary rows, and rows 5 (1,500 nonzeros of A) and 9 (750), and
// those that select B's hub row 3, are heavy at 2 sweeps.
TYPED_TEST(SpgemmPanel, SmallPathHubRowsTakeWideTeams) {
  const auto a = hub_rows_a();
  const auto b = hub_row_b();
  using libra::impl::SmallBitmap;
  constexpr bool lanes = libra::impl::is_cuda_space<Exec>;
  for (const int sweeps : {0, 2, 1000000}) {
    for (const bool side_by_side : {true, false}) {
      SCOPED_TRACE("sweeps " + std::to_string(sweeps) +
                   (side_by_side ? ", side by side" : ", in a row"));
      auto o = small_path(64);
      o.tuning.small_heavy_sweeps = sweeps;
      o.tuning.side_by_side = side_by_side;
      ASSERT_EQ(small_path_bitmap<TypeParam>(a, b, o), SmallBitmap::by_column);
      const auto st = check_product<TypeParam>(a, b, o);
      EXPECT_EQ(st.paths.small_bitmap, 2000u);
      if (sweeps == 2) {
        // Rows 5 and 9 at least; not the ordinary rows (1 to 3 products each
        // beside the hub row's 900).
        EXPECT_GE(st.paths.small_heavy, 2u);
        EXPECT_LT(st.paths.small_heavy, 2000u / 4);
        EXPECT_EQ(st.paths.side_by_side, lanes && side_by_side ? 2u : 0u);
      } else {
        EXPECT_EQ(st.paths.small_heavy, 0u);
        EXPECT_EQ(st.paths.side_by_side, 0u);
      }
    }
  }
}

// C's row_map on the small path's bitmap rows: written by the count's last
// team where its threads have at most Tuning::small_last_team_rows rows each
// (last_team_row_map.hpp), else by a scan launch; 0 forces the scan. 40 rows
// fit one thread's run of 64 on every space; 20,000 rows exceed any count
// team's (at most 256 threads). The hub rows' second count ends either way.
TYPED_TEST(SpgemmPanel, SmallPathRowMapByLastTeamOrScan) {
  using libra::impl::SmallBitmap;
  const auto few = libra::ref::random(40, 70, 4, 81, 0.2);
  const auto few_b = libra::ref::random(70, 50, 3, 82, 0.1);
  const auto many = libra::ref::random(20000, 300, 2, 83, 0.1);
  const auto many_b = libra::ref::random(300, 60, 2, 84, 0.1);
  for (const bool last_team : {true, false}) {
    SCOPED_TRACE(last_team ? "last team allowed" : "scan launches");
    auto o = small_path();
    o.tuning.small_last_team_rows = last_team ? 64 : 0;
    ASSERT_NE(small_path_bitmap<TypeParam>(few, few_b, o), SmallBitmap::none);
    auto st = check_product<TypeParam>(few, few_b, o);
    EXPECT_EQ(st.paths.small, 40u);
    EXPECT_EQ(st.paths.small_last_team_scans, last_team ? 1u : 0u);
    EXPECT_EQ(st.paths.small_scan_launches, last_team ? 0u : 1u);
    ASSERT_NE(small_path_bitmap<TypeParam>(many, many_b, o), SmallBitmap::none);
    st = check_product<TypeParam>(many, many_b, o);
    EXPECT_EQ(st.paths.small, 20000u);
    EXPECT_EQ(st.paths.small_last_team_scans, 0u);
    EXPECT_EQ(st.paths.small_scan_launches, 1u);
    // Hub rows: two counts, each ending one way or the other.
    auto h = small_path(64);
    h.tuning.small_last_team_rows = last_team ? 64 : 0;
    h.tuning.small_heavy_sweeps = 2;
    st = check_product<TypeParam>(hub_rows_a(), hub_row_b(), h);
    EXPECT_GE(st.paths.small_heavy, 2u);
    EXPECT_EQ(st.paths.small_last_team_scans + st.paths.small_scan_launches, 2u);
    if (!last_team) EXPECT_EQ(st.paths.small_last_team_scans, 0u);
  }
}

// Hash rows of the small path too long for their tables spill to bitmap rows:
// hub rows of A and of B, sums at their columns (900 columns of C) and at
// positions in C's row (12,000: the long rows add in C, in place), and a
// product made only of spilled rows.
TYPED_TEST(SpgemmPanel, SmallPathSpillsLongRows) {
  std::vector<libra::ref::Triplet> t;
  for (std::int64_t i = 0; i < 2000; ++i) t.emplace_back(i, (13 * i) % 1500, 1.0 + i % 3);
  for (std::int64_t j = 0; j < 1500; j += 1) t.emplace_back(5, j, 0.5);
  for (std::int64_t j = 0; j < 1500; j += 2) t.emplace_back(9, j, -2.0);
  const auto a = libra::ref::from_triplets(2000, 1500, t);
  std::vector<libra::ref::Triplet> u;
  for (std::int64_t k = 0; k < 1500; ++k) {
    u.emplace_back(k, (7 * k) % 900, 1.0);
    u.emplace_back(k, (7 * k + 450) % 900, -1.0);
  }
  for (std::int64_t j = 0; j < 900; ++j) u.emplace_back(3, j, 0.25);
  const auto narrow = libra::ref::from_triplets(1500, 900, u);
  std::vector<libra::ref::Triplet> v;
  for (std::int64_t k = 0; k < 1500; ++k) {
    for (std::int64_t r = 0; r < 2; ++r)
      v.emplace_back(k, (k * 31 + r * 5959) % 12000, 0.5);
  }
  const auto wide = libra::ref::from_triplets(1500, 12000, v);
  for (const auto* b : {&narrow, &wide}) {
    for (const int table : {64, 32}) {
      auto o = small_path(table);
      o.tuning.small_bitmap = -1;
      ASSERT_TRUE(attempts_small_path<TypeParam>(a, *b, o));
      ASSERT_TRUE(small_path_spills<TypeParam>(a, *b, o));
      const std::uint64_t beyond = rows_beyond(a, *b, table);
      ASSERT_GT(beyond, 0u);
      const auto st = check_product<TypeParam>(a, *b, o);
      EXPECT_EQ(st.paths.small, 2000u);
      EXPECT_EQ(st.paths.small_spill, beyond);
      EXPECT_EQ(st.paths.small_fallback, 0u);
      EXPECT_EQ(st.paths.hash_in_scratch + st.paths.bitmap, 0u);
    }
  }
  // Rows within the table spill too beyond Tuning::small_spill_products (1
  // over narrow's 15 words; wide's 188 words make it 23).
  for (const auto* b : {&narrow, &wide}) {
    auto o = small_path(64);
    o.tuning.small_bitmap = -1;
    o.tuning.small_spill_products = 1;
    const int limit = spill_limit(o, b->cols);
    EXPECT_EQ(limit, b == &narrow ? 1 : 23);
    const auto st = check_product<TypeParam>(a, *b, o);
    EXPECT_EQ(st.paths.small, 2000u);
    EXPECT_EQ(st.paths.small_spill, rows_beyond(a, *b, limit));
    if (b == &narrow) EXPECT_GT(rows_beyond(a, *b, 1), rows_beyond(a, *b, 64));
  }
  // Over a C of 40,000 columns (625 words) rows spill beyond 625 / 8 = 78
  // products, not 64: a row of 70 products keeps its table.
  std::vector<libra::ref::Triplet> x;
  for (std::int64_t i = 0; i < 2000; ++i) x.emplace_back(i, (13 * i) % 1500, 1.0);
  for (std::int64_t j = 0; j < 35; ++j) x.emplace_back(11, j * 40, 1.0 + j);
  const auto a70 = libra::ref::from_triplets(2000, 1500, x);
  std::vector<libra::ref::Triplet> y;
  for (std::int64_t k = 0; k < 1500; ++k) {
    y.emplace_back(k, (k * 31) % 40000, 0.5);
    y.emplace_back(k, (k * 31 + 20000) % 40000, 0.25);
  }
  const auto b40k = libra::ref::from_triplets(1500, 40000, y);
  {
    auto o = small_path(512);
    o.tuning.small_bitmap = -1;
    ASSERT_TRUE(attempts_small_path<TypeParam>(a70, b40k, o));
    ASSERT_TRUE(small_path_spills<TypeParam>(a70, b40k, o));
    ASSERT_EQ(spill_limit(o, b40k.cols), 78);
    ASSERT_EQ(rows_beyond(a70, b40k, 64), 1u);
    const auto st = check_product<TypeParam>(a70, b40k, o);
    EXPECT_EQ(st.paths.small, 2000u);
    EXPECT_EQ(st.paths.small_spill, 0u);
  }
  // Every row with products spills (8 rows of 800 products; the others empty).
  std::vector<libra::ref::Triplet> w;
  for (std::int64_t i = 0; i < 8; ++i) {
    for (std::int64_t k = 0; k < 400; ++k)
      w.emplace_back(i, (k * 3 + i) % 1500, 1.0 + k % 4);
  }
  const auto long_rows = libra::ref::from_triplets(2008, 1500, w);
  auto o = small_path(64);
  o.tuning.small_bitmap = -1;
  ASSERT_TRUE(attempts_small_path<TypeParam>(long_rows, wide, o));
  const auto st = check_product<TypeParam>(long_rows, wide, o);
  EXPECT_EQ(st.paths.small, 2008u);
  EXPECT_EQ(st.paths.small_spill, 8u);
  EXPECT_EQ(rows_beyond(long_rows, wide, 64), 8u);
}

// A narrow C takes the small path's bitmap rows at any size (no bins, no
// tables), unless Tuning::small_bitmap is negative or the path is off.
TYPED_TEST(SpgemmPanel, NarrowProductsOfAnySizeTakeBitmapRows) {
  using libra::impl::SmallBitmap;
  const auto a = libra::ref::random(3000, 3000, 60, 71, 0.0);
  const auto b = libra::ref::random(3000, 600, 50, 72, 0.0);
  auto o = panel();
  o.dense_accumulator = false;  // GPU-style kernels on every space
  o.tuning.small_nnz = 1000;    // A is not small
  ASSERT_EQ(small_path_bitmap<TypeParam>(a, b, o), SmallBitmap::by_column);
  ASSERT_TRUE(attempts_small_path<TypeParam>(a, b, o));
  auto st = check_product<TypeParam>(a, b, o);
  EXPECT_EQ(st.paths.small, 3000u);
  EXPECT_EQ(st.paths.small_by_column, 3000u);
  o.tuning.small_bitmap = -1;
  ASSERT_FALSE(attempts_small_path<TypeParam>(a, b, o));
  st = check_product<TypeParam>(a, b, o);
  EXPECT_EQ(st.paths.small, 0u);
  EXPECT_EQ(st.paths.hash_in_scratch + st.paths.bitmap, rows_with_products(a, b));
}

// A matrix made only of rows too long for scratch.
TYPED_TEST(SpgemmPanel, OnlyVeryLongRows) {
  using libra::ref::random;
  const auto a = random(6, 3000, 2500, 51, 0.0);
  const auto b = random(3000, 4000, 30, 52, 0.0);
  const auto st = check_product<TypeParam>(a, b, binned());
  EXPECT_EQ(st.paths.bitmap, 6u);
  check_product<TypeParam>(a, b);
}

// Dense panels (dense_panels.hpp). Rows of A in panels of `rows` rows whose
// products reach `least` and fill `density` of their box.
std::uint64_t dense_panel_rows(const libra::ref::Matrix& a, const libra::ref::Matrix& b,
                               std::int64_t rows, std::uint64_t least = 1) {
  std::uint64_t n = 0;
  for (std::int64_t r0 = 0; r0 < a.rows; r0 += rows) {
    const std::int64_t r1 = std::min(a.rows, r0 + rows);
    std::uint64_t p = 0;
    for (std::int64_t i = r0; i < r1; ++i) p += row_products(a, b, i);
    if (p >= least && p > 0) n += static_cast<std::uint64_t>(r1 - r0);
  }
  return n;
}

// Every panel with products forced dense (any density, any products): pattern
// (cancelling entries included) and values as the oracle's, in one call and in
// two phases, beside the binned and the host paths, which get the other rows.
template <class T>
void check_forced_dense_panels(const libra::ref::Matrix& a, const libra::ref::Matrix& b) {
  const std::uint64_t rows = rows_with_products(a, b);
  for (const int panel_rows : {3, 64, 256}) {
    const std::uint64_t dense = dense_panel_rows(a, b, panel_rows);
    for (const bool gpu_style : {true, false}) {
      for (const Calls calls : {Calls::one_shot, Calls::two_phase}) {
        auto o = gpu_style ? binned() : panel();
        o.tuning.small_nnz = 0;
        o.tuning.dense_panel_rows = panel_rows;
        o.tuning.dense_panel_density = 1e-300;
        o.tuning.dense_panel_products = 1;
        const auto st = check_product<T>(a, b, o, calls);
        EXPECT_EQ(st.paths.dense_panels, dense) << panel_rows;
        // Rows with products all sit in dense panels.
        EXPECT_EQ(st.paths.hash_in_scratch + st.paths.bitmap + st.paths.host_dense, 0u);
        EXPECT_EQ(st.paths.accumulate_in_scratch + st.paths.accumulate_dense +
                      st.paths.accumulate_in_place + st.paths.accumulate_host_dense,
                  0u);
        EXPECT_GE(dense, rows);
      }
    }
  }
}

TYPED_TEST(SpgemmPanel, ForcedDensePanels) {
  using libra::ref::from_triplets;
  using libra::ref::random;
  check_forced_dense_panels<TypeParam>(random(500, 500, 6, 81), random(500, 500, 6, 82));
  check_forced_dense_panels<TypeParam>(random(300, 700, 5, 83), random(700, 200, 4, 84));
  check_forced_dense_panels<TypeParam>(random(40, 30, 12, 85, 0.3),
                                       random(30, 900, 40, 86, 0.3));
  const auto g = skewed(600, 87);
  check_forced_dense_panels<TypeParam>(g, g);
  // Products that cancel: C(0,0) = 1*1 + 1*(-1) stays in the pattern, with 0.
  check_forced_dense_panels<TypeParam>(
      from_triplets(2, 3, {{0, 0, 1.0}, {0, 2, 1.0}, {1, 1, 2.0}}),
      from_triplets(3, 2, {{0, 0, 1.0}, {2, 0, -1.0}, {1, 1, 3.0}, {2, 1, 0.5}}));
  check_forced_dense_panels<TypeParam>(from_triplets(0, 0, {}), from_triplets(0, 0, {}));
  check_forced_dense_panels<TypeParam>(from_triplets(4, 6, {}), random(6, 3, 2, 1));
}

// Only the panel that is a dense block goes dense, at a density of 0.5 and, on
// GPUs, at the default (hosts leave dense panels off by default): rows 0..63
// of A use columns 0..99, rows 0..99 of B are dense over columns 0..99; the
// other rows are sparse and random.
TYPED_TEST(SpgemmPanel, DenseBlockTakesADensePanel) {
  const auto sparse = libra::ref::random(400, 500, 4, 91, 0.0);
  std::vector<libra::ref::Triplet> ta, tb;
  for (std::int64_t i = 0; i < 400; ++i) {
    if (i < 64) {
      for (std::int64_t j = 0; j < 100; ++j)
        ta.emplace_back(i, j, 0.01 * (i + j % 7) - 0.3);
    } else {
      for (auto e = sparse.ptr[i]; e < sparse.ptr[i + 1]; ++e)
        ta.emplace_back(i, sparse.col[e], sparse.val[e]);
    }
  }
  const auto sb = libra::ref::random(500, 500, 5, 92, 0.0);
  for (std::int64_t k = 0; k < 500; ++k) {
    if (k < 100) {
      for (std::int64_t j = 0; j < 100; ++j)
        tb.emplace_back(k, j, 0.02 * (k % 5) - j * 0.001);
    } else {
      for (auto e = sb.ptr[k]; e < sb.ptr[k + 1]; ++e)
        tb.emplace_back(k, sb.col[e], sb.val[e]);
    }
  }
  const auto a = libra::ref::from_triplets(400, 500, ta);
  const auto b = libra::ref::from_triplets(500, 500, tb);
  const std::uint64_t rows = rows_with_products(a, b);
  for (const bool gpu_style : {true, false}) {
    for (const Calls calls : {Calls::one_shot, Calls::two_phase}) {
      auto o = gpu_style ? binned() : panel();
      o.tuning.small_nnz = 0;
      o.tuning.dense_panel_rows = 64;
      o.tuning.dense_panel_products = 1000;
      for (const double density : {0.0, 0.5}) {  // the default, and one that takes it
        o.tuning.dense_panel_density = density;
        const std::uint64_t dense =
            density > 0 || libra::LaunchTraits<Exec>::is_gpu ? 64u : 0u;
        const auto st = check_product<TypeParam>(a, b, o, calls);
        EXPECT_EQ(st.paths.dense_panels, dense) << density;
        EXPECT_EQ(st.paths.hash_in_scratch + st.paths.bitmap + st.paths.host_dense,
                  rows - dense);
      }
      // Dense panels off (a density above 1): the sparse paths take every row.
      o.tuning.dense_panel_density = 2;
      const auto off = check_product<TypeParam>(a, b, o, calls);
      EXPECT_EQ(off.paths.dense_panels, 0u);
      EXPECT_EQ(off.paths.hash_in_scratch + off.paths.bitmap + off.paths.host_dense,
                rows);
    }
  }
}

TEST(SpgemmPanelHost, GroupsOfSeveralThreadsOnTheHost) {
  if (libra::LaunchTraits<Exec>::is_gpu || Exec().concurrency() < 2) {
    GTEST_SKIP() << Exec::name() << " runs teams of one thread";
  }
  auto o = binned();
  o.tuning.host_team_threads = 2;
  const auto g = skewed(3000, 61);
  const auto st = check_product<Types<double, int, int>>(g, g, o);
  EXPECT_GT(st.paths.thread_groups, 0u);
  EXPECT_GT(st.paths.bitmap + st.paths.hash_in_scratch, st.paths.thread_groups);
}

TEST(SpgemmPanelHost, UnsortedColumnsWhenAllowed) {
  const auto g = skewed(3000, 71);
  for (const double ratio : {1.0, 0.0}) {  // packed column words and single bits
    auto o = panel();
    o.sort_columns = false;
    o.tuning.host_word_ratio = ratio;
    const auto st = check_product<Types<double, int, int>>(g, g, o);
    if (!libra::LaunchTraits<Exec>::is_gpu) {
      EXPECT_EQ(st.paths.unsorted, rows_with_products(g, g));
      EXPECT_EQ(st.paths.host_packed_words, ratio > 0 ? st.paths.unsorted : 0u);
    } else {
      EXPECT_EQ(st.paths.unsorted, 0u);
    }
  }
}

// The rows of A·B with 1 to `most` distinct columns spread wider than twice
// their count in 64-column words (the host fill ranks those when unpacked).
std::uint64_t spread_rows_within(const libra::ref::Matrix& a, const libra::ref::Matrix& b,
                                 std::int64_t most) {
  std::uint64_t n = 0;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    std::set<std::int64_t> cols;
    for (auto e = a.ptr[i]; e < a.ptr[i + 1]; ++e) {
      const auto k = a.col[e];
      cols.insert(b.col.begin() + b.ptr[k], b.col.begin() + b.ptr[k + 1]);
    }
    const auto count = static_cast<std::int64_t>(cols.size());
    n += count > 0 && count <= most &&
         (*cols.rbegin() >> 6) - (*cols.begin() >> 6) + 1 > 2 * count;
  }
  return n;
}

// Rows of C sparse in a wide range: the host fill reads their words in order
// off the word flags, or sorts them (span 0), with packed words and without
// (new columns told by marks or by bits); without packed words, rows of few
// columns are ranked instead (host_rank_columns: none, some, all); pattern and
// values exact every way. Each row of C here has about 24 columns among 30,000
// (469 words): too spread for a scan of the range, close enough for the flags
// (8 flag words). 401 rows: the last block of rows is short.
TEST(SpgemmPanelHost, WordFlagsSortedOrRankedWords) {
  const auto a = libra::ref::random(401, 20000, 6, 93, 0.0);
  const auto b = libra::ref::random(20000, 30000, 4, 94, 0.0);
  const std::uint64_t rows = rows_with_products(a, b);
  const std::uint64_t some = spread_rows_within(a, b, 22);
  ASSERT_GT(some, rows / 10);  // the middle setting ranks some rows, not all
  ASSERT_LT(some, rows - rows / 10);
  // Every row too spread for a scan (a row of one or two columns is not).
  const std::uint64_t all = spread_rows_within(a, b, 1 << 20);
  ASSERT_GT(all, rows - rows / 20);
  for (const double ratio : {1.0, 0.0, -1.0}) {
    for (const int span : {0, 4, 1 << 20}) {
      for (const int rank : {0, 22, 1 << 20}) {
        for (const Calls calls : {Calls::one_shot, Calls::two_phase}) {
          auto o = panel();
          // Copied rows (A's rows of one nonzero) are never ordered: off here,
          // so that every row walks the ordering.
          o.tuning.host_direct_entries = 0;
          // -1: unpacked, with bits instead of marks.
          o.tuning.host_word_ratio = std::max(ratio, 0.0);
          o.tuning.host_mark_columns = ratio < 0 ? 0 : 1 << 20;
          o.tuning.host_flag_span = span;
          o.tuning.host_rank_columns = rank;
          const auto st = check_product<Types<double, int, int>>(a, b, o, calls);
          if (libra::LaunchTraits<Exec>::is_gpu) {
            EXPECT_EQ(st.paths.host_word_flags, 0u);
            EXPECT_EQ(st.paths.host_marks, 0u);
            EXPECT_EQ(st.paths.host_ranked, 0u);
            continue;
          }
          EXPECT_EQ(st.paths.host_dense, rows);
          EXPECT_EQ(st.paths.host_marks, ratio == 0.0 ? rows : 0u);
          // Only a fill ranks (the numeric pass reads C's known columns).
          const std::uint64_t ranked = ratio == 1.0 || rank == 0 ? 0
                                       : rank == 22              ? some
                                                                 : all;
          EXPECT_EQ(st.paths.host_ranked, ranked);
          if (span == 0) {
            EXPECT_EQ(st.paths.host_word_flags, 0u);
          } else if (ranked < all) {
            EXPECT_GT(st.paths.host_word_flags, (all - ranked) / 2);
          } else {
            EXPECT_EQ(st.paths.host_word_flags, 0u);
          }
        }
      }
    }
  }
  // Unsorted rows take the words as they came: no flags, no ranks.
  auto o = panel();
  o.sort_columns = false;
  o.tuning.host_flag_span = 1 << 20;
  o.tuning.host_word_ratio = 0;
  const auto st = check_product<Types<double, int, int>>(a, b, o);
  EXPECT_EQ(st.paths.host_word_flags, 0u);
  EXPECT_EQ(st.paths.host_ranked, 0u);
}

// B's rows are packed into column words only where that spares enough
// products a row of A (Tuning::host_word_row_saving). A band of 3 columns a
// row packs into about a third of its nonzeros, but its rows have 9 products:
// unpacked by default, packed with the rule off (the ratio alone). A band of
// 33 columns (about a run a row, up to 1,089 products a row) packs either way.
TEST(SpgemmPanelHost, WordsPackedWhereTheySpareEnoughProducts) {
  if (libra::LaunchTraits<Exec>::is_gpu) GTEST_SKIP() << "host dense accumulators only";
  for (const std::int64_t h : {1, 16}) {
    const auto b = libra::test::band(3000, h);
    for (const double saving :
         {libra::SpgemmOptions().tuning.host_word_row_saving, 0.0}) {
      SCOPED_TRACE("half-width " + std::to_string(h) + ", saving " +
                   std::to_string(saving));
      auto o = panel();
      o.tuning.host_word_row_saving = saving;
      for (const Calls calls : {Calls::one_shot, Calls::two_phase}) {
        const auto st = check_product<Types<double, int, int>>(b, b, o, calls);
        const bool packed = h == 16 || saving == 0;
        EXPECT_GT(st.paths.host_dense, 0u);
        EXPECT_EQ(st.paths.host_packed_words, packed ? st.paths.host_dense : 0u);
      }
    }
  }
}

// B whose rows list their columns out of order (a user's matrix may): the
// packed words of a row then repeat words, and every path must still be exact.
// Columns within 64 of each other are swapped, so packing sees runs interleave.
TEST(SpgemmPanelHost, UnsortedRowsOfB) {
  using Csr = libra::Csr<double, int, int, Device>;
  const auto a = libra::ref::random(400, 900, 8, 91, 0.0);
  const auto b = libra::ref::random(900, 700, 30, 92, 0.0);
  const auto expected = libra::ref::spgemm(a, b);
  const Csr A = libra::test::from_ref<double, int, int, Device>(a);
  // b with each row reversed: columns descending.
  auto rb = b;
  for (std::int64_t i = 0; i < rb.rows; ++i) {
    std::reverse(rb.col.begin() + rb.ptr[i], rb.col.begin() + rb.ptr[i + 1]);
    std::reverse(rb.val.begin() + rb.ptr[i], rb.val.begin() + rb.ptr[i + 1]);
  }
  const Csr B = libra::test::from_ref<double, int, int, Device>(rb);
  std::vector<libra::SpgemmOptions> options;
  for (const double ratio : {1.0, 0.0}) {
    auto o = panel();
    o.tuning.host_word_ratio = ratio;
    options.push_back(o);
  }
  options.push_back(binned());
  for (const auto& o : options) {
    libra::SpgemmStats st;
    const Csr C = libra::spgemm(Exec(), A, B, o, &st);
    EXPECT_TRUE(libra::test::same_matrix(expected, libra::test::to_ref(C), 1e-12));
    if (!libra::LaunchTraits<Exec>::is_gpu && o.dense_accumulator) {
      EXPECT_EQ(st.paths.host_packed_words,
                o.tuning.host_word_ratio > 0 ? st.paths.host_dense : 0u);
    }
  }
}

// Rows of A with one nonzero are B's row scaled on host spaces, and rows with
// two merge their two rows of B, when those rows list their columns in
// increasing order: every third row of A here has one nonzero and every third
// two, and B's rows are increasing, reversed (a user's B may be), of one
// column, or empty. Exact in one call and in two phases, sorted or not; the
// rows copied and merged counted exactly, none merged with host_direct_entries
// 1, none either with 0. A
// diagonal A (bcsstm25's shape) is copied whole.
TEST(SpgemmPanelHost, RowsOfOneOrTwoEntriesComeStraightFromB) {
  const auto base = libra::ref::random(600, 900, 6, 95, 0.0);
  std::vector<libra::ref::Triplet> ta;
  for (std::int64_t i = 0; i < base.rows; ++i) {
    const auto most = i % 3 == 0 ? 1 : i % 3 == 1 ? 2 : base.ptr[i + 1] - base.ptr[i];
    for (auto e = base.ptr[i]; e < base.ptr[i + 1] && e < base.ptr[i] + most; ++e) {
      ta.push_back({i, base.col[e], base.val[e] - 0.5});
    }
  }
  const auto a = libra::ref::from_triplets(base.rows, base.cols, ta);
  auto b = libra::ref::random(900, 700, 12, 96, 0.0);
  std::vector<libra::ref::Triplet> tb;
  for (std::int64_t k = 0; k < b.rows; ++k) {
    if (k % 7 == 3) continue;  // empty
    for (auto q = b.ptr[k]; q < b.ptr[k + 1]; ++q) {
      tb.push_back({k, b.col[q], b.val[q] - 0.5});
      if (k % 7 == 5) break;  // one column
    }
  }
  b = libra::ref::from_triplets(b.rows, b.cols, tb);
  auto rb = b;  // every fourth row of B reversed
  for (std::int64_t k = 0; k < rb.rows; k += 4) {
    std::reverse(rb.col.begin() + rb.ptr[k], rb.col.begin() + rb.ptr[k + 1]);
    std::reverse(rb.val.begin() + rb.ptr[k], rb.val.begin() + rb.ptr[k + 1]);
  }
  const std::uint64_t copied = copied_rows(a, rb);
  const std::uint64_t merged = merged_rows(a, rb);
  ASSERT_GT(copied, 50u);
  ASSERT_GT(merged, 50u);
  // Some rows select a reversed row of B, and stay with the accumulator.
  ASSERT_LT(copied, copied_rows(a, b));
  ASSERT_LT(merged, merged_rows(a, b));
  using Csr = libra::Csr<double, int, int, Device>;
  const Csr A = libra::test::from_ref<double, int, int, Device>(a);
  const Csr B = libra::test::from_ref<double, int, int, Device>(rb);
  const auto expected = libra::ref::spgemm(a, b);
  for (const int direct : {2, 1, 0}) {
    for (const bool sorted : {true, false}) {
      for (const Calls calls : {Calls::one_shot, Calls::two_phase}) {
        auto o = panel();
        o.tuning.host_direct_entries = direct;
        o.sort_columns = sorted;
        libra::SpgemmStats st;
        Csr C;
        if (calls == Calls::one_shot) {
          C = libra::spgemm(Exec(), A, B, o, &st);
        } else {
          libra::SpgemmHandle<double, int, int, Device> h(o);
          libra::spgemm_symbolic(Exec(), h, A, B, C);
          libra::spgemm_numeric(Exec(), h, A, B, C);
          st = h.stats();
        }
        auto got = libra::test::to_ref(C);
        if (!sorted) {
          got =
              libra::ref::from_triplets(got.rows, got.cols, libra::ref::to_triplets(got));
        }
        EXPECT_TRUE(libra::test::same_matrix(expected, got, 1e-12));
        const bool host = !libra::LaunchTraits<Exec>::is_gpu;
        EXPECT_EQ(st.paths.host_copied, host && direct >= 1 ? copied : 0u);
        EXPECT_EQ(st.paths.host_merged, host && direct >= 2 ? merged : 0u);
      }
    }
  }
  // A diagonal A times B in order: every row with products copied.
  std::vector<libra::ref::Triplet> td;
  for (std::int64_t i = 0; i < b.rows; ++i) td.push_back({i, i, 1.0 + 0.25 * (i % 5)});
  const auto d = libra::ref::from_triplets(b.rows, b.rows, td);
  libra::SpgemmStats st;
  const Csr C =
      libra::spgemm(Exec(), libra::test::from_ref<double, int, int, Device>(d),
                    libra::test::from_ref<double, int, int, Device>(b), panel(), &st);
  EXPECT_TRUE(
      libra::test::same_matrix(libra::ref::spgemm(d, b), libra::test::to_ref(C), 1e-12));
  if (!libra::LaunchTraits<Exec>::is_gpu) {
    EXPECT_EQ(st.paths.host_copied, rows_with_products(d, b));
  }
}

// Numeric reuses the pattern: new values, same handle, same C; the handle's
// memory stays flat over many calls.
TEST(SpgemmPanelHandle, NumericReusesThePattern) {
  using Csr = libra::Csr<double, int, int, Device>;
  for (const bool dense : {true, false}) {
    auto o = panel();
    o.dense_accumulator = dense;
    const auto g = skewed(2000, 81);
    Csr A = libra::test::from_ref<double, int, int, Device>(g);
    libra::SpgemmHandle<double, int, int, Device> h(o);
    Csr C;
    libra::spgemm_symbolic(Exec(), h, A, A, C);
    EXPECT_EQ(h.algorithm(), SpgemmAlgorithm::panel);
    libra::spgemm_numeric(Exec(), h, A, A, C);
    const std::size_t bytes = h.workspace_bytes();
    auto g2 = g;
    for (auto& v : g2.val) v = v * 2 - 0.25;
    const Csr A2 = libra::test::from_ref<double, int, int, Device>(g2);
    const Csr A2same(A.num_rows, A.num_cols, A.row_map, A.col_idx, A2.values);
    for (int r = 0; r < 20; ++r) libra::spgemm_numeric(Exec(), h, A2same, A2same, C);
    EXPECT_EQ(h.workspace_bytes(), bytes);
    std::vector<double> scale;
    const auto expected = libra::ref::spgemm(g2, g2, &scale);
    EXPECT_TRUE(
        libra::test::same_matrix(expected, libra::test::to_ref(C), 1e-12, &scale));
  }
}

}  // namespace spgemm_panel_test

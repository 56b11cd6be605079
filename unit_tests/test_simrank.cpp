// libra::simrank against the recurrence computed on the host: a dense reference
// (plain loops over std::vector, with a mask that tracks which entries the sparse
// products create) for small graphs, and a sparse one built on the reference
// oracle's Gustavson product for ca-GrQc.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "libra/apps/simrank.hpp"
#include "libra/io/read.hpp"
#include "support/compare.hpp"
#include "support/test_space.hpp"

namespace simrank_test {

using libra::ref::Matrix;
using libra::ref::Triplet;
using libra::test::Device;
using libra::test::Exec;

struct Params {
  double decay = 0.8;
  int iterations = 5;
  double threshold = 1e-4;
};

// What the references report per iteration, to check SimrankIterationStats.
struct RefIteration {
  std::uint64_t nnz = 0;
  std::uint64_t pruned = 0;
  std::uint64_t products = 0;
};

// The documented pruning rule: values equal to the threshold up to a relative 1e-6
// (libra::simrank_tie_tolerance) are kept, so rounding cannot split a tie.
bool survives(double v, double threshold) {
  return !(std::fabs(v) < threshold * (1 - 1e-6));
}

// ---- dense reference ---------------------------------------------------------------

// Row-major n x n values plus the structural pattern of the same recurrence.
struct DenseState {
  std::int64_t n = 0;
  std::vector<double> val;
  std::vector<char> present;
};

DenseState dense_normalized(const Matrix& W) {
  const std::int64_t n = W.rows;
  DenseState w{n, std::vector<double>(n * n, 0.0), std::vector<char>(n * n, 0)};
  std::vector<double> column_sum(n, 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t p = W.ptr[i]; p < W.ptr[i + 1]; ++p) {
      w.val[i * n + W.col[p]] = W.val[p];
      w.present[i * n + W.col[p]] = 1;
      column_sum[W.col[p]] += std::fabs(W.val[p]);
    }
  }
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      if (column_sum[j] != 0)
        w.val[i * n + j] /= column_sum[j];
      else
        w.val[i * n + j] = 0;
    }
  }
  return w;
}

Matrix dense_to_ref(const DenseState& s) {
  std::vector<Triplet> t;
  for (std::int64_t i = 0; i < s.n; ++i) {
    for (std::int64_t j = 0; j < s.n; ++j) {
      if (s.present[i * s.n + j]) t.emplace_back(i, j, s.val[i * s.n + j]);
    }
  }
  return libra::ref::from_triplets(s.n, s.n, std::move(t));
}

Matrix dense_simrank(const Matrix& W, const Params& p, std::vector<RefIteration>* log) {
  const std::int64_t n = W.rows;
  const DenseState w = dense_normalized(W);
  DenseState s{n, std::vector<double>(n * n, 0.0), std::vector<char>(n * n, 0)};
  for (std::int64_t i = 0; i < n; ++i) {
    s.val[i * n + i] = 1;
    s.present[i * n + i] = 1;
  }
  for (int k = 0; k < p.iterations; ++k) {
    RefIteration it;
    DenseState t{n, std::vector<double>(n * n, 0.0), std::vector<char>(n * n, 0)};
    for (std::int64_t i = 0; i < n; ++i) {  // T = Wn^T * S
      for (std::int64_t j = 0; j < n; ++j) {
        for (std::int64_t l = 0; l < n; ++l) {
          if (!w.present[l * n + i] || !s.present[l * n + j]) continue;
          t.val[i * n + j] += w.val[l * n + i] * s.val[l * n + j];
          t.present[i * n + j] = 1;
          ++it.products;
        }
      }
    }
    DenseState next{n, std::vector<double>(n * n, 0.0), std::vector<char>(n * n, 0)};
    for (std::int64_t i = 0; i < n; ++i) {  // P = T * Wn
      for (std::int64_t j = 0; j < n; ++j) {
        for (std::int64_t l = 0; l < n; ++l) {
          if (!t.present[i * n + l] || !w.present[l * n + j]) continue;
          next.val[i * n + j] += t.val[i * n + l] * w.val[l * n + j];
          next.present[i * n + j] = 1;
          ++it.products;
        }
      }
    }
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        double& v = next.val[i * n + j];
        v *= p.decay;
        if (i == j) {
          v += 1 - p.decay;
          next.present[i * n + j] = 1;
        }
        if (next.present[i * n + j] && !survives(v, p.threshold)) {
          next.present[i * n + j] = 0;
          v = 0;
          ++it.pruned;
        }
        it.nnz += next.present[i * n + j];
      }
    }
    s = std::move(next);
    if (log) log->push_back(it);
  }
  return dense_to_ref(s);
}

// ---- sparse reference (oracle products, host pruning) --------------------------

Matrix sparse_normalized(const Matrix& W) {
  std::vector<double> column_sum(W.cols, 0.0);
  for (std::int64_t p = 0; p < W.nnz(); ++p) column_sum[W.col[p]] += std::fabs(W.val[p]);
  Matrix w = W;
  for (std::int64_t p = 0; p < w.nnz(); ++p) {
    const double sum = column_sum[w.col[p]];
    w.val[p] = sum != 0 ? w.val[p] / sum : 0;
  }
  return w;
}

Matrix sparse_simrank(const Matrix& W, const Params& p, std::vector<RefIteration>* log) {
  const Matrix wn = sparse_normalized(W);
  const Matrix wnt = libra::ref::transpose(wn);
  std::vector<Triplet> diagonal;
  for (std::int64_t i = 0; i < W.rows; ++i) diagonal.emplace_back(i, i, 1.0);
  Matrix s = libra::ref::from_triplets(W.rows, W.rows, diagonal);
  for (int k = 0; k < p.iterations; ++k) {
    RefIteration it;
    const Matrix t = libra::ref::spgemm(wnt, s);
    it.products =
        libra::ref::spgemm_products(wnt, s) + libra::ref::spgemm_products(t, wn);
    const Matrix product = libra::ref::spgemm(t, wn);
    std::vector<Triplet> entries;
    for (std::int64_t i = 0; i < product.rows; ++i) {
      bool has_diagonal = false;
      for (std::int64_t q = product.ptr[i]; q < product.ptr[i + 1]; ++q) {
        double v = p.decay * product.val[q];
        if (product.col[q] == i) {
          v += 1 - p.decay;
          has_diagonal = true;
        }
        if (survives(v, p.threshold))
          entries.emplace_back(i, product.col[q], v);
        else
          ++it.pruned;
      }
      if (!has_diagonal) {
        if (survives(1 - p.decay, p.threshold))
          entries.emplace_back(i, i, 1 - p.decay);
        else
          ++it.pruned;
      }
    }
    s = libra::ref::from_triplets(W.rows, W.rows, std::move(entries));
    it.nnz = static_cast<std::uint64_t>(s.nnz());
    if (log) log->push_back(it);
  }
  return s;
}

// ---- comparison --------------------------------------------------------------------

// Same entries with values within tol; an entry may be present on one side only
// when its value lies within tol of the threshold (rounding decided the pruning).
::testing::AssertionResult close_matrices(const Matrix& expected, const Matrix& got,
                                          double tol, double threshold) {
  if (expected.rows != got.rows || expected.cols != got.cols) {
    return ::testing::AssertionFailure()
           << "shape " << got.rows << "x" << got.cols << ", expected " << expected.rows
           << "x" << expected.cols;
  }
  const auto borderline = [&](double v) {
    return std::fabs(v) < threshold + tol;
  };
  for (std::int64_t i = 0; i < expected.rows; ++i) {
    std::int64_t p = expected.ptr[i], q = got.ptr[i];
    const std::int64_t pe = expected.ptr[i + 1], qe = got.ptr[i + 1];
    while (p < pe || q < qe) {
      if (q < qe && q + 1 < qe && got.col[q] >= got.col[q + 1]) {
        return ::testing::AssertionFailure()
               << "row " << i << " is not sorted and unique";
      }
      const std::int64_t ce = p < pe ? expected.col[p] : expected.cols;
      const std::int64_t cg = q < qe ? got.col[q] : got.cols;
      if (ce == cg) {
        if (!(std::fabs(expected.val[p] - got.val[q]) <= tol)) {
          return ::testing::AssertionFailure()
                 << "(" << i << ", " << ce << "): " << got.val[q] << ", expected "
                 << expected.val[p];
        }
        ++p;
        ++q;
      } else if (ce < cg) {
        if (!borderline(expected.val[p])) {
          return ::testing::AssertionFailure()
                 << "(" << i << ", " << ce << ") missing, expected " << expected.val[p];
        }
        ++p;
      } else {
        if (!borderline(got.val[q])) {
          return ::testing::AssertionFailure()
                 << "(" << i << ", " << cg << ") = " << got.val[q] << " is not expected";
        }
        ++q;
      }
    }
  }
  return ::testing::AssertionSuccess();
}

template <class S, class O, class Off>
struct Types {
  using Csr = libra::Csr<S, O, Off, Device>;
  static double tol() { return std::is_same<S, double>::value ? 1e-12 : 1e-5; }
  static bool exact_pattern() { return std::is_same<S, double>::value; }
};

template <class T>
class Simrank : public ::testing::Test {};
using TypeList =
    ::testing::Types<Types<double, int, int>, Types<float, int, std::size_t>>;
TYPED_TEST_SUITE(Simrank, TypeList);

template <class S>
Matrix rounded(Matrix m) {
  for (auto& v : m.val) v = static_cast<double>(static_cast<S>(v));
  return m;
}

template <class Csr>
Csr on_device(const Matrix& m) {
  return libra::test::from_ref<typename Csr::scalar_type, typename Csr::ordinal_type,
                               typename Csr::offset_type, Device>(m);
}

libra::SimrankOptions options_of(const Params& p) {
  libra::SimrankOptions o;
  o.decay = p.decay;
  o.iterations = p.iterations;
  o.threshold = p.threshold;
  return o;
}

// S agrees with S^T up to rounding.
::testing::AssertionResult symmetric(const Matrix& s, double tol, double threshold) {
  return close_matrices(libra::ref::transpose(s), s, tol, threshold);
}

// Runs libra::simrank and the reference on W and compares result and stats.
template <class T>
void check(const Matrix& w0, const Params& p, bool dense = true,
           libra::SpgemmAlgorithm algorithm = libra::SpgemmAlgorithm::automatic) {
  using S = typename T::Csr::scalar_type;
  const Matrix w = rounded<S>(w0);
  std::vector<RefIteration> log;
  const Matrix expected = dense ? dense_simrank(w, p, &log) : sparse_simrank(w, p, &log);
  auto options = options_of(p);
  options.spgemm.algorithm = algorithm;
  const auto result = libra::simrank(Exec(), on_device<typename T::Csr>(w), options);
  for (const auto& it : result.iterations) {
    // Wn^T * S_k reads Wn^T by columns off Wn; T * Wn transposes T (lbGEMM only).
    EXPECT_EQ(it.left.paths.a_transposed, 0u);
    if (algorithm == libra::SpgemmAlgorithm::outer && it.right.products > 0) {
      EXPECT_GT(it.right.paths.a_transposed, 0u);
    }
  }
  const Matrix got = libra::test::to_ref(result.similarity);
  EXPECT_TRUE(close_matrices(expected, got, T::tol(), p.threshold));
  EXPECT_TRUE(symmetric(got, T::tol(), p.threshold));
  ASSERT_EQ(result.iterations.size(), static_cast<std::size_t>(p.iterations));
  if (p.iterations > 0) {
    EXPECT_EQ(result.iterations.back().nnz, static_cast<std::uint64_t>(got.nnz()));
  }
  if (!T::exact_pattern() && p.threshold > 0)
    return;  // float may prune borderline entries
  EXPECT_EQ(got.nnz(), expected.nnz());
  for (int k = 0; k < p.iterations; ++k) {
    const auto& it = result.iterations[k];
    EXPECT_EQ(it.nnz, log[k].nnz) << "iteration " << k;
    EXPECT_EQ(it.pruned, log[k].pruned) << "iteration " << k;
    EXPECT_EQ(it.products, log[k].products) << "iteration " << k;
    EXPECT_EQ(it.products, it.left.products + it.right.products);
  }
}

// 6 nodes: node 5 has no in-edges (column 5 empty), node 3 a self loop, edge
// weights other than 1 (one negative) so the normalisation by absolute sums shows.
Matrix hand_made() {
  return libra::ref::from_triplets(6, 6,
                                   {{0, 1, 1.0},
                                    {0, 2, 2.0},
                                    {1, 2, 1.0},
                                    {2, 0, 1.0},
                                    {2, 3, 1.0},
                                    {3, 3, 1.0},
                                    {3, 4, -1.5},
                                    {4, 1, 1.0},
                                    {5, 0, 1.0},
                                    {5, 3, 0.5}});
}

Matrix weights_from_magnitudes(Matrix m) {
  for (auto& v : m.val) v = std::fabs(v);
  return m;
}

Matrix unit_weights(Matrix m) {
  for (auto& v : m.val) v = 1;
  return m;
}

Matrix undirected(const Matrix& m) {
  std::vector<Triplet> t = libra::ref::to_triplets(m);
  for (const auto& [i, j, v] : libra::ref::to_triplets(m)) t.emplace_back(j, i, v);
  return unit_weights(libra::ref::from_triplets(m.rows, m.cols, std::move(t)));
}

TYPED_TEST(Simrank, HandMadeGraphWithEmptyColumnAndSelfLoop) {
  check<TypeParam>(hand_made(), {0.8, 6, 1e-4});
  check<TypeParam>(hand_made(), {0.6, 3, 0.0});
  check<TypeParam>(hand_made(), {0.8, 5, 0.05});  // prunes hard
}

TYPED_TEST(Simrank, DirectedRandomGraphs) {
  const Matrix g = libra::ref::random(120, 120, 3, 7);
  check<TypeParam>(weights_from_magnitudes(g), {0.8, 5, 1e-4});
  check<TypeParam>(unit_weights(g), {0.8, 4, 1e-3});
  check<TypeParam>(unit_weights(libra::ref::random(90, 90, 2, 8, 0.3)), {0.7, 3, 0.0});
}

TYPED_TEST(Simrank, OnLbgemm) {
  const Matrix g = libra::ref::random(120, 120, 3, 7);
  check<TypeParam>(weights_from_magnitudes(g), {0.8, 5, 1e-4}, true,
                   libra::SpgemmAlgorithm::outer);
  check<TypeParam>(hand_made(), {0.8, 5, 0.05}, true, libra::SpgemmAlgorithm::outer);
}

TYPED_TEST(Simrank, UndirectedGraph) {
  check<TypeParam>(undirected(libra::ref::random(150, 150, 2, 9)), {0.8, 5, 1e-4});
}

TYPED_TEST(Simrank, CaGrQc) {
  using Csr = typename TypeParam::Csr;
  const std::string path = std::string(LIBRA_TEST_DATA_DIR) + "/ca-GrQc.mtx";
  const auto t = libra::io::read_triplets(path);
  std::vector<Triplet> entries;
  for (std::size_t p = 0; p < t.row.size(); ++p)
    entries.emplace_back(t.row[p], t.col[p], t.val[p]);
  const Matrix w =
      libra::ref::from_triplets(t.info.rows, t.info.cols, std::move(entries));
  const Params p{0.8, 2, 1e-4};
  std::vector<RefIteration> log;
  const Matrix expected = sparse_simrank(w, p, &log);
  const auto W =
      libra::io::read_matrix<typename Csr::scalar_type, typename Csr::ordinal_type,
                             typename Csr::offset_type, Device>(path);
  const auto result = libra::simrank(Exec(), W, options_of(p));
  const Matrix got = libra::test::to_ref(result.similarity);
  EXPECT_TRUE(close_matrices(expected, got, TypeParam::tol(), p.threshold));
  EXPECT_TRUE(symmetric(got, TypeParam::tol(), p.threshold));
  ASSERT_EQ(result.iterations.size(), 2u);
  for (int k = 0; k < p.iterations; ++k) {
    if (TypeParam::exact_pattern()) EXPECT_EQ(result.iterations[k].nnz, log[k].nnz);
    EXPECT_EQ(result.iterations[k].left.products + result.iterations[k].right.products,
              result.iterations[k].products);
  }
}

// The two references are test code too: they must agree with each other.
TEST(SimrankReference, DenseAndSparseReferencesAgree) {
  const Params p{0.8, 4, 1e-4};
  for (const Matrix& g :
       {hand_made(), weights_from_magnitudes(libra::ref::random(80, 80, 3, 5))}) {
    std::vector<RefIteration> dense_log, sparse_log;
    EXPECT_TRUE(close_matrices(dense_simrank(g, p, &dense_log),
                               sparse_simrank(g, p, &sparse_log), 1e-13, 0.0));
    for (int k = 0; k < p.iterations; ++k) {
      EXPECT_EQ(dense_log[k].nnz, sparse_log[k].nnz);
      EXPECT_EQ(dense_log[k].pruned, sparse_log[k].pruned);
      EXPECT_EQ(dense_log[k].products, sparse_log[k].products);
    }
  }
}

// One iteration of the hand-made graph worked out by hand, so the references are
// anchored to the formula: S_1 = c Wn^T Wn + (1 - c) I.
TEST(SimrankReference, OneIterationByHand) {
  // Column sums of |W|: col0 = 2, col1 = 2, col2 = 3, col3 = 2.5, col4 = 1.5, col5 = 0.
  // S_1(0, 0) = c * sum_l Wn(l,0)^2 + (1 - c) = 0.8 * (0.25 + 0.25) + 0.2 = 0.6.
  // S_1(1, 2) = c * sum_l Wn(l,1) Wn(l,2) = 0.8 * (0.5 * 2/3) (only l = 0 hits both).
  // S_1(5, 5) = 1 - c: nothing points at node 5.
  const Matrix s = dense_simrank(hand_made(), {0.8, 1, 0.0}, nullptr);
  const auto at = [&](std::int64_t i, std::int64_t j) {
    for (std::int64_t p = s.ptr[i]; p < s.ptr[i + 1]; ++p)
      if (s.col[p] == j) return s.val[p];
    return std::numeric_limits<double>::quiet_NaN();
  };
  EXPECT_NEAR(at(0, 0), 0.6, 1e-15);
  EXPECT_NEAR(at(1, 2), 0.8 * 0.5 * 2.0 / 3.0, 1e-15);
  EXPECT_NEAR(at(5, 5), 0.2, 1e-15);
  EXPECT_EQ(s.ptr[6] - s.ptr[5], 1);  // row 5 holds its diagonal only
}

TYPED_TEST(Simrank, ZeroIterationsGiveTheIdentity) {
  const auto W = on_device<typename TypeParam::Csr>(hand_made());
  libra::SimrankOptions o;
  o.iterations = 0;
  o.threshold = 2.0;  // the identity is S_0, not a pruned step
  const auto result = libra::simrank(Exec(), W, o);
  std::vector<Triplet> diagonal;
  for (std::int64_t i = 0; i < 6; ++i) diagonal.emplace_back(i, i, 1.0);
  EXPECT_TRUE(libra::test::same_matrix(libra::ref::from_triplets(6, 6, diagonal),
                                       libra::test::to_ref(result.similarity), 0.0));
  EXPECT_TRUE(result.iterations.empty());
}

TYPED_TEST(Simrank, ThresholdZeroKeepsEveryEntry) {
  const Matrix g = unit_weights(libra::ref::random(60, 60, 2, 12, 0.2));
  const auto result = libra::simrank(Exec(), on_device<typename TypeParam::Csr>(g),
                                     options_of({0.8, 3, 0.0}));
  // Without pruning S_k's pattern is that of the structural recurrence: compare
  // with the oracle's products of the 0/1 pattern.
  const Matrix gt = libra::ref::transpose(g);
  std::vector<Triplet> diagonal;
  for (std::int64_t i = 0; i < 60; ++i) diagonal.emplace_back(i, i, 1.0);
  const Matrix identity = libra::ref::from_triplets(60, 60, diagonal);
  Matrix pattern = identity;
  for (int k = 0; k < 3; ++k) {
    const Matrix product = libra::ref::spgemm(libra::ref::spgemm(gt, pattern), g);
    auto t = libra::ref::to_triplets(product);
    for (const auto& d : libra::ref::to_triplets(identity)) t.push_back(d);
    pattern = unit_weights(libra::ref::from_triplets(60, 60, std::move(t)));
  }
  const Matrix got = libra::test::to_ref(result.similarity);
  EXPECT_EQ(got.ptr, pattern.ptr);
  EXPECT_EQ(got.col, pattern.col);
  for (const auto& it : result.iterations) EXPECT_EQ(it.pruned, 0u);
}

TYPED_TEST(Simrank, EmptyGraph) {
  const auto result = libra::simrank(
      Exec(), on_device<typename TypeParam::Csr>(libra::ref::from_triplets(0, 0, {})));
  EXPECT_EQ(result.similarity.num_rows, 0);
  EXPECT_EQ(result.similarity.nnz(), 0u);
  EXPECT_EQ(result.iterations.size(), 5u);
}

TYPED_TEST(Simrank, ProgressIsReportedAfterEveryIteration) {
  std::vector<std::pair<int, int>> calls;
  libra::SimrankOptions o;
  o.iterations = 4;
  o.progress = [&](int done, int total) {
    calls.emplace_back(done, total);
  };
  libra::simrank(Exec(), on_device<typename TypeParam::Csr>(hand_made()), o);
  const std::vector<std::pair<int, int>> expected{{1, 4}, {2, 4}, {3, 4}, {4, 4}};
  EXPECT_EQ(calls, expected);
}

TYPED_TEST(Simrank, InvalidArgumentsThrow) {
  const auto W = on_device<typename TypeParam::Csr>(hand_made());
  const auto with = [](auto change) {
    libra::SimrankOptions o;
    change(o);
    return o;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const double c : {0.0, 1.0, -0.5, 1.5, nan}) {
    EXPECT_THROW(libra::simrank(Exec(), W, with([c](auto& o) { o.decay = c; })),
                 libra::ArgumentError)
        << c;
  }
  EXPECT_THROW(libra::simrank(Exec(), W, with([](auto& o) { o.iterations = -1; })),
               libra::ArgumentError);
  for (const double t : {-1e-4, nan, std::numeric_limits<double>::infinity()}) {
    EXPECT_THROW(libra::simrank(Exec(), W, with([t](auto& o) { o.threshold = t; })),
                 libra::ArgumentError)
        << t;
  }
  const auto rectangular =
      on_device<typename TypeParam::Csr>(libra::ref::random(5, 7, 2, 3));
  EXPECT_THROW(libra::simrank(Exec(), rectangular), libra::ShapeError);
}

}  // namespace simrank_test

// Partial formats (pCSR, pCSC, pCOO) and partitioning by equal nonzeros: for
// 1, 2, 3, more parts than rows, nnz and more parts than nonzeros, on matrices
// with empty rows, a single huge row, rectangular, empty, and the files in
// unit_tests/data, the parts must (a) hold the parent's nonzeros in place (views
// into its arrays, no copy), nnz balanced to one, (b) tile the rows (columns)
// with the start flag exactly where a row is split, and (c) reassemble the
// parent exactly through their local offsets. The device and host methods must
// give the same plan.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "libra/format/convert.hpp"
#include "libra/format/partial.hpp"
#include "libra/io/read.hpp"
#include "support/compare.hpp"
#include "support/matrix_files.hpp"
#include "support/test_space.hpp"

namespace partial_test {

using libra::test::Device;
using libra::test::Exec;
using Csr = libra::Csr<double, int, int, Device>;
using Csc = libra::Csc<double, int, int, Device>;
using Coo = libra::Coo<double, int, int, Device>;

template <class V>
auto host(const V& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
}

// The ranges tile [0, lines) and the nonzeros [0, nnz) with balanced sizes; the
// start flag is set exactly when the first line began in an earlier part.
template <class Part>
void check_ranges(const std::vector<Part>& parts, std::int64_t lines, std::int64_t nnz,
                  const std::vector<std::int64_t>& line_of_first_nz_owner) {
  const std::int64_t P = static_cast<std::int64_t>(parts.size());
  ASSERT_FALSE(parts.empty());
  EXPECT_EQ(parts.front().start, 0);
  EXPECT_FALSE(parts.front().start_flag);
  EXPECT_EQ(parts.back().end, lines);
  EXPECT_EQ(parts.back().end_idx, nnz);
  for (std::int64_t i = 0; i < P; ++i) {
    const auto& p = parts[static_cast<std::size_t>(i)];
    SCOPED_TRACE("part " + std::to_string(i) + " of " + std::to_string(P));
    EXPECT_EQ(p.index, i);
    EXPECT_EQ(p.parts, P);
    EXPECT_LE(p.start, p.end);
    EXPECT_GE(p.nnz(), nnz / P);
    EXPECT_LE(p.nnz(), (nnz + P - 1) / P);
    if (i > 0) {
      const auto& q = parts[static_cast<std::size_t>(i - 1)];
      EXPECT_EQ(p.start_idx, q.end_idx);
      EXPECT_EQ(p.start, q.end - (p.start_flag ? 1 : 0));
    }
    // Flag: the first nonzero is not the first of its line.
    if (p.start_idx < nnz && i > 0) {
      const bool shared =
          line_of_first_nz_owner[static_cast<std::size_t>(p.start_idx)] < p.start_idx;
      EXPECT_EQ(p.start_flag, shared);
    }
  }
}

// first_of_line[g] = index of the first nonzero of g's line (from the offsets).
template <class OffsetsHost>
std::vector<std::int64_t> first_of_line(const OffsetsHost& ptr) {
  std::vector<std::int64_t> f;
  for (std::size_t i = 0; i + 1 < ptr.extent(0); ++i)
    for (auto p = ptr(i); p < ptr(i + 1); ++p) f.push_back(ptr(i));
  return f;
}

template <class PartA, class PartB>
void check_same_plan(const std::vector<PartA>& a, const std::vector<PartB>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].start_idx, b[i].start_idx);
    EXPECT_EQ(a[i].end_idx, b[i].end_idx);
    EXPECT_EQ(a[i].start, b[i].start);
    EXPECT_EQ(a[i].end, b[i].end);
    EXPECT_EQ(a[i].start_flag, b[i].start_flag);
  }
}

// The parts of a compressed matrix put back together: every nonzero g gets its
// line from the part's local offsets, and the result must equal the parent.
template <class Part, class LocalOffsets, class Minor>
libra::ref::Matrix reassemble(const std::vector<Part>& parts, std::int64_t rows,
                              std::int64_t cols, std::int64_t nnz, bool by_column,
                              LocalOffsets local_offsets, Minor minor) {
  std::vector<std::int64_t> seen(static_cast<std::size_t>(nnz), 0);
  std::vector<libra::ref::Triplet> t;
  for (const auto& p : parts) {
    const auto lp = host(local_offsets(p));
    const auto mi = host(minor(p));
    const auto v = host(p.values);
    EXPECT_EQ(static_cast<std::int64_t>(lp.extent(0)), p.lines() + 1);
    EXPECT_EQ(lp(0), 0);
    EXPECT_EQ(lp(lp.extent(0) - 1), p.nnz());
    for (std::int64_t j = 0; j < p.lines(); ++j) {
      for (auto q = lp(j); q < lp(j + 1); ++q) {
        ++seen[static_cast<std::size_t>(p.start_idx + q)];
        const std::int64_t line = p.start + j;
        if (by_column) {
          t.emplace_back(mi(q), line, v(q));
        } else {
          t.emplace_back(line, mi(q), v(q));
        }
      }
    }
  }
  for (std::int64_t g = 0; g < nnz; ++g) EXPECT_EQ(seen[g], 1) << "nonzero " << g;
  return libra::ref::from_triplets(rows, cols, std::move(t));
}

std::vector<int> part_counts(std::int64_t rows, std::int64_t nnz) {
  std::vector<int> counts{1, 2, 3, 5, 8, static_cast<int>(rows) + 3};
  if (nnz > 0) counts.push_back(static_cast<int>(nnz));
  counts.push_back(static_cast<int>(nnz) + 4);  // more parts than nonzeros
  return counts;
}

void check_matrix(const libra::ref::Matrix& a) {
  SCOPED_TRACE(std::to_string(a.rows) + " x " + std::to_string(a.cols) + ", nnz " +
               std::to_string(a.nnz()));
  const Csr A = libra::test::from_ref<double, int, int, Device>(a);
  const Csc C = libra::to_csc(Exec(), A);
  const Coo O = libra::to_coo(Exec(), A);
  const auto hptr = host(A.row_map);
  const auto hcptr = host(C.col_map);
  const auto row_first = first_of_line(hptr);
  const auto col_first = first_of_line(hcptr);
  for (int P : part_counts(a.rows, a.nnz())) {
    SCOPED_TRACE("P = " + std::to_string(P));
    // pCSR
    const auto pr = libra::partition(Exec(), A, P);
    check_same_plan(pr, libra::partition(Exec(), A, P, libra::PartitionMethod::host));
    check_ranges(pr, a.rows, a.nnz(), row_first);
    for (const auto& p : pr) {  // views into the parent's arrays
      EXPECT_EQ(p.col_idx.data(), A.col_idx.data() + p.start_idx);
      EXPECT_EQ(p.values.data(), A.values.data() + p.start_idx);
      EXPECT_EQ(p.local().num_rows, p.lines());
    }
    const auto r = reassemble(
        pr, a.rows, a.cols, a.nnz(), false, [](const auto& p) { return p.row_map; },
        [](const auto& p) { return p.col_idx; });
    EXPECT_TRUE(libra::test::same_matrix(a, r, 0));
    // The host method's local offsets are the device method's.
    const auto hr = libra::partition(Exec(), A, P, libra::PartitionMethod::host);
    for (std::size_t i = 0; i < pr.size(); ++i) {
      const auto x = host(pr[i].row_map), y = host(hr[i].row_map);
      ASSERT_EQ(x.extent(0), y.extent(0));
      for (std::size_t k = 0; k < x.extent(0); ++k) EXPECT_EQ(x(k), y(k));
    }
    // pCSC
    const auto pc = libra::partition(Exec(), C, P);
    check_same_plan(pc, libra::partition(Exec(), C, P, libra::PartitionMethod::host));
    check_ranges(pc, a.cols, a.nnz(), col_first);
    const auto c = reassemble(
        pc, a.rows, a.cols, a.nnz(), true, [](const auto& p) { return p.col_map; },
        [](const auto& p) { return p.row_idx; });
    EXPECT_TRUE(libra::test::same_matrix(a, c, 0));
    // pCOO: the same ranges as pCSR; every entry's row inside its part's range.
    const auto po = libra::partition(Exec(), O, P);
    check_same_plan(po, libra::partition(Exec(), O, P, libra::PartitionMethod::host));
    check_same_plan(po, pr);
    std::vector<libra::ref::Triplet> t;
    for (const auto& p : po) {
      EXPECT_EQ(p.row_idx.data(), O.row_idx.data() + p.start_idx);
      const auto ri = host(p.row_idx), ci = host(p.col_idx);
      const auto v = host(p.values);
      for (std::size_t q = 0; q < ri.extent(0); ++q) {
        EXPECT_GE(ri(q), p.start_row());
        EXPECT_LT(ri(q), p.end_row());
        t.emplace_back(ri(q), ci(q), v(q));
      }
    }
    EXPECT_TRUE(libra::test::same_matrix(
        a, libra::ref::from_triplets(a.rows, a.cols, std::move(t)), 0));
  }
}

libra::ref::Matrix from_rows(std::int64_t rows, std::int64_t cols,
                             const std::vector<std::int64_t>& lengths) {
  std::vector<libra::ref::Triplet> t;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t k = 0; k < lengths[static_cast<std::size_t>(i)]; ++k)
      t.emplace_back(i, (k * 7 + i) % cols, 1.0 + static_cast<double>(i * 3 + k));
  return libra::ref::from_triplets(rows, cols, std::move(t));
}

TEST(Partial, RandomRectangularWithEmptyRows) {
  check_matrix(libra::ref::random(40, 23, 3, 5, 0.3));
  check_matrix(libra::ref::random(17, 60, 4, 6, 0.2));
}

TEST(Partial, SingleHugeRowSplitAcrossParts) {
  // Row 2 holds 200 of the 206 nonzeros; leading, trailing and middle rows empty.
  check_matrix(from_rows(6, 400, {0, 1, 200, 0, 5, 0}));
  check_matrix(from_rows(1, 97, {97}));
}

TEST(Partial, EmptyMatrices) {
  check_matrix(from_rows(5, 4, {0, 0, 0, 0, 0}));
  check_matrix(libra::ref::Matrix{});  // 0 x 0
}

TEST(Partial, MatrixFiles) {
  for (const auto& f : libra::test::matrix_files(LIBRA_TEST_DATA_DIR)) {
    if (f.find("west2021") == std::string::npos &&
        f.find("lp_afiro") == std::string::npos)
      continue;  // two small files keep the O(P * nnz) checks quick
    SCOPED_TRACE(f);
    const auto A = libra::io::read_matrix<double, int, int, Device>(f);
    check_matrix(libra::test::to_ref(A));
  }
}

// MSREP's baseline: equal row counts, rows never split (no start flags).
TEST(Partial, RowBlocks) {
  for (const auto& a :
       {libra::ref::random(40, 23, 3, 7, 0.3), from_rows(6, 400, {0, 1, 200, 0, 5, 0})}) {
    const Csr A = libra::test::from_ref<double, int, int, Device>(a);
    for (int P : {1, 2, 3, 6, 11}) {
      SCOPED_TRACE("P = " + std::to_string(P));
      const auto parts = libra::partition_rows(Exec(), A, P);
      check_same_plan(parts,
                      libra::partition_rows(Exec(), A, P, libra::PartitionMethod::host));
      for (int i = 0; i < P; ++i) {
        const auto& p = parts[static_cast<std::size_t>(i)];
        EXPECT_EQ(p.start_row(), i * a.rows / P);
        EXPECT_EQ(p.end_row(), (i + 1) * a.rows / P);
        EXPECT_FALSE(p.start_flag);
        EXPECT_EQ(p.start_idx, a.ptr[static_cast<std::size_t>(p.start_row())]);
      }
      const auto r = reassemble(
          parts, a.rows, a.cols, a.nnz(), false, [](const auto& p) { return p.row_map; },
          [](const auto& p) { return p.col_idx; });
      EXPECT_TRUE(libra::test::same_matrix(a, r, 0));
    }
  }
}

TEST(Partial, Errors) {
  const Csr A =
      libra::test::from_ref<double, int, int, Device>(libra::ref::random(9, 9, 2, 1));
  EXPECT_THROW(libra::partition(Exec(), A, 0), libra::ArgumentError);
  // An unsorted Coo cannot be cut into row ranges.
  Coo::index_type r("r", 3), c("c", 3);
  Coo::values_type v("v", 3);
  auto hr = Kokkos::create_mirror_view(r);
  hr(0) = 2;
  hr(1) = 0;
  hr(2) = 1;
  Kokkos::deep_copy(r, hr);
  const Coo U(3, 3, r, c, v);
  EXPECT_THROW(libra::partition(Exec(), U, 2), libra::ArgumentError);
  EXPECT_THROW(libra::partition(Exec(), U, 2, libra::PartitionMethod::host),
               libra::ArgumentError);
}

}  // namespace partial_test

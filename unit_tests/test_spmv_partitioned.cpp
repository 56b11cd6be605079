// Partitioned SpMV as MSREP's multi-GPU code runs it, in one process: A cut
// into P parts of equal nonzeros (pCSR, pCSC, pCOO; device and host
// partitioning), each part's SpMV into its own partial result, then the merge
// (row segments plus shared boundary rows; or the sum of full-length vectors).
// For P = 1..8 and more parts than rows, vectors and K = 3 blocks, alpha/beta
// combinations, the merged y must equal the whole-matrix libra::spmv and the
// reference oracle; on generated matrices (empty rows, a hub row split across
// every part) and the matrix files.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "libra/format/convert.hpp"
#include "libra/io/read.hpp"
#include "libra/spmv/partitioned.hpp"
#include "support/compare.hpp"
#include "support/matrix_files.hpp"
#include "support/spmv_check.hpp"
#include "support/test_space.hpp"

namespace spmv_partitioned_test {

using libra::test::Device;
using libra::test::Exec;
using Csr = libra::Csr<double, int, int, Device>;

// y after the merge equals the whole matrix's SpMV from the same y (and the
// oracle, through check_spmv).
template <class Layout, bool Rank1, class Matrix, class Parts>
void check_merge(const libra::ref::Matrix& a, const Matrix& whole, const Parts& parts,
                 std::int64_t K, double alpha, double beta, std::int64_t items = 0) {
  libra::SpmvOptions o;
  o.tuning.segment_items = items;
  libra::test::check_spmv<double, Device, Layout, Rank1>(
      a, K, alpha, beta, [&](const auto& x, const auto& y) {
        // The whole matrix's SpMV from the same y, in a copy of it.
        auto yw = Kokkos::create_mirror(Device::memory_space(), y);
        Kokkos::deep_copy(yw, y);
        libra::spmv(Exec(), alpha, whole, x, beta, yw);
        libra::PartitionedSpmvStats st;
        libra::spmv_partitioned(Exec(), alpha, parts, x, beta, y, o, &st);
        EXPECT_EQ(st.parts, static_cast<int>(parts.size()));
        const auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
        const auto hw = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), yw);
        int failures = 0;
        for (std::size_t i = 0; i < hy.extent(0) && failures < 5; ++i) {
          for (std::size_t k = 0; k < hy.extent(1) && failures < 5; ++k) {
            const double got = libra::impl::spmv_at(hy, i, k);
            const double want = libra::impl::spmv_at(hw, i, k);
            if (!(std::fabs(got - want) <= 1e-11 * (1 + std::fabs(want)))) {
              ADD_FAILURE() << "merged y(" << i << ", " << k << ") = " << got
                            << ", whole-matrix SpMV " << want;
              ++failures;
            }
          }
        }
      });
}

template <class Layout, bool Rank1>
void check_every_format(const libra::ref::Matrix& a, int P, std::int64_t K, double alpha,
                        double beta, std::int64_t items = 0) {
  SCOPED_TRACE("P = " + std::to_string(P));
  const Csr A = libra::test::from_ref<double, int, int, Device>(a);
  const auto C = libra::to_csc(Exec(), A);
  const auto O = libra::to_coo(Exec(), A);
  for (auto method : {libra::PartitionMethod::device, libra::PartitionMethod::host}) {
    SCOPED_TRACE(method == libra::PartitionMethod::device ? "device" : "host");
    {
      SCOPED_TRACE("pcsr");
      check_merge<Layout, Rank1>(a, A, libra::partition(Exec(), A, P, method), K, alpha,
                                 beta, items);
    }
    {
      SCOPED_TRACE("pcsc");
      check_merge<Layout, Rank1>(a, C, libra::partition(Exec(), C, P, method), K, alpha,
                                 beta, items);
    }
    {
      SCOPED_TRACE("pcoo");
      check_merge<Layout, Rank1>(a, O, libra::partition(Exec(), O, P, method), K, alpha,
                                 beta, items);
    }
  }
}

TEST(SpmvPartitioned, OneToEightParts) {
  const auto a = libra::ref::random(90, 70, 5, 21, 0.2);
  for (int P = 1; P <= 8; ++P) {
    check_every_format<Kokkos::LayoutLeft, true>(a, P, 1, 1, 0);
    check_every_format<Kokkos::LayoutRight, false>(a, P, 3, 2, -0.5);
    check_every_format<Kokkos::LayoutLeft, false>(a, P, 2, -1, 1, 5);  // short segments
  }
  check_every_format<Kokkos::LayoutLeft, true>(a, 0 + 97, 1, 1,
                                               2);              // more parts than rows
  check_every_format<Kokkos::LayoutLeft, true>(a, 5, 1, 0, 3);  // alpha = 0
}

TEST(SpmvPartitioned, HubRowAcrossEveryPart) {
  std::vector<libra::ref::Triplet> t;
  for (std::int64_t j = 0; j < 400; ++j) t.emplace_back(3, j, 1.0 + (j % 5));
  for (std::int64_t i = 0; i < 40; i += 2) t.emplace_back(i, i, -2.0);
  const auto a = libra::ref::from_triplets(40, 400, t);
  for (int P : {2, 3, 8, 50, 500}) {
    check_every_format<Kokkos::LayoutLeft, true>(a, P, 1, 1.5, -1);
    check_every_format<Kokkos::LayoutRight, false>(a, P, 3, 1, 0, 7);
  }
  check_every_format<Kokkos::LayoutLeft, true>(libra::ref::from_triplets(6, 4, {}), 3, 1,
                                               1, 2);  // no nonzeros
}

TEST(SpmvPartitioned, MatrixFiles) {
  for (const auto& f : libra::test::matrix_files(libra::test::matrix_dir())) {
    SCOPED_TRACE(f);
    const auto a =
        libra::test::to_ref(libra::io::read_matrix<double, int, int, Device>(f));
    check_every_format<Kokkos::LayoutLeft, true>(a, 4, 1, 1, 0);
    check_every_format<Kokkos::LayoutRight, false>(a, 7, 2, 1, 1);
  }
}

TEST(SpmvPartitioned, PartsOfOnePartition) {
  const Csr A =
      libra::test::from_ref<double, int, int, Device>(libra::ref::random(20, 20, 3, 22));
  Kokkos::View<double*, Device> x("x", 20), y("y", 20);
  auto parts = libra::partition(Exec(), A, 3);
  const decltype(parts) none;
  EXPECT_THROW(libra::spmv_partitioned(Exec(), 1.0, none, x, 0.0, y),
               libra::ArgumentError);
  auto missing = parts;
  missing.pop_back();
  EXPECT_THROW(libra::spmv_partitioned(Exec(), 1.0, missing, x, 0.0, y),
               libra::ArgumentError);
  std::swap(parts[0], parts[1]);
  EXPECT_THROW(libra::spmv_partitioned(Exec(), 1.0, parts, x, 0.0, y),
               libra::ArgumentError);
}

}  // namespace spmv_partitioned_test

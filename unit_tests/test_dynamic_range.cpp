// dynamic_for and dynamic_reduce (core/dynamic_range.hpp): every index of the
// range exactly once, with and without a work tag, whatever the chunk, on the
// path each space takes.
#include <gtest/gtest.h>

#include <cstdint>

#include "libra/core/dynamic_range.hpp"
#include "support/test_space.hpp"

namespace dynamic_range_test {

using libra::test::Exec;
using Counts = Kokkos::View<int*, Exec::memory_space>;

struct Second {};  // a work tag

// Counts its visits of each index; with the tag, twice as many.
struct Visit {
  using value_type = std::int64_t;  // what the reducing calls add
  Counts counts;
  std::int64_t begin;
  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    Kokkos::atomic_add(&counts(i - begin), 1);
  }
  KOKKOS_FUNCTION void operator()(Second, const std::int64_t i) const {
    Kokkos::atomic_add(&counts(i - begin), 2);
  }
  KOKKOS_FUNCTION void operator()(const std::int64_t i, std::int64_t& sum) const {
    (*this)(i);
    sum += i;
  }
  KOKKOS_FUNCTION void operator()(Second, const std::int64_t i, std::int64_t& sum) const {
    (*this)(Second(), i);
    sum += 2 * i;
  }
};

// Visits of [begin, end) once per index (times `weight`), and nothing else.
void expect_each(const Counts& counts, int weight) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts);
  for (std::size_t i = 0; i < h.extent(0); ++i) ASSERT_EQ(h(i), weight) << "index " << i;
}

std::int64_t sum_of(std::int64_t begin, std::int64_t end) {
  return (end - begin) * (begin + end - 1) / 2;
}

TEST(DynamicRange, PathOfThisSpace) {
  // Host spaces with several threads take chunks from the shared counter; Serial
  // and GPUs run a plain range.
  const Exec exec;
  EXPECT_EQ(libra::impl::takes_chunks(exec),
            libra::is_host_exec<Exec> && exec.concurrency() > 1);
}

TEST(DynamicRange, ForVisitsEveryIndexOnce) {
  const Exec exec;
  for (const std::int64_t begin : {0, 3, 1000}) {
    for (const std::int64_t n : {1, 2, 7, 100, 10007}) {
      for (const std::int64_t chunk : {0, 1, 3, 64, 20000}) {
        SCOPED_TRACE(testing::Message()
                     << "begin " << begin << " n " << n << " chunk " << chunk);
        Counts counts("counts", n);
        libra::impl::dynamic_for("test::dynamic_for", exec, begin, begin + n, chunk,
                                 Visit{counts, begin});
        exec.fence();
        expect_each(counts, 1);
        Counts tagged("tagged", n);
        libra::impl::dynamic_for<Second>("test::dynamic_for_tag", exec, begin, begin + n,
                                         chunk, Visit{tagged, begin});
        exec.fence();
        expect_each(tagged, 2);
      }
    }
  }
}

TEST(DynamicRange, ReduceSumsEveryIndexOnce) {
  const Exec exec;
  for (const std::int64_t begin : {0, 5}) {
    for (const std::int64_t n : {1, 3, 100, 10007}) {
      for (const std::int64_t chunk : {0, 1, 5, 20000}) {
        SCOPED_TRACE(testing::Message()
                     << "begin " << begin << " n " << n << " chunk " << chunk);
        Counts counts("counts", n);
        std::int64_t sum = -1;
        libra::impl::dynamic_reduce("test::dynamic_reduce", exec, begin, begin + n, chunk,
                                    Visit{counts, begin}, sum);
        EXPECT_EQ(sum, sum_of(begin, begin + n));
        expect_each(counts, 1);
        Counts tagged("tagged", n);
        libra::impl::dynamic_reduce<Second>("test::dynamic_reduce_tag", exec, begin,
                                            begin + n, chunk, Visit{tagged, begin}, sum);
        EXPECT_EQ(sum, 2 * sum_of(begin, begin + n));
        expect_each(tagged, 2);
      }
    }
  }
}

TEST(DynamicRange, EmptyRangesDoNothing) {
  const Exec exec;
  Counts none("none", 1);
  std::int64_t sum = -1;
  libra::impl::dynamic_reduce("test::empty", exec, 4, 4, 0, Visit{none, 4}, sum);
  EXPECT_EQ(sum, 0);
  libra::impl::dynamic_for("test::empty", exec, 9, 2, 0, Visit{none, 0});
  exec.fence();
  expect_each(none, 0);
}

}  // namespace dynamic_range_test

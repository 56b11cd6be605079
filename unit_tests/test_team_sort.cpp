// group_sort: the groups of one team sort keys of different sizes at once, each
// its own keys[0, n), through as many barriers as the team's largest size
// takes; a group's keys beyond its n stay where they were, and the payload
// follows its keys.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "libra/algorithms/team_sort.hpp"
#include "libra/core/launch_traits.hpp"
#include "support/test_space.hpp"

namespace team_sort_test {

using libra::test::Exec;
using Member = Kokkos::TeamPolicy<Exec>::member_type;
using mem = Exec::memory_space;

constexpr int table = 64;  // keys per group; sizes 2 .. 64

struct SortGroups {
  Kokkos::View<int*, mem> keys, values;
  Kokkos::View<const int*, mem> sizes;  // per group of every team
  int groups = 1;
  KOKKOS_FUNCTION void operator()(const Member& m) const {
    const int g = m.team_rank();
    const int first = m.league_rank() * groups;
    int team_n = 2;
    for (int r = 0; r < groups; ++r)
      team_n = sizes(first + r) > team_n ? sizes(first + r) : team_n;
    const auto range = Kokkos::make_pair((first + g) * table, (first + g + 1) * table);
    libra::impl::group_sort(m, Kokkos::subview(keys, range), sizes(first + g), team_n,
                            libra::impl::payload_of(Kokkos::subview(values, range)));
  }
};

TEST(GroupSort, GroupsOfDifferentSizesInOneTeam) {
  const bool gpu = libra::LaunchTraits<Exec>::is_gpu;
  const int groups = gpu ? 8 : std::min(4, libra::test::max_team_threads());
  const int lanes = gpu ? 4 : 1;
  const int teams = 5;
  const int n = teams * groups;
  std::mt19937 rng(7);
  std::vector<int> sizes(static_cast<std::size_t>(n));
  for (int s = 0; s < n; ++s) sizes[static_cast<std::size_t>(s)] = 2 << (rng() % 6);
  sizes[0] = table;  // a team whose largest size is the table
  std::vector<int> keys(static_cast<std::size_t>(n) * table), values(keys.size());
  for (std::size_t p = 0; p < keys.size(); ++p) {
    keys[p] = static_cast<int>(rng() % 40);  // with repeats
    values[p] = static_cast<int>(p);
  }
  Kokkos::View<int*, mem> k("keys", keys.size()), v("values", keys.size());
  Kokkos::View<int*, mem> z("sizes", sizes.size());
  Kokkos::deep_copy(k, Kokkos::View<int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                           keys.data(), keys.size()));
  Kokkos::deep_copy(v, Kokkos::View<int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                           values.data(), values.size()));
  Kokkos::deep_copy(z, Kokkos::View<int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                           sizes.data(), sizes.size()));
  Kokkos::parallel_for("group_sort", Kokkos::TeamPolicy<Exec>(teams, groups, lanes),
                       SortGroups{k, v, z, groups});
  const auto hk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), k);
  const auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  for (int s = 0; s < n; ++s) {
    const std::size_t base = static_cast<std::size_t>(s) * table;
    const int size = sizes[static_cast<std::size_t>(s)];
    std::vector<std::pair<int, int>> before, after;
    for (int t = 0; t < size; ++t) {
      before.emplace_back(keys[base + t], values[base + t]);
      after.emplace_back(hk(base + t), hv(base + t));
      if (t > 0)
        EXPECT_LE(hk(base + t - 1), hk(base + t)) << "group " << s << " at " << t;
    }
    std::sort(before.begin(), before.end());
    std::sort(after.begin(), after.end());
    EXPECT_EQ(before, after) << "group " << s << ": its keys with their values";
    for (int t = size; t < table; ++t) {
      EXPECT_EQ(hk(base + t), keys[base + t]) << "group " << s << " beyond its size";
      EXPECT_EQ(hv(base + t), values[base + t]);
    }
  }
}

}  // namespace team_sort_test

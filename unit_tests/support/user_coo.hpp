#pragma once
// A Coo filled as a user would fill one: the triplets in the order given,
// duplicates kept (Libra's own Coo is sorted by row, then column, without them).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <tuple>
#include <vector>

#include "libra/format/coo.hpp"
#include "libra/reference/reference.hpp"

namespace libra::test {

template <class Coo>
Coo user_coo(std::int64_t rows, std::int64_t cols, const std::vector<ref::Triplet>& t) {
  using O = typename Coo::ordinal_type;
  using S = typename Coo::scalar_type;
  typename Coo::index_type r("row_idx", t.size()), c("col_idx", t.size());
  typename Coo::values_type v("values", t.size());
  auto hr = Kokkos::create_mirror_view(r);
  auto hc = Kokkos::create_mirror_view(c);
  auto hv = Kokkos::create_mirror_view(v);
  for (std::size_t e = 0; e < t.size(); ++e) {
    hr(e) = static_cast<O>(std::get<0>(t[e]));
    hc(e) = static_cast<O>(std::get<1>(t[e]));
    hv(e) = static_cast<S>(std::get<2>(t[e]));
  }
  Kokkos::deep_copy(r, hr);
  Kokkos::deep_copy(c, hc);
  Kokkos::deep_copy(v, hv);
  return Coo(static_cast<O>(rows), static_cast<O>(cols), r, c, v);
}

}  // namespace libra::test

#pragma once
// A pCSR part cut into pieces of about equal nonzeros, so that each piece's rows
// of y can leave for the root as soon as they are computed while the next piece
// is computed. Each piece gets offsets of its own that start at 0, so the CSR
// kernels take it as a matrix of its own: piece c's lines [line[c], line[c+1])
// have their offsets at [line[c] + c, line[c+1] + c] of one array (lines + count
// entries), and their nonzeros at [nz[c], nz[c+1]) of the part's arrays.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "libra/algorithms/search.hpp"

namespace libra::dist::impl {

template <class Off, class Mem>
struct Pieces {
  int count = 1;
  std::vector<std::int64_t> line;   // count + 1
  std::vector<std::int64_t> nz;     // count + 1
  Kokkos::View<Off*, Mem> offsets;  // the part's own where count is 1
  std::int64_t lines(int c) const {
    const auto k = static_cast<std::size_t>(c);
    return line[k + 1] - line[k];
  }
};

// Local offsets (lines + 1 entries, starting at 0) cut at the given lines
// (line.front() 0, line.back() the line count, non-decreasing): each piece's
// nonzeros, and offsets of its own where there are several pieces.
template <class Exec, class Off, class Mem>
Pieces<Off, Mem> pieces_at(const Exec& exec, const Kokkos::View<Off*, Mem>& offsets,
                           const std::vector<std::int64_t>& line) {
  Pieces<Off, Mem> p;
  p.count = static_cast<int>(line.size()) - 1;
  p.line = line;
  const int count = p.count;
  const std::int64_t L = line.back();
  Kokkos::View<std::int64_t* [2], Kokkos::LayoutRight, Kokkos::HostSpace> host(
      "libra::dist::piece_bounds", line.size());
  for (std::size_t c = 0; c < line.size(); ++c) host(c, 0) = line[c];
  const auto bounds = Kokkos::create_mirror_view_and_copy(Mem(), host);
  Kokkos::parallel_for(
      "libra::dist::piece_nonzeros", Kokkos::RangePolicy<Exec>(exec, 0, count + 1),
      KOKKOS_LAMBDA(const std::int64_t c) {
        bounds(c, 1) = static_cast<std::int64_t>(offsets(bounds(c, 0)));
      });
  Kokkos::deep_copy(exec, host, bounds);
  exec.fence();
  for (int c = 0; c <= count; ++c) p.nz.push_back(host(c, 1));
  if (count == 1) {
    p.offsets = offsets;
    return p;
  }
  p.offsets = Kokkos::View<Off*, Mem>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing,
                         std::string("libra::dist::piece_offsets")),
      static_cast<std::size_t>(L + count));
  const auto out = p.offsets;
  Kokkos::parallel_for(
      "libra::dist::piece_offsets", Kokkos::RangePolicy<Exec>(exec, 0, L + count),
      KOKKOS_LAMBDA(const std::int64_t e) {
        int c = 0;  // the last piece starting at or before e (count is small)
        while (c + 1 < count && bounds(c + 1, 0) + c + 1 <= e) ++c;
        out(e) = offsets(e - c) - offsets(bounds(c, 0));
      });
  exec.fence();  // `bounds` dies here
  return p;
}

// Cuts local offsets (lines + 1 entries, starting at 0) into `count` pieces:
// piece c starts at the first line whose offset reaches c/count of the
// nonzeros. (Free functions: nvcc refuses device lambdas in private members.)
template <class Exec, class Off, class Mem>
Pieces<Off, Mem> cut_pieces(const Exec& exec, const Kokkos::View<Off*, Mem>& offsets,
                            int count) {
  const std::int64_t L = static_cast<std::int64_t>(offsets.extent(0)) - 1;
  Kokkos::View<std::int64_t*, Mem> first("libra::dist::piece_lines",
                                         static_cast<std::size_t>(count) + 1);
  Kokkos::parallel_for(
      "libra::dist::piece_lines", Kokkos::RangePolicy<Exec>(exec, 0, count + 1),
      KOKKOS_LAMBDA(const std::int64_t c) {
        const std::int64_t N = static_cast<std::int64_t>(offsets(L));
        const std::int64_t target = N / count * c + N % count * c / count;
        // The first line whose offset reaches the target.
        first(c) = c == count
                       ? L
                       : libra::impl::lower_bound_in<std::int64_t>(offsets, 0, L, target);
      });
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), first);
  return pieces_at(exec, offsets,
                   std::vector<std::int64_t>(host.data(), host.data() + host.extent(0)));
}

}  // namespace libra::dist::impl

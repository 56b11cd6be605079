#pragma once
// Exclusive scans that turn per-item counts into offsets, with overflow detected.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/core/checked.hpp"

namespace libra::impl {

// Named functors, not KOKKOS_LAMBDA, in every helper that many translation units
// instantiate alike: nvcc keeps an extended lambda's copy helper in an anonymous
// namespace, one per translation unit, while the launch code that calls it is
// merged across them at link time; a launch kept from a unit whose helper was
// never set calls a null pointer (`libra spmv --generate band:...` crashed so on
// the GPU in exclusive_scan; ArborX and others met the same nvcc bug).
template <class CountView, class OffsetView>
struct ExclusiveScanOp {
  using value_type = std::uint64_t;
  using offset_t = typename OffsetView::non_const_value_type;
  CountView counts;
  OffsetView offsets;
  std::size_t n;    // counts' length
  bool total_item;  // the range is [0, n], item n writing offsets(n); else [0, n)
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t i, std::uint64_t& sum,
                                         const bool final) const {
    if (final) offsets(i) = static_cast<offset_t>(sum);
    if (i < n) sum += static_cast<std::uint64_t>(counts(i));
    if (final && !total_item && i + 1 == n) offsets(n) = static_cast<offset_t>(sum);
  }
};

// offsets(i) = counts(0) + ... + counts(i-1) for i in [0, n]; offsets has n + 1
// entries. The sum is carried in 64 bits; a total that does not fit the offset
// type throws OverflowError naming `what` (the partial offsets are then garbage).
template <class Exec, class CountView, class OffsetView>
std::uint64_t exclusive_scan(const Exec& exec, const char* label, const CountView& counts,
                             const OffsetView& offsets, const char* what) {
  using offset_t = typename OffsetView::non_const_value_type;
  const std::size_t n = counts.extent(0);
  std::uint64_t total = 0;
  if (n == 0) {
    Kokkos::deep_copy(exec, Kokkos::subview(offsets, 0), offset_t(0));
    return 0;
  }
  Kokkos::parallel_scan(label, Kokkos::RangePolicy<Exec>(exec, 0, n),
                        ExclusiveScanOp<CountView, OffsetView>{counts, offsets, n, false},
                        total);
  checked_cast<offset_t>(total, what);
  return total;
}

// The same without reading the total back: no host synchronisation, for callers
// that know the total cannot overflow (a permutation's offsets, say).
template <class Exec, class CountView, class OffsetView>
void exclusive_scan_async(const Exec& exec, const char* label, const CountView& counts,
                          const OffsetView& offsets) {
  const std::size_t n = counts.extent(0);
  Kokkos::parallel_scan(label, Kokkos::RangePolicy<Exec>(exec, 0, n + 1),
                        ExclusiveScanOp<CountView, OffsetView>{counts, offsets, n, true});
}

// The last entry of an offsets view, read back to the host.
template <class Exec, class OffsetView>
auto last_entry(const Exec& exec, const OffsetView& offsets) {
  typename OffsetView::non_const_value_type v{};
  Kokkos::View<typename OffsetView::non_const_value_type, Kokkos::HostSpace> h(&v);
  Kokkos::deep_copy(exec, h, Kokkos::subview(offsets, offsets.extent(0) - 1));
  exec.fence();
  return v;
}

}  // namespace libra::impl

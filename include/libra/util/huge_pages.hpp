#pragma once
// Large host arrays that are about to be written for the first time (C of a
// product) ask Linux for transparent huge pages. Each first touch of a 4 KiB
// page costs a fault; over hundreds of megabytes those faults took a third of a
// host SpGEMM (email-Enron, 366 MB of C, on the 2-core CI host) and were what
// bounded copying C out of pinned staging on the H100 machine's host. Where the
// system's THP setting is "madvise" (Debian's default) a 2 MiB page then comes
// in per fault; with "always" the advice changes nothing, with "never" it is
// ignored. Elsewhere than Linux this does nothing.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace libra::impl {

// Below this an array's faults are too few to matter.
inline constexpr std::size_t huge_page_min_bytes = std::size_t(8) << 20;

// Advises the whole 2 MiB pages inside [p, p + bytes).
inline void advise_huge_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (p == nullptr || bytes < huge_page_min_bytes) return;
  constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(huge - 1);
  if (end > begin) {
    // Advice only: a kernel without THP refuses it, and nothing else changes.
    (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  }
#else
  (void)p;
  (void)bytes;
#endif
}

// The same for a view's array when it lives in host memory.
template <class View>
void advise_huge_pages(const View& v) noexcept {
  if constexpr (std::is_same<typename View::memory_space, Kokkos::HostSpace>::value) {
    advise_huge_pages(static_cast<void*>(v.data()),
                      v.span() * sizeof(typename View::value_type));
  }
}

}  // namespace libra::impl

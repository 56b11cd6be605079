#pragma once
// Small pieces every public entry point shares.
#include <Kokkos_Core.hpp>

namespace libra::impl {

// A profiling region that is popped however the scope ends (an entry point that
// throws after pushing one must not leave it open).
class ProfilingRegion {
 public:
  explicit ProfilingRegion(const char* name) { Kokkos::Profiling::pushRegion(name); }
  ~ProfilingRegion() { Kokkos::Profiling::popRegion(); }
  ProfilingRegion(const ProfilingRegion&) = delete;
  ProfilingRegion& operator=(const ProfilingRegion&) = delete;
};

template <class T>
struct non_deduced {
  using type = T;
};
// A scalar argument that does not take part in deduction: f(exec, 1.0, A, ...)
// works for float matrices too.
template <class T>
using non_deduced_t = typename non_deduced<T>::type;

}  // namespace libra::impl

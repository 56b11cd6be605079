#pragma once
// The allocations (and, where asked, fences) that Kokkos Tools report while a
// ToolEvents lives or until stop(): how tests assert that a call allocates
// nothing and does not synchronise. Kokkos 3.4 reports fences of instances, not
// every global Kokkos::fence().
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace libra::test {

class ToolEvents {
 public:
  enum What { allocations, allocations_and_fences };
  explicit ToolEvents(What what = allocations_and_fences) {
    active() = this;
    Kokkos::Tools::Experimental::set_allocate_data_callback(on_allocation);
    if (what == allocations_and_fences) {
      Kokkos::Tools::Experimental::set_begin_fence_callback(on_fence);
    }
  }
  ToolEvents(const ToolEvents&) = delete;
  ToolEvents& operator=(const ToolEvents&) = delete;
  ~ToolEvents() { stop(); }

  // Stops listening; the events seen, e.g. "allocation libra::spmv::carry".
  const std::vector<std::string>& stop() {
    if (active() == this) {
      Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
      Kokkos::Tools::Experimental::set_begin_fence_callback(nullptr);
      active() = nullptr;
    }
    return seen_;
  }

 private:
  static ToolEvents*& active() {
    static ToolEvents* a = nullptr;
    return a;
  }
  static void on_allocation(Kokkos::Tools::SpaceHandle, const char* label, const void*,
                            std::uint64_t) {
    if (active()) active()->seen_.push_back(std::string("allocation ") + label);
  }
  static void on_fence(const char* name, std::uint32_t, std::uint64_t*) {
    if (active()) active()->seen_.push_back(std::string("fence ") + name);
  }
  std::vector<std::string> seen_;
};

}  // namespace libra::test

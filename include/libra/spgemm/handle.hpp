#pragma once
// The typed per-call handle of the SpGEMM symbolic/numeric split. A caller whose
// A and B keep their patterns and change only values runs spgemm_symbolic once
// and spgemm_numeric as often as the values change, as with Kokkos Kernels.
// The handle holds the plan of whichever algorithm the symbolic phase ran.
#include <variant>

#include "libra/format/csr.hpp"
#include "libra/spgemm/impl/diagonal.hpp"
#include "libra/spgemm/impl/outer_plan.hpp"
#include "libra/spgemm/impl/panel_plan.hpp"
#include "libra/spgemm/options.hpp"
#include "libra/util/workspace.hpp"

namespace libra {

template <class Scalar, class Ordinal, class Offset, class Device>
class SpgemmHandle {
 public:
  using matrix_type = Csr<Scalar, Ordinal, Offset, Device>;
  using outer_plan_type = impl::OuterPlan<Scalar, Ordinal, Offset, Device>;
  using panel_plan_type = impl::PanelPlan<Scalar, Ordinal, Offset, Device>;
  using diagonal_plan_type = impl::DiagonalPlan<Scalar, Ordinal, Offset, Device>;
  using mem = typename Device::memory_space;

  explicit SpgemmHandle(const SpgemmOptions& options = {}) : options_(options) {}

  const SpgemmOptions& options() const noexcept { return options_; }
  // Statistics of the last symbolic + numeric calls.
  const SpgemmStats& stats() const noexcept { return stats_; }
  bool has_pattern() const noexcept { return has_pattern_; }
  // The algorithm the last symbolic call ran (`automatic` before any).
  SpgemmAlgorithm algorithm() const noexcept { return stats_.algorithm; }

  // Device memory the handle holds for its plan and temporaries right now.
  std::size_t workspace_bytes() const noexcept { return workspace_.owned_bytes(); }

  // Internal state, for Libra's own entry points only.
  std::variant<std::monostate, outer_plan_type, panel_plan_type, diagonal_plan_type>&
  impl_plan() noexcept {
    return plan_;
  }
  // Drops the pattern, the plan and its temporaries: the state of a new handle.
  void impl_reset() {
    has_pattern_ = false;
    plan_ = std::monostate{};
    stats_ = SpgemmStats{};
    workspace_.release();
    workspace_.reset_peak();
  }
  impl::Workspace<mem>& impl_workspace() noexcept { return workspace_; }
  SpgemmStats& impl_stats() noexcept { return stats_; }
  void impl_set_pattern(bool done) noexcept { has_pattern_ = done; }

 private:
  SpgemmOptions options_;
  SpgemmStats stats_;
  bool has_pattern_ = false;
  std::variant<std::monostate, outer_plan_type, panel_plan_type, diagonal_plan_type>
      plan_;
  impl::Workspace<mem> workspace_;  // the plan's temporaries
};

}  // namespace libra

#include "libra/spgemm/options.hpp"

#include "libra/core/error.hpp"

namespace libra {

SpgemmAlgorithm parse_spgemm_algorithm(const std::string& name) {
  if (name == "outer") return SpgemmAlgorithm::outer;
  if (name == "panel") return SpgemmAlgorithm::panel;
  if (name == "cdm") return SpgemmAlgorithm::cdm;
  if (name == "hm") return SpgemmAlgorithm::hm;
  if (name == "auto" || name == "automatic") return SpgemmAlgorithm::automatic;
  throw ArgumentError("unknown SpGEMM algorithm '" + name +
                      "' (expected panel, outer, cdm, hm or auto)");
}

const char* to_string(SpgemmAlgorithm algorithm) noexcept {
  switch (algorithm) {
    case SpgemmAlgorithm::outer:
      return "outer";
    case SpgemmAlgorithm::panel:
      return "panel";
    case SpgemmAlgorithm::cdm:
      return "cdm";
    case SpgemmAlgorithm::hm:
      return "hm";
    case SpgemmAlgorithm::automatic:
      return "auto";
  }
  return "?";
}

}  // namespace libra

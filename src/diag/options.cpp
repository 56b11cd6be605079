#include "libra/diag/options.hpp"

namespace libra {

const char* to_string(DiagonalPath path) noexcept {
  switch (path) {
    case DiagonalPath::none:
      return "none";
    case DiagonalPath::cdm_tiles:
      return "cdm_tiles";
    case DiagonalPath::cdm_columns:
      return "cdm_columns";
    case DiagonalPath::cdm_rows:
      return "cdm_rows";
    case DiagonalPath::hm_entries:
      return "hm_entries";
    case DiagonalPath::hm_pairs:
      return "hm_pairs";
  }
  return "?";
}

}  // namespace libra

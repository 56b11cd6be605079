#include "libra/spmm/options.hpp"

namespace libra {

const char* to_string(SpmmPath path) noexcept {
  switch (path) {
    case SpmmPath::none:
      return "none";
    case SpmmPath::scale_only:
      return "scale_only";
    case SpmmPath::host_rows:
      return "host_rows";
    case SpmmPath::team_panels:
      return "team_panels";
    case SpmmPath::team_staged:
      return "team_staged";
  }
  return "?";
}

}  // namespace libra

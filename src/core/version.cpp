#include "libra/version.hpp"

#include "libra/config.hpp"

namespace libra {

const char* version() noexcept {
  return LIBRA_VERSION_STRING;
}

}  // namespace libra

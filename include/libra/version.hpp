#pragma once

namespace libra {

// Libra's version, "MAJOR.MINOR.PATCH".
const char* version() noexcept;

}  // namespace libra

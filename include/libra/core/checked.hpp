#pragma once
// Narrowing conversions that detect overflow instead of wrapping.
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "libra/core/error.hpp"

namespace libra {

// Returns `value` as T, or throws OverflowError naming `what` when it does not fit.
template <class T, class U>
T checked_cast(U value, const char* what) {
  static_assert(std::is_integral<T>::value && std::is_integral<U>::value,
                "checked_cast converts between integer types");
  bool fits;
  if constexpr (std::is_signed<U>::value) {
    if (value < 0) {
      fits = std::is_signed<T>::value &&
             static_cast<std::intmax_t>(value) >=
                 static_cast<std::intmax_t>(std::numeric_limits<T>::min());
    } else {
      fits = static_cast<std::uintmax_t>(value) <=
             static_cast<std::uintmax_t>(std::numeric_limits<T>::max());
    }
  } else {
    fits = static_cast<std::uintmax_t>(value) <=
           static_cast<std::uintmax_t>(std::numeric_limits<T>::max());
  }
  if (!fits) {
    throw OverflowError(std::string(what) + " (" + std::to_string(value) +
                        ") does not fit the " + std::to_string(sizeof(T) * 8) + "-bit " +
                        (std::is_signed<T>::value ? "signed" : "unsigned") +
                        " type it must be stored in");
  }
  return static_cast<T>(value);
}

// a * b for unsigned 64-bit counts, throwing OverflowError on wrap-around.
inline std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, const char* what) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) {
    throw OverflowError(std::string(what) + " overflows 64 bits");
  }
  return a * b;
}

}  // namespace libra

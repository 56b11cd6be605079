#pragma once
// The nonzeros of a dense matrix's rows, as a row visitor for the CSR builder.
#include <Kokkos_Core.hpp>

namespace libra::impl {

template <class View>
struct DenseNonzeros {
  View dense;
  // Exact zeros are not entries of the sparse matrix.
  template <class O, class Emit>
  KOKKOS_INLINE_FUNCTION void operator()(O i, Emit& emit) const {
    using S = typename View::non_const_value_type;
    const O cols = static_cast<O>(dense.extent(1));
    for (O j = 0; j < cols; ++j) {
      const S v = dense(i, j);
      if (v != S(0)) emit(j, v);
    }
  }
};

}  // namespace libra::impl

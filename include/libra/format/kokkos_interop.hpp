#pragma once
// Zero-copy interoperability with KokkosSparse::CrsMatrix (and so with Tpetra's
// local matrices): both directions share the three views, nothing is copied.
#include <KokkosSparse_CrsMatrix.hpp>
#include <type_traits>

#include "libra/format/csr.hpp"

namespace libra {

// The Csr that shares A's storage. Works for any offset type Tpetra uses (int,
// size_t) and signed ordinals; A's memory traits must be the default (managed).
template <class S, class O, class D, class MT, class Off>
auto from_kokkos(const KokkosSparse::CrsMatrix<S, O, D, MT, Off>& A) {
  static_assert(std::is_void<MT>::value,
                "from_kokkos takes CrsMatrix with default (managed) memory traits");
  static_assert(!std::is_const<S>::value,
                "from_kokkos takes a CrsMatrix of non-const values");
  using In = KokkosSparse::CrsMatrix<S, O, D, MT, Off>;
  using Out = Csr<S, O, Off, typename In::device_type>;
  return Out(A.numRows(), A.numCols(), A.graph.row_map, A.graph.entries, A.values);
}

// The KokkosSparse::CrsMatrix that shares A's storage.
template <class S, class O, class Off, class D>
auto to_kokkos(const Csr<S, O, Off, D>& A) {
  using Out =
      KokkosSparse::CrsMatrix<S, O, typename Csr<S, O, Off, D>::device_type, void, Off>;
  return Out("libra::csr", A.num_rows, A.num_cols, A.nnz(), A.values, A.row_map,
             A.col_idx);
}

}  // namespace libra

#pragma once
// Panels of A for heterogeneous SpGEMM: the rows a side computes, gathered into
// a CSR matrix of their own, in the order the ranking lists them.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstring>

#include "libra/format/csr.hpp"
#include "libra/format/impl/row_builder.hpp"

namespace libra::impl {

// Row i of the panel is row rows(i) of A (a row visitor of row_builder.hpp).
template <class Csr, class Rows>
struct SelectedRows {
  Csr A;
  Rows rows;
  template <class O, class Emit>
  KOKKOS_INLINE_FUNCTION void operator()(O i, Emit& emit) const {
    const auto r = rows(i);
    for (auto q = A.row_map(r); q < A.row_map(r + 1); ++q)
      emit(A.col_idx(q), A.values(q));
  }
};

// The panel of A's rows listed in `rows`, on Exec (which can read A and rows).
template <class D, class Exec, class S, class O, class Off, class AD, class Rows>
Csr<S, O, Off, D> gather_rows(const Exec& exec, const Csr<S, O, Off, AD>& A,
                              const Rows& rows) {
  const auto n = static_cast<O>(rows.extent(0));
  return build_csr<S, O, Off, D>(exec, n, A.num_cols,
                                 SelectedRows<Csr<S, O, Off, AD>, Rows>{A, rows},
                                 "spgemm_hetero: nnz of a panel of A");
}

// Host arrays a panel is gathered into before it is copied to the device.
template <class S, class O, class Off>
struct PanelArrays {
  Off* row_map;
  O* col;
  S* val;
};

// The same on the calling thread, into caller-owned host arrays (staging memory
// that the copy to the device reads); returns the panel's entries.
template <class S, class O, class Off, class AD, class Rows>
std::uint64_t gather_rows_on_this_thread(const Csr<S, O, Off, AD>& A, const Rows& rows,
                                         std::size_t begin, std::size_t end,
                                         const PanelArrays<S, O, Off>& out) {
  Off at = 0;
  out.row_map[0] = 0;
  for (std::size_t p = begin; p < end; ++p) {
    const auto r = rows(p);
    const Off first = A.row_map(r);
    const Off len = A.row_map(r + 1) - first;
    std::memcpy(out.col + at, A.col_idx.data() + first, sizeof(O) * len);
    std::memcpy(out.val + at, A.values.data() + first, sizeof(S) * len);
    at += len;
    out.row_map[p - begin + 1] = at;
  }
  return static_cast<std::uint64_t>(at);
}

}  // namespace libra::impl

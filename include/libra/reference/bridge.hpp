#pragma once
// Moving matrices between Libra's formats (Kokkos Views on any device) and the
// reference oracle's host CSR. Shared by the tests, the CLI's `--algo reference`
// and `--check`, and the benchmarks' checks. The oracle itself (reference.hpp)
// stays free of Kokkos.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "libra/format/csr.hpp"
#include "libra/reference/reference.hpp"

namespace libra::ref {

// A compressed matrix copied to the host exactly as stored (rows not sorted), so
// that ordering mistakes show up when compared.
template <class OffsetView, class IndexView, class ValueView>
Matrix compressed_to_ref(std::int64_t rows, std::int64_t cols, const OffsetView& ptr,
                         const IndexView& idx, const ValueView& val) {
  const auto hp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ptr);
  const auto hi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), idx);
  const auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), val);
  Matrix m;
  m.rows = rows;
  m.cols = cols;
  m.ptr.resize(hp.extent(0));
  for (std::size_t i = 0; i < hp.extent(0); ++i)
    m.ptr[i] = static_cast<std::int64_t>(hp(i));
  m.col.resize(hi.extent(0));
  m.val.resize(hv.extent(0));
  for (std::size_t i = 0; i < hi.extent(0); ++i) {
    m.col[i] = static_cast<std::int64_t>(hi(i));
    m.val[i] = static_cast<double>(hv(i));
  }
  return m;
}

template <class Csr>
Matrix from_csr(const Csr& A) {
  return compressed_to_ref(A.num_rows, A.num_cols, A.row_map, A.col_idx, A.values);
}

// The oracle's matrix as a Csr on Device (values rounded to S).
template <class S, class O, class Off, class Device>
Csr<S, O, Off, Device> to_csr(const Matrix& m) {
  using M = Csr<S, O, Off, Device>;
  typename M::row_map_non_const_type rm("libra::ref::row_map",
                                        static_cast<std::size_t>(m.rows) + 1);
  typename M::index_type ci("libra::ref::col_idx", m.col.size());
  typename M::values_type v("libra::ref::values", m.val.size());
  auto hrm = Kokkos::create_mirror_view(rm);
  auto hci = Kokkos::create_mirror_view(ci);
  auto hv = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < m.ptr.size(); ++i) hrm(i) = static_cast<Off>(m.ptr[i]);
  for (std::size_t i = 0; i < m.col.size(); ++i) {
    hci(i) = static_cast<O>(m.col[i]);
    hv(i) = static_cast<S>(m.val[i]);
  }
  Kokkos::deep_copy(rm, hrm);
  Kokkos::deep_copy(ci, hci);
  Kokkos::deep_copy(v, hv);
  return M(static_cast<O>(m.rows), static_cast<O>(m.cols), rm, ci, v);
}

}  // namespace libra::ref

#pragma once
// The algorithms `libra spgemm --algo` can run: Libra's own, and the baselines
// it is measured against.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "common.hpp"
#include "libra/format/mirror.hpp"
#include "libra/spgemm/spgemm.hpp"
#include "reference/reference.hpp"

namespace libra::cli {

template <class M>
struct AlgorithmResult {
  M C;
  SpgemmStats stats;
  double seconds = 0;
  std::string name;
};

inline std::vector<std::string> spgemm_algorithm_names() {
  return {"auto", "outer", "reference"};
}

template <class M>
ref::Matrix to_reference(const M& A) {
  const auto h = to_host(A);
  ref::Matrix m;
  m.rows = h.num_rows;
  m.cols = h.num_cols;
  m.ptr.assign(h.row_map.data(), h.row_map.data() + h.row_map.extent(0));
  m.col.assign(h.col_idx.data(), h.col_idx.data() + h.col_idx.extent(0));
  m.val.assign(h.values.data(), h.values.data() + h.values.extent(0));
  return m;
}

template <class M>
M from_reference(const ref::Matrix& m) {
  using O = typename M::ordinal_type;
  using Off = typename M::offset_type;
  typename M::row_map_non_const_type rm("libra::cli::C::row_map", m.ptr.size());
  typename M::index_type ci("libra::cli::C::col", m.col.size());
  typename M::values_type v("libra::cli::C::values", m.val.size());
  auto hrm = Kokkos::create_mirror_view(rm);
  auto hci = Kokkos::create_mirror_view(ci);
  auto hv = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < m.ptr.size(); ++i) hrm(i) = static_cast<Off>(m.ptr[i]);
  for (std::size_t i = 0; i < m.col.size(); ++i) {
    hci(i) = static_cast<O>(m.col[i]);
    hv(i) = m.val[i];
  }
  Kokkos::deep_copy(rm, hrm);
  Kokkos::deep_copy(ci, hci);
  Kokkos::deep_copy(v, hv);
  return M(static_cast<O>(m.rows), static_cast<O>(m.cols), rm, ci, v);
}

// The largest |C - oracle| relative to the largest product of its row, or
// infinity when the patterns differ.
template <class M>
double compare_with_reference(const M& A, const M& B, const M& C) {
  std::vector<double> scale;
  const ref::Matrix expected = ref::spgemm(to_reference(A), to_reference(B), &scale);
  const ref::Matrix got = to_reference(C);
  if (got.ptr != expected.ptr || got.col != expected.col) return INFINITY;
  double worst = 0;
  for (std::int64_t i = 0; i < expected.rows; ++i) {
    for (std::int64_t p = expected.ptr[i]; p < expected.ptr[i + 1]; ++p) {
      const double err = std::fabs(got.val[p] - expected.val[p]);
      const double rel = scale[i] > 0 ? err / scale[i] : err;
      if (!(rel <= worst)) worst = rel;  // NaN propagates
    }
  }
  return worst;
}

template <class M>
AlgorithmResult<M> run_spgemm_algorithm(const std::string& algo, const M& A, const M& B,
                                        const SpgemmOptions& options) {
  AlgorithmResult<M> r;
  Space exec;
  if (algo == "reference") {
    const ref::Matrix a = to_reference(A), b = to_reference(B);
    Kokkos::Timer timer;
    const ref::Matrix c = ref::spgemm(a, b);
    r.seconds = timer.seconds();
    r.stats.products = ref::spgemm_products(a, b);
    r.stats.flops = 2 * r.stats.products;
    r.stats.nnz_c = static_cast<std::uint64_t>(c.nnz());
    r.C = from_reference<M>(c);
    r.name = "reference";
    return r;
  }
  exec.fence();
  Kokkos::Timer timer;
  r.C = spgemm(exec, A, B, options, &r.stats);
  exec.fence();
  r.seconds = timer.seconds();
  r.name = to_string(options.algorithm == SpgemmAlgorithm::automatic ? SpgemmAlgorithm::outer
                                                                      : options.algorithm);
  return r;
}

}  // namespace libra::cli

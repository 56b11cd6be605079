#pragma once
// Checking benchmark results on the host against the reference oracle
// (libra/reference/): a result that fails is reported as "wrong: ...",
// never as a time.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "libra/reference/bridge.hpp"
#include "libra/reference/reference.hpp"

namespace libra::bench {

// Libra -> oracle copies (libra/reference/bridge.hpp), under the names the benchmarks
// use.
template <class RowMap, class Index, class Values>
ref::Matrix compressed_to_host(std::int64_t rows, std::int64_t cols,
                               const RowMap& row_map, const Index& idx,
                               const Values& val) {
  return ref::compressed_to_ref(rows, cols, row_map, idx, val);
}
template <class Csr>
ref::Matrix csr_to_host(const Csr& A) {
  return ref::from_csr(A);
}

// For each row i of A * B, the largest |a_ik * b_kj| (0 for an empty row): the
// scale that rounding errors of row i are relative to.
std::vector<double> largest_products(const ref::Matrix& A, const ref::Matrix& B);

// "" when `got` is `expected`: the same shape and number of entries, the same
// columns in every row (got's rows may be unsorted: they are sorted first), and
// every value within rel_tol * row_scale[i]. Otherwise what differs first.
std::string compare_product(const ref::Matrix& expected, ref::Matrix got,
                            const std::vector<double>& row_scale, double rel_tol = 1e-9);

// "" when C * x equals A * (B * x) for a fixed random x, row i within rel_tol times
// (|A| (|B| |x|))_i: a check of C's values (and of entries missing or extra with
// nonzero values) that needs no reference product.
std::string check_product_by_vector(const ref::Matrix& A, const ref::Matrix& B,
                                    const ref::Matrix& C, double rel_tol = 1e-9);

// "" when the two are identical (shape, offsets, indices, values bit for bit).
std::string compare_exact(const ref::Matrix& expected, const ref::Matrix& got);

}  // namespace libra::bench

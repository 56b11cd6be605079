// Uses an installed Libra: makes a small CSR matrix on Kokkos' default execution
// space, converts it to CSC and back, and checks both results on the host against
// the formula that made the matrix. Exit status 0 only when everything matches.
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <cstring>
#include <vector>

#include "libra/config.hpp"
#include "libra/format/convert.hpp"
#include "libra/version.hpp"

namespace consumer {

using Device = Kokkos::Device<Kokkos::DefaultExecutionSpace,
                              Kokkos::DefaultExecutionSpace::memory_space>;
using Matrix = libra::Csr<double, int, int, Device>;

constexpr int kRows = 5;
constexpr int kCols = 6;

// Row 2 and column 4 stay empty so the conversions meet empty rows and columns.
bool present(int i, int j) {
  return i != 2 && j != 4 && (3 * i + 2 * j) % 5 < 2;
}
double value(int i, int j) {
  return 10.0 * (i + 1) + j;
}

Matrix make_matrix() {
  std::vector<int> row_map{0}, col_idx;
  std::vector<double> values;
  for (int i = 0; i < kRows; ++i) {
    for (int j = 0; j < kCols; ++j) {
      if (present(i, j)) {
        col_idx.push_back(j);
        values.push_back(value(i, j));
      }
    }
    row_map.push_back(static_cast<int>(col_idx.size()));
  }
  Matrix::row_map_non_const_type rm("consumer::row_map", row_map.size());
  Matrix::index_type ci("consumer::col_idx", col_idx.size());
  Matrix::values_type v("consumer::values", values.size());
  auto rm_h = Kokkos::create_mirror_view(rm);
  auto ci_h = Kokkos::create_mirror_view(ci);
  auto v_h = Kokkos::create_mirror_view(v);
  for (std::size_t k = 0; k < row_map.size(); ++k) rm_h(k) = row_map[k];
  for (std::size_t k = 0; k < col_idx.size(); ++k) {
    ci_h(k) = col_idx[k];
    v_h(k) = values[k];
  }
  Kokkos::deep_copy(rm, rm_h);
  Kokkos::deep_copy(ci, ci_h);
  Kokkos::deep_copy(v, v_h);
  return Matrix(kRows, kCols, rm, ci, v);
}

int failures = 0;

void expect(bool ok, const char* what, int a, int b) {
  if (!ok) {
    std::fprintf(stderr, "mismatch: %s (%d, %d)\n", what, a, b);
    ++failures;
  }
}

// Column j of the CSC must list exactly the rows i with present(i, j), ascending.
template <class Csc>
void check_csc(const Csc& c) {
  expect(c.num_rows == kRows && c.num_cols == kCols, "csc shape", c.num_rows, c.num_cols);
  auto cm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c.col_map);
  auto ri = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c.row_idx);
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c.values);
  constexpr std::size_t extent = kCols + 1;
  expect(cm.extent(0) == extent, "csc col_map extent", static_cast<int>(cm.extent(0)), 0);
  if (cm.extent(0) != extent) return;
  expect(cm(0) == 0, "csc col_map(0)", cm(0), 0);
  for (int j = 0; j < kCols; ++j) {
    int k = cm(j);
    for (int i = 0; i < kRows; ++i) {
      if (!present(i, j)) continue;
      const bool in_range = k < cm(j + 1) && k < static_cast<int>(ri.extent(0));
      expect(in_range && ri(k) == i, "csc row index at (row, col)", i, j);
      expect(in_range && v(k) == value(i, j), "csc value at (row, col)", i, j);
      ++k;
    }
    expect(k == cm(j + 1), "csc column length of column", j, cm(j + 1) - cm(j));
  }
}

// The round trip must give back the original arrays exactly.
void check_round_trip(const Matrix& original, const Matrix& back) {
  expect(back.num_rows == kRows && back.num_cols == kCols, "csr shape", back.num_rows,
         back.num_cols);
  auto rm0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), original.row_map);
  auto ci0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), original.col_idx);
  auto v0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), original.values);
  auto rm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back.row_map);
  auto ci = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back.col_idx);
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back.values);
  expect(rm.extent(0) == rm0.extent(0) && ci.extent(0) == ci0.extent(0), "csr extents",
         static_cast<int>(rm.extent(0)), static_cast<int>(ci.extent(0)));
  if (rm.extent(0) != rm0.extent(0) || ci.extent(0) != ci0.extent(0)) return;
  for (std::size_t k = 0; k < rm.extent(0); ++k) {
    expect(rm(k) == rm0(k), "csr row_map at", static_cast<int>(k), rm(k));
  }
  for (std::size_t k = 0; k < ci.extent(0); ++k) {
    expect(ci(k) == ci0(k) && v(k) == v0(k), "csr entry at", static_cast<int>(k), ci(k));
  }
}

int run() {
  if (std::strcmp(libra::version(), LIBRA_VERSION_STRING) != 0) {
    std::fprintf(stderr, "libra::version() %s != config.hpp %s\n", libra::version(),
                 LIBRA_VERSION_STRING);
    ++failures;
  }
  const Kokkos::DefaultExecutionSpace exec;
  const Matrix a = make_matrix();
  const auto c = libra::to_csc(exec, a);
  const Matrix back = libra::to_csr(exec, c);
  check_csc(c);
  check_round_trip(a, back);
  std::printf("libra %s on %s: %d entries, %s\n", libra::version(),
              Kokkos::DefaultExecutionSpace::name(), static_cast<int>(a.nnz()),
              failures == 0 ? "CSR -> CSC -> CSR matches" : "MISMATCH");
  return failures == 0 ? 0 : 1;
}

}  // namespace consumer

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  return consumer::run();
}

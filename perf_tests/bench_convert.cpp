// Libra's format conversions per matrix, reported in GB/s (the bytes a conversion
// must read and write at least: its input and output arrays once each):
//   convert/<matrix>/csr_to_csc  libra::to_csc
//   convert/<matrix>/transpose   libra::transpose (A^T in CSR)
//   convert/<matrix>/coo_to_csr  libra::to_csr of a shuffled COO holding every
//                                entry once, a quarter of them split into two
//                                halves (so it sorts and sums duplicates)
//   convert/<matrix>/csr_to_ell  libra::to_ell: plain ELL when padding to the
//                                longest row costs at most 3x nnz, else hybrid
//                                with the mean row length as width
//   convert/<matrix>/deep_copy   Kokkos::deep_copy of A's three arrays: the
//                                bandwidth reference the others are read against
// Kokkos Kernels 3.4 has no public equivalent of any of these: its CSR sort,
// sort-and-merge and transpose live in KokkosKernels::Impl
// (KokkosKernels_SparseUtils.hpp), and it has no COO or ELL format; public
// KokkosSparse::sort_crs_matrix and coo2crs arrive in 4.x. So only Libra is measured.
// Every result is checked once against host code before it is timed.
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <memory>
#include <random>

#include "harness.hpp"
#include "host_check.hpp"
#include "libra/format/convert.hpp"
#include "matrices.hpp"

namespace libra::bench {

namespace {

using CooMatrix = Coo<Scalar, Ordinal, Offset, Device>;

enum class Conversion { csr_to_csc, transpose, coo_to_csr, csr_to_ell, deep_copy };

const char* name_of(Conversion c) {
  switch (c) {
    case Conversion::csr_to_csc:
      return "csr_to_csc";
    case Conversion::transpose:
      return "transpose";
    case Conversion::coo_to_csr:
      return "coo_to_csr";
    case Conversion::csr_to_ell:
      return "csr_to_ell";
    case Conversion::deep_copy:
      return "deep_copy";
  }
  return "?";
}

constexpr double index_bytes = sizeof(Ordinal);
constexpr double offset_bytes = sizeof(Offset);
constexpr double entry_bytes = sizeof(Ordinal) + sizeof(Scalar);

double csr_bytes(double rows, double nnz) {
  return (rows + 1) * offset_bytes + nnz * entry_bytes;
}

struct Problem {
  MatrixSpec spec;
  Matrix A;
  ref::Matrix host_a;
  ref::Matrix host_at;  // A^T, made on first use
  CooMatrix coo;        // coo_to_csr's input, made on first use
  EllOptions ell;
};

std::unique_ptr<Problem> load_problem(const MatrixSpec& spec) {
  auto p = std::make_unique<Problem>();
  p->spec = spec;
  p->A = load_matrix(spec);
  p->host_a = csr_to_host(p->A);
  std::int64_t longest = 0;
  for (std::int64_t i = 0; i < p->host_a.rows; ++i) {
    longest = std::max(longest, p->host_a.ptr[i + 1] - p->host_a.ptr[i]);
  }
  const std::int64_t rows = std::max<std::int64_t>(p->host_a.rows, 1);
  if (rows * longest <= 3 * std::max<std::int64_t>(p->host_a.nnz(), 1)) {
    p->ell.width = longest;
  } else {
    p->ell.width = (p->host_a.nnz() + rows - 1) / rows;
    p->ell.overflow = EllOverflow::hybrid;
  }
  return p;
}

// A's entries shuffled, every fourth one split into two halves (exact in binary
// floating point, so the sorted and summed result is A bit for bit).
CooMatrix shuffled_coo(const ref::Matrix& a) {
  std::vector<ref::Triplet> t = ref::to_triplets(a);
  const std::size_t n = t.size();
  for (std::size_t q = 0; q < n; q += 4) {
    std::get<2>(t[q]) *= 0.5;
    t.push_back(t[q]);
  }
  std::shuffle(t.begin(), t.end(), std::mt19937_64(11));
  typename CooMatrix::index_type rows("libra::bench::coo_rows", t.size());
  typename CooMatrix::index_type cols("libra::bench::coo_cols", t.size());
  typename CooMatrix::values_type vals("libra::bench::coo_vals", t.size());
  auto hr = Kokkos::create_mirror_view(rows);
  auto hc = Kokkos::create_mirror_view(cols);
  auto hv = Kokkos::create_mirror_view(vals);
  for (std::size_t q = 0; q < t.size(); ++q) {
    hr(q) = static_cast<Ordinal>(std::get<0>(t[q]));
    hc(q) = static_cast<Ordinal>(std::get<1>(t[q]));
    hv(q) = std::get<2>(t[q]);
  }
  Kokkos::deep_copy(rows, hr);
  Kokkos::deep_copy(cols, hc);
  Kokkos::deep_copy(vals, hv);
  return CooMatrix(static_cast<Ordinal>(a.rows), static_cast<Ordinal>(a.cols), rows, cols,
                   vals);
}

// ELL slots and tail as the oracle's matrix (entries re-sorted by row and column).
template <class E>
ref::Matrix ell_to_host(const E& ell) {
  const auto col = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ell.col_idx);
  const auto val = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ell.values);
  std::vector<ref::Triplet> t;
  for (std::int64_t i = 0; i < ell.num_rows; ++i) {
    for (std::int64_t k = 0; k < ell.width; ++k) {
      if (col(i, k) >= 0) t.emplace_back(i, col(i, k), val(i, k));
    }
  }
  const auto tr =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ell.tail.row_idx);
  const auto tc =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ell.tail.col_idx);
  const auto tv =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ell.tail.values);
  for (std::size_t q = 0; q < tr.extent(0); ++q) t.emplace_back(tr(q), tc(q), tv(q));
  return ref::from_triplets(ell.num_rows, ell.num_cols, std::move(t));
}

// One conversion: run it (keeping the result), check it, count its bytes.
class Runner {
 public:
  explicit Runner(Problem& p, Conversion c) : p_(p), c_(c) {
    if (c == Conversion::coo_to_csr && p.coo.nnz() == 0 && p.host_a.nnz() > 0) {
      p.coo = shuffled_coo(p.host_a);
    }
  }

  void run() {
    const Exec exec;
    switch (c_) {
      case Conversion::csr_to_csc:
        csc_ = to_csc(exec, p_.A);
        break;
      case Conversion::transpose:
        csr_ = transpose(exec, p_.A);
        break;
      case Conversion::coo_to_csr:
        csr_ = to_csr(exec, p_.coo);
        break;
      case Conversion::csr_to_ell:
        ell_ = to_ell(exec, p_.A, p_.ell);
        break;
      case Conversion::deep_copy:
        copy();
        break;
    }
  }

  void release() {
    csr_ = Matrix();
    csc_ = Csc<Scalar, Ordinal, Offset, Device>();
    ell_ = Ell<Scalar, Ordinal, Offset, Device>();
  }

  // "" when the last result is right.
  std::string check() {
    if (c_ == Conversion::csr_to_csc || c_ == Conversion::transpose) {
      if (p_.host_at.rows == 0 && p_.host_at.cols == 0)
        p_.host_at = ref::transpose(p_.host_a);
    }
    switch (c_) {
      case Conversion::csr_to_csc:
        return compare_exact(
            p_.host_at, compressed_to_host(csc_.num_cols, csc_.num_rows, csc_.col_map,
                                           csc_.row_idx, csc_.values));
      case Conversion::transpose:
        return compare_exact(p_.host_at, csr_to_host(csr_));
      case Conversion::coo_to_csr:
        return compare_exact(p_.host_a, csr_to_host(csr_));
      case Conversion::csr_to_ell:
        return compare_exact(p_.host_a, ell_to_host(ell_));
      case Conversion::deep_copy:
        return compare_exact(p_.host_a, csr_to_host(csr_));
    }
    return "unknown conversion";
  }

  // The least traffic of the conversion: inputs read and outputs written once.
  double bytes() const {
    const double rows = p_.A.num_rows, cols = p_.A.num_cols, nnz = p_.A.nnz();
    switch (c_) {
      case Conversion::csr_to_csc:
      case Conversion::transpose:
        return csr_bytes(rows, nnz) + csr_bytes(cols, nnz);
      case Conversion::coo_to_csr:
        return p_.coo.nnz() * (index_bytes + entry_bytes) + csr_bytes(rows, nnz);
      case Conversion::csr_to_ell:
        return csr_bytes(rows, nnz) + rows * ell_.width * entry_bytes +
               ell_.tail.nnz() * (index_bytes + entry_bytes);
      case Conversion::deep_copy:
        return 2 * csr_bytes(rows, nnz);
    }
    return 0;
  }

  std::string label() const {
    std::string s = "kind=" + p_.spec.kind;
    if (c_ == Conversion::csr_to_ell) {
      s += ";ell_width=" + std::to_string(ell_.width) +
           ";ell_tail=" + std::to_string(ell_.tail.nnz());
    }
    return s;
  }

 private:
  void copy() {
    typename Matrix::row_map_non_const_type row_map(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::bench::row_map"),
        p_.A.row_map.extent(0));
    typename Matrix::index_type col_idx(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::bench::col_idx"),
        p_.A.nnz());
    typename Matrix::values_type values(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::bench::values"),
        p_.A.nnz());
    Kokkos::deep_copy(row_map, p_.A.row_map);
    Kokkos::deep_copy(col_idx, p_.A.col_idx);
    Kokkos::deep_copy(values, p_.A.values);
    csr_ = Matrix(p_.A.num_rows, p_.A.num_cols, row_map, col_idx, values);
  }

  Problem& p_;
  Conversion c_;
  Matrix csr_;
  Csc<Scalar, Ordinal, Offset, Device> csc_;
  Ell<Scalar, Ordinal, Offset, Device> ell_;
};

struct Case {
  std::string name;
  std::unique_ptr<Runner> runner;
  std::string error;
};
std::unique_ptr<Problem> current_problem;
Case current_case;

void prepare_case(const std::string& name, const MatrixSpec& spec, Conversion c) {
  current_case = Case();
  current_case.name = name;
  try {
    if (!current_problem || current_problem->spec.name != spec.name) {
      current_problem.reset();
      current_problem = load_problem(spec);
    }
    current_case.runner = std::make_unique<Runner>(*current_problem, c);
    current_case.runner->run();
    Exec().fence();
    if (const auto why = current_case.runner->check(); !why.empty()) {
      current_case.error = "wrong: " + why;
    }
  } catch (const std::exception& e) {
    current_case.error = classify_exception(e);
  }
}

void run_case(benchmark::State& state, const MatrixSpec& spec, Conversion c) {
  const std::string name = spec.name + "/" + name_of(c);
  if (current_case.name != name) prepare_case(name, spec, c);
  if (!current_case.error.empty()) {
    state.SkipWithError(current_case.error.c_str());
    return;
  }
  Runner& runner = *current_case.runner;
  for (auto _ : state) {
    runner.release();
    try {
      state.SetIterationTime(time_on_device(Exec(), [&] { runner.run(); }));
    } catch (const std::exception& e) {
      current_case.error = classify_exception(e);
      state.SkipWithError(current_case.error.c_str());
      break;
    }
  }
  if (!current_case.error.empty()) return;
  add_gbytes(state, runner.bytes());
  add_nnz_rate(state, static_cast<double>(current_problem->A.nnz()));
  add_value(state, "rows", current_problem->A.num_rows);
  add_value(state, "nnz_A", static_cast<double>(current_problem->A.nnz()));
  add_value(state, "bytes", runner.bytes());
  state.SetLabel(runner.label());
  runner.release();
}

}  // namespace

void release_benchmarks() {
  current_case = Case();
  current_problem.reset();
}

void register_benchmarks(const Options& options) {
  const Conversion all[] = {Conversion::csr_to_csc, Conversion::transpose,
                            Conversion::coo_to_csr, Conversion::csr_to_ell,
                            Conversion::deep_copy};
  for (const MatrixSpec& m :
       benchmark_matrices(options, "bench_convert", "rmat:16-18:16")) {
    for (Conversion c : all) {
      const std::string name = std::string("convert/") + m.name + "/" + name_of(c);
      configure(benchmark::RegisterBenchmark(
                    name.c_str(), [m, c](benchmark::State& s) { run_case(s, m, c); }),
                options);
    }
  }
}

}  // namespace libra::bench

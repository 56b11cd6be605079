#pragma once
// The algorithms `libra spgemm --algo` can run: Libra's own, and the baselines
// it is measured against.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "libra/format/convert.hpp"
#include "libra/format/mirror.hpp"
#include "libra/reference/bridge.hpp"
#include "libra/reference/reference.hpp"
#include "libra/spgemm/hetero.hpp"
#include "libra/spgemm/spgemm.hpp"
#include "libra/vendor/kokkos_kernels_spgemm.hpp"

#if defined(LIBRA_HAVE_CUSPARSE_BASELINE)
#include "libra/vendor/cusparse_spgemm.hpp"
#endif

namespace libra::cli {

template <class M>
struct AlgorithmResult {
  M C;
  SpgemmStats stats;
  double seconds = 0;
  std::string name;
  std::string space = Space::name();  // where it ran
  std::optional<HeteroStats> hetero;  // --algo hetero
};

// The algorithms this build has: cusparse only in CUDA builds.
inline std::vector<std::string> spgemm_algorithm_names() {
  std::vector<std::string> names{"auto", "panel",  "outer", "cdm",
                                 "hm",   "hetero", "kk",    "reference"};
#if defined(LIBRA_HAVE_CUSPARSE_BASELINE)
  names.push_back("cusparse");
#endif
  return names;
}

inline std::string spgemm_algorithm_list() {
  std::string list;
  for (const auto& n : spgemm_algorithm_names()) list += (list.empty() ? "" : "|") + n;
  return list;
}

// CLI11 validator of --algo: "" for an algorithm this build has, else why not.
inline std::string check_spgemm_algorithm(std::string& algo) {
  for (const auto& n : spgemm_algorithm_names()) {
    if (n == algo) return "";
  }
  if (algo == "cusparse") {
    return std::string("cusparse needs a CUDA build of Libra; this one runs on ") +
           Space::name() + " and has " + spgemm_algorithm_list();
  }
  return "unknown algorithm '" + algo + "': this build has " + spgemm_algorithm_list();
}

inline std::string spgemm_algorithm_help() {
  std::string help =
      "Algorithms: panel (ApSpGEMM in-core, Libra), outer (lbGEMM, Libra), cdm (compact\n"
      "diagonal storage: square matrices whose entries lie on few diagonals, such as\n"
      "bands), hm (diagonal storage, any shape), auto (Libra's choice: panel;\n"
      "on GPUs cdm for two full bands of half-bandwidth about 22 or more), hetero\n"
      "(the device and the host at once, A and B in host memory: rows split by\n"
      "affinity at --gpu-share, out-of-core under --device-memory), kk "
      "(Kokkos Kernels' spgemm, on the host), reference "
      "(the sequential\nhost oracle Libra's tests use)";
#if defined(LIBRA_HAVE_CUSPARSE_BASELINE)
  help += ", cusparse (cuSPARSE's SpGEMM)";
#else
  help += "; cusparse (cuSPARSE's SpGEMM) needs a CUDA build";
#endif
  return help + ".\n";
}

template <class M>
ref::Matrix to_reference(const M& A) {
  return ref::from_csr(A);
}

template <class M>
M from_reference(const ref::Matrix& m) {
  return ref::to_csr<typename M::scalar_type, typename M::ordinal_type,
                     typename M::offset_type, typename M::device_type>(m);
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

// Scalar products of A * B (what flops count), from the row lengths.
template <class M>
std::uint64_t count_products(const M& A, const M& B) {
  const auto a = to_host(A);
  const auto b = to_host(B);
  std::uint64_t n = 0;
  for (std::size_t p = 0; p < a.col_idx.extent(0); ++p) {
    const auto k = a.col_idx(p);
    n += static_cast<std::uint64_t>(b.row_map(k + 1) - b.row_map(k));
  }
  return n;
}

// C's rows sorted by column (Kokkos Kernels leaves them unsorted), outside the timing.
template <class M>
M sorted(const M& C) {
  return libra::to_csr(Space(), libra::to_coo(Space(), C));
}

// Kokkos Kernels' SpGEMM as its users call it (symbolic + numeric, SPGEMM_KK). It
// runs on the host space: Kokkos Kernels 3.4's SpGEMM crashes or returns wrong
// results on Hopper GPUs, and the tool must not crash.
template <class M>
AlgorithmResult<M> run_kokkos_kernels(const M& A, const M& B) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  const auto a = copy_to<Host>(A);
  const auto b = copy_to<Host>(B);
  Kokkos::Timer timer;
  auto c = vendor::kokkos_kernels_spgemm(a, b);
  Host().fence();
  AlgorithmResult<M> r;
  r.seconds = timer.seconds();
  r.C = sorted(copy_to<Space>(c));
  r.stats.products = count_products(A, B);
  r.stats.flops = 2 * r.stats.products;
  r.stats.nnz_c = static_cast<std::uint64_t>(r.C.nnz());
  r.name = "kk";
  r.space = Host::name();
  return r;
}

#if defined(LIBRA_HAVE_CUSPARSE_BASELINE)
// cuSPARSE's SpGEMM (ALG1, falling back to ALG2/ALG3 for lack of memory), timed
// as a user pays: estimation, buffers, compute. 32-bit indices only.
template <class M>
AlgorithmResult<M> run_cusparse(const M& A, const M& B) {
  using O = typename M::ordinal_type;
  using Off = typename M::offset_type;
  if constexpr (!std::is_same<O, int>::value) {
    throw Failure(exit_bad_input,
                  "cuSPARSE's SpGEMM takes 32-bit indices; this matrix needs 64");
  } else {
    using Narrow = Kokkos::View<int*, Space::memory_space>;
    const auto narrow = [](const typename M::row_map_type& rm) {
      Narrow out("libra::cli::row_map32", rm.extent(0));
      const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rm);
      auto ho = Kokkos::create_mirror_view(out);
      for (std::size_t i = 0; i < h.extent(0); ++i)
        ho(i) = checked_cast<int>(h(i), "nnz");
      Kokkos::deep_copy(out, ho);
      return out;
    };
    const Narrow a_rm = narrow(A.row_map), b_rm = narrow(B.row_map);
    const vendor::cusparse::CsrView a{
        A.num_rows,  A.num_cols,       static_cast<std::int64_t>(A.nnz()),
        a_rm.data(), A.col_idx.data(), A.values.data()};
    const vendor::cusparse::CsrView b{
        B.num_rows,  B.num_cols,       static_cast<std::int64_t>(B.nnz()),
        b_rm.data(), B.col_idx.data(), B.values.data()};
    vendor::cusparse::Spgemm spgemm(Kokkos::Cuda().cuda_stream());
    Kokkos::fence();
    Kokkos::Timer timer;
    vendor::cusparse::Product product;
    try {
      product = spgemm.multiply(a, b);
    } catch (const vendor::cusparse::Error& e) {
      throw Failure(exit_failure, std::string("cuSPARSE: ") + e.what());
    }
    AlgorithmResult<M> r;
    r.seconds = timer.seconds();
    const auto& c = product.C;
    typename M::row_map_non_const_type rm("libra::cli::C::row_map",
                                          static_cast<std::size_t>(c.rows) + 1);
    typename M::index_type ci("libra::cli::C::col", static_cast<std::size_t>(c.nnz));
    typename M::values_type v("libra::cli::C::values", static_cast<std::size_t>(c.nnz));
    const Kokkos::View<const int*, Space::memory_space, Kokkos::MemoryUnmanaged> crm(
        c.row_ptr, rm.extent(0));
    Kokkos::parallel_for(
        "libra::cli::widen", Kokkos::RangePolicy<Space>(0, rm.extent(0)),
        KOKKOS_LAMBDA(const std::size_t i) { rm(i) = static_cast<Off>(crm(i)); });
    Kokkos::deep_copy(
        ci, Kokkos::View<const int*, Space::memory_space, Kokkos::MemoryUnmanaged>(
                c.col_idx, ci.extent(0)));
    Kokkos::deep_copy(
        v, Kokkos::View<const double*, Space::memory_space, Kokkos::MemoryUnmanaged>(
               c.values, v.extent(0)));
    r.C = M(A.num_rows, B.num_cols, rm, ci, v);
    r.stats.products = count_products(A, B);
    r.stats.flops = 2 * r.stats.products;
    r.stats.nnz_c = static_cast<std::uint64_t>(c.nnz);
    r.name = std::string("cusparse ") + vendor::cusparse::to_string(product.algorithm);
    return r;
  }
}
#endif

// Heterogeneous SpGEMM as the paper sets it: A and B in host memory (copied
// there before the timing), C assembled there (copied back after it).
template <class M>
AlgorithmResult<M> run_hetero(const M& A, const M& B, const HeteroOptions& options) {
  using Host = HeteroHostFor<Space>;
  using HostDevice = Kokkos::Device<Host, Kokkos::HostSpace>;
  const auto a = copy_to<HostDevice>(A);
  const auto b = copy_to<HostDevice>(B);
  AlgorithmResult<M> r;
  HeteroStats st;
  Kokkos::fence();
  Kokkos::Timer timer;
  const auto c = spgemm_hetero(Space(), Host(), a, b, options, &st);
  r.seconds = timer.seconds();
  r.C = copy_to<Space>(c);
  r.stats.products = st.products;
  r.stats.flops = 2 * st.products;
  r.stats.nnz_c = st.nnz_c;
  r.stats.budget_bytes = st.device_memory;
  r.name = "hetero";
  r.space = std::string(Space::name()) + " + " + Host::name();
  r.hetero = st;
  return r;
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
    r.space = "host (sequential)";
    return r;
  }
  if (algo == "kk") return run_kokkos_kernels(A, B);
  if (algo == "cusparse") {
#if defined(LIBRA_HAVE_CUSPARSE_BASELINE)
    return run_cusparse(A, B);
#else
    throw Failure(exit_usage,
                  "--algo cusparse needs a CUDA build of Libra");  // validated
#endif
  }
  exec.fence();
  Kokkos::Timer timer;
  r.C = spgemm(exec, A, B, options, &r.stats);
  exec.fence();
  r.seconds = timer.seconds();
  r.name = to_string(r.stats.algorithm);
  return r;
}

}  // namespace libra::cli

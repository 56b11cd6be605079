#include "spmv_common.hpp"

namespace libra::cli {

DenseMatrix read_x(const SpmvArgs& args, std::int64_t cols) {
  DenseMatrix X;
  if (args.x_file.empty()) {
    X = DenseMatrix(Kokkos::view_alloc(Kokkos::WithoutInitializing, "libra::cli::x"),
                    cols, 1);
    Kokkos::parallel_for(
        "libra::cli::generate_x",
        Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, cols),
        GenerateX{X});
    return X;
  }
  try {
    Progress progress("reading " + args.x_file);
    X = io::read_matrix_market_dense<double, Device>(args.x_file,
                                                     read_options(args.input));
  } catch (const io::FileError& e) {
    throw Failure(exit_failure, e.what());
  } catch (const InputError& e) {
    throw Failure(exit_bad_input, e.what());
  } catch (const OverflowError& e) {
    throw Failure(exit_bad_input, args.x_file + ": " + e.what());
  }
  if (static_cast<std::int64_t>(X.extent(0)) != cols) {
    throw Failure(exit_usage, "y = A * x: A has " + std::to_string(cols) +
                                  " columns but x (" + args.x_file + ") has " +
                                  std::to_string(X.extent(0)) + " rows");
  }
  return X;
}

}  // namespace libra::cli

#include "libra/config.hpp"
#if !LIBRA_ENABLE_MPI
namespace libra::cli {
// A build without MPI never starts MPI (mpi_session.cpp), so spmv.cpp never
// calls this.
int run_spmv_distributed(const SpmvArgs&) {
  throw Failure(exit_failure, "this build of libra has no MPI");
}
}  // namespace libra::cli
#endif

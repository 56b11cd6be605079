# Spack recipe for Libra. Use it with `spack repo add spack/` (see spack/README.md).
import os

from spack.package import *

# This recipe lives in Libra's own repository (spack/packages/libra/), so the
# checkout that holds it is where `libra@main` is cloned from.
_checkout = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


class Libra(CMakePackage, CudaPackage):
    """Load-balanced sparse and structured linear algebra on every machine Kokkos
    runs on: sparse formats as Kokkos Views, algorithms as Kokkos parallel policies,
    KokkosSparse::CrsMatrix in and out."""

    homepage = "file://" + _checkout
    git = "file://" + _checkout

    version("main", branch="main")

    # Libra runs on whatever backends its Kokkos has; these variants ask Kokkos and
    # Kokkos Kernels for them (ArborX's convention). cuda and cuda_arch come from
    # CudaPackage.
    kokkos_backends = {
        "serial": (True, "Enable the Kokkos Serial backend"),
        "openmp": (True, "Enable the Kokkos OpenMP backend"),
    }
    for backend, (deflt, descr) in kokkos_backends.items():
        variant(backend, default=deflt, description=descr)
    variant("mpi", default=False, description="Find and link MPI")
    variant("hwloc", default=False, description="Find and link hwloc (NUMA-aware placement)")
    variant("tests", default=False, description="Build the unit tests")
    variant("benchmarks", default=False, description="Build the Google Benchmark programs")
    variant("cli", default=True, description="Build the libra command-line tool")

    depends_on("cxx", type="build")
    depends_on("cmake@3.20:", type="build")

    # Version ranges: Libra uses only Kokkos' public API, so any Kokkos and Kokkos
    # Kernels from 3.4 on will do (Spack's own recipes start at 3.7).
    depends_on("kokkos@3.4:")
    depends_on("kokkos-kernels@3.4:")
    for backend in kokkos_backends:
        depends_on(f"kokkos+{backend}", when=f"+{backend}")
        depends_on(f"kokkos-kernels+{backend}", when=f"+{backend}")

    for arch in CudaPackage.cuda_arch_values:
        cuda_dep = f"+cuda cuda_arch={arch}"
        depends_on(f"kokkos {cuda_dep}", when=cuda_dep)
        depends_on(f"kokkos-kernels {cuda_dep}", when=cuda_dep)
    conflicts("+cuda", when="cuda_arch=none", msg="+cuda needs a cuda_arch, e.g. cuda_arch=90")
    # Device lambdas: an option up to Kokkos 4, always on (and no variant) from 5.
    depends_on("kokkos+cuda_lambda", when="+cuda ^kokkos@:4")
    # gcc cannot compile CUDA itself; Kokkos then builds through nvcc_wrapper.
    depends_on("kokkos+wrapper", when="+cuda %gcc")

    depends_on("mpi", when="+mpi")
    depends_on("hwloc", when="+hwloc")
    depends_on("pkgconfig", type="build", when="+hwloc")
    depends_on("cli11", when="+cli")
    depends_on("nlohmann-json@3:", when="+cli")
    depends_on("benchmark", when="+benchmarks")
    # Linked into the test programs; type "test" also brings it for --test=root.
    depends_on("googletest", when="+tests")
    depends_on("googletest", type="test")

    def kokkos_cxx(self):
        """The compiler Kokkos was built with (nvcc_wrapper for a gcc CUDA build).
        Newer kokkos recipes expose it as a package property, older ones set it on
        the spec in setup_dependent_package."""
        kokkos = self.spec["kokkos"]
        from_spec = getattr(kokkos, "kokkos_cxx", None)
        return from_spec if from_spec else kokkos.package.kokkos_cxx

    def cmake_args(self):
        spec = self.spec
        return [
            # Spack provides Kokkos; never build the bundled 3.4.01 copy.
            self.define("LIBRA_BOOTSTRAP", False),
            self.define("Kokkos_ROOT", spec["kokkos"].prefix),
            self.define("KokkosKernels_ROOT", spec["kokkos-kernels"].prefix),
            self.define("CMAKE_CXX_COMPILER", self.kokkos_cxx()),
            self.define("LIBRA_ENABLE_TESTS", self.run_tests or spec.satisfies("+tests")),
            self.define_from_variant("LIBRA_ENABLE_BENCHMARKS", "benchmarks"),
            self.define_from_variant("LIBRA_ENABLE_CLI", "cli"),
            self.define_from_variant("LIBRA_ENABLE_MPI", "mpi"),
            self.define_from_variant("LIBRA_ENABLE_HWLOC", "hwloc"),
        ]

    def check(self):
        """`spack install --test=root libra`: every CTest test of the build, the
        installed-package consumer (label `install`) included. A +cuda build runs
        its kernels, so it needs a GPU on the build machine."""
        ctest = Executable(self.spec["cmake"].prefix.bin.ctest)
        env = {"OMP_PROC_BIND": "spread", "OMP_PLACES": "threads"}
        with working_dir(self.build_directory):
            ctest("--output-on-failure", "-j", str(make_jobs), extra_env=env)

# Spack recipe for Libra (see spack/README.md).
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import os

from spack_repo.builtin.build_systems.cmake import CMakePackage
from spack_repo.builtin.build_systems.cuda import CudaPackage

from spack.package import *


class Libra(CMakePackage, CudaPackage):
    """Load-balanced sparse and structured linear algebra on Kokkos (Serial, OpenMP,
    CUDA): sparse formats as Kokkos Views, algorithms as Kokkos parallel policies,
    KokkosSparse::CrsMatrix in and out."""

    # The project's public repository; spack/README.md: it must match the real one.
    homepage = "https://github.com/libra-hpc/libra"
    git = "https://github.com/libra-hpc/libra.git"

    maintainers("libra-hpc")

    license("Apache-2.0 WITH LLVM-exception")

    test_requires_compiler = True

    version("main", branch="main")
    version("0.1.0", tag="v0.1.0")

    # Libra runs on the backends its Kokkos has; these ask Kokkos and Kokkos Kernels
    # for them. cuda comes from CudaPackage.
    kokkos_backends = {
        "serial": (True, "Enable the Kokkos Serial backend"),
        "openmp": (True, "Enable the Kokkos OpenMP backend"),
    }
    for backend, (deflt, descr) in kokkos_backends.items():
        variant(backend, default=deflt, description=descr)
    variant("shared", default=True, description="Build libra as a shared library")
    variant("cli", default=True, description="Build and install the libra command-line tool")
    variant(
        "hwloc",
        default=True,
        description="Read the machine's topology with hwloc: `libra info --topology` and "
        "MSREP's placement of each MPI rank near its GPU",
    )
    variant("mpi", default=False, description="Build libra::dist (MSREP's SpMV over MPI ranks)")
    # Kokkos compiles for one GPU architecture, so Libra takes one too (CudaPackage's
    # cuda_arch takes several).
    variant(
        "cuda_arch",
        description="CUDA architecture (exactly one: Kokkos compiles for one GPU)",
        values=("none",) + CudaPackage.cuda_arch_values,
        default="none",
        multi=False,
        sticky=True,
        when="+cuda",
    )
    conflicts(
        "+cuda",
        when="cuda_arch=none",
        msg="+cuda needs exactly one cuda_arch, the GPU's compute capability "
        "(Kokkos compiles for one architecture), e.g. cuda_arch=90 for H100/H200",
    )

    depends_on("cxx", type="build")
    depends_on("cmake@3.20:", type="build")

    # The Kokkos versions Libra has been built and tested with: 3.4.01 (the
    # bootstrap) and 4.6.x (4.6.01 + Kokkos Kernels 4.6.02); Spack's own recipes
    # start at 3.7.02.
    depends_on("kokkos@3.4:4.6")
    depends_on("kokkos-kernels@3.4:4.6")
    conflicts(
        "^kokkos@4.7:",
        msg="Libra has been built and tested with Kokkos 3.4.01 and 4.6.x only; "
        "Kokkos 4.7 and 5.x (which compiles in C++20) are untested",
    )
    conflicts(
        "^kokkos-kernels@4.7:",
        msg="Libra has been built and tested with Kokkos Kernels 3.4.01 and 4.6.x only",
    )
    for backend in kokkos_backends:
        depends_on(f"kokkos+{backend}", when=f"+{backend}")
        depends_on(f"kokkos-kernels+{backend}", when=f"+{backend}")
    for arch in CudaPackage.cuda_arch_values:
        cuda_dep = f"+cuda cuda_arch={arch}"
        depends_on(f"kokkos {cuda_dep}", when=cuda_dep)
        depends_on(f"kokkos-kernels {cuda_dep}", when=cuda_dep)
    depends_on("kokkos+cuda_lambda", when="+cuda")
    # gcc cannot compile CUDA itself; Kokkos then builds through nvcc_wrapper.
    depends_on("kokkos+wrapper", when="+cuda %gcc")
    # A shared libra beside a static Kokkos would carry a second copy of Kokkos.
    depends_on("kokkos+shared", when="+shared")
    depends_on("kokkos-kernels+shared", when="+shared")

    # PCI devices (the pci variant) locate each GPU's NUMA domain.
    depends_on("hwloc@2: +pci", when="+hwloc")
    depends_on("mpi", when="+mpi")

    depends_on("cli11", when="+cli")
    depends_on("nlohmann-json@3:", when="+cli")
    # For `spack install --test=root`, which builds and runs the unit tests.
    depends_on("googletest", type="test")

    def cmake_args(self):
        spec = self.spec
        return [
            # Spack provides Kokkos; never build the bundled 3.4.01 copy.
            self.define("LIBRA_BOOTSTRAP", "OFF"),
            self.define("Kokkos_ROOT", spec["kokkos"].prefix),
            self.define("KokkosKernels_ROOT", spec["kokkos-kernels"].prefix),
            self.define("CMAKE_CXX_COMPILER", self["kokkos"].kokkos_cxx),
            self.define("LIBRA_ENABLE_TESTS", self.run_tests),
            self.define("LIBRA_ENABLE_BENCHMARKS", False),
            self.define_from_variant("LIBRA_ENABLE_CLI", "cli"),
            self.define_from_variant("BUILD_SHARED_LIBS", "shared"),
            self.define_from_variant("LIBRA_ENABLE_HWLOC", "hwloc"),
            self.define_from_variant("LIBRA_ENABLE_MPI", "mpi"),
        ]

    def check(self):
        """`spack install --test=root libra`: every CTest test of the build tree, the
        installed-package tests (label `install`) included. A +cuda build runs its
        kernels, so it needs a GPU on the build machine."""
        ctest = Executable(self.spec["cmake"].prefix.bin.ctest)
        env = {"OMP_PROC_BIND": "spread", "OMP_PLACES": "threads"}
        with working_dir(self.build_directory):
            ctest("--output-on-failure", "-j", str(make_jobs), extra_env=env)

    # Stand-alone tests (`spack test run libra`): the consumer project that Libra's
    # own CTest builds against a fresh install, built here against this install.
    consumer_dir = join_path("cmake", "install_test")
    example_matrix = join_path("unit_tests", "data", "ca-GrQc.mtx")

    @run_after("install")
    def setup_build_tests(self):
        """Keep the consumer project and the matrix its example reads."""
        cache_extra_test_sources(self, [self.consumer_dir, self.example_matrix])

    def test_consumer(self):
        """build cmake/install_test against the installed Libra and run its programs"""
        cache = self.test_suite.current_test_cache_dir
        source = join_path(cache, self.consumer_dir)
        build = join_path(source, "build")
        if self.spec.satisfies("^kokkos+wrapper"):
            cxx = self["kokkos"].kokkos_cxx
        else:
            cxx = os.environ["CXX"]
        cmake = self.spec["cmake"].command
        ctest = which(join_path(self.spec["cmake"].prefix.bin, "ctest"))
        cmake(
            "-S",
            source,
            "-B",
            build,
            self.define("CMAKE_PREFIX_PATH", self.prefix),
            self.define("Kokkos_ROOT", self.spec["kokkos"].prefix),
            self.define("KokkosKernels_ROOT", self.spec["kokkos-kernels"].prefix),
            self.define("CMAKE_CXX_COMPILER", cxx),
            self.define("LIBRA_EXAMPLE_MATRIX", join_path(cache, self.example_matrix)),
            # Libra in a shared library needs a shared or position-independent Kokkos.
            self.define(
                "LIBRA_CONSUMER_SHARED",
                self.spec.satisfies("^kokkos+shared") or self.spec.satisfies("^kokkos+pic"),
            ),
        )
        cmake("--build", build)
        ctest(
            "--test-dir",
            build,
            "--output-on-failure",
            extra_env={"OMP_PROC_BIND": "spread", "OMP_PLACES": "threads"},
        )

#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with _carry/gpu/ made by
# build-cuda.sh beside it: recreates the build machine's paths, then runs ctest
# (and, with "bench ARGS...", perf_tests/report/gpu_report.sh ARGS...).
#   scripts/gpu/run-on-gpu.sh [ctest args...]
#   scripts/gpu/run-on-gpu.sh run COMMAND [ARGS...]   (any command, same environment;
#       $LIBRA_BUILD names the build folder, e.g. $LIBRA_BUILD/perf_tests/bench_spmv)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
carry=$root/_carry/gpu
build=$(cat "$carry/build-path")          # e.g. /work/main/build/cuda
[ -d "$carry/build" ] || tar -C "$carry" -xJf "$carry/build.tar.xz"
src=$(dirname "$(dirname "$build")")      # the source tree it was built from
if [ "$src" != "$root" ]; then
  mkdir -p "$(dirname "$src")"
  [ -e "$src" ] || ln -s "$root" "$src"
fi
mkdir -p "$(dirname "$build")"
[ -e "$build" ] || ln -s "$carry/build" "$build"
shared=$(dirname "$src")/shared
[ -f "$carry/shared/matrices.tar.xz" ] && [ ! -d "$carry/shared/matrices" ] &&
  tar -C "$carry/shared" -xJf "$carry/shared/matrices.tar.xz"
if [ -d "$carry/shared/matrices" ] && [ ! -e "$shared/matrices" ]; then
  mkdir -p "$shared"
  ln -s "$carry/shared/matrices" "$shared/matrices"
fi
export LD_LIBRARY_PATH=$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Open MPI, which the GPU machine lacks: Debian's packages (build-cuda.sh
# downloads them into _carry/mpi), unpacked beside the system without replacing
# any file it has, then its launcher under the name the build recorded.
if [ -d "$root/_carry/mpi" ] && ! command -v mpiexec >/dev/null; then
  stage=$(mktemp -d)
  for deb in "$root"/_carry/mpi/*.deb; do dpkg -x "$deb" "$stage"; done
  cp -rn "$stage"/. / 2>/dev/null
  ln -sf orterun /usr/bin/mpiexec
  ln -sf orterun /usr/bin/mpirun
  ldconfig
fi
# The machine's notes: keep NVLink multicast off wherever NCCL runs.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# NCCL: wherever this machine has it, if the loader's path lacks it.
if [ -z "${LIBRA_NCCL_LIBRARY:-}" ] && ! ldconfig -p | grep -q libnccl.so.2; then
  for f in /usr/local/cuda/lib64/libnccl.so.2 /usr/local/cuda/lib/libnccl.so.2 \
           $(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null); do
    [ -f "$f" ] && { export LIBRA_NCCL_LIBRARY=$f; break; }
  done
fi
export OMP_PROC_BIND=spread OMP_PLACES=threads
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
if [ "${1:-}" = run ]; then
  shift
  # cuSPARSE and the CUDA runtime from the machine's toolkit, as gpu_report.sh does.
  for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
    [ -d "$d" ] && export LD_LIBRARY_PATH="$d:$LD_LIBRARY_PATH"
  done
  export LIBRA_BUILD=$build
  exec "$@"
fi
if [ "${1:-}" = bench ]; then
  shift
  exec "$root/perf_tests/report/gpu_report.sh" "$@"
fi
# The packaging tests (install, deps, cxx20, spack) configure, build and install
# from the full build tree, which does not travel, and product_includes reads the
# sources with cmake: they run on the build machine.
ctest --test-dir "$build" --output-on-failure -LE 'install|deps|cxx20|spack' \
  -E '^product_includes$' "$@"

#!/usr/bin/env bash
# Builds the cuda variant (Cuda + OpenMP + Serial, nvcc, real sm_90 code) on a
# machine without a GPU, and packs what a Hopper GPU machine needs to run the
# tests and benchmarks into _carry/gpu/ (stripped executables, CTest files,
# libraries the GPU machine lacks, the shared matrices). See README "NVIDIA GPUs".
#   scripts/gpu/build-cuda.sh [cmake options...]
# LIBRA_CUDA_TARGETS="a b" builds only those targets (the others travel as they
# were last built), for quick iterations on one kernel. LIBRA_CUDA_PACK=REGEX
# packs only the executables whose path in the build (e.g.
# unit_tests/spmv_cuda, src/cli/libra, perf_tests/bench_spmv) matches the
# extended regex. LIBRA_CUDA_NO_BUILD=1 packs what is built without configuring
# or building (while another build runs in the tree), and LIBRA_CUDA_CARRY=DIR
# packs into DIR instead of _carry/gpu (several packs for calls in turn;
# run-on-gpu.sh reads _carry/gpu, so link it there). The device tool carries
# the working tree and the carry in 64 MiB together, and every executable
# (29 MB packed) beside the tree (42 MiB at git 51f88bc) no longer fits. The packing uses xz -9 with a 256 MiB
# dictionary, which finds the executables' common code (20 MB for all of them).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${LIBRA_CUDA_BUILD_DIR:-$root/build/cuda}
carry=${LIBRA_CUDA_CARRY:-$root/_carry/gpu}
jobs=${LIBRA_JOBS:-$(nproc)}
export PATH=/usr/local/cuda/bin:$PATH

if [ -z "${LIBRA_CUDA_NO_BUILD:-}" ]; then
  "$root/scripts/install-system-deps.sh"
  extra=()
  host_tarball=$root/build/host/_deps/download/trilinos_13.2.0.orig.tar.gz
  [ -f "$host_tarball" ] && extra+=(-DLIBRA_TRILINOS_TARBALL="$host_tarball")
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLIBRA_ENABLE_CUDA=ON \
    -DLIBRA_ENABLE_TESTS=ON -DLIBRA_ENABLE_BENCHMARKS=ON -DLIBRA_TEST_SPACES=CUDA \
    -DLIBRA_ENABLE_MPI=ON -DLIBRA_ENABLE_HWLOC=ON \
    "${extra[@]}" "$@"
  targets=()
  for t in ${LIBRA_CUDA_TARGETS:-}; do targets+=(--target "$t"); done
  cmake --build "$build" -j "$jobs" "${targets[@]}"
fi

# What travels: CTest's files and every executable, stripped, at the same
# relative paths, so ctest runs there once the build path is recreated.
rm -rf "$carry"
mkdir -p "$carry/build" "$carry/lib"
(cd "$build" && find . -path ./_deps -prune -o -name CTestTestfile.cmake -print \
   | xargs -r cp --parents -t "$carry/build")
(cd "$build" && find . -path ./_deps -prune -o -type f -executable -print \
   | grep -v -e '/CMakeFiles/' -e '\.sh$' | while read -r f; do
     if [[ $(file -b "$f") == ELF* ]]; then
       mkdir -p "$carry/build/$(dirname "$f")"
       strip -o "$carry/build/$f" "$f"
     fi
   done)
# Google Benchmark's library, which the benchmarks find beside them by RPATH.
if [ -d "$build/perf_tests/lib" ]; then
  mkdir -p "$carry/build/perf_tests/lib"
  cp -L "$build"/perf_tests/lib/* "$carry/build/perf_tests/lib/"
fi
echo "$build" > "$carry/build-path"
# Shared libraries the GPU machine does not have (it has libcudart; check the rest).
for lib in libgomp.so.1; do
  p=$(ldconfig -p | awk -v l="$lib" '$1 == l {p = $NF} END {print p}')
  [ -n "$p" ] && cp -L "$p" "$carry/lib/"
done
# Open MPI's Debian packages, for the GPU machine (run-on-gpu.sh unpacks them).
mkdir -p "$root/_carry/mpi"
(cd "$root/_carry/mpi" && for p in openmpi-bin openmpi-common libopenmpi3 libpmix2 \
   libevent-core-2.1-7 libevent-pthreads-2.1-7 libevent-2.1-7 libhwloc15 libfabric1 \
   libucx0 libibverbs1 librdmacm1 libpsm2-2 libpsm-infinipath1 libnl-3-200 \
   libnl-route-3-200 libnuma1 libxnvctrl0 libudev1 zlib1g; do
   ls "$p"_*.deb >/dev/null 2>&1 || apt-get download "$p" >/dev/null
 done)
if [ -n "${LIBRA_CUDA_PACK:-}" ]; then
  (cd "$carry/build" && find . -type f -executable | sed 's|^\./||' |
     grep -v -E "$LIBRA_CUDA_PACK" | while read -r f; do
       if [[ $(file -b "$f") == ELF*executable* ]]; then rm -f "$f"; fi
     done)
fi
# Compressed, the executables travel in a sixth of the space.
tar -C "$carry" -cf - build | xz -T0 -9 --lzma2=preset=9,dict=256MiB > "$carry/build.tar.xz"
rm -rf "$carry/build"
# The shared matrices compressed too (18 MB of text in 2.5 MB): the working
# tree and the carry share the device tool's 64 MiB.
if [ -d "$root/../shared/matrices" ]; then
  mkdir -p "$carry/shared"
  rm -rf "$carry/shared/matrices"
  tar -C "$root/../shared" -cf - matrices | xz -T0 -6 > "$carry/shared/matrices.tar.xz"
fi
du -sh "$carry"

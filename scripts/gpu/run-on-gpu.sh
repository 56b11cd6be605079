#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with _carry/gpu/ made by
# build-cuda.sh beside it: recreates the build machine's paths, then runs ctest
# (and, with "bench ARGS...", perf_tests/report/gpu_report.sh ARGS...).
#   scripts/gpu/run-on-gpu.sh [ctest args...]
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
if [ -d "$carry/shared/matrices" ] && [ ! -e "$shared/matrices" ]; then
  mkdir -p "$shared"
  ln -s "$carry/shared/matrices" "$shared/matrices"
fi
export LD_LIBRARY_PATH=$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMP_PROC_BIND=spread OMP_PLACES=threads
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
if [ "${1:-}" = bench ]; then
  shift
  exec "$root/perf_tests/report/gpu_report.sh" "$@"
fi
# The packaging tests (install, deps, cxx20, spack) configure, build and install
# from the full build tree, which does not travel, and product_includes reads the
# sources with cmake: they run on the build machine.
ctest --test-dir "$build" --output-on-failure -LE 'install|deps|cxx20|spack' \
  -E '^product_includes$' "$@"

#!/usr/bin/env bash
# Lists, for each executable of a CUDA build, the extended (__host__ __device__)
# lambdas that several translation units instantiate alike. nvcc keeps each such
# lambda's helper state (fp_copier and friends) in an anonymous namespace, one
# copy per unit, while the linker keeps one copy of the launch code that reads
# it: when that copy comes from a unit whose helper was never set, the launch
# calls a null pointer (a segfault at address 0; `libra spmv --generate band:...`
# did so on the H100 until 64cb397). Each line below is such a hazard; the cure
# is a named functor in place of the KOKKOS_LAMBDA.
#   scripts/gpu/lambda-odr-report.sh [BUILD_DIR] [EXECUTABLE...]
set -euo pipefail
build=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/cuda}
shift || true
exes=("$@")
if [ ${#exes[@]} -eq 0 ]; then
  mapfile -t exes < <(find "$build/src/cli" "$build/unit_tests" "$build/perf_tests" \
    -maxdepth 1 -type f -executable 2>/dev/null | sort)
fi
total=0
for exe in "${exes[@]}"; do
  file -b "$exe" | grep -q ELF || continue
  # A helper symbol per unit that instantiated the lambda: count them by name.
  shared=$(nm "$exe" 2>/dev/null | awk '$3 ~ /__nv_hdl_helper.*fp_copier/ {print $3}' |
           sort | uniq -c | awk '$1 > 1 {print $2}')
  n=$(printf '%s' "$shared" | grep -c . || true)
  total=$((total + n))
  echo "$(basename "$exe"): $n lambda(s) instantiated in several translation units"
  [ "$n" -gt 0 ] || continue
  # The enclosing functions, from the lambda's tag.
  printf '%s\n' "$shared" | c++filt | grep -o '&([^(]*(' | sed -e 's/^&(//' \
    -e 's/($//' -e 's/<.*//' -e 's/^[^ ]* //' | sort | uniq -c | sort -rn | sed 's/^/  /'
done
echo "total: $total"

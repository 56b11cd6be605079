#!/usr/bin/env python3
"""Proves check_repo.py rejects what it claims to: each case copies the Spack
repository to a scratch folder, breaks the recipe (or repo.yaml) in one way and
expects check_repo.py to fail naming the problem; the untouched copy must pass.

Usage: test_check_repo.py SPACK_REPO_DIR LIBRA_SOURCE_DIR BUILTIN_JSON SCRATCH_DIR
"""
import pathlib
import shutil
import subprocess
import sys

ANCHOR = 'depends_on("cxx", type="build")'
CASES = [
    # (what, file, text replaced, replacement, expected in the error output)
    ("unknown package", "package.py", ANCHOR, ANCHOR + '\n    depends_on("kokkos-kernelz@99:")',
     "'kokkos-kernelz' is not a package of Spack's builtin repository"),
    ("version range no builtin version has", "package.py", ANCHOR,
     ANCHOR + '\n    depends_on("kokkos-kernels@99:")',
     "no version of the builtin 'kokkos-kernels' is in @99:"),
    ("variant the dependency lacks", "package.py", ANCHOR,
     ANCHOR + '\n    depends_on("kokkos+cuda_lambdaz", when="+cuda")',
     "the builtin 'kokkos' has no variant 'cuda_lambdaz'"),
    ("variant that changes nothing", "package.py", ANCHOR,
     ANCHOR + '\n    variant("fortran", default=False, description="Fortran bindings")',
     "variant 'fortran' changes nothing"),
    ("when= naming a variant the recipe lacks", "package.py", ANCHOR,
     ANCHOR + '\n    depends_on("mpi", when="+fortran")',
     "'fortran' is not a variant of this recipe"),
    ("conflict without a reason", "package.py", ANCHOR,
     ANCHOR + '\n    conflicts("^kokkos@4.5")', "does not say why"),
    ("file:// URL", "package.py", 'git = "https://', 'git = "file://',
     "is not an https URL"),
    ("branch-only versions", "package.py", 'version("0.1.0", tag="v0.1.0")', "",
     "only branches"),
    ("old package API import", "package.py",
     "from spack_repo.builtin.build_systems.cmake import CMakePackage",
     "from spack_repo.builtin.build_systems.cmake import CMakePackage as _C\n"
     "from spack.package import CMakePackage", "does not load"),
    ("missing cached test source", "package.py", '"ca-GrQc.mtx"', '"no-such.mtx"',
     "is not in Libra's source tree"),
    ("CMake option Libra lacks", "package.py", '"LIBRA_ENABLE_CLI"', '"LIBRA_ENABLE_CLIX"',
     "LIBRA_ENABLE_CLIX is not a CMake option of Libra"),
    ("repo.yaml without api", "repo.yaml", "  api: v2.0\n", "", "expected v2.x"),
]


def run(check, repo, source, builtin):
    return subprocess.run([sys.executable, str(check), str(repo), str(source), str(builtin)],
                          capture_output=True, text=True)


def main(argv):
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    repo, source, builtin, scratch = (pathlib.Path(a) for a in argv[1:])
    check = pathlib.Path(__file__).with_name("check_repo.py")
    failures = 0
    for what, name, old, new, expected in [("untouched", None, None, None, None)] + CASES:
        copy = scratch / "spack_repo" / repo.name
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.copytree(repo, copy)
        if name:
            target = copy / "repo.yaml" if name == "repo.yaml" else next(
                copy.glob("packages/*/package.py"))
            text = target.read_text()
            if old not in text:
                print(f"FAIL {what}: '{old}' is not in {target.name}")
                failures += 1
                continue
            target.write_text(text.replace(old, new, 1))
        result = run(check, copy, source, builtin)
        output = result.stdout + result.stderr
        if expected is None:
            ok = result.returncode == 0
        else:
            ok = result.returncode == 1 and expected in output
        print(f"{'ok  ' if ok else 'FAIL'} {what}: exit {result.returncode}")
        if not ok:
            print(output)
            failures += 1
    shutil.rmtree(scratch, ignore_errors=True)
    print(f"{len(CASES) + 1 - failures} of {len(CASES) + 1} cases as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Checks Libra's Spack repository without Spack: repo.yaml names the namespace, every
packages/<name>/package.py defines the class Spack derives from <name>, and every
LIBRA_* CMake option a recipe passes exists in Libra's CMake code.

Usage: check_repo.py SPACK_REPO_DIR LIBRA_SOURCE_DIR NAMESPACE
"""
import ast
import pathlib
import re
import sys


def repo_namespace(repo_yaml):
    """The value of repo: namespace: in repo.yaml (plain text; no YAML library)."""
    in_repo = False
    for line in repo_yaml.read_text().splitlines():
        content = line.split("#", 1)[0].rstrip()
        if not content:
            continue
        if not line[0].isspace():
            in_repo = content == "repo:"
            continue
        match = re.fullmatch(r"\s+namespace:\s*['\"]?([A-Za-z0-9_.]+)['\"]?", content)
        if in_repo and match:
            return match.group(1)
    return None


def spack_class_name(package_dir_name):
    """Spack's rule: 'kokkos-kernels' and 'kokkos_kernels' both give KokkosKernels."""
    return "".join(part.capitalize() for part in re.split(r"[-_]", package_dir_name))


def cmake_cache_names(source_dir):
    """Names declared by option() or set(... CACHE ...) in Libra's CMake code."""
    files = [source_dir / "CMakeLists.txt", *sorted((source_dir / "cmake").glob("*.cmake"))]
    names = set()
    for path in files:
        text = path.read_text()
        names.update(re.findall(r"option\(\s*(LIBRA_\w+)", text))
        names.update(re.findall(r"set\(\s*(LIBRA_\w+)[^)]*\bCACHE\b", text))
    return names


def check_package(package_py, known_options):
    errors = []
    tree = ast.parse(package_py.read_text(), filename=str(package_py))
    expected = spack_class_name(package_py.parent.name)
    if not any(isinstance(n, ast.ClassDef) and n.name == expected for n in tree.body):
        errors.append(f"{package_py}: no class {expected}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            for name in re.findall(r"^LIBRA_[A-Z0-9_]+$", node.value):
                if name not in known_options:
                    errors.append(f"{package_py}: {name} is not a CMake option of Libra")
    return errors


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    repo_dir, source_dir, namespace = pathlib.Path(argv[1]), pathlib.Path(argv[2]), argv[3]
    errors = []
    found = repo_namespace(repo_dir / "repo.yaml")
    if found != namespace:
        errors.append(f"{repo_dir / 'repo.yaml'}: namespace is {found!r}, expected {namespace!r}")
    packages = sorted((repo_dir / "packages").glob("*/package.py"))
    if not packages:
        errors.append(f"{repo_dir / 'packages'}: no package.py")
    known_options = cmake_cache_names(source_dir)
    for package_py in packages:
        errors.extend(check_package(package_py, known_options))
    for error in errors:
        print(error, file=sys.stderr)
    if not errors:
        print(f"spack repo '{found}': {len(packages)} package(s) consistent with the CMake options")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

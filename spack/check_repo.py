#!/usr/bin/env python3
"""Checks Libra's Spack repository without Spack (which cannot run in CI).

Usage: check_repo.py SPACK_REPO_DIR LIBRA_SOURCE_DIR BUILTIN_JSON

SPACK_REPO_DIR is spack/spack_repo/<namespace>. Each packages/<name>/package.py is
executed the way Spack loads it, against small stand-ins for Spack's modules that
record every directive (depends_on, conflicts, variant, version, ...) with its
arguments fully evaluated (loops and f-strings included). Then it checks:

  * repo.yaml: `namespace` matches the folder, `api: v2.x` (Package API v2);
    the class is the one Spack derives from the folder name and its build-system
    bases come from spack_repo.builtin.build_systems;
  * every package named by depends_on / conflicts / requires (in the spec or its
    `when=`) is in BUILTIN_JSON, the record of Spack's builtin repository
    (or a virtual such as cxx); every version range there matches a version the
    builtin recipe has, every variant asked of it is one the builtin recipe has;
  * every variant of the recipe is used (in a `when=`, a dependency's spec or a
    define_from_variant), so no variant changes nothing; every conflicts() says
    why (msg=);
  * git/homepage/url are https (no file://); at least one version is a release
    (tag, commit or sha256), not only a branch; license() matches LICENSE at the
    repository root; maintainers() names someone;
  * the stand-alone tests: a test_* method, and every path given to
    cache_extra_test_sources exists in Libra's source tree;
  * every LIBRA_* CMake variable the recipe passes is declared in Libra's CMake code.
"""
import ast
import json
import pathlib
import re
import sys
import types

RECORDED = []  # (directive, args, kwargs) in the order the recipe made them


def _directive(name):
    def record(*args, **kwargs):
        RECORDED.append((name, args, kwargs))

    return record


class _Context:
    """`with when(...)` / `with default_args(...)`: recorded, then transparent."""

    def __init__(self, name, *args, **kwargs):
        RECORDED.append((name, args, kwargs))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _decorator_factory(*_args, **_kwargs):
    return lambda function: function


def _cache_extra_test_sources(_pkg, paths):
    RECORDED.append(("cache_extra_test_sources", (paths,), {}))


class _PackageBase:
    def define(self, name, value):
        return f"-D{name}={value}"

    def define_from_variant(self, name, variant=None):
        return f"-D{name}=<{variant or name}>"


class CMakePackage(_PackageBase):
    pass


class CudaPackage(_PackageBase):
    # Stand-in: a few of the values of Spack's CudaPackage.cuda_arch_values.
    cuda_arch_values = ("60", "70", "75", "80", "86", "89", "90", "90a", "100", "120")
    own_variants = ("cuda", "cuda_arch")


def _install_spack_stand_ins():
    package = types.ModuleType("spack.package")
    names = {
        name: _directive(name)
        for name in ("depends_on", "conflicts", "requires", "variant", "version",
                     "license", "maintainers", "patch", "provides", "extends",
                     "resource", "redistribute", "can_splice", "build_system")
    }
    names.update(when=lambda *a, **k: _Context("when", *a, **k),
                 default_args=lambda *a, **k: _Context("default_args", *a, **k),
                 run_after=_decorator_factory, run_before=_decorator_factory,
                 on_package_attributes=_decorator_factory,
                 cache_extra_test_sources=_cache_extra_test_sources,
                 join_path=lambda *parts: "/".join(parts))
    for name in ("which", "Executable", "working_dir", "make_jobs", "Version",
                 "InstallError", "SkipTest", "SpackError", "get_cmake_prefix_path",
                 "install_test_root", "filter_compiler_wrappers", "spack_cxx"):
        names.setdefault(name, None)
    package.__dict__.update(names)
    package.__all__ = list(names)
    modules = {"spack": types.ModuleType("spack"), "spack.package": package}
    for base in ("spack_repo", "spack_repo.builtin", "spack_repo.builtin.build_systems"):
        modules[base] = types.ModuleType(base)
    for system, cls in (("cmake", CMakePackage), ("cuda", CudaPackage)):
        module = types.ModuleType(f"spack_repo.builtin.build_systems.{system}")
        setattr(module, cls.__name__, cls)
        modules[module.__name__] = module
    sys.modules.update(modules)


# ---- specs ------------------------------------------------------------------
_TOKEN = re.compile(r"\^|@[^\s+~%^]+|[+~][A-Za-z0-9_]+|[A-Za-z0-9_]+=[^\s^]+|%[^\s^]+"
                    r"|[A-Za-z0-9][A-Za-z0-9._-]*")


def parse_spec(text):
    """Nodes of a spec string: [{name, versions, variants}], first node may be
    anonymous ('+cuda cuda_arch=90'), later ones follow '^'."""
    nodes = [{"name": None, "versions": [], "variants": []}]
    for token in _TOKEN.findall(text):
        node = nodes[-1]
        if token == "^":
            nodes.append({"name": None, "versions": [], "variants": []})
        elif token.startswith("@"):
            node["versions"].append(token[1:])
        elif token[0] in "+~":
            node["variants"].append(token[1:])
        elif "=" in token:
            node["variants"].append(token.split("=", 1)[0])
        elif token.startswith("%"):
            continue  # a compiler
        elif node["name"] is None and not node["versions"] and not node["variants"]:
            node["name"] = token
    return nodes


def _version_key(text):
    return [int(part) if part.isdigit() else -1 for part in text.split(".")]


def version_in(version, constraint):
    """Spack's meaning of a version constraint: 'a:b' (inclusive, b by prefix),
    'a:', ':b', 'a' (a and its sub-versions), or a comma-separated list."""
    if not re.fullmatch(r"[0-9][0-9.]*", version):
        return False  # develop, main: never what a bound means
    v = _version_key(version)
    for part in constraint.split(","):
        if ":" in part:
            lo, hi = part.split(":", 1)
            if lo and v < _version_key(lo):
                continue
            if hi and v[: len(_version_key(hi))] > _version_key(hi):
                continue
            return True
        if v[: len(_version_key(part))] == _version_key(part):
            return True
    return False


# ---- the checks ---------------------------------------------------------------
def spack_class_name(folder):
    """Spack's rule: 'kokkos_kernels' (Package API v2 folder) gives KokkosKernels."""
    return "".join(part.capitalize() for part in re.split(r"[-_]", folder))


def repo_yaml_values(path):
    """The `repo:` mapping of repo.yaml as plain strings (no YAML library)."""
    values, in_repo = {}, False
    for line in path.read_text().splitlines():
        content = line.split("#", 1)[0].rstrip()
        if not content:
            continue
        if not line[0].isspace():
            in_repo = content == "repo:"
            continue
        match = re.fullmatch(r"\s+([a-z_]+):\s*['\"]?([^'\"]*)['\"]?", content)
        if in_repo and match:
            values[match.group(1)] = match.group(2)
    return values


def cmake_cache_names(source_dir):
    """Names declared by option() or set(... CACHE ...) in Libra's CMake code and in
    the consumer project of the stand-alone tests."""
    files = [source_dir / "CMakeLists.txt", *sorted((source_dir / "cmake").glob("*.cmake")),
             source_dir / "cmake" / "install_test" / "CMakeLists.txt"]
    names = set()
    for path in files:
        text = path.read_text()
        names.update(re.findall(r"option\(\s*(LIBRA_\w+)", text))
        names.update(re.findall(r"set\(\s*(LIBRA_\w+)[^)]*\bCACHE\b", text))
    return names


class Checker:
    def __init__(self, builtin, own_variants, where):
        self.packages = builtin["packages"]
        self.virtuals = set(builtin["virtuals"])
        self.own_variants = own_variants
        self.where = where
        self.errors = []

    def error(self, message):
        self.errors.append(f"{self.where}: {message}")

    def check_spec(self, text, context):
        for index, node in enumerate(parse_spec(text)):
            name = node["name"]
            if name is None:
                if index == 0:  # this recipe's own variants
                    for variant in node["variants"]:
                        if variant not in self.own_variants:
                            self.error(f"{context} '{text}': '{variant}' is not a variant "
                                       "of this recipe")
                continue
            if name in self.virtuals:
                continue
            if name not in self.packages:
                self.error(f"{context} '{text}': '{name}' is not a package of Spack's "
                           "builtin repository (spack/builtin_packages.json)")
                continue
            known = self.packages[name]
            for constraint in node["versions"]:
                if "versions" in known and not any(
                        version_in(v, constraint) for v in known["versions"]):
                    self.error(f"{context} '{text}': no version of the builtin '{name}' "
                               f"is in @{constraint}")
            for variant in node["variants"]:
                if "variants" in known and variant not in known["variants"]:
                    self.error(f"{context} '{text}': the builtin '{name}' has no variant "
                               f"'{variant}'")


def string_constants(tree):
    return [n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def check_package(package_py, source_dir, builtin):
    RECORDED.clear()
    where = str(package_py)
    text = package_py.read_text()
    tree = ast.parse(text, filename=where)
    namespace = {"__name__": f"spack_repo.checked.{package_py.parent.name}"}
    try:
        exec(compile(tree, where, "exec"), namespace)
    except Exception as exc:  # the recipe itself does not load
        return [f"{where}: does not load: {type(exc).__name__}: {exc}"]
    errors = []
    expected = spack_class_name(package_py.parent.name)
    cls = namespace.get(expected)
    if not isinstance(cls, type):
        return [f"{where}: no class {expected} (Spack's name for "
                f"'{package_py.parent.name}')"]
    for base in cls.__mro__[1:]:
        if base in (CMakePackage, CudaPackage, _PackageBase, object):
            continue
        errors.append(f"{where}: base {base.__name__} does not come from "
                      "spack_repo.builtin.build_systems")
    if not re.search(r"^from spack_repo\.builtin\.build_systems\.", text, re.M):
        errors.append(f"{where}: build systems must be imported from "
                      "spack_repo.builtin.build_systems (Package API v2)")

    def calls(name):
        return [(args, kwargs) for n, args, kwargs in RECORDED if n == name]

    own_variants = {args[0] for args, _ in calls("variant")}
    if issubclass(cls, CudaPackage):
        own_variants.update(CudaPackage.own_variants)
    checker = Checker(builtin, own_variants, where)
    for directive in ("depends_on", "conflicts", "requires"):
        for args, kwargs in calls(directive):
            for spec in args:
                if isinstance(spec, str):
                    checker.check_spec(spec, directive)
            if isinstance(kwargs.get("when"), str):
                checker.check_spec(kwargs["when"], f"{directive}(when=)")
            if directive == "conflicts" and not kwargs.get("msg"):
                checker.error(f"conflicts('{args[0]}') does not say why (msg=)")
    for args, kwargs in calls("variant"):
        if isinstance(kwargs.get("when"), str):
            checker.check_spec(kwargs["when"], "variant(when=)")
    errors.extend(checker.errors)

    # Every variant is used somewhere.
    used_in = [kwargs.get("when", "") for _, _, kwargs in RECORDED]
    used_in += [a for n, args, _ in RECORDED if n != "variant" for a in args
                if isinstance(a, str)]
    used_in = " ".join(s for s in used_in if isinstance(s, str))
    from_variant = {n.args[1].value for n in ast.walk(tree)
                    if isinstance(n, ast.Call) and getattr(n.func, "attr", "")
                    == "define_from_variant" and len(n.args) > 1
                    and isinstance(n.args[1], ast.Constant)}
    for variant in sorted(own_variants - set(CudaPackage.own_variants)):
        if variant in from_variant:
            continue
        if not re.search(rf"(^|[\s^])[+~]{variant}\b|(^|\s){variant}=", used_in):
            errors.append(f"{where}: variant '{variant}' changes nothing (no when=, "
                          "dependency or define_from_variant uses it)")

    for attr in ("git", "homepage", "url"):
        value = getattr(cls, attr, None)
        if value is not None and not str(value).startswith("https://"):
            errors.append(f"{where}: {attr} = {value!r} is not an https URL")
    if not getattr(cls, "git", None) and not getattr(cls, "url", None):
        errors.append(f"{where}: neither git nor url")
    versions = calls("version")
    if not any({"tag", "commit", "sha256"} & set(kwargs) for _, kwargs in versions):
        errors.append(f"{where}: no release version (tag=, commit= or sha256=): only "
                      "branches")
    licenses = [args[0] for args, _ in calls("license")]
    license_file = source_dir / "LICENSE"
    if licenses != ["Apache-2.0 WITH LLVM-exception"]:
        errors.append(f"{where}: license() is {licenses}, expected "
                      "['Apache-2.0 WITH LLVM-exception'] as LICENSE says")
    elif not license_file.exists() or not all(
            s in license_file.read_text() for s in ("Apache License", "LLVM Exceptions")):
        errors.append(f"{license_file}: missing, or not Apache-2.0 with LLVM exceptions")
    if not any(all(isinstance(a, str) and a for a in args) and args
               for args, _ in calls("maintainers")):
        errors.append(f"{where}: maintainers() names nobody")

    # Stand-alone tests: test_* methods and sources that exist.
    if not [n for n in vars(cls) if n.startswith("test_") and callable(getattr(cls, n))]:
        errors.append(f"{where}: no stand-alone test (a test_* method)")
    for name, member in vars(cls).items():
        if callable(member) and "cache_extra_test_sources" in getattr(
                member, "__code__", types.SimpleNamespace(co_names=())).co_names:
            member(cls.__new__(cls))
    cached = [p for args, _ in calls("cache_extra_test_sources") for p in args[0]]
    if not cached:
        errors.append(f"{where}: cache_extra_test_sources is never called")
    for path in cached:
        if not (source_dir / path).exists():
            errors.append(f"{where}: cache_extra_test_sources: {path} is not in Libra's "
                          "source tree")

    known_options = cmake_cache_names(source_dir)
    for value in string_constants(tree):
        for name in re.findall(r"^LIBRA_[A-Z0-9_]+$", value):
            if name not in known_options:
                errors.append(f"{where}: {name} is not a CMake option of Libra")
    return errors


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    repo_dir, source_dir = pathlib.Path(argv[1]), pathlib.Path(argv[2])
    builtin = json.loads(pathlib.Path(argv[3]).read_text())
    _install_spack_stand_ins()
    errors = []
    values = repo_yaml_values(repo_dir / "repo.yaml")
    if values.get("namespace") != repo_dir.name:
        errors.append(f"{repo_dir / 'repo.yaml'}: namespace {values.get('namespace')!r} "
                      f"is not the folder's name {repo_dir.name!r}")
    if not re.fullmatch(r"v2\.\d+", values.get("api", "")):
        errors.append(f"{repo_dir / 'repo.yaml'}: api is {values.get('api')!r}, "
                      "expected v2.x (Package API v2)")
    if repo_dir.parent.name != "spack_repo":
        errors.append(f"{repo_dir}: a Package API v2 repository lives in spack_repo/")
    packages = sorted((repo_dir / "packages").glob("*/package.py"))
    if not packages:
        errors.append(f"{repo_dir / 'packages'}: no package.py")
    for package_py in packages:
        if not package_py.parent.name.isidentifier():
            errors.append(f"{package_py.parent}: not a Python module name (use _ for -)")
        errors.extend(check_package(package_py, source_dir, builtin))
    for error in errors:
        print(error, file=sys.stderr)
    if not errors:
        print(f"spack repo '{values.get('namespace')}': {len(packages)} package(s) "
              "checked; dependencies, variants, versions, license and tests consistent")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

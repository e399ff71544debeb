"""The layering rules of docs/architecture.md, checked on the source."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "visor"
SCENARIO_FRONT = ("visor.steps.commands", "visor.steps.context", "visor.steps.targets", "visor.steps.catalogue")
TOOLS_FRONT = ("visor.ext.tools",)
#: An agent tool run as a scenario step: the one tools module that may use the scenario front end.
BRIDGE = "ext/tools/step.py"
UI_LIBRARIES = {"click", "rich"}
UI_ALLOWED = ("cli/", "report/console.py")
#: Runtimes by name: outside `visor/runtimes/`, only the command line's choices may say them.
RUNTIME_NAMES = {"sim", "appium"}
RUNTIME_NAMES_ALLOWED = ("runtimes/", "cli/")


def test_the_import_contracts_hold() -> None:
    """The layers and the slices' independence (`[tool.importlinter]` in pyproject.toml), indirect imports too."""
    from importlinter.cli import lint_imports

    assert lint_imports(config_filename=str(PACKAGE.parent / "pyproject.toml"), no_cache=True, no_logo=True) == 0


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            # `from visor.steps import commands` imports the module visor.steps.commands.
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def within(name: str, packages: tuple[str, ...]) -> bool:
    """Return True when the module `name` is one of `packages` or inside one."""
    return any(name == package or name.startswith(package + ".") for package in packages)


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_the_cli_and_the_console_renderer_import_click_or_rich(path: Path) -> None:
    relative = str(path.relative_to(PACKAGE))
    if relative.startswith(UI_ALLOWED):
        return
    offending = {name for name in imported(path) if name.split(".")[0] in UI_LIBRARIES}
    assert not offending, f"{relative} imports {offending}"


def _public_definitions(tree: ast.AST) -> list[ast.ClassDef | ast.FunctionDef]:
    """Classes and functions reachable by public names: private classes' methods are not public."""
    found: list[ast.ClassDef | ast.FunctionDef] = []
    for node in getattr(tree, "body", []):
        if isinstance(node, ast.ClassDef | ast.FunctionDef) and not node.name.startswith("_"):
            found.append(node)
            if isinstance(node, ast.ClassDef):
                found.extend(_public_definitions(node))
    return found


OVERRIDES = {"nullable_schema", "field_title_should_be_set"}  # documented by the base class


def test_every_module_class_and_public_function_has_a_docstring() -> None:
    missing = []
    for path in modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if ast.get_docstring(tree) is None:
            missing.append(f"{path.relative_to(PACKAGE)} (module)")
        missing.extend(
            f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}"
            for node in _public_definitions(tree)
            if ast.get_docstring(node) is None and node.name not in OVERRIDES
        )
    assert not missing, missing


def _runtime_names_compared(tree: ast.AST) -> list[tuple[int, str]]:
    """Return where a comparison (`==`, `!=`, `in`, ...) has a runtime's name as a literal operand."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                literals = operand.elts if isinstance(operand, ast.Tuple | ast.List | ast.Set) else [operand]
                found.extend(
                    (node.lineno, literal.value)
                    for literal in literals
                    if isinstance(literal, ast.Constant) and literal.value in RUNTIME_NAMES
                )
    return found


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_runtimes_are_told_apart_by_capabilities_not_names(path: Path) -> None:
    """Above `visor/devices/`, what differs between runtimes is asked of `DeviceInfo.capabilities`."""
    relative = str(path.relative_to(PACKAGE))
    if relative.startswith(RUNTIME_NAMES_ALLOWED):
        return
    compared = _runtime_names_compared(ast.parse(path.read_text(encoding="utf-8")))
    assert not compared, f"{relative} compares runtime names: {compared}"


def test_the_runtime_name_check_sees_comparisons() -> None:
    tree = ast.parse('a == "sim"\nif "appium" != b: pass\nc in ("sim", "x")\nd = "sim"\n')
    assert _runtime_names_compared(tree) == [(1, "sim"), (2, "appium"), (3, "sim")]


def _relative(path: Path) -> str:
    return str(path.relative_to(PACKAGE))


@pytest.mark.parametrize("path", modules(), ids=_relative)
def test_no_relative_imports(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    relative = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level > 0]
    assert not relative, f"{_relative(path)}: relative imports on lines {relative}"


@pytest.mark.parametrize("path", modules(), ids=_relative)
def test_the_kernel_knows_no_front_end(path: Path) -> None:
    """Waiting, aiming, re-finding and wording faults are shared: the kernel may not lean on a vocabulary."""
    if not _relative(path).startswith("device/"):
        return
    reached = {name for name in imported(path) if within(name, SCENARIO_FRONT + TOOLS_FRONT)}
    assert not reached, f"{_relative(path)} reaches into a front end: {sorted(reached)}"


@pytest.mark.parametrize("path", modules(), ids=_relative)
def test_the_front_ends_do_not_reach_into_each_other(path: Path) -> None:
    relative = _relative(path)
    names = imported(path)
    if relative.startswith("ext/tools/") and relative != BRIDGE:
        reached = {name for name in names if within(name, SCENARIO_FRONT)}
        assert not reached, f"{relative} (a tool) reaches into the scenario commands: {sorted(reached)}"


def test_the_front_end_rules_see_imports() -> None:
    """The rules above are not vacuous: they see `from package import module` and the kernel's own imports."""
    assert "visor.device.protocol" in imported(PACKAGE / "device" / "context.py")
    assert "visor.steps.context" in imported(PACKAGE / "ext" / "tools" / "step.py")
    assert within("visor.ext.tools.basic", TOOLS_FRONT) and not within("visor.ext.toolsx", TOOLS_FRONT)


def _catalogued(package: Path) -> set[str]:
    """Return the names a package's docstring lists as `- \\`name\\`:` (a subpackage as `name/`)."""
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
    return {line.split("`")[1] for line in doc.splitlines() if line.startswith("- `")}


@pytest.mark.parametrize(
    "package", sorted(p.parent for p in PACKAGE.rglob("__init__.py") if p.parent != PACKAGE), ids=_relative
)
def test_each_package_lists_its_modules(package: Path) -> None:
    """The file catalogue lives next to the code: a package's docstring names each module and subpackage once."""
    held = {p.stem for p in package.glob("*.py") if p.name != "__init__.py"}
    held |= {f"{d.name}/" for d in package.iterdir() if (d / "__init__.py").is_file()}
    assert _catalogued(package) == held


#: The front ends import each command's core when it runs (so `visor --version` loads none: tests/cli/test_basics.py).
LAZY_FRONT_ENDS = ("cli/", "api.py", "pytest_plugin.py", "__main__.py")


def _unexplained_late_imports(source: str) -> list[int]:
    """Return the lines of imports inside functions that no comment explains (on the line, or above its block)."""
    lines = source.splitlines()
    found = []
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Import | ast.ImportFrom) and not _explained(lines, node.lineno - 1):
                found.append(node.lineno)
    return found


def _explained(lines: list[str], index: int) -> bool:
    """Say whether the import at `index` carries a comment, or the block of imports it is in starts under one."""
    if "#" in lines[index]:
        return True
    for text in (line.strip() for line in reversed(lines[:index])):
        if text.startswith("#") or (text.startswith(("import ", "from ")) and "#" in text):
            return True
        if not (text.startswith(("import ", "from ")) or not text):
            return False
    return False


@pytest.mark.parametrize("path", modules(), ids=_relative)
def test_an_import_inside_a_function_says_why(path: Path) -> None:
    """Imports go at the top; one kept late (an optional heavy library, start-up cost, a cycle) says why."""
    if path.relative_to(PACKAGE).as_posix().startswith(LAZY_FRONT_ENDS):
        return
    assert _unexplained_late_imports(path.read_text(encoding="utf-8")) == []


def test_the_late_import_rule_sees_imports_and_their_comments() -> None:
    source = "def f():\n    import a\n\ndef g():\n    # lazy: heavy\n    import b\n    import c\n\ndef h():\n    x = 1\n    import d  # cycle\n"
    assert _unexplained_late_imports(source) == [2]


def test_every_module_imports_without_the_optional_appium_client() -> None:
    """The plain install has no Appium client: only its own transport needs it at import (the rest, when used)."""
    code = (
        "import importlib, pkgutil, sys\n"
        "for name in ('appium', 'selenium'):\n    sys.modules[name] = None\n"
        "import visor\n"
        "failed = []\n"
        "for info in pkgutil.walk_packages(visor.__path__, 'visor.'):\n"
        "    try:\n        importlib.import_module(info.name)\n"
        "    except ImportError:\n        failed.append(info.name)\n"
        "print(' '.join(failed))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300)
    assert done.stdout.split() == ["visor.runtimes.appium.transport"]

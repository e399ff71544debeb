"""The layering rules of docs/architecture.md, checked on the source."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "visor"
# Lower ranks never import higher ones. `errors`, `clock`, `watchdog`, `files`, `limits` and `schemas` are the base everyone may use.
RANKS = {
    "errors": 0,
    "clock": 0,
    "schemas": 0,
    "watchdog": 0,
    "files": 0,
    "limits": 0,
    "scenario": 1,
    "actions": 2,
    "ui": 2,
    "engine": 3,
    "devices": 4,
    "report": 5,
    "agent": 5,
    "session": 6,
    "cli": 7,
    "__main__": 8,
    "__init__": 0,
}
UI_LIBRARIES = {"click", "rich"}
UI_ALLOWED = ("cli/", "report/console.py")
#: Runtimes by name: above `visor/devices/`, only the command line's choices may say them (and the factory does).
RUNTIME_NAMES = {"sim", "appium"}
RUNTIME_NAMES_ALLOWED = ("devices/", "cli/")


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def layer(path: Path) -> str:
    part = path.relative_to(PACKAGE).parts[0]
    return part.removesuffix(".py")


def imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_layers_import_downward_only(path: Path) -> None:
    own = RANKS[layer(path)]
    for name in imported(path):
        parts = name.split(".")
        if parts[0] != "visor" or len(parts) == 1:
            continue
        target = parts[1]
        assert RANKS[target] <= own or target == layer(path), f"{path.name} ({layer(path)}) imports {name}"


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

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
    "children": 0,
    "scenario": 1,
    "ui": 2,
    "actions": 3,
    "engine": 4,
    "devices": 5,
    "report": 6,
    "agent": 7,
    "session": 8,
    "cli": 9,
    "pytest_plugin": 9,  # a front end, as the command line is: pytest runs scenarios through the session layer
    "__main__": 10,
    "__init__": 0,
}
#: Inside `actions`: the kernel every front end acts through, and the two front ends over it.
KERNEL = ("visor.actions.kernel",)
SCENARIO_FRONT = (
    "visor.actions.step_commands",
    "visor.actions.step_context",
    "visor.actions.step_targets",
    "visor.actions.catalogue",
)
TOOLS_FRONT = ("visor.actions.tools",)
#: An agent tool run as a scenario step: the one tools module that may use the scenario front end.
BRIDGE = "actions/tools/step.py"
#: What of the tools the scenario front end may use: the bridge, and the records (to find a tool's details).
TOOLS_FOR_SCENARIOS = ("visor.actions.tools.step", "visor.actions.tools.registry", "visor.actions.tools.details")
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
            # `from visor.actions import commands` imports the module visor.actions.step_commands.
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def within(name: str, packages: tuple[str, ...]) -> bool:
    """Return True when the module `name` is one of `packages` or inside one."""
    return any(name == package or name.startswith(package + ".") for package in packages)


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_layers_import_downward_only(path: Path) -> None:
    own = RANKS[layer(path)]
    for name in imported(path):
        parts = name.split(".")
        if parts[0] != "visor" or len(parts) == 1:
            continue
        target = parts[1]
        if not (PACKAGE / target).is_dir() and not (PACKAGE / f"{target}.py").is_file():
            continue  # a name the package itself defines (`from visor import DISTRIBUTION`)
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
    if not _relative(path).startswith("actions/kernel/"):
        return
    reached = {name for name in imported(path) if within(name, SCENARIO_FRONT + TOOLS_FRONT)}
    assert not reached, f"{_relative(path)} reaches into a front end: {sorted(reached)}"


@pytest.mark.parametrize("path", modules(), ids=_relative)
def test_the_front_ends_do_not_reach_into_each_other(path: Path) -> None:
    relative = _relative(path)
    names = imported(path)
    if relative.startswith("actions/tools/") and relative != BRIDGE:
        reached = {name for name in names if within(name, SCENARIO_FRONT)}
        assert not reached, f"{relative} (a tool) reaches into the scenario commands: {sorted(reached)}"
    if within("visor." + relative.removesuffix(".py").replace("/", "."), SCENARIO_FRONT):
        reached = {name for name in names if within(name, TOOLS_FRONT) and not within(name, TOOLS_FOR_SCENARIOS)}
        assert not reached, f"{relative} (a scenario command) reaches into the tools: {sorted(reached)}"


def test_the_front_end_rules_see_imports() -> None:
    """The rules above are not vacuous: they see `from package import module` and the kernel's own imports."""
    kernel = PACKAGE / "actions" / "kernel" / "context.py"
    assert "visor.actions.device" in imported(kernel)
    assert "visor.actions.tools.details" in imported(PACKAGE / "actions" / "catalogue.py")
    assert within("visor.actions.tools.basic", TOOLS_FRONT) and not within("visor.actions.toolsx", TOOLS_FRONT)


#: Basenames that may repeat, by convention: a command module of `visor/cli/` named after the core module it
#: fronts (`cli/validate.py` over `scenario/validate.py`), and each runtime's `device.py` implementing the device
#: protocol (`actions/device.py`).
REPEATS_BY_CONVENTION = {
    "schema.py": {"scenario/schema.py", "cli/schema.py"},
    "validate.py": {"scenario/validate.py", "cli/validate.py"},
    "device.py": {
        "actions/device.py",
        "devices/sim/device.py",
        "devices/appium/device.py",
        "devices/visualagent/device.py",
    },
}


def test_module_names_are_unique_but_for_the_conventions() -> None:
    """A newcomer reading `targets.py` in a traceback must know which one: names say what a module holds."""
    places: dict[str, set[str]] = {}
    for path in modules():
        if path.name != "__init__.py":
            places.setdefault(path.name, set()).add(_relative(path))
    repeated = {name: found for name, found in places.items() if len(found) > 1}
    assert repeated == REPEATS_BY_CONVENTION

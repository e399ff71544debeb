"""The error vocabulary: the tree drawn in `visor/errors.py` is every `VisorError` there is, and true.

Every module of the package is imported, so a subclass defined anywhere is found; the tree in the module's
docstring must name the same classes with the same parents, and the code, exit code and module it states for a
class must be the class's own.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import re
from dataclasses import dataclass

import pytest

import visor
import visor.errors
from visor.errors import ErrorCode, ErrorInfo, VisorError

#: A line of the drawn tree: its box-drawing prefix (four characters a level), the class, and the columns after it.
TREE_LINE = re.compile(r"^ {4}(?P<prefix>(?:[│ ] {3})*(?:[├└]── )?)(?P<name>[A-Z]\w*)(?P<rest>.*)$")
CODE = re.compile(rf"^\s+(?P<code>{'|'.join(code.value for code in ErrorCode)})(?=\s)")
EXIT = re.compile(r"^\s+exit (?P<exit>\d+)(?=\s)")
#: A class defined outside `visor.errors` ends its line with its module, under `visor.`: `[actions.device]`.
MODULE = re.compile(r"\[(?P<module>[a-z_][\w.]*)\]\s*$")
INFO_PARAMETERS = ("likely_cause", "next_step", "details")


@dataclass(frozen=True)
class Drawn:
    """One class as the docstring's tree draws it."""

    name: str
    parent: str | None
    code: str | None
    exit_code: int | None
    module: str


def import_every_module() -> list[str]:
    """Import every module of the package (so that every subclass is defined); return their names."""
    names = []
    for info in pkgutil.walk_packages(visor.__path__, "visor."):
        importlib.import_module(info.name)
        names.append(info.name)
    return names


def real_classes() -> dict[str, type[VisorError]]:
    """Every subclass of `VisorError` defined in visor (tests may define their own), by name, with the base."""
    import_every_module()
    found: dict[str, type[VisorError]] = {}
    pending: list[type[VisorError]] = [VisorError]
    while pending:
        cls = pending.pop()
        if not cls.__module__.startswith("visor."):
            continue
        assert cls.__name__ not in found, f"two VisorError classes are named {cls.__name__}"
        found[cls.__name__] = cls
        pending.extend(cls.__subclasses__())
    return found


def the_tree(docstring: str) -> list[str]:
    """Return the lines of the literal block after the first `::` of a docstring (the drawn tree)."""
    return docstring.split("::\n", 1)[1].strip("\n").split("\n\n", 1)[0].splitlines()


def parse_tree(lines: list[str]) -> list[Drawn]:
    """Read the drawn classes: the indentation gives each one's parent, the columns its code, exit and module."""
    drawn: list[Drawn] = []
    ancestors: list[str] = []
    for line in lines:
        match = TREE_LINE.match(line)
        assert match, f"not a line of the tree: {line!r}"
        depth = len(match["prefix"]) // 4
        assert depth <= len(ancestors), f"{match['name']} is indented past its parent"
        del ancestors[depth:]
        rest = match["rest"]
        code = CODE.match(rest)
        rest = rest[code.end() :] if code else rest
        exit_code = EXIT.match(rest)
        module = MODULE.search(rest)
        drawn.append(
            Drawn(
                name=match["name"],
                parent=ancestors[-1] if ancestors else None,
                code=code["code"] if code else None,
                exit_code=int(exit_code["exit"]) if exit_code else None,
                module=f"visor.{module['module']}" if module else "visor.errors",
            )
        )
        ancestors.append(match["name"])
    return drawn


DOCUMENTED = parse_tree(the_tree(visor.errors.__doc__ or ""))
REAL = real_classes()


def test_every_module_of_the_package_imports() -> None:
    assert "visor.runtimes.appium.device" in import_every_module()


def test_the_tree_parser_reads_parents_codes_exits_and_modules() -> None:
    sample = [
        "    Base                         SYSTEM_ERROR  exit 1    the root",
        "    ├── Child                    INPUT_ERROR   exit 1    first child [x.y]",
        "    │   └── Grandchild                         exit 129  SIGHUP: under the first child",
        "    └── Second                                           second child (not a module)",
    ]
    assert parse_tree(sample) == [
        Drawn("Base", None, "SYSTEM_ERROR", 1, "visor.errors"),
        Drawn("Child", "Base", "INPUT_ERROR", 1, "visor.x.y"),
        Drawn("Grandchild", "Child", None, 129, "visor.errors"),
        Drawn("Second", "Base", None, None, "visor.errors"),
    ]


def test_the_drawn_tree_names_every_error_class_once() -> None:
    names = [drawn.name for drawn in DOCUMENTED]
    assert len(names) == len(set(names)), names
    assert sorted(names) == sorted(REAL), "visor/errors.py's tree differs from the VisorError classes in visor"


def test_the_drawn_tree_gives_every_class_its_real_parent() -> None:
    for drawn in DOCUMENTED:
        cls = REAL[drawn.name]
        parents = [base.__name__ for base in cls.__bases__ if issubclass(base, VisorError)]
        assert parents == ([] if drawn.parent is None else [drawn.parent]), drawn.name


@pytest.mark.parametrize("drawn", DOCUMENTED, ids=lambda drawn: drawn.name)
def test_what_the_tree_states_of_a_class_is_true(drawn: Drawn) -> None:
    cls = REAL[drawn.name]
    assert drawn.module == cls.__module__
    parent = REAL[drawn.parent] if drawn.parent else None
    if drawn.code is not None:
        assert drawn.code == cls.code
    else:
        assert parent is not None and cls.code is parent.code, f"{drawn.name}: the tree omits its code"
    if drawn.exit_code is not None:
        assert drawn.exit_code == cls.exit_code
    else:
        assert parent is not None and cls.exit_code is parent.exit_code, f"{drawn.name}: the tree omits its exit code"


@pytest.mark.parametrize("name", sorted(REAL))
def test_error_info_is_keyword_only(name: str) -> None:
    parameters = inspect.signature(REAL[name].__init__).parameters
    for parameter in parameters.values():
        if parameter.name in INFO_PARAMETERS:
            assert parameter.kind is inspect.Parameter.KEYWORD_ONLY, f"{name}.__init__({parameter.name})"


def test_error_info_fields_are_keyword_only() -> None:
    assert all(field.kw_only for field in dataclasses.fields(ErrorInfo))
    with pytest.raises(TypeError):
        ErrorInfo("INPUT_ERROR", "message", "cause", "next step")  # type: ignore[call-arg]
    info = ErrorInfo(code="INPUT_ERROR", message="message", likely_cause="cause", next_step="next step")
    assert info.to_dict() == {
        "code": "INPUT_ERROR",
        "message": "message",
        "likely_cause": "cause",
        "next_step": "next step",
    }

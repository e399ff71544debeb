"""The error vocabulary: the tree drawn in `visor/errors.py` is every `VisorError` there is, and true.

Every module of the package is imported, so a subclass defined anywhere is found; the tree in the module's
docstring must name the same classes with the same parents, and the code, exit code and module it states for a
class must be the class's own.
"""

from __future__ import annotations

import dataclasses
import errno
import importlib
import inspect
import pickle
import pkgutil
import re
from dataclasses import dataclass

import pytest

import visor
import visor.errors
from visor.device.protocol import InputRejected, Key, UnsupportedInput
from visor.errors import (
    DUPLICATE_KEY,
    UNWRITABLE_CAUSE,
    ErrorCode,
    ErrorInfo,
    InputError,
    NotInstalled,
    SourceError,
    VisorError,
    os_reason,
)
from visor.files import UnsafePath
from visor.report.artifacts import OutputError

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


# -- the words of common errors, said once by their class's constructors -------------------------------------------


def test_a_missing_library_is_the_callers_class_and_says_how_to_install_it() -> None:
    missing = NotInstalled.from_missing_library("networkx", "graph", needed_by="drawing the app map")
    assert type(missing) is NotInstalled and missing.code is ErrorCode.TARGET_ERROR
    assert missing.message == "drawing the app map needs networkx, which is not installed"
    assert (
        missing.likely_cause == "visor was installed without its dependencies (pip --no-deps), or networkx was removed."
    )
    assert missing.next_step == (
        "Install it: pip install 'visor-mobile[graph]' (from a checkout: pip install -e '.[graph]')."
    )
    said = InputError.from_missing_library("the MCP SDK", "mcp", needed_by="visor mcp", detail="No module named 'mcp'")
    assert type(said) is InputError and said.message.endswith("which is not installed (No module named 'mcp')")


def test_an_unwritable_file_is_named_with_the_systems_reason() -> None:
    full = OSError(errno.ENOSPC, "No space left on device", "/out/.tmp-junit.xml")
    error = OutputError.from_unwritable("/out/junit.xml", full)
    assert type(error) is OutputError and error.code is ErrorCode.INPUT_ERROR
    assert error.message == "cannot write '/out/junit.xml': No space left on device"
    assert error.likely_cause == UNWRITABLE_CAUSE == OutputError.default_cause and error.details == {}
    named = InputError.from_unwritable("/maps/a.json", UnsafePath("a.json is a folder"), noun="app map")
    assert named.message == "cannot write the app map /maps/a.json: a.json is a folder"
    assert os_reason(ValueError("embedded null byte")) == "embedded null byte"


def test_the_file_readers_refusals_name_the_file() -> None:
    missing = SourceError.from_missing("s.yaml", near="./x.yaml")
    assert missing.message == "s.yaml: no such file" and missing.next_step.endswith("Did you mean './x.yaml'?")
    denied = SourceError.from_unreadable("s.yaml", PermissionError(errno.EACCES, "Permission denied"))
    assert denied.message == "s.yaml: cannot read the file (Permission denied)"
    fifo = SourceError.from_not_regular("p", "a named pipe (FIFO)", noun="scenario")
    assert fifo.message == "p: this is a named pipe (FIFO), not a regular file" and "pipe" in fifo.likely_cause
    assert SourceError.from_not_regular("d", "a folder", noun="scenario").likely_cause.startswith("A directory")
    assert SourceError.from_too_large("big", 10, noun="scenario", size=1234).message == (
        "big: the scenario is too large (1,234 bytes; the limit is 10 bytes)"
    )
    assert SourceError.from_too_large("-", 10, noun="input").message == "-: the input is too large (more than 10 bytes)"
    outside = SourceError.from_outside("r/../x", "it leads out of its folder", noun="flow")
    assert outside.message == "r/../x: the flow is outside its folder: it leads out of its folder"


def test_the_parsers_refusals_carry_their_position() -> None:
    empty = SourceError.from_empty("s.yaml", "it holds only comments")
    assert empty.message == "s.yaml:1:1: the file is empty (it holds only comments)" and empty.line == 1
    long = SourceError.from_long_integer("s.json", "1" * 5000, line=2, column=3)
    assert long.message.startswith("s.json:2:3: the integer 111111111111… has 5,000 digits, more than visor reads")
    twice = SourceError.from_duplicate_key("s.json", "a", first_line=1, line=3, column=5, language="JSON")
    assert twice.message == "s.json:3:5: duplicate key 'a' (first defined at line 1)"
    assert twice.problem.startswith(DUPLICATE_KEY) and "one object; JSON would" in twice.likely_cause
    unplaced = SourceError.from_duplicate_key("s.yaml", "a", first_line=None, line=3, column=5, language="YAML")
    assert unplaced.problem == "duplicate key 'a'" and "one mapping; YAML would" in unplaced.likely_cause
    deep = SourceError.from_too_deep("s.yaml", 64, line=65, column=1)
    assert deep.message == "s.yaml:65:1: the document nests deeper than 64 levels"
    assert deep.next_step == "Flatten the structure."


def test_the_phones_storage_refusals_are_worded_once_for_every_runtime() -> None:
    assert InputRejected.from_no_folder("/sdcard/X").message == "no folder /sdcard/X on the device"
    assert InputRejected.from_no_file("/sdcard/x").message == "no file /sdcard/x on the device"
    assert InputRejected.from_existing("/sdcard/x").message == "/sdcard/x already exists"
    assert InputRejected.from_existing("/sdcard/x", writing=True).message.startswith("/sdcard/x already exists: ")
    outside = InputRejected.from_outside_storage("/data", "/sdcard")
    assert outside.message == "/data is outside the device's shared storage (/sdcard)"
    key = UnsupportedInput.from_missing_key(Key.BACK)
    assert type(key) is UnsupportedInput and key.code is ErrorCode.ACTION_ERROR
    assert key.message == "iOS has no back key" and "Back button" in key.next_step


@pytest.mark.parametrize(
    "made",
    [
        SourceError("bad indentation", path="a.yaml", line=2, column=3, next_step="Fix it."),
        SourceError.from_missing("b.yaml", near="a.yaml"),
        InputError("no such step", likely_cause="A typo.", details={"step": 3}),
    ],
)
def test_an_error_pickles_whole(made: Exception) -> None:
    """A forked validation sends its files' errors home pickled: each comes back the same, class and all."""
    copy = pickle.loads(pickle.dumps(made))
    assert type(copy) is type(made) and copy.args == made.args and copy.__dict__ == made.__dict__
    assert str(copy) == str(made)

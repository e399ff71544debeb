"""`visor import maestro FLOW|DIR... --output DIR`: write each Maestro flow as a visor scenario, checked.

Every flow is converted first, then written: a scenario never replaces a flow still to be read. Each flow's name
becomes a file name (letters, digits, `.`, `_`, `-`); two flows that would get the same name (the same file name
in two folders, `a b.yaml` beside `a_b.yaml`, names that differ only in case) get distinct ones, `-2`, `-3`…,
and the row says so. Files are written below the output folder only, never through a link, and never over a
file that was read as a flow. A scenario or `.env` file already in the output folder (an earlier import, or a
scenario of your own) is replaced only with `force`, and the row then says which it replaced (`replaced`); each
flow's `.env` is written before its scenario, so a scenario is never left without the values it names.

A folder with Maestro's workspace configuration (`config.yaml`) imports only the flows its `flows:` select, and
gets a `visor.toml` holding its tag filters and order (`visor.ext.maestro.workspace`); `data.workspace` says what
was written and what visor cannot honour, with the config's line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NotRequired, TypedDict

from visor.errors import ErrorInfo, ExitCode, InputError, NextAction
from visor.ext.maestro.convert import Converted, LeftOut, convert_flow, env_text, scenario_text
from visor.ext.maestro.workspace import CONFIG_NAMES, Workspace, ordered, project_toml, read_workspace, selected
from visor.files import UnsafePath, write_confined
from visor.inputs.document import Document
from visor.inputs.parameters import substitute
from visor.inputs.templates import parameter_names
from visor.jsontypes import JsonObject
from visor.report.envelope import Outcome
from visor.scenario.discovery import expand_paths
from visor.scenario.validate import validate_document

#: Characters kept in a scenario's file name; any other run of characters becomes `_`.
_UNSAFE_NAME = re.compile(r"[^\w.-]+")
#: The project file an imported workspace gets: its tag filters and order.
PROJECT_FILE = "visor.toml"
_FLOW_SUFFIXES = (".yaml", ".yml")


class _Row(TypedDict):
    """One flow's row of `data.imported`: its error, or the scenario written and what was left out of it."""

    flow: str
    error: NotRequired[dict[str, str]]
    scenario: NotRequired[str]
    #: How many steps it has, those in blocks counted.
    steps: NotRequired[int]
    left_out: NotRequired[list[LeftOut]]
    #: What Maestro passes over, and so does the scenario.
    ignored: NotRequired[list[LeftOut]]
    env_file: NotRequired[str]
    replaced: NotRequired[list[str]]
    renamed: NotRequired[str]
    app_id: NotRequired[str]
    valid: NotRequired[bool]
    issues: NotRequired[list[JsonObject]]
    #: The parameters (`${KEY}`) the flow has no value for: given when it runs (`-e KEY=VALUE`), as Maestro's are.
    needs: NotRequired[list[str]]


class _WorkspaceReport(TypedDict):
    """`data.workspace`: the configuration read, what it says, the project file written, and what it cannot say."""

    config: list[str]
    not_kept: list[LeftOut]
    order: NotRequired[list[str]]
    include_tags: NotRequired[list[str]]
    exclude_tags: NotRequired[list[str]]
    unordered: NotRequired[list[str]]
    project_file: NotRequired[str]
    error: NotRequired[dict[str, str]]


@dataclass(frozen=True, slots=True)
class _Source:
    """A flow to import: its path, the folder its includes stay in, and its path below that folder."""

    path: str
    root: str
    relative: str


def import_maestro(patterns: Sequence[str], output: str, *, force: bool = False) -> Outcome:
    """Convert every flow the patterns name into `output/<flow>.yaml` (and `<flow>.env`); return what was done.

    With `force`, files already there are replaced; without it, a flow whose file exists is that row's error.

    Raises:
        InputError: a pattern names no file; the output folder cannot be created.
    """
    rows: list[_Row] = []
    converted: list[tuple[_Row, Converted]] = []
    read: set[str] = set()
    workspaces = _workspaces(patterns)
    for source in _sources(patterns, workspaces):
        read.add(os.path.realpath(source.path))  # even one that does not convert: never written over
        try:
            flow = convert_flow(source.path, source.root, source.relative)
        except InputError as exc:
            rows.append({"flow": source.path, "error": exc.info().to_dict()})
            continue
        read.update(os.path.realpath(path) for path in flow.files)
        row: _Row = {"flow": source.path}
        rows.append(row)
        converted.append((row, flow))
    if not rows:
        raise InputError(
            f"no Maestro flow to import in {', '.join(map(repr, patterns))}",
            likely_cause="The folder holds no *.yaml or *.yml file besides Maestro's config.yaml.",
            next_step="Pass the folder that holds the flows, or the flow files themselves.",
        )
    _make_folder(output)
    written: list[str] = []
    unwritten: list[dict[str, str]] = []
    names = _names([row["flow"] for row, _ in converted])
    for (row, flow), name in zip(converted, names, strict=True):
        if not _write(row, flow, output, name, (read, force), written):
            unwritten.append(row["error"])
    extra: dict[str, _WorkspaceReport] = {}
    if workspaces:
        stems = {f"{stem}.yaml": (flow.scenario["meta"]["name"], _stem(row["flow"])) for (row, flow), (stem, _) in
                 zip(converted, names, strict=True) if "scenario" in row}  # fmt: skip
        extra["workspace"] = _write_project(list(workspaces.values()), stems, output, (read, force), written)
    return _outcome(rows, written, unwritten, extra)


def _stem(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]


def _workspaces(patterns: Sequence[str]) -> dict[str, Workspace]:
    """Read the workspace configuration of each folder named, by folder (normalized).

    Raises:
        SourceError: a configuration cannot be read or is malformed (at its line).
    """
    found = {}
    for pattern in patterns:
        workspace = read_workspace(pattern) if os.path.isdir(pattern) else None
        if workspace is not None:
            found[os.path.normpath(pattern)] = workspace
    return found


def _write_project(
    workspaces: list[Workspace],
    stems: dict[str, tuple[str, str]],
    output: str,
    refusing: tuple[set[str], bool],
    written: list[str],
) -> _WorkspaceReport:
    """Write `visor.toml` from the one workspace imported; return `data.workspace` (what it says, what it cannot)."""
    notes = [note for workspace in workspaces for note in workspace.notes]
    report: _WorkspaceReport = {"config": [workspace.source for workspace in workspaces], "not_kept": list(notes)}
    if len(workspaces) > 1:
        error = InputError(
            "several Maestro workspaces imported into one folder: no visor.toml is written",
            likely_cause="Two folders with a config.yaml were imported together; one visor.toml holds one order.",
            next_step="Import each workspace into a folder of its own.",
        )
        report["error"] = error.info().to_dict()
        return report
    workspace = workspaces[0]
    first = ordered(workspace.order, stems)
    missing = [name for name in workspace.order if not ordered([name], stems)]
    report.update({"order": first, "include_tags": list(workspace.include_tags),
                   "exclude_tags": list(workspace.exclude_tags)})  # fmt: skip
    if missing:
        report["unordered"] = missing  # Maestro refuses a flowsOrder name it cannot find; visor says so
    target = os.path.abspath(os.path.join(output, PROJECT_FILE))
    read, force = refusing
    if os.path.realpath(target) in read or (os.path.isfile(target) and not force):
        report["error"] = _exists_error([target])
        return report
    try:
        write_confined(output, PROJECT_FILE, project_toml(workspace, first).encode("utf-8"))
    except UnsafePath as exc:
        report["error"] = _write_error(InputError.from_unwritable(target, exc).message)
        return report
    except OSError as exc:
        report["error"] = _os_error(target, exc)
        return report
    written.append(target)
    report["project_file"] = target
    return report


def _sources(patterns: Sequence[str], workspaces: Mapping[str, Workspace]) -> Iterator[_Source]:
    """Yield each flow once: a folder's flows (*.yaml, *.yml, not Maestro's config.yaml) with the folder as root.

    A folder with a workspace configuration yields only the flows its `flows:` globs select.
    """
    seen: set[str] = set()
    for pattern in patterns:
        folder = os.path.isdir(pattern)
        paths = expand_paths([pattern])
        workspace = workspaces.get(os.path.normpath(pattern)) if folder else None
        if workspace is not None:
            chosen = selected(workspace, pattern, paths)
            paths = [path for path in paths if os.path.normpath(path) in chosen]
        for path in paths:
            key = os.path.normpath(path)
            relative = os.path.relpath(path, pattern).replace(os.sep, "/") if folder else os.path.basename(path)
            if key in seen or (folder and (relative in CONFIG_NAMES or not path.lower().endswith(_FLOW_SUFFIXES))):
                continue
            seen.add(key)
            yield _Source(path, pattern if folder else os.path.dirname(path) or ".", relative)


def _make_folder(output: str) -> None:
    try:
        os.makedirs(output, exist_ok=True)
    except (OSError, ValueError) as exc:
        raise InputError(
            f"cannot create the output folder {output!r}: {getattr(exc, 'strerror', None) or exc}",
            likely_cause="A file has that name, or this user may not write there.",
            next_step="Pass --output a folder this user can write.",
        ) from exc


def _names(flows: list[str]) -> list[tuple[str, str | None]]:
    """Return each flow's scenario file stem, and why it is not the flow's own name (another flow had it).

    A flow whose name is a file name already keeps it; the others (`a b`) take theirs (`a_b`) after them, so a
    clash renames the flow whose name changed anyway. A clash ignores case (macOS and Windows would).
    """
    stems = [os.path.splitext(os.path.basename(flow))[0] for flow in flows]
    bases = [_UNSAFE_NAME.sub("_", stem).lstrip(".")[:100] or "flow" for stem in stems]
    taken: dict[str, tuple[str, str]] = {}  # a name, folded: the flow that has it, and the name as written
    names: list[tuple[str, str | None]] = [("", None)] * len(flows)
    for index in sorted(range(len(flows)), key=lambda index: bases[index] != stems[index]):
        base, name, number = bases[index], bases[index], 1
        while name.casefold() in taken:
            number += 1
            name = f"{base}-{number}"
        taken[name.casefold()] = (flows[index], name)
        other, written = taken[base.casefold()]
        names[index] = (name, None if name == base else f"named {name}.yaml: {other} converts to {written}.yaml")
    return names


def _write(
    row: _Row,
    flow: Converted,
    output: str,
    name: tuple[str, str | None],
    refusing: tuple[set[str], bool],
    written: list[str],
) -> bool:
    """Write the env file (if any) and the scenario, then check it; say whether both were written.

    A write that cannot be done, or would replace a flow read (or, without `force`, a file already there), is the
    row's error, and nothing of that flow is written after it.
    """
    stem, renamed = name
    read, force = refusing
    files = [(f"{stem}.yaml", scenario_text(row["flow"], flow).encode("utf-8"))]
    if flow.env:
        files.append((f"{stem}.env", env_text(flow.env).encode("utf-8")))
    targets = [os.path.abspath(os.path.join(output, file)) for file, _ in files]
    clash = next((target for target in targets if os.path.realpath(target) in read), None)
    if clash is not None:
        row["error"] = _write_error(f"writing {clash} would replace a Maestro flow that was read")
        return False
    # A link, a folder or a FIFO there is refused by the confined writer itself, with what it is.
    there = [target for target in targets if os.path.isfile(target) and not os.path.islink(target)]
    if there and not force:
        row["error"] = _exists_error(there)
        return False
    for (file, data), target in reversed(list(zip(files, targets, strict=True))):
        try:
            write_confined(output, file, data)
        except UnsafePath as exc:
            row["error"] = _write_error(InputError.from_unwritable(target, exc).message)
            return False
        except OSError as exc:  # a full disk, a read-only file system, no permission
            row["error"] = _os_error(target, exc)
            return False
        written.append(target)
    row.update({"scenario": targets[0], "steps": _steps(flow.scenario["steps"]), "left_out": flow.left_out})
    if flow.ignored:
        row["ignored"] = flow.ignored
    if flow.env:
        row["env_file"] = targets[1]
    if there:
        row["replaced"] = there
    if renamed:
        row["renamed"] = renamed
    if flow.app_id:
        row["app_id"] = flow.app_id
    # A parameter without a value is no fault of the conversion: as with Maestro's `-e`, it is given at run time.
    document, _ = substitute(Document(targets[0], "yaml", flow.scenario, {}), flow.env)
    issues = [issue.to_dict() for issue in validate_document(document).issues if issue.is_error]
    row["valid"] = not issues
    if issues:
        row["issues"] = issues
    needs = sorted(_parameters(flow.scenario) - set(flow.env))
    if needs:
        row["needs"] = needs
    return True


def _parameters(value: object) -> set[str]:
    """Return the parameters (`${KEY}`) a scenario's data names, anywhere in it."""
    if isinstance(value, str):
        return set(parameter_names(value)) if "$" in value else set()
    if isinstance(value, dict):
        return set().union(*(_parameters(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(_parameters(item) for item in value))
    return set()


def _steps(items: Sequence[Mapping[str, object]]) -> int:
    """Count the steps of a scenario's items, those inside blocks too (a block is no step)."""
    count = 0
    for item in items:
        inner = item.get("steps")
        count += _steps(inner) if isinstance(inner, list) else 1
    return count


def _exists_error(there: list[str]) -> dict[str, str]:
    error = InputError(
        f"{' and '.join(there)} {'exist' if len(there) > 1 else 'exists'} already: nothing was replaced",
        likely_cause="An earlier import wrote it, or a scenario of yours has the flow's name.",
        next_step="Pass --force to replace it, or --output another folder.",
    )
    return error.info().to_dict()


def _os_error(target: str, exc: OSError) -> dict[str, str]:
    error = InputError.from_unwritable(
        target,
        exc,
        likely_cause="The disk is full, the file system is read-only, or this user may not write there.",
        next_step="Free some space, or pass --output a folder this user can write.",
    )
    return error.info().to_dict()


def _write_error(message: str) -> dict[str, str]:
    error = InputError(
        message,
        likely_cause="The output folder holds a symbolic link or a folder by that name, or is the flows' own folder.",
        next_step="Pass --output an empty folder of its own (not the flows' folder).",
    )
    return error.info().to_dict()


def _outcome(
    rows: list[_Row], written: list[str], unwritten: list[dict[str, str]], extra: Mapping[str, object]
) -> Outcome:
    invalid = [row for row in rows if not row.get("valid")]
    data = {**extra, "imported": rows, "totals": {"flows": len(rows), "valid": len(rows) - len(invalid),
                                         "left_out": sum(len(row.get("left_out", [])) for row in rows)}}  # fmt: skip
    project = extra.get("workspace")
    failed = project.get("error") if isinstance(project, dict) else None
    if not invalid and isinstance(failed, dict):  # the scenarios are there, but not the order and tags they run by
        error = ErrorInfo(code="INPUT_ERROR", message=f"visor.toml: {failed['message']}",
                          likely_cause=failed["likely_cause"], next_step=failed["next_step"])  # fmt: skip
        return Outcome("fail", NextAction.RUN, data, ExitCode.ERROR, error, written)
    if not invalid:
        return Outcome("ok", NextAction.RUN, data, ExitCode.OK, None, written)
    if len(unwritten) == len(invalid):  # every failure a file not written: the first one says which and why
        first = unwritten[0]
        error = ErrorInfo(
            code="INPUT_ERROR",
            message=f"{len(invalid)} of {len(rows)} flows could not be written: {first['message']}",
            likely_cause=first["likely_cause"],
            next_step=first["next_step"],
        )
        return Outcome("fail", NextAction.RUN, data, ExitCode.ERROR, error, written)
    also = f"; {len(unwritten)} could not be written: {unwritten[0]['message']}" if unwritten else ""
    error = ErrorInfo(
        code="INPUT_ERROR",
        message=f"{len(invalid)} of {len(rows)} flows did not convert into a valid scenario{also}",
        likely_cause="The file is no Maestro flow, or an include cannot be read, or a command's arguments are "
        "not ones visor can run.",
        next_step="See data.imported for each flow's error or issues, and fix the flow.",
    )
    return Outcome("fail", NextAction.VALIDATE, data, ExitCode.ERROR, error, written)

"""Validate a scenario document: every issue in one pass, located and in a stable order.

The pipeline: the top level is checked by `ScenarioDocument`; then each step and each assertion on its
own (so one broken item hides nothing in the others), with the command's or type's model; then the
checks that span items (duplicate ids, selectors for the platform `meta.platform` does not name) and the
warnings (no seed, unlabelled screenshots, unknown argument fields, capabilities that look misspelt).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TypeVar, cast

from pydantic import BaseModel, ValidationError

from visor.inputs.document import Document, Path, dotted, texts_of
from visor.inputs.issues import Issue, IssueCode, Severity, error, locate, warning
from visor.inputs.reading import LONE_SURROGATE
from visor.inputs.suggest import did_you_mean
from visor.inputs.templates import template_paths
from visor.limits import MAX_ASSERTIONS, MAX_ISSUES, MAX_STEPS
from visor.scenario.assertions import AssertionModel, assertion_model
from visor.scenario.blocks import MAX_NESTING, BlockHead, Condition, Repeat, StepItems, is_block, step_items
from visor.scenario.capability_check import capability_issues
from visor.scenario.commands import COMMANDS, Args, CommandSpec
from visor.scenario.families import CommandFamily, FamilyCall, family_names, family_of
from visor.scenario.fields import Owner
from visor.scenario.models import Output, ScenarioDocument, StepHead
from visor.scenario.project import in_project
from visor.scenario.scenario import Assertion, Block, Node, Scenario, Step, Template
from visor.scenario.selector_platforms import platform_issues

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Outline:
    """What a report shows of a valid scenario: its name, its version, and how many steps and assertions it has."""

    name: str
    version: str
    steps: int
    assertions: int


@dataclass(frozen=True, slots=True)
class ValidationResult:
    """The outcome of validating one document."""

    document: Document
    issues: tuple[Issue, ...]
    scenario: Scenario | None
    #: The outline of a scenario this result does not keep (sent back from a forked validation: a scenario
    #: costs far more to send than to report on). None: it is the scenario's own, or there is none.
    kept: Outline | None = None

    @property
    def outline(self) -> Outline | None:
        """Return what a report shows of the scenario; None when the document is not a valid scenario."""
        if self.kept is not None or self.scenario is None:
            return self.kept
        meta = self.scenario.meta
        return Outline(meta.name, meta.version, len(self.scenario.steps), len(self.scenario.assertions))

    @property
    def valid(self) -> bool:
        """Return True when no issue is an error."""
        return not any(issue.is_error for issue in self.issues)

    @property
    def errors(self) -> int:
        """Return how many issues are errors."""
        return sum(1 for issue in self.issues if issue.is_error)

    @property
    def warnings(self) -> int:
        """Return how many issues are warnings."""
        return len(self.issues) - self.errors


def validate_document(document: Document) -> ValidationResult:
    """Validate a parsed document and, when it is valid, build the typed `Scenario`."""
    data = document.data
    if not isinstance(data, dict):
        issue = error(IssueCode.TYPE_ERROR, "Scenario root must be object", ())
        return ValidationResult(document, tuple(locate([issue], document)), None)
    too_many = _too_many(data) or (_not_text(data) if not document.text_checked else [])
    if too_many:
        return ValidationResult(document, tuple(locate(too_many, document)), None)
    issues: list[Issue] = []
    head = _check(ScenarioDocument, data, Owner(ScenarioDocument, ()), issues)
    templates = document.templates if document.templates is not None else template_paths(data)
    found = _Found([], issues, set(templates), document.numbers)
    body = _check_body(data.get("steps"), ("steps",), 0, found)
    teardown = _check_body(data.get("teardown"), ("teardown",), 0, found) if data.get("teardown") else ()
    issues.extend(_templates_elsewhere(found.templates))
    assertions = _check_assertions(data.get("assertions"), issues)
    items = tuple(step_items(data))  # every step and block with its path: the checks below each read them all
    issues.extend(_duplicate_ids(data, document, items))
    issues.extend(_paths_outside_project(items, document))
    issues.extend(_artifacts_elsewhere(data))
    issues.extend(platform_issues(data, items))
    issues.extend(_determinism_warnings(data, items))
    issues.extend(capability_issues(data))
    located = _at_most(locate(issues, document))
    if head is None or body is None or teardown is None or assertions is None or any(i.is_error for i in located):
        return ValidationResult(document, located, None)
    scenario = Scenario(
        source=document.name,
        meta=head.meta,
        config=head.config,
        steps=tuple(found.leaves),
        assertions=assertions,
        output=head.output or Output(),
        warnings=located,
        body=body if teardown or any(isinstance(node, Block) for node in body) else (),
        teardown=teardown,
    )
    return ValidationResult(document, located, scenario)


def _too_many(data: Mapping[str, object]) -> list[Issue]:
    """Refuse a scenario with more steps or assertions than anyone writes, before looking at any of them."""
    found = []
    for section, limit in (("steps", MAX_STEPS), ("teardown", MAX_STEPS), ("assertions", MAX_ASSERTIONS)):
        items = data.get(section)
        if isinstance(items, list) and len(items) > limit:
            found.append(
                error(
                    IssueCode.TYPE_ERROR,
                    f"{section} must have at most {limit:,} items (got {len(items):,})",
                    (section,),
                    "Split the scenario into several files (visor validate and run take folders).",
                )
            )
    return found


def _at_most(issues: list[Issue]) -> tuple[Issue, ...]:
    """Keep the first `MAX_ISSUES` issues (by position), and say how many more there are."""
    if len(issues) <= MAX_ISSUES:
        return tuple(issues)
    kept = issues[:MAX_ISSUES]
    last = kept[-1]
    more = len(issues) - MAX_ISSUES
    note = replace(
        error(IssueCode.INPUT_ERROR, f"and {more:,} more issues not listed (the first {MAX_ISSUES:,} are)", ()),
        severity=Severity.ERROR if any(issue.is_error for issue in issues[MAX_ISSUES:]) else Severity.WARNING,
        line=last.line,
        column=last.column,
    )
    return (*kept, note)


def _check(model: type[M], raw: Mapping[str, object], owner: Owner, issues: list[Issue]) -> M | None:
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        from visor.scenario.translate import translate  # lazy: only invalid files need it

        issues.extend(translate(exc, owner))
        return None


def _items(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _indexed(value: object, section: str) -> Iterator[tuple[Path, Mapping[str, object]]]:
    """Yield a top-level list's mapping items with their paths."""
    for index, item in enumerate(_items(value)):
        if isinstance(item, dict):
            yield (section, index), item


@dataclass(frozen=True, slots=True)
class _Found:
    """What checking the steps finds: every step, those in blocks included, in order; and the issues."""

    leaves: list[Step]
    issues: list[Issue]
    #: The document's texts that hold a script's value; each step takes those in its arguments.
    templates: set[Path]
    #: The document's texts that are one parameter writing a number (`Document.numbers`).
    numbers: Mapping[Path, int | float] = field(default_factory=dict)


def _check_body(raw_items: object, prefix: Path, depth: int, found: _Found) -> tuple[Node, ...] | None:
    """Check a list of steps and blocks (the scenario's, or a block's); every step lands in `found.leaves`."""
    issues = found.issues
    nodes: list[Node] = []
    complete = isinstance(raw_items, list)
    for index, raw in enumerate(_items(raw_items)):
        path: Path = (*prefix, index)
        if not isinstance(raw, dict):
            issues.append(error(IssueCode.TYPE_ERROR, "step must be object", path))
            complete = False
            continue
        node = _check_block(raw, path, depth, found) if is_block(raw) else _check_step(raw, path, found)
        if node is None:
            complete = False
            continue
        nodes.append(node)
    return tuple(nodes) if complete else None


def _check_block(raw: dict[str, object], path: Path, depth: int, found: _Found) -> Block | None:
    issues = found.issues
    if depth >= MAX_NESTING:
        issues.append(error(IssueCode.TYPE_ERROR, f"blocks nest at most {MAX_NESTING} deep", path,
                            "Move the inner steps into a flow of their own (run_flow)."))  # fmt: skip
        return None
    count, raw = _count(raw, path, found.templates)
    head = _check(BlockHead, raw, Owner(BlockHead, path), issues)
    body = _check_body(raw.get("steps"), (*path, "steps"), depth + 1, found)
    if head is None or body is None:
        return None
    when = Condition.of(head.when) if head.when is not None else None
    repeat = Repeat.of(head.repeat, count) if head.repeat is not None else None
    retries = head.retry.times if head.retry is not None else 0
    return Block(head.id, body, when, repeat, retries, head.optional, head.context)


def _count(raw: dict[str, object], path: Path, templates: set[Path]) -> tuple[str | None, dict[str, object]]:
    """Return a repeat's `times` when it is a script's value (`${items.length}`), and the block with a count there.

    The value is known, and checked, as the block begins.
    """
    where = (*path, "repeat", "times")
    repeat = raw.get("repeat")
    if where not in templates or not isinstance(repeat, dict) or not isinstance(repeat.get("times"), str):
        return None, raw
    templates.discard(where)
    return repeat["times"], {**raw, "repeat": {**repeat, "times": _PROBE}}


#: What a step's check gives: its head, its arguments (a command's or a family's) and its condition.
_StepParts = tuple[StepHead, Args | FamilyCall, Condition | None]


def _check_step(raw: dict[str, object], path: Path, found: _Found) -> Step | None:
    issues, leaves = found.issues, found.leaves
    # Where no text is a script's value or a parameter's number (nothing in a step then depends on the rest of its
    # document), a step written as one before that passed is what it was then: head, arguments and condition.
    text = texts_of(raw)
    key = ("step", text) if text is not None and not found.templates and not found.numbers else None
    if key is not None and (known := _PASSED.get(key)) is not None:
        return _leaf(leaves, path, *cast(_StepParts, known), None)
    start = len(issues)
    head = _once(StepHead, raw, issues, lambda: _check(StepHead, raw, Owner(StepHead, path), issues), text)
    command, args = raw.get("command"), raw.get("args")
    template = _template(args, (*path, "args"), found.templates) if isinstance(args, dict) else None
    known_command = isinstance(command, str) and (command in COMMANDS or family_of(command) is not None)
    before, parsed = len(issues), None  # the arguments' own issues follow: a check again may take those back
    if not known_command:
        _unsupported(command, path, issues)
    elif isinstance(args, dict):
        parsed = _parse_args(str(command), args, (*path, "args"), issues)
        if parsed is None:
            parsed = _as_numbers(str(command), args, (*path, "args"), found, before)
        if parsed is None and template is not None:
            parsed = _probed(str(command), template, (*path, "args"), issues, before)
    if head is None or parsed is None:
        return None
    when = Condition.of(head.when) if head.when is not None else None
    if key is not None and template is None and len(issues) == start:
        _remember(key, (head, parsed, when))
    return _leaf(leaves, path, head, parsed, when, template)


def _leaf(
    leaves: list[Step],
    path: Path,
    head: StepHead,
    parsed: Args | FamilyCall,
    when: Condition | None,
    template: Template | None,
) -> Step:
    """Make the step at `path` the next of `leaves`."""
    step = Step(len(leaves), head.id, head.command, parsed, head.optional, when, template, path, head.context)
    leaves.append(step)
    return step


def _template(args: dict[str, object], path: Path, templates: set[Path]) -> Template | None:
    """Return a step's arguments as written when texts in them hold a script's value; they are the step's now."""
    depth = len(path)
    own = sorted((found for found in templates if found[:depth] == path), key=_stable_order)
    templates.difference_update(own)
    return Template(args, tuple(found[depth:] for found in own)) if own else None


def _stable_order(path: Path) -> tuple[tuple[int, int | str], ...]:
    return tuple((0, part) if isinstance(part, int) else (1, part) for part in path)


def _templates_elsewhere(templates: set[Path]) -> list[Issue]:
    """Refuse a script's value outside a step's arguments: nothing else is read as a step runs."""
    message = "a script's value (${…}) is read only in a step's arguments and a repeat's times"
    hint = "Write $${ for a literal ${."
    ordered = sorted(templates, key=_stable_order)
    return [error(IssueCode.TYPE_ERROR, f"{dotted(path)}: {message}", path, hint) for path in ordered]


#: What passed its check with no issue at all, by the kind of check and the JSON of what was checked: a suite's
#: files repeat their steps (the same sign-in, file after file), and a model's check is most of a step's cost.
#: The values are immutable (frozen models), so a repeat shares them; the cache is emptied when full.
_PASSED: dict[tuple[str, str], object] = {}
_PASSED_MAX = 4096


def _once(
    kind: type | str, raw: Mapping[str, object], issues: list[Issue], check: Callable[[], T], text: str | None = None
) -> T:
    """Return `check()`, or what it returned for the same `raw` (its JSON: `text`, if known) before without issue."""
    text = text if text is not None else texts_of(raw)
    key = (kind if isinstance(kind, str) else kind.__qualname__, text) if text is not None else None
    if key is not None and (known := _PASSED.get(key)) is not None:
        return cast(T, known)
    before = len(issues)
    value = check()
    if key is not None and value is not None and len(issues) == before:
        _remember(key, value)
    return value


def _remember(key: tuple[str, str], value: object) -> None:
    """Keep what passed its check without issue (`_PASSED`), emptying the memo when it is full."""
    if len(_PASSED) >= _PASSED_MAX:
        _PASSED.clear()
    _PASSED[key] = value


def _parse_args(command: str, args: dict[str, object], path: Path, issues: list[Issue]) -> Args | FamilyCall | None:
    """Check a known command's arguments (its model's, or its family's rules); None when they do not hold."""
    return _once(f"args:{command}", args, issues, lambda: _parse_args_of(command, args, path, issues))


def _parse_args_of(command: str, args: dict[str, object], path: Path, issues: list[Issue]) -> Args | FamilyCall | None:
    spec = COMMANDS.get(command)
    if spec is not None:
        return _check_args(spec, args, path, issues)
    family = family_of(command)
    return _check_member(family, command, args, path, issues) if family is not None else None


#: What a template stands for while a step is checked without its values: a number, the kind a text is not.
_PROBE = 1


def _as_numbers(
    command: str, args: dict[str, object], path: Path, found: _Found, before: int
) -> Args | FamilyCall | None:
    """Check a step again with its one-parameter texts that write a number as those numbers (`${TIMEOUT}`)."""
    depth = len(path)
    numbers = {where[depth:]: number for where, number in found.numbers.items() if where[:depth] == path}
    return _again(command, Template(args, tuple(numbers)), numbers, path, found.issues, before) if numbers else None


def _probed(command: str, template: Template, path: Path, issues: list[Issue], before: int) -> Args | FamilyCall | None:
    """Check a step again with a number for each template its errors are in (`${index}` where a count goes).

    When only its templates' values made it fail, it is valid until it runs: it is checked again then, with
    the values filled in. Otherwise its errors stand.
    """
    return _again(command, template, dict.fromkeys(template.paths, _PROBE), path, issues, before)


def _again(
    command: str, template: Template, values: Mapping[Path, object], path: Path, issues: list[Issue], before: int
) -> Args | FamilyCall | None:
    """Check a step again with `values` at the paths its errors are in; keep that when it holds, else the errors."""
    errors = [issue for issue in issues[before:] if issue.is_error]
    probed = {found: value for found, value in values.items() if any(_covers(e.path, (*path, *found)) for e in errors)}
    if not probed or any(not any(_covers(e.path, (*path, *p)) for p in probed) for e in errors):
        return None
    scratch: list[Issue] = []
    parsed = _parse_args(command, template.filled(probed), path, scratch)
    if parsed is None or any(issue.is_error for issue in scratch):
        return None
    issues[before:] = [issue for issue in issues[before:] if not issue.is_error]
    return parsed


def _covers(issue_path: Path, path: Path) -> bool:
    """Say whether an issue at `issue_path` may be about the value at `path` (it is that value, or holds it)."""
    return path[: len(issue_path)] == issue_path


def step_with_args(step: Step, args: dict[str, object]) -> Step | tuple[Issue, ...]:
    """Return `step` with `args` as its arguments, checked as validation checks them; else what is wrong.

    A step whose arguments hold a script's value is checked again once the step has filled them in.
    """
    issues: list[Issue] = []
    parsed = _parse_args(step.command, args, ("args",), issues)
    errors = tuple(issue for issue in issues if issue.is_error)
    if parsed is None or errors:
        return errors or (error(IssueCode.ARG_ERROR, f"Unsupported command '{step.command}'", ("args",)),)
    return replace(step, args=parsed)


def _check_member(
    family: CommandFamily, name: str, raw: dict[str, object], path: Path, issues: list[Issue]
) -> FamilyCall | None:
    """Check a family member's arguments with the family's own rules (an agent tool's: docs/agent-tools.md)."""
    checked = family.check(name, raw)
    if isinstance(checked, FamilyCall):
        return checked
    for found in checked:
        # The call's issues are located in its arguments: in the scenario they are ARG_ERRORs below the step.
        where = f"{name} args.{found.path_text()}" if found.path else f"{name} args"
        message = f"{where}: {found.message}"
        issues.append(replace(found, code=IssueCode.ARG_ERROR, message=message, path=(*path, *found.path)))
    return None


def _unsupported(command: object, path: Path, issues: list[Issue]) -> None:
    if isinstance(command, str):
        known = [*COMMANDS, *family_names()]
        hint = did_you_mean(command, known) or f"commands: {', '.join(known)}"
        message = f"Unsupported command '{command}'"
        issues.append(error(IssueCode.UNSUPPORTED_COMMAND, message, (*path, "command"), hint))


def _check_args(spec: CommandSpec, raw: dict[str, object], path: Path, issues: list[Issue]) -> Args | None:
    selected = spec.select(raw)
    if isinstance(selected, tuple):
        message, hint = selected
        issues.append(error(IssueCode.ARG_ERROR, message, path, hint))
        return None
    model = selected
    before = len(issues)
    issues.extend(error(IssueCode.ARG_ERROR, message, path) for message in model.rules(raw))
    accepted = model.accepted_keys()
    for key in raw.keys() - accepted:
        hint = did_you_mean(key, accepted)
        issues.append(
            warning(IssueCode.UNKNOWN_FIELD, f"Unknown field '{key}' ({model.owner} ignores it)", (*path, key), hint)
        )
    parsed = _check(model, raw, Owner(model, path, args_of=model.owner), issues)
    failed = any(issue.is_error for issue in issues[before:])
    return None if failed else parsed


def _check_assertions(raw_assertions: object, issues: list[Issue]) -> tuple[Assertion, ...] | None:
    assertions: list[Assertion] = []
    complete = raw_assertions is None or isinstance(raw_assertions, list)
    for index, raw in enumerate(_items(raw_assertions)):
        path: Path = ("assertions", index)
        if not isinstance(raw, dict):
            issues.append(error(IssueCode.TYPE_ERROR, "assertion must be object", path))
            complete = False
            continue
        model = assertion_model(raw)
        before = len(issues)
        issues.extend(error(IssueCode.ARG_ERROR, message, path) for message in model.rules(raw))
        parsed: AssertionModel | None = _check(model, raw, Owner(model, path), issues)
        if parsed is None or len(issues) > before:
            complete = False
            continue
        assertions.append(Assertion(index, parsed.id, parsed.type, parsed.target, parsed))
    return tuple(assertions) if complete else None


def _duplicate_ids(data: Mapping[str, object], document: Document, steps: StepItems) -> list[Issue]:
    issues: list[Issue] = []
    for section, noun in (("steps", "step"), ("assertions", "assertion")):
        first: dict[str, Path] = {}
        items = steps if section == "steps" else _indexed(data.get(section), section)
        for where, item in items:
            item_id = item.get("id")
            if not isinstance(item_id, str):
                continue
            path: Path = (*where, "id")
            if item_id in first:
                earlier = first[item_id]
                line = document.position(earlier).line
                issues.append(
                    error(
                        IssueCode.DUPLICATE_ID,
                        f"Duplicate {noun} id '{item_id}' (first used by {dotted(earlier[:-1])} at line {line})",
                        path,
                        f"{noun} ids must be unique: reports, JUnit cases and the signature are keyed by them",
                    )
                )
            else:
                first[item_id] = path
    return issues


def _paths_outside_project(steps: StepItems, document: Document) -> list[Issue]:
    """Refuse copies (`path`) that would be written outside the scenario's project folder."""
    issues: list[Issue] = []
    folder: str | None = None  # asked of the file system only for a step that copies to a path
    for where, step in steps:
        args = step.get("args")
        path = args.get("path") if isinstance(args, dict) else None
        if not isinstance(path, str) or "\x00" in path or os.path.isabs(path):
            continue  # the field's own check refuses these, and says why
        if folder is None:
            folder = os.path.dirname(document.name) if os.path.isfile(document.name) else "."
        project, placed = in_project(folder, path)
        if placed is None:
            issues.append(
                error(
                    IssueCode.ARG_ERROR,
                    f"{step.get('command')} args.path must stay inside the scenario's project folder {project}",
                    (*where, "args", "path"),
                    "The project is the nearest folder above the scenario with visor.toml, pyproject.toml or .git",
                )
            )
    return issues


def _not_text(data: Mapping[str, object]) -> list[Issue]:
    """Refuse values that are not text: bytes no UTF-8 decodes.

    A parameter (`-e T=$'\\xff'`), a secret or a direct action's flag brings them in (a file's own text is decoded
    strictly). Nothing could show or type them: the run failed inside visor (SYSTEM_ERROR). Iterative: the data
    may be deep.
    """
    issues: list[Issue] = []
    texts = texts_of(data)
    if texts is not None and LONE_SURROGATE.search(texts) is None:
        return issues
    pending: list[tuple[Path, object]] = [((), data)]
    while pending and len(issues) < MAX_ISSUES:
        path, value = pending.pop()
        if isinstance(value, str) and (found := LONE_SURROGATE.search(value)):
            byte = f"\\x{ord(found.group()) - 0xDC00:02x}" if 0xDC80 <= ord(found.group()) <= 0xDCFF else "a surrogate"
            issues.append(error(IssueCode.TYPE_ERROR, f"{dotted(path)} holds {byte}, which is not UTF-8 text",
                                path, hint="Give the value as UTF-8 text (a parameter, a secret or a flag "
                                "holding other bytes cannot be shown or typed)."))  # fmt: skip
        elif isinstance(value, dict):
            pending += [((*path, key), item) for key, item in reversed(value.items())]
        elif isinstance(value, list):
            pending += [((*path, number), item) for number, item in reversed(list(enumerate(value)))]
    return issues


def _artifacts_elsewhere(data: Mapping[str, object]) -> list[Issue]:
    """Warn of `config.artifactsDir` naming a folder outside the one visor runs in (upstream allows it).

    Run folders are new folders, written without following links; still, a scenario from elsewhere should not
    choose unseen where they land: the warning says so, and `--output` wins over it.
    """
    config = data.get("config")
    folder = config.get("artifactsDir") if isinstance(config, dict) else None
    if not isinstance(folder, str) or "\x00" in folder:
        return []
    parts = folder.replace("\\", "/").split("/")
    if not (os.path.isabs(folder) or folder.startswith("~") or ".." in parts):
        return []
    return [
        warning(
            IssueCode.ARG_ERROR,
            f"config.artifactsDir {folder!r} leads out of the folder visor runs in: run folders are written there",
            ("config", "artifactsDir"),
            "Keep it relative and inside the project (artifacts/ by default), or give --output when running."
            + (" `~` is not expanded: it names a folder called ~." if folder.startswith("~") else ""),
        )
    ]


def _determinism_warnings(data: Mapping[str, object], steps: StepItems) -> list[Issue]:
    issues: list[Issue] = []
    config = data.get("config")
    if not isinstance(config, dict) or "seed" not in config:
        issues.append(
            warning(
                IssueCode.DETERMINISM_WARNING,
                "config.seed is missing",
                ("config",),
                "add config.seed (an integer) so that random behaviour repeats from run to run",
            )
        )
    for where, step in steps:
        if step.get("command") == "screenshot":
            args = step.get("args")
            if isinstance(args, dict) and "label" not in args:
                issues.append(
                    warning(
                        IssueCode.DETERMINISM_WARNING,
                        "screenshot missing label may reduce determinism",
                        (*where, "args"),
                        "add args.label so the artifact has a stable name",
                    )
                )
    return issues

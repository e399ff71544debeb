"""`run_flow`: another scenario's steps put in where a step names it, as the scenario loads from its file.

The flow is read (through the one bounded reader), its `${KEY}` parameters given by the step's `env` first and
then by the run's, and validated as any scenario is. Its steps and blocks then stand in the step's place, as one
block with the step's id, `when` and `optional`; each of its ids is the step's id, `/`, its own
(`login/type-user`), so ids stay unique however often a flow runs. What is wrong in the flow is an issue at
the `run_flow` step, saying where in the flow it is. A flow's config, assertions and teardown belong to it when
it runs on its own: here the scenario's config holds, and its assertions and teardown are left out (a warning
says so). Its `${KEY}` values fill in its steps' texts; its scripts see the run's parameters, as every script.

A flow may run flows itself, at most `MAX_FLOW_DEPTH` deep; one that runs itself (a cycle) is an error.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace

from visor.inputs.document import Path
from visor.inputs.issues import Issue, IssueCode, error, warning
from visor.scenario.commands import RunFlowArgs
from visor.scenario.project import in_project
from visor.scenario.scenario import Block, Node, Scenario, Step

#: How deep flows may run flows: real projects nest two or three.
MAX_FLOW_DEPTH = 8

#: How a flow is loaded: its path, its parameters, the chain of flows that led to it.
Load = Callable[[str, Mapping[str, str], tuple[str, ...]], tuple[Scenario | None, tuple[Issue, ...]]]


@dataclass
class _Expanding:
    """One scenario's flows being put in: where it is, what it was given, and what went wrong so far."""

    path: str
    parameters: Mapping[str, str]
    chain: tuple[str, ...]
    load: Load
    issues: list[Issue] = field(default_factory=list)


def has_flows(scenario: Scenario) -> bool:
    """Say whether a step of the scenario runs a flow."""
    return any(step.command == "run_flow" for step in scenario.steps)


def expand_flows(
    scenario: Scenario, path: str, parameters: Mapping[str, str], load: Load, chain: tuple[str, ...] = ()
) -> tuple[Scenario | None, list[Issue]]:
    """Return the scenario with each `run_flow` step's flow put in, and the issues met (None: it is invalid)."""
    state = _Expanding(path, parameters, (*chain, os.path.realpath(path)), load)
    body = _nodes(scenario.nodes, "", state)
    teardown = _nodes(scenario.teardown, "", state)
    if any(issue.is_error for issue in state.issues):
        return None, state.issues
    body, teardown = _numbered(body, teardown)
    leaves = Block("", (*body, *teardown)).leaves()
    return replace(scenario, steps=leaves, body=body, teardown=teardown), state.issues


def _nodes(nodes: tuple[Node, ...], prefix: str, state: _Expanding) -> tuple[Node, ...]:
    out: list[Node] = []
    for node in nodes:
        if isinstance(node, Block):
            out.append(replace(node, id=prefix + node.id, body=_nodes(node.body, prefix, state)))
        elif node.command == "run_flow" and isinstance(node.args, RunFlowArgs):
            flow = _flow(node, node.args, state)
            if flow is not None:
                inner = _with_parameters(_nodes(flow.nodes, f"{prefix}{node.id}/", state), flow.parameters)
                out.append(Block(prefix + node.id, inner, node.when, optional=node.optional, context=node.context))
        else:
            out.append(replace(node, id=prefix + node.id))
    return tuple(out)


def _flow(step: Step, args: RunFlowArgs, state: _Expanding) -> Scenario | None:
    """Load the flow a step names; None (and an issue at the step) when it cannot be run."""
    where: Path = (*step.path, "args", "file")
    if step.template is not None:
        state.issues.append(error(IssueCode.ARG_ERROR, "run_flow args hold no script's value: the flow is read as "
                                  "the scenario loads", (*step.path, "args"), "Give env values as text; a script's "
                                  "outputs are the flow's to read (output.x)."))  # fmt: skip
        return None
    folder = os.path.dirname(state.path) or "."
    project, placed = in_project(folder, args.file)
    if placed is None:
        state.issues.append(error(IssueCode.ARG_ERROR, f"run_flow args.file must stay inside the project {project}",
                                  where))  # fmt: skip
        return None
    target = os.path.normpath(os.path.join(folder, args.file))
    if os.path.realpath(target) in state.chain:
        state.issues.append(error(IssueCode.ARG_ERROR, f"run_flow {args.file} runs itself (a cycle of flows)", where,
                                  "A flow cannot run a flow that led to it."))  # fmt: skip
        return None
    if len(state.chain) > MAX_FLOW_DEPTH:
        state.issues.append(error(IssueCode.ARG_ERROR, f"flows run flows more than {MAX_FLOW_DEPTH} deep here",
                                  where))  # fmt: skip
        return None
    flow, found = state.load(target, {**state.parameters, **args.env}, state.chain)
    # A flow's config is the scenario's that runs it: what is said of the flow's own does not apply.
    found = tuple(issue for issue in found if issue.is_error or issue.path[:1] != ("config",))
    state.issues.extend(_in_flow(issue, args.file, where) for issue in found)
    if flow is not None and (flow.assertions or flow.teardown):
        left = " and ".join(part for part, some in (("assertions", flow.assertions), ("teardown", flow.teardown))
                            if some)  # fmt: skip
        state.issues.append(warning(IssueCode.UNKNOWN_FIELD, f"run_flow {args.file}: its {left} run only when it "
                                    "runs on its own", where))  # fmt: skip
    return flow


def _in_flow(issue: Issue, file: str, where: Path) -> Issue:
    """Return an issue of a flow as one at the step that runs it, saying where in the flow it is."""
    at = f"{file}:{issue.line}:{issue.column}" if issue.line is not None else file
    return replace(issue, message=f"in {at}: {issue.message}", path=where, line=None, column=None, at=None)


def _with_parameters(nodes: tuple[Node, ...], parameters: Mapping[str, str]) -> tuple[Node, ...]:
    """Return a flow's nodes, each step that fills in a script's value filling its `${KEY}`s with the flow's."""
    return tuple(
        replace(node, body=_with_parameters(node.body, parameters)) if isinstance(node, Block)
        else replace(node, template=replace(node.template, parameters={**parameters, **node.template.parameters}))
        if node.template is not None else node
        for node in nodes
    )  # fmt: skip


def _numbered(body: tuple[Node, ...], teardown: tuple[Node, ...]) -> tuple[tuple[Node, ...], tuple[Node, ...]]:
    """Return the nodes with every step's index its place among all the steps, in order."""
    counter = itertools.count()
    return _renumbered(body, counter), _renumbered(teardown, counter)


def _renumbered(nodes: tuple[Node, ...], counter: Iterator[int]) -> tuple[Node, ...]:
    return tuple(
        replace(node, body=_renumbered(node.body, counter)) if isinstance(node, Block)
        else replace(node, index=next(counter))
        for node in nodes
    )  # fmt: skip

"""visor's own words in an output: statuses, codes, command names, platforms — never a secret's, whatever it is.

Masking a `--secret` value masks every string of the data it appears in; but a status or a code is visor's
word, not data: a secret `fail` must not make a failed step `•••ed` (clients read these fields against the
envelope's schema). A field named for such a word keeps its value when it is exactly one of them; any other
value (a user's text typed there, an unknown command that quotes the scenario) is masked as usual.
"""

from __future__ import annotations

from typing import get_args

from visor.errors import ErrorCode, NextAction
from visor.inputs.issues import IssueCode
from visor.plugs import per_generation
from visor.scenario.assertions import ASSERTIONS
from visor.scenario.commands import COMMANDS
from visor.scenario.families import FAMILIES

#: The fields whose values are visor's vocabulary.
FIELDS = frozenset({"status", "code", "command", "type", "platform", "next_action", "severity", "runtime", "tool"})
_STATUSES = ("ok", "fail", "failed", "passed", "flaky", "xfailed", "error", "skipped", "interrupted", "refused",
             "success")  # fmt: skip
_PLATFORMS = ("android", "ios", "web")
_RUNTIMES = ("sim", "appium", "local", "visualagent")


@per_generation
def words() -> frozenset[str]:
    """Return every word of visor's vocabulary (from the enums and tables that define them, the plugged ones too)."""
    # The engine's results are more than a validation needs to load: they are imported once a secret is masked.
    from visor.engine.results import StepStatus  # lazy: start-up

    found: set[str] = {*_STATUSES, *_PLATFORMS, *_RUNTIMES, "warning", *get_args(StepStatus)}
    for codes in (ErrorCode, NextAction, IssueCode):
        found.update(str(code) for code in codes)
    found.update(COMMANDS, ASSERTIONS)
    for family in FAMILIES.values():  # the agent tools' names, codes and statuses
        found.update(family.words())
    return frozenset(found)


def kept(key: object, value: object) -> bool:
    """Say whether `value`, held under `key`, is one of visor's words that masking leaves as it is."""
    return key in FIELDS and isinstance(value, str) and value in words()

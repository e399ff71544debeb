"""What steps report in their details, typed, with each key's part in the signature declared: the shared shapes.

Details are JSON objects in the envelope. Here each shape is a `TypedDict`, so executors are checked by mypy,
and each key says what it is to the determinism signature (`visor.engine.signature` reads these declarations):

- a plain key is *signed*: it describes what the step did and must be equal between identical runs;
- `Volatile[...]` is left out: a duration, a wait, or a place outside the run's folder, which may differ;
- `Evidence[...]` is left out and names an artifact the run wrote in its folder (a screenshot, a page source):
  the run's artifact list and the HTML report's pictures are read from these keys;
- `Copy[...]` is left out: another name for what the signature already has (upstream Visor's `action` is the
  step's command, its `platform` the run's). Signing it again would add nothing and change every signature.

A command's own shape lives with its executor (`TapDetails` in `visor.steps.commands.tap`); here are the marks,
the parts several shapes hold (a target, an element found by the device's locator), what any failed step
reports and what the engine adds to every step.

Upstream Visor's own keys (`action`, `platform`, and its result fields inside `args`: a capture's `file`,
`bytes`…, a wait's `matched`, `elapsed_ms`…) are reported beside visor's, for scripts written against upstream;
each is a `Copy` or `Volatile` key, so the signature of a run is the same as before they were reported.

A key a step reports that its shape does not declare is signed (the safe side) and reported by the projection
(`visor.engine.projection.Signed.unclassified`); every run the test suite makes through the command line fails
on one, so a new key must be classified when it is added.
"""

from __future__ import annotations

import enum
from typing import Annotated, NotRequired, TypedDict, TypeVar

from visor.ui.description import ElementInfo

T = TypeVar("T")


class Role(enum.Enum):
    """What a detail key is to the determinism signature."""

    SIGNED = "signed"
    VOLATILE = "volatile"
    EVIDENCE = "evidence"
    COPY = "copy"


#: Left out of the signature: a duration, a wait, a size or a place, which may differ between identical runs.
Volatile = Annotated[T, Role.VOLATILE]
#: Left out of the signature, and listed as an artifact: the path of a file the run wrote in its folder.
Evidence = Annotated[T, Role.EVIDENCE]
#: Left out of the signature: a value it already has under another name (upstream's name for it).
Copy = Annotated[T, Role.COPY]

#: The commands whose steps report upstream Visor's `action` and `platform` (its adapter's commands).
UPSTREAM_ACTIONS = frozenset({"tap", "navigate", "act", "scroll", "screenshot", "wait", "source"})


class UpstreamKeys(TypedDict, total=False):
    """Upstream Visor's keys on a step that went well: `action` (the command), `platform` (the run's)."""

    action: Copy[str]
    platform: Copy[str]


class ScrollInfo(TypedDict):
    """A UiScrollable's search (`visor.steps.scroll_into_view`): the container, its axis, the swipes, the end."""

    container: ElementInfo
    direction: str
    max_swipes: int
    backward: int
    forward: int
    outcome: str


class NativeInfo(TypedDict, total=False):
    """How a device's own locator engine resolved a selector (`target.native`).

    What it found is signed; how visor asked is not: the expression a selector translates to may differ between
    identical runs (a short id is completed once the app's package is known), and a driver's refusal words are
    its own.
    """

    strategy: Volatile[str]
    expression: Volatile[str]
    found: int
    #: How many of those were described (box and class) to be matched; the first few only.
    described: int
    matched: int
    ties: int
    unmatched: int
    used: bool
    reason: Volatile[str]


class TargetInfo(TypedDict):
    """The element a selector resolved to: the selector, how many matched, and the element used."""

    selector: str
    matches: int
    #: The element used, as the screen showed it (absent when the device found it without the screen being read).
    element: NotRequired[ElementInfo]
    #: How the device's own locator engine resolved it (strategy, found, matched…), when it owns the grammar.
    native: NotRequired[NativeInfo]
    #: How a UiScrollable's container was swiped to bring the element into view, when it was.
    scrolled: NotRequired[ScrollInfo]


class Candidate(TypedDict):
    """An element on screen like the one a selector asked for."""

    selector: str
    element: str


class ArgsOnly(TypedDict):
    """A command whose details are its arguments (act's keys, reset)."""

    args: dict[str, object]


#: What a failed step reports, whichever command failed (every key any step failure names).
FailureDetails = TypedDict(
    "FailureDetails",
    {
        "args": dict[str, object],
        "selector": str,
        "matches": int,
        "on_screen": int,
        "candidates": list[Candidate],
        "element": ElementInfo,
        "covered_by": ElementInfo,
        "scrolled": ScrollInfo,
        "text_fields": list[ElementInfo],
        "slider": ElementInfo | None,
        "field": ElementInfo,
        "container": ElementInfo | None,
        "target": TargetInfo,
        "point": list[int],
        "screen": list[int] | str,
        "from": list[int],
        "to": list[int],
        "moved": bool,
        "value_text": str | None,
        "verified": bool,
        "value": float,
        "timeout_ms": Volatile[int],
        # a text step's: a field's length before and after erasing, the backspaces sent
        "before": int,
        "after": int,
        "pressed": int,
    },
    total=False,
)


class Recovery(TypedDict):
    """A step that ran again after its session was recreated."""

    session_restarted: bool
    reason: str


class Kept(TypedDict):
    """An artifact kept as evidence."""

    path: Evidence[str]


class KeptScreen(TypedDict, total=False):
    """The screen kept as evidence of a failed step or assertion."""

    screenshot: Kept
    source: Kept


class Decision(TypedDict, total=False):
    """A `when`, decided: whether the step or block ran, and what of the screen (or platform, or script) decided it."""

    taken: bool
    platform: str
    #: How many elements the `visible` and `not_visible` selectors matched on the screen.
    visible: int
    not_visible: int
    #: The value of the `true` expression, as JSON.
    true: object
    #: How long it looked again for its screen (`within_ms`).
    waited_ms: Volatile[float]


class RepeatDetails(TypedDict, total=False):
    """A repeat block's runs, and what stopped it: its count (`times`) or its condition (`condition`)."""

    runs: int
    stopped: str


class RetryDetails(TypedDict, total=False):
    """A retry block's attempts: how many it took, and how many were retries."""

    attempts: int
    retried: int


class EngineDetails(TypedDict, total=False):
    """What the engine adds to every step's details: the screen after it, a recovery, kept evidence, a skip.

    And the decisions of the scenario's flow: a `when` (`when`), an optional step that missed (`optional`, its
    message in `missed`), a step failed in an attempt a retry replaced (`retried`), a block's repeats or retries,
    and what a step's `${…}` were filled in with (`filled`).
    """

    screen: str
    #: Why the screen could not be read after the step (then it has no `screen`).
    screen_unread: str
    #: The app crashed in the step (`APP_CRASHED`): how, and the log lines that say so (their times the device's).
    crash: Volatile[dict[str, object]]
    #: A failed step's slice of the device's log: how many lines, and the last of them.
    log: Volatile[dict[str, object]]
    recovery: Volatile[Recovery]
    evidence: Evidence[KeptScreen]
    reason: str
    when: Decision
    optional: bool
    missed: Volatile[str]
    retried: bool
    repeat: RepeatDetails
    retry: RetryDetails
    #: How many of a block's steps failed.
    failed: int
    #: The step is the teardown's.
    teardown: bool
    #: How often a repeat whose `times` is a script's value was to run, that value filled in as it began.
    count: int
    #: What the arguments' `${…}` were filled in with as the step started, by argument (`target.text`).
    filled: dict[str, str]


class Observed(TypedDict, total=False):
    """What a failed assertion keeps besides what it saw: the screen it was checked on."""

    evidence: Evidence[KeptScreen]

"""An annotation document for the app map (`visor discover --annotate-current FILE|-`).

Upstream's `screen` names the screen being observed (`label` and `purpose`, with `description` and `notes`), and
its `actions` say what can be done there (`command`, `args`, `label`, `intent`, `safety`: safe, needs-input, risky
or unknown; `args` checked as a scenario step's, a `type` without its `value` allowed). visor adds what a crawl
needs to get past a form and in through deep links, and what proves the screen was reached:

```yaml
screen: {label: Sign in, purpose: Authenticate with the demo account}
actions:
  - {command: tap, args: {target: "id=com.example:id/login"}, label: Log in, intent: authenticate, safety: safe}
  - {command: tap, args: {target: "text=Forgot password"}, label: Reset, intent: reset, safety: risky}
required_targets: ["id=com.example:id/username"]         # a route has reached the screen when these show
inputs: {username: DEMO_USER, password: DEMO_PASSWORD}   # field id -> environment variable (never stored)
entries: ["demo://feed", "demo://settings"]              # deep links the crawl also starts from
```
"""

from __future__ import annotations

from typing import Annotated, BinaryIO, Literal

from pydantic import Field, model_validator

from visor.inputs.data import read_document
from visor.inputs.issues import IssueCode
from visor.scenario.fields import InputModel, SelectorStr, plain_error
from visor.scenario.model_files import document_model, refusal
from visor.scenario.step_args import argument_issues

Text = Annotated[str, Field(min_length=1, max_length=4096, pattern=r"\S")]
Safety = Literal["safe", "needs-input", "risky", "unknown"]
#: A placeholder standing in for a `type` action's omitted value while its arguments are checked.
_UNTYPED = "…"


class ScreenNote(InputModel):
    """What a screen is."""

    label: Text
    purpose: Text
    description: Text | None = None
    notes: list[Text] | None = None


class ActionNote(InputModel):
    """Something that can be done on the screen, and how safe it is (a `safety` overrides visor's own reading)."""

    command: Literal["tap", "navigate", "act", "scroll", "screenshot", "wait", "source"]
    args: dict[str, object]
    label: Text
    intent: Text
    safety: Safety
    description: Text | None = None
    notes: list[Text] | None = None

    def as_step(self, number: int) -> dict[str, object]:
        """Return it as a scenario step (to check its arguments)."""
        args = dict(self.args)
        if self.command == "act" and args.get("name") == "type":
            args.setdefault("value", _UNTYPED)
        return {"id": f"action-{number}", "command": self.command, "args": args}


class MapAnnotation(InputModel):
    """An annotation document."""

    screen: ScreenNote | None = None
    actions: list[ActionNote] | None = Field(default=None, max_length=200)
    required_targets: list[SelectorStr] | None = Field(default=None, min_length=1, max_length=16)
    inputs: dict[Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")],
                 Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]] = Field(default_factory=dict)  # fmt: skip
    entries: list[Annotated[str, Field(min_length=3, max_length=4096, pattern=r"^[a-zA-Z][a-zA-Z0-9+.-]*://")]] = Field(
        default_factory=list, max_length=100
    )

    @model_validator(mode="after")
    def _says_something(self) -> MapAnnotation:
        if not (self.screen or self.actions or self.required_targets or self.inputs or self.entries):
            raise plain_error(
                IssueCode.MISSING_REQUIRED,
                "Annotation must contain screen, at least one action, required_targets, inputs or entries",
            )
        return self


def read_annotation(path: str, stdin: BinaryIO | None = None) -> MapAnnotation:
    """Read an annotation document (`-` is standard input); its actions' arguments are checked as steps' are.

    Raises:
        SourceError: it cannot be read or parsed.
        InputError: "Invalid discovery annotation", with every problem located.
    """
    next_step = "Fix the annotation and retry before navigating away from the current screen."
    prefix = "Invalid discovery annotation: "
    document = read_document(path, stdin)
    note = document_model(document, MapAnnotation, "annotation", next_step, prefix=prefix)
    steps = [action.as_step(number) for number, action in enumerate(note.actions or [])]
    problems = argument_issues(steps, ("actions",))
    if problems:
        raise refusal(problems, document, "annotation", next_step, prefix)
    return note

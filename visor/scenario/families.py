"""Command families: scenario commands a feature names, checks and describes itself (the agent tools).

A family's members are steps like any other (`command: click`), but their arguments follow the family's own
rules, not a pydantic model of the core: the core asks the family (`family_of`) and never knows its names. A
feature plugs its family in through `visor.plugs` ("families"); `visor.api` plugs the agent tools in. The family
is loaded the first time a name is looked up, and its heavy parts (the tools' models) only when a member is
checked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from visor.inputs.issues import Issue
from visor.jsontypes import JsonObject
from visor.plugs import Registry


@dataclass(frozen=True, slots=True)
class FamilyCall:
    """One checked call of a family's member: its name, its typed arguments, and the arguments as given."""

    name: str
    #: The family's own typed arguments (an agent tool's `ToolSpec.args_type`); its runner checks their type.
    args: object
    raw: Mapping[str, object]


class CommandFamily(Protocol):
    """What the core asks of a family of commands."""

    #: What a member is called in messages ("agent tool").
    noun: str

    def names(self) -> Sequence[str]:
        """Return the members' names, in the family's order."""
        ...

    def check(self, name: str, raw: Mapping[str, object]) -> FamilyCall | list[Issue]:
        """Check a member's arguments: the call, or the issues, located in the arguments."""
        ...

    def parameters(self, name: str) -> JsonObject:
        """Return the JSON Schema of a member's arguments, as scenarios are checked against it."""
        ...

    def tree_need(self, name: str) -> str | None:
        """Say why a member needs the screen's UI tree (None: a device without one can run it)."""
        ...

    def words(self) -> Iterable[str]:
        """Return the family's words (names, result codes and statuses) that masking leaves as they are."""
        ...


#: The families plugged in, by name (`CommandFamily.noun`), in the order they were plugged.
FAMILIES: Registry[str, CommandFamily] = Registry("families", (), key=lambda family: family.noun)


def family_of(command: object) -> CommandFamily | None:
    """Return the family `command` is a member of (None: a scenario command of the core's, or unknown)."""
    if not isinstance(command, str):
        return None
    return next((family for family in FAMILIES.values() if command in family.names()), None)


def family_names() -> list[str]:
    """Return the names of every family's members (the agent tools'), in order."""
    return [name for family in FAMILIES.values() for name in family.names()]

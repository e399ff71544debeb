"""Scenario files in other tools' formats, taken as they are: a feature that reads one plugs in here.

`visor run flow.yaml` and `visor validate flow.yaml` on a Maestro flow convert it on the way in (the Maestro slice
plugs its reader in through `visor.api`): the run signs and reports the converted scenario, keeps its text in the
run's folder (`scenario.yaml`), and what could not be converted is a warning at the flow's own line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from visor.inputs.issues import Issue
from visor.plugs import Registry, per_generation


@dataclass(frozen=True, slots=True)
class Translated:
    """A file of another format, as a visor scenario: its YAML text, the values its `${NAME}`s default to, and notes.

    `notes` are warnings already located in the original file (what was left out, and where).
    """

    text: str
    defaults: Mapping[str, str]
    notes: tuple[Issue, ...]


class ForeignFormat(Protocol):
    """A format visor reads scenarios from."""

    #: How messages name it ("a Maestro flow").
    name: str

    def recognises(self, path: str) -> bool:
        """Say whether the file at `path` is in this format (cheaply: its name and its first bytes)."""
        ...

    def translate(self, path: str) -> Translated:
        """Return the file as a visor scenario.

        Raises:
            SourceError: the file (or a file it includes) cannot be read, or is not in this format after all.
        """
        ...


#: The formats plugged in (by `visor.api`), by name.
FORMATS: Registry[str, ForeignFormat] = Registry("formats", (), key=lambda item: item.name)


@per_generation
def _formats() -> tuple[ForeignFormat, ...]:
    return tuple(FORMATS.values())


def foreign_format(path: str) -> ForeignFormat | None:
    """Return the format that recognises the file at `path`, or None for a visor scenario (or standard input)."""
    return next((found for found in _formats() if found.recognises(path)), None)

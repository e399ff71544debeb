"""A validated tool call: light to import, so scenarios without tool steps never load the tools' models."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from visor.scenario.tools.models import ToolArgs


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One validated tool call: the tool's name, its typed arguments, and the arguments as given."""

    name: str
    args: ToolArgs
    raw: Mapping[str, Any]

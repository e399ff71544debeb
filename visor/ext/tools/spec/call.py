"""A validated tool call: light to import, so scenarios without tool steps never load the tools' models."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One validated tool call: the tool's name, its typed arguments, and the arguments as given."""

    name: str
    #: An instance of the tool's `ToolSpec.args_type` (built by its `build`); the executor's registry checks it.
    args: object
    raw: Mapping[str, Any]

"""A validated tool call: the core's `FamilyCall` (light to import, so scenarios without tool steps load no tool)."""

from __future__ import annotations

from visor.scenario.families import FamilyCall

#: One validated tool call: the tool's name, its typed arguments (its `ToolSpec.args_type`), the arguments as given.
ToolCall = FamilyCall

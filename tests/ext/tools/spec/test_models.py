"""The tools' models against the shipped spec: each model's JSON Schema is its tool's input schema.

Normalization, both sides alike: `$ref`s are resolved from `$defs` (pydantic names each nested model once; the spec
writes them inline), and the `title` and `description` keywords are dropped (titles are pydantic's class names;
descriptions are the spec's prose, shipped verbatim in the definitions file and not repeated in the models). Nothing
that validates is dropped. What still differs is listed in `DIFFERENCES`, each with why, and checked to differ just so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from visor.ext.tools.spec.specs import SPECS, ToolSpec

NAMES = [tool.name for tool in SPECS]
#: The properties whose default only the model declares: the spec's eight older tools (written by hand, not by
#: pydantic) give none, and leave the values to the implementation. These are visor's (docs/agent-tools.md,
#: "Decisions"); None means "not given" (an explicit null is refused, as the spec's type says).
UNDECLARED_DEFAULTS: dict[str, tuple[str, ...]] = {
    "click": ("target_description", "times", "delay_ms"),
    "click_sequence": ("delay_ms",),
    "long_press": ("target_description", "duration"),
    "input_text": ("target_description", "clear_exist"),
    "swipe": ("direction", "start", "end", "target", "gesture", "target_description", "duration"),
}
#: The older tools' `required: []`, which pydantic leaves out when nothing is required (the same schema).
EMPTY_REQUIRED = ("swipe",)
DIFFERENCES = {"defaults": UNDECLARED_DEFAULTS, "empty required": EMPTY_REQUIRED}


def normalized(node: object, defs: Mapping[str, Any]) -> Any:
    """Return a schema with its `$ref`s resolved and its titles and descriptions dropped."""
    if isinstance(node, list):
        return [normalized(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return normalized(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    dropped = {"title", "description", "$defs"}
    result: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties":
            result[key] = {name: normalized(sub, defs) for name, sub in value.items()}
        elif key not in dropped:
            result[key] = normalized(value, defs)
    return result


def generated(tool: ToolSpec[Any]) -> dict[str, Any]:
    """The model's own JSON Schema, normalized."""
    schema = tool.args_type.model_json_schema()
    found: dict[str, Any] = normalized(schema, schema.get("$defs", {}))
    return found


@pytest.mark.parametrize("tool", SPECS, ids=NAMES)
def test_each_models_schema_is_its_tools_shipped_schema(tool: ToolSpec[Any]) -> None:
    model, shipped = generated(tool), normalized(tool.parameters, {})
    for name in UNDECLARED_DEFAULTS.get(tool.name, ()):
        assert "default" not in shipped["properties"][name], f"{tool.name}.{name}: the spec now declares a default"
        assert "default" in model["properties"][name], f"{tool.name}.{name}: the model has no default"
        del model["properties"][name]["default"]
    if tool.name in EMPTY_REQUIRED:
        assert shipped["required"] == [] and "required" not in model
        model["required"] = []
    assert model == shipped


def test_the_listed_differences_are_only_the_older_tools() -> None:
    newer = [tool.name for tool in SPECS if tool.name not in UNDECLARED_DEFAULTS]
    assert len(newer) == 11 and not set(EMPTY_REQUIRED) - set(UNDECLARED_DEFAULTS)
    assert set(DIFFERENCES) == {"defaults", "empty required"}


def test_the_normalization_keeps_every_validating_keyword() -> None:
    schema = {"title": "T", "description": "d", "type": "object", "properties": {"title": {"$ref": "#/$defs/X"}}}
    assert normalized(schema, {"X": {"title": "X", "type": "string", "maxLength": 3}}) == {
        "type": "object",
        "properties": {"title": {"type": "string", "maxLength": 3}},
    }

"""Say whether a file is a scenario, and read its heading (name and tags) without validating it.

A front end that finds files by itself (the pytest plugin collects every YAML and JSON file) asks here, so a
scenario with a typo is never taken for some other YAML file: one that cannot be parsed still counts when its text
names the keys `meta` and `steps`, or when the user named it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from visor.errors import VisorError
from visor.files import read_head
from visor.inputs.reading import FORMATS_BY_SUFFIX

if TYPE_CHECKING:
    from visor.jsontypes import JsonValue

#: Simulated-device app models live beside scenarios as `<name>.app.yaml`; they are not scenarios.
MODEL_SUFFIXES = (".app.yaml", ".app.yml")

#: The keys `meta` and `steps` written as keys (YAML or JSON, quoted or not), in text that does not parse.
_SCENARIO_KEY = r"""(?:^|[\s{,])["']?KEY["']?\s*:"""

#: How much of a file that does not parse is looked at for the keys (a scenario too large to read says them early).
HEAD_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class Heading:
    """What a scenario file says of itself before it is validated: its `meta.name` and `meta.tags`."""

    name: str | None
    tags: tuple[str, ...]


def named_like_a_scenario(name: str) -> bool:
    """Say whether a file's name is a scenario's: YAML or JSON, and not an app model."""
    lowered = name.lower()
    return os.path.splitext(lowered)[1] in FORMATS_BY_SUFFIX and not lowered.endswith(MODEL_SUFFIXES)


def is_scenario_file(path: str, *, named: bool = False) -> bool:
    """Say whether `path` is a scenario: a YAML or JSON file (not an app model) holding `meta` and `steps`.

    One that cannot be read or parsed counts when `named` (the user asked for it) or when its text names both keys,
    so that it fails with its reason instead of vanishing.
    """
    if not named_like_a_scenario(path):
        return False
    # The parsers load only once a file is named like a scenario: pytest asks this of every file it collects.
    from visor.inputs.data import read_document

    try:
        data = read_document(path).data
    except VisorError:
        return named or reads_like_a_scenario(path)
    return isinstance(data, dict) and "steps" in data and "meta" in data


def reads_like_a_scenario(path: str) -> bool:
    """Say whether the start of a file that does not parse names both keys a scenario has."""
    head = read_head(path, HEAD_BYTES)  # a linked scenario is one, as it is collected
    if head is None:
        return False
    text = head.decode("utf-8", "replace")
    return all(re.search(_SCENARIO_KEY.replace("KEY", key), text, re.MULTILINE) for key in ("meta", "steps"))


def read_heading(path: str) -> Heading:
    """Return a scenario file's name and tags, as written (either may be missing or of the wrong type).

    Raises:
        SourceError: the file cannot be read or parsed.
    """
    from visor.inputs.data import read_document  # the parsers, as above

    data = read_document(path).data
    meta: JsonValue = data.get("meta") if isinstance(data, dict) else None
    name = meta.get("name") if isinstance(meta, dict) else None
    tags = meta.get("tags") if isinstance(meta, dict) else None
    return Heading(
        name if isinstance(name, str) and name else None,
        tuple(str(tag) for tag in tags) if isinstance(tags, list) else (),
    )

"""A Maestro flow run (or validated) as it is: `visor run flow.yaml` converts it on the way in.

A flow is recognised by its first bytes: a header naming the app (`appId:` or `url:`) and the `---` that ends
it, or, for a flow without a header, a list whose first item is a Maestro command. A visor scenario (with `meta`
and `steps`) never is one. The conversion is `visor import maestro`'s, so what runs is what an import writes.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from visor.files import read_head
from visor.inputs.issues import Issue, IssueCode, warning
from visor.scenario.formats import Translated

if TYPE_CHECKING:
    from visor.ext.maestro.convert import LeftOut

#: How much of a file is read to recognise it: a flow's header is its first lines.
HEAD_BYTES = 16 * 1024
_SUFFIXES = (".yaml", ".yml")
_HEADER = re.compile(r"^(?:appId|url)\s*:", re.MULTILINE)
_END_OF_HEADER = re.compile(r"^---\s*$", re.MULTILINE)
_SCENARIO_KEYS = re.compile(r"^(?:meta|steps)\s*:", re.MULTILINE)
#: The commands a flow without a header most often starts with.
_FIRST_COMMAND = re.compile(
    r"^-\s+[\"']?(?:launchApp|tapOn|runFlow|assertVisible|inputText|stopApp|clearState|openLink|evalScript|"
    r"runScript|waitForAnimationToEnd|extendedWaitUntil|scrollUntilVisible|swipe|back|pressKey|takeScreenshot)\b"
)


@dataclass(frozen=True, slots=True)
class MaestroFlows:
    """Maestro flows as a format visor reads scenarios from."""

    name: str = "a Maestro flow"

    def recognises(self, path: str) -> bool:
        """Say whether the file is a Maestro flow, from its name and first bytes."""
        if not path.lower().endswith(_SUFFIXES):
            return False
        start = read_head(path, HEAD_BYTES)
        head = start.decode("utf-8", "replace").replace("\r\n", "\n") if start is not None else None
        if head is None or _SCENARIO_KEYS.search(head):
            return False
        if _HEADER.search(head) and _END_OF_HEADER.search(head):
            return True
        first = next((line for line in head.splitlines() if line.strip() and not line.lstrip().startswith("#")), "")
        return _FIRST_COMMAND.match(first) is not None

    def translate(self, path: str) -> Translated:
        """Convert the flow (and what it includes) as `visor import maestro` does.

        Raises:
            SourceError: the flow or an include cannot be read, or is no Maestro flow after all.
        """
        # lazy: the converter loads only for a flow; recognising one is asked of every scenario visor reads
        from visor.ext.maestro.convert import convert_flow, scenario_text

        converted = convert_flow(path)
        notes = tuple(_note(path, item) for item in converted.left_out)
        notes += tuple(_note(path, item, "passed over, as Maestro does") for item in converted.ignored)
        return Translated(scenario_text(path, converted), dict(converted.env), notes)


def _note(path: str, item: LeftOut, what: str = "not converted") -> Issue:
    """Return a left-out (or passed-over) command as a warning at its line in the flow (or the included file)."""
    where = "" if os.path.abspath(item["file"]) == os.path.abspath(path) else f" (in {item['file']})"
    message = f"Maestro {item['command']} {what}{where}: {item['reason']}"
    found = warning(IssueCode.UNSUPPORTED_COMMAND, message, ())
    return replace(found, line=item["line"], column=1)

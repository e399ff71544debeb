"""Write YAML that visor's own reader reads back as the same data.

PyYAML writes by YAML 1.1, visor reads by YAML 1.2's core schema (`visor.inputs.yaml_reader`): a text PyYAML
leaves unquoted because 1.1 sees no number in it (`1e3`, `0o17`, `5e-324`) is a number to visor, and a scenario
written from data (a converted flow, a recording) would change, or no longer validate. Here every text that could
read as anything but itself (it starts like a number, or is a word some YAML reads as a boolean or null) is
quoted, and every text holding a line break or a control character is written with escapes.
"""

from __future__ import annotations

import re

import yaml

#: Texts that a YAML 1.1 or 1.2 reader may take for a number, a boolean or null when written plain.
_AMBIGUOUS = re.compile(r"^(?:[-+.~0-9]|(?:null|true|false|yes|no|on|off|y|n)$)", re.IGNORECASE)


class _Dumper(yaml.SafeDumper):
    """PyYAML's safe dumper, quoting the texts `_AMBIGUOUS` matches, never writing anchors and aliases."""

    def ignore_aliases(self, data: object) -> bool:
        return True  # the same list twice is written twice: plain data, as the reader would build it


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "'" if not value or _AMBIGUOUS.match(value) else None
    if not value.isprintable():
        # Written raw, a line separator (U+2028, NEL) or a tab would be read back as a line break or folded
        # into a space: double quotes write each as an escape.
        style = '"'
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def dump_yaml(data: object) -> str:
    """Return `data` (plain dicts, lists, texts, numbers, booleans, None) as YAML, keys in their order."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True)

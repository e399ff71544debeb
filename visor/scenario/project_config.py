"""A project's visor settings: `visor.toml`, or `[tool.visor]` in `pyproject.toml`, the nearest one up from here.

```toml
[tool.visor]                      # in pyproject.toml; in visor.toml the same keys stand at the top
paths = ["scenarios"]             # what `visor run` runs when no scenario is named
runtime = "sim"
include_tags = ["smoke"]
exclude_tags = ["slow"]
output = "artifacts"
```

The command line wins over these, and these over the scenarios' own `config`. Unknown keys are refused, naming
the file: a typo must not silently run everything.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from typing import Annotated

from pydantic import Field, ValidationError

from visor.errors import InputError
from visor.files import read_regular
from visor.inputs.reading import decode
from visor.scenario.fields import InputModel
from visor.scenario.project import nearest_holding

Name = Annotated[str, Field(min_length=1, max_length=4096, pattern=r"\S")]


class _Settings(InputModel):
    """The keys a project may set."""

    paths: list[Name] = Field(default_factory=list, max_length=1000)
    runtime: Name | None = None
    include_tags: list[Name] = Field(default_factory=list, max_length=100)
    exclude_tags: list[Name] = Field(default_factory=list, max_length=100)
    output: Name | None = None


@dataclass(frozen=True, slots=True)
class ProjectConfig:
    """A project's settings, and the file they came from (None: no file sets any)."""

    paths: tuple[str, ...] = ()
    runtime: str | None = None
    include_tags: tuple[str, ...] = ()
    exclude_tags: tuple[str, ...] = ()
    output: str | None = None
    source: str | None = None


def load_project_config(start: str) -> ProjectConfig:
    """Read the settings of the project `start` is in (paths in them are relative to their file's folder).

    Raises:
        InputError: the file is not valid TOML, or its settings are wrong.
    """
    folder = nearest_holding(start, ("visor.toml", "pyproject.toml"))
    for name, table in (("visor.toml", None), ("pyproject.toml", ("tool", "visor"))):
        path = os.path.join(folder, name)
        if not os.path.lexists(path):  # one that is there but no regular file is refused as it is, not passed over
            continue
        data: object = _read(path)
        for key in table or ():
            data = data.get(key, {}) if isinstance(data, dict) else {}
        if table is not None and not data:
            continue
        settings = _check(path, data, "[tool.visor]" if table else "")
        return ProjectConfig(
            paths=tuple(os.path.normpath(os.path.join(folder, entry)) for entry in settings.paths),
            runtime=settings.runtime,
            include_tags=tuple(settings.include_tags),
            exclude_tags=tuple(settings.exclude_tags),
            output=os.path.normpath(os.path.join(folder, settings.output)) if settings.output else None,
            source=path,
        )
    return ProjectConfig()


def _read(path: str) -> dict[str, object]:
    text = decode(read_regular(path, noun="project configuration"), path)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path} cannot be read as TOML: {exc}", next_step=f"Fix {path}.") from exc
    except RecursionError:  # tomllib recurses into nested arrays and inline tables
        # Not chained: the RecursionError's traceback is a thousand frames of tomllib's, and says nothing more.
        raise InputError(
            f"{path} nests arrays or tables too deeply to be a configuration",
            next_step=f"Fix {path}: visor's settings nest two levels at most.",
        ) from None


def _check(path: str, data: object, table: str) -> _Settings:
    try:
        return _Settings.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the table"
        known = ", ".join(_Settings.model_fields)
        # pydantic's words for the commonest mistake are not a user's: say it as visor says unknown fields.
        problem = "visor reads no such key" if first["type"] == "extra_forbidden" else first["msg"]
        raise InputError(
            f"{path}{' ' + table if table else ''}: {where}: {problem}",
            likely_cause="A key is misspelt, or its value has the wrong type.",
            next_step=f"The keys visor reads are: {known}.",
        ) from exc

"""`visor import maestro FLOW|DIR... --output DIR`: write each Maestro flow as a visor scenario, checked."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import yaml

from visor.errors import ErrorInfo, ExitCode, NextAction
from visor.files import write_atomic
from visor.report.envelope import Outcome
from visor.scenario.discovery import expand_paths
from visor.scenario.maestro import convert_flow
from visor.scenario.validate import validate_document


def import_maestro(patterns: Sequence[str], output: str) -> Outcome:
    """Convert every flow the patterns name into `output/<flow>.yaml` (and `<flow>.env`); return what was done.

    Raises:
        InputError: a pattern names no file.
    """
    from visor.errors import InputError
    from visor.scenario.document import Document
    from visor.scenario.parameters import substitute

    rows: list[dict[str, Any]] = []
    written: list[str] = []
    for path in expand_paths(patterns):
        try:
            converted = convert_flow(path)
        except InputError as exc:
            rows.append({"flow": path, "error": exc.info().to_dict()})
            continue
        stem = os.path.splitext(os.path.basename(path))[0]
        target = os.path.abspath(os.path.join(output, f"{stem}.yaml"))
        notes = [f"# Imported from the Maestro flow {path} by `visor import maestro`."]
        notes += [f"# Not converted (line {item['line']}, {item['command']}): {item['reason']}"
                  for item in converted.left_out]  # fmt: skip
        text = "\n".join(notes) + "\n" + yaml.safe_dump(converted.scenario, sort_keys=False, allow_unicode=True)
        row: dict[str, Any] = {"flow": path, "scenario": target, "steps": len(converted.scenario["steps"]),
                               "left_out": converted.left_out}  # fmt: skip
        if converted.env:
            env_file = os.path.abspath(os.path.join(output, f"{stem}.env"))
            env_text = "".join(f"{key}={value}\n" for key, value in converted.env.items())
            write_atomic(env_file, env_text.encode("utf-8"), make_folders=True)
            written.append(env_file)
            row["env_file"] = env_file
        write_atomic(target, text.encode("utf-8"), make_folders=True)
        written.append(target)
        document, unknown = substitute(Document(target, "yaml", converted.scenario, {}), converted.env)
        issues = [issue.to_dict() for issue in [*unknown, *validate_document(document).issues] if issue.is_error]
        row["valid"] = not issues
        if issues:
            row["issues"] = issues
        rows.append(row)
    invalid = [row for row in rows if not row.get("valid")]
    data = {"imported": rows, "totals": {"flows": len(rows), "valid": len(rows) - len(invalid),
                                         "left_out": sum(len(row.get("left_out", [])) for row in rows)}}  # fmt: skip
    if not invalid:
        return Outcome("ok", NextAction.RUN, data, ExitCode.OK, None, written)
    error = ErrorInfo(
        code="INPUT_ERROR",
        message=f"{len(invalid)} of {len(rows)} flows did not convert into a valid scenario",
        likely_cause="The file is no Maestro flow, or a command converted into arguments visor refuses.",
        next_step="See data.imported for each flow's issues; fix the flow or the scenario written.",
    )
    return Outcome("fail", NextAction.VALIDATE, data, ExitCode.ERROR, error, written)

"""Human output on stderr. The only module outside `visor.cli` that imports rich.

Issue lines read like compiler diagnostics (`file:line:column: error CODE message`), so editors and CI logs
make them clickable. Each line is built once as styled parts; on a terminal (or with `--color`) rich renders
them, elsewhere (CI logs, pipes) they are written as the same plain text without importing rich, which keeps
start-up fast where nobody would see the colours anyway.

Ids, names, paths and messages come from scenario files, devices, maps, agents and the command line, so any of
them may hold control characters: an id like `ok\\x1b[2K\\r✓ passed` would erase its line and fake a green one in
a CI log. Every part of every line is written with such characters shown as visible escapes (`\\x1b`, `\\r`,
`\\u202e`), in both paths: C0 and C1 controls, DEL, the line and paragraph separators, the bidirectional controls
(which reorder what the reader sees) and lone surrogates (which cannot be encoded). `printable` is that one
escape (`visor.ui.escapes`), for every other place where data reaches a terminal too (`--format text`, prompts).

`--secret` values are masked in every line, in every form a text may hold them (`visor.ui.secrets`), before
a column is padded (padded first, the spacing would give a secret's length). What a field kept of a secret is
masked too: a run's events come from the engine with the run's secrets masked, the kept parts included. No "did
you mean" hint is shown for a value holding a secret (it would say how near the secret is to a name).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

from visor.ui.escapes import printable as printable  # the one console escape, for every caller
from visor.ui.secrets import redact

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

    from visor.engine.events import Event
    from visor.engine.results import RunResult
    from visor.errors import ErrorInfo
    from visor.inputs.issues import Issue
    from visor.report.suite_rows import SuiteRow
    from visor.scenario.discovery import BatchResult, FileResult

#: A line: text parts, each with a rich style or None.
Line = list[tuple[str, str | None]]

_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow"}
_STATUS = {
    "ok": ("✓", "green"),
    "fail": ("✗", "bold red"),
    "skipped": ("-", "dim"),
    "passed": ("✓", "green"),
    "failed": ("✗", "bold red"),
    "flaky": ("~", "yellow"),
    "xfailed": ("x", "yellow"),
    "error": ("✗", "bold red"),
    "interrupted": ("✗", "bold red"),
}


class ConsoleReporter:
    """Writes short summaries for people; silent when `quiet`."""

    def __init__(
        self, stream: TextIO, *, quiet: bool = False, color: bool | None = None, secrets: Collection[str] = ()
    ) -> None:
        self.quiet = quiet
        self.stream = stream
        #: Texts never printed (`--secret`): masked in every line.
        self.secrets = tuple(secrets)
        self.styled = color if color is not None else _is_terminal(stream)
        self._rich: Console | None = None
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        if self.styled:
            from rich.console import Console  # lazy: rich costs start-up time, and only a terminal's colours need it

            self._rich = Console(file=stream, highlight=False, soft_wrap=True, force_terminal=True, emoji=False)

    def line(self, *parts: tuple[str, str | None]) -> None:
        """Write one line made of styled parts, control characters in them shown as escapes."""
        if self.quiet:
            return
        if self.secrets:
            parts = tuple((str(redact(text, self.secrets)), style) for text, style in parts)
        if self._rich is None:
            self.stream.write("".join(printable(text) for text, _ in parts) + "\n")
            return
        from rich.text import Text  # lazy: as Console

        self._rich.print(Text.assemble(*((printable(text), style or "") for text, style in parts)))

    def masked(self, text: str) -> str:
        """Return `text` with the secrets masked: for a part padded to a column, masked before it is padded."""
        return redact(text, self.secrets) if self.secrets else text

    def error(self, info: ErrorInfo) -> None:
        """Print an error with its likely cause and next step."""
        self.line((f"✗ {info.code}", "bold red"), (f" {info.message}", None))
        self.line(("  cause: ", "dim"), (info.likely_cause, None))
        self.line(("  next:  ", "dim"), (info.next_step, None))

    def note(self, text: str) -> None:
        """Print a plain line."""
        self.line((text, None))

    def warnings(self, listed: Sequence[Mapping[str, object]]) -> None:
        """Print a command's warnings (the envelope's `data.warnings`), one line each with its hint."""
        for warning in listed:
            parts: Line = [("warning", _SEVERITY_STYLE["warning"]), (f" {warning.get('message')}", None)]
            if hint := warning.get("hint"):
                parts.append((f" ({self.masked(str(hint))})", "dim"))
            self.line(*parts)

    def validation(self, batch: BatchResult) -> None:
        """Print one line per file, its issues below it, and a total when there are several files."""
        for item in batch.files:
            self._file(item)
        if len(batch.files) > 1:
            valid = sum(1 for item in batch.files if item.result is not None and item.result.valid)
            unreadable = len(batch.unreadable)
            invalid = len(batch.files) - valid - unreadable
            self.note(f"{len(batch.files)} files: {valid} valid, {invalid} invalid, {unreadable} unreadable")

    def _file(self, item: FileResult) -> None:
        if item.error is not None:
            self.line(("✗ ", "bold red"), (item.error.message, None))
            self.line(("  next: ", "dim"), (item.error.next_step, None))
            return
        result = item.result
        assert result is not None
        counts = _counts(result.errors, result.warnings)
        if result.valid:
            self.line(("✓ ", "green"), (f"{item.name} is valid{counts and f' ({counts})'}", None))
        else:
            self.line(("✗ ", "bold red"), (f"{item.name} is invalid ({counts})", None))
        for issue in result.issues:
            self._issue(item.name, issue)

    def _issue(self, name: str, issue: Issue) -> None:
        parts: Line = [
            (f"  {name}:{issue.line}:{issue.column}: ", None),
            (str(issue.severity), _SEVERITY_STYLE[str(issue.severity)]),
            (f" {issue.code} {issue.message}", None),
        ]
        if issue.hint:
            # Masked as it is: a suggestion for a value holding a secret is replaced whole (`redact`).
            parts.append((f" ({self.masked(issue.hint)})", "dim"))
        self.line(*parts)

    # -- runs -------------------------------------------------------------------------------------------------

    def handle(self, event: Event) -> None:
        """Show a run's progress live: a line when it starts, per step, per assertion, and at the end."""
        # A validation prints no run: the engine's events and results are loaded by the first run's event.
        from visor.engine.events import AssertionChecked, RunFinished, RunStarted, StepFinished  # lazy: start-up

        if isinstance(event, RunStarted):
            self.line(
                ("▶ ", "bold"),
                (f"{event.scenario.meta.name}", "bold"),
                (
                    f" on {event.device.name} ({event.device.runtime}, {event.device.platform}),"
                    f" seed {event.effective_seed}, run {event.run_id}",
                    "dim",
                ),
            )
        elif isinstance(event, StepFinished):
            step = event.result
            mark, style = _STATUS[step.word]
            shown = f"{self.masked(step.id):<22} {self.masked(step.command):<10} {step.duration_ms:>6} ms"
            self.line((f"  {mark} ", style), (shown, None), (_why_skipped(step.details), "dim"))
            if step.error is not None:
                self.line(("      ", None), (step.error.message, "red"))
        elif isinstance(event, AssertionChecked):
            check = event.result
            mark, style = _STATUS[check.word]
            self.line(
                (f"  {mark} ", style),
                (f"assert {check.type} {check.target}", None),
                (f"  {check.details}" if check.details else "", "red"),
            )
        elif isinstance(event, RunFinished):
            if event.reason is None:  # a run that stopped early is told by the command's error line instead
                self.run_result(event.result)
            if event.video is not None:
                self.line(("  video: ", "dim"), (f"video.{event.video.suffix}, a chapter a step (video.vtt)", None))
            if event.video_note:
                self.line(("  ", None), (event.video_note, "yellow"))

    def run_result(self, result: RunResult) -> None:
        """Print the one-line verdict of a run."""
        from visor.engine.results import Verdict  # lazy: start-up (see `handle`)

        steps = len(result.steps)
        if result.status is Verdict.PASSED:
            self.line(
                ("✓ passed", "bold green"),
                (
                    f": {_count(steps, 'step')}, {_count(len(result.assertions), 'assertion')}; "
                    f"signature {result.signature[:12]}",
                    None,
                ),
            )
        else:
            self.line(("✗ failed", "bold red"), (f": {_failures(result)}; signature {result.signature[:12]}", None))

    def scenario_done(self, count: int, total: int, row: SuiteRow) -> None:
        """Print a line for a suite's scenario as it finishes, the `count`-th (scenarios at once show no steps)."""
        status = str(row.status)
        mark, style = _STATUS.get(status, ("?", None))
        took = f" {row.duration_ms} ms" if row.duration_ms is not None else ""
        width = len(str(total))
        self.line(
            (f"[{count:>{width}}/{total}] ", "dim"),
            (f"{mark} {status:<11}", style),
            (f"{row.name}", "bold"),
            (f"  {row.path}{took}", "dim"),
        )
        if status != "passed" and row.error is not None:
            self.line(("      ", None), (row.error.message, "red"))
        elif status == "skipped" and row.reason:
            self.line(("      ", None), (row.reason, "dim"))
        for move in row.moved or ():
            self.line(("      ", None), (f"moved off {move.device}: {move.error.message}", "yellow"))

    def benchmark_run(self, index: int, total: int, result: RunResult | None) -> None:
        """Advance the benchmark's progress: a bar on a terminal, a line per run elsewhere."""
        if self.quiet:
            return
        if self._rich is None:
            state = "error" if result is None else result.word
            signature = result.signature[:12] if result is not None else "-"
            self.note(f"run {index + 1}/{total}: {state} {signature}")
            return
        if self._progress is None:
            # lazy: as Console; only a suite's progress bar on a terminal needs it
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self._progress = Progress(
                TextColumn("benchmark"), BarColumn(), MofNCompleteColumn(), console=self._rich, transient=True
            )
            self._task = self._progress.add_task("runs", total=total)
            self._progress.start()
        assert self._task is not None
        self._progress.advance(self._task)
        if index + 1 == total:
            self._progress.stop()

    def benchmark_result(self, data: dict[str, object]) -> None:
        """Print the benchmark's verdict."""
        self.line(
            ("✓ " if data.get("pass") else "✗ ", "bold green" if data.get("pass") else "bold red"),
            (str(data.get("verdict", "")), None),
        )


def _is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _counts(errors: int, warnings: int) -> str:
    parts = []
    if errors:
        parts.append(f"{errors} error{'s' if errors != 1 else ''}")
    if warnings:
        parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
    return ", ".join(parts)


def _failures(result: RunResult) -> str:
    """Say what failed: "1 of 4 steps failed, 2 of 3 assertions failed" (never "failed: 2 steps" when both passed)."""
    from visor.engine.results import Verdict  # lazy: start-up (see `ConsoleReporter.handle`)

    parts = []
    for noun, items, bad in (
        ("step", result.steps, [item for item in result.steps if item.status is Verdict.FAILED]),
        ("assertion", result.assertions, [item for item in result.assertions if item.status is Verdict.FAILED]),
    ):
        if bad:
            parts.append(f"{len(bad)} of {_count(len(items), noun)} failed")
        elif items:
            parts.append(f"{'all ' if len(items) > 1 else ''}{_count(len(items), noun)} passed")
    if result.interrupted:
        parts.append("interrupted")
    return ", ".join(parts) or "nothing ran"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _why_skipped(details: Mapping[str, object]) -> str:
    """Say in a few words why a step was skipped (its details say it in full), or nothing."""
    when = details.get("when")
    if isinstance(when, dict) and when.get("taken") is False:
        return "  (when: not taken)"
    if details.get("optional") is True:
        return "  (optional: missed)"
    if details.get("retried") is True:
        return "  (failed; the block retried)"
    reason = details.get("reason")
    return f"  ({reason})" if isinstance(reason, str) else ""

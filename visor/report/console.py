"""Human output on stderr, through rich. The only module outside `visor.cli` that imports rich.

Issue lines read like compiler diagnostics (`file:line:column: error CODE message`), so editors and CI
logs make them clickable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from visor.errors import ErrorInfo
    from visor.scenario.discovery import BatchResult, FileResult
    from visor.scenario.issues import Issue

_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow"}


class ConsoleReporter:
    """Writes short summaries for people; silent when `quiet`."""

    def __init__(self, stream: TextIO, *, quiet: bool = False, color: bool | None = None) -> None:
        self.quiet = quiet
        self.console = Console(
            file=stream,
            highlight=False,
            soft_wrap=True,
            no_color=color is False,
            force_terminal=True if color else None,
        )

    def _print(self, markup: str) -> None:
        if not self.quiet:
            self.console.print(markup)

    def error(self, info: ErrorInfo) -> None:
        """Print an error with its likely cause and next step."""
        self._print(f"[bold red]✗ {escape(info.code)}[/] {escape(info.message)}")
        self._print(f"  [dim]cause:[/] {escape(info.likely_cause)}")
        self._print(f"  [dim]next:[/]  {escape(info.next_step)}")

    def note(self, text: str) -> None:
        """Print a plain line."""
        self._print(escape(text))

    def validation(self, batch: BatchResult) -> None:
        """Print one line per file, its issues below it, and a total when there are several files."""
        for item in batch.files:
            self._file(item)
        if len(batch.files) > 1:
            valid = sum(1 for item in batch.files if item.result is not None and item.result.valid)
            unreadable = len(batch.unreadable)
            invalid = len(batch.files) - valid - unreadable
            self._print(f"{len(batch.files)} files: {valid} valid, {invalid} invalid, {unreadable} unreadable")

    def _file(self, item: FileResult) -> None:
        name = escape(item.name)
        if item.error is not None:
            self._print(f"[bold red]✗[/] {escape(item.error.message)}")
            self._print(f"  [dim]next:[/] {escape(item.error.next_step)}")
            return
        result = item.result
        assert result is not None
        counts = _counts(result.errors, result.warnings)
        if result.valid:
            self._print(f"[green]✓[/] {name} is valid{counts and f' ({counts})'}")
        else:
            self._print(f"[bold red]✗[/] {name} is invalid ({counts})")
        for issue in result.issues:
            self._issue(name, issue)

    def _issue(self, name: str, issue: Issue) -> None:
        style = _SEVERITY_STYLE[str(issue.severity)]
        where = f"{name}:{issue.line}:{issue.column}"
        hint = f" [dim]({escape(issue.hint)})[/]" if issue.hint else ""
        self._print(f"  {where}: [{style}]{issue.severity}[/] {issue.code} {escape(issue.message)}{hint}")


def _counts(errors: int, warnings: int) -> str:
    parts = []
    if errors:
        parts.append(f"{errors} error{'s' if errors != 1 else ''}")
    if warnings:
        parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
    return ", ".join(parts)

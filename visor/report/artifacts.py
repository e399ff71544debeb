"""Write a run's artifacts as the run goes: nothing already written is lost when a run fails or is interrupted.

Layout of `<output>/<run_id>/`::

    screenshots/NNN-label.png   sources/NNN-label.xml   (NNN is the step's number)
    timeline.log                one line per event, appended and flushed as they happen
    device.log                  the device's log, step by step, appended and flushed as each step ends
    video.webm (or .mp4)        video.vtt   the run's screen recording and its chapters (`--record-video`)
    env/device.json             env/runtime.json
    summary.json                summary.txt   junit.xml   report.html

Files are written atomically (a temporary file renamed into place), so a reader never sees half a file, with
the permissions the umask gives (see `visor.files`). A step's copy of its capture (`path`) is written inside
the scenario's project folder only, never through a symbolic link.

`--secret` values are masked everywhere in the run's folder (`visor.ui.secrets`): the reports are
rendered from the run's result with its secrets masked, and masked again as they are written where they hold
data only (text and attribute values, JSON strings), so they stay well formed even when a secret is a word of
their markup (`fail`); every other text file is masked again in all its forms as it is written (a page source
comes rendered from the device), and a capture named after a step or label holding a secret is named with it
masked, on disk and in every reference to it. What a field kept of a secret typed into it is masked too,
however short (`hide`).
"""

from __future__ import annotations

import json
import os
import platform
import re
from collections.abc import Collection, Mapping
from typing import IO, Protocol

from visor import __version__
from visor.engine.events import AssertionChecked, Event, RunFinished, RunStarted, StepFinished, StepStarted
from visor.engine.results import RunResult, StepResult
from visor.errors import UNWRITABLE_CAUSE, InputError, SourceError
from visor.files import UnsafePath, read_confined, write_atomic, write_confined
from visor.report import html, junit, summary
from visor.report.allure import AllureRun, allure_files
from visor.report.chapters import CHAPTERS, VIDEO_NAME, chapters
from visor.scenario.project import in_project, project_folder
from visor.ui.geometry import Size
from visor.ui.secrets import KeptPart, Rendered, mask_rendered, mask_text, redact

_SLUG = re.compile(r"[^A-Za-z0-9._-]+")
_EXTENSION = re.compile(r"[^A-Za-z0-9]+")


class OutputError(InputError):
    """Artifacts cannot be written (an unwritable folder, a full disk)."""

    default_cause = UNWRITABLE_CAUSE
    default_next_step = "Choose another folder with --output (or config.artifactsDir), or free some disk space."


class ArtifactStore:
    """A run's folder: the sink steps save their screenshots and page sources through, and the list of its files."""

    def __init__(self, output: str, run_id: str, scenario_dir: str = ".", secrets: Collection[str] = ()) -> None:
        self.root = os.path.join(output, run_id)
        #: Texts never written (`--secret`, and what a field shows of one: `hide`): masked in every text file of
        #: the run (a screenshot is pixels).
        self.secrets = tuple(secrets)
        #: Where a step's `path` is resolved (the scenario's folder), and the project it must stay in.
        self.scenario_dir = scenario_dir
        #: Every file the run wrote, in order (the envelope's `artifacts`).
        self.written: list[str] = []
        self._names: set[str] = set()
        #: Captures are numbered in the order written (as upstream); a screen kept as a picture and a page
        #: source (the same step and label) shares one number.
        self._numbers: dict[tuple[int, str], int] = {}
        #: The folders of the run known to exist: the others (screenshots/, sources/) are made when first
        #: written to, as creating a folder costs as much as writing a file (most runs keep no capture).
        self._folders: set[str] = set()
        try:
            self._make_folder(os.path.join(self.root, "env"))
        except (OSError, ValueError) as exc:  # ValueError: a name no file system accepts (a NUL in it)
            raise OutputError.from_unwritable(self.root, exc, details={"path": self.root}) from exc

    def hide(self, text: str) -> None:
        """Mask `text` too from now on: what a field shows of a secret typed into it (a keyboard dropped some).

        Masking by value cannot find part of a secret; the step that typed it knows the field's text. However
        short, it is masked (`KeptPart`: as a whole word under 4 characters).
        """
        if text and text not in self.secrets:
            self.secrets += (KeptPart(text),)

    def save(self, step_number: int, label: str, kind: str, data: bytes) -> str:
        """Store a step's screenshot, page source or upload, numbered in the order they are written; return its path.

        An upload (`kind="upload"`, a file picked for an agent) keeps its name's extension.
        """
        folder, suffix = {"screenshot": ("screenshots", "png"), "upload": ("uploads", "")}.get(kind, ("sources", "xml"))
        if kind == "upload":
            label, _, suffix = label.rpartition(".") if "." in label else (label, "", "bin")
            # The extension comes from the phone's file name: kept only as a plain one (`png`, `tar`).
            suffix = _EXTENSION.sub("", mask_text(suffix, self.secrets))[:16] or "bin"
        number = self._numbers.setdefault((step_number, label), len(self._numbers) + 1)
        # Masked before it is cut and slugged: a name must not hold even part of a secret.
        named = mask_text(label, self.secrets)
        stem = f"{number:03d}-{_SLUG.sub('-', named).strip('-')[:60] or 'capture'}"
        name, counter = f"{stem}.{suffix}", 2
        while f"{folder}/{name}" in self._names:
            name, counter = f"{stem}-{counter}.{suffix}", counter + 1
        self._names.add(f"{folder}/{name}")
        return self.write(os.path.join(folder, name), data)

    def write(self, relative: str, data: bytes | str, rendered: Rendered | None = None) -> str:
        """Write a file below the run folder atomically; return its path.

        `rendered`: the file is one visor rendered from masked data, as markup or JSON: it is masked again where
        it holds data only (`mask_rendered`). Any other text file is masked everywhere in it.
        """
        path = os.path.join(self.root, relative)
        if rendered is not None and isinstance(data, str):
            payload = mask_rendered(data, self.secrets, rendered).encode("utf-8")
        else:
            payload = self.masked(data.encode("utf-8") if isinstance(data, str) else data)
        try:
            self._make_folder(os.path.dirname(path))
            write_atomic(path, payload)
        except OSError as exc:
            raise OutputError.from_unwritable(path, exc, details={"path": path}) from exc
        self._listed(path)
        return path

    def append(self, relative: str) -> TextSink:
        """Open a text file below the run folder for appending (the timeline); the caller closes it."""
        path = os.path.join(self.root, relative)
        try:
            stream: IO[str] = open(path, "a", encoding="utf-8")  # noqa: SIM115
        except (OSError, ValueError) as exc:
            raise OutputError.from_unwritable(self.root, exc, details={"path": self.root}) from exc
        self._listed(path)
        return MaskedStream(stream, self) if self.secrets else stream

    def copy(self, path: str, data: bytes) -> str:
        """Write a step's copy of its capture at `path` (relative to the scenario's folder); return where.

        Raises:
            OutputError: the path leaves the scenario's project folder, passes through a symbolic link, or
                cannot be written.
        """
        path = mask_text(path, self.secrets)  # a secret in the path names no file on disk
        project, placed = in_project(self.scenario_dir, path)
        if placed is None:
            raise OutputError(
                f"{path!r} is outside the scenario's project folder {project}",
                likely_cause="args.path leads out of the project (absolute, or through '..').",
                next_step="Write a path inside the project folder, e.g. screenshots/login.png.",
                details={"path": path, "project": project},
            )
        try:
            written = write_confined(project, placed, self.masked(data))
        except UnsafePath as exc:
            raise OutputError.from_unwritable(
                path,
                exc,
                likely_cause="A symbolic link (or a file) stands where args.path needs a folder or a new file.",
                next_step="Remove the link, or choose another args.path; visor never writes through links.",
                details={"path": path, "project": project},
            ) from exc
        except OSError as exc:
            target = os.path.join(project, placed)
            raise OutputError.from_unwritable(target, exc, details={"path": target}) from exc
        self.written.append(written)
        return written

    def read(self, path: str, noun: str) -> bytes:
        """Return a file a step names (`path`, relative to the scenario's folder), read inside its project.

        Raises:
            SourceError: the path leaves the project or passes through a link, or it is no regular file.
        """
        project, placed = in_project(self.scenario_dir, path)
        if placed is None:
            raise SourceError(
                f"it is outside the scenario's project folder {project}",
                path=path,
                likely_cause="The path leads out of the project (absolute, or through '..').",
                next_step="Name a file inside the project folder, relative to the scenario.",
            )
        return read_confined(project, placed, noun=noun)

    def _make_folder(self, folder: str) -> None:
        """Create a folder of the run (and those above it) unless it was made already."""
        if folder not in self._folders:
            os.makedirs(folder, exist_ok=True)
            self._folders.update((folder, os.path.dirname(folder)))

    def masked(self, payload: bytes) -> bytes:
        """Return a text file's bytes with the secrets masked (pictures and other binary files as they are)."""
        if not self.secrets or payload.startswith(b"\x89PNG"):
            return payload
        try:
            text = payload.decode("utf-8")
        except UnicodeDecodeError:
            return payload
        return mask_text(text, self.secrets).encode("utf-8")

    def _listed(self, path: str) -> None:
        if path not in self.written:
            self.written.append(path)


class TextSink(Protocol):
    """What the timeline is written through: a text file, or one masking secrets."""

    def write(self, text: str, /) -> int:
        """Write text."""
        ...

    def flush(self) -> None:
        """Flush."""
        ...

    def close(self) -> None:
        """Close."""
        ...

    @property
    def closed(self) -> bool:
        """Say whether it is closed."""
        ...


class MaskedStream:
    """A text stream that masks the secrets in whatever is written to it (a run's timeline)."""

    def __init__(self, stream: IO[str], store: ArtifactStore) -> None:
        self._stream = stream
        #: The run's store, whose secrets grow as fields show parts of them (`ArtifactStore.hide`).
        self._store = store

    def write(self, text: str, /) -> int:
        """Write `text`, its secrets masked."""
        return self._stream.write(mask_text(text, self._store.secrets))

    def flush(self) -> None:
        """Flush the stream under."""
        self._stream.flush()

    def close(self) -> None:
        """Close the stream under."""
        self._stream.close()

    @property
    def closed(self) -> bool:
        """Say whether the stream under is closed."""
        return self._stream.closed


class ReportWriter:
    """Writes a run's reports from the engine's events: a pure event handler.

    A timeline line as each event arrives, env/ when the run starts, the summaries, JUnit and HTML reports when it
    finishes (also when it stopped early). Files go through the run's `ArtifactStore`.
    """

    def __init__(self, store: ArtifactStore, allure: str | None = None) -> None:
        self.store = store
        #: Where the run's Allure results go too (`--alluredir`; None: nowhere).
        self.allure = allure
        #: The scenario's file and tags, as the run started (Allure's test case is named by them).
        self._scenario: tuple[str, tuple[str, ...]] = ("", ())
        self._timeline = store.append("timeline.log")
        #: The device's log as the steps read it (`device.log`), opened when the first lines come.
        self._device_log: TextSink | None = None
        #: When each step started (ms since the run started), by its index: the report's timeline and chapters.
        self._starts: dict[int, float] = {}
        #: The screen's size, as the run's device gave it: the report marks failed steps' screenshots in it.
        self._size: Size | None = None

    def handle(self, event: Event) -> None:
        """Record an event: a timeline line, the device and runtime when the run starts, the reports at its end.

        A run that stopped early gets no timeline line for its end (its last line shows where it stopped); its
        reports are written all the same.
        """
        lost: OutputError | None = None
        if not (isinstance(event, RunFinished) and event.reason is not None):
            try:
                self._line(event)
            except OutputError as exc:
                if not isinstance(event, RunFinished):
                    raise
                lost = exc  # the timeline's last line: the reports are written all the same, then it is said
        if isinstance(event, RunStarted):
            self._size = event.device.size
            self._scenario = (event.scenario.source, tuple(event.scenario.meta.tags))
            self.store.write("env/device.json", _json(_device(event)), "json")
            self.store.write("env/runtime.json", _json(_runtime(event)), "json")
            if event.scenario.translated is not None:  # a Maestro flow run as it is: the scenario that ran
                self.store.write("scenario.yaml", event.scenario.translated)
        elif isinstance(event, StepStarted):
            self._starts[event.step.index] = event.at_ms
        elif isinstance(event, StepFinished):
            self._starts.setdefault(event.result.index, event.at_ms - event.result.duration_ms)
            if event.result.log:
                self._log(event.result)
        elif isinstance(event, RunFinished):
            self._reports(event)
        if lost is not None:
            raise lost

    def _reports(self, end: RunFinished) -> None:
        """Write the reports of a finished (or stopped) run, its video if kept, and close the timeline.

        They are rendered from the result with its secrets masked: masking the rendered files alone could cut
        an escape in two where a secret meets the markup around it, or mask a word of the markup itself. Each
        is then masked again where it holds data (`ArtifactStore.write`).
        """
        result = redact(end.result, self.store.secrets)
        video, moments = None, {}
        if end.video is not None:
            video = f"{VIDEO_NAME}.{end.video.suffix}"
            self.store.write(video, end.video.data)
            # Each step's moment in the video (the simulated phone's screens are held there to be seen).
            moments = {index: end.video.at(ms) for index, ms in self._starts.items()}
            self.store.write(CHAPTERS, chapters(result.steps, moments, end.video.at(end.at_ms)))
        self.store.write("summary.json", _json(result.to_dict()), "json")
        self.store.write("summary.txt", summary.render(result))
        self.store.write("junit.xml", junit.render(result, result.scenario), "markup")
        timeline = html.Timeline(self._starts, video, moments, self._size)
        self.store.write("report.html", html.render(result, result.scenario, self.store.root, timeline), "markup")
        self.close()
        if self.allure is not None:
            self._allure(result, self.allure, [name for name in ("device.log", video, "report.html") if name])

    def _allure(self, result: RunResult, folder: str, attached: list[str]) -> None:
        """Write the run's Allure results into `folder`: its result, and its files copied beside it.

        Raises:
            OutputError: the folder cannot be written, or a file of the run read back.
        """
        source, tags = self._scenario
        root = self.store.root
        # A phone's long recording may be larger than a results folder should copy: it stays in the run's folder.
        kept = tuple(name for name in attached if _size(os.path.join(root, name)) <= ALLURE_ATTACHMENT_BYTES)
        run = AllureRun(_in_its_project(source) if source else result.scenario, tags, self._starts, root, kept)
        try:
            os.makedirs(folder, exist_ok=True)
            for file in allure_files(result, run):
                data = (read_confined(root, file.copy, noun="artifact", limit=ALLURE_ATTACHMENT_BYTES) if file.copy
                        else file.text.encode("utf-8"))  # fmt: skip
                write_confined(folder, file.name, self.store.masked(data))
        except OSError as exc:  # a link or a device in its place too (UnsafePath)
            raise OutputError.from_unwritable(folder, exc, details={"path": folder}) from exc

    def close(self) -> None:
        """Close the timeline.

        Raises:
            OutputError: what it still held could not be written (a full disk), naming timeline.log and why.
        """
        for name, stream in (("timeline.log", self._timeline), ("device.log", self._device_log)):
            if stream is not None and not stream.closed:
                try:
                    stream.close()  # closed all the same when its last flush fails
                except (OSError, ValueError) as exc:
                    path = os.path.join(self.store.root, name)
                    raise OutputError.from_unwritable(path, exc, details={"path": path}) from exc

    def _log(self, step: StepResult) -> None:
        """Append a step's slice of the device's log to `device.log`, flushed: a run stopped later keeps it."""
        path = os.path.join(self.store.root, "device.log")
        try:
            if self._device_log is None:
                self._device_log = self.store.append("device.log")
            self._device_log.write(f"--- step {step.id} ({step.command})\n")
            self._device_log.write("".join(item.shown().replace("\n", "\\n") + "\n" for item in step.log))
            self._device_log.flush()
        except OSError as exc:
            raise OutputError.from_unwritable(path, exc, details={"path": path}) from exc

    def _line(self, event: Event) -> None:
        try:
            self._timeline.write(_timeline_line(event) + "\n")
            self._timeline.flush()
        except OSError as exc:
            timeline = os.path.join(self.store.root, "timeline.log")
            raise OutputError.from_unwritable(timeline, exc, details={"path": timeline}) from exc


#: The largest file of a run copied into Allure's results (a longer video stays in the run's folder only).
ALLURE_ATTACHMENT_BYTES = 256 * 1024 * 1024


def _in_its_project(source: str) -> str:
    """Return a scenario's file as its project names it (`scenarios/login.yaml`): the same on every checkout."""
    real = os.path.realpath(source)
    return os.path.relpath(real, project_folder(os.path.dirname(real))).replace(os.sep, "/")


def _size(path: str) -> int:
    """Return a file's size (a missing one is larger than any: it is not attached)."""
    try:
        return os.stat(path).st_size
    except OSError:
        return ALLURE_ATTACHMENT_BYTES + 1


def _timeline_line(event: Event) -> str:
    if isinstance(event, RunStarted):
        name, device = event.scenario.meta.name, event.device.name
        return f"+0.000s run {event.run_id} started: {name} on {device} (seed {event.effective_seed})"
    stamp = f"+{event.at_ms / 1000:.3f}s"
    if isinstance(event, StepStarted):
        return f"{stamp} step {event.step.id} ({event.step.command}) started"
    if isinstance(event, StepFinished):
        step = event.result
        reason = f": {step.error.message}" if step.error else ""
        return f"{stamp} step {step.id} ({step.command}) {step.word} in {step.duration_ms} ms{reason}"
    if isinstance(event, AssertionChecked):
        check = event.result
        reason = f": {check.details}" if check.details else ""
        return f"{stamp} assertion {check.id} ({check.type} {check.target}) {check.word}{reason}"
    run = event.result
    return f"{stamp} run {run.run_id} {run.word}"


def _device(event: RunStarted) -> dict[str, object]:
    info = event.device
    return {
        "platform": info.platform,
        "device": info.name,  # upstream's key, which scripts read
        "name": info.name,
        "runtime": info.runtime,
        "model": info.model,
        "app_id": info.app_id,
        "screen": {"width": info.size.width, "height": info.size.height},
        "native_actions": sorted(str(action) for action in info.native_actions),
    }


def _runtime(event: RunStarted) -> dict[str, object]:

    return {
        "visor": __version__,
        "python": platform.python_version(),
        "scenario": event.scenario.source,
        "runtime": event.device.runtime,
        "effective_seed": event.effective_seed,
    }


def _json(value: Mapping[str, object]) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False) + "\n"

"""pytest plugin: scenario files are test items, so `pytest scenarios/` runs them (and `pytest -n 8` spreads them).

Registered as the `pytest11` entry point `visor`: every YAML or JSON file pytest collects that is a scenario (a
mapping with `meta` and `steps`; app models left out) becomes one test item, named by its `meta.name`.

- The item runs the scenario as `visor run FILE` does (its own artifacts folder and report.html); a failed step
  or assertion fails the item, showing each failure with its likely cause and next step, and where the report is.
- A scenario that does not validate fails with its issues; one whose device cannot be had errors.
- A file that cannot be read or parsed is never skipped silently when it is a scenario by its look (its text
  names the keys `meta` and `steps`) or was named on the command line: it is one failing item, named by the file's
  stem, saying what is wrong and where (`file:line:col`), as `visor validate` says it.
- `meta.tags` are keywords (`pytest -k smoke`); a scenario tagged `expected-failure` is `xfail` (strict: one that
  passes is reported as such).
- The run id, the signature, the seed and the report's path are the item's `user_properties`, so `--junitxml`
  carries them; an unseeded scenario's failure says which seed replays it.
- `--visor-runtime` and `--visor-output` (or the ini options `visor_runtime`, `visor_output`) choose where
  scenarios run and where their artifacts go; otherwise each scenario's `config` decides.
  `--visor-default-runtime` (ini `visor_default_runtime`) is where a scenario that names no runtime runs.

pytest-xdist distributes the items like any others: each worker runs its scenarios on devices of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import visor.api  # noqa: F401  -- plugs the features into the core's hooks, as every front end does
from visor.run.config import RunConfig
from visor.runtimes.config import DeviceConfig
from visor.scenario.tags import EXPECTED_FAILURE


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the runtime and output options."""
    group = parser.getgroup("visor", "visor scenarios")
    group.addoption("--visor-runtime", default=None, help="Where scenarios run (sim, appium…): as visor run.")
    group.addoption("--visor-output", default=None, help="Where scenarios' artifacts go (default: as visor run).")
    group.addoption("--visor-default-runtime", default=None,
                    help="Where scenarios that name no config.runtime run (others keep theirs).")  # fmt: skip
    # The scenarios' ${KEY} parameters, as visor run's -e, --env-file and --secret give them.
    group.addoption("--visor-env", action="append", default=[], metavar="KEY=VALUE",
                    help="A value for ${KEY} in the scenarios; repeatable.")  # fmt: skip
    group.addoption("--visor-env-file", default=None, metavar="FILE",
                    help="Values for ${KEY} from a dotenv file (KEY=VALUE lines).")  # fmt: skip
    group.addoption("--visor-secret", action="append", default=[], metavar="KEY",
                    help="${KEY} from the environment variable KEY, masked in every output; repeatable.")  # fmt: skip
    parser.addini("visor_runtime", "Where scenarios run (sim, appium…).", default="")
    parser.addini("visor_output", "Where scenarios' artifacts go.", default="")
    parser.addini("visor_default_runtime", "Where scenarios that name no config.runtime run.", default="")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Collect a scenario file as one test item."""
    # Imported here, not with the plugin: pytest loads the plugin in every session of a project visor is in, and
    # the scenario models are only needed once a scenario-like file turns up.
    from visor.inputs.reading import FORMATS_BY_SUFFIX

    if file_path.suffix.lower() not in FORMATS_BY_SUFFIX:
        return None
    from visor.scenario.discovery import MODEL_SUFFIXES

    if file_path.name.lower().endswith(MODEL_SUFFIXES):
        return None
    if not _looks_like_a_scenario(file_path, named=parent.session.isinitpath(file_path)):
        return None
    collected: pytest.Collector = ScenarioFile.from_parent(parent, path=file_path)
    return collected


def _looks_like_a_scenario(path: Path, *, named: bool) -> bool:
    """Say whether a file is a scenario; one that cannot be read counts when named or when its text says so."""
    from visor.errors import VisorError
    from visor.inputs.data import read_document

    try:
        data = read_document(str(path)).data
    except VisorError:
        # Collected to fail with the reason: a scenario with a typo must never vanish from the run.
        return named or _reads_like_a_scenario(path)
    return isinstance(data, dict) and "steps" in data and "meta" in data


#: The keys `meta` and `steps` written as keys (YAML or JSON, quoted or not), in text that does not parse.
_SCENARIO_KEY = r"""(?:^|[\s{,])["']?KEY["']?\s*:"""


#: How much of a file that does not parse is looked at for the keys (a scenario too large to read says them early).
_HEAD_BYTES = 64 * 1024


def _reads_like_a_scenario(path: Path) -> bool:
    """Say whether the start of a file that does not parse names both keys a scenario has."""
    import os
    import re
    import stat

    try:  # non-blocking, and only a regular file: a FIFO named like a scenario must not hang collection
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a linked scenario is one, as pytest collects it
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return False
        text = os.read(handle, _HEAD_BYTES).decode("utf-8", "replace")
    except OSError:
        return False
    finally:
        os.close(handle)
    return all(re.search(_SCENARIO_KEY.replace("KEY", key), text, re.MULTILINE) for key in ("meta", "steps"))


class ScenarioFile(pytest.File):
    """A scenario file: one item."""

    def collect(self) -> Iterator[pytest.Item]:
        """Yield the scenario's item, named by its `meta.name` (else the file's stem); one failing if unreadable."""
        from visor.errors import VisorError
        from visor.inputs.data import read_document
        from visor.ui.escapes import printable

        try:
            data = read_document(str(self.path)).data
        except VisorError as exc:
            yield UnreadableScenario.from_parent(self, name=printable(self.path.stem), error=exc)
            return
        meta = data.get("meta") if isinstance(data, dict) else None
        name = meta.get("name") if isinstance(meta, dict) else None
        tags = meta.get("tags") if isinstance(meta, dict) else None
        yield ScenarioItem.from_parent(
            self,
            # The name is printed by pytest as it is: control characters from the file are shown escaped.
            name=printable(name) if isinstance(name, str) and name else self.path.stem,
            tags=[str(tag) for tag in tags] if isinstance(tags, list) else [],
        )


class _ToldItem(pytest.Item):
    """An item whose failure shows what failed, why and what to do next, never a traceback into visor."""

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        """Show a `ScenarioFailed`'s lines; anything else as pytest shows it."""
        if isinstance(excinfo.value, ScenarioFailed):
            return "\n".join(str(line) for line in excinfo.value.args)
        return str(super().repr_failure(excinfo, style))


class UnreadableScenario(_ToldItem):
    """A scenario file that cannot be read or parsed: an item that fails with the reason and its position."""

    def __init__(self, *, error: Exception, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error = error

    def runtest(self) -> None:
        """Fail with what is wrong with the file (`file:line:col: ...`), its likely cause and the next step."""
        from visor.errors import VisorError

        exc = self.error
        if not isinstance(exc, VisorError):  # pragma: no cover - collect() only hands visor errors
            raise exc
        raise ScenarioFailed(f"{exc.info().code}: {exc.message}", f"cause: {exc.likely_cause}",
                             f"next: {exc.next_step}")  # fmt: skip

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Name the item in reports by its file."""
        return self.path, None, f"scenario file: {self.path.name}"


class ScenarioFailed(Exception):
    """A scenario ran and failed (or could not run): the lines to show."""

    def __init__(self, *lines: str, secrets: tuple[str, ...] = ()) -> None:
        from visor.ui.escapes import printable
        from visor.ui.secrets import mask_text

        # pytest prints these on the terminal and into --junitxml: secrets masked, control characters escaped.
        super().__init__(*(printable(mask_text(line, secrets)) for line in lines))


def _parameters(config: pytest.Config) -> tuple[dict[str, str], tuple[str, ...]]:
    """Return the scenarios' `${KEY}` values and the values to mask (see `visor.inputs.parameters.gather`)."""
    from visor.inputs.parameters import gather

    secrets = config.getoption("visor_secret")
    assignments = config.getoption("visor_env")
    return gather(config.getoption("visor_env_file"), assignments, secrets, secret_flag="--visor-secret")


class ScenarioItem(_ToldItem):
    """One scenario, run as a test."""

    def __init__(self, *, tags: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tags = tags
        self.extra_keyword_matches.update(tags)
        if EXPECTED_FAILURE in tags:
            self.add_marker(pytest.mark.xfail(reason=f"tagged {EXPECTED_FAILURE}", strict=True))

    def runtest(self) -> None:
        """Run the scenario; raise `ScenarioFailed` when it fails or cannot run."""
        from visor.clock import RandomIds, SystemClock
        from visor.engine.results import Verdict
        from visor.errors import NotInstalled, VisorError
        from visor.run.config import Environment
        from visor.run.runs import PreparedRun, attempt
        from visor.run.suites import not_here

        config = self.config
        runtime = config.getoption("visor_runtime") or config.getini("visor_runtime") or None
        output = config.getoption("visor_output") or config.getini("visor_output") or None
        fallback = config.getoption("visor_default_runtime") or config.getini("visor_default_runtime") or None
        env = Environment(SystemClock(), RandomIds(), None)
        secrets: tuple[str, ...] = ()
        try:
            parameters, secrets = _parameters(config)
            device = DeviceConfig(runtime=runtime)
            options = RunConfig(device=device, output=output, parameters=parameters, secrets=secrets)
            prepared = PreparedRun.load(str(self.path), options, env)
            if runtime is None and fallback and prepared.scenario.config.runtime is None:
                prepared = replace(prepared, options=replace(options, device=DeviceConfig(runtime=fallback)))
            done = attempt(prepared, env, ())
        except NotInstalled as exc:  # a choice of the install, as in `visor run DIR`: skipped, saying what to add
            pytest.skip(not_here(exc))
        except VisorError as exc:
            raise ScenarioFailed(
                f"{exc.info().code}: {exc.message}", f"next: {exc.next_step}", secrets=secrets
            ) from exc
        result = done.final.result
        report = str(Path(prepared.output, result.run_id, "report.html").resolve())
        self.user_properties += [("run_id", result.run_id), ("signature", result.signature),
                                 ("seed", str(result.effective_seed)), ("report", report)]  # fmt: skip
        if done.final.reason is not None:
            reason = done.final.reason
            raise ScenarioFailed(f"{reason.info().code}: {reason.message}", f"report: {report}", secrets=done.secrets)
        if result.status is not Verdict.PASSED:
            lines = (*_failures(result), *_seeded(prepared, result.effective_seed), f"report: {report}")
            raise ScenarioFailed(*lines, secrets=done.secrets)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Name the item in reports by its file and scenario name."""
        return self.path, None, f"scenario: {self.name}"


def _failures(result: Any) -> list[str]:
    from visor.engine.results import Verdict  # lazy: as runtest's, pytest loads the plugin on every start

    lines = []
    for step in result.steps:
        if step.error is not None:
            lines += [f"step {step.id} ({step.command}) {step.error.message}", f"  cause: {step.error.likely_cause}",
                      f"  next: {step.error.next_step}"]  # fmt: skip
    lines += [f"assertion {check.id} ({check.type} {check.target}) failed: {check.details}"
              for check in result.assertions if check.status is Verdict.FAILED]  # fmt: skip
    return lines or ["the scenario failed"]


def _seeded(prepared: Any, seed: int) -> list[str]:
    if prepared.scenario.config.seed is not None:
        return []
    return [f"unseeded: this run drew seed {seed}; `visor run {prepared.scenario.source} --seed {seed}` replays it"]

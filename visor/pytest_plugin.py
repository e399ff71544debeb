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
from pathlib import Path
from typing import Any

import pytest

# The front door only, as every front end outside visor uses it; importing it plugs the features into the core's
# hooks and costs next to nothing, since pytest loads the plugin in every session of a project visor is in.
import visor.api as visor


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
    """Collect a scenario file as one test item (see `visor.api.is_scenario_file`: a broken one is never skipped)."""
    if not visor.is_scenario_file(str(file_path), named=parent.session.isinitpath(file_path)):
        return None
    collected: pytest.Collector = ScenarioFile.from_parent(parent, path=file_path)
    return collected


class ScenarioFile(pytest.File):
    """A scenario file: one item."""

    def collect(self) -> Iterator[pytest.Item]:
        """Yield the scenario's item, named by its `meta.name` (else the file's stem); one failing if unreadable."""
        try:
            heading = visor.read_heading(str(self.path))
        except visor.VisorError as exc:
            yield UnreadableScenario.from_parent(self, name=visor.shown(self.path.stem), error=exc)
            return
        yield ScenarioItem.from_parent(
            self,
            # The name is printed by pytest as it is: control characters from the file are shown escaped.
            name=visor.shown(heading.name) if heading.name else self.path.stem,
            tags=list(heading.tags),
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
        exc = self.error
        if not isinstance(exc, visor.VisorError):  # pragma: no cover - collect() only hands visor errors
            raise exc
        raise ScenarioFailed(f"{exc.info().code}: {exc.message}", f"cause: {exc.likely_cause}",
                             f"next: {exc.next_step}")  # fmt: skip

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Name the item in reports by its file."""
        return self.path, None, f"scenario file: {self.path.name}"


class ScenarioFailed(Exception):
    """A scenario ran and failed (or could not run): the lines to show."""

    def __init__(self, *lines: str, secrets: tuple[str, ...] = ()) -> None:
        # pytest prints these on the terminal and into --junitxml: secrets masked, control characters escaped.
        super().__init__(*(visor.shown(line, secrets) for line in lines))


def _parameters(config: pytest.Config) -> tuple[dict[str, str], tuple[str, ...]]:
    """Return the scenarios' `${KEY}` values and the values to mask (see `visor.api.gather_parameters`)."""
    secrets = config.getoption("visor_secret")
    assignments = config.getoption("visor_env")
    return visor.gather_parameters(config.getoption("visor_env_file"), assignments, secrets,
                                   secret_flag="--visor-secret")  # fmt: skip


class ScenarioItem(_ToldItem):
    """One scenario, run as a test."""

    def __init__(self, *, tags: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tags = tags
        self.extra_keyword_matches.update(tags)
        if visor.EXPECTED_FAILURE in tags:
            self.add_marker(pytest.mark.xfail(reason=f"tagged {visor.EXPECTED_FAILURE}", strict=True))

    def runtest(self) -> None:
        """Run the scenario; raise `ScenarioFailed` when it fails or cannot run."""
        config = self.config
        runtime = config.getoption("visor_runtime") or config.getini("visor_runtime") or None
        output = config.getoption("visor_output") or config.getini("visor_output") or None
        fallback = config.getoption("visor_default_runtime") or config.getini("visor_default_runtime") or None
        secrets: tuple[str, ...] = ()
        try:
            parameters, secrets = _parameters(config)
            device = visor.DeviceConfig(runtime=runtime)
            options = visor.RunConfig(device=device, output=output, parameters=parameters, secrets=secrets)
            done = visor.run_once(str(self.path), options, fallback_runtime=fallback)
        except visor.NotInstalled as exc:  # a choice of the install, as in `visor run DIR`: skipped, saying what to add
            pytest.skip(visor.skip_reason(exc))
        except visor.VisorError as exc:
            raise ScenarioFailed(
                f"{exc.info().code}: {exc.message}", f"next: {exc.next_step}", secrets=secrets
            ) from exc
        result = done.result
        self.user_properties += [("run_id", result.run_id), ("signature", result.signature),
                                 ("seed", str(result.effective_seed)), ("report", done.report)]  # fmt: skip
        if done.reason is not None:
            reason = done.reason
            raise ScenarioFailed(f"{reason.info().code}: {reason.message}", f"report: {done.report}",
                                 secrets=done.secrets)  # fmt: skip
        if result.status is not visor.Verdict.PASSED:
            lines = (*_failures(result), *_seeded(done), f"report: {done.report}")
            raise ScenarioFailed(*lines, secrets=done.secrets)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Name the item in reports by its file and scenario name."""
        return self.path, None, f"scenario: {self.name}"


def _failures(result: visor.RunResult) -> list[str]:
    lines = []
    for step in result.steps:
        if step.error is not None:
            lines += [f"step {step.id} ({step.command}) {step.error.message}", f"  cause: {step.error.likely_cause}",
                      f"  next: {step.error.next_step}"]  # fmt: skip
    lines += [f"assertion {check.id} ({check.type} {check.target}) failed: {check.details}"
              for check in result.assertions if check.status is visor.Verdict.FAILED]  # fmt: skip
    return lines or ["the scenario failed"]


def _seeded(done: visor.SingleRun) -> list[str]:
    if done.seeded:
        return []
    seed = done.result.effective_seed
    return [f"unseeded: this run drew seed {seed}; `visor run {done.source} --seed {seed}` replays it"]

"""The pytest plugin: `pytest scenarios/` runs scenario files as tests; xdist spreads them; JUnit names them."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

PASSES = """\
meta: {name: signs-in, version: "1", tags: [smoke]}
config: {seed: 7, runtime: sim, app: demo}
steps:
  - {id: look, command: wait, args: {for: "text=Sign in", timeout: 500}}
"""
FAILS = PASSES.replace("signs-in", "misses").replace("text=Sign in", "text=Nowhere").replace("[smoke]", "[nightly]")
EXPECTED = FAILS.replace("misses", "known-bad").replace("[nightly]", "[expected-failure]")
INVALID = "meta: {name: broken, version: '1'}\nsteps: [{id: x, command: fly}]\n"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".yaml", **{"scenarios/a": PASSES, "scenarios/b": FAILS, "scenarios/c": EXPECTED,
                                  "scenarios/d": INVALID, "scenarios/demo.app": "not: a scenario",
                                  "scenarios/settings": "just: some config\n"})  # fmt: skip
    return pytester


def test_scenario_files_are_tests(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess(
        "scenarios", "--visor-output", "out", "--junitxml", "junit.xml", "-p", "visor"
    )
    result.assert_outcomes(passed=1, failed=2, xfailed=1)
    result.stdout.fnmatch_lines([
        "*step look (wait) Step 'look' (wait) failed: wait for text=Nowhere*",
        "*  next: *",
        "*report: *report.html*",
        "*FAILED scenarios/d.yaml::broken - INPUT_ERROR*",
    ])  # fmt: skip
    junit = ET.parse(project.path / "junit.xml").getroot()
    names = sorted(case.get("name") for case in junit.iter("testcase"))
    assert names == ["broken", "known-bad", "misses", "signs-in"]
    passed = next(case for case in junit.iter("testcase") if case.get("name") == "signs-in")
    properties = {p.get("name"): p.get("value") for p in passed.iter("property")}
    assert properties["run_id"].startswith("run_") and len(properties["signature"]) == 64
    assert (project.path / properties["report"]).is_file()


def test_tags_are_keywords(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("scenarios", "-k", "smoke", "--visor-output", "out", "-p", "visor")
    result.assert_outcomes(passed=1, deselected=3)


def test_xdist_spreads_the_scenarios(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("scenarios", "-n", "2", "--visor-output", "out", "-p", "visor")
    result.assert_outcomes(passed=1, failed=2, xfailed=1)


def test_the_shipped_scenarios_pass_under_pytest_with_xdist(tmp_path: Path) -> None:
    """`pytest -n 2 scenarios/` from the repository: every scenario an item, its JUnit naming them all."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    junit_path = f"{tmp_path}/junit.xml"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "scenarios/", "-n", "2", "-q", "-p", "no:cacheprovider",
         "--visor-output", f"{tmp_path}/out", "--junitxml", junit_path],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]
    names = sorted(case.get("name") or "" for case in ET.parse(junit_path).getroot().iter("testcase"))
    # An app model (`*.app.yaml`) the scenarios load is no scenario of its own.
    shipped = sorted(
        path.stem for path in (ROOT / "scenarios").rglob("*")
        if path.suffix in (".yaml", ".json") and not path.name.endswith(".app.yaml")
    )  # fmt: skip
    assert len(names) == len(shipped) and "fails-on-purpose" in names


def test_scenario_parameters_are_given_as_visor_run_gives_them(pytester: pytest.Pytester) -> None:
    parametrized = PASSES.replace("text=Sign in", "text=${TITLE}").replace("signs-in", "titled")
    pytester.makefile(".yaml", **{"scenarios/p": parametrized})
    pytester.makefile(".env", **{"values": "TITLE=Sign in\n"})
    missing = pytester.runpytest_subprocess("scenarios", "--visor-output", "out", "-p", "visor")
    missing.assert_outcomes(failed=1)
    missing.stdout.fnmatch_lines(["*UNKNOWN_REFERENCE*TITLE*"])
    pytester.runpytest_subprocess("scenarios", "--visor-output", "out", "-p", "visor", "--visor-env",
                                  "TITLE=Sign in").assert_outcomes(passed=1)  # fmt: skip
    pytester.runpytest_subprocess("scenarios", "--visor-output", "out", "-p", "visor", "--visor-env-file",
                                  "values.env").assert_outcomes(passed=1)  # fmt: skip
    unset = pytester.runpytest_subprocess("scenarios", "--visor-output", "out", "-p", "visor", "--visor-secret", "NOPE")
    unset.assert_outcomes(failed=1)
    unset.stdout.fnmatch_lines(["*--visor-secret NOPE: the environment variable NOPE is not set*"])


def test_a_failure_shows_no_secret_and_no_control_sequence(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What pytest prints of a failed scenario (and writes into --junitxml) is masked and escaped as visor run's is."""
    failing = (
        'meta: {name: "bad\\e[2K\\rFAKE", version: "1"}\n'
        "config: {seed: 1, runtime: sim, timeoutMs: 200}\n"
        "steps:\n"
        '  - {id: open, command: navigate, args: {to: "demo://login"}}\n'
        '  - {id: "t\\e[31m", command: tap, args: {target: "text=${SEC}x"}}\n'
    )
    pytester.makefile(".yaml", **{"scenarios/s": failing})
    monkeypatch.setenv("SEC", "hunter2-Secret")
    done = pytester.runpytest_subprocess(
        "scenarios", "--visor-output", "out", "-p", "visor", "--visor-secret", "SEC", "--junitxml", "j.xml"
    )
    done.assert_outcomes(failed=1)
    shown = "\n".join(done.outlines + done.errlines) + (pytester.path / "j.xml").read_text()
    assert "hunter2" not in shown and "•••" in shown
    assert "\x1b" not in shown and "\\x1b[2K" in shown


def test_an_unparseable_scenario_fails_saying_where_never_vanishes(pytester: pytest.Pytester) -> None:
    """A scenario with a syntax error is a failing item naming file:line:col; other broken YAML is left alone."""
    broken_yaml = PASSES.replace("timeout: 500}}", "timeout: 500}") + "  - {id: x\n"
    pytester.makefile(".yaml", **{"scenarios/a": PASSES, "scenarios/typo": broken_yaml,
                                  "scenarios/template": "image: {{ .Values.image }}\n"})  # fmt: skip
    pytester.makefile(".json", **{"scenarios/j": '{"meta": {"name": "j"}, "steps": [1,]}'})
    done = pytester.runpytest_subprocess("scenarios", "--visor-output", "out", "-p", "visor", "--junitxml", "j.xml")
    done.assert_outcomes(passed=1, failed=2)
    done.stdout.fnmatch_lines_random([
        "*INPUT_ERROR: *scenarios/typo.yaml:5:3: YAML syntax error*",
        "*INPUT_ERROR: *scenarios/j.json:1:37: JSON syntax error*",
        "next: Fix the YAML at that position*",
        "FAILED scenarios/typo.yaml::typo - INPUT_ERROR*",
    ])  # fmt: skip
    assert "Traceback" not in done.stdout.str() and "template" not in done.stdout.str()
    names = sorted(case.get("name") or "" for case in ET.parse(pytester.path / "j.xml").getroot().iter("testcase"))
    assert names == ["j", "signs-in", "typo"]
    # Named on the command line, any file that does not parse fails as such.
    named = pytester.runpytest_subprocess("scenarios/template.yaml", "-p", "visor")
    named.assert_outcomes(failed=1)
    named.stdout.fnmatch_lines(["INPUT_ERROR: *template.yaml:1:9: *"])


def test_a_scenario_too_large_to_read_fails_saying_so(pytester: pytest.Pytester) -> None:
    """A 9 MB scenario (over the 8 MiB visor reads) vanished: 'no tests ran', exit 5."""
    steps = "".join(f"  - {{id: s{n}, command: wait, args: {{ms: 1}}}}\n" for n in range(200_000))
    pytester.makefile(".yaml", **{"scenarios/huge": "meta: {name: huge, version: '1'}\nsteps:\n" + steps})
    (pytester.path / "scenarios" / "linked.yaml").symlink_to(pytester.path / "scenarios" / "huge.yaml")
    done = pytester.runpytest_subprocess("scenarios", "--visor-output", "out", "-p", "visor")
    done.assert_outcomes(failed=2)  # a link to one is one, as pytest collects it
    done.stdout.fnmatch_lines(["*INPUT_ERROR*too large*"])


def test_a_scenario_this_install_cannot_run_is_skipped_saying_what_to_add(pytester: pytest.Pytester) -> None:
    """As `visor run DIR` does: a runtime whose extra is not installed skips its scenario, naming the install."""
    pytester.makeconftest("import sys\nsys.modules['appium'] = None  # an install without the appium extra\n")
    phone = "meta: {name: on-a-phone, version: '1'}\nconfig: {runtime: appium, capabilities: {platformName: Android}}\n"
    pytester.makefile(".yaml", **{"scenarios/a": PASSES, "scenarios/phone": phone + "steps: [{id: w, command: wait, "
                                  "args: {ms: 10}}]\n"})  # fmt: skip
    done = pytester.runpytest_subprocess("scenarios", "--visor-output", "out", "-p", "visor", "-rs")
    done.assert_outcomes(passed=1, skipped=1)
    done.stdout.fnmatch_lines(["*SKIPPED*not runnable on this install: the Appium runtime needs Appium-Python-Client*"])

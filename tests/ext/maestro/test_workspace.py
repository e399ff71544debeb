"""A Maestro workspace (a folder with `config.yaml`) imported: its `flows:` globs, tags and order honoured, as a
`visor.toml` a suite reads; what visor cannot honour said with the config's file and line; a bad config refused."""

from __future__ import annotations

import contextlib
import os
import tomllib
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import Cli
from visor.ext.maestro.workspace import Workspace, project_toml

FLOW = """\
appId: com.visor.demo
name: {name}
tags: [{tags}]
---
- openLink: demo://login
- assertVisible: Log in
"""


def workspace(tmp_path: Path, config: str | None, flows: dict[str, str]) -> Path:
    """Write a workspace: `config.yaml` (unless None) and each flow (path -> its tags, comma-separated)."""
    folder = tmp_path / "flows"
    for relative, tags in flows.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(FLOW.format(name=path.stem.title(), tags=tags), encoding="utf-8")
    if config is not None:
        (folder / "config.yaml").write_text(config, encoding="utf-8")
    return folder


def imported(cli_runner: Cli, *extra: str) -> tuple[dict[str, object], list[str]]:
    """Import `flows/` into `out/`; return data and the scenario files written, sorted."""
    result = cli_runner.run("import", "maestro", "flows", "-o", "out", *extra)
    names = sorted(name for name in os.listdir(cli_runner.cwd / "out") if name.endswith(".yaml"))
    return result.data, names


def project(cli_runner: Cli) -> dict[str, object]:
    """Return the visor.toml written into `out/`."""
    return tomllib.loads((cli_runner.cwd / "out" / "visor.toml").read_text(encoding="utf-8"))


def test_without_flows_only_the_top_level_flows_are_imported(cli_runner: Cli, tmp_path: Path) -> None:
    workspace(tmp_path, "includeTags: []\n", {"a.yaml": "x", "sub/b.yaml": "x"})
    data, names = imported(cli_runner)
    assert names == ["a.yaml"]
    assert project(cli_runner)["paths"] == ["."]
    assert data["workspace"]["not_kept"] == []  # type: ignore[index]


def test_a_recursive_glob_selects_flows_in_every_folder(cli_runner: Cli, tmp_path: Path) -> None:
    workspace(tmp_path, "flows:\n  - 'sub/**'\n", {"a.yaml": "x", "sub/b.yaml": "x", "sub/deep/c.yaml": "x"})
    _, names = imported(cli_runner)
    assert names == ["b.yaml", "c.yaml"]


def test_tags_become_the_suites_tag_filters_and_run_as_maestro_runs(cli_runner: Cli, tmp_path: Path) -> None:
    config = "includeTags: [smoke]\nexcludeTags: [slow]\n"
    workspace(tmp_path, config, {"a.yaml": "smoke", "b.yaml": "smoke, slow", "c.yaml": "other"})
    imported(cli_runner)
    settings_ = project(cli_runner)
    assert settings_["include_tags"] == ["smoke"] and settings_["exclude_tags"] == ["slow"]
    with contextlib.chdir(cli_runner.cwd / "out"):
        run = Cli(cli_runner.cwd / "out").run("run", "--runtime", "sim", "--output", "../runs", envelope=False)
    rows = {row["path"].split("/")[-1]: row["status"] for row in run.data["suite"]["scenarios"]}
    assert rows == {"a.yaml": "passed", "b.yaml": "skipped", "c.yaml": "skipped"}, rows


def test_flows_order_runs_those_flows_first_by_name_or_file_stem(cli_runner: Cli, tmp_path: Path) -> None:
    config = "executionOrder:\n  continueOnFailure: false\n  flowsOrder:\n    - zeta\n    - Beta\n    - nowhere\n"
    workspace(tmp_path, config, {"alpha.yaml": "x", "beta.yaml": "x", "zeta.yaml": "x"})
    data, _ = imported(cli_runner)
    assert project(cli_runner)["paths"] == ["zeta.yaml", "beta.yaml", "."]
    report = data["workspace"]
    assert report["unordered"] == ["nowhere"]  # type: ignore[index]
    assert [(n["command"], n["line"]) for n in report["not_kept"]] == [("continueOnFailure", 2)]  # type: ignore[index]
    run = Cli(cli_runner.cwd / "out").run("run", "--runtime", "sim", "--output", "../runs", envelope=False)
    order = [row["path"].split("/")[-1] for row in run.data["suite"]["scenarios"]]
    assert order == ["zeta.yaml", "beta.yaml", "alpha.yaml"]


def test_keys_visor_cannot_honour_are_named_with_their_line(cli_runner: Cli, tmp_path: Path) -> None:
    config = "flows: ['*']\nplatform:\n  ios:\n    disableAnimations: true\ntestOutputDir: out\n"
    workspace(tmp_path, config, {"a.yaml": "x"})
    data, _ = imported(cli_runner)
    not_kept = data["workspace"]["not_kept"]  # type: ignore[index]
    assert [(n["command"], n["line"]) for n in not_kept] == [("platform", 2), ("testOutputDir", 5)]


def test_a_malformed_config_is_an_input_error_at_its_line(cli_runner: Cli, tmp_path: Path) -> None:
    workspace(tmp_path, "flows:\n  - a\nincludeTags: {x: 1}\n", {"a.yaml": "x"})
    result = cli_runner.run("import", "maestro", "flows", "-o", "out")
    assert result.exit_code == 1
    error = result.envelope["error"]
    assert error["code"] == "INPUT_ERROR" and "includeTags" in error["message"] and ":3:" in error["message"]
    assert not (tmp_path / "out").exists()


def test_broken_yaml_in_the_config_is_refused_with_its_line(cli_runner: Cli, tmp_path: Path) -> None:
    workspace(tmp_path, "flows: [a\n", {"a.yaml": "x"})
    result = cli_runner.run("import", "maestro", "flows", "-o", "out")
    assert result.exit_code == 1 and "config.yaml" in result.envelope["error"]["message"]


def test_a_config_that_is_a_link_or_huge_is_refused(cli_runner: Cli, tmp_path: Path) -> None:
    folder = workspace(tmp_path, None, {"a.yaml": "x"})
    (tmp_path / "elsewhere.yaml").write_text("flows: ['*']\n", encoding="utf-8")
    (folder / "config.yaml").symlink_to(tmp_path / "elsewhere.yaml")
    result = cli_runner.run("import", "maestro", "flows", "-o", "out")
    assert result.exit_code == 1 and "config.yaml" in result.envelope["error"]["message"]
    (folder / "config.yaml").unlink()
    (folder / "config.yaml").write_text("# x\n" * 200_000, encoding="utf-8")
    result = cli_runner.run("import", "maestro", "flows", "-o", "out")
    assert result.exit_code == 1 and "config.yaml" in result.envelope["error"]["message"]


@settings(deadline=None, max_examples=50)
@given(
    order=st.lists(st.text(min_size=1, max_size=8), max_size=4),
    tags=st.lists(st.text(min_size=1, max_size=8).filter(str.strip), max_size=3),
)
def test_the_project_file_reads_back_as_what_the_workspace_said(order: list[str], tags: list[str]) -> None:
    text = project_toml(Workspace("config.yaml", include_tags=tuple(tags), exclude_tags=tuple(tags)), order)
    read = tomllib.loads(text)
    assert read["paths"] == [*order, "."]
    assert read.get("include_tags", []) == tags and read.get("exclude_tags", []) == tags


def test_config_yml_is_read_too_and_is_never_a_flow(cli_runner: Cli, tmp_path: Path) -> None:
    folder = workspace(tmp_path, None, {"a.yaml": "x", "b.yaml": "x"})
    (folder / "config.yml").write_text("flows: [b.yaml]\n", encoding="utf-8")
    data, names = imported(cli_runner)
    assert names == ["b.yaml"] and data["workspace"]["config"] == [str(Path("flows") / "config.yml")]  # type: ignore[index]


def test_two_workspaces_into_one_folder_write_no_project_file(cli_runner: Cli, tmp_path: Path) -> None:
    workspace(tmp_path, "excludeTags: [x]\n", {"a.yaml": "x"})
    other = tmp_path / "other"
    other.mkdir()
    (other / "b.yaml").write_text(FLOW.format(name="B", tags="y"), encoding="utf-8")
    (other / "config.yaml").write_text("includeTags: [y]\n", encoding="utf-8")
    result = cli_runner.run("import", "maestro", "flows", "other", "-o", "out")
    assert result.exit_code == 1 and "several Maestro workspaces" in result.envelope["error"]["message"]
    assert "several Maestro workspaces" in result.data["workspace"]["error"]["message"]
    assert not (tmp_path / "out" / "visor.toml").exists()


def test_a_visor_toml_already_there_is_kept_and_said(cli_runner: Cli, tmp_path: Path) -> None:
    workspace(tmp_path, "excludeTags: [x]\n", {"a.yaml": "y"})
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "visor.toml").write_text("runtime = 'sim'\n", encoding="utf-8")
    result = cli_runner.run("import", "maestro", "flows", "-o", "out")
    assert result.exit_code == 1 and "exists already" in result.envelope["error"]["message"]
    assert (tmp_path / "out" / "visor.toml").read_text(encoding="utf-8") == "runtime = 'sim'\n"
    assert cli_runner.run("import", "maestro", "flows", "-o", "out", "--force").exit_code == 0
    assert project(cli_runner)["exclude_tags"] == ["x"]

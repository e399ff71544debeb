"""Finding scenario files: globs as the shell reads them, never following a link back into its own folder."""

from __future__ import annotations

import contextlib
import glob
import os
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from visor.scenario.discovery import glob_paths

TREE = ["a.yaml", "b.yml", "c.json", "sub/d.yaml", "sub/deeper/e.yaml", "sub/deeper/f.txt", "other/g.yaml", "x1.yaml"]
PATTERNS = ["*.yaml", "**/*.yaml", "sub/**", "sub/*", "*/*.yaml", "sub/**/*.yaml", "?1.yaml", "[ab].y*", "[!a]*.yaml",
            "**/deeper/*", "nothing/*", "sub/deeper/*.t?t"]  # fmt: skip


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name in TREE:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    return tmp_path


@pytest.mark.parametrize("pattern", PATTERNS)
def test_a_pattern_matches_what_pythons_glob_matches_where_there_are_no_links(tree: Path, pattern: str) -> None:
    with contextlib.chdir(tree):
        # Python's glob lists a file as the folder a trailing `**` starts from (`e.yaml/` for `**/e.yaml/**`):
        # no such folder exists, so that is no match.
        found = glob.glob(pattern, recursive=True)
        expected = {path.rstrip("/") for path in found if not path.endswith("/") or os.path.isdir(path)} - {"sub"}
        assert set(glob_paths(pattern)) - {"sub"} == expected


@pytest.fixture(scope="module")
def shared_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tree")
    for name in TREE:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    return root


@settings(max_examples=60)
@given(parts=st.lists(st.sampled_from(["*", "**", "sub", "deeper", "*.yaml", "?.yaml", "[a-c]*", "e.yaml"]),
                      min_size=1, max_size=4))  # fmt: skip
def test_random_patterns_agree_with_glob(shared_tree: Path, parts: list[str]) -> None:
    pattern = "/".join(parts)
    root = shared_tree
    with contextlib.chdir(root):
        # Python's glob lists a file as the folder a trailing `**` starts from (`e.yaml/` for `**/e.yaml/**`):
        # no such folder exists, so that is no match.
        found = glob.glob(pattern, recursive=True)
        expected = {path.rstrip("/") for path in found if not path.endswith("/") or os.path.isdir(path)}
        got = set(glob_paths(pattern))
    # The same files; Python's glob also lists the folder a trailing `**` starts from, visor what is below it.
    assert got <= expected
    assert {path for path in expected if (root / path).is_file()} == {path for path in got if (root / path).is_file()}


def test_links_back_into_their_folder_are_never_followed(tree: Path) -> None:
    """Three links to `.` made Python's `**` walk for minutes; visor's is bounded by the tree."""
    for name in ("l1", "l2", "l3"):
        (tree / "sub" / name).symlink_to(".")
    started = time.monotonic()
    with contextlib.chdir(tree):
        found = glob_paths("sub/**/*.yaml")
    assert sorted(found) == ["sub/d.yaml", "sub/deeper/e.yaml"]
    assert time.monotonic() - started < 60  # a hang bound, not a speed

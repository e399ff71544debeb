"""visor.files: atomic writes with the umask's permissions, confined below a folder, never through a link."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from visor.errors import SourceError
from visor.files import UnsafePath, confined_parts, read_confined, read_regular, write_atomic, write_confined


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_atomic_writes_replace_whole_files_with_the_umasks_permissions(tmp_path: Path, umask_022: None) -> None:
    target = tmp_path / "report.html"
    write_atomic(str(target), b"first")
    write_atomic(str(target), b"second")
    assert target.read_bytes() == b"second" and mode(target) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # no temporary file left behind
    os.umask(0o077)
    write_atomic(str(target), b"third")
    assert mode(target) == 0o600


def test_confined_writes_create_folders_below_the_root(tmp_path: Path, umask_022: None) -> None:
    written = write_confined(str(tmp_path), "shots/day one/./login.png", b"png")
    assert written == str(tmp_path / "shots" / "day one" / "login.png")
    assert (tmp_path / "shots" / "day one" / "login.png").read_bytes() == b"png"
    assert mode(tmp_path / "shots") == 0o755 and mode(tmp_path / "shots" / "day one" / "login.png") == 0o644


@pytest.mark.parametrize(
    "relative", ["../x.png", "a/../../x.png", "/etc/x.png", "C:/x.png", "\\\\host\\x", "a/..", ".", "a\x00b"]
)
def test_paths_that_leave_the_root_are_refused(tmp_path: Path, relative: str) -> None:
    with pytest.raises(UnsafePath):
        write_confined(str(tmp_path), relative, b"x")
    assert list(tmp_path.iterdir()) == []


def test_a_planted_link_to_a_folder_is_never_followed(tmp_path: Path) -> None:
    root, victim = tmp_path / "project", tmp_path / "victim"
    root.mkdir()
    victim.mkdir()
    (root / "shots").symlink_to(victim)
    with pytest.raises(UnsafePath, match="shots is a symbolic link"):
        write_confined(str(root), "shots/x.png", b"x")
    assert list(victim.iterdir()) == []


def test_a_planted_link_at_the_file_is_never_written_through(tmp_path: Path) -> None:
    root, victim = tmp_path / "project", tmp_path / "victim.txt"
    root.mkdir()
    victim.write_text("precious")
    (root / "x.png").symlink_to(victim)
    with pytest.raises(UnsafePath, match=r"x\.png is a symbolic link"):
        write_confined(str(root), "x.png", b"x")
    assert victim.read_text() == "precious" and (root / "x.png").is_symlink()


def test_a_folder_is_not_overwritten(tmp_path: Path) -> None:
    (tmp_path / "x.png").mkdir()
    with pytest.raises(UnsafePath, match="is a folder"):
        write_confined(str(tmp_path), "x.png", b"x")


@given(st.lists(st.sampled_from(["a", "b", "..", ".", ""]), min_size=1, max_size=8))
def test_confined_parts_never_climb_above_the_root(parts: list[str]) -> None:
    relative = "/".join(parts)
    try:
        resolved = confined_parts(relative)
    except UnsafePath:
        depth, lowest = 0, 0
        for part in parts:
            depth += -1 if part == ".." else 0 if part in ("", ".") else 1
            lowest = min(lowest, depth)
        assert relative.startswith("/") or lowest < 0 or depth == 0
        return
    assert ".." not in resolved and "" not in resolved and "." not in resolved
    assert resolved == os.path.normpath(relative).split("/")


# Reading: regular files only, capped, and (confined) never out of the folder.


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "map.json"
    os.mkfifo(fifo)  # no writer: a blocking open would wait forever
    with pytest.raises(SourceError, match=r"named pipe \(FIFO\), not a regular file") as caught:
        read_regular(str(fifo), noun="app map")
    assert caught.value.path == str(fifo) and "app map" in caught.value.next_step


@pytest.mark.parametrize(("path", "kind"), [("/dev/zero", "character device"), ("/dev/null", "character device")])
def test_a_device_is_refused_before_reading(path: str, kind: str) -> None:
    with pytest.raises(SourceError, match=kind):
        read_regular(path)


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="a folder, not a regular file"):
        read_regular(str(tmp_path))


def test_size_is_capped_before_reading(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    with open(big, "wb") as handle:
        handle.truncate(1001)  # sparse
    with pytest.raises(SourceError, match="too large"):
        read_regular(str(big), noun="checkpoint", limit=1000)
    assert read_regular(str(big), limit=1001) == b"\0" * 1001


def test_a_link_to_a_regular_file_is_read_but_not_when_confined(tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("host file")
    root = tmp_path / "flows"
    root.mkdir()
    (root / "include.yaml").symlink_to(outside)
    assert read_regular(str(root / "include.yaml")) == b"host file"
    with pytest.raises(SourceError, match=r"outside its folder.*symbolic link"):
        read_confined(str(root), "include.yaml", noun="flow")


@pytest.mark.parametrize("relative", ["../secret.txt", "/etc/passwd", "sub/../../secret.txt", "a\x00b"])
def test_a_confined_read_never_leaves_its_folder(tmp_path: Path, relative: str) -> None:
    (tmp_path / "secret.txt").write_text("host file")
    root = tmp_path / "flows"
    root.mkdir()
    with pytest.raises(SourceError):
        read_confined(str(root), relative, noun="flow")


def test_a_confined_read_through_a_linked_folder_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "a.yaml").write_text("x")
    root = tmp_path / "flows"
    root.mkdir()
    (root / "sub").symlink_to(elsewhere)
    (root / "real").mkdir()
    (root / "real" / "a.yaml").write_text("inside")
    assert read_confined(str(root), "real/./a.yaml") == b"inside"
    with pytest.raises(SourceError, match="symbolic link"):
        read_confined(str(root), "sub/a.yaml")


def test_a_confined_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "cmd.json")
    with pytest.raises(SourceError, match="FIFO"):
        read_confined(str(tmp_path), "cmd.json", noun="command")


@pytest.mark.parametrize("kind", ["link", "fifo", "folder", "device-link"])
def test_an_atomic_write_never_replaces_what_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    """Renaming over `/dev/stdout` (a link), a device node or a FIFO replaced it with a regular file."""
    target = tmp_path / "out"
    if kind == "link":
        (tmp_path / "real").write_text("kept")
        target.symlink_to(tmp_path / "real")
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "folder":
        target.mkdir()
    else:
        target.symlink_to("/dev/null")
    before = os.lstat(target)
    with pytest.raises(UnsafePath):
        write_atomic(str(target), b"x")
    after = os.lstat(target)
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp")] == []


def test_an_unsafe_path_is_an_os_error_so_every_writer_words_it() -> None:
    assert issubclass(UnsafePath, OSError)


def test_a_name_near_the_file_systems_limit_is_written(tmp_path: Path) -> None:
    """252 bytes of emoji: the temporary name once passed 255 bytes ("File name too long")."""
    name = "😀" * 62 + ".png"
    write_atomic(str(tmp_path / name), b"x")
    assert write_confined(str(tmp_path), "sub/" + name, b"y").endswith(name)


def test_a_missing_file_is_likened_only_to_files_of_its_kind(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text("x")
    (tmp_path / "login.app.yaml").write_text("x")
    with pytest.raises(SourceError) as caught:
        read_regular(str(tmp_path / "m.app.yaml"), noun="app model")
    assert "s.yaml" not in caught.value.next_step
    with pytest.raises(SourceError) as near:
        read_regular(str(tmp_path / "logn.app.yaml"), noun="app model")
    assert "login.app.yaml" in near.value.next_step

"""adb as visor reaches a phone's folder: each file pulled is read bounded, by its use, never whole."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.runtimes.visualagent import fake_adb
from visor.errors import SourceError, TargetError
from visor.files import MAX_READ_BYTES
from visor.runtimes.adb import FILE_BYTES, Adb
from visor.runtimes.visualagent.mailbox import PhoneMailbox


@pytest.fixture
def sdcard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The stand-in phone's shared storage (`/sdcard`), reached through the stand-in adb."""
    root = tmp_path / "phone"
    (root / "sdcard").mkdir(parents=True)
    program = tmp_path / "adb"
    program.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{fake_adb.__file__}" "$@"\n')
    program.chmod(0o755)
    monkeypatch.setenv("VISOR_ADB", str(program))
    monkeypatch.setenv("FAKE_ADB_ROOT", str(root))
    return root / "sdcard"


def test_a_file_over_its_uses_limit_is_refused_naming_the_phones_file_not_read_whole(sdcard: Path) -> None:
    (sdcard / "clip.mp4").write_bytes(b"v" * 3000)
    adb = Adb(fake_adb.SERIAL)
    assert adb.read("/sdcard/clip.mp4", limit=3000) == b"v" * 3000
    with pytest.raises(TargetError) as refused:
        adb.read("/sdcard/clip.mp4", limit=2999)
    assert refused.value.message.startswith("the phone's file /sdcard/clip.mp4 cannot be read: ")
    assert "too large" in refused.value.message and "visor-adb-" not in refused.value.message  # no host path
    with pytest.raises(SourceError, match=f"^{fake_adb.SERIAL}:/sdcard/clip.mp4: the file pulled .* too large"):
        adb.pull("/sdcard/clip.mp4", limit=2999)  # the protocol's files: a SourceError, named on the phone
    assert adb.read("/sdcard/none.mp4") is None


def test_a_photo_larger_than_visors_default_read_is_read_by_default(sdcard: Path) -> None:
    """A phone's photos and documents: up to 100 MB (a 12 MB photo was refused at the 8 MiB of other files)."""
    (sdcard / "photo.jpg").write_bytes(b"j" * (MAX_READ_BYTES + 1))
    assert len(Adb(fake_adb.SERIAL).read("/sdcard/photo.jpg") or b"") == MAX_READ_BYTES + 1
    assert FILE_BYTES == 100_000_000


def test_a_folder_where_a_file_belongs_is_refused_as_not_a_file(sdcard: Path) -> None:
    """adb pulls a folder as a folder: visor's read said IsADirectoryError (the VisualAgent mailbox: a SourceError)."""
    (sdcard / "VisualAgent" / "results" / "x_result.json").mkdir(parents=True)
    with pytest.raises(TargetError, match=r"x_result\.json cannot be read: this is a folder, not a regular file"):
        Adb(fake_adb.SERIAL).read("/sdcard/VisualAgent/results/x_result.json")
    with pytest.raises(SourceError, match=f"{fake_adb.SERIAL}:/sdcard/VisualAgent/results/x_result.json: this is a"):
        PhoneMailbox(Adb(fake_adb.SERIAL)).answer("x")

"""A real Android phone's files, written by an agent's actions: an existing file is never replaced.

Against the stand-in adb of `test_android_data.py` (the phone's storage a local folder).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.runtimes.appium.test_android_data import ROOT, phone
from visor.device.protocol import InputRejected
from visor.runtimes.appium.android_data import AndroidData

__all__ = ["phone"]  # the fixture, shared


def test_write_file_onto_an_existing_file_is_refused(phone: AndroidData, tmp_path: Path) -> None:
    with pytest.raises(InputRejected, match="already exists: an agent replaces a file by deleting it first"):
        phone.change("write_file", {"path": f"{ROOT}/Download/notes.txt", "content": "replaced"})
    assert (tmp_path / "phone" / "sdcard" / "Download" / "notes.txt").read_text() == "notes"
    assert phone.change("write_file", {"path": f"{ROOT}/Download/new.txt", "content": "new"})
    assert (tmp_path / "phone" / "sdcard" / "Download" / "new.txt").read_text() == "new"

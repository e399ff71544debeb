"""AgentCab's upload store: each picked file under its id, beside its metadata, whatever the file is called."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from visor.ext.agentcab.calls import UploadStore


@pytest.mark.parametrize(("name", "stored"), [("meta.json", "_meta.json"), ("..", "file"), (".profile", "profile"),
                                              ("../../x y.txt", "_.._x_y.txt")])  # fmt: skip
def test_a_picked_files_name_never_takes_the_metadatas_place_nor_leaves_its_folder(
    tmp_path: Path, name: str, stored: str
) -> None:
    file_id = UploadStore(str(tmp_path)).put(name, b"the content", "text/plain", 11)
    folder = tmp_path / file_id
    assert sorted(path.name for path in folder.iterdir()) == sorted([stored, "meta.json"])
    assert (folder / stored).read_bytes() == b"the content"
    assert json.loads((folder / "meta.json").read_text())["name"] == name
    assert sorted(path.name for path in tmp_path.iterdir()) == [file_id]

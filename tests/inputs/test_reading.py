from __future__ import annotations

import io
from pathlib import Path

import pytest

from visor.errors import SourceError
from visor.inputs.reading import MAX_SOURCE_BYTES, decode, detect_format, read_path, read_stream


def test_reads_utf8_and_detects_format_by_suffix(tmp_path: Path) -> None:
    path = tmp_path / "a.yml"
    path.write_text("meta: {}\n", encoding="utf-8")
    source = read_path(str(path))
    assert (source.text, source.format, source.name) == ("meta: {}\n", "yaml", str(path))


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("x.json", "a: 1", "json"),
        ("x.YAML", "{}", "yaml"),
        ("<stdin>", '  {"a": 1}', "json"),
        ("<stdin>", "[1]", "json"),
        ("<stdin>", "a: 1", "yaml"),
        ("/dev/fd/63", "a: 1", "yaml"),
    ],
)
def test_format_detection(name: str, text: str, expected: str) -> None:
    assert detect_format(name, text) == expected


def test_byte_order_marks_are_honoured() -> None:
    assert decode(b"\xef\xbb\xbfa: 1", "f") == "a: 1"
    assert decode("a: é".encode("utf-16"), "f") == "a: é"


def test_binary_data_is_refused_with_its_offset() -> None:
    with pytest.raises(SourceError) as caught:
        decode(b"PNG\r\n\x1a\n\x00\x00", "image.yaml")
    assert "binary" in caught.value.message and (caught.value.line, caught.value.column) == (3, 1)


def test_invalid_utf8_names_line_and_column() -> None:
    with pytest.raises(SourceError) as caught:
        decode(b"meta:\n  name: caf\xe9\n", "latin1.yaml")
    error = caught.value
    assert (error.line, error.column) == (2, 12)
    assert "not valid UTF-8" in error.message and "0xe9" in error.message


def test_missing_file_suggests_a_neighbour(tmp_path: Path) -> None:
    (tmp_path / "login.yaml").write_text("x")
    with pytest.raises(SourceError) as caught:
        read_path(str(tmp_path / "logn.yaml"))
    assert "no such file" in caught.value.message
    assert "login.yaml" in caught.value.next_step


def test_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="directory"):
        read_path(str(tmp_path))


def test_oversized_file_is_refused_without_reading(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    with path.open("wb") as handle:
        handle.truncate(MAX_SOURCE_BYTES + 1)  # sparse: costs no disk
    with pytest.raises(SourceError, match="too large"):
        read_path(str(path))


def test_oversized_stream_is_refused() -> None:
    with pytest.raises(SourceError, match="too large"):
        read_stream(io.BytesIO(b"a" * (MAX_SOURCE_BYTES + 1)))


@pytest.mark.parametrize("path", ["a\x00b.yaml", "\x00", "dir/\x00/x.json"])
def test_a_nul_in_a_path_is_refused_as_input(path: str) -> None:
    """The OS cannot name such a file (os.stat raises ValueError); it is the user's input that is wrong."""
    with pytest.raises(SourceError) as caught:
        read_path(path)
    assert "NUL" in caught.value.message and caught.value.path == path


def test_a_path_the_file_system_cannot_encode_is_refused_as_input() -> None:
    """Only U+DC80-U+DCFF stand for bytes (PEP 383); another lone surrogate cannot be turned into a file name."""
    with pytest.raises(SourceError) as caught:
        read_path("\ud800.yaml")
    assert "cannot be encoded" in caught.value.message and caught.value.path == "\ud800.yaml"

"""Files an agent names over MCP (use_device's `app`, an app model) meet the one hardened reader, from outside.

A real MCP client, `visor mcp` run in a project of hostile app models: a FIFO, a folder, a link out of the
project, a path out of it, deep nesting, a file past the size limit, a NUL byte, bytes that are no UTF-8. Each
call is refused (`VALIDATION_ERROR`, the file named, nothing opened) in bounded time, the server goes on serving,
and nothing outside the project is touched.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.ext.tools.mcp.test_mcp import Answer, answer_of
from visor.files import MAX_READ_BYTES

HOSTILE = {
    "fifo.app.yaml": "named pipe",
    "folder.app.yaml": "folder",
    "link.app.yaml": "outside",
    "../outside.app.yaml": "outside",
    "deep.app.yaml": "nesting depth",
    "huge.app.yaml": "too large",
    "nul.app.yaml": "NUL byte",
    "encoding.app.yaml": "not valid UTF-8",
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project (visor.toml) holding the hostile app models, beside an app model outside it."""
    root = tmp_path_factory.mktemp("hostile")
    project = root / "project"
    project.mkdir()
    (project / "visor.toml").write_text("", "utf-8")
    (root / "outside.app.yaml").write_text("app: {id: com.example.outside, name: Outside, start: a}\n", "utf-8")
    os.mkfifo(project / "fifo.app.yaml")
    (project / "folder.app.yaml").mkdir()
    (project / "link.app.yaml").symlink_to(root / "outside.app.yaml")
    (project / "deep.app.yaml").write_text("[" * 100_000, "utf-8")
    with (project / "huge.app.yaml").open("wb") as huge:
        huge.truncate(MAX_READ_BYTES + 1)  # sparse: nothing is written
    (project / "nul.app.yaml").write_bytes(b"app: {id: a\x00b}\n")
    (project / "encoding.app.yaml").write_bytes(b"app: \xff\xfe\n")
    return project


def test_hostile_app_models_are_refused_in_bounded_time_and_the_server_goes_on(project: Path) -> None:
    outside = project.parent / "outside.app.yaml"
    before = outside.stat()

    async def session() -> tuple[dict[str, Answer], Answer]:
        server = StdioServerParameters(command=sys.executable, args=["-m", "visor", "mcp", "--seed", "7"], cwd=project)
        answers = {}
        async with Client(server) as client:
            for name in HOSTILE:
                with anyio.fail_after(30):  # a FIFO opened for reading would block here forever
                    raw = await client.call_tool("use_device", {"device": "sim", "app": name})
                answers[name] = answer_of("use_device", {"app": name}, raw)
            with anyio.fail_after(30):
                after = answer_of("use_device", {}, await client.call_tool("use_device", {"device": "sim"}))
        return answers, after

    answers, after = anyio.run(session)
    for name, why in HOSTILE.items():
        answer = answers[name]
        assert (answer.code, answer.result["status"], answer.result["in_use"]) == ("VALIDATION_ERROR", "refused", None)
        assert name.removeprefix("../") in answer.result["message"] and why in answer.result["message"], name
    assert not after.is_error and after.result["device"]["app_id"] == "com.visor.demo", "the server goes on"
    assert outside.stat() == before and outside.read_text("utf-8").startswith("app: {id: com.example.outside")

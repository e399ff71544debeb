"""Where visor keeps its state: one project root, found from the folder a command runs in, and absolute paths.

The root is the nearest folder, from the current one up, holding `.visor/`, `visor.toml` or `pyproject.toml`
(else the current folder): a daemon started in a project serves every command run anywhere below it, and its
files never depend on the caller's current folder (upstream resolves them against it).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from visor.scenario.project import nearest_holding

#: A folder holding one of these is the root of visor's state.
STATE_MARKERS = (".visor", "visor.toml", "pyproject.toml")
#: A Unix socket's path must fit `sockaddr_un` (108 bytes on Linux, 104 on macOS), its NUL included.
MAX_SOCKET_PATH = 100


def state_root(start: str) -> str:
    """Return the project root of visor's state for a command run in `start` (symlinks resolved)."""
    return nearest_holding(start, STATE_MARKERS)


@dataclass(frozen=True, slots=True)
class DaemonPaths:
    """The daemon's files under a root: its folder, socket, metadata and log."""

    root: str

    @property
    def folder(self) -> str:
        """Return `.visor/daemon` under the root."""
        return os.path.join(self.root, ".visor", "daemon")

    @property
    def metadata(self) -> str:
        """Return the metadata file (`daemon.json`): pid, socket, start time, version, default device."""
        return os.path.join(self.folder, "daemon.json")

    @property
    def log(self) -> str:
        """Return the daemon's log (its stdout and stderr, appended)."""
        return os.path.join(self.folder, "daemon.log")

    @property
    def socket(self) -> str:
        """Return the socket: in the daemon's folder, or (a root too deep for a socket path) a per-root one in tmp."""
        inside = os.path.join(self.folder, "visor.sock")
        if len(inside.encode("utf-8")) <= MAX_SOCKET_PATH:
            return inside
        import hashlib  # lazy, as tempfile: only a root too deep for a socket path needs them
        import tempfile

        digest = hashlib.sha256(self.root.encode("utf-8")).hexdigest()[:16]
        return os.path.join(tempfile.gettempdir(), f"visor-{os.getuid()}", f"{digest}.sock")

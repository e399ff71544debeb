"""adb as visor uses it to reach a folder on a phone: list, read, write atomically, move. One adb call each.

The program is `adb` on the PATH, or the one `VISOR_ADB` names. Every call is bounded (`visor.children.run`: on
its timeout, adb and whatever it started in its group are killed), but leaves adb's server running
(`leave_daemons`: the server a first call starts is a daemon of its own, shared by every adb client); a failure
becomes a `TargetError` naming the command and what adb said. Paths on the phone are quoted for its shell.
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile

from visor import children
from visor.errors import SourceError, TargetError
from visor.files import read_regular

#: The environment variable naming the adb program (default: `adb` on the PATH).
ADB_VARIABLE = "VISOR_ADB"
#: How long one adb call may take (s): a phone that stops answering must not hang visor.
CALL_TIMEOUT_S = 30.0
#: The most `read` takes of a file unless told otherwise (bytes): a file of the phone's storage that AgentCab
#: reads (a photo it hashes, a file it picks and uploads whole), as large as the largest download an agent may
#: make. The protocol's own files are read with their own limits (a command 1 MiB, a result 1 MiB, a screenshot
#: 64 MiB). A larger file (a video of gigabytes) is refused, never read into memory.
FILE_BYTES = 100_000_000


class Adb:
    """One phone, reached through adb by its serial."""

    def __init__(self, serial: str, program: str | None = None) -> None:
        self.serial = serial
        self.program = program or os.environ.get(ADB_VARIABLE) or "adb"
        if shutil.which(self.program) is None:
            raise TargetError(
                f"adb is not installed (looked for {self.program!r})",
                likely_cause="The Android platform tools are not on the PATH.",
                next_step=f"Install the Android platform tools, or name the adb program in {ADB_VARIABLE}.",
            )

    def _call(self, *words: str, check: bool = True) -> children.Completed:
        command = [self.program, "-s", self.serial, *words]
        try:
            # The first adb call of a boot starts adb's server, which must outlive it (a session of its own):
            # ended, every later call would start one again, and a phone's connection would drop with it.
            done = children.run(command, timeout_s=CALL_TIMEOUT_S, leave_daemons=True)
        except children.TimedOut as exc:
            raise TargetError(
                f"adb did not answer within {CALL_TIMEOUT_S:g} s: {shlex.join(words)}",
                likely_cause=f"The phone {self.serial} stopped responding, or its connection dropped.",
                next_step="Check `adb devices` (if it hangs too, adb's server is stuck: `adb kill-server`); reconnect "
                + "the phone and start again.",
            ) from exc
        except children.CannotStart as exc:
            raise TargetError(f"cannot run adb: {exc.reason}", next_step="Check the adb installation.") from exc
        except children.TooMuchOutput as exc:
            raise TargetError(
                f"adb wrote more than {exc.limit:,} bytes for: {shlex.join(words)}",
                likely_cause="The command on the phone printed without end.",
                next_step="Check the folder on the phone; its listing or file is not what visor expects.",
            ) from exc
        if check and done.returncode != 0:
            said = (done.stderr or done.stdout).decode("utf-8", "replace").strip()
            raise TargetError(
                f"adb {words[0]} failed on {self.serial}: {said or f'exit {done.returncode}'}",
                likely_cause="The phone is not connected, not authorized, or the folder is not writable.",
                next_step="Check `adb devices` (the phone must be listed as `device`) and the folder's permissions.",
            )
        return done

    def shell(self, script: str) -> str:
        """Run a shell command line on the phone (quote paths with `shlex.quote`); return what it printed."""
        return self._call("shell", script).stdout.decode("utf-8", "replace")

    def names(self, folder: str) -> list[str]:
        """Return the names in a folder on the phone, sorted (none when it does not exist)."""
        listing = self.shell(f"ls -1 {shlex.quote(folder)} 2>/dev/null || true")
        return sorted(line.strip() for line in listing.splitlines() if line.strip())

    def makedirs(self, *folders: str) -> None:
        """Create folders on the phone (and their parents)."""
        self.shell("mkdir -p " + " ".join(shlex.quote(folder) for folder in folders))

    def move(self, source: str, target: str) -> None:
        """Rename a file on the phone (atomic within one filesystem)."""
        self.shell(f"mv -f {shlex.quote(source)} {shlex.quote(target)}")

    def remove(self, path: str) -> None:
        """Remove a file on the phone (none there is no error)."""
        self.shell(f"rm -f {shlex.quote(path)}")

    def pull(self, path: str, *, limit: int) -> bytes | None:
        """Return a file's bytes (at most `limit`), or None when it does not exist.

        It is pulled into a private temporary folder and read through the bounded reader: a folder (which adb
        pulls as a folder) or a file over `limit` is refused, never read whole.

        Raises:
            SourceError: what was pulled is not a regular file, or is larger than `limit` bytes (named by its
                path on the phone, `SERIAL:PATH`).
            TargetError: adb failed or did not answer.
        """
        with tempfile.TemporaryDirectory(prefix="visor-adb-") as folder:
            local = os.path.join(folder, "file")
            if self._call("pull", path, local, check=False).returncode != 0 or not os.path.lexists(local):
                return None
            try:
                return read_regular(local, noun="file pulled from the phone", limit=limit)
            except SourceError as exc:
                raise SourceError(
                    exc.problem,
                    path=f"{self.serial}:{path}",
                    likely_cause="The phone holds something else there than the file expected (a folder, a huge file).",
                    next_step=f"Check it on the phone (adb shell ls -ld {shlex.quote(path)}), then run again.",
                ) from exc

    def read(self, path: str, *, limit: int = FILE_BYTES) -> bytes | None:
        """Return a file's bytes (at most `limit`, by default a phone's file's), or None when it does not exist.

        Raises:
            TargetError: it is not a regular file, or larger than `limit` bytes; adb failed or did not answer.
        """
        try:
            return self.pull(path, limit=limit)
        except SourceError as exc:
            raise TargetError(
                f"the phone's file {path} cannot be read: {exc.problem}",
                likely_cause="It is not a regular file on the phone, or it is larger than visor reads of such a file.",
                next_step="Check the folder on the phone: it must hold the expected files only.",
            ) from exc

    def push(self, local: str, path: str) -> None:
        """Copy a local file to the phone atomically: pushed beside its place, then renamed over it."""
        part = f"{path}.part"
        self._call("push", local, part)
        self.move(part, path)

    def write(self, path: str, data: bytes) -> None:
        """Write bytes to a file on the phone atomically."""
        with tempfile.TemporaryDirectory(prefix="visor-adb-") as folder:
            local = os.path.join(folder, "file")
            with open(local, "wb") as file:
                file.write(data)
            self.push(local, path)

"""A stand-in for `adb` with one phone, whose storage is a local folder: for tests on machines with no phone.

It speaks the subset visor uses: `adb -s SERIAL shell CMD`, `pull REMOTE LOCAL` (a folder as a folder, as adb
does), `push LOCAL REMOTE`. The phone's shared storage (`/sdcard`, `/storage/emulated/0`) is
`$FAKE_ADB_ROOT/sdcard`; shell commands run in the host's `sh` with those paths rewritten to it (and back in what
they print). Android's own programs (`content`, `pm`,
`dumpsys`…) are not there: only file commands work.
An unknown serial fails as adb does. Every call is appended to `$FAKE_ADB_ROOT/calls.log`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

SERIAL = "fake-phone-1"
STORAGE = "/storage/emulated/0"


def main(argv: list[str]) -> int:
    root = os.environ["FAKE_ADB_ROOT"]
    with open(os.path.join(root, "calls.log"), "a", encoding="utf-8") as log:
        log.write(" ".join(argv) + "\n")
    if len(argv) < 3 or argv[0] != "-s":
        sys.stderr.write("fake adb: only `adb -s SERIAL ...` is supported\n")
        return 1
    if argv[1] != SERIAL:
        sys.stderr.write(f"adb: device '{argv[1]}' not found\n")
        return 1
    command, rest = argv[2], argv[3:]

    sdcard = os.path.join(root, "sdcard")

    def local(path: str) -> str:
        # Shared storage has two names on a phone: /sdcard and /storage/emulated/0.
        for name in (STORAGE, "/sdcard"):
            if path == name or path.startswith(name + "/"):
                return sdcard + path[len(name) :]
        return os.path.join(root, path.lstrip("/"))

    if command == "shell":
        token = "\0storage\0"  # both names first, then the folder: a rewritten path is never rewritten again
        script = " ".join(rest).replace(STORAGE, token).replace("/sdcard/", token + "/").replace(token, sdcard)
        done = subprocess.run(["sh", "-c", script], capture_output=True, check=False)
        sys.stdout.buffer.write(done.stdout.replace(sdcard.encode(), STORAGE.encode()))
        sys.stderr.buffer.write(done.stderr)
        return done.returncode
    if command == "pull":
        source, target = local(rest[0]), rest[1]
        if os.path.isdir(source):  # as adb does: a folder is pulled as a folder
            shutil.copytree(source, target)
            return 0
        if not os.path.isfile(source):
            sys.stderr.write(f"adb: error: failed to stat remote object '{rest[0]}': No such file or directory\n")
            return 1
        shutil.copyfile(source, target)
        return 0
    if command == "push":
        target = local(rest[1])
        if not os.path.isdir(os.path.dirname(target)):
            sys.stderr.write(f"adb: error: failed to copy '{rest[0]}' to '{rest[1]}': No such file or directory\n")
            return 1
        shutil.copyfile(rest[0], target)
        return 0
    sys.stderr.write(f"fake adb: unsupported command {command}\n")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

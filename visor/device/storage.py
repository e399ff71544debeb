"""A phone's shared storage: the one place agents may read and change files (`/storage/emulated/0`)."""

from __future__ import annotations

import posixpath

#: Where shared storage starts on an Android phone.
STORAGE_ROOT = "/storage/emulated/0"


def in_storage(path: str) -> str | None:
    """Return `path` normalized when it is an absolute path in shared storage (`..` cannot leave it), else None."""
    if not path.startswith("/"):
        return None
    normal = posixpath.normpath(path)
    return normal if normal == STORAGE_ROOT or normal.startswith(STORAGE_ROOT + "/") else None

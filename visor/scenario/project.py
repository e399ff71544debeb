"""A scenario's project: the folder its relative paths may reach.

It is the nearest folder, from the scenario's own folder up, holding `visor.toml`, `pyproject.toml` or `.git`;
without one, the scenario's folder itself. App models (`config.app`) and artifact copies (`path` of a
screenshot or a page source) are read and written inside it only.
"""

from __future__ import annotations

import os

#: A folder holding one of these is a project's root.
PROJECT_MARKERS = ("visor.toml", "pyproject.toml", ".git")


def project_folder(start: str) -> str:
    """Return the project a scenario in folder `start` belongs to (symlinks resolved)."""
    return nearest_holding(start, PROJECT_MARKERS)


def nearest_holding(start: str, markers: tuple[str, ...]) -> str:
    """Return the nearest folder, from `start` up, holding one of `markers`; else `start` (symlinks resolved)."""
    here = os.path.realpath(start)
    folder = here
    while not any(os.path.lexists(os.path.join(folder, marker)) for marker in markers):
        parent = os.path.dirname(folder)
        if parent == folder:
            return here
        folder = parent
    return folder


def inside(path: str, folder: str) -> bool:
    """Return True when `path` (absolute, normalized) lies in `folder` or is it."""
    return os.path.commonpath([path, folder]) == folder


def in_project(folder: str, path: str) -> tuple[str, str | None]:
    """Place `path`, relative to a scenario's `folder`, in the folder's project.

    Returns the project and the path relative to it, or None for the latter when the path is absolute or
    leads out of the project. Links are not followed here: writing refuses them (`visor.files`).
    """
    base = os.path.realpath(folder)
    project = project_folder(base)
    target = os.path.normpath(os.path.join(base, path))
    if os.path.isabs(path) or not inside(target, project):
        return project, None
    return project, os.path.relpath(target, project)

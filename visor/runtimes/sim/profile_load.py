"""Load device profiles: find the file (a shipped profile's name, or a path), parse it with positions, validate it.

A broken profile is an INPUT_ERROR naming the first problem's file, line and column, with every issue in the
error details, as a broken app model is. Profiles are cached while their file is unchanged: a 5,000-photo profile
is parsed once per process.
"""

from __future__ import annotations

import functools
import os
from importlib import resources

from pydantic import ValidationError

from visor.errors import InputError
from visor.inputs.data import read_data
from visor.inputs.issues import IssueCode, error, locate
from visor.runtimes.sim.load import AppModelError
from visor.runtimes.sim.profile_model import Profile
from visor.scenario.fields import Owner

PROFILE_SUFFIXES = (".profile.yaml", ".profile.yml")
#: The profile the simulated phone has when none is named.
DEFAULT_PROFILE = "demo"


class ProfileError(AppModelError):
    """A device profile cannot be loaded; `issues` says every problem found."""

    kind = "device profile"
    likely = "The simulated phone's device profile has an error."


def builtin_profiles() -> list[str]:
    """Return the names of the profiles shipped with visor."""
    folder = resources.files("visor.runtimes.sim").joinpath("profiles")
    return sorted(item.name.removesuffix(".profile.yaml") for item in folder.iterdir() if item.name.endswith(".yaml"))


def resolve_profile(reference: str) -> str:
    """Return the file a `--profile` names: a shipped profile's name, or a path to a `.profile.yaml` file.

    Raises:
        InputError: it names neither.
    """
    if reference in builtin_profiles():
        return str(resources.files("visor.runtimes.sim").joinpath("profiles", f"{reference}.profile.yaml"))
    if not reference.lower().endswith(PROFILE_SUFFIXES) or not os.path.isfile(reference):
        raise InputError(
            f"no device profile {reference!r}",
            likely_cause="--profile names neither a shipped profile nor a <name>.profile.yaml file that exists.",
            next_step=f"Shipped profiles: {', '.join(builtin_profiles())}; or generate one: "
            "visor agentcab profile --photos 500 --seed 7 -o my.profile.yaml",
        )
    return reference


@functools.lru_cache(maxsize=8)
def _load_cached(path: str, mtime: float) -> Profile:
    document = read_data(path, noun="device profile")
    if not isinstance(document.data, dict):  # `hello` or `[1, 2]` was read as an empty profile
        issues = [error(IssueCode.TYPE_ERROR, "a device profile is a mapping (name, photos, calendar, …)", ())]
        raise ProfileError(path, locate(issues, document))
    try:
        return Profile.model_validate(document.data)
    except ValidationError as exc:
        from visor.scenario.translate import translate  # lazy: only broken profiles need it

        raise ProfileError(path, locate(translate(exc, Owner(Profile, ()), document.data), document)) from exc


def load_profile(reference: str | None) -> Profile:
    """Load the profile `reference` names (the shipped demo profile when None).

    Raises:
        SourceError: the file cannot be read or parsed.
        ProfileError: the profile is invalid.
        InputError: it names no profile.
    """
    path = resolve_profile(reference or DEFAULT_PROFILE)
    try:
        mtime = os.stat(path).st_mtime
    except OSError:
        mtime = 0.0
    return _load_cached(path, mtime)

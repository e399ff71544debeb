"""The simulated phone's part of a device's configuration, and the option that fills it. Light to import."""

from __future__ import annotations

from dataclasses import dataclass

from visor.runtimes.flags import Flag


@dataclass(frozen=True, slots=True, kw_only=True)
class SimConfig:
    """What the simulated phone holds besides its apps."""

    #: Its device profile (its photos, calendar, files…): a shipped profile's name or a file (None: the demo's).
    profile: str | None = None


FLAGS = (
    Flag(
        "--profile",
        "profile",
        metavar="NAME|FILE",
        help="The simulated phone's device profile: its photos, calendar, files… (sim; default demo).",
    ),
)

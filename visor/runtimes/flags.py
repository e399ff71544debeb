"""A command-line option a runtime declares, as data: the command line makes each a click option.

The runtimes own their options (what each is called, what it means, which field of their part of the
configuration it fills) without importing the command line's library; `visor.cli.options` turns them into
click options, and the daemon's wire and the device's key use the same names.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Flag:
    """One option of the device: its name on the command line, the field it fills, its help."""

    #: The option as typed (`--server-url`); its name in a command's values and on the wire is `server_url`.
    option: str
    #: The field of the runtime's configuration it fills.
    field: str
    help: str
    #: The help on run and benchmark, where a scenario's config comes next (None: the same help).
    scenario_help: str | None = None
    metavar: str | None = None
    #: The values it takes, when they are few (None: any text).
    choices: tuple[str, ...] | None = None
    is_flag: bool = False
    #: Repeated on run and benchmark: one value per `--workers` process (a pool of devices).
    pooled: bool = False

    @property
    def name(self) -> str:
        """Return the option's name in a command's values, on the daemon's wire and in a device's key."""
        return self.option.removeprefix("--").replace("-", "_")

    def help_for(self, scenario: bool) -> str:
        """Return the help shown by a command that runs scenarios (`scenario`), or by another."""
        return self.scenario_help if scenario and self.scenario_help is not None else self.help

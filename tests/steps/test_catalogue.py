"""The catalogue: every argument model a scenario can name has exactly one executor."""

from __future__ import annotations

import pytest

from tests.simkit import MemorySink, demo_device
from visor.clock import VirtualClock
from visor.scenario.commands import COMMANDS, NavigateArgs, TapArgs
from visor.steps.catalogue import BY_ARGS
from visor.steps.context import ActionContext


def test_every_command_model_has_exactly_one_entry() -> None:
    models = {model for spec in COMMANDS.values() for model in spec.variants.values()}
    assert set(BY_ARGS) == models  # the core's and the plugged features' (AgentCab's), each bound once
    assert {"agentcab_collect", "agentcab_apply"} <= set(COMMANDS)


def test_an_entry_refuses_arguments_of_another_model() -> None:
    clock = VirtualClock()
    ctx = ActionContext(demo_device(clock=clock), clock, 1, MemorySink(), 1_000_000, 1_000_000)
    with pytest.raises(AssertionError, match="NavigateArgs is not TapArgs"):
        BY_ARGS[TapArgs].run(NavigateArgs(to="demo://feed"), ctx)

"""The catalogue: every argument model a scenario can name has exactly one executor."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

from tests.simkit import MemorySink, demo_device
from visor.clock import VirtualClock
from visor.scenario.commands import COMMANDS, NavigateArgs, TapArgs
from visor.steps import commands
from visor.steps.catalogue import BY_ARGS, ENTRIES, detail_shapes
from visor.steps.commands.act import DragDetails, SliderDetails, TypeDetails
from visor.steps.context import ActionContext
from visor.steps.details import ArgsOnly, EngineDetails, FailureDetails, UpstreamKeys


def test_every_command_model_has_exactly_one_entry() -> None:
    models = [model for spec in COMMANDS.values() for model in spec.variants.values()]
    assert set(BY_ARGS) == set(models) and len(BY_ARGS) == len(models)  # each bound once, none left over
    assert {"agentcab_collect", "agentcab_apply"} <= set(COMMANDS)  # the plugged features' (AgentCab's) too


def test_the_core_entries_are_gathered_from_every_command_module_once_each() -> None:
    """No hand list: each module of `visor.steps.commands` declares its `ENTRIES`, and the catalogue has them all."""
    names = sorted(found.name for found in pkgutil.iter_modules(commands.__path__))
    declared = [item for name in names for item in importlib.import_module(f"{commands.__name__}.{name}").ENTRIES]
    assert names and declared == list(ENTRIES)
    models = [model for spec in COMMANDS.values() for model in spec.variants.values()]
    core = {model for model in models if model.__module__ == "visor.scenario.commands"}  # not a feature's
    assert {item.args for item in ENTRIES} == core and len(ENTRIES) == len(core)


def test_a_commands_shapes_follow_its_variants_order() -> None:
    """The first shape declaring a key decides its role: the order is the variants', whatever the modules'."""
    own = (TypeDetails, ArgsOnly, DragDetails, SliderDetails)
    assert detail_shapes("act") == (*own, UpstreamKeys, FailureDetails, EngineDetails)


def test_an_entry_refuses_arguments_of_another_model() -> None:
    clock = VirtualClock()
    ctx = ActionContext(demo_device(clock=clock), clock, 1, MemorySink(), 1_000_000, 1_000_000)
    with pytest.raises(AssertionError, match="NavigateArgs is not TapArgs"):
        BY_ARGS[TapArgs].run(NavigateArgs(to="demo://feed"), ctx)

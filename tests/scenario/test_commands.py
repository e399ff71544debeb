"""The scenario commands are their models: each names its command, and `COMMANDS` collects them in order."""

from __future__ import annotations

import inspect

from visor.scenario import commands
from visor.scenario.commands import COMMANDS, ActArgs, ActSliderArgs, Args, CaptureArgs, ScreenshotArgs

CORE = ["tap", "navigate", "act", "scroll", "screenshot", "wait", "source"]
ACT = ["type", "back", "home", "app_switch", "lock", "unlock", "reset", "drag", "slider"]


def test_the_core_commands_come_in_the_order_their_models_are_defined() -> None:
    """The schema, the docs and the unknown-command hints list them in this order, then the plugged ones."""
    assert list(COMMANDS)[: len(CORE)] == CORE
    assert COMMANDS["tap"].summary == (commands.TapArgs.__doc__ or "").strip()


def test_act_chooses_its_model_by_name_in_the_order_they_are_defined() -> None:
    spec = COMMANDS["act"]
    assert (spec.discriminator, list(spec.variants)) == ("name", ACT)
    assert spec.summary == f"Helpers: {', '.join(ACT)}."
    assert spec.select({"name": "slider"}) is ActSliderArgs
    assert all(issubclass(model, ActArgs) for model in spec.variants.values())


def test_a_models_owner_is_its_command_and_variant() -> None:
    assert (commands.TapArgs.owner, ActSliderArgs.owner, ScreenshotArgs.owner) == ("tap", "act slider", "screenshot")
    assert CaptureArgs.owner == ""  # a shared base is no command


def test_every_model_of_a_command_is_in_commands_once() -> None:
    declared = {
        model
        for _, model in inspect.getmembers(commands, inspect.isclass)
        if issubclass(model, Args) and model.__module__ == commands.__name__ and model.command
    }
    listed = [model for spec in COMMANDS.values() for model in spec.variants.values()]
    bases = {model for model in declared if model.discriminator is not None}
    assert declared - bases <= set(listed) and len(listed) == len(set(listed))

"""The simulated device's layout: every element class has a builder, and every widget kind is drawn."""

from __future__ import annotations

from typing import get_args

from visor.runtimes.sim import ios, model, render
from visor.runtimes.sim.builders import BUILDERS
from visor.runtimes.sim.widgets import WidgetKind


def element_classes() -> set[type]:
    """Every class an app model's element can be (the members of the `Element` union)."""
    union, *_ = get_args(model.Element)
    return set(get_args(union))


def test_every_element_class_has_a_builder() -> None:
    defined = {
        value
        for value in vars(model).values()
        if isinstance(value, type) and issubclass(value, model._Element) and value is not model._Element
    }
    assert defined == element_classes()
    missing = sorted(cls.__name__ for cls in element_classes() - set(BUILDERS))
    assert not missing, f"no builder registered in visor/runtimes/sim/builders.py for {missing}"
    assert set(BUILDERS) == element_classes()


def test_every_widget_kind_is_drawn_unless_it_only_holds_others() -> None:
    # The root, the content and rows only hold widgets; the keyboard is only ever on an iPhone's screen.
    undrawn = set(WidgetKind) - set(render._PAINTERS)
    assert undrawn == {WidgetKind.ROOT, WidgetKind.CONTENT, WidgetKind.ROW, WidgetKind.KEYBOARD, WidgetKind.KEY}
    assert set(WidgetKind) - set(render._PAINTERS) - set(render._IOS_PAINTERS) == {
        WidgetKind.ROOT,
        WidgetKind.CONTENT,
        WidgetKind.ROW,
    }


def test_every_widget_kind_has_an_xcuitest_type() -> None:
    assert set(ios._TYPES) == set(WidgetKind)

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import FIXTURES
from tests.simkit import run, steps_yaml
from visor.engine.projection import signed as project
from visor.engine.results import Verdict
from visor.engine.signature import canonical, projection, signature
from visor.steps.catalogue import detail_shapes

LOGIN = (
    '{id: user, command: act, args: {name: type, target: "id=username", value: "%s"}}',
    '{id: pass, command: act, args: {name: type, target: "id=password", value: lovelace}}',
    '{id: submit, command: tap, args: {target: "text=Log in"}}',
    '{id: feed, command: wait, args: {for: "text=Feed"}}',
)


def login(user: str = "ada") -> str:
    return steps_yaml(LOGIN[0] % user, *LOGIN[1:], assertions='{id: a, type: visible, target: "text=Feed"}')


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_same_scenario_and_seed_same_signature(seed: int) -> None:
    first, _ = run(steps_yaml('{id: o, command: navigate, args: {to: "demo://feed"}}'), seed=seed)
    second, _ = run(steps_yaml('{id: o, command: navigate, args: {to: "demo://feed"}}'), seed=seed)
    assert first.signature == second.signature


@settings(max_examples=20, deadline=None)
@given(st.randoms(use_true_random=False))
def test_key_order_in_the_file_does_not_matter(rng: random.Random) -> None:
    doc = {
        "meta": {"name": "t", "version": "1"},
        "config": {"seed": 42, "runtime": "sim"},
        "steps": [
            {"id": "t", "command": "act", "args": {"name": "type", "target": "id=username", "value": "ada"}},
            {"id": "s", "command": "scroll", "args": {"direction": "down", "percent": 50}},
        ],
        "assertions": [{"id": "a", "type": "text_contains", "target": "id=username", "value": "ad"}],
    }

    def shuffled(value):  # type: ignore[no-untyped-def]
        if isinstance(value, dict):
            items = list(value.items())
            rng.shuffle(items)
            return {key: shuffled(item) for key, item in items}
        if isinstance(value, list):
            return [shuffled(item) for item in value]
        return value

    assert run(shuffled(doc))[0].signature == run(doc)[0].signature


@settings(max_examples=15, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8).filter(lambda s: s != "ada"))
def test_other_typed_text_gives_another_signature(user: str) -> None:
    assert run(login(user))[0].signature != run(login())[0].signature


def test_another_screen_reached_gives_another_signature() -> None:
    """Both runs pass every step; only the screen after the login differs (wrong password stays on it)."""
    good = steps_yaml(LOGIN[0] % "ada", *LOGIN[1:3])
    bad = good.replace("value: lovelace", "value: lovelacE")
    first, second = run(good)[0], run(bad)[0]
    assert [s.word for s in first.steps] == [s.word for s in second.steps] == ["ok"] * 3
    assert first.signature != second.signature


def test_masked_elements_do_not_count() -> None:
    """The banner's text is random; masked, it no longer changes the signature (its place still counts)."""
    app = str(FIXTURES / "apps" / "ads.app.yaml")
    base = steps_yaml('{id: look, command: wait, args: {for: "id=ok"}}')
    masked = base.replace("runtime: sim", 'runtime: sim, mask: ["id=ad"]')
    plain = {run(base, seed=seed, app=app)[0].signature for seed in range(8)}
    hidden = {run(masked, seed=seed, app=app)[0].signature for seed in range(8)}
    assert len(plain) == 2 and len(hidden) == 1


def test_declared_volatile_and_evidence_keys_are_left_out_at_any_depth() -> None:
    capture = {
        "args": {"path": "x", "label": "a"},
        "label": "a",
        "path": "p",
        "evidence": {"screenshot": {"path": "y"}},
    }
    assert project(capture, detail_shapes("screenshot")).data == {"args": {"label": "a"}, "label": "a"}
    waited = {"args": {"for": "text=Feed"}, "waited_ms": 5, "recovery": {"session_restarted": True, "reason": "x"}}
    assert project(waited, detail_shapes("wait")).data == {"args": {"for": "text=Feed"}}
    tool = {"tool": "action_sequence", "elapsed_ms": 3, "members": [{"index": 1, "waited_ms": 7, "status": "ok"}]}
    assert project(tool, detail_shapes("action_sequence")).data == {
        "tool": "action_sequence",
        "members": [{"index": 1, "status": "ok"}],
    }


def test_a_key_named_like_a_volatile_one_counts_where_it_is_declared_signed() -> None:
    """Roles are declared per shape, not guessed from names: a tool's planned duration is what it did."""
    swipe = {"tool": "swipe", "duration_ms": 300, "elapsed_ms": 310}
    assert project(swipe, detail_shapes("swipe")).data == {"tool": "swipe", "duration_ms": 300}


def test_an_undeclared_key_is_signed_and_reported() -> None:
    found = project({"url": "u", "surprise": 1}, detail_shapes("navigate"))
    assert found.data == {"url": "u", "surprise": 1} and found.unclassified == ("details.surprise",)


def test_the_cli_check_sees_an_undeclared_key() -> None:
    from tests.conftest import undeclared_details

    run = {"steps": [{"command": "navigate", "status": "ok", "details": {"url": "u", "surprise": 1}}]}
    assert undeclared_details(json.dumps({"data": {"run": run}})) == ["navigate: details.surprise"]


def test_signature_ignores_durations_and_is_sha256_of_canonical_json() -> None:
    result, _ = run(login())
    assert re.fullmatch("[0-9a-f]{64}", result.signature)
    expected = hashlib.sha256(canonical(projection(result.platform, result.steps, result.assertions)).encode())
    assert result.signature == expected.hexdigest()
    # Slower or faster, the same behaviour: durations and waits, at any depth, do not count.
    slower = [
        replace(
            step,
            duration_ms=step.duration_ms * 3 + 7,
            details={**step.details, "waited_ms": 99_999} if step.command == "wait" else step.details,
        )
        for step in result.steps
    ]
    assert signature(result.platform, slower, result.assertions) == result.signature
    # A real difference does count: the same steps with one status changed.
    failed = [replace(result.steps[0], status=Verdict.FAILED), *result.steps[1:]]
    assert signature(result.platform, failed, result.assertions) != result.signature
    assert json.loads(json.dumps(result.to_dict()))["determinism_signature"] == result.signature

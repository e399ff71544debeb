"""The script sandbox: Maestro's globals, determinism from the seed and the device clock, no way out, every bound."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from visor.errors import ActionError, ErrorCode
from visor.jsontypes import JsonObject
from visor.scripting.sandbox import Globals, Limits, Scope, ScriptError, run_script

NOW_MS = 1_700_000_000_000


def test_a_script_reads_and_sets_output_env_and_maestro() -> None:
    given_ = Globals(output={"count": 1}, env={"USER": "ada"}, copied_text="A-17", platform="ios")
    done = run_script("output.count += 1; output.who = USER; [maestro.copiedText, maestro.platform]", given_)
    assert done.output == {"count": 2, "who": "ada"}
    assert done.value == ["A-17", "ios"]


def test_math_random_draws_from_the_seed() -> None:
    draws = "[Math.random(), Math.random(), Math.random()]"
    first = run_script(draws, Globals(seed=7)).value
    assert first == run_script(draws, Globals(seed=7)).value
    assert first != run_script(draws, Globals(seed=8)).value
    assert isinstance(first, list) and all(isinstance(x, float) and 0 <= x < 1 for x in first)


def test_date_is_the_device_clock_in_utc() -> None:
    done = run_script("[Date.now(), new Date().getTime(), new Date().getHours(), Date(), typeof __date_clock]",
                      Globals(now_ms=NOW_MS))  # fmt: skip
    assert done.value == [NOW_MS, NOW_MS, 22, "2023-11-14T22:13:20.000Z", "undefined"]
    assert run_script("new Date(0).toISOString()", Globals()).value == "1970-01-01T00:00:00.000Z"


def test_console_lines_are_kept_up_to_the_bound() -> None:
    done = run_script('for (let i = 0; i < 10; i++) console.log("line", i, {i: i})', Globals(), Limits(log_lines=3))
    assert done.logs == ('line 0 {"i":0}', 'line 1 {"i":1}', 'line 2 {"i":2}')


@pytest.mark.parametrize(
    "source",
    ['import("os").then(() => { output.escaped = true })', "typeof std === 'undefined' && typeof os === 'undefined'"],
)
def test_there_is_no_module_file_or_process_access(source: str) -> None:
    done = run_script(source, Globals())
    assert "escaped" not in done.output
    assert done.value in (True, {})


def test_http_refuses_saying_there_is_no_network() -> None:
    with pytest.raises(ScriptError, match="no network access"):
        run_script('http.get("http://127.0.0.1:9/")', Globals())


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("while (true) {}", "ran past its 1 s budget"),
        ('let s = "x"; while (true) { s = s + s }', "more than 8 MiB"),
        ("function f() { return f() } f()", "stack overflow"),
        ("var a = 1;\nthrow new Error('boom')", "Error: boom (at <eval> (<input>:2))"),
        ("x = ;", "SyntaxError"),
    ],
)
def test_a_script_that_fails_or_runs_away_ends_with_a_readable_error(source: str, words: str) -> None:
    with pytest.raises(ScriptError) as caught:
        run_script(source, Globals(), Limits(cpu_seconds=1, memory_bytes=8 * 1024 * 1024))
    error = caught.value
    assert words in error.message and len(error.message) <= 400
    assert isinstance(error, ActionError) and error.info().code == ErrorCode.ACTION_ERROR
    assert error.__cause__ is not None  # QuickJS's own exception, chained


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**31), 2**31) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=8), _JSON, max_size=5))
def test_any_json_output_comes_back_as_it_went_in(output: JsonObject) -> None:
    done = run_script("output", Globals(output=output))
    assert done.output == output and done.value == output


def test_the_scripts_of_one_scope_share_their_globals_and_each_is_given_its_own_state() -> None:
    scope = Scope()
    scope.run("var count = 1; function twice(n) { return 2 * n }", Globals(seed=1, now_ms=1000))
    later = scope.run("count += 1; [twice(count), Date.now(), output.n]", Globals(output={"n": 3}, now_ms=2000))
    assert later.value == [4, 2000, 3]
    assert run_script("typeof count", Globals()).value == "undefined"  # a scope of its own knows nothing of it


def test_a_scope_draws_the_same_numbers_for_the_same_seed_whatever_ran_before() -> None:
    scope = Scope()
    first = scope.run("Math.random()", Globals(seed=9)).value
    scope.run("Math.random(); Math.random()", Globals(seed=4))
    assert (
        scope.run("Math.random()", Globals(seed=9)).value == first == run_script("Math.random()", Globals(seed=9)).value
    )

"""'Did you mean …?' hints: the nearest name, and the word the hint was made for."""

from __future__ import annotations

import pickle

from visor.inputs.suggest import Suggestion, did_you_mean


def test_a_hint_remembers_the_word_it_was_made_for_even_pickled() -> None:
    """Whatever masks an output's secrets drops a hint for a word holding one: it needs the word."""
    hint = did_you_mean("navigat3", ["navigate", "tap"])
    assert isinstance(hint, Suggestion) and (hint, hint.word) == ("did you mean 'navigate'?", "navigat3")
    again = pickle.loads(pickle.dumps(hint))
    assert isinstance(again, Suggestion) and (again, again.word) == (hint, "navigat3")
    assert did_you_mean("navigate", ["navigate"]) is None and did_you_mean("zzzz", ["navigate"]) is None

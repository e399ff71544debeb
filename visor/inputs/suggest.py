"""'Did you mean …?' hints for misspelt names.

A hint remembers the word it was made for (`Suggestion`): a word holding a `--secret` value (a scenario's
`command: ${SECRET}`) is shown masked, and a hint naming the nearest command would say how near the secret is
to it. Whatever masks an output's secrets knows them and drops such a hint (`visor.ui.secrets.redact`).
"""

from __future__ import annotations

from collections.abc import Iterable


class Suggestion(str):
    """A "did you mean …?" hint, and the word it was made for (`word`), which the hint tells something about."""

    word: str

    def __new__(cls, text: str, word: str) -> Suggestion:
        """Make the hint `text` for `word`."""
        made = super().__new__(cls, text)
        made.word = word
        return made

    def __reduce__(self) -> tuple[type[Suggestion], tuple[str, str]]:
        """Pickle it with its word (a worker's issues reach the suite that prints them)."""
        return Suggestion, (str(self), self.word)


def closest(word: str, candidates: Iterable[str]) -> str | None:
    """Return the candidate closest to `word`, or None when nothing is close enough."""
    pool = list(candidates)
    folded = {candidate.lower(): candidate for candidate in pool}
    if word.lower() in folded:
        return folded[word.lower()]
    import difflib  # lazy: hints are only needed on the error path

    found = difflib.get_close_matches(word.lower(), list(folded), n=1, cutoff=0.7)
    return folded[found[0]] if found else None


def did_you_mean(word: str, candidates: Iterable[str]) -> Suggestion | None:
    """Return a hint such as "did you mean 'name'?" (which remembers `word`), or None."""
    match = closest(word, candidates)
    return Suggestion(f"did you mean {match!r}?", word) if match is not None and match != word else None

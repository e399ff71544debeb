"""'Did you mean …?' hints for misspelt names."""

from __future__ import annotations

from collections.abc import Iterable


def closest(word: str, candidates: Iterable[str]) -> str | None:
    """Return the candidate closest to `word`, or None when nothing is close enough."""
    pool = list(candidates)
    folded = {candidate.lower(): candidate for candidate in pool}
    if word.lower() in folded:
        return folded[word.lower()]
    import difflib  # lazy: hints are only needed on the error path

    found = difflib.get_close_matches(word.lower(), list(folded), n=1, cutoff=0.7)
    return folded[found[0]] if found else None


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """Return a hint such as "did you mean 'name'?", or None."""
    match = closest(word, candidates)
    return f"did you mean {match!r}?" if match is not None and match != word else None

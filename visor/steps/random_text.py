"""Text drawn for `input_random`: letters and digits, a number, an e-mail address, a person's name.

Each is drawn from one `random.Random` (a step's own stream, `ActionContext.step_random`), so the same seed draws
the same text. The shapes hold whatever the stream: a text of `length` letters and digits, a number of `length`
digits not starting with 0, an address at a domain reserved for examples (RFC 2606: never anyone's mailbox), and
a first and a last name from short lists written here.
"""

from __future__ import annotations

import random
import string

#: What a text is drawn from: ASCII letters and digits, which every keyboard types and no field filters.
TEXT_CHARACTERS = string.ascii_letters + string.digits
#: The domains an address is drawn at: reserved for examples, so a test never mails anyone.
EMAIL_DOMAINS = ("example.com", "example.org", "example.net")
FIRST_NAMES = (
    "Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "John", "Katherine", "Dennis", "Margaret",
    "Ken", "Radia", "Tim", "Hedy", "Linus", "Joan", "Niklaus", "Shafi", "Guido", "Annie", "Claude", "Mary", "Leslie",
)  # fmt: skip
LAST_NAMES = (
    "Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "McCarthy", "Johnson", "Ritchie",
    "Hamilton", "Thompson", "Perlman", "Berners", "Lamarr", "Torvalds", "Clarke", "Wirth", "Goldwasser", "Rossum",
    "Easley", "Shannon", "Keller", "Lamport",
)  # fmt: skip
#: How long the part of an address before its digits is, at least and at most.
EMAIL_NAME = (5, 10)


def random_text(rng: random.Random, length: int) -> str:
    """Return `length` ASCII letters and digits."""
    return "".join(rng.choice(TEXT_CHARACTERS) for _ in range(length))


def random_number(rng: random.Random, length: int) -> str:
    """Return a number of `length` digits, its first not 0 (so it reads as a number that long)."""
    return str(rng.randint(1, 9)) + "".join(rng.choice(string.digits) for _ in range(length - 1))


def random_email(rng: random.Random) -> str:
    """Return an address such as `qhzkw42@example.org`: lowercase letters, two digits, a reserved domain."""
    name = "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(*EMAIL_NAME)))
    return f"{name}{rng.randint(10, 99)}@{rng.choice(EMAIL_DOMAINS)}"


def random_person_name(rng: random.Random) -> str:
    """Return a first and a last name, such as `Grace Hopper`."""
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"


def draw(rng: random.Random, kind: str, length: int) -> str:
    """Return a value of `kind` (text, number, email, person_name); `length` sizes text and numbers."""
    if kind == "number":
        return random_number(rng, length)
    if kind == "email":
        return random_email(rng)
    if kind == "person_name":
        return random_person_name(rng)
    return random_text(rng, length)

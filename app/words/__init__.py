"""The station's words: every sentence a panel says, kept apart from the code that picks it.

A view decides *which* sentence a state gets (its key: the sentence and its mode, as in the
tables of ``docs/sentences.md``) and formats the numbers that fill it; the words themselves
live in this folder's TOML files, one per panel, so changing what the station says means
editing one file and never a view. ``say("gates.correctness.holds", reason=...)`` returns a
``Sentence``: a ``str`` (templates, JSON and the plain-text exports use it as one) that also
remembers its key and its values, which is what the tests check — the mode, the number and
the direction — rather than the exact words.
"""

from __future__ import annotations

import string
import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
_FIELDS = string.Formatter()


class Sentence(str):
    """A sentence of the catalog, filled: its text, its key and the values that filled it."""

    key: str
    values: Mapping[str, object]

    def __new__(cls, key: str, values: Mapping[str, object]) -> Sentence:
        words = entry(key)
        missing = fields(words) - values.keys()
        extra = values.keys() - fields(words)
        if missing or extra:
            raise KeyError(f"{key}: missing {sorted(missing)}, unexpected {sorted(extra)}")
        self = super().__new__(cls, words.format_map(values))
        self.key = key
        self.values = dict(values)
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Sentence, (self.key, self.values))

    @property
    def mode(self) -> str:
        """The last part of the key: the mode (or outcome) the view chose."""
        return self.key.rpartition(".")[2]


def say(key: str, /, **values: object) -> Sentence:
    """The catalog's sentence ``key`` (``panel.sentence.mode``) filled with ``values``."""
    return Sentence(key, values)


def entry(key: str) -> str:
    """The words of ``key``, unfilled."""
    panel, _, rest = key.partition(".")
    node: object = catalog(panel)
    for part in rest.split("."):
        if not isinstance(node, dict) or part not in node:
            raise KeyError(f"no sentence {key!r} in app/words/{panel}.toml")
        node = node[part]
    if not isinstance(node, str):
        raise KeyError(f"{key!r} names a group of sentences, not one")
    return node


def fields(words: str) -> set[str]:
    """The placeholders in ``words``."""
    return {name for _, name, _, _ in _FIELDS.parse(words) if name}


@cache
def catalog(panel: str) -> dict[str, Any]:
    """One panel's sentences, as its TOML file holds them."""
    path = HERE / f"{panel}.toml"
    if not path.is_file():
        raise KeyError(f"no words for panel {panel!r} (app/words/{panel}.toml)")
    with path.open("rb") as f:
        return tomllib.load(f)


def keys(panel: str) -> list[str]:
    """Every sentence key a panel's file holds."""
    out: list[str] = []

    def walk(prefix: str, node: dict[str, Any]) -> None:
        for name, value in node.items():
            if isinstance(value, dict):
                walk(f"{prefix}.{name}", value)
            else:
                out.append(f"{prefix}.{name}")

    walk(panel, catalog(panel))
    return out


def panels() -> list[str]:
    return sorted(p.stem for p in HERE.glob("*.toml"))

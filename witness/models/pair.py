"""The model pairs a request can be served with, behind one interface: `Models`.

A pair names a context by two integers, ``(before, prev)``, and the witness moves from one
context to the next with `Models.advance`; it never reads what the two mean:

- the word n-grams (`witness.models.lm.TinyModels`): the last two tokens, all a trigram reads;
- the tiny transformers (`witness.neural.served.TransformerModels`): the context's node in the
  trie of contexts (`witness.neural.contexts`) and its last token.

`models_for(name)` gives the pair of the ``models`` setting, built once per process.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from witness.core.settings import Models as ModelsName
from witness.models.lm import tiny_models

FloatArray = NDArray[np.float64]


class Models(Protocol):
    """What the witness asks of a target and draft pair."""

    name: str
    vocab: tuple[str, ...]  # each token as shown
    size: int

    def encode(self, text: str) -> tuple[list[int], list[str]]: ...

    def text(self, ids: Sequence[int]) -> str: ...

    def start(self, context: Sequence[int]) -> tuple[int, int]: ...

    def advance(self, before: int, prev: int, token: int) -> tuple[int, int]: ...

    def target_row(self, before: int, prev: int) -> FloatArray: ...

    def draft_at(self, before: int, prev: int) -> FloatArray: ...


def models_for(name: ModelsName | str) -> Models:
    """The process-wide pair of the ``models`` setting."""
    if name == "ngram":
        return tiny_models()
    from witness.neural.served import transformer_models  # numpy weights, loaded on first use

    return transformer_models(name)

"""The tiny transformers as the witness serves them: `TransformerModels`.

The target is the 4-layer character transformer; the draft is either its own first layer and
exit head (``early-exit``, the self-speculative draft of LayerSkip) or the separate 1-layer
transformer (``small-draft``). Both read the same trie of contexts
(`witness.neural.contexts.ContextTree`), so the target's rows are computed once for both.

A context is named ``(node, last token)``: the node of the trie holds everything; the token is
carried only because the n-gram pair names its contexts by their last two tokens and the
witness moves between contexts without knowing which pair it serves (`witness.models.pair`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from witness.neural.cache import FloatArray
from witness.neural.contexts import EXIT, SMALL, TARGET, ContextTree
from witness.neural.corpus import VOCAB
from witness.neural.model import tiny_pair

# How a character is shown as a token: the space and the paragraph break would be invisible.
SHOWN = {" ": "␣", "\n": "⏎"}
DRAFT_ROW = {"early-exit": EXIT, "small-draft": SMALL}


class TransformerModels:
    """The target and one draft, over the shared trie of contexts."""

    def __init__(self, name: str, tree: ContextTree) -> None:
        if name not in DRAFT_ROW:
            raise ValueError(f"models must be one of {sorted(DRAFT_ROW)}, not {name!r}")
        self.name = name
        self.tree = tree
        self.vocab: tuple[str, ...] = tuple(SHOWN.get(c, c) for c in VOCAB)
        self.size = len(VOCAB)
        self.index = {c: i for i, c in enumerate(VOCAB)}
        self._draft = DRAFT_ROW[name]

    def encode(self, text: str) -> tuple[list[int], list[str]]:
        """Character ids of the text (lower-cased), and the characters the models lack."""
        known: list[int] = []
        skipped: list[str] = []
        for c in text.lower():
            i = self.index.get(c)
            if i is None or c == "\n":
                skipped.append(c)
            else:
                known.append(i)
        return known, skipped

    def text(self, ids: Sequence[int]) -> str:
        return "".join(VOCAB[i] for i in ids)

    def start(self, context: Sequence[int]) -> tuple[int, int]:
        node = self.tree.path(list(context))
        return node, (context[-1] if context else -1)

    def advance(self, before: int, prev: int, token: int) -> tuple[int, int]:
        return self.tree.child(before, token), token

    def target_row(self, before: int, prev: int) -> FloatArray:
        row: FloatArray = self.tree.laws(before)[TARGET]
        return row

    def draft_at(self, before: int, prev: int) -> FloatArray:
        row: FloatArray = self.tree.laws(before)[self._draft]
        return row


@cache
def context_tree() -> ContextTree:
    """The process-wide trie of the committed pair."""
    return ContextTree(tiny_pair())


@cache
def transformer_models(name: str) -> TransformerModels:
    return TransformerModels(name, context_tree())

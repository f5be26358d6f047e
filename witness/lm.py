"""The two tiny word-level models of the served request, fitted with numpy from seeds/corpus.txt.

- target p(w | u, v): an interpolated trigram (trigram, bigram, unigram, uniform);
- draft  d(w | v):    an interpolated bigram (one word of context: cheaper and blunter).

The fit is counting, so it takes milliseconds and is done once per process (`tiny_models`).
Rows are cached and read-only: a served request asks for the same contexts again each time
a slider moves.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache, lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

CORPUS_PATH = Path(__file__).resolve().parent.parent / "seeds" / "corpus.txt"
BOUNDARY = "."
_TOKEN = re.compile(r"[a-z]+|[.,]")

# Interpolation weights, chosen so the target is peaked enough to write readable clauses and
# the draft disagrees with it often enough that acceptance is far from 1 at match 0.
TARGET_WEIGHTS = (0.90, 0.07, 0.025, 0.005)  # trigram, bigram, unigram, uniform
DRAFT_WEIGHTS = (0.55, 0.35, 0.10)  # bigram, unigram, uniform
_ROW_CACHE = 8192


def tokenize(text: str) -> list[str]:
    """Lower-case words plus '.' and ',' as tokens.

    Examples
    --------
    >>> tokenize("The draft proposes, the target verifies.")
    ['the', 'draft', 'proposes', ',', 'the', 'target', 'verifies', '.']
    """
    return _TOKEN.findall(text.lower())


def detokenize(words: Sequence[str]) -> str:
    """Join tokens back into text, with no space before punctuation.

    Examples
    --------
    >>> detokenize(["the", "draft", ",", "then", "the", "target", "."])
    'the draft, then the target.'
    """
    return "".join(w if w in ".," else " " + w for w in words).lstrip()


class TinyModels:
    """Counts over the corpus, and the two conditional distributions built from them."""

    def __init__(self, text: str) -> None:
        words = [BOUNDARY, BOUNDARY, *tokenize(text)]
        counts: dict[str, int] = {}
        for w in words:
            counts[w] = counts.get(w, 0) + 1
        # Most frequent first, ties alphabetical: a stable id order for every process.
        self.vocab: tuple[str, ...] = tuple(sorted(counts, key=lambda w: (-counts[w], w)))
        self.index: dict[str, int] = {w: i for i, w in enumerate(self.vocab)}
        v = len(self.vocab)
        ids = np.array([self.index[w] for w in words], dtype=np.int64)
        self.size = v
        self.unigram = np.bincount(ids, minlength=v) / ids.size
        self._bigram = np.zeros((v, v))
        np.add.at(self._bigram, (ids[:-1], ids[1:]), 1.0)
        tri_keys, tri_counts = np.unique(
            (ids[:-2] * v + ids[1:-1]) * v + ids[2:], return_counts=True
        )
        contexts = tri_keys // v
        starts = np.flatnonzero(np.r_[True, contexts[1:] != contexts[:-1]])
        ends = np.r_[starts[1:], contexts.size]
        self._trigram: dict[int, tuple[NDArray[np.int64], FloatArray]] = {
            int(contexts[s]): (tri_keys[s:e] % v, tri_counts[s:e].astype(np.float64))
            for s, e in zip(starts, ends, strict=True)
        }
        self.target_row = lru_cache(maxsize=_ROW_CACHE)(self._target_row)
        self.draft_row = lru_cache(maxsize=_ROW_CACHE)(self._draft_row)

    def _bigram_row(self, prev: int) -> FloatArray:
        row = self._bigram[prev]
        total = row.sum()
        return row / total if total > 0 else self.unigram

    def _target_row(self, before: int, prev: int) -> FloatArray:
        w_tri, w_bi, w_uni, w_flat = TARGET_WEIGHTS
        row = w_bi * self._bigram_row(prev) + w_uni * self.unigram + w_flat / self.size
        seen = self._trigram.get(before * self.size + prev)
        if seen is not None:  # an unseen context falls back to the bigram mixture alone
            nxt, cnt = seen
            row[nxt] += w_tri * cnt / cnt.sum()
        return _frozen(row / row.sum())

    def _draft_row(self, prev: int) -> FloatArray:
        w_bi, w_uni, w_flat = DRAFT_WEIGHTS
        row = w_bi * self._bigram_row(prev) + w_uni * self.unigram + w_flat / self.size
        return _frozen(row / row.sum())

    def target(self, context: Sequence[int]) -> FloatArray:
        """p(· | last two tokens of context), with sentence boundaries padding a short one."""
        pad = self.index[BOUNDARY]
        before = context[-2] if len(context) >= 2 else pad
        prev = context[-1] if context else pad
        return self.target_row(int(before), int(prev))

    def draft(self, context: Sequence[int]) -> FloatArray:
        """d(· | last token of context)."""
        prev = context[-1] if context else self.index[BOUNDARY]
        return self.draft_row(int(prev))

    def encode(self, text: str) -> tuple[list[int], list[str]]:
        """Token ids of the words the models know, and the words they skipped."""
        known: list[str] = []
        skipped: list[str] = []
        for w in tokenize(text):
            (known if w in self.index else skipped).append(w)
        return [self.index[w] for w in known], skipped


def _frozen(row: FloatArray) -> FloatArray:
    """Cached rows are shared by every request: make accidental writes an error."""
    out: FloatArray = np.asarray(row, dtype=np.float64)
    out.flags.writeable = False
    return out


@cache
def tiny_models() -> TinyModels:
    """The process-wide models, fitted on first use from the shipped corpus."""
    return TinyModels(CORPUS_PATH.read_text(encoding="utf-8"))

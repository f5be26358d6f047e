"""The two tiny word-level models of the served request, fitted with numpy from seeds/corpus.txt.

- target p(w | u, v): an interpolated trigram (trigram, bigram, unigram, uniform);
- draft  d(w | v):    an interpolated bigram (one word of context: cheaper and blunter).

The fit is counting, done once per process (`tiny_models`; with the tables below, ~0.1 s).
Every row either model can give is computed then, into two read-only tables: the target has
one row per context the corpus has a trigram for (~2 400) and one per last word for every
other context (its bigram mixture alone), ~3 000 rows in all (15 MB); the draft one per last
word. A request's contexts wander far beyond the corpus's (drafts come from a smoothed q), so
rows cached per (before, prev) pair missed most of the time and held duplicates of the same
fallback row; a table lookup never misses, and the compiled chain (`witness.serve.chain`) reads
its rows straight from the tables.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

CORPUS_PATH = Path(__file__).resolve().parents[2] / "seeds" / "corpus.txt"
BOUNDARY = "."
_TOKEN = re.compile(r"[a-z]+|[.,]")

# Interpolation weights, chosen so the target is peaked enough to write readable clauses and
# the draft disagrees with it often enough that acceptance is far from 1 at match 0.
TARGET_WEIGHTS = (0.90, 0.07, 0.025, 0.005)  # trigram, bigram, unigram, uniform
DRAFT_WEIGHTS = (0.55, 0.35, 0.10)  # bigram, unigram, uniform


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
        # The tables. Target row r: r < V is context (unseen, prev = r); r >= V is the
        # (r - V)-th trigram context. `row_of[before, prev]` names a context's row.
        seen = sorted(self._trigram)
        self.target_rows = _frozen(
            np.stack(
                [self._target_row(-1, prev) for prev in range(v)]
                + [self._target_row(c // v, c % v) for c in seen]
            )
        )
        row_of = np.tile(np.arange(v, dtype=np.intp), (v, 1))
        for r, c in enumerate(seen, start=v):
            row_of[c // v, c % v] = r
        self.row_of: NDArray[np.intp] = row_of
        self.row_of.flags.writeable = False
        self.draft_rows = _frozen(np.stack([self._draft_row(prev) for prev in range(v)]))
        # The draft reads the last word alone: target row r pairs with draft row prev_of_row[r]
        # (an unseen context's row is its last word's; a trigram context's is its second word).
        prev_of_row = np.concatenate([np.arange(v), np.asarray(seen, dtype=np.int64) % v])
        self.prev_of_row: NDArray[np.intp] = prev_of_row.astype(np.intp)
        self.prev_of_row.flags.writeable = False
        # What the exact-given-text ensembles read per row (witness.judge.expected): the distance
        # of the draft model from the target, and the target's least and most likely words.
        gap = np.abs(self.target_rows - self.draft_rows[self.prev_of_row]).sum(axis=1)
        self.draft_tv = _frozen(0.5 * gap)
        self.target_argmin: NDArray[np.intp] = _frozen_ids(self.target_rows.argmin(axis=1))
        self.target_argmax: NDArray[np.intp] = _frozen_ids(self.target_rows.argmax(axis=1))
        # Each row's cumulative sums, for drawing the target's texts by inverse CDF (15 MB:
        # a text's step then gathers its CDFs instead of summing 630 words per text).
        self.target_cdf = _frozen(np.cumsum(self.target_rows, axis=1))
        # Per-call lookups in plain Python (cheaper than a numpy scalar index): the seen
        # contexts' rows by key, every other context on its last word's row. (A [V][V] list
        # would be 10 MB and 240 000 objects a worker for the same answer.)
        self._seen_row: dict[int, int] = {c: r for r, c in enumerate(seen, start=v)}
        self._target_views: tuple[FloatArray, ...] = tuple(self.target_rows)
        self._draft_views: tuple[FloatArray, ...] = tuple(self.draft_rows)

    def _bigram_row(self, prev: int) -> FloatArray:
        row = self._bigram[prev]
        total = row.sum()
        return row / total if total > 0 else self.unigram

    def _target_row(self, before: int, prev: int) -> FloatArray:
        w_tri, w_bi, w_uni, w_flat = TARGET_WEIGHTS
        row = w_bi * self._bigram_row(prev) + w_uni * self.unigram + w_flat / self.size
        seen = self._trigram.get(before * self.size + prev) if before >= 0 else None
        if seen is not None:  # an unseen context falls back to the bigram mixture alone
            nxt, cnt = seen
            row[nxt] += w_tri * cnt / cnt.sum()
        out: FloatArray = row / row.sum()
        return out

    def _draft_row(self, prev: int) -> FloatArray:
        w_bi, w_uni, w_flat = DRAFT_WEIGHTS
        row = w_bi * self._bigram_row(prev) + w_uni * self.unigram + w_flat / self.size
        out: FloatArray = row / row.sum()
        return out

    def target_row(self, before: int, prev: int) -> FloatArray:
        """p(. | before, prev) for token ids, read-only (a row of `target_rows`)."""
        return self._target_views[self._seen_row.get(before * self.size + prev, prev)]

    def draft_row(self, prev: int) -> FloatArray:
        """d(. | prev) for a token id, read-only (a row of `draft_rows`)."""
        return self._draft_views[prev]

    # --- what the witness asks of any model pair (`witness.models.pair.Models`) ---------

    name = "ngram"

    def start(self, context: Sequence[int]) -> tuple[int, int]:
        """The context the models condition on after ``context``: its last two tokens,
        padded with sentence boundaries."""
        pad = self.index[BOUNDARY]
        return (context[-2] if len(context) >= 2 else pad), (context[-1] if context else pad)

    def advance(self, before: int, prev: int, token: int) -> tuple[int, int]:
        """The context after ``token`` follows context (before, prev)."""
        return prev, token

    def draft_at(self, before: int, prev: int) -> FloatArray:
        """d(. | context): the bigram reads the last token alone."""
        return self._draft_views[prev]

    def text(self, ids: Sequence[int]) -> str:
        """The tokens as text."""
        return detokenize([self.vocab[i] for i in ids])

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
    """The tables are shared by every request: make accidental writes an error."""
    out: FloatArray = np.asarray(row, dtype=np.float64)
    out.flags.writeable = False
    return out


def _frozen_ids(ids: NDArray[np.intp]) -> NDArray[np.intp]:
    ids.flags.writeable = False
    return ids


@cache
def tiny_models() -> TinyModels:
    """The process-wide models, fitted on first use from the shipped corpus."""
    return TinyModels(CORPUS_PATH.read_text(encoding="utf-8"))

"""The joint law of a request's first two emitted tokens, binned for a chi-square test.

Shared by the served methods' and the draft-length policies' lossless tests: each draws
(x1, x2) pairs from many seeded requests and compares them with p(x1)·p(x2 | x1).
"""

from __future__ import annotations

import numpy as np

from witness.models.laws import context_pair
from witness.models.lm import tiny_models

TOP_FIRST, TOP_SECOND = 8, 6


def joint_cells(pairs: np.ndarray, prompt: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Counts and exact probabilities of (x1, x2) cells: p's top tokens at each position,
    each with an "other" cell, and one cell for any other first token."""
    models = tiny_models()
    before, prev = context_pair(models, prompt)
    p1 = models.target_row(before, prev)
    firsts = np.argsort(-p1, kind="stable")[:TOP_FIRST]
    probs: list[float] = []
    cell: dict[tuple[int, int], int] = {}
    other_second: dict[int, int] = {}
    for x in (int(t) for t in firsts):
        p2 = models.target_row(prev, x)
        seconds = np.argsort(-p2, kind="stable")[:TOP_SECOND]
        for y in (int(t) for t in seconds):
            cell[(x, y)] = len(probs)
            probs.append(float(p1[x] * p2[y]))
        other_second[x] = len(probs)
        probs.append(float(p1[x] * (1.0 - p2[seconds].sum())))
    rest = len(probs)
    probs.append(float(1.0 - p1[firsts].sum()))
    counts = np.zeros(len(probs), dtype=np.int64)
    for x, y in pairs.tolist():
        counts[cell.get((x, y), other_second.get(x, rest))] += 1
    law = np.array(probs)
    return counts, law / law.sum()

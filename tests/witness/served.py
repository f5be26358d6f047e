"""Served-request settings and helpers shared by the tests of the served request's modules."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from witness import RequestTrace, Settings
from witness.core.trace import BlockTrace, DraftStep
from witness.models.lm import tiny_models

SETTINGS = [
    Settings(),
    Settings(k=1, seed=3),
    Settings(k=16, match=0.9, tokens=200),
    Settings(repair=False, seed=11),
    Settings(verify=False, k=5, tokens=31),
    Settings(verify=False, draft_cost=0.0),
    Settings(greedy=True, match=0.2),
    Settings(tokens=1, k=7),
    Settings(prompt="", match=0.0, seed=2),
    Settings(prompt="zzzz qqqq the target", tokens=17),
]
IDS = [repr(s.model_dump(exclude_defaults=True)) for s in SETTINGS]
SAMPLED = [(s, i) for s, i in zip(SETTINGS, IDS, strict=True) if not s.greedy]


def emitted(trace: RequestTrace) -> list[int]:
    return [t for b in trace.blocks for t in b.result.emitted[: len(b.emitted_words)]]


def visited(
    s: Settings, trace: RequestTrace
) -> Iterator[tuple[BlockTrace, DraftStep, np.ndarray, np.ndarray]]:
    """Every drafted position with p and q recomputed from the models (sampled mode only)."""
    models = tiny_models()
    prompt, _ = models.encode(s.prompt)
    out = emitted(trace)
    for b in trace.blocks:
        context = prompt + out[: b.start]
        for d in b.drafts:
            here = context + [x.token for x in b.drafts[: d.position]]
            p = models.target(here)
            yield b, d, p, s.match * p + (1 - s.match) * models.draft(here)

"""The exact distribution check of a served request: how far its emitted law is from p.

Every drafted position's laws are known exactly, so the distance of the law the mode emits
there from p is computed, not sampled: 0 (to float precision) for the lossless rule, larger
for the others. In greedy mode the output is also compared token for token with plain greedy
decoding of the target.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from witness.core.modes import mode_of
from witness.core.settings import Settings
from witness.core.trace import DistributionCheck
from witness.models.cache import RequestCache
from witness.models.laws import context_pair
from witness.models.pair import Models

EXACT = 1e-12  # a distance below this is "the target distribution is kept"


def distribution_check(
    s: Settings,
    models: Models,
    prompt: list[int],
    out: list[int],
    tvs: Sequence[float],
    cache: RequestCache,
) -> DistributionCheck:
    """The check over ``tvs``, the exact TV from p of the law emitted at every drafted
    position (each `Law.tv` of the mode, or `witness.methods.block.level_tv`), for output ``out``.

    A token a plain target pass emitted (the last one, when one token was left to draft
    for) is p's own draw and adds nothing to check."""
    mode = mode_of(s.verify, s.repair)
    tv = np.array(tvs, dtype=np.float64)
    baseline_match: bool | None = None
    if s.greedy:
        baseline_match = greedy_decoding(models, prompt, s.tokens, cache) == out
    # A request that drafted nothing (one token left, verified) emitted p's own draw: TV 0.
    tv_max = float(tv.max()) if tv.size else 0.0
    return DistributionCheck(
        mode=mode,
        greedy=s.greedy,
        tv_max=tv_max,
        tv_mean=float(tv.mean()) if tv.size else 0.0,
        keeps_target=tv_max <= EXACT,
        matches_greedy_baseline=baseline_match,
    )


def greedy_decoding(
    models: Models, prompt: list[int], tokens: int, cache: RequestCache
) -> list[int]:
    """Plain greedy decoding of the target, one pass per token."""
    plain: list[int] = []
    before, prev = context_pair(models, prompt)
    for _ in range(tokens):
        plain.append(int(np.argmax(cache.target(True, before, prev))))
        before, prev = models.advance(before, prev, plain[-1])
    return plain

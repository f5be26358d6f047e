"""The compiled laws (witness.models.kernels) are numpy's arithmetic bit for bit, on every row.

The served request's tokens, α and TV must not change by a bit when they are compiled, so
each kernel is compared with `==` against the numpy expression it replaces, over every row
the target can give (3 012), at a fixed and a drawn match, with the draft model and the
adversary, sampled and greedy. The teeth twin shows a sum in plain left-to-right order (what
a naive compiled loop does) differs from numpy's pairwise sum on real rows: the comparison
would catch it.
"""

from __future__ import annotations

import numpy as np
import pytest

from witness.core.distributions import greedy_distribution
from witness.core.theory import output_law, residual_unchecked, total_variation_unchecked
from witness.models import kernels
from witness.models.laws import adversary_row, draft_law
from witness.models.lm import tiny_models

MODES = ((True, True), (True, False), (False, False))  # lossless, no repair, no verify


@pytest.mark.parametrize("greedy", [False, True], ids=["sampled", "greedy"])
@pytest.mark.parametrize("adversary", [False, True], ids=["model", "adversary"])
@pytest.mark.parametrize("match", [0.6, 0.2718281828, 1.0])
def test_every_row_is_numpys_bit_for_bit(match: float, adversary: bool, greedy: bool) -> None:
    models = tiny_models()
    wrong: list[tuple[int, str]] = []
    for r, sampled in enumerate(models.target_rows):
        d = adversary_row(sampled) if adversary else models.draft_rows[models.prev_of_row[r]]
        q = draft_law(match, sampled, d)
        q = greedy_distribution(q) if greedy else q
        p = greedy_distribution(sampled) if greedy else sampled
        compiled = kernels.draft_row(sampled, d, match, greedy)
        if not np.array_equal(compiled, q):
            wrong.append((r, "q"))
            continue
        cdf, alpha = kernels.cdf_and_alpha(p, q)
        if not np.array_equal(cdf, q.cumsum()) or alpha != float(np.minimum(p, q).sum()):
            wrong.append((r, "cdf or alpha"))
        if not np.array_equal(kernels.residual_row(p, q), residual_unchecked(p, q)):
            wrong.append((r, "residual"))
        for verify, repair in MODES:
            law = output_law(p, q, verify=verify, repair=repair)
            if kernels.tv_row(p, q, verify, repair) != float(total_variation_unchecked(law, p)):
                wrong.append((r, f"tv {verify} {repair}"))
    assert not wrong, wrong[:10]


@pytest.mark.parametrize("n", [1, 7, 8, 9, 127, 128, 129, 255, 630, 1000, 4097])
def test_the_sum_is_numpys_pairwise_sum(n: int) -> None:
    rng = np.random.default_rng(n)
    for _ in range(50):
        a = rng.random(n) * 10.0 ** rng.integers(-8, 8) - (rng.random(n) < 0.3) * 0.5
        assert kernels.row_sum(a) == a.sum()


def test_teeth_a_left_to_right_sum_is_not_numpys() -> None:
    models = tiny_models()
    differ = 0
    for row in models.target_rows[:200]:
        total = 0.0
        for x in row.tolist():
            total += x
        differ += total != row.sum()
    assert differ > 0

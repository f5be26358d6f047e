"""The exact-given-text estimator (witness.models.texts, witness.judge.expected) against what it replaces.

- the recursion is exact: it equals an enumeration of every acceptance pattern;
- the texts are the target's: their tokens fit p (seeded, with a teeth twin drawn from d);
- its mean agrees with 512 served requests within 3 standard errors at six states, and each
  broken rule (no (1 − m) term; acceptance by p alone) fails that agreement;
- greedy and p = q, which have no randomness left, equal the served requests exactly;
- one estimator on both sides of every comparison.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pytest

from app.station.services import Witness
from witness import Settings
from witness.judge.ensemble import compare, serve_ensemble
from witness.judge.expected import (
    acceptance,
    ensemble_of,
    exact_applies,
    exact_ensemble,
    expected_passes,
)
from witness.models.cache import RequestCache
from witness.models.fit import chi_square_against
from witness.models.laws import context_pair, law_at
from witness.models.lm import tiny_models
from witness.models.texts import Texts, draw_texts
from witness.serve.chain import serve_chains

PROMPT = "the draft model proposes"
# (match, k, prompt, tokens, adversary): six states across the match, k and prompts.
STATES = [
    (0.6, 4, PROMPT, 48, False),
    (0.2, 8, PROMPT, 48, False),
    (0.9, 3, "the target", 30, False),
    (0.0, 2, PROMPT, 48, False),
    (0.6, 16, "a residual", 20, False),
    (0.5, 5, PROMPT, 40, True),
]
N = 512
SERVED_SEEDS = list(range(10_000, 10_000 + N))
TEXT_SEEDS = range(50_000, 50_000 + N)

Rule = Callable[[Texts, float, bool], np.ndarray]


def _rule(texts: Texts, match: float, adversary: bool) -> np.ndarray:
    return acceptance(texts, match, adversary).accept


def _forgets_one_minus_m(texts: Texts, match: float, adversary: bool) -> np.ndarray:
    """min(1, m + d/p): the draft's share not scaled by (1 − m)."""
    ratio = texts.d / texts.p
    if adversary:
        least = tiny_models().target_argmin[texts.rows]
        ratio = np.where(texts.token == least, 1.0 / texts.p, 0.0)
    return np.minimum(1.0, match + ratio)


def _accepts_by_p(texts: Texts, match: float, adversary: bool) -> np.ndarray:
    """Accepted with probability p(x), whatever the draft."""
    return np.asarray(texts.p)


def _served_passes(state: tuple[float, int, str, int, bool]) -> np.ndarray:
    m, k, prompt, tokens, adversary = state
    s = Settings(
        match=m,
        k=k,
        prompt=prompt,
        tokens=tokens,
        draft_source="adversary" if adversary else "model",
    )
    paths = serve_chains(s, SERVED_SEEDS, cache=RequestCache())
    return np.array([p.target_passes for p in paths], float)


@pytest.fixture(scope="module")
def served() -> dict[tuple[float, int, str, int, bool], np.ndarray]:
    return {state: _served_passes(state) for state in STATES}


def _z(state: tuple[float, int, str, int, bool], served: np.ndarray, rule: Rule) -> float:
    m, k, prompt, tokens, adversary = state
    texts = draw_texts(prompt, tokens, False, TEXT_SEEDS)
    exact = expected_passes(rule(texts, m, adversary), k).target
    se = np.sqrt(served.var(ddof=1) / served.size + exact.var(ddof=1) / exact.size)
    return float((exact.mean() - served.mean()) / se)


@pytest.mark.slow
@pytest.mark.parametrize("state", STATES, ids=lambda s: f"m{s[0]}-k{s[1]}-{s[4]}")
def test_the_exact_mean_agrees_with_512_served_requests(
    state: tuple[float, int, str, int, bool],
    served: dict[tuple[float, int, str, int, bool], np.ndarray],
) -> None:
    assert abs(_z(state, served[state], _rule)) < 3.0


@pytest.mark.slow
@pytest.mark.parametrize("broken", [_forgets_one_minus_m, _accepts_by_p], ids=lambda f: f.__name__)
def test_teeth_a_broken_acceptance_fails_the_agreement(
    broken: Rule, served: dict[tuple[float, int, str, int, bool], np.ndarray]
) -> None:
    failed = [s for s in STATES if abs(_z(s, served[s], broken)) >= 3.0]
    assert len(failed) >= 3, failed


def _enumerated(accept: np.ndarray, k: int) -> tuple[float, float]:
    """E[target passes], E[draft passes] by summing over every accept/reject pattern."""
    T = accept.size
    target = draft = 0.0
    for bits in itertools.product((True, False), repeat=T):
        weight = float(np.prod([a if b else 1.0 - a for a, b in zip(accept, bits, strict=True)]))
        t = blocks = drafted = 0
        while t < T:
            d = min(k, T - t - 1)
            j = 0
            while j < d and bits[t + j]:
                j += 1
            blocks += 1
            drafted += d
            t += j + 1  # j accepted and the repair, or all d and the bonus
        target += weight * blocks
        draft += weight * drafted
    return target, draft


@pytest.mark.parametrize(("tokens", "k"), [(1, 3), (2, 1), (5, 2), (7, 3), (9, 16), (8, 1)])
def test_the_recursion_equals_the_enumeration_of_every_pattern(tokens: int, k: int) -> None:
    rng = np.random.default_rng(tokens * 100 + k)
    accept = rng.random((3, tokens))
    accept[1, ::2] = 1.0  # some certain acceptances
    accept[2, 1::3] = 0.0  # and certain rejections
    e = expected_passes(accept, k)
    for row in range(3):
        target, draft = _enumerated(accept[row], k)
        np.testing.assert_allclose([e.target[row], e.draft[row]], [target, draft], rtol=1e-12)
        # Every pass scores between 1 and k + 1 tokens; together they are all the passes.
        assert e.scored[row].sum() == pytest.approx(e.target[row], rel=1e-12)
        scored = np.arange(e.scored.shape[1])
        assert (e.scored[row] * (scored - 1)).sum() == pytest.approx(e.draft[row], rel=1e-12)


def test_the_texts_are_the_targets() -> None:
    """The first token of 20 000 texts fits p at the prompt's context (p-value > 1e-3)."""
    models = tiny_models()
    ids, _ = models.encode(PROMPT)
    p = models.target_row(*context_pair(models, ids))
    texts = draw_texts(PROMPT, 1, False, range(20_000))
    counts = np.bincount(texts.token[:, 0], minlength=models.size)
    assert chi_square_against(counts, p).p_value > 1e-3
    # Teeth: the draft model's row at the same context is rejected by the same test.
    d = models.draft_row(ids[-1])
    assert chi_square_against(counts, d).p_value < 1e-6


def test_a_text_is_a_pure_function_of_its_seed() -> None:
    a = draw_texts(PROMPT, 30, False, (3, 4, 5))
    b = draw_texts(PROMPT, 30, False, (5, 9))
    assert (a.token[2] == b.token[0]).all() and not (a.token[0] == a.token[1]).all()


@pytest.mark.parametrize("adversary", [False, True])
@pytest.mark.parametrize("match", [0.0, 0.37, 1.0])
def test_alpha_at_each_text_position_is_the_law_at_its_context(
    match: float, adversary: bool
) -> None:
    models = tiny_models()
    texts = draw_texts(PROMPT, 12, False, (1, 2))
    got = acceptance(texts, match, adversary).alpha
    for j in range(texts.n):
        context = [*models.encode(PROMPT)[0], *texts.token[j].tolist()]
        for t in range(texts.tokens):
            before, prev = context_pair(models, context[: len(context) - texts.tokens + t])
            law = law_at(
                models, models.target_row(before, prev), match, False, before, prev, adversary
            )
            assert got[j, t] == pytest.approx(law.alpha, abs=1e-12)
            x = texts.token[j, t]
            accept = min(law.p[x], law.q[x]) / law.p[x]
            assert acceptance(texts, match, adversary).accept[j, t] == pytest.approx(
                accept, abs=1e-12
            )


@pytest.mark.parametrize(
    "s",
    [
        Settings(greedy=True, match=0.2),
        Settings(greedy=True, match=0.7, k=8, draft_source="adversary"),
        Settings(match=1.0, k=5),
        Settings(tokens=1),
        Settings(match=1.0, k=16, tokens=256, greedy=True),
    ],
    ids=["greedy", "greedy adversary", "p = q", "one token", "long greedy p = q"],
)
def test_without_randomness_left_the_estimators_agree_exactly(s: Settings) -> None:
    exact, served = exact_ensemble(s), serve_ensemble(s)
    assert exact.seeds == served.seeds
    np.testing.assert_allclose(exact.target_passes, served.target_passes, rtol=1e-12)
    np.testing.assert_allclose(exact.draft_passes, served.draft_passes, rtol=1e-12)
    assert exact.speedup(0.1).mean == pytest.approx(served.speedup(0.1).mean, rel=1e-12)


def test_the_exact_ensemble_is_the_lossless_chains_alone() -> None:
    assert exact_applies(Settings()) and exact_applies(Settings(draft_source="adversary"))
    for other in (
        Settings(repair=False),
        Settings(verify=False),
        Settings(acceptance="typical"),
        Settings(draft_source="lookup"),
        Settings(tree_width=2),
    ):
        assert not exact_applies(other)
        assert ensemble_of(other).estimator == "served"
        with pytest.raises(ValueError, match="lossless chain"):
            exact_ensemble(other)


def test_one_estimator_on_both_sides_of_every_comparison() -> None:
    s = Settings()
    exact, served = exact_ensemble(s), serve_ensemble(s)
    with pytest.raises(ValueError, match="one estimator"):
        compare(exact, 0.1, served, 0.1)
    w = Witness()
    # Repair off has no exact form: both sides are served on the same seeds.
    was, now = w.judged(s, s.model_copy(update={"repair": False}))
    assert was.estimator == now.estimator == "served" and was.seeds == now.seeds
    was, now = w.judged(s, s.model_copy(update={"k": 8}))
    assert was.estimator == now.estimator == "exact-given-text"


def test_teeth_mixing_estimators_reads_jensens_gap_as_an_effect() -> None:
    """The per-request mean of served speedups sits above the exact texts' by Jensen's gap:
    a mixed comparison of one state with itself would call that an effect."""
    s = Settings()
    exact, served = exact_ensemble(s), serve_ensemble(s)
    gap = served.speedups(0.1).mean() - exact.speedups(0.1).mean()
    assert gap > 0.01
    same = compare(exact, 0.1, exact_ensemble(s), 0.1)
    assert same.change == "same"


def test_a_new_match_or_k_reuses_the_texts() -> None:
    w = Witness()
    for m, k in ((0.1, 2), (0.5, 9), (0.95, 16)):
        assert w.ensemble(Settings(match=m, k=k)).estimator == "exact-given-text"
    assert w.sizes()["texts"] == 1 and w.sizes()["exact_ensembles"] == 3

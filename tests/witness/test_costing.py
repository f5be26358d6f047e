"""The cost of a pass on a machine (witness.cost.costing), and everything it prices.

Known values are computed here from the datasheet and model-card numbers, not read back from
the module; the station's formula with a machine's price is cross-checked against the
issue's `batched_speedup`; the convexity the module's docstring relies on is a property.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.witness.strategies import PROPERTY, distributions
from witness import Settings, serve_request
from witness.core.settings import max_depth
from witness.core.theory import draft_length_optimum, expected_speedup
from witness.cost.costing import (
    MACHINES,
    PAIRS,
    costing,
    price,
    priced_optimum,
    prices,
    scored_per_sequence,
)
from witness.cost.roofline import batched_speedup
from witness.judge.ensemble import serve_ensemble
from witness.models.cache import RequestCache
from witness.models.laws import adversary_row, context_pair, draft_law
from witness.models.lm import tiny_models
from witness.serve.accounting import draft_cost, priced_cost
from witness.serve.check import EXACT

CACHE = RequestCache()

# NVIDIA H100 SXM datasheet and the Llama model cards, restated here on purpose.
H100_BANDWIDTH, H100_FLOPS = 3.35e12, 989e12
LLAMA_8B, LLAMA_1B = 8.03e9, 1.24e9
# Llama 3.1 8B: 32 layers, 8 KV heads of 128; Llama 3.2 1B: 16 layers, 8 KV heads of 64 (BF16).
KV_8B, KV_1B = 2 * 32 * 8 * 128 * 2, 2 * 16 * 8 * 64 * 2

machines = st.sampled_from(sorted(MACHINES))
pairs = st.sampled_from(sorted(PAIRS))
batches = st.integers(1, 512)
contexts = st.one_of(st.just(0), st.integers(0, 131_072))


def on(machine: str = "h100", pair: str = "llama-8b-1b", **kw: object) -> Settings:
    return Settings(machine=machine, pair=pair, **kw)


# ------------------------------------------------------------------------------ known values


def test_h100_at_batch_1_both_passes_are_memory_bound() -> None:
    cost = costing(on())
    draft_s, target_s = LLAMA_1B * 2 / H100_BANDWIDTH, LLAMA_8B * 2 / H100_BANDWIDTH
    assert cost.c == pytest.approx(draft_s / target_s, rel=1e-12)
    assert cost.c == pytest.approx((1.24e9 * 2) / (8.03e9 * 2), rel=1e-12)
    assert cost.plain_seconds == pytest.approx(4.794e-3, abs=5e-7)  # the issue's 4.794 ms
    assert cost.verify(5) == 1.0  # five tokens cost one pass: 0.081 ms of arithmetic
    assert cost.verify(1) == 1.0
    # k = 4: nothing but the draft passes, so the price per draft is c.
    assert price(on(k=4)) == pytest.approx(cost.c, rel=1e-12)


def test_h100_at_batch_128_the_verifying_pass_is_compute_bound() -> None:
    cost = costing(on(batch=128))
    verify = 2 * LLAMA_8B * 128 * 5 / H100_FLOPS  # 640 tokens: 10.39 ms of arithmetic
    plain = LLAMA_8B * 2 / H100_BANDWIDTH  # 128 tokens are still memory-bound (2.08 ms)
    assert 2 * LLAMA_8B * 128 / H100_FLOPS < plain
    assert cost.verify(5) == pytest.approx(verify / plain, rel=1e-12)
    assert cost.verify(5) == pytest.approx(640 * 3.35 / 989, rel=1e-12)  # 2.168
    expected = cost.c + (verify / plain - 1.0) / 4
    assert price(on(batch=128, k=4)) == pytest.approx(expected, rel=1e-12)


def test_the_context_adds_kv_reads_and_memory() -> None:
    cost = costing(on(batch=2, context=1000))
    plain = (LLAMA_8B * 2 + 2 * 1000 * KV_8B) / H100_BANDWIDTH
    draft = (LLAMA_1B * 2 + 2 * 1000 * KV_1B) / H100_BANDWIDTH
    assert cost.plain_seconds == pytest.approx(plain, rel=1e-12)
    assert cost.c == pytest.approx(draft / plain, rel=1e-12)
    assert cost.kv_bytes == 2 * 1000 * (KV_8B + KV_1B)
    assert costing(on(batch=2)).kv_bytes == 0


def test_every_machine_and_model_cites_its_source() -> None:
    assert set(MACHINES) == {"h200", "h100", "a100", "l4", "laptop"}
    assert set(PAIRS) == {"llama-8b-1b", "llama-70b-8b", "t5-xxl-small"}
    for m in MACHINES.values():
        assert m.source.strip() and m.bandwidth > 0 and m.flops > 0 and m.memory > 0
    for p in PAIRS.values():
        for model in (p.target, p.draft):
            assert model.source.strip() and model.params > 0 and model.kv_per_token > 0
        assert p.draft.params < p.target.params


def test_what_fits_in_memory() -> None:
    # 70.6 B + 8.03 B parameters in BF16 are ~157 GB: not on a 24 GB L4, nor on an 80 GB H100.
    assert not costing(on("l4", "llama-70b-8b")).fits
    assert not costing(on("h100", "llama-70b-8b")).fits
    assert costing(on("h100", "llama-8b-1b")).fits
    # 8B + 1B is 18.5 GB of weights; 512 sequences of 8 192 tokens add 687 GB of KV.
    assert (LLAMA_8B + LLAMA_1B) * 2 + 512 * 8192 * (KV_8B + KV_1B) > 80e9
    assert not costing(on("h100", batch=512, context=8192)).fits
    assert costing(Settings()).fits  # custom has no memory to run out of


# ---------------------------------------------------------------- the formula vs the issue's


@PROPERTY
@given(
    alpha=st.floats(0.0, 1.0, allow_nan=False),
    k=st.integers(1, 16),
    batch=batches,
    context=contexts,
    machine=machines,
    pair=pairs,
)
def test_the_priced_formula_is_the_issues_batched_speedup(
    alpha: float, k: int, batch: int, context: int, machine: str, pair: str
) -> None:
    s = on(machine, pair, k=k, batch=batch, context=context, stack="roofline")
    m, p = MACHINES[machine], PAIRS[pair]
    issue = batched_speedup(
        alpha,
        k,
        target_params=p.target.params,
        draft_params=p.draft.params,
        batch=batch,
        bandwidth=m.bandwidth,
        flops=m.flops,
        context=context,
        target_kv_per_token=p.target.kv_per_token,
        draft_kv_per_token=p.draft.kv_per_token,
    )
    assert float(expected_speedup(alpha, k, price(s))) == pytest.approx(issue, rel=1e-9)


@PROPERTY
@given(batch=batches, context=contexts, machine=machines, pair=pairs, width=st.integers(1, 2))
def test_the_price_per_draft_never_falls_with_k(
    batch: int, context: int, machine: str, pair: str, width: int
) -> None:
    """The roofline's v is convex with v(1) = 1, so (v(k + 1) − 1)/k is a secant slope from 1:
    nondecreasing. That is what lets "α > the k = 1 price" answer whether any k pays there."""
    s = on(machine, pair, batch=batch, context=context, tree_width=width, k=1, stack="roofline")
    cost = costing(s)
    depths = range(1, max_depth(width) + 1) if width > 1 else range(1, 200)
    per = [cost.per_draft(k, scored_per_sequence(s, k)) for k in depths]
    assert all(b >= a - 1e-12 for a, b in zip(per, per[1:], strict=False))
    assert per[0] >= cost.c - 1e-15
    # The vectorised prices are the scalar ones.
    ks = np.arange(1, len(per) + 1)
    assert np.allclose(prices(s, ks), per, rtol=1e-12, atol=0.0)


def test_teeth_a_concave_surcharge_would_fall_with_k() -> None:
    """The property above can fail: a verifying pass priced by sqrt(s) makes it fall."""
    per = [(np.sqrt(k + 1) - 1.0) / k for k in range(1, 20)]
    assert any(b < a for a, b in zip(per, per[1:], strict=False))


# ------------------------------------------------------------------------------ custom mode


@pytest.mark.parametrize("c", [0.0, 0.1, 0.45, 1.0])
@pytest.mark.parametrize("k", [1, 4, 16])
def test_custom_prices_a_draft_at_the_sliders_c(c: float, k: int) -> None:
    s = Settings(draft_cost=c, k=k, batch=256, context=4096)  # batch and context unused
    cost = costing(s)
    assert cost.machine is None and cost.c == c
    assert price(s) == draft_cost(s) == c
    assert all(cost.verify(x) == 1.0 for x in (0, 1, 2, 5, 31, 1000))
    assert prices(s, np.arange(1, 17)).tolist() == [c] * 16
    assert price(s.model_copy(update={"draft_source": "lookup"})) == 0.0


def test_lookup_runs_no_draft_model_on_a_machine_either() -> None:
    s = on(batch=128, draft_source="lookup", k=4)
    assert costing(s).c == 0.0
    assert price(s) == pytest.approx((costing(on(batch=128)).verify(5) - 1.0) / 4, rel=1e-12)


@pytest.mark.parametrize("q", [{}, {"k": 7, "match": 0.5}, {"tree_width": 2}, {"verify": False}])
def test_custom_totals_are_target_passes_plus_c_per_draft(q: dict[str, object]) -> None:
    s = Settings(draft_cost=0.2, **q)
    t = serve_request(s, cache=CACHE).totals
    assert t.cost_units == pytest.approx(t.target_passes + 0.2 * t.draft_passes, rel=1e-12)
    assert priced_cost(costing(s), [5] * t.target_passes, t.draft_passes) == pytest.approx(
        t.target_passes + 0.2 * t.draft_passes, rel=1e-12
    )


MACHINE_STATES = [
    on(batch=128, k=4, match=0.9),
    on(batch=256, k=7, match=0.6, tokens=64),
    on("a100", "llama-70b-8b", batch=32, context=4096, k=5),
    on("laptop", "t5-xxl-small", batch=8, k=3),
    on("l4", batch=64, tree_width=2, k=3),
    on(batch=512, draft_source="lookup", prompt="the draft model the draft model the"),
]


@pytest.mark.parametrize("s", MACHINE_STATES)
def test_on_a_machine_each_target_pass_is_priced_by_what_it_scored(s: Settings) -> None:
    trace = serve_request(s, cache=CACHE)
    cost = costing(s)
    assert cost.machine is not None
    scored = [b.scored for b in trace.blocks]
    assert all(x >= 1 for x in scored) and max(scored) > 1
    # Draft passes from the blocks: one per drafted level, none for a copied draft.
    draft_passes = 0 if s.draft_source == "lookup" else sum(b.depth for b in trace.blocks)
    expected = sum(cost.verify(x) for x in scored) + cost.c * draft_passes
    assert trace.totals.cost_units == pytest.approx(expected, rel=1e-12)
    # The last block drafts only what is left, so it scores fewer: at a compute-bound
    # batch, priced by its own width rather than the full block's.
    if s.batch >= 256 and s.draft_source == "model":
        assert cost.verify(min(scored)) < cost.verify(max(scored))
    # The ensemble's first request is this one, priced the same way.
    ens = serve_ensemble(s, cache=CACHE)
    assert ens.seeds[0] == s.seed
    assert ens.speedups(cost)[0] == pytest.approx(trace.totals.speedup_measured, rel=1e-12)


def test_the_ensemble_prices_a_costing_in_custom_as_its_c() -> None:
    s = Settings(draft_cost=0.3)
    ens = serve_ensemble(s, cache=CACHE)
    assert np.array_equal(ens.speedups(costing(s)), ens.speedups(0.3))


# --------------------------------------------------------------------------------- optimum


@pytest.mark.parametrize("alpha", [0.0, 0.3, 0.8, 0.937, 1.0])
@pytest.mark.parametrize("c", [0.0, 0.05, 0.45])
def test_the_priced_optimum_in_custom_is_the_formulas(alpha: float, c: float) -> None:
    s = Settings(draft_cost=c)
    assert priced_optimum(s, alpha, 16) == draft_length_optimum(alpha, c, 16)


def _argmax_first(values: list[float]) -> int:
    best = max(round(v, 12) for v in values)
    return next(i for i, v in enumerate(values) if round(v, 12) == best) + 1


@pytest.mark.parametrize("alpha", [0.2, 0.6, 0.9, 0.99, 1.0])
@pytest.mark.parametrize(
    "s",
    [on(), on(batch=64), on(batch=256), on("laptop"), on("a100", "llama-70b-8b", context=8192)],
)
def test_the_priced_optimum_on_a_machine_maximises_the_priced_formula(
    alpha: float, s: Settings
) -> None:
    k_max = 16
    speeds = [float(expected_speedup(alpha, k, price(s, k))) for k in range(1, k_max + 1)]
    o = priced_optimum(s, alpha, k_max)
    assert o.k == _argmax_first(speeds)
    # Past the slider: every k up to the search's end, each at its own price.
    far = [float(expected_speedup(alpha, k, price(s, k))) for k in range(1, 1025)]
    best = _argmax_first(far)
    assert best < 1024  # the verifying pass turns compute-bound: the optimum is finite
    assert o.unconstrained == best and o.limit is None


# --------------------------------------------------------------------------------- adversary


@PROPERTY
@given(p=distributions(), match=st.floats(0.0, 1.0, allow_nan=False))
def test_the_adversarys_alpha_is_the_match_where_p_misses_its_word(
    p: np.ndarray, match: float
) -> None:
    """q = m·p + (1 − m)·onehot(argmin p), so Σ min(p, q) = m + (1 − m)·min p: exactly the
    match wherever p gives its least likely word nothing."""
    q = draft_law(match, p, adversary_row(p))
    alpha = float(np.minimum(p, q).sum())
    assert alpha == pytest.approx(match + (1 - match) * float(p.min()), abs=1e-12)
    if p.min() == 0.0:
        assert alpha == pytest.approx(match, abs=1e-12)


@pytest.mark.parametrize("match", [0.0, 0.3, 0.7])
def test_the_served_adversarys_alpha_and_it_keeps_p(match: float) -> None:
    """On the served request, α at every drafted position is the closed form above at that
    position's p. The tiny target is smoothed (no word has p = 0), so α is the match plus
    (1 − m)·min p, under 2·10⁻⁴ above it here: at match 0 nothing is accepted."""
    s = Settings(draft_source="adversary", match=match, k=4, tokens=48)
    trace = serve_request(s, cache=CACHE)
    models = tiny_models()
    prompt, _ = models.encode(s.prompt)
    out: list[int] = []
    drafted = 0
    for block in trace.blocks:
        context = prompt + out
        for d in block.drafts:
            p = models.target_row(*context_pair(models, context))
            assert d.alpha == pytest.approx(match + (1 - match) * float(p.min()), abs=1e-12)
            assert 0.0 <= d.alpha - match < 2e-4
            drafted += 1
            context = [*context, d.token]
        out.extend(block.result.emitted)
    assert drafted > 20
    if match == 0.0:
        assert trace.totals.accepted_drafts == 0
    assert trace.check.keeps_target and trace.check.tv_max <= EXACT


def test_the_adversary_without_repair_loses_p() -> None:
    """Teeth for the check above: the same failing draft, repair off, is caught."""
    trace = serve_request(Settings(draft_source="adversary", match=0.0, repair=False))
    assert not trace.check.keeps_target and trace.check.tv_max > EXACT


@pytest.mark.parametrize(("width", "batch"), [(2, 1), (3, 1), (2, 64), (4, 1)])
def test_a_trees_priced_optimum_is_finite_and_may_lie_past_its_range(
    width: int, batch: int
) -> None:
    """A tree's deeper levels are priced like its others (every node scored in the pass), so
    its best depth is a finite k, past the width's range when the passes stay memory-bound,
    never "no finite optimum" (the search once stopped at the range's edge and said that)."""
    s = on(tree_width=width, k=1, batch=batch)
    k_max = max_depth(width)
    o = priced_optimum(s, 0.9, k_max)
    far = [float(expected_speedup(0.9, k, price(s, k))) for k in range(1, 41)]
    assert o.unconstrained == _argmax_first(far) and o.limit is None
    assert o.k == _argmax_first(far[:k_max])
    assert o.past_range == (o.unconstrained > k_max)


def test_prompt_lookup_holds_no_draft_model_in_memory() -> None:
    """Lookup copies its draft: no draft weights and no draft KV count against memory."""
    s = Settings(machine="h100", batch=60, context=8000)
    lookup = costing(s.model_copy(update={"draft_source": "lookup"}))
    model = costing(s)
    pair = model.pair
    assert pair is not None
    assert model.weights_bytes - lookup.weights_bytes == pytest.approx(pair.draft.params * 2)
    kv = 60 * 8000 * pair.draft.kv_per_token
    assert model.kv_bytes - lookup.kv_bytes == pytest.approx(kv)
    assert lookup.fits and not model.fits  # this state fits only without the draft model

"""The early-exit draft's price on a machine (witness.cost.catalog, witness.cost.costing).

The exit's shape is computed here from the Llama 3.1 8B config (hidden 4 096, 8 KV heads of
128, MLP 14 336, vocabulary 128 256, 32 layers), not read back from the module; its price on
the H200's timed passes is the fitted pass model written out term by term; on a roofline it is
the ratio of bytes (or arithmetic); the draft model's prices are today's formula, recomputed.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from witness import Settings
from witness.core.settings import Affects, choices, without
from witness.cost.catalog import EXIT_SHARE, PAIRS, exit_layers
from witness.cost.costing import (
    _SEARCH,
    MACHINES,
    Costing,
    _on_machine,
    _roofline_prices,
    _search_prices,
    costing,
    passes,
    price,
    stack_of,
)
from witness.cost.passes import FIGURES, Fit
from witness.neural.model import TARGET

# Llama 3.1 8B's config.json: one layer is q and o (4 096²), k and v (4 096 × 8 · 128), the
# SwiGLU MLP (3 × 4 096 × 14 336) and two RMSNorms; the head is 128 256 × 4 096.
HIDDEN, KV_DIM, MLP, VOCAB = 4096, 8 * 128, 14_336, 128_256
LAYER_8B = 2 * HIDDEN * HIDDEN + 2 * HIDDEN * KV_DIM + 3 * HIDDEN * MLP + 2 * HIDDEN
HEAD_8B = VOCAB * HIDDEN
EXIT_8B = 8 * LAYER_8B + HEAD_8B  # the first quarter of 32 layers, and the exit head
KV_8B = 2 * 32 * 8 * 128 * 2  # bytes a token adds to the 8B's cache, all 32 layers (BF16)
KV_EXIT = KV_8B * 8 // 32
LLAMA_8B, LLAMA_1B, KV_1B = 8.03e9, 1.24e9, 2 * 16 * 8 * 64 * 2  # model cards, config
DATASHEET = ("h100", "a100", "l4", "laptop")


def on(machine: str = "h200", **kw: object) -> Settings:
    base: dict[str, object] = {"machine": machine, "pair": "llama-8b-1b", "context": 512}
    return Settings(**(base | kw))


def timed_ms(file: str, model: str, way: str, key: str) -> float:
    """A committed H200 timing at batch 1, context 512, one token, read from its JSON."""
    rows = json.loads((FIGURES / file).read_text())["rows"]
    (hit,) = [
        r[key]
        for r in rows
        if (r["model"], r["way"], r["batch"], r["context"], r["s"]) == (model, way, 1, 512, 1)
    ]
    return float(hit) / 1e3


def fitted_exit_seconds(fit: Fit, batch: int = 1, context: int = 512) -> float:
    """The fitted pass model for the exit's 8 layers and head, one token of each sequence."""
    weights = 2.0 * EXIT_8B
    kv = batch * context * KV_EXIT
    out = (weights + kv) * fit.per_byte + 8 * fit.per_layer + weights * batch * fit.per_flop
    return max(out, 8 * fit.launch_per_layer)


def roofline_seconds(
    params: float, kv_per_token: float, machine: str, batch: int, ctx: int
) -> float:
    m = MACHINES[machine]
    memory = (2.0 * params + batch * ctx * kv_per_token) / m.bandwidth
    return max(memory, 2.0 * params * batch / m.flops)


# ------------------------------------------------------------------------------ its shape


def test_the_exit_is_the_first_quarter_of_the_target_as_the_tiny_target_exits() -> None:
    assert EXIT_SHARE == TARGET.exit_layer / TARGET.n_layers  # layer 1 of 4
    assert [exit_layers(p.target) for p in PAIRS.values()] == [8, 20, 6]
    cost = costing(on(models="early-exit"))
    assert cost.pair is not None
    draft = cost.pair.draft
    assert draft.layers == 8 and draft.kv_per_token == KV_EXIT
    # The card's 8.03 B is rounded: the layers' share of it is the config's within 0.01%.
    assert draft.params == pytest.approx(EXIT_8B, rel=1e-4)
    assert draft.label == "Llama 3.1 8B's first 8 layers and exit head"
    assert cost.pair.target == PAIRS["llama-8b-1b"].target


def test_the_exit_holds_its_head_beside_the_target_and_no_kv_cache_of_its_own() -> None:
    s = on("h100", models="early-exit", batch=4, context=1000)
    cost = costing(s)
    assert cost.weights_bytes == pytest.approx((LLAMA_8B + HEAD_8B) * 2)
    assert cost.kv_bytes == 4 * 1000 * KV_8B
    small = costing(s.model_copy(update={"models": "small-draft"}))
    assert small.weights_bytes == pytest.approx((LLAMA_8B + LLAMA_1B) * 2)
    assert small.kv_bytes == 4 * 1000 * (KV_8B + KV_1B)


# ------------------------------------------------------------- timed passes: depth counts


@pytest.mark.parametrize(
    ("stack", "file", "way", "key"),
    [
        ("graphs", "passes-grid.json", "own", "graph_ms"),
        ("compiled", "passes-compiled.json", "own-compiled", "graph_ms"),
        ("eager", "passes.json", "own", "eager_min_ms"),
    ],
)
def test_on_the_h200_the_exits_c_is_the_fits_price_of_its_layers(
    stack: str, file: str, way: str, key: str
) -> None:
    cost = costing(on(stack=stack, models="early-exit"))
    exit_s = fitted_exit_seconds(passes().fits[stack])
    # The target's step as timed (eager's made non-decreasing in s with the timings after it).
    target_s = timed_ms(file, "llama-3.1-8b", way, key)
    assert cost.plain_seconds == pytest.approx(target_s, rel=1e-9 if stack != "eager" else 0.05)
    assert cost.plain_seconds == costing(on(stack=stack)).plain_seconds
    assert cost.draft_seconds == pytest.approx(exit_s, rel=1e-4)
    assert cost.c == pytest.approx(exit_s / cost.plain_seconds, rel=1e-4)
    assert cost.provenance(5) == "fit"  # no exit was timed


def test_the_exits_c_on_the_h200_graphs_and_roofline_beside_the_1bs() -> None:
    graphs = costing(on(models="early-exit")).c
    roof = costing(on(stack="roofline", models="early-exit")).c
    one_b_graphs, one_b_roof = costing(on()).c, costing(on(stack="roofline")).c
    assert round(graphs, 3) == 0.286 and round(one_b_graphs, 3) == 0.315
    assert round(roof, 3) == 0.283 and round(one_b_roof, 3) == 0.155
    # Bytes alone call the exit (2.27 B) the dearer draft; its 8 layers to the 1B's 16 make
    # it the cheaper one where each layer costs its fixed time.
    assert roof > 1.8 * one_b_roof and graphs < one_b_graphs


def test_teeth_without_the_per_layer_term_the_exit_would_cost_far_less() -> None:
    fit = passes().fits["graphs"]
    target_s = timed_ms("passes-grid.json", "llama-3.1-8b", "own", "graph_ms")
    shallow = fitted_exit_seconds(fit.without("layer")) / target_s
    c = costing(on(models="early-exit")).c
    assert shallow < 0.55 * c  # 0.143 against 0.286: its 8 layers are half its time
    assert c - shallow > 0.1


# ------------------------------------------------------------------ roofline machines


@pytest.mark.parametrize("machine", [*DATASHEET, "h200"])
@pytest.mark.parametrize(("batch", "context"), [(1, 0), (1, 512), (64, 4096), (512, 0)])
def test_on_a_roofline_the_exits_c_is_its_bytes_or_flops_over_the_targets(
    machine: str, batch: int, context: int
) -> None:
    s = on(machine, stack="roofline", models="early-exit", batch=batch, context=context)
    exit_s = roofline_seconds(EXIT_8B, KV_EXIT, machine, batch, context)
    target_s = roofline_seconds(LLAMA_8B, KV_8B, machine, batch, context)
    assert costing(s).c == pytest.approx(exit_s / target_s, rel=1e-4)


def test_memory_bound_the_exits_c_is_its_share_of_the_bytes() -> None:
    c = costing(on("h100", models="early-exit")).c
    assert c == pytest.approx(
        (2 * EXIT_8B + 512 * KV_EXIT) / (2 * LLAMA_8B + 512 * KV_8B), rel=1e-4
    )


# ------------------------------------------------------- the draft model: prices unchanged


@pytest.mark.parametrize("machine", [*DATASHEET, "h200"])
@pytest.mark.parametrize("stack", ["graphs", "compiled", "eager", "roofline"])
@pytest.mark.parametrize(("batch", "context"), [(1, 512), (8, 2048), (128, 0)])
def test_ngram_and_small_draft_price_the_pairs_draft_model_as_before(
    machine: str, stack: str, batch: int, context: int
) -> None:
    s = on(machine, stack=stack, batch=batch, context=context, k=4)
    timed = stack_of(s)
    if timed is None:
        draft = roofline_seconds(LLAMA_1B, KV_1B, machine, batch, context)
        target = roofline_seconds(LLAMA_8B, KV_8B, machine, batch, context)
    else:
        pt = passes()
        draft = float(pt.seconds("llama-3.2-1b", timed, batch, context, 1))
        target = float(pt.seconds("llama-3.1-8b", timed, batch, context, 1))
    for models in ("ngram", "small-draft"):
        mine = s.model_copy(update={"models": models})
        cost = costing(mine)
        assert cost.c == pytest.approx(draft / target, rel=1e-12)
        assert cost.pair == PAIRS["llama-8b-1b"]
        assert price(mine) == price(s)
    assert costing(s.model_copy(update={"models": "early-exit"})).c != pytest.approx(
        draft / target, rel=1e-3
    )


@pytest.mark.parametrize("models", choices("models"))
def test_on_custom_c_is_the_sliders_whatever_models_draft(models: str) -> None:
    cost = costing(Settings(models=models, draft_cost=0.37))
    assert cost.c == 0.37 and cost.machine is None and price(Settings(models=models)) == 0.1


# ---------------------------------------------------------- a price is keyed on its models


def each_models_priced_as_its_own(pricing: Callable[[Settings], Costing]) -> bool:
    """Whether ``pricing``, asked for every models value in turn on the same machine state,
    answers each as a fresh (uncached) pricing does: a cache keyed without the models would
    answer the second with the first's draft."""
    for machine, stack in (("h200", "graphs"), ("h200", "eager"), ("h100", "roofline")):
        for models in (*choices("models"), "early-exit", "ngram"):
            s = on(machine, stack=stack, models=models)
            fresh = _on_machine.__wrapped__(
                s.machine, s.pair, s.models, s.batch, s.context, stack_of(s)
            )
            got = pricing(s)
            if got != fresh or got.c != fresh.c:
                return False
    return True


def test_a_price_cached_for_one_models_is_never_served_for_another() -> None:
    assert Affects.REQUEST in Settings.model_fields["models"].metadata
    assert each_models_priced_as_its_own(costing)
    # The app's priced keys (everything but the price) keep the models too.
    price_tags = (Affects.DRAFT_PRICE, Affects.PASS_PRICE, Affects.TIMING)
    ngram, exit_ = on(), on(models="early-exit")
    assert without(ngram, *price_tags) != without(exit_, *price_tags)
    # What is searched per pricing (the best k's prices) is the exit's own, not the draft's.
    exit_cost = costing(exit_)
    _search_prices(costing(ngram), 1)
    assert (_search_prices(exit_cost, 1) == _roofline_prices(exit_cost, 1, _SEARCH)).all()


def test_teeth_a_cache_keyed_on_the_pass_price_fields_alone_would_serve_the_wrong_draft() -> None:
    seen: dict[Settings, Costing] = {}
    others = (Affects.REQUEST, Affects.DRAFT_PRICE, Affects.TIMING)

    def keyed_without_models(s: Settings) -> Costing:
        return seen.setdefault(without(s, *others), costing(s))

    assert not each_models_priced_as_its_own(keyed_without_models)

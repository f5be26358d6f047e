"""Machine prices from passes timed on an H200 (witness.cost.passes) and what they do downstream.

The measured figures are read here straight from the committed JSON, not through the module,
so a price that drifted from the measurements fails; the fitted model's error is held to the
bounds docs/QUALITY.md states, and a twin without the per-layer term breaks them.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from witness import Settings, serve_request
from witness.core.theory import expected_speedup, speculation_pays
from witness.cost.costing import (
    MACHINES,
    any_k_pays,
    costing,
    passes,
    price,
    priced_optimum,
    scored_per_sequence,
)
from witness.cost.passes import FIGURES, Fit, fit_stack
from witness.judge.optimum import optimum_verdict
from witness.models.cache import RequestCache
from witness.serve.accounting import priced_cost

CACHE = RequestCache()
QUALITY = Path(__file__).parents[2] / "docs" / "QUALITY.md"

# The fit's stated error (docs/QUALITY.md, "Machine prices"): the largest relative error over
# every measured point of the stack, and over the three models' plain steps at batch 1.
STATED = {
    "graphs": {"all": 0.29, "batch_one": 0.16},
    "compiled": {"all": 0.03, "batch_one": 0.03},
    "eager": {"all": 0.32, "batch_one": 0.13},
}


def raw_ms(file: str, model: str, way: str, batch: int, context: int, s: int, key: str) -> float:
    """One committed measurement, read from its JSON file."""
    rows = json.loads((FIGURES / file).read_text())["rows"]
    (hit,) = [
        r[key]
        for r in rows
        if (r["model"], r["way"], r["batch"], r["context"], r["s"])
        == (model, way, batch, context, s)
    ]
    return float(hit)


def h200(stack: str = "graphs", **kw: object) -> Settings:
    base: dict[str, object] = {"machine": "h200", "pair": "llama-8b-1b", "context": 512}
    return Settings(**(base | {"stack": stack} | kw))


# ------------------------------------------------------------------------------ the figures


def test_the_committed_figures_load_with_their_provenance() -> None:
    pt = passes()
    counts = {st: sum(p.stack == st for p in pt.points) for st in ("graphs", "compiled", "eager")}
    assert counts["graphs"] >= 160 and counts["compiled"] == 6 and counts["eager"] >= 70
    for name in ("passes.json", "passes-grid.json", "passes-compiled.json"):
        env = json.loads((FIGURES / name).read_text())["env"]
        assert env["gpu"] == "NVIDIA H200" and env["torch"].startswith("2.11")
    readme = (FIGURES / "README.md").read_text()
    for fact in ("NVIDIA H200", "2026-12-04", "CUDA events", "driver", "PyTorch 2.11"):
        assert fact in readme
    assert all(p.seconds > 0 for p in pt.points)


@pytest.mark.parametrize("stack", ["graphs", "compiled", "eager"])
def test_the_fit_reproduces_every_measurement_within_its_stated_error(stack: str) -> None:
    pt = passes()
    errors = np.abs(pt.errors(stack))
    mine = [p for p in pt.points if p.stack == stack]
    batch_one = [
        e for p, e in zip(mine, errors, strict=True) if (p.batch, p.context, p.s) == (1, 512, 1)
    ]
    assert len(batch_one) == 3  # the 1B, the 8B and the 70B
    assert errors.max() <= STATED[stack]["all"]
    assert max(batch_one) <= STATED[stack]["batch_one"]


def test_quality_md_states_the_bounds_the_tests_hold() -> None:
    text = QUALITY.read_text()
    for stack, bound in STATED.items():
        assert f"| {stack} |" in text
        assert f"{bound['all'] * 100:.0f}%" in text


def test_teeth_without_the_per_layer_term_the_fit_breaks_its_bound() -> None:
    """Dropped, or refitted without it, a fixed cost per layer is what the batch-1 passes miss."""
    pt = passes()
    graphs = pt.fits["graphs"]
    mine = [p for p in pt.points if p.stack == "graphs"]
    one = [p for p in mine if (p.batch, p.context, p.s) == (1, 512, 1)]

    def worst(fit: Fit, points: list) -> float:  # type: ignore[type-arg]
        return max(
            abs(float(fit.seconds(pt.shapes[p.model], p.batch, p.context, p.s)) / p.seconds - 1)
            for p in points
        )

    assert worst(graphs, one) <= STATED["graphs"]["batch_one"]
    assert worst(graphs.without("layer"), one) > 0.5
    peak = Fit("datasheet", 1 / 4.8e12, 0.0, 1 / 989e12, 1 / 4.8e12)
    free = ("stream", "flop", "attention")
    no_layer = graphs.without("layer")
    refit = fit_stack("graphs", pt.points, pt.shapes, peak=peak, fixed=no_layer, free=free)
    assert refit.per_layer == 0.0
    assert worst(refit, one) > 2 * STATED["graphs"]["batch_one"]
    assert worst(refit, mine) > STATED["graphs"]["all"]


def test_a_measured_point_is_priced_at_its_measurement_and_between_them_by_the_fit() -> None:
    pt = passes()
    for p in pt.points:
        got = float(pt.seconds(p.model, p.stack, p.batch, p.context, p.s))
        assert got == pytest.approx(p.seconds, rel=1e-9)
        assert pt.provenance(p.model, p.stack, p.batch, p.context, p.s) == "measured"
    # s = 4 was not timed in the grid: it lies between s = 3 and s = 5, and says so.
    t = [float(pt.seconds("llama-3.1-8b", "graphs", 1, 512, s)) for s in (3, 4, 5)]
    assert t[0] <= t[1] <= t[2]
    assert pt.provenance("llama-3.1-8b", "graphs", 1, 512, 4) == "between"
    assert pt.provenance("llama-3.1-8b", "graphs", 256, 512, 5) == "beyond"
    assert pt.provenance("t5-xxl", "graphs", 1, 512, 5) == "fit"


# ------------------------------------------------------------------ the must-show numbers


@pytest.mark.parametrize(
    ("stack", "file", "way", "key", "c_issue"),
    [
        ("graphs", "passes.json", "own", "graph_ms", 0.32),
        ("compiled", "passes-compiled.json", "own-compiled", "graph_ms", 0.25),
        ("eager", "passes.json", "own", "eager_ms", 0.50),
    ],
)
def test_c_follows_the_shipped_measurements_at_batch_one(
    stack: str, file: str, way: str, key: str, c_issue: float
) -> None:
    target = raw_ms(file, "llama-3.1-8b", way, 1, 512, 1, key)
    draft = raw_ms(file, "llama-3.2-1b", way, 1, 512, 1, key)
    c = costing(h200(stack)).c
    assert c == pytest.approx(draft / target, rel=0.05)
    assert c == pytest.approx(c_issue, rel=0.05)
    # The roofline of the same machine is unchanged: the ratio of the weights.
    assert costing(h200("roofline", context=0)).c == pytest.approx(1.24 / 8.03, rel=1e-9)


@pytest.mark.parametrize(
    ("stack", "file", "way", "key"),
    [
        ("graphs", "passes.json", "own", "graph_ms"),
        ("compiled", "passes-compiled.json", "own-compiled", "graph_ms"),
        ("eager", "passes.json", "own", "eager_ms"),
    ],
)
def test_a_served_request_costs_what_the_measured_passes_cost(
    stack: str, file: str, way: str, key: str
) -> None:
    s = h200(stack, k=4)
    t = serve_request(s, cache=CACHE)
    scored = [b.scored for b in t.blocks if b.scored > 0]
    assert set(scored) <= {1, 2, 3, 4, 5}

    def ms(model: str, n: int) -> float:
        """The timing; where a run timed only s = 1 and 5 (compiled), a straight line
        between them (the shorter last block)."""
        try:
            return raw_ms(file, model, way, 1, 512, n, key)
        except ValueError:
            one, five = (raw_ms(file, model, way, 1, 512, x, key) for x in (1, 5))
            return one + (five - one) * (n - 1) / 4

    plain = ms("llama-3.1-8b", 1)
    by_hand = sum(ms("llama-3.1-8b", n) / plain for n in scored)
    by_hand += t.totals.draft_passes * ms("llama-3.2-1b", 1) / plain
    assert t.totals.cost_units == pytest.approx(by_hand, rel=0.06)
    assert t.totals.cost_units == pytest.approx(
        priced_cost(costing(s), scored, t.totals.draft_passes), rel=1e-12
    )
    # The roofline prices the same request lower: every pass is at its floor.
    roof = serve_request(h200("roofline", k=4), cache=CACHE).totals
    assert roof.cost_units < t.totals.cost_units


def test_at_batch_32_the_verifying_pass_costs_what_was_measured_there() -> None:
    cost = costing(h200(batch=32, k=4))
    measured = raw_ms("passes-grid.json", "llama-3.1-8b", "own", 32, 512, 5, "graph_ms") / raw_ms(
        "passes-grid.json", "llama-3.1-8b", "own", 32, 512, 1, "graph_ms"
    )
    assert cost.verify(5) == pytest.approx(measured, rel=1e-9)
    assert cost.verify(5) == pytest.approx(1.61, rel=0.03)  # passes.json's run: 1.61
    assert costing(h200("roofline", batch=32, k=4)).verify(5) == pytest.approx(1.0)
    assert cost.provenance(5) == "measured"


@pytest.mark.parametrize(
    ("stack", "best", "speedup"), [("graphs", 3, 1.46), ("compiled", 3, 1.65), ("eager", 2, 1.22)]
)
def test_the_best_k_under_measured_prices_is_smaller_than_the_rooflines(
    stack: str, best: int, speedup: float
) -> None:
    s, roof = h200(stack, k=5), h200("roofline", k=5)
    k_roof = priced_optimum(roof, 0.8, 16).k
    k = priced_optimum(s, 0.8, 16).k
    assert (k_roof, k) == (5, best) and k < k_roof
    assert float(expected_speedup(0.8, k_roof, price(roof, k_roof))) == pytest.approx(
        2.08, abs=0.01
    )
    assert float(expected_speedup(0.8, k, price(s, k))) == pytest.approx(speedup, abs=0.03)


def test_datasheet_machines_keep_the_roofline_whatever_the_stack() -> None:
    for m in MACHINES.values():
        if m.measured:
            continue
        a = costing(Settings(machine=m.id, stack="graphs", batch=8, context=2048))
        b = costing(Settings(machine=m.id, stack="roofline", batch=8, context=2048))
        assert a == b and not a.measured


# ------------------------------------------------------------------- no k pays, measured


def test_measured_prices_can_fall_with_k_so_any_k_is_searched() -> None:
    """At batch 32 the second token of a verifying pass costs most (another attention kernel):
    k = 1 does not pay at α = 0.8 while k = 4 does."""
    s = h200(batch=32, k=4)
    assert price(s, 4) < price(s, 1)
    assert not speculation_pays(0.8, price(s, 1))  # the k = 1 rule alone would say none pays
    assert float(expected_speedup(0.8, 4, price(s, 4))) > 1.0
    assert any_k_pays(s, 0.8)
    verdict = optimum_verdict(0.8, s, priced_optimum(s, 0.8, 16))
    assert verdict.mode != "none_pays" and verdict.best > 1.0


def test_teeth_the_k_one_rule_would_call_that_state_none_pays() -> None:
    s = h200(batch=32, k=4)
    assert speculation_pays(0.8, price(s, 1)) != any_k_pays(s, 0.8)


@pytest.mark.parametrize("batch", [1, 8, 64])
def test_measured_any_k_pays_is_the_search_over_every_k(batch: int) -> None:
    for alpha in (0.05, 0.3, 0.5, 0.8, 0.95):
        s = h200(batch=batch)
        best = max(float(expected_speedup(alpha, k, price(s, k))) for k in range(1, 65))
        assert any_k_pays(s, alpha) == (best > 1.0)


def test_a_tree_on_measured_passes_prices_every_node() -> None:
    s = h200(k=3, tree_width=2)
    scored = scored_per_sequence(s)
    assert scored == 1 + 2 + 4 + 8
    assert costing(s).verify(scored) > costing(s).verify(4)

"""Speculation against batch size (app/station/views/batch_chart.py) and the cost control's lines.

Every number and every sentence is checked against the witness's own formula and prices,
recomputed here (`witness.cost.costing`, `witness.core.theory`), never read back from the view.
"""

from __future__ import annotations

import pytest

from app.station.views import fmt
from app.station.views.batch_chart import _at_k, _memory, batch_view
from app.station.views.controls import cost_lines
from app.words import Sentence
from tests.app.view_models import WITNESS, page_view
from witness import Settings
from witness.core.settings import max_depth
from witness.core.theory import expected_speedup, speculation_pays
from witness.cost.batching import (
    BATCH_MAX,
    BATCHES,
    batch_table,
    largest_fitting_batch,
    speedup_at,
    stops_paying,
)
from witness.cost.costing import costing, price, priced_optimum, scored_per_sequence


def on(machine: str = "h100", pair: str = "llama-8b-1b", **kw: object) -> Settings:
    return Settings(machine=machine, pair=pair, **kw)


def priced(s: Settings, alpha: float, batch: int, k: int | None = None) -> float:
    sb = s.model_copy(update={"batch": batch})
    depth = s.k if k is None else k
    return float(expected_speedup(alpha, depth, price(sb, depth)))


STATES = [
    (on(match=0.9, k=4), 0.9),
    (on(match=0.9, k=4, batch=256), 0.9),
    (on(k=7, context=2048, batch=100), 0.6),
    (on("a100", "llama-70b-8b", k=5, context=8192), 0.75),
    (on("laptop", "t5-xxl-small", k=3), 0.5),
    (on("l4", tree_width=2, k=3, batch=16), 0.7),
    (on(draft_source="adversary", match=0.0), 0.0001),
]


@pytest.mark.parametrize(("s", "alpha"), STATES)
def test_the_table_and_chart_are_the_witness_numbers(s: Settings, alpha: float) -> None:
    view = batch_view(s, alpha)
    assert [r.batch for r in view.rows] == list(BATCHES) == [2**i for i in range(10)]
    k_max = max_depth(s.tree_width)
    for row in view.rows:
        sb = s.model_copy(update={"batch": row.batch})
        cost = costing(sb)
        assert row.speedup == fmt.speedup(priced(s, alpha, row.batch))
        assert row.speedup == fmt.speedup(speedup_at(s, alpha, row.batch))
        best = priced_optimum(sb, alpha, k_max)
        speeds = [priced(s, alpha, row.batch, k) for k in range(1, k_max + 1)]
        assert row.best_k == best.k == 1 + speeds.index(max(speeds))
        assert row.best_speedup == fmt.speedup(max(speeds))
        assert row.price == f"{price(sb):.3f}"
        assert row.plain_ms == f"{cost.plain_seconds * 1e3:.2f}"
        assert row.fits == cost.fits
        assert row.current == (row.batch == s.batch)
    # The witness's own table (`witness.cost.batching`, what the JSON API serves) says the same.
    table = batch_table(s, alpha)
    assert [fmt.speedup(p.speedup) for p in table.points] == [r.speedup for r in view.rows]
    assert [p.best_k for p in table.points] == [r.best_k for r in view.rows]
    assert (table.stops_paying, table.none_pays) == stops_paying(s, alpha)
    # One point per row for each curve; the best k's curve never under the current k's.
    assert len(view.at_k) == len(view.best) == len(view.rows)
    assert all(b.y <= a.y + 1e-9 for a, b in zip(view.at_k, view.best, strict=True))


def test_the_page_draws_it_at_the_stations_alpha() -> None:
    v = page_view("/station?pred=skip&machine=h100&match=0.9&batch=64")
    assert v.batch == batch_view(v.settings, WITNESS.ensemble(v.settings).alpha)
    assert any(r.current for r in v.batch.rows)  # type: ignore[union-attr]
    # Behind the prediction, no chart yet.
    assert page_view("/station?machine=h100&match=0.9").batch is None


@pytest.mark.parametrize(("s", "alpha"), STATES)
def test_stops_paying_is_a_threshold(s: Settings, alpha: float) -> None:
    here, none = stops_paying(s, alpha)
    speeds = [speedup_at(s, alpha, b) for b in range(1, BATCH_MAX + 1)]
    pays_any = [
        speculation_pays(alpha, price(s.model_copy(update={"batch": b}), 1))
        for b in range(1, BATCH_MAX + 1)
    ]
    if here is None:
        assert all(x > 1.0 for x in speeds)
    else:
        assert speeds[here - 1] <= 1.0
        assert here == 1 or speeds[here - 2] > 1.0
        # ... and it never pays again further on (a threshold, not one dip).
        assert all(x <= 1.0 for x in speeds[here - 1 :])
    if none is None:
        assert all(pays_any)
    else:
        assert not any(pays_any[none - 1 :]) and all(pays_any[: none - 1])
        # When no k pays, the current k does not either.
        assert here is not None and here <= none


# ----------------------------------------------------------------------------- the summary


def test_custom_says_the_batch_changes_nothing() -> None:
    view = batch_view(Settings(batch=256, context=4096), 0.8)
    assert not view.rows and "the batch changes nothing" in view.summary
    assert "choose a machine" in view.summary


def test_verify_off_has_no_verifying_pass_to_price() -> None:
    view = batch_view(on(verify=False, batch=256), 0.8)
    assert not view.rows and "Target verification is off" in view.summary


def test_a_state_that_pays_at_every_batch_says_so() -> None:
    # A long context keeps every pass memory-bound at every batch: v = 1 and the price is c.
    s = on(match=0.9, k=4, context=32_768)
    assert all(costing(s.model_copy(update={"batch": b})).verify(5) == 1.0 for b in BATCHES)
    assert stops_paying(s, 0.9) == (None, None)
    words = batch_view(s, 0.9).summary
    # ... yet past a few batches their KV cache outgrows the 80 GB: the headline says so.
    fits = largest_fitting_batch(s)
    assert 0 < fits < BATCH_MAX
    assert f"k = 4 pays at every batch that fits in memory (up to {fits})" in words
    assert f"only batches up to {fits} fit in the 80 GB of memory" in words
    assert f"k = 4 pays at every batch up to {BATCH_MAX}." not in words
    assert "Some k pays at every batch in the range" in words
    assert "stops paying" not in words and "no k pays" not in words


def test_a_state_that_stops_paying_names_the_batch_and_the_numbers() -> None:
    s = on(match=0.9, k=4)
    here, none = stops_paying(s, 0.9)
    assert here is not None and none is not None and 1 < here <= none <= BATCH_MAX
    words = batch_view(s, 0.9).summary
    before, after = priced(s, 0.9, here - 1), priced(s, 0.9, here)
    assert before > 1.0 >= after
    assert (
        f"k = 4 stops paying from batch {here} ({before:.3f}× at {here - 1}, "
        f"{after:.3f}× at {here})"
    ) in words
    # Past there the verifying pass is compute-bound: that is the reason given.
    assert costing(s.model_copy(update={"batch": here})).verify(5) > 1.0
    assert "compute-bound" in words
    k1 = price(s.model_copy(update={"batch": none}), 1)
    assert 0.9 <= k1 < price(s.model_copy(update={"batch": none - 1}), 1) + 1.0
    assert f"From batch {none} no k pays (α = 0.900 ≤ k = 1's price per draft, {k1:.3f})" in words
    assert f"at batch 1, k = 4 gives {fmt.speedup(priced(s, 0.9, 1))}" in words


def test_a_draft_that_never_agrees_does_not_pay_even_at_batch_1() -> None:
    s = on(draft_source="adversary", match=0.0)
    alpha = WITNESS.ensemble(s).alpha
    assert alpha < costing(s).c
    words = batch_view(s, alpha).summary
    assert "does not pay even at batch 1" in words and "No k pays at any batch" in words


# ------------------------------------------------------------------------------ the context


@pytest.mark.parametrize(
    ("batch", "context", "direction"),
    [(1, 8192, "lowers"), (1, 131_072, "lowers"), (128, 2048, "raises"), (256, 4096, "raises")],
)
def test_the_context_note_says_which_way_the_context_moves_the_win(
    batch: int, context: int, direction: str
) -> None:
    s = on(match=0.9, k=4, batch=batch, context=context)
    bare = s.model_copy(update={"context": 0})
    with_kv, without = priced(s, 0.9, batch), priced(bare, 0.9, batch)
    assert (with_kv > without) == (direction == "raises")  # the cases are what they claim
    note = batch_view(s, 0.9).context_note
    assert f"{direction} the speedup from {fmt.speedup(without)} to {fmt.speedup(with_kv)}" in note
    assert ("raises" in note) == (with_kv > without)
    assert ("lowers" in note) == (with_kv < without)
    assert f"{costing(s).plain_seconds * 1e3:.2f} ms instead of" in note
    assert f"{costing(bare).plain_seconds * 1e3:.2f} ms" in note


def test_no_context_says_none_is_read() -> None:
    note = batch_view(on(batch=64), 0.9).context_note
    assert note.startswith("No context is read here.")


# -------------------------------------------------------------------------- the cost control


@pytest.mark.parametrize(
    "s",
    [
        on(),
        on(batch=128, k=4),
        on("a100", "llama-70b-8b", context=4096, batch=8),
        on("l4", "llama-70b-8b"),
        on("laptop", "t5-xxl-small", tree_width=2, k=3),
        on(batch=512, context=8192),
        on(draft_source="lookup", batch=64),
    ],
)
def test_the_cost_lines_name_the_derived_c_and_what_fits(s: Settings) -> None:
    cost = costing(s)
    lines = cost_lines(s)
    text = " ".join(lines)
    if s.draft_source == "lookup":  # no draft model runs: no draft pass, and its c is 0
        assert "no draft pass is paid (c = 0)" in text and "T_draft" not in text
    else:
        assert f"c = T_draft / T_target = {cost.c:.3f}" in text
    assert f"c + (v − 1)/k = {price(s):.3f}" in text
    assert f"{cost.plain_seconds * 1e3:.3f} ms" in text
    assert any("does not fit" in line for line in lines) == (not cost.fits)
    scored = scored_per_sequence(s)
    assert f"scores {scored} tokens of each sequence ({s.batch * scored} in all)" in text
    assert f"{cost.verify(scored):.2f} plain steps" in text
    assert ("still memory-bound" in text) == (cost.verify(scored) <= 1.0 + 1e-9)


def test_custom_cost_lines_name_the_sliders_c() -> None:
    (line,) = cost_lines(Settings(draft_cost=0.3))
    assert "the slider's c = 0.30" in line and "change nothing" in line
    (copied,) = cost_lines(Settings(draft_source="lookup"))
    assert "prompt lookup runs no draft model" in copied


def test_the_page_shows_the_cost_lines_and_sources() -> None:
    v = page_view("/station?pred=skip&machine=l4&pair=llama-70b-8b")
    cv = v.controls.cost
    assert cv.lines == cost_lines(v.settings) and cv.open
    assert any("does not fit" in line for line in cv.lines)
    assert "NVIDIA L4 datasheet" in cv.source and "70.6 B parameters" in cv.source
    custom = page_view("/station?pred=skip").controls.cost
    assert not custom.open and custom.source == ""


# ------------------------------------------------------------ the H200's timed passes

TIMED = [
    (on("h200", k=4, context=512), 0.8),
    (on("h200", k=6, stack="compiled"), 0.9),
    (on("h200", k=3, stack="eager", batch=32), 0.7),
    (on("h200", "llama-70b-8b", k=5, context=2048), 0.75),
]


@pytest.mark.parametrize(("s", "alpha"), TIMED)
def test_on_timed_passes_no_k_pays_where_no_k_in_range_does(s: Settings, alpha: float) -> None:
    """Timed prices can fall with k, so "no k pays" is every k of the range, not k = 1."""
    here, none = stops_paying(s, alpha)
    ks = range(1, max_depth(s.tree_width) + 1)

    def any_pays(b: int) -> bool:
        return any(priced(s, alpha, b, k) > 1.0 for k in ks)

    pays = [any_pays(b) for b in range(1, BATCH_MAX + 1, 7)]
    first = next((b for b, p in zip(range(1, BATCH_MAX + 1, 7), pays, strict=True) if not p), None)
    if none is None:
        assert all(pays)
    else:
        assert not any_pays(none) and (none == 1 or any_pays(none - 1))
        assert first is None or first >= none - 6
    if here is not None:
        assert priced(s, alpha, here) <= 1.0


@pytest.mark.parametrize(("s", "alpha"), TIMED)
def test_the_batch_view_draws_the_timed_pass_beside_the_rooflines(
    s: Settings, alpha: float
) -> None:
    v = batch_view(s, alpha)
    assert v.passes is not None and not v.floor
    scored = scored_per_sequence(s)
    roofline = s.model_copy(update={"stack": "roofline"})
    for (b, timed, roof), m, r in zip(
        v.passes.rows, v.passes.measured, v.passes.roofline, strict=True
    ):
        at = {"batch": b}
        assert timed == f"{costing(s.model_copy(update=at)).verify(scored):.2f}"
        assert roof == f"{costing(roofline.model_copy(update=at)).verify(scored):.2f}"
        assert f"batch {b}: {timed} plain steps" in m.label
        assert f"batch {b}: {roof} plain steps (roofline)" in r.label
    assert f"verifying {scored} tokens" in v.passes.title
    assert v.passes.note.key == "batch.passes.note"
    assert v.passes.note.values["m_first"] == v.passes.rows[0][1]


def test_the_roofline_machines_say_they_are_a_floor_with_the_timed_h200_numbers() -> None:
    timed = costing(on("h200", context=512, k=4))
    for s in (on(k=4), on("l4", "t5-xxl-small"), on("h200", stack="roofline")):
        v = batch_view(s, 0.8)
        assert v.passes is None or s.machine == "h200"
        floor = v.floor
        assert isinstance(floor, Sentence) and floor.key == "batch.floor.line"
        assert floor.values["c_timed"] == f"{timed.c:.2f}"
        assert float(str(floor.values["v_many"])) > float(str(floor.values["v_one"])) > 1.0


# ------------------------------------------------------------------ what fits in memory


@pytest.mark.parametrize(
    ("s", "fits"),
    [
        (on("l4", "llama-70b-8b", batch=64, context=2048), 0),  # 70B weights alone outgrow 24 GB
        (on("l4", context=8192), None),  # some batches fit, not all
        (on(), BATCH_MAX),  # no context: every batch fits
    ],
)
def test_the_batch_headline_accounts_for_memory(s: Settings, fits: int | None) -> None:
    table = batch_table(s, 0.8)
    up_to = largest_fitting_batch(s)
    assert table.fits_up_to == up_to
    if fits is not None:
        assert up_to == fits
    # A threshold, and the table's rows agree with it.
    for p in table.points:
        assert p.fits == (p.batch <= up_to)
    head = _at_k(s, 0.8, table)
    memory = _memory(s, table)
    if up_to == 0:
        assert head.key in (
            "batch.summary.at_k.no_fit",
            "batch.summary.at_k.stops",
            "batch.summary.at_k.never",
        )
        assert head.key != "batch.summary.at_k.every_batch"
        assert isinstance(memory, Sentence) and memory.key == "batch.summary.memory.none"
    elif up_to < BATCH_MAX:
        assert head.key != "batch.summary.at_k.every_batch"
        assert isinstance(memory, Sentence) and memory.values["fits"] == up_to
    else:
        assert memory == ""
    if table.stops_paying is None and up_to < BATCH_MAX:
        assert head.key in ("batch.summary.at_k.no_fit", "batch.summary.at_k.every_fitting")

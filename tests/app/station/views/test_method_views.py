"""The methods beside the chain, as the panels show them: the sweep's widths and range, the
slice's methods table, the readout's scored tokens, the worksheet's drafting row.

Each figure shown is held to the witness's own numbers, computed here from the services.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.station.state.query import FieldProblem, decode_base, encode_base
from app.station.views import fmt
from app.station.views.gates import narration
from tests.app.view_models import WITNESS, page_view, state_of
from witness import Settings
from witness.core.settings import max_depth, tree_nodes
from witness.judge.sweep import K_MAX
from witness.serve.check import EXACT


@pytest.mark.parametrize(
    "query",
    ["tree_width=2", "tree_width=3&k=3&drafting=top", "tree_width=4&k=2", "acceptance=typical"],
)
def test_the_sweep_stops_at_the_widths_deepest_k_and_lists_each_width(query: str) -> None:
    v = page_view(f"/station?pred=skip&{query}")
    s, chart = v.settings, v.sweep
    assert chart is not None
    sweep = WITNESS.sweep(s)
    assert sweep.k_max == max_depth(s.tree_width)
    assert [p.k for p in sweep.points] == list(range(1, sweep.k_max + 1))
    assert len(chart.x_ticks) == sweep.k_max
    if sweep.k_max < K_MAX:
        assert f"at most k = {sweep.k_max} deep" in chart.summary
    # Every width that fits at this k is listed, each one request on this seed.
    fits = [w for w in range(1, 5) if tree_nodes(w, s.k) <= 64]
    assert [int(row[0]) for row in chart.widths] == fits
    for row, point in zip(chart.widths, sweep.widths, strict=True):
        one = WITNESS.trace(s.model_copy(update={"tree_width": point.width})).totals
        assert row[4] == fmt.speedup(one.speedup_measured)
        assert point.draft_passes == one.draft_passes
        assert point.scored_per_pass == one.scored_per_pass
    assert "one request per width" in chart.widths_note


def test_teeth_a_sweep_past_the_width_would_be_caught() -> None:
    """The chain's sweep runs to k = 16; a width-2 tree's must not (the check above fails
    on a sweep that ignores the width)."""
    chain = WITNESS.sweep(Settings())
    assert chain.k_max == K_MAX and len(chain.points) == K_MAX != max_depth(2)


def test_prompt_lookup_has_no_widths_and_no_cost_in_its_sweep() -> None:
    v = page_view("/station?pred=skip&draft_source=lookup")
    assert v.sweep is not None and v.sweep.widths == ()
    assert "c does not enter" in v.sweep.summary
    assert "pays while c <" not in v.sweep.summary


@pytest.mark.parametrize("query", ["", "tree_width=2&repair=off", "acceptance=typical&verify=off"])
def test_the_slice_judges_every_method_from_its_exact_law(query: str) -> None:
    v = page_view(f"/station?pred=skip&slice=1&{query}")
    assert v.slice is not None
    checks = WITNESS.slice(v.settings).methods
    assert [m.method for m in checks] == ["tree", "typical", "lookup"]
    for row, m in zip(v.slice.methods, checks, strict=True):
        assert row.keeps == (m.tv_exact <= EXACT)
        assert row.verdict.startswith("keeps p") == row.keeps
        assert row.tv_exact == fmt.distance(m.tv_exact)
        assert row.lossless == ("lossless" if m.lossless else "not lossless")
    typical = next(m for m in checks if m.method == "typical")
    assert not typical.lossless and typical.tv_exact > EXACT  # Medusa's shortcut fails p here
    for m in checks:
        kept = "keeps p" if m.tv_exact <= EXACT else f"exact TV {fmt.distance(m.tv_exact)}"
        assert f"{m.label}: {fmt.speedup(m.speedup_expected)} by the formula" in (
            v.slice.methods_summary
        )
        assert kept in v.slice.methods_summary


def test_the_quick_check_follows_the_states_own_method() -> None:
    typical = WITNESS.quick_check(Settings(acceptance="typical"))
    chain = WITNESS.quick_check(Settings())
    assert typical.tv_exact > EXACT and not typical.keeps_target
    assert chain.tv_exact <= EXACT


def test_the_readout_shows_what_a_wider_pass_scores() -> None:
    v = page_view("/station?pred=skip&tree_width=2")
    assert v.readout is not None
    scored = {r.testid: r for r in v.readout.readings}["readout-scored"]
    t = v.trace.totals
    assert t.scored_per_pass is not None and scored.value == f"{t.scored_per_pass:.1f}"
    assert f"{t.drafted_tokens} drafted tokens" in scored.note
    chain = page_view("/station?pred=skip")
    assert chain.readout is not None
    assert "readout-scored" not in {r.testid for r in chain.readout.readings}


def test_the_worksheet_names_the_method(client: TestClient) -> None:
    tree = client.get("/station/worksheet?pred=skip&tree_width=2&acceptance=typical")
    assert tree.status_code == 200
    assert "a tree 2 wide (sample drafting), typical acceptance (not lossless)" in tree.text
    chain = client.get("/station/worksheet?pred=skip")
    assert "<dt>Drafting</dt>" not in chain.text and "<dt>Drafting</dt>" in tree.text


def test_a_predictions_base_records_the_drafting_and_old_links_read_as_the_chain() -> None:
    tree = Settings(tree_width=3, k=3, drafting="top")
    assert encode_base(tree) == "0.6,3,0.1,1,1,0,3,top,exact,model"
    assert encode_base(Settings()) == "0.6,4,0.1,1,1,0"  # a chain's base is as it always was
    problems: list[FieldProblem] = []
    assert decode_base(encode_base(tree), Settings(), problems) == tree and not problems
    # A link made before trees existed: six fields, the chain, even on a tree page now
    # (k = 4 with width 3 would be refused if the base took the page's width).
    state = state_of("/station?pred=skip&base=0.6,4,0.1,1,1,0&tree_width=3&k=3")
    assert not state.problems and state.prediction is not None
    assert state.prediction.base == Settings()
    # Teeth: a refused drafting in the base is reported, never silently used.
    state = state_of("/station?pred=skip&base=0.6,4,0.1,1,1,0,2,greedy,exact,model")
    assert [p.field for p in state.problems] == ["base"]


@pytest.mark.parametrize(
    "query",
    [
        "tree_width=2",
        "tree_width=2&drafting=top&repair=off",
        "acceptance=typical",
        "tree_width=2&verify=off",
        "draft_source=lookup&prompt=the+draft+model+proposes+the+draft+model",
    ],
)
def test_the_live_narration_walks_every_sibling_tested(query: str) -> None:
    """The aria-live sentence of a tree's block names each sibling tested, with the test it
    met (u against p′/q′, or p(x) against typical's bar), and never a repair that did not
    happen; a lookup block with nothing to copy says so, not 'one token left'."""
    v = page_view(f"/station?pred=skip&{query}")
    for block in v.trace.blocks:
        words = narration(block, v.settings)
        for level in block.levels:
            for sib in level.siblings:
                if sib.accepted is not None:
                    assert f"'{sib.word}' {'stood' if sib.accepted else 'rejected'}" in words
        if v.settings.acceptance == "typical":
            assert "u = " not in words and "residual gave" not in words
        if not block.drafts and block.start + 1 < v.settings.tokens:
            assert "Nothing earlier to copy" in words and "One token left" not in words

"""What the cost panel and the pricing sentences say of the draft with ``models=early-exit``:
the draft named is the target's first layers and exit head, with its own parameters and c.

The sentences are checked by key and values (`app.words.Sentence`), never by their copy.
"""

from __future__ import annotations

import pytest

from app.station.views.controls import cost_lines
from app.station.views.pricing import cost_now, measured_gap
from app.words import Sentence
from witness import Settings
from witness.cost.costing import PAIRS, costing, price


def exit_on(machine: str, **kw: object) -> Settings:
    return Settings(machine=machine, context=512, models="early-exit", **kw)


def said(lines: tuple[str, ...], key: str) -> Sentence:
    (hit,) = [s for s in lines if isinstance(s, Sentence) and s.key == key]
    return hit


@pytest.mark.parametrize("machine", ["h200", "h100", "laptop"])
def test_the_cost_panel_names_the_early_exit_as_the_draft(machine: str) -> None:
    setup = said(cost_lines(exit_on(machine)), "controls.cost.setup")
    assert setup.values["draft"] == "Llama 3.1 8B's first 8 layers and exit head"
    assert setup.values["draft_params"] == "2.27"  # 8 layers of 218 M and a 525 M head
    assert setup.values["target"] == PAIRS["llama-8b-1b"].target.label
    plain = said(cost_lines(Settings(machine=machine, context=512)), "controls.cost.setup")
    assert plain.values["draft"] == "Llama 3.2 1B"  # ngram: the pair's draft model


def test_on_timed_passes_the_exit_is_said_to_be_priced_by_the_fit() -> None:
    s = exit_on("h200")
    measured = said(cost_lines(s), "controls.cost.measured.plain")
    provenance = measured.values["provenance"]
    assert isinstance(provenance, Sentence) and provenance.key == "controls.cost.provenance.fit"
    draft = measured.values["draft"]
    assert isinstance(draft, Sentence)
    assert draft.values["c"] == f"{costing(s).c:.3f}" == "0.286"


def test_the_price_per_draft_and_the_measured_gap_name_the_exits_c() -> None:
    s = exit_on("h200")
    c, c_roof = costing(s).c, costing(s.model_copy(update={"stack": "roofline"})).c
    now = cost_now(s)
    assert now.values["c"] == f"{c:.2f}" and now.values["price"] == f"{price(s):.2f}"
    gap = measured_gap(0.8, s, 16)
    assert isinstance(gap, Sentence) and gap.key == "sweep.measured.same"
    why = gap.values["why"]
    assert isinstance(why, Sentence) and why.key == "sweep.measured.why.both"
    draft = why.values["draft"]
    assert isinstance(draft, Sentence)
    # The exit's c against the exit's roofline, not the 1B's (0.31 timed, 0.15 roofline).
    assert (
        draft.values
        == {"c": f"{c:.2f}", "c_roof": f"{c_roof:.2f}"}
        == {"c": "0.29", "c_roof": "0.28"}
    )

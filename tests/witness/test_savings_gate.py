"""The savings gate (`witness.judge.verdict.savings_gate`): holds, fails or is undecided as
the ensemble's interval lies above, below or around 1; void without verification; fails when
nothing is drafted. Each state's ensemble is computed here, never a frozen figure."""

from __future__ import annotations

import pytest

from witness import Settings
from witness.core.theory import break_even_cost
from witness.cost.costing import costing
from witness.judge.ensemble import Estimate
from witness.judge.expected import ensemble_of
from witness.judge.verdict import savings_gate

# Around the break-even of k = 3 at two matches, served (repair off) and exact: every
# status the gate can give while it judges, the undecided ones included.
GRID = [
    Settings(match=m, draft_cost=c, k=3, repair=repair)
    for repair in (False, True)
    for m in (0.3, 0.5)
    for c in (0.2, 0.3, 0.4, 0.5)
]


def interval_rule(est: Estimate) -> str:
    if est.ci_low > 1.0:
        return "holds"
    if est.ci_high < 1.0:
        return "fails"
    return "undecided"


def mean_rule(est: Estimate) -> str:
    """The broken rule: a mean above 1 is not a speedup beyond noise."""
    return "holds" if est.mean > 1.0 else "fails"


@pytest.fixture(scope="module")
def judged() -> list[tuple[Settings, Estimate, str]]:
    out = []
    for s in GRID:
        ens = ensemble_of(s)
        gate = savings_gate(ens, s)
        assert gate.reason == "judged" and gate.speedup == ens.speedup(costing(s))
        out.append((s, gate.speedup, gate.status))
    return out


def test_the_gate_follows_the_interval(judged: list[tuple[Settings, Estimate, str]]) -> None:
    assert {status for _, _, status in judged} == {"holds", "fails", "undecided"}
    for s, est, status in judged:
        assert status == interval_rule(est), s


def test_teeth_a_rule_on_the_mean_alone_disagrees(
    judged: list[tuple[Settings, Estimate, str]],
) -> None:
    assert any(mean_rule(est) != status for _, est, status in judged)


def test_break_even_measured_and_by_the_formula() -> None:
    s = Settings(match=0.5, draft_cost=0.3, k=3)
    ens = ensemble_of(s)
    gate = savings_gate(ens, s)
    assert gate.break_even_formula == float(break_even_cost(ens.alpha, 3))
    assert gate.break_even_measured == ens.break_even_cost()
    # At the measured break-even the ensemble's speedup is 1.
    assert gate.break_even_measured is not None
    at = s.model_copy(update={"draft_cost": gate.break_even_measured})
    assert ens.speedup(costing(at)).mean == pytest.approx(1.0, rel=1e-9)


@pytest.mark.parametrize(
    ("s", "status", "reason"),
    [
        (Settings(verify=False), "void", "verify off"),
        (Settings(verify=False, draft_source="lookup"), "void", "verify off, copying"),
        (Settings(tokens=1), "fails", "nothing drafted"),
    ],
)
def test_a_gate_decided_before_any_speedup(s: Settings, status: str, reason: str) -> None:
    gate = savings_gate(ensemble_of(s), s)
    assert (gate.status, gate.reason) == (status, reason)
    assert gate.speedup is None and gate.break_even_measured is None


def test_lookup_has_no_measured_break_even() -> None:
    s = Settings(draft_source="lookup")
    gate = savings_gate(ensemble_of(s), s)
    assert gate.reason == "judged" and gate.break_even_measured is None

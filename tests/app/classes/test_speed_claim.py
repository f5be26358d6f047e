"""One verdict on a speed claim: the station's savings gate and the live class's reveal take
it from the same function, so a faster run where correctness fails is the trap, never
"faster", on the station and on the projector alike."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.classes.contract import CLASS_INTERVENTIONS, CLASS_PRESETS
from app.classes.views import Said, reveal_view, snapshot, witnessed
from app.contract.route import Intervention
from app.station.state.interventions import apply_intervention
from app.station.state.presets import BY_ID
from app.station.state.query import encode_base, parse_state
from app.station.views.classroom import preset_state
from app.station.views.gates import GATE_MARKS, invariant_view, speed_claim
from app.station.views.station import live_view
from app.words import Sentence
from tests.app.view_models import APP, WITNESS
from witness import Settings
from witness.judge.verdict import speed_verdict, unearned


def _row(preset: str, intervention: Intervention):  # type: ignore[no-untyped-def]
    """The reveal's row for one learner who chose ``intervention`` expecting it faster."""
    snap = snapshot("ABC234", preset, True, {intervention.value: (Said(1), Said(1))})
    (row,) = reveal_view(snap, WITNESS).rows
    return row


def _part(sentence: Sentence, name: str) -> Sentence:
    inner = sentence.values[name]
    assert isinstance(inner, Sentence), (name, inner)
    return inner


def test_skipping_verification_is_the_trap_not_faster_in_the_reveal() -> None:
    """At the well-matched preset skipping verification runs faster (the draft alone): the
    reveal says that is not a speedup, marks "no" for "faster?" and never draws ▲."""
    w = witnessed("well-matched", Intervention.SKIP_VERIFY, WITNESS)
    assert w.change == "faster"  # the run is faster: that is what makes it a trap
    row = _row("well-matched", Intervention.SKIP_VERIFY)
    assert row.verdict == "void"
    truth = _part(row.faster_sentence, "truth")
    assert truth.key == "classes.truth.unearned.faster"
    assert "not a speedup" in truth and "the draft model's own" in truth
    assert "not kept" in truth  # the distribution is lost here
    assert "it was faster" not in row.faster_sentence
    faster_chart, kept_chart = row.answers
    assert faster_chart.right == "no"
    assert faster_chart.station.startswith(GATE_MARKS["void"])
    assert "▲" not in faster_chart.station
    assert kept_chart.right == "no" and kept_chart.station.startswith("✗")
    speed = _part(row.station, "speed")
    assert speed.key == "classes.speed.unearned.faster" and "not a speedup" in row.station


@pytest.mark.parametrize("preset", [p.id for p in CLASS_PRESETS])
def test_the_reveal_and_the_station_s_gate_give_one_verdict(preset: str) -> None:
    """For every intervention of every class question: the reveal's row is void exactly where
    the station's savings gate at the state after it is void, and says the same why."""
    base = BY_ID[preset].settings
    for intervention in CLASS_INTERVENTIONS:
        after = apply_intervention(base, intervention)
        trace, ens = WITNESS.trace(after), WITNESS.ensemble(after)
        gate = invariant_view(trace, ens, after).savings
        w = witnessed(preset, intervention, WITNESS)
        assert w.claim.status == gate.status, (preset, intervention)
        assert w.claim.sentence == gate.sentence
        row = _row(preset, intervention)
        assert (row.verdict == "void") == (gate.status == "void"), (preset, intervention)
        if gate.status == "void":
            assert row.answers[0].right == "no"
            assert _part(row.faster_sentence, "truth").values["why"] == w.claim.why
        else:
            assert row.verdict == w.change
        # Correctness first: a state whose exact check loses p earns no speedup.
        if not trace.check.keeps_target:
            assert gate.status == "void" and not gate.holds


# States in every mode the station has: each claim's words are true of its state.
MODES = {
    "lossless": {},
    "verify off": {"verify": False},
    "verify off, p = q": {"verify": False, "match": 1.0},
    "verify off, greedy": {"verify": False, "greedy": True},
    "verify off, one token": {"verify": False, "tokens": 1},
    "repair off": {"repair": False},
    "repair off, p = q": {"repair": False, "match": 1.0},
    "repair off, greedy": {"repair": False, "greedy": True},
    "alpha near 0": {"match": 0.0, "k": 4},
    "alpha near 0, repair off": {"match": 0.0, "repair": False},
    "one token": {"tokens": 1},
    "typical": {"acceptance": "typical"},
    "lookup": {"draft_source": "lookup"},
    "lookup, verify off": {"draft_source": "lookup", "verify": False},
    "lookup, repair off": {"draft_source": "lookup", "repair": False},
}


@pytest.mark.parametrize("values", MODES.values(), ids=list(MODES))
def test_the_claim_is_true_in_every_mode(values: dict[str, object]) -> None:
    s = Settings(**values)
    trace, ens = WITNESS.trace(s), WITNESS.ensemble(s)
    check = trace.check
    claim = speed_claim(ens, s, check)
    gate = speed_verdict(ens, s, check)
    assert claim.status == gate.status
    reason = unearned(s, check)
    assert (claim.why is None) == (reason is None) == (claim.status != "void")
    if claim.why is None:
        # Earned or judged: only where verification ran and p was kept.
        assert s.verify and check.keeps_target
        return
    assert "not a speedup of the target" in claim.sentence
    assert ("not kept" in claim.why) == (not check.keeps_target)
    assert ("draft model's own" in claim.why) == (not s.verify and s.draft_source == "model")
    assert ("copying" in claim.why) == (not s.verify and s.draft_source == "lookup")
    assert ("another distribution" in claim.why) == bool(s.verify)
    if check.keeps_target:
        assert "by luck" in claim.why


def _station_at(preset: str, intervention: Intervention, expect_faster: str):  # type: ignore[no-untyped-def]
    """A learner's station after recording ``intervention`` at the preset and applying it."""
    p = BY_ID[preset]
    after = apply_intervention(p.settings, intervention)
    state = preset_state(parse_state([]), p.id)
    state = replace(state, settings=after)
    pairs = [
        *state.query().items(),
        ("pred", intervention.value),
        ("expect_faster", expect_faster),
        ("base", encode_base(p.settings)),
    ]
    return live_view(parse_state(pairs), APP, WITNESS)


def test_the_station_s_own_verdict_calls_the_faster_run_the_trap() -> None:
    """A learner who predicted skipping verification faster, on their own station: the
    speed did not hold, and the judgement says why the faster run is the trap."""
    live = _station_at("well-matched", Intervention.SKIP_VERIFY, "yes")
    assert live.settings.verify is False
    v = live.verdict
    assert v is not None
    assert v.held_speed is False
    assert v.judgement.key == "gates.verdict.judged.trap"  # type: ignore[attr-defined]
    assert "not a speedup" in v.sentence and "draft model's own" in v.sentence
    assert live.invariant is not None and live.invariant.savings.status == "void"
    # Who predicted it not faster was right about the speed.
    other = _station_at("well-matched", Intervention.SKIP_VERIFY, "no").verdict
    assert other is not None and other.held_speed is True

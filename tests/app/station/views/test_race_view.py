"""The policy race panel's view model: its numbers are the witness's, its sentences true in
every mode (lossless, repair off, verify off, greedy, match 1 and 0, the adversary, k at its
ends, one and two tokens, a tree raced as its chain)."""

from __future__ import annotations

from typing import get_args

import pytest

from app.station.views import fmt
from app.station.views.race import (
    NAMES,
    VERDICTS,
    RaceView,
    race_fragment,
    race_panel,
    race_view,
    verdict,
)
from app.words import Sentence
from tests.app.forms import PREDICTED
from tests.app.view_models import WITNESS, state_of
from witness import Settings
from witness.judge.adaptive import POLICIES, race, race_ensemble
from witness.judge.ensemble import Estimate
from witness.judge.ranking import Standing, rank, standing


def _view(**kw: object) -> tuple[RaceView, Settings]:
    s = Settings(**kw)  # type: ignore[arg-type]
    r, e = WITNESS.race(s)
    return race_view(r, e), s


def test_the_numbers_are_the_witness_s() -> None:
    s = Settings()
    r, e = race(s), race_ensemble(s)
    assert WITNESS.race(s) == (r, e)
    view = race_view(r, e)
    assert [row.policy for row in view.rows] == list(POLICIES)
    for row, run in zip(view.rows, r.runs, strict=True):
        est = e.speedup(run.policy)
        assert row.target_passes == str(run.target_passes)
        assert row.draft_passes == str(run.draft_passes)
        assert row.cost == f"{run.cost:.1f}"
        assert row.speedup == f"{run.speedup:.2f}×"
        assert row.mean == f"{est.mean:.2f}×"
        assert row.interval == f"{est.ci_low:.2f}–{est.ci_high:.2f}×"
        assert row.ks.startswith(", ".join(str(d) for d in run.drafted[:3]))
        assert row.verdict == verdict(est)
    # One chart row per policy, one marker per block, each marker shape its own.
    assert [len(c.points) for c in view.chart.rows] == [run.blocks for run in r.runs]
    assert len({c.marker for c in view.chart.rows}) == len(POLICIES)
    assert len({c.dash for c in view.chart.rows}) == len(POLICIES)
    assert view.substitution == ""
    assert "48 target passes" in view.plain


def test_lossless_every_policy_keeps_p_and_the_verdicts_come_from_the_ensemble() -> None:
    view, _ = _view()
    assert {row.correctness for row in view.rows} == {"keeps p"}
    assert {row.correctness.mode for row in view.rows} == {"keeps"}
    assert all("seeded requests" in row.savings for row in view.rows)
    assert "32 seeded requests" in view.best
    assert _part(view.best, "leader").values["n"] == "32"
    assert "oracle" in view.best and "no server can run" in view.best


@pytest.mark.parametrize("kw", [{"repair": False}, {"verify": False}])
def test_a_broken_switch_loses_p_for_every_policy(kw: dict[str, object]) -> None:
    view, _ = _view(**kw)
    assert {row.correctness for row in view.rows} == {"does not keep p"}
    said = "verify off" if "verify" in kw else "repair off"
    assert all(said in row.correctness_note for row in view.rows)
    assert all("TV" in row.correctness_note for row in view.rows)
    for row in view.rows:
        assert row.correctness.mode == row.correctness_note.mode == "lost"
        assert float(str(row.correctness_note.values["tv"])) > 0.0
    if "verify" in kw:
        assert "nothing is checked" in view.intro
        assert all("unchecked" in row.savings for row in view.rows)


def test_where_the_switch_cannot_matter_it_says_so_not_that_the_rule_keeps_p() -> None:
    view, _ = _view(match=1.0, repair=False)
    assert {row.correctness.mode for row in view.rows} == {"not_by_rule"}
    assert {row.correctness for row in view.rows} == {"keeps p here (not by the rule)"}
    one, _ = _view(tokens=1, repair=False)
    assert {row.correctness.mode for row in one.rows} == {"nothing_drafted"}
    assert {row.correctness for row in one.rows} == {"keeps p here (nothing drafted)"}


def test_the_adversary_is_slower_and_recovery_is_best() -> None:
    view, _ = _view(draft_source="adversary", match=0.0, draft_cost=0.1)
    by = {row.policy: row for row in view.rows}
    assert by["fixed"].verdict == "slower"
    assert "recovery's" in view.best
    assert _part(view.best, "leader").values["leader"] == "recovery"
    assert view.best.mode == "ranked_none_faster"
    assert "None of them is faster than plain decoding" in view.best
    # The oracle cannot help a draft that is always rejected.
    assert _part(view.best, "oracle").mode == "no_more"
    assert "no more" in view.best
    assert {row.correctness for row in view.rows} == {"keeps p"}


def test_one_token_is_plain_decoding_for_every_policy() -> None:
    view, _ = _view(tokens=1)
    assert {row.verdict for row in view.rows} == {"the same"}
    assert view.best.mode == "none_drafts"
    assert "every policy is plain decoding" in view.best
    assert {row.draft_passes for row in view.rows} == {"0"}


@pytest.mark.parametrize(
    "kw",
    [
        {"greedy": True},
        {"match": 0.0},
        {"k": 1},
        {"k": 16},
        {"tokens": 2},
        {"verify": False, "draft_cost": 0.0},
        {"machine": "h100"},
    ],
)
def test_every_mode_renders_sentences(kw: dict[str, object]) -> None:
    view, s = _view(**kw)
    assert view.intro.mode == "seeded"
    assert (view.intro.values["seed"], view.intro.values["tokens"]) == (str(s.seed), str(s.tokens))
    for row in view.rows:
        assert row.verdict in ("faster", "slower", "within noise", "the same", "unbounded")
        assert row.correctness and row.correctness_note and row.savings
    assert view.best.endswith(".")
    if kw.get("draft_cost") == 0.0:
        assert view.best.mode == "all_unbounded"
        assert "unbounded" in view.best
        assert {row.verdict for row in view.rows} == {"unbounded"}


@pytest.mark.parametrize(
    ("kw", "words"),
    [
        ({"tree_width": 2, "k": 3}, "a token tree of width 2"),
        ({"draft_source": "lookup"}, "prompt lookup"),
        ({"acceptance": "typical"}, "typical acceptance"),
    ],
)
def test_a_method_beside_the_chain_races_its_chain_and_says_so(
    kw: dict[str, object], words: str
) -> None:
    view, _ = _view(**kw)
    assert words in view.substitution
    assert isinstance(view.substitution, Sentence) and view.substitution.mode == "raced"
    assert "only the chain is raced" in view.substitution


def test_the_panel_is_behind_the_prediction_and_drawn_only_when_asked() -> None:
    locked = race_panel(state_of("/station?race=1"), WITNESS, draw=True)
    assert (locked.revealed, locked.race) == (False, None)
    entry = race_panel(state_of(f"/station?{PREDICTED}"), WITNESS, draw=True)
    assert entry.revealed and entry.race is None
    assert "race=1" in entry.links.page and entry.links.page.endswith("#race")
    assert entry.links.fragment.startswith("/station/race?")
    drawn = race_panel(state_of(f"/station?{PREDICTED}&race=1"), WITNESS, draw=True)
    assert drawn.race is not None
    # An evidence fragment never draws it (draw=False), whatever the URL says.
    assert race_panel(state_of(f"/station?{PREDICTED}&race=1"), WITNESS, draw=False).race is None
    fragment = race_fragment(state_of(f"/station/race?{PREDICTED}&race=7"), WITNESS)
    assert fragment.race.race is not None
    assert any("race must be 0 or 1" in m for m in fragment.race.problems)


def test_the_table_words_every_standing_once() -> None:
    """The judgement is the witness's (tests/witness/test_ranking.py); the view only words
    it: one distinct word per standing, and the word of the standing it is given."""
    assert set(VERDICTS) == set(get_args(Standing))
    assert len(set(VERDICTS.values())) == len(VERDICTS)
    faster = Estimate(1.5, 0.1, 0.5, 2.0, 1.2, 1.8, 32)
    assert verdict(faster) == VERDICTS[standing(faster)] == "faster"


def _part(sentence: str, name: str) -> Sentence:
    """The sentence that fills ``name`` in ``sentence``."""
    assert isinstance(sentence, Sentence)
    part = sentence.values[name]
    assert isinstance(part, Sentence), name
    return part


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"match": 0.3, "draft_cost": 0.3},
        {"match": 0.9, "k": 2},
        {"draft_source": "adversary", "match": 0.0, "draft_cost": 0.1},
        {"verify": False},
    ],
)
def test_the_best_sentence_words_the_ranking(kw: dict[str, object]) -> None:
    """The view only words what `witness.judge.ranking` found: the leader, the gap to the
    runner-up with its numbers, the oracle against the leader."""
    view, s = _view(**kw)
    rk = rank(WITNESS.race(s)[1])
    best = view.best
    assert best.mode == ("ranked_none_faster" if rk.none_faster else "ranked")
    leader = _part(best, "leader")
    assert str(leader.values["leader"]).startswith(NAMES[rk.leader])
    assert leader.values["mean"] == fmt.speedup(rk.leader_mean)
    against = _part(leader, "against")
    assert against.mode == rk.gap
    assert str(against.values["runner_up"]).startswith(NAMES[rk.runner_up])
    if rk.gap == "ahead":
        assert rk.interval is not None
        low, high = (float(str(against.values[side])) for side in ("low", "high"))
        assert 0.0 <= low <= float(str(against.values["difference"])) <= high
        assert (low, high) == pytest.approx(rk.interval, abs=0.005)
    if rk.gap == "within_noise":
        assert against.values["runner_up_mean"] == fmt.speedup(rk.runner_up_mean)
    oracle = _part(best, "oracle")
    assert (oracle.mode == "beats") == rk.oracle_beats_leader
    assert oracle.values["oracle"] == fmt.speedup(rk.oracle_mean)


@pytest.mark.parametrize("kw", [{}, {"verify": False}, {"draft_source": "adversary", "match": 0.0}])
def test_each_savings_gate_says_its_policys_standing(kw: dict[str, object]) -> None:
    view, s = _view(**kw)
    ens = WITNESS.race(s)[1]
    for row in view.rows:
        e = ens.speedup(row.policy)
        gate = row.savings
        if gate.mode == "unchecked":  # verify off adds that the tokens are the draft's
            assert not s.verify
            gate = _part(gate, "savings")
        assert gate.mode == standing(e)
        if gate.mode not in ("same", "unbounded"):
            assert gate.values["mean"] == fmt.speedup(e.mean)
    assert any(row.savings.mode == "unchecked" for row in view.rows) == (not s.verify)

"""The live class's view models: every sentence true at nobody, one learner and many, in each
of the station's speed verdicts (faster, slower, within noise, no change) and for a kept and
a lost distribution; the reveal's verdicts are the station's own."""

from __future__ import annotations

import re

import pytest

from app.classes.contract import CLASS_INTERVENTIONS, CLASS_PRESETS
from app.classes.views import (
    FASTER,
    KEPT,
    Said,
    answered_sentence,
    chosen_sentence,
    expected,
    faster_sentence,
    kept_sentence,
    live_class_view,
    question_view,
    reveal_view,
    snapshot,
    speed_words,
    tally_view,
    witnessed,
)
from app.contract.route import Intervention
from app.state.interventions import apply_intervention
from app.state.presets import BY_ID, PRESETS
from app.state.query import parse_state
from app.views.classroom import preset_state
from tests.app.view_models import WITNESS
from witness.core.settings import Settings

S = Said  # Said(yes, no, unsaid)


def snap(question: str = "mismatched", revealed: bool = False, **chosen: tuple[Said, Said]):  # type: ignore[no-untyped-def]
    return snapshot("ABC234", question, revealed, chosen)


# --------------------------------------------------------------------------- counts


@pytest.mark.parametrize(
    ("n", "sentence"),
    [
        (0, "Nobody has answered yet."),
        (1, "1 learner has answered."),
        (40, "40 learners have answered."),
    ],
)
def test_the_answered_count_reads_true_at_nobody_one_and_many(n: int, sentence: str) -> None:
    assert answered_sentence(n) == sentence


def test_the_totals_are_the_sum_of_the_interventions() -> None:
    s = snap(lengthen_k=(S(3, 1, 1), S(4, 0, 1)), skip_repair=(S(0, 2, 0), S(1, 1, 0)))
    assert s.answered == 7
    assert (s.faster.yes, s.faster.no, s.faster.unsaid) == (3, 3, 1)
    assert (s.kept.yes, s.kept.no, s.kept.unsaid) == (5, 1, 1)
    t = tally_view(s)
    bars = {b.key: b for b in t.interventions.bars}
    assert list(bars) == [i.value for i in CLASS_INTERVENTIONS]
    assert bars["lengthen_k"].text == "5 of 7 (71%)" and bars["lengthen_k"].count == 5
    assert bars["raise_match"].text == "0 of 7 (0%)" and bars["raise_match"].width == 0
    assert bars["skip_repair"].width == pytest.approx(100 * 2 / 7, abs=0.01)
    assert [b.text for b in t.faster.bars] == ["3 of 7 (43%)", "3 of 7 (43%)", "1 of 7 (14%)"]


def test_an_empty_tally_has_bars_of_nothing_and_says_so() -> None:
    t = tally_view(snap())
    assert t.answered_sentence == "Nobody has answered yet."
    assert all(b.count == 0 and b.width == 0 and b.text == "0" for b in t.interventions.bars)


def test_the_version_changes_with_what_is_shown_and_not_otherwise() -> None:
    one = snap(lengthen_k=(S(1, 0, 0), S(1, 0, 0)))
    same = snap(lengthen_k=(S(1, 0, 0), S(1, 0, 0)))
    assert one.version == same.version
    assert snap(lengthen_k=(S(0, 1, 0), S(1, 0, 0))).version != one.version
    assert snap(revealed=True, lengthen_k=(S(1, 0, 0), S(1, 0, 0))).version != one.version
    assert snap("greedy", lengthen_k=(S(1, 0, 0), S(1, 0, 0))).version != one.version
    assert re.fullmatch(r"[0-9a-f]{16}", one.version)


# --------------------------------------------------------------------------- sentences


@pytest.mark.parametrize(
    ("said", "words"),
    [
        (S(1, 0, 0), "The one learner who chose it expected it faster"),
        (S(0, 1, 0), "The one learner who chose it expected it not to be faster"),
        (S(0, 0, 1), "The one learner who chose it did not say whether it would be faster"),
        (S(3, 0, 0), "All 3 who chose it expected it faster"),
        (S(0, 3, 0), "All 3 who chose it expected it not to be faster"),
        (S(0, 0, 3), "None of the 3 who chose it said whether it would be faster"),
        (S(0, 2, 1), "None of the 3 who chose it expected it faster (2 said no, 1 did not say)"),
        (S(7, 3, 2), "7 of 12 expected it faster (3 said no, 2 did not say)"),
        (S(31, 9, 0), "31 of 40 expected it faster (9 said no)"),
        (S(2, 0, 1), "2 of 3 expected it faster (1 did not say)"),
    ],
)
def test_what_the_class_expected_is_said_truly_for_every_count(said: Said, words: str) -> None:
    assert expected(said, FASTER) == words


def test_the_issue_s_own_sentence() -> None:
    assert kept_sentence(S(31, 9, 0), False, 0.31) == (
        "31 of 40 expected the distribution kept (9 said no); it was not (TV 0.310)."
    )
    assert (
        kept_sentence(S(31, 0, 0), True, 0.0)
        == "All 31 who chose it expected the distribution kept; it was."
    )
    assert expected(S(0, 0, 1), KEPT) == (
        "The one learner who chose it did not say whether the distribution would be kept"
    )


@pytest.mark.parametrize(
    ("change", "truth"),
    [
        ("faster", "it was faster."),
        ("slower", "it was slower."),
        ("within noise", "the change was within noise, so it was not faster."),
        ("same", "it made no difference to the speed."),
    ],
)
def test_the_speed_truth_never_calls_noise_slower_or_faster(change: str, truth: str) -> None:
    sentence = faster_sentence(S(2, 1, 0), change)
    assert sentence == f"2 of 3 expected it faster (1 said no); {truth}"


@pytest.mark.parametrize(
    ("n", "answered", "words"),
    [
        (0, 5, "Nobody chose it."),
        (1, 1, "The one learner who answered chose it."),
        (4, 4, "All 4 who answered chose it."),
        (1, 9, "1 of the 9 who answered chose it."),
        (5, 9, "5 of the 9 who answered chose it."),
    ],
)
def test_who_chose_it(n: int, answered: int, words: str) -> None:
    assert chosen_sentence(n, answered) == words


# --------------------------------------------------------------------------- the reveal


def test_nobody_answered_reveals_no_rows_and_says_why() -> None:
    r = reveal_view(snap(revealed=True), WITNESS)
    assert r.rows == ()
    assert r.nobody.startswith("Nobody has answered yet")


def test_the_reveal_is_the_station_s_own_verdict_on_each_intervention_chosen() -> None:
    """At 'mismatched': lengthening k is slower, skipping repair within noise and not kept,
    skipping verification faster and not kept; the rows are only the ones chosen."""
    s = snap(
        revealed=True,
        lengthen_k=(S(3, 1, 1), S(4, 0, 1)),
        skip_repair=(S(1, 0, 0), S(1, 0, 0)),
        skip_verify=(S(0, 2, 1), S(0, 3, 0)),
    )
    rows = {r.key: r for r in reveal_view(s, WITNESS).rows}
    assert list(rows) == ["lengthen_k", "skip_verify", "skip_repair"]
    base = BY_ID["mismatched"].settings
    for key, row in rows.items():
        after = apply_intervention(base, Intervention(key))
        cmp = WITNESS.compare(base, after)
        kept = WITNESS.trace(after).check.keeps_target
        assert row.station.startswith(
            "The station: "
            + ("within noise, so not faster" if cmp.change == "within noise" else cmp.change)
        )
        assert row.station.endswith(
            "the distribution was kept." if kept else "the distribution was not kept."
        )
        assert row.kept_sentence.endswith("it was." if kept else ")."), row.kept_sentence
    assert rows["lengthen_k"].faster_sentence == (
        "3 of 5 expected it faster (1 said no, 1 did not say); it was slower."
    )
    assert rows["lengthen_k"].moves == "k 4 → 8"
    assert rows["skip_repair"].faster_sentence == (
        "The one learner who chose it expected it faster; the change was within noise, so it "
        "was not faster."
    )
    assert rows["skip_repair"].kept_sentence.startswith(
        "The one learner who chose it expected the distribution kept; it was not (TV "
    )
    assert rows["skip_verify"].kept_sentence.startswith(
        "All 3 who chose it expected the distribution not kept; it was not (TV "
    )
    assert rows["skip_verify"].chosen_sentence == "3 of the 9 who answered chose it."


def test_an_intervention_that_changes_nothing_says_so() -> None:
    """At 'verify-off', skipping verification moves nothing: the same passes, no change."""
    w = witnessed("verify-off", Intervention.SKIP_VERIFY, WITNESS)
    assert w.moves == "" and w.change == "same"
    s = snap("verify-off", True, skip_verify=(S(1, 0, 0), S(0, 1, 0)))
    (row,) = reveal_view(s, WITNESS).rows
    assert row.moves == "changes nothing at this preset"
    assert row.faster_sentence.endswith("it made no difference to the speed.")
    assert row.station.startswith("The station: no change in speed (every one of ")


def test_the_reveal_agrees_with_a_learner_s_station_on_the_same_prediction() -> None:
    """The station's verdict for a learner who predicted lengthen_k at the preset."""
    from app.views.station import live_view
    from tests.app.view_models import APP

    preset = BY_ID["well-matched"]
    query = preset_state(parse_state([]), preset.id).query()
    base = ",".join(
        str(int(v)) if isinstance(v, bool) else f"{v:g}"
        for v in (preset.settings.match, preset.settings.k, preset.settings.draft_cost, 1, 1, 0)
    )
    after = apply_intervention(preset.settings, Intervention.LENGTHEN_K)
    pairs = [
        *query.items(),
        ("pred", "lengthen_k"),
        ("expect_faster", "yes"),
        ("base", base),
        ("k", str(after.k)),
    ]
    live = live_view(parse_state(pairs), APP, WITNESS)
    assert live.verdict is not None
    w = witnessed(preset.id, Intervention.LENGTHEN_K, WITNESS)
    assert live.verdict.held_speed == (w.change == "faster")
    words = {
        "faster": "made it faster",
        "slower": "made it slower",
        "within noise": "changed the speed by no more than noise",
        "same": "made no difference to the speed",
    }
    assert words[w.change] in live.verdict.sentence
    assert ("The distribution was kept." in live.verdict.sentence) == w.kept


# --------------------------------------------------------------------------- questions


def test_a_question_whose_name_gives_the_answer_away_is_numbered_until_the_reveal() -> None:
    held = [p for p in PRESETS if p.names_answer]
    assert held
    for p in held:
        before, after = question_view(p.id, False), question_view(p.id, True)
        assert p.title not in before.title and before.title.startswith("Preset ")
        assert after.title == p.title
    open_one = next(p for p in PRESETS if not p.names_answer)
    assert question_view(open_one.id, False).title == open_one.title


def test_each_class_question_opens_the_same_state_as_its_preset_chip() -> None:
    default = parse_state([])
    for p in CLASS_PRESETS:
        assert p.url == preset_state(default, p.id).url() + "#step-03"
    assert (
        question_view(PRESETS[-1].id, False).last and not question_view(PRESETS[0].id, False).last
    )


def test_the_live_view_polls_with_the_version_it_shows() -> None:
    s = snap(lengthen_k=(S(1, 0, 0), S(1, 0, 0)))
    v = live_class_view(s, WITNESS)
    assert v.poll == f"/class/ABC234/live?seen={s.version}"
    assert v.reveal is None and v.tally.answered == 1


@pytest.mark.parametrize("greedy", [False, True])
def test_a_greedy_comparison_names_its_one_text_not_thirty_two(greedy: bool) -> None:
    # Greedy decoding writes one text whatever the seed: a mean "over 32 target texts" would
    # claim 32 samples where there is one.
    before = Settings(greedy=greedy, match=0.4, k=3)
    after = before.model_copy(update={"k": 6})
    cmp = WITNESS.compare(before, after)
    words = speed_words(cmp)
    assert cmp.after.estimator == "exact-given-text"
    if greedy:
        assert cmp.after.texts == 1
        assert "greedy decoding's one text (the same at all 32 seeds)" in words
        assert "32 target texts" not in words
    else:
        assert cmp.after.texts == 32 and "over 32 target texts" in words

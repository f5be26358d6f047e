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
from app.station.state.interventions import apply_intervention
from app.station.state.presets import BY_ID, PRESETS
from app.station.state.query import parse_state
from app.station.views.classroom import preset_state
from app.words import Sentence
from tests.app.view_models import WITNESS
from witness.core.settings import Settings

S = Said  # Said(yes, no, unsaid)


def snap(question: str = "mismatched", revealed: bool = False, **chosen: tuple[Said, Said]):  # type: ignore[no-untyped-def]
    return snapshot("ABC234", question, revealed, chosen)


def part(sentence: Sentence, name: str) -> Sentence:
    """The sentence that fills ``name`` in ``sentence``."""
    inner = sentence.values[name]
    assert isinstance(inner, Sentence), (name, inner)
    return inner


def others(sentence: Sentence) -> tuple[int, int]:
    """(said no, did not say) as the brackets count them; 0 where they name nobody."""
    found = re.fullmatch(
        r"(?:(\d+) said no)?(?:, )?(?:(\d+) did not say)?", str(sentence.values["others"])
    )
    assert found, sentence.values["others"]
    return int(found.group(1) or 0), int(found.group(2) or 0)


# --------------------------------------------------------------------------- counts


@pytest.mark.parametrize(("n", "mode"), [(0, "nobody"), (1, "one"), (40, "many")])
def test_the_answered_count_reads_true_at_nobody_one_and_many(n: int, mode: str) -> None:
    words = answered_sentence(n)
    assert words.mode == mode
    assert words.values == ({"n": n} if mode == "many" else {})
    assert (str(n) in words) == (n > 0)  # nobody is never "0 learners"


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
    assert t.answered_sentence.mode == "nobody"
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


YES, NO = FASTER.yes, FASTER.no


@pytest.mark.parametrize(
    ("said", "mode", "values", "brackets"),
    [
        (S(1, 0, 0), "one", {"expectation": YES}, None),
        (S(0, 1, 0), "one", {"expectation": NO}, None),
        (S(0, 0, 1), "one_unsaid", {"whether": FASTER.whether}, None),
        (S(3, 0, 0), "all", {"m": 3, "expectation": YES}, None),
        (S(0, 3, 0), "all", {"m": 3, "expectation": NO}, None),
        (S(0, 0, 3), "none_said", {"m": 3, "whether": FASTER.whether}, None),
        (S(0, 2, 1), "none", {"m": 3, "expectation": YES}, (2, 1)),
        (S(7, 3, 2), "some", {"yes": 7, "m": 12, "expectation": YES}, (3, 2)),
        (S(31, 9, 0), "some", {"yes": 31, "m": 40, "expectation": YES}, (9, 0)),
        (S(2, 0, 1), "some", {"yes": 2, "m": 3, "expectation": YES}, (0, 1)),
    ],
)
def test_what_the_class_expected_is_said_truly_for_every_count(
    said: Said, mode: str, values: dict[str, object], brackets: tuple[int, int] | None
) -> None:
    words = expected(said, FASTER)
    assert words.mode == mode
    assert {k: v for k, v in words.values.items() if k != "others"} == values
    # The brackets count those who did not say yes, and appear only where there are some.
    assert ("others" in words.values) == (brackets is not None)
    if brackets is not None:
        assert others(words) == brackets
    # Never "0 of 1 expected …": a count of nobody is never said.
    assert not re.search(r"\b0 ", words)


def test_the_kept_sentence_says_what_was_expected_then_the_check() -> None:
    lost = kept_sentence(S(31, 9, 0), False, 0.31)
    assert lost.key == "classes.truth.kept"
    said = part(lost, "expected")
    assert said.mode == "some" and (said.values["yes"], said.values["m"]) == (31, 40)
    assert said.values["expectation"] == KEPT.yes and others(said) == (9, 0)
    assert part(lost, "truth").mode == "lost" and part(lost, "truth").values == {"tv": "0.310"}
    kept = kept_sentence(S(31, 0, 0), True, 0.0)
    assert part(kept, "expected").mode == "all" and part(kept, "expected").values["m"] == 31
    assert part(kept, "expected").values["expectation"] == KEPT.yes
    assert part(kept, "truth").mode == "kept" and "TV" not in kept
    unsaid = expected(S(0, 0, 1), KEPT)
    assert unsaid.mode == "one_unsaid" and unsaid.values == {"whether": KEPT.whether}


@pytest.mark.parametrize(
    ("change", "mode", "phrase"),
    [
        ("faster", "faster", "faster"),
        ("slower", "slower", "slower"),
        ("within noise", "within_noise", "not faster"),
        ("same", "same", "no difference"),
    ],
)
def test_the_speed_truth_never_calls_noise_slower_or_faster(
    change: str, mode: str, phrase: str
) -> None:
    sentence = faster_sentence(S(2, 1, 0), change)
    said, truth = part(sentence, "expected"), part(sentence, "truth")
    assert said.mode == "some" and (said.values["yes"], said.values["m"]) == (2, 3)
    assert others(said) == (1, 0)
    assert truth.mode == mode and phrase in truth
    assert ("slower" in truth) == (change == "slower")


@pytest.mark.parametrize(
    ("n", "answered", "mode", "values"),
    [
        (0, 5, "nobody", {}),
        (1, 1, "one", {}),
        (4, 4, "all", {"answered": 4}),
        (1, 9, "some", {"n": 1, "answered": 9}),
        (5, 9, "some", {"n": 5, "answered": 9}),
    ],
)
def test_who_chose_it(n: int, answered: int, mode: str, values: dict[str, int]) -> None:
    words = chosen_sentence(n, answered)
    assert (words.mode, words.values) == (mode, values)


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
        assert row.station.key == "classes.reveal.station"
        speed = part(row.station, "speed")
        if row.verdict == "void":  # no speedup earned: what it ran, and why that is none
            assert speed.key.startswith("classes.speed.unearned.")
            assert part(speed, "ran").mode == cmp.change.replace(" ", "_")
        else:
            assert speed.mode == cmp.change.replace(" ", "_")
        assert part(row.station, "distribution").mode == ("kept" if kept else "lost")
        assert part(row.kept_sentence, "truth").mode == ("kept" if kept else "lost")
    lengthen = rows["lengthen_k"].faster_sentence
    assert part(lengthen, "truth").mode == "slower"
    assert part(lengthen, "expected").mode == "some"
    assert part(lengthen, "expected").values["yes"] == 3
    assert part(lengthen, "expected").values["m"] == 5
    assert others(part(lengthen, "expected")) == (1, 1)
    assert rows["lengthen_k"].moves == "k 4 → 8"
    repair = rows["skip_repair"]
    assert rows["skip_verify"].verdict == repair.verdict == "void"
    assert part(repair.faster_sentence, "truth").key == "classes.truth.unearned.other"
    assert part(part(repair.faster_sentence, "truth"), "ran").mode == "within_noise"
    assert part(repair.faster_sentence, "expected").mode == "one"
    assert part(repair.faster_sentence, "expected").values["expectation"] == FASTER.yes
    assert part(repair.kept_sentence, "expected").mode == "one"
    assert part(repair.kept_sentence, "expected").values["expectation"] == KEPT.yes
    assert part(repair.kept_sentence, "truth").mode == "lost"
    verify = rows["skip_verify"]
    assert part(verify.kept_sentence, "expected").mode == "all"
    assert part(verify.kept_sentence, "expected").values == {"m": 3, "expectation": KEPT.no}
    assert part(verify.kept_sentence, "truth").mode == "lost"
    assert verify.chosen_sentence.mode == "some"
    assert verify.chosen_sentence.values == {"n": 3, "answered": 9}


def test_the_reveal_draws_what_each_row_expected_beside_the_station_s_answer() -> None:
    """Each row's two charts: the bars are the counts of those who chose it (yes, no, did
    not say, filling the track), and the bar the station marks is its own answer."""
    s = snap(
        revealed=True,
        lengthen_k=(S(3, 1, 1), S(4, 0, 1)),
        skip_verify=(S(0, 2, 1), S(0, 3, 0)),
        skip_repair=(S(1, 0, 0), S(1, 0, 0)),
    )
    chosen = {c.intervention.value: c for c in s.chosen}
    base = BY_ID["mismatched"].settings
    rows = reveal_view(s, WITNESS).rows
    for row in rows:
        after = apply_intervention(base, Intervention(row.key))
        change = WITNESS.compare(base, after).change
        kept = WITNESS.trace(after).check.keeps_target
        faster, kept_chart = row.answers
        for chart, said in ((faster, chosen[row.key].faster), (kept_chart, chosen[row.key].kept)):
            assert [b.count for b in chart.bars] == [said.yes, said.no, said.unsaid]
            assert sum(b.width for b in chart.bars) == pytest.approx(100, abs=0.05)
        assert faster.right == ("yes" if row.verdict == "faster" else "no")
        assert faster.station.mode == row.verdict.replace(" ", "_")
        assert row.verdict in (change, "void")
        assert kept_chart.right == ("yes" if kept else "no")
        assert kept_chart.station.startswith("✓" if kept else "✗")
    by_key = {r.key: r for r in rows}
    assert by_key["lengthen_k"].answers[0].station.startswith("▼")  # slower at 'mismatched'
    assert by_key["skip_verify"].answers[1].right == "no"  # the distribution is lost


def test_an_intervention_that_changes_nothing_says_so() -> None:
    """At 'verify-off', skipping verification moves nothing: the same passes, no change."""
    w = witnessed("verify-off", Intervention.SKIP_VERIFY, WITNESS)
    assert w.moves == "" and w.change == "same"
    s = snap("verify-off", True, skip_verify=(S(1, 0, 0), S(0, 1, 0)))
    (row,) = reveal_view(s, WITNESS).rows
    assert row.moves == "changes nothing at this preset"
    # Verification is off before and after: the same speed, and no speedup either way.
    assert row.verdict == "void"
    truth = part(row.faster_sentence, "truth")
    assert truth.key == "classes.truth.unearned.other"
    assert part(truth, "ran").mode == "same"
    assert part(part(row.station, "speed"), "ran").mode == "same"


def test_the_reveal_agrees_with_a_learner_s_station_on_the_same_prediction() -> None:
    """The station's verdict for a learner who predicted lengthen_k at the preset."""
    from app.station.views.station import live_view
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

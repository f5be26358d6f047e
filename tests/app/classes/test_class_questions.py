"""Every class question asks what its answers answer: a learner picks one of the five
changes, says whether it will be faster and whether the output keeps the target's
distribution, so the prompt names those three and asks no number the class cannot send."""

from __future__ import annotations

import re

import pytest

from app.classes.contract import CLASS_INTERVENTIONS, CLASS_PRESETS
from app.classes.views import question_view
from app.station.state.presets import BY_ID
from app.words import Sentence


@pytest.mark.parametrize("preset", CLASS_PRESETS, ids=[p.id for p in CLASS_PRESETS])
def test_each_prompt_asks_for_a_change_whether_faster_and_whether_kept(preset) -> None:  # type: ignore[no-untyped-def]
    q = preset.question
    assert isinstance(q, Sentence) and q.key == "classes.question.ask"
    # The answers a learner sends: one intervention, faster yes/no, kept yes/no.
    assert len(CLASS_INTERVENTIONS) == 5
    assert re.search(r"\bWhich one change\b", q), q
    assert re.search(r"\bfaster\?|\bfaster\b", q), q
    assert "keep the target's distribution?" in q, q
    # A question, not a number: no "how many", which the answers cannot say.
    assert "How many" not in q and "how many" not in q
    assert q.rstrip().endswith("?")


def test_a_held_back_preset_s_prompt_does_not_name_its_title() -> None:
    for p in CLASS_PRESETS:
        if BY_ID[p.id].names_answer:
            assert p.title not in p.question, p.id
            assert question_view(p.id, False).explore == ""


def test_the_station_s_own_question_follows_at_the_reveal() -> None:
    p = CLASS_PRESETS[0]
    assert question_view(p.id, True).explore.endswith(BY_ID[p.id].question)
    assert question_view(p.id, False).explore == ""

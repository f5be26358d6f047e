"""The step-through of a tree, typical acceptance and prompt lookup: it walks sibling by
sibling (draft the tree, one target pass, one sub-step per sibling tested, the ending), every
number is the trace's, and the chain's step-through is untouched."""

from __future__ import annotations

import re
from dataclasses import replace
from html import unescape

import pytest
from fastapi.testclient import TestClient

from app.station.views import stepthrough_words as step_words
from app.station.views.stepthrough import tree_plan
from app.station.views.tree_chart import sibling_test
from tests.app.station.views.test_tree_chart import MODES, settings_of
from tests.app.view_models import step_of, trace_of

SKIP = "pred=skip&base=0.6,4,0.1,1,1,0"


def query_of(mode: str) -> str:
    parts = []
    for name, value in MODES[mode].items():
        if isinstance(value, bool):
            value = "1" if value else "0"
        parts.append(f"{name}={value}".replace(" ", "+"))
    base = f"base=0.6,{MODES[mode].get('k', 4)},0.1,1,1,0"
    return f"pred=skip&{base}&" + "&".join(parts)


def blocks_of(mode: str) -> range:
    trace = trace_of(settings_of(mode))
    return range(min(3, len(trace.blocks)))


@pytest.mark.parametrize("mode", MODES)
def test_the_walk_has_one_sub_step_per_sibling_tested(mode: str) -> None:
    s = settings_of(mode)
    trace = trace_of(s)
    for block in trace.blocks[:4]:
        st = step_of(f"{query_of(mode)}&block={block.index}").stepthrough
        assert st.tree
        kinds = [step.kind for step in st.steps]
        if not block.levels:
            assert kinds == ["draft", "target", "bonus"]
            continue
        if not s.verify:
            assert kinds == ["draft", "no_target", "unchecked"]
            continue
        tested = [
            (i, sib.index)
            for i, lv in enumerate(block.levels)
            for sib in lv.siblings
            if sib.accepted is not None
        ]
        assert kinds[:2] == ["draft", "target"]
        assert kinds[2:-1] == ["check"] * len(tested)
        plan = tree_plan(block, s)
        assert [(p.level, p.sibling) for p in plan[2:-1]] == tested
        end = {
            "repair": block.result.first_rejection is not None
            and s.repair
            and s.acceptance == "exact",
            "resample": block.result.first_rejection is not None
            and not s.repair
            and s.acceptance == "exact",
            "argmax": block.result.first_rejection is not None and s.acceptance == "typical",
            "bonus": block.result.first_rejection is None,
        }
        assert [k for k, v in end.items() if v] == [kinds[-1]]
        assert f"{block.scored} tokens" in st.steps[1].narration


@pytest.mark.parametrize("mode", MODES)
def test_each_check_says_the_traces_test_and_what_follows(mode: str) -> None:
    s = settings_of(mode)
    trace = trace_of(s)
    for block in trace.blocks[:4]:
        if not block.levels or not s.verify:
            continue
        for p in tree_plan(block, s):
            if p.kind != "check":
                continue
            lv = block.levels[p.level]
            sib = lv.siblings[p.sibling]
            test, _ = sibling_test(sib, lv.threshold)
            assert test in p.narration
            assert f"'{sib.word}'" in p.narration
            follows = p.sibling + 1 < len(lv.siblings)
            if sib.accepted:
                assert ("stands at" in p.narration) or ("leaf" in p.narration)
            elif follows and lv.threshold is None and s.repair:
                assert "residual updated: p′ ← normalised max(0, p′ − q′)" in p.narration
            elif follows and lv.threshold is None:
                assert "p′ stays p" in p.narration
            elif follows:
                assert "same bar" in p.narration
            else:
                assert "no sibling is left" in p.narration


def test_distinct_and_top_say_how_q_changes() -> None:
    for mode, words in (("tree distinct", "q′ ← q′ without"), ("tree top", "point mass")):
        s = settings_of(mode)
        found = False
        for block in trace_of(s).blocks:
            for p in tree_plan(block, s):
                if "residual updated" in p.narration:
                    assert words in p.narration
                    found = True
        assert found, mode


@pytest.mark.parametrize("mode", ["tree sample", "typical", "lookup match", "repair off"])
def test_rows_follow_the_walk(mode: str) -> None:
    s = settings_of(mode)
    trace = trace_of(s)
    block = next(b for b in trace.blocks if b.levels)
    url = f"{query_of(mode)}&block={block.index}"
    count = len(step_of(url).stepthrough.steps)
    for sub in range(count):
        st = step_of(f"{url}&sub={sub}").stepthrough
        plan = tree_plan(block, s)
        current = [r for r in st.tree_rows if r.current]
        if plan[sub].kind == "check":
            assert len(current) == 1
            sib = block.levels[plan[sub].level].siblings[plan[sub].sibling]
            assert (current[0].depth, current[0].number) == (plan[sub].level + 1, sib.index + 1)
            assert current[0].outcome == ("accepted" if sib.accepted else "rejected")
            if s.acceptance == "exact":
                assert st.gauge is not None and sib.word in st.gauge.summary
            else:
                assert st.gauge is None
        else:
            assert not current
        if sub == count - 1:
            assert st.ending is not None
            flat = [sib for lv in block.levels for sib in lv.siblings]
            levels = [lv for lv in block.levels for _ in lv.siblings]
            for row, sib, lv in zip(st.tree_rows, flat, levels, strict=True):
                if sib.accepted is None:
                    assert row.outcome == "never tested"
                else:  # the trace's numbers, in the table's short form
                    assert row.test == sibling_test(sib, lv.threshold)[1]
        if sub < 2:
            assert all(r.outcome == "waiting" for r in st.tree_rows)


def test_the_ending_of_typical_is_the_argmax_and_draws_nothing() -> None:
    s = settings_of("typical")
    block = next(b for b in trace_of(s).blocks if b.result.first_rejection is not None)
    url = f"{query_of('typical')}&block={block.index}"
    count = len(step_of(url).stepthrough.steps)
    st = step_of(f"{url}&sub={count - 1}").stepthrough
    assert st.ending is not None and st.ending.kind == "argmax"
    assert "not a draw from p" in st.ending.sentence
    assert "no uniform is drawn" in st.ending.draw
    assert "not lossless" in st.mode
    assert any(t.mark.glyph == "A" for t in st.output)


def test_mode_lines_are_true() -> None:
    assert "lossless" in step_of(query_of("tree sample")).stepthrough.mode
    assert "nothing is checked" in step_of(query_of("verify off")).stepthrough.mode
    assert "repair off" in step_of(query_of("repair off")).stepthrough.mode
    typical_off = step_of(query_of("typical repair off")).stepthrough.mode
    assert "changes nothing" in typical_off and "lossless," not in typical_off


def test_lookup_without_a_match_is_not_called_one_token_left() -> None:
    s = settings_of("lookup no match")
    block = next(b for b in trace_of(s).blocks if not b.levels)
    st = step_of(f"{query_of('lookup no match')}&block={block.index}").stepthrough
    said = " ".join(step.narration for step in st.steps)
    assert "nothing to copy" in said
    assert "one token is left" not in said


def test_the_chain_step_through_is_not_a_tree() -> None:
    st = step_of(SKIP).stepthrough
    assert not st.tree and not st.tree_rows and st.rows


def test_every_sub_step_renders_with_its_narration(client: TestClient) -> None:
    for mode in ("tree sample", "typical", "lookup match", "verify off", "width 4 k 2"):
        url = query_of(mode)
        steps = step_of(url).stepthrough.steps
        for n, step in enumerate(steps):
            r = client.get(f"/station/step?{url}&sub={n}")
            assert r.status_code == 200, (mode, n)
            m = re.search(r'data-testid="st-narration">([^<]*)<', r.text)
            assert m and unescape(m.group(1)) == step.narration
            assert 'data-testid="st-table"' in r.text
            assert "st-table--tree" in r.text


def test_a_walk_cut_short_says_how_many_tokens_the_request_needed() -> None:
    """The served traces cut the drafts before the request's end, so the block is cut by hand."""
    s = settings_of("tree sample")
    whole = next(b for b in trace_of(s).blocks if b.levels)
    block = replace(whole, truncated=1)
    needed = len(block.emitted_words)
    for said in (
        step_words.tree_ending_sentence(block, s),
        step_words.tree_unchecked_sentence(block),
    ):
        assert said.mode == "cut" and said.values["needed"] == needed
        assert f"the request needed only {needed} of them" in said
    assert step_words.tree_ending_sentence(whole, s).mode == "whole"

"""The token tree's verification walk in the evidence (app/station/views/tree_chart.py), the block
detail and figures of trees, typical acceptance and prompt lookup, and the method beside its
chain twin: every number shown is the trace's, every sentence true in its mode, and a chain
page keeps its own block detail."""

from __future__ import annotations

import re
from html import unescape

import pytest
from fastapi.testclient import TestClient

from app.station.views.evidence import (
    block_detail,
    block_tokens,
    evidence_view,
    first_rejection_text,
    legend_of,
)
from app.station.views.judgement import EXACT
from app.station.views.station import block_fragment
from app.station.views.tree_chart import TreeChart, ending_kind, ratio, tree_chart, versus
from app.words import Sentence
from tests.app.view_models import WITNESS, state_of, trace_of
from witness import RequestTrace, Settings
from witness.core.settings import drafted_width, tree_nodes
from witness.core.trace import BlockTrace
from witness.methods.block import chain_twin

SKIP = "pred=skip&base=0.6,4,0.1,1,1,0"
REPEAT = "the draft model proposes the draft model proposes a token"

# Every mode the brief names, with the settings that put the instrument there.
MODES: dict[str, dict[str, object]] = {
    "tree sample": {"tree_width": 2},
    "tree distinct": {"tree_width": 2, "drafting": "distinct"},
    "tree top": {"tree_width": 2, "drafting": "top", "match": 0.2},
    "typical": {"acceptance": "typical", "tree_width": 2, "match": 0.3},
    "typical chain": {"acceptance": "typical"},
    "lookup match": {"draft_source": "lookup", "prompt": REPEAT},
    "lookup no match": {"draft_source": "lookup"},
    "verify off": {"tree_width": 2, "verify": False},
    "repair off": {"tree_width": 2, "repair": False},
    "greedy": {"tree_width": 2, "greedy": True},
    "greedy distinct": {"tree_width": 2, "drafting": "distinct", "greedy": True},
    "width 4 k 2": {"tree_width": 4, "k": 2},
    "tokens 1": {"tree_width": 2, "tokens": 1},
    "match 1": {"tree_width": 2, "match": 1.0},
    "match 0": {"tree_width": 2, "match": 0.0},
    "typical repair off": {"acceptance": "typical", "tree_width": 2, "repair": False},
}

NUMBER = r"(\d+\.\d+|\d(?:\.\d+)?e-\d+|0|<0\.001)"


def settings_of(mode: str) -> Settings:
    return Settings(**MODES[mode])  # type: ignore[arg-type]


def trace_for(mode: str) -> tuple[Settings, RequestTrace]:
    s = settings_of(mode)
    return s, trace_of(s)


def drawn(trace: RequestTrace) -> list[BlockTrace]:
    return [b for b in trace.blocks if b.levels]


def as_float(x: str) -> float:
    return 0.0 if x == "<0.001" else float(x)


# --------------------------------------------------------------------------- the picture


@pytest.mark.parametrize("mode", MODES)
def test_every_sibling_is_drawn_with_the_traces_numbers(mode: str) -> None:
    s, trace = trace_for(mode)
    for block in drawn(trace):
        chart = tree_chart(block, s)
        assert [lv.depth for lv in chart.levels] == list(range(1, len(block.levels) + 1))
        assert len(chart.rows) == sum(len(lv.siblings) for lv in block.levels)
        for lv, level in zip(block.levels, chart.levels, strict=True):
            assert len(level.nodes) == len(lv.siblings)
            for sib, node in zip(lv.siblings, level.nodes, strict=True):
                assert node.word == sib.word
                if not s.verify:
                    assert node.outcome == "unchecked"
                elif sib.accepted is None:
                    assert node.outcome == "untested"
                    assert "never tested" in node.test
                else:
                    assert node.outcome == ("accepted" if sib.accepted else "rejected")
                    _check_test(node.test, sib.accepted, sib, lv.threshold)
                    rule = "exact" if lv.threshold is None else "typical"
                    assert node.test.key == f"tree.test.{rule}.{node.outcome}"  # type: ignore[attr-defined]


def _check_test(text: str, accepted: bool, sib: object, threshold: float | None) -> None:
    """The printed test is the trace's numbers, and the printed relation holds."""
    if threshold is None:
        m = re.fullmatch(rf"u = {NUMBER} ([<≥]) p′/q′ = {NUMBER}", text)
        assert m, text
        u, rel, r = m.groups()
        assert (rel == "<") == accepted
        assert (as_float(u) < as_float(r)) == accepted or as_float(u) == as_float(r) == 0
        assert (u, r) == versus(sib.u, ratio(sib))  # type: ignore[attr-defined]
    else:
        m = re.fullmatch(rf"p\(x\) = {NUMBER} ([>≤]) bar {NUMBER}", text)
        assert m, text
        assert (m.group(2) == ">") == accepted
        assert (sib.p > threshold) == accepted  # type: ignore[attr-defined]


@pytest.mark.parametrize("mode", MODES)
def test_drafted_scored_and_unreached_add_up(mode: str) -> None:
    s, trace = trace_for(mode)
    for block in drawn(trace):
        chart = tree_chart(block, s)
        drafted = tree_nodes(drafted_width(s), block.depth)  # greedy top/distinct: 1 a node
        assert chart.drafted == drafted
        assert chart.scored == block.scored == ((1 + drafted) if s.verify else 0)
        full = all(len(lv.siblings) == s.tree_width for lv in block.levels)
        if full:  # every drafted node is either drawn or under a sibling that did not stand
            assert chart.walked + chart.unreached == drafted
        for level in chart.levels:
            for node in level.nodes:
                stood = node.outcome == "accepted" or (not s.verify and node.number == 1)
                expected = tree_nodes(drafted_width(s), block.depth - node.depth)
                assert node.below == expected
                if node.below and not stood:
                    what = "scored, never reached" if s.verify else "drafted, never used"
                    assert node.below_text.endswith(what)
                    assert str(node.below) in node.below_text
                else:
                    assert node.below_text == ""
        assert f"One target pass scored {block.scored} tokens" in chart.summary or not s.verify


@pytest.mark.parametrize("mode", MODES)
def test_the_ending_is_said_as_the_mode_makes_it(mode: str) -> None:
    s, trace = trace_for(mode)
    for block in drawn(trace):
        chart = tree_chart(block, s)
        kind = chart.ending.kind
        assert kind == ending_kind(block, s)
        assert chart.ending.sentence.key == f"tree.ending.{kind}"
        final = block.final_word
        if kind in ("repair", "resample", "argmax"):
            assert chart.ending.sentence.values["depth"] == str(len(block.levels))
        if kind != "unchecked":
            assert chart.ending.sentence.values["final"] == final
        if not s.verify:
            assert kind == "unchecked"
            assert "no target pass" in chart.ending.sentence
        elif block.result.first_rejection is None:
            assert kind in ("bonus", "unused")
            assert f"'{final}'" in chart.ending.sentence
        elif s.acceptance == "typical":
            assert kind == "argmax"
            assert "the target's argmax (typical acceptance: not a draw from p)" in (
                chart.ending.sentence
            )
            assert "residual" not in chart.ending.sentence
            assert chart.ending.detail == ""
        elif not s.repair:
            assert kind == "resample"
            assert "drawn from p itself" in chart.ending.sentence
        else:
            assert kind == "repair"
            assert "last residual" in chart.ending.sentence
            top = block.levels[-1].law_top
            assert top and f"'{top[0][0]}'" in chart.ending.sentence
            assert chart.ending.detail.startswith(f"the last residual p′: '{top[0][0]}'")
        assert chart.ending.sentence in chart.summary


def test_typical_marks_its_last_token_as_the_argmax_not_a_repair() -> None:
    s, trace = trace_for("typical")
    block = next(b for b in drawn(trace) if b.result.first_rejection is not None)
    tokens = block_tokens(block, typical=True)
    argmax = [t for t in tokens if t.mark.glyph == "A"]
    assert argmax and all("argmax" in t.mark.label for t in argmax)
    # It keeps the repaired token's look, with its own mark: both classes on the page.
    assert all(t.kind == "repaired" and t.style == "repaired tok--argmax" for t in argmax)
    assert not any("residual" in t.mark.label for t in tokens)
    assert any(t.mark.glyph == "A" for t in legend_of(s))
    chain_legend = legend_of(Settings())
    assert not any(t.mark.glyph == "A" for t in chain_legend)


def test_prompt_lookup_says_what_was_copied_and_from_where() -> None:
    s, trace = trace_for("lookup match")
    blocks = [b for b in drawn(trace) if b.lookup is not None]
    assert blocks, "the repetitive prompt finds something to copy"
    for block in blocks:
        m = block.lookup
        assert m is not None
        # The occurrence is real: the n-gram stands at `start` in the prompt and text so far.
        context = list(trace.prompt_words)
        for earlier in trace.blocks[: block.index]:
            context.extend(earlier.emitted_words)
        assert tuple(context[m.start : m.start + len(m.ngram)]) == m.ngram
        chart = tree_chart(block, s, len(trace.prompt_words))
        assert f"'{' '.join(m.ngram)}'" in chart.source
        assert f"word {m.start + 1} of the prompt and text so far" in chart.source
        where = "(in the prompt)" if m.start < len(trace.prompt_words) else "(generated text)"
        assert where.strip("()") in chart.source
        assert f"'{block.levels[0].siblings[0].word}'" in chart.source
        assert "q′ = 1" in chart.source


def test_lookup_without_a_match_is_a_plain_pass_said_so() -> None:
    s, trace = trace_for("lookup no match")
    plain = [b for b in trace.blocks if not b.levels and s.tokens - b.start > 1]
    assert plain
    detail = block_detail(plain[0], s)
    assert detail.tree is None and detail.plain
    assert "no earlier occurrence" in detail.ending
    assert f"'{plain[0].final_word}'" in detail.ending
    assert isinstance(detail.ending, Sentence) and detail.ending.mode == "lookup_no_match"
    assert detail.ending.values == {"word": plain[0].final_word}


def test_tokens_1_draws_no_tree() -> None:
    s, trace = trace_for("tokens 1")
    detail = block_detail(trace.blocks[0], s)
    assert detail.tree is None
    assert "One token was left" in detail.ending
    assert isinstance(detail.ending, Sentence) and detail.ending.key == "evidence.ending.one_token"


def test_first_rejection_of_a_tree_names_the_depth() -> None:
    _, trace = trace_for("tree sample")
    text = first_rejection_text(trace)
    assert re.match(r"Block \d+, depth \d+: ", text), text
    # The first block with a rejection, at the depth where it fell.
    first = next(b for b in trace.blocks if b.result.first_rejection is not None)
    depth = first.result.first_rejection
    assert depth is not None and text.key == "evidence.first_rejection.tree"
    assert (text.values["block"], text.values["depth"]) == (first.index + 1, depth + 1)
    _, typical = trace_for("typical")
    assert "argmax" in first_rejection_text(typical)
    assert "u = 0.00" not in first_rejection_text(typical)


# --------------------------------------------------------------------------- the page


def block_html(client: TestClient, query: str) -> str:
    """The worked block, as a click on a block (or a settled slider) fetches it."""
    r = client.get(f"/station/block?{SKIP}&{query}")
    assert r.status_code == 200, r.text[:400]
    return r.text


def test_the_tree_is_in_the_block_detail_and_the_chain_keeps_its_own(
    client: TestClient,
) -> None:
    tree = block_html(client, "tree_width=2")
    assert 'data-testid="chart-tree"' in tree
    assert 'data-testid="tree-table"' in tree
    assert 'data-testid="chart-repair"' not in tree  # the chain's picture reads one draft
    chain = block_html(client, "k=4")
    assert 'data-testid="chart-tree"' not in chain
    assert 'data-testid="chart-repair"' in chain
    assert "Drafted tokens of block" in chain


def test_the_caption_and_the_picture_say_the_same(client: TestClient) -> None:
    html = block_html(client, "tree_width=2")
    detail = block_fragment(state_of(f"{SKIP}&tree_width=2"), WITNESS).detail
    assert detail is not None
    chart = detail.tree
    assert isinstance(chart, TreeChart)
    caption = re.search(r'data-testid="tree-summary">([^<]*)<', html)
    assert caption and unescape(caption.group(1)) == chart.summary
    nodes = re.findall(r'data-testid="tree-node" data-outcome="(\w+)" data-word="([^"]*)"', html)
    assert [(o, unescape(w)) for o, w in nodes] == [
        (n.outcome, n.word) for lv in chart.levels for n in lv.nodes
    ]


def test_width_4_k_2_fits_the_picture() -> None:
    s, trace = trace_for("width 4 k 2")
    for block in drawn(trace):
        chart = tree_chart(block, s)
        for level in chart.levels:
            for node in level.nodes:
                assert node.x >= chart.gutter
                assert node.x + node.width <= chart.width + 1e-9
        assert chart.ending.y + chart.ending.height <= chart.height


# --------------------------------------------------------------------------- beside the chain


@pytest.mark.parametrize("mode", ["tree sample", "typical", "lookup match", "verify off"])
def test_the_method_beside_its_chain_twin(mode: str) -> None:
    s, trace = trace_for(mode)
    ens, beside = WITNESS.ensemble(s), WITNESS.beside_chain(s)
    assert beside is not None
    chain = beside.chain
    # One estimator on both sides: the twin served on the method's own seeds.
    assert ens.seeds == chain.seeds and ens.estimator == chain.estimator != EXACT
    assert beside.comparison == WITNESS.compare(chain_twin(s), s)
    hrefs = tuple("" for _ in trace.blocks)
    view = evidence_view(trace, s, 0, WITNESS.quick_check(s), hrefs, ens, beside=beside)
    bc = view.beside_chain
    assert bc is not None
    rows = {r.label: r for r in bc.rows}
    alpha = rows["Acceptance per level (the station's α)"]
    assert (alpha.method, alpha.chain) == (f"{ens.alpha:.3f}", f"{chain.alpha:.3f}")
    per_pass = rows["Tokens per target pass"]
    if ens.tokens_per_pass is not None:
        assert per_pass.method == f"{ens.tokens_per_pass:.2f}"
    lookup = s.draft_source == "lookup"
    scored = rows["Tokens the target scores per pass"]
    assert scored.chain == f"{s.k + 1}"
    if not lookup:
        assert scored.method == f"{1 + tree_nodes(s.tree_width, s.k)}"
        assert rows["Drafted tokens per full block"].method == f"{tree_nodes(s.tree_width, s.k)}"
    passes = rows["Draft passes per request"]
    assert passes.method == f"{sum(ens.draft_passes) / len(ens.draft_passes):.1f}"
    assert passes.chain == f"{sum(chain.draft_passes) / len(chain.draft_passes):.1f}"
    notes = " ".join(bc.notes)
    assert "memory-bound" in notes and "counts passes" in notes
    if lookup:
        assert "draft cost is 0" in notes
        assert rows["Draft passes per full block"].method.startswith("0")
    else:
        assert "same number of draft passes" in notes
    if s.acceptance == "typical":
        assert "Typical acceptance" in notes
        if trace.check.keeps_target:
            assert "not lossless" in notes
        else:
            assert "does not keep p" in notes
    assert str(len(ens.seeds)) in bc.verdict
    change = beside.comparison.change
    assert ("same passes" if change == "same" else change) in bc.verdict
    # The verdict is the comparison's own direction, over every seeded request.
    assert isinstance(bc.verdict, Sentence) and bc.verdict.mode == change.replace(" ", "_")
    assert bc.verdict.values["requests"] == len(ens.seeds)


def test_the_chain_has_nothing_beside_it() -> None:
    s = Settings()
    trace = trace_of(s)
    ens = WITNESS.ensemble(s)
    hrefs = tuple("" for _ in trace.blocks)
    assert WITNESS.beside_chain(s) is None
    view = evidence_view(trace, s, 0, WITNESS.quick_check(s), hrefs, ens, beside=None)
    assert view.beside_chain is None
    assert view.detail.tree is None

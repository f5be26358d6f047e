"""Every sentence the station says is true in every mode (docs/sentences.md is the table).

Each mode below is a state a learner or an instructor reaches (greedy, verify off, repair
off, p = q, α near 0, k = 1, k = 16, one token to generate, a free and a dear draft, the
preset "draft too slow", the methods beside the chain, a machine pricing every pass, the
adversarial draft). For each, every judging sentence on the page — the gates, the
figures, the first rejection, the block's ending, the sampled and exact checks, the sweep's
caption, the slice, the readout, the checkpoint's boundary — is checked against the
witness's own numbers, computed here independently of the view.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.contract.checkpoint import checkpoint
from app.station.views import fmt
from app.station.views.station import LiveView
from app.words import Sentence
from tests.app.view_models import WITNESS, page_view, state_of
from witness import Settings
from witness.core.settings import drafted_width, max_depth, tree_nodes
from witness.core.theory import break_even_cost, draft_length_optimum, speculation_pays
from witness.cost.costing import any_k_pays, costing, price, priced_optimum
from witness.judge.ensemble import Ensemble, verdict_on_one
from witness.judge.sweep import K_MAX
from witness.methods.block import is_chain
from witness.serve.accounting import draft_cost, speedup_expected
from witness.serve.check import EXACT

MODES = {
    "defaults": "",
    "greedy": "greedy=on",
    "verify off": "verify=off",
    "verify off, p = q": "verify=off&match=1",
    "repair off": "repair=off",
    "repair off, p = q": "repair=off&match=1",
    "p = q": "match=1&k=8&draft_cost=0.05",
    "alpha near 0": "match=0",
    "k = 1": "k=1",
    "k = 16": "k=16",
    "one token": "tokens=1",
    "one token, verify off": "tokens=1&verify=off",
    "two tokens": "tokens=2",
    "free draft": "draft_cost=0",
    "dear draft": "draft_cost=1",
    "draft too slow": "match=0&draft_cost=0.45",
    "well matched": "match=0.9&k=5&draft_cost=0.05",
    "repair off, near p": "match=0.9&repair=off",
    "long request": "tokens=256&k=16&match=0.3",
    # The methods beside the chain: every sentence stays true for them too.
    "tree of two": "tree_width=2",
    "top tree": "tree_width=2&drafting=top",
    "top chain": "drafting=top",
    "distinct tree": "tree_width=2&drafting=distinct",
    "tree, repair off": "tree_width=2&repair=off",
    "tree, verify off": "tree_width=3&k=3&verify=off",
    "wide greedy tree": "tree_width=4&k=2&greedy=on",
    "tree, one token": "tree_width=2&tokens=1",
    "typical": "acceptance=typical",
    "typical, p = q": "acceptance=typical&match=1",
    "lookup": "draft_source=lookup",
    "lookup, repetitive": "draft_source=lookup&prompt=the+draft+model+proposes+the+draft+model"
    "+proposes+the+draft",
    "lookup, repair off": "draft_source=lookup&repair=off&prompt=the+target+model+the+target",
    "lookup, verify off": "draft_source=lookup&verify=off",
    "lookup, one token": "draft_source=lookup&tokens=1",
    # A machine prices every pass: the sentences quote its price per draft.
    "h100, batch 1": "machine=h100",
    "h100, batch 256, match 0.9": "machine=h100&batch=256&match=0.9",
    "laptop": "machine=laptop",
    "l4, context 8192": "machine=l4&context=8192",
    "a100, 70b with 8b": "machine=a100&pair=llama-70b-8b",
    "t5 pair": "machine=h100&pair=t5-xxl-small",
    "adversary, match 0": "draft_source=adversary&match=0",
    "tree on h100, batch 128": "machine=h100&batch=128&tree_width=2",
    # The H200 priced from its timed passes, each stack, and by its roofline.
    "h200 graphs, context 512": "machine=h200&context=512",
    "h200 eager": "machine=h200&stack=eager",
    "h200 compiled, batch 32": "machine=h200&stack=compiled&batch=32",
    "h200 roofline": "machine=h200&stack=roofline",
    "h200 t5, the fit alone": "machine=h200&pair=t5-xxl-small",
    "h200 tree, batch 32": "machine=h200&batch=32&tree_width=2",
    "h200 lookup": "machine=h200&draft_source=lookup",
    # The tiny transformers: every sentence stays true for real models too.
    "transformers, early exit": "models=early-exit",
    "transformers, exit alone, k = 16": "models=early-exit&match=0&k=16",
    "transformers, p = q": "models=early-exit&match=1&k=8",
    "transformers, repair off": "models=small-draft&repair=off",
    "transformers, verify off": "models=small-draft&verify=off",
    "transformers, greedy": "models=small-draft&greedy=on&match=0",
    "transformers, k = 1, one token": "models=early-exit&k=1&tokens=1",
    "transformers, exit on the h200": "models=early-exit&machine=h200&context=512",
}


def _view(q: str) -> LiveView:
    return page_view(f"/station?pred=skip&slice=1&{q}")


@pytest.fixture(scope="module", params=list(MODES), ids=list(MODES))
def mode(request: pytest.FixtureRequest) -> tuple[str, LiveView]:
    return request.param, _view(MODES[request.param])


EXACT_TEXTS = "exact-given-text"


def _over(ens: Ensemble) -> str:
    """What the ensemble's figures say they average over: texts (exact), greedy decoding's
    one text, or requests."""
    if ens.estimator == EXACT_TEXTS and ens.texts == 1:
        return "greedy decoding's one text"
    unit = "target texts" if ens.estimator == EXACT_TEXTS else "seeded requests"
    return f"{len(ens.seeds)} {unit}"


def test_the_gates_say_what_the_witness_says(mode: tuple[str, LiveView]) -> None:
    _, v = mode
    s, t, c = v.settings, v.trace.totals, v.trace.check
    ens = WITNESS.ensemble(s)
    inv = v.invariant
    assert inv is not None
    # Correctness: holds exactly when the exact distance is 0; the reason names the switch.
    assert inv.correctness.holds == (c.tv_max <= EXACT)
    words = inv.correctness.sentence
    drafted = t.drafted_tokens > 0
    assert ("residual repair keeps p" in words) == (
        c.tv_max <= EXACT and s.verify and s.repair and not s.greedy and drafted and is_chain(s)
    )
    if not s.verify and inv.correctness.holds and drafted:
        assert "by luck of the pair, not by the method" in words
    if s.acceptance == "typical" and s.verify and not inv.correctness.holds:
        assert "typical acceptance" in words and "not lossless" in words
    tree = s.tree_width > 1 and s.acceptance == "exact"
    if tree and inv.correctness.holds and s.verify and s.repair and not s.greedy and drafted:
        assert "recursive rejection sampling" in words
    if not inv.correctness.holds:
        assert f"TV {fmt.distance(c.tv_max)}" in words
    # Savings: never "holds" without verification; otherwise the ensemble's interval decides.
    sv = inv.savings
    if not s.verify:
        assert sv.status == "void" and not sv.holds and "not earned" in sv.sentence
        assert sv.mark == "–"
    elif not inv.correctness.holds:  # correctness first: another distribution's speed
        assert sv.status == "void" and not sv.holds and "not earned" in sv.sentence
        assert "another distribution" in sv.sentence
        assert f"TV {fmt.distance(c.tv_max)}" in sv.sentence
    elif not ens.drafted_positions:
        assert sv.status == "fails" and "(1.00×)" in sv.sentence
        assert ("nothing is drafted" in sv.sentence) == (s.draft_source == "model" or s.tokens == 1)
    elif s.draft_source == "lookup":
        est = ens.speedup(costing(s))
        expected = {"pays": "holds", "does not pay": "fails", "within noise": "undecided"}
        assert sv.status == expected[verdict_on_one(est)]
        assert "the draft cost c does not enter" in sv.sentence
        assert "break-even" not in sv.sentence
    else:
        est = ens.speedup(costing(s))
        expected = {"pays": "holds", "does not pay": "fails", "within noise": "undecided"}
        assert sv.status == expected[verdict_on_one(est)]
        if est.sd > 0:
            assert f"mean {fmt.speedup(est.mean)} over {_over(ens)}" in sv.sentence
        # The sentence names its estimator: texts judged exactly, or requests served.
        assert ("the exact expectation given" in sv.sentence) == (ens.estimator == EXACT_TEXTS)
        measured = ens.break_even_cost()
        assert f"(measured; {break_even_cost(ens.alpha, s.k):.2f} by the formula)" in sv.sentence
        assert measured is not None and f"under {measured:.2f}" in sv.sentence
        now = "under it" if price(s) < measured else "past it"
        if s.machine == "custom":
            assert f"c = {s.draft_cost:.2f} is {now}" in sv.sentence
            assert "the 'α > c' rule" in sv.sentence or s.k == 1
        else:  # the price per draft, split into the draft pass and the verifying surcharge
            cost = costing(s)
            assert (
                f"the price per draft = {price(s):.2f} (c = {cost.c:.2f} for the draft pass, "
                f"+ {price(s) - cost.c:.2f} for the larger verifying pass) is {now}"
            ) in sv.sentence
            assert "'α > c'" not in sv.sentence
            assert "'α > the price per draft at k = 1' rule" in sv.sentence or s.k == 1
    # The summary never calls a claim standing unless both gates hold.
    assert ("this speedup claim stands" in inv.summary) == (inv.correctness.holds and sv.holds)


def test_the_figures_label_one_request_and_the_ensemble(mode: tuple[str, LiveView]) -> None:
    _, v = mode
    s, t = v.settings, v.trace.totals
    ens = WITNESS.ensemble(s)
    e = v.evidence
    assert e is not None
    figs = {f.label: f for f in e.figures}
    one = figs["Speedup of this one request"]
    assert one.value == fmt.speedup(t.speedup_measured)
    assert "one request is an example, not a verdict" in one.note
    est = ens.speedup(costing(s))
    many = figs[f"Speedup over {_over(ens)}"]
    assert many.value == fmt.speedup(est.mean)
    formula = figs["Speedup by the formula"]
    c = draft_cost(s)
    assert formula.value == fmt.speedup(speedup_expected(ens.alpha, s.k, c, verify=s.verify))
    assert f"the station's α = {ens.alpha:.3f}" in formula.note
    assert f"this request's acceptance rate {t.mean_alpha:.3f}" in formula.note
    # The gap sentence, when there is one, names the direction the numbers show.
    if "sits under" in e.formula_gap:
        assert est.mean < speedup_expected(ens.alpha, s.k, c, verify=True)  # type: ignore[operator]
    if "sits over" in e.formula_gap:
        assert est.mean > speedup_expected(ens.alpha, s.k, c, verify=True)  # type: ignore[operator]


def test_the_time_is_on_the_states_one_clock(mode: tuple[str, LiveView]) -> None:
    """A priced machine's times are its cost units × its own plain decoding step; the
    workload's TTFT and TPOT price only machine custom, which names them."""
    _, v = mode
    s, t, e = v.settings, v.trace.totals, v.evidence
    assert e is not None
    [time] = [f for f in e.figures if f.label.startswith(("Time", "Decoding time"))]
    note = time.note
    assert isinstance(note, Sentence)
    if s.machine == "custom":
        assert time.label == "Time at TPOT" and note.key == "evidence.figure.time.custom"
        assert time.value == fmt.ms(s.ttft_ms + t.cost_units * s.tpot_ms)
        assert note.values["tpot"] == f"{s.tpot_ms:g}"
        assert "TTFT" in note and "TPOT" in note
        return
    step = costing(s).plain_seconds * 1e3
    assert note.key == "evidence.figure.time.machine" and "TPOT" not in time.label
    assert time.value == fmt.ms(t.cost_units * step)
    assert note.values["plain"] == fmt.ms(s.tokens * step)
    assert note.values["step"] == fmt.pass_ms(step)
    assert note.values["units"] == f"{t.cost_units:.1f}"


def test_the_request_sentences_follow_the_switches(mode: tuple[str, LiveView]) -> None:
    _, v = mode
    s, e = v.settings, v.evidence
    assert e is not None
    first = e.first_rejection
    if is_chain(s):
        assert ("repaired from the residual" in first) == (
            s.verify and s.repair and first.startswith("Block")
        )
        assert ("resampled from p (repair off)" in first) == (
            s.verify and not s.repair and first.startswith("Block")
        )
    else:  # a residual is named only where one repaired the block
        exact = s.acceptance == "exact"
        assert ("residual" in first) <= (s.verify and s.repair and exact)
        if s.verify and s.repair and exact and first.startswith("Block"):
            assert "residual" in first
    if not s.verify:
        assert first.startswith("None: with target verify off")
    ending = e.detail.ending
    if not s.repair:
        assert "residual" not in ending
    if not s.verify and v.trace.blocks[e.detail.number - 1].drafts and is_chain(s):
        assert ending.startswith("Nothing checked")
    # Tokens per pass: every full block of p = q emits k + 1, and the hint says "full".
    if s.match == 1.0 and s.verify and s.acceptance == "exact":
        *full, _ = v.trace.blocks
        assert all(len(b.result.emitted) == s.k + 1 for b in full)


def test_the_checks_never_claim_agreement_they_have_not_shown(
    mode: tuple[str, LiveView],
) -> None:
    _, v = mode
    e = v.evidence
    assert e is not None
    quick = WITNESS.quick_check(v.settings)
    words = e.sampled_check
    assert "agree with p" not in words
    if quick.keeps_target and quick.tv_exact > EXACT:
        assert f"off by TV {fmt.distance(quick.tv_exact)}" in words
        assert "has not shown agreement" in words
    if quick.keeps_target and quick.tv_exact <= EXACT:
        assert "no evidence against p" in words
    if not quick.keeps_target:
        assert "rejects p" in words
    if v.slice is not None:
        for row in v.slice.rows:
            m = next(x for x in WITNESS.slice(v.settings).modes if x.mode == row.mode)
            assert row.verdict.startswith("keeps p") == (m.tv_exact <= EXACT)


def test_the_sweep_caption_is_honest_about_its_optimum(mode: tuple[str, LiveView]) -> None:
    _, v = mode
    s, chart = v.settings, v.sweep
    assert chart is not None
    alpha = WITNESS.ensemble(s).alpha
    k_max = max_depth(s.tree_width)
    assert [p.k for p in WITNESS.sweep(s).points] == list(range(1, k_max + 1))
    # Every k at its own price (the slider's c in custom; `draft_length_optimum` there).
    o = priced_optimum(s, alpha, k_max)
    if s.machine == "custom":
        assert o == draft_length_optimum(alpha, draft_cost(s), k_max)
    words = chart.summary
    assert "one request per k" in words
    if not s.verify:
        assert "Verify off:" in words
        assert ("no target pass at any k" in words) == (s.draft_source == "model")
        return
    if k_max < K_MAX:
        assert f"may be at most k = {k_max} deep" in words
    pays = any_k_pays(s, alpha)
    if not costing(s).measured:  # the k = 1 price decides: it never falls with k there
        assert pays == speculation_pays(alpha, price(s, 1))
    assert ("No k pays by the formula" in words) == (not pays)
    _the_roofline_beside_measured_prices(s, alpha, k_max, o.k, words)
    if not pays:
        assert f"α = {alpha:.2f} ≤" in words
    elif o.unconstrained is None:
        assert (
            "has no finite optimum" in words and f"k = {k_max} is only the slider's edge" in words
        )
        assert "no finite optimum" in chart.optimum_label
    elif o.unconstrained > k_max:
        assert f"best k is {o.unconstrained}, past the slider's range" in words
    else:
        assert f"The formula's optimum is k = {o.k} " in words
        assert chart.optimum_label == f"optimum k = {o.k}"
    here = float(break_even_cost(alpha, s.k))
    held = "c" if s.machine == "custom" else "the price per draft"
    assert (f"k = {s.k} pays while {held} < {here:.2f}" in words) == (s.draft_source != "lookup")
    if s.draft_source != "lookup":
        verdict = "pays" if price(s) < here else "does not pay"
        assert f": it {verdict})" in words
        if s.machine != "custom" and s.k > 1:
            assert f"k = 1 pays while its price per draft ({price(s, 1):.2f}) < α" in words


def _the_roofline_beside_measured_prices(
    s: Settings, alpha: float, k_max: int, k: int, words: str
) -> None:
    """Measured prices name the roofline's best k beside their own, in the right direction."""
    if not costing(s).measured:
        assert "Priced by the roofline the best k" not in words
        return
    k_roof = priced_optimum(s.model_copy(update={"stack": "roofline"}), alpha, k_max).k
    if k == k_roof:
        assert f"Priced by the roofline the best k is also {k} " in words
    else:
        assert f"Priced by the roofline the best k would be {k_roof} " in words
        assert f"the measured passes make it {k} " in words
        assert ("each extra draft must earn more" in words) == (k < k_roof)


def test_the_cost_model_is_named_as_the_state_prices_passes(
    mode: tuple[str, LiveView],
) -> None:
    """Custom prices a pass the same whatever it scores; a machine by what it scores. A note
    that says "priced like one that scores k + 1" or "a wider pass costs what a narrow one
    does" is true only in custom."""
    _, v = mode
    s, e = v.settings, v.evidence
    assert e is not None and v.sweep is not None
    cost = costing(s)
    notes = " ".join(e.beside_chain.notes) if e.beside_chain is not None else ""
    widths = v.sweep.widths_note
    if s.machine == "custom":
        assert "on a machine" not in notes.lower()
        if e.beside_chain is not None:
            assert "is priced like" in notes
        if widths:
            assert "a wider pass costs what a narrow one does here" in widths
        return
    assert "is priced like" not in notes and "costs what a narrow one does" not in widths
    if e.beside_chain is not None:
        full = 1 + tree_nodes(drafted_width(s), s.k)
        assert f"{full} tokens of each sequence cost {cost.verify(full):.2f} plain steps" in notes
        # The tree's pass, compute-bound here, is dearer than the chain's: priced by its tokens.
        if s.batch >= 128:
            assert cost.verify(full) > cost.verify(s.k + 1)
    if widths:
        assert "priced by the tokens it scores" in widths


def test_the_readout_and_the_checkpoint_quote_the_same_numbers(
    mode: tuple[str, LiveView],
) -> None:
    _, v = mode
    s = v.settings
    ens = WITNESS.ensemble(s)
    ro = v.readout
    assert ro is not None and v.invariant is not None
    values = {r.testid: r.value for r in ro.readings}
    assert values["readout-speedup"] == fmt.speedup(ens.speedup(costing(s)).mean)
    assert [g.status for g in ro.gates] == [
        v.invariant.correctness.status,
        v.invariant.savings.status,
    ]
    cp = checkpoint(state_of(f"/station?pred=skip&{MODES[mode[0]]}"), WITNESS)
    boundary = cp["speedupBoundary"]
    assert boundary["meanAlpha"] == round(ens.alpha, 6)
    assert boundary["pays"] == (v.invariant.savings.status == "holds")
    assert v.invariant.savings.sentence in boundary["sentence"]
    # The worksheet's break-even row is the gate's number, where the gate judges the speed.
    judged = v.invariant.savings.status != "void"
    if judged and v.evidence is not None and v.evidence.break_even_measured is not None:
        assert f"under {v.evidence.break_even_measured:.2f}" in v.invariant.savings.sentence


def test_teeth_a_gate_from_one_request_is_caught() -> None:
    """The old savings rule, "holds" when one request's speedup beats 1, disagrees with the
    ensemble's verdict at a borderline state for some seeds: the gate test above would fail
    it there, so it can fail."""
    base = Settings(match=0.0, k=1, draft_cost=0.45)
    disagree = []
    for seed in range(40):
        s = base.model_copy(update={"seed": seed})
        one = (WITNESS.trace(s).totals.speedup_measured or 0.0) > 1.0
        many = verdict_on_one(WITNESS.ensemble(s).speedup(s.draft_cost)) == "pays"
        if one != many:
            disagree.append(seed)
    assert disagree


def test_the_modes_cover_the_issue_table() -> None:
    """Each mode the issue names is in the table above (and in docs/sentences.md)."""
    doc = (Path(__file__).resolve().parents[4] / "docs" / "sentences.md").read_text("utf-8")
    for name in MODES:
        assert f"| {name} |" in doc, name
    states = {name: state_of(f"/station?{q}").settings for name, q in MODES.items()}
    assert states["greedy"].greedy and not states["verify off"].verify
    assert not states["repair off"].repair and states["p = q"].match == 1.0
    assert states["alpha near 0"].match == 0.0 and states["one token"].tokens == 1
    assert {states["k = 1"].k, states["k = 16"].k} == {1, 16}
    assert re.fullmatch(r"[\w =,.]+", " ".join(MODES))
    assert states["tree of two"].tree_width == 2 and states["typical"].acceptance == "typical"
    assert states["lookup"].draft_source == "lookup"
    machines = {n: st for n, st in states.items() if st.machine != "custom"}
    assert {st.machine for st in machines.values()} == {"h200", "h100", "a100", "l4", "laptop"}
    assert {st.stack for st in machines.values() if st.machine == "h200"} == {
        "graphs",
        "compiled",
        "eager",
        "roofline",
    }
    assert {st.pair for st in machines.values()} == {"llama-8b-1b", "llama-70b-8b", "t5-xxl-small"}
    assert states["h100, batch 256, match 0.9"].batch == 256
    assert states["l4, context 8192"].context == 8192
    assert states["adversary, match 0"].draft_source == "adversary"
    assert Settings() == states["defaults"]
